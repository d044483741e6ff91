// SPDX-License-Identifier: GPL-2.0
/*
 * probe_core: kprobes, kretprobes and tracepoints feeding per-CPU
 * histograms, read under /sys/kernel/debug/probe_core/.
 *
 *   insmod probe_core.ko target=do_fork,vfs_read tracepoints=sched_switch
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "pcore.h"

/*
 * String parameters are copied into buffers of their own, never
 * allocated: when the kernel's charp setter cannot allocate, the parameter
 * parser reports "`...' invalid for parameter", which is not what
 * happened (found by fault injection).  Same limit as charp, 1024
 * characters; @val is NULL when the parameter was not given.  A longer
 * value is refused by pcore_init() (EINVAL and one line of ours), not by
 * the setter, whose error the kernel would report with a second line
 * and ENOSPC.
 */
#define PCORE_PARAM_MAX	1024
#define PCORE_TARGET_MAX	64	/* functions in target= */

struct pcore_str_param {
	const char *val;
	const char *too_long;	/* the parameter's name, when it was */
	char buf[PCORE_PARAM_MAX + 1];
};

static int pcore_param_set_str(const char *val, const struct kernel_param *kp)
{
	struct pcore_str_param *p = kp->arg;
	size_t len = strnlen(val, PCORE_PARAM_MAX + 1);

	p->val = NULL;
	p->too_long = len > PCORE_PARAM_MAX ? kp->name : NULL;
	if (p->too_long)
		return 0;
	memcpy(p->buf, val, len + 1);
	p->val = p->buf;
	return 0;
}

static int pcore_param_check_str(const struct pcore_str_param *p)
{
	if (!p->too_long)
		return 0;
	pr_err("%s=: longer than %d characters\n", p->too_long,
	       PCORE_PARAM_MAX);
	return -EINVAL;
}

static int pcore_param_get_str(char *buffer, const struct kernel_param *kp)
{
	const struct pcore_str_param *p = kp->arg;

	return scnprintf(buffer, PAGE_SIZE, "%s\n", p->val ?: "(null)");
}

static const struct kernel_param_ops pcore_param_str_ops = {
	.set = pcore_param_set_str,
	.get = pcore_param_get_str,
};

static struct pcore_str_param target;
module_param_cb(target, &pcore_param_str_ops, &target, 0400);
__MODULE_PARM_TYPE(target, "charp");
MODULE_PARM_DESC(target,
	"functions to count and time from entry to return, comma-separated; do_fork and sys_<name> resolve to this kernel's names; suffixes :count, :argN[:UNIT], :retval[:UNIT] record calls, an argument or the return value instead, and a last :by=pid keeps one histogram per process, :by=cgroup one per cgroup v2 (labelled with its path); a glob (vfs_*, with * and ?) takes every function it matches, at most 256, with or without :count");

static struct pcore_str_param stacks;
module_param_cb(stacks, &pcore_param_str_ops, &stacks, 0400);
__MODULE_PARM_TYPE(stacks, "charp");
MODULE_PARM_DESC(stacks,
	"functions whose calls to count by kernel stack, comma-separated (as target=FUNC:stacks); read them in <FUNC>:stacks/stacks");

static struct pcore_str_param tracepoints;
module_param_cb(tracepoints, &pcore_param_str_ops, &tracepoints, 0400);
__MODULE_PARM_TYPE(tracepoints, "charp");
MODULE_PARM_DESC(tracepoints,
	"tracepoints to attach built-in handlers to, comma-separated (sched_switch: on-CPU time slices per CPU; offcpu: off-CPU time by the kernel stack tasks waited in and their process; runqlat: the time tasks wait to run once woken or preempted, and runqlat:by=pid or runqlat:by=cgroup the same per process or per cgroup)");

/*
 * Every bad number is EINVAL, as docs/user-guide.md says: kstrtouint() says ERANGE
 * for 2^32 and more.  The kernel logs the one line ("invalid for
 * parameter").
 */
static int pcore_param_set_uint(const char *val,
				     const struct kernel_param *kp)
{
	return param_set_uint(val, kp) ? -EINVAL : 0;
}

static const struct kernel_param_ops pcore_param_uint_ops = {
	.set = pcore_param_set_uint,
	.get = param_get_uint,
};

static unsigned int maxactive;
module_param_cb(maxactive, &pcore_param_uint_ops, &maxactive, 0400);
__MODULE_PARM_TYPE(maxactive, "uint");
MODULE_PARM_DESC(maxactive,
	"calls of one target that may be in flight at once (0: max(32, 4 * possible CPUs); at most 4096); calls beyond are counted as missed");

static unsigned int pid;
module_param_cb(pid, &pcore_param_uint_ops, &pid, 0400);
__MODULE_PARM_TYPE(pid, "uint");
MODULE_PARM_DESC(pid,
	"target=, stacks= and profile= probes and tracepoints=offcpu see only the threads of this process (0: all)");

static unsigned int ustack;
module_param_cb(ustack, &pcore_param_uint_ops, &ustack, 0400);
__MODULE_PARM_TYPE(ustack, "uint");
MODULE_PARM_DESC(ustack,
	"1: the stacks of profile=, stacks= (as FUNC:stacks:ustack) and tracepoints=offcpu carry the user stack (by frame pointers, 32 frames) and the process (tgid, comm) too; then stack_depth is at most 93 (default 0)");

static unsigned int kthreads = 1;
module_param_cb(kthreads, &pcore_param_uint_ops, &kthreads, 0400);
__MODULE_PARM_TYPE(kthreads, "uint");
MODULE_PARM_DESC(kthreads,
	"0: profile= and tracepoints=offcpu leave kernel threads out (idle included) (default 1)");

static unsigned int stack_depth = PCORE_STACK_DEPTH_DEFAULT;
module_param_cb(stack_depth, &pcore_param_uint_ops, &stack_depth, 0400);
__MODULE_PARM_TYPE(stack_depth, "uint");
MODULE_PARM_DESC(stack_depth,
	"frames kept of each stack of stacks= and :stacks targets, innermost first (1 to 127, default 32)");

module_param_cb(offcpu_min_us, &pcore_param_uint_ops, &pcore_offcpu_min_us,
		0400);
__MODULE_PARM_TYPE(offcpu_min_us, "uint");
MODULE_PARM_DESC(offcpu_min_us,
	"offcpu: waits shorter than this many microseconds are not counted (default 1)");

module_param_cb(offcpu_tasks, &pcore_param_uint_ops, &pcore_offcpu_tasks,
		0400);
__MODULE_PARM_TYPE(offcpu_tasks, "uint");
MODULE_PARM_DESC(offcpu_tasks,
	"offcpu: tasks timed at once, 2 to 65536, rounded up to a power of two (default 4096); a task that finds no room takes the longest wait's slot, counted as evicted in the timers file");

module_param_cb(cgroup_keys, &pcore_param_uint_ops, &pcore_cgroup_keys,
		0400);
__MODULE_PARM_TYPE(cgroup_keys, "uint");
MODULE_PARM_DESC(cgroup_keys,
	":by=cgroup: cgroups told apart in an interval, the series each such histogram can give, 2 to 65536, rounded up to a power of two (default 256); the values of a cgroup that finds no room are counted as dropped");

static unsigned int profile;
module_param_cb(profile, &pcore_param_uint_ops, &profile, 0400);
__MODULE_PARM_TYPE(profile, "uint");
MODULE_PARM_DESC(profile,
	"sample every CPU this many times a second (1 to 4000; 0: no profiler), counting the kernel stacks it runs, [user] and [idle], each with its process ([proc] TGID COMM): the histogram 'profile'");

static struct pcore_str_param comm;
module_param_cb(comm, &pcore_param_str_ops, &comm, 0400);
__MODULE_PARM_TYPE(comm, "charp");
MODULE_PARM_DESC(comm,
	"target=, stacks= and profile= probes and tracepoints=offcpu see only tasks of this name, as /proc/PID/comm shows it (at most 15 characters)");

static struct pcore_str_param mechanism;
module_param_cb(mechanism, &pcore_param_str_ops, &mechanism, 0400);
__MODULE_PARM_TYPE(mechanism, "charp");
MODULE_PARM_DESC(mechanism,
	"how a kernel function is probed: auto (default: a direct call where one can go, else kprobes), direct (an ftrace direct call to a trampoline of probe_core's, a fraction of a kprobe's cost; x86-64 kernels with CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS), or kprobe (kprobes and kretprobes)");

static struct pcore_str_param hist;
module_param_cb(hist, &pcore_param_str_ops, &hist, 0400);
__MODULE_PARM_TYPE(hist, "charp");
MODULE_PARM_DESC(hist,
	"histogram kind: loglinear[:PRECISION] (default, 1/16 relative width), log2, or linear:MIN,MAX,STEP (ns)");

/* mechanism= into pcore_mechanism; one log line on error. */
static int pcore_parse_mechanism(const char *str)
{
	static const char * const names[] = {
		[PCORE_MECH_KPROBE] = "kprobe",
		[PCORE_MECH_DIRECT] = "direct",
		[PCORE_MECH_AUTO] = "auto",
	};
	int i;

	if (!str)
		return 0;
	for (i = PCORE_MECH_KPROBE; i < ARRAY_SIZE(names); i++)
		if (!strcmp(str, names[i]))
			break;
	if (i == ARRAY_SIZE(names)) {
		pr_err("mechanism=%*pE: must be kprobe, direct or auto\n",
		       (int)strlen(str), str);
		return -EINVAL;
	}
	pcore_mechanism = i;
#ifndef PCORE_HAVE_DIRECT
	if (pcore_mechanism == PCORE_MECH_DIRECT) {
		pr_err("mechanism=direct: this kernel has no ftrace direct calls (x86-64, CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS)\n");
		return -EOPNOTSUPP;
	}
#endif
	return 0;
}

/* hist= into a spec (pcore_hist_spec_parse()); one log line on error. */
static int pcore_parse_hist(const char *str, struct pcore_hist_spec *spec)
{
	const char *why;

	/* Kind 0: each target's default (loglinear, log2 for values). */
	*spec = (struct pcore_hist_spec){};
	if (!str)
		return 0;
	if (pcore_hist_spec_parse(str, spec, &why)) {
		pr_err("hist=%*pE: %s\n", (int)strnlen(str, 64), str, why);
		return -EINVAL;
	}
	return 0;
}

/*
 * A comma-separated parameter: every element attached, or none; at most
 * @max elements.  Each element gets @suffix (stacks=F is target=F:stacks).
 */
static int pcore_builtin_list(bool tracepoint, const char *param,
			      const char *val, unsigned int max,
			      const char *suffix,
			      const struct pcore_hist_spec *spec, int active)
{
	struct pcore_builtin_req r = {
		.tracepoint = tracepoint, .param = param, .spec = *spec,
		.maxactive = active, .depth = stack_depth,
	};
	char name[PCORE_NAME_MAX];
	char *copy, *s, *tok;
	unsigned int n;
	int ret = 0;

	if (!val)
		return 0;
	if (!*val) {
		pr_err("%s=: empty list\n", param);
		return -EINVAL;
	}
	n = 1;
	for (s = strchr(val, ','); s; s = strchr(s + 1, ','))
		n++;
	if (n > max) {
		pr_err("%s=: %u names, more than %u\n", param, n, max);
		return -EINVAL;
	}
	copy = kstrdup(val, GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	s = copy;
	while ((tok = strsep(&s, ",")) && !ret) {
		r.name = tok;
		/* Of the tracepoints, offcpu only takes these. */
		if (!tracepoint || !strcmp(tok, "offcpu")) {
			r.filter.pid = pid;
			strscpy(r.filter.comm, comm.val ?: "",
				sizeof(r.filter.comm));
			/* stacks= says it in its suffix */
			r.ustack = tracepoint && ustack;
			r.no_kthreads = tracepoint && !kthreads;
		} else {
			memset(&r.filter, 0, sizeof(r.filter));
			r.ustack = false;
			r.no_kthreads = false;
		}
		if (*suffix && *tok) {
			r.name = name;
			if (snprintf(name, sizeof(name), "%s%s", tok, suffix) >=
			    sizeof(name)) {
				pr_err("%s=%.32s...: longer than %zu characters\n",
				       param, tok,
				       sizeof(name) - 1 - strlen(suffix));
				ret = -EINVAL;
				break;
			}
		}
		ret = pcore_builtin_attach_text(&r);
	}
	kfree(copy);
	return ret;
}

/* profile=: its request, with the filters and stacks the others take. */
static int __init pcore_profile_param(void)
{
	struct pcore_builtin_req r = {
		.param = "profile", .name = "profile", .hz = profile,
		.depth = stack_depth, .ustack = ustack,
		.no_kthreads = !kthreads,
	};

	r.filter.pid = pid;
	strscpy(r.filter.comm, comm.val ?: "", sizeof(r.filter.comm));
	return pcore_builtin_attach(&r);
}

static int __init pcore_init(void)
{
	struct pcore_hist_spec spec;
	unsigned int active = maxactive;
	int ret;

	ret = pcore_param_check_str(&target) ?:
	      pcore_param_check_str(&tracepoints) ?:
	      pcore_param_check_str(&stacks) ?:
	      pcore_param_check_str(&comm) ?:
	      pcore_param_check_str(&hist) ?:
	      pcore_param_check_str(&mechanism) ?:
	      pcore_parse_hist(hist.val, &spec);
	if (ret)
		return ret;
	ret = pcore_parse_mechanism(mechanism.val);
	if (ret)
		return ret;
	if (comm.val && strlen(comm.val) >= TASK_COMM_LEN) {
		pr_err("comm=%*pE: longer than %d characters\n",
		       (int)strlen(comm.val), comm.val, TASK_COMM_LEN - 1);
		return -EINVAL;
	}
	if ((pid || comm.val) && !target.val && !stacks.val && !profile &&
	    !tracepoints.val) {
		pr_err("pid= and comm= filter target=, stacks=, profile= and tracepoints=offcpu: give one of them\n");
		return -EINVAL;
	}
	if (ustack > 1 || kthreads > 1) {
		pr_err("ustack=%u kthreads=%u: each must be 0 or 1\n", ustack,
		       kthreads);
		return -EINVAL;
	}
	if (ustack && stack_depth > PCORE_USTACK_KDEPTH_MAX) {
		pr_err("stack_depth=%u: with ustack=1, must be 1 to %d frames\n",
		       stack_depth, PCORE_USTACK_KDEPTH_MAX);
		return -EINVAL;
	}
	if (!stack_depth || stack_depth > PCORE_STACK_DEPTH_MAX) {
		pr_err("stack_depth=%u: must be 1 to %d frames\n", stack_depth,
		       PCORE_STACK_DEPTH_MAX);
		return -EINVAL;
	}
	if (pcore_offcpu_tasks < 2 ||
	    pcore_offcpu_tasks > PCORE_TIMER_TASKS_MAX) {
		pr_err("offcpu_tasks=%u: must be 2 to %d\n", pcore_offcpu_tasks,
		       PCORE_TIMER_TASKS_MAX);
		return -EINVAL;
	}
	if (pcore_cgroup_keys < 2 || pcore_cgroup_keys > PCORE_KEYS_MAX) {
		pr_err("cgroup_keys=%u: must be 2 to %d\n", pcore_cgroup_keys,
		       PCORE_KEYS_MAX);
		return -EINVAL;
	}
	if (active > PCORE_MAXACTIVE_MAX) {
		pr_err("maxactive=%u: more than %d\n", active,
		       PCORE_MAXACTIVE_MAX);
		return -EINVAL;
	}

	pcore_debugfs_init();
	ret = pcore_client_init();
	if (ret)
		goto err_debugfs;
	ret = pcore_tp_init();
	if (ret)
		goto err_client;
	ret = pcore_timer_init();
	if (ret)
		goto err_tp;
	ret = pcore_uprobe_init();
	if (ret)
		goto err_timer;
	ret = pcore_funcs_init();
	if (ret)
		goto err_uprobe;
	ret = pcore_stack_init();
	if (ret)
		goto err_funcs;
	ret = pcore_profile_init();
	if (ret)
		goto err_stack;
	ret = pcore_builtin_list(false, "target", target.val,
				 PCORE_TARGET_MAX, "", &spec, active);
	if (!ret)
		ret = pcore_builtin_list(false, "stacks", stacks.val,
					 PCORE_TARGET_MAX,
					 ustack ? ":stacks:ustack" : ":stacks",
					 &spec, active);
	if (!ret)
		ret = pcore_builtin_list(true, "tracepoints", tracepoints.val,
					 PCORE_MAX_PROBES, "", &spec, active);
	if (!ret && profile)
		ret = pcore_profile_param();
	if (!ret)
		ret = pcore_chardev_init();
	if (ret)
		goto err_builtins;
	pcore_builtin_log();
	return 0;

err_builtins:
	pcore_builtin_free_all();
	pcore_profile_exit();
err_stack:
	pcore_stack_exit();
err_funcs:
	pcore_funcs_exit();
err_uprobe:
	pcore_uprobe_exit();
err_timer:
	pcore_timer_exit();
err_tp:
	pcore_tp_exit();
err_client:
	pcore_client_exit();
	pcore_direct_cleanup();
err_debugfs:
	pcore_debugfs_exit();
	return ret;
}

static void __exit pcore_exit(void)
{
	pcore_chardev_exit();
	pcore_builtin_free_all();
	pcore_profile_exit();
	pcore_stack_exit();
	pcore_funcs_exit();
	pcore_uprobe_exit();
	pcore_timer_exit();
	pcore_tp_exit();
	pcore_client_exit();
	pcore_direct_cleanup();
	pcore_debugfs_exit();
}

module_init(pcore_init);
module_exit(pcore_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("probe_core: per-CPU histograms from kprobes, uprobes and tracepoints");
MODULE_VERSION("0.2.0");
