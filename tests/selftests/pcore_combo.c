// SPDX-License-Identifier: GPL-2.0
/*
 * pcore_combo: a seeded generator of valid and boundary combinations of
 * everything probe_core takes, run against the kernel and read back
 * through every reader.  The other programs confirm the cases their
 * authors thought of; this one explores the space between them.
 *
 * Each combination draws, from tables of generators:
 *   - probe_core's parameters (params[]: target= with every suffix and
 *     glob, stacks=, stack_depth=, profile=, tracepoints=, offcpu_min_us=,
 *     hist=, maxactive=, mem_max=, pid=, comm=, mechanism=), each given
 *     or not;
 *   - 0 to 3 PCORE_IOC_ATTACHes (attach_gens[]: kretprobe with suffixes,
 *     tracepoint, uprobe on this program, profiler; filters and depths);
 *   - sometimes a handler module's keys (pcore_apitest case=keys_fuzz:
 *     keys at and around every sentinel, negative and huge ones);
 *   - a workload (workers[]: forks and exits, user-space busy loops,
 *     sleeps, pipes, waits, reads and writes; CPU hotplug now and then).
 * It loads, attaches, runs the workload, reads every debugfs file and
 * every PCORE_IOC_READ mode (merged, per CPU, every key, frames with a
 * buffer too small, exact and too big, totals, interval reads and resets
 * from reader processes at once), unloads, and checks four oracles, one
 * TAP line each whatever the seed:
 *   report    no kernel report (WARNING, BUG, KASAN, lockdep...) in the log
 *   reads     every answer holds together: count is the sum of the
 *             buckets, buckets in order, totals never go down, nframes
 *             within the depth, the keys add up to what was recorded
 *   errnos    every refusal is a documented errno for what was asked
 *   teardown  nothing left: no module, debugfs directory or kprobe
 *
 * Environment: PCORE_SEED (default COMBO_SEED; "time" for the clock),
 * PCORE_COMBOS (default COMBO_DEFAULT), PCORE_FIRST (the first
 * combination's index, default 0), PCORE_HZ_MAX (the highest sampling
 * rate used, default HZ_MAX; 4000 for the whole range), PCORE_DRY (print
 * the combinations, run nothing).  Each combination draws from its own
 * stream, seeded by the seed and its index, so
 *   PCORE_SEED=S PCORE_FIRST=K PCORE_COMBOS=1 ./pcore_combo
 * replays combination K of seed S alone.  What is drawn depends only on
 * the seed; the kernel's timing varies.
 */
#include "pcore_ioctl.h"
#include "kselftest.h"
#include <stdarg.h>
#include <sys/prctl.h>

/*
 * Default seed and count, for make check's budget of about 4 minutes on
 * the debug kernel, where a combination takes 10 to 60 s under
 * emulation (this seed: 6 in 236 s; 12 of seed 24 took 941 s before
 * key slots were read SLOTS_* at most).  Among the first 600 seeds, about one in twenty draws
 * within its first 6 combinations the shapes of the three defects the
 * fuzzer was written against (profile= with stack_depth= 1 or 2; the
 * key U64_MAX - 1 in a hashed histogram; offcpu with a kretprobe where
 * tasks wait); this seed does (combinations 0, 0 and 3).  make soak runs
 * thousands from a seed of the clock.
 */
#define COMBO_SEED	114ULL
#define COMBO_DEFAULT	6
#define APITEST		"pcore_apitest"
#define CPU1_ONLINE	"/sys/devices/system/cpu/cpu1/online"
#define PARAMS_MAX	2048
#define ATT_MAX		3
#define API_KEYS	16	/* APITEST_FUZZ_KEYS of the test module */
#define READERS		2
#define SLOTS_READ	16	/* key slots read one by one, at most */
#define SLOTS_API	256	/* the same, of the handler module's keys */
#define HISTS_MAX	PCORE_MAXE

enum oracle { OR_REPORT, OR_READS, OR_ERRNOS, OR_TEARDOWN, OR_NR };

static const char * const oracle_names[OR_NR] = {
	"no kernel report", "reads hold together", "only documented errnos",
	"nothing left after unload",
};

/*
 * Sampling rates above PCORE_HZ_MAX (default HZ_MAX) are clamped to it
 * when used (what is drawn stays the same).  On the debug kernel under
 * emulation a sample's stack walk takes long enough that profile=4000
 * starves both CPUs: RCU stalls (seed 24, combination 0).
 */
#define HZ_MAX		400
static unsigned int hz_max = HZ_MAX;

static unsigned int fails[OR_NR];
static long first_fail[OR_NR];
static unsigned int combo_idx;
static unsigned long long seed;

/* A failure into the kernel log too, in case the kernel dies next. */
static void kmsg_fail(enum oracle o)
{
	char line[200];
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	snprintf(line, sizeof(line),
		 "pcore_combo: seed %llu combination %u: %s fails (see its output)\n",
		 seed, combo_idx, oracle_names[o]);
	if (write(fd, line, strlen(line)) < 0)
		line[0] = '\0';
	close(fd);
}

static void fail(enum oracle o, const char *fmt, ...)
{
	va_list ap;

	if (!fails[o]++)
		first_fail[o] = combo_idx;
	printf("# combo %u: %s: ", combo_idx, oracle_names[o]);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (o != OR_REPORT)
		kmsg_fail(o);
}

/* Random draws: each combination has a stream of its own. */

static unsigned long long splitmix(unsigned long long x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static unsigned int rnd_below(unsigned int n)
{
	return n ? pcore_rnd() % n : 0;
}

static bool rnd_pct(unsigned int pct)
{
	return rnd_below(100) < pct;
}

/* Half the time a boundary (lo, lo + 1, hi - 1, hi or @def), else any. */
static unsigned int rnd_bound(unsigned int lo, unsigned int hi,
			      unsigned int def)
{
	const unsigned int edge[] = { lo, lo + 1, hi - 1, hi, def };

	if (rnd_pct(50))
		return edge[rnd_below(5)];
	return lo + rnd_below(hi - lo + 1);
}

#define RND_PICK(a)	((a)[rnd_below(ARRAY_SIZE(a))])

/*
 * The function pool: functions tasks wait in (the workload sleeps, reads
 * pipes and waits for children in them), others the workload calls, and
 * the aliases target= resolves.  All are in 6.1 and 6.12; a kernel
 * without one refuses the load with ENOENT, and the combination goes on
 * with a bare probe_core (what is drawn must not depend on the kernel).
 */
static const char * const funcs_all[] = {
	"do_nanosleep", "hrtimer_nanosleep", "pipe_read", "pipe_write",
	"do_wait", "kernel_wait4", "futex_wait", "do_sys_poll",
	"schedule_hrtimeout_range", "vfs_read", "vfs_write", "ksys_read",
	"ksys_write", "kernel_clone", "do_exit", "do_fork",
	"sys_nanosleep", "sys_getppid", "sys_read",
};

static const char * const globs[] = {
	"vfs_rea*", "do_nano*", "pipe_re?d", "ksys_wr*", "kernel_wai?4",
};

static const char *rnd_func(void)
{
	return RND_PICK(funcs_all);
}

/* What a combination is: drawn first, then run. */
struct combo {
	char params[PARAMS_MAX];
	bool filtered;		/* target= or stacks= given: pid=, comm= ok */
	unsigned int depth;	/* stack_depth= (default 32) */
	unsigned long long mem_max;	/* 0: the default */
	unsigned int natt;
	struct pcore_ioc_attach att[ATT_MAX];
	bool api;
	unsigned int api_mode, api_slots, api_nkeys;
	unsigned long long api_keys[API_KEYS], api_vals[API_KEYS];
	unsigned int api_reps[API_KEYS];
	unsigned int workers, run_ms;
	bool hotplug, probectl;
};

/* Appends to @c's parameters. */
static void param_add(struct combo *c, const char *fmt, ...)
{
	size_t used = strlen(c->params);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->params + used, sizeof(c->params) - used, fmt, ap);
	va_end(ap);
}

/* Histogram kinds: as hist= text and as PCORE_IOC_ATTACH fields. */
struct hist_draw {
	unsigned int kind, precision;
	unsigned long long min, max, step;
};

static void draw_hist(struct hist_draw *h)
{
	static const unsigned long long starts[] = {
		0, 1, 1000, 1ULL << 40, ~0ULL >> 1,
	};
	static const unsigned int nbuckets[] = { 1, 2, 100, 2045, 2046 };
	unsigned long long n;

	static const unsigned int kinds[] = {
		PCORE_UAPI_HIST_LOG2, PCORE_UAPI_HIST_LINEAR,
		PCORE_UAPI_HIST_LOGLINEAR, PCORE_UAPI_HIST_EXP,
	};

	memset(h, 0, sizeof(*h));
	h->kind = RND_PICK(kinds);
	if (h->kind == PCORE_UAPI_HIST_EXP) {
		/* every schema fits with the default max (hist_spec.h) */
		h->precision = rnd_below(9);
	} else if (h->kind == PCORE_UAPI_HIST_LOGLINEAR) {
		h->precision = rnd_pct(50) ? rnd_bound(1, 7, 4) : 0;
		/*
		 * 6 and 7 bits fit PCORE_MAX_BUCKETS only below the default
		 * max of one hour (hist_spec.h): the largest powers of two
		 * that fit, 2^35 and 2^20.
		 */
		if (h->precision >= 6)
			h->max = h->precision == 6 ? 1ULL << 35 : 1ULL << 20;
	} else if (h->kind == PCORE_UAPI_HIST_LINEAR) {
		h->min = RND_PICK(starts);
		n = rnd_pct(50) ? RND_PICK(nbuckets) : 1 + rnd_below(2046);
		h->step = rnd_pct(50) ? 1ULL << rnd_below(40) :
					1 + rnd_below(1000000);
		if (h->step > (~0ULL - h->min) / n)
			h->step = 1;
		h->max = h->min + n * h->step;
	}
}

/* The generators of probe_core's parameters. */

/* A suffix of target=, each element one; "" most often. */
static const char * const suffixes[] = {
	"", "", "", ":count", ":arg1", ":arg6:bytes", ":retval",
	":retval:errno_or_n", ":stacks", ":count:by=pid", ":arg2:by=pid",
	":by=pid",
};

static void gen_target(struct combo *c)
{
	unsigned int i, n = 1 + rnd_below(3);

	param_add(c, "target=");
	for (i = 0; i < n; i++) {
		if (rnd_pct(20))
			param_add(c, "%s%s%s", i ? "," : "", RND_PICK(globs),
				  rnd_pct(50) ? ":count" : "");
		else
			param_add(c, "%s%s%s", i ? "," : "", rnd_func(),
				  RND_PICK(suffixes));
	}
	c->filtered = true;
}

static void gen_stacks(struct combo *c)
{
	param_add(c, "stacks=%s", rnd_func());
	if (rnd_pct(30))
		param_add(c, ",%s", rnd_func());
	c->filtered = true;
}

static void gen_depth(struct combo *c)
{
	c->depth = rnd_bound(1, 127, 32);
	param_add(c, "stack_depth=%u", c->depth);
}

static void gen_profile(struct combo *c)
{
	unsigned int hz = rnd_bound(1, 4000, 99);

	param_add(c, "profile=%u", hz < hz_max ? hz : hz_max);
}

static void gen_tracepoints(struct combo *c)
{
	static const char * const tps[] = {
		"offcpu", "sched_switch", "sched_switch,offcpu",
		"offcpu,sched_switch",
	};

	param_add(c, "tracepoints=%s", RND_PICK(tps));
}

static void gen_offcpu_min(struct combo *c)
{
	static const unsigned int us[] = { 0, 1, 1000, 4294967295U };

	param_add(c, "offcpu_min_us=%u", rnd_pct(50) ? RND_PICK(us) :
						       rnd_below(100000));
}

static void gen_hist(struct combo *c)
{
	struct hist_draw h;

	draw_hist(&h);
	if (h.kind == PCORE_UAPI_HIST_LOG2)
		param_add(c, "hist=log2");
	else if (h.kind == PCORE_UAPI_HIST_LINEAR)
		param_add(c, "hist=linear:%llu,%llu,%llu", h.min, h.max,
			  h.step);
	else if (h.kind == PCORE_UAPI_HIST_EXP && rnd_pct(20))
		param_add(c, "hist=exp");
	else if (h.kind == PCORE_UAPI_HIST_EXP)
		param_add(c, "hist=exp:%u", h.precision);
	else if (h.precision)
		/* hist= gives no max: 6 and 7 bits would be refused */
		param_add(c, "hist=loglinear:%u", h.precision < 6 ? h.precision : 5);
	else
		param_add(c, "hist=loglinear");
}

static void gen_maxactive(struct combo *c)
{
	param_add(c, "maxactive=%u", rnd_bound(0, 4096, 1));
}

static void gen_mem_max(struct combo *c)
{
	static const char * const caps[] = {
		"1M", "1048576", "2M", "1100K", "64M", "1G",
	};

	param_add(c, "mem_max=%s", RND_PICK(caps));
	c->mem_max = 1;
}

/*
 * How kernel functions are probed: kprobes, direct calls (direct.c), or
 * direct where they can go.  Under direct, two probes of a function
 * (vfs_read and vfs_read:count) are one direct call too many: EBUSY.
 */
static void gen_mechanism(struct combo *c)
{
	static const char * const mechs[] = { "direct", "auto", "kprobe" };

	param_add(c, "mechanism=%s", RND_PICK(mechs));
}

/* Under mechanism=direct, EBUSY is what a second probe of a function gets. */
static bool direct_busy(const struct combo *c, int err)
{
	return err == EBUSY && strstr(c->params, "mechanism=direct");
}

static void gen_pid(struct combo *c)
{
	/* This program, init, or one that does not exist (ESRCH). */
	const unsigned int pids[] = { getpid(), getpid(), 1, 4194303 };

	if (c->filtered)
		param_add(c, "pid=%u", RND_PICK(pids));
}

static void gen_comm(struct combo *c)
{
	static const char * const comms[] = {
		"pcore_combo", "cwork", "x", "fifteen_chars_x",
	};

	if (c->filtered)
		param_add(c, "comm=%s", RND_PICK(comms));
}

/* probe_core's parameters: how often each is given, and its generator. */
static const struct param_gen {
	const char *name;
	unsigned int pct;
	void (*gen)(struct combo *c);
} params[] = {
	{ "target", 60, gen_target },
	{ "stacks", 25, gen_stacks },
	{ "stack_depth", 50, gen_depth },
	{ "profile", 35, gen_profile },
	{ "tracepoints", 45, gen_tracepoints },
	{ "offcpu_min_us", 20, gen_offcpu_min },
	{ "hist", 30, gen_hist },
	{ "maxactive", 25, gen_maxactive },
	{ "mem_max", 15, gen_mem_max },
	{ "pid", 10, gen_pid },		/* after target= and stacks= */
	{ "comm", 15, gen_comm },
	{ "mechanism", 30, gen_mechanism },
};

/* The generators of PCORE_IOC_ATTACH, one per kind. */

static unsigned long long uprobe_offset;	/* of combo_ufunc() */

static void att_filters(struct pcore_ioc_attach *a)
{
	static const char * const comms[] = { "", "", "pcore_combo", "cwork" };

	a->pid = rnd_pct(15) ? getpid() : 0;
	snprintf(a->comm, sizeof(a->comm), "%s", RND_PICK(comms));
}

static void att_hist(struct pcore_ioc_attach *a)
{
	struct hist_draw h;

	if (rnd_pct(40))
		return;
	draw_hist(&h);
	a->hist_kind = h.kind;
	a->precision = h.precision;
	a->min = h.min;
	a->max = h.max;
	a->step = h.step;
}

static void gen_att_kretprobe(struct pcore_ioc_attach *a)
{
	const char *sfx = RND_PICK(suffixes);

	a->kind = PCORE_ATTACH_KRETPROBE;
	snprintf(a->name, sizeof(a->name), "%s%s", rnd_func(), sfx);
	if (rnd_pct(30))
		a->maxactive = rnd_bound(1, 4096, 1);
	if (!strcmp(sfx, ":stacks"))
		a->depth = rnd_bound(0, 127, 1);
	else
		att_hist(a);
	att_filters(a);
}

static void gen_att_tracepoint(struct pcore_ioc_attach *a)
{
	a->kind = PCORE_ATTACH_TRACEPOINT;
	snprintf(a->name, sizeof(a->name), "%s",
		 rnd_pct(50) ? "offcpu" : "sched_switch");
	att_hist(a);
}

static void gen_att_uprobe(struct pcore_ioc_attach *a)
{
	static const char * const usfx[] = {
		"", ":count", ":arg1", ":retval", ":count:by=pid", ":by=pid",
	};

	a->kind = PCORE_ATTACH_UPROBE;
	snprintf(a->name, sizeof(a->name), "combo_ufunc%s", RND_PICK(usfx));
	a->offset = uprobe_offset;
	a->fd = -1;	/* opened when attaching */
	att_hist(a);
	att_filters(a);
}

static void gen_att_profile(struct pcore_ioc_attach *a)
{
	a->kind = PCORE_ATTACH_PROFILE;
	snprintf(a->name, sizeof(a->name), "prof%u", rnd_below(2));
	a->hz = rnd_bound(1, 4000, 99);
	if (a->hz > hz_max)
		a->hz = hz_max;
	a->depth = rnd_bound(0, 127, 1);
	att_filters(a);
}

static const struct attach_gen {
	unsigned int weight;
	void (*gen)(struct pcore_ioc_attach *a);
} attach_gens[] = {
	{ 4, gen_att_kretprobe },
	{ 2, gen_att_tracepoint },
	{ 2, gen_att_uprobe },
	{ 2, gen_att_profile },
};

static void gen_attach(struct pcore_ioc_attach *a)
{
	unsigned int i, total = 0, r;

	for (i = 0; i < ARRAY_SIZE(attach_gens); i++)
		total += attach_gens[i].weight;
	r = rnd_below(total);
	for (i = 0; r >= attach_gens[i].weight; i++)
		r -= attach_gens[i].weight;
	memset(a, 0, sizeof(*a));
	attach_gens[i].gen(a);
}

/* Keys of the handler module: every sentinel and its neighbours. */
static unsigned long long rnd_key(void)
{
	static const unsigned long long edge[] = {
		0, 1, 2, ~0ULL, ~0ULL - 1, ~0ULL - 2, ~0ULL - 3,
		~0ULL >> 1, (~0ULL >> 1) + 1, 0xffffffffULL, 0x100000000ULL,
		-1000ULL, 1000,
	};

	return rnd_pct(70) ? RND_PICK(edge) : pcore_rnd();
}

static void gen_api(struct combo *c)
{
	static const unsigned long long vals[] = {
		0, 1, 1000, ~0ULL, ~0ULL - 1, 1ULL << 63,
	};
	unsigned int i;

	c->api = true;
	c->api_mode = rnd_pct(70) ? 2 : 1;
	c->api_nkeys = 1 + rnd_below(API_KEYS);
	for (i = 0; i < c->api_nkeys; i++) {
		c->api_keys[i] = rnd_key();
		if (c->api_mode == 1 && rnd_pct(60))
			c->api_keys[i] %= 8;
		c->api_vals[i] = rnd_pct(50) ? RND_PICK(vals) : pcore_rnd();
		c->api_reps[i] = 1 + rnd_below(5);
	}
	/* hashed: room for every key (none dropped for want of a slot) */
	/* up to 4096: a merged read of 65536 takes seconds */
	c->api_slots = c->api_mode == 2 ? rnd_bound(API_KEYS, 4096, 16) :
					  rnd_bound(1, 4096, 4);
}

static void gen_combo(struct combo *c, unsigned int idx)
{
	unsigned int i;

	pcore_rnd_seed(splitmix(seed ^ splitmix(idx)));
	memset(c, 0, sizeof(*c));
	c->depth = 32;
	for (i = 0; i < ARRAY_SIZE(params); i++) {
		if (!rnd_pct(params[i].pct))
			continue;
		if (c->params[0])
			param_add(c, " ");
		params[i].gen(c);
	}
	c->natt = rnd_below(ATT_MAX + 1);
	for (i = 0; i < c->natt; i++)
		gen_attach(&c->att[i]);
	if (rnd_pct(50))
		gen_api(c);
	c->workers = 2 + rnd_below(5);
	c->run_ms = 200 + rnd_below(400);
	c->hotplug = rnd_pct(20);
	c->probectl = rnd_pct(25);
}

/*
 * The combination's load, into the kernel log too: when the kernel dies,
 * the log says what it was doing (run_tests.sh prints our output only
 * when we end).
 */
static void kmsg_combo(const struct combo *c)
{
	char line[PARAMS_MAX + 128];
	int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	snprintf(line, sizeof(line),
		 "pcore_combo: seed %llu combination %u: %s; %u attaches%s\n",
		 seed, combo_idx, c->params, c->natt,
		 c->api ? ", " APITEST " keys" : "");
	if (write(fd, line, strlen(line)) < 0)
		line[0] = '\0';
	close(fd);
}

static void print_combo(const struct combo *c)
{
	unsigned int i;

	printf("# combo %u: insmod probe_core.ko %s\n", combo_idx, c->params);
	for (i = 0; i < c->natt; i++)
		printf("# combo %u: attach kind %u name %s maxactive %u hist %u:%u:%llu,%llu,%llu pid %d comm '%s' depth %u hz %u\n",
		       combo_idx, c->att[i].kind, c->att[i].name,
		       c->att[i].maxactive, c->att[i].hist_kind,
		       c->att[i].precision, c->att[i].min, c->att[i].max,
		       c->att[i].step, c->att[i].pid, c->att[i].comm,
		       c->att[i].depth, c->att[i].hz);
	if (c->api) {
		printf("# combo %u: %s mode %u slots %u keys", combo_idx,
		       APITEST, c->api_mode, c->api_slots);
		for (i = 0; i < c->api_nkeys; i++)
			printf(" %#llx*%u", c->api_keys[i], c->api_reps[i]);
		printf("\n");
	}
	printf("# combo %u: %u workers, %u ms%s%s\n", combo_idx, c->workers,
	       c->run_ms, c->hotplug ? ", cpu1 off and on" : "",
	       c->probectl ? ", probectl show" : "");
	fflush(stdout);
}

/* The workload: each worker a child process doing one thing in a loop. */

/*
 * The uprobe's target: user space that returns its argument, called
 * through a pointer the compiler cannot see through (never inlined).
 */
long combo_ufunc(long x)
{
	__asm__ volatile("" : "+r"(x));
	return x;
}

long (*combo_ucall)(long x) = combo_ufunc;

static void work_busy(void)
{
	long i, x = 0;

	for (;;) {
		for (i = 0; i < 100000; i++)
			x += combo_ucall(i);
		__asm__ volatile("" : : "r"(x));
	}
}

static void work_sleep(void)
{
	struct timespec ts = { 0, 1000000 };

	for (;;) {
		nanosleep(&ts, NULL);
		ts.tv_nsec = ts.tv_nsec == 1000000 ? 50000 : 1000000;
	}
}

static void work_fork(void)
{
	for (;;) {
		pcore_forks(1);
		combo_ucall(1);
	}
}

static void work_pipe(void)
{
	char b[64] = { 0 };
	int p[2];
	pid_t w;

	if (pipe(p))
		_exit(1);
	w = fork();
	if (!w) {
		for (;;) {
			usleep(2000);
			if (write(p[1], b, sizeof(b)) < 0)
				_exit(0);
		}
	}
	for (;;)
		if (read(p[0], b, sizeof(b)) <= 0)
			break;
	kill(w, SIGKILL);
	_exit(0);
}

static void work_wait(void)
{
	pid_t pid;

	for (;;) {
		pid = fork();
		if (!pid) {
			usleep(3000);
			_exit(3);
		}
		waitpid(pid, NULL, 0);
	}
}

static void work_io(void)
{
	static char b[4096];
	int fd;

	for (;;) {
		fd = open("/proc/self/stat", O_RDONLY);
		if (fd >= 0) {
			if (read(fd, b, sizeof(b)) < 0)
				_exit(1);
			close(fd);
		}
		fd = open("/dev/null", O_WRONLY);
		if (fd >= 0) {
			if (write(fd, b, sizeof(b)) < 0)
				_exit(1);
			close(fd);
		}
		syscall(SYS_getppid);
	}
}

static void (* const workers[])(void) = {
	work_busy, work_sleep, work_fork, work_pipe, work_wait, work_io,
};

#define NWORKERS	ARRAY_SIZE(workers)

/* Every kind once, then the rest by turn: the kinds all run each time. */
static int work_start(const struct combo *c, pid_t *pids)
{
	unsigned int i;

	for (i = 0; i < c->workers + NWORKERS; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			return -1;
		if (!pids[i]) {
			prctl(PR_SET_NAME, "cwork");
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			workers[i % NWORKERS]();
			_exit(0);
		}
	}
	return 0;
}

static void work_stop(const struct combo *c, pid_t *pids)
{
	unsigned int i;

	for (i = 0; i < c->workers + NWORKERS; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	for (i = 0; i < c->workers + NWORKERS; i++)
		if (pids[i] > 0)
			waitpid(pids[i], NULL, 0);
}

static void hotplug_cpu1(void)
{
	if (access(CPU1_ONLINE, W_OK))
		return;
	if (pcore_write(CPU1_ONLINE, "0", 1))
		return;
	usleep(50000);
	if (pcore_write(CPU1_ONLINE, "1", 1))
		fail(OR_ERRNOS, "cpu1 would not come back online: %s",
		     strerror(errno));
}

/* The readers: every histogram through every ioctl read mode. */

static struct pcore_ioc_bucket bk[PCORE_MAXB + 1];
static char frames[2 * PCORE_UAPI_FRAMES_MAX];

struct seen {
	char name[PCORE_UAPI_NAME_MAX];
	unsigned long long total;
};

static struct seen seen[HISTS_MAX];
static unsigned int nseen;

/* The total READ_TOTAL gave @name before, to see it never go down. */
static struct seen *seen_get(const char *name)
{
	unsigned int i;

	for (i = 0; i < nseen; i++)
		if (!strcmp(seen[i].name, name))
			return &seen[i];
	if (nseen == HISTS_MAX)
		return NULL;
	snprintf(seen[nseen].name, sizeof(seen[0].name), "%s", name);
	seen[nseen].total = 0;
	return &seen[nseen++];
}

/* Does an answer hold together? Returns 0, or -1 with the reason logged. */
static int check_read(const char *what, const struct pcore_ioc_read *r,
		      const struct pcore_ioc_entry *e)
{
	unsigned long long sum = 0;
	unsigned int i;

	if (r->nbuckets != e->nbuckets) {
		fail(OR_READS, "%s: %u buckets, LIST said %u", what,
		     r->nbuckets, e->nbuckets);
		return -1;
	}
	for (i = 0; i < r->nbuckets; i++) {
		sum += bk[i].count;
		/* linear:0,...: the bucket below 0 is [0, 0), empty */
		if ((bk[i].hi <= bk[i].lo && bk[i].hi != ~0ULL &&
		     (bk[i].hi < bk[i].lo || bk[i].count)) ||
		    (i && bk[i].lo < bk[i - 1].lo)) {
			fail(OR_READS, "%s: bucket %u is [%llu, %llu)", what, i,
			     bk[i].lo, bk[i].hi);
			return -1;
		}
	}
	if (sum != r->count || (r->count && r->min > r->max) ||
	    (!r->count && r->min)) {
		fail(OR_READS, "%s: count %llu, buckets add up to %llu, min %llu max %llu",
		     what, r->count, sum, r->min, r->max);
		return -1;
	}
	return 0;
}

static int rd(int fd, const char *name, int cpu, unsigned int flags,
	      unsigned int slot, struct pcore_ioc_read *r)
{
	return pcore_rd(fd, name, cpu, flags, slot, r, bk);
}

/* An errno other than @ok (0 always is) fails the errno oracle. */
static bool errno_ok(int ret, int ok, const char *what)
{
	if (!ret || ret == ok)
		return !ret;
	fail(OR_ERRNOS, "%s: %s", what, strerror(ret));
	return false;
}

/*
 * A stack slot's frames: every size of buffer, and the depth; with @proc
 * (profilers, offcpu), a last line "[proc] TGID COMM", one frame more.
 */
static void read_frames(int fd, const struct pcore_ioc_entry *e,
			unsigned int slot, unsigned int depth, bool proc)
{
	static const unsigned int sizes[] = {
		PCORE_UAPI_FRAMES_MAX - 1, 1, 2 * PCORE_UAPI_FRAMES_MAX,
	};
	struct pcore_ioc_read r;
	unsigned int i, lines = 0;
	char what[200];
	int ret;
	char *p, *last = frames;

	snprintf(what, sizeof(what), "READ %s slot %u frames", e->name, slot);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		pcore_rd_init(&r, e->name, -1, PCORE_READ_KEY, slot, bk);
		r.frames = (uintptr_t)frames;
		r.frames_size = sizes[i];
		ret = pcore_ioc(fd, PCORE_IOC_READ, &r);
		if (ret != EINVAL)
			fail(OR_ERRNOS, "%s of %u bytes: %s, not EINVAL", what,
			     sizes[i], strerror(ret));
	}
	memset(frames, 0x5a, sizeof(frames));
	pcore_rd_init(&r, e->name, -1, PCORE_READ_KEY, slot, bk);
	r.frames = (uintptr_t)frames;
	r.frames_size = PCORE_UAPI_FRAMES_MAX;
	ret = pcore_ioc(fd, PCORE_IOC_READ, &r);
	if (!errno_ok(ret, ENOENT, what) || check_read(what, &r, e))
		return;
	if (r.frames_size < 1 || r.frames_size > PCORE_UAPI_FRAMES_MAX ||
	    frames[r.frames_size - 1] ||
	    strlen(frames) + 1 != r.frames_size) {
		fail(OR_READS, "%s: frames_size %u, text of %zu bytes", what,
		     r.frames_size, strnlen(frames, PCORE_UAPI_FRAMES_MAX));
		return;
	}
	if (frames[PCORE_UAPI_FRAMES_MAX] != 0x5a)
		fail(OR_READS, "%s: written past PCORE_UAPI_FRAMES_MAX", what);
	for (p = frames; (p = strchr(p, '\n')) && p[1]; p++) {
		lines++;
		last = p + 1;
	}
	lines += !!p;
	if (r.nframes > depth + proc || lines > r.nframes + 1)
		fail(OR_READS, "%s: %u frames (depth %u%s), %u lines", what,
		     r.nframes, depth, proc ? " and [proc]" : "", lines);
	if (lines && proc != !strncmp(last, "[proc] ", 7))
		fail(OR_READS, "%s: %s: %s", what,
		     proc ? "no [proc] line last" : "a [proc] line", frames);
}

/* Which attaches of the combination made their histogram. */
static bool att_made[ATT_MAX];

/* The depth of histogram @name's stacks, as the combination gave it. */
static unsigned int hist_depth(const struct combo *c, const char *name)
{
	unsigned int i;

	for (i = 0; i < c->natt; i++)
		if (att_made[i] && !strcmp(c->att[i].name, name))
			return c->att[i].depth ?: 32;
	return c->depth;
}

static void read_hist(int fd, const struct combo *c,
		      const struct pcore_ioc_entry *e, int ncpu)
{
	struct pcore_ioc_read r;
	unsigned int slot, nslots;
	struct seen *s;
	char what[200];
	int cpu, ret;

	snprintf(what, sizeof(what), "READ %s", e->name);
	ret = rd(fd, e->name, -1, 0, 0, &r);
	if (errno_ok(ret, ENOENT, what))
		check_read(what, &r, e);
	for (cpu = 0; cpu < ncpu; cpu++) {
		snprintf(what, sizeof(what), "READ %s cpu %d", e->name, cpu);
		ret = rd(fd, e->name, cpu, 0, 0, &r);
		if (errno_ok(ret, ENOENT, what))
			check_read(what, &r, e);
	}
	snprintf(what, sizeof(what), "READ %s cpu %d", e->name, ncpu);
	errno_ok(rd(fd, e->name, ncpu, 0, 0, &r), EINVAL, what);
	/* Room for one bucket less: ENOSPC, and the room it needs. */
	memset(&r, 0, sizeof(r));
	snprintf(r.name, sizeof(r.name), "%s", e->name);
	r.cpu = -1;
	r.buckets = (uintptr_t)bk;
	r.nbuckets = e->nbuckets - 1;
	r.bucket_size = sizeof(bk[0]);
	ret = pcore_ioc(fd, PCORE_IOC_READ, &r);
	if (ret != ENOSPC && ret != ENOENT)
		fail(OR_ERRNOS, "READ %s, room for %u buckets: %s, not ENOSPC",
		     e->name, e->nbuckets - 1, strerror(ret));
	else if (ret == ENOSPC && r.nbuckets != e->nbuckets)
		fail(OR_READS, "READ %s: ENOSPC says %u buckets, LIST %u",
		     e->name, r.nbuckets, e->nbuckets);
	/* The total: never down. */
	snprintf(what, sizeof(what), "READ %s total", e->name);
	ret = rd(fd, e->name, -1, PCORE_READ_TOTAL, 0, &r);
	s = seen_get(e->name);
	if (errno_ok(ret, ENOENT, what) && !check_read(what, &r, e) && s) {
		if (r.count < s->total)
			fail(OR_READS, "%s went down: %llu, then %llu", what,
			     s->total, r.count);
		s->total = r.count;
	}
	/* Each key slot (the first SLOTS_READ and the last), and one past. */
	nslots = e->nkeys;
	if (nslots <= 1)
		return;
	for (slot = 0; slot < nslots; slot++) {
		if (slot == SLOTS_READ)
			slot = nslots - 1;
		snprintf(what, sizeof(what), "READ %s slot %u", e->name, slot);
		if (e->flags & PCORE_ENT_STACKS) {
			read_frames(fd, e, slot, hist_depth(c, e->name),
				    !strcmp(e->probe_kind, "profile") ||
				    !strcmp(e->name, "offcpu"));
			continue;
		}
		ret = rd(fd, e->name, -1, PCORE_READ_KEY, slot, &r);
		if (errno_ok(ret, ENOENT, what))
			check_read(what, &r, e);
	}
	snprintf(what, sizeof(what), "READ %s slot %u", e->name, nslots);
	errno_ok(rd(fd, e->name, -1, PCORE_READ_KEY, nslots, &r), EINVAL,
		 what);
}

/* Every debugfs file under @dir, read to its end. */
static void read_debugfs(const char *dir)
{
	static char text[PCORE_BUF];
	struct pcore_percpu pc;
	char path[512];
	struct dirent *d;
	struct stat st;
	unsigned int cpu;
	ssize_t n;
	DIR *dp;

	dp = opendir(dir);
	if (!dp)
		return;
	while ((d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			read_debugfs(path);
			continue;
		}
		if (!(st.st_mode & 0400))
			continue;
		n = pcore_read(path, text, sizeof(text));
		if (n < 0 && n != -ENOENT)
			fail(OR_ERRNOS, "read %s: %s", path, strerror(-n));
		if (strcmp(d->d_name, "percpu") || n <= 0 ||
		    pcore_percpu_parse(path, &pc))
			continue;
		for (cpu = 0; cpu < (unsigned int)pc.ncpu; cpu++)
			if (pc.count[cpu] != pc.hist[cpu])
				fail(OR_READS, "%s: cpu%u count %llu, buckets %llu",
				     path, cpu, pc.count[cpu], pc.hist[cpu]);
	}
	closedir(dp);
}

/* Interval reads and resets, from another process, till killed. */
static void reader(int id)
{
	static struct pcore_ioc_entry e[PCORE_MAXE];
	char name[PCORE_UAPI_NAME_MAX];
	struct pcore_ioc_read r;
	unsigned int n, i, k;
	int fd, ret;

	fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		_exit(1);
	for (k = 0;; k++) {
		if (pcore_list(fd, e, PCORE_MAXE, &n) || n > PCORE_MAXE)
			_exit(2);
		for (i = 0; i < n; i++) {
			memcpy(name, e[i].name, sizeof(name));
			name[sizeof(name) - 1] = '\0';
			ret = rd(fd, name, -1,
				 (k + id) % 3 ? 0 : PCORE_READ_RESET, 0, &r);
			if (ret && ret != ENOENT)
				_exit(3);
			if (!ret && r.count != 0 && r.nbuckets == e[i].nbuckets) {
				unsigned long long sum = 0;
				unsigned int b;

				for (b = 0; b < r.nbuckets; b++)
					sum += bk[b].count;
				if (sum != r.count)
					_exit(4);
			}
		}
	}
}

static void read_all(const struct combo *c, int ncpu)
{
	static struct pcore_ioc_entry e[PCORE_MAXE];
	pid_t pids[READERS];
	unsigned int n, i;
	int fd, ret, st;

	fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fail(OR_ERRNOS, "open %s: %s", PCORE_DEVICE, strerror(errno));
		return;
	}
	for (i = 0; i < READERS; i++) {
		pids[i] = fork();
		if (!pids[i]) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			reader(i);
		}
	}
	ret = pcore_list(fd, e, PCORE_MAXE, &n);
	if (errno_ok(ret, 0, "LIST"))
		for (i = 0; i < n && i < PCORE_MAXE; i++)
			read_hist(fd, c, &e[i], ncpu);
	read_debugfs(PCORE_DBG);
	for (i = 0; i < READERS; i++) {
		if (pids[i] <= 0)
			continue;
		kill(pids[i], SIGKILL);
		waitpid(pids[i], &st, 0);
		if (!WIFSIGNALED(st))
			fail(WEXITSTATUS(st) == 4 ? OR_READS : OR_ERRNOS,
			     "interval reader %u stopped with %d", i,
			     WEXITSTATUS(st));
	}
	close(fd);
}

/* The handler module's keys: what was recorded, every reader agrees. */

/* What key @key should hold after one round. */
static unsigned long long api_want(const struct combo *c,
				   unsigned long long key)
{
	unsigned long long n = 0;
	unsigned int i;

	if ((c->api_mode == 2 && key == ~0ULL) ||
	    (c->api_mode == 1 && key >= c->api_slots))
		return 0;
	for (i = 0; i < c->api_nkeys; i++)
		if (c->api_keys[i] == key)
			n += c->api_reps[i];
	return n;
}

/* The counts of the debugfs keys file of @name added up, or -1ULL. */
static unsigned long long keys_file_sum(const char *name)
{
	static char text[PCORE_BUF];
	unsigned long long n, sum = 0;
	char path[256], *line, *save = NULL;

	snprintf(path, sizeof(path), PCORE_DBG "/%s/keys", name);
	if (pcore_read(path, text, sizeof(text)) < 0)
		return -1ULL;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		if (sscanf(line, "%*s %*s %llu", &n) != 1)
			return -1ULL;
		sum += n;
	}
	return sum;
}

/*
 * One round's keys, read by slot: every key shown holds what was
 * recorded under it, every key recorded is shown, and the slots add up
 * to the merged count and to what was recorded less what was dropped.
 */
static void api_check(int fd, const struct combo *c, const char *when,
		      unsigned long long dropped0)
{
	const char *name = APITEST "/fuzz";
	struct pcore_ioc_entry e;
	struct pcore_ioc_read r;
	unsigned long long shown = 0, added = 0, merged, want;
	unsigned int slot, i, found;
	bool seen_key[API_KEYS] = { false };
	int ret;

	if (!errno_ok(pcore_list_one(fd, name, &e), 0, "LIST apitest"))
		return;
	ret = rd(fd, name, -1, 0, 0, &r);
	if (!errno_ok(ret, 0, "READ apitest/fuzz"))
		return;
	merged = r.count;
	for (i = 0; i < c->api_nkeys; i++)
		added += c->api_reps[i];
	if (keys_file_sum(name) != merged)
		fail(OR_READS, "%s %s: its keys file shows %lld values, PCORE_IOC_READ %llu",
		     name, when, (long long)keys_file_sum(name), merged);
	/* Slot by slot, unless that is too slow: then the sums alone. */
	for (slot = 0; slot < e.nkeys && e.nkeys <= SLOTS_API; slot++) {
		ret = rd(fd, name, -1, PCORE_READ_KEY, slot, &r);
		if (!errno_ok(ret, 0, "READ apitest/fuzz slot"))
			return;
		if (!r.key_used) {
			if (r.count)
				fail(OR_READS, "%s %s: slot %u holds no key but %llu values",
				     name, when, slot, r.count);
			continue;
		}
		shown += r.count;
		want = api_want(c, r.key);
		for (i = 0, found = 0; i < c->api_nkeys; i++)
			if (c->api_keys[i] == r.key) {
				seen_key[i] = true;
				found = 1;
			}
		if (!found || r.count != want)
			fail(OR_READS, "%s %s: slot %u key %#llx holds %llu values, %llu recorded",
			     name, when, slot, r.key, r.count, want);
	}
	if (e.nkeys > SLOTS_API) {
		if (merged + r.dropped - dropped0 != added)
			fail(OR_READS, "%s %s: merged %llu, dropped %llu, recorded %llu",
			     name, when, merged, r.dropped - dropped0, added);
		return;
	}
	for (i = 0; i < c->api_nkeys; i++)
		if (!seen_key[i] && api_want(c, c->api_keys[i]) &&
		    !c->mem_max)
			fail(OR_READS, "%s %s: key %#llx (%llu values) is in no slot",
			     name, when, c->api_keys[i],
			     api_want(c, c->api_keys[i]));
	if (shown != merged || shown + r.dropped - dropped0 != added)
		fail(OR_READS, "%s %s: slots hold %llu values, merged %llu, dropped %llu, recorded %llu",
		     name, when, shown, merged, r.dropped - dropped0, added);
}

/*
 * Round one as loaded, a reset (the total stays), round two: each round
 * checked, and the total through both.
 */
static void api_rounds(const struct combo *c)
{
	const char *name = APITEST "/fuzz";
	unsigned long long t0, t1, t2, d;
	struct pcore_ioc_read r;
	int fd, ret;

	fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	api_check(fd, c, "after round 1", 0);
	ret = rd(fd, name, -1, PCORE_READ_TOTAL, 0, &r);
	t0 = ret ? 0 : r.count;
	ret = rd(fd, name, -1, PCORE_READ_RESET, 0, &r);
	errno_ok(ret, 0, "READ apitest/fuzz reset");
	ret = rd(fd, name, -1, PCORE_READ_TOTAL, 0, &r);
	t1 = ret ? 0 : r.count;
	ret = rd(fd, name, -1, 0, 0, &r);
	if (!ret && r.count)
		fail(OR_READS, "%s: %llu values right after a reset", name,
		     r.count);
	d = ret ? 0 : r.dropped;
	if (pcore_write("/sys/module/" APITEST "/parameters/fuzz_again", "1",
			1))
		fail(OR_ERRNOS, "fuzz_again: %s", strerror(errno));
	api_check(fd, c, "after a reset and round 2", d);
	ret = rd(fd, name, -1, PCORE_READ_TOTAL, 0, &r);
	t2 = ret ? 0 : r.count;
	if (t1 < t0 || t2 < t1)
		fail(OR_READS, "%s: the total went %llu, %llu (reset), %llu (round 2)",
		     name, t0, t1, t2);
	close(fd);
}

static int api_load(const struct combo *c)
{
	char p[1024], *q = p;
	unsigned int i;
	int ret;

	q += sprintf(q, "case=keys_fuzz fuzz_mode=%u fuzz_slots=%u fuzz_keys=",
		     c->api_mode, c->api_slots);
	for (i = 0; i < c->api_nkeys; i++)
		q += sprintf(q, "%s%#llx", i ? "," : "", c->api_keys[i]);
	q += sprintf(q, " fuzz_vals=");
	for (i = 0; i < c->api_nkeys; i++)
		q += sprintf(q, "%s%#llx", i ? "," : "", c->api_vals[i]);
	q += sprintf(q, " fuzz_reps=");
	for (i = 0; i < c->api_nkeys; i++)
		q += sprintf(q, "%s%u", i ? "," : "", c->api_reps[i]);
	ret = pcore_mod_load(APITEST, p);
	if (ret && ret != E2BIG && ret != ENOMEM)
		fail(OR_ERRNOS, "insmod %s %s: %s", APITEST, p, strerror(ret));
	return ret;
}

/* Attaches; the errnos a valid request may get. */
static void attach_all(const struct combo *c, int fd)
{
	struct pcore_ioc_attach a;
	struct pcore_ioc_entry e;
	unsigned int i;
	bool dup;
	int ret;

	for (i = 0; i < c->natt; i++) {
		a = c->att[i];
		/* a name given twice (as another attach's or the load's) */
		dup = !pcore_list_one(fd, a.name, &e);
		if (a.kind == PCORE_ATTACH_UPROBE)
			a.fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
		ret = pcore_ioc(fd, PCORE_IOC_ATTACH, &a);
		att_made[i] = !ret;
		if (a.kind == PCORE_ATTACH_UPROBE && a.fd >= 0)
			close(a.fd);
		/* E2BIG: over mem_max; ENOENT: not in this kernel */
		if (dup ? ret != EINVAL :
			  ret && ret != E2BIG && ret != ENOENT &&
			  !direct_busy(c, ret))
			fail(OR_ERRNOS, "ATTACH %s (kind %u%s): %s", a.name,
			     a.kind, dup ? ", a name in use" : "",
			     strerror(ret));
	}
}

static char kprobes0[PCORE_BUF], kprobes1[PCORE_BUF];

static void check_gone(void)
{
	if (pcore_loaded() || pcore_mod_loaded(APITEST))
		fail(OR_TEARDOWN, "a module is still loaded");
	if (!access(PCORE_DBG, F_OK))
		fail(OR_TEARDOWN, "%s is still there", PCORE_DBG);
	if (!access(PCORE_DEVICE, F_OK))
		fail(OR_TEARDOWN, "%s is still there", PCORE_DEVICE);
	if (pcore_read(KPROBES_LIST, kprobes1, sizeof(kprobes1)) >= 0 &&
	    strcmp(kprobes0, kprobes1))
		fail(OR_TEARDOWN, "kprobes left:\n%s", kprobes1);
}

static void run_combo(const struct combo *c, int kmsg, int ncpu)
{
	static char log[1 << 16];
	pid_t pids[16];
	static const char * const argv[] = {
		"/pcore/bin/probectl", "show", "profile", NULL
	};
	char out[256];
	bool api = false;
	int ret, fd, i;

	memset(att_made, 0, sizeof(att_made));
	ret = pcore_load(c->params);
	/* a function that is not there, a pid that is not, over mem_max */
	if (ret && ret != ENOENT && ret != ESRCH && ret != E2BIG &&
	    ret != EEXIST && !direct_busy(c, ret))
		fail(OR_ERRNOS, "insmod probe_core.ko %s: %s", c->params,
		     strerror(ret));
	if (ret && pcore_load(""))
		goto out;
	fd = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		attach_all(c, fd);
		close(fd);
	}
	if (c->api)
		api = !api_load(c);
	if (api)
		api_rounds(c);
	if (work_start(c, pids))
		fail(OR_ERRNOS, "fork: %s", strerror(errno));
	usleep(c->run_ms * 1000 / 2);
	if (c->hotplug)
		hotplug_cpu1();
	usleep(c->run_ms * 1000 / 2);
	read_all(c, ncpu);
	work_stop(c, pids);
	if (c->probectl && !access(argv[0], X_OK))
		pcore_run(argv, NULL, "/tmp/combo.out", out, sizeof(out));
	read_all(c, ncpu);
out:
	for (i = 0; i < 2; i++) {
		ret = pcore_mods_unload((const char * const []){ APITEST,
								 "probe_core" },
					2);
		if (!ret)
			break;
	}
	if (ret)
		fail(OR_TEARDOWN, "rmmod: %s", strerror(ret));
	check_gone();
	if (pcore_kmsg_bad(kmsg, log, sizeof(log)) > 0)
		fail(OR_REPORT, "seed %llu, the kernel said:\n%s", seed, log);
}

static unsigned long long env_num(const char *name, unsigned long long def)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : def;
}

/* combo_ufunc()'s offset in this program's file, from its mapping. */
static unsigned long long ufunc_offset(void)
{
	unsigned long long lo, hi, off, addr = (uintptr_t)combo_ufunc;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %*s %llx", &lo, &hi, &off) == 3 &&
		    addr >= lo && addr < hi) {
			fclose(f);
			return addr - lo + off;
		}
	fclose(f);
	return 0;
}

int main(void)
{
	static struct combo c;
	unsigned int first, n, i, o;
	const char *s = getenv("PCORE_SEED");
	int kmsg, ncpu = pcore_possible_cpus();
	double t0, t;

	seed = s && !strcmp(s, "time") ? (unsigned long long)time(NULL) :
					 env_num("PCORE_SEED", COMBO_SEED);
	n = env_num("PCORE_COMBOS", COMBO_DEFAULT);
	first = env_num("PCORE_FIRST", 0);
	hz_max = env_num("PCORE_HZ_MAX", HZ_MAX);
	printf("TAP version 13\n1..%d\n", OR_NR);
	printf("# seed %llu (replay: PCORE_SEED=%llu PCORE_FIRST=%u PCORE_COMBOS=%u; one: PCORE_FIRST=K PCORE_COMBOS=1)\n",
	       seed, seed, first, n);
	fflush(stdout);
	if (getenv("PCORE_DRY")) {
		for (i = first; i < first + n; i++) {
			combo_idx = i;
			gen_combo(&c, i);
			print_combo(&c);
		}
		return 0;
	}
	if (getuid() || access(pcore_ko(), R_OK)) {
		for (o = 0; o < OR_NR; o++)
			printf("ok %u %s # SKIP needs root and %s\n", o + 1,
			       oracle_names[o], pcore_ko());
		return KSFT_SKIP;
	}
	if (pcore_loaded())
		pcore_mods_unload((const char * const []){ APITEST,
							   "probe_core" }, 2);
	uprobe_offset = ufunc_offset();
	pcore_read(KPROBES_LIST, kprobes0, sizeof(kprobes0));
	kmsg = kmsg_open();
	t0 = pcore_now();
	for (i = first; i < first + n; i++) {
		combo_idx = i;
		gen_combo(&c, i);
		print_combo(&c);
		nseen = 0;
		kmsg_combo(&c);
		t = pcore_now();
		run_combo(&c, kmsg, ncpu > 0 ? ncpu : 1);
		printf("# combo %u: %.1f s\n", i, pcore_now() - t);
	}
	t = pcore_now() - t0;
	printf("# %u combinations in %.0f s (%.1f s each), seed %llu\n", n, t,
	       n ? t / n : 0, seed);
	for (o = 0; o < OR_NR; o++) {
		if (fails[o])
			printf("not ok %u %s # %u failures, the first in combination %ld\n",
			       o + 1, oracle_names[o], fails[o], first_fail[o]);
		else
			printf("ok %u %s\n", o + 1, oracle_names[o]);
	}
	for (o = 0; o < OR_NR; o++)
		if (fails[o])
			return 1;
	return 0;
}
