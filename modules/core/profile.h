/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Profilers (profile.c).
 * Part of pcore.h, which includes the units' headers in order.
 */
#ifndef PCORE_PROFILE_H
#define PCORE_PROFILE_H

struct perf_event;

/**
 * struct pcore_profile - what a profiler holds (profile.c)
 * @node: its instance of the CPU hotplug state
 * @ev: per CPU, its cpu-clock perf event while the CPU is online and the
 *	profiler armed, else NULL
 * @hz: samples per second per CPU
 * @period: ns between samples
 * @armed: an instance of the hotplug state (not disabled)
 * @arming: pcore_profile_arm() is adding the instance: a CPU without its
 *	event fails it (under the hotplug lock: no CPU comes or goes then)
 * @unsampled: CPUs online without their event, whose creation failed when
 *	they came online (logged); until they go offline
 * @own: per CPU, samples left out because they were of a task inside a
 *	call of /dev/probe_core (probectl reading: see profile.c)
 * @no_kthreads: samples of kernel threads are left out
 */
struct pcore_profile {
	struct hlist_node node;
	struct perf_event * __percpu *ev;
	u32 hz;
	u64 period;
	bool armed;
	bool arming;
	atomic_t unsampled;
	unsigned long __percpu *own;
	bool no_kthreads;
};

int pcore_profile_init(void);
void pcore_profile_exit(void);
size_t pcore_profile_mem(void);
int pcore_profile_alloc(struct pcore_probe *p, u32 hz);
int pcore_profile_unsampled(const struct pcore_probe *p);
long pcore_profile_own(const struct pcore_probe *p);
int pcore_profile_quiet_enter(void);
void pcore_profile_quiet_exit(int slot);
void pcore_profile_release(struct pcore_probe *p);
#endif /* PCORE_PROFILE_H */
