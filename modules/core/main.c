// SPDX-License-Identifier: GPL-2.0
/*
 * probe_core: kprobes, kretprobes and tracepoints feeding per-CPU
 * histograms, read under /sys/kernel/debug/probe_core/.
 *
 *   insmod probe_core.ko target=do_fork,vfs_read tracepoints=sched_switch
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "pcore.h"

static char *target;
module_param(target, charp, 0400);
MODULE_PARM_DESC(target,
	"functions to count and time from entry to return, comma-separated; do_fork and sys_<name> resolve to this kernel's names");

static char *tracepoints;
module_param(tracepoints, charp, 0400);
MODULE_PARM_DESC(tracepoints,
	"tracepoints to attach built-in handlers to, comma-separated (sched_switch: on-CPU time slices per CPU)");

static unsigned int maxactive;
module_param(maxactive, uint, 0400);
MODULE_PARM_DESC(maxactive,
	"calls of one target that may be in flight at once (0: max(32, 4 * possible CPUs); at most 4096); calls beyond are counted as missed");

static char *hist;
module_param(hist, charp, 0400);
MODULE_PARM_DESC(hist,
	"histogram kind: loglinear[:PRECISION] (default, 1/16 relative width), log2, or linear:MIN,MAX,STEP (ns)");

static int pcore_parse_u64_list(char *s, u64 *v, int n)
{
	char *tok;
	int i;

	for (i = 0; i < n; i++) {
		tok = strsep(&s, ",");
		if (!tok || kstrtou64(tok, 10, &v[i]))
			return -EINVAL;
	}
	return s ? -EINVAL : 0;
}

/* hist= into a spec; one log line on error. */
static int pcore_parse_hist(const char *str, struct pcore_hist_spec *spec)
{
	struct pcore_layout l;
	const char *why = "unknown kind; use loglinear[:PRECISION], log2 or linear:MIN,MAX,STEP";
	u64 v[3];
	char *copy;
	int ret = -EINVAL;

	*spec = (struct pcore_hist_spec){ .kind = PCORE_HIST_LOGLINEAR };
	if (!str)
		return 0;
	if (!strcmp(str, "log2")) {
		spec->kind = PCORE_HIST_LOG2;
		ret = 0;
	} else if (!strcmp(str, "loglinear")) {
		ret = 0;
	} else if (str_has_prefix(str, "loglinear:")) {
		why = "loglinear precision must be 1 to 7 bits";
		ret = kstrtou32(str + 10, 10, &spec->precision);
		if (!ret && !spec->precision)
			ret = -EINVAL;
	} else if (str_has_prefix(str, "linear:")) {
		why = "linear needs MIN,MAX,STEP as decimal numbers";
		copy = kstrdup(str + 7, GFP_KERNEL);
		if (!copy)
			return -ENOMEM;
		ret = pcore_parse_u64_list(copy, v, 3);
		kfree(copy);
		spec->kind = PCORE_HIST_LINEAR;
		spec->min = v[0];
		spec->max = v[1];
		spec->step = v[2];
	}
	if (!ret)
		ret = pcore_layout_init(&l, spec, &why);
	if (ret) {
		pr_err("hist=%*pE: %s\n", (int)strnlen(str, 64), str, why);
		return -EINVAL;
	}
	return 0;
}

/* The probe named @s, or probing symbol @s; caller holds pcore_probes_lock. */
static struct pcore_probe *pcore_find(const char *s, bool by_symbol)
{
	struct pcore_probe *p;

	list_for_each_entry(p, &pcore_probes, node)
		if (!strcmp(by_symbol ? p->symbol : p->name, s))
			return p;
	return NULL;
}

static unsigned int pcore_count(void)
{
	struct pcore_probe *p;
	unsigned int n = 0;

	list_for_each_entry(p, &pcore_probes, node)
		n++;
	return n;
}

/* Attach one probe and list it; caller holds pcore_probes_lock. */
static int pcore_attach_one(enum pcore_probe_kind kind, const char *param,
			    const char *name, const struct pcore_hist_spec *spec,
			    int active)
{
	struct pcore_probe *p, *dup;
	int ret;

	ret = pcore_probe_check_name(param, name);
	if (ret)
		return ret;
	if (pcore_count() >= PCORE_MAX_PROBES) {
		pr_err("%s=%s: more than %d probes\n", param, name,
		       PCORE_MAX_PROBES);
		return -EINVAL;
	}
	dup = pcore_find(name, false);
	if (dup) {
		pr_err("%s=%s: given twice\n", param, name);
		return -EINVAL;
	}
	if (kind == PCORE_PROBE_KRETPROBE)
		p = pcore_kretprobe_attach(name, spec, active);
	else
		p = pcore_tracepoint_attach(name, spec);
	if (IS_ERR(p))
		return PTR_ERR(p);
	dup = pcore_find(p->symbol, true);
	if (dup) {
		pr_err("%s=%s: resolves to %s, which %s already probes\n",
		       param, name, p->symbol, dup->name);
		pcore_probe_detach(p);
		return -EINVAL;
	}
	list_add_tail(&p->node, &pcore_probes);
	pcore_debugfs_add_probe(p);
	return 0;
}

/* A comma-separated parameter: every element attached, or none. */
static int pcore_attach_list(enum pcore_probe_kind kind, const char *param,
			     const char *val, const struct pcore_hist_spec *spec,
			     int active)
{
	char *copy, *s, *name;
	int ret = 0;

	if (!val)
		return 0;
	if (!*val) {
		pr_err("%s=: empty list\n", param);
		return -EINVAL;
	}
	copy = kstrdup(val, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	s = copy;
	mutex_lock(&pcore_probes_lock);
	while ((name = strsep(&s, ",")) && !ret)
		ret = pcore_attach_one(kind, param, name, spec, active);
	mutex_unlock(&pcore_probes_lock);
	kfree(copy);
	return ret;
}

/* Said once the whole load succeeded: a failed load logs only its error. */
static void pcore_log_probes(void)
{
	struct pcore_probe *p;

	mutex_lock(&pcore_probes_lock);
	list_for_each_entry(p, &pcore_probes, node)
		pr_info("%s: %s on %s\n", p->name, pcore_probe_kind_name(p),
			p->symbol);
	mutex_unlock(&pcore_probes_lock);
}

static void pcore_detach_all(void)
{
	struct pcore_probe *p, *tmp;

	mutex_lock(&pcore_probes_lock);
	list_for_each_entry_safe(p, tmp, &pcore_probes, node) {
		list_del(&p->node);
		pcore_probe_detach(p);
	}
	mutex_unlock(&pcore_probes_lock);
}

static int __init pcore_init(void)
{
	struct pcore_hist_spec spec;
	unsigned int active = maxactive;
	int ret;

	ret = pcore_parse_hist(hist, &spec);
	if (ret)
		return ret;
	if (active > PCORE_MAXACTIVE_MAX) {
		pr_err("maxactive=%u: more than %d\n", active,
		       PCORE_MAXACTIVE_MAX);
		return -EINVAL;
	}
	if (!active)
		active = max(32U, 4 * num_possible_cpus());

	pcore_debugfs_init();
	ret = pcore_attach_list(PCORE_PROBE_KRETPROBE, "target", target, &spec,
				active);
	if (ret)
		goto err_detach;
	ret = pcore_attach_list(PCORE_PROBE_TRACEPOINT, "tracepoints",
				tracepoints, &spec, active);
	if (ret)
		goto err_detach;
	pcore_log_probes();
	return 0;

err_detach:
	pcore_detach_all();
	pcore_debugfs_exit();
	return ret;
}

static void __exit pcore_exit(void)
{
	pcore_detach_all();
	pcore_debugfs_exit();
}

module_init(pcore_init);
module_exit(pcore_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("probe_core: per-CPU histograms from kprobes and tracepoints");
MODULE_VERSION("0.1.0");
