// SPDX-License-Identifier: GPL-2.0
/*
 * probectl: probe_core's control utility.  main() connects the commands
 * (cmd.c) to the real world: /dev/probe_core, libkmod, the clocks.  See
 * probectl.8 for what each command does and prints.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/utsname.h>
#include "cmd.h"

static int sys_open(struct pc_env *env, int flags, struct pc_dev *d)
{
	d->fd = open(env->dev_path, flags);
	if (d->fd < 0)
		return -errno;
	d->ioctl = pc_dev_sys_ioctl;
	return 0;
}

static void sys_close(struct pc_env *env, struct pc_dev *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

static void sys_now(struct pc_env *env, struct timespec *real,
		    struct timespec *mono)
{
	clock_gettime(CLOCK_REALTIME, real);
	clock_gettime(CLOCK_MONOTONIC, mono);
}

/* Set by the handler, read by the loop: atomic, as volatile would be. */
static int stop_asked;

static void on_stop(int sig)
{
	__atomic_store_n(&stop_asked, 1, __ATOMIC_RELAXED);
}

/* No SA_RESTART: a sleep ends early with EINTR, and sees the flag. */
static void sys_catch_stop(struct pc_env *env)
{
	struct sigaction sa = { .sa_handler = on_stop };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static bool sys_stopped(struct pc_env *env)
{
	return __atomic_load_n(&stop_asked, __ATOMIC_RELAXED);
}

static void sys_sleep_until(struct pc_env *env, const struct timespec *mono)
{
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, mono, NULL) ==
	       EINTR && !sys_stopped(env))
		;
}

int main(int argc, char **argv)
{
	struct utsname u;
	struct pc_env env = {
		.in = stdin,
		.out = stdout,
		.err = stderr,
		.release = "unknown",
		.dev_path = PCORE_DEVICE,
		.sys_module = "/sys/module/" PC_MODULE_NAME,
		.sys_misc = "/sys/class/misc/" PC_MODULE_NAME "/dev",
		.dev_open = sys_open,
		.dev_close = sys_close,
		.load = pc_kmod_load,
		.unload = pc_kmod_unload,
		.state = pc_kmod_state,
		.now = sys_now,
		.sleep_until = sys_sleep_until,
		.catch_stop = sys_catch_stop,
		.stopped = sys_stopped,
	};
	int ret;

	if (!uname(&u))
		env.release = u.release;
	ret = pc_run(argc, argv, &env);
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "probectl: writing the output failed\n");
		return PC_EXIT_ERR;
	}
	return ret;
}
