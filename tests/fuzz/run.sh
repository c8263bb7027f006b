#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fuzzers (tests/fuzz/), each for FRAMES frames from SEED (default: the
# time, printed so a failure can be replayed). make fuzz runs 10^7 frames;
# make check a seeded slice. Closes with "fuzz: N passed, N failed, N
# skipped" for run-all.sh.
#   tests/fuzz/run.sh FRAMES [SEED]
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
frames=${1:?usage: run.sh FRAMES [SEED]}
seed=${2:-$(date +%s)}
pass=0 fail=0 skip=0

# shellcheck disable=SC2086 # a list of names
for f in ${FUZZERS:-fuzz_rx}; do
	echo "  $f -n $frames -s $seed"
	"$BUILD/tests/$f" -n "$frames" -s "$seed"
	case $? in
	0) pass=$((pass + 1)) ;;
	77) skip=$((skip + 1)) ;;
	*)
		fail=$((fail + 1))
		echo "FAIL $f: replay with: $BUILD/tests/$f -n $frames -s $seed"
		;;
	esac
done
echo "fuzz: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
