// SPDX-License-Identifier: GPL-2.0
/*
 * CPU profilers: a sample on every CPU, hz times a second, of what the CPU
 * was doing when its timer interrupted it.
 *
 * Each profiler has one perf event per online CPU: the software event
 * cpu-clock, which perf drives with a per-CPU hrtimer in hard interrupt
 * context, so it samples on any machine, with or without a PMU (a VM
 * under emulation has none).  The overflow handler gets the interrupted
 * registers: a kernel stack, a task in user space, or the idle loop.
 *
 * CPUs come and go: a profiler is an instance of a CPU hotplug state, whose
 * callbacks create a CPU's event when it comes online and release it before
 * it goes.  Adding the instance creates the events of the online CPUs,
 * removing it releases them all; that is also disable and enable.  The
 * callbacks take no lock of ours: callers hold pcore_lock, which comes
 * before the hotplug lock.
 *
 * A profiler never stops a CPU from coming online: a CPU whose event
 * cannot be created then is logged, counted in @unsampled (the stats file
 * shows it) and goes unsampled until it comes online again.  Only while
 * arming does a CPU's failure fail the attach (or enable), undone whole.
 *
 * probectl's own work is left out: a task inside a call of
 * /dev/probe_core (probectl reading a profile one ioctl per key slot,
 * attaching, stopping a profiler) is not sampled while it is there, so a
 * profile does not show the reading of itself (pcore_ioc_read, the
 * allocations of a read).  Such samples are counted per profiler in @own
 * (the stats file's own_samples_left_out), not in its hits.  The calls
 * mark their task in a small table, pcore_quiet, that a sample reads
 * without a lock; when the table is full, the call is not marked and is
 * sampled as any other work.  The mark is made inside the call: a sample
 * at its very edge (in pcore_ioctl() before the mark or after it) is
 * taken.  Everything on the task's time while marked is left out, an
 * interrupt's work too.  probectl's time in user space is sampled as any
 * task's ([user] probectl).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/cpuhotplug.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include "pcore.h"

static enum cpuhp_state pcore_profile_state;

/* Tasks inside a call of /dev/probe_core, and how many (see the top). */
#define PCORE_QUIET_MAX	8
static struct task_struct *pcore_quiet[PCORE_QUIET_MAX];
static atomic_t pcore_nquiet = ATOMIC_INIT(0);

/**
 * pcore_profile_quiet_enter() - profilers leave out the current task
 *
 * Until pcore_profile_quiet_exit(): for the calls of /dev/probe_core.
 *
 * Return: the slot to give pcore_profile_quiet_exit(), or -1 when the
 * table is full (then the task is sampled).
 */
int pcore_profile_quiet_enter(void)
{
	int i;

	for (i = 0; i < PCORE_QUIET_MAX; i++)
		if (!cmpxchg(&pcore_quiet[i], NULL, current)) {
			atomic_inc(&pcore_nquiet);
			return i;
		}
	return -1;
}

/* The current task is sampled again; @slot from pcore_profile_quiet_enter(). */
void pcore_profile_quiet_exit(int slot)
{
	if (slot < 0)
		return;
	atomic_dec(&pcore_nquiet);
	WRITE_ONCE(pcore_quiet[slot], NULL);
}

/* Is the interrupted task inside a call of /dev/probe_core?  Hot path. */
static __always_inline bool pcore_profile_is_quiet(void)
{
	int i;

	if (likely(!atomic_read(&pcore_nquiet)))
		return false;
	for (i = 0; i < PCORE_QUIET_MAX; i++)
		if (READ_ONCE(pcore_quiet[i]) == current)
			return true;
	return false;
}

/* A sample: in hard interrupt context, with preemption off. */
static void notrace pcore_profile_sample(struct perf_event *ev,
					 struct perf_sample_data *data,
					 struct pt_regs *regs)
{
	struct pcore_probe *p = ev->overflow_handler_context;

	if (p->filtered && !pcore_filter_pass(p))
		return;
	if (p->prof.no_kthreads && (current->flags & PF_KTHREAD))
		return;
	if (pcore_profile_is_quiet()) {
		this_cpu_inc(*p->prof.own);
		return;
	}
	pcore_hit_nopreempt(p);
	if (p->pre)
		p->pre(p, regs);
	else
		pcore_hist_add_stack(p->hist, regs, PCORE_STACK_IDLE, 0);
}
NOKPROBE_SYMBOL(pcore_profile_sample);

static int pcore_profile_online(unsigned int cpu, struct hlist_node *node)
{
	struct pcore_profile *pr = hlist_entry(node, struct pcore_profile,
					       node);
	struct pcore_probe *p = container_of(pr, struct pcore_probe, prof);
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.sample_period = pr->period,
		.pinned = 1,
	};
	struct perf_event *ev;

	ev = perf_event_create_kernel_counter(&attr, cpu, NULL,
					      pcore_profile_sample, p);
	if (IS_ERR(ev)) {
		pcore_perr(p, "cannot create the cpu-clock perf event of CPU %u (%pe)%s",
			   cpu, ev, pr->arming ? "" : ": CPU not sampled");
		if (pr->arming)
			return PTR_ERR(ev);
		atomic_inc(&pr->unsampled);
		return 0;
	}
	*per_cpu_ptr(pr->ev, cpu) = ev;
	return 0;
}

static int pcore_profile_offline(unsigned int cpu, struct hlist_node *node)
{
	struct pcore_profile *pr = hlist_entry(node, struct pcore_profile,
					       node);
	struct perf_event **ev = per_cpu_ptr(pr->ev, cpu);

	if (*ev) {
		perf_event_disable(*ev);
		perf_event_release_kernel(*ev);
		*ev = NULL;
	} else {
		atomic_dec(&pr->unsampled);	/* it came online without */
	}
	return 0;
}

int pcore_profile_init(void)
{
	int ret;

	ret = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "probe_core:profile",
				      pcore_profile_online,
				      pcore_profile_offline);
	if (ret < 0) {
		pr_err("cannot add a CPU hotplug state for profilers (%d)\n", ret);
		return ret;
	}
	pcore_profile_state = ret;
	return 0;
}

void pcore_profile_exit(void)
{
	cpuhp_remove_multi_state(pcore_profile_state);
}

/*
 * Bytes of a profile's events: one per possible CPU, its pointer and its
 * count of samples left out.
 */
size_t pcore_profile_mem(void)
{
	return num_possible_cpus() *
	       (sizeof(struct perf_event *) + sizeof(struct perf_event) +
		sizeof(unsigned long));
}

/* Room for a CPU's event each; @hz checked by the caller. */
int pcore_profile_alloc(struct pcore_probe *p, u32 hz)
{
	p->prof.ev = alloc_percpu(struct perf_event *);
	p->prof.own = alloc_percpu(unsigned long);
	if (!p->prof.ev || !p->prof.own) {
		pcore_profile_release(p);
		return -ENOMEM;
	}
	p->prof.hz = hz;
	p->prof.period = div_u64(NSEC_PER_SEC, hz);
	snprintf(p->symbol, sizeof(p->symbol), "%u_Hz", hz);
	return 0;
}

/* Sample every online CPU, and every CPU that comes.  Caller holds pcore_lock. */
static int pcore_profile_arm(struct pcore_probe *p)
{
	int ret;

	lockdep_assert_held(&pcore_lock);
	p->prof.arming = true;
	ret = cpuhp_state_add_instance(pcore_profile_state, &p->prof.node);
	p->prof.arming = false;
	if (!ret)
		p->prof.armed = true;
	return ret;
}

/*
 * Stop sampling: no event left, and (after the grace period the caller
 * waits for) no handler running.  Return: whether it was armed.
 */
static bool pcore_profile_disarm(struct pcore_probe *p)
{
	lockdep_assert_held(&pcore_lock);
	if (!p->prof.armed)
		return false;
	cpuhp_state_remove_instance(pcore_profile_state, &p->prof.node);
	p->prof.armed = false;
	return true;
}

/* CPUs online and not sampled (see the top), or -1 when @p is no profiler. */
int pcore_profile_unsampled(const struct pcore_probe *p)
{
	if (p->kind != PCORE_PROBE_PROFILE)
		return -1;
	return atomic_read(&p->prof.unsampled);
}

/*
 * Samples left out because they were of probectl's own calls (see the
 * top), or -1 when @p is no profiler.
 */
long pcore_profile_own(const struct pcore_probe *p)
{
	unsigned long n = 0;
	int cpu;

	if (p->kind != PCORE_PROBE_PROFILE || !p->prof.own)
		return -1;
	for_each_possible_cpu(cpu)
		n += READ_ONCE(*per_cpu_ptr(p->prof.own, cpu));
	return min_t(unsigned long, n, LONG_MAX);
}

void pcore_profile_release(struct pcore_probe *p)
{
	free_percpu(p->prof.ev);
	free_percpu(p->prof.own);
	p->prof.ev = NULL;
	p->prof.own = NULL;
}

static int pcore_prof_arm(struct pcore_probe *p, const void *opts)
{
	return pcore_profile_arm(p);
}

/* A grace period after: a sample's handler may still run. */
static u32 pcore_prof_disarm(struct pcore_probe *p, struct pcore_batch *b)
{
	return pcore_profile_disarm(p) ? PCORE_SYNC_RCU : 0;
}

static int pcore_prof_set_enabled(struct pcore_probe *p, bool on)
{
	if (on)
		return pcore_profile_arm(p);
	if (pcore_profile_disarm(p))
		synchronize_rcu();
	return 0;
}

const struct pcore_probe_ops pcore_profile_ops = {
	.kind = PCORE_PROBE_PROFILE,
	.name_chars = "-",
	.arm = pcore_prof_arm,
	.disarm = pcore_prof_disarm,
	.release = pcore_profile_release,
	.set_enabled = pcore_prof_set_enabled,
};

/**
 * pcore_profile_attach() - sample what every CPU runs, @hz times a second
 * @c: client
 * @o: see struct pcore_profile_opts
 *
 * Sleeps.
 *
 * Return: the probe, or ERR_PTR(-EINVAL) for bad options,
 * ERR_PTR(-EEXIST) when the client has a probe of that name,
 * ERR_PTR(-EPERM) when the kernel is locked down (confidentiality),
 * ERR_PTR(-E2BIG) when it would go over mem_max, or the errno of perf;
 * one log line says which.
 */
struct pcore_probe *pcore_profile_attach(struct pcore_client *c,
					 const struct pcore_profile_opts *o)
{
	struct pcore_probe *p;
	int ret;

	ret = pcore_check_args("profile", c, o);
	if (ret)
		return ERR_PTR(ret);
	p = pcore_probe_new(c, &pcore_profile_ops, o->name, NULL, o->hist,
			    o->priv, &o->filter);
	if (IS_ERR(p))
		return p;
	ret = -EINVAL;
	if (!o->hz || o->hz > PCORE_PROFILE_HZ_MAX) {
		pcore_perr(p, "hz %u is not 1 to %d", o->hz,
			   PCORE_PROFILE_HZ_MAX);
		goto out;
	}
	if (!o->fn && (!o->hist || o->hist->map.key_mode != PCORE_KEYS_STACK)) {
		pcore_perr(p, "without fn, needs a hist keyed by stack");
		goto out;
	}
	if (o->flags & ~PCORE_PROFILE_NO_KTHREADS) {
		pcore_perr(p, "flags 0x%x: unknown flags", o->flags);
		goto out;
	}
	p->pre = o->fn;
	p->prof.no_kthreads = o->flags & PCORE_PROFILE_NO_KTHREADS;
	ret = pcore_probe_charge(p, pcore_profile_mem());
	if (ret)
		goto out;
	ret = pcore_profile_alloc(p, o->hz);
	if (ret)
		pcore_perr(p, "out of memory");
out:
	return pcore_probe_add(p, o, ret);
}
EXPORT_SYMBOL_GPL(pcore_profile_attach);
