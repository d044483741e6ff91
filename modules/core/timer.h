/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Timers (timer.c), and the head of a slot, which call tables share.
 * Part of pcore.h, which includes the units' headers in order.
 */
#ifndef PCORE_TIMER_H
#define PCORE_TIMER_H

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
 * @frames: a timer that keeps stacks (pcore_timer_keep_stacks()): @words
 *	per slot of @slots, written by the slot's owner
 * @depth: the depth of the stacks kept (a stack map's, see stack.h), 0
 *	when it keeps no stacks
 * @words: words kept per slot: @depth, or with a process (and user
 *	stacks) pcore_stack_words(@depth)
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
	u32 words;
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
#endif /* PCORE_TIMER_H */
