// SPDX-License-Identifier: GPL-2.0
/*
 * pcore_grapht: a test module for the probe_core selftests, not an example.
 *
 * A function whose time goes to known callees, for target=F:graph:
 *
 *   echo "N M" > /sys/kernel/debug/pcore_grapht/run
 *	calls pcore_grapht_f() N times, then pcore_grapht_other() M times.
 *	pcore_grapht_f() calls pcore_grapht_direct() (sleeps 2 ms, at
 *	least) directly, pcore_grapht_indirect() (sleeps 1 ms, at least)
 *	through a function pointer, and spins GRAPHT_SPIN rounds of its
 *	own; pcore_grapht_other() calls pcore_grapht_direct() too, from
 *	outside pcore_grapht_f().
 *
 * Every function uses what the one it calls returns, so that no call is a
 * tail call, and has a barrier(), so that the compiler neither merges
 * them nor drops calls.  The pointer is read with READ_ONCE(), so that
 * the compiler cannot call its target directly.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/uaccess.h>
#include "../pcore_kmod.h"

#define GRAPHT_MAX		1000	/* calls per write */
#define GRAPHT_DIRECT_US	2000
#define GRAPHT_INDIRECT_US	1000
#define GRAPHT_SPIN		100000

static int grapht_sink;

static noinline int pcore_grapht_direct(int v)
{
	usleep_range(GRAPHT_DIRECT_US, GRAPHT_DIRECT_US + 100);
	barrier();
	return v + 1;
}

static noinline int pcore_grapht_indirect(int v)
{
	usleep_range(GRAPHT_INDIRECT_US, GRAPHT_INDIRECT_US + 100);
	barrier();
	return v + 2;
}

static int (*grapht_ptr)(int v);

static noinline int pcore_grapht_f(int v)
{
	int i, r;

	r = pcore_grapht_direct(v);
	r += READ_ONCE(grapht_ptr)(r);
	for (i = 0; i < GRAPHT_SPIN; i++)	/* its own time */
		barrier();
	return r + 3;
}

static noinline int pcore_grapht_other(int v)
{
	barrier();
	return pcore_grapht_direct(v) * 3;
}

static ssize_t grapht_run_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	unsigned int n, m, i;
	int v = 0, ret;

	ret = pcore_kmod_uint2(ubuf, count, GRAPHT_MAX, &n, &m);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		v += pcore_grapht_f(i);
	for (i = 0; i < m; i++)
		v += pcore_grapht_other(i);
	WRITE_ONCE(grapht_sink, v);
	return count;
}

PCORE_KMOD_FOPS(grapht_run_fops, grapht_run_write);

static const struct pcore_kmod_file grapht_files[] = {
	{ "run", &grapht_run_fops },
};

PCORE_KMOD_DEBUGFS(grapht, "pcore_grapht", grapht_files)

static int __init grapht_mod_init(void)
{
	WRITE_ONCE(grapht_ptr, pcore_grapht_indirect);
	return grapht_init();
}

module_init(grapht_mod_init);
module_exit(grapht_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("probe_core selftests: a function whose callees sleep known times");
