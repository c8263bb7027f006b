/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains packet access helpers shared by the data path's XDP
 * and tc programs (ctx.h): bounds-checked header pointers by frame offset,
 * and the UDP checksum over a whole datagram.
 */
#ifndef MRC_BPF_PKT_H
#define MRC_BPF_PKT_H

#include <linux/bpf.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "ctx.h"
#include "maps.h"

/* A pointer to len bytes at frame offset off, or NULL past the end. */
static __always_inline void *at(struct __ctx_buff *ctx, __u32 off, __u32 len)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;

	/*
	 * Frames are never this large; the bound lets the verifier mark the
	 * range checked below (it gives up on offsets near 64 KiB).
	 */
	off &= 0x3fff;
	if (data + off + len > end)
		return NULL;
	return data + off;
}

/*
 * Unfolded one's-complement sum of the UDP pseudo-header of the IPv4 or
 * IPv6 header at l3_off, for a datagram of udp_len bytes; -1 when the
 * frame is too short.
 */
static __always_inline __s64 mrc_pseudo_sum(struct __ctx_buff *ctx,
					    __u32 l3_off, __u32 udp_len, int v6)
{
	__s64 sum;

	if (v6) {
		struct ipv6hdr *ip6 = at(ctx, l3_off, sizeof(*ip6));
		__be32 tail[2] = { bpf_htonl(udp_len), bpf_htonl(IPPROTO_UDP) };

		if (!ip6)
			return -1;
		sum = bpf_csum_diff(NULL, 0, (__be32 *)&ip6->saddr, 32, 0);
		sum = bpf_csum_diff(NULL, 0, tail, sizeof(tail), sum);
	} else {
		struct iphdr *ip = at(ctx, l3_off, sizeof(*ip));
		__be32 tail = bpf_htonl(IPPROTO_UDP << 16 | udp_len);

		if (!ip)
			return -1;
		sum = bpf_csum_diff(NULL, 0, &ip->saddr, 8, 0);
		sum = bpf_csum_diff(NULL, 0, &tail, sizeof(tail), sum);
	}
	return sum;
}

/*
 * sum plus the unfolded one's-complement sum of the udp_len bytes at
 * udp_off, or -1 when the frame is shorter than that. The datagram is
 * copied through the per-CPU scratch buffer 512 bytes at a time, so
 * bpf_csum_diff always sees constant bounds.
 */
static __always_inline __s64 mrc_data_sum(struct __ctx_buff *ctx, __u32 udp_off,
					  __u32 udp_len, struct mrc_scratch *s,
					  __s64 sum)
{
	__u32 i, len, pad_at;

	if (sum < 0)
		return -1;
	for (i = 0; i < 9; i++) { /* 9 x 512 > UDP + headers + 4096 */
		if (i * 512 >= udp_len)
			break;
		len = udp_len - i * 512;
		if (len > 512)
			len = 512;
		pad_at = len & ~3u;
		if (len < 1 || pad_at > 512)
			return -1;
		/*
		 * Zero the word the data ends in, then load over its start:
		 * the checksum pads an odd tail with zeros.
		 */
		*(__u32 *)&s->buf[pad_at] = 0;
		if (ctx_load_bytes(ctx, udp_off + i * 512, s->buf, len))
			return -1;
		sum = bpf_csum_diff(NULL, 0, (__be32 *)s->buf,
				    (len + 3) & 0x3fc, sum);
		if (sum < 0)
			return -1;
	}
	return sum;
}

/*
 * One's-complement sum of the UDP pseudo-header and the udp_len bytes of
 * the datagram at udp_off, folded to 16 bits: 0xffff when the checksum in
 * it is right; with the checksum field zeroed, ~sum is the checksum.
 * Returns -1 when the frame is shorter than it should be.
 */
static __always_inline int mrc_udp_sum(struct __ctx_buff *ctx, __u32 l3_off,
				       __u32 udp_off, __u32 udp_len, int v6,
				       struct mrc_scratch *s)
{
	__s64 sum = mrc_pseudo_sum(ctx, l3_off, udp_len, v6);

	sum = mrc_data_sum(ctx, udp_off, udp_len, s, sum);
	if (sum < 0)
		return -1;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum & 0xffff;
}

#endif /* MRC_BPF_PKT_H */
