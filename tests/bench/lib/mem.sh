# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Kernel memory of BPF maps, as bpftool reports it (bytes_memlock: what
# the kernel charges for each map). This bpftool cannot say which process
# holds a map, so a device's share is a difference: the machine's total
# before and after its mrcd starts.

# maps_bytes: every BPF map's bytes on the machine, summed.
maps_bytes() { bpftool map show -j | jq '[.[].bytes_memlock] | add // 0'; }

# maps_by_name NAME: "MAPS BYTES" of the maps called NAME.
maps_by_name() {
	bpftool map show -j | jq -r --arg n "$1" \
		'[.[] | select(.name == $n)] | "\(length) \(map(.bytes_memlock) | add // 0)"'
}
