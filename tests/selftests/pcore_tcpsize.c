// SPDX-License-Identifier: GPL-2.0
/*
 * tcpsize.ko: known TCP sends over loopback land, exactly, in their log2
 * buckets: one tcp_sendmsg() per send() whatever its size.
 */
#include "pcore_lib.h"
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include "kselftest_harness.h"

#define DIR	PCORE_DBG "/tcpsize"

/* The workload: count sends of size bytes each. */
static const struct {
	int count;
	size_t size;
	unsigned long long lo, hi;	/* its log2 bucket [lo, hi) */
} sends[] = {
	{ 100, 1000, 512, 1024 },
	{ 50, 10000, 8192, 16384 },
	{ 10, 100000, 65536, 131072 },
};

static char buf[PCORE_BUF];
static char data[100000];

FIXTURE(tcpsize) {
	int listener;
	struct sockaddr_in addr;
};

FIXTURE_SETUP(tcpsize)
{
	socklen_t alen = sizeof(self->addr);

	self->listener = -1;
	PCORE_ASSERT_RELOADED("tcpsize");
	ASSERT_EQ(0, pcore_lo_up());

	self->addr.sin_family = AF_INET;
	self->addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	self->listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, self->listener);
	ASSERT_EQ(0, bind(self->listener, (void *)&self->addr,
			  sizeof(self->addr)));
	ASSERT_EQ(0, getsockname(self->listener, (void *)&self->addr, &alen));
	ASSERT_EQ(0, listen(self->listener, 1));
}

FIXTURE_TEARDOWN(tcpsize)
{
	if (self->listener >= 0)
		close(self->listener);
	pcore_lo_restore();
	if (pcore_mod_loaded("tcpsize"))
		EXPECT_EQ(0, pcore_mod_unload_wait("tcpsize"));
	EXPECT_EQ(0, pcore_unload_wait());
}

/*
 * A reader child drains the connection (it never writes: only the sender
 * calls tcp_sendmsg) and exits with 0 when it got every byte.
 */
static pid_t reader(int listener, unsigned long long expect)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	{
		unsigned long long got = 0;
		char rbuf[65536];
		int c = accept(listener, NULL, NULL);
		ssize_t n;

		if (c < 0)
			_exit(2);
		while ((n = read(c, rbuf, sizeof(rbuf))) > 0)
			got += n;
		_exit(n == 0 && got == expect ? 0 : 1);
	}
}

/*
 * The sends, then their counts and sizes in the histogram in directory
 * @dir, fed by the probe @probe (as the probes file names it), of kind
 * @kind.
 */
static void sends_exact(struct __test_metadata *_metadata, int listener,
			const struct sockaddr_in *addr, const char *dir,
			const char *probe, const char *kind)
{
	unsigned long long total = 0, bytes = 0, c0;
	struct pcore_probe_line l;
	int i, j, s, st, lines;
	char path[256];
	pid_t pid;

	for (i = 0; i < (int)ARRAY_SIZE(sends); i++) {
		total += sends[i].count;
		bytes += sends[i].count * sends[i].size;
	}
	memset(data, 'x', sizeof(data));
	pid = reader(listener, bytes);
	ASSERT_LT(0, pid);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ASSERT_LE(0, s);
	ASSERT_EQ(0, connect(s, (void *)addr, sizeof(*addr)));

	/*
	 * Nothing else in the VM sends TCP: with the connection set up (the
	 * handshake does not call tcp_sendmsg), the count is still 0.
	 */
	snprintf(path, sizeof(path), "%s/stats", dir);
	ASSERT_LT(0, pcore_read(path, buf, PCORE_BUF));
	c0 = pcore_key(buf, "count");
	ASSERT_EQ(0, c0);

	/* Blocking sends: each returns only when all its bytes are queued. */
	for (i = 0; i < (int)ARRAY_SIZE(sends); i++)
		for (j = 0; j < sends[i].count; j++)
			ASSERT_EQ((ssize_t)sends[i].size,
				  send(s, data, sends[i].size, 0));
	close(s);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	ASSERT_EQ(0, WEXITSTATUS(st));	/* the reader got every byte */

	/* One tcp_sendmsg() per send(): counts, sizes and sums exact. */
	ASSERT_LT(0, pcore_read(path, buf, PCORE_BUF));
	EXPECT_EQ(total, pcore_key(buf, "count"));
	EXPECT_EQ(bytes, pcore_key(buf, "sum"));
	EXPECT_EQ(sends[0].size, pcore_key(buf, "min"));
	EXPECT_EQ(sends[ARRAY_SIZE(sends) - 1].size, pcore_key(buf, "max"));
	EXPECT_EQ(0, pcore_key(buf, "missed"));
	EXPECT_NE(NULL, strstr(buf, "\nsymbol: tcp_sendmsg\n"));
	EXPECT_NE(NULL, strstr(buf, "\nunit: bytes\n"));
	EXPECT_NE(NULL, strstr(buf, "\nkind: log2\n"));

	snprintf(path, sizeof(path), "%s/hist", dir);
	ASSERT_LT(0, pcore_read(path, buf, PCORE_BUF));
	TH_LOG("hist:\n%s", buf);
	for (i = 0; i < (int)ARRAY_SIZE(sends); i++)
		EXPECT_EQ(sends[i].count,
			  pcore_bucket(buf, "bytes", sends[i].lo, sends[i].hi));
	/* No other bucket has anything. */
	EXPECT_EQ(total, pcore_hist_total(buf, &lines));

	ASSERT_EQ(0, pcore_probe_line(probe, &l));
	EXPECT_STREQ(kind, l.kind);
	EXPECT_STREQ("tcp_sendmsg", l.symbol);
	EXPECT_EQ(total, l.hits);
	EXPECT_EQ(0, l.missed);
}

TEST_F_TIMEOUT(tcpsize, exact_buckets, 300)
{
	sends_exact(_metadata, self->listener, &self->addr, DIR "/size",
		    "tcpsize/tcp_sendmsg", "kprobe");
}

/*
 * The same histogram without a module: target=tcp_sendmsg:arg3:bytes
 * records the third argument (the size) at each call, in log2 buckets.
 */
TEST_F_TIMEOUT(tcpsize, target_arg3, 300)
{
	ASSERT_EQ(0, pcore_mod_unload_wait("tcpsize"));
	ASSERT_EQ(0, pcore_unload_wait());
	ASSERT_EQ(0, pcore_load("target=tcp_sendmsg:arg3:bytes"));
	sends_exact(_metadata, self->listener, &self->addr,
		    PCORE_DBG "/tcp_sendmsg:arg3:bytes", "tcp_sendmsg:arg3:bytes",
		    "direct");
}

/* The same through a kprobe. */
TEST_F_TIMEOUT(tcpsize, target_arg3_kprobe, 300)
{
	ASSERT_EQ(0, pcore_mod_unload_wait("tcpsize"));
	ASSERT_EQ(0, pcore_unload_wait());
	ASSERT_EQ(0, pcore_load("mechanism=kprobe target=tcp_sendmsg:arg3:bytes"));
	sends_exact(_metadata, self->listener, &self->addr,
		    PCORE_DBG "/tcp_sendmsg:arg3:bytes", "tcp_sendmsg:arg3:bytes",
		    "kprobe");
}

TEST_F_TIMEOUT(tcpsize, unloads_cleanly, 120)
{
	struct pcore_probe_line l;

	PCORE_EXPECT_MOD_UNLOADS("tcpsize", DIR "/size/hist", DIR);
	EXPECT_NE(0, pcore_probe_line("tcpsize/tcp_sendmsg", &l));
}

TEST_HARNESS_MAIN
