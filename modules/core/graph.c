// SPDX-License-Identifier: GPL-2.0
/*
 * Where a function's time goes: target=F:graph[:GLOB] (probectl attach
 * --kretprobe F --graph [GLOB]).  The latency of F, and for each function
 * F calls at depth 1 the time it took inside calls of F, in one keyed
 * histogram "F:graph" (%PCORE_KEYS_DIRECT, key name "callee"):
 *
 *	key 0	F itself: the latency of each call (labelled F)
 *	key 1	"[self]": each call's self time, F's time less the time of
 *		the callees that call made (its own code, and what it
 *		called that is not probed: tail calls, inlined code)
 *	key 2+	one per callee, labelled with its name: the time of each
 *		call of it made from F (a value per call of the callee)
 *
 * Which callees.  Direct calls are found in F's code: its start and size
 * come from kallsyms (sprint_symbol(), "name+off/size"), its bytes from
 * copy_from_kernel_nofault().  The kernel's x86 instruction decoder
 * (insn_decode(), which insn_decode_kernel() wraps) is exported to modules
 * neither by Debian's 6.1 nor by 6.12 (their Module.symvers), and its
 * tables are not in the headers package: so F's bytes are scanned for
 * 0xe8 (call rel32), and a candidate is kept when its target is a
 * function's start (offset 0 in kallsyms).  A 0xe8 byte inside another
 * instruction can make a false candidate; it costs a probe but never
 * counts, because every call is checked at run time (below).  Left out,
 * each function counted once, named in the graph file (the first
 * PCORE_GRAPH_LEFT_OUT) and summed in the attach's log line: calls into
 * instrumentation and thunks
 * (__fentry__, ftrace's callers, retpoline and return thunks, static call
 * trampolines, KASAN/KCSAN/UBSAN/stack protector hooks: see
 * pcore_graph_skip_name()), functions kprobes refuse (their blacklist,
 * notrace code they cannot probe) and names that resolve elsewhere (a
 * name several functions share: kprobes would take another one).  Tail
 * calls (jmp) are not callees: their time is F's self time (F's return
 * probe sees them, no callee does).  Indirect calls (f_op->read_iter,
 * through a retpoline thunk or not) cannot be read from the code: the
 * functions of the GLOB the user gives are probed as callees too.  At
 * most PCORE_GRAPH_CALLEES callees: more is refused (-E2BIG) with one
 * log line.
 *
 * Attribution.  Each callee has a kretprobe (the public API: one
 * mechanism, kretprobes, for F and its callees; entry handlers and
 * per-call data need them) whose entry handler reads the return address
 * at the callee's first instruction (the word at regs->sp, read before
 * the kretprobe replaces it) and times the call only when that address
 * is inside F, and only in task context.  So a callee called from
 * anywhere else, a call at depth 2 (through another callee: its return
 * address is in that callee) and a false candidate are never counted.  A
 * callee that another return probe on it hooked first sees that probe's
 * trampoline as its return address, and is not counted.
 *
 * Self time.  A call of F in task context takes a slot in a table of
 * PCORE_GRAPH_TASKS slots (the task and its start time, a running sum),
 * claimed with cmpxchg in the window of PCORE_GRAPH_WINDOW slots its task
 * hashes to; each callee call of that task that returns into F adds its
 * time to the sum; F's return records its time less the sum as self time
 * and frees the slot.  Only the task itself writes its slot after the
 * claim, so no lock.  A call that finds no free slot is not given a self
 * time (counted: "untracked" in the log at detach, and visible as key 1's
 * count below key 0's).  F's calls from interrupts are timed (key 0) but
 * neither their callees nor their self time are: an interrupt on the
 * task's stack would mix with the task's call.  Recursion: an inner call
 * of F finds its task's slot taken and takes none; its callees (their
 * return address is in F) add to the outer call's sum, so the outer
 * call's self time holds the inner calls' own code, and F's key 0 counts
 * both calls.  When the inner call is reached through a callee (F calls
 * g, g calls F), the inner call's callees are counted in g's time too, so
 * the outer call's self time is short by them (it is never below 0).  A task that exits inside F (do_exit() never returns)
 * leaves its slot taken until the graph is detached: its start time
 * tells it from any later task at the same address.
 *
 * Hot path: no lock, no allocation, no division; the table and the
 * callees are allocated at attach.  Cost: every call of a callee, from
 * anywhere, hits its kprobe (a callee such as mutex_lock() is called
 * everywhere): a graph costs more than F's probe alone; see
 * docs/benchmarks.md.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/hash.h>
#include <linux/kallsyms.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include "pcore.h"
#include "graph.h"

/* Callees per graph, direct and from the glob together. */
#define PCORE_GRAPH_CALLEES	64
/* Calls of F in flight at once whose callees are summed, all tasks. */
#define PCORE_GRAPH_TASKS	1024
#define PCORE_GRAPH_WINDOW	8
/* The largest F read (bytes of code). */
#define PCORE_GRAPH_CODE_MAX	(64 * 1024)

/* Functions left out that are told apart and named in the graph file. */
#define PCORE_GRAPH_LEFT_OUT	64

#define PCORE_GRAPH_KEY_F	0
#define PCORE_GRAPH_KEY_SELF	1
#define PCORE_GRAPH_KEY_CALLEE	2

/* A call of F in flight, in task context: whose, and its callees' sum. */
struct pcore_graph_task {
	struct task_struct *task;	/* NULL: free; claimed by cmpxchg */
	u64 born;			/* the task's start_time */
	u64 sum;			/* ns of its callees so far */
};

struct pcore_graph;

/* A function F calls, directly or as the glob says. */
struct pcore_graph_callee {
	struct pcore_graph *g;
	struct pcore_probe *probe;
	unsigned long addr;
	u32 key;
	bool indirect;
	char label[PCORE_LABEL_MAX];
	char name[KSYM_NAME_LEN];
};

/**
 * struct pcore_graph - the callees and calls in flight of one F:graph
 * @start: F's first byte
 * @size: bytes of F's code
 * @hist: the keyed histogram (the builtin entry owns it)
 * @n: callees in @c
 * @skipped: calls left out: instrumentation and thunks, refused by
 *	kprobes, names that resolve elsewhere
 * @nout: functions in @out
 * @out: the first PCORE_GRAPH_LEFT_OUT functions left out: where, why
 *	and their names (cut to 63 characters); past them, each call
 *	site of one more is counted
 * @untracked: per CPU, calls of F in task context that found no slot
 * @flabel: key 0's label, F's name cut to a label
 * @file: the graph file in the histogram's directory
 * @t: the calls in flight
 * @c: the callees
 */
struct pcore_graph {
	unsigned long start;
	unsigned long size;
	struct pcore_hist *hist;
	u32 n;
	u32 skipped[3];
	u32 nout;
	struct {
		unsigned long addr;
		u32 why;
		char name[64];
	} out[PCORE_GRAPH_LEFT_OUT];
	unsigned long __percpu *untracked;
	char flabel[PCORE_LABEL_MAX];
	struct dentry *file;
	struct pcore_graph_task t[PCORE_GRAPH_TASKS];
	struct pcore_graph_callee c[PCORE_GRAPH_CALLEES];
};

/* F's per-call data: its slot in the table, or -1. */
struct pcore_graph_call {
	int slot;
};

/* The slot of current's call of F in flight, or -1. */
static __always_inline int pcore_graph_find(struct pcore_graph *g)
{
	u32 i = hash_ptr(current, ilog2(PCORE_GRAPH_TASKS)), n;

	for (n = 0; n < PCORE_GRAPH_WINDOW; n++) {
		struct pcore_graph_task *t =
			&g->t[(i + n) & (PCORE_GRAPH_TASKS - 1)];

		if (READ_ONCE(t->task) == current &&
		    READ_ONCE(t->born) == current->start_time)
			return (i + n) & (PCORE_GRAPH_TASKS - 1);
	}
	return -1;
}

/* F's entry: an outermost call in task context takes a slot. */
static int notrace pcore_graph_f_entry(struct pcore_probe *p,
				       struct pt_regs *regs, void *data)
{
	struct pcore_graph *g = pcore_probe_priv(p);
	struct pcore_graph_call *d = data;
	u32 i, n;

	d->slot = -1;
	if (!in_task() || pcore_graph_find(g) >= 0)
		return 0;	/* timed; an inner call adds to the outer */
	i = hash_ptr(current, ilog2(PCORE_GRAPH_TASKS));
	for (n = 0; n < PCORE_GRAPH_WINDOW; n++) {
		u32 s = (i + n) & (PCORE_GRAPH_TASKS - 1);
		struct pcore_graph_task *t = &g->t[s];

		if (READ_ONCE(t->task) || cmpxchg(&t->task, NULL, current))
			continue;
		WRITE_ONCE(t->born, current->start_time);
		t->sum = 0;
		d->slot = s;
		return 0;
	}
	this_cpu_inc(*g->untracked);
	return 0;
}
NOKPROBE_SYMBOL(pcore_graph_f_entry);

/* F's return: its latency, and its self time when its slot summed. */
static void notrace pcore_graph_f_ret(struct pcore_probe *p,
				      struct pt_regs *regs, void *data, u64 ns)
{
	struct pcore_graph *g = pcore_probe_priv(p);
	struct pcore_graph_call *d = data;
	struct pcore_graph_task *t;
	u64 sum;

	pcore_hist_add_key(g->hist, PCORE_GRAPH_KEY_F, g->flabel, ns);
	if (d->slot < 0)
		return;
	t = &g->t[d->slot];
	sum = t->sum;
	pcore_hist_add_key(g->hist, PCORE_GRAPH_KEY_SELF, "[self]",
			   ns > sum ? ns - sum : 0);
	WRITE_ONCE(t->born, 0);
	/* The slot's fields are done before another task may claim it. */
	smp_store_release(&t->task, NULL);
}
NOKPROBE_SYMBOL(pcore_graph_f_ret);

/*
 * A callee's entry: timed only when it returns into F (the word at the
 * stack pointer at its first instruction), in task context.
 */
static int notrace pcore_graph_callee_entry(struct pcore_probe *p,
					    struct pt_regs *regs, void *data)
{
	struct pcore_graph_callee *c = pcore_probe_priv(p);
	struct pcore_graph *g = c->g;
	struct pcore_graph_call *d = data;
	unsigned long ra;

	if (!in_task())
		return 1;
	ra = READ_ONCE(*(unsigned long *)kernel_stack_pointer(regs));
	/* After a call: past F's first byte, at most at its end. */
	if (ra - g->start - 1 >= g->size)
		return 1;
	d->slot = pcore_graph_find(g);
	return 0;
}
NOKPROBE_SYMBOL(pcore_graph_callee_entry);

static void notrace pcore_graph_callee_ret(struct pcore_probe *p,
					   struct pt_regs *regs, void *data,
					   u64 ns)
{
	struct pcore_graph_callee *c = pcore_probe_priv(p);
	struct pcore_graph *g = c->g;
	struct pcore_graph_call *d = data;

	pcore_hist_add_key(g->hist, c->key, c->label, ns);
	if (d->slot >= 0 && READ_ONCE(g->t[d->slot].task) == current)
		g->t[d->slot].sum += ns;
}
NOKPROBE_SYMBOL(pcore_graph_callee_ret);

/*
 * Calls into these are not callees: instrumentation the compiler adds,
 * thunks (a retpoline thunk jumps on to the real callee, whose return
 * address is in F: the glob catches it), static call trampolines.
 */
static bool pcore_graph_skip_name(const char *name)
{
	static const char *const prefix[] = {
		"__fentry__", "mcount", "ftrace_", "__x86_indirect_",
		"__x86_return_thunk", "__x86_call_depth", "__x86_",
		"__SCT__", "__static_call", "__sanitizer_", "__asan_",
		"__kasan_", "kasan_", "__kcsan_", "__tsan_", "__ubsan_",
		"__kmsan_", "__msan_", "__stack_chk_fail", "__cfi_", "__pfx_",
		"srso_", "retbleed_", "entry_untrain_ret", "warn_thunk",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(prefix); i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])))
			return true;
	return false;
}

/*
 * The function at @addr as kallsyms has it ("name+0x0/0x1b0 [mod]"):
 * its name into @name, its offset and size.  Return: 0, or -ENOENT when
 * no symbol holds @addr.
 */
static int pcore_graph_sym(unsigned long addr, char *name, size_t len,
			   unsigned long *off, unsigned long *size)
{
	char buf[KSYM_SYMBOL_LEN], *plus, *slash;

	sprint_symbol(buf, addr);
	plus = strrchr(buf, '+');
	slash = plus ? strchr(plus, '/') : NULL;
	if (!plus || !slash)
		return -ENOENT;
	*slash = '\0';
	if (kstrtoul(plus + 1, 16, off))
		return -ENOENT;
	slash[strcspn(slash + 1, " ") + 1] = '\0';
	if (kstrtoul(slash + 1, 16, size))
		return -ENOENT;
	*plus = '\0';
	strscpy(name, buf, len);
	return 0;
}

/*
 * Where kprobes put a probe on @name (what the kretprobe will take), or
 * 0 when they refuse it.
 */
static unsigned long pcore_graph_kprobe_addr(const char *name)
{
	struct kprobe kp = { .symbol_name = name,
			     .flags = KPROBE_FLAG_DISABLED };
	unsigned long addr;

	if (register_kprobe(&kp))
		return 0;
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
	return addr;
}

/* Add a callee: 0, 1 when already there, or -E2BIG when full. */
static int pcore_graph_add(struct pcore_graph *g, unsigned long addr,
			   const char *name, bool indirect)
{
	struct pcore_graph_callee *c;
	u32 i;

	for (i = 0; i < g->n; i++)
		if (g->c[i].addr == addr)
			return 1;
	if (g->n == PCORE_GRAPH_CALLEES)
		return -E2BIG;
	c = &g->c[g->n];
	c->g = g;
	c->addr = addr;
	c->key = PCORE_GRAPH_KEY_CALLEE + g->n;
	c->indirect = indirect;
	strscpy(c->name, name, sizeof(c->name));
	strscpy(c->label, name, sizeof(c->label));
	g->n++;
	return 0;
}

static const char *const pcore_graph_why[] = {
	"instrumentation or thunk", "refused by kprobes", "name elsewhere",
};

/* A call left out: counted, and its name kept for the graph file. */
static void pcore_graph_left_out(struct pcore_graph *g, unsigned long addr,
				 const char *name, u32 why)
{
	g->skipped[why]++;
	if (g->nout == PCORE_GRAPH_LEFT_OUT)
		return;
	g->out[g->nout].addr = addr;
	g->out[g->nout].why = why;
	strscpy(g->out[g->nout].name, name, sizeof(g->out[g->nout].name));
	g->nout++;
}

/*
 * A candidate at @addr: kept when a function starts there, it is not
 * instrumentation, and kprobes take its name to it.  0 or -E2BIG.
 */
static int pcore_graph_candidate(struct pcore_graph *g, unsigned long addr)
{
	char name[KSYM_NAME_LEN];
	unsigned long off, size, at;
	u32 i;

	if (addr == g->start || pcore_graph_sym(addr, name, sizeof(name),
						&off, &size) || off)
		return 0;	/* not a function's start: not a call */
	for (i = 0; i < g->n; i++)
		if (g->c[i].addr == addr)
			return 0;
	for (i = 0; i < g->nout; i++)
		if (g->out[i].addr == addr)
			return 0;	/* counted once already */
	if (pcore_graph_skip_name(name)) {
		pcore_graph_left_out(g, addr, name, 0);
		return 0;
	}
	at = pcore_graph_kprobe_addr(name);
	if (!at) {
		pcore_graph_left_out(g, addr, name, 1);
		return 0;
	}
	/* kprobes may step over an endbr64: within the first bytes. */
	if (at < addr || at >= addr + 16) {
		pcore_graph_left_out(g, addr, name, 2);
		return 0;
	}
	return pcore_graph_add(g, addr, name, false) < 0 ? -E2BIG : 0;
}

/* F's direct callees, from its code. */
static int pcore_graph_scan(struct pcore_graph *g, const char *param,
			    const char *fname)
{
	unsigned long i;
	s32 rel;
	u8 *code;
	int ret = 0;

	code = kvmalloc(g->size, GFP_KERNEL);
	if (!code)
		return -ENOMEM;
	if (copy_from_kernel_nofault(code, (void *)g->start, g->size)) {
		pr_err("%s=%s:graph: cannot read its code\n", param, fname);
		kvfree(code);
		return -EFAULT;
	}
	for (i = 0; !ret && i + 5 <= g->size; i++) {
		if (code[i] != 0xe8)
			continue;
		memcpy(&rel, &code[i + 1], sizeof(rel));	/* unaligned */
		ret = pcore_graph_candidate(g, g->start + i + 5 + (long)rel);
	}
	kvfree(code);
	if (ret)
		pr_err("%s=%s:graph: calls more than %d functions\n", param,
		       fname, PCORE_GRAPH_CALLEES);
	return ret;
}

/* The functions of @glob, as callees F may reach indirectly. */
static int pcore_graph_glob(struct pcore_graph *g, const char *param,
			    const char *fname, const char *glob)
{
	char name[KSYM_NAME_LEN];
	struct pcore_funcs *f;
	unsigned long off, size, at;
	unsigned int i, n;
	int ret = 0;

	f = pcore_funcs_find(glob, PCORE_GRAPH_CALLEES);
	if (IS_ERR(f))
		return PTR_ERR(f);	/* it said why */
	n = pcore_funcs_count(f);
	for (i = 0; !ret && i < n; i++) {
		at = pcore_graph_kprobe_addr(pcore_funcs_name(f, i));
		if (!at || pcore_graph_sym(at, name, sizeof(name), &off, &size))
			continue;	/* pcore_funcs_find() checked it */
		if (pcore_graph_add(g, at - off, pcore_funcs_name(f, i),
				    true) < 0) {
			pr_err("%s=%s:graph:%s: calls and glob together are more than %d functions\n",
			       param, fname, glob, PCORE_GRAPH_CALLEES);
			ret = -E2BIG;
		}
	}
	pcore_funcs_free(f);
	return ret;
}

/* F's start and size, where kprobes put a probe on @fname. */
static int pcore_graph_func(struct pcore_graph *g, const char *param,
			    const char *fname)
{
	char name[KSYM_NAME_LEN];
	unsigned long at = pcore_graph_kprobe_addr(fname), off;

	if (!at || pcore_graph_sym(at, name, sizeof(name), &off, &g->size) ||
	    !g->size) {
		pr_err("%s=%s:graph: not a kernel function kprobes can probe\n",
		       param, fname);
		return -ENOENT;
	}
	if (g->size > PCORE_GRAPH_CODE_MAX) {
		pr_err("%s=%s:graph: %lu bytes of code, more than %d\n", param,
		       fname, g->size, PCORE_GRAPH_CODE_MAX);
		return -E2BIG;
	}
	g->start = at - off;
	strscpy(g->flabel, fname, sizeof(g->flabel));
	return 0;
}

/**
 * pcore_graph_indirect() - callees of a graph that came from its glob
 * @g: the graph
 *
 * Return: how many.
 */
u32 pcore_graph_indirect(const struct pcore_graph *g)
{
	u32 i, n = 0;

	for (i = 0; i < g->n; i++)
		n += g->c[i].indirect;
	return n;
}

/* One key of the graph file. */
struct pcore_graph_row {
	u64 count, sum, p50, p99;
};

struct pcore_graph_walk {
	struct pcore_hist *h;
	struct pcore_graph_row r[PCORE_GRAPH_KEY_CALLEE + PCORE_GRAPH_CALLEES];
};

static void pcore_graph_one(void *arg, const struct pcore_keyval *kv)
{
	struct pcore_graph_walk *w = arg;
	struct pcore_graph_row *r;

	if (kv->key >= ARRAY_SIZE(w->r))
		return;
	r = &w->r[kv->key];
	r->count = kv->s->count;
	r->sum = kv->s->sum;
	r->p50 = pcore_snap_percentile(&w->h->layout, kv->s, 500000);
	r->p99 = pcore_snap_percentile(&w->h->layout, kv->s, 990000);
}

static void pcore_graph_line(struct seq_file *m, const char *indent,
			     const char *name, const struct pcore_graph_row *r)
{
	seq_printf(m, "%s%s %llu %llu %llu %llu\n", indent, name, r->count,
		   r->sum, r->p50, r->p99);
}

/*
 * The graph file: F's line, each callee indented, then the self line,
 * each "NAME CALLS TOTAL_NS P50_NS P99_NS" (the current interval, as the
 * hist file reads it); the header says what was left out.
 */
static int pcore_graph_file_show(struct seq_file *m, void *unused)
{
	struct pcore_graph *g = m->private;
	struct pcore_graph_walk *w;
	unsigned long untracked = 0;
	int cpu;
	u32 i;

	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	w->h = g->hist;
	for_each_possible_cpu(cpu)
		untracked += *per_cpu_ptr(g->untracked, cpu);
	mutex_lock(&g->hist->lock);
	pcore_hist_walk(g->hist, -1, pcore_graph_one, w);
	mutex_unlock(&g->hist->lock);
	seq_printf(m, "# %s: %u callees (%u from the glob); left out: %u instrumentation or thunks, %u refused by kprobes, %u names elsewhere; %lu calls untracked\n",
		   g->flabel, g->n, pcore_graph_indirect(g), g->skipped[0],
		   g->skipped[1], g->skipped[2], untracked);
	for (i = 0; i < g->nout; i++)
		seq_printf(m, "# left out: %s (%s)\n", g->out[i].name,
			   pcore_graph_why[g->out[i].why]);
	seq_puts(m, "# name calls total_ns p50_ns p99_ns\n");
	pcore_graph_line(m, "", g->flabel, &w->r[PCORE_GRAPH_KEY_F]);
	for (i = 0; i < g->n; i++)
		pcore_graph_line(m, "  ", g->c[i].name, &w->r[g->c[i].key]);
	pcore_graph_line(m, "  ", "[self]", &w->r[PCORE_GRAPH_KEY_SELF]);
	kfree(w);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pcore_graph_file);

/**
 * pcore_graph_attach() - attach F:graph[:GLOB]
 * @c: the client (probe_core's own)
 * @gp: set to the graph, to free with pcore_graph_free() after the
 *	probe is detached (also on error)
 * @r: the request: its probe spec's func (F) and graph (the glob)
 * @name: the histogram's and probe's name ("F:graph")
 * @hp: set to the histogram
 * @pp: set to F's probe
 *
 * Return: 0, or an errno with one log line; the caller frees what is set.
 */
int pcore_graph_attach(struct pcore_client *c, struct pcore_graph **gp,
		       const struct pcore_builtin_req *r, const char *name,
		       struct pcore_hist **hp, struct pcore_probe **pp)
{
	const char *param = r->param, *fname = r->probe.func;
	char pname[PCORE_NAME_MAX];
	struct pcore_graph *g;
	struct pcore_probe *p;
	u32 i;
	int ret;

	if (r->file) {
		pr_err("%s=%s: ':graph' is for kernel functions\n", param,
		       name);
		return -EINVAL;
	}
	g = kvzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	*gp = g;
	g->untracked = alloc_percpu(unsigned long);
	if (!g->untracked)
		return -ENOMEM;
	ret = pcore_graph_func(g, param, fname);
	if (!ret)
		ret = pcore_graph_scan(g, param, fname);
	if (!ret && r->probe.graph[0])
		ret = pcore_graph_glob(g, param, fname, r->probe.graph);
	if (ret)
		return ret;
	*hp = pcore_hist_create(c, &(struct pcore_hist_opts){
		.name = name, .spec = r->spec, .key_mode = PCORE_KEYS_DIRECT,
		.keys = PCORE_GRAPH_KEY_CALLEE + g->n, .key_name = "callee" });
	if (IS_ERR(*hp))
		return PTR_ERR(*hp);
	g->hist = *hp;
	for (i = 0; i < g->n; i++) {
		if (snprintf(pname, sizeof(pname), "%s=%s", name,
			     g->c[i].name) >= sizeof(pname)) {
			pr_err("%s=%s: %s: name too long for a probe\n", param,
			       name, g->c[i].name);
			return -EINVAL;
		}
		p = pcore_kretprobe_attach(c, &(struct pcore_kretprobe_opts){
			.name = pname, .symbol = g->c[i].name,
			.data_size = sizeof(struct pcore_graph_call),
			.entry = pcore_graph_callee_entry,
			.ret = pcore_graph_callee_ret, .priv = &g->c[i],
			.filter = r->filter, .mech = PCORE_MECH_KPROBE });
		if (IS_ERR(p))
			return PTR_ERR(p);
		g->c[i].probe = p;
	}
	/* F last: its calls find their callees probed. */
	*pp = pcore_kretprobe_attach(c, &(struct pcore_kretprobe_opts){
		.name = name, .symbol = fname, .maxactive = r->maxactive,
		.data_size = sizeof(struct pcore_graph_call),
		.entry = pcore_graph_f_entry, .ret = pcore_graph_f_ret,
		.hist = *hp, .priv = g, .filter = r->filter,
		.mech = PCORE_MECH_KPROBE });
	if (IS_ERR(*pp))
		return PTR_ERR(*pp);
	/* Removed before @g is freed (debugfs waits for its readers). */
	g->file = debugfs_create_file("graph", 0400, g->hist->dir, g,
				      &pcore_graph_file_fops);
	pr_info("%s: %u callees (%u direct), %u calls left out (%u instrumentation or thunks, %u refused by kprobes, %u names elsewhere)\n",
		name, g->n, g->n - pcore_graph_indirect(g),
		g->skipped[0] + g->skipped[1] + g->skipped[2], g->skipped[0],
		g->skipped[1], g->skipped[2]);
	return 0;
}

/**
 * pcore_graph_forget() - the client detached the callees' probes itself
 * @g: the graph, or NULL
 */
void pcore_graph_forget(struct pcore_graph *g)
{
	u32 i;

	for (i = 0; g && i < g->n; i++)
		g->c[i].probe = NULL;
}

/**
 * pcore_graph_free() - detach a graph's callees and free it
 * @g: the graph, or NULL; F's probe is detached already
 */
void pcore_graph_free(struct pcore_graph *g)
{
	u32 i;

	if (!g)
		return;
	debugfs_remove(g->file);
	for (i = 0; i < g->n; i++)
		if (!IS_ERR_OR_NULL(g->c[i].probe))
			pcore_probe_detach(g->c[i].probe);
	free_percpu(g->untracked);
	kvfree(g);
}

