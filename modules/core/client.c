// SPDX-License-Identifier: GPL-2.0
/*
 * Clients: each handler module that uses the API has one, and everything
 * it creates belongs to it.  probe_core's own target= and tracepoints=
 * probes belong to probe_core's own client, whose directory is the
 * debugfs root.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "pcore.h"

static struct pcore_client *pcore_client_alloc(struct module *owner)
{
	struct pcore_client *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!c)
		return NULL;
	c->owner = owner;
	INIT_LIST_HEAD(&c->node);
	INIT_LIST_HEAD(&c->hists);
	INIT_LIST_HEAD(&c->timers);
	INIT_LIST_HEAD(&c->probes);
	return c;
}

/**
 * pcore_client_create() - register a handler module with probe_core
 * @owner: the module, THIS_MODULE
 *
 * Creates /sys/kernel/debug/probe_core/<module name>/.  One client per
 * module.  While it exists, probe_core cannot be unloaded (the module
 * uses its symbols).  Sleeps.
 *
 * Return: the client, or ERR_PTR(-EINVAL) without an owner,
 * ERR_PTR(-EEXIST) when the module has a client or one of probe_core's own
 * probes has its name, or ERR_PTR(-ENOMEM); one log line says which.
 */
struct pcore_client *pcore_client_create(struct module *owner)
{
	struct pcore_client *c;
	int ret = 0;

	if (!owner || owner == THIS_MODULE) {
		pr_err("client: needs the handler module (THIS_MODULE)\n");
		return ERR_PTR(-EINVAL);
	}
	c = pcore_client_alloc(owner);
	if (!c) {
		pr_err("%s: client: out of memory\n", module_name(owner));
		return ERR_PTR(-ENOMEM);
	}
	strscpy(c->name, module_name(owner), sizeof(c->name));
	mutex_lock(&pcore_lock);
	if (pcore_client_find(c->name)) {
		pr_err("%s: the module has a client already\n", c->name);
		ret = -EEXIST;
	} else if (pcore_client_name_taken(pcore_client_get_own(), c->name)) {
		pr_err("%s: probe_core has a probe of that name\n", c->name);
		ret = -EEXIST;
	} else {
		list_add_tail(&c->node, &pcore_clients);
		pcore_notify_client_added(c);
	}
	mutex_unlock(&pcore_lock);
	if (ret) {
		kfree(c);
		return ERR_PTR(ret);
	}
	return c;
}
EXPORT_SYMBOL_GPL(pcore_client_create);

/*
 * Probes first, so that no handler runs while what it uses is freed; then
 * unlink the rest: the client from the list of clients, and each of its
 * histograms (readers that hold one must no longer look at the client).
 * Caller holds pcore_lock and calls pcore_client_release() after dropping
 * it.
 */
static void pcore_client_unlink(struct pcore_client *c)
{
	struct pcore_hist *h;

	pcore_client_detach_probes(c);
	list_del_init(&c->node);
	list_for_each_entry(h, &c->hists, node)
		pcore_hist_unlink(h);
}

/*
 * Free @c and all it has; the observer removes its files (and waits).
 * Unlinked, @c and its lists are ours alone.
 */
static void pcore_client_release(struct pcore_client *c)
{
	struct pcore_timer *t, *ttmp;
	struct pcore_hist *h, *htmp;

	list_for_each_entry_safe(h, htmp, &c->hists, node) {
		list_del_init(&h->node);
		pcore_hist_release(h);
	}
	pcore_notify_client_removed(c);
	if (!list_empty(&c->timers)) {
		/* Off pcore_timers, then one grace period for all of them. */
		mutex_lock(&pcore_lock);
		list_for_each_entry(t, &c->timers, node)
			list_del_rcu(&t->gnode);
		mutex_unlock(&pcore_lock);
		synchronize_rcu();
	}
	list_for_each_entry_safe(t, ttmp, &c->timers, node)
		pcore_timer_release(t);
	kfree(c);
}

/**
 * pcore_client_destroy() - detach and free everything a client created
 * @c: client, or an ERR_PTR() or NULL (ignored)
 *
 * Detaches its probes first (waiting until none of their handlers runs),
 * then frees its timers and histograms and removes its directory.  Call it
 * from the module's exit function; a module that unloads without calling
 * it has it called when it goes.  Sleeps.
 */
void pcore_client_destroy(struct pcore_client *c)
{
	if (IS_ERR_OR_NULL(c))
		return;
	mutex_lock(&pcore_lock);
	pcore_client_unlink(c);
	mutex_unlock(&pcore_lock);
	pcore_uprobe_put_files();
	pcore_client_release(c);
}
EXPORT_SYMBOL_GPL(pcore_client_destroy);

/* A module that goes with its client still there: clean up after it. */
static int pcore_module_notify(struct notifier_block *nb, unsigned long state,
			       void *data)
{
	struct module *mod = data;
	struct pcore_client *c, *found = NULL;

	if (state != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mutex_lock(&pcore_lock);
	pcore_for_each_client(c) {
		if (c->owner == mod) {
			found = c;
			pcore_client_unlink(c);
			break;
		}
	}
	mutex_unlock(&pcore_lock);
	if (!found)
		return NOTIFY_DONE;
	pcore_uprobe_put_files();
	pr_warn("%s: unloaded without pcore_client_destroy(); destroyed its client\n",
		found->name);
	pcore_client_release(found);
	return NOTIFY_OK;
}

static struct notifier_block pcore_module_nb = {
	.notifier_call = pcore_module_notify,
};

/* probe_core's own client: the observer makes the root its directory. */
int pcore_client_init(void)
{
	struct pcore_client *own;
	int ret;

	own = pcore_client_alloc(THIS_MODULE);
	if (!own)
		return -ENOMEM;
	pcore_client_set_own(own);
	list_add_tail(&own->node, &pcore_clients);
	pcore_notify_client_added(own);
	ret = register_module_notifier(&pcore_module_nb);
	if (ret) {
		list_del(&own->node);
		kfree(own);
		pcore_client_set_own(NULL);
	}
	return ret;
}

/* Only probe_core's own client can be left: modules that use it pin us. */
void pcore_client_exit(void)
{
	unregister_module_notifier(&pcore_module_nb);
	pcore_client_destroy(pcore_client_get_own());
	pcore_client_set_own(NULL);
}
