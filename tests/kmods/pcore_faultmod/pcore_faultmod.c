// SPDX-License-Identifier: GPL-2.0
/*
 * pcore_faultmod: a test module for the probe_core selftests, not an
 * example.  It runs one creating call of the public API per write to
 * /sys/kernel/debug/pcore_faultmod/op, in the writing task, so that a
 * selftest can arm /proc/thread-self/fail-nth right before the write and
 * have exactly that call (and nothing of a module load) see the fault:
 *
 *   client      pcore_client_create()
 *   hist        pcore_hist_create(), plain
 *   keyed       pcore_hist_create(), 16 hashed keys
 *   timer       pcore_timer_create(), task scope
 *   cputimer    pcore_timer_create(), CPU scope
 *   kprobe      pcore_kprobe_attach() on pcore_faultmod_target()
 *   khist       pcore_hist_create(), the kretprobe's (made without a fault)
 *   kretprobe   pcore_kretprobe_attach() on pcore_faultmod_target(), one
 *               instance (register_kretprobe() allocates each alone, and
 *               a failure of any one fails it the same way)
 *   tracepoint  pcore_tracepoint_attach() on sched_switch
 *   add         pcore_hist_add() of 1000 to "hist" (no allocation)
 *   destroy     pcore_client_destroy(): everything goes
 *
 * Each object is created once: the write fails with EBUSY while it
 * exists, and "client" must come first for the others.  A failed call
 * makes the write fail with the call's errno.  Writes are serialised.
 *
 * leak=1 hides a 64-byte allocation from kmemleak until the module is
 * unloaded (which frees it): the kmemleak check must report it while the
 * module is loaded.  leak=2 loses one for good: the check must report it
 * after the module is gone, when its frames no longer resolve.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <probe_core/probe_core.h>
#include <probe_core/compat.h>

static unsigned int leak;
module_param(leak, uint, 0400);
MODULE_PARM_DESC(leak, "1: hide an allocation from kmemleak until unload; 2: leak one");

/* The leak=1 pointer, stored inverted so that kmemleak cannot see it. */
static unsigned long fault_hidden;

static DEFINE_MUTEX(fault_lock);
static struct dentry *fault_dir;
static struct pcore_client *pc;
static struct pcore_hist *fault_hist, *fault_keyed, *fault_khist;
static struct pcore_timer *fault_timer, *fault_cputimer;
static struct pcore_probe *fault_kp, *fault_krp, *fault_tp;

/* What the probes are put on: called by nobody. */
static noinline int __used pcore_faultmod_target(int v)
{
	return v + 1;
}

static void notrace fault_pre(struct pcore_probe *p, struct pt_regs *regs)
{
}

static void notrace fault_switch(PCORE_SCHED_SWITCH_PROTO)
{
	pcore_tp_hit(data);
}

/* Store @obj in *@slot; the errno of a failed call, 0 otherwise. */
static int fault_keep(void **slot, void *obj)
{
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	if (!obj)
		return -EPROTO;
	*slot = obj;
	return 0;
}

static void *fault_hist_new(const char *name, u32 keys)
{
	return pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = name, .key_mode = keys ? PCORE_KEYS_HASHED : 0,
		.keys = keys });
}

static void *make_hist(void)
{
	return fault_hist_new("h", 0);
}

static void *make_keyed(void)
{
	return fault_hist_new("keyed", 16);
}

static void *make_khist(void)
{
	return fault_hist_new("khist", 0);
}

static void *make_timer(void)
{
	return pcore_timer_create(pc, &(struct pcore_timer_opts){
		.name = "t", .scope = PCORE_TIMER_TASK, .tasks = 64 });
}

static void *make_cputimer(void)
{
	return pcore_timer_create(pc, &(struct pcore_timer_opts){
		.name = "ct", .scope = PCORE_TIMER_CPU });
}

static void *make_kprobe(void)
{
	return pcore_kprobe_attach(pc, &(struct pcore_kprobe_opts){
		.name = "kp", .symbol = "pcore_faultmod_target",
		.pre = fault_pre });
}

/* Its histogram is made beforehand, without a fault ("khist"). */
static void *make_kretprobe(void)
{
	if (!fault_khist)
		return ERR_PTR(-ENOENT);
	return pcore_kretprobe_attach(pc, &(struct pcore_kretprobe_opts){
		.name = "krp", .symbol = "pcore_faultmod_target",
		.hist = fault_khist, .maxactive = 1 });
}

static void *make_tracepoint(void)
{
	return pcore_tracepoint_attach(pc, &(struct pcore_tracepoint_opts){
		.name = "tp", .tracepoint = "sched_switch",
		.fn = fault_switch });
}

/* The creating operations: where each keeps its object, how it makes it. */
static const struct {
	const char *op;
	void **slot;
	void *(*make)(void);
} fault_makes[] = {
	{ "hist", (void **)&fault_hist, make_hist },
	{ "keyed", (void **)&fault_keyed, make_keyed },
	{ "timer", (void **)&fault_timer, make_timer },
	{ "cputimer", (void **)&fault_cputimer, make_cputimer },
	{ "kprobe", (void **)&fault_kp, make_kprobe },
	{ "kretprobe", (void **)&fault_krp, make_kretprobe },
	{ "khist", (void **)&fault_khist, make_khist },
	{ "tracepoint", (void **)&fault_tp, make_tracepoint },
};

static int fault_op(const char *op)
{
	unsigned int i;

	if (!strcmp(op, "destroy")) {
		pcore_client_destroy(pc);
		pc = NULL;
		fault_hist = fault_keyed = fault_khist = NULL;
		fault_timer = fault_cputimer = NULL;
		fault_kp = fault_krp = fault_tp = NULL;
		return 0;
	}
	if (!strcmp(op, "client"))
		return pc ? -EBUSY : fault_keep((void **)&pc,
						pcore_client_create(THIS_MODULE));
	if (!pc)
		return -ENOENT;
	if (!strcmp(op, "add")) {
		if (!fault_hist)
			return -ENOENT;
		pcore_hist_add(fault_hist, 1000);
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(fault_makes); i++)
		if (!strcmp(op, fault_makes[i].op))
			return *fault_makes[i].slot ? -EBUSY :
			       fault_keep(fault_makes[i].slot,
					  fault_makes[i].make());
	return -EINVAL;
}

static ssize_t fault_op_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	char op[16];
	int ret;

	if (!count || count >= sizeof(op))
		return -EINVAL;
	if (copy_from_user(op, ubuf, count))
		return -EFAULT;
	op[count] = '\0';
	strim(op);
	mutex_lock(&fault_lock);
	ret = fault_op(op);
	mutex_unlock(&fault_lock);
	return ret ? ret : count;
}

static const struct file_operations fault_op_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = fault_op_write,
	.llseek = noop_llseek,
};

static int __init fault_init(void)
{
	void *p;

	if (leak) {
		p = kmalloc(64, GFP_KERNEL);
		if (!p)
			return -ENOMEM;
		memset(p, 0x5a, 64);
		if (leak == 1)
			fault_hidden = ~(unsigned long)p;
		pr_info("leak=%u: 64 bytes %s\n", leak,
			leak == 1 ? "hidden until unload" : "lost");
	}
	fault_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("op", 0200, fault_dir, NULL, &fault_op_fops);
	return 0;
}

static void __exit fault_exit(void)
{
	debugfs_remove(fault_dir);
	pcore_client_destroy(pc);
	if (fault_hidden)
		kfree((void *)~fault_hidden);
}

module_init(fault_init);
module_exit(fault_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("probe_core selftests: one API call per write, for fault injection; a leak on request");
