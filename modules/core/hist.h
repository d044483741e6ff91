/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Histograms: the kernel side of the engine.  Per-CPU records in two
 * banks, keyed slots, intervals, the memory cap.  hist.c creates and
 * frees them, record.c is the hot path, harvest.c reads them and moves
 * intervals out.  Their keys and records are a keyed map (map.h).
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
 * Totals per cgroup
 * -----------------
 * A histogram keyed by cgroup (%PCORE_HIST_KEY_CGROUP) also keeps, per
 * cgroup, its values since creation: a table of @map.nslots entries (the
 * bound of its live keys, cgroup_keys= for :by=cgroup), allocated at
 * creation with the histogram and counted in its memory, each a cgroup id
 * (@cgt_keys) and a snapshot (@cgt_snaps).  Everything happens in process
 * context under @lock; the hot path never sees the table:
 *
 *   - a harvest adds each key it moves out to that key's entry, claimed
 *     for it when it has none (pcore_slot_harvest()); a key that finds no
 *     free entry has its values in @total only, and counted in @cgt_lost;
 *   - a per-cgroup total read (pcore_hist_read_cgtotal()) of entry 0
 *     first claims an entry for every key in the banks (readers read
 *     every entry from 0 on); a read answers the entry's values plus
 *     that key's values in both banks: like @total plus the banks, never
 *     below an earlier answer for the same entry;
 *   - an entry whose cgroup is removed (offline: pcore_cgroup_path()
 *     fails) is not answered any more: its series ends there.  Its entry
 *     is freed by the read or harvest that finds it so and finds the key
 *     in neither bank (a late value of a removed cgroup claims an entry
 *     again, never shown, freed the same way).
 *
 * Entries are found by the hash of their id, probing every slot (process
 * context: no limit); a freed entry is a tombstone (id 0, never a cgroup's
 * id) until the slot after it is free.
 */
/* Part of pcore.h, which includes the units' headers in order. */
#ifndef PCORE_HIST_H
#define PCORE_HIST_H

/**
 * struct pcore_client - what one module created through the API
 * @node: in pcore_clients
 * @owner: the module
 * @name: its name; "" for probe_core's own client
 * @dir: debugfs directory (the probe_core root for probe_core's own)
 * @hists: its histograms
 * @timers: its timers
 * @probes: its probes
 */
struct pcore_client {
	struct list_head node;
	struct module *owner;
	char name[MODULE_NAME_LEN];
	struct dentry *dir;
	struct list_head hists;
	struct list_head timers;
	struct list_head probes;
};

/*
 * One log line about client @c or what it owns: "<module>: " first, but
 * for probe_core's own client (no name).  pcore_cerr(c, "hist %s: ...").
 */
#define pcore_clog(level, c, fmt, ...)					\
	level("%s%s" fmt "\n", (c)->name, *(c)->name ? ": " : "",		\
	      ##__VA_ARGS__)
#define pcore_cerr(c, fmt, ...)	pcore_clog(pr_err, c, fmt, ##__VA_ARGS__)

/**
 * struct pcore_hist - a histogram, or one per key, with one record per CPU
 * @map: its keys and records, in two banks (map.h), and how it is keyed
 *	(@map.key_mode, @map.nslots, @map.depth); first, for the hot path's
 *	sake: no offset to add, short ones to its fields
 * @cur: the bank the hot path writes (0 or 1); flipped under @lock
 * @flags: %PCORE_HIST_KEY_ADDR, %PCORE_HIST_KEY_CGROUP or 0
 * @layout: bucket layout of every key
 * @dropped: per CPU, values whose key found no slot or no record
 * @node: in the client's hists
 * @client: owner
 * @name: directory name
 * @unit: unit for display
 * @key_name: what a key is, for display
 * @ref: held by its client until pcore_hist_release(), and by readers of
 *	/dev/probe_core, which read it without pcore_lock
 * @probe: the probe bound to it (kretprobe/kprobe/tracepoint @hist)
 * @dir: its debugfs directory
 * @mem: bytes it takes, counted against mem_max
 * @lock: serialises harvests and the readers of the bank being written,
 *	and @map's growth with them; protects @total, @pending and @scratch
 * @total: every value moved out by resets and interval reads, all keys
 *	and CPUs merged: with the banks, the histogram since its creation
 *	(pcore_hist_read_total())
 * @created: CLOCK_REALTIME at creation, ns since the Epoch
 * @scratch: one snapshot of @layout, for harvests and walks
 * @cgt_keys: %PCORE_HIST_KEY_CGROUP: per entry of the cgroups' totals,
 *	the cgroup's id, U64_MAX when free, 0 a tombstone; under @lock
 * @cgt_snaps: per entry, the values of its cgroup that harvests moved out
 * @cgt_lost: values moved out whose cgroup found no free entry (in @total,
 *	in no cgroup's); under @lock
 * @cap_logged: the log line that says @map's pool would go over mem_max
 *	was printed (once per histogram)
 * @unlinked: under pcore_lock: off its client for good (pcore_hist_unlink());
 *	after it, @client may be freed at any time
 * @pending: the bank that is not @cur still holds an interval, whose
 *	harvest could not allocate its answer; the next harvest takes it
 *
 * Its size is part of the memory it reports (pcore_hist_mem()), so its
 * fields are ordered to leave no hole but one byte.  See "Intervals"
 * above, "Keys" and "Memory" in map.h.
 */
struct pcore_hist {
	struct pcore_map map;
	u32 cur;
	u32 flags;
	struct pcore_layout layout;
	local64_t __percpu *dropped;
	struct list_head node;
	struct pcore_client *client;
	char name[PCORE_NAME_MAX];
	char unit[PCORE_UNIT_MAX];
	char key_name[PCORE_UNIT_MAX];
	struct kref ref;
	bool cap_logged;
	bool unlinked;
	bool pending;
	struct pcore_probe *probe;
	struct dentry *dir;
	size_t mem;
	struct mutex lock;
	struct pcore_snap *total;
	u64 created;
	struct pcore_snap *scratch;
	u64 *cgt_keys;
	void *cgt_snaps;
	u64 cgt_lost;
};

/**
 * struct pcore_keyval - one key's values, as a reader may see them
 * @slot: its slot
 * @key: the key (the slot for direct keys), as %PCORE_HIST_KEY_ADDR says;
 *	for a stack, its hash: an id that tells nothing of its addresses
 * @label: its label, "" when none; raw (spaces and control characters)
 * @s: its values
 * @frames: a stack's frames (pcore_stack_frame() prints them): in the
 *	histogram's bank, valid under its @lock, or a copy of them when
 *	they came from pcore_hist_harvest(); NULL for other keys
 * @nframes: how many words of @frames, at most pcore_stack_words() of
 *	the depth (a [user] frame is three)
 * @fflags: their PCORE_STACK_F_* flags
 */
struct pcore_keyval {
	u32 slot;
	u64 key;
	char label[PCORE_LABEL_MAX];
	struct pcore_snap *s;
	unsigned long *frames;
	u32 nframes;
	u32 fflags;
};

/* The keys of one interval, from pcore_hist_harvest(). */
struct pcore_kvs {
	u32 n;
	struct pcore_keyval *kv;
	void *snaps;
	unsigned long *frames;
};

typedef void (*pcore_walk_fn)(void *arg, const struct pcore_keyval *kv);

void pcore_hist_read(struct pcore_hist *h, int cpu, u32 slot,
		     struct pcore_snap *s);
u32 pcore_hist_walk(struct pcore_hist *h, int cpu, pcore_walk_fn fn,
		    void *arg);
bool pcore_hist_slot_key(struct pcore_hist *h, u32 slot,
			 struct pcore_keyval *kv);
int pcore_hist_harvest(struct pcore_hist *h, struct pcore_kvs *out);
void pcore_kvs_free(struct pcore_kvs *kvs);
u64 pcore_hist_lifetime(struct pcore_hist *h);
void pcore_hist_read_total(struct pcore_hist *h, struct pcore_snap *s);
bool pcore_hist_read_cgtotal(struct pcore_hist *h, u32 slot,
			     struct pcore_snap *s, struct pcore_keyval *kv);
u64 pcore_hist_dropped(const struct pcore_hist *h);
void pcore_hist_unlink(struct pcore_hist *h);
void pcore_hist_release(struct pcore_hist *h);
void pcore_hist_put(struct pcore_hist *h);

#endif /* PCORE_HIST_H */
