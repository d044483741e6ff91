// SPDX-License-Identifier: GPL-2.0
/*
 * Histogram objects: the kernel side of the engine (per-CPU memory, IPIs
 * for snapshot-and-reset, CPU hotplug).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/err.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include "pcore.h"

/**
 * pcore_hist_alloc() - create a histogram
 * @spec: bucket layout
 * @unit: unit of the values, a string that outlives the histogram
 * @why: set to the reason when @spec is refused
 *
 * Return: the histogram, or ERR_PTR(-EINVAL) for a bad spec, or
 * ERR_PTR(-ENOMEM).
 */
struct pcore_hist *pcore_hist_alloc(const struct pcore_hist_spec *spec,
				    const char *unit, const char **why)
{
	struct pcore_hist *h;
	int cpu, ret;

	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return ERR_PTR(-ENOMEM);
	ret = pcore_layout_init(&h->layout, spec, why);
	if (ret)
		goto err_free;
	h->pcpu = __alloc_percpu(pcore_cpu_hist_size(&h->layout),
				 __alignof__(u64));
	if (!h->pcpu) {
		*why = "out of per-CPU memory";
		ret = -ENOMEM;
		goto err_free;
	}
	for_each_possible_cpu(cpu)
		pcore_cpu_hist_init(&h->layout, per_cpu_ptr(h->pcpu, cpu));
	h->unit = unit;
	mutex_init(&h->lock);
	return h;

err_free:
	kfree(h);
	return ERR_PTR(ret);
}

/**
 * pcore_hist_free() - free a histogram nobody records into any more
 * @h: histogram, or NULL
 */
void pcore_hist_free(struct pcore_hist *h)
{
	if (!h)
		return;
	free_percpu(h->pcpu);
	mutex_destroy(&h->lock);
	kfree(h);
}

/**
 * pcore_hist_snap_alloc() - allocate an empty snapshot for a histogram
 * @h: histogram
 *
 * Return: the snapshot (free with kfree()), or NULL.
 */
struct pcore_snap *pcore_hist_snap_alloc(const struct pcore_hist *h)
{
	struct pcore_snap *s = kmalloc(pcore_snap_size(&h->layout), GFP_KERNEL);

	if (s)
		pcore_snap_init(&h->layout, s);
	return s;
}

/**
 * pcore_hist_read() - add a histogram's current counts to a snapshot
 * @h: histogram
 * @cpu: one CPU, or -1 for all possible CPUs (offline ones included)
 * @s: snapshot of @h's layout
 *
 * Does not reset anything; concurrent records may or may not be seen.
 */
void pcore_hist_read(struct pcore_hist *h, int cpu, struct pcore_snap *s)
{
	if (cpu >= 0) {
		pcore_snap_add_cpu(s, per_cpu_ptr(h->pcpu, cpu));
		return;
	}
	for_each_possible_cpu(cpu)
		pcore_snap_add_cpu(s, per_cpu_ptr(h->pcpu, cpu));
}

struct pcore_harvest_arg {
	struct pcore_hist *h;
	struct pcore_snap *s;
};

static void pcore_harvest_ipi(void *info)
{
	struct pcore_harvest_arg *a = info;

	pcore_cpu_harvest(this_cpu_ptr(a->h->pcpu), a->s);
}

/**
 * pcore_hist_harvest() - snapshot-and-reset a histogram
 * @h: histogram
 * @s: snapshot of @h's layout the counts are moved into
 *
 * Each CPU's record is harvested on that CPU (offline CPUs directly), so
 * that every event lands in exactly one interval.  Sleeps.
 */
void pcore_hist_harvest(struct pcore_hist *h, struct pcore_snap *s)
{
	struct pcore_harvest_arg a = { .h = h, .s = s };
	u64 before = s->count;
	int cpu;

	mutex_lock(&h->lock);
	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		/*
		 * One CPU at a time (wait=1), so s has one writer.  Hotplug is
		 * held off: an offline CPU records nothing and is read here.
		 */
		if (cpu_online(cpu))
			WARN_ON_ONCE(smp_call_function_single(cpu,
					pcore_harvest_ipi, &a, 1));
		else
			pcore_cpu_harvest(per_cpu_ptr(h->pcpu, cpu), s);
	}
	cpus_read_unlock();
	h->harvested += s->count - before;
	mutex_unlock(&h->lock);
}

/**
 * pcore_hist_lifetime() - events recorded since the histogram was created
 * @h: histogram
 *
 * Return: harvested events plus those in the current interval.
 */
u64 pcore_hist_lifetime(struct pcore_hist *h)
{
	u64 n;
	int cpu;

	mutex_lock(&h->lock);
	n = h->harvested;
	for_each_possible_cpu(cpu)
		n += pcore_cpu_hist_count(&h->layout,
					  per_cpu_ptr(h->pcpu, cpu));
	mutex_unlock(&h->lock);
	return n;
}
