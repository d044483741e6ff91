#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages, as a lab machine gets them (README, "Installing"):
#   1. dpkg-buildpackage -b -us -uc in a copy of the checkout's tracked
#      files (as a fresh clone has them; the checkout stays clean), then
#      lintian on each package;
#   2. apt-get install of probe-core-dkms and probectl on THIS machine:
#      DKMS builds the modules for every installed kernel with headers;
#      each kernel's updates/dkms/ has them, depmod knows them, the
#      development files are in /usr/src/probe_core/, and the docs'
#      handler module (modules/examples/readlat) builds against them;
#   3. a kernel removed from DKMS comes back through DKMS's kernel hook,
#      as for a kernel installed later;
#   4. a boot of FLAVOUR VERSION with its /lib/modules as installed,
#      loading the modules with modprobe (tests/dkms/boot.sh);
#   5. apt-get purge of both, and nothing of them is left.
# It changes this machine (/usr/src, /var/lib/dkms, /lib/modules/*/updates,
# /usr/sbin), so it runs as root, one run at a time on a machine, and
# removes what an earlier, interrupted run left first.  Prints TAP, with
# the time of each part.
#
# Usage: tests/deb/run.sh FLAVOUR VERSION  (the kernel to boot: cloud 6.12)
set -u

[ $# -eq 2 ] || {
	echo "usage: $0 FLAVOUR VERSION" >&2
	exit 2
}
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$top/build/deb
log=$work/deb.log
pkgs=(probe-core-dkms probectl)
rc=0

ok() {
	if [ "$1" = 0 ]; then
		echo "ok - deb: $2"
	else
		echo "not ok - deb: $2"
		rc=1
	fi
}

# fails DESCRIPTION ERRORS: ok when ERRORS (one per line) is empty, else
# not ok with them as comments.
fails() {
	if [ -z "$2" ]; then
		ok 0 "$1"
	else
		ok 1 "$1"
		printf '%s\n' "$2" | head -n 20 | sed 's/^/# /'
	fi
}

# run DESCRIPTION COMMAND...: the command's output goes to the log.
run() {
	local desc=$1 st
	shift
	echo "== $desc: $*" >> "$log"
	"$@" >> "$log" 2>&1
	st=$?
	ok $st "$desc"
	[ $st = 0 ] || tail -n 20 "$log" | sed 's/^/# /'
	return $st
}

apt() {
	DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 \
		-y --no-install-recommends "$@"
}

installed() {
	dpkg-query -W -f '${db:Status-Status}\n' "$@" 2>/dev/null |
		grep -qvx not-installed
}

version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$top/dkms.conf")
mapfile -t mods < <(sed -n 's/^BUILT_MODULE_NAME\[[0-9]*\]="\(.*\)"$/\1/p' "$top/dkms.conf")
[ "$(id -u)" = 0 ] || {
	echo "not ok - deb: needs root (it installs and purges the packages)"
	exit 1
}
read -r vmlinuz boot_kdir < <("$top/scripts/kernel.sh" "$1" "$2") || {
	echo "not ok - deb: no $1 $2 kernel with headers installed to boot"
	exit 1
}
boot_kver=${boot_kdir##*/linux-headers-}
# The Debian kernels with headers: what DKMS must build for.
kernels=()
for img in /boot/vmlinuz-*; do
	k=${img#/boot/vmlinuz-}
	[ -e "/usr/src/linux-headers-$k/Makefile" ] && [ -d "/lib/modules/$k" ] &&
		kernels+=("$k")
done

# One run at a time on a machine: another checkout's make check would
# install and purge the same packages.
exec 9> /run/lock/probe_core-deb-test.lock
flock 9
rm -rf "$work"
mkdir -p "$work"
: > "$log"
if installed "${pkgs[@]}"; then
	echo "# deb: purging probe_core's packages left by an earlier run"
	apt purge "${pkgs[@]}" >> "$log" 2>&1
fi

# 1. Build and lintian
t0=$SECONDS
changelog=$(cd "$top" && dpkg-parsechangelog -S Version)
[ "$changelog" = "$version" ]
ok $? "debian/changelog's version ($changelog) is dkms.conf's PACKAGE_VERSION ($version)"
src=$work/probe-core-$version
mkdir -p "$src"
git -C "$top" ls-files -z | tar -C "$top" --null -T - -c | tar -x -C "$src"
(cd "$src" && run "dpkg-buildpackage -b -us -uc builds the packages" \
	dpkg-buildpackage -b -us -uc)
debs=()
for p in probe-core-dkms_"${version}"_all probectl_"${version}"_amd64; do
	[ -s "$work/$p.deb" ] && debs+=("$work/$p.deb")
done
[ ${#debs[@]} = 2 ]
ok $? "built $(cd "$work" && echo *.deb)"
t_build=$((SECONDS - t0))
t0=$SECONDS
# One lintian run for all (it takes seconds to start): its exit status
# is 2 when it found errors or warnings, 1 when it failed itself.
lintian --fail-on error,warning --display-info "$work"/*.deb > "$work/lintian.log" 2>&1
st=$?
for d in "$work"/*.deb; do
	p=$(dpkg-deb -f "$d" Package)
	tags=$(grep -E "^[A-Z]: $p( [a-z]+)?: " "$work/lintian.log")
	{ [ $st = 0 ] || [ $st = 2 ]; } && ! grep -q '^[EW]: ' <<< "$tags"
	ok $? "lintian clean: ${d##*/}"
	[ -z "$tags" ] || printf '%s\n' "$tags" | sed 's/^/# /'
done
[ $st = 0 ] || [ $st = 2 ] || sed 's/^/# lintian: /' "$work/lintian.log"
t_lintian=$((SECONDS - t0))
[ ${#debs[@]} = 2 ] || {
	echo "# deb: no packages to install"
	exit 1
}

# 2. Install: DKMS builds for every kernel with headers
t0=$SECONDS
run "apt-get install ./probe-core-dkms_${version}_all.deb ./probectl_${version}_amd64.deb" \
	apt install "${debs[@]}"
t_install=$((SECONDS - t0))
echo "# deb: DKMS built for ${#kernels[@]} kernels: ${kernels[*]}"
[ ${#kernels[@]} -gt 0 ]
ok $? "there are kernels with headers to build for (${#kernels[@]})"
for k in "${kernels[@]}"; do
	errs=
	for m in "${mods[@]}"; do
		ls "/lib/modules/$k/updates/dkms/$m.ko"* > /dev/null 2>&1 ||
			errs+="no /lib/modules/$k/updates/dkms/$m.ko"$'\n'
	done
	# depmod's index finds them, built for this kernel
	f=$(modinfo -k "$k" -F filename probe_core 2>&1)
	case $f in
	/lib/modules/"$k"/updates/dkms/probe_core.ko*) ;;
	*) errs+="modinfo -k $k probe_core: $f"$'\n' ;;
	esac
	v=$(modinfo -k "$k" -F vermagic probe_core 2> /dev/null)
	[ "${v%% *}" = "$k" ] || errs+="probe_core's vermagic is '$v'"$'\n'
	dkms status -m probe_core -v "$version" -k "$k" 2> /dev/null |
		grep -q ': installed$' ||
		errs+="dkms status: $(dkms status -m probe_core -k "$k" 2>&1)"$'\n'
	# the development files: this kernel's Module.symvers as DKMS built it
	cmp -s "/usr/src/probe_core/$k/Module.symvers" \
		"/var/lib/dkms/probe_core/$version/$k/Module.symvers" ||
		errs+="/usr/src/probe_core/$k/Module.symvers is not DKMS's"$'\n'
	n=$(grep -c $'\tpcore_' "/usr/src/probe_core/$k/Module.symvers" 2> /dev/null)
	[ "${n:-0}" -gt 0 ] || errs+="Module.symvers exports ${n:-no} pcore_ symbols"$'\n'
	fails "$k: ${#mods[@]} modules in updates/dkms, known to depmod, Module.symvers (${n:-0} exports) in /usr/src/probe_core" "$errs"
done
errs=$(for h in include/probe_core/*.h include/uapi/probe_core.h; do
	cmp "$top/$h" "/usr/src/probe_core/$h" 2>&1
done)
fails "the headers in /usr/src/probe_core/include are the checkout's" "$errs"
t0=$SECONDS
for k in "${kernels[@]}"; do
	run "$k: handler module readlat builds against /usr/src/probe_core" \
		env PCORE_DEV_DIR=/usr/src/probe_core "$top/scripts/readme-module.sh" \
		"/usr/src/linux-headers-$k" "$work/readme-ko-$k"
done
t_readme=$((SECONDS - t0))
n=$(dpkg -L probectl 2>&1 | grep -cxE '/usr/sbin/probectl|/usr/share/man/man8/probectl\.8\.gz|/usr/share/bash-completion/completions/probectl')
[ "$n" = 3 ] && /usr/sbin/probectl version > /dev/null
ok $? "probectl: /usr/sbin/probectl runs, its man page and bash completion"
# The README in both packages; the guides of handler modules' authors in
# probe-core-dkms, uncompressed (the README's links find them); the
# section dkms.conf points to is there.
d=/usr/share/doc/probe-core-dkms
errs=$(for f in /usr/share/doc/probectl/README.md $d/README.md $d/docs/api.md \
		$d/docs/api.rst $d/docs/user-guide.md; do
		cmp -s "$f" "$top/${f#*/usr/share/doc/*/}" || echo "$f: missing or not the checkout's"
	done
	grep -q "$d/" "/usr/src/probe_core-$version/dkms.conf" ||
		echo "dkms.conf does not point to $d/"
	grep -qx '## Installing' "$d/README.md" || echo "$d/README.md has no section Installing")
fails "the packages have the README; probe-core-dkms the API guide, its reference and the user guide; dkms.conf's pointer resolves" "$errs"
# The systemd units of userspace/systemd/: in the package, neither
# enabled nor started.
units=()
for u in "$top"/userspace/systemd/*.service "$top"/userspace/systemd/*.timer; do
	[ -e "$u" ] && units+=("${u##*/}")
done
errs=$(for u in "${units[@]}"; do
		dpkg -L probectl | grep -qx "/lib/systemd/system/$u" || echo "$u not in the package"
		cmp -s "$top/userspace/systemd/$u" "/lib/systemd/system/$u" || echo "/lib/systemd/system/$u differs"
	done
	find /etc/systemd/system -name 'probectl*' | sed 's/$/: enabled/'
	# (no units: no postinst)
	grep -sH 'deb-systemd-invoke\|systemctl.* start' /var/lib/dpkg/info/probectl.postinst
	dpkg -L probectl | grep '^/lib/systemd/system/.' | while read -r f; do
		[ -e "$top/userspace/systemd/${f##*/}" ] || echo "$f is not in userspace/systemd"
	done)
fails "probectl has the ${#units[@]} systemd units of userspace/systemd, none enabled or started" "$errs"
"$top/tests/deb/completion.sh" /usr/share/bash-completion/completions/probectl \
	/usr/sbin/probectl "$top/userspace/args.c" |
	sed '/^1\.\./d; s/^\(\(not \)\?ok\) [0-9]* -/\1 - deb:/'
[ "${PIPESTATUS[0]}" = 0 ] || rc=1

# 3. A kernel installed later gets the modules from DKMS's hook, which
# a kernel package's postinst runs: shown with the boot kernel, removed
# from DKMS first.
t0=$SECONDS
dkms remove -m probe_core -v "$version" -k "$boot_kver" >> "$log" 2>&1 &&
	! ls "/lib/modules/$boot_kver/updates/dkms/probe_core.ko"* > /dev/null 2>&1
ok $? "dkms remove -k $boot_kver takes its modules away"
run "the kernel hook (/etc/kernel/postinst.d/dkms $boot_kver) runs" \
	/etc/kernel/postinst.d/dkms "$boot_kver"
dkms status -m probe_core -v "$version" -k "$boot_kver" 2> /dev/null |
	grep -q ': installed$' &&
	[ -s "/usr/src/probe_core/$boot_kver/Module.symvers" ] &&
	ls "/lib/modules/$boot_kver/updates/dkms/probe_core.ko"* > /dev/null 2>&1
ok $? "$boot_kver: DKMS installed the modules again, and its Module.symvers"
t_hook=$((SECONDS - t0))

# 4. The boot
t0=$SECONDS
"$top/tests/dkms/boot.sh" "$vmlinuz" "/lib/modules/$boot_kver" "$work" \
	"deb $boot_kver" || rc=1
t_boot=$((SECONDS - t0))

# 5. Purge: nothing left
t0=$SECONDS
run "apt-get purge ${pkgs[*]}" apt purge "${pkgs[@]}"
t_purge=$((SECONDS - t0))
errs=$(for p in "${pkgs[@]}"; do
		! installed "$p" || echo "$p: $(dpkg-query -W -f '${db:Status-Abbrev}' "$p")"
		dpkg -L "$p" 2> /dev/null | sed "s|^|dpkg -L $p: |"
	done
	ls -d /usr/src/probe_core* /var/lib/dkms/probe_core /usr/sbin/probectl \
		/usr/share/man/man8/probectl.8* \
		/usr/share/bash-completion/completions/probectl 2> /dev/null
	find /lib/systemd/system /etc/systemd/system -name 'probectl*' 2> /dev/null
	for k in /lib/modules/*; do
		for m in "${mods[@]}"; do
			ls "$k/updates/dkms/$m.ko"* 2> /dev/null
		done
		grep -l "updates/dkms/probe_core" "$k/modules.dep" 2> /dev/null
	done)
fails "purged: no files, DKMS tree, modules or depmod entries left" "$errs"
echo "# deb: build ${t_build} s, lintian ${t_lintian} s, install (DKMS for ${#kernels[@]} kernels) ${t_install} s, README module ${t_readme} s, kernel hook ${t_hook} s, boot ${t_boot} s, purge ${t_purge} s"
exit $rc
