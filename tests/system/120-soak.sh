#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The soak (tests/soak.sh) for 60 s: mrcd under a mixed load shows no
# growth in memory, file descriptors, pins, BPF maps or programs.
# `make soak` runs the same for 10 minutes.
exec "$(dirname "$0")/../soak.sh" 60
