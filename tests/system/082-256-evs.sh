#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 256 EVs per QP over 8 planes, as MRC deployments spray: mrcd in both
# hosts with 32 EVs on each of 8 ports (auto-evs-per-port 32), mrc-perf
# (libmrc, the OCP MRC API) moving verified WRITEs over 2 spines a plane.
# While it runs, mrcctl ev show finds its QP with 256 EVs, 32 on each
# port, all GOOD and in use, every one of them having carried packets;
# every byte arrives, with no error completion.
. "$(dirname "$0")/lib.sh"
require_root

tb up --hosts 2 --planes 8 --spines 2 --mtu 3000 >/dev/null
require_xdp_fabric
chmod 0755 "$TMP"
for h in h1 h2; do
	mrcd_conf $h "auto-evs-per-port 32" >"$TMP/$h.conf"
	mrcd_start $h -c "$TMP/$h.conf"
done

perf_start evs --test bw --verify -s 1M -D 4
# Polled until the QP shows what the header says; the run (4 s) outlasts
# the wait for it.
seen=""
for _ in $(seq 300); do
	"$TOP/build/tools/mrcctl" -s "$TMP/h1.sock" -j ev show >"$TMP/ev.json" 2>/dev/null || true
	if jq -e 'group_by(.qpn) | map(select(length == 256)) | length == 1 and
		(.[0] | all(.state == "GOOD" and .in_use and .sent_pkts > 0) and
		 (group_by(.port) | map(length) == [32, 32, 32, 32, 32, 32, 32, 32]))' \
		"$TMP/ev.json" >/dev/null 2>&1; then
		seen=$(jq -r 'group_by(.qpn) | map(select(length == 256))[0] |
			"\(map(.sent_pkts) | min)..\(map(.sent_pkts) | max) packets an EV"' "$TMP/ev.json")
		break
	fi
	kill -0 "$PERF_CPID" 2>/dev/null || break
	sleep 0.1
done
perf_wait evs
perf_clean evs
[ -n "$seen" ] || fail "no QP with 256 EVs, 32 on each of 8 ports, all GOOD and each carrying packets; last seen: $(jq -c 'group_by(.qpn) | map({qpn: .[0].qpn, evs: length, ports: (group_by(.port) | map(length)), bad: map(select(.state != "GOOD")) | length, idle: map(select(.sent_pkts == 0)) | length})' "$TMP/ev.json")"
log "1 QP, 256 EVs over 8 planes (32 each), all GOOD: $seen; 1 MiB WRITEs at $(jq '.results[0].gbit_per_s' "$TMP/evs.json") Gbit/s, verified"
