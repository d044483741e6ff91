/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runqlat's workloads (pcore_runqlat, pcore_runqlat_bpf): a process that
 * sleeps NSLEEPS times (1 ms), or one of two that spin SPIN_MS on CPU 1, then
 * says so through a pipe and sleeps for good in pause(); and its context
 * switches as the kernel counts them, once it is there.
 */
#ifndef PCORE_RUNQLAT_H
#define PCORE_RUNQLAT_H

#include "pcore_lib.h"
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>

#define NSLEEPS		100
#define SPIN_MS		600

/* A child's work: sleep NSLEEPS times, or spin SPIN_MS on CPU 1. */
enum rq_work { RQ_SLEEP, RQ_SPIN };

/*
 * A child doing @w, then writing a byte to @wfd and sleeping in pause()
 * until killed: its pid, or -1.  It renames itself rq-sleeper or rq-spin
 * once it runs: after its first wait, whose label (the first of the
 * interval) is the name it was forked with, as a program's that a shell
 * forks and that then exec()s.
 */
static inline pid_t rq_child(enum rq_work w, int wfd)
{
	pid_t pid = fork();
	double t0;
	int i;

	if (pid)
		return pid;
	prctl(PR_SET_NAME, w == RQ_SPIN ? "rq-spin" : "rq-sleeper");
	if (w == RQ_SPIN) {
		if (pcore_pin(1))
			_exit(1);
		t0 = pcore_now();
		while (pcore_now() - t0 < SPIN_MS / 1000.0)
			;
	} else {
		for (i = 0; i < NSLEEPS; i++)
			usleep(1000);
	}
	if (write(wfd, "x", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

/* Switches of @pid so far: voluntary and not (/proc/PID/status). */
static inline int rq_switches(pid_t pid, unsigned long long *nv, unsigned long long *niv)
{
	static char text[8192];
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (pcore_read(path, text, sizeof(text)) < 0)
		return -1;
	*nv = pcore_key(text, "voluntary_ctxt_switches");
	*niv = pcore_key(text, "nonvoluntary_ctxt_switches");
	return *nv == -1ULL || *niv == -1ULL ? -1 : 0;
}

/* @pid's state letter (/proc/PID/stat), or '?'. */
static inline char rq_state(pid_t pid)
{
	char text[512], path[64], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (pcore_read(path, text, sizeof(text)) < 0)
		return '?';
	p = strrchr(text, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/*
 * Waits until @pid sleeps for good (pause()): its state S and its
 * switch counts the same over 100 ms.  0, or -1 after 10 s.
 */
static inline int rq_settled(pid_t pid, unsigned long long *nv, unsigned long long *niv)
{
	unsigned long long a, b;
	int i;

	for (i = 0; i < 100; i++) {
		if (rq_state(pid) == 'S' && !rq_switches(pid, nv, niv)) {
			usleep(100000);
			if (rq_state(pid) == 'S' && !rq_switches(pid, &a, &b) &&
			    a == *nv && b == *niv)
				return 0;
		} else {
			usleep(100000);
		}
	}
	return -1;
}

/*
 * @pid's line in the keys file of @name: its count, p50 and max, and the
 * label; -1 when it has none.
 */
static inline int rq_key_line(const char *name, pid_t pid, unsigned long long *count,
		    unsigned long long *p50, unsigned long long *max,
		    char *label)
{
	static char out[PCORE_BUF];
	unsigned long long k, sum, min, mean;
	char path[256], want[32], *p;

	snprintf(path, sizeof(path), PCORE_DBG "/%s/keys", name);
	if (pcore_read(path, out, sizeof(out)) < 0)
		return -1;
	snprintf(want, sizeof(want), "\n%d ", pid);
	p = strstr(out, want);
	if (!p || sscanf(p + 1, "%llu %63s %llu %llu %llu %llu %llu %llu", &k,
			 label, count, &sum, &min, max, &mean, p50) != 8)
		return -1;
	return 0;
}

#endif /* PCORE_RUNQLAT_H */
