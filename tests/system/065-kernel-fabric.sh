#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mrcd over a fabric whose routers forward in the kernel (testbed up
# --kernel): the frames mrc_xdp_rx turns around with XDP_TX (ACKs, probe
# answers) and those the transmit program redirects must reach the
# routers, whose host-facing veths only have an XDP_PASS program.
#
#   h1 p0 ── [p0l1] ═ s0,s1 ═ [p0l2] ── p0 h2   (kernel forwarding, ECMP)
#   h1 p1 ── [p1l1] ═ s0,s1 ═ [p1l2] ── p1 h2
#
# Checks: a verified mrc-perf transfer and EV probes answered on both
# planes; no frame dropped at a router's host-facing veth.
# shellcheck source=tests/system/lib.sh
. "$(dirname "$0")/lib.sh"
require_root

tb up --kernel --hosts 2 --planes 2 --spines 2 >/dev/null
[ "$(tb status -j | jq -r .forwarding)" = kernel ] || fail "up --kernel: forwarding is $(tb status -j | jq -r .forwarding)"
chmod 0755 "$TMP"
mrcd_spawn h1
mrcd_spawn h2
mrcd_ready h1 h2

mrc_perf xfer --test bw --verify -s 64K -n 400
perf_clean xfer
log "verified: $(jq '.results[0].msgs' "$TMP/xfer.json") x 64 KiB at $(jq '.results[0].gbit_per_s' "$TMP/xfer.json") Gbit/s"

"$TOP/build/tools/mrcctl" -s "$TMP/h1.sock" -j probe dgid "$(tb addr h2 0)" \
	ev 50001 port 1 ev 50002 port 2 mode udp >"$TMP/probe.json" 2>"$TMP/probe.err" ||
	fail "probe: $(cat "$TMP/probe.json" "$TMP/probe.err")"
jq -e 'length == 2 and all(.[]; .rtt_us > 0)' "$TMP/probe.json" >/dev/null ||
	fail "probe answers: $(cat "$TMP/probe.json")"
log "EV probes answered on both planes"

# rx_dropped is where a veth counts XDP frames it could not take.
for p in 0 1; do
	for h in 1 2; do
		n=$(tb exec "p${p}l$h" ip -j -s link show dev host | jq '.[0].stats64.rx.dropped')
		[ "$n" = 0 ] || fail "p${p}l$h host dropped $n frames"
	done
done
log "no frame dropped at the routers' host-facing veths"
