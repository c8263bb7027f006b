#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mrcd's modules depend downward only (make lint runs this): every
# #include "x.h" in daemon/*.c and daemon/*.h names a header of the
# including file's own module, or of a module in a lower layer of
# daemon/LAYERS, or one that is not mrcd's (include/, lib/, build/'s
# skeletons). A module missing from LAYERS, or a LAYERS entry with no
# file, fails too. Usage: layers.sh [DAEMON_DIR] (a fixture tree in tests).
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${1:-$TOP/daemon}
fail=0
declare -A layer

n=0
while read -r line; do
	line=${line%%#*}
	[ -n "${line// /}" ] || continue
	n=$((n + 1))
	for mod in $line; do
		[ -z "${layer[$mod]:-}" ] || {
			echo "layers: $DIR/LAYERS: $mod is listed twice" >&2
			fail=1
		}
		# Layer numbers grow downward: a file may include a higher one.
		layer[$mod]=$n
		ls "$DIR/$mod".[ch] >/dev/null 2>&1 || {
			echo "layers: $DIR/LAYERS: $mod has no $mod.c or $mod.h" >&2
			fail=1
		}
	done
done <"$DIR/LAYERS"

for f in "$DIR"/*.[ch]; do
	base=$(basename "$f")
	mod=${base%.[ch]}
	me=${layer[$mod]:-}
	if [ -z "$me" ]; then
		echo "layers: $f: module $mod is not in $DIR/LAYERS" >&2
		fail=1
		continue
	fi
	lineno=0
	while IFS= read -r l; do
		lineno=$((lineno + 1))
		[[ $l =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*\"([^\"/]+)\.h\" ]] || continue
		dep=${BASH_REMATCH[1]}
		[ "$dep" != "$mod" ] || continue
		[ -e "$DIR/$dep.h" ] || continue # not mrcd's: include/, lib/, skeletons
		them=${layer[$dep]:-}
		[ -n "$them" ] || continue # reported above as unlisted
		if [ "$them" -le "$me" ]; then
			if [ "$them" -eq "$me" ]; then
				why="its own layer"
			else
				why="a layer above"
			fi
			echo "layers: $f:$lineno: $mod includes $dep.h, $why (daemon/LAYERS)" >&2
			fail=1
		fi
	done <"$f"
done
[ $fail = 0 ] || exit 1
echo "layers: $(ls "$DIR"/*.[ch] | wc -l) files in ${#layer[@]} modules depend downward"
