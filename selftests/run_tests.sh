#!/bin/sh
# Runs every selftest in this directory, one after the other, and prints
# their TAP.  A test binary that dies without reporting is a failure.
# Usage: run_tests.sh [TEST...]   (default: every pcore_* program here)
cd "$(dirname "$0")" || exit 1
if [ $# -gt 0 ]; then
	tests=$*
else
	tests=$(for f in pcore_*; do [ -x "$f" ] && echo "$f"; done)
fi
rc=0
for t in $tests; do
	echo "# selftest: $t"
	./"$t" > "/tmp/$t.out" 2>&1
	st=$?
	cat "/tmp/$t.out"
	if [ $st -ne 0 ]; then
		rc=1
		grep -q '^not ok ' "/tmp/$t.out" ||
			echo "not ok - $t exited $st without reporting a failure"
	fi
done
exit $rc
