// SPDX-License-Identifier: GPL-2.0
/*
 * pcore_apitest: a test module for the probe_core selftests, not an
 * example.  Each load runs one scenario of the public API, named by the
 * parameter case=<name> (the tables and apitest_funcs[] below):
 *
 *   bad input   the scenario calls the API with one bad value and the load
 *               fails with the errno the API returned; the selftest checks
 *               it, the one kernel log line, and that nothing is left
 *   good input  the scenario records values or times events at load, in
 *               numbers the selftest knows, and stays loaded so that the
 *               selftest can read /sys/kernel/debug/probe_core/pcore_apitest/
 *   no_destroy  the module unloads without calling pcore_client_destroy()
 *
 *   insmod pcore_apitest.ko case=hist_name_empty     (fails with EINVAL)
 *   insmod pcore_apitest.ko case=keys_hashed nkeys=10
 *
 * The selftests are tests/selftests/pcore_apitest.c, pcore_tpmod.c and
 * pcore_lifecycle.c; the expected numbers of the good cases are documented
 * at each case and repeated there.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/string.h>
#include <linux/time.h>
#include <linux/uaccess.h>
#include <probe_core/probe_core.h>
#include <probe_core/compat.h>

static char *apitest_case;
module_param_named(case, apitest_case, charp, 0400);
MODULE_PARM_DESC(case, "the scenario to run at load");

static unsigned int nkeys = 10;
module_param(nkeys, uint, 0400);
MODULE_PARM_DESC(nkeys, "keys_hashed: distinct keys recorded (at most 64)");

static unsigned int loops = 5;
module_param(loops, uint, 0400);
MODULE_PARM_DESC(loops, "timer_cpu: measurements of each kind (at most 100)");

/* Set by timer_cpu and timer_task: their sleeps, those that switched out. */
static unsigned int sleeps, switched;
module_param(sleeps, uint, 0400);
MODULE_PARM_DESC(sleeps, "timer_task: sleeps between a start and a stop");
module_param(switched, uint, 0400);
MODULE_PARM_DESC(switched, "timer_cpu, timer_task: sleeps during which the task switched out");

/* Set by probe_forms (anything given at load is overwritten). */
static unsigned int forms_offset;
module_param(forms_offset, uint, 0444);
MODULE_PARM_DESC(forms_offset, "probe_forms: where the offset probe is, from pcore_apitest_target (read it)");

static unsigned int nprobes = 200;
module_param(nprobes, uint, 0400);
MODULE_PARM_DESC(nprobes, "many_probes: probes attached (2 to 256)");

static char *many_kinds = "kt";
module_param(many_kinds, charp, 0400);
MODULE_PARM_DESC(many_kinds, "many_probes: the kinds attached in turn (k kprobe, t tracepoint)");

/* Set by keys_addr: the address it records under (test only: raw). */
static unsigned long addr_key;
module_param(addr_key, ulong, 0400);
MODULE_PARM_DESC(addr_key, "keys_addr: the address used as a key (read it)");

static char *upath;
module_param(upath, charp, 0400);
MODULE_PARM_DESC(upath, "uprobe_data: the ELF file to probe");

static unsigned long long uoff;
module_param(uoff, ullong, 0400);
MODULE_PARM_DESC(uoff, "uprobe_data: the offset in it of a function long f(long) returning its argument");

/* Set by hist_mem: what pcore_hist_mem() said (read them). */
static unsigned long mem_plain, mem_keyed, mem_keyed_max, mem_stack, mem_bad;
module_param(mem_plain, ulong, 0444);
MODULE_PARM_DESC(mem_plain, "hist_mem: pcore_hist_mem() of \"plain\" (read it)");
module_param(mem_keyed, ulong, 0444);
MODULE_PARM_DESC(mem_keyed, "hist_mem: pcore_hist_mem() of \"keyed\" (read it)");
module_param(mem_keyed_max, ulong, 0444);
MODULE_PARM_DESC(mem_keyed_max, "hist_mem: the most \"keyed\" can take (read it)");
module_param(mem_stack, ulong, 0444);
MODULE_PARM_DESC(mem_stack, "hist_mem: pcore_hist_mem() of \"stack\" (read it)");
module_param(mem_bad, ulong, 0444);
MODULE_PARM_DESC(mem_bad, "hist_mem: pcore_hist_mem() of refused options, then its max (read it: 0)");

static struct pcore_client *pc;
static bool skip_destroy;
static bool many_report;

/* 128 letters: one more than a name may have. */
static char apitest_long[PCORE_NAME_MAX + 1];

static void notrace apitest_pre(struct pcore_probe *p, struct pt_regs *regs)
{
}

static void notrace apitest_ret(struct pcore_probe *p, struct pt_regs *regs,
				void *data, u64 ns)
{
}

static int notrace apitest_entry(struct pcore_probe *p, struct pt_regs *regs,
				 void *data)
{
	return 0;
}

/* The prototype of pcore_tpsrc_event, the tracepoint of pcore_tpsrc. */
static void notrace apitest_tpsrc_event(void *data, u64 value)
{
	struct pcore_hist *h = pcore_tp_hit(data);

	pcore_hist_add(h, value);
}

static void notrace apitest_tpsrc_count(void *data, u64 value)
{
	pcore_tp_hit(data);
}

static void notrace apitest_switch(PCORE_SCHED_SWITCH_PROTO)
{
	pcore_tp_hit(data);
}

/* The errno of a refused call; 0 (the load succeeds) when it was not. */
static int apitest_err(const void *p)
{
	if (IS_ERR(p))
		return PTR_ERR(p);
	if (!p) {
		pr_err("the API returned NULL instead of an error pointer\n");
		return -EPROTO;
	}
	return 0;
}

/* Bad input, one table per creating function: each entry one bad value. */
#define APITEST_CASES(kind, opts_type)					\
	static const struct {						\
		const char *name;					\
		opts_type o;						\
	} kind##_cases[]

APITEST_CASES(hist, struct pcore_hist_opts) = {
	{ "hist_name_null", { .name = NULL } },
	{ "hist_name_empty", { .name = "" } },
	{ "hist_name_long", { .name = apitest_long } },
	{ "hist_name_slash", { .name = "a/b" } },
	{ "hist_name_dot", { .name = ".hidden" } },
	{ "hist_name_dotdot", { .name = ".." } },
	{ "hist_name_space", { .name = "a b" } },
	{ "hist_kind_unknown", { .name = "h", .spec.kind = 6 } },
	{ "hist_linear_step0", { .name = "h", .spec = {
		.kind = PCORE_HIST_LINEAR, .min = 0, .max = 100, .step = 0 } } },
	{ "hist_linear_order", { .name = "h", .spec = {
		.kind = PCORE_HIST_LINEAR, .min = 100, .max = 0, .step = 10 } } },
	{ "hist_linear_multiple", { .name = "h", .spec = {
		.kind = PCORE_HIST_LINEAR, .min = 0, .max = 100, .step = 7 } } },
	{ "hist_linear_huge", { .name = "h", .spec = {
		.kind = PCORE_HIST_LINEAR, .min = 0, .max = 1000000, .step = 1 } } },
	{ "hist_precision", { .name = "h", .spec = {
		.kind = PCORE_HIST_LOGLINEAR, .precision = 8 } } },
	{ "hist_keys_zero", { .name = "h", .key_mode = PCORE_KEYS_DIRECT,
		.keys = 0 } },
	{ "hist_keys_big", { .name = "h", .key_mode = PCORE_KEYS_HASHED,
		.keys = PCORE_KEYS_MAX + 1 } },
	{ "hist_keys_nomode", { .name = "h", .keys = 4 } },
	{ "hist_key_mode", { .name = "h", .key_mode = 4, .keys = 4 } },
	{ "hist_stack_depth", { .name = "h", .key_mode = PCORE_KEYS_STACK,
		.keys = 4, .depth = PCORE_STACK_DEPTH_MAX + 1 } },
	{ "hist_depth_hashed", { .name = "h", .key_mode = PCORE_KEYS_HASHED,
		.keys = 4, .depth = 8 } },
	{ "hist_key_addr_stack", { .name = "h", .key_mode = PCORE_KEYS_STACK,
		.keys = 4, .flags = PCORE_HIST_KEY_ADDR } },
	{ "hist_unit_empty", { .name = "h", .unit = "" } },
	{ "hist_unit_long", { .name = "h", .unit = "abcdefghijklmnop" } },
	{ "hist_unit_space", { .name = "h", .unit = "n s" } },
	{ "hist_key_name_newline", { .name = "h", .key_mode = PCORE_KEYS_DIRECT,
		.keys = 4, .key_name = "a\nb" } },
	{ "hist_flags_unknown", { .name = "h", .key_mode = PCORE_KEYS_HASHED,
		.keys = 4, .flags = 16 } },
	{ "hist_ustack_hashed", { .name = "h", .key_mode = PCORE_KEYS_HASHED,
		.keys = 4, .flags = PCORE_HIST_USTACK } },
	{ "hist_ustack_deep", { .name = "h", .key_mode = PCORE_KEYS_STACK,
		.keys = 4, .depth = 94, .flags = PCORE_HIST_USTACK } },
	{ "hist_proc_hashed", { .name = "h", .key_mode = PCORE_KEYS_HASHED,
		.keys = 4, .flags = PCORE_HIST_PROC } },
	{ "hist_proc_ustack", { .name = "h", .key_mode = PCORE_KEYS_STACK,
		.keys = 4, .flags = PCORE_HIST_PROC | PCORE_HIST_USTACK } },
	{ "hist_proc_deep", { .name = "h", .key_mode = PCORE_KEYS_STACK,
		.keys = 4, .depth = PCORE_STACK_DEPTH_MAX + 1,
		.flags = PCORE_HIST_PROC } },
	{ "hist_key_addr_direct", { .name = "h", .key_mode = PCORE_KEYS_DIRECT,
		.keys = 4, .flags = PCORE_HIST_KEY_ADDR } },
	{ "hist_key_cgroup_direct", { .name = "h",
		.key_mode = PCORE_KEYS_DIRECT, .keys = 4,
		.flags = PCORE_HIST_KEY_CGROUP } },
	{ "hist_key_cgroup_addr", { .name = "h", .key_mode = PCORE_KEYS_HASHED,
		.keys = 4, .flags = PCORE_HIST_KEY_CGROUP | PCORE_HIST_KEY_ADDR } },
};

APITEST_CASES(timer, struct pcore_timer_opts) = {
	{ "timer_name_null", { .scope = PCORE_TIMER_CPU } },
	{ "timer_scope_zero", { .name = "t" } },
	{ "timer_scope_unknown", { .name = "t", .scope = 3 } },
	{ "timer_flags", { .name = "t", .scope = PCORE_TIMER_CPU, .flags = 2 } },
	{ "timer_tasks_zero", { .name = "t", .scope = PCORE_TIMER_TASK } },
	{ "timer_tasks_big", { .name = "t", .scope = PCORE_TIMER_TASK,
		.tasks = 65537 } },
	{ "timer_tasks_cpu", { .name = "t", .scope = PCORE_TIMER_CPU,
		.tasks = 4 } },
	/* Valid: 1.5 MB of stamps, over mem_max=1M. */
	{ "timer_big", { .name = "t", .scope = PCORE_TIMER_TASK,
		.tasks = 32768 } },
};

APITEST_CASES(kprobe, struct pcore_kprobe_opts) = {
	{ "kprobe_both", { .symbol = "vfs_read", .addr = (void *)apitest_pre,
		.pre = apitest_pre } },
	{ "kprobe_neither", { .pre = apitest_pre } },
	{ "kprobe_no_handler", { .symbol = "vfs_read" } },
	{ "kprobe_unknown", { .symbol = "pcore_no_such_function",
		.pre = apitest_pre } },
	{ "kprobe_blacklisted", { .symbol = "get_kprobe", .pre = apitest_pre } },
	{ "kprobe_data", { .symbol = "jiffies", .pre = apitest_pre } },
	{ "kprobe_bad_symbol", { .symbol = "vfs-read", .pre = apitest_pre } },
	{ "kprobe_bad_name", { .name = "a/b", .symbol = "vfs_read",
		.pre = apitest_pre } },
	{ "kprobe_mech_unknown", { .symbol = "vfs_read", .pre = apitest_pre,
		.mech = (enum pcore_mech)4 } },
	/* What no direct call does: refused under PCORE_MECH_DIRECT. */
	{ "kprobe_direct_post", { .symbol = "vfs_read", .pre = apitest_pre,
		.post = apitest_pre, .mech = PCORE_MECH_DIRECT } },
	{ "kprobe_direct_offset", { .symbol = "vfs_read", .offset = 4,
		.pre = apitest_pre, .mech = PCORE_MECH_DIRECT } },
	{ "kprobe_direct_addr", { .addr = (void *)apitest_pre,
		.pre = apitest_pre, .mech = PCORE_MECH_DIRECT } },
	{ "kprobe_direct_module", { .symbol = "pcore_apitest_target",
		.pre = apitest_pre, .mech = PCORE_MECH_DIRECT } },
};

APITEST_CASES(kretprobe, struct pcore_kretprobe_opts) = {
	{ "kretprobe_no_symbol", { .ret = apitest_ret } },
	{ "kretprobe_maxactive_neg", { .symbol = "vfs_read", .ret = apitest_ret,
		.maxactive = -1 } },
	{ "kretprobe_maxactive_big", { .symbol = "vfs_read", .ret = apitest_ret,
		.maxactive = 4097 } },
	{ "kretprobe_data_size", { .symbol = "vfs_read", .ret = apitest_ret,
		.data_size = 257 } },
	/* Valid: 4096 instances of over 256 bytes, over mem_max=1M. */
	{ "kretprobe_big", { .symbol = "vfs_read", .ret = apitest_ret,
		.maxactive = 4096, .data_size = 256 } },
	{ "kretprobe_no_ret", { .symbol = "vfs_read" } },
	{ "kretprobe_unknown", { .symbol = "pcore_no_such_function",
		.ret = apitest_ret } },
	{ "kretprobe_blacklisted", { .symbol = "get_kprobe",
		.ret = apitest_ret } },
	{ "kretprobe_mech_unknown", { .symbol = "vfs_read", .ret = apitest_ret,
		.mech = (enum pcore_mech)4 } },
	{ "kretprobe_direct_entry", { .symbol = "vfs_read", .ret = apitest_ret,
		.entry = apitest_entry, .mech = PCORE_MECH_DIRECT } },
	{ "kretprobe_direct_data", { .symbol = "vfs_read", .ret = apitest_ret,
		.data_size = 8, .mech = PCORE_MECH_DIRECT } },
	/* Out of range whatever the mechanism: the kretprobe's check. */
	{ "kretprobe_direct_maxactive", { .symbol = "vfs_read",
		.ret = apitest_ret, .maxactive = -1,
		.mech = PCORE_MECH_DIRECT } },
	/* Arguments on the stack: BTF's reason. */
	{ "kretprobe_direct_stack", { .symbol = "do_mmap", .ret = apitest_ret,
		.mech = PCORE_MECH_DIRECT } },
};

APITEST_CASES(tp, struct pcore_tracepoint_opts) = {
	{ "tp_unknown", { .tracepoint = "pcore_no_such_tp",
		.fn = apitest_switch } },
	{ "tp_flags", { .tracepoint = "sched_switch", .fn = apitest_switch,
		.flags = 2 } },
	{ "tp_no_fn", { .tracepoint = "sched_switch" } },
	{ "tp_no_name", { .fn = apitest_switch } },
	{ "tp_bad_name", { .tracepoint = "sched-switch", .fn = apitest_switch } },
};

static int apitest_uentry(struct pcore_probe *p, struct pt_regs *regs,
			  void *data)
{
	return 0;
}

static void apitest_uret(struct pcore_probe *p, struct pt_regs *regs,
			 void *data, u64 ns)
{
}

#define APITEST_UWORK	"/pcore/selftests/uwork"

APITEST_CASES(uprobe, struct pcore_uprobe_opts) = {
	{ "uprobe_no_name", { .path = APITEST_UWORK, .entry = apitest_uentry } },
	{ "uprobe_no_path", { .name = "u", .entry = apitest_uentry } },
	{ "uprobe_flags", { .name = "u", .path = APITEST_UWORK,
		.entry = apitest_uentry, .flags = 2 } },
	{ "uprobe_ret_no_flag", { .name = "u", .path = APITEST_UWORK,
		.ret = apitest_uret } },
	{ "uprobe_no_handler", { .name = "u", .path = APITEST_UWORK } },
	{ "uretprobe_maxactive", { .name = "u", .path = APITEST_UWORK,
		.flags = PCORE_UPROBE_RET, .ret = apitest_uret,
		.maxactive = 4097 } },
	{ "uretprobe_data_size", { .name = "u", .path = APITEST_UWORK,
		.flags = PCORE_UPROBE_RET, .ret = apitest_uret,
		.data_size = 257 } },
	{ "uretprobe_no_ret", { .name = "u", .path = APITEST_UWORK,
		.flags = PCORE_UPROBE_RET } },
	{ "uprobe_no_file", { .name = "u", .path = "/pcore/no/such/file",
		.entry = apitest_uentry } },
	{ "uprobe_not_elf", { .name = "u", .path = "/pcore/selftests/settings",
		.entry = apitest_uentry } },
	{ "uprobe_dir", { .name = "u", .path = "/pcore/selftests",
		.entry = apitest_uentry } },
	{ "uprobe_past_end", { .name = "u", .path = APITEST_UWORK,
		.offset = 1ULL << 40, .entry = apitest_uentry } },
};

/*
 * uprobe_data: a uretprobe on upath:uoff, a function that returns its
 * argument, with per-call data: the entry keeps the argument (and does
 * not time calls with a negative one), the return checks the return
 * value against it and records the time into uret_ok or uret_bad.
 */
static struct pcore_hist *uret_ok, *uret_bad;

static int apitest_udata_entry(struct pcore_probe *p, struct pt_regs *regs,
			       void *data)
{
	long arg = pcore_arg(regs, 0);

	*(long *)data = arg;
	return arg < 0;
}

static void apitest_udata_ret(struct pcore_probe *p, struct pt_regs *regs,
			      void *data, u64 ns)
{
	bool ok = *(long *)data == (long)pcore_retval(regs);

	pcore_hist_add(ok ? uret_ok : uret_bad, ns);
}

/*
 * uprobe_gone: a counting uprobe on upath:uoff whose gone callback counts
 * its calls in gone_calls; the test deletes the file, and the probe
 * stays listed, gone, until this module unloads.
 */
static unsigned int gone_calls;
module_param(gone_calls, uint, 0444);
MODULE_PARM_DESC(gone_calls, "uprobe_gone: calls of the gone callback (read it)");

static void apitest_gone(struct pcore_probe *p)
{
	WRITE_ONCE(gone_calls, gone_calls + 1);
}

static int uprobe_gone(void)
{
	struct pcore_hist *h = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "ucount", .unit = "calls",
		.spec = { .kind = PCORE_HIST_COUNT } });

	return apitest_err(h) ?:
	       apitest_err(pcore_uprobe_attach(pc, &(struct pcore_uprobe_opts){
			.name = "ucount", .path = upath, .offset = uoff,
			.gone = apitest_gone, .hist = h }));
}

static int uprobe_data(void)
{
	uret_ok = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "uret_ok" });
	uret_bad = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "uret_bad" });
	return apitest_err(uret_ok) ?: apitest_err(uret_bad) ?:
	       apitest_err(pcore_uprobe_attach(pc, &(struct pcore_uprobe_opts){
			.name = "uret", .path = upath, .offset = uoff,
			.flags = PCORE_UPROBE_RET, .data_size = sizeof(long),
			.entry = apitest_udata_entry,
			.ret = apitest_udata_ret }));
}

/* Bad input that takes more than one call. */

static int null_opts_hist(void)
{
	return apitest_err(pcore_hist_create(pc, NULL));
}

static int null_opts_timer(void)
{
	return apitest_err(pcore_timer_create(pc, NULL));
}

static int null_opts_kprobe(void)
{
	return apitest_err(pcore_kprobe_attach(pc, NULL));
}

static int null_opts_kretprobe(void)
{
	return apitest_err(pcore_kretprobe_attach(pc, NULL));
}

static int null_opts_tp(void)
{
	return apitest_err(pcore_tracepoint_attach(pc, NULL));
}

static int null_client(void)
{
	return apitest_err(pcore_hist_create(NULL,
			&(struct pcore_hist_opts){ .name = "h" }));
}

static int error_client(void)
{
	return apitest_err(pcore_timer_create(ERR_PTR(-EEXIST),
			&(struct pcore_timer_opts){ .name = "t",
						    .scope = PCORE_TIMER_CPU }));
}

static int client_null_owner(void)
{
	return apitest_err(pcore_client_create(NULL));
}

static int client_twice(void)
{
	return apitest_err(pcore_client_create(THIS_MODULE));
}

/* The unchecked result of a failed pcore_hist_create(). */
static int kprobe_hist_error(void)
{
	return apitest_err(pcore_kprobe_attach(pc, &(struct pcore_kprobe_opts){
		.symbol = "vfs_read", .pre = apitest_pre,
		.hist = ERR_PTR(-ENOMEM) }));
}

static int hist_dup(void)
{
	struct pcore_hist_opts o = { .name = "lat" };
	int ret = apitest_err(pcore_hist_create(pc, &o));

	return ret ?: apitest_err(pcore_hist_create(pc, &o));
}

/* Names of the client directory's own files. */
static int hist_reserved(void)
{
	return apitest_err(pcore_hist_create(pc,
			&(struct pcore_hist_opts){ .name = "timers" }));
}

static int timer_dup(void)
{
	struct pcore_timer_opts o = { .name = "t", .scope = PCORE_TIMER_CPU };
	int ret = apitest_err(pcore_timer_create(pc, &o));

	return ret ?: apitest_err(pcore_timer_create(pc, &o));
}

static int kprobe_dup(void)
{
	struct pcore_kprobe_opts o = { .name = "p", .symbol = "vfs_read",
				       .pre = apitest_pre };
	int ret = apitest_err(pcore_kprobe_attach(pc, &o));

	o.symbol = "vfs_write";
	return ret ?: apitest_err(pcore_kprobe_attach(pc, &o));
}

/* A kretprobe on @symbol that feeds @h; 0 or the error. */
static int hist_feed(struct pcore_hist *h, const char *symbol)
{
	return apitest_err(pcore_kretprobe_attach(pc,
			&(struct pcore_kretprobe_opts){ .symbol = symbol,
							.hist = h }));
}

/* The histogram "h" into @h, fed by a kretprobe on vfs_read; 0 or the error. */
static int hist_fed(struct pcore_hist **h)
{
	*h = pcore_hist_create(pc, &(struct pcore_hist_opts){ .name = "h" });
	return apitest_err(*h) ?: hist_feed(*h, "vfs_read");
}

/*
 * A new histogram @ho fed by the tracepoint probe @to, which gets it as
 * its hist and its priv; 0 or the error.
 */
static int tp_hist(const struct pcore_hist_opts *ho,
		   struct pcore_tracepoint_opts *to)
{
	struct pcore_hist *h = pcore_hist_create(pc, ho);

	if (IS_ERR(h))
		return PTR_ERR(h);
	to->hist = h;
	to->priv = h;
	return apitest_err(pcore_tracepoint_attach(pc, to));
}

/* A histogram fed by two probes. */
static int hist_busy(void)
{
	struct pcore_hist *h;
	int ret = hist_fed(&h);

	return ret ?: hist_feed(h, "vfs_write");
}

/* Destroying a histogram a probe still feeds: refused, so -EBUSY here. */
static int hist_destroy_bound(void)
{
	struct pcore_hist *h;
	int ret = hist_fed(&h);

	if (ret)
		return ret;
	pcore_hist_destroy(h);	/* logs, keeps h */
	pcore_hist_add(h, 1);	/* still valid memory */
	return -EBUSY;
}

/*
 * 257 probes, waiting for pcore_tpsrc_event (nothing is registered): one
 * more than probe_core lists.
 */
static int too_many_probes(void)
{
	char name[16];
	int i, ret = 0;

	for (i = 0; i <= 256 && !ret; i++) {
		snprintf(name, sizeof(name), "w%d", i);
		ret = apitest_err(pcore_tracepoint_attach(pc,
			&(struct pcore_tracepoint_opts){
				.name = name, .tracepoint = "pcore_tpsrc_event",
				.fn = apitest_tpsrc_count,
				.flags = PCORE_TP_WAIT }));
	}
	return ret;
}

/*
 * many_probes: nprobes probes, every other one a kprobe on vfs_read, the
 * rest tracepoint probes on sched_switch (many_kinds= changes the mix),
 * all of one client.  The unload times pcore_client_destroy() and counts
 * its waits for a grace period (many_destroy()), and logs "many_probes:
 * detached N probes in T us, W waits for a grace period".  A batch waits
 * once per kind; a wait per probe would be N.
 */
static int many_probes(void)
{
	char name[16];
	unsigned int i;
	int ret = 0;

	if (nprobes < 2 || nprobes > 256) {
		pr_err("nprobes=%u: must be 2 to 256\n", nprobes);
		return -EINVAL;
	}
	if (!*many_kinds || many_kinds[strspn(many_kinds, "kt")]) {
		pr_err("many_kinds=%s: must be letters k and t\n", many_kinds);
		return -EINVAL;
	}
	for (i = 0; i < nprobes && !ret; i++) {
		snprintf(name, sizeof(name), "m%u", i);
		if (many_kinds[i % strlen(many_kinds)] == 't')
			ret = apitest_err(pcore_tracepoint_attach(pc,
				&(struct pcore_tracepoint_opts){
					.name = name, .tracepoint = "sched_switch",
					.fn = apitest_switch }));
		else
			ret = apitest_err(pcore_kprobe_attach(pc,
				&(struct pcore_kprobe_opts){
					.name = name, .symbol = "vfs_read",
					.pre = apitest_pre }));
	}
	many_report = !ret;
	return ret;
}

/*
 * Waits for a grace period, counted at the unload of many_probes: calls of
 * synchronize_rcu() by the unloading task (the kernel's own, inside
 * unregister_kprobes() and tracepoint_probe_unregister(), count too).  A
 * plain kprobe, not probe_core's: it must outlive the client it watches.
 */
static struct task_struct *many_task;
static atomic_t many_waits;

static int many_sync_pre(struct kprobe *kp, struct pt_regs *regs)
{
	if (current == READ_ONCE(many_task))
		atomic_inc(&many_waits);
	return 0;
}
NOKPROBE_SYMBOL(many_sync_pre);

static struct kprobe many_sync_kp = {
	.symbol_name = "synchronize_rcu",
	.pre_handler = many_sync_pre,
};

/* Unload many_probes: time pcore_client_destroy() and count its waits. */
static void many_destroy(void)
{
	bool counted = !register_kprobe(&many_sync_kp);
	u64 t0;

	WRITE_ONCE(many_task, current);
	t0 = ktime_get_ns();
	pcore_client_destroy(pc);
	t0 = ktime_get_ns() - t0;
	WRITE_ONCE(many_task, NULL);
	if (counted)
		unregister_kprobe(&many_sync_kp);
	if (counted)
		pr_info("many_probes: detached %u probes in %llu us, %d waits for a grace period\n",
			nprobes, t0 / NSEC_PER_USEC, atomic_read(&many_waits));
	else
		pr_err("many_probes: no kprobe on synchronize_rcu: waits not counted\n");
}

/*
 * One of everything attached, then one refused call: the load fails and
 * pcore_client_destroy() in the error path must take all of it down.
 */
static int partial(void)
{
	struct pcore_hist *h, *h2;
	int ret;

	h = pcore_hist_create(pc, &(struct pcore_hist_opts){ .name = "fork" });
	h2 = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "keyed", .key_mode = PCORE_KEYS_HASHED, .keys = 16 });
	ret = apitest_err(h) ?: apitest_err(h2) ?:
	      apitest_err(pcore_timer_create(pc, &(struct pcore_timer_opts){
		.name = "t", .scope = PCORE_TIMER_TASK, .tasks = 16 })) ?:
	      apitest_err(pcore_kretprobe_attach(pc,
		&(struct pcore_kretprobe_opts){ .symbol = "do_fork",
						.hist = h })) ?:
	      apitest_err(pcore_kprobe_attach(pc, &(struct pcore_kprobe_opts){
		.symbol = "vfs_read", .pre = apitest_pre })) ?:
	      apitest_err(pcore_tracepoint_attach(pc,
		&(struct pcore_tracepoint_opts){ .tracepoint = "sched_switch",
						 .fn = apitest_switch }));
	if (ret)
		return ret;
	pcore_hist_add_key(h2, 1, "one", 1);
	return apitest_err(pcore_kprobe_attach(pc, &(struct pcore_kprobe_opts){
		.symbol = "pcore_no_such_function", .pre = apitest_pre }));
}

/* Profilers (pcore_profile_attach): a stack histogram, then bad options. */
static int profile_with(u32 hz, bool stacks, u32 flags)
{
	struct pcore_hist *h = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "ph", .spec = { .kind = PCORE_HIST_COUNT },
		.key_mode = stacks ? PCORE_KEYS_STACK : PCORE_KEYS_HASHED,
		.keys = 16 });

	return apitest_err(h) ?:
	       apitest_err(pcore_profile_attach(pc, &(struct pcore_profile_opts){
			.name = "p", .hz = hz, .hist = h, .flags = flags }));
}

static int profile_hz_zero(void)
{
	return profile_with(0, true, 0);
}

static int profile_hz_big(void)
{
	return profile_with(PCORE_PROFILE_HZ_MAX + 1, true, 0);
}

static int profile_not_stacks(void)
{
	return profile_with(99, false, 0);
}

static int profile_flags(void)
{
	return profile_with(99, true, 2);
}

static int profile_null_opts(void)
{
	return apitest_err(pcore_profile_attach(pc, NULL));
}

/* Probes on the functions of a glob (pcore_funcs_find/attach). */

static int funcs_glob_null(void)
{
	return apitest_err(pcore_funcs_find(NULL, 4));
}

static int funcs_max_big(void)
{
	return apitest_err(pcore_funcs_find("vfs_read", PCORE_FUNCS_MAX + 1));
}

static int funcs_too_many(void)
{
	return apitest_err(pcore_funcs_find("vfs_*", 2));
}

static int funcs_null_opts(void)
{
	return apitest_err(pcore_funcs_attach(pc, NULL));
}

/*
 * Options around a good pcore_funcs_find(): of vfs_fsync and
 * vfs_fsync_range, in that order.
 */
static int funcs_attach_with(const char *what)
{
	struct pcore_funcs *f = pcore_funcs_find("vfs_fsync*", 2);
	struct pcore_hist *h[2] = {}, *busy = NULL;
	struct pcore_funcs_opts o = { .name = "vfs_fsync*", .hists = h };
	unsigned int i, n;
	int ret = apitest_err(f);

	if (ret)
		return ret;
	o.funcs = f;
	n = pcore_funcs_count(f);
	for (i = 0; i < n && !ret; i++) {
		h[i] = pcore_hist_create(pc, &(struct pcore_hist_opts){
			.name = pcore_funcs_name(f, i) });
		ret = apitest_err(h[i]);
	}
	if (!strcmp(what, "flags"))
		o.flags = 0x8;
	else if (!strcmp(what, "hist_error"))
		h[n - 1] = ERR_PTR(-ENOMEM);
	else if (!strcmp(what, "hist_twice"))
		h[n - 1] = h[0];
	else if (!strcmp(what, "hist_busy"))
		busy = h[0];
	if (!ret && busy)
		ret = apitest_err(pcore_kretprobe_attach(pc,
			&(struct pcore_kretprobe_opts){
				.symbol = "vfs_fsync", .hist = busy }));
	if (!ret)
		ret = apitest_err(pcore_funcs_attach(pc, &o));
	pcore_funcs_free(f);
	return ret;
}

static int funcs_flags(void)
{
	return funcs_attach_with("flags");
}

static int funcs_hist_twice(void)
{
	return funcs_attach_with("hist_twice");
}

static int funcs_hist_busy(void)
{
	return funcs_attach_with("hist_busy");
}

/* Good input: the load succeeds and the numbers are known. */

/*
 * steady: a kthread on each online CPU (at most 8) records the value 1000
 * into the histogram "steady", so that readers race with recording: until
 * the unload, or steady_values values each (then steady_done counts the
 * threads that are through).  With steady_keys=K, "steady" is hashed with
 * K slots, key name "n", and thread t of T records under the keys t,
 * t + T, t + 2T, ... below K / 16 in turn (a sixteenth of the slots in
 * use: the old harvest's cost grew with the slots, not the keys in use).
 */
#define STEADY_MAX	8
static struct task_struct *steady_threads[STEADY_MAX];

static unsigned int steady_values;
module_param(steady_values, uint, 0400);
MODULE_PARM_DESC(steady_values, "steady: values each thread records (0: until the unload)");

static unsigned int steady_keys;
module_param(steady_keys, uint, 0400);
MODULE_PARM_DESC(steady_keys, "steady: key slots of a hashed \"steady\" (0: not keyed)");

static atomic_t steady_done_cnt = ATOMIC_INIT(0);
static int steady_done_get(char *buffer, const struct kernel_param *kp)
{
	return sysfs_emit(buffer, "%d\n", atomic_read(&steady_done_cnt));
}

static const struct kernel_param_ops steady_done_ops = {
	.get = steady_done_get,
};
module_param_cb(steady_done, &steady_done_ops, NULL, 0444);
MODULE_PARM_DESC(steady_done, "steady: threads through their steady_values (read it)");

static unsigned int steady_n;	/* threads */
static struct steady_arg {
	struct pcore_hist *h;
	u64 t;
} steady_args[STEADY_MAX];

static int steady_fn(void *arg)
{
	struct steady_arg *a = arg;
	struct pcore_hist *h = a->h;
	u64 key = a->t;
	unsigned long n = 0;
	int i;

	while (!kthread_should_stop() && (!steady_values || n < steady_values)) {
		for (i = 0; i < 1000 && (!steady_values || n < steady_values);
		     i++, n++) {
			pcore_hist_add_key(h, key, "steady", 1000);
			if (steady_keys) {
				key += steady_n;
				if (key >= steady_keys / 16)
					key = a->t;
			}
		}
		/*
		 * A quiescent state for RCU Tasks too: registering a kprobe
		 * (case ipi_watch, or a module's load) makes the kprobe
		 * optimizer wait for one from every task on a runqueue, and
		 * cond_resched() alone gives none.  A thread that loops until
		 * the unload without it blocks kprobes and module loads for
		 * good.
		 */
		cond_resched_tasks_rcu_qs();
	}
	atomic_inc(&steady_done_cnt);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(HZ / 10);
	return 0;
}

static void steady_stop(void)
{
	int i;

	for (i = 0; i < STEADY_MAX; i++)
		if (steady_threads[i])
			kthread_stop(steady_threads[i]);
}

static int steady(void)
{
	struct pcore_hist *h;
	struct task_struct *k;
	int cpu, n = 0;

	h = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "steady", .key_name = steady_keys ? "n" : NULL,
		.key_mode = steady_keys ? PCORE_KEYS_HASHED : PCORE_KEYS_NONE,
		.keys = steady_keys });
	if (IS_ERR(h))
		return PTR_ERR(h);
	steady_n = min_t(unsigned int, num_online_cpus(), STEADY_MAX);
	for_each_online_cpu(cpu) {
		if (n == steady_n)
			break;
		steady_args[n] = (struct steady_arg){ .h = h, .t = n };
		k = kthread_create_on_cpu(steady_fn, &steady_args[n], cpu,
					  "pcore_steady/%u");
		if (IS_ERR(k)) {
			steady_stop();
			return PTR_ERR(k);
		}
		steady_threads[n++] = k;
		wake_up_process(k);
	}
	return 0;
}

/*
 * kprobe_heap: a kprobe on an address that has no symbol, a heap object
 * of ours: kprobes refuses it (-ENOENT: it takes only addresses inside a
 * symbol), and the log line shows the address hashed, as %p prints it,
 * never raw.
 */
static int kprobe_heap(void)
{
	void *obj = kmalloc(16, GFP_KERNEL);
	int ret;

	if (!obj)
		return -ENOMEM;
	ret = apitest_err(pcore_kprobe_attach(pc, &(struct pcore_kprobe_opts){
		.name = "heap", .addr = obj, .pre = apitest_pre }));
	kfree(obj);
	return ret ?: -EINVAL;	/* attached: the load fails all the same */
}

/*
 * keys_pid: histogram "pids", hashed with 256 slots, key name "pid": at
 * every task exit (sched_process_exit), the value 1 under the task's pid,
 * labelled with its comm.
 */
static void notrace apitest_pid_exit(void *data, struct task_struct *p)
{
	pcore_hist_add_key(pcore_tp_hit(data), p->pid, p->comm, 1);
}

static int keys_pid(void)
{
	return tp_hist(&(struct pcore_hist_opts){
			.name = "pids", .key_mode = PCORE_KEYS_HASHED,
			.keys = 256, .key_name = "pid", .unit = "exits" },
		       &(struct pcore_tracepoint_opts){
			.name = "exit", .tracepoint = "sched_process_exit",
			.fn = apitest_pid_exit });
}

/*
 * ipi_watch: who asks other CPUs to run a function.  A kprobe on each of
 * the kernel's exported ways to do it records 1 into histogram
 * "from_pcore" when its caller is in probe_core, and into "from_self"
 * when it is in this module; a return probe on the function-call IPI
 * handler times each IPI into "ipi".  The load itself makes one such call
 * (smp_call_function_single()), so "from_self" shows that the kprobes see
 * callers: count 1.  Then the threads of the steady case start.
 */
static const char * const ipi_funcs[] = {
	"smp_call_function_single", "smp_call_function_single_async",
	"smp_call_function_many", "smp_call_function",
	"smp_call_function_any", "on_each_cpu_cond_mask",
	"irq_work_queue_on",
};

static struct pcore_hist *ipi_pcore, *ipi_self;

/* "name+0x1/0x2 [module]": which module, if any, the address is in. */
static bool ipi_in_module(const char *sym, const char *mod)
{
	const char *open = strrchr(sym, '[');
	size_t len = strlen(mod);

	return open && !strncmp(open + 1, mod, len) && open[len + 1] == ']';
}

static void notrace ipi_call_pre(struct pcore_probe *p, struct pt_regs *regs)
{
	char sym[KSYM_SYMBOL_LEN];

	/* At the first instruction, the return address is on top. */
	sprint_symbol(sym, regs_get_kernel_stack_nth(regs, 0));
	if (ipi_in_module(sym, "probe_core"))
		pcore_hist_add(ipi_pcore, 1);
	else if (ipi_in_module(sym, KBUILD_MODNAME))
		pcore_hist_add(ipi_self, 1);
}

static void ipi_noop(void *info)
{
}

static int ipi_watch(void)
{
	struct pcore_hist *ipi;
	unsigned int i;
	int ret;

	ipi_pcore = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "from_pcore", .unit = "calls" });
	ipi_self = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "from_self", .unit = "calls" });
	ipi = pcore_hist_create(pc, &(struct pcore_hist_opts){ .name = "ipi" });
	ret = apitest_err(ipi_pcore) ?: apitest_err(ipi_self) ?:
	      apitest_err(ipi);
	for (i = 0; !ret && i < ARRAY_SIZE(ipi_funcs); i++)
		ret = apitest_err(pcore_kprobe_attach(pc,
			&(struct pcore_kprobe_opts){
				.symbol = ipi_funcs[i], .pre = ipi_call_pre }));
	if (!ret)
		ret = apitest_err(pcore_kretprobe_attach(pc,
			&(struct pcore_kretprobe_opts){
				.symbol = "generic_smp_call_function_single_interrupt",
				.hist = ipi }));
	if (!ret)
		ret = smp_call_function_single(cpumask_first(cpu_online_mask),
					       ipi_noop, NULL, 1);
	return ret ?: steady();
}

/*
 * keys_addr: a hashed histogram "addrs" whose keys are addresses
 * (PCORE_HIST_KEY_ADDR), key name "addr": 3 values of 7 under the
 * address of pcore_apitest_target(), which addr_key shows raw.
 */
static u64 pcore_apitest_target(u64 v);

static int keys_addr(void)
{
	struct pcore_hist *h;
	int i;

	h = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "addrs", .key_mode = PCORE_KEYS_HASHED, .keys = 4,
		.key_name = "addr", .flags = PCORE_HIST_KEY_ADDR });
	if (IS_ERR(h))
		return PTR_ERR(h);
	addr_key = (unsigned long)pcore_apitest_target;
	for (i = 0; i < 3; i++)
		pcore_hist_add_key(h, addr_key, "target", 7);
	return 0;
}

/*
 * keys_hashed: a hashed histogram "hashed" of 4 slots, key name "pid".
 * Key 1000 + i (i from 0 to nkeys - 1) gets i + 1 values of 100 * (i + 1),
 * with the label "k<i>" except for i = 2 (a label with a space, a tab and
 * a newline) and i = 3 (a label of 40 characters).  The first 4 keys take
 * the 4 slots, so the values of keys 1004 and up are dropped.  Then key
 * 1000 once more with another label (the first label stays) and the value
 * 50, and the key U64_MAX, which is always dropped.
 */
static int keys_hashed(void)
{
	struct pcore_hist *h;
	char label[48];
	u32 i, j;

	if (nkeys > 64) {
		pr_err("nkeys=%u: at most 64\n", nkeys);
		return -EINVAL;
	}
	h = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "hashed", .key_mode = PCORE_KEYS_HASHED, .keys = 4,
		.key_name = "pid", .unit = "bytes" });
	if (IS_ERR(h))
		return PTR_ERR(h);
	for (i = 0; i < nkeys; i++) {
		if (i == 2)
			strscpy(label, "has space\tand\nnewline", sizeof(label));
		else if (i == 3)
			strscpy(label, "a_label_of_forty_characters_0123456789ab",
				sizeof(label));
		else
			snprintf(label, sizeof(label), "k%u", i);
		for (j = 0; j <= i; j++)
			pcore_hist_add_key(h, 1000 + i, label, 100 * (i + 1));
	}
	pcore_hist_add_key(h, 1000, "other", 50);
	pcore_hist_add_key(h, U64_MAX, "never", 1);
	return 0;
}

/*
 * keys_sentinel: hashed histogram "sentinel" (16 slots, key name "key")
 * fed by probe "sentinel" on pcore_tpsrc_event: event i (1, 2, ...)
 * records the value i under key keys_sentinel_keys[(i - 1) % 8], no
 * label.  U64_MAX - 1 is (u64)-ENOENT, the hashed slots' old "busy" mark;
 * U64_MAX, the free mark, is the one key refused (dropped).  Firing "8"
 * records 1 to 8: seven keys of one value each, one value dropped.
 */
static const u64 keys_sentinel_keys[8] = {
	U64_MAX - 1, U64_MAX, 0, 1, (u64)-EINVAL, U64_MAX - 2, 1ULL << 63, 4096,
};

static void notrace apitest_sentinel_event(void *data, u64 value)
{
	struct pcore_hist *h = pcore_tp_hit(data);

	pcore_hist_add_key(h, keys_sentinel_keys[(value - 1) % 8], NULL, value);
}

static int keys_sentinel(void)
{
	return tp_hist(&(struct pcore_hist_opts){
			.name = "sentinel", .key_mode = PCORE_KEYS_HASHED,
			.keys = 16, .key_name = "key" },
		       &(struct pcore_tracepoint_opts){
			.name = "sentinel", .tracepoint = "pcore_tpsrc_event",
			.fn = apitest_sentinel_event });
}

/*
 * hist_mem: pcore_hist_mem() of three histograms' options, then the
 * histograms: "plain" (loglinear), "keyed" (hashed, 100 keys: 128 slots;
 * 64 values under each of 100 keys, on this CPU) and "stack" (16 stacks
 * of 8 frames).  Options pcore_hist_create() refuses give 0 (mem_bad is
 * the sum of the size and the max of two such calls) and no log line.
 */
static int hist_mem(void)
{
	const struct pcore_hist_opts plain = { .name = "plain" };
	const struct pcore_hist_opts keyed = {
		.name = "keyed", .key_mode = PCORE_KEYS_HASHED, .keys = 100 };
	const struct pcore_hist_opts stack = {
		.name = "stack", .key_mode = PCORE_KEYS_STACK, .keys = 16,
		.depth = 8 };
	struct pcore_hist *h;
	size_t max;
	u32 i;

	mem_plain = pcore_hist_mem(&plain, &max);
	if (max != mem_plain) {
		pr_err("%s: an unkeyed histogram grows: %lu to %zu\n", __func__,
		       mem_plain, max);
		return -EINVAL;
	}
	mem_keyed = pcore_hist_mem(&keyed, &max);
	mem_keyed_max = max;
	mem_stack = pcore_hist_mem(&stack, NULL);
	mem_bad = pcore_hist_mem(&(struct pcore_hist_opts){
		.name = "bad", .keys = 4 }, &max) + max;
	mem_bad += pcore_hist_mem(NULL, NULL);
	h = pcore_hist_create(pc, &plain);
	if (IS_ERR(h))
		return PTR_ERR(h);
	h = pcore_hist_create(pc, &stack);
	if (IS_ERR(h))
		return PTR_ERR(h);
	h = pcore_hist_create(pc, &keyed);
	if (IS_ERR(h))
		return PTR_ERR(h);
	for (i = 0; i < 6400; i++)
		pcore_hist_add_key(h, i % 100, NULL, i);
	return 0;
}

/*
 * keys_direct: a direct histogram "direct" of keys 0 to 3, key name "vec".
 * Key 0: 10 with label "zero", then 10 through pcore_hist_add() (key 0);
 * key 1: 20 twice, label "one"; key 2: nothing; key 3: 30 three times, no
 * label.  Dropped: key 4 four times, key 100 five times, key U64_MAX once.
 */
static int keys_direct(void)
{
	struct pcore_hist *h;
	u32 i;

	h = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "direct", .key_mode = PCORE_KEYS_DIRECT, .keys = 4,
		.key_name = "vec" });
	if (IS_ERR(h))
		return PTR_ERR(h);
	pcore_hist_add_key(h, 0, "zero", 10);
	pcore_hist_add(h, 10);
	for (i = 0; i < 2; i++)
		pcore_hist_add_key(h, 1, "one", 20);
	for (i = 0; i < 3; i++)
		pcore_hist_add_key(h, 3, NULL, 30);
	for (i = 0; i < 4; i++)
		pcore_hist_add_key(h, 4, "four", 40);
	for (i = 0; i < 5; i++)
		pcore_hist_add_key(h, 100, "hundred", 50);
	pcore_hist_add_key(h, U64_MAX, NULL, 60);
	return 0;
}

/*
 * keys_fuzz: the keys tests/selftests/pcore_combo.c draws.  A histogram "fuzz"
 * of fuzz_slots keys in mode fuzz_mode (1 direct, 2 hashed), key name
 * "key", unit "ns".  At load, and again at each write to the parameter
 * fuzz_again, key fuzz_keys[i] gets fuzz_reps[i] values of fuzz_vals[i],
 * labelled "k<i>", in the order given (one round).  The selftest knows
 * what each round adds and checks every reader against it.
 */
#define APITEST_FUZZ_KEYS	16

static unsigned int fuzz_mode = PCORE_KEYS_HASHED;
module_param(fuzz_mode, uint, 0400);
MODULE_PARM_DESC(fuzz_mode, "keys_fuzz: the key mode (1 direct, 2 hashed)");

static unsigned int fuzz_slots = 16;
module_param(fuzz_slots, uint, 0400);
MODULE_PARM_DESC(fuzz_slots, "keys_fuzz: keys of the histogram");

static unsigned long long fuzz_keys[APITEST_FUZZ_KEYS];
static unsigned int fuzz_nkeys;
module_param_array(fuzz_keys, ullong, &fuzz_nkeys, 0400);
MODULE_PARM_DESC(fuzz_keys, "keys_fuzz: the keys recorded, in order");

static unsigned long long fuzz_vals[APITEST_FUZZ_KEYS];
static unsigned int fuzz_nvals;
module_param_array(fuzz_vals, ullong, &fuzz_nvals, 0400);
MODULE_PARM_DESC(fuzz_vals, "keys_fuzz: the value of each key");

static unsigned int fuzz_reps[APITEST_FUZZ_KEYS];
static unsigned int fuzz_nreps;
module_param_array(fuzz_reps, uint, &fuzz_nreps, 0400);
MODULE_PARM_DESC(fuzz_reps, "keys_fuzz: the values recorded under each key (at most 1000)");

static struct pcore_hist *fuzz_hist;

static void keys_fuzz_round(void)
{
	char label[PCORE_LABEL_MAX];
	u32 i, j;

	for (i = 0; i < fuzz_nkeys; i++) {
		snprintf(label, sizeof(label), "k%u", i);
		for (j = 0; j < fuzz_reps[i]; j++)
			pcore_hist_add_key(fuzz_hist, fuzz_keys[i], label,
					   fuzz_vals[i]);
	}
}

static int keys_fuzz(void)
{
	struct pcore_hist *h;
	u32 i;

	if (fuzz_nvals != fuzz_nkeys || fuzz_nreps != fuzz_nkeys) {
		pr_err("%s: fuzz_keys, fuzz_vals and fuzz_reps must have as many elements\n",
		       __func__);
		return -EINVAL;
	}
	for (i = 0; i < fuzz_nreps; i++) {
		if (fuzz_reps[i] > 1000) {
			pr_err("fuzz_reps=%u: at most 1000\n", fuzz_reps[i]);
			return -EINVAL;
		}
	}
	h = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "fuzz", .key_mode = fuzz_mode, .keys = fuzz_slots,
		.key_name = "key" });
	if (IS_ERR(h))
		return PTR_ERR(h);
	WRITE_ONCE(fuzz_hist, h);
	keys_fuzz_round();
	return 0;
}

/* Any write to fuzz_again: one more round of keys_fuzz. */
static int fuzz_again_set(const char *val, const struct kernel_param *kp)
{
	if (!READ_ONCE(fuzz_hist))
		return -EINVAL;
	keys_fuzz_round();
	return 0;
}

static const struct kernel_param_ops fuzz_again_ops = {
	.set = fuzz_again_set,
};

module_param_cb(fuzz_again, &fuzz_again_ops, NULL, 0200);
MODULE_PARM_DESC(fuzz_again, "keys_fuzz: write anything for one more round");

/*
 * timer_cpu: two CPU timers, "disc" with PCORE_TIMER_DISCARD_SWITCH and
 * "meas" without, on this task with migration off (a CPU timer needs its
 * stop on the CPU of its start; sleeping is allowed).  Each loop:
 *
 *   start both, sleep 1 to 2 ms, stop both: "disc" discards when the
 *   task switched out, "meas" measures the sleep into histogram "slept";
 *   with preemption off, start and stop "disc": measured, into "quick".
 *
 * A sleep need not switch: when the host stalls the vCPU past the timer's
 * expiry before the sleep calls schedule(), the sleep returns at once.
 * The task's switch counts tell, and @switched counts the sleeps that
 * did; "disc" must discard exactly those.  Then a stop of "disc" without
 * a start (unmatched) and, for "meas", two starts and one stop (a
 * restart: one measurement).  Timers file:
 *
 *   disc cpu <2 * loops - switched> <switched> 1 0
 *   meas cpu <loops + 1> 0 0 0
 */
static int timer_cpu(void)
{
	struct pcore_timer *disc, *meas;
	struct pcore_hist *slept, *quick;
	unsigned long sw;
	bool moved;
	u64 ns;
	u32 i;
	int ret;

	if (loops > 100) {
		pr_err("loops=%u: at most 100\n", loops);
		return -EINVAL;
	}
	disc = pcore_timer_create(pc, &(struct pcore_timer_opts){
		.name = "disc", .scope = PCORE_TIMER_CPU,
		.flags = PCORE_TIMER_DISCARD_SWITCH });
	meas = pcore_timer_create(pc, &(struct pcore_timer_opts){
		.name = "meas", .scope = PCORE_TIMER_CPU });
	slept = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "slept" });
	quick = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "quick" });
	ret = apitest_err(disc) ?: apitest_err(meas) ?: apitest_err(slept) ?:
	      apitest_err(quick);
	if (ret)
		return ret;

	switched = 0;
	migrate_disable();
	for (i = 0; i < loops; i++) {
		sw = current->nvcsw + current->nivcsw;
		pcore_timer_start(disc, NULL);
		pcore_timer_start(meas, NULL);
		usleep_range(1000, 2000);
		moved = current->nvcsw + current->nivcsw != sw;
		switched += moved;
		if (pcore_timer_stop(disc, NULL, &ns) == moved)
			pr_err("disc: a sleep that %s was %s\n",
			       moved ? "switched" : "did not switch",
			       moved ? "not discarded" : "discarded");
		if (pcore_timer_stop(meas, NULL, &ns))
			pcore_hist_add(slept, ns);

		preempt_disable();
		pcore_timer_start(disc, NULL);
		if (pcore_timer_stop(disc, NULL, &ns))
			pcore_hist_add(quick, ns);
		preempt_enable();
	}
	pcore_timer_stop(disc, NULL, &ns);
	pcore_timer_start(meas, NULL);
	pcore_timer_start(meas, NULL);
	pcore_timer_stop(meas, NULL, &ns);
	migrate_enable();
	return 0;
}

/*
 * Live tasks other than current, held with a reference: up to @n of
 * them; @want_home >= 0 keeps only those whose pid hashes, as task timers
 * hash it, to slot @want_home of a 2-slot table (hash_32(pid, 1)).
 */
static unsigned int timer_tasks(struct task_struct **tasks, unsigned int n,
				int want_home)
{
	struct task_struct *p;
	unsigned int got = 0;

	rcu_read_lock();
	for_each_process(p) {
		if (got == n)
			break;
		if (p == current || p->pid <= 0 || p->exit_state ||
		    (want_home >= 0 && hash_32(p->pid, 1) != (u32)want_home))
			continue;
		get_task_struct(p);
		tasks[got++] = p;
	}
	rcu_read_unlock();
	return got;
}

static void timer_tasks_put(struct task_struct **tasks, unsigned int n)
{
	while (n--)
		put_task_struct(tasks[n]);
}

/*
 * timer_task: "tasks", a task timer of 2 slots, fed with three live tasks
 * A, B and C (not current):
 *
 *   start A, B, C           the table is full at C: A, the oldest, is
 *                           evicted (evicted 1)
 *   stop A                  unmatched (1)
 *   stop B, stop C          measured (2)
 *   stop A                  never restarted: unmatched (2)
 *   start B twice, stop     a restart takes no new slot: measured (3)
 *   stop B again            unmatched (3)
 *   start NULL, stop NULL   no task: unmatched (5)
 *
 * "collide", a task timer of 2 slots, with two tasks P and Q whose pids
 * hash to the same slot: start Q, start P (the next slot), stop Q (its
 * slot is free again), start P (P's own slot, not the free one), stop P:
 * measured (2); stop P again: unmatched (1), no stale stamp left.
 *
 * "tdisc", a task timer with PCORE_TIMER_DISCARD_SWITCH on current:
 * start, sleep 1 to 2 ms, stop: discarded when the task switched out, as
 * it nearly always does; a sleep whose timer expires before schedule()
 * returns without a switch, and is measured.  So it sleeps until one
 * sleep switched (at most 20 times; @sleeps and @switched say how it
 * went).  Then start and stop with preemption off: measured.  Timers
 * file:
 *
 *   tasks task 3 0 5 1 0
 *   collide task 2 0 1 0 0
 *   tdisc task <sleeps - switched + 1> <switched> 0 0 0
 */
static int timer_task(void)
{
	struct pcore_timer *t, *tc, *td;
	struct task_struct *abc[3], *pq[2];
	unsigned int n, m, home;
	unsigned long nsw;
	u64 ns;
	int ret;

	t = pcore_timer_create(pc, &(struct pcore_timer_opts){
		.name = "tasks", .scope = PCORE_TIMER_TASK, .tasks = 2 });
	tc = pcore_timer_create(pc, &(struct pcore_timer_opts){
		.name = "collide", .scope = PCORE_TIMER_TASK, .tasks = 2 });
	td = pcore_timer_create(pc, &(struct pcore_timer_opts){
		.name = "tdisc", .scope = PCORE_TIMER_TASK, .tasks = 1,
		.flags = PCORE_TIMER_DISCARD_SWITCH });
	ret = apitest_err(t) ?: apitest_err(tc) ?: apitest_err(td);
	if (ret)
		return ret;
	n = timer_tasks(abc, 3, -1);
	for (home = 0, m = 0; home < 2 && m < 2; home++) {
		timer_tasks_put(pq, m);
		m = timer_tasks(pq, 2, home);
	}
	if (n < 3 || m < 2) {
		pr_err("case=%s: not enough live tasks\n", __func__);
		timer_tasks_put(abc, n);
		timer_tasks_put(pq, m);
		return -ESRCH;
	}

	/* Stamps a microsecond apart: A is the oldest beyond doubt. */
	pcore_timer_start(t, abc[0]);
	udelay(1);
	pcore_timer_start(t, abc[1]);
	udelay(1);
	pcore_timer_start(t, abc[2]);
	pcore_timer_stop(t, abc[0], &ns);
	pcore_timer_stop(t, abc[1], &ns);
	pcore_timer_stop(t, abc[2], &ns);
	pcore_timer_stop(t, abc[0], &ns);
	pcore_timer_start(t, abc[1]);
	pcore_timer_start(t, abc[1]);
	pcore_timer_stop(t, abc[1], &ns);
	pcore_timer_stop(t, abc[1], &ns);
	pcore_timer_start(t, NULL);
	pcore_timer_stop(t, NULL, &ns);

	pcore_timer_start(tc, pq[1]);
	pcore_timer_start(tc, pq[0]);
	pcore_timer_stop(tc, pq[1], &ns);
	pcore_timer_start(tc, pq[0]);
	pcore_timer_stop(tc, pq[0], &ns);
	pcore_timer_stop(tc, pq[0], &ns);
	timer_tasks_put(abc, n);
	timer_tasks_put(pq, m);

	for (sleeps = 0, switched = 0; !switched && sleeps < 20; sleeps++) {
		nsw = current->nvcsw + current->nivcsw;
		pcore_timer_start(td, current);
		usleep_range(1000, 2000);
		switched += current->nvcsw + current->nivcsw != nsw;
		pcore_timer_stop(td, current, &ns);
	}
	preempt_disable();
	pcore_timer_start(td, current);
	pcore_timer_stop(td, current, &ns);
	preempt_enable();
	return 0;
}

/*
 * timer_exit: "exit", a task timer driven by pcore_tpsrc's tracepoint in
 * the task that fires it: value 1 stops the task's measurement (into the
 * histogram "exit"), value 2 starts one.  Writing K to pcore_tpsrc's fire
 * file fires 1 to K: "1" stops, "2" stops then starts.
 */
static struct pcore_timer *exit_timer;

static void notrace apitest_exit_event(void *data, u64 value)
{
	struct pcore_hist *h = pcore_tp_hit(data);
	u64 ns;

	if (value == 1 && pcore_timer_stop(exit_timer, current, &ns))
		pcore_hist_add(h, ns);
	else if (value == 2)
		pcore_timer_start(exit_timer, current);
}

static int timer_exit(void)
{
	struct pcore_hist *h;

	exit_timer = pcore_timer_create(pc, &(struct pcore_timer_opts){
		.name = "exit", .scope = PCORE_TIMER_TASK, .tasks = 16 });
	h = pcore_hist_create(pc, &(struct pcore_hist_opts){ .name = "exit" });
	return apitest_err(exit_timer) ?: apitest_err(h) ?:
	       apitest_err(pcore_tracepoint_attach(pc,
			&(struct pcore_tracepoint_opts){
				.name = "exit", .tracepoint = "pcore_tpsrc_event",
				.fn = apitest_exit_event, .hist = h }));
}

/*
 * task_stack: off-CPU time by stack as a handler module may take it, the
 * stack of the task a switch puts back (pcore_hist_add_task_stack() of
 * next): task timer "offstk" stamps prev, stops next; histogram "offstk"
 * keeps the times by stack.
 */
static struct pcore_timer *offstk_timer;

static void notrace apitest_offstk_switch(PCORE_SCHED_SWITCH_PROTO)
{
	struct pcore_hist *h = pcore_tp_hit(data);
	u64 ns;

	if (prev->pid)
		pcore_timer_start(offstk_timer, prev);
	if (next->pid && pcore_timer_stop(offstk_timer, next, &ns))
		pcore_hist_add_task_stack(h, next, 0, ns);
}

static int task_stack(void)
{
	struct pcore_hist *h;

	offstk_timer = pcore_timer_create(pc, &(struct pcore_timer_opts){
		.name = "offstk", .scope = PCORE_TIMER_TASK, .tasks = 1024 });
	h = pcore_hist_create(pc, &(struct pcore_hist_opts){
		.name = "offstk", .spec = { .kind = PCORE_HIST_LOG2 },
		.key_mode = PCORE_KEYS_STACK, .keys = 256 });
	return apitest_err(offstk_timer) ?: apitest_err(h) ?:
	       apitest_err(pcore_tracepoint_attach(pc,
			&(struct pcore_tracepoint_opts){
				.name = "offstk", .tracepoint = "sched_switch",
				.fn = apitest_offstk_switch, .hist = h,
				.priv = h }));
}

/*
 * Histogram "tp" fed by probe "tp" on pcore_tpsrc_event, the tracepoint of
 * the test module pcore_tpsrc, which may not be loaded: with
 * PCORE_TP_WAIT (tp_wait) the probe waits for it, without (tp_nowait) the
 * attach fails with ENOENT.
 */
static int tp_attach(u32 flags)
{
	return tp_hist(&(struct pcore_hist_opts){ .name = "tp" },
		       &(struct pcore_tracepoint_opts){
			.name = "tp", .tracepoint = "pcore_tpsrc_event",
			.fn = apitest_tpsrc_event, .flags = flags });
}

static int tp_wait(void)
{
	return tp_attach(PCORE_TP_WAIT);
}

static int tp_nowait(void)
{
	return tp_attach(0);
}

/*
 * no_destroy: histogram "fork" fed by a return probe on do_fork, a kprobe
 * on vfs_read, a sched_switch probe and a timer; the exit function does
 * not call pcore_client_destroy(): probe_core has to clean up.
 */
static int no_destroy(void)
{
	struct pcore_hist *h;

	skip_destroy = true;
	h = pcore_hist_create(pc, &(struct pcore_hist_opts){ .name = "fork" });
	return apitest_err(h) ?:
	       apitest_err(pcore_kretprobe_attach(pc,
		&(struct pcore_kretprobe_opts){ .name = "fork",
						.symbol = "do_fork",
						.hist = h })) ?:
	       apitest_err(pcore_kprobe_attach(pc, &(struct pcore_kprobe_opts){
		.name = "read", .symbol = "vfs_read", .pre = apitest_pre })) ?:
	       apitest_err(pcore_tracepoint_attach(pc,
		&(struct pcore_tracepoint_opts){ .name = "switch",
						 .tracepoint = "sched_switch",
						 .fn = apitest_switch })) ?:
	       apitest_err(pcore_timer_create(pc, &(struct pcore_timer_opts){
		.name = "t", .scope = PCORE_TIMER_CPU }));
}

/*
 * The probe forms on a function of this module, called loops times (default
 * 10) with 1..loops once everything is attached:
 *
 *   pre, post   a kprobe on pcore_apitest_target with both handlers
 *   offset      a kprobe at pcore_apitest_target+forms_offset: an
 *               instruction the function's body marks (see below), shown in
 *               /sys/module/pcore_apitest/parameters/forms_offset
 *   addr        a kprobe by address, on the same function
 *   args        a kretprobe: its entry keeps argument 0 in the per-call
 *               data, its return records retval - 2 * argument (always 0)
 *               and the argument into "argsum"
 */
static struct {
	struct pcore_hist *pre, *post, *offset, *addr, *ret, *argsum;
} forms;

/*
 * Probed by name: never inlined, cloned or renamed (noipa).  What comes
 * before its body depends on the kernel's configuration: the 5-byte fentry
 * call of every traced function on x86-64, preceded by a 4-byte endbr64
 * with CONFIG_X86_KERNEL_IBT (Debian's 6.12 kernels, not its 6.1 ones).
 * So the offset probe does not guess an instruction boundary: the asm
 * below labels one, a nop at which the argument is in rdi (constraint
 * "D"), the register pcore_arg(regs, 0) reads, and forms_mark_offset()
 * has the assembler compute the label's offset from the function's start.
 * The asm is also what keeps the function from being folded away.
 */
static __attribute__((__noipa__)) u64 pcore_apitest_target(u64 v)
{
	asm volatile(".Lpcore_apitest_mark:\n\tnop" : "+D" (v));
	return 2 * v;
}

static unsigned int forms_mark_offset(void)
{
	unsigned int off;

	asm("movl $(.Lpcore_apitest_mark - %c1), %0"
	    : "=r" (off) : "i" (pcore_apitest_target));
	return off;
}

static void notrace forms_pre(struct pcore_probe *p, struct pt_regs *regs)
{
	pcore_hist_add(pcore_probe_priv(p), pcore_arg(regs, 0));
}

static void notrace forms_post(struct pcore_probe *p, struct pt_regs *regs)
{
	pcore_hist_add(forms.post, 1);
}

static int notrace forms_entry(struct pcore_probe *p, struct pt_regs *regs,
			       void *data)
{
	*(u64 *)data = pcore_arg(regs, 0);
	return 0;
}

static void notrace forms_ret(struct pcore_probe *p, struct pt_regs *regs,
			      void *data, u64 ns)
{
	u64 arg = *(u64 *)data;

	pcore_hist_add(forms.ret, pcore_retval(regs) - 2 * arg);
	pcore_hist_add(forms.argsum, arg);
}

static int probe_forms(void)
{
	struct pcore_probe *p;
	int ret, i;

#define FORMS_HIST(f, n)						\
	(forms.f = pcore_hist_create(pc, &(struct pcore_hist_opts){	\
		.name = n, .unit = "x",					\
		.spec = { .kind = PCORE_HIST_LINEAR, .max = 1024,	\
			  .step = 1 } }))
	ret = apitest_err(FORMS_HIST(pre, "pre")) ?:
	      apitest_err(FORMS_HIST(post, "post")) ?:
	      apitest_err(FORMS_HIST(offset, "offset")) ?:
	      apitest_err(FORMS_HIST(addr, "addr")) ?:
	      apitest_err(FORMS_HIST(ret, "ret")) ?:
	      apitest_err(FORMS_HIST(argsum, "argsum"));
#undef FORMS_HIST
	if (ret)
		return ret;
	forms_offset = forms_mark_offset();
	p = pcore_kprobe_attach(pc, &(struct pcore_kprobe_opts){
		.name = "prepost", .symbol = "pcore_apitest_target",
		.pre = forms_pre, .post = forms_post, .priv = forms.pre });
	ret = apitest_err(p);
	if (!ret)
		ret = apitest_err(pcore_kprobe_attach(pc,
			&(struct pcore_kprobe_opts){ .name = "offset",
				.symbol = "pcore_apitest_target",
				.offset = forms_offset,
				.pre = forms_pre, .priv = forms.offset }));
	if (!ret)
		ret = apitest_err(pcore_kprobe_attach(pc,
			&(struct pcore_kprobe_opts){ .name = "addr",
				.addr = pcore_apitest_target,
				.pre = forms_pre, .priv = forms.addr }));
	if (!ret)
		ret = apitest_err(pcore_kretprobe_attach(pc,
			&(struct pcore_kretprobe_opts){ .name = "args",
				.symbol = "pcore_apitest_target",
				.data_size = sizeof(u64), .entry = forms_entry,
				.ret = forms_ret }));
	if (ret)
		return ret;
	for (i = 1; i <= loops; i++)
		pcore_apitest_target(i);
	return 0;
}

/*
 * direct_api: function probes through direct calls, as a handler module
 * asks for them (.mech = mech, PCORE_MECH_DIRECT or PCORE_MECH_AUTO):
 *
 *   count     counts the calls of sys_getppid (no handler)
 *   args      a pre handler on mktime64, which this module calls loops
 *             times with (2100, 7, 6, 5, 4, 3): each call whose year is
 *             2100 adds its argument registers' check to args_ok (all
 *             right) or args_bad (a bit per wrong one: 1 to 32 the
 *             arguments, 64 the stack pointer, whose word must be the
 *             return address into this module), ip minus mktime64's
 *             address to args_ip, and the stack the registers give to
 *             args_stack (from the caller, dir_call(), on)
 *   ret       a return handler on sys_getpgid: the value returned into
 *             ret_val, the time into ret_ns (the histogram of the probe)
 *
 * and with PCORE_MECH_AUTO, what falls back to kprobes, stats saying why:
 *
 *   post      a kprobe with a post handler on pcore_apitest_target,
 *             called 3 times: its pre handler counts the calls (not on
 *             sys_getppid: a post handler's kprobe modifies the ip, which
 *             ftrace refuses beside a direct call, -EBUSY)
 *   entry     a kretprobe with an entry handler on sys_getpgid: the time
 *   module    a kprobe without handlers on pcore_apitest_target, a
 *             module's function
 */
static unsigned int mech = PCORE_MECH_DIRECT;
module_param(mech, uint, 0400);
MODULE_PARM_DESC(mech, "direct_api: the enum pcore_mech of its probes (2 direct, 3 auto)");

static struct {
	struct pcore_hist *count, *args_ok, *args_bad, *args_ip, *args_stack,
			  *ret_val, *ret_ns, *post, *entry, *module;
} dir;

static const unsigned int dir_date[6] = { 2100, 7, 6, 5, 4, 3 };

static void notrace dir_args(struct pcore_probe *p, struct pt_regs *regs)
{
	unsigned long ra = 0;
	unsigned int i, bad = 0;

	if (pcore_arg(regs, 0) != dir_date[0])
		return;		/* not our call */
	for (i = 1; i < ARRAY_SIZE(dir_date); i++)
		if (pcore_arg(regs, i) != dir_date[i])
			bad |= 1U << (i - 1);
	if (get_kernel_nofault(ra, (unsigned long *)regs->sp) ||
	    !within_module(ra, THIS_MODULE))
		bad |= 64;
	if (bad)
		pcore_hist_add(dir.args_bad, bad);
	else
		pcore_hist_count(dir.args_ok);
	pcore_hist_add(dir.args_ip,
		       instruction_pointer(regs) - (unsigned long)mktime64);
	pcore_hist_add_stack(dir.args_stack, regs, 0, 0);
}

static void notrace dir_ret(struct pcore_probe *p, struct pt_regs *regs,
			    void *data, u64 ns)
{
	pcore_hist_add(dir.ret_val, pcore_retval(regs));
	pcore_hist_add(dir.ret_ns, ns);
}

static void notrace dir_count(struct pcore_probe *p, struct pt_regs *regs)
{
	pcore_hist_count(pcore_probe_priv(p));
}

/* A call of mktime64 from this module's text: a call, not a tail call. */
static __attribute__((__noipa__)) time64_t dir_call(void)
{
	time64_t t = mktime64(dir_date[0], dir_date[1], dir_date[2],
			      dir_date[3], dir_date[4], dir_date[5]);

	barrier();
	return t;
}

#define DIR_HIST(f, ...)						\
	(dir.f = pcore_hist_create(pc, &(struct pcore_hist_opts){	\
		.name = #f, __VA_ARGS__ }))
#define DIR_COUNT	.unit = "calls", .spec = { .kind = PCORE_HIST_COUNT }

static int direct_api(void)
{
	unsigned int i;
	int ret;

	ret = apitest_err(DIR_HIST(count, DIR_COUNT)) ?:
	      apitest_err(DIR_HIST(args_ok, DIR_COUNT)) ?:
	      apitest_err(DIR_HIST(args_bad, .unit = "x")) ?:
	      apitest_err(DIR_HIST(args_ip, .unit = "bytes")) ?:
	      apitest_err(DIR_HIST(args_stack, DIR_COUNT,
				   .key_mode = PCORE_KEYS_STACK, .keys = 4)) ?:
	      apitest_err(DIR_HIST(ret_val, .unit = "x")) ?:
	      apitest_err(DIR_HIST(ret_ns)) ?:
	      apitest_err(pcore_kprobe_attach(pc, &(struct pcore_kprobe_opts){
		.name = "count", .symbol = "sys_getppid", .hist = dir.count,
		.mech = mech })) ?:
	      apitest_err(pcore_kprobe_attach(pc, &(struct pcore_kprobe_opts){
		.name = "args", .symbol = "mktime64", .pre = dir_args,
		.hist = dir.args_ok, .mech = mech })) ?:
	      apitest_err(pcore_kretprobe_attach(pc,
		&(struct pcore_kretprobe_opts){
		.name = "ret", .symbol = "sys_getpgid", .ret = dir_ret,
		.hist = dir.ret_ns, .mech = mech }));
	if (!ret && mech == PCORE_MECH_AUTO)
		ret = apitest_err(DIR_HIST(post, DIR_COUNT)) ?:
		      apitest_err(DIR_HIST(entry)) ?:
		      apitest_err(DIR_HIST(module, DIR_COUNT)) ?:
		      apitest_err(pcore_kprobe_attach(pc,
			&(struct pcore_kprobe_opts){
			.name = "post", .symbol = "pcore_apitest_target",
			.pre = dir_count, .post = apitest_pre,
			.hist = dir.post, .priv = dir.post, .mech = mech })) ?:
		      apitest_err(pcore_kretprobe_attach(pc,
			&(struct pcore_kretprobe_opts){
			.name = "entry", .symbol = "sys_getpgid",
			.entry = apitest_entry, .hist = dir.entry,
			.mech = mech })) ?:
		      apitest_err(pcore_kprobe_attach(pc,
			&(struct pcore_kprobe_opts){
			.name = "module", .symbol = "pcore_apitest_target",
			.hist = dir.module, .mech = mech }));
	if (ret)
		return ret;
	for (i = 0; i < loops; i++)
		dir_call();
	for (i = 0; mech == PCORE_MECH_AUTO && i < 3; i++)
		pcore_apitest_target(i);
	return 0;
}

/*
 * The tables of bad input above: where each is, and the creating function
 * an entry's options go to (entries start with their name).
 */
#define APITEST_RUN(kind, create)					\
static int apitest_##kind(const void *o)				\
{									\
	return apitest_err(create(pc, o));				\
}

APITEST_RUN(hist, pcore_hist_create)
APITEST_RUN(timer, pcore_timer_create)
APITEST_RUN(kprobe, pcore_kprobe_attach)
APITEST_RUN(kretprobe, pcore_kretprobe_attach)
APITEST_RUN(tp, pcore_tracepoint_attach)
APITEST_RUN(uprobe, pcore_uprobe_attach)

#define APITEST_TABLE(kind) {						\
	.cases = kind##_cases,						\
	.n = ARRAY_SIZE(kind##_cases),					\
	.size = sizeof(kind##_cases[0]),				\
	.opts = offsetof(typeof(kind##_cases[0]), o),			\
	.run = apitest_##kind,						\
}

static const struct apitest_table {
	const void *cases;
	size_t n, size, opts;	/* entries, their size, their options' offset */
	int (*run)(const void *opts);
} apitest_tables[] = {
	APITEST_TABLE(hist),
	APITEST_TABLE(timer),
	APITEST_TABLE(kprobe),
	APITEST_TABLE(kretprobe),
	APITEST_TABLE(tp),
	APITEST_TABLE(uprobe),
};

static const struct {
	const char *name;
	int (*fn)(void);
} apitest_funcs[] = {
	{ "probe_forms", probe_forms },
	{ "direct_api", direct_api },
	{ "kprobe_heap", kprobe_heap },
	{ "many_probes", many_probes },
	{ "null_opts_hist", null_opts_hist },
	{ "null_opts_timer", null_opts_timer },
	{ "null_opts_kprobe", null_opts_kprobe },
	{ "null_opts_kretprobe", null_opts_kretprobe },
	{ "null_opts_tp", null_opts_tp },
	{ "null_client", null_client },
	{ "error_client", error_client },
	{ "client_null_owner", client_null_owner },
	{ "client_twice", client_twice },
	{ "hist_dup", hist_dup },
	{ "hist_reserved", hist_reserved },
	{ "timer_dup", timer_dup },
	{ "kprobe_dup", kprobe_dup },
	{ "hist_busy", hist_busy },
	{ "hist_destroy_bound", hist_destroy_bound },
	{ "too_many_probes", too_many_probes },
	{ "partial", partial },
	{ "keys_hashed", keys_hashed },
	{ "keys_sentinel", keys_sentinel },
	{ "hist_mem", hist_mem },
	{ "keys_pid", keys_pid },
	{ "ipi_watch", ipi_watch },
	{ "keys_addr", keys_addr },
	{ "steady", steady },
	{ "keys_direct", keys_direct },
	{ "keys_fuzz", keys_fuzz },
	{ "timer_cpu", timer_cpu },
	{ "timer_task", timer_task },
	{ "timer_exit", timer_exit },
	{ "task_stack", task_stack },
	{ "tp_wait", tp_wait },
	{ "tp_nowait", tp_nowait },
	{ "kprobe_hist_error", kprobe_hist_error },
	{ "no_destroy", no_destroy },
	{ "uprobe_data", uprobe_data },
	{ "uprobe_gone", uprobe_gone },
	{ "funcs_glob_null", funcs_glob_null },
	{ "funcs_max_big", funcs_max_big },
	{ "funcs_too_many", funcs_too_many },
	{ "funcs_null_opts", funcs_null_opts },
	{ "funcs_flags", funcs_flags },
	{ "funcs_hist_twice", funcs_hist_twice },
	{ "funcs_hist_busy", funcs_hist_busy },
	{ "profile_hz_zero", profile_hz_zero },
	{ "profile_hz_big", profile_hz_big },
	{ "profile_not_stacks", profile_not_stacks },
	{ "profile_null_opts", profile_null_opts },
	{ "profile_flags", profile_flags },
};

static int apitest_run(const char *name)
{
	const struct apitest_table *t;
	const char *e;
	unsigned int i;

	for (t = apitest_tables; t < apitest_tables + ARRAY_SIZE(apitest_tables); t++)
		for (i = 0, e = t->cases; i < t->n; i++, e += t->size)
			if (!strcmp(name, *(const char * const *)e))
				return t->run(e + t->opts);
	for (i = 0; i < ARRAY_SIZE(apitest_funcs); i++)
		if (!strcmp(name, apitest_funcs[i].name))
			return apitest_funcs[i].fn();
	pr_err("case=%s: no such case\n", name);
	return -EINVAL;
}

static int __init apitest_init(void)
{
	int ret;

	memset(apitest_long, 'a', PCORE_NAME_MAX);
	if (!apitest_case) {
		pr_err("needs case=<name>\n");
		return -EINVAL;
	}
	pc = pcore_client_create(THIS_MODULE);
	if (IS_ERR(pc))
		return PTR_ERR(pc);
	ret = apitest_run(apitest_case);
	if (ret)
		pcore_client_destroy(pc);
	return ret;
}

static void __exit apitest_exit(void)
{
	steady_stop();
	if (many_report)
		many_destroy();
	else if (!skip_destroy)
		pcore_client_destroy(pc);
}

module_init(apitest_init);
module_exit(apitest_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("probe_core selftests: one scenario of the public API per load");
