// SPDX-License-Identifier: GPL-2.0
/*
 * probectl detach, reset, enable and disable: one request about NAME.
 *
 * Detach, enable and disable act on a probe of probe_core's own, by the
 * name `probectl list` shows in its probe column.  A counting probe is
 * named with its suffix: 'vfs_*:count' for --kprobe 'vfs_*' --count,
 * 'rd:count' for --kprobe vfs_read --count --name rd.  The name the user
 * typed, 'vfs_*' or 'rd', takes either: the probe of that exact name
 * when there is one, else its counting one.  A histogram of a glob's is
 * not a probe: the error names the probe to give instead.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cmd_priv.h"

/*
 * A name without a suffix or a module ('vfs_*', 'rd'), whose counting
 * probe is NAME:count.
 */
static bool bare_name(const char *name)
{
	return !strpbrk(name, ":/") &&
	       strlen(name) + sizeof(":count") <= PCORE_UAPI_NAME_MAX;
}

/* The probe that feeds histogram @name, into @probe; "" when none. */
static void probe_of(struct pc_dev *d, const char *name, char *probe,
		     size_t len)
{
	struct pcore_ioc_entry *e;
	unsigned int n, i;

	*probe = '\0';
	if (pc_dev_list(d, &e, &n))
		return;
	for (i = 0; i < n; i++)
		if (!strcmp(e[i].name, name))
			snprintf(probe, len, "%s", e[i].probe);
	free(e);
}

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
	const char *slash = strchr(a->name, '/'), *verb = what[a->cmd].verb;
	char count[PCORE_UAPI_NAME_MAX], probe[PCORE_UAPI_NAME_MAX] = "";
	bool bare = a->cmd != PC_CMD_RESET && bare_name(a->name);
	bool glob = strpbrk(a->name, "*?");
	struct pc_dev d;
	int ret;

	if (open_dev(env, true, &d))
		return PC_EXIT_ERR;
	ret = pc_dev_name_cmd(&d, what[a->cmd].ioc, a->name);
	if (ret == -ENOENT && bare) {
		snprintf(count, sizeof(count), "%s:count", a->name);
		ret = pc_dev_name_cmd(&d, what[a->cmd].ioc, count);
	}
	if (ret == -ENOENT && a->cmd != PC_CMD_RESET && !glob)
		probe_of(&d, a->name, probe, sizeof(probe));
	env->dev_close(env, &d);
	if (ret == -EINVAL && slash && a->cmd != PC_CMD_RESET)
		return error(env, "%s %s: it belongs to the handler module %.*s; only probe_core's own probes can be %sd",
			     verb, a->name, (int)(slash - a->name), a->name,
			     a->cmd == PC_CMD_DETACH ? "detache" : verb);
	if (ret == -EINVAL)
		return error(env, "%s %s: probe_core refused it; %s", verb,
			     a->name, DMESG);
	if (ret == -ENOENT && *probe && strcmp(probe, a->name))
		return error(env, "%s %s: the probe '%s' feeds it with its other histograms: %s '%s'",
			     verb, a->name, probe, verb, probe);
	if (ret == -ENOENT && bare)
		return error(env, "%s %s: no probe named '%s' or '%s:count' (probectl list shows probes)",
			     verb, a->name, a->name, a->name);
	return ret ? dev_error(env, ret, verb, a->name) : PC_EXIT_OK;
}
