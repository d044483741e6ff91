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

#include "../pcore_kmod.h"
#include "pcore_tpsrc.h"

DEFINE_TRACE(pcore_tpsrc_event, TP_PROTO(u64 value), TP_ARGS(value));

/* At most this many events per write. */
#define TPSRC_FIRE_MAX	1000000


static ssize_t tpsrc_fire_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	unsigned int n, i;
	int ret;

	ret = pcore_kmod_uint(ubuf, count, TPSRC_FIRE_MAX, &n);
	if (ret)
		return ret;
	for (i = 1; i <= n; i++) {
		trace_pcore_tpsrc_event(i);
		cond_resched();
	}
	return count;
}

PCORE_KMOD_FOPS(tpsrc_fire_fops, tpsrc_fire_write);

static const struct pcore_kmod_file tpsrc_files[] = {
	{ "fire", &tpsrc_fire_fops },
};

PCORE_KMOD_DEBUGFS(tpsrc, "pcore_tpsrc", tpsrc_files)

module_init(tpsrc_init);
module_exit(tpsrc_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("probe_core selftests: a module with a tracepoint of its own");
