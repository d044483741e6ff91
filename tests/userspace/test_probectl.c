// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of probectl, under AddressSanitizer and UndefinedBehavior-
 * Sanitizer: its command line (every class of bad input), and its commands
 * run whole (pc_run()) against a fake /dev/probe_core (fake.c) whose
 * histograms are kept by the real engine.  Outputs are compared with the
 * golden files in golden/; run.sh also checks the JSON goldens with jq and
 * the Prometheus ones with promtool.
 *
 * PROBECTL_UPDATE_GOLDEN=1 rewrites the goldens instead of comparing:
 * review every change with git diff before committing it.
 */
#include <errno.h>
#include <dirent.h>
#include <pthread.h>
#include <pty.h>
#include <termios.h>
#include <elf.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <snappy-c.h>

#include "kselftest_harness.h"
#include "args.h"
#include "elfsym.h"
#include "fake.h"
#include "flame.h"
#include "format.h"
#include "heatmap.h"
#include "stacks.h"
#include "usym.h"
#include "remote_write.h"
#include "remote.pb-c.h"

#ifndef GOLDEN_DIR
#error "GOLDEN_DIR must name tests/userspace/golden"
#endif

/* ---- running probectl ---- */

struct result {
	int ret;
	char *out;
	char *err;
	size_t outlen, errlen;
};

/* probectl's standard input in the next run() (flamegraph -i -) */
static FILE *run_stdin;

/* pc_run("probectl", args...) with the environment of @f. */
static struct result run_argv(struct fake *f, int argc, char **argv)
{
	struct result r = { 0 };
	struct pc_env env = { 0 };

	fake_env(&env, f);
	env.in = run_stdin;
	env.out = open_memstream(&r.out, &r.outlen);
	env.err = open_memstream(&r.err, &r.errlen);
	r.ret = pc_run(argc, argv, &env);
	fclose(env.out);
	fclose(env.err);
	return r;
}

static struct result run(struct fake *f, ...)
{
	char *argv[40] = { "probectl" };
	int argc = 1;
	va_list ap;

	va_start(ap, f);
	while ((argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	return run_argv(f, argc, argv);
}

#define RUN(f, ...)	run(f, __VA_ARGS__, (char *)NULL)

static void result_free(struct result *r)
{
	free(r->out);
	free(r->err);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int c;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(m);
	fclose(f);
	return buf;
}

/*
 * Compares @got with golden/@name; on a difference, writes @got beside
 * the test binary as @name.got and fails with the diff command.
 */
static void check_golden(struct __test_metadata *_metadata, const char *name,
			 const char *got)
{
	const char *outdir = getenv("TEST_OUT") ?: ".";
	char path[512], gotpath[512];
	char *want;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", GOLDEN_DIR, name);
	if (getenv("PROBECTL_UPDATE_GOLDEN")) {
		f = fopen(path, "w");
		ASSERT_NE(NULL, f);
		fputs(got, f);
		fclose(f);
		return;
	}
	want = slurp(path);
	ASSERT_NE(NULL, want) TH_LOG("cannot read %s", path);
	if (strcmp(want, got)) {
		snprintf(gotpath, sizeof(gotpath), "%s/%s.got", outdir, name);
		f = fopen(gotpath, "w");
		if (f) {
			fputs(got, f);
			fclose(f);
		}
		free(want);
		ASSERT_TRUE(0) TH_LOG("output differs: diff -u %s %s", path,
				      gotpath);
	}
	free(want);
}

/* ---- the fake's standard histograms ---- */

/*
 * Six histograms, one of each shape:
 * - do_fork: probe_core's own kretprobe, loglinear (the default), 203
 *   values on two CPUs, 7 missed
 * - tcpsize/size: a handler module's kprobe, log2, in bytes
 * - thardirq/irq_time: keyed by irq, loglinear:2; slot 1 unused, slot 3 a
 *   key without values and a label that needs escaping, 2 dropped
 * - tpsrc/waiting: a tracepoint waiting for its module, linear, empty
 * - vfs_read: own, disabled, log2, emptied since its 5 values
 * - cpuhists/offcpu: no probe, log2, in ns, three values on CPU 1
 */
static void std_fake(struct fake *f)
{
	struct pcore_hist_spec loglin = { .kind = PCORE_HIST_LOGLINEAR };
	struct pcore_hist_spec loglin2 = { .kind = PCORE_HIST_LOGLINEAR,
					   .precision = 2 };
	struct pcore_hist_spec log2 = { .kind = PCORE_HIST_LOG2 };
	struct pcore_hist_spec lin = { .kind = PCORE_HIST_LINEAR, .min = 0,
				       .max = 1000, .step = 100 };
	struct fake_hist *h;
	unsigned int i;

	memset(f, 0, sizeof(*f));
	h = fake_add(f, "do_fork", "kretprobe", "kernel_clone", "ns",
		     PCORE_ENT_OWN | PCORE_ENT_HAS_PROBE, &loglin, "", 1);
	for (i = 0; i < 200; i++)
		fake_record(h, 0, 0, 400000 + (i * i * 37) % 900000);
	fake_record(h, 1, 0, 1358680);
	fake_record(h, 1, 0, 398970);
	fake_record(h, 1, 0, 520000);
	h->e.hits = 210;
	h->e.missed = 7;

	h = fake_add(f, "tcpsize/size", "kprobe", "tcp_sendmsg", "bytes",
		     PCORE_ENT_HAS_PROBE, &log2, "", 1);
	fake_record(h, 0, 0, 0);
	fake_record(h, 0, 0, 1);
	fake_record(h, 0, 0, 100);
	for (i = 0; i < 50; i++)
		fake_record(h, 0, 0, 1448);
	for (i = 0; i < 10; i++)
		fake_record(h, 1, 0, 4096);
	for (i = 0; i < 3; i++)
		fake_record(h, 1, 0, 65536);
	h->e.hits = 66;

	h = fake_add(f, "thardirq/irq_time", "tracepoint", "irq_handler_exit",
		     "ns", PCORE_ENT_HAS_PROBE, &loglin2, "irq", 4);
	fake_key(h, 0, 1, "i8042");
	fake_key(h, 2, 11, "virtio0 queue");
	fake_key(h, 3, 24, "q\"uo\\te");
	fake_record(h, 0, 0, 1200);
	fake_record(h, 0, 0, 1500);
	fake_record(h, 0, 0, 900);
	for (i = 0; i < 4; i++)
		fake_record(h, 0, 2, 5000);
	fake_record(h, 1, 2, 7000);
	fake_record(h, 1, 2, 20000);
	h->dropped = 2;
	h->e.hits = 11;

	h = fake_add(f, "tpsrc/waiting", "tracepoint", "", "ns",
		     PCORE_ENT_HAS_PROBE | PCORE_ENT_WAITING, &lin, "", 1);

	h = fake_add(f, "vfs_read", "kretprobe", "vfs_read", "ns",
		     PCORE_ENT_OWN | PCORE_ENT_HAS_PROBE | PCORE_ENT_DISABLED,
		     &log2, "", 1);
	h->e.hits = 5;
	h->e.count = 5;
	/* in its total, as in probe_core's (PCORE_READ_TOTAL) */
	for (i = 0; i < 5; i++)
		pcore_record(&h->l, h->life, 1000 << i);

	h = fake_add(f, "cpuhists/offcpu", "", "", "ns", 0, &log2, "", 1);
	fake_record(h, 1, 0, 3);
	fake_record(h, 1, 0, 900);
	fake_record(h, 1, 0, 1 << 20);
}

/*
 * Runs probectl ARGS... (up to the first NULL) on the fake @setup fills:
 * exit 0, nothing on stderr, stdout as the golden @file, every open
 * closed.
 */
static void fake_golden(struct __test_metadata *_metadata,
			void (*setup)(struct fake *f), const char *file, ...)
{
	char *argv[16] = { "probectl" };
	struct fake f;
	struct result r;
	int argc = 1;
	va_list ap;

	va_start(ap, file);
	while (argc < 15 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	setup(&f);
	r = run_argv(&f, argc, argv);
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_STREQ("", r.err);
	check_golden(_metadata, file, r.out);
	ASSERT_EQ(f.opens, f.closes);
	result_free(&r);
	fake_free(&f);
}

#define FAKE_GOLDEN(setup, file, ...)	\
	fake_golden(_metadata, setup, file, __VA_ARGS__, (char *)NULL)
#define GOLDEN(file, ...)	FAKE_GOLDEN(std_fake, file, __VA_ARGS__)

/*
 * One exp:3 histogram (hist=exp:3): 0, 1, 2, then 1000 to 1099 and 5000
 * ten times, 3 out of range (above 1 hour).  Buckets of schema 3: (1000,
 * 1000] ... as a native histogram of schema 3 holds them.
 */
static void exp_fake(struct fake *f)
{
	struct pcore_hist_spec exp3 = { .kind = PCORE_HIST_EXP,
					.precision = 3 };
	struct fake_hist *h;
	unsigned int i;

	memset(f, 0, sizeof(*f));
	h = fake_add(f, "vfs_write", "kretprobe", "vfs_write", "ns",
		     PCORE_ENT_OWN | PCORE_ENT_HAS_PROBE, &exp3, "", 1);
	fake_record(h, 0, 0, 0);
	fake_record(h, 0, 0, 1);
	fake_record(h, 0, 0, 2);
	for (i = 0; i < 100; i++)
		fake_record(h, i & 1, 0, 1000 + i);
	for (i = 0; i < 10; i++)
		fake_record(h, 1, 0, 5000);
	for (i = 0; i < 3; i++)
		fake_record(h, 1, 0, 4000000000000ULL);
	h->e.hits = 116;
}

TEST(show_exp_text)
{
	FAKE_GOLDEN(exp_fake, "show_exp.txt", "show", "vfs_write");
}

TEST(show_exp_json)
{
	FAKE_GOLDEN(exp_fake, "show_exp.json", "show", "vfs_write", "--json");
}

/*
 * The classic export of an exp histogram: an "le" at 0 and at each power
 * of two (a native bucket's inclusive end), none twice.
 */
TEST(export_exp_prom)
{
	FAKE_GOLDEN(exp_fake, "export_exp.prom", "export", "--prometheus");
}

/* --hist exp[:S]: the schema in precision exactly, the kind in the list */
TEST(attach_hist_exp)
{
	static const char *const bad[] = { "exp:9", "exp:-1", "exp:x", "exp:",
					   "exp:3,1" };
	struct fake f;
	struct result r;
	size_t i;

	std_fake(&f);
	r = RUN(&f, "attach", "--kretprobe", "vfs_write", "--hist", "exp:3");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_EQ((unsigned int)PCORE_UAPI_HIST_EXP, f.attached.hist_kind);
	ASSERT_EQ(3U, f.attached.precision);
	ASSERT_EQ(0ULL, f.attached.max);
	ASSERT_STREQ("exp:3", fake_find(&f, "vfs_write")->e.hist_kind);
	ASSERT_EQ(3, pc_hist_schema(&fake_find(&f, "vfs_write")->e));
	ASSERT_EQ((unsigned int)PCORE_HIST_EXP,
		  pc_hist_kind(&fake_find(&f, "vfs_write")->e));
	result_free(&r);
	r = RUN(&f, "list", "--json");
	ASSERT_EQ(0, r.ret);
	ASSERT_NE(NULL, strstr(r.out, "\"hist_kind\":\"exp:3\""))
		TH_LOG("%s", r.out);
	result_free(&r);

	/* schema 0 is schema 0; "exp" alone is the default */
	r = RUN(&f, "attach", "--kretprobe", "vfs_fsync", "--hist", "exp:0");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_EQ((unsigned int)PCORE_UAPI_HIST_EXP, f.attached.hist_kind);
	ASSERT_EQ(0U, f.attached.precision);
	ASSERT_STREQ("exp:0", fake_find(&f, "vfs_fsync")->e.hist_kind);
	result_free(&r);
	r = RUN(&f, "attach", "--kretprobe", "vfs_open", "--hist", "exp");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_EQ((unsigned int)PCORE_EXP_DEFAULT_SCHEMA, f.attached.precision);
	result_free(&r);

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(&f.attached, 0, sizeof(f.attached));
		r = RUN(&f, "attach", "--kretprobe", "vfs_read_iter", "--hist",
			bad[i]);
		EXPECT_EQ(PC_EXIT_USAGE, r.ret) TH_LOG("%s taken", bad[i]);
		EXPECT_NE(NULL, strstr(r.err, "exp schema must be 0 to 8"))
			TH_LOG("%s: %s", bad[i], r.err);
		EXPECT_EQ(NULL, fake_find(&f, "vfs_read_iter"));
		result_free(&r);
	}
	fake_free(&f);
}

/* pc_hist_schema(): only "exp:0" to "exp:8" */
TEST(hist_schema_of_entries)
{
	static const struct {
		const char *kind;
		int schema;
	} t[] = {
		{ "exp:0", 0 }, { "exp:8", 8 }, { "exp:9", -1 }, { "exp", -1 },
		{ "exp:", -1 }, { "exp:10", -1 }, { "loglinear", -1 },
		{ "exp:3x", -1 },
	};
	struct pcore_ioc_entry e;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		memset(&e, 0, sizeof(e));
		strcpy(e.hist_kind, t[i].kind);
		EXPECT_EQ(t[i].schema, pc_hist_schema(&e)) TH_LOG("%s", t[i].kind);
	}
}

TEST(show_loglinear_text)
{
	GOLDEN("show_loglinear.txt", "show", "do_fork");
}

TEST(show_loglinear_json)
{
	GOLDEN("show_loglinear.json", "show", "do_fork", "--json");
}

TEST(show_loglinear_csv)
{
	GOLDEN("show_loglinear.csv", "show", "do_fork", "--csv");
}

TEST(show_percpu_text)
{
	GOLDEN("show_percpu.txt", "show", "do_fork", "--percpu");
}

TEST(show_log2_text)
{
	GOLDEN("show_log2.txt", "show", "tcpsize/size");
}

TEST(show_log2_json)
{
	GOLDEN("show_log2.json", "show", "--json", "tcpsize/size");
}

TEST(show_keyed_text)
{
	GOLDEN("show_keyed.txt", "show", "thardirq/irq_time");
}

TEST(show_keyed_json)
{
	GOLDEN("show_keyed.json", "show", "thardirq/irq_time", "--json");
}

TEST(show_keyed_csv)
{
	GOLDEN("show_keyed.csv", "show", "thardirq/irq_time", "--csv");
}

TEST(show_keyed_percpu_text)
{
	GOLDEN("show_keyed_percpu.txt", "show", "thardirq/irq_time",
	       "--percpu");
}

TEST(show_keyed_percpu_json)
{
	GOLDEN("show_keyed_percpu.json", "show", "thardirq/irq_time",
	       "--percpu", "--json");
}

TEST(show_empty_text)
{
	GOLDEN("show_empty.txt", "show", "tpsrc/waiting");
}

TEST(show_empty_json)
{
	GOLDEN("show_empty.json", "show", "tpsrc/waiting", "--json");
}

TEST(show_empty_csv)
{
	GOLDEN("show_empty.csv", "show", "tpsrc/waiting", "--csv");
}

TEST(list_text)
{
	GOLDEN("list.txt", "list");
}

TEST(list_json)
{
	GOLDEN("list.json", "list", "--json");
}

TEST(export_prom)
{
	GOLDEN("export.prom", "export", "--prometheus");
}

TEST(export_percpu_prom)
{
	GOLDEN("export_percpu.prom", "export", "--per-cpu", "--prometheus");
}

/*
 * Uprobes in LIST: their kinds, and a file deleted since (gone).  The
 * symbol text is the fake's: probectl prints whatever the kernel says.
 */
static void uprobe_fake(struct fake *f)
{
	struct pcore_hist_spec loglin = { .kind = PCORE_HIST_LOGLINEAR };
	struct pcore_hist_spec log2 = { .kind = PCORE_HIST_LOG2 };
	struct pcore_hist_spec count = { .kind = PCORE_HIST_COUNT };
	struct fake_hist *h;
	unsigned int i;

	memset(f, 0, sizeof(*f));
	h = fake_add(f, "malloc:arg1:bytes", "uprobe",
		     "/usr/lib/x86_64-linux-gnu/libc.so.6+0x98930", "bytes",
		     PCORE_ENT_OWN | PCORE_ENT_HAS_PROBE, &log2, "", 1);
	for (i = 0; i < 10; i++)
		fake_record(h, i % 2, 0, 16 << i);
	h->e.hits = 10;
	h = fake_add(f, "getaddrinfo", "uretprobe",
		     "/usr/lib/x86_64-linux-gnu/libc.so.6+0xe5c10", "ns",
		     PCORE_ENT_OWN | PCORE_ENT_HAS_PROBE, &loglin, "", 1);
	fake_record(h, 0, 0, 2500000);
	fake_record(h, 1, 0, 31000000);
	h->e.hits = 3;
	h->e.missed = 1;
	h = fake_add(f, "a.out_0x1139:count", "uprobe", "/tmp/a.out+0x1139",
		     "calls", PCORE_ENT_OWN | PCORE_ENT_HAS_PROBE |
		     PCORE_ENT_DISABLED | PCORE_ENT_GONE, &count, "", 1);
	for (i = 0; i < 5; i++)
		fake_record(h, 0, 0, 1);
	h->e.hits = 5;
}

static void uprobe_golden(struct __test_metadata *_metadata,
			  const char *file, const char *cmd, const char *arg)
{
	FAKE_GOLDEN(uprobe_fake, file, cmd, arg);
}

TEST(list_uprobes_text)
{
	uprobe_golden(_metadata, "list_uprobes.txt", "list", NULL);
}

TEST(list_uprobes_json)
{
	uprobe_golden(_metadata, "list_uprobes.json", "list", "--json");
}

/*
 * Globs in LIST: 'vfs_*' (kind functions) feeds vfs_read and vfs_write,
 * 'vfs_*:count' their counts; do_fork:retval's .errno histogram is fed by
 * no probe of its own (its probe's handler writes it): probectl names
 * do_fork:retval, which detach takes for both.
 */
static void glob_fake(struct fake *f)
{
	struct pcore_hist_spec loglin = { .kind = PCORE_HIST_LOGLINEAR };
	struct pcore_hist_spec count = { .kind = PCORE_HIST_COUNT };
	static const char *const fn[] = { "vfs_read", "vfs_write" };
	unsigned int own = PCORE_ENT_OWN | PCORE_ENT_HAS_PROBE;
	char name[64];
	struct fake_hist *h;
	unsigned int i, j;

	memset(f, 0, sizeof(*f));
	for (i = 0; i < ARRAY_SIZE(fn); i++) {
		h = fake_add(f, fn[i], "functions", fn[i], "ns", own, &loglin,
			     "", 1);
		strcpy(h->e.probe, "vfs_*");
		for (j = 0; j < 3 + i; j++)
			fake_record(h, 0, 0, 1000 * (j + 1));
		h->e.hits = 3 + i;
		snprintf(name, sizeof(name), "%s:count", fn[i]);
		h = fake_add(f, name, "functions", fn[i], "calls", own, &count,
			     "", 1);
		strcpy(h->e.probe, "vfs_*:count");
		for (j = 0; j < 10 * (i + 1); j++)
			fake_record(h, 1, 0, 0);
		h->e.hits = 10 * (i + 1);
	}
	h = fake_add(f, "do_fork:retval", "kretprobe", "kernel_clone", "value",
		     own, &loglin, "", 1);
	h = fake_add(f, "do_fork:retval.errno", "", "", "calls",
		     PCORE_ENT_OWN, &count, "errno", 2);
}

static void glob_golden(struct __test_metadata *_metadata,
			const char *file, const char *arg)
{
	FAKE_GOLDEN(glob_fake, file, "list", arg);
}

/* list names each histogram's probe: a glob's on each of its functions. */
TEST(list_glob_text)
{
	glob_golden(_metadata, "list_glob.txt", NULL);
}

TEST(list_glob_json)
{
	glob_golden(_metadata, "list_glob.json", "--json");
}

/*
 * A count histogram's JSON and CSV keep the schema of every kind
 * (probectl.8): all the fields, those it has no values for 0 (10 calls
 * counted, each a value of 0: sum, min, max, mean and the percentiles
 * 0), its one bucket [0, inf) with the count; the text prints the count
 * alone.
 */
TEST(show_count_json_csv)
{
	struct result r;
	struct fake f;

	glob_fake(&f);
	r = RUN(&f, "show", "vfs_read:count", "--json");
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	ASSERT_NE(NULL, strstr(r.out, "\"hist_kind\":\"count\""))
		TH_LOG("%s", r.out);
	ASSERT_NE(NULL, strstr(r.out, "\"total\":{\"count\":10,\"sum\":0,\"min\":0,\"max\":0,\"mean\":0,\"p50\":0,\"p90\":0,\"p99\":0,\"p999\":0,\"buckets\":[{\"lo\":0,\"hi\":null,\"count\":10}]}"))
		TH_LOG("%s", r.out);
	result_free(&r);
	r = RUN(&f, "show", "vfs_read:count", "--csv");
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	ASSERT_STREQ("row,cpu,key,label,lo,hi,count,sum,min,max,mean,p50,p90,p99,p999,missed,dropped\n"
		     "stats,,,,,,10,0,0,0,0,0,0,0,0,0,0\n"
		     "bucket,,,,0,inf,10,,,,,,,,,,\n", r.out);
	result_free(&r);
	r = RUN(&f, "show", "vfs_read:count");
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	ASSERT_NE(NULL, strstr(r.out, "\ncount: 10\nmissed: 0\n"))
		TH_LOG("%s", r.out);
	ASSERT_EQ(NULL, strstr(r.out, "sum:")) TH_LOG("%s", r.out);
	result_free(&r);
	fake_free(&f);
}

/*
 * detach 'vfs_*', as the user guide writes it: the probe of that name
 * with all its histograms; then, with none of that name left, the
 * counting glob 'vfs_*:count'.  A glob's histogram names its probe.
 */
TEST(detach_glob)
{
	struct result r;
	struct fake f;

	glob_fake(&f);
	r = RUN(&f, "disable", "vfs_*");
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	EXPECT_NE(0U, fake_find(&f, "vfs_write")->e.flags & PCORE_ENT_DISABLED);
	EXPECT_EQ(0U, fake_find(&f, "vfs_write:count")->e.flags &
		  PCORE_ENT_DISABLED);
	result_free(&r);
	r = RUN(&f, "detach", "vfs_read");
	ASSERT_EQ(1, r.ret);
	ASSERT_STREQ("probectl: detach vfs_read: the probe 'vfs_*' feeds it with its other histograms: detach 'vfs_*'\n",
		     r.err);
	result_free(&r);
	r = RUN(&f, "detach", "vfs_*");
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	ASSERT_STREQ("", r.out);
	EXPECT_EQ(NULL, fake_find(&f, "vfs_read"));
	EXPECT_EQ(NULL, fake_find(&f, "vfs_write"));
	EXPECT_NE(NULL, fake_find(&f, "vfs_read:count"));
	result_free(&r);
	r = RUN(&f, "enable", "vfs_*");
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	result_free(&r);
	r = RUN(&f, "detach", "vfs_*");
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	EXPECT_EQ(NULL, fake_find(&f, "vfs_read:count"));
	EXPECT_EQ(NULL, fake_find(&f, "vfs_write:count"));
	EXPECT_NE(NULL, fake_find(&f, "do_fork:retval"));
	result_free(&r);
	/* the errors of a retval probe: its probe, which list names too */
	r = RUN(&f, "detach", "do_fork:retval.errno");
	ASSERT_EQ(1, r.ret);
	ASSERT_STREQ("probectl: detach do_fork:retval.errno: the probe 'do_fork:retval' feeds it with its other histograms: detach 'do_fork:retval'\n",
		     r.err);
	result_free(&r);
	r = RUN(&f, "detach", "vfs_*");
	ASSERT_EQ(1, r.ret);
	ASSERT_STREQ("probectl: detach vfs_*: no probe named 'vfs_*' or 'vfs_*:count' (probectl list shows probes)\n",
		     r.err);
	result_free(&r);
	/* reset is of a histogram: no glob there */
	r = RUN(&f, "reset", "vfs_*");
	ASSERT_EQ(1, r.ret);
	ASSERT_STREQ("probectl: no histogram named 'vfs_*' (probectl list shows them)\n",
		     r.err);
	result_free(&r);
	EXPECT_EQ(f.opens, f.closes);
	fake_free(&f);
}

/*
 * A counting probe named with --name, 'rd' (histogram and probe
 * 'rd:count'), and one of a single function, 'do_exit:count': detach,
 * disable and enable take the name the user gave, without ':count', as
 * for a glob.  A name with neither probe says so, for both names.
 */
TEST(detach_named_count)
{
	struct pcore_hist_spec count = { .kind = PCORE_HIST_COUNT };
	unsigned int own = PCORE_ENT_OWN | PCORE_ENT_HAS_PROBE;
	struct fake_hist *h;
	struct result r;
	struct fake f;

	memset(&f, 0, sizeof(f));
	h = fake_add(&f, "rd:count", "kprobe", "vfs_read", "calls", own,
		     &count, "", 1);
	strcpy(h->e.probe, "rd:count");
	h = fake_add(&f, "do_exit:count", "kprobe", "do_exit", "calls", own,
		     &count, "", 1);
	strcpy(h->e.probe, "do_exit:count");
	r = RUN(&f, "disable", "rd");
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	EXPECT_NE(0U, fake_find(&f, "rd:count")->e.flags & PCORE_ENT_DISABLED);
	result_free(&r);
	r = RUN(&f, "enable", "rd");
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	EXPECT_EQ(0U, fake_find(&f, "rd:count")->e.flags & PCORE_ENT_DISABLED);
	result_free(&r);
	r = RUN(&f, "detach", "rd");
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	ASSERT_STREQ("", r.out);
	EXPECT_EQ(NULL, fake_find(&f, "rd:count"));
	EXPECT_NE(NULL, fake_find(&f, "do_exit:count"));
	result_free(&r);
	r = RUN(&f, "detach", "do_exit");
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	EXPECT_EQ(NULL, fake_find(&f, "do_exit:count"));
	result_free(&r);
	r = RUN(&f, "detach", "rd");
	ASSERT_EQ(1, r.ret);
	ASSERT_STREQ("probectl: detach rd: no probe named 'rd' or 'rd:count' (probectl list shows probes)\n",
		     r.err);
	result_free(&r);
	/* reset is of a histogram, by its own name */
	r = RUN(&f, "reset", "rd");
	ASSERT_EQ(1, r.ret);
	ASSERT_STREQ("probectl: no histogram named 'rd' (probectl list shows them)\n",
		     r.err);
	result_free(&r);
	EXPECT_EQ(f.opens, f.closes);
	fake_free(&f);
}

/*
 * A probe_core whose LIST takes only the entries of ABI 5's first size
 * (before @probe): probectl asks again with it, and lists the same
 * histograms, without probes.
 */
TEST(list_v5_entries)
{
	struct result r;
	struct fake f;

	std_fake(&f);
	f.v5_list = true;
	r = RUN(&f, "list", "--json");
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	EXPECT_EQ((unsigned int)PCORE_ENTRY_V5_SIZE, f.list_size);
	EXPECT_NE(NULL, strstr(r.out, "{\"name\":\"do_fork\",\"probe_kind\":\"kretprobe\",\"symbol\":\"kernel_clone\",\"unit\":\"ns\",\"hist_kind\":\"loglinear\",\"key_name\":\"\",\"flags\":[\"own\"],\"hits\":210,\"missed\":7,\"count\":203,\"nbuckets\":620,\"nkeys\":1,\"mem_kib\":39,\"probe\":\"\"}"))
		TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "\"name\":\"cpuhists/offcpu\""))
		TH_LOG("%s", r.out);
	result_free(&r);
	f.v5_list = false;
	r = RUN(&f, "list", "--json");
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	EXPECT_EQ((unsigned int)PCORE_ENTRY_SIZE, f.list_size);
	EXPECT_NE(NULL, strstr(r.out, "\"mem_kib\":39,\"probe\":\"do_fork\"}"))
		TH_LOG("%s", r.out);
	result_free(&r);
	fake_free(&f);
}

/*
 * show --keys: a --by-pid histogram of times (four processes, one with a
 * label of two words, one without) and one of counts.
 */
static void keys_fake(struct fake *f)
{
	struct pcore_hist_spec loglin = { .kind = PCORE_HIST_LOGLINEAR };
	struct pcore_hist_spec count = { .kind = PCORE_HIST_COUNT };
	unsigned int own = PCORE_ENT_OWN | PCORE_ENT_HAS_PROBE;
	struct fake_hist *h;
	unsigned int i;

	memset(f, 0, sizeof(*f));
	h = fake_add(f, "vfs_read:by=pid", "kretprobe", "vfs_read", "ns", own,
		     &loglin, "pid", 4);
	fake_key(h, 0, 812, "nginx");
	fake_key(h, 1, 90, "sshd");
	fake_key(h, 2, 4410, "my prog");
	fake_key(h, 3, 7, "");
	for (i = 0; i < 50; i++)		/* many short reads */
		fake_record(h, i % 2, 0, 2000 + 10 * i);
	for (i = 0; i < 5; i++)			/* a few long ones */
		fake_record(h, 0, 1, 3000000 + 1000 * i);
	for (i = 0; i < 20; i++)		/* the largest sum */
		fake_record(h, 1, 2, 1000000);
	fake_record(h, 0, 3, 500);
	h->e.hits = 76;
	h = fake_add(f, "do_fork:count:by=pid", "kprobe", "kernel_clone",
		     "calls", own, &count, "pid", 2);
	fake_key(h, 0, 1, "systemd");
	fake_key(h, 1, 812, "nginx");
	fake_record(h, 0, 0, 0);
	for (i = 0; i < 30; i++)
		fake_record(h, 1, 1, 0);
}

static void keys_golden(struct __test_metadata *_metadata, const char *file,
			const char *name, const char *a1, const char *a2,
			const char *a3, const char *a4)
{
	FAKE_GOLDEN(keys_fake, file, "show", name, "--keys", a1, a2, a3, a4);
}

/* One line per key, the most calls first (the default sort). */
TEST(show_keys_text)
{
	keys_golden(_metadata, "keys.txt", "vfs_read:by=pid", NULL, NULL,
		    NULL, NULL);
}

/* The two slowest processes (p99), then the largest sum first as JSON. */
TEST(show_keys_sort_top)
{
	keys_golden(_metadata, "keys_p99_top2.txt", "vfs_read:by=pid",
		    "--sort", "p99", "--top", "2");
}

TEST(show_keys_json)
{
	keys_golden(_metadata, "keys_sum.json", "vfs_read:by=pid", "--json",
		    "--sort", "sum", NULL);
}

/*
 * A histogram keyed by cgroup (--by-cgroup): its keys are cgroup ids,
 * its labels their paths; the export puts the path in a "cgroup" label
 * (the key stays: two cgroups made at one path are two series), and
 * show --keys prints them as any labels.
 */
static void cgroup_fake(struct fake *f)
{
	struct pcore_hist_spec count = { .kind = PCORE_HIST_COUNT };
	unsigned int own = PCORE_ENT_OWN | PCORE_ENT_HAS_PROBE;
	struct fake_hist *h;
	unsigned int i;

	memset(f, 0, sizeof(*f));
	h = fake_add(f, "sys_getppid:count:by=cgroup", "kprobe",
		     "__x64_sys_getppid", "calls", own, &count, "cgroup", 4);
	fake_key(h, 0, 1, "/");
	fake_key(h, 1, 4242, "/system.slice/nginx.service");
	fake_key(h, 2, 5150, "(removed)");
	fake_key(h, 3, 6001, "...ker-0123456789abcdef0.scope");
	fake_record(h, 0, 0, 0);
	for (i = 0; i < 30; i++)
		fake_record(h, 1, 1, 0);
	for (i = 0; i < 5; i++)
		fake_record(h, 0, 2, 0);
	fake_record(h, 1, 3, 0);
	h->e.hits = 37;
}

TEST(export_by_cgroup)
{
	struct result r;
	struct fake f;

	cgroup_fake(&f);
	r = RUN(&f, "export", "--per-cpu", "--prometheus");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	EXPECT_NE(NULL, strstr(r.out, "probe_core_value_calls_count{probe=\"sys_getppid:count:by=cgroup\",key=\"4242\",cgroup=\"/system.slice/nginx.service\",cpu=\"1\"} 30\n"))
		TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "key=\"1\",cgroup=\"/\",cpu=\"0\"} 1\n"))
		TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "key=\"5150\",cgroup=\"(removed)\",cpu=\"0\"} 5\n"))
		TH_LOG("%s", r.out);
	EXPECT_EQ(NULL, strstr(r.out, "label=")) TH_LOG("%s", r.out);
	result_free(&r);
	r = RUN(&f, "show", "sys_getppid:count:by=cgroup", "--keys");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	EXPECT_NE(NULL, strstr(r.out, "# cgroup label")) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "4242 /system.slice/nginx.service")) TH_LOG("%s", r.out);
	result_free(&r);
	fake_free(&f);
}

/* A count histogram's keys: counts only. */
TEST(show_keys_count)
{
	keys_golden(_metadata, "keys_count.txt", "do_fork:count:by=pid", NULL,
		    NULL, NULL, NULL);
}

/*
 * show F:graph (target=vfs_read:graph): keys 0 (F), 1 ([self]) and the
 * callees, in key order; 10 calls of vfs_read, each through
 * rw_verify_area (1 us) and seq_read (30 us), 4 us of self time each.
 */
static void graph_fake(struct fake *f)
{
	struct pcore_hist_spec loglin = { .kind = PCORE_HIST_LOGLINEAR };
	unsigned int own = PCORE_ENT_OWN | PCORE_ENT_HAS_PROBE;
	struct fake_hist *h;
	unsigned int i;

	memset(f, 0, sizeof(*f));
	h = fake_add(f, "vfs_read:graph", "kretprobe", "vfs_read", "ns", own,
		     &loglin, "callee", 4);
	fake_key(h, 0, 0, "vfs_read");
	fake_key(h, 1, 1, "[self]");
	fake_key(h, 2, 2, "rw_verify_area");
	fake_key(h, 3, 3, "seq_read");
	for (i = 0; i < 10; i++) {
		fake_record(h, i % 2, 0, 35000 + 100 * i);
		fake_record(h, i % 2, 1, 4000 + 100 * i);
		fake_record(h, i % 2, 2, 1000);
		fake_record(h, i % 2, 3, 30000);
	}
	h->e.hits = 10;
}

static void graph_golden(struct __test_metadata *_metadata, const char *file,
			 const char *a1)
{
	FAKE_GOLDEN(graph_fake, file, "show", "vfs_read:graph", a1);
}

/* The tree: F, its callees indented, the self line last. */
TEST(show_graph_text)
{
	graph_golden(_metadata, "show_graph.txt", NULL);
}

TEST(show_graph_json)
{
	graph_golden(_metadata, "show_graph.json", "--json");
}

/* --keys of what has no keys, or stacks: one line saying so. */
TEST(show_keys_errors)
{
	struct result r;
	struct fake f;

	std_fake(&f);
	r = RUN(&f, "show", "do_fork", "--keys");
	ASSERT_EQ(1, r.ret);
	ASSERT_STREQ("probectl: show do_fork: --keys is for a keyed histogram (attach --by-pid); this one has no keys\n",
		     r.err);
	ASSERT_STREQ("", r.out);
	result_free(&r);
	fake_free(&f);
	memset(&f, 0, sizeof(f));
	fake_add(&f, "profile", "profile", "99_Hz", "samples",
		 PCORE_ENT_OWN | PCORE_ENT_HAS_PROBE | PCORE_ENT_STACKS,
		 &(struct pcore_hist_spec){ .kind = PCORE_HIST_COUNT },
		 "stack", FAKE_SLOTS);
	r = RUN(&f, "show", "profile", "--keys");
	ASSERT_EQ(1, r.ret);
	ASSERT_STREQ("probectl: show profile: --keys: its keys are stacks: show profile --top N lists them\n",
		     r.err);
	result_free(&r);
	fake_free(&f);
}

TEST(show_uprobe_gone)
{
	struct result r;
	struct fake f;

	uprobe_fake(&f);
	r = RUN(&f, "show", "a.out_0x1139:count");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_NE(NULL, strstr(r.out, "\nprobe: uprobe /tmp/a.out+0x1139\n"));
	ASSERT_NE(NULL, strstr(r.out, "\nflags: own,disabled,gone\n"));
	result_free(&r);
	r = RUN(&f, "show", "getaddrinfo", "--json");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_NE(NULL, strstr(r.out, "\"probe_kind\":\"uretprobe\""));
	result_free(&r);
	fake_free(&f);
}

/*
 * A histogram keyed by stack, as stacks=vfs_read makes: three slots, two
 * of which hold one stack (two CPUs saw it first at once: the kernel may
 * keep such twins), one a deeper stack, one cut at the depth with a frame
 * that needs escaping; 1 dropped.
 */
#define STK_LEAF	"vfs_read+0x1/0x310\n"
#define STK_SYS		"do_syscall_64+0x5d/0x90\nentry_SYSCALL_64_after_hwframe+0x6e/0xd8\n"

static void stack_fake(struct fake *f)
{
	struct pcore_hist_spec count = { .kind = PCORE_HIST_COUNT };
	struct fake_hist *h;
	unsigned int i;

	memset(f, 0, sizeof(*f));
	h = fake_add(f, "vfs_read:stacks", "kprobe", "vfs_read", "calls",
		     PCORE_ENT_OWN | PCORE_ENT_HAS_PROBE | PCORE_ENT_STACKS,
		     &count, "stack", 4);
	fake_key(h, 0, 0x1a2b3c4d, "");
	fake_frames(h, 0, STK_LEAF "ksys_read+0x6b/0xf0\n" STK_SYS);
	fake_key(h, 1, 0x0badcafe, "");
	fake_frames(h, 1, STK_LEAF "kernel_read+0x1c/0x40\n"
		    "pcore_stackt_leaf+0x9/0x20 [pcore_stackt]\n"
		    "ksys_read+0x6b/0xf0\n" STK_SYS);
	fake_key(h, 2, 0x1a2b3c4d, "");
	fake_frames(h, 2, STK_LEAF "ksys_read+0x6b/0xf0\n" STK_SYS);
	fake_key(h, 3, 0x77, "");
	fake_frames(h, 3, STK_LEAF "odd;\"frame\\\x01+0x1/0x2\n[...]\n");
	for (i = 0; i < 5; i++)
		fake_record(h, 0, 0, 0);
	for (i = 0; i < 3; i++)
		fake_record(h, 1, 2, 0);
	for (i = 0; i < 7; i++)
		fake_record(h, i % 2, 1, 0);
	fake_record(h, 0, 3, 0);
	h->dropped = 1;
	h->e.hits = 17;
}

static void stack_golden(struct __test_metadata *_metadata,
			 const char *file, const char *a1, const char *a2,
			 const char *a3)
{
	FAKE_GOLDEN(stack_fake, file, "show", "vfs_read:stacks", a1, a2, a3);
}

/* Twins merged (8 calls), the most counted first, frames as sent. */
TEST(show_stacks_text)
{
	stack_golden(_metadata, "show_stacks.txt", NULL, NULL, NULL);
}

/* Root first, offsets dropped, ';' not a separator inside a frame. */
TEST(show_stacks_folded)
{
	stack_golden(_metadata, "show_stacks.folded", "--folded", NULL, NULL);
}

TEST(show_stacks_json)
{
	stack_golden(_metadata, "show_stacks.json", "--json", NULL, NULL);
}

TEST(show_stacks_top)
{
	struct result r;
	struct fake f;

	stack_fake(&f);
	r = RUN(&f, "show", "vfs_read:stacks", "--folded", "--top", "1");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_STREQ("entry_SYSCALL_64_after_hwframe;do_syscall_64;ksys_read;vfs_read 8\n",
		     r.out);
	result_free(&r);
	r = RUN(&f, "show", "vfs_read:stacks", "--top", "2");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_NE(NULL, strstr(r.out, "\nstacks: 3\n"));
	ASSERT_NE(NULL, strstr(r.out, "\nstack count 7\n"));
	ASSERT_EQ(NULL, strstr(r.out, "\nstack count 1\n"));
	result_free(&r);
	/* --folded and --top need a histogram keyed by stack */
	r = RUN(&f, "show", "vfs_read:stacks", "--folded", "--json");
	ASSERT_EQ(PC_EXIT_USAGE, r.ret);
	result_free(&r);
	fake_free(&f);
	std_fake(&f);
	r = RUN(&f, "show", "do_fork", "--folded");
	ASSERT_EQ(PC_EXIT_ERR, r.ret);
	ASSERT_NE(NULL, strstr(r.err, "--folded is for histograms keyed by stack"))
		TH_LOG("%s", r.err);
	result_free(&r);
	r = RUN(&f, "show", "do_fork", "--top", "3");
	ASSERT_EQ(PC_EXIT_ERR, r.ret);
	result_free(&r);
	fake_free(&f);
}

/*
 * flamegraph NAME: the stacks of a stack histogram as an SVG, root first,
 * frames without offsets, the twins merged; not for other histograms.
 */
TEST(flamegraph_from_device)
{
	struct result r;
	struct fake f;

	stack_fake(&f);
	r = RUN(&f, "flamegraph", "vfs_read:stacks");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_STREQ("", r.err);
	ASSERT_EQ(0, strncmp(r.out, "<?xml", 5)) TH_LOG("%s", r.out);
	ASSERT_NE(NULL, strstr(r.out, "<title>ksys_read (15 calls,"))
		TH_LOG("%s", r.out);
	ASSERT_NE(NULL, strstr(r.out, "<title>pcore_stackt_leaf [pcore_stackt] (7 calls,"))
		TH_LOG("%s", r.out);
	ASSERT_NE(NULL, strstr(r.out, "<title>[...] (1 call,"))
		TH_LOG("%s", r.out);
	ASSERT_EQ(NULL, strstr(r.out, "+0x")) TH_LOG("%s", r.out);
	ASSERT_EQ(f.opens, f.closes);
	result_free(&r);
	fake_free(&f);

	std_fake(&f);
	r = RUN(&f, "flamegraph", "do_fork");
	ASSERT_EQ(PC_EXIT_ERR, r.ret);
	ASSERT_NE(NULL, strstr(r.err, "not a histogram keyed by stack"))
		TH_LOG("%s", r.err);
	result_free(&r);
	r = RUN(&f, "flamegraph", "nosuch");
	ASSERT_EQ(PC_EXIT_ERR, r.ret);
	result_free(&r);
	fake_free(&f);
}

/*
 * attach --kprobe F --stacks [--depth N]: the name F:stacks, the depth;
 * --user-stacks: F:stacks:ustack and PCORE_ATTACH_USTACK; --offcpu takes
 * it and --no-kthreads as flags, its name unchanged.
 */
TEST(attach_stacks)
{
	static const char * const bad[][6] = {
		{ "--kprobe", "f", "--stacks", "--depth", "0" },
		{ "--kprobe", "f", "--stacks", "--depth", "128" },
		{ "--kprobe", "f", "--stacks", "--depth", "x" },
		{ "--kprobe", "f", "--count", "--depth", "4" },
		{ "--kprobe", "f", "--stacks", "--count" },
		{ "--kretprobe", "f", "--stacks" },
		{ "--uretprobe", "/bin/sh:main", "--stacks" },
		{ "--kprobe", "f", "--stacks", "--by-pid" },
		{ "--kprobe", "f", "--stacks", "--hist", "log2" },
	};
	char *argv[10] = { "probectl", "attach" };
	struct pc_args a;
	struct result r;
	struct fake f;
	unsigned int i, n;

	std_fake(&f);
	r = RUN(&f, "attach", "--kprobe", "vfs_read", "--stacks", "--depth",
		"16");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_STREQ("", r.err);
	ASSERT_STREQ("vfs_read:stacks", f.attached.name);
	ASSERT_EQ((unsigned int)PCORE_ATTACH_KRETPROBE, f.attached.kind);
	ASSERT_EQ(16U, f.attached.depth);
	result_free(&r);
	r = RUN(&f, "attach", "--kprobe", "vfs_write", "--stacks");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_STREQ("vfs_write:stacks", f.attached.name);
	ASSERT_EQ(0U, f.attached.depth);
	result_free(&r);
	r = RUN(&f, "attach", "--kprobe", "vfs_readv", "--stacks",
		"--user-stacks");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_STREQ("vfs_readv:stacks:ustack", f.attached.name);
	ASSERT_EQ((unsigned int)PCORE_ATTACH_USTACK, f.attached.flags);
	result_free(&r);
	r = RUN(&f, "attach", "--offcpu", "--user-stacks", "--no-kthreads");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_STREQ("offcpu", f.attached.name);
	ASSERT_EQ((unsigned int)(PCORE_ATTACH_USTACK |
				 PCORE_ATTACH_NO_KTHREADS), f.attached.flags);
	result_free(&r);
	fake_free(&f);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		for (n = 0; n < 6 && bad[i][n]; n++)
			argv[2 + n] = (char *)bad[i][n];
		EXPECT_EQ(PC_EXIT_USAGE, pc_parse_args(2 + n, argv, &a))
			TH_LOG("case %u accepted", i);
	}
}

/* What a profiler samples while probectl profile -d sleeps. */
static void profile_samples(struct fake *f, unsigned int nth)
{
	struct fake_hist *h = fake_find(f, "profile");
	unsigned int i;

	fake_key(h, 0, 1, "");
	fake_frames(h, 0, "[idle]\n");
	fake_key(h, 2, 2, "");
	fake_frames(h, 2, "pcore_stackt_spin+0x1b/0x40 [pcore_stackt]\n"
		    "stackt_spin_write+0x60/0xa0 [pcore_stackt]\n");
	for (i = 0; i < 3; i++)
		fake_record(h, 0, 0, 0);
	for (i = 0; i < 9; i++)
		fake_record(h, 1, 2, 0);
}

/*
 * profile -F HZ -d S: attaches a profiler, sleeps S seconds, prints its
 * stacks, detaches it.  Without -d it stays.
 */
TEST(profile)
{
	static const char * const bad[][6] = {
		{ "-F", "0" }, { "-F", "4001" }, { "-F", "x" }, { "-d", "1" },
		{ "-F", "99", "--folded" }, { "-F", "99", "--top", "3" },
		{ "-F", "99", "-d", "1", "--folded", "--json" },
		{ "-F", "99", "--depth", "0" }, { "-F", "99", "-d", "0" },
	};
	char *argv[10] = { "probectl", "profile" };
	unsigned long long t0;
	struct pc_args a;
	struct result r;
	struct fake f;
	unsigned int i, n;

	std_fake(&f);
	f.on_sleep = profile_samples;
	t0 = f.mono_ns;
	r = RUN(&f, "profile", "-F", "99", "-d", "2.5", "--folded");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_STREQ("", r.err);
	ASSERT_STREQ("stackt_spin_write [pcore_stackt];pcore_stackt_spin [pcore_stackt] 9\n[idle] 3\n",
		     r.out);
	ASSERT_EQ((unsigned int)PCORE_ATTACH_PROFILE, f.attached.kind);
	ASSERT_STREQ("profile", f.attached.name);
	ASSERT_EQ(99U, f.attached.hz);
	ASSERT_EQ(0U, f.attached.depth);
	ASSERT_EQ(1U, f.sleeps);
	ASSERT_LE(t0 + 2500000000ULL, f.mono_ns);
	ASSERT_EQ(NULL, fake_find(&f, "profile"));	/* detached */
	ASSERT_EQ(f.opens, f.closes);
	result_free(&r);

	r = RUN(&f, "profile", "-F", "999", "--name", "busy", "--depth", "8",
		"--pid", "42");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_STREQ("", r.out);
	ASSERT_STREQ("busy", f.attached.name);
	ASSERT_EQ(999U, f.attached.hz);
	ASSERT_EQ(8U, f.attached.depth);
	ASSERT_EQ(42, f.attached.pid);
	ASSERT_NE(NULL, fake_find(&f, "busy"));		/* stays */
	ASSERT_EQ(1U, f.sleeps);
	result_free(&r);
	r = RUN(&f, "profile", "-F", "99", "--name", "busy");
	ASSERT_EQ(PC_EXIT_ERR, r.ret);
	ASSERT_NE(NULL, strstr(r.err, "exists already")) TH_LOG("%s", r.err);
	result_free(&r);
	fake_free(&f);

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		for (n = 0; n < 6 && bad[i][n]; n++)
			argv[2 + n] = (char *)bad[i][n];
		EXPECT_EQ(PC_EXIT_USAGE, pc_parse_args(2 + n, argv, &a))
			TH_LOG("case %u accepted", i);
	}
}

/*
 * A profiler samples on while probectl reads, unless it is stopped: each
 * READ of a live one adds a sample of probectl's own read (and, through
 * the read of a slot, a sample of the spinner).
 */
static void profile_reading(struct fake *f, struct fake_hist *h)
{
	if (h->e.flags & PCORE_ENT_DISABLED || strcmp(h->e.name, "profile"))
		return;
	fake_key(h, 3, 3, "");
	fake_frames(h, 3, "kvmalloc_node+0x10/0x90\n"
		    "pcore_ioc_read+0x1a/0x2f0 [probe_core]\n"
		    "__x64_sys_ioctl+0x8d/0xc0\n");
	fake_record(h, 0, 3, 0);
	fake_record(h, 1, 2, 0);
}

/*
 * profile -d: the profile is of the -d seconds, whole and alone.  The
 * profiler stops before probectl reads it, so the stacks are what it
 * sampled while probectl slept (12 samples, none of probectl's read) and
 * the count says the same: not stacks read later than the count.
 */
TEST(profile_stops_before_read)
{
	unsigned long long count = 0, sum = 0;
	struct result r;
	struct fake f;
	const char *p;

	std_fake(&f);
	f.on_sleep = profile_samples;
	f.on_read = profile_reading;
	r = RUN(&f, "profile", "-F", "99", "-d", "1", "--folded");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	EXPECT_STREQ("stackt_spin_write [pcore_stackt];pcore_stackt_spin [pcore_stackt] 9\n[idle] 3\n",
		     r.out);
	EXPECT_EQ(NULL, fake_find(&f, "profile"));	/* detached */
	result_free(&r);
	r = RUN(&f, "profile", "-F", "99", "-d", "1");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	EXPECT_EQ(NULL, strstr(r.out, "pcore_ioc_read")) TH_LOG("%s", r.out);
	p = strstr(r.out, "\ncount: ");
	ASSERT_NE(NULL, p) TH_LOG("%s", r.out);
	count = strtoull(p + 8, NULL, 10);
	for (p = r.out; (p = strstr(p, "\nstack count ")); p++)
		sum += strtoull(p + 13, NULL, 10);
	EXPECT_EQ(12ULL, sum) TH_LOG("%s", r.out);
	EXPECT_EQ(count, sum) TH_LOG("%s", r.out);
	EXPECT_EQ(f.opens, f.closes);
	result_free(&r);
	fake_free(&f);
}

/* A probe that fires on while probectl reads: a call of slot 1's stack. */
static void stack_reading(struct fake *f, struct fake_hist *h)
{
	fake_record(h, 0, 1, 0);
}

/*
 * show of a stack histogram whose probe fires while probectl reads it key
 * by key: its count (and its one bucket) is the sum of the stacks shown,
 * not a count read before them.
 */
TEST(show_stacks_live_count)
{
	unsigned long long count, sum = 0, row;
	struct result r;
	struct fake f;
	const char *p;

	stack_fake(&f);
	f.on_read = stack_reading;
	r = RUN(&f, "show", "vfs_read:stacks");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	p = strstr(r.out, "\ncount: ");
	ASSERT_NE(NULL, p) TH_LOG("%s", r.out);
	count = strtoull(p + 8, NULL, 10);
	for (p = r.out; (p = strstr(p, "\nstack count ")); p++)
		sum += strtoull(p + 13, NULL, 10);
	EXPECT_LT(16ULL, sum) TH_LOG("%s", r.out);	/* it did fire */
	EXPECT_EQ(count, sum) TH_LOG("%s", r.out);
	/* a row of buckets, if shown, counts the same */
	p = strstr(r.out, "inf) ");
	if (p) {
		row = strtoull(p + 5, NULL, 10);
		EXPECT_EQ(sum, row) TH_LOG("%s", r.out);
	}
	result_free(&r);
	fake_free(&f);
}

/*
 * Stacks that differ only in offsets (a profiler's samples at two places
 * of one function) print the same as folded lines: one line, their
 * counts summed, also under --top; the text view, which prints the
 * offsets, keeps them apart.
 */
TEST(show_stacks_folded_merges_offsets)
{
	struct pcore_hist_spec count = { .kind = PCORE_HIST_COUNT };
	struct fake_hist *h;
	struct result r;
	struct fake f;
	unsigned int i;

	memset(&f, 0, sizeof(f));
	h = fake_add(&f, "profile", "profile", "99_Hz", "samples",
		     PCORE_ENT_OWN | PCORE_ENT_HAS_PROBE | PCORE_ENT_STACKS,
		     &count, "stack", 4);
	fake_key(h, 0, 1, "");
	fake_frames(h, 0, "pcore_ioc_read+0x1a/0x2f0 [probe_core]\n" STK_SYS);
	fake_key(h, 1, 2, "");
	fake_frames(h, 1, "pcore_ioc_read+0x3c/0x2f0 [probe_core]\n" STK_SYS);
	fake_key(h, 2, 3, "");
	fake_frames(h, 2, "[idle]\n");
	for (i = 0; i < 3; i++)
		fake_record(h, 0, 0, 0);
	for (i = 0; i < 2; i++)
		fake_record(h, 1, 1, 0);
	for (i = 0; i < 4; i++)
		fake_record(h, 1, 2, 0);
	r = RUN(&f, "show", "profile", "--folded");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	EXPECT_STREQ("entry_SYSCALL_64_after_hwframe;do_syscall_64;pcore_ioc_read [probe_core] 5\n[idle] 4\n",
		     r.out);
	result_free(&r);
	r = RUN(&f, "show", "profile", "--folded", "--top", "1");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	EXPECT_STREQ("entry_SYSCALL_64_after_hwframe;do_syscall_64;pcore_ioc_read [probe_core] 5\n",
		     r.out);
	result_free(&r);
	r = RUN(&f, "show", "profile");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	EXPECT_NE(NULL, strstr(r.out, "\nstacks: 3\n")) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "\nstack count 3\n  pcore_ioc_read+0x1a/"))
		TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "\nstack count 2\n  pcore_ioc_read+0x3c/"))
		TH_LOG("%s", r.out);
	result_free(&r);
	fake_free(&f);
}

/*
 * flamegraph NAME of an off-CPU histogram (values in ns, weighed by their
 * sum): titled with the histogram's name, each frame's hover text in
 * time a person reads, its exact weight in data-n; a count histogram's
 * hover says its unit (calls), not "samples".
 */
TEST(flamegraph_title_unit)
{
	struct pcore_hist_spec ll = { .kind = PCORE_HIST_LOGLINEAR };
	struct fake_hist *h;
	struct result r;
	struct fake f;

	memset(&f, 0, sizeof(f));
	h = fake_add(&f, "offcpu", "tracepoint", "sched_switch", "ns",
		     PCORE_ENT_OWN | PCORE_ENT_HAS_PROBE | PCORE_ENT_STACKS,
		     &ll, "stack", 3);
	fake_key(h, 0, 1, "");
	fake_frames(h, 0, "schedule+0x5d/0xe0\nmsleep+0x2d/0x40\n");
	fake_key(h, 1, 2, "");
	fake_frames(h, 1, "schedule+0x5d/0xe0\nio_schedule+0x42/0x70\n");
	fake_key(h, 2, 3, "");
	fake_frames(h, 2, "schedule+0x5d/0xe0\nworker_thread+0x42/0x70\n");
	fake_record(h, 0, 0, 10000000000ULL);
	fake_record(h, 0, 0, 509019650ULL);
	fake_record(h, 1, 1, 25000000);
	fake_record(h, 1, 2, 900000);
	r = RUN(&f, "flamegraph", "offcpu");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	EXPECT_NE(NULL, strstr(r.out, "<text id=\"title\" x=\"600\" y=\"24\" text-anchor=\"middle\">offcpu</text>"))
		TH_LOG("%s", r.out);
	EXPECT_EQ(NULL, strstr(r.out, "samples")) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "<g class=\"f\" data-n=\"10509019650\"><title>msleep (10.51 s, 99.75%)</title>"))
		TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "<title>io_schedule (25.00 ms, 0.24%)</title>"))
		TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "<title>worker_thread (900.0 us, 0.01%)</title>"))
		TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "<title>all (10.53 s, 100.00%)</title>"))
		TH_LOG("%s", r.out);
	result_free(&r);
	/* --title wins */
	r = RUN(&f, "flamegraph", "offcpu", "--title", "naps");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	EXPECT_NE(NULL, strstr(r.out, "text-anchor=\"middle\">naps</text>"))
		TH_LOG("%s", r.out);
	result_free(&r);
	fake_free(&f);

	stack_fake(&f);
	r = RUN(&f, "flamegraph", "vfs_read:stacks");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	EXPECT_NE(NULL, strstr(r.out, "text-anchor=\"middle\">vfs_read:stacks</text>"))
		TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "<title>[...] (1 call, 6.25%)</title>"))
		TH_LOG("%s", r.out);
	EXPECT_EQ(NULL, strstr(r.out, "sample")) TH_LOG("%s", r.out);
	result_free(&r);
	fake_free(&f);
}

TEST(status_loaded)
{
	struct fake f;
	struct result r;

	std_fake(&f);
	f.state = 1;
	r = RUN(&f, "status");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_STREQ("module: loaded\nkernel: 6.1.0-test\nversion: 0.9-test\n"
		     "abi: 5\nnr_cpu_ids: 2\nhistograms: 6\nprobes: 5\n", r.out);
	result_free(&r);
	fake_free(&f);
}

TEST(status_not_loaded)
{
	struct fake f;
	struct result r;

	std_fake(&f);
	f.state = 0;
	r = RUN(&f, "status");
	ASSERT_EQ(1, r.ret);
	ASSERT_STREQ("module: not loaded\nkernel: 6.1.0-test\n", r.out);
	ASSERT_EQ(0U, f.opens);
	result_free(&r);
	fake_free(&f);
}

/* ---- watch ---- */

static struct fake_hist *watched;
static unsigned long long watch_sum_counts;

/* Before interval n: n + 1 values, and n more missed events. */
static void watch_feed(struct fake *f, unsigned int n)
{
	unsigned int i;

	for (i = 0; i <= n; i++) {
		fake_record(watched, i % 2, 0, 1000 * (n + 1) + i);
		watch_sum_counts++;
	}
	watched->e.missed += n;
}

static void watch_case(struct __test_metadata *_metadata, const char *golden,
		       bool json)
{
	struct fake f;
	struct result r;
	unsigned long long total = 0;
	const char *p;

	std_fake(&f);
	watched = fake_find(&f, "do_fork");
	watch_sum_counts = 0;
	f.on_sleep = watch_feed;
	if (json)
		r = RUN(&f, "watch", "do_fork", "--json", "--hist",
			"--interval=0.5", "-n3");
	else
		r = RUN(&f, "watch", "-i", "2", "do_fork", "-n", "3");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_STREQ("", r.err);
	check_golden(_metadata, golden, r.out);
	/* one snapshot-and-reset to start, then one per interval */
	ASSERT_EQ(4U, f.read_resets);
	ASSERT_EQ(0U, f.bad_reads);
	ASSERT_EQ(0U, f.calls[_IOC_NR(PCORE_IOC_RESET)]);
	ASSERT_EQ(3U, f.sleeps);
	/* the 203 values before the watch are in no line, all others are */
	/* in JSON, the first "count" after "interval_ns" (then buckets') */
	for (p = r.out; (p = strstr(p, json ? "\"interval_ns\":" : "count=")); ) {
		if (json)
			p = strstr(p, "\"count\":") + 2;
		p += 6;
		total += strtoull(p, NULL, 10);
	}
	ASSERT_EQ(6ULL, watch_sum_counts);
	ASSERT_EQ(watch_sum_counts, total);
	ASSERT_EQ(f.opens, f.closes);
	result_free(&r);
	fake_free(&f);
}

TEST(watch_text)
{
	watch_case(_metadata, "watch.txt", false);
}

TEST(watch_json_hist)
{
	watch_case(_metadata, "watch.json", true);
}

static void rename_do_fork(struct fake *f, unsigned int n)
{
	if (n == 1)
		snprintf(f->h[0].e.name, sizeof(f->h[0].e.name), "renamed");
}

TEST(watch_histogram_goes_away)
{
	struct fake f;
	struct result r;

	std_fake(&f);
	f.on_sleep = rename_do_fork;
	r = RUN(&f, "watch", "do_fork", "-i", "1");
	ASSERT_EQ(1, r.ret);
	ASSERT_EQ(2U, f.sleeps);
	ASSERT_STREQ("probectl: no histogram named 'do_fork' (probectl list shows them)\n",
		     r.err);
	/* the first interval was printed */
	ASSERT_EQ(r.out, strstr(r.out, "2025-01-02T03:04:07.000Z count=0 "));
	ASSERT_EQ('\0', strchr(r.out, '\n')[1]);	/* and only it */
	ASSERT_EQ(f.opens, f.closes);
	result_free(&r);
	fake_free(&f);
}

/* A kernel that reports fewer buckets in LIST than READ needs. */
TEST(read_grows_buckets_but_never_repeats_a_reset)
{
	struct fake f;
	struct result r;

	std_fake(&f);
	f.shrink = 10;
	r = RUN(&f, "show", "do_fork", "--json");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_NE(NULL, strstr(r.out, "\"count\":203"));
	result_free(&r);
	r = RUN(&f, "watch", "do_fork", "-i", "1", "-n", "1");
	ASSERT_EQ(1, r.ret);
	ASSERT_EQ(1U, f.read_resets);	/* the ENOSPC one, not repeated */
	ASSERT_NE(NULL, strstr(r.err, "No space left"));
	result_free(&r);
	fake_free(&f);
}

TEST(list_grows_buffer)
{
	struct pcore_hist_spec log2 = { .kind = PCORE_HIST_LOG2 };
	struct fake f;
	struct result r;
	char name[32];
	unsigned int i, lines = 0;
	const char *p;

	memset(&f, 0, sizeof(f));
	for (i = 0; i < 37; i++) {
		snprintf(name, sizeof(name), "h%02u", i);
		fake_add(&f, name, "", "", "ns", 0, &log2, "", 1);
	}
	r = RUN(&f, "list");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	for (p = r.out; (p = strchr(p, '\n')); p++)
		lines++;
	ASSERT_EQ(38U, lines);
	ASSERT_NE(NULL, strstr(r.out, "\nh36 "));
	ASSERT_LE(2U, f.calls[_IOC_NR(PCORE_IOC_LIST)]);
	result_free(&r);
	fake_free(&f);
}

TEST(percpu_skips_impossible_cpus)
{
	struct fake f;
	struct result r;

	std_fake(&f);
	f.nr_cpu_ids = 3;
	f.possible = 0x5;	/* CPUs 0 and 2 */
	r = RUN(&f, "show", "do_fork", "--percpu", "--json");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_NE(NULL, strstr(r.out, "{\"cpu\":0,\"count\":200,"));
	ASSERT_EQ(NULL, strstr(r.out, "{\"cpu\":1,"));
	ASSERT_NE(NULL, strstr(r.out, "{\"cpu\":2,\"count\":0,"));
	result_free(&r);
	fake_free(&f);
}

/* ---- export to a textfile directory ---- */

/* The names in @dir but . and .., one a line, sorted by readdir. */
static int dir_names(const char *dir, char *buf, size_t len)
{
	struct dirent *de;
	size_t used = 0;
	int n = 0;
	DIR *d = opendir(dir);

	buf[0] = '\0';
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		used += snprintf(buf + used, used < len ? len - used : 0,
				 "%s\n", de->d_name);
		n++;
	}
	closedir(d);
	return n;
}

/* A new empty directory for exports, in @dir (room for 64). */
static void textfile_dir(struct __test_metadata *_metadata, char *dir)
{
	strcpy(dir, "/tmp/probectl-test-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(dir));
}

static void rm_textfile_dir(const char *dir)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/probe_core.prom", dir);
	unlink(path);
	rmdir(dir);
}

TEST(export_textfile)
{
	char dir[64], path[128], names[256], *got, *want;
	struct fake f;
	struct result r;
	struct stat st;
	unsigned int i;

	textfile_dir(_metadata, dir);
	std_fake(&f);
	r = RUN(&f, "export", "--prometheus", "--textfile-dir", dir);
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_STREQ("", r.out);
	ASSERT_STREQ("", r.err);
	snprintf(path, sizeof(path), "%s/probe_core.prom", dir);
	got = slurp(path);
	ASSERT_NE(NULL, got);
	want = slurp(GOLDEN_DIR "/export.prom");
	ASSERT_NE(NULL, want);
	ASSERT_STREQ(want, got);
	ASSERT_EQ(0, stat(path, &st));
	ASSERT_EQ(0644U, st.st_mode & 0777);
	/* no temporary file left behind */
	ASSERT_EQ(1, dir_names(dir, names, sizeof(names)));
	ASSERT_STREQ("probe_core.prom\n", names);
	/* a second export replaces it */
	fake_find(&f, "do_fork")->e.hits = 1000;
	result_free(&r);
	r = RUN(&f, "export", "--prometheus", "--textfile-dir", dir);
	ASSERT_EQ(0, r.ret);
	free(got);
	got = slurp(path);
	ASSERT_NE(NULL, strstr(got, "probe_core_probe_hits_total{probe=\"do_fork\"} 1000\n"));
	rm_textfile_dir(dir);
	free(got);
	free(want);
	result_free(&r);
	i = f.opens;
	r = RUN(&f, "export", "--prometheus", "--textfile-dir", dir);
	ASSERT_EQ(1, r.ret);
	ASSERT_EQ(i, f.opens);		/* the directory first */
	ASSERT_EQ(0, strncmp(r.err, "probectl: --textfile-dir /tmp/probectl-test-", 44));
	ASSERT_NE(NULL, strstr(r.err, ": No such file or directory\n"));
	result_free(&r);
	fake_free(&f);
}

/* One series of a Prometheus text: its name and labels, and its value. */
struct prom_sample {
	char key[384];
	double v;
};

/* The samples of @text into @s (room for @max); how many, or -1. */
static int prom_parse(const char *text, struct prom_sample *s, int max)
{
	const char *line, *end, *sp;
	int n = 0;

	for (line = text; *line; line = *end ? end + 1 : end) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		if (*line == '#' || line == end)
			continue;
		/* the value is the last field; label values may hold blanks */
		for (sp = end; sp > line && sp[-1] != ' '; sp--)
			;
		if (sp == line || n == max ||
		    (size_t)(sp - 1 - line) >= sizeof(s[n].key))
			return -1;
		memcpy(s[n].key, line, sp - 1 - line);
		s[n].key[sp - 1 - line] = '\0';
		s[n].v = strtod(sp, NULL);
		n++;
	}
	return n;
}

static const struct prom_sample *prom_find(const struct prom_sample *s, int n,
					   const char *key)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s[i].key, key))
			return &s[i];
	return NULL;
}

/*
 * The series of @a that are lower, or missing, in @b: as Prometheus sees
 * two scrapes, a decrease is a counter reset.  Gauges (the creation time)
 * are left out.  Logs each one.
 */
static int prom_decreases(struct __test_metadata *_metadata, const char *a,
			  const char *b, bool log)
{
	static struct prom_sample sa[2048], sb[2048];
	const struct prom_sample *p;
	int na = prom_parse(a, sa, 2048), nb = prom_parse(b, sb, 2048);
	int i, bad = 0;

	if (na <= 0 || nb <= 0)
		return -1;
	for (i = 0; i < na; i++) {
		if (strstr(sa[i].key, "_created_timestamp_seconds{"))
			continue;
		p = prom_find(sb, nb, sa[i].key);
		if (!p || p->v < sa[i].v) {
			if (log)
				TH_LOG("%s: %g, then %s", sa[i].key, sa[i].v,
				       p ? "lower" : "gone");
			bad++;
		}
	}
	return bad;
}

/* The value of series @key in Prometheus text @text, or -1. */
static double prom_value_of(const char *text, const char *key)
{
	static struct prom_sample s[2048];
	const struct prom_sample *p;
	int n = prom_parse(text, s, 2048);

	p = n > 0 ? prom_find(s, n, key) : NULL;
	return p ? p->v : -1;
}

/* Keeps @text as TEST_OUT/@name, for run.sh's promtool. */
static void keep_prom(const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", getenv("TEST_OUT") ?: ".", name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* export --textfile-dir @dir; the file's text, or NULL. */
static char *export_to(struct __test_metadata *_metadata, struct fake *f,
		       const char *dir, const char *more)
{
	char path[128];
	struct result r;

	r = more ? RUN(f, "export", "--prometheus", more, "--textfile-dir", dir) :
		RUN(f, "export", "--prometheus", "--textfile-dir", dir);
	EXPECT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	result_free(&r);
	snprintf(path, sizeof(path), "%s/probe_core.prom", dir);
	return slurp(path);
}

/*
 * What the service exports never goes down while the histograms exist,
 * whatever is read in between: probectl reset do_fork (PCORE_IOC_RESET)
 * and probectl watch thardirq/irq_time (a snapshot-and-reset) between two
 * exports, with new values after them.  Every series of the first is in
 * the second, none lower, and the counts are every value since creation.
 * The same sequence with export --per-cpu (the reads since the last
 * interval) does go down: the comparison catches what it must.
 */
TEST(export_monotonic_across_resets)
{
	char dir[64], *a, *b;
	struct fake f;
	struct result r;
	unsigned int i;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		const char *more = pass ? "--per-cpu" : NULL;

		textfile_dir(_metadata, dir);
		std_fake(&f);
		a = export_to(_metadata, &f, dir, more);
		ASSERT_NE(NULL, a);
		r = RUN(&f, "reset", "do_fork");
		ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
		result_free(&r);
		/* its first snapshot-and-reset starts the interval */
		r = RUN(&f, "watch", "thardirq/irq_time", "-i", "1", "-n", "1");
		ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
		ASSERT_NE(NULL, strstr(r.out, " count=0 ")) TH_LOG("%s", r.out);
		result_free(&r);
		ASSERT_EQ(2U, f.read_resets);
		for (i = 0; i < 4; i++)
			fake_record(fake_find(&f, "do_fork"), 0, 0, 700000);
		fake_record(fake_find(&f, "thardirq/irq_time"), 1, 2, 3000);
		b = export_to(_metadata, &f, dir, more);
		ASSERT_NE(NULL, b);
		if (!pass) {
			ASSERT_LT(0U, f.read_totals);
			EXPECT_EQ(0, prom_decreases(_metadata, a, b, true));
			EXPECT_EQ(203, prom_value_of(a, "probe_core_latency_seconds_count{probe=\"do_fork\"}"));
			EXPECT_EQ(207, prom_value_of(b, "probe_core_latency_seconds_count{probe=\"do_fork\"}"));
			EXPECT_EQ(10, prom_value_of(b, "probe_core_latency_seconds_count{probe=\"thardirq/irq_time\"}"));
			EXPECT_EQ(2, prom_value_of(b, "probe_core_dropped_total{probe=\"thardirq/irq_time\"}"));
			keep_prom("export-before-resets.prom", a);
			keep_prom("export-after-resets.prom", b);
			/* show (no total) sees the resets */
			r = RUN(&f, "show", "do_fork", "--json");
			ASSERT_NE(NULL, strstr(r.out, "\"count\":4,")) TH_LOG("%s", r.out);
			result_free(&r);
		} else {
			ASSERT_EQ(0U, f.read_totals);
			EXPECT_LT(0, prom_decreases(_metadata, a, b, false));
		}
		free(a);
		free(b);
		rm_textfile_dir(dir);
		fake_free(&f);
	}
}

/*
 * probe_core loaded again: its histograms are new, their counts start
 * from zero and their creation time is later.  The export passes that
 * on as it is (no state of its own hides it): the count goes down, which
 * Prometheus takes for a counter reset, and the gauge
 * probe_core_created_timestamp_seconds moves forward.
 */
TEST(export_reload_is_a_reset)
{
	struct pcore_hist_spec loglin = { .kind = PCORE_HIST_LOGLINEAR };
	const char *count = "probe_core_latency_seconds_count{probe=\"do_fork\"}";
	const char *created = "probe_core_created_timestamp_seconds{probe=\"do_fork\"}";
	char dir[64], *a, *b;
	struct fake_hist *h;
	struct fake f;

	textfile_dir(_metadata, dir);
	std_fake(&f);
	a = export_to(_metadata, &f, dir, NULL);
	ASSERT_NE(NULL, a);
	fake_free(&f);
	/* loaded again an hour later: do_fork has 2 values */
	memset(&f, 0, sizeof(f));
	h = fake_add(&f, "do_fork", "kretprobe", "kernel_clone", "ns",
		     PCORE_ENT_OWN | PCORE_ENT_HAS_PROBE, &loglin, "", 1);
	h->created_ns += 3600000000000ULL;
	fake_record(h, 0, 0, 500000);
	fake_record(h, 1, 0, 600000);
	h->e.hits = 2;
	b = export_to(_metadata, &f, dir, NULL);
	ASSERT_NE(NULL, b);
	EXPECT_EQ(203, prom_value_of(a, count));
	EXPECT_EQ(2, prom_value_of(b, count));
	EXPECT_EQ(1735787045, prom_value_of(a, created));
	EXPECT_EQ(1735787045 + 3600, prom_value_of(b, created));
	EXPECT_EQ(2, prom_value_of(b, "probe_core_probe_hits_total{probe=\"do_fork\"}"));
	EXPECT_LT(0, prom_decreases(_metadata, a, b, false));
	keep_prom("export-after-reload.prom", b);
	free(a);
	free(b);
	rm_textfile_dir(dir);
	fake_free(&f);
}

/*
 * A failed export leaves the file it would have replaced as it was, byte
 * for byte, and no temporary file; it exits 1 with one line saying why:
 * probe_core not loaded, a read that fails, the directory not one, and a
 * write that fails half-way (the file size limit, RLIMIT_FSIZE, in a
 * child: writes past it fail with EFBIG).
 */
TEST(export_failure_keeps_the_file)
{
	char dir[64], path[128], names[256], *before, *after;
	struct result r;
	struct fake f;
	pid_t pid;
	int st;

	textfile_dir(_metadata, dir);
	snprintf(path, sizeof(path), "%s/probe_core.prom", dir);
	std_fake(&f);
	before = export_to(_metadata, &f, dir, NULL);
	ASSERT_NE(NULL, before);
	fake_find(&f, "do_fork")->e.hits = 5000;	/* a new file would differ */

	f.open_err = -ENOENT;
	r = RUN(&f, "export", "--prometheus", "--textfile-dir", dir);
	EXPECT_EQ(1, r.ret);
	EXPECT_STREQ("probectl: probe_core is not loaded (load it with: probectl load)\n",
		     r.err);
	result_free(&r);
	f.open_err = 0;

	f.read_err = -EIO;
	r = RUN(&f, "export", "--prometheus", "--textfile-dir", dir);
	EXPECT_EQ(1, r.ret);
	EXPECT_STREQ("probectl: read do_fork: Input/output error\n", r.err);
	result_free(&r);
	f.read_err = 0;

	r = RUN(&f, "export", "--prometheus", "--textfile-dir", path);
	EXPECT_EQ(1, r.ret);
	EXPECT_NE(NULL, strstr(r.err, "/probe_core.prom: Not a directory\n")) TH_LOG("%s", r.err);
	result_free(&r);

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct rlimit lim = { 4096, 4096 };
		char want[256];

		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &lim))
			_exit(2);
		r = RUN(&f, "export", "--prometheus", "--textfile-dir", dir);
		snprintf(want, sizeof(want),
			 "probectl: writing %s: File too large; the previous file is left as it was\n",
			 path);
		_exit(r.ret != 1 ? 3 : strcmp(r.err, want) ? 4 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) TH_LOG("status %#x", st);

	after = slurp(path);
	ASSERT_NE(NULL, after);
	EXPECT_STREQ(before, after);
	EXPECT_EQ(1, dir_names(dir, names, sizeof(names)));
	EXPECT_STREQ("probe_core.prom\n", names);
	/* and the next good export replaces it */
	free(after);
	after = export_to(_metadata, &f, dir, NULL);
	EXPECT_NE(NULL, strstr(after, "probe_core_probe_hits_total{probe=\"do_fork\"} 5000\n"));
	free(before);
	free(after);
	rm_textfile_dir(dir);
	fake_free(&f);
}

static int open_pipe = -1;
static int (*fake_open_fn)(struct pc_env *env, int flags, struct pc_dev *d);

/* The fake's dev_open, telling @open_pipe that it was called. */
static int open_and_tell(struct pc_env *env, int flags, struct pc_dev *d)
{
	if (write(open_pipe, "o", 1) != 1)
		return -EIO;
	return fake_open_fn(env, flags, d);
}

/* Whether @fd has something to read within @ms. */
static bool readable_within(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

/*
 * Exports into one directory take turns (flock on it), from before they
 * read the device to after the rename: one that read later cannot rename
 * earlier and put older counts back.  While the directory is locked, an
 * export does not even open the device; once it is unlocked, it does and
 * writes the file.
 */
TEST(export_takes_turns)
{
	char dir[64], path[128], *got, *want;
	char *argv[6] = { "probectl", "export", "--prometheus", "--textfile-dir",
			 dir, NULL };
	struct pc_env env = { 0 };
	int p[2], dfd, st;
	struct fake f;
	pid_t pid;

	textfile_dir(_metadata, dir);
	snprintf(path, sizeof(path), "%s/probe_core.prom", dir);
	ASSERT_EQ(0, pipe(p));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, dfd);
	ASSERT_EQ(0, flock(dfd, LOCK_EX));
	std_fake(&f);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(p[0]);
		open_pipe = p[1];
		fake_env(&env, &f);
		fake_open_fn = env.dev_open;
		env.dev_open = open_and_tell;
		env.out = stdout;
		env.err = stderr;
		_exit(pc_run(5, argv, &env));
	}
	close(p[1]);
	EXPECT_FALSE(readable_within(p[0], 300));
	EXPECT_NE(0, access(path, F_OK));
	ASSERT_EQ(0, flock(dfd, LOCK_UN));
	EXPECT_TRUE(readable_within(p[0], 20000));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	got = slurp(path);
	want = slurp(GOLDEN_DIR "/export.prom");
	ASSERT_NE(NULL, got);
	ASSERT_NE(NULL, want);
	EXPECT_STREQ(want, got);
	free(got);
	free(want);
	close(dfd);
	close(p[0]);
	rm_textfile_dir(dir);
	fake_free(&f);
}

/*
 * Four exports at once, 40 times each, while the file is read again and
 * again: every read is a whole file (the golden), never a part of one,
 * and no temporary file is left.
 */
TEST(export_concurrent_whole_files)
{
	char dir[64], path[128], names[256], *want, *got;
	pid_t pids[4];
	int i, st, reads = 0, whole = 0;
	struct fake f;

	textfile_dir(_metadata, dir);
	snprintf(path, sizeof(path), "%s/probe_core.prom", dir);
	want = slurp(GOLDEN_DIR "/export.prom");
	ASSERT_NE(NULL, want);
	std_fake(&f);
	for (i = 0; i < 4; i++) {
		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (!pids[i]) {
			int k, bad = 0;

			for (k = 0; k < 40; k++) {
				struct result r = RUN(&f, "export", "--prometheus",
						      "--textfile-dir", dir);

				bad |= r.ret;
				result_free(&r);
			}
			_exit(bad);
		}
	}
	for (i = 0; i < 4; i++) {
		while (waitpid(pids[i], &st, WNOHANG) == 0) {
			got = slurp(path);
			if (got) {
				reads++;
				whole += !strcmp(got, want);
				free(got);
			}
		}
		EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	TH_LOG("%d reads while writing", reads);
	EXPECT_LT(0, reads);
	EXPECT_EQ(reads, whole);
	EXPECT_EQ(1, dir_names(dir, names, sizeof(names)));
	EXPECT_STREQ("probe_core.prom\n", names);
	free(want);
	rm_textfile_dir(dir);
	fake_free(&f);
}

/* ---- the other commands against the fake ---- */

TEST(attach_passes_every_field)
{
	struct fake f;
	struct result r;

	std_fake(&f);
	r = RUN(&f, "attach", "--kretprobe", "vfs_write", "--maxactive", "64",
		"--hist", "linear:1000,101000,1000");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_STREQ("", r.out);
	ASSERT_STREQ("vfs_write", f.attached.name);
	ASSERT_EQ((unsigned int)PCORE_ATTACH_KRETPROBE, f.attached.kind);
	ASSERT_EQ(64U, f.attached.maxactive);
	ASSERT_EQ((unsigned int)PCORE_UAPI_HIST_LINEAR, f.attached.hist_kind);
	ASSERT_EQ(1000ULL, f.attached.min);
	ASSERT_EQ(101000ULL, f.attached.max);
	ASSERT_EQ(1000ULL, f.attached.step);
	ASSERT_NE(NULL, fake_find(&f, "vfs_write"));
	result_free(&r);

	r = RUN(&f, "attach", "--tracepoint", "sched_switch", "--hist",
		"loglinear:5");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_EQ((unsigned int)PCORE_ATTACH_TRACEPOINT, f.attached.kind);
	ASSERT_EQ((unsigned int)PCORE_UAPI_HIST_LOGLINEAR,
		  f.attached.hist_kind);
	ASSERT_EQ(5U, f.attached.precision);
	ASSERT_EQ(0U, f.attached.maxactive);
	result_free(&r);

	r = RUN(&f, "attach", "--kretprobe", "vfs_fsync");
	ASSERT_EQ(0, r.ret);
	ASSERT_EQ((unsigned int)PCORE_UAPI_HIST_DEFAULT, f.attached.hist_kind);
	result_free(&r);

	/* --offcpu is --tracepoint offcpu, and takes no value */
	r = RUN(&f, "attach", "--offcpu");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_EQ((unsigned int)PCORE_ATTACH_TRACEPOINT, f.attached.kind);
	ASSERT_STREQ("offcpu", f.attached.name);
	result_free(&r);
	r = RUN(&f, "attach", "--offcpu", "--kprobe", "vfs_read");
	ASSERT_EQ(PC_EXIT_USAGE, r.ret);
	ASSERT_NE(NULL, strstr(r.err, "give one of")) TH_LOG("stderr: %s", r.err);
	result_free(&r);

	/* runqlat takes --by-pid: the flag, and the suffix in the name */
	r = RUN(&f, "attach", "--tracepoint", "runqlat", "--by-pid");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_EQ((unsigned int)PCORE_ATTACH_TRACEPOINT, f.attached.kind);
	ASSERT_STREQ("runqlat:by=pid", f.attached.name);
	ASSERT_STREQ("runqlat", f.attached.target);
	ASSERT_EQ((unsigned int)PCORE_ATTACH_BY_PID, f.attached.flags);
	result_free(&r);
	/* and --by-cgroup, by cgroup v2 */
	r = RUN(&f, "attach", "--tracepoint", "runqlat", "--by-cgroup");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_EQ((unsigned int)PCORE_ATTACH_TRACEPOINT, f.attached.kind);
	ASSERT_STREQ("runqlat:by=cgroup", f.attached.name);
	ASSERT_STREQ("runqlat", f.attached.target);
	ASSERT_EQ((unsigned int)PCORE_ATTACH_BY_CGROUP, f.attached.flags);
	result_free(&r);
	fake_free(&f);
}

/* --kprobe, --arg, --count, --retval, --unit: target='s suffixes. */
TEST(attach_values_and_counts)
{
	static const struct {
		const char *argv[8];
		const char *name;
		unsigned int hist_kind;
		/* the probe in fields (ABI 5): target, what, arg, unit, flags */
		const char *target;
		unsigned int what, arg;
		const char *unit;
		unsigned int flags;
	} cases[] = {
		{ { "--kprobe", "tcp_sendmsg", "--arg", "3", "--unit", "bytes" },
		  "tcp_sendmsg:arg3:bytes", PCORE_UAPI_HIST_DEFAULT,
		  "tcp_sendmsg", PCORE_WHAT_ARG, 3, "bytes", 0 },
		{ { "--arg", "6", "--kprobe", "f" }, "f:arg6", PCORE_UAPI_HIST_DEFAULT,
		  "f", PCORE_WHAT_ARG, 6, "", 0 },
		{ { "--kprobe", "do_fork", "--count" }, "do_fork:count",
		  PCORE_UAPI_HIST_DEFAULT, "do_fork", PCORE_WHAT_COUNT, 0, "", 0 },
		{ { "--kretprobe", "vfs_read", "--retval" }, "vfs_read:retval",
		  PCORE_UAPI_HIST_DEFAULT, "vfs_read", PCORE_WHAT_RETVAL, 0, "", 0 },
		{ { "--kretprobe", "vfs_read", "--retval", "--unit", "bytes",
		    "--hist", "linear:0,1000,10" }, "vfs_read:retval:bytes",
		  PCORE_UAPI_HIST_LINEAR, "vfs_read", PCORE_WHAT_RETVAL, 0,
		  "bytes", 0 },
		/* the suffix in the name, as target= takes it */
		{ { "--kretprobe", "do_fork:count" }, "do_fork:count",
		  PCORE_UAPI_HIST_DEFAULT, "do_fork", PCORE_WHAT_COUNT, 0, "", 0 },
		{ { "--kretprobe", "tcp_sendmsg:arg3:bytes:by=pid" },
		  "tcp_sendmsg:arg3:bytes:by=pid", PCORE_UAPI_HIST_DEFAULT,
		  "tcp_sendmsg", PCORE_WHAT_ARG, 3, "bytes", PCORE_ATTACH_BY_PID },
		/* one histogram per process: the last suffix */
		{ { "--kretprobe", "vfs_read", "--by-pid" }, "vfs_read:by=pid",
		  PCORE_UAPI_HIST_DEFAULT, "vfs_read", PCORE_WHAT_TIME, 0, "",
		  PCORE_ATTACH_BY_PID },
		{ { "--by-pid", "--kprobe", "tcp_sendmsg", "--arg", "3", "--unit",
		    "bytes" }, "tcp_sendmsg:arg3:bytes:by=pid",
		  PCORE_UAPI_HIST_DEFAULT, "tcp_sendmsg", PCORE_WHAT_ARG, 3,
		  "bytes", PCORE_ATTACH_BY_PID },
		/* the mechanism: flags beside the probe's own */
		{ { "--kretprobe", "vfs_fsync", "--mechanism", "direct" },
		  "vfs_fsync", PCORE_UAPI_HIST_DEFAULT, "vfs_fsync",
		  PCORE_WHAT_TIME, 0, "", PCORE_ATTACH_MECH_DIRECT },
		{ { "--kprobe", "do_fork", "--count", "--mechanism=kprobe" },
		  "do_fork:count", PCORE_UAPI_HIST_DEFAULT, "do_fork",
		  PCORE_WHAT_COUNT, 0, "", PCORE_ATTACH_MECH_KPROBE },
		{ { "--kretprobe", "vfs_read", "--by-pid", "--mechanism",
		    "auto" }, "vfs_read:by=pid", PCORE_UAPI_HIST_DEFAULT,
		  "vfs_read", PCORE_WHAT_TIME, 0, "",
		  PCORE_ATTACH_BY_PID | PCORE_ATTACH_MECH_AUTO },
		/* --name for every attach: it replaces FUNC, the suffixes stay */
		{ { "--kretprobe", "vfs_read", "--pid", "12", "--name",
		    "nginx_read" }, "nginx_read", PCORE_UAPI_HIST_DEFAULT,
		  "vfs_read", PCORE_WHAT_TIME, 0, "", 0 },
		{ { "--kprobe", "tcp_sendmsg", "--arg", "3", "--unit", "bytes",
		    "--name", "tx" }, "tx:arg3:bytes", PCORE_UAPI_HIST_DEFAULT,
		  "tcp_sendmsg", PCORE_WHAT_ARG, 3, "bytes", 0 },
		{ { "--name", "rd", "--kretprobe", "vfs_read:by=pid" },
		  "rd:by=pid", PCORE_UAPI_HIST_DEFAULT, "vfs_read",
		  PCORE_WHAT_TIME, 0, "", PCORE_ATTACH_BY_PID },
		{ { "--kprobe", "vfs_*", "--count", "--name", "vfs" },
		  "vfs:count", PCORE_UAPI_HIST_DEFAULT, "vfs_*",
		  PCORE_WHAT_COUNT, 0, "", 0 },
		{ { "--kretprobe", "vfs_read", "--graph", "--name", "rd",
		    "--pid", "7" }, "rd:graph", PCORE_UAPI_HIST_DEFAULT,
		  "vfs_read", PCORE_WHAT_GRAPH, 0, "", 0 },
		/* one histogram per cgroup v2: the last suffix */
		{ { "--kprobe", "sys_getppid", "--count", "--by-cgroup" },
		  "sys_getppid:count:by=cgroup", PCORE_UAPI_HIST_DEFAULT,
		  "sys_getppid", PCORE_WHAT_COUNT, 0, "",
		  PCORE_ATTACH_BY_CGROUP },
		{ { "--by-cgroup", "--kretprobe", "vfs_read", "--mechanism",
		    "kprobe" }, "vfs_read:by=cgroup", PCORE_UAPI_HIST_DEFAULT,
		  "vfs_read", PCORE_WHAT_TIME, 0, "",
		  PCORE_ATTACH_BY_CGROUP | PCORE_ATTACH_MECH_KPROBE },
		{ { "--kretprobe", "tcp_sendmsg:arg3:bytes:by=cgroup" },
		  "tcp_sendmsg:arg3:bytes:by=cgroup", PCORE_UAPI_HIST_DEFAULT,
		  "tcp_sendmsg", PCORE_WHAT_ARG, 3, "bytes",
		  PCORE_ATTACH_BY_CGROUP },
	};
	unsigned int i, n;
	struct fake f;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char *argv[12] = { "probectl", "attach" };
		struct pc_args a;
		struct result r;

		for (n = 0; n < 8 && cases[i].argv[n]; n++)
			argv[2 + n] = (char *)cases[i].argv[n];
		ASSERT_EQ(0, pc_parse_args(2 + n, argv, &a)) TH_LOG("case %u: %s", i, a.err);
		ASSERT_STREQ(cases[i].name, a.attach_full);

		std_fake(&f);
		r = run_argv(&f, 2 + n, argv);
		ASSERT_EQ(0, r.ret) TH_LOG("case %u: stderr: %s", i, r.err);
		ASSERT_STREQ(cases[i].name, f.attached.name);
		ASSERT_EQ((unsigned int)PCORE_ATTACH_KRETPROBE, f.attached.kind);
		ASSERT_EQ(cases[i].hist_kind, f.attached.hist_kind);
		ASSERT_EQ(0U, f.attached.maxactive);
		EXPECT_STREQ(cases[i].target, f.attached.target) TH_LOG("case %u", i);
		EXPECT_EQ(cases[i].what, f.attached.what) TH_LOG("case %u", i);
		EXPECT_EQ(cases[i].arg, f.attached.arg) TH_LOG("case %u", i);
		EXPECT_STREQ(cases[i].unit, f.attached.unit) TH_LOG("case %u", i);
		EXPECT_EQ(cases[i].flags, f.attached.flags) TH_LOG("case %u", i);
		result_free(&r);
		fake_free(&f);
	}
}

/* --pid and --comm reach the ioctl as they were given; nothing else does. */
TEST(attach_filters)
{
	struct result r;
	struct fake f;

	std_fake(&f);
	r = RUN(&f, "attach", "--kretprobe", "ksys_read", "--pid", "4242",
		"--comm", "sshd");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	EXPECT_STREQ("ksys_read", f.attached.name);
	EXPECT_EQ(4242, f.attached.pid);
	EXPECT_STREQ("sshd", f.attached.comm);
	result_free(&r);
	fake_free(&f);

	std_fake(&f);
	r = RUN(&f, "attach", "--kprobe", "do_fork", "--count");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	EXPECT_EQ(0, f.attached.pid);
	EXPECT_STREQ("", f.attached.comm);
	result_free(&r);
	fake_free(&f);
}

/* ---- uprobes: ELF files that mkelf.sh built in $TEST_ELF ---- */

/* $TEST_ELF/@name into @buf. */
static const char *elf_file(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/%s", getenv("TEST_ELF") ?: "elf", name);
	return buf;
}

/*
 * The @nth (from 0) value of @key in $TEST_ELF/expect, what mkelf.sh
 * worked out with readelf, into @buf.  Return: false when absent.
 */
static bool expect_str(const char *key, unsigned int nth, char *buf,
		       size_t len)
{
	char path[512], k[128], v[512];
	bool found = false;
	FILE *f;

	f = fopen(elf_file(path, sizeof(path), "expect"), "r");
	if (!f)
		return false;
	while (!found && fscanf(f, "%127s %511s", k, v) == 2)
		if (!strcmp(k, key) && !nth--) {
			snprintf(buf, len, "%s", v);
			found = true;
		}
	fclose(f);
	return found;
}

static uint64_t expect_off(struct __test_metadata *_metadata,
			   const char *key, unsigned int nth)
{
	char v[64];

	if (!expect_str(key, nth, v, sizeof(v)))
		ASSERT_TRUE(0) TH_LOG("no %s in $TEST_ELF/expect: did mkelf.sh run?",
				      key);
	return strtoull(v, NULL, 0);
}

/* pc_elf_resolve() of @file's @sym; the error in @err. */
static int resolve(const char *path, const char *sym, uint64_t *off,
		   char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = pc_elf_resolve(fd, path, sym, off, err, errlen);
	close(fd);
	return ret;
}

/* Names, versions, aliases and offsets against readelf's answers. */
TEST(elf_resolve)
{
	static const struct {
		const char *file;
		const char *sym;	/* NULL: the expected offset, as text */
		const char *key;
	} cases[] = {
		/* a bare name: the default version */
		{ "libver.so", "foo", "libver.foo@@VER_2" },
		{ "libver.so", "foo@@VER_2", "libver.foo@@VER_2" },
		/* @V: hidden or default */
		{ "libver.so", "foo@VER_2", "libver.foo@@VER_2" },
		{ "libver.so", "foo@VER_1", "libver.foo@VER_1" },
		{ "libver.so", "bar@VER_0", "libver.bar@VER_0" },
		{ "libver.so", "bar@VER_1", "libver.bar@VER_1" },
		/* two hidden versions, one function: not ambiguous */
		{ "libver.so", "baz", "libver.baz@VER_0" },
		{ "libver.so", "baz@VER_1", "libver.baz@VER_0" },
		/* unversioned in .symtab, @@VER_2 in .dynsym; an alias */
		{ "libver.so", "plain", "libver.plain" },
		{ "libver.so", "plain@@VER_2", "libver.plain" },
		{ "libver.so", "plain_alias", "libver.plain" },
		/* .dynsym only, versions from .gnu.version and _d */
		{ "libver-stripped.so", "foo", "libver.foo@@VER_2" },
		{ "libver-stripped.so", "foo@VER_1", "libver.foo@VER_1" },
		{ "libver-stripped.so", "baz", "libver.baz@VER_0" },
		/* a PATH with ':' */
		{ "a:b/libver.so", "foo@VER_1", "libver.foo@VER_1" },
		/* not PIE: the address is not the offset */
		{ "prog", "main", "prog.main" },
		/* offsets come back as they are */
		{ "libver.so", NULL, "libver.foo@VER_1" },
		{ "prog", NULL, "prog.helper" },
	};
	char path[512], err[600], sym[64];
	unsigned int i;
	uint64_t off, want;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		want = expect_off(_metadata, cases[i].key, 0);
		snprintf(sym, sizeof(sym), "0x%llx", (unsigned long long)want);
		if (cases[i].sym)
			snprintf(sym, sizeof(sym), "%s", cases[i].sym);
		elf_file(path, sizeof(path), cases[i].file);
		off = 0;
		EXPECT_EQ(0, resolve(path, sym, &off, err, sizeof(err)))
			TH_LOG("%s:%s: %s", cases[i].file, sym, err);
		EXPECT_EQ(want, off) TH_LOG("%s:%s", cases[i].file, sym);
	}
	/* an offset in decimal */
	want = expect_off(_metadata, "prog.main", 0);
	snprintf(sym, sizeof(sym), "%llu", (unsigned long long)want);
	ASSERT_EQ(0, resolve(elf_file(path, sizeof(path), "prog"), sym, &off,
			     err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(want, off);
}

/* The host's C library: what readelf says of malloc@@GLIBC_2.2.5. */
TEST(elf_resolve_libc)
{
	static const char *const syms[] = { "malloc", "malloc@@GLIBC_2.2.5",
		"malloc@GLIBC_2.2.5" };
	char libc[512], err[600];
	unsigned int i;
	uint64_t off, want;

	if (!expect_str("libc", 0, libc, sizeof(libc)))
		SKIP(return, "no C library at mkelf.sh's LIBC");
	want = expect_off(_metadata, "libc.malloc", 0);
	for (i = 0; i < ARRAY_SIZE(syms); i++) {
		off = 0;
		EXPECT_EQ(0, resolve(libc, syms[i], &off, err, sizeof(err)))
			TH_LOG("%s: %s", syms[i], err);
		EXPECT_EQ(want, off) TH_LOG("%s", syms[i]);
	}
}

struct elf_err_case {
	const char *file;
	const char *sym;
	int ret;
	const char *want[2];	/* in the message; %s: the path (twice) */
};

static const struct elf_err_case elf_err_cases[] = {
	{ "libver.so", "nosuch", -ENOENT,
	  { "no function nosuch in %s (neither .symtab nor .dynsym has it)" } },
	{ "libver.so", "foo@@VER_1", -ENOENT,
	  { "no function foo@@VER_1 in %s: it has ", "foo@VER_1" } },
	{ "libver.so", "foo@VER_9", -ENOENT,
	  { "no function foo@VER_9 in %s: it has ", "foo@@VER_2" } },
	{ "libver.so", "fo", -ENOENT, { "no function fo in %s" } },
	{ "prog", "__libc_start_main", -ENOENT,
	  { "no function __libc_start_main in %s: it uses __libc_start_main from a shared library (ldd %s lists them): probe it there" } },
	{ "libver.so", "bar", -ENOTUNIQ,
	  { "ambiguous: bar@VER_0, bar@VER_1 are different functions in %s: name one with its version" } },
	{ "libver.so", "data_obj", -EINVAL,
	  { "data_obj in %s is a data object, not a function" } },
	{ "libver.so", "ifn", -EINVAL,
	  { "ifn in %s is an IFUNC resolver (STT_GNU_IFUNC)",
	    "probe that implementation instead" } },
	{ "libver.so", "VER_1", -EINVAL,
	  { "VER_1 in %s is an absolute value, not a function" } },
	{ "libver-stripped.so", "bar_v0", -ENOENT,
	  { "no function bar_v0 in %s (.dynsym does not have it, and there is no .symtab: the file is stripped)" } },
	{ "nosym", "helper", -ENOENT,
	  { "%s has no symbols (no .symtab: stripped; no .dynsym: not dynamically linked): give the function's file offset" } },
	{ "libver.so", "0x7fffffff", -ERANGE,
	  { "offset 0x7fffffff is not in an executable segment of %s" } },
	{ "libver.so", "18446744073709551615", -ERANGE,
	  { "offset 0xffffffffffffffff is not in an executable segment of %s" } },
	{ "libver.so", "18446744073709551616", -EINVAL,
	  { "symbol '18446744073709551616': offset above 2^64" } },
	{ "libver.so", "", -EINVAL, { "symbol '': empty symbol" } },
	{ "libver.so", "foo@", -EINVAL,
	  { "symbol 'foo@': a version is NAME@VERSION or NAME@@VERSION" } },
	{ "text.txt", "foo", -ENOEXEC, { "%s is not an ELF file" } },
	{ "empty", "foo", -ENOEXEC, { "%s is not an ELF file" } },
	{ "a:b", "foo", -EINVAL, { "%s is not a regular file" } },
};

TEST(elf_resolve_errors)
{
	char path[512], err[600], want[700];
	unsigned int i, j;
	uint64_t off;

	for (i = 0; i < ARRAY_SIZE(elf_err_cases); i++) {
		const struct elf_err_case *c = &elf_err_cases[i];

		elf_file(path, sizeof(path), c->file);
		off = 12345;
		EXPECT_EQ(c->ret, resolve(path, c->sym, &off, err,
					  sizeof(err)))
			TH_LOG("%s:%s: %s", c->file, c->sym, err);
		EXPECT_EQ(12345ULL, off) TH_LOG("%s:%s", c->file, c->sym);
		for (j = 0; j < 2 && c->want[j]; j++) {
			snprintf(want, sizeof(want), c->want[j], path, path);
			EXPECT_NE(NULL, strstr(err, want))
				TH_LOG("%s:%s: got '%s', want '%s'", c->file,
				       c->sym, err, want);
		}
	}
}

/* Local functions of one name: their offsets are the way out. */
TEST(elf_resolve_ambiguous_locals)
{
	char path[512], err[600], want[700];
	uint64_t off;

	elf_file(path, sizeof(path), "prog");
	ASSERT_EQ(-ENOTUNIQ, resolve(path, "helper", &off, err, sizeof(err)));
	snprintf(want, sizeof(want),
		 "ambiguous: helper at offset 0x%llx, helper at offset 0x%llx are different functions in %s: give the offset of one instead (PATH:0xOFFSET)",
		 (unsigned long long)expect_off(_metadata, "prog.helper", 0),
		 (unsigned long long)expect_off(_metadata, "prog.helper", 1),
		 path);
	ASSERT_STREQ(want, err);
}

TEST(elf_resolve_32bit)
{
	char path[512], err[600], want[700];
	uint64_t off;

	elf_file(path, sizeof(path), "lib32.so");
	if (access(path, F_OK))
		SKIP(return, "gcc -m32 could not link %s (see mkelf.log)", path);
	ASSERT_EQ(-ENOEXEC, resolve(path, "f32", &off, err, sizeof(err)));
	snprintf(want, sizeof(want),
		 "%s is a 32-bit ELF file: probectl probes 64-bit programs only",
		 path);
	ASSERT_STREQ(want, err);
}

/* A 64-bit ELF file of another machine: libver.so with e_machine changed. */
TEST(elf_resolve_other_machine)
{
#if defined(__x86_64__)
	const uint16_t machine = EM_AARCH64;
#else
	const uint16_t machine = EM_X86_64;
#endif
	char src[512], dst[] = "/tmp/probectl-elf-XXXXXX", err[600];
	FILE *in, *out;
	uint64_t off;
	int fd, c;

	fd = mkstemp(dst);
	ASSERT_LE(0, fd);
	out = fdopen(fd, "wb");
	ASSERT_NE(NULL, out);
	in = fopen(elf_file(src, sizeof(src), "libver.so"), "rb");
	ASSERT_NE(NULL, in);
	while ((c = fgetc(in)) != EOF)
		fputc(c, out);
	fclose(in);
	fseek(out, 18, SEEK_SET);	/* e_machine, little-endian */
	fputc(machine & 0xff, out);
	fputc(machine >> 8, out);
	fclose(out);
	EXPECT_EQ(-ENOEXEC, resolve(dst, "foo", &off, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, " is an ELF file for ")) TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, ", not for this machine (")) TH_LOG("%s", err);
#if defined(__x86_64__)
	EXPECT_NE(NULL, strstr(err, " for aarch64, not for this machine (x86-64)"))
		TH_LOG("%s", err);
#endif
	unlink(dst);
}

/* attach --uprobe, --uretprobe: what reaches PCORE_IOC_ATTACH. */
TEST(attach_uprobe_passes_fd_and_offset)
{
	static const struct {
		const char *file;
		const char *sym;	/* NULL: the expected offset, as text */
		const char *opts[8];
		const char *name;	/* %s: the offset */
		const char *key;
		const char *kind;
		unsigned int maxactive;
		unsigned int hist_kind;
	} cases[] = {
		{ "libver.so", "foo", { "--arg", "2", "--unit", "bytes" },
		  "foo:arg2:bytes", "libver.foo@@VER_2", "uprobe", 0,
		  PCORE_UAPI_HIST_DEFAULT },
		{ "libver.so", "foo@VER_1", { NULL }, "foo",
		  "libver.foo@VER_1", "uretprobe", 0, PCORE_UAPI_HIST_DEFAULT },
		{ "libver.so", "foo@VER_1", { "--retval", "--maxactive", "16",
		  "--name", "foo_v1", "--hist", "linear:0,100,10" },
		  "foo_v1:retval", "libver.foo@VER_1", "uretprobe", 16,
		  PCORE_UAPI_HIST_LINEAR },
		{ "libver-stripped.so", "baz", { "--count" }, "baz:count",
		  "libver.baz@VER_0", "uprobe", 0, PCORE_UAPI_HIST_DEFAULT },
		{ "a:b/libver.so", "plain_alias", { "--arg", "6" },
		  "plain_alias:arg6", "libver.plain", "uprobe", 0,
		  PCORE_UAPI_HIST_DEFAULT },
		{ "prog", NULL, { "--count" }, "prog_%s:count", "prog.helper",
		  "uprobe", 0, PCORE_UAPI_HIST_DEFAULT },
		{ "prog", "main", { "--hist", "log2" }, "main", "prog.main",
		  "uretprobe", 0, PCORE_UAPI_HIST_LOG2 },
	};
	char path[512], arg[600], name[128], off[32];
	unsigned int i, n;
	struct stat st;
	uint64_t want;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char *argv[16] = { "probectl", "attach", NULL, arg };
		struct fake_hist *h;
		struct result r;
		struct fake f;

		want = expect_off(_metadata, cases[i].key, 0);
		snprintf(off, sizeof(off), "0x%llx", (unsigned long long)want);
		elf_file(path, sizeof(path), cases[i].file);
		snprintf(arg, sizeof(arg), "%s:%s", path, cases[i].sym ?: off);
		argv[2] = "--uretprobe";
		if (!strcmp(cases[i].kind, "uprobe"))
			argv[2] = "--uprobe";
		for (n = 0; n < 8 && cases[i].opts[n]; n++)
			argv[4 + n] = (char *)cases[i].opts[n];
		snprintf(name, sizeof(name), cases[i].name, off);
		ASSERT_EQ(0, stat(path, &st));

		std_fake(&f);
		r = run_argv(&f, 4 + n, argv);
		EXPECT_EQ(0, r.ret) TH_LOG("case %u: stderr: %s", i, r.err);
		EXPECT_STREQ("", r.err);
		EXPECT_STREQ("", r.out);
		EXPECT_EQ(1U, f.calls[_IOC_NR(PCORE_IOC_ATTACH)]);
		EXPECT_EQ((unsigned int)PCORE_ATTACH_UPROBE, f.attached.kind);
		EXPECT_STREQ(name, f.attached.name) TH_LOG("case %u", i);
		EXPECT_EQ(want, f.attached.offset) TH_LOG("case %u", i);
		EXPECT_EQ(cases[i].maxactive, f.attached.maxactive);
		EXPECT_EQ(cases[i].hist_kind, f.attached.hist_kind);
		EXPECT_EQ(0, f.attached.pid);
		/* the descriptor: PATH's file, read-only, close-on-exec... */
		EXPECT_LE(0, f.attached.fd);
		EXPECT_EQ(st.st_dev, f.attached_st.st_dev);
		EXPECT_EQ(st.st_ino, f.attached_st.st_ino) TH_LOG("case %u", i);
		EXPECT_EQ(O_RDONLY, f.attached_fl_flags & O_ACCMODE);
		EXPECT_NE(0, f.attached_fd_flags & FD_CLOEXEC);
		/* ...and closed once the ioctl returned */
		EXPECT_EQ(-1, fcntl(f.attached.fd, F_GETFD));
		EXPECT_EQ(f.opens, f.closes);
		h = fake_find(&f, name);
		ASSERT_NE(NULL, h) TH_LOG("case %u", i);
		EXPECT_STREQ(cases[i].kind, h->e.probe_kind);
		result_free(&r);
		fake_free(&f);
	}
}

/* Uprobes with the C library: the user guide's examples. */
TEST(attach_uprobe_libc)
{
	char libc[512], arg[600];
	struct result r;
	struct fake f;
	uint64_t want;

	if (!expect_str("libc", 0, libc, sizeof(libc)))
		SKIP(return, "no C library at mkelf.sh's LIBC");
	want = expect_off(_metadata, "libc.malloc", 0);
	snprintf(arg, sizeof(arg), "%s:malloc", libc);
	std_fake(&f);
	r = RUN(&f, "attach", "--uprobe", arg, "--arg", "1");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_STREQ("malloc:arg1", f.attached.name);
	ASSERT_EQ(want, f.attached.offset);
	result_free(&r);
	snprintf(arg, sizeof(arg), "%s:malloc@@GLIBC_2.2.5", libc);
	r = RUN(&f, "attach", "--uretprobe", arg);
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_STREQ("malloc", f.attached.name);
	ASSERT_EQ(want, f.attached.offset);
	result_free(&r);
	/* a second one of the same name: the kernel's EEXIST */
	r = RUN(&f, "attach", "--uretprobe", arg);
	ASSERT_EQ(1, r.ret);
	ASSERT_STREQ("probectl: attach malloc: a histogram of that name exists already\n",
		     r.err);
	result_free(&r);
	fake_free(&f);
}

/*
 * Files that are not what --uprobe needs: one line on stderr, exit 1,
 * and neither the device nor the ioctl is touched.  %s in the argument
 * and the message: $TEST_ELF.
 */
TEST(attach_uprobe_errors)
{
	static const struct {
		const char *argv[6];
		const char *err;
	} cases[] = {
		{ { "--uretprobe", "%s/nosuch.so:foo" },
		  "probectl: cannot open %s/nosuch.so: No such file or directory\n" },
		{ { "--uretprobe", "%s/a:b:foo" },
		  "probectl: %s/a:b is a directory, not an ELF file\n" },
		{ { "--uretprobe", "/dev/null:foo" },
		  "probectl: /dev/null is not a regular file (a device, FIFO or socket), not an ELF file\n" },
		{ { "--uprobe", "%s/text.txt:foo", "--count" },
		  "probectl: %s/text.txt is not an ELF file\n" },
		{ { "--uprobe", "%s/libver.so:nosuch", "--count" },
		  "probectl: no function nosuch in %s/libver.so (neither .symtab nor .dynsym has it)\n" },
		{ { "--uprobe", "%s/libver.so:0x7fffffff", "--count" },
		  "probectl: offset 0x7fffffff is not in an executable segment of %s/libver.so\n" },
		{ { "--uretprobe", "%s/libver.so:bar" },
		  "probectl: ambiguous: bar@VER_0, bar@VER_1 are different functions in %s/libver.so: name one with its version\n" },
		{ { "--uretprobe", "%s/libver.so:data_obj", "--retval" },
		  "probectl: data_obj in %s/libver.so is a data object, not a function\n" },
		{ { "--uretprobe", "%s/nosym:helper" },
		  "probectl: %s/nosym has no symbols (no .symtab: stripped; no .dynsym: not dynamically linked): give the function's file offset instead of its name (PATH:0xOFFSET)\n" },
	};
	const char *dir = getenv("TEST_ELF") ?: "elf";
	char arg[600], want[1200];
	unsigned int i, n;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char *argv[10] = { "probectl", "attach" };
		struct result r;
		struct fake f;

		for (n = 0; n < 6 && cases[i].argv[n]; n++)
			argv[2 + n] = (char *)cases[i].argv[n];
		snprintf(arg, sizeof(arg), cases[i].argv[1], dir);
		argv[3] = arg;
		snprintf(want, sizeof(want), cases[i].err, dir, dir);
		std_fake(&f);
		r = run_argv(&f, 2 + n, argv);
		EXPECT_EQ(1, r.ret) TH_LOG("case %u", i);
		EXPECT_STREQ(want, r.err) TH_LOG("case %u", i);
		EXPECT_STREQ("", r.out);
		EXPECT_EQ(0U, f.opens) TH_LOG("case %u", i);
		EXPECT_EQ(0U, f.calls[_IOC_NR(PCORE_IOC_ATTACH)]);
		result_free(&r);
		fake_free(&f);
	}
}

/* What the kernel answers a uprobe: the file and offset in the words. */
TEST(attach_uprobe_kernel_errors)
{
	char arg[600], want[1200], path[512];
	struct result r;
	struct fake f;
	uint64_t off;

	off = expect_off(_metadata, "libver.foo@@VER_2", 0);
	elf_file(path, sizeof(path), "libver.so");
	snprintf(arg, sizeof(arg), "%s:foo", path);
	std_fake(&f);
	f.not_admin = true;
	r = RUN(&f, "attach", "--uprobe", arg, "--count");
	ASSERT_EQ(1, r.ret);
	ASSERT_STREQ("probectl: attach foo:count: permission denied: run as root (needs CAP_SYS_ADMIN)\n",
		     r.err);
	ASSERT_EQ(f.opens, f.closes);
	result_free(&r);
	f.not_admin = false;
	/* the fake answers ENOENT for names that start with "nosuch" */
	r = RUN(&f, "attach", "--uprobe", arg, "--count", "--name", "nosuch");
	ASSERT_EQ(1, r.ret);
	snprintf(want, sizeof(want),
		 "probectl: attach nosuch:count (%s at offset 0x%llx): No such file or directory; the kernel log says why: dmesg | tail\n",
		 path, (unsigned long long)off);
	ASSERT_STREQ(want, r.err);
	result_free(&r);
	/* the module is not loaded: the file was read, the device not */
	f.open_err = -ENOENT;
	r = RUN(&f, "attach", "--uretprobe", arg);
	ASSERT_EQ(1, r.ret);
	ASSERT_STREQ("probectl: probe_core is not loaded (load it with: probectl load)\n",
		     r.err);
	result_free(&r);
	fake_free(&f);
}

/* PATH:SYMBOL split at the last ':', and the names made from them. */
TEST(args_uprobe)
{
	static const struct {
		const char *argv[10];
		const char *path;
		const char *sym;
		const char *full;
		bool entry;
	} cases[] = {
		{ { "--uretprobe", "/usr/lib/a:b/libfoo.so.1:memcpy@@GLIBC_2.14",
		    "--retval", "--unit", "bytes" },
		  "/usr/lib/a:b/libfoo.so.1", "memcpy@@GLIBC_2.14",
		  "memcpy:retval:bytes", false },
		{ { "--uprobe", "/opt/my prog+x/.libfoo-1.so:0x1a2B", "--count" },
		  "/opt/my prog+x/.libfoo-1.so", "0x1a2B",
		  "_libfoo-1.so_0x1a2b:count", true },
		{ { "--uprobe", "a.out:4096", "--arg", "3" }, "a.out", "4096",
		  "a.out_0x1000:arg3", true },
		{ { "--uprobe", "/x:_ZN4core3fmt$LT$impl$GT$3fmt17h01E",
		    "--arg", "6" }, "/x", "_ZN4core3fmt$LT$impl$GT$3fmt17h01E",
		  "_ZN4core3fmt_LT_impl_GT_3fmt17h01E:arg6", true },
		{ { "--uretprobe", "rel:f@V1", "--name", "my-f.v2",
		    "--maxactive", "4096", "--hist", "log2" }, "rel", "f@V1",
		  "my-f.v2", false },
		{ { "--name", "n", "--uprobe", "x::f", "--count" }, "x:", "f",
		  "n:count", true },
	};
	unsigned int i, n;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char *argv[14] = { "probectl", "attach" };
		struct pc_args a;

		for (n = 0; n < 10 && cases[i].argv[n]; n++)
			argv[2 + n] = (char *)cases[i].argv[n];
		ASSERT_EQ(0, pc_parse_args(2 + n, argv, &a))
			TH_LOG("case %u: %s", i, a.err);
		EXPECT_EQ((unsigned int)PCORE_ATTACH_UPROBE, a.attach_kind);
		EXPECT_STREQ(cases[i].path, a.attach_path);
		EXPECT_STREQ(cases[i].sym, a.attach_sym);
		EXPECT_STREQ(cases[i].full, a.attach_full) TH_LOG("case %u", i);
		EXPECT_EQ(cases[i].entry, a.attach_entry);
	}
}

struct err_case {
	const char *why;
	int (*setup)(struct fake *f);
	const char *argv[6];
	const char *err;
};

static int not_admin(struct fake *f)
{
	f->not_admin = true;
	return 0;
}

static int open_eacces(struct fake *f)
{
	f->open_err = -EACCES;
	return 0;
}

static int open_enoent(struct fake *f)
{
	f->open_err = -ENOENT;
	return 0;
}

/* A probe_core of the ABI before (without PCORE_READ_TOTAL), and one from later. */
static int abi_older(struct fake *f)
{
	f->abi = PCORE_ABI_VERSION - 1;
	return 0;
}

static int abi_newer(struct fake *f)
{
	f->abi = PCORE_ABI_VERSION + 1;
	return 0;
}

static int version_enotty(struct fake *f)
{
	f->version_err = -ENOTTY;
	return 0;
}

static int read_eio(struct fake *f)
{
	f->read_err = -EIO;
	return 0;
}

static const struct err_case err_cases[] = {
	{ "module not loaded", open_enoent, { "list" },
	  "probectl: probe_core is not loaded (load it with: probectl load)\n" },
	{ "not root: open", open_eacces, { "show", "do_fork" },
	  "probectl: permission denied opening /dev/probe_core: run as root\n" },
	{ "ABI mismatch: older module", abi_older, { "list" },
	  "probectl: ABI version mismatch: probe_core 0.9-test speaks ABI 4, this probectl ABI 5; use the probectl built with this probe_core\n" },
	{ "ABI mismatch: newer module", abi_newer, { "attach", "--kretprobe", "vfs_read" },
	  "probectl: ABI version mismatch: probe_core 0.9-test speaks ABI 6, this probectl ABI 5; use the probectl built with this probe_core\n" },
	{ "no VERSION ioctl", version_enotty, { "list" },
	  "probectl: /dev/probe_core does not answer PCORE_IOC_VERSION: not probe_core's device?\n" },
	{ "unknown histogram", NULL, { "show", "nosuch" },
	  "probectl: no histogram named 'nosuch' (probectl list shows them)\n" },
	{ "unknown histogram: reset", NULL, { "reset", "nosuch/hist" },
	  "probectl: no histogram named 'nosuch/hist' (probectl list shows them)\n" },
	{ "not root: attach", not_admin, { "attach", "--kretprobe", "vfs_read" },
	  "probectl: attach vfs_read: permission denied: run as root (needs CAP_SYS_ADMIN)\n" },
	{ "not root: detach", not_admin, { "detach", "do_fork" },
	  "probectl: detach do_fork: permission denied: run as root (needs CAP_SYS_ADMIN)\n" },
	{ "attach: no such function", NULL, { "attach", "--kretprobe", "nosuch_fn" },
	  "probectl: attach nosuch_fn: no function of that name here; the kernel log says why: dmesg | tail\n" },
	{ "attach: exists", NULL, { "attach", "--tracepoint", "do_fork" },
	  "probectl: attach do_fork: a histogram of that name exists already\n" },
	{ "detach: a handler module's", NULL, { "detach", "tcpsize/size" },
	  "probectl: detach tcpsize/size: it belongs to the handler module tcpsize; only probe_core's own probes can be detached\n" },
	{ "disable: a handler module's", NULL, { "disable", "tcpsize/size" },
	  "probectl: disable tcpsize/size: it belongs to the handler module tcpsize; only probe_core's own probes can be disabled\n" },
	/* Each command that reads a histogram by name says which and how. */
	{ "read fails: show", read_eio, { "show", "do_fork" },
	  "probectl: read do_fork: Input/output error\n" },
	{ "read fails: flamegraph NAME", read_eio, { "flamegraph", "do_fork" },
	  "probectl: read do_fork: Input/output error\n" },
	{ "read fails: watch", read_eio, { "watch", "do_fork", "-i", "1" },
	  "probectl: watch do_fork: Input/output error\n" },
	{ "read fails: heatmap", read_eio, { "heatmap", "do_fork", "-n", "1" },
	  "probectl: heatmap do_fork: Input/output error\n" },
	{ "read fails: profile -d", read_eio, { "profile", "-F", "99", "-d", "1" },
	  "probectl: read profile: Input/output error\n" },
	{ "unknown histogram: watch", NULL, { "watch", "nosuch", "-i", "1" },
	  "probectl: no histogram named 'nosuch' (probectl list shows them)\n" },
	{ "unknown histogram: heatmap", NULL, { "heatmap", "nosuch" },
	  "probectl: no histogram named 'nosuch' (probectl list shows them)\n" },
	{ "unknown histogram: flamegraph", NULL, { "flamegraph", "nosuch" },
	  "probectl: no histogram named 'nosuch' (probectl list shows them)\n" },
};

TEST(error_messages)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(err_cases); i++) {
		const struct err_case *c = &err_cases[i];
		char *argv[8] = { "probectl" };
		struct fake f;
		struct result r;
		int argc = 1;

		std_fake(&f);
		if (c->setup)
			c->setup(&f);
		while (argc < 7 && c->argv[argc - 1]) {
			argv[argc] = (char *)c->argv[argc - 1];
			argc++;
		}
		r = run_argv(&f, argc, argv);
		EXPECT_EQ(1, r.ret) TH_LOG("%s", c->why);
		EXPECT_STREQ(c->err, r.err) TH_LOG("%s", c->why);
		EXPECT_STREQ("", r.out) TH_LOG("%s", c->why);
		EXPECT_EQ(f.opens, f.closes) TH_LOG("%s", c->why);
		result_free(&r);
		fake_free(&f);
	}
}

/* Device missing while the module is loaded: the mknod hint from sysfs. */
static struct result run_sys(struct fake *f, const char *sys_module,
			     const char *sys_misc)
{
	char *argv[3] = { "probectl", "list" };
	struct pc_env env = { 0 };
	struct result r = { 0 };

	fake_env(&env, f);
	env.sys_module = sys_module;
	env.sys_misc = sys_misc;
	env.out = open_memstream(&r.out, &r.outlen);
	env.err = open_memstream(&r.err, &r.errlen);
	r.ret = pc_run(2, argv, &env);
	fclose(env.out);
	fclose(env.err);
	return r;
}

TEST(device_missing_while_loaded)
{
	char dir[] = "/tmp/probectl-sys-XXXXXX", misc[128];
	struct result r;
	struct fake f;
	FILE *fp;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(misc, sizeof(misc), "%s/dev", dir);
	std_fake(&f);
	f.open_err = -ENOENT;
	r = run_sys(&f, dir, misc);	/* dir exists: "loaded" */
	ASSERT_EQ(1, r.ret);
	ASSERT_STREQ("probectl: probe_core is loaded but /dev/probe_core is missing, and probe_core registered no device (a probe_core without /dev/probe_core?)\n",
		     r.err);
	result_free(&r);
	fp = fopen(misc, "w");
	ASSERT_NE(NULL, fp);
	fputs("10:122\n", fp);
	fclose(fp);
	r = run_sys(&f, dir, misc);
	ASSERT_EQ(1, r.ret);
	ASSERT_STREQ("probectl: probe_core is loaded but /dev/probe_core is missing; create it with: mknod /dev/probe_core c 10 122\n",
		     r.err);
	result_free(&r);
	/* junk in the sysfs file is not repeated */
	fp = fopen(misc, "w");
	ASSERT_NE(NULL, fp);
	fputs("10:1; rm -rf /\n", fp);
	fclose(fp);
	r = run_sys(&f, dir, misc);
	ASSERT_EQ(1, r.ret);
	ASSERT_EQ(NULL, strstr(r.err, "rm -rf"));
	result_free(&r);
	unlink(misc);
	rmdir(dir);
	fake_free(&f);
}

TEST(reset_enable_disable_detach)
{
	struct fake f;
	struct result r;

	std_fake(&f);
	r = RUN(&f, "reset", "tcpsize/size");
	ASSERT_EQ(0, r.ret);
	result_free(&r);
	r = RUN(&f, "show", "tcpsize/size", "--json");
	ASSERT_NE(NULL, strstr(r.out, "\"total\":{\"count\":0,"));
	result_free(&r);
	r = RUN(&f, "enable", "vfs_read");
	ASSERT_EQ(0, r.ret);
	ASSERT_EQ(0U, fake_find(&f, "vfs_read")->e.flags & PCORE_ENT_DISABLED);
	result_free(&r);
	r = RUN(&f, "disable", "do_fork");
	ASSERT_EQ(0, r.ret);
	ASSERT_NE(0U, fake_find(&f, "do_fork")->e.flags & PCORE_ENT_DISABLED);
	result_free(&r);
	r = RUN(&f, "detach", "do_fork");
	ASSERT_EQ(0, r.ret);
	ASSERT_STREQ("", r.out);
	ASSERT_EQ(NULL, fake_find(&f, "do_fork"));
	result_free(&r);
	fake_free(&f);
}

/* ---- load and unload ---- */

TEST(load_params_reach_libkmod)
{
	struct fake f;
	struct result r;

	std_fake(&f);
	r = RUN(&f, "load", "--target", "do_fork,sys_nanosleep", "--hist",
		"loglinear:5", "--maxactive=128", "--tracepoints",
		"sched_switch");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_STREQ("(installed)", f.load_path);
	ASSERT_STREQ("target=do_fork,sys_nanosleep tracepoints=sched_switch hist=loglinear:5 maxactive=128",
		     f.load_params);
	result_free(&r);
	r = RUN(&f, "load", "--target", "vfs_read", "--mechanism", "auto");
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_STREQ("target=vfs_read mechanism=auto", f.load_params);
	result_free(&r);
	r = RUN(&f, "load", "--module", "build/x/probe_core.ko");
	ASSERT_EQ(0, r.ret);
	ASSERT_STREQ("build/x/probe_core.ko", f.load_path);
	ASSERT_STREQ("", f.load_params);
	result_free(&r);
	fake_free(&f);
}

struct kmod_case {
	bool unload;
	enum pc_kmod_step step;
	int ret;
	const char *holders;
	const char *module;
	const char *err;
};

static const struct kmod_case kmod_cases[] = {
	{ false, PC_KMOD_FIND, -ENOENT, NULL, NULL,
	  "probectl: probe_core is not installed for kernel 6.1.0-test (install it, or give --module PATH to a probe_core.ko)\n" },
	{ false, PC_KMOD_FIND, -ENOENT, NULL, "/no/such.ko",
	  "probectl: cannot use module file /no/such.ko: No such file or directory\n" },
	{ false, PC_KMOD_NAME, -EINVAL, NULL, "/tmp/other.ko",
	  "probectl: /tmp/other.ko is not probe_core.ko\n" },
	{ false, PC_KMOD_INSERT, -EEXIST, NULL, NULL,
	  "probectl: probe_core is already loaded (probectl unload first to change its parameters)\n" },
	{ false, PC_KMOD_INSERT, -EPERM, NULL, NULL,
	  "probectl: loading /lib/modules/6.1.0-test/extra/probe_core.ko: permission denied: run as root\n" },
	{ false, PC_KMOD_INSERT, -ENOENT, NULL, NULL,
	  "probectl: probe_core refused 'target=nosuch': a function or tracepoint does not exist; the kernel log says why: dmesg | tail\n" },
	{ false, PC_KMOD_INSERT, -EINVAL, NULL, NULL,
	  "probectl: probe_core refused 'target=nosuch': invalid parameters; the kernel log says why: dmesg | tail\n" },
	{ false, PC_KMOD_INSERT, -ENOEXEC, NULL, "/tmp/probe_core.ko",
	  "probectl: /tmp/probe_core.ko is not a module for this kernel (6.1.0-test); the kernel log says why: dmesg | tail\n" },
	{ false, PC_KMOD_INSERT, -ENOMEM, NULL, NULL,
	  "probectl: loading /lib/modules/6.1.0-test/extra/probe_core.ko failed: Cannot allocate memory; the kernel log says why: dmesg | tail\n" },
	{ true, 0, -ENOENT, NULL, NULL,
	  "probectl: probe_core is not loaded\n" },
	{ true, 0, -EAGAIN, "cpuhists,thardirq", NULL,
	  "probectl: probe_core is in use by: cpuhists,thardirq (unload those first)\n" },
	{ true, 0, -EAGAIN, NULL, NULL,
	  "probectl: probe_core is in use: close its files under /sys/kernel/debug/probe_core and /dev/probe_core, stop probectl watch, and retry\n" },
	{ true, 0, -EPERM, NULL, NULL,
	  "probectl: unloading probe_core: permission denied: run as root\n" },
};

/* The kernel refused it: probe_core's line from the kernel log, alone. */
TEST(load_says_the_kernel_log_line)
{
	struct fake f;
	struct result r;

	std_fake(&f);
	f.load_step = PC_KMOD_INSERT;
	f.load_ret = -ENOENT;
	f.load_why = "kretprobe nosuch: no such kernel function";
	r = RUN(&f, "load", "--target", "nosuch");
	EXPECT_EQ(1, r.ret);
	EXPECT_STREQ("probectl: probe_core refused 'target=nosuch': kretprobe nosuch: no such kernel function\n",
		     r.err);
	result_free(&r);
	fake_free(&f);
}

TEST(load_unload_errors)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kmod_cases); i++) {
		const struct kmod_case *c = &kmod_cases[i];
		struct fake f;
		struct result r;

		std_fake(&f);
		f.load_step = c->step;
		f.load_ret = c->ret;
		f.unload_ret = c->ret;
		f.holders = c->holders;
		if (c->unload)
			r = RUN(&f, "unload");
		else if (c->module)
			r = RUN(&f, "load", "--module", c->module,
				"--target", "nosuch");
		else
			r = RUN(&f, "load", "--target", "nosuch");
		EXPECT_EQ(1, r.ret) TH_LOG("case %u", i);
		EXPECT_STREQ(c->err, r.err) TH_LOG("case %u", i);
		result_free(&r);
		fake_free(&f);
	}
}

/* ---- the command line ---- */

TEST(help_for_every_command)
{
	static const char *const cmds[] = { "load", "unload", "status",
		"list", "show", "watch", "attach", "detach", "reset",
		"enable", "disable", "export", "flamegraph", "profile",
		"heatmap" };
	char want[64];
	struct fake f;
	struct result r;
	unsigned int i;

	memset(&f, 0, sizeof(f));
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		snprintf(want, sizeof(want), "usage: probectl %s", cmds[i]);
		r = RUN(&f, cmds[i], "--help");
		EXPECT_EQ(0, r.ret) TH_LOG("%s", cmds[i]);
		EXPECT_EQ(r.out, strstr(r.out, want)) TH_LOG("%s", cmds[i]);
		EXPECT_NE(NULL, strstr(r.out, "Example")) TH_LOG("%s", cmds[i]);
		EXPECT_STREQ("", r.err);
		result_free(&r);
		r = RUN(&f, "help", cmds[i]);
		EXPECT_EQ(0, r.ret) TH_LOG("%s", cmds[i]);
		EXPECT_EQ(r.out, strstr(r.out, want)) TH_LOG("%s", cmds[i]);
		result_free(&r);
		/* -h wins over other errors on the line */
		r = RUN(&f, cmds[i], "--bogus", "-h");
		EXPECT_EQ(0, r.ret) TH_LOG("%s", cmds[i]);
		result_free(&r);
	}
	r = RUN(&f, "--help");
	ASSERT_EQ(0, r.ret);
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		snprintf(want, sizeof(want), "\n  %s", cmds[i]);
		EXPECT_NE(NULL, strstr(r.out, want)) TH_LOG("%s", cmds[i]);
	}
	result_free(&r);
	ASSERT_EQ(0U, f.opens);
}

#define N128	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define N127	"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" \
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define L8(x)	x "0," x "1," x "2," x "3," x "4," x "5," x "6," x "7"
#define L64	L8("a") "," L8("b") "," L8("c") "," L8("d") "," L8("e") "," \
		L8("f") "," L8("g") "," L8("h")

struct good_case {
	const char *argv[12];
	void (*check)(struct __test_metadata *_metadata,
		      const struct pc_args *a);
};

static void good_load(struct __test_metadata *_metadata,
		      const struct pc_args *a)
{
	char buf[512];

	ASSERT_EQ((int)PC_CMD_LOAD, (int)a->cmd);
	ASSERT_EQ(0, pc_load_params(a, buf, sizeof(buf)));
	ASSERT_STREQ("target=do_fork,vfs_read hist=linear:0,1000000,1000 maxactive=0",
		     buf);
	ASSERT_EQ(-ENOSPC, pc_load_params(a, buf, 20));
}

static void good_show(struct __test_metadata *_metadata,
		      const struct pc_args *a)
{
	ASSERT_EQ((int)PC_CMD_SHOW, (int)a->cmd);
	ASSERT_STREQ("thardirq/irq_time", a->name);
	ASSERT_TRUE(a->percpu);
	ASSERT_EQ((int)PC_FMT_CSV, (int)a->format);
}

static void good_watch(struct __test_metadata *_metadata,
		       const struct pc_args *a)
{
	ASSERT_EQ((int)PC_CMD_WATCH, (int)a->cmd);
	ASSERT_STREQ("do_fork", a->name);
	ASSERT_EQ(250000000ULL, a->interval_ns);
	ASSERT_EQ(4294967295U, a->count);
	ASSERT_TRUE(a->watch_hist);
	ASSERT_EQ((int)PC_FMT_JSON, (int)a->format);
}

static void good_watch2(struct __test_metadata *_metadata,
			const struct pc_args *a)
{
	ASSERT_EQ(86400000000000ULL, a->interval_ns);
	ASSERT_EQ(1U, a->count);
	ASSERT_FALSE(a->watch_hist);
	ASSERT_EQ((int)PC_FMT_TEXT, (int)a->format);
}

static void good_watch3(struct __test_metadata *_metadata,
			const struct pc_args *a)
{
	ASSERT_EQ(1ULL, a->interval_ns);
	ASSERT_EQ(0U, a->count);
}

static void good_attach(struct __test_metadata *_metadata,
			const struct pc_args *a)
{
	ASSERT_EQ((int)PC_CMD_ATTACH, (int)a->cmd);
	ASSERT_EQ((unsigned int)PCORE_ATTACH_KRETPROBE, a->attach_kind);
	ASSERT_STREQ("sys_nanosleep", a->attach_name);
	ASSERT_EQ(4096U, a->maxactive);
	ASSERT_TRUE(a->maxactive_set);
	ASSERT_EQ((unsigned int)PCORE_UAPI_HIST_LOG2, a->hist.kind);
}

static void good_export(struct __test_metadata *_metadata,
			const struct pc_args *a)
{
	ASSERT_EQ((int)PC_CMD_EXPORT, (int)a->cmd);
	ASSERT_TRUE(a->prometheus);
	ASSERT_TRUE(a->percpu);
	ASSERT_STREQ("/var/lib/node", a->textfile_dir);
}

static void good_dashname(struct __test_metadata *_metadata,
			  const struct pc_args *a)
{
	ASSERT_EQ((int)PC_CMD_RESET, (int)a->cmd);
	ASSERT_STREQ("-odd", a->name);
}

static void good_help(struct __test_metadata *_metadata,
		      const struct pc_args *a)
{
	ASSERT_TRUE(a->help);
	ASSERT_EQ((int)PC_CMD_EXPORT, (int)a->cmd);
}

static void good_flamegraph(struct __test_metadata *_metadata,
			    const struct pc_args *a)
{
	ASSERT_EQ((int)PC_CMD_FLAMEGRAPH, (int)a->cmd);
	ASSERT_STREQ("file", a->flame_in);
	ASSERT_STREQ("-", a->flame_out);
	ASSERT_STREQ("", a->flame_title);
	ASSERT_EQ(65536U, a->flame_width);
	ASSERT_EQ(NULL, a->name);
}

static void good_version(struct __test_metadata *_metadata,
			 const struct pc_args *a)
{
	ASSERT_EQ((int)PC_CMD_VERSION, (int)a->cmd);
}

static void good_64(struct __test_metadata *_metadata,
		    const struct pc_args *a)
{
	ASSERT_EQ(0, strncmp(a->target, "a0,a1,", 6));
	ASSERT_EQ(127U, strlen(a->tracepoints));
}

static void good_heatmap(struct __test_metadata *_metadata,
			 const struct pc_args *a)
{
	ASSERT_EQ((int)PC_CMD_HEATMAP, (int)a->cmd);
	ASSERT_STREQ("vfs_read", a->name);
	ASSERT_EQ(1000000000ULL, a->interval_ns);	/* the default */
	ASSERT_EQ(5U, a->count);
	ASSERT_STREQ("x.svg", a->heat_svg);
	ASSERT_STREQ("a <b>", a->flame_title);
	ASSERT_EQ(-1, a->heat_color);
	ASSERT_TRUE(a->full);
}

static void good_heatmap_d(struct __test_metadata *_metadata,
			   const struct pc_args *a)
{
	ASSERT_EQ(250000000ULL, a->interval_ns);
	ASSERT_EQ(11U, a->count);	/* 2.6 s of 0.25: 10.4, rounded up */
	ASSERT_EQ(1, a->heat_color);
	ASSERT_FALSE(a->full);
	ASSERT_EQ(NULL, a->heat_svg);
}

static void good_show_full(struct __test_metadata *_metadata,
			   const struct pc_args *a)
{
	ASSERT_EQ((int)PC_CMD_SHOW, (int)a->cmd);
	ASSERT_TRUE(a->full);
	ASSERT_EQ((int)PC_FMT_TEXT, (int)a->format);
}

static const struct good_case good_cases[] = {
	{ { "heatmap", "vfs_read", "-n5", "--svg", "x.svg", "--title",
	    "a <b>", "--no-color", "--full" }, good_heatmap },
	{ { "heatmap", "-d", "2.6", "--color", "-i", "0.25", "x" },
	  good_heatmap_d },
	{ { "show", "--full", "do_fork", "--percpu" }, good_show_full },
	{ { "load", "--target", L64, "--tracepoints", N127 }, good_64 },
	{ { "load", "--target", "do_fork,vfs_read", "--hist=linear:0,1000000,1000",
	    "--maxactive", "0" }, good_load },
	{ { "show", "--percpu", "thardirq/irq_time", "--csv" }, good_show },
	{ { "watch", "do_fork", "-i", "0.25", "--hist", "-n4294967295",
	    "--json" }, good_watch },
	{ { "watch", "-i86400", "--count", "1", "do_fork" }, good_watch2 },
	{ { "watch", "--interval=0.000000001", "do_fork" }, good_watch3 },
	{ { "attach", "--maxactive=4096", "--hist", "log2", "--kretprobe",
	    "sys_nanosleep" }, good_attach },
	{ { "export", "--per-cpu", "--textfile-dir=/var/lib/node",
	    "--prometheus" }, good_export },
	{ { "reset", "--", "-odd" }, good_dashname },
	{ { "help", "export" }, good_help },
	{ { "flamegraph", "--width=65536", "-o", "-", "-ifile", "--title", "" },
	  good_flamegraph },
	{ { "--version" }, good_version },
};

TEST(args_good)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(good_cases); i++) {
		char *argv[14] = { "probectl" };
		struct pc_args a;
		int argc = 1;

		while (good_cases[i].argv[argc - 1]) {
			argv[argc] = (char *)good_cases[i].argv[argc - 1];
			argc++;
		}
		ASSERT_EQ(0, pc_parse_args(argc, argv, &a))
			TH_LOG("case %u: %s", i, a.err);
		good_cases[i].check(_metadata, &a);
	}
}

struct bad_case {
	const char *argv[8];
	const char *err;
};

static const struct bad_case bad_cases[] = {
	/* commands */
	{ { NULL }, "no command given" },
	{ { "frobnicate" }, "unknown command 'frobnicate'" },
	{ { "-x" }, "unknown option '-x'" },
	{ { "--version", "x" }, "unexpected argument 'x'" },
	{ { "help", "frobnicate" }, "unknown command 'frobnicate'" },
	{ { "help", "show", "x" }, "unexpected argument 'x'" },
	{ { "--help", "show" }, "unexpected argument 'show'" },
	/* options */
	{ { "show", "x", "--bogus" }, "show: unknown option '--bogus'" },
	{ { "list", "--percpu" }, "list: unknown option '--percpu'" },
	{ { "show", "x", "-j" }, "show: unknown option '-j'" },
	{ { "watch", "x", "-i1x" }, "-i: '1x' is not a positive number" },
	{ { "show", "x", "--json=yes" }, "--json takes no value" },
	{ { "show", "x", "--json", "--json" }, "--json given twice" },
	{ { "show", "x", "--json", "--csv" }, "give one of --json, --csv and --folded" },
	{ { "watch", "x", "-i" }, "-i needs a value" },
	{ { "load", "--target" }, "--target needs a value" },
	{ { "unload", "now" }, "unload: unexpected argument 'now'" },
	/* names */
	{ { "show" }, "show needs a histogram NAME" },
	{ { "show", "a", "b" }, "show: unexpected argument 'b'" },
	{ { "show", "" }, "NAME: empty name" },
	{ { "show", N128 }, "NAME: name longer than 127 characters" },
	{ { "show", "a b" }, "NAME: blank, control or non-ASCII character" },
	{ { "show", "a\tb" }, "NAME: blank, control or non-ASCII character" },
	{ { "show", "caf\xc3\xa9" }, "NAME: blank, control or non-ASCII" },
	{ { "reset", "a\x1b[2J" }, "NAME: blank, control or non-ASCII" },
	{ { "attach", "--kretprobe", N128 }, "--kretprobe: name longer than 127" },
	{ { "attach", "--kretprobe", "vfs-read" }, "--kretprobe: characters other than" },
	{ { "attach", "--tracepoint", "" }, "--tracepoint: empty name" },
	{ { "attach" }, "attach needs --kprobe FUNC, --kretprobe FUNC, --uprobe PATH:SYMBOL, --uretprobe PATH:SYMBOL or --tracepoint TP" },
	{ { "attach", "--kretprobe", "a", "--tracepoint", "b" },
	  "give one of --kprobe, --kretprobe, --uprobe, --uretprobe and --tracepoint" },
	{ { "attach", "--kprobe", "a", "--kretprobe", "b" },
	  "give one of --kprobe, --kretprobe, --uprobe, --uretprobe and --tracepoint" },
	{ { "attach", "--tracepoint", "b", "--maxactive", "1" },
	  "--maxactive is for --kretprobe and --uretprobe only" },
	{ { "attach", "--kprobe", "f", "--arg", "1", "--maxactive", "1" },
	  "--maxactive is for --kretprobe and --uretprobe only" },
	{ { "attach", "--kretprobe", ":count" }, "--kretprobe: characters other than" },
	/* FUNC's suffix: the kernel's parser and rules, its messages */
	{ { "attach", "--kretprobe", "do_fork:cnt" },
	  "do_fork:cnt: unknown suffix ':cnt' (known: ':count', ':stacks', ':arg1' to ':arg6'" },
	{ { "attach", "--kretprobe", "do_fork:" }, "do_fork:: unknown suffix ':'" },
	{ { "attach", "--kretprobe", "do_fork:count:calls" },
	  "do_fork:count:calls: ':count' takes no unit" },
	{ { "attach", "--kretprobe", "do_fork:arg7" }, "unknown suffix ':arg7'" },
	{ { "attach", "--kretprobe", "vfs_*:arg1" },
	  "vfs_*:arg1: a glob takes no suffix but ':count'" },
	{ { "attach", "--kretprobe", "vfs_*", "--by-pid" },
	  "vfs_*: a glob takes no suffix but ':count'" },
	{ { "attach", "--kretprobe", "f:stacks:by=pid" },
	  "f:stacks:by=pid: ':by=pid' is not for ':stacks'" },
	{ { "attach", "--kprobe", "f:count", "--count" },
	  "f:count: give what to record in FUNC's suffix or as an option, not both" },
	{ { "attach", "--kretprobe", "f:retval:bytes", "--retval", "--unit", "B" },
	  "f:retval:bytes: give what to record in FUNC's suffix or as an option, not both" },
	{ { "attach", "--kretprobe", "f=1" }, "--kretprobe: characters other than" },
	/* values and counts */
	{ { "attach", "--kprobe", "f" }, "--kprobe needs one of --arg N, --count and --stacks" },
	{ { "attach", "--kprobe", "f", "--arg", "1", "--count" },
	  "--kprobe needs one of --arg N, --count and --stacks" },
	{ { "attach", "--kprobe", "f", "--arg", "0" },
	  "--arg: '0' is not an argument number from 1 to 6" },
	{ { "attach", "--kprobe", "f", "--arg", "7" },
	  "--arg: '7' is not an argument number from 1 to 6" },
	{ { "attach", "--kprobe", "f", "--arg", "x" },
	  "--arg: 'x' is not an argument number from 1 to 6" },
	{ { "attach", "--kprobe", "f", "--arg", "-1" },
	  "--arg: '-1' is not an argument number from 1 to 6" },
	{ { "attach", "--kretprobe", "f", "--arg", "1" },
	  "--arg is for --kprobe and --uprobe only" },
	{ { "attach", "--tracepoint", "t", "--count" },
	  "--count is for --kprobe and --uprobe only" },
	{ { "attach", "--kprobe", "f", "--count", "--retval" },
	  "--retval is for --kretprobe and --uretprobe only" },
	{ { "attach", "--tracepoint", "t", "--retval" },
	  "--retval is for --kretprobe and --uretprobe only" },
	{ { "attach", "--kretprobe", "f", "--unit", "bytes" },
	  "--unit is for --arg and --retval only" },
	{ { "attach", "--kprobe", "f", "--count", "--unit", "bytes" },
	  "--unit is for --arg and --retval only" },
	{ { "attach", "--kprobe", "f", "--count", "--hist", "log2" },
	  "--hist does not apply to --count" },
	/* filters and per-process histograms */
	{ { "attach", "--kretprobe", "f", "--pid", "0" },
	  "--pid: '0' is not a process id" },
	{ { "attach", "--kretprobe", "f", "--pid", "x" },
	  "--pid: 'x' is not a process id" },
	{ { "attach", "--kretprobe", "f", "--pid", "-5" },
	  "--pid: '-5' is not a process id" },
	{ { "attach", "--kretprobe", "f", "--pid", "4294967296" },
	  "--pid: '4294967296' is not a process id" },
	{ { "attach", "--kretprobe", "f", "--comm", "" },
	  "--comm: '' is not 1 to 15 characters (a task name)" },
	{ { "attach", "--kretprobe", "f", "--comm", "0123456789abcdef" },
	  "--comm: '0123456789abcdef' is not 1 to 15 characters (a task name)" },
	{ { "show", "x", "--top", "0" },
	  "--top: '0' is not a number from 1 to 1000000 (of stacks, or with --keys of keys)" },
	{ { "show", "x", "--keys", "--top", "1000001" },
	  "--top: '1000001' is not a number from 1 to 1000000 (of stacks, or with --keys of keys)" },
	{ { "attach", "--tracepoint", "t", "--pid", "1" },
	  "--pid and --comm are for function probes and --offcpu, not --tracepoint" },
	{ { "attach", "--tracepoint", "t", "--by-pid" },
	  "--by-pid is for function probes and runqlat, not --tracepoint" },
	{ { "attach", "--offcpu", "--by-pid" },
	  "--by-pid is for function probes and runqlat, not --tracepoint" },
	{ { "attach", "--kretprobe", "f", "--user-stacks" },
	  "--user-stacks is for --stacks and --offcpu only" },
	{ { "attach", "--tracepoint", "sched_switch", "--user-stacks" },
	  "--user-stacks is for --stacks and --offcpu only" },
	{ { "attach", "--kprobe", "f", "--stacks", "--no-kthreads" },
	  "--no-kthreads is for --offcpu only" },
	{ { "attach", "--kretprobe", "f", "--retval", "--by-pid" },
	  "--by-pid does not go with --retval" },
	{ { "attach", "--kprobe", "f", "--count", "--by-cgroup", "--by-pid" },
	  "--by-cgroup does not go with --by-pid" },
	{ { "attach", "--tracepoint", "t", "--by-cgroup" },
	  "--by-cgroup is for function probes and runqlat, not --tracepoint" },
	{ { "attach", "--offcpu", "--by-cgroup" },
	  "--by-cgroup is for function probes and runqlat, not --tracepoint" },
	{ { "attach", "--kretprobe", "f", "--retval", "--by-cgroup" },
	  "--by-cgroup does not go with --retval" },
	{ { "attach", "--kprobe", "f", "--stacks", "--by-cgroup" },
	  "--by-cgroup does not go with --stacks" },
	{ { "attach", "--kretprobe", "f", "--mechanism", "fentry" },
	  "--mechanism: 'fentry' is not kprobe, direct or auto" },
	{ { "attach", "--kretprobe", "f", "--mechanism", "" },
	  "--mechanism: '' is not kprobe, direct or auto" },
	{ { "attach", "--tracepoint", "t", "--mechanism", "direct" },
	  "--mechanism is for --kprobe and --kretprobe only" },
	{ { "attach", "--uprobe", "/bin/sh:main", "--count", "--mechanism",
	    "kprobe" }, "--mechanism is for --kprobe and --kretprobe only" },
	{ { "load", "--mechanism", "Direct" },
	  "--mechanism: 'Direct' is not kprobe, direct or auto" },
	{ { "attach", "--kprobe", "f", "--arg", "1", "--unit", "" }, "--unit: a unit is 1 to 15" },
	{ { "attach", "--kprobe", "f", "--arg", "1", "--unit", "a b" }, "--unit: a unit is 1 to 15" },
	{ { "attach", "--kprobe", "f", "--arg", "1", "--unit", "a:b" }, "--unit: a unit is 1 to 15" },
	{ { "attach", "--kprobe", "f", "--arg", "1", "--unit", "abcdefghijklmnop" },
	  "--unit: a unit is 1 to 15" },
	{ { "attach", "--kprobe", N127, "--count" },
	  ":count: longer than 127 characters with its suffix" },
	/* uprobes: PATH:SYMBOL, its syntax only (the file is read later) */
	{ { "attach", "--uprobe", "/bin/true", "--count" },
	  "--uprobe: '/bin/true' is not PATH:SYMBOL" },
	{ { "attach", "--uprobe", "/lib/x.so:", "--count" },
	  "--uprobe: no SYMBOL after ':' in '/lib/x.so:'" },
	{ { "attach", "--uretprobe", ":malloc" },
	  "--uretprobe: no PATH before ':' in ':malloc'" },
	{ { "attach", "--uretprobe", "/lib/:malloc" },
	  "--uretprobe: PATH ends with '/'" },
	{ { "attach", "--uretprobe", "/x.so:mal loc" },
	  "--uretprobe: blank, control or non-ASCII character in the symbol" },
	{ { "attach", "--uretprobe", "/x.so:f\x1b[2J" },
	  "--uretprobe: blank, control or non-ASCII character in the symbol" },
	{ { "attach", "--uretprobe", "/x.so:0x" }, "--uretprobe: an offset is 0xHEX" },
	{ { "attach", "--uretprobe", "/x.so:1abc" },
	  "--uretprobe: a name does not start with a digit" },
	{ { "attach", "--uretprobe", "/x.so:0x10000000000000000" },
	  "--uretprobe: offset above 2^64" },
	{ { "attach", "--uretprobe", "/x.so:foo@" },
	  "--uretprobe: a version is NAME@VERSION or NAME@@VERSION" },
	{ { "attach", "--uretprobe", "/x.so:foo@@@V" },
	  "--uretprobe: a version is NAME@VERSION or NAME@@VERSION" },
	{ { "attach", "--uretprobe", "/x.so:@V" },
	  "--uretprobe: no function name before '@'" },
	{ { "attach", "--uretprobe", "/x.so:" N128 N128 N128 N128 N128 N128 N128 N128 },
	  "--uretprobe: symbol longer than 1023 characters" },
	{ { "attach", "--uprobe", "/x.so:f" }, "--uprobe needs one of --arg N, --count and --stacks" },
	{ { "attach", "--uprobe", "/x.so:f", "--arg", "1", "--count" },
	  "--uprobe needs one of --arg N, --count and --stacks" },
	{ { "attach", "--uretprobe", "/x.so:f", "--stacks" },
	  "--stacks is for --kprobe and --uprobe only" },
	{ { "attach", "--uretprobe", "/x.so:f", "--arg", "1" },
	  "--arg is for --kprobe and --uprobe only" },
	{ { "attach", "--uretprobe", "/x.so:f", "--count" },
	  "--count is for --kprobe and --uprobe only" },
	{ { "attach", "--uprobe", "/x.so:f", "--count", "--retval" },
	  "--retval is for --kretprobe and --uretprobe only" },
	{ { "attach", "--uprobe", "/x.so:f", "--arg", "2", "--maxactive", "2" },
	  "--maxactive is for --kretprobe and --uretprobe only" },
	{ { "attach", "--uretprobe", "/x.so:f", "--unit", "bytes" },
	  "--unit is for --arg and --retval only" },
	{ { "attach", "--uprobe", "/x.so:f", "--count", "--hist", "log2" },
	  "--hist does not apply to --count" },
	{ { "attach", "--uprobe", "/x.so:f", "--uretprobe", "/x.so:g" },
	  "give one of --kprobe, --kretprobe, --uprobe, --uretprobe and --tracepoint" },
	{ { "attach", "--kprobe", "f", "--uprobe", "/x.so:g" },
	  "give one of --kprobe, --kretprobe, --uprobe, --uretprobe and --tracepoint" },
	{ { "attach", "--uretprobe", "/x.so:f", "--uretprobe", "/x.so:f" },
	  "--uretprobe given twice" },
	{ { "show", "x", "--sort", "p99" }, "--sort is for --keys" },
	{ { "show", "x", "--keys", "--sort", "p50" },
	  "--sort: 'p50' is not count, p99 or sum" },
	{ { "show", "x", "--keys", "--sort" }, "--sort needs a value" },
	{ { "show", "x", "--keys", "--csv" },
	  "--keys prints one line per key, of every CPU: not with --csv" },
	{ { "show", "x", "--keys", "--folded" },
	  "--keys prints one line per key, of every CPU: not with --folded" },
	{ { "show", "x", "--keys", "--full" },
	  "--keys prints one line per key, of every CPU: not with --full" },
	{ { "show", "x", "--percpu", "--keys" },
	  "--keys prints one line per key, of every CPU: not with --percpu" },
	{ { "show", "x", "--keys", "--keys" }, "--keys given twice" },
	{ { "show", "x", "--keys", "--top", "0" },
	  "--top: '0' is not a number" },
	{ { "attach", "--kretprobe", "f", "--name", "x:count" },
	  "--name: characters other than A-Z a-z 0-9 _ . -" },
	{ { "attach", "--kretprobe", "f", "--graph=g*", "--name", "x" },
	  "--name goes with --graph, not with a glob of callees (the glob travels in the histogram's name, F:graph:GLOB)" },
	{ { "attach", "--kretprobe", "f:graph:g*", "--name", "x" },
	  "--name goes with --graph, not with a glob of callees" },
	{ { "attach", "--offcpu", "--hist", "loglinear" },
	  "--hist does not apply to --offcpu (its times are log2, their sums exact)" },
	{ { "attach", "--tracepoint", "offcpu", "--hist", "log2" },
	  "--hist does not apply to --offcpu" },
	{ { "attach", "--kretprobe", "f", "--graph", "--retval" },
	  "--graph goes with neither --retval nor --mechanism (kretprobes time it)" },
	{ { "attach", "--kretprobe", "f", "--graph", "--mechanism", "kprobe" },
	  "--graph goes with neither --retval nor --mechanism" },
	{ { "attach", "--tracepoint", "t", "--name", "vfs_*" },
	  "--name: characters other than A-Z a-z 0-9 _ . -" },
	{ { "attach", "--uretprobe", "/x.so:f", "--name", "" }, "--name: empty name" },
	{ { "attach", "--uretprobe", "/x.so:f", "--name", "a:retval" },
	  "--name: characters other than A-Z a-z 0-9 _ . -" },
	{ { "attach", "--uretprobe", "/x.so:f", "--name", "lib/x" },
	  "--name: characters other than" },
	{ { "attach", "--uretprobe", "/x.so:f", "--name", ".x" },
	  "--name: characters other than" },
	{ { "attach", "--uretprobe", "/x.so:f", "--name", "-x" },
	  "--name: characters other than" },
	{ { "attach", "--uretprobe", "/x.so:f", "--name", "a b" },
	  "--name: characters other than" },
	{ { "attach", "--uretprobe", "/x.so:f", "--name", N128 },
	  "--name: name longer than 127 characters" },
	{ { "attach", "--uretprobe", "/x.so:f", "--name", N127, "--retval" },
	  ":retval: longer than 127 characters with its suffix" },
	/* the default name: SYMBOL's, or PATH's last part and the offset */
	{ { "attach", "--uprobe", "/x.so:" N127 "@V1", "--count" },
	  "the name made from '" },
	{ { "attach", "--uprobe", "/x.so:" N127, "--count" },
	  "too long with its suffix: give --name NAME" },
	{ { "attach", "--uretprobe", "/x/" N127 ":0x10" },
	  "too long with its suffix: give --name NAME" },
	/* lists */
	{ { "load", "--target", "" }, "--target: empty name" },
	{ { "load", "--target", "a,,b" }, "--target: empty name" },
	{ { "load", "--target", "a," }, "--target: empty name" },
	{ { "load", "--target", ",a" }, "--target: empty name" },
	{ { "load", "--target", "a b" }, "--target: characters other than" },
	{ { "load", "--target", "a;rm" }, "--target: characters other than" },
	{ { "load", "--tracepoints", "a,a" }, "--tracepoints: a name is given twice" },
	{ { "load", "--target", "x," N128 }, "--target: name longer than 127" },
	{ { "load", "--target", L64 ",z" }, "--target: more than 64 names" },
	/* numbers */
	{ { "watch", "x", "-i", "0" }, "-i: '0' is not a positive number" },
	{ { "watch", "x", "-i", "0.0" }, "-i: '0.0' is not a positive number" },
	{ { "watch", "x", "-i", "-1" }, "-i: '-1' is not a positive number" },
	{ { "watch", "x", "-i", "+1" }, "-i: '+1' is not a positive number" },
	{ { "watch", "x", "-i", " 1" }, "-i: ' 1' is not a positive number" },
	{ { "watch", "x", "-i", "1 " }, "-i: '1 ' is not a positive number" },
	{ { "watch", "x", "-i", "1." }, "-i: '1.' is not a positive number" },
	{ { "watch", "x", "-i", ".5" }, "-i: '.5' is not a positive number" },
	{ { "watch", "x", "-i", "1e3" }, "-i: '1e3' is not a positive number" },
	{ { "watch", "x", "-i", "0x10" }, "-i: '0x10' is not a positive number" },
	{ { "watch", "x", "-i", "1.0000000001" }, "is not a positive number" },
	{ { "watch", "x", "-i", "1.2.3" }, "-i: '1.2.3' is not a positive number" },
	{ { "watch", "x", "-i", "86400.5" }, "-i: '86400.5' is above 86400 seconds" },
	{ { "watch", "x", "-i", "86401" }, "-i: '86401' is above 86400 seconds" },
	{ { "watch", "x", "-i", "99999999999999999999999" }, "is above 86400 seconds" },
	{ { "watch", "x", "-i", "" }, "-i: '' is not a positive number" },
	{ { "watch", "x" }, "watch needs -i SECONDS" },
	{ { "watch", "-i", "1" }, "watch needs a histogram NAME" },
	{ { "watch", "x", "-i", "1", "-n", "0" }, "-n: '0' is not a positive decimal number" },
	{ { "watch", "x", "-i", "1", "-n", "-3" }, "-n: '-3' is not a positive decimal number" },
	{ { "watch", "x", "-i", "1", "-n", "4294967296" }, "-n: '4294967296' is too large" },
	{ { "watch", "x", "-i", "1", "-n", "18446744073709551616" }, "is too large" },
	{ { "watch", "x", "-i", "1", "-n", "3x" }, "-n: '3x' is not a positive decimal number" },
	{ { "load", "--maxactive", "4097" }, "--maxactive: '4097' is above 4096" },
	{ { "load", "--maxactive", "18446744073709551616" }, "is above 4096" },
	{ { "load", "--maxactive", "-1" }, "--maxactive: '-1' is not a decimal number" },
	{ { "load", "--maxactive=" }, "--maxactive: '' is not a decimal number" },
	/* histogram specs: syntax here, semantics from pcore_layout_init() */
	{ { "load", "--hist", "bogus" }, "--hist: unknown kind" },
	{ { "load", "--hist", "LOG2" }, "--hist: unknown kind" },
	{ { "load", "--hist", "log2:1" }, "--hist: unknown kind" },
	{ { "load", "--hist", "loglinear:" }, "loglinear precision must be 1 to 7 bits" },
	{ { "load", "--hist", "loglinear:0" }, "loglinear precision must be 1 to 7 bits" },
	{ { "load", "--hist", "loglinear:8" }, "loglinear precision must be 1 to 7 bits" },
	{ { "load", "--hist", "loglinear:-1" }, "loglinear precision must be 1 to 7 bits" },
	/* 6 and 7 bits need more than 2048 buckets up to the default max */
	{ { "load", "--hist", "loglinear:6" }, "more than 2048 buckets" },
	{ { "attach", "--kretprobe", "f", "--hist", "linear:1,2" },
	  "--hist: linear needs MIN,MAX,STEP" },
	{ { "load", "--hist", "linear:1,2,3,4" }, "linear needs MIN,MAX,STEP" },
	{ { "load", "--hist", "linear:-1,100,10" }, "linear needs MIN,MAX,STEP" },
	{ { "load", "--hist", "linear:0,100,0" }, "linear step must be at least 1" },
	{ { "load", "--hist", "linear:100,100,10" }, "linear max must be above min" },
	{ { "load", "--hist", "linear:0,100,30" }, "must be a multiple of step" },
	{ { "load", "--hist", "linear:0,100000,1" }, "more than 2048 buckets" },
	{ { "load", "--hist", "linear:0,18446744073709551616,1" },
	  "linear needs MIN,MAX,STEP" },
	{ { "load", "--hist", "linear:" N128 }, "--hist: too long" },
	{ { "load", "--module", "" }, "--module: empty or too long path" },
	/* export */
	{ { "export" }, "export needs a format: --prometheus" },
	{ { "export", "--per-cpu" }, "export needs a format: --prometheus" },
	{ { "export", "--prometheus", "--textfile-dir=" }, "--textfile-dir: empty" },
	/* show --full, heatmap */
	{ { "show", "x", "--full", "--json" }, "--full is for the text output" },
	{ { "show", "x", "--csv", "--full" }, "--full is for the text output" },
	{ { "show", "x", "--full=1" }, "--full takes no value" },
	{ { "show", "x", "--full", "--full" }, "--full given twice" },
	{ { "heatmap" }, "heatmap needs a histogram NAME" },
	{ { "heatmap", "-i", "1" }, "heatmap needs a histogram NAME" },
	{ { "heatmap", "x", "y" }, "heatmap: unexpected argument 'y'" },
	{ { "heatmap", "x", "-i", "0" }, "-i: '0' is not a positive number" },
	{ { "heatmap", "x", "-i", "86401" }, "-i: '86401' is above 86400 seconds" },
	{ { "heatmap", "x", "-n", "0" }, "-n: '0' is not a positive decimal number" },
	{ { "heatmap", "x", "-n", "4294967296" }, "-n: '4294967296' is too large" },
	{ { "heatmap", "x", "-d", "1s" }, "-d: '1s' is not a positive number of seconds" },
	{ { "heatmap", "x", "-d", "0" }, "-d: '0' is not a positive number of seconds" },
	{ { "heatmap", "x", "-n", "3", "-d", "3" }, "give one of -n COUNT and -d SECONDS" },
	{ { "heatmap", "x", "--svg", "" }, "--svg: empty or too long path" },
	{ { "heatmap", "x", "--svg", "-" }, "--svg: give a file" },
	{ { "heatmap", "x", "--svg" }, "--svg needs a value" },
	{ { "heatmap", "x", "--color", "--no-color" }, "give one of --color and --no-color" },
	{ { "heatmap", "x", "--no-color", "--no-color" }, "--no-color given twice" },
	{ { "heatmap", "x", "--color=1" }, "--color takes no value" },
	{ { "heatmap", "x", "--title", "t" }, "--title is the title of --svg's picture" },
	{ { "heatmap", "x", "--svg", "a", "--title", L64 L64 },
	  "--title: longer than 200 bytes" },
	{ { "heatmap", "x", "--json" }, "heatmap: unknown option '--json'" },
	{ { "heatmap", "x", "--hist" }, "heatmap: unknown option '--hist'" },
	{ { "heatmap", "a b" }, "NAME: blank, control or non-ASCII character" },
	/* flamegraph */
	{ { "flamegraph" }, "flamegraph needs -i FILE" },
	{ { "flamegraph", "-o", "x.svg" }, "flamegraph needs -i FILE" },
	{ { "flamegraph", "x", "-i", "f" }, "give a histogram NAME or -i FILE, not both" },
	{ { "flamegraph", "x", "y" }, "flamegraph: unexpected argument 'y'" },
	{ { "flamegraph", "-i", "" }, "-i: empty or too long path" },
	{ { "flamegraph", "-i", "a", "--input", "b" }, "--input given twice" },
	{ { "flamegraph", "-i", "a", "-o" }, "-o needs a value" },
	{ { "flamegraph", "-i", "a", "--width", "199" }, "--width: '199' is not a width from 200 to 65536" },
	{ { "flamegraph", "-i", "a", "--width", "65537" }, "is not a width from 200" },
	{ { "flamegraph", "-i", "a", "--width", "1e3" }, "is not a width from 200" },
	{ { "flamegraph", "-i", "a", "--title", L64 L64 },
	  "--title: longer than 200 bytes" },
	{ { "flamegraph", "-i", "a", "--json" }, "flamegraph: unknown option '--json'" },
	{ { "flamegraph", "a b", "-o", "x" }, "NAME: blank, control or non-ASCII character" },
};

TEST(args_bad)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		char *argv[10] = { "probectl" };
		struct pc_args a;
		int argc = 1;

		while (argc < 9 && bad_cases[i].argv[argc - 1]) {
			argv[argc] = (char *)bad_cases[i].argv[argc - 1];
			argc++;
		}
		EXPECT_EQ(PC_EXIT_USAGE, pc_parse_args(argc, argv, &a))
			TH_LOG("case %u (%s)", i, bad_cases[i].err);
		EXPECT_NE(NULL, strstr(a.err, bad_cases[i].err))
			TH_LOG("case %u: got '%s', want '%s'", i, a.err,
			       bad_cases[i].err);
	}
}

/* A usage error through pc_run: exit 2, message and usage on stderr. */
TEST(usage_error_exit_status)
{
	struct fake f;
	struct result r;

	memset(&f, 0, sizeof(f));
	r = RUN(&f, "show", "x", "--bogus");
	ASSERT_EQ(2, r.ret);
	ASSERT_STREQ("", r.out);
	ASSERT_STREQ("probectl: show: unknown option '--bogus'\n"
		     "usage: probectl show NAME [--percpu] [--full] [--json | --csv | --folded] [--top N] [--keys [--sort BY]]\n"
		     "Try 'probectl show --help'.\n", r.err);
	ASSERT_EQ(0U, f.opens);
	result_free(&r);
	r = RUN(&f, "watch", "x", "-i", "1", "-n", "-1");
	ASSERT_EQ(2, r.ret);
	result_free(&r);
}

TEST(number_parsers)
{
	unsigned long long v;

	ASSERT_EQ(0, pc_parse_u64("18446744073709551615", ~0ULL, &v));
	ASSERT_EQ(~0ULL, v);
	ASSERT_EQ(-ERANGE, pc_parse_u64("18446744073709551616", ~0ULL, &v));
	ASSERT_EQ(-ERANGE, pc_parse_u64("99999999999999999999", ~0ULL, &v));
	ASSERT_EQ(0, pc_parse_u64("007", 7, &v));
	ASSERT_EQ(7ULL, v);
	ASSERT_EQ(-ERANGE, pc_parse_u64("8", 7, &v));
	ASSERT_EQ(-EINVAL, pc_parse_u64("", 7, &v));
	ASSERT_EQ(-EINVAL, pc_parse_u64("1\n", 7, &v));
	ASSERT_EQ(0, pc_parse_seconds("0.000000001", &v));
	ASSERT_EQ(1ULL, v);
	ASSERT_EQ(0, pc_parse_seconds("1.5", &v));
	ASSERT_EQ(1500000000ULL, v);
	ASSERT_EQ(0, pc_parse_seconds("86400.000", &v));
	ASSERT_EQ(86400000000000ULL, v);
	ASSERT_EQ(-ERANGE, pc_parse_seconds("86400.000000001", &v));
	ASSERT_EQ(-EINVAL, pc_parse_seconds("0.000000000", &v));
}

TEST(seconds_and_metric_names)
{
	char buf[64];

	pc_fmt_ns_seconds(buf, sizeof(buf), 0);
	ASSERT_STREQ("0", buf);
	pc_fmt_ns_seconds(buf, sizeof(buf), 1);
	ASSERT_STREQ("0.000000001", buf);
	pc_fmt_ns_seconds(buf, sizeof(buf), 1500000000);
	ASSERT_STREQ("1.5", buf);
	pc_fmt_ns_seconds(buf, sizeof(buf), 3000000000ULL);
	ASSERT_STREQ("3", buf);
	pc_fmt_ns_seconds(buf, sizeof(buf), ~0ULL);
	ASSERT_STREQ("18446744073.709551615", buf);
	pc_fmt_metric_name(buf, sizeof(buf), "ns");
	ASSERT_STREQ("probe_core_latency_seconds", buf);
	pc_fmt_metric_name(buf, sizeof(buf), "bytes");
	ASSERT_STREQ("probe_core_value_bytes", buf);
	pc_fmt_metric_name(buf, sizeof(buf), "pkt/s");
	ASSERT_STREQ("probe_core_value_pkt_s", buf);
	pc_fmt_metric_name(buf, sizeof(buf), "");
	ASSERT_STREQ("probe_core_value", buf);
}

/* ---- flame graphs ---- */

/* pc_folded_parse() of @len bytes at @text */
static int parse_mem(const char *text, size_t len, struct pc_flame_stack **s,
		     size_t *n, char *err, size_t errlen)
{
	FILE *f = len ? fmemopen((void *)text, len, "r") :
		fopen("/dev/null", "r");
	int ret;

	if (!f)
		return -errno;
	ret = pc_folded_parse(f, s, n, err, errlen);
	fclose(f);
	return ret;
}

/* The SVG of folded @text, or NULL with *@ret set. */
static char *svg_of(const char *text, const struct pc_flame_opts *o,
		    int *ret)
{
	struct pc_flame_stack *s;
	char err[256], *buf = NULL;
	size_t n, len;
	FILE *m;

	*ret = parse_mem(text, strlen(text), &s, &n, err, sizeof(err));
	if (*ret)
		return NULL;
	m = open_memstream(&buf, &len);
	*ret = pc_flame_svg(m, s, n, o);
	fclose(m);
	pc_folded_free(s, n);
	if (*ret) {
		free(buf);
		return NULL;
	}
	return buf;
}

static unsigned int occurrences(const char *hay, const char *needle)
{
	unsigned int n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

/* A buffer of @reps copies of @line, NUL-terminated. */
static char *repeat(const char *line, size_t reps, size_t *len)
{
	size_t l = strlen(line), i;
	char *buf = malloc(l * reps + 1);

	for (i = 0; buf && i < reps; i++)
		memcpy(buf + i * l, line, l);
	if (buf)
		buf[l * reps] = '\0';
	*len = l * reps;
	return buf;
}

/* @tmpl with each '@' as U+FFFD, into @buf */
static void fffd(char *buf, size_t len, const char *tmpl)
{
	size_t i = 0;

	for (; *tmpl && i + 4 < len; tmpl++) {
		if (*tmpl == '@') {
			memcpy(buf + i, "\xef\xbf\xbd", 3);
			i += 3;
		} else {
			buf[i++] = *tmpl;
		}
	}
	buf[i] = '\0';
}

struct folded_bad {
	const char *text;
	size_t len;		/* 0: strlen(text) */
	const char *err;
};

static const struct folded_bad folded_bad[] = {
	{ "a;b\n", 0, "line 1: no count (want 'frame;frame;... COUNT')" },
	{ "a;b 1\nc\n", 0, "line 2: no count" },
	{ "a;b ", 0, "line 1: no count after the last blank" },
	{ "a;b 12x\n", 0, "line 1: count '12x' is not a decimal number" },
	{ "a;b -1\n", 0, "line 1: count '-1' is not a decimal number" },
	{ "a;b +1\n", 0, "line 1: count '+1' is not a decimal number" },
	{ "a;b 1.5\n", 0, "line 1: count '1.5' is not a decimal number" },
	{ "a;b 0x10\n", 0, "line 1: count '0x10' is not a decimal number" },
	{ "a 1234567890123456789012345678901234567890123456789x", 0,
	  "count '1234567890123456789012345678901234567890...' is not" },
	{ "a;b 18446744073709551616\n", 0,
	  "line 1: count above 18446744073709551615" },
	{ "a;b 99999999999999999999999\n", 0, "line 1: count above" },
	{ "a 18446744073709551615\nb 1\n", 0,
	  "line 2: the counts add up to more than 18446744073709551615" },
	{ " 5\n", 0, "line 1: no frames before the count" },
	{ "a;;b 1\n", 0, "line 1: frame 2 is empty" },
	{ ";a 1\n", 0, "line 1: frame 1 is empty" },
	{ "a; 1\n", 0, "line 1: frame 2 is empty" },
	{ "; 1\n", 0, "line 1: frame 1 is empty" },
	{ "\n\na\tb 1\n", 0, "line 3: control character 0x09 at byte 2" },
	{ "a\0b 1\n", 6, "line 1: control character 0x00 at byte 2" },
	{ "a\rb 1\n", 0, "line 1: control character 0x0d at byte 2" },
	{ "a 1\r\r\n", 0, "line 1: control character 0x0d at byte 4" },
	{ "a\x7f 1\n", 0, "line 1: control character 0x7f at byte 2" },
	{ "a\x1b[31m 1\n", 0, "line 1: control character 0x1b" },
};

TEST(folded_parse_bad)
{
	struct pc_flame_stack *s;
	char err[256], *buf;
	size_t i, n, len;
	int ret;

	for (i = 0; i < ARRAY_SIZE(folded_bad); i++) {
		const struct folded_bad *c = &folded_bad[i];

		s = (void *)1;
		n = 99;
		ret = parse_mem(c->text, c->len ?: strlen(c->text), &s, &n,
				err, sizeof(err));
		EXPECT_EQ(-EINVAL, ret) TH_LOG("case %zu", i);
		EXPECT_NE(NULL, strstr(err, c->err))
			TH_LOG("case %zu: got '%s', want '%s'", i, err, c->err);
		EXPECT_EQ(NULL, s);
		EXPECT_EQ(0U, n);
	}

	/*
	 * 260 frames (a process, 128 user and 128 kernel frames with their
	 * cut marks, and one to spare), then 261
	 */
	buf = repeat("f;", PC_FLAME_MAX_FRAMES + 2, &len);
	ASSERT_NE(NULL, buf);
	strcpy(buf + PC_FLAME_MAX_FRAMES * 2 - 1, " 1\n");
	ASSERT_EQ(0, parse_mem(buf, strlen(buf), &s, &n, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(1U, n);
	ASSERT_EQ(260U, s[0].nframes);
	pc_folded_free(s, n);
	free(buf);
	buf = repeat("f;", PC_FLAME_MAX_FRAMES + 2, &len);
	ASSERT_NE(NULL, buf);
	strcpy(buf + (PC_FLAME_MAX_FRAMES + 1) * 2 - 1, " 1\n");
	ASSERT_EQ(-EINVAL, parse_mem(buf, strlen(buf), &s, &n, err,
				     sizeof(err)));
	ASSERT_STREQ("line 1: more than 260 frames", err);
	free(buf);

	/* a line of PC_FOLDED_MAX_LINE bytes, then one more */
	buf = repeat("x", PC_FOLDED_MAX_LINE + 1, &len);
	ASSERT_NE(NULL, buf);
	memcpy(buf + PC_FOLDED_MAX_LINE - 2, " 7", 2);
	buf[PC_FOLDED_MAX_LINE] = '\n';
	ASSERT_EQ(0, parse_mem(buf, len, &s, &n, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(7ULL, s[0].count);
	ASSERT_EQ((size_t)PC_FOLDED_MAX_LINE - 2, strlen(s[0].frames[0]));
	pc_folded_free(s, n);
	memcpy(buf + PC_FOLDED_MAX_LINE - 2, "x 7", 3);
	ASSERT_EQ(-EINVAL, parse_mem(buf, len, &s, &n, err, sizeof(err)));
	ASSERT_STREQ("line 1: longer than 262144 bytes", err);
	free(buf);

	/* PC_FOLDED_MAX_LINES stacks, then one more */
	buf = repeat("a 1\n", PC_FOLDED_MAX_LINES + 1, &len);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, parse_mem(buf, len - 4, &s, &n, err, sizeof(err)));
	ASSERT_EQ((size_t)PC_FOLDED_MAX_LINES, n);
	pc_folded_free(s, n);
	ASSERT_EQ(-EINVAL, parse_mem(buf, len, &s, &n, err, sizeof(err)));
	ASSERT_STREQ("line 1048577: more than 1048576 stacks", err);
	free(buf);

	/* more than PC_FOLDED_MAX_BYTES in lines of 100000 bytes */
	buf = repeat("x", 100000, &len);
	ASSERT_NE(NULL, buf);
	memcpy(buf + len - 3, " 1\n", 3);
	{
		size_t reps = PC_FOLDED_MAX_BYTES / len + 1;
		char *all = repeat(buf, reps, &len);

		ASSERT_NE(NULL, all);
		ASSERT_EQ(-EINVAL, parse_mem(all, len, &s, &n, err,
					     sizeof(err)));
		EXPECT_STREQ("line 672: more than 67108864 bytes of input",
			     err);
		free(all);
	}
	free(buf);
}

TEST(folded_parse_good)
{
	static const char text[] =
		"\n"
		"[user] sh <x>;do_syscall_64+0x5c/0xb0;pcore_stackt_leaf+0x9/0x20 [pcore_stackt] 300\r\n"
		"\n"
		"a 0\n"
		"b;a 18446744073709551314\n"
		"caf\xc3\xa9;\xff 1";	/* no newline at the end */
	struct pc_flame_stack *s;
	char err[256];
	size_t n;

	ASSERT_EQ(0, parse_mem(text, strlen(text), &s, &n, err, sizeof(err)))
		TH_LOG("%s", err);
	ASSERT_EQ(4U, n);
	ASSERT_EQ(3U, s[0].nframes);
	ASSERT_STREQ("[user] sh <x>", s[0].frames[0]);
	ASSERT_STREQ("do_syscall_64+0x5c/0xb0", s[0].frames[1]);
	ASSERT_STREQ("pcore_stackt_leaf+0x9/0x20 [pcore_stackt]",
		     s[0].frames[2]);
	ASSERT_EQ(300ULL, s[0].count);
	ASSERT_EQ(1U, s[1].nframes);
	ASSERT_EQ(0ULL, s[1].count);
	ASSERT_EQ(18446744073709551314ULL, s[2].count);	/* sum: 2^64 - 1 */
	ASSERT_STREQ("\xff", s[3].frames[1]);
	ASSERT_EQ(1ULL, s[3].count);
	pc_folded_free(s, n);

	ASSERT_EQ(0, parse_mem("", 0, &s, &n, err, sizeof(err)));
	ASSERT_EQ(0U, n);
	ASSERT_EQ(NULL, s);
	pc_folded_free(s, n);
	ASSERT_EQ(0, parse_mem("\n\n\r\n", 4, &s, &n, err, sizeof(err)));
	ASSERT_EQ(0U, n);
}

/* Identical stacks are one frame path; children sorted; the root sums. */
TEST(flame_merge)
{
	static const char text[] =
		"z;b 10\n"
		"a;b 10\n"
		"a 5\n"
		"a;b 20\n"
		"a;c;d 1\n"
		"a;b;e 2\n";
	char *svg, *a, *z;
	int ret;

	svg = svg_of(text, NULL, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_EQ(1U, occurrences(svg, "<title>all (48 samples, 100.00%)"));
	EXPECT_EQ(1U, occurrences(svg, "<title>a (38 samples, 79.17%)"));
	/* a;b: 10 + 20 and a;b;e's 2 */
	EXPECT_EQ(1U, occurrences(svg, "<title>b (32 samples, 66.67%)"));
	EXPECT_EQ(1U, occurrences(svg, "<title>b (10 samples, 20.83%)"));
	EXPECT_EQ(1U, occurrences(svg, "<title>e (2 samples, 4.17%)"));
	EXPECT_EQ(1U, occurrences(svg, "<title>d (1 sample, 2.08%)"));
	EXPECT_EQ(8U, occurrences(svg, "<g class=\"f\" data-n=\""));
	/* a before z, both on the row above the root, a at the left edge */
	a = strstr(svg, "<title>a (");
	z = strstr(svg, "<title>z (");
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, z);
	EXPECT_LT(a, z);
	EXPECT_NE(NULL, strstr(a, "<rect x=\"10.00\" y=\"72\" width=\"934.17\""));
	/* z starts where a ends: 10 + 1180 * 38 / 48 */
	EXPECT_NE(NULL, strstr(z, "<rect x=\"944.17\" y=\"72\" width=\"245.83\""));
	free(svg);
}

TEST(flame_svg_errors)
{
	const char *frames[PC_FLAME_MAX_FRAMES + 1];
	struct pc_flame_stack s[2];
	struct pc_flame_opts o = { 0 };
	char *buf = NULL, *svg, want[256];
	unsigned int i;
	size_t len;
	FILE *m;
	int ret;

	for (i = 0; i < ARRAY_SIZE(frames); i++)
		frames[i] = "f";
	s[0] = (struct pc_flame_stack){ frames, 1, 5, 0 };
	s[1] = (struct pc_flame_stack){ frames, PC_FLAME_MAX_FRAMES, 5, 0 };
	m = open_memstream(&buf, &len);
	ASSERT_EQ(0, pc_flame_svg(m, s, 2, NULL));
	s[1].nframes = PC_FLAME_MAX_FRAMES + 1;
	EXPECT_EQ(-EINVAL, pc_flame_svg(m, s, 2, NULL));
	s[1].nframes = 0;
	EXPECT_EQ(-EINVAL, pc_flame_svg(m, s, 2, NULL));
	s[1].nframes = 2;
	s[1].frames = NULL;
	EXPECT_EQ(-EINVAL, pc_flame_svg(m, s, 2, NULL));
	s[1].frames = frames;
	frames[1] = "";
	EXPECT_EQ(-EINVAL, pc_flame_svg(m, s, 2, NULL));
	frames[1] = NULL;
	EXPECT_EQ(-EINVAL, pc_flame_svg(m, s, 2, NULL));
	frames[1] = "f";
	s[0].count = ~0ULL;
	EXPECT_EQ(-EOVERFLOW, pc_flame_svg(m, s, 2, NULL));
	s[0].count = 1;
	o.width = PC_FLAME_MIN_WIDTH - 1;
	EXPECT_EQ(-EINVAL, pc_flame_svg(m, s, 2, &o));
	o.width = PC_FLAME_MAX_WIDTH + 1;
	EXPECT_EQ(-EINVAL, pc_flame_svg(m, s, 2, &o));
	o.width = PC_FLAME_MAX_WIDTH;
	EXPECT_EQ(0, pc_flame_svg(m, s, 2, &o));
	EXPECT_EQ(-E2BIG, pc_flame_svg(m, s, PC_FOLDED_MAX_LINES + 1, &o));
	fclose(m);
	free(buf);

	/* no stacks, or only counts of 0: a graph that says so */
	m = open_memstream(&buf, &len);
	ASSERT_EQ(0, pc_flame_svg(m, NULL, 0, NULL));
	fclose(m);
	EXPECT_NE(NULL, strstr(buf, ">No samples</text>"));
	EXPECT_EQ(NULL, strstr(buf, "<g class"));
	free(buf);
	svg = svg_of("a 0\n", NULL, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_NE(NULL, strstr(svg, ">No samples</text>"));
	free(svg);

	/* what XML cannot hold, and what it must escape */
	frames[0] = "<&>\"'\x01\xff\xc3(\xed\xa0\x80\xf4\x90\x80\x80\xef\xbf\276caf\xc3\xa9";
	s[0] = (struct pc_flame_stack){ frames, 1, 5, 0 };
	o.width = 0;
	o.title = "t\x02<";
	m = open_memstream(&buf, &len);
	ASSERT_EQ(0, pc_flame_svg(m, s, 1, &o));
	fclose(m);
	/*
	 * control, lone bytes, a surrogate, above U+10FFFF, U+FFFE: every
	 * byte that is not part of a character XML may hold is one U+FFFD
	 */
	fffd(want, sizeof(want),
	     "<title>&lt;&amp;&gt;&quot;&apos;@@@(@@@@@@@@@@caf\xc3\xa9 (5 samples, 100.00%)</title>");
	EXPECT_NE(NULL, strstr(buf, want)) TH_LOG("%s", buf);
	fffd(want, sizeof(want), ">t@&lt;</text>");
	EXPECT_NE(NULL, strstr(buf, want));
	free(buf);
}

/* Labels: the whole name when it fits, else its start and "..", or none. */
TEST(flame_labels)
{
	char *svg, want[256];
	int ret;

	/* 1180 px: 1 sample of 100 is 11.8 px, one character; 10 are 118 px */
	svg = svg_of("abcdefghijklmnopqrstuvwxyz 10\nb 1\nc 89\n", NULL,
		     &ret);
	ASSERT_EQ(0, ret);
	/* (118 - 6) / 7.3 = 15 characters: 13 and ".." */
	snprintf(want, sizeof(want), "\">abcdefghijklm..</text>");
	EXPECT_NE(NULL, strstr(svg, want)) TH_LOG("%s", svg);
	EXPECT_NE(NULL, strstr(svg, "\"></text></g>"));	/* b */
	EXPECT_NE(NULL, strstr(svg, "\">c</text>"));
	free(svg);
	/* a multi-byte character is one character, never cut */
	svg = svg_of("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 10\nc 90\n",
		     NULL, &ret);
	ASSERT_EQ(0, ret);
	EXPECT_NE(NULL, strstr(svg, "\">\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9..</text>"))
		TH_LOG("%s", svg);
	free(svg);
}

/* Random input: refused with a line number, or drawn; never a crash. */
TEST(folded_fuzz)
{
	static const char *const pieces[] = { "a", "b;", ";", " ", "1", "9",
		"\n", "<&>", "\xff", "\xc3\xa9", "\r\n", "\t", "\xc3",
		"18446744073709551615", " 3\n", "x;y;z 2\n", "\xe2\x80" };
	struct pc_flame_stack *s;
	unsigned int seed = 12345, i, j, k, drawn = 0;
	char text[1024], err[256], *buf;
	size_t n, len, used;
	FILE *m;
	int ret;

	for (i = 0; i < 3000; i++) {
		used = 0;
		k = rand_r(&seed) % 40;
		for (j = 0; j < k; j++) {
			const char *p = pieces[rand_r(&seed) % ARRAY_SIZE(pieces)];

			if (used + strlen(p) >= sizeof(text))
				break;
			memcpy(text + used, p, strlen(p));
			used += strlen(p);
		}
		ret = parse_mem(text, used, &s, &n, err, sizeof(err));
		if (ret) {
			ASSERT_EQ(-EINVAL, ret);
			ASSERT_EQ(0, strncmp(err, "line ", 5)) TH_LOG("%s", err);
			continue;
		}
		buf = NULL;
		m = open_memstream(&buf, &len);
		ret = pc_flame_svg(m, s, n, NULL);
		fclose(m);
		ASSERT_TRUE(ret == 0 || ret == -EOVERFLOW);
		if (!ret) {
			ASSERT_EQ(0, strncmp(buf, "<?xml", 5));
			ASSERT_EQ(0, strcmp(buf + len - 7, "</svg>\n"));
			drawn++;
		}
		free(buf);
		pc_folded_free(s, n);
	}
	ASSERT_LT(100U, drawn);
}

static const char flame_input[] =
	"[user] pcore_stackt;entry_SYSCALL_64_after_hwframe+0x6e/0xd8;do_syscall_64+0x5c/0xb0;pcore_stackt_a+0xd/0x20 [pcore_stackt];pcore_stackt_leaf+0x9/0x20 [pcore_stackt] 300000\n"
	"[user] pcore_stackt;entry_SYSCALL_64_after_hwframe+0x6e/0xd8;do_syscall_64+0x5c/0xb0;pcore_stackt_b+0xd/0x20 [pcore_stackt];pcore_stackt_leaf+0x9/0x20 [pcore_stackt] 600000\n"
	"[idle];cpu_startup_entry+0x1d/0x20;do_idle+0x1b2/0x210 40000\n"
	"[user] pcore_stackt;entry_SYSCALL_64_after_hwframe+0x6e/0xd8;do_syscall_64+0x5c/0xb0;pcore_stackt_b+0xd/0x20 [pcore_stackt];pcore_stackt_leaf+0x9/0x20 [pcore_stackt] 100000\n"
	"[user] a<b>&\"c'd\";x 8000\n"
	"[user] tiny;elided 1\n";

/* The whole command: a golden SVG from standard input. */
TEST(flamegraph_golden)
{
	struct fake f;
	struct result r;

	memset(&f, 0, sizeof(f));
	run_stdin = fmemopen((void *)flame_input, strlen(flame_input), "r");
	ASSERT_NE(NULL, run_stdin);
	r = RUN(&f, "flamegraph", "-i", "-", "--title", "pcore_stackt <golden> & co",
		"--width", "800");
	fclose(run_stdin);
	run_stdin = NULL;
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	ASSERT_STREQ("", r.err);
	EXPECT_NE(NULL, strstr(r.out, "<!-- 2 frames narrower than 0.1 px not drawn -->"));
	EXPECT_NE(NULL, strstr(r.out, "<title>pcore_stackt_leaf+0x9/0x20 [pcore_stackt] (700000 samples, 66.79%)</title>"));
	check_golden(_metadata, "flame.svg", r.out);
	ASSERT_EQ(0U, f.opens);
	result_free(&r);
}

TEST(flamegraph_files)
{
	char dir[] = "/tmp/probectl-test-XXXXXX", in[128], out[128], bad[64];
	char want[128], *got;
	struct fake f;
	struct result r, r2;
	struct stat st;
	FILE *fp;
	mode_t mask;

	memset(&f, 0, sizeof(f));
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(in, sizeof(in), "%s/in.folded", dir);
	snprintf(out, sizeof(out), "%s/out.svg", dir);
	snprintf(bad, sizeof(bad), "%s/bad.folded", dir);
	fp = fopen(in, "w");
	ASSERT_NE(NULL, fp);
	fputs(flame_input, fp);
	fclose(fp);
	fp = fopen(bad, "w");
	ASSERT_NE(NULL, fp);
	fputs("a;b 1\na;b\n", fp);
	fclose(fp);

	/* -o FILE holds what standard output gets */
	r = RUN(&f, "flamegraph", "-i", in, "-o", out);
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	ASSERT_STREQ("", r.out);
	ASSERT_STREQ("", r.err);
	r2 = RUN(&f, "flamegraph", "--input", in);
	ASSERT_EQ(0, r2.ret);
	got = slurp(out);
	ASSERT_NE(NULL, got);
	ASSERT_STREQ(r2.out, got);
	free(got);
	result_free(&r2);
	result_free(&r);
	mask = umask(022);
	umask(mask);
	ASSERT_EQ(0, stat(out, &st));
	ASSERT_EQ(0666U & ~mask, st.st_mode & 0777);

	/* a bad line: exit 1, its number, the old file left as it was */
	r = RUN(&f, "flamegraph", "-i", bad, "-o", out);
	ASSERT_EQ(1, r.ret);
	ASSERT_STREQ("", r.out);
	snprintf(want, sizeof(want), "probectl: %s: line 2: no count", bad);
	ASSERT_EQ(r.err, strstr(r.err, want)) TH_LOG("%s", r.err);
	result_free(&r);
	got = slurp(out);
	ASSERT_NE(NULL, strstr(got, "pcore_stackt_leaf"));
	free(got);

	/* the input missing, the output's directory missing */
	snprintf(in, sizeof(in), "%s/nonexistent", dir);
	r = RUN(&f, "flamegraph", "-i", in);
	ASSERT_EQ(1, r.ret);
	ASSERT_NE(NULL, strstr(r.err, "cannot open"));
	ASSERT_NE(NULL, strstr(r.err, "No such file or directory"));
	result_free(&r);
	snprintf(in, sizeof(in), "%s/in.folded", dir);
	snprintf(out, sizeof(out), "%s/nodir/out.svg", dir);
	r = RUN(&f, "flamegraph", "-i", in, "-o", out);
	ASSERT_EQ(1, r.ret);
	ASSERT_NE(NULL, strstr(r.err, "cannot create a file beside"));
	result_free(&r);

	/* not a regular file: written to, not replaced */
	r = RUN(&f, "flamegraph", "-i", in, "-o", "/dev/null");
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	ASSERT_EQ(0, stat("/dev/null", &st));
	ASSERT_TRUE(S_ISCHR(st.st_mode));
	result_free(&r);
	r = RUN(&f, "flamegraph", "-i", in, "-o", "/dev/full");
	ASSERT_EQ(1, r.ret);
	ASSERT_STREQ("probectl: writing /dev/full: No space left on device\n",
		     r.err);
	result_free(&r);

	/* standard input that is not there */
	r = RUN(&f, "flamegraph", "-i", "-");
	ASSERT_EQ(1, r.ret);
	ASSERT_STREQ("probectl: no standard input to read\n", r.err);
	result_free(&r);

	snprintf(out, sizeof(out), "%s/out.svg", dir);
	unlink(out);
	unlink(bad);
	snprintf(in, sizeof(in), "%s/in.folded", dir);
	unlink(in);
	ASSERT_EQ(0, rmdir(dir));	/* no temporary file left behind */
}

/* ---- show: merged rows, --full ---- */

/*
 * A loglinear histogram of 2000 values from 5 us to 24 ms, as the issue
 * had: 196 buckets, which hist merges into 25 rows of 8.
 */
static void wide_fake(struct fake *f)
{
	struct pcore_hist_spec loglin = { .kind = PCORE_HIST_LOGLINEAR };
	struct fake_hist *h;
	unsigned long long k;

	memset(f, 0, sizeof(f[0]));
	h = fake_add(f, "wide", "kretprobe", "vfs_read", "ns",
		     PCORE_ENT_OWN | PCORE_ENT_HAS_PROBE, &loglin, "", 1);
	for (k = 0; k < 2000; k++)
		fake_record(h, k % 2, 0, 5000 + k * k * k * 3 / 1000);
	h->e.hits = 2000;
}

/*
 * A bound of a row, "4096bytes" or a time as pcore_fmt_ns() prints it
 * ("940 ms", "1.07 s"), as a number (ns for a time: the rounded value the
 * text states).  Returns the characters read, 0 for neither.
 */
static int parse_bound(const char *p, unsigned long long *v)
{
	static const struct { const char *u; unsigned long long ns; } units[] = {
		{ " ns", 1 }, { " us", 1000 }, { " ms", 1000000 },
		{ " s", 1000000000ULL },
	};
	unsigned long long ip = 0, frac = 0, scale = 1;
	const char *q = p;
	size_t i, n, nd = 0;

	if (*q < '0' || *q > '9')
		return 0;
	while (*q >= '0' && *q <= '9')
		ip = ip * 10 + (*q++ - '0');
	if (*q == '.')
		for (q++; *q >= '0' && *q <= '9'; q++, nd++) {
			frac = frac * 10 + (*q - '0');
			scale *= 10;
		}
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		n = strlen(units[i].u);
		if (!strncmp(q, units[i].u, n) && (q[n] == ',' || q[n] == ')') &&
		    !(units[i].ns % scale)) {
			*v = ip * units[i].ns + frac * (units[i].ns / scale);
			return q + n - p;
		}
	}
	if (nd || *q < 'a' || *q > 'z')
		return 0;
	while (*q >= 'a' && *q <= 'z')
		q++;
	*v = ip;
	return q - p;
}

/* Every "ns", "us", "ms" of the line at @p follows a blank: "512 ns". */
static bool times_scaled(const char *p)
{
	const char *nl = strchr(p, '\n') ?: p + strlen(p), *q;

	for (q = p + 1; q + 1 < nl; q++)
		if ((q[1] == 's' && strchr("num", q[0])) && q[-1] != ' ')
			return false;
	return true;
}

/* "[lo, hi) count |": 3 when it is one, as sscanf counts. */
static int parse_row(const char *p, unsigned long long *lo,
		     unsigned long long *hi, unsigned long long *n)
{
	int k;

	if (*p++ != '[')
		return 0;
	k = parse_bound(p, lo);
	if (!k || strncmp(p + k, ", ", 2))
		return 0;
	p += k + 2;
	k = parse_bound(p, hi);
	if (!k || p[k] != ')')
		return 1;
	return sscanf(p + k + 1, " %llu |", n) == 1 ? 3 : 2;
}

/* The rows "[lo<unit>, hi<unit>) count |...|" of @text: how many, sum. */
static unsigned int hist_rows(const char *text, unsigned long long *sum)
{
	unsigned long long lo, hi, n;
	unsigned int rows = 0;
	const char *p;

	*sum = 0;
	for (p = text; (p = strstr(p, "\n[")); p++) {
		if (parse_row(p + 1, &lo, &hi, &n) != 3)
			continue;
		rows++;
		*sum += n;
	}
	return rows;
}

TEST(show_merged_rows)
{
	unsigned long long sum, sum_full, lo, hi, n, lo2, hi2, n2, acc;
	const char *p, *q;
	struct result r, full;
	struct fake f;
	int got;

	wide_fake(&f);
	r = RUN(&f, "show", "wide");
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	check_golden(_metadata, "show_merged.txt", r.out);
	ASSERT_EQ(25U, hist_rows(r.out, &sum));
	ASSERT_EQ(2000ULL, sum);
	full = RUN(&f, "show", "wide", "--full");
	ASSERT_EQ(0, full.ret) TH_LOG("%s", full.err);
	ASSERT_EQ(196U, hist_rows(full.out, &sum_full));
	ASSERT_EQ(2000ULL, sum_full);
	/* each merged row: the full rows from its lower to its upper bound */
	for (p = strstr(r.out, "\n["); p; p = strstr(p + 1, "\n[")) {
		/* times for a person (issue 24): "[262.1 us, 328 us)" */
		ASSERT_TRUE(times_scaled(p + 1)) TH_LOG("%.60s", p + 1);
		got = parse_row(p + 1, &lo, &hi, &n);
		ASSERT_EQ(3, got);
		acc = 0;
		for (q = strstr(full.out, "\n["); q; q = strstr(q + 1, "\n[")) {
			got = parse_row(q + 1, &lo2, &hi2, &n2);
			ASSERT_EQ(3, got);
			if (lo2 >= lo && hi2 <= hi)
				acc += n2;
			else
				ASSERT_TRUE(hi2 <= lo || lo2 >= hi)
					TH_LOG("[%llu, %llu) straddles [%llu, %llu)",
					       lo2, hi2, lo, hi);
		}
		ASSERT_EQ(n, acc) TH_LOG("row [%llu, %llu)", lo, hi);
	}
	/* the same stats above the rows, both ways */
	ASSERT_EQ(0, strncmp(r.out, full.out, strstr(r.out, "\n[") - r.out));
	result_free(&full);
	result_free(&r);
	/* a histogram of at most 40 buckets: the same either way */
	fake_free(&f);
	std_fake(&f);
	r = RUN(&f, "show", "do_fork");
	full = RUN(&f, "show", "do_fork", "--full");
	ASSERT_STREQ(r.out, full.out);
	result_free(&full);
	result_free(&r);
	fake_free(&f);
}

/* ---- heatmap ---- */

static struct fake_hist *heated;
static unsigned long long heat_fed;

/*
 * Before interval n: a band that climbs a power of two per interval and
 * falls back every 6, 20 + 5n values spread over it; 10 values at 5 us;
 * none in interval 3.
 */
static void heat_feed(struct fake *f, unsigned int n)
{
	unsigned long long c = 10000ULL << (n % 6), k;

	if (n == 3)
		return;
	for (k = 0; k < 20 + 5 * n; k++) {
		fake_record(heated, k % 2, 0, c + (k * 37 % 64) * c / 64);
		heat_fed++;
	}
	for (k = 0; k < 10; k++, heat_fed++)
		fake_record(heated, 1, 0, 5000 + k);
}

/* Sum of the data-n="N" of the elements of class @cls in column @col. */
static unsigned long long svg_sum(const char *svg, const char *cls, int col)
{
	unsigned long long sum = 0, n;
	char want[32];
	const char *p;
	int c;

	snprintf(want, sizeof(want), "<rect class=\"%s\"", cls);
	for (p = svg; (p = strstr(p, want)); p++) {
		if (sscanf(strstr(p, "data-col=\""), "data-col=\"%d\"", &c) != 1 ||
		    sscanf(strstr(p, "data-n=\""), "data-n=\"%llu\"", &n) != 1)
			return -1ULL;
		if (col < 0 || c == col)
			sum += n;
	}
	return sum;
}

static void heat_case(struct __test_metadata *_metadata, const char *golden,
		      const char *color)
{
	char dir[] = "/tmp/probectl-heat-XXXXXX", svg[128];
	unsigned long long left;
	struct result r;
	struct fake f;
	char *got;
	int j;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(svg, sizeof(svg), "%s/h.svg", dir);
	wide_fake(&f);
	heated = fake_find(&f, "wide");
	heat_fed = 0;
	f.on_sleep = heat_feed;
	r = RUN(&f, "heatmap", "wide", "-n", "8", "--svg", svg, "--title",
		"wide <&> heat", color);
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_STREQ("", r.err);
	check_golden(_metadata, golden, r.out);
	/* one snapshot-and-reset to start (the 2000 values), one a column */
	ASSERT_EQ(9U, f.read_resets);
	ASSERT_EQ(0U, f.bad_reads);
	ASSERT_EQ(8U, f.sleeps);
	ASSERT_TRUE(f.writable);
	ASSERT_EQ(f.opens, f.closes);
	/* the intervals' values, all of them, and nothing left behind */
	ASSERT_EQ(20 + 25 + 30 + 40 + 45 + 50 + 55 + 7 * 10ULL, heat_fed);
	ASSERT_NE(NULL, strstr(r.out, "\nvalues: 335 in 8 intervals\n"));
	for (j = 0, left = 0; j < FAKE_CPUS; j++)
		left += pcore_cpu_hist_count(&heated->l, heated->slot[0].cpu[j]);
	ASSERT_EQ(0ULL, left);
	got = slurp(svg);
	ASSERT_NE(NULL, got);
	if (!strcmp(color, "--no-color"))
		check_golden(_metadata, "heatmap.svg", got);
	ASSERT_EQ(heat_fed, svg_sum(got, "c", -1));
	ASSERT_EQ(heat_fed, svg_sum(got, "t", -1));
	for (j = 0; j < 8; j++)
		ASSERT_EQ(svg_sum(got, "t", j), svg_sum(got, "c", j))
			TH_LOG("column %d", j);
	ASSERT_EQ(0ULL, svg_sum(got, "t", 3));	/* the interval without */
	ASSERT_EQ(20ULL + 10, svg_sum(got, "t", 0));
	ASSERT_NE(NULL, strstr(got, ">wide &lt;&amp;&gt; heat</text>"));
	free(got);
	result_free(&r);
	fake_free(&f);
	unlink(svg);
	ASSERT_EQ(0, rmdir(dir));	/* no temporary file left behind */
}

TEST(heatmap_text_and_svg)
{
	heat_case(_metadata, "heatmap.txt", "--no-color");
}

TEST(heatmap_color)
{
	heat_case(_metadata, "heatmap_color.txt", "--color");
}

/* -d: intervals of the duration, rounded up; a stop ends it early. */
TEST(heatmap_duration_and_stop)
{
	struct result r;
	struct fake f;

	wide_fake(&f);
	heated = fake_find(&f, "wide");
	heat_fed = 0;
	f.on_sleep = heat_feed;
	r = RUN(&f, "heatmap", "wide", "-d", "2.1", "-i", "0.5");
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	ASSERT_EQ(5U, f.sleeps);
	ASSERT_EQ(6U, f.read_resets);
	ASSERT_EQ(r.out, strstr(r.out, "wide: 5 intervals of 0.5 s, newest right\n"));
	ASSERT_NE(NULL, strstr(r.out, "\ntime: 03:04:06.500 (left) to 03:04:08.500 (right) UTC"))
		TH_LOG("%s", r.out);
	ASSERT_NE(NULL, strstr(r.out, "\nvalues: 155 in 5 intervals\n")) TH_LOG("%s", r.out);
	result_free(&r);
	fake_free(&f);

	/* no count: SIGINT or SIGTERM (the fake's stop) ends it */
	wide_fake(&f);
	heated = fake_find(&f, "wide");
	heat_fed = 0;
	f.on_sleep = heat_feed;
	f.stop_after = 5;
	r = RUN(&f, "heatmap", "wide");
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	ASSERT_TRUE(f.catching);
	ASSERT_EQ(5U, f.sleeps);
	/* the 5th sleep's 50 values were not read: they stay */
	ASSERT_EQ(5U, f.read_resets);
	ASSERT_NE(NULL, strstr(r.out, "\nvalues: 105 in 4 intervals\n")) TH_LOG("%s", r.out);
	ASSERT_EQ(155ULL, heat_fed);
	ASSERT_EQ(50ULL, pcore_cpu_hist_count(&heated->l, heated->slot[0].cpu[0]) +
		  pcore_cpu_hist_count(&heated->l, heated->slot[0].cpu[1]));
	result_free(&r);
	fake_free(&f);
}

static void nothing(struct fake *f, unsigned int n)
{
}

/* Intervals without values, and none at all: said in words. */
TEST(heatmap_empty)
{
	char dir[] = "/tmp/probectl-heat-XXXXXX", svg[128];
	struct result r;
	struct fake f;
	char *got;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(svg, sizeof(svg), "%s/e.svg", dir);
	wide_fake(&f);
	f.on_sleep = nothing;
	r = RUN(&f, "heatmap", "wide", "-n", "2", "--svg", svg);
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	ASSERT_STREQ("wide: 2 intervals of 1 s, newest right\n(no values)\n",
		     r.out);
	result_free(&r);
	got = slurp(svg);
	ASSERT_NE(NULL, got);
	ASSERT_NE(NULL, strstr(got, ">No values</text>"));
	ASSERT_EQ(NULL, strstr(got, "class=\"c\""));
	free(got);
	/* stopped before the first interval: an SVG all the same */
	f.stop_after = 1;
	r = RUN(&f, "heatmap", "wide", "--svg", svg);
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	ASSERT_STREQ("wide: 0 intervals of 1 s, newest right\n(no interval yet)\n",
		     r.out);
	result_free(&r);
	got = slurp(svg);
	ASSERT_NE(NULL, strstr(got, ">No values</text>"));
	free(got);
	fake_free(&f);
	unlink(svg);
	ASSERT_EQ(0, rmdir(dir));
}

/*
 * The heading and the SVG's value axis name the unit the rows' bounds are
 * in: none for times, whose bounds carry ns, us, ms or s ("wide:" over
 * "[4.61 us, 5.12 us)", not "wide (ns):"); the unit of any other
 * histogram, which its bounds end in ("sizes (bytes):" over
 * "[4608bytes, 5120bytes)").  heat_feed()'s values, 20 + 5n and 10 an
 * interval, read as bytes.
 */
TEST(heatmap_heading_unit)
{
	struct pcore_hist_spec loglin = { .kind = PCORE_HIST_LOGLINEAR };
	char dir[] = "/tmp/probectl-heat-XXXXXX", svg[128];
	struct result r;
	struct fake f;
	char *got;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(svg, sizeof(svg), "%s/u.svg", dir);
	wide_fake(&f);
	heated = fake_find(&f, "wide");
	heat_fed = 0;
	f.on_sleep = heat_feed;
	r = RUN(&f, "heatmap", "wide", "-n", "2", "--no-color", "--svg", svg);
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	ASSERT_EQ(r.out, strstr(r.out, "wide: 2 intervals of 1 s, newest right\n"))
		TH_LOG("%s", r.out);
	ASSERT_NE(NULL, strstr(r.out, "\n  [4.61 us, 5.12 us) |"))
		TH_LOG("%s", r.out);
	ASSERT_EQ(NULL, strstr(r.out, "(ns)")) TH_LOG("%s", r.out);
	result_free(&r);
	got = slurp(svg);
	ASSERT_NE(NULL, got);
	ASSERT_NE(NULL, strstr(got, "rotate(-90 ")) TH_LOG("%s", got);
	ASSERT_NE(NULL, strstr(strstr(got, "id=\"ylabel\""), ">value</text>"))
		TH_LOG("%s", got);
	ASSERT_NE(NULL, strstr(got, ">[4.61 us, 5.12 us)</text>"));
	free(got);
	fake_free(&f);

	memset(&f, 0, sizeof(f));
	heated = fake_add(&f, "sizes", "kprobe", "tcp_sendmsg", "bytes",
			  PCORE_ENT_OWN | PCORE_ENT_HAS_PROBE, &loglin, "", 1);
	heat_fed = 0;
	f.on_sleep = heat_feed;
	r = RUN(&f, "heatmap", "sizes", "-n", "2", "--no-color", "--svg", svg);
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	ASSERT_EQ(r.out, strstr(r.out, "sizes (bytes): 2 intervals of 1 s, newest right\n"))
		TH_LOG("%s", r.out);
	ASSERT_NE(NULL, strstr(r.out, "[4608bytes, 5120bytes) |"))
		TH_LOG("%s", r.out);
	result_free(&r);
	got = slurp(svg);
	ASSERT_NE(NULL, got);
	ASSERT_NE(NULL, strstr(strstr(got, "id=\"ylabel\""), ">value (bytes)</text>"))
		TH_LOG("%s", got);
	free(got);
	fake_free(&f);
	unlink(svg);
	ASSERT_EQ(0, rmdir(dir));
}

static void relayout(struct fake *f, unsigned int n)
{
	struct pcore_hist_spec log2 = { .kind = PCORE_HIST_LOG2 };
	const char *why;

	if (n == 2 && pcore_layout_init(&f->h[0].l, &log2, &why) == 0)
		f->h[0].e.nbuckets = f->h[0].l.nbuckets;
}

/* What can go wrong: each in one line, exit 1. */
TEST(heatmap_errors)
{
	struct result r;
	struct fake f;

	wide_fake(&f);
	r = RUN(&f, "heatmap", "nosuch", "-n", "1");
	ASSERT_EQ(1, r.ret);
	ASSERT_STREQ("probectl: no histogram named 'nosuch' (probectl list shows them)\n",
		     r.err);
	result_free(&r);
	r = RUN(&f, "heatmap", "wide", "-n", "1", "--svg", "/nonexistent/dir/h.svg");
	ASSERT_EQ(1, r.ret);
	ASSERT_NE(NULL, strstr(r.err, "probectl: cannot create a file beside /nonexistent/dir/h.svg: "))
		TH_LOG("%s", r.err);
	result_free(&r);
	r = RUN(&f, "heatmap", "wide", "-n", "1", "--svg", "/dev/full");
	ASSERT_EQ(1, r.ret);
	ASSERT_STREQ("probectl: writing /dev/full: No space left on device\n", r.err);
	result_free(&r);
	/* another histogram of the name, with other buckets */
	f.on_sleep = relayout;
	r = RUN(&f, "heatmap", "wide", "-n", "5");
	ASSERT_EQ(1, r.ret);
	ASSERT_STREQ("probectl: heatmap wide: the histogram's buckets changed (another histogram of that name?)\n",
		     r.err);
	ASSERT_EQ(f.opens, f.closes);
	result_free(&r);
	fake_free(&f);
	/* not root */
	wide_fake(&f);
	f.open_err = -EACCES;
	r = RUN(&f, "heatmap", "wide", "-n", "1");
	ASSERT_EQ(1, r.ret);
	ASSERT_NE(NULL, strstr(r.err, "permission denied")) TH_LOG("%s", r.err);
	result_free(&r);
	fake_free(&f);
}

/* --full: a row per bucket, from the lowest value's to the highest's. */
TEST(heatmap_full)
{
	struct result r;
	struct fake f;
	unsigned int rows = 0;
	const char *p;

	wide_fake(&f);
	heated = fake_find(&f, "wide");
	heat_fed = 0;
	f.on_sleep = heat_feed;
	r = RUN(&f, "heatmap", "wide", "-n", "8", "--full");
	ASSERT_EQ(0, r.ret) TH_LOG("%s", r.err);
	for (p = r.out; (p = strstr(p, ") |")); p++)
		rows++;
	/* 4096 + 0 .. 2^19 + 2^19 * 63/64: 3 + 7 * 16 + 16 buckets of 2^P */
	ASSERT_EQ(pcore_bucket(&heated->l, 655359) -
		  pcore_bucket(&heated->l, 5000) + 1, rows) TH_LOG("%s", r.out);
	ASSERT_LT(40U, rows);
	ASSERT_NE(NULL, strstr(r.out, "\nvalues: 335 in 8 intervals\n"));
	result_free(&r);
	fake_free(&f);
}

/* The newest 1000 intervals are kept, and said so. */
TEST(heatmap_keeps_1000)
{
	struct pcore_ioc_bucket b[3] = { { 0, 10, 0 }, { 10, 20, 0 },
					 { 20, ~0ULL, 0 } };
	struct pcore_ioc_entry e = { .name = "n", .unit = "us",
				     .hist_kind = "linear" };
	struct pc_snap s = { .b = b };
	struct timespec t = { 0 };
	struct pc_heat h;
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int i;

	s.r.nbuckets = 3;
	ASSERT_EQ(0, pc_heat_init(&h, &e, &s, 1000000000ULL, false));
	for (i = 0; i < 1003; i++) {
		b[1].count = i;
		t.tv_sec = i;
		ASSERT_EQ(0, pc_heat_add(&h, &s, &t, 1000000000ULL));
	}
	ASSERT_EQ((unsigned int)PC_HEAT_MAX_COLS, h.ncols);
	m = open_memstream(&buf, &len);
	ASSERT_EQ(0, pc_heat_text(m, &h, 0, 0, false));
	ASSERT_EQ(0, pc_heat_text(m, &h, 5, 0, false));
	/* 30 characters: "[10us, 20us) |" and 15 intervals and "|" */
	ASSERT_EQ(0, pc_heat_text(m, &h, 0, 30, false));
	fclose(m);
	ASSERT_EQ(buf, strstr(buf, "n (us): the last 1000 of 1003 intervals of 1 s, newest right\n[10us, 20us) |"));
	/* intervals 3..1002 hold 3 + ... + 1002 values */
	ASSERT_NE(NULL, strstr(buf, "\nvalues: 502500 in 1000 intervals\n"));
	ASSERT_NE(NULL, strstr(buf, "\nn (us): the last 5 of 1003 intervals of 1 s, newest right\n[10us, 20us) |@@@@@|\n"));
	ASSERT_NE(NULL, strstr(buf, "\nvalues: 5000 in 5 intervals\n"));
	ASSERT_NE(NULL, strstr(buf, "\nn (us): the last 15 of 1003 intervals of 1 s, newest right\n[10us, 20us) |@@@@@@@@@@@@@@@|\n"));
	free(buf);
	/* another layout: refused, nothing added */
	s.r.nbuckets = 2;
	ASSERT_EQ(-EPROTO, pc_heat_add(&h, &s, &t, 1));
	s.r.nbuckets = 3;
	b[2].lo = 21;
	ASSERT_EQ(-EPROTO, pc_heat_add(&h, &s, &t, 1));
	ASSERT_EQ(1003ULL, h.seen);
	pc_heat_free(&h);
}

/* What a terminal gets: read from the pty's master until it closes. */
struct pty_reader {
	int fd;
	char *buf;
	size_t len;
};

static void *pty_read(void *arg)
{
	struct pty_reader *p = arg;
	FILE *m = open_memstream(&p->buf, &p->len);
	char b[4096];
	ssize_t n;

	while ((n = read(p->fd, b, sizeof(b))) > 0)
		fwrite(b, 1, n, m);
	fclose(m);
	return NULL;
}

static unsigned int count_of(const char *s, const char *what)
{
	unsigned int n = 0;

	for (; (s = strstr(s, what)); s += strlen(what))
		n++;
	return n;
}

/*
 * On a terminal: redrawn after every interval (the screen cleared), as
 * many intervals as the width has room for, in colour unless NO_COLOR or
 * --no-color.
 */
TEST(heatmap_on_a_terminal)
{
	struct winsize ws = { .ws_row = 60, .ws_col = 34 };
	char *argv[7] = { NULL };
	struct pc_env env = { 0 };
	struct pty_reader rd;
	struct termios t;
	pthread_t th;
	struct fake f;
	int mfd, sfd, round, ret;
	const char *last;

	argv[0] = "probectl";
	argv[1] = "heatmap";
	argv[2] = "wide";
	argv[3] = "-n";
	argv[4] = "14";
	for (round = 0; round < 3; round++) {
		ASSERT_EQ(0, openpty(&mfd, &sfd, NULL, NULL, &ws));
		ASSERT_EQ(0, tcgetattr(sfd, &t));
		cfmakeraw(&t);
		ASSERT_EQ(0, tcsetattr(sfd, TCSANOW, &t));
		rd = (struct pty_reader){ .fd = mfd };
		ASSERT_EQ(0, pthread_create(&th, NULL, pty_read, &rd));
		wide_fake(&f);
		heated = fake_find(&f, "wide");
		heat_fed = 0;
		f.on_sleep = heat_feed;
		fake_env(&env, &f);
		env.out = fdopen(sfd, "w");
		env.err = stderr;
		ASSERT_NE(NULL, env.out);
		argv[5] = round == 2 ? "--no-color" : NULL;
		if (round == 1)
			setenv("NO_COLOR", "1", 1);
		ret = pc_run(round == 2 ? 6 : 5, argv, &env);
		unsetenv("NO_COLOR");
		fclose(env.out);	/* the slave: the reader sees EOF */
		pthread_join(th, NULL);
		close(mfd);
		ASSERT_EQ(0, ret);
		/* a picture per interval, each after clearing the screen */
		ASSERT_EQ(14U, count_of(rd.buf, "\033[H\033[2J")) TH_LOG("round %d", round);
		ASSERT_EQ(14U, count_of(rd.buf, "newest right\n"));
		ASSERT_EQ(round ? 0U : 1U,
			  (unsigned int)!!strstr(rd.buf, "\033[48;5;"))
			TH_LOG("round %d: colour", round);
		/*
		 * 34 columns: "[524288ns, 655360ns) |", 11 intervals, "|":
		 * from the 12th on, the pictures leave out the oldest
		 */
		ASSERT_NE(NULL, strstr(rd.buf, "\033[2Jwide: 11 intervals of 1 s"))
			TH_LOG("%s", rd.buf);
		last = strstr(rd.buf, "\033[2Jwide: the last 11 of 14 intervals of 1 s");
		ASSERT_NE(NULL, last) TH_LOG("%s", rd.buf);
		/* intervals 3 (none) to 13: 40 + 5n values and 10 each */
		ASSERT_NE(NULL, strstr(last, "\nvalues: 725 in 11 intervals\n"))
			TH_LOG("%s", last);
		free(rd.buf);
		fake_free(&f);
	}
}

/* ---- user stacks: "[u]" and "[proc]" lines, symbolized (usym.c) ---- */

/*
 * A process of @path (ustack, or a copy) running: main -> outer ->
 * spin_here, which printed its three frames' addresses (leaf first) and
 * the addresses of spin_here, outer and main into @addr, and waits.
 */
static pid_t ustack_spawn(struct __test_metadata *_metadata, const char *path,
			  unsigned long addr[6])
{
	int p[2];
	pid_t pid;
	FILE *f;
	int n;

	ASSERT_EQ(0, pipe(p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		dup2(p[1], 1);
		close(p[0]);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	f = fdopen(p[0], "r");
	ASSERT_NE(NULL, f);
	n = fscanf(f, "%lx %lx %lx %lx %lx %lx", &addr[0], &addr[1],
		   &addr[2], &addr[3], &addr[4], &addr[5]);
	fclose(f);
	if (n != 6) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	ASSERT_EQ(6, n) TH_LOG("%s printed no addresses: did mkelf.sh run?",
			       path);
	return pid;
}

static void ustack_kill(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

#define USTK_KERNEL	"__x64_sys_pause+0x12/0x30\n" STK_SYS

/*
 * A profile histogram of 3 stacks: @pid's in the kernel (pause()) with
 * its user frames, @pid's in user mode (no kernel frames), and a kernel
 * thread's.
 */
static void ustack_fake(struct fake *f, pid_t pid, const char *comm,
			const unsigned long addr[6])
{
	struct pcore_hist_spec count = { .kind = PCORE_HIST_COUNT };
	struct fake_hist *h;
	char text[512];
	unsigned int i;

	memset(f, 0, sizeof(*f));
	h = fake_add(f, "profile", "profile", "99_Hz", "samples",
		     PCORE_ENT_OWN | PCORE_ENT_HAS_PROBE | PCORE_ENT_STACKS,
		     &count, "stack", 3);
	snprintf(text, sizeof(text), USTK_KERNEL
		 "[u] 0x%016lx\n[u] 0x%016lx\n[u] 0x%016lx\n[proc] %d %s\n",
		 addr[0], addr[1], addr[2], (int)pid, comm);
	fake_key(h, 0, 1, "");
	fake_frames(h, 0, text);
	snprintf(text, sizeof(text),
		 "[u] 0x%016lx\n[u] 0x%016lx\n[u] 0x%016lx\n[proc] %d %s\n",
		 addr[0], addr[1], addr[2], (int)pid, comm);
	fake_key(h, 1, 2, "");
	fake_frames(h, 1, text);
	fake_key(h, 2, 3, "");
	fake_frames(h, 2, "worker_thread+0x1/0x40\nkthread+0x2/0x50\n[proc] 2 kworker/0:1\n");
	for (i = 0; i < 5; i++)
		fake_record(h, 0, 0, 0);
	for (i = 0; i < 3; i++)
		fake_record(h, 1, 1, 0);
	fake_record(h, 0, 2, 0);
}

static struct result ustack_run(struct fake *f, const char *a1,
				const char *a2)
{
	return RUN(f, "show", "profile", a1, a2);
}

/*
 * A live process's frames: main;outer;spin_here under its comm, then the
 * kernel's frames root first; show's text as "func+0xOFF [FILE]" leaf
 * first, JSON with the build-id that readelf gives.
 */
TEST(ustack_live)
{
	unsigned long addr[6];
	char path[512], want[2048], bid[128];
	struct result r;
	struct fake f;
	pid_t pid;

	elf_file(path, sizeof(path), "ustack");
	pid = ustack_spawn(_metadata, path, addr);
	ustack_fake(&f, pid, "ustack", addr);

	r = ustack_run(&f, "--folded", NULL);
	EXPECT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	EXPECT_STREQ("ustack;main;outer;spin_here;entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_pause 5\n"
		     "ustack;main;outer;spin_here 3\n"
		     "kworker/0:1;kthread;worker_thread 1\n", r.out);
	result_free(&r);

	/* show: leaf first, each function with its offset and file */
	r = ustack_run(&f, NULL, NULL);
	EXPECT_EQ(0, r.ret);
	snprintf(want, sizeof(want),
		 "\nstack count 5\n  __x64_sys_pause+0x12/0x30\n"
		 "  do_syscall_64+0x5d/0x90\n"
		 "  entry_SYSCALL_64_after_hwframe+0x6e/0xd8\n"
		 "  spin_here+0x%lx [%s]\n  outer+0x%lx [%s]\n"
		 "  main+0x%lx [%s]\n  [proc] %d ustack\n",
		 addr[0] - addr[3], path, addr[1] - addr[4], path,
		 addr[2] - addr[5], path, (int)pid);
	EXPECT_NE(NULL, strstr(r.out, want)) TH_LOG("want %s in %s", want, r.out);
	result_free(&r);

	/* --top 1: the heaviest */
	r = ustack_run(&f, "--folded", "--top=1");
	EXPECT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	EXPECT_STREQ("ustack;main;outer;spin_here;entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_pause 5\n",
		     r.out);
	result_free(&r);

	r = ustack_run(&f, "--json", NULL);
	EXPECT_EQ(0, r.ret);
	keep_prom("ustack-live.json", r.out);	/* run.sh: jq reads it */
	EXPECT_NE(NULL, strstr(r.out, "\"tgid\":")) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "\"comm\":\"ustack\",\"kernel_frames\":3,\"folded\":[\"ustack\",\"main\",\"outer\",\"spin_here\",\"entry_SYSCALL_64_after_hwframe\""))
		TH_LOG("%s", r.out);
	ASSERT_TRUE(expect_str("ustack.build_id", 0, bid, sizeof(bid)));
	snprintf(want, sizeof(want), "\"build_id\":\"%s\",\"func\":\"outer\"",
		 bid);
	EXPECT_NE(NULL, strstr(r.out, want)) TH_LOG("%s", r.out);
	/* spin_here's file offset: readelf's, plus the offset in it */
	snprintf(want, sizeof(want), "\"file_offset\":%llu,\"build_id\":\"%s\",\"func\":\"spin_here\",\"func_offset\":%lu",
		 (unsigned long long)expect_off(_metadata, "ustack.spin_here", 0) +
		 addr[0] - addr[3], bid, addr[0] - addr[3]);
	EXPECT_NE(NULL, strstr(r.out, want)) TH_LOG("want %s in %s", want, r.out);
	EXPECT_NE(NULL, strstr(r.out, "\"user_cut\":false")) TH_LOG("%s", r.out);
	result_free(&r);

	/* the flame graph: user frames under the process, drawn */
	r = RUN(&f, "flamegraph", "profile");
	EXPECT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	EXPECT_NE(NULL, strstr(r.out, "<title>ustack (8 samples,")) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "<title>spin_here (8 samples,")) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "<title>__x64_sys_pause (5 samples,")) TH_LOG("%s", r.out);
	result_free(&r);
	fake_free(&f);

	/* the process gone: no maps, so no names, and never an address */
	ustack_kill(pid);
	ustack_fake(&f, pid, "ustack", addr);
	r = ustack_run(&f, "--folded", NULL);
	EXPECT_EQ(0, r.ret);
	EXPECT_STREQ("ustack;[unknown];[unknown];[unknown];entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_pause 5\n"
		     "ustack;[unknown];[unknown];[unknown] 3\n"
		     "kworker/0:1;kthread;worker_thread 1\n", r.out);
	result_free(&r);
	r = ustack_run(&f, NULL, NULL);
	snprintf(want, sizeof(want), "\n  0x%016lx\n  0x%016lx\n  0x%016lx\n  [proc] %d ustack\n",
		 addr[0], addr[1], addr[2], (int)pid);
	EXPECT_NE(NULL, strstr(r.out, want)) TH_LOG("%s", r.out);
	result_free(&r);
	r = ustack_run(&f, "--json", NULL);
	EXPECT_NE(NULL, strstr(r.out, "\"kind\":\"gone\",\"why\":\"the process is gone\""))
		TH_LOG("%s", r.out);
	result_free(&r);
	fake_free(&f);
}

/*
 * Stacks with their process and no user frames (PCORE_HIST_PROC: a
 * profile or offcpu without user stacks): two processes of one name in
 * user mode, "[user] ustack" then "[proc] TGID ustack", two keys; a
 * kernel stack cut at its depth ("[...]" before the process); the idle
 * task.  No "[u]" line, so no symbolizing and no procfs.  Show keeps
 * the two processes apart; the folded lines and the flame graph put the
 * comm at the root and merge the two (they print the same); JSON gives
 * each its tgid, its kernel frames and no user frame.
 */
static void proc_fake(struct fake *f)
{
	struct pcore_hist_spec count = { .kind = PCORE_HIST_COUNT };
	struct fake_hist *h;
	unsigned int i;

	memset(f, 0, sizeof(*f));
	h = fake_add(f, "profile", "profile", "99_Hz", "samples",
		     PCORE_ENT_OWN | PCORE_ENT_HAS_PROBE | PCORE_ENT_STACKS,
		     &count, "stack", 4);
	fake_key(h, 0, 1, "");
	fake_frames(h, 0, "[user] ustack\n[proc] 4242 ustack\n");
	fake_key(h, 1, 2, "");
	fake_frames(h, 1, "[user] ustack\n[proc] 4243 ustack\n");
	fake_key(h, 2, 3, "");
	fake_frames(h, 2, "vfs_read+0x1/0x40\n" STK_SYS "[...]\n[proc] 4242 ustack\n");
	fake_key(h, 3, 4, "");
	fake_frames(h, 3, "[idle]\n[proc] 0 swapper/1\n");
	for (i = 0; i < 5; i++)
		fake_record(h, i % 2, 0, 0);
	for (i = 0; i < 3; i++)
		fake_record(h, 1, 1, 0);
	for (i = 0; i < 2; i++)
		fake_record(h, 0, 2, 0);
	fake_record(h, 1, 3, 0);
}

TEST(proc_stacks)
{
	struct result r;
	struct fake f;

	proc_fake(&f);
	r = RUN(&f, "show", "profile");
	EXPECT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	EXPECT_STREQ("stacks: 4\n"
		     "\nstack count 5\n  [user] ustack\n  [proc] 4242 ustack\n"
		     "\nstack count 3\n  [user] ustack\n  [proc] 4243 ustack\n"
		     "\nstack count 2\n  vfs_read+0x1/0x40\n"
		     "  do_syscall_64+0x5d/0x90\n"
		     "  entry_SYSCALL_64_after_hwframe+0x6e/0xd8\n"
		     "  [...]\n  [proc] 4242 ustack\n"
		     "\nstack count 1\n  [idle]\n  [proc] 0 swapper/1\n",
		     strstr(r.out, "stacks: ")) TH_LOG("%s", r.out);
	result_free(&r);

	r = RUN(&f, "show", "profile", "--top=1");
	EXPECT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	EXPECT_NE(NULL, strstr(r.out, "stacks: 4\n\nstack count 5\n  [user] ustack\n  [proc] 4242 ustack\n"))
		TH_LOG("%s", r.out);
	EXPECT_EQ(NULL, strstr(r.out, "4243")) TH_LOG("%s", r.out);
	result_free(&r);

	r = RUN(&f, "show", "profile", "--folded");
	EXPECT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	EXPECT_STREQ("ustack;[user] ustack 8\n"
		     "ustack;[...];entry_SYSCALL_64_after_hwframe;do_syscall_64;vfs_read 2\n"
		     "swapper/1;[idle] 1\n", r.out);
	result_free(&r);

	r = RUN(&f, "show", "profile", "--json");
	EXPECT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	EXPECT_NE(NULL, strstr(r.out, "{\"count\":5,\"sum\":0,\"frames\":[\"[user] ustack\",\"[proc] 4242 ustack\"],\"tgid\":4242,\"comm\":\"ustack\",\"kernel_frames\":1,\"folded\":[\"ustack\",\"[user] ustack\"],\"user\":[],\"user_cut\":false}"))
		TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "\"tgid\":4243,\"comm\":\"ustack\",\"kernel_frames\":1,"))
		TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "\"tgid\":4242,\"comm\":\"ustack\",\"kernel_frames\":4,\"folded\":[\"ustack\",\"[...]\",\"entry_SYSCALL_64_after_hwframe\",\"do_syscall_64\",\"vfs_read\"],\"user\":[]"))
		TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "\"tgid\":0,\"comm\":\"swapper/1\",\"kernel_frames\":1,"))
		TH_LOG("%s", r.out);
	result_free(&r);

	r = RUN(&f, "flamegraph", "profile");
	EXPECT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	EXPECT_NE(NULL, strstr(r.out, "<title>ustack (10 samples,")) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "<title>[user] ustack (8 samples,")) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "<title>vfs_read (2 samples,")) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "<title>swapper/1 (1 sample,")) TH_LOG("%s", r.out);
	result_free(&r);
	fake_free(&f);
}

/*
 * A process that has exited but is not reaped yet (a zombie: its maps
 * file is there, and empty) is gone too, not "unmapped" (seen in the VM:
 * probectl profile -d read a program that had just exited).
 */
TEST(ustack_zombie)
{
	unsigned long addr[6];
	char path[512];
	struct result r;
	struct fake f;
	pid_t pid;

	elf_file(path, sizeof(path), "ustack");
	pid = ustack_spawn(_metadata, path, addr);
	kill(pid, SIGKILL);
	/* not reaped: wait until it is a zombie */
	for (int i = 0; i < 200; i++) {
		char st[64], buf[256] = "";
		FILE *s;

		snprintf(st, sizeof(st), "/proc/%d/stat", (int)pid);
		s = fopen(st, "r");
		if (s) {
			if (!fgets(buf, sizeof(buf), s))
				buf[0] = '\0';
			fclose(s);
		}
		if (strstr(buf, ") Z "))
			break;
		usleep(10000);
	}
	ustack_fake(&f, pid, "ustack", addr);
	r = ustack_run(&f, "--json", NULL);
	EXPECT_NE(NULL, strstr(r.out, "\"kind\":\"gone\",\"why\":\"the process has exited (no mappings)\""))
		TH_LOG("%s", r.out);
	result_free(&r);
	r = ustack_run(&f, "--folded", "--top=1");
	EXPECT_STREQ("ustack;[unknown];[unknown];[unknown];entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_pause 5\n",
		     r.out);
	result_free(&r);
	fake_free(&f);
	waitpid(pid, NULL, 0);
}

/* A stripped PIE: main, outer and spin_here are not in .dynsym. */
TEST(ustack_stripped)
{
	unsigned long addr[6];
	char path[512];
	struct result r;
	struct fake f;
	pid_t pid;

	elf_file(path, sizeof(path), "ustack-stripped");
	pid = ustack_spawn(_metadata, path, addr);
	ustack_fake(&f, pid, "ustack-strippe", addr);
	r = ustack_run(&f, "--folded", "--top=2");
	ustack_kill(pid);
	EXPECT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	EXPECT_STREQ("ustack-strippe;[ustack-stripped];[ustack-stripped];[ustack-stripped];entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_pause 5\n"
		     "ustack-strippe;[ustack-stripped];[ustack-stripped];[ustack-stripped] 3\n",
		     r.out);
	result_free(&r);
	fake_free(&f);
}

/*
 * The program's file deleted while it runs: its mapping's own file
 * (map_files, for root) still gives names; without that privilege, the
 * path "... (deleted)" is not used: no names, rather than wrong ones.
 */
TEST(ustack_deleted)
{
	char dir[] = "/tmp/probectl-ustack-XXXXXX", src[512], dst[600];
	char cmd[1400];
	unsigned long addr[6];
	struct result r;
	struct fake f;
	pid_t pid;

	ASSERT_NE(NULL, mkdtemp(dir));
	elf_file(src, sizeof(src), "ustack");
	snprintf(dst, sizeof(dst), "%s/ustack", dir);
	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'", src, dst);
	ASSERT_EQ(0, system(cmd));
	pid = ustack_spawn(_metadata, dst, addr);
	unlink(dst);
	rmdir(dir);
	ustack_fake(&f, pid, "ustack", addr);
	r = ustack_run(&f, "--folded", "--top=1");
	ustack_kill(pid);
	EXPECT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	if (geteuid() == 0) {
		EXPECT_STREQ("ustack;main;outer;spin_here;entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_pause 5\n",
			     r.out);
	} else {
		EXPECT_STREQ("ustack;[ustack (deleted)];[ustack (deleted)];[ustack (deleted)];entry_SYSCALL_64_after_hwframe;do_syscall_64;__x64_sys_pause 5\n",
			     r.out);
	}
	result_free(&r);
	fake_free(&f);
}

/* Lines of /proc/PID/maps: the good ones' fields, the bad ones refused. */
TEST(usym_maps_lines)
{
	static const char *const bad[] = {
		"", "garbage", "7f00-7e00 r-xp 00000000 08:01 12 /x",
		"7f00-7f00 r-xp 00000000 08:01 12 /x",
		"17f00000000000000-27f00000000000000 r-xp 0 08:01 12 /x",
		"7f00 7f10 r-xp 00000000 08:01 12 /x",
		"7f00-7f10 rwzp 00000000 08:01 12 /x",
		"7f00-7f10 r-x 00000000 08:01 12 /x",
		"7f00-7f10 r-xp 00000000 0801 12 /x",
		"7f00-7f10 r-xp 00000000 08:01 /x",
		"7f00-7f10 r-xp 00000000 08:01 123456789012345678901 /x",
		"7f00-7f10 r-xp 00000000 08:01 99999999999999999999 /x",
		"7f00-7f10 r-xp 00000000 08:01 12x /x",
		"7f00-7f10 r-xp 0x000000 08:01 12 /x",
		"-7f10 r-xp 00000000 08:01 12 /x",
		"7f00-7f10 r-xp 00000000 123456789:01 12 /x",
		"7f00-7f10\tr-xp 00000000 08:01 12 /x",
	};
	uint64_t start, end, off, ino;
	unsigned int maj, min, i;
	const char *path;
	char perms[5];

	ASSERT_EQ(0, pc_usym_parse_maps_line("55d0c8a00000-55d0c8a01000 r-xp 00001000 fd:01 1234567 /usr/bin/my prog (deleted)",
					     &start, &end, perms, &off, &maj,
					     &min, &ino, &path));
	EXPECT_EQ(0x55d0c8a00000ULL, start);
	EXPECT_EQ(0x55d0c8a01000ULL, end);
	EXPECT_STREQ("r-xp", perms);
	EXPECT_EQ(0x1000ULL, off);
	EXPECT_EQ(0xfdU, maj);
	EXPECT_EQ(1U, min);
	EXPECT_EQ(1234567ULL, ino);
	EXPECT_STREQ("/usr/bin/my prog (deleted)", path);
	ASSERT_EQ(0, pc_usym_parse_maps_line("ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]",
					     &start, &end, perms, &off, &maj,
					     &min, &ino, &path));
	EXPECT_STREQ("[vsyscall]", path);
	ASSERT_EQ(0, pc_usym_parse_maps_line("7f00-7f10 rw-s 00000000 00:00 0",
					     &start, &end, perms, &off, &maj,
					     &min, &ino, &path));
	EXPECT_STREQ("", path);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT_EQ(-EINVAL, pc_usym_parse_maps_line(bad[i], &start,
							   &end, perms, &off,
							   &maj, &min, &ino,
							   &path))
			TH_LOG("case %u accepted", i);
}

/* A maps line for @path (its real device and inode, or @ino) at @start. */
static void maps_line(FILE *m, unsigned long start, const char *path,
		      unsigned long long ino)
{
	struct stat st;

	if (stat(path, &st))
		memset(&st, 0, sizeof(st));
	fprintf(m, "%lx-%lx r-xp 00000000 %x:%x %llu %s\n", start,
		start + 0x100000, major(st.st_dev), minor(st.st_dev),
		ino ? ino : (unsigned long long)st.st_ino, path);
}

/*
 * A process 4242 of a procfs of the test's own: bad maps lines around
 * good ones, bad ELF files, a file replaced since it was mapped, the
 * vDSO, anonymous memory, an unmapped address, bad "[u]" and "[proc]"
 * lines: each frame gets its name or "[unknown]", nothing breaks.
 */
TEST(ustack_bad_input)
{
	char dir[] = "/tmp/probectl-proc-XXXXXX", path[700], elf[512];
	char trunc[600], text[4096], *big;
	struct pcore_hist_spec count = { .kind = PCORE_HIST_COUNT };
	uint64_t outer = expect_off(_metadata, "ustack.outer", 0);
	struct fake_hist *h;
	struct result r;
	struct fake f;
	FILE *m, *in, *out;
	int c, i;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/4242", dir);
	ASSERT_EQ(0, mkdir(path, 0700));
	/* the first 3000 bytes of ustack: an ELF file cut short */
	snprintf(trunc, sizeof(trunc), "%s/trunc", dir);
	in = fopen(elf_file(elf, sizeof(elf), "ustack"), "r");
	out = fopen(trunc, "w");
	ASSERT_NE(NULL, in);
	ASSERT_NE(NULL, out);
	for (i = 0; i < 3000 && (c = fgetc(in)) != EOF; i++)
		fputc(c, out);
	fclose(in);
	fclose(out);

	snprintf(path, sizeof(path), "%s/4242/maps", dir);
	m = fopen(path, "w");
	ASSERT_NE(NULL, m);
	fputs("garbage line\n7f00-7e00 r-xp 00000000 08:01 12 /x\n", m);
	big = malloc(20000);
	ASSERT_NE(NULL, big);
	memset(big, 'a', 19999);
	big[19999] = '\0';
	fprintf(m, "10000000-10100000 r-xp 00000000 08:01 12 /%s\n", big);
	free(big);
	maps_line(m, 0x20000000, elf, 0);			/* ustack */
	maps_line(m, 0x30000000, elf, 1);			/* replaced */
	maps_line(m, 0x40000000, elf_file(path, sizeof(path), "text.txt"), 0);
	maps_line(m, 0x50000000, elf_file(path, sizeof(path), "empty"), 0);
	maps_line(m, 0x60000000, elf_file(path, sizeof(path), "nosym"), 0);
	maps_line(m, 0x70000000, trunc, 0);
	maps_line(m, 0x80000000, elf_file(path, sizeof(path), "lib32.so"), 0);
	fputs("90000000-90001000 r-xp 00000000 00:00 0                  [vdso]\n"
	      "a0000000-a0001000 rwxp 00000000 00:00 0\x20\n"
	      "b0000000-b0001000 rw-p 00000000 00:00 0 [heap]\n"
	      "c0000000-c0001000 r-xp 00000000 08:01 12 /nonexistent/file\n"
	      "d0000000-d0001000 r-xp 00000000 08:01 12 /tail-without-newline",
	      m);
	fclose(m);

	memset(&f, 0, sizeof(f));
	h = fake_add(&f, "profile", "profile", "99_Hz", "samples",
		     PCORE_ENT_OWN | PCORE_ENT_HAS_PROBE | PCORE_ENT_STACKS,
		     &count, "stack", 6);
	snprintf(text, sizeof(text),
		 "[u] 0x%016llx\n[u] 0x%016llx\n[u] 0x0000000040000010\n"
		 "[u] 0x0000000050000010\n[u] 0x0000000060000010\n"
		 "[u] 0x0000000070000010\n[u] 0x0000000080000010\n"
		 "[u] 0x0000000090000010\n[u] 0x00000000a0000010\n"
		 "[u] 0x00000000b0000010\n[u] 0x00000000c0000010\n"
		 "[u] 0x00000000d0000010\n[u] 0x0000000010000010\n"
		 "[u] 0x00000000f0000000\n[u] 0xzz\n[u] 0x00000000000000001\n"
		 "[u...]\n[proc] 4242 bad;comm\n",
		 0x20000000ULL + outer + 4, 0x30000000ULL + outer + 4);
	fake_key(h, 0, 1, "");
	fake_frames(h, 0, text);
	/* not a [proc] line: the kernel's text, as it came */
	fake_key(h, 1, 2, "");
	fake_frames(h, 1, "f+0x1/0x2\n[u] 0x0000000020001000\n[proc] 4242x c\n");
	fake_key(h, 2, 3, "");
	fake_frames(h, 2, "[u] 0x0000000020001000\n[proc] 99999999999 c\n");
	fake_key(h, 3, 4, "");
	fake_frames(h, 3, "[u] 0x0000000020001000\n[proc] 1 two words\n");
	fake_key(h, 4, 5, "");
	fake_frames(h, 4, "[proc] 4242\x20\n");
	/* a process and nothing else: the user stack could not be read */
	fake_key(h, 5, 6, "");
	fake_frames(h, 5, "[proc] 4243 nostack\n");
	for (i = 0; i < 6; i++)
		fake_record(h, 0, i, 0);

	pc_stacks_proc = dir;
	r = RUN(&f, "show", "profile", "--folded");
	EXPECT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	EXPECT_NE(NULL, strstr(r.out, "bad:comm;[...];[unknown];[unknown];[unknown];[unknown];[tail-without-newline];[file];[unknown];[unknown];[vdso];[lib32.so];[trunc];[nosym];[empty];[text.txt];[ustack];outer 1\n"))
		TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "[proc] 4242x c;[u] 0x0000000020001000;f 1\n"))
		TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "[proc] 99999999999 c;[u] 0x0000000020001000 1\n"))
		TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "[proc] 1 two words;[u] 0x0000000020001000 1\n"))
		TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "[proc] 4242  1\n")) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "\nnostack 1\n")) TH_LOG("%s", r.out);
	result_free(&r);

	r = RUN(&f, "show", "profile");
	EXPECT_EQ(0, r.ret);
	snprintf(text, sizeof(text), "\n  outer+0x4 [%s]\n  0x%016llx [%s+0x%llx]\n",
		 elf, 0x30000000ULL + outer + 4, elf,
		 (unsigned long long)outer + 4);
	EXPECT_NE(NULL, strstr(r.out, text)) TH_LOG("want %s in %s", text, r.out);
	EXPECT_NE(NULL, strstr(r.out, "\n  0x0000000090000010 [vdso]+0x10\n  0x00000000a0000010 [anon]\n  0x00000000b0000010 [heap]\n"))
		TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "\n  0x00000000f0000000\n  [u] 0xzz\n  [u] 0x00000000000000001\n  [...]\n  [proc] 4242 bad;comm\n"))
		TH_LOG("%s", r.out);
	result_free(&r);

	r = RUN(&f, "show", "profile", "--json");
	EXPECT_EQ(0, r.ret);
	keep_prom("ustack-bad.json", r.out);	/* run.sh: jq reads it */
	EXPECT_NE(NULL, strstr(r.out, "\"why\":\"replaced since it was mapped\""))
		TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "\"kind\":\"bad\",\"line\":\"[u] 0xzz\""))
		TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "\"user_cut\":true")) TH_LOG("%s", r.out);
	result_free(&r);
	pc_stacks_proc = NULL;
	fake_free(&f);

	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	EXPECT_EQ(0, system(path));
}

/*
 * 40 copies of ustack with random bytes changed (a seeded generator:
 * USYM_SEED=N replays one), each mapped by a process of the test's own
 * procfs: every frame gets a name or "[FILE]", nothing reads out of
 * bounds (ASan).
 */
TEST(ustack_fuzzed_elf)
{
	char dir[] = "/tmp/probectl-fuzz-XXXXXX", path[700], elf[512];
	struct pcore_hist_spec count = { .kind = PCORE_HIST_COUNT };
	uint64_t outer = expect_off(_metadata, "ustack.outer", 0);
	unsigned int seed = getenv("USYM_SEED") ?
			    strtoul(getenv("USYM_SEED"), NULL, 0) :
			    (unsigned int)time(NULL);
	unsigned char *img = NULL;
	size_t size = 0, len;
	struct fake_hist *h;
	char *text, *cmd;
	struct result r;
	struct fake f;
	unsigned int v, k;
	FILE *m, *in;

	TH_LOG("USYM_SEED=%u", seed);
	srand(seed);
	in = fopen(elf_file(elf, sizeof(elf), "ustack"), "r");
	ASSERT_NE(NULL, in);
	img = malloc(1 << 20);
	ASSERT_NE(NULL, img);
	size = fread(img, 1, 1 << 20, in);
	fclose(in);
	ASSERT_LT(4096U, size);
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/7", dir);
	ASSERT_EQ(0, mkdir(path, 0700));
	snprintf(path, sizeof(path), "%s/7/maps", dir);
	m = fopen(path, "w");
	ASSERT_NE(NULL, m);
	text = malloc(40 * 32 + 64);
	ASSERT_NE(NULL, text);
	len = 0;
	for (v = 0; v < 40; v++) {
		unsigned char *c = malloc(size);
		FILE *out;

		ASSERT_NE(NULL, c);
		memcpy(c, img, size);
		/* the headers (ELF, program, section) and anywhere at all */
		for (k = 0; k < 6; k++)
			c[rand() % 64] = rand();
		for (k = 0; k < 10; k++)
			c[rand() % size] = rand();
		for (k = 0; k < 10; k++)
			c[size - 1 - rand() % 2048] = rand();
		snprintf(path, sizeof(path), "%s/f%02u", dir, v);
		out = fopen(path, "w");
		ASSERT_NE(NULL, out);
		fwrite(c, 1, size, out);
		fclose(out);
		free(c);
		maps_line(m, 0x1000000UL * (v + 1), path, 0);
		len += sprintf(text + len, "[u] 0x%016llx\n",
			       0x1000000ULL * (v + 1) + outer + 4);
	}
	fclose(m);
	sprintf(text + len, "[proc] 7 fuzz\n");
	memset(&f, 0, sizeof(f));
	h = fake_add(&f, "profile", "profile", "99_Hz", "samples",
		     PCORE_ENT_OWN | PCORE_ENT_HAS_PROBE | PCORE_ENT_STACKS,
		     &count, "stack", 1);
	fake_key(h, 0, 1, "");
	fake_frames(h, 0, text);
	fake_record(h, 0, 0, 0);
	pc_stacks_proc = dir;
	r = RUN(&f, "show", "profile", "--folded");
	EXPECT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	EXPECT_EQ(0, strncmp(r.out, "fuzz;", 5)) TH_LOG("%s", r.out);
	result_free(&r);
	r = RUN(&f, "show", "profile", "--json");
	EXPECT_EQ(0, r.ret);
	result_free(&r);
	pc_stacks_proc = NULL;
	fake_free(&f);
	free(text);
	free(img);
	cmd = malloc(800);
	ASSERT_NE(NULL, cmd);
	snprintf(cmd, 800, "rm -rf '%s'", dir);
	EXPECT_EQ(0, system(cmd));
	free(cmd);
}

/*
 * The flame graph of a profile with user stacks, drawn from the device:
 * a process 4242 of the test's own procfs running ustack (main -> outer
 * -> spin_here, in user mode and in pause()), a kernel thread, and a
 * process gone.  Its folded lines are tests/browser/fixtures/
 * ustack.folded, which the browser test draws and checks against this
 * SVG (golden/flame_ustack.svg): the user frames' names are drawn, in
 * violet, under the process.
 */
TEST(flamegraph_ustack_golden)
{
	char dir[] = "/tmp/probectl-proc-XXXXXX", path[700], elf[512];
	struct pcore_hist_spec count = { .kind = PCORE_HIST_COUNT };
	uint64_t fmain = expect_off(_metadata, "ustack.main", 0);
	uint64_t fouter = expect_off(_metadata, "ustack.outer", 0);
	uint64_t fspin = expect_off(_metadata, "ustack.spin_here", 0);
	char user[256], text[1024], *want;
	struct fake_hist *h;
	struct result r;
	struct fake f;
	unsigned int i;
	FILE *m;

	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/4242", dir);
	ASSERT_EQ(0, mkdir(path, 0700));
	snprintf(path, sizeof(path), "%s/4242/maps", dir);
	m = fopen(path, "w");
	ASSERT_NE(NULL, m);
	maps_line(m, 0x20000000, elf_file(elf, sizeof(elf), "ustack"), 0);
	fclose(m);

	memset(&f, 0, sizeof(f));
	h = fake_add(&f, "profile", "profile", "99_Hz", "samples",
		     PCORE_ENT_OWN | PCORE_ENT_HAS_PROBE | PCORE_ENT_STACKS,
		     &count, "stack", 4);
	snprintf(user, sizeof(user),
		 "[u] 0x%016llx\n[u] 0x%016llx\n[u] 0x%016llx\n[proc] 4242 ustack\n",
		 0x20000000ULL + fspin + 4, 0x20000000ULL + fouter + 4,
		 0x20000000ULL + fmain + 4);
	fake_key(h, 0, 1, "");
	fake_frames(h, 0, user);
	snprintf(text, sizeof(text), USTK_KERNEL "%s", user);
	fake_key(h, 1, 2, "");
	fake_frames(h, 1, text);
	fake_key(h, 2, 3, "");
	fake_frames(h, 2, "worker_thread+0x1/0x40\nkthread+0x2/0x50\n[proc] 2 kworker/0:1\n");
	fake_key(h, 3, 4, "");
	fake_frames(h, 3, "[u] 0x00007f0000001234\n[u] 0x00007f0000005678\n[proc] 4243 gone\n");
	for (i = 0; i < 700; i++)
		fake_record(h, i % 2, 0, 0);
	for (i = 0; i < 300; i++)
		fake_record(h, 0, 1, 0);
	for (i = 0; i < 20; i++)
		fake_record(h, 1, 2, 0);
	for (i = 0; i < 5; i++)
		fake_record(h, 1, 3, 0);
	pc_stacks_proc = dir;

	r = RUN(&f, "show", "profile", "--folded");
	EXPECT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	want = slurp(GOLDEN_DIR "/../../browser/fixtures/ustack.folded");
	ASSERT_NE(NULL, want);
	EXPECT_STREQ(want, r.out);
	free(want);
	result_free(&r);

	r = RUN(&f, "flamegraph", "profile", "--width", "800", "--title",
		"ustack: user stacks");
	EXPECT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	EXPECT_NE(NULL, strstr(r.out, "<title>spin_here (1000 samples, 97.56%)</title>"))
		TH_LOG("%s", r.out);
	check_golden(_metadata, "flame_ustack.svg", r.out);
	result_free(&r);
	pc_stacks_proc = NULL;
	fake_free(&f);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	EXPECT_EQ(0, system(path));
}

/*
 * The first function of probectl's own vDSO (this process's), found
 * here apart from elfsym.c: its value, and of the names at that value
 * the first in strcmp() order (the one probectl shows).  Its image's size
 * from /proc/self/maps.  Return: false when there is none.
 */
static bool own_vdso_func(unsigned long *value, char *name, size_t len,
			  unsigned long *size)
{
	const Elf64_Ehdr *eh = (const void *)getauxval(AT_SYSINFO_EHDR);
	const Elf64_Shdr *sh, *sym = NULL;
	const Elf64_Sym *s;
	unsigned long lo, hi;
	char line[512];
	unsigned int i;
	size_t n;
	FILE *f;

	*size = 0;
	f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") &&
		    sscanf(line, "%lx-%lx", &lo, &hi) == 2 &&
		    lo == (unsigned long)eh)
			*size = hi - lo;
	if (f)
		fclose(f);
	if (!eh || !*size)
		return false;
	sh = (const void *)((const char *)eh + eh->e_shoff);
	for (i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_DYNSYM)
			sym = &sh[i];
	if (!sym)
		return false;
	s = (const void *)((const char *)eh + sym->sh_offset);
	n = sym->sh_size / sizeof(*s);
	*value = 0;
	for (i = 1; i < n; i++) {
		const char *nm = (const char *)eh +
				 sh[sym->sh_link].sh_offset + s[i].st_name;

		if (ELF64_ST_TYPE(s[i].st_info) != STT_FUNC ||
		    s[i].st_shndx == SHN_UNDEF || !s[i].st_value ||
		    s[i].st_size < 4)
			continue;
		if (!*value || s[i].st_value < *value ||
		    (s[i].st_value == *value && strcmp(nm, name) < 0)) {
			*value = s[i].st_value;
			snprintf(name, len, "%s", nm);
		}
	}
	return *value != 0;
}

/*
 * A process's "[vdso]" of the size of probectl's is probectl's: its
 * functions are named; of another size (a 32-bit process's), "[vdso]".
 */
TEST(ustack_vdso)
{
	char dir[] = "/tmp/probectl-proc-XXXXXX", path[700], name[128];
	struct pcore_hist_spec count = { .kind = PCORE_HIST_COUNT };
	unsigned long value, size;
	char text[256], want[512];
	struct fake_hist *h;
	struct result r;
	struct fake f;
	FILE *m;

	if (!own_vdso_func(&value, name, sizeof(name), &size))
		SKIP(return, "this process has no vDSO with functions");
	ASSERT_NE(NULL, mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/77", dir);
	ASSERT_EQ(0, mkdir(path, 0700));
	snprintf(path, sizeof(path), "%s/77/maps", dir);
	m = fopen(path, "w");
	ASSERT_NE(NULL, m);
	fprintf(m, "7ff000000000-%lx r-xp 00000000 00:00 0 [vdso]\n",
		0x7ff000000000UL + size);
	fprintf(m, "7ff100000000-%lx r-xp 00000000 00:00 0 [vdso]\n",
		0x7ff100000000UL + size + 0x1000);
	fclose(m);
	memset(&f, 0, sizeof(f));
	h = fake_add(&f, "profile", "profile", "99_Hz", "samples",
		     PCORE_ENT_OWN | PCORE_ENT_HAS_PROBE | PCORE_ENT_STACKS,
		     &count, "stack", 1);
	snprintf(text, sizeof(text), "[u] 0x%016lx\n[u] 0x%016lx\n[proc] 77 v\n",
		 0x7ff000000000UL + value + 2, 0x7ff100000000UL + value + 2);
	fake_key(h, 0, 1, "");
	fake_frames(h, 0, text);
	fake_record(h, 0, 0, 0);
	pc_stacks_proc = dir;
	r = RUN(&f, "show", "profile", "--folded");
	EXPECT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	snprintf(want, sizeof(want), "v;[vdso];%s 1\n", name);
	EXPECT_STREQ(want, r.out);
	result_free(&r);
	r = RUN(&f, "show", "profile");
	snprintf(want, sizeof(want), "\n  %s+0x2 [vdso]\n  0x%016lx [vdso]+0x%lx\n",
		 name, 0x7ff100000000UL + value + 2, value + 2);
	EXPECT_NE(NULL, strstr(r.out, want)) TH_LOG("want %s in %s", want, r.out);
	result_free(&r);
	pc_stacks_proc = NULL;
	fake_free(&f);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	EXPECT_EQ(0, system(path));
}

/* ---- export --remote-write ---- */

/*
 * A receiver of one HTTP request on 127.0.0.1 (a port the kernel picks),
 * in a thread: it keeps the request (headers and body) and answers
 * @status with @answer as the body.
 */
struct rw_recv {
	int lfd;
	int port;
	int status;
	const char *answer;
	char *head;		/* the request line and headers */
	char *body;
	size_t bodylen;
	pthread_t t;
};

static void *rw_serve(void *arg)
{
	struct rw_recv *r = arg;
	size_t len = 0, room = 1 << 16, want = 0, hlen = 0;
	char *buf = malloc(room + 1), *end, *cl, out[512];
	int fd = accept(r->lfd, NULL, NULL);
	ssize_t got;

	if (fd < 0 || !buf)
		goto out;
	for (;;) {
		if (len == room) {
			room *= 2;
			buf = realloc(buf, room + 1);
		}
		got = read(fd, buf + len, room - len);
		if (got <= 0)
			break;
		len += got;
		buf[len] = '\0';
		end = hlen ? NULL : strstr(buf, "\r\n\r\n");
		if (end) {
			hlen = end + 4 - buf;
			cl = strcasestr(buf, "\r\nContent-Length:");
			want = cl && cl < end ? strtoul(cl + 17, NULL, 10) : 0;
		}
		if (hlen && len >= hlen + want)
			break;
	}
	if (hlen) {
		r->head = strndup(buf, hlen);
		r->bodylen = want;
		r->body = malloc(want + 1);
		memcpy(r->body, buf + hlen, want);
	}
	snprintf(out, sizeof(out),
		 "HTTP/1.1 %d X\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n%s",
		 r->status, strlen(r->answer), r->answer);
	if (write(fd, out, strlen(out)) < 0)
		r->status = -1;
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	return NULL;
}

/* A listening socket on 127.0.0.1, its port in r->port. */
static int rw_listen(struct rw_recv *r)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);

	r->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (r->lfd < 0 || bind(r->lfd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(r->lfd, 4) ||
	    getsockname(r->lfd, (struct sockaddr *)&a, &alen))
		return -1;
	r->port = ntohs(a.sin_port);
	return 0;
}

static int rw_start(struct rw_recv *r, int status, const char *answer)
{
	memset(r, 0, sizeof(*r));
	r->status = status;
	r->answer = answer;
	if (rw_listen(r))
		return -1;
	return pthread_create(&r->t, NULL, rw_serve, r);
}

/*
 * After the run: a probectl that never connected leaves the thread in
 * accept(), which shutdown() ends (EINVAL); one that did was answered.
 */
static void rw_stop(struct rw_recv *r)
{
	shutdown(r->lfd, SHUT_RDWR);
	pthread_join(r->t, NULL);
	close(r->lfd);
}

static void rw_free(struct rw_recv *r)
{
	free(r->head);
	free(r->body);
}

/* The request's body, snappy-decompressed and decoded; NULL if not. */
static Prometheus__WriteRequest *rw_decode(const struct rw_recv *r)
{
	Prometheus__WriteRequest *wr;
	size_t n;
	char *pb;

	if (!r->body || snappy_uncompressed_length(r->body, r->bodylen, &n) !=
	    SNAPPY_OK)
		return NULL;
	pb = malloc(n ? n : 1);
	if (snappy_uncompress(r->body, r->bodylen, pb, &n) != SNAPPY_OK) {
		free(pb);
		return NULL;
	}
	wr = prometheus__write_request__unpack(NULL, n, (uint8_t *)pb);
	free(pb);
	return wr;
}

/* The series @name{probe=@probe} of @wr, or NULL. */
static const Prometheus__TimeSeries *
rw_find(const Prometheus__WriteRequest *wr, const char *name,
	const char *probe)
{
	size_t i, j;

	for (i = 0; i < wr->n_timeseries; i++) {
		const Prometheus__TimeSeries *ts = wr->timeseries[i];
		bool nm = false, pr = false;

		for (j = 0; j < ts->n_labels; j++) {
			if (!strcmp(ts->labels[j]->name, "__name__"))
				nm = !strcmp(ts->labels[j]->value, name);
			if (!strcmp(ts->labels[j]->name, "probe"))
				pr = !strcmp(ts->labels[j]->value, probe);
		}
		if (nm && pr)
			return ts;
	}
	return NULL;
}

/* Labels as "k=v,k=v" in the order sent. */
static void rw_labels(const Prometheus__TimeSeries *ts, char *buf,
		      size_t len)
{
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < ts->n_labels; i++)
		used += snprintf(buf + used, used < len ? len - used : 0,
				 "%s%s=%s", i ? "," : "", ts->labels[i]->name,
				 ts->labels[i]->value);
}

/*
 * A native histogram's buckets as "index:count ..." (absolute counts,
 * from the spans and deltas), and the zero bucket as "z:count".
 */
static void rw_buckets(const Prometheus__Histogram *m, char *buf, size_t len)
{
	long long idx = 0, cnt = 0;
	size_t s, b = 0, used = 0;
	unsigned int k;

	used += snprintf(buf, len, "z:%llu", (unsigned long long)m->zero_count_int);
	for (s = 0; s < m->n_positive_spans; s++) {
		idx += m->positive_spans[s]->offset;
		for (k = 0; k < m->positive_spans[s]->length; k++, idx++) {
			cnt += m->positive_deltas[b++];
			used += snprintf(buf + used, used < len ? len - used : 0,
					 " %lld:%lld", idx, cnt);
		}
	}
}

/* The bounds (lo, hi] of the native bucket holding the q-quantile rank */
static int rw_quantile_bucket(const Prometheus__Histogram *m, double q,
			      double *lo, double *hi)
{
	/* the rank as the callers' ceil(q * n - 1e-9), not 1 ulp above it */
	double base = exp2(exp2(-m->schema)), rank = q * m->count_int - 1e-9;
	long long idx = 0, cnt = 0;
	unsigned long long cum = m->zero_count_int;
	size_t s, b = 0;
	unsigned int k;

	if (cum >= rank && cum) {
		*lo = *hi = 0;
		return 0;
	}
	for (s = 0; s < m->n_positive_spans; s++) {
		idx += m->positive_spans[s]->offset;
		for (k = 0; k < m->positive_spans[s]->length; k++, idx++) {
			cnt += m->positive_deltas[b++];
			cum += cnt;
			if (cum >= rank) {
				*lo = pow(base, idx - 1);
				*hi = pow(base, idx);
				return 0;
			}
		}
	}
	return -1;
}

#define RW_URL_FMT	"http://127.0.0.1:%d/api/v1/write"

/*
 * export --remote-write: one POST with the protocol's headers; its body,
 * snappy-decompressed, is a WriteRequest with a native histogram per
 * histogram, labelled __name__, instance, job, probe in that order,
 * stamped now (the fake clock); log2 to schema 0 bucket by bucket, the
 * value 2^(i-1) one native bucket high (4096 and 65536 here); the
 * counters and the gauge of the textfile export.
 */
TEST(export_remote_write)
{
	const Prometheus__TimeSeries *ts;
	const Prometheus__Histogram *m;
	Prometheus__WriteRequest *wr;
	struct rw_recv rv;
	char url[64], buf[1024];
	struct result r;
	struct fake f;

	std_fake(&f);
	ASSERT_EQ(0, rw_start(&rv, 200, ""));
	snprintf(url, sizeof(url), RW_URL_FMT, rv.port);
	r = RUN(&f, "export", "--remote-write", url, "--instance", "host-a");
	rw_stop(&rv);
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	ASSERT_STREQ("", r.out);
	ASSERT_STREQ("", r.err);
	ASSERT_NE(NULL, rv.head);
	ASSERT_EQ(0, strncmp(rv.head, "POST /api/v1/write HTTP/1.1\r\n", 29));
	ASSERT_NE(NULL, strstr(rv.head, "\r\nContent-Encoding: snappy\r\n"));
	ASSERT_NE(NULL, strstr(rv.head, "\r\nContent-Type: application/x-protobuf\r\n"));
	ASSERT_NE(NULL, strstr(rv.head, "\r\nX-Prometheus-Remote-Write-Version: 0.1.0\r\n"));
	wr = rw_decode(&rv);
	ASSERT_NE(NULL, wr);
	/* 6 histograms, 5 with a probe (hits, missed), 1 keyed, 6 created */
	ASSERT_EQ((size_t)(6 + 10 + 1 + 6), wr->n_timeseries);

	/* tcpsize/size: log2, bytes: 0, 1, 100, 50 x 1448, 10 x 4096, 3 x 65536 */
	ts = rw_find(wr, "probe_core_value_bytes", "tcpsize/size");
	ASSERT_NE(NULL, ts);
	rw_labels(ts, buf, sizeof(buf));
	ASSERT_STREQ("__name__=probe_core_value_bytes,instance=host-a,job=probe_core,probe=tcpsize/size", buf);
	ASSERT_EQ(0U, ts->n_samples);
	ASSERT_EQ(1U, ts->n_histograms);
	m = ts->histograms[0];
	ASSERT_EQ(0, m->schema);
	ASSERT_EQ((int)PROMETHEUS__HISTOGRAM__COUNT_COUNT_INT, (int)m->count_case);
	ASSERT_EQ(66ULL, m->count_int);
	ASSERT_EQ(310069.0, m->sum);
	ASSERT_EQ(0.0, m->zero_threshold);
	ASSERT_EQ((int)PROMETHEUS__HISTOGRAM__RESET_HINT__UNKNOWN, (int)m->reset_hint);
	ASSERT_EQ(1735787045000LL + (long long)(f.mono_ns / 1000000), m->timestamp);
	/*
	 * 1 is (0.5, 1]: 0; 100 (64, 128]: 7; 1448 (1024, 2048]: 11; 4096 is
	 * native 12 but its log2 bucket [4096, 8191] goes to 13, 65536 to 17
	 */
	rw_buckets(m, buf, sizeof(buf));
	ASSERT_STREQ("z:1 0:1 7:1 11:50 13:10 17:3", buf);
	ASSERT_EQ(5U, m->n_positive_spans);
	ASSERT_EQ(0, m->positive_spans[0]->offset);
	ASSERT_EQ(6, m->positive_spans[1]->offset);
	ASSERT_EQ(3, m->positive_spans[2]->offset);
	ASSERT_EQ(1, m->positive_spans[3]->offset);
	ASSERT_EQ(3, m->positive_spans[4]->offset);
	ASSERT_EQ(5U, m->n_positive_deltas);
	ASSERT_EQ(49, m->positive_deltas[2]);
	ASSERT_EQ(-40, m->positive_deltas[3]);
	ASSERT_EQ(0U, m->n_negative_spans);

	/* ns: in nanoseconds, whole (no rebinning to seconds) */
	ts = rw_find(wr, "probe_core_latency_nanoseconds", "do_fork");
	ASSERT_NE(NULL, ts);
	ASSERT_EQ(1U, ts->n_histograms);
	ASSERT_EQ(8, ts->histograms[0]->schema);
	ASSERT_EQ(203ULL, ts->histograms[0]->count_int);
	ASSERT_EQ(140605550.0, ts->histograms[0]->sum);
	/* vfs_read: its total since creation, 1000 << 0..4, log2 */
	ts = rw_find(wr, "probe_core_latency_nanoseconds", "vfs_read");
	ASSERT_NE(NULL, ts);
	rw_buckets(ts->histograms[0], buf, sizeof(buf));
	ASSERT_STREQ("z:0 10:1 11:1 12:1 13:1 14:1", buf);
	ASSERT_EQ(1U, ts->histograms[0]->n_positive_spans);
	/* the empty linear one: a histogram of nothing */
	ts = rw_find(wr, "probe_core_latency_nanoseconds", "tpsrc/waiting");
	ASSERT_NE(NULL, ts);
	ASSERT_EQ(0ULL, ts->histograms[0]->count_int);
	ASSERT_EQ(0U, ts->histograms[0]->n_positive_spans);

	/* the textfile export's counters and gauge, as float samples */
	ts = rw_find(wr, "probe_core_probe_hits_total", "do_fork");
	ASSERT_NE(NULL, ts);
	ASSERT_EQ(1U, ts->n_samples);
	ASSERT_EQ(210.0, ts->samples[0]->value);
	ASSERT_EQ(1735787045000LL + (long long)(f.mono_ns / 1000000),
		  ts->samples[0]->timestamp);
	ts = rw_find(wr, "probe_core_probe_missed_total", "do_fork");
	ASSERT_NE(NULL, ts);
	ASSERT_EQ(7.0, ts->samples[0]->value);
	ts = rw_find(wr, "probe_core_dropped_total", "thardirq/irq_time");
	ASSERT_NE(NULL, ts);
	ASSERT_EQ(2.0, ts->samples[0]->value);
	ts = rw_find(wr, "probe_core_created_timestamp_seconds", "tcpsize/size");
	ASSERT_NE(NULL, ts);
	ASSERT_EQ(1735787046.0, ts->samples[0]->value);
	ASSERT_EQ(NULL, rw_find(wr, "probe_core_probe_hits_total", "cpuhists/offcpu"));

	prometheus__write_request__free_unpacked(wr, NULL);
	rw_free(&rv);
	result_free(&r);
	fake_free(&f);
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/*
 * Whether the native bucket holding @q's rank in @m has both ends within
 * @rel of the exact quantile of @v (@n sorted values) plus @abs: any
 * interpolation inside that bucket (histogram_quantile's) is then within
 * the bound.  Says which quantile failed.
 */
static bool rw_quantiles_within(struct __test_metadata *_metadata,
				const Prometheus__Histogram *m,
				const unsigned long long *v, unsigned int n,
				double rel, double abs, const char *what)
{
	unsigned int k;

	for (k = 1; k <= 1000; k++) {
		double q = k / 1000.0, lo, hi, x;
		unsigned int rank = (unsigned int)ceil(q * n - 1e-9);

		x = (double)v[(rank ? rank : 1) - 1];
		if (rw_quantile_bucket(m, q, &lo, &hi))
			return false;
		if (fabs(lo - x) > rel * x + abs || fabs(hi - x) > rel * x + abs) {
			TH_LOG("%s: q %.3f exact %.0f, native bucket (%.2f, %.2f]",
			       what, q, x, lo, hi);
			return false;
		}
	}
	return true;
}

/*
 * Each kind's mapping to a native histogram and its stated error: 2000
 * values spread over 20 octaves (a seeded generator), and 1000 in a
 * linear range; for every q from 0.001 to 1, the native bucket that
 * holds the q-quantile's rank lies, both ends, within the stated bound of
 * the exact q-quantile: loglinear:P 2^-(P+1) + 0.3 %, log2 a factor of 2,
 * linear half a step + 0.3 %.  Count and sum are exact; a count
 * histogram is a counter.
 */
TEST(export_remote_write_mapping)
{
	struct pcore_hist_spec ll4 = { .kind = PCORE_HIST_LOGLINEAR, .precision = 4 };
	struct pcore_hist_spec ll2 = { .kind = PCORE_HIST_LOGLINEAR, .precision = 2 };
	struct pcore_hist_spec l2 = { .kind = PCORE_HIST_LOG2 };
	struct pcore_hist_spec lin = { .kind = PCORE_HIST_LINEAR, .min = 1000,
				       .max = 101000, .step = 1000 };
	struct pcore_hist_spec cnt = { .kind = PCORE_HIST_COUNT };
	static unsigned long long v[2000], w[1000];
	struct fake_hist *a, *b, *c, *d, *e;
	unsigned long long x = 20261128, sum = 0, wsum = 0;
	const Prometheus__TimeSeries *ts;
	Prometheus__WriteRequest *wr;
	struct rw_recv rv;
	struct result r;
	struct fake f;
	char url[64];
	unsigned int i;

	memset(&f, 0, sizeof(f));
	a = fake_add(&f, "ll4", "", "", "ns", 0, &ll4, "", 1);
	b = fake_add(&f, "ll2", "", "", "ns", 0, &ll2, "", 1);
	c = fake_add(&f, "l2", "", "", "ns", 0, &l2, "", 1);
	d = fake_add(&f, "lin", "", "", "bytes", 0, &lin, "", 1);
	e = fake_add(&f, "calls", "", "", "", 0, &cnt, "", 1);
	for (i = 0; i < 2000; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		v[i] = (unsigned long long)exp2(3 + 20 * ((x >> 11) / 9007199254740992.0));
		sum += v[i];
		fake_record(a, i % 2, 0, v[i]);
		fake_record(b, i % 2, 0, v[i]);
		fake_record(c, i % 2, 0, v[i]);
	}
	for (i = 0; i < 1000; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		w[i] = 1000 + (x >> 33) % 100000;
		wsum += w[i];
		fake_record(d, 0, 0, w[i]);
	}
	for (i = 0; i < 7; i++)
		fake_record(e, 0, 0, 0);
	qsort(v, 2000, sizeof(v[0]), cmp_ull);
	qsort(w, 1000, sizeof(w[0]), cmp_ull);

	ASSERT_EQ(0, rw_start(&rv, 204, ""));
	snprintf(url, sizeof(url), RW_URL_FMT, rv.port);
	r = RUN(&f, "export", "--remote-write", url, "--instance", "h", "--job", "j");
	rw_stop(&rv);
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	wr = rw_decode(&rv);
	ASSERT_NE(NULL, wr);

	ts = rw_find(wr, "probe_core_latency_nanoseconds", "ll4");
	ASSERT_NE(NULL, ts);
	ASSERT_EQ(8, ts->histograms[0]->schema);
	ASSERT_EQ(2000ULL, ts->histograms[0]->count_int);
	ASSERT_EQ((double)sum, ts->histograms[0]->sum);
	ASSERT_TRUE(rw_quantiles_within(_metadata, ts->histograms[0], v, 2000,
					1.0 / 32 + 0.003, 0, "loglinear:4"));
	ts = rw_find(wr, "probe_core_latency_nanoseconds", "ll2");
	ASSERT_NE(NULL, ts);
	ASSERT_TRUE(rw_quantiles_within(_metadata, ts->histograms[0], v, 2000,
					1.0 / 8 + 0.003, 0, "loglinear:2"));
	/* and not within loglinear:4's: the bound is the precision's */
	ASSERT_FALSE(rw_quantiles_within(_metadata, ts->histograms[0], v, 2000,
					 1.0 / 32 + 0.003, 0, "loglinear:2 (expected to fail)"));
	ts = rw_find(wr, "probe_core_latency_nanoseconds", "l2");
	ASSERT_NE(NULL, ts);
	ASSERT_EQ(0, ts->histograms[0]->schema);
	ASSERT_EQ(2000ULL, ts->histograms[0]->count_int);
	ASSERT_TRUE(rw_quantiles_within(_metadata, ts->histograms[0], v, 2000,
					1.0, 0, "log2"));
	ts = rw_find(wr, "probe_core_value_bytes", "lin");
	ASSERT_NE(NULL, ts);
	ASSERT_EQ(8, ts->histograms[0]->schema);
	ASSERT_EQ(1000ULL, ts->histograms[0]->count_int);
	ASSERT_EQ((double)wsum, ts->histograms[0]->sum);
	ASSERT_TRUE(rw_quantiles_within(_metadata, ts->histograms[0], w, 1000,
					0.003, 500, "linear"));
	ts = rw_find(wr, "probe_core_value_count", "calls");
	ASSERT_NE(NULL, ts);
	ASSERT_EQ(0U, ts->n_histograms);
	ASSERT_EQ(1U, ts->n_samples);
	ASSERT_EQ(7.0, ts->samples[0]->value);

	prometheus__write_request__free_unpacked(wr, NULL);
	rw_free(&rv);
	result_free(&r);
	fake_free(&f);
}

/*
 * log2 to schema 0, at every bucket's edges: the values 2^(i-1) - 1,
 * 2^(i-1), 2^(i-1) + 1 for i = 1..64 go where the stated conversion says:
 * the native bucket of the log2 bucket's largest value, so 2^(i-1) (the
 * only value whose own native bucket differs) is one bucket high.
 */
TEST(export_remote_write_log2_edges)
{
	struct pcore_hist_spec l2 = { .kind = PCORE_HIST_LOG2 };
	struct pcore_ioc_bucket bk[65];
	struct pc_native nat;
	struct pc_hist h;
	unsigned int i;

	memset(&h, 0, sizeof(h));
	strcpy(h.e.hist_kind, "log2");
	h.total.b = bk;
	h.total.r.nbuckets = 65;
	(void)l2;
	for (i = 0; i < 65; i++) {
		bk[i].lo = i ? 1ULL << (i - 1) : 0;
		bk[i].hi = i == 0 ? 1 : i < 64 ? 1ULL << i : ~0ULL;
		bk[i].count = i + 1;
	}
	ASSERT_EQ(0, pc_native_of(&h, &h.total, &nat));
	ASSERT_EQ(0, nat.schema);
	ASSERT_EQ(1ULL, nat.zero);		/* [0, 1): the value 0 */
	ASSERT_EQ(64U, nat.n);
	for (i = 1; i < 65; i++) {
		long long own;

		/* log2 bucket i -> native i - 1 + (i > 1) */
		ASSERT_EQ((long long)(i == 1 ? 0 : i), nat.idx[i - 1]);
		ASSERT_EQ((unsigned long long)i + 1, nat.cnt[i - 1]);
		if (i < 2 || i > 53)
			continue;	/* 2^(i-1) + 1 is a double up to 2^53 */
		/* its values but the lowest are in that native bucket */
		ASSERT_EQ(0, pc_native_index(0, (double)bk[i].lo + 1, &own));
		ASSERT_EQ(nat.idx[i - 1], own);
		ASSERT_EQ(0, pc_native_index(0, (double)bk[i].lo, &own));
		ASSERT_EQ(nat.idx[i - 1] - 1, own);
	}
	pc_native_free(&nat);
}

/*
 * What goes wrong is one line on stderr and exit status 1 (2 for a usage
 * error): a URL that is not http(s) (nothing read); a refused
 * connection; HTTP 400 (refused, not to be retried) and 500 (the
 * receiver's trouble) with the start of the answer; a password in the URL
 * is not shown.  A device read that fails sends nothing.
 */
TEST(export_remote_write_errors)
{
	struct rw_recv rv;
	char url[256], *nl;
	struct result r;
	struct fake f;
	struct pollfd p;

	std_fake(&f);
	r = RUN(&f, "export", "--remote-write", "ftp://127.0.0.1/x");
	ASSERT_EQ(2, r.ret);
	ASSERT_STREQ("", r.out);
	ASSERT_NE(NULL, strstr(r.err, "not an http:// or https:// URL"));
	ASSERT_EQ(0U, f.opens);
	result_free(&r);
	r = RUN(&f, "export", "--remote-write", "http://x", "--per-cpu");
	ASSERT_EQ(2, r.ret);
	result_free(&r);
	r = RUN(&f, "export", "--prometheus", "--instance", "x");
	ASSERT_EQ(2, r.ret);
	result_free(&r);

	/* refused: a port nobody listens on (bound, then closed) */
	ASSERT_EQ(0, rw_listen(&rv));
	close(rv.lfd);
	snprintf(url, sizeof(url), "http://u:secret@127.0.0.1:%d/api/v1/write", rv.port);
	r = RUN(&f, "export", "--remote-write", url);
	ASSERT_EQ(1, r.ret);
	ASSERT_STREQ("", r.out);
	nl = strchr(r.err, '\n');
	ASSERT_NE(NULL, nl);
	ASSERT_EQ('\0', nl[1]) TH_LOG("more than one line: %s", r.err);
	ASSERT_EQ(NULL, strstr(r.err, "secret"));
	snprintf(url, sizeof(url), "probectl: remote write to http://***@127.0.0.1:%d/api/v1/write: ", rv.port);
	ASSERT_EQ(0, strncmp(r.err, url, strlen(url))) TH_LOG("%s", r.err);
	ASSERT_NE(NULL, strstr(r.err, "not retried: the next run sends the totals again)\n"));
	result_free(&r);

	ASSERT_EQ(0, rw_start(&rv, 400, "out of order sample\nmore"));
	snprintf(url, sizeof(url), RW_URL_FMT, rv.port);
	r = RUN(&f, "export", "--remote-write", url);
	rw_stop(&rv);
	ASSERT_EQ(1, r.ret);
	snprintf(url, sizeof(url), "probectl: remote write to " RW_URL_FMT
		 ": HTTP 400: out of order sample (refused: not retried, the request is at fault)\n",
		 rv.port);
	ASSERT_STREQ(url, r.err);
	rw_free(&rv);
	result_free(&r);

	ASSERT_EQ(0, rw_start(&rv, 500, ""));
	snprintf(url, sizeof(url), RW_URL_FMT, rv.port);
	r = RUN(&f, "export", "--remote-write", url);
	rw_stop(&rv);
	ASSERT_EQ(1, r.ret);
	snprintf(url, sizeof(url), "probectl: remote write to " RW_URL_FMT
		 ": HTTP 500 (not retried: the next run sends the totals again)\n",
		 rv.port);
	ASSERT_STREQ(url, r.err);
	rw_free(&rv);
	result_free(&r);

	/* a read that fails: no connection at all */
	ASSERT_EQ(0, rw_listen(&rv));
	f.read_err = EIO;
	snprintf(url, sizeof(url), RW_URL_FMT, rv.port);
	r = RUN(&f, "export", "--remote-write", url);
	ASSERT_EQ(1, r.ret);
	p = (struct pollfd){ .fd = rv.lfd, .events = POLLIN };
	ASSERT_EQ(0, poll(&p, 1, 0));
	close(rv.lfd);
	result_free(&r);
	fake_free(&f);
}

/* The native index of @v at @schema by the definition, in long double. */
static long long rw_def_index(int schema, unsigned long long v)
{
	long long i = (long long)ceill(log2l((long double)v) * (1 << schema));

	/* settle the rounding: the smallest i with 2^(i/2^s) >= v */
	while (exp2l((long double)(i - 1) / (1 << schema)) >= (long double)v)
		i--;
	while (exp2l((long double)i / (1 << schema)) < (long double)v)
		i++;
	return i;
}

/*
 * exp:S goes as it is: schema S, every value in the native bucket the
 * definition gives it (floor(base^i) and floor(base^i) + 1 for i from 32
 * to 320, 0 in the zero bucket, 1 in bucket 0), the overflow bucket (above
 * max = 2^30) in the native bucket after the last; every q-quantile's
 * native bucket holds the exact q-quantile.
 */
TEST(export_remote_write_exp)
{
	struct pcore_hist_spec e3 = { .kind = PCORE_HIST_EXP, .precision = 3,
				      .max = 1ULL << 30 };
	static unsigned long long v[700];
	static long long want[700];
	const Prometheus__TimeSeries *ts;
	const Prometheus__Histogram *m;
	Prometheus__WriteRequest *wr;
	unsigned long long sum = 0;
	unsigned int n = 0, i, k, zero = 0;
	char url[64], *got, *exp, *p;
	long long last, idx;
	struct fake_hist *h;
	struct rw_recv rv;
	struct result r;
	struct fake f;
	size_t used;

	memset(&f, 0, sizeof(f));
	h = fake_add(&f, "e3", "", "", "ns", 0, &e3, "", 1);
	ASSERT_STREQ("exp:3", h->e.hist_kind);
	v[n++] = 0;
	v[n++] = 0;
	v[n++] = 1;
	v[n++] = 2;
	v[n++] = 3;
	for (i = 32; i <= 240; i++) {
		unsigned long long b = (unsigned long long)floorl(exp2l(i / 8.0L));

		v[n++] = b;
		v[n++] = b + 1;
	}
	v[n++] = 5000000000ULL;		/* above max: the overflow bucket */
	v[n++] = 7000000000ULL;
	for (i = 0; i < n; i++) {
		fake_record(h, i % 2, 0, v[i]);
		sum += v[i];
	}

	ASSERT_EQ(0, rw_start(&rv, 200, ""));
	snprintf(url, sizeof(url), RW_URL_FMT, rv.port);
	r = RUN(&f, "export", "--remote-write", url, "--instance", "h");
	rw_stop(&rv);
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	wr = rw_decode(&rv);
	ASSERT_NE(NULL, wr);
	ts = rw_find(wr, "probe_core_latency_nanoseconds", "e3");
	ASSERT_NE(NULL, ts);
	m = ts->histograms[0];
	ASSERT_EQ(3, m->schema);
	ASSERT_EQ((unsigned long long)n, m->count_int);
	ASSERT_EQ((double)sum, m->sum);
	ASSERT_EQ(0.0, m->zero_threshold);

	/* what the definition says, as rw_buckets() prints it */
	last = rw_def_index(3, 1ULL << 30);
	for (i = 0; i < n; i++) {
		if (!v[i]) {
			zero++;
			want[i] = LLONG_MIN;
			continue;
		}
		idx = rw_def_index(3, v[i]);
		want[i] = idx > last ? last + 1 : idx;
	}
	exp = malloc(65536);
	got = malloc(65536);
	used = snprintf(exp, 65536, "z:%u", zero);
	for (i = 0; i < n; i = k) {
		for (k = i; k < n && want[k] == want[i]; k++)
			;
		if (want[i] != LLONG_MIN)
			used += snprintf(exp + used, 65536 - used, " %lld:%u",
					 want[i], k - i);
	}
	rw_buckets(m, got, 65536);
	ASSERT_STREQ(exp, got);
	/*
	 * by hand: 16 = 2^4 in 32; 17 (twice: i = 32's + 1 and floor(base^33)
	 * = floor(17.45)) in 33; 18 and 19 in 34 (base^34 = 19.03)
	 */
	p = strstr(got, " 32:1 33:2 34:2 ");
	ASSERT_NE(NULL, p);
	for (k = 1; k <= 1000; k++) {
		double q = k / 1000.0, lo, hi, x;
		unsigned int rank = (unsigned int)ceil(q * n - 1e-9);

		x = (double)v[rank - 1];
		ASSERT_EQ(0, rw_quantile_bucket(m, q, &lo, &hi));
		if (x > 1ULL << 30)
			continue;	/* overflow: above max, not inside */
		ASSERT_TRUE(x == 0 ? lo == 0 && hi == 0 : x > lo * (1 + 1e-12) && x <= hi * (1 + 1e-12))
			TH_LOG("q %.3f exact %.0f, native bucket (%.3f, %.3f]", q, x, lo, hi);
	}
	free(exp);
	free(got);
	prometheus__write_request__free_unpacked(wr, NULL);
	rw_free(&rv);
	result_free(&r);
	fake_free(&f);
}

/*
 * Label values are valid UTF-8 (a receiver refuses the whole request
 * otherwise): each byte of an ill-formed sequence becomes '?', valid ones
 * stay, from the probe's name to what is sent.
 */
TEST(export_remote_write_utf8)
{
	static const struct {
		const char *in, *out;
	} t[] = {
		{ "plain/name", "plain/name" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
		{ "latin1 \xe9t\xe9", "latin1 ?t?" },
		{ "overlong \xc0\xaf \xe0\x80\xaf", "overlong ?? ???" },
		{ "surrogate \xed\xa0\x80", "surrogate ???" },
		{ "too big \xf4\x90\x80\x80 \xf5\x80", "too big ???? ??" },
		{ "cut \xe2\x82", "cut ??" },
		{ "stray \x80\xbf", "stray ??" },
	};
	struct pcore_hist_spec l2 = { .kind = PCORE_HIST_LOG2 };
	const Prometheus__TimeSeries *ts;
	Prometheus__WriteRequest *wr;
	struct rw_recv rv;
	struct result r;
	struct fake f;
	char buf[64], url[64], lbl[256];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		snprintf(buf, sizeof(buf), "%s", t[i].in);
		pc_utf8_fix(buf);
		EXPECT_STREQ(t[i].out, buf) TH_LOG("%s", t[i].out);
	}
	memset(&f, 0, sizeof(f));
	fake_add(&f, "/opt/\xe9t\xe9:main", "uprobe", "main", "ns", 0, &l2, "", 1);
	ASSERT_EQ(0, rw_start(&rv, 200, ""));
	snprintf(url, sizeof(url), RW_URL_FMT, rv.port);
	r = RUN(&f, "export", "--remote-write", url, "--instance", "h\xffst");
	rw_stop(&rv);
	ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
	wr = rw_decode(&rv);
	ASSERT_NE(NULL, wr);
	ts = rw_find(wr, "probe_core_latency_nanoseconds", "/opt/?t?:main");
	ASSERT_NE(NULL, ts);
	rw_labels(ts, lbl, sizeof(lbl));
	ASSERT_STREQ("__name__=probe_core_latency_nanoseconds,instance=h?st,job=probe_core,probe=/opt/?t?:main", lbl);
	prometheus__write_request__free_unpacked(wr, NULL);
	rw_free(&rv);
	result_free(&r);
	fake_free(&f);
}


/* ---- the totals of a histogram keyed by cgroup ---- */

#define CG_NAME	"sys_getppid:count:by=cgroup"

/* The value of the series whose labels (rw_labels()) are @labels, or -1. */
static double rw_value(const Prometheus__WriteRequest *wr, const char *labels)
{
	char buf[1024];
	size_t i;

	for (i = 0; i < wr->n_timeseries; i++) {
		rw_labels(wr->timeseries[i], buf, sizeof(buf));
		if (!strcmp(buf, labels) && wr->timeseries[i]->n_samples == 1)
			return wr->timeseries[i]->samples[0]->value;
	}
	return -1;
}

/* The series of @wr of histogram CG_NAME. */
static unsigned int rw_cg_series(const Prometheus__WriteRequest *wr)
{
	char buf[1024];
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < wr->n_timeseries; i++) {
		rw_labels(wr->timeseries[i], buf, sizeof(buf));
		n += strstr(buf, "probe=" CG_NAME) != NULL;
	}
	return n;
}

/*
 * Between two exports of the cgroup totals tests: an interval read
 * (probectl reset), then the next round's values (fake_record(h, cpu,
 * slot, value)): after round 0, 10 calls in slot 1, two in slot 3, 7
 * lost; after round 1, 5 in slot 1, one in slot 0, and slot 3's cgroup
 * 6001 removed.  0, or the reset's exit code.
 */
static int cgroup_next_round(struct fake *f, struct fake_hist *h,
			     unsigned int round)
{
	struct result r = RUN(f, "reset", CG_NAME);
	int ret = r.ret;
	unsigned int i;

	if (ret)
		fprintf(stderr, "reset: %s", r.err);
	result_free(&r);
	for (i = 0; i < (round ? 5 : 10); i++)
		fake_record(h, i & 1, 1, 0);
	if (!round) {
		fake_record(h, 0, 3, 0);
		fake_record(h, 1, 3, 0);
		h->lost = 7;
	} else {
		fake_record(h, 0, 0, 0);
		fake_key(h, 3, 6001, "(removed)");
	}
	return ret;
}
/*
 * The textfile export of a histogram keyed by cgroup: one series per
 * cgroup since creation, key="<id>",cgroup="<path>", and no merged series;
 * interval reads (reset) between two exports never lower a cgroup's
 * counts, which are every value it recorded; a cgroup removed: its series
 * ends; values of cgroups that found no room in probe_core_cgroup_lost_total.
 */
TEST(export_cgroup_totals)
{
	static const char *const want[3][3] = {
		{ "key=\"4242\",cgroup=\"/system.slice/nginx.service\"} 30\n",
		  "key=\"1\",cgroup=\"/\"} 1\n",
		  "key=\"6001\",cgroup=\"...ker-0123456789abcdef0.scope\"} 1\n" },
		{ "key=\"4242\",cgroup=\"/system.slice/nginx.service\"} 40\n",
		  "key=\"1\",cgroup=\"/\"} 1\n",
		  "key=\"6001\",cgroup=\"...ker-0123456789abcdef0.scope\"} 3\n" },
		{ "key=\"4242\",cgroup=\"/system.slice/nginx.service\"} 45\n",
		  "key=\"1\",cgroup=\"/\"} 2\n", NULL },
	};
	const char *pre = "probe_core_value_calls_count{probe=\"" CG_NAME "\",";
	struct fake_hist *h;
	struct result r;
	struct fake f;
	unsigned int round, i;
	char line[256];

	cgroup_fake(&f);
	h = fake_find(&f, CG_NAME);
	for (round = 0; round < 3; round++) {
		r = RUN(&f, "export", "--prometheus");
		ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
		for (i = 0; i < 3; i++) {
			if (!want[round][i])
				continue;
			snprintf(line, sizeof(line), "%s%s", pre, want[round][i]);
			EXPECT_NE(NULL, strstr(r.out, line))
				TH_LOG("round %u: no %s in\n%s", round, line, r.out);
		}
		/* the removed cgroup 5150, and 6001 once removed: no series */
		EXPECT_EQ(NULL, strstr(r.out, "key=\"5150\"")) TH_LOG("%s", r.out);
		if (round == 2)
			EXPECT_EQ(NULL, strstr(r.out, "key=\"6001\""))
				TH_LOG("%s", r.out);
		/* no merged series beside the cgroups' */
		EXPECT_EQ(NULL, strstr(r.out, "_count{probe=\"" CG_NAME "\"}"))
			TH_LOG("%s", r.out);
		snprintf(line, sizeof(line),
			 "probe_core_cgroup_lost_total{probe=\"" CG_NAME "\"} %u\n",
			 round ? 7 : 0);
		EXPECT_NE(NULL, strstr(r.out, line)) TH_LOG("%s", r.out);
		result_free(&r);
		ASSERT_EQ(0, cgroup_next_round(&f, h, round));
	}
	fake_free(&f);
}

/* The same through export --remote-write: float counters of a count kind. */
TEST(export_cgroup_totals_remote_write)
{
	static const double want[3][3] = {
		{ 30, 1, 1 }, { 40, 1, 3 }, { 45, 2, -1 },
	};
	static const char *const cg[3] = {
		"cgroup=/system.slice/nginx.service,instance=h,job=probe_core,key=4242,",
		"cgroup=/,instance=h,job=probe_core,key=1,",
		"cgroup=...ker-0123456789abcdef0.scope,instance=h,job=probe_core,key=6001,",
	};
	Prometheus__WriteRequest *wr;
	struct fake_hist *h;
	struct rw_recv rv;
	char url[64], labels[512];
	struct result r;
	struct fake f;
	unsigned int round, i;

	cgroup_fake(&f);
	h = fake_find(&f, CG_NAME);
	for (round = 0; round < 3; round++) {
		ASSERT_EQ(0, rw_start(&rv, 200, ""));
		snprintf(url, sizeof(url), RW_URL_FMT, rv.port);
		r = RUN(&f, "export", "--remote-write", url, "--instance", "h");
		rw_stop(&rv);
		ASSERT_EQ(0, r.ret) TH_LOG("stderr: %s", r.err);
		result_free(&r);
		wr = rw_decode(&rv);
		ASSERT_NE(NULL, wr);
		for (i = 0; i < 3; i++) {
			snprintf(labels, sizeof(labels),
				 "__name__=probe_core_value_calls_count,%sprobe=" CG_NAME,
				 cg[i]);
			EXPECT_EQ(want[round][i], rw_value(wr, labels))
				TH_LOG("round %u: %s", round, labels);
		}
		/* cgroups (3, then 2), hits, missed, dropped, lost, created */
		EXPECT_EQ(round == 2 ? 7U : 8U, rw_cg_series(wr));
		EXPECT_EQ(round ? 7.0 : 0.0,
			  rw_value(wr, "__name__=probe_core_cgroup_lost_total,instance=h,job=probe_core,probe=" CG_NAME));
		prometheus__write_request__free_unpacked(wr, NULL);
		rw_free(&rv);
		ASSERT_EQ(0, cgroup_next_round(&f, h, round));
	}
	fake_free(&f);
}

TEST_HARNESS_MAIN
