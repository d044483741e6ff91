// SPDX-License-Identifier: GPL-2.0
/*
 * Direct-call probes: a function's calls counted from its ftrace call
 * site, through a trampoline of probe_core's own, the way BPF trampolines
 * are entered (ftrace "direct calls"), instead of a kprobe's breakpoint or
 * ftrace's generic handler.
 *
 * How.  Every traceable function starts with a call to __fentry__ that
 * ftrace patches.  register_ftrace_direct() patches it into a call to a
 * trampoline instead; the trampoline saves the argument registers, calls
 * pcore_direct_hit() with its slot number, restores them and returns into
 * the function.  A module cannot make
 * code at run time (no executable allocation or text_poke() is exported),
 * so the trampolines are made here, one per slot (PCORE_DIRECT_SLOTS of
 * them in this file's text), and a probe takes a free slot: the slot
 * number in the trampoline's code finds the probe, one load.
 *
 * Safety.  The handler runs in the function's own context, preemptible or
 * not, and holds preemption off while it counts; it does not recurse
 * (see pcore_direct_hit()).  Unregistering waits until no task is inside
 * the trampoline (ftrace's shutdown of an ops of a module waits for RCU
 * tasks: a task preempted in the trampoline has left it); only then does
 * the probe leave its slot, which another probe may take.
 *
 * Only counting (target=F:count) comes this way for now; a function
 * ftrace cannot trace, or one that another direct user (a BPF trampoline)
 * already has (-EBUSY), is refused with a log line, and the caller may
 * fall back to a kprobe.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/stringify.h>
#include "pcore.h"

#ifdef PCORE_HAVE_DIRECT

#include <asm/ibt.h>
#include <asm/nospec-branch.h>

#ifndef CALL_DEPTH_ACCOUNT
#define CALL_DEPTH_ACCOUNT	""	/* no call depth tracking before v6.2 */
#endif

/* One trampoline for each of probe_core's own probes: none waits for one. */
static_assert(PCORE_DIRECT_SLOTS == PCORE_MAX_PROBES);

static struct pcore_probe *pcore_direct_slots[PCORE_DIRECT_SLOTS];

/*
 * The trampolines, one per slot, pcore_direct_tramp_<slot>: entered by
 * the call at a function's ftrace site, with the function's arguments in
 * their registers and its return address above ours.  The frame pointer
 * set up first lets the unwinder walk through it.  64 bytes pushed: the
 * call below is made with the stack as aligned as at the site's call.
 * pcore_direct_tramps[] holds their addresses.
 */
asm(
"	.pushsection .text, \"ax\", @progbits\n"
"	.macro pcore_direct_tramp slot\n"
"	.globl pcore_direct_tramp_\\slot\n"
"	.type pcore_direct_tramp_\\slot, @function\n"
"pcore_direct_tramp_\\slot:\n"
	ASM_ENDBR
"	pushq %rbp\n"
"	movq %rsp, %rbp\n"
	CALL_DEPTH_ACCOUNT
"	pushq %rdi\n	pushq %rsi\n	pushq %rdx\n	pushq %rcx\n"
"	pushq %r8\n	pushq %r9\n	pushq %rax\n"
"	movl $\\slot, %edi\n"
"	call pcore_direct_hit\n"
"	popq %rax\n	popq %r9\n	popq %r8\n	popq %rcx\n"
"	popq %rdx\n	popq %rsi\n	popq %rdi\n"
"	leave\n"
	ASM_RET
"	.size pcore_direct_tramp_\\slot, .-pcore_direct_tramp_\\slot\n"
"	.endm\n"
"	.macro pcore_direct_addr slot\n"
"	.quad pcore_direct_tramp_\\slot\n"
"	.endm\n"
"	.altmacro\n"
"	.set pcore_direct_i, 0\n"
"	.rept " __stringify(PCORE_DIRECT_SLOTS) "\n"
"	pcore_direct_tramp %pcore_direct_i\n"
"	.set pcore_direct_i, pcore_direct_i + 1\n"
"	.endr\n"
"	.popsection\n"
"	.pushsection .rodata, \"a\"\n"
"	.balign 8\n"
"	.globl pcore_direct_tramps\n"
"	.type pcore_direct_tramps, @object\n"
"pcore_direct_tramps:\n"
"	.set pcore_direct_i, 0\n"
"	.rept " __stringify(PCORE_DIRECT_SLOTS) "\n"
"	pcore_direct_addr %pcore_direct_i\n"
"	.set pcore_direct_i, pcore_direct_i + 1\n"
"	.endr\n"
"	.size pcore_direct_tramps, .-pcore_direct_tramps\n"
"	.noaltmacro\n"
"	.popsection\n"
);

/*
 * The hot path: from trampoline @slot.  It calls no traceable function
 * itself (inlines and notrace code only); its preempt_enable() may enter
 * the scheduler, whose traceable functions may be probed, but there
 * preemption is off, so it nests once at most.  Each write is one
 * instruction, safe against NMIs.  So no recursion lock (25 instructions
 * a call): only preemption held off around this CPU's counters.
 */
void notrace pcore_direct_hit(unsigned long slot)
{
	struct pcore_probe *p = READ_ONCE(pcore_direct_slots[slot]);

	if (unlikely(!p))
		return;
	preempt_disable_notrace();
	if (likely(!p->filtered || pcore_filter_pass(p))) {
		pcore_hit_nopreempt(p);
		pcore_hist_count_nopreempt(p->hist);
	}
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(pcore_direct_hit);

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
		pcore_perr(p, "%s is a module's function: mechanism=direct takes the kernel's only",
			   p->symbol);
		p->dp.ip = 0;
		return -EINVAL;
	}
	for (slot = 0; slot < PCORE_DIRECT_SLOTS; slot++)
		if (!pcore_direct_slots[slot])
			break;
	if (slot == PCORE_DIRECT_SLOTS) {
		pcore_perr(p, "all %d direct-call trampolines in use",
			   PCORE_DIRECT_SLOTS);
		return -ENOSPC;
	}
	ret = ftrace_set_filter_ip(&p->dp.ops, p->dp.ip, 0, 0);
	if (ret) {
		pcore_perr(p, "ftrace cannot trace %s (%pe)", p->symbol,
			   ERR_PTR(ret));
		return ret;
	}
	p->dp.slot = slot;
	/* Before the trampoline can run: it finds the probe by its slot. */
	WRITE_ONCE(pcore_direct_slots[slot], p);
	ret = pcore_ftrace_direct_register(&p->dp.ops,
					   pcore_direct_tramps[slot]);
	if (ret) {
		WRITE_ONCE(pcore_direct_slots[slot], NULL);
		pcore_perr(p, "ftrace refused a direct call on %s (%pe)%s",
			   p->symbol, ERR_PTR(ret),
			   ret == -EBUSY ? ": another direct user (a BPF trampoline?) has it" : "");
	}
	return ret;
}

static void pcore_direct_off(struct pcore_probe *p)
{
	pcore_ftrace_direct_unregister(&p->dp.ops,
				       pcore_direct_tramps[p->dp.slot]);
}

/*
 * Unregistering waits until no task is in the trampoline (see the top);
 * the slot is let go only then.
 */
static u32 pcore_direct_disarm(struct pcore_probe *p, struct pcore_batch *b)
{
	if (!p->armed)
		return 0;
	if (!p->disabled)
		pcore_direct_off(p);
	WRITE_ONCE(pcore_direct_slots[p->dp.slot], NULL);
	return PCORE_SYNC_RCU;
}

/*
 * The filter, once the probe is off for good (set from its arm on:
 * ftrace_free_filter() leaves dangling pointers, so nothing reuses the
 * ops after it).
 */
static void pcore_direct_release(struct pcore_probe *p)
{
	if (p->dp.ip)
		ftrace_free_filter(&p->dp.ops);
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
				pcore_direct_tramps[p->dp.slot]);
}

static const struct pcore_probe_ops pcore_direct_ops = {
	.kind = PCORE_PROBE_DIRECT,
	.name_chars = "-",
	.arm = pcore_direct_arm,
	.disarm = pcore_direct_disarm,
	.release = pcore_direct_release,
	.set_enabled = pcore_direct_set_enabled,
};

/**
 * pcore_direct_attach() - count a function's calls through a direct call
 * @c: the client it belongs to
 * @o: what to attach; see struct pcore_direct_opts
 *
 * Sleeps.
 *
 * Return: the probe, or ERR_PTR(-EINVAL) for bad options or a function
 * ftrace cannot trace, ERR_PTR(-ENOENT) for an unknown symbol,
 * ERR_PTR(-EBUSY) when another direct user has the function,
 * ERR_PTR(-ENOSPC) when every trampoline is taken, ERR_PTR(-EEXIST) when
 * the client has a probe of that name; one log line says which.
 */
struct pcore_probe *pcore_direct_attach(struct pcore_client *c,
					const struct pcore_direct_opts *o)
{
	struct pcore_probe *p;
	int ret;

	ret = pcore_check_args("direct", c, o);
	if (ret)
		return ERR_PTR(ret);
	p = pcore_probe_new(c, &pcore_direct_ops, o->name,
			    o->symbol ?: "direct", o->hist, o->priv,
			    &o->filter);
	if (IS_ERR(p))
		return p;
	ret = -EINVAL;
	if (!o->hist)
		pcore_perr(p, "no hist to count calls into");
	else if (!o->symbol)
		pcore_perr(p, "no symbol");
	else
		ret = pcore_check_symbol(p, o->symbol);
	return pcore_probe_add(p, o, ret);
}

#endif /* PCORE_HAVE_DIRECT */
