// SPDX-License-Identifier: GPL-2.0
/*
 * probe_core's own probes: those of target= and tracepoints=, and those
 * attached through /dev/probe_core.  They are built with the same API as
 * handler modules, in probe_core's own client (whose directory is the
 * debugfs root): for each target a histogram and a return probe that
 * feeds it; for each tracepoint a histogram, a CPU timer and a handler
 * from the table below; for a function of a user-space file, a uprobe or
 * a uretprobe.  A user-space probe whose file is deleted or unmounted is
 * detached, with its histograms, by a work item (its gone callback runs
 * under locks that detaching needs).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <trace/events/sched.h>
#include "pcore.h"
#include "graph.h"

/* What a target records: its spec's PCORE_WHAT_*, or a profiler. */
enum pcore_builtin_mode {
	PCORE_BUILTIN_TIME = PCORE_WHAT_TIME,	/* "vfs_read": each call's latency */
	PCORE_BUILTIN_COUNT = PCORE_WHAT_COUNT,	/* "vfs_read:count": the calls */
	PCORE_BUILTIN_ARG = PCORE_WHAT_ARG,	/* "vfs_read:arg3[:UNIT]" */
	PCORE_BUILTIN_RETVAL = PCORE_WHAT_RETVAL, /* "vfs_read:retval[:UNIT]" */
	PCORE_BUILTIN_STACKS = PCORE_WHAT_STACKS, /* "vfs_read:stacks" */
	PCORE_BUILTIN_GRAPH = PCORE_WHAT_GRAPH,	/* "vfs_read:graph[:GLOB]" */
	PCORE_BUILTIN_PROFILE,	/* profile=HZ: samples of every CPU by stack */
};

/* Distinct stacks a ":stacks" target, or a profiler, keeps in an interval. */
#define PCORE_BUILTIN_STACKS_MAX	1024
#define PCORE_BUILTIN_PROFILE_STACKS	4096

/* One of probe_core's own probes, with what it feeds. */
struct pcore_builtin {
	char name[PCORE_NAME_MAX];
	char symbol[PCORE_NAME_MAX];
	char unit[PCORE_UNIT_MAX];
	enum pcore_builtin_mode mode;
	unsigned int arg;		/* PCORE_BUILTIN_ARG: from 0 (:arg1) */
	struct pcore_hist *hist;
	struct pcore_hist *errs;	/* PCORE_BUILTIN_RETVAL: by errno */
	struct pcore_timer *timer;
	struct pcore_probe *probe;
	struct pcore_graph *graph;	/* ":graph": the callees (graph.c) */
	struct pcore_probe *wake[2];	/* runqlat: sched_wakeup{,_new} */
	struct pcore_hist **hists;	/* a glob: one per function */
	unsigned int nhists;
	struct pcore_filter filter;	/* pid=, comm= */
	struct pid *fpid;		/* offcpu: filter.pid's process, held */
	u64 fcomm[2];			/* offcpu: filter.comm, NUL-padded */
	u64 min_ns;			/* offcpu: shorter waits are not counted */
	bool by_pid;			/* ":by=pid": keyed by process */
	bool by_cgroup;			/* ":by=cgroup": keyed by cgroup v2 */
	bool no_kthreads;		/* offcpu: kernel threads left out */
	enum pcore_mech mech;		/* a kernel function's mechanism */
	bool user;			/* a uprobe or uretprobe */
	bool used;
};

/* Processes told apart by a ":by=pid" histogram in an interval. */
#define PCORE_BUILTIN_PIDS	256

/*
 * Cgroups told apart by a ":by=cgroup" histogram in an interval
 * (cgroup_keys=, 256 by default): the bound on the series of one such
 * histogram.  As for ":by=pid", the keys are reclaimed by every interval
 * read and reset (see "Keys" in map.h); the values of a cgroup that
 * finds no slot are counted as dropped (the histogram's "dropped",
 * probectl's and the export's probe_core_dropped_total).  Read when a
 * probe is attached.
 */
unsigned int pcore_cgroup_keys = 256;

/* Is @b keyed by the task an event is for (":by=pid", ":by=cgroup")? */
static __always_inline bool pcore_builtin_by_task(const struct pcore_builtin *b)
{
	return b->by_pid || b->by_cgroup;
}

/*
 * The key of task @t in @b, keyed by task: ":by=pid", its process (its
 * tgid), labelled with its name (the comm of its main thread, as ps
 * shows it); ":by=cgroup", its cgroup v2 id, labelled with the cgroup's
 * path when the key is read (the path cannot be read here: see
 * %PCORE_HIST_KEY_CGROUP).  Hot path: @t is current, or a task whose run
 * queue's lock is held.
 */
static __always_inline void pcore_builtin_add_task(struct pcore_builtin *b,
						   struct task_struct *t,
						   u64 v)
{
	if (b->by_cgroup)
		pcore_hist_add_key(b->hist, pcore_task_cgroup_id(t), NULL, v);
	else
		pcore_hist_add_key(b->hist, task_tgid_nr(t),
				   READ_ONCE(t->group_leader)->comm, v);
}

/* Protects the table; taken before pcore_lock (inside the API calls). */
static DEFINE_MUTEX(pcore_builtin_lock);
static struct pcore_builtin pcore_builtins[PCORE_MAX_PROBES];

/*
 * sched_switch: the time prev ran, i.e. between two switches on this CPU.
 * The first switch a CPU sees only starts its clock.
 */
static void notrace pcore_tp_sched_switch(PCORE_SCHED_SWITCH_PROTO)
{
	struct pcore_builtin *b = pcore_tp_hit(data);
	u64 ns;

	if (pcore_timer_stop(b->timer, NULL, &ns))
		pcore_hist_add(b->hist, ns);
	pcore_timer_start(b->timer, NULL);
}

/*
 * Off-CPU time ("offcpu"): from the switch that takes a task off its CPU
 * to the one that puts it back, under the stack it waited in (as BCC's
 * offcputime).  The stack is taken when the task leaves, when it is
 * current (prev is current in sched_switch), and kept with its stamp in
 * the timer's slot; the time goes under it when the task comes back.
 * Not later: the task coming back is runnable and not current, and the
 * unwinder may not walk such a task's stack through a kretprobe's
 * trampoline (the kernel warns, from inside __schedule).  A task on its
 * last switch is not stamped (the timer refuses it).  Waits shorter than
 * offcpu_min_us are not counted; the idle task is never timed.  The
 * filters (pid=, comm=, kernel threads left out) are of the task that
 * waits: one they leave out is not stamped, so its return finds nothing.
 * With user stacks, the user stack is taken at the same switch (prev is
 * current: its memory is the one mapped).
 */
unsigned int pcore_offcpu_min_us = 1;

/*
 * Does offcpu time @t (current, leaving its CPU)?  Hot path.  The comm
 * compares as pcore_filter_pass() does: two words, one branch.
 */
static __always_inline bool pcore_offcpu_pass(const struct pcore_builtin *b,
					      struct task_struct *t)
{
	u64 c0, c1;

	if (b->no_kthreads && (t->flags & PF_KTHREAD))
		return false;
	if (b->fpid && task_tgid(t) != b->fpid)
		return false;
	if (!b->fcomm[0])
		return true;
	BUILD_BUG_ON(sizeof(t->comm) != sizeof(b->fcomm));
	memcpy(&c0, t->comm, sizeof(c0));
	memcpy(&c1, t->comm + sizeof(c0), sizeof(c1));
	return !((c0 ^ b->fcomm[0]) | (c1 ^ b->fcomm[1]));
}

static void notrace pcore_tp_offcpu(PCORE_SCHED_SWITCH_PROTO)
{
	struct pcore_builtin *b = pcore_tp_hit(data);

	if (!is_idle_task(prev) && pcore_offcpu_pass(b, prev))
		pcore_timer_start(b->timer, prev);
	if (!is_idle_task(next))
		pcore_timer_stop_stack(b->timer, next, b->hist, b->min_ns);
}

/*
 * Run-queue latency ("runqlat"), as BCC's runqlat: the time from the
 * moment a task becomes runnable to the switch that puts it on a CPU.  A
 * task is stamped when it is woken (sched_wakeup, sched_wakeup_new: the
 * woken task, on the waker's CPU or the one the wakeup is queued to) and
 * when a switch takes it off while it stays runnable (preempted, or its
 * state TASK_RUNNING: a yield, or a sleep that a pending signal ended);
 * the switch that puts it back records the time since, under the CPU it
 * switches on, by process with ":by=pid", by cgroup with ":by=cgroup"
 * (the task's that waited).  prev's state is read here, as
 * BCC's runqlat reads prev->__state, not the tracepoint's prev_state:
 * that one is from before __schedule() found a signal pending and left
 * the task on the run queue.
 *
 * The stamp is per task (a task timer): a task woken on one CPU and run
 * on another, after a migration or a remote wakeup, is measured all the
 * same (the clock is ktime_get_mono_fast_ns(), one for all CPUs).  A task
 * woken while it still runs (its waker found it between
 * set_current_state() and schedule(), or on its CPU) is stamped, as
 * BCC's, but the stamp is never used: nothing waited.  The switch that
 * takes the task off replaces it when the task stays runnable, and when
 * it blocks, the wakeup that must come before it runs again does.  Unlike
 * BCC's test of prev->__state alone, a task preempted with a sleeping
 * state set (preempted between set_current_state() and schedule()) is
 * stamped too: it stays on the run queue, and its wait is one.  A task
 * that was runnable before the probe came has no stamp: its first switch
 * in is counted as unmatched in the timers file, as are those of tasks
 * whose stamp was evicted (a full table: counted as evicted).  The idle
 * task is never timed.
 */
static void notrace pcore_tp_runqlat_wakeup(void *data, struct task_struct *p)
{
	struct pcore_builtin *b = pcore_tp_hit(data);

	pcore_timer_start(b->timer, p);
}

static void notrace pcore_tp_runqlat(PCORE_SCHED_SWITCH_PROTO)
{
	struct pcore_builtin *b = pcore_tp_hit(data);
	u64 ns;

	if (!is_idle_task(prev) &&
	    (preempt || pcore_task_state(prev) == TASK_RUNNING))
		pcore_timer_start(b->timer, prev);
	if (is_idle_task(next) || !pcore_timer_stop(b->timer, next, &ns))
		return;
	/* next is not current: its process, read under the run queue lock */
	if (pcore_builtin_by_task(b))
		pcore_builtin_add_task(b, next, ns);
	else
		pcore_hist_add(b->hist, ns);
}

static const struct {
	const char *name;
	void *fn;
} pcore_tp_handlers[] = {
	{ "sched_switch", pcore_tp_sched_switch },
	{ "offcpu", pcore_tp_offcpu },
	{ "runqlat", pcore_tp_runqlat },
};

/* The table's handlers, checked as handler modules' are. */
PCORE_TP_CHECK(sched_switch, pcore_tp_sched_switch);
PCORE_TP_CHECK(sched_switch, pcore_tp_offcpu);
PCORE_TP_CHECK(sched_switch, pcore_tp_runqlat);
PCORE_TP_CHECK(sched_wakeup, pcore_tp_runqlat_wakeup);
PCORE_TP_CHECK(sched_wakeup_new, pcore_tp_runqlat_wakeup);

/* Tasks a runqlat probe keeps stamps of at once: the oldest goes first. */
#define PCORE_BUILTIN_RUNQLAT_TASKS	4096

/*
 * runqlat's wakeup probes, named "<name>.wakeup" and "<name>.wakeup_new",
 * attached before its sched_switch probe (what consumes the stamps).
 * Return: 0, or the errno with one log line.
 */
static int pcore_builtin_runqlat_wake(struct pcore_client *c,
				      struct pcore_builtin *b)
{
	static const char *const tps[] = { "sched_wakeup", "sched_wakeup_new" };
	char name[PCORE_NAME_MAX];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tps); i++) {
		if (snprintf(name, sizeof(name), "%s.%s", b->name,
			     tps[i] + 6) >= sizeof(name)) {
			pr_err("%s: name too long for its .%s probe\n",
			       b->name, tps[i] + 6);
			return -EINVAL;
		}
		b->wake[i] = pcore_tracepoint_attach(c,
			&(struct pcore_tracepoint_opts){
				.name = name, .tracepoint = tps[i],
				.fn = pcore_tp_runqlat_wakeup, .priv = b });
		if (IS_ERR(b->wake[i]))
			return PTR_ERR(b->wake[i]);
	}
	return 0;
}

/*
 * Tasks an offcpu probe times at once (offcpu_tasks=): a start that finds
 * none takes the oldest.
 */
unsigned int pcore_offcpu_tasks = 4096;

static int pcore_builtin_tracepoint(struct pcore_client *c,
				    struct pcore_builtin *b, const char *param)
{
	bool offcpu = !strcmp(b->symbol, "offcpu");
	bool runqlat = !strcmp(b->symbol, "runqlat");
	struct pcore_tracepoint_opts o = {
		.name = b->name, .hist = b->hist, .priv = b,
		.tracepoint = offcpu || runqlat ? "sched_switch" : b->symbol,
	};
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(pcore_tp_handlers); i++)
		if (!strcmp(pcore_tp_handlers[i].name, b->symbol))
			o.fn = pcore_tp_handlers[i].fn;
	if (!o.fn && !pcore_tp_exists(b->symbol)) {
		pr_err("%s=%s: no such tracepoint\n", param, b->symbol);
		return -ENOENT;
	}
	if (!o.fn) {
		pr_err("%s=%s: no built-in handler for this tracepoint (built-in: sched_switch, offcpu, runqlat)\n",
		       param, b->symbol);
		return -EINVAL;
	}
	if (pcore_builtin_by_task(b) && !runqlat) {
		pr_err("%s=%s: '%s' is for runqlat only\n", param, b->name,
		       b->by_pid ? ":by=pid" : ":by=cgroup");
		return -EINVAL;
	}
	b->min_ns = (u64)READ_ONCE(pcore_offcpu_min_us) * NSEC_PER_USEC;
	BUILD_BUG_ON(sizeof(b->filter.comm) != sizeof(b->fcomm));
	memset(b->fcomm, 0, sizeof(b->fcomm));
	memcpy(b->fcomm, b->filter.comm,
	       strnlen(b->filter.comm, sizeof(b->filter.comm)));
	if (offcpu && b->filter.pid > 0) {
		b->fpid = find_get_pid(b->filter.pid);
		if (!b->fpid) {
			pr_err("%s=%s: pid %d: no such process\n", param,
			       b->name, b->filter.pid);
			return -ESRCH;
		}
	} else if (offcpu && b->filter.pid < 0) {
		pr_err("%s=%s: pid %d is not a process id\n", param, b->name,
		       b->filter.pid);
		return -EINVAL;
	}
	b->timer = pcore_timer_create(c, &(struct pcore_timer_opts){
		.name = b->name,
		.scope = offcpu || runqlat ? PCORE_TIMER_TASK : PCORE_TIMER_CPU,
		.tasks = offcpu ? READ_ONCE(pcore_offcpu_tasks) :
			 runqlat ? PCORE_BUILTIN_RUNQLAT_TASKS : 0 });
	if (IS_ERR(b->timer))
		return PTR_ERR(b->timer);
	if (offcpu) {
		ret = pcore_timer_keep_stacks(b->timer, b->hist->map.depth);
		if (ret)
			return ret;
	}
	if (runqlat) {
		ret = pcore_builtin_runqlat_wake(c, b);
		if (ret)
			return ret;
	}
	b->probe = pcore_tracepoint_attach(c, &o);
	return PTR_ERR_OR_ZERO(b->probe);
}

/* Detach and free one entry (or what a failed attach left of it). */
static void pcore_builtin_free(struct pcore_builtin *b)
{
	unsigned int i;

	if (!IS_ERR_OR_NULL(b->probe))
		pcore_probe_detach(b->probe);
	pcore_graph_free(b->graph);	/* after F's probe, before its hist */
	for (i = 0; i < ARRAY_SIZE(b->wake); i++)
		if (!IS_ERR_OR_NULL(b->wake[i]))
			pcore_probe_detach(b->wake[i]);
	if (!IS_ERR_OR_NULL(b->timer))
		pcore_timer_destroy(b->timer);
	if (!IS_ERR_OR_NULL(b->errs))
		pcore_hist_destroy(b->errs);
	if (!IS_ERR_OR_NULL(b->hist))
		pcore_hist_destroy(b->hist);
	while (b->nhists)
		pcore_hist_destroy(b->hists[--b->nhists]);
	kfree(b->hists);
	put_pid(b->fpid);
	memset(b, 0, sizeof(*b));
}

static struct pcore_builtin *pcore_builtin_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pcore_builtins); i++)
		if (pcore_builtins[i].used &&
		    !strcmp(pcore_builtins[i].name, name))
			return &pcore_builtins[i];
	return NULL;
}

/*
 * A probe spec from the text of a parameter (pcore_probe_spec_parse()).
 * Return: 0, or -EINVAL with one log line.
 */
static int pcore_builtin_parse(const char *param, const char *s,
			       struct pcore_probe_spec *ps)
{
	char why[PCORE_SPEC_WHY_MAX];

	if (!pcore_probe_spec_parse(s, ps, why, sizeof(why)))
		return 0;
	pr_err("%s=%*pE: %s\n", param, (int)strlen(s), s, why);
	return -EINVAL;
}

/*
 * A function probe's spec, as the ioctl's fields may give it: checked
 * by the rules of the text.  Return: 0, or -EINVAL with one log line.
 */
static int pcore_builtin_check(const struct pcore_builtin_req *r)
{
	char why[PCORE_SPEC_WHY_MAX];

	if (!pcore_probe_spec_check(&r->probe, why, sizeof(why)))
		return 0;
	pr_err("%s=%*pE: %s\n", r->param, (int)strlen(r->name), r->name, why);
	return -EINVAL;
}

/* ":by=pid", ":by=cgroup": under current's process or cgroup. */
static __always_inline void pcore_builtin_add_current(struct pcore_builtin *b,
						      u64 v)
{
	pcore_builtin_add_task(b, current, v);
}

/* The latency of a call, by process (a kretprobe's or uretprobe's return). */
static void notrace pcore_builtin_time_pid(struct pcore_probe *p,
					   struct pt_regs *regs, void *data,
					   u64 ns)
{
	pcore_builtin_add_current(pcore_probe_priv(p), ns);
}
NOKPROBE_SYMBOL(pcore_builtin_time_pid);

/* A call, counted by process (a kprobe). */
static void notrace pcore_builtin_count_pid(struct pcore_probe *p,
					    struct pt_regs *regs)
{
	pcore_builtin_add_current(pcore_probe_priv(p), 0);
}
NOKPROBE_SYMBOL(pcore_builtin_count_pid);

/* :argN, by process (a kprobe). */
static void notrace pcore_builtin_arg_pid(struct pcore_probe *p,
					  struct pt_regs *regs)
{
	struct pcore_builtin *b = pcore_probe_priv(p);

	pcore_builtin_add_current(b, pcore_arg(regs, b->arg));
}
NOKPROBE_SYMBOL(pcore_builtin_arg_pid);

/* :argN or :count of a user-space function, from the uprobe at its entry. */
static int notrace pcore_builtin_uarg(struct pcore_probe *p,
				     struct pt_regs *regs, void *data)
{
	struct pcore_builtin *b = pcore_probe_priv(p);
	u64 v = b->mode == PCORE_BUILTIN_ARG ? pcore_arg(regs, b->arg) : 0;

	if (pcore_builtin_by_task(b))
		pcore_builtin_add_current(b, v);
	else
		pcore_hist_add(b->hist, v);
	return 0;
}
NOKPROBE_SYMBOL(pcore_builtin_uarg);

/*
 * :stacks of a user-space function: its user stack, from the uprobe at
 * its entry (so its caller is read from the top of the stack).
 */
static int notrace pcore_builtin_ustack(struct pcore_probe *p,
					struct pt_regs *regs, void *data)
{
	struct pcore_builtin *b = pcore_probe_priv(p);

	pcore_hist_add_stack(b->hist, regs, PCORE_STACK_ENTRY, 0);
	return 0;
}
NOKPROBE_SYMBOL(pcore_builtin_ustack);

/* The histogram of @b: keyed by process or cgroup with ":by=...". */
static struct pcore_hist *pcore_builtin_hist(struct pcore_client *c,
					     struct pcore_builtin *b,
					     const char *unit,
					     const struct pcore_hist_spec *spec)
{
	struct pcore_hist_opts o = {
		.name = b->name, .unit = unit, .spec = *spec,
	};

	if (b->by_pid) {
		o.key_mode = PCORE_KEYS_HASHED;
		o.keys = PCORE_BUILTIN_PIDS;
		o.key_name = "pid";
	} else if (b->by_cgroup) {
		o.key_mode = PCORE_KEYS_HASHED;
		o.keys = READ_ONCE(pcore_cgroup_keys);
		o.key_name = "cgroup";
		o.flags = PCORE_HIST_KEY_CGROUP;
	}
	return pcore_hist_create(c, &o);
}

static void pcore_builtin_retval(struct pcore_probe *p, struct pt_regs *regs,
				 void *data, u64 ns);
static void pcore_builtin_reap(struct work_struct *work);
static DECLARE_WORK(pcore_builtin_reap_work, pcore_builtin_reap);

/* A user-space probe's file went away: detach it from process context. */
static void pcore_builtin_gone(struct pcore_probe *p)
{
	schedule_work(&pcore_builtin_reap_work);
}

/*
 * The probe of a user-space function: what a kernel target's mode does,
 * with a uprobe for :count and :argN, a uretprobe for the latency and
 * :retval.
 */
static struct pcore_probe *pcore_builtin_uprobe(struct pcore_client *c,
						struct pcore_builtin *b,
						struct file *file, u64 offset,
						unsigned int active)
{
	struct pcore_uprobe_opts o = {
		.name = b->name, .file = file, .offset = offset,
		.gone = pcore_builtin_gone, .hist = b->hist, .priv = b,
		.filter = b->filter,
	};

	if (b->mode == PCORE_BUILTIN_ARG ||
	    (b->mode == PCORE_BUILTIN_COUNT && pcore_builtin_by_task(b)))
		o.entry = pcore_builtin_uarg;
	if (b->mode == PCORE_BUILTIN_STACKS)
		o.entry = pcore_builtin_ustack;
	if (b->mode == PCORE_BUILTIN_TIME || b->mode == PCORE_BUILTIN_RETVAL) {
		o.flags = PCORE_UPROBE_RET;
		o.maxactive = active;
	}
	if (b->mode == PCORE_BUILTIN_RETVAL)
		o.ret = pcore_builtin_retval;
	else if (b->mode == PCORE_BUILTIN_TIME && pcore_builtin_by_task(b))
		o.ret = pcore_builtin_time_pid;
	return pcore_uprobe_attach(c, &o);
}

/* :argN: the argument at each call, from the kprobe at the entry. */
static void notrace pcore_builtin_arg(struct pcore_probe *p,
				      struct pt_regs *regs)
{
	struct pcore_builtin *b = pcore_probe_priv(p);

	pcore_hist_add(b->hist, pcore_arg(regs, b->arg));
}
NOKPROBE_SYMBOL(pcore_builtin_arg);

/*
 * :retval: the value returned; an error (a negative value) is counted
 * apart, by errno, not as a value.
 */
static void notrace pcore_builtin_retval(struct pcore_probe *p,
					 struct pt_regs *regs, void *data,
					 u64 ns)
{
	struct pcore_builtin *b = pcore_probe_priv(p);
	long rv = (long)pcore_retval(regs);

	if (rv < 0)
		pcore_hist_add_key(b->errs, -(u64)rv, NULL, 0);
	else
		pcore_hist_add(b->hist, rv);
}
NOKPROBE_SYMBOL(pcore_builtin_retval);

/*
 * @b's kernel function probed, by the mechanism @b->mech (the public
 * API's: a direct call, kprobes, or either): a kprobe, or a direct call,
 * calling @pre; or with @timed, a kretprobe (up to @maxactive calls in
 * flight) or a trampoline wrapping the function, calling @ret.  0 or the
 * error; under auto, a kprobe's stats say why it is not a direct call.
 */
static int pcore_builtin_func(struct pcore_client *c, struct pcore_builtin *b,
			      void (*pre)(struct pcore_probe *p,
					  struct pt_regs *regs),
			      void (*ret)(struct pcore_probe *p,
					  struct pt_regs *regs, void *data,
					  u64 ns),
			      bool timed, unsigned int maxactive)
{
	if (timed)
		b->probe = pcore_kretprobe_attach(c,
			&(struct pcore_kretprobe_opts){
				.name = b->name, .symbol = b->symbol,
				.maxactive = maxactive, .ret = ret,
				.hist = b->hist, .priv = b,
				.filter = b->filter, .mech = b->mech });
	else
		b->probe = pcore_kprobe_attach(c, &(struct pcore_kprobe_opts){
			.name = b->name, .symbol = b->symbol, .hist = b->hist,
			.pre = pre, .priv = b, .filter = b->filter,
			.mech = b->mech });
	return PTR_ERR_OR_ZERO(b->probe);
}

/* Errnos told apart per :retval target; more are counted as dropped. */
#define PCORE_BUILTIN_ERRNOS	64

/* The probe and histograms of an :argN or :retval target. */
static int pcore_builtin_value(struct pcore_client *c, struct pcore_builtin *b,
			       const struct pcore_hist_spec *spec,
			       unsigned int active, struct file *file,
			       u64 offset)
{
	char errs[PCORE_NAME_MAX];
	struct pcore_hist_spec s = *spec;

	/* Sizes and counts span decades: log2 unless hist= says otherwise. */
	if (!s.kind)
		s.kind = PCORE_HIST_LOG2;
	b->hist = pcore_builtin_hist(c, b, b->unit, &s);
	if (IS_ERR(b->hist))
		return PTR_ERR(b->hist);
	if (b->mode == PCORE_BUILTIN_ARG && file) {
		b->probe = pcore_builtin_uprobe(c, b, file, offset, active);
		return PTR_ERR_OR_ZERO(b->probe);
	}
	if (b->mode == PCORE_BUILTIN_ARG) {
		return pcore_builtin_func(c, b, pcore_builtin_by_task(b) ?
					  pcore_builtin_arg_pid :
					  pcore_builtin_arg, NULL, false, 0);
	}
	if (snprintf(errs, sizeof(errs), "%s.errno", b->name) >= sizeof(errs)) {
		pr_err("%s: name too long for its .errno histogram\n", b->name);
		return -EINVAL;
	}
	b->errs = pcore_hist_create(c, &(struct pcore_hist_opts){
		.name = errs, .unit = "calls", .key_name = "errno",
		.key_mode = PCORE_KEYS_HASHED, .keys = PCORE_BUILTIN_ERRNOS,
		.spec = { .kind = PCORE_HIST_COUNT } });
	if (IS_ERR(b->errs))
		return PTR_ERR(b->errs);
	if (file) {
		b->probe = pcore_builtin_uprobe(c, b, file, offset, active);
		return PTR_ERR_OR_ZERO(b->probe);
	}
	return pcore_builtin_func(c, b, NULL, pcore_builtin_retval, true,
				  active);
}

/*
 * The flags of a stack hist: with user stacks when asked, and always for
 * a uprobe (whose kernel stack would be one frame, [user]); else the
 * process, for the whole-system views (profilers, offcpu), so that each
 * stack names its process as with user stacks; kernel stacks alone for
 * a kprobe's ":stacks" (one function's callers).
 */
static u32 pcore_builtin_hflags(const struct pcore_builtin_req *r)
{
	if (r->ustack || r->file || (r->probe.flags & PCORE_ATTACH_USTACK))
		return PCORE_HIST_USTACK;
	return r->hz || r->tracepoint ? PCORE_HIST_PROC : 0;
}

/* :stacks: a call, counted under its kernel stack (a kprobe). */
static void notrace pcore_builtin_stack(struct pcore_probe *p,
					struct pt_regs *regs)
{
	struct pcore_builtin *b = pcore_probe_priv(p);

	pcore_hist_add_stack(b->hist, regs, 0, 0);
}
NOKPROBE_SYMBOL(pcore_builtin_stack);

/*
 * A kprobe that counts calls by kernel stack (and user stack with
 * ":ustack"); or a uprobe that counts them by user stack, always.
 */
static int pcore_builtin_stacks(struct pcore_client *c,
				struct pcore_builtin *b,
				const struct pcore_builtin_req *r)
{
	b->hist = pcore_hist_create(c, &(struct pcore_hist_opts){
		.name = b->name, .unit = "calls",
		.spec = { .kind = PCORE_HIST_COUNT },
		.key_mode = PCORE_KEYS_STACK, .keys = PCORE_BUILTIN_STACKS_MAX,
		.depth = r->depth, .flags = pcore_builtin_hflags(r) });
	if (IS_ERR(b->hist))
		return PTR_ERR(b->hist);
	if (r->file) {
		b->probe = pcore_builtin_uprobe(c, b, r->file, r->offset, 0);
		return PTR_ERR_OR_ZERO(b->probe);
	}
	b->probe = pcore_kprobe_attach(c, &(struct pcore_kprobe_opts){
		.name = b->name, .symbol = b->symbol, .hist = b->hist,
		.pre = pcore_builtin_stack, .priv = b, .filter = b->filter });
	return PTR_ERR_OR_ZERO(b->probe);
}

/* runqlat's histogram: waits span decades, log2 unless hist= says. */
static struct pcore_hist *
pcore_builtin_runqlat_hist(struct pcore_client *c, struct pcore_builtin *b,
			   const struct pcore_hist_spec *spec)
{
	struct pcore_hist_spec s = *spec;

	if (!s.kind)
		s.kind = PCORE_HIST_LOG2;
	return pcore_builtin_hist(c, b, NULL, &s);
}

/* A profiler: every CPU's samples counted by stack. */
static int pcore_builtin_profile(struct pcore_client *c,
				 struct pcore_builtin *b,
				 const struct pcore_builtin_req *r)
{
	b->mode = PCORE_BUILTIN_PROFILE;
	b->hist = pcore_hist_create(c, &(struct pcore_hist_opts){
		.name = b->name, .unit = "samples",
		.spec = { .kind = PCORE_HIST_COUNT },
		.key_mode = PCORE_KEYS_STACK,
		.keys = PCORE_BUILTIN_PROFILE_STACKS, .depth = r->depth,
		.flags = pcore_builtin_hflags(r) });
	if (IS_ERR(b->hist))
		return PTR_ERR(b->hist);
	b->probe = pcore_profile_attach(c, &(struct pcore_profile_opts){
		.name = b->name, .hz = r->hz, .hist = b->hist, .priv = b,
		.filter = b->filter,
		.flags = r->no_kthreads ? PCORE_PROFILE_NO_KTHREADS : 0 });
	return PTR_ERR_OR_ZERO(b->probe);
}

/* How kernel functions are probed (mechanism=). */
enum pcore_mech pcore_mechanism = PCORE_MECH_AUTO;

/*
 * A kprobe (or uprobe, or a direct call: see pcore_builtin_func()) that
 * counts calls into a count histogram.
 */
static int pcore_builtin_count(struct pcore_client *c, struct pcore_builtin *b,
			       struct file *file, u64 offset)
{
	b->hist = pcore_builtin_hist(c, b, "calls", &(struct pcore_hist_spec){
		.kind = PCORE_HIST_COUNT });
	if (IS_ERR(b->hist))
		return PTR_ERR(b->hist);
	if (file) {
		b->probe = pcore_builtin_uprobe(c, b, file, offset, 0);
		return PTR_ERR_OR_ZERO(b->probe);
	}
	return pcore_builtin_func(c, b, pcore_builtin_by_task(b) ?
				  pcore_builtin_count_pid : NULL, NULL, false,
				  0);
}

/*
 * A glob ("vfs_*", "vfs_*:count"): a histogram per function it matches,
 * named after the function, and one probe on them all.
 */
static int pcore_builtin_glob(struct pcore_client *c, struct pcore_builtin *b,
			      const struct pcore_builtin_req *r)
{
	bool count = b->mode == PCORE_BUILTIN_COUNT;
	struct pcore_hist_opts o = {
		.unit = count ? "calls" : NULL,
		.spec = count ? (struct pcore_hist_spec){
				.kind = PCORE_HIST_COUNT } : r->spec,
	};
	char name[PCORE_NAME_MAX];
	struct pcore_funcs *f;
	unsigned int i, n;
	int ret = 0;

	f = pcore_funcs_find(b->symbol, PCORE_FUNCS_MAX);
	if (IS_ERR(f))
		return PTR_ERR(f);
	n = pcore_funcs_count(f);
	b->hists = kcalloc(n, sizeof(*b->hists), GFP_KERNEL);
	if (!b->hists)
		ret = -ENOMEM;
	o.name = name;
	for (i = 0; !ret && i < n; i++) {
		if (snprintf(name, sizeof(name), "%s%s", pcore_funcs_name(f, i),
			     count ? ":count" : "") >= sizeof(name)) {
			pr_err("%s=%s: %s: name too long for a histogram\n",
			       r->param, b->name, pcore_funcs_name(f, i));
			ret = -EINVAL;
			break;
		}
		b->hists[i] = pcore_hist_create(c, &o);
		ret = PTR_ERR_OR_ZERO(b->hists[i]);
		if (!ret)
			b->nhists++;
	}
	if (!ret) {
		b->probe = pcore_funcs_attach(c, &(struct pcore_funcs_opts){
			.name = b->name, .funcs = f, .hists = b->hists,
			.flags = count ? PCORE_FUNCS_COUNT : 0,
			.maxactive = r->maxactive, .priv = b,
			.filter = b->filter, .mech = b->mech });
		ret = PTR_ERR_OR_ZERO(b->probe);
	}
	pcore_funcs_free(f);
	return ret;
}

/*
 * A kernel function's latency: a kretprobe, or a trampoline that wraps
 * the function (see pcore_builtin_func()).
 */
static int pcore_builtin_time(struct pcore_client *c, struct pcore_builtin *b,
			      const struct pcore_builtin_req *r)
{
	return pcore_builtin_func(c, b, NULL, pcore_builtin_by_task(b) ?
				  pcore_builtin_time_pid : NULL, true,
				  r->maxactive);
}

/*
 * F:graph[:GLOB]: F's latency, its callees' and its self time in one
 * keyed histogram, named as the request names it ("F:graph", or the
 * attach ioctl's name: "rd:graph" for probectl's --name rd), but "F:graph"
 * with a glob of callees (target=F:graph:GLOB, the ioctl's text form: a
 * name takes no glob).  One graph per function: the return probes of two
 * graphs' callees would hide each other's calls (the later one's entry
 * sees the earlier one's trampoline as the return address).  See graph.c.
 */
static int pcore_builtin_graph(struct pcore_client *c, struct pcore_builtin *b,
			       const struct pcore_builtin_req *r)
{
	unsigned int i;

	if (r->probe.graph[0] &&
	    snprintf(b->name, sizeof(b->name), "%s:graph", r->probe.func) >=
	    sizeof(b->name)) {
		pr_err("%s=%s: name too long\n", r->param, r->name);
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(pcore_builtins); i++) {
		const struct pcore_builtin *q = &pcore_builtins[i];

		if (q != b && q->used && q->mode == PCORE_BUILTIN_GRAPH &&
		    !strcmp(q->symbol, b->symbol)) {
			pr_err("%s=%s: %s has a graph already, %s: their callees' return probes would hide each other's calls\n",
			       r->param, r->name, b->symbol, q->name);
			return -EBUSY;
		}
	}
	return pcore_graph_attach(c, &b->graph, r, b->name, &b->hist,
				  &b->probe);
}

/* Attach one; on error nothing of it stays.  Caller holds the table lock. */
static int pcore_builtin_add_locked(const struct pcore_builtin_req *r)
{
	struct pcore_client *c = pcore_client_get_own();
	const char *param = r->param, *name = r->name;
	struct pcore_builtin *b = NULL;
	unsigned int i;
	int ret;

	if (!*name) {
		pr_err("%s=: empty name\n", param);
		return -EINVAL;
	}
	if (strnlen(name, PCORE_NAME_MAX) == PCORE_NAME_MAX) {
		pr_err("%s=: name '%.32s...' is %zu characters, longer than %d\n",
		       param, name, strlen(name), PCORE_NAME_MAX - 1);
		return -EINVAL;
	}
	if (pcore_builtin_find(name)) {
		pr_err("%s=%s: given twice\n", param, name);
		return -EINVAL;
	}
	if (r->tracepoint && strcmp(r->probe.func, "offcpu") &&
	    (r->filter.pid || r->filter.comm[0])) {
		pr_err("%s=%s: pid and comm filters are for function probes, profilers and offcpu\n",
		       param, name);
		return -EINVAL;
	}
	if (r->tracepoint && strcmp(r->probe.func, "offcpu") &&
	    (r->ustack || r->no_kthreads)) {
		pr_err("%s=%s: user stacks and kernel threads left out are for profilers, offcpu and ':stacks'\n",
		       param, name);
		return -EINVAL;
	}
	if (!r->tracepoint && !r->hz && r->no_kthreads) {
		pr_err("%s=%s: kernel threads left out is for profilers and offcpu\n",
		       param, name);
		return -EINVAL;
	}
	if (!r->tracepoint && !r->hz && r->ustack &&
	    r->probe.what != PCORE_WHAT_STACKS) {
		pr_err("%s=%s: user stacks are for profilers, offcpu and ':stacks'\n",
		       param, name);
		return -EINVAL;
	}
	if ((r->probe.flags & PCORE_ATTACH_BY_PID) &&
	    (r->probe.flags & PCORE_ATTACH_BY_CGROUP)) {
		pr_err("%s=%s: ':by=pid' and ':by=cgroup' are one or the other\n",
		       param, name);
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(pcore_builtins) && !b; i++)
		if (!pcore_builtins[i].used)
			b = &pcore_builtins[i];
	if (!b) {
		pr_err("%s=%s: more than %d probes\n", param, name,
		       PCORE_MAX_PROBES);
		return -EINVAL;
	}
	b->used = true;
	b->user = r->file;
	b->filter = r->filter;
	strscpy(b->name, name, sizeof(b->name));
	strscpy(b->symbol, r->probe.func, sizeof(b->symbol));
	strscpy(b->unit, *r->probe.unit ? r->probe.unit : "value",
		sizeof(b->unit));
	b->mode = r->probe.what;
	b->arg = r->probe.what == PCORE_WHAT_ARG ? r->probe.arg - 1 : 0;
	b->by_pid = r->probe.flags & PCORE_ATTACH_BY_PID;
	b->by_cgroup = r->probe.flags & PCORE_ATTACH_BY_CGROUP;
	b->no_kthreads = r->no_kthreads;
	b->mech = r->mech ?: pcore_mechanism;
	ret = r->tracepoint || r->hz ? 0 : pcore_builtin_check(r);
	if (!ret && r->hz) {
		ret = pcore_builtin_profile(c, b, r);
	} else if (!ret && !r->tracepoint && !r->file &&
		   strpbrk(b->symbol, "*?")) {
		ret = pcore_builtin_glob(c, b, r);
	} else if (!ret && b->mode == PCORE_BUILTIN_COUNT) {
		ret = pcore_builtin_count(c, b, r->file, r->offset);
	} else if (!ret && b->mode == PCORE_BUILTIN_STACKS) {
		ret = pcore_builtin_stacks(c, b, r);
	} else if (!ret && b->mode == PCORE_BUILTIN_GRAPH) {
		ret = pcore_builtin_graph(c, b, r);
	} else if (!ret && b->mode != PCORE_BUILTIN_TIME) {
		ret = pcore_builtin_value(c, b, &r->spec, r->maxactive,
					  r->file, r->offset);
	} else if (!ret) {
		/* offcpu: the time waited, log2 (the sums are exact), by stack */
		if (r->tracepoint && !strcmp(b->symbol, "offcpu"))
			b->hist = pcore_hist_create(c, &(struct pcore_hist_opts){
				.name = name, .spec = { .kind = PCORE_HIST_LOG2 },
				.key_mode = PCORE_KEYS_STACK,
				.keys = PCORE_BUILTIN_STACKS_MAX,
				.depth = r->depth,
				.flags = pcore_builtin_hflags(r) });
		else if (r->tracepoint && !strcmp(b->symbol, "runqlat"))
			b->hist = pcore_builtin_runqlat_hist(c, b, &r->spec);
		else
			b->hist = pcore_builtin_hist(c, b, NULL, &r->spec);
		ret = PTR_ERR_OR_ZERO(b->hist);
		if (!ret && r->tracepoint)
			ret = pcore_builtin_tracepoint(c, b, param);
		else if (!ret && r->file)
			ret = PTR_ERR_OR_ZERO(b->probe = pcore_builtin_uprobe(c,
						b, r->file, r->offset,
						r->maxactive));
		else if (!ret)
			ret = pcore_builtin_time(c, b, r);
	}
	/*
	 * One probe of each kind per kernel function and filter, whatever
	 * name it had (user-space probes are on an inode, not a name: not
	 * checked).  Probes of other processes (pid=, comm=) see other
	 * calls: a function may have one for each, named apart (--name).
	 */
	for (i = 0; !ret && !r->tracepoint && !r->file && !r->hz &&
		    i < ARRAY_SIZE(pcore_builtins); i++) {
		struct pcore_builtin *q = &pcore_builtins[i];

		if (q == b || !q->used || q->timer || q->user || q->hists ||
		    b->hists ||
		    q->mode != b->mode || q->arg != b->arg ||
		    q->by_pid != b->by_pid || q->by_cgroup != b->by_cgroup ||
		    q->filter.pid != b->filter.pid ||
		    strncmp(q->filter.comm, b->filter.comm,
			    sizeof(q->filter.comm)) ||
		    strcmp(pcore_probe_symbol(q->probe),
			   pcore_probe_symbol(b->probe)))
			continue;
		pr_err("%s=%s: resolves to %s, which %s already probes\n",
		       param, name, pcore_probe_symbol(b->probe), q->name);
		ret = -EINVAL;
	}
	if (ret)
		pcore_builtin_free(b);
	return ret;
}

/**
 * pcore_builtin_attach() - attach one of probe_core's own probes
 * @r: what to attach; see struct pcore_builtin_req
 *
 * Return: 0, or an errno with one log line; nothing stays on error.
 */
int pcore_builtin_attach(const struct pcore_builtin_req *r)
{
	int ret;

	mutex_lock(&pcore_builtin_lock);
	ret = pcore_builtin_add_locked(r);
	mutex_unlock(&pcore_builtin_lock);
	return ret;
}

/*
 * A tracepoint's name as tracepoints= gives it (@n characters): the
 * tracepoint, and a last ":by=pid" or ":by=cgroup" (runqlat's) as the
 * flag.
 */
static void pcore_builtin_tp_text(struct pcore_builtin_req *r, size_t n)
{
	static const struct {
		const char *s;
		u32 flag;
	} by[] = {
		{ ":by=pid", PCORE_ATTACH_BY_PID },
		{ ":by=cgroup", PCORE_ATTACH_BY_CGROUP },
	};
	size_t i, len;

	memcpy(r->probe.func, r->name, n + 1);
	for (i = 0; i < ARRAY_SIZE(by); i++) {
		len = strlen(by[i].s);
		if (n > len && !strcmp(r->name + n - len, by[i].s)) {
			r->probe.func[n - len] = '\0';
			r->probe.flags = by[i].flag;
		}
	}
}

/**
 * pcore_builtin_attach_text() - attach a probe that its name says, as
 *	target= and tracepoints= take it
 * @r: what to attach: @r->name is a function and its suffixes (parsed
 *	into @r->probe), or a tracepoint (@r->probe.func)
 *
 * Return: 0, or an errno with one log line; nothing stays on error.
 */
int pcore_builtin_attach_text(struct pcore_builtin_req *r)
{
	size_t n = strnlen(r->name, PCORE_NAME_MAX);

	memset(&r->probe, 0, sizeof(r->probe));
	/* An empty or overlong name: pcore_builtin_attach() says so. */
	if (n && n < PCORE_NAME_MAX) {
		if (r->tracepoint)
			pcore_builtin_tp_text(r, n);
		else if (pcore_builtin_parse(r->param, r->name, &r->probe))
			return -EINVAL;
	}
	return pcore_builtin_attach(r);
}

/**
 * pcore_builtin_detach() - detach one of probe_core's own probes
 * @name: its name
 *
 * Return: 0, or -ENOENT when probe_core has no probe of that name.
 */
int pcore_builtin_detach(const char *name)
{
	struct pcore_builtin *b;

	mutex_lock(&pcore_builtin_lock);
	b = pcore_builtin_find(name);
	if (b)
		pcore_builtin_free(b);
	mutex_unlock(&pcore_builtin_lock);
	return b ? 0 : -ENOENT;
}

/**
 * pcore_builtin_set_enabled() - disable or enable one of probe_core's probes
 * @name: its name
 * @on: enable
 *
 * Return: 0, -ENOENT when probe_core has no probe of that name, or what
 * pcore_probe_set_enabled() returns.
 */
int pcore_builtin_set_enabled(const char *name, bool on)
{
	struct pcore_builtin *b;
	int ret;

	unsigned int i;

	mutex_lock(&pcore_builtin_lock);
	b = pcore_builtin_find(name);
	ret = b ? pcore_probe_set_enabled(b->probe, on) : -ENOENT;
	/* runqlat's wakeups: a stamp with no switch to end it is harmless */
	for (i = 0; !ret && i < ARRAY_SIZE(b->wake); i++)
		if (b->wake[i])
			ret = pcore_probe_set_enabled(b->wake[i], on);
	mutex_unlock(&pcore_builtin_lock);
	return ret;
}

/* Detach the user-space probes whose file went away, with their hists. */
static void pcore_builtin_reap(struct work_struct *work)
{
	unsigned int i;

	mutex_lock(&pcore_builtin_lock);
	for (i = 0; i < ARRAY_SIZE(pcore_builtins); i++)
		if (pcore_builtins[i].used && pcore_builtins[i].user &&
		    pcore_probe_gone(pcore_builtins[i].probe))
			pcore_builtin_free(&pcore_builtins[i]);
	mutex_unlock(&pcore_builtin_lock);
}

/* Detach and free them all, at unload or when the load fails. */
void pcore_builtin_free_all(void)
{
	unsigned int i;

	mutex_lock(&pcore_builtin_lock);
	/* Every probe of the table in one batch: a grace period per kind. */
	mutex_lock(&pcore_lock);
	pcore_client_detach_probes(pcore_client_get_own());
	mutex_unlock(&pcore_lock);
	pcore_uprobe_put_files();
	for (i = 0; i < ARRAY_SIZE(pcore_builtins); i++) {
		if (!pcore_builtins[i].used)
			continue;
		pcore_builtins[i].probe = NULL;
		pcore_graph_forget(pcore_builtins[i].graph);
		memset(pcore_builtins[i].wake, 0,
		       sizeof(pcore_builtins[i].wake));
		pcore_builtin_free(&pcore_builtins[i]);
	}
	mutex_unlock(&pcore_builtin_lock);
	/* No probe left to call pcore_builtin_gone(): no work comes after. */
	cancel_work_sync(&pcore_builtin_reap_work);
}

/* Said once the whole load succeeded: a failed load logs only its error. */
void pcore_builtin_log(void)
{
	unsigned int i;

	mutex_lock(&pcore_builtin_lock);
	for (i = 0; i < ARRAY_SIZE(pcore_builtins); i++)
		if (pcore_builtins[i].used && pcore_builtins[i].hists)
			pr_info("%s: %u functions, %s\n",
				pcore_builtins[i].name,
				pcore_builtins[i].nhists,
				pcore_fgroup_how(pcore_builtins[i].probe));
		else if (pcore_builtins[i].used)
			pr_info("%s: %s on %s\n", pcore_builtins[i].name,
				pcore_probe_kind_name(pcore_builtins[i].probe),
				pcore_probe_symbol(pcore_builtins[i].probe));
	mutex_unlock(&pcore_builtin_lock);
}
