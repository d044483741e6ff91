// SPDX-License-Identifier: GPL-2.0
/*
 * Direct-call probes: a function's calls counted, or timed, from its
 * ftrace call site, through a trampoline of probe_core's own, the way BPF
 * trampolines are entered (ftrace "direct calls"), instead of a kprobe's
 * breakpoint or ftrace's generic handler.
 *
 * How.  Every traceable function starts with a call to __fentry__ that
 * ftrace patches.  register_ftrace_direct() patches it into a call to a
 * trampoline instead.  A counting trampoline saves the argument
 * registers, calls pcore_direct_hit() with its slot number, restores them
 * and returns into the function.  A wrapping (timing) trampoline calls
 * the function's body itself, between pcore_direct_entry() and
 * pcore_direct_return(), and returns to the function's caller: the stamp
 * is in its own frame (see the trampolines below).  A module cannot make
 * code at run time (no executable allocation or text_poke() is exported),
 * so the trampolines are made here, one of each kind per slot
 * (PCORE_DIRECT_SLOTS of them in this file's text), and a probe takes a
 * free slot: the slot number in the trampoline's code finds the probe,
 * one load.
 *
 * Globs (funcs.c, mechanism=direct or auto) go this way too: one slot
 * for all the functions a glob matched, one ftrace_ops whose filter has
 * each one's ftrace call, registered once, and a glob's own trampolines,
 * which pass the site's return address (site + 5) to the hot paths: they
 * find the function by a binary search of the glob's sorted sites (no
 * division, no lock) and count or time into its histogram.
 *
 * Safety.  The handlers run in the function's own context, preemptible
 * or not, and hold preemption off while they count; they do not recurse
 * (see pcore_direct_hit()).  Unregistering waits until no task is on its
 * way into the trampoline (ftrace's shutdown of an ops of a module waits
 * for RCU tasks: a task preempted in the trampoline has left it).  A
 * wrapped function's calls may be inside it for long, asleep, or for
 * good: every call is counted in and out, per CPU.  When a timing probe
 * goes with calls in flight, neither its detach nor the unload waits for
 * them: with the machine stopped, the trampoline's frames on every
 * task's stack are made to return straight to the function's callers,
 * through returns in the kernel's own text (pcore_direct_send_back());
 * then the slot is let go (pcore_direct_reap()).
 *
 * What cannot go this way is refused with a log line, or with the reason
 * given back (struct pcore_direct_opts.why) for the caller to take
 * kprobes instead (mechanism=auto): a function ftrace cannot trace, a
 * module's function, one that another direct user (a BPF trampoline, or
 * another probe of probe_core's) already has (-EBUSY), and for timing one
 * whose arguments are not all in registers (pcore_direct_check()).  A
 * livepatch of the function is no direct user: it shares the function
 * with either kind (pcore_direct_ops_func()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/stop_machine.h>
#include <linux/stringify.h>
#include <linux/vmalloc.h>
#include "btf.h"
#include "pcore.h"

#ifdef PCORE_HAVE_DIRECT

#include <asm/ibt.h>
#include <asm/nospec-branch.h>
#include <asm/unwind.h>
#include <asm/unwind_hints.h>

#ifndef CALL_DEPTH_ACCOUNT
#define CALL_DEPTH_ACCOUNT	""	/* no call depth tracking before v6.2 */
#endif

/* One trampoline for each of probe_core's own probes: none waits for one. */
static_assert(PCORE_DIRECT_SLOTS == PCORE_MAX_PROBES);

static struct pcore_probe *pcore_direct_slots[PCORE_DIRECT_SLOTS];
/*
 * A counting probe with no filter and no handler, the common case, is
 * only its histogram: the hot path goes straight to it, and the probe's
 * hits are the histogram's count (pcore_direct_hits()).
 */
static struct pcore_hist *pcore_direct_plain[PCORE_DIRECT_SLOTS];

static bool pcore_direct_is_plain(const struct pcore_probe *p)
{
	return p->kind == PCORE_PROBE_DIRECT && !p->filtered && !p->pre;
}

/*
 * The counting trampolines, one per slot, pcore_direct_tramp_<slot>:
 * entered by the call at a function's ftrace site, with the function's
 * arguments in their registers and its return address above ours.  The
 * frame pointer set up first lets the unwinder walk through it.  64 bytes
 * pushed: the call below is made with the stack as aligned as at the
 * site's call.
 *
 * The timing trampolines, pcore_direct_wrap_<slot>, wrap the function
 * instead: they stamp the call (pcore_direct_entry()), call the function's
 * body (the return address the site's call pushed) with the arguments as
 * they came, then give pcore_direct_return() the stamp and the value
 * returned, and return to the function's caller.  The stamp is in their
 * own frame: a call that sleeps, migrates or recurses has its own.  The
 * body is entered by a return, not an indirect call: with IBT an indirect
 * call must land on an ENDBR, which the body (past the site) has not; a
 * return needs none, costs one return misprediction, and is the same code
 * with or without IBT.  The body sees the arguments in registers only:
 * arguments on the stack would be ours, not the caller's, so only
 * functions whose arguments are all in registers are wrapped (see
 * pcore_direct_check()).  The frame is described to objtool: the body
 * and whatever it calls unwind through it to the function's caller
 * (ORC; the stack pointer only, %rbp untouched).  At the body's call:
 *
 *	72(%rsp) the caller's return address
 *	64(%rsp) the body (the site's return address)
 *	56 .. 8	 %rdi %rsi %rdx %rcx %r8 %r9 %rax as they came
 *	 0(%rsp) the stamp
 *
 * pcore_direct_tramps[] and pcore_direct_wraps[] hold their addresses.
 *
 * A glob's slot has a trampoline of each kind of its own, made by the
 * same macros: pcore_direct_gtramp_<slot> and pcore_direct_gwrap_<slot>
 * (pcore_direct_gtramps[], pcore_direct_gwraps[]).  They pass one more
 * argument, the site's return address (8(%rbp) and 64(%rsp) above),
 * which tells the glob's hot paths (pcore_direct_group_hit(),
 * pcore_direct_group_entry(), pcore_direct_group_return()) which of its
 * functions was called; the one-function trampolines and hot paths stay
 * as they were, not one instruction more.
 */
#define PCORE_INTRA_CALL(label)						\
	"999:	call " label "\n"					\
	"	.pushsection .discard.intra_function_calls\n"		\
	"	.long 999b\n"						\
	"	.popsection\n"

asm(
"	.pushsection .text, \"ax\", @progbits\n"
"	.macro pcore_direct_tramp slot, name=tramp, hit=pcore_direct_hit\n"
"	.globl pcore_direct_\\name\\()_\\slot\n"
"	.type pcore_direct_\\name\\()_\\slot, @function\n"
"pcore_direct_\\name\\()_\\slot:\n"
	ASM_ENDBR
"	pushq %rbp\n"
"	movq %rsp, %rbp\n"
	CALL_DEPTH_ACCOUNT
"	pushq %rdi\n	pushq %rsi\n	pushq %rdx\n	pushq %rcx\n"
"	pushq %r8\n	pushq %r9\n	pushq %rax\n"
"	movl $\\slot, %edi\n"
"	movq %rsp, %rsi\n"
"	.ifc \\name,gtramp\n"
"	movq 8(%rbp), %rdx\n"
"	.endif\n"
"	call \\hit\n"
"	popq %rax\n	popq %r9\n	popq %r8\n	popq %rcx\n"
"	popq %rdx\n	popq %rsi\n	popq %rdi\n"
"	leave\n"
	ASM_RET
"	.size pcore_direct_\\name\\()_\\slot, .-pcore_direct_\\name\\()_\\slot\n"
"	.endm\n"
"	.macro pcore_direct_wrap slot, name=wrap, entry=pcore_direct_entry, rtn=pcore_direct_return\n"
"	.globl pcore_direct_\\name\\()_\\slot\n"
"	.type pcore_direct_\\name\\()_\\slot, @function\n"
"pcore_direct_\\name\\()_\\slot:\n"
	ASM_ENDBR
	CALL_DEPTH_ACCOUNT
"	pushq %rdi\n	pushq %rsi\n	pushq %rdx\n	pushq %rcx\n"
"	pushq %r8\n	pushq %r9\n	pushq %rax\n"
"	subq $8, %rsp\n"
"	movl $\\slot, %edi\n"
"	.ifc \\name,gwrap\n"
"	movq 64(%rsp), %rsi\n"
"	.endif\n"
"	call \\entry\n"
"	movq %rax, (%rsp)\n"
"	movq 56(%rsp), %rdi\n	movq 48(%rsp), %rsi\n"
"	movq 40(%rsp), %rdx\n	movq 32(%rsp), %rcx\n"
"	movq 24(%rsp), %r8\n	movq 16(%rsp), %r9\n"
"	movq 8(%rsp), %rax\n"
	PCORE_INTRA_CALL(".Lpcore_direct_\\name\\()_body_\\slot")
".Lpcore_direct_\\name\\()_back_\\slot:\n"
	PCORE_UNWIND_HINT_CALL(72)
"	movq %rax, 8(%rsp)\n"
"	movq %rdx, 40(%rsp)\n"
"	movq %rax, %rdx\n"
"	movq (%rsp), %rsi\n"
"	movl $\\slot, %edi\n"
"	.ifc \\name,gwrap\n"
"	movq 64(%rsp), %rcx\n"
"	.endif\n"
"	call \\rtn\n"
"	movq 8(%rsp), %rax\n"
"	movq 40(%rsp), %rdx\n"
"	addq $72, %rsp\n"
	UNWIND_HINT_FUNC
	ASM_RET
".Lpcore_direct_\\name\\()_body_\\slot:\n"
"	pushq 72(%rsp)\n"
	UNWIND_HINT_FUNC
	ASM_RET
"	.size pcore_direct_\\name\\()_\\slot, .-pcore_direct_\\name\\()_\\slot\n"
"	.endm\n"
"	.macro pcore_direct_addr kind, slot\n"
"	.quad pcore_direct_\\kind\\()_\\slot\n"
"	.endm\n"
"	.macro pcore_direct_table kind\n"
"	.globl pcore_direct_\\kind\\()s\n"
"	.type pcore_direct_\\kind\\()s, @object\n"
"pcore_direct_\\kind\\()s:\n"
"	.set pcore_direct_i, 0\n"
"	.rept " __stringify(PCORE_DIRECT_SLOTS) "\n"
"	pcore_direct_addr \\kind, %pcore_direct_i\n"
"	.set pcore_direct_i, pcore_direct_i + 1\n"
"	.endr\n"
"	.size pcore_direct_\\kind\\()s, .-pcore_direct_\\kind\\()s\n"
"	.endm\n"
"	.altmacro\n"
"	.set pcore_direct_i, 0\n"
"	.rept " __stringify(PCORE_DIRECT_SLOTS) "\n"
"	pcore_direct_tramp %pcore_direct_i\n"
"	pcore_direct_wrap %pcore_direct_i\n"
"	pcore_direct_tramp %pcore_direct_i, gtramp, pcore_direct_group_hit\n"
"	pcore_direct_wrap %pcore_direct_i, gwrap, pcore_direct_group_entry, pcore_direct_group_return\n"
"	.set pcore_direct_i, pcore_direct_i + 1\n"
"	.endr\n"
"	.popsection\n"
"	.pushsection .rodata, \"a\"\n"
"	.balign 8\n"
"	pcore_direct_table tramp\n"
"	pcore_direct_table wrap\n"
"	pcore_direct_table gtramp\n"
"	pcore_direct_table gwrap\n"
"	.globl pcore_direct_back_off\n"
"	.type pcore_direct_back_off, @object\n"
"pcore_direct_back_off:\n"
"	.long .Lpcore_direct_wrap_back_0 - pcore_direct_wrap_0\n"
"	.size pcore_direct_back_off, .-pcore_direct_back_off\n"
"	.globl pcore_direct_gback_off\n"
"	.type pcore_direct_gback_off, @object\n"
"pcore_direct_gback_off:\n"
"	.long .Lpcore_direct_gwrap_back_0 - pcore_direct_gwrap_0\n"
"	.size pcore_direct_gback_off, .-pcore_direct_gback_off\n"
"	.noaltmacro\n"
"	.popsection\n"
);

/*
 * A handler's call, its registers in a struct pt_regs: apart, so that
 * the hot paths without a handler carry no frame for one (nor the stack
 * protector's check of it).  With the function's address (its ftrace
 * site), and its stack pointer at entry: above the counting trampoline's
 * saved registers, its %rbp and the site's return address, where the
 * function's return address is.
 */
static noinline void notrace pcore_direct_pre(struct pcore_probe *p,
					      const struct pcore_direct_args *a)
{
	struct pt_regs regs = {
		.di = a->di, .si = a->si, .dx = a->dx, .cx = a->cx,
		.r8 = a->r8, .r9 = a->r9, .ax = a->ax, .ip = p->dp.ip,
		.sp = (unsigned long)(a + 1) + 2 * sizeof(long),
	};

	p->pre(p, &regs);
}
NOKPROBE_SYMBOL(pcore_direct_pre);

static noinline void notrace pcore_direct_ret(struct pcore_probe *p,
					      unsigned long rv, u64 ns)
{
	struct pt_regs regs = { .ax = rv };

	p->ret(p, &regs, NULL, ns);
}
NOKPROBE_SYMBOL(pcore_direct_ret);

/*
 * The hot path: from trampoline @slot.  It calls no traceable function
 * itself (inlines and notrace code only); its preempt_enable() may enter
 * the scheduler, whose traceable functions may be probed, but there
 * preemption is off, so it nests once at most.  Each write is one
 * instruction, safe against NMIs.  So no recursion lock (25 instructions
 * a call): only preemption held off around this CPU's counters.
 */
void notrace pcore_direct_hit(unsigned long slot,
			      const struct pcore_direct_args *a)
{
	struct pcore_hist *h = READ_ONCE(pcore_direct_plain[slot]);
	struct pcore_probe *p;

	preempt_disable_notrace();
	if (likely(h)) {
		pcore_hist_count_nopreempt(h);
	} else {
		p = READ_ONCE(pcore_direct_slots[slot]);
		if (p && (!p->filtered || pcore_filter_pass(p))) {
			pcore_hit_nopreempt(p);
			if (!p->pre)
				pcore_hist_count_nopreempt(p->hist);
			else
				pcore_direct_pre(p, a);
		}
	}
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(pcore_direct_hit);

/*
 * A glob's slot (%PCORE_PROBE_DIRECT_FUNCS, from the pcore_direct_gtramp_
 * and pcore_direct_gwrap_ trampolines): which of its functions was
 * called, from the site's return address @ip: a binary search of the
 * group's sorted ftrace calls (pcore_fg_find()), or -1.
 */
static __always_inline int pcore_direct_group_find(struct pcore_probe *p,
						   unsigned long ip)
{
	if (unlikely(p->kind != PCORE_PROBE_DIRECT_FUNCS))
		return -1;
	return pcore_fg_find(p->fg, ip - MCOUNT_INSN_SIZE);
}

/* A glob's counted call, as pcore_direct_hit(): into its function's. */
void notrace pcore_direct_group_hit(unsigned long slot,
				    const struct pcore_direct_args *a,
				    unsigned long ip)
{
	struct pcore_probe *p;
	int i;

	preempt_disable_notrace();
	p = READ_ONCE(pcore_direct_slots[slot]);
	if (p && (!p->filtered || pcore_filter_pass(p))) {
		i = pcore_direct_group_find(p, ip);
		if (likely(i >= 0)) {
			pcore_fg_hit_anycpu(p->fg, i);
			pcore_hist_count_nopreempt(p->fg->m[i].hist);
		}
	}
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(pcore_direct_group_hit);

/*
 * Calls inside a wrapped function, per slot: each CPU counts the calls it
 * let in and those it saw return (a call may return on another CPU).  A
 * slot whose probe went is not taken again while its calls are in flight:
 * they still return through its trampoline, and would time themselves
 * into the next probe.
 */
struct pcore_direct_flight {
	unsigned long in[PCORE_DIRECT_SLOTS];
	unsigned long out[PCORE_DIRECT_SLOTS];
};
static DEFINE_PER_CPU(struct pcore_direct_flight, pcore_direct_flight);

/*
 * Slots whose probe went (pcore_direct_reap() lets them go).  Per slot:
 * its function's site (a wrapping trampoline's frame holds the site's
 * return address, site + 5), and the calls that will not return through
 * the trampoline (sent straight back to their callers, or their task
 * died inside).
 */
static DECLARE_BITMAP(pcore_direct_held, PCORE_DIRECT_SLOTS);
static unsigned long pcore_direct_site[PCORE_DIRECT_SLOTS];
static unsigned long pcore_direct_lost[PCORE_DIRECT_SLOTS];
/*
 * A slot of many functions (a glob's): their ftrace calls, sorted, kept
 * from its arm until the slot is let go (its probe's own go with it).
 */
static unsigned long *pcore_direct_sites[PCORE_DIRECT_SLOTS];
static unsigned int pcore_direct_nsites[PCORE_DIRECT_SLOTS];
static void pcore_direct_reap(struct work_struct *work);
static DECLARE_DELAYED_WORK(pcore_direct_reap_work, pcore_direct_reap);
/* How often held slots are looked at when their calls could not be sent. */
#define PCORE_DIRECT_REAP_MS	100

/*
 * Slots whose function's site was shared with an ftrace user that moves
 * the instruction pointer (a livepatch: pcore_direct_ops_func()) at some
 * time since the slot was taken: a wrapping trampoline's frame there may
 * have another body than site + 5 (the livepatch's replacement), as long
 * as the call it times is in flight.
 */
static DECLARE_BITMAP(pcore_direct_shared, PCORE_DIRECT_SLOTS);

/*
 * A wrapping trampoline's frame's mark (see pcore_direct_back_off): of
 * the slot's glob trampoline if a glob has it (its sites kept).
 */
static unsigned long pcore_direct_back(unsigned int slot)
{
	if (pcore_direct_sites[slot])
		return pcore_direct_gwraps[slot] + pcore_direct_gback_off;
	return pcore_direct_wraps[slot] + pcore_direct_back_off;
}

/*
 * The hot path of a timed call, from wrapping trampoline @slot before the
 * body: the stamp, or 0 when the call is not timed (no probe, filtered).
 * Like pcore_direct_hit(), without a recursion lock; a call of the
 * function from inside this (none) or from an NMI has its own frame.
 * Preemptible: each count is one instruction of this CPU's; the probe
 * is freed only after its site let go of the trampoline, which waits for
 * every task inside the trampoline or preempted on its way through it,
 * here included (ftrace's RCU tasks wait, see the top).
 */
u64 notrace pcore_direct_entry(unsigned long slot)
{
	struct pcore_probe *p;

	this_cpu_inc(pcore_direct_flight.in[slot]);
	p = READ_ONCE(pcore_direct_slots[slot]);
	if (unlikely(!p) || (p->filtered && !pcore_filter_pass(p)))
		return 0;
	pcore_hit_anycpu(p);
	return ktime_get_mono_fast_ns() | 1;
}
NOKPROBE_SYMBOL(pcore_direct_entry);

/*
 * After the body: the time since @stamp into the probe's histogram, or
 * its return handler's, given the value returned @rv.  The probe may have
 * gone meanwhile (then the slot is held: no other probe has it).
 */
void notrace pcore_direct_return(unsigned long slot, u64 stamp,
				 unsigned long rv)
{
	struct pcore_probe *p;

	preempt_disable_notrace();
	p = READ_ONCE(pcore_direct_slots[slot]);
	if (stamp && likely(p)) {
		u64 now = ktime_get_mono_fast_ns();
		/* The fast clock may step back by a hair across an update. */
		u64 ns = now > stamp ? now - stamp : 0;

		if (!p->ret)
			pcore_hist_add_nopreempt(p->hist, ns);
		else
			pcore_direct_ret(p, rv, ns);
	}
	__this_cpu_inc(pcore_direct_flight.out[slot]);
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(pcore_direct_return);

/*
 * A glob's timed call, as pcore_direct_entry(), from the site whose
 * return address is @ip: counted to its function, the stamp, or 0.
 */
u64 notrace pcore_direct_group_entry(unsigned long slot, unsigned long ip)
{
	struct pcore_probe *p;
	int i;

	this_cpu_inc(pcore_direct_flight.in[slot]);
	p = READ_ONCE(pcore_direct_slots[slot]);
	if (unlikely(!p) || (p->filtered && !pcore_filter_pass(p)))
		return 0;
	i = pcore_direct_group_find(p, ip);
	if (unlikely(i < 0))
		return 0;
	pcore_fg_hit_anycpu(p->fg, i);
	return ktime_get_mono_fast_ns() | 1;
}
NOKPROBE_SYMBOL(pcore_direct_group_entry);

/* After the body, as pcore_direct_return(): into @ip's function's. */
void notrace pcore_direct_group_return(unsigned long slot, u64 stamp,
				       unsigned long rv, unsigned long ip)
{
	struct pcore_probe *p;
	int i;

	preempt_disable_notrace();
	p = READ_ONCE(pcore_direct_slots[slot]);
	i = stamp && likely(p) ? pcore_direct_group_find(p, ip) : -1;
	if (i >= 0) {
		u64 now = ktime_get_mono_fast_ns();

		pcore_hist_add_nopreempt(p->fg->m[i].hist,
					 now > stamp ? now - stamp : 0);
	}
	__this_cpu_inc(pcore_direct_flight.out[slot]);
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(pcore_direct_group_return);

/*
 * Calls of trampoline @slot in flight, once no call can enter it (the
 * ftrace site let go of it, and every task that was in its way is past
 * the count in): the returns are summed first, so a call that returns
 * while they are summed is not taken for a call that never entered.
 */
static unsigned long pcore_direct_in_flight(unsigned int slot)
{
	unsigned long in = 0, out = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		out += READ_ONCE(per_cpu(pcore_direct_flight, cpu).out[slot]);
	/* Each return read follows its call's count in: read those after. */
	smp_rmb();
	for_each_possible_cpu(cpu)
		in += READ_ONCE(per_cpu(pcore_direct_flight, cpu).in[slot]);
	return in - out;
}

/* Calls of held slot @slot yet to return (those lost not counted). */
static unsigned long pcore_direct_pending(unsigned int slot)
{
	return pcore_direct_in_flight(slot) - READ_ONCE(pcore_direct_lost[slot]);
}

/*
 * Is @ret, the word a wrapping trampoline's frame holds for the site's
 * return address, that of a function of @slot's?  One function's, or
 * one of a glob's (a binary search of its sites).  @slot is held (what
 * this reads stays until the slot is let go) or live, under pcore_lock.
 */
static bool pcore_direct_frame_site_ok(unsigned int slot, unsigned long ret)
{
	const unsigned long *s = pcore_direct_sites[slot];
	unsigned long ip = ret - MCOUNT_INSN_SIZE;
	u32 lo = 0, hi = pcore_direct_nsites[slot];

	if (!s)
		return ip == pcore_direct_site[slot];
	while (lo < hi) {
		u32 mid = (lo + hi) >> 1;

		if (s[mid] == ip)
			return true;
		if (s[mid] < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* A glob's slot lets go of its functions' sites. */
static void pcore_direct_sites_free(unsigned int slot)
{
	kfree(pcore_direct_sites[slot]);
	pcore_direct_sites[slot] = NULL;
	pcore_direct_nsites[slot] = 0;
}

/*
 * What a look at every task's stack found, per held slot: the frames it
 * sent back, and the function of the first (ULONG_MAX: more than one, of
 * a glob); and where to send them.
 */
struct pcore_direct_scan {
	unsigned long frames[PCORE_DIRECT_SLOTS];
	unsigned long site[PCORE_DIRECT_SLOTS];
	unsigned long lo, hi;		/* the held slots' marks, [lo, hi] */
	unsigned long ret;		/* a return: __fentry__ */
};

/*
 * A return in the kernel's own text: __fentry__, whose body (under
 * dynamic ftrace) is only a return (v6.2+: and the call depth count of
 * a call, balanced by it).  Its first instruction is checked: an ENDBR,
 * a NOP or the depth count, then RET as the kernel patched it (ret, or a
 * jump to its return thunk).
 */
static unsigned long pcore_direct_ret_gadget(void)
{
	const u8 *ip = (const u8 *)__fentry__;

	if (ip[0] == 0xf3 && ip[1] == 0x0f && ip[2] == 0x1e && ip[3] == 0xfa)
		ip += 4;	/* endbr64 */
	switch (ip[0]) {
	case 0xc3:	/* ret */
	case 0xe9:	/* jmp to the return thunk */
	case 0x0f:	/* nopl: the depth count patched out */
	case 0x2e:	/* the same, with a %cs prefix */
	case 0x66:	/* nop with a prefix */
	case 0x90:	/* nop */
	case 0x65:	/* %gs: the depth count */
		return (unsigned long)__fentry__;
	}
	return 0;
}

/*
 * A wrapping trampoline's frame of held slot @slot at @sp (the mark, the
 * body's return address, at sp[0]) made to return straight to the
 * function's caller: the mark and the 9 words above it (see the
 * trampolines) become returns in the kernel's text, so the body returns
 * through ten of them, popping the frame, to the caller with its value in
 * %rax and %rdx.
 */
static void __no_sanitize_address
pcore_direct_send_frame(unsigned long *sp, unsigned int slot,
			struct pcore_direct_scan *sc)
{
	unsigned long site = pcore_direct_sites[slot] ?
			     sp[9] - MCOUNT_INSN_SIZE : pcore_direct_site[slot];
	unsigned int i;

	if (!sc->frames[slot]++)
		sc->site[slot] = site;
	else if (sc->site[slot] != site)
		sc->site[slot] = ULONG_MAX;
	for (i = 0; i < 10; i++)
		sp[i] = sc->ret;
}

/* The held slot whose mark @w is, or PCORE_DIRECT_SLOTS. */
static unsigned int pcore_direct_mark_slot(unsigned long w,
					   const struct pcore_direct_scan *sc)
{
	unsigned int slot;

	if (w < sc->lo || w > sc->hi)
		return PCORE_DIRECT_SLOTS;
	for_each_set_bit(slot, pcore_direct_held, PCORE_DIRECT_SLOTS)
		if (w == pcore_direct_back(slot))
			return slot;
	return PCORE_DIRECT_SLOTS;
}

/*
 * The frames of held slots on @t's stack, as the kernel's unwinder walks
 * it (ORC, as livepatch's consistency check does): each return address
 * it finds is a live frame's, so a mark it finds is a call inside the
 * wrapped function, whatever the body is (a livepatch's replacement is
 * entered in its place).  A mark in an interrupt's saved registers is a
 * call past its body (it returned): not sent.  Returns false if the
 * unwinder could not walk the whole stack.
 */
static bool __no_sanitize_address
pcore_direct_unwind_task(struct task_struct *t, struct pcore_direct_scan *sc)
{
#ifdef CONFIG_UNWINDER_ORC
	struct unwind_state state;
	unsigned long *ret;
	unsigned int slot;

	for (unwind_start(&state, t, NULL, NULL); !unwind_done(&state);
	     unwind_next_frame(&state)) {
		slot = pcore_direct_mark_slot(unwind_get_return_address(&state),
					      sc);
		if (slot == PCORE_DIRECT_SLOTS || state.regs || !state.sp)
			continue;
		ret = (unsigned long *)state.sp - 1;
		if (*ret == pcore_direct_back(slot))
			pcore_direct_send_frame(ret, slot, sc);
	}
	return !unwind_error(&state);
#else
	return false;
#endif
}

/*
 * Without the unwinder: every word of @t's stack from its stack pointer
 * up.  A mark is taken for a frame only with the function's site's
 * return address 9 words above it (one of a glob's: see
 * pcore_direct_frame_site_ok()), or any body if the slot shared its
 * function with a livepatch (its replacement is the body: see
 * pcore_direct_ops_func()); a stale copy of a whole frame left in a
 * live frame's unused words would be taken too: hence the unwinder
 * first.
 */
static void __no_sanitize_address
pcore_direct_scan_words(struct task_struct *t, struct pcore_direct_scan *sc)
{
	unsigned long *stack = task_stack_page(t), *sp, *end;
	unsigned int slot;

	sp = (unsigned long *)t->thread.sp;
	end = stack + THREAD_SIZE / sizeof(*stack);
	if (sp < stack || sp >= end)
		return;
	for (; sp + 9 < end; sp++) {
		slot = pcore_direct_mark_slot(*sp, sc);
		if (slot != PCORE_DIRECT_SLOTS &&
		    (pcore_direct_frame_site_ok(slot, sp[9]) ||
		     test_bit(slot, pcore_direct_shared)))
			pcore_direct_send_frame(sp, slot, sc);
	}
}

/*
 * The wrapping trampolines' frames of held slots on @t's stack, sent
 * back to their callers.  @t does not run (stop_machine()), nor exits:
 * its stack stays (a task's goes after it exited, exit_state set).
 * Other tasks' stacks: no KASAN redzone of theirs is ours to check.
 */
static void pcore_direct_scan_task(struct task_struct *t,
				   struct pcore_direct_scan *sc)
{
	if (t->exit_state || t == current || !task_stack_page(t))
		return;
	if (!pcore_direct_unwind_task(t, sc))
		pcore_direct_scan_words(t, sc);
}

/*
 * stop_machine(): no task runs and no stack changes.  Every call of a
 * held slot in flight is now sent back, or its task died inside the
 * function (e.g. in do_exit()): none will return through the trampoline.
 */
static int pcore_direct_scan_all(void *arg)
{
	struct pcore_direct_scan *sc = arg;
	struct task_struct *g, *t;
	unsigned int slot;

	rcu_read_lock();
	for_each_process_thread(g, t)
		pcore_direct_scan_task(t, sc);
	rcu_read_unlock();
	for_each_set_bit(slot, pcore_direct_held, PCORE_DIRECT_SLOTS)
		WRITE_ONCE(pcore_direct_lost[slot],
			   pcore_direct_in_flight(slot));
	return 0;
}

/*
 * Send the calls in flight of held slots back to their callers, with the
 * machine stopped for it (a few milliseconds): only at a detach or an
 * unload with calls of a timing probe inside its function.  One line
 * says how many, inside which function.  Without memory, or a return
 * to send them through, the calls are waited for.
 */
static void pcore_direct_send_back(void)
{
	struct pcore_direct_scan *sc;
	unsigned int slot;

	sc = kzalloc(sizeof(*sc), GFP_KERNEL);
	if (!sc)
		return;
	sc->ret = pcore_direct_ret_gadget();
	if (!sc->ret) {
		kfree(sc);
		return;
	}
	sc->lo = ULONG_MAX;
	for_each_set_bit(slot, pcore_direct_held, PCORE_DIRECT_SLOTS) {
		sc->lo = min(sc->lo, pcore_direct_back(slot));
		sc->hi = max(sc->hi, pcore_direct_back(slot));
	}
	stop_machine(pcore_direct_scan_all, sc, NULL);
	for_each_set_bit(slot, pcore_direct_held, PCORE_DIRECT_SLOTS)
		if (sc->frames[slot] && sc->site[slot] == ULONG_MAX)
			pr_info("%lu calls inside functions of a glob, of a timing probe removed, return to their callers untimed\n",
				sc->frames[slot]);
		else if (sc->frames[slot])
			pr_info("%lu call%s inside %ps, of a timing probe removed, return%s to %s caller%s untimed\n",
				sc->frames[slot],
				sc->frames[slot] == 1 ? "" : "s",
				(void *)sc->site[slot],
				sc->frames[slot] == 1 ? "s" : "",
				sc->frames[slot] == 1 ? "its" : "their",
				sc->frames[slot] == 1 ? "" : "s");
	kfree(sc);
}

/*
 * Let the held slots go: their calls in flight sent back to their callers
 * (or, if that could not be done, returned), and a task RCU grace period
 * later none is on a trampoline's last instructions either (a call past
 * its body when the stacks were looked at, preempted before it counted
 * itself out, was taken for one sent back: it has counted itself out
 * since).  Returns whether slots are still held.
 */
static bool pcore_direct_reap_held(void)
{
	DECLARE_BITMAP(done, PCORE_DIRECT_SLOTS) = { };
	bool pending = false;
	unsigned int slot;

	for_each_set_bit(slot, pcore_direct_held, PCORE_DIRECT_SLOTS)
		pending |= pcore_direct_pending(slot) != 0;
	if (pending)
		pcore_direct_send_back();
	for_each_set_bit(slot, pcore_direct_held, PCORE_DIRECT_SLOTS)
		if (!pcore_direct_pending(slot))
			__set_bit(slot, done);
	if (!bitmap_empty(done, PCORE_DIRECT_SLOTS)) {
		synchronize_rcu_tasks();
		/*
		 * No call of theirs is left on their trampolines: the counts
		 * hold still, and are where the slots' next probes start.
		 */
		for_each_set_bit(slot, done, PCORE_DIRECT_SLOTS) {
			WRITE_ONCE(pcore_direct_lost[slot],
				   pcore_direct_in_flight(slot));
			pcore_direct_sites_free(slot);
			clear_bit(slot, pcore_direct_held);
		}
	}
	return !bitmap_empty(pcore_direct_held, PCORE_DIRECT_SLOTS);
}

static void pcore_direct_reap(struct work_struct *work)
{
	if (pcore_direct_reap_held())
		schedule_delayed_work(&pcore_direct_reap_work,
				      msecs_to_jiffies(PCORE_DIRECT_REAP_MS));
}


/* Where @p->symbol's ftrace call site is: kprobes resolve it, disabled. */
static int pcore_direct_resolve(struct pcore_probe *p)
{
	struct kprobe kp = {
		.symbol_name = p->symbol, .flags = KPROBE_FLAG_DISABLED,
	};
	int ret = register_kprobe(&kp);

	if (ret)
		return ret;
	p->dp.ip = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	return 0;
}

/* The trampoline of @p's slot: a counting or a wrapping one. */
static unsigned long pcore_direct_addr(const struct pcore_probe *p)
{
	return p->kind == PCORE_PROBE_DIRECT_RET ?
	       pcore_direct_wraps[p->dp.slot] : pcore_direct_tramps[p->dp.slot];
}

/*
 * A function no direct call can take (a kprobe may): the reason in
 * *@o->why if the caller wants it, else one log line.
 */
static __printf(5, 6)
int pcore_direct_refuse(struct pcore_probe *p,
			const struct pcore_direct_opts *o, int err,
			const char *why, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (o->why) {
		*o->why = why;
		return err;
	}
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pcore_perr(p, "%pV", &vaf);
	va_end(args);
	return err;
}

/*
 * The kernel's BTF, opened for the attaches of a while: a target= list
 * or a glob asks about many functions, and each open reads and indexes
 * megabytes.  Under pcore_lock; let go a few seconds after its last use.
 */
static struct pcore_btf pcore_direct_btf;
static void *pcore_direct_btf_blob;
static void pcore_direct_btf_put(struct work_struct *work);
static DECLARE_DELAYED_WORK(pcore_direct_btf_work, pcore_direct_btf_put);
#define PCORE_DIRECT_BTF_KEEP_MS	2000

static void pcore_direct_btf_free(void)
{
	if (!pcore_direct_btf_blob)
		return;
	pcore_btf_close(&pcore_direct_btf);
	vfree(pcore_direct_btf_blob);
	pcore_direct_btf_blob = NULL;
}

static void pcore_direct_btf_put(struct work_struct *work)
{
	mutex_lock(&pcore_lock);
	pcore_direct_btf_free();
	mutex_unlock(&pcore_lock);
}

/* Under pcore_lock: the kernel's BTF, or an error (-ENOENT: none). */
static int pcore_direct_btf_get(char *why, size_t whylen)
{
	size_t len;
	void *blob;
	int ret;

	lockdep_assert_held(&pcore_lock);
	if (!pcore_direct_btf_blob) {
		blob = pcore_btf_vmlinux(&len);
		if (IS_ERR(blob)) {
			snprintf(why, whylen, "no BTF to read (%pe)", blob);
			return PTR_ERR(blob);
		}
		ret = pcore_btf_open(&pcore_direct_btf, blob, len, why, whylen);
		if (ret) {
			vfree(blob);
			return ret;
		}
		pcore_direct_btf_blob = blob;
	}
	mod_delayed_work(system_wq, &pcore_direct_btf_work,
			 msecs_to_jiffies(PCORE_DIRECT_BTF_KEEP_MS));
	return 0;
}

/*
 * Can a wrapping trampoline of @p call function @sym's body?  Only if all
 * its arguments come in registers (the body would find the trampoline's
 * frame where its stack arguments should be), as the kernel's BTF says.
 * The x86-64 system call wrappers (__x64_sys_*, and __ia32_sys_* for
 * 32-bit tasks) take one, a struct pt_regs pointer, by construction
 * (asm/syscall_wrapper.h; those without arguments are aliases BTF does
 * not name): no BTF is read for them, the most common targets (megabytes
 * read a page a time, at every load).
 */
static int pcore_direct_check_regs(struct pcore_probe *p,
				   const struct pcore_direct_opts *o,
				   const char *sym)
{
	char why[PCORE_BTF_WHY_MAX];
	int ret;

	if (!pcore_direct_ret_gadget())
		return pcore_direct_refuse(p, o, -EOPNOTSUPP,
			"no return to send calls in flight back through",
			"%s: this kernel's __fentry__ (%*ph) is not a return, through which a removed probe's calls in flight would go back to their callers",
			sym, 8, (const void *)__fentry__);
	if (str_has_prefix(sym, "__x64_sys_") ||
	    str_has_prefix(sym, "__ia32_sys_"))
		return 0;
	ret = pcore_direct_btf_get(why, sizeof(why));
	if (ret == -ENOENT)
		return pcore_direct_refuse(p, o, -EOPNOTSUPP,
			"the kernel has no BTF to read its prototype from",
			"%s: the kernel has no BTF to read its prototype from (%s): a trampoline can only time a function whose arguments are all in registers",
			sym, why);
	if (ret)
		return pcore_direct_refuse(p, o, ret,
			"the kernel's BTF could not be read",
			"%s: the kernel's BTF could not be read: %s",
			sym, why);
	ret = pcore_btf_regs(&pcore_direct_btf, sym, NULL, why,
			     sizeof(why));
	if (ret == -ENOENT)
		return pcore_direct_refuse(p, o, -ENOENT,
			"its prototype is not in BTF",
			"%s: its prototype is not in the kernel's BTF: a trampoline can only time a function whose arguments are all in registers",
			sym);
	if (ret == -E2BIG)
		return pcore_direct_refuse(p, o, -E2BIG,
			"arguments on the stack",
			"%s: %s: a trampoline can only time a function whose arguments are all in registers",
			sym, why);
	if (ret)
		return pcore_direct_refuse(p, o, ret,
			"its prototype is not all in registers",
			"%s: %s: a trampoline can only time a function whose arguments are all in registers",
			sym, why);
	return 0;
}

#ifdef PCORE_HAVE_DIRECT_SHARE
/*
 * Sharing the function with an ftrace user that moves the instruction
 * pointer (FTRACE_OPS_FL_IPMODIFY): a livepatch, which sends the call to
 * its replacement, or a kprobe with a post handler (fail_function's
 * error injection, whose handler sends it to a bare return).  ftrace
 * asks us when such a user comes to our function (_PEER) or we come to
 * its (_SELF), in either order; without this answer it refuses the
 * second with -EBUSY, and a probe left loaded for weeks would block a
 * livepatch of the function it probes.
 *
 * Both kinds share.  With both on the site, the site calls ftrace's
 * generic entry (ftrace_regs_caller), which runs the other user's
 * handler, then makes the return address of its call the instruction
 * pointer as that handler left it, and enters our trampoline as if the
 * site had called it with that return address.  So our trampolines go
 * where the other user sends the call, as they never name the body but
 * take it from the stack: a counting one counts and returns into the
 * replacement; a wrapping one calls the replacement as the body and
 * times it (BPF's trampolines do the same with BPF_TRAMP_F_ORIG_STACK,
 * and are rebuilt for it; ours need not be).  A frame of a wrapping
 * trampoline inside a replacement is the same as one inside the
 * function, except for the body's word, 9 above the mark: the
 * replacement's address (klp_func.new_func) instead of site + 5; the
 * slot is marked shared (pcore_direct_shared) for the stack scan of
 * detach.  A livepatch disabled or removed meanwhile leaves that word
 * stale, never read again: the body's return comes back to the mark,
 * and the replacement's text is kept until no task is inside it
 * (livepatch's own consistency model, which unwinds through our frames).
 *
 * ftrace holds its direct_mutex (and for _SELF its ftrace_lock) here:
 * nothing of ours is locked (pcore_lock is taken before those).
 */
static int pcore_direct_share(unsigned int slot, enum ftrace_ops_cmd cmd)
{
	switch (cmd) {
	case FTRACE_OPS_CMD_ENABLE_SHARE_IPMODIFY_SELF:
	case FTRACE_OPS_CMD_ENABLE_SHARE_IPMODIFY_PEER:
		set_bit(slot, pcore_direct_shared);
		return 0;
	case FTRACE_OPS_CMD_DISABLE_SHARE_IPMODIFY_PEER:
		/* calls entered meanwhile may still be in a replacement */
		return 0;
	}
	return -EBUSY;	/* a later kernel's question: share nothing unknown */
}

static int pcore_direct_ops_func(struct ftrace_ops *ops,
				 enum ftrace_ops_cmd cmd)
{
	return pcore_direct_share(container_of(ops, struct pcore_probe,
					       dp.ops)->dp.slot, cmd);
}

/* The same for a glob's ops: any of its functions may be shared. */
static int pcore_direct_group_ops_func(struct ftrace_ops *ops,
				       enum ftrace_ops_cmd cmd)
{
	return pcore_direct_share(container_of(ops, struct pcore_fgroup,
					       ops)->slot, cmd);
}
#endif

static int pcore_direct_check(struct pcore_probe *p,
			      const struct pcore_direct_opts *o)
{
	if (p->kind != PCORE_PROBE_DIRECT_RET)
		return 0;
	return pcore_direct_check_regs(p, o, p->symbol);
}

/* Under pcore_lock: a free slot, its trampoline on @p's function. */
static int pcore_direct_arm(struct pcore_probe *p, const void *opts)
{
	const struct pcore_direct_opts *o = opts;
	char where[KSYM_SYMBOL_LEN];
	int ret, slot;

	ret = pcore_register_aliased(p, o->symbol, pcore_direct_resolve);
	if (ret)
		return ret;
	/*
	 * Not a module's function: when its module goes, ftrace forgets the
	 * site but not our filter, which another module's function at the
	 * same address would then match.  %pS names the module, if any.
	 */
	snprintf(where, sizeof(where), "%pS", (void *)p->dp.ip);
	if (strchr(where, '[')) {
		p->dp.ip = 0;
		return pcore_direct_refuse(p, o, -EINVAL, "a module's function",
			"%s is a module's function: mechanism=direct takes the kernel's only",
			p->symbol);
	}
	ret = pcore_direct_check(p, o);
	if (ret) {
		p->dp.ip = 0;
		return ret;
	}
	/* One direct call per function: ftrace would say -EBUSY. */
	for (slot = 0; slot < PCORE_DIRECT_SLOTS; slot++)
		if (pcore_direct_slots[slot] &&
		    pcore_direct_slots[slot]->dp.ip == p->dp.ip) {
			p->dp.ip = 0;
			return pcore_direct_refuse(p, o, -EBUSY,
				"another probe of probe_core's has it",
				"%s: probe %s has its direct call (one per function)",
				p->symbol, pcore_direct_slots[slot]->name);
		}
	/* Not a slot whose calls of a probe gone are still in flight. */
	for (slot = 0; slot < PCORE_DIRECT_SLOTS; slot++)
		if (!pcore_direct_slots[slot] &&
		    !test_bit(slot, pcore_direct_held))
			break;
	if (slot == PCORE_DIRECT_SLOTS) {
		p->dp.ip = 0;
		return pcore_direct_refuse(p, o, -ENOSPC,
			"every trampoline in use",
			"all %d direct-call trampolines in use",
			PCORE_DIRECT_SLOTS);
	}
#ifdef PCORE_HAVE_DIRECT_SHARE
	p->dp.ops.ops_func = pcore_direct_ops_func;
#endif
	clear_bit(slot, pcore_direct_shared);
	ret = ftrace_set_filter_ip(&p->dp.ops, p->dp.ip, 0, 0);
	if (ret)
		return pcore_direct_refuse(p, o, ret, "ftrace cannot trace it",
			"ftrace cannot trace %s (%pe)", p->symbol,
			ERR_PTR(ret));
	p->dp.slot = slot;
	pcore_direct_site[slot] = p->dp.ip;
	if (pcore_direct_is_plain(p))
		WRITE_ONCE(pcore_direct_plain[slot], p->hist);
	/* Before the trampoline can run: it finds the probe by its slot. */
	WRITE_ONCE(pcore_direct_slots[slot], p);
	ret = pcore_ftrace_direct_register(&p->dp.ops, pcore_direct_addr(p));
	if (ret) {
		WRITE_ONCE(pcore_direct_plain[slot], NULL);
		WRITE_ONCE(pcore_direct_slots[slot], NULL);
		return pcore_direct_refuse(p, o, ret,
			ret == -EBUSY ? "another direct user (a BPF trampoline?) has it" :
					"ftrace refused it",
			"ftrace refused a direct call on %s (%pe)%s",
			p->symbol, ERR_PTR(ret),
			ret == -EBUSY ? ": another direct user (a BPF trampoline?) has it" : "");
	}
	return ret;
}

static void pcore_direct_off(struct pcore_probe *p)
{
	pcore_ftrace_direct_unregister(&p->dp.ops, pcore_direct_addr(p));
}

/*
 * Unregistering waits until no task is on its way into the trampoline
 * (see the top); then the slot is let go.  A wrapping one's is held
 * first: calls may still be inside the function (pcore_direct_release()).
 */
static u32 pcore_direct_disarm(struct pcore_probe *p, struct pcore_batch *b)
{
	if (!p->armed)
		return 0;
	if (!p->disabled)
		pcore_direct_off(p);
	if (p->kind == PCORE_PROBE_DIRECT_RET)
		set_bit(p->dp.slot, pcore_direct_held);
	WRITE_ONCE(pcore_direct_plain[p->dp.slot], NULL);
	WRITE_ONCE(pcore_direct_slots[p->dp.slot], NULL);
	return PCORE_SYNC_RCU;
}

/*
 * The filter, once the probe is off for good (set from its arm on:
 * ftrace_free_filter() leaves dangling pointers, so nothing reuses the
 * ops after it).  A wrapping probe's calls still in flight are sent back
 * to their callers, and its slot let go, by pcore_direct_reap(): the
 * detach itself does not wait for them (a task may be blocked in the
 * function for good).
 */
static void pcore_direct_release(struct pcore_probe *p)
{
	if (!p->dp.ip)
		return;
	ftrace_free_filter(&p->dp.ops);
	if (p->armed && p->kind == PCORE_PROBE_DIRECT_RET)
		mod_delayed_work(system_wq, &pcore_direct_reap_work, 0);
}

static int pcore_direct_set_enabled(struct pcore_probe *p, bool on)
{
	int ret;

	if (!on) {
		pcore_direct_off(p);
		return 0;
	}
	/* Again: it initializes the ops, as a register before v6.5 wants. */
	ret = ftrace_set_filter_ip(&p->dp.ops, p->dp.ip, 0, 0);
	return ret ?: pcore_ftrace_direct_register(&p->dp.ops,
						   pcore_direct_addr(p));
}

/*
 * Its hits: the histogram's count since creation.  Under pcore_lock; takes
 * the histogram's lock after it (the order funcs.c's notifier takes them
 * in), so a list of the probes may wait for a harvest's grace period.
 */
static u64 pcore_direct_hits(const struct pcore_probe *p,
			     const struct pcore_hist *unused)
{
	struct pcore_hist *h = p->hist;
	u64 n;

	if (!pcore_direct_is_plain(p))
		return pcore_pcpu_sum(p->hits);
	mutex_lock(&h->lock);
	pcore_hist_read_total(h, h->scratch);
	n = h->scratch->count;
	mutex_unlock(&h->lock);
	return n;
}

static const struct pcore_probe_ops pcore_direct_ops = {
	.kind = PCORE_PROBE_DIRECT,
	.name_chars = "-",
	.hits = pcore_direct_hits,
	.arm = pcore_direct_arm,
	.disarm = pcore_direct_disarm,
	.release = pcore_direct_release,
	.set_enabled = pcore_direct_set_enabled,
};

static const struct pcore_probe_ops pcore_direct_ret_ops = {
	.kind = PCORE_PROBE_DIRECT_RET,
	.name_chars = "-",
	.arm = pcore_direct_arm,
	.disarm = pcore_direct_disarm,
	.release = pcore_direct_release,
	.set_enabled = pcore_direct_set_enabled,
};

/*
 * Globs (funcs.c's %PCORE_PROBE_DIRECT_FUNCS probes): one slot, one
 * trampoline (the slot's glob one) and one ftrace_ops for all the
 * functions a glob matched, filtered to each one's ftrace call,
 * registered once.  The hot paths tell the functions apart by the
 * site's return address (pcore_direct_group_find()); the slot keeps the
 * sorted sites while it is live, and a timing glob's while it is held,
 * for the stacks' scan (pcore_direct_back(), pcore_direct_frame_site_ok()).
 */

/* The glob trampoline of @g's slot: a counting or a wrapping one. */
static unsigned long pcore_direct_group_addr(const struct pcore_fgroup *g)
{
	return g->flags & PCORE_FUNCS_COUNT ? pcore_direct_gtramps[g->slot] :
					      pcore_direct_gwraps[g->slot];
}

/*
 * Function @fn of a glob refused with @err: under mechanism=auto (@why
 * given), "<function>: <reason>" in @why, for the fprobe or kprobes that
 * take the glob instead; else pcore_direct_refuse() logged it.
 */
static int pcore_direct_group_refused(int err, const char *fn,
				      const char *reason, char *why,
				      size_t len)
{
	if (why && reason)
		snprintf(why, len, "%s%s%s", fn ?: "", fn ? ": " : "", reason);
	return err;
}

/* A function of @g that another of our live slots has, or NULL. */
static const char *pcore_direct_group_busy(const struct pcore_fgroup *g)
{
	unsigned int slot, i;

	for (slot = 0; slot < PCORE_DIRECT_SLOTS; slot++) {
		if (!pcore_direct_slots[slot] || pcore_direct_slots[slot] == g->p)
			continue;
		for (i = 0; i < g->n; i++)
			if (pcore_direct_frame_site_ok(slot, g->m[i].addr +
							      MCOUNT_INSN_SIZE))
				return g->m[i].name;
	}
	return NULL;
}

/*
 * Under pcore_lock: a free slot, its trampoline on every function of
 * @p's group, or an error naming the first function (by address) no
 * direct call can take and why: logged, or with @why (mechanism=auto)
 * written there instead, for the caller to take its fprobe or kprobes.
 */
int pcore_direct_group_arm(struct pcore_probe *p, char *why, size_t len)
{
	struct pcore_fgroup *g = p->fg;
	bool wrap = !(g->flags & PCORE_FUNCS_COUNT);
	const char *reason = NULL, *fn;
	const struct pcore_direct_opts o = { .why = why ? &reason : NULL };
	char where[KSYM_SYMBOL_LEN];
	unsigned int i, slot;
	unsigned long *ips;
	int ret;

	lockdep_assert_held(&pcore_lock);
	if (g->n > PCORE_DIRECT_FUNCS_MAX) {
		ret = pcore_direct_refuse(p, &o, -E2BIG,
			"more functions than this kernel's ftrace registers at once",
			"%u functions, more than the %d this kernel's ftrace registers at once as direct calls (before v6.7 more leak its table of them)",
			g->n, PCORE_DIRECT_FUNCS_MAX);
		return pcore_direct_group_refused(ret, NULL, reason, why, len);
	}
	for (i = 0; i < g->n; i++) {
		fn = g->m[i].name;
		/* Not a module's function: see pcore_direct_arm(). */
		snprintf(where, sizeof(where), "%pS", (void *)g->m[i].addr);
		if (strchr(where, '['))
			ret = pcore_direct_refuse(p, &o, -EINVAL,
				"a module's function",
				"%s is a module's function: mechanism=direct takes the kernel's only",
				fn);
		else
			ret = wrap ? pcore_direct_check_regs(p, &o, fn) : 0;
		if (ret)
			return pcore_direct_group_refused(ret, fn, reason, why,
							  len);
	}
	for (slot = 0; slot < PCORE_DIRECT_SLOTS; slot++)
		if (!pcore_direct_slots[slot] &&
		    !test_bit(slot, pcore_direct_held))
			break;
	if (slot == PCORE_DIRECT_SLOTS) {
		ret = pcore_direct_refuse(p, &o, -ENOSPC,
			"every trampoline in use",
			"all %d direct-call trampolines in use",
			PCORE_DIRECT_SLOTS);
		return pcore_direct_group_refused(ret, NULL, reason, why, len);
	}
	ips = kmalloc_array(g->n, sizeof(*ips), GFP_KERNEL | __GFP_NOWARN);
	if (!ips) {
		pcore_perr(p, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < g->n; i++)
		ips[i] = g->m[i].addr;
	g->ips_set = true;
	ret = pcore_ftrace_set_filter_ips(&g->ops, ips, g->n);
	if (ret) {
		/* Which one: one at a time (the ops goes with the probe). */
		for (i = 0; i < g->n; i++)
			if (ftrace_set_filter_ip(&g->ops, ips[i], 0, 0))
				break;
		fn = i < g->n ? g->m[i].name : "one of its functions";
		kfree(ips);
		ret = pcore_direct_refuse(p, &o, ret, "ftrace cannot trace it",
			"ftrace cannot trace %s (%pe)", fn, ERR_PTR(ret));
		return pcore_direct_group_refused(ret, fn, reason, why, len);
	}
	g->slot = slot;
#ifdef PCORE_HAVE_DIRECT_SHARE
	g->ops.ops_func = pcore_direct_group_ops_func;
#endif
	clear_bit(slot, pcore_direct_shared);
	pcore_direct_sites[slot] = ips;
	pcore_direct_nsites[slot] = g->n;
	/* Before the trampoline can run: it finds the probe by its slot. */
	WRITE_ONCE(pcore_direct_slots[slot], p);
	ret = pcore_ftrace_direct_register(&g->ops, pcore_direct_group_addr(g));
	if (!ret)
		return 0;
	WRITE_ONCE(pcore_direct_slots[slot], NULL);
	fn = ret == -EBUSY ? pcore_direct_group_busy(g) : NULL;
	pcore_direct_sites_free(slot);
	if (ret != -EBUSY) {
		ret = pcore_direct_refuse(p, &o, ret, "ftrace refused it",
			"ftrace refused a direct call on its %u functions (%pe)",
			g->n, ERR_PTR(ret));
		return pcore_direct_group_refused(ret, NULL, reason, why, len);
	}
	fn = fn ?: "one of its functions";
	ret = pcore_direct_refuse(p, &o, ret,
		"another direct user (a BPF trampoline?) has it",
		"ftrace refused a direct call on %s (%pe): another direct user (a BPF trampoline?) has it",
		fn, ERR_PTR(ret));
	return pcore_direct_group_refused(ret, fn, reason, why, len);
}

/*
 * Unregistering waits until no task is on its way into the trampoline;
 * then the slot is let go, a timing glob's held first (calls may still
 * be inside its functions: pcore_direct_reap()).
 */
u32 pcore_direct_group_disarm(struct pcore_probe *p, struct pcore_batch *b)
{
	struct pcore_fgroup *g = p->fg;

	if (!p->armed)
		return 0;
	if (!p->disabled)
		pcore_ftrace_direct_unregister(&g->ops,
					       pcore_direct_group_addr(g));
	if (!(g->flags & PCORE_FUNCS_COUNT))
		set_bit(g->slot, pcore_direct_held);
	WRITE_ONCE(pcore_direct_slots[g->slot], NULL);
	if (g->flags & PCORE_FUNCS_COUNT)
		pcore_direct_sites_free(g->slot);
	return PCORE_SYNC_RCU;
}

/*
 * The filter, once the probe is off for good (the group goes after it:
 * funcs.c); a timing glob's calls still in flight go back to their
 * callers, and its slot is let go, by pcore_direct_reap() (see
 * pcore_direct_release()).
 */
void pcore_direct_group_release(struct pcore_probe *p)
{
	struct pcore_fgroup *g = p->fg;

	if (g && g->ips_set)
		ftrace_free_filter(&g->ops);
	if (g && p->armed && !(g->flags & PCORE_FUNCS_COUNT))
		mod_delayed_work(system_wq, &pcore_direct_reap_work, 0);
}

int pcore_direct_group_set_enabled(struct pcore_probe *p, bool on)
{
	struct pcore_fgroup *g = p->fg;
	int ret;

	if (!on) {
		pcore_ftrace_direct_unregister(&g->ops,
					       pcore_direct_group_addr(g));
		return 0;
	}
	/* Again: it initializes the ops, as a register before v6.5 wants. */
	ret = pcore_ftrace_set_filter_ips(&g->ops, pcore_direct_sites[g->slot],
					  g->n);
	return ret ?: pcore_ftrace_direct_register(&g->ops,
						   pcore_direct_group_addr(g));
}

/**
 * pcore_direct_attach() - count or time a function's calls through a
 *	direct call
 * @c: the client it belongs to
 * @o: what to attach; see struct pcore_direct_opts
 *
 * Sleeps.
 *
 * Return: the probe, or ERR_PTR(-EINVAL) for bad options or a function
 * ftrace cannot trace, ERR_PTR(-ENOENT) for an unknown symbol,
 * ERR_PTR(-EBUSY) when another direct user has the function,
 * ERR_PTR(-ENOSPC) when every trampoline is taken, ERR_PTR(-EEXIST) when
 * the client has a probe of that name; with %PCORE_DIRECT_RET,
 * ERR_PTR(-E2BIG) for a function with arguments on the stack and
 * ERR_PTR(-ENOENT) for one whose prototype the kernel's BTF does not
 * have; one log line says which.
 */
struct pcore_probe *pcore_direct_attach(struct pcore_client *c,
					const struct pcore_direct_opts *o)
{
	bool wrap = o->flags & PCORE_DIRECT_RET;
	struct pcore_probe *p;
	int ret;

	ret = pcore_check_args("direct", c, o);
	if (ret)
		return ERR_PTR(ret);
	p = pcore_probe_new(c, wrap ? &pcore_direct_ret_ops : &pcore_direct_ops,
			    o->name, o->symbol ?: "direct", o->hist, o->priv,
			    &o->filter);
	if (IS_ERR(p))
		return p;
	p->ret = wrap ? o->ret : NULL;
	p->pre = wrap ? NULL : o->pre;
	ret = -EINVAL;
	if (o->flags & ~PCORE_DIRECT_RET)
		pcore_perr(p, "unknown flags %#x", o->flags);
	else if ((wrap && o->pre) || (!wrap && o->ret))
		pcore_perr(p, "a %s handler for a %s probe", o->pre ? "pre" : "ret",
			   wrap ? "timing" : "counting");
	else if (!o->hist && !p->ret && !p->pre)
		pcore_perr(p, "no hist to count calls into");
	else if (!o->symbol)
		pcore_perr(p, "no symbol");
	else
		ret = pcore_check_symbol(p, o->symbol);
	return pcore_probe_add(p, o, ret);
}

/**
 * pcore_direct_cleanup() - let the trampolines go at unload
 *
 * At unload, or after a load that failed: every probe is gone; the BTF
 * they read is let go, and the calls still inside a wrapped function
 * are sent back to their callers (the trampolines' text goes with the
 * module).  If they could not be (no memory), they are waited for,
 * which a line says every 10 seconds.  Sleeps.
 */
void pcore_direct_cleanup(void)
{
	unsigned int waits = 0, slot;
	unsigned long n;

	cancel_delayed_work_sync(&pcore_direct_btf_work);
	pcore_direct_btf_free();
	cancel_delayed_work_sync(&pcore_direct_reap_work);
	while (pcore_direct_reap_held()) {
		if (!(waits++ % (10000 / PCORE_DIRECT_REAP_MS))) {
			n = 0;
			for_each_set_bit(slot, pcore_direct_held,
					 PCORE_DIRECT_SLOTS)
				n += pcore_direct_pending(slot);
			pr_warn("unloading waits for %lu calls in flight in wrapped functions\n",
				n);
		}
		schedule_timeout_idle(msecs_to_jiffies(PCORE_DIRECT_REAP_MS));
	}
}

#else /* !PCORE_HAVE_DIRECT */

void pcore_direct_cleanup(void)
{
}

#endif /* PCORE_HAVE_DIRECT */
