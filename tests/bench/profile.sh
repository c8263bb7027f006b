#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Where the CPU goes during a bulk transfer (docs/perf.md): one QP, 1 MiB
# WRITEs through mrcd and libmrc (mrc-perf), direct mode, 4 planes, then
# one TCP flow (iperf3) on the same links. In the middle of each transfer,
# for PROFILE_WINDOW seconds:
#   - perf record -a -g, folded into the data path's stages by symbol
#     (tests/bench/lib/stages.awk) and into the top symbols;
#   - the BPF programs' own run time (kernel.bpf_stats_enabled): ns per
#     run of each program, mrc_xdp_tx (a data packet built and sent),
#     mrc_xdp_rx at the receiver (a data packet placed and ACKed) and at
#     the sender (an ACK taken);
#   - /proc/stat per CPU: user, system, softirq, idle, and the CPU per GB
#     moved (bytes from the receiver's placed_bytes, or TCP's received
#     bytes over the same window);
#   - each process's own CPU (mrcd on both hosts, mrc-perf both ends).
# Figures printed and in $BENCH_OUT/profile.json. Every hop runs on the
# same 2 CPUs, sender and receiver alike: the CPU figures are the
# machine's, both ends together.
#
# Twice, each on a testbed of its own: the veth ports' NAPI as the kernel
# runs it by default (a frame redirected into a veth is received in
# softirq on the CPU that sent it, so the sender's transmit call, the
# receiver's XDP and the ACK's way back all run on one CPU), and threaded
# (PROFILE_THREADED=1: each port's NAPI in a kernel thread the scheduler
# places, as a NIC's queues interrupt CPUs of their own); then the
# 4-spine fabric with the default NAPI. Each writes profile-napi.json,
# profile-threaded.json or profile-fabric-napi.json.
#
# PROFILE_MODE=fabric profiles the 4-spine fabric instead of direct mode:
# the fabric's forwarding program (mrc_fab_xdp, every hop) is then among
# the programs, with its runs per data packet.
#
# PROFILE_PERF_ARGS adds mrc-perf options after "--test bw -s 1M" (the
# later win): "--test rate -s 64" profiles the 64-byte WRITE_IMM rate
# test instead; its Gbit/s are then 64-byte messages' (x 1e9 / 512 for
# messages per second). The first line says what ran.
#
# PROFILE_MTU (3000), PROFILE_SECONDS (8), PROFILE_WINDOW (3),
# PROFILE_MODE (direct).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${BENCH_OUT:-$TOP/build/bench}
if [ -z "${PROFILE_THREADED+set}" ]; then
	PROFILE_THREADED=0 "$0"
	PROFILE_THREADED=1 "$0"
	PROFILE_THREADED=0 PROFILE_MODE=fabric "$0"
	exit
fi
MODE=${PROFILE_MODE:-direct}
case $MODE in direct | fabric) ;; *) echo "profile: PROFILE_MODE=$MODE: want direct or fabric" >&2; exit 2 ;; esac
NAME=profile-napi
[ "$PROFILE_THREADED" = 1 ] && NAME=profile-threaded
[ "$MODE" = fabric ] && NAME=${NAME/profile-/profile-fabric-}
MTU=${PROFILE_MTU:-3000}
SECS=${PROFILE_SECONDS:-8}
WIN=${PROFILE_WINDOW:-3}
export TB_PREFIX=mrcq$$
. "$TOP/tests/system/lib.sh"
PERFTOOL=$(type -P perf) || skip "needs perf (linux-perf; make deps installs it)"
mkdir -p "$OUT"
STATS0=$(sysctl -n kernel.bpf_stats_enabled)
restore_stats() { sysctl -qw kernel.bpf_stats_enabled="$STATS0"; }
trap 'restore_stats; cleanup' EXIT
sysctl -qw kernel.bpf_stats_enabled=1

if [ "$MODE" = direct ]; then
	tb up --direct --planes 4 --mtu "$MTU" >/dev/null
else
	tb up --planes 4 --spines 4 --mtu "$MTU" >/dev/null
fi
if [ "$PROFILE_THREADED" = 1 ]; then
	for h in h1 h2; do
		tb exec "$h" sh -c 'for p in /sys/class/net/p*/threaded; do echo 1 >"$p"; done'
	done
fi
chmod 0755 "$TMP"
mrcd_spawn h1
mrcd_spawn h2
mrcd_ready h1 h2

# cpu_snap FILE: /proc/stat's per-CPU lines (USER_HZ ticks).
cpu_snap() { grep '^cpu[0-9]' /proc/stat >"$1"; }

# proc_cpu PID: user+system ticks of a process so far.
proc_cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }

# prog_snap FILE: id, name, run_time_ns, run_cnt of every BPF program.
prog_snap() {
	bpftool -j prog show | jq -c '[.[] | select(.run_cnt != null) |
		{id, name, run_time_ns, run_cnt}]' >"$1"
}

# prog_id HOST NAME: the id of HOST's mrcd program NAME (its pin).
prog_id() {
	bpftool -j prog show pinned "$(mrcd_abi_dir "$1")/progs/$2" | jq .id
}

# rx_counter HOST INDEX: mrc_rx_stats[INDEX] of HOST's mrcd, summed over
# the CPUs (one map read: the window's edges stay sharp).
rx_counter() {
	bpftool -j map lookup pinned "$(mrcd_abi_dir "$1")/maps/mrc_rx_stats" key "$2" 0 0 0 |
		jq '[(.formatted // .).values[].value] | add // 0'
}
# The index of placed_bytes in MRC_RX_COUNTERS (include/mrc/abi.h).
PLACED=$(sed -n '/MRC_RX_COUNTERS(X)/,/^$/p' "$TOP/include/mrc/abi.h" |
	grep -o 'X([A-Z_0-9]*, "[a-z_0-9]*"' | grep -n '"placed_bytes"' | cut -d: -f1)
PLACED=$((PLACED - 1))

# window TAG: the window's snapshots and profile, TAG.* files in $TMP;
# TAG.s is how long the snapshots were apart, in seconds.
window() {
	local tag=$1 t0
	t0=$(date +%s%N)
	cpu_snap "$TMP/$tag.cpu0"
	prog_snap "$TMP/$tag.prog0"
	"$PERFTOOL" record -q -a -g -o "$TMP/$tag.perf" -- sleep "$WIN" >/dev/null 2>&1
	cpu_snap "$TMP/$tag.cpu1"
	prog_snap "$TMP/$tag.prog1"
	jq -n "($(date +%s%N) - $t0) / 1e9" >"$TMP/$tag.s"
}

# The mrc transfer: bytes over the window from h2's placed_bytes.
PIDNAME=srv as_nobody h2 "$PERF" server --wait 60 >"$TMP/bw.srv" 2>&1 &
srv_job=$!
# shellcheck disable=SC2086
PIDNAME=cli as_nobody h1 "$PERF" client "$(tb addr h2 0)" --wait 10 -j \
	--test bw -s 1M -D "$SECS" ${PROFILE_PERF_ARGS:-} >"$TMP/bw.json" 2>"$TMP/bw.err" &
cli_job=$!
sleep $(((SECS - WIN) / 2))
pids="$(cat "$TMP/h1.mrcd.pid") $(cat "$TMP/h2.mrcd.pid") $(cat "$TMP/cli.pid") $(cat "$TMP/srv.pid")"
placed0=$(rx_counter h2 $PLACED)
t0=$(date +%s%N)
p0=()
for p in $pids; do p0+=("$(proc_cpu "$p")"); done
window mrc
placed1=$(rx_counter h2 $PLACED)
# The data path's JITed line tables, while its programs are loaded.
"$TOP/build/tests/jit_lines" "$(prog_id h1 mrc_xdp_tx)" "$(prog_id h1 mrc_xdp_rx)" \
	"$(prog_id h2 mrc_xdp_rx)" 2>"$TMP/jit.err" | sort >"$TMP/jit.lines" || true
mrc_ns=$(($(date +%s%N) - t0))
d=()
i=0
for p in $pids; do
	d+=($(($(proc_cpu "$p") - p0[i])))
	i=$((i + 1))
done
wait "$cli_job" || fail "mrc-perf failed: $(cat "$TMP/bw.err" "$TMP/bw.srv")"
wait "$srv_job" || true
hz=$(getconf CLK_TCK)
procs=$(jq -n --argjson hz "$hz" --argjson w "$(jq -n "$mrc_ns / 1e9")" \
	--argjson d "[$(IFS=,; echo "${d[*]}")]" '
	{mrcd_sender: ($d[0] / $hz / $w), mrcd_receiver: ($d[1] / $hz / $w),
	 mrc_perf_client: ($d[2] / $hz / $w), mrc_perf_server: ($d[3] / $hz / $w)}')
tx_id=$(prog_id h1 mrc_xdp_tx)
rx_snd=$(prog_id h1 mrc_xdp_rx)
rx_rcv=$(prog_id h2 mrc_xdp_rx)
# Frames per transmit call over the whole run: the sender's packets and
# idle runs (tx counters) against the calls its mrcd logs when it stops.
read -r tx_pkts tx_idle < <(dp_counters h1 | awk '
	$1 == "tx_packets" { p = $2 } $1 == "tx_idle" { i = $2 } END { print p + 0, i + 0 }')
kill "$(cat "$TMP/h2.mrcd.pid")"
tx_calls=$(mrcd_tx_calls h1)
[ -n "$tx_calls" ] || fail "h1's mrcd did not log its transmit calls: $(tail -3 "$TMP/h1.mrcd.log")"

# The TCP transfer on the same links: bytes over the window from the
# receiver's ports.
tb exec h2 timeout $((SECS + 30)) iperf3 -s -1 -B "$(tb addr h2 0)" >/dev/null 2>&1 &
tsrv_job=$!
for _ in $(seq 50); do
	tb exec h2 ss -Hltn "sport = :5201" | grep -q . && break
	sleep 0.1
done
tb exec h1 iperf3 -c "$(tb addr h2 0)" -t "$SECS" -J >"$TMP/tcp.json" 2>/dev/null &
tcp_job=$!
sleep $(((SECS - WIN) / 2))
# h2's received bytes on its ports (frames, headers too: 2 % at MTU 3000).
rx_bytes() { tb exec h2 sh -c 'cat /sys/class/net/p*/statistics/rx_bytes' | awk '{ s += $1 } END { printf "%.0f", s }'; }
tcp0=$(rx_bytes)
t0=$(date +%s%N)
window tcp
tcp1=$(rx_bytes)
tcp_ns=$(($(date +%s%N) - t0))
wait "$tcp_job" || fail "iperf3 failed"
wait "$tsrv_job" || true
tcp_bytes=$((tcp1 - tcp0))

# stage_pct TAG: the profile folded into stages, as JSON.
stage_pct() {
	"$PERFTOOL" report -i "$TMP/$1.perf" --no-children --sort comm,sym \
		--stdio -g none --percent-limit 0 -q 2>/dev/null |
		awk -f "$TOP/tests/bench/lib/stages.awk"
}
# top TAG: the 15 hottest symbols.
top() {
	"$PERFTOOL" report -i "$TMP/$1.perf" --no-children --sort sym \
		--stdio -g none --percent-limit 0 -q 2>/dev/null | head -15 |
		awk '{ p = $1; sub(/%/, "", p); $1 = ""; $2 = ""; sub(/^ +/, "");
			printf "%s{\"pct\": %s, \"sym\": \"%s\"}", n++ ? "," : "[", p, $0 }
			END { print n ? "]" : "[]" }'
}
# cpu TAG BYTES: the machine's CPU over the window, per CPU and per GB.
cpu() {
	paste "$TMP/$1.cpu0" "$TMP/$1.cpu1" | awk -v hz="$hz" -v bytes="$2" '
	{ n = NF / 2; u = ($(n+2) + $(n+3)) - ($2 + $3); s = $(n+4) - $4;
	  idle = ($(n+5) + $(n+6)) - ($5 + $6); irq = $(n+7) - $7;
	  si = $(n+8) - $8; tot = u + s + idle + irq + si;
	  U += u; S += s; I += idle; Q += irq + si;
	  c[NR] = sprintf("{\"cpu\": \"%s\", \"user_pct\": %.1f, \"sys_pct\": %.1f, \"softirq_pct\": %.1f, \"idle_pct\": %.1f}",
		$1, 100 * u / tot, 100 * s / tot, 100 * (irq + si) / tot, 100 * idle / tot) }
	END { gb = bytes / 1e9;
	  printf "{\"bytes\": %.0f, \"gbit_per_s\": %.3f, \"per_cpu\": [", bytes, 0;
	  for (i = 1; i <= NR; i++) printf "%s%s", (i > 1 ? "," : ""), c[i];
	  printf "], \"cpu_s_per_gb\": {\"user\": %.3f, \"sys\": %.3f, \"softirq\": %.3f, \"total\": %.3f}}\n",
		U / hz / gb, S / hz / gb, Q / hz / gb, (U + S + Q) / hz / gb }'
}
# runs TAG SELECT: the programs jq's SELECT picks, together, over the
# window: runs, ns per run, share of one CPU (null when none ran).
runs() {
	jq -n --slurpfile a "$TMP/$1.prog0" --slurpfile b "$TMP/$1.prog1" \
		--argjson s "$(cat "$TMP/$1.s")" '
		def tot(x): [x[] | '"$2"'] |
			{t: (map(.run_time_ns) | add // 0), n: (map(.run_cnt) | add // 0)};
		tot($a[0]) as $x | tot($b[0]) as $y |
		if $y.n > $x.n then {runs: ($y.n - $x.n),
			ns_per_run: (($y.t - $x.t) / ($y.n - $x.n) * 10 | floor / 10),
			cpu_pct: (($y.t - $x.t) / 1e9 / $s * 100 * 10 | floor / 10)}
		else null end'
}
# prog TAG ID: program ID; fab TAG: every fabric node's forwarding program.
prog() { runs "$1" "select(.id == $2)"; }
fab() { runs "$1" 'select(.name == "mrc_fab_xdp")'; }

mrc_bytes=$((placed1 - placed0))
jq -n --arg mode "$MODE" --arg perf_args "${PROFILE_PERF_ARGS:-}" --argjson mtu "$MTU" --argjson win "$WIN" --arg napi "$([ "$PROFILE_THREADED" = 1 ] && echo threaded || echo softirq)" --argjson mrc_s "$(jq -n "$mrc_ns / 1e9")" \
	--argjson tcp_s "$(jq -n "$tcp_ns / 1e9")" \
	--argjson bw "$(jq '.results[0]' "$TMP/bw.json")" \
	--argjson mcpu "$(cpu mrc "$mrc_bytes")" --argjson tcpu "$(cpu tcp "$tcp_bytes")" \
	--argjson mst "$(stage_pct mrc)" --argjson tst "$(stage_pct tcp)" \
	--argjson mtop "$(top mrc)" --argjson ttop "$(top tcp)" \
	--argjson tx "$(prog mrc "$tx_id")" --argjson rxr "$(prog mrc "$rx_rcv")" \
	--argjson rxs "$(prog mrc "$rx_snd")" --argjson procs "$procs" \
	--argjson fab "$(fab mrc)" --argjson tfab "$(fab tcp)" \
	--argjson txp "$tx_pkts" --argjson txi "$tx_idle" --argjson calls "$tx_calls" '
	{benchmark: "profile", mode: $mode, perf_args: $perf_args, mtu: $mtu, window_s: $win, napi: $napi,
	 mrc: {goodput_gbit_per_s: $bw.gbit_per_s,
	       window: ($mcpu | .gbit_per_s = (.bytes * 8 / $mrc_s / 1e9)),
	       programs: {mrc_xdp_tx: $tx, mrc_xdp_rx_receiver: $rxr, mrc_xdp_rx_sender: $rxs},
	       fabric_hops: $fab,
	       process_cpu_per_s: $procs, stages_pct: $mst, top: $mtop,
	       tx_calls: $calls, tx_packets: $txp, tx_idle_runs: $txi,
	       packets_per_call: ($txp / $calls * 10 | round / 10)},
	 tcp: {window: ($tcpu | .gbit_per_s = (.bytes * 8 / $tcp_s / 1e9)),
	       fabric_hops: $tfab, stages_pct: $tst, top: $ttop}}' >"$OUT/$NAME.json"

jq -r '
	def r: . * 10 | round / 10;
	"mrc-perf --test bw -s 1M\(.perf_args | if . == "" then "" else " " + . end), \(.mode), 4 planes, MTU \(.mtu), \(.napi) NAPI: \(.window_s) s profiled mid-run, both ends on the same 2 CPUs",
	"  mrc: \(.mrc.window.gbit_per_s | r) Gbit/s, CPU per GB: user \(.mrc.window.cpu_s_per_gb.user | r) s, sys \(.mrc.window.cpu_s_per_gb.sys | r) s, softirq \(.mrc.window.cpu_s_per_gb.softirq | r) s, total \(.mrc.window.cpu_s_per_gb.total | r) s",
	"  tcp: \(.tcp.window.gbit_per_s | r) Gbit/s, CPU per GB: user \(.tcp.window.cpu_s_per_gb.user | r) s, sys \(.tcp.window.cpu_s_per_gb.sys | r) s, softirq \(.tcp.window.cpu_s_per_gb.softirq | r) s, total \(.tcp.window.cpu_s_per_gb.total | r) s",
	"  mrc per CPU: " + ([.mrc.window.per_cpu[] | "\(.cpu) user \(.user_pct)% sys \(.sys_pct)% softirq \(.softirq_pct)% idle \(.idle_pct)%"] | join("; ")),
	"  tcp per CPU: " + ([.tcp.window.per_cpu[] | "\(.cpu) user \(.user_pct)% sys \(.sys_pct)% softirq \(.softirq_pct)% idle \(.idle_pct)%"] | join("; ")),
	"  BPF run time (bpf_stats): " + ([.mrc.programs | to_entries[] | "\(.key) \(.value.ns_per_run) ns/run x \(.value.runs) (\(.value.cpu_pct)% of a CPU)"] | join("; ")),
	(if .mrc.fabric_hops then "  fabric hops (mrc_fab_xdp): mrc \(.mrc.fabric_hops.ns_per_run) ns/run x \(.mrc.fabric_hops.runs), tcp \(.tcp.fabric_hops.ns_per_run) ns/run x \(.tcp.fabric_hops.runs)" else empty end),
	"  transmit calls: \(.mrc.tx_calls) for \(.mrc.tx_packets) packets (\(.mrc.packets_per_call) a call), \(.mrc.tx_idle_runs) idle runs",
	"  processes, CPU s per s: " + ([.mrc.process_cpu_per_s | to_entries[] | "\(.key) \(.value | . * 100 | round / 100)"] | join(", ")),
	"  mrc stages, % of both CPUs: " + ([.mrc.stages_pct | to_entries | sort_by(-.value)[] | select(.value >= 0.5) | "\(.key) \(.value)"] | join(", ")),
	"  tcp stages, % of both CPUs: " + ([.tcp.stages_pct | to_entries | sort_by(-.value)[] | select(.value >= 0.5) | "\(.key) \(.value)"] | join(", "))' \
	"$OUT/$NAME.json"
echo "  (JSON: $OUT/$NAME.json)"

# Where the samples inside the programs fall, by source line (jit_lines).
{
	cat "$TMP/jit.lines"
	echo --
	"$PERFTOOL" script -i "$TMP/mrc.perf" -F ip,sym --hide-call-graph 2>/dev/null |
		awk '$2 ~ /^bpf_prog_/ { print $1 }'
} | awk -f "$TOP/tests/bench/lib/jit_lines.awk" -v top="${PROFILE_LINES:-12}" \
	-v names="$tx_id=mrc_xdp_tx $rx_rcv=mrc_xdp_rx@receiver $rx_snd=mrc_xdp_rx@sender" \
	>"$OUT/$NAME-lines.txt"
echo "  samples inside the programs by source line, the hottest (full list: $OUT/$NAME-lines.txt):"
head -40 "$OUT/$NAME-lines.txt"
