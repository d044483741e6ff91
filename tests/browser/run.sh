#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck source-path=SCRIPTDIR
#
# Usage: tests/browser/run.sh OUTDIR [FOLDED[:SVG] | HEATMAP.svg]...
#
# Flame graphs and heatmaps in a real browser, TAP on stdout (make check
# keeps it as build/results/browser.tap); exits 1 when anything failed.
# For each folded stack file (default: fixtures/stackt.folded, stacks
# named as the kernel test's module names its functions, its leaf called
# 300 and 700 times from two callers; fixtures/ustack.folded, a profile
# with user stacks, process at the root, drawn from it and, from the
# device, by the host test flamegraph_ustack_golden as
# tests/userspace/golden/flame_ustack.svg, user frames in their colour;
# check.sh adds the folded stacks pcore_stacks and pcore_ustack printed in
# the VM, the latter a real profile of a program spinning in
# main -> outer -> spin_here, whose frames probectl named):
#   1. probectl flamegraph draws it into OUTDIR/NAME.svg (or SVG, drawn
#      elsewhere, e.g. in the VM, is taken as it is), and xmllint finds
#      the SVG well-formed;
#   2. Debian's Chromium, driven by playwright-core, shows the SVG's frames
#      as the file's stacks say (browser.mjs has the list);
#   3. speedscope's web app imports the file and lists its names with
#      their counts.
# For each heatmap SVG of probectl heatmap --svg (default: the host tests'
# golden, tests/userspace/golden/heatmap.svg; check.sh adds the one drawn
# in the VM): xmllint finds it well-formed, Chromium shows cells whose
# titles, sums per interval, places, labels, colours and hover text agree
# (browser.mjs), and its screenshot is kept as OUTDIR/NAME.png.
# The npm packages (package.json, package-lock.json) are installed with
# npm ci into OUTDIR/npm, once: again only when the lock file changes.
#
# PROBECTL: the probectl to use (default: build/userspace/probectl, which
# make probectl builds).  CHROMIUM: the browser (default /usr/bin/chromium).
set -u

[ $# -ge 1 ] || { echo "usage: $0 OUTDIR [FOLDED[:SVG] | HEATMAP.svg]..." >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
mkdir -p "$1" || exit 2
out=$(cd "$1" && pwd)
shift
[ $# -gt 0 ] || set -- "$here/fixtures/stackt.folded" \
	"$here/fixtures/ustack.folded" \
	"$here/fixtures/ustack.folded:$top/tests/userspace/golden/flame_ustack.svg" \
	"$top/tests/userspace/golden/heatmap.svg"
probectl=${PROBECTL:-$top/build/userspace/probectl}
chromium=${CHROMIUM:-/usr/bin/chromium}
log=$out/run.log
# tap STATUS DESCRIPTION [LOG], failed
# shellcheck source=../lib/tap.sh
. "$top/tests/lib/tap.sh"

# Node.js: playwright-core 1.61 needs 18 or later (Debian 12 has 18).
major=$(node -p 'process.versions.node.split(".")[0]' 2> /dev/null)
[ "${major:-0}" -ge 18 ]
tap $? "Node.js 18 or later (scripts/deps.sh; found: ${major:-none})"
[ -x "$chromium" ]
tap $? "Chromium at $chromium (scripts/deps.sh installs Debian's chromium)"
[ -x "$probectl" ]
tap $? "probectl built ($probectl; make probectl)"
[ $failed = 0 ] || exit 1

# The npm packages, cached: npm ci again only for another lock file.
npm=$out/npm
stamp=$(cat "$here/package.json" "$here/package-lock.json" | cksum)
if [ "$(cat "$npm/.stamp" 2> /dev/null)" != "$stamp" ] ||
   [ ! -d "$npm/node_modules/playwright-core" ] ||
   [ ! -d "$npm/node_modules/speedscope" ]; then
	rm -rf "$npm"
	mkdir -p "$npm"
	cp "$here/package.json" "$here/package-lock.json" "$here/.npmrc" "$npm/"
	(cd "$npm" && timeout 300 npm ci --ignore-scripts --no-audit \
		--no-fund) > "$log" 2>&1 && echo "$stamp" > "$npm/.stamp"
	tap $? "npm ci: playwright-core and speedscope into $npm" "$log"
	[ $failed = 0 ] || exit 1
fi

# Draw each file that comes without its SVG.
n=0
pairs=()
for arg in "$@"; do
	n=$((n + 1))
	case $arg in
	*:*.svg)	# before *.svg, which FOLDED:SVG matches too
		folded=${arg%:*}
		svg=${arg##*:}
		;;
	*.svg)
		if command -v xmllint > /dev/null; then
			xmllint --noout "$arg" > "$log" 2>&1
			tap $? "$(basename "$arg") is well-formed XML (xmllint)" "$log"
		fi
		[ -s "$arg" ] && pairs+=("heatmap:$arg:$out/$(basename "$arg" .svg).png")
		continue
		;;
	*)
		folded=$arg
		svg=$out/$n-$(basename "$arg" .folded).svg
		timeout 60 "$probectl" flamegraph -i "$folded" -o "$svg" \
			--title "$(basename "$folded")" > "$log" 2>&1
		tap $? "probectl flamegraph -i $(basename "$folded") draws $svg" "$log"
		;;
	esac
	if command -v xmllint > /dev/null; then
		xmllint --noout "$svg" > "$log" 2>&1
		tap $? "$(basename "$svg") is well-formed XML (xmllint)" "$log"
	fi
	[ -s "$svg" ] && pairs+=("$folded:$svg")
done

# Everything in Chromium, under one time limit; the script has its own
# per-step and overall timeouts, this one catches a hung node.
timeout -k 5 180 node "$here/browser.mjs" "$npm" "$chromium" "${pairs[@]}" \
	2> "$out/browser.log"
st=$?
if [ $st != 0 ] && [ $st != 1 ]; then
	tap $st "browser.mjs ran to its end (exit $st)" "$out/browser.log"
fi
[ $st = 0 ] || failed=1

exit $failed
