#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Restarting mrcd does not break a transfer (docs/mrcd.md, "Restart"):
# one verified mrc-perf WRITE transfer h1 -> h2 runs while mrcd is
# restarted 10 times, on the sender and on the receiver, each way a
# service manager does it: SIGTERM then a start (systemctl restart: mrcd
# hands the device over) and SIGKILL then a start. Every restart must take
# over the running device with the transfer's QPs, the applications must
# resume their sessions, and the transfer must end byte-exact with no
# error completion. Then:
#   - an application that does not resume: its session is refused to any
#     other process, and its objects are freed when it ends;
#   - an application that ends while no mrcd runs: the next mrcd frees
#     what it owned;
#   - a device pinned by another build (a map of another layout): refused
#     by name, and left as it was;
#   - with no application left, SIGTERM removes the device entirely.
# A controller's changes made just before a SIGKILL (a CC profile, an EV
# format and an explicit EV profile with its EVs) are what the next mrcd,
# and h1's last, show: the books keep each as it is made.
# A restarted mrcd of the same build runs the programs it finds (the
# XDP program on a port keeps its id, the pump's watch is not loaded
# again); one of another build identity
# (MRCD_TEST_BUILD_ID, restarts 11 and 12) loads its own, and so does
# the next one of this build (the running programs are the other's).
. "$(dirname "$0")/lib.sh"
require_root

tb up --hosts 2 --planes 4 --spines 2 >/dev/null
require_xdp_fabric
chmod 0755 "$TMP"
mrcd_spawn h1
mrcd_spawn h2
mrcd_ready h1 h2
disown -a # mrcds end by our signals: no job notices

# ctl NAME JQ MRCCTL-ARGS...: h1's mrcctl -j ARGS; its JSON satisfies JQ.
ctl() {
	local name=$1 filter=$2
	shift 2
	"$TOP/build/tools/mrcctl" -s "$TMP/h1.sock" -j "$@" >"$TMP/$name.json" 2>&1 ||
		fail "mrcctl $*: $(cat "$TMP/$name.json")"
	jq -e "$filter" "$TMP/$name.json" >/dev/null ||
		fail "mrcctl $*: $filter is not true of: $(cat "$TMP/$name.json")"
}
# controller_set: the changes; controller_kept: h1's mrcd shows them.
controller_set() {
	ctl cc 'true' cc-profile set 3 algorithm uet-1.0-nscc target-delay 123000 state offline
	ctl cc_on 'true' cc-profile set 3 state online
	ctl fmt 'true' ev-fmt set 1 mode udp fields 16 state offline
	ctl fmt_on 'true' ev-fmt set 1 state online
	ctl evp 'true' ev-profile set 1 mode exp fmt 1 count 4 min-active 1 events good,bad \
		field width 16 max 0xffff mask 0xffff state offline
	for p in 1 2 3 4; do ctl "evp_add$p" 'true' ev-profile add 1 ev $((50000 + p)) port $p; done
	ctl evp_on 'true' ev-profile set 1 state online
}
controller_kept() {
	ctl cc_kept '(if type == "array" then .[0] else . end) | .state == "online" and .target_delay_ns == 123000' \
		cc-profile show 3
	ctl evp_kept '(if type == "array" then .[0] else . end) | .state == "online"' ev-profile show 1
	ctl evs_kept 'length == 4 and any(.[]; .ev == 50004 or .ev == "0xc354")' ev-profile evs 1
}

# stop HOST SIGNAL: HOST's mrcd ends by SIGNAL (within 4 s).
stop() {
	local pid
	pid=$(cat "$TMP/$1.mrcd.pid")
	kill -"$2" "$pid"
	for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.02; done
	kill -0 "$pid" 2>/dev/null && fail "mrcd $1 still runs after SIG$2"
	return 0
}

# start HOST: another mrcd in HOST, once it serves (a killed one leaves
# its socket: that is no sign of the new one).
start() {
	rm -f "$TMP/$1.sock"
	mrcd_start "$1"
	disown # its end is ours to check, not the shell's to announce
	for _ in $(seq 200); do grep -q "^mrcd: ready" "$TMP/$1.mrcd.log" && break; sleep 0.02; done
}

# port_prog HOST: the id of the XDP program on HOST's first port.
port_prog() {
	local ifc
	ifc=$(tb links | awk -v h="$1" '$3 == h { print $4; exit } $8 == h { print $9; exit }')
	tb exec "$1" ip -d link show "$ifc" | grep -o "prog/xdp id [0-9]*" | awk '{ print $3 }'
}

# restart HOST SIGNAL N [fresh]: stop HOST's mrcd with SIGNAL, start
# another, and wait until it has taken over the device, with the running
# programs (or, fresh, with programs it loaded). Logs:
# $TMP/HOST.mrcd.log.N.
restart() {
	local host=$1 sig=$2 n=$3 log before after
	log=$TMP/$host.mrcd.log
	before=$(port_prog "$host")
	stop "$host" "$sig"
	if [ "$sig" = TERM ]; then
		grep -q "handing the device over: [1-9][0-9]* QPs" "$log" ||
			fail "restart $n: SIGTERM did not hand over: $(tail -5 "$log")"
	fi
	cp "$log" "$log.$n"
	start "$host"
	grep -q "took over the running device (mrcd number [0-9]* on it): [1-9][0-9]* QPs" "$log" ||
		fail "restart $n: no takeover: $(cat "$log")"
	after=$(port_prog "$host")
	{ [ -n "$before" ] && [ -n "$after" ]; } || fail "restart $n: no XDP program on $host's port"
	if [ "${4:-}" = fresh ]; then
		grep -q "^mrcd: loading the data path's programs afresh: the running ones are not reusable: they are of another build" "$log" ||
			fail "restart $n: the programs were not loaded afresh: $(cat "$log")"
		[ "$before" != "$after" ] || fail "restart $n: loaded afresh, yet the port runs program $before still"
	else
		grep -q "^mrcd: reusing the running programs of this build" "$log" ||
			fail "restart $n: the running programs were not reused: $(cat "$log")"
		grep -q "^mrcd: reusing the pump's watch of this build" "$log" ||
			fail "restart $n: the pump's watch was not reused: $(cat "$log")"
		[ "$before" = "$after" ] || fail "restart $n: the port ran program $before, now $after"
	fi
}

# perf_end NAME: end client NAME's bw row now (SIGUSR1, as if its time
# were up) and its server ($cli, $srv): exit 0, byte-exact, no error
# completion.
perf_end() {
	local rc=0
	kill -USR1 "$(cat "$TMP/$1.pid")"
	wait "$cli" || rc=$?
	wait "$srv" || true
	[ $rc = 0 ] || fail "$1: mrc-perf exit $rc: $(cat "$TMP/$1.err" "$TMP/$1.srv")"
	perf_clean "$1"
}

# Sender and receiver; one transfer lasting until the 10 restarts are done,
# however long a busy machine makes them: SIGUSR1 ends it, as finished.
as_nobody h2 "$PERF" server --wait 60 >"$TMP/xfer.srv" 2>&1 &
srv=$!
PIDNAME=xfer as_nobody h1 "$PERF" client "$(tb addr h2 0)" --wait 10 -j \
	--test bw --verify -q 4 -s 64K -D 240 >"$TMP/xfer.json" 2>"$TMP/xfer.err" &
cli=$!
sleep 2
n=0
for host in h1 h1 h2 h2 h1 h1 h2 h2 h1 h2; do
	n=$((n + 1))
	sig=TERM
	[ $((n % 2)) = 0 ] && sig=KILL
	kill -0 "$cli" 2>/dev/null || fail "the transfer ended before restart $n: $(cat "$TMP/xfer.err")"
	# Set just before a SIGKILL: no handover writes the books whole.
	[ $n = 2 ] && controller_set
	restart "$host" $sig $n
	[ $n = 2 ] && controller_kept
	sleep 1
done
MRCD_TEST_BUILD_ID=other restart h1 TERM 11 fresh
sleep 1
restart h1 KILL 12 fresh
controller_kept # ten mrcds after restart 2's
sleep 1
perf_end xfer
jq -e '.results | length > 0' "$TMP/xfer.json" >/dev/null || fail "no result: $(cat "$TMP/xfer.json")"
# The client polls its CQs: it resumes with every mrcd h1 starts while it
# runs (7: the logs saved at the next restart, and the last). The server
# waits on its TCP control connection meanwhile and resumes at its
# teardown, with h2's last mrcd.
for f in "$TMP"/h1.mrcd.log.2 "$TMP"/h1.mrcd.log.5 "$TMP"/h1.mrcd.log.6 \
	"$TMP"/h1.mrcd.log.9 "$TMP"/h1.mrcd.log.11 "$TMP"/h1.mrcd.log.12 \
	"$TMP"/h1.mrcd.log "$TMP"/h2.mrcd.log; do
	grep -q "resumed its session" "$f" || fail "$(basename "$f"): no session resumed: $(cat "$f")"
done
log "12 restarts (6 SIGTERM, 6 SIGKILL; 7 of the sender's mrcd, 5 of the receiver's) during one transfer: each took over its QPs (the running programs reused, or loaded afresh by another build identity and the build after it), the applications resumed their sessions; verified byte-exact, no error completion ($(jq -c '[.results[] | {size_bytes, gbit_per_s}]' "$TMP/xfer.json"))"

# With no mrcd at all for a while, a transfer goes on (docs/mrcd.md, "The
# data path carries the restart"). One WRITE in flight at a time (-d 1):
# each completes with nothing else in flight, so the next post finds the
# QP idle and no ACK to clock it; only the post itself can send its first
# packet (the low-latency doorbell, since the pump's watch marked every
# send queue unserved, mrc_sq.no_pump), and its ACK clocks the rest. h1's
# mrcd is killed and none runs for 2 s: the packets its data path sends
# from ACKs meanwhile (tx_ack_clocked_no_mrcd) keep growing, read a second
# apart; then an mrcd takes over and the transfer ends byte-exact. A
# post in the kill's very instant kicks the dead mrcd's eventfd; the
# next empty CQ poll rings it (lib/cq.c). Without that, 1 run in 5 beside
# a CPU hog stopped here; with it, ten in a row passed (dd4daa9).
done0=$(dp_counter h1 send_completions)
as_nobody h2 "$PERF" server --wait 60 >"$TMP/bare.srv" 2>&1 &
srv=$!
PIDNAME=bare as_nobody h1 "$PERF" client "$(tb addr h2 0)" --wait 10 -j \
	--test bw --verify -d 1 -s 256K -D 60 >"$TMP/bare.json" 2>"$TMP/bare.err" &
cli=$!
# Running: 20 WRITEs completed (within 20 s, however busy the machine).
for _ in $(seq 200); do
	[ "$(dp_counter h1 send_completions)" -ge $((done0 + 20)) ] && break
	sleep 0.1
done
[ "$(dp_counter h1 send_completions)" -ge $((done0 + 20)) ] ||
	fail "the transfer did not start: $(cat "$TMP/bare.err")"
stop h1 KILL
sleep 0.5
c1=$(dp_counter h1 tx_ack_clocked_no_mrcd)
sleep 1
c2=$(dp_counter h1 tx_ack_clocked_no_mrcd)
start h1
perf_end bare
[ "$c2" -gt "$c1" ] ||
	fail "with no mrcd the transfer stopped: $c1 packets sent from ACKs 0.5 s after the kill, $c2 a second later"
log "no mrcd for 2 s under a transfer of one WRITE at a time: it went on ($((c2 - c1)) packets sent from ACKs in the second second, each WRITE's first one rung out by its post), byte-exact after the next mrcd took over"

# A session is its own process's: an application that does not resume
# (MRC_RECONNECT_MS=0) stays an orphan; another process presenting its
# session, read from the books, is refused; when the application ends,
# its objects are freed (the pidfd mrcd watches).
as_nobody h2 "$PERF" server --wait 60 >"$TMP/orphan.srv" 2>&1 &
srv=$!
PIDNAME=orphan as_nobody h1 env MRC_RECONNECT_MS=0 "$PERF" client "$(tb addr h2 0)" \
	--wait 10 -j --test bw -q 2 -s 64K -D 4 >"$TMP/orphan.json" 2>"$TMP/orphan.err" &
cli=$!
sleep 1.5
restart h1 KILL 13
opid=$(cat "$TMP/orphan.pid")
# struct books (daemon/books.h): client[] from byte 56, 24 bytes each:
# session (u64), start_ticks (u64), pid (u32), uid (u32), little-endian.
mapfile -t b < <(bpftool -j map lookup pinned "$(mrcd_abi_dir h1)/maps/mrcd_books" \
	key 0 0 0 0 | jq -r '.value[] | ltrimstr("0x")')
session=
for ((i = 0; i < 160; i++)); do
	o=$((56 + 24 * i))
	[ $((16#${b[o + 19]}${b[o + 18]}${b[o + 17]}${b[o + 16]})) = "$opid" ] || continue
	session=${b[o + 7]}${b[o + 6]}${b[o + 5]}${b[o + 4]}${b[o + 3]}${b[o + 2]}${b[o + 1]}${b[o]}
	break
done
[ -n "$session" ] || fail "no booked session for pid $opid"
got=$(nsenter --net="/run/netns/$TB_PREFIX-h1" "$TOP/build/tests/mrcd_resume" "$TMP/h1.sock" "$session")
[ "$got" = ENOENT ] || fail "another process resumed pid $opid's session: $got"
got=$(nsenter --net="/run/netns/$TB_PREFIX-h1" "$TOP/build/tests/mrcd_resume" "$TMP/h1.sock" 1234)
[ "$got" = ENOENT ] || fail "an unknown session: $got"
grep -q "resumed its session" "$TMP/h1.mrcd.log" && fail "the application resumed with MRC_RECONNECT_MS=0"
wait "$cli" || true
wait "$srv" || true
for _ in $(seq 100); do
	grep -q "client pid $opid ended before resuming" "$TMP/h1.mrcd.log" && break
	sleep 0.05
done
grep -q "client pid $opid ended before resuming: its objects are freed" "$TMP/h1.mrcd.log" ||
	fail "the orphan's end went unnoticed: $(cat "$TMP/h1.mrcd.log")"
[ -z "$(ls "$(mrcd_abi_dir h1)/sq")" ] || fail "send queues left pinned: $(ls "$(mrcd_abi_dir h1)/sq")"
log "an application that did not resume: its session refused to another process (ENOENT), its objects freed when it ended"

# An application that ends while no mrcd runs: its objects are freed.
as_nobody h2 "$PERF" server --wait 60 >"$TMP/gone.srv" 2>&1 &
srv=$!
PIDNAME=gone as_nobody h1 "$PERF" client "$(tb addr h2 0)" --wait 10 -j \
	--test bw -q 2 -s 64K -D 30 >"$TMP/gone.json" 2>"$TMP/gone.err" &
cli=$!
for _ in $(seq 100); do
	grep -q "QP.*RTS\|client pid" "$TMP/h1.mrcd.log" && break
	sleep 0.05
done
sleep 1.5
stop h1 KILL
kill -KILL "$(cat "$TMP/gone.pid")" 2>/dev/null || true
wait "$cli" 2>/dev/null || true
start h1
grep -q "ended before resuming: its objects are freed" "$TMP/h1.mrcd.log" ||
	fail "a dead application's objects were not freed: $(cat "$TMP/h1.mrcd.log")"
[ -z "$(ls "$(mrcd_abi_dir h1)/sq")" ] || fail "send queues left pinned: $(ls "$(mrcd_abi_dir h1)/sq")"
kill -TERM "$srv" 2>/dev/null || true
wait "$srv" 2>/dev/null || true
log "an application killed while no mrcd ran: the next mrcd freed its QPs, regions and queues"

# Another build's device: a map of another layout is refused by name.
stop h1 KILL
pins=$(mrcd_abi_dir h1)
rm "$pins/maps/mrc_wake"
bpftool map create "$pins/maps/mrc_wake" type array key 4 value 4 entries 4 name mrc_wake
rm -f "$TMP/h1.sock"
rc=0
# shellcheck disable=SC2046 # mrcd_ports gives words
nsenter --net="/run/netns/$TB_PREFIX-h1" "$TOP/build/daemon/mrcd" $(mrcd_ports h1) -a anc0 \
	-s "$TMP/h1.sock" -P "$(mrcd_pin_dir h1)" >"$TMP/other.log" 2>&1 || rc=$?
[ $rc != 0 ] || fail "mrcd took over a device of another layout"
grep -q "map mrc_wake has another layout" "$TMP/other.log" || fail "layout: $(cat "$TMP/other.log")"
grep -q "left as it is" "$TMP/other.log" || fail "layout: $(cat "$TMP/other.log")"
[ -e "$pins/maps/mrc_qp_tx" ] || fail "a refused takeover removed the pins"
tb exec h1 ip -d link show "$(tb links | awk '$3 == "h1" { print $4; exit } $8 == "h1" { print $9; exit }')" |
	grep -q "prog/xdp" || fail "a refused takeover detached the data path"
log "a device with a map of another layout: refused ($(grep -o "map mrc_wake has another layout ([^)]*)" "$TMP/other.log")), left attached and pinned"
rm -r "$pins"

# No application: SIGTERM takes everything away.
start h1
stop h1 TERM
[ -e "$(mrcd_abi_dir h1)" ] && fail "pins left after a stop with no application"
for ifc in $(tb links | awk '$3 == "h1" { print $4 } $8 == "h1" { print $9 }') anc0; do
	tb exec h1 ip -d link show "$ifc" | grep -q "prog/xdp" && fail "$ifc: XDP still attached"
done
log "with no application left, SIGTERM removed the device: no pins, no XDP"
