#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/soak.sh [SECONDS]: mrcd in h1 (and h2) under a mixed load for
# SECONDS (default 600): verified transfers with 1 to 64 QPs, created and
# destroyed each round; a controller subscribing to events, making and
# taking apart an EV profile, probing; a plane failing and healing; short
# connections that leave without cleaning up. mrcd's memory (VmRSS), its
# open file descriptors, the pinned objects and the BPF maps and programs
# on the host are measured after a warm-up round and at the end: any
# growth fails (a little slack for the allocator), and every figure is
# printed. `make soak` runs 600 s; `make check` runs 60 s (120-soak).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
SECONDS_WANTED=${1:-600}
export TB_PREFIX=${TB_PREFIX:-mrcs$$}
. "$TOP/tests/system/lib.sh"
require_root

tb up --hosts 2 --planes 4 --spines 2 >/dev/null
chmod 0755 "$TMP"
mrcd_start h1
mrcd_start h2
CTL=$TOP/build/tests/ctl_e2e
MRCCTL=$TOP/build/tools/mrcctl
pid=$(cat "$TMP/h1.mrcd.pid")

measure() { # -> "rss_kib fds pins maps progs"
	local rss fds pins maps progs
	rss=$(awk '/^VmRSS/ { print $2 }' /proc/"$pid"/status)
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
	# A plane fails and heals under a transfer, every other round.
	if [ $((n % 2)) = 1 ]; then
		as_nobody h2 "$PERF" server --wait 30 >/dev/null 2>&1 &
		srv=$!
		as_nobody h1 "$PERF" client "$(tb addr h2 0)" --wait 10 -j --test bw --verify \
			-s 1M -D 1 --at "300:$TOP/tests/testbed/testbed -p $TB_PREFIX fail plane 2" \
			--at "600:$TOP/tests/testbed/testbed -p $TB_PREFIX heal plane 2" \
			>"$TMP/f.json" 2>"$TMP/f.err" || fail "round $n: failover: $(cat "$TMP/f.err")"
		wait $srv || true
		jq -e '.ok and .results[0].bad_bytes == 0' "$TMP/f.json" >/dev/null ||
			fail "round $n: failover: $(cat "$TMP/f.json")"
	fi
	# A client that leaves without cleaning up: mrcd frees what it owned.
	as_nobody h1 timeout -s KILL 0.5 "$PERF" client "$(tb addr h2 0)" --wait 1 \
		--test bw -D 5 -q 4 >/dev/null 2>&1 || true
}

round 0 # warm-up: every path taken once
read -r rss0 fds0 pins0 maps0 progs0 < <(measure)
start=$(date +%s)
n=1
while [ $(($(date +%s) - start)) -lt "$SECONDS_WANTED" ]; do
	round $n
	n=$((n + 1))
done
sleep 1 # the last client's objects
read -r rss1 fds1 pins1 maps1 progs1 < <(measure)
log "$n rounds in $(($(date +%s) - start)) s: mrcd VmRSS ${rss0} -> ${rss1} KiB, fds $fds0 -> $fds1, pinned objects $pins0 -> $pins1, BPF maps $maps0 -> $maps1, programs $progs0 -> $progs1"
# 1 MiB of allocator slack; descriptors, pins, maps, programs: exactly.
[ "$rss1" -le $((rss0 + 1024)) ] || fail "mrcd memory grew: $rss0 -> $rss1 KiB"
[ "$fds1" -le "$fds0" ] || fail "mrcd file descriptors grew: $fds0 -> $fds1 ($(ls -l /proc/"$pid"/fd | tail -n +2 | awk '{print $NF}' | sort | uniq -c | sort -rn | head -5 | tr '\n' ' '))"
[ "$pins1" -le "$pins0" ] || fail "pinned objects grew: $pins0 -> $pins1"
[ "$maps1" -le "$maps0" ] || fail "BPF maps grew: $maps0 -> $maps1"
[ "$progs1" -le "$progs0" ] || fail "BPF programs grew: $progs0 -> $progs1"
