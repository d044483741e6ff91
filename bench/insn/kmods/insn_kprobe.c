// SPDX-License-Identifier: GPL-2.0
/*
 * insn_kprobe: a reference of make bench's instruction counts, the least
 * a probe can cost: a kprobe on symbol= whose handler does nothing.  At a
 * function's entry the kprobe goes through ftrace
 * (CONFIG_KPROBES_ON_FTRACE); what it counts is that path and the call of
 * the handler.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/module.h>

static char *symbol;
module_param(symbol, charp, 0444);
MODULE_PARM_DESC(symbol, "the function to probe (required)");

static int insn_kprobe_pre(struct kprobe *p, struct pt_regs *regs)
{
	return 0;
}
NOKPROBE_SYMBOL(insn_kprobe_pre);

static struct kprobe insn_kp = {
	.pre_handler = insn_kprobe_pre,
};

static int __init insn_kprobe_init(void)
{
	int ret;

	if (!symbol || !*symbol) {
		pr_err("symbol= is required\n");
		return -EINVAL;
	}
	insn_kp.symbol_name = symbol;
	ret = register_kprobe(&insn_kp);
	if (ret)
		pr_err("cannot probe %s: %d\n", symbol, ret);
	return ret;
}

static void __exit insn_kprobe_exit(void)
{
	unregister_kprobe(&insn_kp);
	pr_info("%s: %lu missed\n", symbol, insn_kp.nmissed);
}

module_init(insn_kprobe_init);
module_exit(insn_kprobe_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("make bench reference: a kprobe with an empty handler");
