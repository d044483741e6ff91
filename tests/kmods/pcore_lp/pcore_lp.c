// SPDX-License-Identifier: GPL-2.0
/*
 * pcore_lp: a test livepatch for the probe_core selftests, not an example.
 *
 * It replaces version_proc_show() (fs/proc/version.c), which a read of
 * /proc/version calls once: the replacement, pcore_lp_version_show(),
 * prints PCORE_LP_LINE instead of the kernel's banner, so a reader tells
 * which of the two ran.  The patch is enabled when the module loads,
 * disabled by "echo 0 > /sys/kernel/livepatch/pcore_lp/enabled"; then
 * the module can be removed.
 *
 *   echo MS > /sys/module/pcore_lp/parameters/nap_ms
 *	each later call of the replacement first sleeps up to MS
 *	milliseconds (a signal ends the sleep early): a call that stays
 *	inside it
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/livepatch.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#define PCORE_LP_LINE	"pcore_lp: version_proc_show() replaced\n"
#define PCORE_LP_NAP_MAX	600000		/* ms */

static unsigned int nap_ms;

static int pcore_lp_nap_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ms;
	int ret = kstrtouint(val, 10, &ms);

	if (ret)
		return ret;
	if (ms > PCORE_LP_NAP_MAX)
		return -EINVAL;
	WRITE_ONCE(nap_ms, ms);
	return 0;
}

static const struct kernel_param_ops pcore_lp_nap_ops = {
	.set = pcore_lp_nap_set,
	.get = param_get_uint,
};
module_param_cb(nap_ms, &pcore_lp_nap_ops, &nap_ms, 0600);
MODULE_PARM_DESC(nap_ms, "each call of the replacement sleeps this long first (ms)");

/* The replacement: the same prototype, another line. */
static int pcore_lp_version_show(struct seq_file *m, void *v)
{
	unsigned int ms = READ_ONCE(nap_ms);

	if (ms)
		msleep_interruptible(ms);
	seq_puts(m, PCORE_LP_LINE);
	return 0;
}

static struct klp_func pcore_lp_funcs[] = {
	{
		.old_name = "version_proc_show",
		.new_func = pcore_lp_version_show,
	},
	{ }
};

/* No object name: the function is vmlinux's. */
static struct klp_object pcore_lp_objs[] = {
	{ .funcs = pcore_lp_funcs },
	{ }
};

static struct klp_patch pcore_lp_patch = {
	.mod = THIS_MODULE,
	.objs = pcore_lp_objs,
};

static int __init pcore_lp_init(void)
{
	return klp_enable_patch(&pcore_lp_patch);
}

/* Only once the patch is disabled: livepatch holds the module till then. */
static void __exit pcore_lp_exit(void)
{
}

module_init(pcore_lp_init);
module_exit(pcore_lp_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("probe_core selftests: a livepatch of version_proc_show()");
MODULE_INFO(livepatch, "Y");
