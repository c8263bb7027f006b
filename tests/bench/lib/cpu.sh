# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The machine's CPU beside a benchmark's figure. Every testbed host and
# every fabric node shares the same CPUs, so the figure is the machine's
# (/proc/stat: user, nice, system, irq, softirq), both ends together.

# cpu_busy_ns: the machine's busy CPU time so far, in ns.
cpu_busy_ns() {
	awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" {
		printf "%.0f\n", ($2 + $3 + $4 + $7 + $8) * 1e9 / hz; exit }' /proc/stat
}

# cpu_ns_since BUSY_NS: the machine's busy ns since cpu_busy_ns said BUSY_NS.
cpu_ns_since() { echo $(($(cpu_busy_ns) - $1)); }

# cpu_s_per_gb BUSY_NS BYTES: CPU seconds per 10^9 bytes moved.
cpu_s_per_gb() { jq -n --argjson b "$1" --argjson n "$2" 'if $n > 0 then ($b / 1e9) / ($n / 1e9) * 1000 | round / 1000 else null end'; }
