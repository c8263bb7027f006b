#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers for the network-namespace suites in tests/system/. Each
# suite sources this, builds its own testbed under a prefix carrying its PID,
# and tears it down from an EXIT trap, whatever happens.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TESTBED=$TOP/tests/testbed/testbed
FLOWGEN=$TOP/build/tests/flowgen
export TB_PREFIX=${TB_PREFIX:-mrct$$}
SUITE=$(basename "$0")
TMP=$(mktemp -d "/tmp/$TB_PREFIX.XXXX")

skip() {
	echo "SKIP: $SUITE: $*"
	exit 77
}

fail() {
	echo "FAIL: $SUITE: $*" >&2
	exit 1
}

log() { echo "  $SUITE: $*"; }

cleanup() {
	local rc=$?
	# Background jobs we started (receivers) end by themselves; make sure.
	# Daemons inside namespaces are not our jobs: their PIDs are in files.
	local j f
	for f in "$TMP"/*.pid; do
		[ -e "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
	done
	for j in $(jobs -p); do kill "$j" 2>/dev/null || true; done
	wait 2>/dev/null || true
	"$TESTBED" down >/dev/null 2>&1 || true
	rm -rf "$NOBODY_BIN"
	[ -n "${KEEP_TMP:-}" ] || rm -rf "$TMP" # KEEP_TMP=1: keep the logs
	exit $rc
}
trap cleanup EXIT

require_root() {
	[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, BPF)"
	command -v ip >/dev/null || skip "needs iproute2"
	ip netns add "$TB_PREFIX-probe" 2>/dev/null || skip "cannot create network namespaces"
	ip netns del "$TB_PREFIX-probe"
}

tb() { "$TESTBED" "$@"; }

# JSON counter sum over a node's interfaces: node counter [ifname]
fab_counter() {
	local node=$1 counter=$2 ifn=${3:-}
	tb status -j | jq --arg n "$node" --arg c "$counter" --arg i "$ifn" \
		'[.nodes[] | select(.node == $n) | .interfaces[] |
		  select($i == "" or .ifname == $i) | .[$c]] | add // 0'
}

# Run flowgen recv in DST's namespace in the background; prints nothing.
# recv_start HOST OUTFILE ARGS...
recv_start() {
	local host=$1 out=$2
	shift 2
	tb exec "$host" "$FLOWGEN" recv "$@" >"$out" &
	sleep 0.3
}

# Packets a spine received from one leaf: spine_rx PLANE SPINE LEAF-HOST
spine_rx() {
	"$TOP"/build/tests/fabricctl -j show "$TB_PREFIX-p$1s$2:/sys/fs/bpf/$TB_PREFIX/p$1s$2" |
		jq --arg i "l$3" '[.[] | select(.ifname == $i) | .rx_packets] | add // 0'
}

# send FROM TO PLANE [flowgen send options]: UDP flows from host FROM to
# host TO's address on PLANE (add -6 as the first option for IPv6).
send() {
	local from=$1 to=$2 plane=$3 six=""
	shift 3
	if [ "${1:-}" = -6 ]; then six=-6; shift; fi
	tb exec "$from" "$FLOWGEN" send --dst "$(tb addr "$to" "$plane" $six)" "$@"
}

# After `tb up`: skip when the routers could not attach XDP (faults and
# per-spine counters live in the XDP program).
require_xdp_fabric() {
	local mode
	mode=$(tb status -j | jq -r .forwarding)
	[ "$mode" = xdp ] || skip "the fabric forwards in the kernel here ($mode): no XDP on veth, so no fault injection or counters"
}

require_sysctl() {
	[ -e "/proc/sys/${1//.//}" ] || skip "kernel lacks sysctl $1${2:+ ($2)}"
}

# --port arguments for mrc_xfer on HOST: each port and its leaf's MAC.
xfer_ports() {
	tb links | awk -v h="$1" '$3 == h && $1 ~ /^h/ { printf "--port %s=%s ", $4, $10 }'
}

# An idle veth pair in HOST for the transmit program to sit on (DESIGN.md:
# live frames are slow while the program is attached nowhere).
add_anchor() {
	tb exec "$1" ip link add anc0 type veth peer name anc1
	tb exec "$1" ip link set anc0 up
	tb exec "$1" ip link set anc1 up
}

# xfer NAME [client options]: one transfer h1 -> h2; results in $TMP/NAME.*
xfer() {
	local name=$1 dir
	shift
	dir=$TMP/$name.info
	mkdir -p "$dir"
	# shellcheck disable=SC2046
	tb exec h2 "$TOP/build/tests/mrc_xfer" server --info "$dir" $(xfer_ports h2) \
		--region "$REGION" --seconds 60 >"$TMP/$name.server" 2>"$TMP/$name.server.err" &
	sleep 0.3
	# shellcheck disable=SC2046
	tb exec h1 "$TOP/build/tests/mrc_xfer" client --info "$dir" $(xfer_ports h1) \
		--anchor anc0 --region "$REGION" --seconds 60 "$@" \
		>"$TMP/$name.client" 2>"$TMP/$name.client.err" ||
		fail "$name: client failed: $(cat "$TMP/$name.client" "$TMP/$name.client.err")"
	wait
	[ "$(jq .bad_bytes "$TMP/$name.server")" = 0 ] ||
		fail "$name: server found bad bytes: $(cat "$TMP/$name.server" "$TMP/$name.server.err")"
	[ "$(jq .errors "$TMP/$name.client")" = 0 ] || fail "$name: error completions"
	# Every WRITE_IMM completed at the receiver exactly once.
	[ "$(jq .recv_completions "$TMP/$name.server")" = "$(jq .imm_writes "$TMP/$name.client")" ] ||
		fail "$name: $(jq .recv_completions "$TMP/$name.server") receive completions for $(jq .imm_writes "$TMP/$name.client") WRITE_IMMs ($(jq .cq_overflows "$TMP/$name.server") dropped for a full CQ ring)"
}

# -p arguments for mrcd on HOST: each port with its next hop's MAC, and in
# the fabric each plane's prefix (host numbers are the same on every plane:
# 198.18.(16p+h).2 = 198.18.16p.0/20 + host bits; direct mode takes the
# interface's own /24). mrcd_ports HOST [-6]
mrcd_ports() {
	tb links | awk -v h="$1" -v six="${2:-}" '
		$3 == h { ifn = $4; mac = $10 }
		$8 == h { ifn = $9; mac = $5 }
		$3 != h && $8 != h { next }
		{
			pl = ""
			if ($1 ~ /^h/ && six == "") pl = sprintf(",plane=198.18.%d.0/20", 16 * $2)
			if ($1 ~ /^h/ && six != "") pl = sprintf(",plane=fd00:1:%x::/48", $2)
			printf "-p %s,mac=%s%s ", ifn, mac, pl
		}'
}

# Where mrcd in HOST pins the device: inside the testbed's bpffs
# directory, which `testbed down` removes whatever happens.
mrcd_pin_dir() { echo "/sys/fs/bpf/$TB_PREFIX/$1-mrcd"; }
# mrcd_abi_dir HOST: where HOST's mrcd pins the device, PIN_DIR/abi<N> for
# this build's MRC_ABI_VERSION (include/mrc/abi.h).
MRC_ABI=$(sed -n 's/^#define MRC_ABI_VERSION \([0-9]*\)$/\1/p' "$TOP/include/mrc/abi.h")
mrcd_abi_dir() { echo "$(mrcd_pin_dir "$1")/abi$MRC_ABI"; }

# dp_counters HOST: HOST's data path counters that are not zero, one
# "name value" a line: drops by reason (include/mrc/drop.h), then the
# receive and transmit counters (abi.h), each summed over CPUs.
dp_counters() {
	local dir map names
	dir=$(mrcd_abi_dir "$1")/maps
	for map in mrc_drop mrc_rx_stats mrc_tx_stats; do
		case $map in
		mrc_drop) names=$(grep -o 'X([A-Z_0-9]*, "[a-z_0-9]*"' "$TOP/include/mrc/drop.h") ;;
		mrc_rx_stats) names=$(sed -n '/MRC_RX_COUNTERS(X)/,/^$/p' "$TOP/include/mrc/abi.h" |
			grep -o 'X([A-Z_0-9]*, "[a-z_0-9]*"') ;;
		*) names=$(sed -n '/MRC_TX_COUNTERS(X)/,/^$/p' "$TOP/include/mrc/abi.h" |
			grep -o 'X([A-Z_0-9]*, "[a-z_0-9]*"') ;;
		esac
		# mrc_drop counts from key 1 (0 is no drop); the others from 0.
		bpftool -j map dump pinned "$dir/$map" | jq -r --arg names "$(echo "$names" |
			sed 's/.*"\(.*\)"/\1/' | paste -sd' ')" --argjson base "$([ $map = mrc_drop ] && echo 1 || echo 0)" '
			($names | split(" ")) as $n | .[] | (.formatted // .) |
			[(.key | if type == "array" then 0 else . end), ([.values[].value] | add // 0)] |
			select(.[1] != 0) | "\($n[.[0] - $base] // "key \(.[0])") \(.[1])"'
	done
}

# dp_counter HOST NAME: one of HOST's data path counters (dp_counters), 0
# when it is zero.
dp_counter() { dp_counters "$1" | awk -v n="$2" '$1 == n { v = $2 } END { print v + 0 }'; }

# mrcd_start HOST [mrcd options]: mrcd ($MRCD, default the build's) in
# HOST (on the planes' IPv6 addresses when MRCD_V6 is set), socket
# $TMP/HOST.sock, pins under $(mrcd_pin_dir HOST), log
# $TMP/HOST.mrcd.log; waits until it listens.
mrcd_start() {
	mrcd_spawn "$@"
	mrcd_ready "$1"
}

# mrcd_spawn HOST [ARGS...]: mrcd_start without the wait, so that several
# hosts' mrcds verify their programs at once (a second of CPU each):
#   mrcd_spawn h1 -v; mrcd_spawn h2; mrcd_ready h1 h2
mrcd_spawn() {
	local host=$1
	shift
	tb exec "$host" ip link show anc0 >/dev/null 2>&1 || add_anchor "$host"
	# shellcheck disable=SC2046,SC2016
	# nsenter, not `ip netns exec`: that gives a mount namespace of its
	# own, where /sys/fs/bpf is not the host's bpffs and pins are lost.
	nsenter --net="/run/netns/$TB_PREFIX-$host" \
		sh -c 'echo $$ >"$0"; exec "$@"' "$TMP/$host.mrcd.pid" \
		"${MRCD:-$TOP/build/daemon/mrcd}" $(mrcd_ports "$host" ${MRCD_V6:+-6}) ${MRCD_V6:+-6} -a anc0 \
		-s "$TMP/$host.sock" -P "$(mrcd_pin_dir "$host")" "$@" \
		>"$TMP/$host.mrcd.log" 2>&1 &
}

# mrcd_ready HOST...: each HOST's mrcd (mrcd_spawn's) listens, or the test
# fails with its log.
mrcd_ready() {
	local host
	# Up to 30 s: loading verifies mrc_xdp_rx (about 900,000 instructions
	# processed until 2026-12-06, 1.8 s with one CPU busy and longer
	# beside a hog; 405,000 since); the bench failed twice in a row at
	# the 5 s this used to allow.
	for host in "$@"; do
		for _ in $(seq 600); do
			[ -S "$TMP/$host.sock" ] && continue 2
			sleep 0.05
		done
		fail "mrcd did not start in $host: $(cat "$TMP/$host.mrcd.log")"
	done
}

# mrcd_stop HOST: HOST's mrcd (mrcd_start's) stopped by SIGTERM; waits
# until it has removed its socket, up to 10 s.
mrcd_stop() {
	kill -TERM "$(cat "$TMP/$1.mrcd.pid")" 2>/dev/null || true
	for _ in $(seq 200); do
		[ -S "$TMP/$1.sock" ] || return 0
		sleep 0.05
	done
	fail "$1: mrcd did not stop"
}

# A link of their own between h1 and h2 (198.19.254.1 and .2/30) for
# mrc-perf's side channel (TCP) where the fabric carries SRv6 only; it
# goes with the hosts' namespaces. Its peer address: SC_ADDR_H2.
SC_ADDR_H2=198.19.254.2
side_channel() {
	ip link add sc1 netns "$TB_PREFIX-h1" type veth peer name sc2 netns "$TB_PREFIX-h2"
	tb exec h1 ip addr add 198.19.254.1/30 dev sc1
	tb exec h2 ip addr add "$SC_ADDR_H2/30" dev sc2
	tb exec h1 ip link set sc1 up
	tb exec h2 ip link set sc2 up
}

# Stop HOST's mrcd (SIGTERM) and print the transmit calls it logs as it
# stops ("stopped after N transmit calls"); nothing if it logged none
# within 10 s.
mrcd_tx_calls() {
	local host=$1
	kill -TERM "$(cat "$TMP/$host.mrcd.pid")" 2>/dev/null || true
	for _ in $(seq 100); do
		grep -q "stopped after" "$TMP/$host.mrcd.log" && break
		sleep 0.1
	done
	sed -n 's/.*stopped after \([0-9]*\) transmit calls.*/\1/p' "$TMP/$host.mrcd.log"
}

# Programs of the checkout that nobody runs are copied here first: the
# checkout may lie where nobody cannot reach (a clone in /root, mode 0700).
# Nobody may traverse this directory, not list or change it.
# Copies are renamed into place, so a copy made while an older one runs
# (as_nobody in the background) never meets a half-written file.
NOBODY_BIN=$(mktemp -d "/tmp/$TB_PREFIX.bin.XXXX")
chmod 0711 "$NOBODY_BIN"
nobody_copy() {
	local dst
	dst=$NOBODY_BIN/$(basename "$1")
	if ! [ "$dst" -nt "$1" ]; then
		install -m 0755 "$1" "$dst.$BASHPID"
		mv -f "$dst.$BASHPID" "$dst"
	fi
	echo "$dst"
}

# as_nobody HOST CMD...: CMD in HOST as an unprivileged user; any argument
# naming a program of the checkout runs as its copy (nobody_copy).
# CMD's PID goes to $TMP/NAME.pid when PIDNAME=NAME is set.
as_nobody() {
	local host=$1 a args=()
	shift
	for a in "$@"; do
		if [[ $a == "$TOP"/* && -f $a && -x $a ]]; then
			a=$(nobody_copy "$a")
		fi
		args+=("$a")
	done
	# shellcheck disable=SC2016
	tb exec "$host" sh -c 'echo $$ >"$0"; exec "$@"' "$TMP/${PIDNAME:-last}.pid" \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		--inh-caps=-all --bounding-set=-all env MRC_SOCKET="$TMP/$host.sock" "${args[@]}"
}

# mrc_perf NAME [mrc-perf client options]: mrc-perf server in h2, client in h1
# (both through their mrcd, as nobody), JSON in $TMP/NAME.json; fails on a
# non-zero exit. Needs mrcd_start h1 and h2, and a world-readable $TMP.
PERF=$TOP/build/tools/mrc-perf
mrc_perf() {
	local name=$1 rc=0
	shift
	as_nobody h2 "$PERF" server --wait 60 >"$TMP/$name.srv" 2>&1 &
	as_nobody h1 "$PERF" client "$(tb addr h2 0)" --wait 10 -j "$@" \
		>"$TMP/$name.json" 2>"$TMP/$name.err" || rc=$?
	wait $! || true
	[ $rc = 0 ] || fail "$name: mrc-perf exit $rc: $(cat "$TMP/$name.err" "$TMP/$name.srv")"
	jq -e . "$TMP/$name.json" >/dev/null || fail "$name: not JSON: $(cat "$TMP/$name.json")"
}

# perf_start NAME ARGS: mrc-perf's server and client in the background (their
# pids in PERF_SPID, PERF_CPID), for a test that looks at mrcd while
# they run; perf_wait NAME: both ended, the client well.
perf_start() {
	local name=$1
	shift
	as_nobody h2 "$PERF" server --wait 60 >"$TMP/$name.srv" 2>&1 &
	PERF_SPID=$!
	as_nobody h1 "$PERF" client "$(tb addr h2 0)" --wait 10 -j "$@" \
		>"$TMP/$name.json" 2>"$TMP/$name.err" &
	PERF_CPID=$!
}
perf_wait() {
	wait "$PERF_CPID" || fail "$1: mrc-perf failed: $(cat "$TMP/$1.err" "$TMP/$1.srv")"
	wait "$PERF_SPID" || true
}

# mrcd_conf HOST [LINE...]: an mrcd.conf(5) for HOST's mrcd, its ports as
# mrcd_start gives them and the anchor, then each LINE.
mrcd_conf() {
	local host=$1
	shift
	mrcd_ports "$host" | tr ' ' '\n' | grep -v '^-p$' | grep . |
		sed 's/,mac=/ mac /; s/,plane=/ plane /; s/^/port /'
	echo "anchor anc0"
	printf '%s\n' "$@"
}

# perf_clean NAME: every row verified, no error completion, nothing lost.
perf_clean() {
	jq -e '[.results[] | select(.bad_bytes != 0 or .send_errors != 0 or
		.recv_errors != 0)] | length == 0' "$TMP/$1.json" >/dev/null ||
		fail "$1: $(jq -c '.results[] | {size_bytes, bad_bytes, send_errors, recv_errors}' "$TMP/$1.json")"
}
