#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck source-path=SCRIPTDIR
#
# In the guest: the modules DKMS built and installed (under
# /lib/modules/<release>/updates/dkms, indexed by depmod) load with
# modprobe, count, and unload.  Prints TAP; exits 1 on any failure.
# tap STATUS DESCRIPTION: one numbered TAP line; tap_n, failed
# (boot.sh copies tests/lib/tap.sh beside this script)
TAP_NUMBERS=1
# shellcheck source=../lib/tap.sh
. "$(dirname "$0")/tap.sh"

dbg=/sys/kernel/debug/probe_core
rel=$(uname -r)
# compressed (.ko.xz) where the kernel's configuration asks for it
ls /lib/modules/"$rel"/updates/dkms/probe_core.ko* >/dev/null 2>&1
tap $? "probe_core.ko installed by DKMS for $rel"
modprobe probe_core target=do_fork
tap $? "modprobe probe_core target=do_fork"
i=0
while [ $i -lt 20 ]; do
	/bin/true
	i=$((i + 1))
done
count=$(sed -n 's/^count: //p' $dbg/do_fork/stats 2>/dev/null)
[ "${count:-0}" -ge 20 ]
tap $? "do_fork counted the forks (count ${count:-none})"
# A handler module: modprobe finds probe_core through depmod's indexes.
modprobe -r probe_core
tap $? "modprobe -r probe_core"
modprobe cpuhists
tap $? "modprobe cpuhists loads probe_core first"
grep -q '^probe_core ' /proc/modules
tap $? "probe_core loaded as cpuhists' dependency"
[ -e $dbg/cpuhists/oncpu/hist ]
tap $? "cpuhists' histograms in debugfs"
modprobe -r cpuhists && modprobe -r probe_core
tap $? "modprobe -r cpuhists probe_core"
! grep -q '^probe_core ' /proc/modules
tap $? "nothing left loaded"
echo "1..$tap_n"
exit $failed
