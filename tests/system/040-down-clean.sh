#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `down` leaves nothing behind: no namespace, no link in the caller's
# namespace, no bpffs pin, no process, no state. A failed `up` cleans up
# after itself too.
# shellcheck source=tests/system/lib.sh
. "$(dirname "$0")/lib.sh"
require_root

links_before=$(ip -o link show | wc -l)
procs_before=$(ps -e -o comm= | grep -c fabricctl || true)

tb up --hosts 2 --planes 2 --spines 2 >/dev/null
[ "$(ip netns list | grep -c "^$TB_PREFIX-")" -eq 2 ] || true
nns=$(ip netns list | grep -c "^$TB_PREFIX-")
[ "$nns" -eq $((2 + 2 * (2 + 2))) ] || fail "expected 10 namespaces, found $nns"
[ -d "/sys/fs/bpf/$TB_PREFIX" ] || fail "no pins under /sys/fs/bpf/$TB_PREFIX"
tb down

check_clean() {
	local what=$1
	[ "$(ip netns list | grep -c "^$TB_PREFIX-" || true)" -eq 0 ] || fail "$what: namespaces left"
	[ ! -e "/sys/fs/bpf/$TB_PREFIX" ] || fail "$what: pins left"
	[ ! -e "/run/$TB_PREFIX" ] || fail "$what: state left"
	[ "$(ip -o link show | wc -l)" -eq "$links_before" ] || fail "$what: links left in the root namespace"
	[ "$(ps -e -o comm= | grep -c fabricctl || true)" -eq "$procs_before" ] || fail "$what: processes left"
}
check_clean "after down"

# A failed up (a missing fabricctl here) leaves nothing either.
if FABRICCTL=/nonexistent tb up --planes 1 --spines 1 >/dev/null 2>&1; then
	fail "up succeeded without fabricctl"
fi
check_clean "after a failed up"
# ...and neither does one that fails half way (attach into a vanished node).
FABRICCTL=/bin/false tb up --planes 1 --spines 1 >/dev/null 2>&1 || true
tb down
check_clean "after a half-built up"
# down twice is harmless.
tb down
log "clean after down, failed up and repeated down"
