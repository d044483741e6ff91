// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/probe_core: binary snapshots and control through ioctls, for
 * probectl.  The ABI is include/uapi/probe_core.h.
 *
 * Every command copies its whole struct in, checks every field (strings
 * NUL-terminated, reserved fields zero, sizes exact), and copies out a
 * struct built from zero, so nothing of the kernel's memory leaks out.
 * Histograms are looked up under pcore_lock and held by a reference
 * while they are read, harvested and copied out without it; nothing is
 * copied to or from user memory while pcore_lock is held.
 * RESET and READ with PCORE_READ_RESET need a file opened for writing;
 * attach, detach, enable and disable need CAP_SYS_ADMIN.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <uapi/probe_core.h>
#include "pcore.h"

static_assert(sizeof(struct pcore_ioc_version) == 72);
static_assert(sizeof(struct pcore_ioc_entry) == PCORE_ENTRY_SIZE);
static_assert(offsetof(struct pcore_ioc_entry, probe) == PCORE_ENTRY_V5_SIZE);
static_assert(sizeof(struct pcore_ioc_list) == 32);
static_assert(PCORE_ATTACH_MECH_KPROBE >> 1 == PCORE_MECH_KPROBE &&
	      PCORE_ATTACH_MECH_DIRECT >> 1 == PCORE_MECH_DIRECT &&
	      PCORE_ATTACH_MECH_AUTO >> 1 == PCORE_MECH_AUTO);
static_assert(sizeof(struct pcore_ioc_bucket) == 24);
static_assert(sizeof(struct pcore_ioc_read) == 328);
static_assert(sizeof(struct pcore_ioc_name) == 144);
static_assert(sizeof(struct pcore_ioc_attach) == 384);
static_assert(offsetof(struct pcore_ioc_attach, target) + 8 ==
	      PCORE_ATTACH_V4_SIZE);
static_assert(PCORE_UAPI_SHORT_MAX == PCORE_UNIT_MAX);
static_assert(sizeof(((struct pcore_ioc_attach *)0)->comm) == TASK_COMM_LEN);
static_assert(PCORE_UAPI_NAME_MAX == PCORE_NAME_MAX);
static_assert(PCORE_UAPI_LABEL_MAX == PCORE_LABEL_MAX);

static bool pcore_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

/* A NUL-terminated, non-empty string within its array. */
static bool pcore_str_ok(const char *s, size_t len)
{
	return *s && memchr(s, '\0', len);
}

/* Fits: pcore_hist_create() refuses longer full names. */
static void pcore_full_name(const struct pcore_hist *h, char *buf, size_t len)
{
	if (snprintf(buf, len, "%s%s%s", h->client->name,
		     *h->client->name ? "/" : "", h->name) >= len)
		WARN_ON_ONCE(1);
}

static long pcore_ioc_version(void __user *arg)
{
	struct pcore_ioc_version v = {
		.abi = PCORE_ABI_VERSION,
		.nr_cpu_ids = nr_cpu_ids,
	};

	strscpy(v.module_version, THIS_MODULE->version ?: "",
		sizeof(v.module_version));
	return copy_to_user(arg, &v, sizeof(v)) ? -EFAULT : 0;
}

static void pcore_fill_entry(struct pcore_hist *h, struct pcore_ioc_entry *e)
{
	struct pcore_probe *p = h->probe;

	pcore_full_name(h, e->name, sizeof(e->name));
	strscpy(e->unit, h->unit, sizeof(e->unit));
	pcore_layout_kind_text(&h->layout, e->hist_kind, sizeof(e->hist_kind));
	if (h->map.key_mode)
		strscpy(e->key_name, h->key_name, sizeof(e->key_name));
	if (h->map.key_mode == PCORE_KEYS_STACK)
		e->flags |= PCORE_ENT_STACKS;
	e->nbuckets = h->layout.nbuckets;
	e->nkeys = h->map.nslots;
	e->mem_kib = min_t(size_t, DIV_ROUND_UP(h->mem, 1024), U32_MAX);
	if (h->client == pcore_client_get_own())
		e->flags |= PCORE_ENT_OWN;
	if (!p)
		return;
	e->flags |= PCORE_ENT_HAS_PROBE;
	/* Own: what detach takes (a glob's probe feeds all its histograms). */
	if (e->flags & PCORE_ENT_OWN)
		strscpy(e->probe, p->name, sizeof(e->probe));
	strscpy(e->symbol, pcore_probe_hist_symbol(p, h), sizeof(e->symbol));
	strscpy(e->probe_kind, pcore_probe_kind_name(p), sizeof(e->probe_kind));
	e->hits = pcore_probe_hist_hits(p, h);
	e->missed = pcore_probe_missed(p);
	if (p->disabled)
		e->flags |= PCORE_ENT_DISABLED;
	if (pcore_probe_waiting(p))
		e->flags |= PCORE_ENT_WAITING;
	if (pcore_probe_gone(p))
		e->flags |= PCORE_ENT_GONE;
}

/*
 * The counts are read outside pcore_lock, holding a reference: a count
 * takes h->lock, which a harvest holds for a grace period.  They are read
 * before the entries (and their probes' hits) are filled under pcore_lock
 * again: a probe counts a hit before its handler records (and x86 makes
 * stores visible in order), so an entry's count is never ahead of its
 * hits.  The list is of the histograms counted at the first pass that are
 * still linked at the second.  Entries of PCORE_ENTRY_V5_SIZE (a caller
 * older than @probe) are the first bytes of each, packed.
 */
static long pcore_ioc_list(void __user *arg)
{
	struct pcore_ioc_entry *e = NULL;
	struct pcore_hist *h, **hs = NULL;
	struct pcore_ioc_list l;
	struct pcore_client *c;
	u32 n = 0, i = 0, j, k = 0;
	u64 *counts = NULL;
	long ret = 0;

	if (copy_from_user(&l, arg, sizeof(l)))
		return -EFAULT;
	if ((l.entry_size != sizeof(*e) &&
	     l.entry_size != PCORE_ENTRY_V5_SIZE) ||
	    !pcore_zero(l.reserved, sizeof(l.reserved)))
		return -EINVAL;
	mutex_lock(&pcore_lock);
	pcore_for_each_client(c)
		pcore_for_each_hist(c, h)
			n++;
	if (n > l.n) {
		ret = -ENOSPC;
	} else if (n) {
		e = kvcalloc(n, sizeof(*e), GFP_KERNEL);
		hs = kvcalloc(n, sizeof(*hs), GFP_KERNEL);
		counts = kvcalloc(n, sizeof(*counts), GFP_KERNEL);
		if (!e || !hs || !counts)
			ret = -ENOMEM;
	}
	if (!ret && e)
		pcore_for_each_client(c)
			pcore_for_each_hist(c, h) {
				kref_get(&h->ref);
				hs[i++] = h;
			}
	mutex_unlock(&pcore_lock);
	for (j = 0; j < i; j++) {
		mutex_lock(&hs[j]->lock);
		counts[j] = pcore_hist_lifetime(hs[j]);
		mutex_unlock(&hs[j]->lock);
	}
	if (i) {
		mutex_lock(&pcore_lock);
		/* Unlinked since (pcore_hist_unlink()): its client may be gone. */
		for (j = 0; j < i; j++) {
			if (hs[j]->unlinked)
				continue;
			pcore_fill_entry(hs[j], &e[k]);
			e[k++].count = counts[j];
		}
		mutex_unlock(&pcore_lock);
	}
	for (j = 0; j < i; j++)
		pcore_hist_put(hs[j]);
	kvfree(hs);
	kvfree(counts);
	if (!ret)
		n = k;
	/* Packed down to the caller's size: each move is to a lower place. */
	for (j = 1; !ret && l.entry_size != sizeof(*e) && j < n; j++)
		memmove((char *)e + (size_t)j * l.entry_size, &e[j],
			l.entry_size);
	if (!ret && n && copy_to_user(u64_to_user_ptr(l.entries), e,
				      (size_t)n * l.entry_size))
		ret = -EFAULT;
	kvfree(e);
	l.n = n;
	if ((!ret || ret == -ENOSPC) && copy_to_user(arg, &l, sizeof(l)))
		ret = -EFAULT;
	return ret;
}

static int pcore_read_check(const struct pcore_ioc_read *r)
{
	if (!pcore_str_ok(r->name, sizeof(r->name)) ||
	    r->flags & ~(PCORE_READ_RESET | PCORE_READ_KEY | PCORE_READ_TOTAL) ||
	    r->bucket_size != sizeof(struct pcore_ioc_bucket) ||
	    r->key_used || r->key || r->pad || r->count || r->sum || r->min ||
	    r->max || r->p50 || r->p90 || r->p99 || r->p999 ||
	    r->error_ppm || r->error_abs || r->missed || r->dropped ||
	    r->nframes || r->created_ns ||
	    !pcore_zero(r->label, sizeof(r->label)) || r->lost)
		return -EINVAL;
	/* Room for any stack, or none: never a stack half written. */
	if (r->frames ? r->frames_size != PCORE_UAPI_FRAMES_MAX ||
			!(r->flags & PCORE_READ_KEY) : r->frames_size)
		return -EINVAL;
	if (r->cpu < -1 || r->cpu >= (int)nr_cpu_ids ||
	    (r->cpu >= 0 && !cpu_possible(r->cpu)))
		return -EINVAL;
	if ((r->flags & PCORE_READ_RESET) && r->cpu != -1)
		return -EINVAL;
	/*
	 * The total is kept of all keys and CPUs merged, and never reset;
	 * per key only for cgroups (pcore_read_snap() checks the kind).
	 */
	if ((r->flags & PCORE_READ_TOTAL) &&
	    ((r->flags & ~PCORE_READ_KEY) != PCORE_READ_TOTAL || r->cpu != -1 ||
	     r->frames))
		return -EINVAL;
	if (!(r->flags & PCORE_READ_KEY) && r->slot)
		return -EINVAL;
	return 0;
}

/*
 * The snapshot @in asks for, into @s (of @h's layout, empty), and the key
 * it names into @kv (@kv->s unused; a stack's frames into @kv->frames,
 * room for the depth): whether the key is in use.
 */
static int pcore_read_snap(struct pcore_hist *h, const struct pcore_ioc_read *in,
			   struct pcore_snap *s, struct pcore_keyval *kv)
{
	unsigned long *frames = kv->frames;

	bool one = in->flags & PCORE_READ_KEY;
	struct pcore_kvs kvs;
	bool used = false;
	u32 i;
	int ret;

	if (one && in->slot >= h->map.nslots)
		return -EINVAL;
	if (in->flags & PCORE_READ_RESET) {
		ret = pcore_hist_harvest(h, &kvs);
		if (ret)
			return ret;
		for (i = 0; i < kvs.n; i++) {
			if (one && kvs.kv[i].slot != in->slot)
				continue;
			pcore_snap_merge(s, kvs.kv[i].s);
			if (one) {
				*kv = kvs.kv[i];
				kv->frames = frames;
				if (frames)
					memcpy(frames, kvs.kv[i].frames,
					       kv->nframes * sizeof(*frames));
				used = true;
			}
		}
		pcore_kvs_free(&kvs);
		return used;
	}
	if (one && (in->flags & PCORE_READ_TOTAL) && !h->cgt_keys)
		return -EINVAL;	/* per-key totals: of cgroups only */
	mutex_lock(&h->lock);
	if (one && (in->flags & PCORE_READ_TOTAL)) {
		used = pcore_hist_read_cgtotal(h, in->slot, s, kv);
		kv->frames = frames;
		mutex_unlock(&h->lock);
		return used;
	}
	if (in->flags & PCORE_READ_TOTAL) {
		pcore_hist_read_total(h, s);
		mutex_unlock(&h->lock);
		return false;
	}
	for (i = 0; i < h->map.nslots; i++)
		if (!one || i == in->slot)
			pcore_hist_read(h, in->cpu, i, s);
	if (one)
		used = pcore_hist_slot_key(h, in->slot, kv) || s->count;
	mutex_unlock(&h->lock);
	return used;
}

/*
 * A stack's frames as text into @buf (PCORE_UAPI_FRAMES_MAX bytes), one a
 * line, each cut to 254 characters: what fits, whatever the stack; the
 * frames (lines but "[...]") into @nframes.  The most: 127 kernel frames
 * (or "[...]"), "[...]" and "[proc] TGID COMM" (a process without user
 * frames, stack.h), or fewer kernel frames with user frames' short lines.
 */
static u32 pcore_frames_text(char *buf, const struct pcore_keyval *kv,
			     u32 *nframes)
{
	char line[256];
	size_t len = 0;
	u32 i = 0;

	BUILD_BUG_ON(PCORE_UAPI_FRAMES_MAX <
		     (PCORE_STACK_DEPTH_MAX + 1) * (sizeof(line) - 1) +
		     /* the [proc] line, its '\n' for the NUL of sizeof */
		     sizeof("[proc] 4294967295 ") + TASK_COMM_LEN);
	*nframes = 0;
	while (i < kv->nframes) {
		i = pcore_stack_frame(line, sizeof(line) - 1, kv->frames,
				      kv->nframes, kv->fflags, i);
		len += scnprintf(buf + len, PCORE_UAPI_FRAMES_MAX - len,
				 "%s\n", line);
		/* With a process, "[...]" is a line among the frames. */
		if (strcmp(line, "[...]"))
			(*nframes)++;
	}
	if ((kv->fflags & (PCORE_STACK_F_CUT | PCORE_STACK_F_PROC)) ==
	    PCORE_STACK_F_CUT)
		len += scnprintf(buf + len, PCORE_UAPI_FRAMES_MAX - len,
				 "[...]\n");
	buf[len] = '\0';
	return len + 1;
}

static void pcore_read_fill(struct pcore_hist *h, const struct pcore_ioc_read *in,
			    const struct pcore_snap *s, bool used,
			    const struct pcore_keyval *kv,
			    struct pcore_ioc_read *r, struct pcore_ioc_bucket *b)
{
	const struct pcore_layout *l = &h->layout;
	u32 i;

	memcpy(r->name, in->name, sizeof(r->name));
	r->cpu = in->cpu;
	r->flags = in->flags;
	r->slot = in->slot;
	r->nbuckets = l->nbuckets;
	r->buckets = in->buckets;
	r->frames = in->frames;
	r->bucket_size = in->bucket_size;
	if (used) {
		r->key_used = 1;
		r->key = kv->key;
		strscpy(r->label, kv->label, sizeof(r->label));
	}
	r->count = s->count;
	r->sum = s->sum;
	r->min = s->count ? s->min : 0;
	r->max = s->max;
	r->p50 = pcore_snap_percentile(l, s, 500000);
	r->p90 = pcore_snap_percentile(l, s, 900000);
	r->p99 = pcore_snap_percentile(l, s, 990000);
	r->p999 = pcore_snap_percentile(l, s, 999000);
	r->error_ppm = pcore_layout_error_ppm(l, &r->error_abs);
	r->dropped = pcore_hist_dropped(h);
	if (in->flags & PCORE_READ_TOTAL)
		r->lost = READ_ONCE(h->cgt_lost);
	r->created_ns = h->created;
	for (i = 0; i < l->nbuckets; i++) {
		pcore_bucket_bounds(l, i, &b[i].lo, &b[i].hi);
		b[i].count = s->b[i];
	}
}

/*
 * Histogram @name with a reference, and its probe's missed count, or
 * NULL; see pcore_hist_put().
 */
static struct pcore_hist *pcore_hist_get(const char *name,
					 unsigned long *missed)
{
	struct pcore_hist *h;

	mutex_lock(&pcore_lock);
	h = pcore_hist_lookup(name);
	if (h) {
		kref_get(&h->ref);
		*missed = h->probe ? pcore_probe_missed(h->probe) : 0;
	}
	mutex_unlock(&pcore_lock);
	return h;
}

/* The buckets of histogram @name, 0 when there is none. */
static u32 pcore_read_need(const char *name)
{
	struct pcore_hist *h;
	u32 n;

	mutex_lock(&pcore_lock);
	h = pcore_hist_lookup(name);
	n = h ? h->layout.nbuckets : 0;
	mutex_unlock(&pcore_lock);
	return n;
}

static long pcore_ioc_read(void __user *arg, bool writer)
{
	struct pcore_ioc_read in, *r = NULL;
	struct pcore_ioc_bucket *b = NULL;
	struct pcore_snap *s = NULL;
	struct pcore_keyval kv = {};
	unsigned long *frames = NULL;
	unsigned long missed;
	struct pcore_hist *h;
	char *text = NULL;
	u32 need;
	long ret;

	if (copy_from_user(&in, arg, sizeof(in)))
		return -EFAULT;
	ret = pcore_read_check(&in);
	if (ret)
		return ret;
	if ((in.flags & PCORE_READ_RESET) && !writer)
		return -EBADF;
	/*
	 * A reset cannot be undone: make sure the answer can be written
	 * before anything is moved out, or the interval would be lost.  The
	 * whole room the caller gave is checked, so a histogram that
	 * replaces this one meanwhile is covered too; but not written: the
	 * answer writes what a read without reset writes, no more.
	 */
	if (in.flags & PCORE_READ_RESET) {
		need = pcore_read_need(in.name);
		if (need && in.nbuckets >= need &&
		    (pcore_fault_in_writeable(u64_to_user_ptr(in.buckets),
					      min_t(u32, in.nbuckets,
						    PCORE_MAX_BUCKETS) *
					      sizeof(*b)) ||
		     (in.frames &&
		      pcore_fault_in_writeable(u64_to_user_ptr(in.frames),
					       in.frames_size)) ||
		     copy_to_user(arg, &in, sizeof(in))))
			return -EFAULT;
	}
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;

	h = pcore_hist_get(in.name, &missed);
	if (!h) {
		ret = -ENOENT;
		goto out;
	}
	if (in.nbuckets < h->layout.nbuckets) {
		/* Tell the caller how much room it needs. */
		memcpy(r, &in, sizeof(*r));
		r->nbuckets = h->layout.nbuckets;
		ret = -ENOSPC;
		goto out;
	}
	s = kvmalloc(pcore_snap_size(&h->layout), GFP_KERNEL);
	b = kvcalloc(h->layout.nbuckets, sizeof(*b), GFP_KERNEL);
	if (in.frames && h->map.key_mode == PCORE_KEYS_STACK) {
		text = kvmalloc(PCORE_UAPI_FRAMES_MAX, GFP_KERNEL);
		frames = kmalloc_array(pcore_stack_words(h->map.depth),
				       sizeof(*frames), GFP_KERNEL);
	}
	if (!s || !b || (in.frames && h->map.key_mode == PCORE_KEYS_STACK &&
			 (!text || !frames))) {
		ret = -ENOMEM;
		goto out;
	}
	pcore_snap_init(&h->layout, s);
	/* Without room of ours, a stack's frames are not copied out. */
	kv.frames = frames;
	ret = pcore_read_snap(h, &in, s, &kv);
	if (ret >= 0) {
		pcore_read_fill(h, &in, s, ret, &kv, r, b);
		r->missed = missed;
		ret = 0;
	}
	if (!ret && text)
		r->frames_size = pcore_frames_text(text, &kv, &r->nframes);
out:
	if (h)
		pcore_hist_put(h);
	if (!ret && copy_to_user(u64_to_user_ptr(in.buckets), b,
				 r->nbuckets * sizeof(*b)))
		ret = -EFAULT;
	if (!ret && text && copy_to_user(u64_to_user_ptr(in.frames), text,
					 r->frames_size))
		ret = -EFAULT;
	if ((!ret || ret == -ENOSPC) && copy_to_user(arg, r, sizeof(*r)))
		ret = -EFAULT;
	kvfree(s);
	kvfree(b);
	kvfree(text);
	kfree(frames);
	kfree(r);
	return ret;
}

static int pcore_name_in(void __user *arg, struct pcore_ioc_name *n)
{
	if (copy_from_user(n, arg, sizeof(*n)))
		return -EFAULT;
	if (!pcore_str_ok(n->name, sizeof(n->name)) ||
	    !pcore_zero(n->reserved, sizeof(n->reserved)))
		return -EINVAL;
	return 0;
}

static long pcore_ioc_reset(void __user *arg)
{
	struct pcore_ioc_name n;
	unsigned long missed;
	struct pcore_hist *h;
	int ret = pcore_name_in(arg, &n);

	if (ret)
		return ret;
	h = pcore_hist_get(n.name, &missed);
	if (!h)
		return -ENOENT;
	pcore_hist_harvest(h, NULL);	/* cannot fail without an answer */
	pcore_hist_put(h);
	return 0;
}

/* Fields the histogram kind does not use must be zero: none is ignored. */
static bool pcore_attach_spec_ok(const struct pcore_ioc_attach *a)
{
	switch (a->hist_kind) {
	case PCORE_UAPI_HIST_DEFAULT:
	case PCORE_UAPI_HIST_LOG2:
		return !a->precision && !a->min && !a->max && !a->step;
	case PCORE_UAPI_HIST_LINEAR:
		return !a->precision;
	case PCORE_UAPI_HIST_LOGLINEAR:
	case PCORE_UAPI_HIST_EXP:
		return !a->min && !a->step;
	}
	return false;
}

/* A depth is for "FUNC:stacks[:ustack]" only (the name's form). */
static bool pcore_attach_stacks(const char *name)
{
	size_t len = strlen(name);

	if (len > 7 && !strcmp(name + len - 7, ":ustack"))
		len -= 7;
	return len > 7 && !strncmp(name + len - 7, ":stacks", 7);
}

/*
 * The probe's fields (ABI 5) into @r->probe: the fields' ranges, bytes and
 * the kinds they go with here; their rules (pcore_probe_spec_check()) when
 * the probe is attached.  A profiler's name may be "".
 */
static bool pcore_attach_probe_ok(const struct pcore_ioc_attach *a,
				  struct pcore_builtin_req *r)
{
	bool whole = a->kind == PCORE_ATTACH_PROFILE ||
		     a->kind == PCORE_ATTACH_TRACEPOINT;
	u32 wflags = whole ? a->flags & (PCORE_ATTACH_USTACK |
					 PCORE_ATTACH_NO_KTHREADS) : 0;
	bool fields = a->what || a->arg || a->unit[0] || (a->flags & ~wflags);
	bool func = a->kind == PCORE_ATTACH_KRETPROBE ||
		    a->kind == PCORE_ATTACH_UPROBE;

	/*
	 * A tracepoint's only field: runqlat's ":by=pid" or ":by=cgroup"
	 * (checked later, both at once too).
	 */
	if (a->kind == PCORE_ATTACH_TRACEPOINT && !a->what && !a->arg &&
	    !a->unit[0] && a->flags &&
	    !(a->flags & ~(PCORE_ATTACH_BY_PID | PCORE_ATTACH_BY_CGROUP)))
		fields = false;

	if (!memchr(a->target, '\0', sizeof(a->target)) ||
	    !memchr(a->unit, '\0', sizeof(a->unit)) || a->pad ||
	    (fields && (!func || !a->target[0])))
		return false;
	/* Whole-system views: their flags are the request's. */
	r->ustack = wflags & PCORE_ATTACH_USTACK;
	r->no_kthreads = wflags & PCORE_ATTACH_NO_KTHREADS;
	if (a->kind == PCORE_ATTACH_PROFILE)
		return !a->target[0];
	strscpy(r->probe.func, a->target, sizeof(r->probe.func));
	strscpy(r->probe.unit, a->unit, sizeof(r->probe.unit));
	r->probe.what = a->what;
	r->probe.arg = a->arg;
	r->probe.flags = a->flags & ~(PCORE_ATTACH_MECH_MASK | wflags);
	/* PCORE_ATTACH_MECH_* are enum pcore_mech, one bit up. */
	r->mech = (a->flags & PCORE_ATTACH_MECH_MASK) >> 1;
	if (r->mech && a->kind != PCORE_ATTACH_KRETPROBE) {
		pr_err("attach=%*pE: a mechanism is for kernel functions only\n",
		       (int)strlen(a->target), a->target);
		return false;
	}
	return true;
}

/*
 * PCORE_IOC_ATTACH, and PCORE_IOC_ATTACH_V4 (@a with @target and the
 * fields after it zero): a probe of probe_core's own.
 */
static long pcore_attach(struct pcore_ioc_attach *a)
{
	struct pcore_builtin_req r = { .param = "attach" };
	bool profile = a->kind == PCORE_ATTACH_PROFILE;
	char name[PCORE_NAME_MAX];
	long ret;

	if (!memchr(a->name, '\0', sizeof(a->name)) ||
	    (!a->name[0] && !a->target[0] && !profile) ||
	    !memchr(a->comm, '\0', sizeof(a->comm)) ||
	    !pcore_zero(a->reserved, sizeof(a->reserved)) ||
	    !pcore_attach_probe_ok(a, &r) ||
	    (a->depth && !profile && r.probe.what != PCORE_WHAT_STACKS &&
	     !(!a->target[0] && pcore_attach_stacks(a->name))) ||
	    (!a->hz != !profile) ||
	    (profile && (a->maxactive || a->hist_kind || a->precision ||
			 a->min || a->max || a->step)) ||
	    (a->kind != PCORE_ATTACH_KRETPROBE &&
	     a->kind != PCORE_ATTACH_TRACEPOINT &&
	     a->kind != PCORE_ATTACH_UPROBE && !profile) ||
	    !pcore_attach_spec_ok(a) ||
	    a->maxactive > PCORE_MAXACTIVE_MAX ||
	    (a->kind == PCORE_ATTACH_TRACEPOINT && a->maxactive) ||
	    (a->kind != PCORE_ATTACH_UPROBE && (a->fd || a->offset)))
		return -EINVAL;
	/* The name: given, or what target= would name the probe. */
	r.name = a->name;
	if (!a->name[0] && profile) {
		r.name = "profile";
	} else if (!a->name[0] && a->target[0]) {
		if (pcore_probe_spec_name(&r.probe, name, sizeof(name))) {
			pr_err("attach=%*pE: the name made from it is longer than %d characters: give one\n",
			       (int)strlen(a->target), a->target,
			       PCORE_NAME_MAX - 1);
			return -EINVAL;
		}
		r.name = name;
	}
	if (a->kind == PCORE_ATTACH_UPROBE) {
		r.file = fget(a->fd);
		if (!r.file)
			return -EBADF;
	}
	r.tracepoint = a->kind == PCORE_ATTACH_TRACEPOINT;
	r.spec.kind = a->hist_kind;	/* 0: the target's default */
	r.spec.precision = a->precision;
	r.spec.min = a->min;
	r.spec.max = a->max;
	r.spec.step = a->step;
	r.maxactive = a->maxactive;
	r.offset = a->offset;
	r.filter.pid = a->pid;
	memcpy(r.filter.comm, a->comm, sizeof(r.filter.comm));
	r.depth = a->depth;	/* over 127: the histogram refuses it */
	r.hz = a->hz;		/* over 4000: the profiler refuses it */
	/* Before ABI 5, and with no target: the name says the probe. */
	if (!profile && !a->target[0])
		ret = pcore_builtin_attach_text(&r);
	else
		ret = pcore_builtin_attach(&r);
	if (r.file)
		fput(r.file);
	return ret;
}

static long pcore_ioc_attach(void __user *arg)
{
	struct pcore_ioc_attach a;

	if (copy_from_user(&a, arg, sizeof(a)))
		return -EFAULT;
	return pcore_attach(&a);
}

/*
 * The call of ABI 2 to 4: the first PCORE_ATTACH_V4_SIZE bytes of the
 * struct, its last 8 reserved (where @target starts), the rest zero.
 */
static long pcore_ioc_attach_v4(void __user *arg)
{
	struct pcore_ioc_attach a = { };

	if (copy_from_user(&a, arg, PCORE_ATTACH_V4_SIZE))
		return -EFAULT;
	if (!pcore_zero(a.target, sizeof(a.target)))
		return -EINVAL;
	return pcore_attach(&a);
}

static long pcore_ioc_detach(void __user *arg)
{
	struct pcore_ioc_name n;
	int ret = pcore_name_in(arg, &n);

	return ret ?: pcore_builtin_detach(n.name);
}

static long pcore_ioc_enable(void __user *arg, bool on)
{
	struct pcore_ioc_name n;
	int ret = pcore_name_in(arg, &n);

	return ret ?: pcore_builtin_set_enabled(n.name, on);
}

static long pcore_ioctl_cmd(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	bool writer = file->f_mode & FMODE_WRITE;

	switch (cmd) {
	case PCORE_IOC_VERSION:
		return pcore_ioc_version(uarg);
	case PCORE_IOC_LIST:
		return pcore_ioc_list(uarg);
	case PCORE_IOC_READ:
		return pcore_ioc_read(uarg, writer);
	case PCORE_IOC_RESET:
		/* A reset changes what others read: not on a read-only file. */
		return writer ? pcore_ioc_reset(uarg) : -EBADF;
	case PCORE_IOC_ATTACH:
	case PCORE_IOC_ATTACH_V4:
	case PCORE_IOC_DETACH:
	case PCORE_IOC_ENABLE:
	case PCORE_IOC_DISABLE:
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
		break;
	default:
		return -ENOTTY;
	}
	switch (cmd) {
	case PCORE_IOC_ATTACH:
		return pcore_ioc_attach(uarg);
	case PCORE_IOC_ATTACH_V4:
		return pcore_ioc_attach_v4(uarg);
	case PCORE_IOC_DETACH:
		return pcore_ioc_detach(uarg);
	case PCORE_IOC_ENABLE:
		return pcore_ioc_enable(uarg, true);
	default:
		return pcore_ioc_enable(uarg, false);
	}
}

/* Profilers leave the caller out meanwhile: see the top of profile.c. */
static long pcore_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	int quiet = pcore_profile_quiet_enter();
	long ret = pcore_ioctl_cmd(file, cmd, arg);

	pcore_profile_quiet_exit(quiet);
	return ret;
}

static const struct file_operations pcore_chardev_fops = {
	.owner = THIS_MODULE,
	.open = nonseekable_open,
	.unlocked_ioctl = pcore_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice pcore_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "probe_core",
	.fops = &pcore_chardev_fops,
	.mode = 0600,
};

int pcore_chardev_init(void)
{
	int ret = misc_register(&pcore_miscdev);

	if (ret)
		pr_err("cannot register /dev/probe_core (%pe)\n", ERR_PTR(ret));
	return ret;
}

void pcore_chardev_exit(void)
{
	misc_deregister(&pcore_miscdev);
}
