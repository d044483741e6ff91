// SPDX-License-Identifier: GPL-2.0
/*
 * Text results under /sys/kernel/debug/probe_core/.  Other tools parse
 * these files: change their format only with care.
 *
 *   probes          one line per probe: name kind symbol hits missed
 *   <probe>/hist    merged histogram: [lo, hi) count |@@@@|
 *   <probe>/percpu  per-CPU totals and histograms, then their merged total
 *   <probe>/stats   'key: value' lines
 *   <probe>/interval  stats and histogram since the last interval read or
 *                   reset, taken atomically at open; opening starts a new
 *                   interval
 *   <probe>/reset   write 1 to reset
 *
 * Debugfs creation errors are ignored by design; every file holds a
 * reference on the module while open.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "pcore.h"

#define PCORE_BAR_WIDTH	40

static struct dentry *pcore_dir;

static void pcore_seq_bound(char *buf, size_t len, u64 v, const char *unit)
{
	if (v == U64_MAX)
		strscpy(buf, "inf", len);
	else
		snprintf(buf, len, "%llu%s", v, unit);
}

static void pcore_seq_hist(struct seq_file *m, const struct pcore_layout *l,
			   const struct pcore_snap *s, const char *unit,
			   const char *indent)
{
	char lo_s[32], hi_s[32], range[72], bar[PCORE_BAR_WIDTH + 1];
	u32 i, first = s->nbuckets, last = 0;
	u64 top = 0, lo, hi, n;

	for (i = 0; i < s->nbuckets; i++) {
		if (!s->b[i])
			continue;
		if (first == s->nbuckets)
			first = i;
		last = i;
		if (s->b[i] > top)
			top = s->b[i];
	}
	if (!top) {
		seq_printf(m, "%s(empty)\n", indent);
		return;
	}
	for (i = first; i <= last; i++) {
		pcore_bucket_bounds(l, i, &lo, &hi);
		pcore_seq_bound(lo_s, sizeof(lo_s), lo, unit);
		pcore_seq_bound(hi_s, sizeof(hi_s), hi, unit);
		snprintf(range, sizeof(range), "[%s, %s)", lo_s, hi_s);
		n = div64_u64(s->b[i] * PCORE_BAR_WIDTH + top - 1, top);
		memset(bar, '@', n);
		bar[n] = '\0';
		seq_printf(m, "%s%-36s %12llu |%-*s|\n", indent, range, s->b[i],
			   PCORE_BAR_WIDTH, bar);
	}
}

static void pcore_seq_stats(struct seq_file *m, struct pcore_probe *p,
			    const struct pcore_snap *s)
{
	static const struct { const char *key; u32 ppm; } pct[] = {
		{ "p50", 500000 }, { "p90", 900000 },
		{ "p99", 990000 }, { "p999", 999000 },
	};
	const struct pcore_layout *l = &p->hist->layout;
	u64 abs_err;
	u32 i, ppm = pcore_layout_error_ppm(l, &abs_err);

	seq_printf(m, "count: %llu\n", s->count);
	seq_printf(m, "sum: %llu\n", s->sum);
	seq_printf(m, "min: %llu\n", s->count ? s->min : 0);
	seq_printf(m, "max: %llu\n", s->max);
	seq_printf(m, "mean: %llu\n",
		   s->count ? div64_u64(s->sum, s->count) : 0);
	for (i = 0; i < ARRAY_SIZE(pct); i++)
		seq_printf(m, "%s: %llu\n", pct[i].key,
			   pcore_snap_percentile(l, s, pct[i].ppm));
	seq_printf(m, "missed: %lu\n", pcore_probe_missed(p));
	seq_printf(m, "symbol: %s\n", p->symbol);
	seq_printf(m, "unit: %s\n", p->hist->unit);
	seq_printf(m, "kind: %s\n", pcore_kind_name(l->kind));
	if (ppm)
		seq_printf(m, "percentile_error: %u.%04u%%\n", ppm / 10000,
			   ppm % 10000);
	else
		seq_printf(m, "percentile_error: %llu%s\n", abs_err,
			   p->hist->unit);
	seq_printf(m, "hits: %llu\n", pcore_hist_lifetime(p->hist));
}

static int pcore_probes_show(struct seq_file *m, void *unused)
{
	struct pcore_probe *p;

	mutex_lock(&pcore_probes_lock);
	list_for_each_entry(p, &pcore_probes, node)
		seq_printf(m, "%s %s %s %llu %lu\n", p->name,
			   pcore_probe_kind_name(p), p->symbol,
			   pcore_hist_lifetime(p->hist), pcore_probe_missed(p));
	mutex_unlock(&pcore_probes_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pcore_probes);

/* A probe's merged histogram, as hist and interval print it. */
static void pcore_seq_merged_hist(struct seq_file *m, struct pcore_probe *p,
				  const struct pcore_snap *s)
{
	pcore_seq_hist(m, &p->hist->layout, s, p->hist->unit, "");
}

/* Reads the merged view of the file's probe and prints it with show(). */
static int pcore_show_merged(struct seq_file *m,
			     void (*show)(struct seq_file *m,
					  struct pcore_probe *p,
					  const struct pcore_snap *s))
{
	struct pcore_probe *p = m->private;
	struct pcore_snap *s = pcore_hist_snap_alloc(p->hist);

	if (!s)
		return -ENOMEM;
	pcore_hist_read(p->hist, -1, s);
	show(m, p, s);
	kfree(s);
	return 0;
}

static int pcore_hist_show(struct seq_file *m, void *unused)
{
	return pcore_show_merged(m, pcore_seq_merged_hist);
}
DEFINE_SHOW_ATTRIBUTE(pcore_hist);

static int pcore_stats_show(struct seq_file *m, void *unused)
{
	return pcore_show_merged(m, pcore_seq_stats);
}
DEFINE_SHOW_ATTRIBUTE(pcore_stats);

static void pcore_seq_totals(struct seq_file *m, const char *what,
			     const struct pcore_snap *s)
{
	seq_printf(m, "%s count %llu sum %llu min %llu max %llu\n", what,
		   s->count, s->sum, s->count ? s->min : 0, s->max);
}

/* Each CPU is read once; the total is the merge of exactly what is shown. */
static int pcore_percpu_show(struct seq_file *m, void *unused)
{
	struct pcore_probe *p = m->private;
	const struct pcore_layout *l = &p->hist->layout;
	struct pcore_snap *one, *total;
	char what[16];
	int cpu, ret = -ENOMEM;

	one = pcore_hist_snap_alloc(p->hist);
	total = pcore_hist_snap_alloc(p->hist);
	if (!one || !total)
		goto out;
	for_each_possible_cpu(cpu) {
		pcore_snap_init(l, one);
		pcore_hist_read(p->hist, cpu, one);
		snprintf(what, sizeof(what), "cpu%d", cpu);
		pcore_seq_totals(m, what, one);
		if (one->count)
			pcore_seq_hist(m, l, one, p->hist->unit, "  ");
		pcore_snap_merge(total, one);
	}
	pcore_seq_totals(m, "total", total);
	ret = 0;
out:
	kfree(one);
	kfree(total);
	return ret;
}
DEFINE_SHOW_ATTRIBUTE(pcore_percpu);

struct pcore_interval {
	struct pcore_probe *p;
	struct pcore_snap *s;
};

static int pcore_interval_show(struct seq_file *m, void *unused)
{
	struct pcore_interval *iv = m->private;

	pcore_seq_stats(m, iv->p, iv->s);
	seq_puts(m, "\n");
	pcore_seq_merged_hist(m, iv->p, iv->s);
	return 0;
}

/* The harvest happens once, at open, however the file is read. */
static int pcore_interval_open(struct inode *inode, struct file *file)
{
	struct pcore_interval *iv;
	int ret;

	iv = kzalloc(sizeof(*iv), GFP_KERNEL);
	if (!iv)
		return -ENOMEM;
	iv->p = inode->i_private;
	iv->s = pcore_hist_snap_alloc(iv->p->hist);
	if (!iv->s) {
		kfree(iv);
		return -ENOMEM;
	}
	pcore_hist_harvest(iv->p->hist, iv->s);
	ret = single_open(file, pcore_interval_show, iv);
	if (ret) {
		kfree(iv->s);
		kfree(iv);
	}
	return ret;
}

static int pcore_interval_release(struct inode *inode, struct file *file)
{
	struct pcore_interval *iv = ((struct seq_file *)file->private_data)->private;

	kfree(iv->s);
	kfree(iv);
	return single_release(inode, file);
}

static const struct file_operations pcore_interval_fops = {
	.owner = THIS_MODULE,
	.open = pcore_interval_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = pcore_interval_release,
};

static ssize_t pcore_reset_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct pcore_probe *p = file->private_data;
	struct pcore_snap *s;
	unsigned int v;
	int ret;

	ret = kstrtouint_from_user(ubuf, count, 10, &v);
	if (ret == -EFAULT)
		return ret;
	if (ret || v != 1)
		return -EINVAL;
	s = pcore_hist_snap_alloc(p->hist);
	if (!s)
		return -ENOMEM;
	pcore_hist_harvest(p->hist, s);
	kfree(s);
	return count;
}

static const struct file_operations pcore_reset_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = pcore_reset_write,
	.llseek = noop_llseek,
};

void pcore_debugfs_add_probe(struct pcore_probe *p)
{
	p->dir = debugfs_create_dir(p->name, pcore_dir);
	debugfs_create_file("hist", 0400, p->dir, p, &pcore_hist_fops);
	debugfs_create_file("percpu", 0400, p->dir, p, &pcore_percpu_fops);
	debugfs_create_file("stats", 0400, p->dir, p, &pcore_stats_fops);
	debugfs_create_file("interval", 0400, p->dir, p, &pcore_interval_fops);
	debugfs_create_file("reset", 0200, p->dir, p, &pcore_reset_fops);
}

void pcore_debugfs_remove_probe(struct pcore_probe *p)
{
	debugfs_remove(p->dir);
	p->dir = NULL;
}

void pcore_debugfs_init(void)
{
	pcore_dir = debugfs_create_dir("probe_core", NULL);
	debugfs_create_file("probes", 0400, pcore_dir, NULL, &pcore_probes_fops);
}

void pcore_debugfs_exit(void)
{
	debugfs_remove(pcore_dir);
	pcore_dir = NULL;
}
