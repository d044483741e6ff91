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

static struct pcore_client *pc;
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

static int __init tptype_init(void)
{
	struct pcore_probe *p;
	int ret;

	pc = pcore_client_create(THIS_MODULE);
	if (IS_ERR(pc))
		return PTR_ERR(pc);
	blocked = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "blocked", .unit = "switches",
		.spec = { .kind = PCORE_HIST_COUNT } });
	ret = PTR_ERR_OR_ZERO(blocked);
	if (ret)
		goto err;
	p = PCORE_TRACEPOINT_ATTACH(pc, sched_switch, tptype_switch,
				    .hist = blocked, .priv = blocked);
	ret = PTR_ERR_OR_ZERO(p);
	if (ret)
		goto err;
	p = PCORE_TRACEPOINT_ATTACH(pc, irq_handler_entry, tptype_irq);
	ret = PTR_ERR_OR_ZERO(p);
	if (ret)
		goto err;
	return 0;
err:
	pcore_client_destroy(pc);
	return ret;
}

static void __exit tptype_exit(void)
{
	pcore_client_destroy(pc);
}

module_init(tptype_init);
module_exit(tptype_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("build test: tracepoint handlers with checked prototypes");
