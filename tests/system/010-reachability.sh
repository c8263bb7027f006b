#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A fresh testbed: every host reaches every other host on every plane, over
# IPv4 and IPv6, through the XDP-forwarding fabric.
#
#   h1 =p0..p3= [pPl1] =s0..s3= [pPs0..pPs3] =l1..l3= [pPl2], [pPl3] =p0..p3= h2, h3
# shellcheck source=tests/system/lib.sh
. "$(dirname "$0")/lib.sh"
require_root

H=3 P=4 S=4
tb up --hosts $H --planes $P --spines $S >/dev/null

n=0
for ((a = 1; a <= H; a++)); do
	for ((b = 1; b <= H; b++)); do
		[ $a = $b ] && continue
		for ((p = 0; p < P; p++)); do
			for six in "" -6; do
				dst=$(tb addr h$b $p $six)
				tb exec h$a ping $six -c 1 -W 2 -q "$dst" >/dev/null ||
					fail "h$a cannot reach h$b on plane $p ($dst)"
				n=$((n + 1))
			done
		done
	done
done
log "$n host pairs x planes x families reachable"

# The pings went through the XDP program, not around it.
if [ "$(tb status -j | jq -r .forwarding)" = xdp ]; then
	fwd=$(tb status -j | jq '[.nodes[].interfaces[].tx_packets] | add')
	[ "$fwd" -ge $((n * 2 * 3)) ] || fail "only $fwd packets forwarded by XDP for $n pings"
else
	log "kernel forwarding here (no XDP on veth): reachability only"
fi
