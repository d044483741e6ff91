// SPDX-License-Identifier: GPL-2.0
/*
 * The user-space workload of pcore_uprobe, linked dynamically so that
 * malloc() is libc.so.6's (the uprobe test's target), with functions of
 * its own for uprobes on an executable:
 *
 *   uwork malloc N SIZE...   N calls of malloc(SIZE) for each SIZE
 *   uwork sleep N            N calls of uwork_sleep(), 1 ms each (N at
 *                            most 1000); then prints the median time of
 *                            a call, in ns, measured around each call
 *   uwork recurse N DEPTH    N calls of uwork_recurse(DEPTH), which calls
 *                            itself down to 1 (N * DEPTH calls)
 *   uwork count N            N calls of uwork_count()
 *   uwork ret N V            N calls of uwork_ret(V), which returns V
 *   uwork offset 0 FUNC      prints the file offset of FUNC (uwork_ret or
 *                            malloc) from /proc/self/maps: what probectl
 *                            should find in the ELF symbols
 *
 * It prints nothing and calls nothing else of libc's that allocates
 * before it exits, so that the calls it makes are all there are.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOIPA	__attribute__((noipa))	/* noinline, noclone, no_icf, no IPA */

NOIPA void uwork_sleep(void)
{
	struct timespec ts = { .tv_nsec = 1000000 };

	nanosleep(&ts, NULL);
}

NOIPA long uwork_recurse(long depth)
{
	long (*self)(long) = uwork_recurse;

	/*
	 * Through a pointer the compiler cannot see through, so that it
	 * stays a recursion, not a loop; and not a tail call: each frame
	 * stays until the inner call returns.
	 */
	__asm__("" : "+r"(self));
	return depth > 1 ? self(depth - 1) + 1 : 1;
}

NOIPA void uwork_count(void)
{
	__asm__ volatile("" ::: "memory");
}

NOIPA long uwork_ret(long v)
{
	__asm__ volatile("" : "+r"(v));
	return v;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

/* The file offset of @addr, from the mapping that holds it; 0 if none. */
static unsigned long file_offset(unsigned long addr)
{
	unsigned long lo, hi, off, ret = 0;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %*s %lx", &lo, &hi, &off) == 3 &&
		    addr >= lo && addr < hi)
			ret = addr - lo + off;
	if (f)
		fclose(f);
	return ret;
}

int main(int argc, char **argv)
{
	long n, i, j;
	void *p;

	if (argc < 3)
		return 2;
	n = atol(argv[2]);
	if (!strcmp(argv[1], "malloc")) {
		for (j = 3; j < argc; j++)
			for (i = 0; i < n; i++) {
				p = malloc(atol(argv[j]));
				/* used: the pair is not optimised away */
				__asm__ volatile("" : : "r"(p) : "memory");
				free(p);
			}
	} else if (!strcmp(argv[1], "sleep") && n > 0 && n <= 1000) {
		static long long t[1000];

		for (i = 0; i < n; i++) {
			t[i] = now_ns();
			uwork_sleep();
			t[i] = now_ns() - t[i];
		}
		qsort(t, n, sizeof(t[0]), cmp_ll);
		printf("%lld\n", t[n / 2]);
	} else if (!strcmp(argv[1], "recurse") && argc == 4) {
		for (i = 0; i < n; i++)
			if (uwork_recurse(atol(argv[3])) != atol(argv[3]))
				return 1;
	} else if (!strcmp(argv[1], "count")) {
		for (i = 0; i < n; i++)
			uwork_count();
	} else if (!strcmp(argv[1], "ret") && argc == 4) {
		for (i = 0; i < n; i++)
			uwork_ret(atol(argv[3]));
	} else if (!strcmp(argv[1], "offset") && argc == 4) {
		void *fn = !strcmp(argv[3], "malloc") ? (void *)malloc :
			   (void *)uwork_ret;

		printf("%#lx\n", file_offset((unsigned long)fn));
	} else {
		return 2;
	}
	return 0;
}
