#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Before and after, in the same run: tests/bench/ab.sh REV [ROUNDS]
# builds REV in a scratch worktree and runs its perf.sh and write.sh and
# this tree's, alternating (A B A B ...), ROUNDS times (default 3), so
# both sides see the same machine load; both run this tree's scripts
# (tests/bench/), each over its own build. Prints the median of each figure
# per side and after/before. Not part of make bench (it builds a second
# tree); run it when a change may touch the per-packet path.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
REV=${1:?usage: ab.sh REV [ROUNDS]}
ROUNDS=${2:-3}
[ "$(id -u)" = 0 ] || { echo "ab: needs root (network namespaces, BPF)" >&2; exit 1; }
WT=$(mktemp -d /tmp/mrc-ab.XXXXXX)
OUT=$TOP/build/bench/ab
cleanup() {
	git -C "$TOP" worktree remove --force "$WT" >/dev/null 2>&1 || rm -rf "$WT"
}
trap cleanup EXIT
git -C "$TOP" worktree add --detach "$WT" "$REV" >/dev/null
# Both sides are measured the same way: this tree's benchmark scripts.
cp -r "$TOP/tests/bench/." "$WT/tests/bench/"
unset MAKEFLAGS MFLAGS MAKELEVEL
make -C "$WT" -j2 all >"$WT/build.log" 2>&1 || { tail -20 "$WT/build.log"; exit 1; }
make -C "$TOP" -j2 all >/dev/null
rm -rf "$OUT"
mkdir -p "$OUT"

for r in $(seq "$ROUNDS"); do
	for side in before after; do
		tree=$TOP
		[ $side = before ] && tree=$WT
		mkdir -p "$OUT/$side/$r"
		echo "== round $r: $side ($([ $side = before ] && echo "$REV" || echo "this tree"))"
		BENCH_OUT=$OUT/$side/$r "$tree/tests/bench/perf.sh" | sed 's/^/  /'
		BENCH_OUT=$OUT/$side/$r "$tree/tests/bench/write.sh" | sed 's/^/  /'
	done
done

# median FIELD-EXPR SIDE: the median over the rounds of a jq expression on
# {perf: perf.json, write: write.json}.
median() {
	for r in $(seq "$ROUNDS"); do
		jq -n --slurpfile p "$OUT/$2/$r/perf.json" --slurpfile w "$OUT/$2/$r/write.json" \
			"{perf: \$p[0], write: \$w[0]} | $1"
	done | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

printf '\nmedians of %d rounds, %s (before) vs this tree (after)\n' "$ROUNDS" "$REV"
printf '  %-40s %14s %14s %8s\n' figure before after after/before
while IFS='|' read -r name expr; do
	b=$(median "$expr" before)
	a=$(median "$expr" after)
	printf '  %-40s %14.3f %14.3f %8.3f\n' "$name" "$b" "$a" "$(jq -n "$a / $b")"
done <<'EOF'
bw 1 MiB WRITEs, Gbit/s|.perf.bw_1mib_gbit_per_s
  its receiver CPU, s|.perf.receiver_cpu_s
  TCP in the same run, Gbit/s|.perf.tcp_gbit_per_s
  bw vs TCP|.perf.bw_vs_tcp
64 B WRITE_IMM, 1 QP, msg/s|.perf.rate_64b_1qp_msg_per_s
64 B WRITE_IMM, 4 QPs, msg/s|.perf.rate_64b_4qp_msg_per_s
8 B ping-pong RTT p50, us|.perf.lat_8b_rtt_us_p50
8 B ping-pong RTT p99, us|.perf.lat_8b_rtt_us_p99
  vs TCP p50|.perf.lat_vs_tcp_p50
4096 QPs, Gbit/s|.perf.qps_4096_gbit_per_s
mrc_xfer direct, Gbit/s|.write.runs[0].mrc.goodput_gbit_s
  TCP direct, Gbit/s|.write.runs[0].tcp_gbit_s
mrc_xfer fabric, Gbit/s|.write.runs[1].mrc.goodput_gbit_s
mrc_xfer 64 B WRITE_IMM, msg/s|.write.write_imm_64b_direct.writes_per_s
EOF
echo "  (rounds: $OUT/{before,after}/N/{perf,write}.json)"
