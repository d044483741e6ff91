#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench's instruction counts: what a probe costs, in guest
# instructions per probed call, on Debian's 6.1 cloud kernel under QEMU
# (TCG).  Times under emulation drift from boot to boot; instruction
# counts do not.
#
# insn_count (bench/insn/insn_count.c), a QEMU TCG plugin, counts the
# instructions each vCPU executes and prints the count whenever the vCPU
# executes a marker instruction.  insn_load, pinned to CPU 1, brackets N
# calls of a system call with two markers, REPS times.  In one boot, each
# row of the table below attaches its probe to the function the call
# goes through, runs insn_load, checks that the probe saw the calls, and
# detaches: reference kprobes and kretprobes (bench/insn/kmods),
# probe_core's target= with each histogram kind, ftrace's hist
# triggers, and bpftrace and BCC from a Debian root on a virtio disk,
# when scripts/bpf-root.sh can build it.  A row's cost is its median
# instructions per call minus that of the row without a probe; its spread
# is the difference between its largest and smallest batch.  CPU 1 runs with nohz_full, so that timer
# ticks rarely land in a batch.  The clocksource is the TSC
# (tsc=reliable), as on real machines: under TCG the kernel finds the
# vCPUs' TSCs out of sync and would fall back to the HPET, whose reads
# take about 34 more instructions each, two per timed call.  Before the
# rows, a loop of known length checks the plugin's count.
#
# Usage: [BENCH_KERNEL=6.12] [BENCH_BPF=0] [BENCH_ROWS="KEY ..."]
#	scripts/bench-insn.sh [OUTDIR]
# (default build/bench-insn; Debian's 6.1 cloud kernel unless BENCH_KERNEL
# names another version; BENCH_BPF=0 leaves out the bpftrace and BCC rows;
# BENCH_ROWS keeps only the rows of those keys, ROWS below, and the
# baseline and references: none, kprobe, kretprobe, uprobe, uretprobe,
# sw, offcpu)
# Exits non-zero, its last line on stderr saying why, when anything
# cannot be built or measured; it prints no number that it did not
# measure.  A row that fails (its probe does not attach, fires less than
# it must, or costs nothing) is printed as FAILED with the reason, the
# other rows as measured, and the script exits 1 after the table.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/bench-insn}
# Absolute: the payload's builds run in other directories (make -C).
mkdir -p "$out" && out=$(cd "$out" && pwd)
cd "$top"

# Calls per batch (a row may ask for more) and batches per row and call.
N=2000
REPS=5
CPU=1

# The calls, and the function each one's probes are attached to: two
# system calls and their kernel functions, and insn_ufunc(), a function of
# insn_load itself, for the user-space probes.
# pingpong: a wakeup and a context switch (a round trip of a byte with a
# child on the same CPU is two of each), for the scheduler's tracepoints.
# nest8, nest16: getppid() from 8 or 16 nested calls of a function of
# insn_load_fp (insn_load built with frame pointers): user stacks of a
# known depth (12 and 20 frames: the ip, the nested calls' return
# addresses, then loop_nest's, main's and __libc_start_call_main's, whose
# rbp, libc's, is no frame), for the probes that walk them.
CALLS="getppid:__x64_sys_getppid read:vfs_read ufunc:insn_ufunc pingpong:sched_switch nest8:__x64_sys_getppid nest16:__x64_sys_getppid"

# The rows: key|label|attach|hits|detach|calls|batch|need.  In the guest,
# in /pcore, $fn is the probed function; attach and detach are shell
# commands that place and remove the probe; hits, when not empty, prints
# the number of times the probe fired, which must be at least need, an
# arithmetic expression of the guest's shell over $batch and $reps (by
# default the calls made, batch x reps).  The commands may use the
# guest's helpers (pcore_hits, pcore_direct_hits, pcore_cpu_hits,
# pcore_reset, ftrace_count, ftrace_lat and btf_fn, in insn.sh below),
# and for user-space probes $bin and $off, insn_load's file and
# insn_ufunc's offset in it.  calls is "user" for a row of the ufunc call
# only, "sched" for the pingpong call only (the references of its block are
# the rows sw and offcpu, probe_core's tracepoints=sched_switch and
# offcpu), "nest" for the nest8 and nest16 calls (the references of
# their blocks are kprobe and kretprobe, which so run there too), "all"
# for every call, empty for the system calls getppid and read, a list
# with commas for the calls of each ("," for the system calls and the
# nest calls), "bpf" for the
# system calls with a tool of the Debian root on the guest's disk
# (bpftrace and BCC: bpf_start below).  Without that
# root (scripts/bpf-root.sh), the "bpf" rows are left out and the table's
# last line says why.  They come last: rows that ran after them in the
# same boot counted differently (a uretprobe 39 instructions fewer);
# the kfunc and kretfunc rows (BPF trampolines) come after the older
# bpf rows, which so run as before.  probe_core's rows without a
# mechanism= measure the default (auto: direct calls, checked by
# pcore_direct_hits), the mechanism=kprobe rows its kprobes.
# batch is the calls per batch, N when empty.  A profiler fires by time,
# not per call: at 99 Hz once in 10 ms of guest time, while N getppid()
# calls take about 1.6 ms (profile=999's samples said so), so most of a
# row's N-call batches held no sample, its median was the baseline's,
# 0.0, and the check that it fired stopped the table (or, exempted,
# checked nothing).  Its rows run batches of 100000 calls, 50 times
# longer, each several of its periods even on a fast host, and count
# the samples of the measured CPU: at least one per batch.  A row whose
# probe keeps a user stack also prints, in the guest's output, how many
# user frames the most counted stack has (ustack_depth, insn-ustack
# lines): the depth the row's walk went, which its cost depends on.
# A row that does not fire as needed, does not attach or costs nothing
# is printed as FAILED with the reason; the others are still measured
# and printed, and the script then exits 1.
# The ratios are to the rows with keys kprobe and kretprobe, or
# uprobe and uretprobe for ufunc, sw and offcpu for pingpong; "none" is
# the baseline.  Add rows here.
# shellcheck disable=SC2016 # $fn is the guest's, expanded there
ROWS='none|no probe|:||:|all
kprobe|kprobe, empty handler|insmod kmods/insn_kprobe.ko symbol=$fn||rmmod insn_kprobe|,nest
kretprobe|kretprobe reference (stamp, log2 add)|insmod kmods/insn_kretprobe.ko symbol=$fn|cat /sys/module/insn_kretprobe/parameters/calls|rmmod insn_kretprobe|,nest
direct-ref|ftrace direct call, C this_cpu_inc() (reference)|insmod kmods/insn_direct.ko symbol=$fn|cat /sys/module/insn_direct/parameters/calls|rmmod insn_direct
pcore|probe_core target= (loglinear)|insmod modules/probe_core.ko target=$fn|pcore_direct_hits|rmmod probe_core
pcore-log2|probe_core target= hist=log2|insmod modules/probe_core.ko target=$fn hist=log2|pcore_direct_hits|rmmod probe_core
pcore-linear|probe_core target= hist=linear:0,100000,100|insmod modules/probe_core.ko target=$fn hist=linear:0,100000,100|pcore_direct_hits|rmmod probe_core
pcore-exp|probe_core target= hist=exp (schema 4)|insmod modules/probe_core.ko target=$fn hist=exp|pcore_direct_hits|rmmod probe_core
pcore-kprobe|probe_core target= mechanism=kprobe (kretprobe)|insmod modules/probe_core.ko target=$fn mechanism=kprobe|pcore_kprobe_hits|rmmod probe_core
pcore-count|probe_core target=F:count|insmod modules/probe_core.ko target=$fn:count|pcore_direct_hits :count|rmmod probe_core
pcore-count-kprobe|probe_core target=F:count mechanism=kprobe (counting kprobe)|insmod modules/probe_core.ko target=$fn:count mechanism=kprobe|pcore_kprobe_hits :count|rmmod probe_core
pcore-count-other|target=F:count pid=1 (every call filtered out)|insmod modules/probe_core.ko target=$fn:count pid=1||rmmod probe_core
pcore-by-pid|probe_core target=F:by=pid (latency by process)|insmod modules/probe_core.ko target=$fn:by=pid|pcore_direct_hits :by=pid|rmmod probe_core
pcore-by-pid-kprobe|probe_core target=F:by=pid mechanism=kprobe|insmod modules/probe_core.ko target=$fn:by=pid mechanism=kprobe|pcore_kprobe_hits :by=pid|rmmod probe_core
pcore-arg|probe_core target=F:arg1 (log2)|insmod modules/probe_core.ko target=$fn:arg1|pcore_direct_hits :arg1|rmmod probe_core
pcore-arg-kprobe|probe_core target=F:arg1 mechanism=kprobe|insmod modules/probe_core.ko target=$fn:arg1 mechanism=kprobe|pcore_kprobe_hits :arg1|rmmod probe_core
pcore-retval|probe_core target=F:retval (log2)|insmod modules/probe_core.ko target=$fn:retval|pcore_direct_hits :retval|rmmod probe_core
pcore-retval-kprobe|probe_core target=F:retval mechanism=kprobe|insmod modules/probe_core.ko target=$fn:retval mechanism=kprobe|pcore_kprobe_hits :retval|rmmod probe_core
pcore-glob|probe_core target=*F (glob)|insmod modules/probe_core.ko "target=*${fn#__x64_}"|pcore_direct_hits_of "*${fn#__x64_}"|rmmod probe_core
pcore-glob-count|probe_core target=*F:count (glob, counting)|insmod modules/probe_core.ko "target=*${fn#__x64_}:count"|pcore_direct_hits_of "*${fn#__x64_}:count"|rmmod probe_core
pcore-glob-kprobe|probe_core target=*F mechanism=kprobe (glob; fprobe where the kernel has it)|insmod modules/probe_core.ko "target=*${fn#__x64_}" mechanism=kprobe|pcore_probe_hits "*${fn#__x64_}"|rmmod probe_core
pcore-glob-count-kprobe|probe_core target=*F:count mechanism=kprobe (glob, counting)|insmod modules/probe_core.ko "target=*${fn#__x64_}:count" mechanism=kprobe|pcore_probe_hits "*${fn#__x64_}:count"|rmmod probe_core
pcore-graph|probe_core target=F:graph (kretprobes on F and each direct callee)|insmod modules/probe_core.ko target=$fn:graph|pcore_kprobe_hits :graph|rmmod probe_core
pcore-stacks|probe_core stacks=F (count by kernel stack, depth 32)|insmod modules/probe_core.ko stacks=$fn|pcore_hits :stacks|rmmod probe_core|,nest
pcore-stacks-ustack|probe_core stacks=F ustack=1 (kernel and user stack, process; depth 32)|insmod modules/probe_core.ko stacks=$fn ustack=1|pcore_hits :stacks:ustack && ustack_depth "$fn:stacks:ustack"|rmmod probe_core|,nest
pcore-profile-99|probe_core profile=99 (every CPU sampled; per call, amortized)|insmod modules/probe_core.ko profile=99 && pcore_reset profile|pcore_cpu_hits profile|rmmod probe_core||100000|reps
pcore-profile-999|probe_core profile=999 (every CPU sampled; per call, amortized)|insmod modules/probe_core.ko profile=999 && pcore_reset profile|pcore_cpu_hits profile|rmmod probe_core||100000|reps
pcore-profile-999-ustack|probe_core profile=999 ustack=1 (with user stacks; per call, amortized)|insmod modules/probe_core.ko profile=999 ustack=1 && pcore_reset profile|pcore_cpu_hits profile|rmmod probe_core||100000|reps
pcore-profile-999-comm|probe_core profile=999 comm=insn_load (its samples kept; amortized)|insmod modules/probe_core.ko profile=999 comm=insn_load && pcore_reset profile|pcore_cpu_hits profile|rmmod probe_core||100000|reps
pcore-profile-999-pid1|probe_core profile=999 pid=1 (every sample filtered out; amortized)|insmod modules/probe_core.ko profile=999 pid=1||rmmod probe_core||100000
pcore-profile-999-nokthreads|probe_core profile=999 kthreads=0 (amortized)|insmod modules/probe_core.ko profile=999 kthreads=0 && pcore_reset profile|pcore_cpu_hits profile|rmmod probe_core||100000|reps
tp-ref|tracepoint reference: sys_enter, counts|insmod kmods/insn_tp_ref.ko|cat /sys/module/insn_tp_ref/parameters/calls|rmmod insn_tp_ref
pcore-tp|probe_core API tracepoint handler: sys_enter, counts|insmod modules/probe_core.ko && insmod kmods/insn_tp_pcore.ko|pcore_tp_hits|rmmod insn_tp_pcore && rmmod probe_core
ftrace-count|ftrace hist trigger, keys=common_pid|ftrace_count attach|ftrace_count hits|ftrace_count detach
ftrace-lat|ftrace latency hist (synthetic event), log2|ftrace_lat attach|ftrace_lat hits|ftrace_lat detach
sw|probe_core tracepoints=sched_switch (a CPU timer)|insmod modules/probe_core.ko tracepoints=sched_switch|pcore_probe_hits sched_switch|rmmod probe_core|sched
offcpu|probe_core tracepoints=offcpu (task timer, stack)|insmod modules/probe_core.ko tracepoints=offcpu|pcore_probe_hits offcpu|rmmod probe_core|sched
offcpu-ustack|probe_core tracepoints=offcpu ustack=1 (user stack, process)|insmod modules/probe_core.ko tracepoints=offcpu ustack=1|pcore_probe_hits offcpu && ustack_depth offcpu|rmmod probe_core|sched
offcpu-comm|probe_core tracepoints=offcpu comm=insn_load (every wait kept)|insmod modules/probe_core.ko tracepoints=offcpu comm=insn_load|pcore_probe_hits offcpu|rmmod probe_core|sched
offcpu-pid1|probe_core tracepoints=offcpu pid=1 (every wait filtered out)|insmod modules/probe_core.ko tracepoints=offcpu pid=1|pcore_probe_hits offcpu|rmmod probe_core|sched
offcpu-nokthreads|probe_core tracepoints=offcpu kthreads=0 (every wait kept)|insmod modules/probe_core.ko tracepoints=offcpu kthreads=0|pcore_probe_hits offcpu|rmmod probe_core|sched
runqlat|probe_core tracepoints=runqlat (3 tracepoints, task timer)|insmod modules/probe_core.ko tracepoints=runqlat|pcore_probe_hits runqlat.wakeup|rmmod probe_core|sched
runqlat-pid|probe_core tracepoints=runqlat:by=pid|insmod modules/probe_core.ko tracepoints=runqlat:by=pid|pcore_probe_hits runqlat:by=pid.wakeup|rmmod probe_core|sched
uprobe|uprobe, empty handler|insmod kmods/insn_uprobe.ko path=$bin offset=$off|cat /sys/module/insn_uprobe/parameters/calls|rmmod insn_uprobe|user
uretprobe|uretprobe, empty handlers|insmod kmods/insn_uprobe.ko path=$bin offset=$off ret=1|cat /sys/module/insn_uprobe/parameters/calls|rmmod insn_uprobe|user
pcore-ucount|probe_core uprobe :count|insmod modules/probe_core.ko && bin/insn_attach $fn:count $bin $off|pcore_hits :count|rmmod probe_core|user
pcore-ustacks|probe_core uprobe :stacks (user stack, process)|insmod modules/probe_core.ko && bin/insn_attach $fn:stacks $bin $off|pcore_hits :stacks && ustack_depth "$fn:stacks"|rmmod probe_core|user
pcore-uarg|probe_core uprobe :arg1 (log2)|insmod modules/probe_core.ko && bin/insn_attach $fn:arg1 $bin $off|pcore_hits :arg1|rmmod probe_core|user
pcore-uret|probe_core uretprobe (latency, loglinear)|insmod modules/probe_core.ko && bin/insn_attach $fn $bin $off|pcore_hits|rmmod probe_core|user
bpftrace-count|bpftrace count() (kprobe)|bpf_start 1 bpftrace -e "kprobe:$fn { @ = count(); }"|bpf_stop; bpf_count|bpf_stop|bpf
bpftrace-lat|bpftrace hist() latency (kprobe+kretprobe)|bpf_start 2 bpftrace -e "kprobe:$fn { @s[tid] = nsecs; } kretprobe:$fn /@s[tid]/ { @ = hist(nsecs - @s[tid]); delete(@s[tid]); }"|bpf_stop; bpf_hist|bpf_stop|bpf
bcc-funclatency|BCC funclatency-bpfcc F (log2 latency)|bpf_start 2 funclatency-bpfcc $fn|bpf_stop; bpf_funclatency|bpf_stop|bpf
bpftrace-runqlat|bpftrace runqlat.bt (3 tracepoints, as shipped)|bpf_start perf:3 bpftrace /usr/sbin/runqlat.bt|bpf_stop; bpf_hist|bpf_stop|bpfsched
bcc-runqlat|BCC runqlat-bpfcc (raw tracepoints)|bpf_start rawtp:3 runqlat-bpfcc|bpf_stop; bpf_funclatency|bpf_stop|bpfsched
bpftrace-kfunc|bpftrace count() (kfunc: fentry trampoline)|bpf_start links:1 bpftrace -e "kfunc:$(btf_fn) { @ = count(); }"|bpf_stop; bpf_count|bpf_stop|bpf
bpftrace-kretfunc|bpftrace count() (kretfunc: fexit trampoline)|bpf_start links:1 bpftrace -e "kretfunc:$(btf_fn) { @ = count(); }"|bpf_stop; bpf_count|bpf_stop|bpf
bpftrace-kfunc-lat|bpftrace hist() latency (kfunc+kretfunc)|bpf_start links:2 bpftrace -e "kfunc:$(btf_fn) { @s[tid] = nsecs; } kretfunc:$(btf_fn) /@s[tid]/ { @ = hist(nsecs - @s[tid]); delete(@s[tid]); }"|bpf_stop; bpf_hist|bpf_stop|bpf'

die() {
	echo "bench-insn: $*" >&2
	exit 1
}

# QEMU splits option values on commas; a literal comma is written twice.
qesc() {
	printf '%s' "${1//,/,,}"
}

# BENCH_KERNEL=6.12: Debian's 6.12 cloud kernel instead, which has fprobe
# (the glob row's one fprobe; on 6.1, a kretprobe per function).
bver=${BENCH_KERNEL:-6.1}
kpair=$(scripts/kernel.sh cloud "$bver") || die "no Debian $bver cloud kernel (scripts/deps.sh)"
read -r vmlinuz kdir <<<"$kpair"
kver=${kdir##*/linux-headers-}
hdr=$(scripts/qemu-plugin-h.sh) ||
	die "cannot get QEMU's plugin header qemu-plugin.h (the lines above say why)"
rm -rf "$out"
mkdir -p "$out/payload/modules" "$out/payload/kmods" "$out/payload/bin"
if ! make -s --no-print-directory KDIR="$kdir" modules >"$out/build.log" 2>&1; then
	die "the modules did not build; see $out/build.log"
fi
if ! make --no-print-directory -C bench/insn O="$out/build" \
	QEMU_PLUGIN_H="$hdr" KDIR="$kdir" \
	PCORE_SYMVERS="$top/build/$kver/Module.symvers" >>"$out/build.log" 2>&1 ||
	grep -q 'warning:' "$out/build.log"; then
	die "the plugin, the workload or the reference modules did not build cleanly; see $out/build.log"
fi

cp "build/$kver/modules/core/probe_core.ko" "$out/payload/modules/"
cp "$out/build/kmods/"*.ko "$out/payload/kmods/"
cp "$out/build/insn_load" "$out/build/insn_load_fp" "$out/build/insn_attach" \
	"$out/payload/bin/"
# insn_ufunc's offset in insn_load: its address, less the address of the
# executable segment that holds it, plus that segment's file offset.
ufunc=$(nm "$out/build/insn_load" | awk '$3 == "insn_ufunc" { print $1 }')
[ -n "$ufunc" ] || die "no insn_ufunc in insn_load"
a=$((16#$ufunc))
readelf -lW "$out/build/insn_load" |
	while read -r type off va _ size _ flags; do
		# flags: "R E 0x1000" for the executable segment
		if [ "$type" = LOAD ] && [[ $flags == *E* ]] &&
			[ "$a" -ge $((va)) ] && [ "$a" -lt $((va + size)) ]; then
			printf '%#x\n' $((a - va + off))
		fi
	done >"$out/payload/ufunc_offset"
[ -s "$out/payload/ufunc_offset" ] || die "insn_ufunc is in no executable segment of insn_load"
# The bpf rows' Debian root, an ext4 image the guest mounts from a
# virtio disk (scripts/bpf-root.sh), and the modules of that disk, when
# they can be had; else the rows are left out, and bpf_why says why.
bpf_img='' bpf_why='' qbpf=()
if [ "${BENCH_BPF:-1}" = 0 ]; then
	bpf_why="BENCH_BPF=0"
elif bpf_img=$(scripts/bpf-root.sh "$kver" 2>"$out/bpf-root.log"); then
	scripts/guest-mods.sh / "$kver" "$out/payload/bpfmods" virtio_pci virtio_blk
	qbpf=(--disk "$bpf_img")
else
	bpf_why=$(tail -n 1 "$out/bpf-root.log")
	: "${bpf_why:=scripts/bpf-root.sh failed}"
fi
if [ -n "${BENCH_ROWS:-}" ]; then
	for k in $BENCH_ROWS; do
		printf '%s\n' "$ROWS" | cut -d'|' -f1 | grep -qxF -- "$k" ||
			die "BENCH_ROWS: no row $k"
	done
	ROWS=$(printf '%s\n' "$ROWS" |
		awk -F'|' -v keep="none kprobe kretprobe uprobe uretprobe sw offcpu $BENCH_ROWS" '
		BEGIN { n = split(keep, k, " "); for (i = 1; i <= n; i++) want[k[i]] = 1 }
		$1 in want')
fi
if [ -n "$bpf_why" ]; then
	ROWS=$(printf '%s\n' "$ROWS" | awk -F'|' '$6 != "bpf" && $6 != "bpfsched"')
fi
printf '%s\n' "$ROWS" >"$out/payload/rows"
cat >"$out/payload/insn.sh" <<'EOF'
# Runs in the guest: sh insn.sh N REPS CPU CALLS
set -eu
n=$1 reps=$2 cpu=$3 calls=$4
bin=/pcore/bin/insn_load
off=$(cat ufunc_offset)

# The hits of insn_tp_pcore's sys_enter handler.
pcore_tp_hits() {
	awk '$1 == "insn_tp_pcore/sys_enter" { print $4 }' /sys/kernel/debug/probe_core/probes
}

# The hits of the probe named $1.  A glob row matches *sys_getppid:
# ftrace lists one name of each function, and __x64_sys_getppid is an
# alias of __do_sys_getppid.
pcore_probe_hits() {
	awk -v p="$1" '$1 == p { print $4 }' /sys/kernel/debug/probe_core/probes
}

# probe_core's hits on the probe named $fn, or $fn$1 (a target's suffix).
pcore_hits() {
	pcore_probe_hits "$fn${1:-}"
}

# pcore_hits of a row of the default mechanism (auto), if its probe is a
# direct call (kind direct, direct-ret or direct-funcs in probes); else
# nothing, and
# the row fails rather than measure a kprobe under its label.
pcore_direct_hits() {
	pcore_direct_hits_of "$fn${1:-}"
}

# The same for the probe named $1 (a glob's).
pcore_direct_hits_of() {
	awk -v p="$1" '$1 == p && $2 ~ /^direct/ { print $4 }' \
		/sys/kernel/debug/probe_core/probes
}

# pcore_hits of a mechanism=kprobe row, if its probe is a kprobe or a
# kretprobe; else nothing, and the row fails.
pcore_kprobe_hits() {
	awk -v p="$fn${1:-}" '$1 == p && $2 ~ /^k(ret)?probe$/ { print $4 }' \
		/sys/kernel/debug/probe_core/probes
}

# To stderr (the guest's output), for a row whose stacks have a user
# stack: the user frames ([u] lines) of histogram $1's most counted stack.
ustack_depth() {
	awk -v h="$1" -v row="$key $call" '
		function done() { if (c > best) { best = c; bu = u } }
		$1 == "stack" { done(); c = $4; u = 0; next }
		$1 == "[u]" { u++ }
		END { done(); printf "insn-ustack %s: %d user frames in the most counted stack of %s (count %d)\n", row, bu, h, best }
	' "/sys/kernel/debug/probe_core/$1/stacks" >&2
}

# Resets probe_core's histogram $1.
pcore_reset() {
	echo 1 >"/sys/kernel/debug/probe_core/$1/reset"
}

# The counts of probe_core's histogram $1 on the measured CPU, all keys:
# a profiler's samples there since its reset, insn_load's and those of
# the idle CPU just before and after it.
pcore_cpu_hits() {
	awk -v c="cpu$cpu" '$1 == c { n += $3 } END { print n + 0 }' \
		"/sys/kernel/debug/probe_core/$1/percpu"
}

# ftrace's equivalents, through tracefs: attach, hits or detach.
t=/sys/kernel/debug/tracing
hist_hits() {
	sed -n 's/^ *Hits: //p' "$1"
}
# A kprobe event on $fn whose hist trigger counts the calls per pid.
ftrace_count() {
	ev=$t/events/kprobes/insn_entry
	case $1 in
	attach)
		echo "p:insn_entry $fn" >>$t/kprobe_events
		echo 'hist:keys=common_pid' >>$ev/trigger ;;
	hits) hist_hits $ev/hist ;;
	detach)
		echo '!hist:keys=common_pid' >>$ev/trigger
		echo '-:insn_entry' >>$t/kprobe_events ;;
	esac
}
# Each call's time in a log2 histogram: a kprobe and a kretprobe event
# on $fn, the entry's timestamp saved per pid, and at the return a
# synthetic event that carries the difference to a hist trigger.
ftrace_lat() {
	entry=$t/events/kprobes/insn_entry
	ret=$t/events/kprobes/insn_exit
	lat=$t/events/synthetic/insn_lat
	on_entry='hist:keys=common_pid:ts0=common_timestamp'
	# $ts0 and $lat are the hist triggers' variables, not the shell's.
	# shellcheck disable=SC2016
	on_exit='hist:keys=common_pid:lat=common_timestamp-$ts0:onmatch(kprobes.insn_entry).trace(insn_lat,$lat)'
	case $1 in
	attach)
		echo "p:insn_entry $fn" >>$t/kprobe_events
		echo "r:insn_exit $fn" >>$t/kprobe_events
		echo 'insn_lat u64 lat' >>$t/synthetic_events
		echo "$on_entry" >>$entry/trigger
		echo "$on_exit" >>$ret/trigger
		echo 'hist:keys=lat.log2' >>$lat/trigger ;;
	hits) hist_hits $lat/hist ;;
	detach)
		echo '!hist:keys=lat.log2' >>$lat/trigger
		echo "!$on_exit" >>$ret/trigger
		echo "!$on_entry" >>$entry/trigger
		echo '!insn_lat u64 lat' >>$t/synthetic_events
		echo '-:insn_exit' >>$t/kprobe_events
		echo '-:insn_entry' >>$t/kprobe_events ;;
	esac
}

# The bpf rows: tools of the Debian root on the virtio disk
# (scripts/bpf-root.sh), mounted at /bpf with the kernel's file systems
# and run there in a chroot.  The disk's modules first, if any.
bpf=/bpf
bpf_setup() {
	while read -r m; do
		insmod "bpfmods/$m"
	done <bpfmods/order
	s=0
	while [ ! -b /dev/vda ]; do
		s=$((s + 1))
		if [ $s -gt 30 ]; then
			echo "insn-bench: no /dev/vda, the bpf rows' disk"
			exit 1
		fi
		sleep 1
	done
	mkdir -p $bpf
	mount -t ext4 /dev/vda $bpf
	mount -t proc proc $bpf/proc
	mount -t sysfs sysfs $bpf/sys
	mount -t devtmpfs devtmpfs $bpf/dev
	mount -t debugfs debugfs $bpf/sys/kernel/debug
	mount -t tracefs tracefs $bpf/sys/kernel/tracing
	mount -t bpf bpf $bpf/sys/fs/bpf
	mount -t tmpfs tmpfs $bpf/tmp
	mount -t tmpfs tmpfs $bpf/run
}
# The enabled kprobes (all of them with "all"): the rows before a bpf row
# have removed theirs, so these are the tool's.  They are not matched by
# name: the list names each by the first symbol at its address, and
# __x64_sys_getppid's is __do_sys_getppid.
bpf_probes() {
	awk -v all="${1:-}" 'all || !/DISABLED/ { n++ } END { print n + 0 }' \
		/sys/kernel/debug/kprobes/list
}
# The functions whose ftrace site makes a direct call (ftrace's list of
# the sites it has patched shows "direct-->" and the trampoline): a BPF
# trampoline's, for kfunc (fentry) and kretfunc (fexit) probes, one per
# function whatever its programs.
bpf_directs() {
	grep -c 'direct-->' $t/enabled_functions || :
}
# The BPF tracing links the tool holds, one per kfunc or kretfunc
# program, each made once its program is on the function's trampoline.
# The trampoline alone does not say that all are: bpftrace attaches a
# kfunc and a kretfunc program one after the other.
bpf_links() {
	cat /proc/"$bpf_pid"/fdinfo/* 2>/dev/null | grep -c '^link_type:.*tracing' || :
}
# Are the tool's $np kprobes enabled, or with links:N its N programs on
# a trampoline?
# The tracepoints the tool's programs are on: bpftrace 0.17 attaches a
# tracepoint program to a perf event (an anon_inode:[perf_event] file),
# beside one perf event per CPU for its output: those beyond one per CPU;
# BCC's raw tracepoints are BPF links.
bpf_tps() {
	n=$(ls -l /proc/"$bpf_pid"/fd 2>/dev/null | grep -c 'perf_event' || :)
	echo $((n - $(nproc)))
}
bpf_rawtps() {
	cat /proc/"$bpf_pid"/fdinfo/* 2>/dev/null | grep -c '^link_type:.*raw_tracepoint' || :
}
bpf_attached() {
	case $np in
	links:*) [ "$(bpf_links)" -ge "${np#links:}" ] ;;
	perf:*) [ "$(bpf_tps)" -ge "${np#perf:}" ] ;;
	rawtp:*) [ "$(bpf_rawtps)" -ge "${np#rawtp:}" ] ;;
	*) [ "$(bpf_probes)" -ge "$np" ] ;;
	esac
}
# The state of process $1 (R, S, D, Z...), empty once it is gone.
proc_state() {
	sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null || :
}
# The name of $fn in the kernel's BTF, which kfunc and kretfunc probes
# are attached by: SYSCALL_DEFINE0's __x64_sys_getppid is an alias of
# __do_sys_getppid, which BTF names (the same code: the same calls).
# Only right for system calls without arguments, whose __x64_sys_ is
# such an alias.
btf_fn() {
	case $fn in
	__x64_sys_*) echo "__do_sys_${fn#__x64_sys_}" ;;
	*) echo "$fn" ;;
	esac
}
# Starts the tool "$@" in the chroot, in the background, its output in
# /tmp/bpf.out, and returns once $1 kprobes are enabled, or with $1
# links:N its N kfunc and kretfunc programs attached: bpftrace and BCC
# compile their programs with LLVM first, which takes from ten seconds to
# minutes under TCG, depending on the host's load.  A background job of a shell starts with SIGINT
# ignored; the chroot's python3 gives it the default action back and
# executes the tool, so that SIGINT (bpf_stop) makes the tool print its
# maps or histogram and exit.  A tool that exits or does not attach in
# 20 minutes fails its row (it is killed), and the next row runs.
bpf_start() {
	np=$1
	shift
	if [ "$(bpf_probes all)" -ne 0 ] || [ "$(bpf_directs)" -ne 0 ]; then
		echo "insn-bench: kprobes or direct calls left before $1 starts:" >&2
		cat /sys/kernel/debug/kprobes/list $t/enabled_functions >&2
		exit 1
	fi
	chroot $bpf /usr/bin/env PATH=/usr/sbin:/usr/bin \
		/usr/bin/python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@" >/tmp/bpf.out 2>&1 &
	bpf_pid=$!
	s=0
	while ! bpf_attached; do
		if ! kill -0 "$bpf_pid" 2>/dev/null || [ $s -ge 1200 ]; then
			echo "insn-bench: $1 did not attach to $fn in $s s:" >&2
			kill "$bpf_pid" 2>/dev/null || :
			wait "$bpf_pid" || :
			bpf_pid=
			cat /tmp/bpf.out >&2
			return 1
		fi
		s=$((s + 1))
		sleep 1
	done
	echo "bpf: $1 attached to $fn after $s s"
}
# Stops the tool with SIGINT and waits for its exit and the removal of
# its kprobes and direct calls.  Its messages go to stderr: a row's hits
# command calls it with stdout to a file.  The SIGINT is sent again
# every 10 s: bpftrace 0.17 sat in epoll_wait() after one 4 times in
# 107 stops (3 in 71 of the kfunc and kretfunc rows, 1 in 36 of the
# kprobe rows), the SIGINT some 0.1 s after its programs were attached:
# it seems to lose a signal that comes before it waits.  The last two
# times, the second SIGINT made it print its count and exit.  A tool still there 5 minutes
# after the first is shown (state, kernel stack) and killed, and its
# output emptied: its row fails, and the next runs.
bpf_stop() {
	[ -n "${bpf_pid:-}" ] || return 0
	kill -INT "$bpf_pid"
	s=0
	while [ -n "$(proc_state "$bpf_pid")" ] &&
		[ "$(proc_state "$bpf_pid")" != Z ]; do
		if [ $s -gt 0 ] && [ $((s % 10)) -eq 0 ] && [ $s -lt 300 ]; then
			echo "insn-bench: $bpf_pid still there $s s after SIGINT: SIGINT again" >&2
			kill -INT "$bpf_pid" || :
		fi
		if [ $s -ge 300 ]; then
			echo "insn-bench: $bpf_pid still there $s s after SIGINT:" >&2
			grep -E '^(Name|State)' "/proc/$bpf_pid/status" >&2 || :
			cat "/proc/$bpf_pid/stack" >&2 || :
			cat /tmp/bpf.out >&2
			kill -KILL "$bpf_pid" || :
			: >/tmp/bpf.out
			break
		fi
		s=$((s + 1))
		sleep 1
	done
	rc=0
	wait "$bpf_pid" || rc=$?
	[ $s -lt 300 ] || rc=0
	bpf_pid=
	s=0
	while [ "$(bpf_probes all)" -gt 0 ] || [ "$(bpf_directs)" -gt 0 ]; do
		if [ $s -ge 300 ]; then
			echo "insn-bench: kprobes or direct calls left $s s after the tool exited:" >&2
			cat /sys/kernel/debug/kprobes/list $t/enabled_functions >&2
			exit 1
		fi
		s=$((s + 1))
		sleep 1
	done
	if [ $rc -ne 0 ]; then
		echo "insn-bench: the tool exited $rc:" >&2
		cat /tmp/bpf.out >&2
		exit 1
	fi
}
# The calls a stopped tool saw: bpftrace's count() map (@: N), the sum of
# its hist() map's buckets ([lo, hi) N |@@@|), the sum of funclatency's
# buckets (lo -> hi : N |***|).
bpf_count() {
	awk '$1 == "@:" { print $2 }' /tmp/bpf.out
}
bpf_hist() {
	awk '/^\[/ { sub(/^\[[^])]*[])]/, ""); n += $1 } END { print n + 0 }' /tmp/bpf.out
}
bpf_funclatency() {
	awk -F: '/->/ { split($2, a, " "); n += a[1] } END { print n + 0 }' /tmp/bpf.out
}
[ ! -f bpfmods/order ] || bpf_setup

echo "nohz_full: $(cat /sys/devices/system/cpu/nohz_full)"
echo "clocksource: $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
# The plugin's check first: no probe, no call, a loop of known length.
echo "insn-row check check - $n plugin check"
insn_load check "$n" "$reps" "$cpu"
# A row that fails (does not attach, or fires less than it must) is
# told to the host in one line, insn-fail|key|call|fn|label|why, and the
# next row runs.  A detach that fails stops the boot: the rows after it
# would measure its probe too.
while IFS='|' read -r key label attach hits detach where batch need; do
	batch=${batch:-$n}
	need=$((${need:-batch * reps}))
	for c in $calls; do
		call=${c%%:*} fn=${c#*:}
		# where: a word, or words with commas ("" is one)
		ws=$where, ok=
		while [ -n "$ws" ]; do
			w=${ws%%,*} ws=${ws#*,}
			case $w:$call in
			all:*|user:ufunc|sched:pingpong|bpfsched:pingpong|:getppid|:read|bpf:getppid|bpf:read|nest:nest*) ok=1 ;;
			esac
		done
		[ -n "$ok" ] || continue
		# the nest calls: insn_load built with frame pointers
		load=insn_load
		case $call in nest*) load=insn_load_fp ;; esac
		if ! eval "$attach"; then
			echo "insn-fail|$key|$call|$fn|$label|did not attach"
			eval "$detach" || :
			continue
		fi
		echo "insn-row $key $call $fn $batch $label"
		t0=$(cut -d' ' -f1 /proc/uptime)
		"$load" "$call" "$batch" "$reps" "$cpu"
		if [ -n "$hits" ]; then
			t1=$(cut -d' ' -f1 /proc/uptime)
			# In this shell, not in $(...): bpf_stop waits for its tool.
			eval "$hits" >/tmp/hits
			h=$(cat /tmp/hits)
			case $h in
			''|*[!0-9]*)
				echo "insn-fail|$key|$call|$fn|$label|its hits are not a number: '$h'"
				;;
			*)
				echo "insn-hits $key $call: $h, at least $need, in $t0 to $t1 s"
				if [ "$h" -lt "$need" ]; then
					echo "insn-fail|$key|$call|$fn|$label|fired $h times, less than $need"
				fi ;;
			esac
		fi
		eval "$detach"
	done
done <rows
EOF

plugin_log=$out/insn_count.log
# The bpf rows start six tools that compile with LLVM in the guest.
vm_timeout=900
[ -z "$bpf_img" ] || vm_timeout=3600
t0=$SECONDS
if ! tests/vm/run.sh --kernel "$vmlinuz" --payload "$out/payload" \
	--out "$out/vm" --timeout "$vm_timeout" \
	--append "nohz_full=$CPU isolcpus=$CPU rcu_nocbs=$CPU tsc=reliable" \
	--qemu-arg -plugin \
	--qemu-arg "$(qesc "$out/build/insn_count.so"),out=$(qesc "$plugin_log")" \
	${qbpf[@]+"${qbpf[@]}"} \
	-- sh insn.sh "$N" "$REPS" "$CPU" "$CALLS" >"$out/output.log" 2>&1; then
	cat "$out/output.log" >&2
	die "the VM run failed; see $out/output.log and $out/vm/"
fi
secs=$((SECONDS - t0))

# Pair the plugin's markers (start, end) with the rows, REPS pairs each,
# in order; one line per row and call: "row", key call fn, its calls per
# batch, the median, smallest and largest instructions of its batches,
# label; and the guest's insn-fail lines as they are.
if ! awk -v reps="$REPS" -v cpu="$CPU" '
	function fail(msg) { print "bench-insn: " msg > "/dev/stderr"; bad = 1; exit 1 }
	FNR == NR {
		if ($1 == "insn_count" && $2 ~ /^vcpu=/) {
			k++
			split($2, a, "="); vcpu[k] = a[2]
			split($3, a, "="); id[k] = a[2]
			split($4, a, "="); cnt[k] = a[2]
		}
		next
	}
	/^insn-fail\|/ {
		print
		next
	}
	$1 == "insn-row" {
		rows++
		for (r = 1; r <= reps; r++) {
			s = ++used; e = ++used
			if (e > k)
				fail("the plugin printed " k " markers, fewer than the rows need")
			if (id[s] != 0 || id[e] != 1 || vcpu[s] != cpu || vcpu[e] != cpu)
				fail("markers " s " and " e ": ids " id[s] "," id[e] " on vCPUs " vcpu[s] "," vcpu[e] "; expected 0,1 on " cpu)
			v[r] = cnt[e] - cnt[s]
		}
		for (i = 2; i <= reps; i++)
			for (j = i; j > 1 && v[j - 1] > v[j]; j--) {
				t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
			}
		med = reps % 2 ? v[(reps + 1) / 2] : (v[reps / 2] + v[reps / 2 + 1]) / 2
		label = $0
		sub(/^insn-row [^ ]+ [^ ]+ [^ ]+ [^ ]+ /, "", label)
		printf "row %s %s %s %d %.1f %d %d %s\n", $2, $3, $4, $5, med, v[1], v[reps], label
	}
	END {
		if (bad)
			exit 1
		if (!rows)
			fail("the guest ran no row")
		if (used != k)
			fail("the plugin printed " k " markers, the rows used " used)
	}' "$plugin_log" "$out/output.log" >"$out/results"; then
	die "cannot pair the plugin's counts with the rows; see $plugin_log and $out/output.log"
fi

# The table, one block per call, after the plugin's check: N iterations
# of a dec/jnz loop must count 2 x N, plus the few instructions of the
# call around the loop.  A row that failed in the guest, or costs
# nothing (its probe did not fire), is printed as FAILED and why; the
# awk then exits 3, after the whole table (1 or 2: no table).
printf '\ninstructions per probed call in the VM (%s, TCG, one boot, %s s):\n' "$kver" "$secs"
rc=0
awk -v n="$N" -v reps="$REPS" '
	function fail(msg) { print "bench-insn: " msg > "/dev/stderr"; bad = 1; exit 1 }
	# Adds a row to its call block the first time it is seen.
	function add(call, key, f, label) {
		if (!(call in seen)) {
			seen[call] = 1; calls[++ncalls] = call; fn[call] = f
		}
		if (!((call, key) in known)) {
			known[call, key] = 1
			i = ++nrows[call]
			rk[call, i] = key; rl[call, i] = label
		}
	}
	# The first reason a row failed is the one shown.
	function failed(call, key, why) {
		if (!((call, key) in whyf)) {
			whyf[call, key] = why
			nfailed++
			failures = failures (failures ? "; " : "") key " on " call "(): " why
		}
	}
	$1 == "row" && $2 == "check" {
		extra = $6 - 2 * n
		if ($5 != n || extra < 1 || extra > 20 || $8 - $7 > 20)
			fail("plugin check: " $5 " iterations of a 2-instruction loop counted " $7 " to " $8 " instructions")
		printf "%s calls x %s batches per row, median; spread: largest - smallest batch\n", n, reps
		printf "plugin check: %d iterations of a 2-instruction loop: 2 x %d + %d instructions (spread %d)\n",
			n, n, extra, $8 - $7
		checked = 1
		next
	}
	$1 == "row" {
		key = $2; call = $3
		label = $0
		sub(/^row [^ ]+ [^ ]+ [^ ]+ [^ ]+ [^ ]+ [^ ]+ [^ ]+ /, "", label)
		add(call, key, $4, label)
		med[call, key] = $6 / $5; spread[call, key] = ($8 - $7) / $5
		if ($5 != n)
			batch[call, key] = $5
		next
	}
	/^insn-fail\|/ {
		split($0, f, "|")
		why = $0
		for (j = 0; j < 5; j++)
			why = substr(why, index(why, "|") + 1)
		add(f[3], f[2], f[4], f[5])
		failed(f[3], f[2], why)
		next
	}
	END {
		if (bad)
			exit 1
		if (!checked)
			fail("no plugin check in the results")
		for (c = 1; c <= ncalls; c++) {
			call = calls[c]
			if (!((call, "none") in med) || ((call, "none") in whyf)) {
				printf "\n%s(), probes on %s: FAILED, no baseline (the row none)\n",
					call, fn[call]
				failed(call, "none", "no baseline")
				continue
			}
			base = med[call, "none"]
			# References: the bare probes of the same kind; a ratio
			# to one that failed or is missing is shown as "-".
			re = call == "ufunc" ? "uprobe" : call == "pingpong" ? "sw" : "kprobe"
			rr = call == "ufunc" ? "uretprobe" : call == "pingpong" ? "offcpu" : "kretprobe"
			kp = kr = 0
			if (((call, re) in med) && !((call, re) in whyf))
				kp = med[call, re] - base
			else if (!((call, re) in known))
				failed(call, re, "the reference row is needed")
			if (((call, rr) in med) && !((call, rr) in whyf))
				kr = med[call, rr] - base
			else if (!((call, rr) in known))
				failed(call, rr, "the reference row is needed")
			printf "\n%s(), probes on %s: %.1f instructions per call without a probe (spread %.1f)\n",
				call, fn[call], base, spread[call, "none"]
			printf "%-44s %10s %7s %9s %12s\n", "probe", "+insn/call", "spread",
				"x " re, "x " rr
			for (i = 1; i <= nrows[call]; i++) {
				key = rk[call, i]
				if (key == "none")
					continue
				if ((call, key) in med) {
					net = med[call, key] - base
					# Every probe costs something; one
					# that does not, did not fire.
					if (net <= 0)
						failed(call, key, "costs " net " instructions per call: did it fire?")
				}
				if ((call, key) in whyf) {
					printf "%-44s %10s  %s\n", rl[call, i], "FAILED", whyf[call, key]
					continue
				}
				xp = kp > 0 ? sprintf("%.2fx", net / kp) : "-"
				xr = kr > 0 ? sprintf("%.2fx", net / kr) : "-"
				printf "%-44s %10.1f %7.1f %9s %12s", rl[call, i], net,
					spread[call, key], xp, xr
				if ((call, key) in batch)
					printf "   (batches of %d calls)", batch[call, key]
				printf "\n"
			}
		}
		if (nfailed) {
			fflush()
			print "bench-insn: failed rows (" nfailed "): " failures > "/dev/stderr"
			exit 3
		}
	}' "$out/results" || rc=$?
[ "$rc" -eq 0 ] || [ "$rc" -eq 3 ] || die "cannot make the table; see $out/results"
if [ -n "$bpf_why" ]; then
	printf '\nno bpftrace or BCC rows: %s\n' "$bpf_why"
fi
[ "$rc" -eq 0 ] || die "rows failed (FAILED above); see $out/output.log"
