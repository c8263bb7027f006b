/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the SRv6 outer headers an SRv6 QP's packets travel in
 * (docs/wire.md, "SRv6"), shared by the transmit path (data packets) and
 * the receive program (the answers it turns around): an outer IPv6 header
 * whose destination is the EV's uSID container, an SRH when the EV has a
 * second segment, then the plain IPv6 packet.
 */
#ifndef MRC_BPF_SRV6_H
#define MRC_BPF_SRV6_H

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ipv6.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "mrc/abi.h"
#include "pkt.h"

/* struct mrc_srh and the protocol numbers: include/mrc/wire.h. */

/* Outer header bytes route r puts in front of the IPv6 packet. */
static __always_inline __u32 srv6_encap_len(const struct mrc_srv6_route *r)
{
	__u64 a, b;

	__builtin_memcpy(&a, r->seg, 8);
	__builtin_memcpy(&b, r->seg + 8, 8);
	return MRC_SRV6_OUTER_LEN + (a | b ? MRC_SRV6_SRH_LEN : 0);
}

/*
 * Write route r's outer IPv6 header (and SRH) right after the Ethernet
 * header, in front of an IPv6 packet of inner_len bytes at offset
 * ETH_HLEN + enc (enc = srv6_encap_len(r)); src is our address on the
 * port. ECT(0), as every mrc packet. 0, or -1 when the frame is short.
 */
static __always_inline int srv6_write_outer(struct __ctx_buff *ctx,
					    const struct mrc_srv6_route *r,
					    __u32 enc, __u32 inner_len,
					    const __u8 *src)
{
	struct ipv6hdr *o = at(ctx, ETH_HLEN, sizeof(*o));
	struct mrc_srh *srh;

	if (!o)
		return -1;
	*(__be32 *)o = bpf_htonl(6 << 28 | 0x02 << 20);
	o->payload_len = bpf_htons(enc - MRC_SRV6_OUTER_LEN + inner_len);
	o->nexthdr = enc > MRC_SRV6_OUTER_LEN ? MRC_IPPROTO_ROUTING :
						MRC_IPPROTO_IPV6;
	o->hop_limit = 64;
	__builtin_memcpy(&o->saddr, src, 16);
	__builtin_memcpy(&o->daddr, r->dst, 16);
	if (enc == MRC_SRV6_OUTER_LEN)
		return 0;
	srh = at(ctx, ETH_HLEN + MRC_SRV6_OUTER_LEN, sizeof(*srh));
	if (!srh)
		return -1;
	srh->nexthdr = MRC_IPPROTO_IPV6;
	srh->hdr_ext_len = (sizeof(*srh) - 8) / 8;
	srh->type = MRC_SRH_TYPE;
	srh->segments_left = 1;
	srh->last_entry = 1;
	srh->flags = 0;
	srh->tag = 0;
	__builtin_memcpy(srh->seg[0], r->seg, 16); /* the last segment */
	__builtin_memcpy(srh->seg[1], r->dst, 16); /* the first: the DA */
	return 0;
}

#endif /* MRC_BPF_SRV6_H */
