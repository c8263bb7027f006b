#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# libmrc and mrcd as an unprivileged application sees them: the soft verbs
# device, the QP state machine and its errors, memory registration over the
# application's pages, isolation between two connections, and the device's
# QP limit (tests/tools/mrc_api_check.c). mrcd runs as root in h1 and
# pins the device; a second mrcd on the same pin directory refuses to start
# and leaves the first one whole; a clean stop removes the pins.
. "$(dirname "$0")/lib.sh"
require_root

tb up --hosts 2 --planes 4 --spines 2 >/dev/null
chmod 0755 "$TMP"
mrcd_start h1
log "mrcd up in h1: $(head -1 "$TMP/h1.mrcd.log")"

pins=$(mrcd_abi_dir h1)
for m in mrc_qp mrc_qp_tx mrc_sq mrc_mr mrc_cq mrc_ev_stats mrc_drop; do
	bpftool -j map show pinned "$pins/maps/$m" | jq -e --arg m "$m" '.name == $m' >/dev/null ||
		fail "map $m not pinned under $pins/maps"
done
for p in mrc_xdp_rx mrc_xdp_tx mrc_xdp_ctl mrc_tc_tx; do
	bpftool -j prog show pinned "$pins/progs/$p" | jq -e --arg p "$p" '.name == $p' >/dev/null ||
		fail "program $p not pinned under $pins/progs"
done
xdp_before=$(tb exec h1 ip -j link show p0 | jq '.[0].xdp.prog.id')
# shellcheck disable=SC2046
if nsenter --net="/run/netns/$TB_PREFIX-h1" "$TOP/build/daemon/mrcd" $(mrcd_ports h1) \
	-a anc0 -s "$TMP/second.sock" -P "$(mrcd_pin_dir h1)" 2>"$TMP/second.err"; then
	fail "a second mrcd started on the same pin directory"
fi
grep -q "another mrcd runs the device pinned in $pins" "$TMP/second.err" || fail "second mrcd: $(cat "$TMP/second.err")"
[ "$(tb exec h1 ip -j link show p0 | jq '.[0].xdp.prog.id')" = "$xdp_before" ] ||
	fail "the second mrcd changed the first one's XDP program"
tb exec h1 tc filter show dev lo egress | grep -q "mrc_tc_tx" ||
	fail "the second mrcd removed the first one's doorbell program"
log "device pinned under $pins (14 maps, 4 programs); a second mrcd refused it"
as_nobody h1 "$TOP/build/tests/mrc_api_check" >"$TMP/check.out" 2>&1 ||
	fail "mrc_api_check: $(cat "$TMP/check.out")"
grep -E "PASSED|FAILED" "$TMP/check.out" | sed "s/^/  $SUITE: /"
# mrcd survived it all and answers again.
as_nobody h1 "$TOP/build/tests/mrc_api_check" >"$TMP/check2.out" 2>&1 ||
	fail "second run: $(cat "$TMP/check2.out")"

kill "$(cat "$TMP/h1.mrcd.pid")"
for _ in $(seq 50); do [ -e "$pins" ] || break; sleep 0.1; done
[ ! -e "$pins" ] || fail "pins left after a clean stop: $(ls -R "$pins")"
log "clean stop: pins removed"
