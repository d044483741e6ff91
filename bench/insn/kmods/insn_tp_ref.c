// SPDX-License-Identifier: GPL-2.0
/*
 * insn_tp_ref: a reference of make bench's instruction counts for
 * tracepoint handlers, the least one can cost: a handler on sys_enter,
 * which every system call passes, that counts the calls and does nothing
 * else.  Registering it turns on the system calls' tracing path, which
 * every sys_enter handler pays for.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/tracepoint.h>

static DEFINE_PER_CPU(unsigned long, insn_tp_calls);
static struct tracepoint *insn_tp;

static void insn_tp_handler(void *data, struct pt_regs *regs, long id)
{
	this_cpu_inc(insn_tp_calls);
}

static int insn_tp_calls_get(char *buf, const struct kernel_param *kp)
{
	unsigned long n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += per_cpu(insn_tp_calls, cpu);
	return sysfs_emit(buf, "%lu\n", n);
}

static const struct kernel_param_ops insn_tp_calls_ops = {
	.get = insn_tp_calls_get,
};
module_param_cb(calls, &insn_tp_calls_ops, NULL, 0444);
MODULE_PARM_DESC(calls, "system calls seen (read it)");

static void insn_tp_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sys_enter"))
		insn_tp = tp;
}

static int __init insn_tp_init(void)
{
	for_each_kernel_tracepoint(insn_tp_find, NULL);
	if (!insn_tp) {
		pr_err("no sys_enter tracepoint\n");
		return -ENOENT;
	}
	return tracepoint_probe_register(insn_tp, insn_tp_handler, NULL);
}

static void __exit insn_tp_exit(void)
{
	tracepoint_probe_unregister(insn_tp, insn_tp_handler, NULL);
	tracepoint_synchronize_unregister();
}

module_init(insn_tp_init);
module_exit(insn_tp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("make bench reference: a sys_enter handler that counts");
