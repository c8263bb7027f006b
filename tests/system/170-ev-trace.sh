#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mrcctl ev trace names the spine each EV of a QP takes, in both fabric
# modes (docs/health.md, "Path inspection").
#
#   ECMP: 2 hosts, 2 planes of 4 spines        SRv6: 2 hosts, 2 planes
#                                                    of 2 spines (--srv6)
#        plane p                                   plane p
#   h1 -p- [pPl1] -s0..s3- [pPs0..3] -- [pPl2] -p- h2
#    hop:   1               2            3          4 (the peer)
#
#  - ECMP, under an mrc-perf transfer: `ev trace qp Q` (every EV at once)
#    and `ev trace qp Q ev I` for some. Each EV: hop 1 is h1's leaf, hop 2
#    a spine of the EV's plane, hop 3 h2's leaf, hop 4 the peer at its
#    address on that plane. Then, with the transfer over and nothing else
#    on the fabric, the fabric's counters judge: 50 controller probes on
#    the EV (the data's 5-tuple) raise exactly one spine's rx_packets on
#    its link from h1's leaf by 50 or more, and that is the spine the trace
#    named, for every EV.
#  - SRv6, under a transfer on the testbed's generated SRv6 profile (EV i:
#    spine i / 2 of plane i % 2): each EV's hops are the next hop on its
#    port, uSID 02SS of its spine, uSID P102 of h2's leaf on its plane,
#    then the peer.
#  - Errors name the problem: an unknown QP, an EV index out of range.
#
# Routers send their ICMP time exceeded unlimited here: a kernel's ICMP
# rate limit (6 at once per destination, then 1/s) would make hops of the
# 16 EVs traced at once silent, which a trace reports as "*".
# shellcheck source=tests/system/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
command -v jq >/dev/null || skip "needs jq"

CTL=$TOP/build/tools/mrcctl
PLANES=2
SPINES=4
tb up --hosts 2 --planes $PLANES --spines $SPINES >/dev/null
require_xdp_fabric
chmod 0755 "$TMP"

# mrcctl in HOST's namespace: a trace sends from the host's ports.
ctl() {
	local host=$1
	shift
	tb exec "$host" "$CTL" -s "$TMP/$host.sock" "$@"
}

unlimit_icmp() {
	local node
	for node in $(tb links | awk '{ print $3; print $8 }' | grep -E '^p[0-9]+[ls][0-9]+$' | sort -u); do
		tb exec "$node" sysctl -qw net.ipv4.icmp_ratelimit=0 net.ipv4.icmp_msgs_burst=100000 \
			net.ipv4.icmp_msgs_per_sec=100000 net.ipv6.icmp.ratelimit=0
	done
}
unlimit_icmp

mrcd_spawn h1
mrcd_spawn h2
mrcd_ready h1 h2

# The QP of h1's mrc-perf client, once it sends (RTS with EVs).
wait_qp() {
	local q
	for _ in $(seq 200); do
		q=$(ctl h1 -j qp show 2>/dev/null | jq '[.[] | select(.state == "RTS" and .evs > 0)][0].qpn // empty')
		[ -n "$q" ] && echo "$q" && return 0
		sleep 0.05
	done
	return 1
}

# --- errors: named --------------------------------------------------------
expect_fail() {
	local word=$1 rc=0
	shift
	ctl h1 -j ev trace "$@" >"$TMP/err.json" 2>&1 || rc=$?
	[ $rc = 2 ] || fail "ev trace $*: exit $rc, want 2: $(cat "$TMP/err.json")"
	jq -e --arg w "$word" '.error | contains($w)' "$TMP/err.json" >/dev/null ||
		fail "ev trace $*: the error does not say '$word': $(cat "$TMP/err.json")"
}
expect_fail "no such QP" qp 2000

# --- ECMP ------------------------------------------------------------------
as_nobody h2 "$PERF" server --wait 60 >"$TMP/ecmp.srv" 2>&1 &
srv=$!
as_nobody h1 "$PERF" client "$(tb addr h2 0)" --wait 10 -j --test bw -s 64K -D 8 \
	>"$TMP/ecmp.json" 2>"$TMP/ecmp.err" &
cl=$!
qpn=$(wait_qp) || fail "no QP on h1: $(cat "$TMP/ecmp.err" "$TMP/ecmp.srv")"
ctl h1 -j ev trace qp "$qpn" timeout 300 >"$TMP/trace.json" 2>"$TMP/trace.err" ||
	fail "ev trace qp $qpn: $(cat "$TMP/trace.json" "$TMP/trace.err")"
nev=$(jq length "$TMP/trace.json")
[ "$nev" -ge $PLANES ] || fail "ev trace: $nev EVs: $(cat "$TMP/trace.json")"
last=$((nev - 1))
for i in 0 $last; do
	ctl h1 -j ev trace qp "$qpn" ev "$i" timeout 300 >"$TMP/trace$i.json" ||
		fail "ev trace qp $qpn ev $i: $(cat "$TMP/trace$i.json")"
	jq -e --slurpfile all "$TMP/trace.json" --argjson i "$i" \
		'length == 1 and .[0].idx == $i and
		 [.[0].hops[].addr] == [$all[0][] | select(.idx == $i) | .hops[].addr]' \
		"$TMP/trace$i.json" >/dev/null ||
		fail "ev $i alone: $(cat "$TMP/trace$i.json"), all: $(jq -c ".[] | select(.idx == $i)" "$TMP/trace.json")"
done
expect_fail "no EV $nev" qp "$qpn" ev "$nev"
ctl h1 ev trace qp "$qpn" ev 0 timeout 300 >"$TMP/trace.txt" || fail "ev trace: text"
grep -q "RTT(us)" "$TMP/trace.txt" || fail "ev trace text: no RTT column: $(cat "$TMP/trace.txt")"
wait $cl || fail "transfer: $(cat "$TMP/ecmp.err")"
wait $srv || true

# Which node owns an address: spine "S" for pPsS, else the node's name.
tb links >"$TMP/links"
node_of() {
	awk -v a="$1" '{ for (i = 6; i <= 12; i++) sub("/.*", "", $i) }
		$6 == a || $7 == a { print $3 } $11 == a || $12 == a { print $8 }' "$TMP/links" | head -1
}
declare -A spine_of
for ((i = 0; i < nev; i++)); do
	read -r port a1 a2 a3 a4 w4 < <(jq -r --argjson i $i \
		'.[] | select(.idx == $i) | "\(.port) \([.hops[].addr] | join(" ")) \(.hops[3].what)"' \
		"$TMP/trace.json")
	p=$((port - 1))
	hops=$(jq --argjson i $i '.[] | select(.idx == $i) | .hops | length' "$TMP/trace.json")
	[ "$hops/$w4" = 4/peer ] ||
		fail "ev $i: $hops hops: $(jq -c ".[] | select(.idx == $i)" "$TMP/trace.json")"
	[ "$(node_of "$a1")" = "p${p}l1" ] || fail "ev $i: hop 1 $a1 is $(node_of "$a1"), not p${p}l1"
	[ "$(node_of "$a3")" = "p${p}l2" ] || fail "ev $i: hop 3 $a3 is $(node_of "$a3"), not p${p}l2"
	[ "$a4" = "$(tb addr h2 $p)" ] || fail "ev $i: hop 4 $a4, not h2's $(tb addr h2 $p)"
	n2=$(node_of "$a2")
	[[ $n2 == p${p}s[0-9]* ]] || fail "ev $i: hop 2 $a2 is $n2, no spine of plane $p"
	spine_of[$i]=${n2#p"${p}"s}
done
log "$nev EVs traced: leaf, spine, leaf, peer each; spines named: $(for ((i = 0; i < nev; i++)); do printf '%s' "${spine_of[$i]}"; done)"

# The fabric's word: 50 probes on the EV raise only the named spine.
for ((i = 0; i < nev; i++)); do
	read -r port ev < <(jq -r --argjson i $i '.[] | select(.idx == $i) | "\(.port) \(.wire_ev)"' "$TMP/trace.json")
	p=$((port - 1))
	declare -a b4=()
	for ((s = 0; s < SPINES; s++)); do b4[s]=$(spine_rx $p $s 1); done
	ctl h1 -j probe dgid "$(tb addr h2 0)" ev "$ev" port "$port" count 50 >"$TMP/probe.json" ||
		fail "ev $i: probes: $(cat "$TMP/probe.json")"
	rose=""
	for ((s = 0; s < SPINES; s++)); do
		d=$(($(spine_rx $p $s 1) - b4[s]))
		[ $d -ge 50 ] && rose="$rose $s"
	done
	[ "$rose" = " ${spine_of[$i]}" ] ||
		fail "ev $i (port $port, source port $ev): spines of plane $p that carried its 50 probes:${rose:- none}; the trace named ${spine_of[$i]}"
done
log "every EV's 50 probes went through exactly the spine its trace named"

# --- SRv6 --------------------------------------------------------------------
for h in h1 h2; do
	kill "$(cat "$TMP/$h.mrcd.pid")"
	for _ in $(seq 100); do
		kill -0 "$(cat "$TMP/$h.mrcd.pid")" 2>/dev/null || break
		sleep 0.05
	done
	rm -f "$TMP/$h.sock" "$TMP/$h.mrcd.pid"
done
tb down >/dev/null
SPINES=2
tb up --srv6 --planes $PLANES --spines $SPINES >/dev/null
require_xdp_fabric
# The fabric forwards SRv6 only: mrc-perf's side channel takes a link of
# its own (169-srv6-transfer.sh).
side_channel
MRCD_V6=1 mrcd_spawn h1
MRCD_V6=1 mrcd_spawn h2
mrcd_ready h1 h2
ctl h1 ev-profile usid 1 fmt 1 block fdbb:bb00 spines $SPINES planes $PLANES host 2 >/dev/null ||
	fail "ev-profile usid on h1"
ctl h2 ev-profile usid 1 fmt 1 block fdbb:bb00 spines $SPINES planes $PLANES host 1 >/dev/null ||
	fail "ev-profile usid on h2"
as_nobody h2 "$PERF" server --wait 60 --ev-profile 1 >"$TMP/srv6.srv" 2>&1 &
srv=$!
as_nobody h1 "$PERF" client "$SC_ADDR_H2" --wait 10 -j --test bw -s 64K -D 3 \
	--ev-profile 1 >"$TMP/srv6.json" 2>"$TMP/srv6.err" &
cl=$!
qpn=$(wait_qp) || fail "no SRv6 QP on h1: $(cat "$TMP/srv6.err" "$TMP/srv6.srv")"
ctl h1 -j ev trace qp "$qpn" >"$TMP/strace.json" 2>"$TMP/strace.err" ||
	fail "ev trace qp $qpn (SRv6): $(cat "$TMP/strace.json" "$TMP/strace.err")"
[ "$(jq length "$TMP/strace.json")" = $((PLANES * SPINES)) ] ||
	fail "SRv6 trace: not $((PLANES * SPINES)) EVs: $(cat "$TMP/strace.json")"
for ((i = 0; i < PLANES * SPINES; i++)); do
	s=$((i / PLANES)) p=$((i % PLANES))
	want=$(jq -nc --arg s "$(printf '02%02x' $s)" --arg l "$(printf '%x102' $p)" \
		--arg peer "$(tb addr h2 $p -6)" --argjson port $((p + 1)) \
		'{port: $port, mode: "srv6", usids: [null, $s, $l, null],
		  what: ["router", "router", "router", "peer"], last: $peer}')
	got=$(jq -c --argjson i $i '.[] | select(.idx == $i) |
		{port, mode, usids: [.hops[].usid], what: [.hops[].what], last: .hops[-1].addr}' \
		"$TMP/strace.json")
	[ "$(jq -S . <<<"$got")" = "$(jq -S . <<<"$want")" ] ||
		fail "SRv6 ev $i (spine $s of plane $p): got $got, want $want"
done
wait $cl || fail "SRv6 transfer: $(cat "$TMP/srv6.err")"
wait $srv || true
log "SRv6: each of $((PLANES * SPINES)) EVs names its spine's uSID 02SS, then h2's leaf, then the peer"
exit 0
