#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The machine's physical limits for the data path's building blocks, so
# every mrc figure can be stated as a fraction of what the kernel can do
# with no MRC logic at all (docs/perf.md): the live-frame loop alone, a
# live frame redirected into a veth and dropped by XDP at the other end,
# the same turned back with XDP_TX, the redirect after a payload copy from
# a map (mrc_xdp_tx's work without its logic), memcpy, and one read of the
# BPF clock (bpf_ktime_get_ns, a few a packet in the data path). Frames of 64,
# 1514 and 3014 bytes on a veth pair of MTU 3000 (the testbed's jumbo
# links), each stage with the whole machine's CPU beside it; and how long
# the machine stops a CPU by itself (tests/bench/pauses.c).
#
# build/tests/xdp_limits does the work (tests/bench/xdp_limits.bpf.c);
# this script gives it a namespace of its own and removes it.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${BENCH_OUT:-$TOP/build/bench}
FRAMES=${LIMITS_FRAMES:-2000000}
NS=mrclim$$
[ "$(id -u)" = 0 ] || { echo "limits: needs root" >&2; exit 1; }
mkdir -p "$OUT"
cleanup() { ip netns del "$NS" 2>/dev/null || true; }
trap cleanup EXIT
ip netns add "$NS"
in_ns() { ip netns exec "$NS" "$@"; }
in_ns ip link set lo up
# No IPv6 chatter (router solicitations, MLD) among the counted frames.
in_ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
in_ns ip link add lima mtu 3000 type veth peer name limb mtu 3000
in_ns ip link set lima up
in_ns ip link set limb up
in_ns "$TOP/build/tests/xdp_limits" lima limb "$FRAMES" >"$OUT/limits.jsonl"
# How long the machine stops a CPU by itself (tests/bench/pauses.c).
"$TOP/build/tests/pauses" "${LIMITS_PAUSES_S:-5}" >"$OUT/pauses.json"
jq -s --slurpfile p "$OUT/pauses.json" '{benchmark: "limits", stages: ., pauses: $p[0]}' \
	"$OUT/limits.jsonl" >"$OUT/limits.json"
rm -f "$OUT/limits.jsonl" "$OUT/pauses.json"

echo "the machine's limits (no MRC logic), whole-machine CPU beside each"
jq -r '.pauses | "  the CPUs stopped by the machine itself (a spinning thread on each, \(.seconds) s): " +
	([.cpus[] | "cpu\(.cpu) \(.over_1_ms) pauses over 1 ms, the longest \(.longest_ms) ms"] | join("; "))' "$OUT/limits.json"
jq -r '.stages[] | select(.stage == "memcpy") |
	"  memcpy \(.copy_bytes) B:  \(.gbyte_per_s) GB/s  (cpu \(.cpu_s) s)"' "$OUT/limits.json"
jq -r '.stages[] | select(.stage == "ktime_get_ns") |
	"  bpf_ktime_get_ns(): \(.ns_per_read) ns a read (a test run: \(.run_ns_without) ns, with 16 reads \(.run_ns_with_16) ns)"' "$OUT/limits.json"
printf '  %-20s %7s %9s %10s %9s %12s\n' stage bytes mpps gbit_per_s delivered cpu_ns_per_fr
jq -r '.stages[] | select(.stage != "memcpy" and .stage != "ktime_get_ns") |
	[.stage, .frame_bytes, .mpps, .gbit_per_s, "\(.delivered)/\(.frames)", .cpu_ns_per_frame] | @tsv' \
	"$OUT/limits.json" | while IFS=$'\t' read -r s b m g d c; do
	printf '  %-20s %7s %9.3f %10.2f %9s %12.0f\n' "$s" "$b" "$m" "$g" "$d" "$c"
done
echo "  (JSON: $OUT/limits.json)"
