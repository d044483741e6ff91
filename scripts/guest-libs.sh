#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Copies the shared libraries that dynamically linked programs need,
# with their dynamic loader, into ROOT at the same paths, so the
# programs run in the VM's initramfs (tests/vm/run.sh puts
# <payload>/rootfs/ at /).  The guest has no C library of its own.
#
# Usage: guest-libs.sh ROOT PROGRAM...
# A PROGRAM that is a shared library (*.so*: one a program opens with
# dlopen(), such as probectl's libkmod) is copied too, with what it needs.
set -eu

root=$1
shift
for prog in "$@"; do
	case ${prog##*/} in *.so | *.so.*) echo "$prog" ;; esac
	ldd "$prog" | awk '/=> \// { print $3 } /^\t\/.*ld-linux/ { print $1 }'
done | sort -u | while read -r lib; do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
