#!/bin/sh
# Runs every selftest in this directory, one after the other, and prints
# their TAP.  A test binary that dies without reporting is a failure.
# Where the kernel has kmemleak, kmemleak.sh first proves it catches a
# leak, then checks after each test (leaks of the test before it, or of
# that test) and at the end, with every module unloaded (each check one
# TAP line; see kmemleak.sh).
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
	sh ./kmemleak.sh check "$prev" "$t" || rc=1
	prev=$t
done
sh ./kmemleak.sh final "$prev" || rc=1
exit $rc
