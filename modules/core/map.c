// SPDX-License-Identifier: GPL-2.0
/*
 * The keyed map: creation and freeing, the record pools (a key's first
 * value on a CPU in an interval claims a record with pcore_map_claim(),
 * any context; pools grow from a work item and are trimmed at each bank
 * reset), and what readers of a bank no handler writes use.  See the top
 * of map.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/random.h>
#include <linux/slab.h>
#include "pcore.h"

/* Records in a chunk of a keyed map's pool: 64, or all it can need. */
#define PCORE_POOL_CHUNK	64

static u32 pcore_pool_shift(u32 nslots)
{
	u64 cap = (u64)nslots * num_possible_cpus();

	return ilog2(min_t(u64, roundup_pow_of_two(cap), PCORE_POOL_CHUNK));
}

/* A record padded to a cache line: CPUs never share one. */
static u32 pcore_map_stride(const struct pcore_layout *l)
{
	return ALIGN(pcore_cpu_hist_size(l), SMP_CACHE_BYTES);
}

/**
 * pcore_map_mem() - the memory a map takes
 * @l: the layout of its records
 * @key_mode: an enum pcore_key_mode
 * @nslots: its keys (1 without keys)
 * @depth: %PCORE_KEYS_STACK: frames per stack; else 0
 * @max: if not NULL, gets what its pools may add: up to every key on
 *	every possible CPU in both banks (0 without keys)
 *
 * Return: the bytes of both banks that pcore_map_alloc() allocates.
 */
size_t pcore_map_mem(const struct pcore_layout *l, u32 key_mode, u32 nslots,
		     u32 depth, size_t *max)
{
	size_t stride = pcore_map_stride(l);
	size_t bank = nr_cpu_ids * sizeof(void *);
	u32 shift = pcore_pool_shift(nslots);
	u64 chunks = DIV_ROUND_UP((u64)nslots * num_possible_cpus(),
				  1U << shift);

	if (max)
		*max = 0;
	if (!key_mode) {
		bank += (size_t)num_possible_cpus() * stride;
	} else {
		bank += (size_t)num_possible_cpus() * nslots * sizeof(void *) +
			(chunks * sizeof(void *)) + (stride << shift);
		/* each bank starts with one chunk of its pool */
		if (max)
			*max = 2 * (chunks - 1) * (stride << shift);
	}
	if (key_mode == PCORE_KEYS_DIRECT || key_mode == PCORE_KEYS_HASHED)
		bank += (size_t)nslots * PCORE_LABEL_MAX;
	if (key_mode == PCORE_KEYS_HASHED || key_mode == PCORE_KEYS_STACK)
		bank += (size_t)nslots * sizeof(u64);
	if (key_mode == PCORE_KEYS_STACK)
		bank += (size_t)nslots * pcore_stack_words(depth) *
			sizeof(unsigned long);
	return 2 * bank;
}

/* Bytes of a chunk of @m's pool. */
static size_t pcore_chunk_size(const struct pcore_map *m)
{
	return ((size_t)1 << m->pool_shift) * m->stride;
}

/*
 * Record @u of pool @p.  Its offset in its chunk fits 32 bits: a chunk is
 * one kvmalloc(), which refuses more than INT_MAX bytes.
 */
static struct pcore_cpu_hist *pcore_pool_rec(const struct pcore_map *m,
					     const struct pcore_pool *p, u32 u)
{
	return p->chunk[u >> m->pool_shift] +
	       (u & ((1U << m->pool_shift) - 1)) * m->stride;
}

/**
 * pcore_map_pool_rec() - a record handed out in a bank
 * @m: keyed map
 * @b: bank
 * @u: below the records handed out in the bank (its pool's @used)
 *
 * Return: the @u-th record the bank's pool handed out (one that lost a
 * race is empty).
 */
struct pcore_cpu_hist *pcore_map_pool_rec(const struct pcore_map *m, u32 b,
					  u32 u)
{
	return pcore_pool_rec(m, &m->pool[b], u);
}

/*
 * Add a chunk of records of layout @l to pool @p, counted through
 * @m->ops->charge unless @charged (the first, counted by the client with
 * the rest at creation); under the client's lock, or before @m is in use.
 * Once over the cap, @m->pool_capped stops the hot path asking, until the
 * next bank reset.
 */
static int pcore_pool_add(struct pcore_map *m, struct pcore_pool *p,
			  const struct pcore_layout *l, bool charged)
{
	size_t size = pcore_chunk_size(m);
	void *c;
	u32 i;

	if (!charged && m->ops->charge(m, size)) {
		WRITE_ONCE(m->pool_capped, true);
		return -E2BIG;
	}
	c = kvmalloc(size, GFP_KERNEL | __GFP_NOWARN);
	if (!c) {
		if (!charged)
			m->ops->uncharge(m, size);
		return -ENOMEM;
	}
	for (i = 0; i < 1U << m->pool_shift; i++)
		pcore_cpu_hist_init(l, c + (size_t)i * m->stride);
	p->chunk[p->nchunks++] = c;
	/* The chunk's records, then the count that hands them out. */
	smp_store_release(&p->n, p->nchunks << m->pool_shift);
	return 0;
}

/* Free the last chunk of pool @p, none of whose records is handed out. */
static void pcore_pool_trim(struct pcore_map *m, struct pcore_pool *p)
{
	size_t size = pcore_chunk_size(m);

	p->nchunks--;
	WRITE_ONCE(p->n, p->nchunks << m->pool_shift);
	kvfree(p->chunk[p->nchunks]);
	p->chunk[p->nchunks] = NULL;
	m->ops->uncharge(m, size);
}

/**
 * pcore_map_grow() - grow both pools to twice what a bank uses
 * @m: keyed map
 * @cur: the bank handlers write
 * @l: the layout of its records
 *
 * From @m->ops->grow, under the client's lock.  Sleeps.
 */
void pcore_map_grow(struct pcore_map *m, u32 cur, const struct pcore_layout *l)
{
	u32 want = 2 * atomic_read(&m->pool[cur].used);
	int b;

	for (b = 0; b < 2; b++)
		while (m->pool[b].n < want && m->pool[b].nchunks < m->pool_chunks)
			if (pcore_pool_add(m, &m->pool[b], l, false))
				return;
}

static void pcore_map_grow_work(struct work_struct *w)
{
	struct pcore_map *m = container_of(w, struct pcore_map, grow_work);

	m->ops->grow(m);
}

/* From the hot path, any context: schedule_work() is not NMI-safe. */
static void pcore_map_grow_irq(struct irq_work *w)
{
	schedule_work(&container_of(w, struct pcore_map, grow)->grow_work);
}

/**
 * pcore_map_claim() - a record for a key's first value on a CPU in a bank
 * @m: keyed map
 * @b: the bank handlers write, as the caller read it
 * @cpu: this CPU
 * @slot: the key's slot
 *
 * A record for @slot on @cpu in bank @b, from its pool.  Any context, NMI
 * included: the counter is claimed with cmpxchg, and a handler that
 * interrupts us on this CPU and claims the same slot first wins (ours
 * stays empty until the bank's reset).  When the pool is half used, its
 * growth is queued.
 *
 * Return: the slot's record, or NULL when the pool is empty.
 */
noinline notrace struct pcore_cpu_hist *
pcore_map_claim(struct pcore_map *m, u32 b, int cpu, u32 slot)
{
	struct pcore_cpu_hist **at = (struct pcore_cpu_hist **)m->cpu[b][cpu] + slot;
	struct pcore_pool *p = &m->pool[b];
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
	if (u >= n >> 1 && n < m->pool_chunks << m->pool_shift &&
	    !READ_ONCE(m->pool_capped))
		irq_work_queue(&m->grow);
	if (u >= n)
		return NULL;
	rec = pcore_pool_rec(m, p, u);
	old = cmpxchg(at, NULL, rec);
	return old ?: rec;
}
NOKPROBE_SYMBOL(pcore_map_claim);

/**
 * pcore_map_bank_reset() - all of a bank's pool is free again
 * @m: map
 * @b: a bank no handler writes, whose records have all been taken
 *	(pcore_map_rec_take()) and whose slots freed (pcore_map_slot_free())
 *
 * Trims its pool to four times the records of the last two intervals,
 * one chunk at least, and lets the pools grow again.  Under the client's
 * lock.
 */
void pcore_map_bank_reset(struct pcore_map *m, u32 b)
{
	struct pcore_pool *p = &m->pool[b];
	u32 chunk = 1U << m->pool_shift, used;

	if (!m->key_mode)
		return;
	/* Records claimed by a handler that lost a race are still empty. */
	p->peak = atomic_read(&p->used);
	atomic_set(&p->used, 0);
	used = max3(p->peak, m->pool[!b].peak,
		    (u32)atomic_read(&m->pool[!b].used));
	while (p->nchunks > 1 && p->n - chunk >= 4 * used)
		pcore_pool_trim(m, p);
	WRITE_ONCE(m->pool_capped, false);
}

/**
 * pcore_map_init() - set a map up, without allocating
 * @m: the map, zeroed
 * @l: the layout of its records
 * @key_mode: an enum pcore_key_mode
 * @nslots: keys: 1 without keys, a power of 2 for hashed keys and stacks
 * @depth: %PCORE_KEYS_STACK: frames per stack; else 0
 * @ops: its client's
 *
 * pcore_map_alloc() allocates; pcore_map_free() frees, after either.
 */
void pcore_map_init(struct pcore_map *m, const struct pcore_layout *l,
		    u32 key_mode, u32 nslots, u32 depth,
		    const struct pcore_map_ops *ops)
{
	m->ops = ops;
	m->key_mode = key_mode;
	m->depth = depth;
	if (key_mode == PCORE_KEYS_STACK)
		m->seed = get_random_u32();
	m->nslots = nslots;
	m->stride = pcore_map_stride(l);
	m->pool_shift = pcore_pool_shift(nslots);
	m->pool_chunks = DIV_ROUND_UP((u64)nslots * num_possible_cpus(),
				      1U << m->pool_shift);
	init_irq_work(&m->grow, pcore_map_grow_irq);
	INIT_WORK(&m->grow_work, pcore_map_grow_work);
}

/**
 * pcore_map_alloc() - allocate what pcore_map_mem() counts
 * @m: a map set up by pcore_map_init()
 * @l: the layout of its records
 *
 * Sleeps.  Return: 0 or -ENOMEM (pcore_map_free() frees what was
 * allocated).
 */
int pcore_map_alloc(struct pcore_map *m, const struct pcore_layout *l)
{
	gfp_t gfp = GFP_KERNEL | __GFP_NOWARN;
	u32 i, nslots = m->nslots;
	int b, cpu;

	for (b = 0; b < 2; b++) {
		m->cpu[b] = kcalloc(nr_cpu_ids, sizeof(void *), gfp);
		if (!m->cpu[b])
			return -ENOMEM;
		for_each_possible_cpu(cpu) {
			m->cpu[b][cpu] = m->key_mode ?
				kvzalloc_node(nslots * sizeof(void *), gfp,
					      cpu_to_node(cpu)) :
				kvmalloc_node(m->stride, gfp, cpu_to_node(cpu));
			if (!m->cpu[b][cpu])
				return -ENOMEM;
			if (!m->key_mode)
				pcore_cpu_hist_init(l, m->cpu[b][cpu]);
		}
		if (!m->key_mode)
			continue;
		m->pool[b].chunk = kcalloc(m->pool_chunks, sizeof(void *), gfp);
		if (!m->pool[b].chunk)
			return -ENOMEM;
		if (pcore_pool_add(m, &m->pool[b], l, true))
			return -ENOMEM;
		if (m->key_mode == PCORE_KEYS_STACK) {
			m->frames[b] = kvmalloc_array((size_t)nslots *
						      pcore_stack_words(m->depth),
						      sizeof(unsigned long), gfp);
			if (!m->frames[b])
				return -ENOMEM;
		} else {
			m->labels[b] = kvcalloc(nslots, sizeof(struct pcore_label),
						gfp);
			if (!m->labels[b])
				return -ENOMEM;
		}
		if (m->key_mode != PCORE_KEYS_DIRECT) {
			m->keys[b] = kvmalloc_array(nslots, sizeof(u64), gfp);
			if (!m->keys[b])
				return -ENOMEM;
			for (i = 0; i < nslots; i++)
				m->keys[b][i] = U64_MAX;
		}
	}
	return 0;
}

/**
 * pcore_map_stop() - wait for the map's growth to be over
 * @m: a map nothing records into any more
 *
 * Nothing queues its growth again.  Sleeps.
 */
void pcore_map_stop(struct pcore_map *m)
{
	irq_work_sync(&m->grow);
	cancel_work_sync(&m->grow_work);
}

/**
 * pcore_map_free() - free what pcore_map_alloc() allocated
 * @m: a stopped map, or one never in use
 *
 * Gives nothing back to the client's budget: the client counted it.
 */
void pcore_map_free(struct pcore_map *m)
{
	int b, cpu;
	u32 i;

	for (b = 0; b < 2; b++) {
		if (m->cpu[b])
			for_each_possible_cpu(cpu)
				kvfree(m->cpu[b][cpu]);
		kfree(m->cpu[b]);
		kvfree(m->keys[b]);
		kvfree(m->labels[b]);
		kvfree(m->frames[b]);
		for (i = 0; m->pool[b].chunk && i < m->pool[b].nchunks; i++)
			kvfree(m->pool[b].chunk[i]);
		kfree(m->pool[b].chunk);
	}
}

/**
 * pcore_map_rec_take() - a slot's record on a CPU, for a bank's reset
 * @m: map
 * @b: a bank no handler writes
 * @cpu: a possible CPU
 * @slot: slot
 *
 * A keyed slot's record goes back to the pool: the slot has none after.
 *
 * Return: the record, for its values to be moved out before
 * pcore_map_bank_reset(); NULL when it has none.
 */
struct pcore_cpu_hist *pcore_map_rec_take(struct pcore_map *m, u32 b, int cpu,
					  u32 slot)
{
	struct pcore_cpu_hist *rec = pcore_map_rec(m, b, cpu, slot);

	if (rec && m->key_mode)
		((struct pcore_cpu_hist **)m->cpu[b][cpu])[slot] = NULL;
	return rec;
}

/**
 * pcore_map_key() - the key in a slot
 * @m: map
 * @b: bank
 * @slot: slot
 *
 * Process context.  For a stack, read with acquire: its frames
 * (pcore_map_frames()) are those of the key read.
 *
 * Return: the key of a hashed or stack slot (U64_MAX when free, a stack's
 * PCORE_KEY_BUSY while its frames are written); else @slot.
 */
u64 pcore_map_key(const struct pcore_map *m, u32 b, u32 slot)
{
	if (m->key_mode != PCORE_KEYS_HASHED && m->key_mode != PCORE_KEYS_STACK)
		return slot;
	/* Pairs with pcore_map_stack_claim()'s release of the frames. */
	return smp_load_acquire(&m->keys[b][slot]);
}

/**
 * pcore_map_slot_taken() - does a slot hold a key?
 * @m: map
 * @b: bank
 * @slot: slot
 *
 * Direct slots, and the one slot of a map without keys, always do; a
 * stack slot does once its frames are written.  Only a stack slot is
 * ever busy: PCORE_KEY_BUSY is a hashed key like others.
 *
 * Return: whether the slot is to be looked at.
 */
bool pcore_map_slot_taken(const struct pcore_map *m, u32 b, u32 slot)
{
	u64 k;

	if (m->key_mode == PCORE_KEYS_NONE || m->key_mode == PCORE_KEYS_DIRECT)
		return true;
	k = READ_ONCE(m->keys[b][slot]);
	return k != U64_MAX &&
	       (k != PCORE_KEY_BUSY || m->key_mode != PCORE_KEYS_STACK);
}

/**
 * pcore_map_label() - a slot's label
 * @m: map
 * @b: bank
 * @slot: slot
 * @dst: PCORE_LABEL_MAX bytes: the label, NUL-terminated; "" when none
 *	(always for stacks and maps without keys)
 */
void pcore_map_label(const struct pcore_map *m, u32 b, u32 slot, char *dst)
{
	u32 i;

	for (i = 0; i < PCORE_LABEL_MAX - 1 && m->labels[b]; i++) {
		dst[i] = READ_ONCE(m->labels[b][slot].s[i]);
		if (!dst[i])
			break;
	}
	dst[i] = '\0';
}

/**
 * pcore_map_slot_free() - free a slot's key and label
 * @m: map
 * @b: a bank no handler writes
 * @slot: slot
 */
void pcore_map_slot_free(struct pcore_map *m, u32 b, u32 slot)
{
	if (m->labels[b])
		memset(&m->labels[b][slot], 0, sizeof(m->labels[b][slot]));
	if (m->keys[b])
		m->keys[b][slot] = U64_MAX;
}
