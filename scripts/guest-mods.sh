#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Copies kernel modules, with those they need, from a kernel's module tree
# into DIR for a guest to load in order: DIR/<name>.ko, uncompressed
# (finit_module() of a plain .ko works on every kernel), and DIR/order,
# their file names in load order, one a line.  A module built into the
# kernel has no file and is left out.
#
# Usage: guest-mods.sh MODROOT KVER DIR MODULE...
#   MODROOT: the root of the module tree (/ for the installed kernels,
#   MODROOT/lib/modules/KVER/ holding the modules)
set -eu

[ $# -ge 4 ] || {
	echo "usage: $0 MODROOT KVER DIR MODULE..." >&2
	exit 2
}
modroot=$1 kver=$2 dir=$3
shift 3
mkdir -p "$dir"
# modprobe prints the modules in load order, each once per module that
# needs it, and "builtin NAME" for those built in.
modprobe -d "$modroot" -S "$kver" --show-depends -a "$@" |
	awk '$1 == "insmod" && !seen[$2]++ { print $2 }' |
	while read -r ko; do
		m=${ko##*/}
		case $m in
		*.ko.xz) xz -dc "$ko" >"$dir/${m%.xz}" ;;
		*.ko.zst) zstd -qdc "$ko" >"$dir/${m%.zst}" ;;
		*) cp "$ko" "$dir/" ;;
		esac
		echo "${m%.ko*}.ko"
	done >"$dir/order"
