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
 * sum plus the unfolded one's-complement sum of the len bytes at off, read
 * in place: they lie in the frame's linear part (the caller checks). Whole
 * 512-byte blocks first, then the rest in blocks of 256 down to 4 bytes,
 * so every bpf_csum_diff call has a constant size and a bounds check the
 * verifier can follow; then the last 1-3 bytes, padded with zeros as the
 * checksum pads an odd tail. No copy: this is the sum both ends take of
 * every data packet (docs/perf.md).
 */
static __always_inline __s64 mrc_sum_linear(struct __ctx_buff *ctx, __u32 off,
					    __u32 len, __s64 sum)
{
	__u8 tail[4] = {};
	__u32 i, n;
	void *p;

	for (i = 0; i < 9 && len >= 512 && sum >= 0; i++) {
		p = at(ctx, off, 512);
		if (!p)
			return -1;
		sum = bpf_csum_diff(NULL, 0, p, 512, sum);
		off += 512;
		len -= 512;
	}
#define MRC_SUM_BLOCK(sz)                                   \
	if (len >= (sz) && sum >= 0) {                      \
		p = at(ctx, off, (sz));                     \
		if (!p)                                     \
			return -1;                          \
		sum = bpf_csum_diff(NULL, 0, p, (sz), sum); \
		off += (sz);                                \
		len -= (sz);                                \
	}
	MRC_SUM_BLOCK(256)
	MRC_SUM_BLOCK(128)
	MRC_SUM_BLOCK(64)
	MRC_SUM_BLOCK(32)
	MRC_SUM_BLOCK(16)
	MRC_SUM_BLOCK(8)
	MRC_SUM_BLOCK(4)
#undef MRC_SUM_BLOCK
	if (sum < 0 || len > 3)
		return -1;
	for (n = 0; n < 3 && n < len; n++) {
		__u8 *b = at(ctx, off + n, 1);

		if (!b)
			return -1;
		tail[n] = *b;
	}
	if (len)
		sum = bpf_csum_diff(NULL, 0, (__be32 *)tail, 4, sum);
	return sum;
}

#ifdef MRC_CTX_SKB
/*
 * The same sum for bytes that are not all linear (an skb with paged data):
 * copied through the per-CPU scratch buffer 512
 * bytes at a time, so bpf_csum_diff always sees constant bounds. Slower by
 * a copy.
 */
static __always_inline __s64 mrc_sum_copied(struct __ctx_buff *ctx, __u32 off,
					    __u32 len, __s64 sum)
{
	__u32 i, n, pad_at, zero = 0;
	struct mrc_scratch *s = bpf_map_lookup_elem(&mrc_scratch, &zero);

	if (!s)
		return -1;
	for (i = 0; i < 9; i++) { /* 9 x 512 > UDP + headers + 4096 */
		if (i * 512 >= len)
			break;
		n = len - i * 512;
		if (n > 512)
			n = 512;
		pad_at = n & ~3u;
		if (n < 1 || pad_at > 512)
			return -1;
		/*
		 * Zero the word the data ends in, then load over its start:
		 * the checksum pads an odd tail with zeros.
		 */
		*(__u32 *)&s->buf[pad_at] = 0;
		if (ctx_load_bytes(ctx, off + i * 512, s->buf, n))
			return -1;
		sum = bpf_csum_diff(NULL, 0, (__be32 *)s->buf, (n + 3) & 0x3fc,
				    sum);
		if (sum < 0)
			return -1;
	}
	return sum;
}
#endif

/*
 * sum plus the unfolded one's-complement sum of the udp_len bytes at
 * udp_off, or -1 when the frame is shorter than that (or sum is -1). An
 * XDP program takes only datagrams in the frame's linear part (the
 * receive program's parse() drops the others as truncated). A global
 * function: the verifier walks it once, not at every call site.
 */
__attribute__((noinline)) __s64
mrc_data_sum(struct __ctx_buff *ctx, __u32 udp_off, __u32 udp_len, __s64 sum)
{
	if (!ctx || sum < 0)
		return -1;
	if ((__u64)udp_off + udp_len <= (__u64)(ctx->data_end - ctx->data))
		return mrc_sum_linear(ctx, udp_off, udp_len, sum);
#ifdef MRC_CTX_SKB
	return mrc_sum_copied(ctx, udp_off, udp_len, sum);
#else
	return -1;
#endif
}

/*
 * One's-complement sum of the UDP pseudo-header and the udp_len bytes of
 * the datagram at udp_off, folded to 16 bits: 0xffff when the checksum in
 * it is right; with the checksum field zeroed, ~sum is the checksum.
 * Returns -1 when the frame is shorter than it should be.
 */
static __always_inline int mrc_udp_sum(struct __ctx_buff *ctx, __u32 l3_off,
				       __u32 udp_off, __u32 udp_len, int v6)
{
	__s64 sum = mrc_pseudo_sum(ctx, l3_off, udp_len, v6);

	sum = mrc_data_sum(ctx, udp_off, udp_len, sum);
	if (sum < 0)
		return -1;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum & 0xffff;
}

#endif /* MRC_BPF_PKT_H */
