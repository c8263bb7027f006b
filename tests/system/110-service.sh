#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mrcd as a service (deploy/mrcd.service), with this test standing in for
# systemd, which is not PID 1 here: mrcd runs from a configuration file
# with exactly the unit's capabilities (setpriv), tells a notify socket
# READY=1 once it serves, RELOADING=1 then READY=1 around a SIGHUP that
# changes a run-time key, keeps its configuration on a bad reload and on a
# change that needs a restart, and STOPPING=1 on SIGTERM, leaving nothing
# attached or pinned. Bad configuration files are refused with FILE:LINE
# and the reason, before anything is loaded.
. "$(dirname "$0")/lib.sh"
require_root

MRCD=$TOP/build/daemon/mrcd
LISTEN=$TOP/build/tests/notify_listen

# Bad files first: no testbed needed, nothing may be loaded.
bad() { # NAME EXPECTED-MESSAGE-REGEX, file on stdin
	local f=$TMP/$1.conf rc=0
	cat >"$f"
	"$MRCD" -c "$f" >"$TMP/$1.out" 2>&1 || rc=$?
	[ $rc != 0 ] || fail "$1: mrcd accepted it"
	grep -Eq "$2" "$TMP/$1.out" || fail "$1: message: $(cat "$TMP/$1.out")"
}
bad unknown_key "bad_conf_unknown_key|unknown_key.conf:2: unknown key 'probe-answer'" <<'EOF'
port p0 mac 02:00:00:00:00:01
probe-answer 3
anchor anc0
EOF
bad bad_value "bad_value.conf:3: .*'12x' is not a number" <<'EOF'
port p0 mac 02:00:00:00:00:01
anchor anc0
probe-answers 12x
EOF
bad dup_port "dup_port.conf:3: port p0 already given on line 1" <<'EOF'
port p0 mac 02:00:00:00:00:01
anchor anc0
port p0 mac 02:00:00:00:00:02
EOF
rc=0
"$MRCD" -c "$TMP/none.conf" >"$TMP/missing.out" 2>&1 || rc=$?
[ $rc = 2 ] && grep -q "none.conf: No such file" "$TMP/missing.out" ||
	fail "missing file: exit $rc: $(cat "$TMP/missing.out")"
log "bad configuration refused with FILE:LINE and the reason: unknown key, bad value, duplicate port, missing file"

tb up --hosts 2 --planes 2 --spines 1 >/dev/null
add_anchor h1
conf=$TMP/mrcd.conf
{
	tb links | awk '$3 == "h1" { printf "port %s mac %s plane 198.18.%d.0/20\n", $4, $10, 16 * $2 }
		$8 == "h1" { printf "port %s mac %s plane 198.18.%d.0/20\n", $9, $5, 16 * $2 }'
	echo "anchor anc0"
	echo "socket $TMP/h1.sock"
	echo "pin-dir $(mrcd_pin_dir h1)"
	echo "probe-answers 3"
} >"$conf"

"$LISTEN" "$TMP/notify" 30 >"$TMP/notify.log" &
listen=$!
for _ in $(seq 50); do grep -q listening "$TMP/notify.log" && break; sleep 0.05; done
# The unit's capability set, and nothing else.
caps=+bpf,+perfmon,+net_admin,+net_raw
# shellcheck disable=SC2016
nsenter --net="/run/netns/$TB_PREFIX-h1" env NOTIFY_SOCKET="$TMP/notify" \
	setpriv --inh-caps=-all,$caps --ambient-caps=-all,$caps --bounding-set=-all,$caps \
	sh -c 'echo $$ >"$0"; exec "$@"' "$TMP/mrcd.pid" "$MRCD" -c "$conf" \
	>"$TMP/mrcd.log" 2>&1 &
for _ in $(seq 100); do grep -q READY=1 "$TMP/notify.log" && break; sleep 0.05; done
grep -q "^READY=1" "$TMP/notify.log" || fail "no READY=1: $(cat "$TMP/notify.log" "$TMP/mrcd.log")"
[ -S "$TMP/h1.sock" ] || fail "READY=1 before the socket listens"
[ -d "$(mrcd_abi_dir h1)/maps" ] || fail "READY=1 before the maps are pinned"
pid=$(cat "$TMP/mrcd.pid")
eff=$(awk '/^CapEff/ { print $2 }' /proc/"$pid"/status)
# Bits 12 NET_ADMIN, 13 NET_RAW, 38 PERFMON, 39 BPF, and no other.
[ "$eff" = 000000c000003000 ] || fail "mrcd runs with CapEff $eff"
log "READY=1 with the socket listening and the maps pinned; mrcd's CapEff $eff (BPF, PERFMON, NET_ADMIN, NET_RAW)"

# Idle (no QP, nothing probed or awaited), mrcd sleeps: its scan timer
# stops, so its threads switch in only for what happens (nothing, here).
# It woke 1,000 times a second for nothing when the timer always ran.
switches() {
	cat /proc/"$pid"/task/*/status 2>/dev/null |
		awk '/ctxt_switches/ { n += $2 } END { print n + 0 }'
}
s0=$(switches) t0=$(date +%s%N)
sleep 1
s1=$(switches) t1=$(date +%s%N)
idle_hz=$(((s1 - s0) * 1000000000 / (t1 - t0)))
[ "$idle_hz" -le 20 ] || fail "an idle mrcd switched in $((s1 - s0)) times in $(((t1 - t0) / 1000000)) ms"
log "idle: mrcd switched in $((s1 - s0)) times in $(((t1 - t0) / 1000000)) ms"

# A run-time change: RELOADING=1, then READY=1, and it is in force.
sed -i 's/^probe-answers 3/probe-answers 5/' "$conf"
kill -HUP "$pid"
for _ in $(seq 100); do [ "$(grep -c READY=1 "$TMP/notify.log")" -ge 2 ] && break; sleep 0.05; done
awk '/RELOADING=1/ { r = NR } /READY=1/ && r { ok = 1 } END { exit !ok }' "$TMP/notify.log" ||
	fail "no RELOADING=1 then READY=1: $(cat "$TMP/notify.log")"
grep -q "MONOTONIC_USEC=" "$TMP/notify.log" || fail "RELOADING=1 without MONOTONIC_USEC"
grep -q "reloaded $conf: probe-answers 5" "$TMP/mrcd.log" || fail "reload not applied: $(cat "$TMP/mrcd.log")"
# A bad file and a restart-only change: refused, the old one kept.
echo "probe-answers 0" >>"$conf"
kill -HUP "$pid"
for _ in $(seq 100); do grep -q "reload refused" "$TMP/mrcd.log" && break; sleep 0.05; done
grep -q "reload refused, configuration kept: .*mrcd.conf:[0-9]*: " "$TMP/mrcd.log" ||
	fail "bad reload: $(cat "$TMP/mrcd.log")"
sed -i '$d' "$conf"
sed -i "s|^socket .*|socket $TMP/other.sock|" "$conf"
kill -HUP "$pid"
for _ in $(seq 100); do grep -q "cannot change at run time" "$TMP/mrcd.log" && break; sleep 0.05; done
grep -q "'socket' cannot change at run time" "$TMP/mrcd.log" || fail "socket change: $(cat "$TMP/mrcd.log")"
kill -0 "$pid" || fail "mrcd died on a bad reload"
[ -S "$TMP/h1.sock" ] || fail "a refused reload moved the socket"
log "SIGHUP: RELOADING=1 then READY=1, probe-answers 3 -> 5 in force; a bad file and a socket change refused, configuration kept"

# A second mrcd on the same socket: refused, the first untouched.
rc=0
nsenter --net="/run/netns/$TB_PREFIX-h1" "$MRCD" -c "$conf" -s "$TMP/h1.sock" >"$TMP/second.log" 2>&1 || rc=$?
[ $rc != 0 ] && grep -q "another mrcd, pid $pid" "$TMP/second.log" ||
	fail "second mrcd: exit $rc: $(cat "$TMP/second.log")"

# Stop: STOPPING=1, exit 0, nothing attached, pinned or listening.
kill -TERM "$pid"
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
kill -0 "$pid" 2>/dev/null && fail "mrcd still running after SIGTERM"
wait "$listen" || true
grep -q "^STOPPING=1" "$TMP/notify.log" || fail "no STOPPING=1: $(cat "$TMP/notify.log")"
for ifc in $(tb links | awk '$3 == "h1" { print $4 } $8 == "h1" { print $9 }') anc0; do
	tb exec h1 ip -d link show "$ifc" | grep -q "prog/xdp" && fail "$ifc: XDP still attached"
done
[ -e "$(mrcd_abi_dir h1)" ] && fail "pins left behind"
[ -e "$TMP/h1.sock" ] && fail "socket left behind"
log "SIGTERM: STOPPING=1, exit, no XDP program on any port or the anchor, no pins, no socket; a second mrcd on the socket was refused"
