/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the probe_core selftests: load and unload the module by
 * system call (so errno is exact), read debugfs files (hist lines, keys
 * files), watch the kernel log, fork workloads (pinned per CPU, a fork
 * load), and the fixtures and checks several programs share (the
 * PCORE_* macros: the checks in them are the calling test's own).
 */
#ifndef PCORE_LIB_H
#define PCORE_LIB_H

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define PCORE_DBG	"/sys/kernel/debug/probe_core"
#define PCORE_BUF	(1 << 20)

static inline const char *pcore_ko(void)
{
	const char *ko = getenv("PCORE_KO");

	return ko ? ko : "/pcore/modules/probe_core.ko";
}

/*
 * Harness timeout, in seconds, of a test whose time grows with the kprobes
 * it registers and unregisters (loads with target=, attach and detach,
 * enable and disable: each patches kernel text with text_poke_bp(), IPIs
 * and RCU grace periods) or with the probectl runs it makes (each a fork,
 * exec and dynamic link).  The harness's default is 30 s.  On the debug
 * kernel (KASAN, lockdep, PROVE_RCU, kmemleak, full preemption) under TCG
 * on a shared 2-core host, ioc.enable_disable took 88 s, ioc.reset 24 to
 * 79 s (the host's load alone changes times threefold), ctl.show 46 s,
 * ctl.export_prometheus 55 s, and the tests of the ioc and bad fixtures,
 * which load probe_core with probes and unload it, 2 to 9 s with no
 * other work.  300 s is over three times the longest, and stays under
 * the timeout of a whole program (tests/selftests/settings) and of the VM
 * (scripts/check.sh).
 */
#define PCORE_TIMEOUT_PATCHING	300

/* finit_module() of the file @path; returns 0 or the errno. */
static inline int pcore_load_path(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret, err;

	if (fd < 0)
		return errno;
	ret = syscall(SYS_finit_module, fd, params ? params : "", 0);
	err = errno;
	close(fd);
	return ret ? err : 0;
}

/*
 * Load module @name from /pcore/modules/ (our modules) or, failing that,
 * /pcore/modules/kernel/ (modules of the guest kernel listed in
 * tests/selftests/kmods); returns 0 or the errno.
 */
static inline int pcore_mod_load(const char *name, const char *params)
{
	char path[256];

	snprintf(path, sizeof(path), "/pcore/modules/%s.ko", name);
	if (access(path, R_OK))
		snprintf(path, sizeof(path), "/pcore/modules/kernel/%s.ko", name);
	return pcore_load_path(path, params);
}

static inline int pcore_mod_unload(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? errno : 0;
}

static inline bool pcore_mod_loaded(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return access(path, F_OK) == 0;
}

/* Unload, retrying while a file holds the module; returns 0 or errno. */
static inline int pcore_mod_unload_wait(const char *name)
{
	int i, ret = 0;

	for (i = 0; i < 5000; i++) {
		ret = pcore_mod_unload(name);
		if (ret != EAGAIN && ret != EBUSY)
			break;
		usleep(1000);
	}
	return ret;
}

/* probe_core.ko itself ($PCORE_KO overrides the path). */
static inline int pcore_load(const char *params)
{
	return pcore_load_path(pcore_ko(), params);
}

static inline int pcore_unload(void)
{
	return pcore_mod_unload("probe_core");
}

static inline bool pcore_loaded(void)
{
	return pcore_mod_loaded("probe_core");
}

static inline int pcore_unload_wait(void)
{
	return pcore_mod_unload_wait("probe_core");
}

/*
 * The flags to open a file for reading: an interval file read-write (its
 * open takes the interval, which a read-only open may not), any other
 * read-only.
 */
static inline int pcore_rdflags(const char *path)
{
	size_t n = strlen(path);

	return (n >= 9 && !strcmp(path + n - 9, "/interval") ? O_RDWR :
							       O_RDONLY) |
	       O_CLOEXEC;
}

/* Whole file into buf (NUL-terminated); returns length or -errno. */
static inline ssize_t pcore_read(const char *path, char *buf, size_t len)
{
	ssize_t n, got = 0;
	int fd = open(path, pcore_rdflags(path));

	if (fd < 0)
		return -errno;
	while ((size_t)got < len - 1) {
		n = read(fd, buf + got, len - 1 - got);
		if (n < 0) {
			n = -errno;
			close(fd);
			return n;
		}
		if (!n)
			break;
		got += n;
	}
	buf[got] = '\0';
	close(fd);
	return got;
}

/* Returns 0 or errno of open() or write(). */
static inline int pcore_write(const char *path, const char *s, size_t len)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return errno;
	if (write(fd, s, len) < 0)
		ret = errno;
	close(fd);
	return ret;
}

/* Value of a 'key: value' line in text; -1ULL when missing. */
static inline unsigned long long pcore_key(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == ':')
			return strtoull(p + klen + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -1ULL;
}

static inline unsigned long long pcore_stat(const char *probe, const char *key)
{
	static char buf[65536];
	char path[256];

	snprintf(path, sizeof(path), PCORE_DBG "/%s/stats", probe);
	if (pcore_read(path, buf, sizeof(buf)) < 0)
		return -1ULL;
	return pcore_key(buf, key);
}

/*
 * The "mechanism:" line of probe @probe's stats, after the key, into @out
 * (@len bytes); 0 or -1.
 */
static inline int pcore_mechanism(const char *probe, char *out, size_t len)
{
	static char stats[8192];
	char path[256], *l, *e;

	snprintf(path, sizeof(path), PCORE_DBG "/%s/stats", probe);
	if (pcore_read(path, stats, sizeof(stats)) < 0)
		return -1;
	l = strstr(stats, "\nmechanism: ");
	if (!l)
		return -1;
	l += strlen("\nmechanism: ");
	e = strchrnul(l, '\n');
	snprintf(out, len, "%.*s", (int)(e - l), l);
	return 0;
}

/* Relative percentile error in ppm from the stats file's stated bound. */
static inline unsigned long long pcore_err_ppm(const char *probe)
{
	static char buf[65536];
	char path[256];
	unsigned int whole, frac;
	const char *p;

	snprintf(path, sizeof(path), PCORE_DBG "/%s/stats", probe);
	if (pcore_read(path, buf, sizeof(buf)) < 0)
		return -1ULL;
	p = strstr(buf, "percentile_error: ");
	if (!p || sscanf(p, "percentile_error: %u.%u%%", &whole, &frac) != 2)
		return -1ULL;
	return whole * 10000ULL + frac;
}

/* Kernel log: open at the end, then look for new lines. */
static inline int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

#define KMSG_MARK	"pcore-selftest: end of records"
#define KMSG_MAX_NAMES	256

/* Adds @name (up to @len bytes) to @names unless full; returns the count. */
static inline int kmsg_add_name(char names[][64], int n, const char *name,
				size_t len)
{
	if (n >= KMSG_MAX_NAMES || !len || len >= 64)
		return n;
	snprintf(names[n], 64, "%.*s", (int)len, name);
	return n + 1;
}

/*
 * Adds the parameters of module file @path: its .modinfo strings
 * "parmtype=<name>:<type>".
 */
static inline int kmsg_add_params(char names[][64], int n, const char *path)
{
	static const char key[] = "parmtype=";
	const char *p, *end, *colon;
	struct stat st;
	char *buf;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return n;
	buf = fstat(fd, &st) ? NULL : malloc(st.st_size + 1);
	if (buf && read(fd, buf, st.st_size) == st.st_size) {
		buf[st.st_size] = '\0';
		end = buf + st.st_size;
		for (p = buf; (p = memmem(p, end - p, key, sizeof(key) - 1));) {
			p += sizeof(key) - 1;
			colon = memchr(p, ':', end - p);
			if (colon)
				n = kmsg_add_name(names, n, p, colon - p);
		}
	}
	free(buf);
	close(fd);
	return n;
}

/*
 * The prefixes of the lines our modules cause: "<module>: " of probe_core
 * and of every .ko in /pcore/modules/ (the handler and test modules; the
 * kernel's own are in kernel/ below it), as each prints with pr_fmt
 * KBUILD_MODNAME ": " and the module loader prints "<module>: Unknown
 * symbol ..."; and "<parameter>: " of their parameters, which
 * kernel/params.c prints ("target: string parameter too long").
 */
static inline int kmsg_our_names(char names[][64])
{
	char path[300];
	struct dirent *d;
	int n = 0;
	size_t len;
	char *c;
	DIR *dir;

	n = kmsg_add_name(names, n, "probe_core", strlen("probe_core"));
	dir = opendir("/pcore/modules");
	while (dir && (d = readdir(dir))) {
		len = strlen(d->d_name);
		snprintf(path, sizeof(path), "/pcore/modules/%s", d->d_name);
		if (len <= 3 || strcmp(d->d_name + len - 3, ".ko") ||
		    access(path, R_OK))
			continue;
		n = kmsg_add_name(names, n, d->d_name, len - 3);
		for (c = names[n - 1]; *c; c++)
			if (*c == '-')
				*c = '_';	/* as the kernel names modules */
		n = kmsg_add_params(names, n, path);
	}
	if (dir)
		closedir(dir);
	return n;
}

/*
 * Is @msg a line that a test's action can have caused?  One of ours
 * (see kmsg_our_names()), or the header of a kernel report, which has no
 * prefix of ours even when our code caused it (a WARN_ON in probe_core
 * prints "WARNING: CPU: 0 PID: ..." and a stack dump).  Other lines are
 * the kernel's own business and come at any time, even in the quiet VM:
 * "hrtimer: interrupt took 2092340 ns", "random: crng init done".
 */
static inline bool kmsg_ours(const char *msg)
{
	static const char * const report[] = {
		"WARNING:", "BUG:", "Oops", "Call Trace:", "kernel BUG at",
		"general protection fault", "UBSAN:", "refcount_t:",
		"DEBUG_LOCKS_WARN_ON", "list_add corruption",
		"list_del corruption", "INFO: ", NULL
	};
	static char names[KMSG_MAX_NAMES][64];
	static int nnames;
	size_t len;
	int i;

	if (!nnames)
		nnames = kmsg_our_names(names);
	for (i = 0; i < nnames; i++) {
		len = strlen(names[i]);
		if (!strncmp(msg, names[i], len) && msg[len] == ':')
			return true;
	}
	/* SLUB debugging: "BUG kmalloc-64 (Not tainted): ..." */
	if (!strncmp(msg, "BUG ", 4))
		return true;
	for (i = 0; report[i]; i++)
		if (strstr(msg, report[i]))
			return true;
	return false;
}

/*
 * The new log lines, except the taint notices the kernel prints on the
 * first load, joined by '\n' into out: those a test's action produced
 * (see kmsg_ours()), or with @every all of them.  Returns their count: a
 * test that expects one line of probe_core still fails when it prints two.
 *
 * A record whose text was cut at the printk line limit loses its newline
 * and stays open until the next printk: writing a marker closes it, and
 * reading up to the marker collects it.
 */
static inline int kmsg_read(int fd, char *out, size_t len, bool every)
{
	char rec[8192];
	const char *msg;
	ssize_t n;
	int count = 0, wfd, tries = 0;

	wfd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (wfd >= 0) {
		if (write(wfd, KMSG_MARK "\n", strlen(KMSG_MARK) + 1) < 0)
			count = -1000;
		close(wfd);
	}
	out[0] = '\0';
	while (tries < 1000) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EAGAIN) {
			usleep(1000);
			tries++;
			continue;
		}
		if (n <= 0)
			continue;	/* EPIPE: records were overwritten */
		rec[n] = '\0';
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		*strchrnul(msg, '\n') = '\0';
		if (strstr(msg, KMSG_MARK))
			return count;
		if ((!every && !kmsg_ours(msg)) ||
		    strstr(msg, "taints kernel") ||
		    strstr(msg, "module verification failed"))
			continue;
		count++;
		if (strlen(out) + strlen(msg) + 2 < len) {
			strcat(out, msg);
			strcat(out, "\n");
		}
	}
	return -1;	/* the marker never came */
}

/* kmsg_read() of the lines a test's action produced. */
static inline int kmsg_collect(int fd, char *out, size_t len)
{
	return kmsg_read(fd, out, len, false);
}

static inline double pcore_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Runs @argv (no shell; with @env, or this program's environment when
 * NULL) with stdout and stderr in @file, then reads @file into @out (@len
 * bytes); returns the exit status, or -1.  One fork per call: do_fork
 * counts it before the program runs.
 */
static inline int pcore_run(const char * const *argv, const char * const *env,
			    const char *file, char *out, size_t len)
{
	pid_t pid = fork();
	int st, fd;

	if (pid < 0)
		return -1;
	if (!pid) {
		fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		if (env)
			execve(argv[0], (char * const *)argv,
			       (char * const *)env);
		else
			execv(argv[0], (char * const *)argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	if (pcore_read(file, out, len) < 0)
		out[0] = '\0';
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* clone3()'s arguments up to set_tid_size (CLONE_ARGS_SIZE_VER1). */
struct pcore_clone_args {
	unsigned long long flags, pidfd, child_tid, parent_tid, exit_signal;
	unsigned long long stack, stack_size, tls, set_tid, set_tid_size;
};

/*
 * fork() into the pid @pid, which must be free (its task reaped): clone3()
 * with set_tid (Linux 5.5, CAP_SYS_ADMIN), so that a test of pid reuse
 * needs one fork, not a walk of every pid up to pid_max.  Returns as
 * fork() does: the pid (@pid) in the parent, 0 in the child, -1 with errno.
 */
static inline pid_t pcore_fork_as(pid_t pid)
{
	unsigned long long tid = pid;
	struct pcore_clone_args a = {
		.exit_signal = SIGCHLD,
		.set_tid = (unsigned long)&tid,
		.set_tid_size = 1,
	};

	return syscall(SYS_clone3, &a, sizeof(a));
}

/* fork() and exit n times, waiting for each child. */
static inline int pcore_forks(int n)
{
	int i, st;
	pid_t pid;

	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0)
			return -1;
		if (!pid)
			_exit(0);
		if (waitpid(pid, &st, 0) != pid)
			return -1;
	}
	return 0;
}

static inline int pcore_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/*
 * @nkids children: child k (0 to @nkids - 1) exits with @fn(k, @arg),
 * pinned to CPU k first when @pin is set (exit 1 if it could not be).
 * Each child's pid is stored in @pids[(*@n)++] when @pids is given.  0, or
 * -1 if a fork failed (the children started before it keep running).
 */
static inline int pcore_fork_each(int nkids, bool pin,
				  int (*fn)(int k, void *arg), void *arg,
				  pid_t *pids, int *n)
{
	int k;

	for (k = 0; k < nkids; k++) {
		pid_t pid = fork();

		if (!pid)
			_exit(pin && pcore_pin(k) ? 1 : fn(k, arg));
		if (pid < 0)
			return -1;
		if (pids)
			pids[(*n)++] = pid;
	}
	return 0;
}

/* One child that exits with @fn(0, @arg): its pid, or -1. */
static inline pid_t pcore_spawn(int (*fn)(int k, void *arg), void *arg)
{
	pid_t pid = -1;
	int n = 0;

	return pcore_fork_each(1, false, fn, arg, &pid, &n) ? -1 : pid;
}

/* A child on each of CPUs 0..@ncpu-1, pinned there: pcore_fork_each(). */
static inline int pcore_fork_pinned(int ncpu, int (*fn)(int cpu, void *arg),
				    void *arg, pid_t *pids, int *n)
{
	return pcore_fork_each(ncpu, true, fn, arg, pids, n);
}

/*
 * A load: a child pinned to CPU 1 that forks @n times and exits 0 (1 if a
 * fork failed); its own fork is the load's first event.  This task is
 * pinned to CPU 0.  The child's pid, or -1.
 */
static inline pid_t pcore_fork_load(int n)
{
	pid_t child = fork();

	if (!child) {
		pcore_pin(1);
		_exit(pcore_forks(n) ? 1 : 0);
	}
	pcore_pin(0);
	return child;
}

/* Waits for every child: 0 when exactly @n of them exited with 0, else -1. */
static inline int pcore_wait_ok(int n)
{
	int st, ok = 0;

	while (wait(&st) > 0)
		ok += WIFEXITED(st) && !WEXITSTATUS(st);
	return ok == n ? 0 : -1;
}

/* Histogram directories in probe_core's debugfs root; -1 on error. */
static inline int pcore_hist_dirs(void)
{
	struct dirent *d;
	DIR *dir = opendir(PCORE_DBG);
	int n = 0;

	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		if (d->d_type == DT_DIR && d->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

/* A probe's line in the probes file. */
struct pcore_probe_line {
	char name[128], kind[32], symbol[160];
	unsigned long long hits, missed;
};

static inline int pcore_probe_line(const char *name, struct pcore_probe_line *l)
{
	static char buf[65536];
	char *line, *save = NULL;

	if (pcore_read(PCORE_DBG "/probes", buf, sizeof(buf)) < 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%127s %31s %159s %llu %llu", l->name, l->kind,
			   l->symbol, &l->hits, &l->missed) != 5)
			return -1;
		if (!strcmp(l->name, name))
			return 0;
	}
	return -1;
}

/* The first line of every timers file. */
#define PCORE_TIMERS_HEADER \
	"# name scope measured discarded unmatched evicted exited memory\n"

/*
 * A bound of a hist row as a number: "4096bytes" (any unit of letters),
 * or a time as pcore_fmt_ns() prints it, "940 ms", "1.07 s", "512 ns", in
 * ns: the rounded value the text states, exactly.  *@end is set past it.
 * Returns 0, or -1 when @p holds neither.
 */
static inline int pcore_parse_bound(const char *p, unsigned long long *v,
				    const char **end)
{
	static const struct { const char *u; unsigned long long ns; } units[] = {
		{ " ns", 1 }, { " us", 1000 }, { " ms", 1000000 },
		{ " s", 1000000000ULL },
	};
	enum { PCORE_NUNITS = 4 };
	unsigned long long ip = 0, frac = 0, scale = 1;
	const char *q = p;
	size_t i, nd = 0;

	if (*q < '0' || *q > '9')
		return -1;
	while (*q >= '0' && *q <= '9')
		ip = ip * 10 + (*q++ - '0');
	if (*q == '.') {
		for (q++; *q >= '0' && *q <= '9'; q++, nd++) {
			frac = frac * 10 + (*q - '0');
			scale *= 10;
		}
		if (!nd)
			return -1;
	}
	for (i = 0; i < PCORE_NUNITS; i++) {
		size_t n = strlen(units[i].u);

		if (!strncmp(q, units[i].u, n) && (q[n] == ',' || q[n] == ')')) {
			if (units[i].ns % scale)
				return -1;	/* more decimals than ns */
			*v = ip * units[i].ns + frac * (units[i].ns / scale);
			*end = q + n;
			return 0;
		}
	}
	if (nd || *q < 'a' || *q > 'z')
		return -1;
	while (*q >= 'a' && *q <= 'z')
		q++;
	*v = ip;
	*end = q;
	return 0;
}

/*
 * A hist row "[lo, hi) count |": its bounds as pcore_parse_bound() reads
 * them (hi "inf": ~0ULL) and its count.  Returns 0, or -1.
 */
static inline int pcore_parse_row(const char *p, unsigned long long *lo,
				  unsigned long long *hi,
				  unsigned long long *count)
{
	const char *q;
	char *e;

	if (*p++ != '[' || pcore_parse_bound(p, lo, &q) || strncmp(q, ", ", 2))
		return -1;
	q += 2;
	if (!strncmp(q, "inf", 3)) {
		*hi = ~0ULL;
		q += 3;
	} else if (pcore_parse_bound(q, hi, &q)) {
		return -1;
	}
	if (*q++ != ')')
		return -1;
	while (*q == ' ')
		q++;
	*count = strtoull(q, &e, 10);
	return e == q || strncmp(e, " |", 2) ? -1 : 0;
}

/* Sum of the counts of the bucket lines "[lo, hi) count |..|" in text. */
static inline unsigned long long pcore_hist_total(const char *text, int *lines)
{
	unsigned long long sum = 0, n;
	const char *p = text;
	char lo[64], hi[64];

	*lines = 0;
	while ((p = strchr(p, '['))) {
		if (sscanf(p, "[%63[^,], %63[^)]) %llu |", lo, hi, &n) != 3)
			return -1ULL;
		sum += n;
		(*lines)++;
		p = strchr(p, '\n');
		if (!p)
			break;
	}
	return sum;
}

/* The number of possible CPUs (/sys/devices/system/cpu/possible), or -1. */
static inline int pcore_possible_cpus(void)
{
	char s[256], *p = s, *end;
	long a, b;
	int n = 0;

	if (pcore_read("/sys/devices/system/cpu/possible", s, sizeof(s)) <= 0)
		return -1;
	while (*p && *p != '\n') {
		a = strtol(p, &end, 10);
		if (end == p)
			return -1;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a)
				return -1;
		}
		n += b - a + 1;
		p = *end == ',' ? end + 1 : end;
	}
	return n;
}

#define PCORE_MAX_CPUS	64

/*
 * A percpu file: each CPU's count and the sum of its bucket lines, what
 * the CPU lines add up to (c, s, mn, mx), and the total line (tc, ...).
 */
struct pcore_percpu {
	int ncpu;
	unsigned long long count[PCORE_MAX_CPUS];
	unsigned long long hist[PCORE_MAX_CPUS];
	unsigned long long c, s, mn, mx;
	unsigned long long tc, ts, tmn, tmx;
};

/* Returns 0, or -1 when the file does not have the documented shape. */
static inline int pcore_percpu_parse(const char *path, struct pcore_percpu *pc)
{
	static char text[PCORE_BUF];
	unsigned long long c, s, a, b;
	char *p, *end, *cnt;
	int cpu, lines;

	memset(pc, 0, sizeof(*pc));
	pc->mn = -1ULL;
	if (pcore_read(path, text, sizeof(text)) <= 0)
		return -1;
	for (p = text; (p = strstr(p, "cpu")); p = end + 1) {
		if (sscanf(p, "cpu%d count %llu sum %llu min %llu max %llu",
			   &cpu, &c, &s, &a, &b) != 5 ||
		    cpu != pc->ncpu || cpu >= PCORE_MAX_CPUS)
			return -1;
		/* Its bucket lines, indented, run to the next CPU or total. */
		end = strstr(p + 1, "\ncpu");
		if (!end)
			end = strstr(p, "\ntotal");
		if (!end)
			return -1;
		*end = '\0';
		/* A count histogram's one bucket prints as "count: N". */
		cnt = strstr(p, "count: ");
		if (!c)
			pc->hist[cpu] = 0;
		else if (cnt)
			pc->hist[cpu] = strtoull(cnt + 7, NULL, 10);
		else
			pc->hist[cpu] = pcore_hist_total(p, &lines);
		*end = '\n';
		pc->count[cpu] = c;
		pc->c += c;
		pc->s += s;
		if (c && a < pc->mn)
			pc->mn = a;
		if (b > pc->mx)
			pc->mx = b;
		pc->ncpu++;
	}
	p = strstr(text, "\ntotal count");
	if (!p || sscanf(p, "\ntotal count %llu sum %llu min %llu max %llu",
			 &pc->tc, &pc->ts, &pc->tmn, &pc->tmx) != 4)
		return -1;
	if (!pc->c)
		pc->mn = 0;
	return 0;
}

/*
 * Forks the kernel has made since boot (/proc/stat "processes"): every
 * kernel_clone(), ours and the kernel's own (kthreadd starting a kworker),
 * or -1ULL.  Reading it around a window bounds the do_fork events in it.
 */
static inline unsigned long long pcore_nr_forks(void)
{
	static char stat[1 << 16];
	const char *p;

	if (pcore_read("/proc/stat", stat, sizeof(stat)) < 0)
		return -1ULL;
	p = strstr(stat, "\nprocesses ");
	return p ? strtoull(p + 11, NULL, 10) : -1ULL;
}

/*
 * Waits until the kernel forks no more for 200 ms (the fork counter holds
 * still that long), at most 10 s: a module load's deferred work can have
 * kthreadd fork a kworker just after it.  Returns 0, or -1 when forking
 * goes on.
 */
static inline int pcore_forks_quiet(void)
{
	unsigned long long c, last = pcore_nr_forks();
	int i, still = 0;

	for (i = 0; i < 10000 / 50 && still < 200 / 50; i++) {
		usleep(50000);
		c = pcore_nr_forks();
		still = c == last ? still + 1 : 0;
		last = c;
	}
	return still < 200 / 50 ? -1 : 0;
}

/*
 * @v events of a probe on kernel_clone(), counted in a window that the
 * fork counter read @f0 before and reads now after, hold our @n forks and
 * at most the kernel's own besides: kthreadd forks a kworker when a worker
 * pool runs dry, as after a module load queues its init-free work (seen on
 * the debug kernel).  In a quiet VM that is exactly @n.
 */
#define EXPECT_FORKS(n, v, f0) do {					\
	unsigned long long __v = (v), __f0 = (f0);			\
	unsigned long long __f1 = pcore_nr_forks();			\
									\
	EXPECT_NE(-1ULL, __f0);						\
	EXPECT_LE((unsigned long long)(n), __v);			\
	EXPECT_GE(__f1 - __f0, __v) {					\
		TH_LOG("%llu events for %llu forks of ours; the kernel forked %llu times", \
		       __v, (unsigned long long)(n), __f1 - __f0);	\
	}								\
} while (0)

/*
 * For the setup of a handler module's test: the module @mod (if not NULL)
 * and probe_core unloaded where they are loaded.  A macro, as the checks
 * below: the checks are the test's own.
 */
#define PCORE_ASSERT_UNLOADED(mod) do {					\
	const char *mod_ = (mod);					\
									\
	if (mod_ && pcore_mod_loaded(mod_))				\
		ASSERT_EQ(0, pcore_mod_unload_wait(mod_));		\
	if (pcore_loaded())						\
		ASSERT_EQ(0, pcore_unload_wait());			\
} while (0)

/* PCORE_ASSERT_UNLOADED(@mod), then probe_core loaded bare and @mod. */
#define PCORE_ASSERT_RELOADED(mod) do {					\
	PCORE_ASSERT_UNLOADED(mod);					\
	ASSERT_EQ(0, pcore_load(NULL));					\
	ASSERT_EQ(0, pcore_mod_load(mod, NULL));			\
} while (0)

/*
 * The kernel is locked down in @mode (a string: "integrity",
 * "confidentiality"), as securityfs (mounted at @secfs if it was not)
 * says; its lockdown line is logged.  Needs <sys/mount.h>.
 */
#define ASSERT_LOCKED_DOWN(secfs, mode) do {				\
	static char lockdown_[256];					\
									\
	if (access(secfs "/lockdown", R_OK))				\
		ASSERT_EQ(0, mount("securityfs", secfs, "securityfs", 0, NULL)); \
	ASSERT_LT(0, pcore_read(secfs "/lockdown", lockdown_,		\
				sizeof(lockdown_)));			\
	TH_LOG("lockdown: %s", lockdown_);				\
	ASSERT_NE(NULL, strstr(lockdown_, "[" mode "]"));		\
} while (0)

/*
 * The fixture @fix (its setup; the teardown is the program's) of tests of
 * the API with probe_core loaded bare: everything unloaded by @unload()
 * (0 or an errno), probe_core loaded, then the kernel log opened into
 * self->kmsg, past the load's lines.
 */
#define PCORE_BARE_FIXTURE(fix, unload)					\
static int (* const fix##_unload)(void) = unload;			\
									\
FIXTURE(fix) {								\
	int kmsg;							\
};									\
									\
FIXTURE_SETUP(fix)							\
{									\
	ASSERT_EQ(0, fix##_unload());					\
	ASSERT_EQ(0, pcore_load(NULL));					\
	self->kmsg = kmsg_open();					\
	ASSERT_LE(0, self->kmsg);					\
}

/*
 * The fixture @fix of tests of probe_core loaded with @params: loaded
 * afresh for each test, unloaded after it.
 */
#define PCORE_LOAD_FIXTURE(fix, params)					\
static const char * const fix##_params = params;			\
									\
FIXTURE(fix) {								\
	int unused;							\
};									\
									\
FIXTURE_SETUP(fix)							\
{									\
	PCORE_ASSERT_UNLOADED(NULL);					\
	ASSERT_EQ(0, pcore_load(fix##_params));				\
}									\
									\
FIXTURE_TEARDOWN(fix)							\
{									\
	EXPECT_EQ(0, pcore_unload_wait());				\
}

/*
 * The handler module @mod unloads cleanly: its file @file was there, the
 * module is gone and so is its debugfs directory @dir.
 */
#define PCORE_EXPECT_MOD_UNLOADS(mod, file, dir) do {			\
	ASSERT_EQ(0, access(file, R_OK));				\
	ASSERT_EQ(0, pcore_mod_unload_wait(mod));			\
	EXPECT_FALSE(pcore_mod_loaded(mod));				\
	EXPECT_NE(0, access(dir, F_OK));				\
} while (0)

/*
 * After a handler module's unload: its debugfs directory @dir is gone
 * (ENOENT) and so are its probes @probe1 and @probe2; probe_core stays.
 */
#define PCORE_EXPECT_MOD_GONE(dir, probe1, probe2) do {			\
	struct pcore_probe_line gone_l_;				\
	struct stat gone_st_;						\
									\
	EXPECT_EQ(-1, stat(dir, &gone_st_));				\
	EXPECT_EQ(ENOENT, errno);					\
	EXPECT_NE(0, pcore_probe_line(probe1, &gone_l_));		\
	EXPECT_NE(0, pcore_probe_line(probe2, &gone_l_));		\
	EXPECT_TRUE(pcore_loaded());					\
} while (0)

/* One line of a keys file. */
struct pcore_keyline {
	unsigned long long key;
	char label[64];
	unsigned long long count, sum, min, max, mean, p50, p90, p99, p999;
};

/* All lines of a keys file (at most PCORE_KEYS_MAX). */
#define PCORE_KEYS_MAX	128

struct pcore_keys {
	int n;
	struct pcore_keyline l[PCORE_KEYS_MAX];
};

/*
 * Parses a keys file: the header '# <keyname> label count sum min max mean
 * p50 p90 p99 p999', then one line per key.  Returns 0, or -1 when the
 * file is missing or does not have that shape.
 */
static inline int pcore_keys_read(const char *path, const char *keyname,
				  struct pcore_keys *k)
{
	static char text[PCORE_BUF];
	char head[128], *line, *save = NULL;
	struct pcore_keyline *q;

	memset(k, 0, sizeof(*k));
	if (pcore_read(path, text, sizeof(text)) <= 0)
		return -1;
	snprintf(head, sizeof(head),
		 "# %s label count sum min max mean p50 p90 p99 p999", keyname);
	line = strtok_r(text, "\n", &save);
	if (!line || strcmp(line, head))
		return -1;
	for (line = strtok_r(NULL, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (k->n == PCORE_KEYS_MAX)
			return -1;
		q = &k->l[k->n++];
		if (sscanf(line, "%llu %63s %llu %llu %llu %llu %llu %llu %llu %llu %llu",
			   &q->key, q->label, &q->count, &q->sum, &q->min,
			   &q->max, &q->mean, &q->p50, &q->p90, &q->p99,
			   &q->p999) != 11)
			return -1;
	}
	return 0;
}

static inline const struct pcore_keyline *
pcore_keys_find(const struct pcore_keys *k, unsigned long long key)
{
	int i;

	for (i = 0; i < k->n; i++)
		if (k->l[i].key == key)
			return &k->l[i];
	return NULL;
}

/* Count of @key, 0 when it has no line. */
static inline unsigned long long pcore_keys_count(const struct pcore_keys *k,
						  unsigned long long key)
{
	const struct pcore_keyline *q = pcore_keys_find(k, key);

	return q ? q->count : 0;
}

/*
 * Count of the line "[lo<unit>, hi<unit>) count |" of the hist file @text,
 * with any unit (letters) when @unit is NULL; 0 when there is none.
 */
static inline unsigned long long pcore_bucket(const char *text, const char *unit,
					      unsigned long long lo,
					      unsigned long long hi)
{
	unsigned long long a, b, n;
	char u1[32], u2[32];
	const char *p = text;

	while ((p = strchr(p, '['))) {
		if (sscanf(p, "[%llu%31[a-z], %llu%31[a-z]) %llu |", &a, u1,
			   &b, u2, &n) == 5 && a == lo && b == hi &&
		    (!unit || (!strcmp(u1, unit) && !strcmp(u2, unit))))
			return n;
		p++;
	}
	return 0;
}

/*
 * Unload the modules of @mods that are loaded, in order (users before
 * what they use); returns 0 or the first errno.
 */
static inline int pcore_mods_unload(const char * const *mods, size_t n)
{
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		if (!pcore_mod_loaded(mods[i]))
			continue;
		ret = pcore_mod_unload_wait(mods[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/* The guest's loopback starts down: pcore_lo_up() and pcore_lo_restore(). */
static int pcore_lo_fd = -1;
static short pcore_lo_flags;

/* Bring lo up, remembering its flags; returns 0 or -1. */
static inline int pcore_lo_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };

	pcore_lo_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (pcore_lo_fd < 0 || ioctl(pcore_lo_fd, SIOCGIFFLAGS, &ifr))
		return -1;
	pcore_lo_flags = ifr.ifr_flags;
	ifr.ifr_flags |= IFF_UP;
	return ioctl(pcore_lo_fd, SIOCSIFFLAGS, &ifr);
}

/* Put lo back as pcore_lo_up() found it. */
static inline void pcore_lo_restore(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };

	if (pcore_lo_fd < 0)
		return;
	ifr.ifr_flags = pcore_lo_flags;
	ioctl(pcore_lo_fd, SIOCSIFFLAGS, &ifr);
	close(pcore_lo_fd);
	pcore_lo_fd = -1;
}

#endif /* PCORE_LIB_H */
