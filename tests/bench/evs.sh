#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 256 EVs per QP over 8 planes, as MRC deployments spray, and what they
# cost (direct mode: h1 =p0..p7= h2, 3000-byte MTU; mrcd with 32 EVs on
# each port):
#   - one QP, 1 MiB WRITEs through libmrc (mrc-perf) over its 256 EVs,
#     against the same QP shape over 64 EVs (8 a port, a generated EV
#     profile) in the same run: goodput, machine CPU, CPU per GB;
#   - the device's BPF map memory at start (every QP slot, sized for 256
#     EVs), and per slot for each QP map.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${BENCH_OUT:-$TOP/build/bench}
export TB_PREFIX=mrce$$
. "$TOP/tests/system/lib.sh"
. "$TOP/tests/bench/lib/mem.sh"
. "$TOP/tests/bench/lib/cpu.sh"
mkdir -p "$OUT"
tb up --direct --planes 8 --mtu 3000 >/dev/null
chmod 0755 "$TMP"

maps0=$(maps_bytes)
mrcd_conf h1 "auto-evs-per-port 32" >"$TMP/h1.conf"
mrcd_start h1 -c "$TMP/h1.conf"
dev_map_bytes=$(($(maps_bytes) - maps0))
# Per slot of each QP map, from this one device's maps.
slots=$(jq -n "$(grep -o 'MRC_MAX_QP [0-9]*' "$TOP/include/mrc/abi.h" | cut -d' ' -f2)")
per_slot() { read -r _ b < <(maps_by_name "$1") && echo $((b / slots)); }
qp_tx=$(per_slot mrc_qp_tx) qp_rx=$(per_slot mrc_qp)
ev_stats=$(per_slot mrc_ev_stats) srv6=$(per_slot mrc_qp_srv6)
mrcd_conf h2 "auto-evs-per-port 32" >"$TMP/h2.conf"
mrcd_start h2 -c "$TMP/h2.conf"

# 64 EVs for the comparison: a generated profile, EV i on port i % 8.
ctl() { "$TOP/build/tools/mrcctl" -s "$TMP/h1.sock" "$@" >/dev/null; }
ctl ev-fmt set 1 mode udp fields 16 state offline
ctl ev-fmt set 1 state online
ctl ev-profile set 2 mode gen fmt 1 count 64 min-active 8 events good,bad \
	field width 16 init 0xb000 max 63 mask 63 state offline
ctl ev-profile set 2 state online

# measured NAME ARGS: mrc_perf NAME ARGS, the machine's CPU s in $TMP/NAME.cpu,
# and the EVs its QP sprays over (mrcctl, polled while it runs) in
# $TMP/NAME.evs.
measured() {
	local b0 poll
	b0=$(cpu_busy_ns)
	(for _ in $(seq 50); do
		sleep 0.1
		"$TOP/build/tools/mrcctl" -s "$TMP/h1.sock" -j qp show 2>/dev/null |
			jq -e '[.[] | select(.state == "RTS") | .evs] | first // empty' && break
	done) >"$TMP/$1.evs" &
	poll=$!
	mrc_perf "$@"
	wait "$poll" || true
	jq -n "$(cpu_ns_since "$b0") / 1e9" >"$TMP/$1.cpu"
}
measured evs256 --test bw -s 1M -D 5 --mtu 4096
measured evs64 --test bw -s 1M -D 5 --mtu 4096 --ev-profile 2
for r in evs256 evs64; do
	jq -e '.results[0] | .send_errors == 0 and .recv_errors == 0' "$TMP/$r.json" >/dev/null ||
		fail "$r: error completions: $(jq -c '.results[0]' "$TMP/$r.json")"
	[ "$(cat "$TMP/$r.evs")" = "${r#evs}" ] ||
		fail "$r: the QP sprayed over '$(cat "$TMP/$r.evs")' EVs, not ${r#evs}"
done

jq -n --slurpfile a "$TMP/evs256.json" --slurpfile b "$TMP/evs64.json" \
	--argjson a_cpu "$(cat "$TMP/evs256.cpu")" --argjson b_cpu "$(cat "$TMP/evs64.cpu")" \
	--argjson dev "$dev_map_bytes" --argjson slots "$slots" \
	--argjson qp_tx "$qp_tx" --argjson qp_rx "$qp_rx" \
	--argjson ev_stats "$ev_stats" --argjson srv6 "$srv6" '
	def per_gb($cpu_s; $r): $cpu_s / ($r.msgs * $r.size_bytes / 1e9) * 1000 | round / 1000;
	($a[0].results[0]) as $x | ($b[0].results[0]) as $y | {
	evs256_8planes_gbit_per_s: $x.gbit_per_s, evs256_machine_cpu_s: $a_cpu,
	evs256_cpu_s_per_gb: per_gb($a_cpu; $x),
	evs64_8planes_gbit_per_s: $y.gbit_per_s, evs64_machine_cpu_s: $b_cpu,
	evs64_cpu_s_per_gb: per_gb($b_cpu; $y),
	evs256_vs_evs64: ($x.gbit_per_s / $y.gbit_per_s),
	device_map_bytes: $dev, qp_slots: $slots,
	qp_tx_bytes_per_slot: $qp_tx, qp_rx_bytes_per_slot: $qp_rx,
	ev_stats_bytes_per_slot: $ev_stats, srv6_bytes_per_slot: $srv6,
	qp_maps_bytes_per_slot: ($qp_tx + $qp_rx + $ev_stats + $srv6) }' >"$OUT/evs.json"
jq -r '
	"one QP, 256 EVs over 8 planes:    \(.evs256_8planes_gbit_per_s) Gbit/s vs the same over 64 EVs \(.evs64_8planes_gbit_per_s) Gbit/s (\(.evs256_vs_evs64 * 100 | floor / 100)x); CPU per GB \(.evs256_cpu_s_per_gb) s vs \(.evs64_cpu_s_per_gb) s",
	"device memory (BPF maps):         \(.device_map_bytes / 1048576 | round) MiB at start for \(.qp_slots) QP slots: \(.qp_maps_bytes_per_slot) B a slot (send \(.qp_tx_bytes_per_slot), receive \(.qp_rx_bytes_per_slot), EV counters \(.ev_stats_bytes_per_slot), SRv6 routes \(.srv6_bytes_per_slot))"' "$OUT/evs.json"
