#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# In the guest: the modules DKMS built and installed (under
# /lib/modules/<release>/updates/dkms, indexed by depmod) load with
# modprobe, count, and unload.  Prints TAP; exits 1 on any failure.
n=0
fail=0
t() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		fail=1
	fi
}

dbg=/sys/kernel/debug/probe_core
rel=$(uname -r)
# compressed (.ko.xz) where the kernel's configuration asks for it
ls /lib/modules/"$rel"/updates/dkms/probe_core.ko* >/dev/null 2>&1
t $? "probe_core.ko installed by DKMS for $rel"
modprobe probe_core target=do_fork
t $? "modprobe probe_core target=do_fork"
i=0
while [ $i -lt 20 ]; do
	/bin/true
	i=$((i + 1))
done
count=$(sed -n 's/^count: //p' $dbg/do_fork/stats 2>/dev/null)
[ "${count:-0}" -ge 20 ]
t $? "do_fork counted the forks (count ${count:-none})"
# A handler module: modprobe finds probe_core through depmod's indexes.
modprobe -r probe_core
t $? "modprobe -r probe_core"
modprobe cpuhists
t $? "modprobe cpuhists loads probe_core first"
grep -q '^probe_core ' /proc/modules
t $? "probe_core loaded as cpuhists' dependency"
[ -e $dbg/cpuhists/oncpu/hist ]
t $? "cpuhists' histograms in debugfs"
modprobe -r cpuhists && modprobe -r probe_core
t $? "modprobe -r cpuhists probe_core"
! grep -q '^probe_core ' /proc/modules
t $? "nothing left loaded"
echo "1..$n"
exit $fail
