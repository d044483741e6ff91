// SPDX-License-Identifier: GPL-2.0
/*
 * pcore_initfail: a test module for the probe_core selftests, not an
 * example.  It needs nothing of probe_core, so it stays loaded while a
 * selftest loads and unloads probe_core over and over.
 *
 * It starts fail-nth (Documentation/fault-injection) at a module's init
 * instead of at the load's first allocation: the module loader's own
 * allocations (reading the file, signature, layout, sysfs) come first,
 * and their number varies from load to load, so a walk over "the N-th
 * allocation of the load fails" cannot tell where the init begins.
 *
 *   echo N > /sys/kernel/debug/pcore_initfail/nth
 *
 * arms the writing task: when it next enters do_one_initcall() (the
 * loader calls the module's init there, after its own allocations), its
 * fail-nth becomes N, so the N-th allocation of the init (and of nothing
 * else) fails; when the init returns, what is left of the count is kept
 * and the task's fail-nth cleared, so that nothing after the init fails.
 * Reading the file gives what is left, as reading
 * /proc/thread-self/fail-nth does: 0 once the fault was injected, else
 * the calls still to go (N while no init has run).  Writing 0 disarms.
 * One task at a time; the file is root's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/sched.h>

#ifdef CONFIG_FAULT_INJECTION

/* The armed task (compared, never dereferenced) and its count. */
static struct task_struct *initfail_task;
static unsigned int initfail_nth;

static int initfail_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (READ_ONCE(initfail_task) != current)
		return 1;	/* not ours: no return handler */
	WRITE_ONCE(current->fail_nth, READ_ONCE(initfail_nth));
	return 0;
}
NOKPROBE_SYMBOL(initfail_entry);

static int initfail_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	WRITE_ONCE(initfail_nth, READ_ONCE(current->fail_nth));
	WRITE_ONCE(current->fail_nth, 0);
	WRITE_ONCE(initfail_task, NULL);
	return 0;
}
NOKPROBE_SYMBOL(initfail_ret);

static struct kretprobe initfail_krp = {
	.kp.symbol_name = "do_one_initcall",
	.entry_handler = initfail_entry,
	.handler = initfail_ret,
	.maxactive = 4,
};

static ssize_t initfail_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	unsigned int n;
	int ret = kstrtouint_from_user(ubuf, count, 10, &n);

	if (ret)
		return ret;
	WRITE_ONCE(initfail_task, NULL);
	WRITE_ONCE(initfail_nth, n);
	if (n)
		WRITE_ONCE(initfail_task, current);
	return count;
}

static ssize_t initfail_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	char buf[16];
	int len = scnprintf(buf, sizeof(buf), "%u\n", READ_ONCE(initfail_nth));

	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations initfail_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = initfail_read,
	.write = initfail_write,
	.llseek = default_llseek,
};

static struct dentry *initfail_dir;

static int __init initfail_init(void)
{
	int ret = register_kretprobe(&initfail_krp);

	if (ret) {
		pr_err("cannot probe do_one_initcall: %d\n", ret);
		return ret;
	}
	initfail_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("nth", 0600, initfail_dir, NULL, &initfail_fops);
	return 0;
}

static void __exit initfail_exit(void)
{
	debugfs_remove(initfail_dir);
	unregister_kretprobe(&initfail_krp);
}

#else

static int __init initfail_init(void)
{
	pr_err("this kernel has no fault injection (CONFIG_FAULT_INJECTION)\n");
	return -EOPNOTSUPP;
}

static void __exit initfail_exit(void)
{
}

#endif /* CONFIG_FAULT_INJECTION */

module_init(initfail_init);
module_exit(initfail_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("probe_core selftests: fail-nth from the next module init on");
