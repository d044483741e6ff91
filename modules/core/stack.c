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
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kallsyms.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <asm/unwind.h>
#include "pcore.h"

#define PCORE_STACK_LEVELS	4

struct pcore_stack_cpu {
	unsigned long f[PCORE_STACK_LEVELS][PCORE_STACK_DEPTH_MAX];
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

/**
 * pcore_stack_get() - capture the stack of the current context; hot path
 * @regs: registers a probe or an interrupt saved, or NULL for the stack of
 *	our caller (or of @task)
 * @task: NULL, or a task that is not running (one that a sched_switch
 *	handler switches to): the stack where it left its CPU; refused when
 *	it is runnable with a kretprobe's return pending (the unwinder may
 *	not walk it through the trampoline: it warns)
 * @max: frames at most (1 to %PCORE_STACK_DEPTH_MAX)
 * @flags: in: %PCORE_STACK_IDLE or 0; out: PCORE_STACK_F_* flags
 * @n: out: the number of words, at most pcore_stack_words(@max)
 *
 * Registers saved in user mode give one frame, [user], in three words:
 * the task's comm in the next two (a comm is 16 bytes), whatever @max;
 * with %PCORE_STACK_IDLE, the idle task gives one frame, [idle].  Other
 * frames are one word each.  Called with preemption off; the frames are
 * valid until pcore_stack_put().
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

	if (c->busy[level] ||
	    (task && task != current && task_is_running(task) &&
	     pcore_task_returns_pending(task)))
		return NULL;
	c->busy[level] = true;
	barrier();
	f = c->f[level];
	*flags = 0;
	if (regs && user_mode(regs)) {
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
 * Return: the word of the next frame to print (the [user] frame takes
 * three), or @n when done.
 */
unsigned int pcore_stack_frame(char *buf, size_t len, const unsigned long *f,
			       unsigned int n, u32 flags, unsigned int i)
{
	char comm[TASK_COMM_LEN];

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
	if (i == 0 && (flags & PCORE_STACK_F_IP))
		snprintf(buf, len, "%pS", (void *)f[i]);
	else if (pcore_frame_is_ip(f[i]))
		snprintf(buf, len, "%pS", (void *)(f[i] | PCORE_FRAME_IP_TAG));
	else
		snprintf(buf, len, "%pB", (void *)f[i]);
	/* No symbol: %pS fell back to the address itself. */
	if (!strncmp(buf, "0x", 2))
		strscpy(buf, "[unknown]", len);
	return i + 1;
}
