// SPDX-License-Identifier: GPL-2.0
/*
 * tracepoints=sched_switch: every CPU switches and is counted on its own
 * line; the per-CPU lines add up to the merged view.
 */
#include "pcore_lib.h"
#include <signal.h>
#include "kselftest_harness.h"

#define NSLEEPS	200

PCORE_LOAD_FIXTURE(sched, "tracepoints=sched_switch")

static int sleep_nsleeps(int cpu, void *unused)
{
	int i;

	for (i = 0; i < NSLEEPS; i++)
		usleep(500);
	return 0;
}

/* On each CPU a child sleeps NSLEEPS times: two switches per sleep. */
static int sleep_on_each_cpu(int ncpu)
{
	if (pcore_fork_pinned(ncpu, sleep_nsleeps, NULL, NULL, NULL))
		return -1;
	return pcore_wait_ok(ncpu);
}

TEST_F_TIMEOUT(sched, counts_on_every_cpu, 300)
{
	int cpu, online = sysconf(_SC_NPROCESSORS_ONLN);
	struct pcore_probe_line l;
	struct pcore_percpu pc;
	unsigned long long later;

	ASSERT_LE(2, online);
	ASSERT_EQ(0, sleep_on_each_cpu(online));

	ASSERT_EQ(0, pcore_percpu_parse(PCORE_DBG "/sched_switch/percpu", &pc));
	ASSERT_LE(online, pc.ncpu);
	for (cpu = 0; cpu < online; cpu++) {
		EXPECT_LE(NSLEEPS, pc.count[cpu]) {
			TH_LOG("cpu%d saw %llu slices", cpu, pc.count[cpu]);
		}
		EXPECT_EQ(pc.count[cpu], pc.hist[cpu]);
	}
	EXPECT_EQ(pc.c, pc.tc);
	EXPECT_EQ(pc.s, pc.ts);
	EXPECT_EQ(pc.mn, pc.tmn);
	EXPECT_EQ(pc.mx, pc.tmx);

	/* The merged view only grows from there. */
	later = pcore_stat("sched_switch", "count");
	EXPECT_LE(pc.tc, later);
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

#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"

/*
 * A CPU offline for 2 s is not a slice: its CPU timer is disarmed when it
 * goes, so its first switch after it comes back only starts its clock.
 * Meanwhile a child sleeps in a loop on CPU 0, so that no slice there is
 * long either.  The old code recorded the whole offline period (and the
 * idle time before it) as one slice of CPU 1.
 */
TEST_F_TIMEOUT(sched, offline_is_not_a_slice, 300)
{
	unsigned long long mx;
	pid_t busy;
	int st;

	ASSERT_EQ(0, access(CPU1_ONLINE, W_OK));
	busy = fork();
	ASSERT_LE(0, busy);
	if (!busy) {
		if (pcore_pin(0))
			_exit(1);
		for (;;)
			usleep(500);
	}
	ASSERT_EQ(0, pcore_pin(0));
	usleep(100000);
	ASSERT_EQ(0, pcore_write(PCORE_DBG "/sched_switch/reset", "1", 1));
	ASSERT_EQ(0, pcore_write(CPU1_ONLINE, "0", 1));
	usleep(2000000);
	ASSERT_EQ(0, pcore_write(CPU1_ONLINE, "1", 1));
	kill(busy, SIGKILL);
	ASSERT_EQ(busy, waitpid(busy, &st, 0));
	/* Switches on CPU 1 again: its first one after coming back. */
	ASSERT_EQ(0, sleep_on_each_cpu(2));
	mx = pcore_stat("sched_switch", "max");
	EXPECT_GT(1000000000ULL, mx) TH_LOG("a slice of %llu ns", mx);
	EXPECT_LE(500000, mx);
}

TEST_HARNESS_MAIN
