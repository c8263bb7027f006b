/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrcctl capture's classifier: which MRC_CAP_* class
 * a frame is and its BTH destination QP, from its first bytes. The
 * capture programs (bpf/mrc_capture.bpf.c) run it on what they take, and
 * mrcctl on what its packet socket takes (the kernel stack's packets),
 * so both halves of a capture filter alike. It reads a byte array, never
 * the packet, so it compiles for BPF and for userspace alike.
 */
#ifndef MRC_BPF_CAPTURE_CLASS_H
#define MRC_BPF_CAPTURE_CLASS_H

#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/types.h>
#include <stddef.h>

#include "mrc/capture.h"
#include "mrc/wire.h"

/*
 * Enough of a frame for its headers: Ethernet, one VLAN tag, IPv6 with one
 * routing header (SRv6) or IPv4 with options, UDP, BTH and AETH.
 */
#define MRC_CAP_HDR 255 /* a mask, for the verifier */
/* UDP, BTH and the AETH's first byte. */
#define MRC_CAP_L4 (8 + sizeof(struct mrc_bth) + 1)

/* The frame's class and BTH destination QP (~0 when it has none). */
static __always_inline __u32 mrc_cap_classify(const __u8 *h, __u32 n,
					      __u32 *qpn)
{
	__u32 off = ETH_HLEN, proto;
	__u8 l4;

	*qpn = ~0u;
	if (n < ETH_HLEN)
		return MRC_CAP_OTHER;
	proto = (__u32)h[12] << 8 | h[13];
	if (proto == ETH_P_8021Q || proto == ETH_P_8021AD) {
		proto = (__u32)h[16] << 8 | h[17];
		off += 4;
	}
	if (proto == ETH_P_IP) {
		if (off + 20 > n)
			return MRC_CAP_OTHER;
		l4 = h[off + 9];
		off += (h[off] & 0xf) * 4;
	} else if (proto == ETH_P_IPV6) {
		if (off + 40 > n)
			return MRC_CAP_OTHER;
		l4 = h[off + 6];
		off += 40;
		if (l4 == 43) { /* routing header: SRv6 */
			if (off > MRC_CAP_HDR - 2 || off + 2 > n)
				return MRC_CAP_OTHER;
			l4 = h[off];
			off += (h[off + 1] + 1) * 8;
		}
	} else {
		return MRC_CAP_OTHER;
	}
	/* off against a constant first: the verifier bounds it from that. */
	if (l4 != IPPROTO_UDP || off > MRC_CAP_HDR - MRC_CAP_L4 ||
	    off + MRC_CAP_L4 > n)
		return MRC_CAP_OTHER;
	if (((__u32)h[off + 2] << 8 | h[off + 3]) != MRC_UDP_PORT)
		return MRC_CAP_OTHER;
	off += 8;
	/*
	 * Byte by byte: the headers sit at any offset in h, and the verifier
	 * refuses a misaligned stack read.
	 */
	*qpn = (__u32)h[off + offsetof(struct mrc_bth, dqpn) + 1] << 16 |
	       (__u32)h[off + offsetof(struct mrc_bth, dqpn) + 2] << 8 |
	       h[off + offsetof(struct mrc_bth, dqpn) + 3];
	switch (h[off + offsetof(struct mrc_bth, opcode)]) {
	case MRC_OP_WRITE_ONLY:
	case MRC_OP_WRITE_ONLY_IMM:
		return MRC_CAP_DATA;
	case MRC_OP_ACK:
		/* The AETH's syndrome: its first byte (n checked above). */
		return (h[off + sizeof(struct mrc_bth)] & 0xe0) ==
				       MRC_AETH_NAK ?
			       MRC_CAP_NACK :
			       MRC_CAP_ACK;
	case MRC_OP_PROBE:
	case MRC_OP_PROBE_ANSWER:
		return MRC_CAP_PROBE;
	}
	return MRC_CAP_OTHER;
}

#endif /* MRC_BPF_CAPTURE_CLASS_H */
