#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A guest root of Debian 12 (bookworm, minbase) with tracing tools from
# the Debian archive, as an ext4 image that the guest mounts from a
# virtio disk and chroots into.  Two of them:
#
# Usage: scripts/bpf-root.sh KVER         (e.g. 6.1.0-56-cloud-amd64)
#   make bench's bpftrace, BCC and trace-cmd rows (scripts/bench-insn.sh):
#   bpftrace, bpfcc-tools and trace-cmd, and the headers of kernel release
#   KVER, which BCC compiles its programs against; one image per release.
# Usage: scripts/bpf-root.sh --bpftrace
#   make check's pcore_bpftrace (tests/selftests/bpftrace): bpftrace
#   alone, no headers (its kfunc probes need only the kernel's BTF, from
#   /sys/kernel/btf/vmlinux); one image for every kernel.
#
# Prints the image's path.  Both are cached in
# ${PCORE_CACHE:-${XDG_CACHE_HOME:-~/.cache}/probe_core}/bpf-root-<key>/,
# the key a hash of the suite, the mirror and the package list: root/ (the
# debootstrapped tree) and <KVER>.img, or bpftrace.img.  Building root/
# takes debootstrap, root and the Debian archive, a few minutes once; the
# image, a few seconds (per kernel release for the first).  A lock
# serialises concurrent callers; an interrupted build starts over.  Exits
# non-zero, its last line on stderr saying why, when the image cannot be
# built.
set -eu

SUITE=bookworm
MIRROR=http://deb.debian.org/debian

die() {
	echo "bpf-root: $*" >&2
	exit 1
}

[ $# -eq 1 ] || {
	echo "usage: $0 KVER | --bpftrace" >&2
	exit 2
}
kver=$1
case $kver in
--bpftrace)
	kver=
	PKGS="bpftrace"
	;;
'' | */* | .* | -*) die "bad kernel release '$kver'" ;;
*) PKGS="bpftrace bpfcc-tools python3-bpfcc trace-cmd" ;;
esac
if [ -n "$kver" ]; then
	build=/usr/src/linux-headers-$kver
	[ -e "$build/Makefile" ] || die "no headers of $kver in $build"
	# Debian's headers come in two trees: the flavour's (the build link
	# of /lib/modules/KVER) and the common one (its source link).
	src=$(readlink "/lib/modules/$kver/source" 2>/dev/null) ||
		src=$(sed -n 's|^include \(/usr/src/[^/]*\)/Makefile$|\1|p' "$build/Makefile")
	if [ -z "$src" ] || [ ! -d "$src" ]; then
		die "cannot find the common headers of $kver"
	fi
fi

key=$(printf '%s\n' "$SUITE" "$MIRROR" "$PKGS" | sha256sum | cut -c1-12)
cache=${PCORE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/probe_core}
dir=$cache/bpf-root-$key
img=$dir/${kver:-bpftrace}.img
mkdir -p "$dir"
exec 9>"$dir/lock"
flock 9

if [ ! -f "$dir/root/.complete" ]; then
	[ "$(id -u)" -eq 0 ] || die "building the guest root takes root (debootstrap, chroot)"
	if ! command -v debootstrap >/dev/null; then
		echo "bpf-root: apt-get install debootstrap" >&2
		apt-get install -y debootstrap >"$dir/build.log" 2>&1 ||
			die "cannot install debootstrap; see $dir/build.log"
	fi
	rm -rf "$dir/root" "$dir/root.tmp" "$dir"/*.img
	echo "bpf-root: debootstrap $SUITE and $PKGS into $dir (once)" >&2
	if ! debootstrap --variant=minbase "$SUITE" "$dir/root.tmp" "$MIRROR" \
		>"$dir/build.log" 2>&1; then
		die "debootstrap failed (no access to $MIRROR?); see $dir/build.log"
	fi
	# shellcheck disable=SC2086 # the package list is words
	if ! chroot "$dir/root.tmp" /usr/bin/env DEBIAN_FRONTEND=noninteractive \
		apt-get install -y --no-install-recommends $PKGS \
		>>"$dir/build.log" 2>&1; then
		die "apt-get install $PKGS failed in the guest root; see $dir/build.log"
	fi
	chroot "$dir/root.tmp" apt-get clean
	touch "$dir/root.tmp/.complete"
	mv "$dir/root.tmp" "$dir/root"
fi

if [ ! -f "$img" ] || [ "$img" -ot "$dir/root/.complete" ]; then
	# cp -a and mkfs.ext4 -d keep the root's owners only as root.
	[ "$(id -u)" -eq 0 ] || die "building the image of the guest root takes root"
	stage=$dir/stage
	rm -rf "$stage" "$img.tmp"
	cp -a "$dir/root" "$stage"
	if [ -n "$kver" ]; then
		mkdir -p "$stage/usr/src" "$stage/lib/modules/$kver"
		cp -a "$build" "$src" "$stage/usr/src/"
		ln -sfn "$build" "$stage/lib/modules/$kver/build"
		ln -sfn "$src" "$stage/lib/modules/$kver/source"
	fi
	# The tree plus a quarter, for ext4's metadata.
	mb=$(du -sm "$stage" | cut -f1)
	if ! mkfs.ext4 -q -F -L bpfroot -d "$stage" "$img.tmp" \
		"$((mb + mb / 4 + 64))M" >>"$dir/build.log" 2>&1; then
		rm -rf "$stage" "$img.tmp"
		die "mkfs.ext4 -d failed; see $dir/build.log"
	fi
	rm -rf "$stage"
	mv "$img.tmp" "$img"
fi
echo "$img"
