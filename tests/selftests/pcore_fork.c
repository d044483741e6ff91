// SPDX-License-Identifier: GPL-2.0
/*
 * target=do_fork: exact counts, the files agree with each other, reset and
 * interval reads lose nothing.
 */
#include "pcore_lib.h"
#include <sys/mman.h>
#include "kselftest_harness.h"

/*
 * Counts are exact whatever their size: NFORKS only has to be more than
 * a few (divisible by 2, 3 and 4).  NLOAD is the fork load that interval
 * reads run under, long enough for several of them to see forks.
 */
#define NFORKS	48
#define NLOAD	240

/*
 * NFORKS forks of ours counted by @name: @f0 is the kernel's fork count
 * before, @c1 @name's count after.  The count grew by NFORKS, and by the
 * kernel's own forks if it made any meanwhile.  A macro: the checks are
 * the test's.
 */
#define EXPECT_NFORKS_COUNTED(name, c1, f0) do {			\
	unsigned long long c0_;						\
									\
	f0 = pcore_nr_forks();						\
	c0_ = pcore_stat(name, "count");				\
	ASSERT_NE(-1ULL, c0_);						\
	ASSERT_EQ(0, pcore_forks(NFORKS));				\
	c1 = pcore_stat(name, "count");					\
	EXPECT_FORKS(NFORKS, c1 - c0_, f0);				\
} while (0)

static char buf[PCORE_BUF];
static char hbuf[4096];

FIXTURE(fork) {
	unsigned long long f0;	/* the kernel's forks before the load */
};

/*
 * Each test through each mechanism: @mech's parameter, and the kinds
 * @count_kind of do_fork:count and @time_kind of do_fork alone.  A count
 * beside a timing probe takes the direct call first: the timing probe is
 * a kretprobe (one direct call per function).
 */
FIXTURE_VARIANT(fork) {
	const char *mech, *count_kind, *time_kind;
};

FIXTURE_VARIANT_ADD(fork, auto) {
	.mech = "", .count_kind = "direct", .time_kind = "direct-ret",
};

FIXTURE_VARIANT_ADD(fork, kprobe) {
	.mech = "mechanism=kprobe", .count_kind = "kprobe",
	.time_kind = "kretprobe",
};

/* probe_core loaded with @targets, probing by @mech. */
static int fork_load(const char *mech, const char *targets)
{
	char params[128];

	snprintf(params, sizeof(params), "%s %s", mech, targets);
	return pcore_load(params);
}

FIXTURE_SETUP(fork)
{
	if (pcore_loaded())
		ASSERT_EQ(0, pcore_unload_wait());
	self->f0 = pcore_nr_forks();
	ASSERT_NE(-1ULL, self->f0);
	ASSERT_EQ(0, fork_load(variant->mech, "target=do_fork"));
	/* The tests' windows start where the kernel forks no more. */
	ASSERT_EQ(0, pcore_forks_quiet());
}

#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"

FIXTURE_TEARDOWN(fork)
{
	/* A failed hotplug test must not leave CPU 1 offline. */
	pcore_write(CPU1_ONLINE, "1", 1);
	EXPECT_EQ(0, pcore_unload_wait());
}

TEST_F_TIMEOUT(fork, counts_exactly, 300)
{
	struct pcore_probe_line l;
	unsigned long long c1, mn, mx, p50, p90, p99, p999, mean, f0;
	int lines;

	EXPECT_NFORKS_COUNTED("do_fork", c1, f0);

	ASSERT_EQ(0, pcore_probe_line("do_fork", &l));
	EXPECT_STREQ(variant->time_kind, l.kind);
	/* do_fork is kernel_clone since v5.10, _do_fork before. */
	EXPECT_TRUE(!strcmp(l.symbol, "kernel_clone") ||
		    !strcmp(l.symbol, "_do_fork"));
	EXPECT_EQ(c1, l.hits);
	EXPECT_EQ(0, l.missed);

	ASSERT_LT(0, pcore_read(PCORE_DBG "/do_fork/stats", buf, PCORE_BUF));
	EXPECT_EQ(0, pcore_key(buf, "missed"));
	EXPECT_NE(NULL, strstr(buf, "\nsymbol: kernel_clone\n"));
	EXPECT_NE(NULL, strstr(buf, "\nunit: ns\n"));
	EXPECT_NE(NULL, strstr(buf, "\nkind: loglinear\n"));
	EXPECT_NE(NULL, strstr(buf, "\npercentile_error: 3.1250%\n"));
	mn = pcore_key(buf, "min");
	mx = pcore_key(buf, "max");
	mean = pcore_key(buf, "mean");
	p50 = pcore_key(buf, "p50");
	p90 = pcore_key(buf, "p90");
	p99 = pcore_key(buf, "p99");
	p999 = pcore_key(buf, "p999");
	/* A fork takes some microseconds, even emulated, and not 1 s. */
	EXPECT_LT(1000, mn);
	EXPECT_GT(1000000000ULL, mx);
	EXPECT_LE(mn, p50);
	EXPECT_LE(p50, p90);
	EXPECT_LE(p90, p99);
	EXPECT_LE(p99, p999);
	EXPECT_LE(p999, mx);
	EXPECT_LE(mn, mean);
	EXPECT_LE(mean, mx);

	ASSERT_LT(0, pcore_read(PCORE_DBG "/do_fork/hist", buf, PCORE_BUF));
	EXPECT_EQ(c1, pcore_hist_total(buf, &lines));
	EXPECT_LT(1, lines);
	/* fork latencies, as a person reads them: "[16.4 us, 20.5 us)" */
	EXPECT_TRUE(strstr(buf, " us, ") || strstr(buf, " ms, ")) TH_LOG("%s", buf);
	EXPECT_EQ(NULL, strstr(buf, "ns, ")) TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, "|@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|"));
}

TEST_F_TIMEOUT(fork, percpu_adds_up, 300)
{
	struct pcore_percpu pc;
	int cpu;

	ASSERT_EQ(0, pcore_pin(0));
	ASSERT_EQ(0, pcore_forks(NFORKS / 2));
	ASSERT_EQ(0, pcore_pin(1));
	ASSERT_EQ(0, pcore_forks(NFORKS / 2));

	ASSERT_EQ(0, pcore_percpu_parse(PCORE_DBG "/do_fork/percpu", &pc));
	ASSERT_LE(2, pc.ncpu);
	for (cpu = 0; cpu < pc.ncpu; cpu++)
		EXPECT_EQ(pc.count[cpu], pc.hist[cpu]);
	EXPECT_LE(NFORKS / 2, pc.count[0]);
	EXPECT_LE(NFORKS / 2, pc.count[1]);
	EXPECT_FORKS(NFORKS, pc.tc, self->f0);
	EXPECT_EQ(pc.c, pc.tc);
	EXPECT_EQ(pc.s, pc.ts);
	EXPECT_EQ(pc.mn, pc.tmn);
	EXPECT_EQ(pc.mx, pc.tmx);
}

TEST_F_TIMEOUT(fork, reset_starts_over, 300)
{
	static const char * const bad[] = { "0", "2", "abc", "", "1 1", "-1", "0x1",
				     "99999999999999999999", "01", "+1", "1 ",
				     "1\n\n", " 1" };
	struct pcore_probe_line l;
	char big[8192], *unmapped;
	unsigned long long c, f0;
	unsigned int i;

	ASSERT_EQ(0, pcore_forks(NFORKS));
	c = pcore_stat("do_fork", "count");
	EXPECT_FORKS(NFORKS, c, self->f0);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(EINVAL, pcore_write(PCORE_DBG "/do_fork/reset", bad[i],
					      strlen(bad[i]))) {
			TH_LOG("reset accepted '%s'", bad[i]);
		}
	}
	memset(big, '1', sizeof(big));
	EXPECT_EQ(EINVAL, pcore_write(PCORE_DBG "/do_fork/reset", big, sizeof(big)));
	/* A pointer the kernel cannot read: a page just unmapped. */
	unmapped = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, unmapped);
	munmap(unmapped, 4096);
	EXPECT_EQ(EFAULT, pcore_write(PCORE_DBG "/do_fork/reset", unmapped, 2));
	/* Refused writes changed nothing. */
	ASSERT_EQ(c, pcore_stat("do_fork", "count"));

	f0 = pcore_nr_forks();
	ASSERT_EQ(0, pcore_write(PCORE_DBG "/do_fork/reset", "1\n", 2));
	EXPECT_EQ(0, pcore_stat("do_fork", "count"));
	EXPECT_EQ(0, pcore_stat("do_fork", "sum"));
	EXPECT_EQ(0, pcore_stat("do_fork", "max"));
	ASSERT_LT(0, pcore_read(PCORE_DBG "/do_fork/hist", buf, PCORE_BUF));
	EXPECT_STREQ("(empty)\n", buf);

	ASSERT_EQ(0, pcore_forks(NFORKS / 3));
	EXPECT_FORKS(NFORKS / 3, pcore_stat("do_fork", "count"), f0);
	/* hits counts since load, through resets. */
	ASSERT_EQ(0, pcore_probe_line("do_fork", &l));
	EXPECT_FORKS(NFORKS + NFORKS / 3, l.hits, self->f0);
}

/*
 * Snapshot-and-reset under load: a child forks without pause while the
 * parent reads intervals; the intervals add up to exactly what was done.
 */
TEST_F_TIMEOUT(fork, intervals_lose_nothing, 600)
{
	unsigned long long c, total = 0, nonzero = 0, reads = 0;
	unsigned long long pa, pb, pc, pd, pe, h0;
	struct pcore_probe_line l;
	int st;
	pid_t child;

	pa = pcore_nr_forks();
	ASSERT_EQ(0, pcore_probe_line("do_fork", &l));
	h0 = l.hits;
	ASSERT_EQ(0, pcore_write(PCORE_DBG "/do_fork/reset", "1", 1));
	pb = pcore_nr_forks();
	/* The child's own fork is the first event. */
	child = pcore_fork_load(NLOAD);
	ASSERT_LE(0, child);
	while (waitpid(child, &st, WNOHANG) == 0) {
		ASSERT_LT(0, pcore_read(PCORE_DBG "/do_fork/interval", buf, PCORE_BUF));
		c = pcore_key(buf, "count");
		ASSERT_NE(-1ULL, c);
		total += c;
		nonzero += c != 0;
		reads++;
		usleep(2000);
	}
	ASSERT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	pc = pcore_nr_forks();
	ASSERT_LT(0, pcore_read(PCORE_DBG "/do_fork/interval", buf, PCORE_BUF));
	pd = pcore_nr_forks();
	total += pcore_key(buf, "count");
	TH_LOG("%llu interval reads, %llu with events", reads, nonzero);
	/*
	 * Ours are NLOAD + 1; the kernel may start a kworker meanwhile
	 * (kthreadd forks too).  The intervals hold every fork between the
	 * reset and the last read: at least those the kernel made from after
	 * the reset to before that read, at most those from before the reset
	 * to after it.  In the quiet VM both are ours alone, exactly.
	 */
	ASSERT_NE(-1ULL, pa);
	EXPECT_LE(NLOAD + 1, pc - pb);
	EXPECT_LE(pc - pb, total) TH_LOG("kernel forks %llu..%llu", pc - pb, pd - pa);
	EXPECT_GE(pd - pa, total) TH_LOG("kernel forks %llu..%llu", pc - pb, pd - pa);
	/* It really was read while forking went on. */
	EXPECT_LE(3, nonzero);
	/* hits counts the same calls, through the resets. */
	ASSERT_EQ(0, pcore_probe_line("do_fork", &l));
	pe = pcore_nr_forks();
	EXPECT_LE(pc - pb, l.hits - h0);
	EXPECT_GE(pe - pa, l.hits - h0);
	EXPECT_EQ(0, pcore_stat("do_fork", "count"));
}

/*
 * Waits until nothing forks for QUIET_MS (the count stays put over that
 * long), at most 10 s; returns the count, or -1ULL when forking goes on.
 */
#define QUIET_MS	300
static unsigned long long fork_quiet_count(void)
{
	unsigned long long c, last = pcore_stat("do_fork", "count");
	int i, still = 0;

	for (i = 0; i < 10000 / 50 && still < QUIET_MS / 50; i++) {
		usleep(50000);
		c = pcore_stat("do_fork", "count");
		still = c == last ? still + 1 : 0;
		last = c;
	}
	return still < QUIET_MS / 50 ? -1ULL : last;
}

/*
 * A CPU that goes offline keeps its counts in the merged view; an interval
 * read harvests it directly, and it counts again once back online.
 *
 * The kernel forks too around a hotplug (kthreadd starting a kworker for
 * the work that taking a CPU down or up queues: seen on the debug kernel
 * as one fork more while CPU 1 went offline, and on PREEMPT_RT when it
 * comes back).  Those forks are real and counted, so the counts are
 * bounded by /proc/stat's "processes" read around each window: ours plus
 * at most the kernel's own.  In a quiet VM that is exactly ours.
 */
TEST_F_TIMEOUT(fork, offline_cpu_keeps_counts, 300)
{
	unsigned long long c0, c1, cpu1, f0, f1, f2, extra;
	struct pcore_percpu pc;

	f0 = pcore_nr_forks();
	ASSERT_NE(-1ULL, f0);
	ASSERT_EQ(0, pcore_write(PCORE_DBG "/do_fork/reset", "1", 1));
	ASSERT_EQ(0, pcore_pin(1));
	ASSERT_EQ(0, pcore_forks(NFORKS / 2));
	ASSERT_EQ(0, pcore_pin(0));
	ASSERT_EQ(0, pcore_write(CPU1_ONLINE, "0", 1));

	c0 = pcore_stat("do_fork", "count");
	ASSERT_EQ(0, pcore_percpu_parse(PCORE_DBG "/do_fork/percpu", &pc));
	f1 = pcore_nr_forks();
	extra = f1 - f0 - NFORKS / 2;
	EXPECT_LE(NFORKS / 2, c0);
	EXPECT_GE(NFORKS / 2 + extra, c0) TH_LOG("kernel forks: %llu", extra);
	/* Ours all ran on CPU 1. */
	EXPECT_LE(NFORKS / 2, pc.count[1]);
	EXPECT_GE(NFORKS / 2 + extra, pc.count[1]);
	EXPECT_LE(NFORKS / 2, pc.tc);
	EXPECT_GE(NFORKS / 2 + extra, pc.tc);

	ASSERT_EQ(0, pcore_forks(NFORKS / 4));
	f2 = pcore_nr_forks();
	ASSERT_LT(0, pcore_read(PCORE_DBG "/do_fork/interval", buf, PCORE_BUF));
	f1 = pcore_nr_forks();
	extra = f1 - f0 - NFORKS / 2 - NFORKS / 4;
	EXPECT_LE(NFORKS / 2 + NFORKS / 4, pcore_key(buf, "count"));
	EXPECT_GE(NFORKS / 2 + NFORKS / 4 + extra, pcore_key(buf, "count"))
		TH_LOG("kernel forks: %llu", extra);
	/* The read took everything: left are at most forks since. */
	c0 = pcore_stat("do_fork", "count");
	EXPECT_GE(pcore_nr_forks() - f2, c0);

	ASSERT_EQ(0, pcore_write(CPU1_ONLINE, "1", 1));
	/*
	 * The kernel itself may fork right after a CPU comes online: the
	 * hotplug callbacks queue work on the new CPU (cpuset, osnoise and
	 * hwlat hotplug work...), and when that CPU's worker pool runs out of
	 * idle workers, the workqueue has kthreadd fork one more kworker.
	 * Seen on PREEMPT_RT (one kthreadd fork the first time CPU 1 comes
	 * back), where work items sleep on locks more often.  That fork is
	 * real and counted; ours are counted from a quiet point on.
	 */
	c0 = fork_quiet_count();
	ASSERT_NE(-1ULL, c0);
	ASSERT_EQ(0, pcore_percpu_parse(PCORE_DBG "/do_fork/percpu", &pc));
	cpu1 = pc.count[1];
	ASSERT_EQ(0, pcore_pin(1));
	ASSERT_EQ(0, pcore_forks(NFORKS / 4));
	c1 = pcore_stat("do_fork", "count");
	EXPECT_EQ(NFORKS / 4, c1 - c0);
	/* All of them on CPU 1, online again. */
	ASSERT_EQ(0, pcore_percpu_parse(PCORE_DBG "/do_fork/percpu", &pc));
	EXPECT_EQ(NFORKS / 4, pc.count[1] - cpu1);
	EXPECT_EQ(c1, pc.tc);
}

/*
 * target=do_fork:count beside target=do_fork: a probe that only counts
 * calls, into a count histogram (no distribution, no percentiles), and a
 * return probe (a kretprobe) that times the same calls.
 */
TEST_F_TIMEOUT(fork, count_beside_time, 300)
{
	unsigned long long c1, f0, fl, t, extra;
	struct pcore_probe_line l;

	ASSERT_EQ(0, pcore_unload_wait());
	fl = pcore_nr_forks();
	ASSERT_EQ(0, fork_load(variant->mech, "target=do_fork:count,do_fork"));
	ASSERT_EQ(0, pcore_forks_quiet());
	EXPECT_NFORKS_COUNTED("do_fork:count", c1, f0);
	/*
	 * The same calls, timed (at their return): the same count, but for
	 * a fork of the kernel's own that the two reads split.
	 */
	t = pcore_stat("do_fork", "count");
	extra = pcore_nr_forks() - fl - NFORKS;
	EXPECT_LE(c1, t + extra) TH_LOG("counted %llu, timed %llu", c1, t);
	EXPECT_LE(t, c1 + extra) TH_LOG("counted %llu, timed %llu", c1, t);

	/* Later reads: c1, and the kernel's own forks since, if any. */
	ASSERT_LT(0, pcore_read(PCORE_DBG "/do_fork:count/stats", buf, PCORE_BUF));
	EXPECT_LE(c1, pcore_key(buf, "count")) TH_LOG("%s", buf);
	EXPECT_GE(c1 + pcore_nr_forks() - f0 - NFORKS, pcore_key(buf, "count"));
	/* a count histogram keeps no values: no sum, min, max, mean */
	EXPECT_EQ(-1ULL, pcore_key(buf, "sum")) TH_LOG("%s", buf);
	EXPECT_EQ(-1ULL, pcore_key(buf, "min"));
	EXPECT_EQ(-1ULL, pcore_key(buf, "max"));
	EXPECT_EQ(-1ULL, pcore_key(buf, "mean"));
	EXPECT_EQ(-1ULL, pcore_key(buf, "p50")) TH_LOG("%s", buf);
	EXPECT_EQ(-1ULL, pcore_key(buf, "percentile_error"));
	EXPECT_NE(NULL, strstr(buf, "\nkind: count\n")) TH_LOG("%s", buf);
	t = pcore_key(buf, "count");
	/* its hist: the count alone, no row "[0calls, inf)" */
	ASSERT_LT(0, pcore_read(PCORE_DBG "/do_fork:count/hist", hbuf, sizeof(hbuf)));
	EXPECT_EQ(NULL, strchr(hbuf, '[')) TH_LOG("%s", hbuf);
	EXPECT_LE(t, pcore_key(hbuf, "count")) TH_LOG("%s", hbuf);
	EXPECT_GE(c1 + pcore_nr_forks() - f0 - NFORKS, pcore_key(hbuf, "count"));
	EXPECT_NE(NULL, strstr(buf, "\nunit: calls\n")) TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, "\nsymbol: kernel_clone\n")) TH_LOG("%s", buf);
	ASSERT_EQ(0, pcore_probe_line("do_fork:count", &l));
	EXPECT_STREQ(variant->count_kind, l.kind);
	EXPECT_STREQ("kernel_clone", l.symbol);
	EXPECT_EQ(0, l.missed);
	EXPECT_LE(c1, l.hits);
	EXPECT_GE(c1 + pcore_nr_forks() - f0 - NFORKS, l.hits);
	ASSERT_EQ(0, pcore_probe_line("do_fork", &l));
	EXPECT_STREQ("kretprobe", l.kind);
	ASSERT_LT(0, pcore_read(PCORE_DBG "/do_fork/stats", buf, PCORE_BUF));
	if (!*variant->mech)
		EXPECT_NE(NULL, strstr(buf, "\nmechanism: kretprobe (no direct call: another probe of probe_core's has it)\n"))
			TH_LOG("%s", buf);

	/* An interval read moves the count out; reset empties it. */
	ASSERT_LT(0, pcore_read(PCORE_DBG "/do_fork:count/interval", buf, PCORE_BUF));
	EXPECT_LE(c1, pcore_key(buf, "count")) TH_LOG("%s", buf);
	EXPECT_GE(c1 + pcore_nr_forks() - f0, pcore_key(buf, "count"));
	ASSERT_EQ(0, pcore_forks(NFORKS / 3));
	ASSERT_EQ(0, pcore_write(PCORE_DBG "/do_fork:count/reset", "1", 1));
	EXPECT_EQ(0, pcore_stat("do_fork:count", "count"));
	/* hits count on through both. */
	ASSERT_EQ(0, pcore_probe_line("do_fork:count", &l));
	EXPECT_LE(c1 + NFORKS / 3, l.hits);
}

TEST_HARNESS_MAIN
