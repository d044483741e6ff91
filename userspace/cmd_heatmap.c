// SPDX-License-Identifier: GPL-2.0
/*
 * probectl heatmap: a histogram over time, as text or SVG.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "heatmap.h"
#include "cmd_priv.h"

struct heat_arg {
	const struct pc_heat *h;
	const char *title;
};

static int heat_writer(FILE *f, const void *arg)
{
	const struct heat_arg *ha = arg;

	return pc_heat_svg(f, ha->h, ha->title);
}

/* Whether the text goes to a terminal, and how many columns it has. */
static bool out_tty(struct pc_env *env, unsigned int *cols)
{
	struct winsize ws;
	int fd = fileno(env->out);

	*cols = 0;
	if (fd < 0 || !isatty(fd))
		return false;
	if (!ioctl(fd, TIOCGWINSZ, &ws) && ws.ws_col)
		*cols = ws.ws_col;
	return true;
}

/*
 * The picture as text: on a terminal, the screen cleared first and as
 * many intervals as its width has room for.
 */
static int heat_show(struct pc_env *env, const struct pc_heat *h, bool tty,
		     unsigned int cols, bool color)
{
	int ret;

	if (tty)
		fputs("\033[H\033[2J", env->out);
	ret = pc_heat_text(env->out, h, 0, tty ? cols : 0, color);
	if (ret)
		return error(env, "heatmap %s: %s", h->name, strerror(-ret));
	if (fflush(env->out) || ferror(env->out))
		return error(env, "writing the output: %s", strerror(errno));
	return PC_EXIT_OK;
}

/*
 * heatmap: the loop of watch (one PCORE_READ_RESET per interval, absolute
 * deadlines), each interval a column of the picture.  The first
 * snapshot-and-reset only starts the first interval, and gives the
 * buckets' bounds.  A stop (SIGINT, SIGTERM) ends the loop at the next
 * wake-up without reading: the values since the last column stay in the
 * histogram.
 */
int cmd_heatmap(struct pc_env *env, const struct pc_args *a)
{
	unsigned long long prev_mono, deadline, now;
	struct timespec real, mono, until;
	struct heat_arg ha = { .title = a->flame_title };
	struct pcore_ioc_entry e;
	struct pc_heat h;
	unsigned int i, cols;
	struct pc_snap s;
	struct pc_dev d;
	bool tty, color;
	int ret;

	memset(&h, 0, sizeof(h));
	tty = out_tty(env, &cols);
	color = a->heat_color > 0 ||
		(!a->heat_color && tty && !getenv("NO_COLOR"));
	if (reset_named(env, a->name, "heatmap", &d, &e, &s))
		return PC_EXIT_ERR;
	ret = pc_heat_init(&h, &e, &s, a->interval_ns, a->full);
	pc_snap_free(&s);
	if (ret) {
		env->dev_close(env, &d);
		return ret == -ENOMEM ? error(env, "out of memory") :
			dev_error(env, ret, "heatmap", a->name);
	}
	ha.h = &h;
	if (env->catch_stop)
		env->catch_stop(env);
	env->now(env, &real, &mono);
	prev_mono = ts_ns(&mono);
	deadline = prev_mono + a->interval_ns;
	ret = PC_EXIT_OK;
	for (i = 0; !a->count || i < a->count; i++) {
		until = ns_ts(deadline);
		env->sleep_until(env, &until);
		if (env->stopped && env->stopped(env))
			break;
		ret = pc_dev_read(&d, e.name, -1, PCORE_READ_RESET, 0,
				  e.nbuckets, false, &s);
		if (ret) {
			ret = dev_error(env, ret, "heatmap", a->name);
			break;
		}
		env->now(env, &real, &mono);
		now = ts_ns(&mono);
		ret = pc_heat_add(&h, &s, &real, now - prev_mono);
		pc_snap_free(&s);
		if (ret) {
			ret = ret == -ENOMEM ? error(env, "out of memory") :
				error(env, "heatmap %s: the histogram's buckets changed (another histogram of that name?)",
				      a->name);
			break;
		}
		prev_mono = now;
		if (tty)
			ret = heat_show(env, &h, true, cols, color);
		if (!ret && a->heat_svg)
			ret = write_file(env, a->heat_svg, heat_writer, &ha);
		if (ret)
			break;
		while (deadline <= now)
			deadline += a->interval_ns;
	}
	env->dev_close(env, &d);
	/* Off a terminal the picture comes once; an SVG even of nothing. */
	if (!ret && !tty)
		ret = heat_show(env, &h, false, 0, color);
	if (!ret && a->heat_svg && !h.ncols)
		ret = write_file(env, a->heat_svg, heat_writer, &ha);
	pc_heat_free(&h);
	return ret;
}
