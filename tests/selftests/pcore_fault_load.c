// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation failures in a load of probe_core (pcore_fault.h says how each
 * attempt is judged): the longest of the fault-injection tests, in a
 * program of its own, whose time run_tests.sh prints apart.
 *
 * The walk covers probe_core's init, every allocation of it in turn, and
 * not the module loader's allocations before it: those are the kernel's
 * error paths, not ours, their number varies from load to load (579 to
 * 611 on the debug kernel), and counting them made where our init begins
 * a guess.  pcore_initfail arms this task's fail-nth when the loader calls
 * the init (do_one_initcall()) and clears it when the init returns, so
 * that N counts the init's allocations alone, from its first.
 */
#include "pcore_fault.h"

TEST_F_TIMEOUT(fault, insmod, 7200)
{
	static const struct fault_op op = {
		"insmod " INSMOD_ARGS, no_op, op_insmod, op_rmmod, NULL, NULL
	};
	const char *why = why_skip(_metadata, self->none);
	struct fault_result r;

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, pcore_mod_load(INITFAIL, ""));

	r = fault_loop(_metadata, &op, INITFAIL_NTH, true);
	ASSERT_TRUE(r.ok);
	/* The walk begins in our init: the first dumped fault says so. */
	ASSERT_NE(0, r.located) TH_LOG("no injected fault's stack was dumped");
	ASSERT_TRUE(r.located_ours) {
		TH_LOG("N=%d's stack does not pass through probe_core", r.located);
	}
	ASSERT_NE(0, r.first_said) TH_LOG("no fault failed probe_core's init");
	/* The init allocates far more than a few times. */
	ASSERT_LT(50, r.n);
	ASSERT_FALSE(pcore_loaded());
	ASSERT_EQ(0, pcore_mod_unload_wait(INITFAIL));
}

TEST_HARNESS_MAIN
