// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/probe_core under concurrency: worker processes attach, detach,
 * enable, disable, read, reset and list the same and different names at
 * once while a fork and getppid() workload runs.  Every call answers 0 or
 * the errno its situation allows (ENOENT when another worker detached the
 * name, EINVAL when it is attached already), the kernel warns nothing,
 * everything detaches cleanly and probe_core unloads.
 */
#include "pcore_ioctl.h"
#include "kselftest_harness.h"

#define NWORKERS	4
#define RUN_SECONDS	8

FIXTURE(race) {
	int kmsg;
};

FIXTURE_SETUP(race)
{
	static const char * const mods[] = { "cpuhists", "probe_core" };

	PCORE_KMSG_SETUP(mods, 2);
	ASSERT_EQ(0, pcore_load("target=do_fork"));
	ASSERT_EQ(0, pcore_mod_load("cpuhists", NULL));
}

FIXTURE_TEARDOWN(race)
{
	static const char * const mods[] = { "cpuhists", "probe_core" };

	EXPECT_EQ(0, pcore_mods_unload(mods, 2));
	close(self->kmsg);
}

/* Names the workers share; the last ones only their readers touch. */
static const struct {
	const char *name;
	unsigned int kind;	/* 0: not attachable */
} names[] = {
	{ "do_fork", PCORE_ATTACH_KRETPROBE },
	{ "sys_getppid", PCORE_ATTACH_KRETPROBE },
	{ "sys_getpgrp", PCORE_ATTACH_KRETPROBE },
	{ "sched_switch", PCORE_ATTACH_TRACEPOINT },
	{ "cpuhists/oncpu", 0 },
	{ "cpuhists/offcpu", 0 },
};

static unsigned int race_rnd(unsigned int n)
{
	return (pcore_rnd() >> 33) % n;
}

/* The ioctls that take a name only: operations 1 to 4 of a worker. */
static const unsigned long name_cmds[] = {
	PCORE_IOC_DETACH, PCORE_IOC_ENABLE, PCORE_IOC_DISABLE, PCORE_IOC_RESET,
};

/* One worker: random operations until @until; exits 0 or 1 (a bad errno). */
static int worker(int id, double until)
{
	static struct pcore_ioc_bucket b[PCORE_MAXB];
	static struct pcore_ioc_entry e[PCORE_MAXE];
	unsigned long long ops = 0;
	int fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC), bad = 0;

	if (fd < 0)
		return 1;
	pcore_rnd_seed(0x9e3779b97f4a7c15ULL * (id + 1));
	pcore_pin(id & 1);
	while (pcore_now() < until) {
		unsigned int i = race_rnd(ARRAY_SIZE(names)), op = race_rnd(9), n, k;
		const char *name = names[i].name;
		struct pcore_ioc_read r;
		int ret, ok2 = -1;

		/* Workers 0 and 1 share all names; 2 and 3 one each mostly. */
		if (id >= 2 && race_rnd(4))
			name = names[id - 1].name, i = id - 1;
		switch (op) {
		case 0:
			if (!names[i].kind) {
				ret = pcore_attach(fd, name, PCORE_ATTACH_KRETPROBE);
				ok2 = EINVAL;	/* '/' is no name for attach */
				break;
			}
			ret = pcore_attach(fd, name, names[i].kind);
			ok2 = EINVAL;	/* attached already */
			break;
		case 1 ... 4:
			ret = pcore_name_ioc(fd, name_cmds[op - 1], name);
			ok2 = ENOENT;
			break;
		case 5:
			ret = pcore_rd(fd, name, (int)race_rnd(3) - 1, 0, 0, &r, b);
			ok2 = ENOENT;
			if (!ret) {
				unsigned long long sum = 0;

				for (k = 0; k < r.nbuckets; k++)
					sum += b[k].count;
				/* A snapshot's buckets add up to its count. */
				if (sum != r.count)
					bad++;
			}
			break;
		case 6:
			ret = pcore_rd(fd, name, -1, PCORE_READ_RESET |
				       (i >= 4 ? PCORE_READ_KEY : 0),
				       0, &r, b);
			ok2 = ENOENT;
			break;
		case 7:
			ret = pcore_list(fd, e, PCORE_MAXE, &n);
			break;
		default:
			for (k = 0; k < 20; k++)
				syscall(race_rnd(2) ? SYS_getppid : SYS_getpgrp);
			ret = 0;
			break;
		}
		if (ret && ret != ok2) {
			fprintf(stderr, "process %d: op %u on %s: %s\n", id, op,
				name, strerror(ret));
			bad++;
		}
		ops++;
	}
	close(fd);
	fprintf(stderr, "process %d: %llu operations\n", id, ops);
	return bad ? 1 : 0;
}

TEST_F_TIMEOUT(race, workers, 600)
{
	static char log[65536], kp[PCORE_BUF];
	static struct pcore_ioc_entry e[PCORE_MAXE];
	pid_t pids[NWORKERS + 1];
	double until = pcore_now() + RUN_SECONDS;
	unsigned int i, n;
	int fd, st;

	/* The workload: forks and getppid() until the end. */
	pids[NWORKERS] = fork();
	ASSERT_LE(0, pids[NWORKERS]);
	if (!pids[NWORKERS]) {
		while (pcore_now() < until) {
			if (pcore_forks(5))
				_exit(1);
			for (i = 0; i < 50; i++)
				syscall(SYS_getppid);
		}
		_exit(0);
	}
	for (i = 0; i < NWORKERS; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (!pids[i])
			_exit(worker(i, until));
	}
	for (i = 0; i <= NWORKERS; i++) {
		ASSERT_EQ(pids[i], waitpid(pids[i], &st, 0));
		EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) {
			TH_LOG("process %u: status %#x", i, st);
		}
	}

	/* Detach whatever is left: then only cpuhists is listed. */
	fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	for (i = 0; i < 4; i++) {
		int ret = pcore_name_ioc(fd, PCORE_IOC_DETACH, names[i].name);

		EXPECT_TRUE(ret == 0 || ret == ENOENT);
	}
	ASSERT_EQ(0, pcore_list(fd, e, PCORE_MAXE, &n));
	EXPECT_EQ(2, n);
	EXPECT_NE(NULL, pcore_entry(e, n, "cpuhists/oncpu"));
	EXPECT_NE(NULL, pcore_entry(e, n, "cpuhists/offcpu"));
	close(fd);
	EXPECT_EQ(0, pcore_read(KPROBES_LIST, kp, PCORE_BUF)) {
		TH_LOG("left in the kprobes list: %s", kp);
	}
	for (i = 0; i < 4; i++) {
		char path[256];

		snprintf(path, sizeof(path), PCORE_DBG "/%s", names[i].name);
		EXPECT_NE(0, access(path, F_OK));
	}
	EXPECT_EQ(0, pcore_mod_unload_wait("cpuhists"));
	EXPECT_EQ(0, pcore_unload_wait());
	EXPECT_NE(0, access(PCORE_DBG, F_OK));
	EXPECT_NE(0, access(PCORE_DEVICE, F_OK));
	EXPECT_EQ(0, pcore_kmsg_bad(self->kmsg, log, sizeof(log))) {
		TH_LOG("kernel log:\n%s", log);
	}
}

TEST_HARNESS_MAIN
