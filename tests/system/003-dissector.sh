#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Wireshark dissector (deploy/mrc.lua) against packets the real BPF
# programs made through BPF_PROG_TEST_RUN (tests/tools/wire_pcap.c): data
# (first, middle, last, only; WRITE, WRITE_IMM, zero-length, CE, RETX),
# ACKs with SACK, a NACK of each reason, a probe and its answer, mrcd's
# control messages (hello, port status update and their answers). tshark
# must name every MRC field with the value the frame carries (decoded in C
# from include/mrc/wire.h), claim every frame (no RoCE ICRC, no malformed
# frame, no warning), and give each garbled frame its expert info, never
# a Lua error. No namespaces.
#
#   wire_pcap --> good.pcap + good.expect --> tshark -T fields: equal
#             --> bad.pcap + bad.expect   --> tshark experts: as named
# shellcheck source=tests/system/lib.sh
. "$(dirname "$0")/lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root (BPF_PROG_TEST_RUN)"
command -v tshark >/dev/null || skip "needs tshark (make deps installs it)"
command -v jq >/dev/null || skip "needs jq"
GEN=$TOP/build/tests/wire_pcap
LUA=$TOP/deploy/mrc.lua
[ -x "$GEN" ] || fail "no $GEN: make first"

# An installed copy is loaded before -X lua_script, and the first one wins.
for d in "Global Lua Plugins" "Personal Lua Plugins"; do
	dir=$(tshark -G folders 2>/dev/null | sed -n "s/^$d:[[:space:]]*//p")
	f=$dir/mrc.lua
	[ ! -e "$f" ] || cmp -s "$f" "$LUA" ||
		fail "$f is not deploy/mrc.lua: make install or make uninstall"
done

ts() { tshark -X "lua_script:$LUA" "$@" 2>"$TMP/tshark.err"; }

"$GEN" "$TMP" >"$TMP/gen.log" 2>&1 || fail "wire_pcap: $(cat "$TMP/gen.log")"
log "$(cat "$TMP/gen.log")"

# Every field the dissector registers is checked somewhere in good.pcap,
# every expert info in bad.pcap or (the notes) good.pcap.
tshark -G fields -X "lua_script:$LUA" 2>/dev/null |
	awk -F'\t' '$1 == "F" && $3 ~ /^mrc\./ { print $4, $3 }' >"$TMP/all"
awk '$1 != "FT_NONE" { print $2 }' "$TMP/all" | sort >"$TMP/registered"
awk '$1 == "FT_NONE" { print $2 }' "$TMP/all" | sort >"$TMP/registered.ex"
[ -s "$TMP/registered" ] || fail "tshark registers no mrc field: $(cat "$TMP/tshark.err" 2>/dev/null)"
cut -f2 "$TMP/good.expect" | sort -u >"$TMP/fields"
diff -u "$TMP/registered" "$TMP/fields" >"$TMP/diff" ||
	fail "registered fields and checked fields differ: $(cat "$TMP/diff")"
nfields=$(wc -l <"$TMP/fields")
# FT_NONE: the expert infos and the headers (subtrees, checked below).
headers="mrc.bth mrc.reth mrc.dext mrc.aeth mrc.aext mrc.aext.sack_bitmap mrc.pext mrc.cext"
{
	cut -f2 "$TMP/bad.expect" | grep -v '^\*$' | tr -d '!'
	printf '%s\n' mrc.nack mrc.trimmed $headers
} | sort -u >"$TMP/experts"
diff -u "$TMP/registered.ex" "$TMP/experts" >"$TMP/diff" ||
	fail "registered expert infos and headers differ from the checked ones: $(cat "$TMP/diff")"

# Each frame: its fields as tshark prints them, side by side with what
# wire_pcap read from the frame; a field it did not name must be absent.
mapfile -t fields <"$TMP/fields"
args=(-T fields -E separator=/t -E occurrence=a -E "aggregator=," -e frame.number)
for fld in "${fields[@]}"; do args+=(-e "$fld"); done
ts -r "$TMP/good.pcap" "${args[@]}" >"$TMP/got" || fail "tshark: $(cat "$TMP/tshark.err")"
awk -F'\t' -v list="$TMP/fields" -v want="$TMP/good.expect" '
	BEGIN {
		while ((getline l < list) > 0) name[++n] = l
		while ((getline l < want) > 0) {
			split(l, w, "\t")
			want_v[w[1], w[2]] = w[3]
			has[w[1], w[2]] = 1
		}
	}
	{
		for (i = 1; i <= n; i++) {
			got = $(i + 1)
			e = has[$1, name[i]] ? want_v[$1, name[i]] : ""
			if (got != e) {
				printf "frame %s %s: tshark %s, packet %s\n", $1, name[i],
					substr(got, 1, 40), substr(e, 1, 40)
				bad++
			}
			checked += has[$1, name[i]]
		}
		frames++
	}
	END { print frames " frames, " checked " fields"; exit bad > 0 }
' "$TMP/got" >"$TMP/cmp" || fail "decode differs: $(head -20 "$TMP/cmp")"
log "good.pcap: $(tail -1 "$TMP/cmp") equal to the packets' own bytes; all $nfields registered mrc fields among them"

# The capture holds every kind it should.
for want in 'mrc.bth.opcode == 0x0a' 'mrc.bth.opcode == 0x0b' 'mrc.bth.opcode == 0x11' \
	'mrc.bth.opcode == 0xc0' 'mrc.bth.opcode == 0xc1' 'mrc.dext.flags.last == 0' \
	'mrc.dext.flags.last == 1' 'mrc.dext.flags.retx == 1' 'mrc.reth.len_bytes == 0' \
	'mrc.aext.flags.ecn_ce == 1' 'mrc.aext.sacked_psn' 'mrc.aext.svc_ns > 0' \
	'mrc.pext.svc_ns > 0' 'ipv6 && mrc.dext' 'ipv6 && mrc.aext' 'ipv6 && mrc.bth.opcode == 0xc1' \
	'mrc.bth.opcode == 0xc1 && mrc.bth.dest_qp == 0xffffff' 'mrc.cext.type == 1' 'mrc.cext.type == 3' \
	$headers; do
	[ -n "$(ts -r "$TMP/good.pcap" -Y "$want" -T fields -e frame.number)" ] ||
		fail "good.pcap has no frame with $want"
done
log "good.pcap: WRITE, WRITE_IMM, ACK, probe, answer (a QP's, the device's); first/middle (LAST 0), last/only (LAST 1), RETX, zero length, CE, SACK, service times; IPv4 and IPv6"

# Every frame is mrc's: none left to the RoCE dissector, no malformed
# frame, no expert info above a note (trimmed and NACK are notes).
total=$(ts -r "$TMP/good.pcap" -T fields -e frame.number | wc -l)
mrc=$(ts -r "$TMP/good.pcap" -Y 'mrc && !infiniband' -T fields -e frame.number | wc -l)
[ "$mrc" = "$total" ] || fail "$mrc of $total frames are mrc's alone"
loud=$(ts -r "$TMP/good.pcap" -Y '_ws.malformed || _ws.expert.severity >= 0x00600000' \
	-T fields -e frame.number -e _ws.expert.message | head -5)
[ -z "$loud" ] || fail "good.pcap has warnings or errors: $loud"
ts -r "$TMP/good.pcap" -V >"$TMP/good.txt" || fail "tshark -V: $(cat "$TMP/tshark.err")"
! grep -q "Lua Error" "$TMP/good.txt" "$TMP/tshark.err" || fail "Lua error: $(grep -m1 "Lua Error" "$TMP/good.txt" "$TMP/tshark.err")"
nacks=$(ts -r "$TMP/good.pcap" -Y mrc.nack -T fields -e mrc.aext.nack_reason | sort -u | tr '\n' ' ')
[ "$nacks" = "1 2 3 4 5 6 " ] || fail "NACK notes for reasons $nacks, want 1 to 6"
trims=$(ts -r "$TMP/good.pcap" -Y mrc.trimmed -T fields -e frame.number | wc -l)
[ "$trims" = 1 ] || fail "$trims frames noted trimmed, want 1"
notes="a NACK note for each reason, one trimmed"
log "good.pcap: $total frames, all claimed by mrc, none by infiniband; no malformed frame, no warning; $notes"

# Without the dissector, the RoCE one decodes the BTH and nothing after.
roce=$(tshark -r "$TMP/good.pcap" -Y infiniband -T fields -e frame.number 2>/dev/null | wc -l)
log "without mrc.lua: $roce of $total frames go to the infiniband dissector"

# Garbled frames: the expert info named (or, "!name", not that one), or
# at least one warning or error ("*"); never a Lua error.
experts=$(cut -f2 "$TMP/bad.expect" | grep -v '^\*$' | tr -d '!' | sort -u)
args=(-T fields -E separator=/t -E occurrence=a -E "aggregator=," -e frame.number -e _ws.expert.severity)
for x in $experts; do args+=(-e "$x"); done
ts -r "$TMP/bad.pcap" "${args[@]}" >"$TMP/bad.got" || fail "tshark on bad.pcap: $(cat "$TMP/tshark.err")"
awk -F'\t' -v want="$TMP/bad.expect" -v names="$(echo $experts)" '
	BEGIN {
		while ((getline l < want) > 0) { split(l, w, "\t"); want_x[w[1]] = w[2] }
		n = split(names, name, " ")
	}
	{
		e = want_x[$1]
		if (e == "*") {
			split($2, sev, ",")
			loud = 0
			for (s in sev) loud += sev[s] + 0 >= 6291456
			if (!loud) { print "frame " $1 ": no warning or error"; bad++ }
			next
		}
		for (i = 1; i <= n; i++) {
			if (name[i] == e && $(i + 2) == "") {
				print "frame " $1 ": no " e; bad++
			}
			if ("!" name[i] == e && $(i + 2) != "") {
				print "frame " $1 ": " name[i] " where it has no place"; bad++
			}
		}
		frames++
	}
	END { print frames " named"; exit bad > 0 }
' "$TMP/bad.got" >"$TMP/bad.cmp" || fail "garbled frames: $(head -20 "$TMP/bad.cmp")"
ts -r "$TMP/bad.pcap" -V >"$TMP/bad.txt" || fail "tshark -V bad.pcap: $(cat "$TMP/tshark.err")"
! grep -q "Lua Error" "$TMP/bad.txt" "$TMP/tshark.err" || fail "Lua error: $(grep -m1 "Lua Error" "$TMP/bad.txt" "$TMP/tshark.err")"
nbad=$(wc -l <"$TMP/bad.expect")
log "bad.pcap: $nbad garbled frames, $(tail -1 "$TMP/bad.cmp") with their expert info ($(echo $experts | tr ' ' ,)), the rest random with a warning or error; no Lua error"
