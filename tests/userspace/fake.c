// SPDX-License-Identifier: GPL-2.0
/*
 * The fake /dev/probe_core: see fake.h.  Snapshots, bucket bounds,
 * percentiles and error bounds come from the engine the module runs, so
 * the goldens show what probe_core would answer for the same values.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include "fake.h"

static bool zero(const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		if (*c++)
			return false;
	return true;
}

#define TERMINATED(a)	(memchr((a), 0, sizeof(a)) != NULL)

struct fake_hist *fake_add(struct fake *f, const char *name,
			   const char *probe_kind, const char *symbol,
			   const char *unit, unsigned int flags,
			   const struct pcore_hist_spec *spec,
			   const char *key_name, unsigned int nslots)
{
	struct fake_hist *h = &f->h[f->n++];
	const char *why;
	unsigned int s, c;

	memset(h, 0, sizeof(*h));
	if (pcore_layout_init(&h->l, spec, &why))
		abort();
	snprintf(h->e.name, sizeof(h->e.name), "%s", name);
	snprintf(h->e.probe_kind, sizeof(h->e.probe_kind), "%s", probe_kind);
	snprintf(h->e.symbol, sizeof(h->e.symbol), "%s", symbol);
	snprintf(h->e.unit, sizeof(h->e.unit), "%s", unit);
	/* as the kernel: "exp:S" */
	pcore_layout_kind_text(&h->l, h->e.hist_kind, sizeof(h->e.hist_kind));
	snprintf(h->e.key_name, sizeof(h->e.key_name), "%s", key_name);
	h->e.flags = flags;
	/* probe_core's own, fed by a probe: the probe detach takes */
	if ((flags & PCORE_ENT_OWN) && (flags & PCORE_ENT_HAS_PROBE))
		snprintf(h->e.probe, sizeof(h->e.probe), "%s", name);
	h->e.nbuckets = h->l.nbuckets;
	h->e.nkeys = nslots;
	/* what probe_core shows: two banks of cache-line-padded records */
	h->e.mem_kib = (2 * FAKE_CPUS * nslots *
			((pcore_cpu_hist_size(&h->l) + 63) / 64 * 64) + 1023) / 1024;
	h->nslots = nslots;
	h->life = malloc(pcore_cpu_hist_size(&h->l));
	pcore_cpu_hist_init(&h->l, h->life);
	/* from 2025-01-02T03:04:05Z (the fake clock's start), a second apart */
	h->created_ns = (1735787044ULL + f->n) * 1000000000ULL;
	for (s = 0; s < nslots; s++) {
		h->slot[s].used = !key_name[0];	/* not keyed: one slot */
		h->slot[s].life = malloc(pcore_cpu_hist_size(&h->l));
		pcore_cpu_hist_init(&h->l, h->slot[s].life);
		for (c = 0; c < FAKE_CPUS; c++) {
			h->slot[s].cpu[c] = malloc(pcore_cpu_hist_size(&h->l));
			pcore_cpu_hist_init(&h->l, h->slot[s].cpu[c]);
		}
	}
	return h;
}

void fake_key(struct fake_hist *h, unsigned int slot, unsigned long long key,
	      const char *label)
{
	h->slot[slot].used = true;
	h->slot[slot].key = key;
	snprintf(h->slot[slot].label, sizeof(h->slot[slot].label), "%s",
		 label);
}

/* A stack key: its frames' text, one a line, innermost first. */
void fake_frames(struct fake_hist *h, unsigned int slot, const char *text)
{
	h->slot[slot].used = true;
	snprintf(h->slot[slot].frames, sizeof(h->slot[slot].frames), "%s",
		 text);
}

void fake_record(struct fake_hist *h, unsigned int cpu, unsigned int slot,
		 unsigned long long v)
{
	pcore_record(&h->l, h->slot[slot].cpu[cpu], v);
	pcore_record(&h->l, h->life, v);
	pcore_record(&h->l, h->slot[slot].life, v);
	h->e.count++;
}

struct fake_hist *fake_find(struct fake *f, const char *name)
{
	unsigned int i;

	for (i = 0; i < f->n; i++)
		if (!strcmp(f->h[i].e.name, name))
			return &f->h[i];
	return NULL;
}

static void hist_free(struct fake_hist *h)
{
	unsigned int s, c;

	for (s = 0; s < h->nslots; s++) {
		for (c = 0; c < FAKE_CPUS; c++)
			free(h->slot[s].cpu[c]);
		free(h->slot[s].life);
	}
	free(h->life);
}

void fake_free(struct fake *f)
{
	unsigned int i;

	for (i = 0; i < f->n; i++)
		hist_free(&f->h[i]);
	f->n = 0;
}

static int do_list(struct fake *f, struct pcore_ioc_list *l)
{
	struct pcore_ioc_entry *out = (void *)(uintptr_t)l->entries;
	unsigned int i;

	struct pcore_ioc_entry e;

	if ((l->entry_size != sizeof(*out) &&
	     l->entry_size != PCORE_ENTRY_V5_SIZE) ||
	    (f->v5_list && l->entry_size != PCORE_ENTRY_V5_SIZE) ||
	    !zero(l->reserved, sizeof(l->reserved)))
		return -EINVAL;
	f->list_size = l->entry_size;
	if (l->n < f->n) {
		l->n = f->n;
		return -ENOSPC;
	}
	/* entries of the caller's size, packed, as probe_core writes them */
	for (i = 0; i < f->n; i++) {
		e = f->h[i].e;
		e.nbuckets -= f->shrink;
		memcpy((char *)out + (size_t)i * l->entry_size, &e,
		       l->entry_size);
	}
	l->n = f->n;
	return 0;
}

static int do_read(struct fake *f, struct pcore_ioc_read *r)
{
	struct pcore_ioc_bucket *out = (void *)(uintptr_t)r->buckets;
	unsigned int s, c, i, ppm[4] = { 500000, 900000, 990000, 999000 };
	unsigned long long p[4];
	struct pcore_snap *snap, *tmp;
	struct fake_hist *h;
	bool keyonly = r->flags & PCORE_READ_KEY;
	bool total = r->flags & PCORE_READ_TOTAL;
	bool gone = false;

	if (!TERMINATED(r->name) || r->bucket_size != sizeof(*out) ||
	    r->pad || r->lost ||
	    (r->flags & ~(PCORE_READ_RESET | PCORE_READ_KEY |
			  PCORE_READ_TOTAL)) || r->nframes || r->created_ns)
		return -EINVAL;
	if (total) {
		f->read_totals++;
		/* per key: of a histogram keyed by cgroup (checked below) */
		if ((r->flags & ~PCORE_READ_KEY) != PCORE_READ_TOTAL ||
		    r->cpu != -1 || r->frames)
			return -EINVAL;
	}
	if (r->frames ? r->frames_size != PCORE_UAPI_FRAMES_MAX ||
			!(r->flags & PCORE_READ_KEY) : r->frames_size)
		return -EINVAL;
	if ((r->flags & PCORE_READ_RESET) && !f->writable)
		return -EBADF;	/* as the kernel: not on a read-only file */
	if (r->flags & PCORE_READ_RESET) {
		f->read_resets++;
		if (r->cpu != -1) {
			f->bad_reads++;
			return -EINVAL;
		}
	}
	if (r->cpu < -1 || r->cpu >= (int)f->nr_cpu_ids ||
	    (r->cpu >= 0 && !(f->possible & 1U << r->cpu)))
		return -EINVAL;
	h = fake_find(f, r->name);
	if (!h)
		return -ENOENT;
	if (f->on_read)
		f->on_read(f, h);
	if (keyonly && r->slot >= h->nslots)
		return -EINVAL;
	if (total && keyonly && strcmp(h->e.key_name, "cgroup"))
		return -EINVAL;
	if (total && keyonly)
		gone = !h->slot[r->slot].used ||
		       !strcmp(h->slot[r->slot].label, "(removed)");
	if (r->nbuckets < h->l.nbuckets) {
		r->nbuckets = h->l.nbuckets;
		return -ENOSPC;
	}
	snap = malloc(pcore_snap_size(&h->l));
	tmp = malloc(pcore_snap_size(&h->l));
	pcore_snap_init(&h->l, snap);
	if (total && !keyonly)
		pcore_snap_add_cpu(snap, h->life);
	else if (total && !gone)
		pcore_snap_add_cpu(snap, h->slot[r->slot].life);
	for (s = 0; !total && s < h->nslots; s++) {
		for (c = 0; c < f->nr_cpu_ids; c++) {
			bool mine = (!keyonly || s == r->slot) &&
				    (r->cpu < 0 || (int)c == r->cpu);

			if (r->flags & PCORE_READ_RESET) {
				pcore_snap_init(&h->l, tmp);
				pcore_cpu_harvest(h->slot[s].cpu[c], tmp);
				if (mine)
					pcore_snap_merge(snap, tmp);
			} else if (mine) {
				pcore_snap_add_cpu(snap, h->slot[s].cpu[c]);
			}
		}
	}
	/* the kernel writes every output field */
	r->nbuckets = h->l.nbuckets;
	for (i = 0; i < h->l.nbuckets; i++) {
		pcore_bucket_bounds(&h->l, i, &out[i].lo, &out[i].hi);
		out[i].count = snap->b[i];
	}
	r->key_used = keyonly ? h->slot[r->slot].used && !gone : 0;
	r->key = keyonly && !gone ? h->slot[r->slot].key : 0;
	memset(r->label, 0, sizeof(r->label));
	if (keyonly && !gone)
		strcpy(r->label, h->slot[r->slot].label);
	r->lost = total && !strcmp(h->e.key_name, "cgroup") ? h->lost : 0;
	r->count = snap->count;
	r->sum = snap->sum;
	r->min = snap->count ? snap->min : 0;
	r->max = snap->max;
	for (i = 0; i < 4; i++)
		p[i] = pcore_snap_percentile(&h->l, snap, ppm[i]);
	r->p50 = p[0];
	r->p90 = p[1];
	r->p99 = p[2];
	r->p999 = p[3];
	r->error_ppm = pcore_layout_error_ppm(&h->l, &r->error_abs);
	r->missed = h->e.missed;
	r->dropped = h->dropped;
	r->created_ns = h->created_ns;
	r->nframes = 0;
	if (r->frames && (h->e.flags & PCORE_ENT_STACKS)) {
		const char *t = h->slot[r->slot].frames;
		const char *c;

		strcpy((char *)(uintptr_t)r->frames, t);
		r->frames_size = strlen(t) + 1;
		for (c = t; *c; c++)
			r->nframes += *c == '\n';
		if (strstr(t, "[...]\n"))	/* a cut stack's mark: no frame */
			r->nframes--;
	} else {
		r->frames_size = 0;
	}
	free(snap);
	free(tmp);
	return 0;
}

/*
 * As probe_core's table of its own probes: @cmd on the histograms of
 * probe @name.  Return: whether there were any.
 */
static bool fake_probe_cmd(struct fake *f, unsigned long cmd,
			   const char *name)
{
	bool any = false;
	unsigned int i = 0;

	while (i < f->n) {
		struct fake_hist *h = &f->h[i];

		if (strcmp(h->e.probe, name)) {
			i++;
			continue;
		}
		any = true;
		if (cmd == PCORE_IOC_ENABLE)
			h->e.flags &= ~PCORE_ENT_DISABLED;
		else if (cmd == PCORE_IOC_DISABLE)
			h->e.flags |= PCORE_ENT_DISABLED;
		if (cmd != PCORE_IOC_DETACH) {
			i++;
			continue;
		}
		hist_free(h);
		*h = f->h[--f->n];
	}
	return any;
}

static int do_name(struct fake *f, unsigned long cmd,
		   struct pcore_ioc_name *n)
{
	struct fake_hist *h;
	unsigned int s, c;

	if (!TERMINATED(n->name) || !zero(n->reserved, sizeof(n->reserved)))
		return -EINVAL;
	if (cmd == PCORE_IOC_RESET && !f->writable)
		return -EBADF;
	if (cmd != PCORE_IOC_RESET && f->not_admin)
		return -EPERM;
	/* detach, enable, disable: a probe, with every histogram it feeds */
	if (cmd != PCORE_IOC_RESET && fake_probe_cmd(f, cmd, n->name))
		return 0;
	h = fake_find(f, n->name);
	if (!h)
		return -ENOENT;
	if (cmd != PCORE_IOC_RESET && !(h->e.flags & PCORE_ENT_OWN))
		return -EINVAL;
	/* own, but not a probe's name (a glob's histogram) */
	if (cmd != PCORE_IOC_RESET)
		return -ENOENT;
	for (s = 0; s < h->nslots; s++)
		for (c = 0; c < FAKE_CPUS; c++)
			pcore_cpu_hist_init(&h->l, h->slot[s].cpu[c]);
	return 0;
}

/* A uprobe at the entry (":count", ":argN") or a uretprobe. */
/* What the kernel attaches for a uprobe's PCORE_WHAT_*. */
static const char *uprobe_kind(unsigned int what)
{
	return what == PCORE_WHAT_COUNT || what == PCORE_WHAT_ARG ?
	       "uprobe" : "uretprobe";
}

/*
 * The probe's fields (ABI 5), checked as probe_core checks them: probectl
 * sends every function probe in fields, with its name only a label.
 */
static bool probe_fields_ok(const struct pcore_ioc_attach *a)
{
	struct pcore_probe_spec ps = { .what = a->what, .arg = a->arg,
		.flags = a->flags & ~PCORE_ATTACH_MECH_MASK };
	char why[PCORE_SPEC_WHY_MAX];

	if (!TERMINATED(a->target) || !TERMINATED(a->unit) || a->pad)
		return false;
	/* a mechanism is for kernel functions */
	if ((a->flags & PCORE_ATTACH_MECH_MASK) &&
	    a->kind != PCORE_ATTACH_KRETPROBE)
		return false;
	/* a tracepoint's one field: runqlat's PCORE_ATTACH_BY_PID or _CGROUP */
	if (a->kind == PCORE_ATTACH_TRACEPOINT &&
	    (a->flags == PCORE_ATTACH_BY_PID ||
	     a->flags == PCORE_ATTACH_BY_CGROUP))
		return !a->what && !a->arg && !a->unit[0] &&
		       !strcmp(a->target, "runqlat");
	/* whole-system views take user stacks and kernel threads left out */
	if (a->kind == PCORE_ATTACH_PROFILE || a->kind == PCORE_ATTACH_TRACEPOINT)
		return !a->what && !a->arg && !a->unit[0] &&
		       !(a->flags & ~(PCORE_ATTACH_USTACK |
				      PCORE_ATTACH_NO_KTHREADS)) &&
		       (a->kind == PCORE_ATTACH_TRACEPOINT) == !!a->target[0];
	strcpy(ps.func, a->target);
	strcpy(ps.unit, a->unit);
	return !pcore_probe_spec_check(&ps, why, sizeof(why));
}

static int do_attach(struct fake *f, struct pcore_ioc_attach *a)
{
	struct pcore_hist_spec spec = { .kind = a->hist_kind,
		.precision = a->precision, .min = a->min, .max = a->max,
		.step = a->step };
	bool uprobe = a->kind == PCORE_ATTACH_UPROBE;
	struct pcore_layout l;
	const char *why;

	if (!TERMINATED(a->name) || !zero(a->reserved, sizeof(a->reserved)) ||
	    !probe_fields_ok(a) ||
	    (!a->hz != (a->kind != PCORE_ATTACH_PROFILE)) ||
	    (a->depth && a->kind != PCORE_ATTACH_PROFILE &&
	     a->what != PCORE_WHAT_STACKS) ||
	    !memchr(a->comm, '\0', sizeof(a->comm)) ||
	    (a->kind != PCORE_ATTACH_KRETPROBE &&
	     a->kind != PCORE_ATTACH_TRACEPOINT &&
	     a->kind != PCORE_ATTACH_PROFILE && !uprobe) ||
	    (!uprobe && (a->offset || a->fd)))
		return -EINVAL;
	f->attached = *a;
	if (uprobe) {
		/* as the kernel would: the file behind the descriptor */
		if (fstat(a->fd, &f->attached_st))
			return -EBADF;
		f->attached_fd_flags = fcntl(a->fd, F_GETFD);
		f->attached_fl_flags = fcntl(a->fd, F_GETFL);
	}
	if (f->not_admin)
		return -EPERM;
	if (fake_find(f, a->name))
		return -EEXIST;
	if (!strncmp(a->name, "nosuch", 6))
		return -ENOENT;
	if (a->kind == PCORE_ATTACH_PROFILE) {
		/* as probe_core: samples counted by stack */
		spec.kind = PCORE_HIST_COUNT;
		fake_add(f, a->name, "profile", "99_Hz", "samples",
			 PCORE_ENT_OWN | PCORE_ENT_HAS_PROBE | PCORE_ENT_STACKS,
			 &spec, "stack", FAKE_SLOTS);
		return 0;
	}
	if (!spec.kind)
		spec.kind = PCORE_HIST_LOGLINEAR;
	if (pcore_layout_init(&l, &spec, &why))
		return -EINVAL;
	fake_add(f, a->name, uprobe ? uprobe_kind(a->what) :
		 a->kind == PCORE_ATTACH_KRETPROBE ? "kretprobe" :
		 "tracepoint", a->name, "ns",
		 PCORE_ENT_OWN | PCORE_ENT_HAS_PROBE, &spec, "", 1);
	return 0;
}

static int fake_ioctl(struct pc_dev *d, unsigned long cmd, void *arg)
{
	struct fake *f = d->priv;
	struct pcore_ioc_version *v = arg;

	if (_IOC_TYPE(cmd) != PCORE_IOC_MAGIC || _IOC_NR(cmd) >= 8)
		return -ENOTTY;
	f->calls[_IOC_NR(cmd)]++;
	switch (cmd) {
	case PCORE_IOC_VERSION:
		if (f->version_err)
			return f->version_err;
		memset(v, 0, sizeof(*v));
		v->abi = f->abi;
		v->nr_cpu_ids = f->nr_cpu_ids;
		strcpy(v->module_version, "0.9-test");
		return 0;
	case PCORE_IOC_LIST:
		return do_list(f, arg);
	case PCORE_IOC_READ:
		return f->read_err ? f->read_err : do_read(f, arg);
	case PCORE_IOC_RESET:
	case PCORE_IOC_DETACH:
	case PCORE_IOC_ENABLE:
	case PCORE_IOC_DISABLE:
		return do_name(f, cmd, arg);
	case PCORE_IOC_ATTACH:
		return do_attach(f, arg);
	default:
		return -ENOTTY;
	}
}

static int fake_open(struct pc_env *env, int flags, struct pc_dev *d)
{
	struct fake *f = env->priv;

	if (f->open_err)
		return f->open_err;
	f->opens++;
	f->writable = (flags & O_ACCMODE) != O_RDONLY;
	d->fd = -1;
	d->ioctl = fake_ioctl;
	d->priv = f;
	return 0;
}

static void fake_close(struct pc_env *env, struct pc_dev *d)
{
	struct fake *f = env->priv;

	f->closes++;
}

static struct fake *the_fake;	/* for the kmod hooks, which get no env */

static int fake_load(const char *path, const char *params,
		     enum pc_kmod_step *step, char *found, size_t len,
		     char *why, size_t whylen)
{
	snprintf(why, whylen, "%s", the_fake->load_why ? : "");
	snprintf(the_fake->load_path, sizeof(the_fake->load_path), "%s",
		 path ? path : "(installed)");
	snprintf(the_fake->load_params, sizeof(the_fake->load_params), "%s",
		 params);
	snprintf(found, len, "%s", path ? path :
		 "/lib/modules/6.1.0-test/extra/probe_core.ko");
	*step = the_fake->load_step;
	return the_fake->load_ret;
}

static int fake_unload(char *holders, size_t len)
{
	snprintf(holders, len, "%s", the_fake->holders ? the_fake->holders :
		 "");
	return the_fake->unload_ret;
}

static int fake_state(char *state, size_t len)
{
	snprintf(state, len, "%s", the_fake->state > 0 ? "live" : "");
	return the_fake->state;
}

/* 2025-01-02T03:04:05Z plus the monotonic clock */
static void fake_now(struct pc_env *env, struct timespec *real,
		     struct timespec *mono)
{
	struct fake *f = env->priv;

	mono->tv_sec = f->mono_ns / 1000000000ULL;
	mono->tv_nsec = f->mono_ns % 1000000000ULL;
	real->tv_sec = 1735787045 + mono->tv_sec;
	real->tv_nsec = mono->tv_nsec;
}

static void fake_sleep_until(struct pc_env *env, const struct timespec *t)
{
	struct fake *f = env->priv;
	unsigned long long until = t->tv_sec * 1000000000ULL + t->tv_nsec;

	if (until > f->mono_ns)
		f->mono_ns = until;
	if (f->on_sleep)
		f->on_sleep(f, f->sleeps);
	f->sleeps++;
}

static void fake_catch_stop(struct pc_env *env)
{
	struct fake *f = env->priv;

	f->catching = true;
}

static bool fake_stopped(struct pc_env *env)
{
	struct fake *f = env->priv;

	return f->catching && f->stop_after && f->sleeps >= f->stop_after;
}

/**
 * fake_env() - an environment of fakes around @f
 * @env: filled in; out and err left to the caller
 * @f: the fake device, which must outlive @env
 */
void fake_env(struct pc_env *env, struct fake *f)
{
	the_fake = f;
	env->release = "6.1.0-test";
	env->dev_path = PCORE_DEVICE;
	env->sys_module = "/nonexistent/sys/module/probe_core";
	env->sys_misc = "/nonexistent/sys/class/misc/probe_core/dev";
	env->dev_open = fake_open;
	env->dev_close = fake_close;
	env->load = fake_load;
	env->unload = fake_unload;
	env->state = fake_state;
	env->now = fake_now;
	env->sleep_until = fake_sleep_until;
	env->catch_stop = fake_catch_stop;
	env->stopped = fake_stopped;
	env->priv = f;
	if (!f->abi)
		f->abi = PCORE_ABI_VERSION;
	if (!f->nr_cpu_ids)
		f->nr_cpu_ids = 2;
	if (!f->possible)
		f->possible = (1U << f->nr_cpu_ids) - 1;
	if (!f->mono_ns)
		f->mono_ns = 1000000000ULL;
}
