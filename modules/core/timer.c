// SPDX-License-Identifier: GPL-2.0
/*
 * Timers: start and stop stamps per CPU or per task, for handlers that
 * time one event to another.
 *
 * A CPU timer keeps one stamp per CPU and is written only by its CPU.  A
 * CPU coming online has its stamps disarmed first, by a hotplug callback
 * that runs on another CPU before it boots (nothing writes them then):
 * the time it spent offline is no measurement.  Disarming on the way
 * down would not do: the dying CPU still switches to its idle task after
 * the last callback, and a handler on sched_switch stamps that.
 *
 * A task timer keeps a bounded table of stamps, written by any CPU
 * without a lock.  A stamp belongs to a task, not to a pid: a slot holds
 * the pid and the task's start time, and a stop matches both, so a task
 * that reuses a dead task's pid never gets its stamp.  Each slot's key
 * word holds the pid and a generation; a writer first moves the key to a
 * busy value with cmpxchg, writes the stamp, and publishes the pid with a
 * release store.  A stop reads the stamp and then frees the slot with
 * cmpxchg from the exact key it read: if the slot changed meanwhile (a
 * restart, an eviction, the task's exit), the generation differs, the
 * cmpxchg fails and the stop counts as unmatched instead of using a torn
 * stamp.  A start looks at the whole probe window before it claims a
 * slot: the task's own slot, else a free one, else the oldest stamp,
 * which it evicts (counted).  When a task exits, its stamps are dropped
 * (counted as exited), from probe_core's handler on sched_process_exit;
 * a task past that point (its exit_state set: the switches that end it)
 * is not stamped, counted as exited too: nothing would ever stop that
 * stamp, and once the table filled it would evict a live task's.
 *
 * A task timer may also keep stacks (offcpu's, pcore_timer_keep_stacks()):
 * a start for current keeps its stack in the slot's frames, written by
 * the slot's owner before it publishes the stamp; pcore_timer_stop_stack()
 * owns the slot (busy) while it records the stack, then frees it.  So
 * the stack of a task that waits is taken at the switch that takes it
 * off its CPU, while it is current: the unwinder may not walk a task
 * that is runnable and not current (the one a switch puts back) through
 * a kretprobe's trampoline (rethook_find_ret_addr() warns).
 *
 * Clocks: a CPU timer reads local_clock() (a start and its stop are on
 * one CPU), a task timer ktime_get_mono_fast_ns() (they may be on two).
 * Where the kernel found the TSC unstable, local_clock() is kept within a
 * tick of the last tick (kernel/sched/clock.c): on a CPU whose ticks come
 * late (a starved virtual machine), a CPU timer then measures short
 * times, down to 0.
 *
 * Every timer is also on pcore_timers (RCU), which the exit handler and
 * the hotplug callback walk; a timer is freed a grace period after it
 * leaves it.  The slots' protocol is slot.h's; call tables (calls.c)
 * share it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/err.h>
#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/log2.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <trace/events/sched.h>
#include "pcore.h"
#include "slot.h"

/* Every timer, for the exit handler and the hotplug callback. */
static LIST_HEAD(pcore_timers);

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
		pcore_cerr(c, "timer %s: %s", o->name, why);
		return -EINVAL;
	}
	return 0;
}

static void pcore_timer_free(struct pcore_timer *t)
{
	free_percpu(t->pcpu);
	free_percpu(t->stats);
	kvfree(t->slots);
	kvfree(t->frames);
	pcore_mem_uncharge(t->mem);
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
 * ERR_PTR(-E2BIG) when its tables would go over mem_max (one log line),
 * or ERR_PTR(-ENOMEM).
 */
struct pcore_timer *pcore_timer_create(struct pcore_client *c,
				       const struct pcore_timer_opts *o)
{
	struct pcore_timer *t, *other;
	size_t mem;
	u32 n;
	int ret;

	ret = pcore_check_args("timer", c, o);
	if (ret)
		return ERR_PTR(ret);
	ret = pcore_check_name("timer", o->name, "-");
	if (!ret)
		ret = pcore_timer_check(c, o);
	if (ret)
		return ERR_PTR(ret);
	n = roundup_pow_of_two(max(o->tasks, 2U));
	mem = sizeof(*t) + num_possible_cpus() *
	      (sizeof(struct pcore_timer_stats) +
	       (o->scope == PCORE_TIMER_CPU ? sizeof(struct pcore_tcpu) : 0));
	if (o->scope != PCORE_TIMER_CPU)
		mem += (size_t)n * sizeof(*t->slots);
	ret = pcore_mem_charge(mem, c->name, "timer", o->name);
	if (ret)
		return ERR_PTR(ret);

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t) {
		pcore_mem_uncharge(mem);
		goto nomem;
	}
	t->mem = mem;
	INIT_LIST_HEAD(&t->node);
	INIT_LIST_HEAD(&t->gnode);
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
		pcore_cerr(c, "timer %s: the name is taken", t->name);
		pcore_timer_free(t);
		return ERR_PTR(-EEXIST);
	}
	list_add_tail(&t->node, &c->timers);
	list_add_tail_rcu(&t->gnode, &pcore_timers);
	mutex_unlock(&pcore_lock);
	return t;

nomem:
	/* One line of ours instead of the allocators' warnings. */
	pcore_cerr(c, "timer %s: out of memory", o->name);
	if (t)
		pcore_timer_free(t);
	return ERR_PTR(-ENOMEM);
}
EXPORT_SYMBOL_GPL(pcore_timer_create);

/*
 * Caller holds pcore_lock, and waits for a grace period (synchronize_rcu(),
 * once for any number of timers) before pcore_timer_release().
 */
static void pcore_timer_unlink(struct pcore_timer *t)
{
	list_del_init(&t->node);
	list_del_rcu(&t->gnode);
}

/* Nothing uses @t any more, it is unlinked and a grace period passed. */
void pcore_timer_release(struct pcore_timer *t)
{
	pcore_timer_free(t);
}

/**
 * pcore_timer_destroy() - free a timer
 * @t: timer, or an ERR_PTR() or NULL (ignored)
 *
 * Every probe whose handler may use @t must be detached first.  Waits for
 * a grace period.  Sleeps.
 */
void pcore_timer_destroy(struct pcore_timer *t)
{
	if (IS_ERR_OR_NULL(t))
		return;
	mutex_lock(&pcore_lock);
	pcore_timer_unlink(t);
	mutex_unlock(&pcore_lock);
	synchronize_rcu();
	pcore_timer_release(t);
}
EXPORT_SYMBOL_GPL(pcore_timer_destroy);

static __always_inline unsigned long pcore_switches(void)
{
	return READ_ONCE(current->nvcsw) + READ_ONCE(current->nivcsw);
}

/* Count an outcome on this CPU. */
#define pcore_timer_inc(t, f)	pcore_pcpu_stat_inc((t)->stats, f)

/* Is slot key @k, whose stamp says @born, the stamp of @task? */
static __always_inline bool pcore_tslot_is(const struct pcore_tslot *s, u64 k,
					   const struct task_struct *task)
{
	return PCORE_TSLOT_PID(k) == (u32)task->pid &&
	       READ_ONCE(s->head.born) == task->start_time;
}

static __always_inline bool pcore_tslot_mine(const struct pcore_slot *h, u64 k,
					     const void *task)
{
	return pcore_tslot_is(container_of(h, struct pcore_tslot, head), k,
			      task);
}

/**
 * pcore_timer_keep_stacks() - make a task timer keep its tasks' stacks
 * @t: a %PCORE_TIMER_TASK timer that no probe uses yet
 * @depth: frames kept per task, 1 to %PCORE_STACK_DEPTH_MAX, with
 *	PCORE_STACK_D_USER for user stacks and the process, or
 *	PCORE_STACK_D_PROC for the process (stack.h): a histogram's depth
 *
 * Then a start for current keeps its stack with the stamp (less a first
 * frame in sched_switch's iterator), and pcore_timer_stop_stack() records
 * the time under it.  @depth words per slot (with a process,
 * pcore_stack_words(@depth)): with offcpu's 4096 slots and the default
 * depth, 1 MiB; 1.1 MiB with the process (offcpu's, without user
 * stacks).  Sleeps.
 *
 * Return: 0, -EINVAL, -E2BIG over mem_max or -ENOMEM (one log line).
 */
int pcore_timer_keep_stacks(struct pcore_timer *t, u32 depth)
{
	u32 words = pcore_stack_has_proc(depth) ? pcore_stack_words(depth) :
		    depth;
	size_t mem;

	if (t->scope != PCORE_TIMER_TASK || !pcore_stack_kdepth(depth) ||
	    depth & ~(PCORE_STACK_D_USER | PCORE_STACK_D_PROC |
		      PCORE_STACK_D_KMASK) ||
	    (depth & PCORE_STACK_D_USER && depth & PCORE_STACK_D_PROC) ||
	    pcore_stack_kdepth(depth) > PCORE_STACK_DEPTH_MAX || t->frames)
		return -EINVAL;
	mem = (size_t)(t->mask + 1) * words * sizeof(*t->frames);
	if (pcore_mem_charge(mem, t->client->name, "timer", t->name))
		return -E2BIG;
	t->frames = kvzalloc(mem, GFP_KERNEL | __GFP_NOWARN);
	if (!t->frames) {
		pcore_mem_uncharge(mem);
		pcore_cerr(t->client, "timer %s: out of memory for its stacks",
			   t->name);
		return -ENOMEM;
	}
	t->mem += mem;
	t->depth = depth;
	t->words = words;
	return 0;
}

/*
 * sched_switch's iterator, __traceiter_sched_switch(): its first address
 * and size (0: not known).  A tracepoint calls its only handler directly
 * (a static call) and several through its iterator: a stack taken in a
 * sched_switch handler starts in the iterator or in __schedule(), as
 * others come and go.  The iterator is no frame of the wait: dropped.
 */
static unsigned long pcore_switch_iter, pcore_switch_iter_size;

/* Keep current's stack in slot @s, which the caller owns (busy). */
static __always_inline void pcore_tslot_keep_stack(struct pcore_timer *t,
						   struct pcore_tslot *s)
{
	unsigned long *dst = t->frames + (size_t)(s - t->slots) * t->words;
	unsigned int n = 0, i, skip = 0;
	unsigned long *f;
	u32 ff = 0;

	preempt_disable_notrace();
	f = pcore_stack_get(NULL, NULL, t->depth, &ff, &n);
	if (f) {
		n = min(n, t->words);
		/* Not the only kernel frame: a process's words are none. */
		if (pcore_stack_kwords(f, n, ff) > 1 &&
		    f[0] - pcore_switch_iter < pcore_switch_iter_size)
			skip = 1;
		for (i = skip; i < n; i++)
			dst[i - skip] = f[i];
		n -= skip;
		pcore_stack_put();
	} else {
		n = 0;	/* the buffer was busy: no stack, the value drops */
	}
	preempt_enable_notrace();
	s->nframes = n;
	s->fflags = ff;
}

static void notrace pcore_timer_start_task(struct pcore_timer *t,
					   struct task_struct *task)
{
	struct pcore_slot *h;
	struct pcore_tslot *s;
	bool evicted = false;

	if (!task || task->pid <= 0) {
		pcore_timer_inc(t, unmatched);
		return;
	}
	/* Past its exit: nothing would stop it (see the top of the file). */
	if (READ_ONCE(task->exit_state)) {
		pcore_timer_inc(t, exited);
		return;
	}
	h = pcore_slot_claim((u8 *)t->slots, t->mask, sizeof(*t->slots),
			     task->pid, pcore_tslot_mine, task, &evicted);
	/* No slot, or a race for it lost: this start is not timed. */
	if (!h || evicted)
		pcore_timer_inc(t, evicted);
	if (!h)
		return;
	s = container_of(h, struct pcore_tslot, head);
	s->nframes = 0;
	if (t->frames && task == current)
		pcore_tslot_keep_stack(t, s);
	h->start = ktime_get_mono_fast_ns();
	s->nsw = pcore_switches();
	s->task = current;
	WRITE_ONCE(h->born, task->start_time);
	pcore_slot_publish(h, task->pid);
}
NOKPROBE_SYMBOL(pcore_timer_start_task);

/* The slot of @task in @t, with its key in @k, or NULL.  Hot path. */
static __always_inline struct pcore_tslot *
pcore_tslot_find(struct pcore_timer *t, const struct task_struct *task,
		 u64 *k)
{
	struct pcore_tslot *s;
	u32 i, n;

	if (!task || task->pid <= 0)
		return NULL;
	i = hash_32(task->pid, ilog2(t->mask + 1));
	for (n = 0; n < PCORE_TIMER_PROBES && n <= t->mask; n++) {
		s = &t->slots[(i + n) & t->mask];
		*k = atomic64_read_acquire(&s->head.key);
		if (pcore_tslot_is(s, *k, task))
			return s;
	}
	return NULL;
}

/*
 * Free the slot of @task, if it has one: its stamp, its start (@ns is
 * the time since) and who stamped it.
 */
static bool notrace pcore_timer_take_task(struct pcore_timer *t,
					  const struct task_struct *task,
					  u64 *ns, unsigned long *nsw,
					  const void **stamper)
{
	struct pcore_tslot *s;
	u64 k, start, now;

	s = pcore_tslot_find(t, task, &k);
	if (!s)
		return false;
	start = READ_ONCE(s->head.start);
	*nsw = READ_ONCE(s->nsw);
	*stamper = READ_ONCE(s->task);
	if (atomic64_cmpxchg(&s->head.key, k,
			     PCORE_TSLOT_KEY(PCORE_TSLOT_GEN(k) + 1, 0)) != k)
		return false;
	now = ktime_get_mono_fast_ns();
	*ns = now > start ? now - start : 0;
	return true;
}
NOKPROBE_SYMBOL(pcore_timer_take_task);

/**
 * pcore_timer_stop_stack() - end @task's measurement, record it by stack
 * @t: a timer that keeps stacks (pcore_timer_keep_stacks())
 * @task: the task measured
 * @h: a %PCORE_KEYS_STACK histogram of @t's depth or more
 * @min_ns: shorter times are not recorded
 *
 * The time since @task's start goes to @h under the stack the start kept
 * (none kept: a drop of @h).  Counted as pcore_timer_stop() counts.  No
 * lock, no allocation, no division; safe in any context.
 *
 * Return: true when @task had a start.
 */
bool notrace pcore_timer_stop_stack(struct pcore_timer *t,
				    struct task_struct *task,
				    struct pcore_hist *h, u64 min_ns)
{
	struct pcore_tslot *s;
	u64 k, start, now, ns;

	s = pcore_tslot_find(t, task, &k);
	/* Ours while busy: its frames stay as they are. */
	if (!s || atomic64_cmpxchg(&s->head.key, k,
				   PCORE_TSLOT_KEY(PCORE_TSLOT_GEN(k) + 1,
						   PCORE_TSLOT_BUSY)) != k) {
		pcore_timer_inc(t, unmatched);
		return false;
	}
	start = s->head.start;
	now = ktime_get_mono_fast_ns();
	ns = now > start ? now - start : 0;
	if (ns >= min_ns)
		pcore_hist_add_frames_taken(h,
			t->frames + (size_t)(s - t->slots) * t->words,
			min(s->nframes, t->words), s->fflags, ns);
	pcore_slot_publish(&s->head, 0);
	pcore_timer_inc(t, measured);
	return true;
}
NOKPROBE_SYMBOL(pcore_timer_stop_stack);

/**
 * pcore_timer_start() - stamp the start of a measurement; hot path
 * @t: timer
 * @task: %PCORE_TIMER_TASK: the task measured; ignored (pass NULL) for
 *	%PCORE_TIMER_CPU
 *
 * A second start before a stop restarts the measurement.  A task timer
 * whose table has no free slot for @task takes the oldest slot and counts
 * it as evicted; a task without a pid (an idle task) or a NULL @task is
 * counted as unmatched.  The stamp is the task's, not its pid's: it is
 * dropped when the task exits (counted as exited).  A task past its exit
 * (its exit_state set, as in the last switch of a task that exits:
 * sched_switch's prev) is not stamped, counted as exited: nothing would
 * stop that stamp, and a full table would evict a live task's for it.  No
 * lock, no allocation; safe in any context.
 */
void notrace pcore_timer_start(struct pcore_timer *t, struct task_struct *task)
{
	struct pcore_tcpu *s;

	if (t->scope == PCORE_TIMER_TASK) {
		pcore_timer_start_task(t, task);
		return;
	}
	preempt_disable_notrace();
	s = this_cpu_ptr(t->pcpu);
	WRITE_ONCE(s->armed, false);
	barrier();
	WRITE_ONCE(s->start, local_clock());
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
 * @task: %PCORE_TIMER_TASK: the task measured; ignored (pass NULL) for
 *	%PCORE_TIMER_CPU
 * @ns: set to the time since the matching start, in ns
 *
 * With %PCORE_TIMER_DISCARD_SWITCH, a measurement with a context switch
 * between its stamps is discarded and counted.  No lock, no allocation;
 * safe in any context.
 *
 * Return: true when @ns holds a measurement; false when there was no
 * matching start (counted as unmatched) or it was discarded.
 */
bool notrace pcore_timer_stop(struct pcore_timer *t, struct task_struct *task,
			      u64 *ns)
{
	const void *stamper = NULL;
	struct pcore_tcpu *s;
	unsigned long nsw;
	u64 now, start;
	bool ok;

	if (t->scope == PCORE_TIMER_TASK) {
		ok = pcore_timer_take_task(t, task, ns, &nsw, &stamper);
	} else {
		preempt_disable_notrace();
		s = this_cpu_ptr(t->pcpu);
		ok = READ_ONCE(s->armed);
		if (ok) {
			WRITE_ONCE(s->armed, false);
			barrier();
			/*
			 * Once: a start from an interrupt may replace it
			 * from here on, and a second read could be later
			 * than now.
			 */
			start = READ_ONCE(s->start);
			now = local_clock();
			*ns = now > start ? now - start : 0;
			nsw = s->nsw;
			stamper = s->task;
		}
		preempt_enable_notrace();
	}
	if (!ok) {
		pcore_timer_inc(t, unmatched);
		return false;
	}
	if ((t->flags & PCORE_TIMER_DISCARD_SWITCH) &&
	    (stamper != current || nsw != pcore_switches())) {
		pcore_timer_inc(t, discarded);
		return false;
	}
	pcore_timer_inc(t, measured);
	return true;
}
EXPORT_SYMBOL_GPL(pcore_timer_stop);
NOKPROBE_SYMBOL(pcore_timer_stop);

/*
 * sched_process_exit: @task's stamps in every task timer go, counted as
 * exited, and its calls in every call table.  Runs in the exiting task,
 * with preemption off (a tracepoint handler): an RCU reader of
 * pcore_timers and pcore_call_tables.
 */
static void notrace pcore_timer_task_exit(void *data, struct task_struct *task)
{
	const void *stamper;
	struct pcore_timer *t;
	unsigned long nsw;
	u64 ns;

	list_for_each_entry_rcu(t, &pcore_timers, gnode)
		if (t->scope == PCORE_TIMER_TASK &&
		    pcore_timer_take_task(t, task, &ns, &nsw, &stamper))
			pcore_timer_inc(t, exited);
	pcore_calls_task_exit(task);
}
PCORE_TP_CHECK(sched_process_exit, pcore_timer_task_exit);
NOKPROBE_SYMBOL(pcore_timer_task_exit);

/*
 * CPU @cpu is about to boot (this runs on another CPU, @cpu runs nothing):
 * what its CPU timers stamped before it went down is no measurement.
 */
static int pcore_timer_cpu_prepare(unsigned int cpu)
{
	struct pcore_timer *t;

	rcu_read_lock();
	list_for_each_entry_rcu(t, &pcore_timers, gnode)
		if (t->scope == PCORE_TIMER_CPU)
			WRITE_ONCE(per_cpu_ptr(t->pcpu, cpu)->armed, false);
	rcu_read_unlock();
	return 0;
}

static struct tracepoint *pcore_exit_tp;
static int pcore_timer_hp_state;

static void pcore_timer_find_tps(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_exit"))
		pcore_exit_tp = tp;
	else if (!strcmp(tp->name, "sched_switch"))
		*(struct tracepoint **)priv = tp;
}

/* The size of sched_switch's iterator, from its symbol ("name+0x0/0x60"). */
static void pcore_timer_find_iter(struct tracepoint *tp)
{
	char buf[KSYM_SYMBOL_LEN];
	unsigned long size;
	const char *p;

	if (!tp || !tp->iterator)
		return;
	sprint_symbol(buf, (unsigned long)tp->iterator);
	p = strchr(buf, '/');
	if (!p || strncmp(buf, "__traceiter_sched_switch+0x0/", p - buf + 1) ||
	    sscanf(p + 1, "%lx", &size) != 1)
		return;
	pcore_switch_iter = (unsigned long)tp->iterator;
	pcore_switch_iter_size = size;
}

/* At load: the exit handler and the hotplug callback. */
int pcore_timer_init(void)
{
	struct tracepoint *sw = NULL;
	int ret;

	for_each_kernel_tracepoint(pcore_timer_find_tps, &sw);
	pcore_timer_find_iter(sw);
	if (!pcore_exit_tp) {
		pr_err("no sched_process_exit tracepoint: task timers need it\n");
		return -ENOENT;
	}
	ret = tracepoint_probe_register(pcore_exit_tp, pcore_timer_task_exit,
					NULL);
	if (ret) {
		pr_err("cannot register on sched_process_exit: %s\n",
		       ret == -ENOMEM ? "out of memory" : "refused");
		return ret;
	}
	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "probe_core:timers",
					pcore_timer_cpu_prepare, NULL);
	if (ret < 0) {
		pr_err("cannot add a CPU hotplug callback: %s\n",
		       ret == -ENOMEM ? "out of memory" : "no free state");
		tracepoint_probe_unregister(pcore_exit_tp,
					    pcore_timer_task_exit, NULL);
		tracepoint_synchronize_unregister();
		return ret;
	}
	pcore_timer_hp_state = ret;
	return 0;
}

void pcore_timer_exit(void)
{
	cpuhp_remove_state_nocalls(pcore_timer_hp_state);
	tracepoint_probe_unregister(pcore_exit_tp, pcore_timer_task_exit, NULL);
	tracepoint_synchronize_unregister();
}

/* Totals over all CPUs, for the timers file. */
void pcore_timer_stats(const struct pcore_timer *t, u64 *measured,
		       u64 *discarded, u64 *unmatched, u64 *evicted,
		       u64 *exited)
{
	const struct pcore_timer_stats *s;
	int cpu;

	*measured = *discarded = *unmatched = *evicted = *exited = 0;
	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(t->stats, cpu);
		*measured += local64_read(&s->measured);
		*discarded += local64_read(&s->discarded);
		*unmatched += local64_read(&s->unmatched);
		*evicted += local64_read(&s->evicted);
		*exited += local64_read(&s->exited);
	}
}
