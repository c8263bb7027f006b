#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check RUNS times in a row beside a CPU-heavy job (a busy loop, one
# core of its own), as the suite must pass on a loaded 2-core machine;
# with SUITE=NNN-name.sh, that network-namespace suite alone (the check
# before resolving an issue that touched it). Prints one line per run
# and a summary; logs in DIR (default a new temporary directory). Exits
# non-zero if any run failed.
#   [SUITE=NNN-name.sh] tests/check-under-load.sh [RUNS] [DIR]
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-10}
dir=${2:-$(mktemp -d /tmp/check-under-load.XXXX)}
mkdir -p "$dir"
sh -c 'while :; do :; done' &
hog=$!
trap 'kill $hog 2>/dev/null' EXIT
failed=0
for ((i = 1; i <= runs; i++)); do
	start=$(date +%s)
	r=pass
	if [ -n "${SUITE:-}" ]; then
		"$TOP/tests/run-system.sh" "$TOP/tests/system/$SUITE" >"$dir/run$i.log" 2>&1 || r=FAIL
	else
		make -C "$TOP" check >"$dir/run$i.log" 2>&1 || r=FAIL
	fi
	[ $r = pass ] || failed=$((failed + 1))
	echo "run $i: $r in $(($(date +%s) - start)) s ($(git -C "$TOP" rev-parse --short HEAD)); log $dir/run$i.log"
done
echo "check under load: $((runs - failed)) of $runs passed"
[ "$failed" = 0 ]
