/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probectl's views of a histogram keyed by kernel stack: the stacks, the
 * most counted first, as text, folded lines (flame graph tools) or JSON.
 */
#ifndef PROBECTL_STACKS_H
#define PROBECTL_STACKS_H

#include <stdint.h>
#include "probectl.h"
#include "usym.h"

/*
 * Lines of one stack at most: the kernel keeps 127 kernel frames and
 * "[...]", as many user frames and "[u...]", and "[proc] TGID COMM".
 */
#define PC_STACK_FRAMES_MAX	260

/* Where procfs is: tests point it at a directory of their own. */
extern const char *pc_stacks_proc;

/**
 * struct pc_uframe - a user frame of a stack, symbolized
 * @line: the kernel's line ("[u] 0x...", "[u...]")
 * @addr: its address (0 for "[u...]" or a line that is not "[u] 0xHEX")
 * @res: what usym.c says of it; its strings are copies owned by the
 *	stack
 */
struct pc_uframe {
	const char *line;
	uint64_t addr;
	struct pc_usym_res res;
};

/**
 * struct pc_stack - one stack, twins merged
 * @frames: its frames, innermost first, as show prints them: the kernel's
 *	lines (each points into the key's text, split at the newlines), but
 *	user frames symbolized: "func+0xOFF [FILE]", "0xADDR [FILE+0xOFF]",
 *	"0xADDR" (nothing known), "[...]" (cut)
 * @nframes: how many
 * @count: values under it
 * @sum: their sum
 * @nkernel: the first @nkernel frames are the kernel's
 * @nuser: then @nuser user frames ("[...]" last when cut), then the
 *	"[proc] TGID COMM" line; 0 without user frames
 * @tgid: TGID of that line
 * @comm: COMM of that line, NULL without it (a kernel-only stack: the
 *	frames are the kernel's lines as they came)
 * @user: @nuser user frames, leaf first
 * @fold: the frames as flame graphs show them, root first: COMM, the
 *	user frames' names root to leaf ("func", "[FILE]", "[vdso]",
 *	"[unknown]", "[...]"), the kernel's without offsets root to leaf
 * @nfold: how many
 * @fold_user: @fold[1] to @fold[@fold_user] are user frames
 * @store: the strings made for this stack (pc_stacks_free() frees it)
 * @usym: the symbolizer whose strings @user points to, one for all the
 *	stacks of a pc_stacks_build() (pc_stacks_free() frees it)
 */
struct pc_stack {
	const char *frames[PC_STACK_FRAMES_MAX];
	unsigned int nframes;
	unsigned long long count;
	unsigned long long sum;
	unsigned int nkernel;
	unsigned int nuser;
	uint32_t tgid;
	const char *comm;
	struct pc_uframe *user;
	const char **fold;
	unsigned int nfold;
	unsigned int fold_user;
	char *store;
	struct pc_usym *usym;
};

int pc_stacks_build(struct pc_hist *h, struct pc_stack **out,
		    unsigned int *n);
void pc_stacks_free(struct pc_stack *s, unsigned int n);
const char *pc_stack_func(char *buf, size_t len, const char *frame);
void pc_fmt_stacks_text(FILE *f, const struct pc_hist *h,
			const struct pc_stack *s, unsigned int n,
			unsigned int top);
void pc_fmt_stacks_folded(FILE *f, const struct pc_hist *h,
			  const struct pc_stack *s, unsigned int n,
			  unsigned int top);
void pc_fmt_stacks_json(FILE *f, const struct pc_hist *h,
			const struct pc_stack *s, unsigned int n,
			unsigned int top);

#endif /* PROBECTL_STACKS_H */
