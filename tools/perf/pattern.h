/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the data pattern of --verify (pattern.c): every byte
 * the client writes is a function of its offset in the server's region and
 * of the pass (one per row), so the server can check its whole region at
 * the end without knowing which WRITE carried what.
 */
#ifndef MRC_TOOLS_PERF_PATTERN_H
#define MRC_TOOLS_PERF_PATTERN_H

#include <stdint.h>

/* buf[off, off + len) as pass writes it. */
void pattern_fill(uint8_t *buf, uint64_t off, uint64_t len, uint64_t pass);
/* The bytes of buf[off, off + len) that differ from pass's. */
uint64_t pattern_bad_bytes(const uint8_t *buf, uint64_t off, uint64_t len,
			   uint64_t pass);

#endif /* MRC_TOOLS_PERF_PATTERN_H */
