// SPDX-License-Identifier: GPL-2.0
/*
 * Text results under /sys/kernel/debug/probe_core/.  Other tools parse
 * these files: change their format only with care.
 *
 *   probes            one line per probe: name kind symbol hits missed
 *   clients           one line per handler module using probe_core:
 *                     name hists timers probes
 *   timers            a '# name scope ...' header line, then one line per
 *                     timer of probe_core's own client
 *   <hist>/           a histogram of probe_core's own (target=, tracepoints=)
 *   <module>/timers   the same header line, then one line per timer of a
 *                     handler module
 *   <module>/<hist>/  a histogram of a handler module
 *
 * In every histogram directory:
 *
 *   hist      merged histogram: [lo, hi) count |@@@@|, adjacent buckets
 *             merged into at most PCORE_HIST_ROWS rows of exact bounds;
 *             times (unit ns) as a person reads them, '[940 ms, 1.07 s)'
 *             (pcore_fmt_ns()), other units exact, '[4096bytes, 8192bytes)';
 *             a count histogram 'count: N' alone
 *   hist_full the same, one row per bucket
 *   percpu    per-CPU totals and histograms, then their merged total
 *   stats     'key: value' lines, exact integers (times in ns); a count
 *             histogram has count and no sum, min, max, mean or percentiles
 *   interval  stats and histogram since the last interval read or reset,
 *             taken atomically at open; opening starts a new interval.
 *             Only an open for reading and writing: a read-only open
 *             (grep -r, a monitoring walk) gets EACCES and takes nothing,
 *             as PCORE_READ_RESET needs /dev/probe_core open for writing
 *   reset     write 1 to reset
 *   keys      keyed histograms only: one line per key
 *   stacks    histograms keyed by stack only: one block per stack, the
 *             most counted first (of a histogram of values, the largest
 *             sum first): 'stack <id> count <n> [sum <s> <unit>]' then
 *             its frames, innermost first, one a line, indented two
 *             spaces ('[...]' last when it was cut at the depth), and an
 *             empty line
 *
 * A keyed histogram prints every key in use, in slot order, each under a
 * '<key name> <key> <label>:' line (hist, percpu) or a block of its own
 * (stats, interval).
 *
 * Debugfs creation errors are ignored by design; every file holds a
 * reference on probe_core while open, and a removed file answers -EIO.
 *
 * Nothing in the core calls this file: it is the registry's observer,
 * told of each client and histogram that comes or goes, and it finds
 * and reads objects through the registry under pcore_lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>
#include "pcore.h"

#define PCORE_BAR_WIDTH	40

static struct dentry *pcore_dir;

static const struct {
	const char *key;
	u32 ppm;
} pcore_pct[] = {
	{ "p50", 500000 }, { "p90", 900000 },
	{ "p99", 990000 }, { "p999", 999000 },
};

/*
 * The bound between buckets @below and @above (-1: none) of @h, where
 * @v is: "inf", a time for a person when the unit is ns ("1.07 s": to a
 * tenth of the narrower bucket, pcore_bound_res(), so that no two bounds
 * print the same), else the exact number and the unit ("4096bytes").
 */
static void pcore_seq_bound(char *buf, size_t len, const struct pcore_hist *h,
			    u64 v, int below, int above)
{
	u64 lo, hi, wb = 0, wa = 0;

	if (v == U64_MAX) {
		strscpy(buf, "inf", len);
		return;
	}
	if (strcmp(h->unit, "ns")) {
		snprintf(buf, len, "%llu%s", v, h->unit);
		return;
	}
	if (below >= 0) {
		pcore_bucket_bounds(&h->layout, below, &lo, &hi);
		wb = hi - lo;
	}
	if (above >= 0 && above < h->layout.nbuckets) {
		pcore_bucket_bounds(&h->layout, above, &lo, &hi);
		wa = hi - lo;
	}
	pcore_fmt_ns(buf, len, v, pcore_bound_res(wb, wa));
}

/*
 * From the first non-empty bucket to the last, "[lo, hi) count |@@@@|",
 * the bar scaled to the fullest row.  Unless @full, adjacent buckets are
 * merged into at most PCORE_HIST_ROWS rows (pcore_rows_plan()): a row's
 * bounds are its first bucket's lower and its last bucket's upper bound.
 */
static void pcore_seq_hist(struct seq_file *m, const struct pcore_hist *h,
			   const struct pcore_snap *s, const char *indent,
			   bool full)
{
	/* 20 digits and a unit (PCORE_UNIT_MAX), or a time */
	char lo_s[48], hi_s[48], range[104], bar[PCORE_BAR_WIDTH + 1];
	u32 i, j, first = s->nbuckets, last = 0, start, end;
	u64 top = 0, lo, hi, n, c;
	struct pcore_rows rows;

	for (i = 0; i < s->nbuckets; i++) {
		if (!s->b[i])
			continue;
		if (first == s->nbuckets)
			first = i;
		last = i;
	}
	if (first == s->nbuckets) {
		seq_printf(m, "%s(empty)\n", indent);
		return;
	}
	/* A count histogram has one bucket of no range: its count alone. */
	if (h->layout.kind == PCORE_HIST_COUNT) {
		seq_printf(m, "%scount: %llu\n", indent, s->b[0]);
		return;
	}
	pcore_rows_plan(&rows, h->layout.kind, s->nbuckets, first, last,
			full ? 0 : PCORE_HIST_ROWS);
	for (i = first; i <= last; i = end + 1) {
		pcore_row_of(&rows, i, &start, &end);
		for (c = 0, j = start; j <= end; j++)
			c += s->b[j];
		top = max(top, c);
	}
	for (i = first; i <= last; i = end + 1) {
		pcore_row_of(&rows, i, &start, &end);
		for (c = 0, j = start; j <= end; j++)
			c += s->b[j];
		pcore_bucket_bounds(&h->layout, start, &lo, &hi);
		pcore_seq_bound(lo_s, sizeof(lo_s), h, lo, (int)start - 1, start);
		pcore_bucket_bounds(&h->layout, end, &lo, &hi);
		pcore_seq_bound(hi_s, sizeof(hi_s), h, hi, end, end + 1);
		snprintf(range, sizeof(range), "[%s, %s)", lo_s, hi_s);
		n = div64_u64(c * PCORE_BAR_WIDTH + top - 1, top);
		memset(bar, '@', n);
		bar[n] = '\0';
		seq_printf(m, "%s%-36s %12llu |%-*s|\n", indent, range, c,
			   PCORE_BAR_WIDTH, bar);
	}
}

/* count, sum, min, max, mean and the percentiles of one snapshot. */
static void pcore_seq_values(struct seq_file *m, const struct pcore_hist *h,
			     const struct pcore_snap *s)
{
	u32 i;

	seq_printf(m, "count: %llu\n", s->count);
	/* A count histogram keeps no values: no sum, min, max, mean. */
	if (h->layout.kind == PCORE_HIST_COUNT)
		return;
	seq_printf(m, "sum: %llu\n", s->sum);
	seq_printf(m, "min: %llu\n", s->count ? s->min : 0);
	seq_printf(m, "max: %llu\n", s->max);
	seq_printf(m, "mean: %llu\n",
		   s->count ? div64_u64(s->sum, s->count) : 0);
	for (i = 0; i < ARRAY_SIZE(pcore_pct); i++)
		seq_printf(m, "%s: %llu\n", pcore_pct[i].key,
			   pcore_snap_percentile(&h->layout, s,
						 pcore_pct[i].ppm));
}

/*
 * What describes the histogram rather than its values, taken before
 * h->lock: pcore_lock (for h->probe) comes first in the lock order.
 */
struct pcore_about {
	unsigned long missed;
	int unsampled;
	long own;
	const char *mechanism;
	const char *why_kprobe;
	char symbol[KSYM_NAME_LEN + 32];
};

static void pcore_about_get(struct pcore_hist *h, struct pcore_about *a)
{
	mutex_lock(&pcore_lock);
	a->missed = h->probe ? pcore_probe_missed(h->probe) : 0;
	a->unsampled = h->probe ? pcore_profile_unsampled(h->probe) : -1;
	a->own = h->probe ? pcore_profile_own(h->probe) : -1;
	a->mechanism = h->probe ? pcore_probe_kind_name(h->probe) : "-";
	a->why_kprobe = h->probe ? READ_ONCE(h->probe->why_kprobe) : NULL;
	strscpy(a->symbol, h->probe ? pcore_probe_hist_symbol(h->probe, h) :
				      "-", sizeof(a->symbol));
	mutex_unlock(&pcore_lock);
}

static void pcore_seq_about(struct seq_file *m, const struct pcore_hist *h,
			    const struct pcore_about *a, u64 recorded)
{
	u64 abs_err;
	u32 ppm = pcore_layout_error_ppm(&h->layout, &abs_err);
	char kind[16];	/* "exp:8" */

	seq_printf(m, "missed: %lu\n", a->missed);
	if (a->unsampled >= 0)	/* a profiler's */
		seq_printf(m, "unsampled_cpus: %d\n", a->unsampled);
	if (a->own >= 0)	/* a profiler's: see the top of profile.c */
		seq_printf(m, "own_samples_left_out: %ld\n", a->own);
	seq_printf(m, "symbol: %s\n", a->symbol);
	seq_printf(m, "mechanism: %s", a->mechanism);
	if (a->why_kprobe)
		seq_printf(m, " (no direct call: %s)", a->why_kprobe);
	seq_putc(m, '\n');
	seq_printf(m, "unit: %s\n", h->unit);
	pcore_layout_kind_text(&h->layout, kind, sizeof(kind));
	seq_printf(m, "kind: %s\n", kind);
	if (h->layout.kind == PCORE_HIST_COUNT)
		;	/* no percentiles, no error */
	else if (ppm)
		seq_printf(m, "percentile_error: %u.%04u%%\n", ppm / 10000,
			   ppm % 10000);
	else
		seq_printf(m, "percentile_error: %llu%s\n", abs_err, h->unit);
	seq_printf(m, "recorded: %llu\n", recorded);
	seq_printf(m, "memory: %zu\n", h->mem);
}

/* "<key name><sep><key>", or only the key when @sep is NULL. */
static void pcore_seq_key(struct seq_file *m, const struct pcore_hist *h,
			  const struct pcore_keyval *kv, const char *sep)
{
	if (sep)
		seq_printf(m, "%s%s", h->key_name, sep);
	/* An address as %pK prints it: 16 hex digits. */
	if (h->flags & PCORE_HIST_KEY_ADDR)
		seq_printf(m, "%016llx", kv->key);
	else if (h->map.key_mode == PCORE_KEYS_STACK)
		seq_printf(m, "%08llx", kv->key);
	else
		seq_printf(m, "%llu", kv->key);
}

/*
 * The label of a key as one word: "-" when none, and every space or
 * control character (a task's comm may have them) shown as '_', so that
 * the label stays one field of the keys file and one line of stats.
 */
static const char *pcore_label(const struct pcore_keyval *kv,
			       char buf[PCORE_LABEL_MAX])
{
	return pcore_to_word(buf, kv->label, PCORE_LABEL_MAX) ? buf : "-";
}

struct pcore_seq_arg {
	struct seq_file *m;
	struct pcore_hist *h;
	bool with_hist;
	bool full;
	bool any;
	struct pcore_snap *one;
	struct pcore_snap *total;
};

/* One key's block of stats and interval. */
static void pcore_seq_block(void *arg, const struct pcore_keyval *kv)
{
	struct pcore_seq_arg *a = arg;
	char lb[PCORE_LABEL_MAX];

	if (a->h->map.key_mode) {
		seq_puts(a->m, "\n");
		pcore_seq_key(a->m, a->h, kv, ": ");
		seq_printf(a->m, "\nlabel: %s\n", pcore_label(kv, lb));
	}
	pcore_seq_values(a->m, a->h, kv->s);
	if (a->with_hist && a->h->layout.kind != PCORE_HIST_COUNT)
		pcore_seq_hist(a->m, a->h, kv->s, a->h->map.key_mode ? "  " : "",
			       false);
}

/*
 * stats and interval: about lines, then values (per key when keyed).
 * Without keys, the one block comes first and the about lines after it.
 */
static void pcore_seq_head(struct seq_file *m, struct pcore_hist *h,
			   const struct pcore_about *about, u64 hits, u32 n)
{
	if (h->map.key_mode) {
		seq_printf(m, "keys: %u\n", n);
		seq_printf(m, "dropped: %llu\n", pcore_hist_dropped(h));
	}
	pcore_seq_about(m, h, about, hits);
}

/*
 * The probes and timers files copy what they show under pcore_lock and
 * format it after: no object is held, and pcore_lock (which the module
 * notifier takes) is held for a copy of a few hundred bytes per object.
 */

static unsigned int pcore_list_len(const struct list_head *list)
{
	const struct list_head *pos;
	unsigned int n = 0;

	list_for_each(pos, list)
		n++;
	return n;
}

/*
 * Takes pcore_lock and returns zeroed room for a row of @size bytes per
 * entry of @list (a registry list, under pcore_lock), *@n the entries;
 * without memory, NULL with pcore_lock dropped.
 */
static void *pcore_rows_lock(const struct list_head *list, size_t size,
			     unsigned int *n)
{
	void *rows;

	mutex_lock(&pcore_lock);
	*n = pcore_list_len(list);
	rows = kvcalloc(max(*n, 1U), size, GFP_KERNEL | __GFP_NOWARN);
	if (!rows)
		mutex_unlock(&pcore_lock);
	return rows;
}
struct pcore_probe_row {
	char client[MODULE_NAME_LEN];
	char name[PCORE_NAME_MAX];
	char symbol[KSYM_NAME_LEN + 32];
	const char *kind;
	u64 hits;
	unsigned long missed;
	size_t mem;
};

static int pcore_probes_show(struct seq_file *m, void *unused)
{
	struct pcore_probe_row *rows, *r;
	struct pcore_probe *p;
	unsigned int n, i;

	rows = pcore_rows_lock(&pcore_probes, sizeof(*rows), &n);
	if (!rows)
		return -ENOMEM;
	r = rows;
	pcore_for_each_probe(p) {
		strscpy(r->client, p->client->name, sizeof(r->client));
		strscpy(r->name, p->name, sizeof(r->name));
		strscpy(r->symbol, pcore_probe_waiting(p) ? "(waiting)" :
			pcore_probe_gone(p) ? "(gone)" : p->symbol,
			sizeof(r->symbol));
		r->kind = pcore_probe_kind_name(p);
		r->hits = pcore_probe_hits(p);
		r->missed = pcore_probe_missed(p);
		r->mem = p->mem;
		r++;
	}
	mutex_unlock(&pcore_lock);
	for (i = 0, r = rows; i < n; i++, r++)
		seq_printf(m, "%s%s%s %s %s %llu %lu %zu\n", r->client,
			   *r->client ? "/" : "", r->name, r->kind, r->symbol,
			   r->hits, r->missed, r->mem);
	kvfree(rows);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pcore_probes);

struct pcore_client_row {
	char name[MODULE_NAME_LEN];
	unsigned int n[3];
};

/* Handler modules using probe_core: name hists timers probes */
static int pcore_clients_show(struct seq_file *m, void *unused)
{
	struct pcore_client_row *rows, *r;
	struct pcore_client *c;
	unsigned int n, i;

	rows = pcore_rows_lock(&pcore_clients, sizeof(*rows), &n);
	if (!rows)
		return -ENOMEM;
	r = rows;
	pcore_for_each_client(c) {
		if (!*c->name)
			continue;	/* probe_core's own */
		strscpy(r->name, c->name, sizeof(r->name));
		r->n[0] = pcore_list_len(&c->hists);
		r->n[1] = pcore_list_len(&c->timers);
		r->n[2] = pcore_list_len(&c->probes);
		r++;
	}
	mutex_unlock(&pcore_lock);
	for (i = 0; rows + i < r; i++)
		seq_printf(m, "%s %u %u %u\n", rows[i].name, rows[i].n[0],
			   rows[i].n[1], rows[i].n[2]);
	kvfree(rows);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pcore_clients);

struct pcore_timer_row {
	char name[PCORE_NAME_MAX];
	bool cpu;
	u64 measured, discarded, unmatched, evicted, exited;
	size_t mem;
};

/* name scope measured discarded unmatched evicted exited memory */
static int pcore_timers_show(struct seq_file *m, void *unused)
{
	struct pcore_client *c = m->private;
	struct pcore_timer_row *rows, *r;
	struct pcore_timer *t;
	unsigned int n, i;

	rows = pcore_rows_lock(&c->timers, sizeof(*rows), &n);
	if (!rows)
		return -ENOMEM;
	r = rows;
	seq_puts(m, "# name scope measured discarded unmatched evicted exited memory\n");
	pcore_for_each_timer(c, t) {
		strscpy(r->name, t->name, sizeof(r->name));
		r->cpu = t->scope == PCORE_TIMER_CPU;
		pcore_timer_stats(t, &r->measured, &r->discarded,
				  &r->unmatched, &r->evicted, &r->exited);
		r->mem = t->mem;
		r++;
	}
	mutex_unlock(&pcore_lock);
	for (i = 0, r = rows; i < n; i++, r++)
		seq_printf(m, "%s %s %llu %llu %llu %llu %llu %zu\n", r->name,
			   r->cpu ? "cpu" : "task", r->measured, r->discarded,
			   r->unmatched, r->evicted, r->exited, r->mem);
	kvfree(rows);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pcore_timers);

/* hist: a key line and its histogram per key; the histogram alone without keys */
static void pcore_hist_one(void *arg, const struct pcore_keyval *kv)
{
	struct pcore_seq_arg *a = arg;
	char lb[PCORE_LABEL_MAX];

	if (!a->h->map.key_mode) {
		pcore_seq_hist(a->m, a->h, kv->s, "", a->full);
		return;
	}
	if (a->any)
		seq_puts(a->m, "\n");
	pcore_seq_key(a->m, a->h, kv, " ");
	seq_printf(a->m, " %s:\n", pcore_label(kv, lb));
	pcore_seq_hist(a->m, a->h, kv->s, "  ", a->full);
	a->any = true;
}

static int pcore_hist_print(struct seq_file *m, bool full)
{
	struct pcore_seq_arg a = { .m = m, .h = m->private, .full = full };

	mutex_lock(&a.h->lock);
	pcore_hist_walk(a.h, -1, pcore_hist_one, &a);
	mutex_unlock(&a.h->lock);
	if (a.h->map.key_mode && !a.any)
		seq_puts(m, "(empty)\n");
	return 0;
}

/* hist: rows merged to fit PCORE_HIST_ROWS; hist_full: every bucket */
static int pcore_hist_show(struct seq_file *m, void *unused)
{
	return pcore_hist_print(m, false);
}
DEFINE_SHOW_ATTRIBUTE(pcore_hist);

static int pcore_hist_full_show(struct seq_file *m, void *unused)
{
	return pcore_hist_print(m, true);
}
DEFINE_SHOW_ATTRIBUTE(pcore_hist_full);

static int pcore_stats_show(struct seq_file *m, void *unused)
{
	struct pcore_seq_arg a = { .m = m, .h = m->private };
	struct pcore_hist *h = a.h;
	struct pcore_about *about;
	u64 hits;

	about = kmalloc(sizeof(*about), GFP_KERNEL);
	if (!about)
		return -ENOMEM;
	pcore_about_get(h, about);
	mutex_lock(&h->lock);
	hits = pcore_hist_lifetime(h);
	if (!h->map.key_mode) {
		pcore_hist_walk(h, -1, pcore_seq_block, &a);
		pcore_seq_about(m, h, about, hits);
	} else {
		pcore_seq_head(m, h, about, hits,
			       pcore_hist_walk(h, -1, NULL, NULL));
		pcore_hist_walk(h, -1, pcore_seq_block, &a);
	}
	mutex_unlock(&h->lock);
	kfree(about);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pcore_stats);

/* key label count sum min max mean p50 p90 p99 p999 */
static void pcore_keys_one(void *arg, const struct pcore_keyval *kv)
{
	struct pcore_seq_arg *a = arg;
	const struct pcore_snap *s = kv->s;
	char lb[PCORE_LABEL_MAX];
	u32 j;

	pcore_seq_key(a->m, a->h, kv, NULL);
	seq_printf(a->m, " %s %llu %llu %llu %llu %llu", pcore_label(kv, lb),
		   s->count, s->sum, s->count ? s->min : 0, s->max,
		   s->count ? div64_u64(s->sum, s->count) : 0);
	for (j = 0; j < ARRAY_SIZE(pcore_pct); j++)
		seq_printf(a->m, " %llu",
			   pcore_snap_percentile(&a->h->layout, s,
						 pcore_pct[j].ppm));
	seq_puts(a->m, "\n");
}

static int pcore_keys_show(struct seq_file *m, void *unused)
{
	struct pcore_seq_arg a = { .m = m, .h = m->private };

	seq_printf(m, "# %s label count sum min max mean p50 p90 p99 p999\n",
		   a.h->key_name);
	mutex_lock(&a.h->lock);
	pcore_hist_walk(a.h, -1, pcore_keys_one, &a);
	mutex_unlock(&a.h->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pcore_keys);

/* One stack of the stacks file: where its frames are, and its values. */
struct pcore_stack_row {
	const unsigned long *frames;
	u32 nframes;
	u32 fflags;
	u64 key;
	u64 count;
	u64 sum;
};

struct pcore_stacks_arg {
	struct pcore_stack_row *rows;
	u32 n;
	u32 room;
};

static void pcore_stacks_one(void *arg, const struct pcore_keyval *kv)
{
	struct pcore_stacks_arg *a = arg;

	/* Keys that came between the walk that counted and this one wait. */
	if (a->n == a->room)
		return;
	a->rows[a->n++] = (struct pcore_stack_row){
		.frames = kv->frames, .nframes = kv->nframes,
		.fflags = kv->fflags, .key = kv->key, .count = kv->s->count,
		.sum = kv->s->sum,
	};
}

/* By frames, to find twins (see pcore_stack_slot()). */
static int pcore_stack_cmp_frames(const void *x, const void *y)
{
	const struct pcore_stack_row *a = x, *b = y;
	u32 i;

	if (a->nframes != b->nframes)
		return a->nframes < b->nframes ? -1 : 1;
	if (a->fflags != b->fflags)
		return a->fflags < b->fflags ? -1 : 1;
	for (i = 0; i < a->nframes; i++)
		if (a->frames[i] != b->frames[i])
			return a->frames[i] < b->frames[i] ? -1 : 1;
	return 0;
}

/* The largest sum first; then the most counted; then by id. */
static int pcore_stack_cmp_sum(const void *x, const void *y)
{
	const struct pcore_stack_row *a = x, *b = y;

	if (a->sum != b->sum)
		return a->sum > b->sum ? -1 : 1;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return 0;
}

static void pcore_stacks_print(struct seq_file *m, const struct pcore_hist *h,
			       const struct pcore_stack_row *r)
{
	char buf[KSYM_SYMBOL_LEN + 32];
	u32 i = 0;

	seq_printf(m, "stack %08llx count %llu", r->key, r->count);
	if (h->layout.kind != PCORE_HIST_COUNT)
		seq_printf(m, " sum %llu %s", r->sum, h->unit);
	seq_puts(m, "\n");
	if (!r->nframes)
		seq_puts(m, "  [no frames]\n");
	while (i < r->nframes) {
		i = pcore_stack_frame(buf, sizeof(buf), r->frames, r->nframes,
				      r->fflags, i);
		seq_printf(m, "  %s\n", buf);
	}
	/* With a process, "[...]" is a line among the frames. */
	if ((r->fflags & (PCORE_STACK_F_CUT | PCORE_STACK_F_PROC)) ==
	    PCORE_STACK_F_CUT)
		seq_puts(m, "  [...]\n");
	seq_puts(m, "\n");
}

/*
 * Under h->lock, the frames of the stacks in use stay where they are: a
 * harvest, which frees them, takes the lock.
 */
static int pcore_stacks_show(struct seq_file *m, void *unused)
{
	struct pcore_stacks_arg a = {};
	struct pcore_hist *h = m->private;
	u32 i, j;

	mutex_lock(&h->lock);
	a.room = pcore_hist_walk(h, -1, NULL, NULL);
	a.rows = kvcalloc(max(a.room, 1U), sizeof(*a.rows), GFP_KERNEL);
	if (!a.rows) {
		mutex_unlock(&h->lock);
		return -ENOMEM;
	}
	pcore_hist_walk(h, -1, pcore_stacks_one, &a);
	sort(a.rows, a.n, sizeof(*a.rows), pcore_stack_cmp_frames, NULL);
	for (i = 0, j = 0; i < a.n; i++) {
		if (j && !pcore_stack_cmp_frames(&a.rows[j - 1], &a.rows[i])) {
			a.rows[j - 1].count += a.rows[i].count;
			a.rows[j - 1].sum += a.rows[i].sum;
			continue;
		}
		a.rows[j++] = a.rows[i];
	}
	/* A count histogram's sums are all 0: the most counted first. */
	sort(a.rows, j, sizeof(*a.rows), pcore_stack_cmp_sum, NULL);
	seq_printf(m, "# %u stacks, %llu dropped, depth %u%s\n", j,
		   pcore_hist_dropped(h), pcore_stack_kdepth(h->map.depth),
		   h->map.depth & PCORE_STACK_D_USER ?
		   ", user depth " __stringify(PCORE_USTACK_DEPTH) :
		   h->map.depth & PCORE_STACK_D_PROC ? ", processes" : "");
	for (i = 0; i < j; i++)
		pcore_stacks_print(m, h, &a.rows[i]);
	mutex_unlock(&h->lock);
	kvfree(a.rows);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pcore_stacks);

static void pcore_seq_totals(struct seq_file *m, const char *what,
			     const struct pcore_snap *s)
{
	seq_printf(m, "%s count %llu sum %llu min %llu max %llu\n", what,
		   s->count, s->sum, s->count ? s->min : 0, s->max);
}

/* Each CPU is read once; the total is the merge of exactly what is shown. */
static void pcore_percpu_one(void *arg, const struct pcore_keyval *kv)
{
	struct pcore_seq_arg *a = arg;
	struct pcore_hist *h = a->h;
	const char *indent = h->map.key_mode ? "  " : "";
	char what[24], lb[PCORE_LABEL_MAX];
	int cpu;

	if (h->map.key_mode) {
		pcore_seq_key(a->m, h, kv, " ");
		seq_printf(a->m, " %s:\n", pcore_label(kv, lb));
	}
	pcore_snap_init(&h->layout, a->total);
	for_each_possible_cpu(cpu) {
		pcore_snap_init(&h->layout, a->one);
		pcore_hist_read(h, cpu, kv->slot, a->one);
		snprintf(what, sizeof(what), "%scpu%d", indent, cpu);
		pcore_seq_totals(a->m, what, a->one);
		if (a->one->count)
			pcore_seq_hist(a->m, h, a->one,
				       h->map.key_mode ? "    " : "  ", false);
		pcore_snap_merge(a->total, a->one);
	}
	snprintf(what, sizeof(what), "%stotal", indent);
	pcore_seq_totals(a->m, what, a->total);
}

static int pcore_percpu_show(struct seq_file *m, void *unused)
{
	struct pcore_seq_arg a = { .m = m, .h = m->private };
	int ret = -ENOMEM;

	a.one = kvmalloc(pcore_snap_size(&a.h->layout), GFP_KERNEL);
	a.total = kvmalloc(pcore_snap_size(&a.h->layout), GFP_KERNEL);
	if (a.one && a.total) {
		mutex_lock(&a.h->lock);
		pcore_hist_walk(a.h, -1, pcore_percpu_one, &a);
		mutex_unlock(&a.h->lock);
		ret = 0;
	}
	kvfree(a.one);
	kvfree(a.total);
	return ret;
}
DEFINE_SHOW_ATTRIBUTE(pcore_percpu);

struct pcore_interval {
	struct pcore_hist *h;
	struct pcore_kvs kvs;
	struct pcore_about about;
};

static int pcore_interval_show(struct seq_file *m, void *unused)
{
	struct pcore_interval *iv = m->private;
	struct pcore_seq_arg a = { .m = m, .h = iv->h, .with_hist = true };
	u64 hits;
	u32 i;

	mutex_lock(&iv->h->lock);
	hits = pcore_hist_lifetime(iv->h);
	mutex_unlock(&iv->h->lock);
	if (!iv->h->map.key_mode) {
		pcore_seq_values(m, iv->h, iv->kvs.kv[0].s);
		pcore_seq_about(m, iv->h, &iv->about, hits);
		if (iv->h->layout.kind == PCORE_HIST_COUNT)
			return 0;	/* its count is above */
		seq_puts(m, "\n");
		pcore_seq_hist(m, iv->h, iv->kvs.kv[0].s, "", false);
		return 0;
	}
	pcore_seq_head(m, iv->h, &iv->about, hits, iv->kvs.n);
	for (i = 0; i < iv->kvs.n; i++)
		pcore_seq_block(&a, &iv->kvs.kv[i]);
	return 0;
}

/*
 * The harvest happens once, at open, however the file is read.  It is the
 * last step: a harvest cannot be undone, so an open that fails must fail
 * before it, or with it (pcore_hist_harvest() keeps the interval when it
 * cannot allocate its answer).  It takes the interval from every other
 * reader (probectl watch, the exporter): an open that may read and write
 * only, as a reset through /dev/probe_core needs it open for writing.  A
 * read-only walk over debugfs is no request to reset (no log line); a
 * write-only open would take what it cannot read.
 */
static int pcore_interval_open(struct inode *inode, struct file *file)
{
	struct pcore_interval *iv;
	int ret;

	if ((file->f_mode & (FMODE_READ | FMODE_WRITE)) !=
	    (FMODE_READ | FMODE_WRITE))
		return -EACCES;
	iv = kzalloc(sizeof(*iv), GFP_KERNEL);
	if (!iv)
		return -ENOMEM;
	iv->h = inode->i_private;
	ret = single_open(file, pcore_interval_show, iv);
	if (!ret) {
		pcore_about_get(iv->h, &iv->about);
		ret = pcore_hist_harvest(iv->h, &iv->kvs);
		if (ret)
			single_release(inode, file);
	}
	if (ret)
		kfree(iv);
	return ret;
}

static int pcore_interval_release(struct inode *inode, struct file *file)
{
	struct pcore_interval *iv = ((struct seq_file *)file->private_data)->private;

	pcore_kvs_free(&iv->kvs);
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
	struct pcore_hist *h = file->private_data;
	char buf[3];

	/* Exactly "1", with or without a newline: not "01", "+1" or "1 ". */
	if (!count || count > 2)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (strcmp(buf, "1") && strcmp(buf, "1\n"))
		return -EINVAL;
	pcore_hist_harvest(h, NULL);	/* cannot fail without an answer */
	return count;
}

static const struct file_operations pcore_reset_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = pcore_reset_write,
	.llseek = noop_llseek,
};

/* The registry's observer: a directory per client and per histogram. */
static void pcore_debugfs_hist_added(struct pcore_hist *h)
{
	h->dir = debugfs_create_dir(h->name, h->client->dir);
	debugfs_create_file("hist", 0400, h->dir, h, &pcore_hist_fops);
	debugfs_create_file("hist_full", 0400, h->dir, h,
			    &pcore_hist_full_fops);
	debugfs_create_file("percpu", 0400, h->dir, h, &pcore_percpu_fops);
	debugfs_create_file("stats", 0400, h->dir, h, &pcore_stats_fops);
	debugfs_create_file("interval", 0600, h->dir, h, &pcore_interval_fops);
	debugfs_create_file("reset", 0200, h->dir, h, &pcore_reset_fops);
	if (h->map.key_mode)
		debugfs_create_file("keys", 0400, h->dir, h, &pcore_keys_fops);
	if (h->map.key_mode == PCORE_KEYS_STACK)
		debugfs_create_file("stacks", 0400, h->dir, h,
				    &pcore_stacks_fops);
}

/* Waits for the files' running operations; later ones fail with -EIO. */
static void pcore_debugfs_remove(struct dentry **d)
{
	debugfs_remove(*d);
	*d = NULL;
}

static void pcore_debugfs_hist_removed(struct pcore_hist *h)
{
	pcore_debugfs_remove(&h->dir);
}

/*
 * probe_core's own client has the root as its directory, which shows its
 * timers; the root goes at pcore_debugfs_exit().
 */
static void pcore_debugfs_client_added(struct pcore_client *c)
{
	if (c == pcore_client_get_own())
		c->dir = pcore_dir;
	else
		c->dir = debugfs_create_dir(c->name, pcore_dir);
	debugfs_create_file("timers", 0400, c->dir, c, &pcore_timers_fops);
}

static void pcore_debugfs_client_removed(struct pcore_client *c)
{
	if (c != pcore_client_get_own())
		pcore_debugfs_remove(&c->dir);
}

static const struct pcore_observer_ops pcore_debugfs_observer = {
	.client_added = pcore_debugfs_client_added,
	.client_removed = pcore_debugfs_client_removed,
	.hist_added = pcore_debugfs_hist_added,
	.hist_removed = pcore_debugfs_hist_removed,
};

/* Before the first client: every client and histogram gets its files. */
void pcore_debugfs_init(void)
{
	pcore_dir = debugfs_create_dir("probe_core", NULL);
	debugfs_create_file("probes", 0400, pcore_dir, NULL, &pcore_probes_fops);
	debugfs_create_file("clients", 0400, pcore_dir, NULL,
			    &pcore_clients_fops);
	pcore_observer_set(&pcore_debugfs_observer);
}

/* After the last client. */
void pcore_debugfs_exit(void)
{
	pcore_observer_set(NULL);
	debugfs_remove(pcore_dir);
	pcore_dir = NULL;
}
