// SPDX-License-Identifier: GPL-2.0
/*
 * target=FUNC:retval: the values a function returns, in log2 buckets by
 * default, and its errors apart, by errno.  getppid() returns our parent's
 * pid every time; close(-1) fails with EBADF every time.
 */
#include "pcore_lib.h"
#include "kselftest_harness.h"

#define NCALLS	500

static char buf[PCORE_BUF];

FIXTURE(values) {
	int unused;
};

FIXTURE_SETUP(values)
{
	PCORE_ASSERT_UNLOADED(NULL);
}

/* Kernel reports in the log fail the run: the VM runner judges it. */
FIXTURE_TEARDOWN(values)
{
	if (pcore_loaded())
		EXPECT_EQ(0, pcore_unload_wait());
}

/* The log2 bucket [lo, hi) of @v, as the hist file prints it. */
static void log2_bucket(unsigned long long v, unsigned long long *lo,
			unsigned long long *hi)
{
	int b = v ? 64 - __builtin_clzll(v) : 0;

	*lo = b ? 1ULL << (b - 1) : 0;
	*hi = 1ULL << b;
}

/*
 * :retval of getppid() and close(-1), probed by @mech ("" for the
 * default) with a probe of kind @kind.
 */
static void retval_and_errno(struct __test_metadata *_metadata,
			     const char *mech, const char *kind)
{
	unsigned long long lo, hi, n, ppid = getppid();
	struct pcore_probe_line l;
	char params[128];
	const char *p;
	int i, lines, got;

	snprintf(params, sizeof(params),
		 "%s target=sys_getppid:retval,sys_close:retval:status", mech);
	ASSERT_EQ(0, pcore_load(params));
	for (i = 0; i < NCALLS; i++)
		ASSERT_EQ((pid_t)ppid, getppid());
	for (i = 0; i < NCALLS; i++)
		ASSERT_EQ(-1, close(-1));

	/* Only we call getppid(): every value is our parent's pid. */
	ASSERT_LT(0, pcore_read(PCORE_DBG "/sys_getppid:retval/stats", buf, PCORE_BUF));
	EXPECT_EQ(NCALLS, pcore_key(buf, "count")) TH_LOG("%s", buf);
	EXPECT_EQ(NCALLS * ppid, pcore_key(buf, "sum"));
	EXPECT_EQ(ppid, pcore_key(buf, "min"));
	EXPECT_EQ(ppid, pcore_key(buf, "max"));
	EXPECT_NE(NULL, strstr(buf, "\nkind: log2\n")) TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, "\nunit: value\n"));
	EXPECT_NE(NULL, strstr(buf, "\nsymbol: __x64_sys_getppid\n"));
	ASSERT_LT(0, pcore_read(PCORE_DBG "/sys_getppid:retval/hist", buf, PCORE_BUF));
	log2_bucket(ppid, &lo, &hi);
	EXPECT_EQ(NCALLS, pcore_bucket(buf, "value", lo, hi)) TH_LOG("%s", buf);
	EXPECT_EQ(NCALLS, pcore_hist_total(buf, &lines));
	ASSERT_EQ(0, pcore_probe_line("sys_getppid:retval", &l));
	EXPECT_STREQ(kind, l.kind);
	EXPECT_EQ(NCALLS, l.hits);
	EXPECT_EQ(0, l.missed);
	/* No errors: the errno histogram has no key. */
	ASSERT_LT(0, pcore_read(PCORE_DBG "/sys_getppid:retval.errno/stats",
				buf, PCORE_BUF));
	EXPECT_EQ(0, pcore_key(buf, "keys")) TH_LOG("%s", buf);

	/*
	 * close(-1) fails with EBADF: counted under errno 9, not as a value.
	 * Other closes (the reads above open and close files) return 0.
	 */
	ASSERT_LT(0, pcore_read(PCORE_DBG "/sys_close:retval:status.errno/keys",
				buf, PCORE_BUF));
	EXPECT_NE(NULL, strstr(buf, "# errno label count")) TH_LOG("%s", buf);
	p = strstr(buf, "\n9 ");
	ASSERT_NE(NULL, p) TH_LOG("%s", buf);
	got = sscanf(p + 1, "%*u %*s %llu", &n);
	ASSERT_EQ(1, got) TH_LOG("%s", buf);
	EXPECT_EQ(NCALLS, n) TH_LOG("%s", buf);
	ASSERT_LT(0, pcore_read(PCORE_DBG "/sys_close:retval:status/stats", buf,
				PCORE_BUF));
	EXPECT_EQ(0, pcore_key(buf, "max")) TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, "\nunit: status\n"));
	ASSERT_EQ(0, pcore_probe_line("sys_close:retval:status", &l));
	EXPECT_LE(NCALLS, l.hits);
}

/* By default, through a direct call's wrapping trampoline. */
TEST_F_TIMEOUT(values, retval_and_errno, 300)
{
	retval_and_errno(_metadata, "", "direct-ret");
}

TEST_F_TIMEOUT(values, retval_and_errno_kprobe, 300)
{
	retval_and_errno(_metadata, "mechanism=kprobe", "kretprobe");
}

/* hist= applies to value targets too; :argN reads registers at entry. */
TEST_F_TIMEOUT(values, hist_kind_and_arg, 300)
{
	ASSERT_EQ(0, pcore_load("target=sys_getppid:retval hist=linear:0,100000,1000"));
	ASSERT_LT(0, pcore_read(PCORE_DBG "/sys_getppid:retval/stats", buf, PCORE_BUF));
	EXPECT_NE(NULL, strstr(buf, "\nkind: linear\n")) TH_LOG("%s", buf);
	ASSERT_EQ(0, pcore_unload_wait());

	/* Arguments 1 to 6 exist; a second probe of the same one does not. */
	ASSERT_EQ(0, pcore_load("target=vfs_read:arg1,vfs_read:arg6,vfs_read:arg3:bytes,vfs_read"));
	ASSERT_EQ(0, pcore_unload_wait());
	EXPECT_EQ(EINVAL, pcore_load("target=vfs_read:arg3,ksys_read:arg3,vfs_read:arg3:bytes"));
}

/* Bad suffixes and units fail the load and leave nothing behind. */
TEST_F_TIMEOUT(values, bad_suffixes, 300)
{
	static const char * const bad[] = {
		"target=vfs_read:arg0", "target=vfs_read:arg7",
		"target=vfs_read:arg", "target=vfs_read:arg12",
		"target=vfs_read:args", "target=vfs_read:retval:",
		"target=vfs_read:arg1:by\x01tes", "target=vfs_read:count:bytes",
		"target=vfs_read:ret",
		"target=vfs_read:arg1:abcdefghijklmnop",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(EINVAL, pcore_load(bad[i])) TH_LOG("%s", bad[i]);
		EXPECT_FALSE(pcore_loaded()) TH_LOG("%s", bad[i]);
		if (pcore_loaded())
			pcore_unload_wait();
	}
	EXPECT_EQ(ENOENT, pcore_load("target=pcore_no_such_function:retval"));
	EXPECT_FALSE(pcore_loaded());
}

TEST_HARNESS_MAIN
