// SPDX-License-Identifier: GPL-2.0
/*
 * Probes: kprobes, kretprobes (every call timed from entry to return) and
 * tracepoint probes, including tracepoints of modules loaded later.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include "pcore.h"

/* Modules with tracepoints, as the tracepoint notifier reported them. */
struct pcore_tp_mod {
	struct list_head node;
	struct module *mod;
};
static LIST_HEAD(pcore_tp_mods);

u64 pcore_probe_hits(const struct pcore_probe *p)
{
	return pcore_probe_hist_hits(p, NULL);
}

/*
 * The hits and symbol of the probe that feeds @h: for a probe on many
 * functions, those of the function whose histogram @h is.  Caller holds
 * pcore_lock.
 */
u64 pcore_probe_hist_hits(const struct pcore_probe *p,
			  const struct pcore_hist *h)
{
	if (p->ops->hits)
		return p->ops->hits(p, h);
	return pcore_pcpu_sum(p->hits);
}

const char *pcore_probe_hist_symbol(const struct pcore_probe *p,
				    const struct pcore_hist *h)
{
	if (p->ops->hist_symbol)
		return p->ops->hist_symbol(p, h) ?: p->symbol;
	return p->symbol;
}

unsigned long pcore_probe_missed(const struct pcore_probe *p)
{
	return p->ops->missed ? p->ops->missed(p) : 0;
}

/**
 * pcore_tp_hit() - count a tracepoint hit and get the handler's data
 * @data: the first argument of a tracepoint handler
 *
 * Tracepoints call handlers directly, so probe_core counts their hits only
 * through this call: make it the first thing a tracepoint handler does.
 * Hot path: no lock, no allocation.
 *
 * Return: the @priv given at attach.
 */
notrace void *pcore_tp_hit(void *data)
{
	struct pcore_probe *p = data;

	pcore_hit(p);
	return p->priv;
}
EXPORT_SYMBOL_GPL(pcore_tp_hit);
NOKPROBE_SYMBOL(pcore_tp_hit);

/**
 * pcore_probe_priv() - the handler data of a probe
 * @p: probe, as passed to its handler
 *
 * Return: the @priv given at attach.
 */
void *pcore_probe_priv(const struct pcore_probe *p)
{
	return p->priv;
}
EXPORT_SYMBOL_GPL(pcore_probe_priv);
NOKPROBE_SYMBOL(pcore_probe_priv);

/**
 * pcore_probe_symbol() - what a probe resolved to
 * @p: probe
 *
 * Return: the kernel symbol (e.g. "kernel_clone" for "do_fork", with
 * "+offset" for a kprobe at an offset) or the tracepoint name.
 */
const char *pcore_probe_symbol(const struct pcore_probe *p)
{
	return p->symbol;
}
EXPORT_SYMBOL_GPL(pcore_probe_symbol);

/* Symbols: ASCII letters, digits, '_' and '.' (as in "foo.isra.0"). */
static int pcore_check_symbol(struct pcore_probe *p, const char *sym)
{
	size_t i, len = strnlen(sym, KSYM_NAME_LEN);

	if (!len || len == KSYM_NAME_LEN) {
		pcore_perr(p, "symbol must be 1 to %d characters",
			   KSYM_NAME_LEN - 1);
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		if ((isascii(sym[i]) && isalnum(sym[i])) || sym[i] == '_' ||
		    (sym[i] == '.' && i))
			continue;
		pcore_perr(p, "'%*pE' is not a symbol name (bad character at %zu)",
			   (int)len, sym, i);
		return -EINVAL;
	}
	return 0;
}

static void pcore_probe_free(struct pcore_probe *p)
{
	put_pid(p->fpid);
	free_percpu(p->hits);
	pcore_mem_uncharge(p->mem);
	kfree(p);
}

/*
 * Count @bytes more of @p against mem_max: its struct and counters when it
 * is made, then what registering it allocates (kretprobe instances, a
 * uretprobe's call table, fprobe's pool), before it is registered;
 * pcore_probe_free() gives them all back.  Return: 0, or -E2BIG with one
 * log line.
 */
static int pcore_probe_charge(struct pcore_probe *p, size_t bytes)
{
	int ret = pcore_mem_charge(bytes, p->client->name,
				   pcore_probe_kind_name(p), p->name);

	if (!ret)
		p->mem += bytes;
	return ret;
}

/*
 * Take @f for @p: hold the struct pid of its process.  Return: 0, or
 * -EINVAL or -ESRCH with one log line.
 */
static int pcore_filter_set(struct pcore_probe *p, const struct pcore_filter *f)
{
	size_t len = strnlen(f->comm, sizeof(f->comm));
	struct task_struct *task;

	if (len == sizeof(f->comm)) {
		pcore_perr(p, "filter comm is not NUL-terminated within 16 bytes");
		return -EINVAL;
	}
	if (f->pid < 0) {
		pcore_perr(p, "filter pid %d is not a process id", f->pid);
		return -EINVAL;
	}
	if (f->pid) {
		p->fpid = find_get_pid(f->pid);
		rcu_read_lock();
		task = p->fpid ? pid_task(p->fpid, PIDTYPE_TGID) : NULL;
		rcu_read_unlock();
		if (!task) {
			pcore_perr(p, "filter pid %d: no such process", f->pid);
			return -ESRCH;
		}
	}
	memcpy(p->fcomm, f->comm, len);
	p->filtered = f->pid || len;
	return 0;
}

/*
 * A new probe, not registered; @f: its filter, or NULL (tracepoints).
 * Return: the probe, or an ERR_PTR() with one log line.
 */
static struct pcore_probe *pcore_probe_new(struct pcore_client *c,
					   const struct pcore_probe_ops *ops,
					   const char *name, const char *dflt,
					   struct pcore_hist *h, void *priv,
					   const struct pcore_filter *f)
{
	const char *what = pcore_probe_kind_str(ops->kind);
	struct pcore_probe *p;
	int ret;

	ret = pcore_check_name(what, name ?: dflt, ops->name_chars);
	if (ret)
		return ERR_PTR(ret);
	/*
	 * As the kernel's own kprobe events: a probe placed from a module
	 * parameter or an ioctl could read any kernel memory, so
	 * lockdown=confidentiality refuses every probe (-EPERM).
	 */
	ret = security_locked_down(LOCKDOWN_KPROBES);
	if (ret) {
		pr_err("%s%s%s %s: refused: the kernel is locked down (lockdown=confidentiality)\n",
		       c->name, *c->name ? ": " : "", what, name ?: dflt);
		return ERR_PTR(ret);
	}
	if (IS_ERR(h)) {
		pr_err("%s%s%s %s: hist is an error pointer (%pe)\n", c->name,
		       *c->name ? ": " : "", what, name ?: dflt, h);
		return ERR_PTR(-EINVAL);
	}
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (p)
		p->hits = alloc_percpu_gfp(local64_t, GFP_KERNEL | __GFP_NOWARN);
	if (!p || !p->hits) {
		/* One line of ours instead of the allocator's warning. */
		pr_err("%s%s%s %s: out of memory\n", c->name,
		       *c->name ? ": " : "", what, name ?: dflt);
		kfree(p);
		return ERR_PTR(-ENOMEM);
	}
	INIT_LIST_HEAD(&p->node);
	INIT_LIST_HEAD(&p->cnode);
	p->client = c;
	p->kind = ops->kind;
	p->ops = ops;
	p->hist = h;
	p->priv = priv;
	strscpy(p->name, name ?: dflt, sizeof(p->name));
	ret = pcore_probe_charge(p, sizeof(*p) +
				 num_possible_cpus() * sizeof(local64_t));
	if (!ret && f)
		ret = pcore_filter_set(p, f);
	if (ret) {
		pcore_probe_free(p);
		return ERR_PTR(ret);
	}
	return p;
}


/*
 * Arm last: before a probe is registered, check that it may be listed (its
 * name is free in its client, the probe limit is not reached, its hist is
 * its client's and fed by no other probe), so that a failure never undoes
 * a live probe and a live probe never records into a hist it may not use.
 * Caller holds pcore_lock, until pcore_probe_link().
 */
static int pcore_probe_check_slot(struct pcore_probe *p)
{
	struct pcore_probe *q;
	unsigned int n = 0;

	lockdep_assert_held(&pcore_lock);
	list_for_each_entry(q, &pcore_probes, node) {
		n++;
		if (q->client == p->client && !strcmp(q->name, p->name)) {
			pcore_perr(p, "the name is taken");
			return -EEXIST;
		}
	}
	if (n >= PCORE_MAX_PROBES) {
		pcore_perr(p, "more than %d probes", PCORE_MAX_PROBES);
		return -ENOSPC;
	}
	if (p->hist && p->hist->client != p->client) {
		pcore_perr(p, "hist %s belongs to another module", p->hist->name);
		return -EINVAL;
	}
	if (p->hist && p->hist->probe) {
		pcore_perr(p, "hist %s is already fed by %s", p->hist->name,
			   p->hist->probe->name);
		return -EBUSY;
	}
	return p->ops->check ? p->ops->check(p) : 0;
}

/* List a probe that pcore_probe_check_slot() passed; caller holds pcore_lock. */
static void pcore_probe_link(struct pcore_probe *p)
{
	if (p->ops->link)
		p->ops->link(p);
	if (p->hist)
		p->hist->probe = p;
	list_add_tail(&p->node, &pcore_probes);
	list_add_tail(&p->cnode, &p->client->probes);
}

static void pcore_probes_free_batch(struct list_head *batch);

/*
 * The end of every attach: under pcore_lock, check that @p may be listed,
 * arm it with its mechanism's options @o, and list it.  On an error, what
 * was done is undone as a teardown does it (pcore_probes_free_batch()),
 * and @p is freed.  Sleeps.  Return: @p, or an ERR_PTR() (one log line
 * said why).
 */
static struct pcore_probe *pcore_probe_add(struct pcore_probe *p,
					   const void *o)
{
	const struct pcore_probe_ops *ops = p->ops;
	LIST_HEAD(one);
	int ret;

	mutex_lock(&pcore_lock);
	ret = pcore_probe_check_slot(p);
	if (!ret)
		ret = ops->arm(p, o);
	if (!ret) {
		p->armed = true;
		pcore_probe_link(p);
	} else {
		list_add(&p->node, &one);
		pcore_probes_free_batch(&one);
	}
	mutex_unlock(&pcore_lock);
	if (ret && ops->after_unlock)
		ops->after_unlock();
	return ret ? ERR_PTR(ret) : p;
}

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

/*
 * Register with @sym, then with what it is called in this kernel: do_fork
 * and sys_<name> (compat header).  Sets p->symbol to the name that worked.
 */
static int pcore_register_aliased(struct pcore_probe *p, const char *sym,
				  int (*reg)(struct pcore_probe *p))
{
	static const char * const fork_aliases[] = PCORE_DO_FORK_ALIASES;
	unsigned int i;
	int ret;

	strscpy(p->symbol, sym, sizeof(p->symbol));
	ret = reg(p);
	for (i = 0; ret == -ENOENT && !strcmp(sym, "do_fork") &&
		    i < ARRAY_SIZE(fork_aliases); i++) {
		strscpy(p->symbol, fork_aliases[i], sizeof(p->symbol));
		ret = reg(p);
	}
	if (ret == -ENOENT && str_has_prefix(sym, "sys_")) {
		snprintf(p->symbol, sizeof(p->symbol), "%s%s",
			 PCORE_SYSCALL_PREFIX, sym + 4);
		ret = reg(p);
	}
	if (ret == -ENOENT && !strcmp(p->name, sym))
		pcore_perr(p, "no such kernel function");
	else if (ret == -ENOENT)
		pcore_perr(p, "no such kernel function %s", sym);
	else if (ret == -ENOMEM)
		pcore_perr(p, "kprobes could not register %s: out of memory",
			   p->symbol);
	else if (ret)
		pcore_perr(p, "kprobes refused %s (%pe): blacklisted, not a function entry, or not probe-able",
			   p->symbol, ERR_PTR(ret));
	return ret;
}

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

static u32 pcore_kp_disarm(struct pcore_probe *p, struct pcore_batch *b)
{
	if (!p->armed)
		return 0;
	if (b->items)
		b->items[b->n++] = &p->kp;
	else
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

/**
 * pcore_kprobe_attach() - attach a kprobe
 * @c: the client it belongs to
 * @o: what to attach; see struct pcore_kprobe_opts
 *
 * Sleeps.
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
	struct pcore_probe *p;
	int ret;

	ret = pcore_check_args("kprobe", c, o);
	if (ret)
		return ERR_PTR(ret);
	p = pcore_probe_new(c, &pcore_kprobe_ops, o->name,
			    o->symbol ?: "kprobe", o->hist, o->priv, &o->filter);
	if (IS_ERR(p))
		return p;
	p->pre = o->pre;
	p->post = o->post;
	ret = -EINVAL;
	if (!o->pre && !o->post && !o->hist) {
		pcore_perr(p, "no handler, and no hist to count calls into");
		goto err_free;
	}
	if (!o->symbol == !o->addr) {
		pcore_perr(p, "give exactly one of symbol and addr");
		goto err_free;
	}
	if (o->symbol) {
		ret = pcore_check_symbol(p, o->symbol);
		if (ret)
			goto err_free;
	}
	p->kp.offset = o->offset;
	return pcore_probe_add(p, o);

err_free:
	pcore_probe_free(p);
	return ERR_PTR(ret);
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
	if (!p->armed)
		return 0;
	if (b->items)
		b->items[b->n++] = &p->rp;
	else
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

/**
 * pcore_kretprobe_attach() - attach a return probe that times each call
 * @c: the client it belongs to
 * @o: what to attach; see struct pcore_kretprobe_opts
 *
 * Sleeps.
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
	struct pcore_probe *p;
	int ret;

	ret = pcore_check_args("kretprobe", c, o);
	if (ret)
		return ERR_PTR(ret);
	p = pcore_probe_new(c, &pcore_kretprobe_ops, o->name,
			    o->symbol ?: "kretprobe", o->hist, o->priv,
			    &o->filter);
	if (IS_ERR(p))
		return p;
	p->entry = o->entry;
	p->ret = o->ret;
	ret = -EINVAL;
	if (!o->symbol) {
		pcore_perr(p, "no symbol");
		goto err_free;
	}
	if (!o->ret && !o->hist) {
		pcore_perr(p, "needs a return handler or a hist");
		goto err_free;
	}
	if (o->maxactive < 0 || o->maxactive > PCORE_MAXACTIVE_MAX) {
		pcore_perr(p, "maxactive %d is not 0 to %d", o->maxactive,
			   PCORE_MAXACTIVE_MAX);
		goto err_free;
	}
	if (o->data_size > PCORE_KRET_DATA_MAX) {
		pcore_perr(p, "data_size %zu is more than %d", o->data_size,
			   PCORE_KRET_DATA_MAX);
		goto err_free;
	}
	ret = pcore_check_symbol(p, o->symbol);
	if (ret)
		goto err_free;
	p->rp.maxactive = o->maxactive ?: max(32U, 4 * num_possible_cpus());
	p->rp.data_size = sizeof(struct pcore_kret_data) + o->data_size;
	ret = pcore_probe_charge(p, pcore_kret_mem(p->rp.maxactive,
						   p->rp.data_size));
	if (ret)
		goto err_free;
	return pcore_probe_add(p, o);

err_free:
	pcore_probe_free(p);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(pcore_kretprobe_attach);

/* probes on many functions */

/**
 * pcore_funcs_attach() - attach one probe to many kernel functions
 * @c: the client it belongs to
 * @o: what to attach; see struct pcore_funcs_opts
 *
 * Where the kernel has fprobe, one fprobe covers every function: one
 * registration, one unregistration.  Elsewhere, a kretprobe (or, to
 * count, a kprobe) per function, unregistered in one batch.  Sleeps.
 *
 * Return: the probe, or ERR_PTR(-EINVAL) for bad options,
 * ERR_PTR(-EEXIST) when the client has a probe of that name,
 * ERR_PTR(-EPERM) when the kernel is locked down (confidentiality),
 * ERR_PTR(-E2BIG) when it would go over mem_max, or the errno of fprobe
 * or kprobes; one log line says which.
 */
struct pcore_probe *pcore_funcs_attach(struct pcore_client *c,
				       const struct pcore_funcs_opts *o)
{
	struct pcore_probe *p;
	u32 i;
	int ret;

	ret = pcore_check_args("functions", c, o);
	if (ret)
		return ERR_PTR(ret);
	p = pcore_probe_new(c, &pcore_funcs_ops, o->name, NULL, NULL,
			    o->priv, &o->filter);
	if (IS_ERR(p))
		return p;
	ret = -EINVAL;
	if (IS_ERR_OR_NULL(o->funcs) || !o->hists) {
		pcore_perr(p, "needs funcs (from pcore_funcs_find()) and hists");
		goto err_free;
	}
	for (i = 0; i < pcore_funcs_count(o->funcs); i++) {
		if (IS_ERR_OR_NULL(o->hists[i])) {
			pcore_perr(p, "no hist for function %u (%s)", i,
				   pcore_funcs_name(o->funcs, i));
			goto err_free;
		}
	}
	if (o->flags & ~PCORE_FUNCS_COUNT) {
		pcore_perr(p, "unknown flags %#x", o->flags);
		goto err_free;
	}
	if (o->maxactive < 0 || o->maxactive > PCORE_MAXACTIVE_MAX) {
		pcore_perr(p, "maxactive %d is not 0 to %d", o->maxactive,
			   PCORE_MAXACTIVE_MAX);
		goto err_free;
	}
	ret = pcore_fgroup_init(p, o);
	if (ret) {
		pcore_perr(p, "out of memory");
		goto err_free;
	}
	/* One word, as every field of the probes file. */
	snprintf(p->symbol, sizeof(p->symbol), "%u_functions", p->fg->n);
	ret = pcore_probe_charge(p, pcore_fgroup_mem(p->fg));
	if (ret)
		goto err_free;
	return pcore_probe_add(p, o);

err_free:
	pcore_fgroup_release(p);
	pcore_probe_free(p);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(pcore_funcs_attach);

/**
 * pcore_profile_attach() - sample what every CPU runs, @hz times a second
 * @c: client
 * @o: see struct pcore_profile_opts
 *
 * Sleeps.
 *
 * Return: the probe, or ERR_PTR(-EINVAL) for bad options,
 * ERR_PTR(-EEXIST) when the client has a probe of that name,
 * ERR_PTR(-EPERM) when the kernel is locked down (confidentiality),
 * ERR_PTR(-E2BIG) when it would go over mem_max, or the errno of perf;
 * one log line says which.
 */
struct pcore_probe *pcore_profile_attach(struct pcore_client *c,
					 const struct pcore_profile_opts *o)
{
	struct pcore_probe *p;
	int ret;

	ret = pcore_check_args("profile", c, o);
	if (ret)
		return ERR_PTR(ret);
	p = pcore_probe_new(c, &pcore_profile_ops, o->name, NULL, o->hist,
			    o->priv, &o->filter);
	if (IS_ERR(p))
		return p;
	ret = -EINVAL;
	if (!o->hz || o->hz > PCORE_PROFILE_HZ_MAX) {
		pcore_perr(p, "hz %u is not 1 to %d", o->hz,
			   PCORE_PROFILE_HZ_MAX);
		goto err_free;
	}
	if (!o->fn && (!o->hist || o->hist->key_mode != PCORE_KEYS_STACK)) {
		pcore_perr(p, "without fn, needs a hist keyed by stack");
		goto err_free;
	}
	p->pre = o->fn;
	ret = pcore_probe_charge(p, pcore_profile_mem());
	if (ret)
		goto err_free;
	ret = pcore_profile_alloc(p, o->hz);
	if (ret) {
		pcore_perr(p, "out of memory");
		goto err_free;
	}
	return pcore_probe_add(p, o);

err_free:
	pcore_profile_release(p);
	pcore_probe_free(p);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(pcore_profile_attach);

/* tracepoints */

struct pcore_tp_find {
	const char *name;
	struct tracepoint *tp;
};

static void pcore_tp_match(struct tracepoint *tp, void *priv)
{
	struct pcore_tp_find *f = priv;

	if (!f->tp && !strcmp(tp->name, f->name))
		f->tp = tp;
}

static struct tracepoint *pcore_tp_in_module(struct module *mod,
					     const char *name)
{
#ifdef CONFIG_TRACEPOINTS
	struct tracepoint *tp;
	unsigned int i;

	for (i = 0; i < mod->num_tracepoints; i++) {
		tp = tracepoint_ptr_deref(&mod->tracepoints_ptrs[i]);
		if (!strcmp(tp->name, name))
			return tp;
	}
#endif
	return NULL;
}

/* Find @name in the kernel or a loaded module; caller holds pcore_lock. */
static struct tracepoint *pcore_tp_find(const char *name, struct module **mod)
{
	struct pcore_tp_find f = { .name = name };
	struct pcore_tp_mod *m;

	*mod = NULL;
	for_each_kernel_tracepoint(pcore_tp_match, &f);
	if (f.tp)
		return f.tp;
	list_for_each_entry(m, &pcore_tp_mods, node) {
		f.tp = pcore_tp_in_module(m->mod, name);
		if (f.tp) {
			*mod = m->mod;
			return f.tp;
		}
	}
	return NULL;
}

/* Is there a tracepoint @name in the kernel or a loaded module? */
bool pcore_tp_exists(const char *name)
{
	struct module *mod;
	bool found;

	mutex_lock(&pcore_lock);
	found = pcore_tp_find(name, &mod);
	mutex_unlock(&pcore_lock);
	return found;
}

/* Register on @tp; caller holds pcore_lock. */
static int pcore_tp_register(struct pcore_probe *p, struct tracepoint *tp,
			     struct module *mod)
{
	int ret = tracepoint_probe_register(tp, p->tp_fn, p);

	if (ret) {
		pcore_perr(p, "cannot register on %s (%pe)", p->symbol,
			   ERR_PTR(ret));
		return ret;
	}
	p->tp = tp;
	p->tp_mod = mod;
	return 0;
}

/*
 * Unregister @p from its tracepoint, if it is on one.  Caller holds
 * pcore_lock and, when this returns true, calls
 * tracepoint_synchronize_unregister() (once for any number of probes)
 * before anything @p's handler uses is freed.
 */
static bool pcore_tp_disarm(struct pcore_probe *p)
{
	if (!p->tp)
		return false;
	tracepoint_probe_unregister(p->tp, p->tp_fn, p);
	p->tp = NULL;
	p->tp_mod = NULL;
	return true;
}

/*
 * On the tracepoint if it is in the kernel or a loaded module; else, with
 * %PCORE_TP_WAIT, listed to wait for its module.  Caller holds pcore_lock.
 */
static int pcore_tp_arm(struct pcore_probe *p, const void *opts)
{
	const struct pcore_tracepoint_opts *o = opts;
	struct tracepoint *tp;
	struct module *mod;

	tp = pcore_tp_find(p->symbol, &mod);
	if (tp)
		return pcore_tp_register(p, tp, mod);
	if (o->flags & PCORE_TP_WAIT)
		return 0;
	pcore_perr(p, "no such tracepoint: %s", p->symbol);
	return -ENOENT;
}

static u32 pcore_tp_disarm_op(struct pcore_probe *p, struct pcore_batch *b)
{
	return pcore_tp_disarm(p) ? PCORE_SYNC_TP : 0;
}

/* -ENOENT when its module is gone: it stays disabled. */
static int pcore_tp_set_enabled(struct pcore_probe *p, bool on)
{
	struct tracepoint *tp;
	struct module *mod;

	if (on) {
		tp = pcore_tp_find(p->symbol, &mod);
		return tp ? pcore_tp_register(p, tp, mod) : -ENOENT;
	}
	if (pcore_tp_disarm(p))
		tracepoint_synchronize_unregister();
	return 0;
}

static const struct pcore_probe_ops pcore_tracepoint_ops = {
	.kind = PCORE_PROBE_TRACEPOINT,
	.name_chars = "-",
	.arm = pcore_tp_arm,
	.disarm = pcore_tp_disarm_op,
	.set_enabled = pcore_tp_set_enabled,
};

/**
 * pcore_tracepoint_attach() - attach a handler to a tracepoint
 * @c: the client it belongs to
 * @o: what to attach; see struct pcore_tracepoint_opts
 *
 * Sleeps.
 *
 * Return: the probe, or ERR_PTR(-ENOENT) for a tracepoint that is not in
 * the kernel or a loaded module (unless %PCORE_TP_WAIT is given),
 * ERR_PTR(-EINVAL) for bad options, ERR_PTR(-EEXIST) when the client has a
 * probe of that name, ERR_PTR(-EPERM) when the kernel is locked down
 * (confidentiality), ERR_PTR(-E2BIG) over mem_max; one log line says
 * which.
 */
struct pcore_probe *pcore_tracepoint_attach(struct pcore_client *c,
					    const struct pcore_tracepoint_opts *o)
{
	struct pcore_probe *p;
	int ret;

	ret = pcore_check_args("tracepoint", c, o);
	if (ret)
		return ERR_PTR(ret);
	p = pcore_probe_new(c, &pcore_tracepoint_ops, o->name,
			    o->tracepoint ?: "tracepoint", o->hist, o->priv,
			    NULL);
	if (IS_ERR(p))
		return p;
	p->tp_fn = o->fn;
	ret = -EINVAL;
	if (!o->tracepoint || !o->fn) {
		pcore_perr(p, "needs a tracepoint name and a handler");
		goto err_free;
	}
	if (o->flags & ~PCORE_TP_WAIT) {
		pcore_perr(p, "unknown flags %#x", o->flags);
		goto err_free;
	}
	ret = pcore_check_symbol(p, o->tracepoint);
	if (ret)
		goto err_free;
	strscpy(p->symbol, o->tracepoint, sizeof(p->symbol));
	return pcore_probe_add(p, o);

err_free:
	pcore_probe_free(p);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(pcore_tracepoint_attach);

/* uprobes */

/* Options that the kind (entry only, or timed) does not use are refused. */
static const char *pcore_uprobe_check(const struct pcore_uprobe_opts *o)
{
	if (!o->path == !o->file)
		return "give exactly one of path and file";
	if (o->flags & ~PCORE_UPROBE_RET)
		return "unknown flags";
	if (!(o->flags & PCORE_UPROBE_RET)) {
		if (o->ret || o->maxactive || o->data_size)
			return "ret, maxactive and data_size need PCORE_UPROBE_RET";
		if (!o->entry && !o->hist)
			return "no handler, and no hist to count calls into";
		return NULL;
	}
	if (!o->ret && !o->hist)
		return "needs a return handler or a hist";
	if (o->maxactive < 0 || o->maxactive > PCORE_MAXACTIVE_MAX)
		return "maxactive is not 0 to 4096";
	if (o->data_size > PCORE_KRET_DATA_MAX)
		return "data_size is more than 256";
	return NULL;
}

/**
 * pcore_uprobe_attach() - attach a uprobe, or a uretprobe that times calls
 * @c: the client it belongs to
 * @o: what to attach; see struct pcore_uprobe_opts
 *
 * Sleeps.
 *
 * Return: the probe, or ERR_PTR(-EINVAL) for bad options, a file that is
 * not a regular file, an offset past its end or a place uprobes refuses,
 * ERR_PTR(-ENOEXEC) for a file that is not ELF, ERR_PTR(-ENOENT) for a
 * path that does not exist, ERR_PTR(-EEXIST) when the client has a probe
 * of that name, ERR_PTR(-EPERM) when the kernel is locked down
 * (confidentiality), ERR_PTR(-E2BIG) when its call table would go over
 * mem_max; one log line says which.
 */
struct pcore_probe *pcore_uprobe_attach(struct pcore_client *c,
					const struct pcore_uprobe_opts *o)
{
	bool ret_probe = o && (o->flags & PCORE_UPROBE_RET);
	struct file *file;
	struct pcore_probe *p;
	const char *why;
	u32 slots;
	int ret;

	ret = pcore_check_args("uprobe", c, o);
	if (ret)
		return ERR_PTR(ret);
	if (!o->name) {
		pr_err("%s%suprobe: needs a name\n", c->name,
		       *c->name ? ": " : "");
		return ERR_PTR(-EINVAL);
	}
	p = pcore_probe_new(c, ret_probe ? &pcore_uretprobe_ops :
					   &pcore_uprobe_ops,
			    o->name, NULL, o->hist, o->priv, &o->filter);
	if (IS_ERR(p))
		return p;
	p->entry = o->entry;
	p->ret = o->ret;
	p->up.gone = o->gone;
	why = pcore_uprobe_check(o);
	if (why) {
		pcore_perr(p, "%s", why);
		ret = -EINVAL;
		goto err_free;
	}
	slots = o->maxactive ?: max(64U, 8 * num_possible_cpus());
	ret = pcore_probe_charge(p, pcore_uprobe_mem(p, slots, o->data_size));
	if (ret)
		goto err_free;
	file = o->file;
	if (o->path) {
		file = filp_open(o->path, O_RDONLY | O_LARGEFILE, 0);
		if (IS_ERR(file)) {
			ret = PTR_ERR(file);
			pcore_perr(p, "cannot open %s (%pe)", o->path, file);
			goto err_free;
		}
	}
	ret = pcore_uprobe_hold(p, file, o->offset, slots, o->data_size);
	if (o->path)
		fput(file);
	if (ret)
		goto err_free;
	return pcore_probe_add(p, o);

err_free:
	pcore_probe_free(p);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(pcore_uprobe_attach);

/*
 * Disarm the probes on @batch (linked by ->node, on no other list) and
 * free them.  One unregister_kprobes(), one unregister_kretprobes(), one
 * tracepoint_synchronize_unregister() and one uprobe_unregister_sync()
 * (v6.12+) serve the whole batch, so
 * detaching N probes waits for a grace period per kind, not per probe
 * (BCC's 40 s to detach many probes, bcc#1317).  Without memory for the
 * arrays, one probe at a time: slower, as correct.  Caller holds
 * pcore_lock; sleeps.
 */
static void pcore_probes_free_batch(struct list_head *batch)
{
	const struct pcore_probe_ops *ops;
	struct pcore_batch b = { };
	struct pcore_probe *p, *q, *tmp;
	unsigned int n = 0;
	u32 kinds = 0, sync = 0;

	list_for_each_entry(p, batch, node)
		n++;
	if (n > 1)
		b.items = kmalloc_array(n, sizeof(*b.items),
					GFP_KERNEL | __GFP_NOWARN);
	/*
	 * One kind at a time, each newest first: a tracepoint going from 2
	 * functions to 1 waits for a grace period itself when the one left
	 * is not its first, so removing in attach order would cost one more
	 * wait per tracepoint.  The first probe of a kind met from the end
	 * is its newest.
	 */
	list_for_each_entry_reverse(p, batch, node) {
		ops = p->ops;
		if (kinds & BIT(ops->kind))
			continue;
		kinds |= BIT(ops->kind);
		b.n = 0;
		q = p;
		list_for_each_entry_from_reverse(q, batch, node)
			if (q->ops == ops)
				sync |= ops->disarm(q, &b);
		if (ops->flush)
			ops->flush(&b);
	}
	kfree(b.items);
	if (sync & PCORE_SYNC_TP)
		tracepoint_synchronize_unregister();
	if (sync & PCORE_SYNC_UPROBE)
		pcore_uprobe_unregister_sync();
	if (sync & PCORE_SYNC_RCU)
		synchronize_rcu();
	list_for_each_entry_safe(p, tmp, batch, node) {
		list_del(&p->node);
		if (p->ops->release)
			p->ops->release(p);
		/* A probe whose attach failed may share it with another. */
		if (p->hist && p->hist->probe == p)
			p->hist->probe = NULL;
		pcore_probe_free(p);
	}
}

/*
 * Detach and free every probe of @c as one batch (see
 * pcore_probes_free_batch()).  Caller holds pcore_lock, and calls
 * pcore_uprobe_put_files() once it has dropped it; sleeps.
 */
void pcore_client_detach_probes(struct pcore_client *c)
{
	struct pcore_probe *p, *tmp;
	LIST_HEAD(batch);

	lockdep_assert_held(&pcore_lock);
	list_for_each_entry_safe(p, tmp, &c->probes, cnode) {
		list_del_init(&p->cnode);
		list_move_tail(&p->node, &batch);
	}
	pcore_probes_free_batch(&batch);
}

/**
 * pcore_probe_detach() - detach a probe and free it
 * @p: probe, or an ERR_PTR() or NULL (ignored)
 *
 * Waits until no handler of @p runs.  Sleeps.
 */
void pcore_probe_detach(struct pcore_probe *p)
{
	LIST_HEAD(one);

	const struct pcore_probe_ops *ops;

	if (IS_ERR_OR_NULL(p))
		return;

	ops = p->ops;
	mutex_lock(&pcore_lock);
	list_del_init(&p->cnode);
	list_move(&p->node, &one);
	pcore_probes_free_batch(&one);
	mutex_unlock(&pcore_lock);
	if (ops->after_unlock)
		ops->after_unlock();
}
EXPORT_SYMBOL_GPL(pcore_probe_detach);

/**
 * pcore_probe_set_enabled() - disable a probe, or enable it again
 * @p: probe
 * @on: enable
 *
 * A disabled probe stays attached and listed but its handlers do not
 * run: kprobes are disarmed, tracepoint probes unregistered.  Sleeps.
 *
 * Return: 0, or the errno of kprobes, uprobes or tracepoints; -ENOENT
 * when a tracepoint probe's module is gone or a uprobe's file is (it
 * stays disabled).
 */
int pcore_probe_set_enabled(struct pcore_probe *p, bool on)
{
	int ret = 0;

	mutex_lock(&pcore_lock);
	if (p->disabled == on)
		ret = p->ops->set_enabled(p, on);
	if (!ret)
		p->disabled = !on;
	mutex_unlock(&pcore_lock);
	return ret;
}

/*
 * Modules with tracepoints come and go: attach waiting probes to a module
 * that comes, move probes on a module that goes back to waiting.  Called
 * under tracepoint_module_list_mutex, before a going module is freed.
 */
static int pcore_tp_module_notify(struct notifier_block *nb,
				  unsigned long state, void *data)
{
	struct tp_module *tpm = data;
	struct pcore_tp_mod *m;
	struct pcore_probe *p;
	struct tracepoint *tp;

	mutex_lock(&pcore_lock);
	if (state == MODULE_STATE_COMING) {
		m = kzalloc(sizeof(*m), GFP_KERNEL);
		if (m) {
			m->mod = tpm->mod;
			list_add_tail(&m->node, &pcore_tp_mods);
		} else {
			/* The module loads anyway: say why it is not found. */
			pr_err("%s: out of memory: its tracepoints cannot be attached by name\n",
			       module_name(tpm->mod));
		}
		list_for_each_entry(p, &pcore_probes, node) {
			if (p->kind != PCORE_PROBE_TRACEPOINT || p->tp ||
			    p->disabled)
				continue;
			tp = pcore_tp_in_module(tpm->mod, p->symbol);
			if (tp && !pcore_tp_register(p, tp, tpm->mod))
				pr_info("%s%s%s: attached to %s in %s\n",
					p->client->name,
					*p->client->name ? "/" : "", p->name,
					p->symbol, module_name(tpm->mod));
		}
	} else if (state == MODULE_STATE_GOING) {
		/* One wait for all, newest first (see pcore_probes_free_batch()). */
		bool any = false;

		list_for_each_entry_reverse(p, &pcore_probes, node)
			if (p->kind == PCORE_PROBE_TRACEPOINT &&
			    p->tp_mod == tpm->mod)
				any |= pcore_tp_disarm(p);
		if (any)
			tracepoint_synchronize_unregister();
		list_for_each_entry(m, &pcore_tp_mods, node) {
			if (m->mod == tpm->mod) {
				list_del(&m->node);
				kfree(m);
				break;
			}
		}
	}
	mutex_unlock(&pcore_lock);
	return NOTIFY_OK;
}

static struct notifier_block pcore_tp_module_nb = {
	.notifier_call = pcore_tp_module_notify,
};

int pcore_tp_init(void)
{
	return register_tracepoint_module_notifier(&pcore_tp_module_nb);
}

void pcore_tp_exit(void)
{
	struct pcore_tp_mod *m, *tmp;

	unregister_tracepoint_module_notifier(&pcore_tp_module_nb);
	list_for_each_entry_safe(m, tmp, &pcore_tp_mods, node) {
		list_del(&m->node);
		kfree(m);
	}
}
