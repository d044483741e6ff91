// SPDX-License-Identifier: GPL-2.0
/*
 * tirqthread: IRQ threads, wake-up to run and run time.  Runs in the boot
 * with "threadirqs" (listed in tests/selftests/threadirqs): there, the 8250
 * UART's handler runs in a thread "irq/<n>-ttyS1".
 *
 * Workload: lines written to ttyS1 (see pcore_thardirq.c); each write
 * raises interrupts whose primary handler wakes the thread.
 *
 * Also: irqs= picks the IRQs, and every malformed value fails the load
 * with EINVAL and one log line naming it.
 */
#include "pcore_lib.h"
#include "pcore_irq.h"
#include "kselftest_harness.h"

#define MOD	"tirqthread"
#define DIR	PCORE_DBG "/" MOD
#define NWRITES	64
/*
 * Pause between reads that must not see a handler half done (a timer
 * counts a measurement just before the handler records it): the handlers
 * take microseconds, 50 ms separates the reads.
 */
#define SETTLE_MS	50

FIXTURE(tirq) {
	int kmsg;
	int serial;			/* IRQ number of ttyS1 */
	char thread[32];		/* "irq/<serial>-" */
};

FIXTURE_SETUP(tirq)
{
	static struct pcore_irqs s;

	PCORE_ASSERT_UNLOADED(MOD);
	ASSERT_EQ(0, pcore_load(NULL));
	self->kmsg = kmsg_open();
	ASSERT_LE(0, self->kmsg);
	ASSERT_EQ(0, pcore_irqs_read(&s));
	self->serial = pcore_irq_by_name(&s, "ttyS1");
	ASSERT_LE(0, self->serial);
	snprintf(self->thread, sizeof(self->thread), "irq/%d-", self->serial);
}

FIXTURE_TEARDOWN(tirq)
{
	if (pcore_mod_loaded(MOD))
		EXPECT_EQ(0, pcore_mod_unload_wait(MOD));
	EXPECT_EQ(0, pcore_unload_wait());
	close(self->kmsg);
}

static int load_irqs(int irq)
{
	char param[32];

	snprintf(param, sizeof(param), "irqs=%d", irq);
	return pcore_mod_load(MOD, param);
}

/*
 * Each bad value alone fails the load with EINVAL, loads nothing, and
 * logs one line that names it (escaped when not printable).  The kernel
 * splits parameters at blanks, so no value holds one.
 */
TEST_F_TIMEOUT(tirq, bad_irqs_fail_with_einval, 120)
{
	static const struct {
		const char *param, *logged;
	} bad[] = {
		{ "irqs=abc", "abc" },
		{ "irqs=3,,4", "" },
		{ "irqs=3,", "" },
		{ "irqs=,3", "" },
		{ "irqs=-1", "-1" },
		{ "irqs=+3", "+3" },
		{ "irqs=0x3", "0x3" },
		{ "irqs=3.0", "3.0" },
		{ "irqs=3;4", "3;4" },
		{ "irqs=1024", "1024" },	/* keys stop at 1024 */
		{ "irqs=4294967299", "4294967299" },	/* 3 mod 2^32 */
		{ "irqs=99999999999999999999999", "99999999999999999999999" },
		/* Logged as 3\001; /dev/kmsg shows the backslash as \x5c. */
		{ "irqs=3\x01", "3\\x5c001" },
	};
	char log[4096], want[128];
	struct stat st;
	unsigned int i;
	int n;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(EINVAL, pcore_mod_load(MOD, bad[i].param)) {
			TH_LOG("%s", bad[i].param);
		}
		EXPECT_FALSE(pcore_mod_loaded(MOD));
		EXPECT_NE(0, stat(DIR, &st));
		n = kmsg_collect(self->kmsg, log, sizeof(log));
		snprintf(want, sizeof(want), MOD ": irqs: bad value '%s'",
			 bad[i].logged);
		EXPECT_EQ(1, n) {
			TH_LOG("%s: %d log lines:\n%s", bad[i].param, n, log);
		}
		EXPECT_NE(NULL, strstr(log, want)) {
			TH_LOG("%s: want '%s' in:\n%s", bad[i].param, want, log);
		}
	}
	/* The neighbours of the bad values load. */
	for (i = 0; i < 3; i++) {
		static const char * const good[] = { "irqs=3,4", "irqs=0",
						      "irqs=0,1,2,3" };

		EXPECT_EQ(0, pcore_mod_load(MOD, good[i])) {
			TH_LOG("%s", good[i]);
		}
		EXPECT_EQ(0, stat(DIR "/latency/keys", &st));
		EXPECT_EQ(0, pcore_mod_unload_wait(MOD));
	}
}

/*
 * irqs=<ttyS1's IRQ>: only its thread is watched, so the "wake" timer's
 * counters are that thread's alone:
 *  - every switch to the thread stops "wake" once: measured (a wake-up
 *    stamp was there, one latency value) or unmatched;
 *  - every switch away from it records one run: the runs lag the
 *    switch-ins by at most the one run in progress.
 * Read in the order wake timer (a), keys, wake timer (b), with pauses:
 *	a.measured <= latency count <= b.measured
 *	runs <= b.measured + b.unmatched
 *	a.measured + a.unmatched <= runs + 1
 * And a wake-up needs an interrupt: latency count <= interrupts.
 */
TEST_F_TIMEOUT(tirq, wake_to_run_of_the_serial_thread, 300)
{
	static struct pcore_irqs o0, o1;
	static struct pcore_keys lat, run;
	struct pcore_timerline a, b, cpu;
	const struct pcore_keyline *lq, *rq;
	char label[64];
	pid_t pid;

	ASSERT_TRUE(pcore_cmdline_has("threadirqs")) {
		TH_LOG("needs the boot with threadirqs (tests/selftests/threadirqs)");
	}
	/* One thread for the one action: keys and timers are its own. */
	ASSERT_EQ(1, pcore_tasks_named(self->thread, &pid));
	snprintf(label, sizeof(label), "%sttyS1", self->thread);

	ASSERT_EQ(0, pcore_irqs_read(&o0));
	ASSERT_EQ(0, load_irqs(self->serial));
	ASSERT_EQ(0, pcore_serial_lines("/dev/ttyS1", NWRITES, "pcore_tirqthread"));
	pcore_msleep(SETTLE_MS);

	ASSERT_EQ(0, pcore_timer_line(MOD, "wake", &a));
	pcore_msleep(SETTLE_MS);
	ASSERT_EQ(0, pcore_keys_read(DIR "/latency/keys", "irq", &lat));
	ASSERT_EQ(0, pcore_keys_read(DIR "/run/keys", "irq", &run));
	pcore_msleep(SETTLE_MS);
	ASSERT_EQ(0, pcore_timer_line(MOD, "wake", &b));
	ASSERT_EQ(0, pcore_timer_line(MOD, "oncpu", &cpu));
	ASSERT_EQ(0, pcore_irqs_read(&o1));

	/* Only the chosen IRQ, labelled with its thread's name. */
	ASSERT_EQ(1, lat.n);
	ASSERT_EQ(1, run.n);
	lq = &lat.l[0];
	rq = &run.l[0];
	EXPECT_EQ(self->serial, lq->key);
	EXPECT_EQ(self->serial, rq->key);
	EXPECT_STREQ(label, lq->label);
	EXPECT_STREQ(label, rq->label);

	EXPECT_STREQ("task", a.scope);
	EXPECT_LE(1, lq->count);
	EXPECT_LE(lq->count, pcore_irq_delta(&o0, &o1, self->serial));
	EXPECT_LE(a.measured, lq->count);
	EXPECT_LE(lq->count, b.measured);
	EXPECT_LE(rq->count, b.measured + b.unmatched);
	EXPECT_LE(a.measured + a.unmatched, rq->count + 1);
	EXPECT_EQ(0, b.discarded);
	EXPECT_EQ(0, b.evicted);
	TH_LOG("wake-ups %llu (unmatched switch-ins %llu), runs %llu, interrupts %llu",
	       lq->count, b.unmatched, rq->count,
	       pcore_irq_delta(&o0, &o1, self->serial));

	/* Runs: one CPU each; only a run begun before the load is unmatched. */
	EXPECT_STREQ("cpu", cpu.scope);
	EXPECT_LE(rq->count, cpu.measured);
	EXPECT_GE(1, cpu.unmatched);

	/*
	 * An IRQ thread is SCHED_FIFO and bound to the CPU that takes its
	 * interrupt: it runs when that interrupt returns, microseconds
	 * later even emulated, and sends at most one line of under 64
	 * bytes per run.  Medians far below 10 ms.
	 */
	EXPECT_LT(0, lq->p50);
	EXPECT_GT(10000000ULL, lq->p50);
	EXPECT_LE(lq->p50, lq->max);
	EXPECT_LT(0, rq->p50);
	EXPECT_GT(10000000ULL, rq->p50);
	EXPECT_LE(rq->p50, rq->max);
}

/* irqs= leaves the others out: ttyS1's thread ran but has no key. */
TEST_F_TIMEOUT(tirq, other_irqs_are_not_watched, 300)
{
	static struct pcore_keys lat, run;
	static struct pcore_irqs s;
	int other, i;

	ASSERT_TRUE(pcore_cmdline_has("threadirqs"));
	ASSERT_EQ(0, pcore_irqs_read(&s));
	other = pcore_irq_by_name(&s, "ttyS0");
	ASSERT_LE(0, other);
	ASSERT_NE(self->serial, other);
	ASSERT_EQ(0, load_irqs(other));
	ASSERT_EQ(0, pcore_serial_lines("/dev/ttyS1", NWRITES, "pcore_tirqthread"));
	pcore_msleep(SETTLE_MS);
	ASSERT_EQ(0, pcore_keys_read(DIR "/latency/keys", "irq", &lat));
	ASSERT_EQ(0, pcore_keys_read(DIR "/run/keys", "irq", &run));
	for (i = 0; i < lat.n; i++)
		EXPECT_EQ(other, lat.l[i].key);
	for (i = 0; i < run.n; i++)
		EXPECT_EQ(other, run.l[i].key);
}

/*
 * Without irqs= every IRQ thread is watched: ttyS1's shows up, and each
 * key's label is the thread "irq/<key>-..." (the number is read from the
 * name, so they must agree).
 */
TEST_F_TIMEOUT(tirq, all_irq_threads_by_default, 300)
{
	static struct pcore_keys lat;
	char prefix[32];
	int i;

	ASSERT_TRUE(pcore_cmdline_has("threadirqs"));
	ASSERT_EQ(0, pcore_mod_load(MOD, NULL));
	ASSERT_EQ(0, pcore_serial_lines("/dev/ttyS1", NWRITES, "pcore_tirqthread"));
	pcore_msleep(SETTLE_MS);
	ASSERT_EQ(0, pcore_keys_read(DIR "/latency/keys", "irq", &lat));
	EXPECT_LE(1, pcore_keys_count(&lat, self->serial));
	for (i = 0; i < lat.n; i++) {
		snprintf(prefix, sizeof(prefix), "irq/%llu-", lat.l[i].key);
		EXPECT_EQ(0, strncmp(lat.l[i].label, prefix, strlen(prefix))) {
			TH_LOG("key %llu label %s", lat.l[i].key,
			       lat.l[i].label);
		}
	}
}

/* Unloading removes the directory and the probes; probe_core stays. */
TEST_F_TIMEOUT(tirq, unload_removes_everything, 120)
{
	struct pcore_probe_line l;
	struct stat st;

	ASSERT_EQ(0, load_irqs(self->serial));
	ASSERT_EQ(0, stat(DIR "/latency/keys", &st));
	ASSERT_EQ(0, stat(DIR "/run/keys", &st));
	ASSERT_EQ(0, pcore_probe_line(MOD "/sched_switch", &l));
	ASSERT_EQ(0, pcore_probe_line(MOD "/sched_waking", &l));
	ASSERT_EQ(0, pcore_mod_unload_wait(MOD));
	PCORE_EXPECT_MOD_GONE(DIR, MOD "/sched_switch", MOD "/sched_waking");
}

TEST_HARNESS_MAIN
