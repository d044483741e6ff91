// SPDX-License-Identifier: GPL-2.0
/*
 * probectl attach: a probe of probe_core's own, kernel or user space.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "elfsym.h"
#include "cmd_priv.h"

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
int attach_error(struct pc_env *env, int ret,
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

int cmd_attach(struct pc_env *env, const struct pc_args *a)
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
	/* the probe in fields; the name is only its histogram's */
	strcpy(at.target, a->attach_probe.func);
	at.what = a->attach_probe.what;
	at.arg = a->attach_probe.arg;
	strcpy(at.unit, a->attach_probe.unit);
	at.flags = a->attach_probe.flags | a->attach_mech;
	/* offcpu's: the probe's, not its spec's (no suffix) */
	if (a->attach_kind == PCORE_ATTACH_TRACEPOINT)
		at.flags |= (a->user_stacks ? PCORE_ATTACH_USTACK : 0) |
			    (a->no_kthreads ? PCORE_ATTACH_NO_KTHREADS : 0);
	at.maxactive = a->maxactive;
	at.depth = a->attach_depth;
	at.pid = a->attach_pid;
	if (a->attach_comm)
		strcpy(at.comm, a->attach_comm);	/* checked: 15 at most */
	/*
	 * F:graph:GLOB: the fields have no room for the glob: the text form
	 * (no target; the name is the spec, the kernel parses it).
	 */
	if (a->attach_probe.graph[0]) {
		at.target[0] = '\0';
		at.what = 0;
		at.flags = 0;
	}
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
