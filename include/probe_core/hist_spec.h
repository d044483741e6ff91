/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probe_core histogram specs: what a histogram looks like.
 *
 * Part of the public API (included by probe_core.h) and of the aggregation
 * engine, which also compiles on the host: no kernel headers here.  The
 * includer provides u32 and u64.
 */
#ifndef PROBE_CORE_HIST_SPEC_H
#define PROBE_CORE_HIST_SPEC_H

/**
 * enum pcore_hist_kind - bucket layout of a histogram
 * @PCORE_HIST_LOG2: power-of-two buckets [2^(i-1), 2^i), as bpftrace and
 *	BCC print them; bucket 0 holds the value 0.
 * @PCORE_HIST_LINEAR: buckets of equal width @step from @min to @max, plus
 *	one underflow bucket below @min and one overflow bucket at and above
 *	@max.
 * @PCORE_HIST_LOGLINEAR: every power of two split into 2^precision linear
 *	sub-buckets (values below 2^precision get a bucket each), up to @max;
 *	one overflow bucket above (none when @max is in the bucket that ends
 *	at 2^64).
 * @PCORE_HIST_COUNT: no distribution: one bucket that holds every value,
 *	with their count, sum, min and max.  pcore_hist_count() counts an
 *	event into it without a value (an event counted so has the value 0).
 */
enum pcore_hist_kind {
	PCORE_HIST_LOG2 = 1,
	PCORE_HIST_LINEAR = 2,
	PCORE_HIST_LOGLINEAR = 3,
	PCORE_HIST_COUNT = 4,
};

/* Default: relative bucket width <= 1/16, 1 ns .. 1 hour, 4984 bytes/CPU. */
#define PCORE_LOGLIN_DEFAULT_PRECISION	4
#define PCORE_LOGLIN_DEFAULT_MAX	3600000000000ULL
#define PCORE_LOGLIN_MAX_PRECISION	7
/* Largest bucket array of one histogram on one CPU. */
#define PCORE_MAX_BUCKETS		2048

/**
 * struct pcore_hist_spec - what a histogram should look like
 * @kind: an enum pcore_hist_kind
 * @precision: %PCORE_HIST_LOGLINEAR only: sub-bucket bits, 1 to
 *	%PCORE_LOGLIN_MAX_PRECISION; 0 means the default.  With the default
 *	@max at most 5: 6 and 7 bits need a @max whose buckets fit
 *	%PCORE_MAX_BUCKETS (2^35 and 2^20 do), else -EINVAL
 * @min: %PCORE_HIST_LINEAR only: lower end of the first in-range bucket
 * @max: %PCORE_HIST_LINEAR: end of the range (exclusive);
 *	%PCORE_HIST_LOGLINEAR: the largest value that gets its own bucket
 *	(0 means the default of one hour in ns); unused for %PCORE_HIST_LOG2
 * @step: %PCORE_HIST_LINEAR only: bucket width, at least 1
 */
struct pcore_hist_spec {
	u32 kind;
	u32 precision;
	u64 min;
	u64 max;
	u64 step;
};

#endif /* PROBE_CORE_HIST_SPEC_H */
