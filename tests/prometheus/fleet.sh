#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# shellcheck source-path=SCRIPTDIR
#
# Usage: tests/prometheus/fleet.sh OUTDIR FLEET_FEED [DASHBOARD]
#
# A fleet of two hosts as Prometheus sees it.  Debian's Prometheus (2.42)
# runs on a loopback port with --enable-feature=native-histograms and
# --web.enable-remote-write-receiver, with a TSDB of its own in OUTDIR.
# Two "hosts", a and b, are two fake devices with different known values
# (FLEET_FEED, tests/userspace/fleet_feed.c: probectl's code on the fake
# /dev/probe_core); each pushes with `probectl export --remote-write URL
# --instance host-X` at three moments one second apart (phases 1, 2, 3 of
# fleet_feed: half its values, all of them, and host b loaded again), with
# the fake's wall clock at that moment, so both hosts' samples carry the
# same timestamps.  The same data also goes the classic way: probectl
# export --textfile-dir into one directory per host, each served by its
# own node_exporter (textfile collector only), scraped every second.
#
# The checks (TAP on stdout, exits 1 when one fails; about 15 s):
#   1. the remote-write pushes are accepted, Prometheus has both hosts;
#   2. histogram_count and histogram_sum of sum by (probe) of the native
#      histograms equal the union's count and sum (the sum in seconds is a
#      float: equal to 1e-12);
#   3. histogram_quantile(0.99) of the summed totals is within the exp
#      kind's error (fleet_feed --bound: a native bucket's hi / lo - 1,
#      2^(2^-3) - 1 = 9.05 % for exp:3) of the exact p99 (nearest rank)
#      of the union of both hosts' values;
#      and every native bucket of the exp histogram is one of its schema
#      (hi / lo - 1 is that error: sent as it is, no rebinning);
#   4. the same through rate(): histogram_quantile(0.99, sum by (probe)
#      (rate(M[1800ms]))) at phase 2 + 600 ms (the samples of phases 1 and
#      2 in the window) against the exact p99 of the union of the values
#      each host recorded between them, each host's values weighted by the
#      factor rate() gave it (its rate's count over its increase in
#      count).  rate() extrapolates each host's increase to the window by
#      a factor of its own timestamps; a sum of two hosts' rates is the
#      union of their values only when the factors are equal (here they
#      are: same timestamps; the weights make the expectation exact either
#      way, and the test says the factors);
#   5. the classic export's histogram_quantile(0.99) over the le buckets
#      of both hosts (summed by le): printed with its error for the docs,
#      checked only to be within the classic buckets (a factor of 2); the
#      same for fleet/lat_loglinear (the same values, the default kind),
#      printed only, and kept in OUTDIR/numbers.txt;
#   6. host b loaded again (totals drop, a new creation time): a counter
#      reset, not a drop: resets() of its histogram_count and of its
#      probe_core_probe_hits_total (a float counter of the push) is 1,
#      histogram_count(increase()) is at least the values it got before
#      and after the reload (never negative); its created timestamp
#      changes once.  (Prometheus 2.42's resets() reads only float samples:
#      resets() of the native histogram itself is 0 there; printed.)
#   7. fleet/bycg, a fake histogram keyed by cgroup (key name "cgroup")
#      on each host, with an interval read between two phases, pushed by
#      the same `probectl export --remote-write` (and textfile): one
#      native histogram per cgroup, key="<id>",cgroup="<path>", totals
#      since creation, no merged series; sum by (cgroup) adds both hosts'
#      exact counts per cgroup, and each host's cgroup has its own exact
#      count;
#   8. DASHBOARD (docs/grafana/probe_core.json): every panel's expr, with
#      the template variables given values of this fleet, passes
#      promtool check rules and returns data from this Prometheus; the
#      per-cgroup panels' exprs on fleet/bycg give one series per cgroup,
#      and the per-cgroup values per second at phase 2 are each cgroup's
#      exact new values (both hosts) times the factor rate() gives each
#      host (measured on fleet/lat: same timestamps, same ratios).
set -u

[ $# -ge 2 ] || { echo "usage: $0 OUTDIR FLEET_FEED [DASHBOARD]" >&2; exit 2; }
out=$1 feed=$2 dash=${3:-}
pids=

TAP_PREFIX="fleet: "
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

for c in prometheus-node-exporter prometheus promtool jq curl; do
	if ! command -v "$c" > /dev/null; then
		tap 1 "$c is installed (scripts/deps.sh installs it)"
		exit 1
	fi
done
if [ ! -x "$feed" ]; then
	tap 1 "$feed is built (make -C tests/userspace)"
	exit 1
fi

rm -rf "$out"
mkdir -p "$out/tf-a" "$out/tf-b" "$out/data"
log=$out/log

prom_port=$(free_port)
ne_a=$(free_port "$prom_port")
ne_b=$(free_port "$prom_port" "$ne_a")
url=http://127.0.0.1:$prom_port
write_url=$url/api/v1/write

for h in a b; do
	port=$ne_a
	[ $h = a ] || port=$ne_b
	prometheus-node-exporter --web.listen-address="127.0.0.1:$port" \
		--collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$out/tf-$h" > "$out/node_exporter-$h.log" 2>&1 &
	pids="$pids $!"
done
cat > "$out/prometheus.yml" <<YML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: classic
    static_configs:
      - targets: ['127.0.0.1:$ne_a']
        labels: {instance: host-a}
      - targets: ['127.0.0.1:$ne_b']
        labels: {instance: host-b}
YML
prometheus --config.file="$out/prometheus.yml" --storage.tsdb.path="$out/data" \
	--web.listen-address="127.0.0.1:$prom_port" \
	--enable-feature=native-histograms --web.enable-remote-write-receiver \
	> "$out/prometheus.log" 2>&1 &
pids="$pids $!"

# api EXPR [TIME]: the JSON result of an instant query
api() {
	curl -sS -m 10 "$url/api/v1/query" --data-urlencode "query=$1" \
		${2:+--data-urlencode "time=$2"}
}
# q EXPR [TIME]: the value of a float query (the first series), or nothing
q() {
	api "$@" 2> /dev/null | jq -r '.data.result[0].value[1] // empty' 2> /dev/null
}

for i in $(seq 300); do
	curl -sf -m 1 "$url/-/ready" > /dev/null 2>&1 && break
	sleep 0.1
done

# ---- pushes: phase 1, 2, 3 at T1, T1 + 1 s, T1 + 2 s ----
now_ms() { date +%s%3N; }
# sleep_until MS
sleep_until() {
	local d=$(($1 - $(now_ms)))
	[ $d -le 0 ] || sleep "$(awk -v d=$d 'BEGIN { printf "%.3f", d / 1000 }')"
}
# push PHASE MS: both hosts, remote write and textfile
push() {
	local h st=0
	sleep_until "$2"
	for h in a b; do
		echo "phase $1 host $h at $2" >> "$out/push.log"
		"$feed" $h "$1" "$t1" "$2" export --remote-write "$write_url" \
			--instance host-$h >> "$out/push.log" 2>&1 || st=1
		"$feed" $h "$1" "$t1" "$2" export --prometheus \
			--textfile-dir "$out/tf-$h" >> "$out/push.log" 2>&1 || st=1
	done
	return $st
}
t1=$(( ($(now_ms) / 1000 + 1) * 1000 ))
t2=$((t1 + 1000))
t3=$((t1 + 2000))
push 1 $t1
st=$?
push 2 $t2
tap $((st | $?)) "remote write and textfile exports of both hosts at phases 1 and 2" "$out/push.log"

# the exact values (ns)
"$feed" --values a 0 2 > "$out/all-a"
"$feed" --values b 0 2 > "$out/all-b"
"$feed" --values a 1 2 > "$out/new-a"
"$feed" --values b 1 2 > "$out/new-b"
n=$(cat "$out/all-a" "$out/all-b" | wc -l)
sum=$(cat "$out/all-a" "$out/all-b" | awk '{ s += $1 } END { printf "%d", s }')

# The native histogram's name: the series of fleet/lat from host a that
# holds histogram samples (remote write's metric for an ns histogram).
tq=$(awk -v t=$((t2 + 600)) 'BEGIN { printf "%.3f", t / 1000 }')
sleep_until $((t2 + 700))
: > "$log"
metric=
for i in $(seq 50); do
	metric=$(api '{probe="fleet/lat",instance="host-a",job!="classic"}' "$tq" |
		tee "$log" | jq -r '[.data.result[] | select(.histogram) |
			.metric.__name__][0] // empty')
	[ -n "$metric" ] && break
	sleep 0.1
done
hosts=$(q "count(count by (instance) ($metric{probe=\"fleet/lat\"}))" "$tq")
echo "native metric '$metric', hosts '$hosts'" >> "$log"
[ -n "$metric" ] && [ "$hosts" = 2 ]
tap $? "Prometheus has the native histogram of both hosts ($metric)" "$log"
[ -n "$metric" ] || metric=no_native_histogram_found
sel="$metric{probe=\"fleet/lat\",job!=\"classic\"}"
# values in the metric's unit: seconds or ns
scale=1
case $metric in *_nanoseconds) ;; *_seconds) scale=1000000000 ;; esac

# ---- 2. count and sum ----
c=$(q "histogram_count(sum by (probe) ($sel))" "$tq")
s=$(q "histogram_sum(sum by (probe) ($sel))" "$tq")
echo "histogram_count '$c' (union $n), histogram_sum '$s' (union $sum ns, scale $scale)" > "$log"
[ "$c" = "$n" ]
tap $? "histogram_count of the sum of both hosts is the union's count ($n)" "$log"
awk -v s="$s" -v w="$sum" -v k="$scale" 'BEGIN {
	e = w / k; d = s - e; if (d < 0) d = -d
	exit !(s != "" && (k == 1 ? s == w : d <= e * 1e-12))
}'
tap $? "histogram_sum of the sum of both hosts is the union's sum ($sum ns)" "$log"

# The relative error of a quantile read from the native histogram: for
# the exp kind, a native bucket's hi / lo - 1 (fleet_feed --bound); the
# widest bucket sent is printed beside it.
err=$("$feed" --bound)
width=$(api "sum by (probe) ($sel)" "$tq" | jq -r '[.data.result[0].histogram[1].buckets[] |
	(.[1] | tonumber) as $lo | (.[2] | tonumber) as $hi |
	select($lo > 0) | $hi / $lo - 1] | max // empty')
# ... and the narrowest: the exp kind goes as it is, so every bucket of
# fleet/lat is one of its schema's, hi / lo - 1 = the bound
narrow=$(api "sum by (probe) ($sel)" "$tq" | jq -r '[.data.result[0].histogram[1].buckets[] |
	(.[1] | tonumber) as $lo | (.[2] | tonumber) as $hi |
	select($lo > 0) | $hi / $lo - 1] | min // empty')
echo "bucket widths (hi / lo - 1) from '$narrow' to '$width', the exp kind's $err" > "$log"
awk -v a="$narrow" -v b="$width" -v e="$err" 'BEGIN {
	exit !(a != "" && b != "" && a > e * (1 - 1e-6) && b < e * (1 + 1e-6)) }'
tap $? "the exp histogram arrives as it is: every native bucket is one of its schema (hi / lo = 1 + $err)" "$log"

# exact_p Q FILE...: the nearest-rank quantile Q of the values (ns)
exact_p() {
	local qq=$1
	shift
	sort -n "$@" | awk -v q="$qq" '{ v[NR] = $1 }
		END { r = int(q * NR); if (r < q * NR) r++; print v[r] }'
}
# within GOT EXACT_NS ERR: |GOT - EXACT| <= EXACT * ERR (GOT in the unit)
within() {
	awk -v g="$1" -v x="$2" -v e="$3" -v k="$scale" 'BEGIN {
		x /= k; d = g - x; if (d < 0) d = -d
		exit !(g != "" && e != "" && d <= x * e * (1 + 1e-9))
	}'
}
relerr() {
	awk -v g="$1" -v x="$2" -v k="$scale" 'BEGIN {
		x /= k; if (g == "" || !x) { print "?"; exit }
		printf "%+.2f %%", (g - x) / x * 100 }'
}

# ---- 3. p99 of the summed totals ----
p99=$(exact_p 0.99 "$out/all-a" "$out/all-b")
np99=$(q "histogram_quantile(0.99, sum by (probe) ($sel))" "$tq")
echo "exact p99 $p99 ns; native '$np99' ($(relerr "$np99" "$p99")); error bound $err (widest bucket sent: hi / lo - 1 = '$width')" > "$log"
within "$np99" "$p99" "$err"
tap $? "native p99 of both hosts' totals ($np99) is within the buckets' error ($err) of the exact p99 ($p99 ns)" "$log"

# ---- 4. p99 through rate() ----
w=1800ms
ra=$(q "histogram_count(rate($metric{probe=\"fleet/lat\",instance=\"host-a\",job!=\"classic\"}[$w]))" "$tq")
rb=$(q "histogram_count(rate($metric{probe=\"fleet/lat\",instance=\"host-b\",job!=\"classic\"}[$w]))" "$tq")
rp99=$(q "histogram_quantile(0.99, sum by (probe) (rate(${sel}[$w])))" "$tq")
da=$(wc -l < "$out/new-a")
db=$(wc -l < "$out/new-b")
# the weighted union's p99: each value of host h weighs rate_h / new_h
wp99=$( { awk -v w="$ra" -v d="$da" '{ print $1, w / d }' "$out/new-a"
	  awk -v w="$rb" -v d="$db" '{ print $1, w / d }' "$out/new-b"; } |
	sort -n -k1,1 | awk '{ v[NR] = $1; wt[NR] = $2; t += $2 }
		END { for (i = 1; i <= NR; i++) { c += wt[i]; if (c >= 0.99 * t * (1 - 1e-12)) { print v[i]; exit } } }')
up99=$(exact_p 0.99 "$out/new-a" "$out/new-b")
echo "rate counts: host-a '$ra' ($da new), host-b '$rb' ($db new): factors $(awk -v a="$ra" -v b="$rb" -v x="$da" -v y="$db" 'BEGIN { if (x && y) printf "%.6f %.6f", a / x, b / y }')" > "$log"
echo "exact p99 of the new values $up99 ns, weighted $wp99 ns; native through rate '$rp99' ($(relerr "$rp99" "$wp99"))" >> "$log"
[ -n "$ra" ] && [ -n "$rb" ] && within "$rp99" "$wp99" "$err"
tap $? "native p99 through sum by (probe) (rate()) ($rp99) is within the buckets' error of the exact p99 of the values between the samples ($wp99 ns)" "$log"
cp "$log" "$out/rate.txt"

# ---- 5. classic ----
csel='probe_core_latency_seconds_bucket{job="classic",probe="fleet/lat"}'
: > "$log"
for i in $(seq 100); do
	cc=$(q "sum(probe_core_latency_seconds_count{job=\"classic\",probe=\"fleet/lat\"})")
	[ "$cc" = "$n" ] && break
	sleep 0.1
done
cp99=$(q "histogram_quantile(0.99, sum by (le) ($csel))")
echo "classic count '$cc' (union $n); classic p99 '$cp99' s ($(scale=1000000000 relerr "$cp99" "$p99"))" >> "$log"
[ "$cc" = "$n" ] && awk -v g="$cp99" -v x="$p99" 'BEGIN {
	x /= 1e9; exit !(g != "" && g >= x / 2 && g <= x * 2) }'
tap $? "classic p99 from the le buckets of both hosts ($cp99 s) is within a factor of 2 of the exact p99" "$log"

# The numbers for docs/user-guide.md, with those of fleet/lat_loglinear,
# the same values in a histogram of the default kind (loglinear: classic
# "le" at powers of two only, native by remote write's mapping).
lsel="$metric{probe=\"fleet/lat_loglinear\",job!=\"classic\"}"
lp99=$(q "histogram_quantile(0.99, sum by (probe) ($lsel))" "$tq")
lcp99=$(q 'histogram_quantile(0.99, sum by (le) (probe_core_latency_seconds_bucket{job="classic",probe="fleet/lat_loglinear"}))')
nle=$(q 'count(probe_core_latency_seconds_bucket{job="classic",probe="fleet/lat",instance="host-a"})')
nlle=$(q 'count(probe_core_latency_seconds_bucket{job="classic",probe="fleet/lat_loglinear",instance="host-a"})')
nnat=$(api "$sel" "$tq" | jq -r '[.data.result[] | select(.metric.instance == "host-a") |
	.histogram[1].buckets | length][0] // empty')
{
	echo "exact_p99_ns $p99"
	echo "native_metric $metric"
	echo "native_p99 $np99 $(relerr "$np99" "$p99") bound $err buckets_host_a $nnat"
	echo "native_rate_p99 $rp99 $(relerr "$rp99" "$wp99") weighted_exact_ns $wp99"
	echo "classic_p99_s $cp99 $(scale=1000000000 relerr "$cp99" "$p99") le_series_host_a $nle"
	echo "loglinear_native_p99 $lp99 $(relerr "$lp99" "$p99")"
	echo "loglinear_classic_p99_s $lcp99 $(scale=1000000000 relerr "$lcp99" "$p99") le_series_host_a $nlle"
} > "$out/numbers.txt"
sed 's/^/# /' "$out/numbers.txt"

# ---- fleet/bycg: a histogram keyed by cgroup, as probectl exports it ----
cg=$(api 'histogram_count(sum by (cgroup) (probe_core_latency_nanoseconds{probe="fleet/bycg"}))' "$tq" |
	jq -r '[.data.result[] | "\(.metric.cgroup)=\(.value[1])"] | sort | join(" ")')
want="/system.slice/nginx.service=1000 /system.slice/postgres.service=100 /user.slice=200"
echo "per cgroup: '$cg', want '$want'" > "$log"
ci=$(api 'histogram_count(probe_core_latency_nanoseconds{probe="fleet/bycg"})' "$tq" |
	jq -r '[.data.result[] | "\(.metric.instance):\(.metric.key):\(.metric.cgroup)=\(.value[1])"] | sort | join(" ")')
wanti="host-a:1717:/user.slice=200 host-a:4242:/system.slice/nginx.service=600 host-b:5151:/system.slice/nginx.service=400 host-b:6262:/system.slice/postgres.service=100"
echo "per host and cgroup: '$ci', want '$wanti'" >> "$log"
[ "$cg" = "$want" ] && [ "$ci" = "$wanti" ]
tap $? "fleet/bycg keyed by cgroup, pushed by export --remote-write: one series per host and cgroup with its exact total (interval reads between), sum by (cgroup) adds them" "$log"

# ---- 6. host b loaded again ----
push 3 $t3
tap $? "remote write of both hosts after host b is loaded again" "$out/push.log"
tq3=$(awk -v t=$((t3 + 600)) 'BEGIN { printf "%.3f", t / 1000 }')
sleep_until $((t3 + 700))
selb="$metric{probe=\"fleet/lat\",instance=\"host-b\",job!=\"classic\"}"
nb=$(q "histogram_count($selb)" "$tq3")
r=$(q "resets(histogram_count($selb)[3s:100ms])" "$tq3")
rn=$(q "resets(${selb}[3s])" "$tq3")
inc=$(q "histogram_count(increase(${selb}[3s]))" "$tq3")
ch=$(q "changes(probe_core_created_timestamp_seconds{probe=\"fleet/lat\",instance=\"host-b\",job!=\"classic\"}[3s])" "$tq3")
rh=$(q "resets(probe_core_probe_hits_total{probe=\"fleet/lat\",instance=\"host-b\",job!=\"classic\"}[3s])" "$tq3")
echo "host-b count '$nb' (10), resets of its count '$r', of its hits_total '$rh', of the histogram '$rn' (2.42: floats only), increase '$inc' (>= 1010), created changes '$ch'" > "$log"
[ "$nb" = 10 ] && [ "$r" = 1 ] && [ "$rh" = 1 ] && [ "$ch" = 1 ] &&
	awk -v i="$inc" 'BEGIN { exit !(i != "" && i + 0 >= 1010) }'
tap $? "a reload of host b is one counter reset: increase() $inc, not negative; a new creation time" "$log"

# ---- 7. the dashboard ----
if [ -n "$dash" ]; then
	# the exprs with the template variables of this fleet
	# shellcheck disable=SC2016 # Grafana's variables, not the shell's
	jq -r '.. | objects | select(has("expr")) | .expr' "$dash" |
		sed -e 's/\$__rate_interval/3s/g' -e 's/\$__interval/1s/g' \
		    -e 's/\${\?instance}\?/host-a|host-b/g' \
		    -e 's/\${\?probe}\?/fleet\/lat/g' \
		    -e 's/\${\?metric}\?/'"$metric"'/g' > "$out/exprs"
	{
		echo "groups:"
		echo "  - name: dashboard"
		echo "    rules:"
		i=0
		while IFS= read -r e; do
			i=$((i + 1))
			echo "      - record: dashboard:expr$i"
			printf '        expr: %s\n' "$(jq -Rn --arg e "$e" '$e')"
		done < "$out/exprs"
	} > "$out/dashboard-rules.yml"
	ne=$(wc -l < "$out/exprs")
	promtool check rules "$out/dashboard-rules.yml" > "$log" 2>&1 && [ "$ne" -ge 4 ]
	tap $? "the dashboard's $ne exprs parse (promtool check rules)" "$log"
	st=0
	: > "$log"
	while IFS= read -r e; do
		res=$(api "$e" "$tq3")
		k=$(echo "$res" | jq -r 'if .status == "success" then (.data.result | length) else "error: " + .error end' 2> /dev/null)
		echo "$k series: $e" >> "$log"
		case $k in '' | 0 | error*) st=1 ;; esac
	done < "$out/exprs"
	tap $st "every dashboard expr returns data from the fleet's Prometheus" "$log"
	# The per-cgroup panels on fleet/bycg: one series per cgroup.
	st=0
	: > "$log"
	grep 'by (cgroup' "$out/exprs" | sed 's|fleet/lat|fleet/bycg|g' > "$out/exprs-cgroup"
	while IFS= read -r e; do
		k=$(api "$e" "$tq3" | jq -r '[.data.result[].metric.cgroup] | sort | join(" ")' 2> /dev/null)
		echo "cgroups '$k': $e" >> "$log"
		[ "$k" = "/system.slice/nginx.service /system.slice/postgres.service /user.slice" ] || st=1
	done < "$out/exprs-cgroup"
	[ -s "$out/exprs-cgroup" ] || st=1
	tap $st "the dashboard's $(wc -l < "$out/exprs-cgroup") per-cgroup exprs show one line per cgroup of fleet/bycg" "$log"
	# Its per-cgroup values per second at phase 2 (samples of phases 1
	# and 2 in the 3 s window): each host's new values per cgroup times
	# the factor rate() gives that host's series (the same timestamps and
	# ratios as fleet/lat's: its rate's count over its new values).
	: > "$log"
	fa=$(q "histogram_count(rate($metric{probe=\"fleet/lat\",instance=\"host-a\",job!=\"classic\"}[3s]))" "$tq")
	fb=$(q "histogram_count(rate($metric{probe=\"fleet/lat\",instance=\"host-b\",job!=\"classic\"}[3s]))" "$tq")
	fa=$(awk -v r="$fa" -v d="$da" 'BEGIN { if (r != "" && d) printf "%.12g", r / d }')
	fb=$(awk -v r="$fb" -v d="$db" 'BEGIN { if (r != "" && d) printf "%.12g", r / d }')
	want=$(awk -v a="$fa" -v b="$fb" 'BEGIN {
		printf "/system.slice/nginx.service=%.9g /system.slice/postgres.service=%.9g /user.slice=%.9g",
			300 * a + 200 * b, 50 * b, 100 * a }')
	e=$(grep 'histogram_count(sum by (cgroup' "$out/exprs-cgroup" | head -1)
	k=$(api "$e" "$tq" | jq -r '[.data.result[] | "\(.metric.cgroup)=\(.value[1] | tonumber)"] | sort | join(" ")' 2> /dev/null)
	k=$(echo "$k" | tr ' ' '\n' | awk -F= 'NF == 2 { printf "%s%s=%.9g", n++ ? " " : "", $1, $2 }')
	echo "factors host-a '$fa' host-b '$fb'; per cgroup '$k', want '$want': $e" > "$log"
	[ -n "$e" ] && [ -n "$fa" ] && [ -n "$fb" ] && [ "$k" = "$want" ]
	tap $? "the dashboard's per-cgroup values per second of fleet/bycg are each cgroup's exact new values times rate()'s factor" "$log"
fi

exit $failed
