/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the layouts of the maps and ring records the data path
 * shares with userspace (mrcd, libmrc, mrcctl, tests): keys, values, enums,
 * limits. Fixed-width types and explicit padding only. When a layout
 * changes, the map's name gets a new version suffix (STYLE.md).
 */
#ifndef MRC_ABI_H
#define MRC_ABI_H

#include <linux/bpf.h>
#include <linux/types.h>

#include "wire.h"

/* Limits of one device. */
#define MRC_MAX_QP 4096
#define MRC_MAX_MR 1024
#define MRC_MAX_CQ 1024

/*
 * Memory regions are arrays of chunks in a BPF_F_MMAPABLE array map, each
 * element a chunk followed by a pad. The XDP program writes at most
 * MRC_MAX_PAYLOAD bytes at an offset below MRC_MR_CHUNK, so the verifier
 * can prove every write stays in the element without knowing the
 * relation between offset and length; the pad is never written (a write
 * crossing a chunk boundary is split in two) and never mapped into the
 * application, which sees the chunks back to back as one buffer.
 */
#define MRC_MR_CHUNK (1u << 20)
#define MRC_MR_PAD 4096u
#define MRC_MR_ELEM (MRC_MR_CHUNK + MRC_MR_PAD)
_Static_assert(MRC_MR_PAD >= MRC_MAX_PAYLOAD, "pad covers one payload");

/* rkey: low bits index mrc_mr_info, the rest are random (unguessable). */
#define MRC_RKEY_INDEX_BITS 10
#define MRC_RKEY_INDEX_MASK ((1u << MRC_RKEY_INDEX_BITS) - 1)
_Static_assert(MRC_MAX_MR == 1u << MRC_RKEY_INDEX_BITS, "rkey index");

/* QP states, numbered as enum ibv_qp_state is. */
enum mrc_qp_state {
	MRC_QPS_RESET = 0,
	MRC_QPS_INIT = 1,
	MRC_QPS_RTR = 2,
	MRC_QPS_RTS = 3,
	MRC_QPS_ERR = 6,
};

/* Receive window: PSNs beyond cum_psn a QP accepts (MPR), at most. */
#define MRC_RX_WINDOW_MAX MRC_SACK_BITS
/* Receive state ring: twice the window, so no two live PSNs share a slot. */
#define MRC_RX_RING 512
_Static_assert(MRC_RX_RING >= 2 * MRC_RX_WINDOW_MAX, "ring covers window");

/* mrc_rx_slot.flags */
#define MRC_SLOT_LAST 0x01 /* the packet ended a message */
#define MRC_SLOT_IMM 0x02 /* ... a WRITE with immediate: complete it */

/* What a received packet leaves for its message's completion. */
struct mrc_rx_slot {
	__be32 imm; /* as on the wire */
	__u32 msg_len; /* bytes */
	__u32 flags; /* MRC_SLOT_* */
};

/*
 * Value of mrc_qp (array, key: QP number). Written by mrcd (all but the
 * receive state) and by the XDP receive program (under lock).
 */
struct mrc_qp {
	struct bpf_spin_lock lock;
	__u32 state; /* enum mrc_qp_state */
	__u32 peer_qpn; /* destination QP of the ACKs we send */
	__u32 pd; /* protection domain: its MRs only */
	__u32 recv_cq; /* CQ index for WRITE_IMM receive completions */
	__u32 window; /* MPR: PSNs accepted beyond cum_psn, <= 256 */
	/* Receive state, owned by the XDP program. */
	__u32 cum_psn; /* first PSN not yet received */
	__u32 cqe_psn; /* first PSN whose completion is not yet claimed */
	__u32 cqe_seq; /* receive completions claimed so far */
	__u32 pad0;
	__u64 rx_bits[MRC_RX_RING / 64]; /* bit PSN % MRC_RX_RING: received */
	struct mrc_rx_slot slot[MRC_RX_RING];
};

/* Value of mrc_mr_info (array, key: rkey & MRC_RKEY_INDEX_MASK). */
struct mrc_mr_info {
	__u32 rkey; /* 0: no region */
	__u32 pd;
	__u64 va; /* the address the region starts at, as peers name it */
	__u64 len; /* bytes */
	__u32 access; /* IBV_ACCESS_* */
	__u32 pad0;
};

/* Receive completion opcode, as enum ibv_wc_opcode numbers it. */
#define MRC_WC_RECV_RDMA_WITH_IMM 129

/*
 * Record of a completion queue ring (BPF ring buffer per CQ). Records of
 * one QP carry consecutive seq numbers; two CPUs may commit neighbours out
 * of order, and the consumer restores the order by seq.
 */
struct mrc_cqe {
	__u64 wr_id;
	__u32 qpn;
	__u32 seq; /* per QP and direction, from 0 */
	__u32 byte_len;
	__be32 imm; /* as on the wire */
	__u32 psn; /* PSN that completed the message */
	__u16 opcode; /* MRC_WC_* (enum ibv_wc_opcode) */
	__u16 status; /* enum ibv_wc_status */
};
_Static_assert(sizeof(struct mrc_cqe) == 32, "cqe layout");

/* Receive counters (mrc_rx_stats, per-CPU array indexed by counter). */
#define MRC_RX_COUNTERS(X)                 \
	X(PACKETS, "rx_packets")           \
	X(PLACED_BYTES, "placed_bytes")    \
	X(ACKS, "acks_sent")               \
	X(NACKS, "nacks_sent")             \
	X(COMPLETIONS, "recv_completions") \
	X(ECN_CE, "rx_ecn_ce")

#define MRC_X_RX_ENUM(name, str) MRC_RX_##name,
enum mrc_rx_counter { MRC_RX_COUNTERS(MRC_X_RX_ENUM) MRC_RX_MAX };
#undef MRC_X_RX_ENUM

#endif /* MRC_ABI_H */
