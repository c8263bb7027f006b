#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run test binaries, each a cmocka program; exit 77 means skipped. Prints
# one line per binary and a closing "N passed, N failed, N skipped".
set -u
pass=0 fail=0 skip=0
for t in "$@"; do
	out=$("$t" 2>&1)
	rc=$?
	case $rc in
	0) pass=$((pass + 1)); echo "PASS $t" ;;
	77) skip=$((skip + 1)); echo "SKIP $t: $(tail -n 1 <<<"$out")" ;;
	*) fail=$((fail + 1)); echo "FAIL $t (exit $rc)"; echo "$out" | sed 's/^/    /' ;;
	esac
done
echo "unit: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
