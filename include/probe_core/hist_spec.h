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
 * @PCORE_HIST_EXP: exponential buckets exactly those of a Prometheus native
 *	histogram or an OpenTelemetry exponential histogram of schema S
 *	(@precision, 0 to 8): bucket i holds (base^(i-1), base^i], base =
 *	2^(2^-S), 2^S buckets per power of two, upper bounds inclusive; the
 *	value 0 has a zero bucket of its own (zero threshold 0), the value 1
 *	is bucket 0.  Up to @max, then one overflow bucket (none when @max is
 *	in the bucket that ends at 2^64).
 */
enum pcore_hist_kind {
	PCORE_HIST_LOG2 = 1,
	PCORE_HIST_LINEAR = 2,
	PCORE_HIST_LOGLINEAR = 3,
	PCORE_HIST_COUNT = 4,
	PCORE_HIST_EXP = 5,
};

/* Default: relative bucket width <= 1/16, 1 ns .. 1 hour, 4984 bytes/CPU. */
#define PCORE_LOGLIN_DEFAULT_PRECISION	4
#define PCORE_LOGLIN_DEFAULT_MAX	3600000000000ULL
#define PCORE_LOGLIN_MAX_PRECISION	7
/*
 * Exponential kind: schema 4 by default, 16 buckets per power of two as
 * loglinear's default: percentiles within 2.21% (loglinear's 3.13%), 1 ns
 * .. 1 hour in 671 buckets, 5392 bytes/CPU (loglinear 4984).  Schema 3,
 * Prometheus's usual choice, would halve the memory but double the error
 * (4.53%): worse than loglinear's.  A native histogram of schema 4 merges
 * exactly with one of schema 3 or less (Prometheus reduces the finer one),
 * never the other way round.  Schemas 6 to 8 with the default @max cover
 * what fits in PCORE_MAX_BUCKETS: 1 ns .. 4.16 s, 64.5 us and 254 ns.
 */
#define PCORE_EXP_DEFAULT_SCHEMA	4
#define PCORE_EXP_DEFAULT_MAX		3600000000000ULL
#define PCORE_EXP_MAX_SCHEMA		8
/* Largest bucket array of one histogram on one CPU. */
#define PCORE_MAX_BUCKETS		2048

/**
 * struct pcore_hist_spec - what a histogram should look like
 * @kind: an enum pcore_hist_kind
 * @precision: %PCORE_HIST_LOGLINEAR: sub-bucket bits, 1 to
 *	%PCORE_LOGLIN_MAX_PRECISION; 0 means the default.  With the default
 *	@max at most 5: 6 and 7 bits need a @max whose buckets fit
 *	%PCORE_MAX_BUCKETS (2^35 and 2^20 do), else -EINVAL.
 *	%PCORE_HIST_EXP: the schema, 0 to %PCORE_EXP_MAX_SCHEMA, exactly (0 is
 *	schema 0: only the text "exp" means %PCORE_EXP_DEFAULT_SCHEMA)
 * @min: %PCORE_HIST_LINEAR only: lower end of the first in-range bucket
 * @max: %PCORE_HIST_LINEAR: end of the range (exclusive);
 *	%PCORE_HIST_LOGLINEAR and %PCORE_HIST_EXP: the largest value that
 *	gets its own bucket (0 means the default of one hour in ns; for exp
 *	schemas 6 to 8, as far as %PCORE_MAX_BUCKETS buckets reach; an
 *	explicit @max whose buckets do not fit is refused); unused for
 *	%PCORE_HIST_LOG2
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
