// SPDX-License-Identifier: GPL-2.0
/*
 * tracepoints=runqlat beside bpftrace's runqlat, in one boot, over one
 * window: Debian's runqlat.bt (/usr/sbin/runqlat.bt) with three changes,
 * so that both measure the same waits:
 *
 *   - prev is stamped when it stays runnable as BCC's runqlat and
 *     probe_core see it: preempted (the event's prev_state is
 *     TASK_REPORT_MAX, 0x100 in 6.1 and 6.12, "R+") or its state
 *     TASK_RUNNING (curtask, prev, read at the switch).  runqlat.bt tests
 *     args->prev_state == TASK_RUNNING, which a preempted task never has
 *     in the event (R+): it misses every preemption, the waits of CPU-bound
 *     tasks;
 *   - the idle task (pid 0) is never stamped nor timed, as in BCC's and
 *     probe_core's (runqlat.bt times the idle tasks' switches back);
 *   - the waits are counted per task (@n[tid]) and in all (@all), and only
 *     while the test says: its getppid() opens the window, its getsid()
 *     closes it, each in its own call (a kprobe on the system call: the
 *     BPF program runs before it returns; not the syscalls tracepoints,
 *     which the debug kernel has not), once bpftrace said that it
 *     attached (its getpgid() probe, the last, printed "ready").
 *
 * probe_core's runqlat is attached before and read around each edge:
 * pc_pre and pc_on its counts just before and after the getppid(), pc_b
 * and pc_c just before and after the getsid().  So:
 *
 *   - the workload's processes (a sleeper, two spinners on CPU 1), forked
 *     inside the window and asleep for good before it closes, have the
 *     same count in both, exactly (tolerance 0), which is the kernel's
 *     nvcsw + nivcsw of each;
 *   - in all, the window's edges are the tolerance, as probe_core counted
 *     them: pc_b - pc_on <= bt <= pc_c - pc_pre + unmatched, unmatched
 *     the switches back in the window that probe_core saw without a stamp
 *     (a stamp of before it attached, which bpftrace may have; 0 in
 *     practice: the window opens seconds after the attach).  A wait that
 *     ends between a read and the syscall next to it is in one tool's
 *     count and maybe not the other's; nothing else may differ.
 *
 * bpftrace's root: pcore_bpfroot.h.  Its start compiles the program with
 * LLVM (seconds under emulation, more under KASAN).
 */
#include "pcore_ioctl.h"
#include "pcore_bpfroot.h"
#include "pcore_runqlat.h"
#include "kselftest_harness.h"

/* not /tmp/pcore_runqlat_bpf.out: run_tests.sh's, this program's output */
#define OUT		"/tmp/runqlat.bt.out"
#define BT_WAIT		300	/* s: as pcore_bpftrace's */

#define SCRIPT								\
	"tracepoint:sched:sched_wakeup, tracepoint:sched:sched_wakeup_new\n" \
	"{ @qtime[args->pid] = nsecs; }\n"				\
	"tracepoint:sched:sched_switch {\n"				\
	"  if (args->prev_pid != 0 &&\n"				\
	"      (args->prev_state == 0x100 || curtask->__state == 0)) {\n" \
	"    @qtime[args->prev_pid] = nsecs;\n"				\
	"  }\n"								\
	"  $ns = @qtime[args->next_pid];\n"				\
	"  if ($ns && args->next_pid != 0 && @on) {\n"			\
	"    @n[args->next_pid] = count(); @all = count();\n"		\
	"  }\n"								\
	"  delete(@qtime[args->next_pid]);\n"				\
	"}\n"								\
	"kprobe:__x64_sys_getppid /pid == %d/ { @on = 1; }\n"		\
	"kprobe:__x64_sys_getsid /pid == %d/ { @on = 0; }\n"		\
	"kprobe:__x64_sys_getpgid /pid == %d/ { printf(\"ready\\n\"); }\n" \
	"END { clear(@qtime); }\n"

static char buf[PCORE_BUF], log_[16384];

FIXTURE(rqbt) {
	int kmsg;
	pid_t pid;	/* bpftrace's, or 0 */
	pid_t kids[3];
	bool mounted;
};

FIXTURE_SETUP(rqbt)
{
	static const char * const mods[] = { "probe_core" };
	char why[1400];

	self->pid = 0;
	memset(self->kids, 0, sizeof(self->kids));
	ASSERT_EQ(0, pcore_mods_unload(mods, 1));
	self->kmsg = kmsg_open();
	ASSERT_LE(0, self->kmsg);
	ASSERT_EQ(0, bpfroot_mount(why, sizeof(why))) TH_LOG("%s", why);
	self->mounted = true;
}

FIXTURE_TEARDOWN(rqbt)
{
	static const char * const mods[] = { "probe_core" };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(self->kids); i++)
		if (self->kids[i] > 0) {
			kill(self->kids[i], SIGKILL);
			waitpid(self->kids[i], NULL, 0);
		}
	if (self->pid > 0)
		bpfroot_bpftrace_stop(self->pid);
	EXPECT_EQ(0, pcore_mods_unload(mods, 1));
	if (self->mounted)
		bpfroot_umount();
	EXPECT_EQ(0, pcore_kmsg_bad(self->kmsg, log_, sizeof(log_))) {
		TH_LOG("kernel log:\n%s", log_);
	}
	close(self->kmsg);
}

/*
 * Waits until bpftrace printed "ready" (0), exited (1, its wait status
 * in *@st) or BT_WAIT s went by (-1), calling getpgid() every 100 ms.
 */
static int bt_ready(pid_t pid, int *st, double *secs)
{
	double t0 = pcore_now();

	*secs = 0;
	while (pcore_now() - t0 < BT_WAIT) {
		syscall(SYS_getpgid, 0);
		usleep(100000);
		*secs = pcore_now() - t0;
		if (pcore_read(OUT, buf, PCORE_BUF) >= 0 &&
		    strstr(buf, "ready\n"))
			return 0;
		if (waitpid(pid, st, WNOHANG) == pid)
			return 1;
	}
	return -1;
}

/* "@NAME: N" of bpftrace's output in buf, or -1ULL. */
static unsigned long long bt_value(const char *name)
{
	const char *p = strstr(buf, name);

	return p ? strtoull(p + strlen(name), NULL, 10) : -1ULL;
}

/* The unmatched stops of the timer @name (probe_core's timers file). */
static unsigned long long unmatched(const char *name)
{
	static char text[4096];
	unsigned long long m, d, u;
	char row[160];
	const char *p;

	snprintf(row, sizeof(row), "\n%s task ", name);
	if (pcore_read(PCORE_DBG "/timers", text, sizeof(text)) < 0)
		return -1ULL;
	p = strstr(text, row);
	if (!p || sscanf(p + strlen(row), "%llu %llu %llu", &m, &d, &u) != 3)
		return -1ULL;
	return u;
}

TEST_F_TIMEOUT(rqbt, same_window, 3 * BT_WAIT)
{
	unsigned long long nv[3], niv[3], n[3], p50, max;
	unsigned long long pc_pre, pc_on, pc_b, pc_c, um, bt, btn;
	char script[2048], label[64], name[32], c;
	int fds[2], i, fd, st;
	double secs;

	PCORE_LOAD_OPEN(NULL, fd);
	ASSERT_EQ(0, pcore_attach(fd, "runqlat", PCORE_ATTACH_TRACEPOINT));
	ASSERT_EQ(0, pcore_attach(fd, "runqlat:by=pid",
				  PCORE_ATTACH_TRACEPOINT));
	close(fd);
	snprintf(script, sizeof(script), SCRIPT, getpid(), getpid(), getpid());
	self->pid = bpfroot_bpftrace(script, OUT);
	ASSERT_LT(0, self->pid);
	st = -1;
	ASSERT_EQ(0, bt_ready(self->pid, &st, &secs)) {
		ssize_t r = pcore_read(OUT, buf, PCORE_BUF);

		if (r < 0)
			snprintf(buf, PCORE_BUF, "(no %s: %s)", OUT,
				 strerror(-r));
		TH_LOG("bpftrace did not attach (%.0f s, wait status %#x):\n%s",
		       secs, st, buf);
		self->pid = 0;
	}
	TH_LOG("bpftrace attached after %.1f s", secs);
	um = unmatched("runqlat");
	ASSERT_NE(-1ULL, um);
	pc_pre = pcore_stat("runqlat", "count");
	syscall(SYS_getppid);
	pc_on = pcore_stat("runqlat", "count");

	ASSERT_EQ(0, pipe(fds));
	self->kids[0] = rq_child(RQ_SLEEP, fds[1]);
	self->kids[1] = rq_child(RQ_SPIN, fds[1]);
	self->kids[2] = rq_child(RQ_SPIN, fds[1]);
	for (i = 0; i < 3; i++) {
		ASSERT_LT(0, self->kids[i]);
		ASSERT_EQ(1, read(fds[0], &c, 1));
	}
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, rq_settled(self->kids[i], &nv[i], &niv[i]));
		ASSERT_EQ(0, rq_key_line("runqlat:by=pid", self->kids[i],
					 &n[i], &p50, &max, label));
	}
	pc_b = pcore_stat("runqlat", "count");
	syscall(SYS_getsid, 0);
	pc_c = pcore_stat("runqlat", "count");
	btn = unmatched("runqlat");
	ASSERT_NE(-1ULL, btn);
	um = btn - um;

	i = bpfroot_bpftrace_stop(self->pid);
	self->pid = 0;
	pcore_read(OUT, buf, PCORE_BUF);
	EXPECT_TRUE(i != -1 && WIFEXITED(i) && WEXITSTATUS(i) == 0)
		TH_LOG("wait status %#x:\n%s", i, buf);
	bt = bt_value("\n@all: ");
	TH_LOG("in all: bpftrace %llu; probe_core %llu to %llu (%llu to %llu with the edges), %llu unmatched",
	       bt, pc_b - pc_on, pc_c - pc_pre, pc_on - pc_pre, pc_c - pc_b,
	       um);
	ASSERT_NE(-1ULL, bt) TH_LOG("%s", buf);
	EXPECT_LE(pc_b - pc_on, bt);
	EXPECT_GE(pc_c - pc_pre + um, bt);
	for (i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "\n@n[%d]: ", self->kids[i]);
		btn = bt_value(name);
		TH_LOG("%s %d: probe_core %llu, bpftrace %llu, nvcsw + nivcsw %llu + %llu",
		       i ? "spinner" : "sleeper", self->kids[i], n[i], btn,
		       nv[i], niv[i]);
		EXPECT_EQ(n[i], btn);
		EXPECT_EQ(nv[i] + niv[i], n[i]);
	}
}

TEST_HARNESS_MAIN
