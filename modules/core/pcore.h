/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probe_core internals shared by the files of probe_core.ko.
 *
 * Objects: a client per handler module (and one for probe_core's own
 * target= and tracepoints= probes) owns histograms, timers and probes.
 * All of them are created, listed and destroyed under pcore_lock; the
 * hot path never takes it.
 *
 * Lock order: tracepoint_module_list_mutex (module notifier) -> pcore_lock;
 * the module notifier of funcs.c -> pcore_lock
 * -> pcore_hist.lock; pcore_builtin_lock (builtin.c) -> pcore_lock; the
 * locks of a file's deletion or unmount (fsnotify tells uprobe.c) ->
 * pcore_lock -> the locks of uprobes and of the mm.  A
 * harvest waits for a grace period under pcore_hist.lock, so
 * /dev/probe_core harvests without pcore_lock, holding a reference.
 * Debugfs readers take pcore_lock, so debugfs files are removed only
 * without it: objects are unlinked under pcore_lock and released after.
 *
 * Layers: each file uses only files of the layers below its own
 * (scripts/callgraph.sh checks that no files use each other in a cycle):
 *
 *   main                 parameters, init and exit
 *   chardev, debugfs     the export files: /dev/probe_core; the text files
 *   builtin, client      probe_core's own probes (target=, tracepoints=,
 *                        attach through /dev/probe_core); clients
 *   kprobe, tracepoint,  the probe mechanisms, each with its handlers,
 *   uprobe, funcs,       its attach function and its struct
 *   profile              pcore_probe_ops: kprobes and kretprobes;
 *                        tracepoints and the modules that bring them;
 *                        uprobes and what they hold of the file; the
 *                        functions of a glob (one fprobe, or a kretprobe
 *                        or kprobe each); the perf events of profilers
 *   probe                the life of a probe, through its ops only
 *   hist, timer, calls   histograms; timers; a uretprobe's calls in
 *                        flight (timer and calls share slot.h)
 *   stack                kernel stacks: capture, the text of a frame
 *   registry, names,     pcore_lock, the lists, lookups, the observer;
 *   mem, pcore_engine    checks of names and options; the mem_max cap;
 *                        the math, and the text of a histogram spec
 *
 * The export files find objects through the registry and read them with
 * the read functions of hist, probe and timer; nothing in the core calls
 * them: debugfs learns of clients and histograms as the registry's
 * observer.
 */
#ifndef PCORE_H
#define PCORE_H

#include <linux/irq_work.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/fprobe.h>
#include <linux/kprobes.h>
#include <linux/tracepoint.h>
#include <linux/uprobes.h>
#include <linux/workqueue.h>
#include <linux/pid.h>
#include <linux/sched/signal.h>
#include <asm/local64.h>
#include "probe_core/probe_core.h"
#include "pcore_engine.h"
#include "probe_core/compat.h"

#define PCORE_MAX_PROBES	256
#define PCORE_MAXACTIVE_MAX	4096
#define PCORE_KRET_DATA_MAX	256
#define PCORE_TIMER_TASKS_MAX	65536
#define PCORE_UNIT_MAX		16

/* Count one outcome @f in this CPU's @stats, from any context. */
#define pcore_pcpu_stat_inc(stats, f)					\
	do {								\
		preempt_disable_notrace();				\
		local64_inc(&this_cpu_ptr(stats)->f);			\
		preempt_enable_notrace();				\
	} while (0)

/* The total of a per-CPU counter over all possible CPUs. */
static inline u64 pcore_pcpu_sum(local64_t __percpu *c)
{
	u64 n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += local64_read(per_cpu_ptr(c, cpu));
	return n;
}

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
 * harvest of the bank gives them all back.  See "Memory" in hist.c.
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
 * struct pcore_hist - a histogram, or one per key, with one record per CPU
 * @node: in the client's hists
 * @client: owner
 * @name: directory name
 * @unit: unit for display
 * @key_name: what a key is, for display
 * @layout: bucket layout of every key
 * @key_mode: an enum pcore_key_mode
 * @flags: %PCORE_HIST_KEY_ADDR or 0
 * @nslots: keys kept: 1 when not keyed
 * @stride: bytes of one key's record on one CPU, a multiple of a cache line
 * @pool_shift: log2 of the records of a chunk of @pool
 * @pool_chunks: the most chunks a bank's pool can need: enough for every
 *	slot on every possible CPU
 * @pool_capped: growing @pool would go over mem_max: no new records until
 *	the next harvest, which tries again
 * @cap_logged: the log line that says so was printed (once per histogram)
 * @cur: the bank the hot path writes (0 or 1); flipped under @lock
 * @cpu: per bank, per possible CPU: without keys, its record; keyed, a
 *	table of @nslots record pointers, NULL until the key has a value on
 *	that CPU in the bank's interval
 * @pool: keyed: per bank, the records that the tables point into
 * @keys: per bank, %PCORE_KEYS_HASHED and %PCORE_KEYS_STACK: the key of
 *	each slot, U64_MAX when free (a stack's: PCORE_KEY_BUSY while its
 *	frames are written; a hashed key may be PCORE_KEY_BUSY)
 * @labels: per bank, keyed: per slot, the label given with its first value
 *	in the bank's interval
 * @depth: %PCORE_KEYS_STACK: frames kept of each stack
 * @seed: %PCORE_KEYS_STACK: of the hash of stacks, random: a key tells
 *	nothing of the addresses in its stack
 * @frames: %PCORE_KEYS_STACK: per bank, pcore_stack_words(@depth) words
 *	per slot, written before the slot's key is published (release) and
 *	read after it (acquire); freed with the bank's keys
 * @dropped: per CPU, values whose key found no slot
 * @probe: the probe bound to it (kretprobe/kprobe/tracepoint @hist)
 * @unlinked: under pcore_lock: off its client for good (pcore_hist_unlink());
 *	after it, @client may be freed at any time
 * @dir: its debugfs directory
 * @mem: bytes it takes, counted against mem_max
 * @ref: held by its client until pcore_hist_release(), and by readers of
 *	/dev/probe_core, which read it without pcore_lock
 * @lock: serialises harvests and the readers of the bank being written;
 *	protects @total, @pending and @scratch
 * @total: every value moved out by resets and interval reads, all keys
 *	and CPUs merged: with the banks, the histogram since its creation
 *	(pcore_hist_read_total())
 * @created: CLOCK_REALTIME at creation, ns since the Epoch
 * @pending: the bank that is not @cur still holds an interval, whose
 *	harvest could not allocate its answer; the next harvest takes it
 * @scratch: one snapshot of @layout, for harvests and walks
 * @grow: queued by the hot path when a pool is half used, from any context
 * @grow_work: what @grow schedules: adds records to the pools
 *
 * See "Intervals", "Keys" and "Memory" in hist.c.
 */
struct pcore_hist {
	struct list_head node;
	struct pcore_client *client;
	char name[PCORE_NAME_MAX];
	char unit[PCORE_UNIT_MAX];
	char key_name[PCORE_UNIT_MAX];
	struct pcore_layout layout;
	u32 key_mode;
	u32 flags;
	u32 nslots;
	size_t stride;
	u32 pool_shift;
	u32 pool_chunks;
	bool pool_capped;
	bool cap_logged;
	u32 cur;
	void **cpu[2];
	struct pcore_pool pool[2];
	u64 *keys[2];
	struct pcore_label *labels[2];
	u32 depth;
	u32 seed;
	unsigned long *frames[2];
	local64_t __percpu *dropped;
	struct pcore_probe *probe;
	bool unlinked;
	struct dentry *dir;
	size_t mem;
	struct kref ref;
	struct mutex lock;
	struct pcore_snap *total;
	u64 created;
	bool pending;
	struct pcore_snap *scratch;
	struct irq_work grow;
	struct work_struct grow_work;
};

/*
 * The record of @slot on @cpu in bank @bank: NULL when a keyed slot has
 * no value there yet.
 */
static inline struct pcore_cpu_hist *pcore_rec(const struct pcore_hist *h,
					       u32 bank, int cpu, u32 slot)
{
	if (!h->key_mode)
		return h->cpu[bank][cpu];
	return READ_ONCE(((struct pcore_cpu_hist **)h->cpu[bank][cpu])[slot]);
}

/*
 * pcore_hist_add() for a caller that runs with preemption off already:
 * probe_core's own kprobe and kretprobe handlers (kprobes and rethook run
 * them so).  Inline: no call, no preempt_disable().
 */
static __always_inline void pcore_hist_add_nopreempt(struct pcore_hist *h,
						     u64 v)
{
	if (unlikely(h->key_mode)) {
		pcore_hist_add_key(h, 0, NULL, v);
		return;
	}
	pcore_record(&h->layout,
		     h->cpu[READ_ONCE(h->cur)][raw_smp_processor_id()], v);
}

/* pcore_hist_count() for a caller that runs with preemption off already. */
static __always_inline void pcore_hist_count_nopreempt(struct pcore_hist *h)
{
	struct pcore_cpu_hist *c;

	if (unlikely(h->key_mode)) {
		pcore_hist_add_key(h, 0, NULL, 0);
		return;
	}
	c = h->cpu[READ_ONCE(h->cur)][raw_smp_processor_id()];
	pcore_ctr_add(&c->b[0], 1);
}

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

/*
 * Stacks (stack.c).  A stack hist's key is a word of its hash (low 32
 * bits), its number of words (bits 32 to 39) and PCORE_STACK_F_* flags
 * (from bit 40); U64_MAX is a free slot, PCORE_KEY_BUSY one whose frames
 * are being written.  A frame is one word, but for [user]: one frame in
 * three words, the comm in the last two.  Words below a page are not
 * addresses: [user], [idle].
 */
#define PCORE_KEY_BUSY		(U64_MAX - 1)
#define PCORE_STACK_F_IP	0x1	/* frame 0 is where it stopped, not a return */
#define PCORE_STACK_F_CUT	0x2	/* deeper than the histogram's depth */
#define PCORE_FRAME_USER	1UL
#define PCORE_FRAME_IDLE	2UL
#define PCORE_FRAME_USER_WORDS	3

/*
 * The words of a slot of a stack hist of @depth frames: room for its
 * deepest stack, or for a [user] frame (three words) at depths 1 and 2.
 * Every writer and reader of a slot's frames uses this size.
 */
static inline u32 pcore_stack_words(u32 depth)
{
	return max_t(u32, depth, PCORE_FRAME_USER_WORDS);
}

int pcore_stack_init(void);
void pcore_stack_exit(void);
unsigned long *pcore_stack_get(struct pt_regs *regs, struct task_struct *task,
			       unsigned int max, u32 *flags, unsigned int *n);
void pcore_stack_put(void);
void pcore_hist_add_frames_taken(struct pcore_hist *h, const unsigned long *f,
				 unsigned int n, u32 flags, u64 v);
unsigned int pcore_stack_frame(char *buf, size_t len, const unsigned long *f,
			       unsigned int n, u32 flags, unsigned int i);

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
u64 pcore_hist_dropped(const struct pcore_hist *h);
void pcore_hist_unlink(struct pcore_hist *h);
void pcore_hist_release(struct pcore_hist *h);
void pcore_hist_put(struct pcore_hist *h);

/* mem.c: the mem_max cap */
unsigned long long pcore_mem_cap(void);
int pcore_mem_try(size_t bytes);
int pcore_mem_charge(size_t bytes, const char *client, const char *what,
		     const char *name);
void pcore_mem_uncharge(size_t bytes);

/*
 * The head of a task timer's or a call table's slot: key is pid |
 * generation << 32 (pid 0: free; PCORE_TSLOT_BUSY: claimed), the stamp,
 * and the task's start_time, which with the pid says who.
 */
struct pcore_slot {
	atomic64_t key;
	u64 start;
	u64 born;
};

struct pcore_tslot {
	struct pcore_slot head;
	const void *task;	/* current at the start */
	unsigned long nsw;
	u32 nframes;		/* a timer that keeps stacks: the stack's */
	u32 fflags;		/* frames, in pcore_timer.frames, and flags */
};

/* A CPU timer stamp. */
struct pcore_tcpu {
	u64 start;
	const void *task;
	unsigned long nsw;
	bool armed;
};

/* Outcomes of a timer's measurements on one CPU. */
struct pcore_timer_stats {
	local64_t measured;
	local64_t discarded;
	local64_t unmatched;
	local64_t evicted;
	local64_t exited;
};

/**
 * struct pcore_timer - start/stop stamps per CPU or per task
 * @node: in the client's timers
 * @gnode: in pcore_timers (RCU), for the exit handler and CPU hotplug
 * @client: owner
 * @name: name in the client's timers file
 * @scope: an enum pcore_timer_scope
 * @flags: PCORE_TIMER_* flags
 * @pcpu: %PCORE_TIMER_CPU stamps
 * @slots: %PCORE_TIMER_TASK table
 * @mask: @slots size - 1
 * @stats: per CPU: measured, discarded, unmatched stops, evicted starts,
 *	stamps dropped at their task's exit
 * @frames: a timer that keeps stacks (pcore_timer_keep_stacks()): @depth
 *	frames per slot of @slots, written by the slot's owner
 * @depth: frames kept per slot, 0 when it keeps no stacks
 * @mem: bytes of all of the above, counted against mem_max
 */
struct pcore_timer {
	struct list_head node;
	struct list_head gnode;		/* in pcore_timers, RCU */
	struct pcore_client *client;
	char name[PCORE_NAME_MAX];
	u32 scope;
	u32 flags;
	struct pcore_tcpu __percpu *pcpu;
	struct pcore_tslot *slots;
	u32 mask;
	struct pcore_timer_stats __percpu *stats;
	unsigned long *frames;
	u32 depth;
	size_t mem;
};

int pcore_timer_keep_stacks(struct pcore_timer *t, u32 depth);
bool pcore_timer_stop_stack(struct pcore_timer *t, struct task_struct *task,
			    struct pcore_hist *h, u64 min_ns);
void pcore_timer_stats(const struct pcore_timer *t, u64 *measured,
		       u64 *discarded, u64 *unmatched, u64 *evicted,
		       u64 *exited);
int pcore_timer_init(void);
void pcore_timer_exit(void);
void pcore_timer_release(struct pcore_timer *t);

/*
 * Call tables (calls.c): the calls in flight of a user-space function
 * that a uretprobe times, each named by its task and stack pointer, with
 * the start stamp and the handlers' per-call data.  Bounded; see calls.c.
 */
struct pcore_calls;

/* A call's slot; per-call data follows. */
struct pcore_cslot {
	struct pcore_slot head;
	unsigned long sp;	/* pcore_ucall_sp(): which call of the task */
	u64 data[];
};

struct pcore_calls *pcore_calls_create(u32 slots, size_t data_size);
size_t pcore_calls_mem(u32 slots, size_t data_size);
void pcore_calls_unlink(struct pcore_calls *t);
void pcore_calls_free(struct pcore_calls *t);
struct pcore_cslot *pcore_calls_enter(struct pcore_calls *t, unsigned long sp);
void pcore_calls_publish(struct pcore_cslot *s);
void pcore_calls_cancel(struct pcore_cslot *s);
struct pcore_cslot *pcore_calls_take(struct pcore_calls *t, unsigned long sp,
				     u64 *ns);
u64 pcore_calls_missed(const struct pcore_calls *t);
void pcore_calls_task_exit(struct task_struct *task);

enum pcore_probe_kind {
	PCORE_PROBE_KPROBE,
	PCORE_PROBE_KRETPROBE,
	PCORE_PROBE_TRACEPOINT,
	PCORE_PROBE_UPROBE,
	PCORE_PROBE_URETPROBE,
	PCORE_PROBE_FUNCS,
	PCORE_PROBE_PROFILE,
};

struct perf_event;

/**
 * struct pcore_profile - what a profiler holds (profile.c)
 * @node: its instance of the CPU hotplug state
 * @ev: per CPU, its cpu-clock perf event while the CPU is online and the
 *	profiler armed, else NULL
 * @hz: samples per second per CPU
 * @period: ns between samples
 * @armed: an instance of the hotplug state (not disabled)
 * @arming: pcore_profile_arm() is adding the instance: a CPU without its
 *	event fails it (under the hotplug lock: no CPU comes or goes then)
 * @unsampled: CPUs online without their event, whose creation failed when
 *	they came online (logged); until they go offline
 */
struct pcore_profile {
	struct hlist_node node;
	struct perf_event * __percpu *ev;
	u32 hz;
	u64 period;
	bool armed;
	bool arming;
	atomic_t unsampled;
};

int pcore_profile_init(void);
void pcore_profile_exit(void);
size_t pcore_profile_mem(void);
int pcore_profile_alloc(struct pcore_probe *p, u32 hz);
int pcore_profile_unsampled(const struct pcore_probe *p);
void pcore_profile_release(struct pcore_probe *p);

struct pcore_umark;

/**
 * struct pcore_uprobe - what a uprobe or uretprobe holds (uprobe.c)
 * @uc: the consumer registered with uprobes
 * @inode: the file's inode, referenced while the probe has it
 * @offset: where in the file
 * @uprobe: what uprobe_register() returned (v6.12+), else NULL
 * @mark: the watch that tells of the file's deletion or unmount, NULL
 *	once the probe let go of the file
 * @calls: %PCORE_PROBE_URETPROBE: the calls in flight
 * @gone: the client's callback for a file that went away, or NULL
 * @armed: registered with uprobes (not disabled, file not gone)
 */
struct pcore_uprobe {
	struct uprobe_consumer uc;
	struct inode *inode;
	loff_t offset;
	struct uprobe *uprobe;
	struct pcore_umark *mark;
	struct pcore_calls *calls;
	void (*gone)(struct pcore_probe *p);
	bool armed;
};

struct pcore_fgroup;

/**
 * struct pcore_fmember - one function of a %PCORE_PROBE_FUNCS probe
 * @name: the function
 * @addr: where kprobes put a probe on it (with fprobe: its ftrace call)
 * @hist: the histogram its calls feed
 * @g: its probe's functions
 * @i: its index in @g's members (and hits)
 * @gone: with fprobe: its module unloaded (ftrace keeps the address in
 *	the fprobe's filter, and a module loaded there later would be seen)
 * @kp: without fprobe, %PCORE_FUNCS_COUNT: its kprobe
 * @rp: without fprobe: its kretprobe
 */
struct pcore_fmember {
	char *name;
	unsigned long addr;
	struct pcore_hist *hist;
	struct pcore_fgroup *g;
	u32 i;
	bool gone;
#ifndef PCORE_HAVE_FPROBE
	union {
		struct kprobe kp;
		struct kretprobe rp;
	};
#endif
};

/**
 * struct pcore_fgroup - the functions of a %PCORE_PROBE_FUNCS probe (funcs.c)
 * @p: the probe
 * @n: functions
 * @flags: %PCORE_FUNCS_COUNT or 0
 * @maxactive: as the options gave it
 * @hits: per CPU, @n counters: calls of each function
 * @fp: with fprobe: the one fprobe on all of them
 * @m: the functions, by address
 */
struct pcore_fgroup {
	struct pcore_probe *p;
	u32 n;
	u32 flags;
	int maxactive;
	local64_t __percpu *hits;
#ifdef PCORE_HAVE_FPROBE
	struct fprobe fp;
#endif
	struct pcore_fmember m[];
};

int pcore_funcs_init(void);
void pcore_funcs_exit(void);
int pcore_fgroup_init(struct pcore_probe *p, const struct pcore_funcs_opts *o);
size_t pcore_fgroup_mem(const struct pcore_fgroup *g);
void pcore_fgroup_release(struct pcore_probe *p);
const char *pcore_fgroup_how(const struct pcore_probe *p);

struct pcore_probe;

/* What a teardown must wait for before a probe's memory goes. */
#define PCORE_SYNC_RCU		0x1	/* synchronize_rcu() */
#define PCORE_SYNC_TP		0x2	/* tracepoint_synchronize_unregister() */
#define PCORE_SYNC_UPROBE	0x4	/* uprobe_unregister_sync() (v6.12+) */

/**
 * struct pcore_batch - the probes of one kind that a teardown unregisters
 * @items: room for every probe of the teardown, or NULL without memory
 *	(then each disarm unregisters its probe alone)
 * @n: entries in @items
 */
struct pcore_batch {
	void **items;
	unsigned int n;
};

/**
 * struct pcore_probe_ops - a probe mechanism, as probe.c drives it
 * @kind: the enum pcore_probe_kind of its probes
 * @name_chars: characters a probe name may have besides letters, digits,
 *	'_' and '.'
 * @check: optional; more checks under pcore_lock before @arm (a group's
 *	histograms); 0 or an errno with one log line
 * @arm: register the probe its attach function set up, with that
 *	function's options; under pcore_lock; 0 or an errno with one log
 *	line, leaving nothing registered
 * @link: optional; bind what else the probe feeds (a group's histograms)
 * @disarm: teardown, under pcore_lock: unregister the probe if it is
 *	(@armed says whether @arm succeeded), or put it in @b for @flush;
 *	take it off whatever its handlers are found through.  Also called
 *	for a probe whose @arm failed.  Return: PCORE_SYNC_* waits it needs
 *	before @release (each is done once per teardown)
 * @flush: optional; unregister what @disarm put in the batch, at once
 * @release: optional; after the waits, under pcore_lock: free what the
 *	mechanism holds and unbind what @link bound
 * @after_unlock: optional; what teardown does once pcore_lock is dropped
 *	(a uprobe's last iput())
 * @set_enabled: disarm the probe, or arm it again; under pcore_lock
 * @hits: optional; calls of the handler feeding histogram @h (NULL: all);
 *	by default the probe's per-CPU count
 * @hist_symbol: optional; what feeds @h resolved to; by default @symbol
 * @missed: optional; events missed; by default 0
 *
 * Each mechanism (kprobes and kretprobes, tracepoints, uprobes, function
 * groups, the profiler) has one, and its attach function hands it to
 * pcore_probe_new(); probe.c calls a mechanism only through it.
 */
struct pcore_probe_ops {
	enum pcore_probe_kind kind;
	const char *name_chars;
	int (*check)(struct pcore_probe *p);
	int (*arm)(struct pcore_probe *p, const void *opts);
	void (*link)(struct pcore_probe *p);
	u32 (*disarm)(struct pcore_probe *p, struct pcore_batch *b);
	void (*flush)(struct pcore_batch *b);
	void (*release)(struct pcore_probe *p);
	void (*after_unlock)(void);
	int (*set_enabled)(struct pcore_probe *p, bool on);
	u64 (*hits)(const struct pcore_probe *p, const struct pcore_hist *h);
	const char *(*hist_symbol)(const struct pcore_probe *p,
				   const struct pcore_hist *h);
	unsigned long (*missed)(const struct pcore_probe *p);
};

extern const struct pcore_probe_ops pcore_funcs_ops;
extern const struct pcore_probe_ops pcore_profile_ops;
extern const struct pcore_probe_ops pcore_uprobe_ops;
extern const struct pcore_probe_ops pcore_uretprobe_ops;

/**
 * struct pcore_probe - one attached probe
 * @node: in pcore_probes (the probes file)
 * @cnode: in the client's probes
 * @client: owner
 * @name: probe name; the probes file shows "<client>/<name>"
 * @symbol: what it resolved to: kernel symbol or tracepoint name
 * @kind: an enum pcore_probe_kind, its @ops's
 * @ops: its mechanism
 * @armed: its mechanism's @arm succeeded at attach
 * @priv: handler data
 * @hist: the histogram it feeds, or NULL
 * @hits: per CPU, handler calls
 * @kp: %PCORE_PROBE_KPROBE
 * @rp: %PCORE_PROBE_KRETPROBE
 * @up: %PCORE_PROBE_UPROBE and %PCORE_PROBE_URETPROBE
 * @fg: %PCORE_PROBE_FUNCS: its functions, each with its histogram
 * @prof: %PCORE_PROBE_PROFILE: its perf events
 * @pre: kprobe pre handler; a profiler's sample handler
 * @post: kprobe post handler
 * @entry: kretprobe or uprobe entry handler
 * @ret: kretprobe or uretprobe return handler
 * @tp: %PCORE_PROBE_TRACEPOINT: the tracepoint while attached, else NULL
 * @tp_fn: the tracepoint handler
 * @tp_mod: the module @tp is in, NULL for the core kernel's
 * @disabled: disabled with pcore_probe_set_enabled()
 * @fpid: filter: only the process of this struct pid (held), or NULL
 * @fcomm: filter: only tasks of this comm, NUL-padded; zero for any
 * @filtered: @fpid or @fcomm is set
 * @mem: bytes counted against mem_max for it, given back when it is freed
 */
struct pcore_probe {
	struct list_head node;
	struct list_head cnode;
	struct pcore_client *client;
	char name[PCORE_NAME_MAX];
	char symbol[KSYM_NAME_LEN + 32];
	enum pcore_probe_kind kind;
	const struct pcore_probe_ops *ops;
	bool armed;
	void *priv;
	struct pcore_hist *hist;
	local64_t __percpu *hits;
	union {
		struct kprobe kp;
		struct kretprobe rp;
		struct pcore_uprobe up;
		struct pcore_fgroup *fg;
		struct pcore_profile prof;
	};
	void (*pre)(struct pcore_probe *p, struct pt_regs *regs);
	void (*post)(struct pcore_probe *p, struct pt_regs *regs);
	int (*entry)(struct pcore_probe *p, struct pt_regs *regs, void *data);
	void (*ret)(struct pcore_probe *p, struct pt_regs *regs, void *data,
		    u64 ns);
	struct tracepoint *tp;
	void *tp_fn;
	struct module *tp_mod;
	bool disabled;
	struct pid *fpid;
	u64 fcomm[2];
	bool filtered;
	size_t mem;
};

/*
 * Does current pass @p's filter?  A pid compares struct pids (a reused
 * number is another struct pid); a comm compares the 16 NUL-padded bytes
 * of task->comm as two words, with one branch.
 */
static __always_inline bool pcore_filter_pass(const struct pcore_probe *p)
{
	u64 c[2];

	if (p->fpid && task_tgid(current) != p->fpid)
		return false;
	if (!p->fcomm[0])
		return true;
	/* Two loads: the size is known (TASK_COMM_LEN is 16). */
	BUILD_BUG_ON(sizeof(current->comm) != sizeof(c));
	memcpy(c, current->comm, sizeof(c));
	return !((c[0] ^ p->fcomm[0]) | (c[1] ^ p->fcomm[1]));
}

/*
 * A tracepoint probe waiting for the module that has its tracepoint; a
 * disabled one is not waiting, whatever its module does.
 */
static inline bool pcore_probe_waiting(const struct pcore_probe *p)
{
	return p->kind == PCORE_PROBE_TRACEPOINT && !p->tp && !p->disabled;
}

static inline bool pcore_probe_is_user(const struct pcore_probe *p)
{
	return p->kind == PCORE_PROBE_UPROBE || p->kind == PCORE_PROBE_URETPROBE;
}

/* A uprobe whose file was deleted or unmounted: it let go of it. */
static inline bool pcore_probe_gone(const struct pcore_probe *p)
{
	return pcore_probe_is_user(p) && !READ_ONCE(p->up.inode);
}

/* Count a handler call; kprobe and kretprobe handlers run with preemption off. */
static __always_inline void pcore_hit_nopreempt(struct pcore_probe *p)
{
	local64_inc(this_cpu_ptr(p->hits));
}

static __always_inline void pcore_hit(struct pcore_probe *p)
{
	preempt_disable_notrace();
	pcore_hit_nopreempt(p);
	preempt_enable_notrace();
}

/* uprobes and uretprobes (uprobe.c); callers hold pcore_lock. */
int pcore_uprobe_init(void);
void pcore_uprobe_exit(void);
size_t pcore_uprobe_mem(const struct pcore_probe *p, u32 slots,
			size_t data_size);
int pcore_uprobe_hold(struct pcore_probe *p, struct file *file, u64 offset,
		      u32 slots, size_t data_size);
void pcore_uprobe_put_files(void);

static inline const char *pcore_probe_kind_str(enum pcore_probe_kind kind)
{
	switch (kind) {
	case PCORE_PROBE_KPROBE:
		return "kprobe";
	case PCORE_PROBE_KRETPROBE:
		return "kretprobe";
	case PCORE_PROBE_UPROBE:
		return "uprobe";
	case PCORE_PROBE_URETPROBE:
		return "uretprobe";
	case PCORE_PROBE_FUNCS:
		return "functions";
	case PCORE_PROBE_PROFILE:
		return "profile";
	default:
		return "tracepoint";
	}
}

static inline const char *pcore_probe_kind_name(const struct pcore_probe *p)
{
	return pcore_probe_kind_str(p->kind);
}

/*
 * What the kernel allocates for @n kretprobe instances with @data_size
 * bytes of data each (with rethook, the instance embeds its node).
 */
static inline size_t pcore_kret_mem(u32 n, size_t data_size)
{
	return (size_t)n * (sizeof(struct kretprobe_instance) + data_size);
}

/* One log line about probe @p: "<client>: <kind> <name>: ..." */
#define pcore_perr(p, fmt, ...)						\
	pr_err("%s%s%s %s: " fmt "\n", (p)->client->name,		\
	       *(p)->client->name ? ": " : "", pcore_probe_kind_name(p),	\
	       (p)->name, ##__VA_ARGS__)

struct pcore_probe *pcore_probe_new(struct pcore_client *c,
				    const struct pcore_probe_ops *ops,
				    const char *name, const char *dflt,
				    struct pcore_hist *h, void *priv,
				    const struct pcore_filter *f);
int pcore_probe_charge(struct pcore_probe *p, size_t bytes);
int pcore_check_symbol(struct pcore_probe *p, const char *sym);
struct pcore_probe *pcore_probe_add(struct pcore_probe *p, const void *o,
				    int err);
u64 pcore_probe_hits(const struct pcore_probe *p);
u64 pcore_probe_hist_hits(const struct pcore_probe *p,
			  const struct pcore_hist *h);
const char *pcore_probe_hist_symbol(const struct pcore_probe *p,
				    const struct pcore_hist *h);
unsigned long pcore_probe_missed(const struct pcore_probe *p);
void pcore_client_detach_probes(struct pcore_client *c);
int pcore_tp_init(void);
bool pcore_tp_exists(const char *name);
void pcore_tp_exit(void);

int pcore_probe_set_enabled(struct pcore_probe *p, bool on);

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

/* Checks of what the API is given (names.c). */
int pcore_check_name(const char *what, const char *name, const char *more);
int pcore_check_args(const char *what, const struct pcore_client *c,
		     const void *o);
bool pcore_one_word(const char *s);
size_t pcore_to_word(char *dst, const char *src, size_t len);

int pcore_client_init(void);
void pcore_client_exit(void);

/* probe_core's own probes (builtin.c). */
/**
 * struct pcore_builtin_req - one of probe_core's own probes to attach
 * @tracepoint: a tracepoint with a built-in handler, else a function
 * @param: where the request came from, for log lines ("target", "attach")
 * @name: function (with target='s suffixes) or tracepoint; the
 *	histogram's name
 * @spec: histogram layout
 * @maxactive: kretprobe or uretprobe: calls in flight, 0 for the default
 * @file: a user-space file whose function at @offset to probe, or NULL
 * @offset: where in @file
 * @filter: only these tasks (function probes only)
 * @depth: ":stacks" and profilers: frames kept of each stack, 0 for the
 *	default
 * @hz: a profiler (@name its histogram's): samples per second per CPU
 */
struct pcore_builtin_req {
	bool tracepoint;
	const char *param;
	const char *name;
	struct pcore_hist_spec spec;
	unsigned int maxactive;
	struct file *file;
	u64 offset;
	struct pcore_filter filter;
	unsigned int depth;
	unsigned int hz;
};

extern unsigned int pcore_offcpu_min_us;
extern unsigned int pcore_offcpu_tasks;

int pcore_builtin_attach(const struct pcore_builtin_req *r);
int pcore_builtin_detach(const char *name);
int pcore_builtin_set_enabled(const char *name, bool on);
void pcore_builtin_log(void);
void pcore_builtin_free_all(void);

int pcore_chardev_init(void);
void pcore_chardev_exit(void);

void pcore_debugfs_init(void);
void pcore_debugfs_exit(void);

#endif /* PCORE_H */
