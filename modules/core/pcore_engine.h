/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probe_core aggregation engine: bucket index, per-CPU record, merge,
 * harvest and percentiles.
 *
 * This header and pcore_engine.c have no kernel dependencies beyond the
 * shim below, so the kernel module, the host unit tests and the benchmark
 * compile exactly the same code.
 *
 * Concurrency model
 * -----------------
 * Every histogram has one struct pcore_cpu_hist per possible CPU.  Only the
 * owning CPU writes it (pcore_record(), from any context including NMI),
 * with single-instruction local operations, so a record needs no lock and
 * no atomic bus operation.  A record adds to its bucket first, then (after
 * a write barrier, free on x86) to sum, min and max.  Readers on other CPUs
 * read each counter with a single load, sum, min and max first, then
 * (after a read barrier) the buckets: every event whose value a read sees
 * in sum, min or max is in its buckets (and so in its count).  Events
 * recorded while the read runs may be in the buckets only: a concurrent
 * read never shows a sum or max that its buckets do not hold, but its
 * count may be ahead of its sum by the events recorded meanwhile.
 *
 * Snapshot-and-reset (pcore_cpu_harvest()) exchanges every counter with
 * zero using local operations, so every event is counted in exactly one
 * interval, per counter, when nothing else can write the record at the
 * same time: the kernel harvests a bank that no handler writes any more
 * (harvest.c flips the bank and waits for a grace period first: no IPI), the
 * host tests and the benchmark a record of their own thread.
 */
#ifndef PCORE_ENGINE_H
#define PCORE_ENGINE_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/string.h>
#include <asm/barrier.h>
#include <asm/local64.h>

/* A counter written by one CPU with single-instruction local operations. */
struct pcore_ctr {
	local64_t v;
};

#define pcore_ctr_read(c)		((u64)local64_read(&(c)->v))
#define pcore_ctr_set(c, n)		local64_set(&(c)->v, (n))
#define pcore_ctr_add(c, n)		local64_add((n), &(c)->v)
#define pcore_ctr_xchg(c, n)		((u64)local64_xchg(&(c)->v, (n)))
#define pcore_ctr_cmpxchg(c, o, n)	((u64)local64_cmpxchg(&(c)->v, (o), (n)))
#define pcore_div64(a, b)		div64_u64((a), (b))
/* floor(a * b / c) for a quotient that fits in 64 bits, c != 0 */
#define pcore_muldiv64(a, b, c)		mul_u64_u64_div_u64((a), (b), (c))
#define pcore_msb(x)			((u32)__fls(x))	/* x != 0 */
/* A record writes its bucket before sum, min and max ... */
#define pcore_wmb()			smp_wmb()
/* ... and a read takes sum, min and max before the buckets. */
#define pcore_rmb()			smp_rmb()
#else /* host build: unit tests and benchmark */
#include <stdint.h>
#include <stddef.h>
#include <errno.h>
#include <string.h>

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
#define U64_MAX			UINT64_MAX
#define U32_MAX			UINT32_MAX

/* One CPU: only the compiler may reorder. */
static inline void pcore_wmb(void)
{
	__asm__ __volatile__("" ::: "memory");
}

static inline void pcore_rmb(void)
{
	__asm__ __volatile__("" ::: "memory");
}

struct pcore_ctr {
	u64 v;
};
#define pcore_ctr_read(c)		((c)->v)
#define pcore_ctr_set(c, n)		((c)->v = (n))
#define pcore_ctr_add(c, n)		((c)->v += (n))
static inline u64 pcore_ctr_xchg(struct pcore_ctr *c, u64 n)
{
	u64 old = c->v;

	c->v = n;
	return old;
}

static inline u64 pcore_ctr_cmpxchg(struct pcore_ctr *c, u64 o, u64 n)
{
	u64 old = c->v;

	if (old == o)
		c->v = n;
	return old;
}

static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

#define pcore_div64(a, b)		((a) / (b))
static inline u64 pcore_muldiv64(u64 a, u64 b, u64 c)
{
	return (u64)((__uint128_t)a * b / c);
}
#if defined(__x86_64__)
/* what the kernel's __fls() compiles to, so the benchmark counts the same */
static inline u32 pcore_msb(u64 x)
{
	asm("bsr %1,%0" : "=r" (x) : "rm" (x));
	return (u32)x;
}
#else
#define pcore_msb(x)			((u32)(63 - __builtin_clzll(x)))
#endif
#ifndef likely
#define likely(x)			__builtin_expect(!!(x), 1)
#define unlikely(x)			__builtin_expect(!!(x), 0)
#endif
#endif /* __KERNEL__ */

#include "probe_core/hist_spec.h"

/**
 * struct pcore_layout - a validated spec, precomputed for the hot path
 * @kind: an enum pcore_hist_kind
 * @nbuckets: number of buckets including underflow and overflow buckets
 * @last: @nbuckets - 1, the overflow bucket
 * @prec: loglinear sub-bucket bits; exp: the schema
 * @lowmask: loglinear: 2^(@prec + 1) - 1
 * @nsub: loglinear: 2^@prec, sub-buckets per power of two; exp: 2^schema
 * @shift: linear: log2(step) when @step is a power of two, else 64;
 *	exp: 62 - schema
 * @min: linear: lower end of the range
 * @range: linear: @max - @min, a multiple of @step
 * @step: linear: bucket width
 * @recip: linear with a non power-of-two step: floor(2^64 / step)
 */
struct pcore_layout {
	u32 kind;
	u32 nbuckets;
	u64 last;
	u32 prec;
	u32 shift;
	u64 lowmask;
	u64 nsub;
	u64 min;
	u64 range;
	u64 step;
	u64 recip;
};

/**
 * struct pcore_cpu_hist - one CPU's share of a histogram
 * @sum: sum of the values (wraps after 2^64)
 * @min: smallest value, U64_MAX when nothing was recorded
 * @max: largest value
 * @b: @nbuckets bucket counters
 *
 * There is no count: the number of values is the sum of the buckets (see
 * pcore_cpu_hist_count()), which saves the hot path an update and can never
 * disagree with the histogram.
 */
struct pcore_cpu_hist {
	struct pcore_ctr sum;
	struct pcore_ctr min;
	struct pcore_ctr max;
	struct pcore_ctr b[];
};

/**
 * struct pcore_snap - a plain (not per-CPU) copy of a histogram
 * @count: number of values
 * @sum: sum of the values
 * @min: smallest value, U64_MAX when @count is 0
 * @max: largest value
 * @nbuckets: size of @b
 * @b: bucket counts
 */
struct pcore_snap {
	u64 count;
	u64 sum;
	u64 min;
	u64 max;
	u32 nbuckets;
	u64 b[];
};

static inline size_t pcore_cpu_hist_size(const struct pcore_layout *l)
{
	return sizeof(struct pcore_cpu_hist) + l->nbuckets * sizeof(struct pcore_ctr);
}

static inline size_t pcore_snap_size(const struct pcore_layout *l)
{
	return sizeof(struct pcore_snap) + l->nbuckets * sizeof(u64);
}

/*
 * The exponential kind's thresholds (pcore_exp_table.h, generated by
 * scripts/exp-table.py): pcore_exp_t[j] = floor(2^63 * 2^(j/256)), schema
 * S's are pcore_exp_t[j << (8 - S)].  The lookup of schema S cuts [2^63,
 * 2^64) into 2^(S+1) sub-intervals, at indices 2^(S+1) .. 2^(S+2) - 1 of
 * one table, each with at most one threshold T of S (pcore_exp_thr[q] = T,
 * else U64_MAX) and pcore_exp_base[q] = 63 * 2^S + 1 + the thresholds of S
 * below it.
 */
extern const u64 pcore_exp_t[256];
extern const u64 pcore_exp_thr[1024];
extern const u16 pcore_exp_base[1024];

/* floor(a * b / 2^64) */
static inline u64 pcore_mulhi(u64 a, u64 b)
{
	return (u64)(((__uint128_t)a * b) >> 64);
}

/**
 * pcore_bucket() - bucket index of a value; hot path, no division
 * @l: layout
 * @v: value
 *
 * Return: an index below @l->nbuckets.
 */
static inline u64 pcore_bucket(const struct pcore_layout *l, u64 v)
{
	u32 idx;
	u64 x, q, c;

	if (likely(l->kind == PCORE_HIST_LOGLINEAR)) {
		/*
		 * With s = msb(v | lowmask) - prec, v >> s keeps the leading
		 * prec + 1 bits (the implicit 1 and the sub-bucket), and
		 * s << prec counts the powers of two below.  lowmask has the
		 * low prec + 1 bits set, so values under 2^(prec + 1) get
		 * s = 0 and one bucket each (idx = v), with no branch.
		 */
		u32 sh = pcore_msb(v | l->lowmask) - l->prec;

		x = sh * l->nsub + (v >> sh);
		return x < l->last ? x : l->last;
	}
	if (l->kind == PCORE_HIST_EXP) {
		/*
		 * Native bucket i holds (2^((i-1)/2^S), 2^(i/2^S)]; stored at
		 * i + 1, after the zero bucket.  For v >= 1, c = clz(v) puts
		 * v in [2^k, 2^(k+1)), k = 63 - c, and x = v * 2^c in [2^63,
		 * 2^64).  v is above 2^k * 2^(j/2^S) exactly when x > T_j, the
		 * table's floor(2^63 * 2^(j/2^S)) (for 0 < j < 2^S the bound is
		 * irrational: an integer is above it when above its floor; T_0
		 * is 2^63, so 2^k itself ends bucket k * 2^S).  The
		 * sub-interval q of x's top S + 2 bits holds at most one
		 * threshold: the bucket is k * 2^S + 1 + the thresholds x is
		 * above, from one lookup and one compare
		 * (pcore_exp_base[] holds 63 * 2^S + 1).
		 */
		if (unlikely(!v))
			return 0;
		c = pcore_msb(v) ^ 63;	/* 63 - k */
		x = v << c;
		q = x >> l->shift;
		idx = pcore_exp_base[q] - c * l->nsub;
		if (x > pcore_exp_thr[q])
			idx++;
		return idx < l->last ? idx : l->last;
	}
	if (l->kind == PCORE_HIST_LOG2)
		return fls64(v);
	/* PCORE_HIST_LINEAR */
	if (v < l->min)
		return 0;
	x = v - l->min;
	if (x >= l->range)
		return l->last;
	if (l->shift < 64)
		return 1 + (u32)(x >> l->shift);
	/* recip underestimates 2^64/step: q is the quotient or one less */
	q = pcore_mulhi(x, l->recip);
	if (x - q * l->step >= l->step)
		q++;
	idx = 1 + (u32)q;
	return idx;
}

/**
 * pcore_record() - add one value to a CPU's histogram; hot path
 * @l: layout
 * @c: the histogram of the CPU this runs on
 * @v: value
 *
 * Lock-free and allocation-free; every update is one local operation, so
 * it is safe in IRQ and NMI context as long as @c belongs to this CPU.
 */
static inline void pcore_record(const struct pcore_layout *l,
				struct pcore_cpu_hist *c, u64 v)
{
	u64 old;

	pcore_ctr_add(&c->b[pcore_bucket(l, v)], 1);
	pcore_wmb();	/* the bucket before sum, min, max: see the top */
	pcore_ctr_add(&c->sum, v);
	/* Retry only when an interrupt moved min or max under us. */
	while (unlikely(v < (old = pcore_ctr_read(&c->min))))
		if (pcore_ctr_cmpxchg(&c->min, old, v) == old)
			break;
	while (unlikely(v > (old = pcore_ctr_read(&c->max))))
		if (pcore_ctr_cmpxchg(&c->max, old, v) == old)
			break;
}

/* Rows a histogram prints by default: adjacent buckets merged to fit. */
#define PCORE_HIST_ROWS		40

/**
 * struct pcore_rows - how buckets are merged into the rows of a display
 * @kind: an enum pcore_hist_kind
 * @nbuckets: buckets of the layout
 * @width: buckets per row, a power of two (1: every bucket a row)
 * @base: the first bucket of the aligned rows: 1 for linear (its bucket 0,
 *	the underflow bucket, is a row of its own), 2 for exp (the zero
 *	bucket and the value 1 are rows alone, rows of 2^S buckets are whole
 *	powers of two), else 0
 *
 * Row k holds the buckets [@base + k * @width, @base + (k + 1) * @width),
 * cut short by the last bucket, which is always a row of its own (the
 * overflow bucket, or the one that ends at 2^64).  A row's bounds are the
 * lower bound of its first bucket and the upper bound of its last, so it
 * holds exactly the values of its buckets.  Loglinear rows of up to 2^P
 * buckets lie inside one power of two (its sub-buckets are aligned), wider
 * ones hold whole powers of two.
 */
struct pcore_rows {
	u32 kind;
	u32 nbuckets;
	u32 width;
	u32 base;
};

/* What bucket @idx of an exp histogram is natively: pcore_exp_native(). */
enum pcore_exp_where {
	PCORE_EXP_ZERO,
	PCORE_EXP_BUCKET,
	PCORE_EXP_OVERFLOW,
};

/**
 * pcore_exp_native() - a bucket of an exp histogram as a native one's
 * @idx: the bucket's position in the histogram (as read), below @nbuckets
 * @nbuckets: the histogram's number of buckets
 * @schema: its schema (probectl: pc_hist_schema())
 * @index: set to the native bucket index (Prometheus native histogram,
 *	OpenTelemetry exponential histogram of scale @schema): the bucket
 *	holds (2^((index-1)/2^schema), 2^(index/2^schema)]
 *
 * Position 0 is the zero bucket (the value 0 only: zero threshold 0), then
 * native index = position - 1.  The last position is an overflow bucket
 * when it is not the bucket that ends at 2^64 (native index 64 * 2^schema):
 * its values lie above the one before it, so *@index is the next native
 * index, whose lower bound they all exceed, but some may be above its
 * upper bound (the histogram's max tells).  Usable by user space: no
 * kernel dependencies.
 *
 * Return: %PCORE_EXP_ZERO, %PCORE_EXP_BUCKET or %PCORE_EXP_OVERFLOW.
 */
static inline enum pcore_exp_where pcore_exp_native(u32 idx, u32 nbuckets,
						    u32 schema, int *index)
{
	*index = 0;
	if (!idx)
		return PCORE_EXP_ZERO;
	*index = (int)idx - 1;
	if (idx + 1 == nbuckets && idx - 1 != 64U << schema)
		return PCORE_EXP_OVERFLOW;
	return PCORE_EXP_BUCKET;
}

int pcore_layout_init(struct pcore_layout *l, const struct pcore_hist_spec *s,
		      const char **why);
void pcore_bucket_bounds(const struct pcore_layout *l, u32 idx,
			 u64 *lo, u64 *hi);
void pcore_cpu_hist_init(const struct pcore_layout *l,
			 struct pcore_cpu_hist *c);
void pcore_snap_init(const struct pcore_layout *l, struct pcore_snap *s);
u64 pcore_cpu_hist_count(const struct pcore_layout *l,
			 const struct pcore_cpu_hist *c);
void pcore_snap_add_cpu(struct pcore_snap *s, const struct pcore_cpu_hist *c);
void pcore_snap_merge(struct pcore_snap *dst, const struct pcore_snap *src);
void pcore_cpu_harvest(struct pcore_cpu_hist *c, struct pcore_snap *into);
u64 pcore_snap_percentile(const struct pcore_layout *l,
			  const struct pcore_snap *s, u32 ppm);
u32 pcore_layout_error_ppm(const struct pcore_layout *l, u64 *abs_err);
u32 pcore_rows_plan(struct pcore_rows *r, u32 kind, u32 nbuckets, u32 first,
		    u32 last, u32 max_rows);
void pcore_row_of(const struct pcore_rows *r, u32 idx, u32 *start, u32 *end);
const char *pcore_kind_name(u32 kind);
size_t pcore_layout_kind_text(const struct pcore_layout *l, char *buf,
			      size_t len);

/* Room for any text of pcore_fmt_ns(), with its NUL. */
#define PCORE_FMT_NS_LEN	32
size_t pcore_fmt_ns(char *buf, size_t len, u64 ns, u64 res);
u64 pcore_bound_res(u64 below, u64 above);
u64 pcore_value_res(u64 v);

#endif /* PCORE_ENGINE_H */
