// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/probe_core with good input: VERSION, LIST, READ (merged, per CPU,
 * by key, snapshot-and-reset), RESET, ATTACH, DETACH, ENABLE and DISABLE
 * give exact numbers in the quiet VM, agree with debugfs, and fill every
 * byte of what they return.
 *
 * Workloads: fork() for do_fork (target=do_fork), getppid() for an
 * attached sys_getppid (nothing else in the quiet VM calls it), and the
 * scheduler for sched_switch.
 */
#include "pcore_ioctl.h"
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <stddef.h>
#include "kselftest_harness.h"

/*
 * Counts are exact whatever their size: NFORKS only has to be more than
 * a few (divisible by 4).  NLOAD is the fork load that snapshot-and-reset
 * reads run under, long enough for several of them to see forks.
 */
#define NFORKS	40
#define NLOAD	400
#define NCALLS	500

static char text[PCORE_BUF];
static struct pcore_ioc_bucket bk[PCORE_MAXB], bk2[PCORE_MAXB];
static struct pcore_ioc_entry ents[PCORE_MAXE], ents2[PCORE_MAXE];

FIXTURE(ioc) {
	int fd;
	int kmsg;
	unsigned long long f0;	/* the kernel's forks before the load */
};

FIXTURE_SETUP(ioc)
{
	static const char * const mods[] = { "pcore_apitest", "cpuhists",
					     "probe_core" };

	ASSERT_EQ(0, pcore_mods_unload(mods, 3));
	self->kmsg = kmsg_open();
	ASSERT_LE(0, self->kmsg);
	self->f0 = pcore_nr_forks();
	ASSERT_NE(-1ULL, self->f0);
	/*
	 * Kprobes: the tests follow probes in the kernel's kprobes list
	 * (direct calls have their own tests: pcore_direct).
	 */
	ASSERT_EQ(0, pcore_load("mechanism=kprobe target=do_fork tracepoints=sched_switch"));
	self->fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	/* The tests' windows start where the kernel forks no more. */
	ASSERT_EQ(0, pcore_forks_quiet());
}

FIXTURE_TEARDOWN(ioc)
{
	static const char * const mods[] = { "pcore_apitest", "cpuhists",
					     "probe_core" };
	static char log[16384];

	if (self->fd >= 0)
		close(self->fd);
	EXPECT_EQ(0, pcore_mods_unload(mods, 3));
	EXPECT_NE(0, access(PCORE_DEVICE, F_OK));
	EXPECT_NE(0, access(PCORE_DBG, F_OK));
	EXPECT_EQ(0, pcore_kmsg_bad(self->kmsg, log, sizeof(log))) {
		TH_LOG("kernel log:\n%s", log);
	}
	close(self->kmsg);
}

/* The last CPU number in /sys/devices/system/cpu/possible, plus one. */
static int possible_cpus(void)
{
	char s[256], *p;

	if (pcore_read("/sys/devices/system/cpu/possible", s, sizeof(s)) <= 0)
		return -1;
	p = strrchr(s, '-');
	p = p ? p + 1 : strrchr(s, ',') ? strrchr(s, ',') + 1 : s;
	return atoi(p) + 1;
}

/* Nearest rank of @ppm over the buckets: the bucket @p must fall in. */
static int pct_ok(const struct pcore_ioc_bucket *b, unsigned int nb,
		  unsigned long long count, unsigned long long ppm,
		  unsigned long long p)
{
	unsigned long long rank = (count * ppm + 999999) / 1000000, seen = 0;
	unsigned int i;

	if (!rank)
		rank = 1;
	for (i = 0; i < nb; i++) {
		seen += b[i].count;
		if (seen >= rank)
			return b[i].lo <= p && (p < b[i].hi || b[i].hi == UINT64_MAX);
	}
	return 0;
}

/*
 * The LIST entry @e: a probe on @symbol of kind @probe_kind, a @hist_kind
 * histogram, the entry flags @flags.
 */
static void expect_entry(struct __test_metadata *_metadata,
			 const struct pcore_ioc_entry *e, const char *symbol,
			 const char *probe_kind, const char *hist_kind,
			 unsigned int flags)
{
	EXPECT_STREQ(symbol, e->symbol);
	EXPECT_STREQ(probe_kind, e->probe_kind);
	EXPECT_STREQ(hist_kind, e->hist_kind);
	EXPECT_EQ(flags, e->flags);
}

/* The READ @r: @count values summing to @sum, from @min to @max. */
static void expect_read(struct __test_metadata *_metadata,
			const struct pcore_ioc_read *r, unsigned long long count,
			unsigned long long sum, unsigned long long min,
			unsigned long long max)
{
	EXPECT_EQ(count, r->count);
	EXPECT_EQ(sum, r->sum);
	EXPECT_EQ(min, r->min);
	EXPECT_EQ(max, r->max);
}

/*
 * A READ's buckets are contiguous from 0 to U64_MAX, add up to its count,
 * and its percentiles fall in the buckets they come from.
 */
static void check_snapshot(struct __test_metadata *_metadata,
			   const struct pcore_ioc_read *r,
			   const struct pcore_ioc_bucket *b)
{
	unsigned long long sum = 0;
	unsigned int i;

	ASSERT_LT(1, r->nbuckets);
	EXPECT_EQ(0, b[0].lo);
	EXPECT_EQ(UINT64_MAX, b[r->nbuckets - 1].hi);
	for (i = 0; i < r->nbuckets; i++) {
		sum += b[i].count;
		if (i + 1 < r->nbuckets)
			EXPECT_EQ(b[i].hi, b[i + 1].lo) {
				TH_LOG("%s: bucket %u ends at %llu, %u starts at %llu",
				       r->name, i, (unsigned long long)b[i].hi,
				       i + 1, (unsigned long long)b[i + 1].lo);
			}
	}
	EXPECT_EQ(r->count, sum);
	if (!r->count) {
		EXPECT_EQ(0, r->min);
		EXPECT_EQ(0, r->max);
		EXPECT_EQ(0, r->sum);
		EXPECT_EQ(0, r->p50);
		return;
	}
	EXPECT_LE(r->min, r->max);
	EXPECT_LE(r->min * r->count, r->sum);
	EXPECT_GE(r->max * r->count, r->sum);
	EXPECT_TRUE(pct_ok(b, r->nbuckets, r->count, 500000, r->p50));
	EXPECT_TRUE(pct_ok(b, r->nbuckets, r->count, 900000, r->p90));
	EXPECT_TRUE(pct_ok(b, r->nbuckets, r->count, 990000, r->p99));
	EXPECT_TRUE(pct_ok(b, r->nbuckets, r->count, 999000, r->p999));
	EXPECT_LE(r->p50, r->p90);
	EXPECT_LE(r->p90, r->p99);
	EXPECT_LE(r->p99, r->p999);
}

/* A string with only NULs after its end, within its array. */
static bool nul_padded(const char *s, size_t len)
{
	size_t k = strnlen(s, len);

	return k < len && pcore_zeroed(s + k, len - k);
}

static void getppids(int n)
{
	int i;

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
}

TEST_F_TIMEOUT(ioc, version, PCORE_TIMEOUT_PATCHING)
{
	struct pcore_ioc_version v, v2;
	unsigned int i;

	memset(&v, 0xA5, sizeof(v));
	ASSERT_EQ(0, pcore_ioc(self->fd, PCORE_IOC_VERSION, &v));
	EXPECT_EQ(PCORE_ABI_VERSION, v.abi);
	EXPECT_EQ(possible_cpus(), v.nr_cpu_ids);
	EXPECT_LE(sysconf(_SC_NPROCESSORS_CONF), v.nr_cpu_ids);
	EXPECT_STREQ("0.2.0", v.module_version);
	for (i = strlen(v.module_version); i < sizeof(v.module_version); i++)
		EXPECT_EQ(0, v.module_version[i]);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(0, v.reserved[i]);
	/* Every byte is the kernel's: another junk gives the same answer. */
	memset(&v2, 0x5A, sizeof(v2));
	ASSERT_EQ(0, pcore_ioc(self->fd, PCORE_IOC_VERSION, &v2));
	EXPECT_EQ(0, memcmp(&v, &v2, sizeof(v)));
}

TEST_F_TIMEOUT(ioc, list, PCORE_TIMEOUT_PATCHING)
{
	const struct pcore_ioc_entry *f, *s, *on, *off;
	struct pcore_ioc_list l;
	unsigned int n, i;

	/* No room: ENOSPC and the number needed; nothing written. */
	memset(&l, 0, sizeof(l));
	l.entry_size = sizeof(struct pcore_ioc_entry);
	ASSERT_EQ(ENOSPC, pcore_ioc(self->fd, PCORE_IOC_LIST, &l));
	EXPECT_EQ(2, l.n);
	EXPECT_EQ(0, l.entries);
	EXPECT_EQ(sizeof(struct pcore_ioc_entry), l.entry_size);
	memset(ents, 0xA5, sizeof(ents));
	memcpy(ents2, ents, sizeof(ents));
	ASSERT_EQ(ENOSPC, pcore_list(self->fd, ents, 1, &n));
	EXPECT_EQ(2, n);
	EXPECT_EQ(0, memcmp(ents, ents2, sizeof(ents)));

	ASSERT_EQ(0, pcore_forks(NFORKS));
	ASSERT_EQ(0, pcore_list(self->fd, ents, 2, &n));
	ASSERT_EQ(2, n);
	/* The slots beyond what was listed are untouched. */
	EXPECT_EQ(0, memcmp(&ents[2], &ents2[2], sizeof(ents) - 2 * sizeof(ents[0])));
	f = pcore_entry(ents, n, "do_fork");
	s = pcore_entry(ents, n, "sched_switch");
	ASSERT_NE(NULL, f);
	ASSERT_NE(NULL, s);
	expect_entry(_metadata, f, "kernel_clone", "kretprobe", "loglinear",
		     PCORE_ENT_HAS_PROBE | PCORE_ENT_OWN);
	EXPECT_STREQ("ns", f->unit);
	EXPECT_STREQ("", f->key_name);
	EXPECT_FORKS(NFORKS, f->hits, self->f0);
	EXPECT_FORKS(NFORKS, f->count, self->f0);
	EXPECT_EQ(0, f->missed);
	EXPECT_EQ(1, f->nkeys);
	/* Two banks of one 4992-byte record per possible CPU, and a little. */
	EXPECT_LE(2 * possible_cpus() * 4992 / 1024, f->mem_kib);
	EXPECT_GT(2 * possible_cpus() * 4992 / 1024 + 16, f->mem_kib);
	expect_entry(_metadata, s, "sched_switch", "tracepoint", "loglinear",
		     PCORE_ENT_HAS_PROBE | PCORE_ENT_OWN);
	EXPECT_STREQ("ns", s->unit);
	EXPECT_STREQ("", s->key_name);
	EXPECT_EQ(1, s->nkeys);
	EXPECT_EQ(f->nbuckets, s->nbuckets);
	/* The first switch on each CPU only starts its clock. */
	EXPECT_LT(0, s->count);
	EXPECT_LE(s->count, s->hits);

	/* A handler module's histograms are "<module>/<name>". */
	ASSERT_EQ(0, pcore_mod_load("cpuhists", NULL));
	ASSERT_EQ(ENOSPC, pcore_list(self->fd, ents, 2, &n));
	EXPECT_EQ(4, n);
	ASSERT_EQ(0, pcore_list(self->fd, ents, PCORE_MAXE, &n));
	ASSERT_EQ(4, n);
	on = pcore_entry(ents, n, "cpuhists/oncpu");
	off = pcore_entry(ents, n, "cpuhists/offcpu");
	ASSERT_NE(NULL, on);
	ASSERT_NE(NULL, off);
	expect_entry(_metadata, on, "sched_switch", "tracepoint", "loglinear",
		     PCORE_ENT_HAS_PROBE);
	EXPECT_STREQ("", on->key_name);
	EXPECT_EQ(1, on->nkeys);
	/* offcpu is fed by oncpu's handler: no probe of its own. */
	EXPECT_STREQ("", off->symbol);
	EXPECT_STREQ("", off->probe_kind);
	EXPECT_STREQ("", off->key_name);
	EXPECT_EQ(0, off->flags);
	EXPECT_EQ(0, off->hits);
	EXPECT_EQ(0, off->missed);
	/* The probe detach takes: probe_core's own only. */
	EXPECT_STREQ("", on->probe);
	EXPECT_STREQ("", off->probe);
	EXPECT_STREQ("do_fork", pcore_entry(ents, n, "do_fork")->probe);
	EXPECT_STREQ("sched_switch",
		     pcore_entry(ents, n, "sched_switch")->probe);
	/* Every string is NUL-padded: nothing of the kernel's behind it. */
	for (i = 0; i < n; i++) {
		EXPECT_TRUE(nul_padded(ents[i].probe, sizeof(ents[i].probe)));
		EXPECT_TRUE(nul_padded(ents[i].name, sizeof(ents[i].name)));
		EXPECT_TRUE(nul_padded(ents[i].symbol, sizeof(ents[i].symbol)));
		EXPECT_TRUE(nul_padded(ents[i].probe_kind, sizeof(ents[i].probe_kind)));
		EXPECT_TRUE(nul_padded(ents[i].unit, sizeof(ents[i].unit)));
		EXPECT_TRUE(nul_padded(ents[i].hist_kind, sizeof(ents[i].hist_kind)));
		EXPECT_TRUE(nul_padded(ents[i].key_name, sizeof(ents[i].key_name)));
		/* two banks of a record per possible CPU, at least */
		EXPECT_LE(2 * possible_cpus() * ents[i].nbuckets * 8 / 1024,
			  ents[i].mem_kib);
	}
	/*
	 * Entries of the size before @probe: the same bytes up to it,
	 * packed, and nothing written past the n of them.
	 */
	memset(ents2, 0xA5, sizeof(ents2));
	l = (struct pcore_ioc_list){ .entries = (uintptr_t)ents2,
		.n = PCORE_MAXE, .entry_size = PCORE_ENTRY_V5_SIZE };
	ASSERT_EQ(0, pcore_ioc(self->fd, PCORE_IOC_LIST, &l));
	ASSERT_EQ(n, l.n);
	for (i = 0; i < n; i++) {
		const char *v5 = (const char *)ents2 + i * PCORE_ENTRY_V5_SIZE;
		const struct pcore_ioc_entry *e = pcore_entry(ents, n, v5);

		ASSERT_NE(NULL, e) TH_LOG("entry %u: %.128s", i, v5);
		/* counts and hits move; the names and kinds do not */
		EXPECT_EQ(0, memcmp(e, v5, offsetof(struct pcore_ioc_entry,
						    hits)));
	}
	for (i = n * PCORE_ENTRY_V5_SIZE; i < sizeof(ents2); i++)
		if (((unsigned char *)ents2)[i] != 0xA5)
			break;
	EXPECT_EQ(sizeof(ents2), i);
	/* And the same list again after unloading the module. */
	ASSERT_EQ(0, pcore_mod_unload_wait("cpuhists"));
	ASSERT_EQ(0, pcore_list(self->fd, ents, PCORE_MAXE, &n));
	EXPECT_EQ(2, n);
	EXPECT_EQ(NULL, pcore_entry(ents, n, "cpuhists/oncpu"));
}

/* Merged and per-CPU reads of do_fork after forks on CPU 0 and CPU 1. */
TEST_F_TIMEOUT(ioc, read, PCORE_TIMEOUT_PATCHING)
{
	unsigned long long percpu = 0, psum = 0, pmax = 0, pmin = UINT64_MAX;
	struct pcore_ioc_read r, rc;
	struct pcore_ioc_entry e;
	void *ro;
	int cpu, ncpu = possible_cpus();

	ASSERT_LE(2, ncpu);
	ASSERT_EQ(0, pcore_pin(0));
	ASSERT_EQ(0, pcore_forks(NFORKS / 2));
	ASSERT_EQ(0, pcore_pin(1));
	ASSERT_EQ(0, pcore_forks(NFORKS / 2));

	memset(bk, 0xA5, sizeof(bk));
	ASSERT_EQ(0, pcore_rd(self->fd, "do_fork", -1, 0, 0, &r, bk));
	EXPECT_STREQ("do_fork", r.name);
	EXPECT_EQ(-1, r.cpu);
	EXPECT_EQ(0, r.flags);
	EXPECT_FORKS(NFORKS, r.count, self->f0);
	EXPECT_EQ(0, r.key_used);
	EXPECT_EQ(0, r.key);
	EXPECT_STREQ("", r.label);
	EXPECT_EQ(0, r.missed);
	EXPECT_EQ(0, r.dropped);
	EXPECT_EQ(31250, r.error_ppm);	/* loglinear, precision 4 */
	EXPECT_EQ(0, r.error_abs);
	/* A fork takes microseconds, even emulated, and less than a second. */
	EXPECT_LT(1000, r.min);
	EXPECT_GT(1000000000ULL, r.max);
	check_snapshot(_metadata, &r, bk);
	ASSERT_EQ(0, pcore_list_one(self->fd, "do_fork", &e));
	EXPECT_EQ(e.nbuckets, r.nbuckets);
	/* Buckets beyond nbuckets are untouched. */
	EXPECT_EQ(0xA5A5A5A5A5A5A5A5ULL, bk[r.nbuckets].lo);

	/* The stats file of the same histogram says the same. */
	ASSERT_LT(0, pcore_read(PCORE_DBG "/do_fork/stats", text, PCORE_BUF));
	EXPECT_EQ(r.count, pcore_key(text, "count"));
	EXPECT_EQ(r.sum, pcore_key(text, "sum"));
	EXPECT_EQ(r.min, pcore_key(text, "min"));
	EXPECT_EQ(r.max, pcore_key(text, "max"));
	EXPECT_EQ(r.p50, pcore_key(text, "p50"));
	EXPECT_EQ(r.p90, pcore_key(text, "p90"));
	EXPECT_EQ(r.p99, pcore_key(text, "p99"));
	EXPECT_EQ(r.p999, pcore_key(text, "p999"));

	/* Per CPU: the parent was pinned, so each CPU has exactly its half. */
	for (cpu = 0; cpu < ncpu; cpu++) {
		ASSERT_EQ(0, pcore_rd(self->fd, "do_fork", cpu, 0, 0, &rc, bk2));
		EXPECT_EQ(cpu, rc.cpu);
		EXPECT_EQ(r.nbuckets, rc.nbuckets);
		check_snapshot(_metadata, &rc, bk2);
		if (cpu < 2)
			EXPECT_LE(NFORKS / 2, rc.count);
		percpu += rc.count;
		psum += rc.sum;
		if (rc.count && rc.min < pmin)
			pmin = rc.min;
		if (rc.max > pmax)
			pmax = rc.max;
	}
	EXPECT_EQ(r.count, percpu);
	EXPECT_EQ(r.sum, psum);
	EXPECT_EQ(r.min, pmin);
	EXPECT_EQ(r.max, pmax);

	/* Too little bucket room: ENOSPC with the number needed, no buckets. */
	memset(bk2, 0xA5, sizeof(bk2));
	memset(&rc, 0, sizeof(rc));
	strcpy(rc.name, "do_fork");
	rc.cpu = -1;
	rc.buckets = (uintptr_t)bk2;
	rc.nbuckets = r.nbuckets - 1;
	rc.bucket_size = sizeof(bk2[0]);
	ASSERT_EQ(ENOSPC, pcore_ioc(self->fd, PCORE_IOC_READ, &rc));
	EXPECT_EQ(r.nbuckets, rc.nbuckets);
	EXPECT_EQ(0, rc.count);
	EXPECT_EQ(0xA5A5A5A5A5A5A5A5ULL, bk2[0].lo);
	rc.nbuckets = 0;
	rc.buckets = 0;
	ASSERT_EQ(ENOSPC, pcore_ioc(self->fd, PCORE_IOC_READ, &rc));
	EXPECT_EQ(r.nbuckets, rc.nbuckets);
	/* Nor with RESET: nothing is moved out. */
	rc.nbuckets = 1;
	rc.flags = PCORE_READ_RESET;
	ASSERT_EQ(ENOSPC, pcore_ioc(self->fd, PCORE_IOC_READ, &rc));
	EXPECT_EQ(r.count, pcore_rd_count(self->fd, "do_fork"));
	/* Nor when the answer cannot be written: the interval is not lost. */
	ro = mmap(NULL, 1 << 16, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	rc.nbuckets = r.nbuckets;
	rc.buckets = (uintptr_t)ro;
	ASSERT_EQ(EFAULT, pcore_ioc(self->fd, PCORE_IOC_READ, &rc));
	EXPECT_EQ(r.count, pcore_rd_count(self->fd, "do_fork"));
	munmap(ro, 1 << 16);
	/* Exactly enough room is enough. */
	rc.nbuckets = r.nbuckets;
	rc.flags = 0;
	rc.buckets = (uintptr_t)bk2;
	ASSERT_EQ(0, pcore_ioc(self->fd, PCORE_IOC_READ, &rc));
	EXPECT_EQ(r.count, rc.count);
}

/* Two reads with different junk around them return the same bytes. */
TEST_F_TIMEOUT(ioc, no_junk_out, PCORE_TIMEOUT_PATCHING)
{
	static struct pcore_ioc_bucket b1[PCORE_MAXB], b2[PCORE_MAXB];
	struct pcore_ioc_read r1, r2;
	unsigned int n1, n2, cpu;
	unsigned int flags[] = { 0, 0, PCORE_READ_KEY };

	/* Only do_fork: nothing counts between the two calls. */
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DETACH, "sched_switch"));
	ASSERT_EQ(0, pcore_forks(NFORKS / 4));

	memset(ents, 0xA5, sizeof(ents));
	memset(ents2, 0x5A, sizeof(ents2));
	ASSERT_EQ(0, pcore_list(self->fd, ents, PCORE_MAXE, &n1));
	ASSERT_EQ(0, pcore_list(self->fd, ents2, PCORE_MAXE, &n2));
	ASSERT_EQ(1, n1);
	ASSERT_EQ(1, n2);
	EXPECT_EQ(0, memcmp(ents, ents2, sizeof(ents[0])));

	for (cpu = 0; cpu < 3; cpu++) {
		memset(b1, 0xA5, sizeof(b1));
		memset(b2, 0x5A, sizeof(b2));
		ASSERT_EQ(0, pcore_rd(self->fd, "do_fork", cpu == 1 ? 0 : -1,
				      flags[cpu], 0, &r1, b1));
		ASSERT_EQ(0, pcore_rd(self->fd, "do_fork", cpu == 1 ? 0 : -1,
				      flags[cpu], 0, &r2, b2));
		/* r.buckets is the caller's own pointer: it differs. */
		r2.buckets = r1.buckets;
		EXPECT_EQ(0, memcmp(&r1, &r2, sizeof(r1)));
		EXPECT_EQ(0, memcmp(b1, b2, r1.nbuckets * sizeof(b1[0])));
		EXPECT_EQ(0, r1.pad);
		EXPECT_EQ(0, r1.lost | r1.frames | r1.frames_size |
			     r1.nframes);
		EXPECT_NE(0, r1.created_ns);
		EXPECT_TRUE(pcore_zeroed(r1.label, sizeof(r1.label)));
	}
	/* The ENOSPC answer too: the caller's struct with nbuckets. */
	memset(&r1, 0, sizeof(r1));
	strcpy(r1.name, "do_fork");
	r1.cpu = -1;
	r1.bucket_size = sizeof(b1[0]);
	r2 = r1;
	ASSERT_EQ(ENOSPC, pcore_ioc(self->fd, PCORE_IOC_READ, &r1));
	r2.nbuckets = r1.nbuckets;
	EXPECT_EQ(0, memcmp(&r1, &r2, sizeof(r1)));
}

/*
 * Snapshot-and-reset under load: a child forks without pause while the
 * parent moves intervals out; every fork lands in exactly one of them.
 */
TEST_F_TIMEOUT(ioc, read_reset_intervals, 600)
{
	unsigned long long total = 0, nonzero = 0, reads = 0, bsum, f0;
	struct pcore_ioc_read r;
	struct pcore_ioc_entry e;
	unsigned int i;
	pid_t child;
	int st;

	f0 = pcore_nr_forks();
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_RESET, "do_fork"));
	ASSERT_EQ(0, pcore_rd_count(self->fd, "do_fork"));
	/* The child's own fork is the first event. */
	child = pcore_fork_load(NLOAD);
	ASSERT_LE(0, child);
	do {
		ASSERT_EQ(0, pcore_rd(self->fd, "do_fork", -1, PCORE_READ_RESET,
				      0, &r, bk));
		EXPECT_EQ(PCORE_READ_RESET, r.flags);
		for (i = 0, bsum = 0; i < r.nbuckets; i++)
			bsum += bk[i].count;
		EXPECT_EQ(r.count, bsum);
		total += r.count;
		nonzero += r.count != 0;
		reads++;
		usleep(2000);
	} while (waitpid(child, &st, WNOHANG) == 0);
	ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ASSERT_EQ(0, pcore_rd(self->fd, "do_fork", -1, PCORE_READ_RESET, 0, &r, bk));
	total += r.count;
	TH_LOG("%llu reset reads, %llu with events", reads, nonzero);
	EXPECT_FORKS(NLOAD + 1, total, f0);
	/* It really was read while forking went on. */
	EXPECT_LE(3, nonzero);
	EXPECT_EQ(0, pcore_rd_count(self->fd, "do_fork"));
	/* LIST's count is since creation: resets do not lower it. */
	ASSERT_EQ(0, pcore_list_one(self->fd, "do_fork", &e));
	EXPECT_LE(total, e.count);
	EXPECT_FORKS(NLOAD + 1, e.count, self->f0);
	/* hits are read after the count: as many, or the kernel's since. */
	EXPECT_LE(e.count, e.hits);
	EXPECT_FORKS(NLOAD + 1, e.hits, self->f0);
}

struct uffd_reader {
	int fd, ret;
	struct pcore_ioc_read r;
};

static void *uffd_read(void *arg)
{
	struct uffd_reader *rd = arg;

	rd->ret = ioctl(rd->fd, PCORE_IOC_READ, &rd->r) ? errno : 0;
	return NULL;
}

/* Wait up to @ms for @pid; its exit status, or -1 when it is still there. */
static int wait_ms(pid_t pid, int ms)
{
	int st;

	for (; ms > 0; ms -= 10) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
		usleep(10000);
	}
	return -1;
}

/* CLOCK_REALTIME in ns. */
static unsigned long long realtime_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

/*
 * A total (@t, @tb) is nowhere below an earlier one (@p, @pb): count, sum,
 * max and every bucket at least as high, min at most as low.  Returns how
 * many of them went down.
 */
static int total_below(const struct pcore_ioc_read *t,
		       const struct pcore_ioc_bucket *tb,
		       const struct pcore_ioc_read *p,
		       const struct pcore_ioc_bucket *pb)
{
	int down = (t->count < p->count) + (t->sum < p->sum) +
		   (t->max < p->max) + (p->count && t->min > p->min);
	unsigned int i;

	for (i = 0; i < t->nbuckets; i++)
		down += tb[i].count < pb[i].count;
	return down;
}

/*
 * PCORE_READ_TOTAL: every value since the histogram was created, whatever
 * interval reads and resets moved out or dropped since, all keys merged;
 * created_ns says when that was.  With the attached sys_getppid (nothing
 * else in the VM calls getppid) the counts are exact: calls, an interval
 * read, calls, a reset, calls; then a child calls without pause while the
 * parent alternates interval reads, resets and total reads: no total ever
 * goes down, and the last holds every call.  The child calls until the
 * parent saw the total grow in 3 rounds: when it made a fixed number of
 * calls, a parent slow to get the CPU (cloud-6.1, beside other VMs) read
 * in 2 rounds only.  A histogram attached again
 * starts from zero, with a later created_ns.  Keyed: pcore_apitest/direct's
 * total outlives the reset of all its keys.
 */
TEST_F_TIMEOUT(ioc, read_total, 600)
{
	static struct pcore_ioc_bucket pb[PCORE_MAXB];
	unsigned long long t0, t1, calls, totals = 0;
	struct pcore_ioc_read r, t, p;
	struct pcore_ioc_entry e;
	int st, i, down = 0;
	unsigned long long *shared;	/* [0] stop, [1] batches: atomics */
	time_t until;
	pid_t child;

	t0 = realtime_ns();
	ASSERT_EQ(0, pcore_attach(self->fd, "sys_getppid", PCORE_ATTACH_KRETPROBE));
	t1 = realtime_ns();
	ASSERT_EQ(0, pcore_rd(self->fd, "sys_getppid", -1, PCORE_READ_TOTAL, 0,
			      &t, bk));
	EXPECT_EQ(PCORE_READ_TOTAL, t.flags);
	EXPECT_EQ(0, t.count);
	EXPECT_LE(t0, t.created_ns);
	EXPECT_GE(t1, t.created_ns);
	getppids(NCALLS);
	ASSERT_EQ(0, pcore_rd(self->fd, "sys_getppid", -1, PCORE_READ_TOTAL, 0,
			      &p, pb));
	EXPECT_EQ(NCALLS, p.count);
	check_snapshot(_metadata, &p, pb);
	EXPECT_EQ(t.created_ns, p.created_ns);

	/* An interval read moves them out; the total keeps them. */
	ASSERT_EQ(0, pcore_rd(self->fd, "sys_getppid", -1, PCORE_READ_RESET, 0,
			      &r, bk));
	EXPECT_EQ(NCALLS, r.count);
	ASSERT_EQ(0, pcore_rd(self->fd, "sys_getppid", -1, PCORE_READ_TOTAL, 0,
			      &t, bk));
	t.buckets = p.buckets;	/* the caller's pointer: the rest is equal */
	EXPECT_EQ(0, memcmp(&p, &t, sizeof(t)));
	EXPECT_EQ(0, memcmp(pb, bk, t.nbuckets * sizeof(bk[0])));
	/* Calls, a reset (the values are dropped), calls. */
	getppids(NCALLS);
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_RESET, "sys_getppid"));
	EXPECT_EQ(0, pcore_rd_count(self->fd, "sys_getppid"));
	getppids(NCALLS);
	EXPECT_EQ(NCALLS, pcore_rd_count(self->fd, "sys_getppid"));
	ASSERT_EQ(0, pcore_rd(self->fd, "sys_getppid", -1, PCORE_READ_TOTAL, 0,
			      &t, bk));
	EXPECT_EQ(3 * NCALLS, t.count);
	check_snapshot(_metadata, &t, bk);
	EXPECT_EQ(0, total_below(&t, bk, &p, pb));
	/* LIST's count is the same lifetime count. */
	ASSERT_EQ(0, pcore_list_one(self->fd, "sys_getppid", &e));
	EXPECT_EQ(t.count, e.count);

	/* Under load, with intervals and resets in between. */
	p = t;
	memcpy(pb, bk, t.nbuckets * sizeof(bk[0]));
	shared = mmap(NULL, 2 * sizeof(*shared), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, shared);
	shared[0] = shared[1] = 0;
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		pcore_pin(1);
		/* At least as many calls as before, and until told to stop. */
		while (__atomic_load_n(&shared[1], __ATOMIC_RELAXED) < 200 ||
		       !__atomic_load_n(&shared[0], __ATOMIC_RELAXED)) {
			getppids(NCALLS);
			__atomic_add_fetch(&shared[1], 1, __ATOMIC_RELAXED);
		}
		_exit(0);
	}
	pcore_pin(0);
	i = 0;
	until = time(NULL) + 300;
	do {
		if (totals >= 3 || time(NULL) > until)
			__atomic_store_n(&shared[0], 1, __ATOMIC_RELAXED);
		if (i++ % 3 == 2) {
			ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_RESET,
						    "sys_getppid"));
		} else {
			ASSERT_EQ(0, pcore_rd(self->fd, "sys_getppid", -1,
					      PCORE_READ_RESET, 0, &r, bk));
		}
		ASSERT_EQ(0, pcore_rd(self->fd, "sys_getppid", -1,
				      PCORE_READ_TOTAL, 0, &t, bk));
		down += total_below(&t, bk, &p, pb);
		totals += t.count > p.count;
		p = t;
		memcpy(pb, bk, t.nbuckets * sizeof(bk[0]));
		usleep(1000);
	} while (waitpid(child, &st, WNOHANG) == 0);
	ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ASSERT_EQ(0, pcore_rd(self->fd, "sys_getppid", -1, PCORE_READ_TOTAL, 0,
			      &t, bk));
	calls = (3 + shared[1]) * NCALLS;	/* the child is gone */
	munmap(shared, 2 * sizeof(*shared));
	TH_LOG("%d rounds, %llu totals that grew", i, totals);
	EXPECT_EQ(0, down);
	EXPECT_EQ(calls, t.count);
	check_snapshot(_metadata, &t, bk);
	/* It really was read while the calls went on. */
	EXPECT_LE(3, totals);

	/* Made again: from zero, created later. */
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DETACH, "sys_getppid"));
	ASSERT_EQ(0, pcore_attach(self->fd, "sys_getppid", PCORE_ATTACH_KRETPROBE));
	ASSERT_EQ(0, pcore_rd(self->fd, "sys_getppid", -1, PCORE_READ_TOTAL, 0,
			      &r, bk));
	EXPECT_EQ(0, r.count);
	EXPECT_LT(t.created_ns, r.created_ns);
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DETACH, "sys_getppid"));

	/* Keyed (see read_key): 7 values in 3 keys, all reset, still 7. */
	ASSERT_EQ(0, pcore_mod_load("pcore_apitest", "case=keys_direct"));
	ASSERT_EQ(0, pcore_rd(self->fd, "pcore_apitest/direct", -1,
			      PCORE_READ_RESET, 0, &r, bk));
	EXPECT_EQ(7, r.count);
	EXPECT_EQ(0, pcore_rd_count(self->fd, "pcore_apitest/direct"));
	ASSERT_EQ(0, pcore_rd(self->fd, "pcore_apitest/direct", -1,
			      PCORE_READ_TOTAL, 0, &t, bk));
	expect_read(_metadata, &t, 7, 150, 10, 30);
	EXPECT_EQ(0, t.key_used);
	EXPECT_EQ(10, t.dropped);
	check_snapshot(_metadata, &t, bk);
}

/*
 * No user copy under the lock that module loading needs.  A READ|RESET
 * whose bucket buffer faults into a stalled userfaultfd waits in the
 * kernel; meanwhile another process loads and unloads pcore_tpsrc, a
 * module with a tracepoint (so the tracepoint module notifier, which
 * takes probe_core's lock, runs both times): it must finish within 20 s.
 * Then the fault is served and the read completes with the interval.
 * Before, the read held pcore_lock across its user copy, and the load
 * waited as long as the fault did.
 */
TEST_F_TIMEOUT(ioc, read_fault_does_not_block_modules, 120)
{
	struct uffdio_api api = { .api = UFFD_API };
	size_t len = PCORE_MAXB * sizeof(struct pcore_ioc_bucket);
	static struct uffd_reader rd;
	struct uffdio_register reg;
	struct uffdio_zeropage zp;
	struct pollfd pfd;
	struct uffd_msg msg;
	unsigned long long f0;
	pthread_t th;
	pid_t child;
	void *area;
	int uffd, st;

	/* The sysctl is there exactly when the kernel has userfaultfd. */
	if (access("/proc/sys/vm/unprivileged_userfaultfd", F_OK))
		SKIP(return, "no userfaultfd in this kernel (CONFIG_USERFAULTFD)");
	uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	ASSERT_LE(0, uffd);
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_API, &api));
	area = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, area);
	reg.range.start = (unsigned long)area;
	reg.range.len = len;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_REGISTER, &reg));

	f0 = pcore_nr_forks();
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_RESET, "do_fork"));
	ASSERT_EQ(0, pcore_forks(NFORKS));
	memset(&rd.r, 0, sizeof(rd.r));
	strcpy(rd.r.name, "do_fork");
	rd.r.cpu = -1;
	rd.r.flags = PCORE_READ_RESET;
	rd.r.buckets = (unsigned long)area;
	rd.r.nbuckets = PCORE_MAXB;
	rd.r.bucket_size = sizeof(struct pcore_ioc_bucket);
	rd.fd = self->fd;
	ASSERT_EQ(0, pthread_create(&th, NULL, uffd_read, &rd));
	pfd.fd = uffd;
	pfd.events = POLLIN;
	ASSERT_EQ(1, poll(&pfd, 1, 10000)) TH_LOG("the read never faulted");
	ASSERT_EQ(sizeof(msg), read(uffd, &msg, sizeof(msg)));
	EXPECT_EQ(UFFD_EVENT_PAGEFAULT, msg.event);

	/* The read waits in the kernel: load and unload a module. */
	child = fork();
	ASSERT_LE(0, child);
	if (!child)
		_exit(pcore_mod_load("pcore_tpsrc", NULL) ||
		      pcore_mod_unload_wait("pcore_tpsrc") ? 1 : 0);
	st = wait_ms(child, 20000);
	EXPECT_EQ(0, st) TH_LOG("insmod and rmmod of pcore_tpsrc: %s",
				st < 0 ? "still waiting after 20 s" : "failed");

	/* Serve the fault (and any later one): the read completes. */
	zp.range.start = (unsigned long)area;
	zp.range.len = len;
	zp.mode = 0;
	ioctl(uffd, UFFDIO_ZEROPAGE, &zp);
	ASSERT_EQ(0, pthread_join(th, NULL));
	if (st < 0)
		EXPECT_EQ(0, wait_ms(child, 20000));
	EXPECT_EQ(0, rd.ret);
	/*
	 * The forks, the reader thread's clone and the loader's fork (and
	 * the kernel's, if the load had it start a kworker).
	 */
	EXPECT_FORKS(NFORKS + 2, rd.r.count, f0);
	EXPECT_EQ(0, pcore_rd_count(self->fd, "do_fork"));
	munmap(area, len);
	close(uffd);
}

/* RESET empties the histogram; hits and LIST's count go on. */
TEST_F_TIMEOUT(ioc, reset, PCORE_TIMEOUT_PATCHING)
{
	struct pcore_ioc_read r;
	struct pcore_ioc_entry e;
	unsigned long long f0;
	unsigned int i;

	ASSERT_EQ(0, pcore_forks(NFORKS));
	EXPECT_FORKS(NFORKS, pcore_rd_count(self->fd, "do_fork"), self->f0);
	f0 = pcore_nr_forks();
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_RESET, "do_fork"));
	ASSERT_EQ(0, pcore_rd(self->fd, "do_fork", -1, 0, 0, &r, bk));
	expect_read(_metadata, &r, 0, 0, 0, 0);
	EXPECT_EQ(0, r.p50);
	EXPECT_EQ(0, r.p999);
	for (i = 0; i < r.nbuckets; i++)
		EXPECT_EQ(0, bk[i].count);
	EXPECT_EQ(0, pcore_stat("do_fork", "count"));
	ASSERT_EQ(0, pcore_forks(NFORKS / 4));
	EXPECT_FORKS(NFORKS / 4, pcore_rd_count(self->fd, "do_fork"), f0);
	ASSERT_EQ(0, pcore_list_one(self->fd, "do_fork", &e));
	EXPECT_FORKS(NFORKS + NFORKS / 4, e.count, self->f0);
	EXPECT_LE(e.count, e.hits);
	EXPECT_FORKS(NFORKS + NFORKS / 4, e.hits, self->f0);

	/* A handler module's histogram can be reset too. */
	ASSERT_EQ(0, pcore_mod_load("cpuhists", NULL));
	usleep(100000);
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_RESET, "cpuhists/offcpu"));
	/* offcpu: the test sleeps no more, the other CPU idles; few values. */
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_RESET, "cpuhists/oncpu"));
}

/*
 * Keyed reads of pcore_apitest/direct (case keys_direct), whose keys are
 * slots 0 to 3: key 0 twice 10 (label "zero"), key 1 twice 20 ("one"),
 * key 3 three times 30 (no label), key 2 nothing; 10 values dropped.
 * They were all recorded at load, on one CPU: each slot's per-CPU reads
 * add up to its merged read.
 */
TEST_F_TIMEOUT(ioc, read_key, PCORE_TIMEOUT_PATCHING)
{
	static const struct {
		unsigned long long count, sum;
		const char *label;
	} want[4] = {
		{ 2, 20, "zero" }, { 2, 40, "one" }, { 0, 0, "" }, { 3, 90, "" },
	};
	const char *name = "pcore_apitest/direct";
	struct pcore_ioc_read r, all;
	int ncpu = possible_cpus(), slot, cpu;
	unsigned long long percpu;

	ASSERT_EQ(0, pcore_mod_load("pcore_apitest", "case=keys_direct"));
	for (slot = 0; slot < 4; slot++) {
		ASSERT_EQ(0, pcore_rd(self->fd, name, -1, PCORE_READ_KEY, slot,
				      &r, bk));
		EXPECT_EQ(PCORE_READ_KEY, r.flags);
		EXPECT_EQ(slot, r.slot);
		EXPECT_EQ(slot != 2, r.key_used);
		EXPECT_EQ(slot != 2 ? slot : 0, r.key);
		EXPECT_STREQ(want[slot].label, r.label);
		EXPECT_EQ(want[slot].count, r.count);
		EXPECT_EQ(want[slot].sum, r.sum);
		EXPECT_EQ(10, r.dropped);
		check_snapshot(_metadata, &r, bk);
		for (cpu = 0, percpu = 0; cpu < ncpu; cpu++) {
			struct pcore_ioc_read rc;

			ASSERT_EQ(0, pcore_rd(self->fd, name, cpu,
					      PCORE_READ_KEY, slot, &rc, bk2));
			percpu += rc.count;
		}
		EXPECT_EQ(want[slot].count, percpu);
	}
	/* All keys at once. */
	ASSERT_EQ(0, pcore_rd(self->fd, name, -1, 0, 0, &all, bk));
	EXPECT_EQ(7, all.count);
	EXPECT_EQ(150, all.sum);
	EXPECT_EQ(0, all.key_used);
	check_snapshot(_metadata, &all, bk);

	/*
	 * Snapshot-and-reset of one key: the answer is that key's, with its
	 * key and label, and every key was reset and freed with its label.
	 */
	ASSERT_EQ(0, pcore_rd(self->fd, name, -1,
			      PCORE_READ_KEY | PCORE_READ_RESET, 1, &r, bk));
	EXPECT_EQ(2, r.count);
	EXPECT_EQ(40, r.sum);
	EXPECT_EQ(1, r.key_used);
	EXPECT_EQ(1, r.key);
	EXPECT_STREQ("one", r.label);
	check_snapshot(_metadata, &r, bk);
	ASSERT_EQ(0, pcore_rd(self->fd, name, -1, PCORE_READ_KEY, 0, &r, bk));
	EXPECT_EQ(0, r.count);
	EXPECT_EQ(0, r.key_used);
	EXPECT_STREQ("", r.label);
	ASSERT_EQ(0, pcore_rd(self->fd, name, -1, 0, 0, &all, bk));
	EXPECT_EQ(0, all.count);

	/* A slot beyond the keys is refused. */
	EXPECT_EQ(EINVAL, pcore_rd(self->fd, name, -1, PCORE_READ_KEY, 4, &r,
				   bk));
	/* A plain histogram has one slot, 0. */
	EXPECT_EQ(0, pcore_rd(self->fd, "do_fork", -1, PCORE_READ_KEY, 0, &r, bk));
	EXPECT_EQ(1, r.key_used);
	EXPECT_EQ(0, r.key);
	EXPECT_EQ(EINVAL, pcore_rd(self->fd, "do_fork", -1, PCORE_READ_KEY, 1,
				   &r, bk));
}

/* What an attached kretprobe histogram should look like. */
struct kind_case {
	const char *what;
	unsigned int hist_kind, precision;
	unsigned long long min, max, step;
	const char *kind_name;
	unsigned int nbuckets;	/* 0: as do_fork's (the default layout) */
};

static const struct kind_case kinds[] = {
	{ "default", PCORE_UAPI_HIST_DEFAULT, 0, 0, 0, 0, "loglinear", 0 },
	{ "log2", PCORE_UAPI_HIST_LOG2, 0, 0, 0, 0, "log2", 65 },
	{ "linear", PCORE_UAPI_HIST_LINEAR, 0, 1000, 10001000, 10000,
	  "linear", 1002 },
	{ "linear pow2", PCORE_UAPI_HIST_LINEAR, 0, 0, 1 << 20, 1 << 12,
	  "linear", 258 },
	{ "loglinear", PCORE_UAPI_HIST_LOGLINEAR, 0, 0, 0, 0, "loglinear", 0 },
	/* 2^6 sub-buckets up to an hour would be too many: up to 1 s */
	{ "loglinear:6", PCORE_UAPI_HIST_LOGLINEAR, 6, 0, 1000000000, 0,
	  "loglinear", 1 },
	{ "loglinear:1", PCORE_UAPI_HIST_LOGLINEAR, 1, 0, 0, 0, "loglinear", 1 },
};

/* The attach request of @name, a probe of @kind with the histogram of @k. */
static void kind_att_init(struct pcore_ioc_attach *a, const char *name,
			  unsigned int kind, const struct kind_case *k)
{
	pcore_att_init(a, name, kind, k->hist_kind);
	a->precision = k->precision;
	a->min = k->min;
	a->max = k->max;
	a->step = k->step;
}

/*
 * The offset at which the kprobes list @kp shows do_fork's kretprobe on
 * kernel_clone, -1 if absent.  A probe on a function's entry is at +0, or
 * at +4 when the function starts with the 4-byte endbr64 of
 * CONFIG_X86_KERNEL_IBT (Debian's 6.12 kernels): kprobes put it after.
 */
static int fork_entry(const char *kp)
{
	const char *p = strstr(kp, "  kernel_clone+0x");
	unsigned int off;

	if (!p || sscanf(p, " kernel_clone+0x%x", &off) != 1)
		return -1;
	return off;
}

/* A kretprobe attached through the device, each histogram kind. */
TEST_F_TIMEOUT(ioc, attach_kretprobe, PCORE_TIMEOUT_PATCHING)
{
	static char kp_before[PCORE_BUF], kp[PCORE_BUF];
	struct pcore_ioc_entry e, fork;
	struct pcore_ioc_attach a;
	struct pcore_probe_line pl;
	struct pcore_ioc_read r;
	unsigned long long f0;
	unsigned int i, n;
	char entry[64];
	struct stat st;
	int off;

	ASSERT_EQ(0, pcore_list_one(self->fd, "do_fork", &fork));
	ASSERT_LE(0, pcore_read(KPROBES_LIST, kp_before, PCORE_BUF));
	/*
	 * __x64_sys_getppid is a global function like kernel_clone: with
	 * IBT, both start with endbr64 and their entry probes are at +4.
	 * The kprobes list may name the syscall's alias, __do_sys_getppid.
	 */
	off = fork_entry(kp_before);
	ASSERT_TRUE(off == 0 || off == 4) TH_LOG("kprobes list: %s", kp_before);
	snprintf(entry, sizeof(entry), "sys_getppid+0x%x ", off);
	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		const struct kind_case *k = &kinds[i];

		TH_LOG("kind %s", k->what);
		kind_att_init(&a, "sys_getppid", PCORE_ATTACH_KRETPROBE, k);
		a.maxactive = i ? 0 : 4096;
		ASSERT_EQ(0, pcore_ioc(self->fd, PCORE_IOC_ATTACH, &a));
		getppids(NCALLS);

		ASSERT_EQ(0, pcore_list_one(self->fd, "sys_getppid", &e));
		expect_entry(_metadata, &e, "__x64_sys_getppid", "kretprobe",
			     k->kind_name, PCORE_ENT_HAS_PROBE | PCORE_ENT_OWN);
		EXPECT_STREQ("ns", e.unit);
		EXPECT_EQ(NCALLS, e.hits);
		EXPECT_EQ(NCALLS, e.count);
		EXPECT_EQ(0, e.missed);
		/* nbuckets 1: another precision, not the default's count */
		EXPECT_TRUE(k->nbuckets == 1 ? e.nbuckets != fork.nbuckets :
			    e.nbuckets == (k->nbuckets ?: fork.nbuckets)) {
			TH_LOG("%u buckets", e.nbuckets);
		}

		ASSERT_EQ(0, pcore_rd(self->fd, "sys_getppid", -1, 0, 0, &r, bk));
		EXPECT_EQ(NCALLS, r.count);
		EXPECT_EQ(e.nbuckets, r.nbuckets);
		check_snapshot(_metadata, &r, bk);
		if (k->hist_kind == PCORE_UAPI_HIST_LINEAR) {
			EXPECT_EQ(k->min, bk[1].lo);
			EXPECT_EQ(k->min + k->step, bk[1].hi);
			EXPECT_EQ(k->max, bk[r.nbuckets - 1].lo);
			EXPECT_EQ(0, r.error_ppm);
			EXPECT_LT(0, r.error_abs);
			EXPECT_GE(k->step, r.error_abs);
		} else {
			EXPECT_LT(0, r.error_ppm);
			EXPECT_EQ(0, r.error_abs);
			EXPECT_EQ(r.error_ppm, pcore_err_ppm("sys_getppid"));
		}

		/* In debugfs, the probes file and the kprobes list. */
		ASSERT_EQ(0, stat(PCORE_DBG "/sys_getppid", &st));
		EXPECT_TRUE(S_ISDIR(st.st_mode));
		EXPECT_EQ(NCALLS, pcore_stat("sys_getppid", "count"));
		EXPECT_EQ(r.sum, pcore_stat("sys_getppid", "sum"));
		EXPECT_EQ(r.max, pcore_stat("sys_getppid", "max"));
		ASSERT_EQ(0, pcore_probe_line("sys_getppid", &pl));
		EXPECT_STREQ("kretprobe", pl.kind);
		EXPECT_STREQ("__x64_sys_getppid", pl.symbol);
		EXPECT_EQ(NCALLS, pl.hits);
		ASSERT_LT(0, pcore_read(KPROBES_LIST, kp, PCORE_BUF));
		EXPECT_NE(NULL, strstr(kp, entry)) {
			TH_LOG("'%s' not in the kprobes list: %s", entry, kp);
		}

		/* Detach: gone from everywhere, the kprobes list as before. */
		ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DETACH, "sys_getppid"));
		EXPECT_NE(0, access(PCORE_DBG "/sys_getppid", F_OK));
		EXPECT_EQ(ENOENT, pcore_list_one(self->fd, "sys_getppid", &e));
		EXPECT_EQ(ENOENT, pcore_rd(self->fd, "sys_getppid", -1, 0, 0, &r, bk));
		EXPECT_NE(0, pcore_probe_line("sys_getppid", &pl));
		ASSERT_LE(0, pcore_read(KPROBES_LIST, kp, PCORE_BUF));
		EXPECT_STREQ(kp_before, kp);
		EXPECT_EQ(ENOENT, pcore_name_ioc(self->fd, PCORE_IOC_DETACH,
						 "sys_getppid"));
	}
	/* do_fork went on untouched. */
	ASSERT_EQ(0, pcore_list(self->fd, ents, PCORE_MAXE, &n));
	EXPECT_EQ(2, n);
	/* A target= probe detaches the same way. */
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DETACH, "do_fork"));
	EXPECT_NE(0, access(PCORE_DBG "/do_fork", F_OK));
	ASSERT_LE(0, pcore_read(KPROBES_LIST, kp, PCORE_BUF));
	EXPECT_EQ(NULL, strstr(kp, "kernel_clone"));
	/* ... and attaches again through the device, counting from zero. */
	f0 = pcore_nr_forks();
	ASSERT_EQ(0, pcore_attach(self->fd, "do_fork", PCORE_ATTACH_KRETPROBE));
	ASSERT_EQ(0, pcore_forks(NFORKS / 4));
	ASSERT_EQ(0, pcore_list_one(self->fd, "do_fork", &e));
	EXPECT_STREQ("kernel_clone", e.symbol);
	EXPECT_FORKS(NFORKS / 4, e.count, f0);
	EXPECT_LE(e.count, e.hits);
	EXPECT_FORKS(NFORKS / 4, e.hits, f0);
	ASSERT_LE(0, pcore_read(KPROBES_LIST, kp, PCORE_BUF));
	EXPECT_STREQ(kp_before, kp);
}

/*
 * ABI 5: the probe in fields (@target, @what, @arg, @unit, @flags), the
 * name only a label or made from them; the call of ABI 2 to 4
 * (PCORE_IOC_ATTACH_V4, the probe in the name) as before; fields held to
 * the text's rules, with EINVAL, one log line, and nothing attached.
 */
TEST_F_TIMEOUT(ioc, attach_fields_and_v4, PCORE_TIMEOUT_PATCHING)
{
	static const struct {
		const char *name, *target, *unit;
		unsigned int what, arg, flags;
		const char *hist, *probe_kind, *hunit, *key;
	} ok[] = {
		/* no name: the one target= would give */
		{ "", "sys_getppid", "", PCORE_WHAT_COUNT, 0, 0,
		  "sys_getppid:count", "kprobe", "calls", "" },
		/* a label, nothing of the probe in it */
		{ "ppid", "sys_getppid", "", PCORE_WHAT_TIME, 0, 0,
		  "ppid", "kretprobe", "ns", "" },
		{ "", "sys_getppid", "B", PCORE_WHAT_ARG, 2, PCORE_ATTACH_BY_PID,
		  "sys_getppid:arg2:B:by=pid", "kprobe", "B", "pid" },
		{ "", "sys_getppid", "B", PCORE_WHAT_ARG, 2,
		  PCORE_ATTACH_BY_CGROUP, "sys_getppid:arg2:B:by=cgroup", "kprobe",
		  "B", "cgroup" },
		{ "ppid:count", "sys_getppid", "", PCORE_WHAT_RETVAL, 0, 0,
		  "ppid:count", "kretprobe", "value", "" },
	};
	static const struct {
		const char *target, *unit;
		unsigned int kind, what, arg, flags, pad;
		const char *line;	/* "" for no log line */
	} bad[] = {
		/* the rules of the text, with the text's reasons */
		{ "vfs_*", "", PCORE_ATTACH_KRETPROBE, PCORE_WHAT_ARG, 1, 0, 0,
		  "attach=vfs_*:arg1: a glob takes no suffix but ':count'" },
		{ "f", "", PCORE_ATTACH_KRETPROBE, PCORE_WHAT_STACKS, 0,
		  PCORE_ATTACH_BY_PID, 0,
		  "attach=f:stacks:by=pid: ':by=pid' is not for ':stacks'" },
		{ "f", "", PCORE_ATTACH_KRETPROBE, 9, 0, 0, 0,
		  "attach=f: what 9 is not one of PCORE_WHAT_*" },
		{ "f", "", PCORE_ATTACH_KRETPROBE, PCORE_WHAT_ARG, 7, 0, 0,
		  "attach=f:arg7: argument 7 is not 1 to 6" },
		{ "f", "B", PCORE_ATTACH_KRETPROBE, PCORE_WHAT_COUNT, 0, 0, 0,
		  "attach=f:count:B: a unit is for ':argN' and ':retval' only" },
		{ "f", "", PCORE_ATTACH_KRETPROBE, PCORE_WHAT_TIME, 0, 0x40, 0,
		  "attach=f: flags 0x40: unknown flags" },
		{ "f", "", PCORE_ATTACH_KRETPROBE, PCORE_WHAT_COUNT, 0,
		  PCORE_ATTACH_BY_PID | PCORE_ATTACH_BY_CGROUP, 0,
		  "attach=f:count:by=pid:by=cgroup: ':by=pid' and ':by=cgroup' are one or the other" },
		{ "f", "", PCORE_ATTACH_KRETPROBE, PCORE_WHAT_TIME, 0,
		  PCORE_ATTACH_USTACK, 0,
		  "attach=f:ustack: ':ustack' is for ':stacks' only" },
		{ "f:count", "", PCORE_ATTACH_KRETPROBE, PCORE_WHAT_TIME, 0, 0, 0,
		  "attach=f:count: a function is named without blank" },
		/* the struct's own: fields without a target, pad */
		{ "", "", PCORE_ATTACH_KRETPROBE, PCORE_WHAT_COUNT, 0, 0, 0, "" },
		{ "", "B", PCORE_ATTACH_KRETPROBE, PCORE_WHAT_TIME, 0, 0, 0, "" },
		{ "f", "", PCORE_ATTACH_KRETPROBE, PCORE_WHAT_TIME, 0, 0, 1, "" },
		{ "sched_switch", "", PCORE_ATTACH_TRACEPOINT, PCORE_WHAT_COUNT,
		  0, 0, 0, "" },
	};
	static char before[PCORE_BUF], after[PCORE_BUF], log[4096];
	struct pcore_ioc_attach a;
	struct pcore_ioc_entry e;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		pcore_att_init(&a, ok[i].name, PCORE_ATTACH_KRETPROBE, 0);
		snprintf(a.target, sizeof(a.target), "%s", ok[i].target);
		snprintf(a.unit, sizeof(a.unit), "%s", ok[i].unit);
		a.what = ok[i].what;
		a.arg = ok[i].arg;
		a.flags = ok[i].flags;
		ASSERT_EQ(0, pcore_ioc(self->fd, PCORE_IOC_ATTACH, &a))
			TH_LOG("case %u", i);
		getppids(NCALLS);
		ASSERT_EQ(0, pcore_list_one(self->fd, ok[i].hist, &e))
			TH_LOG("case %u: no histogram %s", i, ok[i].hist);
		EXPECT_STREQ("__x64_sys_getppid", e.symbol);
		EXPECT_STREQ(ok[i].probe_kind, e.probe_kind);
		EXPECT_STREQ(ok[i].hunit, e.unit);
		EXPECT_STREQ(ok[i].key, e.key_name);
		EXPECT_EQ(NCALLS, e.hits) TH_LOG("case %u", i);
		EXPECT_EQ(NCALLS, e.count) TH_LOG("case %u", i);
		EXPECT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DETACH, ok[i].hist));
	}

	/*
	 * ABI 4's call: the struct up to hz and 8 reserved bytes; the name
	 * says the probe, as target= reads it.  Past its size the kernel
	 * reads nothing: junk there changes nothing.
	 */
	pcore_att_init(&a, "sys_getppid:count", PCORE_ATTACH_KRETPROBE, 0);
	memset((char *)&a + PCORE_ATTACH_V4_SIZE, 0xa5,
	       sizeof(a) - PCORE_ATTACH_V4_SIZE);
	ASSERT_EQ(0, pcore_ioc(self->fd, PCORE_IOC_ATTACH_V4, &a));
	getppids(NCALLS);
	ASSERT_EQ(0, pcore_list_one(self->fd, "sys_getppid:count", &e));
	EXPECT_STREQ("kprobe", e.probe_kind);
	EXPECT_STREQ("calls", e.unit);
	EXPECT_EQ(NCALLS, e.count);
	EXPECT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DETACH,
				    "sys_getppid:count"));
	/* ... its reserved bytes must be zero, its text follows the rules */
	a.target[7] = 1;
	EXPECT_EQ(EINVAL, pcore_ioc(self->fd, PCORE_IOC_ATTACH_V4, &a));
	a.target[7] = 0;
	snprintf(a.name, sizeof(a.name), "sys_getppid:cnt");
	EXPECT_EQ(EINVAL, pcore_ioc(self->fd, PCORE_IOC_ATTACH_V4, &a));
	kmsg_collect(self->kmsg, log, sizeof(log));
	EXPECT_NE(NULL, strstr(log, "attach=sys_getppid:cnt: unknown suffix ':cnt'"))
		TH_LOG("%s", log);

	ASSERT_EQ(0, pcore_fingerprint(self->fd, before, sizeof(before)));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		pcore_att_init(&a, "", bad[i].kind, 0);
		snprintf(a.target, sizeof(a.target), "%s", bad[i].target);
		snprintf(a.unit, sizeof(a.unit), "%s", bad[i].unit);
		a.what = bad[i].what;
		a.arg = bad[i].arg;
		a.flags = bad[i].flags;
		a.pad = bad[i].pad;
		EXPECT_EQ(EINVAL, pcore_ioc(self->fd, PCORE_IOC_ATTACH, &a))
			TH_LOG("case %u", i);
		EXPECT_EQ(*bad[i].line ? 1 : 0,
			  kmsg_collect(self->kmsg, log, sizeof(log)))
			TH_LOG("case %u: %s", i, log);
		EXPECT_NE(NULL, strstr(log, bad[i].line))
			TH_LOG("case %u: '%s' not in: %s", i, bad[i].line, log);
	}
	/* a name that does not end: refused */
	pcore_att_init(&a, "", PCORE_ATTACH_KRETPROBE, 0);
	memset(a.target, 'f', sizeof(a.target));
	EXPECT_EQ(EINVAL, pcore_ioc(self->fd, PCORE_IOC_ATTACH, &a));
	ASSERT_EQ(0, pcore_fingerprint(self->fd, after, sizeof(after)));
	EXPECT_STREQ(before, after);
}

/* The sched_switch tracepoint attached through the device, each kind. */
TEST_F_TIMEOUT(ioc, attach_tracepoint, PCORE_TIMEOUT_PATCHING)
{
	static char kp_before[PCORE_BUF], kp[PCORE_BUF];
	struct pcore_ioc_entry e;
	struct pcore_ioc_attach a;
	struct pcore_probe_line pl;
	struct pcore_ioc_read r;
	unsigned int i;

	ASSERT_LE(0, pcore_read(KPROBES_LIST, kp_before, PCORE_BUF));
	/* The one tracepoints= gave goes first: a name is attached once. */
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DETACH, "sched_switch"));
	EXPECT_NE(0, access(PCORE_DBG "/sched_switch", F_OK));
	EXPECT_NE(0, pcore_probe_line("sched_switch", &pl));
	for (i = 0; i < ARRAY_SIZE(kinds); i++) {
		const struct kind_case *k = &kinds[i];

		TH_LOG("kind %s", k->what);
		kind_att_init(&a, "sched_switch", PCORE_ATTACH_TRACEPOINT, k);
		ASSERT_EQ(0, pcore_ioc(self->fd, PCORE_IOC_ATTACH, &a));
		/* Switches: sleep on both CPUs. */
		ASSERT_EQ(0, pcore_pin(i & 1));
		usleep(10000);
		usleep(10000);
		ASSERT_EQ(0, pcore_list_one(self->fd, "sched_switch", &e));
		expect_entry(_metadata, &e, "sched_switch", "tracepoint",
			     k->kind_name, PCORE_ENT_HAS_PROBE | PCORE_ENT_OWN);
		EXPECT_LT(0, e.count);
		EXPECT_LE(e.count, e.hits);
		EXPECT_EQ(0, e.missed);
		if (k->nbuckets > 1)
			EXPECT_EQ(k->nbuckets, e.nbuckets);
		ASSERT_EQ(0, pcore_rd(self->fd, "sched_switch", -1, 0, 0, &r, bk));
		EXPECT_LE(e.count, r.count);
		check_snapshot(_metadata, &r, bk);
		EXPECT_EQ(0, access(PCORE_DBG "/sched_switch/stats", R_OK));
		ASSERT_EQ(0, pcore_probe_line("sched_switch", &pl));
		EXPECT_STREQ("tracepoint", pl.kind);
		ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DETACH, "sched_switch"));
		EXPECT_NE(0, access(PCORE_DBG "/sched_switch", F_OK));
		EXPECT_EQ(ENOENT, pcore_list_one(self->fd, "sched_switch", &e));
		EXPECT_NE(0, pcore_probe_line("sched_switch", &pl));
	}
	/* No kprobe was involved. */
	ASSERT_LE(0, pcore_read(KPROBES_LIST, kp, PCORE_BUF));
	EXPECT_STREQ(kp_before, kp);
}

/* A disabled kretprobe counts nothing; enabled again, it counts exactly. */
TEST_F_TIMEOUT(ioc, enable_disable, PCORE_TIMEOUT_PATCHING)
{
	static char kp[PCORE_BUF];
	struct pcore_ioc_entry e;
	struct pcore_probe_line pl;
	unsigned long long hits, f0;

	ASSERT_EQ(0, pcore_forks(NFORKS / 2));
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DISABLE, "do_fork"));
	ASSERT_EQ(0, pcore_list_one(self->fd, "do_fork", &e));
	EXPECT_EQ(PCORE_ENT_HAS_PROBE | PCORE_ENT_OWN | PCORE_ENT_DISABLED, e.flags);
	EXPECT_FORKS(NFORKS / 2, e.count, self->f0);
	/* Disabled: nothing counts between the two reads. */
	EXPECT_EQ(e.count, e.hits);
	hits = e.hits;
	ASSERT_LT(0, pcore_read(KPROBES_LIST, kp, PCORE_BUF));
	EXPECT_NE(NULL, strstr(kp, "kernel_clone")) {
		TH_LOG("%s", kp);
	}
	EXPECT_NE(NULL, strstr(kp, "[DISABLED]"));
	/* Twice is the same as once. */
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DISABLE, "do_fork"));
	ASSERT_EQ(0, pcore_forks(NFORKS));
	ASSERT_EQ(0, pcore_list_one(self->fd, "do_fork", &e));
	EXPECT_EQ(hits, e.count);
	EXPECT_EQ(hits, e.hits);
	EXPECT_EQ(hits, pcore_rd_count(self->fd, "do_fork"));
	/* Reads and resets work on a disabled probe. */
	EXPECT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_RESET, "do_fork"));
	EXPECT_EQ(0, pcore_rd_count(self->fd, "do_fork"));

	f0 = pcore_nr_forks();
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_ENABLE, "do_fork"));
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_ENABLE, "do_fork"));
	ASSERT_EQ(0, pcore_list_one(self->fd, "do_fork", &e));
	EXPECT_EQ(PCORE_ENT_HAS_PROBE | PCORE_ENT_OWN, e.flags);
	ASSERT_LT(0, pcore_read(KPROBES_LIST, kp, PCORE_BUF));
	EXPECT_EQ(NULL, strstr(kp, "[DISABLED]"));
	ASSERT_EQ(0, pcore_forks(NFORKS));
	EXPECT_FORKS(NFORKS, pcore_rd_count(self->fd, "do_fork"), f0);
	ASSERT_EQ(0, pcore_list_one(self->fd, "do_fork", &e));
	EXPECT_FORKS(NFORKS, e.hits - hits, f0);

	/* The tracepoint: disabled, its handler does not run at all. */
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DISABLE, "sched_switch"));
	ASSERT_EQ(0, pcore_list_one(self->fd, "sched_switch", &e));
	EXPECT_EQ(PCORE_ENT_HAS_PROBE | PCORE_ENT_OWN | PCORE_ENT_DISABLED, e.flags);
	hits = e.hits;
	usleep(50000);
	ASSERT_EQ(0, pcore_probe_line("sched_switch", &pl));
	EXPECT_EQ(hits, pl.hits);
	/* Disabled is not waiting: "(waiting)" is for a module not loaded. */
	EXPECT_STREQ("sched_switch", pl.symbol);
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_ENABLE, "sched_switch"));
	usleep(50000);
	ASSERT_EQ(0, pcore_list_one(self->fd, "sched_switch", &e));
	EXPECT_EQ(PCORE_ENT_HAS_PROBE | PCORE_ENT_OWN, e.flags);
	EXPECT_LT(hits, e.hits);

	/* A disabled probe detaches cleanly. */
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DISABLE, "do_fork"));
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DISABLE, "sched_switch"));
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DETACH, "do_fork"));
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DETACH, "sched_switch"));
	ASSERT_LE(0, pcore_read(KPROBES_LIST, kp, PCORE_BUF));
	EXPECT_STREQ("", kp);
}

/* An open file holds probe_core; closed, it unloads and the node goes. */
TEST_F_TIMEOUT(ioc, open_file_holds_module, PCORE_TIMEOUT_PATCHING)
{
	struct stat st;

	ASSERT_EQ(0, stat(PCORE_DEVICE, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_NE(0, pcore_unload());
	EXPECT_TRUE(pcore_loaded());
	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, pcore_unload_wait());
	EXPECT_NE(0, access(PCORE_DEVICE, F_OK));
	EXPECT_NE(0, access(PCORE_DBG, F_OK));
}

TEST_HARNESS_MAIN
