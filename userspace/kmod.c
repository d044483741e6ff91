// SPDX-License-Identifier: GPL-2.0
/*
 * probe_core in and out of the kernel, with libkmod: the installed module
 * through modprobe's search (kmod_module_new_from_name() and
 * kmod_module_probe_insert_module()), or a file from a build tree
 * (kmod_module_new_from_path() and kmod_module_insert_module()).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <libkmod.h>
#include "kmod.h"

/**
 * pc_kmod_load() - load probe_core
 * @path: a .ko file, or NULL for the installed module
 * @params: its parameters, "" for none
 * @step: set to where it failed
 * @found: set to the file name found or given (for messages)
 * @len: size of @found
 *
 * Return: 0, or -errno: -EEXIST when probe_core is already loaded, else
 * what libkmod or the kernel answered.
 */
int pc_kmod_load(const char *path, const char *params,
		 enum pc_kmod_step *step, char *found, size_t len)
{
	struct kmod_ctx *ctx;
	struct kmod_module *mod = NULL;
	const char *p;
	int ret;

	*step = PC_KMOD_SETUP;
	snprintf(found, len, "%s", path ? path : "");
	ctx = kmod_new(NULL, NULL);
	if (!ctx)
		return -ENOMEM;
	*step = PC_KMOD_FIND;
	if (path)
		ret = kmod_module_new_from_path(ctx, path, &mod);
	else
		ret = kmod_module_new_from_name(ctx, PC_MODULE_NAME, &mod);
	if (ret < 0)
		goto out;
	p = kmod_module_get_path(mod);
	if (!p) {
		ret = -ENOENT;
		goto out;
	}
	snprintf(found, len, "%s", p);
	if (path && strcmp(kmod_module_get_name(mod), PC_MODULE_NAME)) {
		*step = PC_KMOD_NAME;
		ret = -EINVAL;
		goto out;
	}
	*step = PC_KMOD_INSERT;
	if (kmod_module_get_initstate(mod) >= 0) {
		ret = -EEXIST;
		goto out;
	}
	if (path)
		ret = kmod_module_insert_module(mod, 0, params);
	else
		ret = kmod_module_probe_insert_module(mod,
				KMOD_PROBE_FAIL_ON_LOADED, params, NULL, NULL,
				NULL);
	if (ret > 0)	/* stopped by a flag: only FAIL_ON_LOADED is given */
		ret = -EEXIST;
out:
	kmod_module_unref(mod);
	kmod_unref(ctx);
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
	struct kmod_module *mod = NULL;
	struct kmod_list *list, *l;
	size_t used = 0;
	int ret;

	holders[0] = '\0';
	ctx = kmod_new(NULL, NULL);
	if (!ctx)
		return -ENOMEM;
	ret = kmod_module_new_from_name(ctx, PC_MODULE_NAME, &mod);
	if (ret < 0)
		goto out;
	if (kmod_module_get_initstate(mod) < 0) {
		ret = -ENOENT;
		goto out;
	}
	ret = kmod_module_remove_module(mod, 0);
	if (ret < 0 && ret != -ENOENT) {
		list = kmod_module_get_holders(mod);
		kmod_list_foreach(l, list) {
			struct kmod_module *h = kmod_module_get_module(l);
			int n = snprintf(holders + used, len - used, "%s%s",
					 used ? "," : "",
					 kmod_module_get_name(h));

			kmod_module_unref(h);
			if (n > 0 && (size_t)n < len - used)
				used += n;
		}
		kmod_module_unref_list(list);
	}
out:
	kmod_module_unref(mod);
	kmod_unref(ctx);
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
	struct kmod_module *mod = NULL;
	int ret;

	state[0] = '\0';
	ctx = kmod_new(NULL, NULL);
	if (!ctx)
		return -ENOMEM;
	ret = kmod_module_new_from_name(ctx, PC_MODULE_NAME, &mod);
	if (ret >= 0) {
		ret = kmod_module_get_initstate(mod);
		if (ret >= 0) {
			snprintf(state, len, "%s",
				 kmod_module_initstate_str(ret) ?: "loaded");
			ret = 1;
		} else {
			ret = ret == -ENOENT ? 0 : ret;
		}
	}
	kmod_module_unref(mod);
	kmod_unref(ctx);
	return ret;
}
