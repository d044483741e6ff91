/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hot path's inlines: recording into a histogram, counting a
 * probe's hit, its filter.  Handlers run them in any context.
 * Part of pcore.h, which includes the units' headers in order.
 */
#ifndef PCORE_HOT_H
#define PCORE_HOT_H

/*
 * pcore_hist_add() for a caller that runs with preemption off already:
 * probe_core's own kprobe and kretprobe handlers (kprobes and rethook run
 * them so).  Inline: no call, no preempt_disable().
 */
static __always_inline void pcore_hist_add_nopreempt(struct pcore_hist *h,
						     u64 v)
{
	if (unlikely(h->map.key_mode)) {
		pcore_hist_add_key(h, 0, NULL, v);
		return;
	}
	pcore_record(&h->layout, pcore_map_rec(&h->map, READ_ONCE(h->cur),
						 raw_smp_processor_id(), 0), v);
}

/* pcore_hist_count() for a caller that runs with preemption off already. */
static __always_inline void pcore_hist_count_nopreempt(struct pcore_hist *h)
{
	struct pcore_cpu_hist *c;

	if (unlikely(h->map.key_mode)) {
		pcore_hist_add_key(h, 0, NULL, 0);
		return;
	}
	c = pcore_map_rec(&h->map, READ_ONCE(h->cur), raw_smp_processor_id(), 0);
	pcore_ctr_add(&c->b[0], 1);
}

/*
 * Does current pass @p's filter?  A pid compares struct pids (a reused
 * number is another struct pid); a comm compares the 16 NUL-padded bytes
 * of task->comm as two words, with one branch.
 */
static __always_inline bool pcore_filter_pass(const struct pcore_probe *p)
{
	u64 c0, c1;

	if (p->fpid && task_tgid(current) != p->fpid)
		return false;
	if (!p->fcomm[0])
		return true;
	/*
	 * Two loads (TASK_COMM_LEN is 16) into two words, not an array: a
	 * local array would cost every handler a stack canary.
	 */
	BUILD_BUG_ON(sizeof(current->comm) != 2 * sizeof(u64));
	memcpy(&c0, current->comm, sizeof(c0));
	memcpy(&c1, current->comm + sizeof(c0), sizeof(c1));
	return !((c0 ^ p->fcomm[0]) | (c1 ^ p->fcomm[1]));
}

/* Count a handler call; kprobe and kretprobe handlers run with preemption off. */
static __always_inline void pcore_hit_nopreempt(struct pcore_probe *p)
{
	local64_inc(this_cpu_ptr(p->hits));
}

/*
 * The same, preemptible: one instruction on this CPU's counter, which is
 * a long (local64_t on 64 bits), so preemption cannot split it.
 */
static __always_inline void pcore_hit_anycpu(struct pcore_probe *p)
{
	static_assert(sizeof(local64_t) == sizeof(long));
	this_cpu_inc(*(long __percpu *)p->hits);
}

static __always_inline void pcore_hit(struct pcore_probe *p)
{
	preempt_disable_notrace();
	pcore_hit_nopreempt(p);
	preempt_enable_notrace();
}
#endif /* PCORE_HOT_H */
