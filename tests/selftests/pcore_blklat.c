// SPDX-License-Identifier: GPL-2.0
/*
 * blklat.ko on null_blk: known direct I/O gives exact request counts per
 * size bucket, latencies no shorter than the device's completion time,
 * a request table that tracked every request, and a clean unload.
 *
 * null_blk (blk-mq, queue_mode=2) completes each request from an hrtimer
 * COMPLETION_NS after the driver received it (irqmode=2).  brd would not
 * do: it is bio-based, makes no requests and emits no block_rq_* event.
 */
#include "pcore_lib.h"
#include <sys/sysmacros.h>
#include "kselftest_harness.h"

#define DIR		PCORE_DBG "/blklat"
#define DEV		"/dev/nullb0"
#define COMPLETION_NS	1000000ULL
#define NULLB_PARAMS	"queue_mode=2 irqmode=2 completion_nsec=1000000 " \
			"nr_devices=1 gb=1 bs=512 submit_queues=1"

/* The workload: count direct I/Os of size bytes each. */
static const struct {
	int count;
	size_t size;
	bool write;
	unsigned long long lo, hi;	/* its log2 bucket [lo, hi) */
} ios[] = {
	{ 20, 4096, false, 4096, 8192 },
	{ 5, 16384, true, 16384, 32768 },
	{ 10, 65536, false, 65536, 131072 },
};

static char text[PCORE_BUF];

/*
 * The line of key @want in @hist's keys file (keyed by "dev", the table by
 * "event"); 0, or -1 when absent or when the file is not of that shape.
 */
static int read_key(const char *hist, unsigned long long want,
		    struct pcore_keyline *k)
{
	static struct pcore_keys keys;
	const struct pcore_keyline *q;
	char path[256];

	snprintf(path, sizeof(path), DIR "/%s/keys", hist);
	if (pcore_keys_read(path, strcmp(hist, "table") ? "dev" : "event", &keys))
		return -1;
	q = pcore_keys_find(&keys, want);
	if (!q)
		return -1;
	*k = *q;
	return 0;
}

/* Lines in a keys file, header excluded; -1 when unreadable. */
static int count_keys(const char *hist)
{
	char path[256];
	int n = 0;
	char *p;

	snprintf(path, sizeof(path), DIR "/%s/keys", hist);
	if (pcore_read(path, text, PCORE_BUF) <= 0)
		return -1;
	for (p = text; (p = strchr(p, '\n')); p++)
		n++;
	return n - 1;
}

FIXTURE(blklat) {
	bool configfs;		/* we loaded configfs */
	bool nullb;		/* we loaded null_blk */
	bool deadline;		/* we loaded mq-deadline */
	unsigned long long devt;	/* the kernel's dev_t of nullb0 */
};

FIXTURE_SETUP(blklat)
{
	struct stat st;
	int ret;

	PCORE_ASSERT_UNLOADED("blklat");
	ASSERT_FALSE(pcore_mod_loaded("null_blk"));
	/* null_blk needs configfs; nothing loads modules for us here. */
	ret = pcore_mod_load("configfs", NULL);
	ASSERT_TRUE(ret == 0 || ret == EEXIST);
	self->configfs = !ret;
	ASSERT_EQ(0, pcore_mod_load("null_blk", NULLB_PARAMS));
	self->nullb = true;
	/* devtmpfs makes the node when the disk is added, before load returns. */
	ASSERT_EQ(0, stat(DEV, &st));
	ASSERT_TRUE(S_ISBLK(st.st_mode));
	/* The kernel's dev_t: major in the top 12 bits, minor in the low 20. */
	self->devt = (unsigned long long)major(st.st_rdev) << 20 |
		     minor(st.st_rdev);
	ASSERT_EQ(0, pcore_load(NULL));
	ASSERT_EQ(0, pcore_mod_load("blklat", NULL));
}

FIXTURE_TEARDOWN(blklat)
{
	if (pcore_mod_loaded("blklat"))
		EXPECT_EQ(0, pcore_mod_unload_wait("blklat"));
	if (pcore_loaded())
		EXPECT_EQ(0, pcore_unload_wait());
	if (self->nullb)
		EXPECT_EQ(0, pcore_mod_unload_wait("null_blk"));
	/* After null_blk: its queue's scheduler holds the module. */
	if (self->deadline)
		EXPECT_EQ(0, pcore_mod_unload_wait("mq_deadline"));
	if (self->configfs)
		EXPECT_EQ(0, pcore_mod_unload_wait("configfs"));
}

/* Each I/O of ios[], O_DIRECT from an aligned buffer: one request each. */
static int do_io(void)
{
	off_t off = 0;
	void *mem;
	int fd, i, j, ok = 0;

	if (posix_memalign(&mem, 4096, 65536))
		return -1;
	memset(mem, 0x5a, 65536);
	fd = open(DEV, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		goto out;
	for (i = 0; i < (int)ARRAY_SIZE(ios); i++)
		for (j = 0; j < ios[i].count; j++) {
			ssize_t n = ios[i].write ?
				pwrite(fd, mem, ios[i].size, off) :
				pread(fd, mem, ios[i].size, off);

			if (n != (ssize_t)ios[i].size)
				goto out_close;
			/* Never adjacent: no two requests can be merged. */
			off += 2 * 65536;
		}
	ok = 1;
out_close:
	close(fd);
out:
	free(mem);
	return ok ? 0 : -1;
}

TEST_F_TIMEOUT(blklat, exact_requests, 300)
{
	unsigned long long total = 0, bytes = 0;
	struct pcore_keyline k, tracked;
	char sched[128] = "";
	int i;

	for (i = 0; i < (int)ARRAY_SIZE(ios); i++) {
		total += ios[i].count;
		bytes += ios[i].count * ios[i].size;
	}
	pcore_read("/sys/block/nullb0/queue/scheduler", sched, sizeof(sched));
	TH_LOG("nullb0 dev_t %llu, scheduler %s", self->devt, sched);

	/* The VM does no other I/O: nothing before the workload. */
	EXPECT_EQ(0, count_keys("size"));
	EXPECT_EQ(0, count_keys("lat"));
	ASSERT_EQ(0, do_io());

	/* Exactly one request per I/O, of exactly its size. */
	ASSERT_EQ(0, read_key("size", self->devt, &k));
	EXPECT_STREQ("nullb0", k.label);
	EXPECT_EQ(total, k.count);
	EXPECT_EQ(bytes, k.sum);
	EXPECT_EQ(4096, k.min);
	EXPECT_EQ(65536, k.max);
	EXPECT_EQ(1, count_keys("size"));	/* no other disk */

	ASSERT_LT(0, pcore_read(DIR "/size/hist", text, PCORE_BUF));
	TH_LOG("size hist:\n%s", text);
	for (i = 0; i < (int)ARRAY_SIZE(ios); i++)
		EXPECT_EQ(ios[i].count, pcore_bucket(text, NULL, ios[i].lo, ios[i].hi));

	/*
	 * Issue to completion: null_blk arms its completion hrtimer for
	 * COMPLETION_NS in ->queue_rq(), after block_rq_issue, and an hrtimer
	 * never fires early on CLOCK_MONOTONIC, the clock of our stamps: no
	 * latency is shorter.  The upper bound is loose for the emulated
	 * VM, whose timers run late by milliseconds: 1 s would be a lost
	 * completion rather than a slow one.
	 */
	ASSERT_EQ(0, read_key("lat", self->devt, &k));
	EXPECT_STREQ("nullb0", k.label);
	EXPECT_EQ(total, k.count);
	EXPECT_LE(COMPLETION_NS, k.min);
	EXPECT_LE(k.min, k.p50);
	EXPECT_LE(k.p50, k.max);
	EXPECT_GT(1000000000ULL, k.max);
	TH_LOG("lat min %llu p50 %llu max %llu", k.min, k.p50, k.max);

	/*
	 * The table tracked each request once (one slot per request, at its
	 * insert or issue), and no completion went unmatched.
	 */
	ASSERT_EQ(0, read_key("table", 0, &tracked));
	EXPECT_STREQ("tracked", tracked.label);
	EXPECT_EQ(total, tracked.count);
	EXPECT_NE(0, read_key("table", 1, &k));		/* full: never */
	EXPECT_NE(0, read_key("table", 2, &k));		/* unmatched: never */

	ASSERT_LT(0, pcore_read(DIR "/lat/stats", text, PCORE_BUF));
	EXPECT_EQ(0, pcore_key(text, "dropped"));
	EXPECT_NE(NULL, strstr(text, "\nsymbol: block_rq_complete\n"));
}

/*
 * With an I/O scheduler (null_blk's default is none: requests then go to
 * the driver directly, most without an insert), every request is inserted
 * into the scheduler first: each has its queue time, from insert to issue,
 * recorded once, and the slot it took at its insert serves its issue and
 * completion.
 */
TEST_F_TIMEOUT(blklat, queue_time, 300)
{
	unsigned long long total = 0;
	struct pcore_probe_line ins, iss, cpl;
	struct pcore_keyline q, lat, tracked;
	int i;

	for (i = 0; i < (int)ARRAY_SIZE(ios); i++)
		total += ios[i].count;
	/*
	 * mq-deadline is built in on 6.1 and on 6.12's RT kernel, a module
	 * on 6.12's cloud kernel, which nothing loads for us here.
	 */
	ASSERT_LT(0, pcore_read("/sys/block/nullb0/queue/scheduler", text,
				PCORE_BUF));
	if (!strstr(text, "mq-deadline")) {
		ASSERT_EQ(0, pcore_mod_load("mq-deadline", NULL));
		self->deadline = true;
	}
	ASSERT_EQ(0, pcore_write("/sys/block/nullb0/queue/scheduler",
				 "mq-deadline", 11));
	ASSERT_EQ(0, do_io());
	ASSERT_EQ(0, pcore_probe_line("blklat/block_rq_insert", &ins));
	ASSERT_EQ(0, pcore_probe_line("blklat/block_rq_issue", &iss));
	ASSERT_EQ(0, pcore_probe_line("blklat/block_rq_complete", &cpl));
	EXPECT_EQ(total, ins.hits);
	EXPECT_EQ(total, iss.hits);
	EXPECT_EQ(total, cpl.hits);

	ASSERT_EQ(0, read_key("queue", self->devt, &q));
	EXPECT_STREQ("nullb0", q.label);
	EXPECT_EQ(total, q.count);
	/* Dispatch follows insert at once: far below a second. */
	EXPECT_GT(1000000000ULL, q.max);
	TH_LOG("queue min %llu p50 %llu max %llu", q.min, q.p50, q.max);

	ASSERT_EQ(0, read_key("lat", self->devt, &lat));
	EXPECT_EQ(total, lat.count);
	EXPECT_LE(COMPLETION_NS, lat.min);
	ASSERT_EQ(0, read_key("table", 0, &tracked));
	EXPECT_EQ(total, tracked.count);
	EXPECT_NE(0, read_key("table", 1, &tracked));
	EXPECT_NE(0, read_key("table", 2, &tracked));
}

TEST_F_TIMEOUT(blklat, unloads_cleanly, 120)
{
	struct pcore_probe_line l;

	PCORE_EXPECT_MOD_UNLOADS("blklat", DIR "/lat/keys", DIR);
	EXPECT_NE(0, pcore_probe_line("blklat/block_rq_issue", &l));
}

TEST_HARNESS_MAIN
