// SPDX-License-Identifier: GPL-2.0
/*
 * probe_core's specs as text: what hist= says.  No kernel dependencies
 * (see pcore_spec.h): the module, probectl and the host tests compile
 * this file unchanged.
 */
#include "pcore_spec.h"

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
 * @s: "loglinear", "loglinear:P", "log2" or "linear:MIN,MAX,STEP", numbers
 *	in decimal digits
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
		*why = "unknown kind; use loglinear[:PRECISION], log2 or linear:MIN,MAX,STEP";
		return -EINVAL;
	}
	return pcore_layout_init(&l, spec, why);
}
