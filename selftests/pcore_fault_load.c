// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures in a load of probe_core (pcore_fault.h says how each
 * attempt is judged): the longest of the fault-injection tests, in a
 * program of its own, whose time run_tests.sh prints apart.
 */
#include "pcore_fault.h"

/*
 * Fault-injection calls (fail-nth's count) of one load of probe_core
 * with @params, none of them failed: fail-nth armed far out, then read
 * back.  *@ret is the load's errno.  Returns -1 if it cannot count.
 */
static int load_calls(const char *params, int *ret)
{
	int nth = open(FAIL_NTH, O_RDWR | O_CLOEXEC), left = -1;
	char num[16] = "";

	if (nth < 0)
		return -1;
	if (pwrite(nth, "1000000", 7, 0) == 7) {
		*ret = pcore_load(params);
		if (pread(nth, num, sizeof(num) - 1, 0) > 0)
			left = atoi(num);
	}
	if (pwrite(nth, "0", 1, 0) < 0)
		left = -1;
	close(nth);
	return left <= 0 ? -1 : 1000000 - left;
}

/*
 * Where a walk started at @n would see its first fault dumped: the load
 * of INSMOD_ARGS with the n-th, then the (n+1)-th, ... allocation failing
 * (a __GFP_NOWARN one, such as kmemleak's record of the allocation before
 * it, is not dumped) until one is.  Needs the fault dumps on, fail-nth
 * open as @nth and /dev/kmsg as @kmsg.  Returns DUMP_NONE if none of 8
 * was dumped or it cannot tell.
 */
static enum fault_dump first_dump(int nth, int kmsg, int n)
{
	enum fault_dump dump = DUMP_NONE;
	char num[16];
	int k;

	for (k = n; k < n + 8 && dump == DUMP_NONE; k++) {
		our_lines(kmsg, klog, sizeof(klog), NULL);
		snprintf(num, sizeof(num), "%d", k);
		if (pwrite(nth, num, strlen(num), 0) < 0)
			return DUMP_NONE;
		pcore_load(INSMOD_ARGS);
		if (pwrite(nth, "0", 1, 0) < 0 ||
		    our_lines(kmsg, klog, sizeof(klog), &dump) < 0 ||
		    (pcore_loaded() && pcore_unload_wait()))
			return DUMP_NONE;
	}
	return dump;
}

/*
 * The module loader's allocations come before probe_core's init runs:
 * reading the file, signature checking, layout, relocation, sysfs, and on
 * the debug kernel a kmemleak record for each (its failures fall back to
 * kmemleak's pool: the load succeeds).  They are the kernel's error paths,
 * not ours, and 600 of the ~900 attempts of a walk from N = 1, each a
 * whole load and unload.
 *
 * So the walk starts LOADER_MARGIN allocations before our init's first,
 * found by bisection on where a walk's first dumped fault would be: in
 * the loader below it, in our init from it on.  The bisection's bounds:
 * a load whose init refuses maxactive=4097 at its first check, before any
 * allocation of its own, counts the loader and its unwinding (581 to 611
 * on the debug kernel: the unwinding varies), so our init begins at or
 * before that count, and well after the count less LOADER_SPAN.  The
 * walk's own first dumped fault must then be seen in the loader.
 */
#define LOADER_MARGIN	8
#define LOADER_SPAN	160

TEST_F_TIMEOUT(fault, insmod, 7200)
{
	static const struct fault_op op = {
		"insmod " INSMOD_ARGS, no_op, op_insmod, op_rmmod, NULL, NULL
	};
	const char *why = why_skip(_metadata, self->none);
	enum fault_dump lo_at = DUMP_NONE, hi_at = DUMP_NONE;
	int loader, lo, hi, mid, probes = 0, nth, kmsg, ret = 0;
	struct fault_result r;

	if (why)
		SKIP(return, "%s", why);
	loader = load_calls(INSMOD_ARGS " maxactive=4097", &ret);
	ASSERT_EQ(EINVAL, ret);
	ASSERT_FALSE(pcore_loaded());
	ASSERT_LT(LOADER_SPAN, loader);

	nth = open(FAIL_NTH, O_RDWR | O_CLOEXEC);
	kmsg = kmsg_open();
	ASSERT_LE(0, nth);
	ASSERT_LE(0, kmsg);
	ASSERT_EQ(0, fault_verbose(true));
	kmsg_mark("pcore-fault-inject: begin\n");
	lo = loader - LOADER_SPAN;
	hi = loader;
	lo_at = first_dump(nth, kmsg, lo);
	hi_at = first_dump(nth, kmsg, hi);
	probes = 2;
	while (lo_at == DUMP_THEIRS && hi_at == DUMP_OURS && hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		switch (first_dump(nth, kmsg, mid)) {
		case DUMP_THEIRS:
			lo = mid;
			break;
		case DUMP_OURS:
			hi = mid;
			break;
		default:
			hi_at = DUMP_NONE;
		}
		probes++;
	}
	kmsg_mark("pcore-fault-inject: end\n");
	ret = fault_verbose(false);
	close(nth);
	close(kmsg);
	ASSERT_EQ(0, ret);
	ASSERT_FALSE(pcore_loaded());
	ASSERT_EQ(DUMP_THEIRS, lo_at) {
		TH_LOG("a walk from N=%d (the loader's count %d less %d) does not begin in the loader",
		       loader - LOADER_SPAN, loader, LOADER_SPAN);
	}
	ASSERT_EQ(DUMP_OURS, hi_at) {
		TH_LOG("bisection: no fault dumped from N=%d on, or not in our init (N=%d..%d)",
		       hi, lo, hi);
	}
	TH_LOG("the loader: %d allocations with its unwinding; our init from N=%d (%d bisection steps)",
	       loader, hi, probes);

	r = fault_loop(_metadata, &op, hi - LOADER_MARGIN, true);
	ASSERT_TRUE(r.ok);
	ASSERT_NE(0, r.located) TH_LOG("no injected fault's stack was dumped");
	ASSERT_FALSE(r.located_ours) {
		TH_LOG("the walk began in our init (N=%d's stack)", r.located);
	}
	TH_LOG("N=%d's stack was the loader's", r.located);
	ASSERT_NE(0, r.first_said) TH_LOG("no fault failed probe_core's init");
	ASSERT_FALSE(pcore_loaded());
}

TEST_HARNESS_MAIN
