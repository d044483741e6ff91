// SPDX-License-Identifier: GPL-2.0
/*
 * The life of a probe, whatever its mechanism: made (name, filter, memory
 * counted), added (under pcore_lock: its slot checked, armed by its
 * mechanism, listed), disabled and enabled, and torn down in batches.
 * Each mechanism (kprobe.c, tracepoint.c, uprobe.c, funcs.c, profile.c)
 * has an attach function that makes its probe, sets it up and adds it,
 * and a struct pcore_probe_ops through which this file calls it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "pcore.h"

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
int pcore_check_symbol(struct pcore_probe *p, const char *sym)
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

/*
 * Register with @sym, then with what it is called in this kernel: do_fork
 * and sys_<name> (compat header).  Sets p->symbol to the name that worked.
 * Kprobes and kretprobes register so; the direct-call probes resolve
 * their function so (direct.c).
 */
int pcore_register_aliased(struct pcore_probe *p, const char *sym,
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
int pcore_probe_charge(struct pcore_probe *p, size_t bytes)
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
struct pcore_probe *pcore_probe_new(struct pcore_client *c,
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
		pcore_cerr(c, "%s %s: refused: the kernel is locked down (lockdown=confidentiality)",
			   what, name ?: dflt);
		return ERR_PTR(ret);
	}
	if (IS_ERR(h)) {
		pcore_cerr(c, "%s %s: hist is an error pointer (%pe)", what,
			   name ?: dflt, h);
		return ERR_PTR(-EINVAL);
	}
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (p)
		p->hits = alloc_percpu_gfp(local64_t, GFP_KERNEL | __GFP_NOWARN);
	if (!p || !p->hits) {
		/* One line of ours instead of the allocator's warning. */
		pcore_cerr(c, "%s %s: out of memory", what, name ?: dflt);
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
 * The end of every attach: @err is what setting @p up returned.  Without
 * an error, under pcore_lock: check that @p may be listed, arm it with
 * its mechanism's options @o, and list it.  On an error, what was done
 * is undone as a teardown does it (pcore_probes_free_batch(), which
 * releases what the mechanism set up), and @p is freed.  Sleeps.
 * Return: @p, or an ERR_PTR() (one log line said why).
 */
struct pcore_probe *pcore_probe_add(struct pcore_probe *p, const void *o,
				    int err)
{
	const struct pcore_probe_ops *ops = p->ops;
	LIST_HEAD(one);
	int ret = err;

	mutex_lock(&pcore_lock);
	if (!ret)
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

