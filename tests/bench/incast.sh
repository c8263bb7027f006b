#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Incast: N senders into one receiver whose 4 links (one per plane) are
# switch egress queues (testbed shape: RATE each, a buffer, an ECN ramp,
# trim or drop when full). Every sender runs one verified mrc-perf bulk
# transfer (1 MiB WRITEs, one QP over 4 planes) at once, with NSCC (CC
# profile 1, sized for the shaped planes) or without (cc none); or, the baselines on
# the same queues, TCP (cubic or bbr, ECN on, one flow per plane per
# sender) or MPTCP (one connection per sender, a subflow per plane).
#
#   tests/bench/incast.sh [N] [trim|drop] [RATE] [SECONDS] [nscc|none|cubic|bbr|mptcp]
#
# Prints, and writes as JSON to $BENCH_OUT/incast-N-MODE-CC.json: each
# sender's goodput, their sum as a fraction of the bottleneck (4 x RATE),
# Jain's fairness index over the senders, the queueing delay p50 / p99
# (an echo from the first sender to each of the receiver's planes every
# 20 ms, through the same queues, less the idle round trip; and the wait
# every data packet found at the queues, from their histograms; with
# NSCC also its own RTT samples less the base RTT, mrc_cc_delay), the EVs the
# senders' path health blamed (MRC), what the queues trimmed, marked and
# dropped and their high-water mark, the senders' trims taken, window
# decreases (MRC) and retransmits, and the CPU the run took. TCP gets the
# queues' packets at wire size: segmentation and receive offloads are off
# in every namespace (a 64 KB GSO packet is larger than the buffer).
# Defaults: 2 senders, trim, 200mbit, 6 s, nscc; with no arguments at
# all, the matrix make bench runs (below).
#
# For tests/system/095-incast.sh, MRC runs only: INCAST_FAULT="MS:TARGET"
# fails a testbed TARGET (e.g. "1500:spine 1 0") MS into the transfer and
# heals it after; INCAST_MAP_PLANE=P first finds which spine each
# sender's EVs of plane P take ("hN EV SPINE" lines in
# $BENCH_OUT/incast-spines.txt). incast-blamed.txt has every EV blamed,
# incast-counters.txt every host's data path counters that are not zero.
#
# Each sender keeps INCAST_DEPTH WRITEs posted (default 8: 8 MiB, some
# 160 windows; mrc-perf's own default, 128 MiB, takes a fair share of a
# 4->1 incast 5-10 s to drain after the end, and mrc-perf gives up on a
# flow 10 s after it: the "WRITEs still incomplete" runs).
#
# INCAST_PIN=1 pins sender i's mrcd and mrc-perf (h2, h3, ...) to CPU
# (i - 2) mod the CPUs: which CPU a sender gets, apart from the algorithm.
# INCAST_MTU sets the links' MTU (default 3000) and INCAST_PATH_MTU the
# QPs' path MTU (mrc-perf --mtu, default 4096: cut to the links, a packet
# carries 2924 bytes at 3000 over IPv4, as a TCP segment carries 2948;
# 2048 gives IB's 2048-byte packets).
#
# INCAST_BUFFER sets each queue's buffer in bytes (default 2 ms at RATE,
# at least 32 KiB); INCAST_ECN its marking threshold, "KMIN-KMAX" bytes
# for a ramp, or "off" for none (default: the CC profile's target delay
# at RATE, a step).
#
# INCAST_CONF="LINE" adds that mrcd.conf line on every host (e.g.
# "ack-clock no"), to compare a setting.
#
# INCAST_NSCC="KEY VALUE ..." replaces the CC profile's NSCC settings
# (mrcctl cc-profile set; default "base-rtt 10000 bdp B", B sized for
# the shaped planes, below).
#
# NSCC's reaction time (make bench: 2 senders, trim): INCAST_JOIN_S=J
# starts sender k (k = 0, 1, ...) k x J seconds after the first, running
# until the others end, with 64 KiB WRITEs and a goodput timeline each;
# join_reaction_ms is the time from the last one's start until every
# flow is within 20 % of an equal share of what they carry together, in
# 50 ms windows, three windows in a row (null: never); join_settled_ms
# the same for ten windows in a row (half a second).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
# With no arguments (make bench): one QP alone over the 4 queues (NSCC,
# and cubic beside it), then N = 2 and 4, trim and drop, each CC, each a
# testbed of its own.
if [ $# = 0 ]; then
	for cc in nscc cubic; do
		"$0" 1 trim 200mbit 6 "$cc"
	done
	for n in 2 4; do
		for mode in trim drop; do
			for cc in nscc none cubic bbr mptcp; do
				"$0" "$n" "$mode" 200mbit 6 "$cc"
			done
		done
	done
	INCAST_JOIN_S=3 "$0" 2 trim 200mbit 8 nscc
	exit 0
fi
N=${1:-2}
DEPTH=${INCAST_DEPTH:-8}
MODE=${2:-trim}
RATE=${3:-200mbit}
SECS=${4:-6}
CC=${5:-nscc}
OUT=${BENCH_OUT:-$TOP/build/bench}
NAME=incast-$N-$MODE-$CC${INCAST_JOIN_S:+-join}
export TB_PREFIX=mrci$$
. "$TOP/tests/system/lib.sh"
mkdir -p "$OUT"
case $MODE in trim | drop) ;; *) echo "incast: MODE is trim or drop" >&2; exit 2 ;; esac
case $CC in nscc | none | cubic | bbr | mptcp) ;; *) echo "incast: CC is nscc, none, cubic, bbr or mptcp" >&2; exit 2 ;; esac
[[ $N =~ ^[1-9]$ ]] || { echo "incast: N is 1..9 senders" >&2; exit 2; }

# h1 receives; h2..h(N+1) send. Two spines a plane keep the fabric small.
tb up --hosts $((N + 1)) --planes 4 --spines 2 --mtu "${INCAST_MTU:-3000}" >/dev/null
require_xdp_fabric
chmod 0755 "$TMP"
rate_bps=$(awk -v r="$RATE" 'BEGIN {
	n = r + 0; u = tolower(substr(r, length(n "") + 1))
	m["kbit"] = 1e3; m["mbit"] = 1e6; m["gbit"] = 1e9
	printf "%d\n", n * m[u] }')
[ "$rate_bps" -gt 0 ] || { echo "incast: RATE like 200mbit" >&2; exit 2; }
# A switch port's buffer of 2 ms at RATE. ECN marks every packet that
# finds more than the queue the CC profile's target delay makes at RATE,
# DCTCP's step at K (INCAST_ECN="KMIN-KMAX" bytes for a ramp instead):
# NSCC cuts its window only for marked packets that were late, so a
# switch that marks only well above the target lets the queue stand
# there. A ramp from the target to 4 targets, the setting until
# 2026-12-06, let four senders' queues reach four packets at the p99
# (docs/congestion.md).
buf=$((rate_bps / 8 / 500))
[ $buf -ge 32768 ] || buf=32768
buf=${INCAST_BUFFER:-$buf} # bytes
target_ns=$(awk -v s="${INCAST_NSCC:-}" 'BEGIN { t = 100000
	n = split(s, w, " "); for (i = 1; i < n; i++) if (w[i] == "target-delay") t = w[i + 1]
	print t }')
kmin=$((rate_bps / 8 * target_ns / 1000000000))
# NSCC sized for this network (mrcctl cc-profile set ... bdp): what a QP's
# 4 planes carry (4 x RATE) times the round trip its window must cover
# here, 250 us. That is measured, not the unloaded 20-50 us: on 2 CPUs a
# window's turn includes waking the pump, and in 1->1 a 22,500-byte
# window carried 719 Mbit/s (22500 x 8 / 719e6 = 250 us). mrcctl's
# defaults are sized for 4 unshaped 1 Gbit/s planes (50 KB), and at
# 200 Mbit/s their increases and max-cwnd are twice this network's: the
# queues stood a packet higher (docs/congestion.md, 2026-12-05).
nscc_bdp=$((4 * rate_bps / 8 * 250 / 1000000))
nscc_opts=${INCAST_NSCC:-base-rtt 10000 bdp $nscc_bdp}
# INCAST_ECN=off: the queues mark nothing.
shape_opts=(buffer "$buf" full "$MODE")
[ "${INCAST_ECN:-}" = off ] || shape_opts+=(ecn "${INCAST_ECN:-$kmin}")
[ "$MODE" = trim ] && shape_opts+=(keep 64 dscp 46)
for p in 0 1 2 3; do
	tb shape "h1-p$p" "$RATE" "${shape_opts[@]}" from "p${p}l1"
done

# Which spine each sender's EVs of plane $1 take: each EV's UDP source
# port sent alone, counted by the spines, before mrcd owns the ports. The
# first QP mrcd makes is number 2: its EVs are 49152 + 2 * 256 + i, EV i
# on plane i % 4 (daemon/serve.c), 64 of them.
map_spines() {
	local plane=$1 i e s now
	local -a prev
	: >"$OUT/incast-spines.txt"
	for ((i = 2; i <= N + 1; i++)); do
		for s in 0 1; do prev[s]=$(spine_rx "$plane" $s "$i"); done
		for ((e = plane; e < 64; e += 4)); do
			send "h$i" h1 "$plane" --port 4791 --sport-base $((49152 + 2 * 256 + e)) \
				--flows 1 --packets 20 >/dev/null
			for s in 0 1; do
				now=$(spine_rx "$plane" $s "$i")
				[ $((now - prev[s])) -ge 20 ] && echo "h$i $e $s" >>"$OUT/incast-spines.txt"
				prev[s]=$now
			done
		done
	done
}
[ -z "${INCAST_MAP_PLANE:-}" ] || map_spines "$INCAST_MAP_PLANE"

# The queueing delay, the same way for every transport: the idle round
# trip to each plane first, then an echo every 20 ms during the run.
ppids=() reaction=null settled=null join_jain=null
ping_start() {
	local p
	for p in 0 1 2 3; do
		tb exec h2 ping -n -c 5 -i 0.05 "$(tb addr h1 $p)" 2>/dev/null |
			sed -n 's/.*time=\([0-9.]*\).*/\1/p' | sort -n | head -1 >"$TMP/idle$p"
	done
	for p in 0 1 2 3; do
		tb exec h2 timeout $((SECS + 5)) ping -n -i 0.02 -c $((SECS * 50)) \
			"$(tb addr h1 $p)" >"$TMP/ping$p.out" 2>&1 &
		ppids+=($!)
	done
}
ping_wait() {
	local p
	for p in "${ppids[@]}"; do wait "$p" || true; done
}

# Fairness over short windows, the same way for every transport: what
# each sender queued at the four receiver-facing queues (testbed
# queue-watch: a switch's per-source counters), sampled together every
# INCAST_FAIR_MS (default 100) ms from the run's start to a second past
# its end.
fair_ms=${INCAST_FAIR_MS:-100}
wpids=() run_t0=0
watch_start() {
	local p
	run_t0=$(date +%s%N)
	for p in 0 1 2 3; do
		tb queue-watch "p${p}l1" host interval "$fair_ms" count $(((SECS + 1) * 1000 / fair_ms)) \
			>"$TMP/qsrc$p.txt" 2>"$TMP/qsrc$p.err" &
		wpids+=($!)
	done
}
watch_wait() {
	local p
	for p in "${wpids[@]}"; do wait "$p" || true; done
}

# jain_windows: "P50 P10 N", Jain's index over the N senders' bytes in
# each window of the samples (fair_ms), over the windows from a second after
# the last sender started (its first bytes at the queues, or the run's
# start if later) to a second before the first one ended; its
# median and tenth percentile over those windows ("null null 0": none).
jain_windows() {
	local i p
	for ((i = 2; i <= N + 1; i++)); do
		for p in 0 1 2 3; do echo "$(tb addr "h$i" "$p") $i"; done
	done >"$TMP/qsrc-hosts"
	local late=$(((N - 1) * ${INCAST_JOIN_S:-0}))
	# Sample times in ms from the run's start: mawk keys an array by
	# "%.6g" of a number past 2^31, which merges nanosecond clocks.
	awk -v n="$N" -v t0="$run_t0" -v lo=$(((late + 1) * 1000)) \
		-v hi=$(((SECS - 1) * 1000)) '
	FNR == 1 { f++ }
	f == 1 { host[$1] = $2; next }
	!($2 in host) { next }
	{
		# per queue (file) and host: bytes since its sample before
		k = f SUBSEP host[$2]
		t = int(($1 - t0) / 1e6 + 0.5)
		# when each sender first reached the queues: its real start
		if ((k, "t") in last && $4 > last[k, "b"] && !(host[$2] in first))
			first[host[$2]] = t
		if ((k, "t") in last && t > lo && t <= hi) {
			got[t, host[$2]] += $4 - last[k, "b"]
			if (!(t in seen)) { seen[t] = 1; ts[++nt] = t }
		}
		last[k, "t"] = t; last[k, "b"] = $4
	}
	END {
		m = 0
		# A second after the last sender really started: a sender
		# whose start (mrc-perf connecting through its mrcd) took
		# over a second otherwise put windows of fewer senders in.
		for (h = 2; h <= n + 1; h++)
			if (first[h] + 1000 > lo)
				lo = first[h] + 1000
		for (j = 1; j <= nt; j++) {
			if (ts[j] <= lo)
				continue
			s1 = s2 = 0
			for (h = 2; h <= n + 1; h++) {
				x = got[ts[j], h]; s1 += x; s2 += x * x
			}
			if (s2 > 0) v[++m] = s1 * s1 / (n * s2)
		}
		if (!m) { print "null null 0"; exit }
		for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++)
			if (v[b] < v[a]) { x = v[a]; v[a] = v[b]; v[b] = x }
		printf "%.4f %.4f %d\n", v[int((m + 1) / 2)], v[int(m / 10) + 1], m
	}' "$TMP/qsrc-hosts" "$TMP"/qsrc[0-3].txt
}
# Every sender namespace's TCP retransmissions (/proc/net/snmp).
tcp_retrans() {
	local i n=0
	for ((i = 2; i <= N + 1; i++)); do
		# shellcheck disable=SC2016 # awk's fields, not the shell's
		n=$((n + $(tb exec "h$i" awk '/^Tcp:/ { if (!k) { for (f = 1; f <= NF; f++) if ($f == "RetransSegs") k = f } else print $k }' /proc/net/snmp)))
	done
	echo "$n"
}

# join_reaction RUN: the time from the last sender's start until all N
# flows are within 20 % of an equal share of their sum, RUN 50 ms windows
# in a row; "null" if never. join_reaction 0: Jain's index over what each
# flow carried from the last start on. From each flow's timeline (t_ms
# from its own start, goodput since the sample before) and the clock at
# its start.
join_reaction() {
	local i t0s="" files=() run=$1
	for ((i = 2; i <= N + 1; i++)); do
		if [ ! -s "$TMP/tl/$i.t0" ] || [ ! -s "$TMP/tl/$i.csv" ]; then
			echo null
			return
		fi
		t0s="$t0s $(cat "$TMP/tl/$i.t0")"
		files+=("$TMP/tl/$i.csv")
	done
	awk -v n="$N" -v w_ms=50 -v t0s="$t0s" -v want="$run" '
	BEGIN {
		split(t0s, t0, " ")
		# ms from the first start: a window number from the epoch is
		# past 2^31, which mawk turns into "%.6g" array keys.
		base = t0[1]
		for (k = 2; k <= n; k++) if (t0[k] < base) base = t0[k]
		for (k = 1; k <= n; k++) t0[k] = (t0[k] - base) / 1e6
	}
	FNR == 1 { f++; prev = 0 }
	/^#/ || !/^[0-9]/ { next }
	{
		split($0, c, ","); t = c[1] + 0; g = c[2] + 0
		win = int((t0[f] + t) / w_ms)
		bytes[f, win] += g * 1e9 / 8 * (t - prev) / 1e3
		prev = t
		if (!(win in seen)) { seen[win] = 1; wins[++nw] = win }
	}
	END {
		join = 0
		for (k = 1; k <= n; k++) if (t0[k] > join) join = t0[k]
		# windows in time order (the files come one after the other)
		for (j = 1; j <= nw; j++) for (m = j + 1; m <= nw; m++)
			if (wins[m] < wins[j]) { x = wins[j]; wins[j] = wins[m]; wins[m] = x }
		if (want == 0) {
			for (j = 1; j <= nw; j++)
				if (wins[j] * w_ms >= join)
					for (k = 1; k <= n; k++) tot[k] += bytes[k, wins[j]]
			s1 = s2 = 0
			for (k = 1; k <= n; k++) { s1 += tot[k]; s2 += tot[k] * tot[k] }
			if (s2 > 0) printf "%.4f\n", s1 * s1 / (n * s2); else print "null"
			exit
		}
		run = 0
		for (j = 1; j <= nw; j++) {
			win = wins[j]
			if (win * w_ms < join) continue
			sum = 0
			for (k = 1; k <= n; k++) sum += bytes[k, win]
			ok = sum > 0
			for (k = 1; k <= n && ok; k++) {
				d = bytes[k, win] - sum / n
				if (d < 0) d = -d
				if (d > 0.2 * sum / n) ok = 0
			}
			if (!ok) { run = 0; continue }
			if (!run++) first = win * w_ms
			if (run == want) { printf "%.0f\n", (first > join ? first - join : 0); exit }
		}
		print "null"
	}' "${files[@]}"
}

# One verified mrc-perf bulk transfer per sender, through mrcd.
run_mrc() {
	local NCPU
	NCPU=$(nproc)
	local -a conf=()
	for ((i = 1; i <= N + 1; i++)); do
		[ -z "${INCAST_CONF:-}" ] || mrcd_conf "h$i" "$INCAST_CONF" >"$TMP/h$i.conf"
	done
	[ -z "${INCAST_CONF:-}" ] || conf=(-c "$TMP/h1.conf")
	mrcd_spawn h1 "${conf[@]}"
	for ((i = 2; i <= N + 1; i++)); do
		[ -z "${INCAST_CONF:-}" ] || conf=(-c "$TMP/h$i.conf")
		mrcd_spawn "h$i" -v "${conf[@]}"
	done
	for ((i = 1; i <= N + 1; i++)); do mrcd_ready "h$i"; done
	for ((i = 2; i <= N + 1; i++)); do
		[ -z "${INCAST_PIN:-}" ] ||
			taskset -a -p -c $(((i - 2) % NCPU)) "$(cat "$TMP/h$i.mrcd.pid")" >/dev/null
		if [ "$CC" = nscc ]; then
			"$TOP/build/tools/mrcctl" -s "$TMP/h$i.sock" cc-profile set 1 \
				algorithm uet-1.0-nscc $nscc_opts state offline >/dev/null
			"$TOP/build/tools/mrcctl" -s "$TMP/h$i.sock" cc-profile set 1 \
				state online >/dev/null
		fi
	done
	ccarg=()
	[ "$CC" = nscc ] && ccarg=(--cc-profile 1)

	cpu0=$(awk '/^cpu / { print $2 + $3 + $4 + $6 + $7 + $8 }' /proc/stat)
	spids=()
	for ((i = 2; i <= N + 1; i++)); do
		PIDNAME=srv$i as_nobody h1 "$PERF" server -p $((18515 + i)) --wait 60 \
			>"$TMP/srv$i.out" 2>&1 &
		spids+=($!)
	done
	sleep 0.3
	ping_start
	watch_start
	pids=()
	join=${INCAST_JOIN_S:-0}
	mkdir -p "$TMP/tl" && chmod 0777 "$TMP/tl"
	for ((i = 2; i <= N + 1; i++)); do
		local size=1M secs=$SECS late=0
		local -a tl=()
		if [ "$join" -gt 0 ]; then
			late=$(((i - 2) * join))
			secs=$((SECS - late))
			[ "$secs" -gt 0 ] || fail "INCAST_JOIN_S=$join: sender $i would start after the run"
			size=64K
			tl=(--timeline "$TMP/tl/$i.csv" --at "0:date +%s%N >$TMP/tl/$i.t0")
		fi
		local -a pin=()
		[ -z "${INCAST_PIN:-}" ] || pin=(taskset -c $(((i - 2) % NCPU)))
		(sleep "$late" && PIDNAME=cli$i as_nobody "h$i" "${pin[@]}" "$PERF" client "$(tb addr h1 0)" \
			-p $((18515 + i)) --wait 10 -j --test bw --verify -s "$size" \
			--mtu "${INCAST_PATH_MTU:-4096}" -d "$DEPTH" -D "$secs" "${ccarg[@]}" "${tl[@]}" >"$TMP/flow$i.json" 2>"$TMP/flow$i.err") &
		pids+=($!)
	done
	fpid=""
	if [ -n "${INCAST_FAULT:-}" ]; then
		# shellcheck disable=SC2086 # TARGET is words
		(sleep "$(awk -v m="${INCAST_FAULT%%:*}" 'BEGIN { print m / 1000 }')" &&
			tb fail ${INCAST_FAULT#*:} >/dev/null) &
		fpid=$!
	fi
	# Half way: what the first sender's QP and EVs look like.
	sleep "$((SECS / 2))"
	"$TOP/build/tools/mrcctl" -s "$TMP/h2.sock" -j qp show >"$OUT/incast-qp-mid.json" 2>&1 || true
	"$TOP/build/tools/mrcctl" -s "$TMP/h2.sock" -j ev show >"$OUT/incast-ev-mid.json" 2>&1 || true
	# INCAST_CAPTURE=1: 1 s of the first sender's plane 0, both ways.
	if [ -n "${INCAST_CAPTURE:-}" ]; then
		tb exec h2 "$TOP/build/tools/mrcctl" capture dev \
			"$(tb links | awk '$1 ~ /^h/ && $3 == "h2" && $2 == 0 { print $4 }')" \
			dir both snaplen 96 count 100000 duration 1 -w "$OUT/incast-h2-p0.pcapng" \
			>/dev/null 2>&1 || true
	fi
	# A flow still running 5 s after its end (mrc-perf gives up at 10 s):
	# its sender's QPs and EVs then, for the failure to be read by.
	rm -f "$OUT"/incast-qp-late-h*.json "$OUT"/incast-ev-late-h*.json
	(sleep "$((SECS - SECS / 2 + 5))" &&
		for ((i = 2; i <= N + 1; i++)); do
			kill -0 "${pids[i - 2]}" 2>/dev/null || continue
			"$TOP/build/tools/mrcctl" -s "$TMP/h$i.sock" -j qp show \
				>"$OUT/incast-qp-late-h$i.json" 2>&1
			"$TOP/build/tools/mrcctl" -s "$TMP/h$i.sock" -j ev show \
				>"$OUT/incast-ev-late-h$i.json" 2>&1
		done) &
	local late_pid=$!
	rc=0
	for p in "${pids[@]}"; do wait "$p" || rc=1; done
	kill "$late_pid" 2>/dev/null || true
	wait "$late_pid" 2>/dev/null || true
	for p in "${spids[@]}"; do wait "$p" || true; done
	ping_wait
	watch_wait
	cpu1=$(awk '/^cpu / { print $2 + $3 + $4 + $6 + $7 + $8 }' /proc/stat)
	if [ "$join" -gt 0 ]; then
		reaction=$(join_reaction 3)
		settled=$(join_reaction 10)
		join_jain=$(join_reaction 0)
		# Each flow's timeline and start, for the reaction to be read by.
		rm -rf "$OUT/incast-join-tl" && cp -r "$TMP/tl" "$OUT/incast-join-tl"
	fi
	if [ -n "$fpid" ]; then
		wait "$fpid" || fail "INCAST_FAULT: tb fail ${INCAST_FAULT#*:} failed"
		# shellcheck disable=SC2086
		tb heal ${INCAST_FAULT#*:} >/dev/null
	fi
	[ $rc = 0 ] || fail "a flow failed: $(cat "$TMP"/flow*.err) (late QP state: $(ls "$OUT"/incast-qp-late-h*.json 2>/dev/null | paste -sd' '))"

	# What the senders' path health did: EV state changes to ASSUMED_BAD
	# (their reasons kept in $OUT/incast-blamed.txt).
	blamed=0
	: >"$OUT/incast-blamed.txt"
	for ((i = 2; i <= N + 1; i++)); do
		b=$(grep -c -- '-> ASSUMED_BAD' "$TMP/h$i.mrcd.log" || true)
		blamed=$((blamed + b))
		grep -- '-> ASSUMED_BAD' "$TMP/h$i.mrcd.log" | sed "s/^/h$i /" >>"$OUT/incast-blamed.txt" || true
	done
	# Every host's data path counters, for a reader who asks why.
	for ((i = 1; i <= N + 1; i++)); do
		dp_counters "h$i" | sed "s/^/h$i /"
	done >"$OUT/incast-counters.txt"
	# The senders' data path counters (per-CPU array, summed).
	txstat() {
		bpftool -j map dump pinned "$(mrcd_abi_dir "$1")/maps/mrc_tx_stats" |
			jq --argjson k "$2" '[.[].formatted | select(.key == $k) | .values[].value] | add // 0'
	}
	key_of() { awk -v n="$1" 'BEGIN { i = 0 } /^\tX\(/ { if ($0 ~ "\"" n "\"") { print i; exit } i++ }' \
		<(sed -n '/define MRC_TX_COUNTERS/,/^$/p' "$TOP/include/mrc/abi.h"); }
	k_retx=$(key_of retransmits)
	k_trims=$(key_of cc_trims)
	k_md=$(key_of cc_decreases)
	k_txp=$(key_of tx_packets)
	retx=0 trims=0 mds=0 txp=0
	for ((i = 2; i <= N + 1; i++)); do
		retx=$((retx + $(txstat "h$i" "$k_retx")))
		trims=$((trims + $(txstat "h$i" "$k_trims")))
		mds=$((mds + $(txstat "h$i" "$k_md")))
		txp=$((txp + $(txstat "h$i" "$k_txp")))
	done
	# NSCC's own queueing delay samples (each RTT sample less its QP's
	# base RTT; mrc_cc_delay, 10 us buckets), the senders' summed.
	ccdelay=$(for ((i = 2; i <= N + 1; i++)); do
		bpftool -j map dump pinned "$(mrcd_abi_dir "h$i")/maps/mrc_cc_delay"
	done | jq -c -s '[.[][] | .formatted // . | {k: .key, v: ([.values[].value] | add)}] |
		group_by(.k) | map(map(.v) | add)')
	# The senders' transmit calls (each BPF_PROG_TEST_RUN of live frames
	# costs some 25-90 us of setup, docs/perf.md): mrcd logs them at exit.
	local c
	calls=0
	for ((i = 2; i <= N + 1; i++)); do
		c=$(mrcd_tx_calls "h$i")
		calls=$((calls + ${c:-0}))
	done
}

# The same senders over TCP or MPTCP.
run_tcp() {
	local ns ifc

	# TCP and MPTCP: packets at wire size, ECN on. Routers merge nothing
	# (their XDP gives their veths NAPI); hosts keep GRO, which is what
	# lets their veths take frames a router redirects (testbed), and
	# merges only after the queues.
	for ns in $(ip netns list | awk -v p="$TB_PREFIX-" 'index($1, p) == 1 { print $1 }'); do
		off=(tso off gso off)
		[[ ${ns#"$TB_PREFIX"-} =~ ^h[0-9]+$ ]] || off+=(gro off)
		for ifc in $(ip -n "$ns" -o link show | awk -F': ' '{ split($2, a, "@"); if (a[1] != "lo") print a[1] }'); do
			ip netns exec "$ns" ethtool -K "$ifc" "${off[@]}" >/dev/null 2>&1 || true
		done
		ip netns exec "$ns" sysctl -qw net.ipv4.tcp_ecn=1
	done
	spids=() pids=()
	if [ "$CC" = mptcp ]; then
		for ((i = 1; i <= N + 1; i++)); do
			tb exec "h$i" sysctl -qw net.mptcp.enabled=1
			tb exec "h$i" ip mptcp limits set subflow 8 add_addr_accepted 8
		done
		for p in 1 2 3; do
			tb exec h1 ip mptcp endpoint add "$(tb addr h1 $p)" signal
		done
		for ((i = 2; i <= N + 1; i++)); do
			nsenter --net="/run/netns/$TB_PREFIX-h1" "$TOP/build/tests/mptcp_bulk" server \
				--port $((18600 + i)) --seconds "$SECS" >"$TMP/mptcp$i.json" 2>"$TMP/mptcp$i.err" &
			spids+=($!)
		done
	else
		for ((i = 2; i <= N + 1; i++)); do
			for p in 0 1 2 3; do
				tb exec h1 timeout $((SECS + 30)) iperf3 -s -1 -B "$(tb addr h1 $p)" \
					-p $((5300 + i * 4 + p)) >/dev/null 2>&1 &
				spids+=($!)
			done
		done
		for _ in $(seq 50); do
			[ "$(tb exec h1 ss -Hltn | grep -c ':5[34][0-9][0-9] ')" -ge $((N * 4)) ] && break
			sleep 0.1
		done
	fi
	sleep 0.3
	cpu0=$(awk '/^cpu / { print $2 + $3 + $4 + $6 + $7 + $8 }' /proc/stat)
	retx0=$(tcp_retrans)
	ping_start
	watch_start
	for ((i = 2; i <= N + 1; i++)); do
		if [ "$CC" = mptcp ]; then
			tb exec "h$i" timeout $((SECS + 30)) "$TOP/build/tests/mptcp_bulk" client \
				--dst "$(tb addr h1 0)" --port $((18600 + i)) --seconds "$SECS.5" \
				>/dev/null 2>"$TMP/mptcpc$i.err" &
			pids+=($!)
			continue
		fi
		for p in 0 1 2 3; do
			tb exec "h$i" timeout $((SECS + 30)) iperf3 -c "$(tb addr h1 $p)" \
				-B "$(tb addr "h$i" $p)" -p $((5300 + i * 4 + p)) -t "$SECS" \
				-C "$CC" -J >"$TMP/tcp$i.$p.json" 2>"$TMP/tcp$i.$p.err" &
			pids+=($!)
		done
	done
	rc=0
	for p in "${pids[@]}"; do wait "$p" || rc=1; done
	for p in "${spids[@]}"; do wait "$p" || true; done
	ping_wait
	watch_wait
	cpu1=$(awk '/^cpu / { print $2 + $3 + $4 + $6 + $7 + $8 }' /proc/stat)
	[ $rc = 0 ] || fail "a flow failed: $(cat "$TMP"/tcp*.err "$TMP"/mptcp*.err 2>/dev/null)"
	retx=$(($(tcp_retrans) - retx0))
	# One result per sender, in mrc-perf's shape.
	for ((i = 2; i <= N + 1; i++)); do
		if [ "$CC" = mptcp ]; then
			jq '{ results: [{ gbit_per_s: .gbit_per_s, bad_bytes: null, seconds: '"$SECS"' }] }' \
				"$TMP/mptcp$i.json" >"$TMP/flow$i.json"
		else
			jq -s '{ results: [{ gbit_per_s: (map(.end.sum_received.bits_per_second) | add / 1e9),
				bad_bytes: null, seconds: (map(.end.sum_received.seconds) | max) }] }' \
				"$TMP"/tcp$i.?.json >"$TMP/flow$i.json"
		fi
	done
	blamed=null trims=null mds=null txp=null calls=null ccdelay=null
	: >"$OUT/incast-blamed.txt"
	: >"$OUT/incast-counters.txt"
}

case $CC in
nscc | none) run_mrc ;;
*) run_tcp ;;
esac
# What the veths lost (a full ring, an XDP_TX or redirect refused; not a
# program's XDP_DROP): losses no switch queue made, each in
# incast-counters.txt.
for ns in $(ip netns list | awk -v p="$TB_PREFIX-" 'index($1, p) == 1 { print $1 }'); do
	for ifc in $(ip -n "$ns" -o link show type veth | awk -F': ' '{ split($2, a, "@"); print a[1] }'); do
		ip netns exec "$ns" ethtool -S "$ifc" 2>/dev/null |
			awk -v w="${ns#"$TB_PREFIX"-}/$ifc" '/(_drops|_errors):/ && !/xdp_drops:/ && $2 > 0 { print w, $1, $2 }'
	done
done >"$TMP/veth_lost"
veth_lost=$(awk '{ n += $3 } END { print n + 0 }' "$TMP/veth_lost")
touch "$OUT/incast-counters.txt"
cat "$TMP/veth_lost" >>"$OUT/incast-counters.txt"
# The four receiver-facing queues (each plane's leaf 1, interface host),
# from one status: trims, marks and drops summed, the highest high-water
# mark, the bytes each plane's queue admitted, and the wait p50 / p99 (us)
# of every data packet the four queued, from their histograms (10 us
# buckets, each figure a bucket's upper edge) and their summed histogram.
# pct(HIST; P): the P-quantile of a histogram of 10 us buckets, as the
# upper edge of its bucket (null: empty). One definition, both jq programs.
PCT_JQ='	def pct($h; $p): ($h | add) as $n |
		if $n == 0 then null else
		reduce range($h | length) as $i ({c: 0, r: null};
			if .r == null then .c += $h[$i] |
				(if .c >= $p * $n then .r = ($i + 1) * 10 else . end)
			else . end) | .r end;'
read -r q_trim q_mark q_drop hwm q_bytes qw50 qw99 qwhist < <(tb status -j | jq -r "$PCT_JQ"'
	[range(4) as $p | .nodes[] | select(.node == "p\($p)l1") |
	 [.interfaces[] | select(.ifname == "host")][0] // {}] |
	(map(.queue.wait_hist_10us // []) as $hs | ($hs | map(length) | max) as $l |
	 [range($l) as $i | $hs | map(.[$i] // 0) | add]) as $wait |
	"\(map(.queue_trimmed // 0) | add) \(map(.queue_ecn_marked // 0) | add)" +
	" \(map(.queue_dropped // 0) | add) \(map(.queue.hwm_bytes // 0) | max)" +
	" [\(map(.queue_bytes // 0 | tostring) | join(","))]" +
	" \(pct($wait; 0.5)) \(pct($wait; 0.99)) \($wait | tojson)"')

# Queueing delay samples, us: each echo's round trip less its plane's idle
# one; and the echoes lost (a full queue drops them as it drops data).
: >"$TMP/qdelay"
sent=0 got=0
for p in 0 1 2 3; do
	idle=$(cat "$TMP/idle$p")
	[ -n "$idle" ] || continue
	sed -n 's/.*time=\([0-9.]*\).*/\1/p' "$TMP/ping$p.out" |
		awk -v i="$idle" '{ d = ($1 - i) * 1000; print (d > 0 ? d : 0) }' >>"$TMP/qdelay"
	sent=$((sent + $(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' "$TMP/ping$p.out")))
done
got=$(wc -l <"$TMP/qdelay")
cp "$TMP/qdelay" "$OUT/incast-qdelay-us.txt"
read -r qd50 qd99 < <(sort -n "$TMP/qdelay" | awk '{ v[NR] = $1 } END {
	if (!NR) { print "null null"; exit }
	i50 = int(NR * 0.50); i99 = int(NR * 0.99); if (i50 < 1) i50 = 1; if (i99 < 1) i99 = 1
	printf "%.0f %.0f\n", v[i50], v[i99] }')

read -r jw50 jw10 jwn < <(jain_windows)
cat "$TMP"/qsrc[0-3].txt >"$OUT/incast-qsrc.txt" 2>/dev/null || true

jq -s --argjson n "$N" --arg mode "$MODE" --arg cc "$CC" --arg rate "$RATE" \
	--argjson jw50 "$jw50" --argjson jw10 "$jw10" --argjson jwn "$jwn" --argjson fair_ms "$fair_ms" \
	--argjson qd50 "$qd50" --argjson qd99 "$qd99" --argjson reaction "$reaction" \
	--argjson settled "$settled" --argjson join_jain "$join_jain" \
	--argjson qw50 "$qw50" --argjson qw99 "$qw99" --argjson qwhist "$qwhist" \
	--argjson ccdelay "$ccdelay" \
	--argjson echo_sent "${sent:-0}" --argjson echo_got "$got" \
	--argjson bottleneck "$((4 * rate_bps))" --argjson blamed "$blamed" \
	--argjson retx "$retx" --argjson trims "$trims" --argjson mds "$mds" \
	--argjson txp "$txp" --argjson calls "$calls" \
	--argjson q_trim "$q_trim" --argjson q_mark "$q_mark" \
	--argjson q_drop "$q_drop" --argjson veth_lost "$veth_lost" --argjson hwm "$hwm" --argjson buf "$buf" \
	--argjson q_bytes "$q_bytes" \
	--argjson cpu_ticks "$((cpu1 - cpu0))" --argjson hz "$(getconf CLK_TCK)" "$PCT_JQ"'
	[.[] | .results[0]] as $r | ($r | map(.gbit_per_s)) as $g |
	# What all carried over the run: flows that joined late ran shorter.
	(($r | map(.gbit_per_s * .seconds) | add) / ($r | map(.seconds) | max)) as $sum | {
	senders: $n, mode: $mode, cc: $cc, link_rate: $rate,
	flow_gbit_per_s: $g, sum_gbit_per_s: $sum,
	fraction_of_bottleneck: ($sum * 1e9 / $bottleneck),
	# A join: the flows ran for different times, so over what each
	# carried once all ran (their rates above are each over its own run).
	# Otherwise over the rates of the flows, the sum in the numerator
	# too: not the aggregate above, which is over the longest run (a
	# flow draining its last WRITE runs longer).
	jain_index: (if $join_jain != null then $join_jain else
		(($g | add) as $s | ($s * $s) / ($n * ($g | map(. * .) | add))) end),
	# Short-term: over each fair_ms window, from the bytes each sender
	# queued at the receiver-facing queues (jain_windows).
	jain_window_ms: $fair_ms, jain_windows_p50: $jw50, jain_windows_p10: $jw10,
	jain_windows: $jwn,
	bad_bytes: (if $r[0].bad_bytes == null then null else $r | map(.bad_bytes) | add end),
	queue_delay_us_p50: $qd50, queue_delay_us_p99: $qd99,
	queue_wait_us_p50: $qw50, queue_wait_us_p99: $qw99, queue_wait_hist_10us: $qwhist,
	# NSCC RTT samples less the base RTT: the queues and the host time
	# in both directions (the upper edge of a bucket, as above).
	cc_delay_us_p50: (if $ccdelay == null then null else pct($ccdelay; 0.5) end),
	cc_delay_us_p99: (if $ccdelay == null then null else pct($ccdelay; 0.99) end),
	cc_delay_samples: (if $ccdelay == null then null else $ccdelay | add end),
	cc_delay_hist_10us: $ccdelay,
	echoes_lost: ($echo_sent - $echo_got), join_reaction_ms: $reaction,
	join_settled_ms: $settled, join_jain_index: $join_jain,
	evs_blamed: $blamed, retransmits: $retx, cc_trims: $trims,
	cc_decreases: $mds, tx_packets: $txp, tx_calls: $calls,
	packets_per_call: (if $calls == null or $calls == 0 then null else ($txp / $calls * 10 | floor) / 10 end),
	queue_trimmed: $q_trim, queue_ecn_marked: $q_mark,
	queue_dropped: $q_drop, veth_lost: $veth_lost, queue_hwm_bytes: $hwm, queue_buffer_bytes: $buf,
	queue_bytes_per_plane: $q_bytes,
	cpu_s: ($cpu_ticks / $hz), seconds: ($r | map(.seconds) | max) }' \
	"$TMP"/flow*.json >"$OUT/$NAME.json"
jq -r '"incast \(.senders)->1, \(.mode), cc \(.cc), 4 x \(.link_rate): \(.sum_gbit_per_s * 1000 | floor) Mbit/s = \(.fraction_of_bottleneck * 100 | floor) % of the bottleneck, Jain \(.jain_index * 1000 | floor / 1000) (over \(.jain_window_ms) ms windows: p50 \(.jain_windows_p50), p10 \(.jain_windows_p10) of \(.jain_windows)), flows \(.flow_gbit_per_s | map(. * 1000 | floor) | join(" ")) Mbit/s",
	"  EVs blamed \(.evs_blamed), retransmits \(.retransmits), trims taken \(.cc_trims), window decreases \(.cc_decreases), \(.packets_per_call) packets a transmit call; queues: trimmed \(.queue_trimmed), marked \(.queue_ecn_marked), dropped \(.queue_dropped), high water \(.queue_hwm_bytes) of \(.queue_buffer_bytes) B; veths lost \(.veth_lost); CPU \(.cpu_s) s over \(.seconds) s",
	"  queueing delay p50 / p99: \(.queue_delay_us_p50) / \(.queue_delay_us_p99) us by echoes (lost \(.echoes_lost)), \(.queue_wait_us_p50) / \(.queue_wait_us_p99) us at the queues" +
	(if (.cc_delay_samples // 0) > 0 then ", \(.cc_delay_us_p50) / \(.cc_delay_us_p99) us by NSCC (\(.cc_delay_samples) RTT samples)" else "" end),
	(if .join_reaction_ms != null then "  a flow joining: all within 20 % of an equal share after \(.join_reaction_ms) ms (for half a second after \(.join_settled_ms) ms); Jain from then on \(.join_jain_index)" else empty end)' \
	"$OUT/$NAME.json"
