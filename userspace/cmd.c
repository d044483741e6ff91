// SPDX-License-Identifier: GPL-2.0
/*
 * probectl's commands: argument checking is done (args.c), output is
 * formatted elsewhere (format.c); here are the steps of each command and
 * the words of every error.  Exit status: 0 success, 1 error, 2 usage.
 * Errors go to env->err as one line "probectl: ...".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "args.h"
#include "cmd.h"
#include "elfsym.h"
#include "flame.h"
#include "format.h"
#include "heatmap.h"
#include "stacks.h"

#define DMESG	"the kernel log says why: dmesg | tail"

/* One line "probectl: ..." on env->err; evaluates to PC_EXIT_ERR. */
#define error(env, fmt, ...)						\
	(fprintf((env)->err, "probectl: " fmt "\n", ##__VA_ARGS__),	\
	 PC_EXIT_ERR)

/* Why the device cannot be opened, in words. */
static int open_error(struct pc_env *env, int err)
{
	char dev[32] = "", *colon;
	FILE *f;

	if (err == -EACCES || err == -EPERM)
		return error(env, "permission denied opening %s: run as root",
			     env->dev_path);
	if (err != -ENOENT && err != -ENXIO && err != -ENODEV)
		return error(env, "cannot open %s: %s", env->dev_path,
			     strerror(-err));
	if (access(env->sys_module, F_OK))
		return error(env, "probe_core is not loaded (load it with: probectl load)");
	f = fopen(env->sys_misc, "r");
	if (f) {
		if (!fgets(dev, sizeof(dev), f))
			dev[0] = '\0';
		fclose(f);
		dev[strcspn(dev, "\n")] = '\0';
		colon = strchr(dev, ':');
		if (colon && colon != dev && colon[1] &&
		    strspn(dev, "0123456789:") == strlen(dev)) {
			*colon = ' ';	/* "MAJOR MINOR" for mknod */
			return error(env, "probe_core is loaded but %s is missing; create it with: mknod %s c %s",
				     env->dev_path, env->dev_path, dev);
		}
	}
	return error(env, "probe_core is loaded but %s is missing, and probe_core registered no device (a probe_core without /dev/probe_core?)",
		     env->dev_path);
}

/* Opens the device and checks its ABI version. */
static int open_dev(struct pc_env *env, bool write, struct pc_dev *d)
{
	int ret;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	ret = env->dev_open(env, (write ? O_RDWR : O_RDONLY) | O_CLOEXEC, d);
	if (ret)
		return open_error(env, ret);
	ret = pc_dev_version(d);
	if (!ret && d->ver.abi == PCORE_ABI_VERSION)
		return 0;
	env->dev_close(env, d);
	if (ret == -ENOTTY)
		return error(env, "%s does not answer PCORE_IOC_VERSION: not probe_core's device?",
			     env->dev_path);
	if (ret == -EPROTO)
		return error(env, "%s answered PCORE_IOC_VERSION with an implausible CPU count (%u)",
			     env->dev_path, d->ver.nr_cpu_ids);
	if (ret)
		return error(env, "PCORE_IOC_VERSION on %s: %s", env->dev_path,
			     strerror(-ret));
	return error(env, "ABI version mismatch: probe_core %s speaks ABI %u, this probectl ABI %u; use the probectl built with this probe_core",
		     d->ver.module_version, d->ver.abi, PCORE_ABI_VERSION);
}

/* An ioctl's error about histogram @name, in words. */
static int dev_error(struct pc_env *env, int err, const char *what,
		     const char *name)
{
	switch (-err) {
	case ENOENT:
		return error(env, "no histogram named '%s' (probectl list shows them)",
			     name);
	case EPERM:
	case EACCES:
		return error(env, "%s %s: permission denied: run as root (needs CAP_SYS_ADMIN)",
			     what, name);
	case EPROTO:
		return error(env, "%s %s: probe_core's answer makes no sense (probectl and probe_core out of step?)",
			     what, name);
	case ENOTTY:
		return error(env, "%s %s: probe_core does not know this request (an older probe_core?)",
			     what, name);
	default:
		return error(env, "%s %s: %s", what, name, strerror(-err));
	}
}

static int cmd_load(struct pc_env *env, const struct pc_args *a)
{
	char params[PC_MAX_TARGETS * PCORE_UAPI_NAME_MAX * 2 + 200];
	char found[4096];
	enum pc_kmod_step step;
	int ret;

	if (pc_load_params(a, params, sizeof(params)))
		return error(env, "parameters too long");
	ret = env->load(a->module, params, &step, found, sizeof(found));
	if (!ret)
		return PC_EXIT_OK;
	switch (step) {
	case PC_KMOD_SETUP:
		return error(env, "cannot set up libkmod: %s", strerror(-ret));
	case PC_KMOD_FIND:
		if (a->module)
			return error(env, "cannot use module file %s: %s",
				     a->module, strerror(-ret));
		if (ret == -ENOENT)
			return error(env, "probe_core is not installed for kernel %s (install it, or give --module PATH to a probe_core.ko)",
				     env->release);
		return error(env, "cannot find probe_core: %s", strerror(-ret));
	case PC_KMOD_NAME:
		return error(env, "%s is not probe_core.ko", a->module);
	case PC_KMOD_INSERT:
		break;
	}
	switch (-ret) {
	case EEXIST:
		return error(env, "probe_core is already loaded (probectl unload first to change its parameters)");
	case EPERM:
	case EACCES:
		return error(env, "loading %s: permission denied: run as root",
			     found);
	case ENOENT:
		return error(env, "probe_core refused '%s': a function or tracepoint does not exist; %s",
			     params, DMESG);
	case EINVAL:
		return error(env, "probe_core refused '%s': invalid parameters; %s",
			     params, DMESG);
	case ENOEXEC:
		return error(env, "%s is not a module for this kernel (%s); %s",
			     found, env->release, DMESG);
	default:
		return error(env, "loading %s failed: %s; %s", found,
			     strerror(-ret), DMESG);
	}
}

static int cmd_unload(struct pc_env *env)
{
	char holders[512];
	int ret = env->unload(holders, sizeof(holders));

	switch (-ret) {
	case 0:
		return PC_EXIT_OK;
	case ENOENT:
		return error(env, "probe_core is not loaded");
	case EAGAIN:
	case EBUSY:
		if (holders[0])
			return error(env, "probe_core is in use by: %s (unload those first)",
				     holders);
		return error(env, "probe_core is in use: close its files under /sys/kernel/debug/probe_core and %s, stop probectl watch, and retry",
			     env->dev_path);
	case EPERM:
	case EACCES:
		return error(env, "unloading probe_core: permission denied: run as root");
	default:
		return error(env, "unloading probe_core: %s", strerror(-ret));
	}
}

static int cmd_status(struct pc_env *env)
{
	struct pcore_ioc_entry *e;
	char state[32];
	struct pc_dev d;
	unsigned int n, i, probes = 0;
	int ret;

	ret = env->state(state, sizeof(state));
	if (ret < 0)	/* libkmod cannot tell: sysfs can */
		ret = !access(env->sys_module, F_OK);
	fprintf(env->out, "module: %s\nkernel: %s\n",
		ret ? "loaded" : "not loaded", env->release);
	if (!ret)
		return PC_EXIT_ERR;
	if (open_dev(env, false, &d))
		return PC_EXIT_ERR;
	ret = pc_dev_list(&d, &e, &n);
	if (ret) {
		env->dev_close(env, &d);
		return dev_error(env, ret, "list", "histograms");
	}
	for (i = 0; i < n; i++)
		probes += !!(e[i].flags & PCORE_ENT_HAS_PROBE);
	fprintf(env->out, "version: %s\nabi: %u\nnr_cpu_ids: %u\nhistograms: %u\nprobes: %u\n",
		d.ver.module_version, d.ver.abi, d.ver.nr_cpu_ids, n, probes);
	free(e);
	env->dev_close(env, &d);
	return PC_EXIT_OK;
}

static int cmd_list(struct pc_env *env, const struct pc_args *a)
{
	struct pcore_ioc_entry *e;
	struct pc_dev d;
	unsigned int n;
	int ret;

	if (open_dev(env, false, &d))
		return PC_EXIT_ERR;
	ret = pc_dev_list(&d, &e, &n);
	env->dev_close(env, &d);
	if (ret)
		return dev_error(env, ret, "list", "histograms");
	if (a->format == PC_FMT_JSON)
		pc_fmt_list_json(env->out, e, n);
	else
		pc_fmt_list_text(env->out, e, n);
	free(e);
	return PC_EXIT_OK;
}

/* show of a histogram keyed by stack: text, folded or JSON. */
static int show_stacks(struct pc_env *env, const struct pc_args *a,
		       struct pc_hist *h)
{
	struct pc_stack *s;
	unsigned int n;

	if (pc_stacks_build(h, &s, &n)) {
		pc_hist_free(h);
		return error(env, "show %s: out of memory", a->name);
	}
	if (a->format == PC_FMT_FOLDED) {
		pc_fmt_stacks_folded(env->out, h, s, n, a->top);
	} else if (a->format == PC_FMT_JSON) {
		pc_fmt_stacks_json(env->out, h, s, n, a->top);
	} else {
		pc_fmt_show_text(env->out, h, a->full);
		pc_fmt_stacks_text(env->out, h, s, n, a->top);
	}
	free(s);
	pc_hist_free(h);
	return PC_EXIT_OK;
}

static int cmd_show(struct pc_env *env, const struct pc_args *a)
{
	struct pcore_ioc_entry e;
	struct pc_hist h;
	struct pc_dev d;
	int ret;

	memset(&h, 0, sizeof(h));
	if (open_dev(env, false, &d))
		return PC_EXIT_ERR;
	ret = pc_dev_find(&d, a->name, &e);
	if (!ret)
		ret = pc_dev_hist(&d, &e, a->percpu, &h);
	env->dev_close(env, &d);
	if (ret) {
		pc_hist_free(&h);
		return dev_error(env, ret, "read", a->name);
	}
	if (pc_is_stacks(&e) && a->format != PC_FMT_CSV)
		return show_stacks(env, a, &h);
	if (a->format == PC_FMT_FOLDED || a->top) {
		pc_hist_free(&h);
		return error(env, "show %s: --%s is for histograms keyed by stack (attach --stacks)",
			     a->name, a->top ? "top" : "folded");
	}
	if (a->format == PC_FMT_JSON)
		pc_fmt_show_json(env->out, &h);
	else if (a->format == PC_FMT_CSV)
		pc_fmt_show_csv(env->out, &h);
	else
		pc_fmt_show_text(env->out, &h, a->full);
	pc_hist_free(&h);
	return PC_EXIT_OK;
}

static unsigned long long ts_ns(const struct timespec *t)
{
	return (unsigned long long)t->tv_sec * 1000000000ULL + t->tv_nsec;
}

static struct timespec ns_ts(unsigned long long ns)
{
	return (struct timespec){ .tv_sec = ns / 1000000000ULL,
				  .tv_nsec = ns % 1000000000ULL };
}

/*
 * Each interval is one PCORE_READ_RESET: the kernel moves the values out
 * and resets atomically, so every event lands in exactly one interval.
 * There is never a separate read and reset, which would lose the events
 * between them.  The first snapshot-and-reset only starts the first
 * interval.  Deadlines are absolute, so intervals do not drift; when one
 * was missed (e.g. the machine was suspended), the next line covers the
 * longer interval and interval_ns says so.
 */
static int cmd_watch(struct pc_env *env, const struct pc_args *a)
{
	unsigned long long prev_missed, prev_mono, deadline, now;
	struct timespec real, mono, until;
	struct pcore_ioc_entry e;
	struct pc_tick tick;
	struct pc_snap s;
	struct pc_dev d;
	unsigned int i;
	int ret;

	/* Snapshot-and-reset needs the device opened for writing. */
	if (open_dev(env, true, &d))
		return PC_EXIT_ERR;
	ret = pc_dev_find(&d, a->name, &e);
	if (!ret)
		ret = pc_dev_read(&d, e.name, -1, PCORE_READ_RESET, 0,
				  e.nbuckets, false, &s);
	if (ret)
		goto err;
	prev_missed = s.r.missed;
	pc_snap_free(&s);
	env->now(env, &real, &mono);
	prev_mono = ts_ns(&mono);
	deadline = prev_mono + a->interval_ns;
	for (i = 0; !a->count || i < a->count; i++) {
		until = ns_ts(deadline);
		env->sleep_until(env, &until);
		ret = pc_dev_read(&d, e.name, -1, PCORE_READ_RESET, 0,
				  e.nbuckets, false, &s);
		if (ret)
			goto err;
		env->now(env, &real, &mono);
		now = ts_ns(&mono);
		tick.now = real;
		tick.interval_ns = now - prev_mono;
		tick.missed = s.r.missed >= prev_missed ?
			      s.r.missed - prev_missed : s.r.missed;
		if (a->format == PC_FMT_JSON)
			pc_fmt_watch_json(env->out, &e, &s, &tick,
					  a->watch_hist);
		else
			pc_fmt_watch_text(env->out, &e, &s, &tick,
					  a->watch_hist);
		prev_missed = s.r.missed;
		prev_mono = now;
		pc_snap_free(&s);
		if (fflush(env->out) || ferror(env->out)) {
			env->dev_close(env, &d);
			return error(env, "writing the output: %s",
				     strerror(errno));
		}
		while (deadline <= now)
			deadline += a->interval_ns;
	}
	env->dev_close(env, &d);
	return PC_EXIT_OK;
err:
	env->dev_close(env, &d);
	return dev_error(env, ret, "watch", a->name);
}

/*
 * --uprobe, --uretprobe: opens PATH and finds SYMBOL's offset in what it
 * opened; the kernel gets the same descriptor, so the file resolved is
 * the file probed, whatever happens to PATH meanwhile.  O_NONBLOCK and
 * O_NOCTTY: opening a FIFO or a terminal named by mistake neither hangs
 * nor takes it over.  Return: 0 with *fdp set, or PC_EXIT_ERR after the
 * message.
 */
static int open_elf(struct pc_env *env, const struct pc_args *a, int *fdp,
		    uint64_t *offset)
{
	char why[600];
	struct stat st;
	int fd, ret;

	fd = open(a->attach_path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return error(env, "cannot open %s: %s", a->attach_path,
			     strerror(errno));
	if (fstat(fd, &st))
		ret = error(env, "cannot stat %s: %s", a->attach_path,
			    strerror(errno));
	else if (S_ISDIR(st.st_mode))
		ret = error(env, "%s is a directory, not an ELF file",
			    a->attach_path);
	else if (!S_ISREG(st.st_mode))
		ret = error(env, "%s is not a regular file (a device, FIFO or socket), not an ELF file",
			    a->attach_path);
	else if (pc_elf_resolve(fd, a->attach_path, a->attach_sym, offset,
				why, sizeof(why)))
		ret = error(env, "%s", why);
	else
		ret = 0;
	if (ret)
		close(fd);
	else
		*fdp = fd;
	return ret;
}

/*
 * What PCORE_IOC_ATTACH of @at answered, as probectl says it; @what is
 * what ENOENT means there is no such of ("function"), NULL when the name
 * is not what the kernel looks up (a uprobe's).
 */
static int attach_error(struct pc_env *env, int ret,
			const struct pcore_ioc_attach *at, const char *where,
			const char *what)
{
	const char *name = at->name;

	switch (-ret) {
	case 0:
		return PC_EXIT_OK;
	case EPERM:
	case EACCES:
		return error(env, "attach %s: permission denied: run as root (needs CAP_SYS_ADMIN)",
			     name);
	case ENOENT:
		if (!what)
			break;
		return error(env, "attach %s: no %s of that name here; %s",
			     name, what, DMESG);
	case EEXIST:
		return error(env, "attach %s: a histogram of that name exists already",
			     name);
	case ESRCH:
		return error(env, "attach %s: --pid %d: no such process", name,
			     at->pid);
	case EINVAL:
		return error(env, "attach %s%s: probe_core refused it; %s",
			     name, where, DMESG);
	default:
		break;
	}
	return error(env, "attach %s%s: %s; %s", name, where, strerror(-ret),
		     DMESG);
}

static int cmd_attach(struct pc_env *env, const struct pc_args *a)
{
	bool uprobe = a->attach_kind == PCORE_ATTACH_UPROBE;
	bool kret = a->attach_kind == PCORE_ATTACH_KRETPROBE;
	const char *what = kret ? "function" : "tracepoint";
	struct pcore_ioc_attach at;
	char where[PC_PATH_MAX + 40] = "";
	struct pc_dev d;
	uint64_t offset;
	int ret, fd = -1;

	memset(&at, 0, sizeof(at));
	strcpy(at.name, a->attach_full);	/* checked: below NAME_MAX */
	at.kind = a->attach_kind;
	at.maxactive = a->maxactive;
	at.depth = a->attach_depth;
	at.pid = a->attach_pid;
	if (a->attach_comm)
		strcpy(at.comm, a->attach_comm);	/* checked: 15 at most */
	if (a->hist.set) {
		at.hist_kind = a->hist.kind;
		at.precision = a->hist.precision;
		at.min = a->hist.min;
		at.max = a->hist.max;
		at.step = a->hist.step;
	}
	if (uprobe) {
		if (open_elf(env, a, &fd, &offset))
			return PC_EXIT_ERR;
		at.fd = fd;
		at.offset = offset;
		snprintf(where, sizeof(where), " (%s at offset 0x%llx)",
			 a->attach_path, (unsigned long long)offset);
	}
	if (open_dev(env, true, &d)) {
		if (fd >= 0)
			close(fd);
		return PC_EXIT_ERR;
	}
	ret = pc_dev_attach(&d, &at);
	env->dev_close(env, &d);
	if (fd >= 0)
		close(fd);
	return attach_error(env, ret, &at, where, uprobe ? NULL : what);
}

/*
 * profile: attach a profiler; with -d, sample for that long, print its
 * stacks and detach it (also when the read failed).
 */
static int cmd_profile(struct pc_env *env, const struct pc_args *a)
{
	struct timespec real, mono, until;
	struct pcore_ioc_attach at;
	struct pcore_ioc_entry e;
	struct pc_hist h;
	struct pc_dev d;
	int ret, dret;

	memset(&at, 0, sizeof(at));
	snprintf(at.name, sizeof(at.name), "%s",
		 a->attach_hist_name ? a->attach_hist_name : "profile");
	at.kind = PCORE_ATTACH_PROFILE;
	at.hz = a->hz;
	at.depth = a->attach_depth;
	at.pid = a->attach_pid;
	if (a->attach_comm)
		strcpy(at.comm, a->attach_comm);	/* checked: 15 at most */
	if (open_dev(env, true, &d))
		return PC_EXIT_ERR;
	ret = pc_dev_attach(&d, &at);
	if (ret) {
		env->dev_close(env, &d);
		return attach_error(env, ret, &at, "", "profiler");
	}
	if (!a->duration_ns) {
		env->dev_close(env, &d);
		return PC_EXIT_OK;
	}
	env->now(env, &real, &mono);
	until.tv_sec = mono.tv_sec + a->duration_ns / 1000000000ULL;
	until.tv_nsec = mono.tv_nsec + a->duration_ns % 1000000000ULL;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	env->sleep_until(env, &until);
	memset(&h, 0, sizeof(h));
	ret = pc_dev_find(&d, at.name, &e);
	if (!ret)
		ret = pc_dev_hist(&d, &e, false, &h);
	dret = pc_dev_name_cmd(&d, PCORE_IOC_DETACH, at.name);
	env->dev_close(env, &d);
	if (ret) {
		pc_hist_free(&h);
		return dev_error(env, ret, "read", at.name);
	}
	if (dret) {
		pc_hist_free(&h);
		return dev_error(env, dret, "detach", at.name);
	}
	return show_stacks(env, a, &h);
}

static int cmd_name(struct pc_env *env, const struct pc_args *a)
{
	static const struct {
		unsigned long ioc;
		const char *verb;
	} what[PC_NR_CMDS] = {
		[PC_CMD_DETACH] = { PCORE_IOC_DETACH, "detach" },
		[PC_CMD_RESET] = { PCORE_IOC_RESET, "reset" },
		[PC_CMD_ENABLE] = { PCORE_IOC_ENABLE, "enable" },
		[PC_CMD_DISABLE] = { PCORE_IOC_DISABLE, "disable" },
	};
	const char *slash = strchr(a->name, '/');
	struct pc_dev d;
	int ret;

	if (open_dev(env, true, &d))
		return PC_EXIT_ERR;
	ret = pc_dev_name_cmd(&d, what[a->cmd].ioc, a->name);
	env->dev_close(env, &d);
	if (ret == -EINVAL && slash && a->cmd != PC_CMD_RESET)
		return error(env, "%s %s: it belongs to the handler module %.*s; only probe_core's own probes can be %sd",
			     what[a->cmd].verb, a->name,
			     (int)(slash - a->name), a->name,
			     a->cmd == PC_CMD_DETACH ? "detache" :
			     what[a->cmd].verb);
	if (ret == -EINVAL)
		return error(env, "%s %s: probe_core refused it; %s",
			     what[a->cmd].verb, a->name, DMESG);
	return ret ? dev_error(env, ret, what[a->cmd].verb, a->name) :
		PC_EXIT_OK;
}

/*
 * export --textfile-dir: node_exporter's textfile collector reads *.prom
 * files at any time, so the file is replaced, never written in place:
 *
 *   1. the directory is opened and locked (flock), so that exports into it
 *      take turns: one that read the device later also renames later, and
 *      the file never goes back to older counts;
 *   2. the device is read (nothing written yet: an error leaves the file);
 *   3. a temporary file in the same directory (".probe_core.prom.XXXXXX":
 *      hidden, not *.prom, which the collector ignores) is written,
 *      made readable (0644) and flushed to disk (fsync);
 *   4. it is renamed over DIR/probe_core.prom, and the directory synced.
 *
 * A reader sees the old file or the new one, whole; a failure at any step
 * removes the temporary file and leaves the old one as it was.
 */
#define PROM_FILE	"probe_core.prom"
#define PROM_TMP	".probe_core.prom.XXXXXX"

/* Step 1: *@dfd, the directory, locked. */
static int textfile_lock(struct pc_env *env, const char *dir, int *dfd)
{
	*dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*dfd < 0)
		return error(env, "--textfile-dir %s: %s", dir,
			     strerror(errno));
	while (flock(*dfd, LOCK_EX)) {
		int err = errno;

		if (err == EINTR)
			continue;
		close(*dfd);
		*dfd = -1;
		return error(env, "--textfile-dir %s: cannot lock it: %s", dir,
			     strerror(err));
	}
	return PC_EXIT_OK;
}

static int write_textfile(struct pc_env *env, const char *dir, int dfd,
			  const struct pc_hist *h, unsigned int n)
{
	char tmp[4096], dst[4096];
	FILE *f = NULL;
	int fd, err = 0;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s/%s", dir, PROM_TMP) >=
	    sizeof(tmp) ||
	    (size_t)snprintf(dst, sizeof(dst), "%s/%s", dir, PROM_FILE) >=
	    sizeof(dst))
		return error(env, "--textfile-dir %s: %s", dir,
			     strerror(ENAMETOOLONG));
	fd = mkstemp(tmp);
	if (fd < 0)
		return error(env, "cannot create a file in %s: %s; %s is left as it was",
			     dir, strerror(errno), dst);
	if (fchmod(fd, 0644))
		err = errno;
	if (!err) {
		f = fdopen(fd, "w");
		if (!f)
			err = errno;
	}
	if (!err) {
		errno = 0;
		pc_fmt_prom(f, h, n);
		if (fflush(f) || ferror(f))
			err = errno ? errno : EIO;
		else if (fsync(fd))
			err = errno;
	}
	if (f) {
		if (fclose(f) && !err)
			err = errno ? errno : EIO;
	} else {
		close(fd);
	}
	if (!err && rename(tmp, dst))
		err = errno;
	if (err) {
		unlink(tmp);
		return error(env, "writing %s: %s; the previous file is left as it was",
			     dst, strerror(err));
	}
	fsync(dfd);	/* the rename itself; best effort */
	return PC_EXIT_OK;
}

static int cmd_export(struct pc_env *env, const struct pc_args *a)
{
	struct pcore_ioc_entry *e;
	struct pc_hist *h = NULL;
	unsigned int n, i, nh = 0;
	struct pc_dev d;
	int ret, dfd = -1;

	if (a->textfile_dir && textfile_lock(env, a->textfile_dir, &dfd))
		return PC_EXIT_ERR;
	if (open_dev(env, false, &d)) {
		ret = PC_EXIT_ERR;
		goto out;
	}
	ret = pc_dev_list(&d, &e, &n);
	if (ret) {
		env->dev_close(env, &d);
		ret = dev_error(env, ret, "list", "histograms");
		goto out;
	}
	h = calloc(n ? n : 1, sizeof(*h));
	if (!h) {
		env->dev_close(env, &d);
		free(e);
		ret = error(env, "out of memory");
		goto out;
	}
	/*
	 * Counts since each histogram's creation: an interval read or reset
	 * by someone else between two exports never lowers them.
	 */
	for (i = 0; i < n; i++) {
		ret = a->percpu ? pc_dev_hist(&d, &e[i], true, &h[nh]) :
			pc_dev_hist_total(&d, &e[i], &h[nh]);
		if (!ret) {
			nh++;
			continue;
		}
		pc_hist_free(&h[nh]);
		if (ret != -ENOENT)	/* ENOENT: went away since the list */
			break;
		ret = 0;
	}
	env->dev_close(env, &d);
	if (ret)
		ret = dev_error(env, ret, "read", e[i].name);
	else if (a->textfile_dir)
		ret = write_textfile(env, a->textfile_dir, dfd, h, nh);
	else
		pc_fmt_prom(env->out, h, nh);
	for (i = 0; i < nh; i++)
		pc_hist_free(&h[i]);
	free(h);
	free(e);
out:
	if (dfd >= 0)
		close(dfd);	/* and the lock with it */
	return ret;
}

/*
 * flamegraph: stacks from any source end in flame_write().  Today they
 * come from a folded file (-i); flamegraph NAME, the stacks of a
 * histogram read from /dev/probe_core, is to fill an array of struct
 * pc_flame_stack in flame_from_dev() and hand it to flame_write().
 */

/* What writes a file's contents; returns 0 or -errno (-EIO: see errno). */
typedef int (*pc_writer)(FILE *f, const void *arg);

/* @w into @f, which it closes; returns what failed as -errno */
static int write_close(FILE *f, pc_writer w, const void *arg)
{
	int ret;

	errno = 0;
	ret = w(f, arg);
	if (ret == -EIO && errno)
		ret = -errno;	/* what the write failed with */
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

/*
 * What @w writes, into the file @dst.  A regular file, or a new one, is
 * written whole or not at all: a temporary file beside @dst is renamed
 * over it once complete, so a failure leaves an older @dst as it was, and
 * a reader sees the old file or the new one.  Anything else (a symbolic
 * link, /dev/null, a FIFO) is written to as a shell's > would.
 *
 * Return: PC_EXIT_OK, or PC_EXIT_ERR after the message.
 */
static int write_file(struct pc_env *env, const char *dst, pc_writer w,
		      const void *arg)
{
	char tmp[PC_PATH_MAX + 16];
	struct stat st;
	mode_t mask;
	FILE *f;
	int fd, ret;

	if (!lstat(dst, &st) && !S_ISREG(st.st_mode)) {
		f = fopen(dst, "we");
		if (!f)
			return error(env, "cannot open %s: %s", dst,
				     strerror(errno));
		ret = write_close(f, w, arg);
		return ret ? error(env, "writing %s: %s", dst, strerror(-ret)) :
			PC_EXIT_OK;
	}
	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", dst);	/* dst < PC_PATH_MAX */
	fd = mkstemp(tmp);
	if (fd < 0)
		return error(env, "cannot create a file beside %s: %s", dst,
			     strerror(errno));
	mask = umask(0);	/* mkstemp() makes 0600: the mode open() would */
	umask(mask);
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
	} else if (fchmod(fd, 0666 & ~mask)) {
		ret = -errno;
		fclose(f);
	} else {
		ret = write_close(f, w, arg);
	}
	if (!ret && rename(tmp, dst))
		ret = -errno;
	if (ret) {
		unlink(tmp);
		return error(env, "writing %s: %s", dst, strerror(-ret));
	}
	return PC_EXIT_OK;
}

struct flame_arg {
	const struct pc_flame_stack *s;
	size_t n;
	struct pc_flame_opts o;
};

static int flame_writer(FILE *f, const void *arg)
{
	const struct flame_arg *fa = arg;

	return pc_flame_svg(f, fa->s, fa->n, &fa->o);
}

/*
 * The SVG of @n stacks to -o FILE (see write_file()), or to env->out
 * without -o (or with -o -).
 */
static int flame_write(struct pc_env *env, const struct pc_args *a,
		       const struct pc_flame_stack *s, size_t n)
{
	struct flame_arg fa = { .s = s, .n = n,
				.o = { .title = a->flame_title,
				       .width = a->flame_width } };
	const char *dst = a->flame_out;
	int ret;

	if (!dst || !strcmp(dst, "-")) {
		ret = pc_flame_svg(env->out, s, n, &fa.o);
		if (ret == -EIO)
			return error(env, "writing the output failed");
		return ret ? error(env, "flamegraph: %s", strerror(-ret)) :
			PC_EXIT_OK;
	}
	return write_file(env, dst, flame_writer, &fa);
}

/* flamegraph NAME: the device's side is not there yet. */
static int flame_from_dev(struct pc_env *env, const struct pc_args *a)
{
	struct pc_flame_stack *fs = NULL;
	struct pcore_ioc_entry e;
	struct pc_stack *s = NULL;
	const char **frames = NULL;
	char *names = NULL, *p;
	size_t room = 0, nfr = 0, used = 0;
	unsigned int n = 0, i, j, k = 0;
	struct pc_hist h;
	struct pc_dev d;
	int ret;

	memset(&h, 0, sizeof(h));
	if (open_dev(env, false, &d))
		return PC_EXIT_ERR;
	ret = pc_dev_find(&d, a->name, &e);
	if (!ret)
		ret = pc_dev_hist(&d, &e, false, &h);
	env->dev_close(env, &d);
	if (ret) {
		pc_hist_free(&h);
		return dev_error(env, ret, "read", a->name);
	}
	if (!pc_is_stacks(&e)) {
		pc_hist_free(&h);
		return error(env, "flamegraph %s: not a histogram keyed by stack (attach --stacks, profile, offcpu)",
			     a->name);
	}
	ret = pc_stacks_build(&h, &s, &n) ? PC_EXIT_ERR : PC_EXIT_OK;
	for (i = 0; !ret && i < n; i++) {
		nfr += s[i].nframes;
		for (j = 0; j < s[i].nframes; j++)
			room += strlen(s[i].frames[j]) + 1;
	}
	/* names without offsets are never longer; weights as --folded's */
	if (!ret) {
		fs = calloc(n ? n : 1, sizeof(*fs));
		frames = calloc(nfr ? nfr : 1, sizeof(*frames));
		names = malloc(room ? room : 1);
		if (!fs || !frames || !names)
			ret = error(env, "flamegraph %s: out of memory", a->name);
	}
	for (i = 0, p = names; !ret && i < n; i++) {
		if (!s[i].nframes)
			continue;
		fs[k].frames = &frames[used];
		used += s[i].nframes;
		fs[k].nframes = s[i].nframes;
		fs[k].count = strcmp(e.hist_kind, "count") ? s[i].sum :
			      s[i].count;
		for (j = 0; j < s[i].nframes; j++) {
			room = strlen(s[i].frames[s[i].nframes - 1 - j]) + 1;
			fs[k].frames[j] = pc_stack_func(p, room,
					s[i].frames[s[i].nframes - 1 - j]);
			p += strlen(p) + 1;
		}
		k++;
	}
	if (!ret)
		ret = flame_write(env, a, fs, k);
	free(fs);
	free(frames);
	free(names);
	free(s);
	pc_hist_free(&h);
	return ret;
}

/* flamegraph -i FILE: folded stacks from a file or standard input. */
static int flame_from_file(struct pc_env *env, const struct pc_args *a)
{
	const char *path = a->flame_in;
	bool std = !strcmp(path, "-");
	struct pc_flame_stack *s;
	char why[256];
	size_t n;
	FILE *f;
	int ret;

	if (std && !env->in)
		return error(env, "no standard input to read");
	f = std ? env->in : fopen(path, "re");
	if (!f)
		return error(env, "cannot open %s: %s", path, strerror(errno));
	ret = pc_folded_parse(f, &s, &n, why, sizeof(why));
	if (!std)
		fclose(f);
	if (ret == -ENOMEM)
		return error(env, "%s: out of memory", path);
	if (ret)
		return error(env, "%s: %s", std ? "standard input" : path, why);
	ret = flame_write(env, a, s, n);
	pc_folded_free(s, n);
	return ret;
}

static int cmd_flamegraph(struct pc_env *env, const struct pc_args *a)
{
	return a->name ? flame_from_dev(env, a) : flame_from_file(env, a);
}

/* ---- heatmap ---- */

struct heat_arg {
	const struct pc_heat *h;
	const char *title;
};

static int heat_writer(FILE *f, const void *arg)
{
	const struct heat_arg *ha = arg;

	return pc_heat_svg(f, ha->h, ha->title);
}

/* Whether the text goes to a terminal, and how many columns it has. */
static bool out_tty(struct pc_env *env, unsigned int *cols)
{
	struct winsize ws;
	int fd = fileno(env->out);

	*cols = 0;
	if (fd < 0 || !isatty(fd))
		return false;
	if (!ioctl(fd, TIOCGWINSZ, &ws) && ws.ws_col)
		*cols = ws.ws_col;
	return true;
}

/*
 * The picture as text: on a terminal, the screen cleared first and as
 * many intervals as its width has room for.
 */
static int heat_show(struct pc_env *env, const struct pc_heat *h, bool tty,
		     unsigned int cols, bool color)
{
	int ret;

	if (tty)
		fputs("\033[H\033[2J", env->out);
	ret = pc_heat_text(env->out, h, 0, tty ? cols : 0, color);
	if (ret)
		return error(env, "heatmap %s: %s", h->name, strerror(-ret));
	if (fflush(env->out) || ferror(env->out))
		return error(env, "writing the output: %s", strerror(errno));
	return PC_EXIT_OK;
}

/*
 * heatmap: the loop of watch (one PCORE_READ_RESET per interval, absolute
 * deadlines), each interval a column of the picture.  The first
 * snapshot-and-reset only starts the first interval, and gives the
 * buckets' bounds.  A stop (SIGINT, SIGTERM) ends the loop at the next
 * wake-up without reading: the values since the last column stay in the
 * histogram.
 */
static int cmd_heatmap(struct pc_env *env, const struct pc_args *a)
{
	unsigned long long prev_mono, deadline, now;
	struct timespec real, mono, until;
	struct heat_arg ha = { .title = a->flame_title };
	struct pcore_ioc_entry e;
	struct pc_heat h;
	unsigned int i, cols;
	struct pc_snap s;
	struct pc_dev d;
	bool tty, color;
	int ret;

	memset(&h, 0, sizeof(h));
	tty = out_tty(env, &cols);
	color = a->heat_color > 0 ||
		(!a->heat_color && tty && !getenv("NO_COLOR"));
	if (open_dev(env, true, &d))
		return PC_EXIT_ERR;
	ret = pc_dev_find(&d, a->name, &e);
	if (!ret)
		ret = pc_dev_read(&d, e.name, -1, PCORE_READ_RESET, 0,
				  e.nbuckets, false, &s);
	if (ret) {
		env->dev_close(env, &d);
		return dev_error(env, ret, "heatmap", a->name);
	}
	ret = pc_heat_init(&h, &e, &s, a->interval_ns, a->full);
	pc_snap_free(&s);
	if (ret) {
		env->dev_close(env, &d);
		return ret == -ENOMEM ? error(env, "out of memory") :
			dev_error(env, ret, "heatmap", a->name);
	}
	ha.h = &h;
	if (env->catch_stop)
		env->catch_stop(env);
	env->now(env, &real, &mono);
	prev_mono = ts_ns(&mono);
	deadline = prev_mono + a->interval_ns;
	ret = PC_EXIT_OK;
	for (i = 0; !a->count || i < a->count; i++) {
		until = ns_ts(deadline);
		env->sleep_until(env, &until);
		if (env->stopped && env->stopped(env))
			break;
		ret = pc_dev_read(&d, e.name, -1, PCORE_READ_RESET, 0,
				  e.nbuckets, false, &s);
		if (ret) {
			ret = dev_error(env, ret, "heatmap", a->name);
			break;
		}
		env->now(env, &real, &mono);
		now = ts_ns(&mono);
		ret = pc_heat_add(&h, &s, &real, now - prev_mono);
		pc_snap_free(&s);
		if (ret) {
			ret = ret == -ENOMEM ? error(env, "out of memory") :
				error(env, "heatmap %s: the histogram's buckets changed (another histogram of that name?)",
				      a->name);
			break;
		}
		prev_mono = now;
		if (tty)
			ret = heat_show(env, &h, true, cols, color);
		if (!ret && a->heat_svg)
			ret = write_file(env, a->heat_svg, heat_writer, &ha);
		if (ret)
			break;
		while (deadline <= now)
			deadline += a->interval_ns;
	}
	env->dev_close(env, &d);
	/* Off a terminal the picture comes once; an SVG even of nothing. */
	if (!ret && !tty)
		ret = heat_show(env, &h, false, 0, color);
	if (!ret && a->heat_svg && !h.ncols)
		ret = write_file(env, a->heat_svg, heat_writer, &ha);
	pc_heat_free(&h);
	return ret;
}

/**
 * pc_run() - probectl
 * @argc: as main() got it
 * @argv: as main() got it
 * @env: the outside world
 *
 * Return: the exit status.
 */
int pc_run(int argc, char **argv, struct pc_env *env)
{
	struct pc_args a;
	int ret = pc_parse_args(argc, argv, &a);

	if (ret) {
		fprintf(env->err, "probectl: %s\n", a.err);
		pc_usage(env->err, a.cmd, false);
		return PC_EXIT_USAGE;
	}
	if (a.help) {
		pc_usage(env->out, a.cmd, true);
		return PC_EXIT_OK;
	}
	switch (a.cmd) {
	case PC_CMD_LOAD:
		return cmd_load(env, &a);
	case PC_CMD_UNLOAD:
		return cmd_unload(env);
	case PC_CMD_STATUS:
		return cmd_status(env);
	case PC_CMD_LIST:
		return cmd_list(env, &a);
	case PC_CMD_SHOW:
		return cmd_show(env, &a);
	case PC_CMD_WATCH:
		return cmd_watch(env, &a);
	case PC_CMD_ATTACH:
		return cmd_attach(env, &a);
	case PC_CMD_DETACH:
	case PC_CMD_RESET:
	case PC_CMD_ENABLE:
	case PC_CMD_DISABLE:
		return cmd_name(env, &a);
	case PC_CMD_EXPORT:
		return cmd_export(env, &a);
	case PC_CMD_PROFILE:
		return cmd_profile(env, &a);
	case PC_CMD_FLAMEGRAPH:
		return cmd_flamegraph(env, &a);
	case PC_CMD_HEATMAP:
		return cmd_heatmap(env, &a);
	case PC_CMD_VERSION:
		fprintf(env->out, "probectl for probe_core ABI %d\n",
			PCORE_ABI_VERSION);
		return PC_EXIT_OK;
	default:
		pc_usage(env->err, PC_CMD_NONE, false);
		return PC_EXIT_USAGE;
	}
}
