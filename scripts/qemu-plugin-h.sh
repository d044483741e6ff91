#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: scripts/qemu-plugin-h.sh
#
# Prints the path of qemu-plugin.h, the header of QEMU's TCG plugin API,
# as Debian's source package of the installed qemu-system-x86 has it.
# Debian ships no binary package with it, so the first call (as root)
# adds deb-src entries for the Debian archive beside the machine's own
# (/etc/apt/sources.list.d/probe_core-src.sources, in the deb822 style of
# debian.sources; a one-line .list where the machine uses those), runs
# apt-get update and `apt-get source qemu` (24 MB, under a
# minute), and keeps only the header, in
#   ${XDG_CACHE_HOME:-~/.cache}/probe_core/qemu-<source version>/
# Later calls find it there.  QEMU's files are never committed.
set -eu

die() {
	echo "qemu-plugin-h: $*" >&2
	exit 1
}

[ $# -eq 0 ] || { echo "usage: $0   (no arguments)" >&2; exit 2; }

command -v qemu-system-x86_64 >/dev/null 2>&1 ||
	die "qemu-system-x86_64 not found; run scripts/deps.sh"
# The source package and version of the QEMU that runs the plugin, e.g.
# "qemu 1:7.2+dfsg-7+deb12u18" for binary version ...+deb12u18+b3.
src=$(dpkg-query -W -f '${source:Package} ${source:Version}' \
	qemu-system-x86 2>/dev/null) ||
	die "qemu-system-x86 is not installed; run scripts/deps.sh"
pkg=${src% *}
ver=${src#* }
cache=${XDG_CACHE_HOME:-$HOME/.cache}/probe_core/qemu-${ver#*:}
if [ -f "$cache/qemu-plugin.h" ]; then
	echo "$cache/qemu-plugin.h"
	exit 0
fi

[ "$(id -u)" -eq 0 ] ||
	die "no cached qemu-plugin.h for $pkg $ver; as root, run $0 once" \
		"(it adds deb-src entries to apt and runs apt-get source $pkg)"
command -v dpkg-source >/dev/null 2>&1 ||
	die "dpkg-source not found (Debian dpkg-dev); run scripts/deps.sh"

# deb-src entries for the suites the binary packages come from.
have_src() {
	apt-cache showsrc "$pkg" 2>/dev/null | grep -q "^Package: $pkg\$"
}
if ! have_src; then
	codename=$(sed -n "s/^VERSION_CODENAME=//p" /etc/os-release)
	[ -n "$codename" ] || die "cannot tell the Debian release from /etc/os-release"
	keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	if [ -e /etc/apt/sources.list.d/debian.sources ]; then
		cat >/etc/apt/sources.list.d/probe_core-src.sources <<EOF
# Added by probe_core's scripts/qemu-plugin-h.sh: QEMU's plugin header
# comes from Debian's qemu source package.
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $codename $codename-updates
Components: main
Signed-By: $keyring

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: $codename-security
Components: main
Signed-By: $keyring
EOF
	else
		cat >/etc/apt/sources.list.d/probe_core-src.list <<EOF
# Added by probe_core's scripts/qemu-plugin-h.sh: QEMU's plugin header
# comes from Debian's qemu source package.
deb-src http://deb.debian.org/debian $codename main
deb-src http://deb.debian.org/debian $codename-updates main
deb-src http://deb.debian.org/debian-security $codename-security main
EOF
	fi
	echo "qemu-plugin-h: added deb-src entries; apt-get update" >&2
	apt-get update >&2 || die "apt-get update failed"
	have_src || die "apt knows no source package $pkg even with deb-src entries"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/qemu-src.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# apt downloads as user _apt, into the current directory.
chown _apt "$tmp" 2>/dev/null || true
echo "qemu-plugin-h: apt-get source $pkg=$ver (once; cached in $cache)" >&2
# The exact version first: the header of the QEMU that loads the plugin.
# An archive that moved on has only a newer revision of the same release
# (one plugin API version; QEMU checks it when it loads the plugin).
if ! (cd "$tmp" && apt-get source -q "$pkg=$ver" >&2); then
	echo "qemu-plugin-h: $pkg=$ver is gone from the archive; taking its newest source" >&2
	rm -rf "${tmp:?}"/*
	(cd "$tmp" && apt-get source -q "$pkg" >&2) || die "apt-get source $pkg failed"
fi
hdr=$(find "$tmp" -maxdepth 4 -path '*/include/qemu/qemu-plugin.h' | head -n 1)
[ -n "$hdr" ] || die "the $pkg source package has no include/qemu/qemu-plugin.h"
mkdir -p "$cache"
cp "$hdr" "$cache/qemu-plugin.h.tmp"
mv "$cache/qemu-plugin.h.tmp" "$cache/qemu-plugin.h"
echo "$cache/qemu-plugin.h"
