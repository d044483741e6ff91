// SPDX-License-Identifier: GPL-2.0
/*
 * Histograms: the kernel side of the engine.  Per-CPU memory, keyed
 * slots, IPIs for snapshot-and-reset, CPU hotplug.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/err.h>
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include "pcore.h"

/* Slots a hashed key looks at before it is dropped. */
#define PCORE_KEY_PROBES	32

/*
 * Units and key names are printed as one field of the text files: a
 * space, a newline or a control character would break their format.
 */
static bool pcore_one_word(const char *s)
{
	size_t i, len = strnlen(s, PCORE_UNIT_MAX);

	if (!len || len == PCORE_UNIT_MAX)
		return false;
	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f)
			return false;
	return true;
}

static int pcore_hist_spec_check(const struct pcore_client *c,
				 const struct pcore_hist_opts *o,
				 struct pcore_layout *l, u32 *nslots)
{
	struct pcore_hist_spec spec = o->spec;
	const char *why = NULL;
	size_t per_cpu;

	if (!spec.kind)
		spec.kind = PCORE_HIST_LOGLINEAR;
	if (pcore_layout_init(l, &spec, &why)) {
		pr_err("%s%shist %s: %s\n", c->name, *c->name ? ": " : "",
		       o->name, why);
		return -EINVAL;
	}
	switch (o->key_mode) {
	case PCORE_KEYS_NONE:
		if (o->keys)
			why = "keys given without a key mode";
		*nslots = 1;
		break;
	case PCORE_KEYS_DIRECT:
	case PCORE_KEYS_HASHED:
		if (!o->keys || o->keys > PCORE_KEYS_MAX) {
			why = "keys must be 1 to 65536";
			break;
		}
		*nslots = o->keys;
		if (o->key_mode == PCORE_KEYS_HASHED)
			*nslots = roundup_pow_of_two(max(o->keys, 2U));
		break;
	default:
		why = "unknown key mode";
	}
	if (!why && o->flags & ~PCORE_HIST_KEY_ADDR)
		why = "unknown flags";
	if (!why && (o->flags & PCORE_HIST_KEY_ADDR) &&
	    o->key_mode != PCORE_KEYS_HASHED)
		why = "PCORE_HIST_KEY_ADDR needs PCORE_KEYS_HASHED";
	if (!why && o->unit && !pcore_one_word(o->unit))
		why = "unit must be 1 to 15 characters, no spaces or control characters";
	if (!why && o->key_name && !pcore_one_word(o->key_name))
		why = "key name must be 1 to 15 characters, no spaces or control characters";
	if (why) {
		pr_err("%s%shist %s: %s\n", c->name, *c->name ? ": " : "",
		       o->name, why);
		return -EINVAL;
	}
	per_cpu = (size_t)*nslots * pcore_cpu_hist_size(l);
	if (per_cpu > PCORE_HIST_CPU_MEM_MAX) {
		pr_err("%s%shist %s: %u keys of %zu bytes need %zu bytes per CPU, more than %u\n",
		       c->name, *c->name ? ": " : "", o->name, *nslots,
		       pcore_cpu_hist_size(l), per_cpu, PCORE_HIST_CPU_MEM_MAX);
		return -E2BIG;
	}
	return 0;
}

static void pcore_hist_free(struct pcore_hist *h)
{
	int cpu;

	if (h->cpu)
		for_each_possible_cpu(cpu)
			kvfree(h->cpu[cpu]);
	kfree(h->cpu);
	kvfree(h->keys);
	kvfree(h->labels);
	free_percpu(h->dropped);
	kfree(h);
}

/**
 * pcore_hist_create() - create a histogram, or a keyed set of histograms
 * @c: the client it belongs to
 * @o: what to create; see struct pcore_hist_opts
 *
 * Creates /sys/kernel/debug/probe_core/<module>/<name>/.  Sleeps.
 *
 * Return: the histogram, or ERR_PTR(-EINVAL) for bad options (one log line
 * says which), ERR_PTR(-E2BIG) when it would need more than 8 MiB per CPU,
 * ERR_PTR(-EEXIST) when the client has a histogram of that name, or
 * ERR_PTR(-ENOMEM).
 */
struct pcore_hist *pcore_hist_create(struct pcore_client *c,
				     const struct pcore_hist_opts *o)
{
	struct pcore_layout l;
	struct pcore_hist *h;
	u32 nslots, i;
	int cpu, ret;

	ret = pcore_check_args("hist", c, o);
	if (ret)
		return ERR_PTR(ret);
	ret = pcore_check_name("hist", o->name, true);
	if (ret)
		return ERR_PTR(ret);
	/* "<module>/<name>" must fit the ioctl ABI's names too. */
	if (*c->name && strlen(c->name) + 1 + strlen(o->name) >= PCORE_NAME_MAX) {
		pr_err("%s: hist %s: '%s/%s' is longer than %d characters\n",
		       c->name, o->name, c->name, o->name, PCORE_NAME_MAX - 1);
		return ERR_PTR(-EINVAL);
	}
	ret = pcore_hist_spec_check(c, o, &l, &nslots);
	if (ret)
		return ERR_PTR(ret);

	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		goto nomem;
	INIT_LIST_HEAD(&h->node);
	mutex_init(&h->lock);
	h->client = c;
	h->layout = l;
	h->key_mode = o->key_mode;
	h->flags = o->flags;
	h->nslots = nslots;
	h->stride = pcore_cpu_hist_size(&l);
	strscpy(h->name, o->name, sizeof(h->name));
	strscpy(h->unit, o->unit ?: "ns", sizeof(h->unit));
	strscpy(h->key_name, o->key_name ?: "key", sizeof(h->key_name));

	h->cpu = kcalloc(nr_cpu_ids, sizeof(*h->cpu), GFP_KERNEL);
	h->dropped = alloc_percpu_gfp(local64_t, GFP_KERNEL | __GFP_NOWARN);
	if (!h->cpu || !h->dropped)
		goto nomem;
	for_each_possible_cpu(cpu) {
		h->cpu[cpu] = kvmalloc_node(nslots * h->stride,
					    GFP_KERNEL | __GFP_NOWARN,
					    cpu_to_node(cpu));
		if (!h->cpu[cpu])
			goto nomem;
		for (i = 0; i < nslots; i++)
			pcore_cpu_hist_init(&l, pcore_slot(h, cpu, i));
	}
	if (h->key_mode) {
		h->labels = kvcalloc(nslots, sizeof(*h->labels),
				     GFP_KERNEL | __GFP_NOWARN);
		if (!h->labels)
			goto nomem;
	}
	if (h->key_mode == PCORE_KEYS_HASHED) {
		h->keys = kvmalloc_array(nslots, sizeof(*h->keys),
					 GFP_KERNEL | __GFP_NOWARN);
		if (!h->keys)
			goto nomem;
		for (i = 0; i < nslots; i++)
			h->keys[i] = U64_MAX;
	}

	mutex_lock(&pcore_lock);
	if (pcore_client_name_taken(c, h->name)) {
		mutex_unlock(&pcore_lock);
		pr_err("%s%shist %s: the name is taken\n", c->name,
		       *c->name ? ": " : "", h->name);
		pcore_hist_free(h);
		return ERR_PTR(-EEXIST);
	}
	list_add_tail(&h->node, &c->hists);
	pcore_debugfs_add_hist(h);
	mutex_unlock(&pcore_lock);
	return h;

nomem:
	/* One line of ours instead of the allocators' warnings. */
	pr_err("%s%shist %s: out of memory (%zu bytes per CPU)\n", c->name,
	       *c->name ? ": " : "", o->name,
	       (size_t)nslots * pcore_cpu_hist_size(&l));
	if (h)
		pcore_hist_free(h);
	return ERR_PTR(-ENOMEM);
}
EXPORT_SYMBOL_GPL(pcore_hist_create);

/*
 * Destruction is in two steps, because debugfs_remove() waits for readers
 * and readers take pcore_lock: unlink under pcore_lock, then release
 * without it.
 */
void pcore_hist_unlink(struct pcore_hist *h)
{
	list_del_init(&h->node);
	if (h->probe)
		h->probe->hist = NULL;
	h->probe = NULL;
}

/* Nothing records into @h any more and it is unlinked; sleeps. */
void pcore_hist_release(struct pcore_hist *h)
{
	pcore_debugfs_remove(&h->dir);
	pcore_hist_free(h);
}

/**
 * pcore_hist_destroy() - remove a histogram and free it
 * @h: histogram, or an ERR_PTR() or NULL (ignored)
 *
 * Every probe whose handler may add to @h must be detached first.  A
 * histogram still bound to a probe (its @hist) is left alone, with a log
 * line: the client frees it with the probe.  Waits for readers of its
 * files.  Sleeps.
 */
void pcore_hist_destroy(struct pcore_hist *h)
{
	if (IS_ERR_OR_NULL(h))
		return;
	mutex_lock(&pcore_lock);
	if (h->probe) {
		pr_err("%s%shist %s: still fed by probe %s; detach it first\n",
		       h->client->name, *h->client->name ? ": " : "", h->name,
		       h->probe->name);
		mutex_unlock(&pcore_lock);
		return;
	}
	pcore_hist_unlink(h);
	mutex_unlock(&pcore_lock);
	pcore_hist_release(h);
}
EXPORT_SYMBOL_GPL(pcore_hist_destroy);

/* Record into slot @slot of this CPU; the hot path. */
static __always_inline void pcore_hist_record(struct pcore_hist *h, u32 slot,
					      u64 v)
{
	preempt_disable_notrace();
	pcore_record(&h->layout,
		     pcore_slot(h, raw_smp_processor_id(), slot), v);
	preempt_enable_notrace();
}

static void pcore_hist_drop(struct pcore_hist *h)
{
	preempt_disable_notrace();
	local64_inc(this_cpu_ptr(h->dropped));
	preempt_enable_notrace();
}
NOKPROBE_SYMBOL(pcore_hist_drop);

/**
 * pcore_hist_add_key() - record a value under a key; hot path
 * @h: keyed histogram (for one without keys, @key and @label are ignored)
 * @key: the key: an index below the key count for %PCORE_KEYS_DIRECT, any
 *	value but U64_MAX for %PCORE_KEYS_HASHED
 * @label: a name shown with the key, or NULL; only the first label given
 *	for a key is kept (up to 31 characters; spaces and control
 *	characters are shown as '_')
 * @v: value
 *
 * No lock, no allocation, no division; safe in any context, NMI included.
 * A key that finds no slot is counted as dropped.
 */
void notrace pcore_hist_add_key(struct pcore_hist *h, u64 key,
				const char *label, u64 v)
{
	u32 slot, i, n;
	u64 k;

	switch (h->key_mode) {
	case PCORE_KEYS_NONE:
		slot = 0;
		label = NULL;
		break;
	case PCORE_KEYS_DIRECT:
		if (key >= h->nslots)
			goto drop;
		slot = key;
		if (label && READ_ONCE(h->labels[slot][0]))
			label = NULL;
		break;
	default:
		if (key == U64_MAX)
			goto drop;
		i = hash_64(key, ilog2(h->nslots));
		for (n = 0; n < PCORE_KEY_PROBES && n < h->nslots; n++) {
			slot = (i + n) & (h->nslots - 1);
			k = READ_ONCE(h->keys[slot]);
			if (k == key) {
				label = NULL;
				goto found;
			}
			if (k != U64_MAX)
				continue;
			/* Keys are never freed: a free slot ends the chain. */
			k = cmpxchg(&h->keys[slot], U64_MAX, key);
			if (k == U64_MAX)
				goto found;	/* ours: give it the label */
			if (k == key) {
				label = NULL;
				goto found;
			}
		}
		goto drop;
	}
found:
	if (label) {
		char *dst = h->labels[slot];

		for (i = 0; i < PCORE_LABEL_MAX - 1 && label[i]; i++)
			dst[i] = label[i];
	}
	pcore_hist_record(h, slot, v);
	return;
drop:
	pcore_hist_drop(h);
}
EXPORT_SYMBOL_GPL(pcore_hist_add_key);
NOKPROBE_SYMBOL(pcore_hist_add_key);

/**
 * pcore_hist_add() - record a value; hot path
 * @h: histogram (for a keyed one, the value goes to key 0)
 * @v: value
 *
 * No lock, no allocation, no division; safe in any context, NMI included.
 */
void notrace pcore_hist_add(struct pcore_hist *h, u64 v)
{
	if (unlikely(h->key_mode)) {
		pcore_hist_add_key(h, 0, NULL, v);
		return;
	}
	pcore_hist_record(h, 0, v);
}
EXPORT_SYMBOL_GPL(pcore_hist_add);
NOKPROBE_SYMBOL(pcore_hist_add);

/* Does slot @slot hold a key worth showing? */
bool pcore_hist_slot_used(const struct pcore_hist *h, u32 slot)
{
	int cpu;

	switch (h->key_mode) {
	case PCORE_KEYS_NONE:
		return true;
	case PCORE_KEYS_HASHED:
		return READ_ONCE(h->keys[slot]) != U64_MAX;
	}
	if (READ_ONCE(h->labels[slot][0]))
		return true;
	for_each_possible_cpu(cpu)
		if (pcore_cpu_hist_count(&h->layout, pcore_slot(h, cpu, slot)))
			return true;
	return false;
}

/*
 * An address as the reader may see it: what "%pK" prints, in the
 * reader's context (kptr_restrict, its CAP_SYSLOG), read back.
 */
static u64 pcore_key_restricted(u64 key)
{
	char buf[2 * sizeof(void *) + 1];
	u64 v;

	snprintf(buf, sizeof(buf), "%pK", (void *)(unsigned long)key);
	return kstrtou64(buf, 16, &v) ? 0 : v;
}

/*
 * The key of slot @slot as its reader may see it (see
 * %PCORE_HIST_KEY_ADDR), and its label ("" when none).  Process context.
 */
void pcore_hist_slot_key(const struct pcore_hist *h, u32 slot, u64 *key,
			 const char **label)
{
	*key = h->key_mode == PCORE_KEYS_HASHED ? READ_ONCE(h->keys[slot]) :
						  slot;
	if (h->flags & PCORE_HIST_KEY_ADDR)
		*key = pcore_key_restricted(*key);
	*label = h->labels ? h->labels[slot] : "";
}

u64 pcore_hist_dropped(const struct pcore_hist *h)
{
	return pcore_pcpu_sum(h->dropped);
}

int pcore_snaps_alloc(const struct pcore_hist *h, struct pcore_snaps *ss)
{
	u32 i;

	ss->n = h->nslots;
	ss->size = pcore_snap_size(&h->layout);
	ss->mem = kvmalloc_array(ss->n, ss->size, GFP_KERNEL);
	if (!ss->mem)
		return -ENOMEM;
	for (i = 0; i < ss->n; i++)
		pcore_snap_init(&h->layout, pcore_snaps_at(ss, i));
	return 0;
}

void pcore_snaps_free(struct pcore_snaps *ss)
{
	kvfree(ss->mem);
	ss->mem = NULL;
}

/**
 * pcore_hist_read() - add one slot's counts to a snapshot, without reset
 * @h: histogram
 * @cpu: the CPU to read, or -1 for all possible CPUs
 * @slot: slot
 * @s: snapshot of @h's layout
 */
void pcore_hist_read(struct pcore_hist *h, int cpu, u32 slot,
		     struct pcore_snap *s)
{
	if (cpu >= 0) {
		pcore_snap_add_cpu(s, pcore_slot(h, cpu, slot));
		return;
	}
	for_each_possible_cpu(cpu)
		pcore_snap_add_cpu(s, pcore_slot(h, cpu, slot));
}

struct pcore_harvest_arg {
	struct pcore_hist *h;
	struct pcore_snaps *ss;
	int cpu;
};

static void pcore_harvest_cpu(struct pcore_harvest_arg *a)
{
	u32 i;

	for (i = 0; i < a->h->nslots; i++)
		pcore_cpu_harvest(pcore_slot(a->h, a->cpu, i),
				  pcore_snaps_at(a->ss, i));
}

static void pcore_harvest_ipi(void *arg)
{
	pcore_harvest_cpu(arg);
}

/**
 * pcore_hist_harvest() - snapshot-and-reset every slot of a histogram
 * @h: histogram
 * @ss: snapshots from pcore_snaps_alloc(), the counts are added to them
 *
 * Each CPU's records are harvested on that CPU (offline CPUs directly), so
 * that every value lands in exactly one interval.  Sleeps.
 */
void pcore_hist_harvest(struct pcore_hist *h, struct pcore_snaps *ss)
{
	struct pcore_harvest_arg a = { .h = h, .ss = ss };
	u64 before = 0, after = 0;
	u32 i;

	for (i = 0; i < ss->n; i++)
		before += pcore_snaps_at(ss, i)->count;
	mutex_lock(&h->lock);
	cpus_read_lock();
	for_each_possible_cpu(a.cpu) {
		/*
		 * One CPU at a time (wait=1), so ss has one writer.  Hotplug is
		 * held off: an offline CPU records nothing and is read here.
		 */
		if (cpu_online(a.cpu))
			WARN_ON_ONCE(smp_call_function_single(a.cpu,
					pcore_harvest_ipi, &a, 1));
		else
			pcore_harvest_cpu(&a);
	}
	cpus_read_unlock();
	for (i = 0; i < ss->n; i++)
		after += pcore_snaps_at(ss, i)->count;
	h->harvested += after - before;
	mutex_unlock(&h->lock);
}

/**
 * pcore_hist_lifetime() - values recorded since the histogram was created
 * @h: histogram
 *
 * Return: harvested values plus those in the current interval, all keys.
 */
u64 pcore_hist_lifetime(struct pcore_hist *h)
{
	u64 n;
	u32 i;
	int cpu;

	mutex_lock(&h->lock);
	n = h->harvested;
	for_each_possible_cpu(cpu)
		for (i = 0; i < h->nslots; i++)
			n += pcore_cpu_hist_count(&h->layout,
						  pcore_slot(h, cpu, i));
	mutex_unlock(&h->lock);
	return n;
}
