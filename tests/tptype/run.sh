#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Typed tracepoint handlers (PCORE_TRACEPOINT_ATTACH) at build time, for
# one kernel: tests/tptype/tptype.c builds W=1 clean as it is, and fails
# to build with -DPCORE_TP_WRONG (handlers of the wrong prototype), the
# compiler's message naming both tracepoints.  probe_core must be built
# for KDIR first (its Module.symvers).  Prints TAP.
#
# Usage: tests/tptype/run.sh KDIR
set -u

kdir=$1
top=$(cd "$(dirname "$0")/../.." && pwd)
kver=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' \
	"$kdir/include/generated/utsrelease.h")
work=$top/build/tptype-$kver
rc=0

# build NAME [VAR=VALUE...]: a copy of tests/tptype in $work/NAME, built;
# the compiler's output in $work/NAME.log.
build() {
	local name=$1
	shift
	rm -rf "${work:?}/$name"
	mkdir -p "$work/$name"
	cp "$top"/tests/tptype/Kbuild "$top"/tests/tptype/tptype.c "$work/$name/"
	make -C "$kdir" M="$work/$name" W=1 PCORE_DEV="$top" "$@" \
		KBUILD_EXTRA_SYMBOLS="$top/build/$kver/Module.symvers" \
		modules > "$work/$name.log" 2>&1
}

if build good && ! grep -qiE 'warning|error' "$work/good.log" &&
   [ -f "$work/good/tptype.ko" ]; then
	echo "ok - tptype $kver: handlers of their tracepoints' prototypes build, W=1 clean"
else
	echo "not ok - tptype $kver: handlers of their tracepoints' prototypes build, W=1 clean"
	sed 's/^/# /' "$work/good.log" | tail -n 30
	rc=1
fi

# The wrong build must fail at the static assertion of each tracepoint,
# not for another reason (a missing header, a typo).
if build wrong PCORE_TP_WRONG=1; then
	echo "not ok - tptype $kver: handlers of the wrong prototype built"
	rc=1
else
	for tp in sched_switch irq_handler_entry; do
		if grep -q "static assertion failed: \"tracepoint $tp: " "$work/wrong.log"; then
			echo "ok - tptype $kver: a $tp handler of the wrong prototype is a build error naming $tp"
		else
			echo "not ok - tptype $kver: a $tp handler of the wrong prototype is a build error naming $tp"
			sed 's/^/# /' "$work/wrong.log" | tail -n 30
			rc=1
		fi
	done
fi
exit $rc
