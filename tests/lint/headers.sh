#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The installed headers are the public API and stand on their own (make
# lint runs this): make install-headers into a scratch DESTDIR installs
# exactly mrc.h, mrc_api_ver.h, mrc_ctl.h, mrc_ctl_api_ver.h and
# mrc_ext.h; each compiles alone, and tests/lint/public_api.c with all of
# them, with -Wall -Wextra -Werror and no include path but the scratch
# tree's; and no header of mrc's is read from anywhere else (a tree
# installed on this host must not make a missing header look present).
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
CC=${CC:-cc}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "headers: $*" >&2; exit 1; }

# The sub-make must not inherit the calling make's jobserver or flags.
unset MAKEFLAGS MFLAGS MAKELEVEL
make -C "$TOP" --no-print-directory install-headers DESTDIR="$TMP/root" \
	PREFIX=/usr >"$TMP/make.log" 2>&1 || fail "make install-headers: $(cat "$TMP/make.log")"
inc=$TMP/root/usr/include
want=(mrc.h mrc_api_ver.h mrc_ctl.h mrc_ctl_api_ver.h mrc_ext.h)
got=$(cd "$TMP/root" && find . ! -type d | sed 's|^\./usr/include/||' | sort)
[ "$got" = "$(printf '%s\n' "${want[@]}" | sort)" ] ||
	fail "installed: $(echo "$got" | tr '\n' ' '), expected: ${want[*]}"

# cc FILE: compiles it against the scratch tree; its dependencies named
# mrc* come from there only.
cc_public() {
	"$CC" -std=gnu11 -Wall -Wextra -Werror -I"$inc" -c "$1" -o "$TMP/o.o" \
		-MD -MF "$TMP/o.d" 2>"$TMP/cc.err" || fail "$2: $(cat "$TMP/cc.err")"
	stray=$(tr ' \\' '\n\n' <"$TMP/o.d" | grep -E '(^|/)mrc[^/]*(/|\.h$)' |
		grep -v "^$inc/" | grep -v "^$1$" || true)
	[ -z "$stray" ] || fail "$2 reads $stray, outside the installed tree"
}
for h in "${want[@]}"; do
	printf '#include <%s>\n' "$h" >"$TMP/one.c"
	cc_public "$TMP/one.c" "$h alone"
done
cp "$TOP/tests/lint/public_api.c" "$TMP/public_api.c"
cc_public "$TMP/public_api.c" public_api.c
