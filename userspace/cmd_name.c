// SPDX-License-Identifier: GPL-2.0
/*
 * probectl detach, reset, enable and disable: one request about NAME.
 */
#include <errno.h>
#include <string.h>
#include "cmd_priv.h"

int cmd_name(struct pc_env *env, const struct pc_args *a)
{
	static const struct {
		unsigned long ioc;
		const char *verb;
	} what[PC_NR_CMDS] = {
		[PC_CMD_DETACH] = { PCORE_IOC_DETACH, "detach" },
		[PC_CMD_RESET] = { PCORE_IOC_RESET, "reset" },
		[PC_CMD_ENABLE] = { PCORE_IOC_ENABLE, "enable" },
		[PC_CMD_DISABLE] = { PCORE_IOC_DISABLE, "disable" },
	};
	const char *slash = strchr(a->name, '/');
	struct pc_dev d;
	int ret;

	if (open_dev(env, true, &d))
		return PC_EXIT_ERR;
	ret = pc_dev_name_cmd(&d, what[a->cmd].ioc, a->name);
	env->dev_close(env, &d);
	if (ret == -EINVAL && slash && a->cmd != PC_CMD_RESET)
		return error(env, "%s %s: it belongs to the handler module %.*s; only probe_core's own probes can be %sd",
			     what[a->cmd].verb, a->name,
			     (int)(slash - a->name), a->name,
			     a->cmd == PC_CMD_DETACH ? "detache" :
			     what[a->cmd].verb);
	if (ret == -EINVAL)
		return error(env, "%s %s: probe_core refused it; %s",
			     what[a->cmd].verb, a->name, DMESG);
	return ret ? dev_error(env, ret, what[a->cmd].verb, a->name) :
		PC_EXIT_OK;
}
