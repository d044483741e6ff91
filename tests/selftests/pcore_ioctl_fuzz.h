/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ioctl fuzz generator of /dev/probe_core, one for both of its users:
 * pcore_ioctl_bad's fuzz test and the soak's fuzzers (tests/soak/soak.c).
 * Each decides which answers are right; this file only makes the calls.
 *
 * One call of pcore_fuzz_ioctl() sends one ioctl:
 *
 *   command   one of the eight (pcore_ioc_cmds[]), else _IOC() of any
 *             direction, a number up to 11, the size of one of the ABI's
 *             structs or anything below 1024, the magic or one off it
 *   argument  random bytes (mode 0); or zero with a name that exists or
 *             nearly (pcore_fuzz_names[]), some random bytes after the
 *             name (always in mode 3, half the time in modes 1 and 2),
 *             in mode 3 sometimes a name without its NUL, and the fields
 *             of LIST, READ and ATTACH drawn around their limits: sizes
 *             right or random, counts small or large, pointers good or
 *             bad (pcore_fuzz_ptr()), an attach of the name's own kind
 *             and default settings half the time
 *   pointer   the argument, or one in 16 times pcore_fuzz_ptr()'s choice
 *
 * Everything is drawn from pcore_rnd(), so a seed replays the calls.
 * Included after kselftest_harness.h, whose ARRAY_SIZE() it uses.
 */
#ifndef PCORE_IOCTL_FUZZ_H
#define PCORE_IOCTL_FUZZ_H

#include "pcore_ioctl.h"

/* Every command of the ABI. */
static const unsigned long pcore_ioc_cmds[] = {
	PCORE_IOC_VERSION, PCORE_IOC_LIST, PCORE_IOC_READ, PCORE_IOC_RESET,
	PCORE_IOC_ATTACH, PCORE_IOC_DETACH, PCORE_IOC_ENABLE, PCORE_IOC_DISABLE,
};

/*
 * Names that exist, or nearly, with the kind that attaches them (0 for
 * none): attaching the real ones is harmless.
 */
static const struct {
	const char *name;
	unsigned int kind;
} pcore_fuzz_names[] = {
	{ "do_fork", PCORE_ATTACH_KRETPROBE },
	{ "sched_switch", PCORE_ATTACH_TRACEPOINT },
	{ "sys_getppid", PCORE_ATTACH_KRETPROBE },
	{ "sys_getpgrp", PCORE_ATTACH_KRETPROBE },
	{ "cpuhists/oncpu", 0 }, { "cpuhists/offcpu", 0 },
	{ "sched_wakeup", PCORE_ATTACH_TRACEPOINT }, { "nosuch", 0 }, { "", 0 },
};

/* The sizes of the ABI's structs: a command's number with another's size. */
static const unsigned int pcore_fuzz_sizes[] = {
	sizeof(struct pcore_ioc_version), sizeof(struct pcore_ioc_entry),
	sizeof(struct pcore_ioc_list), sizeof(struct pcore_ioc_bucket),
	sizeof(struct pcore_ioc_read), sizeof(struct pcore_ioc_name),
	sizeof(struct pcore_ioc_attach),
};

/*
 * pcore_fuzz_ioctl() - one random ioctl of /dev/probe_core (see above)
 * @fd:		/dev/probe_core
 * @unmapped:	an address with no page (pcore_unmapped_page())
 * @known:	how often the command is one of the eight: @known times in 4
 * @cmdp:	the command sent
 *
 * Return: 0 or the ioctl's errno.
 */
static inline int pcore_fuzz_ioctl(int fd, void *unmapped, unsigned int known,
				   unsigned long *cmdp)
{
	static unsigned char arg[8192], out[1 << 17];
	unsigned long cmd, nr = pcore_rnd() % 12, dir = pcore_rnd() % 4, size;
	unsigned int mode = pcore_rnd() % 4, type = PCORE_IOC_MAGIC, j, i;
	void *p = arg;

	if (pcore_rnd() % 4 < known) {
		cmd = pcore_ioc_cmds[pcore_rnd() % ARRAY_SIZE(pcore_ioc_cmds)];
	} else {
		size = pcore_rnd() % 3 ?
		       pcore_fuzz_sizes[pcore_rnd() % ARRAY_SIZE(pcore_fuzz_sizes)] :
		       pcore_rnd() % 1024;
		if (!(pcore_rnd() % 8))
			type += pcore_rnd() % 2 ? 1 : -1;
		cmd = _IOC(dir, type, nr, size);
	}
	i = pcore_rnd() % ARRAY_SIZE(pcore_fuzz_names);
	if (mode == 0) {
		for (j = 0; j < sizeof(arg); j++)
			arg[j] = pcore_rnd();
	} else {
		memset(arg, 0, 1024);
		strcpy((char *)arg, pcore_fuzz_names[i].name);
		/* a few random bytes after the name, or a valid struct */
		if (mode == 3 || pcore_rnd() % 2)
			for (j = 0; j < mode * 2; j++)
				arg[PCORE_UAPI_NAME_MAX + pcore_rnd() % 200] = pcore_rnd();
		if (mode == 3 && !(pcore_rnd() % 4))	/* an unterminated name */
			memset(arg, 'a', PCORE_UAPI_NAME_MAX);
		if (cmd == PCORE_IOC_LIST) {
			struct pcore_ioc_list *l = (void *)arg;

			memset(arg, 0, sizeof(*l));
			l->entries = (uintptr_t)pcore_fuzz_ptr(out, unmapped);
			l->n = pcore_rnd() % 2 ? pcore_rnd() % 16 : pcore_rnd();
			l->entry_size = pcore_rnd() % 4 ?
					sizeof(struct pcore_ioc_entry) : pcore_rnd();
		} else if (cmd == PCORE_IOC_READ) {
			struct pcore_ioc_read *r = (void *)arg;

			memset((char *)r + PCORE_UAPI_NAME_MAX, 0,
			       sizeof(*r) - PCORE_UAPI_NAME_MAX);
			r->cpu = (int)(pcore_rnd() % 5) - 2;
			r->flags = pcore_rnd() % 4 ? pcore_rnd() % 4 : pcore_rnd();
			r->slot = pcore_rnd() % 4 ? pcore_rnd() % 3 : pcore_rnd();
			r->buckets = (uintptr_t)pcore_fuzz_ptr(out, unmapped);
			r->nbuckets = pcore_rnd() % 2 ? pcore_rnd() % 400 :
					pcore_rnd() % 5000;
			r->bucket_size = pcore_rnd() % 4 ?
					 sizeof(struct pcore_ioc_bucket) : pcore_rnd();
			if (mode == 3)	/* one random byte anywhere */
				((unsigned char *)r)[pcore_rnd() % sizeof(*r)] = pcore_rnd();
		} else if (cmd == PCORE_IOC_ATTACH) {
			struct pcore_ioc_attach *a = (void *)arg;

			memset((char *)a + PCORE_UAPI_NAME_MAX, 0,
			       sizeof(*a) - PCORE_UAPI_NAME_MAX);
			/* half of them valid: the name's kind, defaults */
			a->kind = pcore_rnd() % 2 ? pcore_fuzz_names[i].kind :
				  pcore_rnd() % 4;
			if (pcore_rnd() % 2) {
				a->hist_kind = pcore_rnd() % 5;
				a->maxactive = pcore_rnd() % 2 ? 0 : pcore_rnd() % 5000;
				a->precision = pcore_rnd() % 2 ? 0 : pcore_rnd() % 9;
				a->min = pcore_rnd() % 2 ? 0 : pcore_rnd() % 1000;
				a->max = pcore_rnd() % 2 ? 0 : pcore_rnd() % 100000;
				a->step = pcore_rnd() % 2 ? 0 : pcore_rnd() % 1000;
			}
		}
	}
	if (!(pcore_rnd() % 16))
		p = pcore_fuzz_ptr(arg, unmapped);
	*cmdp = cmd;
	return ioctl(fd, cmd, p) ? errno : 0;
}

#endif /* PCORE_IOCTL_FUZZ_H */
