// SPDX-License-Identifier: GPL-2.0
/*
 * The registry: pcore_lock, the lists of clients and probes (each client
 * lists its histograms and timers), lookups by name, and the observer
 * that the core tells when a client or histogram comes or goes.
 *
 * The core (client, hist, probe, timer) lists and unlists objects here;
 * the export files (debugfs, chardev) find and read them here.  The
 * observer is how debugfs learns of objects without the core calling it.
 * This file uses nothing else of probe_core's.
 */
#include <linux/mutex.h>
#include <linux/list.h>
#include <linux/string.h>
#include "pcore.h"

DEFINE_MUTEX(pcore_lock);
LIST_HEAD(pcore_clients);
LIST_HEAD(pcore_probes);

static struct pcore_client *pcore_own;

/*
 * Set at init before the first object and cleared at exit after the
 * last: no object comes or goes meanwhile, so readers need no lock.
 */
static const struct pcore_observer_ops *pcore_observer;

/* File names of a client directory: no histogram may take them. */
static const char * const pcore_reserved[] = { "probes", "timers", "clients" };

/* probe_core's own client; valid between pcore_client_init and _exit. */
struct pcore_client *pcore_client_get_own(void)
{
	return pcore_own;
}

void pcore_client_set_own(struct pcore_client *c)
{
	pcore_own = c;
}

/* The client of module @name (not probe_core's own); caller holds pcore_lock. */
struct pcore_client *pcore_client_find(const char *name)
{
	struct pcore_client *c;

	pcore_for_each_client(c)
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
	pcore_for_each_hist(c, h)
		if (!strcmp(h->name, name))
			return true;
	return c == pcore_own && pcore_client_find(name);
}

/*
 * Histogram "<name>" (probe_core's own) or "<module>/<name>"; caller holds
 * pcore_lock.
 */
struct pcore_hist *pcore_hist_lookup(const char *full)
{
	const char *slash = strchr(full, '/'), *name = full;
	struct pcore_client *c;
	struct pcore_hist *h;

	pcore_for_each_client(c) {
		if (slash) {
			if (c == pcore_own || strlen(c->name) != slash - full ||
			    strncmp(c->name, full, slash - full))
				continue;
			name = slash + 1;
		} else if (c != pcore_own) {
			continue;
		}
		pcore_for_each_hist(c, h)
			if (!strcmp(h->name, name))
				return h;
		return NULL;
	}
	return NULL;
}

/**
 * pcore_observer_set() - register the observer of clients and histograms
 * @ops: its callbacks, or NULL to remove it
 *
 * At most one; set it before the first client is created and remove it
 * after the last is gone.
 */
void pcore_observer_set(const struct pcore_observer_ops *ops)
{
	pcore_observer = ops;
}

/* pcore_notify_<event>(@obj): tell the observer, if there is one. */
#define PCORE_NOTIFY(event, ptr_type)					\
void pcore_notify_##event(ptr_type obj)					\
{									\
	if (pcore_observer)						\
		pcore_observer->event(obj);				\
}

PCORE_NOTIFY(client_added, struct pcore_client *)
PCORE_NOTIFY(client_removed, struct pcore_client *)
PCORE_NOTIFY(hist_added, struct pcore_hist *)
PCORE_NOTIFY(hist_removed, struct pcore_hist *)
