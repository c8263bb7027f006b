#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 64 UDP flows with distinct source ports from h1 to h2 spread over all
# spines of a plane: each spine carries at least half its fair share,
# counted by the fabric on the spines' leaf-facing interfaces. Plane 0 over
# IPv4, plane 3 over IPv6.
#
#   h1 =p0= [p0l1] =s0..s3= [p0s0] [p0s1] [p0s2] [p0s3] = [p0l2] =p0= h2
# shellcheck source=tests/system/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
require_sysctl net.ipv4.fib_multipath_hash_seed "a fixed ECMP hash seed, kernel 6.11"

FLOWS=64 PKTS=50 S=4
tb up --planes 4 --spines $S >/dev/null
require_xdp_fabric

for case in "0 " "3 -6"; do
	read -r plane six <<<"$case"
	declare -a before=()
	for ((s = 0; s < S; s++)); do before[s]=$(spine_rx "$plane" $s 1); done
	recv_start h2 "$TMP/recv" --port 9000 --expect $((FLOWS * PKTS)) --timeout-ms 5000
	send h1 h2 "$plane" $six --port 9000 --flows $FLOWS --packets $PKTS --size 200 >"$TMP/send"
	wait
	got=$(jq .unique_packets "$TMP/recv")
	[ "$got" -eq $((FLOWS * PKTS)) ] || fail "plane $plane${six:+ (IPv6)}: received $got of $((FLOWS * PKTS))"
	fair=$((FLOWS * PKTS / S))
	line=""
	for ((s = 0; s < S; s++)); do
		d=$(($(spine_rx "$plane" $s 1) - before[s]))
		line+=" s$s=$d"
		[ "$d" -ge $((fair / 2)) ] || fail "plane $plane${six:+ (IPv6)}: spine $s carried $d packets, under half of the fair $fair:$line"
	done
	log "plane $plane${six:+ IPv6}: per-spine packets$line (fair share $fair)"
done
