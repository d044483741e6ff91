// SPDX-License-Identifier: GPL-2.0
/*
 * insn_attach: attaches one of probe_core's user-space probes for make
 * bench's instruction counts, as probectl would (the bench's guest has no
 * probectl): PCORE_IOC_ATTACH of kind PCORE_ATTACH_UPROBE, with the file
 * open and the function's offset in it.  Built static.
 *
 * Usage: insn_attach NAME PATH OFFSET
 *	NAME: the histogram's name with target='s suffix ("f:count",
 *	"f:arg1", "f" for a uretprobe that times each call)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <uapi/probe_core.h>

int main(int argc, char **argv)
{
	struct pcore_ioc_attach a;
	int dev, fd;

	if (argc != 4 || strlen(argv[1]) >= sizeof(a.name)) {
		fprintf(stderr, "usage: insn_attach NAME PATH OFFSET\n");
		return 2;
	}
	memset(&a, 0, sizeof(a));
	strcpy(a.name, argv[1]);
	a.kind = PCORE_ATTACH_UPROBE;
	a.offset = strtoull(argv[3], NULL, 0);
	fd = open(argv[2], O_RDONLY | O_CLOEXEC);
	dev = open(PCORE_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0 || dev < 0) {
		fprintf(stderr, "insn_attach: %s: %s\n",
			fd < 0 ? argv[2] : PCORE_DEVICE, strerror(errno));
		return 1;
	}
	a.fd = fd;
	if (ioctl(dev, PCORE_IOC_ATTACH, &a)) {
		fprintf(stderr, "insn_attach: %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	return 0;
}
