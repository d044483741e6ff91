// SPDX-License-Identifier: GPL-2.0
/*
 * The record pools of keyed histograms: a key's first value on a CPU in
 * an interval claims a record (pcore_rec_claim(), any context); pools grow
 * from a work item and are trimmed at each harvest.  See "Memory" at the
 * top of map.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/slab.h>
#include "pcore.h"

/* Records in a chunk of a keyed histogram's pool: 64, or all it can need. */
#define PCORE_POOL_CHUNK	64

u32 pcore_pool_shift(u32 nslots)
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
struct pcore_cpu_hist *pcore_pool_rec(const struct pcore_hist *h,
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
int pcore_pool_add(struct pcore_hist *h, struct pcore_pool *p,
			  bool charged)
{
	size_t size = pcore_chunk_size(h);
	void *c;
	u32 i;

	if (!charged && pcore_mem_try(size)) {
		if (!h->pool_capped && !h->cap_logged)
			pcore_clog(pr_warn, h->client,
				   "hist %s: %zu more bytes for new keys would be over mem_max=%llu; values of new keys are dropped",
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

void pcore_pool_grow_work(struct work_struct *w)
{
	struct pcore_hist *h = container_of(w, struct pcore_hist, grow_work);

	mutex_lock(&h->lock);
	pcore_pool_grow(h);
	mutex_unlock(&h->lock);
}

/* From the hot path, any context: schedule_work() is not NMI-safe. */
void pcore_pool_grow_irq(struct irq_work *w)
{
	schedule_work(&container_of(w, struct pcore_hist, grow)->grow_work);
}

/*
 * A record for @slot on @cpu in bank @b, from its pool: the first value of
 * a key on a CPU in an interval.  Any context, NMI included: the counter
 * is claimed with cmpxchg, and a handler that interrupts us on this CPU
 * and claims the same slot first wins (ours stays empty until the bank's
 * harvest).  NULL when the pool is empty.
 */
noinline notrace struct pcore_cpu_hist *
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
 * The retired bank @b is empty: all of its pool is free again.  Trim it to
 * four times the records of the last two intervals, one chunk at least.
 */
void pcore_pool_reset(struct pcore_hist *h, u32 b)
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
