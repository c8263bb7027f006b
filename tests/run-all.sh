#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: unit tests (plain and under ASan/UBSan), BPF fixture tests,
# network-namespace suites. Closes with the sum: "check: N passed, N failed,
# N skipped".
# pipefail: each stage is "stage | tee", and tee alone would decide.
set -uo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
unit_bins=$1 bpf_bins=$2
total_p=0 total_f=0 total_s=0 rc=0

# Each stage's wall time beside its sum, and the whole at the end: the
# house keeps make check under 20 minutes on 2 CPUs.
stage_start=$SECONDS
stage_took() { echo "  ($((SECONDS - stage_start)) s)"; stage_start=$SECONDS; }

tally() {
	local line
	stage_took
	line=$(tail -n 1 "$1")
	if [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped ]]; then
		total_p=$((total_p + BASH_REMATCH[1]))
		total_f=$((total_f + BASH_REMATCH[2]))
		total_s=$((total_s + BASH_REMATCH[3]))
	else
		total_f=$((total_f + 1))
	fi
}

out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "== unit tests (plain, ASan/UBSan)"
# shellcheck disable=SC2086
"$TOP"/tests/run-unit.sh $unit_bins | tee "$out" || rc=1
tally "$out"
echo "== unit tests under valgrind"
# shellcheck disable=SC2046
VALGRIND=1 "$TOP"/tests/run-unit.sh $(tr ' ' '\n' <<<"$unit_bins" | grep -v unit-san) | tee "$out" || rc=1
tally "$out"
echo "== BPF fixture tests"
# test_dev_reuse pins into the host's bpffs. A fresh machine has none
# mounted until the first testbed comes up (tests/testbed/testbed mounts
# it), so mount it here, as the testbed would, or that test skips on
# every first run.
if [ "$(id -u)" = 0 ] && ! mountpoint -q /sys/fs/bpf; then
	mount -t bpf bpf /sys/fs/bpf || echo "check: could not mount bpffs on /sys/fs/bpf"
fi
# shellcheck disable=SC2086
"$TOP"/tests/run-unit.sh $bpf_bins | tee "$out" || rc=1
tally "$out"
echo "== fuzzing, a seeded slice (make fuzz runs 10^7 frames)"
"$TOP"/tests/fuzz/run.sh 1000000 1 | tee "$out" || rc=1
tally "$out"
echo "== lint"
if make -s -C "$TOP" lint >"$out" 2>&1; then
	echo "lint: 1 passed, 0 failed, 0 skipped"
	total_p=$((total_p + 1))
else
	cat "$out"
	echo "lint: 0 passed, 1 failed, 0 skipped"
	total_f=$((total_f + 1))
	rc=1
fi
stage_took
echo "== network-namespace suites"
"$TOP"/tests/run-system.sh | tee "$out" || rc=1
tally "$out"
echo "check: $SECONDS s after the build"
echo "check: $total_p passed, $total_f failed, $total_s skipped"
[ "$total_f" -eq 0 ] || rc=1
exit $rc
