#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/demo.sh KO_FOR_HOST_OR_EMPTY KO_FOR_VM
#
# `make demo`: runs scripts/demo-guest.sh (load probe_core, make events,
# show the histogram) on this machine when it can load the module we built
# for it, else inside a QEMU VM booting Debian's 6.1 cloud kernel, with
# KO_FOR_VM (built against that kernel's headers). The caller builds both
# modules; KO_FOR_HOST is empty when there were no headers for this kernel.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
guest=$top/scripts/demo-guest.sh

usage() {
	echo "usage: $0 KO_FOR_HOST_OR_EMPTY KO_FOR_VM" >&2
	exit 2
}

die() {
	echo "demo: $*" >&2
	exit 1
}

# Prints why this machine cannot load host_ko, "; "-separated; nothing
# when it can.
host_blockers() {
	why=
	[ "$(id -u)" -eq 0 ] || why="$why; not root"
	if [ ! -e /proc/modules ]; then
		why="$why; no /proc/modules (kernel $(uname -r) has no module support)"
	elif [ "$(cat /proc/sys/kernel/modules_disabled 2>/dev/null)" != 0 ]; then
		why="$why; module loading is disabled (kernel.modules_disabled)"
	fi
	[ -e "/lib/modules/$(uname -r)/build" ] ||
		why="$why; no /lib/modules/$(uname -r)/build to build against"
	if [ -z "$host_ko" ]; then
		why="$why; no module was built for $(uname -r)"
	elif [ ! -f "$host_ko" ]; then
		why="$why; $host_ko does not exist"
	fi
	echo "${why#; }"
}

run_in_vm() {
	why=$1
	kpair=$("$top/scripts/kernel.sh" cloud 6.1) || exit 1
	vmlinuz=${kpair%% *}
	rel=${vmlinuz#/boot/vmlinuz-}
	[ -f "$vm_ko" ] || die "$vm_ko does not exist"
	# A module built for another release would only fail in the guest,
	# with a less helpful message.
	magic=$(modinfo -F vermagic "$vm_ko" 2>/dev/null || true)
	case $magic in
	"$rel "*) ;;
	*) die "$vm_ko is built for '${magic%% *}', the VM runs $rel" ;;
	esac

	echo "demo: running the demo inside a QEMU VM booting Debian's" \
		"cloud kernel $rel, because here: $why"
	vmdir=$top/build/demo-vm
	rm -rf "$vmdir/payload"
	mkdir -p "$vmdir/payload"
	cp "$vm_ko" "$vmdir/payload/probe_core.ko"
	cp "$guest" "$vmdir/payload/demo-guest.sh"
	chmod 755 "$vmdir/payload/demo-guest.sh"
	exec "$top/tests/vm/run.sh" --kernel "$vmlinuz" \
		--payload "$vmdir/payload" --out "$vmdir" --timeout 300 \
		-- /pcore/demo-guest.sh /pcore/probe_core.ko
}

[ $# -eq 2 ] || usage
host_ko=$1
vm_ko=$2
[ -n "$vm_ko" ] || usage
[ -x "$guest" ] || die "$guest is missing or not executable"

blockers=$(host_blockers)
if [ -z "$blockers" ]; then
	echo "demo: running on this machine ($(uname -r))"
	exec "$guest" "$host_ko"
fi
run_in_vm "$blockers"
