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
 *
 * On PREEMPT_RT softirqs run in task context (the task that raised them,
 * ksoftirqd/<cpu>, or ktimers/<cpu> for the timer vectors), preemptible:
 * a task of higher priority woken from a softirq handler switches the
 * CPU to itself in the middle of the run.  The accounting test makes that
 * happen on purpose: a SCHED_FIFO task waiting for a timerfd, whose timer
 * expires in the HRTIMER softirq there.
 */
#include "pcore_lib.h"
#include "pcore_irq.h"
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sched.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include "kselftest_harness.h"

#define DIR		PCORE_DBG "/tsoftirq"
#define NVEC		10	/* NR_SOFTIRQS in 6.1 */
#define NDGRAMS		500
#define BUSY_MS		300
#define NTICKS		100		/* timerfd expirations waited for */
#define TICK_NS		2000000		/* 2 ms apart */

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
	size_t hl = strlen(PCORE_TIMERS_HEADER);
	char scope[16], *row = buf + hl;

	if (pcore_read(DIR "/timers", buf, PCORE_BUF) <= 0)
		return -1;
	/* the header line, then the one timer's line */
	if (strncmp(buf, PCORE_TIMERS_HEADER, hl) ||
	    sscanf(row, "run %15s %llu %llu %llu %llu\n", scope, &o->measured,
		   &o->discarded, &o->unmatched, &o->evicted) != 5 ||
	    strcmp(scope, "cpu") || strchr(row, '\n') != row + strlen(row) - 1)
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
static int busy_ms(int cpu, void *unused)
{
	double end = pcore_now() + BUSY_MS / 1000.0;

	while (pcore_now() < end)
		;
	return 0;
}

static int busy_and_sleep(int ncpu)
{
	int i;

	if (pcore_fork_pinned(ncpu, busy_ms, NULL, NULL, NULL))
		return -1;
	for (i = 0; i < BUSY_MS; i++) {
		int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);

		if (fd >= 0)
			close(fd);
		usleep(1000);
	}
	return pcore_wait_ok(ncpu);
}

/*
 * A SCHED_FIFO child pinned to CPU 0 waits NTICKS times for a periodic
 * timerfd; returns 0 when it did.  The timer is armed (and re-armed by each
 * read) on CPU 0, where the child runs.  Without PREEMPT_RT it expires in
 * the timer interrupt, which wakes the child: no softirq is involved.  On
 * PREEMPT_RT an hrtimer not marked "hard" (a timerfd's is not) expires in
 * the HRTIMER softirq, run by ktimers/0 (SCHED_FIFO priority 1): waking
 * the child (priority 10) from that run preempts ktimers/0 on the spot,
 * so the run sees a context switch before its softirq_exit.
 */
static int fifo_timer_waits(void)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		struct sched_param sp = { .sched_priority = 10 };
		struct itimerspec its = {
			.it_interval = { .tv_nsec = TICK_NS },
			.it_value = { .tv_nsec = TICK_NS },
		};
		uint64_t expired;
		int fd, i;

		if (pcore_pin(0) || sched_setscheduler(0, SCHED_FIFO, &sp))
			_exit(1);
		fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
		if (fd < 0 || timerfd_settime(fd, 0, &its, NULL))
			_exit(1);
		for (i = 0; i < NTICKS; i++)
			if (read(fd, &expired, sizeof(expired)) != sizeof(expired))
				_exit(1);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

/*
 * Does RCU run its callbacks from the RCU softirq?  1 yes, 0 no, -1 cannot
 * tell.  Yes unless booted with rcutree.use_softirq=0, which the parameter
 * file shows.  PREEMPT_RT kernels have no such parameter: there, RCU
 * callbacks always run in the rcuc/<cpu> kthreads and RCU_SOFTIRQ is never
 * raised.
 */
static int rcu_uses_softirq(void)
{
	char v[8];

	if (pcore_read("/sys/module/rcutree/parameters/use_softirq", v,
		       sizeof(v)) > 0)
		return v[0] == 'Y';
	return pcore_preempt_rt() ? 0 : -1;
}

FIXTURE(tsoftirq) {
	int ncpu;
};

FIXTURE_SETUP(tsoftirq)
{
	self->ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	PCORE_ASSERT_RELOADED("tsoftirq");
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
 * it, by us after it).  Unmatched runs would make ours smaller; the
 * accounting test shows there are none after the load.  Discarded runs
 * (a context switch within the run: PREEMPT_RT only, see the accounting
 * test) are counted by the kernel and not by us: the lower bound allows
 * for every run discarded while our two snapshots were taken.
 */
TEST_F_TIMEOUT(tsoftirq, counts_match_proc_softirqs, 300)
{
	unsigned long long p_out0[NVEC], p_in0[NVEC], p_in1[NVEC], p_out1[NVEC];
	struct vec k0[NVEC], k1[NVEC];
	unsigned long long ours, sum = 0, maxrun = 0, disc;
	struct outcomes o0, o1;
	double t0, t1;
	int i, n = self->ncpu, rcu = rcu_uses_softirq();

	ASSERT_LE(0, rcu) {
		TH_LOG("no rcutree.use_softirq and not PREEMPT_RT");
	}
	ASSERT_EQ(0, read_proc(p_out0));
	t0 = pcore_now();
	ASSERT_EQ(0, read_timer(&o0));
	ASSERT_LE(0, read_keys(k0));
	ASSERT_EQ(0, read_proc(p_in0));

	ASSERT_EQ(0, udp_loop());
	ASSERT_EQ(0, busy_and_sleep(n));

	ASSERT_EQ(0, read_proc(p_in1));
	ASSERT_LE(0, read_keys(k1));
	ASSERT_EQ(0, read_timer(&o1));
	t1 = pcore_now();
	ASSERT_EQ(0, read_proc(p_out1));
	disc = o1.discarded - o0.discarded;

	for (i = 0; i < NVEC; i++) {
		ours = k1[i].count - k0[i].count;
		TH_LOG("%-8s inner %llu ours %llu outer %llu, %llu ns", vec_names[i],
		       p_in1[i] - p_in0[i], ours, p_out1[i] - p_out0[i],
		       k1[i].sum - k0[i].sum);
		EXPECT_LE(p_in1[i] - p_in0[i], ours + n + disc);
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
	 * RCU callbacks, which the RCU softirq runs where RCU uses it: at
	 * least one of each over 300 ms at 250 Hz.  Where RCU does not use
	 * its softirq (PREEMPT_RT), the kernel and we count no RCU run at all.
	 */
	TH_LOG("discarded %llu, RCU softirq %s", disc, rcu ? "used" : "unused");
	EXPECT_LE(NDGRAMS / 2, k1[V_NET_RX].count - k0[V_NET_RX].count);
	EXPECT_LT(0, k1[V_TIMER].count - k0[V_TIMER].count);
	EXPECT_LT(0, k1[V_SCHED].count - k0[V_SCHED].count);
	if (rcu) {
		EXPECT_LT(0, k1[V_RCU].count - k0[V_RCU].count);
	} else {
		EXPECT_EQ(0, k1[V_RCU].count - k0[V_RCU].count);
		EXPECT_EQ(0, p_out1[V_RCU] - p_out0[V_RCU]);
	}
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
	struct outcomes w, o0, o1;
	struct pcore_probe_line entry, exit0, exit1;
	struct vec k[NVEC];
	unsigned long long keys = 0;
	int i, n = self->ncpu;
	bool rt = pcore_preempt_rt();

	ASSERT_EQ(0, read_timer(&w));
	ASSERT_EQ(0, udp_loop());
	ASSERT_EQ(0, busy_and_sleep(n));
	ASSERT_EQ(0, fifo_timer_waits());

	ASSERT_EQ(0, pcore_probe_line("tsoftirq/exit", &exit0));
	ASSERT_EQ(0, read_timer(&o0));
	ASSERT_LE(0, read_keys(k));
	ASSERT_EQ(0, read_timer(&o1));
	ASSERT_EQ(0, pcore_probe_line("tsoftirq/exit", &exit1));
	ASSERT_EQ(0, pcore_probe_line("tsoftirq/entry", &entry));

	TH_LOG("%s: discarded %llu, %llu during the workload",
	       rt ? "PREEMPT_RT" : "not PREEMPT_RT", o1.discarded,
	       o0.discarded - w.discarded);
	if (!rt) {
		/*
		 * A softirq handler cannot sleep or be preempted without
		 * PREEMPT_RT: no run sees a context switch, not even with a
		 * SCHED_FIFO task woken at every timer expiry.
		 */
		EXPECT_EQ(0, o1.discarded);
	} else {
		/*
		 * Each of the NTICKS expirations wakes the SCHED_FIFO task
		 * from an HRTIMER run, which is discarded.  Half is a floor
		 * for an emulated CPU that may fall a tick behind (then one
		 * read takes two expirations without waiting); other
		 * vectors' runs preempted meanwhile only add discards.
		 */
		EXPECT_LE(NTICKS / 2, o0.discarded - w.discarded);
	}
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

	PCORE_EXPECT_MOD_UNLOADS("tsoftirq", DIR "/time/keys", DIR);
	EXPECT_NE(0, pcore_probe_line("tsoftirq/entry", &l));
	EXPECT_NE(0, pcore_probe_line("tsoftirq/exit", &l));
}

TEST_HARNESS_MAIN
