#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make verify: load every BPF object into a scratch bpffs and print each
# program's verified (xlated) instruction count. docs/verify.txt keeps the
# last committed figures, so a change in verifier complexity shows in review.
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "verify: needs root (loads BPF programs)" >&2; exit 1; }
scratch=$(mktemp -d /tmp/mrc-verify.XXXX)
cleanup() { umount "$scratch" 2>/dev/null || true; rmdir "$scratch"; }
trap cleanup EXIT
mount -t bpf bpf "$scratch"
printf '%-36s %-20s %10s %10s\n' object program insns jited_bytes
for obj in "$@"; do
	dir=$scratch/$(basename "$obj" .bpf.o)
	if ! bpftool prog loadall "$obj" "$dir" 2>"$scratch.log"; then
		echo "verify: $obj rejected by the verifier:" >&2
		tail -n 30 "$scratch.log" >&2
		rm -f "$scratch.log"
		exit 1
	fi
	for p in "$dir"/*; do
		bpftool -j prog show pinned "$p" |
			jq -r --arg o "$(basename "$obj")" \
				'"\($o) \(.name) \(.bytes_xlated / 8 | floor) \(.bytes_jited)"' |
			xargs printf '%-36s %-20s %10s %10s\n'
	done
done
rm -f "$scratch.log"
