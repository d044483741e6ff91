// SPDX-License-Identifier: GPL-2.0
/*
 * The /dev/probe_core ioctls (include/uapi/probe_core.h).  Every struct is
 * zeroed before use, so reserved and padding fields are zero.  What the
 * kernel answers is checked before it is used: strings are terminated,
 * counts it reports are bounded before anything is allocated from them.
 * Output buffers are sized from what PCORE_IOC_LIST reported and grown
 * when the kernel answers ENOSPC with the size it needs, except for a
 * snapshot-and-reset, which is never repeated.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include "dev.h"

#define TERMINATE(field)	((field)[sizeof(field) - 1] = '\0')

/**
 * pc_dev_sys_ioctl() - the real hook: ioctl(2) on @d->fd
 * @d: device
 * @cmd: PCORE_IOC_*
 * @arg: its struct
 *
 * Return: 0 or -errno.
 */
int pc_dev_sys_ioctl(struct pc_dev *d, unsigned long cmd, void *arg)
{
	int ret;

	do {
		ret = ioctl(d->fd, cmd, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : 0;
}

void pc_snap_free(struct pc_snap *s)
{
	free(s->b);
	free(s->frames);
	s->b = NULL;
	s->frames = NULL;
}

void pc_hist_free(struct pc_hist *h)
{
	unsigned int i, k;

	pc_snap_free(&h->total);
	for (k = 0; k < h->nkeys; k++)
		pc_snap_free(&h->keys[k]);
	free(h->keys);
	for (i = 0; i < h->ncpus; i++) {
		pc_snap_free(&h->cpus[i].s);
		for (k = 0; k < h->cpus[i].nkeys; k++)
			pc_snap_free(&h->cpus[i].keys[k]);
		free(h->cpus[i].keys);
	}
	free(h->cpus);
	memset(h, 0, sizeof(*h));
}

/**
 * pc_dev_version() - PCORE_IOC_VERSION into @d->ver
 * @d: device
 *
 * Return: 0 or -errno; -EPROTO for an implausible nr_cpu_ids.  The caller
 * compares @d->ver.abi with PCORE_ABI_VERSION.
 */
int pc_dev_version(struct pc_dev *d)
{
	int ret;

	memset(&d->ver, 0, sizeof(d->ver));
	ret = d->ioctl(d, PCORE_IOC_VERSION, &d->ver);
	if (ret)
		return ret;
	TERMINATE(d->ver.module_version);
	if (!d->ver.nr_cpu_ids || d->ver.nr_cpu_ids > PC_MAX_CPUS)
		return -EPROTO;
	return 0;
}

static int check_entry(struct pcore_ioc_entry *e)
{
	TERMINATE(e->name);
	TERMINATE(e->symbol);
	TERMINATE(e->probe_kind);
	TERMINATE(e->unit);
	TERMINATE(e->hist_kind);
	TERMINATE(e->key_name);
	TERMINATE(e->probe);
	if (!e->nbuckets || e->nbuckets > PC_MAX_BUCKETS || !e->nkeys ||
	    e->nkeys > PC_MAX_KEYS)
		return -EPROTO;
	return 0;
}

/*
 * A retval probe's errors go to "<name>.errno", which probe_core fills
 * without a probe of its own (its entry's @probe is ""): the probe is
 * <name>'s, which detach takes for both.
 */
static void errno_probes(struct pcore_ioc_entry *e, unsigned int n)
{
	static const char sfx[] = ".errno";
	unsigned int i, j;
	size_t len;

	for (i = 0; i < n; i++) {
		len = strlen(e[i].name);
		if (!(e[i].flags & PCORE_ENT_OWN) || e[i].probe[0] ||
		    len <= strlen(sfx) ||
		    strcmp(e[i].name + len - strlen(sfx), sfx))
			continue;
		for (j = 0; j < n; j++)
			if ((e[j].flags & PCORE_ENT_OWN) &&
			    strlen(e[j].name) == len - strlen(sfx) &&
			    !strncmp(e[j].name, e[i].name, len - strlen(sfx)))
				memcpy(e[i].probe, e[j].probe,
				       sizeof(e[i].probe));
	}
}

/*
 * @buf (malloc()ed, or NULL) made @n zeroed elements of @size bytes, for
 * an ioctl to fill; NULL, with @buf freed, when there is no memory.
 */
static void *regrow(void *buf, size_t n, size_t size)
{
	void *bigger = realloc(buf, n * size);

	if (!bigger) {
		free(buf);
		return NULL;
	}
	return memset(bigger, 0, n * size);
}

/**
 * pc_dev_list() - PCORE_IOC_LIST: every histogram
 * @d: device
 * @ents: set to a malloc()ed array (NULL when there is none)
 * @n: set to its length
 *
 * Return: 0 or -errno; -EPROTO when the kernel's answer is implausible,
 * -EAGAIN when histograms kept appearing faster than the buffer grew.
 */
int pc_dev_list(struct pc_dev *d, struct pcore_ioc_entry **ents,
		unsigned int *n)
{
	unsigned int size = sizeof(struct pcore_ioc_entry), room = 16, i;
	struct pcore_ioc_entry *buf = NULL;
	struct pcore_ioc_list l;
	int ret, tries;

	*ents = NULL;
	*n = 0;
	for (tries = 0; tries < 8; tries++) {
		buf = regrow(buf, room, sizeof(*buf));
		if (!buf)
			return -ENOMEM;
		memset(&l, 0, sizeof(l));
		l.entries = (uintptr_t)buf;
		l.n = room;
		l.entry_size = size;
		ret = d->ioctl(d, PCORE_IOC_LIST, &l);
		if (ret == -ENOSPC && l.n > room && l.n <= PC_MAX_ENTRIES) {
			room = l.n + 16;
			continue;
		}
		/* A probe_core older than the entry's @probe: without it. */
		if (ret == -EINVAL && size != PCORE_ENTRY_V5_SIZE) {
			size = PCORE_ENTRY_V5_SIZE;
			tries--;
			continue;
		}
		if (!ret && l.n > room)
			ret = -EPROTO;
		/* spread out from the last, each to a higher place */
		for (i = l.n; !ret && size != sizeof(*buf) && i--; ) {
			memmove(&buf[i], (char *)buf + (size_t)i * size, size);
			memset((char *)&buf[i] + size, 0, sizeof(*buf) - size);
		}
		for (i = 0; !ret && i < l.n; i++)
			ret = check_entry(&buf[i]);
		if (ret) {
			free(buf);
			return ret == -ENOSPC ? -EPROTO : ret;
		}
		errno_probes(buf, l.n);
		if (!l.n) {
			free(buf);
			buf = NULL;
		}
		*ents = buf;
		*n = l.n;
		return 0;
	}
	free(buf);
	return -EAGAIN;
}

/**
 * pc_dev_find() - the list entry of one histogram
 * @d: device
 * @name: its name
 * @e: its entry
 *
 * Return: 0, -ENOENT when there is no histogram @name, or -errno.
 */
int pc_dev_find(struct pc_dev *d, const char *name, struct pcore_ioc_entry *e)
{
	struct pcore_ioc_entry *all;
	unsigned int n, i;
	int ret = pc_dev_list(d, &all, &n);

	if (ret)
		return ret;
	ret = -ENOENT;
	for (i = 0; i < n; i++) {
		if (!strcmp(all[i].name, name)) {
			*e = all[i];
			ret = 0;
			break;
		}
	}
	free(all);
	return ret;
}

/**
 * pc_dev_read() - PCORE_IOC_READ
 * @d: device
 * @name: histogram
 * @cpu: a CPU, or -1 for all
 * @flags: PCORE_READ_*
 * @slot: key slot, with PCORE_READ_KEY
 * @nbuckets: room to start with: the entry's nbuckets
 * @frames: with PCORE_READ_KEY, of a histogram keyed by stack: ask for the
 *	key's frames (into @s->frames)
 * @s: the answer; free with pc_snap_free()
 *
 * Return: 0 or -errno.  A read without PCORE_READ_RESET that gets ENOSPC
 * is repeated with the room the kernel asks for; a snapshot-and-reset is
 * done once only.
 */
int pc_dev_read(struct pc_dev *d, const char *name, int cpu,
		unsigned int flags, unsigned int slot, unsigned int nbuckets,
		bool frames, struct pc_snap *s)
{
	struct pcore_ioc_bucket *b = NULL;
	struct pcore_ioc_read r;
	unsigned int room = nbuckets ? nbuckets : 1;
	char *text = NULL;
	int ret, tries;

	memset(s, 0, sizeof(*s));
	if (strlen(name) >= sizeof(r.name))
		return -EINVAL;
	if (frames) {
		text = calloc(1, PCORE_UAPI_FRAMES_MAX);
		if (!text)
			return -ENOMEM;
	}
	for (tries = 0; tries < 4; tries++) {
		b = regrow(b, room, sizeof(*b));
		if (!b) {
			free(text);
			return -ENOMEM;
		}
		memset(&r, 0, sizeof(r));
		strcpy(r.name, name);
		r.cpu = cpu;
		r.flags = flags;
		r.slot = slot;
		r.buckets = (uintptr_t)b;
		r.nbuckets = room;
		r.bucket_size = sizeof(*b);
		if (text) {
			r.frames = (uintptr_t)text;
			r.frames_size = PCORE_UAPI_FRAMES_MAX;
		}
		ret = d->ioctl(d, PCORE_IOC_READ, &r);
		if (ret == -ENOSPC && !(flags & PCORE_READ_RESET) &&
		    r.nbuckets > room && r.nbuckets <= PC_MAX_BUCKETS) {
			room = r.nbuckets;
			continue;
		}
		if (!ret && r.nbuckets > room)
			ret = -EPROTO;
		/* The frames: within the room, and a string. */
		if (!ret && text &&
		    (!r.frames_size || r.frames_size > PCORE_UAPI_FRAMES_MAX ||
		     text[r.frames_size - 1] ||
		     strlen(text) != r.frames_size - 1))
			ret = -EPROTO;
		if (ret)
			break;
		TERMINATE(r.label);
		s->r = r;
		s->b = b;
		s->frames = text;
		return 0;
	}
	free(b);
	free(text);
	return tries == 4 ? -EAGAIN : ret;
}

/* Appends a snapshot to an array. */
static int push(struct pc_snap **arr, unsigned int *n, struct pc_snap *s)
{
	struct pc_snap *bigger = realloc(*arr, (*n + 1) * sizeof(**arr));

	if (!bigger) {
		pc_snap_free(s);
		return -ENOMEM;
	}
	*arr = bigger;
	(*arr)[(*n)++] = *s;
	return 0;
}

/* Every key slot in use, on one CPU or all (-1). */
static int read_keys(struct pc_dev *d, const struct pcore_ioc_entry *e,
		     int cpu, const struct pc_snap *used, unsigned int nused,
		     struct pc_snap **keys, unsigned int *nkeys)
{
	bool stacks = pc_is_stacks(e);
	struct pc_snap s;
	unsigned int i, n = used ? nused : e->nkeys, slot;
	int ret;

	for (i = 0; i < n; i++) {
		slot = used ? used[i].r.slot : i;
		ret = pc_dev_read(d, e->name, cpu, PCORE_READ_KEY, slot,
				  e->nbuckets, stacks && cpu < 0, &s);
		if (ret)
			return ret;
		if (!s.r.key_used) {
			pc_snap_free(&s);
			continue;
		}
		s.r.slot = slot;
		ret = push(keys, nkeys, &s);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * pc_dev_hist() - everything show and export print of one histogram
 * @d: device, after pc_dev_version()
 * @e: the histogram's entry
 * @percpu: add every CPU below nr_cpu_ids that the kernel answers for
 *	(EINVAL: not a possible CPU, skipped), each with its keys
 * @h: filled in; free with pc_hist_free(), also after an error
 *
 * The views are read one after the other, so under load the keys and CPUs
 * need not add up exactly to the merged view.
 *
 * Return: 0 or -errno.
 */
int pc_dev_hist(struct pc_dev *d, const struct pcore_ioc_entry *e,
		bool percpu, struct pc_hist *h)
{
	bool keyed = e->key_name[0] || e->nkeys > 1;
	struct pc_cpu *bigger;
	unsigned int cpu;
	struct pc_snap s;
	int ret;

	memset(h, 0, sizeof(*h));
	h->e = *e;
	h->percpu = percpu;
	ret = pc_dev_read(d, e->name, -1, 0, 0, e->nbuckets, false, &h->total);
	if (!ret && keyed)
		ret = read_keys(d, e, -1, NULL, 0, &h->keys, &h->nkeys);
	for (cpu = 0; !ret && percpu && cpu < d->ver.nr_cpu_ids; cpu++) {
		ret = pc_dev_read(d, e->name, cpu, 0, 0, e->nbuckets, false,
				  &s);
		if (ret == -EINVAL && cpu) {
			ret = 0;	/* not a possible CPU */
			continue;
		}
		if (ret)
			break;
		bigger = realloc(h->cpus, (h->ncpus + 1) * sizeof(*bigger));
		if (!bigger) {
			pc_snap_free(&s);
			return -ENOMEM;
		}
		h->cpus = bigger;
		memset(&h->cpus[h->ncpus], 0, sizeof(*bigger));
		h->cpus[h->ncpus].s = s;
		h->ncpus++;
		if (keyed)
			ret = read_keys(d, e, cpu, h->keys, h->nkeys,
					&h->cpus[h->ncpus - 1].keys,
					&h->cpus[h->ncpus - 1].nkeys);
	}
	return ret;
}

/**
 * pc_dev_hist_total() - a histogram since its creation, all keys merged
 * @d: device, after pc_dev_version()
 * @e: the histogram's entry
 * @h: filled in (@h->since_created, @h->total); free with pc_hist_free(),
 *	also after an error
 *
 * One PCORE_READ_TOTAL: no count, sum or bucket in it is ever below what
 * an earlier call answered for the same histogram, whatever interval
 * reads and resets happened in between.  A histogram keyed by cgroup
 * (key name "cgroup") also gets each cgroup's total
 * (PCORE_READ_TOTAL | PCORE_READ_KEY of every entry, 0 to nkeys - 1,
 * into @h->keys, @h->cg_totals set), with the same guarantee per cgroup;
 * a cgroup answered twice (an entry freed and taken while we read) is
 * kept once.  A module older than that read refuses it (EINVAL): then
 * the merged total only.
 *
 * Return: 0 or -errno.
 */
int pc_dev_hist_total(struct pc_dev *d, const struct pcore_ioc_entry *e,
		      struct pc_hist *h)
{
	unsigned int slot, k;
	struct pc_snap s;
	int ret;

	memset(h, 0, sizeof(*h));
	h->e = *e;
	h->since_created = true;
	ret = pc_dev_read(d, e->name, -1, PCORE_READ_TOTAL, 0, e->nbuckets,
			  false, &h->total);
	if (ret || strcmp(e->key_name, "cgroup"))
		return ret;
	for (slot = 0; slot < e->nkeys; slot++) {
		ret = pc_dev_read(d, e->name, -1,
				  PCORE_READ_TOTAL | PCORE_READ_KEY, slot,
				  e->nbuckets, false, &s);
		if (ret == -EINVAL && !slot)
			return 0;	/* an older module: merged only */
		if (ret)
			return ret;
		h->cg_totals = true;
		for (k = 0; k < h->nkeys && s.r.key_used; k++)
			if (h->keys[k].r.key == s.r.key)
				break;
		if (!s.r.key_used || k < h->nkeys) {
			pc_snap_free(&s);
			continue;
		}
		s.r.slot = slot;
		ret = push(&h->keys, &h->nkeys, &s);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * pc_dev_name_cmd() - PCORE_IOC_RESET, _DETACH, _ENABLE or _DISABLE
 * @d: device
 * @cmd: the ioctl
 * @name: histogram
 *
 * Return: 0 or -errno.
 */
int pc_dev_name_cmd(struct pc_dev *d, unsigned long cmd, const char *name)
{
	struct pcore_ioc_name n;

	memset(&n, 0, sizeof(n));
	if (strlen(name) >= sizeof(n.name))
		return -EINVAL;
	strcpy(n.name, name);
	return d->ioctl(d, cmd, &n);
}

/**
 * pc_dev_attach() - PCORE_IOC_ATTACH
 * @d: device
 * @a: what to attach, reserved fields zero
 *
 * Return: 0 or -errno.
 */
int pc_dev_attach(struct pc_dev *d, const struct pcore_ioc_attach *a)
{
	struct pcore_ioc_attach copy = *a;

	return d->ioctl(d, PCORE_IOC_ATTACH, &copy);
}
