#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Path health under a bulk transfer through mrcd and libmrc, every byte
# verified (docs/health.md):
#   - a spine of plane 1 blackholed mid-transfer: exactly the EVs the
#     fabric hashes onto that spine go ASSUMED_BAD (the fabric's own
#     per-spine counters say which), nothing else; no error completion;
#   - healed: those EVs come back to GOOD through probes.
. "$(dirname "$0")/lib.sh"
require_root

tb up --hosts 2 --planes 4 --spines 4 --mtu 3000 >/dev/null
require_xdp_fabric
chmod 0755 "$TMP"

PLANE=1 SPINE=2
# The first QP mrcd makes is number 2; its EVs are UDP source ports
# 49152 + 2 * 64 + i, EV i on port i % 4 (daemon/serve.c).
EV_BASE=$((49152 + 2 * 64))

# Which spine does each of plane 1's EVs take from h1? Send each alone
# (to the MRC port: the port is part of the hash) and read the spines'
# counters, before mrcd owns the ports.
declare -A spine_of=()
for ((s = 0; s < 4; s++)); do prev[s]=$(spine_rx $PLANE $s 1); done
for ((i = PLANE; i < 64; i += 4)); do
	send h1 h2 $PLANE --port 4791 --sport-base $((EV_BASE + i)) --flows 1 --packets 20 >/dev/null
	for ((s = 0; s < 4; s++)); do
		now=$(spine_rx $PLANE $s 1)
		[ $((now - prev[s])) -ge 20 ] && spine_of[$i]=$s
		prev[s]=$now
	done
	[ -n "${spine_of[$i]:-}" ] || fail "EV $i seen on no spine"
done
want=""
for ((i = PLANE; i < 64; i += 4)); do
	[ "${spine_of[$i]}" = $SPINE ] && want="$want $i"
done
want=${want# }
[ -n "$want" ] || fail "no EV of plane $PLANE hashes to spine $SPINE: cannot test"
log "EVs hashed to p${PLANE}s${SPINE} by the fabric: $want"

mrcd_start h1 -v
mrcd_start h2

# A verified bulk transfer; the spine fails at 2 s and heals at 4.5 s.
PIDNAME=srv as_nobody h2 "$PERF" server --wait 60 >"$TMP/srv.out" 2>&1 &
srv=$!
(
	sleep 2
	tb fail spine $PLANE $SPINE >/dev/null
	date +%s%N >"$TMP/t_fail"
	sleep 2.5
	tb heal spine $PLANE $SPINE >/dev/null
	date +%s%N >"$TMP/t_heal"
) &
fault=$!
as_nobody h1 "$PERF" client "$(tb addr h2 0)" --wait 10 -j --test bw --verify -s 1M -D 7 \
	>"$TMP/bw.json" 2>"$TMP/bw.err" || fail "mrc-perf: $(cat "$TMP/bw.err" "$TMP/srv.out")"
wait $fault $srv || true
jq -e '.ok and .results[0].bad_bytes == 0 and .results[0].send_errors == 0 and
	.client_send_errors == 0' "$TMP/bw.json" >/dev/null || fail "transfer: $(cat "$TMP/bw.json")"
bpftool -j map dump pinned "$(mrcd_pin_dir h1)/abi1/maps/mrc_tx_stats" > /tmp/w/txstats.json
dropped=$(fab_counter "p${PLANE}s${SPINE}" drop_blackhole)
[ "$dropped" -gt 0 ] || fail "the spine dropped nothing: the failure missed the transfer"
log "1 MiB WRITEs for 7 s verified at $(jq .results[0].gbit_per_s "$TMP/bw.json") Gbit/s; the spine blackholed $dropped packets"

# mrcd -v logs: "QP 2 EV 9 (port 1, 49289): GOOD -> ASSUMED_BAD (...)"
sleep 1 # probes after the heal
bad=$(awk '/-> ASSUMED_BAD/ { sub(/^.*EV /, ""); print $1 }' "$TMP/h1.mrcd.log" | sort -n -u | tr '\n' ' ')
bad=${bad% }
[ "$bad" = "$want" ] || { kill "$(cat "$TMP/h1.mrcd.pid")"; sleep 0.5; cp "$TMP/h1.mrcd.log" /tmp/w/h1.log; fail "ASSUMED_BAD: [$bad], the fabric says [$want]"; }
log "ASSUMED_BAD exactly those: $bad"
good=$(awk '/ASSUMED_BAD -> GOOD \(probes answered\)/ { sub(/^.*EV /, ""); print $1 }' "$TMP/h1.mrcd.log" |
	sort -n -u | tr '\n' ' ')
good=${good% }
[ "$good" = "$want" ] || fail "back to GOOD by probes: [$good], expected [$want]"
log "healed: all back to GOOD by probing"
