// SPDX-License-Identifier: GPL-2.0
/*
 * probectl flamegraph: stacks, from a histogram or a folded file, as
 * an SVG flame graph.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "flame.h"
#include "stacks.h"
#include "cmd_priv.h"

/*
 * flamegraph: stacks from any source end in flame_write().  Today they
 * come from a folded file (-i); flamegraph NAME, the stacks of a
 * histogram read from /dev/probe_core, is to fill an array of struct
 * pc_flame_stack in flame_from_dev() and hand it to flame_write().
 */

struct flame_arg {
	const struct pc_flame_stack *s;
	size_t n;
	struct pc_flame_opts o;
};

static int flame_writer(FILE *f, const void *arg)
{
	const struct flame_arg *fa = arg;

	return pc_flame_svg(f, fa->s, fa->n, &fa->o);
}

/*
 * The SVG of @n stacks to -o FILE (see write_file()), or to env->out
 * without -o (or with -o -).  Titled --title, else the histogram's name
 * (flamegraph NAME); the counts in @unit (NULL: samples).
 */
static int flame_write(struct pc_env *env, const struct pc_args *a,
		       const struct pc_flame_stack *s, size_t n,
		       const char *unit)
{
	struct flame_arg fa = { .s = s, .n = n,
				.o = { .title = a->flame_title ?: a->name,
				       .width = a->flame_width,
				       .unit = unit } };
	const char *dst = a->flame_out;
	int ret;

	if (!dst || !strcmp(dst, "-")) {
		ret = pc_flame_svg(env->out, s, n, &fa.o);
		if (ret == -EIO)
			return error(env, "writing the output failed");
		return ret ? error(env, "flamegraph: %s", strerror(-ret)) :
			PC_EXIT_OK;
	}
	return write_file(env, dst, flame_writer, &fa);
}

/*
 * flamegraph NAME: the stacks of a histogram keyed by stack, as --folded
 * prints them (stacks that differ only in offsets are one: the SVG merges
 * identical stacks): a process at the root, its user frames, then the
 * kernel's (stacks.c).
 */
static int flame_from_dev(struct pc_env *env, const struct pc_args *a)
{
	struct pc_flame_stack *fs = NULL;
	struct pcore_ioc_entry e;
	struct pc_stack *s = NULL;
	unsigned int n = 0, i, k = 0;
	struct pc_hist h;
	int ret;

	if (read_named(env, a->name, false, &e, &h))
		return PC_EXIT_ERR;
	if (!pc_is_stacks(&e)) {
		pc_hist_free(&h);
		return error(env, "flamegraph %s: not a histogram keyed by stack (attach --stacks, profile, offcpu)",
			     a->name);
	}
	ret = pc_stacks_build(&h, &s, &n) ? PC_EXIT_ERR : PC_EXIT_OK;
	if (!ret) {
		fs = calloc(n ? n : 1, sizeof(*fs));
		if (!fs)
			ret = PC_EXIT_ERR;
	}
	if (ret)
		ret = error(env, "flamegraph %s: out of memory", a->name);
	/*
	 * weights as --folded's, in the histogram's unit: a count's (calls,
	 * samples), or a sum's (ns)
	 */
	for (i = 0; !ret && i < n; i++) {
		if (!s[i].nfold)
			continue;
		fs[k].frames = s[i].fold;
		fs[k].nframes = s[i].nfold;
		fs[k].nuser = s[i].fold_user;
		fs[k++].count = strcmp(e.hist_kind, "count") ? s[i].sum :
				s[i].count;
	}
	if (!ret)
		ret = flame_write(env, a, fs, k, e.unit);
	free(fs);
	pc_stacks_free(s, n);
	pc_hist_free(&h);
	return ret;
}

/* flamegraph -i FILE: folded stacks from a file or standard input. */
static int flame_from_file(struct pc_env *env, const struct pc_args *a)
{
	const char *path = a->flame_in;
	bool std = !strcmp(path, "-");
	struct pc_flame_stack *s;
	char why[256];
	size_t n;
	FILE *f;
	int ret;

	if (std && !env->in)
		return error(env, "no standard input to read");
	f = std ? env->in : fopen(path, "re");
	if (!f)
		return error(env, "cannot open %s: %s", path, strerror(errno));
	ret = pc_folded_parse(f, &s, &n, why, sizeof(why));
	if (!std)
		fclose(f);
	if (ret == -ENOMEM)
		return error(env, "%s: out of memory", path);
	if (ret)
		return error(env, "%s: %s", std ? "standard input" : path, why);
	ret = flame_write(env, a, s, n, NULL);
	pc_folded_free(s, n);
	return ret;
}

int cmd_flamegraph(struct pc_env *env, const struct pc_args *a)
{
	return a->name ? flame_from_dev(env, a) : flame_from_file(env, a);
}
