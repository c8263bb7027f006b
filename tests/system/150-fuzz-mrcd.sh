#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mrcd's socket protocol fuzzed from outside (tests/fuzz/fuzz_mrcd.c):
# mrcd built with ASan and UBSan (build/daemon/mrcd-asan) serves a client
# as root (the controller API too) and one as nobody, each sending
# malformed, truncated and oversized requests, unasked file descriptors,
# garbage in its send queues, and clients that die mid-call. mrcd must
# answer a new connection throughout, stop cleanly on SIGTERM, and its
# log must hold no sanitizer report. FUZZ_MRCD_REQUESTS (default 6000
# each) and FUZZ_SEED (default 1) set the run; make fuzz runs it longer.
. "$(dirname "$0")/lib.sh"
require_root

N=${FUZZ_MRCD_REQUESTS:-6000}
SEED=${FUZZ_SEED:-1}
FUZZ=$TOP/build/tests/fuzz_mrcd
[ -x "$TOP/build/daemon/mrcd-asan" ] || fail "build/daemon/mrcd-asan missing (make all)"

tb up --hosts 2 --planes 2 --spines 2 >/dev/null
chmod 0755 "$TMP"
# halt_on_error: the first report ends mrcd, and this suite sees it.
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0:exitcode=66
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=67
MRCD=$TOP/build/daemon/mrcd-asan mrcd_start h1
pid=$(cat "$TMP/h1.mrcd.pid")

tb exec h1 env "$FUZZ" --socket "$TMP/h1.sock" -n "$N" -s "$SEED" >"$TMP/root.out" 2>&1 ||
	fail "as root: $(tail -5 "$TMP/root.out"); mrcd: $(tail -20 "$TMP/h1.mrcd.log")"
as_nobody h1 "$FUZZ" --socket "$TMP/h1.sock" -n "$N" -s "$((SEED + 1))" >"$TMP/nobody.out" 2>&1 ||
	fail "as nobody: $(tail -5 "$TMP/nobody.out"); mrcd: $(tail -20 "$TMP/h1.mrcd.log")"
kill -0 "$pid" 2>/dev/null || fail "mrcd is gone: $(tail -20 "$TMP/h1.mrcd.log")"

kill -TERM "$pid"
for _ in $(seq 100); do
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$pid" 2>/dev/null && fail "mrcd did not stop on SIGTERM"
if grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: " "$TMP/h1.mrcd.log"; then
	fail "sanitizer report: $(grep -A30 -E "ERROR: |runtime error:" "$TMP/h1.mrcd.log" | head -40)"
fi
sed 's/^/  150-fuzz-mrcd.sh: root: /' "$TMP/root.out"
sed 's/^/  150-fuzz-mrcd.sh: nobody: /' "$TMP/nobody.out"
log "mrcd (ASan, UBSan) answered throughout, stopped cleanly, no sanitizer report"
