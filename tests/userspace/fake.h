/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fake /dev/probe_core for the host tests of probectl: the ioctl ABI of
 * include/uapi/probe_core.h over histograms kept by the real engine
 * (pcore_engine.c), with the checks the ABI promises (reserved fields
 * zero, strings terminated, sizes, ENOSPC with the needed size, ENOENT,
 * EPERM) and a record of what probectl asked.
 */
#ifndef PROBECTL_FAKE_H
#define PROBECTL_FAKE_H

#include <sys/stat.h>
#include "cmd.h"
#include "pcore_spec.h"

#define FAKE_CPUS	4	/* room; nr_cpu_ids may be less */
#define FAKE_SLOTS	4
#define FAKE_HISTS	40

struct fake_slot {
	bool used;
	unsigned long long key;
	char label[PCORE_UAPI_LABEL_MAX];
	char frames[1024];		/* PCORE_ENT_STACKS: as the kernel sends */
	struct pcore_cpu_hist *cpu[FAKE_CPUS];
	/*
	 * PCORE_READ_TOTAL | PCORE_READ_KEY of a histogram keyed by cgroup:
	 * the slot's values since creation (the fake's entries of the
	 * totals per cgroup are its slots); a slot labelled "(removed)" is
	 * a cgroup gone: not answered, as the kernel
	 */
	struct pcore_cpu_hist *life;
};

struct fake_hist {
	struct pcore_ioc_entry e;	/* name, symbol, kinds, unit, flags */
	struct pcore_layout l;
	unsigned long long dropped;	/* as the kernel's: never reset */
	unsigned long long lost;	/* @lost of PCORE_READ_TOTAL (cgroup) */
	/* PCORE_READ_TOTAL: every value since creation, never reset */
	struct pcore_cpu_hist *life;
	unsigned long long created_ns;
	unsigned int nslots;
	struct fake_slot slot[FAKE_SLOTS];
};

struct fake {
	struct fake_hist h[FAKE_HISTS];
	unsigned int n;
	unsigned int nr_cpu_ids;
	unsigned int possible;		/* mask of the CPUs that answer */
	unsigned int abi;
	int open_err;			/* dev_open() answers this */
	int version_err;		/* PCORE_IOC_VERSION answers this */
	int read_err;			/* and PCORE_IOC_READ this */
	bool not_admin;			/* attach etc. answer EPERM */
	bool writable;			/* the last open was for writing */
	unsigned int shrink;		/* LIST under-reports nbuckets by this */
	bool v5_list;			/* LIST takes only PCORE_ENTRY_V5_SIZE */
	unsigned int list_size;		/* the entry_size LIST last took */
	/* what probectl did */
	unsigned int calls[8];		/* per ioctl number */
	unsigned int read_resets;	/* READs with PCORE_READ_RESET */
	unsigned int read_totals;	/* READs with PCORE_READ_TOTAL */
	unsigned int bad_reads;		/* RESET READs not of cpu -1 */
	unsigned int opens, closes;
	struct pcore_ioc_attach attached;
	/* PCORE_ATTACH_UPROBE: what attached.fd was during the ioctl */
	struct stat attached_st;	/* fstat() */
	int attached_fd_flags;		/* F_GETFD: FD_CLOEXEC */
	int attached_fl_flags;		/* F_GETFL: O_ACCMODE... */
	/* load, unload */
	int load_ret;
	enum pc_kmod_step load_step;
	const char *load_why;		/* probe_core's kernel log line */
	char load_path[256];
	char load_params[4096];
	int unload_ret;
	const char *holders;
	int state;
	/* clocks: watch */
	unsigned long long mono_ns;
	unsigned long long real_s;
	void (*on_sleep)(struct fake *f, unsigned int nth);
	/* a probe that fires while probectl reads: before each READ of @h */
	void (*on_read)(struct fake *f, struct fake_hist *h);
	unsigned int sleeps;
	/* heatmap: a stop is asked for from this many sleeps on (0: never) */
	unsigned int stop_after;
	bool catching;			/* catch_stop() was called */
};

struct fake_hist *fake_add(struct fake *f, const char *name,
			   const char *probe_kind, const char *symbol,
			   const char *unit, unsigned int flags,
			   const struct pcore_hist_spec *spec,
			   const char *key_name, unsigned int nslots);
void fake_key(struct fake_hist *h, unsigned int slot, unsigned long long key,
	      const char *label);
void fake_frames(struct fake_hist *h, unsigned int slot, const char *text);
void fake_record(struct fake_hist *h, unsigned int cpu, unsigned int slot,
		 unsigned long long v);
struct fake_hist *fake_find(struct fake *f, const char *name);
void fake_free(struct fake *f);
void fake_env(struct pc_env *env, struct fake *f);

#endif /* PROBECTL_FAKE_H */
