// SPDX-License-Identifier: GPL-2.0
/*
 * CPU hotplug under a profiler (profile=99): CPU 1 goes offline and comes
 * back sampled; a CPU whose perf event cannot be created when it comes
 * online still comes online, unsampled, counted in the profile's stats
 * (unsampled_cpus) with one log line, until it comes online again.
 *
 * The failure is injected with failslab into the allocations from the
 * perf_event cache (cache-filter: the kernel booted with
 * slub_debug=A,perf_event, which check.sh gives the debug kernel) by CPU
 * 1's hotplug thread cpuhp/1 (task-filter), which runs the profiler's
 * online callback; without those the test is skipped.  (fail-nth is per
 * task: the writer of the online file allocates nothing of it.)
 */
#include "pcore_ioctl.h"
#include <dirent.h>
#include "kselftest_harness.h"

#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"
#define FAILSLAB	"/sys/kernel/debug/failslab/"
#define PERF_FAILSLAB	"/sys/kernel/slab/perf_event/failslab"

static char buf[PCORE_BUF];
static char log[8192];

/*
 * The failslab settings the test changes, restored by the teardown; set to
 * @on one after the other (the probability, last, on its own) they fail
 * every allocation of the tasks marked make-it-fail.
 */
static const struct {
	const char *file, *on;
} knobs[] = {
	{ "cache-filter", "Y" }, { "ignore-gfp-wait", "N" },
	{ "task-filter", "Y" }, { "verbose", "0" }, { "interval", "1" },
	{ "times", "-1" }, { "space", "0" }, { "probability", NULL },
};

FIXTURE(hp) {
	int kmsg, fd;
	char make_it_fail[64];
	char saved[8][32];
};

static int set(const char *file, const char *v)
{
	char path[128];

	snprintf(path, sizeof(path), FAILSLAB "%s", file);
	return pcore_write(path, v, strlen(v));
}

FIXTURE_SETUP(hp)
{
	char path[128];
	unsigned int i;

	self->make_it_fail[0] = '\0';
	for (i = 0; i < ARRAY_SIZE(knobs); i++) {
		snprintf(path, sizeof(path), FAILSLAB "%s", knobs[i].file);
		if (pcore_read(path, self->saved[i], sizeof(self->saved[i])) <= 0)
			self->saved[i][0] = '\0';
	}
	if (pcore_loaded())
		ASSERT_EQ(0, pcore_unload_wait());
	self->kmsg = kmsg_open();
	ASSERT_LE(0, self->kmsg);
	ASSERT_EQ(0, pcore_load("profile=99"));
	kmsg_collect(self->kmsg, log, sizeof(log));	/* its line "profile on" */
	self->fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(hp)
{
	unsigned int i;

	/* A failed test must leave no fault armed and CPU 1 online. */
	if (self->make_it_fail[0]) {
		pcore_write(self->make_it_fail, "0", 1);
		set("probability", "0");
	}
	for (i = ARRAY_SIZE(knobs); i-- > 0;)
		if (self->saved[i][0])
			set(knobs[i].file, self->saved[i]);
	pcore_write(CPU1_ONLINE, "1", 1);
	close(self->fd);
	close(self->kmsg);
	EXPECT_EQ(0, pcore_unload_wait());
}

static long long unsampled(void)
{
	if (pcore_read(PCORE_DBG "/profile/stats", buf, PCORE_BUF) <= 0)
		return -2;
	return pcore_key(buf, "unsampled_cpus");
}

/* Samples on CPU 1 over 500 ms of this task spinning there, or -1ULL. */
static unsigned long long cpu1_samples(int fd)
{
	static struct pcore_ioc_bucket b[PCORE_MAXB];
	struct pcore_ioc_read r;
	double t0;

	if (pcore_name_ioc(fd, PCORE_IOC_RESET, "profile") || pcore_pin(1))
		return -1ULL;
	for (t0 = pcore_now(); pcore_now() - t0 < 0.5;)
		;
	if (pcore_pin(0) || pcore_rd(fd, "profile", 1, 0, 0, &r, b))
		return -1ULL;
	return r.count;
}

/* The pid of kernel thread @comm, or -1. */
static pid_t kthread_pid(const char *comm)
{
	char path[300], c[32];
	struct dirent *d;
	pid_t pid = -1;
	DIR *dir = opendir("/proc");

	while (dir && pid < 0 && (d = readdir(dir))) {
		if (*d->d_name < '1' || *d->d_name > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		if (pcore_read(path, c, sizeof(c)) > 0 &&
		    !strncmp(c, comm, strlen(comm)) && c[strlen(comm)] == '\n')
			pid = atoi(d->d_name);
	}
	if (dir)
		closedir(dir);
	return pid;
}

/*
 * CPU 1 offline and back: no CPU unsampled either way, CPU 1 sampled once
 * back, nothing logged.  A macro: the checks are the test's.
 */
#define EXPECT_OFFLINE_ONLINE() do {					\
	ASSERT_EQ(0, pcore_write(CPU1_ONLINE, "0", 1));			\
	EXPECT_EQ(0, unsampled());					\
	ASSERT_EQ(0, pcore_write(CPU1_ONLINE, "1", 1));			\
	EXPECT_EQ(0, unsampled());					\
	EXPECT_LT(0, cpu1_samples(self->fd));				\
	EXPECT_EQ(0, kmsg_collect(self->kmsg, log, sizeof(log))) {	\
		TH_LOG("log lines:\n%s", log);				\
	}								\
} while (0)

/*
 * CPU 1 offline and back with the profiler attached: sampled before and
 * after, no CPU unsampled, nothing logged.
 */
TEST_F_TIMEOUT(hp, offline_online, 120)
{
	if (pcore_possible_cpus() < 2 || access(CPU1_ONLINE, W_OK))
		SKIP(return, "needs a CPU 1 that can go offline");
	EXPECT_EQ(0, unsampled());
	EXPECT_LT(0, cpu1_samples(self->fd));
	EXPECT_OFFLINE_ONLINE();
}

/*
 * CPU 1 comes online while its perf event cannot be created: it comes
 * online (the old code failed the online with ENOMEM), unsampled and
 * counted, with one log line; offline and back, it is sampled again.
 */
TEST_F_TIMEOUT(hp, online_without_event, 120)
{
	char c[4] = "";
	unsigned int i;
	pid_t cpuhp;
	int ret;

	if (pcore_possible_cpus() < 2 || access(CPU1_ONLINE, W_OK))
		SKIP(return, "needs a CPU 1 that can go offline");
	if (access(FAILSLAB "cache-filter", W_OK) ||
	    pcore_read(PERF_FAILSLAB, c, sizeof(c)) <= 0 || c[0] != '1')
		SKIP(return, "needs failslab and slub_debug=A,perf_event");
	cpuhp = kthread_pid("cpuhp/1");
	ASSERT_LT(0, cpuhp);
	ASSERT_EQ(0, pcore_write(CPU1_ONLINE, "0", 1));
	for (i = 0; knobs[i].on; i++) {
		ASSERT_EQ(0, set(knobs[i].file, knobs[i].on))
			TH_LOG("failslab's %s", knobs[i].file);
	}
	snprintf(self->make_it_fail, sizeof(self->make_it_fail),
		 "/proc/%d/make-it-fail", cpuhp);
	ASSERT_EQ(0, pcore_write(self->make_it_fail, "1", 1));
	ASSERT_EQ(0, set("probability", "100"));
	ret = pcore_write(CPU1_ONLINE, "1", 1);
	ASSERT_EQ(0, set("probability", "0"));
	ASSERT_EQ(0, pcore_write(self->make_it_fail, "0", 1));
	self->make_it_fail[0] = '\0';
	ASSERT_EQ(0, ret) {
		TH_LOG("CPU 1 did not come online: %s", strerror(ret));
	}
	EXPECT_EQ(1, unsampled());
	EXPECT_EQ(1, kmsg_collect(self->kmsg, log, sizeof(log))) {
		TH_LOG("log lines:\n%s", log);
	}
	EXPECT_NE(NULL, strstr(log, "cannot create the cpu-clock perf event of CPU 1 (")) {
		TH_LOG("log lines:\n%s", log);
	}
	EXPECT_NE(NULL, strstr(log, "): CPU not sampled\n")) {
		TH_LOG("log lines:\n%s", log);
	}
	EXPECT_EQ(0, cpu1_samples(self->fd));

	EXPECT_OFFLINE_ONLINE();
}

TEST_HARNESS_MAIN
