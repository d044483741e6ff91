// SPDX-License-Identifier: GPL-2.0
/*
 * Glob targets: target=pcore_globt_* (and probectl attach with a glob)
 * put one probe on every function of the test module pcore_globt that
 * ftrace can trace and kprobes accept, with a histogram per function:
 * exact counts per function, timings, the functions skipped named in one
 * log line, detach with the probe.  target=vfs_* on the kernel's own
 * functions.  Globs that match nothing, too much, or take a suffix they
 * cannot are refused, leaving nothing behind.  mechanism=direct: one
 * trampoline for all of a glob's kernel functions, counting and timing
 * each exactly; calls in flight inside them at a detach or an unload;
 * under auto, a glob with a function no direct call takes falls back to
 * the fprobe or kprobes, and stats say which function and why.
 */
#include "pcore_ioctl.h"
#include <pthread.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include "kselftest_harness.h"
#include "pcore_inflight.h"

#define PCORE_CTL	"/pcore/bin/probectl"
#define OUT		"/tmp/pcore_glob.ctl"	/* not .out: run_tests.sh writes that */
#define GLOBT		"/sys/kernel/debug/pcore_globt"

static char out[PCORE_BUF];
static char log_[65536];

static int ctl(const char * const *argv)
{
	return pcore_run(argv, NULL, OUT, out, sizeof(out));
}

#define CTL(...)	ctl((const char * const []){ PCORE_CTL, __VA_ARGS__, NULL })

static int globt(const char *file, const char *n)
{
	char path[128];

	snprintf(path, sizeof(path), GLOBT "/%s", file);
	return pcore_write(path, n, strlen(n));
}

/* Is there a histogram of that name? */
static bool hist_exists(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), PCORE_DBG "/%s", name);
	return access(path, F_OK) == 0;
}

PCORE_KMOD_FIXTURE(glob, "pcore_globt", log_)

/*
 * target=pcore_globt_*: a histogram per function that can be probed,
 * exact counts, each timed; the duplicate name and the blacklisted
 * function skipped and named in one line; the notrace function never
 * matched.
 */
TEST_F_TIMEOUT(glob, target_param, PCORE_TIMEOUT_PATCHING)
{
	static const char * const fn[] = {
		"pcore_globt_a", "pcore_globt_b", "pcore_globt_c",
		"pcore_globt_sleep",
	};
	struct pcore_probe_line l;
	unsigned long long p50;
	char path[256];
	unsigned int i;

	ASSERT_EQ(0, kmsg_collect(self->kmsg, log_, sizeof(log_)) < 0);
	ASSERT_EQ(0, pcore_load("target=pcore_globt_* mechanism=kprobe"));
	ASSERT_EQ(2, kmsg_collect(self->kmsg, log_, sizeof(log_)))
		TH_LOG("%s", log_);
	EXPECT_NE(NULL, strstr(log_, "probe_core: pcore_globt_*: 2 of 6 matching functions skipped: pcore_globt_dup (more than one), pcore_globt_nokprobe (kprobes refuse it)\n"))
		TH_LOG("%s", log_);
	EXPECT_TRUE(strstr(log_, "probe_core: pcore_globt_*: 4 functions, one fprobe\n") ||
		    strstr(log_, "probe_core: pcore_globt_*: 4 functions, a kretprobe each\n"))
		TH_LOG("%s", log_);

	ASSERT_EQ(0, pcore_probe_line("pcore_globt_*", &l));
	EXPECT_STREQ("functions", l.kind);
	EXPECT_STREQ("4_functions", l.symbol);
	EXPECT_EQ(4, pcore_hist_dirs());
	for (i = 0; i < ARRAY_SIZE(fn); i++)
		EXPECT_TRUE(hist_exists(fn[i]));
	EXPECT_FALSE(hist_exists("pcore_globt_nokprobe"));
	EXPECT_FALSE(hist_exists("pcore_globt_notrace"));
	EXPECT_FALSE(hist_exists("pcore_globt_dup"));

	ASSERT_EQ(0, globt("run", "100"));
	ASSERT_EQ(0, globt("sleep", "20"));
	EXPECT_EQ(100, pcore_stat("pcore_globt_a", "count"));
	EXPECT_EQ(200, pcore_stat("pcore_globt_b", "count"));
	EXPECT_EQ(300, pcore_stat("pcore_globt_c", "count"));
	EXPECT_EQ(20, pcore_stat("pcore_globt_sleep", "count"));
	EXPECT_EQ(0, pcore_stat("pcore_globt_a", "missed"));
	/* each sleeps at least 1 ms; the others take well under one */
	p50 = pcore_stat("pcore_globt_sleep", "p50");
	EXPECT_LE(1000000, p50);
	EXPECT_GT(1000000000, p50);
	EXPECT_GT(1000000, pcore_stat("pcore_globt_c", "p50"));
	/* each histogram names its function; the probe counts them all */
	snprintf(path, sizeof(path), PCORE_DBG "/pcore_globt_b/stats");
	ASSERT_LT(0, pcore_read(path, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "symbol: pcore_globt_b\n")) TH_LOG("%s", out);
	ASSERT_EQ(0, pcore_probe_line("pcore_globt_*", &l));
	EXPECT_EQ(620, l.hits);

	/* detached with probe_core: the test module's code is its own again */
	ASSERT_EQ(0, pcore_unload());
	ASSERT_EQ(0, globt("run", "10"));
}

/*
 * probectl attach with a glob, :count: exact counts per function; detach
 * by the glob's name takes every histogram with it.
 */
TEST_F_TIMEOUT(glob, probectl_count, PCORE_TIMEOUT_PATCHING)
{
	ASSERT_EQ(0, pcore_load(NULL));
	ASSERT_EQ(0, CTL("attach", "--kprobe", "pcore_globt_?", "--count"))
		TH_LOG("%s", out);
	EXPECT_EQ(3, pcore_hist_dirs());
	ASSERT_EQ(0, globt("run", "50"));
	EXPECT_EQ(50, pcore_stat("pcore_globt_a:count", "count"));
	EXPECT_EQ(100, pcore_stat("pcore_globt_b:count", "count"));
	EXPECT_EQ(150, pcore_stat("pcore_globt_c:count", "count"));
	ASSERT_EQ(0, CTL("show", "pcore_globt_c:count")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "150")) TH_LOG("%s", out);

	ASSERT_EQ(0, CTL("disable", "pcore_globt_?:count")) TH_LOG("%s", out);
	ASSERT_EQ(0, globt("run", "50"));
	EXPECT_EQ(50, pcore_stat("pcore_globt_a:count", "count"));
	ASSERT_EQ(0, CTL("enable", "pcore_globt_?:count")) TH_LOG("%s", out);
	ASSERT_EQ(0, globt("run", "1"));
	EXPECT_EQ(51, pcore_stat("pcore_globt_a:count", "count"));

	ASSERT_EQ(0, CTL("detach", "pcore_globt_?:count")) TH_LOG("%s", out);
	EXPECT_EQ(0, pcore_hist_dirs());
	ASSERT_EQ(0, globt("run", "1"));
}

/*
 * The module whose functions a glob probes unloads: the probe stays,
 * with what it counted, and sees nothing of the module loaded again
 * (its code may be where the old code was).
 */
TEST_F_TIMEOUT(glob, module_unload, PCORE_TIMEOUT_PATCHING)
{
	ASSERT_EQ(0, pcore_load("target=pcore_globt_?:count"));
	ASSERT_EQ(0, globt("run", "5"));
	ASSERT_EQ(0, pcore_mod_unload_wait("pcore_globt"));
	EXPECT_EQ(15, pcore_stat("pcore_globt_c:count", "count"));
	ASSERT_EQ(0, pcore_mod_load("pcore_globt", NULL));
	ASSERT_EQ(0, globt("run", "5"));
	EXPECT_EQ(5, pcore_stat("pcore_globt_a:count", "count"));
	EXPECT_EQ(15, pcore_stat("pcore_globt_c:count", "count"));
	ASSERT_EQ(0, pcore_unload());
}

/* pid=: a glob's probe sees only that process's calls. */
TEST_F_TIMEOUT(glob, filter, PCORE_TIMEOUT_PATCHING)
{
	char params[128];

	snprintf(params, sizeof(params), "target=pcore_globt_?:count pid=%d",
		 getpid());
	ASSERT_EQ(0, pcore_load(params));
	ASSERT_EQ(0, globt("run", "10"));
	EXPECT_EQ(10, pcore_stat("pcore_globt_a:count", "count"));
	EXPECT_EQ(30, pcore_stat("pcore_globt_c:count", "count"));
	ASSERT_EQ(0, pcore_unload());

	ASSERT_EQ(0, pcore_load("target=pcore_globt_? pid=1"));
	ASSERT_EQ(0, globt("run", "10"));
	EXPECT_EQ(0, pcore_stat("pcore_globt_a", "count"));
	EXPECT_EQ(0, pcore_stat("pcore_globt_c", "count"));
	ASSERT_EQ(0, pcore_unload());
}

/* target=vfs_*: lists its probe and times each function it matched. */
TEST_F_TIMEOUT(glob, vfs, PCORE_TIMEOUT_PATCHING)
{
	struct pcore_probe_line l;
	char buf[256];
	int fd, n, i;
	char *p;

	ASSERT_EQ(0, pcore_load("target=vfs_* mechanism=kprobe"));
	ASSERT_EQ(0, pcore_probe_line("vfs_*", &l));
	n = atoi(l.symbol);
	EXPECT_NE(NULL, strstr(l.symbol, "_functions")) TH_LOG("%s", l.symbol);
	EXPECT_LT(20, n);
	EXPECT_EQ(n, pcore_hist_dirs());
	EXPECT_TRUE(hist_exists("vfs_read"));
	EXPECT_TRUE(hist_exists("vfs_write"));
	fd = open("/tmp/pcore_glob.dat", O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, fd);
	for (i = 0; i < 100; i++)
		ASSERT_EQ(1, write(fd, "x", 1));
	ASSERT_EQ(0, lseek(fd, 0, SEEK_SET));
	for (i = 0; i < 100; i++)
		ASSERT_EQ(1, read(fd, buf, 1));
	close(fd);
	EXPECT_LE(100, pcore_stat("vfs_read", "count"));
	EXPECT_LE(100, pcore_stat("vfs_write", "count"));
	EXPECT_LT(0, pcore_stat("vfs_write", "p50"));
	/* probectl lists every function's histogram, kind "functions" */
	ASSERT_EQ(0, CTL("list")) TH_LOG("%s", out);
	for (i = 0, p = out; (p = strstr(p, " functions ")); p++)
		i++;
	EXPECT_EQ(n, i) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "vfs_write ")) TH_LOG("%s", out);
	ASSERT_EQ(0, pcore_unload());
}

/* Globs that cannot be attached: refused, one log line, nothing left. */
TEST_F_TIMEOUT(glob, bad, PCORE_TIMEOUT_PATCHING)
{
	static const struct pcore_bad_load bad[] = {
		{ "target=pcore_nomatch_zz*", ENOENT,
		  "functions pcore_nomatch_zz*: matches no function ftrace can trace" },
		{ "target=*", E2BIG, "functions *: matches " },
		{ "target=pcore_globt_no*", ENOENT,
		  "functions pcore_globt_no*: none of the 1 matching functions can be probed" },
		{ "target=pcore_globt_*:arg1", EINVAL,
		  "target=pcore_globt_*:arg1: a glob takes no suffix but ':count'" },
		{ "target=pcore_globt_*:by=pid", EINVAL,
		  "a glob takes no suffix but ':count'" },
		{ "target=pcore_globt_[ab]", EINVAL, "bad character at 12" },
		{ "target=pcore_globt_a,pcore_globt_*", EEXIST, "pcore_globt_a" },
	};
	struct pcore_ioc_attach a;
	int fd;

	PCORE_EXPECT_BAD_LOADS(bad, log_);

	/* the same through the ioctl and probectl: probe_core stays empty */
	PCORE_LOAD_OPEN(NULL, fd);
	pcore_att_init(&a, "*", PCORE_ATTACH_KRETPROBE, 0);
	EXPECT_EQ(E2BIG, pcore_ioc(fd, PCORE_IOC_ATTACH, &a));
	pcore_att_init(&a, "pcore_nomatch_zz?", PCORE_ATTACH_KRETPROBE, 0);
	EXPECT_EQ(ENOENT, pcore_ioc(fd, PCORE_IOC_ATTACH, &a));
	close(fd);
	EXPECT_EQ(1, CTL("attach", "--kretprobe", "pcore_nomatch_zz*"));
	EXPECT_NE(NULL, strstr(out, "no function")) TH_LOG("%s", out);
	EXPECT_EQ(2, CTL("attach", "--kretprobe", "pcore_globt_[ab]"));
	EXPECT_EQ(0, pcore_hist_dirs());
	ASSERT_EQ(0, pcore_read(PCORE_DBG "/probes", out, sizeof(out)) < 0);
	EXPECT_EQ(NULL, strchr(out, '*')) TH_LOG("%s", out);
}

#define NCALLS	300
/* getresuid() @n times, getresgid() 2 x @n: nothing else calls them. */
static void getres(int n)
{
	unsigned int r, e, s;
	int i;

	for (i = 0; i < n; i++) {
		syscall(SYS_getresuid, &r, &e, &s);
		syscall(SYS_getresgid, &r, &e, &s);
		syscall(SYS_getresgid, &r, &e, &s);
	}
}

/*
 * mechanism=direct, :count: one probe of kind direct-funcs on both
 * functions, each call counted once into its function's histogram;
 * disable and enable; the probe's hits are the sum; detached, and
 * attached again by probectl attach --mechanism direct.
 */
TEST_F_TIMEOUT(glob, direct_count, PCORE_TIMEOUT_PATCHING)
{
	struct pcore_probe_line l;
	char m[256];

	ASSERT_EQ(0, kmsg_collect(self->kmsg, log_, sizeof(log_)) < 0);
	ASSERT_EQ(0, pcore_load("target=__x64_sys_getres?id:count mechanism=direct"));
	kmsg_collect(self->kmsg, log_, sizeof(log_));
	EXPECT_NE(NULL, strstr(log_, "probe_core: __x64_sys_getres?id:count: 2 functions, one direct-call trampoline\n"))
		TH_LOG("%s", log_);
	ASSERT_EQ(0, pcore_probe_line("__x64_sys_getres?id:count", &l));
	EXPECT_STREQ("direct-funcs", l.kind);
	EXPECT_STREQ("2_functions", l.symbol);
	EXPECT_EQ(2, pcore_hist_dirs());
	ASSERT_EQ(0, pcore_mechanism("__x64_sys_getresgid:count", m, sizeof(m)));
	EXPECT_STREQ("direct-funcs", m);
	getres(NCALLS);
	EXPECT_EQ(NCALLS, pcore_stat("__x64_sys_getresuid:count", "count"));
	EXPECT_EQ(2 * NCALLS, pcore_stat("__x64_sys_getresgid:count", "count"));
	ASSERT_EQ(0, pcore_probe_line("__x64_sys_getres?id:count", &l));
	EXPECT_EQ(3 * NCALLS, l.hits);
	EXPECT_EQ(0, l.missed);

	ASSERT_EQ(0, CTL("disable", "__x64_sys_getres?id:count")) TH_LOG("%s", out);
	getres(NCALLS);
	EXPECT_EQ(NCALLS, pcore_stat("__x64_sys_getresuid:count", "count"));
	ASSERT_EQ(0, CTL("enable", "__x64_sys_getres?id:count")) TH_LOG("%s", out);
	getres(1);
	EXPECT_EQ(NCALLS + 1, pcore_stat("__x64_sys_getresuid:count", "count"));
	EXPECT_EQ(2 * NCALLS + 2, pcore_stat("__x64_sys_getresgid:count", "count"));
	/* the symbol of each histogram is its function's */
	ASSERT_LT(0, pcore_read(PCORE_DBG "/__x64_sys_getresgid:count/stats",
				out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "symbol: __x64_sys_getresgid\n")) TH_LOG("%s", out);
	/* detached and attached again at run time: the same */
	ASSERT_EQ(0, CTL("detach", "__x64_sys_getres?id:count")) TH_LOG("%s", out);
	EXPECT_EQ(0, pcore_hist_dirs());
	ASSERT_EQ(0, CTL("attach", "--kprobe", "__x64_sys_getres?id", "--count",
			 "--mechanism", "direct")) TH_LOG("%s", out);
	ASSERT_EQ(0, pcore_probe_line("__x64_sys_getres?id:count", &l));
	EXPECT_STREQ("direct-funcs", l.kind);
	getres(NCALLS);
	EXPECT_EQ(NCALLS, pcore_stat("__x64_sys_getresuid:count", "count"));
	EXPECT_EQ(2 * NCALLS, pcore_stat("__x64_sys_getresgid:count", "count"));
	ASSERT_EQ(0, pcore_unload());
}

/* clock_nanosleep() and nanosleep() as system calls (libc's nanosleep() is a clock_nanosleep()). */
static void naps(int n, long ms, bool clock)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	int i;

	for (i = 0; i < n; i++)
		if (clock)
			syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &ts, NULL);
		else
			syscall(SYS_nanosleep, &ts, NULL);
}

/*
 * mechanism=direct, timing: each call timed once, into its function's
 * histogram: the quick ones well under a millisecond, each sleep at
 * least as long as it slept, the two sleeps told apart.
 */
TEST_F_TIMEOUT(glob, direct_time, PCORE_TIMEOUT_PATCHING)
{
	struct pcore_probe_line l;

	ASSERT_EQ(0, pcore_load("target=__x64_sys_getres?id,__x64_sys_*nanosleep mechanism=direct"));
	ASSERT_EQ(0, pcore_probe_line("__x64_sys_getres?id", &l));
	EXPECT_STREQ("direct-funcs", l.kind);
	ASSERT_EQ(0, pcore_probe_line("__x64_sys_*nanosleep", &l));
	EXPECT_STREQ("direct-funcs", l.kind);
	EXPECT_TRUE(hist_exists("__x64_sys_nanosleep"));
	EXPECT_TRUE(hist_exists("__x64_sys_clock_nanosleep"));
	getres(NCALLS);
	naps(2, 60, false);
	naps(3, 10, true);
	EXPECT_EQ(NCALLS, pcore_stat("__x64_sys_getresuid", "count"));
	EXPECT_EQ(2 * NCALLS, pcore_stat("__x64_sys_getresgid", "count"));
	EXPECT_GT(1000000, pcore_stat("__x64_sys_getresgid", "p50"));
	EXPECT_LT(0, pcore_stat("__x64_sys_getresgid", "sum"));
	ASSERT_EQ(0, pcore_probe_line("__x64_sys_getres?id", &l));
	EXPECT_EQ(3 * NCALLS, l.hits);
	EXPECT_EQ(2, pcore_stat("__x64_sys_nanosleep", "count"));
	EXPECT_EQ(3, pcore_stat("__x64_sys_clock_nanosleep", "count"));
	EXPECT_LE(60000000, pcore_stat("__x64_sys_nanosleep", "min"));
	EXPECT_LE(10000000, pcore_stat("__x64_sys_clock_nanosleep", "min"));
	EXPECT_GT(60000000, pcore_stat("__x64_sys_clock_nanosleep", "max"));
	ASSERT_EQ(0, pcore_unload());
}

#define SENT_BACK "1 call inside pipe_read, of a timing probe removed, returns to its caller untimed"

/*
 * A timing glob detached with a call asleep inside one of its functions
 * (a read() of an empty pipe): the detach does not wait for it, nor does
 * the unload after; the call goes back to its caller (one line names
 * the function) and reads what comes after probe_core is gone.
 */
TEST_F_TIMEOUT(glob, direct_detach_in_flight, PCORE_TIMEOUT_PATCHING)
{
	struct pcore_probe_line l;
	struct reader r;
	int pipefd[2], fd;

	ASSERT_EQ(0, pcore_load("target=pipe_re* mechanism=direct"));
	ASSERT_EQ(0, pcore_probe_line("pipe_re*", &l));
	EXPECT_STREQ("direct-funcs", l.kind);
	ASSERT_EQ(0, reader_start(&r, pipefd));
	wait_ms(50);
	/* in: counted (not yet timed) */
	ASSERT_EQ(0, pcore_probe_line("pipe_re*", &l));
	EXPECT_LE(1, l.hits);
	kmsg_collect(self->kmsg, log_, sizeof(log_));
	fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pcore_name_ioc(fd, PCORE_IOC_DETACH, "pipe_re*"));
	close(fd);
	EXPECT_EQ(0, kmsg_wait(self->kmsg, log_, sizeof(log_), SENT_BACK))
		TH_LOG("%s", log_);
	EXPECT_EQ(0, pcore_unload());
	EXPECT_EQ(5, reader_end(&r, pipefd));
}

/* The same at an unload, with the probe on: it does not wait either. */
TEST_F_TIMEOUT(glob, direct_unload_in_flight, PCORE_TIMEOUT_PATCHING)
{
	struct reader r;
	int pipefd[2];

	ASSERT_EQ(0, pcore_load("target=pipe_re* mechanism=direct"));
	ASSERT_EQ(0, reader_start(&r, pipefd));
	wait_ms(50);
	kmsg_collect(self->kmsg, log_, sizeof(log_));
	EXPECT_EQ(0, pcore_unload());
	EXPECT_FALSE(pcore_loaded());
	EXPECT_EQ(0, kmsg_wait(self->kmsg, log_, sizeof(log_), SENT_BACK))
		TH_LOG("%s", log_);
	EXPECT_EQ(5, reader_end(&r, pipefd));
}

static pid_t napper_tid;

/* One nanosleep() system call of @arg ms: what it returned. */
static void *napper(void *arg)
{
	long ms = (long)arg;
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	__atomic_store_n(&napper_tid, gettid(), __ATOMIC_RELEASE);
	return (void *)syscall(SYS_nanosleep, &ts, NULL);
}

/*
 * Calls of a glob's functions nested in one another (the system call,
 * hrtimer_nanosleep(), do_nanosleep()...), one trampoline frame each:
 * the sleeper's stack unwinds through each (objtool's ORC of the glob's
 * trampoline), and all asleep at a detach, each frame is sent back, the
 * innermost to the next, the outermost to user space; one line counts
 * them.
 */
TEST_F_TIMEOUT(glob, direct_nested_in_flight, PCORE_TIMEOUT_PATCHING)
{
	static const char what[] = " calls inside functions of a glob, of a timing probe removed, return to their callers untimed";
	static char stack[8192];
	struct pcore_probe_line l;
	const char *p;
	char path[64];
	pthread_t t;
	void *ret;
	int fd;

	ASSERT_EQ(0, pcore_load("target=*nanosleep mechanism=direct"));
	ASSERT_EQ(0, pcore_probe_line("*nanosleep", &l));
	EXPECT_STREQ("direct-funcs", l.kind);
	naps(1, 10, false);
	EXPECT_EQ(1, pcore_stat("__x64_sys_nanosleep", "count"));
	EXPECT_EQ(1, pcore_stat("hrtimer_nanosleep", "count"));
	ASSERT_EQ(0, pthread_create(&t, NULL, napper, (void *)3000L));
	wait_ms(100);
	snprintf(path, sizeof(path), "/proc/self/task/%d/stack",
		 __atomic_load_n(&napper_tid, __ATOMIC_ACQUIRE));
	ASSERT_LT(0, pcore_read(path, stack, sizeof(stack)));
	p = after(stack, "] hrtimer_nanosleep+0x");
	p = after(p, "] pcore_direct_gwrap_");
	p = after(p, "] hrtimer_nanosleep+0x");
	p = after(p, "] __x64_sys_nanosleep+0x");
	p = after(p, "] pcore_direct_gwrap_");
	p = after(p, "] __x64_sys_nanosleep+0x");
	EXPECT_NE(NULL, after(p, "] do_syscall_64+")) TH_LOG("%s", stack);
	kmsg_collect(self->kmsg, log_, sizeof(log_));
	fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pcore_name_ioc(fd, PCORE_IOC_DETACH, "*nanosleep"));
	close(fd);
	EXPECT_EQ(0, kmsg_wait(self->kmsg, log_, sizeof(log_), what))
		TH_LOG("%s", log_);
	EXPECT_EQ(0, pcore_unload());
	pthread_join(t, &ret);
	EXPECT_EQ(0, (long)ret);
}

/*
 * A glob with a function whose arguments are not all in registers
 * (do_mmap: 8 or 9): mechanism=direct refuses to time it, naming it, and
 * counts it; auto times the glob with the fprobe or kprobes, stats
 * naming the function and why.
 */
TEST_F_TIMEOUT(glob, direct_stack_arguments, PCORE_TIMEOUT_PATCHING)
{
	struct pcore_probe_line l;
	char m[256];

	kmsg_collect(self->kmsg, log_, sizeof(log_));
	EXPECT_EQ(E2BIG, pcore_load("target=do_mm* mechanism=direct"));
	EXPECT_LE(1, kmsg_collect(self->kmsg, log_, sizeof(log_))) TH_LOG("%s", log_);
	EXPECT_NE(NULL, strstr(log_, "direct-funcs do_mm*: do_mmap: "))
		TH_LOG("%s", log_);
	EXPECT_NE(NULL, strstr(log_, " argument registers needed, 6 exist: a trampoline can only time a function whose arguments are all in registers"))
		TH_LOG("%s", log_);
	EXPECT_FALSE(pcore_loaded());

	ASSERT_EQ(0, pcore_load("target=do_mm*:count mechanism=direct"));
	ASSERT_EQ(0, pcore_probe_line("do_mm*:count", &l));
	EXPECT_STREQ("direct-funcs", l.kind);
	ASSERT_EQ(0, pcore_unload());

	ASSERT_EQ(0, pcore_load("target=do_mm* mechanism=auto"));
	ASSERT_EQ(0, pcore_probe_line("do_mm*", &l));
	EXPECT_STREQ("functions", l.kind);
	ASSERT_EQ(0, pcore_mechanism("do_mmap", m, sizeof(m)));
	EXPECT_STREQ("functions (no direct call: do_mmap: arguments on the stack)", m);
	ASSERT_EQ(0, pcore_unload());
}

/*
 * Under auto, a glob whose function another direct call has (here a
 * probe of probe_core's own) falls back, naming it; under direct it is
 * refused with -EBUSY, naming it.  A glob of a module's functions falls
 * back too.
 */
TEST_F_TIMEOUT(glob, direct_auto_falls_back, PCORE_TIMEOUT_PATCHING)
{
	struct pcore_probe_line l;
	char m[256];

	ASSERT_EQ(0, pcore_load("target=sys_getresgid:count,__x64_sys_getres?id:count,pcore_globt_? mechanism=auto"));
	ASSERT_EQ(0, pcore_mechanism("sys_getresgid:count", m, sizeof(m)));
	EXPECT_STREQ("direct", m);
	ASSERT_EQ(0, pcore_probe_line("__x64_sys_getres?id:count", &l));
	EXPECT_STREQ("functions", l.kind);
	ASSERT_EQ(0, pcore_mechanism("__x64_sys_getresuid:count", m, sizeof(m)));
	EXPECT_STREQ("functions (no direct call: __x64_sys_getresgid: another direct user (a BPF trampoline?) has it)", m);
	ASSERT_EQ(0, pcore_mechanism("pcore_globt_a", m, sizeof(m)));
	EXPECT_NE(NULL, strstr(m, ": a module's function)")) TH_LOG("%s", m);
	EXPECT_EQ(0, strncmp(m, "functions (no direct call: pcore_globt_", 39)) TH_LOG("%s", m);
	getres(NCALLS);
	EXPECT_EQ(2 * NCALLS, pcore_stat("sys_getresgid:count", "count"));
	EXPECT_EQ(NCALLS, pcore_stat("__x64_sys_getresuid:count", "count"));
	EXPECT_EQ(2 * NCALLS, pcore_stat("__x64_sys_getresgid:count", "count"));
	ASSERT_EQ(0, pcore_unload());

	kmsg_collect(self->kmsg, log_, sizeof(log_));
	EXPECT_EQ(EBUSY, pcore_load("target=sys_getresgid:count,__x64_sys_getres?id:count mechanism=direct"));
	kmsg_collect(self->kmsg, log_, sizeof(log_));
	EXPECT_NE(NULL, strstr(log_, "direct-funcs __x64_sys_getres?id:count: ftrace refused a direct call on __x64_sys_getresgid (-EBUSY): another direct user (a BPF trampoline?) has it"))
		TH_LOG("%s", log_);
	EXPECT_FALSE(pcore_loaded());
	EXPECT_EQ(EINVAL, pcore_load("target=pcore_globt_? mechanism=direct"));
	kmsg_collect(self->kmsg, log_, sizeof(log_));
	EXPECT_NE(NULL, strstr(log_, " is a module's function: mechanism=direct takes the kernel's only"))
		TH_LOG("%s", log_);
	EXPECT_FALSE(pcore_loaded());
}

/* Is the kernel older than @major.@minor? */
static bool kernel_before(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma < major || (ma == major && mi < minor);
}

/*
 * Many functions through one trampoline (a binary search of some 70):
 * target=vfs_*:count under direct (before v6.7, refused: ftrace would
 * leak its table of direct calls registering more than 64 at once);
 * target=vfs_* under auto, direct unless a vfs_ function cannot be timed
 * so (6.1's vfs_kern_mount.part.0, a compiler's copy, is not in BTF):
 * stats say; target=__x64_sys_get* (some 26) timed under direct, exact
 * for the calls nothing else makes.
 */
TEST_F_TIMEOUT(glob, direct_many, PCORE_TIMEOUT_PATCHING)
{
	static const char * const mech[] = { "direct", "auto" };
	bool old = kernel_before(6, 7);
	struct pcore_probe_line l;
	char buf[8], params[64];
	int fd, i, j;
	char m[256];

	for (j = 0; j < 2; j++) {
		snprintf(params, sizeof(params), "target=vfs_*%s mechanism=%s",
			 j ? "" : ":count", mech[j]);
		if (!j && old) {
			kmsg_collect(self->kmsg, log_, sizeof(log_));
			EXPECT_EQ(E2BIG, pcore_load(params));
			kmsg_collect(self->kmsg, log_, sizeof(log_));
			EXPECT_NE(NULL, strstr(log_, " functions, more than the 64 this kernel's ftrace registers at once as direct calls"))
				TH_LOG("%s", log_);
			EXPECT_FALSE(pcore_loaded());
			continue;
		}
		ASSERT_EQ(0, pcore_load(params));
		ASSERT_EQ(0, pcore_probe_line(j ? "vfs_*" : "vfs_*:count", &l));
		EXPECT_LT(20, atoi(l.symbol));
		EXPECT_EQ(atoi(l.symbol), pcore_hist_dirs());
		ASSERT_EQ(0, pcore_mechanism(j ? "vfs_read" : "vfs_read:count", m,
				       sizeof(m)));
		if (j) {
			EXPECT_TRUE(!strcmp(m, "direct-funcs") ||
				    !strncmp(m, "functions (no direct call: ", 27))
				TH_LOG("%s", m);
		} else {
			EXPECT_STREQ("direct-funcs", m);
		}
		EXPECT_STREQ(strcmp(m, "direct-funcs") ? "functions" :
			     "direct-funcs", l.kind);
		fd = open("/tmp/pcore_glob.dat", O_RDWR | O_CREAT | O_TRUNC, 0600);
		ASSERT_LE(0, fd);
		for (i = 0; i < 100; i++)
			ASSERT_EQ(1, write(fd, "x", 1));
		ASSERT_EQ(0, lseek(fd, 0, SEEK_SET));
		for (i = 0; i < 100; i++)
			ASSERT_EQ(1, read(fd, buf, 1));
		close(fd);
		EXPECT_LE(100, pcore_stat(j ? "vfs_read" : "vfs_read:count", "count"));
		EXPECT_LE(100, pcore_stat(j ? "vfs_write" : "vfs_write:count", "count"));
		if (j)
			EXPECT_LT(0, pcore_stat("vfs_write", "p50"));
		ASSERT_EQ(0, pcore_unload());
	}

	ASSERT_EQ(0, pcore_load("target=__x64_sys_get* mechanism=direct"));
	ASSERT_EQ(0, pcore_probe_line("__x64_sys_get*", &l));
	EXPECT_STREQ("direct-funcs", l.kind);
	EXPECT_LT(20, atoi(l.symbol));
	getres(NCALLS);
	EXPECT_EQ(NCALLS, pcore_stat("__x64_sys_getresuid", "count"));
	EXPECT_EQ(2 * NCALLS, pcore_stat("__x64_sys_getresgid", "count"));
	EXPECT_GT(1000000, pcore_stat("__x64_sys_getresuid", "p50"));
	ASSERT_EQ(0, pcore_unload());
}

TEST_HARNESS_MAIN
