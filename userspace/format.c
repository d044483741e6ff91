// SPDX-License-Identifier: GPL-2.0
/*
 * probectl's output: text, JSON, CSV and Prometheus, from the plain structs
 * of probectl.h.  No device access here.  The formats are documented in
 * probectl.8; scripts parse them, so change them only with care.
 *
 * JSON, CSV and Prometheus print numbers as exact decimal integers (u64),
 * except Prometheus values of histograms in ns, which are converted to
 * seconds as exact decimal fractions.  Text is for a person: times (unit
 * ns) are scaled to ns, us, ms or s (pcore_fmt_ns(), the rule the kernel's
 * hist file uses), other values exact.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "format.h"
#include "pcore_engine.h"

#define BAR_WIDTH	40
#define U64_MAX_VAL	(~0ULL)

/* The numbers of a read that every format shows, in this order. */
static const char *const stat_names[] = {
	"count", "sum", "min", "max", "mean", "p50", "p90", "p99", "p999",
};
#define NSTATS	ARRAY_SIZE(stat_names)

static unsigned long long mean(const struct pcore_ioc_read *r)
{
	return r->count ? r->sum / r->count : 0;
}

/* The numbers of stat_names, of @r. */
static void stats(const struct pcore_ioc_read *r, unsigned long long v[NSTATS])
{
	v[0] = r->count;
	v[1] = r->sum;
	v[2] = r->min;
	v[3] = r->max;
	v[4] = mean(r);
	v[5] = r->p50;
	v[6] = r->p90;
	v[7] = r->p99;
	v[8] = r->p999;
}

/* The numbers of @r as JSON members, @sep before the first, ',' between. */
static void stats_json(FILE *f, const struct pcore_ioc_read *r,
		       const char *sep)
{
	unsigned long long v[NSTATS];
	size_t i;

	stats(r, v);
	for (i = 0; i < NSTATS; i++)
		fprintf(f, "%s\"%s\":%llu", i ? "," : sep, stat_names[i], v[i]);
}

/*
 * A kernel string as one word of text: control and non-ASCII bytes as '?',
 * blanks as '_' when @word, "-" when empty.  @src is read up to @srclen
 * bytes even when not NUL-terminated.
 */
static const char *text(char *buf, size_t len, const char *src,
			size_t srclen, bool word)
{
	size_t i;

	for (i = 0; i < srclen && i + 1 < len && src[i]; i++) {
		unsigned char c = src[i];

		if (word && c == ' ')
			buf[i] = '_';
		else if (c < ' ' || c >= 0x7f)
			buf[i] = '?';
		else
			buf[i] = c;
	}
	buf[i] = '\0';
	return i ? buf : "-";
}

#define TEXT(buf, field) text(buf, sizeof(buf), field, sizeof(field), true)

/**
 * pc_fmt_word() - a kernel string as one word of text, as list and show
 *	print it
 * @buf: where to
 * @len: its size
 * @src: the string, read up to @srclen bytes even when not NUL-terminated
 * @srclen: its array's size
 *
 * Return: @buf, blanks '_', control and non-ASCII bytes '?'; "-" when empty.
 */
const char *pc_fmt_word(char *buf, size_t len, const char *src,
			size_t srclen)
{
	return text(buf, len, src, srclen, true);
}

/* A kernel string as a JSON string, with its quotes. */
void pc_fmt_json_str(FILE *f, const char *s, size_t srclen)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < srclen && s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < ' ' || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

#define JSON_STR(f, field) pc_fmt_json_str(f, field, sizeof(field))

/* A kernel string as a CSV field: quoted when it holds , " or a blank. */
static void csv_str(FILE *f, const char *s, size_t srclen)
{
	size_t i, n = strnlen(s, srclen);

	if (!strpbrk(s, ",\" ") && n == strlen(s)) {
		for (i = 0; i < n; i++)
			fputc((unsigned char)s[i] < ' ' ||
			      (unsigned char)s[i] >= 0x7f ? '?' : s[i], f);
		return;
	}
	fputc('"', f);
	for (i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (c == '"')
			fputs("\"\"", f);
		else
			fputc(c < ' ' || c >= 0x7f ? '?' : c, f);
	}
	fputc('"', f);
}

/* A kernel string as a Prometheus label value, without quotes. */
static void prom_str(FILE *f, const char *s, size_t srclen)
{
	size_t i;

	for (i = 0; i < srclen && s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else
			fputc(c < ' ' || c >= 0x7f ? '_' : c, f);
	}
}

static void flags_text(char *buf, size_t len, unsigned int flags)
{
	static const struct {
		unsigned int bit;
		const char *name;
	} names[] = {
		{ PCORE_ENT_OWN, "own" },
		{ PCORE_ENT_DISABLED, "disabled" },
		{ PCORE_ENT_WAITING, "waiting" },
		{ PCORE_ENT_GONE, "gone" },
		{ PCORE_ENT_STACKS, "stacks" },
	};
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (flags & names[i].bit)
			used += snprintf(buf + used, len - used, "%s%s",
					 used ? "," : "", names[i].name);
	if (!used)
		snprintf(buf, len, "-");
}

static void flags_json(FILE *f, unsigned int flags)
{
	char buf[64], *p, *comma;

	flags_text(buf, sizeof(buf), flags);
	fputc('[', f);
	if (strcmp(buf, "-")) {
		for (p = buf; p; p = comma ? comma + 1 : NULL) {
			comma = strchr(p, ',');
			if (comma)
				*comma = '\0';
			fprintf(f, "%s\"%s\"", p == buf ? "" : ",", p);
		}
	}
	fputc(']', f);
}

/* ---- list ---- */

/**
 * pc_fmt_list_text() - one line per histogram, columns aligned
 * @f: where to
 * @e: entries
 * @n: how many
 *
 * "# name kind symbol hits missed count flags probe", then one line each;
 * an empty field is "-", flags are own, disabled, waiting and gone,
 * comma-separated; probe is what detach, enable and disable take (a
 * glob's, "vfs_*", on each of its histograms), "-" for a handler
 * module's histogram.
 */
void pc_fmt_list_text(FILE *f, const struct pcore_ioc_entry *e,
		      unsigned int n)
{
	char name[PCORE_UAPI_NAME_MAX], kind[PCORE_UAPI_SHORT_MAX];
	char sym[PCORE_UAPI_SYMBOL_MAX], flags[64], probe[PCORE_UAPI_NAME_MAX];
	int wn = strlen("# name"), wk = strlen("kind"), ws = strlen("symbol");
	int wf = strlen("flags");
	unsigned int i;
	int l;

	for (i = 0; i < n; i++) {
		l = strlen(TEXT(name, e[i].name));
		wn = l > wn ? l : wn;
		l = strlen(TEXT(kind, e[i].probe_kind));
		wk = l > wk ? l : wk;
		l = strlen(TEXT(sym, e[i].symbol));
		ws = l > ws ? l : ws;
		flags_text(flags, sizeof(flags), e[i].flags);
		l = strlen(flags);
		wf = l > wf ? l : wf;
	}
	fprintf(f, "%-*s %-*s %-*s %12s %12s %12s %-*s %s\n", wn, "# name", wk,
		"kind", ws, "symbol", "hits", "missed", "count", wf, "flags",
		"probe");
	for (i = 0; i < n; i++) {
		flags_text(flags, sizeof(flags), e[i].flags);
		fprintf(f, "%-*s %-*s %-*s %12llu %12llu %12llu %-*s %s\n",
			wn, TEXT(name, e[i].name), wk,
			TEXT(kind, e[i].probe_kind), ws, TEXT(sym, e[i].symbol),
			e[i].hits, e[i].missed, e[i].count, wf, flags,
			TEXT(probe, e[i].probe));
	}
}

/* An entry's strings, as entry_json() shows them: member name and place. */
#define ENTRY_STR(m) { #m, offsetof(struct pcore_ioc_entry, m), \
		       sizeof(((struct pcore_ioc_entry *)0)->m) }
static const struct {
	const char *key;
	size_t off, len;
} entry_strs[] = {
	ENTRY_STR(name), ENTRY_STR(probe_kind), ENTRY_STR(symbol),
	ENTRY_STR(unit), ENTRY_STR(hist_kind), ENTRY_STR(key_name),
};

static void entry_json(FILE *f, const struct pcore_ioc_entry *e)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(entry_strs); i++) {
		fprintf(f, "%s\"%s\":", i ? "," : "", entry_strs[i].key);
		pc_fmt_json_str(f, (const char *)e + entry_strs[i].off,
				entry_strs[i].len);
	}
	fputs(",\"flags\":", f);
	flags_json(f, e->flags);
	fprintf(f, ",\"hits\":%llu,\"missed\":%llu,\"count\":%llu,\"nbuckets\":%u,\"nkeys\":%u,\"mem_kib\":%u",
		e->hits, e->missed, e->count, e->nbuckets, e->nkeys,
		e->mem_kib);
}

/**
 * pc_fmt_list_json() - a JSON array of entries, one per line
 * @f: where to
 * @e: entries
 * @n: how many
 */
void pc_fmt_list_json(FILE *f, const struct pcore_ioc_entry *e,
		      unsigned int n)
{
	unsigned int i;

	fputc('[', f);
	for (i = 0; i < n; i++) {
		fputs(i ? ",\n{" : "\n{", f);
		entry_json(f, &e[i]);
		/* what detach takes; "" for a handler module's */
		fputs(",\"probe\":", f);
		JSON_STR(f, e[i].probe);
		fputc('}', f);
	}
	fputs("\n]\n", f);
}

/* ---- show: text ---- */

/**
 * pc_fmt_bound() - a bucket bound as the hist file prints it
 * @buf: output
 * @len: size of @buf
 * @lo: lower bounds of the buckets
 * @hi: upper bounds (~0: none)
 * @nbuckets: how many
 * @idx: the bucket whose bound it is
 * @upper: its upper bound, else its lower one
 * @unit: the histogram's unit (already cleaned)
 *
 * "inf"; a time for a person when @unit is ns ("940 ms", "1.07 s": to a
 * tenth of the narrower bucket it bounds, pcore_bound_res(), the kernel's
 * rule, so that no two bounds print the same); else the exact number and
 * the unit ("4096bytes").
 */
void pc_fmt_bound(char *buf, size_t len, const unsigned long long *lo,
		  const unsigned long long *hi, unsigned int nbuckets,
		  unsigned int idx, bool upper, const char *unit)
{
	unsigned long long v = upper ? hi[idx] : lo[idx], wb, wa;
	unsigned int b = upper ? idx : idx - 1, a = upper ? idx + 1 : idx;

	if (v == U64_MAX_VAL) {
		snprintf(buf, len, "inf");
		return;
	}
	if (strcmp(unit, "ns")) {
		snprintf(buf, len, "%llu%s", v, unit);
		return;
	}
	wb = (upper || idx) && b < nbuckets ? hi[b] - lo[b] : 0;
	wa = a < nbuckets ? hi[a] - lo[a] : 0;
	pcore_fmt_ns(buf, len, v, pcore_bound_res(wb, wa));
}

/**
 * pc_fmt_value() - a value of a histogram as its text shows it
 * @buf: output
 * @len: size of @buf (PCORE_FMT_NS_LEN is enough)
 * @v: the value
 * @unit: the histogram's unit: ns gives a time for a person, to four
 *	significant digits ("4.608 us", "1.074 s"); any other the number
 */
void pc_fmt_value(char *buf, size_t len, unsigned long long v,
		  const char *unit)
{
	if (strcmp(unit, "ns"))
		snprintf(buf, len, "%llu", v);
	else
		pcore_fmt_ns(buf, len, v, pcore_value_res(v));
}

/**
 * pc_fmt_value_word() - pc_fmt_value() as one word, without its blank
 * @buf: output
 * @len: size of @buf (PCORE_FMT_NS_LEN is enough)
 * @v: the value
 * @unit: the histogram's unit
 *
 * For columns and key=value lines: "4.608us", or the number.
 */
void pc_fmt_value_word(char *buf, size_t len, unsigned long long v,
		       const char *unit)
{
	char *sp;

	pc_fmt_value(buf, len, v, unit);
	sp = strchr(buf, ' ');
	if (sp)
		memmove(sp, sp + 1, strlen(sp));
}

/**
 * pc_hist_schema() - the schema of an exp histogram, from its entry
 * @e: entry; its hist_kind is "exp:S" for the exp kind
 *
 * With pcore_exp_native() (pcore_engine.h), a bucket's position gives its
 * native histogram's (schema, index): an exporter needs no rebinning.
 *
 * Return: the schema, 0 to PCORE_EXP_MAX_SCHEMA, or -1 when @e is not an
 * exp histogram.
 */
int pc_hist_schema(const struct pcore_ioc_entry *e)
{
	const char *k = e->hist_kind;

	if (strncmp(k, "exp:", 4) || k[4] < '0' ||
	    k[4] > '0' + PCORE_EXP_MAX_SCHEMA || k[5])
		return -1;
	return k[4] - '0';
}

/**
 * pc_hist_kind() - the engine's kind of a histogram, from its entry
 * @e: entry
 *
 * Return: PCORE_HIST_LOG2, _LINEAR, _LOGLINEAR, _COUNT or _EXP ("exp:S");
 * 0 for a name this probectl does not know (its buckets are then merged
 * as log2's).
 */
unsigned int pc_hist_kind(const struct pcore_ioc_entry *e)
{
	static const unsigned int kinds[] = { PCORE_HIST_LOG2,
		PCORE_HIST_LINEAR, PCORE_HIST_LOGLINEAR, PCORE_HIST_COUNT };
	size_t i;

	if (pc_hist_schema(e) >= 0)
		return PCORE_HIST_EXP;

	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		if (!strncmp(e->hist_kind, pcore_kind_name(kinds[i]),
			     sizeof(e->hist_kind)))
			return kinds[i];
	return 0;
}

/**
 * pc_rows_of() - the rows a histogram's text shows
 * @s: snapshot
 * @kind: pc_hist_kind() of its histogram
 * @max_rows: at most this many rows, 0 for one per bucket
 * @r: the plan (pcore_rows_plan()), for pcore_row_of()
 * @first: set to the first non-empty bucket
 * @last: set to the last non-empty bucket
 *
 * Return: the number of rows, 0 for an empty snapshot.
 */
unsigned int pc_rows_of(const struct pc_snap *s, unsigned int kind,
			unsigned int max_rows, struct pcore_rows *r,
			unsigned int *first, unsigned int *last)
{
	unsigned int i;

	*first = s->r.nbuckets;
	*last = 0;
	for (i = 0; i < s->r.nbuckets; i++) {
		if (!s->b[i].count)
			continue;
		if (*first == s->r.nbuckets)
			*first = i;
		*last = i;
	}
	if (*first == s->r.nbuckets)
		return 0;
	return pcore_rows_plan(r, kind, s->r.nbuckets, *first, *last,
			       max_rows);
}

/* The count of the buckets @start to @end. */
static unsigned long long row_count(const struct pc_snap *s,
				    unsigned int start, unsigned int end)
{
	unsigned long long c = 0;

	for (; start <= end; start++)
		c += s->b[start].count;
	return c;
}

/**
 * pc_fmt_hist_text() - buckets as the debugfs hist file prints them
 * @f: where to
 * @s: snapshot
 * @unit: appended to the bounds (already cleaned)
 * @indent: before each line
 * @kind: pc_hist_kind() of the histogram
 * @full: one row per bucket, as hist_full (else merged as hist)
 *
 * From the first non-empty bucket to the last: "[lo, hi) count |@@@|",
 * the bar scaled to the fullest row and at least one '@' when not empty;
 * "(empty)" for an empty histogram.  Unless @full, adjacent buckets are
 * merged into at most PCORE_HIST_ROWS rows, as the kernel's hist file
 * merges them (pcore_rows_plan()).
 */
void pc_fmt_hist_text(FILE *f, const struct pc_snap *s, const char *unit,
		      const char *indent, unsigned int kind, bool full)
{
	char lo[48], hi[48], range[100], bar[BAR_WIDTH + 1];
	unsigned int i, first, last, start, end, n;
	unsigned long long top = 0, c, *blo, *bhi;
	struct pcore_rows r;

	if (!pc_rows_of(s, kind, full ? 0 : PCORE_HIST_ROWS, &r, &first,
			&last)) {
		fprintf(f, "%s(empty)\n", indent);
		return;
	}
	/* A count histogram has one bucket of no range: its count says it. */
	if (kind == PCORE_HIST_COUNT)
		return;
	blo = malloc(2 * s->r.nbuckets * sizeof(*blo));
	if (!blo)
		return;
	bhi = blo + s->r.nbuckets;
	for (i = 0; i < s->r.nbuckets; i++) {
		blo[i] = s->b[i].lo;
		bhi[i] = s->b[i].hi;
	}
	for (i = first; i <= last; i = end + 1) {
		pcore_row_of(&r, i, &start, &end);
		c = row_count(s, start, end);
		top = c > top ? c : top;
	}
	for (i = first; i <= last; i = end + 1) {
		pcore_row_of(&r, i, &start, &end);
		c = row_count(s, start, end);
		pc_fmt_bound(lo, sizeof(lo), blo, bhi, s->r.nbuckets, start,
			     false, unit);
		pc_fmt_bound(hi, sizeof(hi), blo, bhi, s->r.nbuckets, end,
			     true, unit);
		snprintf(range, sizeof(range), "[%s, %s)", lo, hi);
		n = ((__uint128_t)c * BAR_WIDTH + top - 1) / top;
		memset(bar, '@', n);
		bar[n] = '\0';
		fprintf(f, "%s%-36s %12llu |%-*s|\n", indent, range, c,
			BAR_WIDTH, bar);
	}
	free(blo);
}

/*
 * count ... p999 of one read, as 'key: value' lines, times scaled
 * (pc_fmt_value()); of a count histogram, which keeps no values, the count
 * alone.
 */
static void values_text(FILE *f, const struct pcore_ioc_read *r,
			const char *unit, unsigned int kind)
{
	unsigned long long v[NSTATS];
	char buf[PCORE_FMT_NS_LEN];
	size_t i;

	stats(r, v);
	fprintf(f, "%s: %llu\n", stat_names[0], v[0]);
	for (i = 1; kind != PCORE_HIST_COUNT && i < NSTATS; i++) {
		pc_fmt_value(buf, sizeof(buf), v[i], unit);
		fprintf(f, "%s: %s\n", stat_names[i], buf);
	}
}

/* "<key name> <key> <label>" of a key slot's read */
static void key_title(FILE *f, const struct pcore_ioc_entry *e,
		      const struct pcore_ioc_read *r)
{
	char kn[PCORE_UAPI_SHORT_MAX], label[PCORE_UAPI_LABEL_MAX];

	fprintf(f, "%s %llu %s", e->key_name[0] ? TEXT(kn, e->key_name) :
		"key", r->key, TEXT(label, r->label));
}

static const char *unit_of(char *buf, size_t len, const struct pc_hist *h)
{
	if (!h->e.unit[0])
		return "";
	return text(buf, len, h->e.unit, sizeof(h->e.unit), true);
}

static bool is_keyed(const struct pc_hist *h)
{
	return h->e.key_name[0] || h->e.nkeys > 1;
}

/* A section: title line, values, histogram. */
static void section_text(FILE *f, const struct pc_hist *h,
			 const struct pc_snap *s, int cpu, bool key, bool full)
{
	char unit[PCORE_UAPI_SHORT_MAX];

	fputc('\n', f);
	if (cpu >= 0)
		fprintf(f, "cpu %d%s", cpu, key ? " " : "");
	if (key)
		key_title(f, &h->e, &s->r);
	fputs(":\n", f);
	values_text(f, &s->r, unit_of(unit, sizeof(unit), h),
		    pc_hist_kind(&h->e));
	pc_fmt_hist_text(f, s, unit_of(unit, sizeof(unit), h), "",
			 pc_hist_kind(&h->e), full);
}

/**
 * pc_fmt_show_text() - a histogram as 'key: value' lines and buckets
 * @f: where to
 * @h: histogram
 * @full: every bucket a row (else merged: pc_fmt_hist_text())
 *
 * The header (name, probe, unit, kind, flags, hits, memory), the merged values
 * (count, sum, min, max, mean, p50, p90, p99, p999), percentile_error and
 * missed (keyed: keys and dropped), then the merged histogram.  Then a
 * section per key in use, titled "<key name> <key> <label>:", and with
 * per-CPU views a section per CPU ("cpu N:") followed by that CPU's keys
 * with values ("cpu N <key name> <key> <label>:").  Sections are separated
 * by blank lines.
 */
void pc_fmt_show_text(FILE *f, const struct pc_hist *h, bool full)
{
	char buf[PCORE_UAPI_SYMBOL_MAX], unit[PCORE_UAPI_SHORT_MAX];
	const struct pcore_ioc_read *r = &h->total.r;
	unsigned int i, k, kind = pc_hist_kind(&h->e);
	bool keyed = is_keyed(h);

	unit_of(unit, sizeof(unit), h);
	fprintf(f, "name: %s\n", TEXT(buf, h->e.name));
	fprintf(f, "probe: %s", TEXT(buf, h->e.probe_kind));
	fprintf(f, " %s\n", TEXT(buf, h->e.symbol));
	fprintf(f, "unit: %s\n", TEXT(buf, h->e.unit));
	fprintf(f, "kind: %s\n", TEXT(buf, h->e.hist_kind));
	flags_text(buf, sizeof(buf), h->e.flags);
	fprintf(f, "flags: %s\n", buf);
	fprintf(f, "hits: %llu\n", h->e.hits);
	fprintf(f, "memory: %u KiB\n", h->e.mem_kib);
	values_text(f, r, unit, kind);
	if (kind == PCORE_HIST_COUNT)
		;	/* no percentiles, no error */
	else if (r->error_ppm)
		fprintf(f, "percentile_error: %u.%04u%%\n", r->error_ppm / 10000,
			r->error_ppm % 10000);
	else if (!strcmp(unit, "ns"))
		fprintf(f, "percentile_error: %s\n",
			(pc_fmt_value(buf, sizeof(buf), r->error_abs, unit), buf));
	else
		fprintf(f, "percentile_error: %llu%s\n", r->error_abs, unit);
	fprintf(f, "missed: %llu\n", r->missed);
	if (keyed)
		fprintf(f, "keys: %u\ndropped: %llu\n", h->nkeys, r->dropped);
	pc_fmt_hist_text(f, &h->total, unit, "", kind, full);
	/* A stack's section is its block, which pc_fmt_stacks_text() prints. */
	if (pc_is_stacks(&h->e))
		return;
	for (k = 0; k < h->nkeys; k++)
		section_text(f, h, &h->keys[k], -1, true, full);
	for (i = 0; h->percpu && i < h->ncpus; i++) {
		section_text(f, h, &h->cpus[i].s, h->cpus[i].s.r.cpu, false,
			     full);
		for (k = 0; k < h->cpus[i].nkeys; k++)
			if (h->cpus[i].keys[k].r.count)
				section_text(f, h, &h->cpus[i].keys[k],
					     h->cpus[i].s.r.cpu, true, full);
	}
}

/* ---- show: JSON ---- */

static void buckets_json(FILE *f, const struct pc_snap *s)
{
	unsigned int i;
	bool first = true;

	fputs("\"buckets\":[", f);
	for (i = 0; i < s->r.nbuckets; i++) {
		if (!s->b[i].count)
			continue;
		fprintf(f, "%s{\"lo\":%llu,\"hi\":", first ? "" : ",",
			s->b[i].lo);
		if (s->b[i].hi == U64_MAX_VAL)
			fputs("null", f);
		else
			fprintf(f, "%llu", s->b[i].hi);
		fprintf(f, ",\"count\":%llu}", s->b[i].count);
		first = false;
	}
	fputc(']', f);
}

static void values_json(FILE *f, const struct pc_snap *s)
{
	stats_json(f, &s->r, "");
	fputc(',', f);
	buckets_json(f, s);
}

static void keys_json(FILE *f, const struct pc_snap *keys, unsigned int n)
{
	unsigned int k;

	fputs("\"keys\":[", f);
	for (k = 0; k < n; k++) {
		fprintf(f, "%s{\"slot\":%u,\"key\":%llu,\"label\":",
			k ? "," : "", keys[k].r.slot, keys[k].r.key);
		JSON_STR(f, keys[k].r.label);
		fputc(',', f);
		values_json(f, &keys[k]);
		fputc('}', f);
	}
	fputc(']', f);
}

/**
 * pc_fmt_show_json() - a histogram as one JSON object on one line
 * @f: where to
 * @h: histogram
 *
 * The entry's fields (as list --json), error_ppm, error_abs, dropped,
 * then "total", "keys" (every key slot in use, [] when not keyed) and with
 * per-CPU views "cpus" (every CPU, each with its "keys").  A values object holds count,
 * sum, min, max, mean, p50, p90, p99, p999 and the non-empty buckets as
 * {"lo", "hi", "count"}, hi null for a bucket without an upper end.
 */
void pc_fmt_show_json(FILE *f, const struct pc_hist *h)
{
	const struct pcore_ioc_read *r = &h->total.r;
	unsigned int i;

	fputc('{', f);
	entry_json(f, &h->e);
	fprintf(f, ",\"error_ppm\":%u,\"error_abs\":%llu,\"dropped\":%llu,\"total\":{",
		r->error_ppm, r->error_abs, r->dropped);
	values_json(f, &h->total);
	fputs("},", f);
	keys_json(f, h->keys, h->nkeys);
	if (h->percpu) {
		fputs(",\"cpus\":[", f);
		for (i = 0; i < h->ncpus; i++) {
			fprintf(f, "%s{\"cpu\":%d,", i ? "," : "",
				h->cpus[i].s.r.cpu);
			values_json(f, &h->cpus[i].s);
			fputc(',', f);
			keys_json(f, h->cpus[i].keys, h->cpus[i].nkeys);
			fputc('}', f);
		}
		fputc(']', f);
	}
	fputs("}\n", f);
}

/* ---- show: CSV ---- */

static void rows_csv(FILE *f, const struct pc_snap *s, int cpu, bool key)
{
	const struct pcore_ioc_read *r = &s->r;
	char where[64];
	unsigned long long v[NSTATS];
	unsigned int i;
	int n;

	n = cpu >= 0 ? snprintf(where, sizeof(where), "%d,", cpu) :
		snprintf(where, sizeof(where), ",");
	if (key)
		snprintf(where + n, sizeof(where) - n, "%llu,", r->key);
	else
		snprintf(where + n, sizeof(where) - n, ",");
	stats(r, v);
	fprintf(f, "stats,%s", where);
	csv_str(f, r->label, sizeof(r->label));
	fputs(",,", f);
	for (i = 0; i < NSTATS; i++)
		fprintf(f, ",%llu", v[i]);
	fprintf(f, ",%llu,%llu\n", r->missed, r->dropped);
	for (i = 0; i < r->nbuckets; i++) {
		if (!s->b[i].count)
			continue;
		fprintf(f, "bucket,%s", where);
		csv_str(f, r->label, sizeof(r->label));
		fprintf(f, ",%llu,", s->b[i].lo);
		if (s->b[i].hi == U64_MAX_VAL)
			fputs("inf", f);
		else
			fprintf(f, "%llu", s->b[i].hi);
		fprintf(f, ",%llu,,,,,,,,,,\n", s->b[i].count);
	}
}

/**
 * pc_fmt_show_csv() - a histogram as CSV rows under one header
 * @f: where to
 * @h: histogram
 *
 * Columns: row,cpu,key,label,lo,hi,count,sum,min,max,mean,p50,p90,p99,
 * p999,missed,dropped.  A "stats" row per view (the merged one first, then
 * each key, then each CPU and its keys), followed by a "bucket" row per
 * non-empty bucket of that view (lo, hi, count; hi "inf" without an upper
 * end).  cpu and key are empty for the merged view.
 */
void pc_fmt_show_csv(FILE *f, const struct pc_hist *h)
{
	unsigned int i, k;

	fputs("row,cpu,key,label,lo,hi,count,sum,min,max,mean,p50,p90,p99,p999,missed,dropped\n",
	      f);
	rows_csv(f, &h->total, -1, false);
	for (k = 0; k < h->nkeys; k++)
		rows_csv(f, &h->keys[k], -1, true);
	for (i = 0; h->percpu && i < h->ncpus; i++) {
		rows_csv(f, &h->cpus[i].s, h->cpus[i].s.r.cpu, false);
		for (k = 0; k < h->cpus[i].nkeys; k++)
			rows_csv(f, &h->cpus[i].keys[k], h->cpus[i].s.r.cpu,
				 true);
	}
}

/* ---- watch ---- */

static void time_utc(char *buf, size_t len, const struct timespec *t)
{
	struct tm tm;
	size_t n;

	if (!gmtime_r(&t->tv_sec, &tm)) {
		snprintf(buf, len, "?");
		return;
	}
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%03ldZ", t->tv_nsec / 1000000);
}

/**
 * pc_fmt_watch_text() - one interval as one line
 * @f: where to
 * @e: the histogram's entry
 * @s: what the snapshot-and-reset moved out
 * @t: time, interval and missed events
 * @hist: add the histogram, indented by two blanks
 *
 * "<UTC time> count=N mean=T p50=T p90=T p99=T max=T missed=N", a T as
 * pc_fmt_value() prints it, without its blank ("4.608us"); of a count
 * histogram "<UTC time> count=N missed=N".
 */
void pc_fmt_watch_text(FILE *f, const struct pcore_ioc_entry *e,
		       const struct pc_snap *s, const struct pc_tick *t,
		       bool hist)
{
	char when[64], unit[PCORE_UAPI_SHORT_MAX], v[PCORE_FMT_NS_LEN];
	const struct pcore_ioc_read *r = &s->r;
	const unsigned long long vals[] = { mean(r), r->p50, r->p90, r->p99,
					    r->max };
	static const char *const names[] = { "mean", "p50", "p90", "p99",
					     "max" };
	unsigned int kind = pc_hist_kind(e);
	size_t i;

	if (e->unit[0])
		TEXT(unit, e->unit);
	else
		unit[0] = '\0';
	time_utc(when, sizeof(when), &t->now);
	fprintf(f, "%s count=%llu", when, r->count);
	/* a time as one word, "4.608us"; a count histogram has no values */
	for (i = 0; kind != PCORE_HIST_COUNT && i < ARRAY_SIZE(vals); i++) {
		pc_fmt_value_word(v, sizeof(v), vals[i], unit);
		fprintf(f, " %s=%s", names[i], v);
	}
	fprintf(f, " missed=%llu\n", t->missed);
	if (hist)
		pc_fmt_hist_text(f, s, unit, "  ", kind, false);
}

/**
 * pc_fmt_watch_json() - one interval as one JSON object on one line
 * @f: where to
 * @e: the histogram's entry
 * @s: what the snapshot-and-reset moved out
 * @t: time, interval and missed events
 * @hist: add "buckets"
 */
void pc_fmt_watch_json(FILE *f, const struct pcore_ioc_entry *e,
		       const struct pc_snap *s, const struct pc_tick *t,
		       bool hist)
{
	char when[64];
	const struct pcore_ioc_read *r = &s->r;

	time_utc(when, sizeof(when), &t->now);
	fprintf(f, "{\"time\":\"%s\",\"name\":", when);
	JSON_STR(f, e->name);
	fprintf(f, ",\"interval_ns\":%llu", t->interval_ns);
	stats_json(f, r, ",");
	fprintf(f, ",\"missed\":%llu", t->missed);
	if (hist) {
		fputc(',', f);
		buckets_json(f, s);
	}
	fputs("}\n", f);
}

/* ---- Prometheus ---- */

/**
 * pc_fmt_ns_seconds() - ns as an exact decimal number of seconds
 * @buf: output, e.g. "0.000001023" or "1.5" or "0"
 * @len: size of @buf (32 is enough)
 * @ns: nanoseconds
 */
void pc_fmt_ns_seconds(char *buf, size_t len, unsigned long long ns)
{
	int n = snprintf(buf, len, "%llu.%09llu", ns / 1000000000ULL,
			 ns % 1000000000ULL);

	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = '\0';
}

/**
 * pc_fmt_metric_name() - the metric family of a unit
 * @buf: output
 * @len: size of @buf
 * @unit: "ns" gives probe_core_latency_seconds; another unit
 *	probe_core_value_<unit> (characters outside [A-Za-z0-9_] as '_');
 *	none probe_core_value
 */
void pc_fmt_metric_name(char *buf, size_t len, const char *unit)
{
	size_t n, i;

	if (!strcmp(unit, "ns")) {
		snprintf(buf, len, "probe_core_latency_seconds");
		return;
	}
	n = snprintf(buf, len, "probe_core_value%s", unit[0] ? "_" : "");
	for (i = 0; unit[i] && i < PCORE_UAPI_SHORT_MAX && n + 1 < len; i++) {
		char c = unit[i];

		buf[n++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			   (c >= '0' && c <= '9') ? c : '_';
	}
	buf[n] = '\0';
}

/* A value in the metric's base unit: seconds for ns, else as is. */
static void prom_value(char *buf, size_t len, unsigned long long v,
		       bool seconds)
{
	if (seconds)
		pc_fmt_ns_seconds(buf, len, v);
	else
		snprintf(buf, len, "%llu", v);
}

static bool is_pow2(unsigned long long x)
{
	return x && !(x & (x - 1));
}

/**
 * pc_fmt_prom_label_name() - the Prometheus label a key's label goes in
 * @h: a keyed histogram
 *
 * "cgroup" for a histogram keyed by cgroup (attach --by-cgroup, key name
 * "cgroup": the label is the cgroup's path, "(removed)" when it is gone,
 * and key="<id>" tells apart two cgroups made at one path), "label" for
 * the others.  One place for every exporter (textfile, remote write).
 *
 * Return: the label's name.
 */
const char *pc_fmt_prom_label_name(const struct pc_hist *h)
{
	return strcmp(h->e.key_name, "cgroup") ? "label" : "cgroup";
}

/* {probe="...",key="...",label="...",cpu="N" without the closing brace */
static void prom_labels(FILE *f, const struct pc_hist *h,
			const struct pc_snap *s, int cpu, bool key)
{
	fputs("{probe=\"", f);
	prom_str(f, h->e.name, sizeof(h->e.name));
	fputc('"', f);
	if (key) {
		fprintf(f, ",key=\"%llu\"", s->r.key);
		if (s->r.label[0]) {
			fprintf(f, ",%s=\"", pc_fmt_prom_label_name(h));
			prom_str(f, s->r.label, sizeof(s->r.label));
			fputc('"', f);
		}
	}
	if (cpu >= 0)
		fprintf(f, ",cpu=\"%d\"", cpu);
}

/*
 * One series.  A bucket [lo, hi) of integer values holds exactly the
 * values <= hi - 1, so "le" is hi - 1: the cumulative counts are exact.
 * Loglinear histograms get an "le" only where a bucket ends at a power of
 * two (their bucket bounds include every power of two in their range), exp
 * ones where a bucket's last value is 0 or a power of two (their native
 * buckets end at every power of two, upper bound included; buckets that
 * hold no integer give none), the other kinds at every bucket's end; the
 * boundaries depend only on the
 * histogram's layout, so they are the same at every scrape.  A bucket
 * without an upper end goes into "+Inf" only.  _count is the sum of the
 * buckets, as the engine defines a histogram's count.
 */
static void prom_series(FILE *f, const char *metric, const struct pc_hist *h,
			const struct pc_snap *s, int cpu, bool key)
{
	bool seconds = !strcmp(h->e.unit, "ns");
	bool loglin = !strcmp(h->e.hist_kind, "loglinear");
	bool exp = pc_hist_kind(&h->e) == PCORE_HIST_EXP;
	unsigned long long cum = 0;
	char v[32];
	unsigned int i;

	for (i = 0; i < s->r.nbuckets; i++) {
		cum += s->b[i].count;
		if (s->b[i].hi == U64_MAX_VAL || !s->b[i].hi)
			continue;
		if (loglin && !is_pow2(s->b[i].hi))
			continue;
		if (exp && (s->b[i].lo == s->b[i].hi ||
			    (s->b[i].hi > 1 && !is_pow2(s->b[i].hi - 1))))
			continue;
		prom_value(v, sizeof(v), s->b[i].hi - 1, seconds);
		fprintf(f, "%s_bucket", metric);
		prom_labels(f, h, s, cpu, key);
		fprintf(f, ",le=\"%s\"} %llu\n", v, cum);
	}
	fprintf(f, "%s_bucket", metric);
	prom_labels(f, h, s, cpu, key);
	fprintf(f, ",le=\"+Inf\"} %llu\n", cum);
	prom_value(v, sizeof(v), s->r.sum, seconds);
	fprintf(f, "%s_sum", metric);
	prom_labels(f, h, s, cpu, key);
	fprintf(f, "} %s\n", v);
	fprintf(f, "%s_count", metric);
	prom_labels(f, h, s, cpu, key);
	fprintf(f, "} %llu\n", cum);
}

/*
 * Every series of one histogram: since its creation (export's default),
 * or per CPU (and key) since the last interval read or reset.
 */
static void prom_hist(FILE *f, const char *metric, const struct pc_hist *h)
{
	unsigned int i, k;

	if (h->cg_totals) {
		/* per cgroup only: see pc_fmt_prom() */
		for (k = 0; k < h->nkeys; k++)
			prom_series(f, metric, h, &h->keys[k], -1, true);
	} else if (h->since_created) {
		prom_series(f, metric, h, &h->total, -1, false);
	} else if (h->percpu) {
		for (i = 0; i < h->ncpus; i++) {
			if (!is_keyed(h))
				prom_series(f, metric, h, &h->cpus[i].s,
					    h->cpus[i].s.r.cpu, false);
			for (k = 0; k < h->cpus[i].nkeys; k++)
				prom_series(f, metric, h, &h->cpus[i].keys[k],
					    h->cpus[i].s.r.cpu, true);
		}
	} else if (is_keyed(h)) {
		for (k = 0; k < h->nkeys; k++)
			prom_series(f, metric, h, &h->keys[k], -1, true);
	} else {
		prom_series(f, metric, h, &h->total, -1, false);
	}
}

/*
 * A family of one value per histogram that has it: @which 0 hits, 1
 * missed, 2 dropped (counters), 3 the creation time (a gauge), 4 the
 * values in no cgroup's total (a counter, of histograms with @cg_totals).
 */
static void prom_counter(FILE *f, const struct pc_hist *h, unsigned int n,
			 const char *name, const char *help, int which)
{
	unsigned int i;
	bool any = false;
	char v[32];

	for (i = 0; i < n; i++) {
		bool has = which == 3 ? true : which == 2 ? is_keyed(&h[i]) :
			   which == 4 ? h[i].cg_totals :
			   !!(h[i].e.flags & PCORE_ENT_HAS_PROBE);

		if (!has)
			continue;
		if (!any)
			fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name,
				help, name, which == 3 ? "gauge" : "counter");
		any = true;
		if (which == 3)
			pc_fmt_ns_seconds(v, sizeof(v), h[i].total.r.created_ns);
		else
			snprintf(v, sizeof(v), "%llu", which == 0 ? h[i].e.hits :
				 which == 1 ? h[i].e.missed :
				 which == 2 ? h[i].total.r.dropped :
				 h[i].total.r.lost);
		fprintf(f, "%s{probe=\"", name);
		prom_str(f, h[i].e.name, sizeof(h[i].e.name));
		fprintf(f, "\"} %s\n", v);
	}
}

/**
 * pc_fmt_prom() - histograms in Prometheus' text exposition format
 * @f: where to
 * @h: histograms: all since their creation (pc_dev_hist_total(), one
 *	series each), or all with per-CPU views (one series per CPU, cpu="N",
 *	and for keyed histograms per key and CPU)
 * @n: how many
 *
 * One histogram family per unit (see pc_fmt_metric_name()), its series
 * labelled probe="<name>"; a per-key series with key="<key>" and
 * label="<label>" when it has one (cgroup="<path>" for a histogram keyed
 * by cgroup: pc_fmt_prom_label_name()).  Then the counters
 * probe_core_probe_hits_total and probe_core_probe_missed_total for
 * histograms fed by a probe, probe_core_dropped_total for keyed ones, and
 * the gauge probe_core_created_timestamp_seconds of every histogram.
 *
 * Since creation, a histogram keyed by cgroup (@cg_totals) is one series
 * per cgroup that is there, key="<id>",cgroup="<path>", and no merged
 * series: with it, sum by (cgroup) would have a cgroup="" group of every
 * value and sum() would count each value twice.  The values of a
 * cgroup's series end with it (removed: rmdir); those of cgroups that
 * found no room (cgroup_keys=) are counted in
 * probe_core_cgroup_lost_total.
 */
void pc_fmt_prom(FILE *f, const struct pc_hist *h, unsigned int n)
{
	const char *since = n && h[0].since_created ?
		"since the histogram was created" :
		"per CPU since the last interval read or reset";
	char metric[64], other[64];
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		pc_fmt_metric_name(metric, sizeof(metric), h[i].e.unit);
		for (j = 0; j < i; j++) {
			pc_fmt_metric_name(other, sizeof(other), h[j].e.unit);
			if (!strcmp(metric, other))
				break;
		}
		if (j < i)
			continue;	/* family already printed */
		if (!strcmp(h[i].e.unit, "ns"))
			fprintf(f, "# HELP %s probe_core histograms of values in ns, in seconds, %s\n",
				metric, since);
		else if (h[i].e.unit[0])
			fprintf(f, "# HELP %s probe_core histograms of values in %s, %s\n",
				metric, metric + strlen("probe_core_value_"),
				since);
		else
			fprintf(f, "# HELP %s probe_core histograms of values without a unit, %s\n",
				metric, since);
		fprintf(f, "# TYPE %s histogram\n", metric);
		for (j = i; j < n; j++) {
			pc_fmt_metric_name(other, sizeof(other), h[j].e.unit);
			if (!strcmp(metric, other))
				prom_hist(f, metric, &h[j]);
		}
	}
	prom_counter(f, h, n, "probe_core_probe_hits_total",
		     "Calls of the probe's handler since it was attached.", 0);
	prom_counter(f, h, n, "probe_core_probe_missed_total",
		     "Events the probe missed (kprobe and kretprobe nmissed).",
		     1);
	prom_counter(f, h, n, "probe_core_dropped_total",
		     "Values of a keyed histogram whose key found no slot.", 2);
	prom_counter(f, h, n, "probe_core_cgroup_lost_total",
		     "Values of a histogram keyed by cgroup whose cgroup found no room in its totals per cgroup (cgroup_keys=): in no cgroup's series.",
		     4);
	prom_counter(f, h, n, "probe_core_created_timestamp_seconds",
		     "When the histogram was created: its counts start there (a module loaded again, a probe attached again).",
		     3);
}
