/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The keyed map: per key and per CPU, a record of the engine's (struct
 * pcore_cpu_hist, of one layout), in two banks, written from any
 * context, NMI included, with no lock and no allocation.  map.c creates,
 * grows, trims and frees it; the inlines below are its hot path.
 *
 * The map knows nothing of who uses it.  Its client (a histogram:
 * hist.h) says which bank handlers write and when a bank is emptied
 * (see "Intervals" in hist.h); it counts the map's memory against its
 * budget and serialises the map's growth with its harvests, through
 * struct pcore_map_ops.  The client records values, and counts drops,
 * into the records the map hands out.
 *
 *   struct pcore_map
 *     cpu[bank][cpu] -----> without keys: the CPU's record
 *                     \---> keyed: nslots record pointers --> pool[bank]
 *     keys[bank]            a u64 per slot: hashed and stack keys
 *     labels[bank]          a label per slot: direct and hashed keys
 *     frames[bank]          pcore_stack_words(depth) words per slot: stacks
 *     pool[bank]            chunks of records, handed out in order
 *
 * Keys
 * ----
 * A key finds its slot by its mode: a direct key is its slot; a hashed
 * key looks at the PCORE_KEY_PROBES slots from its hash on, for itself
 * or a free slot it claims with cmpxchg (pcore_map_hashed_slot()); a stack
 * claims a free slot (free -> PCORE_KEY_BUSY), writes its frames, then
 * publishes its key, whose format stack.h tells (pcore_map_stack_slot()).
 * A slot's label is the first one given with the key in the bank.
 *
 * Each bank has its own key table and labels, and the client empties the
 * table of a bank no handler writes (pcore_map_slot_free()): a harvest
 * does so for the bank it moves out, so every interval read and every
 * reset reclaims every key.  A key lives as long as it has values in the
 * current interval.  That is the rule because it is lossless (the values
 * of a reclaimed key went out with the interval), because the table
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
 * A map without keys allocates its records at creation: one per
 * possible CPU and bank, of the layout's size rounded up to a cache line.
 * A keyed one allocates, per bank, a table of record pointers per possible
 * CPU (8 bytes a slot), the key table and labels, and a pool of records in
 * chunks of 64: a key's first value on a CPU in an interval takes the
 * pool's next record (an atomic counter, no lock: pcore_map_claim()), and
 * the client's emptying of the bank gives them all back
 * (pcore_map_bank_reset()).  The records in use are bounded by the keys in
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
 * The client counts all of it against its budget (for histograms,
 * mem_max, a parameter of probe_core): at creation, with
 * pcore_map_mem(), where a map over the cap is refused, and as pools grow,
 * through @ops->charge, where a chunk over the cap is not added (the
 * client logs it; the next bank reset tries again).
 */
/* Part of pcore.h, which includes the units' headers in order. */
#ifndef PCORE_MAP_H
#define PCORE_MAP_H

#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/log2.h>

/* Slots a hashed key or a stack looks at before it is dropped. */
#define PCORE_KEY_PROBES	32

struct pcore_map;

/**
 * struct pcore_map_ops - what a map asks of its client
 * @charge: count @size more bytes of the map's pool against the client's
 *	budget; 0, or -E2BIG to refuse them (the pool stops growing until
 *	pcore_map_bank_reset()).  Under the client's lock, process context.
 * @uncharge: the map gives back @size bytes that @charge counted, or that
 *	the client counted at creation (pcore_map_mem()); under the lock
 * @grow: from the map's work item: call pcore_map_grow() under the lock
 *	that serialises the map's growth with pcore_map_bank_reset()
 */
struct pcore_map_ops {
	int (*charge)(struct pcore_map *m, size_t size);
	void (*uncharge)(struct pcore_map *m, size_t size);
	void (*grow)(struct pcore_map *m);
};

/**
 * struct pcore_pool - the records of one bank of a keyed map
 * @chunk: chunks of 1 << pcore_map.pool_shift records each, @nchunks of
 *	them allocated (room for pcore_map.pool_chunks)
 * @n: records in the chunks; grows with a release store, read with acquire
 * @nchunks: chunks allocated
 * @used: records handed out in the bank's interval, in order; at most @n
 * @peak: @used when the bank was last reset
 *
 * A key's first value on a CPU in an interval claims the next record; a
 * reset of the bank gives them all back.  See "Memory" above.
 */
struct pcore_pool {
	void **chunk;
	u32 n;
	u32 nchunks;
	atomic_t used;
	u32 peak;
};

/* A key's label: up to 31 characters, NUL-padded. */
struct pcore_label {
	char s[PCORE_LABEL_MAX];
};

/**
 * struct pcore_map - records per key and CPU, in two banks
 * @key_mode: an enum pcore_key_mode
 * @nslots: keys kept: 1 when not keyed; a power of 2 when hashed or stack
 * @cpu: per bank, per possible CPU: without keys, its record; keyed, a
 *	table of @nslots record pointers, NULL until the key has a value on
 *	that CPU in the bank's interval
 * @keys: per bank, %PCORE_KEYS_HASHED and %PCORE_KEYS_STACK: the key of
 *	each slot, U64_MAX when free (a stack's: PCORE_KEY_BUSY while its
 *	frames are written; a hashed key may be PCORE_KEY_BUSY)
 * @labels: per bank, %PCORE_KEYS_DIRECT and %PCORE_KEYS_HASHED: per slot,
 *	the label given with its first value in the bank's interval
 * @frames: %PCORE_KEYS_STACK: per bank, pcore_stack_words(@depth) words
 *	per slot, written before the slot's key is published (release) and
 *	read after it (acquire); freed with the bank's keys
 * @depth: %PCORE_KEYS_STACK: frames kept of each stack
 * @seed: %PCORE_KEYS_STACK: of the hash of stacks, random: a key tells
 *	nothing of the addresses in its stack
 * @pool_shift: log2 of the records of a chunk of @pool
 * @pool_chunks: the most chunks a bank's pool can need: enough for every
 *	slot on every possible CPU
 * @stride: bytes of one key's record on one CPU, a multiple of a cache line
 * @pool_capped: growing @pool would go over the client's budget: no new
 *	records until the next pcore_map_bank_reset(), which tries again
 * @pool: keyed: per bank, the records that the tables point into
 * @ops: the client's
 * @grow: queued by the hot path when a pool is half used, from any context
 * @grow_work: what @grow schedules: @ops->grow, which adds records to the
 *	pools
 *
 * The fields the hot path reads come first.  The records' layout is not
 * kept: the client's, it is given to the calls that make records.  See
 * "Keys" and "Memory" above.
 */
struct pcore_map {
	u32 key_mode;
	u32 nslots;
	void **cpu[2];
	u64 *keys[2];
	struct pcore_label *labels[2];
	unsigned long *frames[2];
	u32 depth;
	u32 seed;
	u32 pool_shift;
	u32 pool_chunks;
	u32 stride;
	bool pool_capped;
	struct pcore_pool pool[2];
	const struct pcore_map_ops *ops;
	struct irq_work grow;
	struct work_struct grow_work;
};

size_t pcore_map_mem(const struct pcore_layout *l, u32 key_mode, u32 nslots,
		     u32 depth, size_t *max);
void pcore_map_init(struct pcore_map *m, const struct pcore_layout *l,
		    u32 key_mode, u32 nslots, u32 depth,
		    const struct pcore_map_ops *ops);
int pcore_map_alloc(struct pcore_map *m, const struct pcore_layout *l);
void pcore_map_stop(struct pcore_map *m);
void pcore_map_free(struct pcore_map *m);
void pcore_map_grow(struct pcore_map *m, u32 cur, const struct pcore_layout *l);
void pcore_map_bank_reset(struct pcore_map *m, u32 b);
struct pcore_cpu_hist *pcore_map_pool_rec(const struct pcore_map *m, u32 b,
					  u32 u);
struct pcore_cpu_hist *pcore_map_claim(struct pcore_map *m, u32 b, int cpu,
				       u32 slot);
struct pcore_cpu_hist *pcore_map_rec_take(struct pcore_map *m, u32 b, int cpu,
					  u32 slot);
u64 pcore_map_key(const struct pcore_map *m, u32 b, u32 slot);
bool pcore_map_slot_taken(const struct pcore_map *m, u32 b, u32 slot);
void pcore_map_label(const struct pcore_map *m, u32 b, u32 slot, char *dst);
void pcore_map_slot_free(struct pcore_map *m, u32 b, u32 slot);

/*
 * The record of @slot on @cpu in bank @bank: NULL when a keyed slot has
 * no value there yet (pcore_map_claim() gives it one).
 */
static inline struct pcore_cpu_hist *pcore_map_rec(const struct pcore_map *m,
						   u32 bank, int cpu, u32 slot)
{
	if (!m->key_mode)
		return m->cpu[bank][cpu];
	return READ_ONCE(((struct pcore_cpu_hist **)m->cpu[bank][cpu])[slot]);
}

/* The records bank @b's pool handed out (pcore_map_pool_rec() reads them). */
static inline u32 pcore_map_handed_out(const struct pcore_map *m, u32 b)
{
	return atomic_read(&m->pool[b].used);
}

/* Does slot @slot of bank @b have a label?  Direct and hashed keys. */
static inline bool pcore_map_has_label(const struct pcore_map *m, u32 b,
				       u32 slot)
{
	return READ_ONCE(m->labels[b][slot].s[0]);
}

/* A stack's frames in slot @slot of bank @b: pcore_stack_words() of them. */
static inline unsigned long *pcore_map_frames(const struct pcore_map *m,
					      u32 b, u32 slot)
{
	return &m->frames[b][(size_t)slot * pcore_stack_words(m->depth)];
}

/*
 * The slot of @key (not U64_MAX) in bank @b of a %PCORE_KEYS_HASHED map,
 * claimed for it when it has none, or -1 when it finds none; *@label is
 * set to NULL unless the slot was claimed here (the label of a key is
 * the first given in the bank).  Hot path: any context, no lock; with
 * preemption off, in the bank the caller read once.
 */
static __always_inline int pcore_map_hashed_slot(struct pcore_map *m, u32 b,
						 u64 key, const char **label)
{
	u64 k, *keys = m->keys[b];
	u32 s, i, n;

	i = hash_64(key, ilog2(m->nslots));
	for (n = 0; n < PCORE_KEY_PROBES && n < m->nslots; n++) {
		s = (i + n) & (m->nslots - 1);
		k = READ_ONCE(keys[s]);
		/* The common case first: the key is there. */
		if (k == key)
			goto found;
		if (k != U64_MAX)
			continue;
		/*
		 * A bank's keys are freed only while no handler writes
		 * it: a free slot ends the chain.
		 */
		k = cmpxchg(&keys[s], U64_MAX, key);
		if (k == U64_MAX)
			return s;	/* ours: it gets the label */
		if (k == key)
			goto found;
	}
	return -1;
found:
	*label = NULL;
	return s;
}

/*
 * The slot of @key in bank @b of a %PCORE_KEYS_HASHED map, or -1: a
 * lookup that claims nothing (readers, process context).  A key claimed
 * meanwhile may be missed: its values are then newer than the lookup.
 */
static inline int pcore_map_hashed_find(const struct pcore_map *m, u32 b,
					u64 key)
{
	u32 s, i, n;
	u64 k;

	i = hash_64(key, ilog2(m->nslots));
	for (n = 0; n < PCORE_KEY_PROBES && n < m->nslots; n++) {
		s = (i + n) & (m->nslots - 1);
		k = READ_ONCE(m->keys[b][s]);
		if (k == key)
			return s;
		if (k == U64_MAX)
			break;
	}
	return -1;
}

/* Label @l: @label, up to PCORE_LABEL_MAX - 1 characters.  Hot path. */
static __always_inline void pcore_label_set(struct pcore_label *l,
					    const char *label)
{
	u32 i;

	for (i = 0; i < PCORE_LABEL_MAX - 1 && label[i]; i++)
		l->s[i] = label[i];
}

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
static __always_inline int pcore_map_stack_claim(struct pcore_map *m, u32 b,
						 const unsigned long *f,
						 unsigned int n, u64 key)
{
	unsigned long *frames = m->frames[b];
	u32 i, slot, words = pcore_stack_words(m->depth);
	u64 k, *keys = m->keys[b];

	for (i = 0; i < PCORE_KEY_PROBES && i < m->nslots; i++) {
		slot = ((u32)key + i) & (m->nslots - 1);
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

/*
 * The slot of the @n frames @f (at most pcore_stack_words() of the
 * depth) with PCORE_STACK_F_* @flags in bank @b of a %PCORE_KEYS_STACK
 * map, or -1.  Hot path, as pcore_map_hashed_slot().
 */
static __always_inline int pcore_map_stack_slot(struct pcore_map *m, u32 b,
						const unsigned long *f,
						unsigned int n, u32 flags)
{
	u64 key = jhash2((const u32 *)f, n * sizeof(*f) / sizeof(u32),
			 m->seed) | (u64)n << 32 | (u64)flags << 40;

	return pcore_map_stack_claim(m, b, f, n, key);
}
#endif /* PCORE_MAP_H */
