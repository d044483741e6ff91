// SPDX-License-Identifier: GPL-2.0
/*
 * Glob targets: target=pcore_globt_* (and probectl attach with a glob)
 * put one probe on every function of the test module pcore_globt that
 * ftrace can trace and kprobes accept, with a histogram per function:
 * exact counts per function, timings, the functions skipped named in one
 * log line, detach with the probe.  target=vfs_* on the kernel's own
 * functions.  Globs that match nothing, too much, or take a suffix they
 * cannot are refused, leaving nothing behind.
 */
#include "pcore_ioctl.h"
#include "kselftest_harness.h"

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
	ASSERT_EQ(0, pcore_load("target=pcore_globt_*"));
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

	ASSERT_EQ(0, pcore_load("target=vfs_*"));
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

TEST_HARNESS_MAIN
