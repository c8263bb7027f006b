#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An off-path host cannot hurt a QP (docs/security.md). h3 sees none of
# the traffic between h1 and h2; during a verified transfer h1 -> h2 it
# forges, with the peer's address as source, what would stall, fail or
# slow the QP if it were believed (tests/tools/inject.c):
#   - ACKs to h1 naming PSNs in flight, cumulative PSN at the next one to
#     send, every SACK bit set: "all of it arrived" (would free records of
#     packets h2 never got: the QP stalls);
#   - fatal NACKs (rkey) to h1 naming PSNs in flight (would fail the QP);
#   - trimmed NACKs to h1 (would make it resend);
#   - WRITEs to h2 in its window with a guessed rkey, so h2 itself NACKs
#     h1 (the NACK returns the forger's echo, not h1's);
#   - then, with plane 1 blackholed so its EVs are out of use and probed,
#     answers to h1's probes for every EV, sequence numbers swept from 1
#     and random (would bring dead paths back into use).
# It is told more than an off-path host knows: the QP numbers, and the
# PSNs in flight read from the victims' own maps as they run. Only the
# echo key it lacks. Every byte must arrive right, no completion may fail,
# and h1 must have dropped the forged answers as ack_bad_echo (or, for
# PSNs delivered meanwhile, ack_not_in_flight), h2 the WRITEs as bad_rkey.
. "$(dirname "$0")/lib.sh"
require_root

tb up --hosts 3 --planes 4 --spines 2 >/dev/null
require_xdp_fabric
chmod 0755 "$TMP"
mrcd_spawn h1 -v
mrcd_spawn h2
mrcd_ready h1 h2

INJECT=$TOP/build/tests/inject
QPN=2 # the first QP each mrcd makes: mrc-perf's, on both sides
TX_PIN=$(mrcd_abi_dir h1)/maps/mrc_qp_tx
RX_PIN=$(mrcd_abi_dir h2)/maps/mrc_qp
DMAC=$(tb exec p0l3 cat /sys/class/net/host/address) # h3's leaf, plane 0

# counter HOST MAP KEY: entry KEY of HOST's per-CPU counter array MAP,
# summed over CPUs.
counter() {
	bpftool -j map lookup pinned "$(mrcd_abi_dir "$1")/maps/$2" \
		key "$3" 0 0 0 | jq '
		def hex: ascii_downcase | ltrimstr("0x") | explode |
			reduce .[] as $c (0; . * 16 + (if $c >= 97 then $c - 87 else $c - 48 end));
		(.formatted.values // .values) | map(.value |
			if type == "array" then (map(hex) | reverse | reduce .[] as $b (0; . * 256 + $b)) else . end) | add // 0'
}

# drops HOST NAME: HOST's data path drop counter NAME (include/mrc/drop.h).
drops() {
	local idx
	idx=$(grep -o 'X([A-Z_0-9]*, "[a-z_0-9]*"' "$TOP/include/mrc/drop.h" |
		grep -n "\"$2\"" | cut -d: -f1)
	[ -n "$idx" ] || fail "no drop reason $2"
	counter "$1" mrc_drop "$idx"
}

# rxc HOST NAME: HOST's receive counter NAME (MRC_RX_COUNTERS, abi.h).
rxc() {
	local idx
	idx=$(sed -n '/MRC_RX_COUNTERS(X)/,/^$/p' "$TOP/include/mrc/abi.h" |
		grep -o 'X([A-Z_0-9]*, "[a-z_0-9]*"' | grep -n "\"$2\"" | cut -d: -f1)
	[ -n "$idx" ] || fail "no receive counter $2"
	counter "$1" mrc_rx_stats $((idx - 1))
}

attack() {
	local m
	sleep 1.5
	for m in ack nack trim; do
		forge_at $m "$TX_PIN" "$(tb addr h2 0)" "$(tb addr h1 0)" 1.2 "$TMP/inject.$m"
	done
	forge_at data "$RX_PIN" "$(tb addr h1 0)" "$(tb addr h2 0)" 1.2 "$TMP/inject.data"
	# A forged answer names a PSN in flight when h3 read it; on a loaded
	# machine h3 may run so little that each is delivered before its
	# forgery arrives (refused then as not in flight). More ACKs, while
	# the transfer lasts, until one meets its PSN still in flight.
	for _ in 1 2 3 4; do
		[ "$(drops h1 ack_bad_echo)" -gt "$echo_before" ] && break
		forge_at ack "$TX_PIN" "$(tb addr h2 0)" "$(tb addr h1 0)" 0.3 "$TMP/inject.more"
		jq -n --slurpfile a "$TMP/inject.ack" --slurpfile b "$TMP/inject.more" \
			'{frames: ($a[0].frames + $b[0].frames)}' >"$TMP/inject.sum" &&
			mv "$TMP/inject.sum" "$TMP/inject.ack"
	done
}

# forge_at MODE MAP SRC DST SECONDS OUT: h3 forges MODE frames from SRC
# to DST (tests/tools/inject.c) for SECONDS; {"frames": N} into OUT. At a
# real-time priority: beside a CPU-heavy job the injector would otherwise
# run so seldom that every PSN it names is delivered before its forgery
# arrives, and the echo check would never be met (RT throttling leaves
# the rest of the machine 5 %).
forge_at() {
	chrt -f 5 "$INJECT" --mode "$1" --pin "$2" --qpn $QPN --netns "$TB_PREFIX-h3" --dev p0 \
		--dmac "$DMAC" --src "$3" --dst "$4" --seconds "$5" >"$6" ||
		echo '{"frames": -1}' >"$6"
}

# under_attack NAME SECONDS ATTACK WHAT: a verified transfer h1 -> h2 of
# SECONDS (mrc-perf, as nobody) while ATTACK runs beside it; fails on an
# error completion or a bad byte ("transfer under WHAT").
under_attack() {
	local srv job
	PIDNAME=$1.srv as_nobody h2 "$PERF" server --wait 60 >"$TMP/$1.srv" 2>&1 &
	srv=$!
	$3 &
	job=$!
	as_nobody h1 "$PERF" client "$(tb addr h2 0)" --wait 10 -j --test bw --verify -s 1M -D "$2" \
		>"$TMP/$1.json" 2>"$TMP/$1.err" ||
		fail "transfer under $4: mrc-perf: $(cat "$TMP/$1.err" "$TMP/$1.srv")"
	wait $job $srv || true
	jq -e '.ok and .results[0].bad_bytes == 0 and .results[0].send_errors == 0 and
		.client_send_errors == 0' "$TMP/$1.json" >/dev/null ||
		fail "transfer under $4: $(cat "$TMP/$1.json")"
}

echo_before=$(drops h1 ack_bad_echo)
stale_before=$(drops h1 ack_not_in_flight)
rkey_before=$(drops h2 bad_rkey)
under_attack xfer 8 attack injection

sent=0
for m in ack nack trim data; do
	n=$(jq .frames "$TMP/inject.$m")
	[ "$n" -gt 0 ] || fail "the injector sent no $m frames: $(cat "$TMP/inject.$m")"
	sent=$((sent + n))
done
forged_answers=$(($(jq .frames "$TMP/inject.ack") + $(jq .frames "$TMP/inject.nack") + $(jq .frames "$TMP/inject.trim")))
bad_echo=$(($(drops h1 ack_bad_echo) - echo_before))
stale=$(($(drops h1 ack_not_in_flight) - stale_before))
bad_rkey=$(($(drops h2 bad_rkey) - rkey_before))
# Every forged answer refused, for its echo or (delivered meanwhile) as
# not in flight; and the echo check met some of them.
[ $((bad_echo + stale)) -ge "$forged_answers" ] ||
	fail "h1 refused $bad_echo forged answers for their echo and $stale as not in flight, of $forged_answers forged: some were taken in"
[ "$bad_echo" -gt 0 ] || fail "h1 dropped no answer for its echo ($stale as not in flight) of $forged_answers forged"
[ "$bad_rkey" -gt 0 ] || fail "h2 counted no bad rkey of $(jq .frames "$TMP/inject.data") forged WRITEs"
# Everything h1 refused was forged: h2's own answers all return the echo.
[ $((bad_echo)) -le $((forged_answers + bad_rkey)) ] ||
	fail "h1 refused $bad_echo answers for their echo, more than the $forged_answers + $bad_rkey forged"
log "$(jq .results[0].gbit_per_s "$TMP/xfer.json") Gbit/s verified while h3 forged $sent packets; h1 refused $bad_echo for their echo and $stale as not in flight, h2 $bad_rkey WRITEs for their rkey"

# Forged probe answers. Plane 1 blackholed under a transfer: its EVs go
# ASSUMED_BAD and are probed, and no real answer can come back until the
# heal. h3 answers h1's probes for every EV meanwhile; not one EV may come
# back GOOD before the heal, and all must after it.
probe_attack() {
	sleep 1.5
	tb fail plane 1 >/dev/null
	sleep 0.5
	forge_at probe "$TX_PIN" "$(tb addr h2 0)" "$(tb addr h1 0)" 2.5 "$TMP/inject.probe"
	wc -l <"$TMP/h1.mrcd.log" >"$TMP/heal.line"
	tb heal plane 1 >/dev/null
}
answers_before=$(rxc h1 probe_answers_received)
from=$(wc -l <"$TMP/h1.mrcd.log")
under_attack xfer2 6 probe_attack "forged probe answers"
forged=$(jq .frames "$TMP/inject.probe")
[ "$forged" -gt 0 ] || fail "the injector sent no probe answers: $(cat "$TMP/inject.probe")"
answers=$(($(rxc h1 probe_answers_received) - answers_before))
# A flood at real-time priority: the fabric may drop some of it on the way.
[ "$answers" -gt 0 ] || fail "h1 received none of $forged forged probe answers"
heal=$(cat "$TMP/heal.line")
sed -n "$((from + 1)),${heal}p" "$TMP/h1.mrcd.log" >"$TMP/before_heal.log"
# Plane 1's EVs leave by port 1 (EV i by port i % 4); only theirs matter:
# under load another EV may be blamed and come back by real probes.
grep -q -e "(port 1, .*-> ASSUMED_BAD" "$TMP/before_heal.log" ||
	fail "plane 1 blackholed, and none of its EVs went out of use: $(cat "$TMP/before_heal.log")"
grep -e "(port 1, .*-> GOOD" "$TMP/before_heal.log" &&
	fail "an EV of plane 1 came back GOOD while it was blackholed: forged probe answers believed"
for _ in $(seq 50); do
	bad=$(tail -n +$((from + 1)) "$TMP/h1.mrcd.log" | grep -e "(port 1, .*GOOD -> ASSUMED_BAD" |
		sed 's/^.* EV \([0-9]*\) .*$/\1/' | sort -u | wc -l)
	good=$(tail -n +$((heal + 1)) "$TMP/h1.mrcd.log" | grep -e "(port 1, .*ASSUMED_BAD -> GOOD" |
		sed 's/^.* EV \([0-9]*\) .*$/\1/' | sort -u | wc -l)
	[ "$good" -ge "$bad" ] && break
	sleep 0.2
done
[ "$good" -ge "$bad" ] || fail "after the heal only $good of $bad EVs came back GOOD"
log "plane 1 blackholed: $bad EVs out of use; $answers of $forged forged probe answers received, none believed; all back GOOD by real probes after the heal"
