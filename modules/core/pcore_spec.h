/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probe_core's specs as text: the one parser of hist=.
 *
 * Like pcore_engine.h, no kernel dependencies beyond the engine's shim:
 * the kernel module, probectl and the host tests compile pcore_spec.c
 * unchanged, so each takes and refuses the same texts, with the same
 * reasons.
 */
#ifndef PCORE_SPEC_H
#define PCORE_SPEC_H

#include "pcore_engine.h"

int pcore_hist_spec_parse(const char *s, struct pcore_hist_spec *spec,
			  const char **why);

#endif /* PCORE_SPEC_H */
