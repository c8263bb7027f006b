#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: what the project can show today. Builds the 2-host, 4-plane,
# 4-spine testbed, sprays 64 UDP flows over every plane, blackholes one spine
# mid-way, shows which flows the fabric lost and where, heals it, and tears
# the testbed down. (The MRC transfer with rerouting around the failure
# joins this demo with the data path; see README.)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
TB=$TOP/tests/testbed/testbed
FLOWGEN=$TOP/build/tests/flowgen
export TB_PREFIX=mrcdemo
[ "$(id -u)" = 0 ] || { echo "demo: run as root (network namespaces, XDP)" >&2; exit 1; }
TMP=$(mktemp -d)
trap '"$TB" down >/dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
"$TB" down >/dev/null 2>&1 || true

FLOWS=64 PKTS=100
echo "== testbed: 2 hosts x 4 planes x 4 spines, XDP forwarding with fault injection"
"$TB" up

spray() {
	local p lost
	for p in 0 1 2 3; do
		"$TB" exec h2 "$FLOWGEN" recv --port 9000 --expect $((FLOWS * PKTS)) \
			--idle-ms 400 --timeout-ms 4000 >"$TMP/recv$p" &
		sleep 0.2
		"$TB" exec h1 "$FLOWGEN" send --dst "$("$TB" addr h2 $p)" --port 9000 \
			--flows $FLOWS --packets $PKTS --size 512 >/dev/null
		wait
		lost=$(jq "[.flows[]] | map(select(. < $PKTS)) | length" "$TMP/recv$p")
		printf '   plane %d: %5d of %d packets delivered, %2d of %d flows lost packets\n' \
			"$p" "$(jq .unique_packets "$TMP/recv$p")" $((FLOWS * PKTS)) \
			$((lost + FLOWS - $(jq '.flows | length' "$TMP/recv$p"))) $FLOWS
	done
}

echo "== $FLOWS UDP flows (distinct source ports) on every plane, all healthy"
spray
echo "== blackhole spine 2 of plane 1 (no link down: the fabric does not notice)"
"$TB" fail spine 1 2
spray
echo "   spine p1s2 dropped $("$TB" status -j | jq '[.nodes[] | select(.node == "p1s2") | .interfaces[].drop_blackhole] | add') packets"
echo "== heal"
"$TB" heal spine 1 2
spray
echo "== done: an endpoint that sprays over EVs and detects the dead ones (MRC)"
echo "   avoids exactly those flows; that is what the data path will show here."
