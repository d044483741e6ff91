// SPDX-License-Identifier: GPL-2.0
/*
 * hist=exp[:S], the exponential kind: buckets of a native histogram of
 * schema S.  sys_umask:retval gives exact values: umask(v) then umask(0)
 * returns 0, then v.  Each value must land in the bucket the native
 * definition gives, (2^((i-1)/2^S), 2^(i/2^S)], computed here in integers
 * (v^(2^S) against 2^i), nothing of the engine's; 0 in the zero bucket.
 * Through hist= (schema 3) and the attach ioctl (schema 0, which is
 * schema 0, not the default); bad schemas refused with EINVAL and one log
 * line.
 */
#include "pcore_lib.h"
#include "pcore_ioctl.h"
#include "kselftest_harness.h"

static char buf[PCORE_BUF];
static char log_[PCORE_BUF];

/* values umask returns: bucket ends of schema 3 and their neighbours */
static const unsigned int vals[] = {
	1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 100, 181, 182, 236, 237, 255, 256,
	300, 511,
};

static const char * const mods[] = { "probe_core" };

FIXTURE(exp) {
	int kmsg;
};

FIXTURE_SETUP(exp)
{
	PCORE_KMSG_SETUP(mods, 1);
}

FIXTURE_TEARDOWN(exp)
{
	PCORE_KMSG_TEARDOWN(mods, 1, log_);
}

/* x^(2^s), for x < 2^9 and s <= 3: below 2^72 */
static unsigned __int128 pow2s(unsigned long long x, unsigned int s)
{
	unsigned __int128 p = x;

	while (s--)
		p *= p;
	return p;
}

/* The native index of v >= 1: the smallest i with v^(2^s) <= 2^i. */
static int native_index(unsigned long long v, unsigned int s)
{
	unsigned __int128 w = pow2s(v, s);
	int i = 0;

	while (((unsigned __int128)1 << i) < w)
		i++;
	return i;
}

/* floor(2^(i/2^s)): the largest y with y^(2^s) <= 2^i */
static unsigned long long native_floor(int i, unsigned int s)
{
	unsigned long long y = 1;

	while (pow2s(y + 1, s) <= (unsigned __int128)1 << i)
		y++;
	return y;
}

/* The integers [lo, hi) of v's native bucket, as the hist file shows. */
static void native_bucket(unsigned long long v, unsigned int s,
			  unsigned long long *lo, unsigned long long *hi)
{
	int i = native_index(v, s);

	if (v <= 1) {
		*lo = v;
		*hi = v + 1;
		return;
	}
	*lo = native_floor(i - 1, s) + 1;
	*hi = native_floor(i, s) + 1;
}

/*
 * umask(v), umask(0) for each value: returns 0 and v, each value once
 * (the umask is 0 before: umask(0) before the probe).
 */
static void umask_values(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(vals); i++) {
		umask(vals[i]);
		umask(0);
	}
}

/* Every value in its native bucket of schema @s, @hist a hist_full text. */
static void values_in_native_buckets(struct __test_metadata *_metadata,
				     const char *hist, unsigned int s)
{
	unsigned long long lo, hi, lo2, hi2, want;
	unsigned int i, j;
	int lines;

	EXPECT_EQ(ARRAY_SIZE(vals), pcore_bucket(hist, "value", 0, 1))
		TH_LOG("zero bucket: %s", hist);
	for (i = 0; i < ARRAY_SIZE(vals); i++) {
		native_bucket(vals[i], s, &lo, &hi);
		for (want = 0, j = 0; j < ARRAY_SIZE(vals); j++) {
			native_bucket(vals[j], s, &lo2, &hi2);
			want += lo2 == lo;
		}
		EXPECT_EQ(want, pcore_bucket(hist, "value", lo, hi))
			TH_LOG("schema %u: %u in [%llu, %llu): %s", s, vals[i],
			       lo, hi, hist);
	}
	EXPECT_EQ(2 * ARRAY_SIZE(vals), pcore_hist_total(hist, &lines));
}

TEST_F_TIMEOUT(exp, hist_exp3, 300)
{
	umask(0);
	ASSERT_EQ(0, pcore_load("target=sys_umask:retval hist=exp:3"));
	umask_values();
	ASSERT_LT(0, pcore_read(PCORE_DBG "/sys_umask:retval/stats", buf,
				PCORE_BUF));
	EXPECT_NE(NULL, strstr(buf, "\nkind: exp:3\n")) TH_LOG("%s", buf);
	/* (2^(1/8) - 1) / 2, rounded up */
	EXPECT_NE(NULL, strstr(buf, "\npercentile_error: 4.5254%\n"))
		TH_LOG("%s", buf);
	EXPECT_EQ(2 * ARRAY_SIZE(vals), pcore_key(buf, "count"));
	EXPECT_EQ(511, pcore_key(buf, "max"));
	ASSERT_LT(0, pcore_read(PCORE_DBG "/sys_umask:retval/hist_full", buf,
				PCORE_BUF));
	values_in_native_buckets(_metadata, buf, 3);
	/*
	 * spot checks, by hand: 2^(59/8) = 165.995, 2^(60/8) = 181.019,
	 * 2^(61/8) = 197.403, 2^(63/8) = 234.753, 2^(64/8) = 256
	 */
	EXPECT_EQ(1, pcore_bucket(buf, "value", 166, 182)) TH_LOG("%s", buf);
	EXPECT_EQ(1, pcore_bucket(buf, "value", 182, 198)) TH_LOG("%s", buf);
	EXPECT_EQ(4, pcore_bucket(buf, "value", 235, 257)) TH_LOG("%s", buf);
}

/* The ioctl: precision 0 is schema 0; bad fields refused. */
TEST_F_TIMEOUT(exp, ioctl_exp0, 300)
{
	struct pcore_ioc_entry e;
	struct pcore_ioc_attach a;
	char *p;
	int fd, n;

	PCORE_LOAD_OPEN(NULL, fd);
	pcore_att_init(&a, "sys_umask:retval", PCORE_ATTACH_KRETPROBE,
		       PCORE_UAPI_HIST_EXP);
	a.precision = 9;
	EXPECT_EQ(EINVAL, pcore_ioc(fd, PCORE_IOC_ATTACH, &a));
	kmsg_collect(self->kmsg, log_, sizeof(log_));
	for (n = 0, p = log_; (p = strstr(p, "exp schema must be 0 to 8")); p++)
		n++;
	EXPECT_EQ(1, n) TH_LOG("log: %s", log_);
	a.precision = 3;
	a.min = 1;	/* a field exp does not use */
	EXPECT_EQ(EINVAL, pcore_ioc(fd, PCORE_IOC_ATTACH, &a));
	a.min = 0;
	a.step = 1;
	EXPECT_EQ(EINVAL, pcore_ioc(fd, PCORE_IOC_ATTACH, &a));
	a.step = 0;
	EXPECT_EQ(0, pcore_hist_dirs());

	a.precision = 0;
	umask(0);
	ASSERT_EQ(0, pcore_ioc(fd, PCORE_IOC_ATTACH, &a));
	ASSERT_EQ(0, pcore_list_one(fd, "sys_umask:retval", &e));
	EXPECT_STREQ("exp:0", e.hist_kind);
	/* zero, 1, native 1 .. 42 (2^42 ns > 1 hour), overflow */
	EXPECT_EQ(45, e.nbuckets);
	umask_values();
	ASSERT_LT(0, pcore_read(PCORE_DBG "/sys_umask:retval/hist_full", buf,
				PCORE_BUF));
	values_in_native_buckets(_metadata, buf, 0);
	EXPECT_EQ(2, pcore_bucket(buf, "value", 257, 513)) TH_LOG("%s", buf);
	ASSERT_LT(0, pcore_read(PCORE_DBG "/sys_umask:retval/stats", buf,
				PCORE_BUF));
	EXPECT_NE(NULL, strstr(buf, "\nkind: exp:0\n")) TH_LOG("%s", buf);
	EXPECT_NE(NULL, strstr(buf, "\npercentile_error: 50.0000%\n"))
		TH_LOG("%s", buf);
	EXPECT_EQ(0, pcore_name_ioc(fd, PCORE_IOC_DETACH, "sys_umask:retval"));
	close(fd);
}

TEST_F_TIMEOUT(exp, bad_schemas, 300)
{
	static const struct pcore_bad_load bad[] = {
		{ "target=sys_umask:retval hist=exp:9", EINVAL,
		  "hist=exp:9: exp schema must be 0 to 8" },
		{ "target=sys_umask:retval hist=exp:-1", EINVAL,
		  "hist=exp:-1: exp schema must be 0 to 8" },
		{ "target=sys_umask:retval hist=exp:x", EINVAL,
		  "hist=exp:x: exp schema must be 0 to 8" },
	};

	PCORE_EXPECT_BAD_LOADS(bad, log_);
	EXPECT_EQ(0, pcore_load("target=sys_umask:retval hist=exp"));
	ASSERT_LT(0, pcore_read(PCORE_DBG "/sys_umask:retval/stats", buf,
				PCORE_BUF));
	EXPECT_NE(NULL, strstr(buf, "\nkind: exp:4\n")) TH_LOG("%s", buf);
}

TEST_HARNESS_MAIN
