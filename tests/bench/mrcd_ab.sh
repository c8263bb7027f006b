#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two mrcd binaries, one testbed: tests/bench/mrcd_ab.sh ROUNDS MRCD_A
# MRCD_B runs the 64 B WRITE_IMM rate (4 QPs, then 1 QP, 3 s each,
# counted at the receiver) under A and under B, alternating, everything
# else (libmrc, mrc-perf, the BPF programs each mrcd carries) this tree's
# build. One line per round and side, with the sending mrcd's CPU (clock
# ticks); then the medians. Not part of make bench.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
ROUNDS=${1:?usage: mrcd_ab.sh ROUNDS MRCD_A MRCD_B}
A=${2:?}
B=${3:?}
export TB_PREFIX=mrca$$
. "$TOP/tests/system/lib.sh"
tb up --direct --planes 4 --mtu 3000 >/dev/null
chmod 0755 "$TMP"
for r in $(seq "$ROUNDS"); do
	for side in A B; do
		bin=$A
		[ $side = B ] && bin=$B
		MRCD=$bin mrcd_spawn h1
		MRCD=$bin mrcd_spawn h2
		mrcd_ready h1 h2
		pid=$(cat "$TMP/h1.mrcd.pid")
		c0=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
		mrc_perf r4 --test rate -D 3 -q 4
		mrc_perf r1 --test rate -D 3
		c1=$(awk '{ print $14 + $15 }' "/proc/$pid/stat")
		echo "$r $side $(jq '.results[0].server_msg_per_s | floor' "$TMP/r4.json") $(jq '.results[0].server_msg_per_s | floor' "$TMP/r1.json") $((c1 - c0))" |
			tee -a "$TMP/rounds"
		for h in h1 h2; do
			p=$(cat "$TMP/$h.mrcd.pid")
			kill "$p"
			for _ in $(seq 100); do
				kill -0 "$p" 2>/dev/null || break
				sleep 0.1
			done
		done
		rm -f "$TMP"/h?.mrcd.pid "$TMP"/h?.sock
	done
done
echo "round side rate_4qp_msg_per_s rate_1qp_msg_per_s sender_mrcd_cpu_ticks: above; medians:"
for side in A B; do
	for col in 3 4 5; do
		awk -v s=$side -v c=$col '$2 == s { print $c }' "$TMP/rounds" | sort -n |
			awk '{ v[NR] = $1 } END { printf "%s ", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
	done | sed "s/^/  $side: rate_4qp rate_1qp cpu_ticks = /"
	echo
done
