#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Forwarding rate of the test fabric, measured in one run against its own
# baselines: the same two-tier plane forwarding in the kernel, and the two
# hosts wired back to back (no fabric at all). Frames are generated with
# live frames on h1's port and counted by an XDP sink on h2's port.
#
#   h1 =p0= [p0l1] =s0..s3= [p0s*] =l2= [p0l2] =p0= h2      (xdp, kernel)
#   h1 =p0===================================p0= h2          (direct)
#
# Prints a table and writes JSON to $BENCH_OUT (default build/bench), each
# rate beside the machine's CPU per frame delivered (tests/bench/lib/cpu.sh).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TESTBED=$TOP/tests/testbed/testbed
FABGEN=$TOP/build/tests/fabgen
OUT=${BENCH_OUT:-$TOP/build/bench}
MS=${BENCH_MS:-2000}
prefixes=()
cleanup() {
	local p
	for p in "${prefixes[@]}"; do TB_PREFIX=$p "$TESTBED" down || true; done
}
trap cleanup EXIT
mkdir -p "$OUT"
. "$TOP/tests/bench/lib/cpu.sh"

# measure PREFIX SIZE: one fabgen run from h1 to h2 on plane 0
measure() {
	local p=$1 size=$2 link
	link=$(TB_PREFIX=$p "$TESTBED" links | awk '$1 == "h1-p0" || $1 == "d-p0"')
	read -r _ _ _ _ smac sip _ _ _ dmac dip _ <<<"$link"
	local dst_ip
	dst_ip=$(TB_PREFIX=$p "$TESTBED" addr h2 0)
	ip -n "$p-h1" link add gen0 type veth peer name gen1
	ip -n "$p-h1" link set gen0 up
	ip -n "$p-h1" link set gen1 up
	"$FABGEN" --src-netns "$p-h1" --src-dev p0 --src-mac "$smac" \
		--src-ip "${sip%/*}" --dst-netns "$p-h2" --dst-dev p0 \
		--dst-mac "$dmac" --dst-ip "$dst_ip" --anchor-dev gen0 \
		--size "$size" --flows 64 --ms "$MS" || return $?
	ip -n "$p-h1" link del gen0
	: "$dip"
}

declare -A res
for mode in xdp kernel direct; do
	p=mrcb$$${mode:0:1}
	prefixes+=("$p")
	case $mode in
	xdp) TB_PREFIX=$p "$TESTBED" up --planes 1 --spines 4 >/dev/null ;;
	kernel) TB_PREFIX=$p "$TESTBED" up --planes 1 --spines 4 --kernel >/dev/null ;;
	direct) TB_PREFIX=$p "$TESTBED" up --planes 1 --direct >/dev/null ;;
	esac
	for size in 64 1500; do
		b0=$(cpu_busy_ns)
		r=$(measure "$p" $size)
		res[$mode,$size]=$(jq -c --argjson b "$(cpu_ns_since "$b0")" --argjson ms "$MS" '
			. + {machine_cpu_s: ($b / 1e9), cpu_ns_per_frame:
				(if .rx_mpps > 0 then $b / (.rx_mpps * 1e3 * $ms) | round else null end)}' <<<"$r")
	done
	TB_PREFIX=$p "$TESTBED" down
done

{
	printf '{"benchmark":"fabric_forwarding","duration_ms":%d,"runs":[' "$MS"
	first=1
	for mode in xdp kernel direct; do
		for size in 64 1500; do
			[ $first = 1 ] || printf ','
			first=0
			jq -c --arg m "$mode" '. + {mode: $m}' <<<"${res[$mode,$size]}" | tr -d '\n'
		done
	done
	printf ']}\n'
} >"$OUT/fabric.json"

echo "fabric forwarding rate (h1 -> leaf -> spine -> leaf -> h2, 64 flows, ${MS} ms each)"
printf '  %-8s %6s %12s %12s %10s %16s\n' mode bytes rx_mpps rx_gbit_s delivered cpu_ns_per_frame
for mode in xdp kernel direct; do
	for size in 64 1500; do
		jq -r --arg m "$mode" '"\($m) \(.frame_bytes) \(.rx_mpps) \(.rx_mpps * .frame_bytes * 8 / 1000) \(.delivered_ratio) \(.cpu_ns_per_frame)"' \
			<<<"${res[$mode,$size]}" | xargs printf '  %-8s %6s %12.3f %12.2f %10.4f %16s\n'
	done
done
for size in 64 1500; do
	x=$(jq .rx_mpps <<<"${res[xdp,$size]}")
	k=$(jq .rx_mpps <<<"${res[kernel,$size]}")
	d=$(jq .rx_mpps <<<"${res[direct,$size]}")
	echo "  ${size}B: xdp/kernel = $(jq -n "$x / $k * 100 | round / 100")x, xdp/direct = $(jq -n "$x / $d * 100 | round / 100")x"
done
echo "  (JSON: $OUT/fabric.json)"
