// SPDX-License-Identifier: GPL-2.0
/*
 * cpuhists: per-CPU histograms from sched_switch, a probe_core tutorial.
 *
 * Two histograms, each with a record per CPU:
 *
 *   oncpu   how long a task ran before it was switched out (a time slice)
 *   offcpu  how long a task stayed off the CPU before it ran again
 *
 *   insmod probe_core.ko && insmod cpuhists.ko
 *   cat /sys/kernel/debug/probe_core/cpuhists/oncpu/hist     (all CPUs)
 *   cat /sys/kernel/debug/probe_core/cpuhists/oncpu/percpu   (each CPU)
 *
 * Step 1: one client per module.  Step 2: histograms.  They need no key
 * for the CPU: every histogram keeps a record per CPU, written by the CPU
 * the value is recorded on, and its percpu file shows each CPU's (a key
 * by CPU would hold CPUs x CPUs records, of which only one per CPU is
 * written).  Step 3: timers that hold the start stamps.  Step 4: the
 * tracepoint probe.  Everything is torn down by pcore_client_destroy() in
 * the exit function.
 */
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <trace/events/sched.h>
#include <probe_core/probe_core.h>
#include <probe_core/compat.h>

static struct pcore_client *pc;

/* What the handler needs, reached through pcore_tp_hit(). */
static struct cpuhists {
	struct pcore_hist *oncpu;
	struct pcore_hist *offcpu;
	struct pcore_timer *slice;	/* per CPU: when the running task started */
	struct pcore_timer *sleep;	/* per task: when it was switched out */
} ch;

/*
 * The tracepoint's own prototype (from the compat header, as it changed
 * in 5.18); data is the probe, handed to pcore_tp_hit().  The compiler
 * checks it against <trace/events/sched.h>: see the attach below.
 */
static void notrace cpuhists_switch(PCORE_SCHED_SWITCH_PROTO)
{
	struct cpuhists *c = pcore_tp_hit(data);
	u64 ns;

	/* prev leaves the CPU: its slice ends, its off-CPU time starts. */
	if (pcore_timer_stop(c->slice, NULL, &ns))
		pcore_hist_add(c->oncpu, ns);
	pcore_timer_start(c->slice, NULL);
	/* Not a task on its last switch: it exits, nothing comes back. */
	if (prev->pid && !READ_ONCE(prev->exit_state))
		pcore_timer_start(c->sleep, prev);
	/* next comes back: its off-CPU time ends. */
	if (next->pid && pcore_timer_stop(c->sleep, next, &ns))
		pcore_hist_add(c->offcpu, ns);
}

static int __init cpuhists_init(void)
{
	struct pcore_probe *p;
	int ret;

	pc = pcore_client_create(THIS_MODULE);
	if (IS_ERR(pc))
		return PTR_ERR(pc);
	ch.oncpu = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "oncpu" });
	ch.offcpu = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "offcpu" });
	ch.slice = pcore_timer_create(pc, &(struct pcore_timer_opts){
		.name = "slice", .scope = PCORE_TIMER_CPU });
	ch.sleep = pcore_timer_create(pc, &(struct pcore_timer_opts){
		.name = "sleep", .scope = PCORE_TIMER_TASK, .tasks = 4096 });
	ret = PTR_ERR_OR_ZERO(ch.oncpu) ?: PTR_ERR_OR_ZERO(ch.offcpu) ?:
	      PTR_ERR_OR_ZERO(ch.slice) ?: PTR_ERR_OR_ZERO(ch.sleep);
	if (ret)
		goto err;
	/*
	 * Typed: a handler whose prototype is not sched_switch's fails to
	 * build.  .hist names the histogram whose stats show this probe.
	 */
	p = PCORE_TRACEPOINT_ATTACH(pc, sched_switch, cpuhists_switch,
				    .hist = ch.oncpu, .priv = &ch);
	ret = PTR_ERR_OR_ZERO(p);
	if (ret)
		goto err;
	return 0;
err:
	/* Frees whatever was created; ERR_PTR members were never added. */
	pcore_client_destroy(pc);
	return ret;
}

static void __exit cpuhists_exit(void)
{
	pcore_client_destroy(pc);
}

module_init(cpuhists_init);
module_exit(cpuhists_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("probe_core example: per-CPU on-CPU and off-CPU time from sched_switch");
