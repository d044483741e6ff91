/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probectl show NAME --keys: a keyed histogram, one line per key.
 */
#ifndef PROBECTL_KEYS_H
#define PROBECTL_KEYS_H

#include "args.h"
#include "probectl.h"

/**
 * struct pc_keys_opts - what show --keys prints
 * @sort: the keys, largest first, by this; ties by key
 * @top: the first @top keys only, 0 for all
 */
struct pc_keys_opts {
	enum pc_key_sort sort;
	unsigned int top;
};

void pc_fmt_keys_text(FILE *f, const struct pc_hist *h,
		      const struct pc_keys_opts *o);
void pc_fmt_keys_json(FILE *f, const struct pc_hist *h,
		      const struct pc_keys_opts *o);

#endif /* PROBECTL_KEYS_H */
