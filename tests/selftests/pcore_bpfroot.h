/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bpftrace's Debian root for the selftests that run it (the programs of
 * tests/selftests/bpftrace): made by scripts/bpf-root.sh --bpftrace, an
 * ext4 image on the guest's virtio disk (/dev/vda), mounted at /bpf with
 * the kernel's file systems and chrooted into; the disk's modules, for a
 * kernel that has them as modules, are in /pcore/bpfmods, loaded in the
 * order of its file "order".  No disk is a failure, with the host's
 * reason when it could not make the image (/pcore/bpfroot.why).
 */
#ifndef PCORE_BPFROOT_H
#define PCORE_BPFROOT_H

#include "pcore_lib.h"
#include <signal.h>
#include <sys/mount.h>

#define BPFROOT		"/bpf"
#define BPFROOT_DISK	"/dev/vda"
#define BPFROOT_MODS	"/pcore/bpfmods"
#define BPFROOT_WHY	"/pcore/bpfroot.why"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* The file systems bpftrace's root gets, in mount order. */
static const struct {
	const char *type, *dir;
} bpfroot_mounts[] = {
	{ "proc", BPFROOT "/proc" },
	{ "sysfs", BPFROOT "/sys" },
	{ "devtmpfs", BPFROOT "/dev" },
	{ "debugfs", BPFROOT "/sys/kernel/debug" },
	{ "tracefs", BPFROOT "/sys/kernel/tracing" },
	{ "bpf", BPFROOT "/sys/fs/bpf" },
	{ "tmpfs", BPFROOT "/tmp" },
	{ "tmpfs", BPFROOT "/run" },
};

/*
 * The disk's modules loaded, the disk there and mounted at BPFROOT with the
 * kernel's file systems; 0, or -1 with @why (@len bytes) saying why.
 */
static inline int bpfroot_mount(char *why, size_t len)
{
	char line[256], path[512], host[1024] = "";
	unsigned int i;
	FILE *f;
	int err;

	f = fopen(BPFROOT_MODS "/order", "re");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		snprintf(path, sizeof(path), BPFROOT_MODS "/%s", line);
		err = pcore_load_path(path, NULL);
		/* loaded, or for a CPU the guest does not have (crc32c-intel) */
		if (err && err != EEXIST && err != ENODEV) {
			snprintf(why, len, "insmod %s: %s", path, strerror(err));
			fclose(f);
			return -1;
		}
	}
	if (f)
		fclose(f);
	/* the host's reason, when it gave no disk: no wait for one */
	if (pcore_read(BPFROOT_WHY, host, sizeof(host)) < 0) {
		snprintf(host, sizeof(host), "the host gave no reason (" BPFROOT_WHY ")");
		for (i = 0; access(BPFROOT_DISK, F_OK) && i < 300; i++)
			usleep(100000);
	}
	if (access(BPFROOT_DISK, F_OK)) {
		snprintf(why, len, "no %s, bpftrace's root (scripts/bpf-root.sh --bpftrace): %s",
			 BPFROOT_DISK, host);
		return -1;
	}
	mkdir(BPFROOT, 0755);
	if (mount(BPFROOT_DISK, BPFROOT, "ext4", 0, NULL)) {
		snprintf(why, len, "mount %s on %s: %s", BPFROOT_DISK, BPFROOT, strerror(errno));
		return -1;
	}
	for (i = 0; i < ARRAY_SIZE(bpfroot_mounts); i++)
		if (mount(bpfroot_mounts[i].type, bpfroot_mounts[i].dir, bpfroot_mounts[i].type, 0, NULL)) {
			snprintf(why, len, "mount %s on %s: %s", bpfroot_mounts[i].type,
				 bpfroot_mounts[i].dir, strerror(errno));
			return -1;
		}
	return 0;
}

static inline void bpfroot_umount(void)
{
	int i;

	for (i = ARRAY_SIZE(bpfroot_mounts) - 1; i >= 0; i--)
		umount2(bpfroot_mounts[i].dir, MNT_DETACH);
	umount2(BPFROOT, MNT_DETACH);
}

/*
 * bpftrace -e @script started in the root, its output in the file @out
 * (outside the root): the pid, or -1.  Its SIGINT has the default action:
 * bpftrace prints its maps and exits on it.
 */
static inline pid_t bpfroot_bpftrace(const char *script, const char *out)
{
	const char * const argv[] = { "/usr/bin/bpftrace", "-e", script, NULL };
	static const char * const env[] = {
		"PATH=/usr/sbin:/usr/bin:/sbin:/bin", "HOME=/root", "LANG=C", NULL
	};
	pid_t pid = fork();
	int fd;

	if (pid)
		return pid;
	signal(SIGINT, SIG_DFL);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 ||
	    chroot(BPFROOT) || chdir("/"))
		_exit(126);
	execve(argv[0], (char * const *)argv, (char * const *)env);
	_exit(127);
}

/*
 * Stops bpftrace with SIGINT, again every 10 s (bpftrace 0.17 sometimes
 * loses one that comes right after it attached: scripts/bench-insn.sh),
 * then SIGKILL after 60 s; its wait status.
 */
static inline int bpfroot_bpftrace_stop(pid_t pid)
{
	int i, st = -1;

	for (i = 0; i < 600; i++) {
		if (i % 100 == 0)
			kill(pid, SIGINT);
		if (waitpid(pid, &st, WNOHANG) == pid)
			return st;
		usleep(100000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

#endif /* PCORE_BPFROOT_H */
