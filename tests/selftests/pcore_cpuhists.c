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
#include "pcore_ioctl.h"
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
	PCORE_ASSERT_UNLOADED("cpuhists");
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

/* Sleeps 1 ms in a loop: a switch about every ms; never returns. */
static int sleep_forever(int cpu, void *unused)
{
	for (;;)
		usleep(1000);
	return 0;
}

/* A child per CPU that sleeps 1 ms in a loop. */
static int start_sleepers(pid_t *pids, int *n, int ncpu)
{
	return pcore_fork_pinned(ncpu, sleep_forever, NULL, pids, n);
}

/* One CPU's line of a percpu file. */
struct key_vals {
	unsigned long long count, sum, min, max;
};

/* From percpu file text @text: the values of CPU @cpu; 0, or -1 if absent. */
static int cpu_line(const char *text, int cpu, struct key_vals *v)
{
	const char *line;
	int c;

	for (line = text; line && *line; line = strchr(line, '\n')) {
		if (*line == '\n')
			line++;
		if (sscanf(line, "cpu%d count %llu sum %llu min %llu max %llu",
			   &c, &v->count, &v->sum, &v->min, &v->max) == 5 &&
		    c == cpu)
			return 0;
	}
	return -1;
}

/*
 * Of histogram cpuhists/@hist, the values CPU @cpu recorded at or above
 * @lo: its buckets whose lower end is >= @lo, every bucket as it is
 * (PCORE_IOC_READ of that CPU).  The percpu file merges adjacent buckets
 * into at most 40 rows, so a row there can start below @lo and end above
 * it: which buckets merge depends on what else the CPU recorded.
 */
static long long count_above(const char *hist, int cpu, unsigned long long lo)
{
	static struct pcore_ioc_bucket b[PCORE_MAXB];
	struct pcore_ioc_read r;
	char name[64];
	long long total = 0;
	unsigned int i;
	int fd, ret;

	snprintf(name, sizeof(name), "cpuhists/%s", hist);
	fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = pcore_rd(fd, name, cpu, 0, 0, &r, b);
	close(fd);
	if (ret)
		return -1;
	for (i = 0; i < r.nbuckets; i++)
		if (b[i].lo >= lo)
			total += b[i].count;
	return total;
}

/*
 * Every CPU runs something at every moment (the idle task too), so its
 * slices tile time: those recorded between a reset and a read add up to
 * the time between them, but for the two edges, which are bounded by the
 * longest slice rather than by a guess (an idle slice can last 200 ms on
 * the debug kernel under emulation):
 *   - the slice running at the reset is recorded whole when it ends, with
 *     the part before the reset: the sum exceeds the window by at most
 *     the longest slice of the window;
 *   - the slice running at the read is not recorded yet: the sum falls
 *     short by at most its length, which the test reads once that slice
 *     has ended (a later max).
 * The window is bracketed by the clock readings before and after the
 * reset and the read (one read of the percpu file for all CPUs).  SLACK_NS
 * is what remains: local_clock() is each CPU's sched_clock, not
 * CLOCK_MONOTONIC, and each switch loses the nanoseconds between the stop
 * of one slice and the start of the next (about a thousand switches in
 * the second, a few microseconds each under emulation with KASAN).
 */
#define SLACK_NS	20000000ULL	/* 20 ms */

TEST_F_TIMEOUT(cpuhists, oncpu_slices_add_up_to_wall_time, 120)
{
	static char keys[PCORE_BUF], later[PCORE_BUF];
	int cpu, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double t_reset0, t_reset1, t_read0, t_read1;
	struct key_vals v, w;
	bool ended;

	ASSERT_LE(2, ncpu);
	ASSERT_EQ(0, start_sleepers(self->sleepers, &self->nsleepers, ncpu));
	usleep(100000);
	t_reset0 = pcore_now();
	ASSERT_EQ(0, pcore_write(DBG "/oncpu/reset", "1", 1));
	t_reset1 = pcore_now();
	usleep(1000000);
	t_read0 = pcore_now();
	ASSERT_LT(0, pcore_read(DBG "/oncpu/percpu", keys, sizeof(keys)));
	t_read1 = pcore_now();

	/* Until every CPU has ended the slice it was running at the read. */
	do {
		ASSERT_LT(0, pcore_read(DBG "/oncpu/percpu", later, sizeof(later)));
		ended = true;
		for (cpu = 0; cpu < ncpu; cpu++) {
			ASSERT_EQ(0, cpu_line(keys, cpu, &v));
			ASSERT_EQ(0, cpu_line(later, cpu, &w));
			ended &= w.count > v.count;
		}
		if (!ended)
			usleep(1000);
	} while (!ended);

	for (cpu = 0; cpu < ncpu; cpu++) {
		double most = (t_read1 - t_reset0) * 1e9;
		double least = (t_read0 - t_reset1) * 1e9;

		ASSERT_EQ(0, cpu_line(keys, cpu, &v));
		ASSERT_EQ(0, cpu_line(later, cpu, &w));
		EXPECT_LT(100ULL, v.count) TH_LOG("cpu%d: %llu slices", cpu, v.count);
		EXPECT_GE(most + v.max + SLACK_NS, (double)v.sum)
			TH_LOG("cpu%d: slices %llu ns in %.0f..%.0f ns, longest %llu ns",
			       cpu, v.sum, least, most, v.max);
		EXPECT_LE(least - w.max - SLACK_NS, (double)v.sum)
			TH_LOG("cpu%d: slices %llu ns in %.0f..%.0f ns, longest after %llu ns",
			       cpu, v.sum, least, most, w.max);
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
	struct timespec ts = { 0, SLEEP_NS };
	long long before, after;
	pid_t pid;
	int st;

	before = count_above("offcpu", cpu, SLEEP_NS - SLEEP_NS / 16);
	ASSERT_LE(0, before);
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
	EXPECT_LE(before + NSLEEPS, after) {
		static char t[PCORE_BUF];

		/* A lost sleep shows in the sleep timer's counters. */
		if (pcore_read(DBG "/timers", t, sizeof(t)) < 0)
			t[0] = '\0';
		TH_LOG("cpu%d: %lld -> %lld off-CPU times >= 28 ms; timers:\n%s",
		       cpu, before, after, t);
	}
}

/*
 * The histograms hold a record per CPU, not per CPU and key: their memory
 * is two banks of one 4992-byte record per possible CPU, and a little
 * (with a key per CPU, it was CPUs x CPUs records).
 */
TEST_F(cpuhists, memory_is_linear_in_cpus)
{
	static char buf[PCORE_BUF];
	int ncpu = pcore_possible_cpus();
	unsigned long long mem;

	ASSERT_LT(0, ncpu);
	ASSERT_LT(0, pcore_read(DBG "/oncpu/stats", buf, sizeof(buf)));
	mem = pcore_key(buf, "memory");
	EXPECT_LE(2ULL * ncpu * 4992, mem);
	EXPECT_GT(2ULL * ncpu * 4992 + 16384, mem) TH_LOG("memory %llu", mem);
	EXPECT_EQ(-1ULL, pcore_key(buf, "keys"));
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
	ASSERT_EQ(0, strncmp(buf, PCORE_TIMERS_HEADER, strlen(PCORE_TIMERS_HEADER)))
		TH_LOG("%s", buf);
	fields = sscanf(buf + strlen(PCORE_TIMERS_HEADER),
			"%31s %15s %llu %llu %llu %llu", name, scope,
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
