// SPDX-License-Identifier: GPL-2.0
/*
 * Checks of what the API is given: names, options, units.  Every object
 * file may use them: they use nothing else of probe_core's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/err.h>
#include <linux/printk.h>
#include <linux/string.h>
#include "pcore.h"

/**
 * pcore_check_name() - refuse names that are not plain identifiers
 * @what: the kind of object, for the log line (e.g. "hist")
 * @name: the name
 * @more: other characters allowed anywhere: "-", or "-*?" for the name
 *	of a probe on the functions of a glob
 *
 * Names become debugfs directory names: ASCII letters and digits, '_',
 * '.', ':' and '=' (not first, as in "foo.isra.0", "do_fork:count" and
 * "vfs_read:by=pid") and those of @more.  The
 * kernel's isalnum() also takes Latin-1 letters (0xc0-0xff): not here.
 *
 * Return: 0 or -EINVAL, with one log line naming the problem.
 */
int pcore_check_name(const char *what, const char *name, const char *more)
{
	size_t len, i;

	if (!name) {
		pr_err("%s: no name\n", what);
		return -EINVAL;
	}
	len = strnlen(name, PCORE_NAME_MAX);
	if (!len) {
		pr_err("%s: empty name\n", what);
		return -EINVAL;
	}
	if (len == PCORE_NAME_MAX) {
		pr_err("%s: name '%.32s...' is %zu characters, longer than %d\n",
		       what, name, strlen(name), PCORE_NAME_MAX - 1);
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		if ((isascii(name[i]) && isalnum(name[i])) || name[i] == '_' ||
		    ((name[i] == '.' || name[i] == ':' || name[i] == '=') && i) ||
		    strchr(more, name[i]))
			continue;
		pr_err("%s: '%*pE' is not a valid name (bad character at %zu)\n",
		       what, (int)len, name, i);
		return -EINVAL;
	}
	return 0;
}

/**
 * pcore_check_args() - refuse a missing client or missing options
 * @what: the kind of object, for the log line (e.g. "hist")
 * @c: the client given to a creating function
 * @o: the options given to it
 *
 * Return: 0 or -EINVAL, with one log line naming what is missing.
 */
int pcore_check_args(const char *what, const struct pcore_client *c,
		     const void *o)
{
	if (IS_ERR_OR_NULL(c)) {
		pr_err("%s: no client (%s)\n", what,
		       c ? "an error pointer" : "NULL");
		return -EINVAL;
	}
	if (!o) {
		pr_err("%s: no options (NULL)\n", what);
		return -EINVAL;
	}
	return 0;
}

/* A space or a control character: the end of a field, or of a line. */
static bool pcore_breaks_word(unsigned char c)
{
	return c <= ' ' || c == 0x7f;
}

/**
 * pcore_one_word() - is @s fit to be one field of a text file?
 * @s: a unit or key name
 *
 * Units and key names are printed as one field of the text files: a
 * space, a newline or a control character would break their format.
 *
 * Return: true when @s is 1 to %PCORE_UNIT_MAX - 1 characters, none of
 * them a space or a control character.
 */
bool pcore_one_word(const char *s)
{
	size_t i, len = strnlen(s, PCORE_UNIT_MAX);

	if (!len || len == PCORE_UNIT_MAX)
		return false;
	for (i = 0; i < len; i++)
		if (pcore_breaks_word(s[i]))
			return false;
	return true;
}

/**
 * pcore_to_word() - a name from a task (a comm, a label) as one word
 * @dst: where it goes, NUL-terminated
 * @src: the name: up to its NUL, or to @len - 1 bytes
 * @len: room in @dst, at least 1
 *
 * A task names itself (prctl(PR_SET_NAME)): its name may hold spaces,
 * newlines and other control characters, which would break the format of
 * the text it is printed in (one field, one line).  Each becomes '_', the
 * same way in every reader: "p q\nr" is "p_q_r".
 *
 * Return: the length of @dst.
 */
size_t pcore_to_word(char *dst, const char *src, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len && src[i]; i++)
		dst[i] = pcore_breaks_word(src[i]) ? '_' : src[i];
	dst[i] = '\0';
	return i;
}
