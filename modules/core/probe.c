// SPDX-License-Identifier: GPL-2.0
/*
 * Probes: kretprobes that time a function from entry to return, and
 * tracepoint probes, each feeding one histogram.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/sched/clock.h>
#include "pcore.h"

LIST_HEAD(pcore_probes);
DEFINE_MUTEX(pcore_probes_lock);

/**
 * pcore_probe_check_name() - refuse names that are not plain identifiers
 * @param: what the name came from, for the log line (e.g. "target")
 * @name: the name
 *
 * Names become debugfs directory names and are looked up as symbols:
 * letters, digits, '_' and '.' (as in "foo.isra.0"), not starting with '.'.
 *
 * Return: 0 or -EINVAL, with one log line naming the problem.
 */
int pcore_probe_check_name(const char *param, const char *name)
{
	size_t len = strlen(name), i;

	if (!len) {
		pr_err("%s=: empty name\n", param);
		return -EINVAL;
	}
	if (len >= PCORE_NAME_MAX) {
		pr_err("%s=: name '%.32s...' is %zu characters, longer than %d\n",
		       param, name, len, PCORE_NAME_MAX - 1);
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		if (isalnum(name[i]) || name[i] == '_' ||
		    (name[i] == '.' && i))
			continue;
		pr_err("%s=: '%*pE' is not a symbol name (bad character at %zu)\n",
		       param, (int)len, name, i);
		return -EINVAL;
	}
	return 0;
}

static struct pcore_probe *pcore_probe_alloc(const char *name,
					     const struct pcore_hist_spec *spec)
{
	struct pcore_probe *p;
	const char *why = "";

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return ERR_PTR(-ENOMEM);
	strscpy(p->name, name, sizeof(p->name));
	p->hist = pcore_hist_alloc(spec, "ns", &why);
	if (IS_ERR(p->hist)) {
		int ret = PTR_ERR(p->hist);

		pr_err("%s: cannot create histogram: %s\n", name, why);
		kfree(p);
		return ERR_PTR(ret);
	}
	INIT_LIST_HEAD(&p->node);
	return p;
}

static void pcore_probe_free(struct pcore_probe *p)
{
	pcore_hist_free(p->hist);
	free_percpu(p->tp_last);
	kfree(p);
}

/* Per-instance data of the kretprobe: entry time. */
struct pcore_kret_data {
	u64 start;
};

static int pcore_kret_entry(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	struct pcore_kret_data *d = (struct pcore_kret_data *)ri->data;

	d->start = ktime_get_mono_fast_ns();
	return 0;
}
NOKPROBE_SYMBOL(pcore_kret_entry);

static int pcore_kret_return(struct kretprobe_instance *ri,
			     struct pt_regs *regs)
{
	struct pcore_kret_data *d = (struct pcore_kret_data *)ri->data;
	struct pcore_probe *p = container_of(get_kretprobe(ri),
					     struct pcore_probe, rp);
	u64 now = ktime_get_mono_fast_ns();

	/* The fast clock may step back by a hair across an update. */
	pcore_hist_add(p->hist, now > d->start ? now - d->start : 0);
	return 0;
}
NOKPROBE_SYMBOL(pcore_kret_return);

static int pcore_kret_try(struct pcore_probe *p, const char *prefix,
			  const char *sym, int maxactive)
{
	if (snprintf(p->symbol, sizeof(p->symbol), "%s%s", prefix, sym) >=
	    sizeof(p->symbol))
		return -ENOENT;
	memset(&p->rp, 0, sizeof(p->rp));
	p->rp.kp.symbol_name = p->symbol;
	p->rp.entry_handler = pcore_kret_entry;
	p->rp.handler = pcore_kret_return;
	p->rp.data_size = sizeof(struct pcore_kret_data);
	p->rp.maxactive = maxactive;
	return register_kretprobe(&p->rp);
}

/**
 * pcore_kretprobe_attach() - time a kernel function from entry to return
 * @name: function name as the user wrote it; "do_fork" and "sys_<name>"
 *	resolve to what this kernel calls them
 * @spec: histogram layout
 * @maxactive: how many calls may be in flight at once
 *
 * Return: the attached probe (not yet listed), or ERR_PTR(-ENOENT) for an
 * unknown function, or another error from kprobes; one log line says why.
 */
struct pcore_probe *pcore_kretprobe_attach(const char *name,
					   const struct pcore_hist_spec *spec,
					   int maxactive)
{
	static const char * const fork_aliases[] = PCORE_DO_FORK_ALIASES;
	struct pcore_probe *p;
	unsigned int i;
	int ret;

	p = pcore_probe_alloc(name, spec);
	if (IS_ERR(p))
		return p;
	p->kind = PCORE_PROBE_KRETPROBE;

	ret = pcore_kret_try(p, "", name, maxactive);
	for (i = 0; ret == -ENOENT && !strcmp(name, "do_fork") &&
		    i < ARRAY_SIZE(fork_aliases); i++)
		ret = pcore_kret_try(p, "", fork_aliases[i], maxactive);
	if (ret == -ENOENT && !strncmp(name, "sys_", 4))
		ret = pcore_kret_try(p, PCORE_SYSCALL_PREFIX, name + 4,
				     maxactive);
	if (ret) {
		if (ret == -ENOENT)
			pr_err("target=%s: no such kernel function\n", name);
		else
			pr_err("target=%s: kprobes refused %s (%pe): blacklisted, not a function entry, or not probe-able\n",
			       name, p->symbol, ERR_PTR(ret));
		pcore_probe_free(p);
		return ERR_PTR(ret);
	}
	return p;
}

/*
 * sched_switch: the time prev ran, i.e. between two switches on this CPU.
 * The first switch a CPU sees only starts its clock.
 */
static void notrace pcore_tp_sched_switch(PCORE_SCHED_SWITCH_PROTO)
{
	struct pcore_probe *p = data;
	u64 *last = this_cpu_ptr(p->tp_last);
	u64 now = local_clock();

	if (*last)
		pcore_hist_add(p->hist, now > *last ? now - *last : 0);
	*last = now;
}

static const struct {
	const char *name;
	void *fn;
} pcore_tp_handlers[] = {
	{ "sched_switch", pcore_tp_sched_switch },
};

struct pcore_tp_find {
	const char *name;
	struct tracepoint *tp;
};

static void pcore_tp_match(struct tracepoint *tp, void *priv)
{
	struct pcore_tp_find *f = priv;

	if (!strcmp(tp->name, f->name))
		f->tp = tp;
}

/**
 * pcore_tracepoint_attach() - attach a built-in handler to a tracepoint
 * @name: tracepoint name
 * @spec: histogram layout
 *
 * Return: the attached probe (not yet listed), ERR_PTR(-ENOENT) for an
 * unknown tracepoint, ERR_PTR(-EINVAL) for one without a built-in handler;
 * one log line says why.
 */
struct pcore_probe *pcore_tracepoint_attach(const char *name,
					    const struct pcore_hist_spec *spec)
{
	struct pcore_tp_find f = { .name = name };
	struct pcore_probe *p;
	unsigned int i;
	int ret;

	for_each_kernel_tracepoint(pcore_tp_match, &f);
	if (!f.tp) {
		pr_err("tracepoints=%s: no such tracepoint\n", name);
		return ERR_PTR(-ENOENT);
	}
	for (i = 0; i < ARRAY_SIZE(pcore_tp_handlers); i++)
		if (!strcmp(pcore_tp_handlers[i].name, name))
			break;
	if (i == ARRAY_SIZE(pcore_tp_handlers)) {
		pr_err("tracepoints=%s: no built-in handler for this tracepoint (built-in: sched_switch)\n",
		       name);
		return ERR_PTR(-EINVAL);
	}

	p = pcore_probe_alloc(name, spec);
	if (IS_ERR(p))
		return p;
	p->kind = PCORE_PROBE_TRACEPOINT;
	strscpy(p->symbol, name, sizeof(p->symbol));
	p->tp = f.tp;
	p->tp_fn = pcore_tp_handlers[i].fn;
	p->tp_last = alloc_percpu(u64);
	if (!p->tp_last) {
		ret = -ENOMEM;
		goto err_free;
	}
	ret = tracepoint_probe_register(p->tp, p->tp_fn, p);
	if (ret) {
		pr_err("tracepoints=%s: cannot register probe (%pe)\n", name,
		       ERR_PTR(ret));
		goto err_free;
	}
	return p;

err_free:
	pcore_probe_free(p);
	return ERR_PTR(ret);
}

/**
 * pcore_probe_detach() - stop a probe, remove its files and free it
 * @p: probe, already off pcore_probes
 *
 * Waits until no handler of @p runs and no reader is inside its files.
 */
void pcore_probe_detach(struct pcore_probe *p)
{
	switch (p->kind) {
	case PCORE_PROBE_KRETPROBE:
		unregister_kretprobe(&p->rp);
		break;
	case PCORE_PROBE_TRACEPOINT:
		tracepoint_probe_unregister(p->tp, p->tp_fn, p);
		tracepoint_synchronize_unregister();
		break;
	}
	pcore_debugfs_remove_probe(p);
	pcore_probe_free(p);
}

const char *pcore_probe_kind_name(const struct pcore_probe *p)
{
	return p->kind == PCORE_PROBE_KRETPROBE ? "kretprobe" : "tracepoint";
}

unsigned long pcore_probe_missed(const struct pcore_probe *p)
{
	return p->kind == PCORE_PROBE_KRETPROBE ?
	       pcore_kretprobe_nmissed(&p->rp) : 0;
}
