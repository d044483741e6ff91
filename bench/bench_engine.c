// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of pcore_record() in the host build of the engine (the same
 * pcore_engine.[ch] the kernel module compiles), for each histogram kind:
 *
 * instr/record: instructions counted by valgrind --tool=callgrind.
 *	loop_record() calls rec_one(), a never-inlined wrapper around
 *	pcore_record(), once per value of a pre-generated array;
 *	loop_empty() is the same loop calling rec_none(), an empty wrapper
 *	with the same signature.  Callgrind collects only inside each loop
 *	(--toggle-collect), one run per loop, and the difference divided by
 *	the number of records is the cost of pcore_record() itself: the
 *	kind switch, the bucket index, the bucket and sum additions and the
 *	min/max checks, with the layout and histogram pointers arriving in
 *	registers as they would after inlining into a probe handler.
 *	The counter updates are the host shim's plain additions; on x86 the
 *	kernel's local64_add() is the same single instruction, and it is
 *	built without vector instructions, so the Makefile turns gcc's
 *	vectorizer off too.  (local64_cmpxchg() is one cmpxchg where the
 *	shim compares and stores, only on the rare path where min or max
 *	moves.)
 *	Not counted: the loop, the call and the return (they cancel out),
 *	cache misses and branch mispredictions (callgrind counts
 *	instructions, not cycles), and all the kernel adds around a record:
 *	the probe trap or tracepoint call and this_cpu_ptr().
 *	The count depends only on the data, which comes from a fixed seed,
 *	so it is the same on every run; the benchmark measures it twice and
 *	fails if it is not.
 *
 * ns/record: clock_gettime() around about 50 million records through the
 *	same loop, median of 5 runs; "net ns" subtracts the median of the
 *	empty loop, measured alongside.  Absolute times depend on the
 *	machine: compare kinds with each other, measured in one run.
 *
 * bytes/CPU: pcore_cpu_hist_size(), the memory of one histogram on one CPU;
 *	padded: what the kernel allocates for it, rounded up to a cache line.
 *
 * Interval reads: the kernel flips a histogram's bank, waits for a grace
 * period and harvests the retired bank in process context (hist.c):
 * nothing runs in interrupt context.  harvest instr: callgrind's count
 * of pcore_cpu_harvest() on one key's record of one CPU, in process
 * context, full (holding the NVALUES values) and empty.  Memory: see
 * hist_mem().
 *
 * Values are log-uniform from 100 ns to 100 ms, like latencies, so that
 * the branches of the bucket index are not trivially predicted.
 *
 * Usage: bench_engine			print the table (runs valgrind on
 *					this program)
 *	  bench_engine --loop record|empty K	what callgrind runs: one loop
 *					over kind number K
 */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pcore_engine.h"

#define NVALUES		(1 << 16)	/* 512 KiB of values, cache-resident */
#define CG_PASSES	4		/* 262144 records under callgrind */
#define TIME_PASSES	763		/* 50003968 records per timed run */
#define TIME_RUNS	5
#define TARGET_INSNS	25		/* project target for loglinear */
#define SEED		0x5eed0f9c0ffee123ULL

/* Never inlined, cloned or assumed free of side effects: calls stay. */
#define noipa		__attribute__((__noipa__))

struct kind {
	const char *name;
	struct pcore_hist_spec spec;
};

static const struct kind kinds[] = {
	{ "log2", { .kind = PCORE_HIST_LOG2 } },
	{ "linear step 2^17", { .kind = PCORE_HIST_LINEAR,
				.max = 2046ULL << 17, .step = 1ULL << 17 } },
	{ "linear step 100000", { .kind = PCORE_HIST_LINEAR,
				  .max = 2046ULL * 100000, .step = 100000 } },
	{ "loglinear default", { .kind = PCORE_HIST_LOGLINEAR } },
	{ "exp default (S 4)", { .kind = PCORE_HIST_EXP,
				 .precision = PCORE_EXP_DEFAULT_SCHEMA } },
	{ "exp schema 3", { .kind = PCORE_HIST_EXP, .precision = 3 } },
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NKINDS		ARRAY_SIZE(kinds)
#define LOGLINEAR	3	/* the kind compared with the target */
#define EXP		4	/* hist=exp: within EXP_MARGIN of loglinear */
#define EXP_MARGIN	4

static noipa void rec_one(const struct pcore_layout *l,
			    struct pcore_cpu_hist *c, u64 v)
{
	pcore_record(l, c, v);
}

static noipa void rec_none(const struct pcore_layout *l,
			     struct pcore_cpu_hist *c, u64 v)
{
	/* no instructions: only tells the compiler the arguments are used */
	asm volatile("" : : "r" (l), "r" (c), "r" (v));
}

/* One key's record of one CPU, moved out: what an interval read does. */
static noipa void harvest_one(struct pcore_cpu_hist *c, struct pcore_snap *s)
{
	pcore_cpu_harvest(c, s);
}

/* The two loops must compile to the same code but for the call target. */
static noipa void loop_record(const struct pcore_layout *l,
				struct pcore_cpu_hist *c, const u64 *v,
				unsigned int passes)
{
	unsigned int p, i;

	for (p = 0; p < passes; p++)
		for (i = 0; i < NVALUES; i++)
			rec_one(l, c, v[i]);
}

static noipa void loop_empty(const struct pcore_layout *l,
			       struct pcore_cpu_hist *c, const u64 *v,
			       unsigned int passes)
{
	unsigned int p, i;

	for (p = 0; p < passes; p++)
		for (i = 0; i < NVALUES; i++)
			rec_none(l, c, v[i]);
}

/* xorshift64* */
static u64 rng_next(u64 *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/* log-uniform from 100 ns to 100 ms */
static void gen_values(u64 *v)
{
	u64 s = SEED;
	double u;
	int i;

	for (i = 0; i < NVALUES; i++) {
		u = (double)(rng_next(&s) >> 11) / 9007199254740992.0;
		v[i] = (u64)(100.0 * pow(10.0, 6.0 * u));
	}
}

struct setup {
	struct pcore_layout l;
	struct pcore_cpu_hist *c;
	u64 *v;
};

static int setup(struct setup *s, unsigned int k)
{
	const char *why = "";

	if (pcore_layout_init(&s->l, &kinds[k].spec, &why)) {
		fprintf(stderr, "bench: %s: %s\n", kinds[k].name, why);
		return -1;
	}
	s->c = malloc(pcore_cpu_hist_size(&s->l));
	s->v = malloc(NVALUES * sizeof(u64));
	if (!s->c || !s->v) {
		fprintf(stderr, "bench: out of memory\n");
		return -1;
	}
	pcore_cpu_hist_init(&s->l, s->c);
	gen_values(s->v);
	return 0;
}

static void teardown(struct setup *s)
{
	free(s->c);
	free(s->v);
}

/*
 * Harvests of a record that holds the values (full) or nothing (empty),
 * CG_PASSES times; callgrind counts harvest_one() only.
 */
static int run_harvest(struct setup *s, bool full)
{
	size_t size = pcore_cpu_hist_size(&s->l);
	struct pcore_cpu_hist *tmpl = malloc(size);
	struct pcore_snap *snap = malloc(pcore_snap_size(&s->l));
	unsigned int p, i;

	if (!tmpl || !snap)
		return 2;
	pcore_cpu_hist_init(&s->l, tmpl);
	for (i = 0; full && i < NVALUES; i++)
		pcore_record(&s->l, tmpl, s->v[i]);
	pcore_snap_init(&s->l, snap);
	for (p = 0; p < CG_PASSES; p++) {
		memcpy(s->c, tmpl, size);
		harvest_one(s->c, snap);
	}
	free(tmpl);
	free(snap);
	return 0;
}

static int interval_report(const char *self, const char *dir,
			   const size_t *size);

/* What callgrind runs: one loop, nothing else worth counting. */
static int run_loop(const char *loop, const char *kind)
{
	unsigned int k = strtoul(kind, NULL, 10);
	struct setup s;

	if (k >= NKINDS || setup(&s, k))
		return 2;
	if (!strcmp(loop, "harvest_full") || !strcmp(loop, "harvest_empty"))
		return run_harvest(&s, !strcmp(loop, "harvest_full"));
	if (!strcmp(loop, "record"))
		loop_record(&s.l, s.c, s.v, CG_PASSES);
	else if (!strcmp(loop, "empty"))
		loop_empty(&s.l, s.c, s.v, CG_PASSES);
	else
		return 2;
	teardown(&s);
	return 0;
}

/* Instructions callgrind counts inside loop_<loop>() for kind @k. */
static int cg_count(const char *self, const char *dir, const char *loop,
		    unsigned int k, unsigned long long *ir)
{
	char file[PATH_MAX], cmd[3 * PATH_MAX], line[512];
	FILE *f;
	int ret;

	snprintf(file, sizeof(file), "%s/callgrind.%s.%u.out", dir, loop, k);
	snprintf(cmd, sizeof(cmd),
		 "valgrind --tool=callgrind --callgrind-out-file='%s' --toggle-collect=%s '%s' --loop %s %u >/dev/null 2>&1",
		 file, strncmp(loop, "harvest", 7) ? (loop[0] == 'r' ? "loop_record" : "loop_empty") : "harvest_one",
		 self, loop, k);
	ret = system(cmd);
	if (ret) {
		fprintf(stderr, "bench: failed (status %d): %s\n", ret, cmd);
		return -1;
	}
	f = fopen(file, "r");
	if (!f) {
		perror(file);
		return -1;
	}
	ret = -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "totals: %llu", ir) == 1 ||
		    sscanf(line, "summary: %llu", ir) == 1)
			ret = 0;
	fclose(f);
	unlink(file);
	if (ret || !*ir) {
		fprintf(stderr, "bench: no instructions counted in loop_%s\n",
			loop);
		return -1;
	}
	return 0;
}

/* Instructions per record of kind @k: measured twice, must agree. */
static int cg_per_record(const char *self, const char *dir, unsigned int k,
			 double *per_record, double *empty_per_record)
{
	unsigned long long rec[2], empty[2];
	int i;

	for (i = 0; i < 2; i++)
		if (cg_count(self, dir, "record", k, &rec[i]) ||
		    cg_count(self, dir, "empty", k, &empty[i]))
			return -1;
	if (rec[0] != rec[1] || empty[0] != empty[1]) {
		fprintf(stderr, "bench: %s: callgrind counts differ between runs: %llu/%llu, %llu/%llu\n",
			kinds[k].name, rec[0], rec[1], empty[0], empty[1]);
		return -1;
	}
	*per_record = (double)(rec[0] - empty[0]) / NVALUES / CG_PASSES;
	*empty_per_record = (double)empty[0] / NVALUES / CG_PASSES;
	return 0;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median ns per record over TIME_RUNS runs of one loop. */
static double time_loop(struct setup *s, bool record)
{
	const unsigned long long n = (unsigned long long)NVALUES * TIME_PASSES;
	double t[TIME_RUNS], t0;
	int r;

	for (r = -1; r < TIME_RUNS; r++) {	/* run -1 warms up */
		pcore_cpu_hist_init(&s->l, s->c);
		t0 = now_ns();
		if (record)
			loop_record(&s->l, s->c, s->v, TIME_PASSES);
		else
			loop_empty(&s->l, s->c, s->v, TIME_PASSES);
		if (r >= 0)
			t[r] = (now_ns() - t0) / n;
		if (record && pcore_cpu_hist_count(&s->l, s->c) != n)
			return -1;
	}
	qsort(t, TIME_RUNS, sizeof(t[0]), cmp_double);
	return t[TIME_RUNS / 2];
}

int main(int argc, char **argv)
{
	double ir[NKINDS], ns[NKINDS], empty_ns[NKINDS], empty_ir = 0;
	char self[PATH_MAX], dir[PATH_MAX], *slash;
	size_t size[NKINDS];
	u32 nb[NKINDS];
	struct setup s;
	unsigned int k;
	ssize_t len;

	if (argc == 4 && !strcmp(argv[1], "--loop"))
		return run_loop(argv[2], argv[3]);
	if (argc != 1) {
		fprintf(stderr, "usage: %s\n", argv[0]);
		return 2;
	}
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len < 0) {
		perror("/proc/self/exe");
		return 1;
	}
	self[len] = '\0';
	strcpy(dir, self);
	slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';

	for (k = 0; k < NKINDS; k++) {
		if (setup(&s, k))
			return 1;
		nb[k] = s.l.nbuckets;
		size[k] = pcore_cpu_hist_size(&s.l);
		if (cg_per_record(self, dir, k, &ir[k], &empty_ir))
			return 1;
		empty_ns[k] = time_loop(&s, false);
		ns[k] = time_loop(&s, true);
		teardown(&s);
		if (ns[k] < 0) {
			fprintf(stderr, "bench: %s: records were lost\n",
				kinds[k].name);
			return 1;
		}
	}

	printf("pcore_record() in the host build (gcc -O2 -fno-tree-vectorize), values log-uniform 100 ns .. 100 ms\n\n");
	printf("%-19s %7s %9s %12s %9s %7s\n", "kind", "buckets",
	       "bytes/CPU", "instr/record", "ns/record", "net ns");
	for (k = 0; k < NKINDS; k++)
		printf("%-19s %7u %9zu %12.2f %9.2f %7.2f\n", kinds[k].name,
		       nb[k], size[k], ir[k], ns[k], ns[k] - empty_ns[k]);
	printf("\ninstr/record: callgrind, %d records, the same count in 2 runs; the loop\n"
	       "  and the call around each record (%.2f instructions) are not included\n",
	       NVALUES * CG_PASSES, empty_ir);
	printf("ns/record: median of %d runs of %d records through a noinline call;\n"
	       "  net ns: minus the same loop calling an empty function\n\n",
	       TIME_RUNS, NVALUES * TIME_PASSES);
	printf("%s: %.2f instructions per record, target <= %d: %s\n",
	       kinds[LOGLINEAR].name, ir[LOGLINEAR], TARGET_INSNS,
	       ir[LOGLINEAR] <= TARGET_INSNS ? "PASS" : "ABOVE TARGET");
	printf("%s: %.2f instructions per record, target <= %s + %d = %.2f: %s\n",
	       kinds[EXP].name, ir[EXP], kinds[LOGLINEAR].name, EXP_MARGIN,
	       ir[LOGLINEAR] + EXP_MARGIN,
	       ir[EXP] <= ir[LOGLINEAR] + EXP_MARGIN ? "PASS" : "ABOVE TARGET");
	return interval_report(self, dir, size);
}

/*
 * Records and tables of a histogram, as hist.c allocates them (its key
 * and label tables, chunk lists and a few hundred bytes of its own aside):
 * without keys (@slots 0), a record per CPU and bank; keyed, per bank a
 * pointer per slot and CPU, and a pool of chunks of 64 records holding
 * twice the @pairs (key, CPU) pairs in use, 0 meaning every slot on every
 * CPU (the pool's most).
 */
static unsigned long long hist_mem(size_t pad, unsigned int slots,
				   unsigned int pairs, unsigned int cpus)
{
	unsigned long long recs, cap = (unsigned long long)slots * cpus;

	if (!slots)
		return 2ULL * pad * cpus;
	recs = pairs ? (2ULL * pairs + 63) / 64 * 64 : cap;
	if (recs > cap)
		recs = cap;
	return 2ULL * (8ULL * slots * cpus + recs * pad);
}

static const struct {
	const char *name;
	unsigned int slots, pairs;
} mem_rows[] = {
	{ "no keys", 0, 0 },
	{ "1024 slots, 64 in use", 1024, 64 },
	{ "1024 slots, all in use", 1024, 0 },
};

/* The cost of an interval read, and the memory of two banks. */
static int interval_report(const char *self, const char *dir,
			   const size_t *size)
{
	static const unsigned int cpus[] = { 2, 64, 256 };
	unsigned long long full, empty;
	size_t pad;
	unsigned int k, c, j;

	printf("\ninterval read or reset: 0 instructions in interrupt context (no IPI);\n"
	       "one grace period, then in process context per key and CPU:\n\n");
	printf("%-19s %9s %18s %19s\n", "kind", "padded", "harvest instr full",
	       "harvest instr empty");
	for (k = 0; k < NKINDS; k++) {
		if (cg_count(self, dir, "harvest_full", k, &full) ||
		    cg_count(self, dir, "harvest_empty", k, &empty))
			return 1;
		pad = (size[k] + 63) / 64 * 64;
		printf("%-19s %9zu %18llu %19llu\n", kinds[k].name, pad,
		       full / CG_PASSES, empty / CG_PASSES);
	}
	pad = (size[LOGLINEAR] + 63) / 64 * 64;
	printf("\nmemory of a %s histogram, two banks (bytes):\n\n%-24s",
	       kinds[LOGLINEAR].name, "");
	for (c = 0; c < ARRAY_SIZE(cpus); c++)
		printf(" %10u CPUs", cpus[c]);
	printf("\n");
	for (j = 0; j < ARRAY_SIZE(mem_rows); j++) {
		printf("%-24s", mem_rows[j].name);
		for (c = 0; c < ARRAY_SIZE(cpus); c++)
			printf(" %15llu", hist_mem(pad, mem_rows[j].slots,
						   mem_rows[j].pairs, cpus[c]));
		printf("\n");
	}
	return 0;
}
