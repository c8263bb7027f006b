#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Incast: N senders into one receiver whose 4 links (one per plane) are
# switch egress queues (testbed shape: RATE each, a buffer, an ECN ramp,
# trim or drop when full). Every sender runs one verified mrc-perf bulk
# transfer (1 MiB WRITEs, one QP over 4 planes) at once, with NSCC (CC
# profile 1, mrcctl's defaults) or without (cc none).
#
#   tests/bench/incast.sh [N] [trim|drop] [RATE] [SECONDS] [nscc|none]
#
# Prints, and writes as JSON to $BENCH_OUT/incast-N-MODE-CC.json: each
# flow's goodput, their sum as a fraction of the bottleneck (4 x RATE),
# Jain's fairness index, the EVs the senders' path health blamed, what
# the queues trimmed, marked and dropped and their high-water mark, the
# senders' trims taken, window decreases and retransmits, and the CPU
# the run took. Defaults: 2 senders, trim, 200mbit, 6 s, nscc; with no
# arguments at all, the matrix make bench runs (below).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
# With no arguments (make bench): N = 2 and 4, trim and drop, NSCC and
# none, each a testbed of its own.
if [ $# = 0 ]; then
	for n in 2 4; do
		for mode in trim drop; do
			for cc in nscc none; do
				"$0" "$n" "$mode" 200mbit 6 "$cc"
			done
		done
	done
	exit 0
fi
N=${1:-2}
MODE=${2:-trim}
RATE=${3:-200mbit}
SECS=${4:-6}
CC=${5:-nscc}
OUT=${BENCH_OUT:-$TOP/build/bench}
export TB_PREFIX=mrci$$
. "$TOP/tests/system/lib.sh"
mkdir -p "$OUT"
case $MODE in trim | drop) ;; *) echo "incast: MODE is trim or drop" >&2; exit 2 ;; esac
case $CC in nscc | none) ;; *) echo "incast: CC is nscc or none" >&2; exit 2 ;; esac
[[ $N =~ ^[1-9]$ ]] || { echo "incast: N is 1..9 senders" >&2; exit 2; }

# h1 receives; h2..h(N+1) send. Two spines a plane keep the fabric small.
tb up --hosts $((N + 1)) --planes 4 --spines 2 --mtu 3000 >/dev/null
require_xdp_fabric
chmod 0755 "$TMP"
rate_bps=$(awk -v r="$RATE" 'BEGIN {
	n = r + 0; u = tolower(substr(r, length(n "") + 1))
	m["kbit"] = 1e3; m["mbit"] = 1e6; m["gbit"] = 1e9
	printf "%d\n", n * m[u] }')
[ "$rate_bps" -gt 0 ] || { echo "incast: RATE like 200mbit" >&2; exit 2; }
# A switch port's buffer of 2 ms at RATE, ECN from a fifth of it to 3/5.
buf=$((rate_bps / 8 / 500))
[ $buf -ge 32768 ] || buf=32768
shape_opts=(buffer "$buf" ecn "$((buf / 5))-$((buf * 3 / 5))" full "$MODE")
[ "$MODE" = trim ] && shape_opts+=(keep 64 dscp 46)
for p in 0 1 2 3; do
	tb shape "h1-p$p" "$RATE" "${shape_opts[@]}" from "p${p}l1"
done

mrcd_start h1
for ((i = 2; i <= N + 1; i++)); do
	mrcd_start "h$i" -v
	if [ "$CC" = nscc ]; then
		"$TOP/build/tools/mrcctl" -s "$TMP/h$i.sock" cc-profile set 1 \
			algorithm uet-1.0-nscc base-rtt 10000 state offline >/dev/null
		"$TOP/build/tools/mrcctl" -s "$TMP/h$i.sock" cc-profile set 1 \
			state online >/dev/null
	fi
done
ccarg=()
[ "$CC" = nscc ] && ccarg=(--cc-profile 1)

cpu0=$(awk '/^cpu / { print $2 + $3 + $4 + $6 + $7 + $8 }' /proc/stat)
spids=()
for ((i = 2; i <= N + 1; i++)); do
	PIDNAME=srv$i as_nobody h1 "$PERF" server -p $((18515 + i)) --wait 60 \
		>"$TMP/srv$i.out" 2>&1 &
	spids+=($!)
done
sleep 0.3
pids=()
for ((i = 2; i <= N + 1; i++)); do
	PIDNAME=cli$i as_nobody "h$i" "$PERF" client "$(tb addr h1 0)" \
		-p $((18515 + i)) --wait 10 -j --test bw --verify -s 1M \
		-D "$SECS" "${ccarg[@]}" >"$TMP/flow$i.json" 2>"$TMP/flow$i.err" &
	pids+=($!)
done
# Half way: what the first sender's QP and EVs look like.
sleep "$((SECS / 2))"
"$TOP/build/tools/mrcctl" -s "$TMP/h2.sock" -j qp show >"$OUT/incast-qp-mid.json" 2>&1 || true
"$TOP/build/tools/mrcctl" -s "$TMP/h2.sock" -j ev show >"$OUT/incast-ev-mid.json" 2>&1 || true
rc=0
for p in "${pids[@]}"; do wait "$p" || rc=1; done
for p in "${spids[@]}"; do wait "$p" || true; done
cpu1=$(awk '/^cpu / { print $2 + $3 + $4 + $6 + $7 + $8 }' /proc/stat)
[ $rc = 0 ] || fail "a flow failed: $(cat "$TMP"/flow*.err)"

# What the senders' path health did: EV state changes to ASSUMED_BAD
# (their reasons kept in $OUT/incast-blamed.txt).
blamed=0
: >"$OUT/incast-blamed.txt"
for ((i = 2; i <= N + 1; i++)); do
	b=$(grep -c -- '-> ASSUMED_BAD' "$TMP/h$i.mrcd.log" || true)
	blamed=$((blamed + b))
	grep -- '-> ASSUMED_BAD' "$TMP/h$i.mrcd.log" | sed "s/^/h$i /" >>"$OUT/incast-blamed.txt" || true
done
# The senders' data path counters (per-CPU array, summed).
txstat() {
	bpftool -j map dump pinned "$(mrcd_abi_dir "$1")/maps/mrc_tx_stats" |
		jq --argjson k "$2" '[.[].formatted | select(.key == $k) | .values[].value] | add // 0'
}
key_of() { awk -v n="$1" 'BEGIN { i = 0 } /^\tX\(/ { if ($0 ~ "\"" n "\"") { print i; exit } i++ }' \
	<(sed -n '/define MRC_TX_COUNTERS/,/^$/p' "$TOP/include/mrc/abi.h"); }
k_retx=$(key_of retransmits)
k_trims=$(key_of cc_trims)
k_md=$(key_of cc_decreases)
retx=0 trims=0 mds=0
for ((i = 2; i <= N + 1; i++)); do
	retx=$((retx + $(txstat "h$i" "$k_retx")))
	trims=$((trims + $(txstat "h$i" "$k_trims")))
	mds=$((mds + $(txstat "h$i" "$k_md")))
done
q_trim=0 q_mark=0 q_drop=0 hwm=0
for p in 0 1 2 3; do
	q_trim=$((q_trim + $(fab_counter "p${p}l1" queue_trimmed host)))
	q_mark=$((q_mark + $(fab_counter "p${p}l1" queue_ecn_marked host)))
	q_drop=$((q_drop + $(fab_counter "p${p}l1" queue_dropped host)))
	h=$(tb status -j | jq --arg n "p${p}l1" '[.nodes[] | select(.node == $n) | .interfaces[] | select(.ifname == "host") | .queue.hwm_bytes] | add // 0')
	[ "$h" -gt "$hwm" ] && hwm=$h
done

jq -s --argjson n "$N" --arg mode "$MODE" --arg cc "$CC" --arg rate "$RATE" \
	--argjson bottleneck "$((4 * rate_bps))" --argjson blamed "$blamed" \
	--argjson retx "$retx" --argjson trims "$trims" --argjson mds "$mds" \
	--argjson q_trim "$q_trim" --argjson q_mark "$q_mark" \
	--argjson q_drop "$q_drop" --argjson hwm "$hwm" --argjson buf "$buf" \
	--argjson cpu_ticks "$((cpu1 - cpu0))" --argjson hz "$(getconf CLK_TCK)" '
	[.[] | .results[0]] as $r | ($r | map(.gbit_per_s)) as $g |
	($g | add) as $sum | {
	senders: $n, mode: $mode, cc: $cc, link_rate: $rate,
	flow_gbit_per_s: $g, sum_gbit_per_s: $sum,
	fraction_of_bottleneck: ($sum * 1e9 / $bottleneck),
	jain_index: (($sum * $sum) / ($n * ($g | map(. * .) | add))),
	bad_bytes: ($r | map(.bad_bytes) | add),
	evs_blamed: $blamed, retransmits: $retx, cc_trims: $trims,
	cc_decreases: $mds, queue_trimmed: $q_trim, queue_ecn_marked: $q_mark,
	queue_dropped: $q_drop, queue_hwm_bytes: $hwm, queue_buffer_bytes: $buf,
	cpu_s: ($cpu_ticks / $hz), seconds: ($r | map(.seconds) | max) }' \
	"$TMP"/flow*.json >"$OUT/incast-$N-$MODE-$CC.json"
jq -r '"incast \(.senders)->1, \(.mode), cc \(.cc), 4 x \(.link_rate): \(.sum_gbit_per_s * 1000 | floor) Mbit/s = \(.fraction_of_bottleneck * 100 | floor) % of the bottleneck, Jain \(.jain_index * 1000 | floor / 1000), flows \(.flow_gbit_per_s | map(. * 1000 | floor) | join(" ")) Mbit/s",
	"  EVs blamed \(.evs_blamed), retransmits \(.retransmits), trims taken \(.cc_trims), window decreases \(.cc_decreases); queues: trimmed \(.queue_trimmed), marked \(.queue_ecn_marked), dropped \(.queue_dropped), high water \(.queue_hwm_bytes) of \(.queue_buffer_bytes) B; CPU \(.cpu_s) s over \(.seconds) s"' \
	"$OUT/incast-$N-$MODE-$CC.json"
