#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fuzzers (tests/fuzz/), from SEED (default: the time, printed so a
# failure can be replayed): the packet fuzzers for FRAMES frames each, the
# libFuzzer targets (ASan, UBSan) for FRAMES / 10 inputs each, from their
# corpus in tests/fuzz/corpus/. make fuzz runs 10^7 frames; make check a
# seeded slice. Closes with "fuzz: N passed, N failed, N skipped" for
# run-all.sh.
#   tests/fuzz/run.sh FRAMES [SEED]
set -uo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$TOP/build}
frames=${1:?usage: run.sh FRAMES [SEED]}
seed=${2:-$(date +%s)}
pass=0 fail=0 skip=0
# Packet fuzzers (-n FRAMES -s SEED) and libFuzzer targets.
PACKET_FUZZERS="fuzz_rx fuzz_ack fuzz_tc fuzz_fabric"
LIB_FUZZERS="fuzz_config fuzz_link_msg"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

result() { # NAME RC REPLAY
	case $2 in
	0) pass=$((pass + 1)) ;;
	77) skip=$((skip + 1)) ;;
	*)
		fail=$((fail + 1))
		echo "FAIL $1: replay with: $3"
		;;
	esac
}

# Every fuzzer runs on its own (no shared maps, pins or interfaces), so
# each CPU takes a lane of them (taskset: the packet fuzzers pin
# themselves to the CPU they start on): fuzz_ack, the longest by far,
# alone on the first, the others round the rest. Their reports follow in
# the usual order.
declare -A cmds
for f in $PACKET_FUZZERS; do
	cmds[$f]="$BUILD/tests/$f -n $frames -s $seed"
done
for f in $LIB_FUZZERS; do
	corpus=$TOP/tests/fuzz/corpus/${f#fuzz_}
	mkdir -p "$work/$f"
	dict=$TOP/tests/fuzz/corpus/${f#fuzz_}.dict
	cmds[$f]="$BUILD/tests/$f -seed=$seed -runs=$((frames / 10)) -max_len=4096 -dict=$dict $work/$f $corpus"
done
ncpu=$(nproc)
lanes=()
i=0
for f in $PACKET_FUZZERS $LIB_FUZZERS; do
	if [ "$ncpu" = 1 ]; then
		lane=0
	elif [ "$f" = fuzz_ack ]; then
		lane=0
	else
		lane=$((i % (ncpu - 1) + 1))
		i=$((i + 1))
	fi
	lanes[lane]+=" $f"
done
for lane in "${!lanes[@]}"; do
	(
		for f in ${lanes[lane]}; do
			# shellcheck disable=SC2086 # a command line of words
			taskset -c "$lane" ${cmds[$f]} >"$work/$f.log" 2>&1
			echo $? >"$work/$f.rc"
		done
	) &
done
wait
for f in $PACKET_FUZZERS; do
	echo "  ${cmds[$f]}"
	cat "$work/$f.log"
	result $f "$(cat "$work/$f.rc")" "${cmds[$f]}"
done
for f in $LIB_FUZZERS; do
	echo "  ${cmds[$f]}"
	rc=$(cat "$work/$f.rc")
	grep -E "^#[0-9]+.*DONE|Done [0-9]+ runs" "$work/$f.log" | tail -1 | sed 's/^/    /'
	if [ "$rc" != 0 ]; then
		tail -40 "$work/$f.log"
		rc=1
	fi
	result $f $rc "${cmds[$f]} (the crashing input is in the log above)"
done
# mrcd's socket protocol needs a testbed: its suite, when asked (make fuzz).
if [ "${FUZZ_MRCD:-0}" = 1 ]; then
	echo "  tests/system/150-fuzz-mrcd.sh, $((frames / 200)) requests per client"
	FUZZ_MRCD_REQUESTS=$((frames / 200)) FUZZ_SEED=$seed "$TOP/tests/system/150-fuzz-mrcd.sh"
	result fuzz_mrcd $? "FUZZ_MRCD_REQUESTS=$((frames / 200)) FUZZ_SEED=$seed tests/system/150-fuzz-mrcd.sh"
fi
echo "fuzz: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
