// SPDX-License-Identifier: GPL-2.0
/*
 * Load and unload under load, with readers holding the files open.
 */
#include "pcore_lib.h"
#include <signal.h>
#include <sys/mman.h>
#include "kselftest_harness.h"

/*
 * Every kernel of make check: the soak's cycles (100 in make check's short
 * form, 1000 in make soak's, with held files) are its longer form, on
 * cloud-6.1 and the debug kernel.
 */
#define CYCLES	12
#define PARAMS	"target=do_fork,sys_nanosleep tracepoints=sched_switch"

static char buf[PCORE_BUF];

/* An open file holds the module: unloading is refused until it is closed. */
TEST(open_file_holds_module)
{
	int fd;

	PCORE_ASSERT_UNLOADED(NULL);
	ASSERT_EQ(0, pcore_load("target=do_fork"));
	fd = open(PCORE_DBG "/do_fork/hist", O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(EAGAIN, pcore_unload());
	EXPECT_TRUE(pcore_loaded());
	EXPECT_LT(0, read(fd, buf, 4096));
	close(fd);
	EXPECT_EQ(0, pcore_unload_wait());
	EXPECT_FALSE(pcore_loaded());
}

FIXTURE(stress) {
	int unused;
};

FIXTURE_SETUP(stress)
{
	PCORE_ASSERT_UNLOADED(NULL);
}

FIXTURE_TEARDOWN(stress)
{
}

static void worker(int cpu)
{
	struct timespec ts = { 0, 100000 };

	pcore_pin(cpu);
	for (;;) {
		pcore_forks(1);
		syscall(SYS_nanosleep, &ts, NULL);
	}
}

static void reader(unsigned long *reads)
{
	static const char * const files[] = {
		PCORE_DBG "/probes", PCORE_DBG "/do_fork/hist",
		PCORE_DBG "/do_fork/stats", PCORE_DBG "/sched_switch/percpu",
		PCORE_DBG "/sys_nanosleep/interval",
	};
	int fd[5], i;

	for (;;) {
		for (i = 0; i < 5; i++)
			fd[i] = open(files[i], pcore_rdflags(files[i]));
		for (i = 0; i < 5; i++)
			if (fd[i] >= 0 && read(fd[i], buf, 65536) > 0)
				__atomic_add_fetch(reads, 1, __ATOMIC_RELAXED);
		usleep(1000);
		for (i = 0; i < 5; i++)
			if (fd[i] >= 0)
				close(fd[i]);
		/* Leave rmmod a window: open files pin the module. */
		usleep(2000);
	}
}

/* Child @k of cycles_under_load: two workers, then a reader; never returns. */
static int kid(int k, void *reads)
{
	if (k < 2)
		worker(k);
	reader(reads);
	return 0;
}

TEST_F_TIMEOUT(stress, cycles_under_load, 900)
{
	unsigned long *reads;
	int i, loads = 0, unloads = 0, ret;
	pid_t kids[3];
	int nkids = 0;

	reads = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, reads);
	ASSERT_EQ(0, pcore_fork_each(3, false, kid, reads, kids, &nkids));
	for (i = 0; i < CYCLES; i++) {
		ret = pcore_load(PARAMS);
		EXPECT_EQ(0, ret) {
			TH_LOG("cycle %d: load: %s", i, strerror(ret));
		}
		loads += !ret;
		usleep(20000);
		ret = pcore_unload_wait();
		EXPECT_EQ(0, ret) {
			TH_LOG("cycle %d: unload: %s", i, strerror(ret));
		}
		unloads += !ret;
	}
	for (i = 0; i < 3; i++) {
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	TH_LOG("%d loads, %d unloads, %lu reads of open files", loads,
	       unloads, *reads);
	EXPECT_EQ(CYCLES, loads);
	EXPECT_EQ(CYCLES, unloads);
	EXPECT_LT(0, *reads);
	EXPECT_FALSE(pcore_loaded());
}

TEST_HARNESS_MAIN
