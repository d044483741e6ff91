// SPDX-License-Identifier: GPL-2.0
/*
 * probectl show: one histogram, as text, JSON, CSV or folded stacks.
 */
#include <stdlib.h>
#include <string.h>
#include "format.h"
#include "graph.h"
#include "keys.h"
#include "stacks.h"
#include "cmd_priv.h"

/* show of a histogram keyed by stack: text, folded or JSON. */
int show_stacks(struct pc_env *env, const struct pc_args *a,
		struct pc_hist *h)
{
	struct pc_stack *s;
	unsigned int n;

	if (pc_stacks_build(h, &s, &n)) {
		pc_hist_free(h);
		return error(env, "show %s: out of memory", a->name);
	}
	if (a->format == PC_FMT_FOLDED) {
		pc_fmt_stacks_folded(env->out, h, s, n, a->top);
	} else if (a->format == PC_FMT_JSON) {
		pc_fmt_stacks_json(env->out, h, s, n, a->top);
	} else {
		pc_fmt_show_text(env->out, h, a->full);
		pc_fmt_stacks_text(env->out, h, s, n, a->top);
	}
	pc_stacks_free(s, n);
	pc_hist_free(h);
	return PC_EXIT_OK;
}

/* show --keys: one line per key (keys.c). */
static int show_keys(struct pc_env *env, const struct pc_args *a,
		     struct pc_hist *h)
{
	struct pc_keys_opts o = { .sort = a->sort, .top = a->top };
	int ret = PC_EXIT_OK;

	if (pc_is_stacks(&h->e))
		ret = error(env, "show %s: --keys: its keys are stacks: show %s --top N lists them",
			    a->name, a->name);
	else if (!h->e.key_name[0])
		ret = error(env, "show %s: --keys is for a keyed histogram (attach --by-pid); this one has no keys",
			    a->name);
	else if (a->format == PC_FMT_JSON)
		pc_fmt_keys_json(env->out, h, &o);
	else
		pc_fmt_keys_text(env->out, h, &o);
	pc_hist_free(h);
	return ret;
}

int cmd_show(struct pc_env *env, const struct pc_args *a)
{
	struct pcore_ioc_entry e;
	struct pc_hist h;

	if (read_named(env, a->name, a->percpu, &e, &h))
		return PC_EXIT_ERR;
	if (a->keys)
		return show_keys(env, a, &h);
	if (pc_is_stacks(&e) && a->format != PC_FMT_CSV)
		return show_stacks(env, a, &h);
	if (a->format == PC_FMT_FOLDED || a->top) {
		pc_hist_free(&h);
		return error(env, "show %s: --%s is for histograms keyed by stack (attach --stacks)",
			     a->name, a->top ? "top" : "folded");
	}
	if (pc_is_graph(&e) && a->format == PC_FMT_JSON)
		pc_fmt_graph_json(env->out, &h);
	else if (pc_is_graph(&e) && a->format != PC_FMT_CSV && !a->full)
		pc_fmt_graph_text(env->out, &h);
	else if (a->format == PC_FMT_JSON)
		pc_fmt_show_json(env->out, &h);
	else if (a->format == PC_FMT_CSV)
		pc_fmt_show_csv(env->out, &h);
	else
		pc_fmt_show_text(env->out, &h, a->full);
	pc_hist_free(&h);
	return PC_EXIT_OK;
}
