/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Probes (probe.c) and the ops of their mechanisms.
 * Part of pcore.h, which includes the units' headers in order.
 */
#ifndef PCORE_PROBE_H
#define PCORE_PROBE_H

enum pcore_probe_kind {
	PCORE_PROBE_KPROBE,
	PCORE_PROBE_KRETPROBE,
	PCORE_PROBE_TRACEPOINT,
	PCORE_PROBE_UPROBE,
	PCORE_PROBE_URETPROBE,
	PCORE_PROBE_FUNCS,
	PCORE_PROBE_PROFILE,
	PCORE_PROBE_DIRECT,
	PCORE_PROBE_DIRECT_RET,
	PCORE_PROBE_DIRECT_FUNCS,
};

/**
 * struct pcore_direct - a direct-call probe's (direct.c)
 * @ops: its ftrace registration, filtered to @ip
 * @ip: the function's ftrace call site
 * @slot: its trampoline
 */
struct pcore_direct {
#ifdef PCORE_HAVE_DIRECT
	struct ftrace_ops ops;
#endif
	unsigned long ip;
	unsigned int slot;
};

/* Flags of struct pcore_direct_opts */
#define PCORE_DIRECT_RET	0x1	/* time each call: wrap the function */

/**
 * struct pcore_direct_opts - a direct-call probe to attach: it counts the
 *	calls of @symbol into @hist, or with %PCORE_DIRECT_RET times them
 * @name: probe name, unique within the client; default @symbol
 * @symbol: function to probe; "do_fork" and "sys_<name>" resolve to this
 *	kernel's names
 * @hist: where the calls are counted, or their times added
 * @pre: optional, without %PCORE_DIRECT_RET: called at each call instead
 *	of counting it in @hist; @regs has only the argument registers, ax,
 *	ip and sp (see struct pcore_kprobe_opts)
 * @ret: optional, with %PCORE_DIRECT_RET: called at each return instead
 *	of adding the time to @hist; @regs has only the return value (ax)
 * @priv: handler data
 * @filter: only these tasks' calls
 * @flags: %PCORE_DIRECT_RET or 0
 * @why: optional: where a function no direct call can take (one a kprobe
 *	may) gets the reason, a constant string, instead of a log line
 */
struct pcore_direct_opts {
	const char *name;
	const char *symbol;
	struct pcore_hist *hist;
	void (*pre)(struct pcore_probe *p, struct pt_regs *regs);
	void (*ret)(struct pcore_probe *p, struct pt_regs *regs, void *data,
		    u64 ns);
	void *priv;
	struct pcore_filter filter;
	unsigned int flags;
	const char **why;
};

struct pcore_probe;

/* What a teardown must wait for before a probe's memory goes. */
#define PCORE_SYNC_RCU		0x1	/* synchronize_rcu() */
#define PCORE_SYNC_TP		0x2	/* tracepoint_synchronize_unregister() */
#define PCORE_SYNC_UPROBE	0x4	/* uprobe_unregister_sync() (v6.12+) */

/**
 * struct pcore_batch - the probes of one kind that a teardown unregisters
 * @items: room for every probe of the teardown, or NULL without memory
 *	(then each disarm unregisters its probe alone)
 * @n: entries in @items
 */
struct pcore_batch {
	void **items;
	unsigned int n;
};

/**
 * struct pcore_probe_ops - a probe mechanism, as probe.c drives it
 * @kind: the enum pcore_probe_kind of its probes
 * @name_chars: characters a probe name may have besides letters, digits,
 *	'_' and '.'
 * @check: optional; more checks under pcore_lock before @arm (a group's
 *	histograms); 0 or an errno with one log line
 * @arm: register the probe its attach function set up, with that
 *	function's options; under pcore_lock; 0 or an errno with one log
 *	line, leaving nothing registered
 * @link: optional; bind what else the probe feeds (a group's histograms)
 * @disarm: teardown, under pcore_lock: unregister the probe if it is
 *	(@armed says whether @arm succeeded), or put it in @b for @flush;
 *	take it off whatever its handlers are found through.  Also called
 *	for a probe whose @arm failed.  Return: PCORE_SYNC_* waits it needs
 *	before @release (each is done once per teardown)
 * @flush: optional; unregister what @disarm put in the batch, at once
 * @release: optional; after the waits, under pcore_lock: free what the
 *	mechanism holds and unbind what @link bound
 * @after_unlock: optional; what teardown does once pcore_lock is dropped
 *	(a uprobe's last iput())
 * @set_enabled: disarm the probe, or arm it again; under pcore_lock
 * @hits: optional; calls of the handler feeding histogram @h (NULL: all);
 *	by default the probe's per-CPU count
 * @hist_symbol: optional; what feeds @h resolved to; by default @symbol
 * @missed: optional; events missed; by default 0
 *
 * Each mechanism (kprobes and kretprobes, tracepoints, uprobes, function
 * groups, the profiler) has one, and its attach function hands it to
 * pcore_probe_new(); probe.c calls a mechanism only through it.
 */
struct pcore_probe_ops {
	enum pcore_probe_kind kind;
	const char *name_chars;
	int (*check)(struct pcore_probe *p);
	int (*arm)(struct pcore_probe *p, const void *opts);
	void (*link)(struct pcore_probe *p);
	u32 (*disarm)(struct pcore_probe *p, struct pcore_batch *b);
	void (*flush)(struct pcore_batch *b);
	void (*release)(struct pcore_probe *p);
	void (*after_unlock)(void);
	int (*set_enabled)(struct pcore_probe *p, bool on);
	u64 (*hits)(const struct pcore_probe *p, const struct pcore_hist *h);
	const char *(*hist_symbol)(const struct pcore_probe *p,
				   const struct pcore_hist *h);
	unsigned long (*missed)(const struct pcore_probe *p);
};

extern const struct pcore_probe_ops pcore_funcs_ops;
extern const struct pcore_probe_ops pcore_profile_ops;
extern const struct pcore_probe_ops pcore_uprobe_ops;
extern const struct pcore_probe_ops pcore_uretprobe_ops;

/**
 * struct pcore_probe - one attached probe
 * @node: in pcore_probes (the probes file)
 * @cnode: in the client's probes
 * @client: owner
 * @name: probe name; the probes file shows "<client>/<name>"
 * @symbol: what it resolved to: kernel symbol or tracepoint name
 * @kind: an enum pcore_probe_kind, its @ops's
 * @ops: its mechanism
 * @armed: its mechanism's @arm succeeded at attach
 * @priv: handler data
 * @hist: the histogram it feeds, or NULL
 * @hits: per CPU, handler calls
 * @kp: %PCORE_PROBE_KPROBE
 * @rp: %PCORE_PROBE_KRETPROBE
 * @up: %PCORE_PROBE_UPROBE and %PCORE_PROBE_URETPROBE
 * @fg: %PCORE_PROBE_FUNCS, %PCORE_PROBE_DIRECT_FUNCS: its functions, each
 *	with its histogram
 * @prof: %PCORE_PROBE_PROFILE: its perf events
 * @dp: %PCORE_PROBE_DIRECT, %PCORE_PROBE_DIRECT_RET: its ftrace ops and
 *	trampoline
 * @pre: kprobe pre handler; a profiler's sample handler
 * @post: kprobe post handler
 * @entry: kretprobe or uprobe entry handler
 * @ret: kretprobe or uretprobe return handler
 * @tp: %PCORE_PROBE_TRACEPOINT: the tracepoint while attached, else NULL
 * @tp_fn: the tracepoint handler
 * @tp_mod: the module @tp is in, NULL for the core kernel's
 * @disabled: disabled with pcore_probe_set_enabled()
 * @fpid: filter: only the process of this struct pid (held), or NULL
 * @fcomm: filter: only tasks of this comm, NUL-padded; zero for any
 * @filtered: @fpid or @fcomm is set
 * @mem: bytes counted against mem_max for it, given back when it is freed
 * @why_kprobe: why auto (mechanism=auto, %PCORE_MECH_AUTO) took a kprobe
 *	for it, or NULL
 */
struct pcore_probe {
	struct list_head node;
	struct list_head cnode;
	struct pcore_client *client;
	char name[PCORE_NAME_MAX];
	char symbol[KSYM_NAME_LEN + 32];
	enum pcore_probe_kind kind;
	const struct pcore_probe_ops *ops;
	bool armed;
	void *priv;
	struct pcore_hist *hist;
	local64_t __percpu *hits;
	union {
		struct kprobe kp;
		struct kretprobe rp;
		struct pcore_uprobe up;
		struct pcore_fgroup *fg;
		struct pcore_profile prof;
		struct pcore_direct dp;
	};
	void (*pre)(struct pcore_probe *p, struct pt_regs *regs);
	void (*post)(struct pcore_probe *p, struct pt_regs *regs);
	int (*entry)(struct pcore_probe *p, struct pt_regs *regs, void *data);
	void (*ret)(struct pcore_probe *p, struct pt_regs *regs, void *data,
		    u64 ns);
	struct tracepoint *tp;
	void *tp_fn;
	struct module *tp_mod;
	bool disabled;
	struct pid *fpid;
	u64 fcomm[2];
	bool filtered;
	size_t mem;
	const char *why_kprobe;
};

/*
 * Auto (mechanism=auto, %PCORE_MECH_AUTO) took a kprobe for @p: @why no
 * direct call (a constant).
 */
static inline void pcore_probe_set_why(struct pcore_probe *p, const char *why)
{
	WRITE_ONCE(p->why_kprobe, why);
}

/*
 * A tracepoint probe waiting for the module that has its tracepoint; a
 * disabled one is not waiting, whatever its module does.
 */
static inline bool pcore_probe_waiting(const struct pcore_probe *p)
{
	return p->kind == PCORE_PROBE_TRACEPOINT && !p->tp && !p->disabled;
}

static inline bool pcore_probe_is_user(const struct pcore_probe *p)
{
	return p->kind == PCORE_PROBE_UPROBE || p->kind == PCORE_PROBE_URETPROBE;
}

/* A uprobe whose file was deleted or unmounted: it let go of it. */
static inline bool pcore_probe_gone(const struct pcore_probe *p)
{
	return pcore_probe_is_user(p) && !READ_ONCE(p->up.inode);
}

static inline const char *pcore_probe_kind_str(enum pcore_probe_kind kind)
{
	switch (kind) {
	case PCORE_PROBE_KPROBE:
		return "kprobe";
	case PCORE_PROBE_KRETPROBE:
		return "kretprobe";
	case PCORE_PROBE_UPROBE:
		return "uprobe";
	case PCORE_PROBE_URETPROBE:
		return "uretprobe";
	case PCORE_PROBE_FUNCS:
		return "functions";
	case PCORE_PROBE_PROFILE:
		return "profile";
	case PCORE_PROBE_DIRECT:
		return "direct";
	case PCORE_PROBE_DIRECT_RET:
		return "direct-ret";
	case PCORE_PROBE_DIRECT_FUNCS:
		return "direct-funcs";
	default:
		return "tracepoint";
	}
}

static inline const char *pcore_probe_kind_name(const struct pcore_probe *p)
{
	return pcore_probe_kind_str(p->kind);
}

/*
 * What the kernel allocates for @n kretprobe instances with @data_size
 * bytes of data each (with rethook, the instance embeds its node).
 */
static inline size_t pcore_kret_mem(u32 n, size_t data_size)
{
	return (size_t)n * (sizeof(struct kretprobe_instance) + data_size);
}

/* One log line about probe @p: "<client>: <kind> <name>: ..." */
#define pcore_perr(p, fmt, ...)						\
	pcore_cerr((p)->client, "%s %s: " fmt, pcore_probe_kind_name(p),	\
		   (p)->name, ##__VA_ARGS__)

struct pcore_probe *pcore_probe_new(struct pcore_client *c,
				    const struct pcore_probe_ops *ops,
				    const char *name, const char *dflt,
				    struct pcore_hist *h, void *priv,
				    const struct pcore_filter *f);
int pcore_probe_charge(struct pcore_probe *p, size_t bytes);
int pcore_check_symbol(struct pcore_probe *p, const char *sym);
int pcore_register_aliased(struct pcore_probe *p, const char *sym,
			   int (*reg)(struct pcore_probe *p));
struct pcore_probe *pcore_direct_attach(struct pcore_client *c,
					const struct pcore_direct_opts *o);

void pcore_direct_cleanup(void);

/*
 * Probes that count or time through a trampoline at once (direct.c): as
 * many as probe_core has probes of its own, the only ones that go so.
 */
#define PCORE_DIRECT_SLOTS	256
/* The trampolines' addresses, and what they call (direct.c's asm). */
extern const unsigned long pcore_direct_tramps[PCORE_DIRECT_SLOTS];
extern const unsigned long pcore_direct_wraps[PCORE_DIRECT_SLOTS];
/*
 * Where a wrapping trampoline's body returns to, from the trampoline's
 * start (the same in each: one macro makes them).
 */
extern const u32 pcore_direct_back_off;
/* The argument registers as a trampoline saved them. */
struct pcore_direct_args {
	unsigned long ax, r9, r8, cx, dx, si, di;
};

void pcore_direct_hit(unsigned long slot, const struct pcore_direct_args *a);
u64 pcore_direct_entry(unsigned long slot);
void pcore_direct_return(unsigned long slot, u64 stamp, unsigned long rv);
/*
 * A glob's trampolines (pcore_direct_gtramp_N, pcore_direct_gwrap_N): the
 * same, and @ip, the site's return address (its ftrace call + 5), which
 * tells which of the glob's functions was called.
 */
extern const unsigned long pcore_direct_gtramps[PCORE_DIRECT_SLOTS];
extern const unsigned long pcore_direct_gwraps[PCORE_DIRECT_SLOTS];
extern const u32 pcore_direct_gback_off;
void pcore_direct_group_hit(unsigned long slot,
			    const struct pcore_direct_args *a,
			    unsigned long ip);
u64 pcore_direct_group_entry(unsigned long slot, unsigned long ip);
void pcore_direct_group_return(unsigned long slot, u64 stamp,
			       unsigned long rv, unsigned long ip);
struct pcore_probe *pcore_probe_add(struct pcore_probe *p, const void *o,
				    int err);
u64 pcore_probe_hits(const struct pcore_probe *p);
u64 pcore_probe_hist_hits(const struct pcore_probe *p,
			  const struct pcore_hist *h);
const char *pcore_probe_hist_symbol(const struct pcore_probe *p,
				    const struct pcore_hist *h);
unsigned long pcore_probe_missed(const struct pcore_probe *p);
void pcore_client_detach_probes(struct pcore_client *c);

int pcore_probe_set_enabled(struct pcore_probe *p, bool on);

int pcore_tp_init(void);
bool pcore_tp_exists(const char *name);
void pcore_tp_exit(void);
#endif /* PCORE_PROBE_H */
