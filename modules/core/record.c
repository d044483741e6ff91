// SPDX-License-Identifier: GPL-2.0
/*
 * The hot path: every way a value goes into a histogram, with a key, a
 * stack or neither.  No lock, no allocation, no division; any context, NMI
 * included.  See "Intervals" at the top of hist.h and "Keys" in map.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "pcore.h"

/*
 * The end of every keyed hot path: @v into @slot of bank @b on this CPU
 * (the slot's first value here claims its record from the pool), or a
 * drop, counted, when @slot is negative or the pool is empty.
 * Preemption is off.
 */
static __always_inline void pcore_slot_record(struct pcore_hist *h, u32 b,
					      int slot, u64 v)
{
	struct pcore_cpu_hist *rec = NULL;
	int cpu = raw_smp_processor_id();

	if (likely(slot >= 0)) {
		rec = pcore_map_rec(&h->map, b, cpu, slot);
		if (unlikely(!rec))
			rec = pcore_map_claim(&h->map, b, cpu, slot);
	}
	if (likely(rec))
		pcore_record(&h->layout, rec, v);
	else
		local64_inc(this_cpu_ptr(h->dropped));
}

/**
 * pcore_hist_add_key() - record a value under a key; hot path
 * @h: keyed histogram (for one without keys, @key and @label are ignored)
 * @key: the key: an index below the key count for %PCORE_KEYS_DIRECT, any
 *	value but U64_MAX (a free slot's mark: dropped) for
 *	%PCORE_KEYS_HASHED.  U64_MAX - 1 ((u64)-ENOENT) is a key like others.
 * @label: a name shown with the key, or NULL: the first label given for a
 *	key in an interval is kept (up to 31 characters; spaces and control
 *	characters are shown as '_'), until the interval ends
 * @v: value
 *
 * No lock, no allocation, no division; safe in any context, NMI included.
 * A key that finds no slot is counted as dropped.  Keys are reclaimed
 * when their interval ends (an interval read or a reset).
 */
void notrace pcore_hist_add_key(struct pcore_hist *h, u64 key,
				const char *label, u64 v)
{
	struct pcore_label *labels;
	int slot = -1;
	u32 b;

	preempt_disable_notrace();
	/* One bank for the whole event: see "Intervals" at the top. */
	b = READ_ONCE(h->cur);
	labels = h->map.labels[b];
	switch (h->map.key_mode) {
	case PCORE_KEYS_NONE:
		slot = 0;
		label = NULL;
		break;
	case PCORE_KEYS_DIRECT:
		if (key >= h->map.nslots)
			goto out;
		slot = key;
		if (label && READ_ONCE(labels[slot].s[0]))
			label = NULL;
		break;
	case PCORE_KEYS_STACK:
		goto out;	/* its keys come from pcore_hist_add_stack() */
	default:
		if (key == U64_MAX)
			goto out;
		slot = pcore_map_hashed_slot(&h->map, b, key, &label);
		if (slot < 0)
			goto out;
	}
	if (label)
		pcore_label_set(&labels[slot], label);
out:
	pcore_slot_record(h, b, slot, v);
	preempt_enable_notrace();
}
EXPORT_SYMBOL_GPL(pcore_hist_add_key);
NOKPROBE_SYMBOL(pcore_hist_add_key);

/* The stack of @regs, of @task or of our caller, under which @v goes. */
static __always_inline void pcore_hist_add_frames(struct pcore_hist *h,
						  struct pt_regs *regs,
						  struct task_struct *task,
						  u32 flags, u64 v)
{
	unsigned int n;
	unsigned long *f;
	int slot = -1;
	u32 b = 0, ff;

	preempt_disable_notrace();
	if (unlikely(h->map.key_mode != PCORE_KEYS_STACK))
		goto out;
	ff = flags & (PCORE_STACK_IDLE | PCORE_STACK_ENTRY);
	f = pcore_stack_get(regs, task, h->map.depth, &ff, &n);
	if (!f)
		goto out;
	/* Never more than a slot holds, whatever the capture gave. */
	n = min(n, pcore_stack_words(h->map.depth));
	/* One bank for the whole event: see "Intervals" at the top. */
	b = READ_ONCE(h->cur);
	slot = pcore_map_stack_slot(&h->map, b, f, n, ff);
	pcore_stack_put();
out:
	pcore_slot_record(h, b, slot, v);
	preempt_enable_notrace();
}

/**
 * pcore_hist_add_stack() - record a value under the current stack; hot path
 * @h: a %PCORE_KEYS_STACK histogram (values given to others are dropped)
 * @regs: the registers a kprobe handler, or an interrupt, was given: the
 *	stack where they were saved (in user mode: one frame, "[user]" with
 *	the task's comm); or NULL: the stack of the caller, less probe_core's
 *	own frames
 * @flags: %PCORE_STACK_IDLE, %PCORE_STACK_ENTRY (user registers at a
 *	function's entry: see its comment), or 0
 * @v: value (0 to count, for a %PCORE_HIST_COUNT histogram)
 *
 * The innermost @h's depth frames are kept; a deeper stack is kept cut,
 * and shown so.  No lock, no allocation, no division; safe in any
 * context, NMI included.  A stack that finds no slot, or that is captured
 * while a capture it interrupted holds its context's buffer, is counted as
 * dropped.  Stacks are reclaimed as other keys are: when their interval
 * ends.
 */
void notrace pcore_hist_add_stack(struct pcore_hist *h, struct pt_regs *regs,
				  u32 flags, u64 v)
{
	pcore_hist_add_frames(h, regs, NULL, flags, v);
}
EXPORT_SYMBOL_GPL(pcore_hist_add_stack);
NOKPROBE_SYMBOL(pcore_hist_add_stack);

/**
 * pcore_hist_add_task_stack() - record a value under a task's stack; hot path
 * @h: a %PCORE_KEYS_STACK histogram (values given to others are dropped)
 * @task: current, or a task that is not running and cannot run until this
 *	returns: the one a sched_switch handler switches to (it is not on
 *	any CPU yet).  Its stack is where it left its CPU.
 * @flags: %PCORE_STACK_IDLE or 0
 * @v: value
 *
 * As pcore_hist_add_stack(), for sched_switch handlers: off-CPU time by
 * the stack that waited.  The stack of a task a switch puts back, with a
 * kretprobe's return pending, is not taken (the kernel does not let a
 * runnable task's stack be walked through the return trampoline; it
 * warns): the value is dropped, counted.  tracepoints=offcpu takes the
 * stack at the switch that takes the task off its CPU, when it is
 * current, instead.
 */
void notrace pcore_hist_add_task_stack(struct pcore_hist *h,
				       struct task_struct *task, u32 flags,
				       u64 v)
{
	pcore_hist_add_frames(h, NULL, task, flags, v);
}
EXPORT_SYMBOL_GPL(pcore_hist_add_task_stack);
NOKPROBE_SYMBOL(pcore_hist_add_task_stack);

/*
 * As pcore_hist_add_frames(), for a stack taken earlier: @n frames @f
 * with PCORE_STACK_F_* @flags (an offcpu timer keeps a task's stack from
 * the switch that took it off its CPU, when it was current, to the one
 * that puts it back).  Cut to @h's depth; no frames is a drop.  Hot path.
 */
void notrace pcore_hist_add_frames_taken(struct pcore_hist *h,
					 const unsigned long *f,
					 unsigned int n, u32 flags, u64 v)
{
	int slot = -1;
	bool proc;
	u32 b = 0;

	preempt_disable_notrace();
	if (unlikely(h->map.key_mode != PCORE_KEYS_STACK) || !n)
		goto out;
	/*
	 * With a process, its words are last: never cut, taken whole; a
	 * map of processes takes no stack without one.
	 */
	proc = flags & PCORE_STACK_F_PROC;
	if (proc != pcore_stack_has_proc(h->map.depth) ||
	    (proc && n > pcore_stack_words(h->map.depth)))
		goto out;
	if (!proc && n > h->map.depth) {
		n = pcore_stack_kdepth(h->map.depth);
		flags |= PCORE_STACK_F_CUT;
	}
	/* One bank for the whole event: see "Intervals" at the top. */
	b = READ_ONCE(h->cur);
	slot = pcore_map_stack_slot(&h->map, b, f, n, flags);
out:
	pcore_slot_record(h, b, slot, v);
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(pcore_hist_add_frames_taken);

/**
 * pcore_hist_add() - record a value; hot path
 * @h: histogram (for a keyed one, the value goes to key 0)
 * @v: value
 *
 * No lock, no allocation, no division; safe in any context, NMI included.
 */
void notrace pcore_hist_add(struct pcore_hist *h, u64 v)
{
	preempt_disable_notrace();
	pcore_hist_add_nopreempt(h, v);
	preempt_enable_notrace();
}
EXPORT_SYMBOL_GPL(pcore_hist_add);
NOKPROBE_SYMBOL(pcore_hist_add);

/**
 * pcore_hist_count() - count one event, without a value; hot path
 * @h: histogram, best of kind %PCORE_HIST_COUNT (for a keyed one, the
 *	event goes to key 0)
 *
 * One per-CPU increment: no sum, min or max to update.  An event counted
 * so reads as the value 0.  No lock, no allocation, no division; safe in
 * any context, NMI included.
 */
void notrace pcore_hist_count(struct pcore_hist *h)
{
	preempt_disable_notrace();
	pcore_hist_count_nopreempt(h);
	preempt_enable_notrace();
}
EXPORT_SYMBOL_GPL(pcore_hist_count);
NOKPROBE_SYMBOL(pcore_hist_count);
