// SPDX-License-Identifier: GPL-2.0
/*
 * probectl end to end, in the guest: every subcommand against the real
 * module and /dev/probe_core, its JSON checked with jq (in the payload),
 * its Prometheus export printed between markers for promtool on the host
 * (scripts/check.sh).  Forks are made by this program, so counts are
 * exact in the quiet VM.  Sleeps are made by children named for the test,
 * and the probes count only theirs (--comm): their counts are exact too.
 * The heatmap's SVG goes to the log between markers as well: check.sh
 * opens it in Chromium and keeps a PNG of it.
 */
#include "pcore_lib.h"
#include <grp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include "kselftest_harness.h"

#define PCORE_CTL	"/pcore/bin/probectl"
#define NFORKS		30	/* counts are exact whatever their size */
#define OUT		"/tmp/probectl.out"

static char out[PCORE_BUF];

/* Runs @argv with stdout and stderr in OUT, read into out[]. */
static int runv(const char * const *argv)
{
	return pcore_run(argv, NULL, OUT, out, sizeof(out));
}

#define CTL(...)	runv((const char * const []){ PCORE_CTL, __VA_ARGS__, NULL })

/* out[] into @file, for jq. */
static int keep(const char *file)
{
	FILE *f = fopen(file, "w");
	int ret;

	if (!f)
		return -1;
	ret = fputs(out, f) < 0;
	return fclose(f) || ret ? -1 : 0;
}

/* The number jq prints for @filter on @file (jq -s with @slurp), or -1. */
static long long jq_num(const char *file, const char *filter, bool slurp)
{
	if (runv((const char * const []){ "/pcore/bin/jq", slurp ? "-se" : "-e",
					  filter, file, NULL }))
		return -1;
	return strtoll(out, NULL, 10);
}

static void unload_all(void)
{
	static const char * const mods[] = { "cpuhists", "probe_core" };

	pcore_mods_unload(mods, ARRAY_SIZE(mods));
}

FIXTURE(ctl) {
	pid_t watch;	/* a probectl watch (or a child) to stop, or 0 */
	pid_t heat;	/* a probectl heatmap to stop, or 0 */
};

FIXTURE_SETUP(ctl)
{
	self->watch = 0;
	self->heat = 0;
	unload_all();
	ASSERT_FALSE(pcore_loaded());
}

FIXTURE_TEARDOWN(ctl)
{
	/* A test that failed early left it running, holding the device. */
	if (self->watch > 0) {
		kill(self->watch, SIGKILL);
		waitpid(self->watch, NULL, 0);
	}
	if (self->heat > 0) {
		kill(self->heat, SIGKILL);
		waitpid(self->heat, NULL, 0);
	}
	unload_all();
	EXPECT_FALSE(pcore_loaded());
}

/* Without the module, every command says so in words and exits 1. */
TEST_F_TIMEOUT(ctl, not_loaded, PCORE_TIMEOUT_PATCHING)
{
	EXPECT_EQ(1, CTL("status"));
	EXPECT_NE(NULL, strstr(out, "module: not loaded")) TH_LOG("%s", out);
	EXPECT_EQ(1, CTL("list"));
	EXPECT_NE(NULL, strstr(out, "probe_core is not loaded")) TH_LOG("%s", out);
	EXPECT_EQ(1, CTL("show", "do_fork"));
	EXPECT_EQ(1, CTL("unload"));
	EXPECT_NE(NULL, strstr(out, "not loaded")) TH_LOG("%s", out);
	/* usage errors are 2, whatever the module */
	EXPECT_EQ(2, CTL("show"));
	EXPECT_EQ(2, CTL("watch", "do_fork", "-i", "-1"));
	EXPECT_EQ(2, CTL("frobnicate"));
	EXPECT_EQ(0, CTL("--help"));
	EXPECT_NE(NULL, strstr(out, "Examples:"));
}

/* From a build tree (--module) and installed (libkmod finds it). */
TEST_F_TIMEOUT(ctl, load_status_unload, PCORE_TIMEOUT_PATCHING)
{
	ASSERT_EQ(0, CTL("load", "--module", "/pcore/modules/probe_core.ko",
			 "--target", "do_fork")) TH_LOG("%s", out);
	ASSERT_TRUE(pcore_loaded());
	EXPECT_EQ(0, CTL("status"));
	EXPECT_NE(NULL, strstr(out, "module: loaded")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "0.2.0")) TH_LOG("%s", out);
	EXPECT_EQ(0, CTL("unload")) TH_LOG("%s", out);
	EXPECT_FALSE(pcore_loaded());

	ASSERT_EQ(0, CTL("load", "--target", "do_fork", "--tracepoints",
			 "sched_switch")) TH_LOG("%s", out);
	EXPECT_EQ(0, CTL("list"));
	EXPECT_NE(NULL, strstr(out, "do_fork")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "sched_switch")) TH_LOG("%s", out);
	EXPECT_EQ(0, CTL("unload"));
	/* a bad parameter: one line, probe_core's own from the kernel log */
	EXPECT_EQ(1, CTL("load", "--target", "pcore_no_such_function"));
	EXPECT_EQ(0, strncmp(out, "probectl: probe_core refused 'target=pcore_no_such_function': ", 62)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, " pcore_no_such_function: no such kernel function\n")) TH_LOG("%s", out);
	EXPECT_EQ(strlen(out) - 1, strcspn(out, "\n")) TH_LOG("%s", out);
	EXPECT_FALSE(pcore_loaded());
}

/* show: text with bars, JSON that jq reads with exact counts, CSV. */
TEST_F_TIMEOUT(ctl, show, PCORE_TIMEOUT_PATCHING)
{
	unsigned long long f0 = pcore_nr_forks();
	long long c;

	ASSERT_EQ(0, pcore_load("target=do_fork"));
	ASSERT_EQ(0, pcore_forks(NFORKS));
	/* probectl's own fork is counted before it reads: one more */
	ASSERT_EQ(0, CTL("show", "do_fork", "--json"));
	ASSERT_EQ(0, keep("/tmp/show.json"));
	c = jq_num("/tmp/show.json", ".total.count", false);
	EXPECT_FORKS(NFORKS + 1, c, f0);
	EXPECT_EQ(c, jq_num("/tmp/show.json",
			    "[.total.buckets[].count] | add", false));
	EXPECT_EQ(1, jq_num("/tmp/show.json",
			    "if .total.min <= .total.p50 and .total.p50 <= .total.p99 and .total.p99 <= .total.max then 1 else 0 end",
			    false));

	ASSERT_EQ(0, CTL("show", "do_fork"));
	EXPECT_NE(NULL, strstr(out, "p99: ")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "percentile_error: ")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "|@")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "missed: ")) TH_LOG("%s", out);

	ASSERT_EQ(0, CTL("show", "do_fork", "--csv"));
	EXPECT_NE(NULL, strchr(out, ',')) TH_LOG("%s", out);

	/* per CPU: the sections add up to the total */
	ASSERT_EQ(0, CTL("show", "do_fork", "--percpu", "--json"));
	ASSERT_EQ(0, keep("/tmp/pc.json"));
	EXPECT_EQ(1, jq_num("/tmp/pc.json",
			    "if ([.cpus[].count] | add) == .total.count then 1 else 0 end",
			    false)) TH_LOG("%s", out);

	EXPECT_EQ(1, CTL("show", "no_such_probe"));
	EXPECT_NE(NULL, strstr(out, "no_such_probe")) TH_LOG("%s", out);
}

/* The number of lines in @file (0 when it cannot be read). */
static int lines_in(const char *file)
{
	static char text[PCORE_BUF];
	const char *p;
	int n = 0;

	if (pcore_read(file, text, sizeof(text)) < 0)
		return 0;
	for (p = text; (p = strchr(p, '\n')); p++)
		n++;
	return n;
}

/*
 * Waits until @file has more than @n lines while @pid runs; returns how
 * many it has, or -1 when @pid ended first.
 */
static int wait_lines(const char *file, int n, pid_t pid)
{
	int got, st;

	while ((got = lines_in(file)) <= n) {
		if (waitpid(pid, &st, WNOHANG))
			return -1;
		usleep(10000);
	}
	return got;
}

/*
 * watch: each interval is a snapshot-and-reset, so its lines add up to
 * exactly the forks made while it ran.  The test waits for what it needs,
 * not for a time: the watch runs (no -n) until one interval has closed
 * before the forks and one after them, so all of them are inside, however
 * slowly the kernel forks; then it is stopped.  Its lines 2..last hold the
 * forks between the snapshot that printed line 1 and the one that printed
 * the last line: at least those the kernel made (/proc/stat processes)
 * after we saw line 1 and before we waited for the last, at most those
 * after the watch started and after we saw the last.  In the quiet VM
 * both are our 2 * NFORKS, exactly.
 *
 * "After them" takes two new lines: the first line to appear after our
 * forks may come from a snapshot taken during them (the watch takes it,
 * we count the lines, it prints), but the watch takes the next snapshot
 * only after printing that line, so after our forks.
 */
TEST_F_TIMEOUT(ctl, watch_adds_up, PCORE_TIMEOUT_PATCHING)
{
	unsigned long long pa, pb, pc, pd;
	long long sum;
	char filter[64];
	int st, fd, last;
	pid_t w;

	ASSERT_EQ(0, pcore_load("target=do_fork"));
	unlink("/tmp/w.json");
	w = fork();
	ASSERT_LE(0, w);
	if (!w) {
		fd = open("/tmp/w.json", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(126);
		execl(PCORE_CTL, "probectl", "watch", "do_fork", "-i", "1",
		      "--json", (char *)NULL);
		_exit(127);
	}
	self->watch = w;
	/* Our fork of the watch returned: it is counted, before line 1. */
	pa = pcore_nr_forks();
	ASSERT_LT(0, wait_lines("/tmp/w.json", 0, w));
	pb = pcore_nr_forks();
	ASSERT_EQ(0, pcore_forks(NFORKS));
	ASSERT_EQ(0, pcore_forks(NFORKS));
	pc = pcore_nr_forks();
	/* An interval that closes after our last fork: it holds it. */
	last = wait_lines("/tmp/w.json", lines_in("/tmp/w.json") + 1, w);
	pd = pcore_nr_forks();
	ASSERT_LT(2, last);
	/* Still watching: it did not stop on an error of its own. */
	ASSERT_EQ(0, waitpid(w, &st, WNOHANG));
	ASSERT_EQ(0, kill(w, SIGTERM));
	ASSERT_EQ(w, waitpid(w, &st, 0));
	self->watch = 0;
	ASSERT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM);

	ASSERT_NE(-1ULL, pa);
	ASSERT_NE(-1ULL, pd);
	EXPECT_LE(2 * NFORKS, pc - pb);
	EXPECT_LE(last, jq_num("/tmp/w.json", "length", true));
	snprintf(filter, sizeof(filter), ".[1:%d] | map(.count) | add", last);
	sum = jq_num("/tmp/w.json", filter, true);
	ASSERT_LE(0, sum);
	TH_LOG("%d intervals, %lld forks", last - 1, sum);
	EXPECT_LE(pc - pb, sum) TH_LOG("kernel forks %llu..%llu", pc - pb, pd - pa);
	EXPECT_GE(pd - pa, sum) TH_LOG("kernel forks %llu..%llu", pc - pb, pd - pa);
}

/* attach, disable, enable, reset, detach: exact counts around each. */
TEST_F_TIMEOUT(ctl, attach_enable_reset_detach, PCORE_TIMEOUT_PATCHING)
{
	unsigned long long c0, c1, f0, f1;
	struct pcore_probe_line l;
	int i;

	ASSERT_EQ(0, pcore_load(""));
	f0 = pcore_nr_forks();
	ASSERT_EQ(0, CTL("attach", "--kretprobe", "do_fork", "--hist", "log2"))
		TH_LOG("%s", out);
	EXPECT_EQ(0, access(PCORE_DBG "/do_fork/hist", F_OK));
	ASSERT_EQ(0, pcore_forks(NFORKS));
	c0 = pcore_stat("do_fork", "count");
	EXPECT_FORKS(NFORKS, c0, f0);

	/*
	 * Each probectl run forks before it acts: disable counts its own,
	 * and nothing after it (the kernel's own forks, if any, bound it).
	 */
	f0 = pcore_nr_forks();
	ASSERT_EQ(0, CTL("disable", "do_fork"));
	f1 = pcore_nr_forks();
	ASSERT_EQ(0, pcore_forks(NFORKS));
	c1 = pcore_stat("do_fork", "count");
	EXPECT_LE(c0 + 1, c1);
	EXPECT_GE(c0 + f1 - f0, c1);
	ASSERT_EQ(0, CTL("list"));
	EXPECT_NE(NULL, strstr(out, "disabled")) TH_LOG("%s", out);
	EXPECT_EQ(c1, pcore_stat("do_fork", "count"));
	f0 = pcore_nr_forks();
	ASSERT_EQ(0, CTL("enable", "do_fork"));
	ASSERT_EQ(0, pcore_forks(NFORKS));
	EXPECT_FORKS(NFORKS, pcore_stat("do_fork", "count") - c1, f0);

	ASSERT_EQ(0, CTL("reset", "do_fork"));
	EXPECT_EQ(0, pcore_stat("do_fork", "count"));
	ASSERT_EQ(0, CTL("detach", "do_fork"));
	EXPECT_NE(0, access(PCORE_DBG "/do_fork", F_OK));
	EXPECT_EQ(1, CTL("detach", "do_fork"));
	EXPECT_EQ(1, CTL("attach", "--kretprobe", "pcore_no_such_function"));
	EXPECT_EQ(0, CTL("attach", "--tracepoint", "sched_switch"));
	EXPECT_EQ(0, access(PCORE_DBG "/sched_switch/hist", F_OK));
	/*
	 * The tracepoint again under a name of its own, beside it: both
	 * count the switches of 40 sleeps of 1 ms (two each, away and
	 * back; 20 at least); detach by the name leaves the first.
	 */
	ASSERT_EQ(0, CTL("attach", "--tracepoint", "sched_switch", "--name",
			 "sw")) TH_LOG("%s", out);
	ASSERT_EQ(0, pcore_probe_line("sw", &l));
	EXPECT_STREQ("tracepoint", l.kind);
	EXPECT_STREQ("sched_switch", l.symbol);
	c0 = pcore_stat("sched_switch", "count");
	c1 = pcore_stat("sw", "count");
	for (i = 0; i < 40; i++)
		usleep(1000);
	EXPECT_LE(c0 + 20, pcore_stat("sched_switch", "count"));
	EXPECT_LE(c1 + 20, pcore_stat("sw", "count"));
	ASSERT_EQ(0, CTL("detach", "sw")) TH_LOG("%s", out);
	EXPECT_NE(0, access(PCORE_DBG "/sw", F_OK));
	EXPECT_NE(0, pcore_probe_line("sw", &l));
	EXPECT_EQ(0, access(PCORE_DBG "/sched_switch/hist", F_OK));

	/* A counting kprobe and an argument's histogram, by target='s names. */
	f0 = pcore_nr_forks();
	ASSERT_EQ(0, CTL("attach", "--kprobe", "do_fork", "--count")) TH_LOG("%s", out);
	ASSERT_EQ(0, pcore_forks(NFORKS));
	EXPECT_FORKS(NFORKS, pcore_stat("do_fork:count", "count"), f0);
	ASSERT_EQ(0, CTL("attach", "--kprobe", "vfs_read", "--arg", "3", "--unit",
			 "bytes")) TH_LOG("%s", out);
	ASSERT_LT(0, pcore_read(PCORE_DBG "/vfs_read:arg3:bytes/stats", out,
				sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "\nkind: log2\n")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\nunit: bytes\n")) TH_LOG("%s", out);
	ASSERT_EQ(0, CTL("show", "do_fork:count")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "kind: count")) TH_LOG("%s", out);
	ASSERT_EQ(0, CTL("detach", "do_fork:count"));
	EXPECT_NE(0, access(PCORE_DBG "/do_fork:count", F_OK));
	EXPECT_EQ(2, CTL("attach", "--kprobe", "do_fork", "--arg", "9"));
}

/* The histograms `probectl list --json` says @probe feeds, or -1. */
static long long probe_hists(const char *probe)
{
	char filter[200];

	if (CTL("list", "--json") || keep("/tmp/list.json"))
		return -1;
	snprintf(filter, sizeof(filter),
		 "[.[] | select(.probe == \"%s\")] | length", probe);
	return jq_num("/tmp/list.json", filter, false);
}

/*
 * The user guide's Globs sequence as written: `probectl attach
 * --kretprobe 'vfs_*'`, `--kprobe 'vfs_*' --count`, `probectl detach
 * 'vfs_*'`.  list names the probe on each of its histograms (a column and
 * a JSON member), and detach by the glob the user typed removes every
 * one, for the counting glob too (whose probe is 'vfs_*:count').
 */
TEST_F_TIMEOUT(ctl, glob_list_detach, PCORE_TIMEOUT_PATCHING)
{
	double t0 = pcore_now();
	long long n, nc;

	ASSERT_EQ(0, pcore_load(""));
	ASSERT_EQ(0, CTL("attach", "--kretprobe", "vfs_*")) TH_LOG("%s", out);
	n = probe_hists("vfs_*");
	EXPECT_LT(1, n) TH_LOG("%s", out);
	EXPECT_EQ(0, access(PCORE_DBG "/vfs_read/hist", F_OK));
	ASSERT_EQ(0, CTL("list"));
	EXPECT_NE(NULL, strstr(out, " probe\n")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, " vfs_*\n")) TH_LOG("%s", out);
	ASSERT_EQ(0, CTL("detach", "vfs_*")) TH_LOG("%s", out);
	EXPECT_EQ(0, pcore_hist_dirs());
	EXPECT_EQ(0, probe_hists("vfs_*"));

	ASSERT_EQ(0, CTL("attach", "--kprobe", "vfs_*", "--count"))
		TH_LOG("%s", out);
	nc = probe_hists("vfs_*:count");
	EXPECT_EQ(n, nc);
	EXPECT_EQ(0, access(PCORE_DBG "/vfs_read:count/hist", F_OK));
	ASSERT_EQ(0, CTL("detach", "vfs_*")) TH_LOG("%s", out);
	EXPECT_EQ(0, pcore_hist_dirs());
	EXPECT_EQ(1, CTL("detach", "vfs_*"));
	EXPECT_NE(NULL, strstr(out, "no probe named 'vfs_*' or 'vfs_*:count'"))
		TH_LOG("%s", out);

	/*
	 * Both at once (a glob of two functions, cheaper on the debug
	 * kernel): the name as typed first, then its counting glob.
	 */
	ASSERT_EQ(0, CTL("attach", "--kretprobe", "vfs_fsync*"))
		TH_LOG("%s", out);
	ASSERT_EQ(0, CTL("attach", "--kprobe", "vfs_fsync*", "--count"))
		TH_LOG("%s", out);
	n = pcore_hist_dirs();
	EXPECT_LE(2, n);
	/* A histogram of the glob's: detach names the probe to detach. */
	EXPECT_EQ(1, CTL("detach", "vfs_fsync:count"));
	EXPECT_NE(NULL, strstr(out, "detach 'vfs_fsync*:count'"))
		TH_LOG("%s", out);
	ASSERT_EQ(0, CTL("detach", "vfs_fsync*")) TH_LOG("%s", out);
	EXPECT_EQ(0, probe_hists("vfs_fsync*"));
	EXPECT_EQ(n / 2, probe_hists("vfs_fsync*:count"));
	ASSERT_EQ(0, CTL("detach", "vfs_fsync*")) TH_LOG("%s", out);
	EXPECT_EQ(0, pcore_hist_dirs());

	/* A retval probe's .errno histogram: list names its probe too. */
	ASSERT_EQ(0, CTL("attach", "--kretprobe", "vfs_read", "--retval"))
		TH_LOG("%s", out);
	EXPECT_EQ(2, probe_hists("vfs_read:retval"));
	ASSERT_EQ(0, CTL("detach", "vfs_read:retval")) TH_LOG("%s", out);
	EXPECT_EQ(0, pcore_hist_dirs());
	TH_LOG("vfs_* matched %lld functions; %.1f s", nc, pcore_now() - t0);
}

#define NA	7	/* forks of child A */
#define NB	12	/* and of child B */

/* A child that waits for a byte on @fd[0], then forks @n times. */
static pid_t forker(int n, int fd[2])
{
	pid_t pid;
	char c;

	if (pipe(fd))
		return -1;
	pid = fork();
	if (!pid) {
		close(fd[1]);
		_exit(read(fd[0], &c, 1) != 1 || pcore_forks(n) ? 1 : 0);
	}
	close(fd[0]);
	return pid;
}

/*
 * --name for every attach: one kernel function with a probe per process
 * (--pid, two of them, named apart) and a --by-pid probe at once, each
 * exact; the --by-pid one read one line a key (show --keys).
 */
TEST_F_TIMEOUT(ctl, name_pid_by_pid, PCORE_TIMEOUT_PATCHING)
{
	char pa[16], pb[16], filter[200];
	double t0 = pcore_now();
	int fa[2], fb[2];
	pid_t a, b;

	ASSERT_EQ(0, pcore_load(""));
	a = forker(NA, fa);
	ASSERT_LT(0, a);
	b = forker(NB, fb);
	ASSERT_LT(0, b);
	snprintf(pa, sizeof(pa), "%d", a);
	snprintf(pb, sizeof(pb), "%d", b);
	ASSERT_EQ(0, CTL("attach", "--kretprobe", "do_fork", "--pid", pa,
			 "--name", "fork_a")) TH_LOG("%s", out);
	ASSERT_EQ(0, CTL("attach", "--kretprobe", "do_fork", "--pid", pb,
			 "--name", "fork_b")) TH_LOG("%s", out);
	ASSERT_EQ(0, CTL("attach", "--kretprobe", "do_fork", "--by-pid"))
		TH_LOG("%s", out);
	/* the same probe twice is refused, whatever its name */
	EXPECT_EQ(1, CTL("attach", "--kretprobe", "do_fork", "--pid", pa,
			 "--name", "fork_a2"));
	EXPECT_NE(NULL, strstr(out, "refused")) TH_LOG("%s", out);
	ASSERT_EQ(1, write(fa[1], "x", 1));
	ASSERT_EQ(1, write(fb[1], "x", 1));
	close(fa[1]);
	close(fb[1]);
	ASSERT_EQ(0, pcore_wait_ok(2));
	EXPECT_EQ(NA, pcore_stat("fork_a", "count"));
	EXPECT_EQ(NB, pcore_stat("fork_b", "count"));

	ASSERT_EQ(0, CTL("show", "do_fork:by=pid", "--keys")) TH_LOG("%s", out);
	TH_LOG("%s", out);
	EXPECT_EQ(0, strncmp(out, "# pid ", 6)) TH_LOG("%s", out);
	ASSERT_EQ(0, CTL("show", "do_fork:by=pid", "--keys", "--json"));
	ASSERT_EQ(0, keep("/tmp/keys.json"));
	snprintf(filter, sizeof(filter),
		 ".keys[] | select(.key == %d) | .count", a);
	EXPECT_EQ(NA, jq_num("/tmp/keys.json", filter, false));
	snprintf(filter, sizeof(filter),
		 ".keys[] | select(.key == %d) | .count", b);
	EXPECT_EQ(NB, jq_num("/tmp/keys.json", filter, false));
	/* --top 1 --sort count: the busiest process of the two, B */
	ASSERT_EQ(0, CTL("show", "do_fork:by=pid", "--keys", "--json",
			 "--top", "1", "--sort", "count"));
	ASSERT_EQ(0, keep("/tmp/keys1.json"));
	EXPECT_EQ(1, jq_num("/tmp/keys1.json", ".keys | length", false));
	EXPECT_LE(NB, jq_num("/tmp/keys1.json", ".keys[0].count", false));

	ASSERT_EQ(0, CTL("detach", "fork_a"));
	ASSERT_EQ(0, CTL("detach", "fork_b"));
	ASSERT_EQ(0, CTL("detach", "do_fork:by=pid"));
	EXPECT_EQ(0, pcore_hist_dirs());
	TH_LOG("%.1f s", pcore_now() - t0);
}

/*
 * export: Prometheus text on stdout and, atomically, in a textfile
 * directory.  The text goes to the log between markers: check.sh runs
 * promtool on it.
 */
TEST_F_TIMEOUT(ctl, export_prometheus, PCORE_TIMEOUT_PATCHING)
{
	ASSERT_EQ(0, pcore_load("target=do_fork tracepoints=sched_switch"));
	ASSERT_EQ(0, pcore_mod_load("cpuhists", NULL));
	ASSERT_EQ(0, pcore_forks(NFORKS));
	ASSERT_EQ(0, CTL("export", "--prometheus"));
	EXPECT_NE(NULL, strstr(out, "_bucket{")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "le=\"+Inf\"")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "probe=\"do_fork\"")) TH_LOG("%s", out);
	/* flushed now: the harness ends a test with _exit() */
	printf("# PCORE-FILE-BEGIN export.prom\n%s# PCORE-FILE-END\n", out);
	fflush(stdout);

	ASSERT_EQ(0, system("rm -rf /tmp/tf && mkdir /tmp/tf"));
	ASSERT_EQ(0, CTL("export", "--prometheus", "--textfile-dir", "/tmp/tf",
			 "--per-cpu")) TH_LOG("%s", out);
	ASSERT_LT(0, pcore_read("/tmp/tf/probe_core.prom", out, sizeof(out)));
	printf("# PCORE-FILE-BEGIN export-percpu.prom\n%s# PCORE-FILE-END\n", out);
	fflush(stdout);
	EXPECT_NE(NULL, strstr(out, "cpu=\"")) TH_LOG("%s", out);
	/* nothing but the file: the temporary was renamed */
	EXPECT_EQ(0, access("/tmp/tf/probe_core.prom", R_OK));
	ASSERT_EQ(0, runv((const char * const []){ "/bin/ls", "-A", "/tmp/tf", NULL }));
	EXPECT_STREQ("probe_core.prom\n", out);
	EXPECT_EQ(1, CTL("export", "--prometheus", "--textfile-dir", "/nonexistent"));
}

/*
 * The exporter's service, as systemd would run it: its ExecStart (from the
 * unit file check.sh put in the payload) with its TEXTFILE_DIR, the
 * program at /pcore/bin instead of /usr/sbin.
 */
#define UNIT	"/pcore/systemd/probectl-export.service"
#define SVC_MAX	16

struct service {
	char line[512];
	char dir[256];
	const char *argv[SVC_MAX + 1];
	char file[300];
};

/* Reads UNIT into @s; 0, or -1 when it is not what the test expects. */
static int service_read(struct service *s)
{
	static char unit[16384];
	char *p, *tok, *save;
	int n = 0;

	if (pcore_read(UNIT, unit, sizeof(unit)) <= 0)
		return -1;
	p = strstr(unit, "\nEnvironment=TEXTFILE_DIR=");
	if (!p || sscanf(p, "\nEnvironment=TEXTFILE_DIR=%255s", s->dir) != 1)
		return -1;
	p = strstr(unit, "\nExecStart=");
	if (!p || sscanf(p, "\nExecStart=%511[^\n]", s->line) != 1)
		return -1;
	for (tok = strtok_r(s->line, " ", &save); tok && n < SVC_MAX;
	     tok = strtok_r(NULL, " ", &save)) {
		if (!n && strcmp(tok, "/usr/sbin/probectl"))
			return -1;
		s->argv[n] = !n ? PCORE_CTL :
			!strcmp(tok, "${TEXTFILE_DIR}") ? s->dir : tok;
		n++;
	}
	s->argv[n] = NULL;
	snprintf(s->file, sizeof(s->file), "%s/probe_core.prom", s->dir);
	return tok ? -1 : 0;
}

/* The service's run: its exit status; its file (or "") in @text. */
static int service_run(const struct service *s, char *text, size_t len)
{
	int ret = runv(s->argv);

	if (pcore_read(s->file, text, len) < 0)
		text[0] = '\0';
	return ret;
}

/* The value of series @key (name and labels) in Prometheus text, or -1. */
static double prom_get(const char *text, const char *key)
{
	size_t n = strlen(key);
	const char *p;

	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, n) && p[n] == ' ')
			return strtod(p + n + 1, NULL);
	return -1;
}

/*
 * Series of @a (not gauges) lower in @b, or missing there: what Prometheus
 * would take for a counter reset.  Logs the first few with @log.
 */
static int prom_decreases(struct __test_metadata *_metadata, const char *a,
			  const char *b, bool log)
{
	char key[512];
	const char *p, *nl, *sp;
	double va, vb;
	int bad = 0, n = 0;

	for (p = a; *p; p = nl ? nl + 1 : p + strlen(p)) {
		nl = strchr(p, '\n');
		if (*p == '#' || p == nl)
			continue;
		sp = nl ? nl : p + strlen(p);
		while (sp > p && sp[-1] != ' ')
			sp--;
		if (sp == p || (size_t)(sp - 1 - p) >= sizeof(key))
			return -1;
		memcpy(key, p, sp - 1 - p);
		key[sp - 1 - p] = '\0';
		n++;
		if (strstr(key, "_created_timestamp_seconds{"))
			continue;
		va = strtod(sp, NULL);
		vb = prom_get(b, key);
		if (vb < va && bad++ < 5 && log)
			TH_LOG("%s: %g, then %g", key, va, vb);
	}
	return n ? bad : -1;
}

/* Keeps @text in the log between markers, for check.sh's promtool. */
static void print_file(const char *name, const char *text)
{
	printf("# PCORE-FILE-BEGIN %s\n%s# PCORE-FILE-END\n", name, text);
	fflush(stdout);
}

/*
 * The exporter's service end to end: its command (from the unit file)
 * exports, then probectl reset, probectl watch and the debugfs interval
 * file move the values of do_fork and of the keyed sys_getppid:by=pid
 * out, more forks and calls come, and it exports again: no series of the
 * first export is lower in the second, and the counts are every fork and
 * call since the load.  probe_core loaded again: the counts start from
 * zero (a drop, which Prometheus takes for a reset) and the creation time
 * is later.  Not loaded: the service fails with a clear line and leaves
 * the file as it was.  The three files go to promtool (check.sh).
 */
TEST_F_TIMEOUT(ctl, export_service, PCORE_TIMEOUT_PATCHING)
{
	static char a[PCORE_BUF], b[PCORE_BUF], c[PCORE_BUF];
	const char *fork_count = "probe_core_latency_seconds_count{probe=\"do_fork\"}";
	const char *ppid_count = "probe_core_latency_seconds_count{probe=\"sys_getppid:by=pid\"}";
	const char *created = "probe_core_created_timestamp_seconds{probe=\"do_fork\"}";
	unsigned long long f0, f1;
	struct service svc;
	char mk[600];
	int i;

	ASSERT_EQ(0, service_read(&svc)) TH_LOG("%s: no ExecStart of /usr/sbin/probectl with TEXTFILE_DIR", UNIT);
	TH_LOG("the service runs: %s ... --textfile-dir %s", svc.argv[0], svc.dir);
	snprintf(mk, sizeof(mk), "rm -rf %s && mkdir -p %s", svc.dir, svc.dir);
	ASSERT_EQ(0, system(mk));
	ASSERT_EQ(0, pcore_load("target=do_fork,sys_getppid:by=pid"));
	ASSERT_EQ(0, pcore_forks(NFORKS));
	for (i = 0; i < NFORKS; i++)
		syscall(SYS_getppid);
	ASSERT_EQ(0, service_run(&svc, a, sizeof(a))) TH_LOG("%s", out);
	f0 = pcore_nr_forks();
	EXPECT_LE(NFORKS, prom_get(a, fork_count)) TH_LOG("%s", a);
	EXPECT_EQ(NFORKS, prom_get(a, ppid_count)) TH_LOG("%s", a);

	/* Everything moved out, by every way there is. */
	ASSERT_EQ(0, CTL("reset", "do_fork")) TH_LOG("%s", out);
	ASSERT_EQ(0, CTL("reset", "sys_getppid:by=pid")) TH_LOG("%s", out);
	ASSERT_EQ(0, pcore_forks(NFORKS));
	for (i = 0; i < NFORKS; i++)
		syscall(SYS_getppid);
	ASSERT_EQ(0, CTL("watch", "do_fork", "-i", "1", "-n", "1")) TH_LOG("%s", out);
	ASSERT_LT(0, pcore_read(PCORE_DBG "/sys_getppid:by=pid/interval", out,
				sizeof(out)));
	ASSERT_EQ(0, pcore_forks(NFORKS));
	for (i = 0; i < NFORKS; i++)
		syscall(SYS_getppid);
	/* what is left to read since the last interval: the last forks */
	ASSERT_EQ(0, CTL("show", "do_fork", "--json"));
	ASSERT_EQ(0, keep("/tmp/left.json"));
	EXPECT_GT(2 * NFORKS, jq_num("/tmp/left.json", ".total.count", false));
	f1 = pcore_nr_forks();

	ASSERT_EQ(0, service_run(&svc, b, sizeof(b))) TH_LOG("%s", out);
	EXPECT_EQ(0, prom_decreases(_metadata, a, b, true));
	/* our 2 * NFORKS, and at most every fork the kernel made between */
	EXPECT_LE(prom_get(a, fork_count) + 2 * NFORKS, prom_get(b, fork_count));
	EXPECT_GE(prom_get(a, fork_count) + (f1 - f0) + 1, prom_get(b, fork_count))
		TH_LOG("%llu forks between the exports", f1 - f0);
	EXPECT_EQ(3 * NFORKS, prom_get(b, ppid_count)) TH_LOG("%s", b);
	EXPECT_EQ(prom_get(a, created), prom_get(b, created));
	print_file("export-service-a.prom", a);
	print_file("export-service-b.prom", b);

	/* Loaded again: from zero, created later. */
	ASSERT_EQ(0, CTL("unload")) TH_LOG("%s", out);
	ASSERT_EQ(0, pcore_load("target=do_fork,sys_getppid:by=pid"));
	ASSERT_EQ(0, pcore_forks(10));
	ASSERT_EQ(0, service_run(&svc, c, sizeof(c))) TH_LOG("%s", out);
	EXPECT_LE(10, prom_get(c, fork_count));
	EXPECT_GT(prom_get(b, fork_count), prom_get(c, fork_count));
	EXPECT_EQ(0, prom_get(c, ppid_count));
	EXPECT_LT(prom_get(b, created), prom_get(c, created));
	EXPECT_LT(0, prom_decreases(_metadata, b, c, false));
	print_file("export-service-c.prom", c);

	/* Not loaded: a clear error, and the file as it was. */
	ASSERT_EQ(0, CTL("unload")) TH_LOG("%s", out);
	EXPECT_EQ(1, runv(svc.argv));
	EXPECT_NE(NULL, strstr(out, "probe_core is not loaded")) TH_LOG("%s", out);
	ASSERT_LT(0, pcore_read(svc.file, b, sizeof(b)));
	EXPECT_STREQ(c, b);
	ASSERT_EQ(0, runv((const char * const []){ "/bin/ls", "-A", svc.dir, NULL }));
	EXPECT_STREQ("probe_core.prom\n", out);
}

/* probe_core in use by a handler module: unload says by whom. */
TEST_F_TIMEOUT(ctl, unload_in_use, PCORE_TIMEOUT_PATCHING)
{
	ASSERT_EQ(0, pcore_load(""));
	ASSERT_EQ(0, pcore_mod_load("cpuhists", NULL));
	EXPECT_EQ(1, CTL("unload"));
	EXPECT_NE(NULL, strstr(out, "in use by: cpuhists")) TH_LOG("%s", out);
	/* One line, probectl's: none of libkmod's own log. */
	EXPECT_EQ(NULL, strstr(out, "libkmod")) TH_LOG("%s", out);
	EXPECT_EQ(strlen(out) - 1, strcspn(out, "\n")) TH_LOG("%s", out);
	EXPECT_TRUE(pcore_loaded());
	ASSERT_EQ(0, CTL("show", "cpuhists/oncpu", "--percpu"));
	EXPECT_NE(NULL, strstr(out, "cpu 0")) TH_LOG("%s", out);
}

/* probectl show do_fork as nobody, its output in OUT; 126, 127: not run. */
static int show_as_nobody(int k, void *unused)
{
	int fd = open(OUT, O_WRONLY | O_CREAT | O_TRUNC, 0666);

	if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 ||
	    setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		return 126;
	execl(PCORE_CTL, "probectl", "show", "do_fork", (char *)NULL);
	return 127;
}

/* Not root: refused, in words. */
TEST_F_TIMEOUT(ctl, not_root, PCORE_TIMEOUT_PATCHING)
{
	pid_t pid;
	int st;

	ASSERT_EQ(0, pcore_load("target=do_fork"));
	pid = pcore_spawn(show_as_nobody, NULL);
	ASSERT_LE(0, pid);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	EXPECT_EQ(1, WEXITSTATUS(st));
	ASSERT_LE(0, pcore_read(OUT, out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, "run as root")) TH_LOG("%s", out);
}

/* ---- merged rows and heatmaps, of sleeps of known lengths ---- */

#define SLEEP_FN	"hrtimer_nanosleep"	/* nanosleep, clock_nanosleep */

static unsigned long long now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000ULL + t.tv_nsec / 1000;
}

static void sleep_us(unsigned long long us)
{
	struct timespec t = { .tv_sec = us / 1000000,
			      .tv_nsec = us % 1000000 * 1000 };

	nanosleep(&t, NULL);
}

/* The rows "[lo, hi) count |...|" of @text, one a line, into @rows. */
static int hist_lines(const char *text, char rows[][128], int max)
{
	const char *p = text, *nl;
	int n = 0;

	for (; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		if (*p == '[' && nl - p < 128 && n < max) {
			memcpy(rows[n], p, nl - p);
			rows[n++][nl - p] = '\0';
		}
	}
	return n;
}

static char merged[64][128], full[1024][128], shown[1024][128];

/*
 * hist merges adjacent buckets into at most 40 rows of exact bounds, and
 * probectl show prints the same rows from the same engine code; hist_full
 * and show --full have every bucket.  Sleeps from 50 us to 30 ms span
 * well over 40 loglinear buckets.
 */
TEST_F_TIMEOUT(ctl, hist_merged_like_probectl, PCORE_TIMEOUT_PATCHING)
{
	unsigned long long lo, hi, n, lo2, hi2, n2, sum, d, count;
	int nm, nf, ns, i, j, k, st;
	pid_t pid;

	ASSERT_EQ(0, pcore_load(""));
	ASSERT_EQ(0, CTL("attach", "--kretprobe", SLEEP_FN, "--comm",
			 "pcore_hist")) TH_LOG("%s", out);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		prctl(PR_SET_NAME, "pcore_hist");
		for (k = 0; k < 3; k++)
			for (d = 50, i = 0; i < 30; i++, d = d * 5 / 4)
				sleep_us(d);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_EQ(0, st);
	count = pcore_stat(SLEEP_FN, "count");
	ASSERT_EQ(90, count);

	ASSERT_LT(0, pcore_read(PCORE_DBG "/" SLEEP_FN "/hist_full", out,
				sizeof(out)));
	nf = hist_lines(out, full, 1024);
	ASSERT_LT(40, nf) TH_LOG("%s", out);
	ASSERT_LT(0, pcore_read(PCORE_DBG "/" SLEEP_FN "/hist", out,
				sizeof(out)));
	nm = hist_lines(out, merged, 64);
	ASSERT_LE(nm, 40) TH_LOG("%s", out);
	ASSERT_LT(1, nm) TH_LOG("%s", out);
	/* each row: the buckets between its bounds, none across them */
	for (sum = 0, i = 0; i < nm; i++) {
		/* times as a person reads them: the same bound, the same text */
		k = pcore_parse_row(merged[i], &lo, &hi, &n);
		ASSERT_EQ(0, k) TH_LOG("%s", merged[i]);
		/* 50 us to 30 ms sleeps: bounds in us and ms, not 51200ns */
		EXPECT_TRUE(strstr(merged[i], " us,") || strstr(merged[i], " ms,"))
			TH_LOG("%s", merged[i]);
		for (d = 0, j = 0; j < nf; j++) {
			k = pcore_parse_row(full[j], &lo2, &hi2, &n2);
			ASSERT_EQ(0, k) TH_LOG("%s", full[j]);
			if (lo2 >= lo && hi2 <= hi)
				d += n2;
			else
				EXPECT_TRUE(hi2 <= lo || lo2 >= hi)
					TH_LOG("%s across %s", full[j], merged[i]);
		}
		EXPECT_EQ(n, d) TH_LOG("%s", merged[i]);
		sum += n;
	}
	EXPECT_EQ(count, sum);

	/* probectl: the same rows, merged and full */
	ASSERT_EQ(0, CTL("show", SLEEP_FN)) TH_LOG("%s", out);
	ns = hist_lines(out, shown, 1024);
	ASSERT_EQ(nm, ns) TH_LOG("%s", out);
	for (i = 0; i < nm; i++)
		EXPECT_STREQ(merged[i], shown[i]);
	ASSERT_EQ(0, CTL("show", SLEEP_FN, "--full")) TH_LOG("%s", out);
	ns = hist_lines(out, shown, 1024);
	ASSERT_EQ(nf, ns);
	for (i = 0; i < nf; i++)
		EXPECT_STREQ(full[i], shown[i]);
	EXPECT_EQ(2, CTL("show", SLEEP_FN, "--full", "--json"));
}

#define HEAT_COLS	40
#define HEAT_SVG	"/tmp/heat.svg"
#define HEAT_TXT	"/tmp/heat.txt"

/* The child and the test, through shared memory (__atomic_*_n). */
struct heat_shared {
	int go;
	int stop;
	unsigned long long made;
};

#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define STORE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)

/*
 * Sleeps, named pcore_heat: one to start, then, once told to go, until
 * told to stop: seven in eight of 100 to 600 us, rising over 5 s and
 * again, one in eight of 2, 4 or 6 ms, the next every 3 s.  Each sleep
 * is counted when it has returned (its kretprobe has fired).
 */
static void heat_child(struct heat_shared *sh)
{
	unsigned long long t0, ms, i, end = now_us() + 120000000ULL;

	prctl(PR_SET_NAME, "pcore_heat");
	sleep_us(1000);
	while (!LOAD(sh->go))
		if (sched_yield() || now_us() > end)
			_exit(1);
	t0 = now_us();
	for (i = 0; !LOAD(sh->stop) && now_us() < end; i++) {
		ms = (now_us() - t0) / 1000;
		if (i % 8 == 7)
			sleep_us(2000 * (1 + ms / 3000 % 3));
		else
			sleep_us(100 + ms % 5000 / 10);
		STORE(sh->made, LOAD(sh->made) + 1);
	}
	_exit(0);
}

/* Sum of data-n of the <rect class="CLS"> of column @col (-1: all). */
static long long svg_sum(const char *svg, const char *cls, int col)
{
	unsigned long long sum = 0, n;
	const char *p, *q;
	char want[32];
	int c;

	snprintf(want, sizeof(want), "<rect class=\"%s\"", cls);
	for (p = svg; (p = strstr(p, want)); p++) {
		q = strstr(p, "data-col=\"");
		if (!q || sscanf(q, "data-col=\"%d\"", &c) != 1)
			return -1;
		q = strstr(p, "data-n=\"");
		if (!q || sscanf(q, "data-n=\"%llu\"", &n) != 1)
			return -1;
		if (col < 0 || c == col)
			sum += n;
	}
	return sum;
}

/*
 * heatmap on a real probe: 40 intervals of 0.25 s of the sleeps above.
 * Every column has values, each column's cells add up to its total, and
 * all columns and what stays in the histogram after the last one add up
 * to the sleeps made after the first snapshot-and-reset, exactly: the
 * child starts only once the heatmap has moved its first sleep out.
 */
TEST_F_TIMEOUT(ctl, heatmap_adds_up, PCORE_TIMEOUT_PATCHING)
{
	struct heat_shared *sh;
	long long cells, cols, left;
	unsigned long long t, made;
	pid_t child, heat;
	char *svg, want[64];
	int st, fd, j;
	ssize_t len;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	ASSERT_EQ(0, pcore_load(""));
	ASSERT_EQ(0, CTL("attach", "--kretprobe", SLEEP_FN, "--comm",
			 "pcore_heat")) TH_LOG("%s", out);
	child = fork();
	ASSERT_LE(0, child);
	if (!child)
		heat_child(sh);
	self->watch = child;
	for (t = now_us(); pcore_stat(SLEEP_FN, "count") != 1; usleep(10000))
		ASSERT_GT(t + 60000000ULL, now_us()) TH_LOG("no first sleep");
	unlink(HEAT_SVG);
	heat = fork();
	ASSERT_LE(0, heat);
	if (!heat) {
		fd = open(HEAT_TXT, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execl(PCORE_CTL, "probectl", "heatmap", SLEEP_FN, "-i", "0.25",
		      "-n", "40", "--svg", HEAT_SVG, "--title",
		      "Sleeps of 0.1 to 0.6 ms and 2 to 6 ms (hrtimer_nanosleep, QEMU TCG guest)",
		      (char *)NULL);
		_exit(127);
	}
	self->heat = heat;
	/* its first snapshot-and-reset moves the first sleep out */
	for (t = now_us(); pcore_stat(SLEEP_FN, "count"); usleep(1000)) {
		ASSERT_GT(t + 60000000ULL, now_us()) TH_LOG("no first reset");
		ASSERT_EQ(0, waitpid(heat, &st, WNOHANG));
	}
	STORE(sh->go, 1);
	ASSERT_EQ(heat, waitpid(heat, &st, 0));
	self->heat = 0;
	STORE(sh->stop, 1);
	EXPECT_EQ(0, st) TH_LOG("probectl heatmap: status %#x", st);
	ASSERT_EQ(child, waitpid(child, &st, 0));
	self->watch = 0;
	ASSERT_EQ(0, st);
	ASSERT_LT(0, pcore_read(HEAT_TXT, out, sizeof(out)));
	made = LOAD(sh->made);
	TH_LOG("%llu sleeps\n%s", made, out);

	left = pcore_stat(SLEEP_FN, "count");
	svg = malloc(8 << 20);
	ASSERT_NE(NULL, svg);
	len = pcore_read(HEAT_SVG, svg, 8 << 20);
	ASSERT_LT(0, len);
	cells = svg_sum(svg, "c", -1);
	cols = svg_sum(svg, "t", -1);
	EXPECT_EQ(cols, cells);
	for (j = 0; j < HEAT_COLS; j++) {
		EXPECT_LT(0, svg_sum(svg, "t", j)) TH_LOG("column %d", j);
		EXPECT_EQ(svg_sum(svg, "t", j), svg_sum(svg, "c", j))
			TH_LOG("column %d", j);
	}
	EXPECT_EQ(0, svg_sum(svg, "t", HEAT_COLS));	/* no 41st */
	EXPECT_EQ((long long)made, cols + left)
		TH_LOG("%lld in the columns, %lld left", cols, left);
	snprintf(want, sizeof(want), "\nvalues: %lld in %d intervals\n", cols,
		 HEAT_COLS);
	EXPECT_NE(NULL, strstr(out, want)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, ": 40 intervals of 0.25 s, newest right\n"))
		TH_LOG("%s", out);
	/* flushed now: the harness ends a test with _exit() */
	printf("# PCORE-FILE-BEGIN heatmap.svg\n%s# PCORE-FILE-END\n", svg);
	fflush(stdout);
	free(svg);
	munmap(sh, sizeof(*sh));

	/* a histogram that is not there; bad arguments */
	EXPECT_EQ(1, CTL("heatmap", "pcore_no_such", "-n", "1"));
	EXPECT_NE(NULL, strstr(out, "no histogram named 'pcore_no_such'"))
		TH_LOG("%s", out);
	EXPECT_EQ(2, CTL("heatmap", SLEEP_FN, "-i", "0"));
	EXPECT_EQ(1, CTL("heatmap", SLEEP_FN, "-n", "1", "-i", "0.01",
			 "--svg", "/nonexistent/h.svg"));
	EXPECT_NE(NULL, strstr(out, "cannot create a file beside /nonexistent/h.svg"))
		TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
