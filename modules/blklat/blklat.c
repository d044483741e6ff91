// SPDX-License-Identifier: GPL-2.0
/*
 * blklat: block request sizes and latencies per disk, a probe_core
 * tutorial.
 *
 * Histograms keyed by disk (its dev_t, labelled with its name):
 *
 *   size   bytes of each request issued to the driver
 *   lat    issue to completion: the time the device (driver) took
 *   queue  insert to issue: the time spent in the I/O scheduler
 *   table  the request table's health (see below), keyed by event
 *
 *   insmod probe_core.ko && insmod blklat.ko
 *   cat /sys/kernel/debug/probe_core/blklat/lat/keys
 *   cat /sys/kernel/debug/probe_core/blklat/size/hist
 *
 * Only blk-mq devices make requests: a bio-based driver (brd, zram, md,
 * device mapper's bio targets) emits none of these tracepoints and is not
 * seen.  A request that goes straight to the driver without a scheduler
 * has no insert, and no queue time.
 *
 * The start stamps are per request, and a request is not a task: it is
 * issued on one CPU and completed on another, by no particular pid.  So
 * this module keeps its own small table, indexed by a hash of the request
 * pointer, with the stamps of up to BLKLAT_SLOTS requests in flight.
 * A request claims a free slot with cmpxchg() and frees it at completion;
 * the stages of one request (insert, issue, completion) never run at once,
 * so a slot has one user at a time and needs no lock.  blk-mq allocates
 * its requests once per tag set and reuses them, so a slot whose request
 * vanished without a completion is found again by the next issue of the
 * same request.  A request that finds no free slot among the BLKLAT_PROBES
 * it may use is not timed and is counted as "full" in the table
 * histogram.  Stamps come from ktime_get_mono_fast_ns(): a clock shared by
 * all CPUs, as completion often runs on another CPU than issue.
 *
 * The table histogram has three keys:
 *   0 tracked    a request took a slot; the value is how many slots it
 *                stepped over to find a free one (0: its home slot)
 *   1 full       a request found no free slot and is not timed (value 0)
 *   2 unmatched  a completion with no slot: issued before the module
 *                loaded, or not tracked (value 0)
 *
 * Step 1: the client, from PCORE_MODULE().  Step 2: the histograms.  Step 3: the table helpers.
 * Step 4: one tracepoint probe per stage of a request.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/hash.h>
#include <linux/module.h>
#include <linux/timekeeping.h>
#include <trace/events/block.h>
#include <probe_core/probe_core.h>

#define BLKLAT_BITS	10
#define BLKLAT_SLOTS	(1U << BLKLAT_BITS)	/* requests timed at once */
#define BLKLAT_PROBES	16			/* slots a request may use */
#define BLKLAT_DISKS	32			/* disks shown */

/* Keys of the table histogram. */
enum { BLKLAT_TRACKED, BLKLAT_FULL, BLKLAT_UNMATCHED, BLKLAT_EVENTS };

static const char * const blklat_events[BLKLAT_EVENTS] = {
	[BLKLAT_TRACKED] = "tracked",
	[BLKLAT_FULL] = "full",
	[BLKLAT_UNMATCHED] = "unmatched",
};

/* One request in flight: 24 bytes, 24 KiB for the table. */
struct blklat_slot {
	unsigned long rq;	/* the request; 0 when the slot is free */
	u64 insert_ns;		/* 0: not inserted since its last issue */
	u64 issue_ns;		/* 0: not issued yet */
};

static struct blklat {
	struct pcore_hist *size;
	struct pcore_hist *lat;
	struct pcore_hist *queue;
	struct pcore_hist *table;
	struct blklat_slot slots[BLKLAT_SLOTS];
} bl;

/* The disk of a request: its dev_t as the key, its name as the label. */
static u64 notrace blklat_disk(const struct request *rq, const char **name)
{
	struct gendisk *disk = rq->q->disk;

	if (!disk) {
		*name = "-";
		return 0;
	}
	*name = disk->disk_name;
	return disk_devt(disk);
}

static void notrace blklat_event(struct blklat *b, unsigned int event, u64 v)
{
	pcore_hist_add_key(b->table, event, blklat_events[event], v);
}

/* The slot of @rq, or NULL. */
static struct blklat_slot *notrace blklat_find(struct blklat *b,
					       const struct request *rq)
{
	u32 i = hash_ptr(rq, BLKLAT_BITS), n;
	struct blklat_slot *s;

	for (n = 0; n < BLKLAT_PROBES; n++) {
		s = &b->slots[(i + n) & (BLKLAT_SLOTS - 1)];
		if (READ_ONCE(s->rq) == (unsigned long)rq)
			return s;
	}
	return NULL;
}

/*
 * The slot of @rq, claimed if it has none; NULL when none is free.  The
 * whole window is searched before claiming, so a request never holds two
 * slots.
 */
static struct blklat_slot *notrace blklat_get(struct blklat *b,
					      const struct request *rq)
{
	u32 i = hash_ptr(rq, BLKLAT_BITS), n;
	struct blklat_slot *s = blklat_find(b, rq);

	if (s)
		return s;
	for (n = 0; n < BLKLAT_PROBES; n++) {
		s = &b->slots[(i + n) & (BLKLAT_SLOTS - 1)];
		if (READ_ONCE(s->rq) ||
		    cmpxchg(&s->rq, 0, (unsigned long)rq))
			continue;
		s->insert_ns = 0;
		s->issue_ns = 0;
		blklat_event(b, BLKLAT_TRACKED, n);
		return s;
	}
	blklat_event(b, BLKLAT_FULL, 0);
	return NULL;
}

/* Stamps are read: the slot may go to another request. */
static void notrace blklat_put(struct blklat_slot *s)
{
	/* Our reads of the stamps complete before a new owner writes them. */
	smp_store_release(&s->rq, 0);
}

/* block_rq_insert(struct request *rq): into the scheduler's queue. */
static void notrace blklat_insert(void *data, struct request *rq)
{
	struct blklat *b = pcore_tp_hit(data);
	struct blklat_slot *s = blklat_get(b, rq);

	if (s)
		s->insert_ns = ktime_get_mono_fast_ns();
}

/* block_rq_issue(struct request *rq): handed to the driver. */
static void notrace blklat_issue(void *data, struct request *rq)
{
	struct blklat *b = pcore_tp_hit(data);
	struct blklat_slot *s = blklat_get(b, rq);
	u64 now = ktime_get_mono_fast_ns(), key;
	const char *name;

	key = blklat_disk(rq, &name);
	pcore_hist_add_key(b->size, key, name, blk_rq_bytes(rq));
	if (!s)
		return;
	if (s->insert_ns) {
		pcore_hist_add_key(b->queue, key, name,
				   now > s->insert_ns ? now - s->insert_ns : 0);
		s->insert_ns = 0;	/* a requeue must insert again */
	}
	s->issue_ns = now;
}

/*
 * block_rq_complete(struct request *rq, blk_status_t error,
 * unsigned int nr_bytes): @nr_bytes of the request are done.  It is done
 * as a whole when they cover what is left of it, blk_rq_bytes(), which the
 * block layer updates only after this tracepoint.
 */
static void notrace blklat_complete(void *data, struct request *rq,
				    blk_status_t error, unsigned int nr_bytes)
{
	struct blklat *b = pcore_tp_hit(data);
	struct blklat_slot *s;
	const char *name;
	u64 now, issued, key;

	if (nr_bytes < blk_rq_bytes(rq))
		return;		/* partial completion: more to come */
	s = blklat_find(b, rq);
	if (!s || !s->issue_ns) {
		blklat_event(b, BLKLAT_UNMATCHED, 0);
		if (s)
			blklat_put(s);
		return;
	}
	now = ktime_get_mono_fast_ns();
	issued = s->issue_ns;
	blklat_put(s);
	key = blklat_disk(rq, &name);
	pcore_hist_add_key(b->lat, key, name, now > issued ? now - issued : 0);
}

/*
 * block_rq_merge(struct request *rq): @rq was merged into another request
 * in the scheduler and is freed without issue or completion.
 */
static void notrace blklat_merge(void *data, struct request *rq)
{
	struct blklat *b = pcore_tp_hit(data);
	struct blklat_slot *s = blklat_find(b, rq);

	if (s)
		blklat_put(s);
}

static int __init blklat_setup(struct pcore_client *pc)
{
	static const struct {
		const char *tp;
		void *fn;
	} tps[] = {
		{ "block_rq_insert", blklat_insert },
		{ "block_rq_issue", blklat_issue },
		{ "block_rq_complete", blklat_complete },
		{ "block_rq_merge", blklat_merge },
	};
	struct pcore_probe *p;
	unsigned int i;
	int ret;

	/* The table's handlers, checked against <trace/events/block.h>. */
	PCORE_TP_CHECK(block_rq_insert, blklat_insert);
	PCORE_TP_CHECK(block_rq_issue, blklat_issue);
	PCORE_TP_CHECK(block_rq_complete, blklat_complete);
	PCORE_TP_CHECK(block_rq_merge, blklat_merge);

	/* Sizes: log2 buckets, as request sizes are powers of two mostly. */
	bl.size = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "size", .unit = "bytes",
		.spec = { .kind = PCORE_HIST_LOG2 },
		.key_mode = PCORE_KEYS_HASHED, .keys = BLKLAT_DISKS,
		.key_name = "dev" });
	bl.lat = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "lat", .key_mode = PCORE_KEYS_HASHED,
		.keys = BLKLAT_DISKS, .key_name = "dev" });
	bl.queue = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "queue", .key_mode = PCORE_KEYS_HASHED,
		.keys = BLKLAT_DISKS, .key_name = "dev" });
	/* Slots stepped over: 0 to BLKLAT_PROBES - 1, one bucket each. */
	bl.table = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "table", .unit = "slots",
		.spec = { .kind = PCORE_HIST_LINEAR, .min = 0,
			  .max = BLKLAT_PROBES, .step = 1 },
		.key_mode = PCORE_KEYS_DIRECT, .keys = BLKLAT_EVENTS,
		.key_name = "event" });
	/* On an error, PCORE_MODULE() frees whatever was created. */
	ret = PTR_ERR_OR_ZERO(bl.size) ?: PTR_ERR_OR_ZERO(bl.lat) ?:
	      PTR_ERR_OR_ZERO(bl.queue) ?: PTR_ERR_OR_ZERO(bl.table);
	if (ret)
		return ret;
	/* The completion probe feeds lat: lat's stats name it. */
	for (i = 0; i < ARRAY_SIZE(tps); i++) {
		p = pcore_tracepoint_attach(pc, &(struct pcore_tracepoint_opts){
			.tracepoint = tps[i].tp, .fn = tps[i].fn,
			.hist = tps[i].fn == blklat_complete ? bl.lat : NULL,
			.priv = &bl });
		if (IS_ERR(p))
			return PTR_ERR(p);
	}
	return 0;
}

PCORE_MODULE(blklat_setup);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("probe_core example: block request sizes and latencies per disk");
