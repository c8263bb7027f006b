#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mrcctl capture on a live device: pcaps of what arrives on a port while
# mrc-perf moves verified data, an EV probe runs and the fabric trims
# packets, decoded by tshark with the dissector (deploy/mrc.lua).
#
#   h1 p0 ── p0l1 ═ s0,s1 ═ p0l2 ── p0 h2      capture h1 p0 'dir both':
#   h1 p1 ── p1l1 ═ s0,s1 ═ p1l2 ── p1 h2        data leaving; ACKs, NACKs,
#                      trim 10% out of p0l2 host   probe answers arriving;
#                                                  probes leaving (mrcd's,
#                                                  through mrc_tx_port)
#                                                  capture h2 p0 'dir both':
#                                                  data, probes arriving;
#                                                  ACKs, NACKs, answers
#                                                  turned around (XDP_TX)
#                                                  capture h1 p1: 'class ack
#                                                  count 5 -w -' (the bound)
#                                                  later h1 p1: 'dir out
#                                                  class data count 5 -w -'
#
# Checks: every frame decodes as mrc with no malformed frame and no
# warning; h2 saw data (0x0a/0x0b) and probes (0xc0) arriving and sent
# ACKs (0x11), NACKs (mrc.nack) and probe answers (0xc1), each turned
# around and saying so; h1 saw those arriving, data leaving by the
# transmit program and mrcd's probes leaving through mrc_tx_port, saying
# so;
# as many data frames leaving h1 p0 as arriving at h2 p0, and as many
# ACKs and NACKs leaving h2 p0 as arriving at h1 p0; what leaves by the
# transmit program is data only; counts are > 0 and within the bound; the
# summary adds up; one capture per device takes the turnarounds;
# mrc_xdp_rx is back on every port and mrc_tx_port and mrc_turn_hook are
# empty after; the transfer verified every byte. Bad arguments are
# refused by name (tests/system/005-mrcctl-cli.sh has more, without a
# device).
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
mrcd_spawn h1
mrcd_spawn h2
mrcd_ready h1 h2
# A kernel that refuses live frames: mrcd transmits by skb (docs/mrcd.md,
# "Transmit by skb"), so its data and its own frames leave by the kernel
# stack, and the capture says so.
skb=0
grep -q "transmitting by skb" "$TMP/h1.mrcd.log" && skb=1
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
# tx_prog HOST PORT: the program in HOST's mrc_tx_port entry of port
# index PORT (the plane), "none" without one.
tx_prog() {
	local b id
	# shellcheck disable=SC2207
	b=($(bpftool -j map lookup pinned "$(mrcd_abi_dir "$1")/maps/mrc_tx_port" \
		key "$2" 0 0 0 | jq -r '.value[4:8] | .[]'))
	[ ${#b[@]} = 4 ] || fail "$1 port $2: no mrc_tx_port entry"
	id=$((b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24))
	if [ "$id" = 0 ]; then
		echo none
	else
		bpftool -j prog show id "$id" | jq -r .name
	fi
}
# turn_prog HOST: the program in HOST's mrc_turn_hook, "none" without one
# (bpftool prints null and fails on an empty entry).
turn_prog() {
	local b id
	# shellcheck disable=SC2207
	b=($(bpftool -j map lookup pinned "$(mrcd_abi_dir "$1")/maps/mrc_turn_hook" \
		key 0 0 0 0 2>/dev/null | jq -r '.value // empty | .[]'))
	if [ ${#b[@]} != 4 ]; then
		echo none
		return
	fi
	id=$((b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24))
	bpftool -j prog show id "$id" | jq -r .name
}

cap a h1 dev "$h1p0" -w "$TMP/a.pcap" dir both count 50000 duration 60
cap b h2 dev "$h2p0" -w "$TMP/b.pcap" dir both count 50000 duration 60
tb exec h1 "$CTL" capture dev "$h1p1" class ack count 5 duration 60 -w - \
	>"$TMP/c.pcap" 2>"$TMP/c.err" &
cpid=$!
cap_wait a
cap_wait b
# The hooks are set after the capture program loads, which takes its
# time on a busy machine: wait for all of them (a capture that never
# sets one fails here, after 60 s), then start the traffic.
in_place() { # HOST PORT IFNAME
	[ "$(xdp_name "$1" "$3")" = mrc_cap_xdp ] && [ "$(tx_prog "$1" "$2")" = mrc_cap_out ] &&
		[ "$(turn_prog "$1")" = mrc_cap_turn ]
}
for _ in $(seq 600); do
	in_place h1 0 "$h1p0" && in_place h2 0 "$h2p0" && break
	sleep 0.1
done
for h in "h1 0 $h1p0" "h2 0 $h2p0"; do
	# shellcheck disable=SC2086
	set -- $h
	[ "$(xdp_name "$1" "$3")" = mrc_cap_xdp ] || fail "$1 $3: $(xdp_name "$1" "$3") on the port while capturing"
	[ "$(tx_prog "$1" "$2")" = mrc_cap_out ] || fail "$1 port $2: '$(tx_prog "$1" "$2")' in mrc_tx_port while capturing both"
	[ "$(turn_prog "$1")" = mrc_cap_turn ] || fail "$1: '$(turn_prog "$1")' in mrc_turn_hook while capturing both"
done
# h1 p1's 'class ack count 5' capture ('dir in') must be in front too.
for _ in $(seq 600); do
	[ "$(xdp_name h1 "$h1p1")" = mrc_cap_xdp ] && break
	sleep 0.1
done
[ "$(xdp_name h1 "$h1p1")" = mrc_cap_xdp ] || fail "h1 $h1p1: $(xdp_name h1 "$h1p1") on the port while capturing: $(cat "$TMP/c.err")"
# Only one capture per port, and one per device that takes what leaves
# (h1 p1's 'class ack' capture above is 'dir in').
tb exec h1 "$CTL" capture dev "$h1p0" -w "$TMP/x.pcap" >"$TMP/x.out" 2>&1 &&
	fail "a second capture on $h1p0 started"
grep -q "a capture already runs" "$TMP/x.out" || fail "second capture: $(cat "$TMP/x.out")"
tb exec h2 "$CTL" capture dev "$(port h2 1)" dir out -w "$TMP/x.pcap" >"$TMP/x.out" 2>&1 &&
	fail "a second capture of what h2 turns around started"
grep -q "a capture of another port of its device takes what the device turns around" "$TMP/x.out" ||
	fail "second turnaround capture: $(cat "$TMP/x.out")"

# Probes to h2 on every port (answered by h2's receive program).
"$CTL" -s "$TMP/h1.sock" -j probe dgid "$(tb addr h2 0)" ev 50001 port 1 ev 50002 port 2 \
	count 3 mode udp >"$TMP/probe.json" 2>"$TMP/probe.err" ||
	fail "probe: $(cat "$TMP/probe.json" "$TMP/probe.err")"
# Data with 10% of plane 0's packets to h2 trimmed: h2 NACKs them.
tb fault p0l2 host trim 10% keep 64 dir out >/dev/null
mrc_perf xfer --test bw --verify -s 64K -n 200
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
for h in "h1 0" "h1 1" "h2 0" "h2 1"; do
	# shellcheck disable=SC2086
	[ "$(tx_prog $h)" = none ] || fail "$h: '$(tx_prog $h)' left in mrc_tx_port after the capture"
done
for h in h1 h2; do
	[ "$(turn_prog $h)" = none ] || fail "$h: '$(turn_prog $h)' left in mrc_turn_hook after the capture"
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
			.packets_matched == .packets_arrived_matched + .packets_sent_matched and
			.packets_sent_matched == .packets_sent_tx_port_matched +
				.packets_sent_xdp_tx_matched + .packets_sent_stack_matched and
			.packets_sent == .packets_sent_tx_port + .packets_sent_xdp_tx +
				.packets_sent_stack and
			.packets_arrived >= .packets_arrived_matched and
			.packets_sent >= .packets_sent_matched and
			.packets_not_to_rx == 0' \
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
IN='frame.packet_flags_direction == 1'
OUT='frame.packet_flags_direction == 2'
DATA='(mrc.bth.opcode == 0x0a || mrc.bth.opcode == 0x0b)'
TURNED='frame.comment == "turned around by mrc_xdp_rx (XDP_TX)"'
MRCD='frame.comment == "built by mrcd, sent through mrc_tx_port"'
BYTX="$OUT && !frame.comment"
ACKS='(mrc.bth.opcode == 0x11)'
data=$(need b "$IN && $DATA")
probes=$(need b "$IN && mrc.bth.opcode == 0xc0")
acks=$(need a "$IN && $ACKS && !mrc.nack")
nacks=$(need a "$IN && mrc.nack")
answers=$(need a "$IN && mrc.bth.opcode == 0xc1")
STACK='frame.comment == "sent by the kernel stack"'
if [ $skb = 1 ]; then
	sent=$(need a "$OUT && $STACK && $DATA")
	mrcd_probes=$(need a "$OUT && $STACK && mrc.bth.opcode == 0xc0")
else
	sent=$(need a "$BYTX && $DATA")
	mrcd_probes=$(need a "$OUT && $MRCD && mrc.bth.opcode == 0xc0")
fi
t_acks=$(need b "$OUT && $TURNED && $ACKS && !mrc.nack")
t_nacks=$(need b "$OUT && $TURNED && mrc.nack")
t_answers=$(need b "$OUT && $TURNED && mrc.bth.opcode == 0xc1")
log "h2 $h2p0: $data data, $probes probes arriving; $t_acks ACKs, $t_nacks NACKs, $t_answers probe answers turned around"
way="by mrc_xdp_tx"
[ $skb = 0 ] || way="by the kernel stack (transmit by skb)"
log "h1 $h1p0: $acks ACKs, $nacks NACKs, $answers probe answers arriving; $sent data leaving $way, $mrcd_probes probes by mrcd"
# Every frame of the pcapng has a direction; what leaves by the transmit
# program is data only, what is turned around is ACKs, NACKs and probe
# answers only, what arrives at h1 is no data (h2 sends none).
for c in a b; do
	[ "$(nframes "$TMP/$c.pcap" "!($IN) && !($OUT)")" = 0 ] || fail "capture $c: frames with no direction"
	[ "$(nframes "$TMP/$c.pcap" "$BYTX && !$DATA")" = 0 ] ||
		fail "capture $c: leaving by mrc_xdp_tx, not data: $(ts -r "$TMP/$c.pcap" -Y "$BYTX && !$DATA" -T fields -e mrc.bth.opcode | sort | uniq -c)"
	[ "$(nframes "$TMP/$c.pcap" "$OUT && $TURNED && !($ACKS || mrc.bth.opcode == 0xc1)")" = 0 ] ||
		fail "capture $c: turned around, not an ACK, NACK or answer"
	[ "$(nframes "$TMP/$c.pcap" "$IN && frame.comment")" = 0 ] || fail "capture $c: an arriving frame says it left"
done
[ "$(nframes "$TMP/a.pcap" "$IN && $DATA")" = 0 ] || fail "capture a: data arriving at h1"
# mrcd's frames leave through mrc_tx_port too, never by the stack; by
# skb, everything leaves by the stack, nothing through mrc_tx_port.
w=$(jq .packets_sent_tx_port_matched "$TMP/a.json")
t=$(nframes "$TMP/a.pcap" "$OUT && ($BYTX || $MRCD)")
[ "$w" = "$t" ] || fail "capture a: summary says $w sent through mrc_tx_port and kept, the file holds $t"
if [ $skb = 1 ]; then
	[ "$t" = 0 ] || fail "capture a: $t frames through mrc_tx_port from a device that transmits by skb"
else
	[ "$(nframes "$TMP/a.pcap" "$OUT && $STACK && mrc.bth.opcode == 0xc0")" = 0 ] ||
		fail "capture a: probes leaving by the kernel stack"
fi
w=$(jq .packets_sent_xdp_tx_matched "$TMP/b.json")
t=$(nframes "$TMP/b.pcap" "$OUT && $TURNED")
[ "$w" = "$t" ] || fail "capture b: summary says $w turned around and kept, the file holds $t"
# The fabric trims, never drops: every data frame that left h1 p0
# arrived at h2 p0 (trimmed or whole), and only those; every ACK and
# NACK h2 turned around on p0 arrived at h1 p0 (nothing faults that way).
# (Unless the perf rings or the socket lost some: then that is counted,
# and said.)
lost=$(jq -s 'map(.packets_lost_ring_full + .packets_lost_records + .packets_lost_socket) | add' "$TMP/a.json" "$TMP/b.json")
if [ "$lost" = 0 ]; then
	[ "$sent" = "$data" ] || fail "data: $sent left h1 $h1p0, $data arrived at h2 $h2p0"
	[ $((t_acks + t_nacks)) = $((acks + nacks)) ] ||
		fail "ACKs and NACKs: $t_acks + $t_nacks turned around at h2 $h2p0, $acks + $nacks arrived at h1 $h1p0"
else
	log "the captures lost $lost records: leaving and arriving frames not compared"
fi
log "dir both: every frame with its direction and its way out; $sent data left h1, as many arrived at h2; as many ACKs and NACKs arrived at h1 as h2 turned around"

# The bound and the filter: exactly 5 frames, all ACKs (no NACK, no data).
[ "$(nframes "$TMP/c.pcap" frame)" = 5 ] || fail "count 5 wrote $(nframes "$TMP/c.pcap" frame) frames"
[ "$(nframes "$TMP/c.pcap" 'mrc.bth.opcode == 0x11 && !mrc.nack')" = 5 ] ||
	fail "class ack kept other frames: $(ts -r "$TMP/c.pcap" -T fields -e mrc.bth.opcode | sort | uniq -c)"
grep -q "5 packets written to stdout" "$TMP/c.err" || fail "stdout capture summary: $(cat "$TMP/c.err")"
log "count 5 class ack -w -: 5 ACKs; $(cat "$TMP/c.err")"

# Bad arguments name themselves (exit 1) before anything is loaded.
for bad in "dev $h1p0 -w $TMP/y.pcap count 0:count" "dev $h1p0 -w $TMP/y.pcap class nope:nope" \
	"dev $h1p0 -w $TMP/y.pcap dir up:up" "dev $h1p0:-w FILE" "-w $TMP/y.pcap:dev IFNAME" \
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
cap k h1 dev "$h1p0" -w "$TMP/k.pcap" dir both duration 60
cap_wait k
attached mrc_cap_xdp "capture k never attached: $(cat "$TMP/k.err")"
[ "$(tx_prog h1 0)" = mrc_cap_out ] || fail "capture k: '$(tx_prog h1 0)' in mrc_tx_port"
[ "$(turn_prog h1)" = mrc_cap_turn ] || fail "capture k: '$(turn_prog h1)' in mrc_turn_hook"
kill -KILL "$(cat "$TMP/k.pid")"
wait "${caps[-1]}" 2>/dev/null || true
attached mrc_xdp_rx "the guard did not put mrc_xdp_rx back after SIGKILL"
[ "$(tx_prog h1 0)" = none ] || fail "the guard left '$(tx_prog h1 0)' in mrc_tx_port after SIGKILL"
[ "$(turn_prog h1)" = none ] || fail "the guard left '$(turn_prog h1)' in mrc_turn_hook after SIGKILL"
# Meanwhile 'dir out' alone, to stdout, bounded: 5 data frames leaving h1 p1.
tb exec h1 "$CTL" capture dev "$h1p1" dir out class data count 5 duration 60 -w - \
	>"$TMP/o.pcap" 2>"$TMP/o.err" &
opid=$!
for _ in $(seq 600); do
	[ "$(tx_prog h1 1)" = mrc_cap_out ] && [ "$(turn_prog h1)" = mrc_cap_turn ] && break
	sleep 0.1
done
[ "$(xdp_name h1 "$h1p1")" = mrc_xdp_rx ] || fail "dir out changed the XDP program of $h1p1"
[ "$(tx_prog h1 1)" = mrc_cap_out ] || fail "dir out: '$(tx_prog h1 1)' in mrc_tx_port"
mrc_perf guarded --test bw --verify -s 4K -n 100
perf_clean guarded
wait "$opid" || fail "dir out to stdout: exit $?: $(cat "$TMP/o.err")"
[ "$(tx_prog h1 1)" = none ] || fail "dir out: '$(tx_prog h1 1)' left in mrc_tx_port"
[ "$(nframes "$TMP/o.pcap" frame)" = 5 ] || fail "dir out count 5 wrote $(nframes "$TMP/o.pcap" frame) frames: $(cat "$TMP/o.err")"
[ "$(nframes "$TMP/o.pcap" "$OUT && $DATA")" = 5 ] ||
	fail "dir out class data: $(ts -r "$TMP/o.pcap" -T fields -e frame.packet_flags_direction -e mrc.bth.opcode | sort | uniq -c)"
[ -z "$(ts -r "$TMP/o.pcap" -Y '_ws.malformed || _ws.expert.severity >= 0x00600000' -T fields -e frame.number)" ] ||
	fail "dir out: malformed or warned frames"
grep -q "5 packets written to stdout.* sent [1-9]" "$TMP/o.err" || fail "dir out summary: $(cat "$TMP/o.err")"
log "dir out class data count 5 -w -: 5 data frames leaving; $(cat "$TMP/o.err")"
cap k2 h1 dev "$h1p0" -w "$TMP/k2.pcap" dir both duration 60
cap_wait k2
attached mrc_cap_xdp "capture k2 never attached: $(cat "$TMP/k2.err")"
[ "$(tx_prog h1 0)" = mrc_cap_out ] || fail "capture k2: '$(tx_prog h1 0)' in mrc_tx_port"
guard=$(pgrep -P "$(cat "$TMP/k2.pid")")
[ -n "$guard" ] || fail "capture k2 has no guard process"
kill -KILL "$guard"
sleep 0.2
kill -KILL "$(cat "$TMP/k2.pid")"
wait "${caps[-1]}" 2>/dev/null || true
sleep 0.5
[ "$(xdp_name h1 "$h1p0")" = mrc_cap_xdp ] || fail "both killed: $(xdp_name h1 "$h1p0") on the port"
[ "$(tx_prog h1 0)" = mrc_cap_out ] || fail "both killed: '$(tx_prog h1 0)' in mrc_tx_port"
[ "$(turn_prog h1)" = mrc_cap_turn ] || fail "both killed: '$(turn_prog h1)' in mrc_turn_hook"
tb exec h1 "$CTL" capture dev "$h1p0" -w "$TMP/r.pcap" duration 1 >/dev/null 2>"$TMP/r.err" ||
	fail "capture after a dead one: $(cat "$TMP/r.err")"
grep -q "put mrc_xdp_rx back" "$TMP/r.err" || fail "no repair said: $(cat "$TMP/r.err")"
grep -q "took a dead capture's egress program out" "$TMP/r.err" || fail "no egress repair said: $(cat "$TMP/r.err")"
grep -q "took a dead capture's program out of mrc_turn_hook" "$TMP/r.err" || fail "no turnaround repair said: $(cat "$TMP/r.err")"
[ "$(xdp_name h1 "$h1p0")" = mrc_xdp_rx ] || fail "after the repair: $(xdp_name h1 "$h1p0") on the port"
[ "$(tx_prog h1 0)" = none ] || fail "after the repair: '$(tx_prog h1 0)' in mrc_tx_port"
[ "$(turn_prog h1)" = none ] || fail "after the repair: '$(turn_prog h1)' in mrc_turn_hook"
mrc_perf after --test bw --verify -s 4K -n 100
perf_clean after
log "SIGKILLed capture (both): its guard put mrc_xdp_rx back and took mrc_cap_out and mrc_cap_turn out; guard and capture killed: the next capture did all three; transfers verified after each"
