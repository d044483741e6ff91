// SPDX-License-Identifier: GPL-2.0
/*
 * tirqthread: threaded IRQs, from the wake-up of an IRQ thread to its run,
 * a probe_core tutorial.
 *
 * A threaded IRQ's hardirq handler only wakes a kernel thread named
 * "irq/<n>-<name>" (every IRQ that allows it is threaded when the kernel
 * boots with "threadirqs"); that thread runs the real handler.  Two
 * histograms keyed by IRQ number, each key labelled with the thread's name:
 *
 *   latency  ns from the thread's wake-up (sched_waking) to the moment it
 *            runs (sched_switch to it): how long the IRQ waited for its
 *            handler to start
 *   run      ns from the thread's switch-in to its switch-out: how long it
 *            ran, usually one pass over its loop that handles all pending
 *            IRQs of the line and sleeps (an IRQ thread is SCHED_FIFO, so
 *            it is rarely preempted; a preempted run shows as two values)
 *
 *   insmod probe_core.ko && insmod tirqthread.ko [irqs=3,4]
 *   cat /sys/kernel/debug/probe_core/tirqthread/latency/keys
 *   cat /sys/kernel/debug/probe_core/tirqthread/run/keys
 *   cat /sys/kernel/debug/probe_core/tirqthread/timers
 *
 * irqs= picks the IRQ numbers to watch (default: all): decimal numbers
 * separated by commas; anything else fails the load with -EINVAL and one
 * log line naming the bad value.
 *
 * Step 1: parse and check the parameter before creating anything in the
 * client.  Step 2: two histograms keyed by IRQ number (PCORE_KEYS_DIRECT).
 * Step 3: timers: the wake-up and the run happen in different contexts and
 * maybe on different CPUs, so "wake" is a task timer keyed by the thread's
 * pid; a run starts and ends on one CPU (a task switched in leaves that
 * CPU by the next switch there), so "run" is a CPU timer.  Step 4: the
 * tracepoint probes.  PCORE_MODULE() makes the client, and destroying it
 * (when setup fails and at exit) undoes everything.
 *
 * In the "wake" line of the timers file, "unmatched" counts switch-ins of
 * a watched thread that had no wake-up stamp: runs resumed after a
 * preemption, and wake-ups this module chose not to time (see
 * tirq_wakes_to_run()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/irqnr.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <trace/events/sched.h>
#include <probe_core/probe_core.h>
#include <probe_core/compat.h>

/*
 * Keys: IRQ numbers are below nr_irqs.  8 bytes per slot and CPU; a record
 * (about 5 KB) only for an IRQ thread that runs, on the CPUs it runs on.
 * 1024 keys cover a small machine.
 */
#define TIRQ_MAX_IRQS	1024
/* IRQ threads that may wait between wake-up and run at once. */
#define TIRQ_TASKS	256

static char *irqs = "";
module_param(irqs, charp, 0444);
MODULE_PARM_DESC(irqs, "IRQ numbers to watch, e.g. 3,4 (default: all)");

static struct tirq {
	struct pcore_hist *latency;
	struct pcore_hist *run;
	struct pcore_timer *wake;	/* per thread: when it was woken */
	struct pcore_timer *oncpu;	/* per CPU: when the thread got it */
	u32 keys;			/* IRQ numbers below this are keys */
	DECLARE_BITMAP(want, TIRQ_MAX_IRQS);	/* IRQs to watch */
} ti;

/*
 * The IRQ number of a watched IRQ thread, else -1.  Hot path: IRQ threads
 * are kernel threads whose name the kernel made with "irq/%d-%s" (or
 * "irq/%d-s-%s" for a secondary thread) and never changes, so the number
 * is read from the name: a few byte compares, multiplications by 10 and no
 * lock.  PF_KTHREAD first: user tasks can name themselves anything and
 * most switches involve one.  At most 7 digits, so no overflow.
 */
static int notrace tirq_irq_of(const struct tirq *t,
			       const struct task_struct *p)
{
	const char *c = p->comm;
	int irq = 0, i;

	if (!(READ_ONCE(p->flags) & PF_KTHREAD) || c[0] != 'i' ||
	    c[1] != 'r' || c[2] != 'q' || c[3] != '/')
		return -1;
	for (i = 4; i < 11 && c[i] >= '0' && c[i] <= '9'; i++)
		irq = irq * 10 + (c[i] - '0');
	if (i == 4 || c[i] != '-' || irq >= t->keys || !test_bit(irq, t->want))
		return -1;
	return irq;
}

/*
 * Will this wake-up be followed by a switch to @p?  Not when @p is still
 * on a run queue and running (it woke itself, or is woken on its way to
 * sleep before it left the CPU): the wake-up only sets it running again,
 * no switch comes, and a stamp taken now would wait for a later, unrelated
 * switch-in.  Such wake-ups are not timed.  Read without the run-queue
 * lock: when @p leaves the run queue right after the read, one wake-up is
 * lost (its switch-in counts as unmatched); a stale stamp would need @p
 * preempted after it set itself sleeping, and is replaced by the next
 * wake-up anyway.
 */
static bool notrace tirq_wakes_to_run(const struct task_struct *p)
{
	if (!READ_ONCE(p->on_rq))
		return true;
#ifdef CONFIG_SMP
	return !READ_ONCE(p->on_cpu);
#else
	return p != current;
#endif
}

/* TP_PROTO(struct task_struct *p): @p is being woken. */
static void notrace tirq_waking(void *data, struct task_struct *p)
{
	struct tirq *t = pcore_tp_hit(data);

	if (tirq_irq_of(t, p) >= 0 && tirq_wakes_to_run(p))
		pcore_timer_start(t->wake, p);
}

static void notrace tirq_switch(PCORE_SCHED_SWITCH_PROTO)
{
	struct tirq *t = pcore_tp_hit(data);
	int irq;
	u64 ns;

	/* A watched thread leaves this CPU: its run ends. */
	irq = tirq_irq_of(t, prev);
	if (irq >= 0 && pcore_timer_stop(t->oncpu, NULL, &ns))
		pcore_hist_add_key(t->run, irq, prev->comm, ns);
	/* A watched thread gets this CPU: its wait ends, its run begins. */
	irq = tirq_irq_of(t, next);
	if (irq < 0)
		return;
	if (pcore_timer_stop(t->wake, next, &ns))
		pcore_hist_add_key(t->latency, irq, next->comm, ns);
	pcore_timer_start(t->oncpu, NULL);
}

/*
 * irqs=: empty for every IRQ, else decimal IRQ numbers below t->keys,
 * separated by single commas.  Anything else is refused with one log line
 * that names the bad value (escaped: it comes from the user).
 */
static int __init tirq_parse(struct tirq *t)
{
	char *buf, *s, *tok;
	unsigned int irq;
	int ret = 0;

	if (!irqs || !*irqs) {
		bitmap_fill(t->want, t->keys);
		return 0;
	}
	buf = kstrdup(irqs, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	s = buf;
	while ((tok = strsep(&s, ","))) {
		if (*tok && strspn(tok, "0123456789") == strlen(tok) &&
		    !kstrtouint(tok, 10, &irq) && irq < t->keys) {
			__set_bit(irq, t->want);
			continue;
		}
		pr_err("irqs: bad value '%*pE': want IRQ numbers below %u separated by commas\n",
		       (int)min_t(size_t, strlen(tok), 64), tok, t->keys);
		ret = -EINVAL;
		break;
	}
	kfree(buf);
	return ret;
}

static int __init tirq_setup(struct pcore_client *pc)
{
	struct pcore_probe *p;
	int ret;

	ti.keys = min_t(u32, nr_irqs, TIRQ_MAX_IRQS);
	ret = tirq_parse(&ti);
	if (ret)
		return ret;

	ti.latency = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "latency", .key_mode = PCORE_KEYS_DIRECT,
		.keys = ti.keys, .key_name = "irq" });
	ti.run = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "run", .key_mode = PCORE_KEYS_DIRECT,
		.keys = ti.keys, .key_name = "irq" });
	ti.wake = pcore_timer_create(pc, &(struct pcore_timer_opts){
		.name = "wake", .scope = PCORE_TIMER_TASK,
		.tasks = TIRQ_TASKS });
	ti.oncpu = pcore_timer_create(pc, &(struct pcore_timer_opts){
		.name = "oncpu", .scope = PCORE_TIMER_CPU });
	/* On an error, PCORE_MODULE() frees whatever was created. */
	ret = PTR_ERR_OR_ZERO(ti.latency) ?: PTR_ERR_OR_ZERO(ti.run) ?:
	      PTR_ERR_OR_ZERO(ti.wake) ?: PTR_ERR_OR_ZERO(ti.oncpu);
	if (ret)
		return ret;
	/* sched_switch first: it stops what sched_waking starts. */
	p = PCORE_TRACEPOINT_ATTACH(pc, sched_switch, tirq_switch,
				    .hist = ti.latency, .priv = &ti);
	if (IS_ERR(p))
		return PTR_ERR(p);
	p = PCORE_TRACEPOINT_ATTACH(pc, sched_waking, tirq_waking,
				    .priv = &ti);
	return PTR_ERR_OR_ZERO(p);
}

PCORE_MODULE(tirq_setup);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("probe_core example: threaded IRQs, wake-up to run and run time");
