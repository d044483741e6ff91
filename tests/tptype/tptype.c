// SPDX-License-Identifier: GPL-2.0
/*
 * tptype: PCORE_TRACEPOINT_ATTACH() must refuse, at build time, a handler
 * whose prototype is not its tracepoint's.  tests/tptype/run.sh builds
 * this module twice: as it is (it must build, W=1 clean), and with
 * -DPCORE_TP_WRONG, where the sched_switch handler lacks prev_state and
 * the irq_handler_entry handler takes a long irq (that build must fail
 * with both tracepoints named).
 */
#include <linux/interrupt.h>
#include <linux/module.h>
#include <trace/events/irq.h>
#include <trace/events/sched.h>
#include <probe_core/probe_core.h>
#include <probe_core/compat.h>

static struct pcore_hist *blocked;

#ifndef PCORE_TP_WRONG
/* Counts the switches where prev blocked, from the compat helper. */
static void notrace tptype_switch(PCORE_SCHED_SWITCH_PROTO)
{
	struct pcore_hist *h = pcore_tp_hit(data);

	if (!preempt && PCORE_SCHED_SWITCH_PREV_STATE != TASK_RUNNING)
		pcore_hist_count(h);
}

static void notrace tptype_irq(void *data, int irq, struct irqaction *action)
{
	pcore_tp_hit(data);
}
#else
/* sched_switch as it was before 5.18: no prev_state. */
static void notrace tptype_switch(void *data, bool preempt,
				  struct task_struct *prev,
				  struct task_struct *next)
{
	pcore_hist_count(pcore_tp_hit(data));
}

static void notrace tptype_irq(void *data, long irq, struct irqaction *action)
{
	pcore_tp_hit(data);
}
#endif

static int __init tptype_setup(struct pcore_client *pc)
{
	struct pcore_probe *p;

	blocked = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "blocked", .unit = "switches",
		.spec = { .kind = PCORE_HIST_COUNT } });
	if (IS_ERR(blocked))
		return PTR_ERR(blocked);
	p = PCORE_TRACEPOINT_ATTACH(pc, sched_switch, tptype_switch,
				    .hist = blocked, .priv = blocked);
	if (IS_ERR(p))
		return PTR_ERR(p);
	p = PCORE_TRACEPOINT_ATTACH(pc, irq_handler_entry, tptype_irq);
	return PTR_ERR_OR_ZERO(p);
}

PCORE_MODULE(tptype_setup);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("build test: tracepoint handlers with checked prototypes");
