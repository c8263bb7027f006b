#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: one queue pair moves 1 GiB of RDMA WRITEs from h1's memory
# into h2's, sprayed over 4 planes x 16 EVs through a leaf-spine fabric of
# network namespaces, checked byte for byte. Then a spine of plane 1 fails
# silently (blackholed, no link down) and the same transfer runs through
# it: the EVs that hash onto the dead spine lose packets, the SACKs show
# the holes and the lost packets are resent on other EVs; the data arrives
# intact. Then the same through mrcd and libmrc (mrc-perf): a sweep, the
# ping-pong against TCP, and two failures under a transfer, a spine and a
# whole plane, each found within a millisecond of reaching the data path,
# routed around, and healed by probes (docs/health.md).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
TB=$TOP/tests/testbed/testbed
XFER=$TOP/build/tests/mrc_xfer
export TB_PREFIX=mrcdemo
[ "$(id -u)" = 0 ] || { echo "demo: run as root (network namespaces, XDP)" >&2; exit 1; }
TMP=$(mktemp -d)
PERF=$TOP/build/tools/mrc-perf
MRCCTL=$TOP/build/tools/mrcctl
stop_daemons() {
	local f
	for f in "$TMP"/*.pid; do [ -e "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
	return 0
}
trap 'stop_daemons; "$TB" down >/dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
"$TB" down >/dev/null 2>&1 || true

ports() {
	"$TB" links | awk -v h="$1" '$3 == h && $1 ~ /^h/ { printf "--port %s=%s ", $4, $10 }'
}

transfer() {
	local d=$TMP/$1 o=$TMP/$1.out
	mkdir -p "$d"
	# shellcheck disable=SC2046
	"$TB" exec h2 "$XFER" server --info "$d" $(ports h2) --region $((64 << 20)) \
		--seconds 120 >"$o.server" 2>"$o.server.err" &
	sleep 0.3
	# shellcheck disable=SC2046
	"$TB" exec h1 "$XFER" client --info "$d" $(ports h1) --anchor anc0 \
		--region $((64 << 20)) --total $((1 << 30)) --max $((8 << 20)) \
		--seconds 120 >"$o.client" 2>"$o.client.err" || { cat "$o.client.err" "$o.server.err" >&2; exit 1; }
	wait
	jq -r '"   \(.bytes / 1048576 | floor) MiB in \(.writes) WRITEs (1 B..8 MiB, every 4th with immediate) in \(.seconds) s: \(.goodput_gbit_s) Gbit/s, \(.retransmits) packets resent"' "$o.client"
	jq -r '"   h2 checked its 64 MiB region byte by byte: \(.bad_bytes) bad bytes; \(.recv_completions) WRITE_IMM completions, each once"' "$o.server"
}

echo "== testbed: 2 hosts x 4 planes x 4 spines, XDP forwarding with fault injection"
"$TB" up
"$TB" exec h1 ip link add anc0 type veth peer name anc1
"$TB" exec h1 ip link set anc0 up
"$TB" exec h1 ip link set anc1 up

echo "== one QP, h1 -> h2, sprayed over 4 planes x 16 EVs"
transfer healthy
printf '   packets per plane:'
for p in 0 1 2 3; do
	printf ' p%d=%s' "$p" "$("$TB" status -j | jq "[.nodes[] | select(.node == \"p${p}l1\") | .interfaces[] | select(.ifname | startswith(\"s\")) | .tx_packets] | add")"
done
echo

echo "== spine 2 of plane 1 fails silently (blackholed, links stay up)"
"$TB" fail spine 1 2
transfer spine_down
echo "   spine p1s2 dropped $("$TB" status -j | jq '[.nodes[] | select(.node == "p1s2") | .interfaces[].drop_blackhole] | add') packets"
"$TB" heal spine 1 2

# mrcd on HOST: each port with its leaf's MAC and its plane's prefix.
mrcd_start() {
	local h=$1 args
	args=$("$TB" links | awk -v h="$h" '$3 == h && $1 ~ /^h/ {
		printf "-p %s,mac=%s,plane=198.18.%d.0/20 ", $4, $10, 16 * $2 }')
	"$TB" exec "$h" ip link show anc0 >/dev/null 2>&1 || {
		"$TB" exec "$h" ip link add anc0 type veth peer name anc1
		"$TB" exec "$h" ip link set anc0 up
		"$TB" exec "$h" ip link set anc1 up
	}
	# shellcheck disable=SC2016,SC2086
	# nsenter keeps the host's mount namespace: its bpffs holds the pins.
	nsenter --net="/run/netns/$TB_PREFIX-$h" sh -c 'echo $$ >"$0"; exec "$@"' "$TMP/$h.pid" \
		"$TOP/build/daemon/mrcd" $args -a anc0 -s "$TMP/$h.sock" \
		-P "/sys/fs/bpf/$TB_PREFIX/$h-mrcd" >"$TMP/$h.log" 2>&1 &
	for _ in $(seq 100); do [ -S "$TMP/$h.sock" ] && return 0; sleep 0.05; done
	cat "$TMP/$h.log" >&2
	exit 1
}
# The server is waited for by its PID: a bare wait would also wait for the
# daemons started in the background above, which run until the end.
mrc_perf() {
	local server
	"$TB" exec h2 env MRC_SOCKET="$TMP/h2.sock" "$PERF" server --wait 60 >/dev/null 2>&1 &
	server=$!
	"$TB" exec h1 env MRC_SOCKET="$TMP/h1.sock" "$PERF" client "$("$TB" addr h2 0)" --wait 10 "$@" |
		sed 's/^/   /'
	wait "$server"
}

echo "== the same through mrcd and libmrc (the OCP MRC API): mrc-perf h1 -> h2"
mrcd_start h1
mrcd_start h2
mrc_perf --test bw --verify --sweep 4K-4M -D 1
echo "   (srv CPU s: the receiving process's CPU time while data landed in its memory)"
mrc_perf --test lat --transport both -n 5000

# failover NAME WHAT FAULT HEAL: a verified 4 s transfer through mrcd, FAULT
# 1 s in, HEAL 1.5 s later; the timeline summary and the EVs' states.
failover() {
	local name=$1 what=$2 fault=$3 heal=$4 server
	echo "== $what at 1 s, healed at 2.5 s, under a verified transfer"
	"$TB" exec h2 env MRC_SOCKET="$TMP/h2.sock" "$PERF" server --wait 60 >/dev/null 2>&1 &
	server=$!
	# nsenter: the fault commands need the host's bpffs.
	# The EVs as the controller sees them (mrcctl), before the fault,
	# during it and after the heal.
	snap="$MRCCTL -s $TMP/h1.sock -j ev show >$TMP/$name"
	nsenter --net="/run/netns/$TB_PREFIX-h1" env MRC_SOCKET="$TMP/h1.sock" \
		"$PERF" client "$("$TB" addr h2 0)" --wait 10 --test bw --verify -s 64K -D 4 \
		--timeline "$TMP/$name.csv" --at "1000:$fault" --at "2500:$heal" \
		--at "700:$snap.before" --at "2000:$snap.during" --at "3800:$snap.after" |
		sed 's/^/   /'
	wait "$server"
	for when in before during after; do
		[ -s "$TMP/$name.$when" ] || continue
		jq -r --arg w "$when" '"   EVs " + $w + " (mrcctl ev show): " +
			([group_by(.state)[] | "\(length) \(.[0].state)" +
			  (if .[0].state != "GOOD" then " (ports " +
			   ([.[].port] | unique | map(tostring) | join(",")) + ")" else "" end)]
			 | join(", "))' "$TMP/$name.$when"
	done
	[ -e "$TMP/$name.png" ] && cp "$TMP/$name.png" "$TOP/build/demo-$name.png" &&
		echo "   plot: build/demo-$name.png"
	return 0
}
failover spine "spine 2 of plane 1 blackholed" "$TB fail spine 1 2" "$TB heal spine 1 2"
failover plane "plane 2 blackholed (links up)" "$TB fail plane 2" "$TB heal plane 2"
echo "== healed; testbed removed on exit"
