// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the probe_core engine.  They compile the very
 * pcore_engine.c and pcore_engine.h the kernel module builds, under
 * AddressSanitizer and UndefinedBehaviorSanitizer.
 *
 * Every random case comes from a fixed-seed xorshift64* generator, so a
 * run is reproducible; a failing check logs the seed and the case.
 *
 * References are computed without the code under test where that is
 * possible: bucket counts from binary search over pcore_bucket_bounds(),
 * linear indexes with plain division, percentiles by sorting the data.
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "pcore_spec.h"

#define NCPU		4	/* simulated CPUs, one histogram each */
#define SEED		0x5eed0f9c0ffee123ULL
#define JUNK		0xa5	/* fills memory before the engine inits it */
#define MILLION		1000000ULL

/* ---- deterministic random numbers ---- */

struct rng {
	u64 s;
};

/* splitmix64 turns neighbouring seeds into unrelated xorshift states */
static struct rng rng_init(u64 seed)
{
	struct rng r;
	u64 z = seed + 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	r.s = (z ^ (z >> 31)) | 1;
	return r;
}

/* xorshift64* */
static u64 rng_next(struct rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dULL;
}

/* uniform in [0, n); n == 0 stands for 2^64 */
static u64 rng_below(struct rng *r, u64 n)
{
	u64 x = rng_next(r);

	return n ? (u64)(((__uint128_t)x * n) >> 64) : x;
}

/* any order of magnitude: 0 to 64 significant bits, equally likely */
static u64 rng_mag(struct rng *r)
{
	u64 bits = rng_below(r, 65);

	return bits ? rng_next(r) >> (64 - bits) : 0;
}

/* uniform in [0, 1) */
static double rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) / 9007199254740992.0;
}

static u64 sat_add(u64 a, u64 b)
{
	return a + b < a ? U64_MAX : a + b;
}

static u64 sat_sub(u64 a, u64 b)
{
	return a < b ? 0 : a - b;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* ---- layouts every test runs over ---- */

struct lcase {
	const char *name;
	struct pcore_hist_spec spec;
};

#define LOG2()		{ .kind = PCORE_HIST_LOG2 }
#define LIN(lo, st, n)	{ .kind = PCORE_HIST_LINEAR, .min = (lo),	\
			  .max = (lo) + (st) * (n), .step = (st) }
#define LOGLIN(p, mx)	{ .kind = PCORE_HIST_LOGLINEAR,		\
			  .precision = (p), .max = (mx) }
#define EXP(sc, mx)	{ .kind = PCORE_HIST_EXP,			\
			  .precision = (sc), .max = (mx) }
#define P2(n)		(1ULL << (n))

static const struct lcase lcases[] = {
	{ "log2", LOG2() },
	{ "linear 0+1*2046", LIN(0ULL, 1ULL, 2046) },
	{ "linear 100+1024*1000", LIN(100ULL, 1024ULL, 1000) },
	{ "linear 0+2^40*2046", LIN(0ULL, P2(40), 2046) },
	{ "linear 0+2^63*1", LIN(0ULL, P2(63), 1) },
	{ "linear 5+3*2000", LIN(5ULL, 3ULL, 2000) },
	{ "linear 1000+7*1500", LIN(1000ULL, 7ULL, 1500) },
	{ "linear 0+1000*1000", LIN(0ULL, 1000ULL, 1000) },
	{ "linear 12345+999999937*2046", LIN(12345ULL, 999999937ULL, 2046) },
	{ "linear 0+(2^53+3)*2046", LIN(0ULL, P2(53) + 3, 2046) },
	{ "linear 0+(2^63+1)*1", LIN(0ULL, P2(63) + 1, 1) },
	{ "linear 2^63+(2^63-1)*1", LIN(P2(63), P2(63) - 1, 1) },
	{ "linear up to U64_MAX, step 999999937",
	  LIN(U64_MAX - 999999937ULL * 2046, 999999937ULL, 2046) },
	{ "loglinear default", LOGLIN(0, 0ULL) },
	{ "loglinear p1", LOGLIN(1, 0ULL) },
	{ "loglinear p2", LOGLIN(2, 0ULL) },
	{ "loglinear p3", LOGLIN(3, 0ULL) },
	{ "loglinear p5", LOGLIN(5, 0ULL) },
	{ "loglinear p6 max 2^30", LOGLIN(6, P2(30)) },
	{ "loglinear p7 max 10^6", LOGLIN(7, 1000000ULL) },
	{ "loglinear p4 max 3", LOGLIN(4, 3ULL) },
	{ "loglinear p3 max 1000", LOGLIN(3, 1000ULL) },
	{ "loglinear p2 max 3*2^62", LOGLIN(2, 3 * P2(62)) },
	{ "loglinear p1 max U64_MAX", LOGLIN(1, U64_MAX) },
	{ "loglinear p4 max U64_MAX", LOGLIN(4, U64_MAX) },
	{ "loglinear p5 max U64_MAX", LOGLIN(5, U64_MAX) },
	{ "exp 0", EXP(0, 0ULL) },
	{ "exp 1", EXP(1, 0ULL) },
	{ "exp 2", EXP(2, 0ULL) },
	{ "exp 3", EXP(3, 0ULL) },
	{ "exp 4", EXP(4, 0ULL) },
	{ "exp 5", EXP(5, 0ULL) },
	{ "exp 6", EXP(6, 0ULL) },
	{ "exp 7", EXP(7, 0ULL) },
	{ "exp 8", EXP(8, 0ULL) },
	{ "exp 0 max U64_MAX", EXP(0, U64_MAX) },
	{ "exp 4 max U64_MAX", EXP(4, U64_MAX) },
	{ "exp 3 max 1000", EXP(3, 1000ULL) },
	{ "exp 8 max 200", EXP(8, 200ULL) },
	{ "exp 2 max 1", EXP(2, 1ULL) },
};

#define NLCASES		ARRAY_SIZE(lcases)

static void lc_init(struct __test_metadata *_metadata,
		    const struct lcase *c, struct pcore_layout *l)
{
	const char *why = NULL;

	memset(l, JUNK, sizeof(*l));
	ASSERT_EQ(0, pcore_layout_init(l, &c->spec, &why))
		TH_LOG("%s refused: %s", c->name, why);
	ASSERT_EQ(c->spec.kind, l->kind);
	ASSERT_LE(2U, l->nbuckets);
	ASSERT_GE((u32)PCORE_MAX_BUCKETS, l->nbuckets);
}

/* The layout of case @ci of lcases[] into @l, and that case's generator. */
static struct rng lc_start(struct __test_metadata *_metadata, size_t ci,
			   struct pcore_layout *l)
{
	struct rng r = rng_init(SEED + ci);

	lc_init(_metadata, &lcases[ci], l);
	return r;
}

/*
 * The loglinear bucket holding U64_MAX, from the documented layout: each
 * power of two 2^e (e >= prec) is group e - prec + 1 of 2^prec buckets.
 */
static u32 loglin_top(u32 prec)
{
	return ((64 - prec) << prec) + (1U << prec) - 1;
}

/* Bucket @i holds values above the layout's range and has no upper end. */
static bool is_overflow(const struct pcore_layout *l, u32 i)
{
	if (l->kind == PCORE_HIST_EXP)	/* native 64 * 2^S ends at 2^64 */
		return i == l->nbuckets - 1 && i != (64U << l->prec) + 1;
	if (l->kind == PCORE_HIST_LINEAR)
		return i == l->nbuckets - 1;
	if (l->kind == PCORE_HIST_LOGLINEAR)
		return i == l->nbuckets - 1 && i != loglin_top(l->prec);
	return false;
}

static bool is_underflow(const struct pcore_layout *l, u32 i)
{
	return l->kind == PCORE_HIST_LINEAR && i == 0;
}

/* ---- histograms of NCPU simulated CPUs ---- */

/* @size bytes of JUNK, as the engine must not expect zeroed memory. */
static void *junk_alloc(size_t size)
{
	void *p = malloc(size);

	if (p)
		memset(p, JUNK, size);
	return p;
}

static struct pcore_cpu_hist *cpu_new(const struct pcore_layout *l)
{
	struct pcore_cpu_hist *c = junk_alloc(pcore_cpu_hist_size(l));

	if (c)
		pcore_cpu_hist_init(l, c);
	return c;
}

static struct pcore_snap *snap_new(const struct pcore_layout *l)
{
	struct pcore_snap *s = junk_alloc(pcore_snap_size(l));

	if (s)
		pcore_snap_init(l, s);
	return s;
}

/*
 * snap_new() into each struct pcore_snap ** of the NULL-terminated list;
 * true when none failed.
 */
static bool snaps_new(const struct pcore_layout *l, ...)
{
	struct pcore_snap **s;
	bool ok = true;
	va_list ap;

	va_start(ap, l);
	while ((s = va_arg(ap, struct pcore_snap **))) {
		*s = snap_new(l);
		ok = ok && *s;
	}
	va_end(ap);
	return ok;
}

/* A reference snapshot of @n values, binning them by the bounds alone. */
struct ref {
	u64 count, sum, min, max;
	u32 nbuckets;
	u64 *lo;	/* lower end of each bucket */
	u64 *b;
};

static void ref_init(struct ref *r, const struct pcore_layout *l)
{
	u64 hi;
	u32 i;

	r->count = 0;
	r->sum = 0;
	r->min = U64_MAX;
	r->max = 0;
	r->nbuckets = l->nbuckets;
	r->lo = calloc(l->nbuckets, sizeof(u64));
	r->b = calloc(l->nbuckets, sizeof(u64));
	for (i = 0; r->lo && i < l->nbuckets; i++)
		pcore_bucket_bounds(l, i, &r->lo[i], &hi);
}

static void ref_free(struct ref *r)
{
	free(r->lo);
	free(r->b);
}

/* the last bucket whose lower end is <= v (skips empty buckets) */
static u32 ref_bucket(const struct ref *r, u64 v)
{
	u32 lo = 0, hi = r->nbuckets - 1, mid;

	while (lo < hi) {
		mid = lo + (hi - lo + 1) / 2;
		if (r->lo[mid] <= v)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static void ref_add(struct ref *r, u64 v)
{
	r->b[ref_bucket(r, v)]++;
	r->count++;
	r->sum += v;
	if (v < r->min)
		r->min = v;
	if (v > r->max)
		r->max = v;
}

static void ref_clear(struct ref *r)
{
	r->count = 0;
	r->sum = 0;
	r->min = U64_MAX;
	r->max = 0;
	memset(r->b, 0, r->nbuckets * sizeof(u64));
}

/* Asserts that snapshot @s holds exactly what @r does. */
static void snap_equals_ref(struct __test_metadata *_metadata,
			    const char *what, const struct pcore_snap *s,
			    const struct ref *r)
{
	u32 i;

	ASSERT_EQ(r->nbuckets, s->nbuckets) TH_LOG("%s", what);
	ASSERT_EQ(r->count, s->count) TH_LOG("%s", what);
	ASSERT_EQ(r->sum, s->sum) TH_LOG("%s", what);
	ASSERT_EQ(r->min, s->min) TH_LOG("%s", what);
	ASSERT_EQ(r->max, s->max) TH_LOG("%s", what);
	for (i = 0; i < r->nbuckets; i++) {
		ASSERT_EQ(r->b[i], s->b[i])
			TH_LOG("%s: bucket %u", what, i);
	}
}

static void cpu_is_empty(struct __test_metadata *_metadata, const char *what,
			 const struct pcore_layout *l,
			 const struct pcore_cpu_hist *c)
{
	u32 i;

	ASSERT_EQ(0ULL, pcore_cpu_hist_count(l, c)) TH_LOG("%s", what);
	ASSERT_EQ(0ULL, pcore_ctr_read(&c->sum)) TH_LOG("%s", what);
	ASSERT_EQ(U64_MAX, pcore_ctr_read(&c->min)) TH_LOG("%s", what);
	ASSERT_EQ(0ULL, pcore_ctr_read(&c->max)) TH_LOG("%s", what);
	for (i = 0; i < l->nbuckets; i++) {
		ASSERT_EQ(0ULL, pcore_ctr_read(&c->b[i]))
			TH_LOG("%s: bucket %u", what, i);
	}
}

/* A value that lands anywhere in the layout, often near or in its range. */
static u64 rand_value(struct rng *r, const struct pcore_layout *l)
{
	u64 lo, hi;

	switch (rng_below(r, 4)) {
	case 0:
		return rng_next(r);
	case 1:
		return rng_mag(r);
	default:
		pcore_bucket_bounds(l, rng_below(r, l->nbuckets), &lo, &hi);
		if (hi == U64_MAX)	/* rng_below(0) spans all of 2^64 */
			return lo + rng_below(r, U64_MAX - lo + 1);
		return hi > lo ? lo + rng_below(r, hi - lo) : lo;
	}
}

/* ---- layout validation ---- */

struct refused {
	struct pcore_hist_spec spec;
	const char *word;	/* the reason must mention this */
};

static void check_refused(struct __test_metadata *_metadata,
			  const struct refused *t, size_t n)
{
	struct pcore_layout l;
	const char *why;
	size_t i;

	for (i = 0; i < n; i++) {
		why = NULL;
		ASSERT_EQ(-EINVAL, pcore_layout_init(&l, &t[i].spec, &why))
			TH_LOG("case %zu accepted", i);
		ASSERT_NE(NULL, why) TH_LOG("case %zu: no reason", i);
		ASSERT_NE(NULL, strstr(why, t[i].word))
			TH_LOG("case %zu: reason \"%s\" lacks \"%s\"",
			       i, why, t[i].word);
	}
}

#define REFUSE(t)	check_refused(_metadata, t, ARRAY_SIZE(t))

TEST(layout_refuses_zero_step)
{
	static const struct refused t[] = {
		{ { .kind = PCORE_HIST_LINEAR, .max = 10 }, "step" },
		{ { .kind = PCORE_HIST_LINEAR }, "step" },
		{ { .kind = PCORE_HIST_LINEAR, .min = 5, .max = U64_MAX },
		  "step" },
	};

	REFUSE(t);
}

TEST(layout_refuses_max_not_above_min)
{
	static const struct refused t[] = {
		{ { .kind = PCORE_HIST_LINEAR, .min = 10, .max = 10,
		    .step = 1 }, "min" },
		{ { .kind = PCORE_HIST_LINEAR, .min = 10, .max = 5,
		    .step = 1 }, "min" },
		{ { .kind = PCORE_HIST_LINEAR, .min = U64_MAX, .max = 0,
		    .step = 1 }, "min" },
		{ { .kind = PCORE_HIST_LINEAR, .step = 1 }, "min" },
	};

	REFUSE(t);
}

TEST(layout_refuses_range_not_multiple_of_step)
{
	static const struct refused t[] = {
		{ { .kind = PCORE_HIST_LINEAR, .max = 10, .step = 3 },
		  "multiple" },
		{ { .kind = PCORE_HIST_LINEAR, .max = 10, .step = 11 },
		  "multiple" },
		{ { .kind = PCORE_HIST_LINEAR, .max = U64_MAX, .step = 2 },
		  "multiple" },
		{ { .kind = PCORE_HIST_LINEAR, .min = 1, .max = U64_MAX,
		    .step = P2(63) + 1 }, "multiple" },
		{ { .kind = PCORE_HIST_LINEAR, .max = 1000, .step = U64_MAX },
		  "multiple" },
	};

	REFUSE(t);
}

TEST(layout_refuses_precision_above_7)
{
	static const struct refused t[] = {
		{ LOGLIN(8, 0ULL), "precision" },
		{ LOGLIN(8, 1000ULL), "precision" },
		{ LOGLIN(9, 0ULL), "precision" },
		{ LOGLIN(64, 0ULL), "precision" },
		{ LOGLIN(U32_MAX, 0ULL), "precision" },
	};

	REFUSE(t);
}

TEST(layout_refuses_too_many_buckets)
{
	static const struct refused t[] = {
		/* 2047 steps + underflow + overflow = 2049 */
		{ LIN(0ULL, 1ULL, 2047), "buckets" },
		{ LIN(7ULL, 999999937ULL, 2047), "buckets" },
		{ LIN(0ULL, 1ULL, P2(20)), "buckets" },
		{ { .kind = PCORE_HIST_LINEAR, .max = U64_MAX, .step = 3 },
		  "buckets" },
		/* 2^64 - 1 and 2^64 - 2 steps: "+ 2" must not wrap */
		{ { .kind = PCORE_HIST_LINEAR, .max = U64_MAX, .step = 1 },
		  "buckets" },
		{ { .kind = PCORE_HIST_LINEAR, .min = 1, .max = U64_MAX,
		    .step = 1 }, "buckets" },
		{ LOGLIN(6, 0ULL), "buckets" },
		{ LOGLIN(7, 0ULL), "buckets" },
		{ LOGLIN(7, U64_MAX), "buckets" },
		{ LOGLIN(6, U64_MAX), "buckets" },
	};

	REFUSE(t);
}

TEST(layout_refuses_unknown_kind)
{
	static const struct refused t[] = {
		{ { .kind = 0, .max = 10, .step = 1 }, "kind" },
		{ { .kind = 6, .max = 10, .step = 1 }, "kind" },
		{ { .kind = 0x80000002, .max = 10, .step = 1 }, "kind" },
		{ { .kind = U32_MAX }, "kind" },
	};

	REFUSE(t);
}

/*
 * The text form of a spec, which the kernel's hist= and probectl's --hist
 * both read with pcore_hist_spec_parse(): what it takes, and what it
 * refuses and why (decimal digits only: the kernel's kstrtou64() used to
 * take "+5" and a trailing newline where probectl did not).
 */
TEST(spec_text_accepted)
{
	static const struct {
		const char *s;
		struct pcore_hist_spec spec;
	} t[] = {
		{ "log2", { .kind = PCORE_HIST_LOG2 } },
		{ "loglinear", { .kind = PCORE_HIST_LOGLINEAR } },
		{ "loglinear:1", { .kind = PCORE_HIST_LOGLINEAR, .precision = 1 } },
		{ "loglinear:05", { .kind = PCORE_HIST_LOGLINEAR, .precision = 5 } },
		{ "exp", { .kind = PCORE_HIST_EXP,
			   .precision = PCORE_EXP_DEFAULT_SCHEMA } },
		{ "exp:0", { .kind = PCORE_HIST_EXP, .precision = 0 } },
		{ "exp:3", { .kind = PCORE_HIST_EXP, .precision = 3 } },
		{ "exp:08", { .kind = PCORE_HIST_EXP, .precision = 8 } },
		{ "linear:0,100,10", { .kind = PCORE_HIST_LINEAR, .max = 100,
				       .step = 10 } },
		{ "linear:1000,1000000,1000", { .kind = PCORE_HIST_LINEAR,
			.min = 1000, .max = 1000000, .step = 1000 } },
	};
	struct pcore_hist_spec spec;
	const char *why = NULL;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		memset(&spec, 0xa5, sizeof(spec));
		EXPECT_EQ(0, pcore_hist_spec_parse(t[i].s, &spec, &why))
			TH_LOG("%s: %s", t[i].s, why);
		EXPECT_EQ(0, memcmp(&spec, &t[i].spec, sizeof(spec)))
			TH_LOG("%s: kind %u precision %u min %llu max %llu step %llu",
			       t[i].s, spec.kind, spec.precision,
			       (u64)spec.min, (u64)spec.max, (u64)spec.step);
	}
}

TEST(spec_text_refused)
{
	static const struct {
		const char *s;
		const char *word;	/* the reason must say this */
	} t[] = {
		{ "", "unknown kind" },
		{ "bogus", "unknown kind" },
		{ "LOG2", "unknown kind" },
		{ "log2:1", "unknown kind" },
		{ "loglinear ", "unknown kind" },
		{ "loglinear:", "precision must be 1 to 7" },
		{ "loglinear:0", "precision must be 1 to 7" },
		{ "loglinear:8", "precision must be 1 to 7" },
		{ "loglinear:+3", "precision must be 1 to 7" },
		{ "loglinear:3\n", "precision must be 1 to 7" },
		{ "loglinear:-1", "precision must be 1 to 7" },
		{ "loglinear:99999999999999999999", "precision must be 1 to 7" },
		{ "exp:", "exp schema must be 0 to 8" },
		{ "exp:9", "exp schema must be 0 to 8" },
		{ "exp:-1", "exp schema must be 0 to 8" },
		{ "exp:x", "exp schema must be 0 to 8" },
		{ "exp:3x", "exp schema must be 0 to 8" },
		{ "exp:+3", "exp schema must be 0 to 8" },
		{ "exp:4294967300", "exp schema must be 0 to 8" },
		{ "exp ", "unknown kind" },
		{ "exp4", "unknown kind" },
		{ "linear:", "MIN,MAX,STEP" },
		{ "linear:0,100", "MIN,MAX,STEP" },
		{ "linear:0,100,10,5", "MIN,MAX,STEP" },
		{ "linear:0,100,10,", "MIN,MAX,STEP" },
		{ "linear:a,b,c", "MIN,MAX,STEP" },
		{ "linear:0,,10", "MIN,MAX,STEP" },
		{ "linear:+0,100,10", "MIN,MAX,STEP" },
		{ "linear: 0,100,10", "MIN,MAX,STEP" },
		{ "linear:0,100,10\n", "MIN,MAX,STEP" },
		{ "linear:0,18446744073709551616,1", "MIN,MAX,STEP" },
		/* well formed, refused by pcore_layout_init() */
		{ "linear:0,100,0", "step" },
		{ "linear:100,0,10", "max" },
		{ "linear:0,100,7", "multiple" },
	};
	struct pcore_hist_spec spec;
	const char *why;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		why = NULL;
		EXPECT_EQ(-EINVAL, pcore_hist_spec_parse(t[i].s, &spec, &why))
			TH_LOG("'%s' was taken", t[i].s);
		EXPECT_NE(NULL, why);
		if (why)
			EXPECT_NE(NULL, strstr(why, t[i].word))
				TH_LOG("'%s': '%s' does not say '%s'", t[i].s,
				       why, t[i].word);
	}
}

/* A spec's fields, named. */
#define PS(f, u, w, a, fl) { .func = f, .unit = u, .what = w, .arg = a, \
			     .flags = fl }

/*
 * A probe spec's text, which the kernel's target= and stacks=, the attach
 * ioctl's text form and probectl attach read with pcore_probe_spec_parse():
 * its fields, and the name pcore_probe_spec_name() writes back (the text
 * itself: one form).
 */
TEST(probe_spec_accepted)
{
	static const struct {
		const char *s;
		struct pcore_probe_spec ps;
	} t[] = {
		{ "vfs_read", PS("vfs_read", "", PCORE_WHAT_TIME, 0, 0) },
		{ "vfs_*", PS("vfs_*", "", PCORE_WHAT_TIME, 0, 0) },
		{ "vfs_r?ad:count", PS("vfs_r?ad", "", PCORE_WHAT_COUNT, 0, 0) },
		{ "do_fork:count", PS("do_fork", "", PCORE_WHAT_COUNT, 0, 0) },
		{ "do_fork:count:by=pid",
		  PS("do_fork", "", PCORE_WHAT_COUNT, 0, PCORE_ATTACH_BY_PID) },
		{ "f.isra.0:stacks", PS("f.isra.0", "", PCORE_WHAT_STACKS, 0, 0) },
		{ "tcp_sendmsg:arg3", PS("tcp_sendmsg", "", PCORE_WHAT_ARG, 3, 0) },
		{ "f:arg1:bytes", PS("f", "bytes", PCORE_WHAT_ARG, 1, 0) },
		{ "f:arg6:B:by=pid",
		  PS("f", "B", PCORE_WHAT_ARG, 6, PCORE_ATTACH_BY_PID) },
		{ "vfs_read:retval", PS("vfs_read", "", PCORE_WHAT_RETVAL, 0, 0) },
		{ "vfs_read:retval:0123456789abcde",
		  PS("vfs_read", "0123456789abcde", PCORE_WHAT_RETVAL, 0, 0) },
		{ "vfs_read:by=pid",
		  PS("vfs_read", "", PCORE_WHAT_TIME, 0, PCORE_ATTACH_BY_PID) },
		{ "vfs_read:graph", PS("vfs_read", "", PCORE_WHAT_GRAPH, 0, 0) },
		{ "vfs_read:by=cgroup",
		  PS("vfs_read", "", PCORE_WHAT_TIME, 0, PCORE_ATTACH_BY_CGROUP) },
		{ "sys_getppid:count:by=cgroup",
		  PS("sys_getppid", "", PCORE_WHAT_COUNT, 0,
		     PCORE_ATTACH_BY_CGROUP) },
		{ "f:arg2:B:by=cgroup",
		  PS("f", "B", PCORE_WHAT_ARG, 2, PCORE_ATTACH_BY_CGROUP) },
		{ "vfs_read:graph:*_read_iter",
		  { .func = "vfs_read", .what = PCORE_WHAT_GRAPH,
		    .graph = "*_read_iter" } },
	};
	char why[PCORE_SPEC_WHY_MAX], name[PCORE_UAPI_NAME_MAX];
	struct pcore_probe_spec ps;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		memset(&ps, 0xa5, sizeof(ps));
		why[0] = '\0';
		EXPECT_EQ(0, pcore_probe_spec_parse(t[i].s, &ps, why, sizeof(why)))
			TH_LOG("%s: %s", t[i].s, why);
		EXPECT_EQ(0, memcmp(&ps, &t[i].ps, sizeof(ps)))
			TH_LOG("%s: func '%s' unit '%s' what %u arg %u flags %u",
			       t[i].s, ps.func, ps.unit, ps.what, ps.arg,
			       ps.flags);
		EXPECT_EQ(0, pcore_probe_spec_check(&t[i].ps, why, sizeof(why)))
			TH_LOG("%s: %s", t[i].s, why);
		EXPECT_EQ(0, pcore_probe_spec_name(&t[i].ps, name, sizeof(name)));
		EXPECT_STREQ(t[i].s, name);
	}
}

TEST(probe_spec_refused)
{
	static const struct {
		const char *s;
		const char *why;	/* the whole reason */
	} t[] = {
		{ "", "no function" },
		{ ":count", "no function" },
		{ "do fork", "characters other than printable ASCII without blanks" },
		{ "f\x01", "characters other than printable ASCII without blanks" },
		{ "f\xff:count", "characters other than printable ASCII without blanks" },
		{ "f,g", "a function is named without blank, control character, ':' or ','" },
		{ "f:", "unknown suffix ':' (known: ':count', ':stacks', ':arg1' to ':arg6', ':retval', the last two with an optional ':UNIT'; then ':by=pid' or ':by=cgroup' (or ':ustack' after ':stacks'); or ':graph[:GLOB]')" },
		{ "f:cnt", "unknown suffix ':cnt' (known: ':count', ':stacks', ':arg1' to ':arg6', ':retval', the last two with an optional ':UNIT'; then ':by=pid' or ':by=cgroup' (or ':ustack' after ':stacks'); or ':graph[:GLOB]')" },
		{ "f:COUNT", "unknown suffix ':COUNT' (known: ':count', ':stacks', ':arg1' to ':arg6', ':retval', the last two with an optional ':UNIT'; then ':by=pid' or ':by=cgroup' (or ':ustack' after ':stacks'); or ':graph[:GLOB]')" },
		{ "f:arg0", "unknown suffix ':arg0' (known: ':count', ':stacks', ':arg1' to ':arg6', ':retval', the last two with an optional ':UNIT'; then ':by=pid' or ':by=cgroup' (or ':ustack' after ':stacks'); or ':graph[:GLOB]')" },
		{ "f:arg7", "unknown suffix ':arg7' (known: ':count', ':stacks', ':arg1' to ':arg6', ':retval', the last two with an optional ':UNIT'; then ':by=pid' or ':by=cgroup' (or ':ustack' after ':stacks'); or ':graph[:GLOB]')" },
		{ "f:arg12", "unknown suffix ':arg12' (known: ':count', ':stacks', ':arg1' to ':arg6', ':retval', the last two with an optional ':UNIT'; then ':by=pid' or ':by=cgroup' (or ':ustack' after ':stacks'); or ':graph[:GLOB]')" },
		{ "f:by=pid:count", "unknown suffix ':by=pid' (known: ':count', ':stacks', ':arg1' to ':arg6', ':retval', the last two with an optional ':UNIT'; then ':by=pid' or ':by=cgroup' (or ':ustack' after ':stacks'); or ':graph[:GLOB]')" },
		{ "f:count:calls", "':count' takes no unit" },
		{ "f:stacks:x", "':stacks' takes no unit" },
		{ "f:arg1:", "unit '' is not 1 to 15 characters without blank, control character, ':' or ','" },
		{ "f:arg1:0123456789abcdef", "unit '0123456789abcdef' is not 1 to 15 characters without blank, control character, ':' or ','" },
		{ "f:retval:a:b", "unit 'a:b' is not 1 to 15 characters without blank, control character, ':' or ','" },
		{ "f:retval:by=pid", "':by=pid' is not for ':retval'" },
		{ "f:stacks:by=pid", "':by=pid' is not for ':stacks'" },
		{ "f:retval:by=cgroup", "':by=cgroup' is not for ':retval'" },
		{ "f:stacks:by=cgroup", "':by=cgroup' is not for ':stacks'" },
		{ "f:by=pid:by=cgroup", "unknown suffix ':by=pid' (known: ':count', ':stacks', ':arg1' to ':arg6', ':retval', the last two with an optional ':UNIT'; then ':by=pid' or ':by=cgroup' (or ':ustack' after ':stacks'); or ':graph[:GLOB]')" },
		{ "f:graph:by=cgroup", "':by=cgroup' is not for ':graph'" },
		{ "vfs_*:count:by=cgroup", "a glob takes no suffix but ':count'" },
		{ "f:by=cgroups", "unknown suffix ':by=cgroups' (known: ':count', ':stacks', ':arg1' to ':arg6', ':retval', the last two with an optional ':UNIT'; then ':by=pid' or ':by=cgroup' (or ':ustack' after ':stacks'); or ':graph[:GLOB]')" },
		{ "vfs_*:arg1", "a glob takes no suffix but ':count'" },
		{ "vfs_*:stacks", "a glob takes no suffix but ':count'" },
		{ "vfs_*:retval", "a glob takes no suffix but ':count'" },
		{ "vfs_?:by=pid", "a glob takes no suffix but ':count'" },
		{ "vfs_*:count:by=pid", "a glob takes no suffix but ':count'" },
		{ "@128", "function name longer than 127 characters" },
		{ "vfs_*:graph", "':graph' is for one function, without ':by=pid'" },
		{ "f:graph:by=pid", "':graph' is for one function, without ':by=pid'" },
		{ "f:graph:", "':graph:GLOB': the glob is 1 to 127 characters" },
		{ "f:graph:a:b", "a glob of callees is without blank, control character, ':' or ','" },
	};
	char why[PCORE_SPEC_WHY_MAX], s[200];
	struct pcore_probe_spec ps;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		snprintf(s, sizeof(s), "%s", t[i].s);
		if (!strcmp(s, "@128"))	/* 128 characters, no suffix */
			memset(s, 'f', 128), s[128] = '\0';
		why[0] = '\0';
		EXPECT_EQ(-EINVAL, pcore_probe_spec_parse(s, &ps, why, sizeof(why)))
			TH_LOG("'%s' was taken", t[i].s);
		EXPECT_STREQ(t[i].why, why);
	}
}

/*
 * The same rules for fields (the attach ioctl's, ABI 5), and the ones
 * only fields can break: a value out of range, an argument number
 * without :argN.
 */
TEST(probe_spec_fields_refused)
{
	static const struct {
		struct pcore_probe_spec ps;
		const char *why;
	} t[] = {
		{ PS("", "", PCORE_WHAT_TIME, 0, 0), "no function" },
		{ PS("f:count", "", PCORE_WHAT_TIME, 0, 0),
		  "a function is named without blank, control character, ':' or ','" },
		{ PS("f g", "", PCORE_WHAT_TIME, 0, 0),
		  "a function is named without blank, control character, ':' or ','" },
		{ PS("f", "", 6, 0, 0), "what 6 is not one of PCORE_WHAT_*" },
		{ PS("f", "", 0xffffffff, 0, 0),
		  "what 4294967295 is not one of PCORE_WHAT_*" },
		{ PS("f", "", PCORE_WHAT_TIME, 0, 2), "flags 0x2: unknown flags" },
		{ PS("f", "", PCORE_WHAT_ARG, 0, 0), "argument 0 is not 1 to 6" },
		{ PS("f", "", PCORE_WHAT_ARG, 7, 0), "argument 7 is not 1 to 6" },
		{ PS("f", "", PCORE_WHAT_COUNT, 1, 0),
		  "an argument number is for ':argN' only" },
		{ PS("f", "B", PCORE_WHAT_COUNT, 0, 0),
		  "a unit is for ':argN' and ':retval' only" },
		{ PS("f", "B", PCORE_WHAT_TIME, 0, 0),
		  "a unit is for ':argN' and ':retval' only" },
		{ PS("f", "a b", PCORE_WHAT_RETVAL, 0, 0),
		  "unit '?' is not 1 to 15 characters without blank, control character, ':' or ','" },
		{ PS("f", "a,b", PCORE_WHAT_RETVAL, 0, 0),
		  "unit 'a,b' is not 1 to 15 characters without blank, control character, ':' or ','" },
		{ PS("f", "", PCORE_WHAT_STACKS, 0, PCORE_ATTACH_BY_PID),
		  "':by=pid' is not for ':stacks'" },
		{ PS("f", "", PCORE_WHAT_COUNT, 0,
		     PCORE_ATTACH_BY_PID | PCORE_ATTACH_BY_CGROUP),
		  "':by=pid' and ':by=cgroup' are one or the other" },
		{ PS("f", "", PCORE_WHAT_TIME, 0, 0x40),
		  "flags 0x40: unknown flags" },
		{ PS("f*", "", PCORE_WHAT_TIME, 0, PCORE_ATTACH_BY_PID),
		  "a glob takes no suffix but ':count'" },
	};
	char why[PCORE_SPEC_WHY_MAX];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		why[0] = '\0';
		EXPECT_EQ(-EINVAL, pcore_probe_spec_check(&t[i].ps, why, sizeof(why)))
			TH_LOG("case %zu was taken", i);
		EXPECT_STREQ(t[i].why, why);
	}
}

/* A name that does not fit: refused, not cut. */
TEST(probe_spec_name_too_long)
{
	struct pcore_probe_spec ps = { .what = PCORE_WHAT_ARG, .arg = 1,
				       .flags = PCORE_ATTACH_BY_PID };
	char name[PCORE_UAPI_NAME_MAX];

	memset(ps.func, 'f', 110);
	strcpy(ps.unit, "bytes");
	/* 110 + ":arg1" + ":bytes" + ":by=pid" = 128: one too many */
	EXPECT_EQ(-ENAMETOOLONG, pcore_probe_spec_name(&ps, name, sizeof(name)));
	ps.func[109] = '\0';
	EXPECT_EQ(0, pcore_probe_spec_name(&ps, name, sizeof(name)));
	EXPECT_EQ(127U, strlen(name));
}

TEST(layout_accepts_defaults)
{
	struct pcore_hist_spec spec = { .kind = PCORE_HIST_LOGLINEAR };
	struct pcore_layout l, l2;
	const char *why = NULL;
	u64 lo, hi;

	ASSERT_EQ(0, pcore_layout_init(&l, &spec, &why));
	ASSERT_EQ(4U, l.prec);
	ASSERT_EQ(620U, l.nbuckets);
	ASSERT_EQ(4984ULL, (u64)pcore_cpu_hist_size(&l));
	ASSERT_GE(8192ULL, (u64)pcore_cpu_hist_size(&l));
	/* one hour in ns has its own bucket; the next one is the overflow */
	ASSERT_EQ(618U, pcore_bucket(&l, 3600000000000ULL));
	pcore_bucket_bounds(&l, 618, &lo, &hi);
	ASSERT_LE(lo, 3600000000000ULL);
	ASSERT_GT(hi, 3600000000000ULL);
	ASSERT_EQ(619U, pcore_bucket(&l, hi));
	ASSERT_EQ(619U, pcore_bucket(&l, U64_MAX));

	/* explicit values equal to the defaults give the same layout */
	spec.precision = PCORE_LOGLIN_DEFAULT_PRECISION;
	spec.max = PCORE_LOGLIN_DEFAULT_MAX;
	ASSERT_EQ(0, pcore_layout_init(&l2, &spec, &why));
	ASSERT_EQ(0, memcmp(&l, &l2, sizeof(l)));

	spec = (struct pcore_hist_spec){ .kind = PCORE_HIST_LOG2 };
	ASSERT_EQ(0, pcore_layout_init(&l, &spec, &why));
	ASSERT_EQ(65U, l.nbuckets);
	ASSERT_EQ(544ULL, (u64)pcore_cpu_hist_size(&l));
}

TEST(layout_accepts_limits)
{
	struct pcore_layout l;
	const char *why = NULL;
	struct pcore_hist_spec s[] = {
		LIN(0ULL, 1ULL, 2046),
		LIN(U64_MAX - 2046, 1ULL, 2046),
		LIN(1ULL, U64_MAX - 1, 1),
		LIN(0ULL, U64_MAX, 1),
		LOGLIN(7, 1000000ULL),
		LOGLIN(5, U64_MAX),
		LOGLIN(1, 1ULL),
	};
	u32 want[] = { 2048, 2048, 3, 3, 1782, 1920, 3 };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(s); i++) {
		ASSERT_EQ(0, pcore_layout_init(&l, &s[i], &why))
			TH_LOG("case %zu: %s", i, why);
		ASSERT_EQ(want[i], l.nbuckets) TH_LOG("case %zu", i);
	}
}

TEST(hist_sizes)
{
	struct pcore_layout l;
	size_t i;

	for (i = 0; i < NLCASES; i++) {
		lc_init(_metadata, &lcases[i], &l);
		ASSERT_EQ(3 * sizeof(struct pcore_ctr) +
			  l.nbuckets * sizeof(struct pcore_ctr),
			  pcore_cpu_hist_size(&l));
		ASSERT_EQ(offsetof(struct pcore_snap, b) +
			  l.nbuckets * sizeof(u64), pcore_snap_size(&l));
	}
}

TEST(kind_names)
{
	ASSERT_STREQ("log2", pcore_kind_name(PCORE_HIST_LOG2));
	ASSERT_STREQ("linear", pcore_kind_name(PCORE_HIST_LINEAR));
	ASSERT_STREQ("loglinear", pcore_kind_name(PCORE_HIST_LOGLINEAR));
	ASSERT_STREQ("count", pcore_kind_name(PCORE_HIST_COUNT));
	ASSERT_STREQ("unknown", pcore_kind_name(0));
	ASSERT_STREQ("exp", pcore_kind_name(PCORE_HIST_EXP));
	ASSERT_STREQ("unknown", pcore_kind_name(6));
	ASSERT_STREQ("unknown", pcore_kind_name(U32_MAX));
}

/* ---- bucket index against bucket bounds ---- */

static void check_value(struct __test_metadata *_metadata,
			const struct lcase *c, const struct pcore_layout *l,
			u64 v)
{
	u32 i = pcore_bucket(l, v), last = l->nbuckets - 1;
	u64 lo, hi;

	ASSERT_LT(i, l->nbuckets)
		TH_LOG("%s: value %llu -> bucket %u", c->name, v, i);
	pcore_bucket_bounds(l, i, &lo, &hi);
	/* hi == U64_MAX on the last bucket: no upper end, U64_MAX included */
	ASSERT_TRUE(lo <= v && (v < hi || (hi == U64_MAX && i == last)))
		TH_LOG("%s: value %llu in bucket %u [%llu, %llu)",
		       c->name, v, i, lo, hi);
}

static void check_layout(struct __test_metadata *_metadata,
			 const struct lcase *c, u64 seed)
{
	struct rng r = rng_init(seed);
	struct pcore_layout l;
	u64 lo, hi, prev_hi = 0, v;
	u32 i, last;
	int k;

	lc_init(_metadata, c, &l);
	last = l.nbuckets - 1;
	for (i = 0; i <= last; i++) {
		pcore_bucket_bounds(&l, i, &lo, &hi);
		/* contiguous from 0, and monotonic */
		ASSERT_EQ(prev_hi, lo)
			TH_LOG("%s: bucket %u [%llu, %llu) after %llu",
			       c->name, i, lo, hi, prev_hi);
		/* exp: a bucket narrower than 1 may hold no integer */
		ASSERT_TRUE(lo < hi || is_underflow(&l, i) || i == last ||
			    (l.kind == PCORE_HIST_EXP && lo == hi))
			TH_LOG("%s: bucket %u [%llu, %llu)",
			       c->name, i, lo, hi);
		ASSERT_TRUE(i < last || hi == U64_MAX)
			TH_LOG("%s: last bucket ends at %llu", c->name, hi);
		/* both ends of every bucket map back to it */
		if (lo < hi || i == last) {
			ASSERT_EQ(i, pcore_bucket(&l, lo))
				TH_LOG("%s: lo %llu", c->name, lo);
		}
		if (lo < hi && i < last) {
			ASSERT_EQ(i, pcore_bucket(&l, hi - 1))
				TH_LOG("%s: hi - 1 = %llu", c->name, hi - 1);
		}
		prev_hi = hi;
	}
	ASSERT_EQ(last, pcore_bucket(&l, U64_MAX)) TH_LOG("%s", c->name);

	for (v = 0; v <= 100000; v++)
		check_value(_metadata, c, &l, v);
	for (k = 0; k < 64; k++) {
		check_value(_metadata, c, &l, P2(k) - 1);
		check_value(_metadata, c, &l, P2(k));
		check_value(_metadata, c, &l, P2(k) + 1);
	}
	check_value(_metadata, c, &l, U64_MAX - 1);
	check_value(_metadata, c, &l, U64_MAX);
	for (k = 0; k < 100000; k++) {
		check_value(_metadata, c, &l, rng_next(&r));
		check_value(_metadata, c, &l, rng_mag(&r));
	}
}

static void check_layouts_of(struct __test_metadata *_metadata, u32 kind)
{
	size_t i, n = 0;

	for (i = 0; i < NLCASES; i++) {
		if (lcases[i].spec.kind != kind)
			continue;
		check_layout(_metadata, &lcases[i], SEED + i);
		n++;
	}
	ASSERT_LT(0U, n);
}

TEST(bucket_bounds_log2)
{
	check_layouts_of(_metadata, PCORE_HIST_LOG2);
}

TEST(bucket_bounds_linear)
{
	check_layouts_of(_metadata, PCORE_HIST_LINEAR);
}

TEST(bucket_bounds_loglinear)
{
	check_layouts_of(_metadata, PCORE_HIST_LOGLINEAR);
}

TEST(bucket_bounds_exp)
{
	check_layouts_of(_metadata, PCORE_HIST_EXP);
}

/* A value and the bucket it falls in; a bucket and its bounds [lo, hi). */
struct at {
	u64 v;
	u32 b;
};

struct bounds {
	u32 b;
	u64 lo, hi;
};

static void buckets_are(struct __test_metadata *_metadata,
			const struct pcore_layout *l, const struct at *at,
			size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		ASSERT_EQ(at[i].b, pcore_bucket(l, at[i].v))
			TH_LOG("value %llu", (unsigned long long)at[i].v);
	}
}

static void bounds_are(struct __test_metadata *_metadata,
		       const struct pcore_layout *l, const struct bounds *bd,
		       size_t n)
{
	u64 lo, hi;
	size_t i;

	for (i = 0; i < n; i++) {
		pcore_bucket_bounds(l, bd[i].b, &lo, &hi);
		ASSERT_EQ(bd[i].lo, lo) TH_LOG("bucket %u", bd[i].b);
		ASSERT_EQ(bd[i].hi, hi) TH_LOG("bucket %u", bd[i].b);
	}
}

/* Each { value, bucket } in @l; each { bucket, lo, hi } of @l. */
#define BUCKETS_ARE(l, ...) do {					\
	static const struct at at_[] = { __VA_ARGS__ };			\
									\
	buckets_are(_metadata, l, at_, ARRAY_SIZE(at_));		\
} while (0)

#define BOUNDS_ARE(l, ...) do {						\
	static const struct bounds bd_[] = { __VA_ARGS__ };		\
									\
	bounds_are(_metadata, l, bd_, ARRAY_SIZE(bd_));			\
} while (0)

/* log2 bucket i holds [2^(i-1), 2^i): the number of significant bits */
TEST(log2_bucket_is_bit_length)
{
	struct pcore_hist_spec spec = LOG2();
	struct rng r = rng_init(SEED);
	struct pcore_layout l;
	const char *why;
	u32 bits;
	u64 v;
	int k;

	ASSERT_EQ(0, pcore_layout_init(&l, &spec, &why));
	BUCKETS_ARE(&l, { 0, 0 }, { 1, 1 }, { 2, 2 }, { 3, 2 }, { 1023, 10 },
		    { 1024, 11 }, { P2(63), 64 }, { U64_MAX, 64 });
	for (k = 0; k < 200000; k++) {
		v = k < 100000 ? (u64)k : rng_mag(&r);
		for (bits = 0; bits < 64 && v >> bits; bits++)
			;
		ASSERT_EQ(bits, pcore_bucket(&l, v)) TH_LOG("value %llu", v);
	}
}

/* ---- linear: reciprocal division against plain division ---- */

static u32 linear_ref(u64 min, u64 step, u64 n, u64 v)
{
	if (v < min)
		return 0;
	if (v - min >= step * n)
		return n + 1;
	return 1 + (v - min) / step;
}

static void check_linear(struct __test_metadata *_metadata, struct rng *r,
			 u64 min, u64 step, u64 n, const char *what)
{
	struct pcore_hist_spec spec = LIN(min, step, n);
	struct pcore_layout l;
	const char *why = NULL;
	u64 q, base, v, j;
	int d;

	ASSERT_EQ(0, pcore_layout_init(&l, &spec, &why))
		TH_LOG("%s: min %llu step %llu n %llu: %s",
		       what, min, step, n, why);
	ASSERT_EQ(n + 2, l.nbuckets);
	/* powers of two shift, everything else takes the reciprocal */
	ASSERT_EQ(!(step & (step - 1)), l.shift < 64)
		TH_LOG("%s: step %llu shift %u", what, step, l.shift);
	for (j = 0; j < n + 1 && j < 80; j++) {
		/* every boundary when n is small, else the ends and a sample */
		if (n < 80)
			q = j;
		else if (j < 3)
			q = j;
		else if (j < 6)
			q = n - (j - 3);
		else
			q = rng_below(r, n + 1);
		base = min + q * step;
		for (d = -1; d <= 1; d++) {
			if ((d < 0 && base == 0) || (d > 0 && base == U64_MAX))
				continue;
			v = base + d;
			ASSERT_EQ(linear_ref(min, step, n, v),
				  pcore_bucket(&l, v))
				TH_LOG("%s: min %llu step %llu n %llu value %llu",
				       what, min, step, n, v);
		}
	}
	for (j = 0; j < 40; j++) {
		v = j < 32 ? min + rng_below(r, step * n) : rng_next(r);
		ASSERT_EQ(linear_ref(min, step, n, v), pcore_bucket(&l, v))
			TH_LOG("%s: min %llu step %llu n %llu value %llu",
			       what, min, step, n, v);
	}
}

TEST(linear_named_steps_match_division)
{
	static const u64 steps[] = {
		1, 2, 3, 7, 1000, 1024, 999999937, 1000000007, P2(32) - 1,
		P2(53) + 3, P2(62) + 1, P2(63) - 1, P2(63), P2(63) + 1,
		P2(63) + 12345, U64_MAX / 2046, U64_MAX - 1, U64_MAX,
	};
	struct rng r = rng_init(SEED);
	u64 step, nmax, ns[4], mins[4];
	char what[64];
	size_t i, a, b;

	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		step = steps[i];
		nmax = U64_MAX / step;
		if (nmax > PCORE_MAX_BUCKETS - 2)
			nmax = PCORE_MAX_BUCKETS - 2;
		ns[0] = 1;
		ns[1] = nmax < 2 ? 1 : 2;
		ns[2] = nmax < 7 ? nmax : 7;
		ns[3] = nmax;
		for (a = 0; a < 4; a++) {
			mins[0] = 0;
			mins[1] = U64_MAX - ns[a] * step ? 1 : 0;
			mins[2] = sat_sub(U64_MAX - ns[a] * step, 12345);
			mins[3] = U64_MAX - ns[a] * step;
			for (b = 0; b < 4; b++) {
				snprintf(what, sizeof(what), "step #%zu", i);
				check_linear(_metadata, &r, mins[b], step,
					     ns[a], what);
			}
		}
	}
}

TEST(linear_random_steps_match_division)
{
	struct rng r = rng_init(SEED);
	u64 step, n, nmax, min;
	char what[64];
	int k;

	for (k = 0; k < 4000; k++) {
		switch (k % 5) {
		case 0:		/* small */
			step = 1 + rng_below(&r, 5000);
			break;
		case 1:		/* any magnitude */
			step = rng_mag(&r) | 1;
			break;
		case 2:		/* near 2^63 */
			step = P2(63) - P2(20) + rng_below(&r, P2(21));
			break;
		case 3:		/* as wide as the whole range allows */
			step = U64_MAX / (1 + rng_below(&r, 2046));
			step -= rng_below(&r, step < 1000 ? step : 1000);
			break;
		default:	/* any 64-bit step */
			step = rng_next(&r) | 1;
			break;
		}
		nmax = U64_MAX / step;
		if (nmax > PCORE_MAX_BUCKETS - 2)
			nmax = PCORE_MAX_BUCKETS - 2;
		n = k % 3 ? nmax - rng_below(&r, nmax) : nmax;
		switch (rng_below(&r, 3)) {
		case 0:
			min = 0;
			break;
		case 1:
			min = U64_MAX - n * step;
			break;
		default:
			min = rng_below(&r, U64_MAX - n * step + 1);
			break;
		}
		snprintf(what, sizeof(what), "seed %#llx case %d", SEED, k);
		check_linear(_metadata, &r, min, step, n, what);
	}
}

TEST(linear_under_and_overflow)
{
	struct pcore_hist_spec s = LIN(1000ULL, 10ULL, 100);
	struct pcore_hist_spec s7 = LIN(1000ULL, 7ULL, 100);
	struct pcore_layout l;
	const char *why;

	ASSERT_EQ(0, pcore_layout_init(&l, &s, &why));
	ASSERT_EQ(102U, l.nbuckets);
	BUCKETS_ARE(&l, { 0, 0 }, { 999, 0 }, { 1000, 1 }, { 1009, 1 },
		    { 1010, 2 }, { 1999, 100 }, { 2000, 101 }, { U64_MAX, 101 });
	BOUNDS_ARE(&l, { 0, 0, 1000 }, { 1, 1000, 1010 }, { 101, 2000, U64_MAX });

	ASSERT_EQ(0, pcore_layout_init(&l, &s7, &why));
	ASSERT_EQ(102U, l.nbuckets);
	BUCKETS_ARE(&l, { 999, 0 }, { 1006, 1 }, { 1007, 2 }, { 1699, 100 },
		    { 1700, 101 });
}

/* ---- loglinear ---- */

/* Each precision with the widest accepted maxima among a few. */
static const u64 loglin_maxes[] = { U64_MAX, 0, P2(40), P2(30), P2(20),
				    1000, 5, 1 };

/* hi - lo, where the hi of U64_MAX of the top bucket stands for 2^64 */
static __uint128_t width_of(const struct pcore_layout *l, u32 i,
				  u64 lo, u64 hi)
{
	if (l->kind == PCORE_HIST_LOGLINEAR && i == loglin_top(l->prec))
		return ((__uint128_t)1 << 64) - lo;
	return hi - lo;
}

TEST(loglinear_relative_width)
{
	struct pcore_hist_spec spec;
	struct pcore_layout l;
	const char *why;
	u32 p, i, accepted;
	bool tight;
	size_t m;
	u64 lo, hi;

	for (p = 1; p <= PCORE_LOGLIN_MAX_PRECISION; p++) {
		accepted = 0;
		for (m = 0; m < ARRAY_SIZE(loglin_maxes); m++) {
			spec = (struct pcore_hist_spec)LOGLIN(p, loglin_maxes[m]);
			if (pcore_layout_init(&l, &spec, &why))
				continue;
			accepted++;
			tight = false;
			for (i = 0; i < l.nbuckets; i++) {
				if (is_overflow(&l, i))
					continue;
				pcore_bucket_bounds(&l, i, &lo, &hi);
				if (lo < P2(p)) {	/* one value each */
					ASSERT_EQ(i, lo);
					ASSERT_EQ(lo + 1, hi);
					continue;
				}
				ASSERT_TRUE(width_of(&l, i, lo, hi) << p <= lo)
					TH_LOG("p%u max %llu: bucket %u [%llu, %llu)",
					       p, spec.max, i, lo, hi);
				if (width_of(&l, i, lo, hi) << p == lo)
					tight = true;
			}
			if (l.nbuckets > P2(p) + 1) {
				ASSERT_TRUE(tight)
					TH_LOG("p%u: no bucket as wide as 1/2^%u",
					       p, p);
			}
		}
		ASSERT_LE(3U, accepted) TH_LOG("p%u", p);
	}
}

/* Every power of two from 2^precision on is split into 2^precision. */
TEST(loglinear_octaves)
{
	struct pcore_hist_spec spec;
	struct pcore_layout l;
	const char *why;
	u32 p, k, j, b;
	size_t m;

	for (p = 1; p <= PCORE_LOGLIN_MAX_PRECISION; p++) {
		for (m = 0; m < ARRAY_SIZE(loglin_maxes); m++) {
			spec = (struct pcore_hist_spec)LOGLIN(p, loglin_maxes[m]);
			if (!pcore_layout_init(&l, &spec, &why))
				break;
		}
		ASSERT_LT(m, 5U) TH_LOG("p%u: no big layout accepted", p);
		for (k = 0; k < P2(p) && k < l.nbuckets - 1; k++) {
			ASSERT_EQ(k, pcore_bucket(&l, k))
				TH_LOG("p%u", p);
		}
		for (k = p; k < 64; k++) {
			/* stop at the first octave reaching the overflow */
			if (is_overflow(&l, pcore_bucket(&l, (P2(k) - 1) * 2 + 1)))
				break;
			b = pcore_bucket(&l, P2(k));
			ASSERT_EQ(P2(p) * (k - p + 1), b) TH_LOG("p%u 2^%u", p, k);
			for (j = 0; j < P2(p); j++) {
				ASSERT_EQ(b + j, pcore_bucket(&l, P2(k) +
							      j * P2(k - p)))
					TH_LOG("p%u 2^%u sub %u", p, k, j);
			}
		}
		ASSERT_LE(20U, k) TH_LOG("p%u", p);
	}
}

/* ---- record, merge, harvest ---- */

TEST(record_count_sum_min_max)
{
	struct pcore_hist_spec spec = LOGLIN(0, 0ULL);
	struct pcore_cpu_hist *c;
	struct pcore_layout l;
	const char *why;
	u64 v;

	ASSERT_EQ(0, pcore_layout_init(&l, &spec, &why));
	c = cpu_new(&l);
	ASSERT_NE(NULL, c);
	cpu_is_empty(_metadata, "new", &l, c);

	pcore_record(&l, c, 5);
	pcore_record(&l, c, 3);
	pcore_record(&l, c, 9);
	ASSERT_EQ(3ULL, pcore_cpu_hist_count(&l, c));
	ASSERT_EQ(17ULL, pcore_ctr_read(&c->sum));
	ASSERT_EQ(3ULL, pcore_ctr_read(&c->min));
	ASSERT_EQ(9ULL, pcore_ctr_read(&c->max));
	ASSERT_EQ(1ULL, pcore_ctr_read(&c->b[3]));
	ASSERT_EQ(1ULL, pcore_ctr_read(&c->b[5]));
	ASSERT_EQ(1ULL, pcore_ctr_read(&c->b[9]));
	ASSERT_EQ(0ULL, pcore_ctr_read(&c->b[4]));

	/* the sum wraps modulo 2^64 */
	pcore_record(&l, c, U64_MAX);
	pcore_record(&l, c, U64_MAX);
	ASSERT_EQ(5ULL, pcore_cpu_hist_count(&l, c));
	ASSERT_EQ(15ULL, pcore_ctr_read(&c->sum));
	ASSERT_EQ(U64_MAX, pcore_ctr_read(&c->max));
	ASSERT_EQ(2ULL, pcore_ctr_read(&c->b[619]));
	pcore_record(&l, c, 0);
	ASSERT_EQ(0ULL, pcore_ctr_read(&c->min));
	ASSERT_EQ(1ULL, pcore_ctr_read(&c->b[0]));

	/* the empty values of min and max are values too */
	pcore_cpu_hist_init(&l, c);
	pcore_record(&l, c, U64_MAX);
	ASSERT_EQ(U64_MAX, pcore_ctr_read(&c->min));
	ASSERT_EQ(U64_MAX, pcore_ctr_read(&c->max));
	ASSERT_EQ(1ULL, pcore_cpu_hist_count(&l, c));
	pcore_cpu_hist_init(&l, c);
	pcore_record(&l, c, 0);
	ASSERT_EQ(0ULL, pcore_ctr_read(&c->min));
	ASSERT_EQ(0ULL, pcore_ctr_read(&c->max));
	ASSERT_EQ(1ULL, pcore_cpu_hist_count(&l, c));

	pcore_cpu_hist_init(&l, c);
	for (v = 1000; v >= 1; v--)
		pcore_record(&l, c, v);
	ASSERT_EQ(1000ULL, pcore_cpu_hist_count(&l, c));
	ASSERT_EQ(500500ULL, pcore_ctr_read(&c->sum));
	ASSERT_EQ(1ULL, pcore_ctr_read(&c->min));
	ASSERT_EQ(1000ULL, pcore_ctr_read(&c->max));
	free(c);
}

TEST(record_percpu_merge_equals_total)
{
	struct pcore_cpu_hist *cpu[NCPU], *all;
	struct pcore_snap *a, *b, *m, *one;
	struct pcore_layout l;
	struct ref ref;
	struct rng r;
	size_t ci;
	char what[96];
	u64 v;
	int k, j;

	for (ci = 0; ci < NLCASES; ci++) {
		r = lc_start(_metadata, ci, &l);
		for (j = 0; j < NCPU; j++) {
			cpu[j] = cpu_new(&l);
			ASSERT_NE(NULL, cpu[j]);
		}
		all = cpu_new(&l);
		ref_init(&ref, &l);
		ASSERT_TRUE(snaps_new(&l, &a, &b, &m, &one, NULL) && all &&
			    ref.lo && ref.b);

		for (k = 0; k < 20000; k++) {
			v = rand_value(&r, &l);
			pcore_record(&l, cpu[rng_below(&r, NCPU)], v);
			pcore_record(&l, all, v);
			ref_add(&ref, v);
		}
		ASSERT_EQ(20000ULL, ref.count);

		snprintf(what, sizeof(what), "%s: CPUs added", lcases[ci].name);
		for (j = 0; j < NCPU; j++)
			pcore_snap_add_cpu(a, cpu[j]);
		snap_equals_ref(_metadata, what, a, &ref);

		snprintf(what, sizeof(what), "%s: one CPU", lcases[ci].name);
		pcore_snap_add_cpu(b, all);
		snap_equals_ref(_metadata, what, b, &ref);

		snprintf(what, sizeof(what), "%s: snaps merged",
			 lcases[ci].name);
		for (j = 0; j < NCPU; j++) {
			pcore_snap_init(&l, one);
			pcore_snap_add_cpu(one, cpu[j]);
			ASSERT_LT(3000ULL, one->count);
			pcore_snap_merge(m, one);
		}
		snap_equals_ref(_metadata, what, m, &ref);

		/* reading does not change what is read */
		pcore_snap_init(&l, a);
		for (j = 0; j < NCPU; j++)
			pcore_snap_add_cpu(a, cpu[j]);
		snap_equals_ref(_metadata, what, a, &ref);

		for (j = 0; j < NCPU; j++)
			free(cpu[j]);
		free(all);
		free(a);
		free(b);
		free(m);
		free(one);
		ref_free(&ref);
	}
}

TEST(harvest_returns_recorded_and_empties)
{
	struct pcore_cpu_hist *c;
	struct pcore_snap *s;
	struct pcore_layout l;
	struct ref ref;
	struct rng r;
	size_t ci;
	int k;

	for (ci = 0; ci < NLCASES; ci++) {
		r = lc_start(_metadata, ci, &l);
		ref_init(&ref, &l);
		c = cpu_new(&l);
		s = snap_new(&l);
		ASSERT_TRUE(c && s && ref.lo && ref.b);

		/* the extremes, so that the next interval must reset them */
		pcore_record(&l, c, 0);
		pcore_record(&l, c, U64_MAX);
		ref_add(&ref, 0);
		ref_add(&ref, U64_MAX);
		for (k = 0; k < 5000; k++) {
			u64 v = rand_value(&r, &l);

			pcore_record(&l, c, v);
			ref_add(&ref, v);
		}
		pcore_cpu_harvest(c, s);
		snap_equals_ref(_metadata, lcases[ci].name, s, &ref);
		cpu_is_empty(_metadata, lcases[ci].name, &l, c);

		/* an empty interval adds nothing */
		pcore_cpu_harvest(c, s);
		snap_equals_ref(_metadata, lcases[ci].name, s, &ref);
		pcore_snap_init(&l, s);
		pcore_cpu_harvest(c, s);
		ref_clear(&ref);
		snap_equals_ref(_metadata, lcases[ci].name, s, &ref);

		/* the next interval holds only what came after */
		pcore_record(&l, c, 500);
		pcore_record(&l, c, 700);
		pcore_record(&l, c, 600);
		ref_add(&ref, 500);
		ref_add(&ref, 700);
		ref_add(&ref, 600);
		pcore_cpu_harvest(c, s);
		ASSERT_EQ(3ULL, s->count);
		ASSERT_EQ(1800ULL, s->sum);
		ASSERT_EQ(500ULL, s->min);
		ASSERT_EQ(700ULL, s->max);
		snap_equals_ref(_metadata, lcases[ci].name, s, &ref);
		cpu_is_empty(_metadata, lcases[ci].name, &l, c);

		free(c);
		free(s);
		ref_free(&ref);
	}
}

TEST(harvest_intervals_add_up)
{
	struct pcore_snap *iv, *sum, *tot;
	struct pcore_cpu_hist *c, *all;
	struct ref ref, iref;
	struct pcore_layout l;
	u64 count, v;
	struct rng r;
	char what[96];
	int k, i, n;
	size_t ci;

	for (ci = 0; ci < NLCASES; ci++) {
		r = lc_start(_metadata, ci, &l);
		c = cpu_new(&l);
		all = cpu_new(&l);
		ref_init(&ref, &l);
		ref_init(&iref, &l);
		ASSERT_TRUE(snaps_new(&l, &iv, &sum, &tot, NULL) && c && all &&
			    ref.lo && ref.b && iref.lo && iref.b);
		count = 0;
		for (i = 0; i < 40; i++) {
			/* every fifth interval is empty */
			n = i % 5 == 3 ? 0 : (int)rng_below(&r, 1500);
			ref_clear(&iref);
			for (k = 0; k < n; k++) {
				v = rand_value(&r, &l);
				pcore_record(&l, c, v);
				pcore_record(&l, all, v);
				ref_add(&ref, v);
				ref_add(&iref, v);
			}
			pcore_snap_init(&l, iv);
			pcore_cpu_harvest(c, iv);
			snprintf(what, sizeof(what), "%s: interval %d",
				 lcases[ci].name, i);
			snap_equals_ref(_metadata, what, iv, &iref);
			ASSERT_EQ((u64)n, iv->count);
			count += iv->count;
			pcore_snap_merge(sum, iv);
		}
		pcore_snap_add_cpu(tot, all);
		ASSERT_EQ(ref.count, count);
		snap_equals_ref(_metadata, lcases[ci].name, sum, &ref);
		snap_equals_ref(_metadata, lcases[ci].name, tot, &ref);

		free(c);
		free(all);
		free(iv);
		free(sum);
		free(tot);
		ref_free(&ref);
		ref_free(&iref);
	}
}

/* ---- percentiles ---- */

/* The exact nearest-rank percentile of sorted data: rank ceil(n * p). */
static u64 nearest_rank(const u64 *sorted, u64 n, u32 ppm)
{
	__uint128_t rank;

	if (ppm > MILLION)
		ppm = MILLION;
	rank = ((__uint128_t)n * ppm + MILLION - 1) / MILLION;
	return sorted[rank ? rank - 1 : 0];
}

/*
 * Asserts that the percentile of @s, holding the @n values of @sorted, is
 * the exact nearest-rank percentile within the layout's error bound.
 */
static void check_percentile(struct __test_metadata *_metadata,
			     const struct pcore_layout *l,
			     const struct pcore_snap *s, const u64 *sorted,
			     u64 n, u32 ppm, const char *what)
{
	u64 got = pcore_snap_percentile(l, s, ppm);
	u64 exact = nearest_rank(sorted, n, ppm), diff, abs_err;
	u32 i = pcore_bucket(l, exact), err;

	diff = got > exact ? got - exact : exact - got;
	err = pcore_layout_error_ppm(l, &abs_err);
	ASSERT_TRUE(sorted[0] <= got && got <= sorted[n - 1])
		TH_LOG("%s p%u ppm: %llu outside [%llu, %llu]",
		       what, ppm, got, sorted[0], sorted[n - 1]);
	if (is_underflow(l, i)) {
		ASSERT_EQ(sorted[0], got)
			TH_LOG("%s p%u ppm: exact %llu underflows",
			       what, ppm, exact);
	} else if (is_overflow(l, i)) {
		ASSERT_EQ(sorted[n - 1], got)
			TH_LOG("%s p%u ppm: exact %llu overflows",
			       what, ppm, exact);
	} else if (l->kind == PCORE_HIST_LINEAR) {
		ASSERT_LE(diff, abs_err)
			TH_LOG("%s p%u ppm: exact %llu got %llu, bound %llu",
			       what, ppm, exact, got, abs_err);
	} else if (l->kind == PCORE_HIST_EXP) {
		/* |got - exact| <= exact * err + 1/2 (integer rounding) */
		ASSERT_TRUE((__uint128_t)diff * 2 * MILLION <=
			    (__uint128_t)err * 2 * exact + MILLION)
			TH_LOG("%s p%u ppm: exact %llu got %llu, bound %u ppm + 1/2",
			       what, ppm, exact, got, err);
	} else {
		ASSERT_TRUE((__uint128_t)diff * MILLION <=
			    (__uint128_t)err * exact)
			TH_LOG("%s p%u ppm: exact %llu got %llu, bound %u ppm",
			       what, ppm, exact, got, err);
	}
}

/* Records @n values over NCPU CPUs and returns the merged snapshot. */
static struct pcore_snap *snap_of(const struct pcore_layout *l,
				  const u64 *v, u64 n, struct rng *r)
{
	struct pcore_cpu_hist *cpu[NCPU];
	struct pcore_snap *s = snap_new(l);
	bool ok = s;
	u64 k;
	int j;

	for (j = 0; j < NCPU; j++) {
		cpu[j] = cpu_new(l);
		ok = ok && cpu[j];
	}
	for (k = 0; ok && k < n; k++)
		pcore_record(l, cpu[r ? rng_below(r, NCPU) : k % NCPU], v[k]);
	for (j = 0; j < NCPU; j++) {
		if (ok)
			pcore_snap_add_cpu(s, cpu[j]);
		free(cpu[j]);
	}
	if (!ok) {
		free(s);
		return NULL;
	}
	return s;
}

/* The percentile of a few values, hand-checked. */
static u64 pct(const struct pcore_hist_spec *spec, const u64 *v, u64 n,
	       u32 ppm)
{
	struct pcore_layout l;
	struct pcore_snap *s;
	const char *why;
	u64 p;

	if (pcore_layout_init(&l, spec, &why))
		return 0xbad;
	s = snap_of(&l, v, n, NULL);
	if (!s)
		return 0xbad;
	p = pcore_snap_percentile(&l, s, ppm);
	free(s);
	return p;
}

TEST(percentile_nearest_rank_small_data)
{
	/* step 1: every value has its own bucket, answers are exact */
	static const struct pcore_hist_spec exact = LIN(0ULL, 1ULL, 2046);
	static const u64 d1[] = { 40, 15, 50, 35, 20 };
	static const u64 d2[] = { 20, 3, 16, 6, 15, 7, 13, 8, 10, 8 };
	static const u64 d3[] = { 1, 2, 1, 1, 1 };
	static const u64 d4[] = { 42 };

	ASSERT_EQ(15ULL, pct(&exact, d1, ARRAY_SIZE(d1), 0));
	ASSERT_EQ(15ULL, pct(&exact, d1, ARRAY_SIZE(d1), 1));
	ASSERT_EQ(15ULL, pct(&exact, d1, ARRAY_SIZE(d1), 50000));
	ASSERT_EQ(15ULL, pct(&exact, d1, ARRAY_SIZE(d1), 200000));
	ASSERT_EQ(20ULL, pct(&exact, d1, ARRAY_SIZE(d1), 200001));
	ASSERT_EQ(20ULL, pct(&exact, d1, ARRAY_SIZE(d1), 300000));
	ASSERT_EQ(20ULL, pct(&exact, d1, ARRAY_SIZE(d1), 400000));
	ASSERT_EQ(35ULL, pct(&exact, d1, ARRAY_SIZE(d1), 400001));
	ASSERT_EQ(35ULL, pct(&exact, d1, ARRAY_SIZE(d1), 500000));
	ASSERT_EQ(35ULL, pct(&exact, d1, ARRAY_SIZE(d1), 600000));
	ASSERT_EQ(40ULL, pct(&exact, d1, ARRAY_SIZE(d1), 600001));
	ASSERT_EQ(40ULL, pct(&exact, d1, ARRAY_SIZE(d1), 800000));
	ASSERT_EQ(50ULL, pct(&exact, d1, ARRAY_SIZE(d1), 800001));
	ASSERT_EQ(50ULL, pct(&exact, d1, ARRAY_SIZE(d1), 999999));
	ASSERT_EQ(50ULL, pct(&exact, d1, ARRAY_SIZE(d1), 1000000));

	ASSERT_EQ(3ULL, pct(&exact, d2, ARRAY_SIZE(d2), 100000));
	ASSERT_EQ(6ULL, pct(&exact, d2, ARRAY_SIZE(d2), 100001));
	ASSERT_EQ(7ULL, pct(&exact, d2, ARRAY_SIZE(d2), 250000));
	ASSERT_EQ(8ULL, pct(&exact, d2, ARRAY_SIZE(d2), 500000));
	ASSERT_EQ(15ULL, pct(&exact, d2, ARRAY_SIZE(d2), 750000));
	ASSERT_EQ(16ULL, pct(&exact, d2, ARRAY_SIZE(d2), 900000));
	ASSERT_EQ(20ULL, pct(&exact, d2, ARRAY_SIZE(d2), 900001));
	ASSERT_EQ(20ULL, pct(&exact, d2, ARRAY_SIZE(d2), 990000));

	ASSERT_EQ(1ULL, pct(&exact, d3, ARRAY_SIZE(d3), 0));
	ASSERT_EQ(1ULL, pct(&exact, d3, ARRAY_SIZE(d3), 800000));
	ASSERT_EQ(2ULL, pct(&exact, d3, ARRAY_SIZE(d3), 800001));

	ASSERT_EQ(42ULL, pct(&exact, d4, ARRAY_SIZE(d4), 0));
	ASSERT_EQ(42ULL, pct(&exact, d4, ARRAY_SIZE(d4), 500000));
	ASSERT_EQ(42ULL, pct(&exact, d4, ARRAY_SIZE(d4), 1000000));
}

TEST(percentile_bucket_middle_clamped)
{
	static const struct pcore_hist_spec loglin = LOGLIN(0, 0ULL);
	static const struct pcore_hist_spec lin = LIN(0ULL, 1000ULL, 1000);
	static const u64 d2[] = { 1000, 1000, 1000, 5000 };
	static const u64 d3[] = { 1100, 1200, 1300, 1900, 7000 };
	static const u64 d4[] = { 1700, 1800 };

	/* loglinear p4: [992, 1024) -> 1008, [4864, 5120) -> 4992 */
	ASSERT_EQ(1008ULL, pct(&loglin, d2, ARRAY_SIZE(d2), 500000));
	ASSERT_EQ(4992ULL, pct(&loglin, d2, ARRAY_SIZE(d2), 1000000));
	/* linear: [1000, 2000) -> 1500, clamped to min 1100 and max 1900 */
	ASSERT_EQ(1500ULL, pct(&lin, d3, ARRAY_SIZE(d3), 500000));
	ASSERT_EQ(1500ULL, pct(&lin, d3, ARRAY_SIZE(d3), 800000));
	/*
	 * p0 and p20, 1100: the sum (5500) puts the least of the bucket's
	 * four values at or below 5500 / 4 = 1375, closer than 1500
	 */
	ASSERT_EQ(1375ULL, pct(&lin, d3, ARRAY_SIZE(d3), 200000));
	ASSERT_EQ(1375ULL, pct(&lin, d3, ARRAY_SIZE(d3), 0));
	ASSERT_EQ(7000ULL, pct(&lin, d3, ARRAY_SIZE(d3), 1000000));	/* not 7500 */
	ASSERT_EQ(1200ULL, pct(&lin, d3, 2, 1000000));		/* not 1500 */
	ASSERT_EQ(1700ULL, pct(&lin, d4, ARRAY_SIZE(d4), 0));		/* not 1500 */
	ASSERT_EQ(1100ULL, pct(&lin, d3, 1, 0));
}

/*
 * log2: by rank between the bucket's lower end (or the min) and its upper
 * end (or the max), never above 1.5 times the lower end.
 */
TEST(percentile_log2_interpolated)
{
	static const struct pcore_hist_spec log2 = LOG2();
	static const u64 d1[] = { 1, 2, 3, 100 };
	u64 d2[66], d3[11], d4[9], k;

	/* {1}, then [2, 4) holds 2 and 3: its first and last, exactly */
	ASSERT_EQ(1ULL, pct(&log2, d1, ARRAY_SIZE(d1), 250000));
	ASSERT_EQ(2ULL, pct(&log2, d1, ARRAY_SIZE(d1), 500000));
	ASSERT_EQ(3ULL, pct(&log2, d1, ARRAY_SIZE(d1), 750000));
	/*
	 * 100, alone in [64, 128) with the max: interpolated to 100, cut at
	 * 96, then raised to 100 by the sum (106, of which 1, 2 and 3 are
	 * at most 7), which puts it in [99, 100] and the cut at 148
	 */
	ASSERT_EQ(100ULL, pct(&log2, d1, ARRAY_SIZE(d1), 1000000));

	/* show_log2's sizes: 0, 1, 100, 50 x 1448, 10 x 4096, 3 x 65536 */
	d2[0] = 0;
	d2[1] = 1;
	d2[2] = 100;
	for (k = 3; k < 53; k++)
		d2[k] = 1448;
	for (; k < 63; k++)
		d2[k] = 4096;
	for (; k < 66; k++)
		d2[k] = 65536;
	/* rank 7, the 4th of 50 in [1024, 2048): 1024 + 1023 * 3/49 */
	ASSERT_EQ(1086ULL, pct(&log2, d2, 66, 100000));
	/* rank 33, the 30th: 1024 + 1023 * 29/49 = 1629, cut at 1536 */
	ASSERT_EQ(1536ULL, pct(&log2, d2, 66, 500000));
	/* rank 60, the 7th of 10 in [4096, 8192): 6826, cut at 6144 */
	ASSERT_EQ(6144ULL, pct(&log2, d2, 66, 900000));
	/* the max's bucket holds only the max: 65536 */
	ASSERT_EQ(65536ULL, pct(&log2, d2, 66, 990000));

	/* 10 x 4096 and 32000: the first of the bucket is the min */
	for (k = 0; k < 10; k++)
		d3[k] = 4096;
	d3[10] = 32000;
	ASSERT_EQ(4096ULL, pct(&log2, d3, 11, 0));
	ASSERT_EQ(4096ULL, pct(&log2, d3, 11, 90000));
	/* rank 2, the 2nd of 10: 4096 + 4095 / 9 */
	ASSERT_EQ(4551ULL, pct(&log2, d3, 11, 180000));
	ASSERT_EQ(6144ULL, pct(&log2, d3, 11, 900000));
	/* every value 4096: min and max give it exactly */
	ASSERT_EQ(4096ULL, pct(&log2, d3, 10, 500000));
	ASSERT_EQ(4096ULL, pct(&log2, d3, 10, 1000000));

	/* the min and max narrow the bucket: 1100..1300 in [1024, 2048) */
	for (k = 0; k < 9; k++)
		d4[k] = 1100 + 25 * k;
	ASSERT_EQ(1100ULL, pct(&log2, d4, 9, 0));
	ASSERT_EQ(1200ULL, pct(&log2, d4, 9, 500000));
	ASSERT_EQ(1300ULL, pct(&log2, d4, 9, 1000000));
	/* one value in the middle bucket, neither min nor max: the middle */
	d4[0] = 10;
	d4[1] = 3000;
	d4[2] = 100000;
	ASSERT_EQ(3072ULL, pct(&log2, d4, 3, 500000));
}

/*
 * Many values of exactly one size beside a few others (issue 24): 200
 * mallocs of 24 bytes, calls of exactly 100000 bytes.  Interpolation alone
 * answered p50 21 for the 24s, and p50 82681, p99 and p999 98304 (even
 * p100 98304, beside max 100000) for the 100000s; the sum tells the
 * bucket's mean, and the percentiles are the value itself.
 */
TEST(percentile_exact_values)
{
	static const struct pcore_hist_spec log2 = LOG2();
	static const struct pcore_hist_spec loglin = LOGLIN(0, 0ULL);
	static const u32 ppms[] = { 500000, 990000, 999000 };
	u64 *d = malloc(2000 * sizeof(*d)), k, n = 0;

	ASSERT_NE(NULL, d);
	for (k = 0; k < 50; k++)
		d[n++] = 3 + k % 5;
	for (k = 0; k < 200; k++)
		d[n++] = 24;
	for (k = 0; k < 10; k++)
		d[n++] = 1024;
	/* p50 is the 80th of 200 in [16, 32), p90 the 184th */
	EXPECT_EQ(24ULL, pct(&log2, d, n, 500000));
	EXPECT_EQ(24ULL, pct(&log2, d, n, 900000));
	EXPECT_EQ(1024ULL, pct(&log2, d, n, 999000));
	EXPECT_EQ(24ULL, pct(&loglin, d, n, 900000));	/* exact below 32 */

	n = 0;
	d[n++] = 1;
	d[n++] = 5;
	d[n++] = 300;
	d[n++] = 7000;
	for (k = 0; k < 1000; k++)
		d[n++] = 100000;
	/*
	 * within 0.01%: the others (300 in [256, 512), 7000 in [4096,
	 * 8192)) leave the sum 4350 of doubt, 4 per value of 100000
	 */
	for (k = 0; k < ARRAY_SIZE(ppms); k++) {
		EXPECT_GE(100000ULL, pct(&log2, d, n, ppms[k]));
		EXPECT_LE(99990ULL, pct(&log2, d, n, ppms[k]))
			TH_LOG("p%u ppm", ppms[k]);
	}
	EXPECT_EQ(100000ULL, pct(&log2, d, n, MILLION));
	EXPECT_EQ(100000ULL, pct(&loglin, d, n, 990000));
	free(d);
}

TEST(percentile_under_and_overflow_give_min_max)
{
	static const struct pcore_hist_spec lin = LIN(1000ULL, 10ULL, 100);
	static const struct pcore_hist_spec loglin = LOGLIN(4, 1000ULL);
	static const u64 d1[] = { 10, 900, 1500, 2500, 9000 };
	static const u64 d2[] = { 5, 2000, 50000 };

	ASSERT_EQ(10ULL, pct(&lin, d1, ARRAY_SIZE(d1), 0));
	ASSERT_EQ(10ULL, pct(&lin, d1, ARRAY_SIZE(d1), 200000));
	ASSERT_EQ(10ULL, pct(&lin, d1, ARRAY_SIZE(d1), 400000));	/* 900 */
	ASSERT_EQ(1505ULL, pct(&lin, d1, ARRAY_SIZE(d1), 600000));
	ASSERT_EQ(9000ULL, pct(&lin, d1, ARRAY_SIZE(d1), 800000));	/* 2500 */
	ASSERT_EQ(9000ULL, pct(&lin, d1, ARRAY_SIZE(d1), 1000000));
	ASSERT_EQ(900ULL, pct(&lin, d1 + 1, 1, 500000));
	ASSERT_EQ(2500ULL, pct(&lin, d1 + 3, 1, 500000));

	ASSERT_EQ(5ULL, pct(&loglin, d2, ARRAY_SIZE(d2), 300000));
	ASSERT_EQ(50000ULL, pct(&loglin, d2, ARRAY_SIZE(d2), 500000));	/* 2000 */
	ASSERT_EQ(50000ULL, pct(&loglin, d2, ARRAY_SIZE(d2), 1000000));
}

/* Buckets ending at 2^64 or U64_MAX are in range: a middle, not the max. */
TEST(percentile_top_buckets)
{
	static const struct pcore_hist_spec specs[] = {
		LOG2(), LOGLIN(1, U64_MAX), LOGLIN(4, U64_MAX),
		LOGLIN(5, U64_MAX), LOGLIN(2, 3 * P2(62)),
		LIN(P2(63), P2(63) - 1, 1), LIN(1ULL, U64_MAX - 1, 1),
		LIN(U64_MAX - 2046 * 7, 7ULL, 2046),
	};
	struct pcore_layout l;
	struct pcore_snap *s;
	const char *why;
	u64 v[2], lo, hi;
	size_t i;
	u32 ppm;

	for (i = 0; i < ARRAY_SIZE(specs); i++) {
		ASSERT_EQ(0, pcore_layout_init(&l, &specs[i], &why));
		pcore_bucket_bounds(&l, pcore_bucket(&l, U64_MAX - 1),
				    &lo, &hi);
		v[0] = lo;
		v[1] = U64_MAX;
		s = snap_of(&l, v, 2, NULL);
		ASSERT_NE(NULL, s);
		for (ppm = 0; ppm <= MILLION; ppm += 250000)
			check_percentile(_metadata, &l, s, v, 2, ppm,
					 pcore_kind_name(l.kind));
		free(s);
	}
}

TEST(percentile_empty_is_zero)
{
	static const u32 ppms[] = { 0, 1, 500000, 999000, 1000000, U32_MAX };
	struct pcore_cpu_hist *c;
	struct pcore_layout l;
	struct pcore_snap *s;
	size_t ci, j;

	for (ci = 0; ci < NLCASES; ci++) {
		lc_init(_metadata, &lcases[ci], &l);
		s = snap_new(&l);
		c = cpu_new(&l);
		ASSERT_TRUE(s && c);
		for (j = 0; j < ARRAY_SIZE(ppms); j++) {
			ASSERT_EQ(0ULL, pcore_snap_percentile(&l, s, ppms[j]))
				TH_LOG("%s", lcases[ci].name);
		}
		/* a harvest of nothing, and a harvested CPU, are empty too */
		pcore_cpu_harvest(c, s);
		for (j = 0; j < ARRAY_SIZE(ppms); j++) {
			ASSERT_EQ(0ULL, pcore_snap_percentile(&l, s, ppms[j]))
				TH_LOG("%s", lcases[ci].name);
		}
		pcore_record(&l, c, 12345);
		pcore_cpu_harvest(c, s);
		pcore_snap_init(&l, s);
		pcore_snap_add_cpu(s, c);
		for (j = 0; j < ARRAY_SIZE(ppms); j++) {
			ASSERT_EQ(0ULL, pcore_snap_percentile(&l, s, ppms[j]))
				TH_LOG("%s", lcases[ci].name);
		}
		free(s);
		free(c);
	}
}

/* Ranks of huge counts: n * ppm does not fit in 64 bits. */
TEST(percentile_rank_of_huge_counts)
{
	static const struct pcore_hist_spec exact = LIN(0ULL, 1ULL, 2046);
	struct pcore_layout l;
	struct pcore_snap *s;
	const char *why;

	ASSERT_EQ(0, pcore_layout_init(&l, &exact, &why));
	s = snap_new(&l);
	ASSERT_NE(NULL, s);
	s->b[1] = P2(63) - 1;	/* value 0 */
	s->b[2] = 1;		/* value 1 */
	s->count = P2(63);
	s->min = 0;
	s->max = 1;
	ASSERT_EQ(0ULL, pcore_snap_percentile(&l, s, 500000));
	ASSERT_EQ(0ULL, pcore_snap_percentile(&l, s, 999999));
	ASSERT_EQ(1ULL, pcore_snap_percentile(&l, s, 1000000));

	s->b[1] = 1;
	s->b[2] = U64_MAX - 1;
	s->count = U64_MAX;
	ASSERT_EQ(0ULL, pcore_snap_percentile(&l, s, 0));
	ASSERT_EQ(1ULL, pcore_snap_percentile(&l, s, 1));

	/* exactly three quarters, then one ppm more */
	s->b[1] = 3000000000000ULL;
	s->b[2] = 1000000000000ULL;
	s->count = 4000000000000ULL;
	ASSERT_EQ(0ULL, pcore_snap_percentile(&l, s, 750000));
	ASSERT_EQ(1ULL, pcore_snap_percentile(&l, s, 750001));
	free(s);
}

TEST(percentile_ppm_above_million_is_max_rank)
{
	struct pcore_hist_spec spec = LOGLIN(0, 0ULL);
	struct rng r = rng_init(SEED);
	struct pcore_layout l;
	struct pcore_snap *s;
	const char *why;
	u64 v[1000];
	u32 k;

	ASSERT_EQ(0, pcore_layout_init(&l, &spec, &why));
	for (k = 0; k < ARRAY_SIZE(v); k++)
		v[k] = 100 + rng_below(&r, 100000000);
	s = snap_of(&l, v, ARRAY_SIZE(v), &r);
	ASSERT_NE(NULL, s);
	qsort(v, ARRAY_SIZE(v), sizeof(v[0]), cmp_u64);
	check_percentile(_metadata, &l, s, v, ARRAY_SIZE(v), 1000000, "p100");
	ASSERT_EQ(pcore_snap_percentile(&l, s, 1000000),
		  pcore_snap_percentile(&l, s, 1000001));
	ASSERT_EQ(pcore_snap_percentile(&l, s, 1000000),
		  pcore_snap_percentile(&l, s, U32_MAX));
	free(s);
}

TEST(error_bound_values)
{
	static const u32 want[] = { 250000, 125000, 62500, 31250, 15625,
				    7813, 3907 };
	struct pcore_hist_spec spec;
	struct pcore_layout l;
	const char *why;
	u64 abs_err;
	u32 p;

	spec = (struct pcore_hist_spec)LOG2();
	ASSERT_EQ(0, pcore_layout_init(&l, &spec, &why));
	abs_err = 99;
	ASSERT_EQ(500000U, pcore_layout_error_ppm(&l, &abs_err));
	ASSERT_EQ(0ULL, abs_err);
	for (p = 1; p <= 7; p++) {
		/* 1 / 2^(p + 1), rounded up to whole ppm */
		spec = (struct pcore_hist_spec)LOGLIN(p, 1000ULL);
		ASSERT_EQ(0, pcore_layout_init(&l, &spec, &why));
		abs_err = 99;
		ASSERT_EQ(want[p - 1], pcore_layout_error_ppm(&l, &abs_err))
			TH_LOG("p%u", p);
		ASSERT_EQ(0ULL, abs_err);
	}
	spec = (struct pcore_hist_spec)LIN(0ULL, 7ULL, 10);
	ASSERT_EQ(0, pcore_layout_init(&l, &spec, &why));
	ASSERT_EQ(0U, pcore_layout_error_ppm(&l, &abs_err));
	ASSERT_EQ(3ULL, abs_err);
	spec = (struct pcore_hist_spec)LIN(0ULL, 1000ULL, 10);
	ASSERT_EQ(0, pcore_layout_init(&l, &spec, &why));
	ASSERT_EQ(0U, pcore_layout_error_ppm(&l, &abs_err));
	ASSERT_EQ(500ULL, abs_err);
}

/*
 * The worst case of every bucket: data {lo, hi - 1}, whose p0 is lo and is
 * answered with the middle; of log2 buckets, which interpolate, data {lo,
 * lo, lo, hi - 1}, whose p75 is lo and is answered with 1.5 lo.  The bound
 * must hold for each.  Alone in the histogram, these values are pinned
 * down by the sum (narrow_by_sum()), so the bound must also hold, and be
 * reached, with two more values, the ends of the widest other bucket,
 * which leave the sum no say.
 */
static u64 edge_percentile(const struct pcore_layout *l, u32 b, u64 lo,
			   u64 hi, bool blur)
{
	u64 v[6], blo, bhi, wlo = 0, whi = 0, got;
	u32 n = l->kind == PCORE_HIST_LOG2 ? 4 : 2, j;
	struct pcore_snap *s;

	v[0] = lo;
	v[1] = hi - 1;
	if (l->kind == PCORE_HIST_LOG2) {
		v[1] = v[2] = lo;
		v[3] = hi - 1;
	}
	for (j = 0; blur && j < l->nbuckets; j++) {
		pcore_bucket_bounds(l, j, &blo, &bhi);
		if (j == b || bhi == U64_MAX || is_underflow(l, j) ||
		    is_overflow(l, j) || bhi - blo < 2 || blo < hi)
			continue;
		if (bhi - blo > whi - wlo) {
			wlo = blo;
			whi = bhi;
		}
	}
	if (whi) {
		v[n++] = wlo;
		v[n++] = whi - 1;
	}
	s = snap_of(l, v, n, NULL);
	if (!s)
		return 0;
	/* the values above the bucket do not move the rank: 3rd of 6 */
	got = pcore_snap_percentile(l, s, l->kind != PCORE_HIST_LOG2 ? 0 :
				    n == 4 ? 750000 : 500000);
	free(s);
	return got;
}

TEST(percentile_error_bound_holds_at_bucket_edges)
{
	struct pcore_hist_spec specs[2 + PCORE_LOGLIN_MAX_PRECISION] = {
		LOG2(), LIN(3ULL, 999999937ULL, 2000),
	};
	struct pcore_layout l;
	u64 lo, hi, got, abs_err;
	const char *why;
	bool reached;
	size_t i;
	u32 b, err;
	int blur;

	for (i = 2; i < ARRAY_SIZE(specs); i++)
		specs[i] = (struct pcore_hist_spec)LOGLIN((u32)i - 1, P2(20));
	for (i = 0; i < ARRAY_SIZE(specs); i++) {
		ASSERT_EQ(0, pcore_layout_init(&l, &specs[i], &why));
		err = pcore_layout_error_ppm(&l, &abs_err);
		reached = false;
		for (b = 0; b < l.nbuckets; b++) {
			pcore_bucket_bounds(&l, b, &lo, &hi);
			if (hi - lo < 2 || hi == U64_MAX ||
			    is_underflow(&l, b) || is_overflow(&l, b))
				continue;
			for (blur = 0; blur < 2; blur++) {
				got = edge_percentile(&l, b, lo, hi, blur);
				ASSERT_LE(lo, got);
				if (l.kind == PCORE_HIST_LINEAR) {
					ASSERT_LE(got - lo, abs_err)
						TH_LOG("bucket %u [%llu, %llu)",
						       b, lo, hi);
					reached |= got - lo == abs_err;
					continue;
				}
				ASSERT_TRUE((__uint128_t)(got - lo) * MILLION <=
					    (__uint128_t)err * lo)
					TH_LOG("%s p%u bucket %u [%llu, %llu): %llu, bound %u ppm",
					       pcore_kind_name(l.kind), l.prec, b,
					       lo, hi, got, err);
				/* reached within rounding to whole ppm */
				reached |= (__uint128_t)(got - lo) * MILLION >
					   (__uint128_t)(err - 1) * lo;
			}
		}
		ASSERT_TRUE(reached) TH_LOG("spec %zu: bound %u ppm loose",
					    i, err);
	}
}

/* ---- percentiles of random data against an exact sort ---- */

enum dist {
	D_UNIFORM, D_EXP, D_BIMODAL, D_CONST, D_SINGLE, D_TINY, D_LATENCY,
	D_ANY64, D_EDGES, NDIST
};

static const char * const dist_name[NDIST] = {
	"uniform", "exponential", "bimodal 1ms/10ms", "constant", "single",
	"tiny", "log-uniform 100ns..100ms", "any 64-bit", "bucket edges",
};

static u64 from_double(double d)
{
	return d >= 18446744073709549568.0 ? U64_MAX : d <= 0 ? 0 : (u64)d;
}

/* Fills @v with a dataset of kind @d; returns its size, 1 to @max_n. */
static u64 gen_dataset(struct rng *r, enum dist d,
		       const struct pcore_layout *l, u64 *v, u64 max_n)
{
	u64 n = 1 + rng_below(r, max_n), a, b, k, w, lo, hi;
	double scale;
	u32 pct_hi;

	switch (d) {
	case D_UNIFORM:
		if (l->kind == PCORE_HIST_LINEAR && rng_below(r, 2)) {
			/* the range and a little on each side */
			a = sat_sub(l->min, l->range / 8);
			b = sat_add(l->min + l->range, l->range / 8);
		} else {
			a = rng_mag(r);
			b = sat_add(a, rng_mag(r));
		}
		for (k = 0; k < n; k++)
			v[k] = a + rng_below(r, b - a + 1);
		break;
	case D_EXP:
		scale = (double)(rng_mag(r) | 1);
		for (k = 0; k < n; k++)
			v[k] = from_double(-log1p(-rng_unit(r)) * scale);
		break;
	case D_BIMODAL:
		/* 1 ms and 10 ms, +-7.5 %, 1 % to 50 % of them slow */
		pct_hi = 1 + rng_below(r, 50);
		for (k = 0; k < n; k++) {
			a = rng_below(r, 100) < pct_hi ? 10000000 : 1000000;
			w = a / 20;
			v[k] = a - w * 3 / 2 + rng_below(r, w) +
			       rng_below(r, w) + rng_below(r, w);
		}
		break;
	case D_CONST:
		a = rng_mag(r);
		for (k = 0; k < n; k++)
			v[k] = a;
		break;
	case D_SINGLE:
		n = 1;
		v[0] = rand_value(r, l);
		break;
	case D_TINY:
		n = 1 + rng_below(r, 5);
		for (k = 0; k < n; k++)
			v[k] = rand_value(r, l);
		break;
	case D_LATENCY:
		for (k = 0; k < n; k++)
			v[k] = from_double(100.0 * pow(10.0, 6 * rng_unit(r)));
		break;
	case D_ANY64:
		for (k = 0; k < n; k++)
			v[k] = rng_next(r);
		break;
	default:	/* D_EDGES: first and last values of buckets */
		for (k = 0; k < n; k++) {
			pcore_bucket_bounds(l, rng_below(r, l->nbuckets),
					    &lo, &hi);
			v[k] = rng_below(r, 2) || hi == lo ? lo : hi - 1;
			if (hi == U64_MAX && rng_below(r, 2))
				v[k] = U64_MAX;
		}
		break;
	}
	return n;
}

#define NDATASETS	6000
#define MAX_N		2000

TEST(percentile_random_datasets_within_bound)
{
	static const u32 ppms[] = { 0, 1, 500000, 900000, 990000, 999000,
				    1000000 };
	u64 *v = malloc(MAX_N * sizeof(*v)), n, seed;
	struct pcore_layout l;
	struct pcore_snap *s;
	const struct lcase *c;
	u32 nppm[NDIST] = { 0 };
	char what[192];
	struct rng r;
	enum dist d;
	size_t j;
	int k;

	ASSERT_NE(NULL, v);
	for (k = 0; k < NDATASETS; k++) {
		seed = SEED + k;
		r = rng_init(seed);
		d = k % NDIST;
		c = &lcases[rng_below(&r, NLCASES)];
		lc_init(_metadata, c, &l);
		n = gen_dataset(&r, d, &l, v, MAX_N);
		s = snap_of(&l, v, n, &r);
		ASSERT_NE(NULL, s);
		ASSERT_EQ(n, s->count);
		qsort(v, n, sizeof(*v), cmp_u64);
		snprintf(what, sizeof(what), "seed %#llx dataset %d (%s, %s, n %llu)",
			 seed, k, c->name, dist_name[d], n);
		for (j = 0; j <= ARRAY_SIZE(ppms); j++)
			check_percentile(_metadata, &l, s, v, n,
					 j < ARRAY_SIZE(ppms) ? ppms[j] :
					 (u32)rng_below(&r, MILLION + 1),
					 what);
		nppm[d] += j;
		free(s);
	}
	free(v);
	for (d = 0; d < NDIST; d++) {
		ASSERT_LT(NDATASETS / NDIST * ARRAY_SIZE(ppms), nppm[d])
			TH_LOG("%s: too few checks", dist_name[d]);
	}
}

/*
 * log2 against an exact sort: the answer is in the bucket of the exact
 * value, rises with the percentile, p0 is the min, and on data spread
 * over the buckets it is closer to the exact value than the middle of
 * the bucket was, in total.
 */
TEST(percentile_log2_property)
{
	static const struct pcore_hist_spec spec = LOG2();
	static const enum dist dists[] = { D_UNIFORM, D_EXP, D_LATENCY,
					   D_ANY64 };
	u64 *v = malloc(MAX_N * sizeof(*v)), n, got, prev, exact, mid, lo, hi;
	double err_interp = 0, err_mid = 0;
	struct pcore_layout l;
	struct pcore_snap *s;
	struct rng r;
	u32 ppm;
	int k;

	ASSERT_NE(NULL, v);
	ASSERT_EQ(0, pcore_layout_init(&l, &spec, &(const char *){ NULL }));
	for (k = 0; k < 2000; k++) {
		r = rng_init(SEED + 0x10000 + k);
		n = gen_dataset(&r, dists[k % ARRAY_SIZE(dists)], &l, v, MAX_N);
		s = snap_of(&l, v, n, &r);
		ASSERT_NE(NULL, s);
		qsort(v, n, sizeof(*v), cmp_u64);
		ASSERT_EQ(v[0], pcore_snap_percentile(&l, s, 0))
			TH_LOG("dataset %d, n %llu", k, n);
		prev = 0;
		for (ppm = 0; ppm <= MILLION; ppm += 10000) {
			got = pcore_snap_percentile(&l, s, ppm);
			exact = nearest_rank(v, n, ppm);
			ASSERT_EQ(pcore_bucket(&l, exact), pcore_bucket(&l, got))
				TH_LOG("dataset %d p%u ppm: %llu for %llu",
				       k, ppm, got, exact);
			ASSERT_LE(prev, got) TH_LOG("dataset %d p%u ppm", k, ppm);
			prev = got;
			check_percentile(_metadata, &l, s, v, n, ppm, "log2");
			/* the middle, clamped, as answered before */
			pcore_bucket_bounds(&l, pcore_bucket(&l, exact), &lo, &hi);
			mid = lo + (hi - lo) / 2;
			mid = mid > v[n - 1] ? v[n - 1] : mid < v[0] ? v[0] : mid;
			if (n >= 100) {
				err_interp += fabs((double)got - (double)exact) /
					      ((double)exact + 1);
				err_mid += fabs((double)mid - (double)exact) /
					   ((double)exact + 1);
			}
		}
		free(s);
	}
	free(v);
	TH_LOG("relative error summed: interpolated %.1f, middle %.1f",
	       err_interp, err_mid);
	ASSERT_LT(err_interp, err_mid * 0.9);
}

/* ---- display rows: adjacent buckets merged to fit ---- */

/*
 * For every layout and ranges of buckets: the rows are at most
 * PCORE_HIST_ROWS, as narrow as that allows, follow each other without a
 * gap, keep linear's underflow and every last bucket alone, and hold
 * exactly the values between their bounds; loglinear rows narrower than a
 * power of two stay inside one.
 */
TEST(rows_merge_exactly)
{
	u64 *v = malloc(MAX_N * sizeof(*v)), lo, hi, rlo, rhi, n, k, in;
	u32 first, last, i, start, end, nrows, rows, w, t;
	struct pcore_rows r, narrower;
	struct pcore_layout l;
	struct pcore_snap *s;
	struct rng rg;
	size_t ci;
	int round;

	ASSERT_NE(NULL, v);
	for (ci = 0; ci < NLCASES; ci++) {
		lc_init(_metadata, &lcases[ci], &l);
		for (round = 0; round < 40; round++) {
			rg = rng_init(SEED + 0x20000 + ci * 100 + round);
			n = gen_dataset(&rg, round % NDIST, &l, v, MAX_N);
			s = snap_of(&l, v, n, &rg);
			ASSERT_NE(NULL, s);
			for (first = 0; !s->b[first]; first++)
				;
			for (last = l.nbuckets - 1; !s->b[last]; last--)
				;
			rows = pcore_rows_plan(&r, l.kind, l.nbuckets, first,
					       last, PCORE_HIST_ROWS);
			ASSERT_LE(rows, (u32)PCORE_HIST_ROWS);
			ASSERT_TRUE(r.width && !(r.width & (r.width - 1)));
			if (r.width > 1) {
				narrower = r;
				narrower.width /= 2;
				for (nrows = 0, i = first; i <= last; i = end + 1) {
					pcore_row_of(&narrower, i, &start, &end);
					nrows++;
				}
				ASSERT_LT((u32)PCORE_HIST_ROWS, nrows)
					TH_LOG("%s: width %u not the narrowest",
					       lcases[ci].name, r.width);
			}
			nrows = 0;
			for (i = first; i <= last; i = end + 1) {
				pcore_row_of(&r, i, &start, &end);
				nrows++;
				ASSERT_LE(start, i);
				ASSERT_LE(i, end);
				ASSERT_TRUE(start == i || i == first);
				ASSERT_LT(end, l.nbuckets);
				if (end == l.nbuckets - 1 || is_underflow(&l, i))
					ASSERT_EQ(start, end);
				pcore_bucket_bounds(&l, start, &rlo, &hi);
				pcore_bucket_bounds(&l, end, &lo, &rhi);
				/* exactly the values between the bounds */
				for (in = 0, k = 0; k < n; k++)
					in += v[k] >= rlo && (v[k] < rhi ||
						(rhi == U64_MAX &&
						 pcore_bucket(&l, v[k]) <= end));
				for (w = 0, t = start; t <= end; t++)
					w += s->b[t];
				ASSERT_EQ(in, (u64)w)
					TH_LOG("%s: row [%llu, %llu)",
					       lcases[ci].name, rlo, rhi);
				if (l.kind == PCORE_HIST_LOGLINEAR &&
				    r.width <= l.nsub && rlo >= l.nsub &&
				    end + 1 < l.nbuckets)
					ASSERT_EQ(fls64(rlo), fls64(rhi - 1))
						TH_LOG("%s: row [%llu, %llu)",
						       lcases[ci].name, rlo, rhi);
			}
			ASSERT_EQ(rows, nrows);
			free(s);
		}
	}
	free(v);
}

/* The 5 us to 24 ms of the issue: 196 buckets, 25 rows of 2^P / 2. */
TEST(rows_of_a_wide_loglinear_range)
{
	static const struct pcore_hist_spec spec = LOGLIN(0, 0ULL);
	struct pcore_layout l;
	struct pcore_rows r;
	u32 first, last, start, end;
	u64 lo, hi;

	ASSERT_EQ(0, pcore_layout_init(&l, &spec, &(const char *){ NULL }));
	first = pcore_bucket(&l, 5000);
	last = pcore_bucket(&l, 24000000);
	ASSERT_EQ(196U, last - first + 1);
	ASSERT_EQ(25U, pcore_rows_plan(&r, l.kind, l.nbuckets, first, last,
				       PCORE_HIST_ROWS));
	ASSERT_EQ(8U, r.width);
	pcore_row_of(&r, first, &start, &end);
	pcore_bucket_bounds(&l, start, &lo, &hi);
	ASSERT_EQ(4096ULL, lo);
	pcore_bucket_bounds(&l, end, &lo, &hi);
	ASSERT_EQ(6144ULL, hi);
	/* no merging asked: every bucket a row */
	ASSERT_EQ(196U, pcore_rows_plan(&r, l.kind, l.nbuckets, first, last, 0));
	ASSERT_EQ(1U, r.width);
	/* first after last: nothing */
	ASSERT_EQ(0U, pcore_rows_plan(&r, l.kind, l.nbuckets, 5, 4, 40));
}

/* ---- count layouts: one bucket, no distribution ---- */

TEST(count_layout_one_bucket)
{
	static const u64 vals[] = { 0, 1, 2, 1000, P2(32), P2(63), U64_MAX - 1,
				    U64_MAX };
	const struct pcore_hist_spec spec = { .kind = PCORE_HIST_COUNT };
	const char *why = NULL;
	struct pcore_layout l;
	u64 lo, hi, abs_err = 1;
	size_t i;

	memset(&l, JUNK, sizeof(l));
	ASSERT_EQ(0, pcore_layout_init(&l, &spec, &why)) TH_LOG("%s", why);
	ASSERT_EQ((u32)PCORE_HIST_COUNT, l.kind);
	ASSERT_EQ(1U, l.nbuckets);
	for (i = 0; i < ARRAY_SIZE(vals); i++)
		EXPECT_EQ(0ULL, pcore_bucket(&l, vals[i]))
			TH_LOG("value %llu", (unsigned long long)vals[i]);
	pcore_bucket_bounds(&l, 0, &lo, &hi);
	EXPECT_EQ(0ULL, lo);
	EXPECT_EQ(U64_MAX, hi);
	EXPECT_EQ(0U, pcore_layout_error_ppm(&l, &abs_err));
	EXPECT_EQ(0ULL, abs_err);
}

/* The snapshot @s holds @count values summing to @sum, from @min to @max. */
#define EXPECT_SNAP(s, count_, sum_, min_, max_) do {			\
	EXPECT_EQ(count_, (s)->count);					\
	EXPECT_EQ(sum_, (s)->sum);					\
	EXPECT_EQ(min_, (s)->min);					\
	EXPECT_EQ(max_, (s)->max);					\
} while (0)

/*
 * Counted events (bucket 0 only, as pcore_hist_count() does) read as
 * values of 0, in a plain read and a harvest, alone or beside recorded
 * values; a count layout has no percentiles.
 */
TEST(count_events_read_as_zero)
{
	const struct pcore_hist_spec spec = { .kind = PCORE_HIST_COUNT };
	const char *why = NULL;
	struct pcore_cpu_hist *c;
	struct pcore_snap *s;
	struct pcore_layout l;
	int k;

	ASSERT_EQ(0, pcore_layout_init(&l, &spec, &why));
	c = cpu_new(&l);
	s = snap_new(&l);
	ASSERT_TRUE(c && s);
	for (k = 0; k < 1000; k++)
		pcore_ctr_add(&c->b[0], 1);
	pcore_snap_add_cpu(s, c);
	EXPECT_SNAP(s, 1000ULL, 0ULL, 0ULL, 0ULL);
	EXPECT_EQ(0ULL, pcore_snap_percentile(&l, s, 500000));
	pcore_snap_init(&l, s);
	pcore_cpu_harvest(c, s);
	EXPECT_EQ(1000ULL, s->count);
	EXPECT_EQ(0ULL, s->min);
	cpu_is_empty(_metadata, "count", &l, c);

	/* Recorded values keep their sum, min and max. */
	pcore_record(&l, c, 300);
	pcore_record(&l, c, 100);
	pcore_snap_init(&l, s);
	pcore_snap_add_cpu(s, c);
	EXPECT_SNAP(s, 2ULL, 400ULL, 100ULL, 300ULL);
	EXPECT_EQ(0ULL, pcore_snap_percentile(&l, s, 990000));
	/* U64_MAX recorded is not taken for a counted event. */
	pcore_cpu_harvest(c, s);
	pcore_snap_init(&l, s);
	pcore_record(&l, c, U64_MAX);
	pcore_snap_add_cpu(s, c);
	EXPECT_EQ(U64_MAX, s->min);
	EXPECT_EQ(U64_MAX, s->max);
	free(c);
	free(s);
}

/* ---- times for a person ---- */

static const char *fmt_ns(u64 ns, u64 res)
{
	static char buf[PCORE_FMT_NS_LEN];

	pcore_fmt_ns(buf, sizeof(buf), ns, res);
	return buf;
}

TEST(fmt_ns_scales)
{
	char small[6];

	/* issue 24's bound: [939524096ns, 1073741824ns) */
	ASSERT_STREQ("940 ms", fmt_ns(939524096ULL, 10000000));
	ASSERT_STREQ("939.5 ms", fmt_ns(939524096ULL, 100000));
	ASSERT_STREQ("1.07 s", fmt_ns(1073741824ULL, 10000000));
	ASSERT_STREQ("0 ns", fmt_ns(0, 1));
	ASSERT_STREQ("999 ns", fmt_ns(999, 1));
	ASSERT_STREQ("1.000 us", fmt_ns(1000, 1));
	ASSERT_STREQ("999 ns", fmt_ns(999, 100));	/* exact below 1 us */
	ASSERT_STREQ("1.00 ms", fmt_ns(999999, 10000));	/* rounds up a unit */
	ASSERT_STREQ("4.608 us", fmt_ns(4608, pcore_value_res(4608)));
	ASSERT_STREQ("20.00 us", fmt_ns(20000, pcore_value_res(20000)));
	ASSERT_STREQ("1.074 s", fmt_ns(1073741824ULL, pcore_value_res(1073741824ULL)));
	ASSERT_STREQ("3600 s", fmt_ns(3600000000000ULL, 1000000000ULL));
	ASSERT_STREQ("1.000000001 s", fmt_ns(1000000001ULL, 1));
	ASSERT_STREQ("1.05 ms", fmt_ns(1050000, 10000));
	ASSERT_STREQ("inf", fmt_ns(U64_MAX, 1));
	ASSERT_STREQ("18446744073.709551614 s", fmt_ns(U64_MAX - 1, 1));
	ASSERT_STREQ("18446744073.7 s", fmt_ns(U64_MAX - 1, 100000000));
	ASSERT_EQ(0U, pcore_fmt_ns(small, sizeof(small), 1000, 1));
	ASSERT_STREQ("", small);
	ASSERT_EQ(5U, pcore_fmt_ns(small, sizeof(small), 12, 1));
	ASSERT_STREQ("512 ns", fmt_ns(512, pcore_bound_res(256, 512)));
}

/* No two bounds of a layout print the same, in order of value. */
TEST(fmt_ns_bounds_apart)
{
	static const struct pcore_hist_spec specs[] = {
		LOG2(), LOGLIN(0, 0ULL), LOGLIN(7, P2(20)), LOGLIN(1, 0ULL),
		LIN(0ULL, 1000ULL, 2000), LIN(999999000ULL, 7ULL, 2000),
		LIN(5ULL, 3ULL, 1000),
	};
	char prev[PCORE_FMT_NS_LEN], cur[PCORE_FMT_NS_LEN];
	u64 lo, hi, plo, phi;
	struct pcore_layout l;
	const char *why;
	size_t i;
	u32 b;

	for (i = 0; i < ARRAY_SIZE(specs); i++) {
		ASSERT_EQ(0, pcore_layout_init(&l, &specs[i], &why));
		prev[0] = '\0';
		for (b = 0; b < l.nbuckets; b++) {
			pcore_bucket_bounds(&l, b, &lo, &hi);
			if (hi == lo)
				continue;	/* linear's empty underflow */
			plo = phi = 0;
			if (b)
				pcore_bucket_bounds(&l, b - 1, &plo, &phi);
			pcore_fmt_ns(cur, sizeof(cur), lo,
				     pcore_bound_res(phi - plo, hi - lo));
			ASSERT_STRNE(prev, cur) TH_LOG("spec %zu bucket %u", i, b);
			strcpy(prev, cur);
		}
	}
}

/* ---- the exponential kind against the native layout ---- */

/*
 * An independent reference for the native bucket index of v >= 1 in
 * schema S: bucket i holds (2^((i-1)/2^S), 2^(i/2^S)], so i is the
 * smallest integer with v^(2^S) <= 2^i: ceil(log2(v^(2^S))).  v^(2^S) is
 * squared S times in interval arithmetic: a lower and an upper bound, each
 * a 128-bit mantissa (top bit set) times 2^e, rounded down and up.  For v
 * not a power of two, v^(2^S) is not one either, so its ceil(log2) is
 * 128 + e when both bounds have the same e; the reference refuses (returns
 * -1) when they do not, which no tested value hits (the test asserts it).
 * No table, no floating point, nothing of the engine.
 */
struct xnum {
	__uint128_t m;
	int e;
};

/* @a squared, rounded down (@up 0) or up (@up 1) to 128 bits */
static struct xnum xsquare(struct xnum a, int up)
{
	u64 a1 = (u64)(a.m >> 64), a0 = (u64)a.m;
	__uint128_t p00 = (__uint128_t)a0 * a0, p01 = (__uint128_t)a0 * a1,
		    p11 = (__uint128_t)a1 * a1, mid, lo, hi, c;
	struct xnum r;
	bool sticky;

	/* a^2 = hi * 2^128 + lo, with mid = 2 * p01 spread over both */
	mid = p01 << 1;
	c = (p01 >> 127);			/* bit lost by the doubling */
	lo = p00 + (mid << 64);
	hi = p11 + (mid >> 64) + (c << 64) + (lo < p00);
	if (hi >> 127) {
		r.m = hi;
		r.e = 2 * a.e + 128;
		sticky = lo != 0;
	} else {
		r.m = hi << 1 | lo >> 127;
		r.e = 2 * a.e + 127;
		sticky = (lo << 1) != 0;
	}
	if (up && sticky) {
		r.m++;
		if (!r.m) {
			r.m = (__uint128_t)1 << 127;
			r.e++;
		}
	}
	return r;
}

static int exp_ref_index(u64 v, u32 schema)
{
	struct xnum lo, hi;
	int z;
	u32 k;

	if (v == 1)
		return 0;
	if (!(v & (v - 1)))	/* v = 2^k: v^(2^S) = 2^(k * 2^S) exactly */
		return (int)((63 - __builtin_clzll(v)) << schema);
	z = __builtin_clzll(v);
	lo.m = (__uint128_t)(v << z) << 64;
	lo.e = -64 - z;		/* v = m * 2^e, m in [2^127, 2^128) */
	hi = lo;
	for (k = 0; k < schema; k++) {
		lo = xsquare(lo, 0);
		hi = xsquare(hi, 1);
	}
	if (lo.e != hi.e)
		return -1;
	return 128 + lo.e;
}

/* The engine's native index of @v (>= 1): its bucket without clamping. */
static int exp_engine_index(u32 schema, u64 v)
{
	struct pcore_hist_spec spec = EXP(schema, 1ULL);
	struct pcore_layout l;
	const char *why;

	if (pcore_layout_init(&l, &spec, &why))
		return -2;
	l.last = U32_MAX;	/* as pcore_layout_init() sizes: no clamping */
	return (int)pcore_bucket(&l, v) - 1;
}

/* The integers near floor(2^(i/2^S)) land where the reference says. */
static void exp_check_near(struct __test_metadata *_metadata, u32 schema,
			   u64 v, u64 *checked)
{
	int want = exp_ref_index(v, schema), got;

	ASSERT_LE(0, want)
		TH_LOG("schema %u: reference undecided at %llu", schema, v);
	got = exp_engine_index(schema, v);
	ASSERT_EQ(want, got)
		TH_LOG("schema %u: value %llu in native bucket %d, not %d",
		       schema, v, got, want);
	(*checked)++;
}

/*
 * Every boundary base^i, i = 1 .. 64 * 2^S, of every schema: the integers
 * floor(base^i) - 2 .. floor(base^i) + 2 (long double finds floor(base^i)
 * to within one; the neighbours cover it), up to U64_MAX, plus 0 .. 5000
 * and random values.
 */
TEST(exp_index_is_native_at_every_boundary)
{
	long double f;
	struct rng r = rng_init(SEED);
	u64 checked = 0, v;
	u32 schema, i;
	int d, k;

	ASSERT_EQ(0U, pcore_bucket(&(struct pcore_layout){
			.kind = PCORE_HIST_EXP, .shift = 8, .last = 9 }, 0));
	for (schema = 0; schema <= PCORE_EXP_MAX_SCHEMA; schema++) {
		for (i = 1; i <= 64U << schema; i++) {
			f = floorl(powl(2.0L, (long double)i / (1U << schema)));
			for (d = -2; d <= 2; d++) {
				if (f + d < 1.0L || f + d > 18446744073709551615.0L)
					continue;
				v = (u64)(f + d);
				exp_check_near(_metadata, schema, v, &checked);
			}
		}
		exp_check_near(_metadata, schema, U64_MAX, &checked);
		for (v = 1; v <= 5000; v++)
			exp_check_near(_metadata, schema, v, &checked);
		for (k = 0; k < 20000; k++) {
			v = rng_mag(&r);
			exp_check_near(_metadata, schema, v ? v : 1, &checked);
		}
	}
	ASSERT_LT(200000ULL, checked);
}

/* Each bucket's bounds [lo, hi) are the native bucket's integers. */
TEST(exp_bounds_are_native)
{
	static const struct pcore_hist_spec specs[] = {
		EXP(0, U64_MAX), EXP(1, U64_MAX), EXP(2, U64_MAX),
		EXP(3, U64_MAX), EXP(4, U64_MAX), EXP(5, 0ULL), EXP(6, 0ULL),
		EXP(7, 0ULL), EXP(8, 0ULL),
	};
	struct pcore_layout l;
	const char *why;
	u64 lo, hi;
	size_t c;
	u32 i;

	for (c = 0; c < ARRAY_SIZE(specs); c++) {
		ASSERT_EQ(0, pcore_layout_init(&l, &specs[c], &why));
		ASSERT_EQ(specs[c].precision, l.prec);
		pcore_bucket_bounds(&l, 0, &lo, &hi);
		ASSERT_TRUE(lo == 0 && hi == 1);	/* the zero bucket */
		/* every bucket but the last: it may be an overflow bucket */
		for (i = 1; i + 1 < l.nbuckets; i++) {
			pcore_bucket_bounds(&l, i, &lo, &hi);
			ASSERT_LE(lo, hi);
			/* lo - 1 is in native bucket i - 2 or below */
			if (lo > 1) {
				ASSERT_GT((int)i - 1, exp_ref_index(lo - 1, l.prec))
					TH_LOG("schema %u bucket %u lo %llu", l.prec, i, lo);
			}
			if (lo < hi) {
				ASSERT_EQ((int)i - 1, exp_ref_index(lo, l.prec))
					TH_LOG("schema %u bucket %u lo %llu", l.prec, i, lo);
				ASSERT_EQ((int)i - 1, exp_ref_index(hi - 1, l.prec))
					TH_LOG("schema %u bucket %u hi %llu", l.prec, i, hi);
			}
			if (hi != U64_MAX) {
				ASSERT_LT((int)i - 1, exp_ref_index(hi, l.prec))
					TH_LOG("schema %u bucket %u hi %llu", l.prec, i, hi);
			}
		}
	}
}

/* The generated tables, against the reference. */
TEST(exp_tables_are_exact)
{
	u32 j, q, n, sc, w;

	ASSERT_EQ(P2(63), pcore_exp_t[0]);
	for (j = 1; j < 256; j++) {
		/* T = floor(2^63 * 2^(j/256)): the integer 2^(63 + j/256) ends */
		ASSERT_GT(pcore_exp_t[j], pcore_exp_t[j - 1]);
	}
	for (sc = 0; sc <= PCORE_EXP_MAX_SCHEMA; sc++) {
		/* schema sc's sub-intervals [q << w, (q + 1) << w) */
		w = 62 - sc;
		for (q = 2U << sc; q < 4U << sc; q++) {
			/* n thresholds (j = 0 .. n - 1) lie below q's */
			n = 0;
			for (j = 0; j < 1U << sc; j++)
				n += pcore_exp_t[j << (8 - sc)] < (u64)q << w;
			ASSERT_EQ((63U << sc) + 1 + n, pcore_exp_base[q])
				TH_LOG("schema %u q %u", sc, q);
			if (pcore_exp_thr[q] != U64_MAX) {
				ASSERT_EQ(q, pcore_exp_thr[q] >> w);
				ASSERT_EQ(pcore_exp_t[n << (8 - sc)],
					  pcore_exp_thr[q]);
			} else {
				ASSERT_TRUE(n == 1U << sc ||
					    pcore_exp_t[n << (8 - sc)] >=
					    (u64)(q + 1) << w);
			}
		}
	}
	/*
	 * Each threshold against the reference, at 2^63 scale: schema 8's
	 * native index of T is 63 * 256 + j (T <= 2^63 * 2^(j/256)) and of
	 * T + 1 one more (above it).
	 */
	for (j = 1; j < 256; j++) {
		ASSERT_EQ((int)(63 * 256 + j), exp_ref_index(pcore_exp_t[j], 8));
		if (pcore_exp_t[j] < U64_MAX) {
			ASSERT_EQ((int)(63 * 256 + j + 1),
				  exp_ref_index(pcore_exp_t[j] + 1, 8));
		}
	}
}

TEST(exp_layouts)
{
	static const struct {
		struct pcore_hist_spec spec;
		u32 nbuckets;
	} t[] = {
		/* zero, 1, native 1 .. ceil(2^S log2(3.6e12)), overflow */
		{ EXP(0, 0ULL), 45 }, { EXP(3, 0ULL), 337 },
		{ EXP(4, 0ULL), 671 }, { EXP(5, 0ULL), 1338 },
		{ EXP(6, 0ULL), 2048 }, { EXP(8, 0ULL), 2048 },
		/* up to 2^64: no overflow bucket */
		{ EXP(0, U64_MAX), 66 }, { EXP(4, U64_MAX), 1026 },
		{ EXP(0, 2ULL), 4 }, { EXP(0, 3ULL), 5 },
	};
	struct pcore_layout l;
	const char *why;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		ASSERT_EQ(0, pcore_layout_init(&l, &t[i].spec, &why));
		EXPECT_EQ(t[i].nbuckets, l.nbuckets)
			TH_LOG("schema %u max %llu", t[i].spec.precision,
			       (u64)t[i].spec.max);
	}
}

TEST(exp_layout_refused)
{
	static const struct refused t[] = {
		{ EXP(9, 0ULL), "schema must be 0 to 8" },
		{ EXP(U32_MAX, 0ULL), "schema must be 0 to 8" },
		{ EXP(5, U64_MAX), "buckets" },
		{ EXP(8, P2(20)), "buckets" },
	};

	REFUSE(t);
}

/* The error bound: ceil(10^6 * (2^(2^-S) - 1) / 2), by long double. */
TEST(exp_error_bound_values)
{
	long double want;
	struct pcore_hist_spec spec = EXP(0, 100ULL);
	struct pcore_layout l;
	const char *why;
	u64 abs_err;
	u32 s;

	for (s = 0; s <= PCORE_EXP_MAX_SCHEMA; s++) {
		spec.precision = s;
		ASSERT_EQ(0, pcore_layout_init(&l, &spec, &why));
		want = ceill(1e6L * (powl(2.0L, 1.0L / (1U << s)) - 1) / 2 - 1e-9L);
		EXPECT_EQ((u32)want, pcore_layout_error_ppm(&l, &abs_err))
			TH_LOG("schema %u", s);
		EXPECT_EQ(0ULL, abs_err);
	}
}

/*
 * Percentiles of every schema against an exact sort, within the stated
 * bound: values spread log-uniformly over 1 .. 2^40 and packed near small
 * ones (where buckets hold few integers), at every percent and the tail.
 */
TEST(exp_percentiles_within_bound)
{
	static const u64 tops[] = { 40, 12, 4 };
	u64 *v = malloc(MAX_N * sizeof(*v)), n, k, seed;
	struct pcore_hist_spec spec = EXP(0, U64_MAX);
	struct pcore_layout l;
	struct pcore_snap *s;
	char what[96];
	const char *why;
	struct rng r;
	u32 sc, t, p;

	ASSERT_NE(NULL, v);
	for (sc = 0; sc <= PCORE_EXP_MAX_SCHEMA; sc++) {
		spec.precision = sc;
		spec.max = sc <= 4 ? U64_MAX : 0;
		ASSERT_EQ(0, pcore_layout_init(&l, &spec, &why)) TH_LOG("%s", why);
		for (t = 0; t < ARRAY_SIZE(tops); t++) {
			seed = SEED + sc * 16 + t;
			r = rng_init(seed);
			n = 1 + rng_below(&r, MAX_N);
			for (k = 0; k < n; k++) {
				/* 2^(top * x), x uniform: log-uniform */
				v[k] = (u64)powl(2.0L, (long double)tops[t] *
						 rng_below(&r, 1000000) / 1e6L);
				if (sc >= 6 && v[k] > P2(8))	/* in range */
					v[k] = 1 + v[k] % P2(8);
			}
			s = snap_of(&l, v, n, &r);
			ASSERT_NE(NULL, s);
			qsort(v, n, sizeof(*v), cmp_u64);
			snprintf(what, sizeof(what), "seed %#llx schema %u n %llu",
				 seed, sc, n);
			for (p = 0; p <= 100; p++)
				check_percentile(_metadata, &l, s, v, n,
						 p * 10000, what);
			check_percentile(_metadata, &l, s, v, n, 999000, what);
			check_percentile(_metadata, &l, s, v, n, 999900, what);
			free(s);
		}
	}
	free(v);
}

/* pcore_exp_native(): positions to native (schema, index) */
TEST(exp_native_positions)
{
	struct pcore_hist_spec spec = EXP(3, 0ULL);
	struct pcore_layout l;
	const char *why;
	int idx = -5;

	ASSERT_EQ(0, pcore_layout_init(&l, &spec, &why));
	ASSERT_EQ((int)PCORE_EXP_ZERO, (int)pcore_exp_native(0, l.nbuckets, 3, &idx));
	ASSERT_EQ(0, idx);
	ASSERT_EQ((int)PCORE_EXP_BUCKET, (int)pcore_exp_native(1, l.nbuckets, 3, &idx));
	ASSERT_EQ(0, idx);	/* the value 1: native bucket 0, (2^-1/8, 1] */
	ASSERT_EQ((int)PCORE_EXP_BUCKET,
		  (int)pcore_exp_native(pcore_bucket(&l, 1000), l.nbuckets, 3, &idx));
	ASSERT_EQ(exp_ref_index(1000, 3), idx);
	ASSERT_EQ((int)PCORE_EXP_OVERFLOW,
		  (int)pcore_exp_native(l.nbuckets - 1, l.nbuckets, 3, &idx));
	ASSERT_EQ((int)l.nbuckets - 2, idx);
	/* up to 2^64: the last bucket is native 64 * 2^S, no overflow */
	spec = (struct pcore_hist_spec)EXP(0, U64_MAX);
	ASSERT_EQ(0, pcore_layout_init(&l, &spec, &why));
	ASSERT_EQ((int)PCORE_EXP_BUCKET,
		  (int)pcore_exp_native(l.nbuckets - 1, l.nbuckets, 0, &idx));
	ASSERT_EQ(64, idx);
	ASSERT_EQ(exp_ref_index(U64_MAX, 0), idx);
}

TEST(exp_kind_text)
{
	struct pcore_hist_spec spec = EXP(3, 0ULL);
	struct pcore_layout l;
	const char *why;
	char buf[16];

	ASSERT_EQ(0, pcore_layout_init(&l, &spec, &why));
	ASSERT_EQ(5U, pcore_layout_kind_text(&l, buf, sizeof(buf)));
	ASSERT_STREQ("exp:3", buf);
	ASSERT_EQ(0U, pcore_layout_kind_text(&l, buf, 5));
	spec = (struct pcore_hist_spec)LOG2();
	ASSERT_EQ(0, pcore_layout_init(&l, &spec, &why));
	ASSERT_EQ(4U, pcore_layout_kind_text(&l, buf, sizeof(buf)));
	ASSERT_STREQ("log2", buf);
}

TEST_HARNESS_MAIN
