/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The slots of task timers (timer.c) and call tables (calls.c): bounded
 * tables written by any CPU without a lock, in the window of slots a
 * pid hashes to.  Each slot's key word holds the pid and a generation; a
 * writer first moves the key to a busy value with cmpxchg, writes the
 * slot, and publishes the pid with a release store; whoever frees a slot
 * does it with cmpxchg from the exact key it read, so a slot that changed
 * meanwhile (the generation differs) is never freed by mistake.  struct
 * pcore_slot, the head of every slot, is in pcore.h.
 */
#ifndef PCORE_SLOT_H
#define PCORE_SLOT_H

#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include "pcore.h"

/* Slots a pid looks at. */
#define PCORE_TIMER_PROBES	16
#define PCORE_TSLOT_BUSY	0xffffffffULL
#define PCORE_TSLOT_PID(k)	((u32)(k))
#define PCORE_TSLOT_GEN(k)	((k) >> 32)
#define PCORE_TSLOT_KEY(g, pid)	(((u64)(g) << 32) | (u32)(pid))

/* Scans of a window a claim makes when another CPU takes its slot first. */
#define PCORE_SLOT_TRIES	3

/*
 * Claim a slot for @pid in the window of slots it hashes to, in a table of
 * @mask + 1 slots of @stride bytes: the slot that @is says is the
 * caller's, else a free one, else the one with the oldest stamp.  The
 * whole window is looked at first: the caller's own slot wins over a
 * free one.  The slot is left busy, the caller's until it publishes or
 * frees it.  Task timers and call tables both claim this way.
 *
 * Two CPUs whose windows overlap can pick the same free slot at once: the
 * one whose cmpxchg fails scans again (PCORE_SLOT_TRIES scans at most,
 * so the work stays bounded), and finds the next free one.  Without the
 * rescan, a start lost that race and went untimed (counted as evicted)
 * although the table had room.
 *
 * Return: the slot, or NULL when the window has none to take or other
 * CPUs took the slots it found on every scan; *@evicted says whether it
 * held another's stamp.
 */
static __always_inline struct pcore_slot *
pcore_slot_claim(u8 *slots, u32 mask, size_t stride, u32 pid,
		 bool (*is)(const struct pcore_slot *h, u64 k, const void *arg),
		 const void *arg, bool *evicted)
{
	struct pcore_slot *s, *mine, *free, *victim;
	u32 i = hash_32(pid, ilog2(mask + 1)), n, tries;
	u64 k, start, oldest;

	for (tries = 0; tries < PCORE_SLOT_TRIES; tries++) {
		mine = NULL;
		free = NULL;
		victim = NULL;
		oldest = U64_MAX;
		for (n = 0; n < PCORE_TIMER_PROBES && n <= mask; n++) {
			s = (struct pcore_slot *)(slots + ((i + n) & mask) * stride);
			k = atomic64_read_acquire(&s->key);
			if (is(s, k, arg)) {
				mine = s;
				break;
			}
			if (!PCORE_TSLOT_PID(k)) {
				if (!free)
					free = s;
				continue;
			}
			start = READ_ONCE(s->start);
			if (PCORE_TSLOT_PID(k) != PCORE_TSLOT_BUSY &&
			    start < oldest) {
				oldest = start;
				victim = s;
			}
		}
		s = mine ?: free ?: victim;
		if (!s)
			return NULL;
		k = atomic64_read(&s->key);
		if (PCORE_TSLOT_PID(k) != PCORE_TSLOT_BUSY &&
		    atomic64_cmpxchg(&s->key, k,
				     PCORE_TSLOT_KEY(PCORE_TSLOT_GEN(k) + 1,
						     PCORE_TSLOT_BUSY)) == k) {
			*evicted = s != mine && PCORE_TSLOT_PID(k);
			return s;
		}
	}
	return NULL;
}

/* Make a claimed slot @s the stamp of @pid (0: free it again). */
static __always_inline void pcore_slot_publish(struct pcore_slot *s, u32 pid)
{
	u64 k = atomic64_read(&s->key);

	atomic64_set_release(&s->key,
			     PCORE_TSLOT_KEY(PCORE_TSLOT_GEN(k) + 1, pid));
}

#endif /* PCORE_SLOT_H */
