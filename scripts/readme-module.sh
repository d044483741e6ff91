#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds the handler module of docs/api.md, "Writing a handler module", the
# way a reader would: install probe_core's development files (into a
# staging root instead of /), take the files docs/api.md shows, build out
# of tree against the installed headers and Module.symvers.
#
# Usage: readme-module.sh KDIR OUTDIR
#   KDIR    kernel headers; probe_core must already be built for them
#   OUTDIR  gets the built .ko
# With PCORE_DEV_DIR set, builds against the development files installed
# there (e.g. by DKMS) instead of running `make install-dev`.
#
# docs/api.md blocks are taken from a line "<!-- file: NAME -->" followed by a
# fenced block, unchanged: the staging root's development files are given
# as PCORE_DEV=, as docs/api.md says.
set -eu

kdir=$1 out=$2
top=$(cd "$(dirname "$0")/.." && pwd)
kver=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' \
	"$kdir/include/generated/utsrelease.h")
work=$top/build/readme-$kver
root=$work/root
src=$work/src

rm -rf "$work"
mkdir -p "$src" "$out"
if [ -n "${PCORE_DEV_DIR:-}" ]; then
	dev=$PCORE_DEV_DIR
else
	make -s --no-print-directory -C "$top" KDIR="$kdir" DESTDIR="$root" install-dev
	dev=$root/usr/src/probe_core
fi

awk -v dir="$src" '
	/^<!-- file: [^ ]+ -->$/ { name = $3; next }
	name != "" && /^```/ && !inblock { inblock = 1; next }
	inblock && /^```$/ { inblock = 0; close(dir "/" name); name = ""; next }
	inblock { print > (dir "/" name) }
' "$top/docs/api.md"
for f in Kbuild Makefile readlat.c; do
	[ -s "$src/$f" ] || { echo "docs/api.md has no $f block" >&2; exit 1; }
done

# As docs/api.md says: make, with the kernel and the development files
# given as variables; objects per release in build/<release>/.
make -C "$src" KDIR="$kdir" PCORE_DEV="$dev" W=1
cp "$src/build/$kver"/*.ko "$out/"
