#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The whole stack as applications use it: mrcd in both hosts, mrc-perf
# (built on libmrc, the OCP MRC API) as an unprivileged user, over the
# 4-plane fabric with spines. Every byte is verified at the receiver.
#   - WRITE sizes 1 B .. 8 MiB, clean, with 2 % drop on every plane, with
#     1 % duplication, with a plane blackholed from the start;
#   - 64-byte WRITE_IMMs: each completes exactly once at the receiver;
#   - all 1022 QPs of the device at once;
#   - 8-byte ping-pong (the low-latency doorbell path) completes.
# (The peer-gone timing is tested in tests/bpf/test_loopback.c.)
. "$(dirname "$0")/lib.sh"
require_root

tb up --hosts 2 --planes 4 --spines 4 >/dev/null
require_xdp_fabric
chmod 0755 "$TMP"
mrcd_start h1
mrcd_start h2

sweep() { perf "$1" --test bw --verify --sweep 1-8M -D 0.25 --idle-us 50; perf_clean "$1"; }

sweep clean
log "clean: 24 sizes 1 B..8 MiB verified; 1 MiB at $(jq '.results[-4].gbit_per_s' "$TMP/clean.json") Gbit/s"

# Every leaf-spine link from h1's side, as 060 does.
links_all() {
	local p s
	for p in 0 1 2 3; do
		for s in 0 1 2 3; do tb fault "p${p}l1" "s$s" "$@" >/dev/null; done
	done
}

links_all drop 2%
sweep drop
links_all clear
log "2% drop on every plane: verified"

links_all dup 1%
sweep dup
links_all clear
log "1% duplication on every plane: verified"

tb fail plane 2 >/dev/null
sweep blackhole
tb heal plane 2 >/dev/null
log "plane 2 blackholed: verified"

perf rate --test rate --verify -n 200000 -q 4
jq -e '.results[0].count_ok == true and .results[0].bad_bytes == 0' "$TMP/rate.json" >/dev/null ||
	fail "rate: $(cat "$TMP/rate.json")"
log "200000 WRITE_IMMs, each completed once at the receiver ($(jq '.results[0].server_msg_per_s | floor' "$TMP/rate.json") msg/s)"

perf qps --test bw --verify -q 1022 -s 4K -n 4088 -D 20
perf_clean qps
log "1022 QPs at once: verified, $(jq .mem_per_qp_bytes "$TMP/qps.json") bytes per QP (client RSS)"

perf lat --test lat -n 2000
log "ping-pong: RTT p50 $(jq '.results[0].rtt_us_p50' "$TMP/lat.json") us"
