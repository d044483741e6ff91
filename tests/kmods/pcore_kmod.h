/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the selftests' test modules (the directories of tests/kmods)
 * share: each is driven by writes of a number to write-only files in a
 * debugfs directory of its own.  Test code, not part of the API.
 */
#ifndef PCORE_KMOD_H
#define PCORE_KMOD_H

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/uaccess.h>

/* The file_operations @name of a write-only debugfs file: @write_fn. */
#define PCORE_KMOD_FOPS(name, write_fn)					\
static const struct file_operations name = {				\
	.owner = THIS_MODULE,						\
	.open = simple_open,						\
	.write = write_fn,						\
	.llseek = noop_llseek,						\
}

/*
 * The number a user wrote, from 0 to @max, into @n: 0, the error of
 * kstrtouint_from_user(), or -EINVAL when it is over @max.
 */
static inline int pcore_kmod_uint(const char __user *ubuf, size_t count,
				  unsigned int max, unsigned int *n)
{
	int ret = kstrtouint_from_user(ubuf, count, 10, n);

	if (ret)
		return ret;
	return *n > max ? -EINVAL : 0;
}

/*
 * The two numbers a user wrote ("A B"), each from 0 to @max, into @a and
 * @b: 0, -EFAULT, or -EINVAL when they are not two numbers or one is
 * over @max.
 */
static inline int pcore_kmod_uint2(const char __user *ubuf, size_t count,
				   unsigned int max, unsigned int *a,
				   unsigned int *b)
{
	char buf[32];

	if (!count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%u %u", a, b) != 2 || *a > max || *b > max)
		return -EINVAL;
	return 0;
}

/* A write-only file of a test module's debugfs directory. */
struct pcore_kmod_file {
	const char *name;
	const struct file_operations *fops;
	void *data;			/* the file's private_data */
};

/*
 * The debugfs directory @dir with the files @files (@n of them), or an
 * error pointer; debugfs errors are not checked (fs/debugfs/inode.c).
 */
static inline struct dentry *pcore_kmod_debugfs(const char *dir,
						const struct pcore_kmod_file *files,
						unsigned int n)
{
	struct dentry *d = debugfs_create_dir(dir, NULL);
	unsigned int i;

	for (i = 0; i < n; i++)
		debugfs_create_file(files[i].name, 0200, d, files[i].data,
				    files[i].fops);
	return d;
}

/*
 * The init and exit of a test module that is its debugfs directory @dir
 * with the files of the array @files: @prefix_init() makes it,
 * @prefix_exit() removes it.  The module names them in module_init() and
 * module_exit().
 */
#define PCORE_KMOD_DEBUGFS(prefix, dir, files)				\
static struct dentry *prefix##_dir;					\
									\
static int __init prefix##_init(void)					\
{									\
	prefix##_dir = pcore_kmod_debugfs(dir, files, ARRAY_SIZE(files)); \
	return 0;							\
}									\
									\
static void __exit prefix##_exit(void)					\
{									\
	debugfs_remove(prefix##_dir);					\
}

#endif /* PCORE_KMOD_H */
