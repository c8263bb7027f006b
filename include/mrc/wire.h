/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the on-wire layout of mrc packets, compiled by both the
 * BPF programs and userspace. docs/wire.md mirrors it byte for byte.
 *
 * Every mrc packet is UDP to port 4791 (RoCEv2) and starts with an
 * InfiniBand Base Transport Header, so standard RoCE dissectors decode the
 * opcode, destination QP and PSN, and the RETH / AETH that follow. The MRC
 * extension headers come after those, where a RoCE dissector sees payload.
 *
 *   data:  UDP | BTH | RETH | [ImmDt] | DEXT | payload
 *   ack:   UDP | BTH | AETH | AEXT
 *   probe: UDP | BTH | PEXT          (and its answer, the same)
 *
 * The UDP checksum is mandatory on every mrc packet, IPv4 included: it is
 * the checksum the receiver verifies before placing anything (a CRC32 like
 * RoCE's ICRC costs a table lookup per byte in BPF; the Internet checksum
 * runs through bpf_csum_diff at memory speed, and a trimming switch can fix
 * it, as the test fabric does).
 *
 * Only fixed-width types, natural alignment and explicit padding: the layout
 * is the same for clang -target bpf and for gcc. Multi-byte fields are big
 * endian. 64-bit addresses are split in two 32-bit halves because the
 * headers sit at 4-byte, not 8-byte, alignment in a frame.
 */
#ifndef MRC_WIRE_H
#define MRC_WIRE_H

#include <linux/types.h>

#define MRC_UDP_PORT 4791 /* IANA: RoCEv2 */
#define MRC_WIRE_VERSION 1 /* in every DEXT and AEXT */

/* BTH opcodes (IBTA vol. 1, table 38, RC). Every data packet is "only". */
#define MRC_OP_WRITE_ONLY 0x0a
#define MRC_OP_WRITE_ONLY_IMM 0x0b
#define MRC_OP_ACK 0x11
/*
 * EV probe and its answer: manufacturer-specific opcodes (IBTA reserves
 * 0xc0-0xff), so a RoCE dissector shows them as such and no RoCE NIC
 * mistakes them for traffic. The BTH PSN is 0; the destination QP is the
 * peer's QP (probe) or the prober's (answer).
 */
#define MRC_OP_PROBE 0xc0
#define MRC_OP_PROBE_ANSWER 0xc1
/*
 * mrcd-to-mrcd control message (CEXT below): port status updates and the
 * QP hello that negotiates dynamic MPR. The receive program passes it to
 * the kernel stack untouched (XDP_PASS), where mrcd's UDP socket on port
 * 4791 takes it: the data path spends nothing on it. The BTH destination
 * QP is the receiver's QP, PSN 0.
 */
#define MRC_OP_CTL 0xc2

/*
 * InfiniBand Base Transport Header (IBTA vol. 1, 9.2), 12 bytes.
 *
 *  0: opcode
 *  1: solicited event (1) | migreq (1) | pad count (2) | transport version (4)
 *  2: partition key (16)
 *  4: reserved (8)
 *  5: destination QP (24)
 *  8: ack request (1) | reserved (7)
 *  9: packet sequence number (24)
 */
struct mrc_bth {
	__u8 opcode;
	__u8 flags; /* se:1 m:1 pad:2 tver:4 */
	__be16 pkey;
	__be32 dqpn; /* low 24 bits: destination QP; high 8: reserved */
	__be32 psn; /* low 24 bits: PSN; top bit: ack request */
};

#define MRC_BTH_QPN_MASK 0x00ffffffu
/*
 * Destination QP of a device probe (the controller's EV probe): no QP is
 * involved, the peer device answers it, and the answer comes back to this
 * QP number too.
 */
#define MRC_PROBE_QPN 0x00ffffffu
#define MRC_BTH_PSN_MASK 0x00ffffffu
#define MRC_BTH_ACKREQ 0x80000000u
#define MRC_PKEY_DEFAULT 0xffff

/*
 * RDMA Extended Transport Header (IBTA 9.3.3), 16 bytes. Unlike RC, every
 * mrc data packet carries one, describing this packet alone: the remote
 * address its payload goes to and the payload's length in bytes.
 */
struct mrc_reth {
	__be32 va_hi;
	__be32 va_lo;
	__be32 rkey;
	__be32 len; /* payload bytes in this packet */
};

/* Immediate data (IBTA 9.3.5), WRITE with immediate only. */
struct mrc_immdt {
	__be32 imm;
};

/* DEXT flags */
#define MRC_DF_LAST 0x01 /* last packet (highest PSN) of its message */
#define MRC_DF_RETX 0x02 /* a retransmission */
/*
 * No ACK of its own is needed: the receiver may let a later ACK (its
 * cumulative PSN and SACK) answer for it. The sender leaves it off every
 * ack_every-th packet, a resend, and the last packet before it must wait
 * (nothing queued, or a window full). A receiver ignoring it ACKs every
 * packet, as before it existed (docs/wire.md, "Coalesced ACKs").
 */
#define MRC_DF_ACK_LATER 0x04

/*
 * MRC data extension, 16 bytes: what the RETH cannot say.
 */
struct mrc_dext {
	__u8 version; /* MRC_WIRE_VERSION */
	__u8 flags; /* MRC_DF_* */
	__be16 ev; /* entropy value the sender chose (its UDP source port) */
	__be32 msg_id; /* sender's message number, for tracing */
	__be32 msg_len; /* bytes in the whole message (WRITE_IMM byte_len) */
	__be32 echo; /* the sender's, returned in the ACK (mrc_echo) */
};

/*
 * ACK Extended Transport Header (IBTA 9.3.4), 4 bytes: syndrome in the top
 * 8 bits (0x00-0x1f ACK, 0x60 | code NAK), MSN in the low 24.
 */
struct mrc_aeth {
	__be32 syn_msn;
};

#define MRC_AETH_ACK 0x00
#define MRC_AETH_NAK 0x60

/* Why a NACK was sent (AEXT nack_reason). */
enum mrc_nack {
	MRC_NACK_NONE = 0,
	MRC_NACK_PSN_WINDOW = 1, /* PSN beyond the receive window (MPR) */
	MRC_NACK_RKEY = 2, /* unknown rkey, or not this QP's */
	MRC_NACK_BOUNDS = 3, /* address range outside the region */
	MRC_NACK_TRIMMED = 4, /* payload cut by the fabric */
	MRC_NACK_CHECKSUM = 5, /* UDP checksum failed */
	MRC_NACK_QP_STATE = 6, /* QP not ready to receive */
};

/* AEXT flags */
#define MRC_AF_NACK 0x01 /* this is a NACK; nack_reason says why */
#define MRC_AF_ECN_CE 0x02 /* the acknowledged packet arrived CE-marked */

#define MRC_SACK_BITS 256

/* Unit of the AEXT service time: 64 ns, up to 65535 x 64 ns = 4.19 ms. */
#define MRC_SVC_UNIT_NS 64u
#define MRC_SVC_MAX 0xffffu

/*
 * MRC acknowledgement extension, 52 bytes. sack bit i (word i / 32, bit
 * 31 - i % 32, most significant first) set means PSN cum_psn + 1 + i was
 * received; cum_psn itself is the first PSN not yet received.
 */
struct mrc_aext {
	__u8 version; /* MRC_WIRE_VERSION */
	__u8 flags; /* MRC_AF_* */
	__be16 ev; /* EV of the packet acknowledged (echo) */
	__u8 nack_reason; /* enum mrc_nack */
	__u8 pad;
	/*
	 * The responder's service time: from the acknowledged packet's
	 * arrival in its receive program to this answer's leaving, in
	 * MRC_SVC_UNIT_NS, saturating; 0 when it does not say. The sender
	 * takes it out of the RTT, so that only the network's delay drives
	 * congestion control (docs/congestion.md).
	 */
	__be16 svc;
	__be32 cum_psn; /* every PSN before this one has been received */
	__be32 ack_psn; /* PSN of the packet acknowledged (echo) */
	__be32 echo; /* the acknowledged packet's DEXT echo, returned */
	__be32 sack[MRC_SACK_BITS / 32];
};

/*
 * MRC probe extension, 24 bytes. The prober fills everything but svc_ns;
 * the responder turns the packet around in its receive program (addresses
 * swapped, ports kept, so the answer comes back over the same EV's reverse
 * path) and writes how long it held it.
 */
struct mrc_pext {
	__u8 version; /* MRC_WIRE_VERSION */
	__u8 flags; /* 0 */
	__be16 ev; /* the EV probed (the prober's UDP source port) */
	__u8 ev_idx; /* the prober's index of it, echoed */
	__u8 pad[3];
	__be32 seq; /* the prober's sequence number, echoed */
	__be32 tx_ts_hi; /* the prober's clock, ns, echoed */
	__be32 tx_ts_lo;
	__be32 svc_ns; /* responder: ns between receiving and answering */
};

/*
 * MRC control extension (CEXT), 20 bytes, after the BTH of an MRC_OP_CTL
 * message. Every one is between two QPs that are each other's peers: the
 * BTH names the receiver's QP, sqpn the sender's. token is what makes it
 * the peer's: a hello offers the sender's own (random, per QP, drawn at
 * RTR); every later message carries the receiver's, as its hello or its
 * answer gave it. A message for a QP whose peer is not sqpn at the
 * sender's address, or with the wrong token, is dropped and counted.
 *
 *  0: version (MRC_WIRE_VERSION)
 *  1: type (MRC_CTL_*)
 *  2: flags (MRC_CTLF_*)
 *  3: padding, 0
 *  4: the sender's QP
 *  8: seq: the sender's request number; an answer returns it
 * 12: token
 * 16: value: PSU, the port status bits (bit p-1: port p is up); hello,
 *     its answer and MPR, the sender's receive window (MPR) in PSNs
 */
struct mrc_cext {
	__u8 version;
	__u8 type;
	__u8 flags;
	__u8 pad0;
	__be32 sqpn;
	__be32 seq;
	__be32 token;
	__be32 value;
};
#define MRC_CTL_PSU 1 /* port status update (OCP PORT_STATUS_UPDATE) */
#define MRC_CTL_PSU_ANSWER 2 /* ...received and applied */
#define MRC_CTL_HELLO 3 /* a QP reached RTR/RTS: its token, dynamic MPR */
#define MRC_CTL_HELLO_ANSWER 4 /* ...and the peer QP's */
#define MRC_CTL_MPR 5 /* dynamic MPR: the responder's receive window now */
#define MRC_CTLF_DYN_MPR 0x01 /* hello: the sender enabled dynamic MPR */
#define MRC_CTL_LEN (sizeof(struct mrc_bth) + sizeof(struct mrc_cext))

_Static_assert(sizeof(struct mrc_bth) == 12, "BTH is 12 bytes");
_Static_assert(__builtin_offsetof(struct mrc_bth, pkey) == 2, "BTH pkey");
_Static_assert(__builtin_offsetof(struct mrc_bth, dqpn) == 4, "BTH dqpn");
_Static_assert(__builtin_offsetof(struct mrc_bth, psn) == 8, "BTH psn");
_Static_assert(sizeof(struct mrc_reth) == 16, "RETH is 16 bytes");
_Static_assert(__builtin_offsetof(struct mrc_reth, rkey) == 8, "RETH rkey");
_Static_assert(__builtin_offsetof(struct mrc_reth, len) == 12, "RETH len");
_Static_assert(sizeof(struct mrc_immdt) == 4, "ImmDt is 4 bytes");
_Static_assert(sizeof(struct mrc_dext) == 16, "DEXT is 16 bytes");
_Static_assert(__builtin_offsetof(struct mrc_dext, ev) == 2, "DEXT ev");
_Static_assert(__builtin_offsetof(struct mrc_dext, msg_len) == 8,
	       "DEXT msg_len");
_Static_assert(__builtin_offsetof(struct mrc_dext, echo) == 12, "DEXT echo");
_Static_assert(sizeof(struct mrc_aeth) == 4, "AETH is 4 bytes");
_Static_assert(sizeof(struct mrc_aext) == 52, "AEXT is 52 bytes");
_Static_assert(__builtin_offsetof(struct mrc_aext, svc) == 6, "AEXT svc");
_Static_assert(__builtin_offsetof(struct mrc_aext, cum_psn) == 8,
	       "AEXT cum_psn");
_Static_assert(__builtin_offsetof(struct mrc_aext, sack) == 20, "AEXT sack");
_Static_assert(sizeof(struct mrc_pext) == 24, "PEXT is 24 bytes");
_Static_assert(sizeof(struct mrc_cext) == 20, "CEXT is 20 bytes");
_Static_assert(__builtin_offsetof(struct mrc_cext, value) == 16, "CEXT value");
_Static_assert(__builtin_offsetof(struct mrc_pext, svc_ns) == 20,
	       "PEXT svc_ns");

/* Header bytes between the UDP header and the payload, per opcode. */
#define MRC_DATA_HDR_LEN                                    \
	(sizeof(struct mrc_bth) + sizeof(struct mrc_reth) + \
	 sizeof(struct mrc_dext))
#define MRC_DATA_IMM_HDR_LEN (MRC_DATA_HDR_LEN + sizeof(struct mrc_immdt))
/* IP, UDP and MRC headers of the largest data packet (with immediate). */
#define MRC_DATA_OVERHEAD(v6) \
	(((v6) ? 40u : 20u) + 8u + (unsigned int)MRC_DATA_IMM_HDR_LEN)
#define MRC_DATA_OVERHEAD_V6 MRC_DATA_OVERHEAD(1)
#define MRC_PROBE_LEN (sizeof(struct mrc_bth) + sizeof(struct mrc_pext))
#define MRC_ACK_LEN                                         \
	(sizeof(struct mrc_bth) + sizeof(struct mrc_aeth) + \
	 sizeof(struct mrc_aext))

/* Largest payload in one packet: a 4096-byte path MTU's worth. */
#define MRC_MAX_PAYLOAD 4096

/* 24-bit PSN arithmetic: a - b in -2^23..2^23-1. */
/*
 * The DEXT echo of PSN psn of a QP whose send side holds key (random,
 * never on the wire): the receiver returns it in the ACK or NACK, and the
 * sender acts on an answer only if it returns the echo of the PSN it
 * names. An off-path host that sees no traffic cannot forge one: it would
 * have to guess 32 bits for one PSN in flight (docs/security.md). A
 * keyed mix (splitmix64's finaliser), not a MAC: it needs only to be
 * unpredictable to whoever does not see the packets.
 */
static inline __u32 mrc_echo(__u32 key, __u32 psn)
{
	__u64 h = ((__u64)key << 32 | (psn & 0x00ffffffu)) +
		  0x9e3779b97f4a7c15ull;

	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;
	return (__u32)(h ^ (h >> 31));
}

static inline int mrc_psn_diff(__u32 a, __u32 b)
{
	return (int)((a - b) << 8) >> 8;
}

/*
 * SRv6 (docs/wire.md, "SRv6"): an SRv6 QP's packet travels inside an
 * outer IPv6 header (next header 41), or an outer IPv6 header and an SRH
 * of two segments (next header 43) when its route has a second segment.
 */
#define MRC_SRV6_OUTER_LEN 40u /* the outer IPv6 header */
#define MRC_SRV6_SRH_LEN 40u /* an SRH listing two segments */
#define MRC_SRV6_ENCAP_MAX (MRC_SRV6_OUTER_LEN + MRC_SRV6_SRH_LEN)
#define MRC_IPPROTO_ROUTING 43 /* IPv6 routing header (the SRH) */
#define MRC_IPPROTO_IPV6 41 /* IPv6 in IPv6 */
#define MRC_SRH_TYPE 4 /* Segment Routing Header (RFC 8754) */

/* The SRH mrc writes: two segments, the last one first (RFC 8754). */
struct mrc_srh {
	__u8 nexthdr;
	__u8 hdr_ext_len; /* 8-byte units after the first 8 */
	__u8 type;
	__u8 segments_left;
	__u8 last_entry;
	__u8 flags;
	__be16 tag;
	__u8 seg[2][16];
};
_Static_assert(sizeof(struct mrc_srh) == MRC_SRV6_SRH_LEN, "SRH layout");

#endif /* MRC_WIRE_H */
