/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The keys and records of histograms: key tables, labels, per-CPU
 * record pointers and the record pools of keyed histograms (map.c).
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
/* Part of pcore.h, which includes the units' headers in order. */
#ifndef PCORE_MAP_H
#define PCORE_MAP_H

/**
 * struct pcore_pool - the records of one bank of a keyed histogram
 * @chunk: chunks of 1 << pcore_hist.pool_shift records each, @nchunks of
 *	them allocated (room for pcore_hist.pool_chunks)
 * @n: records in the chunks; grows with a release store, read with acquire
 * @nchunks: chunks allocated
 * @used: records handed out in the bank's interval, in order; at most @n
 * @peak: @used when the bank was last harvested
 *
 * A key's first value on a CPU in an interval claims the next record; a
 * harvest of the bank gives them all back.  See "Memory" above.
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

/* The record pools of keyed histograms (map.c). */
u32 pcore_pool_shift(u32 nslots);
int pcore_pool_add(struct pcore_hist *h, struct pcore_pool *p, bool charged);
void pcore_pool_grow_work(struct work_struct *w);
void pcore_pool_grow_irq(struct irq_work *w);
void pcore_pool_reset(struct pcore_hist *h, u32 b);
struct pcore_cpu_hist *pcore_pool_rec(const struct pcore_hist *h,
				      const struct pcore_pool *p, u32 u);
struct pcore_cpu_hist *pcore_rec_claim(struct pcore_hist *h, u32 b, int cpu,
				       u32 slot);
#endif /* PCORE_MAP_H */
