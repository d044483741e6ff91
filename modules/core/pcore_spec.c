// SPDX-License-Identifier: GPL-2.0
/*
 * probe_core's specs as text: hist= and probe specs.  No kernel
 * dependencies (see pcore_spec.h): the module, probectl and the host tests
 * compile this file unchanged.
 */
#include "pcore_spec.h"
#ifdef __KERNEL__
#include <linux/kernel.h>	/* snprintf() */
#else
#include <stdio.h>
#endif

/*
 * The decimal number at *@s, up to the next @end character or the end:
 * digits only (no sign, no space), at most U64_MAX.  *@s moves past it.
 */
static int spec_u64(const char **s, char end, u64 *v)
{
	const char *p = *s;
	u64 n = 0;
	u32 d;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		d = *p - '0';
		if (n > (U64_MAX - d) / 10)
			return -EINVAL;
		n = n * 10 + d;
	}
	if (*p && *p != end)
		return -EINVAL;
	*s = p;
	*v = n;
	return 0;
}

/**
 * pcore_hist_spec_parse() - a histogram spec from its text, as hist= takes it
 * @s: "loglinear", "loglinear:P", "log2", "linear:MIN,MAX,STEP", "exp" or
 *	"exp:S" (S the schema, 0 to 8; "exp" is schema
 *	%PCORE_EXP_DEFAULT_SCHEMA), numbers in decimal digits
 * @spec: filled in
 * @why: set to a short reason when the text is refused
 *
 * The one parser of the text form: the kernel's hist= and probectl's
 * --hist both call it, so they take and refuse the same texts, with the
 * same reasons.  The spec is then checked as pcore_layout_init() checks
 * it.  No allocation.
 *
 * Return: 0, or -EINVAL with *@why naming the problem.
 */
int pcore_hist_spec_parse(const char *s, struct pcore_hist_spec *spec,
			  const char **why)
{
	struct pcore_layout l;
	u64 v[3];
	int i;

	*spec = (struct pcore_hist_spec){ .kind = PCORE_HIST_LOGLINEAR };
	if (!strcmp(s, "log2")) {
		spec->kind = PCORE_HIST_LOG2;
	} else if (!strcmp(s, "loglinear")) {
		/* the defaults */
	} else if (!strncmp(s, "loglinear:", 10)) {
		s += 10;
		if (spec_u64(&s, '\0', &v[0]) || !v[0] ||
		    v[0] > PCORE_LOGLIN_MAX_PRECISION) {
			*why = "loglinear precision must be 1 to 7 bits";
			return -EINVAL;
		}
		spec->precision = v[0];
	} else if (!strcmp(s, "exp")) {
		spec->kind = PCORE_HIST_EXP;
		spec->precision = PCORE_EXP_DEFAULT_SCHEMA;
	} else if (!strncmp(s, "exp:", 4)) {
		s += 4;
		if (spec_u64(&s, '\0', &v[0]) || v[0] > PCORE_EXP_MAX_SCHEMA) {
			*why = "exp schema must be 0 to 8";
			return -EINVAL;
		}
		spec->kind = PCORE_HIST_EXP;
		spec->precision = v[0];
	} else if (!strncmp(s, "linear:", 7)) {
		s += 7;
		for (i = 0; i < 3; i++) {
			if (spec_u64(&s, i < 2 ? ',' : '\0', &v[i]) ||
			    (i < 2 && *s++ != ',')) {
				*why = "linear needs MIN,MAX,STEP as decimal numbers";
				return -EINVAL;
			}
		}
		*spec = (struct pcore_hist_spec){ .kind = PCORE_HIST_LINEAR,
			.min = v[0], .max = v[1], .step = v[2] };
	} else {
		*why = "unknown kind; use loglinear[:PRECISION], log2, linear:MIN,MAX,STEP or exp[:SCHEMA]";
		return -EINVAL;
	}
	return pcore_layout_init(&l, spec, why);
}

/* The suffixes, by PCORE_WHAT_* (":argN" is "arg" and the number). */
static const char *const spec_whats[] = {
	[PCORE_WHAT_TIME] = "",
	[PCORE_WHAT_COUNT] = "count",
	[PCORE_WHAT_ARG] = "arg",
	[PCORE_WHAT_RETVAL] = "retval",
	[PCORE_WHAT_STACKS] = "stacks",
	[PCORE_WHAT_GRAPH] = "graph",
};

#define SPEC_BY_PID	":by=pid"
#define SPEC_BY_CGROUP	":by=cgroup"
#define SPEC_BY		(PCORE_ATTACH_BY_PID | PCORE_ATTACH_BY_CGROUP)
#define SPEC_USTACK	":ustack"
#define SPEC_KNOWN	"known: ':count', ':stacks', ':arg1' to ':arg6', ':retval', the last two with an optional ':UNIT'; then ':by=pid' or ':by=cgroup' (or ':ustack' after ':stacks'); or ':graph[:GLOB]'"

/* A byte that would break a spec's text, a name or a text file's field. */
static int spec_blank(unsigned char c)
{
	return c <= ' ' || c >= 0x7f;
}

/* Does @s (@n bytes) hold one of @set's characters or a blank? */
static int spec_has(const char *s, size_t n, const char *set)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (spec_blank(s[i]) || strchr(set, s[i]))
			return 1;
	return 0;
}

/**
 * pcore_probe_spec_check() - are a probe spec's fields one spec?
 * @ps: the spec, from the parser or from the attach ioctl's fields
 * @why: a buffer for the reason when it is refused
 * @size: its size, %PCORE_SPEC_WHY_MAX is enough
 *
 * The rules the text follows, for fields: the ioctl's fields are held to
 * them as the text is, so there is one set of rules.  @ps->func and
 * @ps->unit must be NUL-terminated within their arrays (the caller checks
 * what it copied from user space).
 *
 * Return: 0, or -EINVAL with the reason in @why.
 */
int pcore_probe_spec_check(const struct pcore_probe_spec *ps, char *why,
			   size_t size)
{
	size_t n = strlen(ps->func), u = strlen(ps->unit);
	const char *what = ps->what < sizeof(spec_whats) / sizeof(*spec_whats) ?
			   spec_whats[ps->what] : NULL;

	if (!n)
		snprintf(why, size, "no function");
	else if (spec_has(ps->func, n, ":,"))
		snprintf(why, size, "a function is named without blank, control character, ':' or ','");
	else if (!what)
		snprintf(why, size, "what %u is not one of PCORE_WHAT_*", ps->what);
	else if (ps->flags & ~(u32)(SPEC_BY | PCORE_ATTACH_USTACK))
		snprintf(why, size, "flags 0x%x: unknown flags", ps->flags);
	else if ((ps->flags & SPEC_BY) == SPEC_BY)
		snprintf(why, size, "'%s' and '%s' are one or the other",
			 SPEC_BY_PID, SPEC_BY_CGROUP);
	else if ((ps->flags & PCORE_ATTACH_USTACK) &&
		 ps->what != PCORE_WHAT_STACKS)
		snprintf(why, size, "'%s' is for ':stacks' only", SPEC_USTACK);
	else if (ps->what == PCORE_WHAT_ARG &&
		 (ps->arg < 1 || ps->arg > PCORE_SPEC_ARGS))
		snprintf(why, size, "argument %u is not 1 to %d", ps->arg,
			 PCORE_SPEC_ARGS);
	else if (ps->what != PCORE_WHAT_ARG && ps->arg)
		snprintf(why, size, "an argument number is for ':argN' only");
	else if (u && ps->what != PCORE_WHAT_ARG &&
		 ps->what != PCORE_WHAT_RETVAL)
		snprintf(why, size, "a unit is for ':argN' and ':retval' only");
	else if (u && spec_has(ps->unit, u, ":,"))
		snprintf(why, size, "unit '%s' is not 1 to %d characters without blank, control character, ':' or ','",
			 spec_has(ps->unit, u, "") ? "?" : ps->unit,
			 PCORE_UAPI_SHORT_MAX - 1);
	else if ((ps->flags & SPEC_BY) &&
		 (ps->what == PCORE_WHAT_RETVAL || ps->what == PCORE_WHAT_STACKS))
		snprintf(why, size, "'%s' is not for ':%s'",
			 ps->flags & PCORE_ATTACH_BY_PID ? SPEC_BY_PID :
			 SPEC_BY_CGROUP, what);
	else if (ps->what == PCORE_WHAT_GRAPH &&
		 (ps->flags & PCORE_ATTACH_BY_CGROUP))
		snprintf(why, size, "'%s' is not for ':graph'", SPEC_BY_CGROUP);
	else if (ps->what != PCORE_WHAT_GRAPH && *ps->graph)
		snprintf(why, size, "a glob of callees is for ':graph' only");
	else if (ps->what == PCORE_WHAT_GRAPH &&
		 (ps->flags || strpbrk(ps->func, "*?")))
		snprintf(why, size, "':graph' is for one function, without ':by=pid'");
	else if (ps->graph[0] && spec_has(ps->graph, strlen(ps->graph), ":,"))
		snprintf(why, size, "a glob of callees is without blank, control character, ':' or ','");
	else if (strpbrk(ps->func, "*?") &&
		 ((ps->what != PCORE_WHAT_TIME && ps->what != PCORE_WHAT_COUNT) ||
		  ps->flags))
		snprintf(why, size, "a glob takes no suffix but ':count'");
	else
		return 0;
	return -EINVAL;
}

/**
 * pcore_probe_spec_parse() - a probe spec from its text, as target= takes it
 * @s: "FUNC[:count | :stacks[:ustack] | :argN[:UNIT] | :retval[:UNIT]]
 *	[:by=pid | :by=cgroup]"
 *	or "FUNC:graph[:GLOB]"
 * @ps: filled in
 * @why: a buffer for the reason when the text is refused
 * @size: its size, %PCORE_SPEC_WHY_MAX is enough
 *
 * The one parser of the text: the kernel's target= and stacks=, the
 * attach ioctl's text form and probectl's --kprobe and --kretprobe call
 * it, then pcore_probe_spec_check().  A reason quotes the text only when
 * it is printable.  No allocation.
 *
 * Return: 0, or -EINVAL with the reason in @why.
 */
int pcore_probe_spec_parse(const char *s, struct pcore_probe_spec *ps,
			   char *why, size_t size)
{
	size_t n = strlen(s), f, w, len = sizeof(SPEC_BY_PID) - 1,
	       clen = sizeof(SPEC_BY_CGROUP) - 1,
	       ulen = sizeof(SPEC_USTACK) - 1;
	const char *what, *unit;

	memset(ps, 0, sizeof(*ps));
	if (spec_has(s, n, "")) {
		snprintf(why, size, "characters other than printable ASCII without blanks");
		return -EINVAL;
	}
	if (n > len && !strcmp(s + n - len, SPEC_BY_PID)) {
		ps->flags = PCORE_ATTACH_BY_PID;
		n -= len;
	} else if (n > clen && !strcmp(s + n - clen, SPEC_BY_CGROUP)) {
		ps->flags = PCORE_ATTACH_BY_CGROUP;
		n -= clen;
	} else if (n > ulen + 7 && !strcmp(s + n - ulen, SPEC_USTACK) &&
		   !strncmp(s + n - ulen - 7, ":stacks", 7)) {
		/* Only after ':stacks': "F:retval:ustack" has a unit. */
		ps->flags = PCORE_ATTACH_USTACK;
		n -= ulen;
	}
	what = memchr(s, ':', n);
	f = what ? (size_t)(what - s) : n;
	if (f >= sizeof(ps->func)) {
		snprintf(why, size, "function name longer than %zu characters",
			 sizeof(ps->func) - 1);
		return -EINVAL;
	}
	memcpy(ps->func, s, f);
	if (!what)
		return pcore_probe_spec_check(ps, why, size);
	what++;
	n -= f + 1;
	unit = memchr(what, ':', n);
	w = unit ? (size_t)(unit - what) : n;
	if (w == 5 && !strncmp(what, "count", 5)) {
		ps->what = PCORE_WHAT_COUNT;
	} else if (w == 6 && !strncmp(what, "stacks", 6)) {
		ps->what = PCORE_WHAT_STACKS;
	} else if (w == 5 && !strncmp(what, "graph", 5)) {
		ps->what = PCORE_WHAT_GRAPH;
	} else if (w == 6 && !strncmp(what, "retval", 6)) {
		ps->what = PCORE_WHAT_RETVAL;
	} else if (w == 4 && !strncmp(what, "arg", 3) && what[3] >= '1' &&
		   what[3] <= '0' + PCORE_SPEC_ARGS) {
		ps->what = PCORE_WHAT_ARG;
		ps->arg = what[3] - '0';
	} else {
		snprintf(why, size, "unknown suffix ':%.*s' (%s)", (int)w, what,
			 SPEC_KNOWN);
		return -EINVAL;
	}
	if (unit) {
		unit++;
		w = n - w - 1;
		if (ps->what == PCORE_WHAT_GRAPH) {
			if (!w || w >= sizeof(ps->graph)) {
				snprintf(why, size, "':graph:GLOB': the glob is 1 to %zu characters",
					 sizeof(ps->graph) - 1);
				return -EINVAL;
			}
			memcpy(ps->graph, unit, w);
			return pcore_probe_spec_check(ps, why, size);
		}
		if (ps->what != PCORE_WHAT_ARG && ps->what != PCORE_WHAT_RETVAL) {
			snprintf(why, size, "':%s' takes no unit",
				 spec_whats[ps->what]);
			return -EINVAL;
		}
		if (!w || w >= sizeof(ps->unit) || spec_has(unit, w, ":,")) {
			snprintf(why, size, "unit '%.*s' is not 1 to %zu characters without blank, control character, ':' or ','",
				 (int)(w < 40 ? w : 40), unit,
				 sizeof(ps->unit) - 1);
			return -EINVAL;
		}
		memcpy(ps->unit, unit, w);
	}
	return pcore_probe_spec_check(ps, why, size);
}

/**
 * pcore_probe_spec_name() - a probe spec as text, the form the parser reads
 * @ps: a spec pcore_probe_spec_check() took, or any (what an unknown
 *	@ps->what records is left out)
 * @buf: where the text goes, NUL-terminated
 * @size: its size; %PCORE_UAPI_NAME_MAX for a histogram's name
 *
 * The histogram name of a spec given in fields: what target= would have
 * named it ("vfs_read:arg3:bytes:by=pid").
 *
 * Return: 0, or -ENAMETOOLONG when the text does not fit.
 */
int pcore_probe_spec_name(const struct pcore_probe_spec *ps, char *buf,
			  size_t size)
{
	char what[16] = "";
	int n;

	/* Any fields, for a log line that says what was refused. */
	if (ps->what == PCORE_WHAT_ARG)
		snprintf(what, sizeof(what), ":arg%u", ps->arg);
	else if (ps->what != PCORE_WHAT_TIME &&
		 ps->what < sizeof(spec_whats) / sizeof(*spec_whats))
		snprintf(what, sizeof(what), ":%s", spec_whats[ps->what]);
	n = snprintf(buf, size, "%s%s%s%s%s%s%s%s%s", ps->func, what,
		     *ps->unit ? ":" : "", ps->unit,
		     *ps->graph ? ":" : "", ps->graph,
		     ps->flags & PCORE_ATTACH_BY_PID ? SPEC_BY_PID : "",
		     ps->flags & PCORE_ATTACH_BY_CGROUP ? SPEC_BY_CGROUP : "",
		     ps->flags & PCORE_ATTACH_USTACK ? SPEC_USTACK : "");
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}
