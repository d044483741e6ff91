// SPDX-License-Identifier: GPL-2.0
/*
 * probectl list: one line (or JSON object) per histogram.
 */
#include <stdlib.h>
#include "format.h"
#include "cmd_priv.h"

int cmd_list(struct pc_env *env, const struct pc_args *a)
{
	struct pcore_ioc_entry *e;
	struct pc_dev d;
	unsigned int n;
	int ret;

	if (open_dev(env, false, &d))
		return PC_EXIT_ERR;
	ret = pc_dev_list(&d, &e, &n);
	env->dev_close(env, &d);
	if (ret)
		return dev_error(env, ret, "list", "histograms");
	if (a->format == PC_FMT_JSON)
		pc_fmt_list_json(env->out, e, n);
	else
		pc_fmt_list_text(env->out, e, n);
	free(e);
	return PC_EXIT_OK;
}
