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

static struct pcore_client *pc;

static void insn_tp_pcore_handler(void *data, struct pt_regs *regs, long id)
{
	struct pcore_hist *h = pcore_tp_hit(data);

	pcore_hist_count(h);
}

static int __init insn_tp_pcore_init(void)
{
	struct pcore_hist *h;
	struct pcore_probe *p;

	pc = pcore_client_create(THIS_MODULE);
	if (IS_ERR(pc))
		return PTR_ERR(pc);
	h = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "sys_enter", .unit = "calls",
		.spec = { .kind = PCORE_HIST_COUNT } });
	p = IS_ERR(h) ? ERR_CAST(h) :
	    PCORE_TRACEPOINT_ATTACH(pc, sys_enter, insn_tp_pcore_handler,
				    .hist = h, .priv = h);
	if (IS_ERR(p)) {
		pcore_client_destroy(pc);
		return PTR_ERR(p);
	}
	return 0;
}

static void __exit insn_tp_pcore_exit(void)
{
	pcore_client_destroy(pc);
}

module_init(insn_tp_pcore_init);
module_exit(insn_tp_pcore_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("make bench: a probe_core tracepoint handler on sys_enter that counts");
