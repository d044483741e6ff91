// SPDX-License-Identifier: GPL-2.0
/*
 * probectl watch: a line per interval, each a snapshot-and-reset.
 */
#include <errno.h>
#include <string.h>
#include "format.h"
#include "cmd_priv.h"

/*
 * Each interval is one PCORE_READ_RESET: the kernel moves the values out
 * and resets atomically, so every event lands in exactly one interval.
 * There is never a separate read and reset, which would lose the events
 * between them.  The first snapshot-and-reset only starts the first
 * interval.  Deadlines are absolute, so intervals do not drift; when one
 * was missed (e.g. the machine was suspended), the next line covers the
 * longer interval and interval_ns says so.
 */
int cmd_watch(struct pc_env *env, const struct pc_args *a)
{
	unsigned long long prev_missed, prev_mono, deadline, now;
	struct timespec real, mono, until;
	struct pcore_ioc_entry e;
	struct pc_tick tick;
	struct pc_snap s;
	struct pc_dev d;
	unsigned int i;
	int ret;

	if (reset_named(env, a->name, "watch", &d, &e, &s))
		return PC_EXIT_ERR;
	prev_missed = s.r.missed;
	pc_snap_free(&s);
	env->now(env, &real, &mono);
	prev_mono = ts_ns(&mono);
	deadline = prev_mono + a->interval_ns;
	for (i = 0; !a->count || i < a->count; i++) {
		until = ns_ts(deadline);
		env->sleep_until(env, &until);
		ret = pc_dev_read(&d, e.name, -1, PCORE_READ_RESET, 0,
				  e.nbuckets, false, &s);
		if (ret)
			goto err;
		env->now(env, &real, &mono);
		now = ts_ns(&mono);
		tick.now = real;
		tick.interval_ns = now - prev_mono;
		tick.missed = s.r.missed >= prev_missed ?
			      s.r.missed - prev_missed : s.r.missed;
		if (a->format == PC_FMT_JSON)
			pc_fmt_watch_json(env->out, &e, &s, &tick,
					  a->watch_hist);
		else
			pc_fmt_watch_text(env->out, &e, &s, &tick,
					  a->watch_hist);
		prev_missed = s.r.missed;
		prev_mono = now;
		pc_snap_free(&s);
		if (fflush(env->out) || ferror(env->out)) {
			env->dev_close(env, &d);
			return error(env, "writing the output: %s",
				     strerror(errno));
		}
		while (deadline <= now)
			deadline += a->interval_ns;
	}
	env->dev_close(env, &d);
	return PC_EXIT_OK;
err:
	env->dev_close(env, &d);
	return dev_error(env, ret, "watch", a->name);
}
