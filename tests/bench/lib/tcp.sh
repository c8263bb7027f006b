# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The TCP baseline of the benchmarks: iperf3 flows from h1 to h2.

# bench_tcp_gbit TESTBED ADDR SECONDS [FLOWS]: Gbit/s received over FLOWS
# parallel flows (default 1), on stdout. Each
# try starts a one-shot server (bounded by timeout), waits until it
# listens, then runs the client; three tries, then an error. No server
# outlives the call.
bench_tcp_gbit() {
	local tb=$1 addr=$2 secs=$3 flows=${4:-1} try srv out=""

	for try in 1 2 3; do
		"$tb" exec h2 timeout $((secs + 30)) iperf3 -s -1 -B "$addr" \
			>/dev/null 2>&1 &
		srv=$!
		for _ in $(seq 50); do
			"$tb" exec h2 ss -Hltn "sport = :5201" | grep -q . && break
			sleep 0.1
		done
		out=$("$tb" exec h1 iperf3 -c "$addr" -t "$secs" -P "$flows" -J 2>/dev/null |
			jq -e '.end.sum_received.bits_per_second / 1e9' 2>/dev/null) || out=""
		kill "$srv" 2>/dev/null || true
		wait "$srv" 2>/dev/null || true
		[ -n "$out" ] && break
		echo "bench: iperf3 try $try gave no result" >&2
		sleep 0.5
	done
	[ -n "$out" ] || return 1
	echo "$out"
}
