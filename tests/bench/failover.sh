#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Failover of one plane of four under a bulk transfer: MRC (mrc-perf
# through mrcd, 64 KiB WRITEs, each completion timed) against MPTCP with a
# subflow on each plane (tests/tools/mptcp_bulk), same fabric, same fault,
# same run, REPS times each. The fault: h1's access link of plane 2
# blackholed in both directions (links stay up), 1 s into a 3 s transfer,
# healed 1 s later; one fabricctl call, its own time reported.
# Figures, medians and worsts: the longest stretch with nothing completed
# (MRC: a WRITE completion; MPTCP: a read at the receiver) between fault
# and heal, and the time from the fault until goodput in 2 ms windows is
# back at 90 % of the surviving capacity, 0 when it never fell below
# (MRC: the goodput before the fault times the share of EVs still good;
# MPTCP: times 3/4; tools/perf/timeline.c has the exact rule). The MRC run
# is repeated with no fault, for the gaps this machine makes anyway.
# MRC's gaps are measured twice: by when mrc-perf polled each completion,
# and by the data path's completion timestamps (mrcx_poll_cq_ts), which
# leave out the time the application itself was off its CPU.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${BENCH_OUT:-$TOP/build/bench}
REPS=${REPS:-10}
export TB_PREFIX=mrcf$$
. "$TOP/tests/system/lib.sh"
mkdir -p "$OUT"
tb up --hosts 2 --planes 4 --spines 4 --mtu 3000 >/dev/null
require_xdp_fabric
chmod 0755 "$TMP"

# The fault and its heal, one fabricctl call each: the leaf of plane 2
# facing h1, on the interface to h1.
read -r leaf ifc < <(tb links | awk '$1 == "h1-p2" { print $8, $9 }')
FAB=$TOP/build/tests/fabricctl
PIN="$TB_PREFIX-$leaf:/sys/fs/bpf/$TB_PREFIX/$leaf"
FAULT="$FAB fault $PIN $ifc blackhole on dir both"
HEAL="$FAB fault $PIN $ifc clear"

# MPTCP: the server announces its other planes' addresses, the client
# opens a subflow to each.
for h in h1 h2; do
	tb exec $h sysctl -qw net.mptcp.enabled=1
	tb exec $h ip mptcp limits set subflow 8 add_addr_accepted 8
done
for p in 1 2 3; do
	tb exec h2 ip mptcp endpoint add "$(tb addr h2 $p)" signal
done

# FAILOVER_CONF="LINE": that mrcd.conf line in both hosts (e.g.
# "tx-lanes 1"), to compare a setting's failover.
if [ -n "${FAILOVER_CONF:-}" ]; then
	mrcd_conf h1 "$FAILOVER_CONF" >"$TMP/h1.conf"
	mrcd_conf h2 "$FAILOVER_CONF" >"$TMP/h2.conf"
	mrcd_spawn h1 -c "$TMP/h1.conf"
	mrcd_spawn h2 -c "$TMP/h2.conf"
	mrcd_ready h1 h2
else
	mrcd_spawn h1
	mrcd_spawn h2
	mrcd_ready h1 h2
fi

# Both hosts' data path counters (lib.sh's dp_counters), "h1.name value".
counters() {
	local h
	for h in h1 h2; do
		dp_counters $h | sed "s/^/$h./"
	done
}

# mrc_run NAME FAULT HEAL: NAME.json is mrc-perf's report, with the
# counters that moved during the run added as .counters (to tell what
# made a long gap: ACK timeouts, overdue resends, SACK losses).
mrc_run() {
	counters >"$TMP/$1.before"
	as_nobody h2 "$PERF" server --wait 60 >/dev/null 2>&1 &
	local srv=$!
	nsenter --net="/run/netns/$TB_PREFIX-h1" env MRC_SOCKET="$TMP/h1.sock" \
		"$PERF" client "$(tb addr h2 0)" --wait 10 -j --test bw -s 64K -D 3 \
		--at "1000:$2" --at "2000:$3" >"$TMP/$1.perf"
	wait $srv || true
	counters >"$TMP/$1.after"
	awk 'NR == FNR { b[$1] = $2; next } $2 - b[$1] != 0 { print $1, $2 - b[$1] }' \
		"$TMP/$1.before" "$TMP/$1.after" |
		jq -R -n '[inputs | split(" ") | {(.[0]): (.[1] | tonumber)}] | add // {}' \
			>"$TMP/$1.counters"
	jq --slurpfile c "$TMP/$1.counters" '.failover.counters = $c[0]' \
		"$TMP/$1.perf" >"$TMP/$1.json"
}

mptcp_run() {
	nsenter --net="/run/netns/$TB_PREFIX-h2" "$TOP/build/tests/mptcp_bulk" server \
		--port 18600 --seconds 3 --surviving 0.75 \
		--at "1000:$FAULT" --at "2000:$HEAL" >"$TMP/mptcp.$1.json" &
	local srv=$!
	sleep 0.3
	tb exec h1 "$TOP/build/tests/mptcp_bulk" client --dst "$(tb addr h2 0)" \
		--port 18600 --seconds 3.5
	wait $srv
}

# How long this machine stops a CPU by itself, with nothing else running
# (tests/bench/pauses.c): a pause of the CPU that carries the QP's calls
# is a stretch without a completion no transport here can avoid.
"$TOP/build/tests/pauses" "${FAILOVER_PAUSES_S:-5}" >"$TMP/pauses.json"

# The same MRC run with no fault ("true"): how long this 2-core machine
# leaves a transfer without a completion anyway, the floor under any gap.
for ((i = 1; i <= REPS; i++)); do
	mrc_run mrc.$i "$FAULT" "$HEAL"
	mptcp_run $i
	mrc_run calm.$i true true
done

for k in mrc mptcp calm; do
	jq -s '[.[] | .failover]' "$TMP"/$k.*.json >"$TMP/$k.all"
done
jq -n --slurpfile m "$TMP/mrc.all" --slurpfile t "$TMP/mptcp.all" --slurpfile c "$TMP/calm.all" \
	--slurpfile p "$TMP/pauses.json" '
	def med: map(select(. != null)) | sort |
		if length == 0 then null else .[(length - 1) / 2 | floor] end;
	def stats(f): [.[] | f] | { median: med, worst: max };
	{ reps: ($m[0] | length),
	  mrc: ($m[0] | { longest_gap_ms: stats(.longest_gap_ms),
			  longest_gap_by_completion_ts_ms: stats(.longest_gap_by_completion_ts_ms),
			  t90_ms: stats(.t90_ms),
			  detection_ms: stats(.detection_ms), failed_evs: stats(.failed_evs),
			  fault_cmd_ms: stats(.at[0].took_ms) }),
	  mrc_no_fault: ($c[0] | { longest_gap_ms: stats(.longest_gap_ms),
			  longest_gap_by_completion_ts_ms: stats(.longest_gap_by_completion_ts_ms) }),
	  mrc_runs: [$m[0][] | { fault: true, longest_gap_by_completion_ts_ms,
			  longest_gap_by_completion_ts_at_ns, counters }],
	  mrc_no_fault_runs: [$c[0][] | { fault: false, longest_gap_by_completion_ts_ms,
			  longest_gap_by_completion_ts_at_ns, counters }],
	  mptcp: ($t[0] | { longest_gap_ms: stats(.longest_gap_ms), t90_ms: stats(.t90_ms) }),
	  machine_pauses: ($p[0] | { seconds, longest_ms: ([.cpus[].longest_ms] | max),
			  over_1_ms_per_cpu_s: (([.cpus[].over_1_ms] | add) / (.cpus | length) / .seconds),
			  cpus }) }' \
	>"$OUT/failover.json"
jq -r '
	"failover of plane 2 of 4 under a bulk transfer, \(.reps) runs each (median / worst):",
	"                              MRC             MPTCP           MRC, no fault",
	"  longest gap ms              \(.mrc.longest_gap_ms.median) / \(.mrc.longest_gap_ms.worst)   \(.mptcp.longest_gap_ms.median) / \(.mptcp.longest_gap_ms.worst)   \(.mrc_no_fault.longest_gap_ms.median) / \(.mrc_no_fault.longest_gap_ms.worst)",
	"  ...by completion timestamps \(.mrc.longest_gap_by_completion_ts_ms.median) / \(.mrc.longest_gap_by_completion_ts_ms.worst)   -               \(.mrc_no_fault.longest_gap_by_completion_ts_ms.median) / \(.mrc_no_fault.longest_gap_by_completion_ts_ms.worst)",
	"  back to 90 % ms             \(.mrc.t90_ms.median) / \(.mrc.t90_ms.worst)   \(.mptcp.t90_ms.median) / \(.mptcp.t90_ms.worst)",
	"  MRC: first EV ASSUMED_BAD \(.mrc.detection_ms.median) ms after the fault command returned (it took \(.mrc.fault_cmd_ms.median) ms; negative: before it returned); \(.mrc.failed_evs.median) EVs out of use",
	"  (from the fault command'"'"'s return to the heal; JSON: '"$OUT"'/failover.json)",
	"  this machine by itself, nothing else running: \(.machine_pauses.over_1_ms_per_cpu_s * 100 | round / 100) pauses of a CPU over 1 ms a second, the longest \(.machine_pauses.longest_ms) ms (\(.machine_pauses.seconds) s; tests/bench/pauses.c)",
	"  each MRC run: longest gap by completion timestamps ms, then h1'"'"'s retransmits, ack_timeouts, overdue_resends, sack_losses:",
	((.mrc_runs + .mrc_no_fault_runs)[] | "    \(if .fault then "fault   " else "no fault" end) \(.longest_gap_by_completion_ts_ms)  \(.counters["h1.retransmits"] // 0) \(.counters["h1.ack_timeouts"] // 0) \(.counters["h1.overdue_resends"] // 0) \(.counters["h1.sack_losses"] // 0)")' "$OUT/failover.json"
