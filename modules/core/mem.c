// SPDX-License-Identifier: GPL-2.0
/*
 * mem_max: the cap on what probe_core allocates for its clients, and the
 * count against it.  Histograms (at creation and as their pools grow),
 * probes (the struct, its per-CPU counters, and what the kernel allocates
 * for it at registration: kretprobe instances, fprobe's return-hook pool,
 * a uretprobe's call table) and timers (their stamp and stack tables) are
 * counted when allocated and given back when freed.  Lowering the cap
 * refuses new allocations only.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "pcore.h"

/* Bytes, with an optional K, M or G; 1M at least. */
static unsigned long long pcore_mem_max = 256ULL << 20;
static atomic_long_t pcore_mem_used = ATOMIC_LONG_INIT(0);

/*
 * One line naming what is wrong with mem_max=@val (up to its first
 * newline, 32 characters at most), then -EINVAL: the kernel adds its own
 * "invalid for parameter" line.
 */
static int pcore_param_mem_bad(const char *val, const char *why)
{
	pr_err("mem_max=%.*s: %s\n", (int)min_t(size_t, strcspn(val, "\n"), 32),
	       val, why);
	return -EINVAL;
}

static int pcore_param_set_mem(const char *val, const struct kernel_param *kp)
{
	static const char syntax[] =
		"not a number of bytes (digits, then K, M or G or nothing)";
	size_t len = strspn(val, "0123456789");
	const char *end = val + len;
	unsigned long long v;
	unsigned int shift = 0;
	char num[24];

	if (!len)
		return pcore_param_mem_bad(val, syntax);
	if (len >= sizeof(num))
		return pcore_param_mem_bad(val, "more than 2^63 bytes");
	switch (*end) {
	case 'K':
		shift = 10;
		break;
	case 'M':
		shift = 20;
		break;
	case 'G':
		shift = 30;
		break;
	}
	end += !!shift;
	if (*end && strcmp(end, "\n"))
		return pcore_param_mem_bad(val, syntax);
	memcpy(num, val, len);
	num[len] = '\0';
	if (kstrtoull(num, 10, &v) || v > (LONG_MAX >> shift))
		return pcore_param_mem_bad(val, "more than 2^63 bytes");
	if (v << shift < (1ULL << 20))
		return pcore_param_mem_bad(val, "less than the minimum, 1M (1048576 bytes)");
	*(unsigned long long *)kp->arg = v << shift;
	return 0;
}

static int pcore_param_get_mem(char *buffer, const struct kernel_param *kp)
{
	return scnprintf(buffer, PAGE_SIZE, "%llu\n",
			 *(unsigned long long *)kp->arg);
}

static const struct kernel_param_ops pcore_param_mem_ops = {
	.set = pcore_param_set_mem,
	.get = pcore_param_get_mem,
};

module_param_cb(mem_max, &pcore_param_mem_ops, &pcore_mem_max, 0644);
__MODULE_PARM_TYPE(mem_max, "ullong");
MODULE_PARM_DESC(mem_max,
	"cap on the memory of all histograms, probes and timers, in bytes (K, M, G suffixes; default 256M, at least 1M); one over it is refused with E2BIG");

unsigned long long pcore_mem_cap(void)
{
	return READ_ONCE(pcore_mem_max);
}

/* Count @bytes against mem_max.  Return: 0, or -E2BIG with nothing counted. */
int pcore_mem_try(size_t bytes)
{
	long used = atomic_long_add_return(bytes, &pcore_mem_used);

	if (used <= pcore_mem_cap())
		return 0;
	atomic_long_sub(bytes, &pcore_mem_used);
	return -E2BIG;
}

/*
 * pcore_mem_try() with one log line when refused, naming what: "[client: ]
 * what name: needs N bytes; with the M in use that is over mem_max=X".
 */
int pcore_mem_charge(size_t bytes, const char *client, const char *what,
		     const char *name)
{
	if (!pcore_mem_try(bytes))
		return 0;
	pr_err("%s%s%s %s: needs %zu bytes; with the %ld in use that is over mem_max=%llu\n",
	       client, *client ? ": " : "", what, name, bytes,
	       atomic_long_read(&pcore_mem_used), pcore_mem_cap());
	return -E2BIG;
}

void pcore_mem_uncharge(size_t bytes)
{
	atomic_long_sub(bytes, &pcore_mem_used);
}
