/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The registry (registry.c) and clients (client.c): pcore_lock, the lists,
 * lookups by name, the observer.
 * Part of pcore.h, which includes the units' headers in order.
 */
#ifndef PCORE_REGISTRY_H
#define PCORE_REGISTRY_H

/* The registry (registry.c). */
extern struct mutex pcore_lock;
extern struct list_head pcore_clients;
extern struct list_head pcore_probes;

/* Every client, every histogram or timer of @c, every probe: under pcore_lock. */
#define pcore_for_each_client(c) \
	list_for_each_entry(c, &pcore_clients, node)
#define pcore_for_each_hist(c, h) \
	list_for_each_entry(h, &(c)->hists, node)
#define pcore_for_each_timer(c, t) \
	list_for_each_entry(t, &(c)->timers, node)
#define pcore_for_each_probe(p) \
	list_for_each_entry(p, &pcore_probes, node)

struct pcore_client *pcore_client_get_own(void);
void pcore_client_set_own(struct pcore_client *c);
struct pcore_client *pcore_client_find(const char *name);
bool pcore_client_name_taken(struct pcore_client *c, const char *name);
struct pcore_hist *pcore_hist_lookup(const char *full);

/**
 * struct pcore_observer_ops - what the registry's observer (debugfs) is told
 * @client_added: a client is listed; called under pcore_lock, except for
 *	probe_core's own client, which is listed at init
 * @client_removed: a client is unlisted and is about to be freed, its
 *	histograms already gone; called without pcore_lock, may sleep
 * @hist_added: a histogram is listed in its client; called under pcore_lock
 * @hist_removed: a histogram is unlisted and nothing records into it any
 *	more; called without pcore_lock, may sleep (readers of its files
 *	may still hold a reference)
 */
struct pcore_observer_ops {
	void (*client_added)(struct pcore_client *c);
	void (*client_removed)(struct pcore_client *c);
	void (*hist_added)(struct pcore_hist *h);
	void (*hist_removed)(struct pcore_hist *h);
};

void pcore_observer_set(const struct pcore_observer_ops *ops);
void pcore_notify_client_added(struct pcore_client *c);
void pcore_notify_client_removed(struct pcore_client *c);
void pcore_notify_hist_added(struct pcore_hist *h);
void pcore_notify_hist_removed(struct pcore_hist *h);

int pcore_client_init(void);
void pcore_client_exit(void);
#endif /* PCORE_REGISTRY_H */
