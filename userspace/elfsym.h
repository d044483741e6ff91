/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ELF symbols into file offsets, for uprobes: PCORE_ATTACH_UPROBE wants
 * the offset in the file of a function's first instruction.  libelf reads
 * the file through a descriptor the caller opened, the same one that
 * travels in the ioctl, so the file resolved is the file probed.
 */
#ifndef PROBECTL_ELFSYM_H
#define PROBECTL_ELFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PC_ELF_SYM_MAX		1024	/* SYMBOL, its version included */
#define PC_ELF_BUILD_ID_MAX	64	/* bytes of a build-id (SHA-1: 20) */
#define PC_ELF_NAME_MAX		256	/* a symbolized name, cut there */

struct pc_elf_seg;

/**
 * struct pc_elf_sym - SYMBOL of --uprobe PATH:SYMBOL, parsed
 * @is_offset: SYMBOL is a file offset (0xHEX or decimal)
 * @offset: that offset
 * @name_len: otherwise the function's name is SYMBOL's first @name_len
 *	characters
 * @version: what follows "@" or "@@", NULL without a version
 * @is_default: "NAME@@VERSION": only the default version will do
 */
struct pc_elf_sym {
	bool is_offset;
	uint64_t offset;
	size_t name_len;
	const char *version;
	bool is_default;
};

/**
 * struct pc_elf_func - one function of struct pc_elf_funcs
 * @addr: its address in the file's own layout (st_value)
 * @size: its size, or the distance to the next function when the
 *	table gives 0 (an assembly label); 0 for the last such one
 * @name: its name, printable (see pc_elf_funcs_load())
 */
struct pc_elf_func {
	uint64_t addr;
	uint64_t size;
	const char *name;
};

/**
 * struct pc_elf_funcs - the functions of an ELF file, for symbolizing
 * @funcs: sorted by address, one per address
 * @nfuncs: how many
 * @segs: the executable PT_LOAD segments (file offset to address)
 * @nsegs: how many
 * @names: where the names are
 * @table: ".symtab", ".dynsym" (the file is stripped), or NULL: none
 * @build_id: its GNU build-id in hex, "" when it has none
 */
struct pc_elf_funcs {
	struct pc_elf_func *funcs;
	size_t nfuncs;
	struct pc_elf_seg *segs;
	size_t nsegs;
	char *names;
	const char *table;
	char build_id[2 * PC_ELF_BUILD_ID_MAX + 1];
};

int pc_elf_parse_sym(const char *s, struct pc_elf_sym *q, const char **why);
int pc_elf_resolve(int fd, const char *path, const char *sym,
		   uint64_t *offset, char *err, size_t errlen);
int pc_elf_funcs_load(int fd, const char *path, struct pc_elf_funcs *out,
		      char *err, size_t errlen);
const struct pc_elf_func *pc_elf_funcs_find(const struct pc_elf_funcs *fs,
					    uint64_t off, uint64_t *func_off);
void pc_elf_funcs_free(struct pc_elf_funcs *fs);

#endif /* PROBECTL_ELFSYM_H */
