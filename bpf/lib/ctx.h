/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the packet context abstraction that lets one header
 * of packet code compile into an XDP program and into a tc program: the
 * context type and the helpers whose names differ between the two. A tc
 * program defines MRC_CTX_SKB before including anything from bpf/lib/;
 * everything else is XDP.
 *
 * Both contexts have data and data_end, so direct packet access (at() in
 * pkt.h) is the same code. What differs is copying bytes in and out of the
 * packet (bpf_xdp_load_bytes against bpf_skb_load_bytes), how a packet
 * changes length and address family, and how its UDP checksum is stored:
 * an skb carries a checksum state that an XDP frame does not have.
 */
#ifndef MRC_BPF_CTX_H
#define MRC_BPF_CTX_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "csum.h"

#ifdef MRC_CTX_SKB

#define __ctx_buff __sk_buff

static __always_inline int ctx_load_bytes(struct __sk_buff *ctx, __u32 off,
					  void *to, __u32 len)
{
	return bpf_skb_load_bytes(ctx, off, to, len);
}

/*
 * No BPF_F_RECOMPUTE_CSUM: it only maintains skb->csum of a
 * CHECKSUM_COMPLETE skb, which a locally sent one never is; the UDP
 * checksum is the program's business (tx.h).
 */
static __always_inline int ctx_store_bytes(struct __sk_buff *ctx, __u32 off,
					   const void *from, __u32 len)
{
	return bpf_skb_store_bytes(ctx, off, from, len, 0);
}

/*
 * Make the packet new_len bytes long with an IPv6 (v6) or IPv4 header
 * after the Ethernet header, and enc bytes of room in front of it for
 * outer headers (SRv6): bpf_skb_change_proto grows or shrinks the room
 * for the network header and bpf_skb_adjust_room adds enc bytes after it
 * (both keeping what follows where it is, which matters for csum_start
 * below; the builder writes every header byte, so where the room goes
 * does not matter), bpf_skb_change_tail the end. The skb is linear and
 * writable afterwards, so direct packet access reaches all of it.
 * Returns 0 or -1.
 */
static __always_inline int ctx_resize(struct __sk_buff *ctx, __u32 new_len,
				      int v6, __u32 enc)
{
	__u32 proto = v6 ? bpf_htons(ETH_P_IPV6) : bpf_htons(ETH_P_IP);

	if (ctx->protocol != proto && bpf_skb_change_proto(ctx, proto, 0))
		return -1;
	if (enc && bpf_skb_adjust_room(ctx, enc, BPF_ADJ_ROOM_NET, 0))
		return -1;
	return bpf_skb_change_tail(ctx, new_len, 0) ? -1 : 0;
}

/*
 * Store the UDP checksum at check_off of a datagram whose pseudo-header
 * sums to pseudo and whose bytes, with the checksum field zero, sum to
 * data (both unfolded). Returns 0 or -1.
 *
 * A program cannot read skb->ip_summed, and the right bytes depend on it.
 * A datagram a UDP socket sends on lo is CHECKSUM_PARTIAL (lo offers
 * NETIF_F_HW_CSUM): csum_start/csum_offset name its checksum field, which
 * holds only the folded pseudo-header sum, and whoever transmits the skb
 * later (skb_checksum_help in dev_queue_xmit on a port without checksum
 * offload, or the NIC) sums from csum_start to the end and stores the
 * result. From a socket with SO_NO_CHECK it is CHECKSUM_NONE and the field
 * must hold the final checksum. bpf_l4_csum_replace does the right thing
 * in either state: with BPF_F_PSEUDO_HDR it adds to the field in the
 * state's own representation (a plain sum when PARTIAL, a complemented
 * one otherwise), and without it it adds only when the state is not
 * PARTIAL (the data will be summed later otherwise). Starting from 0xffff,
 * a zero in both representations, the two calls below leave the pseudo-
 * header seed in a PARTIAL skb and the full checksum in any other, and
 * PARTIAL's csum_start still points at this UDP header because
 * ctx_resize never moves it.
 */
static __always_inline int ctx_udp_csum_store(struct __sk_buff *ctx,
					      __u32 check_off, __s64 pseudo,
					      __s64 data)
{
	__u16 zero = 0xffff;

	if (bpf_skb_store_bytes(ctx, check_off, &zero, sizeof(zero), 0) ||
	    bpf_l4_csum_replace(ctx, check_off, 0, (__u32)pseudo,
				BPF_F_PSEUDO_HDR))
		return -1;
	/* An all-zero result means "no checksum": send 0xffff instead. */
	return bpf_l4_csum_replace(ctx, check_off, 0, (__u32)data,
				   BPF_F_MARK_MANGLED_0 | BPF_F_MARK_ENFORCE) ?
		       -1 :
		       0;
}

#else /* XDP */

#define __ctx_buff xdp_md

static __always_inline int ctx_load_bytes(struct xdp_md *ctx, __u32 off,
					  void *to, __u32 len)
{
	return bpf_xdp_load_bytes(ctx, off, to, len);
}

static __always_inline int ctx_store_bytes(struct xdp_md *ctx, __u32 off,
					   const void *from, __u32 len)
{
	return bpf_xdp_store_bytes(ctx, off, (void *)from, len);
}

/*
 * Make the frame new_len bytes long. The family and outer headers need no
 * room of their own: an XDP frame is bytes, and the builder writes every
 * header byte.
 */
static __always_inline int ctx_resize(struct xdp_md *ctx, __u32 new_len, int v6,
				      __u32 enc)
{
	__u64 cur_len = (void *)(long)ctx->data_end - (void *)(long)ctx->data;

	(void)v6;
	(void)enc;
	/* Keep clang from turning this into 32-bit pointer arithmetic. */
	asm volatile("" : "+r"(cur_len));
	return bpf_xdp_adjust_tail(ctx, (int)new_len - (int)cur_len) ? -1 : 0;
}

/* The full checksum: a frame has no checksum state to respect. */
static __always_inline int ctx_udp_csum_store(struct xdp_md *ctx,
					      __u32 check_off, __s64 pseudo,
					      __s64 data)
{
	__u64 sum = (__u64)pseudo + (__u64)data;
	__u16 check;

	sum = (sum & 0xffffffff) + (sum >> 32);
	check = csum_fold32((__u32)sum + (__u32)(sum >> 32)) ?: 0xffff;
	return bpf_xdp_store_bytes(ctx, check_off, &check, sizeof(check)) ? -1 :
									    0;
}

#endif /* MRC_CTX_SKB */

#endif /* MRC_BPF_CTX_H */
