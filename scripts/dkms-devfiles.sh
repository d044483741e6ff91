#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# DKMS hooks (dkms.conf) for what handler modules build against:
#   keep RELEASE     (POST_BUILD, in the build directory) keeps
#                    Module.symvers in DKMS's directory of that kernel
#   install RELEASE  (POST_INSTALL, in the source directory) installs the
#                    headers and that Module.symvers under
#                    $PCORE_DEV (default /usr/src/probe_core)
#   remove RELEASE   (POST_REMOVE, in the source directory) removes that
#                    kernel's Module.symvers, and the headers with the
#                    last one: nothing of probe_core is left in $PCORE_DEV
set -eu

usage() {
	echo "usage: $0 keep|install|remove RELEASE" >&2
	exit 2
}

[ $# -eq 2 ] || usage
release=$2
case $release in
'' | */* | .*) usage ;;
esac
dev=${PCORE_DEV:-/usr/src/probe_core}
# Both hooks run one level below <dkms tree>/probe_core/<version>/ (in
# build/, and in source/, a symlink to the sources: $PWD keeps the
# logical path that DKMS entered, ".." would leave through the symlink).
kept=${PWD%/*}/$release/Module.symvers

case $1 in
keep)
	mkdir -p "${kept%/*}"
	cp Module.symvers "$kept"
	;;
install)
	install -d "$dev/include/probe_core" "$dev/include/uapi" "$dev/$release"
	install -m 644 include/probe_core/*.h "$dev/include/probe_core/"
	install -m 644 include/uapi/probe_core.h "$dev/include/uapi/"
	install -m 644 "$kept" "$dev/$release/Module.symvers"
	;;
remove)
	rm -f "$dev/$release/Module.symvers"
	rmdir "$dev/$release" 2>/dev/null || true
	# Another kernel's (DKMS or make install-dev) still needs the headers.
	for f in "$dev"/*/Module.symvers; do
		[ -e "$f" ] && exit 0
	done
	for h in include/probe_core/*.h include/uapi/probe_core.h; do
		rm -f "$dev/$h"
	done
	rmdir "$dev/include/probe_core" "$dev/include/uapi" "$dev/include" \
		"$dev" 2>/dev/null || true
	;;
*)
	usage
	;;
esac
