#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a RoCE ICRC (CRC32) would cost per frame in the data path, beside
# the Internet checksum mrc verifies instead: build/tests/icrc_cost, three
# XDP programs through BPF_PROG_TEST_RUN (tests/bench/icrc_cost.bpf.c).
# docs/wire.md, "No ICRC", quotes the figures. No namespaces.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${BENCH_OUT:-$TOP/build/bench}
mkdir -p "$OUT"
"$TOP"/build/tests/icrc_cost "${REPEAT:-50000}" >"$OUT/icrc.json"
jq -r '"  \(.what): \(.ns_64_bytes) ns at 64 B, \(.ns_1024_bytes) ns at 1024 B, \(.ns_3000_bytes) ns at 3000 B"' "$OUT/icrc.json"
