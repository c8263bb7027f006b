#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every fault action on a live fabric, end to end, checked at the receiver
# and against the fabric's own counters; then link down, a blackholed link
# and a shaped path (a switch egress queue).
#
#   h1 =p0= [p0l1] =s0,s1= [p0s0] [p0s1] = [p0l2] =host= h2
#                                                 ^ faults here, dir out
. "$(dirname "$0")/lib.sh"
require_root

FLOWS=10 PKTS=20 N=200
tb up --planes 1 --spines 2 >/dev/null
require_xdp_fabric

# run NAME [flowgen send options]: all flows h1 -> h2, result in $TMP/NAME
run() {
	local name=$1
	shift
	recv_start h2 "$TMP/$name" --port 9000 --idle-ms 400 --timeout-ms 4000
	send h1 h2 0 --port 9000 --flows $FLOWS --packets $PKTS --size 200 "$@" >"$TMP/$name.send" || true
	wait
}
r() { jq ".$2" "$TMP/$1"; }
fault() { tb fault p0l2 host "$@" dir out; }
counter() { fab_counter p0l2 "$1" host; }
udp_csum_errors() { tb exec h2 nstat -az UdpInCsumErrors | awk '/UdpInCsumErrors/ { print $2 }'; }

run healthy
[ "$(r healthy unique_packets)" -eq $N ] || fail "healthy: $(r healthy unique_packets) of $N"

fault dup 1
run dup
[ "$(r dup unique_packets)" -eq $N ] && [ "$(r dup duplicate_packets)" -eq $N ] ||
	fail "dup: unique $(r dup unique_packets), duplicates $(r dup duplicate_packets), want $N and $N"
[ "$(counter duplicated)" -eq $N ] || fail "dup: fabric counted $(counter duplicated)"
log "dup: every packet arrived twice ($N duplicates)"

fault clear
fault trim 1 keep 32 dscp 9
run trim
# Lengths and UDP checksum fixed: the kernel delivers them, short.
[ "$(r trim truncated_packets)" -eq $N ] || fail "trim: $(r trim truncated_packets) truncated of $N"
[ "$(counter trimmed)" -eq $N ] || fail "trim: fabric counted $(counter trimmed)"
log "trim: $N packets delivered cut to 32 payload bytes, checksums valid"

fault clear
fault ecn 1
run ecn --tos 2
run not_ect --tos 0
[ "$(r ecn ecn_ce_packets)" -eq $N ] || fail "ecn: $(r ecn ecn_ce_packets) CE of $N"
[ "$(r not_ect ecn_ce_packets)" -eq 0 ] || fail "ecn: Not-ECT packets were marked"
[ "$(counter ecn_not_ect)" -eq $N ] || fail "ecn: fabric counted $(counter ecn_not_ect) Not-ECT"
log "ecn: ECT packets arrive CE, Not-ECT ones untouched"

fault clear
fault corrupt 1 offset 40
before=$(udp_csum_errors)
run corrupt
[ "$(r corrupt received_packets)" -eq 0 ] || fail "corrupt: $(r corrupt received_packets) corrupted packets got through"
[ $(($(udp_csum_errors) - before)) -eq $N ] || fail "corrupt: receiver saw $(($(udp_csum_errors) - before)) checksum errors"
[ "$(counter corrupted)" -eq $N ] || fail "corrupt: fabric counted $(counter corrupted)"
log "corrupt: all $N caught by the receiver's UDP checksum"

fault clear
fault drop 50%
run drop --packets 200
got=$(r drop unique_packets) total=$((FLOWS * 200))
# 6 standard deviations of a binomial(2000, 0.5): +-134
[ "$got" -ge $((total / 2 - 134)) ] && [ "$got" -le $((total / 2 + 134)) ] ||
	fail "drop 50%: $got of $total arrived"
[ $((got + $(counter drop_random))) -eq $total ] || fail "drop: delivered + dropped != sent"
log "drop 50%: $got of $total arrived; the rest counted as dropped"

fault clear
fault sport-drop 20003,20005-20006
run sport
for ((f = 0; f < FLOWS; f++)); do
	want=$PKTS
	case $f in 3 | 5 | 6) want=0 ;; esac
	got=$(jq --arg p $((20000 + f)) '.flows[$p] // 0' "$TMP/sport")
	[ "$got" -eq $want ] || fail "sport-drop: flow $((20000 + f)) delivered $got, want $want"
done
log "sport-drop: exactly ports 20003, 20005, 20006 lost"
fault clear sport-drop none

tb fail link h2-p0
run link
[ "$(r link received_packets)" -eq 0 ] || fail "blackholed link delivered"
tb heal link h2-p0
run link_healed
[ "$(r link_healed unique_packets)" -eq $N ] || fail "link heal: $(r link_healed unique_packets) of $N"
log "link h2-p0: blackholed, healed"

tb fail plane 0 --by linkdown
tb exec h1 ip link show p0 | grep -q 'NO-CARRIER' || fail "plane down: h1's p0 still has carrier"
tb exec h1 ping -c 1 -W 1 -q "$(tb addr h2 0)" >/dev/null 2>&1 && fail "plane down: ping went through"
tb heal plane 0
tb exec h1 ping -c 1 -W 2 -q "$(tb addr h2 0)" >/dev/null || fail "plane healed: no ping"
log "plane 0 by link down: hosts lose carrier; heal restores it"

tb shape p0l1-s0 20mbit
tb shape p0l1-s1 20mbit
run shaped
[ "$(r shaped unique_packets)" -eq $N ] || fail "shaped: $(r shaped unique_packets) of $N"
htb=$(tb exec p0l1 tc -s qdisc show | awk '/qdisc htb/ { q = 1 } q && /Sent/ { s += $4; q = 0 } END { print s + 0 }')
[ "$htb" -ge $N ] || fail "shaped: only $htb packets went through the switch queues"
[ "$(fab_counter p0l1 pass_via_stack)" -ge $N ] || fail "shaped: traffic did not leave XDP for the stack"
[ "$(fab_counter p0l1 queue_packets)" -ge $N ] || fail "shaped: the queue model saw $(fab_counter p0l1 queue_packets) packets"
tb unshape p0l1-s0
tb unshape p0l1-s1
[ -z "$(tb exec p0l1 tc qdisc show | grep htb)" ] || fail "unshape left htb behind"
log "shape: $htb packets through the switch queues of the slow paths"
