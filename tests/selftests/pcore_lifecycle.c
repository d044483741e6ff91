// SPDX-License-Identifier: GPL-2.0
/*
 * Load and unload order of probe_core and its handler modules (cpuhists,
 * the example; pcore_apitest and pcore_tpsrc, the test modules):
 *
 *   - a loaded handler holds probe_core: its unload fails, the handler is
 *     listed in /sys/module/probe_core/holders/;
 *   - a handler does not load without probe_core;
 *   - a handler that unloads without pcore_client_destroy() is cleaned up
 *     after, with one log line;
 *   - 20 load/unload cycles in four orders, while a child forks without
 *     pause and another reads every debugfs file: nothing is left after
 *     each cycle, and the kernel log has no warning.
 */
#include "pcore_lib.h"
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include "kselftest_harness.h"

#define KPROBES_LIST	"/sys/kernel/debug/kprobes/list"
#define APITEST		"pcore_apitest"
#define TPSRC		"pcore_tpsrc"
#define FIRE		"/sys/kernel/debug/pcore_tpsrc/fire"
#define HOLDERS		"/sys/module/probe_core/holders/"

static char buf[PCORE_BUF], log[1 << 16];

/* Handlers first, then probe_core, then the tracepoint's module. */
static const char * const mods[] = { APITEST, "cpuhists", "probe_core", TPSRC };

static int unload_all(void)
{
	return pcore_mods_unload(mods, ARRAY_SIZE(mods));
}

/* The first of our modules still loaded, or "". */
static const char *still_loaded(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mods); i++)
		if (pcore_mod_loaded(mods[i]))
			return mods[i];
	return "";
}

/* No module, no debugfs directory, no kprobe. */
static void expect_nothing_left(struct __test_metadata *_metadata)
{
	EXPECT_STREQ("", still_loaded());
	EXPECT_NE(0, access(PCORE_DBG, F_OK));
	EXPECT_NE(0, access(FIRE, F_OK));
	EXPECT_EQ(0, pcore_read(KPROBES_LIST, buf, PCORE_BUF)) {
		TH_LOG("left in %s: %s", KPROBES_LIST, buf);
	}
}

FIXTURE(life) {
	int kmsg;
};

FIXTURE_SETUP(life)
{
	ASSERT_EQ(0, unload_all());
	self->kmsg = kmsg_open();
	ASSERT_LE(0, self->kmsg);
}

FIXTURE_TEARDOWN(life)
{
	close(self->kmsg);
	EXPECT_EQ(0, unload_all());
	expect_nothing_left(_metadata);
}

TEST_F_TIMEOUT(life, core_held_by_handler, 60)
{
	ASSERT_EQ(0, pcore_load(NULL));
	ASSERT_EQ(0, pcore_mod_load("cpuhists", NULL));
	EXPECT_EQ(0, access(HOLDERS "cpuhists", F_OK));
	ASSERT_LT(0, pcore_read("/sys/module/probe_core/refcnt", buf, PCORE_BUF));
	EXPECT_STREQ("1\n", buf);
	/* who uses probe_core, and with what: 2 hists, 2 timers, 1 probe */
	ASSERT_LT(0, pcore_read(PCORE_DBG "/clients", buf, PCORE_BUF));
	EXPECT_STREQ("cpuhists 2 2 1\n", buf);

	/* delete_module() answers EWOULDBLOCK, which is EAGAIN. */
	EXPECT_EQ(EAGAIN, pcore_unload());
	EXPECT_TRUE(pcore_loaded());
	EXPECT_EQ(0, access(PCORE_DBG "/cpuhists/oncpu/stats", F_OK));

	ASSERT_EQ(0, pcore_mod_unload_wait("cpuhists"));
	EXPECT_NE(0, access(HOLDERS "cpuhists", F_OK));
	EXPECT_NE(0, access(PCORE_DBG "/cpuhists", F_OK));
	ASSERT_LE(0, pcore_read(PCORE_DBG "/clients", buf, PCORE_BUF));
	EXPECT_STREQ("", buf);
	ASSERT_LT(0, pcore_read("/sys/module/probe_core/refcnt", buf, PCORE_BUF));
	EXPECT_STREQ("0\n", buf);
	ASSERT_EQ(0, pcore_unload());
	EXPECT_EQ(0, kmsg_collect(self->kmsg, log, sizeof(log))) {
		TH_LOG("log lines:\n%s", log);
	}
}

TEST_F_TIMEOUT(life, handler_needs_core, 60)
{
	const char *p;
	int n;

	EXPECT_EQ(ENOENT, pcore_mod_load("cpuhists", NULL));
	EXPECT_FALSE(pcore_mod_loaded("cpuhists"));
	/* One line per missing symbol, all of them probe_core's. */
	n = kmsg_collect(self->kmsg, log, sizeof(log));
	EXPECT_LE(1, n);
	for (p = log; *p; p = strchr(p, '\n') + 1)
		EXPECT_EQ(0, strncmp(p, "cpuhists: Unknown symbol pcore_", 31)) {
			TH_LOG("log lines:\n%s", log);
			break;
		}
}

/*
 * pcore_apitest case=no_destroy: a kretprobe on do_fork feeding "fork",
 * a kprobe, a sched_switch probe and a timer; its exit function does not
 * call pcore_client_destroy().
 */
TEST_F_TIMEOUT(life, no_destroy_cleaned_up, 120)
{
	struct pcore_probe_line l;
	unsigned long long f0;

	ASSERT_EQ(0, pcore_load(NULL));
	f0 = pcore_nr_forks();
	ASSERT_EQ(0, pcore_mod_load(APITEST, "case=no_destroy"));
	EXPECT_EQ(0, kmsg_collect(self->kmsg, log, sizeof(log)));
	ASSERT_EQ(0, pcore_probe_line("pcore_apitest/fork", &l));
	EXPECT_STREQ("kernel_clone", l.symbol);
	ASSERT_EQ(0, pcore_probe_line("pcore_apitest/read", &l));
	EXPECT_STREQ("vfs_read", l.symbol);
	ASSERT_EQ(0, pcore_probe_line("pcore_apitest/switch", &l));
	EXPECT_STREQ("sched_switch", l.symbol);
	ASSERT_LT(0, pcore_read(KPROBES_LIST, buf, PCORE_BUF));
	EXPECT_NE(NULL, strstr(buf, "kernel_clone"));
	EXPECT_NE(NULL, strstr(buf, "vfs_read"));

	/* It works: our forks are counted, and the kernel's own if any. */
	ASSERT_EQ(0, pcore_forks(50));
	EXPECT_FORKS(50, pcore_stat("pcore_apitest/fork", "count"), f0);
	EXPECT_EQ(0, access(HOLDERS APITEST, F_OK));

	ASSERT_EQ(0, pcore_mod_unload_wait(APITEST));
	EXPECT_EQ(1, kmsg_collect(self->kmsg, log, sizeof(log))) {
		TH_LOG("log lines:\n%s", log);
	}
	EXPECT_NE(NULL, strstr(log, "probe_core: pcore_apitest: unloaded without pcore_client_destroy(); destroyed its client"));
	EXPECT_NE(0, access(PCORE_DBG "/pcore_apitest", F_OK));
	ASSERT_LE(0, pcore_read(PCORE_DBG "/probes", buf, PCORE_BUF));
	EXPECT_STREQ("", buf);
	EXPECT_EQ(0, pcore_read(KPROBES_LIST, buf, PCORE_BUF));
	ASSERT_EQ(0, pcore_forks(10));
	ASSERT_EQ(0, pcore_unload());
}

/*
 * Files of a handler's directory held open while the handler unloads: the
 * unload goes through (the files belong to probe_core), reads then fail
 * with EIO, and each open file holds probe_core until it is closed.
 */
TEST_F_TIMEOUT(life, files_open_across_unload, 60)
{
	static const char * const files[] = {
		PCORE_DBG "/pcore_apitest/direct/stats",
		PCORE_DBG "/pcore_apitest/direct/interval",
		PCORE_DBG "/pcore_apitest/direct/keys",
		PCORE_DBG "/pcore_apitest/direct/percpu",
		PCORE_DBG "/pcore_apitest/timers",
	};
	int fd[5], i;
	char part[16];

	ASSERT_EQ(0, pcore_load(NULL));
	ASSERT_EQ(0, pcore_mod_load(APITEST, "case=keys_direct"));
	for (i = 0; i < 5; i++) {
		fd[i] = open(files[i], pcore_rdflags(files[i]));
		ASSERT_LE(0, fd[i]) {
			TH_LOG("%s: %s", files[i], strerror(errno));
		}
		/*
		 * stats half read (before interval's open harvests the
		 * counts): the rest comes after the unload.
		 */
		if (!i) {
			ASSERT_EQ(sizeof(part), read(fd[0], part, sizeof(part)));
			EXPECT_EQ(0, strncmp(part, "keys: 3\ndropped:",
					     sizeof(part)));
		}
	}

	ASSERT_EQ(0, pcore_mod_unload_wait(APITEST));
	EXPECT_NE(0, access(PCORE_DBG "/pcore_apitest", F_OK));
	for (i = 0; i < 5; i++) {
		EXPECT_EQ(-1, read(fd[i], buf, 4096));
		EXPECT_EQ(EIO, errno) {
			TH_LOG("%s: %s", files[i], strerror(errno));
		}
	}
	ASSERT_LT(0, pcore_read("/sys/module/probe_core/refcnt", buf, PCORE_BUF));
	EXPECT_STREQ("5\n", buf);
	EXPECT_EQ(EAGAIN, pcore_unload());
	for (i = 0; i < 5; i++)
		EXPECT_EQ(0, close(fd[i]));
	ASSERT_EQ(0, pcore_unload());
	EXPECT_EQ(0, kmsg_collect(self->kmsg, log, sizeof(log))) {
		TH_LOG("log lines:\n%s", log);
	}
}

/* Reads every file a cycle may create, until killed; counts what it read. */
static void reader(unsigned long *reads)
{
	static const char * const files[] = {
		PCORE_DBG "/probes",
		PCORE_DBG "/timers",
		PCORE_DBG "/cpuhists/timers",
		PCORE_DBG "/cpuhists/oncpu/hist",
		PCORE_DBG "/cpuhists/oncpu/stats",
		PCORE_DBG "/cpuhists/oncpu/keys",
		PCORE_DBG "/cpuhists/oncpu/percpu",
		PCORE_DBG "/cpuhists/offcpu/interval",
		PCORE_DBG "/pcore_apitest/timers",
		PCORE_DBG "/pcore_apitest/tp/stats",
		PCORE_DBG "/pcore_apitest/tp/interval",
		PCORE_DBG "/pcore_apitest/fork/hist",
		PCORE_DBG "/pcore_apitest/fork/percpu",
	};
	static char rbuf[PCORE_BUF];
	unsigned int i;

	for (;;) {
		for (i = 0; i < ARRAY_SIZE(files); i++) {
			if (pcore_read(files[i], rbuf, sizeof(rbuf)) > 0)
				__atomic_add_fetch(reads, 1, __ATOMIC_RELAXED);
			/* Files open most of the time would hold unloads off. */
			usleep(1000);
		}
	}
}

static void forker(void)
{
	for (;;)
		pcore_forks(1);
}

static int fire(unsigned int n)
{
	char s[16];

	snprintf(s, sizeof(s), "%u", n);
	return pcore_write(FIRE, s, strlen(s));
}

static void tp_hits(struct __test_metadata *_metadata, unsigned long long n)
{
	struct pcore_probe_line l;

	ASSERT_EQ(0, pcore_probe_line("pcore_apitest/tp", &l));
	EXPECT_STREQ("pcore_tpsrc_event", l.symbol);
	EXPECT_EQ(n, l.hits);
}

/* One cycle, in one of four orders. */
static void cycle(struct __test_metadata *_metadata, int order)
{
	switch (order) {
	case 0:	/* the example alone; probe_core refuses to go first */
		ASSERT_EQ(0, pcore_load(NULL));
		ASSERT_EQ(0, pcore_mod_load("cpuhists", NULL));
		usleep(20000);
		EXPECT_EQ(EAGAIN, pcore_unload());
		ASSERT_EQ(0, pcore_mod_unload_wait("cpuhists"));
		ASSERT_EQ(0, pcore_unload_wait());
		break;
	case 1:	/* two handlers; the tracepoint's module last in, first out */
		ASSERT_EQ(0, pcore_load("target=vfs_read"));
		ASSERT_EQ(0, pcore_mod_load(APITEST, "case=tp_wait"));
		ASSERT_EQ(0, pcore_mod_load("cpuhists", NULL));
		ASSERT_EQ(0, pcore_mod_load(TPSRC, NULL));
		ASSERT_EQ(0, fire(100));
		tp_hits(_metadata, 100);
		ASSERT_EQ(0, pcore_mod_unload_wait(TPSRC));
		ASSERT_EQ(0, pcore_mod_unload_wait("cpuhists"));
		ASSERT_EQ(0, pcore_mod_unload_wait(APITEST));
		ASSERT_EQ(0, pcore_unload_wait());
		break;
	case 2:	/* the tracepoint's module first in, last out */
		ASSERT_EQ(0, pcore_mod_load(TPSRC, NULL));
		ASSERT_EQ(0, pcore_load(NULL));
		ASSERT_EQ(0, pcore_mod_load(APITEST, "case=tp_nowait"));
		ASSERT_EQ(0, fire(10));
		tp_hits(_metadata, 10);
		EXPECT_EQ(EAGAIN, pcore_unload());
		ASSERT_EQ(0, pcore_mod_unload_wait(APITEST));
		ASSERT_EQ(0, pcore_unload_wait());
		ASSERT_EQ(0, fire(10));
		ASSERT_EQ(0, pcore_mod_unload_wait(TPSRC));
		break;
	case 3:	/* a handler that leaves its client behind, among others */
		ASSERT_EQ(0, pcore_load("tracepoints=sched_switch"));
		ASSERT_EQ(0, pcore_mod_load(APITEST, "case=no_destroy"));
		ASSERT_EQ(0, pcore_mod_load("cpuhists", NULL));
		usleep(20000);
		ASSERT_EQ(0, pcore_mod_unload_wait(APITEST));
		ASSERT_EQ(0, pcore_mod_unload_wait("cpuhists"));
		ASSERT_EQ(0, pcore_unload_wait());
		break;
	}
}

#define CYCLES	8	/* each of the four orders twice */

TEST_F_TIMEOUT(life, cycles_under_load, 600)
{
	unsigned long *reads;
	pid_t rd, fk;
	const char *p;
	int i, st;

	reads = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, reads);
	/* Both children die with the test, even when an assertion ends it. */
	fk = fork();
	ASSERT_LE(0, fk);
	if (!fk) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		forker();
	}
	rd = fork();
	if (!rd) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		reader(reads);
	}
	ASSERT_LE(0, rd);

	for (i = 0; i < CYCLES && _metadata->passed; i++) {
		cycle(_metadata, i % 4);
		expect_nothing_left(_metadata);
	}
	kill(rd, SIGKILL);
	kill(fk, SIGKILL);
	waitpid(rd, &st, 0);
	waitpid(fk, &st, 0);
	EXPECT_EQ(CYCLES, i);
	/* The reader did read while modules were loaded. */
	TH_LOG("%lu files read", *reads);
	EXPECT_LT(CYCLES, *reads);

	/* Expected lines only: no warning, no stack dump. */
	ASSERT_LE(0, kmsg_collect(self->kmsg, log, sizeof(log)));
	for (p = log; *p; p = strchr(p, '\n') + 1)
		EXPECT_EQ(0, strncmp(p, "probe_core: ", 12)) {
			TH_LOG("unexpected log line: %.*s",
			       (int)(strchr(p, '\n') - p), p);
		}
	EXPECT_EQ(NULL, strstr(log, "WARNING")) {
		TH_LOG("%s", log);
	}
}

TEST_HARNESS_MAIN
