#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RDMA WRITE and WRITE_IMM over the real data path, sprayed over 4 planes x
# 8 EVs, byte-exact: 1 GiB of writes from 1 byte to 8 MiB at random offsets
# of a 64 MiB region (every fourth with immediate), on a clean fabric, with
# 2 % random drop on every leaf-spine link, with 1 % duplication, and with
# plane 1 blackholed from the start; and 100,000 64-byte WRITE_IMMs, each
# completing exactly once at the receiver. The server checks every byte of its
# region against the source pattern and the client's list of writes.
#
#   h1 =p0..p3= [pPl1] =s0..s3= [pPsS] = [pPl2] =p0..p3= h2
#   mrc_xfer client (XDP tx+rx)        mrc_xfer server (XDP rx places)
# shellcheck source=tests/system/lib.sh
. "$(dirname "$0")/lib.sh"
require_root

REGION=$((64 << 20))
TOTAL=${MRC_TEST_TOTAL:-$((1 << 30))}
tb up --planes 4 --spines 4 >/dev/null
require_xdp_fabric
add_anchor h1

links_all() {
	local p s
	for p in 0 1 2 3; do
		for s in 0 1 2 3; do tb fault "p${p}l1" "s$s" "$@"; done
	done
}
summary() {
	log "$1: $(jq -r '"\(.bytes) bytes in \(.writes) writes, \(.goodput_gbit_s) Gbit/s, \(.retransmits) retransmits"' "$TMP/$1.client"); server: $(jq -r '"\(.bytes_written) bytes checked, \(.recv_completions) immediates"' "$TMP/$1.server")"
}

xfer clean --total "$TOTAL" --max $((8 << 20)) --seed 1
summary clean
[ "$(jq .retransmits "$TMP/clean.client")" -eq 0 ] || log "note: retransmits on a clean fabric"
# Every plane carried a fair part and the EVs reached several spines each:
# the QP sprays over all ports and EVs (16 per port; which spine an EV
# takes is the fabric's hash).
for p in 0 1 2 3; do
	plane=0 used=0
	for s in 0 1 2 3; do
		n=$(fab_counter "p${p}s$s" rx_packets l1)
		plane=$((plane + n))
		[ "$n" -gt 0 ] && used=$((used + 1))
	done
	# Failing, say what each port's EVs saw: a plane whose round trips
	# ran far above the others' is steered around (cooled, health.md).
	[ "$plane" -gt $((TOTAL / 1024 / 4 / 2)) ] ||
		fail "plane $p carried only $plane packets; per port: $(jq -c '[.evs | group_by(.port)[] |
			{port: .[0].port, sent: (map(.sent) | add), srtt_us: (map(.rtt_srtt_us) | add / length | floor),
			 max_us: (map(.rtt_max_us) | max | floor), lost: (map(.lost) | add)}]' "$TMP/clean.client")"
	[ "$used" -ge 2 ] || fail "plane $p: only $used spine(s) used"
	log "plane $p: $plane packets over $used spines"
done

links_all drop 2%
xfer drop --total "$TOTAL" --max $((8 << 20)) --seed 2
summary drop
[ "$(jq .retransmits "$TMP/drop.client")" -gt 0 ] || fail "2% drop but no retransmissions"
links_all clear

links_all dup 1%
xfer dup --total "$TOTAL" --max $((8 << 20)) --seed 3
summary dup
[ "$(fab_counter p0l1 duplicated)" -gt 0 ] || fail "the fabric duplicated nothing"
links_all clear

# Many small messages: every one a WRITE_IMM, each completing once.
xfer small --total $((64 * 100000)) --size 64 --max 64 --imm-every 1 --seed 5
summary small

tb fail plane 1
xfer plane_down --total "$TOTAL" --max $((8 << 20)) --seed 4
summary plane_down
tb heal plane 1
