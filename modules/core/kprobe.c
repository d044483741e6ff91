// SPDX-License-Identifier: GPL-2.0
/*
 * kprobes and kretprobes (every call timed from entry to return): their
 * handlers, attach functions and probe ops.  The attach functions are
 * those of a kernel function's probes, whatever the mechanism: with
 * .mech = PCORE_MECH_DIRECT or PCORE_MECH_AUTO they attach through an
 * ftrace direct call (direct.c) where one can go, else kprobes (AUTO).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/kprobes.h>
#include <linux/timekeeping.h>
#include "pcore.h"

/* kprobes */

static int notrace pcore_kp_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct pcore_probe *p = container_of(kp, struct pcore_probe, kp);

	pcore_hit_nopreempt(p);
	if (p->pre)
		p->pre(p, regs);
	return 0;
}
NOKPROBE_SYMBOL(pcore_kp_pre);

/*
 * A kprobe without handlers counts calls into its histogram, and no more:
 * two increments, inline and without preempt_disable(), as kprobe handlers
 * run with preemption off.
 */
static int notrace pcore_kp_count(struct kprobe *kp, struct pt_regs *regs)
{
	struct pcore_probe *p = container_of(kp, struct pcore_probe, kp);

	pcore_hit_nopreempt(p);
	pcore_hist_count_nopreempt(p->hist);
	return 0;
}
NOKPROBE_SYMBOL(pcore_kp_count);

static void notrace pcore_kp_post(struct kprobe *kp, struct pt_regs *regs,
				  unsigned long flags)
{
	struct pcore_probe *p = container_of(kp, struct pcore_probe, kp);

	if (p->filtered && !pcore_filter_pass(p))
		return;
	p->post(p, regs);
}
NOKPROBE_SYMBOL(pcore_kp_post);

/* The same, for a probe with a filter: other tasks' calls stop here. */
static int notrace pcore_kp_pre_filtered(struct kprobe *kp,
					 struct pt_regs *regs)
{
	struct pcore_probe *p = container_of(kp, struct pcore_probe, kp);

	return pcore_filter_pass(p) ? pcore_kp_pre(kp, regs) : 0;
}
NOKPROBE_SYMBOL(pcore_kp_pre_filtered);

static int notrace pcore_kp_count_filtered(struct kprobe *kp,
					   struct pt_regs *regs)
{
	struct pcore_probe *p = container_of(kp, struct pcore_probe, kp);

	return pcore_filter_pass(p) ? pcore_kp_count(kp, regs) : 0;
}
NOKPROBE_SYMBOL(pcore_kp_count_filtered);

static int pcore_kp_register(struct pcore_probe *p)
{
	struct kprobe *kp = &p->kp;
	unsigned int offset = kp->offset;
	void *addr = kp->addr;

	memset(kp, 0, sizeof(*kp));
	if (p->filtered)
		kp->pre_handler = p->pre || p->post ? pcore_kp_pre_filtered :
						      pcore_kp_count_filtered;
	else
		kp->pre_handler = p->pre || p->post ? pcore_kp_pre :
						      pcore_kp_count;
	kp->post_handler = p->post ? pcore_kp_post : NULL;
	kp->offset = offset;
	if (addr)
		kp->addr = addr;
	else
		kp->symbol_name = p->symbol;
	return register_kprobe(kp);
}

/* Register @p where @opts says (a symbol or an address); caller holds pcore_lock. */
static int pcore_kp_arm(struct pcore_probe *p, const void *opts)
{
	const struct pcore_kprobe_opts *o = opts;
	int ret;

	if (!o->addr) {
		ret = pcore_register_aliased(p, o->symbol, pcore_kp_register);
		if (!ret && o->offset)
			snprintf(p->symbol + strlen(p->symbol),
				 sizeof(p->symbol) - strlen(p->symbol),
				 "+%#x", o->offset);
		return ret;
	}
	p->kp.addr = o->addr;
	/*
	 * "sym+0x4", without the " [module]" that %pS appends.  %pS prints
	 * an address with no symbol raw: that one is shown hashed, as %p
	 * does, whatever kptr_restrict.  kprobes refuses such an address
	 * (-ENOENT), so only the log line of the refusal shows it.
	 */
	snprintf(p->symbol, sizeof(p->symbol), "%pS", o->addr);
	if (!strncmp(p->symbol, "0x", 2))
		snprintf(p->symbol, sizeof(p->symbol), "%p", o->addr);
	p->symbol[strcspn(p->symbol, " /")] = '\0';
	ret = pcore_kp_register(p);
	if (ret)
		pcore_perr(p, "kprobes refused %s (%pe)", p->symbol, ERR_PTR(ret));
	return ret;
}

/*
 * Queue @item (a probe's struct kprobe or kretprobe) for @b's flush: true,
 * or false when @b has no room (no memory): then the caller unregisters
 * it alone.
 */
static bool pcore_batch_add(struct pcore_batch *b, void *item)
{
	if (!b->items)
		return false;
	b->items[b->n++] = item;
	return true;
}

static u32 pcore_kp_disarm(struct pcore_probe *p, struct pcore_batch *b)
{
	if (p->armed && !pcore_batch_add(b, &p->kp))
		unregister_kprobe(&p->kp);
	return 0;
}

/* One unregister_kprobes(), one grace period, for all of them. */
static void pcore_kp_flush(struct pcore_batch *b)
{
	if (b->n)
		unregister_kprobes((struct kprobe **)b->items, b->n);
}

static int pcore_kp_set_enabled(struct pcore_probe *p, bool on)
{
	return on ? enable_kprobe(&p->kp) : disable_kprobe(&p->kp);
}

static unsigned long pcore_kp_missed(const struct pcore_probe *p)
{
	return READ_ONCE(p->kp.nmissed);
}

static const struct pcore_probe_ops pcore_kprobe_ops = {
	.kind = PCORE_PROBE_KPROBE,
	.name_chars = "-",
	.arm = pcore_kp_arm,
	.disarm = pcore_kp_disarm,
	.flush = pcore_kp_flush,
	.set_enabled = pcore_kp_set_enabled,
	.missed = pcore_kp_missed,
};

/*
 * A kernel function's probe through a direct call (direct.c), as @mech
 * asks (%PCORE_MECH_DIRECT or %PCORE_MECH_AUTO), with the options @d;
 * @no: what of the caller's options no direct call can do, or NULL.
 * Return: the probe, an error (one log line said why), or NULL to go on
 * with kprobes: under auto, when no direct call can take the function or
 * the options (*@why says why, for the probe's stats).
 */
static struct pcore_probe *pcore_func_direct(struct pcore_client *c,
					     enum pcore_mech mech,
					     struct pcore_direct_opts *d,
					     const char *no, const char **why)
{
	const char *kind = d->flags & PCORE_DIRECT_RET ? "direct-ret" :
							  "direct";
	struct pcore_probe *p __maybe_unused;

	*why = NULL;
	if (no && mech == PCORE_MECH_AUTO) {
		*why = no;
		return NULL;
	}
	if (no) {
		pcore_cerr(c, "%s %s: no direct call with %s", kind, d->name,
			   no);
		return ERR_PTR(-EINVAL);
	}
#ifdef PCORE_HAVE_DIRECT
	d->why = mech == PCORE_MECH_AUTO ? why : NULL;
	p = pcore_direct_attach(c, d);
	return IS_ERR(p) && *why ? NULL : p;
#else
	if (mech == PCORE_MECH_DIRECT) {
		pcore_cerr(c, "%s: mechanism direct: this kernel has no ftrace direct calls",
			   d->name);
		return ERR_PTR(-EOPNOTSUPP);
	}
	*why = "this kernel has no ftrace direct calls";
	return NULL;
#endif
}

/* @mech asks for a direct call, or takes one where it can go. */
static bool pcore_func_may_direct(enum pcore_mech mech)
{
	return mech == PCORE_MECH_DIRECT || mech == PCORE_MECH_AUTO;
}

/*
 * What of @o a direct call cannot do, or NULL: its trampoline calls a pre
 * handler at the entry of a function named by its symbol, no more.
 */
static const char *pcore_kp_no_direct(const struct pcore_kprobe_opts *o)
{
	if (o->addr)
		return "an address";
	if (o->offset)
		return "an offset";
	if (o->post)
		return "a post handler";
	return NULL;
}

/**
 * pcore_kprobe_attach() - attach a kprobe
 * @c: the client it belongs to
 * @o: what to attach; see struct pcore_kprobe_opts
 *
 * Sleeps.
 *
 * With @o->mech %PCORE_MECH_DIRECT, a direct call or an error:
 * -EINVAL when @o has what no direct call does (an address, an offset, a
 * post handler), and what pcore_direct_attach() returns (-EBUSY when
 * another direct user has the function, -EINVAL for a module's function
 * or one ftrace cannot trace, -EOPNOTSUPP on a kernel without direct
 * calls).  With %PCORE_MECH_AUTO, a direct call where one can go, else a
 * kprobe, whose histogram's stats say why.
 *
 * Return: the probe, or ERR_PTR(-EINVAL) for bad options or a place
 * kprobes refuses, ERR_PTR(-ENOENT) for an unknown symbol, ERR_PTR(-EEXIST)
 * when the client has a probe of that name, ERR_PTR(-EPERM) when the
 * kernel is locked down (confidentiality), ERR_PTR(-E2BIG) over mem_max;
 * one log line says which.
 */
struct pcore_probe *pcore_kprobe_attach(struct pcore_client *c,
					const struct pcore_kprobe_opts *o)
{
	const char *why = NULL;
	struct pcore_probe *p;
	int ret;

	ret = pcore_check_args("kprobe", c, o);
	if (ret)
		return ERR_PTR(ret);
	if (pcore_func_may_direct(o->mech)) {
		p = pcore_func_direct(c, o->mech, &(struct pcore_direct_opts){
			.name = o->name ?: o->symbol ?: "kprobe",
			.symbol = o->symbol, .hist = o->hist, .pre = o->pre,
			.priv = o->priv, .filter = o->filter },
			pcore_kp_no_direct(o), &why);
		if (p)
			return p;
	}
	p = pcore_probe_new(c, &pcore_kprobe_ops, o->name,
			    o->symbol ?: "kprobe", o->hist, o->priv, &o->filter);
	if (IS_ERR(p))
		return p;
	p->pre = o->pre;
	p->post = o->post;
	pcore_probe_set_why(p, why);
	ret = -EINVAL;
	if ((unsigned int)o->mech > PCORE_MECH_AUTO) {
		pcore_perr(p, "mech %u is not an enum pcore_mech",
			   (unsigned int)o->mech);
		goto out;
	}
	if (!o->pre && !o->post && !o->hist) {
		pcore_perr(p, "no handler, and no hist to count calls into");
		goto out;
	}
	if (!o->symbol == !o->addr) {
		pcore_perr(p, "give exactly one of symbol and addr");
		goto out;
	}
	ret = o->symbol ? pcore_check_symbol(p, o->symbol) : 0;
	p->kp.offset = o->offset;
out:
	return pcore_probe_add(p, o, ret);
}
EXPORT_SYMBOL_GPL(pcore_kprobe_attach);

/* kretprobes */

struct pcore_kret_data {
	u64 start;
	u8 user[];
};

static int notrace pcore_kret_entry(struct kretprobe_instance *ri,
				    struct pt_regs *regs)
{
	struct pcore_kret_data *d = (struct pcore_kret_data *)ri->data;
	struct pcore_probe *p = container_of(get_kretprobe(ri),
					     struct pcore_probe, rp);

	pcore_hit_nopreempt(p);
	if (p->entry(p, regs, d->user))
		return 1;	/* not timed: no return handler */
	d->start = ktime_get_mono_fast_ns();
	return 0;
}
NOKPROBE_SYMBOL(pcore_kret_entry);

/* Without an entry handler of the client's: count and stamp. */
static int notrace pcore_kret_entry_stamp(struct kretprobe_instance *ri,
					  struct pt_regs *regs)
{
	struct pcore_kret_data *d = (struct pcore_kret_data *)ri->data;
	struct pcore_probe *p = container_of(get_kretprobe(ri),
					     struct pcore_probe, rp);

	pcore_hit_nopreempt(p);
	d->start = ktime_get_mono_fast_ns();
	return 0;
}
NOKPROBE_SYMBOL(pcore_kret_entry_stamp);

/* With a filter: another task's call is not timed (no return handler). */
static int notrace pcore_kret_entry_filtered(struct kretprobe_instance *ri,
					     struct pt_regs *regs)
{
	struct pcore_probe *p = container_of(get_kretprobe(ri),
					     struct pcore_probe, rp);

	return pcore_filter_pass(p) ? pcore_kret_entry(ri, regs) : 1;
}
NOKPROBE_SYMBOL(pcore_kret_entry_filtered);

static int notrace pcore_kret_entry_stamp_filtered(struct kretprobe_instance *ri,
						   struct pt_regs *regs)
{
	struct pcore_probe *p = container_of(get_kretprobe(ri),
					     struct pcore_probe, rp);

	return pcore_filter_pass(p) ? pcore_kret_entry_stamp(ri, regs) : 1;
}
NOKPROBE_SYMBOL(pcore_kret_entry_stamp_filtered);

/* The time since the entry's stamp. */
static __always_inline u64 pcore_kret_ns(const struct pcore_kret_data *d)
{
	u64 now = ktime_get_mono_fast_ns();

	/* The fast clock may step back by a hair across an update. */
	return now > d->start ? now - d->start : 0;
}

/* With a return handler of the client's. */
static int notrace pcore_kret_return(struct kretprobe_instance *ri,
				     struct pt_regs *regs)
{
	struct pcore_kret_data *d = (struct pcore_kret_data *)ri->data;
	struct pcore_probe *p = container_of(get_kretprobe(ri),
					     struct pcore_probe, rp);

	p->ret(p, regs, d->user, pcore_kret_ns(d));
	return 0;
}
NOKPROBE_SYMBOL(pcore_kret_return);

/* Without: the time goes into the probe's histogram. */
static int notrace pcore_kret_return_hist(struct kretprobe_instance *ri,
					  struct pt_regs *regs)
{
	struct pcore_kret_data *d = (struct pcore_kret_data *)ri->data;
	struct pcore_probe *p = container_of(get_kretprobe(ri),
					     struct pcore_probe, rp);

	pcore_hist_add_nopreempt(p->hist, pcore_kret_ns(d));
	return 0;
}
NOKPROBE_SYMBOL(pcore_kret_return_hist);

static int pcore_kret_register(struct pcore_probe *p)
{
	struct kretprobe *rp = &p->rp;
	int maxactive = rp->maxactive;
	size_t data_size = rp->data_size;

	memset(rp, 0, sizeof(*rp));
	rp->kp.symbol_name = p->symbol;
	if (p->filtered)
		rp->entry_handler = p->entry ? pcore_kret_entry_filtered :
					       pcore_kret_entry_stamp_filtered;
	else
		rp->entry_handler = p->entry ? pcore_kret_entry :
					       pcore_kret_entry_stamp;
	rp->handler = p->ret ? pcore_kret_return : pcore_kret_return_hist;
	rp->data_size = data_size;
	rp->maxactive = maxactive;
	return register_kretprobe(rp);
}

/* Caller holds pcore_lock. */
static int pcore_kret_arm(struct pcore_probe *p, const void *opts)
{
	const struct pcore_kretprobe_opts *o = opts;

	return pcore_register_aliased(p, o->symbol, pcore_kret_register);
}

static u32 pcore_kret_disarm(struct pcore_probe *p, struct pcore_batch *b)
{
	if (p->armed && !pcore_batch_add(b, &p->rp))
		unregister_kretprobe(&p->rp);
	return 0;
}

static void pcore_kret_flush(struct pcore_batch *b)
{
	if (b->n)
		unregister_kretprobes((struct kretprobe **)b->items, b->n);
}

static int pcore_kret_set_enabled(struct pcore_probe *p, bool on)
{
	return on ? enable_kretprobe(&p->rp) : disable_kretprobe(&p->rp);
}

static unsigned long pcore_kret_missed(const struct pcore_probe *p)
{
	return pcore_kretprobe_nmissed(&p->rp);
}

static const struct pcore_probe_ops pcore_kretprobe_ops = {
	.kind = PCORE_PROBE_KRETPROBE,
	.name_chars = "-",
	.arm = pcore_kret_arm,
	.disarm = pcore_kret_disarm,
	.flush = pcore_kret_flush,
	.set_enabled = pcore_kret_set_enabled,
	.missed = pcore_kret_missed,
};

/*
 * What of @o a direct call cannot do, or NULL: its trampoline keeps the
 * stamp in its frame, and has no room for the caller's per-call data.
 */
static const char *pcore_kret_no_direct(const struct pcore_kretprobe_opts *o)
{
	if (o->entry)
		return "an entry handler";
	if (o->data_size)
		return "per-call data";
	return NULL;
}

/**
 * pcore_kretprobe_attach() - attach a return probe that times each call
 * @c: the client it belongs to
 * @o: what to attach; see struct pcore_kretprobe_opts
 *
 * Sleeps.
 *
 * With @o->mech %PCORE_MECH_DIRECT, a direct call (a trampoline that
 * wraps the function) or an error: -EINVAL when @o has what no direct
 * call does (an entry handler, per-call data), and what
 * pcore_direct_attach() returns (-EBUSY when another direct user has the
 * function, -E2BIG when its arguments are not all in registers, ...).
 * With %PCORE_MECH_AUTO, a direct call where one can go, else a
 * kretprobe, whose histogram's stats say why.  A @maxactive or
 * @data_size out of range is refused whatever the mechanism.
 *
 * Return: the probe, or ERR_PTR(-EINVAL) for bad options or a function
 * kprobes refuses, ERR_PTR(-ENOENT) for an unknown function,
 * ERR_PTR(-EEXIST) when the client has a probe of that name,
 * ERR_PTR(-EPERM) when the kernel is locked down (confidentiality),
 * ERR_PTR(-E2BIG) when its instances would go over mem_max; one log line
 * says which.
 */
struct pcore_probe *pcore_kretprobe_attach(struct pcore_client *c,
					   const struct pcore_kretprobe_opts *o)
{
	const char *why = NULL;
	struct pcore_probe *p;
	int ret;

	ret = pcore_check_args("kretprobe", c, o);
	if (ret)
		return ERR_PTR(ret);
	/* Out of range for any mechanism: the kretprobe's checks say so. */
	if (pcore_func_may_direct(o->mech) && o->maxactive >= 0 &&
	    o->maxactive <= PCORE_MAXACTIVE_MAX &&
	    o->data_size <= PCORE_KRET_DATA_MAX) {
		p = pcore_func_direct(c, o->mech, &(struct pcore_direct_opts){
			.name = o->name ?: o->symbol ?: "kretprobe",
			.symbol = o->symbol, .hist = o->hist, .ret = o->ret,
			.priv = o->priv, .filter = o->filter,
			.flags = PCORE_DIRECT_RET },
			pcore_kret_no_direct(o), &why);
		if (p)
			return p;
	}
	p = pcore_probe_new(c, &pcore_kretprobe_ops, o->name,
			    o->symbol ?: "kretprobe", o->hist, o->priv,
			    &o->filter);
	if (IS_ERR(p))
		return p;
	p->entry = o->entry;
	p->ret = o->ret;
	pcore_probe_set_why(p, why);
	ret = -EINVAL;
	if ((unsigned int)o->mech > PCORE_MECH_AUTO) {
		pcore_perr(p, "mech %u is not an enum pcore_mech",
			   (unsigned int)o->mech);
		goto out;
	}
	if (!o->symbol) {
		pcore_perr(p, "no symbol");
		goto out;
	}
	if (!o->ret && !o->hist) {
		pcore_perr(p, "needs a return handler or a hist");
		goto out;
	}
	if (o->maxactive < 0 || o->maxactive > PCORE_MAXACTIVE_MAX) {
		pcore_perr(p, "maxactive %d is not 0 to %d", o->maxactive,
			   PCORE_MAXACTIVE_MAX);
		goto out;
	}
	if (o->data_size > PCORE_KRET_DATA_MAX) {
		pcore_perr(p, "data_size %zu is more than %d", o->data_size,
			   PCORE_KRET_DATA_MAX);
		goto out;
	}
	ret = pcore_check_symbol(p, o->symbol);
	if (ret)
		goto out;
	p->rp.maxactive = o->maxactive ?: max(32U, 4 * num_possible_cpus());
	p->rp.data_size = sizeof(struct pcore_kret_data) + o->data_size;
	ret = pcore_probe_charge(p, pcore_kret_mem(p->rp.maxactive,
						   p->rp.data_size));
out:
	return pcore_probe_add(p, o, ret);
}
EXPORT_SYMBOL_GPL(pcore_kretprobe_attach);
