#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# shellcheck source-path=SCRIPTDIR
#
# Usage: tests/userspace/run.sh KSFT O
#
# probectl's host tests, TAP on stdout (make check keeps it as
# build/results/userspace.tap); build logs go to O.  Exits 1 when anything
# failed.
#   1. probectl builds (-Wall -Wextra -Werror, libkmod, libelf);
#   2. test_probectl (kselftest harness, ASan and UBSan): command line,
#      commands against a fake device, outputs against golden/, ELF
#      symbol resolution against what readelf says of the files that
#      mkelf.sh builds (in O/elf) and of the host's C library;
#   3. the golden files: JSON parses with jq and holds the expected values,
#      Prometheus passes promtool check metrics and has cumulative buckets
#      that never decrease and end at _count (so do the exports the
#      textfile tests wrote around resets and a reload: O/export-*.prom),
#      the flame graph SVG is well-formed XML (xmllint) and refers to
#      nothing outside itself;
#   4. the man page renders without a warning (groff -ww, or mandoc);
#      its SYNOPSIS, the help's usage lines and the bash completion list
#      exactly the options of probectl's option tables (optcheck.sh,
#      with optdump);
#      the exporter's systemd units (textfile and remote write) pass
#      systemd-analyze verify (with ExecStart on the probectl just built)
#      and agree with each other;
#   5. the built binary: exit status 2 on usage errors, 0 for --help;
#      flamegraph draws well-formed XML from hostile frame names and
#      refuses a malformed line with its number.
set -u

[ $# -eq 2 ] || { echo "usage: $0 KSFT O" >&2; exit 2; }
ksft=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
golden=$here/golden
# tap STATUS DESCRIPTION [LOG], failed
# shellcheck source=../lib/tap.sh
. "$top/tests/lib/tap.sh"

mkdir -p "$out"
log=$out/run.log

make -C "$top/userspace" O="$out" > "$out/build.log" 2>&1
tap $? "probectl builds (-Wall -Wextra -Werror, libkmod, libelf)" "$out/build.log"
bin=$out/probectl

"$here/mkelf.sh" "$out/elf" > "$out/mkelf.log" 2>&1
tap $? "mkelf.sh builds the test ELF files (gcc, readelf)" "$out/mkelf.log"

if make -C "$here" KSFT="$ksft" O="$out" all > "$out/test-build.log" 2>&1
then
	rm -f "$out"/*.got "$out"/export-*.prom "$out"/ustack-*.json
	TEST_OUT=$out TEST_ELF=$out/elf ASAN_OPTIONS=detect_leaks=0 \
		UBSAN_OPTIONS=print_stacktrace=1 "$out/test_probectl" ||
		failed=1
else
	tap 1 "test_probectl builds" "$out/test-build.log"
fi

# JSON goldens: each parses (watch.json: one object a line), and a few
# values are what the fake histograms hold.
jqcheck() {
	file=$1
	desc=$2
	shift 2
	jq -e "$@" "$golden/$file" > "$log" 2>&1
	tap $? "$file: $desc" "$log"
}
for f in "$golden"/*.json; do
	jq -e . "$f" > "$log" 2>&1
	tap $? "$(basename "$f") is valid JSON" "$log"
done
jqcheck show_loglinear.json "203 values, buckets add up to count, p50 <= p90 <= p99 <= p999" \
	'.total.count == 203 and ([.total.buckets[].count] | add) == .total.count and
	 .total.p50 <= .total.p90 and .total.p90 <= .total.p99 and
	 .total.p99 <= .total.p999 and .error_ppm == 31250 and .missed == 7'
jqcheck show_exp.json "exp:3: 116 values, buckets add up, native bounds (2^(79/8), 2^(80/8)] = [940, 1025), 3 in the overflow bucket" \
	'.hist_kind == "exp:3" and .total.count == 116 and
	 ([.total.buckets[].count] | add) == .total.count and
	 .error_ppm == 45254 and .nbuckets == 337 and
	 (.total.buckets[] | select(.lo == 940) | .hi) == 1025 and
	 (.total.buckets[-1] | .hi == null and .count == 3)'
jqcheck keys_sum.json "show --keys --sort sum: every key, largest sum first" \
	'(.keys | length) == 4 and [.keys[].sum] == ([.keys[].sum] | sort | reverse)'
jqcheck list_glob.json "each glob histogram names its probe, which detach takes" \
	'[.[] | select(.probe_kind == "functions") | .probe] ==
	 ["vfs_*", "vfs_*:count", "vfs_*", "vfs_*:count"]'
jqcheck show_keyed.json "keys add up to the total, labels survive escaping" \
	'([.keys[].count] | add) == .total.count and (.keys | length) == 3 and
	 .keys[1].label == "virtio0 queue" and .keys[2].label == "q\"uo\\te" and
	 .dropped == 2'
jqcheck show_keyed_percpu.json "CPUs add up to the total, per key too" \
	'([.cpus[].count] | add) == .total.count and
	 ([.cpus[].keys[] | select(.key == 11) | .count] | add) ==
	 (.keys[] | select(.key == 11) | .count)'
jqcheck show_empty.json "empty: count 0, no buckets, absolute error" \
	'.total.count == 0 and (.total.buckets | length) == 0 and
	 .error_abs == 50 and .flags == ["waiting"]'
jqcheck list.json "six histograms, flags" \
	'length == 6 and .[4].flags == ["own", "disabled"]'
jqcheck list_uprobes.json "uprobe kinds, the gone flag" \
	'length == 3 and map(.probe_kind) == ["uprobe", "uretprobe", "uprobe"] and
	 .[2].flags == ["own", "disabled", "gone"]'
jqcheck watch.json "three intervals of 1, 2 and 3 values" \
	-s 'map(.count) == [1, 2, 3] and map(.missed) == [0, 1, 2] and
	    all(.[]; ([.buckets[].count] | add) == .count)'

# The JSON of stacks with user frames that test_probectl kept: a live
# process (names, build-id) and hostile input (bad lines, odd names).
jq -e '.top[0].comm == "ustack" and .top[0].kernel_frames == 3 and
	([.top[0].user[].func] == ["spin_here", "outer", "main"]) and
	all(.top[0].user[]; .kind == "func" and (.build_id | length) == 40) and
	.top[0].folded[0:4] == ["ustack", "main", "outer", "spin_here"]' \
	"$out/ustack-live.json" > "$log" 2>&1
tap $? "ustack-live.json: user frames named, with build-ids, under the process" "$log"
jq -e '(.top | length) == 6 and
	(.top[] | select(.comm == "bad;comm")) as $b |
	$b.user_cut and ($b.user | length) == 16 and
	([$b.user[].kind] | index("bad")) != null and
	([$b.user[].kind] | index("vdso")) != null' \
	"$out/ustack-bad.json" > "$log" 2>&1
tap $? "ustack-bad.json: valid JSON from hostile maps, files and frames" "$log"

# Prometheus goldens, and what test_probectl's textfile tests exported
# around resets and a reload: promtool's parser and linter, then per
# series: cumulative buckets never decrease, and +Inf equals _count.
for f in export-before-resets export-after-resets export-after-reload; do
	[ -s "$out/$f.prom" ]
	tap $? "test_probectl kept $f.prom"
done
for f in "$golden"/*.prom "$out"/export-*.prom; do
	[ -e "$f" ] || continue
	name=$(basename "$f")
	promtool check metrics < "$f" > "$log" 2>&1
	tap $? "$name passes promtool check metrics" "$log"
	awk '
		# the value is the last field; label values may hold blanks
		{ v = $NF; s = $0; sub(/ [^ ]*$/, "", s) }
		/_bucket\{/ {
			sub(/,?le="[^"]*"/, "", s); sub(/_bucket/, "", s)
			if ((s in last) && v < last[s]) {
				print "decreasing: " $0; bad = 1
			}
			last[s] = v
			if ($0 ~ /le="\+Inf"/)
				inf[s] = v
			next
		}
		/_count\{/ {
			sub(/_count/, "", s)
			if (!(s in inf) || inf[s] != v) {
				print "+Inf differs from _count: " $0; bad = 1
			}
			n++
		}
		END { if (!n) { print "no series"; bad = 1 } exit bad }
	' "$f" > "$log" 2>&1
	tap $? "$name: cumulative buckets, +Inf equals _count" "$log"
done

# Flame graph goldens: well-formed (xmllint, from libxml2-utils, which
# scripts/deps.sh installs), and self-contained: no link, no url(), no
# address but the SVG namespace.
for f in "$golden"/*.svg; do
	name=$(basename "$f")
	xmllint --noout "$f" > "$log" 2>&1
	tap $? "$name is well-formed XML (xmllint)" "$log"
	sed 's|xmlns="http://www.w3.org/2000/svg"||' "$f" |
		grep -nE 'href|url\(|@import|//' > "$log"
	tap $((! $?)) "$name refers to nothing outside itself" "$log"
done

# The man page, with whichever checker is installed.
if command -v groff > /dev/null; then
	groff -man -Tutf8 -ww -z "$top/userspace/probectl.8" > "$log" 2>&1 &&
		! grep -q . "$log"
	tap $? "probectl.8 renders without warnings (groff -ww)" "$log"
elif command -v mandoc > /dev/null; then
	mandoc -Tlint -W warning "$top/userspace/probectl.8" > "$log" 2>&1
	tap $? "probectl.8 passes mandoc -Tlint" "$log"
fi

# probectl's options are its option tables (args.c): the man page's
# SYNOPSIS, the usage lines of the help and the bash completion must list
# exactly them.
"$here/optcheck.sh" "$bin" "$out/optdump" "$top/userspace/probectl.8" \
	"$top/userspace/bash-completion/probectl" "$out/optcheck" > "$out/optcheck.log" 2>&1
tap $? "probectl.8, the help's usage lines and the bash completion list exactly the option tables (optcheck.sh)" \
	"$out/optcheck.log"

# The exporter's units (userspace/systemd): systemd-analyze verify, which
# prints every unknown key, bad value or missing program, and checks the
# man page that Documentation= names (MANPATH: the one in this tree).  The
# program is the probectl just built, where the units say /usr/sbin.
# Both pairs: probectl-export (textfile) and probectl-remote-write.
units=$top/userspace/systemd
rm -rf "$out/units"
mkdir -p "$out/units" "$out/units/man/man8"
cp "$top/userspace/probectl.8" "$out/units/man/man8/"
for u in probectl-export probectl-remote-write; do
	sed "s|^ExecStart=/usr/sbin/probectl |ExecStart=$bin |" \
		"$units/$u.service" > "$out/units/$u.service"
	cp "$units/$u.timer" "$out/units/"
	if command -v systemd-analyze > /dev/null; then
		MANPATH=$out/units/man systemd-analyze verify \
			"$out/units/$u.service" \
			"$out/units/$u.timer" > "$log" 2>&1 &&
			! grep -q . "$log"
		tap $? "$u.service and .timer pass systemd-analyze verify" "$log"
	else
		echo "systemd-analyze is missing (scripts/deps.sh installs systemd)" > "$log"
		tap 1 "$u.service and .timer pass systemd-analyze verify" "$log"
	fi
done
# What the service runs is export into TEXTFILE_DIR, which is node_exporter's
# directory by default, and the one directory the sandbox lets it write.
svc=$units/probectl-export.service
dir=$(sed -n 's/^Environment=TEXTFILE_DIR=//p' "$svc")
{
	echo "ExecStart: $(grep '^ExecStart=' "$svc")"
	echo "TEXTFILE_DIR: $dir"
	echo "ReadWritePaths: $(grep '^ReadWritePaths=' "$svc")"
} > "$log"
[ "$(grep -c '^ExecStart=' "$svc")" = 1 ] &&
	grep -qx 'ExecStart=/usr/sbin/probectl export --prometheus --textfile-dir ${TEXTFILE_DIR}' "$svc" &&
	[ "$dir" = /var/lib/prometheus/node-exporter ] &&
	grep -qx "ReadWritePaths=-$dir" "$svc" &&
	grep -qx 'OnUnitActiveSec=15s' "$units/probectl-export.timer" &&
	grep -qx 'AccuracySec=1s' "$units/probectl-export.timer"
tap $? "the service exports to node_exporter's directory, the one it may write; the timer runs it every 15 s" "$log"
# The remote write service: the URL and options of its EnvironmentFile,
# the network its sandbox allows, every 15 s.
svc=$units/probectl-remote-write.service
{
	grep '^ExecStart=\|^EnvironmentFile=\|^RestrictAddressFamilies=\|^PrivateNetwork=\|^IPAddressDeny=\|^ReadWritePaths=' "$svc"
} > "$log"
[ "$(grep -c '^ExecStart=' "$svc")" = 1 ] &&
	grep -qx 'ExecStart=/usr/sbin/probectl export --remote-write ${REMOTE_WRITE_URL} $REMOTE_WRITE_OPTS' "$svc" &&
	grep -qx 'EnvironmentFile=/etc/default/probectl-remote-write' "$svc" &&
	grep -qx 'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK' "$svc" &&
	! grep -q '^PrivateNetwork=yes\|^IPAddressDeny=\|^ReadWritePaths=' "$svc" &&
	grep -qx 'OnUnitActiveSec=15s' "$units/probectl-remote-write.timer" &&
	grep -qx 'AccuracySec=1s' "$units/probectl-remote-write.timer"
tap $? "the remote write service pushes to the URL of /etc/default/probectl-remote-write, with the network; every 15 s" "$log"

# The binary as a shell script sees it: exit status and streams.
if [ -x "$bin" ]; then
	"$bin" show x --bogus > "$out/stdout" 2> "$log"
	st=$?
	[ $st = 2 ] && ! [ -s "$out/stdout" ] &&
		grep -q "^probectl: show: unknown option '--bogus'" "$log"
	tap $? "probectl show x --bogus: exit 2, message on stderr only" "$log"
	"$bin" watch x -i 1 -n -1 > /dev/null 2> "$log"
	tap $(($? != 2)) "probectl watch -n -1: exit 2" "$log"
	"$bin" > /dev/null 2> "$log"
	tap $(($? != 2)) "probectl without a command: exit 2" "$log"
	"$bin" --help > "$out/stdout" 2> "$log" &&
		grep -q "^Examples:" "$out/stdout" && ! [ -s "$log" ]
	tap $? "probectl --help: exit 0, examples on stdout" "$log"
	# libelf linked and working; only failures here, which stop before
	# the device: a success would attach on a host with probe_core
	"$bin" attach --uprobe "$out/elf/libver.so:nosuch" --count \
		> "$out/stdout" 2> "$log"
	[ $? = 1 ] && ! [ -s "$out/stdout" ] &&
		grep -qxF "probectl: no function nosuch in $out/elf/libver.so (neither .symtab nor .dynsym has it)" "$log"
	tap $? "probectl attach --uprobe FILE:nosuch: exit 1, the resolver's message" "$log"
	"$bin" attach --uretprobe "$out/elf/libver.so" > /dev/null 2> "$log"
	tap $(($? != 2)) "probectl attach --uretprobe without :SYMBOL: exit 2" "$log"
	# frame names with XML's specials, invalid UTF-8 and a CDATA end
	printf 'a<b>&c;"q" %s;]]>;caf\303\251 \377\376 3\n%s\n' "'a'" \
		'<script>x</script>;a 2
a;b 1
[user] sh;--> 1' > "$out/hostile.folded"
	"$bin" flamegraph -i - --title '</svg><x>' < "$out/hostile.folded" \
		> "$out/hostile.svg" 2> "$log" &&
		xmllint --noout "$out/hostile.svg" >> "$log" 2>&1
	tap $? "probectl flamegraph: hostile names give well-formed XML" "$log"
	printf 'a;b 1\na;b x\n' | "$bin" flamegraph -i - -o "$out/no.svg" \
		> "$out/stdout" 2> "$log"
	[ $? = 1 ] && ! [ -s "$out/stdout" ] && ! [ -e "$out/no.svg" ] &&
		grep -qxF "probectl: standard input: line 2: count 'x' is not a decimal number" "$log"
	tap $? "probectl flamegraph: a bad line: exit 1, its number, no output" "$log"
fi

exit $failed
