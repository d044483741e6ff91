// SPDX-License-Identifier: GPL-2.0
/*
 * probectl export --remote-write URL: every histogram, as a Prometheus
 * native histogram, in one remote write 1.0 request.
 *
 * The request (prompb/remote.proto, compiled by protoc-c when probectl is
 * built) is a prometheus.WriteRequest: one TimeSeries per histogram with
 * one native Histogram sample, and float samples for the counters and the
 * gauge of the textfile export.  Its encoding is compressed with snappy's
 * block format (not the framed one) and POSTed with
 *   Content-Encoding: snappy
 *   Content-Type: application/x-protobuf
 *   X-Prometheus-Remote-Write-Version: 0.1.0
 * as the protocol asks.  Every series is labelled, sorted by name:
 * __name__, instance (--instance, default the host's name), job (--job,
 * default probe_core) and probe (the histogram's name, as in the textfile
 * export), their values made valid UTF-8 (pc_utf8_fix()).  All samples
 * have one timestamp: now, in ms.
 *
 * Names and units.  A histogram whose unit is ns is sent in nanoseconds,
 * as probe_core_latency_nanoseconds, where the textfile export says
 * probe_core_latency_seconds: a native bucket is (base^(i-1), base^i] in
 * the metric's unit, and 10^-9 is no power of two, so a bucket in ns is
 * no bucket in seconds: converting would rebin every bucket across two
 * native ones and lose the exactness an exp kind promises.  Other units
 * keep the textfile's family, probe_core_value_<unit>.
 *
 * Counts.  As the textfile export: everything since each histogram was
 * created (PCORE_READ_TOTAL); interval reads and resets do not lower it.
 * A histogram created again (module reloaded, probe attached again)
 * starts from zero: Prometheus sees a counter reset, because its count or
 * a bucket's went down.  Every histogram is sent with reset_hint UNKNOWN,
 * which tells the receiver to make that comparison: probectl keeps no
 * state between runs, so it cannot tell "reset" (YES) from "no reset"
 * (NO) itself.  probe_core_created_timestamp_seconds, sent as in the
 * textfile export, tells a reload whose new counts overtook the old ones
 * before the next push (then no count went down).
 *
 * How each kind becomes a native histogram of schema s (bucket i holds
 * (2^((i-1)/2^s), 2^(i/2^s)]; the zero bucket, threshold 0, holds 0):
 *   exp:S      schema S, as it is: its buckets are the native ones
 *              (pcore_exp_native() gives each position's index), no
 *              rebinning and no error beyond the kind's own.  The overflow
 *              bucket (values above max, when max is not in the bucket
 *              that ends at 2^64) goes to the native bucket after the
 *              last, whose lower bound all its values exceed: a quantile
 *              there reads "just above max".
 *   log2       schema 0.  The log2 bucket [2^(i-1), 2^i) holds the integers
 *              2^(i-1) .. 2^i - 1, native bucket i holds (2^(i-1), 2^i]:
 *              all of them but 2^(i-1) itself, which is native bucket
 *              i-1's top.  The whole log2 bucket goes to native bucket i
 *              (the one of its largest value); the value 2^(i-1) is then
 *              one bucket high, the only error: a quantile read from the
 *              native histogram is within a factor of 2 of the exact one,
 *              as it is from the log2 histogram itself.  [0, 1) (the
 *              value 0) is the zero bucket; [1, 2) is native bucket 0,
 *              (0.5, 1], exactly.
 *   loglinear  schema 8, the finest.  A loglinear sub-bucket is linear
 *              inside its octave, native buckets are geometric: only the
 *              octave bounds line up.  Each sub-bucket's count goes to
 *              the native bucket holding its midpoint (lo + top) / 2.  A
 *              quantile whose exact value v lies in a sub-bucket is then
 *              read inside the native bucket of the midpoint: at most half
 *              the sub-bucket's width, 2^-(P+1) of v (P the precision: the
 *              loglinear kind's own error) plus one native bucket of
 *              schema 8 (2^(1/256) - 1 < 0.28 %) from v.  Schema P, whose
 *              octaves have as many buckets, would add a whole native
 *              bucket of schema P (0.69 / 2^P) instead; the schema 8
 *              buckets cost nothing where empty (only buckets holding
 *              values are sent).  Splitting a count across the native
 *              buckets it overlaps would guess where the values lay; the
 *              midpoint bounds the error by half a sub-bucket.
 *   linear     schema 8, midpoints, as loglinear: a quantile within half a
 *              step (plus 0.28 %) of the exact one.  The bucket below MIN
 *              goes to its midpoint too; the bucket from MAX up (no upper
 *              end) to the native bucket of MAX: a quantile there reads as
 *              about MAX, meaning "MAX or more".
 *   count      no values: no histogram.  Its count is a counter,
 *              <family>_count, as the textfile export names it.
 * Every mapping keeps the count and the sum exactly (the sum is the
 * engine's, not recomputed from buckets).
 */
#include <curl/curl.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <snappy-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "format.h"
#include "pcore_engine.h"
#include "remote_write.h"
#include "remote.pb-c.h"

#define U64_MAX_VAL	(~0ULL)

static bool kind_is(const struct pc_hist *h, const char *kind)
{
	return !strncmp(h->e.hist_kind, kind, sizeof(h->e.hist_kind));
}

/**
 * pc_native_index() - the native bucket of a value
 * @schema: 0 to 8
 * @v: a value above 0
 * @idx: out: i such that v is in (base^(i-1), base^i], base 2^(2^-schema)
 *
 * As Prometheus does it: v = f * 2^e with f in [0.5, 1) (frexp), and the
 * first of the 2^schema bounds 2^(j/2^schema - 1) of [0.5, 1) that is not
 * below f gives the bucket inside the octave.
 *
 * Return: 0, or -EINVAL for a schema or value out of range.
 */
int pc_native_index(int schema, double v, long long *idx)
{
	unsigned int lo, hi, n;
	double f;
	int e;

	if (schema < 0 || schema > 8 || !(v > 0) || isinf(v))
		return -EINVAL;
	f = frexp(v, &e);
	if (!schema) {
		*idx = f == 0.5 ? e - 1 : e;
		return 0;
	}
	n = 1U << schema;
	lo = 0;
	hi = n;		/* the answer is in [lo, hi]; n: none of them */
	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;

		if (exp2((double)mid / n - 1) >= f)
			hi = mid;
		else
			lo = mid + 1;
	}
	*idx = lo + (long long)(e - 1) * n;
	return 0;
}

void pc_native_free(struct pc_native *nat)
{
	free(nat->idx);
	free(nat->cnt);
	nat->idx = NULL;
	nat->cnt = NULL;
	nat->n = 0;
}

/* log2: the native bucket of the bucket's largest value, exactly */
static long long log2_index(unsigned long long top)
{
	return top <= 1 ? 0 : 64 - __builtin_clzll(top - 1);
}

/**
 * pc_native_of() - a histogram's snapshot as a native histogram
 * @h: the histogram (its kind)
 * @s: the snapshot (its buckets)
 * @nat: out: the native histogram (pc_native_free() it)
 *
 * The mapping of each kind is the one the comment at the top of this file
 * states.
 *
 * Return: 0, -ENOMEM, or -EINVAL for a count histogram (no values).
 */
int pc_native_of(const struct pc_hist *h, const struct pc_snap *s,
		 struct pc_native *nat)
{
	bool log2 = kind_is(h, "log2"), linear = kind_is(h, "linear");
	int exp = pc_hist_schema(&h->e);
	unsigned int i;

	memset(nat, 0, sizeof(*nat));
	if (kind_is(h, "count"))
		return -EINVAL;
	nat->schema = exp >= 0 ? exp : log2 ? 0 : PC_NATIVE_FINE_SCHEMA;
	nat->idx = calloc(s->r.nbuckets + 1, sizeof(*nat->idx));
	nat->cnt = calloc(s->r.nbuckets + 1, sizeof(*nat->cnt));
	if (!nat->idx || !nat->cnt) {
		pc_native_free(nat);
		return -ENOMEM;
	}
	for (i = 0; i < s->r.nbuckets; i++) {
		const struct pcore_ioc_bucket *b = &s->b[i];
		unsigned long long top;
		long long idx;
		double r;

		if (!b->count || b->hi == b->lo)
			continue;
		nat->count += b->count;
		if (exp >= 0) {
			int ni;

			if (pcore_exp_native(i, s->r.nbuckets, exp, &ni) ==
			    PCORE_EXP_ZERO) {
				nat->zero += b->count;
				continue;
			}
			idx = ni;	/* a bucket, or the overflow's next */
			goto add;
		}
		/* the bucket's values: lo to top */
		top = b->hi == U64_MAX_VAL ? U64_MAX_VAL : b->hi - 1;
		if (!top) {
			nat->zero += b->count;
			continue;
		}
		if (log2) {
			idx = log2_index(top);
		} else {
			if (linear && b->hi == U64_MAX_VAL && b->lo)
				r = (double)b->lo;	/* MAX or more */
			else
				r = ((double)b->lo + (double)top) / 2;
			if (pc_native_index(nat->schema, r, &idx)) {
				pc_native_free(nat);
				return -EINVAL;
			}
		}
add:
		if (nat->n && nat->idx[nat->n - 1] == idx) {
			nat->cnt[nat->n - 1] += b->count;
			continue;
		}
		if (nat->n && nat->idx[nat->n - 1] > idx) {
			/* bounds ascend, and so do their native buckets */
			pc_native_free(nat);
			return -EINVAL;
		}
		nat->idx[nat->n] = idx;
		nat->cnt[nat->n++] = b->count;
	}
	return 0;
}

/* ---- the request ---- */

#define RW_LABELS	8

/* One series, with the room its message points into. */
struct rw_series {
	Prometheus__TimeSeries ts;
	Prometheus__Label lab[RW_LABELS];
	struct Prometheus__Label *labp[RW_LABELS];
	Prometheus__Sample smp;
	Prometheus__Sample *smpp;
	Prometheus__Histogram hist;
	Prometheus__Histogram *histp;
	Prometheus__BucketSpan *spans;
	Prometheus__BucketSpan **spanp;
	int64_t *deltas;
	char name[96];
	char probe[PCORE_UAPI_NAME_MAX + 1];
	char key[24];
	char cgroup[PCORE_UAPI_LABEL_MAX + 1];
};

struct rw_req {
	struct rw_series **s;
	unsigned int n, room;
	const struct pc_rw_opts *o;
	char instance[256];
	char job[256];
};

/*
 * pc_utf8_fix() - make @s valid UTF-8: each byte that does not start or
 * continue a well-formed sequence (RFC 3629: no overlong forms, no
 * surrogates, nothing above U+10FFFF) becomes '?'.  Protobuf strings and
 * Prometheus label values are UTF-8, a receiver may refuse a request
 * with one that is not, and one request carries every series: a uprobe's
 * file name with a Latin-1 byte must not cost the whole push.
 *
 * Return: how many bytes were replaced.
 */
unsigned int pc_utf8_fix(char *s)
{
	unsigned char *p = (unsigned char *)s;
	unsigned int fixed = 0;

	while (*p) {
		unsigned int n, i, cp;

		if (*p < 0x80) {
			p++;
			continue;
		}
		if (*p >= 0xc2 && *p <= 0xdf) {
			n = 1;
			cp = *p & 0x1f;
		} else if (*p >= 0xe0 && *p <= 0xef) {
			n = 2;
			cp = *p & 0x0f;
		} else if (*p >= 0xf0 && *p <= 0xf4) {
			n = 3;
			cp = *p & 0x07;
		} else {
			n = 0;
			cp = 0;
		}
		for (i = 1; n && i <= n; i++) {
			if ((p[i] & 0xc0) != 0x80) {
				n = 0;
				break;
			}
			cp = cp << 6 | (p[i] & 0x3f);
		}
		if (n && ((n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
			  (n == 3 && (cp < 0x10000 || cp > 0x10ffff))))
			n = 0;
		if (!n) {
			*p++ = '?';
			fixed++;
			continue;
		}
		p += n + 1;
	}
	return fixed;
}

static void series_free(struct rw_series *s)
{
	free(s->spans);
	free(s->spanp);
	free(s->deltas);
	free(s);
}

static int label_cmp(const void *a, const void *b)
{
	const Prometheus__Label *x = *(Prometheus__Label *const *)a;
	const Prometheus__Label *y = *(Prometheus__Label *const *)b;

	return strcmp(x->name, y->name);
}

/*
 * A new series @name{instance, job, probe=@h's name}, in @q; of cgroup
 * @k's total (or NULL) with key="<id>" and cgroup="<path>" too.
 */
static struct rw_series *series_new(struct rw_req *q, const char *name,
				    const struct pc_hist *h,
				    const struct pc_snap *k)
{
	struct rw_series *s, **more;
	unsigned int n = 0;

	if (q->n == q->room) {
		more = realloc(q->s, (q->room * 2 + 16) * sizeof(*more));
		if (!more)
			return NULL;
		q->s = more;
		q->room = q->room * 2 + 16;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	q->s[q->n++] = s;
	prometheus__time_series__init(&s->ts);
	snprintf(s->name, sizeof(s->name), "%s", name);
	snprintf(s->probe, sizeof(s->probe), "%.*s",
		 (int)strnlen(h->e.name, sizeof(h->e.name)), h->e.name);
	pc_utf8_fix(s->probe);
#define LABEL(k, v) do {						\
		prometheus__label__init(&s->lab[n]);			\
		s->lab[n].name = (char *)(k);				\
		s->lab[n].value = (char *)(v);				\
		s->labp[n] = &s->lab[n];				\
		n++;							\
	} while (0)
	LABEL("__name__", s->name);
	if (q->instance[0])
		LABEL("instance", q->instance);
	if (q->job[0])
		LABEL("job", q->job);
	LABEL("probe", s->probe);
	if (k) {
		snprintf(s->key, sizeof(s->key), "%llu", k->r.key);
		LABEL("key", s->key);
		snprintf(s->cgroup, sizeof(s->cgroup), "%.*s",
			 (int)strnlen(k->r.label, sizeof(k->r.label)),
			 k->r.label);
		pc_utf8_fix(s->cgroup);
		LABEL(pc_fmt_prom_label_name(h), s->cgroup);
	}
#undef LABEL
	qsort(s->labp, n, sizeof(s->labp[0]), label_cmp);
	s->ts.n_labels = n;
	s->ts.labels = s->labp;
	return s;
}

static int add_float_key(struct rw_req *q, const char *name,
			 const struct pc_hist *h, const struct pc_snap *k,
			 double v);

static int add_float(struct rw_req *q, const char *name,
		     const struct pc_hist *h, double v)
{
	return add_float_key(q, name, h, NULL, v);
}

/* A float sample of series @name, of cgroup @k's total when not NULL. */
static int add_float_key(struct rw_req *q, const char *name,
			 const struct pc_hist *h, const struct pc_snap *k,
			 double v)
{
	struct rw_series *s = series_new(q, name, h, k);

	if (!s)
		return -ENOMEM;
	prometheus__sample__init(&s->smp);
	s->smp.value = v;
	s->smp.timestamp = q->o->ts_ms;
	s->smpp = &s->smp;
	s->ts.n_samples = 1;
	s->ts.samples = &s->smpp;
	return 0;
}

/* The native histogram @nat as the sample of a new series. */
static int add_native(struct rw_req *q, const char *name,
		      const struct pc_hist *h, const struct pc_snap *k,
		      const struct pc_native *nat, double sum)
{
	struct rw_series *s = series_new(q, name, h, k);
	Prometheus__Histogram *m;
	unsigned int i, ns = 0;
	unsigned long long prev = 0;

	if (!s)
		return -ENOMEM;
	m = &s->hist;
	prometheus__histogram__init(m);
	m->count_case = PROMETHEUS__HISTOGRAM__COUNT_COUNT_INT;
	m->count_int = nat->count;
	m->sum = sum;
	m->schema = nat->schema;
	m->zero_threshold = 0;
	m->zero_count_case = PROMETHEUS__HISTOGRAM__ZERO_COUNT_ZERO_COUNT_INT;
	m->zero_count_int = nat->zero;
	m->reset_hint = PROMETHEUS__HISTOGRAM__RESET_HINT__UNKNOWN;
	m->timestamp = q->o->ts_ms;
	s->spans = calloc(nat->n + 1, sizeof(*s->spans));
	s->spanp = calloc(nat->n + 1, sizeof(*s->spanp));
	s->deltas = calloc(nat->n + 1, sizeof(*s->deltas));
	if (!s->spans || !s->spanp || !s->deltas)
		return -ENOMEM;
	/*
	 * A span per run of consecutive indices; its offset is the gap from
	 * the previous span's end (the first's: its first index).
	 */
	for (i = 0; i < nat->n; i++) {
		if (!i || nat->idx[i] != nat->idx[i - 1] + 1) {
			prometheus__bucket_span__init(&s->spans[ns]);
			s->spans[ns].offset = i ? nat->idx[i] - nat->idx[i - 1] - 1 :
					      nat->idx[i];
			s->spanp[ns] = &s->spans[ns];
			ns++;
		}
		s->spans[ns - 1].length++;
		s->deltas[i] = (int64_t)(nat->cnt[i] - prev);
		prev = nat->cnt[i];
	}
	m->n_positive_spans = ns;
	m->positive_spans = s->spanp;
	m->n_positive_deltas = nat->n;
	m->positive_deltas = s->deltas;
	s->histp = m;
	s->ts.n_histograms = 1;
	s->ts.histograms = &s->histp;
	return 0;
}

/* The family of @h's unit; ns in nanoseconds (see the top comment). */
static void rw_metric_name(char *buf, size_t len, const struct pc_hist *h)
{
	if (!strcmp(h->e.unit, "ns"))
		snprintf(buf, len, "probe_core_latency_nanoseconds");
	else
		pc_fmt_metric_name(buf, len, h->e.unit);
}

/* One series of @h: its merged total @s, or cgroup @k's (@s is @k). */
static int add_series(struct rw_req *q, const struct pc_hist *h,
		      const struct pc_snap *s, const struct pc_snap *k)
{
	struct pc_native nat;
	char name[80];
	int ret;

	rw_metric_name(name, sizeof(name), h);
	if (kind_is(h, "count")) {
		strcat(name, "_count");
		return add_float_key(q, name, h, k, (double)s->r.count);
	}
	ret = pc_native_of(h, s, &nat);
	if (!ret)
		ret = add_native(q, name, h, k, &nat, (double)s->r.sum);
	pc_native_free(&nat);
	return ret;
}

/*
 * A histogram's series: its total, or with @h->cg_totals one per cgroup
 * and no merged one (as the textfile export: pc_fmt_prom()).
 */
static int add_hist(struct rw_req *q, const struct pc_hist *h)
{
	unsigned int k;
	int ret = 0;

	if (!h->cg_totals)
		return add_series(q, h, &h->total, NULL);
	for (k = 0; k < h->nkeys && !ret; k++)
		ret = add_series(q, h, &h->keys[k], &h->keys[k]);
	return ret;
}

/**
 * pc_rw_encode() - the remote write request of histograms, encoded
 * @h: histograms, each since its creation (pc_dev_hist_total())
 * @n: how many
 * @o: labels and timestamp
 * @body: out: the WriteRequest's protobuf encoding (free() it)
 * @len: out: its length
 *
 * One series per histogram (a native histogram, or a count's counter),
 * for a histogram keyed by cgroup one per cgroup (key="<id>",
 * cgroup="<path>") and no merged one, then as the textfile export:
 * probe_core_probe_hits_total and
 * probe_core_probe_missed_total for histograms fed by a probe,
 * probe_core_dropped_total for keyed ones, probe_core_cgroup_lost_total
 * for those keyed by cgroup, the gauge
 * probe_core_created_timestamp_seconds of every histogram.
 *
 * Return: 0, or -errno.
 */
int pc_rw_encode(const struct pc_hist *h, unsigned int n,
		 const struct pc_rw_opts *o, void **body, size_t *len)
{
	Prometheus__WriteRequest wr = PROMETHEUS__WRITE_REQUEST__INIT;
	Prometheus__TimeSeries **ts = NULL;
	struct rw_req q = { .o = o };
	unsigned int i;
	int ret = 0;

	*body = NULL;
	snprintf(q.instance, sizeof(q.instance), "%s", o->instance ? o->instance : "");
	snprintf(q.job, sizeof(q.job), "%s", o->job ? o->job : "");
	pc_utf8_fix(q.instance);
	pc_utf8_fix(q.job);
	for (i = 0; i < n && !ret; i++)
		ret = add_hist(&q, &h[i]);
	for (i = 0; i < n && !ret; i++) {
		if (h[i].e.flags & PCORE_ENT_HAS_PROBE) {
			ret = add_float(&q, "probe_core_probe_hits_total", &h[i],
					(double)h[i].e.hits);
			if (!ret)
				ret = add_float(&q, "probe_core_probe_missed_total",
						&h[i], (double)h[i].e.missed);
		}
		if (!ret && (h[i].e.key_name[0] || h[i].e.nkeys > 1))
			ret = add_float(&q, "probe_core_dropped_total", &h[i],
					(double)h[i].total.r.dropped);
		if (!ret && h[i].cg_totals)
			ret = add_float(&q, "probe_core_cgroup_lost_total",
					&h[i], (double)h[i].total.r.lost);
		if (!ret)
			ret = add_float(&q, "probe_core_created_timestamp_seconds",
					&h[i], h[i].total.r.created_ns / 1e9);
	}
	if (!ret) {
		ts = calloc(q.n + 1, sizeof(*ts));
		if (!ts)
			ret = -ENOMEM;
	}
	if (!ret) {
		for (i = 0; i < q.n; i++)
			ts[i] = &q.s[i]->ts;
		wr.n_timeseries = q.n;
		wr.timeseries = ts;
		*len = prometheus__write_request__get_packed_size(&wr);
		*body = malloc(*len ? *len : 1);
		if (*body)
			prometheus__write_request__pack(&wr, *body);
		else
			ret = -ENOMEM;
	}
	free(ts);
	for (i = 0; i < q.n; i++)
		series_free(q.s[i]);
	free(q.s);
	return ret;
}

/* ---- the push ---- */

/**
 * pc_rw_url_shown() - a URL as error messages show it: without a password
 * @buf: output
 * @len: size of @buf
 * @url: the URL, maybe http://user:password@host/...
 */
void pc_rw_url_shown(char *buf, size_t len, const char *url)
{
	const char *host = strstr(url, "://"), *at, *end;

	if (host) {
		host += 3;
		end = host + strcspn(host, "/?#");
		at = memchr(host, '@', end - host);
		if (at) {
			snprintf(buf, len, "%.*s***@%s", (int)(host - url), url,
				 at + 1);
			return;
		}
	}
	snprintf(buf, len, "%s", url);
}

/* The start of the receiver's answer, for the message: its first line. */
struct rw_answer {
	char text[200];
	size_t len;
};

static size_t rw_answer_write(char *p, size_t size, size_t nmemb, void *arg)
{
	struct rw_answer *a = arg;
	size_t n = size * nmemb, room = sizeof(a->text) - 1 - a->len;

	memcpy(a->text + a->len, p, n < room ? n : room);
	a->len += n < room ? n : room;
	a->text[a->len] = '\0';
	return n;
}

/*
 * HTTP by libcurl rather than a client of our own: a remote write
 * endpoint is usually behind TLS (https://, with the system's CA
 * certificates), often asks for authentication (user:password@ in the
 * URL: basic auth) and is reached through the proxies the environment
 * names (https_proxy, no_proxy); a small HTTP/1.1 client would do none
 * of that, and TLS is not something to write again.  Only http and https
 * are allowed, redirects are not followed (a POST's body is not sent
 * again), and a push that takes more than 30 s fails.
 *
 * libcurl is opened when a push runs (dlopen), not linked, as libkmod
 * is (kmod.c): with its TLS, HTTP/2, SSH, LDAP and Kerberos libraries it
 * is some 20 MB and 30 libraries to load and relocate at the start of
 * every probectl command, which but this one never use.
 */
#define PC_CURL_LIB	"libcurl.so.4"

static struct {
	__typeof__(&curl_global_init) global_init;
	__typeof__(&curl_easy_init) easy_init;
	__typeof__(&curl_easy_setopt) easy_setopt;
	__typeof__(&curl_easy_perform) easy_perform;
	__typeof__(&curl_easy_getinfo) easy_getinfo;
	__typeof__(&curl_easy_cleanup) easy_cleanup;
	__typeof__(&curl_easy_strerror) easy_strerror;
	__typeof__(&curl_slist_append) slist_append;
	__typeof__(&curl_slist_free_all) slist_free_all;
} cu;

static const struct {
	const char *name;
	void **ptr;
} pc_curl_syms[] = {
	{ "curl_global_init", (void **)&cu.global_init },
	{ "curl_easy_init", (void **)&cu.easy_init },
	{ "curl_easy_setopt", (void **)&cu.easy_setopt },
	{ "curl_easy_perform", (void **)&cu.easy_perform },
	{ "curl_easy_getinfo", (void **)&cu.easy_getinfo },
	{ "curl_easy_cleanup", (void **)&cu.easy_cleanup },
	{ "curl_easy_strerror", (void **)&cu.easy_strerror },
	{ "curl_slist_append", (void **)&cu.slist_append },
	{ "curl_slist_free_all", (void **)&cu.slist_free_all },
};

/* libcurl opened and initialised once; 0, or -1 with @why set. */
static int curl_open(char *why, size_t whylen)
{
	static bool done;
	const char *err;
	unsigned int i;
	void *lib;

	if (done)
		return 0;
	lib = dlopen(PC_CURL_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		err = dlerror();
		snprintf(why, whylen, "cannot open %s (libcurl4): %s",
			 PC_CURL_LIB, err ? err : "?");
		return -1;
	}
	for (i = 0; i < ARRAY_SIZE(pc_curl_syms); i++) {
		*pc_curl_syms[i].ptr = dlsym(lib, pc_curl_syms[i].name);
		if (!*pc_curl_syms[i].ptr) {
			snprintf(why, whylen, "%s has no %s", PC_CURL_LIB,
				 pc_curl_syms[i].name);
			dlclose(lib);
			return -1;
		}
	}
	if (cu.global_init(CURL_GLOBAL_DEFAULT)) {
		snprintf(why, whylen, "libcurl cannot start");
		dlclose(lib);
		return -1;
	}
	done = true;	/* libcurl stays loaded: the process is short */
	return 0;
}

#define RW_CONNECT_TIMEOUT	10L
#define RW_TIMEOUT		30L

/**
 * pc_rw_post() - one remote write request, compressed and sent
 * @url: http:// or https://
 * @body: the WriteRequest's encoding
 * @len: its length
 * @why: out: on failure, why, in one line
 * @whylen: size of @why
 *
 * Nothing is retried: the totals since creation go again with the next
 * run (the timer's, 15 s later), so a push that fails loses one point of
 * the series and no count.  A 5xx (the receiver's trouble) or a
 * connection failure is what Prometheus's own remote write would retry,
 * a 4xx (the request is refused) is not; @why says which.
 *
 * Return: 0 for a 2xx answer, else -EIO (-ENOMEM, -EINVAL, -ENOENT: no
 *	libcurl).
 */
int pc_rw_post(const char *url, const void *body, size_t len, char *why,
	       size_t whylen)
{
	struct curl_slist *hdr = NULL, *l;
	struct rw_answer ans = { .len = 0 };
	char cerr[CURL_ERROR_SIZE] = "";
	size_t zlen = snappy_max_compressed_length(len);
	char *z = malloc(zlen ? zlen : 1);
	long status = 0;
	CURLcode cr;
	CURL *c;
	int ret = -EIO;

	why[0] = '\0';
	if (!z) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	if (snappy_compress(body, len, z, &zlen) != SNAPPY_OK) {
		free(z);
		snprintf(why, whylen, "snappy cannot compress the request");
		return -EINVAL;
	}
	if (curl_open(why, whylen)) {
		free(z);
		return -ENOENT;
	}
	c = cu.easy_init();
	if (!c) {
		free(z);
		snprintf(why, whylen, "libcurl cannot start");
		return -ENOMEM;
	}
	static const char *const headers[] = {
		"Content-Encoding: snappy",
		"Content-Type: application/x-protobuf",
		"X-Prometheus-Remote-Write-Version: 0.1.0",
		"User-Agent: probectl",
		"Expect:",	/* no 100-continue round trip */
	};
	for (unsigned int i = 0; i < ARRAY_SIZE(headers); i++) {
		l = cu.slist_append(hdr, headers[i]);
		if (!l) {
			snprintf(why, whylen, "out of memory");
			ret = -ENOMEM;
			goto out;
		}
		hdr = l;
	}
	cu.easy_setopt(c, CURLOPT_URL, url);
	cu.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	cu.easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
	cu.easy_setopt(c, CURLOPT_POST, 1L);
	cu.easy_setopt(c, CURLOPT_POSTFIELDS, z);
	cu.easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)zlen);
	cu.easy_setopt(c, CURLOPT_CONNECTTIMEOUT, RW_CONNECT_TIMEOUT);
	cu.easy_setopt(c, CURLOPT_TIMEOUT, RW_TIMEOUT);
	cu.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	cu.easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
	cu.easy_setopt(c, CURLOPT_WRITEFUNCTION, rw_answer_write);
	cu.easy_setopt(c, CURLOPT_WRITEDATA, &ans);
	cr = cu.easy_perform(c);
	if (cr != CURLE_OK) {
		snprintf(why, whylen, "%s (not retried: the next run sends the totals again)",
			 cerr[0] ? cerr : cu.easy_strerror(cr));
		goto out;
	}
	cu.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (status >= 200 && status < 300) {
		ret = 0;
		goto out;
	}
	ans.text[strcspn(ans.text, "\r\n")] = '\0';
	snprintf(why, whylen, "HTTP %ld%s%s (%s)", status,
		 ans.text[0] ? ": " : "", ans.text,
		 status >= 400 && status < 500 ?
		 "refused: not retried, the request is at fault" :
		 "not retried: the next run sends the totals again");
out:
	cu.slist_free_all(hdr);
	cu.easy_cleanup(c);
	free(z);
	return ret;
}
