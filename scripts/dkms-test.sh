#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The DKMS path, as a lab machine takes it, without touching this
# machine's /lib/modules, /usr/src or /var/lib/dkms: dkms add, build and
# install from a copy of the checkout into staging trees, for one kernel;
# then the README's handler module builds against the development files
# DKMS installed; then a VM boot loads the DKMS-built modules with
# modprobe (tests/dkms/smoke.sh).  Prints TAP.
#
# Usage: dkms-test.sh FLAVOUR VERSION   (e.g. cloud 6.12)
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
read -r vmlinuz kdir < <("$top/scripts/kernel.sh" "$1" "$2") || {
	echo "not ok - dkms: no $1 $2 kernel with headers installed"
	exit 1
}
kver=${kdir##*/linux-headers-}
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
work=$top/build/dkms-$kver
log=$work/dkms.log
rc=0

step() {
	local desc=$1
	shift
	if "$@" >> "$log" 2>&1; then
		echo "ok - dkms $kver: $desc"
	else
		echo "not ok - dkms $kver: $desc (see ${log#"$top"/})"
		tail -n 20 "$log" | sed 's/^/# /'
		rc=1
		return 1
	fi
}

rm -rf "$work"
mkdir -p "$work/tree" "$work/src" "$work/root/lib/modules/$kver" "$work/dev"
: > "$log"
# What `dkms add` gets on a lab machine: the tracked files of the
# checkout (as they are now, committed or not), nothing built.
mkdir -p "$work/src/probe_core-$version"
git -C "$top" ls-files -z | tar -C "$top" --null -T - -c |
	tar -x -C "$work/src/probe_core-$version"
cp /lib/modules/"$kver"/modules.builtin* /lib/modules/"$kver"/modules.order \
	"$work/root/lib/modules/$kver/"
export PCORE_DEV=$work/dev
dkms=(dkms --dkmstree "$work/tree" --sourcetree "$work/src"
	--installtree "$work/root/lib/modules" -m probe_core -v "$version"
	-k "$kver" --kernelsourcedir "$kdir")
step "add" "${dkms[@]}" add &&
step "build" "${dkms[@]}" build &&
step "install (modules, headers and Module.symvers)" "${dkms[@]}" install &&
# On a lab machine DKMS runs depmod for /lib/modules itself; with a
# staging install tree we index it here.
step "depmod of the installed modules" depmod -b "$work/root" "$kver" &&
step "README's handler module builds against what DKMS installed" \
	env PCORE_DEV_DIR="$work/dev" "$top/scripts/readme-module.sh" "$kdir" \
	"$work/readme-ko" || exit 1

payload=$work/payload
mkdir -p "$payload/rootfs"
cp -a "$work/root/." "$payload/rootfs/"
cp "$top/tests/dkms/smoke.sh" "$payload/"
"$top/tests/vm/run.sh" --kernel "$vmlinuz" --payload "$payload" \
	--out "$work/vm" --timeout 300 -- sh smoke.sh | sed "s/^\(\(not \)\?ok\) [0-9]* -/\1 - dkms $kver:/"
exit $((rc || PIPESTATUS[0]))
