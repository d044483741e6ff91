/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probectl show F:graph: where a function's time goes, as a tree.
 */
#ifndef PROBECTL_GRAPH_H
#define PROBECTL_GRAPH_H

#include <stdbool.h>
#include "probectl.h"

bool pc_is_graph(const struct pcore_ioc_entry *e);
void pc_fmt_graph_text(FILE *f, const struct pc_hist *h);
void pc_fmt_graph_json(FILE *f, const struct pc_hist *h);

#endif /* PROBECTL_GRAPH_H */
