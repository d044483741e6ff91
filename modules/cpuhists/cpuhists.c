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
 * tracepoint probe.  PCORE_MODULE() creates the client before the setup
 * function and destroys it, which tears everything down, when setup fails
 * and at exit.
 */
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <trace/events/sched.h>
#include <probe_core/probe_core.h>
#include <probe_core/compat.h>

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

static int __init cpuhists_setup(struct pcore_client *pc)
{
	struct pcore_probe *p;
	int ret;

	ch.oncpu = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "oncpu" });
	ch.offcpu = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "offcpu" });
	ch.slice = pcore_timer_create(pc, &(struct pcore_timer_opts){
		.name = "slice", .scope = PCORE_TIMER_CPU });
	ch.sleep = pcore_timer_create(pc, &(struct pcore_timer_opts){
		.name = "sleep", .scope = PCORE_TIMER_TASK, .tasks = 4096 });
	/* On an error, PCORE_MODULE() frees whatever was created. */
	ret = PTR_ERR_OR_ZERO(ch.oncpu) ?: PTR_ERR_OR_ZERO(ch.offcpu) ?:
	      PTR_ERR_OR_ZERO(ch.slice) ?: PTR_ERR_OR_ZERO(ch.sleep);
	if (ret)
		return ret;
	/*
	 * Typed: a handler whose prototype is not sched_switch's fails to
	 * build.  .hist names the histogram whose stats show this probe.
	 */
	p = PCORE_TRACEPOINT_ATTACH(pc, sched_switch, cpuhists_switch,
				    .hist = ch.oncpu, .priv = &ch);
	return PTR_ERR_OR_ZERO(p);
}

/* The client, module_init() and module_exit() around cpuhists_setup(). */
PCORE_MODULE(cpuhists_setup);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("probe_core example: per-CPU on-CPU and off-CPU time from sched_switch");
