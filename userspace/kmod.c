// SPDX-License-Identifier: GPL-2.0
/*
 * probe_core in and out of the kernel, with libkmod: the installed module
 * through modprobe's search (kmod_module_new_from_name() and
 * kmod_module_probe_insert_module()), or a file from a build tree
 * (kmod_module_new_from_path() and kmod_module_insert_module()).
 *
 * libkmod is opened when one of these runs (dlopen), not linked: it pulls
 * in libcrypto, liblzma and libzstd, whose loading and relocation were most
 * of the start of every probectl command (show, watch, export from a
 * timer), which never need them.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <libkmod.h>
#include "kmod.h"
#include "probectl.h"

#define PC_KMOD_LIB	"libkmod.so.2"

/* The libkmod calls used here, as pointers of their own types. */
static struct {
	__typeof__(&kmod_new) kmod_new;
	__typeof__(&kmod_unref) kmod_unref;
	__typeof__(&kmod_set_log_fn) kmod_set_log_fn;
	__typeof__(&kmod_module_new_from_name) kmod_module_new_from_name;
	__typeof__(&kmod_module_new_from_path) kmod_module_new_from_path;
	__typeof__(&kmod_module_unref) kmod_module_unref;
	__typeof__(&kmod_module_get_path) kmod_module_get_path;
	__typeof__(&kmod_module_get_name) kmod_module_get_name;
	__typeof__(&kmod_module_get_initstate) kmod_module_get_initstate;
	__typeof__(&kmod_module_initstate_str) kmod_module_initstate_str;
	__typeof__(&kmod_module_insert_module) kmod_module_insert_module;
	__typeof__(&kmod_module_probe_insert_module) kmod_module_probe_insert_module;
	__typeof__(&kmod_module_remove_module) kmod_module_remove_module;
	__typeof__(&kmod_module_get_holders) kmod_module_get_holders;
	__typeof__(&kmod_module_get_module) kmod_module_get_module;
	__typeof__(&kmod_module_unref_list) kmod_module_unref_list;
	__typeof__(&kmod_list_next) kmod_list_next;
} km;

static const struct {
	const char *name;
	void **ptr;
} pc_kmod_syms[] = {
	{ "kmod_new", (void **)&km.kmod_new },
	{ "kmod_unref", (void **)&km.kmod_unref },
	{ "kmod_set_log_fn", (void **)&km.kmod_set_log_fn },
	{ "kmod_module_new_from_name", (void **)&km.kmod_module_new_from_name },
	{ "kmod_module_new_from_path", (void **)&km.kmod_module_new_from_path },
	{ "kmod_module_unref", (void **)&km.kmod_module_unref },
	{ "kmod_module_get_path", (void **)&km.kmod_module_get_path },
	{ "kmod_module_get_name", (void **)&km.kmod_module_get_name },
	{ "kmod_module_get_initstate", (void **)&km.kmod_module_get_initstate },
	{ "kmod_module_initstate_str", (void **)&km.kmod_module_initstate_str },
	{ "kmod_module_insert_module", (void **)&km.kmod_module_insert_module },
	{ "kmod_module_probe_insert_module", (void **)&km.kmod_module_probe_insert_module },
	{ "kmod_module_remove_module", (void **)&km.kmod_module_remove_module },
	{ "kmod_module_get_holders", (void **)&km.kmod_module_get_holders },
	{ "kmod_module_get_module", (void **)&km.kmod_module_get_module },
	{ "kmod_module_unref_list", (void **)&km.kmod_module_unref_list },
	{ "kmod_list_next", (void **)&km.kmod_list_next },
};

/*
 * Opens libkmod once.  Returns 0, or -ELIBACC (said once on stderr, with
 * dlerror()'s words) when it or one of its calls is missing.
 */
static int pc_kmod_open(void)
{
	static int ret = 1;
	void *lib;
	size_t i;

	if (ret <= 0)
		return ret;
	ret = -ELIBACC;
	lib = dlopen(PC_KMOD_LIB, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "probectl: %s\n", dlerror());
		return ret;
	}
	for (i = 0; i < ARRAY_SIZE(pc_kmod_syms); i++) {
		*pc_kmod_syms[i].ptr = dlsym(lib, pc_kmod_syms[i].name);
		if (!*pc_kmod_syms[i].ptr) {
			fprintf(stderr, "probectl: %s has no %s\n",
				PC_KMOD_LIB, pc_kmod_syms[i].name);
			return ret;
		}
	}
	return ret = 0;
}

/*
 * A libkmod context and probe_core's module in it: from the .ko file @path,
 * or by name (modprobe's search) when @path is NULL.  Sets *@step (when
 * not NULL) to PC_KMOD_FIND once libkmod is set up, so that a failure
 * before says PC_KMOD_SETUP.  Returns 0 with *@ctx and *@mod to give to
 * pc_kmod_put(), or -errno with nothing to put.
 */
/*
 * libkmod's own log lines ("libkmod: ERROR ../libkmod/libkmod-module.c:856
 * kmod_module_remove_module: could not remove 'probe_core': ...") go
 * nowhere: probectl says what failed in one line of its own, from the
 * errno libkmod returns.
 */
static void pc_kmod_quiet(void *data, int priority, const char *file,
			  int line, const char *fn, const char *format,
			  va_list args)
{
}

static int pc_kmod_find(const char *path, enum pc_kmod_step *step,
			struct kmod_ctx **ctx, struct kmod_module **mod)
{
	int ret;

	*mod = NULL;
	ret = pc_kmod_open();
	if (ret)
		return ret;
	*ctx = km.kmod_new(NULL, NULL);
	if (!*ctx)
		return -ENOMEM;
	km.kmod_set_log_fn(*ctx, pc_kmod_quiet, NULL);
	if (step)
		*step = PC_KMOD_FIND;
	if (path)
		ret = km.kmod_module_new_from_path(*ctx, path, mod);
	else
		ret = km.kmod_module_new_from_name(*ctx, PC_MODULE_NAME, mod);
	if (ret < 0) {
		km.kmod_unref(*ctx);
		return ret;
	}
	return 0;
}

static void pc_kmod_put(struct kmod_ctx *ctx, struct kmod_module *mod)
{
	km.kmod_module_unref(mod);
	km.kmod_unref(ctx);
}

/*
 * The kernel log from now on: /dev/kmsg at its end, or -1 when it cannot
 * be read (then the messages say to read dmesg).
 */
static int pc_kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0 && lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * Into @why, probe_core's first line in the kernel log since
 * pc_kmsg_open() (the one that names what it refused, by the module's
 * rule), without its "probe_core: "; "" when there is none.  Records
 * are "PRI,SEQ,USEC,FLAGS;TEXT\n" and dictionary lines; EPIPE means
 * some were overwritten meanwhile, and reading goes on.
 */
static void pc_kmsg_why(int fd, char *why, size_t whylen)
{
	static const char prefix[] = PC_MODULE_NAME ": ";
	char rec[8192];
	ssize_t n;

	why[0] = '\0';
	while (fd >= 0) {
		const char *text, *end;

		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;
		if (n <= 0)
			break;
		rec[n] = '\0';
		text = strchr(rec, ';');
		if (!text || strncmp(++text, prefix, sizeof(prefix) - 1))
			continue;
		text += sizeof(prefix) - 1;
		end = strchr(text, '\n');
		snprintf(why, whylen, "%.*s",
			 (int)(end ? end - text : (ptrdiff_t)strlen(text)), text);
		break;
	}
	if (fd >= 0)
		close(fd);
}

/**
 * pc_kmod_load() - load probe_core
 * @path: a .ko file, or NULL for the installed module
 * @params: its parameters, "" for none
 * @step: set to where it failed
 * @found: set to the file name found or given (for messages)
 * @len: size of @found
 * @why: set to probe_core's line in the kernel log when the kernel
 *	refused it ("" when none could be read)
 * @whylen: size of @why
 *
 * Return: 0, or -errno: -EEXIST when probe_core is already loaded, else
 * what libkmod or the kernel answered.
 */
int pc_kmod_load(const char *path, const char *params,
		 enum pc_kmod_step *step, char *found, size_t len,
		 char *why, size_t whylen)
{
	struct kmod_ctx *ctx;
	struct kmod_module *mod;
	const char *p;
	int ret, kmsg;

	why[0] = '\0';
	*step = PC_KMOD_SETUP;
	snprintf(found, len, "%s", path ? path : "");
	ret = pc_kmod_find(path, step, &ctx, &mod);
	if (ret)
		return ret;
	p = km.kmod_module_get_path(mod);
	if (!p) {
		ret = -ENOENT;
		goto out;
	}
	snprintf(found, len, "%s", p);
	if (path && strcmp(km.kmod_module_get_name(mod), PC_MODULE_NAME)) {
		*step = PC_KMOD_NAME;
		ret = -EINVAL;
		goto out;
	}
	*step = PC_KMOD_INSERT;
	if (km.kmod_module_get_initstate(mod) >= 0) {
		ret = -EEXIST;
		goto out;
	}
	kmsg = pc_kmsg_open();
	if (path)
		ret = km.kmod_module_insert_module(mod, 0, params);
	else
		ret = km.kmod_module_probe_insert_module(mod,
				KMOD_PROBE_FAIL_ON_LOADED, params, NULL, NULL,
				NULL);
	if (ret > 0)	/* stopped by a flag: only FAIL_ON_LOADED is given */
		ret = -EEXIST;
	if (ret < 0 && ret != -EEXIST)
		pc_kmsg_why(kmsg, why, whylen);
	else if (kmsg >= 0)
		close(kmsg);
out:
	pc_kmod_put(ctx, mod);
	return ret;
}

/**
 * pc_kmod_unload() - unload probe_core
 * @holders: set to the modules using it, comma-separated ("" for none)
 * @len: size of @holders
 *
 * Return: 0, -ENOENT when not loaded, or what the kernel answered
 * (EAGAIN/EWOULDBLOCK or EBUSY while in use).
 */
int pc_kmod_unload(char *holders, size_t len)
{
	struct kmod_ctx *ctx;
	struct kmod_module *mod;
	struct kmod_list *list, *l;
	size_t used = 0;
	int ret;

	holders[0] = '\0';
	ret = pc_kmod_find(NULL, NULL, &ctx, &mod);
	if (ret)
		return ret;
	if (km.kmod_module_get_initstate(mod) < 0) {
		ret = -ENOENT;
		goto out;
	}
	ret = km.kmod_module_remove_module(mod, 0);
	if (ret < 0 && ret != -ENOENT) {
		list = km.kmod_module_get_holders(mod);
		for (l = list; l; l = km.kmod_list_next(list, l)) {
			struct kmod_module *h = km.kmod_module_get_module(l);
			int n = snprintf(holders + used, len - used, "%s%s",
					 used ? "," : "",
					 km.kmod_module_get_name(h));

			km.kmod_module_unref(h);
			if (n > 0 && (size_t)n < len - used)
				used += n;
		}
		km.kmod_module_unref_list(list);
	}
out:
	pc_kmod_put(ctx, mod);
	return ret;
}

/**
 * pc_kmod_state() - is probe_core loaded?
 * @state: set to "live", "coming" or "going" when loaded
 * @len: size of @state
 *
 * Return: 1 when loaded, 0 when not, -errno when that cannot be told.
 */
int pc_kmod_state(char *state, size_t len)
{
	struct kmod_ctx *ctx;
	struct kmod_module *mod;
	int ret;

	state[0] = '\0';
	ret = pc_kmod_find(NULL, NULL, &ctx, &mod);
	if (ret)
		return ret;
	ret = km.kmod_module_get_initstate(mod);
	if (ret >= 0) {
		snprintf(state, len, "%s",
			 km.kmod_module_initstate_str(ret) ?: "loaded");
		ret = 1;
	} else if (ret == -ENOENT) {
		ret = 0;
	}
	pc_kmod_put(ctx, mod);
	return ret;
}
