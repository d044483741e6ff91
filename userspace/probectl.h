/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probectl: what the parts share.  The data model is plain structs holding
 * what the kernel answered (struct pcore_ioc_entry from PCORE_IOC_LIST,
 * struct pcore_ioc_read and its buckets from PCORE_IOC_READ), so that the
 * formatting can be tested from fixed data without a device.
 */
#ifndef PROBECTL_H
#define PROBECTL_H

/* __u64 is unsigned long long on every architecture: printf("%llu") */
#define __SANE_USERSPACE_TYPES__
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>
#include <uapi/probe_core.h>

/* A histogram keyed by kernel stack: its keys come with frames. */
static inline bool pc_is_stacks(const struct pcore_ioc_entry *e)
{
	return e->flags & PCORE_ENT_STACKS;
}

/*
 * printf-like: -Wformat checks the calls (the kernel's spelling).  The
 * line break keeps checkpatch from asking for __printf() in __printf()'s
 * own definition.
 */
#ifndef __printf
#define __printf(a, b)	__attribute__\
((format(printf, a, b)))
#endif

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define PC_EXIT_OK	0
#define PC_EXIT_ERR	1
#define PC_EXIT_USAGE	2

/* Sizes the kernel reports are checked against these before allocating. */
#define PC_MAX_BUCKETS	65536
#define PC_MAX_KEYS	(1U << 20)
#define PC_MAX_CPUS	65536
#define PC_MAX_ENTRIES	(1U << 20)

/*
 * One answer of PCORE_IOC_READ: its header and r.nbuckets buckets; for a
 * key of a histogram keyed by stack, its frames as the kernel sent them
 * (one a line, innermost first, NUL-terminated), else NULL.
 */
struct pc_snap {
	struct pcore_ioc_read r;
	struct pcore_ioc_bucket *b;
	char *frames;
};

/* One CPU of a histogram: its merged view, and each key on that CPU. */
struct pc_cpu {
	struct pc_snap s;
	struct pc_snap *keys;
	unsigned int nkeys;
};

/*
 * Everything known about one histogram: its list entry, its merged view
 * (of all keys), each key slot in use (slot order), and with per-CPU views
 * each CPU that answered.  Keys and CPUs are complete: formatters decide
 * what to leave out.  With @since_created (pc_dev_hist_total()), the
 * merged view is everything since the histogram was created
 * (PCORE_READ_TOTAL), and there are no CPUs; a histogram keyed by cgroup
 * then has @cg_totals and @keys: each cgroup (that is there) since
 * creation (PCORE_READ_TOTAL | PCORE_READ_KEY), in no given order; a
 * module older than that read has none (@cg_totals false).
 */
struct pc_hist {
	struct pcore_ioc_entry e;
	struct pc_snap total;
	struct pc_snap *keys;
	unsigned int nkeys;
	bool since_created;
	bool cg_totals;
	bool percpu;
	struct pc_cpu *cpus;
	unsigned int ncpus;
};

void pc_snap_free(struct pc_snap *s);
void pc_hist_free(struct pc_hist *h);

#endif /* PROBECTL_H */
