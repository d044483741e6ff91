// SPDX-License-Identifier: GPL-2.0
/* readlat: how long vfs_read() takes, and how much callers ask for. */
#include <linux/module.h>
#include <linux/unistd.h>
#include <trace/events/syscalls.h>
#include <probe_core/probe_core.h>

static struct pcore_hist *sizes;

/* Runs at each call's entry; returning non-zero would skip timing it. */
static int readlat_entry(struct pcore_probe *p, struct pt_regs *regs,
			 void *data)
{
	/* vfs_read(file, buf, count, pos): count is argument 2 */
	pcore_hist_add(sizes, pcore_arg(regs, 2));
	return 0;
}

/*
 * A tracepoint handler has the tracepoint's TP_PROTO after a void *,
 * which gives pcore_tp_hit() the priv of the attach.
 */
static void readlat_syscall(void *data, struct pt_regs *regs, long id)
{
	struct pcore_hist *reads = pcore_tp_hit(data);

	if (id == __NR_read)
		pcore_hist_count(reads);
}

/* Creates what the module records into pc, the module's client. */
static int __init readlat_setup(struct pcore_client *pc)
{
	struct pcore_hist *lat, *reads;
	struct pcore_probe *p;
	int ret;

	/* /sys/kernel/debug/probe_core/readlat/latency/: ns, loglinear */
	lat = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "latency" });
	/* .../readlat/size/: bytes, one bucket per power of two */
	sizes = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "size", .unit = "bytes",
		.spec = { .kind = PCORE_HIST_LOG2 } });
	/* .../readlat/reads/: a count, no values */
	reads = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "reads", .unit = "calls",
		.spec = { .kind = PCORE_HIST_COUNT } });
	ret = PTR_ERR_OR_ZERO(lat) ?: PTR_ERR_OR_ZERO(sizes) ?:
	      PTR_ERR_OR_ZERO(reads);
	if (ret)
		return ret;

	/* Without a return handler, each call's time goes to .hist. */
	p = pcore_kretprobe_attach(pc, &(struct pcore_kretprobe_opts){
		.symbol = "vfs_read", .entry = readlat_entry,
		.hist = lat });
	if (IS_ERR(p))
		return PTR_ERR(p);

	/*
	 * Typed: the compiler checks readlat_syscall() against sys_enter's
	 * TP_PROTO in <trace/events/syscalls.h>; a wrong one fails to build.
	 */
	p = PCORE_TRACEPOINT_ATTACH(pc, sys_enter, readlat_syscall,
				    .hist = reads, .priv = reads);
	return PTR_ERR_OR_ZERO(p);
}

/*
 * module_init: create the client, call readlat_setup(); if it fails,
 * destroy the client (which frees whatever was created).  module_exit:
 * destroy the client (which detaches, then frees everything).
 */
PCORE_MODULE(readlat_setup);
MODULE_LICENSE("GPL");	/* the API is exported to GPL modules only */
MODULE_DESCRIPTION("readlat: vfs_read() latency and request sizes");
