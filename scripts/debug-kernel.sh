#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/debug-kernel.sh [--key]
#
# The debug kernel of make check: Debian's linux-source-6.1 with
# x86_64_defconfig + kvm_guest.config + debug.config (KASAN, lockdep,
# PROVE_RCU, kmemleak, atomic-sleep checks, UBSAN) + scripts/debug-kernel.config
# (what probe_core's tests need, fault injection, module signing with a
# key made at build time, lockdown; BTF, so DWARF debug info for pahole;
# no unused drivers).
#
# Prints "VMLINUZ KDIR MODROOT" on one line, building the kernel first
# when the cache does not have it:
#   VMLINUZ  the image QEMU boots
#   KDIR     its build tree, to build modules against (make KDIR=...)
#   MODROOT  its modules_install root: MODROOT/lib/modules/<release>/
# --key prints the cache key alone.
#
# The cache is ${PCORE_CACHE:-${XDG_CACHE_HOME:-~/.cache}/probe_core}/
# debug-6.1-<key>/, outside build/ so that make clean keeps it; <key> hashes
# the linux-source-6.1 package version, the config fragment and RECIPE,
# so a change of any of them builds anew (and removes older entries).  Only complete builds
# are used: an interrupted one starts over.  A lock serialises concurrent
# callers.  The build log and its duration are in the cache directory;
# the duration is printed on stderr.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
TARBALL=/usr/src/linux-source-6.1.tar.xz
FRAGMENT=$top/scripts/debug-kernel.config

usage() {
	echo "usage: $0 [--key]" >&2
	exit 2
}

die() {
	echo "debug-kernel: $*" >&2
	exit 1
}

# Bump when build() changes what it makes.
RECIPE=1

key() {
	{
		dpkg-query -W -f='${Version}\n' linux-source-6.1
		echo "recipe $RECIPE"
		cat "$FRAGMENT"
	} | sha256sum | cut -c1-12
}

# The result, from a complete cache entry.
print_paths() {
	local rel
	rel=$(cat "$dir/obj/include/config/kernel.release")
	echo "$dir/obj/arch/x86/boot/bzImage $dir/obj $dir/mods"
	[ -d "$dir/mods/lib/modules/$rel" ] || die "$dir/mods has no $rel"
}

# Every line of the fragment that says y, m, a value or "is not set" must
# be what the final .config says: a silently dropped option would make a
# test pass for the wrong reason (a checker that is not there) or fail
# for one nobody sees.
check_config() {
	local cfg=$1 bad=0 line opt
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF -- "$line" "$cfg" || {
				echo "debug-kernel: wanted $line, .config has:" \
					"$(grep -E "^(# )?${line%%=*}[= ]" "$cfg" || echo nothing)" >&2
				bad=1
			}
			;;
		"# CONFIG_"*" is not set")
			opt=${line#\# }
			opt=${opt%% *}
			if grep -qE "^$opt=" "$cfg"; then
				echo "debug-kernel: wanted $opt off, .config has $(grep -E "^$opt=" "$cfg")" >&2
				bad=1
			fi
			;;
		esac
	done < "$FRAGMENT"
	return $bad
}

build() {
	local t0=$SECONDS src=$dir/src obj=$dir/obj jobs
	jobs=$(nproc)
	echo "debug-kernel: building $dir (log: $dir/build.log)" >&2
	mkdir -p "$src" "$obj"
	tar -xJf "$TARBALL" -C "$src" --strip-components=1
	{
		make -C "$src" O="$obj" x86_64_defconfig
		"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
			"$src/kernel/configs/kvm_guest.config" \
			"$src/kernel/configs/debug.config" "$FRAGMENT"
		make -C "$src" O="$obj" olddefconfig
	} > "$dir/build.log" 2>&1 || die "configuration failed; see $dir/build.log"
	check_config "$obj/.config" ||
		die "the configuration lost options of $FRAGMENT"
	make -C "$src" O="$obj" -j"$jobs" bzImage modules >> "$dir/build.log" 2>&1 ||
		die "build failed; see $dir/build.log"
	make -C "$src" O="$obj" INSTALL_MOD_PATH="$dir/mods" \
		modules_install >> "$dir/build.log" 2>&1 ||
		die "modules_install failed; see $dir/build.log"
	# The link's intermediates: with debug info 1.3 GB that nothing reads
	# again.  vmlinux stays: modules' BTF is made against its .BTF, and
	# its DWARF decodes the guest's stack traces.
	rm -f "$obj/vmlinux.o" "$obj"/.tmp_vmlinux*
	echo $((SECONDS - t0)) > "$dir/build-seconds"
}

[ $# -le 1 ] || usage
case ${1-} in '' | --key) ;; *) usage ;; esac
[ -r "$TARBALL" ] || die "$TARBALL missing; run scripts/deps.sh"
k=$(key)
if [ "${1-}" = --key ]; then
	echo "$k"
	exit 0
fi

cache=${PCORE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/probe_core}
dir=$cache/debug-6.1-$k
mkdir -p "$cache"
exec 9> "$cache/debug-6.1.lock"
flock 9
if [ ! -f "$dir/complete" ]; then
	# The build tree refers to its source by absolute path: it is
	# built in place, and "complete" marks a usable entry.
	rm -rf "$cache"/debug-6.1-*
	mkdir -p "$dir"
	build
	touch "$dir/complete"
	echo "debug-kernel: built $(cat "$dir/obj/include/config/kernel.release")" \
		"in $(cat "$dir/build-seconds") s" >&2
else
	echo "debug-kernel: cached $(cat "$dir/obj/include/config/kernel.release")" \
		"(built in $(cat "$dir/build-seconds") s)" >&2
fi
print_paths
