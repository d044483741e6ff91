/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probectl's side of the /dev/probe_core ioctls.  Every call goes through
 * struct pc_dev's ioctl hook: ioctl(2) on the device, or a fake in the
 * host tests.  Functions return 0 or -errno.
 */
#ifndef PROBECTL_DEV_H
#define PROBECTL_DEV_H

#include "probectl.h"

/**
 * struct pc_dev - an open /dev/probe_core
 * @fd: its file descriptor, -1 for a fake
 * @ioctl: does one ioctl; returns 0 or -errno
 * @priv: the hook's data
 * @ver: what PCORE_IOC_VERSION answered (pc_dev_version())
 */
struct pc_dev {
	int fd;
	int (*ioctl)(struct pc_dev *d, unsigned long cmd, void *arg);
	void *priv;
	struct pcore_ioc_version ver;
};

int pc_dev_sys_ioctl(struct pc_dev *d, unsigned long cmd, void *arg);
int pc_dev_version(struct pc_dev *d);
int pc_dev_list(struct pc_dev *d, struct pcore_ioc_entry **ents,
		unsigned int *n);
int pc_dev_find(struct pc_dev *d, const char *name,
		struct pcore_ioc_entry *e);
int pc_dev_read(struct pc_dev *d, const char *name, int cpu,
		unsigned int flags, unsigned int slot, unsigned int nbuckets,
		bool frames, struct pc_snap *s);
int pc_dev_hist(struct pc_dev *d, const struct pcore_ioc_entry *e,
		bool percpu, struct pc_hist *h);
int pc_dev_hist_total(struct pc_dev *d, const struct pcore_ioc_entry *e,
		      struct pc_hist *h);
int pc_dev_name_cmd(struct pc_dev *d, unsigned long cmd, const char *name);
int pc_dev_attach(struct pc_dev *d, const struct pcore_ioc_attach *a);

#endif /* PROBECTL_DEV_H */
