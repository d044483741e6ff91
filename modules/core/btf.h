/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is a kernel function's prototype all in registers?  Read from BTF.
 *
 * A direct-call latency trampoline calls a function's body from its own
 * stack frame, so the body finds the trampoline's frame where its caller's
 * was: that is only right when no argument is on the stack.  On x86-64
 * (System V) the first six integer arguments are in rdi, rsi, rdx, rcx,
 * r8 and r9; anything past them, and anything passed in memory, is on the
 * stack.  The prototype is known from BTF (/sys/kernel/btf/vmlinux) only.
 *
 * btf.c is a parser of a BTF blob, untrusted input: every offset and
 * length is checked against the blob before it is read, every chain of
 * types is followed at most %PCORE_BTF_DEPTH steps.  Like pcore_spec.c it
 * has no kernel dependency beyond a shim of its own, so the host tests
 * compile it unchanged (tests/host/test_btf.c).  Only a base BTF (the
 * kernel's, ids from 1) is read: a module's split BTF, whose ids follow
 * vmlinux's, is refused as malformed.
 */
#ifndef PCORE_BTF_H
#define PCORE_BTF_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stddef.h>
#include <linux/types.h>
#endif

/* The integer argument registers of x86-64: rdi, rsi, rdx, rcx, r8, r9. */
#define PCORE_BTF_ARG_REGS	6
/* How many typedefs, qualifiers and nested members a type may go through. */
#define PCORE_BTF_DEPTH		32
/* Room for a reason pcore_btf_func_regs() gives, with the NUL. */
#define PCORE_BTF_WHY_MAX	128

/**
 * struct pcore_btf - a checked BTF blob and its index of types
 * @types: the type section
 * @strs: the string section; its last byte is a NUL
 * @str_len: its length
 * @off: offset in @types of type id i at @off[i - 1]
 * @nr: the number of types (ids 1 to @nr; 0 is void)
 */
struct pcore_btf {
	const unsigned char *types;
	const char *strs;
	__u32 str_len;
	__u32 *off;
	__u32 nr;
};

/**
 * struct pcore_btf_regs - the registers a function's calls use
 * @args: integer argument registers its arguments take, the hidden
 *	pointer of a large return value included: 0 to %PCORE_BTF_ARG_REGS
 * @ret: registers its return value comes back in: 0 (void, or returned
 *	through the hidden pointer, which comes back in rax: then 1), 1 (rax)
 *	or 2 (rax and rdx: a 9 to 16 byte value)
 */
struct pcore_btf_regs {
	unsigned int args;
	unsigned int ret;
};

int pcore_btf_open(struct pcore_btf *btf, const void *blob, size_t len,
		   char *why, size_t whylen);
void pcore_btf_close(struct pcore_btf *btf);
int pcore_btf_regs(const struct pcore_btf *btf, const char *func,
		   struct pcore_btf_regs *regs, char *why, size_t whylen);
int pcore_btf_func_regs(const void *blob, size_t len, const char *func,
			struct pcore_btf_regs *regs, char *why, size_t whylen);

#ifdef __KERNEL__
void *pcore_btf_vmlinux(size_t *len);
#endif

#endif /* PCORE_BTF_H */
