// SPDX-License-Identifier: GPL-2.0
/*
 * Per-container views: ":by=cgroup" histograms (probectl --by-cgroup)
 * keep one histogram per cgroup v2, keyed by its id (the inode number of
 * its directory in the cgroup2 mount) and labelled with its path from
 * the cgroup2 root.  Workers are children of this program, moved into a
 * cgroup (cgroup.procs) before they call getppid() a known number of
 * times, or sleep (runqlat).  cgroup2 is mounted on /sys/fs/cgroup when
 * the guest has not (its init mounts none).
 */
#include "pcore_ioctl.h"
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include "kselftest_harness.h"

#define PCORE_CTL	"/pcore/bin/probectl"
#define OUT		"/tmp/pcore_cgroup.ctl"
#define CG		"/sys/fs/cgroup"
#define CG2_MAGIC	0x63677270	/* CGROUP2_SUPER_MAGIC */
#define COUNT		"sys_getppid:count:by=cgroup"
#define TIME		"sys_getppid:by=cgroup"
#define RUNQLAT		"runqlat:by=cgroup"
#define NCG		6		/* cgroups of the bound test */

static char out[PCORE_BUF];
static struct pcore_ioc_bucket bk[PCORE_MAXB];

static int cg_write(const char *path, const char *s)
{
	return pcore_write(path, s, strlen(s));
}

/* Move @pid into cgroup @dir ("" for the root); 0 or -1. */
static int cg_move(const char *dir, pid_t pid)
{
	char path[256], s[32];

	snprintf(path, sizeof(path), CG "%s%s/cgroup.procs", *dir ? "/" : "",
		 dir);
	snprintf(s, sizeof(s), "%d\n", pid);
	return cg_write(path, s);
}

/* The id of cgroup @dir: its directory's inode number (kernfs node id). */
static unsigned long long cg_id(const char *dir)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), CG "/%s", dir);
	return stat(path, &st) ? 0 : st.st_ino;
}

static int cg_mkdir(const char *dir)
{
	char path[256];

	snprintf(path, sizeof(path), CG "/%s", dir);
	return mkdir(path, 0755);
}

static int cg_rmdir(const char *dir)
{
	char path[256];

	snprintf(path, sizeof(path), CG "/%s", dir);
	return rmdir(path) && errno != ENOENT ? -1 : 0;
}

/* cgroup2 on CG, mounted here when it is not; 0 or -1. */
static int cg_mount(void)
{
	struct statfs sf;

	if (!statfs(CG, &sf) && sf.f_type == CG2_MAGIC)
		return 0;
	mkdir(CG, 0755);
	if (mount("none", CG, "cgroup2", 0, NULL))
		return -1;
	return !statfs(CG, &sf) && sf.f_type == CG2_MAGIC ? 0 : -1;
}

/*
 * A child moved into cgroup @dir, then calls getppid() @n times and
 * sleeps 1 ms @sleeps times; 0 when it did so and exited 0.
 */
static int cg_work(const char *dir, int n, int sleeps)
{
	int p[2], st;
	pid_t pid;
	char c;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(1);
		while (n--)
			syscall(SYS_getppid);
		while (sleeps--)
			usleep(1000);
		_exit(0);
	}
	close(p[0]);
	if (cg_move(dir, pid) || write(p[1], "g", 1) != 1) {
		close(p[1]);
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		return -1;
	}
	close(p[1]);
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

/* Keys of @name in use, and its values dropped; -1 on error. */
static int keys_used(int fd, const char *name, unsigned long long *dropped)
{
	struct pcore_ioc_entry e;
	struct pcore_ioc_read r;
	unsigned int slot;
	int n = 0;

	if (pcore_list_one(fd, name, &e) ||
	    pcore_rd(fd, name, -1, 0, 0, &r, bk))
		return -1;
	*dropped = r.dropped;
	for (slot = 0; slot < e.nkeys; slot++) {
		if (pcore_rd(fd, name, -1, PCORE_READ_KEY, slot, &r, bk))
			return -1;
		n += !!r.key_used;
	}
	return n;
}

/*
 * The count of cgroup @key since the creation of @name
 * (PCORE_READ_TOTAL | PCORE_READ_KEY of every entry), -1 when no entry
 * answers it; the sum of every cgroup's count into *@sum, and @lost.
 */
static long long total_count(int fd, const char *name, unsigned long long key,
			     long long *sum, unsigned long long *lost)
{
	struct pcore_ioc_entry e;
	struct pcore_ioc_read r;
	unsigned int slot;
	long long n = -1;

	*sum = 0;
	if (pcore_list_one(fd, name, &e))
		return -2;
	for (slot = 0; slot < e.nkeys; slot++) {
		if (pcore_rd(fd, name, -1, PCORE_READ_TOTAL | PCORE_READ_KEY,
			     slot, &r, bk))
			return -2;
		*lost = r.lost;
		if (!r.key_used)
			continue;
		*sum += r.count;
		if (r.key == key)
			n = r.count;
	}
	return n;
}

static int ctl(const char * const *argv)
{
	return pcore_run(argv, NULL, OUT, out, sizeof(out));
}

#define CTL(...)	ctl((const char * const []){ PCORE_CTL, __VA_ARGS__, NULL })

static const char * const dirs[] = {
	"pcore_cg_a", "pcore_cg_b", "pcore_cg_0", "pcore_cg_1", "pcore_cg_2",
	"pcore_cg_3", "pcore_cg_4", "pcore_cg_5",
};

/* This program back in the root, the test's cgroups removed. */
static int cg_clean(void)
{
	unsigned int i;
	int ret = 0;

	if (cg_move("", getpid()))
		ret = -1;
	for (i = 0; i < ARRAY_SIZE(dirs); i++)
		if (cg_rmdir(dirs[i]))
			ret = -1;
	return ret;
}

static const char * const mods[] = { "probe_core" };

FIXTURE(cg) {
	int fd;
	int kmsg;
};

FIXTURE_SETUP(cg)
{
	self->fd = -1;
	PCORE_KMSG_SETUP(mods, 1);
	ASSERT_EQ(0, cg_mount()) TH_LOG("cannot mount cgroup2 on " CG);
	ASSERT_EQ(0, cg_clean());
}

FIXTURE_TEARDOWN(cg)
{
	static char log[65536];

	if (self->fd >= 0)
		close(self->fd);
	EXPECT_EQ(0, cg_clean());
	PCORE_KMSG_TEARDOWN(mods, 1, log);
}

/*
 * Two cgroups, known workloads: exact counts and latencies per cgroup,
 * keyed by its id, labelled with its path; runqlat's waits under the
 * cgroup of the task that waited (the one switched in).
 */
TEST_F_TIMEOUT(cg, counts, PCORE_TIMEOUT_PATCHING)
{
	unsigned long long a, b;
	struct pcore_ioc_entry e;
	char label[64], *p;
	long long n;

	ASSERT_EQ(0, pcore_load("target=" COUNT "," TIME " tracepoints=" RUNQLAT));
	self->fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pcore_list_one(self->fd, COUNT, &e));
	EXPECT_STREQ("cgroup", e.key_name);
	EXPECT_STREQ("count", e.hist_kind);
	EXPECT_EQ(256, e.nkeys);
	ASSERT_EQ(0, cg_mkdir("pcore_cg_a"));
	ASSERT_EQ(0, cg_mkdir("pcore_cg_b"));
	a = cg_id("pcore_cg_a");
	b = cg_id("pcore_cg_b");
	ASSERT_NE(0, a);
	ASSERT_NE(a, b);
	ASSERT_EQ(0, cg_work("pcore_cg_a", 123, 0));
	ASSERT_EQ(0, cg_work("pcore_cg_b", 321, 20));
	EXPECT_EQ(123, pcore_key_count(self->fd, COUNT, a, label, sizeof(label)));
	EXPECT_STREQ("/pcore_cg_a", label);
	EXPECT_EQ(321, pcore_key_count(self->fd, COUNT, b, label, sizeof(label)));
	EXPECT_STREQ("/pcore_cg_b", label);
	EXPECT_EQ(123, pcore_key_count(self->fd, TIME, a, label, sizeof(label)));
	EXPECT_STREQ("/pcore_cg_a", label);
	EXPECT_EQ(321, pcore_key_count(self->fd, TIME, b, label, sizeof(label)));
	/* each of the 20 sleeps ends in a wait to run, and maybe more */
	n = pcore_key_count(self->fd, RUNQLAT, b, label, sizeof(label));
	EXPECT_LE(20, n);
	EXPECT_STREQ("/pcore_cg_b", label);
	/* this program, in the root: "/" */
	syscall(SYS_getppid);
	EXPECT_LE(1, pcore_key_count(self->fd, COUNT, cg_id(""), label,
			       sizeof(label)));
	EXPECT_STREQ("/", label);
	/* the keys file shows the paths */
	ASSERT_LT(0, pcore_read(PCORE_DBG "/" COUNT "/keys", out, sizeof(out)));
	EXPECT_NE(NULL, strstr(out, " /pcore_cg_a")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, " /pcore_cg_b")) TH_LOG("%s", out);
	/* probectl --by-cgroup: the name it sends, the labels it shows */
	ASSERT_EQ(0, CTL("attach", "--kprobe", "do_fork", "--count",
			 "--by-cgroup")) TH_LOG("%s", out);
	EXPECT_EQ(0, access(PCORE_DBG "/do_fork:count:by=cgroup/keys", F_OK));
	ASSERT_EQ(0, CTL("show", COUNT, "--keys")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "/pcore_cg_a")) TH_LOG("%s", out);
	/* for the user guide's example */
	for (p = strtok(out, "\n"); p; p = strtok(NULL, "\n"))
		printf("# show --keys: %s\n", p);
	fflush(stdout);
	ASSERT_EQ(0, CTL("export", "--per-cpu", "--prometheus")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "cgroup=\"/pcore_cg_b\"")) TH_LOG("%s", out);
}

/*
 * A cgroup removed keeps its key until the interval is read, labelled
 * "(removed)"; made again with the same path it is another cgroup (a
 * new id): another key.  An interval read reclaims the keys.
 */
TEST_F_TIMEOUT(cg, recreated, PCORE_TIMEOUT_PATCHING)
{
	unsigned long long id1, id2, dropped;
	struct pcore_ioc_read r;
	char label[64];

	/* kprobes here: the counts test has the default (a direct call) */
	ASSERT_EQ(0, pcore_load("mechanism=kprobe target=" COUNT));
	self->fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, cg_mkdir("pcore_cg_a"));
	id1 = cg_id("pcore_cg_a");
	ASSERT_EQ(0, cg_work("pcore_cg_a", 5, 0));
	EXPECT_EQ(5, pcore_key_count(self->fd, COUNT, id1, label, sizeof(label)));
	EXPECT_STREQ("/pcore_cg_a", label);
	ASSERT_EQ(0, cg_rmdir("pcore_cg_a"));
	EXPECT_EQ(5, pcore_key_count(self->fd, COUNT, id1, label, sizeof(label)));
	EXPECT_STREQ("(removed)", label);
	ASSERT_EQ(0, cg_mkdir("pcore_cg_a"));
	id2 = cg_id("pcore_cg_a");
	EXPECT_NE(id1, id2);
	ASSERT_EQ(0, cg_work("pcore_cg_a", 7, 0));
	EXPECT_EQ(7, pcore_key_count(self->fd, COUNT, id2, label, sizeof(label)));
	EXPECT_STREQ("/pcore_cg_a", label);
	EXPECT_EQ(5, pcore_key_count(self->fd, COUNT, id1, label, sizeof(label)));
	EXPECT_STREQ("(removed)", label);
	/* an interval read moves both out; only the live one comes back */
	ASSERT_EQ(0, pcore_rd(self->fd, COUNT, -1, PCORE_READ_RESET, 0, &r, bk));
	EXPECT_LE(12, r.count);
	EXPECT_EQ(-1, pcore_key_count(self->fd, COUNT, id1, label, sizeof(label)));
	EXPECT_EQ(-1, pcore_key_count(self->fd, COUNT, id2, label, sizeof(label)));
	ASSERT_EQ(0, cg_work("pcore_cg_a", 3, 0));
	EXPECT_EQ(3, pcore_key_count(self->fd, COUNT, id2, label, sizeof(label)));
	EXPECT_EQ(-1, pcore_key_count(self->fd, COUNT, id1, label, sizeof(label)));
	EXPECT_LE(1, keys_used(self->fd, COUNT, &dropped));
	EXPECT_EQ(0, dropped);
}

/*
 * The bound: cgroup_keys= cgroups per interval (rounded up to a power
 * of two), the values of the others dropped and counted; its smallest
 * and largest values, and those out of range refused.  The totals per
 * cgroup have the same bound; the values of cgroups past it are lost
 * from the cgroups' series (counted), not from the merged total.
 */
TEST_F_TIMEOUT(cg, bound, PCORE_TIMEOUT_PATCHING)
{
	static const struct pcore_bad_load bad[] = {
		{ "cgroup_keys=1 target=" COUNT, EINVAL,
		  "cgroup_keys=1: must be 2 to 65536" },
		{ "cgroup_keys=65537 target=" COUNT, EINVAL,
		  "cgroup_keys=65537: must be 2 to 65536" },
	};
	static char log[65536];
	unsigned long long dropped, id, lost = 0;
	struct pcore_ioc_entry e;
	struct pcore_ioc_read r;
	char label[64];
	unsigned int i;
	long long sum;
	int used = 0;

	PCORE_EXPECT_BAD_LOADS(bad, log);
	ASSERT_EQ(0, pcore_load("cgroup_keys=65536 target=" COUNT));
	self->fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pcore_list_one(self->fd, COUNT, &e));
	EXPECT_EQ(65536, e.nkeys);
	close(self->fd);
	ASSERT_EQ(0, pcore_unload());

	ASSERT_EQ(0, pcore_load("cgroup_keys=3 target=" COUNT));
	self->fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pcore_list_one(self->fd, COUNT, &e));
	EXPECT_EQ(4, e.nkeys);
	/* six cgroups, 10 calls each: four keys, the rest dropped */
	for (i = 2; i < 2 + NCG; i++) {
		ASSERT_EQ(0, cg_mkdir(dirs[i]));
		ASSERT_EQ(0, cg_work(dirs[i], 10, 0));
	}
	EXPECT_EQ(4, keys_used(self->fd, COUNT, &dropped));
	for (i = 2; i < 2 + NCG; i++) {
		id = cg_id(dirs[i]);
		if (pcore_key_count(self->fd, COUNT, id, label, sizeof(label)) == 10)
			used++;
	}
	EXPECT_EQ(4, used);
	EXPECT_EQ(10 * (NCG - 4), dropped);
	/*
	 * The totals per cgroup have as many entries: after an interval
	 * read the four have them; the six again, and those without an
	 * entry are lost from the cgroups' series, never from the merged
	 * total: it is every cgroup's plus what was lost.
	 */
	ASSERT_EQ(0, pcore_rd(self->fd, COUNT, -1, PCORE_READ_RESET, 0, &r, bk));
	for (i = 2 + NCG; i-- > 2;)	/* the two without one first */
		ASSERT_EQ(0, cg_work(dirs[i], 10, 0));
	ASSERT_EQ(0, pcore_rd(self->fd, COUNT, -1, PCORE_READ_RESET, 0, &r, bk));
	ASSERT_NE(-2, total_count(self->fd, COUNT, 0, &sum, &lost));
	ASSERT_EQ(0, pcore_rd(self->fd, COUNT, -1, PCORE_READ_TOTAL, 0, &r, bk));
	EXPECT_LT(0, lost);
	EXPECT_EQ(r.count, sum + lost);
	EXPECT_EQ(r.lost, lost);
}

/* Bad input: refused with an errno and one log line naming it. */
TEST_F_TIMEOUT(cg, bad_input, PCORE_TIMEOUT_PATCHING)
{
	static const struct pcore_bad_load bad[] = {
		{ "target=do_fork:retval:by=cgroup", EINVAL,
		  "':by=cgroup' is not for ':retval'" },
		{ "target=do_fork:stacks:by=cgroup", EINVAL,
		  "':by=cgroup' is not for ':stacks'" },
		{ "target=do_fork:graph:by=cgroup", EINVAL,
		  "':by=cgroup' is not for ':graph'" },
		{ "target=do_f*:count:by=cgroup", EINVAL,
		  "a glob takes no suffix but ':count'" },
		{ "tracepoints=sched_switch:by=cgroup", EINVAL,
		  "':by=cgroup' is for runqlat only" },
	};
	static char log[65536];
	struct pcore_ioc_attach a;
	struct pcore_ioc_entry e;

	PCORE_EXPECT_BAD_LOADS(bad, log);
	PCORE_LOAD_OPEN(NULL, self->fd);
	/* both flags at once, by the ioctl's fields */
	pcore_att_init(&a, "", PCORE_ATTACH_KRETPROBE, 0);
	snprintf(a.target, sizeof(a.target), "sys_getppid");
	a.what = PCORE_WHAT_COUNT;
	a.flags = PCORE_ATTACH_BY_PID | PCORE_ATTACH_BY_CGROUP;
	EXPECT_EQ(EINVAL, pcore_ioc(self->fd, PCORE_IOC_ATTACH, &a));
	kmsg_collect(self->kmsg, log, sizeof(log));
	EXPECT_NE(NULL, strstr(log, "':by=pid' and ':by=cgroup' are one or the other"))
		TH_LOG("%s", log);
	pcore_att_init(&a, "", PCORE_ATTACH_TRACEPOINT, 0);
	snprintf(a.target, sizeof(a.target), "runqlat");
	a.flags = PCORE_ATTACH_BY_PID | PCORE_ATTACH_BY_CGROUP;
	EXPECT_EQ(EINVAL, pcore_ioc(self->fd, PCORE_IOC_ATTACH, &a));
	kmsg_collect(self->kmsg, log, sizeof(log));
	EXPECT_NE(NULL, strstr(log, "runqlat:by=pid:by=cgroup: ':by=pid' and ':by=cgroup' are one or the other"))
		TH_LOG("%s", log);
	EXPECT_NE(0, access(PCORE_DBG "/runqlat:by=pid:by=cgroup", F_OK));
	/* runqlat by cgroup through the ioctl (probectl) */
	ASSERT_EQ(0, CTL("attach", "--tracepoint", "runqlat", "--by-cgroup"))
		TH_LOG("%s", out);
	ASSERT_EQ(0, pcore_list_one(self->fd, RUNQLAT, &e));
	EXPECT_STREQ("cgroup", e.key_name);
	/* probectl: not both */
	EXPECT_NE(0, CTL("attach", "--kprobe", "do_fork", "--count",
			 "--by-cgroup", "--by-pid"));
	EXPECT_NE(NULL, strstr(out, "--by-cgroup does not go with --by-pid"))
		TH_LOG("%s", out);
}

/*
 * Totals per cgroup since creation, as exporters read them: interval
 * reads and resets between two exports never lower a cgroup's count,
 * which is every call it made; a cgroup removed: its series ends.
 */
TEST_F_TIMEOUT(cg, totals, PCORE_TIMEOUT_PATCHING)
{
	unsigned long long a, b, lost = 1;
	struct pcore_ioc_read r;
	char line[256];
	long long sum;

	ASSERT_EQ(0, pcore_load("mechanism=kprobe target=" COUNT));
	self->fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, cg_mkdir("pcore_cg_a"));
	ASSERT_EQ(0, cg_mkdir("pcore_cg_b"));
	a = cg_id("pcore_cg_a");
	b = cg_id("pcore_cg_b");
	ASSERT_EQ(0, cg_work("pcore_cg_a", 11, 0));
	ASSERT_EQ(0, cg_work("pcore_cg_b", 22, 0));
	EXPECT_EQ(11, total_count(self->fd, COUNT, a, &sum, &lost));
	EXPECT_EQ(22, total_count(self->fd, COUNT, b, &sum, &lost));
	EXPECT_EQ(0, lost);
	/* an interval read and a reset, more calls of a in between */
	ASSERT_EQ(0, pcore_rd(self->fd, COUNT, -1, PCORE_READ_RESET, 0, &r, bk));
	ASSERT_EQ(0, cg_work("pcore_cg_a", 5, 0));
	ASSERT_EQ(0, CTL("reset", COUNT)) TH_LOG("%s", out);
	ASSERT_EQ(0, cg_work("pcore_cg_a", 3, 0));
	EXPECT_EQ(19, total_count(self->fd, COUNT, a, &sum, &lost));
	EXPECT_EQ(22, total_count(self->fd, COUNT, b, &sum, &lost));
	/* the merged total is every cgroup's: none was removed or lost */
	ASSERT_EQ(0, pcore_rd(self->fd, COUNT, -1, PCORE_READ_TOTAL, 0, &r, bk));
	EXPECT_EQ(r.count, sum);
	ASSERT_EQ(0, CTL("export", "--prometheus")) TH_LOG("%s", out);
	snprintf(line, sizeof(line),
		 "probe_core_value_calls_count{probe=\"" COUNT "\",key=\"%llu\",cgroup=\"/pcore_cg_a\"} 19\n",
		 a);
	EXPECT_NE(NULL, strstr(out, line)) TH_LOG("no %s in %s", line, out);
	snprintf(line, sizeof(line),
		 "probe_core_value_calls_count{probe=\"" COUNT "\",key=\"%llu\",cgroup=\"/pcore_cg_b\"} 22\n",
		 b);
	EXPECT_NE(NULL, strstr(out, line)) TH_LOG("no %s in %s", line, out);
	EXPECT_NE(NULL, strstr(out, "probe_core_cgroup_lost_total{probe=\"" COUNT "\"} 0\n"))
		TH_LOG("%s", out);
	/* b removed (its values in the banks, then not): its series ends */
	ASSERT_EQ(0, cg_work("pcore_cg_b", 1, 0));
	ASSERT_EQ(0, cg_rmdir("pcore_cg_b"));
	EXPECT_EQ(-1, total_count(self->fd, COUNT, b, &sum, &lost));
	ASSERT_EQ(0, pcore_rd(self->fd, COUNT, -1, PCORE_READ_RESET, 0, &r, bk));
	EXPECT_EQ(-1, total_count(self->fd, COUNT, b, &sum, &lost));
	EXPECT_EQ(19, total_count(self->fd, COUNT, a, &sum, &lost));
	ASSERT_EQ(0, CTL("export", "--prometheus")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "cgroup=\"/pcore_cg_a\"} 19\n")) TH_LOG("%s", out);
	snprintf(line, sizeof(line), "key=\"%llu\"", b);
	EXPECT_EQ(NULL, strstr(out, line)) TH_LOG("%s", out);
}

TEST_HARNESS_MAIN
