#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The controller API end to end (docs/controller.md). A controller program
# (tests/tools/ctl_e2e, written against mrc_ctl.h alone) configures an
# explicit and a generated EV profile in h1; verified transfers through
# mrcd whose QPs name them must:
#   - spray only over the profile's EVs: on plane 1 the profile's EVs all
#     hash to one spine, so the other spines carry nothing of it (the
#     fabric's own counters say so);
#   - never use a DENIED EV: plane 2's denied EV is alone on its spine,
#     which carries nothing; it stays DENIED when a probe of it is
#     answered, and carries traffic once allowed;
#   - deliver EV events: the controller disables port 4 mid-transfer
#     (each of its EVs ASSUMED_BAD, reason port down) and enables it again
#     (each back to GOOD, by probes), each change once, in order;
#   - report exact drops: a second event queue of 16 that is not read
#     while those 24 events happen gets some and is told how many it
#     missed, exactly: received + dropped = all of them;
#   - the generated profile's EVs (2^4 from a base) are the QP's EVs, and
#     spines no generated EV hashes to carry nothing.
# The controller also probes one EV per port (device probes, no QP).
. "$(dirname "$0")/lib.sh"
require_root

tb up --hosts 2 --planes 4 --spines 4 --mtu 3000 >/dev/null
require_xdp_fabric
chmod 0755 "$TMP"
CTL=$TOP/build/tests/ctl_e2e

# spine_of PLANE SPORT: the spine the fabric hashes h1's packets from
# SPORT to h2's MRC port onto (measured before mrcd owns the ports).
spine_of() {
	local s before=() now
	for ((s = 0; s < 4; s++)); do before[s]=$(spine_rx "$1" $s 1); done
	send h1 h2 "$1" --port 4791 --sport-base "$2" --flows 1 --packets 20 >/dev/null
	for ((s = 0; s < 4; s++)); do
		now=$(spine_rx "$1" $s 1)
		if [ $((now - before[s])) -ge 20 ]; then
			echo $s
			return
		fi
	done
	fail "source port $2 on plane $1 seen on no spine"
}

# Plane 1: three EVs on one spine. Plane 2: three on one spine and one
# alone on another (it will be denied).
declare -A on=()
for ((sp = 40000; sp < 40064; sp++)); do
	s=$(spine_of 1 $sp)
	on[1.$s]="${on[1.$s]:-} $sp"
	n=$(wc -w <<<"${on[1.$s]}")
	if [ "$n" = 3 ]; then P1_SPINE=$s; P1_EVS=${on[1.$s]}; break; fi
done
[ -n "${P1_SPINE:-}" ] || fail "no three EVs share a spine on plane 1"
for ((sp = 41000; sp < 41064; sp++)); do
	s=$(spine_of 2 $sp)
	on[2.$s]="${on[2.$s]:-} $sp"
	n=$(wc -w <<<"${on[2.$s]}")
	if [ -z "${P2_SPINE:-}" ] && [ "$n" = 3 ]; then P2_SPINE=$s; P2_EVS=${on[2.$s]}; fi
	if [ -n "${P2_SPINE:-}" ] && [ "$s" != "$P2_SPINE" ]; then DENY_SPINE=$s; DENY_EV=$sp; break; fi
done
[ -n "${DENY_EV:-}" ] || fail "plane 2: no EV layout found"
log "plane 1: EVs$P1_EVS all on spine $P1_SPINE; plane 2: EVs$P2_EVS on spine $P2_SPINE, EV $DENY_EV (to deny) on spine $DENY_SPINE"

# The generated profile's EVs: 0xb000 + i, on port i % 4 + 1 (plane i % 4).
declare -A gen_used=()
for ((i = 0; i < 16; i++)); do
	p=$((i % 4))
	gen_used[$p.$(spine_of $p $((0xb000 + i)))]=1
done

mrcd_spawn h1 -v
mrcd_spawn h2
mrcd_ready h1 h2

evs=""
for sp in 42000 42001 42002; do evs="$evs 1:$sp"; done
for sp in $P1_EVS; do evs="$evs 2:$sp"; done
for sp in $P2_EVS $DENY_EV; do evs="$evs 3:$sp"; done
for ((sp = 43000; sp < 43012; sp++)); do evs="$evs 4:$sp"; done
# shellcheck disable=SC2086
MRC_SOCKET=$TMP/h1.sock "$CTL" explicit 1 1 $evs || fail "explicit profile"
MRC_SOCKET=$TMP/h1.sock "$CTL" deny 1 "3:$DENY_EV" || fail "deny"
MRC_SOCKET=$TMP/h1.sock "$CTL" array 1 >"$TMP/array" || fail "array"
grep -qx "3:$DENY_EV DENIED" "$TMP/array" || fail "EV $DENY_EV not DENIED: $(cat "$TMP/array")"
[ "$(grep -c ' GOOD$' "$TMP/array")" = 21 ] || fail "not 21 GOOD EVs: $(cat "$TMP/array")"
log "explicit profile 1: 22 EVs on 4 ports ONLINE, EV $DENY_EV DENIED"

# Device probes: one EV per port, to h2's address on plane 0.
MRC_SOCKET=$TMP/h1.sock "$CTL" probe "$(tb addr h2 0)" 1:42000 2:40000 3:41000 4:43000 \
	>"$TMP/probe" || fail "probes: $(cat "$TMP/probe")"
for p in 1 2 3 4; do
	grep -q "req $p port $p rtt_ns [1-9]" "$TMP/probe" || fail "probe $p: $(cat "$TMP/probe")"
done
log "device probes: 4 of 4 answered, each on its own port ($(awk '{printf "%s ", $6}' "$TMP/probe")ns)"

# Port admin state as applications see it.
[ "$(MRC_SOCKET=$TMP/h1.sock "$CTL" port 2 state)" = "ACTIVE enabled" ] || fail "port 2 not ACTIVE"
MRC_SOCKET=$TMP/h1.sock "$CTL" port 2 disable || fail "disable port 2"
[ "$(MRC_SOCKET=$TMP/h1.sock "$CTL" port 2 state)" = "DOWN disabled" ] || fail "disabled port 2 not DOWN"
MRC_SOCKET=$TMP/h1.sock "$CTL" port 2 enable || fail "enable port 2"
[ "$(MRC_SOCKET=$TMP/h1.sock "$CTL" port 2 state)" = "ACTIVE enabled" ] || fail "port 2 not ACTIVE again"
log "port 2 disabled: ibv_query_port says DOWN; enabled: ACTIVE"

counts() { # PLANE: the 4 spines' counters from h1
	local s
	for ((s = 0; s < 4; s++)); do printf '%s ' "$(spine_rx "$1" $s 1)"; done
}

# A verified transfer with profile 1 while port 4 goes down and up.
MRC_SOCKET=$TMP/h1.sock "$CTL" events 12 >"$TMP/events" 2>&1 &
ev_job=$!
MRC_SOCKET=$TMP/h1.sock "$CTL" events 12 16 5500 >"$TMP/events16" 2>&1 &
ev16_job=$!
for _ in $(seq 100); do
	grep -q subscribed "$TMP/events" && grep -q subscribed "$TMP/events16" && break
	sleep 0.05
done
read -ra p1_before <<<"$(counts 1)"
read -ra p2_before <<<"$(counts 2)"
# Port 4 down at 1.5 s and up at 2.5 s: 24 events while the queue of 16
# is not read (its reader starts 5.5 s in); port 1 down and up at 6 s: 6
# more, the first of which tells that queue how many it missed.
port_down_up() {
	sleep 1.5
	MRC_SOCKET=$TMP/h1.sock "$CTL" port 4 disable
	sleep 1
	MRC_SOCKET=$TMP/h1.sock "$CTL" port 4 enable
	sleep 3.5
	MRC_SOCKET=$TMP/h1.sock "$CTL" port 1 disable
	sleep 0.5
	MRC_SOCKET=$TMP/h1.sock "$CTL" port 1 enable
}
PIDNAME=srv1 as_nobody h2 "$PERF" server --wait 60 >"$TMP/x1.srv" 2>&1 &
srv=$!
port_down_up &
job=$!
as_nobody h1 "$PERF" client "$(tb addr h2 0)" --wait 10 -j --test bw --verify -s 1M -D 8 \
	--ev-profile 1 >"$TMP/x1.json" 2>"$TMP/x1.err" ||
	fail "transfer: $(cat "$TMP/x1.err" "$TMP/x1.srv")"
wait $job $srv || true
jq -e '.ok and .results[0].bad_bytes == 0 and .results[0].send_errors == 0 and
	.client_send_errors == 0' "$TMP/x1.json" >/dev/null || fail "transfer: $(cat "$TMP/x1.json")"
read -ra p1_after <<<"$(counts 1)"
read -ra p2_after <<<"$(counts 2)"
p1="" p2=""
for ((s = 0; s < 4; s++)); do
	d1=$((p1_after[s] - p1_before[s]))
	d2=$((p2_after[s] - p2_before[s]))
	if [ $s = "$P1_SPINE" ]; then
		[ $d1 -gt 1000 ] || fail "plane 1 spine $s: only $d1 packets"
	else
		[ $d1 -le 2 ] || fail "plane 1 spine $s carried $d1 packets: not a profile EV's spine"
	fi
	if [ $s = "$DENY_SPINE" ]; then
		[ $d2 -le 2 ] || fail "plane 2 spine $s carried $d2 packets: the denied EV's"
	fi
	p1="$p1 $d1" p2="$p2 $d2"
done
log "profile 1: $(jq .results[0].gbit_per_s "$TMP/x1.json") Gbit/s verified; plane 1 spines carried$p1 packets (profile spine $P1_SPINE), plane 2$p2 (denied EV's spine $DENY_SPINE)"

wait $ev_job $ev16_job || fail "event subscriber: $(cat "$TMP/events" "$TMP/events16")"
grep -v subscribed "$TMP/events" >"$TMP/events.all"
bad=$(grep -c -- "-> ASSUMED_BAD (port down)" "$TMP/events.all" || true)
good=$(grep -c -- "ASSUMED_BAD -> GOOD (probes answered)" "$TMP/events.all" || true)
[ "$bad" = 15 ] && [ "$good" = 15 ] ||
	fail "events: $bad port-down and $good back-to-GOOD, expected 15 each: $(cat "$TMP/events.all")"
grep -v "port [14] " "$TMP/events.all" && fail "events of EVs not on ports 1 and 4"
grep -q "ev $DENY_EV " "$TMP/events.all" && fail "an event of the denied EV"
awk '$1 != "profile" || $2 != 1 || $NF != 0 { exit 1 }' "$TMP/events.all" ||
	fail "events not of profile 1, or with drops: $(cat "$TMP/events.all")"
# Each EV: ASSUMED_BAD first, then GOOD, once each.
for sp in 42000 42001 42002 $(seq 43000 43011); do
	seq=$(grep "ev $sp " "$TMP/events.all" |
		awk '{ for (i = 1; i < NF; i++) if ($i == "->") printf "%s ", $(i + 1) }')
	[ "$seq" = "ASSUMED_BAD GOOD " ] || fail "EV $sp: events $seq"
done
total=$(wc -l <"$TMP/events.all")
got16=$(grep -vc subscribed "$TMP/events16" || true)
dropped16=$(grep -v subscribed "$TMP/events16" | awk '{ d += $NF } END { print d + 0 }')
[ "$got16" -lt "$total" ] || fail "the queue of 16 did not overflow: $got16 of $total"
[ $((got16 + dropped16)) = "$total" ] ||
	fail "queue of 16: $got16 received + $dropped16 dropped != $total: $(cat "$TMP/events16")"
[ "$dropped16" -gt 0 ] || fail "queue of 16: no drop reported"
log "events: $total of $total (the 15 EVs of ports 4 and 1: ASSUMED_BAD, then GOOD by probes), in order, none of other EVs; a queue of 16 read late got $got16 and was told of $dropped16 dropped, exactly"

# DENIED holds even when probes succeed: the controller's own probe of the
# denied EV is answered and it stays DENIED; allowed again, a transfer
# uses it (its spine carries traffic).
MRC_SOCKET=$TMP/h1.sock "$CTL" probe "$(tb addr h2 0)" "3:$DENY_EV" >"$TMP/probe_denied" ||
	fail "probe of the denied EV: $(cat "$TMP/probe_denied")"
MRC_SOCKET=$TMP/h1.sock "$CTL" array 1 | grep -qx "3:$DENY_EV DENIED" || fail "EV $DENY_EV left DENIED after a probe answer"
MRC_SOCKET=$TMP/h1.sock "$CTL" allow 1 "3:$DENY_EV" || fail "allow"
MRC_SOCKET=$TMP/h1.sock "$CTL" array 1 | grep -qx "3:$DENY_EV GOOD" || fail "EV $DENY_EV not GOOD once allowed"
den_before=$(spine_rx 2 "$DENY_SPINE" 1)
mrc_perf allowed --test bw --verify -s 1M -D 2 --ev-profile 1
perf_clean allowed
d=$(($(spine_rx 2 "$DENY_SPINE" 1) - den_before))
[ $d -gt 1000 ] || fail "allowed EV $DENY_EV: its spine carried only $d packets"
log "denied EV $DENY_EV: answered a probe, stayed DENIED; allowed, its spine carried $d packets"

# The generated profile: 16 EVs, compact i expanding to 0xb000 + i (the
# source port), on port i % 4 + 1.
MRC_SOCKET=$TMP/h1.sock "$CTL" generated 2 2 0xb000 4 || fail "generated profile"
MRC_SOCKET=$TMP/h1.sock "$CTL" array 2 >"$TMP/array2" || fail "array 2"
for ((i = 0; i < 16; i++)); do
	# The API shows compact EVs: i, which expands to 0xb000 + i.
	grep -qx "$((i % 4 + 1)):$i GOOD" "$TMP/array2" ||
		fail "generated EV $i: $(cat "$TMP/array2")"
done
for p in 0 1 2 3; do read -ra "g_before_$p" <<<"$(counts $p)"; done
mrc_perf gen --test bw --verify -s 1M -D 2 --ev-profile 2
perf_clean gen
unused=0
# Not plane 0: mrc-perf's TCP side channel runs there.
for p in 1 2 3; do
	read -ra after <<<"$(counts $p)"
	declare -n gb="g_before_$p"
	for ((s = 0; s < 4; s++)); do
		d=$((after[s] - gb[s]))
		if [ -z "${gen_used[$p.$s]:-}" ]; then
			[ $d -le 2 ] || fail "plane $p spine $s carried $d packets: no generated EV hashes there"
			unused=$((unused + 1))
		fi
	done
done
log "generated profile 2: 16 EVs 0xb000.. ONLINE; $(jq .results[0].gbit_per_s "$TMP/gen.json") Gbit/s verified; $unused spines no generated EV hashes to carried nothing"
