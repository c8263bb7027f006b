#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A plane in SRv6 uSID mode (testbed up --srv6; docs/testbed.md): frames
# sent from h1 with a uSID container take exactly the spine they name,
# hostile ones are dropped where they are found out and counted by reason,
# and a blackholed spine loses exactly the frames naming it.
#
#   h1 =p0= [p0l1 0101] =s0= [p0s0 0200] =l2= [p0l2 0102] =p0= h2
#                       =s1= [p0s1 0201]
#                       =s2= [p0s2 0202]
#                       =s3= [p0s3 0203]
#   h1 =p1= [p1l1 1101] ... [p1s1 0201] ...   [p1l2 1102] =p1= h2
#
# uSID containers are block fdbb:bb00, then the spine's and the far leaf's
# uSIDs; the far leaf delivers to h2. A spine's uSID is the same on every
# plane, a leaf's starts with its plane.
# shellcheck source=tests/system/lib.sh
. "$(dirname "$0")/lib.sh"
require_root

SEND=$TOP/build/tests/srv6_send
FABRICCTL=$TOP/build/tests/fabricctl
B=fdbb:bb00
[ -x "$SEND" ] || skip "missing $SEND (run make)"
tb up --srv6 --planes 2 --spines 4 >/dev/null
require_xdp_fabric
tb status >"$TMP/status"
grep -q "mode srv6" "$TMP/status" || fail "status does not say mode srv6"
tb usids >"$TMP/usids"
grep -q "^p0s2 *0202 $B:0202::$" "$TMP/usids" || fail "usids: no p0s2 0202"
grep -q "^p1l2 *1102 $B:1102:: delivers on host to " "$TMP/usids" || fail "usids: no p1l2 1102"

sids() { "$FABRICCTL" -j sids "$TB_PREFIX-$1:/sys/fs/bpf/$TB_PREFIX/$1"; }
# Packets an entry of NODE's table matched: sid_packets NODE USID
sid_packets() { sids "$1" | jq --arg u "$2" '[.sids[] | select(.usid == $u) | .packets] | add // 0'; }
drops() { sids "$1" | jq --arg r "$2" '.drops[$r]'; }
leaf_mac() { tb links | awk -v l="h1-p$1" '$1 == l { print $10 }'; }
# sendsr PLANE ARGS...: frames from h1's port on PLANE
sendsr() {
	local p=$1
	shift
	"$SEND" --netns "$TB_PREFIX-h1" --dev "p$p" --dmac "$(leaf_mac "$p")" \
		--src "$(tb addr h1 "$p" -6)" --inner-dst "$(tb addr h2 "$p" -6)" "$@" >/dev/null
}
delivered() { fab_counter "p$1l2" srv6_delivered host; }
expect() { [ "$1" = "$2" ] || fail "$3: want $2, got $1"; }

# Each spine carries exactly the frames naming it: 3 + s through spine s.
for s in 0 1 2 3; do sendsr 0 --dst "$B:20$s:102::" --count $((3 + s)); done
sleep 0.2
for s in 0 1 2 3; do
	expect "$(sid_packets "p0s$s" "020$s")" $((3 + s)) "spine $s's own uSID"
	expect "$(fab_counter "p0s$s" rx_packets)" $((3 + s)) "frames spine $s received"
	expect "$(fab_counter "p0s$s" srv6_shifted)" $((3 + s)) "shifts at spine $s"
done
expect "$(delivered 0)" 18 "delivered to h2 on plane 0"
expect "$(sid_packets p0l2 0102)" 18 "leaf 2's own uSID"
log "spines 0-3 carried 3, 4, 5, 6 frames, as named; all 18 delivered"

# The container used up at spine 1: the SRH's next segment names leaf 2.
sendsr 0 --dst "$B:201::" --seg "$B:102::" --seg "$B:201::"
sleep 0.1
expect "$(fab_counter p0s1 srv6_next_segment)" 1 "next segments at spine 1"
expect "$(delivered 0)" 19 "delivered after an SRH segment"

# Hostile frames, dropped and counted by reason where they are found out.
sendsr 0 --dst "$B:999:102::" --count 2
sendsr 0 --dst "$B:200:102::" --seg "$B:102::" --seg "$B:200::" --sl 5 --last 1
sendsr 0 --dst "$B:200::" --seg "$B:102::" --seg "$B:200::" --cut $((14 + 40 + 8 + 16))
sendsr 0 --dst "$B:202:101::"
sendsr 0 --dst "$(tb addr h2 0 -6)"
sendsr 0 --dst "$B:200:102::" --hlim 2
sendsr 0 --dst "$B:201:101:201:102::"
sleep 0.2
expect "$(drops p0l1 unknown)" 2 "unknown uSID at leaf 1"
expect "$(drops p0l1 sl_beyond)" 1 "segments left beyond the list at leaf 1"
expect "$(drops p0l1 srh_trunc)" 1 "truncated SRH at leaf 1"
expect "$(drops p0s2 loop)" 1 "u-turn at spine 2"
expect "$(drops p0s1 loop)" 1 "u-turn at spine 1"
expect "$(drops p0l1 not_sid)" 1 "plain IPv6 at leaf 1"
expect "$(drops p0s0 hop_limit)" 1 "hop limit at spine 0"
expect "$(delivered 0)" 19 "hostile frames delivered"
log "unknown, sl_beyond, srh_trunc, loop, not_sid, hop_limit: each counted once"

# Blackhole spine 3: exactly the frames naming it are lost.
tb fail spine 0 3
sendsr 0 --dst "$B:203:102::" --count 5
sendsr 0 --dst "$B:200:102::" --count 5
sleep 0.2
expect "$(fab_counter p0s3 drop_blackhole)" 5 "blackholed at spine 3"
expect "$(delivered 0)" 24 "delivered with spine 3 blackholed"
tb heal spine 0 3
sendsr 0 --dst "$B:203:102::" --count 5
sleep 0.2
expect "$(delivered 0)" 29 "delivered after the heal"
log "blackholed spine 3 lost its 5 frames and no others; healed, it carries again"

# The link from spine 1 to leaf 2 down: the frames naming spine 1 are
# dropped there as link_down, counted; up again, they arrive.
tb fail link p0l2-s1 --by linkdown
sendsr 0 --dst "$B:201:102::" --count 4
sendsr 0 --dst "$B:200:102::" --count 2
sleep 0.2
expect "$(drops p0s1 link_down)" 4 "link down at spine 1"
expect "$(delivered 0)" 31 "delivered with p0l2-s1 down"
tb heal link p0l2-s1
sendsr 0 --dst "$B:201:102::" --count 4
sleep 0.2
expect "$(delivered 0)" 35 "delivered after p0l2-s1 came back"
log "p0l2-s1 down: its 4 frames dropped at spine 1 as link_down, none else"

# Plane 1's leaves have their own uSIDs (1xxx); a plane 0 leaf's is
# unknown there (at the spine, which is where it is looked up).
sendsr 1 --dst "$B:201:1102::" --count 3
sendsr 1 --dst "$B:201:102::"
sleep 0.2
# (the stray frame matched the spine's own uSID too, before its next one)
expect "$(sid_packets p1s1 0201)" 4 "plane 1 spine 1's own uSID"
expect "$(delivered 1)" 3 "delivered on plane 1"
expect "$(drops p1s1 unknown)" 1 "plane 0's leaf uSID on plane 1"
tb status >"$TMP/status"
grep -q "srv6 drops: not_sid 0 malformed 0 unknown 1" "$TMP/status" || fail "status shows no SRv6 drops"
log "plane 1 routes its own uSIDs only"

# A burst through plane 0: nothing the first leaf took in is lost inside
# the fabric (the rate is the sender's; logged, not judged).
N=200000
rx0=$(fab_counter p0l1 rx_packets host) d0=$(delivered 0)
t0=${EPOCHREALTIME/./}
sendsr 0 --dst "$B:201:102::" --count $N
t1=${EPOCHREALTIME/./}
sleep 0.5
rx=$(($(fab_counter p0l1 rx_packets host) - rx0)) d=$(($(delivered 0) - d0))
expect "$d" "$rx" "frames delivered of those leaf 1 took in"
log "burst: $N sent in $(((t1 - t0) / 1000)) ms, leaf 1 took in $rx, all delivered"
