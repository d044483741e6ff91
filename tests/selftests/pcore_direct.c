// SPDX-License-Identifier: GPL-2.0
/*
 * mechanism=direct: target=F:count through an ftrace direct call to one of
 * probe_core's trampolines instead of a kprobe.  Counts are exact (getppid
 * in the quiet VM: nothing else calls it); a kretprobe on the same function
 * works beside it; disable and enable; detach and unload while other CPUs
 * call the function; bad values refused with one line.
 */
#include "pcore_ioctl.h"
#include <pthread.h>
#include <sys/ioctl.h>
#include "kselftest_harness.h"

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
	static const char * const mods[] = { "probe_core" };
	static char log[16384];

	if (self->fd >= 0)
		close(self->fd);
	EXPECT_EQ(0, pcore_mods_unload(mods, 1));
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

/* A kretprobe on the same function, attached after: both count all. */
TEST_F(dir, beside_a_kretprobe)
{
	struct pcore_ioc_entry e;

	ASSERT_EQ(0, load_direct(&self->fd));
	ASSERT_EQ(0, pcore_attach(self->fd, "sys_getppid", PCORE_ATTACH_KRETPROBE));
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

/* Only kprobe and direct; one log line. */
TEST_F(dir, bad_mechanism)
{
	static char log[4096];

	EXPECT_EQ(EINVAL, pcore_load("target=" FN " mechanism=fentry"));
	EXPECT_EQ(1, kmsg_collect(self->kmsg, log, sizeof(log))) TH_LOG("%s", log);
	EXPECT_NE(NULL, strstr(log, "mechanism=fentry: must be kprobe or direct"))
		TH_LOG("%s", log);
	EXPECT_FALSE(pcore_loaded());
}

TEST_HARNESS_MAIN
