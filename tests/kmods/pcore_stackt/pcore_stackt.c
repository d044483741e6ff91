// SPDX-License-Identifier: GPL-2.0
/*
 * pcore_stackt: a test module for the probe_core selftests, not an example.
 *
 * Known kernel stacks, for stacks=, the profiler and off-CPU time:
 *
 *   echo "A B" > /sys/kernel/debug/pcore_stackt/run
 *	calls pcore_stackt_leaf() A times through pcore_stackt_a(), and B
 *	times through pcore_stackt_b() and pcore_stackt_b2(): two chains
 *   echo MS > /sys/kernel/debug/pcore_stackt/spin
 *	runs pcore_stackt_spin() on the CPU for MS milliseconds
 *   echo N > /sys/kernel/debug/pcore_stackt/nap
 *	sleeps N times 50 ms in pcore_stackt_nap()
 *   echo MS > /sys/kernel/debug/pcore_stackt/doze
 *	sleeps once, up to MS milliseconds, in pcore_stackt_doze(); a signal
 *	ends the sleep early
 *   echo D > /sys/kernel/debug/pcore_stackt/nest
 *	calls the kernel's bus_for_each_dev() D + 1 times, each inside the
 *	one before: a kernel function that calls itself (through the
 *	function it calls for the platform bus's first device; lib/'s
 *	sort() and list_sort() are not traceable)
 *
 * Every function uses what the one it calls returns, so that no call is a
 * tail call (a tail call would leave its caller out of the stack), and
 * has a barrier(), so that the compiler neither merges them nor drops
 * calls.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/platform_device.h>
#include <linux/uaccess.h>
#include "../pcore_kmod.h"

#define STACKT_MAX	1000000		/* calls per write */
#define STACKT_SPIN_MAX	60000		/* ms */
#define STACKT_NAP_MAX	100		/* naps */
#define STACKT_DOZE_MAX	600000		/* ms */
#define STACKT_NEST_MAX	16		/* calls inside calls */

static int stackt_sink;

static noinline int pcore_stackt_leaf(int v)
{
	barrier();	/* not pure: each call is made */
	return v + 1;
}

static noinline int pcore_stackt_a(int v)
{
	barrier();
	return pcore_stackt_leaf(v) * 3;
}

static noinline int pcore_stackt_b2(int v)
{
	barrier();
	return pcore_stackt_leaf(v) ^ 0x55;
}

static noinline int pcore_stackt_b(int v)
{
	barrier();
	return pcore_stackt_b2(v) + 7;
}

/*
 * Busy on the CPU until @end, in this function itself (it calls only the
 * clock, once per 200000 rounds: reading it is slow under emulation);
 * preemptible, but never sleeps.
 */
static noinline int pcore_stackt_spin(u64 end)
{
	int i, v = 0;

	while (ktime_get_ns() < end)
		for (i = 0; i < 200000; i++) {
			v = v * 5 + 1;
			barrier();
		}
	return v;
}

static noinline int pcore_stackt_nap(int v)
{
	msleep(50);
	barrier();
	return v + 1;
}

static noinline int pcore_stackt_doze(unsigned int ms)
{
	int v = msleep_interruptible(ms);

	barrier();
	return v + 1;
}

/* The nested calls of one write: the nest file's writes take turns. */
static DEFINE_MUTEX(stackt_nest_lock);
static unsigned int stackt_nest_depth, stackt_nest_max;

/*
 * For the platform bus's first device: one level deeper, the same walk,
 * unless this is the last level; then the walk stops (non-zero).
 */
static int stackt_nest_dev(struct device *dev, void *data)
{
	if (stackt_nest_depth < stackt_nest_max) {
		stackt_nest_depth++;
		bus_for_each_dev(&platform_bus_type, NULL, NULL,
				 stackt_nest_dev);
	}
	return 1;
}

static ssize_t stackt_nest_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	unsigned int d;
	int ret;

	ret = pcore_kmod_uint(ubuf, count, STACKT_NEST_MAX, &d);
	if (ret)
		return ret;
	mutex_lock(&stackt_nest_lock);
	stackt_nest_depth = 0;
	stackt_nest_max = d;
	ret = bus_for_each_dev(&platform_bus_type, NULL, NULL,
			       stackt_nest_dev);
	mutex_unlock(&stackt_nest_lock);
	return ret == 1 ? count : -ENODEV;
}

static ssize_t stackt_run_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	unsigned int a, b, i;
	int v = 0, ret;

	ret = pcore_kmod_uint2(ubuf, count, STACKT_MAX, &a, &b);
	if (ret)
		return ret;
	for (i = 0; i < a; i++)
		v += pcore_stackt_a(i);
	for (i = 0; i < b; i++)
		v += pcore_stackt_b(i);
	WRITE_ONCE(stackt_sink, v);
	return count;
}

static ssize_t stackt_spin_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	unsigned int ms;
	int ret;

	ret = pcore_kmod_uint(ubuf, count, STACKT_SPIN_MAX, &ms);
	if (ret)
		return ret;
	WRITE_ONCE(stackt_sink,
		   pcore_stackt_spin(ktime_get_ns() + ms * NSEC_PER_MSEC));
	return count;
}

static ssize_t stackt_nap_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	unsigned int n, i;
	int ret, v = 0;

	ret = pcore_kmod_uint(ubuf, count, STACKT_NAP_MAX, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		v += pcore_stackt_nap(i);
	WRITE_ONCE(stackt_sink, v);
	return count;
}

static ssize_t stackt_doze_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	unsigned int ms;
	int ret;

	ret = pcore_kmod_uint(ubuf, count, STACKT_DOZE_MAX, &ms);
	if (ret)
		return ret;
	WRITE_ONCE(stackt_sink, pcore_stackt_doze(ms));
	return count;
}

#define STACKT_FOPS(name)						\
	PCORE_KMOD_FOPS(stackt_##name##_fops, stackt_##name##_write)

STACKT_FOPS(run);
STACKT_FOPS(spin);
STACKT_FOPS(nap);
STACKT_FOPS(doze);
STACKT_FOPS(nest);

static const struct pcore_kmod_file stackt_files[] = {
	{ "run", &stackt_run_fops },
	{ "spin", &stackt_spin_fops },
	{ "nap", &stackt_nap_fops },
	{ "doze", &stackt_doze_fops },
	{ "nest", &stackt_nest_fops },
};

PCORE_KMOD_DEBUGFS(stackt, "pcore_stackt", stackt_files)

module_init(stackt_init);
module_exit(stackt_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("probe_core selftests: known call chains, a busy loop, sleeps, calls inside calls");
