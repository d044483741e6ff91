#!/bin/sh
# Prints the kernel build directory to use: the running kernel's, else the
# newest Debian linux-headers tree installed (and says so on stderr).
set -eu
run=/lib/modules/$(uname -r)/build
if [ -e "$run/Makefile" ]; then
	echo "$run"
	exit 0
fi
best=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1)
if [ -z "$best" ]; then
	echo "kdir: no headers for $(uname -r) and no Debian headers in /usr/src" >&2
	exit 1
fi
echo "kdir: no headers for running kernel $(uname -r); using $best" >&2
echo "$best"
