// SPDX-License-Identifier: GPL-2.0
/*
 * tcpsize: sizes passed to tcp_sendmsg(), a probe_core tutorial.
 *
 * One histogram of the size argument of every tcp_sendmsg() call, in
 * bytes: how much data each send(), write() or sendmsg() on a TCP socket
 * hands to the kernel at once.
 *
 *   insmod probe_core.ko && insmod tcpsize.ko
 *   cat /sys/kernel/debug/probe_core/tcpsize/size/hist
 *   cat /sys/kernel/debug/probe_core/tcpsize/size/stats
 *
 * tcp_sendmsg() is entered once per system call, whatever the size: it
 * loops over the data itself, waiting for socket memory when a blocking
 * socket's buffer is full.  So the count is the number of send calls, and
 * the histogram the distribution of their sizes (not of the segments that
 * go on the wire).  sendfile() and splice() reach TCP through
 * tcp_sendpage() before v6.5, and are not seen there; since v6.5 they call
 * tcp_sendmsg() with MSG_SPLICE_PAGES and are counted like send().
 *
 * Buckets are powers of two (PCORE_HIST_LOG2): send sizes span six orders
 * of magnitude, from one-byte writes of interactive sessions to megabyte
 * writes of bulk transfers, and the question is usually which order of
 * magnitude dominates.  Linear buckets cannot cover that range usefully
 * within 2048 buckets; loglinear ones would, at several times the
 * memory (5 KiB per CPU instead of about 550 bytes), for a precision that
 * a size distribution rarely needs.
 *
 * Step 1: the client, from PCORE_MODULE().  Step 2: the histogram, in
 * bytes, log2 buckets.  Step 3: a kprobe on the first instruction of tcp_sendmsg(), whose
 * handler reads the third argument from the registers.
 */
#include <linux/module.h>
#include <probe_core/probe_core.h>

/*
 * int tcp_sendmsg(struct sock *sk, struct msghdr *msg, size_t size):
 * size is argument 2, counting from 0.
 */
static void notrace tcpsize_pre(struct pcore_probe *p, struct pt_regs *regs)
{
	struct pcore_hist *h = pcore_probe_priv(p);

	pcore_hist_add(h, pcore_arg(regs, 2));
}

static int __init tcpsize_setup(struct pcore_client *pc)
{
	struct pcore_hist *h;
	struct pcore_probe *p;

	h = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "size", .unit = "bytes",
		.spec = { .kind = PCORE_HIST_LOG2 } });
	if (IS_ERR(h))
		return PTR_ERR(h);
	/* On an error, PCORE_MODULE() frees the histogram. */
	p = pcore_kprobe_attach(pc, &(struct pcore_kprobe_opts){
		.symbol = "tcp_sendmsg", .pre = tcpsize_pre, .hist = h,
		.priv = h });
	return PTR_ERR_OR_ZERO(p);
}

PCORE_MODULE(tcpsize_setup);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("probe_core example: histogram of tcp_sendmsg() sizes");
