// SPDX-License-Identifier: GPL-2.0
/*
 * Probes on many kernel functions at once: the functions a glob matches,
 * and the handlers of a probe that covers them all.
 *
 * Which functions.  The kernel exports no way for a module to walk its
 * symbols (kallsyms_on_each_symbol() and kallsyms_lookup_name() were
 * unexported in v5.7), but it publishes the list of the functions that
 * can be traced: ftrace's available_filter_functions, in tracefs.  That
 * list leaves out notrace and noinstr functions, and functions in
 * sections ftrace does not patch.  probe_core reads it through a mount of
 * its own (kern_mount(), the way the kernel itself mounts tracefs under
 * debugfs/tracing: a mount without options changes none of the admin's),
 * so it works whether or not tracefs is mounted anywhere.  Each matching
 * name is then resolved as kprobes resolve it, by registering a disabled
 * kprobe on it (never armed, so the code is not touched; all of them are
 * unregistered in one batch, one grace period).  Skipped, and named in one
 * log line: names that appear more than once in the list (a name would
 * probe one of them: which is a guess), functions kprobes refuse (their
 * blacklist, and places they cannot probe), and, with fprobe, functions
 * whose kprobe is not on ftrace's call (another symbol of that name).
 *
 * How.  By a direct call where the probe's mechanism says so
 * (mechanism=direct, or auto when every function can take one): one
 * trampoline of direct.c's for all the functions, one ftrace_ops filtered
 * to each one's ftrace call, registered once; the trampoline hands the
 * site to the hot path, which finds the function's histogram by a binary
 * search of the sorted sites (pcore_fg_find()), with no return hooks to
 * run out of.  What a direct call cannot take (a module's function, for
 * timing one with arguments on the stack: see direct.c) is refused, or
 * under auto the glob takes the fprobe or kprobes below, the first
 * function refused and why in each histogram's stats.
 *
 * Else, with fprobe (v6.5 to v6.13 with CONFIG_FPROBE; see compat.h) one
 * fprobe covers every function: one registration to attach, one to
 * detach, however many functions.  Its handlers are told the ftrace
 * address of the function; a binary search in the sorted addresses finds
 * the function's histogram (8 steps for 256 functions, no division).
 * Without fprobe (Debian's 6.1), one kretprobe, or one kprobe to count,
 * per function, each registered on the address found above; they are
 * unregistered in one batch.
 *
 * fprobe counts missed calls (no room for the return, or a handler
 * recursing) for the whole probe, not per function: each function's
 * histogram shows the probe's total.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/glob.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/uio.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include "pcore.h"

/* One function a glob matched. */
struct pcore_func {
	char *name;
	unsigned long addr;	/* where a kprobe on it goes */
	const char *why;	/* skipped: why; NULL when kept */
};

/*
 * The functions a glob matched: the first @n of @f are kept, sorted by
 * name.
 */
struct pcore_funcs {
	unsigned int n;
	struct pcore_func f[];
};

/* Glob characters: those of symbols, and '*' and '?'. */
static int pcore_glob_check(const char *glob)
{
	size_t i, len;

	if (!glob) {
		pr_err("functions: no glob\n");
		return -EINVAL;
	}
	len = strnlen(glob, PCORE_NAME_MAX);
	if (!len || len == PCORE_NAME_MAX) {
		pr_err("functions %.32s: glob must be 1 to %d characters\n",
		       glob, PCORE_NAME_MAX - 1);
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		if ((isascii(glob[i]) && isalnum(glob[i])) || glob[i] == '_' ||
		    glob[i] == '.' || glob[i] == '*' || glob[i] == '?')
			continue;
		pr_err("functions %*pE: bad character at %zu (a glob takes letters, digits, '_', '.', '*' and '?')\n",
		       (int)len, glob, i);
		return -EINVAL;
	}
	return 0;
}

/* What pcore_funcs_scan() collects. */
struct pcore_scan {
	const char *glob;
	unsigned int max;	/* entries kept, at most */
	unsigned int n;		/* entries kept */
	unsigned int matched;	/* entries that matched */
	struct pcore_func *f;
};

/* One line of the list: "name" or "name [module]". */
static int pcore_scan_line(struct pcore_scan *s, char *line)
{
	char *name;

	line[strcspn(line, " \t")] = '\0';
	if (!*line || !glob_match(s->glob, line))
		return 0;
	if (s->matched++ >= s->max)
		return 0;
	name = kstrdup(line, GFP_KERNEL);
	if (!name)
		return -ENOMEM;
	s->f[s->n++].name = name;
	return 0;
}

/*
 * Read @len bytes at *@pos of a seq_file: what seq_read() does, into a
 * kernel buffer.  kernel_read() would refuse: ftrace's files have ->read
 * (seq_read), not ->read_iter.
 */
static ssize_t pcore_seq_read(struct file *file, char *buf, size_t len,
			      loff_t *pos)
{
	struct kvec kv = { .iov_base = buf, .iov_len = len };
	struct iov_iter iter;
	struct kiocb kiocb;
	ssize_t n;

	init_sync_kiocb(&kiocb, file);
	iov_iter_kvec(&iter, READ, &kv, 1, len);
	kiocb.ki_pos = *pos;
	n = seq_read_iter(&kiocb, &iter);
	*pos = kiocb.ki_pos;
	return n;
}

/*
 * Read ftrace's list of traceable functions through a mount of tracefs
 * of our own, keeping the names that match.
 */
static int pcore_funcs_scan(struct pcore_scan *s)
{
	struct file_system_type *type = get_fs_type("tracefs");
	size_t have = 0, len;
	struct vfsmount *mnt;
	char *buf, *line, *nl;
	struct file *file;
	loff_t pos = 0;
	ssize_t n;
	int ret = 0;

	if (!type)
		return -ENODEV;
	mnt = kern_mount(type);
	module_put(type->owner);	/* get_fs_type()'s reference */
	if (IS_ERR(mnt))
		return PTR_ERR(mnt);
	file = file_open_root_mnt(mnt, "available_filter_functions",
				  O_RDONLY, 0);
	if (IS_ERR(file)) {
		ret = PTR_ERR(file);
		goto out_mnt;
	}
	/* A seq_file, as ftrace makes it: else not the file we know. */
	if (file->f_op->read != seq_read) {
		ret = -EINVAL;
		goto out_file;
	}
	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf) {
		ret = -ENOMEM;
		goto out_file;
	}
	for (;;) {
		n = pcore_seq_read(file, buf + have, PAGE_SIZE - 1 - have,
				   &pos);
		if (n < 0) {
			ret = n;
			break;
		}
		have += n;
		buf[have] = '\0';
		/* The whole lines; what is left of the last one moves once. */
		for (line = buf; !ret && (nl = strchr(line, '\n'));
		     line = nl + 1) {
			*nl = '\0';
			ret = pcore_scan_line(s, line);
		}
		if (ret)
			break;
		len = buf + have - line;
		memmove(buf, line, len + 1);
		have = len;
		/* A line longer than a page: not a list of names. */
		if (have == PAGE_SIZE - 1) {
			ret = -EFBIG;
			break;
		}
		if (!n) {
			if (have)	/* a last line without its newline */
				ret = pcore_scan_line(s, buf);
			break;
		}
	}
	kfree(buf);
out_file:
	fput(file);
out_mnt:
	kern_unmount(mnt);
	return ret;
}

static int pcore_func_cmp(const void *a, const void *b)
{
	const struct pcore_func *x = a, *y = b;

	/* Skipped ones last; kept ones by name. */
	if (!x->why != !y->why)
		return x->why ? 1 : -1;
	return strcmp(x->name, y->name);
}

/*
 * Resolve each kept function with a disabled kprobe: kprobes say where
 * it is, or refuse it.  Never armed; unregistered in one batch.
 */
static int pcore_funcs_resolve(struct pcore_func *f, unsigned int n)
{
	struct kprobe *kp, **kps;
	unsigned int i, nk = 0;
	int ret = 0;

	kp = kcalloc(n, sizeof(*kp), GFP_KERNEL);
	kps = kcalloc(n, sizeof(*kps), GFP_KERNEL);
	if (!kp || !kps) {
		kfree(kp);
		kfree(kps);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		if (f[i].why)
			continue;
		kp[i].symbol_name = f[i].name;
		kp[i].flags = KPROBE_FLAG_DISABLED;
		ret = register_kprobe(&kp[i]);
		if (ret == -ENOMEM)
			break;
		if (ret) {
			f[i].why = ret == -ENOENT ? "not found" :
				   "kprobes refuse it";
			continue;
		}
		ret = 0;
		kps[nk++] = &kp[i];
		f[i].addr = (unsigned long)kp[i].addr;
#ifdef PCORE_HAVE_FPROBE
		if (!(kp[i].flags & KPROBE_FLAG_FTRACE))
			f[i].why = "not at its ftrace call";
#endif
	}
	if (nk)
		unregister_kprobes(kps, nk);
	kfree(kps);
	kfree(kp);
	return ret == -ENOMEM ? ret : 0;
}

/* The one line that names every function skipped, and why. */
static void pcore_funcs_log_skipped(const char *glob, const struct pcore_func *f,
				    unsigned int kept, unsigned int all)
{
	const size_t room = 768;
	unsigned int i, shown = 0;
	size_t len = 0;
	char *line;

	if (kept == all)
		return;
	line = kmalloc(room, GFP_KERNEL);
	if (!line) {
		pr_info("%s: %u of %u matching functions skipped\n", glob,
			all - kept, all);
		return;
	}
	line[0] = '\0';
	for (i = kept; i < all; i++) {
		int w = snprintf(line + len, room - len, "%s%s (%s)",
				 i > kept ? ", " : "", f[i].name, f[i].why);

		if (w >= room - len) {
			line[len] = '\0';
			break;
		}
		len += w;
		shown++;
	}
	if (shown < all - kept)
		pr_info("%s: %u of %u matching functions skipped: %s, and %u more\n",
			glob, all - kept, all, line, all - kept - shown);
	else
		pr_info("%s: %u of %u matching functions skipped: %s\n", glob,
			all - kept, all, line);
	kfree(line);
}

/**
 * pcore_funcs_find() - the kernel functions a glob matches
 * @glob: e.g. "vfs_*": letters, digits, '_', '.', and the wildcards '*'
 *	(any characters) and '?' (one character), as glob_match() takes them
 * @max: most functions it may match, 1 to %PCORE_FUNCS_MAX
 *
 * Matches the names in ftrace's list of traceable functions (so notrace
 * functions are never matched) and resolves each as kprobes do.  Names
 * listed twice (which of them?) and functions that kprobes refuse are
 * skipped, and named with the reason in one log line.  Sleeps; reads the
 * whole list (some 60000 lines).
 *
 * Return: the functions, sorted by name, to give to pcore_funcs_attach()
 * and free with pcore_funcs_free(); or ERR_PTR(-EINVAL) for a bad glob or
 * @max, ERR_PTR(-ENOENT) when no function that can be probed matches,
 * ERR_PTR(-E2BIG) when more than @max match, ERR_PTR(-EPERM) when the
 * kernel is locked down; one log line says which.
 */
struct pcore_funcs *pcore_funcs_find(const char *glob, unsigned int max)
{
	struct pcore_scan s = { .glob = glob, .max = max };
	struct pcore_funcs *out = NULL;
	unsigned int i, kept;
	int ret;

	ret = pcore_glob_check(glob);
	if (ret)
		return ERR_PTR(ret);
	if (!max || max > PCORE_FUNCS_MAX) {
		pr_err("functions %s: max %u is not 1 to %d\n", glob, max,
		       PCORE_FUNCS_MAX);
		return ERR_PTR(-EINVAL);
	}
	ret = security_locked_down(LOCKDOWN_KPROBES);
	if (ret) {
		pr_err("functions %s: refused: the kernel is locked down (lockdown=confidentiality)\n",
		       glob);
		return ERR_PTR(ret);
	}
	s.f = kcalloc(max, sizeof(*s.f), GFP_KERNEL);
	if (!s.f)
		return ERR_PTR(-ENOMEM);
	ret = pcore_funcs_scan(&s);
	if (ret) {
		pr_err("functions %s: cannot read ftrace's list of functions (%pe)\n",
		       glob, ERR_PTR(ret));
		goto out;
	}
	if (!s.matched) {
		pr_err("functions %s: matches no function ftrace can trace\n",
		       glob);
		ret = -ENOENT;
		goto out;
	}
	if (s.matched > max) {
		pr_err("functions %s: matches %u functions, more than %u: give a narrower glob\n",
		       glob, s.matched, max);
		ret = -E2BIG;
		goto out;
	}
	/* A name listed twice: which function would a probe get? */
	sort(s.f, s.n, sizeof(*s.f), pcore_func_cmp, NULL);
	for (i = 1; i < s.n; i++)
		if (!strcmp(s.f[i - 1].name, s.f[i].name))
			s.f[i - 1].why = s.f[i].why = "more than one";
	ret = pcore_funcs_resolve(s.f, s.n);
	if (ret) {
		pr_err("functions %s: out of memory\n", glob);
		goto out;
	}
	sort(s.f, s.n, sizeof(*s.f), pcore_func_cmp, NULL);
	for (kept = 0; kept < s.n && !s.f[kept].why; kept++)
		;
	/* Each name skipped for being there twice, once. */
	for (i = s.n - 1; i > kept; i--)
		if (!strcmp(s.f[i - 1].name, s.f[i].name)) {
			kfree(s.f[i].name);
			memmove(&s.f[i], &s.f[i + 1],
				(s.n - i - 1) * sizeof(*s.f));
			s.n--;
		}
	pcore_funcs_log_skipped(glob, s.f, kept, s.n);
	if (!kept) {
		pr_err("functions %s: none of the %u matching functions can be probed\n",
		       glob, s.n);
		ret = -ENOENT;
		goto out;
	}
	out = kzalloc(struct_size(out, f, kept), GFP_KERNEL);
	if (!out) {
		ret = -ENOMEM;
		goto out;
	}
	out->n = kept;
	memcpy(out->f, s.f, kept * sizeof(*s.f));
	s.n -= kept;
	memmove(s.f, s.f + kept, s.n * sizeof(*s.f));
out:
	for (i = 0; i < s.n; i++)
		kfree(s.f[i].name);
	kfree(s.f);
	return ret ? ERR_PTR(ret) : out;
}
EXPORT_SYMBOL_GPL(pcore_funcs_find);

/**
 * pcore_funcs_count() - how many functions pcore_funcs_find() found
 * @f: what it returned
 *
 * Return: the number of functions, at least 1.
 */
unsigned int pcore_funcs_count(const struct pcore_funcs *f)
{
	return f->n;
}
EXPORT_SYMBOL_GPL(pcore_funcs_count);

/**
 * pcore_funcs_name() - the name of one function pcore_funcs_find() found
 * @f: what it returned
 * @i: which, from 0 to pcore_funcs_count() - 1
 *
 * Return: its name (valid until pcore_funcs_free()), NULL when @i is out
 * of range.
 */
const char *pcore_funcs_name(const struct pcore_funcs *f, unsigned int i)
{
	return i < f->n ? f->f[i].name : NULL;
}
EXPORT_SYMBOL_GPL(pcore_funcs_name);

/**
 * pcore_funcs_free() - free what pcore_funcs_find() returned
 * @f: what it returned, or an ERR_PTR() or NULL (ignored)
 */
void pcore_funcs_free(struct pcore_funcs *f)
{
	unsigned int i;

	if (IS_ERR_OR_NULL(f))
		return;
	for (i = 0; i < f->n; i++)
		kfree(f->f[i].name);
	kfree(f);
}
EXPORT_SYMBOL_GPL(pcore_funcs_free);

/* Handlers.  Both kinds run with preemption off (ftrace's recursion lock, kprobes). */

static __always_inline void pcore_fg_hit(struct pcore_fgroup *g, u32 i)
{
	local64_inc(this_cpu_ptr(&g->hits[i]));
}

static __always_inline u64 pcore_fg_since(u64 start)
{
	u64 now = ktime_get_mono_fast_ns();

	return now > start ? now - start : 0;
}

/*
 * The return hooks @g keeps for calls in flight: its maxactive, or by
 * default max(32, 4 x CPUs) per function (with fprobe, one pool for all
 * of them; else a kretprobe's instances per function).
 */
static u32 pcore_fg_maxactive(const struct pcore_fgroup *g)
{
#ifdef PCORE_HAVE_FPROBE
	if (g->maxactive)
		return g->maxactive;
	return g->n * max(32U, 4 * num_possible_cpus());
#else
	return g->maxactive ?: max(32U, 4 * num_possible_cpus());
#endif
}

#ifdef PCORE_HAVE_FPROBE
/* Per call: the entry's stamp and which function. */
struct pcore_fp_data {
	u64 start;
	u32 i;
};

static int notrace pcore_fp_entry(struct fprobe *fp, unsigned long ip,
				  unsigned long ret_ip, struct pt_regs *regs,
				  void *data)
{
	struct pcore_fgroup *g = container_of(fp, struct pcore_fgroup, fp);
	struct pcore_fp_data *d = data;
	int i = pcore_fg_find(g, ip);

	if (unlikely(i < 0 || READ_ONCE(g->m[i].gone)))
		return 1;
	pcore_fg_hit(g, i);
	d->i = i;
	d->start = ktime_get_mono_fast_ns();
	return 0;
}
NOKPROBE_SYMBOL(pcore_fp_entry);

static void notrace pcore_fp_exit(struct fprobe *fp, unsigned long ip,
				  unsigned long ret_ip, struct pt_regs *regs,
				  void *data)
{
	struct pcore_fgroup *g = container_of(fp, struct pcore_fgroup, fp);
	struct pcore_fp_data *d = data;

	pcore_hist_add_nopreempt(g->m[d->i].hist, pcore_fg_since(d->start));
}
NOKPROBE_SYMBOL(pcore_fp_exit);

static int notrace pcore_fp_count(struct fprobe *fp, unsigned long ip,
				  unsigned long ret_ip, struct pt_regs *regs,
				  void *data)
{
	struct pcore_fgroup *g = container_of(fp, struct pcore_fgroup, fp);
	int i = pcore_fg_find(g, ip);

	if (likely(i >= 0 && !READ_ONCE(g->m[i].gone))) {
		pcore_fg_hit(g, i);
		pcore_hist_count_nopreempt(g->m[i].hist);
	}
	return 0;
}
NOKPROBE_SYMBOL(pcore_fp_count);

/* Does current pass the filter of @fp's probe? */
static __always_inline bool pcore_fp_pass(struct fprobe *fp)
{
	return pcore_filter_pass(container_of(fp, struct pcore_fgroup, fp)->p);
}

/* With a filter: other tasks' calls stop here, untimed (1: no exit). */
static int notrace pcore_fp_entry_filtered(struct fprobe *fp, unsigned long ip,
					   unsigned long ret_ip,
					   struct pt_regs *regs, void *data)
{
	return pcore_fp_pass(fp) ? pcore_fp_entry(fp, ip, ret_ip, regs, data) : 1;
}
NOKPROBE_SYMBOL(pcore_fp_entry_filtered);

static int notrace pcore_fp_count_filtered(struct fprobe *fp, unsigned long ip,
					   unsigned long ret_ip,
					   struct pt_regs *regs, void *data)
{
	return pcore_fp_pass(fp) ? pcore_fp_count(fp, ip, ret_ip, regs, data) : 0;
}
NOKPROBE_SYMBOL(pcore_fp_count_filtered);

static int pcore_fg_register(struct pcore_fgroup *g)
{
	unsigned long *addrs;
	bool count = g->flags & PCORE_FUNCS_COUNT;
	u32 i;
	int ret;

	addrs = kmalloc_array(g->n, sizeof(*addrs), GFP_KERNEL);
	if (!addrs)
		return -ENOMEM;
	for (i = 0; i < g->n; i++)
		addrs[i] = g->m[i].addr;
	memset(&g->fp, 0, sizeof(g->fp));
	if (g->p->filtered)
		g->fp.entry_handler = count ? pcore_fp_count_filtered :
					      pcore_fp_entry_filtered;
	else
		g->fp.entry_handler = count ? pcore_fp_count : pcore_fp_entry;
	if (!count) {
		g->fp.exit_handler = pcore_fp_exit;
		g->fp.entry_data_size = sizeof(struct pcore_fp_data);
		g->fp.nr_maxactive = pcore_fg_maxactive(g);
	}
	ret = register_fprobe_ips(&g->fp, addrs, g->n);
	kfree(addrs);
	return ret;
}
#else
static int notrace pcore_fk_count(struct kprobe *kp, struct pt_regs *regs)
{
	struct pcore_fmember *m = container_of(kp, struct pcore_fmember, kp);

	pcore_fg_hit(m->g, m->i);
	pcore_hist_count_nopreempt(m->hist);
	return 0;
}
NOKPROBE_SYMBOL(pcore_fk_count);

static int notrace pcore_fk_entry(struct kretprobe_instance *ri,
				  struct pt_regs *regs)
{
	struct pcore_fmember *m = container_of(get_kretprobe(ri),
					       struct pcore_fmember, rp);

	pcore_fg_hit(m->g, m->i);
	*(u64 *)ri->data = ktime_get_mono_fast_ns();
	return 0;
}
NOKPROBE_SYMBOL(pcore_fk_entry);

/* With a filter: other tasks' calls stop here, untimed. */
static int notrace pcore_fk_count_filtered(struct kprobe *kp,
					   struct pt_regs *regs)
{
	struct pcore_fmember *m = container_of(kp, struct pcore_fmember, kp);

	return pcore_filter_pass(m->g->p) ? pcore_fk_count(kp, regs) : 0;
}
NOKPROBE_SYMBOL(pcore_fk_count_filtered);

static int notrace pcore_fk_entry_filtered(struct kretprobe_instance *ri,
					   struct pt_regs *regs)
{
	struct pcore_fmember *m = container_of(get_kretprobe(ri),
					       struct pcore_fmember, rp);

	return pcore_filter_pass(m->g->p) ? pcore_fk_entry(ri, regs) : 1;
}
NOKPROBE_SYMBOL(pcore_fk_entry_filtered);

static int notrace pcore_fk_return(struct kretprobe_instance *ri,
				   struct pt_regs *regs)
{
	struct pcore_fmember *m = container_of(get_kretprobe(ri),
					       struct pcore_fmember, rp);

	pcore_hist_add_nopreempt(m->hist, pcore_fg_since(*(u64 *)ri->data));
	return 0;
}
NOKPROBE_SYMBOL(pcore_fk_return);

/* Unregister members [0, @n) in one batch. */
static void pcore_fg_unregister(struct pcore_fgroup *g, u32 n)
{
	void **all;
	u32 i;

	if (!n)
		return;
	all = kmalloc_array(n, sizeof(*all), GFP_KERNEL | __GFP_NOWARN);
	for (i = 0; i < n; i++) {
		void *one = g->flags & PCORE_FUNCS_COUNT ?
			    (void *)&g->m[i].kp : (void *)&g->m[i].rp;

		if (all)
			all[i] = one;
		else if (g->flags & PCORE_FUNCS_COUNT)
			unregister_kprobe(one);
		else
			unregister_kretprobe(one);
	}
	if (all && g->flags & PCORE_FUNCS_COUNT)
		unregister_kprobes((struct kprobe **)all, n);
	else if (all)
		unregister_kretprobes((struct kretprobe **)all, n);
	kfree(all);
}

static int pcore_fg_register(struct pcore_fgroup *g)
{
	u32 i;
	int ret = 0;

	for (i = 0; i < g->n && !ret; i++) {
		struct pcore_fmember *m = &g->m[i];

		if (g->flags & PCORE_FUNCS_COUNT) {
			memset(&m->kp, 0, sizeof(m->kp));
			m->kp.addr = (void *)m->addr;
			m->kp.pre_handler = g->p->filtered ?
					    pcore_fk_count_filtered :
					    pcore_fk_count;
			ret = register_kprobe(&m->kp);
		} else {
			memset(&m->rp, 0, sizeof(m->rp));
			m->rp.kp.addr = (void *)m->addr;
			m->rp.entry_handler = g->p->filtered ?
					      pcore_fk_entry_filtered :
					      pcore_fk_entry;
			m->rp.handler = pcore_fk_return;
			m->rp.data_size = sizeof(u64);
			m->rp.maxactive = pcore_fg_maxactive(g);
			ret = register_kretprobe(&m->rp);
		}
	}
	if (ret)
		pcore_fg_unregister(g, i - 1);
	return ret;
}
#endif

/*
 * Bytes of @g and of what registering it allocates, counted against
 * mem_max: the members, their names and per-CPU hits, and the return
 * hooks of a group that times (counting needs none).
 */
size_t pcore_fgroup_mem(const struct pcore_fgroup *g)
{
	size_t mem = struct_size(g, m, g->n) +
		     (size_t)g->n * num_possible_cpus() * sizeof(local64_t);
	u32 i;

	for (i = 0; i < g->n; i++)
		mem += strlen(g->m[i].name) + 1;
	/* A direct call's: the sites its slot keeps; no return hooks. */
	if (g->p->kind == PCORE_PROBE_DIRECT_FUNCS)
		return mem + (size_t)g->n * sizeof(unsigned long);
	if (g->flags & PCORE_FUNCS_COUNT)
		return mem;
#ifdef PCORE_HAVE_FPROBE
	return mem + pcore_fprobe_mem(pcore_fg_maxactive(g),
				      sizeof(struct pcore_fp_data));
#else
	return mem + g->n * pcore_kret_mem(pcore_fg_maxactive(g), sizeof(u64));
#endif
}

static int pcore_fmember_cmp(const void *a, const void *b)
{
	const struct pcore_fmember *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * The members of @p (a %PCORE_PROBE_FUNCS probe) from @o, sorted by
 * address; not registered.  Return: 0 or -ENOMEM.
 */
int pcore_fgroup_init(struct pcore_probe *p, const struct pcore_funcs_opts *o)
{
	const struct pcore_funcs *f = o->funcs;
	struct pcore_fgroup *g;
	u32 i;

	g = kzalloc(struct_size(g, m, f->n), GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	g->hits = __alloc_percpu_gfp(f->n * sizeof(local64_t),
				     __alignof__(local64_t),
				     GFP_KERNEL | __GFP_NOWARN);
	if (!g->hits) {
		kfree(g);
		return -ENOMEM;
	}
	g->p = p;
	g->n = f->n;
	g->flags = o->flags;
	g->maxactive = o->maxactive;
	for (i = 0; i < f->n; i++) {
		g->m[i].name = kstrdup(f->f[i].name, GFP_KERNEL);
		if (!g->m[i].name) {
			p->fg = g;
			pcore_fgroup_release(p);
			return -ENOMEM;
		}
		g->m[i].addr = f->f[i].addr;
		g->m[i].hist = o->hists[i];
		g->m[i].g = g;
	}
	sort(g->m, g->n, sizeof(*g->m), pcore_fmember_cmp, NULL);
	for (i = 0; i < g->n; i++)
		g->m[i].i = i;
	p->fg = g;
	return 0;
}

/* Register @p's functions; caller holds pcore_lock.  Return: 0 or an errno. */
static int pcore_fgroup_arm(struct pcore_probe *p, const void *opts)
{
	int ret = pcore_fg_register(p->fg);

	if (ret)
		pcore_perr(p, "cannot attach to its %u functions (%pe)",
			   p->fg->n, ERR_PTR(ret));
	return ret;
}

/*
 * Unregister @p's functions.  With fprobe, its return handler may still
 * run on another CPU: a grace period before pcore_fgroup_release().
 */
static u32 pcore_fgroup_disarm(struct pcore_probe *p, struct pcore_batch *b)
{
	if (!p->armed)
		return 0;
#ifdef PCORE_HAVE_FPROBE
	unregister_fprobe(&p->fg->fp);
	return PCORE_SYNC_RCU;
#else
	pcore_fg_unregister(p->fg, p->fg->n);
	return 0;
#endif
}

/*
 * Free what pcore_fgroup_init() allocated (its members' hists are the
 * client's), unbinding the hists it fed.
 */
void pcore_fgroup_release(struct pcore_probe *p)
{
	u32 i;

	if (!p->fg)
		return;
	for (i = 0; i < p->fg->n; i++) {
		/* A group whose attach failed may share one with another. */
		if (p->fg->m[i].hist && p->fg->m[i].hist->probe == p)
			p->fg->m[i].hist->probe = NULL;
		kfree(p->fg->m[i].name);
	}
	free_percpu(p->fg->hits);
	kfree(p->fg);
	p->fg = NULL;
}

static int pcore_fgroup_set_enabled(struct pcore_probe *p, bool on)
{
	struct pcore_fgroup *g = p->fg;
	int ret = 0;

#ifdef PCORE_HAVE_FPROBE
	if (on)
		enable_fprobe(&g->fp);
	else
		disable_fprobe(&g->fp);
#else
	u32 i;

	for (i = 0; i < g->n && !ret; i++) {
		if (g->flags & PCORE_FUNCS_COUNT)
			ret = on ? enable_kprobe(&g->m[i].kp) :
				   disable_kprobe(&g->m[i].kp);
		else
			ret = on ? enable_kretprobe(&g->m[i].rp) :
				   disable_kretprobe(&g->m[i].rp);
	}
#endif
	return ret;
}

/* Calls missed: fprobe counts them for the whole probe. */
static unsigned long pcore_fgroup_missed(const struct pcore_probe *p)
{
	const struct pcore_fgroup *g = p->fg;
#ifdef PCORE_HAVE_FPROBE
	return READ_ONCE(g->fp.nmissed);
#else
	unsigned long n = 0;
	u32 i;

	for (i = 0; i < g->n; i++)
		n += g->flags & PCORE_FUNCS_COUNT ?
		     READ_ONCE(g->m[i].kp.nmissed) :
		     pcore_kretprobe_nmissed(&g->m[i].rp);
	return n;
#endif
}

/* The member that feeds @h, or NULL. */
static const struct pcore_fmember *pcore_fgroup_member(const struct pcore_probe *p,
						       const struct pcore_hist *h)
{
	u32 i;

	for (i = 0; h && i < p->fg->n; i++)
		if (p->fg->m[i].hist == h)
			return &p->fg->m[i];
	return NULL;
}

/* Calls of the function that feeds @h, or of all of them (@h NULL). */
static u64 pcore_fgroup_hits(const struct pcore_probe *p,
			     const struct pcore_hist *h)
{
	const struct pcore_fmember *m = pcore_fgroup_member(p, h);
	u32 i, lo = m ? m->i : 0, hi = m ? lo + 1 : p->fg->n;
	u64 n = 0;

	for (i = lo; i < hi; i++)
		n += pcore_pcpu_sum(&p->fg->hits[i]);
	return n;
}

/* How @p is attached, for log lines. */
const char *pcore_fgroup_how(const struct pcore_probe *p)
{
	if (p->kind == PCORE_PROBE_DIRECT_FUNCS)
		return "one direct-call trampoline";
#ifdef PCORE_HAVE_FPROBE
	return "one fprobe";
#else
	return p->fg->flags & PCORE_FUNCS_COUNT ? "a kprobe each" :
						  "a kretprobe each";
#endif
}

/* The function that feeds @h, or NULL. */
static const char *pcore_fgroup_symbol(const struct pcore_probe *p,
				       const struct pcore_hist *h)
{
	const struct pcore_fmember *m = pcore_fgroup_member(p, h);

	return m ? m->name : NULL;
}

#ifdef PCORE_HAVE_FPROBE
/*
 * A module goes: the functions of it that fprobes cover are gone.  ftrace
 * keeps their addresses in an fprobe's filter (v6.12's fprobe follows no
 * module), and a module loaded at the same place later would be seen
 * under the old functions' names: their handlers now skip them.  Called
 * before the module's code is freed; takes pcore_lock.  Without fprobe,
 * kprobes mark their own probes gone: no notifier.
 */
static int pcore_funcs_module_notify(struct notifier_block *nb,
				     unsigned long state, void *data)
{
	struct module *mod = data;
	struct pcore_probe *p;
	u32 i;

	if (state != MODULE_STATE_GOING)
		return NOTIFY_OK;
	mutex_lock(&pcore_lock);
	pcore_for_each_probe(p) {
		if (p->kind != PCORE_PROBE_FUNCS)
			continue;
		for (i = 0; i < p->fg->n; i++)
			if (within_module(p->fg->m[i].addr, mod))
				WRITE_ONCE(p->fg->m[i].gone, true);
	}
	mutex_unlock(&pcore_lock);
	return NOTIFY_OK;
}

static struct notifier_block pcore_funcs_module_nb = {
	.notifier_call = pcore_funcs_module_notify,
};

int pcore_funcs_init(void)
{
	return register_module_notifier(&pcore_funcs_module_nb);
}

void pcore_funcs_exit(void)
{
	unregister_module_notifier(&pcore_funcs_module_nb);
}
#else
int pcore_funcs_init(void)
{
	return 0;
}

void pcore_funcs_exit(void)
{
}
#endif

/*
 * What pcore_funcs_attach() gives a direct group's arm under
 * mechanism=auto: where the first function refused, and why, goes.
 */
struct pcore_funcs_try {
	char *why;
	size_t len;
};

/* Each function's histogram: the client's, fed by no other probe, once. */
static int pcore_fgroup_check(struct pcore_probe *p)
{
	const struct pcore_fgroup *g = p->fg;
	u32 i, j;

	for (i = 0; i < g->n; i++) {
		const struct pcore_hist *h = g->m[i].hist;

		if (h->client != p->client) {
			pcore_perr(p, "hist %s belongs to another module",
				   h->name);
			return -EINVAL;
		}
		if (h->probe) {
			pcore_perr(p, "hist %s is already fed by %s", h->name,
				   h->probe->name);
			return -EBUSY;
		}
		for (j = 0; j < i; j++) {
			if (g->m[j].hist != h)
				continue;
			pcore_perr(p, "hist %s is given for %s and %s", h->name,
				   g->m[j].name, g->m[i].name);
			return -EINVAL;
		}
	}
	return 0;
}

/* Each function's histogram is fed by @p. */
static void pcore_fgroup_link(struct pcore_probe *p)
{
	u32 i;

	for (i = 0; i < p->fg->n; i++)
		p->fg->m[i].hist->probe = p;
}

const struct pcore_probe_ops pcore_funcs_ops = {
	.kind = PCORE_PROBE_FUNCS,
	.name_chars = "-*?",
	.check = pcore_fgroup_check,
	.arm = pcore_fgroup_arm,
	.link = pcore_fgroup_link,
	.disarm = pcore_fgroup_disarm,
	.release = pcore_fgroup_release,
	.set_enabled = pcore_fgroup_set_enabled,
	.hits = pcore_fgroup_hits,
	.hist_symbol = pcore_fgroup_symbol,
	.missed = pcore_fgroup_missed,
};

#ifdef PCORE_HAVE_DIRECT
/*
 * Through a direct call (direct.c): one trampoline for every function,
 * which the hot paths tell apart by a binary search as fprobe's handlers
 * do; no return hooks, so nothing missed.
 */
static int pcore_fgroup_direct_arm(struct pcore_probe *p, const void *opts)
{
	const struct pcore_funcs_try *t = opts;

	return pcore_direct_group_arm(p, t ? t->why : NULL, t ? t->len : 0);
}

/* direct.c's part (the filter, calls in flight), then the group. */
static void pcore_fgroup_direct_release(struct pcore_probe *p)
{
	pcore_direct_group_release(p);
	pcore_fgroup_release(p);
}

static const struct pcore_probe_ops pcore_funcs_direct_ops = {
	.kind = PCORE_PROBE_DIRECT_FUNCS,
	.name_chars = "-*?",
	.check = pcore_fgroup_check,
	.arm = pcore_fgroup_direct_arm,
	.link = pcore_fgroup_link,
	.disarm = pcore_direct_group_disarm,
	.release = pcore_fgroup_direct_release,
	.set_enabled = pcore_direct_group_set_enabled,
	.hits = pcore_fgroup_hits,
	.hist_symbol = pcore_fgroup_symbol,
};
#endif

/* probes on many functions */

/*
 * One probe through @ops on @o's functions; under mechanism=auto, @t for
 * a direct group's arm to say why it cannot go; @why: why auto took this
 * fprobe or these kprobes, or NULL.
 */
static struct pcore_probe *
pcore_funcs_attach_ops(struct pcore_client *c, const struct pcore_funcs_opts *o,
		       const struct pcore_probe_ops *ops,
		       const struct pcore_funcs_try *t, const char *why)
{
	struct pcore_probe *p;
	u32 i;
	int ret;

	p = pcore_probe_new(c, ops, o->name, NULL, NULL, o->priv, &o->filter);
	if (IS_ERR(p))
		return p;
	ret = -EINVAL;
	if (IS_ERR_OR_NULL(o->funcs) || !o->hists) {
		pcore_perr(p, "needs funcs (from pcore_funcs_find()) and hists");
		goto out;
	}
	for (i = 0; i < pcore_funcs_count(o->funcs); i++) {
		if (IS_ERR_OR_NULL(o->hists[i])) {
			pcore_perr(p, "no hist for function %u (%s)", i,
				   pcore_funcs_name(o->funcs, i));
			goto out;
		}
	}
	if (o->flags & ~PCORE_FUNCS_COUNT) {
		pcore_perr(p, "unknown flags %#x", o->flags);
		goto out;
	}
	if (o->maxactive < 0 || o->maxactive > PCORE_MAXACTIVE_MAX) {
		pcore_perr(p, "maxactive %d is not 0 to %d", o->maxactive,
			   PCORE_MAXACTIVE_MAX);
		goto out;
	}
	ret = pcore_fgroup_init(p, o);
	if (ret) {
		pcore_perr(p, "out of memory");
		goto out;
	}
	if (why) {
		strscpy(p->fg->why, why, sizeof(p->fg->why));
		pcore_probe_set_why(p, p->fg->why);
	}
	/* One word, as every field of the probes file. */
	snprintf(p->symbol, sizeof(p->symbol), "%u_functions", p->fg->n);
	ret = pcore_probe_charge(p, pcore_fgroup_mem(p->fg));
out:
	return pcore_probe_add(p, t, ret);
}

/**
 * pcore_funcs_attach() - attach one probe to many kernel functions
 * @c: the client it belongs to
 * @o: what to attach; see struct pcore_funcs_opts
 *
 * By @o->mech: with %PCORE_MECH_DIRECT (or %PCORE_MECH_AUTO, where every
 * function can go so), one ftrace direct call to one trampoline for all
 * of them.  Else, where the kernel has fprobe, one fprobe covers every
 * function: one registration, one unregistration; elsewhere a kretprobe
 * (or, to count, a kprobe) per function, unregistered in one batch.
 * Under %PCORE_MECH_AUTO, the stats of each function's histogram then
 * name the first function no direct call takes, and why.  Sleeps.
 *
 * Return: the probe, or ERR_PTR(-EINVAL) for bad options,
 * ERR_PTR(-EEXIST) when the client has a probe of that name,
 * ERR_PTR(-EPERM) when the kernel is locked down (confidentiality),
 * ERR_PTR(-E2BIG) when it would go over mem_max, or the errno of fprobe
 * or kprobes; with %PCORE_MECH_DIRECT, the errno of the first function
 * no direct call takes (as pcore_direct_attach() gives it; -EOPNOTSUPP
 * for a kernel without direct calls); one log line says which.
 */
struct pcore_probe *pcore_funcs_attach(struct pcore_client *c,
				       const struct pcore_funcs_opts *o)
{
	char why[192] = "";
	struct pcore_funcs_try t = { .why = why, .len = sizeof(why) };
	struct pcore_probe *p;
	int ret;

	ret = pcore_check_args("functions", c, o);
	if (ret)
		return ERR_PTR(ret);
	if (o->mech > PCORE_MECH_AUTO) {
		pcore_cerr(c, "functions %s: mechanism %u is not 0 to %d",
			   o->name ?: "(null)", o->mech, PCORE_MECH_AUTO);
		return ERR_PTR(-EINVAL);
	}
	if (o->mech == PCORE_MECH_DIRECT || o->mech == PCORE_MECH_AUTO) {
#ifdef PCORE_HAVE_DIRECT
		p = pcore_funcs_attach_ops(c, o, &pcore_funcs_direct_ops,
					   o->mech == PCORE_MECH_AUTO ? &t : NULL,
					   NULL);
		if (!IS_ERR(p) || !why[0])
			return p;
#else
		if (o->mech == PCORE_MECH_DIRECT) {
			pcore_cerr(c, "functions %s: mechanism direct: this kernel has no ftrace direct calls",
				   o->name ?: "(null)");
			return ERR_PTR(-EOPNOTSUPP);
		}
		strscpy(why, "this kernel has no ftrace direct calls",
			sizeof(why));
#endif
	}
	return pcore_funcs_attach_ops(c, o, &pcore_funcs_ops, NULL,
				      why[0] ? why : NULL);
}
EXPORT_SYMBOL_GPL(pcore_funcs_attach);
