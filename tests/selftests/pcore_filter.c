// SPDX-License-Identifier: GPL-2.0
/*
 * Per-process views: pid= and comm= filters (module parameters, the
 * ioctl, probectl --pid/--comm) see only their process's calls, exactly;
 * ":by=pid" histograms (probectl --by-pid) keep one histogram per
 * process, keyed by its pid and labelled with its name.  Workers are
 * children of this program that call getppid() a known number of times
 * when told to, while this program calls it too.
 */
#include "pcore_ioctl.h"
#include <sys/prctl.h>
#include <sys/syscall.h>
#include "kselftest_harness.h"

#define PCORE_CTL	"/pcore/bin/probectl"
#define OUT		"/tmp/pcore_filter.ctl"	/* not .out: run_tests.sh writes that */

static char out[PCORE_BUF];

/* A child that, once told, renames itself and calls getppid() @n times. */
struct worker {
	pid_t pid;
	int go;		/* write end: one byte starts it */
};

static int worker_start(struct worker *w, const char *comm, int n)
{
	int p[2];
	char c;

	if (pipe(p))
		return -1;
	w->pid = fork();
	if (w->pid < 0)
		return -1;
	if (!w->pid) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(1);
		if (comm && prctl(PR_SET_NAME, comm))
			_exit(1);
		while (n--)
			syscall(SYS_getppid);
		_exit(0);
	}
	close(p[0]);
	w->go = p[1];
	return 0;
}

/* Tell it to go and wait until it is done; 0 when it exited 0. */
static int worker_run(struct worker *w)
{
	int st;

	if (write(w->go, "g", 1) != 1)
		return -1;
	close(w->go);
	if (waitpid(w->pid, &st, 0) != w->pid)
		return -1;
	return WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : -1;
}

static void getppids(int n)
{
	while (n--)
		syscall(SYS_getppid);
}

/* Runs @argv with stdout and stderr in OUT, read into out[]. */
static int ctl(const char * const *argv)
{
	return pcore_run(argv, NULL, OUT, out, sizeof(out));
}

#define CTL(...)	ctl((const char * const []){ PCORE_CTL, __VA_ARGS__, NULL })

static const char * const mods[] = { "probe_core" };

FIXTURE(flt) {
	int fd;
	int kmsg;
};

FIXTURE_SETUP(flt)
{
	self->fd = -1;
	PCORE_KMSG_SETUP(mods, 1);
}

FIXTURE_TEARDOWN(flt)
{
	static char log[65536];

	if (self->fd >= 0)
		close(self->fd);
	PCORE_KMSG_TEARDOWN(mods, 1, log);
}

/*
 * pid= at load: the counting probe and the timing probe see exactly the
 * worker's calls, not this program's.
 */
TEST_F_TIMEOUT(flt, pid_param, PCORE_TIMEOUT_PATCHING)
{
	struct worker w;
	char params[128];

	ASSERT_EQ(0, worker_start(&w, NULL, 500));
	snprintf(params, sizeof(params),
		 "pid=%d target=sys_getppid:count,sys_getppid", w.pid);
	ASSERT_EQ(0, pcore_load(params));
	getppids(300);
	ASSERT_EQ(0, worker_run(&w));
	getppids(300);
	EXPECT_EQ(500, pcore_stat("sys_getppid:count", "count"));
	EXPECT_EQ(500, pcore_stat("sys_getppid", "count"));
}

/*
 * comm= through the ioctl, and through probectl --comm and --pid: only
 * the tasks of that name or process.
 */
TEST_F_TIMEOUT(flt, comm_and_pid_attach, PCORE_TIMEOUT_PATCHING)
{
	struct pcore_ioc_attach a;
	struct worker w1, w2;
	char pid[16];

	ASSERT_EQ(0, pcore_load(NULL));
	self->fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	pcore_att_init(&a, "sys_getppid:count", PCORE_ATTACH_KRETPROBE, 0);
	strcpy(a.comm, "pcore-w1");
	ASSERT_EQ(0, pcore_ioc(self->fd, PCORE_IOC_ATTACH, &a));

	ASSERT_EQ(0, worker_start(&w2, "pcore-w2", 250));
	snprintf(pid, sizeof(pid), "%d", w2.pid);
	ASSERT_EQ(0, CTL("attach", "--kretprobe", "sys_getppid", "--pid", pid))
		TH_LOG("%s", out);
	ASSERT_EQ(0, worker_start(&w1, "pcore-w1", 400));
	getppids(100);
	ASSERT_EQ(0, worker_run(&w1));
	ASSERT_EQ(0, worker_run(&w2));
	EXPECT_EQ(400, pcore_rd_count(self->fd, "sys_getppid:count"));
	EXPECT_EQ(250, pcore_rd_count(self->fd, "sys_getppid"));

	/* w2 is gone: its pid= probe sees nothing more, whoever calls */
	getppids(100);
	EXPECT_EQ(250, pcore_rd_count(self->fd, "sys_getppid"));

	/* bad filters: refused, nothing attached */
	EXPECT_EQ(1, CTL("attach", "--kprobe", "do_fork", "--count", "--pid",
			 "999999"));
	EXPECT_NE(NULL, strstr(out, "no such process")) TH_LOG("%s", out);
	EXPECT_EQ(2, CTL("attach", "--kprobe", "do_fork", "--count", "--comm",
			 "this-is-too-long"));
	pcore_att_init(&a, "sched_switch", PCORE_ATTACH_TRACEPOINT, 0);
	a.pid = getpid();
	EXPECT_EQ(EINVAL, pcore_ioc(self->fd, PCORE_IOC_ATTACH, &a));
	EXPECT_NE(0, access(PCORE_DBG "/do_fork:count", F_OK));
	EXPECT_NE(0, access(PCORE_DBG "/sched_switch", F_OK));
}

/*
 * :by=pid: one histogram per process, keyed by pid, labelled with the
 * process's name; counts and latencies per worker, exactly.
 */
TEST_F_TIMEOUT(flt, by_pid, PCORE_TIMEOUT_PATCHING)
{
	struct pcore_ioc_entry e;
	struct worker w1, w2;
	char label[64];

	ASSERT_EQ(0, pcore_load("target=sys_getppid:count:by=pid,sys_getppid:by=pid"));
	self->fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pcore_list_one(self->fd, "sys_getppid:count:by=pid", &e));
	EXPECT_STREQ("pid", e.key_name);
	EXPECT_STREQ("count", e.hist_kind);
	ASSERT_EQ(0, worker_start(&w1, "pcore-a", 123));
	ASSERT_EQ(0, worker_start(&w2, "pcore-b", 321));
	ASSERT_EQ(0, worker_run(&w1));
	ASSERT_EQ(0, worker_run(&w2));
	EXPECT_EQ(123, pcore_key_count(self->fd, "sys_getppid:count:by=pid", w1.pid,
				 label, sizeof(label)));
	EXPECT_STREQ("pcore-a", label);
	EXPECT_EQ(321, pcore_key_count(self->fd, "sys_getppid:count:by=pid", w2.pid,
				 label, sizeof(label)));
	EXPECT_STREQ("pcore-b", label);
	EXPECT_EQ(123, pcore_key_count(self->fd, "sys_getppid:by=pid", w1.pid,
				 label, sizeof(label)));
	EXPECT_EQ(321, pcore_key_count(self->fd, "sys_getppid:by=pid", w2.pid,
				 label, sizeof(label)));

	/* probectl --by-pid: the name it sends */
	ASSERT_EQ(0, CTL("attach", "--kprobe", "do_fork", "--count", "--by-pid"))
		TH_LOG("%s", out);
	EXPECT_EQ(0, access(PCORE_DBG "/do_fork:count:by=pid/keys", F_OK));
	/* not with :retval */
	EXPECT_EQ(EINVAL, pcore_attach(self->fd, "vfs_read:retval:by=pid",
				       PCORE_ATTACH_KRETPROBE));
}

/* Bad filters at load: refused with one line, nothing loaded. */
TEST_F_TIMEOUT(flt, bad_params, PCORE_TIMEOUT_PATCHING)
{
	EXPECT_EQ(ESRCH, pcore_load("pid=999999 target=do_fork"));
	EXPECT_EQ(EINVAL, pcore_load("pid=-1 target=do_fork"));
	EXPECT_EQ(EINVAL, pcore_load("comm=0123456789abcdef target=do_fork"));
	EXPECT_EQ(EINVAL, pcore_load("pid=1"));
	EXPECT_EQ(EINVAL, pcore_load("target=do_fork:retval:by=pid"));
	EXPECT_FALSE(pcore_loaded());
}

TEST_HARNESS_MAIN
