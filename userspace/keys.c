// SPDX-License-Identifier: GPL-2.0
/*
 * probectl show NAME --keys: a keyed histogram (a --by-pid probe's, a
 * handler module's keyed by irq...) as one line per key, where show
 * prints a histogram of 20 to 30 rows per key.  The numbers are the
 * kernel's for each key slot (PCORE_READ_KEY): count, sum, p50, p99
 * (nearest rank, from the buckets) and max, in the histogram's unit, which
 * the header names.  A count histogram (attach --count --by-pid) has only
 * counts: its lines stop there.
 *
 * Text: a header "# KEY label count sum_UNIT p50_UNIT p99_UNIT max_UNIT"
 * (KEY the key's name, "pid"), then a line per key, columns aligned, the
 * label one word ('_' for blanks, "-" when none).  Times (unit ns) are
 * scaled for a person as one word, as watch prints them ("4.608us"),
 * under "sum p50 p99 max"; other units' values are the exact numbers.  JSON: one object, the
 * histogram's name, key name and unit, and "keys": one object per key,
 * in the same order.
 */
#include <stdlib.h>
#include <string.h>
#include "format.h"
#include "keys.h"
#include "pcore_engine.h"

/* A key's value that --sort compares. */
static unsigned long long sort_value(const struct pcore_ioc_read *r,
				     enum pc_key_sort by)
{
	switch (by) {
	case PC_SORT_P99:
		return r->p99;
	case PC_SORT_SUM:
		return r->sum;
	default:
		return r->count;
	}
}

static enum pc_key_sort cmp_by;	/* qsort() takes no argument */

static int cmp_keys(const void *pa, const void *pb)
{
	const struct pcore_ioc_read *a = &(*(const struct pc_snap * const *)pa)->r;
	const struct pcore_ioc_read *b = &(*(const struct pc_snap * const *)pb)->r;
	unsigned long long va = sort_value(a, cmp_by), vb = sort_value(b, cmp_by);

	if (va != vb)
		return va > vb ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return 0;
}

/*
 * The keys of @h to print, in order, into a malloc()ed array of *@n; NULL
 * when there is none or no memory (*@n 0 then).
 */
static const struct pc_snap **sorted(const struct pc_hist *h,
				     const struct pc_keys_opts *o,
				     unsigned int *n)
{
	const struct pc_snap **k;
	unsigned int i;

	*n = 0;
	if (!h->nkeys)
		return NULL;
	k = malloc(h->nkeys * sizeof(*k));
	if (!k)
		return NULL;
	for (i = 0; i < h->nkeys; i++)
		k[i] = &h->keys[i];
	cmp_by = o->sort;
	qsort(k, h->nkeys, sizeof(*k), cmp_keys);
	*n = o->top && o->top < h->nkeys ? o->top : h->nkeys;
	return k;
}

/* Only counts: a count histogram's values are not values. */
static bool counts_only(const struct pc_hist *h)
{
	return pc_hist_kind(&h->e) == PCORE_HIST_COUNT;
}

static int width(unsigned long long v)
{
	int w = 1;

	while (v >= 10) {
		v /= 10;
		w++;
	}
	return w;
}

#define NCOLS	5	/* count sum p50 p99 max */

/* A key's count, then sum, p50, p99 and max as pc_fmt_value_word(). */
static void values(char v[NCOLS][PCORE_FMT_NS_LEN],
		   const struct pcore_ioc_read *r, const char *unit)
{
	const unsigned long long n[NCOLS] = { r->count, r->sum, r->p50,
					      r->p99, r->max };
	unsigned int c;

	snprintf(v[0], PCORE_FMT_NS_LEN, "%llu", n[0]);
	for (c = 1; c < NCOLS; c++)
		pc_fmt_value_word(v[c], PCORE_FMT_NS_LEN, n[c], unit);
}

/**
 * pc_fmt_keys_text() - one line per key, after a header line
 * @f: where to
 * @h: a keyed histogram, read with its keys
 * @o: the order and how many
 */
void pc_fmt_keys_text(FILE *f, const struct pc_hist *h,
		      const struct pc_keys_opts *o)
{
	static const char *const col[NCOLS] = { "count", "sum", "p50", "p99",
						"max" };
	char head[NCOLS][PCORE_UAPI_SHORT_MAX + 8], unit[PCORE_UAPI_SHORT_MAX];
	char key[PCORE_UAPI_SHORT_MAX + 2], label[PCORE_UAPI_LABEL_MAX];
	unsigned int n, i, c, ncols = counts_only(h) ? 1 : NCOLS;
	const struct pc_snap **k = sorted(h, o, &n);
	char v[NCOLS][PCORE_FMT_NS_LEN];
	int wk, wl = strlen("label"), w[NCOLS];
	bool plain;

	pc_fmt_word(unit, sizeof(unit), h->e.unit, sizeof(h->e.unit));
	/* times carry their unit in each value */
	plain = !strcmp(unit, "-") || !strcmp(unit, "value") ||
		!strcmp(unit, "ns");
	snprintf(key, sizeof(key), "# %s",
		 h->e.key_name[0] ? pc_fmt_word(label, sizeof(label),
						h->e.key_name,
						sizeof(h->e.key_name)) :
		 "key");
	wk = strlen(key);
	for (c = 0; c < ncols; c++) {
		snprintf(head[c], sizeof(head[c]), "%s%s%s", col[c],
			 c && !plain ? "_" : "", c && !plain ? unit : "");
		w[c] = strlen(head[c]);
	}
	for (i = 0; i < n; i++) {
		const struct pcore_ioc_read *r = &k[i]->r;
		int l = strlen(pc_fmt_word(label, sizeof(label), r->label,
					   sizeof(r->label)));

		wl = l > wl ? l : wl;
		l = width(r->key);
		wk = l > wk ? l : wk;
		values(v, r, unit);
		for (c = 0; c < ncols; c++) {
			l = strlen(v[c]);
			w[c] = l > w[c] ? l : w[c];
		}
	}
	fprintf(f, "%-*s %-*s", wk, key, wl, "label");
	for (c = 0; c < ncols; c++)
		fprintf(f, " %*s", w[c], head[c]);
	fputc('\n', f);
	for (i = 0; i < n; i++) {
		const struct pcore_ioc_read *r = &k[i]->r;

		values(v, r, unit);
		fprintf(f, "%*llu %-*s", wk, r->key, wl,
			pc_fmt_word(label, sizeof(label), r->label,
				    sizeof(r->label)));
		for (c = 0; c < ncols; c++)
			fprintf(f, " %*s", w[c], v[c]);
		fputc('\n', f);
	}
	free(k);
}

/**
 * pc_fmt_keys_json() - the keys as one JSON object on one line
 * @f: where to
 * @h: a keyed histogram, read with its keys
 * @o: the order and how many
 *
 * {"name", "key_name", "unit", "keys": [{"key", "label", "count", "sum",
 * "p50", "p99", "max"}...]}; a count histogram's keys have "count" only.
 */
void pc_fmt_keys_json(FILE *f, const struct pc_hist *h,
		      const struct pc_keys_opts *o)
{
	unsigned int n, i;
	const struct pc_snap **k = sorted(h, o, &n);

	fputs("{\"name\":", f);
	pc_fmt_json_str(f, h->e.name, sizeof(h->e.name));
	fputs(",\"key_name\":", f);
	pc_fmt_json_str(f, h->e.key_name, sizeof(h->e.key_name));
	fputs(",\"unit\":", f);
	pc_fmt_json_str(f, h->e.unit, sizeof(h->e.unit));
	fputs(",\"keys\":[", f);
	for (i = 0; i < n; i++) {
		const struct pcore_ioc_read *r = &k[i]->r;

		fprintf(f, "%s{\"key\":%llu,\"label\":", i ? "," : "", r->key);
		pc_fmt_json_str(f, r->label, sizeof(r->label));
		fprintf(f, ",\"count\":%llu", r->count);
		if (!counts_only(h))
			fprintf(f, ",\"sum\":%llu,\"p50\":%llu,\"p99\":%llu,\"max\":%llu",
				r->sum, r->p50, r->p99, r->max);
		fputc('}', f);
	}
	fputs("]}\n", f);
	free(k);
}
