/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel stacks (stack.c) and the keys of stack histograms.
 * Part of pcore.h, which includes the units' headers in order.
 */
#ifndef PCORE_STACK_H
#define PCORE_STACK_H

/*
 * Stacks (stack.c).  A stack hist's key is a word of its hash (low 32
 * bits), its number of words (bits 32 to 39) and PCORE_STACK_F_* flags
 * (from bit 40); U64_MAX is a free slot, PCORE_KEY_BUSY one whose frames
 * are being written.  A frame is one word, but for [user]: one frame in
 * three words, the comm in the last two.  Words below a page are not
 * addresses: [user], [idle].
 */
#define PCORE_KEY_BUSY		(U64_MAX - 1)
#define PCORE_STACK_F_IP	0x1	/* frame 0 is where it stopped, not a return */
#define PCORE_STACK_F_CUT	0x2	/* deeper than the histogram's depth */
#define PCORE_FRAME_USER	1UL
#define PCORE_FRAME_IDLE	2UL
#define PCORE_FRAME_USER_WORDS	3

/*
 * A frame deeper in a stack than the first can be where an interrupt
 * stopped the code below it, rather than a return address: the unwinder
 * crossed the interrupt's saved registers.  Such a word has bit 62
 * cleared, which no kernel address has (they are canonical, bits 47 to
 * 63 set), so that it is printed as the instruction it is ("%pS"), not
 * as the call before a return address ("%pB"): at a function's first
 * instruction the two name different functions.
 */
#define PCORE_FRAME_IP_TAG	BIT(62)

static inline unsigned long pcore_frame_mark_ip(unsigned long addr)
{
	return addr & ~PCORE_FRAME_IP_TAG;
}

static inline bool pcore_frame_is_ip(unsigned long w)
{
	return (long)w < 0 && !(w & PCORE_FRAME_IP_TAG);
}

/*
 * The words of a slot of a stack hist of @depth frames: room for its
 * deepest stack, or for a [user] frame (three words) at depths 1 and 2.
 * Every writer and reader of a slot's frames uses this size.
 */
static inline u32 pcore_stack_words(u32 depth)
{
	return max_t(u32, depth, PCORE_FRAME_USER_WORDS);
}

int pcore_stack_init(void);
void pcore_stack_exit(void);
unsigned long *pcore_stack_get(struct pt_regs *regs, struct task_struct *task,
			       unsigned int max, u32 *flags, unsigned int *n);
void pcore_stack_put(void);
void pcore_hist_add_frames_taken(struct pcore_hist *h, const unsigned long *f,
				 unsigned int n, u32 flags, u64 v);
unsigned int pcore_stack_frame(char *buf, size_t len, const unsigned long *f,
			       unsigned int n, u32 flags, unsigned int i);
#endif /* PCORE_STACK_H */
