/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Call tables (calls.c).
 * Part of pcore.h, which includes the units' headers in order.
 */
#ifndef PCORE_CALLS_H
#define PCORE_CALLS_H

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
#endif /* PCORE_CALLS_H */
