#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The rest of OCP's API between two hosts (docs/controller.md, "Port
# status updates" and "Dynamic MPR"):
#
#   h1 p0 ---- plane 0 ---- p0 h2
#   h1 p1 ---- plane 1 ---- p1 h2      (a leaf-spine per plane)
#   h1 p2 ---- plane 2 ---- p2 h2
#   h1 p3 ---- plane 3 ---- p3 h2
#
# - while h1 sends h2 a verified transfer, h2's controller tells h1 that
#   h2's port 3 is down (mrcctl probe ... status 0xb): h1's QP stops
#   sending on its EVs of plane 2 (their per-EV counters stop, every other
#   plane's go on), mrcctl qp show says which of the peer's ports are
#   down; told they are up (status 0xf), the EVs carry traffic again; the
#   transfer ends byte-exact;
# - a port status update with the wrong token (a forger's guess, from the
#   peer's own address, naming the right QPs) is dropped as bad_token and
#   changes nothing;
# - dynamic MPR: on at both ends, the requester honours the responder's
#   smaller receive window (128 PSNs, not its own 256) and mrcctl qp show
#   says it is in effect; on at one end only, it is not, and the
#   requester's own MPR stands; a responder that cuts its MPR mid-run
#   (RTS to RTS) has the requester follow.
. "$(dirname "$0")/lib.sh"
require_root

tb up --hosts 2 --planes 4 --spines 2 --mtu 3000 >/dev/null
chmod 0755 "$TMP"
MRCCTL=$TOP/build/tools/mrcctl
ctl() { local h=$1; shift; MRC_SOCKET=$TMP/$h.sock "$MRCCTL" "$@"; }

mrcd_spawn h1 -v
mrcd_spawn h2 -v
mrcd_ready h1 h2

# ev_sent QPN: "port sent" per EV of h1's QP, summed per port.
port_sent() {
	ctl h1 -j ev show qp "$1" |
		jq -r 'group_by(.port)[] | "\(.[0].port) \(map(.sent_pkts) | add)"'
}
sent_on() { awk -v p="$2" '$1 == p { print $2 }' <<<"$1"; }

# A transfer lasting until both updates are done, however long a busy
# machine makes them (-D 7 ran out beside a CPU hog, its QP gone before
# the last look): SIGUSR1 ends it, as finished.
PIDNAME=srv as_nobody h2 "$PERF" server --wait 60 >"$TMP/x.srv" 2>&1 &
srv=$!
PIDNAME=x as_nobody h1 "$PERF" client "$(tb addr h2 0)" --wait 10 -j --test bw --verify \
	-s 256K -D 120 >"$TMP/x.json" 2>"$TMP/x.err" &
cli=$!
qpn=""
for _ in $(seq 100); do
	qpn=$(ctl h1 -j qp show 2>/dev/null | jq -r '[.[] | select(.state == "RTS")][0].qpn // empty')
	[ -n "$qpn" ] && break
	sleep 0.05
done
[ -n "$qpn" ] || fail "h1's QP never reached RTS: $(cat "$TMP/x.err")"
peer_qpn=$(ctl h1 -j qp show "$qpn" | jq -r '.peer_qpn')
sleep 1
before=$(port_sent "$qpn")

# h2's port 3 (plane 2) is down, says h2's controller.
ctl h2 -j probe dgid "$(tb addr h1 0)" ev 0x1234 port 1 status 0xb >"$TMP/psu1" ||
	fail "port status update: $(cat "$TMP/psu1")"
jq -e '.[0].status == "answered" and .[0].rx_port == 1' "$TMP/psu1" >/dev/null ||
	fail "update not answered: $(cat "$TMP/psu1")"
[ "$(ctl h1 -j qp show "$qpn" | jq -r '.peer_ports_down')" = 3 ] ||
	fail "h1 does not say h2's port 3 is down: $(ctl h1 qp show "$qpn")"
sleep 0.2
mid=$(port_sent "$qpn")
sleep 1.5
down=$(port_sent "$qpn")
for p in 1 2 3 4; do
	d=$(($(sent_on "$down" $p) - $(sent_on "$mid" $p)))
	if [ $p = 3 ]; then
		[ $d = 0 ] || fail "EVs to h2's down port 3 sent $d packets"
	else
		[ $d -gt 500 ] || fail "port $p sent only $d packets while port 3 was out"
	fi
	dl="${dl:-} $d"
done
ctl h1 -j ev show qp "$qpn" | jq -e 'map(select(.port == 3 and .in_use)) | length == 0' \
	>/dev/null || fail "an EV of port 3 still in use"
log "h2 says its port 3 is down: h1's QP $qpn sent$dl packets on ports 1-4 over 1.5 s"

# A forged update: the right QPs and address, a guessed token.
bad_token() { ctl h1 -j port show | jq '[.[].ctl_drops | if test("bad_token:") then capture("bad_token:(?<n>[0-9]+)").n | tonumber else 0 end] | add'; }
drops_before=$(bad_token)
tb exec h2 python3 - "$(tb addr h1 0)" "$qpn" "$peer_qpn" <<'EOF' || fail "forging"
import socket, struct, sys
dst, qpn, sqpn = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
bth = struct.pack("!BBHI I", 0xc2, 0, 0xffff, qpn, 0)
cext = struct.pack("!BBBBIIII", 1, 1, 0, 0, sqpn, 9, 0x5eed5eed, 0x0)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.sendto(bth + cext, (dst, 4791))
EOF
sleep 0.3
drops=$(bad_token)
[ "$drops" = $((drops_before + 1)) ] ||
	fail "forged update not counted as bad_token: $(ctl h1 port show; tail -5 "$TMP/h1.mrcd.log")"
[ "$(ctl h1 -j qp show "$qpn" | jq -r '.peer_ports_down')" = 3 ] ||
	fail "a forged update (all ports down) changed what h1 believes"
log "a port status update with a guessed token: dropped (bad_token), nothing changed"

# Up again: probed at once, back in use.
ctl h2 -j probe dgid "$(tb addr h1 0)" ev 0x1234 port 2 status 0xf >"$TMP/psu2" ||
	fail "second update: $(cat "$TMP/psu2")"
[ "$(ctl h1 -j qp show "$qpn" | jq -r '.peer_ports_down')" = - ] ||
	fail "h1 still says a port of h2 is down"
sleep 1
up=$(port_sent "$qpn")
sleep 1
up2=$(port_sent "$qpn")
d=$(($(sent_on "$up2" 3) - $(sent_on "$up" 3)))
[ $d -gt 500 ] || fail "port 3 sent only $d packets once h2 said it is up"
log "h2 says port 3 is up: its EVs sent $d packets in the next second"
kill -USR1 "$(cat "$TMP/x.pid")"
wait $cli || fail "transfer: $(cat "$TMP/x.err" "$TMP/x.srv")"
wait $srv || true
jq -e '.ok and .results[0].bad_bytes == 0 and .results[0].send_errors == 0' "$TMP/x.json" \
	>/dev/null || fail "transfer: $(cat "$TMP/x.json")"
log "the transfer: $(jq .results[0].gbit_per_s "$TMP/x.json") Gbit/s, verified byte-exact"
: "$before"

# Dynamic MPR. h2 (responder) accepts 128 PSNs; h1 asks for 256.
dyn_run() { # NAME CLIENT_OPTS...: h1's QP as mrcctl qp show has it mid-run
	local name=$1
	shift
	PIDNAME=srv as_nobody h2 "$PERF" server --wait 60 --dynamic-mpr --mpr-dest 1 \
		>"$TMP/$name.srv" 2>&1 &
	local s=$!
	as_nobody h1 "$PERF" client "$(tb addr h2 0)" --wait 10 -j --test bw --verify \
		-s 256K -D 2 --mpr 2 "$@" >"$TMP/$name.json" 2>"$TMP/$name.err" &
	local c=$! q=""
	for _ in $(seq 100); do
		q=$(ctl h1 -j qp show 2>/dev/null |
			jq -c '[.[] | select(.state == "RTS")][0] // empty')
		[ -n "$q" ] && [ "$(jq -r .dyn_mpr_peer <<<"$q")" = true ] && break
		sleep 0.05
	done
	sleep 0.3
	ctl h1 -j qp show | jq -c '[.[] | select(.state == "RTS")][0]' >"$TMP/$name.qp"
	wait $c || fail "$name: $(cat "$TMP/$name.err" "$TMP/$name.srv")"
	wait "$s" || true
	jq -e '.ok and .results[0].bad_bytes == 0' "$TMP/$name.json" >/dev/null ||
		fail "$name: $(cat "$TMP/$name.json")"
}
dyn_run on --dynamic-mpr
jq -e '.dyn_mpr and .dyn_mpr_local and .dyn_mpr_peer and .window_psns == 128' "$TMP/on.qp" \
	>/dev/null || fail "on/on: $(cat "$TMP/on.qp")"
log "dynamic MPR on/on: in effect, h1 sends within h2's 128 PSNs (its own MPR 256)"
dyn_run off
jq -e '(.dyn_mpr | not) and (.dyn_mpr_local | not) and .dyn_mpr_peer and
	.window_psns == 256' "$TMP/off.qp" >/dev/null || fail "off/on: $(cat "$TMP/off.qp")"
log "dynamic MPR off at h1, on at h2: not in effect, h1's own MPR (256 PSNs) stands"

# The responder varies its MPR mid-connection (RTS to RTS): 256 PSNs at
# first, 128 from 1.5 s into the row; the requester follows.
PIDNAME=srv as_nobody h2 "$PERF" server --wait 60 --dynamic-mpr --vary-mpr-dest 1@1.5 \
	>"$TMP/vary.srv" 2>&1 &
vs=$!
as_nobody h1 "$PERF" client "$(tb addr h2 0)" --wait 10 -j --test bw --verify \
	-s 256K -D 3 --mpr 2 --dynamic-mpr >"$TMP/vary.json" 2>"$TMP/vary.err" &
c=$!
w1="" w2=""
for _ in $(seq 200); do
	q=$(ctl h1 -j qp show 2>/dev/null | jq -c '[.[] | select(.state == "RTS")][0] // empty')
	if [ -n "$q" ] && [ "$(jq -r .dyn_mpr <<<"$q")" = true ]; then
		w1=$(jq -r .window_psns <<<"$q")
		break
	fi
	sleep 0.02
done
sleep 1.8
w2=$(ctl h1 -j qp show | jq -r '[.[] | select(.state == "RTS")][0].window_psns')
wait $c || fail "vary: $(cat "$TMP/vary.err" "$TMP/vary.srv")"
wait $vs || true
jq -e '.ok and .results[0].bad_bytes == 0' "$TMP/vary.json" >/dev/null ||
	fail "vary: $(cat "$TMP/vary.json")"
grep -q "MPR 1 as responder" "$TMP/vary.srv" && fail "vary: $(cat "$TMP/vary.srv")"
{ [ "$w1" = 256 ] && [ "$w2" = 128 ]; } || fail "vary: h1's window $w1 then $w2, not 256 then 128"
log "dynamic MPR: h2 cut its MPR to 128 PSNs mid-run, h1's window went 256 -> 128, transfer verified"
