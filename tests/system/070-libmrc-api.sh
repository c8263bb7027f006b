#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# libmrc and mrcd as an unprivileged application sees them: the soft verbs
# device, the QP state machine and its errors, memory registration over the
# application's pages, isolation between two connections, and the device's
# QP limit (tests/tools/mrc_api_check.c). mrcd runs as root in h1.
. "$(dirname "$0")/lib.sh"
require_root

tb up --hosts 2 --planes 4 --spines 2 >/dev/null
chmod 0755 "$TMP"
mrcd_start h1
log "mrcd up in h1: $(head -1 "$TMP/h1.mrcd.log")"
as_nobody h1 "$TOP/build/tests/mrc_api_check" >"$TMP/check.out" 2>&1 ||
	fail "mrc_api_check: $(cat "$TMP/check.out")"
grep -E "PASSED|FAILED" "$TMP/check.out" | sed "s/^/  $SUITE: /"
# mrcd survived it all and answers again.
as_nobody h1 "$TOP/build/tests/mrc_api_check" >"$TMP/check2.out" 2>&1 ||
	fail "second run: $(cat "$TMP/check2.out")"
