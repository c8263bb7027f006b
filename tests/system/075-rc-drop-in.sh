#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A program written for vendor MRC libraries, the RC way
# (tests/tools/mrc_rc.c: a small constant as API version, GID index 3,
# INIT/RTR/RTS with verbs attributes only, -d naming the device), built
# against the installed headers and library as API 1.0.1 (the default)
# and 1.0.0 (-DMRC_API_VER_USED), warning-free, moves 1 MiB byte-exact
# from h1 to h2 through both hosts' mrcd; under MRC_STRICT=1 the same
# program is refused at INIT, each non-portable use named on a line of
# its own. A plugin-style use of the headers (struct mrc_attr, the API
# version set only #ifdef MRC_API_VER_USED) compiles as C and C++.
#
#   make install DESTDIR --> cc $(pkg-config --static libmrc) mrc_rc.c x2
#
#   h1: mrcd, mrc_rc (client, nobody) ----plane 0..1----> h2: mrcd,
#       WRITE 1 MiB - 4 KiB, WRITE_IMM 4 KiB              mrc_rc (server,
#       <-------------- "Y": every byte right -----------  nobody) checks
. "$(dirname "$0")/lib.sh"
require_root
for c in make pkg-config "${CC:-cc}"; do
	command -v "$c" >/dev/null || skip "needs $c"
done

# The sub-make must not inherit the calling make's jobserver or flags.
unset MAKEFLAGS MFLAGS MAKELEVEL
DEST=$TMP/root
MA=$("${CC:-cc}" -dumpmachine)
make -C "$TOP" --no-print-directory install DESTDIR="$DEST" PREFIX=/usr/local >"$TMP/make.log" 2>&1 ||
	fail "make install: $(tail -20 "$TMP/make.log")"
export PKG_CONFIG_PATH=$DEST/usr/local/lib/$MA/pkgconfig PKG_CONFIG_SYSROOT_DIR=$DEST PKG_CONFIG_LIBDIR=
cflags=$(pkg-config --cflags libmrc)
slibs=$(pkg-config --static --libs libmrc)
# build NAME [cc flags]: mrc_rc against the installed tree, statically (it
# runs as nobody, who need not reach $DEST).
build() {
	local name=$1
	shift
	# shellcheck disable=SC2086 # word splitting of pkg-config's flags is wanted
	"${CC:-cc}" -Wall -Wextra -Werror $cflags "$@" -o "$TMP/$name" "$TOP/tests/tools/mrc_rc.c" \
		${slibs/-lmrc/-Wl,-Bstatic -lmrc -Wl,-Bdynamic} 2>"$TMP/$name.cc" ||
		fail "$name: $(cat "$TMP/$name.cc")"
	[ ! -s "$TMP/$name.cc" ] || fail "$name: the compiler said: $(cat "$TMP/$name.cc")"
}
build rc-101
build rc-100 '-DMRC_API_VER_USED=MRC_API_VER(1, 0, 0)'
build rc-latest -DMRC_API_VER_USED=MRC_API_VER_LATEST
log "mrc_rc built against the installed headers and libmrc.a, -Wall -Wextra -Werror: API 1.0.1 (default), 1.0.0, LATEST"

cat >"$TMP/plugin.c" <<'EOC'
#include <string.h>
#include <mrc.h>

int probe(struct ibv_context *v, struct mrc_context **m);

int probe(struct ibv_context *v, struct mrc_context **m)
{
	struct mrc_context_attr ca;
	struct mrc_attr attr;
	int supported = 0;

	if (mrc_query_device(v, &attr, &supported) || !supported)
		return -1;
	memset(&ca, 0, sizeof(ca));
#ifdef MRC_API_VER_USED
	ca.mrc_api_version_used = MRC_API_VER_USED;
#endif
	*m = mrc_create_context(v, &ca);
	return *m ? attr.mpr_attr.max_mpr : -1;
}
EOC
cp "$TMP/plugin.c" "$TMP/plugin.cc"
# shellcheck disable=SC2086
"${CC:-cc}" -Wall -Wextra -Werror $cflags -c -o "$TMP/plugin.o" "$TMP/plugin.c" 2>&1 ||
	fail "plugin-style C does not compile"
if command -v "${CXX:-c++}" >/dev/null; then
	# shellcheck disable=SC2086
	"${CXX:-c++}" -Wall -Wextra -Werror $cflags -c -o "$TMP/plugin-cc.o" "$TMP/plugin.cc" 2>&1 ||
		fail "plugin-style C++ does not compile"
	log "plugin-style use (struct mrc_attr, version #ifdef MRC_API_VER_USED) compiles as C and C++"
else
	log "plugin-style use compiles as C (no C++ compiler here)"
fi

tb up --hosts 2 --planes 2 --spines 2 >/dev/null
chmod 0755 "$TMP"
mrcd_spawn h1
mrcd_spawn h2
mrcd_ready h1 h2
server=$(tb addr h2 0)

# transfer NAME TCP_PORT [ARGS]: mrc_rc server in h2, client in h1, as
# nobody, both with ARGS. Each has 60 s: with -e a lost completion event
# would leave it asleep for good (exit 124).
transfer() {
	local name=$1 port=$2 rc=0
	shift 2
	PIDNAME=$name.srv as_nobody h2 timeout 60 "$TMP/$name" -d mrc0 -p "$port" "$@" >"$TMP/$name.srv" 2>&1 &
	as_nobody h1 timeout 60 "$TMP/$name" -d mrc0 -g 3 -p "$port" "$@" "$server" >"$TMP/$name.cli" 2>&1 || rc=$?
	wait $! || rc=$((rc + 1000))
	[ $rc = 0 ] || fail "$name: exit $rc (124: timed out, 1000 + the server's): client: $(cat "$TMP/$name.cli") server: $(cat "$TMP/$name.srv")"
	grep -q "received 1048576 bytes: 0 wrong, byte-exact" "$TMP/$name.srv" ||
		fail "$name: server: $(cat "$TMP/$name.srv")"
	grep -q "server says Y" "$TMP/$name.cli" || fail "$name: client: $(cat "$TMP/$name.cli")"
	! grep -q "libmrc\[" "$TMP/$name.cli" "$TMP/$name.srv" ||
		fail "$name: libmrc complained: $(grep -h "libmrc\[" "$TMP/$name.cli" "$TMP/$name.srv")"
	log "$name: $(head -1 "$TMP/$name.cli"); $(tail -1 "$TMP/$name.srv")"
}
transfer rc-101 18601
grep -q "gid index 3, RoCE v2" "$TMP/rc-101.cli" || fail "rc-101: GID index 3 is no RoCE v2 GID: $(cat "$TMP/rc-101.cli")"
transfer rc-100 18602
transfer rc-latest 18603
# Event-driven: both sleep on a completion channel (mrc_req_notify_cq,
# mrc_get_cq_event) wherever a poll finds nothing.
transfer rc-101 18605 -e
grep -q "completion events" "$TMP/rc-101.srv" || fail "rc-101 -e: not event-driven: $(cat "$TMP/rc-101.srv")"

# Strict: refused at INIT, one line for each of the four uses there.
rc=0
as_nobody h1 env MRC_STRICT=1 "$TMP/rc-101" -d mrc0 -p 18604 "$server" >"$TMP/strict.out" 2>&1 || rc=$?
[ $rc != 0 ] || fail "MRC_STRICT=1: mrc_rc was not refused: $(cat "$TMP/strict.out")"
grep -q "mrc_rc: INIT: Invalid argument" "$TMP/strict.out" || fail "MRC_STRICT=1: not refused at INIT: $(cat "$TMP/strict.out")"
for use in IBV_QP_PORT MRC_QP_HINT MRC_EV_PROFILE_ID MRC_CC_PROFILE_ID; do
	[ "$(grep -c "^libmrc\[[0-9]*\]: QP [0-9]* RESET->INIT: $use: .*refused (MRC_STRICT=1)$" "$TMP/strict.out")" = 1 ] ||
		fail "MRC_STRICT=1: $use not named once: $(cat "$TMP/strict.out")"
done
[ "$(grep -c "RESET->INIT" "$TMP/strict.out")" = 4 ] || fail "MRC_STRICT=1: other uses named: $(cat "$TMP/strict.out")"
grep -q "mrc_api_version_used 0x1 is 0.0.1" "$TMP/strict.out" ||
	fail "MRC_STRICT=1: the small API version is not named: $(cat "$TMP/strict.out")"
log "MRC_STRICT=1: refused at INIT, named: $(grep -o 'RESET->INIT: [A-Z_]*' "$TMP/strict.out" | cut -d' ' -f2 | paste -sd' '), and the API version 0.0.1"
