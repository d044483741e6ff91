#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/ksrc.sh [OUTDIR]
#
# Extracts the few kernel-tree files the tests and lint use from Debian's
# linux-source-6.1 tarball into OUTDIR (default build/ksrc), flat:
#   kselftest_harness.h kselftest.h    selftests build against these
#   checkpatch.pl spelling.txt const_structs.checkpatch kernel-doc    lint
# checkpatch.pl finds spelling.txt and const_structs.checkpatch in its own
# directory, so flattening keeps it working. These files are GPL kernel
# files: they live under build/ and are never committed.
set -eu

TARBALL=/usr/src/linux-source-6.1.tar.xz
TOPDIR=linux-source-6.1
MEMBERS="tools/testing/selftests/kselftest_harness.h
tools/testing/selftests/kselftest.h
scripts/checkpatch.pl
scripts/spelling.txt
scripts/const_structs.checkpatch
scripts/kernel-doc"

usage() {
	echo "usage: $0 [OUTDIR]   (default: build/ksrc in the repo top)" >&2
	exit 2
}

# Everything is present and came from this very tarball (the stamp records
# its size and mtime, so a linux-source upgrade re-extracts).
up_to_date() {
	[ -f "$out/.stamp" ] && [ "$(cat "$out/.stamp")" = "$ident" ] ||
		return 1
	for m in $MEMBERS; do
		[ -f "$out/${m##*/}" ] || return 1
	done
}

[ $# -le 1 ] || usage
case ${1-} in -*) usage ;; esac
out=${1:-$(cd "$(dirname "$0")/.." && pwd)/build/ksrc}

if [ ! -r "$TARBALL" ]; then
	echo "ksrc: $TARBALL missing; run scripts/deps.sh" >&2
	exit 1
fi
ident="$TARBALL $(stat -c '%s %Y' "$TARBALL")"
if up_to_date; then
	exit 0
fi

mkdir -p "$out"
rm -f "$out/.stamp"
list=
for m in $MEMBERS; do
	list="$list $TOPDIR/$m"
done
# One pass over the tarball: decompressing it is the slow part (~10 s).
# --transform drops the directories so the files land flat in OUTDIR.
# shellcheck disable=SC2086 # list is a word list of member names
tar -xJf "$TARBALL" -C "$out" --transform='s,.*/,,' $list
echo "$ident" >"$out/.stamp"
echo "ksrc: extracted $(echo "$MEMBERS" | wc -l) files from $TARBALL into $out"
