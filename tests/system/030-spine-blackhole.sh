#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Blackholing one spine of one plane loses exactly the flows hashed to that
# spine on that plane, and no others; healing restores them.
#
#   h1 =p0= [p0l1] =s0= [p0s0] =l2= [p0l2] =p0= h2
#                  =s1= [p0s1] XX      (blackholed)
#                  =s2= [p0s2]
#                  =s3= [p0s3]
#   h1 =p1= ... plane 1 untouched
#
# First each flow is sent alone and the spine counters say which spine it
# took; then the spine is blackholed and every flow is sent again.
# shellcheck source=tests/system/lib.sh
. "$(dirname "$0")/lib.sh"
require_root

FLOWS=64 PKTS=20 S=4 BAD=1 BASE=20000
tb up --planes 2 --spines $S >/dev/null
require_xdp_fabric

# Which spine does each source port take on plane 0?
# (The same destination port as below: it is part of the hash.)
declare -a spine_of=()
declare -a prev=()
for ((s = 0; s < S; s++)); do prev[s]=$(spine_rx 0 $s 1); done
recv_start h2 "$TMP/attr" --port 9000 --expect $((FLOWS * PKTS)) --idle-ms 10000 --timeout-ms 60000
for ((f = 0; f < FLOWS; f++)); do
	send h1 h2 0 --port 9000 --sport-base $((BASE + f)) --flows 1 --packets $PKTS >/dev/null
	spine_of[f]=-1
	for ((s = 0; s < S; s++)); do
		now=$(spine_rx 0 $s 1)
		if [ $((now - prev[s])) -ge "$PKTS" ]; then spine_of[f]=$s; fi
		prev[s]=$now
	done
	[ "${spine_of[f]}" -ge 0 ] || fail "flow $((BASE + f)) seen on no spine"
done
wait
bad_flows=0
for ((f = 0; f < FLOWS; f++)); do [ "${spine_of[f]}" = $BAD ] && bad_flows=$((bad_flows + 1)); done
[ $bad_flows -gt 0 ] || fail "no flow hashed to spine $BAD: cannot test"
log "$bad_flows of $FLOWS flows hash to spine $BAD of plane 0"

# run_flows PLANE: send all flows on PLANE, leave per-port counts in $TMP/recv
run_flows() {
	recv_start h2 "$TMP/recv" --port 9000 --idle-ms 500 --timeout-ms 5000 \
		--expect $((FLOWS * PKTS))
	send h1 h2 "$1" --port 9000 --sport-base $BASE --flows $FLOWS --packets $PKTS >/dev/null
	wait
}

got_of() { jq --arg p "$1" '.flows[$p] // 0' "$TMP/recv"; }

tb fail spine 0 $BAD
run_flows 0
for ((f = 0; f < FLOWS; f++)); do
	got=$(got_of $((BASE + f)))
	if [ "${spine_of[f]}" = $BAD ]; then
		[ "$got" -eq 0 ] || fail "flow $((BASE + f)) via the blackholed spine delivered $got"
	else
		[ "$got" -eq $PKTS ] || fail "flow $((BASE + f)) via spine ${spine_of[f]} delivered $got of $PKTS"
	fi
done
dropped=$(fab_counter p0s$BAD drop_blackhole)
[ "$dropped" -eq $((bad_flows * PKTS)) ] || fail "spine $BAD counted $dropped blackholed, expected $((bad_flows * PKTS))"
log "blackholed: exactly the $bad_flows flows of spine $BAD lost ($dropped packets)"

run_flows 1
[ "$(jq .unique_packets "$TMP/recv")" -eq $((FLOWS * PKTS)) ] || fail "plane 1 lost packets while plane 0's spine was down"

tb heal spine 0 $BAD
run_flows 0
[ "$(jq .unique_packets "$TMP/recv")" -eq $((FLOWS * PKTS)) ] || fail "after heal: $(jq .unique_packets "$TMP/recv") of $((FLOWS * PKTS))"
log "healed: all $FLOWS flows delivered again; plane 1 never lost a packet"
