// SPDX-License-Identifier: GPL-2.0
/*
 * pcore_globt: a test module for the probe_core selftests, not an example.
 *
 * Functions for a glob target ("pcore_globt_*") to match, each called a
 * known number of times:
 *
 *   echo N > /sys/kernel/debug/pcore_globt/run
 *	calls pcore_globt_a() N times, pcore_globt_b() 2N times and
 *	pcore_globt_c() 3N times
 *   echo K > /sys/kernel/debug/pcore_globt/sleep
 *	calls pcore_globt_sleep() K times: each sleeps at least 1 ms
 *
 * and functions a glob must not take: pcore_globt_nokprobe() is on
 * kprobes' blacklist (NOKPROBE_SYMBOL), pcore_globt_notrace() is not in
 * ftrace's list, and two static functions are named pcore_globt_dup()
 * (here and in globt_dup.c).  The other functions' names do not start
 * with "pcore_globt_".  Each does something different and has a
 * barrier(), so that the compiler neither merges them nor drops calls.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include "../pcore_kmod.h"
#include "pcore_globt.h"

/* At most this many calls per write. */
#define GLOBT_MAX	1000000

static int globt_sink;

static noinline int pcore_globt_a(int v)
{
	barrier();	/* not pure: each call is made */
	return v + 1;
}

static noinline int pcore_globt_b(int v)
{
	barrier();	/* not pure: each call is made */
	return v ^ 0x55;
}

static noinline int pcore_globt_c(int v)
{
	barrier();	/* not pure: each call is made */
	return v * 3;
}

static noinline void pcore_globt_sleep(void)
{
	usleep_range(1000, 1100);
}

static noinline int pcore_globt_nokprobe(int v)
{
	barrier();	/* not pure: each call is made */
	return v - 7;
}
NOKPROBE_SYMBOL(pcore_globt_nokprobe);

static noinline notrace int pcore_globt_notrace(int v)
{
	barrier();	/* not pure: each call is made */
	return v * 9;
}

static noinline int pcore_globt_dup(int v)
{
	barrier();	/* not pure: each call is made */
	return v + 11;
}

static ssize_t globt_write(struct file *file, const char __user *ubuf,
			   size_t count, loff_t *ppos)
{
	bool sleep = file->private_data;
	unsigned int n, i;
	int ret, v = 0;

	ret = pcore_kmod_uint(ubuf, count, GLOBT_MAX, &n);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		if (sleep) {
			pcore_globt_sleep();
			continue;
		}
		v += pcore_globt_a(i);
		v += pcore_globt_b(i) + pcore_globt_b(i);
		v += pcore_globt_c(i) + pcore_globt_c(i) + pcore_globt_c(i);
		v += pcore_globt_nokprobe(i) + pcore_globt_notrace(i);
		v += pcore_globt_dup(i) + globt_dup2(i);
		cond_resched();
	}
	WRITE_ONCE(globt_sink, v);
	return count;
}

PCORE_KMOD_FOPS(globt_fops, globt_write);

/* "sleep" is told apart by its private_data */
static const struct pcore_kmod_file globt_files[] = {
	{ "run", &globt_fops },
	{ "sleep", &globt_fops, (void *)1 },
};

PCORE_KMOD_DEBUGFS(globt, "pcore_globt", globt_files)

module_init(globt_init);
module_exit(globt_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("probe_core selftests: functions for glob targets");
