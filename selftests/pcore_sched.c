// SPDX-License-Identifier: GPL-2.0
/*
 * tracepoints=sched_switch: every CPU switches and is counted on its own
 * line; the per-CPU lines add up to the merged view.
 */
#include "pcore_lib.h"
#include "kselftest_harness.h"

#define NSLEEPS	200

static char buf[PCORE_BUF];

FIXTURE(sched) {
	int unused;
};

FIXTURE_SETUP(sched)
{
	if (pcore_loaded())
		ASSERT_EQ(0, pcore_unload_wait());
	ASSERT_EQ(0, pcore_load("tracepoints=sched_switch"));
}

FIXTURE_TEARDOWN(sched)
{
	EXPECT_EQ(0, pcore_unload_wait());
}

/* On each CPU a child sleeps NSLEEPS times: two switches per sleep. */
static int sleep_on_each_cpu(int ncpu)
{
	int cpu, st, ok = 0;
	pid_t pid;

	for (cpu = 0; cpu < ncpu; cpu++) {
		pid = fork();
		if (pid < 0)
			return -1;
		if (!pid) {
			int i;

			if (pcore_pin(cpu))
				_exit(1);
			for (i = 0; i < NSLEEPS; i++)
				usleep(500);
			_exit(0);
		}
	}
	while (wait(&st) > 0)
		ok += WIFEXITED(st) && !WEXITSTATUS(st);
	return ok == ncpu ? 0 : -1;
}

TEST_F_TIMEOUT(sched, counts_on_every_cpu, 300)
{
	unsigned long long c, s, a, b, tc = 0, ts = 0, tmn = -1ULL, tmx = 0;
	unsigned long long cnt, sum, mn, mx, later;
	struct pcore_probe_line l;
	int cpu, ncpu = 0, n, online = sysconf(_SC_NPROCESSORS_ONLN);
	char *p;

	ASSERT_LE(2, online);
	ASSERT_EQ(0, sleep_on_each_cpu(online));

	ASSERT_LT(0, pcore_read(PCORE_DBG "/sched_switch/percpu", buf, PCORE_BUF));
	for (p = buf; (p = strstr(p, "cpu")); p++) {
		n = sscanf(p, "cpu%d count %llu sum %llu min %llu max %llu",
			   &cpu, &c, &s, &a, &b);
		ASSERT_EQ(5, n);
		ASSERT_EQ(ncpu, cpu);
		if (cpu < online)
			EXPECT_LE(NSLEEPS, c) {
				TH_LOG("cpu%d saw %llu slices", cpu, c);
			}
		ncpu++;
		tc += c;
		ts += s;
		if (c && a < tmn)
			tmn = a;
		if (b > tmx)
			tmx = b;
	}
	ASSERT_LE(online, ncpu);
	p = strstr(buf, "total count");
	ASSERT_NE(NULL, p);
	n = sscanf(p, "total count %llu sum %llu min %llu max %llu", &cnt,
		   &sum, &mn, &mx);
	ASSERT_EQ(4, n);
	EXPECT_EQ(tc, cnt);
	EXPECT_EQ(ts, sum);
	EXPECT_EQ(tmn, mn);
	EXPECT_EQ(tmx, mx);

	/* The merged view only grows from there. */
	later = pcore_stat("sched_switch", "count");
	EXPECT_LE(cnt, later);
	ASSERT_EQ(0, pcore_probe_line("sched_switch", &l));
	EXPECT_STREQ("tracepoint", l.kind);
	EXPECT_STREQ("sched_switch", l.symbol);
	EXPECT_LE(later, l.hits);
	EXPECT_EQ(0, l.missed);
}

/* A 500 us sleep leaves the CPU idle for about that long: slices that long exist. */
TEST_F_TIMEOUT(sched, slices_are_plausible, 300)
{
	unsigned long long mx, p50;

	ASSERT_EQ(0, sleep_on_each_cpu(2));
	mx = pcore_stat("sched_switch", "max");
	p50 = pcore_stat("sched_switch", "p50");
	EXPECT_LE(500000, mx);
	EXPECT_LT(0, p50);
	EXPECT_LE(p50, mx);
}

TEST_HARNESS_MAIN
