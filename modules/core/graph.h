/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a function's time goes: F:graph (graph.c).
 */
#ifndef PCORE_GRAPH_H
#define PCORE_GRAPH_H

struct pcore_graph;
struct pcore_builtin_req;

int pcore_graph_attach(struct pcore_client *c, struct pcore_graph **gp,
		       const struct pcore_builtin_req *r, const char *name,
		       struct pcore_hist **hp, struct pcore_probe **pp);
u32 pcore_graph_indirect(const struct pcore_graph *g);
void pcore_graph_forget(struct pcore_graph *g);
void pcore_graph_free(struct pcore_graph *g);
#endif /* PCORE_GRAPH_H */
