// SPDX-License-Identifier: GPL-2.0
/*
 * The second pcore_globt_dup() of pcore_globt (see globt_main.c): a name
 * listed twice in ftrace's list, which a glob must skip.
 */
#include <linux/compiler.h>
#include "pcore_globt.h"

static noinline int __used pcore_globt_dup(int v)
{
	barrier();
	return v + 2;
}

int globt_dup2(int v)
{
	return pcore_globt_dup(v);
}
