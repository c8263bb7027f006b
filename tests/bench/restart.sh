#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What a restart of mrcd costs a running transfer: mrc-perf through mrcd
# (64 KiB WRITEs, each completion timed, 4 planes), and 1 s into a 5 s run
# mrcd is restarted, one way per row, REPS times each:
#   - sender, SIGTERM then a start (systemctl restart: a hand-over);
#   - sender, SIGKILL then a start;
#   - receiver, SIGKILL then a start;
#   - no restart, for the gaps this machine makes anyway.
# Figures, medians and worsts: the longest stretch with nothing completed
# from the restart command's start to 3 s later (as polled, and by the
# data path's completion timestamps), how long the command
# took (stop, start, takeover, until the new mrcd serves), the CPU the
# new mrcd spent until it served (its user + system time then), and the
# run's goodput beside the CPU the whole machine spent during the run
# (busy time of all CPUs, /proc/stat). The data path keeps receiving, placing and acknowledging while
# no mrcd runs; the sender's pump is what stops. ONLY=NAME ONLY_ARGS="h1
# KILL" runs one kind alone (NAME.N.json in the kept TMP, KEEP_TMP=1).
# MRCD_ARGS="-v" adds to the restarted mrcds' arguments (-v: the time of
# each start step in HOST.mrcd.log).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${BENCH_OUT:-$TOP/build/bench}
REPS=${REPS:-5}
export TB_PREFIX=mrcr$$
. "$TOP/tests/system/lib.sh"
mkdir -p "$OUT"
tb up --hosts 2 --planes 4 --spines 4 --mtu 3000 >/dev/null
require_xdp_fabric
chmod 0755 "$TMP"
mrcd_spawn h1
mrcd_spawn h2
mrcd_ready h1 h2
disown -a

# $TMP/restart HOST SIGNAL: what the --at command runs (from inside h1,
# as root). Stops HOST's mrcd, starts another and returns once it serves.
for h in h1 h2; do
	# shellcheck disable=SC2046
	echo "$TOP/build/daemon/mrcd" $(mrcd_ports $h) -a anc0 -s "$TMP/$h.sock" \
		-P "$(mrcd_pin_dir $h)" ${MRCD_ARGS:-} >"$TMP/$h.argv" # no blanks in any of them
done
# Between the signal and the new mrcd's exec it forks nothing: on this
# machine a fork and exec of a small tool takes 3-7 ms under the
# transfer (docs/mrcd.md, "What it costs"), and the old script's rm,
# cat, grep and sleep put 30-45 ms of its own into the gap. A service
# manager execs on the child's exit; this does the same with builtins:
# the pid and the arguments read with read, the wait polled every 0.2 ms
# with read -t on a FIFO nobody writes, nsenter exec'ing mrcd with no
# shell between. mrcd removes a stale socket itself before it binds.
# Until the new mrcd is ready it forks nothing either: its log is read
# as it grows (until 2026-12-07 a grep a millisecond, on the CPUs the
# new mrcd and the application need).
mkfifo "$TMP/never"
cat >"$TMP/restart" <<EOF
#!/bin/bash
set -e
h=\$1 pidf=$TMP/\$1.mrcd.pid log=$TMP/\$1.mrcd.log
read -r pid <"\$pidf"
read -r -a argv <"$TMP/\$h.argv"
exec 9<>"$TMP/never"
kill -"\$2" "\$pid"
# Gone, or a zombie with no thread left (its files are closed then; a
# zombie leader whose other threads still exit holds them, and the socket's
# lock): its reaper may be slow. Builtins only from here to "ready": a
# fork a millisecond (grep, cat) took the CPUs the restart is measured on.
shopt -s nullglob
while [ -e /proc/\$pid ]; do
	st=
	while read -r k v _; do
		[ "\$k" = State: ] && { st=\$v; break; }
	done 2>/dev/null </proc/\$pid/status || true
	tasks=(/proc/\$pid/task/*)
	[ "\$st" = Z ] && [ \${#tasks[@]} -le 1 ] && break
	read -r -t 0.0002 -u 9 _ || true
done
# The log from its end on: the new mrcd's lines, read as they come.
exec 8<"\$log"
while read -r -u 8 _; do :; done
# nsenter execs mrcd in its own process (no --fork): \$! is mrcd's pid.
nsenter --net="/run/netns/$TB_PREFIX-\$h" "\${argv[@]}" >>"\$log" 2>&1 &
new=\$!
echo \$new >"\$pidf"
part=
while :; do
	if IFS= read -r -u 8 line; then
		line=\$part\$line part=
		[[ \$line == "mrcd: ready"* ]] && break
		continue
	fi
	part=\$part\$line # a line not yet ended
	[ -e /proc/\$new ] || { echo "restart: the new mrcd ended: \$part" >&2; exit 1; }
	read -r -t 0.001 -u 9 _ || true
done
# The new mrcd's CPU until it serves, in ns (schedstat: time on a CPU;
# /proc/PID/stat counts 10 ms ticks).
read -r ready_ns _ </proc/\$new/schedstat
echo "\$ready_ns" >"$TMP/ready_cpu_ns"
EOF
chmod +x "$TMP/restart"

HZ=$(getconf CLK_TCK)
busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $6 + $7 + $8 }' /proc/stat; }

# run NAME CMD: NAME.json (mrc-perf's) and NAME.cpu (the machine's CPU
# seconds over the run, the new mrcd's CPU ms until it served or null).
run() {
	local c0 c1 ready=null
	rm -f "$TMP/ready_cpu_ns"
	as_nobody h2 "$PERF" server --wait 60 >/dev/null 2>&1 &
	local srv=$!
	c0=$(busy_ticks)
	nsenter --net="/run/netns/$TB_PREFIX-h1" env MRC_SOCKET="$TMP/h1.sock" \
		"$PERF" client "$(tb addr h2 0)" --wait 10 -j --test bw -s 64K -D 5 \
		--at "1000:$2" --at "4000:true" >"$TMP/$1.json"
	c1=$(busy_ticks)
	wait $srv || true
	jq -e '.failover.at[0].status == 0' "$TMP/$1.json" >/dev/null || {
		echo "restart: $1: the restart failed: $(tail -3 "$TMP/h1.mrcd.log" "$TMP/h2.mrcd.log")" >&2
		exit 1
	}
	[ -s "$TMP/ready_cpu_ns" ] && ready=$(cat "$TMP/ready_cpu_ns")
	jq -n --argjson t $((c1 - c0)) --argjson hz "$HZ" --argjson r "$ready" \
		'{ cpu_s: ($t / $hz), ready_cpu_ms: (if $r then ($r / 1000 | floor) / 1000 else null end) }' \
		>"$TMP/$1.cpu"
}

for ((i = 1; i <= REPS; i++)); do
	[ -n "${ONLY:-}" ] && { run "$ONLY.$i" "$TMP/restart ${ONLY_ARGS:-h1 TERM}"; continue; }
	run term.$i "$TMP/restart h1 TERM"
	run kill.$i "$TMP/restart h1 KILL"
	run rkill.$i "$TMP/restart h2 KILL"
	run calm.$i true
done
# One kind alone: its runs' JSON stays in the kept TMP, no summary.
[ -n "${ONLY:-}" ] && { echo "restart: $ONLY runs in $TMP" >&2; exit 0; }
grep -q "took over the running device" "$TMP/h1.mrcd.log" || { echo "restart: no takeover in h1" >&2; exit 1; }
# What the sender's data path did with no mrcd to pump (abi.h, struct
# mrc_pump): the exits its hook saw, the packets ACKs sent meanwhile.
exits_seen=$(dp_counter h1 mrcd_exits_seen)
clocked_no_mrcd=$(dp_counter h1 tx_ack_clocked_no_mrcd)

for k in term kill rkill calm; do
	for f in "$TMP"/"$k".*.json; do
		jq -s '.[0] + { cpu: .[1] }' "$f" "${f%.json}.cpu"
	done | jq -s '[.[] | { gap: .failover.longest_gap_from_cmd_start_ms,
		gap_ts: .failover.longest_gap_from_cmd_start_by_completion_ts_ms, took: .failover.at[0].took_ms,
		gbit: .results[0].gbit_per_s, cpu_s: .cpu.cpu_s,
		ready_cpu_ms: .cpu.ready_cpu_ms }]' >"$TMP/$k.all"
done
jq -n --slurpfile a "$TMP/term.all" --slurpfile b "$TMP/kill.all" \
	--slurpfile c "$TMP/rkill.all" --slurpfile d "$TMP/calm.all" \
	--argjson exits "$exits_seen" --argjson clocked "$clocked_no_mrcd" '
	def med: map(select(. != null)) | sort |
		if length == 0 then null else .[(length - 1) / 2 | floor] end;
	def stats(f): [.[] | f] | { median: med, worst: max };
	def low(f): [.[] | f] | { median: med, worst: min };
	def row: { longest_gap_ms: stats(.gap),
		   longest_gap_by_completion_ts_ms: stats(.gap_ts), restart_cmd_ms: stats(.took),
		   gbit_per_s: low(.gbit), cpu_s: stats(.cpu_s),
		   new_mrcd_cpu_until_ready_ms: stats(.ready_cpu_ms) };
	{ reps: ($a[0] | length), sender_sigterm: ($a[0] | row), sender_sigkill: ($b[0] | row),
	  receiver_sigkill: ($c[0] | row), no_restart: ($d[0] | row),
	  sender_mrcd_exits_seen: $exits, sender_packets_clocked_no_mrcd: $clocked }' >"$OUT/restart.json"
jq -r '
	def r(x): "\(x.longest_gap_ms.median) / \(x.longest_gap_ms.worst)\t\(x.longest_gap_by_completion_ts_ms.median) / \(x.longest_gap_by_completion_ts_ms.worst)\t\(x.restart_cmd_ms.median // "-") / \(x.restart_cmd_ms.worst // "-")\t\(x.new_mrcd_cpu_until_ready_ms.median // "-") / \(x.new_mrcd_cpu_until_ready_ms.worst // "-")\t\(x.gbit_per_s.median) / \(x.gbit_per_s.worst)\t\(x.cpu_s.median) / \(x.cpu_s.worst)";
	"mrcd restarted 1 s into a 5 s bulk transfer, \(.reps) runs each (median / worst):",
	"                      longest gap ms   by completion ts ms   restart took ms   its CPU ms   Gbit/s   machine CPU s",
	"  sender, SIGTERM     \(r(.sender_sigterm))",
	"  sender, SIGKILL     \(r(.sender_sigkill))",
	"  receiver, SIGKILL   \(r(.receiver_sigkill))",
	"  no restart          \(r(.no_restart))",
	"  sender: \(.sender_mrcd_exits_seen) mrcd exits seen by the data path (SIGTERM stops too), \(.sender_packets_clocked_no_mrcd) packets sent by ACKs with no mrcd",
	"  (JSON: '"$OUT"'/restart.json)"' "$OUT/restart.json"
