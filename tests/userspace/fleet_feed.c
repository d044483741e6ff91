// SPDX-License-Identifier: GPL-2.0
/*
 * fleet_feed: one "host" of the fleet test (tests/prometheus/fleet.sh).
 *
 *   fleet_feed HOST PHASE START_MS TIME_MS probectl-args...
 *   fleet_feed --values HOST FROM TO
 *   fleet_feed --bound
 *
 * The first form fills a fake /dev/probe_core (fake.c, over the engine the
 * module runs) as host HOST ("a" or "b") has it at PHASE, sets the fake's
 * wall clock to TIME_MS (ms since the epoch) and runs probectl's code on it
 * with the remaining arguments (export --remote-write URL ..., or export
 * --textfile-dir DIR); probectl's output and exit code are this program's.
 * The host's histogram was created a fixed time before START_MS (the
 * fleet's first phase), the same at every phase; host b loaded again
 * (phase 3) 1 s before TIME_MS.  The second form prints, one a line, the
 * values (ns) HOST recorded after PHASE FROM up to PHASE TO (FROM 0: from
 * its creation), for the test's exact percentiles.  The third prints the
 * relative error a quantile read from the exported native histogram may
 * have, at most: for the exp kind of schema S, a native bucket's hi / lo
 * - 1 = 2^(2^-S) - 1 (the exact value and the one read lie in the same
 * bucket); for the loglinear kind (until the tree has the exp kind), its
 * stated error plus a native bucket of schema 8, 2^(1/256) - 1, as remote
 * write maps it (userspace/remote_write.c).
 *
 * Each host has two histograms of the same values, in ns: "fleet/lat", of
 * the exp kind, schema FLEET_SCHEMA (the loglinear kind where the tree has
 * no exp kind yet), which the test checks, and "fleet/lat_loglinear", of
 * the default kind (loglinear, whose classic export has an "le" only at
 * powers of two), for the docs' comparison.  The host's values:
 *   phase 1: the first half of the host's values;
 *   phase 2: all of them (totals since creation only grow);
 *   phase 3: host "b" loaded again: a new creation time, FLEET_RELOAD
 *            new values (its totals drop); host "a" as at phase 2.
 * The values come from a fixed linear congruential generator: host "a"
 * mostly 20 to 420 us with 1 % from 1 to 5 ms, host "b" 50 us to 1 ms
 * with 2 % from 2 to 10 ms, so the union's p99 depends on both.
 *
 * And a third, "fleet/bycg", of the exp kind keyed by cgroup (key name
 * "cgroup", as :by=cgroup), exported by probectl's own code like the
 * others: per cgroup of cgroups[] on the host, that cgroup's count each
 * phase in one native bucket (schema 3), an interval read between two
 * phases (feed_cgroups()); at phase 2 its totals per cgroup are twice
 * the counts of cgroups[]; host b loaded again has once its counts.  For
 * the per-cgroup checks and the dashboard's per-cgroup panels.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fake.h"
#include "remote_write.h"

#define FLEET_SCHEMA	3
#define FLEET_RELOAD	10

struct host {
	const char *name;
	unsigned int n;			/* values by phase 2 */
	unsigned long long base, span;	/* most values: base + [0, span) */
	unsigned int tail_pct;		/* and this many % in the tail */
	unsigned long long tbase, tspan;
	unsigned long long seed;
	unsigned long long created_s;	/* before TIME_MS, seconds */
};

static const struct host hosts[] = {
	{ "a", 3000, 20000, 400000, 1, 1000000, 4000000, 12345, 100 },
	{ "b", 2000, 50000, 950000, 2, 2000000, 8000000, 67890, 50 },
};

static unsigned long long lcg(unsigned long long *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

/* The host's values from index @from to @to (phases 1 and 2). */
static void values(const struct host *h, unsigned int from, unsigned int to,
		   void (*fn)(void *arg, unsigned int i, unsigned long long v),
		   void *arg)
{
	unsigned long long s = h->seed, v;
	unsigned int i;

	for (i = 0; i < to; i++) {
		if (lcg(&s) % 100 < h->tail_pct)
			v = h->tbase + lcg(&s) % h->tspan;
		else
			v = h->base + lcg(&s) % h->span;
		if (i >= from)
			fn(arg, i, v);
	}
}

/* The reloaded host's values (phase 3). */
static void reload_values(void (*fn)(void *arg, unsigned int i,
				     unsigned long long v), void *arg)
{
	unsigned int i;

	for (i = 0; i < FLEET_RELOAD; i++)
		fn(arg, i, 100000 + 10000 * i);
}

static unsigned int upto(const struct host *h, unsigned int phase)
{
	return phase == 0 ? 0 : phase == 1 ? h->n / 2 : h->n;
}

static void print_value(void *arg, unsigned int i, unsigned long long v)
{
	printf("%llu\n", v);
}

static void record_value(void *arg, unsigned int i, unsigned long long v)
{
	fake_record(arg, i % 2, 0, v);
}

static const struct host *find_host(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hosts); i++)
		if (!strcmp(hosts[i].name, name))
			return &hosts[i];
	fprintf(stderr, "fleet_feed: no host %s\n", name);
	exit(2);
}

static int print_values(const char *name, unsigned int from, unsigned int to)
{
	const struct host *h = find_host(name);

	if (to == 3 && h == &hosts[1]) {	/* a new histogram */
		reload_values(print_value, NULL);
		return 0;
	}
	if (to == 3)
		to = 2;
	if (from == 3)
		from = 2;
	values(h, upto(h, from), upto(h, to), print_value, NULL);
	return 0;
}

static const struct pcore_hist_spec spec = {
#ifdef PCORE_UAPI_HIST_EXP
	.kind = PCORE_HIST_EXP, .precision = FLEET_SCHEMA,
#else
	.kind = PCORE_HIST_LOGLINEAR,
#endif
};

/* fleet/bycg: per host and cgroup, values per phase in one native bucket */
static const struct {
	const char *host, *cgroup;
	unsigned long long key;	/* its cgroup id on that host */
	unsigned int n;		/* values per phase */
	int idx;		/* their native bucket, schema 3 */
} cgroups[] = {
	{ "a", "/system.slice/nginx.service", 4242, 300, 100 },
	{ "a", "/user.slice", 1717, 100, 120 },
	{ "b", "/system.slice/nginx.service", 5151, 200, 104 },
	{ "b", "/system.slice/postgres.service", 6262, 50, 130 },
};

/*
 * fleet/bycg of host @h at @phase, into @fh (keyed by cgroup, a slot per
 * cgroup of cgroups[]): each phase's values with an interval read (the
 * keys' records emptied, as a harvest does) after each phase but the
 * last, so the export's totals come from the totals per cgroup; host b
 * loaded again (phase 3): a new histogram, one phase's values.
 */
static void feed_cgroups(const struct host *h, unsigned int phase,
			 bool reloaded, struct fake_hist *fh)
{
	unsigned int i, p, k, c, slot = 0;
	unsigned long long v;

	if (phase > 2)
		phase = reloaded ? 1 : 2;
	for (i = 0; i < ARRAY_SIZE(cgroups); i++) {
		if (strcmp(cgroups[i].host, h->name))
			continue;
		fake_key(fh, slot, cgroups[i].key, cgroups[i].cgroup);
		/* native bucket idx: (2^((idx-1)/8), 2^(idx/8)] */
		v = (unsigned long long)floor(pow(2, cgroups[i].idx / 8.0));
		for (p = 1; p <= phase; p++) {
			for (k = 0; k < cgroups[i].n; k++)
				fake_record(fh, k % 2, slot, v);
			if (p == phase)
				break;
			for (c = 0; c < FAKE_CPUS; c++)	/* interval read */
				pcore_cpu_hist_init(&fh->l, fh->slot[slot].cpu[c]);
		}
		slot++;
	}
}

static const struct pcore_hist_spec loglinear = {
	.kind = PCORE_HIST_LOGLINEAR,
};

static int print_bound(void)
{
#ifdef PCORE_UAPI_HIST_EXP
	printf("%.9f\n", pow(2, pow(2, -FLEET_SCHEMA)) - 1);
#else
	struct pcore_layout l;
	const char *why;
	u64 abs_err;

	if (pcore_layout_init(&l, &spec, &why))
		return 1;
	printf("%.9f\n", pcore_layout_error_ppm(&l, &abs_err) / 1e6 +
	       pow(2, 1.0 / 256) - 1);
#endif
	return 0;
}

int main(int argc, char **argv)
{
	static struct fake f;
	struct pc_env env = { 0 };
	const struct host *h;
	struct fake_hist *fh;
	unsigned long long start, ms;
	unsigned int phase, i;
	bool reloaded;
	int ret;

	if (argc == 5 && !strcmp(argv[1], "--values"))
		return print_values(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (argc == 2 && !strcmp(argv[1], "--bound"))
		return print_bound();
	if (argc < 6) {
		fprintf(stderr, "usage: fleet_feed HOST PHASE START_MS TIME_MS probectl-args...\n"
			"       fleet_feed --values HOST FROM TO\n"
			"       fleet_feed --bound\n");
		return 2;
	}
	h = find_host(argv[1]);
	phase = atoi(argv[2]);
	start = strtoull(argv[3], NULL, 10);
	ms = strtoull(argv[4], NULL, 10);
	if (phase < 1 || phase > 3 || start > ms ||
	    start / 1000 < 1735787045ULL + 3600) {
		fprintf(stderr, "fleet_feed: bad phase %s or times %s %s\n",
			argv[2], argv[3], argv[4]);
		return 2;
	}
	reloaded = phase == 3 && h == &hosts[1];
	for (i = 0; i < 2; i++) {
		fh = fake_add(&f, i ? "fleet/lat_loglinear" : "fleet/lat",
			      "kretprobe", "vfs_read", "ns",
			      PCORE_ENT_HAS_PROBE, i ? &loglinear : &spec,
			      "", 1);
		/* created_s before START_MS; loaded again 1 s before TIME_MS */
		fh->created_ns = (reloaded ? ms / 1000 - 1 :
				  start / 1000 - h->created_s) * 1000000000ULL;
		if (reloaded)
			reload_values(record_value, fh);
		else
			values(h, 0, upto(h, phase > 2 ? 2 : phase),
			       record_value, fh);
		fh->e.hits = fh->e.count;
	}
	fh = fake_add(&f, "fleet/bycg", "kretprobe", "vfs_read", "ns",
		      PCORE_ENT_HAS_PROBE, &spec, "cgroup", 4);
	fh->created_ns = f.h[0].created_ns;
	feed_cgroups(h, phase, reloaded, fh);
	fh->e.hits = fh->e.count;
	fake_env(&env, &f);
	/* the fake's wall clock is 2025-01-02T03:04:05Z + its monotonic one */
	f.mono_ns = (ms - 1735787045000ULL) * 1000000ULL;
	env.out = stdout;
	env.err = stderr;
	argv[4] = "probectl";
	ret = pc_run(argc - 4, argv + 4, &env);
	fake_free(&f);
	return ret;
}
