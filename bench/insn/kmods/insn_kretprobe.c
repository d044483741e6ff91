// SPDX-License-Identifier: GPL-2.0
/*
 * insn_kretprobe: a reference of make bench's instruction counts, the
 * least a latency histogram can cost: a kretprobe on symbol= that stamps
 * each call's entry with ktime_get_mono_fast_ns() (the clock probe_core's
 * kretprobes use) in the instance's data, and at the return adds the
 * call's time to a per-CPU log2 histogram, one this_cpu_inc().
 *
 * /sys/module/insn_kretprobe/parameters/calls is the number of calls
 * recorded: the sum of all buckets of all CPUs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/timekeeping.h>

static char *symbol;
module_param(symbol, charp, 0444);
MODULE_PARM_DESC(symbol, "the function to probe (required)");

/* Bucket i holds times in [2^(i-1), 2^i) ns; bucket 0 holds 0. */
#define INSN_KRET_BUCKETS	65
static DEFINE_PER_CPU(u64 [INSN_KRET_BUCKETS], insn_kret_hist);

static int insn_kret_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	*(u64 *)ri->data = ktime_get_mono_fast_ns();
	return 0;
}
NOKPROBE_SYMBOL(insn_kret_entry);

static int insn_kret_return(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	u64 ns = ktime_get_mono_fast_ns() - *(u64 *)ri->data;

	this_cpu_inc(insn_kret_hist[fls64(ns)]);
	return 0;
}
NOKPROBE_SYMBOL(insn_kret_return);

static struct kretprobe insn_krp = {
	.entry_handler = insn_kret_entry,
	.handler = insn_kret_return,
	.data_size = sizeof(u64),
};

static int insn_kret_calls_get(char *buf, const struct kernel_param *kp)
{
	u64 sum = 0;
	int cpu, i;

	for_each_possible_cpu(cpu)
		for (i = 0; i < INSN_KRET_BUCKETS; i++)
			sum += per_cpu(insn_kret_hist, cpu)[i];
	return sysfs_emit(buf, "%llu\n", sum);
}

static const struct kernel_param_ops insn_kret_calls_ops = {
	.get = insn_kret_calls_get,
};
module_param_cb(calls, &insn_kret_calls_ops, NULL, 0444);
MODULE_PARM_DESC(calls, "calls recorded (read only)");

static int __init insn_kret_init(void)
{
	int ret;

	if (!symbol || !*symbol) {
		pr_err("symbol= is required\n");
		return -EINVAL;
	}
	insn_krp.kp.symbol_name = symbol;
	ret = register_kretprobe(&insn_krp);
	if (ret)
		pr_err("cannot probe %s: %d\n", symbol, ret);
	return ret;
}

static void __exit insn_kret_exit(void)
{
	unregister_kretprobe(&insn_krp);
	pr_info("%s: %d missed\n", symbol, insn_krp.nmissed);
}

module_init(insn_kret_init);
module_exit(insn_kret_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("make bench reference: a kretprobe timing calls into a log2 histogram");
