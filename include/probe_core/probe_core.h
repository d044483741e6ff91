/* SPDX-License-Identifier: GPL-2.0 */
/*
 * probe_core: the in-kernel API for handler modules.
 *
 * A handler module creates one client, then histograms, timers and probes
 * that belong to it.  probe_core does registration, per-CPU aggregation,
 * timing and export: every histogram appears under
 * /sys/kernel/debug/probe_core/<module>/<name>/ with the files of
 * probe_core's own probes (hist, percpu, stats, interval, reset; keyed
 * histograms add keys), and every probe in /sys/kernel/debug/probe_core/probes.
 *
 *	static int __init lat_setup(struct pcore_client *pc)
 *	{
 *		h = pcore_hist_create(pc, &(struct pcore_hist_opts){ .name = "lat" });
 *		...
 *		p = pcore_kretprobe_attach(pc, &(struct pcore_kretprobe_opts){
 *			.symbol = "vfs_read", .hist = h });
 *		return PTR_ERR_OR_ZERO(p);
 *	}
 *	PCORE_MODULE(lat_setup);	(creates the client before lat_setup();
 *					 destroys it, detaching and freeing all,
 *					 when lat_setup() fails and at exit)
 *
 * Functions that create or destroy sleep; they are for process context.
 * The functions marked "hot path" take no lock, allocate nothing, never
 * sleep and divide nothing: call them from probe handlers, in any context
 * including NMI.  Objects are destroyed only through their client, or one
 * by one with the *_destroy()/pcore_probe_detach() calls.
 *
 * Every creating function returns ERR_PTR() on failure, with one kernel
 * log line naming the bad value, and leaves nothing behind.
 */
#ifndef PROBE_CORE_H
#define PROBE_CORE_H

#include <linux/types.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/ptrace.h>
#include <linux/module.h>
#include "probe_core/hist_spec.h"

#define PCORE_NAME_MAX		128	/* object names, including the NUL */
#define PCORE_LABEL_MAX		32	/* key labels, including the NUL */
#define PCORE_KEYS_MAX		65536

struct pcore_client;
struct pcore_hist;
struct pcore_timer;
struct task_struct;
struct pcore_probe;

struct pcore_client *pcore_client_create(struct module *owner);
void pcore_client_destroy(struct pcore_client *c);

/**
 * PCORE_MODULE() - a handler module's init and exit, around its setup function
 * @setup: the name of a function int __init @setup(struct pcore_client
 *	*pc), which creates the module's histograms, timers and probes in
 *	pc (probes last) and returns 0 or a -errno
 *
 * Defines the module's init and exit functions, <setup>_init() and
 * <setup>_exit(), with module_init() and module_exit(), and a static
 * <setup>_client.  Init creates the module's client
 * (pcore_client_create(THIS_MODULE)) and calls @setup with it; when
 * @setup fails, init destroys the client, which detaches and frees
 * whatever @setup created, and fails the load with @setup's error.  Exit
 * destroys the client.  So @setup may return at its first error and undo
 * nothing: a failed load leaves nothing registered.
 *
 *	static int __init lat_setup(struct pcore_client *pc)
 *	{
 *		struct pcore_hist *h;
 *		struct pcore_probe *p;
 *
 *		h = pcore_hist_create(pc, &(struct pcore_hist_opts){
 *			.name = "lat" });
 *		if (IS_ERR(h))
 *			return PTR_ERR(h);
 *		p = pcore_kretprobe_attach(pc, &(struct pcore_kretprobe_opts){
 *			.symbol = "vfs_read", .hist = h });
 *		return PTR_ERR_OR_ZERO(p);
 *	}
 *	PCORE_MODULE(lat_setup);
 *
 * One per module, in place of module_init() and module_exit().  A module
 * that uses its client after @setup (to attach or detach later) or has
 * more to undo at exit writes its own init and exit functions around
 * pcore_client_create() and pcore_client_destroy().
 *
 * Context: the module's init and exit; @setup runs in process context.
 */
#define PCORE_MODULE(setup)						\
static struct pcore_client *setup##_client;				\
static int __init setup##_init(void)					\
{									\
	int ret;							\
									\
	setup##_client = pcore_client_create(THIS_MODULE);		\
	if (IS_ERR(setup##_client))					\
		return PTR_ERR(setup##_client);				\
	ret = setup(setup##_client);					\
	if (ret)							\
		pcore_client_destroy(setup##_client);			\
	return ret;							\
}									\
static void __exit setup##_exit(void)					\
{									\
	pcore_client_destroy(setup##_client);				\
}									\
module_init(setup##_init);						\
module_exit(setup##_exit)

/**
 * enum pcore_key_mode - how a keyed histogram finds the slot of a key
 * @PCORE_KEYS_NONE: not keyed: one histogram
 * @PCORE_KEYS_DIRECT: small dense keys (IRQ number, softirq vector, CPU):
 *	key k uses slot k; keys at or above @keys are dropped
 * @PCORE_KEYS_HASHED: sparse keys (pid, dev_t, address): a lock-free
 *	table of @keys slots (rounded up to a power of two) that keeps a key
 *	until its interval ends; keys that find no free slot, and the key
 *	U64_MAX (which marks a free slot), are dropped.  Every other value
 *	is a key, U64_MAX - 1 included; a handler keying by a negative errno
 *	keys by its negation (-EPERM would be U64_MAX).
 * @PCORE_KEYS_STACK: the key is a kernel stack, given to
 *	pcore_hist_add_stack(): a table like %PCORE_KEYS_HASHED's, whose
 *	slots also hold up to @depth frames.  Stacks are told apart frame by
 *	frame, never by a hash alone.
 *
 * A keyed histogram's records come from a pool that grows as keys show up
 * (see "Memory" in docs/design.md); a value that finds it empty is dropped too.
 * Dropped values are counted and shown as "dropped" in stats and keys.
 */
enum pcore_key_mode {
	PCORE_KEYS_NONE = 0,
	PCORE_KEYS_DIRECT = 1,
	PCORE_KEYS_HASHED = 2,
	PCORE_KEYS_STACK = 3,
};

/* Frames a stack keeps: 1 to %PCORE_STACK_DEPTH_MAX, 32 by default. */
#define PCORE_STACK_DEPTH_DEFAULT	32
#define PCORE_STACK_DEPTH_MAX		127
/*
 * With user stacks (%PCORE_HIST_USTACK): the user frames a stack keeps,
 * and its kernel frames at most (so that a stack's text is 128 lines).
 */
#define PCORE_USTACK_DEPTH		32
#define PCORE_USTACK_KDEPTH_MAX		93

/**
 * struct pcore_hist_opts - a histogram to create
 * @name: directory name under the client's directory: letters, digits,
 *	'_', '-' and '.'; unique within the client
 * @unit: unit of the values for display, e.g. "ns" (the default), "bytes";
 *	1 to 15 characters, no spaces or control characters
 * @spec: bucket layout; a zero @spec.kind means the default loglinear
 * @key_mode: an enum pcore_key_mode
 * @keys: %PCORE_KEYS_DIRECT: keys 0 to @keys - 1; %PCORE_KEYS_HASHED and
 *	%PCORE_KEYS_STACK: the number of distinct keys kept; at most
 *	%PCORE_KEYS_MAX
 * @key_name: what a key is, for display ("irq", "vec", "dev", "pid");
 *	default "key" ("stack" for %PCORE_KEYS_STACK); the same rules as
 *	@unit
 * @flags: %PCORE_HIST_KEY_ADDR, %PCORE_HIST_USTACK, %PCORE_HIST_PROC,
 *	%PCORE_HIST_KEY_CGROUP, or 0
 * @depth: %PCORE_KEYS_STACK: the innermost frames kept of each stack, 1
 *	to %PCORE_STACK_DEPTH_MAX, 0 for %PCORE_STACK_DEPTH_DEFAULT (a deeper
 *	stack is kept cut, and shown so); with %PCORE_HIST_USTACK, its kernel
 *	frames, at most %PCORE_USTACK_KDEPTH_MAX; 0 for the other modes
 *
 * Memory: see "Memory" in docs/design.md: per key in use, a bucket array per
 * CPU it shows up on; per key slot, its key and label (and @depth frames
 * for stacks, 3 words more with %PCORE_HIST_PROC, 35 more with
 * %PCORE_HIST_USTACK), twice (for intervals).
 */
struct pcore_hist_opts {
	const char *name;
	const char *unit;
	struct pcore_hist_spec spec;
	u32 key_mode;
	u32 keys;
	const char *key_name;
	u32 flags;
	u32 depth;
};

/*
 * PCORE_HIST_KEY_ADDR: the keys of a %PCORE_KEYS_HASHED histogram are
 * kernel addresses.  Readers see them as "%pK" prints them, whatever
 * reads them (debugfs, /dev/probe_core): as %p with kptr_restrict=0
 * (hashed, unless pointers are printed unhashed), raw with
 * kptr_restrict=1 for a reader with CAP_SYSLOG, zero otherwise.
 */
#define PCORE_HIST_KEY_ADDR	(1U << 0)

/*
 * PCORE_HIST_USTACK: a %PCORE_KEYS_STACK histogram whose stacks carry the
 * user stack and the process too: after the kernel frames, up to
 * %PCORE_USTACK_DEPTH user frames (walked by frame pointers from the
 * task's user registers), then its tgid and comm, so two processes never
 * share a stack.  A kernel thread has no user frames; a task built
 * without frame pointers gives a short chain (its ip, and whatever its
 * rbp points at that looks like a frame: each frame must be above the
 * last and aligned); a user page that is not present stops the walk (no
 * fault is taken: the chain is cut there, not counted apart); in NMI
 * context where user memory may not be read (nmi_uaccess_okay()) only the
 * user ip is kept.  A 32-bit task gives its ip only.
 */
#define PCORE_HIST_USTACK	(1U << 1)

/*
 * PCORE_HIST_PROC: a %PCORE_KEYS_STACK histogram whose stacks carry the
 * process without user frames: after the kernel frames, the tgid and
 * comm of the task whose stack it is (current's, or the task given to
 * pcore_hist_add_task_stack()), so two processes never share a stack and
 * each stack's text ends with "[proc] TGID COMM".  Registers saved in
 * user mode give one frame, "[user] COMM", then the process; the idle
 * task, "[idle]" then "[proc] 0 swapper/N".  No user memory is read.
 * @depth is up to %PCORE_STACK_DEPTH_MAX kernel frames, as without it.
 * One or the other with %PCORE_HIST_USTACK, which carries the process
 * too.
 */
#define PCORE_HIST_PROC		(1U << 3)

/*
 * PCORE_HIST_KEY_CGROUP: the keys of a %PCORE_KEYS_HASHED histogram are
 * cgroup v2 ids (pcore_task_cgroup_id() gives a task's; give the value no
 * label).  Readers see each key labelled with its cgroup's path relative
 * to the cgroup2 root, "/" for the root, looked up when they read it
 * (process context: the path cannot be read in a handler): a path longer
 * than %PCORE_LABEL_MAX - 1 characters shows as "..." and its last
 * characters; a key whose cgroup was removed before the read (or is
 * outside the reader's cgroup namespace) as "(removed)", with its id.
 */
#define PCORE_HIST_KEY_CGROUP	(1U << 2)

struct pcore_hist *pcore_hist_create(struct pcore_client *c,
				     const struct pcore_hist_opts *o);
size_t pcore_hist_mem(const struct pcore_hist_opts *o, size_t *max);
void pcore_hist_destroy(struct pcore_hist *h);
void pcore_hist_add(struct pcore_hist *h, u64 v);
void pcore_hist_count(struct pcore_hist *h);
void pcore_hist_add_key(struct pcore_hist *h, u64 key, const char *label,
			u64 v);
void pcore_hist_add_stack(struct pcore_hist *h, struct pt_regs *regs,
			  u32 flags, u64 v);
void pcore_hist_add_task_stack(struct pcore_hist *h, struct task_struct *task,
			       u32 flags, u64 v);

/* pcore_hist_add_stack(): the idle task's stacks are one frame, [idle]. */
#define PCORE_STACK_IDLE	0x1
/*
 * pcore_hist_add_stack() with user registers at a function's first
 * instruction (a uprobe at its entry): its return address is at the
 * stack pointer, its frame pointer still its caller's.  The user stack
 * then has the caller too, which a frame-pointer walk alone would miss.
 */
#define PCORE_STACK_ENTRY	0x2

/**
 * enum pcore_timer_scope - where a timer keeps its start stamps
 * @PCORE_TIMER_CPU: one stamp per CPU: start and stop on the same CPU
 *	(an IRQ handler, a softirq run, a section with preemption off)
 * @PCORE_TIMER_TASK: one stamp per task, in a bounded lock-free table:
 *	start and stop name the task (its pid and start time, so a reused
 *	pid is another task) and may run on any CPU (wake-up to run, a
 *	syscall that sleeps); a task's stamp goes when the task exits
 */
enum pcore_timer_scope {
	PCORE_TIMER_CPU = 1,
	PCORE_TIMER_TASK = 2,
};

/* Discard a measurement when a context switch happened between its stamps. */
#define PCORE_TIMER_DISCARD_SWITCH	0x1

/**
 * struct pcore_timer_opts - a timer to create
 * @name: name in the client's "timers" file; unique within the client
 * @scope: an enum pcore_timer_scope
 * @flags: %PCORE_TIMER_DISCARD_SWITCH or 0
 * @tasks: %PCORE_TIMER_TASK: tasks timed at once (rounded up to a power
 *	of two); a start that finds no free slot takes the oldest one
 *
 * For %PCORE_TIMER_DISCARD_SWITCH, "a context switch happened" means the
 * task running at the stop is not the one that ran at the start, or that
 * task switched out and back in between.
 */
struct pcore_timer_opts {
	const char *name;
	u32 scope;
	u32 flags;
	u32 tasks;
};

struct pcore_timer *pcore_timer_create(struct pcore_client *c,
				       const struct pcore_timer_opts *o);
void pcore_timer_destroy(struct pcore_timer *t);
void pcore_timer_start(struct pcore_timer *t, struct task_struct *task);
bool pcore_timer_stop(struct pcore_timer *t, struct task_struct *task,
		      u64 *ns);

/**
 * struct pcore_filter - the tasks a probe runs its handlers for
 * @pid: only the threads of this process (its thread group id, what
 *	getpid() returns in it), or 0 for any.  The probe holds the
 *	process's struct pid: a process that gets the same number after it
 *	exited is another process, and does not match.
 * @comm: only tasks of this name (as /proc/PID/comm shows it: at most 15
 *	characters), or "" for any
 *
 * A call of another task runs no handler: it is not a hit, and a return
 * probe does not time it.  It costs one comparison per filter given (the
 * probe uses other handlers than unfiltered probes: those pay nothing).
 */
struct pcore_filter {
	pid_t pid;
	char comm[16];
};

/**
 * enum pcore_mech - how a kernel function is probed
 * @PCORE_MECH_DEFAULT: the caller's default (for probe_core's own probes,
 *	its mechanism= parameter; for pcore_kprobe_attach() and
 *	pcore_kretprobe_attach(), kprobes)
 * @PCORE_MECH_KPROBE: kprobes and kretprobes
 * @PCORE_MECH_DIRECT: an ftrace direct call to a trampoline of
 *	probe_core's, or an error
 * @PCORE_MECH_AUTO: a direct call where one can go, else kprobes
 *
 * A direct call goes on a function of the kernel's own (not a module's)
 * that ftrace can trace and that no other direct user (a BPF trampoline,
 * another direct call of probe_core's) has; to time calls, on one whose
 * arguments are all in registers.  It is cheaper than a kprobe, and what
 * its handlers get is less: see struct pcore_kprobe_opts and struct
 * pcore_kretprobe_opts.
 */
enum pcore_mech {
	PCORE_MECH_DEFAULT,
	PCORE_MECH_KPROBE,
	PCORE_MECH_DIRECT,
	PCORE_MECH_AUTO,
};

/**
 * struct pcore_kprobe_opts - a kprobe to attach
 * @name: probe name, unique within the client; default @symbol
 * @symbol: function to probe, or NULL with @addr
 * @offset: offset into @symbol
 * @addr: address to probe, when @symbol is NULL
 * @pre: called before the probed instruction, or NULL
 * @post: called after it, or NULL
 * @hist: the histogram this probe feeds, or NULL; its stats show this
 *	probe's symbol and missed count.  One probe per histogram: others
 *	may add to it from their handlers, unbound.  With neither @pre nor
 *	@post, the probe counts each hit into @hist (pcore_hist_count()) and
 *	does nothing else: give it a %PCORE_HIST_COUNT histogram.
 * @priv: handler data, see pcore_probe_priv()
 * @filter: only for these tasks; see struct pcore_filter (zero: all)
 * @mech: an enum pcore_mech: 0 (%PCORE_MECH_DEFAULT) or
 *	%PCORE_MECH_KPROBE for a kprobe; %PCORE_MECH_DIRECT for an ftrace
 *	direct call at the function's entry, or an error;
 *	%PCORE_MECH_AUTO for a direct call where one can go, else a kprobe
 *	(@hist's stats say why).  A direct call takes a @symbol, no @offset,
 *	@addr or @post: %PCORE_MECH_DIRECT refuses them (-EINVAL),
 *	%PCORE_MECH_AUTO takes a kprobe for them.
 *
 * Under a direct call, @pre's @regs hold the function's argument
 * registers (di, si, dx, cx, r8, r9: pcore_arg() reads them), ax, ip (the
 * function's ftrace call: its address, past an endbr64 under IBT;
 * instruction_pointer() reads it) and sp (the stack pointer at its
 * entry, where its return address is: pcore_hist_add_stack() with these
 * registers takes the stack from the function's caller on); every other
 * field is 0 (a kprobe's handler gets them all, ip one past the probed
 * address, and its stack starts there).  A direct call misses no call:
 * the probe's missed count stays 0.
 */
struct pcore_kprobe_opts {
	const char *name;
	const char *symbol;
	unsigned int offset;
	void *addr;
	void (*pre)(struct pcore_probe *p, struct pt_regs *regs);
	void (*post)(struct pcore_probe *p, struct pt_regs *regs);
	struct pcore_hist *hist;
	void *priv;
	struct pcore_filter filter;
	enum pcore_mech mech;
};

/**
 * struct pcore_kretprobe_opts - a return probe to attach
 * @name: probe name, unique within the client; default @symbol
 * @symbol: function to probe; "do_fork" and "sys_<name>" resolve to this
 *	kernel's names
 * @maxactive: calls that may be in flight at once; 0: max(32, 4 * CPUs).
 *	Calls beyond it are counted as missed.
 * @data_size: bytes of per-call data for the handlers, at most 256
 * @entry: called at entry with the per-call data, or NULL; return non-zero
 *	to not time this call (its return handler is not called)
 * @ret: called at return with the per-call data and the time since entry
 *	in ns, or NULL to record that time into @hist
 * @hist: the histogram this probe feeds (its stats show this probe's
 *	symbol and missed count; one probe per histogram); required when
 *	@ret is NULL
 * @priv: handler data, see pcore_probe_priv()
 * @filter: only for these tasks; see struct pcore_filter (zero: all)
 * @mech: an enum pcore_mech: 0 (%PCORE_MECH_DEFAULT) or
 *	%PCORE_MECH_KPROBE for a kretprobe; %PCORE_MECH_DIRECT for an ftrace
 *	direct call to a trampoline that wraps the function, or an error;
 *	%PCORE_MECH_AUTO for a direct call where one can go, else a
 *	kretprobe (@hist's stats say why).  The trampoline keeps the stamp
 *	in its own frame and nothing else: no @entry, no @data_size;
 *	%PCORE_MECH_DIRECT refuses them (-EINVAL), %PCORE_MECH_AUTO takes a
 *	kretprobe for them.  It wraps only functions whose arguments are
 *	all in registers (the kernel's BTF says).
 *
 * The entry is always stamped (ktime_get_mono_fast_ns()): every return
 * probe times its calls.  Under a direct call, @ret's @regs hold only ax,
 * the value returned (pcore_retval() reads it), every other field 0, and
 * its @data is NULL; @maxactive does not apply: every call is timed, in
 * flight at once as many as there are, and none is missed (the probe's
 * missed count stays 0).
 */
struct pcore_kretprobe_opts {
	const char *name;
	const char *symbol;
	int maxactive;
	size_t data_size;
	int (*entry)(struct pcore_probe *p, struct pt_regs *regs, void *data);
	void (*ret)(struct pcore_probe *p, struct pt_regs *regs, void *data,
		    u64 ns);
	struct pcore_hist *hist;
	void *priv;
	struct pcore_filter filter;
	enum pcore_mech mech;
};

/**
 * struct pcore_tracepoint_opts - a tracepoint probe to attach
 * @name: probe name, unique within the client; default @tracepoint
 * @tracepoint: tracepoint name, e.g. "sched_switch", in the kernel or a
 *	loaded module.  A probe on a module's tracepoint is detached when
 *	the module unloads and attached again when it comes back; with
 *	%PCORE_TP_WAIT, the module need not be loaded yet.
 * @fn: handler with the tracepoint's prototype; its first argument is the
 *	struct pcore_probe, to pass to pcore_tp_hit()
 * @flags: %PCORE_TP_WAIT or 0
 * @hist: the histogram this probe feeds, or NULL (one probe per histogram)
 * @priv: handler data, see pcore_tp_hit()
 */
struct pcore_tracepoint_opts {
	const char *name;
	const char *tracepoint;
	void *fn;
	u32 flags;
	struct pcore_hist *hist;
	void *priv;
};

/* The tracepoint may be in a module not loaded yet: wait for it. */
#define PCORE_TP_WAIT	0x1

/**
 * struct pcore_uprobe_opts - a probe on a function of a user-space file
 * @name: probe name, unique within the client; required
 * @path: the ELF file (executable or shared library), or NULL with @file
 * @file: the file, opened for reading, when @path is NULL
 * @offset: offset in the file of the function's first instruction (its
 *	ELF symbol's value turned into a file offset, as probectl does)
 * @flags: %PCORE_UPROBE_RET: also at the function's return, timing each
 *	call (a uretprobe); 0: at the entry only (a uprobe)
 * @maxactive: %PCORE_UPROBE_RET: calls in flight kept (rounded up to a
 *	power of two); 0: max(64, 8 * CPUs).  A call that finds no room
 *	takes the oldest call's place; both are counted as missed.
 * @data_size: %PCORE_UPROBE_RET: bytes of per-call data for the
 *	handlers, at most 256; 0 otherwise
 * @entry: called at each call with the registers (pcore_arg() reads the
 *	arguments) and, with %PCORE_UPROBE_RET, the per-call data (else
 *	NULL); with %PCORE_UPROBE_RET, return non-zero to not time this
 *	call.  NULL: without %PCORE_UPROBE_RET, count each call into @hist.
 * @ret: %PCORE_UPROBE_RET: called at the return with the per-call data
 *	and the time since the entry in ns (pcore_retval() reads the return
 *	value), or NULL to record that time into @hist
 * @gone: called when the file is deleted or its filesystem unmounted,
 *	after the probe let go of it (its handlers no longer run; it stays
 *	listed until pcore_probe_detach()), or NULL.  Runs in the process
 *	that deleted or unmounted, under filesystem locks: only queue work.
 * @hist: the histogram this probe feeds (one probe per histogram)
 * @priv: handler data, see pcore_probe_priv()
 * @filter: only for these tasks; see struct pcore_filter (zero: all)
 *
 * The probe holds the file's inode, not its path: it does not keep its
 * filesystem mounted.  Handlers run in the task that called the
 * function, in process context.
 */
struct pcore_uprobe_opts {
	const char *name;
	const char *path;
	struct file *file;
	u64 offset;
	u32 flags;
	int maxactive;
	size_t data_size;
	int (*entry)(struct pcore_probe *p, struct pt_regs *regs, void *data);
	void (*ret)(struct pcore_probe *p, struct pt_regs *regs, void *data,
		    u64 ns);
	void (*gone)(struct pcore_probe *p);
	struct pcore_hist *hist;
	void *priv;
	struct pcore_filter filter;
};

/* Time each call, from the entry to the return: a uretprobe. */
#define PCORE_UPROBE_RET	0x1

/* Samples per second per CPU a profiler may take: perf record's default. */
#define PCORE_PROFILE_HZ_MAX	4000

/**
 * struct pcore_profile_opts - a CPU profiler
 * @name: probe name, unique within the client; required
 * @hz: samples per second on each CPU, 1 to %PCORE_PROFILE_HZ_MAX
 * @fn: called at each sample, in hard interrupt context, with the
 *	registers the sample interrupted (user_mode() tells a task in user
 *	space); or NULL to add the stack they give to @hist
 *	(pcore_hist_add_stack() with %PCORE_STACK_IDLE)
 * @hist: the histogram this probe feeds: a %PCORE_KEYS_STACK one when @fn
 *	is NULL (one probe per histogram)
 * @priv: handler data, see pcore_probe_priv()
 * @filter: only samples of these tasks; see struct pcore_filter (zero:
 *	all, idle included)
 * @flags: %PCORE_PROFILE_NO_KTHREADS, or 0
 *
 * A sample is the software perf event cpu-clock on each online CPU (an
 * hrtimer: no PMU needed); CPUs that come online later are sampled too.
 * The probe's hits are the samples taken.
 */
struct pcore_profile_opts {
	const char *name;
	u32 hz;
	void (*fn)(struct pcore_probe *p, struct pt_regs *regs);
	struct pcore_hist *hist;
	void *priv;
	struct pcore_filter filter;
	u32 flags;
};

/*
 * PCORE_PROFILE_NO_KTHREADS: samples of kernel threads (PF_KTHREAD: the
 * idle tasks too, and the interrupts that came while one ran) are left
 * out, not counted as hits.
 */
#define PCORE_PROFILE_NO_KTHREADS	0x1

/* Functions one probe may cover: see pcore_funcs_find(). */
#define PCORE_FUNCS_MAX		256

struct pcore_funcs;

/**
 * struct pcore_funcs_opts - one probe on many kernel functions
 * @name: probe name, unique within the client; required (e.g. the glob)
 * @funcs: the functions, from pcore_funcs_find(); the probe copies what
 *	it needs: free them after the attach
 * @hists: one histogram per function, in the order of @funcs
 *	(pcore_funcs_name()); each fed by this probe only, as @hist of the
 *	other kinds
 * @flags: %PCORE_FUNCS_COUNT: count each call into its function's
 *	histogram (give %PCORE_HIST_COUNT histograms); 0: time each call
 *	from entry to return, in ns
 * @maxactive: timed calls in flight at once: per function (kretprobes),
 *	or for all of them together (one fprobe); 0: max(32, 4 * CPUs) per
 *	function.  Calls beyond it are counted as missed.  A direct call
 *	has no such limit and ignores it.
 * @priv: handler data, see pcore_probe_priv()
 * @filter: only for these tasks; see struct pcore_filter (zero: all)
 * @mech: how the functions are probed.  0 (%PCORE_MECH_DEFAULT) and
 *	%PCORE_MECH_KPROBE: one fprobe (v6.5 to v6.13 with CONFIG_FPROBE),
 *	else a kprobe or kretprobe per function.  %PCORE_MECH_DIRECT: one
 *	ftrace direct call to one trampoline of probe_core's for all of
 *	them (probe kind "direct-funcs"), or an error naming the first
 *	function it cannot take and why: a module's function, one ftrace
 *	cannot trace, one another direct user (a BPF trampoline) has, and
 *	for timing one whose arguments are not all in registers (as the
 *	kernel's BTF says).  %PCORE_MECH_AUTO: the direct call when every
 *	function can take it, else as %PCORE_MECH_KPROBE, and each
 *	histogram's stats name the first function refused and why.
 */
struct pcore_funcs_opts {
	const char *name;
	const struct pcore_funcs *funcs;
	struct pcore_hist * const *hists;
	u32 flags;
	int maxactive;
	void *priv;
	struct pcore_filter filter;
	enum pcore_mech mech;
};

/* Count calls, do not time them. */
#define PCORE_FUNCS_COUNT	0x1

struct pcore_funcs *pcore_funcs_find(const char *glob, unsigned int max);
unsigned int pcore_funcs_count(const struct pcore_funcs *f);
const char *pcore_funcs_name(const struct pcore_funcs *f, unsigned int i);
void pcore_funcs_free(struct pcore_funcs *f);
struct pcore_probe *pcore_funcs_attach(struct pcore_client *c,
				       const struct pcore_funcs_opts *o);

struct pcore_probe *pcore_kprobe_attach(struct pcore_client *c,
					const struct pcore_kprobe_opts *o);
struct pcore_probe *pcore_kretprobe_attach(struct pcore_client *c,
					   const struct pcore_kretprobe_opts *o);
struct pcore_probe *pcore_tracepoint_attach(struct pcore_client *c,
					    const struct pcore_tracepoint_opts *o);
struct pcore_probe *pcore_uprobe_attach(struct pcore_client *c,
					const struct pcore_uprobe_opts *o);
struct pcore_probe *pcore_profile_attach(struct pcore_client *c,
					 const struct pcore_profile_opts *o);
void pcore_probe_detach(struct pcore_probe *p);
void *pcore_probe_priv(const struct pcore_probe *p);
void *pcore_tp_hit(void *data);
const char *pcore_probe_symbol(const struct pcore_probe *p);

/**
 * PCORE_TP_CHECK() - fail the build unless a handler has a tracepoint's prototype
 * @tp: the tracepoint, as an identifier: sched_switch
 * @handler: the handler, which must be void @handler(void *data, <TP_PROTO of @tp>)
 *
 * The check needs the tracepoint's declaration, from its header (for
 * sched_switch, <trace/events/sched.h>), which defines
 * check_trace_callback_type_<tp>(); without it the build fails naming that
 * function.  A tracepoint whose header a module cannot include (a module's
 * tracepoint whose header is not installed) is attached with
 * pcore_tracepoint_attach() and no check.
 */
#define PCORE_TP_CHECK(tp, handler)						\
	static_assert(__same_type(check_trace_callback_type_##tp,	\
				  void (typeof(&(handler)))),			\
		      "tracepoint " #tp ": " #handler				\
		      "() is not void (void *data, <TP_PROTO of " #tp ">)")

/**
 * PCORE_TRACEPOINT_ATTACH() - attach a handler whose prototype the compiler checked
 * @c: the client
 * @tp: the tracepoint, as an identifier: sched_switch
 * @handler: the handler: void @handler(void *data, <TP_PROTO of @tp>)
 * @...: more members of struct pcore_tracepoint_opts, as designated
 *	initializers: .hist = h, .priv = &state, .name = "switch", .flags
 *
 * pcore_tracepoint_attach() with .tracepoint = "@tp" and .fn = @handler, after
 * PCORE_TP_CHECK(): a handler whose prototype is not the tracepoint's (a
 * tracepoint that changed between kernels, a wrong argument) is a build
 * error naming the tracepoint, not a handler that reads garbage.  Include
 * the tracepoint's header first.
 *
 *	#include <trace/events/sched.h>
 *
 *	static void notrace on_switch(PCORE_SCHED_SWITCH_PROTO) { ... }
 *
 *	p = PCORE_TRACEPOINT_ATTACH(pc, sched_switch, on_switch, .hist = h);
 *
 * Context: process context, as pcore_tracepoint_attach().
 * Return: the probe, or ERR_PTR() as pcore_tracepoint_attach().
 */
#define PCORE_TRACEPOINT_ATTACH(c, tp, handler, ...)				\
({									\
	PCORE_TP_CHECK(tp, handler);						\
	pcore_tracepoint_attach(c, &(struct pcore_tracepoint_opts){	\
		.tracepoint = #tp, .fn = (handler), __VA_ARGS__ });		\
})

/**
 * pcore_arg() - the Nth argument of the probed function, at its entry
 * @regs: registers at a kprobe or uprobe on the function's first
 *	instruction, or at a kretprobe's entry
 * @n: argument number from 0; only arguments passed in registers
 *
 * Return: the argument, or 0 when it is not in a register.
 */
static inline unsigned long pcore_arg(struct pt_regs *regs, unsigned int n)
{
	return regs_get_kernel_argument(regs, n);
}

/**
 * pcore_retval() - the return value, at a kretprobe's or uretprobe's return
 * @regs: registers at the return handler
 *
 * Return: the probed function's return value.
 */
static inline unsigned long pcore_retval(struct pt_regs *regs)
{
	return regs_return_value(regs);
}

#endif /* PROBE_CORE_H */
