/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probe_core internals shared by the files of probe_core.ko.
 *
 * Objects: a client per handler module (and one for probe_core's own
 * target= and tracepoints= probes) owns histograms, timers and probes.
 * All of them are created, listed and destroyed under pcore_lock; the
 * hot path never takes it.
 *
 * Lock order: tracepoint_module_list_mutex (module notifier) -> pcore_lock;
 * the module notifier of funcs.c -> pcore_lock
 * -> pcore_hist.lock; pcore_builtin_lock (builtin.c) -> pcore_lock; the
 * locks of a file's deletion or unmount (fsnotify tells uprobe.c) ->
 * pcore_lock -> the locks of uprobes and of the mm.  A
 * harvest waits for a grace period under pcore_hist.lock, so
 * /dev/probe_core harvests without pcore_lock, holding a reference.
 * Debugfs readers take pcore_lock, so debugfs files are removed only
 * without it: objects are unlinked under pcore_lock and released after.
 *
 * Layers: each file uses only files of the layers below its own
 * (scripts/callgraph.sh checks that no files use each other in a cycle):
 *
 *   main                 parameters, init and exit
 *   chardev, debugfs     the export files: /dev/probe_core; the text files
 *   builtin, client      probe_core's own probes (target=, tracepoints=,
 *                        attach through /dev/probe_core); clients
 *   kprobe, tracepoint,  the probe mechanisms, each with its handlers,
 *   uprobe, funcs,       its attach function and its struct
 *   profile              pcore_probe_ops: kprobes and kretprobes (or a
 *                        direct call, as the caller asks: direct);
 *                        tracepoints and the modules that bring them;
 *                        uprobes and what they hold of the file; the
 *                        functions of a glob (one fprobe, or a kretprobe
 *                        or kprobe each); the perf events of profilers
 *   direct               a function's calls through an ftrace direct
 *                        call to one of its trampolines
 *   probe                the life of a probe, through its ops only
 *   hist, harvest,       histograms: creation and memory; reading and
 *   record, map,         harvests; the hot path; their keys and records
 *   timer, calls         (hist.h and map.h tell how they work); timers; a
 *                        uretprobe's calls in flight (timer and calls
 *                        share slot.h)
 *   stack                kernel stacks: capture, the text of a frame
 *   registry, names,     pcore_lock, the lists, lookups, the observer;
 *   mem, pcore_spec,     checks of names and options; the mem_max cap;
 *   pcore_engine, btf    the texts of hist= and of probe specs (one
 *                        parser, which probectl compiles too); the math;
 *                        what the kernel's BTF says of a function's
 *                        arguments
 *
 * The export files find objects through the registry and read them with
 * the read functions of hist, probe and timer; nothing in the core calls
 * them: debugfs learns of clients and histograms as the registry's
 * observer.
 */
#ifndef PCORE_H
#define PCORE_H

#include <linux/irq_work.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/fprobe.h>
#include <linux/kprobes.h>
#include <linux/tracepoint.h>
#include <linux/uprobes.h>
#include <linux/workqueue.h>
#include <linux/pid.h>
#include <linux/sched/signal.h>
#include <asm/local64.h>
#include "probe_core/probe_core.h"
#include "pcore_engine.h"
#include "probe_core/compat.h"

#define PCORE_MAX_PROBES	256
#define PCORE_MAXACTIVE_MAX	4096
#define PCORE_KRET_DATA_MAX	256
#define PCORE_TIMER_TASKS_MAX	65536
#define PCORE_UNIT_MAX		16

/* Count one outcome @f in this CPU's @stats, from any context. */
#define pcore_pcpu_stat_inc(stats, f)					\
	do {								\
		preempt_disable_notrace();				\
		local64_inc(&this_cpu_ptr(stats)->f);			\
		preempt_enable_notrace();				\
	} while (0)

/* The total of a per-CPU counter over all possible CPUs. */
static inline u64 pcore_pcpu_sum(local64_t __percpu *c)
{
	u64 n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += local64_read(per_cpu_ptr(c, cpu));
	return n;
}

/* The units, each after what it uses. */
#include "registry.h"
#include "names.h"
#include "mem.h"
#include "stack.h"
#include "map.h"
#include "hist.h"
#include "timer.h"
#include "calls.h"
#include "profile.h"
#include "uprobe.h"
#include "funcs.h"
#include "probe.h"
#include "hot.h"
#include "builtin.h"

#endif /* PCORE_H */
