/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the Internet checksum helpers (RFC 1071, RFC 1624
 * incremental update) shared by the BPF programs. All sums are kept as
 * 32-bit accumulators of 16-bit words in network byte order and folded at
 * the end.
 */
#ifndef MRC_BPF_CSUM_H
#define MRC_BPF_CSUM_H

#include <linux/types.h>

static __always_inline __u16 csum_fold32(__u32 sum)
{
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

/* Fold what bpf_csum_diff returns and complement it: the value to store. */
static __always_inline __u16 csum_fold_wsum(__s64 wsum)
{
	return csum_fold32((__u32)wsum);
}

/*
 * RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'), for one 16-bit field changing
 * from old to new (both in network byte order).
 */
static __always_inline void csum_replace2(__u16 *check, __u16 old, __u16 new)
{
	__u32 sum = (__u16) ~*check;

	sum += (__u16)~old;
	sum += new;
	*check = csum_fold32(sum);
}

#endif /* MRC_BPF_CSUM_H */
