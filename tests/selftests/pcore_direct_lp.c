// SPDX-License-Identifier: GPL-2.0
/*
 * mechanism=direct beside a livepatch of the same function: the test
 * livepatch pcore_lp (tests/kmods/pcore_lp) replaces version_proc_show(),
 * which each read of /proc/version calls once, and the replacement says
 * so in what the read returns.  probe_core's direct-call trampolines
 * share the function with it in either order (ftrace asks their ops'
 * ops_func): the livepatch loads and enables beside a direct probe, a
 * direct probe attaches beside the livepatch, with mechanism=direct or
 * auto.  A counting probe counts every call, whichever body answers it;
 * a timing probe times the body that runs (the replacement's sleeps
 * show).  A kretprobe and a kprobe of probe_core's on the function, with
 * a direct probe and the livepatch at the same time, each count every
 * call.  A timed call asleep inside the replacement when the probe goes
 * is sent back to its caller, which gets the replacement's answer.  A
 * livepatch's transition is not held up by a task asleep in a timed
 * function (it unwinds through the trampoline reliably).  The quiet VM
 * reads /proc/version only here: counts are exact.
 *
 * A kernel without livepatch support (no /sys/kernel/livepatch) has no
 * pcore_lp.ko (its Kbuild builds none): the tests skip, saying so.
 */
#include "pcore_ioctl.h"
#include <sys/wait.h>
#include "kselftest_harness.h"

#define NCALLS		200
#define FN		"version_proc_show"
#define FN_COUNT	FN ":count"
#define LP		"pcore_lp"
#define LP_SYSFS	"/sys/kernel/livepatch"
#define LP_DIR		LP_SYSFS "/" LP
#define LP_KO		"/pcore/modules/" LP ".ko"
#define LP_NAP		"/sys/module/" LP "/parameters/nap_ms"
#define LP_LINE		"pcore_lp: version_proc_show() replaced\n"
#define NAP_MS		30
#define WAIT_MS		60000	/* for a livepatch's transition */

static char buf[PCORE_BUF], log[16384];

/* A read of /proc/version: 1 the replacement's, 0 the kernel's, -1. */
/* The shortest read of /proc/version since it was set to ~0ULL, in ns. */
static unsigned long long shortest_read;

static int version_read(void)
{
	struct timespec t0, t1;
	unsigned long long ns;
	char v[1024];
	int n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	n = pcore_read("/proc/version", v, sizeof(v));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ns = (t1.tv_sec - t0.tv_sec) * 1000000000ULL + t1.tv_nsec - t0.tv_nsec;
	if (ns < shortest_read)
		shortest_read = ns;
	if (n <= 0)
		return -1;
	if (!strcmp(v, LP_LINE))
		return 1;
	return strncmp(v, "Linux version ", 14) ? -1 : 0;
}

/* @n reads: how many the replacement answered, or -1. */
static int versions(int n)
{
	int i, r, lp = 0;

	for (i = 0; i < n; i++) {
		r = version_read();
		if (r < 0)
			return -1;
		lp += r;
	}
	return lp;
}

/* The livepatch's sysfs file @name as a number, or -1 (no patch). */
static int lp_attr(const char *name)
{
	char path[256], v[32];

	snprintf(path, sizeof(path), LP_DIR "/%s", name);
	if (pcore_read(path, v, sizeof(v)) <= 0)
		return -1;
	return atoi(v);
}

/*
 * The livepatch loaded (klp_enable_patch() at its init) and its
 * transition done: every task runs the replacement.  0, the errno of the
 * load, or -1 (the transition did not end, or the patch went).
 */
static int lp_load(void)
{
	int ret = pcore_mod_load(LP, NULL), i;

	if (ret)
		return ret;
	for (i = 0; i < WAIT_MS / 10; i++) {
		ret = lp_attr("transition");
		if (ret <= 0)
			return ret;
		usleep(10000);
	}
	return -1;
}

/*
 * The livepatch disabled (echo 0 > enabled), its transition done (the
 * patch's directory goes with it), and its module removed.  0, an
 * errno, or -1 (the transition did not end).
 */
static int lp_unload(void)
{
	int ret, i;

	if (!access(LP_DIR, F_OK)) {
		ret = pcore_write(LP_DIR "/enabled", "0", 1);
		if (ret)
			return ret;
		for (i = 0; i < WAIT_MS / 10 && !access(LP_DIR, F_OK); i++)
			usleep(10000);
		if (!access(LP_DIR, F_OK))
			return -1;
	}
	return pcore_mods_unload((const char * const []){ LP }, 1);
}

FIXTURE(lp) {
	int fd;		/* /dev/probe_core */
	int kmsg;
	bool no_lp;	/* no livepatch here: @why says why */
	char why[256];
};

FIXTURE_SETUP(lp)
{
	static const char * const mods[] = { "probe_core" };

	self->fd = -1;
	ASSERT_EQ(0, lp_unload());
	ASSERT_EQ(0, pcore_mods_unload(mods, 1));
	self->kmsg = kmsg_open();
	ASSERT_LE(0, self->kmsg);
	if (access(LP_SYSFS, F_OK)) {
		snprintf(self->why, sizeof(self->why),
			 "no %s: this kernel has no livepatch (CONFIG_LIVEPATCH)",
			 LP_SYSFS);
		self->no_lp = true;
		return;
	}
	ASSERT_EQ(0, access(LP_KO, R_OK)) TH_LOG("%s: %s", LP_KO, strerror(errno));
	/* nothing replaces the function yet */
	ASSERT_EQ(0, versions(1));
}

FIXTURE_TEARDOWN(lp)
{
	static const char * const mods[] = { "probe_core" };

	if (self->fd >= 0)
		close(self->fd);
	EXPECT_EQ(0, pcore_mods_unload(mods, 1));
	EXPECT_EQ(0, lp_unload());
	EXPECT_EQ(0, pcore_kmsg_bad(self->kmsg, log, sizeof(log))) {
		TH_LOG("kernel log:\n%s", log);
	}
	close(self->kmsg);
}

/* Attach FN as @what by mechanism @mech through PCORE_IOC_ATTACH. */
static int attach_mech(int fd, unsigned int what, unsigned int mech)
{
	struct pcore_ioc_attach a;

	pcore_att_init(&a, "", PCORE_ATTACH_KRETPROBE, PCORE_UAPI_HIST_DEFAULT);
	snprintf(a.target, sizeof(a.target), FN);
	a.what = what;
	a.flags = mech;
	return pcore_ioc(fd, PCORE_IOC_ATTACH, &a);
}

/*
 * Probe @name (of the device open in @fd) is of the kind @kind and has
 * counted @n calls, none missed.
 */
#define EXPECT_PROBE(fd, name, kind, n) do {				\
	struct pcore_ioc_entry e_;					\
									\
	ASSERT_EQ(0, pcore_list_one(fd, name, &e_));			\
	EXPECT_STREQ(kind, e_.probe_kind);				\
	EXPECT_EQ(n, e_.count) TH_LOG("%s", name);			\
	EXPECT_EQ(0, e_.missed);					\
} while (0)

/*
 * Timing probe FN times the body that runs: its histogram reset, two
 * calls that sleep NAP_MS in the replacement (which answers them) are
 * its two values, each of at least about NAP_MS.  (The list's count is
 * the probe's calls since it was made: a reset keeps it.)
 */
#define EXPECT_TIMES_NAPS(fd) do {					\
	unsigned long long min_;					\
									\
	ASSERT_EQ(0, pcore_name_ioc(fd, PCORE_IOC_RESET, FN));		\
	ASSERT_EQ(0, pcore_write(LP_NAP, "30", 2));			\
	shortest_read = ~0ULL;						\
	EXPECT_EQ(2, versions(2));					\
	ASSERT_EQ(0, pcore_write(LP_NAP, "0", 1));			\
	EXPECT_EQ(2, pcore_stat(FN, "count"));				\
	min_ = pcore_stat(FN, "min");					\
	/* a short nap or a short measure: the read's time says which */ \
	EXPECT_LE(NAP_MS * 900000ULL, min_)				\
		TH_LOG("shortest read of the two: %llu ns", shortest_read); \
	EXPECT_GT(NAP_MS * 100000000ULL, min_);				\
} while (0)

/*
 * The livepatch first: a direct probe attaches beside it, counting, then
 * timing (one direct call a function: one after the other), by
 * mechanism=direct and by mechanism=auto (which has nothing to fall back
 * from); each counts every call, which the replacement answers, and
 * the timing probe times the replacement.
 */
TEST_F_TIMEOUT(lp, lp_first, PCORE_TIMEOUT_PATCHING)
{
	if (self->no_lp)
		SKIP(return, "%s", self->why);
	ASSERT_EQ(0, lp_load());
	EXPECT_EQ(NCALLS, versions(NCALLS));
	kmsg_collect(self->kmsg, log, sizeof(log));	/* the livepatch's */

	PCORE_LOAD_OPEN("target=" FN_COUNT " mechanism=direct", self->fd);
	EXPECT_EQ(1, kmsg_collect(self->kmsg, log, sizeof(log))) TH_LOG("%s", log);
	EXPECT_NE(NULL, strstr(log, FN_COUNT ": direct on " FN)) TH_LOG("%s", log);
	EXPECT_EQ(NCALLS, versions(NCALLS));
	EXPECT_PROBE(self->fd, FN_COUNT, "direct", NCALLS);

	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DETACH, FN_COUNT));
	ASSERT_EQ(0, attach_mech(self->fd, PCORE_WHAT_TIME,
				 PCORE_ATTACH_MECH_DIRECT));
	EXPECT_EQ(NCALLS, versions(NCALLS));
	EXPECT_PROBE(self->fd, FN, "direct-ret", NCALLS);
	EXPECT_TIMES_NAPS(self->fd);
	EXPECT_PROBE(self->fd, FN, "direct-ret", NCALLS + 2);

	/* auto: direct calls, each kind */
	ASSERT_EQ(0, close(self->fd));
	self->fd = -1;
	ASSERT_EQ(0, pcore_unload());
	PCORE_LOAD_OPEN("target=" FN_COUNT " mechanism=auto", self->fd);
	EXPECT_EQ(NCALLS, versions(NCALLS));
	EXPECT_PROBE(self->fd, FN_COUNT, "direct", NCALLS);
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DETACH, FN_COUNT));
	ASSERT_EQ(0, attach_mech(self->fd, PCORE_WHAT_TIME,
				 PCORE_ATTACH_MECH_AUTO));
	EXPECT_EQ(NCALLS, versions(NCALLS));
	EXPECT_PROBE(self->fd, FN, "direct-ret", NCALLS);
	/* no fallback: stats names the mechanism, without a reason */
	ASSERT_LE(0, pcore_read(PCORE_DBG "/" FN "/stats", buf, PCORE_BUF));
	EXPECT_NE(NULL, strstr(buf, "\nmechanism: direct-ret\n")) TH_LOG("%s", buf);

	/* the livepatch goes under the probe: the kernel's function again */
	ASSERT_EQ(0, lp_unload());
	EXPECT_EQ(0, versions(NCALLS));
	EXPECT_PROBE(self->fd, FN, "direct-ret", 2 * NCALLS);
}

/*
 * probe_core's direct probe @spec (kind @kind, named @name) first: the
 * livepatch loads and enables beside it (ftrace refused it with EBUSY
 * before ops_func), the probe counts every call before, during and
 * after the livepatch (disabled, then removed), a timing probe times
 * the replacement; then the probe detaches.
 */
static void direct_first(struct __test_metadata *_metadata, int *fd,
			 const char *spec, const char *name, const char *kind)
{
	char params[256];

	snprintf(params, sizeof(params), "target=%s mechanism=direct", spec);
	PCORE_LOAD_OPEN(params, *fd);
	EXPECT_EQ(0, versions(NCALLS));
	EXPECT_PROBE(*fd, name, kind, NCALLS);

	ASSERT_EQ(0, lp_load());
	EXPECT_EQ(1, lp_attr("enabled"));
	EXPECT_EQ(NCALLS, versions(NCALLS));
	EXPECT_PROBE(*fd, name, kind, 2 * NCALLS);
	if (!strcmp(name, FN))
		EXPECT_TIMES_NAPS(*fd);
	else
		EXPECT_EQ(2, versions(2));
	EXPECT_PROBE(*fd, name, kind, 2 * NCALLS + 2);

	/* disabled: the kernel's function answers, still counted */
	ASSERT_EQ(0, pcore_write(LP_DIR "/enabled", "0", 1));
	for (int i = 0; i < WAIT_MS / 10 && !access(LP_DIR, F_OK); i++)
		usleep(10000);
	ASSERT_NE(0, access(LP_DIR, F_OK));
	EXPECT_EQ(0, versions(NCALLS));
	ASSERT_EQ(0, pcore_mod_unload_wait(LP));
	EXPECT_EQ(0, versions(NCALLS));
	EXPECT_PROBE(*fd, name, kind, 4 * NCALLS + 2);

	ASSERT_EQ(0, pcore_name_ioc(*fd, PCORE_IOC_DETACH, name));
	EXPECT_EQ(0, versions(1));
	ASSERT_EQ(0, close(*fd));
	*fd = -1;
	EXPECT_EQ(0, pcore_unload());
}

TEST_F_TIMEOUT(lp, direct_count_first, PCORE_TIMEOUT_PATCHING)
{
	if (self->no_lp)
		SKIP(return, "%s", self->why);
	direct_first(_metadata, &self->fd, FN_COUNT, FN_COUNT, "direct");
}

TEST_F_TIMEOUT(lp, direct_time_first, PCORE_TIMEOUT_PATCHING)
{
	if (self->no_lp)
		SKIP(return, "%s", self->why);
	direct_first(_metadata, &self->fd, FN, FN, "direct-ret");
}

/*
 * probe_core's kretprobe and kprobe (mechanism=kprobe) beside the
 * livepatch, then its kretprobe and a direct probe with it at the same
 * time, the livepatch first and last: each counts every call.
 */
TEST_F_TIMEOUT(lp, kprobes_beside, PCORE_TIMEOUT_PATCHING)
{
	if (self->no_lp)
		SKIP(return, "%s", self->why);
	ASSERT_EQ(0, lp_load());
	PCORE_LOAD_OPEN("target=" FN " mechanism=kprobe", self->fd);
	ASSERT_EQ(0, attach_mech(self->fd, PCORE_WHAT_COUNT,
				 PCORE_ATTACH_MECH_KPROBE));
	EXPECT_EQ(NCALLS, versions(NCALLS));
	EXPECT_PROBE(self->fd, FN, "kretprobe", NCALLS);
	EXPECT_PROBE(self->fd, FN_COUNT, "kprobe", NCALLS);
	/* the kretprobe times the replacement too */
	EXPECT_TIMES_NAPS(self->fd);

	/* a direct call joins the kretprobe and the livepatch */
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DETACH, FN_COUNT));
	ASSERT_EQ(0, attach_mech(self->fd, PCORE_WHAT_COUNT,
				 PCORE_ATTACH_MECH_DIRECT));
	EXPECT_EQ(NCALLS, versions(NCALLS));
	EXPECT_PROBE(self->fd, FN, "kretprobe", 2 * NCALLS + 2);
	EXPECT_PROBE(self->fd, FN_COUNT, "direct", NCALLS);

	/* the livepatch goes, and comes back after them */
	ASSERT_EQ(0, lp_unload());
	EXPECT_EQ(0, versions(NCALLS));
	ASSERT_EQ(0, lp_load());
	EXPECT_EQ(NCALLS, versions(NCALLS));
	EXPECT_PROBE(self->fd, FN, "kretprobe", 4 * NCALLS + 2);
	EXPECT_PROBE(self->fd, FN_COUNT, "direct", 3 * NCALLS);
}

static void on_usr1(int sig)
{
}

/* The stack of task @pid names @sym; -1 when it cannot be read. */
static int stack_has(pid_t pid, const char *sym)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	if (pcore_read(path, buf, PCORE_BUF) < 0)
		return -1;
	return strstr(buf, sym) != NULL;
}

/*
 * A timed call asleep inside the replacement (nap_ms) when the probe
 * is detached and probe_core unloaded: neither waits for it; the call
 * is sent back to its caller (one line says so) and the read returns
 * what the replacement wrote.  Its trampoline's frame holds the
 * replacement's address where the function's body would be.
 */
TEST_F_TIMEOUT(lp, timed_call_in_replacement, PCORE_TIMEOUT_PATCHING)
{
	double t0, t1, t2;
	pid_t pid;
	int st, i;

	if (self->no_lp)
		SKIP(return, "%s", self->why);
	PCORE_LOAD_OPEN("target=" FN " mechanism=direct", self->fd);
	ASSERT_EQ(0, lp_load());
	ASSERT_EQ(0, pcore_write(LP_NAP, "60000", 5));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(self->fd);	/* it would hold probe_core */
		/* a signal ends the nap: the read returns, then the handler */
		signal(SIGUSR1, on_usr1);
		_exit(version_read() == 1 ? 0 : 1);
	}
	for (i = 0; i < 2000 && stack_has(pid, "pcore_lp_version_show") != 1; i++)
		usleep(1000);
	ASSERT_EQ(1, stack_has(pid, "pcore_lp_version_show")) TH_LOG("%s", buf);
	kmsg_collect(self->kmsg, log, sizeof(log));
	t0 = pcore_now();
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DETACH, FN));
	t1 = pcore_now();
	ASSERT_EQ(0, close(self->fd));
	self->fd = -1;
	EXPECT_EQ(0, pcore_unload());
	t2 = pcore_now();
	/* neither waited for the call, asleep for a minute */
	EXPECT_EQ(0, waitpid(pid, &st, WNOHANG))
		TH_LOG("detach %.3f s, unload %.3f s", t1 - t0, t2 - t1);
	ASSERT_EQ(0, kill(pid, SIGUSR1));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st)) TH_LOG("status %#x", st);
	EXPECT_EQ(1, kmsg_collect(self->kmsg, log, sizeof(log))) TH_LOG("%s", log);
	EXPECT_NE(NULL, strstr(log, "1 call inside " FN ", of a timing probe removed, returns to its caller untimed"))
		TH_LOG("%s", log);
	ASSERT_EQ(0, pcore_write(LP_NAP, "0", 1));
	EXPECT_EQ(1, versions(1));
}

/*
 * A task asleep inside a function timed by a direct probe (a read of an
 * empty pipe) while a livepatch of another function enables: the
 * livepatch's transition switches each task once its stack, unwound
 * reliably, shows none of the patched functions; the trampoline's frame
 * unwinds reliably, so the task switches at once (in a second or two),
 * before livepatch would send it a fake signal (after 15 tries, a second
 * apart; a task it cannot unwind would keep the transition open until
 * then).
 */
TEST_F_TIMEOUT(lp, transition_past_a_timed_call, PCORE_TIMEOUT_PATCHING)
{
	int pipefd[2], st, i;
	char b[8];
	double t0;
	pid_t pid;

	if (self->no_lp)
		SKIP(return, "%s", self->why);
	PCORE_LOAD_OPEN("target=pipe_read mechanism=direct", self->fd);
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(self->fd);
		_exit(read(pipefd[0], b, sizeof(b)) == 5 ? 0 : 1);
	}
	for (i = 0; i < 2000 && stack_has(pid, "pcore_direct_wrap_") != 1; i++)
		usleep(1000);
	ASSERT_EQ(1, stack_has(pid, "pcore_direct_wrap_")) TH_LOG("%s", buf);
	t0 = pcore_now();
	EXPECT_EQ(0, lp_load());
	EXPECT_GT(12.0, pcore_now() - t0);
	EXPECT_EQ(1, versions(1));
	/* the reader still waits, then reads what comes */
	EXPECT_EQ(0, waitpid(pid, &st, WNOHANG));
	ASSERT_EQ(5, write(pipefd[1], "hello", 5));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st)) TH_LOG("status %#x", st);
	close(pipefd[0]);
	close(pipefd[1]);
}

TEST_HARNESS_MAIN
