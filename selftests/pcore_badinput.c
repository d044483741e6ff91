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

	/* "@200" and "@2000" stand for names of that many letters. */
	if (strstr(variant->params, "@")) {
		int len = atoi(strchr(variant->params, '@') + 1);

		n = snprintf(params, sizeof(params), "%.*s",
			     (int)(strchr(variant->params, '@') - variant->params),
			     variant->params);
		memset(params + n, 'a', len);
		params[n + len] = '\0';
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

#define BAD(name, p, e, l)						\
	FIXTURE_VARIANT_ADD(bad, name) {				\
		.params = p, .err = e, .log = l,			\
	}

BAD(no_such_function, "target=pcore_no_such_function", ENOENT,
    "target=pcore_no_such_function: no such kernel function");
BAD(blacklisted, "target=get_kprobe", EINVAL, "kprobes refused get_kprobe");
BAD(data_symbol, "target=jiffies", EINVAL, "kprobes refused jiffies");
BAD(empty_list, "target=", EINVAL, "target=: empty list");
BAD(empty_element, "target=do_fork,,vfs_read", EINVAL, "target=: empty name");
BAD(trailing_comma, "target=do_fork,", EINVAL, "target=: empty name");
BAD(overlong_name, "target=@200", EINVAL, "is 200 characters, longer than 127");
/*
 * Over the kernel's own limit on string parameters (1024 characters) the
 * module is never called: the kernel refuses with two lines of its own.
 */
FIXTURE_VARIANT_ADD(bad, overlong_param) {
	.params = "target=@2000", .err = ENOSPC, .lines = 2,
	.log = "target: string parameter too long",
};
BAD(garbage_dash, "target=do-fork", EINVAL, "'do-fork' is not a symbol name");
BAD(garbage_path, "target=../x", EINVAL, "is not a symbol name");
BAD(garbage_bytes, "target=\x01\x7f\xff", EINVAL, "is not a symbol name");
BAD(duplicate, "target=do_fork,do_fork", EINVAL, "target=do_fork: given twice");
BAD(alias_duplicate, "target=do_fork,kernel_clone", EINVAL,
    "resolves to kernel_clone, which do_fork already probes");
BAD(partial_target, "target=do_fork,vfs_read,pcore_no_such_function", ENOENT,
    "no such kernel function");
BAD(tp_unknown, "tracepoints=pcore_no_such_tp", ENOENT,
    "tracepoints=pcore_no_such_tp: no such tracepoint");
BAD(tp_no_handler, "tracepoints=sched_wakeup", EINVAL, "no built-in handler");
BAD(tp_duplicate, "tracepoints=sched_switch,sched_switch", EINVAL,
    "tracepoints=sched_switch: given twice");
BAD(tp_empty, "tracepoints=", EINVAL, "tracepoints=: empty list");
BAD(partial_mixed, "target=do_fork tracepoints=sched_switch,nope", ENOENT,
    "tracepoints=nope: no such tracepoint");
BAD(maxactive_big, "target=do_fork maxactive=5000", EINVAL,
    "maxactive=5000: more than 4096");
BAD(maxactive_garbage, "maxactive=abc", EINVAL,
    "invalid for parameter `maxactive'");
BAD(maxactive_negative, "maxactive=-1", EINVAL,
    "invalid for parameter `maxactive'");
BAD(hist_unknown, "target=do_fork hist=bogus", EINVAL, "hist=bogus: unknown kind");
BAD(hist_linear_short, "hist=linear:0,100", EINVAL, "MIN,MAX,STEP");
BAD(hist_linear_long, "hist=linear:0,100,10,5", EINVAL, "MIN,MAX,STEP");
BAD(hist_linear_garbage, "hist=linear:a,b,c", EINVAL, "MIN,MAX,STEP");
BAD(hist_linear_order, "hist=linear:100,0,10", EINVAL, "max must be above min");
BAD(hist_linear_multiple, "hist=linear:0,100,7", EINVAL, "multiple of step");
BAD(hist_linear_step0, "hist=linear:0,100,0", EINVAL, "step must be at least 1");
BAD(hist_linear_huge, "hist=linear:0,1000000,1", EINVAL, "more than 2048 buckets");
BAD(hist_loglinear_0, "hist=loglinear:0", EINVAL, "precision must be 1 to 7");
BAD(hist_loglinear_8, "hist=loglinear:8", EINVAL, "precision must be 1 to 7");
BAD(hist_loglinear_x, "hist=loglinear:x", EINVAL, "precision must be 1 to 7");

/* After all that, good parameters still work, and unloading cleans up. */
TEST(good_after_bad)
{
	int lines = 0;
	char *p;

	ASSERT_EQ(0, pcore_load("target=do_fork,vfs_read tracepoints=sched_switch hist=log2 maxactive=64"));
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

	ASSERT_EQ(0, pcore_load("target=vfs_read hist=linear:0,1000000,1000"));
	ASSERT_LT(0, pcore_read(PCORE_DBG "/vfs_read/stats", buf, PCORE_BUF));
	EXPECT_NE(NULL, strstr(buf, "\nkind: linear\n"));
	EXPECT_NE(NULL, strstr(buf, "\npercentile_error: 500ns\n"));
	ASSERT_EQ(0, pcore_unload_wait());
	assert_nothing_left(_metadata);
}

TEST_HARNESS_MAIN
