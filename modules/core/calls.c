// SPDX-License-Identifier: GPL-2.0
/*
 * Call tables: the calls in flight of user-space functions that
 * uretprobes time.
 *
 * A call table keeps the calls in flight of a user-space function that a
 * uretprobe times: a call is its task (pid and start time, as a task
 * timer's stamp is) and its stack pointer, so the calls of a recursion
 * each have their own slot.  A task's calls are all in the window of slots its pid hashes to,
 * and a slot is owned by whoever moved its key to busy, so its start and
 * per-call data are written and read by the owner only.  A slot is freed
 * when its call returns, or when its task exits (counted as exited);
 * else, when a call finds no free slot in its window, it takes the
 * oldest (counted as evicted: a call that did not return, as after a
 * longjmp(), is reclaimed so).  Call tables are on pcore_call_tables
 * (RCU) for the exit handler.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include "pcore.h"
#include "slot.h"

/* Every call table, for the exit handler; writers hold the spinlock. */
static LIST_HEAD(pcore_call_tables);
static DEFINE_SPINLOCK(pcore_call_tables_lock);

/* What happened to the calls of a call table, on one CPU. */
struct pcore_calls_stats {
	local64_t missed;	/* a call that could not claim a slot */
	local64_t evicted;	/* a call whose slot a newer call took */
	local64_t exited;	/* a call whose task exited before it returned */
};

/**
 * struct pcore_calls - the calls in flight of a uretprobe
 * @gnode: in pcore_call_tables (RCU)
 * @slots: the slots, @stride bytes each
 * @mask: slots - 1
 * @stride: bytes of a slot: header and per-call data
 * @stats: per CPU
 */
struct pcore_calls {
	struct list_head gnode;
	u8 *slots;
	u32 mask;
	u32 stride;
	struct pcore_calls_stats __percpu *stats;
};

#define pcore_calls_inc(t, f)	pcore_pcpu_stat_inc((t)->stats, f)

static __always_inline struct pcore_cslot *pcore_cslot_at(const struct pcore_calls *t,
							  u32 i)
{
	return (struct pcore_cslot *)(t->slots + (size_t)(i & t->mask) * t->stride);
}

static u32 pcore_calls_slots(u32 slots)
{
	return roundup_pow_of_two(clamp(slots, 2U, 65536U));
}

static size_t pcore_calls_stride(size_t data_size)
{
	return ALIGN(sizeof(struct pcore_cslot) + data_size, 8);
}

/* Bytes of the call table pcore_calls_create() makes for these. */
size_t pcore_calls_mem(u32 slots, size_t data_size)
{
	return sizeof(struct pcore_calls) +
	       pcore_calls_slots(slots) * pcore_calls_stride(data_size) +
	       num_possible_cpus() * sizeof(struct pcore_calls_stats);
}

/**
 * pcore_calls_create() - a call table
 * @slots: calls kept, rounded up to a power of two, 2 to 65536
 * @data_size: per-call data, in bytes
 *
 * Return: the table, listed for the exit handler, or NULL without memory.
 * Sleeps.
 */
struct pcore_calls *pcore_calls_create(u32 slots, size_t data_size)
{
	struct pcore_calls *t = kzalloc(sizeof(*t), GFP_KERNEL);
	u32 n = pcore_calls_slots(slots);

	if (!t)
		return NULL;
	INIT_LIST_HEAD(&t->gnode);
	t->stride = pcore_calls_stride(data_size);
	t->mask = n - 1;
	t->slots = kvcalloc(n, t->stride, GFP_KERNEL | __GFP_NOWARN);
	t->stats = alloc_percpu_gfp(struct pcore_calls_stats,
				    GFP_KERNEL | __GFP_NOWARN);
	if (!t->slots || !t->stats) {
		pcore_calls_free(t);
		return NULL;
	}
	spin_lock(&pcore_call_tables_lock);
	list_add_tail_rcu(&t->gnode, &pcore_call_tables);
	spin_unlock(&pcore_call_tables_lock);
	return t;
}

/*
 * Off the exit handler's list; pcore_calls_free() after a grace period
 * (synchronize_rcu(), once for any number of tables).
 */
void pcore_calls_unlink(struct pcore_calls *t)
{
	spin_lock(&pcore_call_tables_lock);
	list_del_rcu(&t->gnode);
	spin_unlock(&pcore_call_tables_lock);
}

/* Free a table that is unlinked (or never was) and that nothing uses. */
void pcore_calls_free(struct pcore_calls *t)
{
	if (!t)
		return;
	free_percpu(t->stats);
	kvfree(t->slots);
	kfree(t);
}

/* Is slot @s, of key @k, the call of current at @sp? */
static __always_inline bool pcore_cslot_is(const struct pcore_cslot *s, u64 k,
					   unsigned long sp)
{
	return PCORE_TSLOT_PID(k) == (u32)current->pid &&
	       READ_ONCE(s->head.born) == current->start_time &&
	       READ_ONCE(s->sp) == sp;
}

static __always_inline bool pcore_cslot_mine(const struct pcore_slot *h, u64 k,
					     const void *sp)
{
	return pcore_cslot_is(container_of(h, struct pcore_cslot, head), k,
			      *(const unsigned long *)sp);
}

/**
 * pcore_calls_enter() - claim a slot for a call of current; hot path
 * @t: table
 * @sp: the call's pcore_ucall_sp()
 *
 * The same call entered again (no return seen) reuses its slot.  The
 * caller owns the slot, writes its per-call data and gives it up with
 * pcore_calls_publish() or pcore_calls_cancel().
 *
 * Return: the slot, or NULL (counted as missed).
 */
notrace struct pcore_cslot *pcore_calls_enter(struct pcore_calls *t,
					      unsigned long sp)
{
	struct pcore_slot *h;
	struct pcore_cslot *s;
	bool evicted = false;

	if (current->pid <= 0) {
		pcore_calls_inc(t, missed);
		return NULL;
	}
	h = pcore_slot_claim(t->slots, t->mask, t->stride, current->pid,
			     pcore_cslot_mine, &sp, &evicted);
	if (!h) {
		pcore_calls_inc(t, missed);
		return NULL;
	}
	if (evicted)
		pcore_calls_inc(t, evicted);
	s = container_of(h, struct pcore_cslot, head);
	h->born = current->start_time;
	s->sp = sp;
	return s;
}
NOKPROBE_SYMBOL(pcore_calls_enter);

/* Stamp the call's start and make its slot findable by its return. */
void notrace pcore_calls_publish(struct pcore_cslot *s)
{
	s->head.start = ktime_get_mono_fast_ns();
	pcore_slot_publish(&s->head, current->pid);
}
NOKPROBE_SYMBOL(pcore_calls_publish);

/* Give up a slot that pcore_calls_enter() or pcore_calls_take() claimed. */
void notrace pcore_calls_cancel(struct pcore_cslot *s)
{
	pcore_slot_publish(&s->head, 0);
}
NOKPROBE_SYMBOL(pcore_calls_cancel);

/**
 * pcore_calls_take() - claim the slot of a call that returns; hot path
 * @t: table
 * @sp: the call's pcore_ucall_sp() at the return
 * @ns: set to the time since the call's entry
 *
 * Return: the slot (its per-call data is the caller's until it gives it
 * up with pcore_calls_cancel()), or NULL when the call has none: its
 * entry was not timed, or its slot was evicted (counted then).
 */
notrace struct pcore_cslot *pcore_calls_take(struct pcore_calls *t,
					     unsigned long sp, u64 *ns)
{
	struct pcore_cslot *s;
	u64 k, now, start;
	u32 i, n;

	if (current->pid <= 0)
		return NULL;
	i = hash_32(current->pid, ilog2(t->mask + 1));
	for (n = 0; n < PCORE_TIMER_PROBES && n <= t->mask; n++) {
		s = pcore_cslot_at(t, i + n);
		k = atomic64_read_acquire(&s->head.key);
		if (!pcore_cslot_is(s, k, sp))
			continue;
		if (atomic64_cmpxchg(&s->head.key, k,
				     PCORE_TSLOT_KEY(PCORE_TSLOT_GEN(k) + 1,
						     PCORE_TSLOT_BUSY)) != k)
			return NULL;
		start = s->head.start;
		now = ktime_get_mono_fast_ns();
		*ns = now > start ? now - start : 0;
		return s;
	}
	return NULL;
}
NOKPROBE_SYMBOL(pcore_calls_take);

/* Calls lost: not kept for want of a slot, or evicted from theirs. */
u64 pcore_calls_missed(const struct pcore_calls *t)
{
	const struct pcore_calls_stats *s;
	u64 n = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(t->stats, cpu);
		n += local64_read(&s->missed) + local64_read(&s->evicted);
	}
	return n;
}

/* @task exits: its calls in flight in every table go, counted. */
void notrace pcore_calls_task_exit(struct task_struct *task)
{
	struct pcore_calls *t;
	struct pcore_cslot *s;
	u32 i, n;
	u64 k;

	if (task->pid <= 0)
		return;
	list_for_each_entry_rcu(t, &pcore_call_tables, gnode) {
		i = hash_32(task->pid, ilog2(t->mask + 1));
		for (n = 0; n < PCORE_TIMER_PROBES && n <= t->mask; n++) {
			s = pcore_cslot_at(t, i + n);
			k = atomic64_read_acquire(&s->head.key);
			if (PCORE_TSLOT_PID(k) != (u32)task->pid ||
			    READ_ONCE(s->head.born) != task->start_time)
				continue;
			if (atomic64_cmpxchg(&s->head.key, k,
					     PCORE_TSLOT_KEY(PCORE_TSLOT_GEN(k) + 1,
							     0)) == k)
				pcore_calls_inc(t, exited);
		}
	}
}
NOKPROBE_SYMBOL(pcore_calls_task_exit);

