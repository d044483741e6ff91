/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probe_core's specs as text: the one parser of hist= and of a probe spec.
 *
 * Like pcore_engine.h, no kernel dependencies beyond the engine's shim:
 * the kernel module, probectl and the host tests compile pcore_spec.c
 * unchanged, so each takes and refuses the same texts, with the same
 * reasons.
 *
 * A probe spec is what target= takes for a kernel function, and what
 * probectl attach sends:
 *
 *	FUNC[:count | :stacks[:ustack] | :argN[:UNIT] | :retval[:UNIT]]
 *		[:by=pid | :by=cgroup]
 *	FUNC:graph[:GLOB]
 *
 * FUNC is a function or a glob; the text also names its histogram.  The
 * attach ioctl (ABI 5) carries the same in fields of struct
 * pcore_ioc_attach: pcore_probe_spec_check() holds fields to the rules
 * the parser holds text to, and pcore_probe_spec_name() writes the text
 * back, so a spec has one form in each place and one set of rules.
 */
#ifndef PCORE_SPEC_H
#define PCORE_SPEC_H

#include "pcore_engine.h"
#include <uapi/probe_core.h>

/* :arg1 to :arg6: the arguments in registers on every architecture. */
#define PCORE_SPEC_ARGS		6
/* Room for a reason pcore_probe_spec_parse() gives, with the NUL. */
#define PCORE_SPEC_WHY_MAX	224

/**
 * struct pcore_probe_spec - a probe of a function, as a probe spec says it
 * @func: the function, or a glob ("vfs_*"), NUL-terminated: 1 to
 *	%PCORE_UAPI_NAME_MAX - 1 characters, no ':', ',' or blank
 * @unit: the unit of :argN and :retval values, "" for the default
 *	("value"); 1 to %PCORE_UAPI_SHORT_MAX - 1 characters, no ':', ',',
 *	blank or control character
 * @what: PCORE_WHAT_*: what each call records
 * @arg: %PCORE_WHAT_ARG: which argument, 1 to %PCORE_SPEC_ARGS; else 0
 * @flags: PCORE_ATTACH_BY_PID, PCORE_ATTACH_BY_CGROUP, PCORE_ATTACH_USTACK
 *	(":stacks:ustack") or 0
 * @graph: %PCORE_WHAT_GRAPH: a glob of the functions F may call
 *	indirectly ("*_read_iter"), "" for none; the text form only (the
 *	attach ioctl's fields have no room for it)
 */
struct pcore_probe_spec {
	char func[PCORE_UAPI_NAME_MAX];
	char unit[PCORE_UAPI_SHORT_MAX];
	u32 what;
	u32 arg;
	u32 flags;
	char graph[PCORE_UAPI_NAME_MAX];
};

int pcore_hist_spec_parse(const char *s, struct pcore_hist_spec *spec,
			  const char **why);
int pcore_probe_spec_parse(const char *s, struct pcore_probe_spec *ps,
			   char *why, size_t size);
int pcore_probe_spec_check(const struct pcore_probe_spec *ps, char *why,
			   size_t size);
int pcore_probe_spec_name(const struct pcore_probe_spec *ps, char *buf,
			  size_t size);

#endif /* PCORE_SPEC_H */
