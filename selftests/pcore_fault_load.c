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
 * The module loader's allocations come before probe_core's init runs:
 * reading the file, signature checking, layout, relocation, sysfs, and on
 * the debug kernel a kmemleak record for each (its failures fall back to
 * kmemleak's pool: the load succeeds).  They are the kernel's error paths,
 * not ours, and 600 of the ~900 attempts of a walk from N = 1, each a
 * whole load and unload.  The walk starts LOADER_MARGIN allocations before
 * the loader's count, which is measured as a load whose init refuses
 * maxactive=4097 at its first check, before any allocation of its own.
 * Whole loads counted 906 and 889 allocations, one after the other: the
 * margin is several times that spread.  The walk must be seen to begin
 * in the loader: an attempt that failed without a line of ours before the
 * first that our init reported.
 */
#define LOADER_MARGIN	64

TEST_F_TIMEOUT(fault, insmod, 7200)
{
	static const struct fault_op op = {
		"insmod " INSMOD_ARGS, no_op, op_insmod, op_rmmod, NULL, NULL
	};
	const char *why = why_skip(_metadata, self->none);
	struct fault_result r;
	int loader, ret = 0;

	if (why)
		SKIP(return, "%s", why);
	loader = load_calls(INSMOD_ARGS " maxactive=4097", &ret);
	ASSERT_EQ(EINVAL, ret);
	ASSERT_FALSE(pcore_loaded());
	ASSERT_LT(2 * LOADER_MARGIN, loader);
	TH_LOG("the loader: %d allocations before probe_core's init", loader);
	r = fault_loop(_metadata, &op, loader - LOADER_MARGIN);
	ASSERT_TRUE(r.ok);
	ASSERT_NE(0, r.first_silent) TH_LOG("no fault failed the loader");
	ASSERT_NE(0, r.first_said) TH_LOG("no fault failed probe_core's init");
	ASSERT_LT(r.first_silent, r.first_said) {
		TH_LOG("the walk began in probe_core's init (N=%d): start lower",
		       r.first_said);
	}
	ASSERT_FALSE(pcore_loaded());
}

TEST_HARNESS_MAIN
