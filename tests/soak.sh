#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/soak.sh [SECONDS]: mrcd in h1 (and h2) under a mixed load for
# SECONDS (default 600): verified transfers with 1 to 64 QPs, created and
# destroyed each round; a controller subscribing to events, making and
# taking apart an EV profile, probing; short connections that leave
# without cleaning up; and chaos: a verified transfer of 1 to 16 QPs while
# faults come at random (SOAK_SEED) from the fabric's whole repertoire
# (spines and planes blackholed, plane links down, loss, duplication,
# corruption, trimming, ECN marks, a shaped link that reorders, a flapping
# spine) and from the hosts (mrcd SIGKILLed and restarted on either side,
# an application killed mid-transfer, the controller denying and allowing
# an EV of the transfer's profile and disabling a port). Every byte must
# arrive right, no
# WQE may fail, and no transfer may hang past its time (a stuck QP).
# mrcd's memory (VmRSS), its open file descriptors, the pinned objects and
# the BPF maps and programs on the host are measured after a warm-up
# round and at the end: any growth fails (a little slack for the
# allocator; mrcd's own figures from the first round after its last
# restart), and every figure and the faults by kind are printed. `make
# soak` runs 600 s; `make check` runs 60 s (120-soak).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
SECONDS_WANTED=${1:-600}
export TB_PREFIX=${TB_PREFIX:-mrcs$$}
. "$TOP/tests/system/lib.sh"
require_root

tb up --hosts 2 --planes 4 --spines 2 >/dev/null
chmod 0755 "$TMP"
mrcd_spawn h1
mrcd_spawn h2
mrcd_ready h1 h2
CTL=$TOP/build/tests/ctl_e2e
MRCCTL=$TOP/build/tools/mrcctl
disown -a # mrcds end by our signals (chaos): no job notices
RANDOM=${SOAK_SEED:-1}
FABCTL=$TOP/build/tests/fabricctl
# The chaos transfers' EVs: profile 1 (the controller's, changed under
# them), 16 EVs, 4 on each port.
chaos_evs=()
for ((i = 0; i < 16; i++)); do chaos_evs+=("$((i % 4 + 1)):$((44000 + i))"); done
MRC_SOCKET=$TMP/h1.sock "$CTL" explicit 1 1 "${chaos_evs[@]}" >/dev/null ||
	fail "the chaos transfers' EV profile"

measure() { # -> "rss_kib fds pins maps progs"
	local rss fds pins maps progs pid
	pid=$(cat "$TMP/h1.mrcd.pid")
	# Resident memory less mrcd's static tables (.bss: the anonymous
	# mapping right after the binary's own): a table's page becomes
	# resident the first time a QP of its number is used, so those grow
	# to the tables' size as new QP numbers come, and no further.
	rss=$(awk -v bin="$(readlink /proc/"$pid"/exe)" '
		/^[0-9a-f]+-[0-9a-f]+ / { anon_after = (prev_bin && NF == 5); prev_bin = ($6 == bin); next }
		/^Rss:/ { rss += $2; if (anon_after) bss += $2 }
		END { print rss - bss }' /proc/"$pid"/smaps)
	fds=$(find /proc/"$pid"/fd -mindepth 1 | wc -l)
	pins=$(find "$(mrcd_pin_dir h1)" | wc -l)
	maps=$(bpftool map show | grep -c '^[0-9]*:' || true)
	progs=$(bpftool prog show | grep -c '^[0-9]*:' || true)
	echo "$rss $fds $pins $maps $progs"
}

round() { # N: one round of the mixed load
	local n=$1 qps=$((1 << ($1 % 7))) srv
	# A transfer over qps QPs, verified, 1 s.
	as_nobody h2 "$PERF" server --wait 30 >"$TMP/srv.$n" 2>&1 &
	srv=$!
	as_nobody h1 "$PERF" client "$(tb addr h2 0)" --wait 10 -j --test bw --verify \
		-s 64K -D 1 -q "$qps" >"$TMP/x.json" 2>"$TMP/x.err" ||
		fail "round $n: transfer with $qps QPs: $(cat "$TMP/x.err" "$TMP/srv.$n")"
	wait $srv || true
	jq -e '.ok and .results[0].bad_bytes == 0 and .results[0].send_errors == 0' "$TMP/x.json" \
		>/dev/null || fail "round $n: $(cat "$TMP/x.json")"
	rm -f "$TMP/srv.$n"
	# The controller: a profile made and taken apart, an event queue,
	# a probe per port.
	MRC_SOCKET=$TMP/h1.sock "$CTL" events 1 64 >/dev/null &
	evs=$!
	MRC_SOCKET=$TMP/h1.sock "$MRCCTL" ev-fmt set 9 mode udp fields 16 state offline
	MRC_SOCKET=$TMP/h1.sock "$MRCCTL" ev-fmt set 9 state online
	MRC_SOCKET=$TMP/h1.sock "$MRCCTL" ev-profile set 9 mode gen fmt 9 count 8 min-active 1 \
		events good,bad field width 16 init 0xa000 max 7 mask 7 state offline
	MRC_SOCKET=$TMP/h1.sock "$MRCCTL" ev-profile set 9 state online
	MRC_SOCKET=$TMP/h1.sock "$MRCCTL" -j probe dgid "$(tb addr h2 0)" ev 0xa000 port 1 \
		ev 0xa001 port 2 ev 0xa002 port 3 ev 0xa003 port 4 >/dev/null || true
	MRC_SOCKET=$TMP/h1.sock "$MRCCTL" ev-profile set 9 state offline
	MRC_SOCKET=$TMP/h1.sock "$MRCCTL" ev-profile set 9 state init
	MRC_SOCKET=$TMP/h1.sock "$MRCCTL" ev-fmt set 9 state offline
	MRC_SOCKET=$TMP/h1.sock "$MRCCTL" ev-fmt set 9 state init
	wait $evs || fail "round $n: event subscriber"
	chaos_round "$n"
	# A client that leaves without cleaning up: mrcd frees what it owned.
	as_nobody h1 timeout -s KILL 0.5 "$PERF" client "$(tb addr h2 0)" --wait 1 \
		--test bw -D 5 -q 4 >/dev/null 2>&1 || true
}

# --- chaos --------------------------------------------------------------------

# restart HOST: its mrcd SIGKILLed, another started that takes the device
# over (docs/mrcd.md); the transfer's libmrc resumes.
restart() {
	local pid
	pid=$(cat "$TMP/$1.mrcd.pid")
	kill -KILL "$pid"
	for _ in $(seq 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.02; done
	cat "$TMP/$1.mrcd.log" >>"$TMP/$1.mrcd.log.all"
	rm -f "$TMP/$1.sock"
	mrcd_start "$1"
	disown
	for _ in $(seq 200); do grep -q "^mrcd: ready" "$TMP/$1.mrcd.log" && break; sleep 0.02; done
	[ "$1" = h1 ] && touch "$TMP/h1.restarted" # chaos runs in a subshell
	return 0
}

spine_node() { echo "$TB_PREFIX-p$1s$2:/sys/fs/bpf/$TB_PREFIX/p$1s$2"; }

# One fault, chosen at random, on for 0.2-0.5 s, then healed.
one_fault() {
	local p=$((RANDOM % 4)) s=$((RANDOM % 2)) kind hold
	hold=0.$((2 + RANDOM % 4))
	case $((RANDOM % 15)) in
	0) kind=spine_blackhole; tb fail spine $p $s; sleep "$hold"; tb heal spine $p $s ;;
	1) kind=plane_blackhole; tb fail plane $p; sleep "$hold"; tb heal plane $p ;;
	2) kind=plane_linkdown; tb fail plane $p --by linkdown; sleep "$hold"; tb heal plane $p ;;
	3) kind=loss; "$FABCTL" fault "$(spine_node $p $s)" l1 drop 5% dir both
		sleep "$hold"; "$FABCTL" fault "$(spine_node $p $s)" l1 clear ;;
	4) kind=duplication; "$FABCTL" fault "$(spine_node $p $s)" l1 dup 10% dir both
		sleep "$hold"; "$FABCTL" fault "$(spine_node $p $s)" l1 clear ;;
	5) kind=corruption; "$FABCTL" fault "$(spine_node $p $s)" l1 corrupt 2% dir both
		sleep "$hold"; "$FABCTL" fault "$(spine_node $p $s)" l1 clear ;;
	6) kind=trimming; "$FABCTL" fault "$(spine_node $p $s)" l1 trim 10% keep 64 dir both
		sleep "$hold"; "$FABCTL" fault "$(spine_node $p $s)" l1 clear ;;
	7) kind=ecn; "$FABCTL" fault "$(spine_node $p $s)" l1 ecn 30% dir both
		sleep "$hold"; "$FABCTL" fault "$(spine_node $p $s)" l1 clear ;;
	8) kind=reordering; tb shape "p${p}l1-s$s" 200mbit; sleep "$hold"; tb unshape "p${p}l1-s$s" ;;
	9) kind=flapping
		for _ in $(seq 8); do
			"$FABCTL" fault "$(spine_node $p $s)" l1 blackhole on dir both
			sleep 0.02
			"$FABCTL" fault "$(spine_node $p $s)" l1 clear
			sleep 0.02
		done ;;
	10) # The sender's mrcd only in the first two thirds: the last one
		# lives long enough for its memory and descriptors to be judged.
		if [ $(($(date +%s) - ${start:-0})) -lt $((SECONDS_WANTED * 2 / 3)) ]; then
			kind=mrcd_kill_sender
			restart h1
		else
			kind=mrcd_kill_receiver
			restart h2
		fi ;;
	11) kind=mrcd_kill_receiver; restart h2 ;;
	12) kind=controller_deny
		ev=${chaos_evs[RANDOM % 16]}
		MRC_SOCKET=$TMP/h1.sock "$CTL" deny 1 "$ev"; sleep "$hold"
		MRC_SOCKET=$TMP/h1.sock "$CTL" allow 1 "$ev" ;;
	13) kind=controller_port_disable
		MRC_SOCKET=$TMP/h1.sock "$CTL" port $((p + 1)) disable; sleep "$hold"
		MRC_SOCKET=$TMP/h1.sock "$CTL" port $((p + 1)) enable ;;
	*) kind=application_killed
		as_nobody h1 timeout -s KILL 0.3 "$PERF" client "$(tb addr h2 0)" --wait 1 \
			--test bw -D 5 -q 2 >/dev/null 2>&1 || true ;;
	esac
	echo "$kind" >>"$TMP/faults"
}

chaos() { # faults for SECONDS, one after another
	local end=$((${EPOCHREALTIME/./} + $1 * 1000000))
	sleep 0.3
	while [ "${EPOCHREALTIME/./}" -lt "$end" ]; do
		one_fault >/dev/null 2>&1
		sleep 0.$((1 + RANDOM % 3))
	done
}

# chaos_round N: a verified transfer of 1 to 16 QPs for 4 s while faults
# come; it must end in time, every byte right, no WQE failed.
chaos_round() {
	local n=$1 qps=$((1 << ($1 % 5))) srv job rc=0
	as_nobody h2 "$PERF" server --wait 60 >"$TMP/csrv" 2>&1 &
	srv=$!
	chaos 3 &
	job=$!
	as_nobody h1 timeout 40 "$PERF" client "$(tb addr h2 0)" --wait 10 -j --test bw --verify \
		-s 256K -D 4 -q "$qps" --ev-profile 1 >"$TMP/c.json" 2>"$TMP/c.err" || rc=$?
	wait $job || true
	wait $srv || true
	[ $rc != 124 ] && [ $rc != 137 ] ||
		fail "chaos round $n: the transfer ($qps QPs) hung (a stuck QP); faults: $(tail -5 "$TMP/faults" | tr '\n' ' ')"
	[ $rc = 0 ] || fail "chaos round $n: mrc-perf exit $rc: $(cat "$TMP/c.err" "$TMP/csrv"); faults: $(tail -5 "$TMP/faults" | tr '\n' ' ')"
	jq -e '.ok and .results[0].bad_bytes == 0 and .results[0].send_errors == 0 and
		.results[0].recv_errors == 0 and .client_send_errors == 0' "$TMP/c.json" >/dev/null ||
		fail "chaos round $n ($qps QPs): $(cat "$TMP/c.json"); faults: $(tail -5 "$TMP/faults" | tr '\n' ' ')"
	verified_bytes=$((verified_bytes + $(jq '.results[0].checked_bytes' "$TMP/c.json")))
	chaos_rounds=$((chaos_rounds + 1))
}
verified_bytes=0 chaos_rounds=0
: >"$TMP/faults"

# Warm-up: every path taken once (round 0), and the largest round (64
# QPs, round 6): its allocations set the heap's high water, which a
# later round of that size reaches again; measured only after a 1-QP
# warm-up, the heap grew 1.4 MB whenever the timed rounds got that far.
round 0
round 6
read -r rss0 fds0 pins0 maps0 progs0 < <(measure)
start=$(date +%s)
n=1
while [ $(($(date +%s) - start)) -lt "$SECONDS_WANTED" ]; do
	rm -f "$TMP/h1.restarted"
	round $n
	n=$((n + 1))
	# mrcd's own figures start again with a new mrcd.
	if [ -e "$TMP/h1.restarted" ]; then
		read -r rss0 fds0 _ _ _ < <(measure)
		restarted_at=$n
	fi
done
sleep 1 # the last client's objects
read -r rss1 fds1 pins1 maps1 progs1 < <(measure)
log "$n rounds in $(($(date +%s) - start)) s: mrcd VmRSS ${rss0} -> ${rss1} KiB, fds $fds0 -> $fds1${restarted_at:+ (from round $restarted_at, after its last restart)}, pinned objects $pins0 -> $pins1, BPF maps $maps0 -> $maps1, programs $progs0 -> $progs1"
log "chaos: $chaos_rounds verified transfers, $((verified_bytes / 1048576)) MiB checked, no error, none hung; faults: $(sort "$TMP/faults" | uniq -c | awk '{ printf "%s%s %d", (NR > 1 ? ", " : ""), $2, $1 }')"
# 1 MiB of allocator slack; descriptors, pins, maps, programs: exactly.
[ "$rss1" -le $((rss0 + 1024)) ] || fail "mrcd memory grew: $rss0 -> $rss1 KiB"
[ "$fds1" -le "$fds0" ] || fail "mrcd file descriptors grew: $fds0 -> $fds1 ($(ls -l /proc/"$pid"/fd | tail -n +2 | awk '{print $NF}' | sort | uniq -c | sort -rn | head -5 | tr '\n' ' '))"
[ "$pins1" -le "$pins0" ] || fail "pinned objects grew: $pins0 -> $pins1"
[ "$maps1" -le "$maps0" ] || fail "BPF maps grew: $maps0 -> $maps1"
[ "$progs1" -le "$progs0" ] || fail "BPF programs grew: $progs0 -> $progs1"
