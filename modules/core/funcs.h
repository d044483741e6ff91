/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Probes on many functions (funcs.c).
 * Part of pcore.h, which includes the units' headers in order.
 */
#ifndef PCORE_FUNCS_H
#define PCORE_FUNCS_H

struct pcore_fgroup;
struct pcore_batch;

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
 * @ops: %PCORE_PROBE_DIRECT_FUNCS: the one ftrace registration of a
 *	direct call, filtered to every function's ftrace call (direct.c)
 * @slot: %PCORE_PROBE_DIRECT_FUNCS: its trampoline, shared by them all
 * @ips_set: %PCORE_PROBE_DIRECT_FUNCS: @ops has its filter (to free)
 * @why: why mechanism=auto took the fprobe or kprobes: a function and
 *	the reason no direct call takes it, for p->why_kprobe
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
#ifdef PCORE_HAVE_DIRECT
	struct ftrace_ops ops;
	unsigned int slot;
	bool ips_set;
#endif
	char why[KSYM_NAME_LEN + 64];
	struct pcore_fmember m[];
};

/*
 * The member whose function's ftrace call (or kprobe) is at @ip, or -1:
 * a binary search of the sorted addresses, shifts only (8 steps for 256
 * functions).
 */
static __always_inline int pcore_fg_find(const struct pcore_fgroup *g,
					 unsigned long ip)
{
	u32 lo = 0, hi = g->n;

	while (lo < hi) {
		u32 mid = (lo + hi) >> 1;
		unsigned long a = g->m[mid].addr;

		if (a == ip)
			return mid;
		if (a < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* A call of member @i, counted on this CPU, preemptible or not. */
static __always_inline void pcore_fg_hit_anycpu(struct pcore_fgroup *g, u32 i)
{
	static_assert(sizeof(local64_t) == sizeof(long));
	this_cpu_inc(*(long __percpu *)&g->hits[i]);
}

int pcore_funcs_init(void);
void pcore_funcs_exit(void);
int pcore_fgroup_init(struct pcore_probe *p, const struct pcore_funcs_opts *o);
size_t pcore_fgroup_mem(const struct pcore_fgroup *g);
void pcore_fgroup_release(struct pcore_probe *p);
const char *pcore_fgroup_how(const struct pcore_probe *p);

#ifdef PCORE_HAVE_DIRECT
/* A group's one direct call, for all its functions (direct.c). */
int pcore_direct_group_arm(struct pcore_probe *p, char *why, size_t len);
u32 pcore_direct_group_disarm(struct pcore_probe *p, struct pcore_batch *b);
void pcore_direct_group_release(struct pcore_probe *p);
int pcore_direct_group_set_enabled(struct pcore_probe *p, bool on);
#endif
#endif /* PCORE_FUNCS_H */
