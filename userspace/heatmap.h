/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Heatmaps of a histogram over time: one column per interval (what one
 * snapshot-and-reset moved out), one row per bucket, adjacent buckets
 * merged as the hist file merges them, each cell shaded by its count.
 * Drawn as text for a terminal and as a self-contained SVG.  No device
 * access here: probectl's heatmap command feeds the intervals, the host
 * tests feed fixed ones.
 */
#ifndef PROBECTL_HEATMAP_H
#define PROBECTL_HEATMAP_H

#include "probectl.h"

#define PC_HEAT_MAX_COLS	1000	/* intervals kept: the newest */
#define PC_HEAT_LEVELS		9	/* shades of a non-empty cell */
#define PC_HEAT_TITLE_MAX	200	/* bytes of --title shown */

/**
 * struct pc_heat_col - one interval
 * @end: wall-clock time of the snapshot-and-reset that ended it
 * @ns: its length (monotonic clock)
 * @count: values in it
 * @first: the bucket of @b[0]
 * @n: buckets in @b: @first to @first + @n - 1 hold every value (0: none)
 * @b: their counts
 */
struct pc_heat_col {
	struct timespec end;
	unsigned long long ns;
	unsigned long long count;
	unsigned int first;
	unsigned int n;
	unsigned long long *b;
};

/**
 * struct pc_heat - a histogram's intervals
 * @name: the histogram's name, as one word of printable text
 * @unit: its unit, as one word of printable text ("" without one)
 * @kind: pc_hist_kind() of the histogram
 * @nbuckets: its buckets
 * @lo: the lower bound of each bucket
 * @hi: the upper bound of each bucket (U64_MAX: none)
 * @interval_ns: the interval asked for
 * @full: every bucket a row (else merged to at most PCORE_HIST_ROWS)
 * @cols: a ring of PC_HEAT_MAX_COLS intervals
 * @ncols: intervals in @cols
 * @head: the oldest of them
 * @seen: intervals added, kept or not
 */
struct pc_heat {
	char name[PCORE_UAPI_NAME_MAX];
	char unit[PCORE_UAPI_SHORT_MAX];
	unsigned int kind;
	unsigned int nbuckets;
	unsigned long long *lo;
	unsigned long long *hi;
	unsigned long long interval_ns;
	bool full;
	struct pc_heat_col *cols;
	unsigned int ncols;
	unsigned int head;
	unsigned long long seen;
};

int pc_heat_init(struct pc_heat *h, const struct pcore_ioc_entry *e,
		 const struct pc_snap *s, unsigned long long interval_ns,
		 bool full);
int pc_heat_add(struct pc_heat *h, const struct pc_snap *s,
		const struct timespec *end, unsigned long long ns);
void pc_heat_free(struct pc_heat *h);
int pc_heat_text(FILE *f, const struct pc_heat *h, unsigned int max_cols,
		 unsigned int width, bool color);
int pc_heat_svg(FILE *f, const struct pc_heat *h, const char *title);

#endif /* PROBECTL_HEATMAP_H */
