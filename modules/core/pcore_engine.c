// SPDX-License-Identifier: GPL-2.0
/*
 * probe_core aggregation engine: everything that is not the hot path.
 * No kernel dependencies: see pcore_engine.h.
 */
#include "pcore_engine.h"
#include "pcore_exp_table.h"

static int is_pow2(u64 x)
{
	return x && !(x & (x - 1));
}

/* The loglinear bucket that holds U64_MAX and ends at 2^64. */
static u32 loglin_top(u32 prec)
{
	return (64 - prec) << prec | ((1U << prec) - 1);
}

/* The exp bucket (stored index) that holds U64_MAX and ends at 2^64. */
static u32 exp_top(u32 schema)
{
	return (64U << schema) + 1;
}

/* floor(2^(i / 2^schema)), 0 <= i < 64 * 2^schema: a native bucket's end */
static u64 exp_floor(const struct pcore_layout *l, u32 i)
{
	u32 k = i >> l->prec, j = i & ((1U << l->prec) - 1);

	return pcore_exp_t[j << (PCORE_EXP_MAX_SCHEMA - l->prec)] >> (63 - k);
}

/**
 * pcore_layout_init() - validate a spec and precompute its layout
 * @l: layout to fill
 * @s: spec; zero fields of a loglinear spec take the defaults
 * @why: set to a short reason when the spec is refused
 *
 * Return: 0, or -EINVAL with *@why naming the problem.
 */
int pcore_layout_init(struct pcore_layout *l, const struct pcore_hist_spec *s,
		      const char **why)
{
	u64 n;

	*l = (struct pcore_layout){ .kind = s->kind, .shift = 64 };
	switch (s->kind) {
	case PCORE_HIST_LOG2:
		l->nbuckets = 65;
		l->last = 64;
		return 0;
	case PCORE_HIST_COUNT:
		/*
		 * pcore_bucket() takes the linear path: every value is at or
		 * above min (0) and past range (0), so in bucket last (0).
		 */
		l->nbuckets = 1;
		return 0;
	case PCORE_HIST_LOGLINEAR:
		l->prec = s->precision ? s->precision :
			  PCORE_LOGLIN_DEFAULT_PRECISION;
		if (l->prec > PCORE_LOGLIN_MAX_PRECISION) {
			*why = "loglinear precision must be 1 to 7 bits";
			return -EINVAL;
		}
		l->lowmask = (2ULL << l->prec) - 1;
		l->nsub = 1ULL << l->prec;
		n = s->max ? s->max : PCORE_LOGLIN_DEFAULT_MAX;
		l->last = U32_MAX;	/* no clamping while sizing */
		n = (u64)pcore_bucket(l, n) + 2;
		/* max in the top bucket: there is nothing to overflow */
		if (n > loglin_top(l->prec) + 1)
			n = loglin_top(l->prec) + 1;
		break;
	case PCORE_HIST_EXP:
		if (s->precision > PCORE_EXP_MAX_SCHEMA) {
			*why = "exp schema must be 0 to 8";
			return -EINVAL;
		}
		l->prec = s->precision;
		l->shift = 62 - l->prec;
		l->nsub = 1ULL << l->prec;
		l->last = U32_MAX;	/* no clamping while sizing */
		n = (u64)pcore_bucket(l, s->max ? s->max :
				      PCORE_EXP_DEFAULT_MAX) + 2;
		/* the default range: as far as the buckets allowed reach */
		if (!s->max && n > PCORE_MAX_BUCKETS)
			n = PCORE_MAX_BUCKETS;
		if (n > exp_top(l->prec) + 1)
			n = exp_top(l->prec) + 1;
		break;
	case PCORE_HIST_LINEAR:
		if (!s->step) {
			*why = "linear step must be at least 1";
			return -EINVAL;
		}
		if (s->max <= s->min) {
			*why = "linear max must be above min";
			return -EINVAL;
		}
		n = pcore_div64(s->max - s->min, s->step);
		if (n * s->step != s->max - s->min) {
			*why = "linear max - min must be a multiple of step";
			return -EINVAL;
		}
		l->min = s->min;
		l->step = s->step;
		l->range = s->max - s->min;
		if (is_pow2(s->step))
			l->shift = fls64(s->step) - 1;
		else
			l->recip = pcore_div64(U64_MAX, s->step);
		/* saturate: n + 2 wraps for 2^64 - 2 or more steps */
		n = (n < PCORE_MAX_BUCKETS ? n : PCORE_MAX_BUCKETS) + 2;
		break;
	default:
		*why = "unknown histogram kind";
		return -EINVAL;
	}
	if (n > PCORE_MAX_BUCKETS) {
		*why = "histogram would need more than 2048 buckets";
		return -EINVAL;
	}
	l->nbuckets = n;
	l->last = n - 1;
	return 0;
}

/**
 * pcore_bucket_bounds() - the values a bucket holds: [*lo, *hi)
 * @l: layout
 * @idx: bucket index below @l->nbuckets
 * @lo: lowest value of the bucket
 * @hi: first value above the bucket; U64_MAX for a bucket without an
 *	upper end (it then also holds U64_MAX itself)
 *
 * An exp bucket (base^(i-1), base^i] holds the integers [floor(base^(i-1))
 * + 1, floor(base^i) + 1), none when the two are equal (narrow buckets
 * below 1/(base - 1)).
 */
void pcore_bucket_bounds(const struct pcore_layout *l, u32 idx,
			 u64 *lo, u64 *hi)
{
	u32 last = l->nbuckets - 1, g, sub;

	switch (l->kind) {
	case PCORE_HIST_COUNT:
		*lo = 0;
		*hi = U64_MAX;
		return;
	case PCORE_HIST_LOG2:
		*lo = idx ? 1ULL << (idx - 1) : 0;
		*hi = idx == 0 ? 1 : idx < 64 ? 1ULL << idx : U64_MAX;
		return;
	case PCORE_HIST_EXP:
		if (idx <= 1) {		/* the zero bucket; 1, native 0 */
			*lo = idx;
			*hi = idx + 1;
		} else {
			*lo = exp_floor(l, idx - 2) + 1;
			*hi = idx == exp_top(l->prec) ? U64_MAX :
			      exp_floor(l, idx - 1) + 1;
		}
		if (idx == last)
			*hi = U64_MAX;
		return;
	case PCORE_HIST_LOGLINEAR:
		if (idx < (1U << l->prec)) {
			*lo = idx;
			*hi = idx + 1;
		} else {
			g = idx >> l->prec;
			sub = idx & ((1U << l->prec) - 1);
			*lo = ((1ULL << l->prec) + sub) << (g - 1);
			*hi = *lo + (1ULL << (g - 1));
			if (*hi < *lo)
				*hi = U64_MAX;
		}
		if (idx == last)
			*hi = U64_MAX;
		return;
	default:
		if (idx == 0) {
			*lo = 0;
			*hi = l->min;
		} else if (idx == last) {
			*lo = l->min + l->range;
			*hi = U64_MAX;
		} else {
			*lo = l->min + (u64)(idx - 1) * l->step;
			*hi = *lo + l->step;
		}
	}
}

/**
 * pcore_cpu_hist_init() - empty one CPU's histogram
 * @l: layout
 * @c: histogram with room for @l->nbuckets buckets
 *
 * Only for memory no CPU records into yet.
 */
void pcore_cpu_hist_init(const struct pcore_layout *l, struct pcore_cpu_hist *c)
{
	u32 i;

	pcore_ctr_set(&c->sum, 0);
	pcore_ctr_set(&c->min, U64_MAX);
	pcore_ctr_set(&c->max, 0);
	for (i = 0; i < l->nbuckets; i++)
		pcore_ctr_set(&c->b[i], 0);
}

/**
 * pcore_snap_init() - empty a snapshot
 * @l: layout
 * @s: snapshot with room for @l->nbuckets buckets
 */
void pcore_snap_init(const struct pcore_layout *l, struct pcore_snap *s)
{
	u32 i;

	s->count = 0;
	s->sum = 0;
	s->min = U64_MAX;
	s->max = 0;
	s->nbuckets = l->nbuckets;
	for (i = 0; i < l->nbuckets; i++)
		s->b[i] = 0;
}

/*
 * Values counted without a value (pcore_hist_count()) leave min above max
 * (U64_MAX and 0, as reset): they are values of 0.  Recorded values never
 * do, U64_MAX included (min = max = U64_MAX).
 */
static void snap_add(struct pcore_snap *s, u64 count, u64 sum, u64 min,
		     u64 max)
{
	if (count && min > max)
		min = 0;
	s->count += count;
	s->sum += sum;
	if (min < s->min)
		s->min = min;
	if (max > s->max)
		s->max = max;
}

/**
 * pcore_cpu_hist_count() - number of values in one CPU's histogram
 * @l: layout
 * @c: histogram of one CPU, which may be recording concurrently
 *
 * Return: the sum of the buckets, each read once.
 */
u64 pcore_cpu_hist_count(const struct pcore_layout *l,
			 const struct pcore_cpu_hist *c)
{
	u64 count = 0;
	u32 i;

	for (i = 0; i < l->nbuckets; i++)
		count += pcore_ctr_read(&c->b[i]);
	return count;
}

/**
 * pcore_snap_add_cpu() - add a CPU's histogram to a snapshot, reading it
 * @s: snapshot
 * @c: histogram of one CPU, which may be recording concurrently
 *
 * Each counter is read once; see the concurrency model in pcore_engine.h.
 */
void pcore_snap_add_cpu(struct pcore_snap *s, const struct pcore_cpu_hist *c)
{
	u64 n, count = 0, sum, min, max;
	u32 i;

	/* sum, min and max before the buckets: see the top of the header. */
	sum = pcore_ctr_read(&c->sum);
	min = pcore_ctr_read(&c->min);
	max = pcore_ctr_read(&c->max);
	pcore_rmb();
	for (i = 0; i < s->nbuckets; i++) {
		n = pcore_ctr_read(&c->b[i]);
		s->b[i] += n;
		count += n;
	}
	snap_add(s, count, sum, min, max);
}

/**
 * pcore_snap_merge() - add one snapshot to another of the same layout
 * @dst: snapshot added to
 * @src: snapshot added
 */
void pcore_snap_merge(struct pcore_snap *dst, const struct pcore_snap *src)
{
	u32 i;

	snap_add(dst, src->count, src->sum, src->min, src->max);
	for (i = 0; i < dst->nbuckets; i++)
		dst->b[i] += src->b[i];
}

/**
 * pcore_cpu_harvest() - move a CPU's histogram into a snapshot, atomically
 * @c: histogram that no other CPU writes meanwhile (the kernel harvests a
 *	bank that no handler writes any more: hist.h, "Intervals")
 * @into: snapshot the counts are added to
 *
 * Every counter is exchanged with its empty value by a local operation, so
 * an event recorded concurrently on this CPU (from an interrupt or NMI)
 * lands either in @into or in the next interval, never in both or
 * neither.
 */
void pcore_cpu_harvest(struct pcore_cpu_hist *c, struct pcore_snap *into)
{
	u64 n, count = 0, sum, min, max;
	u32 i;

	for (i = 0; i < into->nbuckets; i++) {
		if (!pcore_ctr_read(&c->b[i]))
			continue;
		n = pcore_ctr_xchg(&c->b[i], 0);
		into->b[i] += n;
		count += n;
	}
	sum = pcore_ctr_xchg(&c->sum, 0);
	min = pcore_ctr_xchg(&c->min, U64_MAX);
	max = pcore_ctr_xchg(&c->max, 0);
	snap_add(into, count, sum, min, max);
}

/*
 * Is bucket @idx the overflow bucket, which has no upper end?  Not the
 * buckets whose upper end is 2^64 (log2 and loglinear) or U64_MAX (linear
 * max): pcore_bucket_bounds() shows both as U64_MAX.
 */
static int is_overflow(const struct pcore_layout *l, u32 idx)
{
	if (l->kind == PCORE_HIST_LOG2 || l->kind == PCORE_HIST_COUNT ||
	    idx != l->nbuckets - 1)
		return 0;
	if (l->kind == PCORE_HIST_EXP)
		return idx != exp_top(l->prec);
	return l->kind == PCORE_HIST_LINEAR || idx != loglin_top(l->prec);
}

/*
 * The values of bucket @idx lie in [*@a, *@z]; narrow that to where its
 * @r-th of @n values (in ascending order) can lie, given the sum of all
 * values and the ranges of the other buckets.  The other buckets' values
 * sum to between rest_min and rest_max, so this bucket's sum S lies in
 * [sum - rest_max, sum - rest_min]; and with x_1 <= ... <= x_n its values,
 *   S <= r x_r + (n - r) z	gives  x_r >= (S - (n - r) z) / r
 *   S >= (r - 1) a + (n - r + 1) x_r	gives  x_r <= (S - (r - 1) a) / (n - r + 1).
 * When the histogram holds a few values far from the rest (200 mallocs of
 * exactly 24 bytes and a few others, or many of exactly 100000), this pins
 * the percentile down to the value itself; when it does not, it narrows
 * little or nothing.  The true value lies in the narrowed range, so an
 * answer moved into it gets no farther from the true value.
 * Nothing is narrowed when the sum may have wrapped (the largest possible
 * total reaches 2^64) or disagrees with the buckets (a concurrent read
 * whose buckets hold events its sum does not yet: such a read may then
 * narrow too far down, by the few values in flight, still inside the
 * bucket).  Products are 128-bit; every quotient is of a number below
 * 2^64.  Not the hot path: one pass over the buckets.
 */
static void narrow_by_sum(const struct pcore_layout *l,
			  const struct pcore_snap *s, u32 idx, u64 r, u64 n,
			  u64 *a, u64 *z, u64 *mean)
{
	__uint128_t rest_min = 0, rest_max = 0, smin, smax, x;
	u64 lo, hi, top, lb, ub, q;
	u32 j;

	for (j = 0; j < s->nbuckets; j++) {
		if (!s->b[j] || j == idx)
			continue;
		pcore_bucket_bounds(l, j, &lo, &hi);
		top = hi == U64_MAX ? U64_MAX : hi - 1;
		if (s->min > lo && s->min <= top)
			lo = s->min;
		if (s->max < top && s->max >= lo)
			top = s->max;
		rest_min += (__uint128_t)s->b[j] * lo;
		rest_max += (__uint128_t)s->b[j] * top;
		if (rest_max >> 64)
			return;		/* the sum may have wrapped */
	}
	if (rest_max + (__uint128_t)n * *z >= ((__uint128_t)1 << 64) ||
	    rest_min > s->sum)
		return;
	smax = s->sum - rest_min;
	smin = s->sum > rest_max ? s->sum - rest_max : 0;
	if (smin < (__uint128_t)n * *a)
		smin = (__uint128_t)n * *a;
	if (smax > (__uint128_t)n * *z)
		smax = (__uint128_t)n * *z;
	if (smin > smax)
		return;
	/* the bucket's mean, when the sum tells it to a quarter of [a, z] */
	if ((smax - smin) * 4 <= (__uint128_t)n * (*z - *a))
		*mean = pcore_div64((u64)(smin + (smax - smin) / 2), n);
	lb = *a;
	x = (__uint128_t)(n - r) * *z;
	if (smin > x) {		/* below 2^64: smin <= sum */
		q = pcore_div64((u64)(smin - x), r);
		if (q * r < (u64)(smin - x))
			q++;
		if (q > lb)
			lb = q;
	}
	x = (__uint128_t)(r - 1) * *a;
	if (smax < x)
		return;
	ub = pcore_div64((u64)(smax - x), n - r + 1);
	if (ub > *z)
		ub = *z;
	if (lb > ub)
		return;
	*a = lb;
	*z = ub;
}

/*
 * A log2 percentile: the @r-th of the @n values of a bucket, whose values
 * lie in [a, z] (its bounds, narrowed by the recorded min and max),
 * interpolated.  They are taken as spread evenly from a
 * to z, so the first is a and the last z (a bucket that holds the min
 * starts with it, one that holds the max ends with it), and a lone value
 * is the min or max when the bucket holds it, else the middle.  The answer
 * stops at 1.5 a: any answer in [a, 1.5 a] is within 50% of every value
 * in [a, z] (z < 2 a), the bound of log2 histograms, and one above it
 * would not be when the values sit at the lower end (sizes of 4096 in
 * [4096, 8192)).
 */
static u64 log2_interpolate(const struct pcore_snap *s, u64 a, u64 z,
			    u64 r, u64 n)
{
	u64 v;

	if (n == 1)
		v = a == s->min ? a : z == s->max ? z : a + (z - a + 1) / 2;
	else
		v = a + pcore_muldiv64(z - a, r - 1, n - 1);
	if (v - a > a / 2)
		v = a + a / 2;
	return v;
}

/**
 * pcore_snap_percentile() - a percentile of a snapshot, from its buckets
 * @l: layout of the snapshot
 * @s: snapshot
 * @ppm: which percentile, in parts per million (p99.9 is 999000)
 *
 * Takes the nearest-rank definition: the smallest recorded value v such
 * that at least @ppm/10^6 of all values are <= v.  Linear and log-linear
 * answers are the middle of the bucket holding that value, clamped to the
 * recorded min and max; their error is at most half a bucket (see
 * pcore_layout_error_ppm()).  Exp answers are the lower middle of the
 * integers of the bucket (lo + (n - 1) / 2 of its n), clamped alike.  Log2
 * answers are interpolated by rank inside
 * the bucket, from its lower end (or the min) towards its upper end (or
 * the max), but never above 1.5 times the lower end, which keeps them
 * within 50% of the true value as the middle was.  A value in the
 * underflow or overflow bucket is answered with the recorded min or max.
 * Then the answer is moved into the range where the value must lie given
 * the sum (narrow_by_sum()): never farther from the true value, so every
 * bound still holds, and exact for many values of exactly one size beside
 * a few others (200 mallocs of 24 bytes: p50 24, not 29 as interpolation
 * alone answers; calls of exactly 100000 bytes: p99 100000, not 82768).
 *
 * Return: the percentile, or 0 for an empty snapshot or a count layout
 * (which keeps no distribution).
 */
u64 pcore_snap_percentile(const struct pcore_layout *l,
			  const struct pcore_snap *s, u32 ppm)
{
	u64 total = 0, rank, seen = 0, lo, hi, v, q, a, z, r, n, a0, z0, mean = 0;
	u32 i;

	if (l->kind == PCORE_HIST_COUNT)
		return 0;
	for (i = 0; i < s->nbuckets; i++)
		total += s->b[i];
	if (!total)
		return 0;
	if (ppm > 1000000)
		ppm = 1000000;
	/* rank = ceil(total * ppm / 10^6), at least 1, without overflow */
	q = pcore_div64(total, 1000000);
	rank = q * ppm + pcore_div64((total - q * 1000000) * ppm + 999999,
				     1000000);
	if (!rank)
		rank = 1;
	for (i = 0; i < s->nbuckets; i++) {
		seen += s->b[i];
		if (seen >= rank)
			break;
	}
	pcore_bucket_bounds(l, i, &lo, &hi);
	if (l->kind == PCORE_HIST_LINEAR && i == 0)
		return s->min;		/* underflow bucket */
	if (is_overflow(l, i))
		return s->max;
	a = lo;
	z = hi == U64_MAX ? U64_MAX : hi - 1;
	if (s->count && s->min > a && s->min <= z)
		a = s->min;
	if (s->count && s->max < z && s->max >= a)
		z = s->max;
	r = rank - (seen - s->b[i]);
	n = s->b[i];
	if (l->kind == PCORE_HIST_LOG2 && i > 1) {
		v = log2_interpolate(s, a, z, r, n);
	} else if (l->kind == PCORE_HIST_EXP) {
		/*
		 * The lower middle: within (base - 1) / 2 of lo, and of the
		 * top z but for the half unit of rounding (n - 1 < lo *
		 * (base - 1)); see pcore_layout_error_ppm().
		 */
		v = hi == U64_MAX ? U64_MAX : hi - 1;
		v = lo + (v - lo) / 2;
		v = v < a ? a : v > z ? z : v;
	} else {
		/* a hi of U64_MAX may stand for 2^64: still a fair middle */
		v = lo + (hi - lo) / 2;
		v = v < a ? a : v > z ? z : v;
	}
	a0 = a;
	z0 = z;
	narrow_by_sum(l, s, i, r, n, &a, &z, &mean);
	if (mean && l->kind == PCORE_HIST_LOG2 && i > 1) {
		/*
		 * The values of a log2 bucket are at most a factor of two
		 * apart: where the sum tells their mean, they are taken at
		 * it (exact for values of one size), but the first of a
		 * bucket that holds the min is the min, and the last of one
		 * that holds the max the max.
		 */
		v = mean;
		if (r == 1 && a0 == s->min)
			v = a0;
		else if (r == n && z0 == s->max)
			v = z0;
		if (v > a + a / 2)
			v = a + a / 2;
	}
	/* in where the value must be (and within 1.5 a for log2) */
	return v < a ? a : v > z ? z : v;
}

/**
 * pcore_layout_error_ppm() - worst error of pcore_snap_percentile()
 * @l: layout
 * @abs_err: set to the absolute error bound for linear layouts, else 0
 *
 * For values inside the layout's range: log-linear answers are within
 * 1/2^(precision+1) of the true percentile, log2 answers within 1/2 (the
 * middle of a bucket or below), and linear answers within step/2 (values
 * in the under- or overflow bucket are reported as the recorded min or
 * max).  Exp answers are within (base - 1) / 2 of the true percentile,
 * relatively, plus half a unit (the answer is an integer, and a bucket
 * may hold two integers a unit apart yet less than base - 1 relatively):
 * |answer - true| <= true * (base - 1) / 2 + 1/2, where base = 2^(2^-S).
 *
 * Return: the relative error bound in parts per million, 0 for linear and
 * for count layouts (which have no percentiles).
 */
u32 pcore_layout_error_ppm(const struct pcore_layout *l, u64 *abs_err)
{
	*abs_err = 0;
	switch (l->kind) {
	case PCORE_HIST_LOGLINEAR:	/* rounded up: 7813 for 1/128 */
		return (1000000U + (2U << l->prec) - 1) >> (l->prec + 1);
	case PCORE_HIST_LOG2:
		return 500000;
	case PCORE_HIST_EXP:	/* rounded up: 22137 for schema 4 */
		return pcore_exp_err_ppm[l->prec];
	case PCORE_HIST_COUNT:
		return 0;
	default:
		*abs_err = l->step / 2;
		return 0;
	}
}

/**
 * pcore_row_of() - the row that holds a bucket, when rows merge buckets
 * @r: the plan, from pcore_rows_plan()
 * @idx: a bucket below @r->nbuckets
 * @start: set to the row's first bucket
 * @end: set to the row's last bucket
 *
 * A display prints the row of its first bucket, then the row of the
 * bucket after that row's @end, and so on: each row's bounds are the lower
 * bound of @start and the upper bound of @end, and its count the sum of
 * the buckets from @start to @end.  The buckets of a row outside the range
 * being shown are empty (that range starts and ends with non-empty ones),
 * so the rows keep exact bounds and counts.
 */
void pcore_row_of(const struct pcore_rows *r, u32 idx, u32 *start, u32 *end)
{
	u32 e;

	/* linear's underflow bucket and the last bucket are rows alone */
	if (idx < r->base || idx + 1 >= r->nbuckets) {
		*start = idx;
		*end = idx;
		return;
	}
	*start = idx - ((idx - r->base) & (r->width - 1));
	e = *start + (r->width - 1);
	if (e < *start || e + 1 >= r->nbuckets)	/* no wrap near U32_MAX */
		e = r->nbuckets - 2;
	*end = e;
}

/* How many rows show the buckets @first to @last. */
static u32 rows_needed(const struct pcore_rows *r, u32 first, u32 last)
{
	u32 i = first, n = 0, start, end;

	while (i <= last) {
		pcore_row_of(r, i, &start, &end);
		n++;
		if (end >= last)
			break;
		i = end + 1;
	}
	return n;
}

/**
 * pcore_rows_plan() - merge adjacent buckets so a display fits in rows
 * @r: the plan to fill
 * @kind: an enum pcore_hist_kind
 * @nbuckets: buckets of the layout
 * @first: the first bucket to show (the first non-empty one)
 * @last: the last bucket to show, at or after @first
 * @max_rows: at most this many rows (at least 3), or 0 for no merging
 *
 * Takes the narrowest width, a power of two, whose rows from @first's to
 * @last's number at most @max_rows.  The engine's and probectl's displays
 * both merge with this, from the kind and bucket count alone.
 *
 * Return: the number of rows.
 */
u32 pcore_rows_plan(struct pcore_rows *r, u32 kind, u32 nbuckets, u32 first,
		    u32 last, u32 max_rows)
{
	u32 n;

	*r = (struct pcore_rows){ .kind = kind, .nbuckets = nbuckets,
				  .width = 1,
				  .base = kind == PCORE_HIST_LINEAR ? 1 :
					  kind == PCORE_HIST_EXP ? 2 : 0 };
	if (last >= nbuckets)
		last = nbuckets - 1;
	if (first > last)
		return 0;
	n = rows_needed(r, first, last);
	if (max_rows < 3)
		return n;
	while (n > max_rows && r->width < nbuckets) {
		r->width <<= 1;
		n = rows_needed(r, first, last);
	}
	return n;
}

/**
 * pcore_kind_name() - the name users write for a histogram kind
 * @kind: an enum pcore_hist_kind
 *
 * Return: "log2", "linear", "loglinear", "count", "exp" or "unknown".
 */
const char *pcore_kind_name(u32 kind)
{
	switch (kind) {
	case PCORE_HIST_LOG2:
		return "log2";
	case PCORE_HIST_LINEAR:
		return "linear";
	case PCORE_HIST_LOGLINEAR:
		return "loglinear";
	case PCORE_HIST_COUNT:
		return "count";
	case PCORE_HIST_EXP:
		return "exp";
	default:
		return "unknown";
	}
}

/**
 * pcore_layout_kind_text() - a layout's kind as debugfs and the list show it
 * @l: layout
 * @buf: output, NUL-terminated
 * @len: its size, at least 6 ("exp:8" and the NUL)
 *
 * The kind's name, with the schema for exp ("exp:4", as hist= takes it),
 * so that a reader (an exporter of native histograms) knows the bounds.
 *
 * Return: the length of the text, 0 (and @buf untouched) when @len is too
 * small.
 */
size_t pcore_layout_kind_text(const struct pcore_layout *l, char *buf,
			      size_t len)
{
	const char *name = pcore_kind_name(l->kind);
	size_t n = strlen(name);

	if (n + 3 > len)
		return 0;
	memcpy(buf, name, n + 1);
	if (l->kind == PCORE_HIST_EXP) {
		buf[n++] = ':';
		buf[n++] = '0' + (char)l->prec;
		buf[n] = '\0';
	}
	return n;
}

/* 10^0 .. 10^19: every power of ten below 2^64 */
#define PCORE_NPOW10	20
static const u64 pow10_tab[PCORE_NPOW10] = {
	1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
	10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
	100000000000ULL, 1000000000000ULL, 10000000000000ULL,
	100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
	100000000000000000ULL, 1000000000000000000ULL,
	10000000000000000000ULL,
};

/* The exponent of the largest power of ten at or below @v (0 for 0). */
static u32 log10_floor(u64 v)
{
	u32 e = 0;

	while (e + 1 < PCORE_NPOW10 && pow10_tab[e + 1] <= v)
		e++;
	return e;
}

/* @v in decimal at @p, which has room for 20 digits; returns the digits. */
static u32 put_u64(char *p, u64 v)
{
	char d[20];
	u32 n = 0, i;

	do {
		d[n++] = '0' + (char)(v - pcore_div64(v, 10) * 10);
		v = pcore_div64(v, 10);
	} while (v);
	for (i = 0; i < n; i++)
		p[i] = d[n - 1 - i];
	return n;
}

/**
 * pcore_fmt_ns() - a time for a person: "512 ns", "4.61 us", "1.07 s"
 * @buf: output, NUL-terminated
 * @len: size of @buf; PCORE_FMT_NS_LEN is always enough
 * @ns: nanoseconds; U64_MAX is printed as "inf"
 * @res: resolution in ns: @ns is rounded (half up) to a multiple of the
 *	largest power of ten at or below @res (0 and 1: exact); below 1 us
 *	always exact
 *
 * The unit is the largest of ns, us, ms and s that the rounded value
 * reaches (s at most: 3600 s stays 3600 s), and the decimals are exactly
 * those the resolution leaves, trailing zeros kept ("1.00 s" is to 10 ms),
 * so the text is the rounded value exactly: two values that round apart
 * never print the same.  No floating point, no division by anything but
 * powers of ten; not for the hot path.
 *
 * Return: the length of the text (without the NUL), or 0 when @len is too
 * small (@buf then holds "" when @len is at least 1).
 */
size_t pcore_fmt_ns(char *buf, size_t len, u64 ns, u64 res)
{
	static const char *const units[] = { "ns", "us", "ms", "s" };
	char t[PCORE_FMT_NS_LEN];
	u32 e = ns < 1000 ? 0 : log10_floor(res ? res : 1), ue, dec, n;
	u64 step = pow10_tab[e], q, r;

	if (ns == U64_MAX) {
		memcpy(t, "inf", 4);
		n = 3;
		goto out;
	}
	/* round half up to a multiple of step, saturating near 2^64 */
	q = pcore_div64(ns, step);
	r = ns - q * step;
	if (r >= step - r && q < pcore_div64(U64_MAX, step))
		q++;
	q *= step;
	ue = q >= 1000000000ULL ? 9 : q >= 1000000ULL ? 6 : q >= 1000ULL ? 3 : 0;
	dec = e < ue ? ue - e : 0;
	n = put_u64(t, pcore_div64(q, pow10_tab[ue]));
	if (dec) {
		r = pcore_div64(q - pcore_div64(q, pow10_tab[ue]) * pow10_tab[ue],
				pow10_tab[e]);
		t[n++] = '.';
		/* r < 10^dec: zero-padded to dec digits */
		while (dec > 1 && r < pow10_tab[dec - 1]) {
			t[n++] = '0';
			dec--;
		}
		n += put_u64(t + n, r);
	}
	t[n++] = ' ';
	memcpy(t + n, units[ue / 3], strlen(units[ue / 3]) + 1);
	n += strlen(units[ue / 3]);
out:
	if (len <= n) {
		if (len)
			buf[0] = '\0';
		return 0;
	}
	memcpy(buf, t, n + 1);
	return n;
}

/**
 * pcore_bound_res() - the resolution a bucket bound is printed with
 * @below: width of the bucket that ends at the bound (0: none)
 * @above: width of the bucket that starts at it (0: none)
 *
 * A tenth of the narrower of the two buckets: the bound is rounded by at
 * most a twentieth of each bucket it bounds, so every bucket's (and every
 * row's) printed bounds stay apart by at least nine tenths of its width
 * and no two bounds of a histogram print the same; the bound prints the
 * same in every row and in hist and hist_full alike, as it depends on the
 * layout alone.  For pcore_fmt_ns().
 *
 * Return: the resolution in ns (1: exact).
 */
u64 pcore_bound_res(u64 below, u64 above)
{
	u64 w = below && (!above || below < above) ? below : above;

	return w >= 20 ? pcore_div64(w, 10) : 1;
}

/**
 * pcore_value_res() - the resolution a time value is printed with
 * @v: the value in ns
 *
 * Four significant digits (exact below 10 us): "20.00 us", "1.074 s".
 *
 * Return: the resolution in ns, for pcore_fmt_ns().
 */
u64 pcore_value_res(u64 v)
{
	u32 e = log10_floor(v);

	return e > 3 ? pow10_tab[e - 3] : 1;
}
