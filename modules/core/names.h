/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Checks of names and options (names.c).
 * Part of pcore.h, which includes the units' headers in order.
 */
#ifndef PCORE_NAMES_H
#define PCORE_NAMES_H

/* Checks of what the API is given (names.c). */
int pcore_check_name(const char *what, const char *name, const char *more);
int pcore_check_args(const char *what, const struct pcore_client *c,
		     const void *o);
bool pcore_one_word(const char *s);
size_t pcore_to_word(char *dst, const char *src, size_t len);
#endif /* PCORE_NAMES_H */
