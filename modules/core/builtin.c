// SPDX-License-Identifier: GPL-2.0
/*
 * probe_core's own probes: those of target= and tracepoints=, and those
 * attached through /dev/probe_core.  They are built with the same API as
 * handler modules, in probe_core's own client (whose directory is the
 * debugfs root): for each target a histogram and a return probe that
 * feeds it; for each tracepoint a histogram, a CPU timer and a handler
 * from the table below.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include "pcore.h"

/* What a target records: its name's suffix, after the function. */
enum pcore_builtin_mode {
	PCORE_BUILTIN_TIME,	/* "vfs_read": the latency of each call */
	PCORE_BUILTIN_COUNT,	/* "vfs_read:count": how many calls */
};

/* One of probe_core's own probes, with what it feeds. */
struct pcore_builtin {
	char name[PCORE_NAME_MAX];
	char symbol[PCORE_NAME_MAX];
	enum pcore_builtin_mode mode;
	struct pcore_hist *hist;
	struct pcore_timer *timer;
	struct pcore_probe *probe;
	bool used;
};

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

static const struct {
	const char *name;
	void *fn;
} pcore_tp_handlers[] = {
	{ "sched_switch", pcore_tp_sched_switch },
};

static int pcore_builtin_tracepoint(struct pcore_client *c,
				    struct pcore_builtin *b, const char *param)
{
	struct pcore_tracepoint_opts o = {
		.name = b->name, .tracepoint = b->name, .hist = b->hist,
		.priv = b,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pcore_tp_handlers); i++)
		if (!strcmp(pcore_tp_handlers[i].name, b->name))
			o.fn = pcore_tp_handlers[i].fn;
	if (!o.fn && !pcore_tp_exists(b->name)) {
		pr_err("%s=%s: no such tracepoint\n", param, b->name);
		return -ENOENT;
	}
	if (!o.fn) {
		pr_err("%s=%s: no built-in handler for this tracepoint (built-in: sched_switch)\n",
		       param, b->name);
		return -EINVAL;
	}
	b->timer = pcore_timer_create(c, &(struct pcore_timer_opts){
		.name = b->name, .scope = PCORE_TIMER_CPU });
	if (IS_ERR(b->timer))
		return PTR_ERR(b->timer);
	b->probe = pcore_tracepoint_attach(c, &o);
	return PTR_ERR_OR_ZERO(b->probe);
}

/* Detach and free one entry (or what a failed attach left of it). */
static void pcore_builtin_free(struct pcore_builtin *b)
{
	if (!IS_ERR_OR_NULL(b->probe))
		pcore_probe_detach(b->probe);
	if (!IS_ERR_OR_NULL(b->timer))
		pcore_timer_destroy(b->timer);
	if (!IS_ERR_OR_NULL(b->hist))
		pcore_hist_destroy(b->hist);
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
 * "FUNC" or "FUNC:SUFFIX" into b->symbol and b->mode.  Return: 0, or
 * -EINVAL with one log line.
 */
static int pcore_builtin_parse(struct pcore_builtin *b, const char *param)
{
	char *colon = strchr(b->symbol, ':');

	b->mode = PCORE_BUILTIN_TIME;
	if (!colon)
		return 0;
	*colon = '\0';
	if (!strcmp(colon + 1, "count")) {
		b->mode = PCORE_BUILTIN_COUNT;
		return 0;
	}
	pr_err("%s=%s: unknown suffix ':%s' (known: ':count')\n", param,
	       b->name, colon + 1);
	return -EINVAL;
}

/* A kprobe that counts the calls of b->symbol into a count histogram. */
static int pcore_builtin_count(struct pcore_client *c, struct pcore_builtin *b)
{
	b->hist = pcore_hist_create(c, &(struct pcore_hist_opts){
		.name = b->name, .unit = "calls",
		.spec = { .kind = PCORE_HIST_COUNT } });
	if (IS_ERR(b->hist))
		return PTR_ERR(b->hist);
	b->probe = pcore_kprobe_attach(c, &(struct pcore_kprobe_opts){
		.name = b->name, .symbol = b->symbol, .hist = b->hist });
	return PTR_ERR_OR_ZERO(b->probe);
}

/* Attach one; on error nothing of it stays.  Caller holds the table lock. */
static int pcore_builtin_add_locked(bool tracepoint, const char *param,
				    const char *name,
				    const struct pcore_hist_spec *spec,
				    unsigned int active)
{
	struct pcore_client *c = pcore_client_get_own();
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
	for (i = 0; i < ARRAY_SIZE(pcore_builtins) && !b; i++)
		if (!pcore_builtins[i].used)
			b = &pcore_builtins[i];
	if (!b) {
		pr_err("%s=%s: more than %d probes\n", param, name,
		       PCORE_MAX_PROBES);
		return -EINVAL;
	}
	b->used = true;
	strscpy(b->name, name, sizeof(b->name));
	strscpy(b->symbol, name, sizeof(b->symbol));
	ret = tracepoint ? 0 : pcore_builtin_parse(b, param);
	if (!ret && b->mode == PCORE_BUILTIN_COUNT) {
		ret = pcore_builtin_count(c, b);
	} else if (!ret) {
		b->hist = pcore_hist_create(c, &(struct pcore_hist_opts){
			.name = name, .spec = *spec });
		ret = PTR_ERR_OR_ZERO(b->hist);
	}
	if (!ret && tracepoint)
		ret = pcore_builtin_tracepoint(c, b, param);
	else if (!ret && b->mode == PCORE_BUILTIN_TIME)
		ret = PTR_ERR_OR_ZERO(b->probe = pcore_kretprobe_attach(c,
			&(struct pcore_kretprobe_opts){
				.name = name, .symbol = name,
				.maxactive = active, .hist = b->hist }));
	/* One probe of each mode per function, whatever name it had. */
	for (i = 0; !ret && !tracepoint && i < ARRAY_SIZE(pcore_builtins); i++) {
		struct pcore_builtin *q = &pcore_builtins[i];

		if (q == b || !q->used || q->timer || q->mode != b->mode ||
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
 * @tracepoint: a tracepoint with a built-in handler, else a kretprobe
 * @param: where the request came from, for log lines ("target", "attach")
 * @name: function or tracepoint, and the histogram's name
 * @spec: histogram layout
 * @maxactive: kretprobe maxactive, 0 for the default
 *
 * Return: 0, or an errno with one log line; nothing stays on error.
 */
int pcore_builtin_attach(bool tracepoint, const char *param, const char *name,
			 const struct pcore_hist_spec *spec,
			 unsigned int maxactive)
{
	int ret;

	mutex_lock(&pcore_builtin_lock);
	ret = pcore_builtin_add_locked(tracepoint, param, name, spec,
				       maxactive);
	mutex_unlock(&pcore_builtin_lock);
	return ret;
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

	mutex_lock(&pcore_builtin_lock);
	b = pcore_builtin_find(name);
	ret = b ? pcore_probe_set_enabled(b->probe, on) : -ENOENT;
	mutex_unlock(&pcore_builtin_lock);
	return ret;
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
	for (i = 0; i < ARRAY_SIZE(pcore_builtins); i++) {
		if (!pcore_builtins[i].used)
			continue;
		pcore_builtins[i].probe = NULL;
		pcore_builtin_free(&pcore_builtins[i]);
	}
	mutex_unlock(&pcore_builtin_lock);
}

/* Said once the whole load succeeded: a failed load logs only its error. */
void pcore_builtin_log(void)
{
	unsigned int i;

	mutex_lock(&pcore_builtin_lock);
	for (i = 0; i < ARRAY_SIZE(pcore_builtins); i++)
		if (pcore_builtins[i].used)
			pr_info("%s: %s on %s\n", pcore_builtins[i].name,
				pcore_builtins[i].timer ? "tracepoint" :
				pcore_builtins[i].mode ? "counting kprobe" :
							 "kretprobe",
				pcore_probe_symbol(pcore_builtins[i].probe));
	mutex_unlock(&pcore_builtin_lock);
}
