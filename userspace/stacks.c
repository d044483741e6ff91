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
 *
 * User frames.  A stack whose last line is "[proc] TGID COMM" (ustack=1,
 * or a process in the key) may have, after its kernel frames, "[u] 0xADDR"
 * lines (leaf first) and "[u...]" when the user stack was cut.  They are
 * symbolized here (usym.c: /proc/TGID/maps and the mapped files' symbol
 * tables), once per pc_stacks_build(), while the process lives: show
 * prints "func+0xOFF [FILE]", or "0xADDR [FILE+0xOFF]" in a file without
 * a name there, or "0xADDR" when nothing is known (the process is gone,
 * or the address in no mapping).  Folded lines and flame graphs put the
 * process at the root, as perf and BCC do: "COMM;user frames root to
 * leaf;kernel frames root to leaf", a user frame as "func", "[FILE]"
 * (its base name: a file without a name there), "[vdso]" (a vDSO not
 * probectl's: see usym.c) or "[unknown]"
 * (never an address, so that stacks of a process gone merge).  Stacks are
 * merged on the kernel's text (same process, same addresses), before
 * symbolizing.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format.h"
#include "stacks.h"

const char *pc_stacks_proc;	/* NULL: /proc */

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


/* "[proc] TGID COMM": TGID below 2^32, COMM one word, nothing after it. */
static bool parse_proc(const char *line, uint32_t *tgid, const char **comm)
{
	const char *p = line + 7;
	uint64_t v = 0;
	unsigned int n = 0;

	if (strncmp(line, "[proc] ", 7))
		return false;
	for (; *p >= '0' && *p <= '9' && n < 10; p++, n++)
		v = v * 10 + (*p - '0');
	if (!n || v > UINT32_MAX || *p != ' ' || !p[1] || strchr(p + 1, ' '))
		return false;
	*tgid = v;
	*comm = p + 1;
	return true;
}

/* "[u] 0x" and 1 to 16 hex digits, nothing after them. */
static bool parse_u(const char *line, uint64_t *addr)
{
	const char *p = line + 6;
	unsigned int n = 0;
	int d;

	if (strncmp(line, "[u] 0x", 6))
		return false;
	*addr = 0;
	for (; *p && n < 16; p++, n++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			return false;
		*addr = *addr << 4 | (uint64_t)d;
	}
	return n && !*p;
}

static bool is_user_line(const char *line)
{
	return !strncmp(line, "[u] ", 4) || !strcmp(line, "[u...]");
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* Room for a user frame's show text or folded name, at most. */
static size_t uroom(const struct pc_uframe *uf)
{
	return strlen(uf->line) + 64 + 2 * (uf->res.file ?
		strlen(uf->res.file) : 0) + (uf->res.func ?
		strlen(uf->res.func) : 0);
}

/*
 * A formatted string at *@st, which moves past it; cut at @end (the
 * caller's room is counted to fit, the cut is a second bound).
 */
static __printf(3, 4) const char *put(char **st, const char *end,
				      const char *fmt, ...)
{
	const char *s = *st;
	size_t room = end - *st;
	va_list ap;
	int n;

	if (!room)
		return "";
	va_start(ap, fmt);
	n = vsnprintf(*st, room, fmt, ap);
	va_end(ap);
	*st += n < 0 ? 1 : (size_t)n + 1 < room ? (size_t)n + 1 : room;
	return s;
}

/* A user frame as show prints it, and as folded lines name it. */
static void user_names(char **st, const char *end,
		       const struct pc_uframe *uf, const char **text,
		       const char **fold)
{
	const struct pc_usym_res *r = &uf->res;
	uint64_t a;

	if (!strcmp(uf->line, "[u...]")) {
		*text = *fold = "[...]";
		return;
	}
	if (!parse_u(uf->line, &a)) {
		*text = uf->line;	/* not the format: as it came */
		*fold = "[unknown]";
		return;
	}
	switch (r->kind) {
	case PC_USYM_FUNC:	/* "[vdso]" is in brackets already */
		*text = put(st, end, r->file[0] == '[' ? "%s+0x%llx %s" :
			    "%s+0x%llx [%s]", r->func,
			    (unsigned long long)r->func_off, r->file);
		*fold = r->func;
		break;
	case PC_USYM_FILE:
		*text = put(st, end, "0x%016llx [%s+0x%llx]", (unsigned long long)a,
			    r->file,
			    (unsigned long long)r->file_off);
		*fold = put(st, end, "[%s]", base_name(r->file));
		break;
	case PC_USYM_VDSO:
		*text = put(st, end, "0x%016llx [vdso]+0x%llx",
			    (unsigned long long)a,
			    (unsigned long long)r->file_off);
		*fold = "[vdso]";
		break;
	case PC_USYM_ANON:
		*text = put(st, end, "0x%016llx %s", (unsigned long long)a,
			    r->file[0] ? r->file : "[anon]");
		*fold = "[unknown]";
		break;
	default:
		*text = put(st, end, "0x%016llx", (unsigned long long)a);
		*fold = "[unknown]";
	}
}

/*
 * @s's user frames symbolized (with *@u, made at the first stack that
 * has a process) and its folded frames: see the top of this file.
 */
static int symbolize(struct pc_stack *s, struct pc_usym **u)
{
	unsigned int i, k, nk, nu;
	char *st, *comm, *p;
	const char *text, *end;
	size_t room = 1, len;

	s->nkernel = s->nframes;
	if (s->nframes &&
	    parse_proc(s->frames[s->nframes - 1], &s->tgid, &s->comm)) {
		for (nk = 0; nk + 1 < s->nframes &&
			     !is_user_line(s->frames[nk]); nk++)
			;
		s->nkernel = nk;
		s->nuser = s->nframes - 1 - nk;
	}
	nk = s->nkernel;
	nu = s->nuser;
	s->user = calloc(nu ? nu : 1, sizeof(*s->user));
	s->fold = calloc(nk + nu + 1, sizeof(*s->fold));
	if (!s->user || !s->fold)
		return -ENOMEM;
	if (nu && !*u) {
		*u = pc_usym_new(pc_stacks_proc);
		if (!*u)
			return -ENOMEM;
	}
	for (i = 0; i < nu; i++) {
		struct pc_uframe *uf = &s->user[i];

		uf->line = s->frames[nk + i];
		if (parse_u(uf->line, &uf->addr) &&
		    pc_usym_lookup(*u, s->tgid, uf->addr, i > 0, &uf->res))
			return -ENOMEM;
		room += 2 * uroom(uf);
	}
	for (i = 0; i < nk; i++)
		room += strlen(s->frames[i]) + 1;
	if (s->comm)
		room += strlen(s->comm) + 1;
	s->store = malloc(room);
	if (!s->store)
		return -ENOMEM;
	st = s->store;
	end = s->store + room;
	k = 0;
	if (s->comm) {
		/* the process at the root, then its user frames root first */
		comm = (char *)put(&st, end, "%s", s->comm);
		for (p = comm; (p = strchr(p, ';'));)
			*p = ':';
		s->fold[k++] = comm;
		for (i = nu; i-- > 0;) {
			user_names(&st, end, &s->user[i], &text,
				   &s->fold[k + i]);
			s->frames[nk + i] = text;
		}
		/* the fold of user frame i (leaf first) goes root first */
		for (i = 0; i < nu / 2; i++) {
			text = s->fold[k + i];
			s->fold[k + i] = s->fold[k + nu - 1 - i];
			s->fold[k + nu - 1 - i] = text;
		}
		k += nu;
		s->fold_user = nu;
	}
	for (i = nk; i-- > 0;) {
		len = strlen(s->frames[i]) + 1;
		if (len > (size_t)(end - st))
			len = end - st;
		s->fold[k++] = len ? pc_stack_func(st, len, s->frames[i]) : "";
		st += len ? strlen(st) + 1 : 0;
	}
	s->nfold = k;
	return 0;
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
	struct pc_usym *u = NULL;
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
	for (i = 0; i < *n; i++) {
		if (symbolize(&s[i], &u)) {
			pc_usym_free(u);
			pc_stacks_free(s, *n);
			*n = 0;
			return -ENOMEM;
		}
	}
	for (i = 0; i < *n; i++)
		s[i].usym = u;
	qsort(s, *n, sizeof(*s), by_weight);
	total_of_keys(h);
	*out = s;
	return 0;
}

/**
 * pc_stacks_free() - what pc_stacks_build() made
 * @s: the stacks, or NULL
 * @n: how many
 */
void pc_stacks_free(struct pc_stack *s, unsigned int n)
{
	unsigned int i;

	for (i = 0; s && i < n; i++) {
		free(s[i].user);
		free(s[i].fold);
		free(s[i].store);
	}
	if (s && n)
		pc_usym_free(s[0].usym);
	free(s);
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

	for (j = 0; j < s->nfold; j++)
		room += strlen(s->fold[j]) + 1;
	t = malloc(room);
	if (!t)
		return NULL;
	for (j = 0; j < s->nfold; j++)
		len += sprintf(t + len, "%s%s", j ? ";" : "", s->fold[j]);
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
		if (!s[i].nfold)
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
		if (!s[i].nfold)
			continue;
		for (j = 0; j < s[i].nfold; j++)
			fprintf(f, "%s%s", j ? ";" : "", s[i].fold[j]);
		fprintf(f, " %llu\n", sum ? s[i].sum : s[i].count);
	}
}

static void json_str(FILE *f, const char *key, const char *v)
{
	fprintf(f, ",\"%s\":", key);
	pc_fmt_json_str(f, v, strlen(v));
}

/* A stack's process and its user frames (see pc_fmt_stacks_json()). */
static void json_process(FILE *f, const struct pc_stack *s)
{
	static const char *const kinds[] = {
		[PC_USYM_NOPROC] = "gone", [PC_USYM_UNMAPPED] = "unmapped",
		[PC_USYM_ANON] = "anon", [PC_USYM_VDSO] = "vdso",
		[PC_USYM_FILE] = "file", [PC_USYM_FUNC] = "func",
	};
	const struct pc_uframe *uf;
	unsigned int j, k = 0;
	bool cut = false;
	uint64_t a;

	fprintf(f, ",\"tgid\":%u", s->tgid);
	json_str(f, "comm", s->comm);
	fprintf(f, ",\"kernel_frames\":%u,\"folded\":[", s->nkernel);
	for (j = 0; j < s->nfold; j++) {
		fputs(j ? "," : "", f);
		pc_fmt_json_str(f, s->fold[j], strlen(s->fold[j]));
	}
	fputs("],\"user\":[", f);
	for (j = 0; j < s->nuser; j++) {
		uf = &s->user[j];
		if (!strcmp(uf->line, "[u...]")) {
			cut = true;
			continue;
		}
		fprintf(f, "%s{\"addr\":\"0x%016llx\"", k++ ? "," : "",
			(unsigned long long)uf->addr);
		if (!parse_u(uf->line, &a)) {
			json_str(f, "kind", "bad");
			json_str(f, "line", uf->line);
			fputc('}', f);
			continue;
		}
		json_str(f, "kind", kinds[uf->res.kind]);
		if (uf->res.file) {
			json_str(f, "file", uf->res.file);
			fprintf(f, ",\"file_offset\":%llu",
				(unsigned long long)uf->res.file_off);
		}
		if (uf->res.build_id && uf->res.build_id[0])
			json_str(f, "build_id", uf->res.build_id);
		if (uf->res.func) {
			json_str(f, "func", uf->res.func);
			fprintf(f, ",\"func_offset\":%llu",
				(unsigned long long)uf->res.func_off);
		}
		if (uf->res.why)
			json_str(f, "why", uf->res.why);
		fputc('}', f);
	}
	fprintf(f, "],\"user_cut\":%s", cut ? "true" : "false");
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
 * "top":[{"count":C, "sum":S, "frames":[innermost, ...]}, ...]}; frames
 * as show's text prints them.  A stack with a process has also "tgid",
 * "comm", "kernel_frames" (how many of the frames are the kernel's),
 * "folded" (root first, as --folded) and "user": per user frame, leaf
 * first, {"addr":"0x...", "kind":"func"|"file"|"vdso"|"anon"|"unmapped"|
 * "gone", "file", "file_offset", "build_id", "func", "func_offset"} (those
 * known), and "user_cut":true when the user stack was cut.
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
		fputc(']', f);
		if (s[i].comm)
			json_process(f, &s[i]);
		fputc('}', f);
	}
	fputs("]}\n", f);
}
