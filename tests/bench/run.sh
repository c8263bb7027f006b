#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: every benchmark, figures printed and written as JSON under
# build/bench. Benchmarks report; they do not pass or fail on figures.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" = 0 ] || { echo "bench: needs root (network namespaces, BPF)" >&2; exit 1; }
# A benchmark that exits 77 has nothing to measure here (its reason on
# stderr: a kernel without live frames, say); the others go on.
for b in "$TOP"/tests/bench/[a-z]*.sh; do
	case $(basename "$b") in run.sh | ab.sh | mrcd_ab.sh) continue ;; esac
	echo "== $(basename "$b" .sh)"
	rc=0
	"$b" || rc=$?
	[ $rc = 77 ] && { echo "   skipped: nothing to measure on this machine (above)"; continue; }
	[ $rc = 0 ] || exit $rc
done
