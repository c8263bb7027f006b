/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the Internet checksum (RFC 1071) for userspace: the
 * library, the tools and the tests' packet builders.
 */
#ifndef MRC_LIB_CSUM_H
#define MRC_LIB_CSUM_H

#include <stddef.h>
#include <stdint.h>

/*
 * Add buf to a running one's-complement sum of big-endian 16-bit words.
 * An odd length is padded with a zero byte, so only the last piece of a
 * multi-piece sum may have an odd length.
 */
uint64_t mrc_csum_add(uint64_t sum, const void *buf, size_t len);

/* Fold a running sum and complement it: the value to store, host order. */
uint16_t mrc_csum_fold(uint64_t sum);

/* Checksum of one buffer, host order (0 when buf holds a valid checksum). */
uint16_t mrc_csum(const void *buf, size_t len);

#endif /* MRC_LIB_CSUM_H */
