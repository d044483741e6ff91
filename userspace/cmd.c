// SPDX-License-Identifier: GPL-2.0
/*
 * probectl's commands: argument checking is done (args.c), output is
 * formatted elsewhere (format.c); each command's steps and the words of
 * its errors are in its own file (cmd_<command>.c, sharing cmd_priv.h);
 * here are what they share (the device opened, its errors in words, a
 * file replaced whole) and pc_run().  Exit status: 0 success, 1 error,
 * 2 usage.  Errors go to env->err as one line "probectl: ...".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cmd_priv.h"

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
int open_dev(struct pc_env *env, bool write, struct pc_dev *d)
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
int dev_error(struct pc_env *env, int err, const char *what,
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

/**
 * find_hist() - histogram @name, read whole from an open device
 * @d: the device
 * @name: the histogram's name
 * @percpu: with a view of each CPU
 * @e: its list entry
 * @h: what was read; on an error, free it with pc_hist_free() all the same
 *
 * Return: 0 or -errno (-ENOENT: no histogram of that name).
 */
int find_hist(struct pc_dev *d, const char *name, bool percpu,
	      struct pcore_ioc_entry *e, struct pc_hist *h)
{
	int ret;

	memset(h, 0, sizeof(*h));
	ret = pc_dev_find(d, name, e);
	if (!ret)
		ret = pc_dev_hist(d, e, percpu, h);
	return ret;
}

/**
 * read_named() - histogram @name read whole, or the error in words
 * @env: the outside world
 * @name: the histogram's name
 * @percpu: with a view of each CPU
 * @e: its list entry
 * @h: what was read, for the caller to free with pc_hist_free()
 *
 * Opens the device, finds @name, reads it and closes the device; an
 * error is said as "read NAME: why" (dev_error()).
 *
 * Return: PC_EXIT_OK, or PC_EXIT_ERR after the message (@h empty).
 */
int read_named(struct pc_env *env, const char *name, bool percpu,
	       struct pcore_ioc_entry *e, struct pc_hist *h)
{
	struct pc_dev d;
	int ret;

	memset(h, 0, sizeof(*h));
	if (open_dev(env, false, &d))
		return PC_EXIT_ERR;
	ret = find_hist(&d, name, percpu, e, h);
	env->dev_close(env, &d);
	if (ret) {
		pc_hist_free(h);
		return dev_error(env, ret, "read", name);
	}
	return PC_EXIT_OK;
}

/**
 * reset_named() - histogram @name's first snapshot-and-reset, the device
 *	left open for the next ones
 * @env: the outside world
 * @name: the histogram's name
 * @verb: the command, for the error: "VERB NAME: why"
 * @d: the device, opened for writing (PCORE_READ_RESET needs it)
 * @e: its list entry
 * @s: its merged view, moved out (PCORE_READ_RESET)
 *
 * Return: PC_EXIT_OK with @d open, or PC_EXIT_ERR after the message with
 * @d closed.
 */
int reset_named(struct pc_env *env, const char *name, const char *verb,
		struct pc_dev *d, struct pcore_ioc_entry *e, struct pc_snap *s)
{
	int ret;

	if (open_dev(env, true, d))
		return PC_EXIT_ERR;
	ret = pc_dev_find(d, name, e);
	if (!ret)
		ret = pc_dev_read(d, e->name, -1, PCORE_READ_RESET, 0,
				  e->nbuckets, false, s);
	if (ret) {
		env->dev_close(env, d);
		return dev_error(env, ret, verb, name);
	}
	return PC_EXIT_OK;
}

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
int write_file(struct pc_env *env, const char *dst, pc_writer w,
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

static int cmd_version(struct pc_env *env, const struct pc_args *a)
{
	fprintf(env->out, "probectl for probe_core ABI %d\n",
		PCORE_ABI_VERSION);
	return PC_EXIT_OK;
}

/* Each command's function, by pc_args.cmd. */
static pc_cmd_fn *const pc_cmds[] = {
	[PC_CMD_LOAD] = cmd_load,
	[PC_CMD_UNLOAD] = cmd_unload,
	[PC_CMD_STATUS] = cmd_status,
	[PC_CMD_LIST] = cmd_list,
	[PC_CMD_SHOW] = cmd_show,
	[PC_CMD_WATCH] = cmd_watch,
	[PC_CMD_ATTACH] = cmd_attach,
	[PC_CMD_DETACH] = cmd_name,
	[PC_CMD_RESET] = cmd_name,
	[PC_CMD_ENABLE] = cmd_name,
	[PC_CMD_DISABLE] = cmd_name,
	[PC_CMD_EXPORT] = cmd_export,
	[PC_CMD_PROFILE] = cmd_profile,
	[PC_CMD_FLAMEGRAPH] = cmd_flamegraph,
	[PC_CMD_HEATMAP] = cmd_heatmap,
	[PC_CMD_VERSION] = cmd_version,
};

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
	if ((size_t)a.cmd < ARRAY_SIZE(pc_cmds) && pc_cmds[a.cmd])
		return pc_cmds[a.cmd](env, &a);
	pc_usage(env->err, PC_CMD_NONE, false);
	return PC_EXIT_USAGE;
}
