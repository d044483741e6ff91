/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What probectl's commands (cmd.c, cmd_<command>.c) share: the device
 * opened, a histogram read by name, their errors in words, a file
 * replaced whole, and the commands themselves, which pc_run() calls.  Each returns the exit
 * status, after printing the error if there was one.
 */
#ifndef PROBECTL_CMD_PRIV_H
#define PROBECTL_CMD_PRIV_H

#include "args.h"
#include "cmd.h"

#define DMESG	"the kernel log says why: dmesg | tail"

/* One line "probectl: ..." on env->err; evaluates to PC_EXIT_ERR. */
#define error(env, fmt, ...)						\
	(fprintf((env)->err, "probectl: " fmt "\n", ##__VA_ARGS__),	\
	 PC_EXIT_ERR)

static inline unsigned long long ts_ns(const struct timespec *t)
{
	return (unsigned long long)t->tv_sec * 1000000000ULL + t->tv_nsec;
}

static inline struct timespec ns_ts(unsigned long long ns)
{
	return (struct timespec){ .tv_sec = ns / 1000000000ULL,
				  .tv_nsec = ns % 1000000000ULL };
}

/* What writes a file's contents; returns 0 or -errno (-EIO: see errno). */
typedef int (*pc_writer)(FILE *f, const void *arg);

int open_dev(struct pc_env *env, bool write, struct pc_dev *d);
int dev_error(struct pc_env *env, int err, const char *what,
	      const char *name);
int find_hist(struct pc_dev *d, const char *name, bool percpu,
	      struct pcore_ioc_entry *e, struct pc_hist *h);
int read_named(struct pc_env *env, const char *name, bool percpu,
	       struct pcore_ioc_entry *e, struct pc_hist *h);
int reset_named(struct pc_env *env, const char *name, const char *verb,
		struct pc_dev *d, struct pcore_ioc_entry *e, struct pc_snap *s);
int write_file(struct pc_env *env, const char *dst, pc_writer w,
	       const void *arg);
int show_stacks(struct pc_env *env, const struct pc_args *a,
		struct pc_hist *h);
int attach_error(struct pc_env *env, int ret,
		 const struct pcore_ioc_attach *at, const char *where,
		 const char *what);

/* The commands, one a file: pc_run() calls the one of pc_args.cmd. */
typedef int pc_cmd_fn(struct pc_env *env, const struct pc_args *a);
pc_cmd_fn cmd_load, cmd_unload, cmd_status, cmd_list, cmd_show, cmd_watch,
	  cmd_attach, cmd_profile, cmd_name, cmd_export, cmd_flamegraph,
	  cmd_heatmap;

#endif /* PROBECTL_CMD_PRIV_H */
