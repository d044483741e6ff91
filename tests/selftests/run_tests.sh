#!/bin/sh
# Runs every selftest in this directory, one after the other, and prints
# their TAP.  A test binary that dies without reporting is a failure.
# Where the kernel has kmemleak, kmemleak.sh first proves it catches a
# leak, then checks after every KMEMLEAK_EVERY tests (leaks of the group
# before, or of this group) and at the end, with every module unloaded
# (each check one TAP line; see kmemleak.sh).  A scan takes about 25 s
# under KASAN and emulation: one after each of the 25 programs was 10 of
# the debug kernel's minutes, one after every fourth 3.  kmemleak's report of a leak names the
# task that allocated it ("comm"), which names the program in a group.
# Each program's time is printed after it ("# pcore_x: N s").
# Usage: run_tests.sh [--no-kmemleak-selftest] [TEST...]
#   (default: every pcore_* program here; --no-kmemleak-selftest skips
#   the detector's own test, for a boot of a kernel whose main boot ran it)
cd "$(dirname "$0")" || exit 1
leak_selftest=1
if [ "${1-}" = --no-kmemleak-selftest ]; then
	leak_selftest=
	shift
fi
if [ $# -gt 0 ]; then
	tests=$*
else
	tests=$(for f in pcore_*; do [ -x "$f" ] && echo "$f"; done)
fi
rc=0
prev=
group=
n=0
KMEMLEAK_EVERY=8
if [ -e /sys/kernel/debug/kmemleak ]; then
	echo "# kmemleak: checks after each test"
	sh ./kmemleak.sh start
	[ -z "$leak_selftest" ] || sh ./kmemleak.sh selftest || rc=1
fi
for t in $tests; do
	echo "# selftest: $t"
	t0=$(date +%s)
	./"$t" > "/tmp/$t.out" 2>&1
	st=$?
	cat "/tmp/$t.out"
	echo "# $t: $(($(date +%s) - t0)) s"
	if [ $st -ne 0 ]; then
		rc=1
		grep -q '^not ok ' "/tmp/$t.out" ||
			echo "not ok - $t exited $st without reporting a failure"
	fi
	group=${group:+$group }$t
	n=$((n + 1))
	if [ $((n % KMEMLEAK_EVERY)) = 0 ]; then
		sh ./kmemleak.sh check "$prev" "$group" || rc=1
		prev=$group
		group=
	fi
done
sh ./kmemleak.sh final "${prev:+$prev }$group" || rc=1
exit $rc
