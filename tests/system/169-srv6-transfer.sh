#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The device over an SRv6 uSID fabric (docs/wire.md, "SRv6"): two hosts,
# four IPv6 planes of four spines each, every router forwarding by its
# static uSID table (testbed up --srv6). Each side's QP names a generated
# SRv6 EV profile made by one mrcctl command: EV i is the route
# block:02SS:P1HH:: through spine i / 4 of plane i % 4.
#
#  - a verified transfer: each spine carries exactly the packets of the
#    EVs naming it, data one way and its ACKs back (the answering side
#    takes its own route of the same index), no SRv6 drop anywhere;
#  - a spine blackholed mid-transfer: exactly the EV naming it goes
#    ASSUMED_BAD, no other; healed, probes on its route bring it back;
#    every byte arrives.
# shellcheck source=tests/system/lib.sh
. "$(dirname "$0")/lib.sh"
require_root

FABRICCTL=$TOP/build/tests/fabricctl
CTL=$TOP/build/tools/mrcctl
PLANES=4
SPINES=4
tb up --srv6 --planes $PLANES --spines $SPINES >/dev/null
require_xdp_fabric
chmod 0755 "$TMP"
# The fabric forwards SRv6 only: mrc-perf's side channel (TCP) takes a
# link of its own between the hosts (gone with their namespaces).
side_channel
MRCD_V6=1 mrcd_spawn h1
MRCD_V6=1 mrcd_spawn h2
mrcd_ready h1 h2

ctl() {
	local host=$1
	shift
	"$CTL" -s "$TMP/$host.sock" "$@"
}
# One command a side: the routes to the other host.
ctl h1 ev-profile usid 1 fmt 1 block fdbb:bb00 spines $SPINES planes $PLANES host 2 >"$TMP/h1.usid" ||
	fail "ev-profile usid on h1: $(cat "$TMP/h1.usid")"
ctl h2 ev-profile usid 1 fmt 1 block fdbb:bb00 spines $SPINES planes $PLANES host 1 >/dev/null ||
	fail "ev-profile usid on h2"
# EV 9: plane 1, spine 2, to h2's leaf on plane 1.
ctl h1 -j ev-profile evs 1 >"$TMP/evs.json"
jq -e '.[9].srv6.dst == "fdbb:bb00:202:1102::" and .[9].port == 2' "$TMP/evs.json" >/dev/null ||
	fail "EV 9 is not spine 2 of plane 1: $(jq -c '.[9]' "$TMP/evs.json")"

sids() { "$FABRICCTL" -j sids "$TB_PREFIX-$1:/sys/fs/bpf/$TB_PREFIX/$1"; }
# Packets spine S of plane P matched on its own uSID (both directions).
spine_pkts() { sids "p$1s$2" | jq --arg u "$(printf '02%02x' "$2")" '[.sids[] | select(.usid == $u) | .packets] | add // 0'; }
srv6_drops() { sids "$1" | jq '[.drops[]] | add'; }

start_xfer() {
	as_nobody h2 "$PERF" server --wait 60 --ev-profile 1 >"$TMP/$1.srv" 2>&1 &
	as_nobody h1 "$PERF" client "$SC_ADDR_H2" --wait 10 -j --test bw \
		--verify -s 1M -D "$2" --ev-profile 1 >"$TMP/$1.json" 2>"$TMP/$1.err" &
	cl=$!
}
finish_xfer() {
	wait $cl || fail "$1: mrc-perf: $(cat "$TMP/$1.err" "$TMP/$1.srv")"
	jq -e '.ok and ([.results[] | select(.bad_bytes != 0 or .send_errors != 0)] | length == 0)' \
		"$TMP/$1.json" >/dev/null || fail "$1: $(cat "$TMP/$1.json")"
}

# --- a verified transfer over all 16 EVs: every spine carries its share --
declare -A before
snap() {
	local p s
	for ((p = 0; p < PLANES; p++)); do
		for ((s = 0; s < SPINES; s++)); do before[$p.$s]=$(spine_pkts $p $s); done
	done
}
delta() { echo $(($(spine_pkts "$1" "$2") - before[$1.$2])); }
dp() { dp_counters "$1" | awk -v k="$2" '$1 == k { print $2 }'; }
snap
sent0=$(dp h1 tx_packets)
start_xfer clean 2
finish_xfer clean
sent=$(($(dp h1 tx_packets) - ${sent0:-0}))
for ((p = 0; p < PLANES; p++)); do
	for ((s = 0; s < SPINES; s++)); do
		got=$(delta $p $s)
		# Its data and their ACKs: a sixteenth of each, give or take.
		[ "$got" -ge $((sent / 16)) ] && [ "$got" -le $((sent / 4)) ] ||
			fail "spine $s of plane $p: $got packets of $sent data packets sent"
	done
done
for n in p0l1 p0l2 p1l1 p1l2 p2s1 p3s3; do
	[ "$(srv6_drops $n)" = 0 ] || fail "$n dropped: $(sids $n | jq -c .drops)"
done
log "$sent data packets over 16 EVs, every spine carried its share, no SRv6 drop"

# --- one EV at a time: exactly the spine it names carries the transfer ---
# Every other EV denied (it carries nothing and is not probed); the
# receiver answers on its own route of the same index, through the same
# spine. mrcd's hellos take the first route of the first port (spine 0
# of plane 0): a handful of packets besides.
only_ev() {
	local keep=$1 i v p
	for ((i = 0; i < PLANES * SPINES; i++)); do
		[ $i = "$keep" ] && continue
		# Its compact value (the API's), as the profile lists it.
		read -r v p < <(jq -r --argjson i $i '.[$i] | "\(.ev) \(.port)"' "$TMP/evs.json")
		ctl h1 ev "$2" profile 1 ev "$v" port "$p" >/dev/null || fail "ev $2 $i"
	done
}
for i in 9 6; do
	only_ev $i deny
	snap
	sent0=$(dp h1 tx_packets)
	acks0=$(dp h2 acks_sent)
	start_xfer "ev$i" 1
	finish_xfer "ev$i"
	sent=$(($(dp h1 tx_packets) - sent0))
	# The answers h2 sent (ACKs coalesce: docs/wire.md), each on the
	# same route back.
	acks=$(($(dp h2 acks_sent) - ${acks0:-0}))
	[ "$acks" -gt 0 ] || fail "EV $i alone: h2 sent no ACK"
	for ((p = 0; p < PLANES; p++)); do
		for ((s = 0; s < SPINES; s++)); do
			got=$(delta $p $s)
			if [ $((s * PLANES + p)) = $i ]; then
				[ "$got" -ge $((sent + acks)) ] && [ "$got" -le $((sent + acks + 20)) ] ||
					fail "EV $i alone: its spine $s of plane $p carried $got for $sent sent and $acks ACKs"
			else
				[ "$got" -le 10 ] || fail "EV $i alone: spine $s of plane $p carried $got"
			fi
		done
	done
	only_ev $i allow
	log "EV $i alone: spine $((i / PLANES)) of plane $((i % PLANES)) carried its $sent data packets and their $acks ACKs, no other spine any"
done

# --- spine 2 of plane 1 blackholed mid-transfer --------------------------
start_xfer hole 6
sleep 1.5
tb fail spine 1 2 >/dev/null
sleep 1.5
qpn=$(ctl h1 -j qp show | jq '[.[] | select(.ev_profile_id == 1)][0].qpn')
bad=$(ctl h1 -j ev show qp "$qpn" state assumed-bad | jq -c '[.[].idx]')
[ "$bad" = "[9]" ] || fail "ASSUMED_BAD with spine 2 of plane 1 dark: $bad, want [9]"
tb heal spine 1 2 >/dev/null
for _ in $(seq 60); do
	bad=$(ctl h1 -j ev show qp "$qpn" state assumed-bad | jq -c '[.[].idx]')
	[ "$bad" = "[]" ] && break
	sleep 0.1
done
[ "$bad" = "[]" ] || fail "still ASSUMED_BAD 6 s after the heal: $bad"
finish_xfer hole
log "blackholed spine: exactly EV 9 ASSUMED_BAD, probes brought it back, byte-exact"

# --- plane 2 blackholed (all four of its spines): its four EVs -----------
start_xfer plane 5
sleep 1.5
tb fail plane 2 >/dev/null
sleep 1.5
qpn=$(ctl h1 -j qp show | jq '[.[] | select(.ev_profile_id == 1)][0].qpn')
bad=$(ctl h1 -j ev show qp "$qpn" state assumed-bad | jq -c '[.[].idx] | sort')
[ "$bad" = "[2,6,10,14]" ] || fail "ASSUMED_BAD with plane 2 dark: $bad, want [2,6,10,14]"
tb heal plane 2 >/dev/null
finish_xfer plane
log "blackholed plane: exactly its EVs 2, 6, 10, 14 ASSUMED_BAD, byte-exact"

# --- ping-pong: small messages take the doorbell path (tc, lowlat.md) ---
as_nobody h2 "$PERF" server --wait 60 --ev-profile 1 >"$TMP/lat.srv" 2>&1 &
srv=$!
as_nobody h1 "$PERF" client "$SC_ADDR_H2" --wait 10 -j --test lat -n 2000 \
	--ev-profile 1 >"$TMP/lat.json" 2>"$TMP/lat.err" ||
	fail "lat: $(cat "$TMP/lat.err" "$TMP/lat.srv"; dp_counters h1; echo; dp_counters h2)"
wait $srv
jq -e '.ok' "$TMP/lat.json" >/dev/null || fail "lat: $(cat "$TMP/lat.json")"
for h in h1 h2; do
	dp_counters $h >"$TMP/$h.dp"
	if grep -E "^(srv6_|tx_build_failed)" "$TMP/$h.dp"; then
		fail "$h: $(grep -E "^(srv6_|tx_build_failed)" "$TMP/$h.dp" | paste -sd' ')"
	fi
done
log "ping-pong over SRv6: $(jq -r '.results[0] | "RTT p50 \(.rtt_us_p50) us"' "$TMP/lat.json"); no SRv6 drop, every frame built"
exit 0
