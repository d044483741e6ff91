// SPDX-License-Identifier: GPL-2.0
/*
 * probectl status: whether probe_core is loaded, and its numbers.
 */
#include <stdlib.h>
#include <unistd.h>
#include "cmd_priv.h"

int cmd_status(struct pc_env *env, const struct pc_args *a)
{
	struct pcore_ioc_entry *e;
	char state[32];
	struct pc_dev d;
	unsigned int n, i, probes = 0;
	int ret;

	ret = env->state(state, sizeof(state));
	if (ret < 0)	/* libkmod cannot tell: sysfs can */
		ret = !access(env->sys_module, F_OK);
	fprintf(env->out, "module: %s\nkernel: %s\n",
		ret ? "loaded" : "not loaded", env->release);
	if (!ret)
		return PC_EXIT_ERR;
	if (open_dev(env, false, &d))
		return PC_EXIT_ERR;
	ret = pc_dev_list(&d, &e, &n);
	if (ret) {
		env->dev_close(env, &d);
		return dev_error(env, ret, "list", "histograms");
	}
	for (i = 0; i < n; i++)
		probes += !!(e[i].flags & PCORE_ENT_HAS_PROBE);
	fprintf(env->out, "version: %s\nabi: %u\nnr_cpu_ids: %u\nhistograms: %u\nprobes: %u\n",
		d.ver.module_version, d.ver.abi, d.ver.nr_cpu_ids, n, probes);
	free(e);
	env->dev_close(env, &d);
	return PC_EXIT_OK;
}
