// SPDX-License-Identifier: GPL-2.0
/*
 * insn_load: the workload of make bench's instruction counts.  Pinned to
 * one CPU, it makes N calls of one system call between two markers
 * (insn_marker.h), REPS times, so that insn_count, the QEMU plugin,
 * prints that CPU's instruction count before and after each batch.
 *
 *	getppid		getppid()
 *	read		read() of 1 byte from /dev/zero
 *	ufunc		insn_ufunc(), a function of this program that returns
 *			its argument: the target of the user-space probes
 *	pingpong	a wakeup and a context switch: N / 2 round trips of a
 *			byte, through two pipes, with a child on the same
 *			CPU that echoes it, both SCHED_FIFO at one priority,
 *			so that a wakeup never preempts: each blocks in
 *			read() until the other writes, per round trip two
 *			wakeups and two switches, always; the target of the
 *			scheduler's tracepoints
 *	nestD		getppid() from D nested calls of nest(), a function
 *			of this program (D from 0 to 64): a user stack of a
 *			known depth, for the probes that walk it by frame
 *			pointers; only in insn_load_fp, this program built
 *			with frame pointers (-DINSN_FP)
 *	check		no call: one iteration of a dec/jnz loop, exactly two
 *			instructions, which checks the plugin's counting
 *
 * Before the first batch it makes WARMUP calls of the same loop, so that
 * the measured ones neither fault nor take any other first-time path.
 * Built static: the guest has no C library.
 *
 * Usage: insn_load getppid|read|ufunc|pingpong|nestD|check N REPS CPU
 * Prints one line, "insn_load CALL N REPS cpu=CPU"; exits 1 with a line
 * on stderr when a call fails or the CPU cannot be had.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "insn_marker.h"

#define WARMUP 1000

static int zero_fd = -1;
static pid_t parent;

/* Each makes n calls and returns 0 when all did what they should. */
static int loop_getppid(long n)
{
	int bad = 0;
	long i;

	for (i = 0; i < n; i++)
		bad |= getppid() != parent;
	return bad;
}

static int loop_read(long n)
{
	int bad = 0;
	char c;
	long i;

	for (i = 0; i < n; i++)
		bad |= read(zero_fd, &c, 1) != 1;
	return bad;
}

/* Not inlined, cloned or folded: a real call at its own address. */
__attribute__((noipa)) long insn_ufunc(long v)
{
	return v;
}

static int loop_ufunc(long n)
{
	int bad = 0;
	long i;

	for (i = 0; i < n; i++)
		bad |= insn_ufunc(i) != i;
	return bad;
}

/*
 * nestD's depth: nest(D) calls nest(D - 1) ... nest(0), which calls
 * getppid().  Not inlined, cloned or turned into a loop: the asm after
 * each call keeps it from being a tail call, so that each level keeps its
 * frame (with -fno-omit-frame-pointer, its saved rbp and return address).
 */
static long nest_depth;

__attribute__((noipa)) long nest(long d)
{
	long r = d ? nest(d - 1) : getppid();

	asm volatile("" : "+r" (r));
	return r;
}

static int loop_nest(long n)
{
	int bad = 0;
	long i;

	for (i = 0; i < n; i++)
		bad |= nest(nest_depth) != parent;
	return bad;
}

/* pingpong's pipes: to the child (echo_fd[1]) and back (back_fd[0]). */
static int echo_fd[2] = { -1, -1 }, back_fd[2] = { -1, -1 };

static int loop_pingpong(long n)
{
	int bad = 0;
	char c = 'x';
	long i;

	for (i = 0; i < n; i += 2)
		bad |= write(echo_fd[1], &c, 1) != 1 ||
		       read(back_fd[0], &c, 1) != 1;
	return bad;
}

/*
 * pingpong's child, on the CPU the caller runs on (its affinity and
 * policy are inherited): echoes each byte until its pipe closes.  0, or
 * -1.
 */
static int pingpong_start(void)
{
	struct sched_param sp = { .sched_priority = 1 };
	pid_t pid;
	char c;

	/* inherited by the child */
	if (sched_setscheduler(0, SCHED_FIFO, &sp) ||
	    pipe(echo_fd) || pipe(back_fd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid)
		return 0;
	close(echo_fd[1]);
	close(back_fd[0]);
	while (read(echo_fd[0], &c, 1) == 1)
		if (write(back_fd[1], &c, 1) != 1)
			_exit(1);
	_exit(0);
}

static int loop_check(long n)
{
	asm volatile("1:\n\tdec %0\n\tjnz 1b" : "+r" (n) : : "cc");
	return 0;
}

static long number(const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	return v;
}

static int bad_usage(void)
{
	fprintf(stderr, "usage: insn_load getppid|read|ufunc|pingpong|nestD|check N REPS CPU\n");
	return 2;
}

int main(int argc, char **argv)
{
	int (*loop)(long n);
	long n, reps, cpu, r;
	cpu_set_t set;
	int bad;

	if (argc != 5)
		return bad_usage();
	n = number(argv[2], 1, 100000000);
	reps = number(argv[3], 1, 1000);
	cpu = number(argv[4], 0, CPU_SETSIZE - 1);
	if (n < 0 || reps < 0 || cpu < 0)
		return bad_usage();
	if (!strcmp(argv[1], "getppid")) {
		loop = loop_getppid;
		parent = getppid();
	} else if (!strcmp(argv[1], "read")) {
		loop = loop_read;
		zero_fd = open("/dev/zero", O_RDONLY);
		if (zero_fd < 0) {
			fprintf(stderr, "insn_load: /dev/zero: %s\n",
				strerror(errno));
			return 1;
		}
	} else if (!strcmp(argv[1], "ufunc")) {
		loop = loop_ufunc;
	} else if (!strcmp(argv[1], "pingpong")) {
		loop = loop_pingpong;
	} else if (!strncmp(argv[1], "nest", 4)) {
		nest_depth = number(argv[1] + 4, 0, 64);
		if (nest_depth < 0)
			return bad_usage();
#ifndef INSN_FP
		fprintf(stderr, "insn_load: %s: built without frame pointers: use insn_load_fp\n",
			argv[1]);
		return 2;
#endif
		loop = loop_nest;
		parent = getppid();
	} else if (!strcmp(argv[1], "check")) {
		loop = loop_check;
	} else {
		fprintf(stderr, "insn_load: unknown call '%s' (getppid, read, ufunc, pingpong, nestD, check)\n",
			argv[1]);
		return 2;
	}

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) || sched_getcpu() != cpu) {
		fprintf(stderr, "insn_load: cannot run on CPU %ld: %s\n", cpu,
			strerror(errno));
		return 1;
	}
	if (loop == loop_pingpong && pingpong_start()) {
		fprintf(stderr, "insn_load: pingpong's child: %s\n",
			strerror(errno));
		return 1;
	}

	bad = loop(WARMUP);
	for (r = 0; r < reps && !bad; r++) {
		insn_mark_start();
		bad = loop(n);
		insn_mark_end();
	}
	if (loop == loop_pingpong) {
		/* the child sees the end of its pipe and exits */
		close(echo_fd[1]);
		wait(NULL);
	}
	if (bad) {
		fprintf(stderr, "insn_load: a %s call failed\n", argv[1]);
		return 1;
	}
	printf("insn_load %s %ld %ld cpu=%ld\n", argv[1], n, reps, cpu);
	return 0;
}
