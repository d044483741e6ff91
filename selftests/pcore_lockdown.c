// SPDX-License-Identifier: GPL-2.0
/*
 * Runs in a boot with lockdown=confidentiality on a kernel that trusts
 * the key make check signs our modules with (the debug kernel): the
 * kernel is really locked down, an unsigned probe_core is refused, and
 * the signed one loads, shows its debugfs root and unloads.  What
 * probe_core itself allows under lockdown is tested by its own tests;
 * this one proves the signed-module setup they stand on.
 */
#include "pcore_lib.h"
#include <sys/mount.h>
#include "kselftest_harness.h"

#define SECFS		"/sys/kernel/security"
#define UNSIGNED_KO	"/pcore/modules/unsigned/probe_core.ko"

TEST(kernel_is_locked_down)
{
	static char buf[256];

	if (access(SECFS "/lockdown", R_OK))
		ASSERT_EQ(0, mount("securityfs", SECFS, "securityfs", 0, NULL));
	ASSERT_LT(0, pcore_read(SECFS "/lockdown", buf, sizeof(buf)));
	TH_LOG("lockdown: %s", buf);
	ASSERT_NE(NULL, strstr(buf, "[confidentiality]"));
}

TEST(unsigned_module_refused)
{
	ASSERT_FALSE(pcore_loaded());
	ASSERT_EQ(0, access(UNSIGNED_KO, R_OK));
	/* module_sig_check(): no signature, lockdown says no. */
	ASSERT_EQ(EPERM, pcore_load_path(UNSIGNED_KO, ""));
	ASSERT_FALSE(pcore_loaded());
}

TEST(signed_module_loads_and_unloads)
{
	static char buf[4096];

	ASSERT_FALSE(pcore_loaded());
	ASSERT_EQ(0, pcore_load(""));
	ASSERT_TRUE(pcore_loaded());
	/* A read-only debugfs file stays readable under lockdown. */
	ASSERT_LE(0, pcore_read(PCORE_DBG "/probes", buf, sizeof(buf)));
	ASSERT_EQ(0, pcore_unload_wait());
	ASSERT_FALSE(pcore_loaded());
}

TEST_HARNESS_MAIN
