/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the selftests of the IRQ examples (thardirq, tirqthread,
 * tsoftirq): /proc/interrupts, a module's timers file, a serial-port workload, and whether the kernel is
 * PREEMPT_RT.  Include after pcore_lib.h.
 */
#ifndef PCORE_IRQ_H
#define PCORE_IRQ_H

#include <ctype.h>
#include <dirent.h>
#include <termios.h>
#include <sys/utsname.h>

#define PCORE_IRQS_MAX	128

/* The numbered lines of /proc/interrupts. */
struct pcore_irqs {
	int n;
	struct pcore_irq {
		int irq;
		unsigned long long count;	/* summed over the CPUs */
		char name[64];			/* first action, "" if none */
		bool shared;			/* more than one action */
	} l[PCORE_IRQS_MAX];
};

/*
 * Parses /proc/interrupts: "<irq>: <one count per online CPU> <chip>
 * <hwirq-type>  <action>[, <action>...]".  Returns 0, or -1 when the file
 * does not have that shape.
 */
static inline int pcore_irqs_read(struct pcore_irqs *s)
{
	static char text[65536];
	char *line, *save = NULL, *p, *end;
	unsigned long long c;
	int ncpu = 0, i;

	memset(s, 0, sizeof(*s));
	if (pcore_read("/proc/interrupts", text, sizeof(text)) <= 0)
		return -1;
	line = strtok_r(text, "\n", &save);
	if (!line)
		return -1;
	for (p = line; (p = strstr(p, "CPU")); p += 3)
		ncpu++;
	if (!ncpu)
		return -1;
	for (line = strtok_r(NULL, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		struct pcore_irq *q = &s->l[s->n];

		while (*line == ' ')
			line++;
		if (!isdigit((unsigned char)*line))
			continue;	/* NMI:, LOC: ... */
		if (s->n == PCORE_IRQS_MAX)
			return -1;
		q->irq = strtol(line, &p, 10);
		if (*p != ':')
			return -1;
		p++;
		for (i = 0; i < ncpu; i++) {
			c = strtoull(p, &end, 10);
			if (end == p)
				return -1;
			q->count += c;
			p = end;
		}
		/* Then the chip and "<hwirq>-<type>", then the actions. */
		for (i = 0; i < 2; i++) {
			p += strspn(p, " ");
			p += strcspn(p, " ");
		}
		p += strspn(p, " ");
		q->shared = strchr(p, ',') != NULL;
		snprintf(q->name, sizeof(q->name), "%.*s",
			 (int)strcspn(p, " ,"), p);
		s->n++;
	}
	return 0;
}

static inline const struct pcore_irq *pcore_irq_find(const struct pcore_irqs *s,
						     int irq)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->l[i].irq == irq)
			return &s->l[i];
	return NULL;
}

/* The IRQ whose only action is @name, or -1. */
static inline int pcore_irq_by_name(const struct pcore_irqs *s,
				    const char *name)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!s->l[i].shared && !strcmp(s->l[i].name, name))
			return s->l[i].irq;
	return -1;
}

/* Interrupts of @irq counted in @b but not in @a (0 when unknown). */
static inline unsigned long long pcore_irq_delta(const struct pcore_irqs *a,
						 const struct pcore_irqs *b,
						 int irq)
{
	const struct pcore_irq *x = pcore_irq_find(a, irq);
	const struct pcore_irq *y = pcore_irq_find(b, irq);

	if (!y)
		return 0;
	return y->count - (x ? x->count : 0);
}

/* A line of <module>/timers: name scope measured discarded unmatched evicted */
struct pcore_timerline {
	char scope[16];
	unsigned long long measured, discarded, unmatched, evicted;
};

static inline int pcore_timer_line(const char *module, const char *name,
				   struct pcore_timerline *t)
{
	static char text[65536];
	char path[256], tname[128], *line, *save = NULL;

	snprintf(path, sizeof(path), PCORE_DBG "/%s/timers", module);
	if (pcore_read(path, text, sizeof(text)) <= 0)
		return -1;
	/* the header line, then one line per timer */
	if (strncmp(text, PCORE_TIMERS_HEADER, strlen(PCORE_TIMERS_HEADER)))
		return -1;
	for (line = strtok_r(text + strlen(PCORE_TIMERS_HEADER), "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%127s %15s %llu %llu %llu %llu", tname,
			   t->scope, &t->measured, &t->discarded,
			   &t->unmatched, &t->evicted) != 6)
			return -1;
		if (!strcmp(tname, name))
			return 0;
	}
	return -1;
}

/*
 * Serial workload: @n writes of one line each to @dev, each waited for
 * with tcdrain() until the UART has sent it.  The lines are TAP comments,
 * harmless in the output of ttyS1.  Returns 0 or -1.
 */
static inline int pcore_serial_lines(const char *dev, int n, const char *who)
{
	char line[128];
	int fd, i, len, ret = 0;

	fd = open(dev, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	for (i = 0; i < n && !ret; i++) {
		len = snprintf(line, sizeof(line),
			       "# %s: serial workload line %d of %d\n", who,
			       i + 1, n);
		if (write(fd, line, len) != len || tcdrain(fd))
			ret = -1;
	}
	close(fd);
	return ret;
}

/* Sleep @ms milliseconds. */
static inline void pcore_msleep(int ms)
{
	usleep(ms * 1000);
}

/* Does the kernel command line carry the word @arg? */
static inline bool pcore_cmdline_has(const char *arg)
{
	char text[4096], *w, *save = NULL;

	if (pcore_read("/proc/cmdline", text, sizeof(text)) <= 0)
		return false;
	for (w = strtok_r(text, "\n\t ", &save); w;
	     w = strtok_r(NULL, "\n\t ", &save))
		if (!strcmp(w, arg))
			return true;
	return false;
}

/*
 * Is this a PREEMPT_RT kernel?  RT kernels say so in /sys/kernel/realtime
 * ("1", a file of the RT patch set that Debian's RT kernels carry) and in
 * the version string (uname -v: "#1 SMP PREEMPT_RT ...").
 */
static inline bool pcore_preempt_rt(void)
{
	struct utsname u;
	char text[16];

	if (pcore_read("/sys/kernel/realtime", text, sizeof(text)) > 0 &&
	    text[0] == '1')
		return true;
	return !uname(&u) && strstr(u.version, "PREEMPT_RT");
}

/* Number of tasks whose comm starts with @prefix; pid of the last in @pid. */
static inline int pcore_tasks_named(const char *prefix, pid_t *pid)
{
	char path[300], comm[64];
	struct dirent *d;
	int n = 0;
	DIR *dir = opendir("/proc");

	if (!dir)
		return -1;
	while ((d = readdir(dir))) {
		if (!isdigit((unsigned char)d->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		if (pcore_read(path, comm, sizeof(comm)) <= 0)
			continue;
		if (strncmp(comm, prefix, strlen(prefix)))
			continue;
		n++;
		if (pid)
			*pid = atoi(d->d_name);
	}
	closedir(dir);
	return n;
}

#endif /* PCORE_IRQ_H */
