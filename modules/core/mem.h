/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mem_max cap (mem.c).
 * Part of pcore.h, which includes the units' headers in order.
 */
#ifndef PCORE_MEM_H
#define PCORE_MEM_H

/* mem.c: the mem_max cap */
unsigned long long pcore_mem_cap(void);
int pcore_mem_try(size_t bytes);
int pcore_mem_charge(size_t bytes, const char *client, const char *what,
		     const char *name);
void pcore_mem_uncharge(size_t bytes);
#endif /* PCORE_MEM_H */
