/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probectl export --remote-write: histograms as Prometheus native
 * histograms, in a remote write 1.0 request (protobuf, snappy), pushed
 * with one HTTP POST.  remote_write.c says how each kind maps to a native
 * histogram, and what is sent.
 */
#ifndef PROBECTL_REMOTE_WRITE_H
#define PROBECTL_REMOTE_WRITE_H

#include <stddef.h>
#include "probectl.h"

/* The finest native schema, where loglinear and linear buckets go. */
#define PC_NATIVE_FINE_SCHEMA	8

/**
 * struct pc_native - one histogram as a native histogram
 * @schema: -4 to 8; bucket i is (2^(i*2^-schema - 2^-schema), 2^(i*2^-schema)]
 * @zero: values in the zero bucket (threshold 0: the value 0 itself)
 * @count: all values, @zero and every bucket's
 * @n: buckets that hold values
 * @idx: their native indices, increasing
 * @cnt: their counts, none 0
 */
struct pc_native {
	int schema;
	unsigned long long zero;
	unsigned long long count;
	unsigned int n;
	long long *idx;
	unsigned long long *cnt;
};

int pc_native_index(int schema, double v, long long *idx);
int pc_native_of(const struct pc_hist *h, const struct pc_snap *s,
		 struct pc_native *nat);
void pc_native_free(struct pc_native *nat);

/**
 * struct pc_rw_opts - what labels every series
 * @instance: the instance label (the host's name by default)
 * @job: the job label
 * @ts_ms: the samples' timestamp, ms since the epoch
 */
struct pc_rw_opts {
	const char *instance;
	const char *job;
	long long ts_ms;
};

int pc_rw_encode(const struct pc_hist *h, unsigned int n,
		 const struct pc_rw_opts *o, void **body, size_t *len);
int pc_rw_post(const char *url, const void *body, size_t len, char *why,
	       size_t whylen);
void pc_rw_url_shown(char *buf, size_t len, const char *url);
unsigned int pc_utf8_fix(char *s);

#endif /* PROBECTL_REMOTE_WRITE_H */
