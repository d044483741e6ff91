// SPDX-License-Identifier: GPL-2.0
/*
 * insn_direct: a reference of make bench's instruction counts, the least
 * an ftrace direct call can cost: the call at symbol='s ftrace site made
 * a call to the trampoline below (register_ftrace_direct(), the way BPF
 * trampolines and probe_core's mechanism=direct are entered), which
 * saves the argument registers, calls insn_direct_hit() (one
 * this_cpu_inc() of a per-CPU counter), restores them and returns into
 * the function.  x86-64 only, as probe_core's direct calls.
 *
 * /sys/module/insn_direct/parameters/calls is the number of calls
 * counted, all CPUs.
 *
 * Unloading waits until no task is on its way into the trampoline:
 * ftrace's shutdown of an ops in a module's data waits for RCU tasks.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include "probe_core/compat.h"
#include "insn_direct.h"

#ifndef PCORE_HAVE_DIRECT
#error "insn_direct needs CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS on x86-64"
#endif

#include <asm/ibt.h>
#include <asm/linkage.h>
#include <asm/nospec-branch.h>

#ifndef CALL_DEPTH_ACCOUNT
#define CALL_DEPTH_ACCOUNT	""	/* no call depth tracking before v6.2 */
#endif

static char *symbol;
module_param(symbol, charp, 0444);
MODULE_PARM_DESC(symbol, "the function to count the calls of (required)");

static DEFINE_PER_CPU(unsigned long, insn_direct_calls);

/* One instruction, so safe without preemption off; notrace: no site. */
notrace void insn_direct_hit(void)
{
	this_cpu_inc(insn_direct_calls);
}

/*
 * Entered by the call at the function's ftrace site: its arguments in
 * their registers (and %rax, which a variadic function reads), its
 * return address above ours.  Eight pushes keep the stack as aligned as
 * at the site's call.
 */
asm(
"	.pushsection .text, \"ax\", @progbits\n"
"	.globl insn_direct_tramp\n"
"	.type insn_direct_tramp, @function\n"
"insn_direct_tramp:\n"
	ASM_ENDBR
"	pushq %rbp\n"
"	movq %rsp, %rbp\n"
	CALL_DEPTH_ACCOUNT
"	pushq %rdi\n	pushq %rsi\n	pushq %rdx\n	pushq %rcx\n"
"	pushq %r8\n	pushq %r9\n	pushq %rax\n"
"	call insn_direct_hit\n"
"	popq %rax\n	popq %r9\n	popq %r8\n	popq %rcx\n"
"	popq %rdx\n	popq %rsi\n	popq %rdi\n"
"	leave\n"
	ASM_RET
"	.size insn_direct_tramp, .-insn_direct_tramp\n"
"	.popsection\n"
);

static struct ftrace_ops insn_direct_ops;

static int insn_direct_calls_get(char *buf, const struct kernel_param *kp)
{
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(insn_direct_calls, cpu);
	return sysfs_emit(buf, "%lu\n", sum);
}

static const struct kernel_param_ops insn_direct_calls_ops = {
	.get = insn_direct_calls_get,
};
module_param_cb(calls, &insn_direct_calls_ops, NULL, 0444);
MODULE_PARM_DESC(calls, "calls counted (read only)");

/*
 * The address of symbol='s ftrace site, found by a disabled kprobe: it
 * also takes aliases (__x64_sys_getppid is __do_sys_getppid, the name
 * ftrace's list gives), which ftrace_set_filter()'s names do not.
 */
static int __init insn_direct_init(void)
{
	struct kprobe kp = { .flags = KPROBE_FLAG_DISABLED };
	unsigned long ip;
	int ret;

	if (!symbol || !*symbol) {
		pr_err("symbol= is required\n");
		return -EINVAL;
	}
	kp.symbol_name = symbol;
	ret = register_kprobe(&kp);
	if (ret) {
		pr_err("cannot find %s: %d\n", symbol, ret);
		return ret;
	}
	ip = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	ret = ftrace_set_filter_ip(&insn_direct_ops, ip, 0, 0);
	if (ret) {
		pr_err("ftrace cannot trace %s: %d\n", symbol, ret);
		return ret;
	}
	ret = pcore_ftrace_direct_register(&insn_direct_ops,
					   (unsigned long)insn_direct_tramp);
	if (ret) {
		pr_err("cannot make a direct call on %s: %d\n", symbol, ret);
		ftrace_free_filter(&insn_direct_ops);
	}
	return ret;
}

static void __exit insn_direct_exit(void)
{
	pcore_ftrace_direct_unregister(&insn_direct_ops,
				       (unsigned long)insn_direct_tramp);
	ftrace_free_filter(&insn_direct_ops);
}

module_init(insn_direct_init);
module_exit(insn_direct_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("make bench reference: an ftrace direct call counting calls per CPU");
