/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between kernel versions that probe_core and its
 * handler modules care about, as small prefixed helpers.  Nothing else in
 * the tree tests LINUX_VERSION_CODE.  Ranges are half-open:
 * [introduced, removed).
 *
 * Handler modules use PCORE_SCHED_SWITCH_PROTO for a sched_switch handler,
 * and PCORE_SCHED_SWITCH_PREV_STATE for its prev_state.
 */
#ifndef PROBE_CORE_COMPAT_H
#define PROBE_CORE_COMPAT_H

#include <linux/version.h>
#include <linux/kprobes.h>
#include <linux/llist.h>
#include <linux/pagemap.h>
#include <linux/sched.h>
#include <linux/uaccess.h>
#include <linux/uprobes.h>

/*
 * sched_switch gained prev_state in v5.18 (fa2c3254d7cf, "sched/tracing:
 * Don't re-read p->state when emitting sched_switch event").
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 18, 0)
#define PCORE_SCHED_SWITCH_PROTO					\
	void *data, bool preempt, struct task_struct *prev,		\
	struct task_struct *next, unsigned int prev_state
#else
#define PCORE_SCHED_SWITCH_PROTO					\
	void *data, bool preempt, struct task_struct *prev,		\
	struct task_struct *next
#endif

/*
 * PCORE_SCHED_SWITCH_PREV_STATE: in a handler declared with
 * PCORE_SCHED_SWITCH_PROTO, the state prev left the CPU in (TASK_RUNNING
 * when it was preempted or yielded, TASK_INTERRUPTIBLE... when it
 * blocked).  From v5.18 the tracepoint's prev_state, which __schedule()
 * read before it dequeued the task; before, prev's state read here, as
 * the tracepoint itself did then (a wakeup between the two reads shows
 * TASK_RUNNING: the race that v5.18 fixed).  A preempted task may still
 * have a sleeping state set; test preempt first when that matters.
 * task_struct's state is __state from v5.14 (2f064a59a11f, "sched:
 * Change task_struct::state").
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 18, 0)
#define PCORE_SCHED_SWITCH_PREV_STATE	(prev_state)
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(5, 14, 0)
#define PCORE_SCHED_SWITCH_PREV_STATE	((unsigned int)READ_ONCE(prev->__state))
#else
#define PCORE_SCHED_SWITCH_PREV_STATE	((unsigned int)READ_ONCE(prev->state))
#endif

/*
 * A task's state, read once: task_struct's state is __state from v5.14
 * (2f064a59a11f, "sched: Change task_struct::state").
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 14, 0)
#define pcore_task_state(t)	((unsigned int)READ_ONCE((t)->__state))
#else
#define pcore_task_state(t)	((unsigned int)READ_ONCE((t)->state))
#endif

/*
 * sched_wakeup and sched_wakeup_new pass the woken task alone,
 * TP_PROTO(struct task_struct *p), in 6.1 and 6.12 alike (PCORE_TP_CHECK()
 * checks it at build): no prototype macro is needed.
 */

/*
 * do_fork() became _do_fork() in v4.2 and kernel_clone() in v5.10
 * (cad6967ac108, "fork: introduce kernel_clone()"); names are tried in
 * this order until one exists.
 */
#define PCORE_DO_FORK_ALIASES	{ "_do_fork", "kernel_clone" }

/*
 * Syscall entry points are arch wrappers since v4.17 (x86: fa697140f9a2,
 * "syscalls/x86: Use 'struct pt_regs' based syscall calling convention").
 */
#ifdef CONFIG_X86_64
#define PCORE_SYSCALL_PREFIX	"__x64_sys_"
#elif defined(CONFIG_ARM64)
#define PCORE_SYSCALL_PREFIX	"__arm64_sys_"
#else
#define PCORE_SYSCALL_PREFIX	"sys_"
#endif

/*
 * Missed kretprobe events: both counters are plain fields in every
 * supported kernel; kretprobes on rethook (v5.19+) keep rp->nmissed.
 */
static inline unsigned long pcore_kretprobe_nmissed(const struct kretprobe *rp)
{
	return READ_ONCE(rp->nmissed) + READ_ONCE(rp->kp.nmissed);
}

/*
 * uprobe_register() returns the uprobe, and unregistering is split into
 * uprobe_unregister_nosync() and one uprobe_unregister_sync() for any
 * number of uprobes, since v6.12 (the uprobes rework of that release:
 * "uprobes: make uprobe_register() return struct uprobe *" and the split
 * of uprobe_unregister()).  Before, the uprobe is named by inode and
 * offset again, and uprobe_unregister() returns once no handler of the
 * consumer runs.
 */
#ifdef CONFIG_UPROBES
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
static inline int pcore_uprobe_register(struct inode *inode, loff_t offset,
					struct uprobe_consumer *uc,
					struct uprobe **u)
{
	*u = uprobe_register(inode, offset, 0, uc);
	return PTR_ERR_OR_ZERO(*u);
}

static inline void pcore_uprobe_unregister_nosync(struct inode *inode,
						  loff_t offset,
						  struct uprobe_consumer *uc,
						  struct uprobe *u)
{
	uprobe_unregister_nosync(u, uc);
}

static inline void pcore_uprobe_unregister_sync(void)
{
	uprobe_unregister_sync();
}
#else
static inline int pcore_uprobe_register(struct inode *inode, loff_t offset,
					struct uprobe_consumer *uc,
					struct uprobe **u)
{
	*u = NULL;
	return uprobe_register(inode, offset, uc);
}

static inline void pcore_uprobe_unregister_nosync(struct inode *inode,
						  loff_t offset,
						  struct uprobe_consumer *uc,
						  struct uprobe *u)
{
	uprobe_unregister(inode, offset, uc);
}

static inline void pcore_uprobe_unregister_sync(void)
{
}
#endif
#endif /* CONFIG_UPROBES */

/*
 * The stack pointer that names a user-space call: what its uretprobe sees
 * at the return, computed at the uprobe on the function's first
 * instruction.  x86's call pushes the return address, which the return
 * pops (4 bytes in a 32-bit task); elsewhere it is in a register.
 */
static inline unsigned long pcore_ucall_sp(struct pt_regs *regs, bool entry)
{
#ifdef CONFIG_X86_64
	if (entry)
		return user_stack_pointer(regs) +
		       (user_64bit_mode(regs) ? 8 : 4);
#elif defined(CONFIG_X86)
	if (entry)
		return user_stack_pointer(regs) + 4;
#endif
	return user_stack_pointer(regs);
}

/*
 * Can @size bytes at @uaddr be written?  Faults them in for writing
 * without writing them; 0, or the bytes that could not be.  The kernel's
 * fault_in_safe_writeable() since v5.16 (cdd591fc86e3, "iov_iter:
 * Introduce fault_in_iov_iter_writeable"); before, each page's first byte
 * written back as it was read.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 16, 0)
static inline size_t pcore_fault_in_writeable(void __user *uaddr, size_t size)
{
	return fault_in_safe_writeable(uaddr, size);
}
#else
static inline size_t pcore_fault_in_writeable(void __user *uaddr, size_t size)
{
	char __user *p = uaddr, *end = p + size;
	char c;

	if (!access_ok(uaddr, size))
		return size;
	for (; p < end; p = (char __user *)PAGE_ALIGN((unsigned long)p + 1))
		if (get_user(c, p) || put_user(c, p))
			return size;
	return 0;
}
#endif

/*
 * fprobe: one ftrace registration for many functions, with an entry
 * handler and an exit handler that get the function's ftrace address.
 * Taken from v6.5 (entry handlers return int from v6.4, ftrace's list
 * with addresses from v6.5) to before v6.14, where the handlers take a
 * struct ftrace_regs; elsewhere (Debian's 6.1 has no CONFIG_FPROBE) one
 * kretprobe or kprobe per function.
 */
#if IS_ENABLED(CONFIG_FPROBE) && \
	LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0) && \
	LINUX_VERSION_CODE < KERNEL_VERSION(6, 14, 0)
#define PCORE_HAVE_FPROBE	1
#include <linux/rethook.h>

/*
 * What fprobe allocates for its return hooks: @n nodes, each a rethook
 * node, the function's address and its caller's, and @data_size of the
 * entry handler's data (struct fprobe_rethook_node, which is private).
 */
static inline size_t pcore_fprobe_mem(u32 n, size_t data_size)
{
	return (size_t)n * (sizeof(struct rethook_node) +
			    2 * sizeof(unsigned long) + data_size);
}
#endif

/*
 * Does @t have a return pending of a kretprobe (or of another user of
 * rethook, such as fprobe), that is, a return trampoline on its stack?
 * Kretprobes list their instances on the task until v5.19 and on x86 go
 * through rethook from then on (73f9b911faa7, "kprobes: Use rethook for
 * kretprobe if possible"); either list may be compiled in.
 */
static inline bool pcore_task_returns_pending(struct task_struct *t)
{
#ifdef CONFIG_KRETPROBES
	if (!llist_empty(&t->kretprobe_instances))
		return true;
#endif
#ifdef CONFIG_RETHOOK
	if (!llist_empty(&t->rethooks))
		return true;
#endif
	return false;
}

/*
 * BTF kinds that <uapi/linux/btf.h> names from v5.16 (DECL_TAG), v5.17
 * (TYPE_TAG) and v6.0 (ENUM64): btf.c steps over them.  Their numbers and
 * what follows their struct btf_type are BTF's ABI.
 */
#include <uapi/linux/btf.h>
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 16, 0)
#define BTF_KIND_DECL_TAG	17
struct btf_decl_tag {
	__s32 component_idx;
};
#endif
#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 17, 0)
#define BTF_KIND_TYPE_TAG	18
#endif
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 0, 0)
#define BTF_KIND_ENUM64		19
struct btf_enum64 {
	__u32 name_off;
	__u32 val_lo32;
	__u32 val_hi32;
};
#endif

/*
 * ftrace direct calls (direct.c): a function's ftrace site made a call to
 * a trampoline of ours, on x86-64 kernels with
 * CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS (which BPF trampolines need).
 * v6.5 renamed register_ftrace_direct_multi() to register_ftrace_direct()
 * (the old single-function one went).  Before v6.5 a register leaves
 * the ops without FTRACE_OPS_FL_INITIALIZED: setting the filter again
 * (which initializes it) comes before a register again.
 */
#if IS_ENABLED(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS) && \
	defined(CONFIG_X86_64)
#define PCORE_HAVE_DIRECT	1
#include <linux/ftrace.h>

static inline int pcore_ftrace_direct_register(struct ftrace_ops *ops,
					       unsigned long addr)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
	return register_ftrace_direct(ops, addr);
#else
	return register_ftrace_direct_multi(ops, addr);
#endif
}

/*
 * v6.0 (53cd885bc5c3, "ftrace: Allow IPMODIFY and DIRECT ops on the same
 * function") let a direct ops share a function with one that moves the
 * instruction pointer (FTRACE_OPS_FL_IPMODIFY: a livepatch) when the
 * direct ops' ops_func agrees; before, a direct ops was IPMODIFY itself
 * and the two never shared.  6.1 and 6.12 are the same.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 0, 0)
#define PCORE_HAVE_DIRECT_SHARE	1
#endif

/*
 * Unregister; the filter stays, for a register again, until
 * ftrace_free_filter() (which leaves the ops unusable: only at the end).
 */
static inline void pcore_ftrace_direct_unregister(struct ftrace_ops *ops,
						  unsigned long addr)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
	unregister_ftrace_direct(ops, addr, false);
#else
	unregister_ftrace_direct_multi(ops, addr);
#endif
}

/*
 * Functions one registration of a direct call may take (a glob's).
 * Before v6.7 (d05cb470663a, "ftrace: Fix modification of
 * direct_function hash while in use") a register grows ftrace's table of
 * direct calls one function at a time, and one that grows it twice leaks
 * the table it replaced first (kmemleak sees it on Debian's 6.1); with
 * at most 64 functions it never does (the table has 32 buckets or more
 * and grows past two entries a bucket, to twice as many).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 7, 0)
#define PCORE_DIRECT_FUNCS_MAX	64
#else
#define PCORE_DIRECT_FUNCS_MAX	PCORE_FUNCS_MAX
#endif

/*
 * One ftrace_ops filtered to many functions (a glob's direct calls):
 * ftrace_set_filter_ips() sets them all with one new hash (v5.18+, for
 * fprobe), nothing set when one is not an ftrace site; before it, one
 * ftrace_set_filter_ip() each, those before the bad one set.
 */
static inline int pcore_ftrace_set_filter_ips(struct ftrace_ops *ops,
					      unsigned long *ips,
					      unsigned int n)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 18, 0)
	return ftrace_set_filter_ips(ops, ips, n, 0, 0);
#else
	unsigned int i;
	int ret = 0;

	for (i = 0; i < n && !ret; i++)
		ret = ftrace_set_filter_ip(ops, ips[i], 0, 0);
	return ret;
#endif
}

/*
 * objtool's hint (direct.c's latency trampolines) that the stack is as
 * at a call, @off bytes from the stack pointer to the caller's frame:
 * v6.4 moved the type to the front of UNWIND_HINT().
 */
#include <linux/objtool.h>
#include <asm/orc_types.h>
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define PCORE_UNWIND_HINT_CALL(off) \
	UNWIND_HINT(UNWIND_HINT_TYPE_CALL, ORC_REG_SP, off, 0)
#else
#define PCORE_UNWIND_HINT_CALL(off) \
	UNWIND_HINT(ORC_REG_SP, off, UNWIND_HINT_TYPE_CALL, 0)
#endif
#endif

/*
 * The cgroup v2 id of @t (its cgroup in the default hierarchy), read as
 * bpf_get_current_cgroup_id() reads it: cgroup_id(task_dfl_cgroup())
 * under RCU.  Any context, NMI included: rcu_read_lock() is NMI-safe,
 * nothing is taken or allocated; for a task other than current, the
 * caller keeps it alive (sched_switch's next, a woken task: their run
 * queue's lock is held).  The same on v6.1 and v6.12: task_dfl_cgroup()
 * and cgroup_id() (kn->id) have not changed since v5.7 (743210386c03,
 * "cgroup: use cgrp->kn->id as the cgroup ID").  Without cgroups every
 * task is in the root, id 1, as cgroup_id() says then.
 */
#ifdef CONFIG_CGROUPS
#include <linux/cgroup.h>
static __always_inline u64 pcore_task_cgroup_id(struct task_struct *t)
{
	u64 id;

	rcu_read_lock();
	id = cgroup_id(task_dfl_cgroup(t));
	rcu_read_unlock();
	return id;
}

/*
 * The path of cgroup v2 @id into @buf (@len bytes), relative to the
 * cgroup2 root ("/" for the root): cgroup_get_from_id(), which finds
 * a cgroup under the reader's cgroup namespace that is not released yet
 * (v6.1 and v6.12 alike), online (not removed), and cgroup_path().  Process context: it may
 * take kernfs's spinlocks.  Return: the path's length (the path is cut
 * at @len - 1 when longer), or -ENOENT when there is no such cgroup (any
 * more).
 */
static inline int pcore_cgroup_path(u64 id, char *buf, size_t len)
{
	struct cgroup *cgrp = cgroup_get_from_id(id);
	int n;

	if (IS_ERR(cgrp))
		return -ENOENT;
	/*
	 * A removed cgroup that something still holds is found (its
	 * reference is not dead yet), and its kernfs node still has its
	 * parent: offline since its rmdir (cgroup_destroy_locked()).
	 */
	if (!(READ_ONCE(cgrp->self.flags) & CSS_ONLINE)) {
		cgroup_put(cgrp);
		return -ENOENT;
	}
	n = cgroup_path(cgrp, buf, len);
	cgroup_put(cgrp);
	return n < 0 ? -ENOENT : n;
}
#else
static __always_inline u64 pcore_task_cgroup_id(struct task_struct *t)
{
	return 1;
}

static inline int pcore_cgroup_path(u64 id, char *buf, size_t len)
{
	if (id != 1)
		return -ENOENT;
	return strscpy(buf, "/", len);
}
#endif

#endif /* PROBE_CORE_COMPAT_H */
