#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the network-namespace suites, tests/system/NNN-*.sh, in order (or the
# ones named). Exit 77 from a suite means skipped, with its reason. Closes
# with "N passed, N failed, N skipped".
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
pass=0 fail=0 skip=0
if [ $# -gt 0 ]; then suites=("$@"); else suites=("$TOP"/tests/system/[0-9][0-9][0-9]-*.sh); fi
for s in "${suites[@]}"; do
	start=${EPOCHREALTIME/./}
	out=$(bash "$s" 2>&1)
	rc=$?
	ms=$(((${EPOCHREALTIME/./} - start) / 1000))
	secs=$((ms / 1000)).$((ms % 1000 / 100))
	name=$(basename "$s")
	case $rc in
	0) pass=$((pass + 1)); echo "PASS $name (${secs}s)" ;;
	77) skip=$((skip + 1)); echo "SKIP $name: $(grep -m1 '^SKIP' <<<"$out")" ;;
	*) fail=$((fail + 1)); echo "FAIL $name (exit $rc, ${secs}s)"; sed 's/^/    /' <<<"$out" | tail -n 40 ;;
	esac
done
echo "system: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
