#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench's part in a VM: what only a kernel can measure, on Debian's
# 6.1 cloud kernel under QEMU (TCG).  Today: the time to detach many
# probes of one client, and the grace periods it waits for
# (pcore_apitest case=many_probes: half kprobes on vfs_read, half
# tracepoint probes on sched_switch; the unload logs "many_probes:
# detached N probes in T us, W waits for a grace period").  Under
# emulation the time is only indicative; the waits are exact.
#
# Usage: scripts/bench-vm.sh [OUTDIR]   (default build/bench-vm)
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$top/build/bench-vm}
cd "$top"

read -r vmlinuz kdir < <(scripts/kernel.sh cloud 6.1)
kver=${kdir##*/linux-headers-}
rm -rf "$out"
mkdir -p "$out/payload/modules"
if ! make -s --no-print-directory KDIR="$kdir" modules > "$out/build.log" 2>&1; then
	echo "bench-vm: the modules did not build; see $out/build.log" >&2
	exit 1
fi

cp "build/$kver/modules/core/probe_core.ko" \
	"build/$kver/tests/kmods/pcore_apitest/pcore_apitest.ko" "$out/payload/modules/"
cat > "$out/payload/bench.sh" <<'EOF'
set -e
insmod modules/probe_core.ko
for n in 2 20 200; do
	for run in 1 2 3; do
		insmod modules/pcore_apitest.ko case=many_probes nprobes=$n
		rmmod pcore_apitest
		dmesg | grep 'many_probes: detached' | tail -1 | sed 's/^\[[^]]*\] //'
	done
done
rmmod probe_core
EOF

if ! tests/vm/run.sh --kernel "$vmlinuz" --payload "$out/payload" \
	--out "$out/vm" --timeout 900 -- sh bench.sh > "$out/output.log" 2>&1; then
	echo "bench-vm: the VM run failed; see $out/output.log" >&2
	cat "$out/output.log" >&2
	exit 1
fi
printf '\nteardown in the VM (%s, TCG): one client'"'"'s probes, detached by its unload\n\n' "$kver"
printf '%-8s %12s %20s\n' probes "time (us)" "grace-period waits"
sed -n 's/.*many_probes: detached \([0-9]*\) probes in \([0-9]*\) us, \([0-9]*\) waits.*/\1 \2 \3/p' \
	"$out/output.log" | while read -r n us w; do
	printf '%-8s %12s %20s\n' "$n" "$us" "$w"
done
