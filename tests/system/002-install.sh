#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make install into a scratch DESTDIR (deploy/install.mk): every file where
# it belongs with its mode and nothing else; a program built with
# pkg-config's flags for libmrc against the installed headers links with the
# installed shared and static library and runs; the installed unit passes
# systemd-analyze verify, its man pages included; an admin's mrcd.conf
# survives; make uninstall leaves no file behind. No namespaces, no root.
#
#   make install DESTDIR=$TMP/root --> files, modes --> cc $(pkg-config libmrc)
#        --> systemd-analyze verify --> make uninstall --> find -type f: none
# shellcheck source=tests/system/lib.sh
. "$(dirname "$0")/lib.sh"

for c in make pkg-config readelf systemd-analyze "${CC:-cc}"; do
	command -v "$c" >/dev/null || skip "needs $c"
done

# The sub-make must not inherit the calling make's jobserver or flags.
unset MAKEFLAGS MFLAGS MAKELEVEL
mk() { make -C "$TOP" --no-print-directory "$@" >"$TMP/make.log" 2>&1 || fail "make $*: $(tail -20 "$TMP/make.log")"; }

DEST=$TMP/root
P=usr/local
MA=$("${CC:-cc}" -dumpmachine)
LIB=$P/lib/$MA

# An admin's configuration, which install and uninstall must not touch.
mkdir -p "$DEST/etc/mrc"
echo "# the admin's" >"$DEST/etc/mrc/mrcd.conf"

mk install DESTDIR="$DEST" PREFIX=/usr/local
log "make install DESTDIR=\$TMP/root PREFIX=/usr/local"

# MODE PATH, relative to DESTDIR; libmrc.so is checked as a symlink.
expected=(
	"755 $P/sbin/mrcd"
	"755 $P/bin/mrcctl"
	"755 $P/bin/mrc-perf"
	"755 $LIB/libmrc.so.2"
	"644 $LIB/libmrc.a"
	"644 $LIB/pkgconfig/libmrc.pc"
	"644 $P/lib/systemd/system/mrcd.service"
	"644 etc/mrc/mrcd.conf.example"
	"644 $P/share/man/man8/mrcd.8.gz"
	"644 $P/share/man/man8/mrcctl.8.gz"
	"644 $P/share/man/man5/mrcd.conf.5.gz"
	"644 $P/share/bash-completion/completions/mrcctl"
	# Wireshark's own folder whatever the PREFIX (deploy/install.mk)
	"644 usr/lib/$MA/wireshark/plugins/mrc.lua"
)
# The public API only: nothing of include/mrc/ (tests/lint/headers.sh
# compiles each alone).
for h in mrc.h mrc_api_ver.h mrc_ctl.h mrc_ctl_api_ver.h mrc_ext.h; do
	expected+=("644 $P/include/$h")
done
for t in testbed fabricctl flowgen fabgen mrc_xfer mrc_api_check mptcp_bulk ctl_e2e; do
	expected+=("755 $P/libexec/mrc/$t")
done
for e in "${expected[@]}"; do
	mode=${e%% *} f=${e#* }
	[ -f "$DEST/$f" ] || fail "not installed: $f"
	[ "$(stat -c %a "$DEST/$f")" = "$mode" ] ||
		fail "$f: mode $(stat -c %a "$DEST/$f"), expected $mode"
done
[ "$(readlink "$DEST/$LIB/libmrc.so")" = libmrc.so.2 ] || fail "$LIB/libmrc.so is not a symlink to libmrc.so.2"
readelf -d "$DEST/$LIB/libmrc.so.2" | grep -q 'SONAME.*\[libmrc\.so\.2\]' || fail "libmrc.so.2 has no soname libmrc.so.2"
(cd "$DEST" && find . \( -type f -o -type l \) ! -name mrcd.conf | sed 's|^\./||' | sort) >"$TMP/got"
printf '%s\n' "${expected[@]#* }" "$LIB/libmrc.so" | sort >"$TMP/want"
diff -u "$TMP/want" "$TMP/got" >"$TMP/diff" || fail "installed files differ from the list: $(cat "$TMP/diff")"
[ "$(cat "$DEST/etc/mrc/mrcd.conf")" = "# the admin's" ] || fail "install changed /etc/mrc/mrcd.conf"
log "${#expected[@]} files and the libmrc.so symlink, modes right, nothing else; soname libmrc.so.2; /etc/mrc/mrcd.conf untouched"

# The dissector is where the installed tshark looks for Lua plugins.
if command -v tshark >/dev/null; then
	lua=$(tshark -G folders 2>/dev/null | sed -n 's/^Global Lua Plugins:[[:space:]]*//p')
	[ "$lua" = "/usr/lib/$MA/wireshark/plugins" ] ||
		fail "tshark loads global Lua plugins from '$lua', make install puts mrc.lua in /usr/lib/$MA/wireshark/plugins"
	log "mrc.lua in tshark's Global Lua Plugins folder, $lua"
fi

# pkg-config from the installed tree: flags, then a program using the three
# public headers, linked against the shared and then the static library.
export PKG_CONFIG_PATH=$DEST/$LIB/pkgconfig PKG_CONFIG_SYSROOT_DIR=$DEST PKG_CONFIG_LIBDIR=
pkg-config --validate libmrc || fail "libmrc.pc does not validate"
cflags=$(pkg-config --cflags libmrc)
libs=$(pkg-config --libs libmrc)
slibs=$(pkg-config --static --libs libmrc)
log "pkg-config libmrc $(pkg-config --modversion libmrc): ${cflags//$DEST/\$DESTDIR} ${libs//$DEST/\$DESTDIR} (--static: ${slibs##*-lmrc })"
case " $libs $slibs " in *" -libverbs "*) fail "libmrc.pc links -libverbs: libmrc replaces it" ;; esac
cat >"$TMP/t.c" <<'EOF'
#include <stdio.h>
#include <mrc.h>
#include <mrc_ctl.h>
#include <mrc_ext.h>

int main(void)
{
	uint32_t cur = 0, last = 0, vendor = 0, vendor_last = 0;

	mrc_ctl_query_version(&cur, &last, &vendor, &vendor_last);
	printf("controller API %#x, last supported %#x\n", cur, last);
	return cur == 0;
}
EOF
# shellcheck disable=SC2086 # word splitting of pkg-config's flags is wanted
"${CC:-cc}" -Wall -Wextra -Werror $cflags -o "$TMP/t-shared" "$TMP/t.c" $libs 2>"$TMP/cc.err" ||
	fail "shared link: $(cat "$TMP/cc.err")"
readelf -d "$TMP/t-shared" | grep -q 'NEEDED.*\[libmrc\.so\.2\]' || fail "t-shared does not need libmrc.so.2"
out=$(LD_LIBRARY_PATH=$DEST/$LIB "$TMP/t-shared") || fail "t-shared failed: $out"
log "shared: compiles with -Wall -Wextra -Werror, needs libmrc.so.2, runs: $out"
# shellcheck disable=SC2086
"${CC:-cc}" -Wall -Wextra -Werror $cflags -o "$TMP/t-static" "$TMP/t.c" \
	${slibs/-lmrc/-Wl,-Bstatic -lmrc -Wl,-Bdynamic} 2>"$TMP/cc.err" ||
	fail "static link: $(cat "$TMP/cc.err")"
! readelf -d "$TMP/t-static" | grep -q 'NEEDED.*libmrc' || fail "t-static still needs libmrc.so"
out=$("$TMP/t-static") || fail "t-static failed: $out"
log "static: links libmrc.a (no libmrc NEEDED), runs: $out"

# systemd-analyze verify wants ExecStart= to exist: verify a copy naming the
# DESTDIR's mrcd (--root= would need sysinit.target and /bin/kill in the
# root too), with MANPATH at the DESTDIR for Documentation=.
unit=$DEST/$P/lib/systemd/system/mrcd.service
grep -qx 'ExecStart=/usr/local/sbin/mrcd -c /etc/mrc/mrcd.conf' "$unit" || fail "unit: $(grep ExecStart= "$unit")"
mkdir -p "$TMP/unit"
sed "s|^ExecStart=/|ExecStart=$DEST/|" "$unit" >"$TMP/unit/mrcd.service"
MANPATH=$DEST/$P/share/man systemd-analyze verify "$TMP/unit/mrcd.service" >"$TMP/verify" 2>&1 ||
	fail "systemd-analyze verify: $(cat "$TMP/verify")"
[ ! -s "$TMP/verify" ] || fail "systemd-analyze verify warns: $(cat "$TMP/verify")"
log "systemd-analyze verify mrcd.service: clean (ExecStart, man:mrcd(8), man:mrcd.conf(5), man:mrcctl(8) found); $(systemd-analyze security --offline=true --no-pager "$TMP/unit/mrcd.service" 2>/dev/null | grep -o 'exposure level.*' || true)"

mk uninstall DESTDIR="$DEST" PREFIX=/usr/local
[ "$(cat "$DEST/etc/mrc/mrcd.conf" 2>/dev/null)" = "# the admin's" ] || fail "uninstall removed or changed /etc/mrc/mrcd.conf"
rm "$DEST/etc/mrc/mrcd.conf"
left=$(find "$DEST" ! -type d)
[ -z "$left" ] || fail "make uninstall left: $left"
[ ! -d "$DEST/$P/libexec/mrc" ] || fail "make uninstall left $P/libexec/mrc"
log "make uninstall: no file left, libexec/mrc removed, /etc/mrc/mrcd.conf kept"

# PREFIX=/usr: the unit goes where Debian's systemd.pc says and names
# /usr/sbin/mrcd; libmrc.pc names /usr.
mk install DESTDIR="$DEST" PREFIX=/usr
grep -qx 'ExecStart=/usr/sbin/mrcd -c /etc/mrc/mrcd.conf' "$DEST/lib/systemd/system/mrcd.service" ||
	fail "PREFIX=/usr: no /lib/systemd/system/mrcd.service naming /usr/sbin/mrcd"
grep -qx 'prefix=/usr' "$DEST/usr/lib/$MA/pkgconfig/libmrc.pc" || fail "PREFIX=/usr: libmrc.pc prefix"
mk uninstall DESTDIR="$DEST" PREFIX=/usr
left=$(find "$DEST" ! -type d)
[ -z "$left" ] || fail "make uninstall PREFIX=/usr left: $left"
log "PREFIX=/usr: /lib/systemd/system/mrcd.service runs /usr/sbin/mrcd, libmrc.pc prefix=/usr, uninstall leaves no file"
