#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages mrc needs to build and test, if any is
# missing. Idempotent and quiet when nothing is missing.
set -euo pipefail

PKGS=(
	# build
	make gcc clang llvm pkg-config libbpf-dev bpftool libelf-dev zlib1g-dev
	libmnl-dev libibverbs-dev
	# tests
	libcmocka-dev iproute2 ethtool iputils-ping jq procps util-linux
	# decoding captures with deploy/mrc.lua (tests/system/003-dissector.sh)
	tshark
	# fuzzing (libFuzzer)
	libclang-rt-14-dev
	# lint
	clang-format shellcheck cppcheck
	# benchmarks and plots
	iperf3 gnuplot-nox
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages: ${missing[*]}" >&2
	echo "deps: run 'make deps' as root, or: apt-get install ${missing[*]}" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# iperf3 asks whether to start a daemon; the answer is no.
echo 'iperf3 iperf3/start_daemon boolean false' | debconf-set-selections 2>/dev/null || true
# wireshark-common asks whether non-root users may capture (a setuid
# dumpcap); the tests read files as root, so the answer is no.
echo 'wireshark-common wireshark-common/install-setuid boolean false' | debconf-set-selections 2>/dev/null || true
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
