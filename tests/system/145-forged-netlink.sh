#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Link state comes from the kernel alone (docs/security.md). Netlink lets
# a process unicast to another socket's port id: for NETLINK_ROUTE the
# kernel refuses it without CAP_NET_ADMIN (nobody gets EPERM), and mrcd
# ignores what a process that has it sends (source port id not 0): root
# in h1 sends mrcd's rtnetlink socket RTM_NEWLINK "down" and RTM_DELLINK
# for port p0. Believed, they would take every EV of p0 out of use. mrcd
# must ignore them (and say so), and still follow the kernel's word when
# p0 really goes down and up.
. "$(dirname "$0")/lib.sh"
require_root

tb up --hosts 2 --planes 2 --spines 1 >/dev/null
mrcd_start h1 -v
PID=$(cat "$TMP/h1.mrcd.pid")
FORGE=$TOP/build/tests/nl_forge
LOG=$TMP/h1.mrcd.log

# logged PATTERN: waits up to 3 s for mrcd to log PATTERN; 1 if it did not.
logged() {
	local _
	for _ in $(seq 60); do
		grep -q -e "$1" "$LOG" && return 0
		sleep 0.05
	done
	return 1
}

# mrcd's rtnetlink socket: its port id, from the netns' netlink table
# (sk Eth Pid Groups ... Inode), the line whose inode is one of mrcd's
# sockets and whose protocol is NETLINK_ROUTE (0).
inodes=$(find "/proc/$PID/fd" -lname 'socket:*' -printf '%l\n' | tr -dc '0-9\n')
portid=$(tb exec h1 cat /proc/net/netlink | awk -v list="$inodes" '
	BEGIN { n = split(list, a, "\n"); for (i = 1; i <= n; i++) want[a[i]] = 1 }
	NR > 1 && $2 == 0 && ($NF in want) { print $3; exit }')
[ -n "$portid" ] || fail "mrcd's rtnetlink socket not found in h1's netlink table"
ifindex=$(tb exec h1 cat /sys/class/net/p0/ifindex)

as_nobody h1 "$FORGE" --portid "$portid" --ifindex "$ifindex" >"$TMP/nobody.out" 2>&1 &&
	fail "nobody sent a netlink message to mrcd's socket: $(cat "$TMP/nobody.out")"
grep -q "Operation not permitted" "$TMP/nobody.out" ||
	fail "nobody's forged message failed, but not with EPERM: $(cat "$TMP/nobody.out")"
tb exec h1 "$FORGE" --portid "$portid" --ifindex "$ifindex" --count 10 >/dev/null ||
	fail "root could not send to mrcd's rtnetlink socket"
tb exec h1 "$FORGE" --portid "$portid" --ifindex "$ifindex" --del --count 10 >/dev/null ||
	fail "root could not send to mrcd's rtnetlink socket"
logged "not from the kernel" || true
grep -q "port p0 (plane 0) down" "$LOG" &&
	fail "forged rtnetlink messages took p0 down: $(grep -e "port p0" "$LOG")"
grep -q "rtnetlink: ignored 1 messages not from the kernel" "$LOG" ||
	fail "mrcd did not say it ignored the forged messages: $(cat "$LOG")"
log "nobody refused by the kernel (EPERM); 20 forged link messages from root ignored, p0 untouched"

# The kernel's own word still counts.
tb exec h1 ip link set p0 down
logged "port p0 (plane 0) down" || fail "p0 really down, and mrcd did not see it"
tb exec h1 ip link set p0 up
logged "port p0 (plane 0) up" || fail "p0 really up again, and mrcd did not see it"
log "the kernel's p0 down and up still followed"
