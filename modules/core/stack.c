// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel stacks: capture in any context, and the text of a frame.
 *
 * A stack is captured into a per-CPU buffer, one per context level (task,
 * softirq, hardirq, NMI): a handler interrupted by another one on the same
 * CPU is always interrupted from a higher level, so the two never share a
 * buffer.  A capture that finds its level's buffer busy anyway (a probe
 * on the unwinder, say) is refused, and its value counted as dropped.
 * Capture disables preemption: a uprobe's handler may run preemptible.
 *
 * The unwinder is x86's (ORC or frame pointers, as the kernel has it),
 * started the way perf starts it: from the registers a probe or an
 * interrupt saved (their first frame is the instruction pointer itself),
 * or from the caller's own stack, less probe_core's own frames.
 *
 * Processes (a map with PCORE_STACK_D_PROC or PCORE_STACK_D_USER, see
 * stack.h): after the kernel frames, the tgid and comm of the task whose
 * stack it is (current, or the task given), read in any context: two
 * processes never share a stack.
 *
 * User stacks (a map with PCORE_STACK_D_USER, see stack.h) are walked as
 * perf_callchain_user() walks them, by frame pointers: the kernel's
 * stack_trace_save_user() is not exported (Debian 6.1 and 6.12).  From
 * the task's user registers (those of a sample taken in user mode, else
 * task_pt_regs()): the ip, then each frame's return address, while the
 * frame pointer is aligned, above the last (and the stack pointer) and
 * readable without a fault: copy_from_user_nofault(), which takes no
 * fault (a page not present ends the walk there, silently: the stack is
 * shorter, nothing is counted apart) and refuses in NMI context when
 * nmi_uaccess_okay() says the user mm is not the one loaded (then only
 * the ip is kept).  The samples of profilers run in hard IRQ context
 * (an hrtimer), where user memory can be read.  A task built without
 * frame pointers gives a short chain: its ip, and what its rbp points
 * at while that looks like a frame.  A kernel thread, a task whose mm is
 * gone, or a task other than current (its memory is not ours to read)
 * has no user frames; a 32-bit task gives its ip only.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <asm/unwind.h>
#include "pcore.h"

#define PCORE_STACK_LEVELS	4
/*
 * The most words of a stack: kernel frames and the process, or with a
 * user stack too (see stack.h).
 */
#define PCORE_STACK_BUF_WORDS	(PCORE_STACK_DEPTH_MAX + PCORE_PROC_WORDS)
static_assert(PCORE_STACK_BUF_WORDS >= PCORE_USTACK_KDEPTH_MAX +
	      PCORE_USTACK_DEPTH + PCORE_PROC_WORDS);

struct pcore_stack_cpu {
	unsigned long f[PCORE_STACK_LEVELS][PCORE_STACK_BUF_WORDS];
	bool busy[PCORE_STACK_LEVELS];
};

static struct pcore_stack_cpu __percpu *pcore_stack_bufs;

int pcore_stack_init(void)
{
	pcore_stack_bufs = alloc_percpu(struct pcore_stack_cpu);
	return pcore_stack_bufs ? 0 : -ENOMEM;
}

void pcore_stack_exit(void)
{
	free_percpu(pcore_stack_bufs);
}

/*
 * Unwind into @f from @regs, from where @task (not running) left its CPU,
 * or from our caller's frame; no more than @max.
 */
static __always_inline unsigned int pcore_unwind(struct pt_regs *regs,
						 struct task_struct *task,
						 unsigned long *f,
						 unsigned int max, u32 *flags)
{
	struct unwind_state state;
	unsigned long addr;
	unsigned int n = 0;

	if (task) {
		/* Its saved frame: the unwinder refuses a task running elsewhere. */
		unwind_start(&state, task, NULL, NULL);
	} else if (regs && (regs->flags & X86_EFLAGS_FIXED)) {
		/* Saved by the CPU: the first frame is where it stopped. */
		f[n++] = instruction_pointer(regs);
		*flags |= PCORE_STACK_F_IP;
		unwind_start(&state, current, regs, NULL);
	} else {
		unwind_start(&state, current, NULL,
			     regs ? (unsigned long *)regs->sp : NULL);
	}
	for (; !unwind_done(&state); unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		/* From our caller's frame: not probe_core's own frames. */
		if (!n && !regs && !task && within_module(addr, THIS_MODULE))
			continue;
		if (n == max) {
			*flags |= PCORE_STACK_F_CUT;
			break;
		}
		/* Reached through an interrupt's registers: where it stopped. */
		if (unwind_get_entry_regs(&state, NULL))
			addr = pcore_frame_mark_ip(addr);
		f[n++] = addr;
	}
	return n;
}

/* A frame of a user stack built with frame pointers (x86-64). */
struct pcore_uframe {
	unsigned long next_fp;
	unsigned long ret;
};

/*
 * The user stack of current into @f, no more than @max frames, from its
 * user registers @uregs (see the top).  Hot path: no fault taken.
 */
static __always_inline unsigned int pcore_unwind_user(struct pt_regs *uregs,
						      unsigned long *f,
						      unsigned int max,
						      u32 *flags, bool entry)
{
	unsigned long fp = uregs->bp, low = uregs->sp;
	struct pcore_uframe fr;
	unsigned int n = 0;

	f[n++] = instruction_pointer(uregs);
	if (!user_64bit_mode(uregs))
		return n;
	/* At a function's entry: its return address is on top. */
	if (entry && max > 1 &&
	    !copy_from_user_nofault(&fr.ret, (const void __user *)low,
				    sizeof(fr.ret)) && fr.ret) {
		f[n++] = fr.ret;
		low += sizeof(fr.ret);
	}
	for (;;) {
		if (!fp || fp < low || (fp & (sizeof(fp) - 1)) ||
		    copy_from_user_nofault(&fr, (const void __user *)fp,
					   sizeof(fr)) || !fr.ret)
			break;
		if (n == max) {
			*flags |= PCORE_STACK_F_UCUT;
			break;
		}
		f[n++] = fr.ret;
		/* Up the stack only: no loop, whatever the memory holds. */
		low = fp + sizeof(fr);
		fp = fr.next_fp;
	}
	return n;
}

/*
 * After the @n kernel words at @f: with @user, @task's user frames
 * (current's only); then its process (see stack.h).  Return: the words
 * in all.
 */
static __always_inline unsigned int pcore_stack_proc(struct pt_regs *regs,
						     struct task_struct *task,
						     unsigned long *f,
						     unsigned int n, u32 *flags,
						     bool entry, bool user)
{
	unsigned int nu = 0;

	if (user && task == current && !(task->flags & PF_KTHREAD) &&
	    task->mm) {
		struct pt_regs *uregs = regs && user_mode(regs) ? regs :
					task_pt_regs(task);

		nu = pcore_unwind_user(uregs, &f[n], PCORE_USTACK_DEPTH,
				       flags, entry && uregs == regs);
	}
	n += nu;
	f[n++] = (u32)task->tgid | (unsigned long)nu << 32;
	BUILD_BUG_ON(sizeof(task->comm) !=
		     (PCORE_PROC_WORDS - 1) * sizeof(*f));
	memcpy(&f[n], task->comm, sizeof(task->comm));
	*flags |= PCORE_STACK_F_PROC;
	return n + PCORE_PROC_WORDS - 1;
}

/**
 * pcore_stack_get() - capture the stack of the current context; hot path
 * @regs: registers a probe or an interrupt saved, or NULL for the stack of
 *	our caller (or of @task)
 * @task: NULL, or a task that is not running (one that a sched_switch
 *	handler switches to): the stack where it left its CPU; refused when
 *	it is runnable with a kretprobe's return pending (the unwinder may
 *	not walk it through the trampoline: it warns)
 * @max: the depth of the stack map (see stack.h): kernel frames at most
 *	(1 to %PCORE_STACK_DEPTH_MAX), and PCORE_STACK_D_USER for the user
 *	stack and the process too, or PCORE_STACK_D_PROC for the process
 * @flags: in: %PCORE_STACK_IDLE, %PCORE_STACK_ENTRY or 0; out:
 *	PCORE_STACK_F_* flags
 * @n: out: the number of words, at most pcore_stack_words(@max)
 *
 * Registers saved in user mode give one frame, [user], in three words:
 * the task's comm in the next two (a comm is 16 bytes), whatever @max
 * (with PCORE_STACK_D_USER: no kernel frame, the user stack from those
 * registers; with PCORE_STACK_D_PROC: one word, the comm is the
 * process's); with %PCORE_STACK_IDLE, the idle task gives one frame,
 * [idle].  Other frames are one word each.  Called with preemption off;
 * the frames are valid until pcore_stack_put().
 *
 * Return: the frames, or NULL when this level's buffer is busy or @task
 * is refused.
 */
notrace unsigned long *pcore_stack_get(struct pt_regs *regs,
				       struct task_struct *task,
				       unsigned int max, u32 *flags,
				       unsigned int *n)
{
	struct pcore_stack_cpu *c = this_cpu_ptr(pcore_stack_bufs);
	unsigned int level = interrupt_context_level();
	unsigned long *f;
	u32 in = *flags;
	bool user = max & PCORE_STACK_D_USER;
	bool proc = pcore_stack_has_proc(max);

	if (c->busy[level] ||
	    (task && task != current && task_is_running(task) &&
	     pcore_task_returns_pending(task)))
		return NULL;
	c->busy[level] = true;
	barrier();
	f = c->f[level];
	*flags = 0;
	max = pcore_stack_kdepth(max);
	if (user && regs && user_mode(regs)) {
		*n = 0;
	} else if (proc && regs && user_mode(regs)) {
		f[0] = PCORE_FRAME_USER;	/* the comm: the process's */
		*n = 1;
	} else if (regs && user_mode(regs)) {
		f[0] = PCORE_FRAME_USER;
		BUILD_BUG_ON(sizeof(current->comm) !=
			     (PCORE_FRAME_USER_WORDS - 1) * sizeof(*f));
		memcpy(&f[1], current->comm, sizeof(current->comm));
		*n = PCORE_FRAME_USER_WORDS;
	} else if ((in & PCORE_STACK_IDLE) && is_idle_task(task ?: current)) {
		f[0] = PCORE_FRAME_IDLE;
		*n = 1;
	} else {
		*n = pcore_unwind(regs, task == current ? NULL : task, f, max,
				  flags);
	}
	if (proc)
		*n = pcore_stack_proc(regs, task ?: current, f, *n, flags,
				      in & PCORE_STACK_ENTRY, user);
	return f;
}
NOKPROBE_SYMBOL(pcore_stack_get);

/* The capture is used: its buffer is free again. */
void notrace pcore_stack_put(void)
{
	struct pcore_stack_cpu *c = this_cpu_ptr(pcore_stack_bufs);

	barrier();
	c->busy[interrupt_context_level()] = false;
}
NOKPROBE_SYMBOL(pcore_stack_put);

/* A kernel frame's text: see pcore_stack_frame(). */
static void pcore_stack_kframe(char *buf, size_t len, unsigned long addr,
			       bool ip)
{
	if (ip)
		snprintf(buf, len, "%pS", (void *)addr);
	else if (pcore_frame_is_ip(addr))
		snprintf(buf, len, "%pS", (void *)(addr | PCORE_FRAME_IP_TAG));
	else
		snprintf(buf, len, "%pB", (void *)addr);
	/* No symbol: %pS fell back to the address itself. */
	if (!strncmp(buf, "0x", 2))
		strscpy(buf, "[unknown]", len);
}

/* Line @i of a stack with its process: see pcore_stack_frame(). */
static unsigned int pcore_stack_proc_line(char *buf, size_t len,
					  const unsigned long *f,
					  unsigned int n, u32 flags,
					  unsigned int i)
{
	unsigned int nu, nk, cut = !!(flags & PCORE_STACK_F_CUT);
	unsigned long proc;
	char comm[TASK_COMM_LEN];

	if (n < PCORE_PROC_WORDS) {	/* never written so */
		strscpy(buf, "[unknown]", len);
		return n;
	}
	proc = f[n - PCORE_PROC_WORDS];
	nk = pcore_stack_kwords(f, n, flags);
	nu = n - PCORE_PROC_WORDS - nk;
	pcore_to_word(comm, (const char *)&f[n - PCORE_PROC_WORDS + 1],
		      sizeof(comm));
	if (i < nk) {
		if (f[i] == PCORE_FRAME_IDLE && i == 0 && nk == 1)
			strscpy(buf, "[idle]", len);
		else if (f[i] == PCORE_FRAME_USER && i == 0 && nk == 1)
			snprintf(buf, len, "[user] %s", comm);
		else
			pcore_stack_kframe(buf, len, f[i],
					   !i && (flags & PCORE_STACK_F_IP));
		return i + 1;
	}
	if (cut && i == nk) {
		strscpy(buf, "[...]", len);
		return i + 1;
	}
	if (i < nk + cut + nu) {
		snprintf(buf, len, "[u] 0x%016lx", f[i - cut]);
		return i + 1;
	}
	if ((flags & PCORE_STACK_F_UCUT) && i == nk + cut + nu) {
		strscpy(buf, "[u...]", len);
		return i + 1;
	}
	snprintf(buf, len, "[proc] %u %s", (u32)proc, comm);
	return n;
}

/**
 * pcore_stack_frame() - the text of one frame of a stack
 * @buf: where it goes, NUL-terminated
 * @len: room in @buf
 * @f: the frames, as pcore_stack_get() gave them
 * @n: how many words
 * @flags: their PCORE_STACK_F_* flags
 * @i: the word of the frame, below @n
 *
 * A function as "%pS" prints it (name+offset/size [module]), for a return
 * address the function of the call ("%pB"; a frame where an interrupt
 * stopped, see PCORE_FRAME_IP_TAG, as "%pS"); "[user] COMM" and "[idle]"
 * for those frames, COMM as one word (see pcore_to_word()); "[unknown]"
 * for an address no symbol covers (a module unloaded since), which is
 * never printed raw.
 *
 * A stack with its process (%PCORE_STACK_F_PROC, see stack.h) is read
 * by line, not by word: @i counts lines, the kernel frames ("[user] COMM"
 * with the process's comm for a sample in user mode without user
 * stacks), "[...]" when they were cut, one "[u] 0x%016lx" per user
 * frame, "[u...]" when they were cut, and last "[proc] TGID COMM" (fewer
 * lines than words).
 *
 * Return: the word of the next frame to print (the [user] frame takes
 * three), or @n when done; with a process, the next line, or @n.
 */
unsigned int pcore_stack_frame(char *buf, size_t len, const unsigned long *f,
			       unsigned int n, u32 flags, unsigned int i)
{
	char comm[TASK_COMM_LEN];

	if (flags & PCORE_STACK_F_PROC)
		return pcore_stack_proc_line(buf, len, f, n, flags, i);

	if (f[i] == PCORE_FRAME_USER && i == 0 &&
	    n == PCORE_FRAME_USER_WORDS) {
		pcore_to_word(comm, (const char *)&f[1], sizeof(comm));
		snprintf(buf, len, "[user] %s", comm);
		return n;
	}
	if (f[i] == PCORE_FRAME_IDLE && i == 0 && n == 1) {
		strscpy(buf, "[idle]", len);
		return n;
	}
	pcore_stack_kframe(buf, len, f[i], !i && (flags & PCORE_STACK_F_IP));
	return i + 1;
}
