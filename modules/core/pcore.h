/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probe_core internals shared by the files of probe_core.ko.
 *
 * Lock order: pcore_probes_lock -> pcore_hist.lock -> cpus_read_lock.
 */
#ifndef PCORE_H
#define PCORE_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/kprobes.h>
#include <linux/tracepoint.h>
#include "pcore_engine.h"
#include "pcore_compat.h"

#define PCORE_NAME_MAX		128	/* including the NUL */
#define PCORE_MAX_PROBES	64
#define PCORE_MAXACTIVE_MAX	4096

/**
 * struct pcore_hist - a histogram with one engine record per CPU
 * @layout: bucket layout, fixed at creation
 * @pcpu: per-CPU records, written only by their CPU
 * @unit: unit of the values, e.g. "ns"
 * @lock: serialises harvests; protects @harvested
 * @harvested: events moved out of @pcpu by resets and interval reads
 */
struct pcore_hist {
	struct pcore_layout layout;
	struct pcore_cpu_hist __percpu *pcpu;
	const char *unit;
	struct mutex lock;
	u64 harvested;
};

struct pcore_hist *pcore_hist_alloc(const struct pcore_hist_spec *spec,
				    const char *unit, const char **why);
void pcore_hist_free(struct pcore_hist *h);
struct pcore_snap *pcore_hist_snap_alloc(const struct pcore_hist *h);
void pcore_hist_read(struct pcore_hist *h, int cpu, struct pcore_snap *s);
void pcore_hist_harvest(struct pcore_hist *h, struct pcore_snap *s);
u64 pcore_hist_lifetime(struct pcore_hist *h);

/*
 * pcore_hist_add() - record one value; the hot path.
 * No lock, no allocation, no division; safe in any context, NMI included.
 */
static __always_inline void pcore_hist_add(struct pcore_hist *h, u64 v)
{
	preempt_disable_notrace();
	pcore_record(&h->layout, this_cpu_ptr(h->pcpu), v);
	preempt_enable_notrace();
}

enum pcore_probe_kind {
	PCORE_PROBE_KRETPROBE,
	PCORE_PROBE_TRACEPOINT,
};

/**
 * struct pcore_probe - one attached probe and its histogram
 * @node: entry in pcore_probes, under pcore_probes_lock
 * @name: the name the user gave (debugfs directory name)
 * @symbol: what it resolved to: kernel symbol or tracepoint name
 * @kind: an enum pcore_probe_kind
 * @hist: values it records
 * @dir: its debugfs directory
 * @rp: kretprobe, for %PCORE_PROBE_KRETPROBE
 * @tp: tracepoint, for %PCORE_PROBE_TRACEPOINT
 * @tp_fn: the handler registered on @tp
 * @tp_last: per-CPU time of the previous event, for tracepoint timing
 */
struct pcore_probe {
	struct list_head node;
	char name[PCORE_NAME_MAX];
	char symbol[PCORE_NAME_MAX + 16];
	enum pcore_probe_kind kind;
	struct pcore_hist *hist;
	struct dentry *dir;
	struct kretprobe rp;
	struct tracepoint *tp;
	void *tp_fn;
	u64 __percpu *tp_last;
};

extern struct list_head pcore_probes;
extern struct mutex pcore_probes_lock;

int pcore_probe_check_name(const char *param, const char *name);
struct pcore_probe *pcore_kretprobe_attach(const char *name,
					   const struct pcore_hist_spec *spec,
					   int maxactive);
struct pcore_probe *pcore_tracepoint_attach(const char *name,
					    const struct pcore_hist_spec *spec);
void pcore_probe_detach(struct pcore_probe *p);
const char *pcore_probe_kind_name(const struct pcore_probe *p);
unsigned long pcore_probe_missed(const struct pcore_probe *p);

void pcore_debugfs_init(void);
void pcore_debugfs_exit(void);
void pcore_debugfs_add_probe(struct pcore_probe *p);
void pcore_debugfs_remove_probe(struct pcore_probe *p);

#endif /* PCORE_H */
