// SPDX-License-Identifier: GPL-2.0
/*
 * Bad module parameters: the load fails with the right errno, one log line
 * names the problem, and nothing stays behind (module, kprobes, debugfs).
 */
#include "pcore_lib.h"
#include "kselftest_harness.h"

#define KPROBES_LIST	"/sys/kernel/debug/kprobes/list"

static char buf[PCORE_BUF], log[16384], params[4096];

FIXTURE(bad) {
	int kmsg;
};

FIXTURE_VARIANT(bad) {
	const char *params;
	int err;
	const char *log;
	int lines;	/* log lines expected when not 1 */
};

FIXTURE_SETUP(bad)
{
	if (pcore_loaded())
		ASSERT_EQ(0, pcore_unload_wait());
	self->kmsg = kmsg_open();
	ASSERT_LE(0, self->kmsg);
}

FIXTURE_TEARDOWN(bad)
{
	close(self->kmsg);
	if (pcore_loaded())
		pcore_unload_wait();
}

/* Nothing registered: the quiet VM has no other kprobes. */
static void assert_nothing_left(struct __test_metadata *_metadata)
{
	EXPECT_FALSE(pcore_loaded());
	EXPECT_EQ(0, pcore_read(KPROBES_LIST, buf, PCORE_BUF)) {
		TH_LOG("left in %s: %s", KPROBES_LIST, buf);
	}
	EXPECT_NE(0, access(PCORE_DBG, F_OK));
}

TEST_F_TIMEOUT(bad, refused, 60)
{
	int n;

	/*
	 * "@200" and "@2000" stand for names of that many letters, "@65names"
	 * for a list of 65 names.
	 */
	if (strstr(variant->params, "@")) {
		char *end;
		int len = strtol(strchr(variant->params, '@') + 1, &end, 10), i;

		n = snprintf(params, sizeof(params), "%.*s",
			     (int)(strchr(variant->params, '@') - variant->params),
			     variant->params);
		if (!strcmp(end, "names")) {
			for (i = 0; i < len; i++)
				n += snprintf(params + n, sizeof(params) - n,
					      "%sf%d", i ? "," : "", i);
		} else {
			memset(params + n, 'a', len);
			params[n + len] = '\0';
		}
	} else {
		snprintf(params, sizeof(params), "%s", variant->params);
	}
	EXPECT_EQ(variant->err, pcore_load(params)) {
		TH_LOG("params '%.80s'", params);
	}
	n = kmsg_collect(self->kmsg, log, sizeof(log));
	EXPECT_EQ(variant->lines ?: 1, n) {
		TH_LOG("log lines:\n%s", log);
	}
	EXPECT_NE(NULL, strstr(log, variant->log)) {
		TH_LOG("expected '%s' in:\n%s", variant->log, log);
	}
	assert_nothing_left(_metadata);
}

FIXTURE_VARIANT_ADD(bad, no_such_function) {
	.params = "mechanism=kprobe target=pcore_no_such_function",
	.err = ENOENT,
	.log = "kretprobe pcore_no_such_function: no such kernel function",
};

FIXTURE_VARIANT_ADD(bad, no_such_function_auto) {
	.params = "target=pcore_no_such_function",
	.err = ENOENT,
	.log = "direct-ret pcore_no_such_function: no such kernel function",
};

FIXTURE_VARIANT_ADD(bad, blacklisted) {
	.params = "target=get_kprobe",
	.err = EINVAL,
	.log = "kprobes refused get_kprobe",
};

FIXTURE_VARIANT_ADD(bad, data_symbol) {
	.params = "target=jiffies",
	.err = EINVAL,
	.log = "kprobes refused jiffies",
};

FIXTURE_VARIANT_ADD(bad, empty_list) {
	.params = "target=",
	.err = EINVAL,
	.log = "target=: empty list",
};

FIXTURE_VARIANT_ADD(bad, empty_element) {
	.params = "target=do_fork,,vfs_read",
	.err = EINVAL,
	.log = "target=: empty name",
};

FIXTURE_VARIANT_ADD(bad, trailing_comma) {
	.params = "target=do_fork,",
	.err = EINVAL,
	.log = "target=: empty name",
};

FIXTURE_VARIANT_ADD(bad, overlong_name) {
	.params = "target=@200",
	.err = EINVAL,
	.log = "is 200 characters, longer than 127",
};

/*
 * Over the limit on string parameters (1024 characters, as the kernel's
 * charp): EINVAL, as for every bad parameter, and one line.
 */
FIXTURE_VARIANT_ADD(bad, overlong_param) {
	.params = "target=@2000", .err = EINVAL,
	.log = "target=: longer than 1024 characters",
};

FIXTURE_VARIANT_ADD(bad, overlong_hist) {
	.params = "hist=@1025", .err = EINVAL,
	.log = "hist=: longer than 1024 characters",
};

/* At most 64 functions in target= (counted before any is attached). */
FIXTURE_VARIANT_ADD(bad, target_65) {
	.params = "target=@65names", .err = EINVAL,
	.log = "target=: 65 names, more than 64",
};

FIXTURE_VARIANT_ADD(bad, garbage_dash) {
	.params = "target=do-fork",
	.err = EINVAL,
	.log = "'do-fork' is not a symbol name",
};

FIXTURE_VARIANT_ADD(bad, garbage_path) {
	.params = "target=../x",
	.err = EINVAL,
	.log = "hist: '../x' is not a valid name",
};

FIXTURE_VARIANT_ADD(bad, garbage_bytes) {
	.params = "target=\x01\x7f\xff",
	.err = EINVAL,
	/* %pE escapes \x01 and \x7f; \xff is Latin-1, printed (kmsg escapes) */
	.log = "target=\\x5c001\\x5c177\\xff: characters other than printable ASCII without blanks",
};

FIXTURE_VARIANT_ADD(bad, duplicate) {
	.params = "target=do_fork,do_fork",
	.err = EINVAL,
	.log = "target=do_fork: given twice",
};

FIXTURE_VARIANT_ADD(bad, alias_duplicate) {
	.params = "target=do_fork,kernel_clone",
	.err = EINVAL,
	.log = "resolves to kernel_clone, which do_fork already probes",
};

FIXTURE_VARIANT_ADD(bad, count_unknown_suffix) {
	.params = "target=do_fork:cnt",
	.err = EINVAL,
	.log = "target=do_fork:cnt: unknown suffix ':cnt' (known: ':count',",
};

FIXTURE_VARIANT_ADD(bad, count_empty_suffix) {
	.params = "target=do_fork:",
	.err = EINVAL,
	.log = "target=do_fork:: unknown suffix ':'",
};

FIXTURE_VARIANT_ADD(bad, count_no_function) {
	.params = "target=:count",
	.err = EINVAL,
	.log = "target=:count: no function",
};

FIXTURE_VARIANT_ADD(bad, count_no_such_function) {
	.params = "mechanism=kprobe target=pcore_no_such_function:count",
	.err = ENOENT,
	.log = "kprobe pcore_no_such_function:count: no such kernel function pcore_no_such_function",
};

FIXTURE_VARIANT_ADD(bad, count_no_such_function_auto) {
	.params = "target=pcore_no_such_function:count",
	.err = ENOENT,
	.log = "direct pcore_no_such_function:count: no such kernel function pcore_no_such_function",
};

FIXTURE_VARIANT_ADD(bad, count_twice) {
	.params = "target=do_fork:count,do_fork:count",
	.err = EINVAL,
	.log = "target=do_fork:count: given twice",
};

FIXTURE_VARIANT_ADD(bad, count_alias_duplicate) {
	.params = "target=do_fork:count,kernel_clone:count",
	.err = EINVAL,
	.log = "resolves to kernel_clone, which do_fork:count already probes",
};

FIXTURE_VARIANT_ADD(bad, count_data_symbol) {
	.params = "target=jiffies:count",
	.err = EINVAL,
	.log = "kprobes refused jiffies",
};

FIXTURE_VARIANT_ADD(bad, partial_target) {
	.params = "target=do_fork,vfs_read,pcore_no_such_function",
	.err = ENOENT,
	.log = "no such kernel function",
};

FIXTURE_VARIANT_ADD(bad, tp_unknown) {
	.params = "tracepoints=pcore_no_such_tp",
	.err = ENOENT,
	.log = "tracepoints=pcore_no_such_tp: no such tracepoint",
};

FIXTURE_VARIANT_ADD(bad, tp_no_handler) {
	.params = "tracepoints=sched_wakeup",
	.err = EINVAL,
	.log = "no built-in handler",
};

FIXTURE_VARIANT_ADD(bad, tp_duplicate) {
	.params = "tracepoints=sched_switch,sched_switch",
	.err = EINVAL,
	.log = "tracepoints=sched_switch: given twice",
};

FIXTURE_VARIANT_ADD(bad, tp_empty) {
	.params = "tracepoints=",
	.err = EINVAL,
	.log = "tracepoints=: empty list",
};

FIXTURE_VARIANT_ADD(bad, partial_mixed) {
	.params = "target=do_fork tracepoints=sched_switch,nope",
	.err = ENOENT,
	.log = "tracepoints=nope: no such tracepoint",
};

FIXTURE_VARIANT_ADD(bad, maxactive_big) {
	.params = "target=do_fork maxactive=5000",
	.err = EINVAL,
	.log = "maxactive=5000: more than 4096",
};

FIXTURE_VARIANT_ADD(bad, maxactive_garbage) {
	.params = "maxactive=abc",
	.err = EINVAL,
	.log = "invalid for parameter `maxactive'",
};

/*
 * mem_max: bytes with an optional K, M or G; at least 1M: probe_core's
 * line says which, then the kernel's own ("invalid for parameter").
 */
FIXTURE_VARIANT_ADD(bad, mem_max_garbage) {
	.params = "mem_max=abc",
	.err = EINVAL,
	.log = "mem_max=abc: not a number of bytes (digits, then K, M or G or nothing)",
	.lines = 2,
};

FIXTURE_VARIANT_ADD(bad, mem_max_empty) {
	.params = "mem_max=",
	.err = EINVAL,
	.log = "mem_max=: not a number of bytes",
	.lines = 2,
};

FIXTURE_VARIANT_ADD(bad, mem_max_small) {
	.params = "mem_max=1023K",
	.err = EINVAL,
	.log = "mem_max=1023K: less than the minimum, 1M (1048576 bytes)",
	.lines = 2,
};

FIXTURE_VARIANT_ADD(bad, mem_max_suffix) {
	.params = "mem_max=1MB",
	.err = EINVAL,
	.log = "mem_max=1MB: not a number of bytes",
	.lines = 2,
};

FIXTURE_VARIANT_ADD(bad, mem_max_negative) {
	.params = "mem_max=-1",
	.err = EINVAL,
	.log = "mem_max=-1: not a number of bytes",
	.lines = 2,
};

/* 2^64 / 2^30 rounds to more than 2^63 bytes: no silent wrap. */
FIXTURE_VARIANT_ADD(bad, mem_max_wraps) {
	.params = "mem_max=17179869184G",
	.err = EINVAL,
	.log = "mem_max=17179869184G: more than 2^63 bytes",
	.lines = 2,
};

/* 2^32: kstrtouint() says ERANGE; the user guide promises EINVAL. */
FIXTURE_VARIANT_ADD(bad, maxactive_huge) {
	.params = "maxactive=4294967296",
	.err = EINVAL,
	.log = "invalid for parameter `maxactive'",
};

FIXTURE_VARIANT_ADD(bad, maxactive_negative) {
	.params = "maxactive=-1",
	.err = EINVAL,
	.log = "invalid for parameter `maxactive'",
};

FIXTURE_VARIANT_ADD(bad, hist_unknown) {
	.params = "target=do_fork hist=bogus",
	.err = EINVAL,
	.log = "hist=bogus: unknown kind",
};

FIXTURE_VARIANT_ADD(bad, hist_linear_short) {
	.params = "hist=linear:0,100",
	.err = EINVAL,
	.log = "MIN,MAX,STEP",
};

FIXTURE_VARIANT_ADD(bad, hist_linear_long) {
	.params = "hist=linear:0,100,10,5",
	.err = EINVAL,
	.log = "MIN,MAX,STEP",
};

FIXTURE_VARIANT_ADD(bad, hist_linear_garbage) {
	.params = "hist=linear:a,b,c",
	.err = EINVAL,
	.log = "MIN,MAX,STEP",
};

FIXTURE_VARIANT_ADD(bad, hist_linear_order) {
	.params = "hist=linear:100,0,10",
	.err = EINVAL,
	.log = "max must be above min",
};

FIXTURE_VARIANT_ADD(bad, hist_linear_multiple) {
	.params = "hist=linear:0,100,7",
	.err = EINVAL,
	.log = "multiple of step",
};

FIXTURE_VARIANT_ADD(bad, hist_linear_step0) {
	.params = "hist=linear:0,100,0",
	.err = EINVAL,
	.log = "step must be at least 1",
};

FIXTURE_VARIANT_ADD(bad, hist_linear_huge) {
	.params = "hist=linear:0,1000000,1",
	.err = EINVAL,
	.log = "more than 2048 buckets",
};

FIXTURE_VARIANT_ADD(bad, hist_loglinear_0) {
	.params = "hist=loglinear:0",
	.err = EINVAL,
	.log = "precision must be 1 to 7",
};

FIXTURE_VARIANT_ADD(bad, hist_loglinear_8) {
	.params = "hist=loglinear:8",
	.err = EINVAL,
	.log = "precision must be 1 to 7",
};

FIXTURE_VARIANT_ADD(bad, hist_loglinear_x) {
	.params = "hist=loglinear:x",
	.err = EINVAL,
	.log = "precision must be 1 to 7",
};

/* After all that, good parameters still work, and unloading cleans up. */
TEST(good_after_bad)
{
	int lines = 0;
	char *p;

	ASSERT_EQ(0, pcore_load("mechanism=kprobe target=do_fork,vfs_read tracepoints=sched_switch hist=log2 maxactive=64"));
	ASSERT_LT(0, pcore_read(PCORE_DBG "/probes", buf, PCORE_BUF));
	for (p = buf; (p = strchr(p, '\n')); p++)
		lines++;
	EXPECT_EQ(3, lines);
	EXPECT_NE(NULL, strstr(buf, "vfs_read kretprobe vfs_read "));
	EXPECT_NE(NULL, strstr(buf, "sched_switch tracepoint sched_switch "));
	ASSERT_LT(0, pcore_read(KPROBES_LIST, buf, PCORE_BUF));
	EXPECT_NE(NULL, strstr(buf, "kernel_clone"));
	EXPECT_NE(NULL, strstr(buf, "vfs_read"));
	ASSERT_LT(0, pcore_read(PCORE_DBG "/vfs_read/stats", buf, PCORE_BUF));
	EXPECT_NE(NULL, strstr(buf, "\nkind: log2\n"));
	EXPECT_NE(NULL, strstr(buf, "\npercentile_error: 50.0000%\n"));
	ASSERT_EQ(0, pcore_unload_wait());
	assert_nothing_left(_metadata);

	/* By default, a direct call. */
	ASSERT_EQ(0, pcore_load("target=vfs_read hist=linear:0,1000000,1000"));
	ASSERT_LT(0, pcore_read(PCORE_DBG "/probes", buf, PCORE_BUF));
	EXPECT_NE(NULL, strstr(buf, "vfs_read direct-ret vfs_read ")) TH_LOG("%s", buf);
	ASSERT_LT(0, pcore_read(PCORE_DBG "/vfs_read/stats", buf, PCORE_BUF));
	EXPECT_NE(NULL, strstr(buf, "\nkind: linear\n"));
	EXPECT_NE(NULL, strstr(buf, "\npercentile_error: 500ns\n"));
	ASSERT_EQ(0, pcore_unload_wait());
	assert_nothing_left(_metadata);
}

TEST_HARNESS_MAIN
