// SPDX-License-Identifier: GPL-2.0
/*
 * tracepoints=runqlat: run-queue latency, the time from a task's wakeup
 * (or its preemption) to the switch that puts it on a CPU, as BCC's
 * runqlat; ":by=pid" by process, per CPU in the percpu view.
 *
 * The count is exact: every switch that puts a task on a CPU follows a
 * wakeup (after a sleep) or a switch that left it runnable (a
 * preemption), and the task's first run follows its wakeup_new.  So a
 * process forked under the probe, once it sleeps for good (pause()), has
 * exactly 1 + (nvcsw - 1) + nivcsw = nvcsw + nivcsw waits counted: its
 * first run, one per switch away and back (voluntary or not), less the
 * last switch away, into pause(), which has no switch back yet.  The
 * kernel's own counters (/proc/PID/status) say how many switches there
 * were: a sleeper of NSLEEPS sleeps has NSLEEPS + 1 voluntary ones (its
 * sleeps and pause()) and, on a quiet VM, a few others: a preemption
 * (nonvoluntary), the sched_setaffinity() that moves it, the pipe write
 * that wakes its parent.
 */
#include "pcore_ioctl.h"
#include <sched.h>
#include <signal.h>
#include "kselftest_harness.h"

#define PCORE_CTL	"/pcore/bin/probectl"
#define OUT		"/tmp/pcore_runqlat.ctl"
#define NSLEEPS		100
#define SPIN_MS		600

static char out[PCORE_BUF];
static char log_[65536];

static int ctl(const char * const *argv)
{
	return pcore_run(argv, NULL, OUT, out, sizeof(out));
}

#define CTL(...)	ctl((const char * const []){ PCORE_CTL, __VA_ARGS__, NULL })

static const char * const mods[] = { "probe_core" };

FIXTURE(rq) {
	int kmsg;
};

FIXTURE_SETUP(rq)
{
	PCORE_KMSG_SETUP(mods, 1);
}

FIXTURE_TEARDOWN(rq)
{
	PCORE_KMSG_TEARDOWN(mods, 1, log_);
}

/* A child's work: sleep NSLEEPS times, or spin SPIN_MS on CPU 1. */
enum work { SLEEP, SPIN };

/*
 * A child doing @w, then writing a byte to @wfd and sleeping in pause()
 * until killed: its pid, or -1.
 */
static pid_t child(enum work w, int wfd)
{
	pid_t pid = fork();
	double t0;
	int i;

	if (pid)
		return pid;
	if (w == SPIN) {
		if (pcore_pin(1))
			_exit(1);
		t0 = pcore_now();
		while (pcore_now() - t0 < SPIN_MS / 1000.0)
			;
	} else {
		for (i = 0; i < NSLEEPS; i++)
			usleep(200);
	}
	if (write(wfd, "x", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

/* Switches of @pid so far: voluntary and not (/proc/PID/status). */
static int switches(pid_t pid, unsigned long long *nv, unsigned long long *niv)
{
	static char text[8192];
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (pcore_read(path, text, sizeof(text)) < 0)
		return -1;
	*nv = pcore_key(text, "voluntary_ctxt_switches");
	*niv = pcore_key(text, "nonvoluntary_ctxt_switches");
	return *nv == -1ULL || *niv == -1ULL ? -1 : 0;
}

/* @pid's state letter (/proc/PID/stat), or '?'. */
static char state(pid_t pid)
{
	char text[512], path[64], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (pcore_read(path, text, sizeof(text)) < 0)
		return '?';
	p = strrchr(text, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/*
 * Waits until @pid sleeps for good (pause()): its state S and its
 * switch counts the same over 100 ms.  0, or -1 after 10 s.
 */
static int settled(pid_t pid, unsigned long long *nv, unsigned long long *niv)
{
	unsigned long long a, b;
	int i;

	for (i = 0; i < 100; i++) {
		if (state(pid) == 'S' && !switches(pid, nv, niv)) {
			usleep(100000);
			if (state(pid) == 'S' && !switches(pid, &a, &b) &&
			    a == *nv && b == *niv)
				return 0;
		} else {
			usleep(100000);
		}
	}
	return -1;
}

/*
 * @pid's line in the keys file of @name: its count, p50 and max, and the
 * label; -1 when it has none.
 */
static int key_line(const char *name, pid_t pid, unsigned long long *count,
		    unsigned long long *p50, unsigned long long *max,
		    char *label)
{
	unsigned long long k, sum, min, mean;
	char path[256], want[32], *p;

	snprintf(path, sizeof(path), PCORE_DBG "/%s/keys", name);
	if (pcore_read(path, out, sizeof(out)) < 0)
		return -1;
	snprintf(want, sizeof(want), "\n%d ", pid);
	p = strstr(out, want);
	if (!p || sscanf(p + 1, "%llu %63s %llu %llu %llu %llu %llu %llu", &k,
			 label, count, &sum, &min, max, &mean, p50) != 8)
		return -1;
	return 0;
}

/*
 * A sleeper under runqlat:by=pid: exactly one wait per switch back, as
 * its own counters say, with its name; runqlat counts them too, and its
 * CPUs' lines add up to its total.
 */
TEST_F_TIMEOUT(rq, sleeper_exact, 300)
{
	unsigned long long nv, niv, n, p50, max;
	struct pcore_probe_line l;
	struct pcore_percpu pc;
	char label[64], c;
	int fds[2];
	pid_t pid;

	ASSERT_EQ(0, pcore_load("tracepoints=runqlat,runqlat:by=pid"));
	ASSERT_EQ(0, pipe(fds));
	pid = child(SLEEP, fds[1]);
	ASSERT_LT(0, pid);
	ASSERT_EQ(1, read(fds[0], &c, 1));
	ASSERT_EQ(0, settled(pid, &nv, &niv));
	ASSERT_EQ(0, key_line("runqlat:by=pid", pid, &n, &p50, &max, label))
		TH_LOG("%s", out);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	TH_LOG("sleeper: %llu waits, %llu voluntary switches (%d sleeps, pause, %llu others), %llu nonvoluntary; p50 %llu ns, max %llu ns",
	       n, nv, NSLEEPS, nv - NSLEEPS - 1, niv, p50, max);
	EXPECT_EQ(nv + niv, n);
	EXPECT_LE(NSLEEPS + 1, nv);
	EXPECT_STREQ("pcore_runqlat", label);
	EXPECT_LT(0, p50);
	EXPECT_LE(p50, max);

	/* the merged view: every process's waits, ours among them */
	EXPECT_LE(n, pcore_stat("runqlat", "count"));
	ASSERT_EQ(0, pcore_percpu_parse(PCORE_DBG "/runqlat/percpu", &pc));
	EXPECT_EQ(pc.c, pc.tc);
	EXPECT_EQ(pc.s, pc.ts);
	EXPECT_LE(n, pc.tc);
	ASSERT_EQ(0, pcore_probe_line("runqlat", &l));
	EXPECT_STREQ("tracepoint", l.kind);
	EXPECT_STREQ("sched_switch", l.symbol);
	ASSERT_EQ(0, pcore_probe_line("runqlat.wakeup", &l));
	EXPECT_STREQ("sched_wakeup", l.symbol);
	EXPECT_LE(NSLEEPS, l.hits);
	ASSERT_EQ(0, pcore_probe_line("runqlat.wakeup_new", &l));
	EXPECT_STREQ("sched_wakeup_new", l.symbol);
	EXPECT_LE(1, l.hits);
}

/*
 * Two CPU-bound processes share CPU 1: each waits while the other runs,
 * a time slice or so (a tick at least: 1 to 100 ms), counted exactly and
 * all on CPU 1.  Attached with probectl, --by-pid beside the plain one.
 */
TEST_F_TIMEOUT(rq, two_share_a_cpu, 300)
{
	unsigned long long nv[2], niv[2], n[2], p50[2], max[2], cpu1;
	struct pcore_percpu pc;
	char label[64], c;
	int fds[2], i;
	pid_t pid[2];

	ASSERT_LE(2, sysconf(_SC_NPROCESSORS_ONLN));
	ASSERT_EQ(0, pcore_load(NULL));
	ASSERT_EQ(0, CTL("attach", "--tracepoint", "runqlat")) TH_LOG("%s", out);
	ASSERT_EQ(0, CTL("attach", "--tracepoint", "runqlat", "--by-pid"))
		TH_LOG("%s", out);
	ASSERT_EQ(0, pcore_percpu_parse(PCORE_DBG "/runqlat/percpu", &pc));
	cpu1 = pc.count[1];
	ASSERT_EQ(0, pipe(fds));
	for (i = 0; i < 2; i++) {
		pid[i] = child(SPIN, fds[1]);
		ASSERT_LT(0, pid[i]);
	}
	for (i = 0; i < 2; i++)
		ASSERT_EQ(1, read(fds[0], &c, 1));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, settled(pid[i], &nv[i], &niv[i]));
		ASSERT_EQ(0, key_line("runqlat:by=pid", pid[i], &n[i], &p50[i],
				      &max[i], label)) TH_LOG("%s", out);
	}
	ASSERT_EQ(0, pcore_percpu_parse(PCORE_DBG "/runqlat/percpu", &pc));
	for (i = 0; i < 2; i++) {
		kill(pid[i], SIGKILL);
		waitpid(pid[i], NULL, 0);
	}
	for (i = 0; i < 2; i++) {
		TH_LOG("spinner %d: %llu waits, %llu voluntary and %llu nonvoluntary switches; p50 %llu ns, max %llu ns",
		       i, n[i], nv[i], niv[i], p50[i], max[i]);
		EXPECT_EQ(nv[i] + niv[i], n[i]);
		/* preempted in turn: a slice of 600 ms is 100 ms at most */
		EXPECT_LE(6, niv[i]);
		EXPECT_LE(1000000, p50[i]);
		EXPECT_GE(100000000, p50[i]);
	}
	/* CPU 1's line: their waits (but the first, before the move) */
	EXPECT_LE(cpu1 + n[0] + n[1] - 2, pc.count[1]);
	EXPECT_EQ(pc.c, pc.tc);
}

/* Bad input: refused with one line naming it, nothing left behind. */
TEST_F_TIMEOUT(rq, bad, 300)
{
	static const struct pcore_bad_load bad[] = {
		{ "tracepoints=sched_switch:by=pid", EINVAL,
		  "tracepoints=sched_switch:by=pid: ':by=pid' is for runqlat only" },
		{ "tracepoints=offcpu:by=pid", EINVAL,
		  "tracepoints=offcpu:by=pid: ':by=pid' is for runqlat only" },
		{ "tracepoints=runqlat:count", ENOENT,
		  "tracepoints=runqlat:count: no such tracepoint" },
		{ "tracepoints=runqlat:by=pid:by=pid", ENOENT,
		  "tracepoints=runqlat:by=pid: no such tracepoint" },
		{ "tracepoints=runqlat,runqlat", EINVAL,
		  "tracepoints=runqlat: given twice" },
		{ "tracepoints=sched_wakeup", EINVAL,
		  "tracepoints=sched_wakeup: no built-in handler for this tracepoint (built-in: sched_switch, offcpu, runqlat)" },
	};
	struct pcore_ioc_attach a;
	struct pcore_probe_line l;
	int fd;

	PCORE_EXPECT_BAD_LOADS(bad, log_);

	PCORE_LOAD_OPEN(NULL, fd);
	/* the ioctl's fields: :by=pid alone, and for runqlat only */
	pcore_att_init(&a, "", PCORE_ATTACH_TRACEPOINT, 0);
	strcpy(a.target, "sched_switch");
	a.flags = PCORE_ATTACH_BY_PID;
	EXPECT_EQ(EINVAL, pcore_ioc(fd, PCORE_IOC_ATTACH, &a));
	strcpy(a.target, "runqlat");
	a.what = PCORE_WHAT_COUNT;
	EXPECT_EQ(EINVAL, pcore_ioc(fd, PCORE_IOC_ATTACH, &a));
	a.what = 0;
	a.flags |= 0x100;
	EXPECT_EQ(EINVAL, pcore_ioc(fd, PCORE_IOC_ATTACH, &a));
	EXPECT_EQ(0, pcore_hist_dirs());
	/* the good one, then detached with its three probes */
	a.flags = PCORE_ATTACH_BY_PID;
	ASSERT_EQ(0, pcore_ioc(fd, PCORE_IOC_ATTACH, &a));
	EXPECT_EQ(0, access(PCORE_DBG "/runqlat:by=pid/keys", F_OK));
	EXPECT_EQ(0, pcore_probe_line("runqlat:by=pid.wakeup_new", &l));
	EXPECT_EQ(EINVAL, pcore_ioc(fd, PCORE_IOC_ATTACH, &a));
	EXPECT_EQ(0, pcore_name_ioc(fd, PCORE_IOC_DETACH, "runqlat:by=pid"));
	EXPECT_EQ(0, pcore_hist_dirs());
	ASSERT_EQ(0, pcore_read(PCORE_DBG "/probes", out, sizeof(out)) < 0);
	EXPECT_EQ(NULL, strstr(out, "runqlat")) TH_LOG("%s", out);
	close(fd);
	EXPECT_EQ(2, CTL("attach", "--tracepoint", "sched_switch", "--by-pid"));
	EXPECT_NE(NULL, strstr(out, "are for function probes")) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
