// SPDX-License-Identifier: GPL-2.0
/*
 * Histograms: creation, memory and the cap, teardown.  How histograms
 * work (intervals) is told at the top of hist.h, keys and memory in map.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include "pcore.h"

/*
 * What is wrong with @o's histogram options, or NULL; @l and @nslots get
 * its layout and key slots.  Logs nothing.
 */
static const char *pcore_hist_opts_why(const struct pcore_hist_opts *o,
				       struct pcore_layout *l, u32 *nslots)
{
	struct pcore_hist_spec spec = o->spec;
	const char *why = NULL;

	if (!spec.kind)
		spec.kind = PCORE_HIST_LOGLINEAR;
	if (pcore_layout_init(l, &spec, &why))
		return why;
	switch (o->key_mode) {
	case PCORE_KEYS_NONE:
		if (o->keys)
			why = "keys given without a key mode";
		*nslots = 1;
		break;
	case PCORE_KEYS_DIRECT:
	case PCORE_KEYS_HASHED:
	case PCORE_KEYS_STACK:
		if (!o->keys || o->keys > PCORE_KEYS_MAX) {
			why = "keys must be 1 to 65536";
			break;
		}
		*nslots = o->keys;
		if (o->key_mode != PCORE_KEYS_DIRECT)
			*nslots = roundup_pow_of_two(max(o->keys, 2U));
		break;
	default:
		why = "unknown key mode";
	}
	if (!why && o->key_mode == PCORE_KEYS_STACK &&
	    o->depth > PCORE_STACK_DEPTH_MAX)
		why = "depth must be 1 to 127 frames (0: 32)";
	if (!why && o->key_mode != PCORE_KEYS_STACK && o->depth)
		why = "depth is for PCORE_KEYS_STACK";
	if (!why && o->flags & ~(PCORE_HIST_KEY_ADDR | PCORE_HIST_USTACK |
				 PCORE_HIST_KEY_CGROUP | PCORE_HIST_PROC))
		why = "unknown flags";
	if (!why && (o->flags & PCORE_HIST_PROC) &&
	    o->key_mode != PCORE_KEYS_STACK)
		why = "PCORE_HIST_PROC needs PCORE_KEYS_STACK";
	if (!why && (o->flags & PCORE_HIST_PROC) &&
	    (o->flags & PCORE_HIST_USTACK))
		why = "PCORE_HIST_PROC and PCORE_HIST_USTACK are one or the other (user stacks carry the process)";
	if (!why && (o->flags & PCORE_HIST_USTACK) &&
	    o->key_mode != PCORE_KEYS_STACK)
		why = "PCORE_HIST_USTACK needs PCORE_KEYS_STACK";
	if (!why && (o->flags & PCORE_HIST_USTACK) &&
	    o->depth > PCORE_USTACK_KDEPTH_MAX)
		why = "with user stacks, depth must be 1 to 93 kernel frames (0: 32)";
	if (!why && (o->flags & PCORE_HIST_KEY_ADDR) &&
	    o->key_mode != PCORE_KEYS_HASHED)
		why = "PCORE_HIST_KEY_ADDR needs PCORE_KEYS_HASHED";
	if (!why && (o->flags & PCORE_HIST_KEY_CGROUP) &&
	    (o->key_mode != PCORE_KEYS_HASHED ||
	     (o->flags & PCORE_HIST_KEY_ADDR)))
		why = "PCORE_HIST_KEY_CGROUP needs PCORE_KEYS_HASHED, without PCORE_HIST_KEY_ADDR";
	if (!why && o->unit && !pcore_one_word(o->unit))
		why = "unit must be 1 to 15 characters, no spaces or control characters";
	if (!why && o->key_name && !pcore_one_word(o->key_name))
		why = "key name must be 1 to 15 characters, no spaces or control characters";
	return why;
}

static int pcore_hist_spec_check(const struct pcore_client *c,
				 const struct pcore_hist_opts *o,
				 struct pcore_layout *l, u32 *nslots)
{
	const char *why = pcore_hist_opts_why(o, l, nslots);

	if (why) {
		pcore_cerr(c, "hist %s: %s", o->name, why);
		return -EINVAL;
	}
	return 0;
}

static void pcore_hist_free(struct pcore_hist *h)
{
	pcore_map_free(&h->map);
	kvfree(h->scratch);
	kvfree(h->total);
	kvfree(h->cgt_keys);
	kvfree(h->cgt_snaps);
	free_percpu(h->dropped);
	pcore_mem_uncharge(h->mem);
	kfree(h);
}

/*
 * What a histogram of @nslots keys allocates at creation: what mem_max is
 * checked against first.  Pools grow later; "memory" in its stats is the
 * current total.  @max as pcore_map_mem()'s.
 */
static size_t pcore_hist_mem_at(const struct pcore_layout *l, u32 key_mode,
				u32 nslots, u32 depth, u32 flags, size_t *max)
{
	/* the map's banks, @scratch, @total, @dropped and the cgroups' totals */
	return sizeof(struct pcore_hist) +
	       pcore_map_mem(l, key_mode, nslots, depth, max) +
	       2 * pcore_snap_size(l) +
	       num_possible_cpus() * sizeof(local64_t) +
	       (flags & PCORE_HIST_KEY_CGROUP ?
		(size_t)nslots * (sizeof(u64) + pcore_snap_size(l)) : 0);
}

/*
 * The depth of a stack map of @o: its kernel frames, with
 * PCORE_STACK_D_USER for user stacks, PCORE_STACK_D_PROC for processes
 * (see stack.h).
 */
static u32 pcore_hist_depth(const struct pcore_hist_opts *o)
{
	return (o->depth ?: PCORE_STACK_DEPTH_DEFAULT) |
	       (o->flags & PCORE_HIST_USTACK ? PCORE_STACK_D_USER : 0) |
	       (o->flags & PCORE_HIST_PROC ? PCORE_STACK_D_PROC : 0);
}

/**
 * pcore_hist_mem() - the memory a histogram of these options takes
 * @o: the options pcore_hist_create() would be given
 * @max: if not NULL, gets the most it can take: a keyed histogram's
 *	per-CPU records come from pools that grow with the keys in use (to
 *	twice the records an interval used), up to every key on every
 *	possible CPU in both banks; an unkeyed histogram never grows
 *
 * For a module to say what a histogram costs before it creates it (keyed
 * histograms take bytes per key per possible CPU), or to size it to a
 * budget.  The stats file's "memory" is the current total, counted
 * against probe_core's mem_max.
 *
 * Context: any; logs nothing.
 * Return: the bytes pcore_hist_create() allocates for @o, or 0 for
 * options it would refuse (@max is then 0 too).
 */
size_t pcore_hist_mem(const struct pcore_hist_opts *o, size_t *max)
{
	struct pcore_layout l;
	u32 nslots, depth = 0;
	size_t mem;

	if (max)
		*max = 0;
	if (!o || pcore_hist_opts_why(o, &l, &nslots))
		return 0;
	if (o->key_mode == PCORE_KEYS_STACK)
		depth = pcore_hist_depth(o);
	mem = pcore_hist_mem_at(&l, o->key_mode, nslots, depth, o->flags,
				max);
	if (max)
		*max += mem;
	return mem;
}
EXPORT_SYMBOL_GPL(pcore_hist_mem);

/* Count @h->mem against mem_max; one log line when over. */
static int pcore_hist_charge(const struct pcore_client *c,
			     struct pcore_hist *h)
{
	int ret = pcore_mem_charge(h->mem, c->name, "hist", h->name);

	if (ret)
		h->mem = 0;
	return ret;
}

static int pcore_hist_alloc(struct pcore_hist *h)
{
	gfp_t gfp = GFP_KERNEL | __GFP_NOWARN;

	h->dropped = alloc_percpu_gfp(local64_t, gfp);
	h->scratch = kvmalloc(pcore_snap_size(&h->layout), gfp);
	h->total = kvmalloc(pcore_snap_size(&h->layout), gfp);
	if (!h->dropped || !h->scratch || !h->total)
		return -ENOMEM;
	pcore_snap_init(&h->layout, h->total);
	if (h->flags & PCORE_HIST_KEY_CGROUP) {
		size_t size = pcore_snap_size(&h->layout);
		u32 i;

		h->cgt_keys = kvmalloc_array(h->map.nslots, sizeof(u64), gfp);
		h->cgt_snaps = kvmalloc_array(h->map.nslots, size, gfp);
		if (!h->cgt_keys || !h->cgt_snaps)
			return -ENOMEM;
		for (i = 0; i < h->map.nslots; i++)
			h->cgt_keys[i] = U64_MAX;	/* free */
	}
	return pcore_map_alloc(&h->map, &h->layout);
}

/*
 * The map's pool would take @size more bytes: counted against mem_max,
 * or refused with one log line per histogram.  Under @h->lock, or before
 * @h is published.
 */
static int pcore_hist_map_charge(struct pcore_map *m, size_t size)
{
	struct pcore_hist *h = container_of(m, struct pcore_hist, map);

	if (pcore_mem_try(size)) {
		if (!m->pool_capped && !h->cap_logged)
			pcore_clog(pr_warn, h->client,
				   "hist %s: %zu more bytes for new keys would be over mem_max=%llu; values of new keys are dropped",
				   h->name, size, pcore_mem_cap());
		h->cap_logged = true;
		return -E2BIG;
	}
	WRITE_ONCE(h->mem, h->mem + size);
	return 0;
}

static void pcore_hist_map_uncharge(struct pcore_map *m, size_t size)
{
	struct pcore_hist *h = container_of(m, struct pcore_hist, map);

	WRITE_ONCE(h->mem, h->mem - size);
	pcore_mem_uncharge(size);
}

/* The map's growth, serialised with harvests, which trim it. */
static void pcore_hist_map_grow(struct pcore_map *m)
{
	struct pcore_hist *h = container_of(m, struct pcore_hist, map);

	mutex_lock(&h->lock);
	pcore_map_grow(m, h->cur, &h->layout);
	mutex_unlock(&h->lock);
}

static const struct pcore_map_ops pcore_hist_map_ops = {
	.charge = pcore_hist_map_charge,
	.uncharge = pcore_hist_map_uncharge,
	.grow = pcore_hist_map_grow,
};

/**
 * pcore_hist_create() - create a histogram, or a keyed set of histograms
 * @c: the client it belongs to
 * @o: what to create; see struct pcore_hist_opts
 *
 * Creates /sys/kernel/debug/probe_core/<module>/<name>/.  Sleeps.
 *
 * Return: the histogram, or ERR_PTR(-EINVAL) for bad options (one log line
 * says which), ERR_PTR(-E2BIG) when it would take probe_core's histograms
 * over mem_max, ERR_PTR(-EEXIST)
 * when the client has a histogram of that name, or ERR_PTR(-ENOMEM).
 */
struct pcore_hist *pcore_hist_create(struct pcore_client *c,
				     const struct pcore_hist_opts *o)
{
	struct pcore_layout l;
	struct pcore_hist *h;
	u32 nslots, depth = 0;
	int ret;

	ret = pcore_check_args("hist", c, o);
	if (ret)
		return ERR_PTR(ret);
	ret = pcore_check_name("hist", o->name, "-");
	if (ret)
		return ERR_PTR(ret);
	/* "<module>/<name>" must fit the ioctl ABI's names too. */
	if (*c->name && strlen(c->name) + 1 + strlen(o->name) >= PCORE_NAME_MAX) {
		pr_err("%s: hist %s: '%s/%s' is longer than %d characters\n",
		       c->name, o->name, c->name, o->name, PCORE_NAME_MAX - 1);
		return ERR_PTR(-EINVAL);
	}
	ret = pcore_hist_spec_check(c, o, &l, &nslots);
	if (ret)
		return ERR_PTR(ret);
	if (o->key_mode == PCORE_KEYS_STACK)
		depth = pcore_hist_depth(o);

	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h) {
		ret = -ENOMEM;
		goto err;
	}
	INIT_LIST_HEAD(&h->node);
	kref_init(&h->ref);
	mutex_init(&h->lock);
	h->client = c;
	h->created = ktime_get_real_ns();
	h->layout = l;
	h->flags = o->flags;
	pcore_map_init(&h->map, &h->layout, o->key_mode, nslots, depth,
		       &pcore_hist_map_ops);
	strscpy(h->name, o->name, sizeof(h->name));
	strscpy(h->unit, o->unit ?: "ns", sizeof(h->unit));
	strscpy(h->key_name, o->key_name ?:
		h->map.key_mode == PCORE_KEYS_STACK ? "stack" : "key",
		sizeof(h->key_name));
	h->mem = pcore_hist_mem_at(&l, h->map.key_mode, nslots, h->map.depth,
				   h->flags, NULL);
	ret = pcore_hist_charge(c, h);
	if (ret) {
		kfree(h);
		return ERR_PTR(ret);
	}
	ret = pcore_hist_alloc(h);
	if (ret)
		goto err;

	mutex_lock(&pcore_lock);
	if (pcore_client_name_taken(c, h->name)) {
		mutex_unlock(&pcore_lock);
		pcore_cerr(c, "hist %s: the name is taken", h->name);
		pcore_hist_free(h);
		return ERR_PTR(-EEXIST);
	}
	list_add_tail(&h->node, &c->hists);
	pcore_notify_hist_added(h);
	mutex_unlock(&pcore_lock);
	return h;

err:
	/* One line of ours instead of the allocators' warnings. */
	pcore_cerr(c, "hist %s: out of memory (%zu bytes)", o->name,
		   pcore_hist_mem_at(&l, o->key_mode, nslots, depth, o->flags,
				     NULL));
	if (h)
		pcore_hist_free(h);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(pcore_hist_create);

/*
 * Destruction is in two steps, because debugfs_remove() waits for readers
 * and readers take pcore_lock: unlink under pcore_lock, then release
 * without it.  Unlinked, @h is never again looked at through its client
 * (PCORE_IOC_LIST's second pass checks @h->unlinked under pcore_lock):
 * the client may go.  A client's teardown unlinks all of its histograms
 * at once and leaves them on its list, which nothing else can reach any
 * more, to release them; pcore_hist_destroy() takes its one off the list.
 */
void pcore_hist_unlink(struct pcore_hist *h)
{
	lockdep_assert_held(&pcore_lock);
	h->unlinked = true;
	if (h->probe)
		h->probe->hist = NULL;
	h->probe = NULL;
}

static void pcore_hist_kref_release(struct kref *ref)
{
	pcore_hist_free(container_of(ref, struct pcore_hist, ref));
}

/*
 * Drop a reference; the last one frees.  Only @h's own memory is touched
 * after pcore_hist_release(): not its client or probe, which may be gone.
 */
void pcore_hist_put(struct pcore_hist *h)
{
	kref_put(&h->ref, pcore_hist_kref_release);
}

/*
 * Nothing records into @h any more and it is unlinked; sleeps.  Nothing
 * queues the pool's growth again: it is over before @h's client can go
 * (its capped-pool warning names the client), whoever holds @h after.
 */
void pcore_hist_release(struct pcore_hist *h)
{
	pcore_map_stop(&h->map);
	pcore_notify_hist_removed(h);
	pcore_hist_put(h);
}

/**
 * pcore_hist_destroy() - remove a histogram and free it
 * @h: histogram, or an ERR_PTR() or NULL (ignored)
 *
 * Every probe whose handler may add to @h must be detached first.  A
 * histogram still bound to a probe (its @hist) is left alone, with a log
 * line: the client frees it with the probe.  Waits for readers of its
 * files.  Sleeps.
 */
void pcore_hist_destroy(struct pcore_hist *h)
{
	if (IS_ERR_OR_NULL(h))
		return;
	mutex_lock(&pcore_lock);
	if (h->probe) {
		pcore_cerr(h->client, "hist %s: still fed by probe %s; detach it first",
			   h->name, h->probe->name);
		mutex_unlock(&pcore_lock);
		return;
	}
	pcore_hist_unlink(h);
	list_del_init(&h->node);
	mutex_unlock(&pcore_lock);
	pcore_hist_release(h);
}
EXPORT_SYMBOL_GPL(pcore_hist_destroy);
