#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/deps.sh [--print] [demo]
#
# Makes sure everything `make check` (and make soak and make bench) needs
# is installed on a Debian 12 machine, installing the Debian packages when
# anything is missing; with "demo", only what `make demo` needs. Checking
# is cheap (no dpkg or apt calls), so callers can run this before every
# test run; apt is only touched when something is absent.  --print prints
# the packages (one line) and does nothing else.
set -eu

# `make demo`: a C compiler and make, the 6.1 cloud kernel and its headers
# (Debian 12's linux-image-cloud-amd64 is 6.1), and what tests/vm/run.sh
# boots it with: QEMU, a static busybox, cpio (gzip is essential).  kmod
# gives modinfo, with which scripts/demo.sh checks the module's vermagic.
DEMO_PKGS="qemu-system-x86 busybox-static linux-image-cloud-amd64
linux-headers-cloud-amd64 cpio gcc make libc6-dev bc kmod"

# Everything the build, lint, host tests and the VM runner use. apt skips
# the ones already installed, so on a partial machine we ask for the lot
# rather than keeping a fragile map from each missing file to its package.
# The kernel matrix: Debian 12's 6.1 and 6.12, cloud and PREEMPT_RT, and
# what building the debug kernel from linux-source-6.1 takes (flex, bison,
# libssl-dev for module signing, libelf-dev for objtool, pahole (Debian's
# name for dwarves' pahole) for its BTF).  probectl links
# libkmod and libelf (the ELF symbols of attach --uprobe), and for export
# --remote-write libprotobuf-c, libsnappy and libcurl (their -dev
# packages) with protoc-c (protobuf-c-compiler), which compiles the
# remote write messages at build time.  dpkg-dev
# unpacks Debian's qemu source package, whose plugin header make bench's
# instruction counts build with (scripts/qemu-plugin-h.sh).  The flame
# graph tests: xmllint (libxml2-utils) checks the SVGs, and the browser
# tests (tests/browser) drive Chromium with playwright-core from npm; a
# known font makes the labels' widths the same on every machine.
# systemd-analyze (systemd) verifies the exporter's units; its exports are
# scraped through node_exporter (prometheus-node-exporter) by prometheus;
# the fleet test (tests/prometheus/fleet.sh) asks Prometheus' HTTP API
# with curl (promtool prints a native histogram's value as 0).
# The Debian packages (debian/, tests/deb/run.sh): debhelper and
# dh-dkms build them, lintian checks them.  debootstrap builds the guest
# root of bpftrace (scripts/bpf-root.sh; mkfs.ext4, of e2fsprogs, makes
# its image) from the Debian archive.
PKGS="qemu-system-x86 busybox-static linux-image-cloud-amd64
linux-headers-cloud-amd64 linux-image-6.12-cloud-amd64
linux-headers-6.12-cloud-amd64 linux-image-rt-amd64 linux-headers-rt-amd64
linux-image-6.12-rt-amd64 linux-headers-6.12-rt-amd64 dkms
libkmod-dev linux-source-6.1 valgrind sparse kmod
libprotobuf-c-dev protobuf-c-compiler libsnappy-dev libcurl4-openssl-dev
cpio jq gcc make libc6-dev libelf-dev bc perl
prometheus flex bison libssl-dev openssl xz-utils dpkg-dev pahole
chromium libxml2-utils fonts-dejavu-core systemd prometheus-node-exporter curl
debhelper dh-dkms lintian debootstrap e2fsprogs"

# Node.js and npm (tests/browser installs its npm packages with them):
# Debian's, unless the machine has both already, e.g. a NodeSource nodejs,
# which includes npm and conflicts with Debian's npm package.
if ! command -v node > /dev/null 2>&1 || ! command -v npm > /dev/null 2>&1; then
	PKGS="$PKGS nodejs npm"
fi

here=$(dirname "$0")

usage() {
	echo "usage: $0 [--print] [demo]" >&2
	exit 2
}

# Prints the name of each missing thing of the demo, one per line.
missing_demo() {
	for cmd in qemu-system-x86_64 cpio gzip gcc make bc modinfo; do
		command -v "$cmd" >/dev/null 2>&1 || echo "$cmd"
	done
	if [ ! -x /bin/busybox ] || ldd /bin/busybox >/dev/null 2>&1; then
		echo "static-busybox"
	fi
	"$here/kernel.sh" cloud 6.1 >/dev/null 2>&1 || echo "kernel+headers cloud 6.1"
}

# Prints the name of each missing thing, one per line.
missing() {
	if [ "$set" = demo ]; then
		missing_demo
		return
	fi
	for cmd in qemu-system-x86_64 cpio gzip valgrind sparse gcc make jq \
		kmod bc perl flex bison openssl xz pahole \
		promtool prometheus prometheus-node-exporter curl dpkg-source xmllint \
		chromium node npm systemd-analyze \
		dpkg-buildpackage dh dh_dkms lintian protoc-c; do
		command -v "$cmd" >/dev/null 2>&1 || echo "$cmd"
	done
	# The guest has no libc, so its busybox must be the static one
	# (busybox-static); the dynamic package also installs /bin/busybox.
	# ldd fails on a static binary, succeeds on a dynamic one.
	if [ ! -x /bin/busybox ] || ldd /bin/busybox >/dev/null 2>&1; then
		echo "static-busybox"
	fi
	for f in /usr/src/linux-source-6.1.tar.xz /usr/include/libkmod.h \
		/usr/include/gelf.h /usr/lib/x86_64-linux-gnu/libc.a \
		/usr/include/openssl/evp.h \
		/usr/include/protobuf-c/protobuf-c.h /usr/include/snappy-c.h \
		/usr/include/x86_64-linux-gnu/curl/curl.h \
		/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf \
		/usr/sbin/debootstrap /sbin/mkfs.ext4; do
		[ -e "$f" ] || echo "$f"
	done
	for k in "cloud 6.1" "cloud 6.12" "rt 6.1" "rt 6.12"; do
		# shellcheck disable=SC2086
		"$here/kernel.sh" $k >/dev/null 2>&1 || echo "kernel+headers $k"
	done
	command -v dkms >/dev/null 2>&1 || echo dkms
}

print=
set=check
while [ $# -gt 0 ]; do
	case $1 in
	--print) print=1 ;;
	demo) set=demo ;;
	*) usage ;;
	esac
	shift
done
if [ "$set" = demo ]; then
	PKGS=$DEMO_PKGS
fi
if [ -n "$print" ]; then
	# shellcheck disable=SC2086 # one line of words
	echo $PKGS
	exit 0
fi

need=$(missing | paste -sd ' ' -)
if [ -z "$need" ]; then
	echo "deps: all present, nothing to do"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing: $need" >&2
	# shellcheck disable=SC2086 # PKGS is a word list on purpose
	echo "deps: not root, cannot install; as root run:" \
		"apt-get update && apt-get install --no-install-recommends" \
		$PKGS >&2
	exit 1
fi

# apt's own progress goes to stderr so stdout keeps the one summary line.
apt-get update >&2
# shellcheck disable=SC2086 # PKGS is a word list on purpose
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
	$PKGS >&2

still=$(missing | paste -sd ' ' -)
if [ -n "$still" ]; then
	echo "deps: installed packages but still missing: $still" >&2
	exit 1
fi
echo "deps: installed Debian packages (was missing: $need)"
