// SPDX-License-Identifier: GPL-2.0
/*
 * Clients: each handler module that uses the API has one, and everything
 * it creates belongs to it.  probe_core's own target= and tracepoints=
 * probes belong to probe_core's own client, whose directory is the
 * debugfs root.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "pcore.h"

DEFINE_MUTEX(pcore_lock);
LIST_HEAD(pcore_clients);

/* File names of a client directory: no histogram may take them. */
static const char * const pcore_reserved[] = { "probes", "timers", "clients" };

/**
 * pcore_check_name() - refuse names that are not plain identifiers
 * @what: the kind of object, for the log line (e.g. "hist")
 * @name: the name
 * @dashes: allow '-' too
 *
 * Names become debugfs directory names: ASCII letters and digits, '_',
 * '.' (not first, as in "foo.isra.0") and, when @dashes, '-'.  The
 * kernel's isalnum() also takes Latin-1 letters (0xc0-0xff): not here.
 *
 * Return: 0 or -EINVAL, with one log line naming the problem.
 */
int pcore_check_name(const char *what, const char *name, bool dashes)
{
	size_t len, i;

	if (!name) {
		pr_err("%s: no name\n", what);
		return -EINVAL;
	}
	len = strnlen(name, PCORE_NAME_MAX);
	if (!len) {
		pr_err("%s: empty name\n", what);
		return -EINVAL;
	}
	if (len == PCORE_NAME_MAX) {
		pr_err("%s: name '%.32s...' is %zu characters, longer than %d\n",
		       what, name, strlen(name), PCORE_NAME_MAX - 1);
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		if ((isascii(name[i]) && isalnum(name[i])) || name[i] == '_' ||
		    (name[i] == '.' && i) || (name[i] == '-' && dashes))
			continue;
		pr_err("%s: '%*pE' is not a valid name (bad character at %zu)\n",
		       what, (int)len, name, i);
		return -EINVAL;
	}
	return 0;
}

/**
 * pcore_check_args() - refuse a missing client or missing options
 * @what: the kind of object, for the log line (e.g. "hist")
 * @c: the client given to a creating function
 * @o: the options given to it
 *
 * Return: 0 or -EINVAL, with one log line naming what is missing.
 */
int pcore_check_args(const char *what, const struct pcore_client *c,
		     const void *o)
{
	if (IS_ERR_OR_NULL(c)) {
		pr_err("%s: no client (%s)\n", what,
		       c ? "an error pointer" : "NULL");
		return -EINVAL;
	}
	if (!o) {
		pr_err("%s: no options (NULL)\n", what);
		return -EINVAL;
	}
	return 0;
}

static struct pcore_client *pcore_own;

/* probe_core's own client; valid between pcore_client_init and _exit. */
struct pcore_client *pcore_client_get_own(void)
{
	return pcore_own;
}

static struct pcore_client *pcore_client_find(const char *name)
{
	struct pcore_client *c;

	list_for_each_entry(c, &pcore_clients, node)
		if (c != pcore_own && !strcmp(c->name, name))
			return c;
	return NULL;
}

/**
 * pcore_client_name_taken() - may @c give a histogram directory this name?
 * @c: client
 * @name: histogram name
 *
 * Caller holds pcore_lock.
 *
 * Return: true when a histogram of @c, a file of its directory or (in the
 * root directory) another client's directory already has the name.
 */
bool pcore_client_name_taken(struct pcore_client *c, const char *name)
{
	struct pcore_hist *h;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pcore_reserved); i++)
		if (!strcmp(name, pcore_reserved[i]))
			return true;
	list_for_each_entry(h, &c->hists, node)
		if (!strcmp(h->name, name))
			return true;
	return c == pcore_own && pcore_client_find(name);
}

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
	} else if (pcore_client_name_taken(pcore_own, c->name)) {
		pr_err("%s: probe_core has a probe of that name\n", c->name);
		ret = -EEXIST;
	} else {
		list_add_tail(&c->node, &pcore_clients);
		pcore_debugfs_add_client(c);
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
 * unlink the rest.  Caller holds pcore_lock and calls
 * pcore_client_release() after dropping it.
 */
static void pcore_client_unlink(struct pcore_client *c)
{
	pcore_client_detach_probes(c);
	list_del_init(&c->node);
}

/* Remove the directory (waiting for readers), then free. */
static void pcore_client_release(struct pcore_client *c)
{
	struct pcore_timer *t, *ttmp;
	struct pcore_hist *h, *htmp;

	list_for_each_entry_safe(h, htmp, &c->hists, node) {
		pcore_hist_unlink(h);
		pcore_hist_release(h);
	}
	if (c != pcore_own)
		pcore_debugfs_remove(&c->dir);
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
	list_for_each_entry(c, &pcore_clients, node) {
		if (c->owner == mod) {
			found = c;
			pcore_client_unlink(c);
			break;
		}
	}
	mutex_unlock(&pcore_lock);
	if (!found)
		return NOTIFY_DONE;
	pr_warn("%s: unloaded without pcore_client_destroy(); destroyed its client\n",
		found->name);
	pcore_client_release(found);
	return NOTIFY_OK;
}

static struct notifier_block pcore_module_nb = {
	.notifier_call = pcore_module_notify,
};

int pcore_client_init(void)
{
	int ret;

	pcore_own = pcore_client_alloc(THIS_MODULE);
	if (!pcore_own)
		return -ENOMEM;
	pcore_own->dir = pcore_debugfs_root();
	list_add_tail(&pcore_own->node, &pcore_clients);
	pcore_debugfs_add_own(pcore_own);
	ret = register_module_notifier(&pcore_module_nb);
	if (ret) {
		list_del(&pcore_own->node);
		kfree(pcore_own);
		pcore_own = NULL;
	}
	return ret;
}

/* Only probe_core's own client can be left: modules that use it pin us. */
void pcore_client_exit(void)
{
	unregister_module_notifier(&pcore_module_nb);
	pcore_client_destroy(pcore_own);
	pcore_own = NULL;
}
