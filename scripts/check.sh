#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: everything that must hold before a change lands.
#   1. installs what is missing (Debian packages), extracts the kselftest
#      harness and checkpatch from Debian's linux-source;
#   2. runs checkpatch and kernel-doc: each clean run is a passed test;
#   3. host unit tests of the engine, of probectl and of the VM runner's
#      judge of the kernel log; probectl's exports in node_exporter and
#      Prometheus; a fleet of two hosts pushing native histograms to
#      Prometheus (remote write) and the Grafana dashboard's queries on
#      it; probectl's flame graphs in Chromium;
#   4. for each kernel of KERNELS: builds every module with W=1 and
#      sparse, checks that tracepoint handlers of the wrong prototype do
#      not build (tests/tptype/run.sh), boots the kernel in QEMU and
#      runs the selftests;
#   5. the soak's short form (scripts/soak.sh --short) in a boot of its
#      own, on cloud-6.1 and debug-6.1 when KERNELS has them;
#   6. make demo (tests/demo/run.sh), as a new user runs it;
#   7. the Debian packages (tests/deb/run.sh): built, lintian, installed
#      on this machine (DKMS builds for every installed kernel), a boot of
#      one kernel of KERNELS (the first cloud one) that loads the
#      DKMS-built modules with modprobe, purged;
# then prints the totals of each kernel and one last line
# "N passed, N failed", and exits non-zero on any failure.  Results and
# logs: build/results/.
#
# KERNELS: kernels as FLAVOUR-VERSION, default
# "cloud-6.1 cloud-6.12 rt-6.1 rt-6.12 debug-6.1": Debian's kernels
# (PREEMPT_RT is "rt"), and debug-6.1, the project's own debug build of
# Debian's linux-source-6.1 (scripts/debug-kernel.sh: KASAN, lockdep,
# kmemleak, UBSAN, fault injection, signed modules), built once and cached.
# SELFTESTS: only these selftest programs (default: all of them).
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
res=$top/build/results
rm -rf "$res"
mkdir -p "$res"

scripts/deps.sh || exit 1
scripts/ksrc.sh "$top/build/ksrc" || exit 1
ksrc=$top/build/ksrc
KERNELS=${KERNELS:-cloud-6.1 cloud-6.12 rt-6.1 rt-6.12 debug-6.1}

# One TAP line into a results file: tap FILE STATUS DESCRIPTION
tap() {
	if [ "$2" = 0 ]; then
		echo "ok - $3" >> "$res/$1.tap"
	else
		echo "not ok - $3" >> "$res/$1.tap"
	fi
}

# stage TEXT: "== TEXT" with the minutes and seconds since make check began,
# so that CI's log shows where the time goes.
stage() {
	printf '== %s [%d:%02d]\n' "$*" $((SECONDS / 60)) $((SECONDS % 60))
}

# Runs a command, keeps its output as a log; passes when it exits 0 and
# prints nothing on stderr+stdout matching "warning|error".
clean_run() {
	local name=$1 desc=$2 st
	shift 2
	"$@" > "$res/$name.log" 2>&1
	st=$?
	if [ $st = 0 ] && grep -qiE 'warning|error' "$res/$name.log"; then
		st=1
	fi
	tap lint $st "$desc"
	[ $st = 0 ] || sed 's/^/# /' "$res/$name.log" | head -40 >> "$res/lint.tap"
	return $st
}

# Selftest programs do not depend on the kernel: built once, first, with
# probectl, for the debug kernel's lane to start as early as it can.
stage "selftest programs and probectl"
selftests=$top/build/selftests
rm -rf "$selftests"
make -s -j2 --no-print-directory -C tests/selftests KSFT="$ksrc" \
	O="$selftests" > "$res/selftests-build.log" 2>&1
selftests_built=$?
if [ $selftests_built != 0 ]; then
	echo "not ok - selftests not built (see build/results/selftests-build.log)" > "$res/selftests-build.tap"
fi
make -s --no-print-directory -C userspace O="$top/build/userspace" \
	> "$res/probectl-build.log" 2>&1
probectl_built=$?

# The debug kernel's boots run without 5-level paging (QEMU's -cpu max
# offers LA57): once, an interrupt during identify_boot_cpu() made KASAN
# report a wild access in handle_edge_irq() at an LA57 direct-map address
# (ff11...), 15 ms into the boot, before any module.  scripts/soak.sh
# uses the same.  slub_debug=A,perf_event marks the perf_event cache for
# failslab's cache filter (pcore_hotplug fails a CPU's perf event at
# online with it; the cache is then not merged, nothing else changes).
DEBUG_APPEND="no5lvl slub_debug=A,perf_event"
export DEBUG_APPEND

# pick LISTFILE TEST...: the TESTs that LISTFILE names (one per line, #
# comments), on one line.
pick() {
	local list=$1 t
	shift
	list=" $(sed '/^#/d' "$list" 2>/dev/null | xargs) "
	for t in "$@"; do
		case $list in *" $t "*) echo "$t" ;; esac
	done | xargs
}

# The kernels whose main boot runs the tests of tests/selftests/bpftrace
# (with bpftrace's root as its disk): every one.  bpftrace's start, LLVM
# compiling its program under emulation, costs 2 to 40 s a run, so these
# were once on one kernel of each flavour; issue 25 wants run-queue
# latency (pcore_runqlat_bpf, 26 to 41 s on 6.12) checked against
# bpftrace on Debian's 6.1 and 6.12, cloud and RT.  pcore_bpftrace runs
# there too rather than on a list of its own: 13 to 31 s more on 6.12
# (docs/testing.md), for bpftrace's kfunc against probe_core's direct
# calls on 6.12's ftrace, whose direct calls are not 6.1's.
BPFTRACE_KERNELS="cloud-6.1 cloud-6.12 rt-6.1 rt-6.12 debug-6.1"

# check_kernel KERNEL [PHASE]: one kernel's build, payload and VM boots.
# Its results go to files named after its release, *-<release>.tap.
# PHASE: all (the default); main: the build, the payload, the main boot,
# then the threadirqs and the two lockdown boots; extra: the faultinject
# boot of the payload that a main phase made.
check_kernel() {
	local vmlinuz kdir kver built readme_ko payload all tirq plain exports
	local want km moddir modroot vm_timeout vm_mem vm_append t0 list lock integ
	local fault combo bpft bpft_here disk
	local phase=${2:-all} klog=$res/debug-kernel${2:+-$2}.log

	if [ "${1%%-*}" = debug ]; then
		# Built on first use (tens of minutes on 2 cores), then cached.
		t0=$SECONDS
		stage "$1: debug kernel (scripts/debug-kernel.sh)"
		if [ "${1#*-}" != 6.1 ] ||
		   ! read -r vmlinuz kdir modroot < <(scripts/debug-kernel.sh 2> "$klog"); then
			sed 's/^/# /' "$klog" > "$res/kernel-$1${2:+-$2}.tap"
			echo "not ok - kernel $1: the debug kernel did not build (only debug-6.1 exists)" >> "$res/kernel-$1${2:+-$2}.tap"
			return
		fi
		cat "$klog"
		echo "debug kernel ready after $((SECONDS - t0)) s"
		kver=$(cat "$kdir/include/config/kernel.release")
		moddir=$modroot/lib/modules/$kver
		# KASAN, lockdep and SLUB debugging under emulation: the same
		# work takes several times as long and needs more memory.
		vm_timeout=3600 vm_mem=2048
		vm_append=$DEBUG_APPEND
	else
		if ! read -r vmlinuz kdir < <(scripts/kernel.sh "${1%%-*}" "${1#*-}"); then
			echo "not ok - kernel $1: no image with headers installed" > "$res/kernel-$1.tap"
			return
		fi
		kver=${kdir##*/linux-headers-}
		moddir=/lib/modules/$kver
		vm_timeout=1500 vm_mem=1024 vm_append=
	fi

	payload=$top/build/payload-$kver
	if [ "$phase" = extra ]; then
		if [ ! -e "$payload/.ready" ]; then
			echo "not ok - $1: no payload for its other boots (its main phase failed: see build/results)" > "$res/kernel-$1-extra.tap"
			return
		fi
		boots "$1" extra
		return
	fi

	stage "$1: build ($kver)"
	rm -rf "build/$kver"
	clean_run "build-$kver" "make W=1 C=1 for $kver: no warnings" \
		make --no-print-directory KDIR="$kdir" W=1 C=1 modules
	built=$?
	readme_ko=$top/build/readme-ko-$kver
	rm -rf "$readme_ko"
	# The steps below run make modules again (install-dev, install):
	# with the W and C of the build above (our Makefile passes them on
	# to kbuild's command line), kbuild finds every object current; with
	# others it would build them all once more.  The docs' handler module,
	# modules/examples/readlat, is built out of tree as users build it,
	# with its own Makefile's W=1 (kbuild takes C from its command line
	# only).
	[ $built != 0 ] ||
	W=1 C=1 clean_run "readme-$kver" "handler module readlat (modules/examples/readlat) builds out of tree for $kver, W=1 clean" \
		scripts/readme-module.sh "$kdir" "$readme_ko"
	# Typed tracepoint handlers: a wrong prototype is a build error.
	[ $built != 0 ] ||
	tests/tptype/run.sh "$kdir" > "$res/tptype-$kver.tap" 2>&1
	[ $built != 0 ] || [ $probectl_built != 0 ] ||
	W=1 C=1 clean_run "install-$kver" "make install and make uninstall for $kver" \
		tests/install/run.sh "$kdir" "$moddir"
	if [ $built != 0 ] || [ $selftests_built != 0 ]; then
		echo "not ok - selftests for $kver not run: nothing to run (see build/results)" > "$res/vm-$kver.tap"
		return
	fi

	stage "$1: selftests in QEMU ($kver)"
	rm -rf "$payload"
	mkdir -p "$payload/modules/kernel"
	cp -r "$selftests" "$payload/selftests"
	# pcore_uprobe's workload is linked dynamically: its libraries too.
	scripts/guest-libs.sh "$payload/rootfs" "$selftests/uwork"
	find "build/$kver/modules" "build/$kver/tests/kmods" "$readme_ko" \
		-name '*.ko' -exec cp {} "$payload/modules/" \; 2>/dev/null
	# Kernel modules some tests load (null_blk...), from the image:
	# as they are, or decompressed (6.12's Debian packages ship .ko.xz,
	# and finit_module() of a plain .ko works on every kernel).  One
	# built into this kernel has no file and is skipped: the test that
	# needs it finds it there.
	sed '/^#/d' tests/selftests/kmods | while read -r km; do
		[ -n "$km" ] || continue
		src=$moddir/kernel/$km dst=$payload/modules/kernel/${km##*/}
		if [ -f "$src" ]; then
			cp "$src" "$dst"
		elif [ -f "$src.xz" ]; then
			xz -dc "$src.xz" > "$dst"
		elif [ -f "$src.zst" ]; then
			zstd -qdc "$src.zst" > "$dst"
		elif ! grep -qx "kernel/$km" "$moddir/modules.builtin"; then
			echo "check.sh: $km: not in $kver's modules" >&2
		fi
	done
	# probectl in the guest: the program in /pcore/bin, its shared
	# libraries at their own paths, and our modules installed under
	# /lib/modules/<release>/extra with depmod's indexes, so that
	# "probectl load" works without --module as on a real machine.
	if [ $probectl_built = 0 ]; then
		mkdir -p "$payload/bin" "$payload/rootfs/lib/modules/$kver/extra" \
			"$payload/systemd"
		cp build/userspace/probectl /usr/bin/jq "$payload/bin/"
		# pcore_probectl runs what the exporter's service runs
		cp userspace/systemd/probectl-export.service "$payload/systemd/"
		# probectl opens libkmod when it loads or unloads (dlopen)
		scripts/guest-libs.sh "$payload/rootfs" build/userspace/probectl \
			/usr/bin/jq "$(ldconfig -p |
				awk '$1 == "libkmod.so.2" && /x86-64/ { print $NF; exit }')"
		find "build/$kver/modules" "build/$kver/tests/kmods" -name '*.ko' \
			-exec cp {} "$payload/rootfs/lib/modules/$kver/extra/" \;
		cp "$moddir"/modules.builtin* "$moddir"/modules.order \
			"$payload/rootfs/lib/modules/$kver/"
		depmod -b "$payload/rootfs" "$kver" >> "$res/probectl-build.log" 2>&1
	else
		echo "not ok - probectl not built (see build/results/probectl-build.log)" > "$res/probectl-build.tap"
	fi
	# A kernel that trusts a key of ours (the debug kernel) gets every
	# module signed with it, so that nothing taints the kernel and the
	# lockdown boot below can load them; one unsigned copy of probe_core
	# stays, for the lockdown test to be refused.
	if [ -r "$kdir/certs/signing_key.pem" ] && [ -r "$kdir/certs/signing_key.x509" ]; then
		mkdir -p "$payload/modules/unsigned"
		cp "build/$kver/modules/core/probe_core.ko" "$payload/modules/unsigned/"
		find "$payload/modules" "$payload/rootfs" -path '*/unsigned' -prune -o \
			-name '*.ko' -print 2>/dev/null | {
			n=0 bad=0
			while read -r km; do
				if "$kdir/scripts/sign-file" sha256 \
					"$kdir/certs/signing_key.pem" \
					"$kdir/certs/signing_key.x509" "$km"; then
					n=$((n + 1))
				else
					bad=1
					echo "# sign-file failed on $km"
				fi
			done
			[ $bad = 0 ] && [ $n -gt 0 ] && echo -n "ok" || echo -n "not ok"
			echo " - $n modules signed with $kver's build-time key"
		} > "$res/sign-$kver.tap" 2>&1
	fi
	touch "$payload/.ready"
	boots "$1" "$phase"
}

# boots KERNEL PHASE: the VM boots of check_kernel, whose variables they
# use (bash's dynamic scope): faultinject's unless PHASE is main, the
# others unless it is extra.
boots() {
	# Which boot runs which test:
	#   tests/selftests/threadirqs  a second boot with "threadirqs";
	#   tests/selftests/faultinject a boot of its own, only on kernels with fault
	#                         injection (fail-nth, failslab, fail_page_alloc);
	#   tests/selftests/lockdown    a boot with "lockdown=confidentiality", only
	#                         kernels that trust our signing key;
	#   tests/selftests/integrity   a boot with "lockdown=integrity" (Secure
	#                         Boot's), the same kernels;
	#   tests/selftests/combo       the combination fuzzer, a boot of its own
	#                         after faultinject's, on the debug kernel only;
	#   tests/selftests/bpftrace    the main boot, with bpftrace's root on a
	#                         virtio disk, on the kernels of BPFTRACE_KERNELS only;
	#   every other test      the main boot.
	all=$(cd "$payload/selftests" && ls pcore_*)
	[ -z "${SELFTESTS:-}" ] || all=$(for t in $all; do
		case " $SELFTESTS " in *" $t "*) echo "$t" ;; esac; done)
	tirq=$(pick tests/selftests/threadirqs $all)
	fault=$(pick tests/selftests/faultinject $all)
	lock=$(pick tests/selftests/lockdown $all)
	integ=$(pick tests/selftests/integrity $all)
	combo=$(pick tests/selftests/combo $all)
	bpft=$(pick tests/selftests/bpftrace $all)
	case " $BPFTRACE_KERNELS " in *" $1 "*) bpft_here= ;; *) bpft_here=$bpft ;; esac
	plain=$(for t in $all; do
		case " $tirq $fault $lock $integ $combo $bpft_here " in *" $t "*) ;; *) echo "$t" ;; esac
	done | xargs)
	[ "${1%%-*}" = debug ] || combo=
	grep -qx CONFIG_FAULT_INJECTION_DEBUG_FS=y "$kdir/.config" &&
		grep -qx CONFIG_FAILSLAB=y "$kdir/.config" || fault=
	[ -e "$payload/modules/unsigned" ] || lock= integ=
	case $2 in
	main) fault="" combo="" ;;
	extra) tirq="" lock="" integ="" ;;
	esac
	# (run_tests.sh with no test names would run every one)
	disk=()
	[ "$2" = extra ] || [ -n "$bpft_here" ] || [ -z "$bpft" ] ||
		bpftrace_disk "$1"
	[ "$2" = extra ] || [ -z "$plain" ] || boot_main "$1"
	[ -z "$fault$tirq$lock$integ$combo" ] || stage "$1: its other boots in QEMU ($kver)"
	extra_boot faultinject "" $fault	# loads with the N-th allocation failing
	extra_boot combo "" $combo		# the combination fuzzer
	extra_boot threadirqs threadirqs $tirq
	extra_boot lockdown lockdown=confidentiality $lock
	extra_boot integrity lockdown=integrity $integ
}

# bpftrace_disk KERNEL: for boots()' main boot, bpftrace's root
# (scripts/bpf-root.sh --bpftrace: built once, a minute or two on a fresh
# machine, then cached; one image for every kernel) as its disk (the array
# disk), and into the payload the kernel's modules that mounting it needs
# (bpfmods/, loaded in the order of bpfmods/order; none where they are
# built in).  A root that cannot be built gives no disk and its reason to
# the payload (bpfroot.why): the tests that need it fail with it.
bpftrace_disk() {
	local img t0=$SECONDS dir
	stage "$1: bpftrace's root (scripts/bpf-root.sh --bpftrace)"
	rm -rf "$payload/bpfmods" "$payload/bpfroot.why"
	if ! img=$(scripts/bpf-root.sh --bpftrace 2> "$res/bpf-root-$kver.log"); then
		cat "$res/bpf-root-$kver.log"
		tail -n 1 "$res/bpf-root-$kver.log" > "$payload/bpfroot.why"
		[ -s "$payload/bpfroot.why" ] ||
			echo "scripts/bpf-root.sh --bpftrace failed" > "$payload/bpfroot.why"
		return
	fi
	echo "  $img ready after $((SECONDS - t0)) s"
	# crc32c is ext4's soft dependency (its checksums).
	dir=${moddir%/lib/modules/"$kver"}
	scripts/guest-mods.sh "${dir:-/}" "$kver" "$payload/bpfmods" \
		virtio_pci virtio_blk crc32c ext4 2>> "$res/bpf-root-$kver.log"
	disk=(--disk "$img")
}

# boot_main KERNEL: boots()' main boot, every test of no other boot, with
# boots()' disk, if any.
boot_main() {
	tests/vm/run.sh --kernel "$vmlinuz" --payload "$payload" \
		--out "$top/build/vm-$kver" --timeout "$vm_timeout" \
		--mem "$vm_mem" --append "$vm_append" ${disk[@]+"${disk[@]}"} \
		-- sh selftests/run_tests.sh $plain \
		> "$res/vm-$kver.tap" 2>&1
	promtool_check "$kver" "$plain"
	browser_check "$kver" "$plain"
}

# extra_boot NAME APPEND TEST...: one more boot of boots()' kernel with
# APPEND on the command line, running TESTs (none: no boot); its TAP goes
# to vm-<release>-NAME.tap.
extra_boot() {
	local name=$1 append=$2
	shift 2
	[ $# -gt 0 ] || return 0
	tests/vm/run.sh --kernel "$vmlinuz" --payload "$payload" \
		--out "$top/build/vm-$kver-$name" --timeout "$vm_timeout" \
		--mem "$vm_mem" --append "$vm_append${append:+ $append}" \
		-- sh selftests/run_tests.sh --no-kmemleak-selftest "$@" \
		> "$res/vm-$kver-$name.tap" 2>&1
}

# guest_files RELEASE DIR: the files the guest of RELEASE printed between
# markers (# PCORE-FILE-BEGIN NAME, # PCORE-FILE-END) into DIR, made anew.
guest_files() {
	rm -rf "$2"
	mkdir -p "$2"
	awk -v dir="$2" '
		/^# PCORE-FILE-BEGIN / { f = dir "/" $3; next }
		/^# PCORE-FILE-END/ { close(f); f = ""; next }
		f != "" { print > f }
	' "$res/vm-$1.tap"
}

# promtool_check RELEASE TESTS: the guest printed probectl's Prometheus
# exports between markers; promtool (48 MB, not in the guest) checks them.
promtool_check() {
	local kver=$1 exports want
	case " $2 " in *" pcore_probectl "*) ;; *) return 0 ;; esac
	exports=$top/build/vm-$kver/exports
	guest_files "$kver" "$exports"
	for want in export.prom export-percpu.prom export-service-a.prom \
		export-service-b.prom export-service-c.prom; do
		if [ -s "$exports/$want" ] &&
		   promtool check metrics < "$exports/$want" > "$exports/$want.log" 2>&1; then
			echo "ok - promtool check metrics: probectl $want from the guest ($kver)"
		else
			echo "not ok - promtool check metrics: probectl $want from the guest ($kver)"
			sed 's/^/# /' "$exports/$want.log" 2>/dev/null | head -20
		fi
	done > "$res/promtool-$kver.tap"
}

# browser_file TESTS TEST FILE WHAT: when TEST is one of TESTS, FILE goes
# to browser_check's files if the guest printed it, else a failure says
# the guest WHAT.
browser_file() {
	case " $1 " in *" $2 "*) ;; *) return 0 ;; esac
	if [ -s "$3" ]; then
		files+=("$3")
	else
		echo "not ok - the guest $4 for the browser tests ($kver)"
	fi
}

# browser_check RELEASE TESTS: on the cloud kernels, what the guest drew
# for the browser tests: the folded stacks pcore_stacks printed and the
# profile with user stacks pcore_ustack printed (probectl's flame graph of
# each in Chromium, and speedscope) and the heatmap SVG
# pcore_probectl printed (in Chromium, whose screenshot of it stays as
# build/browser-RELEASE/heatmap.png: the user guide's docs/heatmap.png).
browser_check() {
	local kver=$1 dir=$top/build/vm-$1/files files=()
	case $kver in *-cloud-*) ;; *) return 0 ;; esac
	case " $2 " in
	*" pcore_stacks "* | *" pcore_probectl "* | *" pcore_ustack "*) ;;
	*) return 0 ;;
	esac
	guest_files "$kver" "$dir"
	{
		browser_file "$2" pcore_stacks "$dir/stacks.folded" \
			"printed no folded stacks"
		browser_file "$2" pcore_ustack "$dir/ustack-profile.folded" \
			"printed no profile with user stacks"
		browser_file "$2" pcore_probectl "$dir/heatmap.svg" \
			"drew no heatmap"
		[ ${#files[@]} = 0 ] ||
			PROBECTL=$top/build/userspace/probectl tests/browser/run.sh \
				"$top/build/browser-$kver" "${files[@]}" 2> "$dir/browser.log"
	} > "$res/browser-$kver.tap"
}

# The soak's short form on cloud-6.1 and debug-6.1 (scripts/soak.sh).
soak_short() {
	case $1 in
	cloud-6.1 | debug-6.1)
		stage "$1: soak, short form"
		scripts/soak.sh --short --no-build --results "$res" "$1" \
			> "$res/soak-$1.log" 2>&1
		grep -h '^# soak (short) on' "$res/soak-$1.tap"
		;;
	esac
}

# Two lanes.  QEMU's TCG runs a guest on one host thread, so one boot
# leaves the second core idle.  The debug kernel's build and boots (the
# longest: its main boot runs the whole suite under KASAN, with kmemleak
# scans, then threadirqs and both lockdowns, then its short soak) run in the
# background from the start, right after the selftest programs are built.
# The foreground runs lint and the host tests, the Debian kernels, their
# soak, the Debian packages, then the debug kernel's fault-injection boot
# (pcore_fault and pcore_fault_load, 12 min in the last full run), so
# that both lanes end at about the same time (49 min in that run).  The
# debug kernel itself is built first, alone, on every core (a fresh
# machine only; later runs find it cached).
lanes=
# A payload's .ready tells the fault-injection boot that its lane made
# it: one left by an earlier, interrupted run must not.
rm -f "$top"/build/payload-*/.ready
for k in $KERNELS; do
	case $k in
	debug-*)
		stage "$k: debug kernel (scripts/debug-kernel.sh; built once, then cached)"
		t0=$SECONDS
		scripts/debug-kernel.sh > /dev/null 2> "$res/debug-kernel-$k.log"
		sed 's/^/  /' "$res/debug-kernel-$k.log"
		echo "  ready after $((SECONDS - t0)) s; its build, boots and soak run in the background"
		{
			check_kernel "$k" main
			soak_short "$k"
		} > "$res/lane-$k.log" 2>&1 &
		lanes="$lanes $!"
		;;
	esac
done
stage "lint"
mapfile -t csrc < <(git ls-files '*.c' '*.h')
# Version tests are allowed in the compat header only: checked below.
clean_run checkpatch "checkpatch clean" \
	perl "$ksrc/checkpatch.pl" --no-tree --quiet --show-types \
	--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG,LINUX_VERSION_CODE,CONSTANT_COMPARISON \
	-f "${csrc[@]}"
clean_run compat "kernel version tests only in include/probe_core/compat.h" \
	sh -c '! git grep -nE "LINUX_VERSION_CODE|KERNEL_VERSION\(" -- "*.c" "*.h" ":!include/probe_core/compat.h" | sed "s/^/error: /" | grep .'
clean_run apidoc "docs/api.rst is current (make docs)" \
	sh -c 'scripts/api-doc.sh "$1/kernel-doc" "$2" && diff -u docs/api.rst "$2" | sed "s/^/error: /"' \
	sh "$ksrc" "$res/api.rst"
# README.md and docs/*.md: relative links, images and #anchors resolve;
# listings of files (readlat) are those files.
clean_run doclinks "docs: every relative link and #anchor of README.md and docs/*.md resolves, listings are the tree's files" \
	scripts/doclinks.sh
mapfile -t ksrcs < <(git ls-files 'modules/*.c' 'modules/*.h' 'tests/kmods/*.c' \
	'tests/kmods/*.h' 'include/*.h')
clean_run kerneldoc "kernel-doc clean" \
	perl "$ksrc/kernel-doc" -none "${ksrcs[@]}"
# The layering of modules/core (docs/design.md, "Layering"): its objects, compiled
# for the first Debian kernel of KERNELS into build/callgraph/ (only
# modules/core's .o files, no linking; kept between runs, so only what
# changed is compiled again).
cg_kdir=
for k in $KERNELS; do
	case $k in debug-*) continue ;; esac
	read -r _ cg_kdir < <(scripts/kernel.sh "${k%%-*}" "${k#*-}" 2> /dev/null) &&
		break
done
[ -n "$cg_kdir" ] || cg_kdir=$(scripts/kdir.sh 2> /dev/null)
clean_run callgraph "modules/core: no call cycles between files" \
	scripts/callgraph.sh --build "$cg_kdir"

stage "host unit tests"
make -s --no-print-directory -C tests/host KSFT="$ksrc" O="$top/build/host" \
	run > "$res/host.tap" 2> "$res/host.log" ||
	grep -q '^not ok' "$res/host.tap" ||
	echo "not ok - host unit tests did not run (see build/results/host.log)" >> "$res/host.tap"

stage "judge of the guest kernel log"
tests/judge/run.sh "$top/build/judge" > "$res/judge.tap" 2> "$res/judge.log" ||
	grep -q '^not ok' "$res/judge.tap" ||
	echo "not ok - judge tests did not run (see build/results/judge.log)" >> "$res/judge.tap"

stage "probectl"
make -s --no-print-directory -C tests/userspace KSFT="$ksrc" \
	O="$top/build/userspace" run > "$res/userspace.tap" 2> "$res/userspace.log" ||
	grep -q '^not ok' "$res/userspace.tap" ||
	echo "not ok - probectl tests did not run (see build/results/userspace.log)" >> "$res/userspace.tap"

# What the probectl tests exported around resets and a reload, served by
# Debian's node_exporter and scraped by Debian's Prometheus on loopback.
stage "probectl's exports in node_exporter and Prometheus"
tests/prometheus/run.sh "$top/build/prometheus" \
	"$top"/build/userspace/export-{before-resets,after-resets,after-reload}.prom \
	> "$res/prometheus.tap" 2> "$res/prometheus.log" ||
	grep -q '^not ok' "$res/prometheus.tap" ||
	echo "not ok - prometheus tests did not run (see build/results/prometheus.log)" >> "$res/prometheus.tap"

# A fleet of two hosts (fake devices with known values, probectl's code)
# pushing native histograms with remote write to Debian's Prometheus, and
# the same data as classic textfiles through node_exporter; the Grafana
# dashboard's queries against it.
stage "a fleet in Prometheus: remote write, native histograms, the dashboard"
tests/prometheus/fleet.sh "$top/build/prometheus-fleet" \
	"$top/build/userspace/fleet_feed" docs/grafana/probe_core.json \
	> "$res/fleet.tap" 2> "$res/fleet.log" ||
	grep -q '^not ok' "$res/fleet.tap" ||
	echo "not ok - fleet tests did not run (see build/results/fleet.log)" >> "$res/fleet.tap"

# probectl flamegraph's SVGs in Chromium and folded stacks in speedscope,
# with the probectl that the step above built.
stage "flame graphs in a browser"
PROBECTL=$top/build/userspace/probectl tests/browser/run.sh "$top/build/browser" \
	> "$res/browser.tap" 2> "$res/browser.log" ||
	grep -q '^not ok' "$res/browser.tap" ||
	echo "not ok - browser tests did not run (see build/results/browser.log)" >> "$res/browser.tap"

for k in $KERNELS; do
	case $k in
	debug-*) ;;
	*-*) check_kernel "$k" ;;
	*) echo "not ok - KERNELS: '$k' is not FLAVOUR-VERSION" > "$res/kernel-$k.tap" ;;
	esac
done

# make demo, as the README tells a new user to run it (its own boot of
# Debian's 6.1 cloud kernel, 20 s).
stage "make demo"
tests/demo/run.sh "$top/build/demo-test" > "$res/demo.tap" 2> "$res/demo.log" ||
	grep -q '^not ok' "$res/demo.tap" ||
	echo "not ok - demo tests did not run (see build/results/demo.log)" >> "$res/demo.tap"

# The soak's short form (make soak runs the full one): a boot of its own
# on the kernels it knows, after check_kernel built their modules.
for k in $KERNELS; do
	case $k in debug-*) ;; *) soak_short "$k" ;; esac
done

# The Debian packages, as lab machines install them: DKMS builds for every
# installed kernel; one boot, of the first cloud kernel of KERNELS (else
# its first Debian kernel).
deb_boot=
for k in $KERNELS; do
	case $k in cloud-*) deb_boot=$k && break ;; esac
done
for k in $KERNELS; do
	[ -z "$deb_boot" ] || break
	case $k in debug-*) ;; *-*) deb_boot=$k ;; esac
done
if [ -n "$deb_boot" ]; then
	stage "Debian packages (boot: $deb_boot)"
	t0=$SECONDS
	tests/deb/run.sh "${deb_boot%%-*}" "${deb_boot#*-}" > "$res/deb.tap" 2>&1
	grep '^# deb: build' "$res/deb.tap"
	echo "  $((SECONDS - t0)) s"
fi

for k in $KERNELS; do
	case $k in
	debug-*)
		# Its fault-injection boot needs the payload its lane made.
		for i in $(seq 3600); do
			if ls "$top"/build/payload-*-pcore-debug/.ready ||
			   ls "$res"/vm-*-pcore-debug.tap; then
				break
			fi > /dev/null 2>&1
			sleep 1
		done
		check_kernel "$k" extra
		;;
	esac
done

if [ -n "$lanes" ]; then
	stage "waiting for the debug kernel's boots"
	# shellcheck disable=SC2086 # a list of pids
	wait $lanes
	cat "$res"/lane-*.log
fi

stage "summary"
# Per kernel first (its build, readme and VM results), then the total.
for f in "$res"/vm-*.tap; do
	[ -e "$f" ] || continue
	case $f in *-threadirqs.tap | *-lockdown.tap | *-integrity.tap | *-faultinject.tap | *-combo.tap) continue ;; esac
	kver=${f##*/vm-}
	kver=${kver%.tap}
	echo "$kver: $(cat "$res/vm-$kver.tap" "$res/vm-$kver-threadirqs.tap" \
		"$res/vm-$kver-lockdown.tap" "$res/vm-$kver-integrity.tap" \
		"$res/vm-$kver-faultinject.tap" "$res/vm-$kver-combo.tap" \
		"$res/sign-$kver.tap" "$res/browser-$kver.tap" \
		"$res/promtool-$kver.tap" 2>/dev/null |
		awk '/^ok .*#[ \t]*[Ss][Kk][Ii][Pp]/ { s++; next } /^ok /{ p++ } /^not ok /{ f++ }
			END { printf "%d passed, %d failed, %d skipped", p, f, s }') in the guest"
done
tests/summarize.sh "$res"/*.tap
