// SPDX-License-Identifier: GPL-2.0
/*
 * bpftrace itself beside probe_core's direct calls: what pcore_direct_bpf
 * does with a BPF fentry program of its own, here with the tool users
 * run, a bpftrace kfunc: probe (an fentry program on a BPF trampoline,
 * the function's one direct call), before and after probe_core attaches.
 *
 *   probe_core first (target=F:count mechanism=direct): bpftrace cannot
 *   attach its kfunc probe (it exits 255, saying so), probe_core counts on,
 *   every call; once probe_core is unloaded, bpftrace attaches.
 *   bpftrace first: probe_core's mechanism=direct is refused with EBUSY
 *   and one line, mechanism=auto (the default) falls back to a kprobe and
 *   says why in stats; each counts every call (bpftrace's count() printed
 *   at its exit, probe_core's count).
 *
 * One bpftrace start serves both orders (each start compiles the program
 * with LLVM: seconds under emulation, more under KASAN).  bpftrace and its
 * libraries are Debian's, in a root made by scripts/bpf-root.sh
 * --bpftrace, an ext4 image on the guest's virtio disk (/dev/vda), mounted
 * here at /bpf with the kernel's file systems and chrooted into; the
 * disk's modules, for a kernel that has them as modules, are in
 * /pcore/bpfmods, loaded in the order of its file "order".  No disk is a
 * failure, with the host's reason when it could not make the image
 * (/pcore/bpfroot.why): make check runs this test only where it gives it
 * the disk (scripts/check.sh).  getppid in the quiet VM: nothing else
 * calls it, so counts are exact.
 */
#include "pcore_ioctl.h"
#include "pcore_bpfroot.h"
#include "kselftest_harness.h"

#define NCALLS		500
#define FN		"sys_getppid:count"
/* as in pcore_direct_bpf: SYSCALL_DEFINE0's alias; BTF has the latter */
#define FN_SYM		"__x64_sys_getppid"
#define FN_BTF		"__do_sys_getppid"
#define KFUNC		"kfunc:vmlinux:" FN_BTF
#define SCRIPT		KFUNC " { @ = count(); }"
#define OUT		"/tmp/bpftrace.out"	/* run_tests.sh has /tmp/<test>.out */
#define ENABLED_FUNCS	"/sys/kernel/debug/tracing/enabled_functions"
#define REFUSED		"direct " FN ": ftrace refused a direct call on " FN_SYM \
			" (-EBUSY): another direct user (a BPF trampoline?) has it"
#define AUTO_KPROBE	"kprobe (no direct call: another direct user (a BPF trampoline?) has it)"
/* What bpftrace 0.17 (Debian 12) prints when its kfunc probe is refused */
#define BT_REFUSED	"ERROR: Error attaching probe: " KFUNC
/*
 * Seconds bpftrace may take to attach or to fail: its start compiles the
 * program with LLVM, 2 to 4 s under emulation on the Debian kernels and
 * 6 to 13 s on the debug kernel (KASAN) on a loaded 2-core host; over
 * twenty times that, and the three waits under the boot's timeout.
 */
#define BT_WAIT		300

static char buf[PCORE_BUF], log[16384];

static void getppids(int n)
{
	int i;

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
}

/* bpftrace -e SCRIPT in the root, its output in OUT (pcore_bpfroot.h) */
static pid_t bpftrace_start(void)
{
	return bpfroot_bpftrace(SCRIPT, OUT);
}

/* The BPF tracing links (kfunc, kretfunc) process @pid holds. */
static int tracing_links(pid_t pid)
{
	char path[64], name[320], line[256];
	struct dirent *d;
	int n = 0;
	DIR *dir;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo", pid);
	dir = opendir(path);
	while (dir && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(name, sizeof(name), "%s/%s", path, d->d_name);
		f = fopen(name, "re");
		while (f && fgets(line, sizeof(line), f))
			n += !strcmp(line, "link_type:\ttracing\n");
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
	return n;
}

/*
 * Waits for bpftrace (@pid) to attach (returns 0) or to exit (returns 1,
 * its wait status in *@st), BT_WAIT s at most (returns -1); *@secs the
 * seconds it took.
 */
static int bpftrace_wait(pid_t pid, int *st, double *secs)
{
	double t0 = pcore_now();

	while (pcore_now() - t0 < BT_WAIT) {
		if (waitpid(pid, st, WNOHANG) == pid) {
			*secs = pcore_now() - t0;
			return 1;
		}
		if (tracing_links(pid) >= 1) {
			*secs = pcore_now() - t0;
			return 0;
		}
		usleep(100000);
	}
	*secs = pcore_now() - t0;
	return -1;
}

/* The count bpftrace printed at its exit ("@: N"), or -1ULL. */
static unsigned long long bpftrace_count(void)
{
	const char *p;

	if (pcore_read(OUT, buf, PCORE_BUF) < 0)
		return -1ULL;
	p = strstr(buf, "\n@: ");
	if (!p)
		p = !strncmp(buf, "@: ", 3) ? buf - 1 : NULL;
	return p ? strtoull(p + 4, NULL, 10) : -1ULL;
}

FIXTURE(bt) {
	int kmsg;
	pid_t pid;	/* bpftrace's, or 0 */
	bool mounted;
};

FIXTURE_SETUP(bt)
{
	static const char * const mods[] = { "probe_core" };
	char why[1400];

	self->pid = 0;
	ASSERT_EQ(0, pcore_mods_unload(mods, 1));
	self->kmsg = kmsg_open();
	ASSERT_LE(0, self->kmsg);
	ASSERT_EQ(0, bpfroot_mount(why, sizeof(why))) TH_LOG("%s", why);
	self->mounted = true;
}

FIXTURE_TEARDOWN(bt)
{
	static const char * const mods[] = { "probe_core" };

	if (self->pid > 0)
		bpfroot_bpftrace_stop(self->pid);
	EXPECT_EQ(0, pcore_mods_unload(mods, 1));
	if (self->mounted)
		bpfroot_umount();
	EXPECT_EQ(0, pcore_kmsg_bad(self->kmsg, log, sizeof(log))) {
		TH_LOG("kernel log:\n%s", log);
	}
	close(self->kmsg);
}

TEST_F_TIMEOUT(bt, kfunc, 3 * BT_WAIT)
{
	char m[256];
	double secs;
	int st;

	ASSERT_EQ(0, pcore_read(ENABLED_FUNCS, buf, PCORE_BUF));
	ASSERT_STREQ("", buf);

	/* probe_core first: bpftrace's kfunc probe is refused */
	ASSERT_EQ(0, pcore_load("target=" FN " mechanism=direct"));
	EXPECT_EQ(1, kmsg_collect(self->kmsg, log, sizeof(log))) TH_LOG("%s", log);
	EXPECT_NE(NULL, strstr(log, FN ": direct on " FN_SYM)) TH_LOG("%s", log);
	ASSERT_EQ(0, pcore_mechanism(FN, m, sizeof(m)));
	EXPECT_STREQ("direct", m);
	getppids(NCALLS);
	self->pid = bpftrace_start();
	ASSERT_LT(0, self->pid);
	ASSERT_EQ(1, bpftrace_wait(self->pid, &st, &secs)) {
		pcore_read(OUT, buf, PCORE_BUF);
		TH_LOG("bpftrace attached beside a direct call, or hung (%.0f s):\n%s",
		       secs, buf);
	}
	self->pid = 0;
	TH_LOG("bpftrace refused after %.1f s", secs);
	pcore_read(OUT, buf, PCORE_BUF);
	/* bpftrace 0.17's main() returns -1 */
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 255)
		TH_LOG("wait status %#x:\n%s", st, buf);
	EXPECT_NE(NULL, strstr(buf, BT_REFUSED)) TH_LOG("%s", buf);
	getppids(NCALLS);
	EXPECT_EQ(2 * NCALLS, pcore_stat(FN, "count"));
	/* the refusal is bpftrace's: no line of probe_core's */
	EXPECT_EQ(0, kmsg_collect(self->kmsg, log, sizeof(log))) TH_LOG("%s", log);
	ASSERT_EQ(0, pcore_unload());

	/* probe_core gone: bpftrace attaches and counts */
	self->pid = bpftrace_start();
	ASSERT_LT(0, self->pid);
	ASSERT_EQ(0, bpftrace_wait(self->pid, &st, &secs)) {
		pcore_read(OUT, buf, PCORE_BUF);
		TH_LOG("bpftrace did not attach (%.0f s, status %#x):\n%s",
		       secs, st, buf);
	}
	TH_LOG("bpftrace attached after %.1f s", secs);
	getppids(NCALLS);

	/* bpftrace first: direct is refused, auto falls back to a kprobe */
	EXPECT_EQ(EBUSY, pcore_load("target=" FN " mechanism=direct"));
	EXPECT_EQ(1, kmsg_collect(self->kmsg, log, sizeof(log))) TH_LOG("%s", log);
	EXPECT_NE(NULL, strstr(log, REFUSED)) TH_LOG("%s", log);
	EXPECT_FALSE(pcore_loaded());
	ASSERT_EQ(0, pcore_load("target=" FN));
	ASSERT_EQ(0, pcore_mechanism(FN, m, sizeof(m)));
	EXPECT_STREQ(AUTO_KPROBE, m);
	getppids(NCALLS);
	EXPECT_EQ(NCALLS, pcore_stat(FN, "count"));
	EXPECT_EQ(0, pcore_stat(FN, "missed"));
	ASSERT_EQ(0, pcore_unload());

	/* bpftrace's count, printed at its exit: every call since it attached */
	st = bpfroot_bpftrace_stop(self->pid);
	self->pid = 0;
	EXPECT_TRUE(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		pcore_read(OUT, buf, PCORE_BUF);
		TH_LOG("wait status %#x:\n%s", st, buf);
	}
	EXPECT_EQ(2 * NCALLS, bpftrace_count()) TH_LOG("%s", buf);
	/* its trampoline gone with it */
	for (st = 0; st < 100; st++) {
		ASSERT_EQ(0, pcore_read(ENABLED_FUNCS, buf, PCORE_BUF));
		if (!buf[0])
			break;
		usleep(100000);
	}
	EXPECT_STREQ("", buf);
}

TEST_HARNESS_MAIN
