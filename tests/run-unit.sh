#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run test binaries, each a cmocka program; exit 77 means skipped. Prints
# one line per binary and a closing "N passed, N failed, N skipped".
# VALGRIND=1 runs each under valgrind: leaks, bad accesses and file
# descriptors left open fail the test.
set -u
pass=0 fail=0 skip=0
run=()
label=unit
if [ "${VALGRIND:-0}" = 1 ]; then
	# shellcheck disable=SC2054 # the commas belong to valgrind's option
	run=(valgrind -q --error-exitcode=99 --leak-check=full
		--errors-for-leak-kinds=definite,indirect --track-fds=yes)
	label=valgrind
fi
for t in "$@"; do
	out=$("${run[@]}" "$t" 2>&1)
	rc=$?
	# An open descriptor valgrind lists that was not inherited is a leak.
	if [ ${#run[@]} -gt 0 ] && awk '/Open file descriptor [0-9]+:/ && $NF !~ /std(in|out|err)/ { fd = $0; next }
		fd && !/inherited from parent/ { found = 1 } { fd = "" } END { exit !found }' <<<"$out"; then
		out+=$'\nfile descriptor left open'
		rc=98
	fi
	case $rc in
	0) pass=$((pass + 1)); echo "PASS $t" ;;
	77) skip=$((skip + 1)); echo "SKIP $t: $(tail -n 1 <<<"$out")" ;;
	*) fail=$((fail + 1)); echo "FAIL $t (exit $rc)"; echo "$out" | sed 's/^/    /' ;;
	esac
done
echo "$label: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
