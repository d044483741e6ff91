#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Builds readlat, the handler module of docs/api.md ("Writing a handler
# module") and of the README's tour, the way a reader would: install
# probe_core's development files (into a staging root instead of /), copy
# the module's directory, modules/examples/readlat/ (the files the docs
# show: scripts/doclinks.sh checks that their listings are these files),
# build out of tree against the installed headers and Module.symvers.
#
# Usage: readme-module.sh KDIR OUTDIR
#   KDIR    kernel headers; probe_core must already be built for them
#   OUTDIR  gets the built .ko
# With PCORE_DEV_DIR set, builds against the development files installed
# there (e.g. by DKMS) instead of running `make install-dev`.
#
# The files are taken unchanged: the staging root's development files are
# given as PCORE_DEV=, as docs/api.md says.
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

for f in Kbuild Makefile readlat.c; do
	cp "$top/modules/examples/readlat/$f" "$src/$f"
done

# As docs/api.md says: make, with the kernel and the development files
# given as variables; objects per release in build/<release>/.
make -C "$src" KDIR="$kdir" PCORE_DEV="$dev" W=1
cp "$src/build/$kver"/*.ko "$out/"
