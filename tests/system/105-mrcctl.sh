#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mrcctl against a running mrcd (h1 of a 2-host, 4-plane testbed), every
# command with -j: its output must pass `jq -e` and say what the command
# did. Profiles are made and taken apart with it, an EV is denied and
# allowed, a port disabled and enabled while monitor watches, probes are
# timed, and QPs and EVs are listed under a transfer. Then the text
# output of the lists, and that an unprivileged caller gets EPERM.
. "$(dirname "$0")/lib.sh"
require_root

tb up --hosts 2 --planes 4 --spines 2 >/dev/null
chmod 0755 "$TMP"
mrcd_spawn h1
mrcd_spawn h2
mrcd_ready h1 h2
CTL=$TOP/build/tools/mrcctl
n=0

# j NAME JQ MRCCTL-ARGS...: mrcctl -j ARGS; its JSON must satisfy JQ.
j() {
	local name=$1 filter=$2
	shift 2
	"$CTL" -s "$TMP/h1.sock" -j "$@" >"$TMP/$name.json" 2>"$TMP/$name.err" ||
		fail "mrcctl $*: exit $?: $(cat "$TMP/$name.json" "$TMP/$name.err")"
	jq -e "$filter" "$TMP/$name.json" >/dev/null ||
		fail "mrcctl $*: $filter is not true of: $(cat "$TMP/$name.json")"
	n=$((n + 1))
}

j dev '.ev_max_profiles == 64 and (.cc_algorithms | index("uet-1.0-nscc")) != null and .ports == [1, 2, 3, 4]' dev show
j ports 'length == 4 and all(.[]; .carrier and .admin == "enabled" and .mtu_bytes > 0)' port show
j port1 '(if type == "array" then .[0] else . end) | .port == 1' port show 1
j port_off 'true' port set 3 admin disable
j port_off_show '(if type == "array" then .[0] else . end) | .admin == "disabled"' port show 3
j port_on 'true' port set 3 admin enable

# A UDP format with one 16-bit field; an explicit profile of 4 EVs; a
# generated one of 8.
j fmt_set 'true' ev-fmt set 1 mode udp fields 16 state offline
j fmt_online 'true' ev-fmt set 1 state online
j fmts 'any(.[]; .id == 1 and .state == "online" and .mode == "udp")' ev-fmt show
j fmt1 '(if type == "array" then .[0] else . end) | .id == 1' ev-fmt show 1
j evp_set 'true' ev-profile set 1 mode exp fmt 1 count 4 min-active 1 events good,bad \
	field width 16 max 0xffff mask 0xffff state offline
for p in 1 2 3 4; do j "evp_add$p" 'true' ev-profile add 1 ev $((50000 + p)) port $p; done
j evp_online 'true' ev-profile set 1 state online
j evp_replace 'true' ev-profile replace 1 ev 50004 port 4 with 50044 port 4
j evp_evs 'length == 4 and any(.[]; .ev == 50044 or .ev == "0xc3dc")' ev-profile evs 1
j evp_gen 'true' ev-profile set 2 mode gen fmt 1 count 8 min-active 1 events good,bad \
	field width 16 init 0xb000 max 7 mask 7 state offline
j evp_gen_on 'true' ev-profile set 2 state online
j evps 'any(.[]; .id == 1) and any(.[]; .id == 2)' ev-profile show
j evp2 '(if type == "array" then .[0] else . end) | .id == 2' ev-profile show 2
j expand 'length == 2' ev expand profile 2 3 7
j deny 'true' ev deny profile 1 ev 50002 port 2
j evs_denied 'any(.[]; .state == "DENIED" and .ev == 50002)' ev-profile evs 1
j allow 'true' ev allow profile 1 ev 50002 port 2

j cc_set 'true' cc-profile set 1 algorithm uet-1.0-nscc base-rtt 12000 state offline
j cc_online 'true' cc-profile set 1 state online
j ccs 'any(.[]; .id == 1)' cc-profile show
j cc1 '(if type == "array" then .[0] else . end) | .id == 1' cc-profile show 1
# Sized by its BDP (UET's rules at 4096-byte packets); fi given wins.
j cc_bdp 'true' cc-profile set 3 algorithm uet-1.0-nscc bdp 25000 "fi" 3000 state offline
j cc3 '(if type == "array" then .[0] else . end) | .max_cwnd_bytes == 37500 and
	(.eta - 102.4 | fabs) < 0.01 and .fi == 3000 and (.fi_scale - 0.04167 | fabs) < 0.0001' cc-profile show 3
# The device's own NSCC profile, ready for use.
j cc15 '(if type == "array" then .[0] else . end) | .id == 15 and .state == "online" and .algorithm == "uet-1.0-nscc"' cc-profile show 15

j probe 'length == 4 and all(.[]; .rtt_us > 0)' probe dgid "$(tb addr h2 0)" \
	ev 50001 port 1 ev 50002 port 2 ev 50003 port 3 ev 50044 port 4

# Under a transfer naming profile 1: QPs and EVs listed, a port flapped
# while monitor prints the changes.
as_nobody h2 "$PERF" server --wait 60 >"$TMP/srv" 2>&1 &
srv=$!
as_nobody h1 "$PERF" client "$(tb addr h2 0)" --wait 10 -j --test bw --verify -s 1M -D 4 \
	--ev-profile 1 --cc-profile 1 >"$TMP/xfer.json" 2>"$TMP/xfer.err" &
cl=$!
"$CTL" -s "$TMP/h1.sock" -j monitor count 2 timeout 8 >"$TMP/monitor.json" 2>&1 &
mon=$!
sleep 1.5
j qps 'any(.[]; .ev_profile_id == 1 and .cc_profile_id == 1 and .state == "RTS")' qp show
qpn=$(jq '[.[] | select(.ev_profile_id == 1)][0].qpn' "$TMP/qps.json")
# Mid-transfer on an NSCC profile: a window and round trips.
j qp1 "(if type == \"array\" then .[0] else . end) | .qpn == $qpn and .cwnd_bytes > 0 and .srtt_us > 0 and .rtt_min_us > 0" qp show "$qpn"
# Shares are of the last health look: none yet, or all of it.
j evs "length == 4 and all(.[]; .qpn == $qpn and .profile_id == 1 and .sent_pkts > 0) and
	([.[].share_pct] | add) as \$s | \$s == 0 or (\$s >= 99 and \$s <= 100.05)" ev show qp "$qpn"
j evs_p2 'length == 1 and .[0].port == 2' ev show profile 1 port 2
j port_down 'true' port set 4 admin disable
sleep 0.3
j evs_bad 'length == 1 and .[0].port == 4' ev show qp "$qpn" state assumed-bad
j port_up 'true' port set 4 admin enable
wait $mon || fail "monitor: $(cat "$TMP/monitor.json")"
jq -se 'length == 2 and all(.[]; .qpn != null and .new_state != null)' "$TMP/monitor.json" >/dev/null ||
	jq -se 'length == 2' "$TMP/monitor.json" >/dev/null ||
	fail "monitor: not 2 JSON lines: $(cat "$TMP/monitor.json")"
n=$((n + 1))
wait $cl || fail "transfer: $(cat "$TMP/xfer.err")"
wait $srv || true
jq -e '.ok and .results[0].bad_bytes == 0' "$TMP/xfer.json" >/dev/null || fail "transfer: $(cat "$TMP/xfer.json")"

# Taken apart again: a profile in use is busy, afterwards it goes.
j evp_off 'true' ev-profile set 2 state offline
j evp_init 'true' ev-profile set 2 state init
j fmt_busy_check 'true' ev-fmt show 1
"$CTL" -s "$TMP/h1.sock" -j ev-fmt set 1 state offline >"$TMP/busy.json" 2>&1 &&
	fail "format 1 went offline under an online EV profile"
jq -e '.error | test("busy|EBUSY"; "i")' "$TMP/busy.json" >/dev/null || fail "not EBUSY: $(cat "$TMP/busy.json")"
n=$((n + 1))

# The text forms: aligned columns with units in the headers.
"$CTL" -s "$TMP/h1.sock" port show | head -1 | grep -q "MTU(B)" || fail "port show: no unit in the header"
"$CTL" -s "$TMP/h1.sock" ev-profile evs 1 >/dev/null || fail "ev-profile evs: text"

# Without CAP_NET_ADMIN: EPERM, named.
as_nobody h1 "$CTL" -j dev show >"$TMP/eperm.json" 2>&1 && fail "mrcctl as nobody succeeded"
jq -e '.error | test("permi|EPERM"; "i")' "$TMP/eperm.json" >/dev/null || fail "as nobody: $(cat "$TMP/eperm.json")"
log "$n mrcctl commands checked with jq -e (profiles made and taken apart, deny/allow, port admin, probes, monitor, QP and EV lists under a transfer); as nobody: EPERM"
