// SPDX-License-Identifier: GPL-2.0
/*
 * pcore_tpsrc: a test module for the probe_core selftests, not an example.
 *
 * It defines a tracepoint of its own, pcore_tpsrc_event(u64 value), so
 * that the selftests can check how probe_core follows a tracepoint that
 * lives in a module: a probe that waits for it (PCORE_TP_WAIT), attaches
 * when the module loads, goes back to waiting when it unloads.
 *
 *   insmod pcore_tpsrc.ko
 *   echo 100 > /sys/kernel/debug/pcore_tpsrc/fire
 *
 * Writing K to "fire" fires the tracepoint K times, with the values 1 to
 * K: a handler that records them sees K hits summing to K * (K + 1) / 2.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include "pcore_tpsrc.h"

DEFINE_TRACE(pcore_tpsrc_event, TP_PROTO(u64 value), TP_ARGS(value));

/* At most this many events per write. */
#define TPSRC_FIRE_MAX	1000000

static struct dentry *tpsrc_dir;

static ssize_t tpsrc_fire_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	unsigned int n, i;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 10, &n);
	if (ret)
		return ret;
	if (n > TPSRC_FIRE_MAX)
		return -EINVAL;
	for (i = 1; i <= n; i++) {
		trace_pcore_tpsrc_event(i);
		cond_resched();
	}
	return count;
}

static const struct file_operations tpsrc_fire_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = tpsrc_fire_write,
	.llseek = noop_llseek,
};

static int __init tpsrc_init(void)
{
	tpsrc_dir = debugfs_create_dir("pcore_tpsrc", NULL);
	debugfs_create_file("fire", 0200, tpsrc_dir, NULL, &tpsrc_fire_fops);
	return 0;
}

static void __exit tpsrc_exit(void)
{
	debugfs_remove(tpsrc_dir);
}

module_init(tpsrc_init);
module_exit(tpsrc_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("probe_core selftests: a module with a tracepoint of its own");
