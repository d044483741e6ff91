// SPDX-License-Identifier: GPL-2.0
/*
 * probectl profile: a profiler; with -d, its stacks, then detached.
 */
#include <string.h>
#include "cmd_priv.h"

/*
 * profile: attach a profiler; with -d, sample for that long, stop it,
 * print its stacks and detach it (also when the read failed).
 *
 * Stopped before it is read: a profiler samples on while it is read, one
 * ioctl per key slot, so a read of a running one would find stacks that
 * came after its count, and probectl's own read among them.  Disabled,
 * the profile is of the -d seconds only, and agrees with itself: the
 * count is the sum of the stacks.
 */
int cmd_profile(struct pc_env *env, const struct pc_args *a)
{
	struct timespec real, mono, until;
	struct pcore_ioc_attach at;
	struct pcore_ioc_entry e;
	struct pc_hist h;
	const char *what;
	struct pc_dev d;
	int ret, dret;

	memset(&at, 0, sizeof(at));
	snprintf(at.name, sizeof(at.name), "%s",
		 a->attach_hist_name ? a->attach_hist_name : "profile");
	at.kind = PCORE_ATTACH_PROFILE;
	at.hz = a->hz;
	at.depth = a->attach_depth;
	at.pid = a->attach_pid;
	at.flags = (a->user_stacks ? PCORE_ATTACH_USTACK : 0) |
		   (a->no_kthreads ? PCORE_ATTACH_NO_KTHREADS : 0);
	if (a->attach_comm)
		strcpy(at.comm, a->attach_comm);	/* checked: 15 at most */
	if (open_dev(env, true, &d))
		return PC_EXIT_ERR;
	ret = pc_dev_attach(&d, &at);
	if (ret) {
		env->dev_close(env, &d);
		return attach_error(env, ret, &at, "", "profiler");
	}
	if (!a->duration_ns) {
		env->dev_close(env, &d);
		return PC_EXIT_OK;
	}
	env->now(env, &real, &mono);
	until.tv_sec = mono.tv_sec + a->duration_ns / 1000000000ULL;
	until.tv_nsec = mono.tv_nsec + a->duration_ns % 1000000000ULL;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	env->sleep_until(env, &until);
	memset(&h, 0, sizeof(h));
	ret = pc_dev_name_cmd(&d, PCORE_IOC_DISABLE, at.name);
	what = "stop";
	if (!ret) {
		ret = find_hist(&d, at.name, false, &e, &h);
		what = "read";
	}
	dret = pc_dev_name_cmd(&d, PCORE_IOC_DETACH, at.name);
	env->dev_close(env, &d);
	if (ret) {
		pc_hist_free(&h);
		return dev_error(env, ret, what, at.name);
	}
	if (dret) {
		pc_hist_free(&h);
		return dev_error(env, dret, "detach", at.name);
	}
	return show_stacks(env, a, &h);
}
