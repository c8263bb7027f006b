#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mrcd against clients that would exhaust it (docs/security.md, "exhaust
# mrcd"), through tests/tools/mrcd_limits.c: with max-clients 4 from its
# configuration file, four connections are answered and a fifth is closed
# unanswered; a client that sends requests and reads no reply is dropped
# while others are answered; one registration of more than half the
# host's memory is ENOMEM at once. mrcd must still answer and stop
# cleanly on SIGTERM.
. "$(dirname "$0")/lib.sh"
require_root

tb up --hosts 2 --planes 2 --spines 2 >/dev/null
# The configuration file must name the ports too (mrcd.conf(5)); the
# command line's, which mrcd_start adds, are the same.
for w in $(mrcd_ports h1); do
	[ "$w" = -p ] || echo "port ${w//[,=]/ }"
done >"$TMP/limits.conf"
printf 'anchor anc0\nmax-clients 4\n' >>"$TMP/limits.conf"
mrcd_start h1 -c "$TMP/limits.conf"
pid=$(cat "$TMP/h1.mrcd.pid")

tb exec h1 "$TOP/build/tests/mrcd_limits" --socket "$TMP/h1.sock" \
	--max-clients 4 >"$TMP/limits.out" 2>&1 ||
	fail "$(cat "$TMP/limits.out"); mrcd: $(tail -20 "$TMP/h1.mrcd.log")"
kill -0 "$pid" 2>/dev/null || fail "mrcd is gone: $(tail -20 "$TMP/h1.mrcd.log")"
grep -q "refusing a connection: too many clients" "$TMP/h1.mrcd.log" ||
	fail "mrcd did not log the connection it refused"

kill -TERM "$pid"
for _ in $(seq 100); do
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$pid" 2>/dev/null && fail "mrcd did not stop on SIGTERM"
sed 's/^/  155-mrcd-limits.sh: /' "$TMP/limits.out"
log "max-clients, a slow reader and an oversized registration: refused, mrcd answered throughout"
