// SPDX-License-Identifier: GPL-2.0
/*
 * insn_uprobe: the references of make bench's instruction counts for
 * user-space probes, the least one can cost: a uprobe at path=:offset=
 * whose handler does nothing and, with ret=1, a return handler that does
 * nothing either (a uretprobe: the return address is hijacked at each
 * call, and the return goes through the uprobes trampoline).  Calls are
 * counted, for the bench's check that the probe fired.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <probe_core/compat.h>

static char *path;
module_param(path, charp, 0444);
MODULE_PARM_DESC(path, "the ELF file (required)");

static unsigned long long offset;
module_param(offset, ullong, 0444);
MODULE_PARM_DESC(offset, "the function's offset in the file");

static bool ret;
module_param(ret, bool, 0444);
MODULE_PARM_DESC(ret, "also at the return: a uretprobe");

static atomic64_t calls;

static int insn_uprobe_calls_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lld\n", (long long)atomic64_read(&calls));
}

static const struct kernel_param_ops insn_uprobe_calls_ops = {
	.get = insn_uprobe_calls_get,
};
module_param_cb(calls, &insn_uprobe_calls_ops, NULL, 0444);
MODULE_PARM_DESC(calls, "calls seen (read it)");

static struct path insn_path;
static struct uprobe *insn_up;

static int insn_uprobe_handler(struct uprobe_consumer *uc,
			       struct pt_regs *regs)
{
	if (!ret)
		atomic64_inc(&calls);
	return 0;
}

static int insn_uprobe_ret(struct uprobe_consumer *uc, unsigned long func,
			   struct pt_regs *regs)
{
	atomic64_inc(&calls);
	return 0;
}

static struct uprobe_consumer insn_uc = {
	.handler = insn_uprobe_handler,
};

static int __init insn_uprobe_init(void)
{
	int err;

	if (!path || !*path) {
		pr_err("path= is required\n");
		return -EINVAL;
	}
	err = kern_path(path, LOOKUP_FOLLOW, &insn_path);
	if (err) {
		pr_err("%s: %d\n", path, err);
		return err;
	}
	if (ret)
		insn_uc.ret_handler = insn_uprobe_ret;
	err = pcore_uprobe_register(d_real_inode(insn_path.dentry), offset,
				    &insn_uc, &insn_up);
	if (err) {
		pr_err("cannot probe %s+%#llx: %d\n", path, offset, err);
		path_put(&insn_path);
	}
	return err;
}

static void __exit insn_uprobe_exit(void)
{
	pcore_uprobe_unregister_nosync(d_real_inode(insn_path.dentry), offset,
				       &insn_uc, insn_up);
	pcore_uprobe_unregister_sync();
	path_put(&insn_path);
}

module_init(insn_uprobe_init);
module_exit(insn_uprobe_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("make bench reference: a uprobe or uretprobe with empty handlers");
