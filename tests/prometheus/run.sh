#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck source-path=SCRIPTDIR
#
# Usage: tests/prometheus/run.sh OUTDIR BEFORE AFTER RELOAD
#
# probectl's exports as a fleet sees them: Debian's node_exporter
# (prometheus-node-exporter, its textfile collector only) serves a textfile
# directory, Debian's Prometheus scrapes it every second, both on loopback
# ports of their own, and promtool queries Prometheus.  The textfile is
# BEFORE, then AFTER (the same histograms after probectl reset and watch,
# and new values), then RELOAD (probe_core loaded again), each replaced by a
# rename as probectl does; the files are the ones test_probectl keeps
# (build/userspace/export-*.prom).  TAP on stdout; exits 1 when anything
# failed.  About 15 s.
#   1. node_exporter reads the file without an error and Prometheus has
#      do_fork's count;
#   2. from BEFORE to AFTER, Prometheus sees no counter reset in any
#      probe_core series (resets() is 0) and the new count;
#   3. histogram_quantile(0.5) of the log2 histogram tcpsize/size falls in
#      the bucket of probectl show's p50 of the same values (the golden
#      show_log2.json), and within show's stated error of it;
#   4. from AFTER to RELOAD, do_fork's count drops: Prometheus counts one
#      reset, increase() is not negative, and the creation time changed.
set -u

[ $# -eq 4 ] || { echo "usage: $0 OUTDIR BEFORE AFTER RELOAD" >&2; exit 2; }
out=$1 before=$2 after=$3 reload=$4
golden=$(cd "$(dirname "$0")/../userspace/golden" && pwd)
pids=

# tap STATUS DESCRIPTION [LOG], failed; a failure shows LOG's tail.
TAP_PREFIX="prometheus: "
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

for f in "$before" "$after" "$reload"; do
	if [ ! -s "$f" ]; then
		tap 1 "input $f exists"
		exit 1
	fi
done
for c in prometheus-node-exporter prometheus promtool jq; do
	if ! command -v "$c" > /dev/null; then
		tap 1 "$c is installed (scripts/deps.sh installs it)"
		exit 1
	fi
done

rm -rf "$out"
mkdir -p "$out/textfile" "$out/data"
log=$out/log

# put FILE: replace the textfile as probectl does (rename in the directory)
put() {
	cp "$1" "$out/textfile/.probe_core.prom.tmp" &&
		mv "$out/textfile/.probe_core.prom.tmp" "$out/textfile/probe_core.prom"
}

ne_port=$(free_port)
prom_port=$(free_port "$ne_port")
url=http://127.0.0.1:$prom_port

put "$before"
prometheus-node-exporter --web.listen-address="127.0.0.1:$ne_port" \
	--collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$out/textfile" > "$out/node_exporter.log" 2>&1 &
pids="$pids $!"
cat > "$out/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: node
    static_configs:
      - targets: ['127.0.0.1:$ne_port']
YML
prometheus --config.file="$out/prometheus.yml" --storage.tsdb.path="$out/data" \
	--web.listen-address="127.0.0.1:$prom_port" > "$out/prometheus.log" 2>&1 &
pids="$pids $!"

# q EXPR: the value of an instant query (one series), or nothing
q() {
	promtool query instant "$url" "$1" 2> /dev/null |
		sed -n 's/.* => \([^ ]*\) @.*/\1/p' | head -1
}

# wait_for EXPR VALUE: until the query answers VALUE, at most 30 s
wait_for() {
	local i v
	for i in $(seq 300); do
		v=$(q "$1")
		[ "$v" = "$2" ] && return 0
		sleep 0.1
	done
	echo "$1: '$v' after 30 s, not $2" > "$log"
	return 1
}

# the value of series KEY in a Prometheus text file
val() {
	awk -v k="$2" '{ v = $NF; s = $0; sub(/ [^ ]*$/, "", s) } s == k { print v }' "$1"
}

count='probe_core_latency_seconds_count{probe="do_fork"}'
n_before=$(val "$before" "$count")
n_after=$(val "$after" "$count")
n_reload=$(val "$reload" "$count")

wait_for "$count" "$n_before"
st=$?
[ $st = 0 ] && wait_for 'node_textfile_scrape_error' 0
st=$((st | $?))
tap $st "node_exporter reads the export, Prometheus has do_fork's count ($n_before)" "$log"

# Two more scrapes of BEFORE, then AFTER until Prometheus has it.
sleep 2
put "$after"
wait_for "$count" "$n_after"
tap $? "the export after reset and watch is scraped (count $n_after)" "$log"
sleep 2
# resets() of every counter family of the export (not the gauge), summed
# over its series: 0 each.
st=0
: > "$log"
for name in $(sed -n 's/^# TYPE \([^ ]*\) \(counter\|histogram\)$/\1 \2/p' "$before" |
	awk '$2 == "counter" { print $1 }
	     $2 == "histogram" { print $1 "_bucket"; print $1 "_sum"; print $1 "_count" }'); do
	r=$(q "sum(resets($name[1m]))")
	echo "sum(resets($name[1m])): '$r'" >> "$log"
	[ "$r" = 0 ] || st=1
done
grep -q bucket "$log" || st=1
tap $st "no counter reset from before to after probectl reset and watch ($(wc -l < "$log") families)" "$log"

# probectl show's p50 of the same histogram (the golden of show --json
# on the same fake data), its bucket [lo, hi) and its stated error.
read -r show lo hi ppm < <(jq -r '.total.p50 as $p |
	[$p, (.total.buckets[] | select(.lo <= $p and $p < .hi) | .lo, .hi),
	 .error_ppm] | @tsv' "$golden/show_log2.json")
p50=$(q 'histogram_quantile(0.5, probe_core_value_bytes_bucket{probe="tcpsize/size"})')
echo "histogram_quantile(0.5): '$p50'; probectl show: p50 $show in [$lo, $hi), error $ppm ppm" > "$log"
# Prometheus interpolates within (le of the bucket before, le] = (lo - 1, hi - 1]
awk -v p="$p50" -v s="$show" -v lo="$lo" -v hi="$hi" -v e="$ppm" 'BEGIN {
	d = p - s; if (d < 0) d = -d
	exit !(p != "" && s != "" && p + 0 > lo - 1 && p + 0 <= hi - 1 &&
	       d <= s * e / 1000000)
}'
tap $? "histogram_quantile(0.5) of tcpsize/size ($p50) is in the bucket of probectl show's p50 ($show), within its stated error" "$log"

put "$reload"
wait_for "$count" "$n_reload"
tap $? "the export after a reload is scraped (count $n_reload)" "$log"
sleep 2
r=$(q "resets($count[1m])")
inc=$(q "increase($count[1m])")
ch=$(q 'changes(probe_core_created_timestamp_seconds{probe="do_fork"}[1m])')
echo "resets '$r', increase '$inc', created changes '$ch'" > "$log"
[ "$r" = 1 ] && [ "$ch" = 1 ] &&
	awk -v i="$inc" 'BEGIN { exit !(i != "" && i + 0 >= 0) }'
tap $? "a reload is one counter reset, no negative increase, a new creation time" "$log"

exit $failed
