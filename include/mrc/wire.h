/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the on-wire layout of mrc packets, compiled by both the
 * BPF programs and userspace. docs/wire.md mirrors it byte for byte.
 *
 * Every mrc packet is UDP to port 4791 (RoCEv2) and starts with an
 * InfiniBand Base Transport Header, so standard RoCE dissectors decode the
 * opcode, destination QP and PSN. The MRC headers that follow the BTH come
 * with the data path.
 *
 * Only fixed-width types and explicit padding: the layout must be the same
 * for clang -target bpf and for gcc.
 */
#ifndef MRC_WIRE_H
#define MRC_WIRE_H

#include <linux/types.h>

#define MRC_UDP_PORT 4791 /* IANA: RoCEv2 */

/*
 * InfiniBand Base Transport Header (IBTA vol. 1, 9.2), 12 bytes, big endian.
 *
 *  0: opcode
 *  1: solicited event (1) | migreq (1) | pad count (2) | transport version (4)
 *  2: partition key (16)
 *  4: reserved (8)  (FECN and BECN live in its top bits in RoCE)
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
#define MRC_BTH_PSN_MASK 0x00ffffffu
#define MRC_BTH_ACKREQ 0x80000000u
#define MRC_PKEY_DEFAULT 0xffff

_Static_assert(sizeof(struct mrc_bth) == 12, "BTH is 12 bytes");
_Static_assert(__builtin_offsetof(struct mrc_bth, pkey) == 2, "BTH pkey");
_Static_assert(__builtin_offsetof(struct mrc_bth, dqpn) == 4, "BTH dqpn");
_Static_assert(__builtin_offsetof(struct mrc_bth, psn) == 8, "BTH psn");

#endif /* MRC_WIRE_H */
