// SPDX-License-Identifier: GPL-2.0
/*
 * probectl load: probe_core in with libkmod (env->load), its parameters
 * made from the options, and why it failed, in words: probe_core's own
 * line from the kernel log when there is one, else the errno's reading.
 */
#include <errno.h>
#include <string.h>
#include "cmd_priv.h"

int cmd_load(struct pc_env *env, const struct pc_args *a)
{
	char params[PC_MAX_TARGETS * PCORE_UAPI_NAME_MAX * 2 + 200];
	char found[4096], why[1024];
	enum pc_kmod_step step;
	int ret;

	if (pc_load_params(a, params, sizeof(params)))
		return error(env, "parameters too long");
	ret = env->load(a->module, params, &step, found, sizeof(found),
			why, sizeof(why));
	if (!ret)
		return PC_EXIT_OK;
	/* The kernel refused it and probe_core's log line says why. */
	if (step == PC_KMOD_INSERT && why[0] && ret != -EEXIST)
		return error(env, "probe_core refused '%s': %s", params, why);
	switch (step) {
	case PC_KMOD_SETUP:
		return error(env, "cannot set up libkmod: %s", strerror(-ret));
	case PC_KMOD_FIND:
		if (a->module)
			return error(env, "cannot use module file %s: %s",
				     a->module, strerror(-ret));
		if (ret == -ENOENT)
			return error(env, "probe_core is not installed for kernel %s (install it, or give --module PATH to a probe_core.ko)",
				     env->release);
		return error(env, "cannot find probe_core: %s", strerror(-ret));
	case PC_KMOD_NAME:
		return error(env, "%s is not probe_core.ko", a->module);
	case PC_KMOD_INSERT:
		break;
	}
	switch (-ret) {
	case EEXIST:
		return error(env, "probe_core is already loaded (probectl unload first to change its parameters)");
	case EPERM:
	case EACCES:
		return error(env, "loading %s: permission denied: run as root",
			     found);
	case ENOENT:
		return error(env, "probe_core refused '%s': a function or tracepoint does not exist; %s",
			     params, DMESG);
	case EINVAL:
		return error(env, "probe_core refused '%s': invalid parameters; %s",
			     params, DMESG);
	case ENOEXEC:
		return error(env, "%s is not a module for this kernel (%s); %s",
			     found, env->release, DMESG);
	default:
		return error(env, "loading %s failed: %s; %s", found,
			     strerror(-ret), DMESG);
	}
}
