/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loading and unloading probe_core with libkmod.  Functions return 0 or
 * -errno; the caller words the errors (probectl's commands, host-tested
 * with fakes of these functions).
 */
#ifndef PROBECTL_KMOD_H
#define PROBECTL_KMOD_H

#include <stddef.h>

#define PC_MODULE_NAME	"probe_core"

/* Where pc_kmod_load() failed. */
enum pc_kmod_step {
	PC_KMOD_SETUP,		/* libkmod context */
	PC_KMOD_FIND,		/* -ENOENT: not installed, or no such file */
	PC_KMOD_NAME,		/* --module PATH is not probe_core (-EINVAL) */
	PC_KMOD_INSERT,		/* the kernel's answer to init_module */
};

int pc_kmod_load(const char *path, const char *params,
		 enum pc_kmod_step *step, char *found, size_t len,
		 char *why, size_t whylen);
int pc_kmod_unload(char *holders, size_t len);
int pc_kmod_state(char *state, size_t len);

#endif /* PROBECTL_KMOD_H */
