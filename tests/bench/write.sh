#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One QP's WRITE goodput over 4 planes, against one TCP flow (iperf3) in the
# same run on the same wires. Direct mode (hosts back to back, no fabric)
# and the 4-spine fabric. Writes are 1 MiB; the figures are the client's
# (bytes completed / seconds), each beside the machine's CPU seconds per GB
# moved (tests/bench/lib/cpu.sh; every hop shares the same CPUs).
#
#   h1 =p0..p3= h2            (direct)
#   h1 =p0..p3= [leaf-spine x4] = h2
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TESTBED=$TOP/tests/testbed/testbed
XFER=$TOP/build/tests/mrc_xfer
OUT=${BENCH_OUT:-$TOP/build/bench}
TOTAL=${BENCH_WRITE_BYTES:-$((2 << 30))}
export TB_PREFIX=mrcw$$
TMP=$(mktemp -d)
cleanup() {
	"$TESTBED" down || true
	rm -rf "$TMP"
}
trap cleanup EXIT
mkdir -p "$OUT"
tb() { "$TESTBED" "$@"; }

# --port arguments of HOST: its port and the MAC at the other end.
ports() {
	tb links | awk -v h="$1" '
		$3 == h && ($1 ~ /^h/ || $1 ~ /^d-/) { printf "--port %s=%s ", $4, $10 }
		$8 == h && $1 ~ /^d-/ { printf "--port %s=%s ", $9, $5 }'
}

run_mrc() {
	local d=$TMP/info.$1
	mkdir -p "$d"
	# shellcheck disable=SC2046
	tb exec h2 "$XFER" server --info "$d" $(ports h2) --region $((64 << 20)) \
		--seconds 120 >"$TMP/srv" 2>&1 &
	sleep 0.3
	# shellcheck disable=SC2046
	tb exec h1 "$XFER" client --info "$d" $(ports h1) --anchor anc0 \
		--region $((64 << 20)) --total "$TOTAL" --max $((1 << 20)) \
		--seconds 120 2>/dev/null
	wait
}

# 64-byte WRITE_IMMs, every one completing at the receiver: messages/s.
run_msgrate() {
	local d=$TMP/info.rate
	mkdir -p "$d"
	# shellcheck disable=SC2046
	tb exec h2 "$XFER" server --info "$d" $(ports h2) --region $((1 << 20)) \
		--max 64 --seconds 120 >"$TMP/rate.srv" 2>&1 &
	sleep 0.3
	# shellcheck disable=SC2046
	tb exec h1 "$XFER" client --info "$d" $(ports h1) --anchor anc0 \
		--region $((1 << 20)) --total $((64 * 1000000)) --size 64 \
		--max 64 --imm-every 1 --seconds 120 2>/dev/null
	wait
}

. "$TOP/tests/bench/lib/tcp.sh"
. "$TOP/tests/bench/lib/cpu.sh"
TCP_S=3
run_tcp() { bench_tcp_gbit "$TESTBED" "$(tb addr h2 0)" $TCP_S; }

declare -A mrc tcp mrc_cpu tcp_cpu
rate=""
for mode in direct fabric; do
	if [ $mode = direct ]; then tb up --direct --planes 4 >/dev/null; else tb up --planes 4 --spines 4 >/dev/null; fi
	tb exec h1 ip link add anc0 type veth peer name anc1
	tb exec h1 ip link set anc0 up
	tb exec h1 ip link set anc1 up
	b0=$(cpu_busy_ns)
	mrc[$mode]=$(run_mrc $mode)
	mrc_cpu[$mode]=$(cpu_s_per_gb "$(cpu_ns_since "$b0")" "$(jq .bytes <<<"${mrc[$mode]}")")
	b0=$(cpu_busy_ns)
	tcp[$mode]=$(run_tcp)
	tcp_cpu[$mode]=$(cpu_s_per_gb "$(cpu_ns_since "$b0")" "$(jq -n "${tcp[$mode]} * 1e9 / 8 * $TCP_S")")
	[ $mode = direct ] && rate=$(run_msgrate)
	tb down
done

{
	printf '{"benchmark":"write_goodput","write_bytes":%d,"total_bytes":%d,"runs":[' $((1 << 20)) "$TOTAL"
	for mode in direct fabric; do
		printf '{"mode":"%s","mrc":%s,"mrc_cpu_s_per_gb":%s,"tcp_gbit_s":%s,"tcp_cpu_s_per_gb":%s}' \
			$mode "${mrc[$mode]}" "${mrc_cpu[$mode]}" "${tcp[$mode]}" "${tcp_cpu[$mode]}"
		[ $mode = direct ] && printf ','
	done
	printf '],'
	printf '"write_imm_64b_direct":%s}\n' "$rate"
} >"$OUT/write.json"

echo "one QP, 4 planes, 1 MiB WRITEs vs one TCP flow (iperf3), same run"
printf '  %-8s %14s %12s %8s %12s %16s %16s\n' mode mrc_gbit_s tcp_gbit_s ratio retransmits mrc_cpu_s_per_gb tcp_cpu_s_per_gb
for mode in direct fabric; do
	g=$(jq .goodput_gbit_s <<<"${mrc[$mode]}")
	printf '  %-8s %14.3f %12.3f %8.2f %12s %16s %16s\n' $mode "$g" "${tcp[$mode]}" \
		"$(jq -n "$g / ${tcp[$mode]}")" "$(jq .retransmits <<<"${mrc[$mode]}")" \
		"${mrc_cpu[$mode]}" "${tcp_cpu[$mode]}"
done
echo "64-byte WRITE_IMM, each completing at the receiver (direct): $(jq .writes_per_s <<<"$rate") messages/s"
echo "  (JSON: $OUT/write.json)"
