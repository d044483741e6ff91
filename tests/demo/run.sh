#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck source-path=SCRIPTDIR
#
# `make demo` as a new user runs it (README, "make demo"), in this
# checkout: it asks scripts/deps.sh for the demo's packages only, prints
# the kernel it boots and no other kernel's, runs the 200 forks, and the
# numbers it prints are those forks plus the cats it says fork too.
# Prints TAP.
#
# Usage: tests/demo/run.sh OUTDIR
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: tests/demo/run.sh OUTDIR}
# shellcheck source=../lib/tap.sh
. "$top/tests/lib/tap.sh"
export TAP_PREFIX="demo: "
mkdir -p "$out"
cd "$top" || exit 1

# What `make demo` installs: the demo's list, none of make check's own.
scripts/deps.sh --print demo > "$out/pkgs" 2>&1
rc=0
for p in qemu-system-x86 busybox-static linux-image-cloud-amd64 \
	linux-headers-cloud-amd64 gcc make; do
	grep -qw -- "$p" "$out/pkgs" || { echo "missing $p" >> "$out/pkgs"; rc=1; }
done
for p in chromium nodejs npm prometheus prometheus-node-exporter \
	linux-image-rt-amd64 linux-image-6.12-cloud-amd64 linux-source-6.1 \
	valgrind sparse debootstrap lintian dkms; do
	! grep -qw -- "$p" "$out/pkgs" || { echo "has $p" >> "$out/pkgs"; rc=1; }
done
tap $rc "scripts/deps.sh demo installs the demo's packages, none that only make check uses" "$out/pkgs"
# Bad arguments: exit 2 and the usage line, nothing else (none installed).
for bad in bogus "demo extra" --print=1; do
	# shellcheck disable=SC2086
	scripts/deps.sh --print $bad > "$out/bad" 2>&1
	rc=$?
	[ $rc = 2 ] && [ "$(cat "$out/bad")" = "usage: scripts/deps.sh [--print] [demo]" ]
	tap $? "scripts/deps.sh --print $bad: exit 2 (got $rc) and its usage line alone" "$out/bad"
done
make -n demo > "$out/make-n" 2>&1
grep -q 'scripts/deps.sh demo$' "$out/make-n"
tap $? "make demo runs scripts/deps.sh demo" "$out/make-n"

make demo > "$out/demo.out" 2>&1
tap $? "make demo exits 0" "$out/demo.out"
# The VM's kernel: the one the demo line names is the guest's uname -r.
said=$(sed -n "s/^demo: running the demo inside a QEMU VM booting Debian's cloud kernel \([^,]*\),.*/\1/p" "$out/demo.out")
ran=$(sed -n '/^\$ uname -r$/{n;p;}' "$out/demo.out")
case $said in 6.1.*-cloud-amd64) rc=0 ;; *) rc=1 ;; esac
[ "$said" = "$ran" ] || rc=1
tap $rc "it names the kernel it boots, Debian's 6.1 cloud kernel (said '$said', uname -r '$ran')" "$out/demo.out"
! grep -E '^kdir:|Skipping BTF|rt-amd64|6\.12' "$out/demo.out" > "$out/other" 2>&1
tap $? "it prints no other kernel's name and no build noise" "$out/other"
# 200 forks, and one per cat before the file is read: probes 201 (the
# cat of probes), stats 203 (three cats); at least, since a kernel thread
# the guest's kernel starts meanwhile (a kworker) is a fork too: a few
# more, never fewer.
hits=$(awk '/^\$ cat .*\/probes$/ { getline; print $4; exit }' "$out/demo.out")
count=$(sed -n 's/^count: //p' "$out/demo.out")
grep -q '^\$ # workload: 200 forks (/bin/true); each cat below forks once more' "$out/demo.out" &&
	[ "${hits:-0}" -ge 201 ] && [ "${count:-0}" -ge $((hits + 2)) ] &&
	[ "$count" -le 210 ]
tap $? "its numbers are what it says: 200 forks, then one per cat (probes: '$hits', stats count: '$count')" "$out/demo.out"
exit "$failed"
