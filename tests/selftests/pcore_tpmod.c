// SPDX-License-Identifier: GPL-2.0
/*
 * A tracepoint that lives in a module: pcore_tpsrc.ko defines
 * pcore_tpsrc_event and fires it K times (values 1 to K) on a write of K
 * to its debugfs file; pcore_apitest.ko attaches a probe to it (case
 * tp_wait with PCORE_TP_WAIT, tp_nowait without) that records the values.
 *
 * The probe waits while the module is away, attaches when it loads,
 * counts exactly what is fired, waits again when it unloads (the kernel
 * would warn about a probe left on a going module's tracepoint) and
 * attaches again when it comes back.
 */
#include "pcore_lib.h"
#include <signal.h>
#include <sys/prctl.h>
#include "kselftest_harness.h"

#define APITEST		"pcore_apitest"
#define TPSRC		"pcore_tpsrc"
#define FIRE		"/sys/kernel/debug/pcore_tpsrc/fire"
#define TPSTATS		PCORE_DBG "/pcore_apitest/tp/stats"
#define PROBE		"pcore_apitest/tp"

static char buf[PCORE_BUF], log[16384];

static int unload_all(void)
{
	static const char * const mods[] = { APITEST, TPSRC, "probe_core" };

	return pcore_mods_unload(mods, ARRAY_SIZE(mods));
}

PCORE_BARE_FIXTURE(tpmod, unload_all)

FIXTURE_TEARDOWN(tpmod)
{
	close(self->kmsg);
	EXPECT_EQ(0, unload_all());
	EXPECT_NE(0, access(PCORE_DBG, F_OK));
	EXPECT_NE(0, access(FIRE, F_OK));
}

static int fire(unsigned int n)
{
	char s[16];

	snprintf(s, sizeof(s), "%u", n);
	return pcore_write(FIRE, s, strlen(s));
}

/* The probe's symbol column ("(waiting)" when detached) and hits. */
static void expect_probe(struct __test_metadata *_metadata, const char *symbol,
			 unsigned long long hits)
{
	struct pcore_probe_line l;

	ASSERT_EQ(0, pcore_probe_line(PROBE, &l));
	EXPECT_STREQ("tracepoint", l.kind);
	EXPECT_STREQ(symbol, l.symbol);
	EXPECT_EQ(hits, l.hits);
	EXPECT_EQ(0, l.missed);
}

/* count and sum of the histogram fed by the probe. */
static void expect_values(struct __test_metadata *_metadata,
			  unsigned long long count, unsigned long long sum)
{
	ASSERT_LT(0, pcore_read(TPSTATS, buf, PCORE_BUF));
	EXPECT_EQ(count, pcore_key(buf, "count"));
	EXPECT_EQ(sum, pcore_key(buf, "sum"));
}

/* Exactly one new log line, containing @want; none when @want is NULL. */
static void expect_log(struct __test_metadata *_metadata, int kmsg,
		       const char *want)
{
	int n = kmsg_collect(kmsg, log, sizeof(log));

	EXPECT_EQ(want ? 1 : 0, n) {
		TH_LOG("log lines:\n%s", log);
	}
	if (want)
		EXPECT_NE(NULL, strstr(log, want)) {
			TH_LOG("expected '%s' in:\n%s", want, log);
		}
}

#define ATTACHED	"probe_core: pcore_apitest/tp: attached to pcore_tpsrc_event in pcore_tpsrc"

TEST_F_TIMEOUT(tpmod, waits_for_module, 120)
{
	ASSERT_FALSE(pcore_mod_loaded(TPSRC));
	ASSERT_EQ(0, pcore_mod_load(APITEST, "case=tp_wait"));
	expect_log(_metadata, self->kmsg, NULL);
	expect_probe(_metadata, "(waiting)", 0);
	expect_values(_metadata, 0, 0);

	ASSERT_EQ(0, pcore_mod_load(TPSRC, NULL));
	expect_log(_metadata, self->kmsg, ATTACHED);
	expect_probe(_metadata, "pcore_tpsrc_event", 0);
	ASSERT_EQ(0, fire(100));
	expect_probe(_metadata, "pcore_tpsrc_event", 100);
	expect_values(_metadata, 100, 5050);
	ASSERT_LT(0, pcore_read(TPSTATS, buf, PCORE_BUF));
	EXPECT_EQ(1, pcore_key(buf, "min"));
	EXPECT_EQ(100, pcore_key(buf, "max"));
	EXPECT_NE(NULL, strstr(buf, "\nsymbol: pcore_tpsrc_event\n"));

	/* The module goes: the probe waits again, quietly, with its counts. */
	ASSERT_EQ(0, pcore_mod_unload_wait(TPSRC));
	expect_log(_metadata, self->kmsg, NULL);
	EXPECT_NE(0, access(FIRE, F_OK));
	expect_probe(_metadata, "(waiting)", 100);
	expect_values(_metadata, 100, 5050);

	/* And comes back. */
	ASSERT_EQ(0, pcore_mod_load(TPSRC, NULL));
	expect_log(_metadata, self->kmsg, ATTACHED);
	ASSERT_EQ(0, fire(50));
	expect_probe(_metadata, "pcore_tpsrc_event", 150);
	expect_values(_metadata, 150, 5050 + 1275);

	/* The handler module goes first this time. */
	ASSERT_EQ(0, pcore_mod_unload_wait(APITEST));
	EXPECT_NE(0, access(PCORE_DBG "/pcore_apitest", F_OK));
	ASSERT_LE(0, pcore_read(PCORE_DBG "/probes", buf, PCORE_BUF));
	EXPECT_STREQ("", buf);
	ASSERT_EQ(0, fire(10));
	expect_log(_metadata, self->kmsg, NULL);
}

TEST_F_TIMEOUT(tpmod, nowait_absent, 60)
{
	ASSERT_FALSE(pcore_mod_loaded(TPSRC));
	EXPECT_EQ(ENOENT, pcore_mod_load(APITEST, "case=tp_nowait"));
	expect_log(_metadata, self->kmsg,
		   "pcore_apitest: tracepoint tp: no such tracepoint: pcore_tpsrc_event");
	EXPECT_FALSE(pcore_mod_loaded(APITEST));
	EXPECT_NE(0, access(PCORE_DBG "/pcore_apitest", F_OK));
	ASSERT_LE(0, pcore_read(PCORE_DBG "/probes", buf, PCORE_BUF));
	EXPECT_STREQ("", buf);
}

/* Without PCORE_TP_WAIT, a probe on a loaded module follows it too. */
TEST_F_TIMEOUT(tpmod, nowait_present, 120)
{
	ASSERT_EQ(0, pcore_mod_load(TPSRC, NULL));
	ASSERT_EQ(0, pcore_mod_load(APITEST, "case=tp_nowait"));
	expect_log(_metadata, self->kmsg, NULL);
	expect_probe(_metadata, "pcore_tpsrc_event", 0);
	ASSERT_EQ(0, fire(10));
	expect_probe(_metadata, "pcore_tpsrc_event", 10);

	ASSERT_EQ(0, pcore_mod_unload_wait(TPSRC));
	expect_probe(_metadata, "(waiting)", 10);
	ASSERT_EQ(0, pcore_mod_load(TPSRC, NULL));
	expect_log(_metadata, self->kmsg, ATTACHED);
	ASSERT_EQ(0, fire(10));
	expect_probe(_metadata, "pcore_tpsrc_event", 20);
	expect_values(_metadata, 20, 110);
}

/* The module was there before probe_core: found all the same. */
TEST_F_TIMEOUT(tpmod, source_before_core, 60)
{
	ASSERT_EQ(0, pcore_unload_wait());
	ASSERT_EQ(0, pcore_mod_load(TPSRC, NULL));
	ASSERT_EQ(0, pcore_load(NULL));
	ASSERT_EQ(0, pcore_mod_load(APITEST, "case=tp_nowait"));
	ASSERT_EQ(0, fire(7));
	expect_probe(_metadata, "pcore_tpsrc_event", 7);
	expect_values(_metadata, 7, 28);
	/* probe_core is held by the handler, not by the tracepoint's module. */
	EXPECT_EQ(EAGAIN, pcore_unload());
	ASSERT_EQ(0, pcore_mod_unload_wait(APITEST));
	ASSERT_EQ(0, pcore_unload_wait());
	ASSERT_EQ(0, fire(7));
	expect_log(_metadata, self->kmsg, NULL);
}

/*
 * A child fires without pause while the handler module and the
 * tracepoint's module are unloaded and loaded again, five times each.
 * Then, quiet again, exactly what is fired is counted.
 */
TEST_F_TIMEOUT(tpmod, reload_while_firing, 300)
{
	struct pcore_probe_line l;
	unsigned long long hits;
	pid_t child;
	int i, st;

	ASSERT_EQ(0, pcore_mod_load(TPSRC, NULL));
	ASSERT_EQ(0, pcore_mod_load(APITEST, "case=tp_wait"));
	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			if (fire(200))	/* the module is away */
				usleep(1000);
	}
	for (i = 0; i < 5; i++) {
		usleep(20000);
		ASSERT_EQ(0, pcore_mod_unload_wait(APITEST));
		ASSERT_EQ(0, pcore_mod_load(APITEST, "case=tp_wait"));
		usleep(20000);
		ASSERT_EQ(0, pcore_mod_unload_wait(TPSRC));
		ASSERT_EQ(0, pcore_probe_line(PROBE, &l));
		EXPECT_STREQ("(waiting)", l.symbol);
		ASSERT_EQ(0, pcore_mod_load(TPSRC, NULL));
	}
	/* The last tracepoint module is fired at, and counted (5 s at most). */
	for (i = 0; i < 500; i++) {
		ASSERT_EQ(0, pcore_probe_line(PROBE, &l));
		if (l.hits)
			break;
		usleep(10000);
	}
	kill(child, SIGKILL);
	ASSERT_EQ(child, waitpid(child, &st, 0));
	EXPECT_LT(0, l.hits);

	ASSERT_EQ(0, pcore_probe_line(PROBE, &l));
	EXPECT_STREQ("pcore_tpsrc_event", l.symbol);
	hits = l.hits;
	ASSERT_EQ(0, fire(10));
	expect_probe(_metadata, "pcore_tpsrc_event", hits + 10);
}

/*
 * probe_core's own target= on a function of a module (the write handler
 * of pcore_tpsrc): each write is counted; the module then unloads under
 * the probe (kprobes marks it gone) and probe_core still unloads cleanly.
 */
TEST_F_TIMEOUT(tpmod, target_in_module, 60)
{
	struct pcore_probe_line l;
	char kp[4096];

	ASSERT_EQ(0, pcore_unload_wait());
	ASSERT_EQ(0, pcore_mod_load(TPSRC, NULL));
	ASSERT_EQ(0, pcore_load("target=tpsrc_fire_write"));
	ASSERT_EQ(1, kmsg_collect(self->kmsg, log, sizeof(log)));
	EXPECT_NE(NULL, strstr(log, "tpsrc_fire_write: kretprobe on tpsrc_fire_write"));
	ASSERT_EQ(0, fire(1));
	ASSERT_EQ(0, fire(2));
	ASSERT_EQ(0, fire(3));
	ASSERT_EQ(0, pcore_probe_line("tpsrc_fire_write", &l));
	EXPECT_EQ(3, l.hits);
	EXPECT_EQ(3, pcore_stat("tpsrc_fire_write", "count"));

	ASSERT_EQ(0, pcore_mod_unload_wait(TPSRC));
	ASSERT_LT(0, pcore_read("/sys/kernel/debug/kprobes/list", kp, sizeof(kp)));
	EXPECT_NE(NULL, strstr(kp, "[GONE]")) {
		TH_LOG("kprobes list: %s", kp);
	}
	EXPECT_EQ(3, pcore_stat("tpsrc_fire_write", "count"));
	ASSERT_EQ(0, pcore_unload_wait());
	EXPECT_EQ(0, pcore_read("/sys/kernel/debug/kprobes/list", kp, sizeof(kp)));
	expect_log(_metadata, self->kmsg, NULL);
}

TEST_HARNESS_MAIN
