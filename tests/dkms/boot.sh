#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boots a kernel in QEMU with modules that DKMS installed, and loads them
# with modprobe (tests/dkms/smoke.sh in the guest).  Prints smoke.sh's
# TAP, each description prefixed with LABEL, then the VM runner's own
# lines; exits non-zero on any failure.
#
# Usage: tests/dkms/boot.sh VMLINUZ MODULES OUTDIR LABEL
#   MODULES  the kernel's /lib/modules/<release> as DKMS left it: its
#            updates/dkms/ and depmod's indexes (modules.*) go into the
#            guest's /lib/modules/<release>/
#   OUTDIR   the payload and the VM's logs
set -u

[ $# -eq 4 ] || {
	echo "usage: $0 VMLINUZ MODULES OUTDIR LABEL" >&2
	exit 2
}
top=$(cd "$(dirname "$0")/../.." && pwd)
vmlinuz=$1 mods=$2 out=$3 label=$4
kver=${mods%/}
kver=${kver##*/}

payload=$out/payload
rm -rf "$payload"
mkdir -p "$payload/rootfs/lib/modules/$kver"
if ! cp -a "$mods/updates" "$payload/rootfs/lib/modules/$kver/" ||
	! cp "$mods"/modules.* "$payload/rootfs/lib/modules/$kver/"; then
	echo "not ok - $label: $mods has no DKMS modules and indexes to boot with"
	exit 1
fi
cp "$top/tests/dkms/smoke.sh" "$top/tests/lib/tap.sh" "$payload/"
"$top/tests/vm/run.sh" --kernel "$vmlinuz" --payload "$payload" \
	--out "$out/vm" --timeout 300 -- sh smoke.sh |
	sed "/^1\.\./d; s/^\(\(not \)\?ok\) [0-9]* -/\1 - $label:/"
exit "${PIPESTATUS[0]}"
