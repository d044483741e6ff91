/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probectl's commands.  Everything they touch outside the process goes
 * through struct pc_env: probectl.c fills it with the real device,
 * libkmod and clocks, the host tests with fakes.
 */
#ifndef PROBECTL_CMD_H
#define PROBECTL_CMD_H

#include "dev.h"
#include "kmod.h"

/**
 * struct pc_env - the outside world of the commands
 * @in: standard input (flamegraph -i -), or NULL for none
 * @out: results
 * @err: error messages
 * @release: the running kernel's release (uname -r)
 * @dev_path: the device, PCORE_DEVICE
 * @sys_module: probe_core's directory in sysfs, present while loaded
 * @sys_misc: its misc device's "dev" file in sysfs ("MAJOR:MINOR")
 * @dev_open: opens @dev_path with @flags into @d (hook, ver unset);
 *	returns 0 or -errno
 * @dev_close: closes it
 * @load: pc_kmod_load()
 * @unload: pc_kmod_unload()
 * @state: pc_kmod_state()
 * @now: the wall-clock and the monotonic time
 * @sleep_until: sleeps until a monotonic time, or less once @stopped
 * @catch_stop: from now on, SIGINT and SIGTERM only ask to stop (NULL:
 *	they do what they do)
 * @stopped: whether a stop was asked for (NULL: never)
 * @priv: the hooks' data
 */
struct pc_env {
	FILE *in;
	FILE *out;
	FILE *err;
	const char *release;
	const char *dev_path;
	const char *sys_module;
	const char *sys_misc;
	int (*dev_open)(struct pc_env *env, int flags, struct pc_dev *d);
	void (*dev_close)(struct pc_env *env, struct pc_dev *d);
	int (*load)(const char *path, const char *params,
		    enum pc_kmod_step *step, char *found, size_t len,
		    char *why, size_t whylen);
	int (*unload)(char *holders, size_t len);
	int (*state)(char *state, size_t len);
	void (*now)(struct pc_env *env, struct timespec *real,
		    struct timespec *mono);
	void (*sleep_until)(struct pc_env *env, const struct timespec *mono);
	void (*catch_stop)(struct pc_env *env);
	bool (*stopped)(struct pc_env *env);
	void *priv;
};

int pc_run(int argc, char **argv, struct pc_env *env);

#endif /* PROBECTL_CMD_H */
