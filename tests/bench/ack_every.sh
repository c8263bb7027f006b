#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Coalesced ACKs, one build against itself: tests/bench/ack_every.sh
# [ROUNDS] [N...] runs mrc-perf's 64 B WRITE_IMM rate (1 and 4 QPs) and
# 1 MiB bulk (one QP) through mrcd with `ack-every N` for each N (default
# 1 and 8), alternating, ROUNDS times (default 1), on one direct testbed
# (4 planes, MTU 3000, as perf.sh). Beside each figure: the machine's
# CPU seconds, the receiver's ACKs sent and deferred, the sender's
# resends and EVs blamed. Not part of make bench: run it when the ACK
# rules change (docs/perf.md, "Coalesced ACKs").
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${BENCH_OUT:-$TOP/build/bench}
export TB_PREFIX=mrca$$
ROUNDS=${1:-1}
shift || true
EVERY=(1 8)
[ $# -eq 0 ] || EVERY=("$@")
SUITE=ack_every
. "$TOP/tests/system/lib.sh"
. "$TOP/tests/bench/lib/cpu.sh"
mkdir -p "$OUT"
tb up --direct --planes 4 --mtu 3000 >/dev/null
chmod 0755 "$TMP"

# counter HOST NAME: one data path counter of HOST (0 if not counted yet).
counter() { dp_counters "$1" | awk -v n="$2" '$1 == n { v = $2 } END { print v + 0 }'; }

mrcds_stop() {
	local h
	for h in h1 h2; do kill -TERM "$(cat "$TMP/$h.mrcd.pid")"; done
	for _ in $(seq 200); do
		[ -S "$TMP/h1.sock" ] || [ -S "$TMP/h2.sock" ] || return 0
		sleep 0.05
	done
	fail "an mrcd did not stop"
}

: >"$TMP/rows"
for r in $(seq "$ROUNDS"); do
	for n in "${EVERY[@]}"; do
		mrcd_conf h1 "ack-every $n" >"$TMP/h1.conf"
		mrcd_conf h2 "ack-every $n" >"$TMP/h2.conf"
		mrcd_start h1 -c "$TMP/h1.conf"
		mrcd_start h2 -c "$TMP/h2.conf"
		for t in rate1 rate4 bw; do
			case $t in
			rate1) args=(--test rate -D 3) ;;
			rate4) args=(--test rate -D 3 -q 4) ;;
			bw) args=(--test bw -s 1M -D 3 --mtu 4096) ;;
			esac
			a0=$(counter h2 acks_sent) d0=$(counter h2 acks_deferred)
			x0=$(counter h1 retransmits) e0=$(counter h1 ev_assumed_bad)
			b0=$(cpu_busy_ns)
			perf "$t" "${args[@]}"
			jq -c --argjson round "$r" --argjson every "$n" --arg test "$t" \
				--argjson cpu_s "$(jq -n "$(cpu_ns_since "$b0") / 1e9")" \
				--argjson acks "$(($(counter h2 acks_sent) - a0))" \
				--argjson deferred "$(($(counter h2 acks_deferred) - d0))" \
				--argjson resends "$(($(counter h1 retransmits) - x0))" \
				--argjson blamed "$(($(counter h1 ev_assumed_bad) - e0))" '
				.results[0] | { round: $round, ack_every: $every, test: $test,
				gbit_per_s, msg_per_s: .server_msg_per_s, machine_cpu_s: $cpu_s,
				acks_sent: $acks, acks_deferred: $deferred,
				retransmits: $resends, evs_blamed: $blamed }' "$TMP/$t.json" >>"$TMP/rows"
		done
		mrcds_stop
	done
done
jq -s . "$TMP/rows" >"$OUT/ack_every.json"
jq -r '["round", "ack_every", "test", "gbit_s", "msg_s", "cpu_s", "acks", "deferred", "resends", "blamed"],
	(.[] | [.round, .ack_every, .test, .gbit_per_s, (.msg_per_s // "-" | if type == "number" then floor else . end),
		.machine_cpu_s, .acks_sent, .acks_deferred, .retransmits, .evs_blamed]) | @tsv' \
	"$OUT/ack_every.json" | column -t
echo "(JSON: $OUT/ack_every.json)"
