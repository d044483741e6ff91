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
#define PCORE_STACK_F_PROC	0x4	/* a process (and user frames): see below */
#define PCORE_STACK_F_UCUT	0x8	/* the user stack was cut at its depth */
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
 * User stacks (PCORE_HIST_USTACK) and processes (PCORE_HIST_PROC).  A
 * stack map's depth is its kernel frames (bits 0 to 7), with
 * PCORE_STACK_D_USER when it keeps user stacks and processes too, or
 * PCORE_STACK_D_PROC when it keeps processes without user frames.  Such
 * a stack (PCORE_STACK_F_PROC) is, in words: its kernel frames, its user
 * frames (leaf first, the first the user ip), then three words: the tgid
 * (bits 0 to 31) and the number of user frames (bits 32 to 39), then the
 * task's comm in two.  A sample taken in user mode has no kernel frame
 * with user stacks; with processes alone, one word, PCORE_FRAME_USER (its
 * "[user] COMM" takes the comm from the process's words).  With
 * PCORE_STACK_D_PROC there are no user frames: a stack is at most 127
 * kernel frames and the process, 130 words; its text 129 lines, "[...]"
 * and "[proc]" included.  With user stacks: at most PCORE_USTACK_DEPTH
 * user frames, and with PCORE_USTACK_KDEPTH_MAX kernel frames a stack is
 * 128 words and its text 128 lines at most.  Every such stack fits the
 * key's word count (8 bits) and the ioctl's PCORE_UAPI_FRAMES_MAX bytes
 * (see pcore_frames_text()).
 */
#define PCORE_STACK_D_USER	0x100
#define PCORE_STACK_D_PROC	0x200
#define PCORE_STACK_D_KMASK	0xff
#define PCORE_PROC_WORDS	3

/* The kernel frames a stack map of @depth keeps. */
static inline u32 pcore_stack_kdepth(u32 depth)
{
	return depth & PCORE_STACK_D_KMASK;
}

/* Does a stack map of @depth keep processes (user stacks or not)? */
static inline bool pcore_stack_has_proc(u32 depth)
{
	return depth & (PCORE_STACK_D_USER | PCORE_STACK_D_PROC);
}

/*
 * The kernel words of the @n words @f of a stack with PCORE_STACK_F_*
 * @flags: all of them, or with a process those before its user frames.
 */
static inline unsigned int pcore_stack_kwords(const unsigned long *f,
					      unsigned int n, u32 flags)
{
	unsigned int nu;

	if (!(flags & PCORE_STACK_F_PROC))
		return n;
	if (n < PCORE_PROC_WORDS)	/* never written so */
		return 0;
	nu = min_t(unsigned int, (f[n - PCORE_PROC_WORDS] >> 32) & 0xff,
		   n - PCORE_PROC_WORDS);
	return n - PCORE_PROC_WORDS - nu;
}

/*
 * The words of a slot of a stack hist of @depth frames: room for its
 * deepest stack, or for a [user] frame (three words) at depths 1 and 2;
 * with user stacks, room for them and the process; with processes alone,
 * the kernel frames and the process (a [user] frame is one word there).
 * Every writer and reader of a slot's frames uses this size.
 */
static inline u32 pcore_stack_words(u32 depth)
{
	u32 kd = pcore_stack_kdepth(depth);

	if (depth & PCORE_STACK_D_USER)
		return max_t(u32, kd, PCORE_FRAME_USER_WORDS) +
		       PCORE_USTACK_DEPTH + PCORE_PROC_WORDS;
	if (depth & PCORE_STACK_D_PROC)
		return kd + PCORE_PROC_WORDS;
	return max_t(u32, kd, PCORE_FRAME_USER_WORDS);
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
