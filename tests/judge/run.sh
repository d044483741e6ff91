#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: tests/judge/run.sh [OUTDIR]
#
# Host tests of the VM runner's judge (tests/vm/judge.sh), TAP on stdout
# (make check keeps it as build/results/judge.tap).  Exits 1 when anything
# failed.
#   1. every fixture of logs/ gives the exit status and the first offending
#      line that expect names: real debug-kernel banners pass, reports
#      fail, allocation-failure reports pass only inside a fault-injection
#      window;
#   2. every report header of headers, added to the clean debug boot, fails
#      the judge and is named as the first offending line;
#   3. usage errors exit 2.
# Each check compares the exact status and line, so a judge that passes
# everything, or flags the wrong line, fails here.
set -eu

usage() {
	echo "usage: $0 [OUTDIR]" >&2
	exit 2
}

[ $# -le 1 ] || usage
here=$(cd "$(dirname "$0")" && pwd)
judge=$here/../vm/judge.sh
out=${1:-$(mktemp -d)}
mkdir -p "$out"
failed=0
tab=$(printf '\t')

# check DESC LOG STATUS FIRST: judges LOG; passes when the exit status is
# STATUS and the first line of the verdict names FIRST ("-": clean).
check() {
	desc=$1 log=$2 want_st=$3 want=$4
	st=0
	"$judge" "$log" fixture > "$out/verdict" 2>&1 || st=$?
	verdict=$(head -n 1 "$out/verdict")
	if [ "$want" = - ]; then
		want_v="ok - guest kernel log clean (6.1.0-pcore-debug)"
	else
		want_v="not ok - guest kernel log: $want"
	fi
	if [ "$st" = "$want_st" ] && [ "$verdict" = "$want_v" ]; then
		echo "ok - judge: $desc"
	else
		echo "not ok - judge: $desc"
		echo "# want exit $want_st: $want_v"
		echo "# got  exit $st:"
		sed 's/^/#   /' "$out/verdict" | head -20
		failed=1
	fi
}

while IFS="$tab" read -r name st first; do
	case $name in '#'* | '') continue ;; esac
	check "$name" "$here/logs/$name" "$st" "$first"
done < "$here/expect"

n=0
while IFS= read -r h; do
	case $h in '#'* | '') continue ;; esac
	n=$((n + 1))
	{
		cat "$here/logs/clean-debug-boot.log"
		printf '[  800.%06d] %s\n' "$n" "$h"
		echo "[  800.999999] reboot: Power down"
	} > "$out/header.log"
	check "report header fails: $h" "$out/header.log" 1 \
		"$(printf '[  800.%06d] %s' "$n" "$h")"
done < "$here/headers"

st=0
"$judge" > /dev/null 2>&1 || st=$?
if [ $st = 2 ]; then
	echo "ok - judge: no argument is a usage error (exit 2)"
else
	echo "not ok - judge: no argument exits $st, not 2"
	failed=1
fi
st=0
"$judge" "$out/no-such-file" > /dev/null 2>&1 || st=$?
if [ $st = 2 ]; then
	echo "ok - judge: an unreadable log is an error (exit 2)"
else
	echo "not ok - judge: an unreadable log exits $st, not 2"
	failed=1
fi
[ $# = 1 ] || rm -rf "$out"
exit $failed
