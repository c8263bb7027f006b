#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mrcctl capture on a live device: pcaps of what arrives on a port while
# mrc-perf moves verified data, an EV probe runs and the fabric trims
# packets, decoded by tshark with the dissector (deploy/mrc.lua).
#
#   h1 p0 ── p0l1 ═ s0,s1 ═ p0l2 ── p0 h2      capture h1 p0: ACKs, NACKs,
#   h1 p1 ── p1l1 ═ s0,s1 ═ p1l2 ── p1 h2        probe answers (all classes)
#                      trim 10% out of p0l2 host   capture h2 p0: data, probes
#                                                  capture h1 p1: 'class ack
#                                                  count 5 -w -' (the bound)
#
# Checks: every frame decodes as mrc with no malformed frame and no
# warning; h2 saw data (0x0a/0x0b) and probes (0xc0), h1 ACKs (0x11),
# NACKs (mrc.nack) and probe answers (0xc1); counts are > 0 and within
# the bound; the summary adds up; mrc_xdp_rx is back on every port after;
# the transfer verified every byte. Bad arguments are refused by name
# (tests/system/005-mrcctl-cli.sh has more, without a device).
# shellcheck source=tests/system/lib.sh
. "$(dirname "$0")/lib.sh"
require_root
command -v tshark >/dev/null || skip "needs tshark (make deps installs it)"
CTL=$TOP/build/tools/mrcctl
LUA=$TOP/deploy/mrc.lua
[ -x "$CTL" ] || fail "no $CTL: make first"

tb up --hosts 2 --planes 2 --spines 2 >/dev/null
require_xdp_fabric
chmod 0755 "$TMP"
mrcd_start h1
mrcd_start h2
port() { tb links | awk -v h="$1" -v p="$2" '$1 ~ /^h/ && $3 == h && $2 == p { print $4 }'; }
h1p0=$(port h1 0)
h1p1=$(port h1 1)
h2p0=$(port h2 0)
{ [ -n "$h1p0" ] && [ -n "$h1p1" ] && [ -n "$h2p0" ]; } || fail "no port names in: $(tb links)"

# cap NAME HOST ARGS...: mrcctl -j capture in HOST, in the background;
# its PID in $TMP/NAME.pid, its summary in $TMP/NAME.json, the job in
# caps (a plain `wait` would wait for the mrcds too).
caps=()
cap() {
	local name=$1 host=$2
	shift 2
	# shellcheck disable=SC2016
	tb exec "$host" sh -c 'echo $$ >"$0"; exec "$@"' "$TMP/$name.pid" \
		"$CTL" -j capture "$@" >"$TMP/$name.json" 2>"$TMP/$name.err" &
	caps+=($!)
}
cap_wait() {
	local name=$1
	for _ in $(seq 100); do
		[ -s "$TMP/$name.pid" ] && return 0
		sleep 0.05
	done
	fail "capture $name did not start: $(cat "$TMP/$name.err")"
}
xdp_name() {
	tb exec "$1" ip -d link show dev "$2" | sed -n 's|.*prog/xdp id [0-9]* name \([^ ]*\).*|\1|p'
}

cap a h1 dev "$h1p0" -w "$TMP/a.pcap" count 50000 duration 60
cap b h2 dev "$h2p0" -w "$TMP/b.pcap" count 50000 duration 60
tb exec h1 "$CTL" capture dev "$h1p1" class ack count 5 duration 60 -w - \
	>"$TMP/c.pcap" 2>"$TMP/c.err" &
cpid=$!
cap_wait a
cap_wait b
sleep 1 # the swap happens after the load: let all three be in place
for h in "h1 $h1p0" "h2 $h2p0"; do
	# shellcheck disable=SC2086
	[ "$(xdp_name $h)" = mrc_cap_xdp ] || fail "$h: $(xdp_name $h) on the port while capturing"
done
# Only one capture per port.
tb exec h1 "$CTL" capture dev "$h1p0" -w "$TMP/x.pcap" >"$TMP/x.out" 2>&1 &&
	fail "a second capture on $h1p0 started"
grep -q "a capture already runs" "$TMP/x.out" || fail "second capture: $(cat "$TMP/x.out")"

# Probes to h2 on every port (answered by h2's receive program).
"$CTL" -s "$TMP/h1.sock" -j probe dgid "$(tb addr h2 0)" ev 50001 port 1 ev 50002 port 2 \
	count 3 mode udp >"$TMP/probe.json" 2>"$TMP/probe.err" ||
	fail "probe: $(cat "$TMP/probe.json" "$TMP/probe.err")"
# Data with 10% of plane 0's packets to h2 trimmed: h2 NACKs them.
tb fault p0l2 host trim 10% keep 64 dir out >/dev/null
perf xfer --test bw --verify -s 64K -n 200
perf_clean xfer
tb fault p0l2 host clear >/dev/null

kill -INT "$(cat "$TMP/a.pid")" "$(cat "$TMP/b.pid")"
wait "$cpid" || fail "capture to stdout: exit $?: $(cat "$TMP/c.err")"
for j in "${caps[@]}"; do
	wait "$j" || fail "a capture failed: $(cat "$TMP"/[ab].err)"
done
for c in a b; do
	jq -e . "$TMP/$c.json" >/dev/null || fail "capture $c: no JSON summary: $(cat "$TMP/$c.json" "$TMP/$c.err")"
done
for h in "h1 $h1p0" "h1 $h1p1" "h2 $h2p0"; do
	# shellcheck disable=SC2086
	[ "$(xdp_name $h)" = mrc_xdp_rx ] || fail "$h: $(xdp_name $h) on the port after the capture"
done

ts() { tshark -X "lua_script:$LUA" "$@" 2>"$TMP/tshark.err"; }
nframes() { ts -r "$1" -Y "$2" -T fields -e frame.number | wc -l; }
for c in a b c; do
	f=$TMP/$c.pcap
	total=$(nframes "$f" frame)
	[ "$total" -gt 0 ] || fail "capture $c: no frame: $(cat "$TMP/tshark.err")"
	# Warnings only of mrc frames: the other class holds mrc-perf's TCP
	# side channel, whose RST at the end tshark warns about.
	loud=$(ts -r "$f" -Y '_ws.malformed || (mrc && _ws.expert.severity >= 0x00600000)' \
		-T fields -e frame.number -e _ws.expert.message | head -5)
	[ -z "$loud" ] || fail "capture $c: warnings or errors: $loud"
	! ts -r "$f" -V | grep -q "Lua Error" || fail "capture $c: Lua error"
	mrc=$(nframes "$f" 'mrc && !infiniband')
	[ "$mrc" -gt 0 ] || fail "capture $c: no mrc frame among $total"
	if [ $c != c ]; then
		w=$(jq .packets_written "$TMP/$c.json")
		[ "$w" = "$total" ] || fail "capture $c: summary says $w written, the file holds $total"
		jq -e '.packets_written <= 50000 and .packets_matched >= .packets_written and
			.packets_arrived >= .packets_matched and .packets_not_to_rx == 0' \
			"$TMP/$c.json" >/dev/null || fail "capture $c: summary: $(cat "$TMP/$c.json")"
	fi
	log "capture $c: $total frames, $mrc mrc, no malformed frame or warning"
done

# What each side must have seen.
need() {
	local n
	n=$(nframes "$TMP/$1.pcap" "$2")
	[ "$n" -gt 0 ] || fail "capture $1 has no frame with $2"
	echo "$n"
}
data=$(need b 'mrc.bth.opcode == 0x0a || mrc.bth.opcode == 0x0b')
probes=$(need b 'mrc.bth.opcode == 0xc0')
acks=$(need a 'mrc.bth.opcode == 0x11 && !mrc.nack')
nacks=$(need a 'mrc.nack')
answers=$(need a 'mrc.bth.opcode == 0xc1')
log "h2 $h2p0: $data data, $probes probes; h1 $h1p0: $acks ACKs, $nacks NACKs, $answers probe answers"

# The bound and the filter: exactly 5 frames, all ACKs (no NACK, no data).
[ "$(nframes "$TMP/c.pcap" frame)" = 5 ] || fail "count 5 wrote $(nframes "$TMP/c.pcap" frame) frames"
[ "$(nframes "$TMP/c.pcap" 'mrc.bth.opcode == 0x11 && !mrc.nack')" = 5 ] ||
	fail "class ack kept other frames: $(ts -r "$TMP/c.pcap" -T fields -e mrc.bth.opcode | sort | uniq -c)"
grep -q "5 packets written to stdout" "$TMP/c.err" || fail "stdout capture summary: $(cat "$TMP/c.err")"
log "count 5 class ack -w -: 5 ACKs; $(cat "$TMP/c.err")"

# Bad arguments name themselves (exit 1) before anything is loaded.
for bad in "dev $h1p0 -w $TMP/y.pcap count 0:count" "dev $h1p0 -w $TMP/y.pcap class nope:nope" \
	"dev $h1p0 -w $TMP/y.pcap dir out:dir" "dev $h1p0:-w FILE" "-w $TMP/y.pcap:dev IFNAME" \
	"dev $h1p0 -w $TMP/y.pcap snaplen 2:snaplen" "dev $h1p0 -w $TMP/y.pcap duration 0:duration"; do
	# shellcheck disable=SC2086
	rc=0
	# shellcheck disable=SC2086
	tb exec h1 "$CTL" capture ${bad%%:*} >"$TMP/bad.out" 2>&1 || rc=$?
	[ $rc = 1 ] || fail "capture ${bad%%:*}: exit $rc, want 1: $(cat "$TMP/bad.out")"
	grep -qF -- "${bad##*:}" "$TMP/bad.out" || fail "capture ${bad%%:*}: does not name ${bad##*:}: $(cat "$TMP/bad.out")"
done
[ "$(xdp_name h1 "$h1p0")" = mrc_xdp_rx ] || fail "a refused capture changed $h1p0"
log "bad arguments refused by name; mrc_xdp_rx back on every port"

# A capture killed without its cleanup (SIGKILL): its guard process puts
# mrc_xdp_rx back. Both killed, the guard first: the capture program stays,
# its program array emptied by the kernel, frames go to the stack; the
# next capture on the port puts mrc_xdp_rx back first.
attached() {
	for _ in $(seq 50); do
		[ "$(xdp_name h1 "$h1p0")" = "$1" ] && return 0
		sleep 0.1
	done
	fail "$2: $(xdp_name h1 "$h1p0") on the port, want $1"
}
cap k h1 dev "$h1p0" -w "$TMP/k.pcap" duration 60
cap_wait k
attached mrc_cap_xdp "capture k never attached: $(cat "$TMP/k.err")"
kill -KILL "$(cat "$TMP/k.pid")"
wait "${caps[-1]}" 2>/dev/null || true
attached mrc_xdp_rx "the guard did not put mrc_xdp_rx back after SIGKILL"
perf guarded --test bw --verify -s 4K -n 100
perf_clean guarded
cap k2 h1 dev "$h1p0" -w "$TMP/k2.pcap" duration 60
cap_wait k2
attached mrc_cap_xdp "capture k2 never attached: $(cat "$TMP/k2.err")"
guard=$(pgrep -P "$(cat "$TMP/k2.pid")")
[ -n "$guard" ] || fail "capture k2 has no guard process"
kill -KILL "$guard"
sleep 0.2
kill -KILL "$(cat "$TMP/k2.pid")"
wait "${caps[-1]}" 2>/dev/null || true
sleep 0.5
[ "$(xdp_name h1 "$h1p0")" = mrc_cap_xdp ] || fail "both killed: $(xdp_name h1 "$h1p0") on the port"
tb exec h1 "$CTL" capture dev "$h1p0" -w "$TMP/r.pcap" duration 1 >/dev/null 2>"$TMP/r.err" ||
	fail "capture after a dead one: $(cat "$TMP/r.err")"
grep -q "put mrc_xdp_rx back" "$TMP/r.err" || fail "no repair said: $(cat "$TMP/r.err")"
[ "$(xdp_name h1 "$h1p0")" = mrc_xdp_rx ] || fail "after the repair: $(xdp_name h1 "$h1p0") on the port"
perf after --test bw --verify -s 4K -n 100
perf_clean after
log "SIGKILLed capture: its guard put mrc_xdp_rx back; guard and capture killed: the next capture did; transfers verified after each"
