// SPDX-License-Identifier: GPL-2.0
/*
 * Histograms: the kernel side of the engine.  Per-CPU records in two
 * banks, keyed slots, intervals, the memory cap.
 *
 * Intervals
 * ---------
 * A histogram has two banks, each with a record per key and possible CPU.
 * The hot path writes the bank that @cur names, read once with preemption
 * off: probe handlers, and NMIs, run with preemption off, so to RCU each
 * write is a read-side critical section.  A harvest (an interval read or
 * a reset), under @lock:
 *
 *   1. flips @cur to the other bank, which the last harvest left empty;
 *   2. waits for a grace period: after it, no handler writes the old bank;
 *   3. moves the old bank's values out in process context, and frees its
 *      keys and labels.
 *
 * Nothing runs with interrupts off and no IPI is sent, whatever the number
 * of keys and buckets, and every event is in exactly one interval with its
 * count, sum, min and max.  Readers that do not reset take @lock and read
 * the bank being written: the values since the last harvest.
 *
 * Each harvest also adds what it moved out, all keys and CPUs merged, to
 * @total.  @total plus the banks is the histogram since its creation,
 * whoever reads intervals or resets: what a reader that must never see a
 * count go down (a Prometheus exporter) reads, with pcore_hist_read_total().
 * It costs one snapshot per histogram and one merge per slot and harvest.
 *
 * Keys
 * ----
 * Each bank has its own key table (hashed keys) and labels, and a harvest
 * empties the table of the bank it moves out: every interval read and
 * every reset reclaims every key.  A key lives as long as it has values in
 * the current interval.  That is the rule because it is lossless (the
 * values of a reclaimed key went out with the interval), because the table
 * emptied is one no handler can be writing, and because a key whose owner
 * lives on comes back with its next value, under its owner's label of the
 * time.  A histogram keyed by pid keeps working under endless process
 * churn as long as the keys seen between two interval reads fit.
 *
 * A free slot holds U64_MAX: that key, and no other, is refused (counted
 * as dropped).  PCORE_KEY_BUSY marks a stack slot whose frames are being
 * written, in stack tables only: in a hashed table it is a key like any
 * other, (u64)-ENOENT.
 *
 * Memory
 * ------
 * A histogram without keys allocates its records at creation: one per
 * possible CPU and bank, of the layout's size rounded up to a cache line.
 * A keyed one allocates, per bank, a table of record pointers per possible
 * CPU (8 bytes a slot), the key table and labels, and a pool of records in
 * chunks of 64: a key's first value on a CPU in an interval takes the
 * pool's next record (an atomic counter, no lock), and the harvest of the
 * bank gives them all back.  The records in use are bounded by the keys in
 * use times the CPUs they show up on, not by the table's capacity.
 *
 * When a pool is half used, the hot path queues an irq_work, which
 * schedules a work item that adds chunks to both banks (GFP_KERNEL, in
 * process context) until each holds twice what its bank uses.  A value that
 * finds the pool empty (a burst faster than the work item) is counted as
 * dropped, as is one whose key finds no slot.  A harvest trims the pool of
 * the bank it empties to at most four times the records of the last
 * intervals (at least one chunk): the rule that gives memory back.
 *
 * All of it is counted against mem_max (a parameter of probe_core): at
 * creation, where a histogram over the cap is refused, and as pools grow,
 * where a chunk over the cap is not added (one log line per histogram; the
 * next harvest tries again).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/err.h>
#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include "pcore.h"

/* Slots a hashed key looks at before it is dropped. */
#define PCORE_KEY_PROBES	32

/* A record padded to a cache line: CPUs never share one. */
static size_t pcore_stride(const struct pcore_layout *l)
{
	return ALIGN(pcore_cpu_hist_size(l), SMP_CACHE_BYTES);
}

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
	if (!why && o->flags & ~PCORE_HIST_KEY_ADDR)
		why = "unknown flags";
	if (!why && (o->flags & PCORE_HIST_KEY_ADDR) &&
	    o->key_mode != PCORE_KEYS_HASHED)
		why = "PCORE_HIST_KEY_ADDR needs PCORE_KEYS_HASHED";
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
		pr_err("%s%shist %s: %s\n", c->name, *c->name ? ": " : "",
		       o->name, why);
		return -EINVAL;
	}
	return 0;
}

/* Records in a chunk of a keyed histogram's pool: 64, or all it can need. */
#define PCORE_POOL_CHUNK	64

static u32 pcore_pool_shift(u32 nslots)
{
	u64 cap = (u64)nslots * num_possible_cpus();

	return ilog2(min_t(u64, roundup_pow_of_two(cap), PCORE_POOL_CHUNK));
}

/* Bytes of a chunk of @h's pool. */
static size_t pcore_chunk_size(const struct pcore_hist *h)
{
	return ((size_t)1 << h->pool_shift) * h->stride;
}

/* Record @u of pool @p. */
static struct pcore_cpu_hist *pcore_pool_rec(const struct pcore_hist *h,
					     const struct pcore_pool *p, u32 u)
{
	return p->chunk[u >> h->pool_shift] +
	       (size_t)(u & ((1U << h->pool_shift) - 1)) * h->stride;
}

/*
 * Add a chunk to pool @p, counted against mem_max unless @charged (the
 * first, counted with the rest at creation); under @h->lock, or before @h
 * is published.  Once over the cap, @h->pool_capped stops the hot path
 * asking, until the next harvest.
 */
static int pcore_pool_add(struct pcore_hist *h, struct pcore_pool *p,
			  bool charged)
{
	size_t size = pcore_chunk_size(h);
	void *c;
	u32 i;

	if (!charged && pcore_mem_try(size)) {
		if (!h->pool_capped && !h->cap_logged)
			pr_warn("%s%shist %s: %zu more bytes for new keys would be over mem_max=%llu; values of new keys are dropped\n",
				h->client->name, *h->client->name ? ": " : "",
				h->name, size, pcore_mem_cap());
		h->cap_logged = true;
		WRITE_ONCE(h->pool_capped, true);
		return -E2BIG;
	}
	c = kvmalloc(size, GFP_KERNEL | __GFP_NOWARN);
	if (!c) {
		if (!charged)
			pcore_mem_uncharge(size);
		return -ENOMEM;
	}
	for (i = 0; i < 1U << h->pool_shift; i++)
		pcore_cpu_hist_init(&h->layout, c + (size_t)i * h->stride);
	p->chunk[p->nchunks++] = c;
	if (!charged)
		WRITE_ONCE(h->mem, h->mem + size);
	/* The chunk's records, then the count that hands them out. */
	smp_store_release(&p->n, p->nchunks << h->pool_shift);
	return 0;
}

/* Free the last chunk of pool @p, none of whose records is handed out. */
static void pcore_pool_trim(struct pcore_hist *h, struct pcore_pool *p)
{
	size_t size = pcore_chunk_size(h);

	p->nchunks--;
	WRITE_ONCE(p->n, p->nchunks << h->pool_shift);
	kvfree(p->chunk[p->nchunks]);
	p->chunk[p->nchunks] = NULL;
	WRITE_ONCE(h->mem, h->mem - size);
	pcore_mem_uncharge(size);
}

/* Grow both pools to twice what the bank being written uses. */
static void pcore_pool_grow(struct pcore_hist *h)
{
	u32 want = 2 * atomic_read(&h->pool[h->cur].used);
	int b;

	lockdep_assert_held(&h->lock);
	for (b = 0; b < 2; b++)
		while (h->pool[b].n < want && h->pool[b].nchunks < h->pool_chunks)
			if (pcore_pool_add(h, &h->pool[b], false))
				return;
}

static void pcore_pool_grow_work(struct work_struct *w)
{
	struct pcore_hist *h = container_of(w, struct pcore_hist, grow_work);

	mutex_lock(&h->lock);
	pcore_pool_grow(h);
	mutex_unlock(&h->lock);
}

/* From the hot path, any context: schedule_work() is not NMI-safe. */
static void pcore_pool_grow_irq(struct irq_work *w)
{
	schedule_work(&container_of(w, struct pcore_hist, grow)->grow_work);
}

static void pcore_hist_free(struct pcore_hist *h)
{
	int b, cpu;
	u32 i;

	for (b = 0; b < 2; b++) {
		if (h->cpu[b])
			for_each_possible_cpu(cpu)
				kvfree(h->cpu[b][cpu]);
		kfree(h->cpu[b]);
		kvfree(h->keys[b]);
		kvfree(h->labels[b]);
		kvfree(h->frames[b]);
		for (i = 0; h->pool[b].chunk && i < h->pool[b].nchunks; i++)
			kvfree(h->pool[b].chunk[i]);
		kfree(h->pool[b].chunk);
	}
	kvfree(h->scratch);
	kvfree(h->total);
	free_percpu(h->dropped);
	pcore_mem_uncharge(h->mem);
	kfree(h);
}

/*
 * What a histogram of @nslots keys allocates at creation: what mem_max is
 * checked against first.  Pools grow later; "memory" in its stats is the
 * current total.
 */
static size_t pcore_hist_mem_at(const struct pcore_layout *l, u32 key_mode,
				u32 nslots, u32 depth)
{
	size_t stride = pcore_stride(l);
	size_t bank = nr_cpu_ids * sizeof(void *);

	if (!key_mode) {
		bank += (size_t)num_possible_cpus() * stride;
	} else {
		u32 shift = pcore_pool_shift(nslots);
		u64 cap = (u64)nslots * num_possible_cpus();

		bank += (size_t)num_possible_cpus() * nslots * sizeof(void *) +
			(DIV_ROUND_UP(cap, 1U << shift) * sizeof(void *)) +
			(stride << shift);
	}
	if (key_mode == PCORE_KEYS_DIRECT || key_mode == PCORE_KEYS_HASHED)
		bank += (size_t)nslots * PCORE_LABEL_MAX;
	if (key_mode == PCORE_KEYS_HASHED || key_mode == PCORE_KEYS_STACK)
		bank += (size_t)nslots * sizeof(u64);
	if (key_mode == PCORE_KEYS_STACK)
		bank += (size_t)nslots * pcore_stack_words(depth) *
			sizeof(unsigned long);
	/* the banks, @scratch, @total and @dropped */
	return sizeof(struct pcore_hist) + 2 * bank + 2 * pcore_snap_size(l) +
	       num_possible_cpus() * sizeof(local64_t);
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
	u32 nslots, depth = 0, shift;
	size_t mem, chunks;

	if (max)
		*max = 0;
	if (!o || pcore_hist_opts_why(o, &l, &nslots))
		return 0;
	if (o->key_mode == PCORE_KEYS_STACK)
		depth = o->depth ?: PCORE_STACK_DEPTH_DEFAULT;
	mem = pcore_hist_mem_at(&l, o->key_mode, nslots, depth);
	if (max) {
		*max = mem;
		if (o->key_mode) {
			/* each bank starts with one chunk of its pool */
			shift = pcore_pool_shift(nslots);
			chunks = DIV_ROUND_UP((u64)nslots * num_possible_cpus(),
					      1U << shift);
			*max += 2 * (chunks - 1) * (pcore_stride(&l) << shift);
		}
	}
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
	u32 i, nslots = h->nslots;
	int b, cpu;

	h->dropped = alloc_percpu_gfp(local64_t, gfp);
	h->scratch = kvmalloc(pcore_snap_size(&h->layout), gfp);
	h->total = kvmalloc(pcore_snap_size(&h->layout), gfp);
	if (!h->dropped || !h->scratch || !h->total)
		return -ENOMEM;
	pcore_snap_init(&h->layout, h->total);
	for (b = 0; b < 2; b++) {
		h->cpu[b] = kcalloc(nr_cpu_ids, sizeof(void *), gfp);
		if (!h->cpu[b])
			return -ENOMEM;
		for_each_possible_cpu(cpu) {
			h->cpu[b][cpu] = h->key_mode ?
				kvzalloc_node(nslots * sizeof(void *), gfp,
					      cpu_to_node(cpu)) :
				kvmalloc_node(h->stride, gfp, cpu_to_node(cpu));
			if (!h->cpu[b][cpu])
				return -ENOMEM;
			if (!h->key_mode)
				pcore_cpu_hist_init(&h->layout, h->cpu[b][cpu]);
		}
		if (!h->key_mode)
			continue;
		h->pool[b].chunk = kcalloc(h->pool_chunks, sizeof(void *), gfp);
		if (!h->pool[b].chunk)
			return -ENOMEM;
		if (pcore_pool_add(h, &h->pool[b], true))
			return -ENOMEM;
		if (h->key_mode == PCORE_KEYS_STACK) {
			h->frames[b] = kvmalloc_array((size_t)nslots *
						      pcore_stack_words(h->depth),
						      sizeof(unsigned long), gfp);
			if (!h->frames[b])
				return -ENOMEM;
		} else {
			h->labels[b] = kvcalloc(nslots, sizeof(struct pcore_label),
						gfp);
			if (!h->labels[b])
				return -ENOMEM;
		}
		if (h->key_mode != PCORE_KEYS_DIRECT) {
			h->keys[b] = kvmalloc_array(nslots, sizeof(u64), gfp);
			if (!h->keys[b])
				return -ENOMEM;
			for (i = 0; i < nslots; i++)
				h->keys[b][i] = U64_MAX;
		}
	}
	return 0;
}

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
		depth = o->depth ?: PCORE_STACK_DEPTH_DEFAULT;

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
	h->key_mode = o->key_mode;
	h->flags = o->flags;
	h->depth = depth;
	if (h->key_mode == PCORE_KEYS_STACK)
		h->seed = get_random_u32();
	h->nslots = nslots;
	h->stride = pcore_stride(&l);
	h->pool_shift = pcore_pool_shift(nslots);
	h->pool_chunks = DIV_ROUND_UP((u64)nslots * num_possible_cpus(),
				      1U << h->pool_shift);
	init_irq_work(&h->grow, pcore_pool_grow_irq);
	INIT_WORK(&h->grow_work, pcore_pool_grow_work);
	strscpy(h->name, o->name, sizeof(h->name));
	strscpy(h->unit, o->unit ?: "ns", sizeof(h->unit));
	strscpy(h->key_name, o->key_name ?:
		h->key_mode == PCORE_KEYS_STACK ? "stack" : "key",
		sizeof(h->key_name));
	h->mem = pcore_hist_mem_at(&l, h->key_mode, nslots, h->depth);
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
		pr_err("%s%shist %s: the name is taken\n", c->name,
		       *c->name ? ": " : "", h->name);
		pcore_hist_free(h);
		return ERR_PTR(-EEXIST);
	}
	list_add_tail(&h->node, &c->hists);
	pcore_notify_hist_added(h);
	mutex_unlock(&pcore_lock);
	return h;

err:
	/* One line of ours instead of the allocators' warnings. */
	pr_err("%s%shist %s: out of memory (%zu bytes)\n", c->name,
	       *c->name ? ": " : "", o->name,
	       pcore_hist_mem_at(&l, o->key_mode, nslots, depth));
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
	irq_work_sync(&h->grow);
	cancel_work_sync(&h->grow_work);
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
		pr_err("%s%shist %s: still fed by probe %s; detach it first\n",
		       h->client->name, *h->client->name ? ": " : "", h->name,
		       h->probe->name);
		mutex_unlock(&pcore_lock);
		return;
	}
	pcore_hist_unlink(h);
	list_del_init(&h->node);
	mutex_unlock(&pcore_lock);
	pcore_hist_release(h);
}
EXPORT_SYMBOL_GPL(pcore_hist_destroy);

/*
 * A record for @slot on @cpu in bank @b, from its pool: the first value of
 * a key on a CPU in an interval.  Any context, NMI included: the counter
 * is claimed with cmpxchg, and a handler that interrupts us on this CPU
 * and claims the same slot first wins (ours stays empty until the bank's
 * harvest).  NULL when the pool is empty.
 */
static noinline notrace struct pcore_cpu_hist *
pcore_rec_claim(struct pcore_hist *h, u32 b, int cpu, u32 slot)
{
	struct pcore_cpu_hist **at = (struct pcore_cpu_hist **)h->cpu[b][cpu] + slot;
	struct pcore_pool *p = &h->pool[b];
	struct pcore_cpu_hist *rec, *old;
	int u = atomic_read(&p->used);
	u32 n;

	do {
		/* Pairs with pcore_pool_add(): the records come first. */
		n = smp_load_acquire(&p->n);
		if (u >= n)
			break;
	} while (!atomic_try_cmpxchg(&p->used, &u, u + 1));
	/* Half used: ask for more, unless it is all there is or may be. */
	if (u >= n >> 1 && n < h->pool_chunks << h->pool_shift &&
	    !READ_ONCE(h->pool_capped))
		irq_work_queue(&h->grow);
	if (u >= n)
		return NULL;
	rec = pcore_pool_rec(h, p, u);
	old = cmpxchg(at, NULL, rec);
	return old ?: rec;
}
NOKPROBE_SYMBOL(pcore_rec_claim);

/*
 * The end of every keyed hot path: @v into @slot of bank @b on this CPU
 * (the slot's first value here claims its record from the pool), or a
 * drop, counted, when @slot is negative or the pool is empty.
 * Preemption is off.
 */
static __always_inline void pcore_slot_record(struct pcore_hist *h, u32 b,
					      int slot, u64 v)
{
	struct pcore_cpu_hist *rec = NULL;
	int cpu = raw_smp_processor_id();

	if (likely(slot >= 0)) {
		rec = pcore_rec(h, b, cpu, slot);
		if (unlikely(!rec))
			rec = pcore_rec_claim(h, b, cpu, slot);
	}
	if (likely(rec))
		pcore_record(&h->layout, rec, v);
	else
		local64_inc(this_cpu_ptr(h->dropped));
}

/**
 * pcore_hist_add_key() - record a value under a key; hot path
 * @h: keyed histogram (for one without keys, @key and @label are ignored)
 * @key: the key: an index below the key count for %PCORE_KEYS_DIRECT, any
 *	value but U64_MAX (a free slot's mark: dropped) for
 *	%PCORE_KEYS_HASHED.  U64_MAX - 1 ((u64)-ENOENT) is a key like others.
 * @label: a name shown with the key, or NULL: the first label given for a
 *	key in an interval is kept (up to 31 characters; spaces and control
 *	characters are shown as '_'), until the interval ends
 * @v: value
 *
 * No lock, no allocation, no division; safe in any context, NMI included.
 * A key that finds no slot is counted as dropped.  Keys are reclaimed
 * when their interval ends (an interval read or a reset).
 */
void notrace pcore_hist_add_key(struct pcore_hist *h, u64 key,
				const char *label, u64 v)
{
	struct pcore_label *labels;
	int slot = -1;
	u32 s, i, n, b;
	u64 k, *keys;

	preempt_disable_notrace();
	/* One bank for the whole event: see "Intervals" at the top. */
	b = READ_ONCE(h->cur);
	labels = h->labels[b];
	switch (h->key_mode) {
	case PCORE_KEYS_NONE:
		slot = 0;
		label = NULL;
		break;
	case PCORE_KEYS_DIRECT:
		if (key >= h->nslots)
			goto out;
		slot = key;
		if (label && READ_ONCE(labels[slot].s[0]))
			label = NULL;
		break;
	case PCORE_KEYS_STACK:
		goto out;	/* its keys come from pcore_hist_add_stack() */
	default:
		if (key == U64_MAX)
			goto out;
		keys = h->keys[b];
		i = hash_64(key, ilog2(h->nslots));
		for (n = 0; n < PCORE_KEY_PROBES && n < h->nslots; n++) {
			s = (i + n) & (h->nslots - 1);
			k = READ_ONCE(keys[s]);
			if (k != key && k != U64_MAX)
				continue;
			/*
			 * A bank's keys are freed only while no handler
			 * writes it: a free slot ends the chain.
			 */
			if (k == U64_MAX)
				k = cmpxchg(&keys[s], U64_MAX, key);
			if (k != U64_MAX && k != key)
				continue;
			/* Ours (a free slot we took): give it the label. */
			if (k == key)
				label = NULL;
			slot = s;
			break;
		}
		if (slot < 0)
			goto out;
	}
	if (label) {
		char *dst = labels[slot].s;

		for (i = 0; i < PCORE_LABEL_MAX - 1 && label[i]; i++)
			dst[i] = label[i];
	}
out:
	pcore_slot_record(h, b, slot, v);
	preempt_enable_notrace();
}
EXPORT_SYMBOL_GPL(pcore_hist_add_key);
NOKPROBE_SYMBOL(pcore_hist_add_key);

static __always_inline bool pcore_frames_equal(const unsigned long *a,
					       const unsigned long *b,
					       unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/*
 * The slot of stack @f (@n words, key @key) in bank @b, claimed for it
 * when it has none; -1 when it finds no free slot.  A slot is claimed
 * with cmpxchg (free -> busy), its frames written, then its key
 * published.  A busy slot may be another handler writing this same
 * stack: we go on, and may claim a second slot for it.  Such twins are
 * rare (the first values of a stack, on two CPUs at once) and readers
 * merge them (stacks file, probectl).
 */
static __always_inline int pcore_stack_slot(struct pcore_hist *h, u32 b,
					    const unsigned long *f,
					    unsigned int n, u64 key)
{
	unsigned long *frames = h->frames[b];
	u32 i, slot, words = pcore_stack_words(h->depth);
	u64 k, *keys = h->keys[b];

	for (i = 0; i < PCORE_KEY_PROBES && i < h->nslots; i++) {
		slot = ((u32)key + i) & (h->nslots - 1);
		/* Pairs with the release below: its frames come first. */
		k = smp_load_acquire(&keys[slot]);
		if (k == U64_MAX) {
			k = cmpxchg(&keys[slot], U64_MAX, PCORE_KEY_BUSY);
			if (k == U64_MAX) {
				u32 j;

				for (j = 0; j < n; j++)
					frames[slot * words + j] = f[j];
				/* The frames, then the key that shows them. */
				smp_store_release(&keys[slot], key);
				return slot;
			}
			/* Lost the race: read the winner's key as above. */
			k = smp_load_acquire(&keys[slot]);
		}
		if (k == key &&
		    pcore_frames_equal(&frames[slot * words], f, n))
			return slot;
	}
	return -1;
}

/* The slot of the @n frames @f with PCORE_STACK_F_* @flags in bank @b, or -1. */
static __always_inline int pcore_frames_slot(struct pcore_hist *h, u32 b,
					     const unsigned long *f,
					     unsigned int n, u32 flags)
{
	u64 key = jhash2((const u32 *)f, n * sizeof(*f) / sizeof(u32),
			 h->seed) | (u64)n << 32 | (u64)flags << 40;

	return pcore_stack_slot(h, b, f, n, key);
}

/* The stack of @regs, of @task or of our caller, under which @v goes. */
static __always_inline void pcore_hist_add_frames(struct pcore_hist *h,
						  struct pt_regs *regs,
						  struct task_struct *task,
						  u32 flags, u64 v)
{
	unsigned int n;
	unsigned long *f;
	int slot = -1;
	u32 b = 0, ff;

	preempt_disable_notrace();
	if (unlikely(h->key_mode != PCORE_KEYS_STACK))
		goto out;
	ff = flags & PCORE_STACK_IDLE;
	f = pcore_stack_get(regs, task, h->depth, &ff, &n);
	if (!f)
		goto out;
	/* Never more than a slot holds, whatever the capture gave. */
	n = min(n, pcore_stack_words(h->depth));
	/* One bank for the whole event: see "Intervals" at the top. */
	b = READ_ONCE(h->cur);
	slot = pcore_frames_slot(h, b, f, n, ff);
	pcore_stack_put();
out:
	pcore_slot_record(h, b, slot, v);
	preempt_enable_notrace();
}

/**
 * pcore_hist_add_stack() - record a value under the current stack; hot path
 * @h: a %PCORE_KEYS_STACK histogram (values given to others are dropped)
 * @regs: the registers a kprobe handler, or an interrupt, was given: the
 *	stack where they were saved (in user mode: one frame, "[user]" with
 *	the task's comm); or NULL: the stack of the caller, less probe_core's
 *	own frames
 * @flags: %PCORE_STACK_IDLE or 0
 * @v: value (0 to count, for a %PCORE_HIST_COUNT histogram)
 *
 * The innermost @h's depth frames are kept; a deeper stack is kept cut,
 * and shown so.  No lock, no allocation, no division; safe in any
 * context, NMI included.  A stack that finds no slot, or that is captured
 * while a capture it interrupted holds its context's buffer, is counted as
 * dropped.  Stacks are reclaimed as other keys are: when their interval
 * ends.
 */
void notrace pcore_hist_add_stack(struct pcore_hist *h, struct pt_regs *regs,
				  u32 flags, u64 v)
{
	pcore_hist_add_frames(h, regs, NULL, flags, v);
}
EXPORT_SYMBOL_GPL(pcore_hist_add_stack);
NOKPROBE_SYMBOL(pcore_hist_add_stack);

/**
 * pcore_hist_add_task_stack() - record a value under a task's stack; hot path
 * @h: a %PCORE_KEYS_STACK histogram (values given to others are dropped)
 * @task: current, or a task that is not running and cannot run until this
 *	returns: the one a sched_switch handler switches to (it is not on
 *	any CPU yet).  Its stack is where it left its CPU.
 * @flags: %PCORE_STACK_IDLE or 0
 * @v: value
 *
 * As pcore_hist_add_stack(), for sched_switch handlers: off-CPU time by
 * the stack that waited.  The stack of a task a switch puts back, with a
 * kretprobe's return pending, is not taken (the kernel does not let a
 * runnable task's stack be walked through the return trampoline; it
 * warns): the value is dropped, counted.  tracepoints=offcpu takes the
 * stack at the switch that takes the task off its CPU, when it is
 * current, instead.
 */
void notrace pcore_hist_add_task_stack(struct pcore_hist *h,
				       struct task_struct *task, u32 flags,
				       u64 v)
{
	pcore_hist_add_frames(h, NULL, task, flags, v);
}
EXPORT_SYMBOL_GPL(pcore_hist_add_task_stack);
NOKPROBE_SYMBOL(pcore_hist_add_task_stack);

/*
 * As pcore_hist_add_frames(), for a stack taken earlier: @n frames @f
 * with PCORE_STACK_F_* @flags (an offcpu timer keeps a task's stack from
 * the switch that took it off its CPU, when it was current, to the one
 * that puts it back).  Cut to @h's depth; no frames is a drop.  Hot path.
 */
void notrace pcore_hist_add_frames_taken(struct pcore_hist *h,
					 const unsigned long *f,
					 unsigned int n, u32 flags, u64 v)
{
	int slot = -1;
	u32 b = 0;

	preempt_disable_notrace();
	if (unlikely(h->key_mode != PCORE_KEYS_STACK) || !n)
		goto out;
	if (n > h->depth) {
		n = h->depth;
		flags |= PCORE_STACK_F_CUT;
	}
	/* One bank for the whole event: see "Intervals" at the top. */
	b = READ_ONCE(h->cur);
	slot = pcore_frames_slot(h, b, f, n, flags);
out:
	pcore_slot_record(h, b, slot, v);
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(pcore_hist_add_frames_taken);

/**
 * pcore_hist_add() - record a value; hot path
 * @h: histogram (for a keyed one, the value goes to key 0)
 * @v: value
 *
 * No lock, no allocation, no division; safe in any context, NMI included.
 */
void notrace pcore_hist_add(struct pcore_hist *h, u64 v)
{
	preempt_disable_notrace();
	pcore_hist_add_nopreempt(h, v);
	preempt_enable_notrace();
}
EXPORT_SYMBOL_GPL(pcore_hist_add);
NOKPROBE_SYMBOL(pcore_hist_add);

/**
 * pcore_hist_count() - count one event, without a value; hot path
 * @h: histogram, best of kind %PCORE_HIST_COUNT (for a keyed one, the
 *	event goes to key 0)
 *
 * One per-CPU increment: no sum, min or max to update.  An event counted
 * so reads as the value 0.  No lock, no allocation, no division; safe in
 * any context, NMI included.
 */
void notrace pcore_hist_count(struct pcore_hist *h)
{
	preempt_disable_notrace();
	pcore_hist_count_nopreempt(h);
	preempt_enable_notrace();
}
EXPORT_SYMBOL_GPL(pcore_hist_count);
NOKPROBE_SYMBOL(pcore_hist_count);

/*
 * An address as the reader may see it: what "%pK" prints, in the
 * reader's context (kptr_restrict, its CAP_SYSLOG), read back.
 */
static u64 pcore_key_restricted(u64 key)
{
	char buf[2 * sizeof(void *) + 1];
	u64 v;

	snprintf(buf, sizeof(buf), "%pK", (void *)(unsigned long)key);
	return kstrtou64(buf, 16, &v) ? 0 : v;
}

/*
 * Slot @slot of bank @b into @kv: its key as its reader may see it (see
 * %PCORE_HIST_KEY_ADDR) and its label ("" when none).  Process context.
 */
static void pcore_keyval_fill(const struct pcore_hist *h, u32 b, u32 slot,
			      struct pcore_keyval *kv)
{
	u32 i;

	kv->slot = slot;
	kv->key = slot;
	if (h->key_mode == PCORE_KEYS_HASHED ||
	    h->key_mode == PCORE_KEYS_STACK) {
		/* Acquire: pairs with pcore_stack_slot()'s release of the frames. */
		kv->key = smp_load_acquire(&h->keys[b][slot]);
	}
	if (h->flags & PCORE_HIST_KEY_ADDR)
		kv->key = pcore_key_restricted(kv->key);
	if (h->key_mode == PCORE_KEYS_STACK) {
		u32 words = pcore_stack_words(h->depth);
		unsigned long *f = &h->frames[b][(size_t)slot * words];

		if (kv->key == U64_MAX || kv->key == PCORE_KEY_BUSY)
			kv->key = 0;	/* no stack (yet): no frames */
		/* The room of a slot, and of the caller's copy, at most. */
		kv->nframes = min_t(u32, (kv->key >> 32) & 0xff, words);
		kv->fflags = kv->key >> 40;
		kv->key = (u32)kv->key;
		/* Into the room the caller gave, or where they are. */
		if (kv->frames)
			memcpy(kv->frames, f, kv->nframes * sizeof(*f));
		else
			kv->frames = f;
	}
	for (i = 0; i < PCORE_LABEL_MAX - 1 && h->labels[b]; i++) {
		kv->label[i] = READ_ONCE(h->labels[b][slot].s[i]);
		if (!kv->label[i])
			break;
	}
	kv->label[i] = '\0';
}

/*
 * Does a hashed or stack slot of bank @b hold a key (whose frames are
 * written)?  Direct slots are always looked at.  Only a stack slot is
 * ever busy: PCORE_KEY_BUSY is a hashed key like others.
 */
static bool pcore_slot_taken(const struct pcore_hist *h, u32 b, u32 slot)
{
	u64 k;

	if (h->key_mode == PCORE_KEYS_NONE || h->key_mode == PCORE_KEYS_DIRECT)
		return true;
	k = READ_ONCE(h->keys[b][slot]);
	return k != U64_MAX &&
	       (k != PCORE_KEY_BUSY || h->key_mode != PCORE_KEYS_STACK);
}

/*
 * Is a slot whose values are @s in use?  A direct key is when it has a
 * value or a label (a label comes with a value: an interval read may have
 * moved the value out since).
 */
static bool pcore_slot_shown(const struct pcore_hist *h, u32 b, u32 slot,
			     const struct pcore_snap *s)
{
	return h->key_mode != PCORE_KEYS_DIRECT || s->count ||
	       READ_ONCE(h->labels[b][slot].s[0]);
}

/**
 * pcore_hist_read() - add one slot's counts to a snapshot, without reset
 * @h: histogram, its @lock held
 * @cpu: the CPU to read, or -1 for all possible CPUs
 * @slot: slot
 * @s: snapshot of @h's layout
 *
 * Reads the bank being written: the values since the last harvest.
 */
void pcore_hist_read(struct pcore_hist *h, int cpu, u32 slot,
		     struct pcore_snap *s)
{
	struct pcore_cpu_hist *rec;

	lockdep_assert_held(&h->lock);
	if (cpu >= 0) {
		rec = pcore_rec(h, h->cur, cpu, slot);
		if (rec)
			pcore_snap_add_cpu(s, rec);
		return;
	}
	for_each_possible_cpu(cpu) {
		rec = pcore_rec(h, h->cur, cpu, slot);
		if (rec)
			pcore_snap_add_cpu(s, rec);
	}
}

/**
 * pcore_hist_walk() - every key in use since the last harvest
 * @h: histogram, its @lock held
 * @cpu: the CPU to read, or -1 for all possible CPUs
 * @fn: called for each key, with its values read without reset in a
 *	snapshot of @h's that is valid until @fn returns; or NULL
 * @arg: for @fn
 *
 * One key at a time, with no allocation.  A histogram without keys has
 * one, always in use.
 *
 * Return: the number of keys.
 */
u32 pcore_hist_walk(struct pcore_hist *h, int cpu, pcore_walk_fn fn,
		    void *arg)
{
	struct pcore_keyval kv = { .s = h->scratch };
	u32 i, n = 0;

	lockdep_assert_held(&h->lock);
	for (i = 0; i < h->nslots; i++) {
		if (!pcore_slot_taken(h, h->cur, i))
			continue;
		pcore_snap_init(&h->layout, kv.s);
		pcore_hist_read(h, h->key_mode == PCORE_KEYS_DIRECT ? -1 : cpu,
				i, kv.s);
		if (!pcore_slot_shown(h, h->cur, i, kv.s))
			continue;
		n++;
		if (!fn)
			continue;
		if (cpu >= 0 && h->key_mode == PCORE_KEYS_DIRECT) {
			pcore_snap_init(&h->layout, kv.s);
			pcore_hist_read(h, cpu, i, kv.s);
		}
		kv.frames = NULL;	/* a stack's: where they are */
		pcore_keyval_fill(h, h->cur, i, &kv);
		fn(arg, &kv);
	}
	return n;
}

/**
 * pcore_hist_slot_key() - the key of a slot in use since the last harvest
 * @h: histogram, its @lock held
 * @slot: slot, below @h->nslots
 * @kv: its key and label (@kv->s untouched); a stack's frames are copied
 *	into @kv->frames when it is set (room for pcore_stack_words() of
 *	@h's depth), else @kv->frames points to them
 *
 * Return: whether the slot holds a key: always for a histogram without
 * keys; for direct keys, when the slot has a label.
 */
bool pcore_hist_slot_key(struct pcore_hist *h, u32 slot,
			 struct pcore_keyval *kv)
{
	lockdep_assert_held(&h->lock);
	pcore_keyval_fill(h, h->cur, slot, kv);
	if (h->key_mode == PCORE_KEYS_DIRECT)
		return *kv->label;
	return pcore_slot_taken(h, h->cur, slot);
}

u64 pcore_hist_dropped(const struct pcore_hist *h)
{
	return pcore_pcpu_sum(h->dropped);
}

/**
 * pcore_kvs_free() - free what pcore_hist_harvest() gave
 * @kvs: the keys of an interval
 */
void pcore_kvs_free(struct pcore_kvs *kvs)
{
	kvfree(kvs->kv);
	kvfree(kvs->snaps);
	kvfree(kvs->frames);
	kvs->kv = NULL;
	kvs->snaps = NULL;
	kvs->frames = NULL;
	kvs->n = 0;
}

/* Room for @n keys of @h's layout. */
static int pcore_kvs_alloc(const struct pcore_hist *h, struct pcore_kvs *kvs,
			   u32 n)
{
	size_t size = pcore_snap_size(&h->layout);
	u32 i;

	kvs->n = n;
	kvs->kv = kvcalloc(max(n, 1U), sizeof(*kvs->kv), GFP_KERNEL);
	kvs->snaps = kvmalloc_array(max(n, 1U), size, GFP_KERNEL);
	kvs->frames = NULL;
	if (h->key_mode == PCORE_KEYS_STACK)
		kvs->frames = kvmalloc_array((size_t)max(n, 1U) *
					     pcore_stack_words(h->depth),
					     sizeof(unsigned long), GFP_KERNEL);
	if (!kvs->kv || !kvs->snaps ||
	    (h->key_mode == PCORE_KEYS_STACK && !kvs->frames)) {
		pcore_kvs_free(kvs);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		kvs->kv[i].s = kvs->snaps + (size_t)i * size;
		/* A stack's frames are copied: the bank is written again. */
		if (kvs->frames)
			kvs->kv[i].frames = kvs->frames + (size_t)i *
					    pcore_stack_words(h->depth);
	}
	return 0;
}

/*
 * Move slot @slot of the retired bank @b into @h->scratch and empty it; a
 * keyed slot's records go back to the pool.
 */
static void pcore_slot_harvest(struct pcore_hist *h, u32 b, u32 slot)
{
	struct pcore_cpu_hist *rec;
	int cpu;

	pcore_snap_init(&h->layout, h->scratch);
	for_each_possible_cpu(cpu) {
		rec = pcore_rec(h, b, cpu, slot);
		if (!rec)
			continue;
		pcore_cpu_harvest(rec, h->scratch);
		if (h->key_mode)
			((struct pcore_cpu_hist **)h->cpu[b][cpu])[slot] = NULL;
	}
	pcore_snap_merge(h->total, h->scratch);
}

/*
 * The retired bank @b is empty: all of its pool is free again.  Trim it to
 * four times the records of the last two intervals, one chunk at least.
 */
static void pcore_pool_reset(struct pcore_hist *h, u32 b)
{
	struct pcore_pool *p = &h->pool[b];
	u32 chunk = 1U << h->pool_shift, used;

	if (!h->key_mode)
		return;
	/* Records claimed by a handler that lost a race are still empty. */
	p->peak = atomic_read(&p->used);
	atomic_set(&p->used, 0);
	used = max3(p->peak, h->pool[!b].peak,
		    (u32)atomic_read(&h->pool[!b].used));
	while (p->nchunks > 1 && p->n - chunk >= 4 * used)
		pcore_pool_trim(h, p);
	WRITE_ONCE(h->pool_capped, false);
}

/* The keys of the retired bank @b that an interval read shows. */
static u32 pcore_bank_used(struct pcore_hist *h, u32 b)
{
	u32 i, n = 0;
	struct pcore_cpu_hist *rec;
	int cpu;

	for (i = 0; i < h->nslots; i++) {
		if (!pcore_slot_taken(h, b, i))
			continue;
		pcore_snap_init(&h->layout, h->scratch);
		if (h->key_mode == PCORE_KEYS_DIRECT)
			for_each_possible_cpu(cpu) {
				rec = pcore_rec(h, b, cpu, i);
				if (rec)
					pcore_snap_add_cpu(h->scratch, rec);
			}
		n += pcore_slot_shown(h, b, i, h->scratch);
	}
	return n;
}

/**
 * pcore_hist_harvest() - end the interval: move its values out, free its keys
 * @h: histogram
 * @out: where the keys of the interval go (free them with
 *	pcore_kvs_free()), in slot order; or NULL to drop the values (a reset)
 *
 * See "Intervals" at the top of this file: a grace period, then work in
 * process context only.  Sleeps.
 *
 * Return: 0, or -ENOMEM when @out could not be allocated.  Then nothing is
 * lost: the interval stays as it is, and the next harvest moves it out
 * (while values since go on to the interval after).
 */
int pcore_hist_harvest(struct pcore_hist *h, struct pcore_kvs *out)
{
	u32 b, i, j = 0;

	mutex_lock(&h->lock);
	b = h->cur;
	if (h->pending) {
		b = !b;		/* a failed harvest's interval comes first */
	} else {
		/* Our emptying of the other bank comes before its first use. */
		smp_store_release(&h->cur, !b);
		synchronize_rcu();
	}
	if (out && pcore_kvs_alloc(h, out, pcore_bank_used(h, b))) {
		h->pending = true;
		mutex_unlock(&h->lock);
		return -ENOMEM;
	}
	h->pending = false;
	for (i = 0; i < h->nslots; i++) {
		if (!pcore_slot_taken(h, b, i))
			continue;
		pcore_slot_harvest(h, b, i);
		if (out && j < out->n && pcore_slot_shown(h, b, i, h->scratch)) {
			pcore_keyval_fill(h, b, i, &out->kv[j]);
			memcpy(out->kv[j++].s, h->scratch,
			       pcore_snap_size(&h->layout));
		}
		if (h->labels[b])
			memset(&h->labels[b][i], 0, sizeof(h->labels[b][i]));
		if (h->keys[b])
			h->keys[b][i] = U64_MAX;
	}
	pcore_pool_reset(h, b);
	mutex_unlock(&h->lock);
	return 0;
}

/**
 * pcore_hist_lifetime() - values recorded since the histogram was created
 * @h: histogram, its @lock held
 *
 * Return: harvested values plus those of both banks, all keys.
 */
u64 pcore_hist_lifetime(struct pcore_hist *h)
{
	u64 n;
	u32 b, i;
	int cpu;

	lockdep_assert_held(&h->lock);
	n = h->total->count;
	for (b = 0; b < 2; b++) {
		if (!h->key_mode) {
			for_each_possible_cpu(cpu)
				n += pcore_cpu_hist_count(&h->layout,
							  h->cpu[b][cpu]);
			continue;
		}
		/* Every record handed out; those that lost a race are empty. */
		for (i = 0; i < atomic_read(&h->pool[b].used); i++)
			n += pcore_cpu_hist_count(&h->layout,
						  pcore_pool_rec(h, &h->pool[b], i));
	}
	return n;
}

/**
 * pcore_hist_read_total() - the histogram since its creation, all keys merged
 * @h: histogram, its @lock held
 * @s: snapshot of @h's layout, filled in
 *
 * What harvests moved out (@total) plus both banks: the one being written
 * and the one a failed harvest left (the other is empty).  Holding @lock,
 * no harvest moves values between them meanwhile, so no count, sum or
 * bucket read here is ever below what an earlier call read; min and max
 * are those of every value since creation.
 */
void pcore_hist_read_total(struct pcore_hist *h, struct pcore_snap *s)
{
	struct pcore_cpu_hist *rec;
	u32 b, i;
	int cpu;

	lockdep_assert_held(&h->lock);
	memcpy(s, h->total, pcore_snap_size(&h->layout));
	for (b = 0; b < 2; b++)
		for (i = 0; i < h->nslots; i++)
			for_each_possible_cpu(cpu) {
				rec = pcore_rec(h, b, cpu, i);
				if (rec)
					pcore_snap_add_cpu(s, rec);
			}
}
