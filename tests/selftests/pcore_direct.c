// SPDX-License-Identifier: GPL-2.0
/*
 * mechanism=direct: target=F:count and target=F through an ftrace direct
 * call to one of probe_core's trampolines instead of a kprobe or
 * kretprobe.  Counts are exact (getppid in the quiet VM: nothing else
 * calls it); a kretprobe on the same function works beside it; disable
 * and enable; detach and unload while other CPUs call the function; a
 * timed call that sleeps and moves to another CPU; detach and unload with
 * a call in flight inside the function; a function that calls itself;
 * the same calls timed through a kretprobe; bad values refused with one
 * line.
 */
#include "pcore_ioctl.h"
#include <pthread.h>
#include <poll.h>
#include <sched.h>
#include <time.h>
#include <sys/ioctl.h>
#include "kselftest_harness.h"
#include "pcore_inflight.h"

#define NCALLS	500
#define FN	"sys_getppid:count"

static void getppids(int n)
{
	int i;

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
}

FIXTURE(dir) {
	int fd;
	int kmsg;
};

FIXTURE_SETUP(dir)
{
	static const char * const mods[] = { "probe_core" };

	ASSERT_EQ(0, pcore_mods_unload(mods, 1));
	self->fd = -1;
	self->kmsg = kmsg_open();
	ASSERT_LE(0, self->kmsg);
}

FIXTURE_TEARDOWN(dir)
{
	static const char * const mods[] = { "probe_core", "pcore_stackt" };
	static char log[16384];

	if (self->fd >= 0)
		close(self->fd);
	EXPECT_EQ(0, pcore_mods_unload(mods, 2));
	EXPECT_EQ(0, pcore_kmsg_bad(self->kmsg, log, sizeof(log))) {
		TH_LOG("kernel log:\n%s", log);
	}
	close(self->kmsg);
}

/* probe_core with FN counted by a direct call; the device open in *@fd. */
static int load_direct(int *fd)
{
	int ret = pcore_load("target=" FN " mechanism=direct");

	if (ret)
		return ret;
	*fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	return *fd < 0 ? errno : 0;
}

/* Every call counted once, by a probe of the kind "direct". */
TEST_F(dir, count_exact)
{
	struct pcore_probe_line pl;
	struct pcore_ioc_entry e;

	ASSERT_EQ(0, load_direct(&self->fd));
	ASSERT_EQ(0, pcore_probe_line(FN, &pl));
	EXPECT_STREQ("direct", pl.kind);
	EXPECT_STREQ("__x64_sys_getppid", pl.symbol);
	getppids(NCALLS);
	ASSERT_EQ(0, pcore_list_one(self->fd, FN, &e));
	EXPECT_STREQ("direct", e.probe_kind);
	EXPECT_STREQ("calls", e.unit);
	EXPECT_EQ(NCALLS, e.count);
	EXPECT_EQ(NCALLS, e.hits);
	EXPECT_EQ(0, e.missed);
	getppids(NCALLS);
	EXPECT_EQ(2 * NCALLS, pcore_stat(FN, "count"));
}

/* Attach F (as target=F:what:argN) with mechanism @mech. */
static int attach_mech(int fd, const char *target, unsigned int what,
		       unsigned int arg, unsigned int mech)
{
	struct pcore_ioc_attach a;

	pcore_att_init(&a, "", PCORE_ATTACH_KRETPROBE, 0);
	snprintf(a.target, sizeof(a.target), "%s", target);
	a.what = what;
	a.arg = arg;
	a.flags = mech;
	return pcore_ioc(fd, PCORE_IOC_ATTACH, &a);
}

/* A kretprobe on the same function, attached after: both count all. */
TEST_F(dir, beside_a_kretprobe)
{
	struct pcore_ioc_entry e;

	ASSERT_EQ(0, load_direct(&self->fd));
	ASSERT_EQ(0, attach_mech(self->fd, "sys_getppid", PCORE_WHAT_TIME, 0,
				 PCORE_ATTACH_MECH_KPROBE));
	getppids(NCALLS);
	ASSERT_EQ(0, pcore_list_one(self->fd, FN, &e));
	EXPECT_EQ(NCALLS, e.count);
	ASSERT_EQ(0, pcore_list_one(self->fd, "sys_getppid", &e));
	EXPECT_STREQ("kretprobe", e.probe_kind);
	EXPECT_EQ(NCALLS, e.count);
	/* the kretprobe goes: the direct call counts on alone */
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DETACH, "sys_getppid"));
	getppids(NCALLS);
	ASSERT_EQ(0, pcore_list_one(self->fd, FN, &e));
	EXPECT_EQ(2 * NCALLS, e.count);
}

/* Disabled, no call is counted; enabled again, each one is. */
TEST_F(dir, disable_enable)
{
	struct pcore_ioc_entry e;

	ASSERT_EQ(0, load_direct(&self->fd));
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DISABLE, FN));
	getppids(NCALLS);
	ASSERT_EQ(0, pcore_list_one(self->fd, FN, &e));
	EXPECT_EQ(0, e.count);
	EXPECT_EQ(PCORE_ENT_HAS_PROBE | PCORE_ENT_OWN | PCORE_ENT_DISABLED,
		  e.flags);
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_ENABLE, FN));
	getppids(NCALLS);
	ASSERT_EQ(0, pcore_list_one(self->fd, FN, &e));
	EXPECT_EQ(NCALLS, e.count);
}

static int stop;

static void *caller(void *arg)
{
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
		getppids(100);
	return NULL;
}

/*
 * Detach, attach again and unload while two threads call the function:
 * the trampoline is left only when no call is in it.
 */
TEST_F(dir, detach_and_unload_under_calls)
{
	struct pcore_ioc_attach a;
	pthread_t t[2];
	int i;

	ASSERT_EQ(0, load_direct(&self->fd));
	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, caller, NULL));
	usleep(100000);
	for (i = 0; i < 5; i++) {
		ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DETACH, FN));
		pcore_att_init(&a, FN, PCORE_ATTACH_KRETPROBE, 0);
		ASSERT_EQ(0, pcore_ioc(self->fd, PCORE_IOC_ATTACH, &a));
		usleep(20000);
	}
	EXPECT_LT(0, pcore_stat(FN, "count"));
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(0, pcore_unload());
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
}

/* target=F through a wrapping trampoline: every call timed once. */
TEST_F(dir, time_exact)
{
	struct pcore_probe_line pl;
	struct pcore_ioc_entry e;

	ASSERT_EQ(0, pcore_load("target=sys_getppid mechanism=direct"));
	self->fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pcore_probe_line("sys_getppid", &pl));
	EXPECT_STREQ("direct-ret", pl.kind);
	EXPECT_STREQ("__x64_sys_getppid", pl.symbol);
	getppids(NCALLS);
	ASSERT_EQ(0, pcore_list_one(self->fd, "sys_getppid", &e));
	EXPECT_STREQ("direct-ret", e.probe_kind);
	EXPECT_STREQ("ns", e.unit);
	EXPECT_EQ(NCALLS, e.count);
	EXPECT_EQ(NCALLS, e.hits);
	EXPECT_EQ(0, e.missed);
	/*
	 * getppid's body: the fastest of the calls well under a
	 * millisecond, even emulated with KASAN (one call may be
	 * interrupted or preempted for longer: not the max)
	 */
	EXPECT_LT(0, pcore_stat("sys_getppid", "min"));
	EXPECT_GT(1000000, pcore_stat("sys_getppid", "min"));
}

/*
 * The same calls timed through a direct call and through a kretprobe:
 * the same count, and the direct call's times lower by its smaller
 * overhead (getppid's body is short: the overhead inside the timed span
 * is most of it), within the histogram's error (loglinear: 1/16).
 */
TEST_F(dir, agrees_with_kprobe)
{
	static const char * const mechs[] = { "direct", "kprobe" };
	unsigned long long count[2], min[2], p50[2];
	char params[128];
	int i;

	for (i = 0; i < 2; i++) {
		snprintf(params, sizeof(params),
			 "target=sys_getppid mechanism=%s", mechs[i]);
		ASSERT_EQ(0, pcore_load(params));
		getppids(4 * NCALLS);
		count[i] = pcore_stat("sys_getppid", "count");
		min[i] = pcore_stat("sys_getppid", "min");
		p50[i] = pcore_stat("sys_getppid", "p50");
		TH_LOG("%s: count %llu min %llu p50 %llu", mechs[i], count[i],
		       min[i], p50[i]);
		ASSERT_EQ(0, pcore_unload_wait());
	}
	EXPECT_EQ(4 * NCALLS, count[0]);
	EXPECT_EQ(count[0], count[1]);
	EXPECT_LT(0, min[0]);
	EXPECT_LE(min[0], min[1]);
	EXPECT_LE(p50[0], p50[1] + p50[1] / 16);
}

/*
 * A function that calls itself: pcore_stackt's nest file calls the
 * kernel's bus_for_each_dev() 1 + DEPTH times, each inside the one
 * before (through the function it calls for a device).  Each call is timed in its own frame, the outer
 * ones over the inner: every call counted, none lost, each time its own.
 */
#define DEPTH	4
#define NNESTS	100

TEST_F(dir, recursion)
{
	unsigned long long count, max, min;
	char d[8];
	int i, n;

	ASSERT_EQ(0, pcore_mod_load("pcore_stackt", NULL));
	ASSERT_EQ(0, pcore_load("target=bus_for_each_dev mechanism=direct"));
	n = snprintf(d, sizeof(d), "%d", DEPTH);
	for (i = 0; i < NNESTS; i++)
		ASSERT_EQ(0, pcore_write("/sys/kernel/debug/pcore_stackt/nest",
					 d, n));
	count = pcore_stat("bus_for_each_dev", "count");
	min = pcore_stat("bus_for_each_dev", "min");
	max = pcore_stat("bus_for_each_dev", "max");
	TH_LOG("count %llu min %llu max %llu", count, min, max);
	/* nothing else walks a bus in the quiet VM */
	EXPECT_EQ((DEPTH + 1) * NNESTS, count);
	EXPECT_LT(0, min);
	/*
	 * The outermost call spans the DEPTH calls inside it, each at least
	 * the innermost's work and its trampoline's stamps.
	 */
	EXPECT_LE(DEPTH * min, max);
	EXPECT_EQ(0, pcore_unload_wait());
	EXPECT_EQ(0, pcore_mod_unload("pcore_stackt"));
}

#define NAP_MS	300

struct napper {
	int cpu_before, cpu_after, ret;
	pid_t tid;
	pthread_t t;
};

/* One nanosleep() (timed: hrtimer_nanosleep), on one CPU, then another. */
static void *napper(void *arg)
{
	struct napper *n = arg;
	struct timespec ts = { 0, NAP_MS * 1000000L };

	n->cpu_before = sched_getcpu();
	__atomic_store_n(&n->tid, gettid(), __ATOMIC_RELEASE);
	n->ret = nanosleep(&ts, NULL);
	n->cpu_after = sched_getcpu();
	return NULL;
}

static int nap_start(struct napper *n, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return errno;
	return pthread_create(&n->t, NULL, napper, n);
}

/* Move thread @t to @cpu, as it sleeps. */
static int nap_move(struct napper *n, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(n->t, sizeof(set), &set);
}

/*
 * A timed call that sleeps, and wakes on another CPU: its time is its
 * own (the stamp is in its trampoline's frame, not per CPU).
 */
TEST_F(dir, time_sleep_and_migrate)
{
	struct napper n = { .cpu_before = -1, .cpu_after = -1 };

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU: nothing to migrate to");
	ASSERT_EQ(0, pcore_load("target=hrtimer_nanosleep mechanism=direct"));
	ASSERT_EQ(0, pcore_stat("hrtimer_nanosleep", "count"));
	ASSERT_EQ(0, nap_start(&n, 0));
	wait_ms(NAP_MS / 3);
	ASSERT_EQ(0, nap_move(&n, 1));
	pthread_join(n.t, NULL);
	EXPECT_EQ(0, n.cpu_before);
	EXPECT_EQ(1, n.cpu_after);
	EXPECT_EQ(1, pcore_stat("hrtimer_nanosleep", "count"));
	EXPECT_LE(NAP_MS * 1000000ULL, pcore_stat("hrtimer_nanosleep", "min"));
	EXPECT_GT(NAP_MS * 3 * 1000000ULL, pcore_stat("hrtimer_nanosleep", "max"));
}

/*
 * The stack of a task asleep inside a wrapped function unwinds through
 * the trampoline to the system call's entry (objtool's ORC of its
 * frame): the body (hrtimer_nanosleep+N), the trampoline, the function's
 * call site (hrtimer_nanosleep+5, +9 with IBT), then its callers.
 */
TEST_F(dir, unwind_through_trampoline)
{
	static char stack[8192];
	struct napper n = { .cpu_before = -1, .cpu_after = -1 };
	const char *p;
	char path[64];

	ASSERT_EQ(0, pcore_load("target=hrtimer_nanosleep mechanism=direct"));
	ASSERT_EQ(0, nap_start(&n, 0));
	wait_ms(NAP_MS / 3);
	snprintf(path, sizeof(path), "/proc/self/task/%d/stack",
		 __atomic_load_n(&n.tid, __ATOMIC_ACQUIRE));
	ASSERT_LT(0, pcore_read(path, stack, sizeof(stack)));
	pthread_join(n.t, NULL);
	p = after(stack, "] hrtimer_nanosleep+0x");
	p = after(p, "] pcore_direct_wrap_");
	p = after(p, "] hrtimer_nanosleep+0x");
	EXPECT_NE(NULL, after(p, "] do_syscall_64+")) TH_LOG("%s", stack);
	EXPECT_EQ(1, pcore_stat("hrtimer_nanosleep", "count"));
}
/*
 * Detach with a call asleep inside the wrapped function (a read() of an
 * empty pipe): the detach does not wait for it, nor does the unload
 * after.  The call is sent back to its caller (one line says so) and
 * returns untimed once it wakes, after probe_core is gone, with what the
 * function returned (the bytes read), nothing in the kernel log.
 */
TEST_F(dir, detach_with_call_in_flight)
{
	static char log[4096];
	struct reader r;
	int pipefd[2];

	ASSERT_EQ(0, pcore_load("target=pipe_read mechanism=direct"));
	self->fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, reader_start(&r, pipefd));
	wait_ms(50);
	kmsg_collect(self->kmsg, log, sizeof(log));
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DETACH, "pipe_read"));
	EXPECT_EQ(0, kmsg_wait(self->kmsg, log, sizeof(log),
			       "1 call inside pipe_read, of a timing probe removed, returns to its caller untimed"))
		TH_LOG("%s", log);
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(0, pcore_unload());
	/* neither waited for the reader, which reads what comes after */
	EXPECT_EQ(5, reader_end(&r, pipefd));
}

/*
 * A task that dies inside a wrapped function never returns through the
 * trampoline (get_signal() of a SIGKILL ends in do_exit()): the stacks
 * say its call is lost, and neither a detach nor an unload waits for it.
 */
TEST_F(dir, call_lost_in_a_dead_task)
{
	static char log[4096];
	struct pcore_probe_line pl;
	pid_t child;
	int i;

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pcore_load("target=get_signal mechanism=direct"));
		child = fork();
		ASSERT_LE(0, child);
		if (!child) {
			pause();
			_exit(0);
		}
		wait_ms(50);
		ASSERT_EQ(0, kill(child, SIGKILL));
		ASSERT_EQ(child, waitpid(child, NULL, 0));
		/* its call counted in, never timed: it did not return */
		ASSERT_EQ(0, pcore_probe_line("get_signal", &pl));
		EXPECT_LT(pcore_stat("get_signal", "count"), pl.hits);
		if (!i) {
			/* detached: nothing to wait for, soon unloaded */
			self->fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
			ASSERT_LE(0, self->fd);
			ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DETACH,
						    "get_signal"));
			close(self->fd);
			self->fd = -1;
			EXPECT_EQ(0, pcore_unload_wait());
		} else {
			/* unloaded as it is: the unload does not wait */
			EXPECT_EQ(0, pcore_unload());
		}
		EXPECT_FALSE(pcore_loaded());
	}
	kmsg_collect(self->kmsg, log, sizeof(log));
	EXPECT_EQ(NULL, strstr(log, "still inside")) TH_LOG("%s", log);
}

/*
 * Unloading with a call asleep inside (a read of an empty pipe), from a
 * child whose parent waits for it inside a wrapped function too
 * (kernel_wait4, as a shell that runs rmmod does): the unload waits for
 * neither, and the reader reads what comes after.
 */
TEST_F(dir, unload_with_call_in_flight)
{
	static char log[4096];
	struct reader r;
	int pipefd[2], status;
	pid_t child;

	ASSERT_EQ(0, pcore_load("target=pipe_read,kernel_wait4 mechanism=direct"));
	ASSERT_EQ(0, reader_start(&r, pipefd));
	wait_ms(50);
	kmsg_collect(self->kmsg, log, sizeof(log));
	child = fork();
	ASSERT_LE(0, child);
	if (!child)
		_exit(pcore_unload());
	ASSERT_EQ(child, waitpid(child, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_FALSE(pcore_loaded());
	EXPECT_EQ(0, kmsg_wait(self->kmsg, log, sizeof(log),
			       "1 call inside pipe_read, of a timing probe removed, returns to its caller untimed"))
		TH_LOG("%s", log);
	EXPECT_NE(NULL, strstr(log, "1 call inside kernel_wait4, of a timing probe removed, returns to its caller untimed"))
		TH_LOG("%s", log);
	EXPECT_EQ(5, reader_end(&r, pipefd));
}

/*
 * mechanism=auto: a direct call where one can go; else kprobes, and
 * stats says why (here: another probe of probe_core's has the function's
 * direct call, and a module's function), with no error logged.
 */
TEST_F(dir, auto_falls_back)
{
	static char log[4096];
	char m[256];

	ASSERT_EQ(0, pcore_mod_load("pcore_stackt", NULL));
	ASSERT_EQ(0, pcore_load("target=sys_getppid:count,pcore_stackt_leaf mechanism=auto"));
	self->fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pcore_mechanism("sys_getppid:count", m, sizeof(m)));
	EXPECT_STREQ("direct", m);
	ASSERT_EQ(0, pcore_mechanism("pcore_stackt_leaf", m, sizeof(m)));
	EXPECT_STREQ("kretprobe (no direct call: a module's function)", m);
	/* the count's trampoline has the function: the latency's cannot */
	ASSERT_EQ(0, attach_mech(self->fd, "sys_getppid", PCORE_WHAT_TIME, 0,
				 0));
	ASSERT_EQ(0, pcore_mechanism("sys_getppid", m, sizeof(m)));
	EXPECT_STREQ("kretprobe (no direct call: another probe of probe_core's has it)", m);
	getppids(NCALLS);
	EXPECT_EQ(NCALLS, pcore_stat("sys_getppid:count", "count"));
	EXPECT_EQ(NCALLS, pcore_stat("sys_getppid", "count"));
	/* what the attach asks for wins: direct is refused, with a line */
	kmsg_collect(self->kmsg, log, sizeof(log));
	EXPECT_EQ(EBUSY, attach_mech(self->fd, "sys_getppid",
				     PCORE_WHAT_RETVAL, 0,
				     PCORE_ATTACH_MECH_DIRECT));
	EXPECT_EQ(1, kmsg_collect(self->kmsg, log, sizeof(log))) TH_LOG("%s", log);
	EXPECT_NE(NULL, strstr(log, "direct-ret sys_getppid:retval: __x64_sys_getppid: probe sys_getppid:count has its direct call (one per function)"))
		TH_LOG("%s", log);
	close(self->fd);
	self->fd = -1;
	EXPECT_EQ(0, pcore_unload());
	EXPECT_EQ(0, pcore_mod_unload("pcore_stackt"));
}

/* A mechanism is for kernel functions; unknown flags refused. */
TEST_F(dir, attach_mechanism_refused)
{
	static char log[4096];
	struct pcore_ioc_attach a;

	ASSERT_EQ(0, load_direct(&self->fd));
	kmsg_collect(self->kmsg, log, sizeof(log));
	pcore_att_init(&a, "", PCORE_ATTACH_UPROBE, 0);
	snprintf(a.target, sizeof(a.target), "insn_ufunc");
	a.flags = PCORE_ATTACH_MECH_DIRECT;
	EXPECT_EQ(EINVAL, pcore_ioc(self->fd, PCORE_IOC_ATTACH, &a));
	EXPECT_EQ(1, kmsg_collect(self->kmsg, log, sizeof(log))) TH_LOG("%s", log);
	EXPECT_NE(NULL, strstr(log, "attach=insn_ufunc: a mechanism is for kernel functions only"))
		TH_LOG("%s", log);
	EXPECT_EQ(EINVAL, attach_mech(self->fd, "sys_getpid", PCORE_WHAT_TIME,
				      0, 0x40));
	EXPECT_EQ(1, kmsg_collect(self->kmsg, log, sizeof(log))) TH_LOG("%s", log);
}

/*
 * :argN and :retval through trampolines see what kprobes see: getppid's
 * one argument (the task's saved user registers, the same address each
 * call) and its value (our parent's pid).
 */
TEST_F(dir, arg_and_retval)
{
	static const char * const loads[] = {
		"target=sys_getppid:arg1 mechanism=direct",
		"target=sys_getppid:arg1 mechanism=kprobe",
		"target=sys_getppid:retval mechanism=direct",
	};
	unsigned long long arg[2];
	char m[256];
	int i;

	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, pcore_load(loads[i]));
		ASSERT_EQ(0, pcore_mechanism("sys_getppid:arg1", m, sizeof(m)));
		EXPECT_STREQ(i ? "kprobe" : "direct", m);
		getppids(NCALLS);
		EXPECT_EQ(NCALLS, pcore_stat("sys_getppid:arg1", "count"));
		arg[i] = pcore_stat("sys_getppid:arg1", "min");
		EXPECT_EQ(arg[i], pcore_stat("sys_getppid:arg1", "max"));
		ASSERT_EQ(0, pcore_unload());
	}
	EXPECT_EQ(arg[0], arg[1]);
	EXPECT_NE(0, arg[0]);
	ASSERT_EQ(0, pcore_load(loads[2]));
	ASSERT_EQ(0, pcore_mechanism("sys_getppid:retval", m, sizeof(m)));
	EXPECT_STREQ("direct-ret", m);
	getppids(NCALLS);
	EXPECT_EQ(NCALLS, pcore_stat("sys_getppid:retval", "count"));
	EXPECT_EQ((unsigned long long)getppid(),
		  pcore_stat("sys_getppid:retval", "min"));
	EXPECT_EQ((unsigned long long)getppid(),
		  pcore_stat("sys_getppid:retval", "max"));
}

/*
 * A trampoline calls the body with the arguments in registers only: a
 * function with arguments on the stack (do_mmap: 8 or 9) or variadic
 * (snprintf) is refused under mechanism=direct, with BTF's reason, and
 * timed by a kretprobe under auto, stats saying why.
 */
TEST_F(dir, stack_arguments_refused)
{
	static char log[4096];
	char m[256];

	EXPECT_EQ(E2BIG, pcore_load("target=do_mmap mechanism=direct"));
	EXPECT_EQ(1, kmsg_collect(self->kmsg, log, sizeof(log))) TH_LOG("%s", log);
	/* 8 on 6.1, 9 on 6.12 (vm_flags) */
	EXPECT_NE(NULL, strstr(log, "direct-ret do_mmap: do_mmap: "))
		TH_LOG("%s", log);
	EXPECT_NE(NULL, strstr(log, " argument registers needed, 6 exist: a trampoline can only time a function whose arguments are all in registers"))
		TH_LOG("%s", log);
	EXPECT_FALSE(pcore_loaded());
	EXPECT_EQ(EINVAL, pcore_load("target=snprintf mechanism=direct"));
	EXPECT_EQ(1, kmsg_collect(self->kmsg, log, sizeof(log))) TH_LOG("%s", log);
	EXPECT_NE(NULL, strstr(log, "direct-ret snprintf: snprintf: variadic"))
		TH_LOG("%s", log);
	EXPECT_FALSE(pcore_loaded());
	/*
	 * The failed loads read BTF, which probe_core keeps 2 s for the next
	 * attach: its timer went with them (else the kernel oopses here).
	 */
	wait_ms(2500);
	ASSERT_EQ(0, pcore_load("target=do_mmap,snprintf mechanism=auto"));
	ASSERT_EQ(0, pcore_mechanism("do_mmap", m, sizeof(m)));
	EXPECT_STREQ("kretprobe (no direct call: arguments on the stack)", m);
	ASSERT_EQ(0, pcore_mechanism("snprintf", m, sizeof(m)));
	EXPECT_STREQ("kretprobe (no direct call: its prototype is not all in registers)", m);
	EXPECT_EQ(0, pcore_unload());
}

/*
 * A module's function is refused (its site would outlive its module in
 * our filter), with one line; target=F:count takes it with kprobes.
 */
TEST_F(dir, module_function_refused)
{
	static char log[4096];

	ASSERT_EQ(0, pcore_mod_load("pcore_stackt", NULL));
	EXPECT_EQ(EINVAL, pcore_load("target=pcore_stackt_leaf:count mechanism=direct"));
	EXPECT_EQ(1, kmsg_collect(self->kmsg, log, sizeof(log))) TH_LOG("%s", log);
	EXPECT_NE(NULL, strstr(log, "direct pcore_stackt_leaf:count: pcore_stackt_leaf is a module's function: mechanism=direct takes the kernel's only"))
		TH_LOG("%s", log);
	EXPECT_FALSE(pcore_loaded());
	EXPECT_EQ(0, pcore_load("target=pcore_stackt_leaf:count"));
	EXPECT_EQ(0, pcore_unload());
	EXPECT_EQ(0, pcore_mod_unload("pcore_stackt"));
}

/* Only kprobe, direct and auto; one log line. */
TEST_F(dir, bad_mechanism)
{
	static char log[4096];

	EXPECT_EQ(EINVAL, pcore_load("target=" FN " mechanism=fentry"));
	EXPECT_EQ(1, kmsg_collect(self->kmsg, log, sizeof(log))) TH_LOG("%s", log);
	EXPECT_NE(NULL, strstr(log, "mechanism=fentry: must be kprobe, direct or auto"))
		TH_LOG("%s", log);
	EXPECT_FALSE(pcore_loaded());
}

TEST_HARNESS_MAIN
