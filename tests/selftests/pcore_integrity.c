// SPDX-License-Identifier: GPL-2.0
/*
 * Runs in a boot with lockdown=integrity (what Secure Boot gives on most
 * distributions) on a kernel that trusts the key make check signs our
 * modules with (the debug kernel).  There the kernel allows kprobes, and
 * debugfs lets root open only files of mode 0444 or less with no write,
 * ioctl or mmap.  The README's usage must work as it is: insmod
 * target=do_fork, a workload, cat of every read-only file, probectl show,
 * reset, attach, watch and detach through /dev/probe_core; and every
 * debugfs file that can be written is refused (EPERM), to write and to
 * read, so that nothing changes through debugfs.
 */
#include "pcore_lib.h"
#include <dirent.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include "kselftest_harness.h"

#define SECFS		"/sys/kernel/security"
#define PCORE_CTL	"/pcore/bin/probectl"
#define OUT		"/tmp/probectl.out"
#define NFORKS		20

static char out[PCORE_BUF];

#define CTL(...)	pcore_run((const char * const []){ PCORE_CTL, __VA_ARGS__, NULL }, \
				  NULL, OUT, out, sizeof(out))

struct walk {
	int readable;	/* read-only files read to the end */
	int refused;	/* writable files whose opens got EPERM */
	int bad;	/* anything else: TH_LOG says what */
};

/* Every regular file under @dir, depth first. */
static void walk(struct __test_metadata *_metadata, const char *dir,
		 struct walk *w)
{
	static char buf[65536];
	char path[512];
	struct dirent *e;
	struct stat st;
	DIR *d = opendir(dir);
	ssize_t n;
	int fd;

	if (!d) {
		TH_LOG("%s: %s", dir, strerror(errno));
		w->bad++;
		return;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (lstat(path, &st)) {
			w->bad++;
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			walk(_metadata, path, w);
			continue;
		}
		if (st.st_mode & 0222) {
			/* Refused whatever the open asks for. */
			if (open(path, O_RDONLY | O_CLOEXEC) >= 0 || errno != EPERM ||
			    open(path, O_WRONLY | O_CLOEXEC) >= 0 || errno != EPERM) {
				TH_LOG("%s (mode %o): not refused", path,
				       st.st_mode & 07777);
				w->bad++;
			} else {
				w->refused++;
			}
			continue;
		}
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			TH_LOG("%s (mode %o): %s", path, st.st_mode & 07777,
			       strerror(errno));
			w->bad++;
			continue;
		}
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			;
		if (n < 0) {
			TH_LOG("%s: read: %s", path, strerror(errno));
			w->bad++;
		} else {
			w->readable++;
		}
		close(fd);
	}
	closedir(d);
}

FIXTURE(integ) {
	int unused;
};

FIXTURE_SETUP(integ)
{
	if (pcore_loaded())
		pcore_unload_wait();
}

FIXTURE_TEARDOWN(integ)
{
	if (pcore_loaded())
		pcore_unload_wait();
	EXPECT_FALSE(pcore_loaded());
}

TEST_F(integ, kernel_is_locked_down)
{
	ASSERT_LOCKED_DOWN(SECFS, "integrity");
}

/* insmod target=do_fork, forks, cat every file; writes refused. */
TEST_F_TIMEOUT(integ, readme_usage, PCORE_TIMEOUT_PATCHING)
{
	static char buf[65536];
	struct walk w = { 0 };
	unsigned long long before;

	ASSERT_EQ(0, pcore_load("target=do_fork"));
	before = pcore_stat("do_fork", "count");
	ASSERT_NE(-1ULL, before);
	ASSERT_EQ(0, pcore_forks(NFORKS));
	EXPECT_LE(before + NFORKS, pcore_stat("do_fork", "count"));
	ASSERT_LT(0, pcore_read(PCORE_DBG "/do_fork/hist", buf, sizeof(buf)));

	walk(_metadata, PCORE_DBG, &w);
	TH_LOG("%d files read, %d writable ones refused", w.readable, w.refused);
	EXPECT_EQ(0, w.bad);
	/* probes, clients, timers; hist, hist_full, percpu, stats ... */
	EXPECT_LE(7, w.readable);
	/* at least do_fork's reset */
	EXPECT_LE(1, w.refused);
	/* echo 1 > reset: refused, and the count stays */
	EXPECT_NE(0, pcore_write(PCORE_DBG "/do_fork/reset", "1", 1));
	EXPECT_LE(before + NFORKS, pcore_stat("do_fork", "count"));
}

/* probectl works through /dev/probe_core, which lockdown leaves alone. */
TEST_F_TIMEOUT(integ, probectl, PCORE_TIMEOUT_PATCHING)
{
	unsigned long long forks;

	ASSERT_EQ(0, pcore_load("target=do_fork"));
	ASSERT_EQ(0, pcore_forks(NFORKS));
	ASSERT_EQ(0, CTL("show", "do_fork")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "count")) TH_LOG("%s", out);
	forks = pcore_nr_forks();
	ASSERT_EQ(0, CTL("reset", "do_fork")) TH_LOG("%s", out);
	/* reset: only the kernel's own forks since, if any */
	EXPECT_GE(pcore_nr_forks() - forks, pcore_stat("do_fork", "count"));
	ASSERT_EQ(0, CTL("attach", "--kretprobe", "vfs_read")) TH_LOG("%s", out);
	EXPECT_EQ(0, CTL("show", "vfs_read")) TH_LOG("%s", out);
	EXPECT_EQ(0, CTL("watch", "do_fork", "-i", "1", "-n", "1")) TH_LOG("%s", out);
	EXPECT_EQ(0, CTL("detach", "vfs_read")) TH_LOG("%s", out);
	EXPECT_NE(0, access(PCORE_DBG "/vfs_read", F_OK));
}

TEST_HARNESS_MAIN
