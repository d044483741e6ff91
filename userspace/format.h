/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probectl's output formats, from plain structs (see probectl.h).  Every
 * string the kernel sent is treated as untrusted: escaped for JSON, CSV
 * and Prometheus, control characters replaced in text.
 */
#ifndef PROBECTL_FORMAT_H
#define PROBECTL_FORMAT_H

#include "probectl.h"

/**
 * struct pc_tick - one interval of watch
 * @now: wall-clock time of the snapshot-and-reset
 * @interval_ns: time since the previous one (monotonic clock)
 * @missed: events the probe missed during the interval
 */
struct pc_tick {
	struct timespec now;
	unsigned long long interval_ns;
	unsigned long long missed;
};

void pc_fmt_list_text(FILE *f, const struct pcore_ioc_entry *e,
		      unsigned int n);
void pc_fmt_list_json(FILE *f, const struct pcore_ioc_entry *e,
		      unsigned int n);
struct pcore_rows;
unsigned int pc_hist_kind(const struct pcore_ioc_entry *e);
int pc_hist_schema(const struct pcore_ioc_entry *e);
unsigned int pc_rows_of(const struct pc_snap *s, unsigned int kind,
			unsigned int max_rows, struct pcore_rows *r,
			unsigned int *first, unsigned int *last);
void pc_fmt_bound(char *buf, size_t len, const unsigned long long *lo,
		  const unsigned long long *hi, unsigned int nbuckets,
		  unsigned int idx, bool upper, const char *unit);
void pc_fmt_value(char *buf, size_t len, unsigned long long v,
		  const char *unit);
void pc_fmt_value_word(char *buf, size_t len, unsigned long long v,
		       const char *unit);
void pc_fmt_hist_text(FILE *f, const struct pc_snap *s, const char *unit,
		      const char *indent, unsigned int kind, bool full);
void pc_fmt_show_text(FILE *f, const struct pc_hist *h, bool full);
const char *pc_fmt_prom_label_name(const struct pc_hist *h);
void pc_fmt_show_json(FILE *f, const struct pc_hist *h);
void pc_fmt_show_csv(FILE *f, const struct pc_hist *h);
void pc_fmt_watch_text(FILE *f, const struct pcore_ioc_entry *e,
		       const struct pc_snap *s, const struct pc_tick *t,
		       bool hist);
void pc_fmt_watch_json(FILE *f, const struct pcore_ioc_entry *e,
		       const struct pc_snap *s, const struct pc_tick *t,
		       bool hist);
void pc_fmt_prom(FILE *f, const struct pc_hist *h, unsigned int n);

void pc_fmt_json_str(FILE *f, const char *s, size_t srclen);
const char *pc_fmt_word(char *buf, size_t len, const char *src,
			size_t srclen);
void pc_fmt_ns_seconds(char *buf, size_t len, unsigned long long ns);
void pc_fmt_metric_name(char *buf, size_t len, const char *unit);

#endif /* PROBECTL_FORMAT_H */
