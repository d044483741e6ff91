// SPDX-License-Identifier: GPL-2.0
/*
 * insn_tp_pcore: what a handler module's tracepoint handler costs with
 * probe_core's API, for make bench's instruction counts: on sys_enter, as
 * insn_tp_ref, a handler that counts each call (pcore_tp_hit() and
 * pcore_hist_count() into a count histogram).
 */
#include <linux/module.h>
#include <trace/events/syscalls.h>
#include <probe_core/probe_core.h>

static void insn_tp_pcore_handler(void *data, struct pt_regs *regs, long id)
{
	struct pcore_hist *h = pcore_tp_hit(data);

	pcore_hist_count(h);
}

static int __init insn_tp_pcore_setup(struct pcore_client *pc)
{
	struct pcore_hist *h;
	struct pcore_probe *p;

	h = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "sys_enter", .unit = "calls",
		.spec = { .kind = PCORE_HIST_COUNT } });
	if (IS_ERR(h))
		return PTR_ERR(h);
	p = PCORE_TRACEPOINT_ATTACH(pc, sys_enter, insn_tp_pcore_handler,
				    .hist = h, .priv = h);
	return PTR_ERR_OR_ZERO(p);
}

PCORE_MODULE(insn_tp_pcore_setup);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("make bench: a probe_core tracepoint handler on sys_enter that counts");
