#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Incast through switch queues, NSCC on (docs/congestion.md): N senders
# into one receiver whose 4 links are 200 Mbit/s queues that mark ECN
# past the target's backlog, DCTCP's step (tests/bench/incast.sh builds
# it; each case is a testbed of its own), every byte verified:
#   - 2->1 and 4->1 into trimming queues, no fault (2->1 marking ECN,
#     4->1 not marking): every flow finishes, no EV goes ASSUMED_BAD,
#     and trims come back as NACKs the senders take and resend (never
#     more than the queues made);
#   - 2->1 and 4->1 into drop-tail queues: no EV blamed for congestion
#     alone;
#   - 2->1 into trimming queues with a spine of plane 1 blackholed 1.5 s
#     in: exactly the EVs the fabric hashes onto that spine go
#     ASSUMED_BAD, for each sender, and nothing else.
# What a case must show holds whatever the machine's load: the figures
# (goodput, fairness) are the benchmark's to report, not this test's.
#
# Ten runs in a row beside a CPU hog passed (with 030 and 090; d3f6896
# with the i18 merges, 2026-12-04): 136-249 s a run; with the bench's
# INCAST_DEPTH 8, six more runs beside a hog passed, 100-102 s a run.
# With the bench's full frames (path MTU 4096: 2924-byte packets), ten
# runs in a row beside a hog passed (2026-12-05, 135-147 s a run).
# Ten more at d1eb695 (2026-12-07, ABI 25), 189-224 s a run; ten more at
# 332fb1e (testbeds up in parallel, all hosts' mrcds started at once),
# 153-176 s a run.
. "$(dirname "$0")/lib.sh"
require_root

BENCH=$TOP/tests/bench/incast.sh
# Windows far above the BDP (1 MiB against the default profile's 75000 B):
# the queues fill, so drops and trims are certain, not left to chance.
export INCAST_NSCC="base-rtt 10000 max-cwnd 1048576"
# incast NAME ARGS...: the benchmark's JSON in $TMP/NAME/; skips as it does.
incast() {
	local name=$1 rc=0
	shift
	mkdir -p "$TMP/$name"
	BENCH_OUT=$TMP/$name "$BENCH" "$@" >"$TMP/$name.out" 2>&1 || rc=$?
	[ $rc = 77 ] && skip "$(grep -m1 '^SKIP' "$TMP/$name.out")"
	[ $rc = 0 ] || fail "$name: exit $rc: $(tail -n 20 "$TMP/$name.out")"
	sed "s/^/  $SUITE: $name: /" "$TMP/$name.out" | grep -v '^\s*$' | head -n 3
}
# jqe NAME FILTER: FILTER is true of NAME's result, or the test fails.
# (The result on one line, without its histograms: run-system.sh shows
# a failed suite's last 40 lines.)
jqe() {
	jq -e "$2" "$TMP/$1"/incast-[0-9]*.json >/dev/null ||
		fail "$1: $2 is not true of: $(jq -c 'del(.queue_wait_hist_10us, .cc_delay_hist_10us)' "$TMP/$1"/incast-[0-9]*.json) (blamed: $(cat "$TMP/$1/incast-blamed.txt"))"
}

# Two trimming switches: 2->1 into queues that mark ECN and hold 8 KB
# (under three packets: with the default 50 KB, senders that transmit by
# skb, marked from 2.5 KB on, kept every queue below its buffer), and
# 4->1 into queues that do not mark at all and hold 32 KB (1.3 ms): the
# delay of queues that never mark must not read as a dead path
# (docs/health.md, silence), whether they fill and trim or not.
INCAST_BUFFER=8192 incast trim2 2 trim 200mbit 4 nscc
INCAST_ECN=off INCAST_BUFFER=32768 incast trim4 4 trim 200mbit 4 nscc
for n in 2 4; do
	jqe trim$n '.bad_bytes == 0 and .evs_blamed == 0'
	# A trim the senders took is one the queues made, and was resent.
	jqe trim$n '.cc_trims <= .queue_trimmed and .retransmits >= .cc_trims and
		(.queue_trimmed == 0 or .cc_trims > 0)'
done
# Two windows at MaxWnd into 8 KB buffers: trims are certain, at any
# load. (Four senders beside a CPU hog left 50 KB queues that never mark
# at 48 KB, untrimmed.)
jqe trim2 '.queue_trimmed > 0'
jqe trim4 '.queue_ecn_marked == 0'
log "incast 2->1 and 4->1, trimming: byte-exact, no EV blamed, trims NACKed and resent ($(jq -r '"\(.cc_trims) of \(.queue_trimmed)"' "$TMP"/trim2/incast-[0-9]*.json) in 2->1, $(jq -r '"\(.cc_trims) of \(.queue_trimmed)"' "$TMP"/trim4/incast-[0-9]*.json) in 4->1 without ECN)"

for n in 2 4; do
	incast drop$n "$n" drop 200mbit 4 nscc
	jqe drop$n '.bad_bytes == 0 and .evs_blamed == 0 and .queue_trimmed == 0'
	log "incast $n->1, drop-tail: byte-exact, no EV blamed ($(jq .queue_dropped "$TMP"/drop$n/incast-[0-9]*.json) packets dropped)"
done

INCAST_MAP_PLANE=1 INCAST_FAULT="1500:spine 1 0" incast dead 2 trim 200mbit 4 nscc
jqe dead '.bad_bytes == 0'
for h in h2 h3; do
	want=$(awk -v h=$h '$1 == h && $3 == 0 { print $2 }' "$TMP/dead/incast-spines.txt" | sort -n | paste -sd' ')
	[ -n "$want" ] || fail "dead: no EV of $h hashes to p1s0: cannot test"
	got=$(awk -v h=$h '$1 == h && /-> ASSUMED_BAD/ { sub(/^.* EV /, ""); print $1 }' \
		"$TMP/dead/incast-blamed.txt" | sort -nu | paste -sd' ')
	[ "$got" = "$want" ] ||
		fail "dead: $h blamed EVs '$got', the fabric hashes '$want' onto p1s0: $(grep "^$h" "$TMP/dead/incast-blamed.txt")"
	log "incast with p1s0 blackholed: $h blamed exactly the EVs through it ($want)"
done
