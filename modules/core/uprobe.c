// SPDX-License-Identifier: GPL-2.0
/*
 * uprobes and uretprobes: their handlers, and what they hold of the
 * probed file.
 *
 * A probe holds the file's inode (a reference) and an fsnotify mark on
 * it, never its path: a path would keep the filesystem mounted, and
 * unmounting it would fail with EBUSY.  When the file is deleted (its
 * last link and last user gone) or its filesystem unmounted, fsnotify
 * tells the mark, and the probe lets go of the file there and then: it
 * unregisters from uprobes and drops the inode before the unmount goes on
 * to evict it.  The probe stays listed, gone, until its owner detaches
 * it; probe_core's own probes are detached by builtin.c, told through the
 * probe's gone callback.
 *
 * The last iput() of a file evicts it (a deleted file: its blocks freed,
 * in a journal transaction that waits while the filesystem is frozen), so
 * it never runs under pcore_lock, which module loading and unloading need:
 * pcore_uprobe_release() hands the probe's inode reference to its mark and
 * queues the mark, and pcore_uprobe_put_files(), called once pcore_lock is
 * dropped, puts the inode and destroys the mark.  Until then the mark
 * still hears of an unmount, and its handler puts the inode there and
 * then, before the unmount evicts it; pcore_iput_lock makes the one that
 * finds the reference gone wait until the other's put is done.
 *
 * A uretprobe times each call: the entry claims a slot of the probe's
 * call table (timer.c) for the call, named by its task and stack pointer,
 * and the return finds it.  Handlers run in the probed task, in process
 * context with preemption on.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/file.h>
#include <linux/fsnotify_backend.h>
#include <linux/llist.h>
#include <linux/slab.h>
#include "pcore.h"

/* Every mark of probe_core's is in this group. */
static struct fsnotify_group *pcore_fsn_group;

/* Released marks whose inode and mark are still to put. */
static LLIST_HEAD(pcore_umark_puts);
static DEFINE_MUTEX(pcore_iput_lock);

/*
 * The watch on a probed file, made with the probe's hold on the file.
 * fsnotify frees it, after a grace period of its own; @p is the probe
 * while the probe holds the file, NULL after (under pcore_lock).  @added:
 * watching the inode (set once, under pcore_lock).  @inode and @put: a
 * released probe's reference, for pcore_uprobe_put_files().
 */
struct pcore_umark {
	struct fsnotify_mark fsm;
	struct pcore_probe *p;
	bool added;
	struct inode *inode;
	struct llist_node put;
};

/* A uprobe: count the call, then the client's handler or a count. */
static int notrace pcore_up_handler(struct uprobe_consumer *uc,
				    struct pt_regs *regs)
{
	struct pcore_probe *p = container_of(uc, struct pcore_probe, up.uc);

	if (p->filtered && !pcore_filter_pass(p))
		return 0;
	pcore_hit(p);
	if (p->entry)
		p->entry(p, regs, NULL);
	else
		pcore_hist_count(p->hist);
	return 0;
}
NOKPROBE_SYMBOL(pcore_up_handler);

/* A uretprobe's entry: a slot for the call, the client's handler, a stamp. */
static int notrace pcore_uret_entry(struct uprobe_consumer *uc,
				    struct pt_regs *regs)
{
	struct pcore_probe *p = container_of(uc, struct pcore_probe, up.uc);
	struct pcore_cslot *s;

	if (p->filtered && !pcore_filter_pass(p))
		return 0;
	pcore_hit(p);
	s = pcore_calls_enter(p->up.calls, pcore_ucall_sp(regs, true));
	if (!s)
		return 0;
	if (p->entry && p->entry(p, regs, s->data))
		pcore_calls_cancel(s);
	else
		pcore_calls_publish(s);
	return 0;
}
NOKPROBE_SYMBOL(pcore_uret_entry);

/* A uretprobe's return: the call's slot, its time, the handler or hist. */
static int notrace pcore_uret_return(struct uprobe_consumer *uc,
				     unsigned long func, struct pt_regs *regs)
{
	struct pcore_probe *p = container_of(uc, struct pcore_probe, up.uc);
	struct pcore_cslot *s;
	u64 ns;

	s = pcore_calls_take(p->up.calls, pcore_ucall_sp(regs, false), &ns);
	if (!s)
		return 0;
	if (p->ret)
		p->ret(p, regs, s->data, ns);
	else
		pcore_hist_add(p->hist, ns);
	pcore_calls_cancel(s);
	return 0;
}
NOKPROBE_SYMBOL(pcore_uret_return);

/* Bytes pcore_uprobe_hold() allocates: the mark, a uretprobe's call table. */
size_t pcore_uprobe_mem(const struct pcore_probe *p, u32 slots,
			size_t data_size)
{
	return sizeof(struct pcore_umark) +
	       (p->kind == PCORE_PROBE_URETPROBE ?
		pcore_calls_mem(slots, data_size) : 0);
}

/**
 * pcore_uprobe_hold() - take what a probe needs of its file
 * @p: a new uprobe or uretprobe, not listed yet
 * @file: the file, open for reading
 * @offset: where in it
 * @slots: uretprobe: calls in flight kept
 * @data_size: uretprobe: per-call data
 *
 * Checks that @file is a regular ELF file and @offset inside it, then
 * references its inode, makes the mark that will watch it and, for a
 * uretprobe, creates the call table.  Sleeps.
 *
 * Return: 0, or an errno with one log line; on error, nothing is held.
 */
int pcore_uprobe_hold(struct pcore_probe *p, struct file *file, u64 offset,
		      u32 slots, size_t data_size)
{
	struct inode *inode = d_real_inode(file->f_path.dentry);
	unsigned char magic[SELFMAG];
	struct pcore_umark *m;
	loff_t pos = 0, size;
	unsigned int i;
	ssize_t n;

	if (!inode || !S_ISREG(inode->i_mode)) {
		pcore_perr(p, "%pD is not a regular file", file);
		return -EINVAL;
	}
	if (!(file->f_mode & FMODE_READ)) {
		pcore_perr(p, "%pD is not open for reading", file);
		return -EBADF;
	}
	n = kernel_read(file, magic, sizeof(magic), &pos);
	if (n != sizeof(magic) || memcmp(magic, ELFMAG, SELFMAG)) {
		pcore_perr(p, "%pD is not an ELF file", file);
		return n < 0 ? n : -ENOEXEC;
	}
	size = i_size_read(inode);
	if (offset >= size) {
		pcore_perr(p, "offset %#llx is past the end of %pD (%lld bytes)",
			   offset, file, size);
		return -EINVAL;
	}
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (m && p->kind == PCORE_PROBE_URETPROBE) {
		p->up.calls = pcore_calls_create(slots, data_size);
		if (!p->up.calls) {
			kfree(m);
			m = NULL;
		}
	}
	if (!m) {
		pcore_perr(p, "out of memory");
		return -ENOMEM;
	}
	p->up.inode = igrab(inode);
	if (!p->up.inode) {
		/* Being evicted: as good as deleted. */
		pcore_perr(p, "%pD is being deleted", file);
		pcore_calls_free(p->up.calls);
		p->up.calls = NULL;
		kfree(m);
		return -ENOENT;
	}
	fsnotify_init_mark(&m->fsm, pcore_fsn_group);
	m->fsm.mask = FS_DELETE_SELF | FS_UNMOUNT;
	p->up.mark = m;
	p->up.offset = offset;
	snprintf(p->symbol, sizeof(p->symbol), "%pD+%#llx", file, offset);
	/* One word in the probes file, whatever the file's name. */
	for (i = 0; p->symbol[i]; i++)
		if (!isgraph(p->symbol[i]))
			p->symbol[i] = '?';
	return 0;
}

/*
 * Register with uprobes and watch the file; caller holds pcore_lock.  On
 * error, nothing is registered or watched (what pcore_uprobe_hold() took
 * stays, for pcore_uprobe_release()).
 */
static int pcore_uprobe_arm(struct pcore_probe *p)
{
	struct pcore_umark *m = p->up.mark;
	int ret;

	lockdep_assert_held(&pcore_lock);
	p->up.uc.handler = p->kind == PCORE_PROBE_URETPROBE ? pcore_uret_entry :
							      pcore_up_handler;
	p->up.uc.ret_handler = p->kind == PCORE_PROBE_URETPROBE ?
			       pcore_uret_return : NULL;
	if (!m)
		return -ENOENT;	/* the file went: nothing to arm */
	if (!m->added) {
		ret = fsnotify_add_inode_mark(&m->fsm, p->up.inode, 0);
		if (ret) {
			pcore_perr(p, "cannot watch the file (%pe)",
				   ERR_PTR(ret));
			return ret;
		}
		m->added = true;
		m->p = p;
		/*
		 * Deleted before the watch was in place: its deletion was
		 * told to no one.  After it, the mark hears of it.
		 */
		if (!READ_ONCE(p->up.inode->i_nlink)) {
			pcore_perr(p, "the file was deleted");
			return -ENOENT;
		}
	}
	ret = pcore_uprobe_register(p->up.inode, p->up.offset, &p->up.uc,
				    &p->up.uprobe);
	if (ret) {
		pcore_perr(p, "uprobes refused %s (%pe)", p->symbol,
			   ERR_PTR(ret));
		return ret;
	}
	p->up.armed = true;
	return 0;
}

/*
 * Unregister from uprobes, without waiting; true when it was registered.
 * Caller holds pcore_lock and calls pcore_uprobe_unregister_sync() (once
 * for any number of probes) before anything the handlers use goes.
 */
static bool pcore_uprobe_disarm(struct pcore_probe *p)
{
	lockdep_assert_held(&pcore_lock);
	if (!p->up.armed)
		return false;
	pcore_uprobe_unregister_nosync(p->up.inode, p->up.offset, &p->up.uc,
				       p->up.uprobe);
	p->up.armed = false;
	return true;
}

/* Stop watching the file; caller holds pcore_lock. */
static void pcore_uprobe_unwatch(struct pcore_probe *p)
{
	struct pcore_umark *m = p->up.mark;

	if (!m)
		return;
	m->p = NULL;
	p->up.mark = NULL;
	fsnotify_destroy_mark(&m->fsm, pcore_fsn_group);
	fsnotify_put_mark(&m->fsm);
}

/* Take the call table off the exit handler's list, before a grace period. */
static void pcore_uprobe_unlink_calls(struct pcore_probe *p)
{
	if (p->up.calls)
		pcore_calls_unlink(p->up.calls);
}

/*
 * Let go of the file and free the call table: after pcore_uprobe_disarm()
 * and its sync, when no handler runs, and a grace period after
 * pcore_uprobe_unlink_calls().  Caller holds pcore_lock, and calls
 * pcore_uprobe_put_files() once it has dropped it: the inode and the mark
 * are put there.
 */
static void pcore_uprobe_release(struct pcore_probe *p)
{
	struct pcore_umark *m = p->up.mark;

	lockdep_assert_held(&pcore_lock);
	if (m) {
		m->p = NULL;
		m->inode = p->up.inode;
		llist_add(&m->put, &pcore_umark_puts);
	}
	p->up.mark = NULL;
	p->up.inode = NULL;
	pcore_calls_free(p->up.calls);
	p->up.calls = NULL;
}

/* Put @m's inode, unless the other side did: either waits for the other. */
static void pcore_umark_iput(struct pcore_umark *m)
{
	mutex_lock(&pcore_iput_lock);
	iput(xchg(&m->inode, NULL));
	mutex_unlock(&pcore_iput_lock);
}

/**
 * pcore_uprobe_put_files() - put what released uprobes let go of
 *
 * The inodes and marks that pcore_uprobe_release() queued: called by
 * whoever released uprobes, once it has dropped pcore_lock (a last iput()
 * can wait for a frozen filesystem).  Sleeps.
 */
void pcore_uprobe_put_files(void)
{
	struct llist_node *list = llist_del_all(&pcore_umark_puts);
	struct pcore_umark *m, *tmp;

	lockdep_assert_not_held(&pcore_lock);
	llist_for_each_entry_safe(m, tmp, list, put) {
		pcore_umark_iput(m);
		if (m->added)
			fsnotify_destroy_mark(&m->fsm, pcore_fsn_group);
		fsnotify_put_mark(&m->fsm);
	}
}

/*
 * The file was deleted or its filesystem is being unmounted: the probe
 * lets go of it now (the unmount evicts the inode when this returns).
 * Runs in the task that deletes or unmounts.
 */
static int pcore_fsn_event(struct fsnotify_mark *fsm, u32 mask,
			   struct inode *inode, struct inode *dir,
			   const struct qstr *name, u32 cookie)
{
	struct pcore_umark *m = container_of(fsm, struct pcore_umark, fsm);
	void (*gone)(struct pcore_probe *p) = NULL;
	struct inode *held = NULL;
	struct pcore_probe *p;

	mutex_lock(&pcore_lock);
	p = m->p;
	if (p) {
		if (pcore_uprobe_disarm(p))
			pcore_uprobe_unregister_sync();
		pcore_uprobe_unwatch(p);
		held = p->up.inode;
		WRITE_ONCE(p->up.inode, NULL);
		gone = p->up.gone;
		pr_info("%s%s%s: %s: the file was %s: detached from it\n",
			p->client->name, *p->client->name ? "/" : "", p->name,
			p->symbol, mask & FS_UNMOUNT ? "unmounted" : "deleted");
		if (gone)
			gone(p);
	}
	mutex_unlock(&pcore_lock);
	if (p)
		iput(held);
	else	/* released: its inode may wait in pcore_umark_puts */
		pcore_umark_iput(m);
	return 0;
}

static void pcore_fsn_free_mark(struct fsnotify_mark *fsm)
{
	kfree(container_of(fsm, struct pcore_umark, fsm));
}

static const struct fsnotify_ops pcore_fsn_ops = {
	.handle_inode_event = pcore_fsn_event,
	.free_mark = pcore_fsn_free_mark,
};

int pcore_uprobe_init(void)
{
	/* DUPS: two probes on one file have a mark each. */
	pcore_fsn_group = fsnotify_alloc_group(&pcore_fsn_ops,
					       FSNOTIFY_GROUP_DUPS);
	if (IS_ERR(pcore_fsn_group)) {
		pr_err("cannot create an fsnotify group (%pe): no uprobes\n",
		       pcore_fsn_group);
		return PTR_ERR(pcore_fsn_group);
	}
	return 0;
}

/* At unload, every probe detached: wait until fsnotify freed our marks. */
void pcore_uprobe_exit(void)
{
	pcore_uprobe_put_files();
	fsnotify_wait_marks_destroyed();
	fsnotify_put_group(pcore_fsn_group);
}

/* Its attach function opened and held the file (pcore_uprobe_hold()). */
static int pcore_up_arm(struct pcore_probe *p, const void *opts)
{
	return pcore_uprobe_arm(p);
}

/*
 * Unregister (uprobe_unregister_sync() after, v6.12+), and take a
 * uretprobe's call table off the exit handler's list (a grace period
 * after).
 */
static u32 pcore_up_disarm(struct pcore_probe *p, struct pcore_batch *b)
{
	u32 sync = pcore_uprobe_disarm(p) ? PCORE_SYNC_UPROBE : 0;

	if (p->up.calls)
		sync |= PCORE_SYNC_RCU;
	pcore_uprobe_unlink_calls(p);
	return sync;
}

/* -ENOENT when its file was deleted or unmounted: it stays disabled. */
static int pcore_up_set_enabled(struct pcore_probe *p, bool on)
{
	if (on)
		return pcore_probe_gone(p) ? -ENOENT : pcore_uprobe_arm(p);
	if (pcore_uprobe_disarm(p))
		pcore_uprobe_unregister_sync();
	return 0;
}

/* A uretprobe's calls without room in its table; a uprobe has none. */
static unsigned long pcore_up_missed(const struct pcore_probe *p)
{
	return p->up.calls ? pcore_calls_missed(p->up.calls) : 0;
}

/* Uprobes and uretprobes differ in their handlers only (pcore_uprobe_arm()). */
#define PCORE_UPROBE_OPS(k) {				\
	.kind = (k),					\
	.name_chars = "-",				\
	.arm = pcore_up_arm,				\
	.disarm = pcore_up_disarm,			\
	.release = pcore_uprobe_release,		\
	.after_unlock = pcore_uprobe_put_files,		\
	.set_enabled = pcore_up_set_enabled,		\
	.missed = pcore_up_missed,			\
}

const struct pcore_probe_ops pcore_uprobe_ops =
	PCORE_UPROBE_OPS(PCORE_PROBE_UPROBE);
const struct pcore_probe_ops pcore_uretprobe_ops =
	PCORE_UPROBE_OPS(PCORE_PROBE_URETPROBE);

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
		pcore_cerr(c, "uprobe: needs a name");
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
		goto out;
	}
	slots = o->maxactive ?: max(64U, 8 * num_possible_cpus());
	ret = pcore_probe_charge(p, pcore_uprobe_mem(p, slots, o->data_size));
	if (ret)
		goto out;
	file = o->file;
	if (o->path) {
		file = filp_open(o->path, O_RDONLY | O_LARGEFILE, 0);
		if (IS_ERR(file)) {
			ret = PTR_ERR(file);
			pcore_perr(p, "cannot open %s (%pe)", o->path, file);
			goto out;
		}
	}
	ret = pcore_uprobe_hold(p, file, o->offset, slots, o->data_size);
	if (o->path)
		fput(file);
out:
	return pcore_probe_add(p, o, ret);
}
EXPORT_SYMBOL_GPL(pcore_uprobe_attach);
