#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# layers.sh can fail (make lint runs this after it): on a copy of daemon/
# it must refuse an include of a module above (health.c including
# serve.h), one of the same layer (pump.c including links.h), a module
# missing from LAYERS, and a LAYERS entry without files; and pass the
# unchanged copy.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() { echo "layers_selftest: $*" >&2; exit 1; }

fresh() {
	rm -rf "$TMP/d"
	mkdir "$TMP/d"
	cp "$TOP"/daemon/*.[ch] "$TOP/daemon/LAYERS" "$TMP/d/"
}
expect() { # expect WHAT PATTERN: layers.sh fails, saying PATTERN
	if "$TOP/tests/lint/layers.sh" "$TMP/d" >"$TMP/out" 2>&1; then
		fail "$1: passed"
	fi
	grep -q "$2" "$TMP/out" || fail "$1: $(cat "$TMP/out")"
}

fresh
"$TOP/tests/lint/layers.sh" "$TMP/d" >/dev/null || fail "the copy of daemon/ fails"
echo '#include "serve.h"' >>"$TMP/d/health.c"
expect "an upward include" "health includes serve.h, a layer above"
fresh
echo '#include "links.h"' >>"$TMP/d/pump.c"
expect "an include of the same layer" "pump includes links.h, its own layer"
fresh
touch "$TMP/d/extra.c"
expect "an unlisted module" "module extra is not in"
fresh
echo ghost >>"$TMP/d/LAYERS"
expect "a listed module without files" "ghost has no ghost.c"
echo "layers_selftest: upward, same-layer, unlisted and missing modules refused"
