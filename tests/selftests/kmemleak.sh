#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kmemleak checks between the selftests, where the guest kernel has
# kmemleak (/sys/kernel/debug/kmemleak); elsewhere every command prints
# nothing and exits 0 (no "ok" line for a check that did not run).
#
#   kmemleak.sh start            stop kmemleak's scanning thread, scan,
#                                forget what the kernel's boot left
#                                (clear), print the count in a "# " line
#   kmemleak.sh selftest         prove that the check catches leaks (2 TAP
#                                lines)
#   kmemleak.sh check PREV CUR   after tests CUR, which ran after PREV: one
#                                scan, one TAP line, "not ok" when a new
#                                unreferenced object was allocated by one
#                                of our modules, with kmemleak's report of
#                                each in "# " lines; then clear
#   kmemleak.sh final LAST       unload every module of ours still loaded,
#                                wait and scan twice, judge as check
#
# How kmemleak decides (mm/kmemleak.c of 6.1): a scan reports an object
# only when it is white (no reference found), its checksum did not change
# since the previous scan (a new object's first scan counts as a change,
# unless the object is all zeroes) and it was allocated at least
# MSECS_MIN_AGE (5 s) before the scan started.  "clear" paints what was
# reported gray: never reported again, so each check sees only new ones.
#
# A scan takes about 25 s under KASAN and emulation, so run_tests.sh runs
# one per group of tests (PREV and CUR are groups): a leak of group PREV
# is seen for the first time by the scan after PREV and reported by the
# one after CUR; an all-zero object of CUR can be reported there already.
# The check names both; kmemleak's "comm" line says which task allocated
# it.  At the end, "final" waits out the minimum age and scans twice, so
# the last test's leaks are not missed.  Objects of the kernel itself
# (boot-time false positives, anything not ours) are counted in a comment
# and cleared, never failed.
#
# Which objects are ours: kmemleak prints the allocation backtrace with
# %pS.  A frame in a loaded module reads "func+0x1/0x2 [module]": ours
# when the module is one of /pcore/modules/*.ko.  A frame in a module
# that has been unloaded since (or in a module's init code, freed after
# its load) no longer resolves and is printed as a bare address: ours
# when it lies in the x86-64 module area, above the kernel image (its
# _end in /proc/kallsyms; 0xffffffffc0000000, where modules start under
# KASLR, when kallsyms hides addresses) and below 0xffffffffff000000.
# (The kernel's own freed __init code also prints bare, but inside the
# image: with KASLR the image lies anywhere from 0xffffffff80000000 to the
# module area.)  In this guest only our modules and the kernel's modules
# that tests/selftests/kmods lists (loaded by our tests only) are ever loaded,
# so such a frame comes from one of our tests either way.

KML=/sys/kernel/debug/kmemleak
MODDIR=/pcore/modules
MARK=pcore-kmemleak-selftest

[ -e "$KML" ] || exit 0
# Under lockdown, debugfs refuses files that can be written, kmemleak's
# among them: no check can run (and none is reported as passed).
if ! cat "$KML" > /dev/null 2>&1; then
	[ "${1-}" != start ] ||
		echo "# kmemleak: $KML cannot be read here (lockdown?): no leak checks in this boot"
	exit 0
fi

# "probe_core|cpuhists|..." from the .ko files of the payload.
ours() {
	list=
	for ko in "$MODDIR"/*.ko; do
		[ -e "$ko" ] || continue
		m=${ko##*/}
		list=${list:+$list|}${m%.ko}
	done
	echo "$list"
}

scan() {
	echo scan > "$KML"
}

clear_reported() {
	echo clear > "$KML"
}

# Scans so that what was allocated before this call is judged (see top).
settle() {
	t0=$(cut -d. -f1 /proc/uptime)
	scan
	t1=$(cut -d. -f1 /proc/uptime)
	left=$((6 - (t1 - t0)))
	[ "$left" -le 0 ] || sleep "$left"
	scan
}

# Where the module area starts, as 16 hex digits: past the kernel image.
modules_start() {
	end=$(awk '$3 == "_end" { print $1 }' /proc/kallsyms 2>/dev/null)
	case $end in
	'' | 0000000000000000) echo ffffffffc0000000 ;;
	*) echo "$end" ;;
	esac
}

# Splits the kmemleak file into objects; prints "OURS OTHER" on the first
# line, then the report of each object of ours.
judge() {
	awk -v ours="$(ours)" -v lo="$(modules_start)" '
	function flush() {
		if (obj == "")
			return
		if (mine) {
			n++
			rep = rep obj
		} else {
			other++
		}
		obj = ""
		mine = 0
	}
	/^unreferenced object / { flush(); obj = $0 "\n"; next }
	obj != "" {
		obj = obj $0 "\n"
		if ($0 ~ "\\[(" ours ")\\]$")
			mine = 1
		# A bare address in the module area: an unloaded module.
		# Fixed-width lowercase hex compares as strings.
		if ($0 ~ /^    \[<[0-9a-f]+>\] 0x[0-9a-f]+$/) {
			a = substr($NF, 3)
			if (length(a) == 16 && a > lo && a < "ffffffffff000000")
				mine = 1
		}
	}
	END {
		flush()
		printf "%d %d\n%s", n, other, rep
	}' "$KML"
}

# judge_tap DESC: judges what the last scan reported, one TAP line;
# returns 1 when objects of ours were reported.
judge_tap() {
	out=/tmp/kmemleak.$$
	judge > "$out"
	read -r n other < "$out"
	clear_reported
	if [ "$n" -eq 0 ]; then
		echo "ok - kmemleak $1: no unreferenced object of our modules"
		[ "$other" -eq 0 ] ||
			echo "# kmemleak: $other unreferenced object(s) of the kernel cleared"
		rm -f "$out"
		return 0
	fi
	echo "not ok - kmemleak $1: $n unreferenced object(s) allocated by our modules"
	[ "$other" -eq 0 ] ||
		echo "# kmemleak: and $other of the kernel (not judged)"
	sed '1d; s/^/# /' "$out"
	rm -f "$out"
	return 1
}

# check PREV CUR
check() {
	scan
	if [ -n "$1" ]; then
		judge_tap "after $2: leaks of $1 (or $2)"
	else
		judge_tap "after $2"
	fi
}

# expect DESC N: a check whose right outcome is "caught N objects".
expect_caught() {
	out=/tmp/kmemleak.$$
	settle
	judge > "$out"
	read -r n other < "$out"
	clear_reported
	if [ "$n" -eq "$2" ]; then
		echo "ok - kmemleak check catches $1: $n object(s)"
	else
		echo "not ok - kmemleak check catches $1: $n object(s) of ours, expected $2"
	fi
	sed '1d; s/^/# /' "$out"
	rm -f "$out"
	[ "$n" -eq "$2" ]
}

loaded() {
	[ -d "/sys/module/$1" ]
}

# The check must see a leak of pcore_faultmod: while loaded (leak=1, the
# pointer is hidden and freed at unload) and once unloaded (leak=2, one
# 64-byte object lost for good, then cleared).  Between two kernel log
# lines, for the VM judge: kmemleak's "N new suspected memory leaks" is
# expected there.
selftest() {
	st=0
	echo "$MARK: begin" > /dev/kmsg
	if ! insmod "$MODDIR/probe_core.ko"; then
		echo "not ok - kmemleak check catches leaks: insmod probe_core failed"
		echo "$MARK: end" > /dev/kmsg
		return 1
	fi
	if insmod "$MODDIR/pcore_faultmod.ko" leak=1; then
		expect_caught "a leak of a loaded module (pcore_faultmod leak=1)" 1 || st=1
		rmmod pcore_faultmod || st=1
	else
		echo "not ok - kmemleak check catches a leak of a loaded module: insmod pcore_faultmod leak=1 failed"
		st=1
	fi
	if insmod "$MODDIR/pcore_faultmod.ko" leak=2 && rmmod pcore_faultmod; then
		expect_caught "a leak of an unloaded module (pcore_faultmod leak=2)" 1 || st=1
	else
		echo "not ok - kmemleak check catches a leak of an unloaded module: insmod/rmmod pcore_faultmod leak=2 failed"
		st=1
	fi
	rmmod probe_core || st=1
	echo "$MARK: end" > /dev/kmsg
	return $st
}

# Our modules still loaded, users before probe_core (holders first).
final() {
	st=0
	for pass in 1 2 3; do
		for m in $(ours | tr '|' ' '); do
			loaded "$m" || continue
			[ "$m" = probe_core ] && [ "$pass" -lt 3 ] && continue
			echo "# kmemleak final: $m still loaded after the tests; unloading"
			rmmod "$m" || st=1
		done
	done
	settle
	judge_tap "at the end, every module unloaded: leaks of ${1:-no test}" || st=1
	return $st
}

case $1 in
start)
	# Only the scans of this script: kmemleak's thread scans every
	# 600 s, 25 s each here, and would take its share of the tests' time.
	echo scan=off > "$KML"
	scan
	n=$(judge | head -n 1)
	clear_reported
	echo "# kmemleak: cleared what the boot left (ours other: $n)"
	;;
selftest) selftest ;;
check) check "$2" "$3" ;;
final) final "$2" ;;
*)
	echo "usage: $0 start|selftest|check PREV CUR|final LAST" >&2
	exit 2
	;;
esac
