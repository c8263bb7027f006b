#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The application's view, through mrcd and libmrc (mrc-perf), against TCP
# in the same run on the same wires (direct mode: h1 =p0..p3= h2, 3000-byte
# MTU):
#   - one QP over 4 planes, 1 MiB WRITEs: goodput vs one iperf3 TCP flow;
#     4 QPs vs 4 TCP flows;
#   - 64-byte WRITE_IMM message rate (1 and 4 QPs), counted at the receiver;
#   - 8-byte WRITE_IMM ping-pong vs 8-byte TCP ping-pong (mrc-perf --transport both);
#   - 4096 QPs at once (a device's all), verified; memory per QP (the
#     client's and the device's BPF maps) and per device; the receiver's
#     CPU during bulk transfer.
# Beside each figure, the machine's CPU seconds over its run (both ends
# share the CPUs), and for the goodput figures the CPU seconds per GB.
# The one-QP bulk rows (jumbo and MTU 1500) alternate mrc and TCP
# PERF_BULK_ROUNDS times (default 3): their figures are the medians, the
# ratio the median of the rounds' ratios, the CPU per GB over all rounds
# (a single run's ratio moved 0.84-1.08x on this shared machine).
# PERF_MRCD_ARGS: more arguments for both mrcds (e.g. "-c FILE").
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${BENCH_OUT:-$TOP/build/bench}
export TB_PREFIX=mrcp$$
. "$TOP/tests/system/lib.sh"
mkdir -p "$OUT"
# Jumbo frames, as RDMA fabrics run; TCP gets the same links. The bulk
# figures ask path MTU 4096, which the device cuts to what the links carry:
# 2924 bytes a packet (a TCP segment carries 2948).
tb up --direct --planes 4 --mtu 3000 >/dev/null
chmod 0755 "$TMP"
. "$TOP/tests/bench/lib/mem.sh"
maps0=$(maps_bytes)
mrcd_start h1 ${PERF_MRCD_ARGS:-}
dev_map_bytes=$(($(maps_bytes) - maps0))
mrcd_start h2 ${PERF_MRCD_ARGS:-}

. "$TOP/tests/bench/lib/tcp.sh"
. "$TOP/tests/bench/lib/cpu.sh"
TCP_S=5
tcp_gbps() { bench_tcp_gbit "$TOP/tests/testbed/testbed" "$(tb addr h2 0)" $TCP_S "${1:-1}"; }

# measured NAME ARGS: mrc_perf NAME ARGS, the machine's CPU s in $TMP/NAME.cpu.
measured() {
	local b0
	b0=$(cpu_busy_ns)
	mrc_perf "$@"
	jq -n "$(cpu_ns_since "$b0") / 1e9" >"$TMP/$1.cpu"
}
ROUNDS=${PERF_BULK_ROUNDS:-3}
# bulk NAME: ROUNDS of one QP's 1 MiB WRITEs ($TMP/NAME_R.json, .cpu)
# then one TCP flow ($TMP/NAME_R.tcp: Gbit/s and CPU s), alternating.
bulk() {
	local r b0 g
	for ((r = 1; r <= ROUNDS; r++)); do
		measured "$1_$r" --test bw -s 1M -D 5 --mtu 4096
		b0=$(cpu_busy_ns)
		g=$(tcp_gbps)
		jq -n "{ gbit: $g, cpu_s: ($(cpu_ns_since "$b0") / 1e9) }" >"$TMP/$1_$r.tcp"
	done
}
# bulk_json NAME: the rounds as one JSON object (mrc-perf's results and
# CPU, TCP's) for the summary below.
bulk_json() {
	local r
	for ((r = 1; r <= ROUNDS; r++)); do
		jq -n --slurpfile m "$TMP/$1_$r.json" --slurpfile c "$TMP/$1_$r.cpu" \
			--slurpfile t "$TMP/$1_$r.tcp" \
			'{ mrc: $m[0].results[0], cpu_s: $c[0], tcp: $t[0] }'
	done | jq -s .
}
bulk bw
measured bw4 --test bw -s 1M -D 5 --mtu 4096 -q 4
b0=$(cpu_busy_ns)
tcp4=$(tcp_gbps 4)
tcp4_cpu=$(jq -n "$(cpu_ns_since "$b0") / 1e9")
measured rate1 --test rate -D 3
measured rate4 --test rate -D 3 -q 4
measured lat --test lat --transport both -n 10000
# Every QP a device has, each with its own SQ (a map of its own): their
# size is read while they exist.
(sleep 3 && maps_by_name mrc_sq >"$TMP/sq_maps") &
sq_pid=$!
measured qps --test bw --verify -q 4096 -s 4K -n 163840 -D 20 --mtu 4096
wait "$sq_pid"
read -r sq_n sq_bytes <"$TMP/sq_maps"
perf_clean qps
# The same bulk row at MTU 1500, Ethernet's default: every link of both
# hosts set to 1500, mrcds started again (a QP's packets are what its
# ports carry when it connects: 1444 bytes), TCP on the same links.
mrcd_stop h1
mrcd_stop h2
for h in h1 h2; do
	for i in $(tb exec "$h" ip -o link show | awk -F': ' '$2 ~ /^p[0-9]+@/ { split($2, a, "@"); print a[1] }'); do
		tb exec "$h" ip link set dev "$i" mtu 1500
	done
done
mrcd_spawn h1 ${PERF_MRCD_ARGS:-}
mrcd_spawn h2 ${PERF_MRCD_ARGS:-}
mrcd_ready h1 h2
bulk bw1500
cpus() { jq -s . "$TMP"/{bw_1,rate1,rate4,lat,qps}.cpu; }

jq -n --argjson bulk "$(bulk_json bw)" --argjson bulk1500 "$(bulk_json bw1500)" \
	--argjson cpu "$(cpus)" \
	--argjson tcp4 "$tcp4" --argjson tcp4_cpu "$tcp4_cpu" --slurpfile bw4 "$TMP/bw4.json" \
	--argjson bw4_cpu "$(cat "$TMP/bw4.cpu")" \
	--argjson tcp_s "$TCP_S" \
	--slurpfile r1 "$TMP/rate1.json" --slurpfile r4 "$TMP/rate4.json" \
	--slurpfile lat "$TMP/lat.json" --slurpfile q "$TMP/qps.json" \
	--argjson dev_map_bytes "$dev_map_bytes" --argjson sq_n "$sq_n" --argjson sq_bytes "$sq_bytes" '
	# CPU seconds per 10^9 bytes moved, to 3 decimals.
	def per_gb($cpu_s; $bytes): $cpu_s / ($bytes / 1e9) * 1000 | round / 1000;
	def med: sort | .[(length - 1) / 2 | floor];
	# The rounds of a bulk row: medians, ratios, CPU per GB over all.
	def rounds($k):
		{ ($k + "_gbit_per_s"): (map(.mrc.gbit_per_s) | med),
		  ($k + "_tcp_gbit_per_s"): (map(.tcp.gbit) | med),
		  ($k + "_vs_tcp"): (map(.mrc.gbit_per_s / .tcp.gbit) | med),
		  ($k + "_vs_tcp_rounds"): map(.mrc.gbit_per_s / .tcp.gbit * 1000 | round / 1000),
		  ($k + "_cpu_s_per_gb"): per_gb(map(.cpu_s) | add; map(.mrc.msgs * .mrc.size_bytes) | add),
		  ($k + "_tcp_cpu_s_per_gb"): per_gb(map(.tcp.cpu_s) | add; map(.tcp.gbit * 1e9 * $tcp_s / 8) | add) };
	($bulk[0].mrc) as $b | ($lat[0].results) as $l |
	($l | map(select(.transport == "mrc"))[0]) as $m |
	($l | map(select(.transport == "tcp"))[0]) as $t |
	($bulk | rounds("bw")) as $r | ($bulk1500 | rounds("mtu1500")) as $r15 | {
	bulk_rounds: ($bulk | length),
	bw_1mib_gbit_per_s: $r.bw_gbit_per_s, tcp_gbit_per_s: $r.bw_tcp_gbit_per_s,
	bw_vs_tcp: $r.bw_vs_tcp, bw_vs_tcp_rounds: $r.bw_vs_tcp_rounds,
	bw_machine_cpu_s: $cpu[0],
	bw_cpu_s_per_gb: $r.bw_cpu_s_per_gb,
	tcp_cpu_s_per_gb: $r.bw_tcp_cpu_s_per_gb,
	bw_4qp_gbit_per_s: $bw4[0].results[0].gbit_per_s, tcp_4flows_gbit_per_s: $tcp4,
	bw_4qp_vs_tcp_4flows: ($bw4[0].results[0].gbit_per_s / $tcp4),
	bw_4qp_machine_cpu_s: $bw4_cpu, tcp_4flows_machine_cpu_s: $tcp4_cpu,
	bw_4qp_cpu_s_per_gb: per_gb($bw4_cpu; $bw4[0].results[0].msgs * $bw4[0].results[0].size_bytes),
	tcp_4flows_cpu_s_per_gb: per_gb($tcp4_cpu; $tcp4 * 1e9 * $tcp_s / 8),
	bw_mtu1500_gbit_per_s: $r15.mtu1500_gbit_per_s,
	tcp_mtu1500_gbit_per_s: $r15.mtu1500_tcp_gbit_per_s,
	bw_mtu1500_vs_tcp: $r15.mtu1500_vs_tcp,
	bw_mtu1500_vs_tcp_rounds: $r15.mtu1500_vs_tcp_rounds,
	bw_mtu1500_cpu_s_per_gb: $r15.mtu1500_cpu_s_per_gb,
	tcp_mtu1500_cpu_s_per_gb: $r15.mtu1500_tcp_cpu_s_per_gb,
	rate1_machine_cpu_s: $cpu[1], rate4_machine_cpu_s: $cpu[2],
	lat_machine_cpu_s: $cpu[3], qps_machine_cpu_s: $cpu[4],
	receiver_cpu_s: $b.server_cpu_s, bw_seconds: $b.seconds,
	rate_64b_1qp_msg_per_s: $r1[0].results[0].server_msg_per_s,
	rate_64b_4qp_msg_per_s: $r4[0].results[0].server_msg_per_s,
	lat_8b_rtt_us_p50: $m.rtt_us_p50, lat_8b_rtt_us_p99: $m.rtt_us_p99,
	tcp_8b_rtt_us_p50: $t.rtt_us_p50, tcp_8b_rtt_us_p99: $t.rtt_us_p99,
	lat_vs_tcp_p50: ($m.rtt_us_p50 / $t.rtt_us_p50),
	qps_4096_gbit_per_s: $q[0].results[0].gbit_per_s,
	device_map_bytes: $dev_map_bytes,
	device_sq_map_bytes_per_qp: (if $sq_n > 0 then $sq_bytes / $sq_n | floor else null end),
	mem_per_qp_bytes: $q[0].mem_per_qp_bytes,
	server_mem_per_qp_bytes: $q[0].server_mem_per_qp_bytes }' >"$OUT/perf.json"
jq -r '
	"one QP, 1 MiB WRITEs, 4 planes:  \(.bw_1mib_gbit_per_s) Gbit/s vs TCP \(.tcp_gbit_per_s * 100 | floor / 100) Gbit/s (\(.bw_vs_tcp * 100 | floor / 100)x; rounds \(.bw_vs_tcp_rounds | map(tostring) | join(" "))); CPU per GB \(.bw_cpu_s_per_gb) s vs TCP \(.tcp_cpu_s_per_gb) s; receiver process CPU \(.receiver_cpu_s) s in \(.bw_seconds) s",
	"4 QPs, 1 MiB WRITEs, 4 planes:   \(.bw_4qp_gbit_per_s) Gbit/s vs 4 TCP flows \(.tcp_4flows_gbit_per_s * 100 | floor / 100) Gbit/s (\(.bw_4qp_vs_tcp_4flows * 100 | floor / 100)x); CPU per GB \(.bw_4qp_cpu_s_per_gb) s vs TCP \(.tcp_4flows_cpu_s_per_gb) s",
	"one QP at MTU 1500:              \(.bw_mtu1500_gbit_per_s) Gbit/s vs TCP \(.tcp_mtu1500_gbit_per_s * 100 | floor / 100) Gbit/s (\(.bw_mtu1500_vs_tcp * 100 | floor / 100)x; rounds \(.bw_mtu1500_vs_tcp_rounds | map(tostring) | join(" "))); CPU per GB \(.bw_mtu1500_cpu_s_per_gb) s vs TCP \(.tcp_mtu1500_cpu_s_per_gb) s",
	"64 B WRITE_IMM rate:              \(.rate_64b_1qp_msg_per_s | floor) msg/s (1 QP, machine CPU \(.rate1_machine_cpu_s * 100 | round / 100) s), \(.rate_64b_4qp_msg_per_s | floor) msg/s (4 QPs, \(.rate4_machine_cpu_s * 100 | round / 100) s)",
	"8 B ping-pong RTT p50 / p99:      \(.lat_8b_rtt_us_p50) / \(.lat_8b_rtt_us_p99) us vs TCP \(.tcp_8b_rtt_us_p50) / \(.tcp_8b_rtt_us_p99) us (\(.lat_vs_tcp_p50 * 100 | floor / 100)x; machine CPU \(.lat_machine_cpu_s * 100 | round / 100) s, both)",
	"4096 QPs at once, verified:       \(.qps_4096_gbit_per_s) Gbit/s, \(.mem_per_qp_bytes) B per QP (client), \(.server_mem_per_qp_bytes) B (server); machine CPU \(.qps_machine_cpu_s * 100 | round / 100) s",
	"device memory (BPF maps):         \(.device_map_bytes / 1048576 | round) MiB at start (every QP slot), + \(.device_sq_map_bytes_per_qp) B a QP (its SQ)"' "$OUT/perf.json"
