/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probectl's views of a histogram keyed by kernel stack: the stacks, the
 * most counted first, as text, folded lines (flame graph tools) or JSON.
 */
#ifndef PROBECTL_STACKS_H
#define PROBECTL_STACKS_H

#include "probectl.h"

/* Frames of one stack at most: the kernel keeps 127, and "[...]". */
#define PC_STACK_FRAMES_MAX	128

/**
 * struct pc_stack - one stack, twins merged
 * @frames: its frames, innermost first, as the kernel wrote them (each
 *	points into the key's text, split at the newlines)
 * @nframes: how many
 * @count: values under it
 * @sum: their sum
 */
struct pc_stack {
	const char *frames[PC_STACK_FRAMES_MAX];
	unsigned int nframes;
	unsigned long long count;
	unsigned long long sum;
};

int pc_stacks_build(struct pc_hist *h, struct pc_stack **out,
		    unsigned int *n);
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
