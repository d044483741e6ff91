/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Probes on many functions (funcs.c).
 * Part of pcore.h, which includes the units' headers in order.
 */
#ifndef PCORE_FUNCS_H
#define PCORE_FUNCS_H

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
#endif /* PCORE_FUNCS_H */
