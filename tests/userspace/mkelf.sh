#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: tests/userspace/mkelf.sh DIR
#
# Builds the ELF files of probectl's uprobe tests into DIR with the host's
# gcc (sources in elf/; -O0, so every function stays one), and writes
# DIR/expect: "KEY OFFSET" lines, the file offsets that readelf's symbol
# tables and program headers give, computed here apart from probectl's
# resolver so that the tests compare two independent answers.
#   libver.so           versioned, aliased, data and IFUNC symbols
#   libver-stripped.so  the same without .symtab
#   prog                an executable (not PIE: addresses are not offsets)
#                       with two static functions "helper"
#   nosym               static, without a C library, stripped: no symbols
#   ustack              a PIE with frame pointers, main -> outer ->
#                       spin_here, which prints its frames' addresses and
#                       waits (the user stack tests), with a build-id
#   ustack-stripped     the same without .symtab
#   lib32.so            a 32-bit library, when gcc -m32 can link one
#                       (without a C library); absent otherwise
#   a:b/libver.so       a PATH with a ':'
#   text.txt, empty     not ELF files
# The host's C library, LIBC (default /lib/x86_64-linux-gnu/libc.so.6), is
# named in expect with its malloc when it exists.
set -eu

[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
dir=$1
src=$(cd "$(dirname "$0")/elf" && pwd)
libc=${LIBC:-/lib/x86_64-linux-gnu/libc.so.6}
cc=${CC:-gcc}

rm -rf "$dir"
mkdir -p "$dir/a:b"
cd "$dir"

$cc -O0 -shared -fPIC -Wl,--version-script="$src/libver.map" \
	-o libver.so "$src/libver.c"
strip -s -o libver-stripped.so libver.so
cp libver.so "a:b/libver.so"
$cc -O0 -no-pie -o prog "$src/prog_a.c" "$src/prog_b.c"
$cc -O0 -fno-stack-protector -nostdlib -static -o nosym "$src/nosym.c"
strip -s nosym
$cc -O0 -fno-omit-frame-pointer -pie -fPIE -Wl,--build-id -o ustack \
	"$src/ustack.c"
strip -s -o ustack-stripped ustack
if ! $cc -m32 -O0 -fPIC -nostdlib -shared -o lib32.so "$src/lib32.c" \
	2> lib32.log; then
	echo "mkelf.sh: gcc -m32 cannot link; no lib32.so:" >&2
	cat lib32.log >&2
	rm -f lib32.so
fi
rm -f lib32.log
echo "not an ELF file" > text.txt
: > empty

# value FILE NAME: NAME's value in readelf's symbol tables, as 0xHEX.
value() {
	v=$(readelf -Ws "$1" | awk -v n="$2" '$8 == n { print $2; exit }')
	[ -n "$v" ] || { echo "mkelf.sh: no $2 in $1" >&2; exit 1; }
	echo "0x$v"
}

# off FILE ADDRESS: its file offset, through the executable PT_LOAD
# segment that holds it (readelf -l: Offset VirtAddr PhysAddr FileSiz
# MemSiz Flg Align; Flg has an E).
off() {
	o=$(readelf -lW "$1" | awk '$1 == "LOAD"' |
	while read -r _ segoff vaddr _ filesz _ flags; do
		case $flags in *E*) ;; *) continue ;; esac
		if [ $(($2)) -ge $((vaddr)) ] &&
		   [ $(($2)) -lt $((vaddr + filesz)) ]; then
			printf '0x%x\n' $(($2 - vaddr + segoff))
		fi
	done)
	[ -n "$o" ] || { echo "mkelf.sh: $2 is in no code of $1" >&2; exit 1; }
	echo "$o"
}

{
	for sym in foo@VER_1 foo@@VER_2 bar@VER_0 bar@VER_1 baz@VER_0 plain; do
		echo "libver.$sym $(off libver.so "$(value libver.so "$sym")")"
	done
	readelf -Ws prog | awk '$8 == "helper" { print "0x" $2 }' | sort |
	while read -r v; do
		echo "prog.helper $(off prog "$v")"
	done
	echo "prog.main $(off prog "$(value prog main)")"
	for f in main outer spin_here; do
		echo "ustack.$f $(off ustack "$(value ustack "$f")")"
	done
	# readelf -n: "    Build ID: HEX"
	echo "ustack.build_id $(readelf -n ustack |
		awk '/Build ID:/ { print $3; exit }')"
	if [ -e "$libc" ]; then
		echo "libc $libc"
		echo "libc.malloc $(off "$libc" \
			"$(value "$libc" malloc@@GLIBC_2.2.5)")"
	fi
} > expect
cat expect
