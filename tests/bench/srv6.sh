#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# MRC over an SRv6 uSID fabric beside the same fabric hashing (ECMP), same
# run: two hosts, four IPv6 planes of four spines, MTU 3000, mrc-perf
# through mrcd. SRv6: each side's QP on the generated profile of the
# testbed's uSID plan (mrcctl ev-profile usid: 16 EVs, one per plane and
# spine); ECMP: mrcd's own EVs (source ports). Per mode, REPS times each:
#  - goodput: 1 MiB WRITEs for 3 s, with the machine's busy CPU over it
#    (both hosts, the fabric, mrcd, softirq: all on these 2 cores) per GB;
#  - failover: 64 KiB WRITEs for 3 s, h1's access link of plane 2
#    blackholed both ways 1 s in (one fabricctl call), healed 1 s later:
#    the longest stretch with no completion, and the time until goodput
#    is back at 90 % of the surviving capacity (tools/perf/timeline.c,
#    as tests/bench/failover.sh).
# Figures are medians (and worsts); JSON in $BENCH_OUT/srv6.json.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${BENCH_OUT:-$TOP/build/bench}
REPS=${REPS:-3}
export TB_PREFIX=mrcs$$
. "$TOP/tests/system/lib.sh"
. "$TOP/tests/bench/lib/cpu.sh"
mkdir -p "$OUT"
chmod 0755 "$TMP"
CTL=$TOP/build/tools/mrcctl
FAB=$TOP/build/tests/fabricctl

# mode_run MODE: a testbed in MODE, both mrcds, the runs; results in
# $TMP/MODE.*.json. The fabric forwards only SRv6 in SRv6 mode, so
# mrc-perf's side channel (TCP) takes a veth of its own in both modes.
mode_run() {
	local mode=$1 up=() prof=() leaf ifc pin fault heal i
	[ "$mode" = srv6 ] && up=(--srv6)
	tb up "${up[@]}" --hosts 2 --planes 4 --spines 4 --mtu 3000 >/dev/null
	require_xdp_fabric
	side_channel
	MRCD_V6=1 mrcd_spawn h1
	MRCD_V6=1 mrcd_spawn h2
	mrcd_ready h1 h2
	if [ "$mode" = srv6 ]; then
		"$CTL" -s "$TMP/h1.sock" ev-profile usid 1 fmt 1 block fdbb:bb00 spines 4 planes 4 host 2 >/dev/null
		"$CTL" -s "$TMP/h2.sock" ev-profile usid 1 fmt 1 block fdbb:bb00 spines 4 planes 4 host 1 >/dev/null
		prof=(--ev-profile 1)
	fi
	read -r leaf ifc < <(tb links | awk '$1 == "h1-p2" { print $8, $9 }')
	pin="$TB_PREFIX-$leaf:/sys/fs/bpf/$TB_PREFIX/$leaf"
	fault="$FAB fault $pin $ifc blackhole on dir both"
	heal="$FAB fault $pin $ifc clear"
	for ((i = 1; i <= REPS; i++)); do
		perf_one "$mode.bw.$i" "${prof[@]}" -s 1M
		perf_one "$mode.fo.$i" "${prof[@]}" -s 64K --at "1000:$fault" --at "2000:$heal"
	done
	kill -TERM "$(cat "$TMP/h1.mrcd.pid")" "$(cat "$TMP/h2.mrcd.pid")" 2>/dev/null || true
	sleep 0.5
	tb down >/dev/null
}

# perf_one NAME [client options]: one 3 s bw run h1 -> h2; the machine's
# busy CPU over it (every process, softirq and mrcd included) in
# $TMP/NAME.cpu_ns.
perf_one() {
	local name=$1 prof=() busy
	shift
	[ "${1:-}" = --ev-profile ] && prof=("$1" "$2")
	as_nobody h2 "$PERF" server --wait 60 "${prof[@]}" >/dev/null 2>&1 &
	local srv=$!
	sleep 0.2
	busy=$(cpu_busy_ns)
	nsenter --net="/run/netns/$TB_PREFIX-h1" env MRC_SOCKET="$TMP/h1.sock" \
		"$PERF" client "$SC_ADDR_H2" --wait 10 -j --test bw -D 3 "$@" >"$TMP/$name.json"
	cpu_ns_since "$busy" >"$TMP/$name.cpu_ns"
	wait $srv || true
}

mode_run ecmp
mode_run srv6

for m in ecmp srv6; do
	for f in "$TMP"/"$m".bw.*.json; do
		jq --argjson ns "$(cat "${f%.json}.cpu_ns")" \
			'.results[0] | {gbps: .gbit_per_s, cpu_s: ($ns / 1e9), s: .seconds}' "$f"
	done | jq -s . >"$TMP/$m.bw"
	jq -s '[.[] | .failover]' "$TMP"/$m.fo.*.json >"$TMP/$m.fo"
done
jq -n --slurpfile eb "$TMP/ecmp.bw" --slurpfile sb "$TMP/srv6.bw" \
	--slurpfile ef "$TMP/ecmp.fo" --slurpfile sf "$TMP/srv6.fo" '
	def med: map(select(. != null)) | sort |
		if length == 0 then null else .[(length - 1) / 2 | floor] end;
	def stats(f): [.[] | f] | { median: med, worst: max };
	def bw: { gbit_per_s: ([.[].gbps] | med),
		  cpu_s_per_gb: ([.[] | .cpu_s / (.gbps * .s / 8)] | med) };
	def fo: { longest_gap_ms: stats(.longest_gap_ms), t90_ms: stats(.t90_ms),
		  failed_evs: stats(.failed_evs) };
	{ reps: ($eb[0] | length),
	  ecmp: { goodput: ($eb[0] | bw), failover: ($ef[0] | fo) },
	  srv6: { goodput: ($sb[0] | bw), failover: ($sf[0] | fo) } } |
	.srv6_over_ecmp_goodput = (if .ecmp.goodput.gbit_per_s then
		.srv6.goodput.gbit_per_s / .ecmp.goodput.gbit_per_s else null end)' \
	>"$OUT/srv6.json"
jq -r '
	def r2: if . == null then "null" else (. * 100 | round / 100 | tostring) end;
	"SRv6 uSID fabric beside ECMP, 2 hosts, 4 IPv6 planes x 4 spines, MTU 3000, \(.reps) runs each (median / worst):",
	"                                 ECMP                SRv6",
	"  goodput Gbit/s (1 MiB)         \(.ecmp.goodput.gbit_per_s | r2)                \(.srv6.goodput.gbit_per_s | r2)   (SRv6/ECMP \(.srv6_over_ecmp_goodput | r2)x)",
	"  CPU s per GB (whole machine)   \(.ecmp.goodput.cpu_s_per_gb | r2)                \(.srv6.goodput.cpu_s_per_gb | r2)",
	"  failover longest gap ms        \(.ecmp.failover.longest_gap_ms.median | r2) / \(.ecmp.failover.longest_gap_ms.worst | r2)      \(.srv6.failover.longest_gap_ms.median | r2) / \(.srv6.failover.longest_gap_ms.worst | r2)",
	"  back to 90 % ms                \(.ecmp.failover.t90_ms.median | r2) / \(.ecmp.failover.t90_ms.worst | r2)      \(.srv6.failover.t90_ms.median | r2) / \(.srv6.failover.t90_ms.worst | r2)",
	"  EVs out of use                 \(.ecmp.failover.failed_evs.median)                \(.srv6.failover.failed_evs.median)",
	"  (fault: h1 access link of plane 2 blackholed 1 s into 3 s, healed 1 s later; JSON: '"$OUT"'/srv6.json)"' "$OUT/srv6.json"
