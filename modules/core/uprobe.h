/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Uprobes and uretprobes (uprobe.c).
 * Part of pcore.h, which includes the units' headers in order.
 */
#ifndef PCORE_UPROBE_H
#define PCORE_UPROBE_H

struct pcore_umark;

/**
 * struct pcore_uprobe - what a uprobe or uretprobe holds (uprobe.c)
 * @uc: the consumer registered with uprobes
 * @inode: the file's inode, referenced while the probe has it
 * @offset: where in the file
 * @uprobe: what uprobe_register() returned (v6.12+), else NULL
 * @mark: the watch that tells of the file's deletion or unmount, NULL
 *	once the probe let go of the file
 * @calls: %PCORE_PROBE_URETPROBE: the calls in flight
 * @gone: the client's callback for a file that went away, or NULL
 * @armed: registered with uprobes (not disabled, file not gone)
 */
struct pcore_uprobe {
	struct uprobe_consumer uc;
	struct inode *inode;
	loff_t offset;
	struct uprobe *uprobe;
	struct pcore_umark *mark;
	struct pcore_calls *calls;
	void (*gone)(struct pcore_probe *p);
	bool armed;
};

/* uprobes and uretprobes (uprobe.c); callers hold pcore_lock. */
int pcore_uprobe_init(void);
void pcore_uprobe_exit(void);
size_t pcore_uprobe_mem(const struct pcore_probe *p, u32 slots,
			size_t data_size);
int pcore_uprobe_hold(struct pcore_probe *p, struct file *file, u64 offset,
		      u32 slots, size_t data_size);
void pcore_uprobe_put_files(void);
#endif /* PCORE_UPROBE_H */
