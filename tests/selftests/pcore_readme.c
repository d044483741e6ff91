// SPDX-License-Identifier: GPL-2.0
/*
 * readlat, the handler module of docs/api.md and the README's tour
 * (modules/examples/readlat/, whose files the docs show), built out of
 * tree from the tree's files against the installed headers and
 * Module.symvers (scripts/readme-module.sh): it loads beside probe_core,
 * records what the docs say, and unloads.
 */
#include "pcore_lib.h"
#include "kselftest_harness.h"

#define DBG	PCORE_DBG "/readlat"
#define NREADS	500
#define RSIZE	3000	/* in the log2 bucket [2048, 4096) */

FIXTURE(readme) {
	int unused;
};

FIXTURE_SETUP(readme)
{
	if (pcore_mod_loaded("readlat"))
		ASSERT_EQ(0, pcore_mod_unload_wait("readlat"));
	if (pcore_loaded())
		ASSERT_EQ(0, pcore_unload_wait());
	ASSERT_EQ(0, pcore_load(""));
	ASSERT_EQ(0, pcore_mod_load("readlat", ""));
}

FIXTURE_TEARDOWN(readme)
{
	if (pcore_mod_loaded("readlat"))
		EXPECT_EQ(0, pcore_mod_unload_wait("readlat"));
	if (pcore_loaded())
		EXPECT_EQ(0, pcore_unload_wait());
}

/* The bucket line "[lo, hi) count |...|" of the size histogram. */
static long long size_bucket(unsigned long long lo)
{
	static char buf[PCORE_BUF];
	unsigned long long b_lo, n;
	char *line;

	if (pcore_read(DBG "/size/hist", buf, sizeof(buf)) < 0)
		return -1;
	for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
		if (sscanf(line, "[%llubytes, %*s %llu", &b_lo, &n) == 2 &&
		    b_lo == lo)
			return n;
	return 0;
}

/*
 * NREADS reads of RSIZE bytes from /dev/zero: each is one vfs_read() that
 * asks for RSIZE.  Other readers in the guest may ask for sizes in the
 * same bucket, so the bucket grows by at least NREADS; every call is
 * timed, so the latency count grows by at least NREADS too.
 */
static unsigned long long latency_count(void)
{
	static char buf[PCORE_BUF];

	if (pcore_read(DBG "/latency/stats", buf, sizeof(buf)) < 0)
		return 0;
	return pcore_key(buf, "count");
}

/* read(2) calls counted by the typed sys_enter probe */
static unsigned long long reads_count(void)
{
	static char buf[PCORE_BUF];

	if (pcore_read(DBG "/reads/stats", buf, sizeof(buf)) < 0)
		return 0;
	return pcore_key(buf, "count");
}

TEST_F(readme, readlat_records_sizes_and_latency)
{
	unsigned long long lat0, lat1, r0, r1, r2;
	long long b0, b1;
	static char buf[RSIZE];
	int fd, i;

	b0 = size_bucket(2048);
	lat0 = latency_count();
	r0 = reads_count();
	fd = open("/dev/zero", O_RDONLY);
	ASSERT_LE(0, fd);
	for (i = 0; i < NREADS; i++)
		ASSERT_EQ(RSIZE, read(fd, buf, RSIZE));
	b1 = size_bucket(2048);
	lat1 = latency_count();
	r1 = reads_count();
	ASSERT_LE(0, b0);
	EXPECT_LE(b0 + NREADS, b1);
	EXPECT_LE(lat0 + NREADS, lat1);
	/* every read(2) of ours, and our reads of the stats files */
	EXPECT_LE(r0 + NREADS, r1);

	/*
	 * pread64(2) goes through vfs_read() too, but it is not read(2):
	 * the sys_enter handler does not count it.  Nothing else in the
	 * guest makes hundreds of read(2) calls meanwhile.
	 */
	for (i = 0; i < NREADS; i++)
		ASSERT_EQ(RSIZE, pread(fd, buf, RSIZE, 0));
	close(fd);
	r2 = reads_count();
	EXPECT_GT(r1 + NREADS / 2, r2) TH_LOG("pread64 counted as read: %llu then %llu",
					      r1, r2);

	/* probe_core stays while its user is loaded */
	EXPECT_NE(0, pcore_unload());
	EXPECT_EQ(0, access("/sys/module/probe_core/holders/readlat", F_OK));
	ASSERT_EQ(0, pcore_mod_unload_wait("readlat"));
	EXPECT_NE(0, access(DBG, F_OK));
	EXPECT_EQ(0, pcore_unload_wait());
	EXPECT_FALSE(pcore_loaded());
}

TEST_HARNESS_MAIN
