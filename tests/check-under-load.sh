#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check RUNS times in a row beside a CPU-heavy job (a busy loop, one
# core of its own), as the suite must pass on a loaded 2-core machine.
# Prints one line per run and a summary; logs in DIR (default a new
# temporary directory). Exits non-zero if any run failed.
#   tests/check-under-load.sh [RUNS] [DIR]
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
	if make -C "$TOP" check >"$dir/run$i.log" 2>&1; then r=pass; else r=FAIL failed=$((failed + 1)); fi
	echo "run $i: $r in $(($(date +%s) - start)) s ($(git -C "$TOP" rev-parse --short HEAD)); log $dir/run$i.log"
done
echo "check under load: $((runs - failed)) of $runs passed"
[ "$failed" = 0 ]
