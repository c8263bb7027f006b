#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Verbs programs see mrc0 whatever the link order and however they are
# loaded. mrc_rc (075's RC-style transfer) is linked `-libverbs -lmrc`,
# in that order, against libmrc.so, and moves 1 MiB byte-exact from h1
# to h2; then the same source built as a plugin (linked `-libverbs -lmrc`)
# is dlopen'd with RTLD_NOW by a host that linked and called the system
# libibverbs first (which lists no device: no RDMA subsystem here), and
# moves the same 1 MiB. On h1, a plain RC QP on mrc0 (verbs_loopback,
# `-libverbs -lmrc` too) WRITEs to and READs from a peer QP and itself,
# every byte checked.
#
#   h1: mrcd, mrc_rc / plugin_host+plugin ---plane 0..1---> h2: mrcd,
#       verbs_loopback (WRITE, READ in h1)                  mrc_rc server
. "$(dirname "$0")/lib.sh"
require_root
for c in "${CC:-cc}" readelf; do
	command -v "$c" >/dev/null || skip "needs $c"
done
[ -f /usr/include/infiniband/verbs.h ] || skip "needs libibverbs-dev"
[ -f "$TOP/build/libmrc.so.2" ] || fail "build/libmrc.so.2 missing: run make"

# libmrc.so where nobody reaches it, named as -lmrc finds it.
chmod 0755 "$TMP"
mkdir -p "$TMP/lib"
cp "$TOP/build/libmrc.so.2" "$TMP/lib/"
ln -sf libmrc.so.2 "$TMP/lib/libmrc.so"
CFL=(-Wall -Wextra -Werror -I"$TOP/include")
# shellcheck disable=SC2054 # -Wl,-rpath,DIR is one argument
LNK=(-L"$TMP/lib" -libverbs -lmrc -Wl,-rpath,"$TMP/lib")
cc_or_fail() {
	local out=$1
	shift
	"${CC:-cc}" "${CFL[@]}" -o "$TMP/$out" "$@" 2>"$TMP/$out.cc" ||
		fail "$out: $(cat "$TMP/$out.cc")"
}
cc_or_fail rc-linked "$TOP/tests/tools/mrc_rc.c" "${LNK[@]}"
cc_or_fail rc-plugin.so -shared -fPIC -Dmain=mrc_rc_main "$TOP/tests/tools/mrc_rc.c" "${LNK[@]}"
cc_or_fail plugin_host "$TOP/tests/tools/plugin_host.c" -Wl,--no-as-needed -libverbs -ldl
cc_or_fail verbs_loopback "$TOP/tests/tools/verbs_loopback.c" "${LNK[@]}"
# The order is the point: libibverbs is needed before libmrc.
for b in rc-linked rc-plugin.so verbs_loopback; do
	order=$(readelf -d "$TMP/$b" | sed -n 's/.*Shared library: \[\(libibverbs\|libmrc\)\.so.*/\1/p' | paste -sd' ')
	[ "$order" = "libibverbs libmrc" ] || fail "$b: NEEDED order is '$order', not 'libibverbs libmrc'"
done
readelf -d "$TMP/plugin_host" | grep -q 'libibverbs' || fail "plugin_host does not link libibverbs"
readelf -d "$TMP/plugin_host" | grep -q 'libmrc' && fail "plugin_host links libmrc"
log "built -libverbs -lmrc: mrc_rc, mrc_rc as a plugin, verbs_loopback; plugin_host links libibverbs only"
# Every verbs call libmrc.so exports is one it rebinds (lib/verbs_names.c).
for f in $(nm -D --defined-only "$TOP/build/libmrc.so.2" | awk '$2 == "T" && $3 ~ /^_?ibv_/ { print $3 }'); do
	grep -q "X($f)" "$TOP/lib/verbs_names.c" || fail "libmrc exports $f, which lib/verbs_names.c does not rebind"
done

tb up --hosts 2 --planes 2 --spines 2 >/dev/null
mrcd_spawn h1
mrcd_spawn h2
mrcd_ready h1 h2
server=$(tb addr h2 0)

# transfer NAME TCP_PORT CLIENT...: mrc_rc server in h2 (linked build),
# CLIENT in h1, both as nobody.
transfer() {
	local name=$1 port=$2 rc=0
	shift 2
	PIDNAME=$name.srv as_nobody h2 "$TMP/rc-linked" -d mrc0 -p "$port" >"$TMP/$name.srv" 2>&1 &
	as_nobody h1 "$@" -d mrc0 -g 3 -p "$port" "$server" >"$TMP/$name.cli" 2>&1 || rc=$?
	wait $! || rc=$((rc + 100))
	[ $rc = 0 ] || fail "$name: exit $rc: client: $(cat "$TMP/$name.cli") server: $(cat "$TMP/$name.srv")"
	grep -q "received 1048576 bytes: 0 wrong, byte-exact" "$TMP/$name.srv" ||
		fail "$name: server: $(cat "$TMP/$name.srv")"
	grep -q "server says Y" "$TMP/$name.cli" || fail "$name: client: $(cat "$TMP/$name.cli")"
	log "$name: $(grep -v '^plugin_host' "$TMP/$name.cli" | head -1); $(tail -1 "$TMP/$name.srv")"
}
# The control: without the rebinding the calls reach the system
# libibverbs, which has no mrc0.
rc=0
as_nobody h1 env MRC_BIND=0 "$TMP/rc-linked" -d mrc0 -p 18700 "$server" >"$TMP/control.out" 2>&1 || rc=$?
# (No server listens on its port: finding mrc0 would fail later, at connect.)
if [ $rc = 0 ] || ! grep -Eq "mrc_rc: (ibv_get_device_list|mrc0): " "$TMP/control.out"; then
	fail "MRC_BIND=0: mrc_rc found mrc0 without the rebinding (exit $rc): $(cat "$TMP/control.out")"
fi
log "control, MRC_BIND=0: $(cat "$TMP/control.out")"
transfer linked 18701 "$TMP/rc-linked"
transfer plugin 18702 "$TMP/plugin_host" "$TMP/rc-plugin.so" mrc_rc_main
grep -q "plugin_host: libibverbs lists 0 device(s)" "$TMP/plugin.cli" ||
	fail "plugin_host: the system libibverbs listed devices here: $(cat "$TMP/plugin.cli")"

rc=0
as_nobody h1 "$TMP/verbs_loopback" -d mrc0 >"$TMP/loop.out" 2>&1 || rc=$?
[ $rc = 0 ] || fail "verbs_loopback: exit $rc: $(cat "$TMP/loop.out")"
for t in "WRITE qp->peer" "READ qp<-peer" "READ qp<-itself"; do
	grep -qF "$t 1048576 bytes: 0 wrong, byte-exact" "$TMP/loop.out" ||
		fail "verbs_loopback: $t: $(cat "$TMP/loop.out")"
done
log "loopback RC QP on mrc0: $(paste -sd';' "$TMP/loop.out")"
