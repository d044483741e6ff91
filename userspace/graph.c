// SPDX-License-Identifier: GPL-2.0
/*
 * probectl show F:graph: the histogram of target=F:graph (attach
 * --kretprobe F --graph), keyed by callee (modules/core/graph.c): key 0
 * is F's calls, key 1 "[self]" F's self time per call, keys 2 and up the
 * functions F calls, labelled with their names.  Shown as trace-cmd's
 * function_graph users read a call: F's line, each callee indented under
 * it in the order of F's code (then the glob's), the self line last.
 * Each line: calls, the total time, that total per call of F, its share
 * of F's total, and the p50 and p99 of one call.  A callee that was not
 * called in the interval has no line.  JSON: one object, F's numbers,
 * "callees" in the same order and "self".
 */
#include <string.h>
#include "format.h"
#include "graph.h"
#include "pcore_engine.h"

#define GRAPH_KEY_F	0
#define GRAPH_KEY_SELF	1

/**
 * pc_is_graph() - is this the histogram of an F:graph probe?
 * @e: its entry
 *
 * Return: its name ends in ":graph" and its keys are callees.
 */
bool pc_is_graph(const struct pcore_ioc_entry *e)
{
	size_t n = strnlen(e->name, sizeof(e->name));

	return n > 6 && !strcmp(e->name + n - 6, ":graph") &&
	       !strncmp(e->key_name, "callee", sizeof(e->key_name));
}

static const struct pcore_ioc_read *graph_key(const struct pc_hist *h,
					      unsigned long long key)
{
	unsigned int i;

	for (i = 0; i < h->nkeys; i++)
		if (h->keys[i].r.key == key)
			return &h->keys[i].r;
	return NULL;
}

/* A line: name (indented), calls, total, per F call, share, p50, p99. */
static void graph_line(FILE *f, const char *indent, int wn,
		       const struct pcore_ioc_read *r, unsigned long long fcalls,
		       unsigned long long ftotal)
{
	char label[PCORE_UAPI_LABEL_MAX], v[4][PCORE_FMT_NS_LEN];

	pc_fmt_word(label, sizeof(label), r->label, sizeof(r->label));
	pc_fmt_value_word(v[0], sizeof(v[0]), r->sum, "ns");
	pc_fmt_value_word(v[1], sizeof(v[1]), fcalls ? r->sum / fcalls : 0,
			  "ns");
	pc_fmt_value_word(v[2], sizeof(v[2]), r->p50, "ns");
	pc_fmt_value_word(v[3], sizeof(v[3]), r->p99, "ns");
	fprintf(f, "%s%-*s %8llu %11s %11s %5.1f%% %11s %11s\n", indent,
		wn - (int)strlen(indent), label, r->count, v[0], v[1],
		ftotal ? 100.0 * r->sum / ftotal : 0.0, v[2], v[3]);
}

/**
 * pc_fmt_graph_text() - an F:graph histogram as a tree
 * @f: where to
 * @h: the histogram, read with its keys
 */
void pc_fmt_graph_text(FILE *f, const struct pc_hist *h)
{
	const struct pcore_ioc_read *fr = graph_key(h, GRAPH_KEY_F);
	const struct pcore_ioc_read *self = graph_key(h, GRAPH_KEY_SELF);
	unsigned long long fcalls = fr ? fr->count : 0;
	unsigned long long ftotal = fr ? fr->sum : 0;
	int wn = strlen("[self]") + 2;
	unsigned int i;

	for (i = 0; i < h->nkeys; i++) {
		int l = strnlen(h->keys[i].r.label, sizeof(h->keys[i].r.label));

		l += h->keys[i].r.key == GRAPH_KEY_F ? 0 : 2;
		wn = l > wn ? l : wn;
	}
	fprintf(f, "%-*s %8s %11s %11s %6s %11s %11s\n", wn, "# function",
		"calls", "total", "per_F_call", "share", "p50", "p99");
	if (!fr) {
		fprintf(f, "(no call of F in this interval)\n");
		return;
	}
	graph_line(f, "", wn, fr, fcalls, ftotal);
	for (i = 0; i < h->nkeys; i++)
		if (h->keys[i].r.key > GRAPH_KEY_SELF)
			graph_line(f, "  ", wn, &h->keys[i].r, fcalls, ftotal);
	if (self)
		graph_line(f, "  ", wn, self, fcalls, ftotal);
}

static void graph_json_one(FILE *f, const struct pcore_ioc_read *r,
			   bool name)
{
	fputc('{', f);
	if (name) {
		fputs("\"name\":", f);
		pc_fmt_json_str(f, r->label, sizeof(r->label));
		fputc(',', f);
	}
	fprintf(f, "\"calls\":%llu,\"total\":%llu,\"p50\":%llu,\"p99\":%llu,\"max\":%llu}",
		r->count, r->sum, r->p50, r->p99, r->max);
}

/**
 * pc_fmt_graph_json() - an F:graph histogram as one JSON object
 * @f: where to
 * @h: the histogram, read with its keys
 *
 * {"name", "unit", "function": {"name", "calls", "total", "p50", "p99",
 * "max"}, "callees": [{the same}...], "self": {"calls", ...}}; times in
 * ns; "function" and "self" are null when F was not called.
 */
void pc_fmt_graph_json(FILE *f, const struct pc_hist *h)
{
	const struct pcore_ioc_read *fr = graph_key(h, GRAPH_KEY_F);
	const struct pcore_ioc_read *self = graph_key(h, GRAPH_KEY_SELF);
	unsigned int i, n = 0;

	fputs("{\"name\":", f);
	pc_fmt_json_str(f, h->e.name, sizeof(h->e.name));
	fputs(",\"unit\":\"ns\",\"function\":", f);
	if (fr)
		graph_json_one(f, fr, true);
	else
		fputs("null", f);
	fputs(",\"callees\":[", f);
	for (i = 0; i < h->nkeys; i++) {
		if (h->keys[i].r.key <= GRAPH_KEY_SELF)
			continue;
		if (n++)
			fputc(',', f);
		graph_json_one(f, &h->keys[i].r, true);
	}
	fputs("],\"self\":", f);
	if (self)
		graph_json_one(f, self, false);
	else
		fputs("null", f);
	fputs("}\n", f);
}
