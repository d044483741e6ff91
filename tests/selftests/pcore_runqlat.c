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
 * were: a sleeper of NSLEEPS sleeps has at most NSLEEPS + 1 voluntary
 * ones (its sleeps and pause()) and, on a quiet VM, rarely others: a
 * preemption (nonvoluntary), the pipe write that wakes its parent, which
 * may take its CPU.  At most: a sleep whose timer fires before the task
 * got to switch away (under emulation, on a busy host) is a wakeup of a
 * running task, no wait, and no switch (on cloud-6.12, 97 of 100 sleeps
 * of 200 us switched away; of 1 ms, all of them, so far).
 */
#include "pcore_ioctl.h"
#include "pcore_runqlat.h"
#include "kselftest_harness.h"

#define PCORE_CTL	"/pcore/bin/probectl"
#define OUT		"/tmp/pcore_runqlat.ctl"

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
	pid = rq_child(RQ_SLEEP, fds[1]);
	ASSERT_LT(0, pid);
	ASSERT_EQ(1, read(fds[0], &c, 1));
	ASSERT_EQ(0, rq_settled(pid, &nv, &niv));
	ASSERT_EQ(0, rq_key_line("runqlat:by=pid", pid, &n, &p50, &max, label));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	TH_LOG("sleeper: %llu waits, %llu voluntary switches (%d sleeps and pause), %llu nonvoluntary; p50 %llu ns, max %llu ns",
	       n, nv, NSLEEPS, niv, p50, max);
	EXPECT_EQ(nv + niv, n);
	EXPECT_LE(NSLEEPS / 2 + 1, nv);
	EXPECT_GE(NSLEEPS + 1, nv);
	/* its name at its first wait (its first run), before it renamed itself */
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
		pid[i] = rq_child(RQ_SPIN, fds[1]);
		ASSERT_LT(0, pid[i]);
	}
	for (i = 0; i < 2; i++)
		ASSERT_EQ(1, read(fds[0], &c, 1));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, rq_settled(pid[i], &nv[i], &niv[i]));
		ASSERT_EQ(0, rq_key_line("runqlat:by=pid", pid[i], &n[i],
					 &p50[i], &max[i], label));
		EXPECT_STREQ("pcore_runqlat", label);
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

/*
 * The "kind:" and "percentile_error:" lines of @name's stats are @kind
 * and @err: 0, or -1 (the stats into out[]).
 */
static int rq_kind(const char *name, const char *kind, const char *err)
{
	char path[256], want[64];

	snprintf(path, sizeof(path), PCORE_DBG "/%s/stats", name);
	if (pcore_read(path, out, sizeof(out)) < 0)
		return -1;
	snprintf(want, sizeof(want), "\nkind: %s\n", kind);
	if (!strstr(out, want))
		return -1;
	snprintf(want, sizeof(want), "\npercentile_error: %s\n", err);
	return strstr(out, want) ? 0 : -1;
}

/*
 * runqlat's histogram is log2 unless hist= says (waits span decades):
 * by the module parameter, by probectl, :by=pid too, under any name;
 * hist= and --hist give another kind (loglinear, P = 4: 3.1250 %;
 * linear:0,1000000,1000: 500 ns), and sched_switch beside it keeps the
 * default of timing, loglinear.  show and list --json say the same.
 */
TEST_F_TIMEOUT(rq, kinds, 300)
{
	ASSERT_EQ(0, pcore_load("tracepoints=runqlat,runqlat:by=pid,sched_switch"));
	EXPECT_EQ(0, rq_kind("runqlat", "log2", "50.0000%")) TH_LOG("%s", out);
	EXPECT_EQ(0, rq_kind("runqlat:by=pid", "log2", "50.0000%"))
		TH_LOG("%s", out);
	EXPECT_EQ(0, rq_kind("sched_switch", "loglinear", "3.1250%"))
		TH_LOG("%s", out);
	ASSERT_EQ(0, CTL("show", "runqlat")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\nkind: log2\n")) TH_LOG("%s", out);
	ASSERT_EQ(0, pcore_unload_wait());

	ASSERT_EQ(0, pcore_load("tracepoints=runqlat,runqlat:by=pid hist=loglinear"));
	EXPECT_EQ(0, rq_kind("runqlat", "loglinear", "3.1250%"))
		TH_LOG("%s", out);
	EXPECT_EQ(0, rq_kind("runqlat:by=pid", "loglinear", "3.1250%"))
		TH_LOG("%s", out);
	ASSERT_EQ(0, pcore_unload_wait());

	/* probectl: the default under another name, then --hist */
	ASSERT_EQ(0, pcore_load(NULL));
	ASSERT_EQ(0, CTL("attach", "--tracepoint", "runqlat", "--name", "rq"))
		TH_LOG("%s", out);
	EXPECT_EQ(0, rq_kind("rq", "log2", "50.0000%")) TH_LOG("%s", out);
	ASSERT_EQ(0, CTL("list", "--json")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "{\"name\":\"rq\","))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"hist_kind\":\"log2\""))
		TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "\"hist_kind\":\"loglinear\""))
		TH_LOG("%s", out);
	ASSERT_EQ(0, CTL("attach", "--tracepoint", "runqlat", "--name",
			 "rq_ll", "--hist", "loglinear")) TH_LOG("%s", out);
	EXPECT_EQ(0, rq_kind("rq_ll", "loglinear", "3.1250%"))
		TH_LOG("%s", out);
	ASSERT_EQ(0, CTL("attach", "--tracepoint", "runqlat", "--by-pid",
			 "--hist", "linear:0,1000000,1000")) TH_LOG("%s", out);
	EXPECT_EQ(0, rq_kind("runqlat:by=pid", "linear", "500ns"))
		TH_LOG("%s", out);
	EXPECT_EQ(0, rq_kind("rq", "log2", "50.0000%")) TH_LOG("%s", out);
}

/*
 * probectl attach --tracepoint runqlat --name: the histogram and its
 * wakeup probes take the name given ("rq_a:by=pid", "rq_a:by=pid.wakeup"
 * and ".wakeup_new"), and none is named runqlat; a second one under
 * another name counts beside it, each exactly the sleeper's waits, as in
 * sleeper_exact.  The name taken is refused; list names both; detach by
 * the name takes one away with its probes and leaves the other counting
 * (a second sleeper's waits, exactly).
 */
TEST_F_TIMEOUT(rq, names, 300)
{
	unsigned long long nv, niv, n[2], p50, max;
	static const char * const names[] = { "rq_a:by=pid", "rq_b:by=pid" };
	struct pcore_probe_line l;
	char label[64], c, probe[64];
	int fds[2], i;
	pid_t pid;

	ASSERT_EQ(0, pcore_load(NULL));
	ASSERT_EQ(0, CTL("attach", "--tracepoint", "runqlat", "--by-pid",
			 "--name", "rq_a")) TH_LOG("%s", out);
	ASSERT_EQ(0, CTL("attach", "--tracepoint", "runqlat", "--by-pid",
			 "--name", "rq_b")) TH_LOG("%s", out);
	EXPECT_EQ(1, CTL("attach", "--tracepoint", "runqlat", "--by-pid",
			 "--name", "rq_a")) TH_LOG("%s", out);
	EXPECT_EQ(2, pcore_hist_dirs());
	EXPECT_NE(0, access(PCORE_DBG "/runqlat:by=pid", F_OK));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pcore_probe_line(names[i], &l)) TH_LOG("%s", names[i]);
		EXPECT_STREQ("tracepoint", l.kind);
		EXPECT_STREQ("sched_switch", l.symbol);
		snprintf(probe, sizeof(probe), "%s.wakeup", names[i]);
		ASSERT_EQ(0, pcore_probe_line(probe, &l)) TH_LOG("%s", probe);
		EXPECT_STREQ("sched_wakeup", l.symbol);
		snprintf(probe, sizeof(probe), "%s.wakeup_new", names[i]);
		ASSERT_EQ(0, pcore_probe_line(probe, &l)) TH_LOG("%s", probe);
		EXPECT_STREQ("sched_wakeup_new", l.symbol);
	}
	ASSERT_EQ(0, CTL("list")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\nrq_a:by=pid ")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\nrq_b:by=pid ")) TH_LOG("%s", out);

	ASSERT_EQ(0, pipe(fds));
	pid = rq_child(RQ_SLEEP, fds[1]);
	ASSERT_LT(0, pid);
	ASSERT_EQ(1, read(fds[0], &c, 1));
	ASSERT_EQ(0, rq_settled(pid, &nv, &niv));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, rq_key_line(names[i], pid, &n[i], &p50, &max,
					 label)) TH_LOG("%s", names[i]);
		EXPECT_STREQ("pcore_runqlat", label);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	TH_LOG("sleeper: %llu and %llu waits, %llu + %llu switches",
	       n[0], n[1], nv, niv);
	EXPECT_EQ(nv + niv, n[0]);
	EXPECT_EQ(nv + niv, n[1]);

	/* detach by the name: rq_a goes with its probes, rq_b stays */
	EXPECT_EQ(1, CTL("detach", "rq_a")) TH_LOG("%s", out);
	ASSERT_EQ(0, CTL("detach", "rq_a:by=pid")) TH_LOG("%s", out);
	EXPECT_NE(0, access(PCORE_DBG "/rq_a:by=pid", F_OK));
	EXPECT_NE(0, pcore_probe_line("rq_a:by=pid", &l));
	EXPECT_NE(0, pcore_probe_line("rq_a:by=pid.wakeup", &l));
	EXPECT_NE(0, pcore_probe_line("rq_a:by=pid.wakeup_new", &l));
	EXPECT_EQ(0, pcore_probe_line("rq_b:by=pid.wakeup", &l));
	EXPECT_EQ(1, pcore_hist_dirs());
	pid = rq_child(RQ_SLEEP, fds[1]);
	ASSERT_LT(0, pid);
	ASSERT_EQ(1, read(fds[0], &c, 1));
	ASSERT_EQ(0, rq_settled(pid, &nv, &niv));
	ASSERT_EQ(0, rq_key_line("rq_b:by=pid", pid, &n[1], &p50, &max,
				 label));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	EXPECT_EQ(nv + niv, n[1]);
	ASSERT_EQ(0, CTL("detach", "rq_b:by=pid")) TH_LOG("%s", out);
	EXPECT_EQ(0, pcore_hist_dirs());
	ASSERT_EQ(0, pcore_read(PCORE_DBG "/probes", out, sizeof(out)) < 0);
	EXPECT_EQ(NULL, strstr(out, "rq_")) TH_LOG("%s", out);
	close(fds[0]);
	close(fds[1]);
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
	EXPECT_NE(NULL, strstr(out, "--by-pid is for function probes and runqlat, not --tracepoint")) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
