#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One build against itself under different mrcd.conf lines:
# tests/bench/conf_ab.sh ROUNDS LINE... runs mrc-perf's 64 B WRITE_IMM
# rate (1 and 4 QPs) and 1 MiB bulk (1 and 4 QPs) through mrcd with each
# LINE in both hosts' mrcd.conf (e.g. "ack-every 1" "ack-every 8", or
# "tx-threads 1" "tx-threads 0"), alternating, ROUNDS times, on one direct
# testbed (4 planes, MTU 3000, as perf.sh). Beside each figure: the
# machine's CPU seconds, the receiver's ACKs sent and deferred, the
# sender's resends, EVs blamed and transmit runs that found another
# thread's slot. Not part of make bench: run it when a setting's default
# is in question (docs/perf.md).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${BENCH_OUT:-$TOP/build/bench}
export TB_PREFIX=mrca$$
ROUNDS=${1:-1}
shift || true
LINES=("ack-every 1" "ack-every 8")
[ $# -eq 0 ] || LINES=("$@")
SUITE=conf_ab
. "$TOP/tests/system/lib.sh"
. "$TOP/tests/bench/lib/cpu.sh"
mkdir -p "$OUT"
tb up --direct --planes 4 --mtu 3000 >/dev/null
chmod 0755 "$TMP"

: >"$TMP/rows"
for r in $(seq "$ROUNDS"); do
	for n in "${LINES[@]}"; do
		mrcd_conf h1 "$n" >"$TMP/h1.conf"
		mrcd_conf h2 "$n" >"$TMP/h2.conf"
		mrcd_spawn h1 -c "$TMP/h1.conf"
		mrcd_spawn h2 -c "$TMP/h2.conf"
		mrcd_ready h1 h2
		for t in rate1 rate4 bw1 bw4; do
			case $t in
			rate1) args=(--test rate -D 3) ;;
			rate4) args=(--test rate -D 3 -q 4) ;;
			bw1) args=(--test bw -s 1M -D 3 --mtu 4096) ;;
			bw4) args=(--test bw -s 1M -D 3 --mtu 4096 -q 4) ;;
			esac
			a0=$(dp_counter h2 acks_sent) d0=$(dp_counter h2 acks_deferred)
			x0=$(dp_counter h1 retransmits) e0=$(dp_counter h1 ev_assumed_bad)
			m0=$(dp_counter h1 tx_runs_not_caller)
			b0=$(cpu_busy_ns)
			mrc_perf "$t" "${args[@]}"
			jq -c --argjson round "$r" --arg conf "$n" --arg test "$t" \
				--argjson cpu_s "$(jq -n "$(cpu_ns_since "$b0") / 1e9")" \
				--argjson acks "$(($(dp_counter h2 acks_sent) - a0))" \
				--argjson deferred "$(($(dp_counter h2 acks_deferred) - d0))" \
				--argjson resends "$(($(dp_counter h1 retransmits) - x0))" \
				--argjson blamed "$(($(dp_counter h1 ev_assumed_bad) - e0))" \
				--argjson moved "$(($(dp_counter h1 tx_runs_not_caller) - m0))" '
				.results[0] | { round: $round, conf: $conf, test: $test,
				gbit_per_s, msg_per_s: .server_msg_per_s, machine_cpu_s: $cpu_s,
				acks_sent: $acks, acks_deferred: $deferred,
				retransmits: $resends, evs_blamed: $blamed,
				tx_runs_not_caller: $moved }' "$TMP/$t.json" >>"$TMP/rows"
		done
		mrcd_stop h1
		mrcd_stop h2
	done
done
jq -s . "$TMP/rows" >"$OUT/conf_ab.json"
jq -r '["round", "conf", "test", "gbit_s", "msg_s", "cpu_s", "acks", "deferred", "resends", "blamed", "not_caller"],
	(.[] | [.round, (.conf | gsub(" "; "=")), .test, .gbit_per_s, (.msg_per_s // "-" | if type == "number" then floor else . end),
		.machine_cpu_s, .acks_sent, .acks_deferred, .retransmits, .evs_blamed, .tx_runs_not_caller]) | @tsv' \
	"$OUT/conf_ab.json" | column -t
echo "(JSON: $OUT/conf_ab.json)"
