#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mrcctl's command line, with no mrcd and no root (no testbed):
#   1. 'mrcctl help' and 'mrcctl OBJECT help', the man page and the bash
#      completion name the same objects and, per object, the same commands
#      (each read mechanically: the "OBJECT := { ... }" line, each object's
#      "mrcctl OBJECT { ... }" summary line, the completion's arrays), and
#      every keyword the completion offers is in the help and the man page;
#   2. bad arguments exit 1 with one line naming the bad word, and with -j
#      print only {"error": ...} on stdout; a batch stops at its bad line
#      and names FILE:LINE;
#   3. a socket nobody listens on is a runtime error (exit 2) naming it.
# shellcheck source=tests/system/lib.sh
. "$(dirname "$0")/lib.sh"

MRCCTL=${MRCCTL:-$TOP/build/tools/mrcctl}
MAN=$TOP/deploy/mrcctl.8
COMP=$TOP/deploy/mrcctl.bash-completion
[ -x "$MRCCTL" ] || fail "missing $MRCCTL (run make)"
command -v jq >/dev/null || skip "needs jq"
# Whatever runs on this host, these commands must never reach an mrcd.
NOSOCK=$TMP/no-mrcd.sock
export MRC_SOCKET=$NOSOCK

# --- 1. the same objects and commands everywhere -----------------------------

# The single lowercase words of the "{ a | b | ... }" at the end of each
# input line, sorted, on one line ("[ count N ]" or "PROBE" are forms, not
# words).
brace_words() {
	sed -n 's/.*{ \(.*\) }$/\1/p' | tr '|' '\n' | sed 's/^ *//; s/ *$//' |
		grep -E '^[a-z][a-z0-9.-]*$' | sort -u | xargs
}

# The man page as text: font escapes dropped, \- as -.
MAN_TEXT=$(sed -e 's/\\f[BIRP]//g; s/\\-/-/g' "$MAN")

# shellcheck source=deploy/mrcctl.bash-completion
. "$COMP"
comp_words() {
	local ref="$1[*]"
	echo "${!ref-}" | tr ' ' '\n' | sort -u | xargs
}

help_objs=$("$MRCCTL" help | grep '^OBJECT := {' | brace_words)
man_objs=$(grep '^OBJECT := {' <<<"$MAN_TEXT" | brace_words)
comp_objs=$(comp_words _mrcctl_objects)
[ -n "$help_objs" ] || fail "'mrcctl help' has no 'OBJECT := { ... }' line"
[ "$help_objs" = "$man_objs" ] ||
	fail "objects: help has '$help_objs', the man page '$man_objs'"
[ "$help_objs" = "$comp_objs" ] ||
	fail "objects: help has '$help_objs', the completion '$comp_objs'"
log "objects in help, man page and completion: $help_objs"

for obj in $help_objs; do
	help_cmds=$("$MRCCTL" "$obj" help | sed 's/^Usage: //' |
		grep -E "^mrcctl $obj \{" | brace_words)
	man_cmds=$(grep -E "^mrcctl $obj \{" <<<"$MAN_TEXT" | brace_words)
	comp_cmds=$(comp_words "_mrcctl_cmds_${obj//-/_}")
	[[ " $help_cmds " == *" help "* ]] || fail "$obj: no help command in '$help_cmds'"
	[ "$help_cmds" = "$man_cmds" ] ||
		fail "$obj: 'mrcctl $obj help' has '$help_cmds', the man page '$man_cmds'"
	[ "$help_cmds" = "$comp_cmds" ] ||
		fail "$obj: 'mrcctl $obj help' has '$help_cmds', the completion '$comp_cmds'"
	log "$obj commands in help, man page and completion: $help_cmds"
done

all_help=$(for obj in $help_objs; do "$MRCCTL" "$obj" help; done)
n=0
for var in $(compgen -A variable _mrcctl_kw_) _mrcctl_flags; do
	for kw in $(comp_words "$var"); do
		grep -qw -- "$kw" <<<"$all_help" || fail "keyword '$kw' ($var) is in no 'mrcctl OBJECT help'"
		grep -qw -- "$kw" <<<"$MAN_TEXT" || fail "keyword '$kw' ($var) is not in the man page"
		n=$((n + 1))
	done
done
log "$n completion keywords all in the help texts and the man page"

# --- 2. bad arguments ---------------------------------------------------------

# expect_err RC WORD ARGS...: 'mrcctl ARGS' exits RC with one line on
# stderr naming WORD and nothing on stdout; 'mrcctl -j ARGS' exits RC with
# one JSON object on stdout whose .error names WORD, and nothing on stderr.
expect_err() {
	local want=$1 word=$2 rc=0
	shift 2
	"$MRCCTL" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" = "$want" ] || fail "mrcctl $*: exit $rc, want $want: $(cat "$TMP/err")"
	[ "$(wc -l <"$TMP/err")" = 1 ] || fail "mrcctl $*: not one line on stderr: $(cat "$TMP/err")"
	grep -qF -- "$word" "$TMP/err" || fail "mrcctl $*: the error does not name '$word': $(cat "$TMP/err")"
	[ ! -s "$TMP/out" ] || fail "mrcctl $*: output besides the error: $(cat "$TMP/out")"
	log "mrcctl $*: exit $rc, $(cat "$TMP/err")"
	rc=0
	"$MRCCTL" -j "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
	[ "$rc" = "$want" ] || fail "mrcctl -j $*: exit $rc, want $want"
	jq -e .error "$TMP/out" >/dev/null || fail "mrcctl -j $*: no JSON error: $(cat "$TMP/out")"
	[ "$(jq -s length "$TMP/out")" = 1 ] || fail "mrcctl -j $*: more than one document: $(cat "$TMP/out")"
	jq -e --arg w "$word" '.error | contains($w)' "$TMP/out" >/dev/null ||
		fail "mrcctl -j $*: the error does not name '$word': $(cat "$TMP/out")"
	jq -e '.command | type == "string"' "$TMP/out" >/dev/null ||
		fail "mrcctl -j $*: no command in the error: $(cat "$TMP/out")"
	[ ! -s "$TMP/err" ] || fail "mrcctl -j $*: stderr besides the JSON: $(cat "$TMP/err")"
}

expect_err 1 "unknown object 'bogus'" bogus show
expect_err 1 "ambiguous object 'ev-'" ev- show
expect_err 1 "ev-fmt, ev-profile" ev- show
expect_err 1 "unknown command 'frob'" port frob
expect_err 1 "ambiguous keyword 'm'" ev-profile set 1 m exp
expect_err 1 "missing value for 'mode'" ev-fmt set 1 mode
expect_err 1 "missing value for 'count'" probe dgid 198.18.0.2 ev 1 port 1 count
expect_err 1 "missing ID" ev-profile evs
expect_err 1 "'12x'" ev show qp 12x
expect_err 1 "'12x'" ev-profile show 12x
expect_err 1 "'0x'" cc-profile set 1 base-rtt 0x
expect_err 1 "'-1'" port show -1
expect_err 1 "'300'" port show 300
expect_err 1 "'1001'" probe dgid 198.18.0.2 ev 1 port 1 count 1001
expect_err 1 "'0.5x'" cc-profile set 1 eta 0.5x
expect_err 1 "'0'" cc-profile set 1 bdp 0
expect_err 1 "'bdp' given twice" cc-profile set 1 bdp 1000 bdp 2000
expect_err 1 "unknown state 'bogus'" ev-fmt set 1 state bogus
expect_err 1 "unknown state 'sleepy'" ev show state sleepy
expect_err 1 "unknown admin 'maybe'" port set 1 admin maybe
expect_err 1 "'198.18.0'" probe dgid 198.18.0 ev 1 port 1
expect_err 1 "'mode' given twice" ev-fmt set 1 mode udp mode stev
expect_err 1 "'ev-profile replace' needs 'with" ev-profile replace 1 ev 1 port 1
expect_err 1 "'field' needs 'width W'" ev-profile set 1 field init 3
expect_err 1 "unexpected 'extra'" dev show extra
expect_err 1 "unknown option" --bogus
expect_err 1 "'capture' needs '-w FILE'" capture dev lo
expect_err 1 "'capture' needs 'dev IFNAME'" capture -w "$TMP/x.pcap"
expect_err 1 "unknown class 'bogus'" capture dev lo -w "$TMP/x.pcap" class data,bogus
expect_err 1 "unknown dir 'up'" capture dev lo -w "$TMP/x.pcap" dir up
expect_err 2 "dev lo: no XDP program on it" capture dev lo -w "$TMP/x.pcap" dir out
expect_err 1 "'0' for 'count'" capture dev lo -w "$TMP/x.pcap" count 0
expect_err 1 "'99999' for 'snaplen'" capture dev lo -w "$TMP/x.pcap" snaplen 99999
expect_err 1 "'write' given twice" capture dev lo -w "$TMP/x.pcap" write "$TMP/y.pcap"
expect_err 2 "dev nosuch0: no such interface" capture dev nosuch0 -w "$TMP/x.pcap"
[ ! -e "$TMP/x.pcap" ] || fail "a refused capture created its file"

# A batch stops at its bad line (3), after running what came before.
cat >"$TMP/batch" <<'EOF'
port help   # a comment after the command

ev-fmt set 1 state nowhere
qp help
EOF
rc=0
"$MRCCTL" -b "$TMP/batch" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" = 1 ] || fail "batch: exit $rc, want 1: $(cat "$TMP/err")"
grep -qF "$TMP/batch:3: unknown state 'nowhere'" "$TMP/err" ||
	fail "batch: the error does not name $TMP/batch:3: $(cat "$TMP/err")"
grep -q '^Usage: mrcctl port ' "$TMP/out" || fail "batch: line 1 did not run"
! grep -q 'mrcctl qp' "$TMP/out" || fail "batch: went on after the bad line 3"
log "mrcctl -b FILE: exit 1, $(cat "$TMP/err")"
rc=0
"$MRCCTL" -j -b "$TMP/batch" >"$TMP/out" 2>"$TMP/err" || rc=$?
[ "$rc" = 1 ] || fail "batch -j: exit $rc, want 1"
jq -e -s --arg w "$TMP/batch:3:" '.[0] == null and (.[1].error | contains($w)) and length == 2' \
	"$TMP/out" >/dev/null || fail "batch -j: want null then the error of line 3: $(cat "$TMP/out")"
log "mrcctl -j -b FILE: null for line 1, then $(jq -c '.error' <(jq -s '.[1]' "$TMP/out"))"
rc=0
printf 'dev help\nqp show 7 8\n' | "$MRCCTL" -b - >/dev/null 2>"$TMP/err" || rc=$?
[ "$rc" = 1 ] || fail "batch on stdin: exit $rc, want 1"
grep -qF -- "-:2: unexpected '8'" "$TMP/err" ||
	fail "batch on stdin: the error does not name -:2: $(cat "$TMP/err")"
log "mrcctl -b -: exit 1, $(cat "$TMP/err")"

# --- 3. no mrcd at the socket ---------------------------------------------

for args in "-s /nonexistent dev show" "-s /nonexistent ev-p sh" "-s /nonexistent qp"; do
	# shellcheck disable=SC2086 # words on purpose
	expect_err 2 "/nonexistent" $args
done
expect_err 2 "$NOSOCK" port show
expect_err 2 "mrcd socket" monitor count 1

# --- what works without mrcd ------------------------------------------------

"$MRCCTL" -V | grep -q 'controller API' || fail "-V prints no version"
"$MRCCTL" -j -V | jq -e .ctl_api_version >/dev/null || fail "-j -V is no JSON version"
[ "$("$MRCCTL" -j help)" = null ] || fail "-j help is not null"
"$MRCCTL" ev-p help | grep -q '^Usage: mrcctl ev-profile {' || fail "'ev-p help' is not ev-profile's help"
log "-V, -j help (null) and prefixes (ev-p help) work without mrcd"
