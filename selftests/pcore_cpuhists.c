// SPDX-License-Identifier: GPL-2.0
/*
 * cpuhists, the example handler module: per-CPU on-CPU slices and off-CPU
 * times from sched_switch.
 *
 * On-CPU slices include the idle task's, so on every CPU the slices of an
 * interval add up to the interval's length: that is checked against the
 * wall clock.  Off-CPU times are checked with a task that sleeps a known
 * time on a known CPU.
 */
#include "pcore_lib.h"
#include "kselftest_harness.h"

#define DBG		PCORE_DBG "/cpuhists"
#define NSLEEPS		20
#define SLEEP_NS	30000000ULL	/* 30 ms */

FIXTURE(cpuhists) {
	pid_t sleepers[PCORE_MAX_CPUS];
	int nsleepers;
};

FIXTURE_SETUP(cpuhists)
{
	if (pcore_mod_loaded("cpuhists"))
		ASSERT_EQ(0, pcore_mod_unload_wait("cpuhists"));
	if (pcore_loaded())
		ASSERT_EQ(0, pcore_unload_wait());
	ASSERT_EQ(0, pcore_load(""));
	ASSERT_EQ(0, pcore_mod_load("cpuhists", ""));
	self->nsleepers = 0;
}

static void stop_sleepers(pid_t *pids, int *n)
{
	int i;

	for (i = 0; i < *n; i++) {
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
	*n = 0;
}

FIXTURE_TEARDOWN(cpuhists)
{
	stop_sleepers(self->sleepers, &self->nsleepers);
	if (pcore_mod_loaded("cpuhists"))
		EXPECT_EQ(0, pcore_mod_unload_wait("cpuhists"));
	EXPECT_EQ(0, pcore_unload_wait());
}

/* A child per CPU that sleeps 1 ms in a loop: a switch about every ms. */
static int start_sleepers(pid_t *pids, int *n, int ncpu)
{
	int cpu;
	pid_t pid;

	for (cpu = 0; cpu < ncpu; cpu++) {
		pid = fork();
		if (pid < 0)
			return -1;
		if (!pid) {
			if (pcore_pin(cpu))
				_exit(1);
			for (;;)
				usleep(1000);
		}
		pids[(*n)++] = pid;
	}
	return 0;
}

/* From the keys file: the count and sum of key @key, or -1. */
static int key_line(const char *hist, unsigned long long key,
		    unsigned long long *count, unsigned long long *sum)
{
	static char buf[PCORE_BUF];
	char path[256], *line;
	unsigned long long k;

	snprintf(path, sizeof(path), DBG "/%s/keys", hist);
	if (pcore_read(path, buf, sizeof(buf)) < 0)
		return -1;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		if (sscanf(line, "%llu %*s %llu %llu", &k, count, sum) == 3 &&
		    k == key)
			return 0;
	}
	return -1;
}

/*
 * In the hist file, the values of key @key at or above @lo: the buckets
 * under the "cpu <key> <label>:" line whose lower end is >= @lo.
 */
static long long count_above(const char *hist, unsigned long long key,
			     unsigned long long lo)
{
	static char buf[PCORE_BUF];
	char path[256], head[64], *line;
	unsigned long long b_lo, n;
	long long total = -1;

	snprintf(path, sizeof(path), DBG "/%s/hist", hist);
	if (pcore_read(path, buf, sizeof(buf)) < 0)
		return -1;
	snprintf(head, sizeof(head), "cpu %llu ", key);
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		if (line[0] != ' ') {
			if (total >= 0)
				break;	/* the next key */
			if (!strncmp(line, head, strlen(head)))
				total = 0;
			continue;
		}
		if (total >= 0 &&
		    sscanf(line, " [%lluns, %*s %llu", &b_lo, &n) == 2 &&
		    b_lo >= lo)
			total += n;
	}
	return total;
}

/*
 * Every CPU runs something at every moment (the idle task too), so its
 * slices over an interval add up to the interval.  The edges: the slice
 * running at the reset is counted whole, the one running at the read not
 * at all; with a sleeper switching every millisecond on each CPU both are
 * a few ms.  50 ms of slack covers them and the TCG guest's jitter.
 */
TEST_F_TIMEOUT(cpuhists, oncpu_slices_add_up_to_wall_time, 120)
{
	int cpu, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long long count, sum;
	double t_reset, t_read;

	ASSERT_LE(2, ncpu);
	ASSERT_EQ(0, start_sleepers(self->sleepers, &self->nsleepers, ncpu));
	usleep(100000);
	ASSERT_EQ(0, pcore_write(DBG "/oncpu/reset", "1", 1));
	t_reset = pcore_now();
	usleep(1000000);
	t_read = pcore_now();
	for (cpu = 0; cpu < ncpu; cpu++) {
		double elapsed_ns = (t_read - t_reset) * 1e9;

		ASSERT_EQ(0, key_line("oncpu", cpu, &count, &sum));
		EXPECT_LT(100ULL, count) TH_LOG("cpu%d: %llu slices", cpu, count);
		EXPECT_LT(elapsed_ns - 50e6, (double)sum)
			TH_LOG("cpu%d: slices %llu ns in %.0f ns", cpu, sum,
			       elapsed_ns);
		EXPECT_GT(elapsed_ns + 50e6, (double)sum)
			TH_LOG("cpu%d: slices %llu ns in %.0f ns", cpu, sum,
			       elapsed_ns);
	}
}

/*
 * A task pinned to the last CPU sleeps NSLEEPS times SLEEP_NS: each sleep
 * is an off-CPU time of at least SLEEP_NS, recorded on that CPU when the
 * task runs again.  Other tasks may add long off-CPU times too, so the
 * count is a lower bound; the bucket holding SLEEP_NS starts at most 1/16
 * below it.
 */
TEST_F_TIMEOUT(cpuhists, offcpu_sees_known_sleeps, 120)
{
	int i, cpu = sysconf(_SC_NPROCESSORS_ONLN) - 1;
	unsigned long long before, after;
	struct timespec ts = { 0, SLEEP_NS };
	pid_t pid;
	int st;

	before = count_above("offcpu", cpu, SLEEP_NS - SLEEP_NS / 16);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (pcore_pin(cpu))
			_exit(1);
		for (i = 0; i < NSLEEPS; i++)
			nanosleep(&ts, NULL);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	after = count_above("offcpu", cpu, SLEEP_NS - SLEEP_NS / 16);
	EXPECT_LE(before + NSLEEPS, after)
		TH_LOG("cpu%d: %llu -> %llu off-CPU times >= 28 ms", cpu,
		       before, after);
}

/* The timers file accounts for the stamps; unloading removes it all. */
TEST_F(cpuhists, timers_and_unload)
{
	static char buf[PCORE_BUF];
	unsigned long long measured, discarded, unmatched, evicted;
	char name[32], scope[16];
	int fields;

	ASSERT_EQ(0, pcore_forks(50));
	ASSERT_LT(0, pcore_read(DBG "/timers", buf, sizeof(buf)));
	fields = sscanf(buf, "%31s %15s %llu %llu %llu %llu", name, scope,
			&measured, &discarded, &unmatched, &evicted);
	ASSERT_EQ(6, fields);
	EXPECT_STREQ("slice", name);
	EXPECT_STREQ("cpu", scope);
	EXPECT_LT(100ULL, measured);
	EXPECT_EQ(0ULL, discarded);
	/* only the first switch seen on each CPU has no start */
	EXPECT_GE((unsigned long long)sysconf(_SC_NPROCESSORS_CONF), unmatched);
	ASSERT_LT(0, pcore_read(PCORE_DBG "/probes", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "cpuhists/sched_switch tracepoint sched_switch "));

	ASSERT_EQ(0, pcore_mod_unload_wait("cpuhists"));
	EXPECT_NE(0, access(DBG, F_OK));
	ASSERT_LE(0, pcore_read(PCORE_DBG "/probes", buf, sizeof(buf)));
	EXPECT_EQ(NULL, strstr(buf, "cpuhists"));
}

TEST_HARNESS_MAIN
