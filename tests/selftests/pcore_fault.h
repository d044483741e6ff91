/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allocation failures in every setup path: what pcore_fault (the API, the
 * ioctl, debugfs) and pcore_fault_load (a load of probe_core) share.  For
 * each operation below, attempt N (N = 1, 2, ...) makes the N-th
 * allocation of this task fail (/proc/thread-self/fail-nth: failslab and
 * fail_page_alloc, GFP_KERNEL included, user pages excluded), until an
 * attempt runs without the fault being injected: then the operation must
 * succeed.  Each attempt where the fault was injected must
 *
 *   - fail with an errno and at most one kernel log line of ours, and
 *     leave the state as it was: kprobes list, probe_core's debugfs tree,
 *     its probes, clients and timers files, /dev/probe_core's LIST, the
 *     modules loaded and probe_core's refcnt; or
 *   - succeed (a debugfs file that could not be created is ignored by
 *     design), and then tear down to the state before the operation.
 *
 * The operations:
 *
 *   insmod            probe_core.ko target=sys_fsync tracepoints=sched_switch
 *                     maxactive=1, N counted from probe_core's init on
 *                     (pcore_initfail arms fail-nth there: the loader's
 *                     own allocations before it are not walked)
 *   client, hist, keyed, timer, cputimer, kprobe, kretprobe, tracepoint
 *                     one call of the API in pcore_faultmod (a write to
 *                     /sys/kernel/debug/pcore_faultmod/op runs it)
 *   attach_kretprobe, attach_tracepoint, attach glob (vfs_fsyn?:count)
 *                     PCORE_IOC_ATTACH on /dev/probe_core
 *   debugfs files     open, read to the end and close each file of a
 *                     histogram, a keyed histogram and the root
 *
 * and an interval file whose open fails keeps its values for the next.
 *
 * The insmod walk also has the kernel dump the stack of its first faults
 * (fail_dump(), verbose=2) until one shows where the walk began: in
 * probe_core's init.
 *
 * Leaks: run_tests.sh's kmemleak check after the tests judges every
 * attempt at once.  The kernel's own allocation-failure reports (warn_alloc
 * and friends) are expected between the kernel log lines
 * "pcore-fault-inject: begin" and "pcore-fault-inject: end", which the VM
 * judge accepts there only.
 *
 * Runs only where fault injection exists (tests/selftests/faultinject); each
 * test prints how many N it tried and how long it took.
 */
#ifndef PCORE_FAULT_H
#define PCORE_FAULT_H

#include "pcore_ioctl.h"
#include <dirent.h>
#include "kselftest_harness.h"

#define FAIL_NTH	"/proc/thread-self/fail-nth"
#define FAILSLAB	"/sys/kernel/debug/failslab/"
#define FAILPAGE	"/sys/kernel/debug/fail_page_alloc/"
#define FAULTMOD	"pcore_faultmod"
#define INITFAIL	"pcore_initfail"
#define INITFAIL_NTH	"/sys/kernel/debug/pcore_initfail/nth"
#define OPFILE		"/sys/kernel/debug/pcore_faultmod/op"
#define KPROBES_LIST	"/sys/kernel/debug/kprobes/list"
#define MOD_DBG		PCORE_DBG "/" FAULTMOD
/*
 * Kretprobes get one instance here (maxactive): register_kretprobe()
 * allocates each instance alone, and a failure of any one of the default
 * 32 fails it the same way, at the cost of a whole attempt each.  The
 * load's timing probe is a direct call's (mechanism=auto) on a system
 * call: a function of any other name has its prototype read from the
 * kernel's BTF, through sysfs a page a read, each read's allocation
 * failing the load the same way (1300 attempts more on the debug
 * kernel).  The BTF read's failures are walked by the attach of
 * vfs_fsync below, where the BTF is read once for many attempts; the
 * kretprobe's by the API's.
 */
#define INSMOD_ARGS	"target=sys_fsync tracepoints=sched_switch maxactive=1"
/* Far more allocations than any of the operations makes. */
#define N_MAX		5000

static char base[PCORE_BUF], mid[PCORE_BUF], now[PCORE_BUF];
static char klog[1 << 16];

static inline int put(const char *path, const char *s)
{
	return pcore_write(path, s, strlen(s));
}

/* Appends a line to the state text. */
static inline void st_add(char *st, size_t len, const char *fmt,
			  const char *a, const char *b)
{
	size_t l = strlen(st);

	snprintf(st + l, len - l, fmt, a, b);
}

/* The first @fields words of each line of @path. */
static inline void st_file(char *st, size_t len, const char *path, int fields)
{
	static char buf[PCORE_BUF];
	char *line, *save = NULL, *w, *wsave;
	int i;

	if (pcore_read(path, buf, sizeof(buf)) < 0) {
		st_add(st, len, "%s: -\n", path, "");
		return;
	}
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		st_add(st, len, "%s:", path, "");
		wsave = NULL;
		for (i = 0, w = strtok_r(line, " \t", &wsave); w && i < fields;
		     i++, w = strtok_r(NULL, " \t", &wsave))
			st_add(st, len, " %s", w, "");
		st_add(st, len, "\n", "", "");
	}
}

/* Every name under @dir, depth first. */
static inline void st_tree(char *st, size_t len, const char *dir)
{
	char path[512];
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >=
		    (int)sizeof(path))
			continue;
		st_add(st, len, "%s\n", path, "");
		if (e->d_type == DT_DIR)
			st_tree(st, len, path);
	}
	closedir(d);
}

/* What a failed attempt must leave as it found, as text. */
static inline void state(char *st, size_t len)
{
	static struct pcore_ioc_entry e[PCORE_MAXE];
	unsigned int n, i;
	int fd;

	st[0] = '\0';
	st_add(st, len, "loaded: probe_core %s, %s\n",
	       pcore_loaded() ? "yes" : "no",
	       pcore_mod_loaded(FAULTMOD) ? "faultmod" : "-");
	st_file(st, len, "/sys/module/probe_core/refcnt", 1);
	st_file(st, len, KPROBES_LIST, 8);
	st_tree(st, len, PCORE_DBG);
	/* name kind symbol, without the counts */
	st_file(st, len, PCORE_DBG "/probes", 3);
	st_file(st, len, PCORE_DBG "/clients", 4);
	st_file(st, len, PCORE_DBG "/timers", 2);
	st_file(st, len, MOD_DBG "/timers", 2);
	fd = open("/dev/probe_core", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (!pcore_list(fd, e, PCORE_MAXE, &n))
			for (i = 0; i < n && i < PCORE_MAXE; i++)
				st_add(st, len, "LIST: %s\n", e[i].name, "");
		close(fd);
	}
}

/* One operation: set up, run, tear down; each returns 0 or an errno. */
struct fault_op {
	const char *name;
	int (*pre)(const struct fault_op *op);
	int (*run)(const struct fault_op *op);
	int (*post)(const struct fault_op *op);
	const char *arg;	/* for run */
	const char *arg2;	/* for pre */
};

static inline int no_op(const struct fault_op *op)
{
	return 0;
}

static inline int faultmod_op(const char *what)
{
	return put(OPFILE, what);
}

/* insmod */
static inline int op_insmod(const struct fault_op *op)
{
	return pcore_load(INSMOD_ARGS);
}

static inline int op_rmmod(const struct fault_op *op)
{
	return pcore_loaded() ? pcore_unload_wait() : 0;
}

/* API calls in pcore_faultmod */
static inline int op_api(const struct fault_op *op)
{
	return faultmod_op(op->arg);
}

static inline int op_api_pre(const struct fault_op *op)
{
	int ret = op->arg2 ? faultmod_op("client") : 0;

	return ret ? ret : op->arg2 && *op->arg2 ? faultmod_op(op->arg2) : 0;
}

static inline int op_destroy(const struct fault_op *op)
{
	return faultmod_op("destroy");
}

/* PCORE_IOC_ATTACH */
static inline int op_attach(const struct fault_op *op)
{
	int fd = open("/dev/probe_core", O_RDWR | O_CLOEXEC), ret;
	struct pcore_ioc_attach a;

	if (fd < 0)
		return errno;
	pcore_att_init(&a, op->arg, !strcmp(op->arg, "sched_switch") ?
		       PCORE_ATTACH_TRACEPOINT : PCORE_ATTACH_KRETPROBE,
		       PCORE_UAPI_HIST_DEFAULT);
	if (a.kind == PCORE_ATTACH_KRETPROBE)
		a.maxactive = 1;	/* as INSMOD_ARGS */
	ret = pcore_ioc(fd, PCORE_IOC_ATTACH, &a);
	close(fd);
	return ret;
}

static inline int op_detach(const struct fault_op *op)
{
	int fd = open("/dev/probe_core", O_RDWR | O_CLOEXEC), ret;

	if (fd < 0)
		return errno;
	ret = pcore_name_ioc(fd, PCORE_IOC_DETACH, op->arg);
	close(fd);
	return ret == ENOENT ? 0 : ret;
}

/* A debugfs file: open, read to the end (or write "1" to reset), close. */
static inline int op_file(const struct fault_op *op)
{
	static char buf[65536];
	bool w = strstr(op->arg, "/reset") != NULL;
	int fd = open(op->arg, w ? O_WRONLY | O_CLOEXEC : pcore_rdflags(op->arg));
	int ret = 0;
	ssize_t n;

	if (fd < 0)
		return errno;
	if (w) {
		if (write(fd, "1", 1) < 0)
			ret = errno;
	} else {
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			;
		if (n < 0)
			ret = errno;
	}
	close(fd);
	return ret;
}

static inline bool ours(const char *line)
{
	return !strncmp(line, "probe_core: ", 12) ||
	       !strncmp(line, FAULTMOD ": ", strlen(FAULTMOD) + 2);
}

/*
 * A reliable stack frame in one of our modules:
 * "pcore_init+0x1be/0x1000 [probe_core]", not "? ..." (a stale address
 * the unwinder found on the stack).
 */
static inline bool our_frame(const char *line)
{
	return line[strspn(line, " ")] != '?' &&
	       (strstr(line, " [probe_core]") ||
		strstr(line, " [" FAULTMOD "]"));
}

/* What the kernel log said of the injected fault (fail_dump(), verbose=2). */
enum fault_dump {
	DUMP_NONE,	/* nothing: verbose off, or a __GFP_NOWARN allocation */
	DUMP_THEIRS,	/* its stack has no frame of our modules */
	DUMP_OURS,	/* its stack passes through one of our modules */
};

/*
 * Lines of ours among the kernel log lines since the last call; @out
 * keeps only those.  *@dump (unless NULL) tells whose code the injected
 * fault's stack dump, if any, went through.
 */
static inline int our_lines(int kmsg, char *out, size_t len,
			    enum fault_dump *dump)
{
	static char all[1 << 16];
	char *line, *save = NULL;
	bool in_dump = false;
	int n = 0;

	out[0] = '\0';
	if (dump)
		*dump = DUMP_NONE;
	if (kmsg_read(kmsg, all, sizeof(all), true) < 0)
		return -1;
	for (line = strtok_r(all, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, "FAULT_INJECTION: forcing a failure.")) {
			in_dump = true;
			if (dump && *dump == DUMP_NONE)
				*dump = DUMP_THEIRS;
		} else if (strstr(line, "</TASK>")) {
			in_dump = false;
		} else if (in_dump && dump && our_frame(line)) {
			*dump = DUMP_OURS;
		}
		if (!ours(line))
			continue;
		n++;
		if (strlen(out) + strlen(line) + 2 < len) {
			strcat(out, line);
			strcat(out, "\n");
		}
	}
	return n;
}

static inline void kmsg_mark(const char *s)
{
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (write(fd, s, strlen(s)) < 0)
			perror("/dev/kmsg");
		close(fd);
	}
}

/* Prints the first line where two state texts differ. */
static inline void state_diff(struct __test_metadata *_metadata,
			      const char *what, const char *a, const char *b)
{
	size_t i = 0, start = 0;

	while (a[i] && a[i] == b[i]) {
		if (a[i] == '\n')
			start = i + 1;
		i++;
	}
	TH_LOG("%s: before: %.*s", what, (int)strcspn(a + start, "\n"),
	       a + start);
	TH_LOG("%s: after:  %.*s", what, (int)strcspn(b + start, "\n"),
	       b + start);
}

struct fault_result {
	int n;			/* the last N tried */
	int failed;		/* injected, failed cleanly */
	int ignored;		/* injected, succeeded */
	int first_said;		/* first N that failed with a line of ours */
	int located;		/* first N whose fault the kernel dumped */
	bool located_ours;	/* ... in a stack through our modules */
	double secs;
	bool ok;
};

/* Whether fail_dump() prints the stack of each injected fault. */
static inline int fault_verbose(bool on)
{
	const char *v = on ? "2" : "0";

	return put(FAILSLAB "verbose", v) || put(FAILPAGE "verbose", v);
}

/*
 * Runs @op with the N-th allocation failing, N = 1, 2, ... until it runs
 * without a fault (N is written to @arm before each run and read back
 * after it: FAIL_NTH, or INITFAIL_NTH to count from a module's init on);
 * stops at the first defect (TH_LOG says which).  With @locate, the
 * kernel dumps the stack of each injected fault until one is dumped
 * (__GFP_NOWARN allocations are not), and r.located and r.located_ours
 * tell where that one was.
 */
static inline struct fault_result
fault_loop(struct __test_metadata *_metadata, const struct fault_op *op,
	   const char *arm, bool locate)
{
	struct fault_result r = { .ok = false };
	enum fault_dump dump;
	char num[16];
	double t0 = pcore_now();
	int nth, kmsg, ret, lines, n;
	bool injected = true;

	nth = open(arm, O_RDWR | O_CLOEXEC);
	kmsg = kmsg_open();
	if (nth < 0 || kmsg < 0) {
		TH_LOG("%s: cannot open %s or /dev/kmsg", op->name, arm);
		return r;
	}
	kmsg_mark("pcore-fault-inject: begin\n");
	/*
	 * Each attempt must end in the state it began in (else the loop
	 * stops), and so does @op's setup when it has none: one snapshot
	 * of each serves every attempt (one takes ~0.4 s on the debug
	 * kernel).
	 */
	state(base, sizeof(base));
	if (op->pre == no_op)
		strcpy(mid, base);
	for (n = 1; n <= N_MAX; n++) {
		r.n = n;
		ret = op->pre(op);
		if (ret) {
			TH_LOG("%s: N=%d: setup failed: %s", op->name, n,
			       strerror(ret));
			break;
		}
		if (op->pre != no_op)
			state(mid, sizeof(mid));
		our_lines(kmsg, klog, sizeof(klog), NULL);

		if (locate && !r.located && fault_verbose(true)) {
			TH_LOG("%s: cannot turn on the fault dumps", op->name);
			break;
		}
		snprintf(num, sizeof(num), "%d", n);
		if (pwrite(nth, num, strlen(num), 0) < 0) {
			TH_LOG("%s: cannot arm fail-nth: %s", op->name,
			       strerror(errno));
			break;
		}
		ret = op->run(op);
		injected = pread(nth, num, sizeof(num) - 1, 0) > 0 &&
			   num[0] == '0';
		if (pwrite(nth, "0", 1, 0) < 0)
			break;

		lines = our_lines(kmsg, klog, sizeof(klog), &dump);
		if (locate && !r.located && dump != DUMP_NONE) {
			r.located = n;
			r.located_ours = dump == DUMP_OURS;
			if (fault_verbose(false)) {
				TH_LOG("%s: cannot turn off the fault dumps",
				       op->name);
				break;
			}
		}
		if (!injected) {
			if (ret) {
				TH_LOG("%s: N=%d: no fault injected, and it failed: %s",
				       op->name, n, strerror(ret));
				break;
			}
			ret = op->post(op);
			state(now, sizeof(now));
			if (ret || strcmp(base, now)) {
				TH_LOG("%s: teardown after success: %s",
				       op->name, ret ? strerror(ret) : "state differs");
				state_diff(_metadata, op->name, base, now);
				break;
			}
			r.ok = true;
			break;
		}
		if (ret) {
			r.failed++;
			if (lines && !r.first_said)
				r.first_said = n;
			state(now, sizeof(now));
			if (strcmp(mid, now)) {
				TH_LOG("%s: N=%d failed (%s) and left something:",
				       op->name, n, strerror(ret));
				state_diff(_metadata, op->name, mid, now);
				break;
			}
			if (lines < 0 || lines > 1) {
				TH_LOG("%s: N=%d failed (%s) with %d log lines of ours:\n%s",
				       op->name, n, strerror(ret), lines, klog);
				break;
			}
			/* Out of memory is said as such, not as another cause. */
			if (lines == 1 && ret == ENOMEM &&
			    !strstr(klog, "out of memory") &&
			    !strstr(klog, "ENOMEM")) {
				TH_LOG("%s: N=%d failed with ENOMEM, but the log says: %s",
				       op->name, n, klog);
				break;
			}
		} else {
			r.ignored++;
		}
		ret = op->post(op);
		state(now, sizeof(now));
		if (ret || strcmp(base, now)) {
			TH_LOG("%s: N=%d (%s): teardown: %s", op->name, n,
			       r.ignored && !ret ? "succeeded" : "failed",
			       ret ? strerror(ret) : "state differs");
			state_diff(_metadata, op->name, base, now);
			break;
		}
	}
	if (locate && !r.located && fault_verbose(false))
		TH_LOG("%s: cannot turn off the fault dumps", op->name);
	kmsg_mark("pcore-fault-inject: end\n");
	close(nth);
	close(kmsg);
	r.secs = pcore_now() - t0;
	TH_LOG("%s: N = 1..%d: %d failed cleanly, %d succeeded despite the fault, %.1f s (%.2f s per attempt)",
	       op->name, r.n, r.failed, r.ignored, r.secs, r.secs / r.n);
	if (!r.ok && r.n == N_MAX)
		TH_LOG("%s: still injecting at N=%d", op->name, N_MAX);
	return r;
}

FIXTURE(fault) {
	bool none;	/* no fault injection: every test skips */
};

/* $PCORE_FAULT_TESTS, when set, names the tests to run ("api insmod"). */
static inline bool picked(const char *name)
{
	const char *only = getenv("PCORE_FAULT_TESTS"), *p;
	size_t len = strlen(name);

	for (p = only; p && (p = strstr(p, name)); p += len)
		if ((p == only || p[-1] == ' ') && (!p[len] || p[len] == ' '))
			return true;
	return !only;
}

/* Why a test does not run here, or NULL. */
static inline const char *why_skip(struct __test_metadata *m, bool none)
{
	if (none)
		return "no fault injection in this kernel (fail-nth, failslab, fail_page_alloc)";
	return picked(m->name) ? NULL : "not in $PCORE_FAULT_TESTS";
}

/* Systematic failures of GFP_KERNEL too; no dumps; user pages excluded. */
FIXTURE_SETUP(fault)
{
	self->none = access(FAIL_NTH, W_OK) || access(FAILSLAB, F_OK) ||
		     access(FAILPAGE, F_OK);
	if (self->none)
		return;
	ASSERT_EQ(0, put(FAILSLAB "ignore-gfp-wait", "N"));
	ASSERT_EQ(0, put(FAILSLAB "verbose", "0"));
	ASSERT_EQ(0, put(FAILPAGE "ignore-gfp-wait", "N"));
	ASSERT_EQ(0, put(FAILPAGE "ignore-gfp-highmem", "Y"));
	ASSERT_EQ(0, put(FAILPAGE "min-order", "0"));
	ASSERT_EQ(0, put(FAILPAGE "verbose", "0"));
	ASSERT_FALSE(pcore_loaded());
}

FIXTURE_TEARDOWN(fault)
{
	if (self->none)
		return;
	if (pcore_mod_loaded(FAULTMOD))
		pcore_mod_unload_wait(FAULTMOD);
	if (pcore_mod_loaded(INITFAIL))
		pcore_mod_unload_wait(INITFAIL);
	if (pcore_loaded())
		pcore_unload_wait();
	put(FAILSLAB "ignore-gfp-wait", "Y");
	put(FAILPAGE "ignore-gfp-wait", "Y");
	put(FAILPAGE "min-order", "1");
}

static inline void run_ops(struct __test_metadata *_metadata,
			   const struct fault_op *ops, size_t n)
{
	struct fault_result r;
	size_t i;
	int bad = 0;

	for (i = 0; i < n; i++) {
		r = fault_loop(_metadata, &ops[i], FAIL_NTH, false);
		if (!r.ok)
			bad++;
		/* Every operation here allocates: N = 1 must have failed it. */
		else if (r.n < 2) {
			TH_LOG("%s: no allocation at all?", ops[i].name);
			bad++;
		}
	}
	ASSERT_EQ(0, bad);
}

/* probe_core and pcore_faultmod loaded, without a fault. */
static inline int load_both(void)
{
	int ret = pcore_load("");

	return ret ? ret : pcore_mod_load(FAULTMOD, "");
}

#endif /* PCORE_FAULT_H */
