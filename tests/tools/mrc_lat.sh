#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# 8-byte ping-pong round trips, doorbell (tc on lo) vs live-frame burst vs
# TCP, between the two hosts of a direct one-plane testbed of its own
# (prefix ll, never the shared mrctb). A measurement, not a test.
#
#   tests/tools/mrc_lat.sh [--v6] [--csum] [--iters N]
set -euo pipefail
cd "$(dirname "$0")/../.."
TOP=$PWD
export TB_PREFIX=${TB_PREFIX:-ll}
[ "$TB_PREFIX" != mrctb ] || { echo "mrc_lat.sh: not on the shared prefix" >&2; exit 1; }
TB=$TOP/tests/testbed/testbed
BIN=$TOP/build/tests/mrc_lat

# Built here: the Makefile's userspace section is not this tool's to edit.
make -s build/bpf/mrc_xdp_rx.skel.h build/bpf/mrc_xdp_tx.skel.h build/bpf/mrc_tc_tx.skel.h
mkdir -p build/tests
# shellcheck disable=SC2046
gcc -O2 -g -std=gnu11 -Wall -Wextra -Wformat-signedness -Werror -Iinclude \
	-Ibuild/bpf -Idaemon -o "$BIN" tests/tools/mrc_lat.c daemon/dev.c \
	daemon/dev_lowlat.c lib/doorbell.c $(pkg-config --libs libbpf)

tmp=$(mktemp -d /tmp/mrc_lat.XXXX)
cleanup() {
	[ -n "${spid:-}" ] && kill "$spid" 2>/dev/null || true
	"$TB" down >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT
"$TB" up --direct --planes 1 >/dev/null
ports() {
	"$TB" links | awk -v h="$1" '$3 == h { printf "--port %s=%s ", $4, $10 }
		$8 == h { printf "--port %s=%s ", $9, $5 }'
}
for h in h1 h2; do
	"$TB" exec $h ip link add anc0 type veth peer name anc1
	"$TB" exec $h ip link set anc0 up
	"$TB" exec $h ip link set anc1 up
	"$TB" exec $h ip link set lo up
done
# shellcheck disable=SC2046
"$TB" exec h2 "$BIN" server --info "$tmp" $(ports h2) --anchor anc0 "$@" \
	>"$tmp/server.out" 2>"$tmp/server.err" &
spid=$!
# shellcheck disable=SC2046
"$TB" exec h1 "$BIN" client --info "$tmp" $(ports h1) --anchor anc0 "$@" ||
	{ cat "$tmp/server.err" >&2; exit 1; }
wait "$spid" || { cat "$tmp/server.err" >&2; exit 1; }
spid=
