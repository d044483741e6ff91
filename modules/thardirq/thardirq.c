// SPDX-License-Identifier: GPL-2.0
/*
 * thardirq: time spent in each hardirq handler, per IRQ number, a
 * probe_core tutorial.
 *
 * Two histograms keyed by IRQ number, each key labelled with the name of
 * the handler's action (the last column of /proc/interrupts):
 *
 *   time  ns from irq_handler_entry to irq_handler_exit: one handler call
 *   ret   what the handler returned: 0 IRQ_NONE (not ours: unhandled),
 *         1 IRQ_HANDLED, 2 IRQ_WAKE_THREAD (a threaded IRQ's primary
 *         handler woke its thread), 3 both.  A linear histogram with one
 *         bucket per value, so its hist file counts each outcome.
 *
 *   insmod probe_core.ko && insmod thardirq.ko
 *   cat /sys/kernel/debug/probe_core/thardirq/time/keys
 *   cat /sys/kernel/debug/probe_core/thardirq/ret/hist
 *
 * Step 1: one client.  Step 2: the histograms, keyed by IRQ number: a
 * small dense key, so PCORE_KEYS_DIRECT.  Step 3: a CPU timer: a hardirq
 * handler starts and ends on one CPU with interrupts off, so one stamp per
 * CPU is enough (handlers do not nest).  Step 4: the two tracepoint
 * probes.  PCORE_MODULE() makes the client, and destroying it (when setup
 * fails and at exit) undoes everything.
 *
 * An IRQ line shared by several devices runs one action after the other:
 * each handler call is one value under the IRQ number, and the key keeps
 * the name of the first action seen (only the first label of a key is
 * kept).
 *
 * Threaded IRQs (booted with "threadirqs", and always on PREEMPT_RT,
 * which force-threads every handler not marked IRQF_NO_THREAD): the
 * tracepoints then bracket only the primary handler put in front of the
 * driver's, which wakes the IRQ thread and returns IRQ_WAKE_THREAD (ret 2);
 * the driver's handler runs in the thread, outside these tracepoints (the
 * tirqthread example measures the thread).
 */
#include <linux/interrupt.h>
#include <linux/irqnr.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <trace/events/irq.h>
#include <probe_core/probe_core.h>

/*
 * Keys: IRQ numbers are below nr_irqs.  A slot costs 8 bytes per CPU;
 * records (about 5 KB each) are taken only by IRQs that fire, on the CPUs
 * they fire on.  1024 keys cover every IRQ of a small machine.  On a
 * machine with more IRQs, values of IRQs at or above 1024 are counted as
 * "dropped" in the stats and keys files.
 */
#define THARDIRQ_MAX_IRQS	1024

static struct thardirq {
	struct pcore_hist *time;
	struct pcore_hist *ret;
	struct pcore_timer *handler;	/* per CPU: when the handler began */
} th;

/* TP_PROTO(int irq, struct irqaction *action), after the probe's data. */
static void notrace thardirq_entry(void *data, int irq,
				   struct irqaction *action)
{
	struct thardirq *t = pcore_tp_hit(data);

	pcore_timer_start(t->handler, NULL);
}

/* TP_PROTO(int irq, struct irqaction *action, int ret) */
static void notrace thardirq_exit(void *data, int irq,
				  struct irqaction *action, int ret)
{
	struct thardirq *t = pcore_tp_hit(data);
	u64 ns;

	/*
	 * No match when the module was loaded while this handler ran; irq
	 * is never negative here, but the key is unsigned: check anyway.
	 */
	if (irq < 0 || !pcore_timer_stop(t->handler, NULL, &ns))
		return;
	pcore_hist_add_key(t->time, irq, action->name, ns);
	pcore_hist_add_key(t->ret, irq, action->name, (u32)ret);
}

static int __init thardirq_setup(struct pcore_client *pc)
{
	u32 keys = min_t(u32, nr_irqs, THARDIRQ_MAX_IRQS);
	struct pcore_probe *p;
	int ret;

	th.time = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "time", .key_mode = PCORE_KEYS_DIRECT,
		.keys = keys, .key_name = "irq" });
	/* Buckets [0, 1) .. [3, 4), and one above for anything else. */
	th.ret = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "ret", .unit = "ret",
		.spec = { .kind = PCORE_HIST_LINEAR, .min = 0, .max = 4,
			  .step = 1 },
		.key_mode = PCORE_KEYS_DIRECT, .keys = keys,
		.key_name = "irq" });
	th.handler = pcore_timer_create(pc, &(struct pcore_timer_opts){
		.name = "handler", .scope = PCORE_TIMER_CPU });
	/* On an error, PCORE_MODULE() frees whatever was created. */
	ret = PTR_ERR_OR_ZERO(th.time) ?: PTR_ERR_OR_ZERO(th.ret) ?:
	      PTR_ERR_OR_ZERO(th.handler);
	if (ret)
		return ret;
	p = PCORE_TRACEPOINT_ATTACH(pc, irq_handler_entry, thardirq_entry,
				    .priv = &th);
	if (IS_ERR(p))
		return PTR_ERR(p);
	/* Attached second: an exit probe with no entry yet finds no stamp. */
	p = PCORE_TRACEPOINT_ATTACH(pc, irq_handler_exit, thardirq_exit,
				    .hist = th.time, .priv = &th);
	return PTR_ERR_OR_ZERO(p);
}

PCORE_MODULE(thardirq_setup);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("probe_core example: time in each hardirq handler, per IRQ");
