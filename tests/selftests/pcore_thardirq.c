// SPDX-License-Identifier: GPL-2.0
/*
 * thardirq: every hardirq handler call is counted under its IRQ number,
 * labelled with the action name of /proc/interrupts; counts agree with
 * /proc/interrupts; times and return values are plausible; unloading
 * removes the module's directory.
 *
 * Workload: lines written to ttyS1, the 8250 UART that carries the test
 * output (the runner keeps it open, so its IRQ is requested).  The 8250
 * driver sends bytes from its interrupt handler, and a write to an idle
 * port enables the transmit interrupt, so each write waited for with
 * tcdrain() raises at least one interrupt.
 */
#include "pcore_lib.h"
#include "pcore_irq.h"
#include "kselftest_harness.h"

#define MOD	"thardirq"
#define DIR	PCORE_DBG "/" MOD
#define NWRITES	64
/*
 * Pause between reads that must not see a handler half done: a handler
 * records its time and then its return value a few instructions later, and
 * /proc/interrupts counts an IRQ just before its handler runs.  A handler
 * lasts micro- to milliseconds even emulated (asserted below through p50),
 * so 50 ms separates the reads.
 */
#define SETTLE_MS	50

static char buf[PCORE_BUF];

FIXTURE(thardirq) {
	int unused;
};

FIXTURE_SETUP(thardirq)
{
	PCORE_ASSERT_RELOADED(MOD);
}

FIXTURE_TEARDOWN(thardirq)
{
	if (pcore_mod_loaded(MOD))
		EXPECT_EQ(0, pcore_mod_unload_wait(MOD));
	EXPECT_EQ(0, pcore_unload_wait());
}

/*
 * Bracketing: /proc/interrupts is read before (o0) and after (o1) the two
 * reads of the keys file (k0, k1), and again just inside them (i0, i1).
 * The handler calls counted between k0 and k1 include every interrupt
 * counted between i0 and i1 and none outside o0..o1:
 *	i1 - i0 <= k1 - k0 <= o1 - o0
 * for every IRQ with one action (a shared line calls each action once per
 * interrupt).  Exact when the line is quiet around the window, as ttyS1
 * is.  An IRQ is delivered to one CPU at a time on x86, so no handler
 * runs twice for one count of /proc/interrupts.
 */
TEST_F_TIMEOUT(thardirq, counts_match_proc_interrupts, 300)
{
	static struct pcore_irqs o0, i0, i1, o1;
	static struct pcore_keys k0, k1;
	const struct pcore_keyline *q;
	unsigned long long in, out, got;
	int serial, i, checked = 0;

	ASSERT_EQ(0, pcore_irqs_read(&o0));
	serial = pcore_irq_by_name(&o0, "ttyS1");
	ASSERT_LE(0, serial) {
		TH_LOG("no IRQ with the one action ttyS1 in /proc/interrupts");
	}
	pcore_msleep(SETTLE_MS);
	ASSERT_EQ(0, pcore_keys_read(DIR "/time/keys", "irq", &k0));
	pcore_msleep(SETTLE_MS);
	ASSERT_EQ(0, pcore_irqs_read(&i0));

	ASSERT_EQ(0, pcore_serial_lines("/dev/ttyS1", NWRITES, "pcore_thardirq"));
	pcore_msleep(SETTLE_MS);

	ASSERT_EQ(0, pcore_irqs_read(&i1));
	pcore_msleep(SETTLE_MS);
	ASSERT_EQ(0, pcore_keys_read(DIR "/time/keys", "irq", &k1));
	pcore_msleep(SETTLE_MS);
	ASSERT_EQ(0, pcore_irqs_read(&o1));

	/* The workload did raise interrupts: one per write at least. */
	EXPECT_LE(NWRITES, pcore_irq_delta(&i0, &i1, serial));

	for (i = 0; i < o1.n; i++) {
		const struct pcore_irq *l = &o1.l[i], *l0;

		l0 = pcore_irq_find(&o0, l->irq);
		/* Only lines with the same single action all along. */
		if (!l0 || l->shared || l0->shared || !*l->name ||
		    strcmp(l->name, l0->name))
			continue;
		in = pcore_irq_delta(&i0, &i1, l->irq);
		out = pcore_irq_delta(&o0, &o1, l->irq);
		got = pcore_keys_count(&k1, l->irq) -
		      pcore_keys_count(&k0, l->irq);
		EXPECT_LE(in, got) {
			TH_LOG("irq %d %s: %llu calls, %llu interrupts inside",
			       l->irq, l->name, got, in);
		}
		EXPECT_LE(got, out) {
			TH_LOG("irq %d %s: %llu calls, %llu interrupts outside",
			       l->irq, l->name, got, out);
		}
		q = pcore_keys_find(&k1, l->irq);
		if (!q)
			continue;
		/* A key carries the name of the action that ran. */
		EXPECT_STREQ(l->name, q->label);
		checked++;
	}
	EXPECT_LE(1, checked);

	/* Every key is an IRQ of /proc/interrupts with that action name. */
	for (i = 0; i < k1.n; i++) {
		const struct pcore_irq *l = pcore_irq_find(&o1, k1.l[i].key);

		EXPECT_NE(NULL, l) {
			TH_LOG("key %llu is no IRQ", k1.l[i].key);
		}
		if (l && !l->shared)
			EXPECT_STREQ(l->name, k1.l[i].label);
	}
}

/*
 * Times: the 8250 handler reads a few registers and sends at most the one
 * line waiting (under 64 bytes), a few dozen port accesses that cost
 * microseconds each emulated: its median is far below 10 ms.  Return
 * values: IRQ_HANDLED for the interrupts that sent the bytes; the UART
 * also raises interrupts it finds nothing to do for (IRQ_NONE), so no
 * exact split is asserted.  Where the 8250 handler runs in hardirq
 * context it never returns IRQ_WAKE_THREAD.  Where it is threaded, every
 * call is the primary handler that wakes the thread: see below.
 */
TEST_F_TIMEOUT(thardirq, times_and_return_values, 300)
{
	static struct pcore_irqs s;
	static struct pcore_keys t, r1, r2;
	const struct pcore_keyline *tq, *rq1, *rq2;
	struct pcore_timerline tl;
	char thread[32];
	bool threaded;
	int serial;

	ASSERT_EQ(0, pcore_irqs_read(&s));
	serial = pcore_irq_by_name(&s, "ttyS1");
	ASSERT_LE(0, serial);
	ASSERT_EQ(0, pcore_serial_lines("/dev/ttyS1", NWRITES, "pcore_thardirq"));
	pcore_msleep(SETTLE_MS);

	/* ret is recorded right after time in the same handler. */
	ASSERT_EQ(0, pcore_keys_read(DIR "/ret/keys", "irq", &r1));
	pcore_msleep(SETTLE_MS);
	ASSERT_EQ(0, pcore_keys_read(DIR "/time/keys", "irq", &t));
	pcore_msleep(SETTLE_MS);
	ASSERT_EQ(0, pcore_keys_read(DIR "/ret/keys", "irq", &r2));

	tq = pcore_keys_find(&t, serial);
	rq1 = pcore_keys_find(&r1, serial);
	rq2 = pcore_keys_find(&r2, serial);
	ASSERT_NE(NULL, tq);
	ASSERT_NE(NULL, rq1);
	ASSERT_NE(NULL, rq2);
	EXPECT_STREQ("ttyS1", tq->label);
	EXPECT_STREQ("ttyS1", rq2->label);
	EXPECT_LE(NWRITES, tq->count);
	EXPECT_LE(rq1->count, tq->count);
	EXPECT_LE(tq->count, rq2->count);

	EXPECT_LT(0, tq->p50);
	EXPECT_GT(10000000ULL, tq->p50);
	EXPECT_LE(tq->min, tq->p50);
	EXPECT_LE(tq->p50, tq->p90);
	EXPECT_LE(tq->p90, tq->p99);
	EXPECT_LE(tq->p99, tq->max);

	/*
	 * ttyS1's handler is threaded when booted with "threadirqs", and
	 * always on PREEMPT_RT, which force-threads every handler not marked
	 * IRQF_NO_THREAD (the 8250's is not).  Then irq_handler_entry/exit
	 * bracket only the primary handler the kernel put in front of it,
	 * which wakes the thread "irq/<n>-ttyS1" and returns IRQ_WAKE_THREAD
	 * every time; the 8250 code runs in that thread, outside these
	 * tracepoints.  The thread exists exactly then.
	 */
	threaded = pcore_cmdline_has("threadirqs") || pcore_preempt_rt();
	snprintf(thread, sizeof(thread), "irq/%d-", serial);
	EXPECT_EQ(threaded, pcore_tasks_named(thread, NULL) > 0) {
		TH_LOG("threaded IRQs expected: %d, thread %s", threaded,
		       thread);
	}
	if (threaded) {
		EXPECT_EQ(2, rq2->min);
		EXPECT_EQ(2, rq2->max);
		EXPECT_EQ(2 * rq2->count, rq2->sum);
	} else {
		/* 0 and 1 only: the sum counts IRQ_HANDLED. */
		EXPECT_GE(1, rq2->max);
		EXPECT_LE(1, rq2->sum);
	}

	/* Handler timing: one CPU, nothing discarded or evicted. */
	ASSERT_EQ(0, pcore_timer_line(MOD, "handler", &tl));
	EXPECT_STREQ("cpu", tl.scope);
	EXPECT_LE(tq->count, tl.measured);
	EXPECT_EQ(0, tl.discarded);
	EXPECT_EQ(0, tl.evicted);
	/*
	 * Only an exit whose entry ran before the exit probe was attached
	 * finds no stamp: one per CPU at most.
	 */
	EXPECT_GE(sysconf(_SC_NPROCESSORS_CONF), tl.unmatched);

	/* The ret histogram: [1, 2) holds the IRQ_HANDLED calls. */
	ASSERT_LT(0, pcore_read(DIR "/ret/stats", buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "\nkind: linear\n"));
	EXPECT_NE(NULL, strstr(buf, "\nunit: ret\n"));
}

/* Unloading removes the directory and the probes; probe_core stays. */
TEST_F_TIMEOUT(thardirq, unload_removes_everything, 120)
{
	struct pcore_probe_line l;
	struct stat st;

	ASSERT_EQ(0, stat(DIR "/time/keys", &st));
	ASSERT_EQ(0, stat(DIR "/ret/keys", &st));
	ASSERT_EQ(0, pcore_probe_line(MOD "/irq_handler_entry", &l));
	EXPECT_STREQ("tracepoint", l.kind);
	ASSERT_EQ(0, pcore_probe_line(MOD "/irq_handler_exit", &l));
	EXPECT_STREQ("irq_handler_exit", l.symbol);
	EXPECT_EQ(0, l.missed);

	ASSERT_EQ(0, pcore_mod_unload_wait(MOD));
	EXPECT_FALSE(pcore_mod_loaded(MOD));
	PCORE_EXPECT_MOD_GONE(DIR, MOD "/irq_handler_entry",
			      MOD "/irq_handler_exit");
}

TEST_HARNESS_MAIN
