// SPDX-License-Identifier: GPL-2.0
/*
 * tsoftirq: time spent in each softirq vector, a probe_core tutorial.
 *
 * One histogram keyed by softirq vector: how long each run of a vector's
 * handler took, from the softirq_entry tracepoint to softirq_exit.
 *
 *   insmod probe_core.ko && insmod tsoftirq.ko
 *   cat /sys/kernel/debug/probe_core/tsoftirq/time/keys
 *   cat /sys/kernel/debug/probe_core/tsoftirq/time/hist
 *   cat /sys/kernel/debug/probe_core/tsoftirq/timers
 *
 * The keys file has one line per vector that ran, labelled with the name
 * /proc/softirqs uses (TIMER, NET_RX, RCU...).  The timers file shows
 * "run cpu <measured> <discarded> <unmatched> <evicted>": measured runs are
 * in the histogram; discarded runs saw a context switch between entry and
 * exit; unmatched exits had no entry (a run already in progress when the
 * module loaded: at most one per CPU).
 *
 * Do softirq runs nest?  Not on one CPU: __do_softirq() runs the handlers
 * with SOFTIRQ_OFFSET in preempt_count, and irq_exit() only runs pending
 * softirqs when not in_interrupt(), so a hardirq that arrives during a run
 * returns to it without starting another.  Such a hardirq's time is part
 * of the run's measured time (as is an NMI's).  On PREEMPT_RT softirqs
 * run in tasks, but one CPU's runs are serialized by a per-CPU lock (the
 * one local_bh_disable() takes there), and a task holding it cannot
 * migrate: runs do not nest there either.  A per-CPU timer is
 * therefore enough: on each CPU an entry is always followed by the exit of
 * the same vector.
 *
 * Context switches: on a !PREEMPT_RT kernel a softirq handler cannot sleep
 * or be preempted (it runs with BH disabled), so "discarded" stays 0.  On
 * PREEMPT_RT softirqs run in preemptible task context: a run that was
 * switched out would measure another task's time too, and
 * PCORE_TIMER_DISCARD_SWITCH drops it and counts it instead.
 *
 * Step 1: the client.  Step 2: a histogram keyed by vector (a small dense
 * key: PCORE_KEYS_DIRECT).  Step 3: a per-CPU timer that discards runs
 * with a context switch.  Step 4: the two tracepoint probes.
 */
#include <linux/interrupt.h>
#include <linux/module.h>
#include <trace/events/irq.h>
#include <probe_core/probe_core.h>

static struct tsoftirq {
	struct pcore_hist *time;	/* run time, keyed by vector */
	struct pcore_timer *run;	/* per CPU: when the current run began */
} ts;

/*
 * Vector names as /proc/softirqs prints them.  The kernel's own table,
 * softirq_to_name[], is not exported to modules, so this is a copy indexed
 * by the enum; a vector added to a later kernel shows as "?".
 */
static const char * const tsoftirq_names[NR_SOFTIRQS] = {
	[HI_SOFTIRQ] = "HI",
	[TIMER_SOFTIRQ] = "TIMER",
	[NET_TX_SOFTIRQ] = "NET_TX",
	[NET_RX_SOFTIRQ] = "NET_RX",
	[BLOCK_SOFTIRQ] = "BLOCK",
	[IRQ_POLL_SOFTIRQ] = "IRQ_POLL",
	[TASKLET_SOFTIRQ] = "TASKLET",
	[SCHED_SOFTIRQ] = "SCHED",
	[HRTIMER_SOFTIRQ] = "HRTIMER",
	[RCU_SOFTIRQ] = "RCU",
};

/* Tracepoint prototype: void softirq_entry(unsigned int vec_nr). */
static void notrace tsoftirq_on_entry(void *data, unsigned int vec_nr)
{
	struct tsoftirq *t = pcore_tp_hit(data);

	pcore_timer_start(t->run, NULL);
}

static void notrace tsoftirq_on_exit(void *data, unsigned int vec_nr)
{
	struct tsoftirq *t = pcore_tp_hit(data);
	const char *name;
	u64 ns;

	if (!pcore_timer_stop(t->run, NULL, &ns))
		return;		/* counted by the timer: unmatched or discarded */
	/* A vector beyond the table is dropped (and counted) by the hist. */
	name = vec_nr < NR_SOFTIRQS ? tsoftirq_names[vec_nr] : NULL;
	pcore_hist_add_key(t->time, vec_nr, name ?: "?", ns);
}

static int __init tsoftirq_setup(struct pcore_client *pc)
{
	struct pcore_probe *p;
	int ret;

	ts.time = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "time", .key_mode = PCORE_KEYS_DIRECT,
		.keys = NR_SOFTIRQS, .key_name = "vec" });
	ts.run = pcore_timer_create(pc, &(struct pcore_timer_opts){
		.name = "run", .scope = PCORE_TIMER_CPU,
		.flags = PCORE_TIMER_DISCARD_SWITCH });
	/* On an error, PCORE_MODULE() frees whatever was created. */
	ret = PTR_ERR_OR_ZERO(ts.time) ?: PTR_ERR_OR_ZERO(ts.run);
	if (ret)
		return ret;
	/*
	 * Entry first: an exit attached before its entry would only add
	 * unmatched stops.  The exit probe feeds the histogram, so the
	 * histogram's stats name softirq_exit.
	 */
	p = PCORE_TRACEPOINT_ATTACH(pc, softirq_entry, tsoftirq_on_entry,
				    .name = "entry", .priv = &ts);
	if (IS_ERR(p))
		return PTR_ERR(p);
	p = PCORE_TRACEPOINT_ATTACH(pc, softirq_exit, tsoftirq_on_exit,
				    .name = "exit", .hist = ts.time, .priv = &ts);
	return PTR_ERR_OR_ZERO(p);
}

PCORE_MODULE(tsoftirq_setup);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("probe_core example: time in each softirq vector");
