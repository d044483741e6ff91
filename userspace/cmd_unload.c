// SPDX-License-Identifier: GPL-2.0
/*
 * probectl unload: probe_core out with libkmod (env->unload), and who
 * holds it when it cannot go.
 */
#include <errno.h>
#include <string.h>
#include "cmd_priv.h"

int cmd_unload(struct pc_env *env, const struct pc_args *a)
{
	char holders[512];
	int ret = env->unload(holders, sizeof(holders));

	switch (-ret) {
	case 0:
		return PC_EXIT_OK;
	case ENOENT:
		return error(env, "probe_core is not loaded");
	case EAGAIN:
	case EBUSY:
		if (holders[0])
			return error(env, "probe_core is in use by: %s (unload those first)",
				     holders);
		return error(env, "probe_core is in use: close its files under /sys/kernel/debug/probe_core and %s, stop probectl watch, and retry",
			     env->dev_path);
	case EPERM:
	case EACCES:
		return error(env, "unloading probe_core: permission denied: run as root");
	default:
		return error(env, "unloading probe_core: %s", strerror(-ret));
	}
}
