#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/soak.sh [--short] [--no-build] [--results DIR] [KERNEL...]
#
# `make soak`: tests/soak/soak.c in QEMU, one boot per kernel:
#   cycles   load/unload cycles of probe_core (target=do_fork,do_nanosleep,
#            tracepoints=sched_switch,offcpu) and cpuhists under a
#            fork/read workload on both CPUs, readers holding files open;
#   hotplug  CPU 1 offline/online while recording, exact counts after;
#   fuzz     seeded ioctl and debugfs-write fuzz from two processes, then
#            everything unloads and nothing stays registered;
#   leaks    a kmemleak scan (the debug kernel).
# The full form: 1000 cycles, 200 hotplug rounds, 50000 fuzz operations,
# then a second boot with 2000 combinations of the combination fuzzer;
# --short (make check): 100, 20, 5000 (10 cycles on the debug kernel).
# PCORE_SOAK_CYCLES, PCORE_SOAK_HOTPLUG, PCORE_SOAK_FUZZ_OPS and
# PCORE_SOAK_COMBOS override either; PCORE_SEED replays a fuzz run (the seed is printed either way).
#
# KERNEL: cloud-6.1 (Debian's, scripts/kernel.sh) or debug-6.1
# (scripts/debug-kernel.sh, built on first use); default both.
# --no-build uses the modules already in build/<release>/ (make check has
# built them).  TAP of each kernel goes to DIR/soak-<KERNEL>.tap
# (default build/soak-results), then the totals; exit 1 on any failure.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

short=0 build=1 res=$top/build/soak-results
while [ $# -gt 0 ]; do
	case $1 in
	--short) short=1 ;;
	--no-build) build=0 ;;
	--results)
		[ $# -ge 2 ] || exit 2
		res=$2
		shift
		;;
	-*)
		echo "usage: $0 [--short] [--no-build] [--results DIR] [KERNEL...]" >&2
		exit 2
		;;
	*) break ;;
	esac
	shift
done
[ $# -gt 0 ] || set -- cloud-6.1 debug-6.1
seed=${PCORE_SEED:-$(date +%s)}
form=full
[ $short = 0 ] || form=short

# The sizes for kernel $1: cycles, hotplug and ops.
sizes() {
	# The same sizes on both kernels, except the short form's cycles
	# on the debug kernel: 40 of them took 584 s of its 920 beside the
	# debug kernel's main boot, where make check has no time to spare
	# (its pcore_stress runs 12 cycles under load with readers there).
	if [ $short = 0 ]; then
		cycles=1000 hotplug=200 ops=50000
	elif [ "$1" = debug-6.1 ]; then
		cycles=10 hotplug=20 ops=5000
	else
		cycles=100 hotplug=20 ops=5000
	fi
	cycles=${PCORE_SOAK_CYCLES:-$cycles}
	hotplug=${PCORE_SOAK_HOTPLUG:-$hotplug}
	ops=${PCORE_SOAK_FUZZ_OPS:-$ops}
}
mkdir -p "$res"

[ $build = 0 ] || scripts/ksrc.sh "$top/build/ksrc" > /dev/null || exit 1

# One kernel: TAP on stdout.
soak_kernel() {
	local vmlinuz kdir kver payload km timeout mem t0 cycles hotplug ops append

	sizes "$1"
	case $1 in
	debug-6.1)
		read -r vmlinuz kdir _ < <(scripts/debug-kernel.sh) || {
			echo "not ok - soak $1: no debug kernel (scripts/debug-kernel.sh failed)"
			return 1
		}
		kver=$(cat "$kdir/include/config/kernel.release")
		# KASAN, lockdep and kmemleak under emulation: several
		# times slower, more memory.
		timeout=$((900 + cycles * 40 + hotplug * 30 + ops / 10)) mem=2048
		append=${DEBUG_APPEND-no5lvl}	# see scripts/check.sh
		;;
	cloud-6.1)
		read -r vmlinuz kdir < <(scripts/kernel.sh cloud 6.1) || {
			echo "not ok - soak $1: no kernel image with headers"
			return 1
		}
		kver=${kdir##*/linux-headers-}
		timeout=$((300 + cycles * 4 + hotplug * 2 + ops / 50)) mem=1024
		append=
		;;
	*)
		echo "not ok - soak $1: KERNEL is cloud-6.1 or debug-6.1"
		return 1
		;;
	esac
	if [ $build = 1 ]; then
		make -s --no-print-directory KDIR="$kdir" modules \
			> "$res/soak-build-$1.log" 2>&1 || {
			echo "not ok - soak $1: modules for $kver did not build (see $res/soak-build-$1.log)"
			return 1
		}
	fi
	payload=$top/build/soak-payload-$kver
	rm -rf "$payload"
	mkdir -p "$payload/modules"
	for km in core/probe_core cpuhists/cpuhists; do
		cp "build/$kver/modules/$km.ko" "$payload/modules/" || {
			echo "not ok - soak $1: no build/$kver/modules/$km.ko"
			return 1
		}
	done
	# Signed when the kernel trusts a key of ours: nothing taints it.
	if [ -r "$kdir/certs/signing_key.pem" ]; then
		for km in "$payload"/modules/*.ko; do
			"$kdir/scripts/sign-file" sha256 "$kdir/certs/signing_key.pem" \
				"$kdir/certs/signing_key.x509" "$km" || {
				echo "not ok - soak $1: sign-file failed on $km"
				return 1
			}
		done
	fi
	# Built into the payload: make check runs two kernels at once.
	make -s --no-print-directory -C tests/soak KSFT="$top/build/ksrc" \
		O="$payload" > "$res/soak-prog-$1.log" 2>&1 || {
		echo "not ok - soak $1: tests/soak did not build (see $res/soak-prog-$1.log)"
		return 1
	}
	echo "# soak ($form) on $1 ($kver): $cycles cycles, $hotplug hotplug rounds, $ops fuzz operations, PCORE_SEED=$seed"
	t0=$SECONDS
	tests/vm/run.sh --kernel "$vmlinuz" --payload "$payload" \
		--out "$top/build/soak-vm-$kver" --timeout "$timeout" --mem "$mem" \
		--append "$append" -- env PCORE_SOAK_CYCLES="$cycles" PCORE_SOAK_HOTPLUG="$hotplug" \
		PCORE_SOAK_FUZZ_OPS="$ops" PCORE_SEED="$seed" ./soak 2>&1
	local st=$?
	echo "# soak ($form) on $1: the VM ran $((SECONDS - t0)) s (timeout $timeout s)"
	[ $short = 1 ] || combo_boot "$1" || st=1
	return $st
}

# The full form's second boot: the combination fuzzer (tests/selftests/
# pcore_combo.c), PCORE_SOAK_COMBOS combinations (default 2000: about
# 30 s each on the debug kernel, 6 s on cloud-6.1) from the soak's seed.
# make check runs 6 of them on the debug kernel.  Uses soak_kernel's
# variables (bash's dynamic scope).
combo_boot() {
	local combos=${PCORE_SOAK_COMBOS:-2000} hz= per=40

	if [ "${1%%-*}" != debug ]; then
		per=8 hz=4000	# and the full range of profile=
	fi
	mkdir -p "$payload/selftests" "$payload/bin"
	make -s --no-print-directory -C tests/selftests KSFT="$top/build/ksrc" \
		O="$payload/selftests" > "$res/soak-combo-build-$1.log" 2>&1 &&
	make -s --no-print-directory -C userspace O="$top/build/userspace" \
		>> "$res/soak-combo-build-$1.log" 2>&1 &&
	cp "build/$kver/tests/kmods/pcore_apitest/pcore_apitest.ko" "$payload/modules/" &&
	cp build/userspace/probectl "$payload/bin/" &&
	scripts/guest-libs.sh "$payload/rootfs" build/userspace/probectl || {
		echo "not ok - soak $1: the combination fuzzer's payload (see $res/soak-combo-build-$1.log)"
		return 1
	}
	[ ! -r "$kdir/certs/signing_key.pem" ] ||
		"$kdir/scripts/sign-file" sha256 "$kdir/certs/signing_key.pem" \
			"$kdir/certs/signing_key.x509" "$payload/modules/pcore_apitest.ko"
	echo "# soak ($form) on $1: $combos combinations, PCORE_SEED=$seed"
	t0=$SECONDS
	tests/vm/run.sh --kernel "$vmlinuz" --payload "$payload" \
		--out "$top/build/soak-combo-vm-$kver" \
		--timeout $((600 + combos * per)) --mem "$mem" --append "$append" \
		-- env PCORE_SEED="$seed" PCORE_COMBOS="$combos" ${hz:+PCORE_HZ_MAX=$hz} \
		sh selftests/run_tests.sh --no-kmemleak-selftest pcore_combo 2>&1
	local st=$?
	echo "# soak ($form) on $1: the combination fuzzer's VM ran $((SECONDS - t0)) s"
	return $st
}

rc=0
files=()
for k in "$@"; do
	echo "== soak ($form): $k"
	soak_kernel "$k" > "$res/soak-$k.tap" || rc=1
	grep -E '^not ok|^# soak|soak\.c:[0-9]+:' \
		"$res/soak-$k.tap"
	files+=("$res/soak-$k.tap")
done
tests/summarize.sh "${files[@]}" || rc=1
exit $rc
