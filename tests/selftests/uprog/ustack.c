// SPDX-License-Identifier: GPL-2.0
/*
 * pcore_ustack's workload, built with frame pointers (see the Makefile):
 * a busy function two calls deep, main -> outer -> spin_here, and a nap
 * two calls deep, main -> outer_nap -> nap_here, whose nanosleep is a
 * system call made right there (not through libc, whose code has no frame
 * pointers), so the user ip of the wait is inside nap_here.
 *
 *	ustack spin MS		spin for MS milliseconds
 *	ustack nap N MS		N naps of MS milliseconds
 *
 * First it prints the addresses of spin_here, outer, nap_here, outer_nap
 * and main on one line, then waits for a byte on stdin (the test attaches
 * its probe meanwhile), then works.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#define NOIPA	__attribute__((noipa))	/* noinline, noclone, no IPA */

/* What the loops compute, kept (the compiler may not drop them). */
static unsigned long sink;

/* A macro, not a function: no frame of its own in spin_here's loop. */
#define keep(v) do {						\
	unsigned long keep_v_ = (v);				\
								\
	__asm__ volatile("" : : "r"(keep_v_) : "memory");	\
	sink = keep_v_;						\
} while (0)

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Busy in user space; the clock is read once per 1 << 20 rounds. */
NOIPA void spin_here(double ms)
{
	double end = now_ms() + ms;
	unsigned long i;

	do {
		for (i = 0; i < (1UL << 20); i++)
			keep(sink + i);
	} while (now_ms() < end);
}

NOIPA void outer(double ms)
{
	spin_here(ms);
	keep(sink + 1);	/* not a tail call: outer stays on the stack */
}

/* nanosleep(2) from here: the wait's user ip is in this function. */
NOIPA void nap_here(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
	long ret;

	asm volatile("syscall" : "=a"(ret)
		     : "0"((long)SYS_nanosleep), "D"(&t), "S"(0L)
		     : "rcx", "r11", "memory");
	keep(sink + ret);
}

NOIPA void outer_nap(long n, long ms)
{
	long i;

	for (i = 0; i < n; i++)
		nap_here(ms);
	keep(sink + 1);
}

int main(int argc, char **argv)
{
	char c;

	printf("%p %p %p %p %p\n", (void *)spin_here, (void *)outer,
	       (void *)nap_here, (void *)outer_nap, (void *)main);
	fflush(stdout);
	if (read(0, &c, 1) != 1)
		return 2;
	if (argc == 3 && !strcmp(argv[1], "spin"))
		outer(atof(argv[2]));
	else if (argc == 4 && !strcmp(argv[1], "nap"))
		outer_nap(atol(argv[2]), atol(argv[3]));
	else
		return 2;
	return 0;
}
