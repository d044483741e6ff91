#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make install and make uninstall into a staging root for KDIR's kernel:
# everything lands where the README says, modprobe's indexes know the
# modules, and uninstall leaves none of it behind.  Prints "error: ..."
# lines for what is wrong (check.sh counts a clean run as passed).
#
# Usage: tests/install/run.sh KDIR [MODDIR]
# MODDIR: the kernel's installed modules, for modules.builtin and
# modules.order (default /lib/modules/<release>).
set -u

kdir=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
kver=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' \
	"$kdir/include/generated/utsrelease.h")
# One root per kernel: make check installs for two kernels at once (its
# debug kernel's lane runs beside the others).
root=$top/build/install-test/$kver
mods=$root/lib/modules/$kver
rm -rf "$root"
mkdir -p "$mods"
moddir=${2:-/lib/modules/$kver}
cp "$moddir"/modules.builtin* "$moddir"/modules.order "$mods/"

make -s --no-print-directory -C "$top" KDIR="$kdir" DESTDIR="$root" install ||
	echo "error: make install failed"
want=(usr/local/sbin/probectl usr/local/share/man/man8/probectl.8
	lib/systemd/system/probectl-export.service
	lib/systemd/system/probectl-export.timer
	lib/systemd/system/probectl-remote-write.service
	lib/systemd/system/probectl-remote-write.timer
	usr/src/probe_core/include/probe_core/probe_core.h
	usr/src/probe_core/include/uapi/probe_core.h
	"usr/src/probe_core/$kver/Module.symvers")
for m in probe_core cpuhists thardirq tirqthread tsoftirq tcpsize blklat; do
	want+=("lib/modules/$kver/extra/probe_core/$m.ko")
done
for f in "${want[@]}"; do
	[ -s "$root/$f" ] || echo "error: make install did not install /$f"
done
# The service runs the probectl that was installed with it.
grep -qx 'ExecStart=/usr/local/sbin/probectl export --prometheus --textfile-dir ${TEXTFILE_DIR}' \
	"$root/lib/systemd/system/probectl-export.service" ||
	echo "error: probectl-export.service does not run /usr/local/sbin/probectl"
grep -qx 'ExecStart=/usr/local/sbin/probectl export --remote-write ${REMOTE_WRITE_URL} $REMOTE_WRITE_OPTS' \
	"$root/lib/systemd/system/probectl-remote-write.service" ||
	echo "error: probectl-remote-write.service does not run /usr/local/sbin/probectl"
grep -q '^extra/probe_core/cpuhists.ko: extra/probe_core/probe_core.ko$' \
	"$mods/modules.dep" ||
	echo "error: modules.dep does not know cpuhists needs probe_core"
[ ! -e "$mods/extra/probe_core/pcore_apitest.ko" ] ||
	echo "error: a test-only module was installed"

make -s --no-print-directory -C "$top" KDIR="$kdir" DESTDIR="$root" uninstall ||
	echo "error: make uninstall failed"
for f in "${want[@]}"; do
	[ ! -e "$root/$f" ] || echo "error: make uninstall left /$f"
done
! grep -q probe_core "$mods/modules.dep" ||
	echo "error: modules.dep still lists probe_core after uninstall"
