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

/*
 * probe_core's own probes are built with the same API as handler modules,
 * in probe_core's own client: for each target a histogram and a return
 * probe that feeds it; for each tracepoint a histogram, a CPU timer and a
 * handler from the table below.
 */
struct pcore_builtin {
	const char *name;
	struct pcore_hist *hist;
	struct pcore_timer *timer;
	struct pcore_probe *probe;
};

static struct pcore_builtin pcore_builtins[PCORE_MAX_PROBES];
static unsigned int pcore_nbuiltins;

/*
 * sched_switch: the time prev ran, i.e. between two switches on this CPU.
 * The first switch a CPU sees only starts its clock.
 */
static void notrace pcore_tp_sched_switch(PCORE_SCHED_SWITCH_PROTO)
{
	struct pcore_builtin *b = pcore_tp_hit(data);
	u64 ns;

	if (pcore_timer_stop(b->timer, 0, &ns))
		pcore_hist_add(b->hist, ns);
	pcore_timer_start(b->timer, 0);
}

static const struct {
	const char *name;
	void *fn;
} pcore_tp_handlers[] = {
	{ "sched_switch", pcore_tp_sched_switch },
};

static int pcore_builtin_tracepoint(struct pcore_client *c,
				    struct pcore_builtin *b)
{
	struct pcore_tracepoint_opts o = {
		.name = b->name, .tracepoint = b->name, .hist = b->hist,
		.priv = b,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pcore_tp_handlers); i++)
		if (!strcmp(pcore_tp_handlers[i].name, b->name))
			o.fn = pcore_tp_handlers[i].fn;
	if (!o.fn && !pcore_tp_exists(b->name)) {
		pr_err("tracepoints=%s: no such tracepoint\n", b->name);
		return -ENOENT;
	}
	if (!o.fn) {
		pr_err("tracepoints=%s: no built-in handler for this tracepoint (built-in: sched_switch)\n",
		       b->name);
		return -EINVAL;
	}
	b->timer = pcore_timer_create(c, &(struct pcore_timer_opts){
		.name = b->name, .scope = PCORE_TIMER_CPU });
	if (IS_ERR(b->timer))
		return PTR_ERR(b->timer);
	b->probe = pcore_tracepoint_attach(c, &o);
	return PTR_ERR_OR_ZERO(b->probe);
}

/* One element of target= or tracepoints=; the caller cleans up on error. */
static int pcore_builtin_add(struct pcore_client *c, bool tracepoint,
			     const char *param, const char *name,
			     const struct pcore_hist_spec *spec, int active)
{
	struct pcore_builtin *b;
	unsigned int i;

	if (!*name) {
		pr_err("%s=: empty name\n", param);
		return -EINVAL;
	}
	for (i = 0; i < pcore_nbuiltins; i++) {
		if (!strcmp(pcore_builtins[i].name, name)) {
			pr_err("%s=%s: given twice\n", param, name);
			return -EINVAL;
		}
	}
	if (pcore_nbuiltins == ARRAY_SIZE(pcore_builtins)) {
		pr_err("%s=%s: more than %d probes\n", param, name,
		       PCORE_MAX_PROBES);
		return -EINVAL;
	}
	b = &pcore_builtins[pcore_nbuiltins++];
	b->name = name;
	b->hist = pcore_hist_create(c, &(struct pcore_hist_opts){
		.name = name, .spec = *spec });
	if (IS_ERR(b->hist))
		return PTR_ERR(b->hist);
	if (tracepoint)
		return pcore_builtin_tracepoint(c, b);

	b->probe = pcore_kretprobe_attach(c, &(struct pcore_kretprobe_opts){
		.name = name, .symbol = name, .maxactive = active,
		.hist = b->hist });
	if (IS_ERR(b->probe))
		return PTR_ERR(b->probe);
	for (i = 0; i < pcore_nbuiltins - 1; i++) {
		struct pcore_probe *q = pcore_builtins[i].probe;

		if (!IS_ERR_OR_NULL(q) &&
		    !strcmp(pcore_probe_symbol(q), pcore_probe_symbol(b->probe))) {
			pr_err("%s=%s: resolves to %s, which %s already probes\n",
			       param, name, pcore_probe_symbol(b->probe),
			       pcore_builtins[i].name);
			return -EINVAL;
		}
	}
	return 0;
}

/* A comma-separated parameter: every element attached, or none. */
static int pcore_builtin_list(struct pcore_client *c, bool tracepoint,
			      const char *param, char *val,
			      const struct pcore_hist_spec *spec, int active)
{
	char *name;
	int ret = 0;

	if (!val)
		return 0;
	if (!*val) {
		pr_err("%s=: empty list\n", param);
		return -EINVAL;
	}
	while ((name = strsep(&val, ",")) && !ret)
		ret = pcore_builtin_add(c, tracepoint, param, name, spec,
					active);
	return ret;
}

/* Said once the whole load succeeded: a failed load logs only its error. */
static void pcore_log_builtins(void)
{
	unsigned int i;

	for (i = 0; i < pcore_nbuiltins; i++)
		pr_info("%s: %s on %s\n", pcore_builtins[i].name,
			pcore_builtins[i].timer ? "tracepoint" : "kretprobe",
			pcore_probe_symbol(pcore_builtins[i].probe));
}

static char *pcore_targets, *pcore_tracepoints;

static void pcore_builtins_free(void)
{
	memset(pcore_builtins, 0, sizeof(pcore_builtins));
	pcore_nbuiltins = 0;
	kfree(pcore_targets);
	kfree(pcore_tracepoints);
	pcore_targets = NULL;
	pcore_tracepoints = NULL;
}

static int __init pcore_init(void)
{
	struct pcore_hist_spec spec;
	unsigned int active = maxactive;
	struct pcore_client *own;
	int ret;

	ret = pcore_parse_hist(hist, &spec);
	if (ret)
		return ret;
	if (active > PCORE_MAXACTIVE_MAX) {
		pr_err("maxactive=%u: more than %d\n", active,
		       PCORE_MAXACTIVE_MAX);
		return -EINVAL;
	}
	/* The names live as long as the probes: copies, split in place. */
	pcore_targets = kstrdup(target, GFP_KERNEL);
	pcore_tracepoints = kstrdup(tracepoints, GFP_KERNEL);
	if ((target && !pcore_targets) || (tracepoints && !pcore_tracepoints)) {
		ret = -ENOMEM;
		goto err_free;
	}

	pcore_debugfs_init();
	ret = pcore_client_init();
	if (ret)
		goto err_debugfs;
	ret = pcore_tp_init();
	if (ret)
		goto err_client;
	own = pcore_client_get_own();
	ret = pcore_builtin_list(own, false, "target", pcore_targets, &spec,
				 active);
	if (!ret)
		ret = pcore_builtin_list(own, true, "tracepoints",
					 pcore_tracepoints, &spec, active);
	if (ret)
		goto err_tp;
	pcore_log_builtins();
	return 0;

err_tp:
	pcore_tp_exit();
err_client:
	pcore_client_exit();
err_debugfs:
	pcore_debugfs_exit();
err_free:
	pcore_builtins_free();
	return ret;
}

static void __exit pcore_exit(void)
{
	pcore_tp_exit();
	pcore_client_exit();
	pcore_debugfs_exit();
	pcore_builtins_free();
}

module_init(pcore_init);
module_exit(pcore_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("probe_core: per-CPU histograms from kprobes and tracepoints");
MODULE_VERSION("0.2.0");
