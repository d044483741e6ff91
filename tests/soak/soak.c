// SPDX-License-Identifier: GPL-2.0
/*
 * Soak and fuzz (make soak; make check runs the short form):
 *
 *   cycles   load/unload probe_core (target=do_fork,do_nanosleep,
 *            tracepoints=sched_switch,offcpu: off-CPU stacks of tasks
 *            that sleep inside a kretprobe, as the readers and workers
 *            here do in usleep()) and cpuhists, again and again, while
 *            both CPUs fork and read and reader processes hold debugfs
 *            files and /dev/probe_core open;
 *   hotplug  CPU 1 offline and online in a loop while recording, forks
 *            pinned to each CPU: exact per-CPU and merged counts after;
 *   fuzz     two processes send seeded random ioctls to /dev/probe_core
 *            and random writes to its debugfs files: every call answers
 *            0 or a documented errno, and afterwards everything unloads
 *            and nothing stays registered;
 *   leaks    kmemleak finds nothing (kernels that have it).
 *
 * Environment (the defaults are the short form):
 *   PCORE_SEED           fuzz seed (default: the time), always printed
 *   PCORE_SOAK_CYCLES    load/unload cycles (100)
 *   PCORE_SOAK_HOTPLUG   offline/online rounds of CPU 1 (20)
 *   PCORE_SOAK_FUZZ_OPS  fuzz operations, both processes together (2000)
 */
#include "pcore_ioctl.h"
#include <signal.h>
#include "kselftest_harness.h"
#include "pcore_ioctl_fuzz.h"

#define PARAMS		"target=do_fork,do_nanosleep tracepoints=sched_switch,offcpu"
#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"
#define KMEMLEAK	"/sys/kernel/debug/kmemleak"
#define HOLD_EVERY	10	/* every 10th cycle unloads with files held */
#define HOTPLUG_FORKS	10	/* forks per CPU and round */

static const char * const mods[] = { "cpuhists", "probe_core" };

static unsigned long long param(const char *name, unsigned long long def)
{
	const char *s = getenv(name);

	return s && *s ? strtoull(s, NULL, 0) : def;
}

/* Shared between a test and its children: counters, first bad errno. */
struct shared {
	unsigned long long reads, ioctls, refused, bad;
	char why[256];
};

static struct shared *shared_new(void)
{
	void *p = mmap(NULL, sizeof(struct shared), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : memset(p, 0, sizeof(struct shared));
}

static void add(unsigned long long *c)
{
	__atomic_add_fetch(c, 1, __ATOMIC_RELAXED);
}

static void bad(struct shared *sh, const char *what, int err)
{
	if (!__atomic_fetch_add(&sh->bad, 1, __ATOMIC_RELAXED))
		snprintf(sh->why, sizeof(sh->why), "%s: %s", what, strerror(err));
}

static void kill_all(pid_t *pids, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (pids[i] <= 0)
			continue;
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
}

/*
 * Unload @name, retrying while open files hold it (EAGAIN) for up to 60 s;
 * returns 0 or the errno, *busy the refusals.
 */
static int unload_counting(const char *name, unsigned long long *busy)
{
	double until = pcore_now() + 60;
	int ret;

	for (;;) {
		ret = pcore_mod_unload(name);
		if ((ret != EAGAIN && ret != EBUSY) || pcore_now() > until)
			return ret;
		(*busy)++;
		usleep(1000);
	}
}

/*
 * Before the tests: the parameters and the seed (fixed here, so that a
 * replay gets the same), and kmemleak's reports of the boot set aside;
 * kmemleak's own scanning thread stopped.
 */
static void __attribute__((constructor)) soak_begin(void)
{
	char seed[32];

	if (!getenv("PCORE_SEED")) {
		snprintf(seed, sizeof(seed), "%llu", (unsigned long long)time(NULL));
		setenv("PCORE_SEED", seed, 1);
	}
	printf("# soak: PCORE_SOAK_CYCLES=%llu PCORE_SOAK_HOTPLUG=%llu PCORE_SOAK_FUZZ_OPS=%llu PCORE_SEED=%llu\n",
	       param("PCORE_SOAK_CYCLES", 100), param("PCORE_SOAK_HOTPLUG", 20),
	       param("PCORE_SOAK_FUZZ_OPS", 2000), param("PCORE_SEED", 0));
	if (!access(KMEMLEAK, W_OK)) {
		static char rep[PCORE_BUF];
		const char *p = rep;
		int n = 0;

		/* Only our scans: the kernel's, every 600 s, take 25 s each. */
		pcore_write(KMEMLEAK, "scan=off", 8);
		pcore_write(KMEMLEAK, "scan", 4);
		if (pcore_read(KMEMLEAK, rep, sizeof(rep)) < 0)
			rep[0] = '\0';
		while ((p = strstr(p, "unreferenced object")))
			n++, p++;
		pcore_write(KMEMLEAK, "clear", 5);
		printf("# soak: kmemleak: %d reports from before the soak set aside\n", n);
	}
	fflush(stdout);
}

FIXTURE(soak) {
	int kmsg;
};

FIXTURE_SETUP(soak)
{
	PCORE_KMSG_SETUP(mods, 2);
}

FIXTURE_TEARDOWN(soak)
{
	static char log[65536];

	pcore_write(CPU1_ONLINE, "1", 1);
	PCORE_KMSG_TEARDOWN(mods, 2, log);
}

/*
 * Forks and reads on @cpu until killed, and calls what the fuzz may
 * attach to (getppid, getpgrp).
 */
static void worker(int cpu)
{
	static char b[4096];
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);

	pcore_pin(cpu);
	for (;;) {
		pcore_forks(1);
		if (fd >= 0 && pread(fd, b, sizeof(b), 0) < 0)
			_exit(1);
		syscall(SYS_getppid);
		syscall(SYS_getpgrp);
		usleep(100);
	}
}

/* Whether any of the @n files is open. */
static bool held_any(const int *fd, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (fd[i] >= 0)
			return true;
	return false;
}

/*
 * Opens debugfs files and /dev/probe_core, reads and asks, holds them a
 * little, closes them, pauses; until killed.  The module may be loaded,
 * on its way in or out, or gone: opens may find nothing (ENOENT), a
 * module going away (ENXIO, ENODEV) or a file removed (EIO); a file of
 * cpuhists, which unloads while probe_core stays, answers EIO once gone.
 */
static void reader(struct shared *sh, int cpu)
{
	static const char * const files[] = {
		PCORE_DBG "/probes", PCORE_DBG "/clients",
		PCORE_DBG "/do_fork/hist", PCORE_DBG "/do_fork/percpu",
		PCORE_DBG "/do_fork/stats", PCORE_DBG "/sched_switch/percpu",
		PCORE_DBG "/sched_switch/interval",
		PCORE_DBG "/do_nanosleep/hist", PCORE_DBG "/offcpu/stacks",
		PCORE_DBG "/offcpu/interval", PCORE_DBG "/timers",
		PCORE_DBG "/cpuhists/oncpu/hist", PCORE_DBG "/cpuhists/offcpu/percpu",
		PCORE_DBG "/cpuhists/timers",
	};
	static struct pcore_ioc_entry e[PCORE_MAXE];
	static struct pcore_ioc_bucket b[PCORE_MAXB];
	static char buf[65536];
	struct pcore_ioc_read r;
	int fd[ARRAY_SIZE(files)], dev, ret;
	unsigned int i, n;
	double t0;

	pcore_pin(cpu);
	for (;;) {
		t0 = pcore_now();
		for (i = 0; i < ARRAY_SIZE(files); i++) {
			fd[i] = open(files[i], pcore_rdflags(files[i]));
			if (fd[i] < 0 && errno != ENOENT && errno != ENXIO &&
			    errno != EIO)
				bad(sh, files[i], errno);
		}
		for (i = 0; i < ARRAY_SIZE(files); i++) {
			if (fd[i] < 0)
				continue;
			if (read(fd[i], buf, sizeof(buf)) >= 0)
				add(&sh->reads);
			else if (errno != EIO)
				bad(sh, files[i], errno);
		}
		/*
		 * The device after the reads, tried for up to 100 ms while
		 * the files are held (they keep probe_core loaded: an
		 * rmmod meanwhile is refused): a read of a file opened
		 * while probe_core's init runs waits for it (its lock),
		 * the device comes last in the init, and its node a moment
		 * after.  Opened once, before the reads, the device was
		 * missed in every round once the init took as long as a
		 * round's rhythm (mechanism=auto reads BTF at the load: 0
		 * ioctl rounds in 100 cycles).
		 */
		for (i = 0; i < 20; i++) {
			dev = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
			if (dev >= 0)
				break;
			if (errno != ENOENT && errno != ENODEV && errno != ENXIO)
				bad(sh, "open " PCORE_DEVICE, errno);
			if (!held_any(fd, ARRAY_SIZE(files)))
				break;
			usleep(5000);
		}
		if (dev >= 0) {
			ret = pcore_list(dev, e, PCORE_MAXE, &n);
			if (ret)
				bad(sh, "LIST", ret);
			ret = pcore_rd(dev, "do_fork", -1, 0, 0, &r, b);
			if (ret)
				bad(sh, "READ do_fork", ret);
			ret = pcore_rd(dev, "cpuhists/oncpu", cpu, 0, 0, &r, b);
			if (ret && ret != ENOENT)
				bad(sh, "READ cpuhists/oncpu", ret);
			add(&sh->ioctls);
		}
		usleep(2000);
		for (i = 0; i < ARRAY_SIZE(files); i++)
			if (fd[i] >= 0)
				close(fd[i]);
		if (dev >= 0)
			close(dev);
		/*
		 * A window for rmmod: twice as long as the files were held
		 * (a round takes tens of ms under emulation, seconds on the
		 * debug kernel), or two readers out of step would leave the
		 * module free only by chance.
		 */
		usleep(20000 + 2e6 * (pcore_now() - t0));
	}
}

/* Child @k of the cycles: two workers, then readers; never returns. */
static int cycles_kid(int k, void *sh)
{
	if (k < 2)
		worker(k);
	reader(sh, k & 1);
	return 0;
}

/* Waits up to 5 s for stats "count" of @hist to reach @n; 0 or -1. */
static int wait_count(const char *hist, unsigned long long n)
{
	double until = pcore_now() + 5;
	unsigned long long c;

	do {
		c = pcore_stat(hist, "count");
		if (c != -1ULL && c >= n)
			return 0;
		usleep(1000);
	} while (pcore_now() < until);
	return -1;
}

TEST_F_TIMEOUT(soak, cycles, 36000)
{
	unsigned long long cycles = param("PCORE_SOAK_CYCLES", 100);
	unsigned long long loads = 0, unloads = 0, recorded = 0, busy = 0;
	unsigned long long held = 0, held_refused = 0, held_eio = 0, i;
	double t0 = pcore_now(), t, t_load = 0, t_rec = 0, t_unload = 0;
	static char b[4096];
	struct shared *sh = shared_new();
	pid_t kids[4] = { 0 };
	int nkids = 0, ret, f1, f2, dev;

	ASSERT_NE(NULL, sh);
	ASSERT_EQ(0, pcore_fork_each(4, false, cycles_kid, sh, kids, &nkids));
	for (i = 0; i < cycles; i++) {
		t = pcore_now();
		ret = pcore_load(PARAMS);
		EXPECT_EQ(0, ret) TH_LOG("cycle %llu: load: %s", i, strerror(ret));
		if (ret)
			break;
		ret = pcore_mod_load("cpuhists", NULL);
		EXPECT_EQ(0, ret) TH_LOG("cycle %llu: cpuhists: %s", i, strerror(ret));
		if (ret)
			break;
		loads++;
		t_load += pcore_now() - t;
		t = pcore_now();
		/* The workers' forks and the scheduler are being recorded. */
		if (!wait_count("do_fork", 2) && !wait_count("sched_switch", 1))
			recorded++;
		/*
		 * Until the readers have asked the device once (10 s at
		 * most): a reader's round, and its pause, take seconds on
		 * the debug kernel, and probe_core stays loaded less than
		 * that once recorded; in the short soak's 10 cycles they
		 * missed it every time once (0 ioctl rounds, 91b3b25).
		 */
		while (!__atomic_load_n(&sh->ioctls, __ATOMIC_RELAXED) &&
		       pcore_now() - t < 10)
			usleep(10000);
		t_rec += pcore_now() - t;
		t = pcore_now();
		if (i % HOLD_EVERY == 0) {
			/*
			 * Unload with files held: cpuhists goes (its file
			 * belongs to probe_core and answers EIO now), then
			 * probe_core refuses while its files are open.
			 */
			held++;
			f1 = open(PCORE_DBG "/cpuhists/oncpu/hist", O_RDONLY);
			f2 = open(PCORE_DBG "/do_fork/percpu", O_RDONLY);
			dev = open(PCORE_DEVICE, O_RDWR);
			EXPECT_LE(0, f1);
			EXPECT_LE(0, f2);
			EXPECT_LE(0, dev);
			EXPECT_EQ(0, unload_counting("cpuhists", &busy));
			if (f1 >= 0 && read(f1, b, sizeof(b)) < 0 && errno == EIO)
				held_eio++;
			if (pcore_unload() == EAGAIN)
				held_refused++;
			EXPECT_TRUE(pcore_loaded());
			if (f2 >= 0)
				EXPECT_LT(0, read(f2, b, sizeof(b)));
			close(f1);
			close(f2);
			close(dev);
		}
		if (pcore_mod_loaded("cpuhists")) {
			ret = unload_counting("cpuhists", &busy);
			EXPECT_EQ(0, ret) TH_LOG("cycle %llu: cpuhists: %s", i,
						 strerror(ret));
		}
		ret = unload_counting("probe_core", &busy);
		EXPECT_EQ(0, ret) TH_LOG("cycle %llu: unload: %s", i, strerror(ret));
		if (ret)
			break;
		unloads++;
		t_unload += pcore_now() - t;
	}
	kill_all(kids, 4);
	TH_LOG("cycles: %llu loads, %llu unloads, %llu recorded, %llu refusals while readers held files, %llu of %llu held unloads refused, %llu EIO after cpuhists went; readers: %llu reads, %llu ioctl rounds; %.1f s",
	       loads, unloads, recorded, busy, held_refused, held, held_eio,
	       sh->reads, sh->ioctls, pcore_now() - t0);
	TH_LOG("cycles: %.1f s loading, %.1f s until recorded, %.1f s unloading",
	       t_load, t_rec, t_unload);
	EXPECT_EQ(cycles, loads);
	EXPECT_EQ(cycles, unloads);
	EXPECT_EQ(cycles, recorded);
	EXPECT_EQ((cycles + HOLD_EVERY - 1) / HOLD_EVERY, held);
	EXPECT_EQ(held, held_refused);
	EXPECT_EQ(held, held_eio);
	EXPECT_LT(cycles, sh->reads);
	EXPECT_LT(0, sh->ioctls);
	EXPECT_EQ(0, sh->bad) TH_LOG("readers: %llu bad answers, first %s",
				     sh->bad, sh->why);
	EXPECT_FALSE(pcore_loaded());
	EXPECT_NE(0, access(PCORE_DBG, F_OK));
}

/* Reads percpu files and snapshots per CPU until killed; never forks. */
static void hotplug_reader(struct shared *sh)
{
	static const char * const files[] = {
		PCORE_DBG "/do_fork/percpu", PCORE_DBG "/sched_switch/percpu",
		PCORE_DBG "/cpuhists/oncpu/percpu", PCORE_DBG "/do_fork/stats",
	};
	static struct pcore_ioc_bucket b[PCORE_MAXB];
	static char buf[PCORE_BUF];
	struct pcore_ioc_read r;
	int dev = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC), cpu, ret;
	unsigned int i;

	for (;;) {
		for (i = 0; i < ARRAY_SIZE(files); i++) {
			if (pcore_read(files[i], buf, sizeof(buf)) > 0)
				add(&sh->reads);
			else
				bad(sh, files[i], errno);
		}
		for (cpu = -1; cpu < 2; cpu++) {
			ret = pcore_rd(dev, "do_fork", cpu, 0, 0, &r, b);
			if (ret)
				bad(sh, "READ do_fork", ret);
			add(&sh->ioctls);
		}
		usleep(1000);
	}
}

TEST_F_TIMEOUT(soak, hotplug, 36000)
{
	unsigned long long rounds = param("PCORE_SOAK_HOTPLUG", 20);
	unsigned long long ours0 = 0, ours1 = 0, p0, p1, stats, extra, r;
	struct pcore_percpu pc, ss;
	struct shared *sh = shared_new();
	double t0 = pcore_now();
	pid_t kid;
	int cpu;

	if (access(CPU1_ONLINE, W_OK))
		SKIP(return, "CPU 1 cannot go offline here");
	ASSERT_NE(NULL, sh);
	ASSERT_EQ(0, pcore_load(PARAMS));
	ASSERT_EQ(0, pcore_mod_load("cpuhists", NULL));
	kid = fork();
	ASSERT_LE(0, kid);
	if (!kid)
		hotplug_reader(sh);

	/*
	 * Every fork from the reset to the last read is ours, unless the
	 * kernel forks meanwhile (a kworker): /proc/stat "processes" around
	 * the window bounds those.
	 */
	ASSERT_EQ(0, pcore_pin(0));
	p0 = pcore_nr_forks();
	ASSERT_EQ(0, pcore_write(PCORE_DBG "/do_fork/reset", "1", 1));
	for (r = 0; r < rounds; r++) {
		ASSERT_EQ(0, pcore_pin(1));
		ASSERT_EQ(0, pcore_forks(HOTPLUG_FORKS));
		ours1 += HOTPLUG_FORKS;
		ASSERT_EQ(0, pcore_pin(0));
		ASSERT_EQ(0, pcore_write(CPU1_ONLINE, "0", 1)) TH_LOG("round %llu", r);
		ASSERT_EQ(0, pcore_forks(HOTPLUG_FORKS));
		ours0 += HOTPLUG_FORKS;
		ASSERT_EQ(0, pcore_write(CPU1_ONLINE, "1", 1)) TH_LOG("round %llu", r);
	}
	ASSERT_EQ(0, pcore_percpu_parse(PCORE_DBG "/do_fork/percpu", &pc));
	stats = pcore_stat("do_fork", "count");
	p1 = pcore_nr_forks();
	ASSERT_EQ(0, pcore_percpu_parse(PCORE_DBG "/sched_switch/percpu", &ss));
	kill_all(&kid, 1);

	extra = p1 - p0 - ours0 - ours1;
	TH_LOG("hotplug: %llu rounds; do_fork cpu0 %llu (ours %llu), cpu1 %llu (ours %llu), total %llu, kernel forks meanwhile %llu (%s); sched_switch total %llu; reader: %llu reads, %llu snapshots; %.1f s",
	       rounds, pc.count[0], ours0, pc.count[1], ours1, pc.tc, extra,
	       extra ? "bounded" : "exact", ss.tc, sh->reads, sh->ioctls,
	       pcore_now() - t0);
	ASSERT_LE(2, pc.ncpu);
	for (cpu = 0; cpu < pc.ncpu; cpu++) {
		EXPECT_EQ(pc.count[cpu], pc.hist[cpu]) TH_LOG("do_fork cpu%d", cpu);
		EXPECT_EQ(ss.count[cpu], ss.hist[cpu]) TH_LOG("sched_switch cpu%d", cpu);
	}
	/* Per CPU: ours and no more than the kernel's own forks. */
	EXPECT_LE(ours0, pc.count[0]);
	EXPECT_LE(ours1, pc.count[1]);
	EXPECT_GE(ours0 + extra, pc.count[0]);
	EXPECT_GE(ours1 + extra, pc.count[1]);
	/* Merged: the CPUs add up, and the window bounds it. */
	EXPECT_EQ(pc.c, pc.tc);
	EXPECT_EQ(pc.s, pc.ts);
	EXPECT_EQ(pc.mn, pc.tmn);
	EXPECT_EQ(pc.mx, pc.tmx);
	EXPECT_LE(ours0 + ours1, pc.tc);
	EXPECT_GE(ours0 + ours1 + extra, pc.tc);
	EXPECT_LE(pc.tc, stats);
	EXPECT_GE(ours0 + ours1 + extra, stats);
	EXPECT_EQ(ss.c, ss.tc);
	EXPECT_LT(0, ss.count[0]);
	EXPECT_LT(0, ss.count[1]);
	EXPECT_LT(0, sh->reads);
	EXPECT_EQ(0, sh->bad) TH_LOG("reader: %llu bad answers, first %s",
				     sh->bad, sh->why);
	EXPECT_EQ(0, pcore_mods_unload(mods, 2));
}

/*
 * The fuzzer draws from pcore_rnd(), seeded, so that PCORE_SEED replays a
 * run (the operations, not the interleaving of the two processes).  Its
 * ioctls are pcore_ioctl_bad's (pcore_ioctl_fuzz.h), three in four of them
 * with a known command.
 */

/* Answers per kind; the last is anything else (a failure). */
enum {
	A_OK, A_ENOTTY, A_EFAULT, A_EINVAL, A_ENOENT, A_ENOSPC, A_EIO,
	A_ESPIPE, A_EFILE, A_EACCES, A_OTHER, A_N
};

struct fuzz_counts {
	unsigned long long ioc[A_N], wr[A_N], ops;
	char why[512];
};

static int answer(int err)
{
	switch (err) {
	case 0:
		return A_OK;
	case ENOTTY:
		return A_ENOTTY;
	case EFAULT:
		return A_EFAULT;
	case EINVAL:
		return A_EINVAL;
	case ENOENT:
		return A_ENOENT;
	case ENOSPC:
		return A_ENOSPC;
	case EIO:
		return A_EIO;
	case ESPIPE:
		return A_ESPIPE;
	case EBADF:	/* a uprobe's file: fd 0 may be none... */
	case ENOEXEC:	/* ...or not ELF */
		return A_EFILE;
	case EACCES:
		return A_EACCES;
	}
	return A_OTHER;
}

/* One random write (or read) of a debugfs file; 0 or the errno. */
static int fuzz_debugfs(void *unmapped, char *what, size_t len)
{
	static const char * const hists[] = {
		"do_fork", "sched_switch", "cpuhists/oncpu", "cpuhists/offcpu",
		"do_fork", "sched_switch", "sys_getppid", "sys_getpgrp", "nosuch",
	};
	static const char * const files[] = {
		"reset", "reset", "reset", "reset", "hist", "stats", "percpu",
		"interval", "keys",
	};
	static const char * const strs[] = {
		"1", "1\n", "1", "1\n", "0", "2", "", "abc", "-1", "0x1", " 1", "1 1",
		"+1", "01", "1\n\n", "\n", "99999999999999999999", "4294967297",
	};
	static char data[8192], got[65536];
	const char *s = (const char *)data;
	size_t n;
	ssize_t ret;
	int fd, err, rw;
	size_t j;

	if (pcore_rnd() % 8)
		snprintf(what, len, PCORE_DBG "/%s/%s",
			 hists[pcore_rnd() % ARRAY_SIZE(hists)],
			 files[pcore_rnd() % ARRAY_SIZE(files)]);
	else
		snprintf(what, len, PCORE_DBG "/%s",
			 pcore_rnd() % 2 ? "probes" : "clients");
	rw = !(pcore_rnd() % 4);
	fd = open(what, rw ? O_RDWR : O_WRONLY);
	if (fd < 0)
		return errno;
	switch (pcore_rnd() % 4) {
	case 0:
		n = pcore_rnd() % sizeof(data);
		for (j = 0; j < n; j++)
			data[j] = pcore_rnd();
		break;
	case 1:
		/*
		 * A bad pointer is copied from only by a write of 1 or 2
		 * bytes (reset's longest answer is "1\n"; longer ones are
		 * EINVAL before any copy, as case 0 shows).  With any length
		 * up to 63, a debugfs write's EFAULT was a matter of luck:
		 * none in the 504 writes of seed 1795672037.
		 */
		s = pcore_fuzz_ptr(data, unmapped);
		n = 1 + pcore_rnd() % 2;
		memset(data, '1', n);
		break;
	default:
		s = strs[pcore_rnd() % ARRAY_SIZE(strs)];
		n = strlen(s);
		if (!(pcore_rnd() % 4))
			n = pcore_rnd() % 32;		/* short or past the end */
		break;
	}
	if (!rw || pcore_rnd() % 4)
		ret = pcore_rnd() % 2 ? write(fd, s, n) : pwrite(fd, s, n, pcore_rnd() % 64);
	else
		ret = pread(fd, pcore_rnd() % 4 ? got : (char *)pcore_fuzz_ptr(got, unmapped),
			    pcore_rnd() % sizeof(got), pcore_rnd() % 4 ? 0 : pcore_rnd() % 4096);
	err = ret < 0 ? errno : 0;
	close(fd);
	return err;
}

static int fuzzer(struct fuzz_counts *fc, unsigned long long seed,
		  unsigned long long ops, int cpu)
{
	void *unmapped = pcore_unmapped_page();
	int fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC), err, a;
	unsigned long long i;
	unsigned long cmd;
	char what[256];

	if (fd < 0 || !unmapped)
		return 1;
	pcore_pin(cpu);
	pcore_rnd_seed(seed);
	for (i = 0; i < ops; i++) {
		if (pcore_rnd() % 4) {
			err = pcore_fuzz_ioctl(fd, unmapped, 3, &cmd);
			a = answer(err);
			/* ENOSPC is LIST's and READ's "buffer too small" */
			if (a == A_EIO || a == A_ESPIPE || a == A_EACCES ||
			    (a == A_ENOSPC && cmd != PCORE_IOC_LIST &&
			     cmd != PCORE_IOC_READ))
				a = A_OTHER;
			if (a == A_OTHER && !fc->why[0])
				snprintf(fc->why, sizeof(fc->why),
					 "op %llu: ioctl %#lx: %s", i, cmd, strerror(err));
			fc->ioc[a]++;
		} else {
			err = fuzz_debugfs(unmapped, what, sizeof(what));
			a = answer(err);
			/*
			 * ESPIPE: pwrite() on a seq_file (seq_open() takes
			 * FMODE_PWRITE away); EIO: a file whose histogram
			 * went while it was open; EACCES: an interval file
			 * opened write-only (only an open for reading and
			 * writing takes the interval).
			 */
			if (a == A_ENOTTY || a == A_ENOSPC || a == A_EFILE ||
			    (a == A_EACCES && !strstr(what, "/interval")))
				a = A_OTHER;
			if (a == A_OTHER && !fc->why[0])
				snprintf(fc->why, sizeof(fc->why), "op %llu: %s: %s",
					 i, what, strerror(err));
			fc->wr[a]++;
		}
		fc->ops++;
	}
	close(fd);
	return 0;
}

TEST_F_TIMEOUT(soak, fuzz, 36000)
{
	static const char * const kinds[A_N] = {
		"ok", "ENOTTY", "EFAULT", "EINVAL", "ENOENT", "ENOSPC", "EIO",
		"ESPIPE", "EBADF/ENOEXEC", "EACCES", "other",
	};
	static char before[PCORE_BUF], after[PCORE_BUF];
	unsigned long long ops = param("PCORE_SOAK_FUZZ_OPS", 2000);
	unsigned long long seed = param("PCORE_SEED", 0);
	unsigned long long ioc[A_N] = { 0 }, wr[A_N] = { 0 }, done = 0;
	struct fuzz_counts *fc;
	double t0 = pcore_now();
	pid_t kids[2], load = 0;
	int k, a, st;

	TH_LOG("fuzz: seed %llu (replay: PCORE_SEED=%llu), %llu operations",
	       seed, seed, ops);
	fc = mmap(NULL, 2 * sizeof(*fc), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, fc);
	memset(fc, 0, 2 * sizeof(*fc));
	ASSERT_LE(0, pcore_read(KPROBES_LIST, before, sizeof(before)));
	ASSERT_EQ(0, pcore_load(PARAMS));
	ASSERT_EQ(0, pcore_mod_load("cpuhists", NULL));
	/* Something for the probes to see while they come and go. */
	load = fork();
	ASSERT_LE(0, load);
	if (!load)
		worker(1);
	for (k = 0; k < 2; k++) {
		kids[k] = fork();
		ASSERT_LE(0, kids[k]);
		if (!kids[k])
			_exit(fuzzer(&fc[k], seed + 0x9e3779b97f4a7c15ULL * k,
				     k ? ops / 2 : ops - ops / 2, k));
	}
	for (k = 0; k < 2; k++) {
		ASSERT_EQ(kids[k], waitpid(kids[k], &st, 0));
		EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st)) TH_LOG("fuzzer %d", k);
		done += fc[k].ops;
		for (a = 0; a < A_N; a++) {
			ioc[a] += fc[k].ioc[a];
			wr[a] += fc[k].wr[a];
		}
		if (fc[k].why[0])
			TH_LOG("fuzzer %d: first bad answer: %s", k, fc[k].why);
	}
	kill_all(&load, 1);
	for (a = 0; a < A_N; a++)
		TH_LOG("fuzz: %-7s ioctl %6llu  debugfs %6llu", kinds[a], ioc[a], wr[a]);
	TH_LOG("fuzz: %llu operations in %.1f s (seed %llu)", done,
	       pcore_now() - t0, seed);
	EXPECT_EQ(ops, done);
	EXPECT_EQ(0, ioc[A_OTHER]);
	EXPECT_EQ(0, wr[A_OTHER]);
	/* Every kind of answer came up: the fuzz reached every check. */
	EXPECT_LT(0, ioc[A_OK]);
	EXPECT_LT(0, ioc[A_ENOTTY]);
	EXPECT_LT(0, ioc[A_EFAULT]);
	EXPECT_LT(0, ioc[A_EINVAL]);
	EXPECT_LT(0, ioc[A_ENOENT]);
	EXPECT_LT(0, wr[A_OK]);
	EXPECT_LT(0, wr[A_EFAULT]);
	EXPECT_LT(0, wr[A_EINVAL]);
	EXPECT_LT(0, wr[A_ENOENT]);

	/* Whatever the fuzz attached goes: nothing stays registered. */
	EXPECT_EQ(0, pcore_mods_unload(mods, 2));
	EXPECT_FALSE(pcore_loaded());
	EXPECT_FALSE(pcore_mod_loaded("cpuhists"));
	EXPECT_NE(0, access(PCORE_DBG, F_OK));
	EXPECT_NE(0, access(PCORE_DEVICE, F_OK));
	ASSERT_LE(0, pcore_read(KPROBES_LIST, after, sizeof(after)));
	EXPECT_STREQ(before, after);
}

/* kmemleak, where the kernel has it: the soak leaked nothing. */
TEST_F_TIMEOUT(soak, leaks, 3600)
{
	static char rep[PCORE_BUF];
	double t0 = pcore_now();
	ssize_t n;

	if (access(KMEMLEAK, W_OK))
		SKIP(return, "no kmemleak in this kernel");
	/*
	 * One scan (tens of seconds on the debug kernel): what the soak
	 * leaked is older than kmemleak's minimum age (5 s) by now, except
	 * for the last unload's, which the teardown just did.
	 */
	ASSERT_EQ(0, pcore_write(KMEMLEAK, "scan", 4));
	n = pcore_read(KMEMLEAK, rep, sizeof(rep));
	ASSERT_LE(0, n);
	TH_LOG("kmemleak: %zd bytes of reports after a scan, %.1f s", n,
	       pcore_now() - t0);
	EXPECT_EQ(0, n) TH_LOG("%.4000s", rep);
}

TEST_HARNESS_MAIN
