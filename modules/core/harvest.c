// SPDX-License-Identifier: GPL-2.0
/*
 * Reading histograms: walks of the bank being written, harvests that move
 * an interval out, the total since creation.  See "Intervals" at the top
 * of hist.h; the keys and records are read through the map (map.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "pcore.h"

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
 * The label of cgroup v2 id @id (%PCORE_HIST_KEY_CGROUP): its path, as
 * the histogram's flag says, into @dst (%PCORE_LABEL_MAX bytes): the
 * whole path when it fits, else "..." and its last characters (a
 * container's own directory is at the end of its path); "(removed)" when
 * no cgroup has that id any more.  The path is read into one buffer of
 * PATH_MAX, under its own lock (a leaf: nothing is taken under it but
 * kernfs's spinlocks), so reading a key allocates nothing.  Process
 * context.  Return: whether the cgroup is there (online).
 */
static DEFINE_MUTEX(pcore_cgpath_lock);
static char pcore_cgpath[PATH_MAX];

static bool pcore_cgroup_label(u64 id, char *dst)
{
	const size_t max = PCORE_LABEL_MAX - 1;
	int n;

	mutex_lock(&pcore_cgpath_lock);
	n = pcore_cgroup_path(id, pcore_cgpath, sizeof(pcore_cgpath));
	if (n < 0)
		strscpy(dst, "(removed)", PCORE_LABEL_MAX);
	else if ((size_t)n <= max)
		strscpy(dst, pcore_cgpath, PCORE_LABEL_MAX);
	else if (n < sizeof(pcore_cgpath))
		snprintf(dst, PCORE_LABEL_MAX, "...%s",
			 pcore_cgpath + n - (max - 3));
	else	/* longer than PATH_MAX: its start is all there is */
		snprintf(dst, PCORE_LABEL_MAX, "%.*s...", (int)(max - 3),
			 pcore_cgpath);
	mutex_unlock(&pcore_cgpath_lock);
	return n >= 0;
}

/*
 * Slot @slot of bank @b into @kv: its key as its reader may see it (see
 * %PCORE_HIST_KEY_ADDR) and its label ("" when none; a cgroup's path
 * with %PCORE_HIST_KEY_CGROUP).  Process context.
 */
static void pcore_keyval_fill(const struct pcore_hist *h, u32 b, u32 slot,
			      struct pcore_keyval *kv)
{
	const struct pcore_map *m = &h->map;

	kv->slot = slot;
	kv->key = pcore_map_key(m, b, slot);
	if (h->flags & PCORE_HIST_KEY_ADDR)
		kv->key = pcore_key_restricted(kv->key);
	if (m->key_mode == PCORE_KEYS_STACK) {
		u32 words = pcore_stack_words(m->depth);
		unsigned long *f = pcore_map_frames(m, b, slot);

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
	if (h->flags & PCORE_HIST_KEY_CGROUP)
		pcore_cgroup_label(kv->key, kv->label);
	else
		pcore_map_label(m, b, slot, kv->label);
}

/*
 * Is a slot whose values are @s in use?  A direct key is when it has a
 * value or a label (a label comes with a value: an interval read may have
 * moved the value out since).
 */
static bool pcore_slot_shown(const struct pcore_hist *h, u32 b, u32 slot,
			     const struct pcore_snap *s)
{
	return h->map.key_mode != PCORE_KEYS_DIRECT || s->count ||
	       pcore_map_has_label(&h->map, b, slot);
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
		rec = pcore_map_rec(&h->map, h->cur, cpu, slot);
		if (rec)
			pcore_snap_add_cpu(s, rec);
		return;
	}
	for_each_possible_cpu(cpu) {
		rec = pcore_map_rec(&h->map, h->cur, cpu, slot);
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
	for (i = 0; i < h->map.nslots; i++) {
		if (!pcore_map_slot_taken(&h->map, h->cur, i))
			continue;
		pcore_snap_init(&h->layout, kv.s);
		pcore_hist_read(h, h->map.key_mode == PCORE_KEYS_DIRECT ? -1 : cpu,
				i, kv.s);
		if (!pcore_slot_shown(h, h->cur, i, kv.s))
			continue;
		n++;
		if (!fn)
			continue;
		if (cpu >= 0 && h->map.key_mode == PCORE_KEYS_DIRECT) {
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
 * @slot: slot, below @h->map.nslots
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
	if (h->map.key_mode == PCORE_KEYS_DIRECT)
		return *kv->label;
	return pcore_map_slot_taken(&h->map, h->cur, slot);
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
	if (h->map.key_mode == PCORE_KEYS_STACK)
		kvs->frames = kvmalloc_array((size_t)max(n, 1U) *
					     pcore_stack_words(h->map.depth),
					     sizeof(unsigned long), GFP_KERNEL);
	if (!kvs->kv || !kvs->snaps ||
	    (h->map.key_mode == PCORE_KEYS_STACK && !kvs->frames)) {
		pcore_kvs_free(kvs);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		kvs->kv[i].s = kvs->snaps + (size_t)i * size;
		/* A stack's frames are copied: the bank is written again. */
		if (kvs->frames)
			kvs->kv[i].frames = kvs->frames + (size_t)i *
					    pcore_stack_words(h->map.depth);
	}
	return 0;
}

/* A tombstone in @cgt_keys: an entry freed (see "Totals per cgroup"). */
#define PCORE_CGT_TOMB	0

static struct pcore_snap *pcore_cgt_snap(const struct pcore_hist *h, u32 e)
{
	return h->cgt_snaps + (size_t)e * pcore_snap_size(&h->layout);
}

/*
 * The entry of cgroup @id in @h's totals, claimed (empty) when it has
 * none and @claim says so; -1 when it has none (or finds no room).
 * Under @h->lock.
 */
static int pcore_cgt_find(struct pcore_hist *h, u64 id, bool claim)
{
	u32 n = h->map.nslots, i = hash_64(id, ilog2(n)), j, e;
	int tomb = -1;
	u64 k;

	lockdep_assert_held(&h->lock);
	if (id == U64_MAX || id == PCORE_CGT_TOMB)
		return -1;
	for (j = 0; j < n; j++) {
		e = (i + j) & (n - 1);
		k = h->cgt_keys[e];
		if (k == id)
			return e;
		if (k == PCORE_CGT_TOMB) {
			if (tomb < 0)
				tomb = e;
			continue;
		}
		if (k == U64_MAX) {
			if (tomb < 0)
				tomb = e;
			break;
		}
	}
	if (!claim || tomb < 0)
		return -1;
	h->cgt_keys[tomb] = id;
	pcore_snap_init(&h->layout, pcore_cgt_snap(h, tomb));
	return tomb;
}

/*
 * Free entry @e: a tombstone, or free with the tombstones before it when
 * the entry after it is free (no chain goes through them any more).
 */
static void pcore_cgt_free(struct pcore_hist *h, u32 e)
{
	u32 mask = h->map.nslots - 1;

	h->cgt_keys[e] = PCORE_CGT_TOMB;
	if (h->cgt_keys[(e + 1) & mask] != U64_MAX)
		return;
	while (h->cgt_keys[e] == PCORE_CGT_TOMB) {
		h->cgt_keys[e] = U64_MAX;
		e = (e - 1) & mask;
	}
}

/* Is cgroup @id a key of either bank of @h? */
static bool pcore_cgt_in_banks(const struct pcore_hist *h, u64 id)
{
	return pcore_map_hashed_find(&h->map, 0, id) >= 0 ||
	       pcore_map_hashed_find(&h->map, 1, id) >= 0;
}

/*
 * Entry @e, of a cgroup that is gone: freed when its key is in neither
 * bank (else a harvest adds the key's values to it, and frees it after).
 */
static void pcore_cgt_reap(struct pcore_hist *h, u32 e)
{
	if (!pcore_cgt_in_banks(h, h->cgt_keys[e]))
		pcore_cgt_free(h, e);
}

/*
 * Move slot @slot of the retired bank @b into @h->scratch and empty it; a
 * keyed slot's records go back to the pool.  The values go into @total
 * and, keyed by cgroup, into the cgroup's total.
 */
static void pcore_slot_harvest(struct pcore_hist *h, u32 b, u32 slot)
{
	struct pcore_cpu_hist *rec;
	int cpu, e;

	pcore_snap_init(&h->layout, h->scratch);
	for_each_possible_cpu(cpu) {
		rec = pcore_map_rec_take(&h->map, b, cpu, slot);
		if (rec)
			pcore_cpu_harvest(rec, h->scratch);
	}
	pcore_snap_merge(h->total, h->scratch);
	if (!h->cgt_keys)
		return;
	e = pcore_cgt_find(h, pcore_map_key(&h->map, b, slot), true);
	if (e >= 0)
		pcore_snap_merge(pcore_cgt_snap(h, e), h->scratch);
	else
		WRITE_ONCE(h->cgt_lost, h->cgt_lost + h->scratch->count);
}

/* The keys of the retired bank @b that an interval read shows. */
static u32 pcore_bank_used(struct pcore_hist *h, u32 b)
{
	u32 i, n = 0;
	struct pcore_cpu_hist *rec;
	int cpu;

	for (i = 0; i < h->map.nslots; i++) {
		if (!pcore_map_slot_taken(&h->map, b, i))
			continue;
		pcore_snap_init(&h->layout, h->scratch);
		if (h->map.key_mode == PCORE_KEYS_DIRECT)
			for_each_possible_cpu(cpu) {
				rec = pcore_map_rec(&h->map, b, cpu, i);
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
	char label[PCORE_LABEL_MAX];
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
	for (i = 0; i < h->map.nslots; i++) {
		if (!pcore_map_slot_taken(&h->map, b, i))
			continue;
		pcore_slot_harvest(h, b, i);
		if (out && j < out->n && pcore_slot_shown(h, b, i, h->scratch)) {
			pcore_keyval_fill(h, b, i, &out->kv[j]);
			memcpy(out->kv[j++].s, h->scratch,
			       pcore_snap_size(&h->layout));
		}
		pcore_map_slot_free(&h->map, b, i);
	}
	pcore_map_bank_reset(&h->map, b);
	/* The totals of cgroups gone whose keys this harvest freed. */
	for (i = 0; h->cgt_keys && i < h->map.nslots; i++)
		if (h->cgt_keys[i] != U64_MAX &&
		    h->cgt_keys[i] != PCORE_CGT_TOMB &&
		    !pcore_cgroup_label(h->cgt_keys[i], label))
			pcore_cgt_reap(h, i);
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
		if (!h->map.key_mode) {
			for_each_possible_cpu(cpu)
				n += pcore_cpu_hist_count(&h->layout,
					pcore_map_rec(&h->map, b, cpu, 0));
			continue;
		}
		/* Every record handed out; those that lost a race are empty. */
		for (i = 0; i < pcore_map_handed_out(&h->map, b); i++)
			n += pcore_cpu_hist_count(&h->layout,
						  pcore_map_pool_rec(&h->map, b, i));
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
		for (i = 0; i < h->map.nslots; i++)
			for_each_possible_cpu(cpu) {
				rec = pcore_map_rec(&h->map, b, cpu, i);
				if (rec)
					pcore_snap_add_cpu(s, rec);
			}
}

/* Add the values of cgroup @id in bank @b to @s. */
static void pcore_cgt_add_bank(struct pcore_hist *h, u32 b, u64 id,
			       struct pcore_snap *s)
{
	struct pcore_cpu_hist *rec;
	int slot = pcore_map_hashed_find(&h->map, b, id);
	int cpu;

	if (slot < 0)
		return;
	for_each_possible_cpu(cpu) {
		rec = pcore_map_rec(&h->map, b, cpu, slot);
		if (rec)
			pcore_snap_add_cpu(s, rec);
	}
}

/**
 * pcore_hist_read_cgtotal() - one cgroup's values since creation
 * @h: histogram keyed by cgroup (@h->cgt_keys set), its @lock held
 * @slot: an entry of its cgroups' totals, below @h->map.nslots
 * @s: snapshot of @h's layout, empty: filled in
 * @kv: the cgroup's id and path (@kv->s untouched)
 *
 * See "Totals per cgroup" in hist.h: a read of entry 0 first gives every
 * key of the banks an entry (when there is room), so a reader that reads
 * every entry from 0 on answers each cgroup from its first value on,
 * whoever harvests, at O(@nslots) per pass, not per entry.  No count,
 * sum or bucket answered for an entry is ever below an earlier answer
 * for it.
 *
 * Return: whether @slot holds a cgroup that is there (online); false for
 * a free entry and for a cgroup removed (its series ends).
 */
bool pcore_hist_read_cgtotal(struct pcore_hist *h, u32 slot,
			     struct pcore_snap *s, struct pcore_keyval *kv)
{
	u32 b, i;
	u64 id;

	lockdep_assert_held(&h->lock);
	/* Once per pass of a reader over the entries, not per entry. */
	for (b = 0; !slot && b < 2; b++)
		for (i = 0; i < h->map.nslots; i++)
			if (pcore_map_slot_taken(&h->map, b, i))
				pcore_cgt_find(h, pcore_map_key(&h->map, b, i),
					       true);
	id = h->cgt_keys[slot];
	if (id == U64_MAX || id == PCORE_CGT_TOMB)
		return false;
	kv->slot = slot;
	kv->key = id;
	if (!pcore_cgroup_label(id, kv->label)) {
		pcore_cgt_reap(h, slot);
		return false;
	}
	memcpy(s, pcore_cgt_snap(h, slot), pcore_snap_size(&h->layout));
	for (b = 0; b < 2; b++)
		pcore_cgt_add_bank(h, b, id, s);
	return true;
}
