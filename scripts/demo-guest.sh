#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Usage: demo-guest.sh PROBE_CORE_KO
#
# The main job, as a user does it: load probe_core with target=do_fork,
# run a fork workload, read the histogram and stats, unload.
set -eu

ko=${1:?usage: demo-guest.sh PROBE_CORE_KO}
d=/sys/kernel/debug/probe_core
n=200

if [ ! -d /sys/kernel/debug/tracing ] && ! grep -q debugfs /proc/mounts; then
	mount -t debugfs none /sys/kernel/debug
fi

echo "\$ uname -r"
uname -r
echo "\$ insmod probe_core.ko target=do_fork"
insmod "$ko" target=do_fork
trap 'rmmod probe_core' EXIT

echo "\$ # workload: $n forks (/bin/true); each cat below forks once more," \
	"so probes and stats count those too"
i=0
while [ $i -lt $n ]; do
	/bin/true
	i=$((i + 1))
done

for f in probes do_fork/hist do_fork/stats; do
	echo "\$ cat $d/$f"
	cat "$d/$f"
done
echo "\$ rmmod probe_core"
