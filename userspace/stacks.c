// SPDX-License-Identifier: GPL-2.0
/*
 * Histograms keyed by kernel stack.  Each key slot's read brings its
 * frames as text (one a line, innermost first); the kernel may keep one
 * stack in two slots (two CPUs that saw it first at once), so stacks with
 * the same frames are merged here, then put in order: the most counted
 * first, ties by their frames.
 *
 * Folded lines are what flame graph tools read (flamegraph.pl, speedscope,
 * inferno): "root;...;leaf WEIGHT", one per stack, each frame the function
 * without its offset ("vfs_read", "pcore_stackt_leaf [pcore_stackt]"), so
 * that calls from two places of one function are one frame.  The weight
 * is the count, or for a histogram of values (off-CPU time) the sum.
 * Stacks that differ only in offsets (a profiler's samples at two
 * instructions of one function) print the same line: they are one line,
 * their weights added, as every view merges stacks that print the same.
 *
 * The keys are read one ioctl each while the probe may fire on, so the
 * merged view read before them may count less than they do.  A view of
 * stacks shows the stacks: its count, sum, min, max and buckets are made
 * those of the keys read (pc_stacks_build()), so that the count is the
 * sum of the stacks shown.  (probectl profile -d stops its profiler
 * before it reads: there, nothing changes during the read at all.)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "format.h"
#include "stacks.h"

/* Control and non-ASCII bytes of the kernel's text as '?'. */
static void sanitize(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || (unsigned char)*s >= 0x7f)
			*s = '?';
}

/* Split @text (the key's, modified in place) into @s's frames. */
static void split(struct pc_stack *s, char *text)
{
	char *line, *nl;

	s->nframes = 0;
	for (line = text; *line && s->nframes < PC_STACK_FRAMES_MAX;
	     line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			nl = line + strlen(line) - 1;	/* last, unterminated */
		else
			*nl = '\0';
		sanitize(line);
		s->frames[s->nframes++] = line;
		if (!nl[1])
			break;
	}
}

static int cmp_frames(const struct pc_stack *a, const struct pc_stack *b)
{
	unsigned int i;
	int c;

	if (a->nframes != b->nframes)
		return a->nframes < b->nframes ? -1 : 1;
	for (i = 0; i < a->nframes; i++) {
		c = strcmp(a->frames[i], b->frames[i]);
		if (c)
			return c;
	}
	return 0;
}

static int by_frames(const void *x, const void *y)
{
	return cmp_frames(x, y);
}

/* The largest sum (a count histogram's are 0), the most counted, first. */
static int by_weight(const void *x, const void *y)
{
	const struct pc_stack *a = x, *b = y;

	if (a->sum != b->sum)
		return a->sum > b->sum ? -1 : 1;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return cmp_frames(a, b);
}

/*
 * @h's merged view as the sum of its keys: count, sum, min, max and
 * buckets (the percentiles stay as the merged read gave them).
 */
static void total_of_keys(struct pc_hist *h)
{
	struct pcore_ioc_read *t = &h->total.r;
	const struct pcore_ioc_read *k;
	unsigned int i, j;
	bool seen = false;

	t->count = 0;
	t->sum = 0;
	t->min = 0;
	t->max = 0;
	for (j = 0; h->total.b && j < t->nbuckets; j++)
		h->total.b[j].count = 0;
	for (i = 0; i < h->nkeys; i++) {
		k = &h->keys[i].r;
		t->count += k->count;
		t->sum += k->sum;
		if (k->count && (!seen || k->min < t->min))
			t->min = k->min;
		if (k->count && (!seen || k->max > t->max))
			t->max = k->max;
		seen |= k->count != 0;
		for (j = 0; h->total.b && h->keys[i].b && j < t->nbuckets &&
			    j < k->nbuckets; j++)
			h->total.b[j].count += h->keys[i].b[j].count;
	}
}

/**
 * pc_stacks_build() - the stacks of a histogram keyed by stack
 * @h: histogram, its keys read with their frames (pc_dev_hist()); their
 *	frames' text is split in place, and its merged view (@h->total) made
 *	the sum of its keys (see the top of this file)
 * @out: set to a malloc()ed array, the largest sum first (for a count
 *	histogram: the most counted)
 * @n: set to its length
 *
 * Return: 0 or -ENOMEM.
 */
int pc_stacks_build(struct pc_hist *h, struct pc_stack **out, unsigned int *n)
{
	struct pc_stack *s;
	unsigned int i, j;

	*out = NULL;
	*n = 0;
	s = calloc(h->nkeys ? h->nkeys : 1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (i = 0, j = 0; i < h->nkeys; i++) {
		if (!h->keys[i].frames)
			continue;
		split(&s[j], h->keys[i].frames);
		s[j].count = h->keys[i].r.count;
		s[j++].sum = h->keys[i].r.sum;
	}
	qsort(s, j, sizeof(*s), by_frames);
	for (i = 0, *n = 0; i < j; i++) {
		if (*n && !cmp_frames(&s[*n - 1], &s[i])) {
			s[*n - 1].count += s[i].count;
			s[*n - 1].sum += s[i].sum;
			continue;
		}
		s[(*n)++] = s[i];
	}
	qsort(s, *n, sizeof(*s), by_weight);
	total_of_keys(h);
	*out = s;
	return 0;
}

/**
 * pc_stack_func() - a frame as a flame graph shows it: without its offset
 * @buf: where it goes
 * @len: room in @buf
 * @frame: "func+0x1c/0x40 [module]", or a frame without an offset
 *	("[user] COMM", "[idle]", "[unknown]", "[...]")
 *
 * ';' (the folded format's separator) becomes ':'.
 *
 * Return: @buf: "func [module]", or the frame as it was.
 */
const char *pc_stack_func(char *buf, size_t len, const char *frame)
{
	const char *plus = strstr(frame, "+0x");
	const char *mod = plus ? strchr(plus, ' ') : NULL;
	char *p;

	if (plus && plus != frame)
		snprintf(buf, len, "%.*s%s", (int)(plus - frame), frame,
			 mod ? mod : "");
	else
		snprintf(buf, len, "%s", frame);
	for (p = buf; *p; p++)
		if (*p == ';')
			*p = ':';
	return buf;
}

static unsigned int shown(unsigned int n, unsigned int top)
{
	return top && top < n ? top : n;
}

static bool has_sum(const struct pc_hist *h)
{
	return strcmp(h->e.hist_kind, "count") != 0;
}

/**
 * pc_fmt_stacks_text() - one block per stack
 * @f: where to
 * @h: histogram (its unit and kind)
 * @s: its stacks, from pc_stacks_build()
 * @n: how many
 * @top: only the first @top (0: all)
 *
 * "stacks: N" (N of them in all), then per stack a blank line, "stack
 * COUNT" (and "sum SUM UNIT" unless a count histogram) and its frames,
 * innermost first, indented two spaces.
 */
void pc_fmt_stacks_text(FILE *f, const struct pc_hist *h,
			const struct pc_stack *s, unsigned int n,
			unsigned int top)
{
	unsigned int i, j;

	fprintf(f, "stacks: %u\n", n);
	for (i = 0; i < shown(n, top); i++) {
		fprintf(f, "\nstack count %llu", s[i].count);
		if (has_sum(h))
			fprintf(f, " sum %llu %s", s[i].sum, h->e.unit);
		fputc('\n', f);
		for (j = 0; j < s[i].nframes; j++)
			fprintf(f, "  %s\n", s[i].frames[j]);
	}
}

/* A folded line: its text (root first, no offsets) and its weight. */
struct folded {
	char *text;
	unsigned long long w;
};

static int by_text(const void *x, const void *y)
{
	return strcmp(((const struct folded *)x)->text,
		      ((const struct folded *)y)->text);
}

/* The heaviest first, ties by their text. */
static int by_w(const void *x, const void *y)
{
	const struct folded *a = x, *b = y;

	if (a->w != b->w)
		return a->w > b->w ? -1 : 1;
	return strcmp(a->text, b->text);
}

/* @s's folded line, without its weight, into a malloc()ed string. */
static char *fold(const struct pc_stack *s)
{
	size_t room = 1, len = 0;
	unsigned int j;
	char *t;

	for (j = 0; j < s->nframes; j++)
		room += strlen(s->frames[j]) + 1;
	t = malloc(room);
	if (!t)
		return NULL;
	for (j = s->nframes; j-- > 0;) {
		pc_stack_func(t + len, room - len, s->frames[j]);
		len += strlen(t + len);
		if (j)
			t[len++] = ';';
	}
	t[len] = '\0';
	return t;
}

/*
 * The folded lines of @n stacks, those that print the same merged, the
 * heaviest first, into *@out (free each text, then the array): how
 * many, or -ENOMEM.
 */
static int fold_all(const struct pc_stack *s, unsigned int n, bool sum,
		    struct folded **out)
{
	struct folded *l = calloc(n ? n : 1, sizeof(*l));
	unsigned int i, k = 0, m = 0;

	if (!l)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!s[i].nframes)
			continue;
		l[k].text = fold(&s[i]);
		l[k].w = sum ? s[i].sum : s[i].count;
		if (!l[k++].text) {
			while (k-- > 0)
				free(l[k].text);
			free(l);
			return -ENOMEM;
		}
	}
	qsort(l, k, sizeof(*l), by_text);
	for (i = 0; i < k; i++) {
		if (m && !strcmp(l[m - 1].text, l[i].text)) {
			l[m - 1].w += l[i].w;
			free(l[i].text);
			continue;
		}
		l[m++] = l[i];
	}
	qsort(l, m, sizeof(*l), by_w);
	*out = l;
	return m;
}

/**
 * pc_fmt_stacks_folded() - one folded line per stack, root first
 * @f: where to
 * @h: histogram: a count histogram's weights are counts, others' sums
 * @s: stacks, from pc_stacks_build()
 * @n: how many
 * @top: only the first @top lines (0: all)
 *
 * Stacks that print the same line (that differ only in offsets) are one
 * line, their weights added, the heaviest first; @top counts the merged
 * lines.  Out of memory, each stack is a line of its own, as the tools
 * read it all the same (they add lines up).
 */
void pc_fmt_stacks_folded(FILE *f, const struct pc_hist *h,
			  const struct pc_stack *s, unsigned int n,
			  unsigned int top)
{
	bool sum = has_sum(h);
	struct folded *l;
	char buf[512];
	unsigned int i, j;
	int m;

	m = fold_all(s, n, sum, &l);
	if (m >= 0) {
		for (i = 0; i < (unsigned int)m; i++) {
			if (i < shown(m, top))
				fprintf(f, "%s %llu\n", l[i].text, l[i].w);
			free(l[i].text);
		}
		free(l);
		return;
	}
	for (i = 0; i < shown(n, top); i++) {
		if (!s[i].nframes)
			continue;
		for (j = s[i].nframes; j-- > 0;)
			fprintf(f, "%s%s", pc_stack_func(buf, sizeof(buf),
							 s[i].frames[j]),
				j ? ";" : "");
		fprintf(f, " %llu\n", sum ? s[i].sum : s[i].count);
	}
}

/**
 * pc_fmt_stacks_json() - the stacks as one JSON object
 * @f: where to
 * @h: histogram
 * @s: stacks, from pc_stacks_build()
 * @n: how many
 * @top: only the first @top (0: all)
 *
 * {"name":..., "unit":..., "stacks":N, "dropped":D, "missed":M,
 * "top":[{"count":C, "sum":S, "frames":[innermost, ...]}, ...]}
 */
void pc_fmt_stacks_json(FILE *f, const struct pc_hist *h,
			const struct pc_stack *s, unsigned int n,
			unsigned int top)
{
	unsigned int i, j;

	fputs("{\"name\":", f);
	pc_fmt_json_str(f, h->e.name, sizeof(h->e.name));
	fputs(",\"unit\":", f);
	pc_fmt_json_str(f, h->e.unit, sizeof(h->e.unit));
	fprintf(f, ",\"hits\":%llu,\"stacks\":%u,\"dropped\":%llu,\"missed\":%llu,\"top\":[",
		h->e.hits, n, h->total.r.dropped, h->total.r.missed);
	for (i = 0; i < shown(n, top); i++) {
		fprintf(f, "%s{\"count\":%llu,\"sum\":%llu,\"frames\":[",
			i ? "," : "", s[i].count, s[i].sum);
		for (j = 0; j < s[i].nframes; j++) {
			fputs(j ? "," : "", f);
			pc_fmt_json_str(f, s[i].frames[j],
					strlen(s[i].frames[j]));
		}
		fputs("]}", f);
	}
	fputs("]}\n", f);
}
