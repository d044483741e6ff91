// SPDX-License-Identifier: GPL-2.0
/*
 * Where a function's time goes: target=F:graph[:GLOB].  The test module
 * pcore_grapht's pcore_grapht_f() calls pcore_grapht_direct() (sleeps
 * 2 ms at least) directly and pcore_grapht_indirect() (1 ms at least)
 * through a pointer, N times; pcore_grapht_other() calls
 * pcore_grapht_direct() M more times from outside F.  The graph has F's
 * N calls, each callee's N calls (not N + M) with its known least time,
 * and N self times, F's time less its callees' exactly (sums are exact);
 * the graph file shows the tree.  Bad input (no such function, a data
 * symbol, a glob matching nothing, a glob or ':by=pid' as F) fails the
 * load with one log line and leaves no kprobe behind.
 */
#include "pcore_ioctl.h"
#include "kselftest_harness.h"

#define GRAPHT		"/sys/kernel/debug/pcore_grapht"
#define F_DBG		PCORE_DBG "/pcore_grapht_f:graph"
#define KPROBES_LIST	"/sys/kernel/debug/kprobes/list"

#define PCORE_CTL	"/pcore/bin/probectl"
#define OUT		"/tmp/pcore_graph.ctl"

static char out[PCORE_BUF];
static char log_[65536];

static int ctl(const char * const *argv)
{
	return pcore_run(argv, NULL, OUT, out, sizeof(out));
}

#define CTL(...)	ctl((const char * const []){ PCORE_CTL, __VA_ARGS__, NULL })

/* One line of a keys file: key label count sum min max mean p50 ... */
struct key_row {
	unsigned long long key, count, sum, min, max, mean, p50;
	char label[64];
};

/* The row labelled @label of the keys file in out[]; false if none. */
static bool key_find(const char *label, struct key_row *r)
{
	const char *p = out;

	while (p && *p) {
		if (*p != '#' &&
		    sscanf(p, "%llu %63s %llu %llu %llu %llu %llu %llu",
			   &r->key, r->label, &r->count, &r->sum, &r->min,
			   &r->max, &r->mean, &r->p50) == 8 &&
		    !strcmp(r->label, label))
			return true;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return false;
}

PCORE_KMOD_FIXTURE(gr, "pcore_grapht", log_)

/*
 * 20 calls of F and 5 of the other caller: F 20, each callee 20 with
 * its least time, self 20 and F's sum the sum of the parts; the graph
 * file is F's line, the callees indented, the self line last.
 */
TEST_F_TIMEOUT(gr, counts_and_times, PCORE_TIMEOUT_PATCHING)
{
	struct key_row f, self_, dir, ind;
	const char *pd, *pi, *ps;

	ASSERT_EQ(0, pcore_load("target=pcore_grapht_f:graph:pcore_grapht_indirect"));
	ASSERT_EQ(0, pcore_write(GRAPHT "/run", "20 5", 4));
	ASSERT_LT(0, pcore_read(F_DBG "/keys", out, sizeof(out)));
	ASSERT_TRUE(key_find("pcore_grapht_f", &f)) TH_LOG("%s", out);
	ASSERT_TRUE(key_find("[self]", &self_)) TH_LOG("%s", out);
	ASSERT_TRUE(key_find("pcore_grapht_direct", &dir)) TH_LOG("%s", out);
	ASSERT_TRUE(key_find("pcore_grapht_indirect", &ind)) TH_LOG("%s", out);
	EXPECT_EQ(0, f.key);
	EXPECT_EQ(1, self_.key);
	EXPECT_EQ(20, f.count);
	EXPECT_EQ(20, self_.count);
	/* 20 from F; the 5 of pcore_grapht_other() are not F's */
	EXPECT_EQ(20, dir.count) TH_LOG("%s", out);
	EXPECT_EQ(20, ind.count) TH_LOG("%s", out);
	/* min is exact: each call slept at least its time */
	EXPECT_LE(2000000ULL, dir.min) TH_LOG("%s", out);
	EXPECT_LE(1000000ULL, ind.min) TH_LOG("%s", out);
	EXPECT_LE(3000000ULL, f.min) TH_LOG("%s", out);
	/* p50 within the loglinear default's error (1/16) of a real call */
	EXPECT_LE(dir.min - dir.min / 16, dir.p50) TH_LOG("%s", out);
	EXPECT_GE(dir.max + dir.max / 16, dir.p50) TH_LOG("%s", out);
	/* self time is the remainder, exactly: sums are exact */
	EXPECT_EQ(f.sum, self_.sum + dir.sum + ind.sum) TH_LOG("%s", out);
	/*
	 * Not bounded above beyond that: under emulation a host stall in
	 * F's own loop is self time of any length.
	 */
	EXPECT_LT(0, self_.sum);

	ASSERT_LT(0, pcore_read(F_DBG "/graph", out, sizeof(out)));
	TH_LOG("the graph file:\n%s", out);
	EXPECT_NE(NULL, strstr(out, "\npcore_grapht_f 20 ")) TH_LOG("%s", out);
	pd = strstr(out, "\n  pcore_grapht_direct 20 ");
	pi = strstr(out, "\n  pcore_grapht_indirect 20 ");
	ps = strstr(out, "\n  [self] 20 ");
	EXPECT_NE(NULL, pd) TH_LOG("%s", out);
	EXPECT_NE(NULL, pi) TH_LOG("%s", out);
	EXPECT_NE(NULL, ps) TH_LOG("%s", out);
	EXPECT_TRUE(pd < ps && pi < ps) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "(1 from the glob)")) TH_LOG("%s", out);
	/* the indirect call's retpoline thunk, named */
	EXPECT_NE(NULL, strstr(out, " (instrumentation or thunk)\n"))
		TH_LOG("%s", out);
	ASSERT_EQ(0, pcore_unload_wait());
}

/*
 * Without the glob, the indirect callee is not one: F's time is its
 * self time and the direct callee's; target= and probectl's --graph
 * (the ioctl's fields) alike; --name names a graph, one per function.
 */
TEST_F_TIMEOUT(gr, direct_only, PCORE_TIMEOUT_PATCHING)
{
	struct key_row f, self_, dir, ind;
	int status, kmsg;
	pid_t child;
	char pid[16];

	ASSERT_EQ(0, pcore_load("target=pcore_grapht_f:graph"));
	ASSERT_EQ(0, pcore_write(GRAPHT "/run", "5 0", 3));
	ASSERT_LT(0, pcore_read(F_DBG "/keys", out, sizeof(out)));
	ASSERT_TRUE(key_find("pcore_grapht_f", &f)) TH_LOG("%s", out);
	ASSERT_TRUE(key_find("[self]", &self_)) TH_LOG("%s", out);
	ASSERT_TRUE(key_find("pcore_grapht_direct", &dir)) TH_LOG("%s", out);
	EXPECT_FALSE(key_find("pcore_grapht_indirect", &ind)) TH_LOG("%s", out);
	EXPECT_EQ(5, f.count);
	EXPECT_EQ(5, dir.count);
	EXPECT_EQ(f.sum, self_.sum + dir.sum) TH_LOG("%s", out);
	EXPECT_LE(5 * 1000000ULL, self_.sum) TH_LOG("%s", out);
	ASSERT_EQ(0, pcore_unload_wait());

	/* the same through the attach ioctl's fields (no glob: what=5) */
	ASSERT_EQ(0, pcore_load(NULL));
	ASSERT_EQ(0, CTL("attach", "--kretprobe", "pcore_grapht_f", "--graph"))
		TH_LOG("%s", out);
	ASSERT_EQ(0, pcore_write(GRAPHT "/run", "3 2", 3));
	ASSERT_LT(0, pcore_read(F_DBG "/keys", out, sizeof(out)));
	ASSERT_TRUE(key_find("pcore_grapht_f", &f)) TH_LOG("%s", out);
	ASSERT_TRUE(key_find("pcore_grapht_direct", &dir)) TH_LOG("%s", out);
	EXPECT_FALSE(key_find("pcore_grapht_indirect", &ind)) TH_LOG("%s", out);
	EXPECT_EQ(3, f.count);
	EXPECT_EQ(3, dir.count);

	/*
	 * A second graph of F is refused, whatever its name: their callees'
	 * return probes would hide each other's calls.  --name names the
	 * one graph: this process's calls only (--pid), not a child's.
	 */
	snprintf(pid, sizeof(pid), "%d", getpid());
	kmsg = kmsg_open();
	ASSERT_LE(0, kmsg);
	EXPECT_EQ(1, CTL("attach", "--kretprobe", "pcore_grapht_f", "--graph",
			 "--name", "mine", "--pid", pid)) TH_LOG("%s", out);
	EXPECT_EQ(1, kmsg_collect(kmsg, log_, sizeof(log_))) TH_LOG("%s", log_);
	EXPECT_NE(NULL, strstr(log_, "attach=mine:graph: pcore_grapht_f has a graph already, pcore_grapht_f:graph: their callees' return probes would hide each other's calls"))
		TH_LOG("%s", log_);
	close(kmsg);
	ASSERT_EQ(0, CTL("detach", "pcore_grapht_f:graph")) TH_LOG("%s", out);
	ASSERT_EQ(0, CTL("attach", "--kretprobe", "pcore_grapht_f", "--graph",
			 "--name", "mine", "--pid", pid)) TH_LOG("%s", out);
	EXPECT_NE(0, access(F_DBG, F_OK));
	ASSERT_EQ(0, pcore_write(GRAPHT "/run", "3 2", 3));
	child = fork();
	ASSERT_LE(0, child);
	if (!child)
		_exit(pcore_write(GRAPHT "/run", "2 0", 3) ? 1 : 0);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, status);
	ASSERT_LT(0, pcore_read(PCORE_DBG "/mine:graph/keys", out,
				sizeof(out)));
	ASSERT_TRUE(key_find("pcore_grapht_f", &f)) TH_LOG("%s", out);
	ASSERT_TRUE(key_find("[self]", &self_)) TH_LOG("%s", out);
	ASSERT_TRUE(key_find("pcore_grapht_direct", &dir)) TH_LOG("%s", out);
	EXPECT_EQ(3, f.count);
	EXPECT_EQ(3, dir.count);
	EXPECT_EQ(f.sum, self_.sum + dir.sum) TH_LOG("%s", out);
	ASSERT_EQ(0, CTL("show", "mine:graph")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\npcore_grapht_f ")) TH_LOG("%s", out);
	ASSERT_EQ(0, CTL("detach", "mine:graph")) TH_LOG("%s", out);
	ASSERT_EQ(0, pcore_unload_wait());
}

/*
 * probectl attach --kretprobe F --graph=GLOB (the glob goes in the
 * attach ioctl's text form): show prints the tree, F's line first, each
 * callee indented with its calls, the self line last; --json has them
 * as numbers; detach takes F:graph and leaves no kprobe.
 */
TEST_F_TIMEOUT(gr, probectl, PCORE_TIMEOUT_PATCHING)
{
	const char *pf, *pd, *pi, *ps;

	ASSERT_EQ(0, pcore_load(NULL));
	ASSERT_EQ(0, CTL("attach", "--kretprobe", "pcore_grapht_f",
			 "--graph=pcore_grapht_ind*")) TH_LOG("%s", out);
	ASSERT_EQ(0, pcore_write(GRAPHT "/run", "4 3", 3));
	ASSERT_EQ(0, CTL("show", "pcore_grapht_f:graph")) TH_LOG("%s", out);
	TH_LOG("probectl show:\n%s", out);
	pf = strstr(out, "\npcore_grapht_f ");
	pd = strstr(out, "\n  pcore_grapht_direct ");
	pi = strstr(out, "\n  pcore_grapht_indirect ");
	ps = strstr(out, "\n  [self] ");
	ASSERT_NE(NULL, pf) TH_LOG("%s", out);
	ASSERT_NE(NULL, pd) TH_LOG("%s", out);
	ASSERT_NE(NULL, pi) TH_LOG("%s", out);
	ASSERT_NE(NULL, ps) TH_LOG("%s", out);
	EXPECT_TRUE(pf < pd && pd < ps && pi < ps) TH_LOG("%s", out);
	/* calls: 4 each, not 7 for the direct callee */
	EXPECT_EQ(4, strtoul(pd + strlen("\n  pcore_grapht_direct "), NULL, 10))
		TH_LOG("%s", out);
	EXPECT_EQ(4, strtoul(ps + strlen("\n  [self] "), NULL, 10))
		TH_LOG("%s", out);

	ASSERT_EQ(0, CTL("show", "pcore_grapht_f:graph", "--json"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"function\":{\"name\":\"pcore_grapht_f\",\"calls\":4,"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "{\"name\":\"pcore_grapht_direct\",\"calls\":4,"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "{\"name\":\"pcore_grapht_indirect\",\"calls\":4,"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"self\":{\"calls\":4,")) TH_LOG("%s", out);

	ASSERT_EQ(0, CTL("detach", "pcore_grapht_f:graph")) TH_LOG("%s", out);
	if (pcore_read(KPROBES_LIST, out, sizeof(out)) >= 0)
		EXPECT_EQ(NULL, strstr(out, "pcore_grapht")) TH_LOG("%s", out);
	ASSERT_EQ(0, pcore_unload_wait());
}

/*
 * The user guide's question, "where does the time inside vfs_read go?",
 * asked of a kernel function with real callees: 200 reads of a file by
 * this process are at least 200 calls of vfs_read, each through
 * rw_verify_area(), a direct callee; F's sum is its parts' (other tasks'
 * reads count too: only lower bounds).  Prints show's tree.
 */
TEST_F_TIMEOUT(gr, vfs_read, PCORE_TIMEOUT_PATCHING)
{
	const char *p;
	char buf[64];
	int fd, i;

	ASSERT_EQ(0, pcore_load(NULL));
	ASSERT_EQ(0, CTL("attach", "--kretprobe", "vfs_read",
			 "--graph=seq_read*")) TH_LOG("%s", out);
	fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	for (i = 0; i < 200; i++)
		ASSERT_LT(0, pread(fd, buf, sizeof(buf), 0));
	close(fd);
	ASSERT_EQ(0, CTL("show", "vfs_read:graph")) TH_LOG("%s", out);
	TH_LOG("probectl show vfs_read:graph:\n%s", out);
	p = strstr(out, "\nvfs_read ");
	ASSERT_NE(NULL, p) TH_LOG("%s", out);
	EXPECT_LE(200, strtoul(p + strlen("\nvfs_read "), NULL, 10));
	p = strstr(out, "\n  rw_verify_area ");
	ASSERT_NE(NULL, p) TH_LOG("%s", out);
	EXPECT_LE(200, strtoul(p + strlen("\n  rw_verify_area "), NULL, 10));
	EXPECT_NE(NULL, strstr(out, "\n  [self] ")) TH_LOG("%s", out);
	ASSERT_EQ(0, CTL("show", "vfs_read:graph", "--json")) TH_LOG("%s", out);
	TH_LOG("--json: %s", out);
	ASSERT_EQ(0, CTL("detach", "vfs_read:graph")) TH_LOG("%s", out);
	ASSERT_EQ(0, pcore_unload_wait());
}

static const struct pcore_bad_load bad[] = {
	{ "target=pcore_no_such_fn:graph", ENOENT,
	  "target=pcore_no_such_fn:graph: not a kernel function kprobes can probe" },
	{ "target=jiffies:graph", ENOENT,
	  "target=jiffies:graph: not a kernel function kprobes can probe" },
	{ "target=pcore_grapht_f:graph:pcore_no_such_*", ENOENT,
	  "functions pcore_no_such_*: matches no function" },
	{ "target=pcore_grapht_*:graph", EINVAL,
	  "':graph' is for one function, without ':by=pid'" },
	{ "target=pcore_grapht_f:graph:by=pid", EINVAL,
	  "':graph' is for one function, without ':by=pid'" },
	{ "target=pcore_grapht_f:graph:a:b", EINVAL,
	  "a glob of callees is without blank, control character, ':' or ','" },
};

/* Each fails with its errno and line, and leaves no kprobe behind. */
TEST_F_TIMEOUT(gr, bad_input, PCORE_TIMEOUT_PATCHING)
{
	PCORE_EXPECT_BAD_LOADS(bad, log_);
	if (pcore_read(KPROBES_LIST, out, sizeof(out)) >= 0)
		EXPECT_EQ(NULL, strstr(out, "pcore_grapht")) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
