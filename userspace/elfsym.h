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

int pc_elf_parse_sym(const char *s, struct pc_elf_sym *q, const char **why);
int pc_elf_resolve(int fd, const char *path, const char *sym,
		   uint64_t *offset, char *err, size_t errlen);

#endif /* PROBECTL_ELFSYM_H */
