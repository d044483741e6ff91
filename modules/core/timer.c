// SPDX-License-Identifier: GPL-2.0
/*
 * Timers: start and stop stamps per CPU or per task, for handlers that
 * time one event to another.
 *
 * A CPU timer keeps one stamp per CPU and is written only by its CPU.
 * A task timer keeps a bounded table of stamps keyed by pid, written by
 * any CPU without a lock.  Each slot's key word holds the pid and a
 * generation; a writer first moves the key to a busy value with cmpxchg,
 * writes the stamp, and publishes the pid with a release store.  A stop
 * reads the stamp and then frees the slot with cmpxchg from the exact key
 * it read: if the slot changed meanwhile (a restart, or an eviction by a
 * start that found the table full), the generation differs, the cmpxchg
 * fails and the stop counts as unmatched instead of using a torn stamp.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include "pcore.h"

/* Slots a pid looks at. */
#define PCORE_TIMER_PROBES	16
#define PCORE_TSLOT_BUSY	0xffffffffULL
#define PCORE_TSLOT_PID(k)	((u32)(k))
#define PCORE_TSLOT_GEN(k)	((k) >> 32)
#define PCORE_TSLOT_KEY(g, pid)	(((u64)(g) << 32) | (u32)(pid))

static int pcore_timer_check(const struct pcore_client *c,
			     const struct pcore_timer_opts *o)
{
	const char *why = NULL;

	if (o->scope != PCORE_TIMER_CPU && o->scope != PCORE_TIMER_TASK)
		why = "scope must be PCORE_TIMER_CPU or PCORE_TIMER_TASK";
	else if (o->flags & ~PCORE_TIMER_DISCARD_SWITCH)
		why = "unknown flags";
	else if (o->scope == PCORE_TIMER_TASK &&
		 (!o->tasks || o->tasks > PCORE_TIMER_TASKS_MAX))
		why = "tasks must be 1 to 65536";
	else if (o->scope == PCORE_TIMER_CPU && o->tasks)
		why = "tasks given for a CPU timer";
	if (why) {
		pr_err("%s%stimer %s: %s\n", c->name, *c->name ? ": " : "",
		       o->name, why);
		return -EINVAL;
	}
	return 0;
}

static void pcore_timer_free(struct pcore_timer *t)
{
	free_percpu(t->pcpu);
	free_percpu(t->stats);
	kvfree(t->slots);
	kfree(t);
}

/**
 * pcore_timer_create() - create a timer
 * @c: the client it belongs to
 * @o: what to create; see struct pcore_timer_opts
 *
 * Its counters appear in /sys/kernel/debug/probe_core/<module>/timers.
 * Sleeps.
 *
 * Return: the timer, or ERR_PTR(-EINVAL) for bad options (one log line
 * says which), ERR_PTR(-EEXIST) when the client has a timer of that name,
 * or ERR_PTR(-ENOMEM).
 */
struct pcore_timer *pcore_timer_create(struct pcore_client *c,
				       const struct pcore_timer_opts *o)
{
	struct pcore_timer *t, *other;
	u32 n;
	int ret;

	ret = pcore_check_args("timer", c, o);
	if (ret)
		return ERR_PTR(ret);
	ret = pcore_check_name("timer", o->name, true);
	if (!ret)
		ret = pcore_timer_check(c, o);
	if (ret)
		return ERR_PTR(ret);

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		goto nomem;
	INIT_LIST_HEAD(&t->node);
	t->client = c;
	t->scope = o->scope;
	t->flags = o->flags;
	strscpy(t->name, o->name, sizeof(t->name));
	t->stats = alloc_percpu_gfp(struct pcore_timer_stats,
				    GFP_KERNEL | __GFP_NOWARN);
	if (!t->stats)
		goto nomem;
	if (t->scope == PCORE_TIMER_CPU) {
		t->pcpu = alloc_percpu_gfp(struct pcore_tcpu,
					   GFP_KERNEL | __GFP_NOWARN);
		if (!t->pcpu)
			goto nomem;
	} else {
		n = roundup_pow_of_two(max(o->tasks, 2U));
		t->slots = kvcalloc(n, sizeof(*t->slots),
				    GFP_KERNEL | __GFP_NOWARN);
		if (!t->slots)
			goto nomem;
		t->mask = n - 1;
	}

	mutex_lock(&pcore_lock);
	list_for_each_entry(other, &c->timers, node) {
		if (strcmp(other->name, t->name))
			continue;
		mutex_unlock(&pcore_lock);
		pr_err("%s%stimer %s: the name is taken\n", c->name,
		       *c->name ? ": " : "", t->name);
		pcore_timer_free(t);
		return ERR_PTR(-EEXIST);
	}
	list_add_tail(&t->node, &c->timers);
	mutex_unlock(&pcore_lock);
	return t;

nomem:
	/* One line of ours instead of the allocators' warnings. */
	pr_err("%s%stimer %s: out of memory\n", c->name, *c->name ? ": " : "",
	       o->name);
	if (t)
		pcore_timer_free(t);
	return ERR_PTR(-ENOMEM);
}
EXPORT_SYMBOL_GPL(pcore_timer_create);

/* Caller holds pcore_lock. */
void pcore_timer_unlink(struct pcore_timer *t)
{
	list_del_init(&t->node);
}

/* Nothing uses @t any more and it is unlinked. */
void pcore_timer_release(struct pcore_timer *t)
{
	pcore_timer_free(t);
}

/**
 * pcore_timer_destroy() - free a timer
 * @t: timer, or an ERR_PTR() or NULL (ignored)
 *
 * Every probe whose handler may use @t must be detached first.  Sleeps.
 */
void pcore_timer_destroy(struct pcore_timer *t)
{
	if (IS_ERR_OR_NULL(t))
		return;
	mutex_lock(&pcore_lock);
	pcore_timer_unlink(t);
	mutex_unlock(&pcore_lock);
	pcore_timer_release(t);
}
EXPORT_SYMBOL_GPL(pcore_timer_destroy);

static __always_inline unsigned long pcore_switches(void)
{
	return READ_ONCE(current->nvcsw) + READ_ONCE(current->nivcsw);
}

/* Count an outcome on this CPU. */
#define pcore_timer_inc(t, f)						\
	do {								\
		preempt_disable_notrace();				\
		local64_inc(&this_cpu_ptr((t)->stats)->f);		\
		preempt_enable_notrace();				\
	} while (0)

static void notrace pcore_timer_start_task(struct pcore_timer *t, pid_t pid)
{
	struct pcore_tslot *s, *victim = NULL;
	u64 k, oldest = U64_MAX;
	u32 i, n;

	if (pid <= 0) {
		pcore_timer_inc(t, unmatched);
		return;
	}
	i = hash_32(pid, ilog2(t->mask + 1));
	for (n = 0; n < PCORE_TIMER_PROBES && n <= t->mask; n++) {
		s = &t->slots[(i + n) & t->mask];
		k = atomic64_read(&s->key);
		if (PCORE_TSLOT_PID(k) == pid || !PCORE_TSLOT_PID(k)) {
			victim = s;
			break;
		}
		if (PCORE_TSLOT_PID(k) != PCORE_TSLOT_BUSY &&
		    READ_ONCE(s->start) < oldest) {
			oldest = READ_ONCE(s->start);
			victim = s;
		}
	}
	if (!victim) {
		pcore_timer_inc(t, evicted);
		return;
	}
	k = atomic64_read(&victim->key);
	if (PCORE_TSLOT_PID(k) == PCORE_TSLOT_BUSY ||
	    atomic64_cmpxchg(&victim->key, k,
			     PCORE_TSLOT_KEY(PCORE_TSLOT_GEN(k) + 1,
					     PCORE_TSLOT_BUSY)) != k) {
		/* Lost a race for the slot: this start is not timed. */
		pcore_timer_inc(t, evicted);
		return;
	}
	if (PCORE_TSLOT_PID(k) && PCORE_TSLOT_PID(k) != pid)
		pcore_timer_inc(t, evicted);
	victim->start = ktime_get_mono_fast_ns();
	victim->nsw = pcore_switches();
	victim->task = current;
	atomic64_set_release(&victim->key,
			     PCORE_TSLOT_KEY(PCORE_TSLOT_GEN(k) + 2, pid));
}
NOKPROBE_SYMBOL(pcore_timer_start_task);

static bool notrace pcore_timer_stop_task(struct pcore_timer *t, pid_t pid,
					  u64 *ns, unsigned long *nsw,
					  const void **task)
{
	struct pcore_tslot *s;
	u64 k, start, now;
	u32 i, n;

	if (pid <= 0)
		return false;
	i = hash_32(pid, ilog2(t->mask + 1));
	for (n = 0; n < PCORE_TIMER_PROBES && n <= t->mask; n++) {
		s = &t->slots[(i + n) & t->mask];
		k = atomic64_read_acquire(&s->key);
		if (PCORE_TSLOT_PID(k) != pid)
			continue;
		start = READ_ONCE(s->start);
		*nsw = READ_ONCE(s->nsw);
		*task = READ_ONCE(s->task);
		if (atomic64_cmpxchg(&s->key, k,
				     PCORE_TSLOT_KEY(PCORE_TSLOT_GEN(k) + 1,
						     0)) != k)
			return false;
		now = ktime_get_mono_fast_ns();
		*ns = now > start ? now - start : 0;
		return true;
	}
	return false;
}
NOKPROBE_SYMBOL(pcore_timer_stop_task);

/**
 * pcore_timer_start() - stamp the start of a measurement; hot path
 * @t: timer
 * @pid: %PCORE_TIMER_TASK: the task measured; ignored for %PCORE_TIMER_CPU
 *
 * A second start before a stop restarts the measurement.  A task timer
 * whose table has no free slot for @pid takes the oldest slot and counts
 * it as evicted.  No lock, no allocation; safe in any context.
 */
void notrace pcore_timer_start(struct pcore_timer *t, pid_t pid)
{
	struct pcore_tcpu *s;

	if (t->scope == PCORE_TIMER_TASK) {
		pcore_timer_start_task(t, pid);
		return;
	}
	preempt_disable_notrace();
	s = this_cpu_ptr(t->pcpu);
	WRITE_ONCE(s->armed, false);
	barrier();
	s->start = local_clock();
	s->task = current;
	s->nsw = pcore_switches();
	barrier();
	WRITE_ONCE(s->armed, true);
	preempt_enable_notrace();
}
EXPORT_SYMBOL_GPL(pcore_timer_start);
NOKPROBE_SYMBOL(pcore_timer_start);

/**
 * pcore_timer_stop() - end a measurement; hot path
 * @t: timer
 * @pid: %PCORE_TIMER_TASK: the task measured; ignored for %PCORE_TIMER_CPU
 * @ns: set to the time since the matching start, in ns
 *
 * With %PCORE_TIMER_DISCARD_SWITCH, a measurement with a context switch
 * between its stamps is discarded and counted.  No lock, no allocation;
 * safe in any context.
 *
 * Return: true when @ns holds a measurement; false when there was no
 * matching start (counted as unmatched) or it was discarded.
 */
bool notrace pcore_timer_stop(struct pcore_timer *t, pid_t pid, u64 *ns)
{
	const void *task = NULL;
	struct pcore_tcpu *s;
	unsigned long nsw;
	bool ok;
	u64 now;

	if (t->scope == PCORE_TIMER_TASK) {
		ok = pcore_timer_stop_task(t, pid, ns, &nsw, &task);
	} else {
		preempt_disable_notrace();
		s = this_cpu_ptr(t->pcpu);
		ok = READ_ONCE(s->armed);
		if (ok) {
			WRITE_ONCE(s->armed, false);
			barrier();
			now = local_clock();
			*ns = now > s->start ? now - s->start : 0;
			nsw = s->nsw;
			task = s->task;
		}
		preempt_enable_notrace();
	}
	if (!ok) {
		pcore_timer_inc(t, unmatched);
		return false;
	}
	if ((t->flags & PCORE_TIMER_DISCARD_SWITCH) &&
	    (task != current || nsw != pcore_switches())) {
		pcore_timer_inc(t, discarded);
		return false;
	}
	pcore_timer_inc(t, measured);
	return true;
}
EXPORT_SYMBOL_GPL(pcore_timer_stop);
NOKPROBE_SYMBOL(pcore_timer_stop);

/* Totals over all CPUs, for the timers file. */
void pcore_timer_stats(const struct pcore_timer *t, u64 *measured,
		       u64 *discarded, u64 *unmatched, u64 *evicted)
{
	const struct pcore_timer_stats *s;
	int cpu;

	*measured = *discarded = *unmatched = *evicted = 0;
	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(t->stats, cpu);
		*measured += local64_read(&s->measured);
		*discarded += local64_read(&s->discarded);
		*unmatched += local64_read(&s->unmatched);
		*evicted += local64_read(&s->evicted);
	}
}
