// SPDX-License-Identifier: GPL-2.0
/*
 * Timing from entry to return: nanosleep() of 1 ms and of 10 ms, probed at
 * the syscall (target=sys_nanosleep, which also tests the sys_ alias).
 *
 * Tolerances, without guessing at how slow the emulator is:
 *  - the kernel never returns from nanosleep early, so the true median of
 *    the in-kernel times is at least the requested time;
 *  - each in-kernel time lies inside the time userspace measured around the
 *    same call, so the true median is at most the userspace median;
 *  - the reported p50 is within the stated bucket error of the true median.
 * Hence requested * (1 - err) <= p50 <= user median * (1 + err).
 */
#include "pcore_lib.h"
#include "kselftest_harness.h"

#define NSLEEPS	60

PCORE_LOAD_FIXTURE(timing, "target=sys_nanosleep")

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/* NSLEEPS nanosleep() calls of ns each; returns the userspace median. */
static unsigned long long sleep_median(unsigned long long ns)
{
	struct timespec req = { .tv_sec = ns / 1000000000ULL,
				.tv_nsec = ns % 1000000000ULL };
	unsigned long long d[NSLEEPS];
	struct timespec a, b;
	int i;

	for (i = 0; i < NSLEEPS; i++) {
		clock_gettime(CLOCK_MONOTONIC, &a);
		if (syscall(SYS_nanosleep, &req, NULL))
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &b);
		d[i] = (b.tv_sec - a.tv_sec) * 1000000000ULL + b.tv_nsec -
		       a.tv_nsec;
	}
	qsort(d, NSLEEPS, sizeof(d[0]), cmp_ull);
	return d[(NSLEEPS + 1) / 2 - 1];	/* nearest-rank p50 */
}

static void check_sleep(struct __test_metadata *_metadata,
			unsigned long long ns)
{
	unsigned long long umed, p50, err;

	ASSERT_EQ(0, pcore_write(PCORE_DBG "/sys_nanosleep/reset", "1", 1));
	umed = sleep_median(ns);
	ASSERT_NE(0, umed);
	ASSERT_EQ(NSLEEPS, pcore_stat("sys_nanosleep", "count"));
	p50 = pcore_stat("sys_nanosleep", "p50");
	err = pcore_err_ppm("sys_nanosleep");
	ASSERT_EQ(31250, err);
	TH_LOG("sleep %llu ns: kernel p50 %llu ns, user median %llu ns",
	       ns, p50, umed);
	EXPECT_LE(ns - ns * err / 1000000, p50);
	EXPECT_GE(umed + umed * err / 1000000, p50);
	EXPECT_LE(ns, pcore_stat("sys_nanosleep", "min"));
}

TEST_F_TIMEOUT(timing, sleep_1ms, 120)
{
	struct pcore_probe_line l;

	check_sleep(_metadata, 1000000);
	ASSERT_EQ(0, pcore_probe_line("sys_nanosleep", &l));
	EXPECT_STREQ("__x64_sys_nanosleep", l.symbol);
}

TEST_F_TIMEOUT(timing, sleep_10ms, 120)
{
	check_sleep(_metadata, 10000000);
}

/* Both in one histogram: the two clusters stay apart. */
TEST_F_TIMEOUT(timing, mixed_1ms_10ms, 120)
{
	unsigned long long p50, p90, err;

	ASSERT_EQ(0, pcore_write(PCORE_DBG "/sys_nanosleep/reset", "1", 1));
	/* 60% short, 40% long: p50 is a short sleep, p90 a long one. */
	ASSERT_NE(0, sleep_median(1000000));
	ASSERT_NE(0, sleep_median(1000000));
	ASSERT_NE(0, sleep_median(1000000));
	ASSERT_NE(0, sleep_median(10000000));
	ASSERT_NE(0, sleep_median(10000000));
	err = pcore_err_ppm("sys_nanosleep");
	p50 = pcore_stat("sys_nanosleep", "p50");
	p90 = pcore_stat("sys_nanosleep", "p90");
	EXPECT_LE(1000000 - 1000000 * err / 1000000, p50);
	EXPECT_GT(10000000 - 10000000 * err / 1000000, p50);
	EXPECT_LE(10000000 - 10000000 * err / 1000000, p90);
}

TEST_HARNESS_MAIN
