/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the /dev/probe_core selftests (pcore_ioctl*.c): the ioctls
 * with exact errnos, LIST into an array, and a fingerprint of everything
 * an ioctl could change (LIST without its counters, the kprobes list);
 * the kernel-log watch of a fixture (PCORE_KMSG_*, PCORE_KMOD_FIXTURE)
 * and the table of refused loads (PCORE_EXPECT_BAD_LOADS).
 */
#ifndef PCORE_IOCTL_H
#define PCORE_IOCTL_H

#include "pcore_lib.h"
#include <stdint.h>
#include <sys/mman.h>
#include <uapi/probe_core.h>

#define KPROBES_LIST	"/sys/kernel/debug/kprobes/list"
#define PCORE_MAXB	2048	/* more buckets than any histogram has */
#define PCORE_MAXE	64	/* more histograms than any test creates */

/* ioctl(); returns 0 or the errno. */
static inline int pcore_ioc(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? errno : 0;
}

/* LIST into e (room for max); returns 0 or the errno, *n the count. */
static inline int pcore_list(int fd, struct pcore_ioc_entry *e, unsigned int max,
			     unsigned int *n)
{
	struct pcore_ioc_list l = {
		.entries = (uintptr_t)e, .n = max,
		.entry_size = sizeof(*e),
	};
	int ret = pcore_ioc(fd, PCORE_IOC_LIST, &l);

	*n = l.n;
	return ret;
}

static inline const struct pcore_ioc_entry *
pcore_entry(const struct pcore_ioc_entry *e, unsigned int n, const char *name)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(e[i].name, name))
			return &e[i];
	return NULL;
}

/* LIST, the entry named @name into *out; 0, ENOENT or the LIST errno. */
static inline int pcore_list_one(int fd, const char *name,
				 struct pcore_ioc_entry *out)
{
	static struct pcore_ioc_entry e[PCORE_MAXE];
	const struct pcore_ioc_entry *p;
	unsigned int n;
	int ret = pcore_list(fd, e, PCORE_MAXE, &n);

	if (ret)
		return ret;
	p = pcore_entry(e, n, name);
	if (p)
		*out = *p;
	return p ? 0 : ENOENT;
}

/* A READ request of @name with buckets into b (PCORE_MAXB room). */
static inline void pcore_rd_init(struct pcore_ioc_read *r, const char *name,
				 int cpu, unsigned int flags, unsigned int slot,
				 struct pcore_ioc_bucket *b)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->cpu = cpu;
	r->flags = flags;
	r->slot = slot;
	r->buckets = (uintptr_t)b;
	r->nbuckets = PCORE_MAXB;
	r->bucket_size = sizeof(*b);
}

/* READ of @name with buckets into b (PCORE_MAXB room); 0 or the errno. */
static inline int pcore_rd(int fd, const char *name, int cpu, unsigned int flags,
			   unsigned int slot, struct pcore_ioc_read *r,
			   struct pcore_ioc_bucket *b)
{
	pcore_rd_init(r, name, cpu, flags, slot, b);
	return pcore_ioc(fd, PCORE_IOC_READ, r);
}

/* Merged count of @name, or -1ULL on error. */
static inline unsigned long long pcore_rd_count(int fd, const char *name)
{
	static struct pcore_ioc_bucket b[PCORE_MAXB];
	struct pcore_ioc_read r;

	return pcore_rd(fd, name, -1, 0, 0, &r, b) ? -1ULL : r.count;
}

/*
 * The count and label of key @key in keyed histogram @name since the
 * last interval read; -1 if it has no such key.
 */
static inline long long pcore_key_count(int fd, const char *name,
					unsigned long long key, char *label,
					size_t len)
{
	static struct pcore_ioc_bucket b[PCORE_MAXB];
	struct pcore_ioc_entry e;
	struct pcore_ioc_read r;
	unsigned int slot;

	if (pcore_list_one(fd, name, &e))
		return -1;
	for (slot = 0; slot < e.nkeys; slot++) {
		if (pcore_rd(fd, name, -1, PCORE_READ_KEY, slot, &r, b))
			return -1;
		if (!r.key_used || r.key != key)
			continue;
		snprintf(label, len, "%s", r.label);
		return r.count;
	}
	return -1;
}

/* RESET, DETACH, ENABLE or DISABLE of @name; 0 or the errno. */
static inline int pcore_name_ioc(int fd, unsigned long cmd, const char *name)
{
	struct pcore_ioc_name n;

	memset(&n, 0, sizeof(n));
	snprintf(n.name, sizeof(n.name), "%s", name);
	return pcore_ioc(fd, cmd, &n);
}

static inline void pcore_att_init(struct pcore_ioc_attach *a, const char *name,
				  unsigned int kind, unsigned int hist_kind)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->name, sizeof(a->name), "%s", name);
	a->kind = kind;
	a->hist_kind = hist_kind;
}

/* ATTACH of a kretprobe (or tracepoint) with the default histogram. */
static inline int pcore_attach(int fd, const char *name, unsigned int kind)
{
	struct pcore_ioc_attach a;

	pcore_att_init(&a, name, kind, PCORE_UAPI_HIST_DEFAULT);
	return pcore_ioc(fd, PCORE_IOC_ATTACH, &a);
}

/*
 * What ioctls may change, as text: every LIST entry without its counters
 * (other probes keep counting) and the kprobes list.  Returns 0 or -1.
 */
static inline int pcore_fingerprint(int fd, char *out, size_t len)
{
	static struct pcore_ioc_entry e[PCORE_MAXE];
	unsigned int n, i;
	size_t used;
	ssize_t k;

	if (pcore_list(fd, e, PCORE_MAXE, &n))
		return -1;
	used = snprintf(out, len, "%u entries\n", n);
	for (i = 0; i < n && used < len; i++)
		used += snprintf(out + used, len - used,
				 "%s %s %s %s %s %s %u %u %#x\n", e[i].name,
				 e[i].symbol, e[i].probe_kind, e[i].unit,
				 e[i].hist_kind, e[i].key_name, e[i].nbuckets,
				 e[i].nkeys, e[i].flags);
	if (used + 2 >= len)
		return -1;
	used += snprintf(out + used, len - used, "kprobes:\n");
	k = pcore_read(KPROBES_LIST, out + used, len - used);
	return k < 0 ? -1 : 0;
}

/* New kernel log lines that report a kernel problem; 0 when none. */
static inline int pcore_kmsg_bad(int kmsg, char *log, size_t len)
{
	static const char * const bad[] = {
		"WARNING", "BUG", "Oops", "Call Trace", "general protection",
		"lockdep", "circular locking", "UBSAN", "KASAN", NULL
	};
	unsigned int i;
	int n = kmsg_collect(kmsg, log, len);

	if (n < 0)
		return -1;
	for (i = 0; bad[i]; i++)
		if (strstr(log, bad[i]))
			return 1;
	return 0;
}

/*
 * A fixture's watch on the kernel log, written as macros so that the
 * checks are the test's own (they need the harness's _metadata and self).
 * PCORE_KMSG_SETUP: unload the @n modules @mods, open /dev/kmsg into
 * self->kmsg.  PCORE_KMSG_TEARDOWN: unload them again, fail if the kernel
 * logged a problem meanwhile (the log, read into @log, is printed), close.
 */
#define PCORE_KMSG_SETUP(mods, n) do {					\
	ASSERT_EQ(0, pcore_mods_unload(mods, n));			\
	self->kmsg = kmsg_open();					\
	ASSERT_LE(0, self->kmsg);					\
} while (0)

#define PCORE_KMSG_TEARDOWN(mods, n, log) do {				\
	EXPECT_EQ(0, pcore_mods_unload(mods, n));			\
	EXPECT_EQ(0, pcore_kmsg_bad(self->kmsg, log, sizeof(log))) {	\
		TH_LOG("kernel log:\n%s", log);				\
	}								\
	close(self->kmsg);						\
} while (0)

/*
 * The fixture @fix of a program that tests the test module @kmod: the
 * kernel log watched (PCORE_KMSG_SETUP, PCORE_KMSG_TEARDOWN with the
 * program's @log), probe_core and @kmod unloaded before and after, @kmod
 * loaded for each test.  Defines mods[] (probe_core, @kmod).
 */
#define PCORE_KMOD_FIXTURE(fix, kmod, log)				\
static const char * const mods[] = { "probe_core", kmod };		\
									\
FIXTURE(fix) {								\
	int kmsg;							\
};									\
									\
FIXTURE_SETUP(fix)							\
{									\
	PCORE_KMSG_SETUP(mods, 2);					\
	ASSERT_EQ(0, pcore_mod_load(kmod, NULL));			\
}									\
									\
FIXTURE_TEARDOWN(fix)							\
{									\
	PCORE_KMSG_TEARDOWN(mods, 2, log);				\
}

/* probe_core loaded with @params, its device opened into @fd (asserted). */
#define PCORE_LOAD_OPEN(params, fd) do {				\
	ASSERT_EQ(0, pcore_load(params));				\
	fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);			\
	ASSERT_LE(0, fd);						\
} while (0)

/* A load of probe_core that must fail with @err and log @line. */
struct pcore_bad_load {
	const char *param;
	int err;
	const char *line;
};

/*
 * Each load of the table @bad fails with its errno, leaves probe_core
 * unloaded and logs its line (read from self->kmsg into @log).
 */
#define PCORE_EXPECT_BAD_LOADS(bad, log) do {				\
	unsigned int bad_i_;						\
									\
	for (bad_i_ = 0; bad_i_ < ARRAY_SIZE(bad); bad_i_++) {		\
		EXPECT_EQ(bad[bad_i_].err, pcore_load(bad[bad_i_].param))	\
			TH_LOG("%s", bad[bad_i_].param);		\
		EXPECT_FALSE(pcore_loaded());				\
		kmsg_collect(self->kmsg, log, sizeof(log));		\
		EXPECT_NE(NULL, strstr(log, bad[bad_i_].line))		\
			TH_LOG("%s: %s", bad[bad_i_].param, log);	\
	}								\
} while (0)

static inline bool pcore_zeroed(const void *p, size_t len)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (c[i])
			return false;
	return true;
}

/* A page that was mapped and is not any more. */
static inline void *pcore_unmapped_page(void)
{
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	munmap(p, 4096);
	return p;
}

/*
 * The fuzzers' generator, xorshift64*: a seed replays a run.  Each program
 * has its own state; pcore_rnd_seed() sets it.
 */
static inline unsigned long long *pcore_rnd_state(void)
{
	static unsigned long long state = 1;

	return &state;
}

static inline void pcore_rnd_seed(unsigned long long seed)
{
	*pcore_rnd_state() = seed ?: 1;
}

static inline unsigned long long pcore_rnd(void)
{
	unsigned long long *s = pcore_rnd_state();

	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* @good most of the time, else NULL, 1, @unmapped, a kernel or a random address. */
static inline void *pcore_fuzz_ptr(void *good, void *unmapped)
{
	switch (pcore_rnd() % 8) {
	case 0:
		return NULL;
	case 1:
		return (void *)1;
	case 2:
		return unmapped;
	case 3:
		return (void *)0xffff888000000000ULL;
	case 4:
		return (void *)(uintptr_t)pcore_rnd();
	default:
		return good;
	}
}

#endif /* PCORE_IOCTL_H */
