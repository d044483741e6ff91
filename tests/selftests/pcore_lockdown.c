// SPDX-License-Identifier: GPL-2.0
/*
 * Runs in a boot with lockdown=confidentiality on a kernel that trusts
 * the key make check signs our modules with (the debug kernel): the
 * kernel is really locked down, an unsigned probe_core is refused, and
 * the signed one loads, shows its debugfs root and unloads.  Then what
 * probe_core allows there: no probe at all, as the kernel allows no kprobe
 * event (LOCKDOWN_KPROBES).  target= (with mechanism=direct too),
 * tracepoints=, PCORE_IOC_ATTACH and a handler module's attach through
 * the API each get EPERM and one log line, and leave nothing registered.
 */
#include "pcore_ioctl.h"
#include <sys/mount.h>
#include "kselftest_harness.h"

#define SECFS		"/sys/kernel/security"
#define UNSIGNED_KO	"/pcore/modules/unsigned/probe_core.ko"

TEST(kernel_is_locked_down)
{
	ASSERT_LOCKED_DOWN(SECFS, "confidentiality");
}

TEST(unsigned_module_refused)
{
	ASSERT_FALSE(pcore_loaded());
	ASSERT_EQ(0, access(UNSIGNED_KO, R_OK));
	/* module_sig_check(): no signature, lockdown says no. */
	ASSERT_EQ(EPERM, pcore_load_path(UNSIGNED_KO, ""));
	ASSERT_FALSE(pcore_loaded());
}

TEST(signed_module_loads_and_unloads)
{
	static char buf[4096];

	ASSERT_FALSE(pcore_loaded());
	ASSERT_EQ(0, pcore_load(""));
	ASSERT_TRUE(pcore_loaded());
	/* A read-only debugfs file stays readable under lockdown. */
	ASSERT_LE(0, pcore_read(PCORE_DBG "/probes", buf, sizeof(buf)));
	ASSERT_EQ(0, pcore_unload_wait());
	ASSERT_FALSE(pcore_loaded());
}

#define KPROBES_LIST	"/sys/kernel/debug/kprobes/list"

static char log[16384], list[65536];

/* Load probe_core with @params: EPERM, one line saying why, nothing left. */
static void refused_load(struct __test_metadata *_metadata, const char *params,
			 const char *line)
{
	int kmsg = kmsg_open();

	ASSERT_LE(0, kmsg);
	ASSERT_FALSE(pcore_loaded());
	EXPECT_EQ(EPERM, pcore_load(params));
	EXPECT_FALSE(pcore_loaded());
	EXPECT_EQ(1, kmsg_collect(kmsg, log, sizeof(log))) TH_LOG("%s", log);
	EXPECT_NE(NULL, strstr(log, line)) TH_LOG("'%s' not in:\n%s", line, log);
	EXPECT_EQ(0, pcore_read(KPROBES_LIST, list, sizeof(list))) TH_LOG("%s", list);
	close(kmsg);
}

TEST(target_refused)
{
	refused_load(_metadata, "target=do_fork mechanism=kprobe",
		     "probe_core: kretprobe do_fork: refused: the kernel is locked down");
}

/* By default (mechanism=auto): refused, not taken for a kprobe's case. */
TEST(target_refused_auto)
{
	refused_load(_metadata, "target=do_fork",
		     "probe_core: direct-ret do_fork: refused: the kernel is locked down");
}

/* A direct call reads what a kprobe would: refused alike. */
TEST(direct_refused)
{
	refused_load(_metadata, "target=do_fork:count mechanism=direct",
		     "probe_core: direct do_fork:count: refused: the kernel is locked down");
}

TEST(tracepoints_refused)
{
	refused_load(_metadata, "tracepoints=sched_switch",
		     "probe_core: tracepoint sched_switch: refused: the kernel is locked down");
}

TEST(attach_ioctl_refused)
{
	struct pcore_ioc_entry e[4];
	unsigned int n;
	int fd, kmsg = kmsg_open();

	ASSERT_LE(0, kmsg);
	ASSERT_EQ(0, pcore_load("mechanism=kprobe"));
	fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(EPERM, pcore_attach(fd, "vfs_read", PCORE_ATTACH_KRETPROBE));
	EXPECT_EQ(EPERM, pcore_attach(fd, "sched_switch", PCORE_ATTACH_TRACEPOINT));
	EXPECT_EQ(2, kmsg_collect(kmsg, log, sizeof(log))) TH_LOG("%s", log);
	EXPECT_NE(NULL, strstr(log, "kretprobe vfs_read: refused: the kernel is locked down"))
		TH_LOG("%s", log);
	ASSERT_EQ(0, pcore_list(fd, e, 4, &n));
	EXPECT_EQ(0, n);
	EXPECT_EQ(0, pcore_read(KPROBES_LIST, list, sizeof(list))) TH_LOG("%s", list);
	close(fd);
	close(kmsg);
	ASSERT_EQ(0, pcore_unload_wait());
}

/* A handler module (signed, so it loads) cannot attach either. */
TEST(api_refused)
{
	int kmsg = kmsg_open();

	ASSERT_LE(0, kmsg);
	ASSERT_EQ(0, pcore_load(""));
	EXPECT_EQ(EPERM, pcore_mod_load("pcore_apitest", "case=probe_forms"));
	EXPECT_FALSE(pcore_mod_loaded("pcore_apitest"));
	EXPECT_EQ(1, kmsg_collect(kmsg, log, sizeof(log))) TH_LOG("%s", log);
	EXPECT_NE(NULL, strstr(log, "pcore_apitest: kprobe prepost: refused: the kernel is locked down"))
		TH_LOG("%s", log);
	EXPECT_EQ(0, pcore_read(KPROBES_LIST, list, sizeof(list))) TH_LOG("%s", list);
	close(kmsg);
	ASSERT_EQ(0, pcore_unload_wait());
}

TEST_HARNESS_MAIN
