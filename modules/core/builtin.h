/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probe_core's own probes (builtin.c), and the export files' init.
 * Part of pcore.h, which includes the units' headers in order.
 */
#ifndef PCORE_BUILTIN_H
#define PCORE_BUILTIN_H

#include "pcore_spec.h"

/* probe_core's own probes (builtin.c). */
/**
 * struct pcore_builtin_req - one of probe_core's own probes to attach
 * @tracepoint: a tracepoint with a built-in handler, else a function
 * @mech: how a kernel function is probed; %PCORE_MECH_DEFAULT: as
 *	mechanism= says
 * @param: where the request came from, for log lines ("target", "attach")
 * @name: the histogram's name
 * @probe: a function probe's spec (func only for a tracepoint: its name;
 *	zero for a profiler)
 * @spec: histogram layout
 * @maxactive: kretprobe or uretprobe: calls in flight, 0 for the default
 * @file: a user-space file whose function at @offset to probe, or NULL
 * @offset: where in @file
 * @filter: only these tasks (function probes only)
 * @depth: ":stacks" and profilers: frames kept of each stack, 0 for the
 *	default
 * @hz: a profiler (@name its histogram's): samples per second per CPU
 * @ustack: profilers and offcpu: user stacks and processes too (":stacks"
 *	says it in @probe.flags)
 * @no_kthreads: profilers and offcpu: kernel threads left out
 */
struct pcore_builtin_req {
	bool tracepoint;
	enum pcore_mech mech;
	const char *param;
	const char *name;
	struct pcore_probe_spec probe;
	struct pcore_hist_spec spec;
	unsigned int maxactive;
	struct file *file;
	u64 offset;
	struct pcore_filter filter;
	unsigned int depth;
	unsigned int hz;
	bool ustack;
	bool no_kthreads;
};

extern enum pcore_mech pcore_mechanism;
extern unsigned int pcore_offcpu_min_us;
extern unsigned int pcore_offcpu_tasks;
extern unsigned int pcore_cgroup_keys;

int pcore_builtin_attach(const struct pcore_builtin_req *r);
int pcore_builtin_attach_text(struct pcore_builtin_req *r);
int pcore_builtin_detach(const char *name);
int pcore_builtin_set_enabled(const char *name, bool on);
void pcore_builtin_log(void);
void pcore_builtin_free_all(void);

int pcore_chardev_init(void);
void pcore_chardev_exit(void);

void pcore_debugfs_init(void);
void pcore_debugfs_exit(void);
#endif /* PCORE_BUILTIN_H */
