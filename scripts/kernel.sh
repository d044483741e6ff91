#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/kernel.sh [SERIES [VERSION]]
#
# Prints "VMLINUZ HEADERS" on one line: the newest installed Debian kernel
# image of flavour SERIES (default "cloud", i.e. /boot/vmlinuz-*-cloud-amd64),
# of version VERSION when given (e.g. 6.12: releases 6.12.*), that also has
# its headers tree in /usr/src/linux-headers-<release>. Both are
# needed together: the image boots the test VM, the headers build the modules
# loaded into it, and a module only loads into the exact release it was
# built for.
set -eu

usage() {
	echo "usage: $0 [SERIES [VERSION]]   (SERIES: Debian kernel flavour, default cloud; VERSION: e.g. 6.1)" >&2
	exit 2
}

[ $# -le 2 ] || usage
series=${1:-cloud}
version=${2:-}
case $series in
-* | *[!A-Za-z0-9_.+-]*) usage ;;
esac
case $version in
*[!0-9.]*) usage ;;
esac

# Newest first: sort -V orders 6.1.0-9 before 6.1.0-56 correctly. An
# unmatched glob stays literal and fails the -r test below.
# The pattern is expanded unquoted: SERIES and VERSION were checked above.
pattern=/boot/vmlinuz-${version:+$version[.-]}*-$series-amd64
# shellcheck disable=SC2086
pick=$(printf '%s\n' $pattern | sort -rV | while read -r img; do
		hdr=/usr/src/linux-headers-${img#/boot/vmlinuz-}
		if [ -r "$img" ] && [ -e "$hdr/Makefile" ]; then
			echo "$img $hdr"
			break
		fi
	done)
if [ -n "$pick" ]; then
	echo "$pick"
	exit 0
fi

echo "kernel.sh: no $pattern with matching" \
	"/usr/src/linux-headers-<release>/ installed;" \
	"install Debian packages linux-image-$series-amd64 and" \
	"linux-headers-$series-amd64 (scripts/deps.sh does, for cloud)" >&2
exit 1
