/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User stack frames into names: a process's /proc/TGID/maps says which
 * file (and where in it) an address is; that file's symbol table
 * (elfsym.c) says which function.  Each process's mappings and each
 * file's functions are read once per struct pc_usym (one probectl run),
 * as the stacks of one read are symbolized.
 */
#ifndef PROBECTL_USYM_H
#define PROBECTL_USYM_H

#include <stdbool.h>
#include <stdint.h>

struct pc_usym;

/**
 * enum pc_usym_kind - what an address is
 * @PC_USYM_NOPROC: the process is gone (no /proc/TGID/maps): nothing known
 * @PC_USYM_UNMAPPED: no mapping of the process holds it
 * @PC_USYM_ANON: anonymous memory (JIT code, "[heap]", "[stack]")
 * @PC_USYM_VDSO: the vDSO ("[vdso]") without a name: not probectl's own
 *	(a 32-bit process's), or in no function of it; the offset is set
 * @PC_USYM_FILE: a file's, without a function: the file cannot be read,
 *	is not one the mapping shows (replaced), or has no symbol there
 * @PC_USYM_FUNC: a function of a file, or of the vDSO (file "[vdso]")
 */
enum pc_usym_kind {
	PC_USYM_NOPROC,
	PC_USYM_UNMAPPED,
	PC_USYM_ANON,
	PC_USYM_VDSO,
	PC_USYM_FILE,
	PC_USYM_FUNC,
};

/**
 * struct pc_usym_res - one address symbolized
 * @kind: what it is
 * @file: the mapping's path as the maps file gives it (" (deleted)"
 *	included), or its name ("[vdso]", "[heap]", "" for plain anonymous
 *	memory); NULL for NOPROC and UNMAPPED
 * @file_off: the address's offset in the file (FILE, FUNC, VDSO)
 * @func: the function's name (FUNC)
 * @func_off: the address's distance from its start (FUNC)
 * @build_id: the file's GNU build-id in hex, "" when none or unread
 * @why: for FILE: why there is no name ("stripped", ...), else NULL
 *
 * The strings live as long as the struct pc_usym.
 */
struct pc_usym_res {
	enum pc_usym_kind kind;
	const char *file;
	uint64_t file_off;
	const char *func;
	uint64_t func_off;
	const char *build_id;
	const char *why;
};

struct pc_usym *pc_usym_new(const char *proc);
void pc_usym_free(struct pc_usym *u);
int pc_usym_lookup(struct pc_usym *u, uint32_t tgid, uint64_t addr,
		   bool retaddr, struct pc_usym_res *res);
int pc_usym_parse_maps_line(const char *line, uint64_t *start, uint64_t *end,
			    char perms[5], uint64_t *off, unsigned int *maj,
			    unsigned int *min, uint64_t *ino,
			    const char **path);

#endif /* PROBECTL_USYM_H */
