// SPDX-License-Identifier: GPL-2.0
/*
 * probectl export: every histogram in Prometheus' text format, to
 * standard output or replacing a file of node_exporter's textfile
 * collector.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "format.h"
#include "cmd_priv.h"
#include "remote_write.h"

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

/*
 * export --remote-write: the histograms read (all of them, before
 * anything is sent: a read error sends nothing) go in ONE request, so a
 * receiver stores every series of a push or none; the message names the
 * URL without its password.
 */
static int push_remote(struct pc_env *env, const struct pc_args *a,
		       const struct pc_hist *h, unsigned int n)
{
	struct pc_rw_opts o = { .instance = a->rw_instance,
				.job = a->rw_job ? a->rw_job : "probe_core" };
	char host[256], shown[4096], why[512];
	struct timespec real, mono;
	size_t len;
	void *body;
	int ret;

	if (!o.instance) {
		if (gethostname(host, sizeof(host)))
			return error(env, "--remote-write: the host has no name: %s; give --instance",
				     strerror(errno));
		host[sizeof(host) - 1] = '\0';
		o.instance = host;
	}
	env->now(env, &real, &mono);
	o.ts_ms = (long long)real.tv_sec * 1000 + real.tv_nsec / 1000000;
	ret = pc_rw_encode(h, n, &o, &body, &len);
	if (ret)
		return error(env, "remote write: %s", strerror(-ret));
	ret = pc_rw_post(a->remote_write, body, len, why, sizeof(why));
	free(body);
	if (!ret)
		return PC_EXIT_OK;
	pc_rw_url_shown(shown, sizeof(shown), a->remote_write);
	return error(env, "remote write to %s: %s", shown, why);
}

int cmd_export(struct pc_env *env, const struct pc_args *a)
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
	else if (a->remote_write)
		ret = push_remote(env, a, h, nh);
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
