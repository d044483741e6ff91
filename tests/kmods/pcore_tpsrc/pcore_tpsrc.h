/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracepoint of pcore_tpsrc, a test module of the probe_core
 * selftests.  A handler has the prototype
 *
 *	void handler(void *data, u64 value);
 */
#ifndef PCORE_TPSRC_H
#define PCORE_TPSRC_H

#include <linux/tracepoint.h>

DECLARE_TRACE(pcore_tpsrc_event,
	      TP_PROTO(u64 value),
	      TP_ARGS(value));

#endif /* PCORE_TPSRC_H */
