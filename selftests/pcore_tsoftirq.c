// SPDX-License-Identifier: GPL-2.0
/*
 * tsoftirq.ko: softirq runs per vector against /proc/softirqs, the timer's
 * accounting, plausible times, a clean unload.
 *
 * The workload raises softirqs it knows of: UDP over loopback (NET_RX for
 * every datagram received), a busy task on each CPU (SCHED: load balancing
 * runs from the tick while a CPU is busy), sleeps (the tick's TIMER
 * softirq and the timer wheel) and opened-and-closed files (RCU callbacks
 * freeing them).  The kernel counts a softirq run in /proc/softirqs just
 * before softirq_entry; tsoftirq counts it at softirq_exit.
 */
#include "pcore_lib.h"
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include "kselftest_harness.h"

#define DIR		PCORE_DBG "/tsoftirq"
#define NVEC		10	/* NR_SOFTIRQS in 6.1 */
#define NDGRAMS		500
#define BUSY_MS		300

static const char * const vec_names[NVEC] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU",
};

enum { V_TIMER = 1, V_NET_RX = 3, V_SCHED = 7, V_RCU = 9 };

static char buf[PCORE_BUF];

/* One line of the keys file. */
struct vec {
	char label[32];
	unsigned long long count, sum, min, max, mean, p50, p90, p99, p999;
};

/* Parses the keys file into v[] (zeroed first); returns lines or -1. */
static int read_keys(struct vec *v)
{
	char *line, *save = NULL;
	unsigned int key;
	int n = 0;

	memset(v, 0, NVEC * sizeof(*v));
	if (pcore_read(DIR "/time/keys", buf, PCORE_BUF) <= 0)
		return -1;
	line = strtok_r(buf, "\n", &save);
	if (!line ||
	    strcmp(line, "# vec label count sum min max mean p50 p90 p99 p999"))
		return -1;
	while ((line = strtok_r(NULL, "\n", &save))) {
		struct vec x;

		if (sscanf(line, "%u %31s %llu %llu %llu %llu %llu %llu %llu %llu %llu",
			   &key, x.label, &x.count, &x.sum, &x.min, &x.max,
			   &x.mean, &x.p50, &x.p90, &x.p99, &x.p999) != 11 ||
		    key >= NVEC)
			return -1;
		v[key] = x;
		n++;
	}
	return n;
}

/* /proc/softirqs: each vector's runs summed over CPUs; 0 or -1. */
static int read_proc(unsigned long long *cnt)
{
	char *line, *save = NULL, *p, *end;
	char name[32];
	int i, n = 0;

	memset(cnt, 0, NVEC * sizeof(*cnt));
	if (pcore_read("/proc/softirqs", buf, PCORE_BUF) <= 0)
		return -1;
	line = strtok_r(buf, "\n", &save);	/* CPU0 CPU1 ... */
	while ((line = strtok_r(NULL, "\n", &save))) {
		if (sscanf(line, " %31[^:]:", name) != 1)
			return -1;
		for (i = 0; i < NVEC && strcmp(name, vec_names[i]); i++)
			;
		if (i == NVEC)
			return -1;
		p = strchr(line, ':') + 1;
		for (;;) {
			unsigned long long c = strtoull(p, &end, 10);

			if (end == p)
				break;
			cnt[i] += c;
			p = end;
		}
		n++;
	}
	return n == NVEC ? 0 : -1;
}

/* "run cpu <measured> <discarded> <unmatched> <evicted>" */
struct outcomes {
	unsigned long long measured, discarded, unmatched, evicted;
};

static int read_timer(struct outcomes *o)
{
	char scope[16];

	if (pcore_read(DIR "/timers", buf, PCORE_BUF) <= 0)
		return -1;
	if (sscanf(buf, "run %15s %llu %llu %llu %llu\n", scope, &o->measured,
		   &o->discarded, &o->unmatched, &o->evicted) != 5 ||
	    strcmp(scope, "cpu") || strchr(buf, '\n') != buf + strlen(buf) - 1)
		return -1;
	return 0;
}

/* NDGRAMS datagrams to ourselves over loopback, each received. */
static int udp_loop(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int rx, tx, i, ok = 0;
	char msg[64] = "softirq";

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	tx = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (rx < 0 || tx < 0 || bind(rx, (void *)&a, sizeof(a)) ||
	    getsockname(rx, (void *)&a, &alen))
		goto out;
	for (i = 0; i < NDGRAMS; i++) {
		if (sendto(tx, msg, sizeof(msg), 0, (void *)&a, sizeof(a)) !=
		    sizeof(msg) ||
		    recv(rx, msg, sizeof(msg), 0) != sizeof(msg))
			goto out;
	}
	ok = 1;
out:
	if (rx >= 0)
		close(rx);
	if (tx >= 0)
		close(tx);
	return ok ? 0 : -1;
}

/* A busy child on each CPU for BUSY_MS, while this task sleeps 1 ms at a time. */
static int busy_and_sleep(int ncpu)
{
	int cpu, st, ok = 0, i;
	pid_t pid;

	for (cpu = 0; cpu < ncpu; cpu++) {
		pid = fork();
		if (pid < 0)
			return -1;
		if (!pid) {
			double end = pcore_now() + BUSY_MS / 1000.0;

			if (pcore_pin(cpu))
				_exit(1);
			while (pcore_now() < end)
				;
			_exit(0);
		}
	}
	for (i = 0; i < BUSY_MS; i++) {
		int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);

		if (fd >= 0)
			close(fd);
		usleep(1000);
	}
	while (wait(&st) > 0)
		ok += WIFEXITED(st) && !WEXITSTATUS(st);
	return ok == ncpu ? 0 : -1;
}

FIXTURE(tsoftirq) {
	int ncpu;
};

FIXTURE_SETUP(tsoftirq)
{
	self->ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (pcore_mod_loaded("tsoftirq"))
		ASSERT_EQ(0, pcore_mod_unload_wait("tsoftirq"));
	if (pcore_loaded())
		ASSERT_EQ(0, pcore_unload_wait());
	ASSERT_EQ(0, pcore_load(NULL));
	ASSERT_EQ(0, pcore_mod_load("tsoftirq", NULL));
	ASSERT_EQ(0, pcore_lo_up());
}

FIXTURE_TEARDOWN(tsoftirq)
{
	pcore_lo_restore();
	if (pcore_mod_loaded("tsoftirq"))
		EXPECT_EQ(0, pcore_mod_unload_wait("tsoftirq"));
	EXPECT_EQ(0, pcore_unload_wait());
}

/*
 * Per vector, our count over the workload against /proc/softirqs read
 * around it: outer = read before our first and after our last snapshot,
 * inner = read after our first and before our last.  A run is in
 * /proc/softirqs from just before its entry, in ours from its exit, so
 *
 *   inner - ncpu <= ours <= outer + ncpu
 *
 * The ncpu slack: on each CPU softirq runs never overlap, so at most one
 * run per CPU can straddle a snapshot pair (counted by the kernel before
 * it, by us after it).  Discarded and unmatched runs would make ours
 * smaller; the accounting test shows there are none after the load.
 */
TEST_F_TIMEOUT(tsoftirq, counts_match_proc_softirqs, 300)
{
	unsigned long long p_out0[NVEC], p_in0[NVEC], p_in1[NVEC], p_out1[NVEC];
	struct vec k0[NVEC], k1[NVEC];
	unsigned long long ours, sum = 0, maxrun = 0;
	double t0, t1;
	int i, n = self->ncpu;

	ASSERT_EQ(0, read_proc(p_out0));
	t0 = pcore_now();
	ASSERT_LE(0, read_keys(k0));
	ASSERT_EQ(0, read_proc(p_in0));

	ASSERT_EQ(0, udp_loop());
	ASSERT_EQ(0, busy_and_sleep(n));

	ASSERT_EQ(0, read_proc(p_in1));
	ASSERT_LE(0, read_keys(k1));
	t1 = pcore_now();
	ASSERT_EQ(0, read_proc(p_out1));

	for (i = 0; i < NVEC; i++) {
		ours = k1[i].count - k0[i].count;
		TH_LOG("%-8s inner %llu ours %llu outer %llu, %llu ns", vec_names[i],
		       p_in1[i] - p_in0[i], ours, p_out1[i] - p_out0[i],
		       k1[i].sum - k0[i].sum);
		EXPECT_LE(p_in1[i] - p_in0[i], ours + n);
		EXPECT_LE(ours, p_out1[i] - p_out0[i] + n);
		/* A vector that ran is labelled as /proc/softirqs names it. */
		if (k1[i].count)
			EXPECT_STREQ(vec_names[i], k1[i].label);
		sum += k1[i].sum - k0[i].sum;
		if (k1[i].max > maxrun)
			maxrun = k1[i].max;
	}
	/*
	 * What the workload raises for sure.  Loopback hands each datagram to
	 * NET_RX, which runs when the sender re-enables BH, before sendto()
	 * returns: one run per datagram, unless ksoftirqd took over and one
	 * run handled several (half is a loose floor).  The tick runs TIMER
	 * and, on a busy CPU, SCHED load balancing; closed files are freed by
	 * RCU callbacks, which the RCU softirq runs: at least one of each
	 * over 300 ms at 250 Hz.
	 */
	EXPECT_LE(NDGRAMS / 2, k1[V_NET_RX].count - k0[V_NET_RX].count);
	EXPECT_LT(0, k1[V_TIMER].count - k0[V_TIMER].count);
	EXPECT_LT(0, k1[V_SCHED].count - k0[V_SCHED].count);
	EXPECT_LT(0, k1[V_RCU].count - k0[V_RCU].count);
	/*
	 * Time in softirqs fits in the wall time on every CPU, plus the runs
	 * that began before the window: at most one per CPU, each at most
	 * the longest run seen.
	 */
	EXPECT_LT(0, sum);
	EXPECT_LE(sum, (unsigned long long)((t1 - t0) * 1e9) * n + n * maxrun);
}

/*
 * Every exit is one outcome of the timer: measured (into the histogram),
 * discarded, unmatched.  Files are read one after the other, so each
 * comparison is bracketed by two reads of the other side.
 */
TEST_F_TIMEOUT(tsoftirq, accounting, 300)
{
	struct outcomes o0, o1;
	struct pcore_probe_line entry, exit0, exit1;
	struct vec k[NVEC];
	unsigned long long keys = 0;
	int i, n = self->ncpu;

	ASSERT_EQ(0, udp_loop());
	ASSERT_EQ(0, busy_and_sleep(n));

	ASSERT_EQ(0, pcore_probe_line("tsoftirq/exit", &exit0));
	ASSERT_EQ(0, read_timer(&o0));
	ASSERT_LE(0, read_keys(k));
	ASSERT_EQ(0, read_timer(&o1));
	ASSERT_EQ(0, pcore_probe_line("tsoftirq/exit", &exit1));
	ASSERT_EQ(0, pcore_probe_line("tsoftirq/entry", &entry));

	/*
	 * A softirq handler cannot sleep or be preempted on this
	 * (!PREEMPT_RT) kernel: no run sees a context switch.
	 */
	EXPECT_EQ(0, o1.discarded);
	/* Only a run in progress at load ends without a start: one per CPU. */
	EXPECT_GE(n, o1.unmatched);
	EXPECT_EQ(0, o1.evicted);	/* CPU timers never evict */
	EXPECT_LT(0, o1.measured);

	/* An outcome follows its hit; a hit precedes its outcome by at most one run per CPU. */
	EXPECT_LE(o0.measured + o0.discarded + o0.unmatched, exit1.hits);
	EXPECT_LE(exit0.hits, o1.measured + o1.discarded + o1.unmatched + n);
	/* Entries and exits pair up, but for one run per CPU at each end. */
	EXPECT_LE(exit1.hits, entry.hits + 2 * n);
	EXPECT_EQ(0, entry.missed);
	EXPECT_EQ(0, exit1.missed);
	EXPECT_STREQ("tracepoint", entry.kind);
	EXPECT_STREQ("softirq_entry", entry.symbol);
	EXPECT_STREQ("softirq_exit", exit1.symbol);

	/* Measured runs are in the histogram: added right after the count. */
	for (i = 0; i < NVEC; i++) {
		keys += k[i].count;
		if (!k[i].count)
			continue;
		/*
		 * Runs take time, but one run may read 0 ns: local_clock()
		 * is sched_clock_cpu(), which clamps to stay monotonic per
		 * CPU, and the TCG guest's TSC is coarse.  So the longest run
		 * is above 0, and none takes a second (a soft lockup).
		 */
		EXPECT_LT(0, k[i].max);
		EXPECT_LE(k[i].min, k[i].mean);
		EXPECT_LE(k[i].mean, k[i].max);
		EXPECT_LE(k[i].p50, k[i].max);
		EXPECT_GT(1000000000ULL, k[i].max);
	}
	EXPECT_LE(keys, o1.measured);
	EXPECT_LE(o0.measured, keys + n);

	ASSERT_LT(0, pcore_read(DIR "/time/stats", buf, PCORE_BUF));
	EXPECT_EQ(0, pcore_key(buf, "dropped"));
	EXPECT_NE(NULL, strstr(buf, "\nsymbol: softirq_exit\n"));
}

TEST_F_TIMEOUT(tsoftirq, unloads_cleanly, 120)
{
	struct pcore_probe_line l;

	ASSERT_EQ(0, access(DIR "/time/keys", R_OK));
	ASSERT_EQ(0, pcore_mod_unload_wait("tsoftirq"));
	EXPECT_FALSE(pcore_mod_loaded("tsoftirq"));
	EXPECT_NE(0, access(DIR, F_OK));
	EXPECT_NE(0, pcore_probe_line("tsoftirq/entry", &l));
	EXPECT_NE(0, pcore_probe_line("tsoftirq/exit", &l));
}

TEST_HARNESS_MAIN
