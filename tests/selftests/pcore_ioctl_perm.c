// SPDX-License-Identifier: GPL-2.0
/*
 * Who may use /dev/probe_core: the node is 0600 root:root, so another user
 * cannot open it; root without CAP_SYS_ADMIN can open it, read and list,
 * but attach, detach, enable and disable answer EPERM (also on a file
 * opened while it still had the capability) and change nothing.  A file
 * opened read-only cannot reset (EBADF).
 *
 * Capabilities are dropped with raw capset() and prctl(): the static
 * build has no libcap.
 */
#include "pcore_ioctl.h"
#include <grp.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/sysmacros.h>
#include "kselftest_harness.h"

#define NOBODY	65534

static char fp_before[PCORE_BUF], fp_after[PCORE_BUF];

FIXTURE(perm) {
	int fd;
};

FIXTURE_SETUP(perm)
{
	static const char * const mods[] = { "cpuhists", "probe_core" };

	ASSERT_EQ(0, pcore_mods_unload(mods, 2));
	ASSERT_EQ(0, pcore_load("target=do_fork tracepoints=sched_switch"));
	self->fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
}

FIXTURE_TEARDOWN(perm)
{
	close(self->fd);
	EXPECT_EQ(0, pcore_unload_wait());
	EXPECT_NE(0, access(PCORE_DEVICE, F_OK));
}

/* Drop CAP_SYS_ADMIN from every set, bounding set included; 0 or -1. */
static int drop_sys_admin(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (prctl(PR_CAPBSET_DROP, CAP_SYS_ADMIN, 0, 0, 0))
		return -1;
	if (syscall(SYS_capget, &h, d))
		return -1;
	d[0].effective &= ~(1U << CAP_SYS_ADMIN);
	d[0].permitted &= ~(1U << CAP_SYS_ADMIN);
	d[0].inheritable &= ~(1U << CAP_SYS_ADMIN);
	if (syscall(SYS_capset, &h, d))
		return -1;
	/* Check: it is gone from the effective set. */
	if (syscall(SYS_capget, &h, d) || d[0].effective & (1U << CAP_SYS_ADMIN))
		return -1;
	return 0;
}

/* Become nobody, without supplementary groups; 0 or -1. */
static int become_nobody(void)
{
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return -1;
	return getuid() == NOBODY && geteuid() == NOBODY ? 0 : -1;
}

/* Run @fn in a child; its exit status (0 when every check held). */
static int in_child(int (*fn)(int fd), int fd)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (!pid)
		_exit(fn(fd));
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static int report(int n, const char *what)
{
	fprintf(stderr, "check %d failed: %s (errno %s)\n", n, what,
		strerror(errno));
	return n;
}

/* The first failed check's number stays in ret; later ones are skipped. */
#define CHECK(n, cond)	(ret = ret ?: ((cond) ? 0 : report(n, #cond)))

/*
 * The four commands that need CAP_SYS_ADMIN answer EPERM, whatever the
 * name (known, unknown, invalid) and whatever the rest of the struct.
 */
static int privileged_refused(int fd)
{
	struct pcore_ioc_attach a;
	struct pcore_ioc_name n;
	int ret = 0;

	CHECK(30, pcore_attach(fd, "sys_getppid", PCORE_ATTACH_KRETPROBE) == EPERM);
	CHECK(31, pcore_attach(fd, "sched_switch", PCORE_ATTACH_TRACEPOINT) == EPERM);
	CHECK(32, pcore_name_ioc(fd, PCORE_IOC_DETACH, "do_fork") == EPERM);
	CHECK(33, pcore_name_ioc(fd, PCORE_IOC_DISABLE, "do_fork") == EPERM);
	CHECK(34, pcore_name_ioc(fd, PCORE_IOC_ENABLE, "do_fork") == EPERM);
	CHECK(35, pcore_name_ioc(fd, PCORE_IOC_DETACH, "sched_switch") == EPERM);
	CHECK(36, pcore_name_ioc(fd, PCORE_IOC_DETACH, "nosuch") == EPERM);
	/* Even bad input: the capability is checked first. */
	pcore_att_init(&a, "", 99, 99);
	a.reserved[0] = 1;
	CHECK(37, pcore_ioc(fd, PCORE_IOC_ATTACH, &a) == EPERM);
	memset(&n, 'x', sizeof(n));
	CHECK(38, pcore_ioc(fd, PCORE_IOC_DETACH, &n) == EPERM);
	CHECK(39, pcore_ioc(fd, PCORE_IOC_ENABLE, NULL) == EPERM);
	CHECK(40, pcore_ioc(fd, PCORE_IOC_DISABLE, (void *)1) == EPERM);
	return ret;
}

/* What needs no capability works: VERSION, LIST, READ, RESET. */
static int unprivileged_ok(int fd)
{
	static struct pcore_ioc_bucket b[PCORE_MAXB];
	struct pcore_ioc_version v;
	struct pcore_ioc_entry e;
	struct pcore_ioc_read r;
	unsigned long long n;
	int ret = 0;

	CHECK(10, pcore_ioc(fd, PCORE_IOC_VERSION, &v) == 0);
	CHECK(11, v.abi == PCORE_ABI_VERSION);
	CHECK(12, pcore_list_one(fd, "do_fork", &e) == 0);
	CHECK(13, e.flags == (PCORE_ENT_HAS_PROBE | PCORE_ENT_OWN));
	/* The fork that made this process counted: reset first. */
	CHECK(14, pcore_name_ioc(fd, PCORE_IOC_RESET, "do_fork") == 0);
	CHECK(15, pcore_forks(10) == 0);
	/*
	 * Our 10 forks at least: kthreadd may clone a kernel thread (a new
	 * kworker) at any moment, through kernel_clone too.  What matters
	 * here is that reading works without CAP_SYS_ADMIN; the exact
	 * counts are pcore_ioctl's.
	 */
	CHECK(16, pcore_rd(fd, "do_fork", -1, 0, 0, &r, b) == 0);
	CHECK(17, r.count >= 10);
	n = r.count;
	CHECK(18, pcore_rd(fd, "do_fork", -1, PCORE_READ_RESET, 0, &r, b) == 0);
	CHECK(19, r.count >= n);
	CHECK(20, pcore_rd(fd, "do_fork", 0, 0, 0, &r, b) == 0 && r.count == 0);
	return ret;
}

static int no_cap_own_open(int unused)
{
	int fd, ret = 0;

	CHECK(1, drop_sys_admin() == 0);
	CHECK(2, getuid() == 0 && geteuid() == 0);
	if (ret)
		return ret;
	/* Root owns the node: it opens without CAP_SYS_ADMIN. */
	fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	CHECK(3, fd >= 0);
	ret = ret ?: unprivileged_ok(fd) ?: privileged_refused(fd);
	close(fd);
	return ret;
}

static int no_cap_inherited_fd(int fd)
{
	int ret = 0;

	CHECK(1, drop_sys_admin() == 0);
	/* The capability counts at the call, not at open. */
	return ret ?: unprivileged_ok(fd) ?: privileged_refused(fd);
}

static int nobody_open(int unused)
{
	int ret = 0;

	CHECK(1, become_nobody() == 0);
	CHECK(2, open(PCORE_DEVICE, O_RDWR | O_CLOEXEC) < 0 && errno == EACCES);
	CHECK(3, open(PCORE_DEVICE, O_RDONLY | O_CLOEXEC) < 0 && errno == EACCES);
	CHECK(4, open(PCORE_DEVICE, O_WRONLY | O_CLOEXEC) < 0 && errno == EACCES);
	return ret;
}

static int nobody_inherited_fd(int fd)
{
	int ret = 0;

	CHECK(1, become_nobody() == 0);
	return ret ?: unprivileged_ok(fd) ?: privileged_refused(fd);
}

TEST_F(perm, node)
{
	struct stat st;

	ASSERT_EQ(0, stat(PCORE_DEVICE, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0600, st.st_mode & 07777);
	EXPECT_EQ(0, st.st_uid);
	EXPECT_EQ(0, st.st_gid);
	EXPECT_EQ(10, major(st.st_rdev));	/* a misc device */
}

TEST_F(perm, other_user_cannot_open)
{
	EXPECT_EQ(0, in_child(nobody_open, -1));
}

TEST_F(perm, other_user_with_an_open_file)
{
	ASSERT_EQ(0, pcore_fingerprint(self->fd, fp_before, PCORE_BUF));
	EXPECT_EQ(0, in_child(nobody_inherited_fd, self->fd));
	ASSERT_EQ(0, pcore_fingerprint(self->fd, fp_after, PCORE_BUF));
	EXPECT_STREQ(fp_before, fp_after);
}

TEST_F(perm, root_without_cap_sys_admin)
{
	ASSERT_EQ(0, pcore_fingerprint(self->fd, fp_before, PCORE_BUF));
	EXPECT_EQ(0, in_child(no_cap_own_open, -1));
	ASSERT_EQ(0, pcore_fingerprint(self->fd, fp_after, PCORE_BUF));
	EXPECT_STREQ(fp_before, fp_after);
	EXPECT_EQ(0, in_child(no_cap_inherited_fd, self->fd));
	ASSERT_EQ(0, pcore_fingerprint(self->fd, fp_after, PCORE_BUF));
	EXPECT_STREQ(fp_before, fp_after);
	/* The parent kept the capability: the same calls work here. */
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DISABLE, "do_fork"));
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_ENABLE, "do_fork"));
	ASSERT_EQ(0, pcore_attach(self->fd, "sys_getppid", PCORE_ATTACH_KRETPROBE));
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_DETACH, "sys_getppid"));
}

/*
 * A file opened read-only reads and lists but resets nothing: RESET and
 * READ with PCORE_READ_RESET answer EBADF and the counts stay.  It reads
 * totals (PCORE_READ_TOTAL): what an exporter needs, and all it needs.
 */
TEST_F(perm, read_only_file_cannot_reset)
{
	static struct pcore_ioc_bucket bk[PCORE_MAXB];
	struct pcore_ioc_read r;
	unsigned long long n;
	int ro;

	ASSERT_EQ(0, pcore_forks(20));
	n = pcore_rd_count(self->fd, "do_fork");
	ASSERT_LE(20, n);
	ro = open(PCORE_DEVICE, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, ro);
	EXPECT_EQ(EBADF, pcore_name_ioc(ro, PCORE_IOC_RESET, "do_fork"));
	EXPECT_EQ(EBADF, pcore_rd(ro, "do_fork", -1, PCORE_READ_RESET, 0, &r,
				  bk));
	EXPECT_EQ(n, pcore_rd_count(ro, "do_fork"));
	ASSERT_EQ(0, pcore_rd(ro, "do_fork", -1, PCORE_READ_TOTAL, 0, &r, bk));
	EXPECT_LE(n, r.count);
	close(ro);
	/* The same calls on the file opened for writing. */
	ASSERT_EQ(0, pcore_rd(self->fd, "do_fork", -1, PCORE_READ_RESET, 0, &r,
			      bk));
	EXPECT_EQ(n, r.count);
	ASSERT_EQ(0, pcore_name_ioc(self->fd, PCORE_IOC_RESET, "do_fork"));
	EXPECT_EQ(0, pcore_rd_count(self->fd, "do_fork"));
}

TEST_HARNESS_MAIN
