// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoint probes, including tracepoints of modules loaded later: the
 * attach function, probe ops, and the notifier that follows modules.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include "pcore.h"

/* Modules with tracepoints, as the tracepoint notifier reported them. */
struct pcore_tp_mod {
	struct list_head node;
	struct module *mod;
};
static LIST_HEAD(pcore_tp_mods);

/**
 * pcore_tp_hit() - count a tracepoint hit and get the handler's data
 * @data: the first argument of a tracepoint handler
 *
 * Tracepoints call handlers directly, so probe_core counts their hits only
 * through this call: make it the first thing a tracepoint handler does.
 * Hot path: no lock, no allocation.
 *
 * Return: the @priv given at attach.
 */
notrace void *pcore_tp_hit(void *data)
{
	struct pcore_probe *p = data;

	pcore_hit(p);
	return p->priv;
}
EXPORT_SYMBOL_GPL(pcore_tp_hit);
NOKPROBE_SYMBOL(pcore_tp_hit);

/* tracepoints */

struct pcore_tp_find {
	const char *name;
	struct tracepoint *tp;
};

static void pcore_tp_match(struct tracepoint *tp, void *priv)
{
	struct pcore_tp_find *f = priv;

	if (!f->tp && !strcmp(tp->name, f->name))
		f->tp = tp;
}

static struct tracepoint *pcore_tp_in_module(struct module *mod,
					     const char *name)
{
#ifdef CONFIG_TRACEPOINTS
	struct tracepoint *tp;
	unsigned int i;

	for (i = 0; i < mod->num_tracepoints; i++) {
		tp = tracepoint_ptr_deref(&mod->tracepoints_ptrs[i]);
		if (!strcmp(tp->name, name))
			return tp;
	}
#endif
	return NULL;
}

/* Find @name in the kernel or a loaded module; caller holds pcore_lock. */
static struct tracepoint *pcore_tp_find(const char *name, struct module **mod)
{
	struct pcore_tp_find f = { .name = name };
	struct pcore_tp_mod *m;

	*mod = NULL;
	for_each_kernel_tracepoint(pcore_tp_match, &f);
	if (f.tp)
		return f.tp;
	list_for_each_entry(m, &pcore_tp_mods, node) {
		f.tp = pcore_tp_in_module(m->mod, name);
		if (f.tp) {
			*mod = m->mod;
			return f.tp;
		}
	}
	return NULL;
}

/* Is there a tracepoint @name in the kernel or a loaded module? */
bool pcore_tp_exists(const char *name)
{
	struct module *mod;
	bool found;

	mutex_lock(&pcore_lock);
	found = pcore_tp_find(name, &mod);
	mutex_unlock(&pcore_lock);
	return found;
}

/* Register on @tp; caller holds pcore_lock. */
static int pcore_tp_register(struct pcore_probe *p, struct tracepoint *tp,
			     struct module *mod)
{
	int ret = tracepoint_probe_register(tp, p->tp_fn, p);

	if (ret) {
		pcore_perr(p, "cannot register on %s (%pe)", p->symbol,
			   ERR_PTR(ret));
		return ret;
	}
	p->tp = tp;
	p->tp_mod = mod;
	return 0;
}

/*
 * Unregister @p from its tracepoint, if it is on one.  Caller holds
 * pcore_lock and, when this returns true, calls
 * tracepoint_synchronize_unregister() (once for any number of probes)
 * before anything @p's handler uses is freed.
 */
static bool pcore_tp_disarm(struct pcore_probe *p)
{
	if (!p->tp)
		return false;
	tracepoint_probe_unregister(p->tp, p->tp_fn, p);
	p->tp = NULL;
	p->tp_mod = NULL;
	return true;
}

/*
 * On the tracepoint if it is in the kernel or a loaded module; else, with
 * %PCORE_TP_WAIT, listed to wait for its module.  Caller holds pcore_lock.
 */
static int pcore_tp_arm(struct pcore_probe *p, const void *opts)
{
	const struct pcore_tracepoint_opts *o = opts;
	struct tracepoint *tp;
	struct module *mod;

	tp = pcore_tp_find(p->symbol, &mod);
	if (tp)
		return pcore_tp_register(p, tp, mod);
	if (o->flags & PCORE_TP_WAIT)
		return 0;
	pcore_perr(p, "no such tracepoint: %s", p->symbol);
	return -ENOENT;
}

static u32 pcore_tp_disarm_op(struct pcore_probe *p, struct pcore_batch *b)
{
	return pcore_tp_disarm(p) ? PCORE_SYNC_TP : 0;
}

/* -ENOENT when its module is gone: it stays disabled. */
static int pcore_tp_set_enabled(struct pcore_probe *p, bool on)
{
	struct tracepoint *tp;
	struct module *mod;

	if (on) {
		tp = pcore_tp_find(p->symbol, &mod);
		return tp ? pcore_tp_register(p, tp, mod) : -ENOENT;
	}
	if (pcore_tp_disarm(p))
		tracepoint_synchronize_unregister();
	return 0;
}

static const struct pcore_probe_ops pcore_tracepoint_ops = {
	.kind = PCORE_PROBE_TRACEPOINT,
	.name_chars = "-",
	.arm = pcore_tp_arm,
	.disarm = pcore_tp_disarm_op,
	.set_enabled = pcore_tp_set_enabled,
};

/**
 * pcore_tracepoint_attach() - attach a handler to a tracepoint
 * @c: the client it belongs to
 * @o: what to attach; see struct pcore_tracepoint_opts
 *
 * Sleeps.
 *
 * Return: the probe, or ERR_PTR(-ENOENT) for a tracepoint that is not in
 * the kernel or a loaded module (unless %PCORE_TP_WAIT is given),
 * ERR_PTR(-EINVAL) for bad options, ERR_PTR(-EEXIST) when the client has a
 * probe of that name, ERR_PTR(-EPERM) when the kernel is locked down
 * (confidentiality), ERR_PTR(-E2BIG) over mem_max; one log line says
 * which.
 */
struct pcore_probe *pcore_tracepoint_attach(struct pcore_client *c,
					    const struct pcore_tracepoint_opts *o)
{
	struct pcore_probe *p;
	int ret;

	ret = pcore_check_args("tracepoint", c, o);
	if (ret)
		return ERR_PTR(ret);
	p = pcore_probe_new(c, &pcore_tracepoint_ops, o->name,
			    o->tracepoint ?: "tracepoint", o->hist, o->priv,
			    NULL);
	if (IS_ERR(p))
		return p;
	p->tp_fn = o->fn;
	ret = -EINVAL;
	if (!o->tracepoint || !o->fn) {
		pcore_perr(p, "needs a tracepoint name and a handler");
		goto out;
	}
	if (o->flags & ~PCORE_TP_WAIT) {
		pcore_perr(p, "unknown flags %#x", o->flags);
		goto out;
	}
	ret = pcore_check_symbol(p, o->tracepoint);
	if (ret)
		goto out;
	strscpy(p->symbol, o->tracepoint, sizeof(p->symbol));
out:
	return pcore_probe_add(p, o, ret);
}
EXPORT_SYMBOL_GPL(pcore_tracepoint_attach);

/*
 * Modules with tracepoints come and go: attach waiting probes to a module
 * that comes, move probes on a module that goes back to waiting.  Called
 * under tracepoint_module_list_mutex, before a going module is freed.
 */
static int pcore_tp_module_notify(struct notifier_block *nb,
				  unsigned long state, void *data)
{
	struct tp_module *tpm = data;
	struct pcore_tp_mod *m;
	struct pcore_probe *p;
	struct tracepoint *tp;

	mutex_lock(&pcore_lock);
	if (state == MODULE_STATE_COMING) {
		m = kzalloc(sizeof(*m), GFP_KERNEL);
		if (m) {
			m->mod = tpm->mod;
			list_add_tail(&m->node, &pcore_tp_mods);
		} else {
			/* The module loads anyway: say why it is not found. */
			pr_err("%s: out of memory: its tracepoints cannot be attached by name\n",
			       module_name(tpm->mod));
		}
		list_for_each_entry(p, &pcore_probes, node) {
			if (p->kind != PCORE_PROBE_TRACEPOINT || p->tp ||
			    p->disabled)
				continue;
			tp = pcore_tp_in_module(tpm->mod, p->symbol);
			if (tp && !pcore_tp_register(p, tp, tpm->mod))
				pr_info("%s%s%s: attached to %s in %s\n",
					p->client->name,
					*p->client->name ? "/" : "", p->name,
					p->symbol, module_name(tpm->mod));
		}
	} else if (state == MODULE_STATE_GOING) {
		/* One wait for all, newest first (see pcore_probes_free_batch()). */
		bool any = false;

		list_for_each_entry_reverse(p, &pcore_probes, node)
			if (p->kind == PCORE_PROBE_TRACEPOINT &&
			    p->tp_mod == tpm->mod)
				any |= pcore_tp_disarm(p);
		if (any)
			tracepoint_synchronize_unregister();
		list_for_each_entry(m, &pcore_tp_mods, node) {
			if (m->mod == tpm->mod) {
				list_del(&m->node);
				kfree(m);
				break;
			}
		}
	}
	mutex_unlock(&pcore_lock);
	return NOTIFY_OK;
}

static struct notifier_block pcore_tp_module_nb = {
	.notifier_call = pcore_tp_module_notify,
};

int pcore_tp_init(void)
{
	return register_tracepoint_module_notifier(&pcore_tp_module_nb);
}

void pcore_tp_exit(void)
{
	struct pcore_tp_mod *m, *tmp;

	unregister_tracepoint_module_notifier(&pcore_tp_module_nb);
	list_for_each_entry_safe(m, tmp, &pcore_tp_mods, node) {
		list_del(&m->node);
		kfree(m);
	}
}
