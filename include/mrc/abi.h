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

#include "evmask.h"
#include "nscc.h"
#include "wire.h"

/*
 * The layout of every map and record below. mrcd pins the device under a
 * directory named after it (pin.c), so a daemon built for another layout
 * never misreads pinned state. Change it with any layout change.
 */
#define MRC_ABI_VERSION 26

/*
 * Limits of one device. QP numbers 0 and 1 are IB's special QPs and never
 * handed out, so 4098 map slots give 4096 QPs. Kernel memory for the QP
 * maps grows with this (docs/perf.md, "Memory"): 70,000 bytes per slot
 * with MRC_QP_EVS 256 (send and receive state, SRv6 routes, per-EV
 * counters), 275 MiB in all, and 12 KiB more for each QP's SQ while the
 * QP exists.
 */
#define MRC_MAX_QP 4098
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
struct mrc_qp_rx {
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
	/*
	 * Coalesced ACKs: the highest PSN an ACK has answered. A packet
	 * flagged ACK_LATER below it came after the ACK that was to cover
	 * it, and is answered at once (mrc_xdp_rx.bpf.c, mark_received).
	 */
	__u32 ack_psn_hi;
	__u64 rx_bits[MRC_RX_RING / 64]; /* bit PSN % MRC_RX_RING: received */
	struct mrc_rx_slot slot[MRC_RX_RING];
};

/*
 * Value of mrc_mr_info (array, key: rkey & MRC_RKEY_INDEX_MASK). The map
 * starts at a page boundary, so a buffer registered in the middle of a
 * page begins head bytes into it: the map covers [va, va + len), peers may
 * write [va + head, va + len), and local offsets (WQE laddr) count from va.
 */
struct mrc_mr_info {
	__u32 rkey; /* 0: no region */
	__u32 pd;
	__u64 va; /* the address the map starts at, as peers name it */
	__u64 len; /* bytes of the map, head included */
	__u32 access; /* IBV_ACCESS_* */
	__u32 head; /* bytes before the registered buffer, < page size */
};

/* Bytes of one completion ring: 21845 completions (a 48-byte record). */
#define MRC_CQ_RING_BYTES (1u << 20)
/*
 * Room a receive CQ ring must have for a packet to be taken: a window of
 * completions (a ring record is 8 header bytes and the CQE) on each of two
 * CPUs at once.
 */
#define MRC_CQ_ROOM_BYTES (2u * (MRC_RX_WINDOW_MAX + 1) * (8 + 40))
/*
 * ...and a send CQ ring for an ACK to be taken or a QP to send: the
 * completions of a whole send queue on each of two CPUs.
 */
#define MRC_SCQ_ROOM_BYTES (2u * (MRC_SQ_DEPTH + 1) * (8 + 40))

/*
 * A CQ's notify word: one __u32 in an mmapable array of its own
 * (mrc_cq_notify), which mrcd makes with the ring and the CQ's owner maps.
 * A completion on a CQ that is MRC_CQ_POLLED wakes no one: the
 * application polls, as on a NIC, and the data path saves the ring
 * buffer's wakeup (an IPI to its own CPU, a VM exit in a guest) per
 * completion batch. mrc_req_notify_cq() writes MRC_CQ_ARMED; the data
 * path, after committing completions to an armed CQ, sets it back to
 * MRC_CQ_POLLED and wakes the ring's waiters once (ibv_req_notify_cq's
 * one-shot event). A CQ with no word (mrcd's own) wakes as the ring
 * buffer decides. docs/libmrc.md.
 */
#define MRC_CQ_POLLED 0
#define MRC_CQ_ARMED 1

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
	/* CLOCK_MONOTONIC ns when the data path completed the work: the
	 * completion timestamp a NIC gives (mrcx_poll_cq_ts). */
	__u64 ts_ns;
};
_Static_assert(sizeof(struct mrc_cqe) == 40, "cqe layout");
_Static_assert(MRC_CQ_ROOM_BYTES == 2u * (MRC_RX_WINDOW_MAX + 1) *
					    (8 + sizeof(struct mrc_cqe)),
	       "CQ room: a ring record is 8 header bytes and the CQE");

/* --- the send side ---------------------------------------------------------- */

#define MRC_SQ_DEPTH 128 /* WQEs per QP */
_Static_assert(MRC_SCQ_ROOM_BYTES ==
		       2u * (MRC_SQ_DEPTH + 1) * (8 + sizeof(struct mrc_cqe)),
	       "send CQ room: the same records");
#define MRC_TX_RING 512 /* in-flight records per QP: PSN % MRC_TX_RING */
/* CC profiles' parameters in mrc_cc: slot = profile id; 0 is "none". */
#define MRC_CC_SLOTS 16
#define MRC_MAX_PORTS 8
/* PSNs waiting for retransmission, per QP: room for a whole window
 * (MRC_RX_WINDOW_MAX), as a burst of trims can ask (MRC_REC_NACKED). */
#define MRC_RETX_Q 256
_Static_assert(MRC_RETX_Q >= MRC_RX_WINDOW_MAX &&
		       !(MRC_RETX_Q & (MRC_RETX_Q - 1)),
	       "resend queue: a window, a power of two");
#define MRC_REORDER_NS_DEFAULT 500000 /* mrc_qp_tx.reorder_ns */
/* mrc_qp_tx.ack_every when mrcd's config names none (ack-every). */
#define MRC_ACK_EVERY_DEFAULT 8
#define MRC_ACK_EVERY_MAX 64
/* rtt_hi_ns stops here: an outlier cannot put off the silence rule
 * for long. */
#define MRC_RTT_HI_MAX_NS 50000000u
/* ...and each sample below it takes 1/2^this of the difference off: a
 * time constant of about a thousand ACKs. */
#define MRC_RTT_HI_DECAY_SHIFT 10
/* Path health remembers the full queues of the last 64 slots of send time
 * (mrc_qp_tx.cong_slots) of 2^22 ns (4.19 ms) each: 268 ms, longer than
 * an ACK timeout and its first backoffs. */
#define MRC_CONG_SLOT_SHIFT 22
/* While a queue is full (health_congested), an EV is found silent only
 * with this many packets unanswered on it at least: a full drop-tail
 * queue drops one, a dead path all. */
#define MRC_SILENT_STRIKES 2
/* ...and as many more as make a false verdict, strikes - 1 losses in a
 * row at the QP's loss rate, less likely than 2^-this (health_strikes), */
#define MRC_SILENT_FALSE_BITS 20
/* ...and no more than this. */
#define MRC_SILENT_STRIKES_MAX 16
/* The loss rate's memory: sent_n and sent_retx_n halve past this. */
#define MRC_SENT_SPAN 4096
/* Steering: an answer this much slower than twice the QP's srtt_ns says
 * its EV's queue is far deeper than its siblings'. */
#define MRC_SLOW_MIN_NS 1000000u
/* ...and a CE mark or a trim keeps its EV out of turn for two srtt_ns,
 * at least this long, */
#define MRC_COOL_MIN_NS 100000u
/* ...for no longer than this, however slow. */
#define MRC_COOL_MAX_NS 50000000u
/* The sprayer passes cooled EVs by only while at least 1/this of the EVs
 * in use (and ev_min_active) are left: incast marks every path, and
 * a few EVs cannot carry what all of them did. */
#define MRC_COOL_KEEP_DIV 4
/* una's answer overdue (health_pto) before its ACK timeout: resent early,
 * no verdict, while it has gone out at most this many times. */
#define MRC_OVERDUE_TRIES 2
#define MRC_REORDER_PKTS \
	3 /* a hole is resent once a PSN more than this beyond it is SACKed */
#define MRC_RETRY_INFINITE 25 /* retry_exp: retry forever (OCP MRC) */
_Static_assert(MRC_TX_RING >= 2 * MRC_RX_WINDOW_MAX, "tx ring covers window");

/* Work request opcodes and flags, numbered as rdma-core's verbs.h does. */
#define MRC_WR_RDMA_WRITE 0
#define MRC_WR_RDMA_WRITE_WITH_IMM 1
#define MRC_SEND_SIGNALED (1 << 1)
#define MRC_WQE_PIECE (1 << 8) /* not the last WQE of a split WR (libmrc) */
#define MRC_WC_RDMA_WRITE 1 /* enum ibv_wc_opcode */
#define MRC_WC_SUCCESS 0 /* enum ibv_wc_status */
#define MRC_WC_REM_ACCESS_ERR 10
#define MRC_WC_RETRY_EXC_ERR 12

/* Send queue entry. The poster fills one, then advances mrc_sq.tail. */
struct mrc_wqe {
	__u64 wr_id;
	__u64 laddr; /* offset into the local region */
	__u64 raddr; /* remote address */
	__u32 lkey; /* local region: index in the low MRC_RKEY_INDEX_BITS */
	__u32 rkey;
	__u32 len; /* bytes */
	__be32 imm;
	__u16 opcode; /* MRC_WR_* */
	__u16 flags; /* MRC_SEND_SIGNALED */
	__u32 msg_len; /* WRITE_IMM split over WQEs: the whole; 0: len */
};
_Static_assert(sizeof(struct mrc_wqe) == 48, "wqe layout");

/*
 * A QP's send queue: the single element of an mmapable array map, mapped
 * by the application (which writes WQEs and tail) and by mrcd. The data
 * path mirrors what the poster needs to know into the same page: which
 * WQEs are done (their slots are free again, signaled or not) and whether
 * the QP failed.
 */
struct mrc_sq {
	__u32 tail; /* one past the newest posted WQE (free-running) */
	__u32 done; /* written by the data path: WQEs before it completed */
	__u32 state; /* written by the data path: MRC_QPS_ERR once failed */
	__u32 err_wqe; /* ...and the free-running index of the WQE that failed */
	__u32 pumping; /* written by mrcd: it is sending; no doorbell needed */
	__u32 sent; /* written by the data path: WQEs before it all sent */
	/*
	 * No mrcd serves the queue: set by the pump's watch
	 * (bpf/mrc_pump_gone.bpf.c) and by an mrcd that stops leaving the
	 * device running, in every queue; cleared in every queue by the
	 * next mrcd's claim once it listens. The poster then rings the
	 * low-latency doorbell for every post, and an empty poll for work
	 * left behind; the packet's ACK clocks the rest (docs/lowlat.md).
	 */
	__u32 no_pump;
	__u32 pad;
	struct mrc_wqe wqe[MRC_SQ_DEPTH];
};
_Static_assert(__builtin_offsetof(struct mrc_sq, wqe) == 32, "sq layout");

/* mrc_tx_rec.flags */
#define MRC_REC_INFLIGHT 0x01 /* sent, not yet acknowledged */
#define MRC_REC_LAST 0x02 /* last packet of its WQE */
#define MRC_REC_RETX_Q 0x04 /* queued for retransmission */
#define MRC_REC_LOST 0x08 /* ...because a SACK hole showed it lost */
/* Last sent through the kernel stack (the tc path), not as an XDP frame:
 * later frames on its EV may overtake it, so they prove no loss of it. */
#define MRC_REC_SKB 0x10
/* Its last transmission never left: building the frame failed after the
 * pick (tx.h, tx_unsend). Its EV lost nothing. */
#define MRC_REC_UNSENT 0x20
/* Its last transmission was NACKed for resending (trimmed, say) while the
 * resend queue was full: it goes again as soon as there is room (the next
 * ACK's holes) or when it is the oldest, at once, never waiting out its
 * timeout and never counted against its EV. */
#define MRC_REC_NACKED 0x40

/* What the sender remembers of one PSN in flight. */
struct mrc_tx_rec {
	__u64 raddr;
	__u64 laddr;
	__u64 tx_ns; /* last transmission, bpf_ktime_get_ns() */
	__u32 wqe; /* free-running SQ index */
	__u32 len;
	__u8 tries; /* transmissions, for any reason (stops at 255) */
	/*
	 * The CPU its last transmission left from (low 8 bits). Packets of
	 * one EV sent from two CPUs take two CPUs' queues through the
	 * fabric's veths, and either may run late: only a later packet from
	 * the same CPU proves it lost (mrc_xdp_rx.bpf.c, the same-EV rule).
	 */
	__u8 cpu;
	__u8 ev_idx; /* index into the QP's ev[] of the last transmission */
	/*
	 * ACK timeouts it has waited out: only these count against the QP's
	 * retry_linear + retry_exp and set the backoff. A resend on SACK or
	 * NACK evidence is not a retry; counting it would fail a QP that only
	 * saw reordering, and stretch the backoff when the peer goes away.
	 */
	__u8 timeouts;
	__u16 ev;
	__u8 port;
	__u8 flags; /* MRC_REC_* */
};
_Static_assert(sizeof(struct mrc_tx_rec) == 40, "tx record layout");

/*
 * Value of mrc_qp_tx (array, key: QP number): the send side, under its own
 * lock so senders and receivers of one QP do not contend. mrcd sets the
 * configuration; the transmit program and ACK processing own the rest.
 */
struct mrc_qp_tx {
	struct bpf_spin_lock lock;
	__u32 state; /* enum mrc_qp_state */
	__u32 peer_qpn;
	__u32 send_cq;
	__u32 window; /* the peer's receive window (MPR), PSNs */
	__u32 mtu; /* payload bytes per packet, <= MRC_MAX_PAYLOAD */
	__u32 nev; /* EVs in ev[] */
	/*
	 * ACK timeout and retries, as the OCP MRC QP attributes give them:
	 * the timeout is 1.024 us x 2^timeout (mrcd computes it); the first
	 * retry_linear retries wait one timeout each, the next retry_exp
	 * twice as long as the one before (MRC_RETRY_INFINITE: no limit);
	 * then the WQE fails with IBV_WC_RETRY_EXC_ERR and the QP goes to
	 * ERR.
	 */
	__u64 timeout_ns;
	__u32 retry_linear;
	__u32 retry_exp;
	__u32 max_wimm; /* WRITE_IMMs in flight at most (peer's); 0: no limit */
	__u32 ev_min_active; /* EVs that stay in use however bad they look */
	/*
	 * How far packets of different EVs may overtake each other (path
	 * delays differ): within one EV, reorder_ns / 8 (two CPUs sending);
	 * an EV that delivered nothing for 2 x reorder_ns while others did
	 * is dead (health.h).
	 */
	__u32 reorder_ns;
	__u32 echo_key; /* mrc_echo()'s key: random, never on the wire */
	__u64 db_token; /* a doorbell for this QP must carry it (random) */
	__u8 peer_v6;
	/*
	 * An ACK was refused for want of room in the send CQ (back-pressure):
	 * until one is taken in again, a timeout is no evidence against the
	 * EV the PSN went out on. Owned by the data path.
	 */
	__u8 cq_stalled;
	/* 1: its EVs are SRv6 source routes (mrc_qp_srv6; docs/wire.md). */
	__u8 srv6;
	/*
	 * Coalesced ACKs: at most ack_every - 1 packets in a row go out with
	 * MRC_DF_ACK_LATER (wire.h); 0 or 1: every packet asks for its ACK.
	 */
	__u8 ack_every;
	/*
	 * 1: ACK clocking only while no mrcd pumps. Set when mrcd transmits
	 * by skb (docs/mrcd.md): its doorbells' packets leave at once and
	 * an ACK's packet at the end of the NAPI poll, so the two overtook
	 * each other within an EV, read as losses and silence.
	 */
	__u8 clock_no_mrcd_only;
	__u8 pad_clock;
	__u16 ev[MRC_QP_EVS]; /* UDP source ports to spray over */
	/*
	 * ...and, for STEV EVs to an IPv6 peer, the EV's high 16 bits: the
	 * low 16 bits of the flow label (docs/controller.md). 0 otherwise.
	 */
	__u16 ev_fl[MRC_QP_EVS];
	__u8 ev_port[MRC_QP_EVS]; /* ...and the port each leaves by */
	/* Bit i of port_evs[p]: ev[i] leaves by port p. A resend avoids
	 * the port its packet was lost on (health_next_ev). */
	struct mrc_evmask port_evs[MRC_MAX_PORTS];
	__u8 peer_addr[MRC_MAX_PORTS][16]; /* peer's address per port */
	/*
	 * Its CC profile: the slot of mrc_cc whose parameters NSCC runs
	 * with (docs/congestion.md); 0: no congestion control, only the
	 * peer's window and WIMM limit gate what it sends.
	 */
	__u32 cc_slot;
	/* Owned by the data path. */
	__u32 ack_run; /* packets sent MRC_DF_ACK_LATER since one that was not */
	__u32 next_psn;
	__u32 una_psn; /* oldest PSN not acknowledged */
	__u32 sq_head; /* free-running: next WQE to send from */
	__u32 sq_off; /* bytes of it sent */
	__u32 sq_done; /* free-running: next WQE to complete */
	__u32 cqe_seq; /* send completions claimed */
	__u32 ev_next; /* round-robin cursor: the EV index to try next */
	__u32 wimm_inflight; /* WRITE_IMM WQEs started, not completed */
	__u32 retx_head; /* free-running ring of PSNs to retransmit */
	__u32 retx_tail;
	__u32 retx[MRC_RETX_Q];
	__u32 wqe_last_psn[MRC_SQ_DEPTH]; /* valid once the WQE is all sent */
	/*
	 * Path health (docs/health.md). Bit i of ev_use: ev[i] carries
	 * traffic. ev_state[i] is its MRC_EV_* state; an ASSUMED_BAD EV
	 * stays in use only while ev_min_active needs it. ev_acked_ns[i]:
	 * when the newest acknowledged packet that went out on ev[i] was
	 * sent; a packet sent on ev[i] before that and not acknowledged was
	 * lost there (one EV is one path, and a path keeps order).
	 */
	__u64 acked_tx_ns; /* when the newest acknowledged packet was sent */
	/*
	 * The newest clock reading a pick went by (tx_pick): a pick never
	 * goes by an earlier one. Each transmit path reads the clock before
	 * it takes the send lock; another CPU may stamp a packet in between,
	 * and that packet must not look sent in the future (an unsigned
	 * "waited" wraps, and it timed out at once: ACK clocking's spurious
	 * ack_timeouts, 5-9 a sender in an 8 s incast).
	 */
	__u64 tx_clock_ns;
	struct mrc_evmask ev_use;
	struct mrc_evmask ev_denied; /* bit i: ev[i] is DENIED, never used */
	__u8 ev_state[MRC_QP_EVS];
	/* Packets sent on ev[i] since its newest delivered one (at most
	 * 255): the silence rule's strikes while a queue is full. */
	__u8 ev_silent_n[MRC_QP_EVS];
	/*
	 * The silence rule's proof while a queue is full: of ev[i]'s
	 * unanswered packets, the one sent at ev_strike_ns[i] was the
	 * ev_strike_n[i]-th, the first to reach the strikes health_strikes
	 * asked when it left. Its loss, and that of every one before it, is
	 * proven once a packet sent later by the silence margin is
	 * delivered; packets still in flight are no strikes. A record older
	 * than ev_silent_ns[i] belongs to an earlier silence: none.
	 */
	__u8 ev_strike_n[MRC_QP_EVS];
	/* The CPU that sent the packet ev_acked_ns[i] names (mrc_tx_rec.cpu). */
	__u8 ev_acked_cpu[MRC_QP_EVS];
	/*
	 * When the newest packet counted in ev_silent_n[i] left (the low 32
	 * bits of its send time): a packet sent on ev[i] within a smoothed
	 * round trip (srtt_ns) of it is no strike of its own, for a full
	 * queue takes whatever reaches it until its senders can react, a
	 * round trip later: a burst it drops is one loss, not many.
	 */
	__u32 ev_silent_last[MRC_QP_EVS];
	/*
	 * When the first packet sent on ev[i] after its newest delivered
	 * one left (0: none since). An EV silent for 2 x reorder_ns while
	 * packets sent later on other EVs were delivered is dead: a dead
	 * path delivers nothing later on its own EV to prove a loss by.
	 */
	__u64 ev_silent_ns[MRC_QP_EVS];
	__u64 ev_strike_ns[MRC_QP_EVS];
	__u64 ev_acked_ns[MRC_QP_EVS];
	/*
	 * Congestion as path health sees it (docs/health.md), with or
	 * without a CC profile. rtt_hi_ns: the highest round trip lately (a
	 * sample above it raises it; each one below takes 1/1024 of the
	 * difference off), added to the silence rule's margin, so that a
	 * deeper queue on one plane is not read as a dead path.
	 * cong_slots: which stretches of send time met a full queue, by the
	 * answers (an ECN echo, a TRIMMED NACK); a packet sent within
	 * 2 x reorder_ns + 2 x rtt_hi_ns of one that is lost or times out
	 * met that queue too: resent, taken by the window, no EV blamed
	 * (the silence rule still finds a dead path).
	 */
	__u32 rtt_hi_ns;
	/* The QP's smoothed round trip over all its EVs (gain 1/8; 0: no
	 * sample yet): what "slow" is measured against when steering. */
	__u32 srtt_ns;
	/*
	 * Packets sent lately, and how many of those were resends (both
	 * halved when sent_n passes MRC_SENT_SPAN): the QP's loss rate, by
	 * which the silence rule asks for more strikes while a queue is
	 * full (health_strikes).
	 */
	__u32 sent_n;
	__u32 sent_retx_n;
	/*
	 * Bit j of cong_slots: a packet sent in slot cong_slot_hi - j (send
	 * time >> MRC_CONG_SLOT_SHIFT) was answered "full queue". One bit
	 * per slot, not one interval: a timeout is judged long after its
	 * episode, when newer episodes have come and gone. 0: none yet.
	 */
	__u64 cong_slots;
	__u64 cong_slot_hi;
	/*
	 * Steering (docs/health.md): bit i of ev_cool, the sprayer passes
	 * ev[i] by until a packet sent at ev_cool_ns[i] or later
	 * (bpf_ktime_get_ns()) is delivered (acked_tx_ns), because an answer
	 * to a packet sent on it was CE-marked, trimmed, or far slower than
	 * the QP's srtt_ns. Not a verdict: its state stays as it was.
	 */
	struct mrc_evmask ev_cool;
	__u64 ev_cool_ns[MRC_QP_EVS];
	/*
	 * Bit i: ev[i] was found silent and passed by (ev_cool, for
	 * health_silence_pass_ns), and has delivered nothing since: found
	 * silent again, it is blamed. The bit goes when a packet sent on it
	 * is delivered (it was held up, not dead) or when it is blamed.
	 */
	struct mrc_evmask ev_cool_silent;
	/*
	 * The congestion window (bpf/lib/nscc.h), with cc_slot; mrcd
	 * starts it (nscc_init) when it makes the QP ready to send.
	 */
	struct mrc_nscc cc;
	struct mrc_tx_rec rec[MRC_TX_RING];
};

/*
 * EV states, with the values of the OCP MRC controller API's enum
 * mrc_ctl_ev_state. The data path moves an EV GOOD -> ASSUMED_BAD; mrcd
 * moves it back after probes; only the controller sets and clears DENIED.
 */
#define MRC_EV_GOOD (1u << 0)
#define MRC_EV_ASSUMED_BAD (1u << 1)
#define MRC_EV_DENIED (1u << 2)

/*
 * Why an EV event was raised (the OCP event has no reason; ours does):
 * X(name, value, what userspace prints). One list: the enum below, the
 * names (mrc/ev_names.h) and the checks that mrc_ext.h's public copy
 * (enum mrcx_ev_reason) has every one with the same value
 * (mrc/mrcd_proto.h) all come from it.
 */
#define MRC_EV_REASONS(X)                                       \
	/* a later packet on the same EV got through */         \
	X(LOSS, 1, "loss on this EV")                           \
	/* the ACK timeout of a packet sent on it */            \
	X(TIMEOUT, 2, "ACK timeout")                            \
	/* consecutive probe answers: GOOD again */             \
	X(PROBES, 3, "probes answered")                         \
	/* its port lost carrier or was disabled */             \
	X(PORT_DOWN, 4, "port down")                            \
	/* its port is back (it is probed first) */             \
	X(PORT_UP, 5, "port up")                                \
	/* the controller denied it */                          \
	X(DENY, 6, "denied")                                    \
	/* the controller allowed it again */                   \
	X(ALLOW, 7, "allowed")                                  \
	/* looked bad, kept in use: ev_min_active */            \
	X(MIN_ACTIVE, 8, "kept in use: ev_min_active")          \
	/* a probe came back (MRC_EVT_PROBE) */                 \
	X(PROBE_ANSWER, 9, "probe answer")                      \
	/* delivered nothing while later packets did */         \
	X(SILENT, 10, "silent while later packets got through") \
	/* delivers, but its RTT is far above its peers' */     \
	X(GRAY, 11, "gray: RTT far above its siblings'")        \
	/* delivers, but loses far more than its peers */       \
	X(LOSSY, 12, "lossy: loses far more than its siblings") \
	/* the peer said the port it leads to is down (PSU) */  \
	X(PEER_PORT_DOWN, 13, "the peer's port is down")

#define MRC_EV_REASON_ENUM(name, value, text) MRC_EV_R_##name = value,
enum mrc_ev_reason { MRC_EV_REASONS(MRC_EV_REASON_ENUM) };
#undef MRC_EV_REASON_ENUM

/* Record types in mrc_ev_events. */
#define MRC_EVT_STATE 1 /* an EV changed state (or was kept in use) */
#define MRC_EVT_PROBE 2 /* a probe answer arrived */
#define MRC_EVT_WAKE 3 /* an ACK opened the window of a QP mrcd waits on */

/*
 * mrcd's own, never handed to applications (both mmapable arrays):
 * mrc_wake[qpn] is 1 when mrcd found the QP unable to send (window or
 * WRITE_IMM limit) and wants a wakeup; the receive program clears it on
 * an ACK that moves the window and queues an MRC_EVT_WAKE event. Its
 * values are __u64 (mrc_wake_t): mmapped, an array's elements lie 8 bytes
 * apart whatever the value size, so only an 8-byte value puts entry qpn
 * at index qpn of what mrcd maps (with __u32 values mrcd's flag for QP 2
 * landed in entry 1, and no ACK ever woke it).
 * mrc_probe_arm[0] is the sequence numbers of the device probes mrcd
 * waits for: answers outside it are dropped (stray_probe_answer).
 */
typedef __u64 mrc_wake_t;
_Static_assert(sizeof(mrc_wake_t) == 8, "mrc_wake: the mmapped stride");
/* What mrcd mmaps of mrc_wake: one mrc_wake_t per QP. */
#define MRC_WAKE_MAP_BYTES (MRC_MAX_QP * sizeof(mrc_wake_t))

/*
 * Who pumps the device (mrc_pump[0]): tgid, the mrcd serving it, written
 * by that mrcd when it has taken the device. When that process is
 * killed or exits (the pump's watch, bpf/mrc_pump_gone.bpf.c), or stops
 * and leaves the device running (mrcd itself), gone is set, and gone_ns
 * (bpf_ktime_get_ns()); the next mrcd clears them. While gone, an ACK
 * that makes room sends the next packet of any QP (ACK clocking,
 * docs/congestion.md), not only of those with a CC profile, so
 * transfers keep moving with no mrcd to pump them; and every send queue
 * says so to its poster (mrc_sq.no_pump).
 */
struct mrc_pump {
	__u32 tgid;
	__u32 gone;
	__u64 gone_ns;
};
_Static_assert(sizeof(struct mrc_pump) == 16, "pump layout");

struct mrc_probe_arm {
	__u32 seq_lo, seq_hi; /* [seq_lo, seq_hi) */
};

/*
 * One record of mrc_ev_events (a BPF ring buffer mrcd consumes). A record
 * that finds the ring full is counted in mrc_tx_stats as ev_events_dropped,
 * so every loss is known exactly.
 */
struct mrc_ev_event {
	__u64 ts_ns; /* bpf_ktime_get_ns() */
	__u32 qpn;
	__u16 ev; /* the EV's value: its UDP source port */
	__u8 ev_idx; /* index into the QP's ev[] */
	__u8 port; /* 0-based */
	__u8 type; /* MRC_EVT_* */
	__u8 state; /* new state (MRC_EV_*) */
	__u8 old_state;
	__u8 reason; /* enum mrc_ev_reason */
	union {
		struct {
			__u32 seq; /* probe: its sequence number */
			__u32 rtt_ns; /* probe: round trip less the responder's time */
			__u32 svc_ns; /* probe: the responder's time, subtracted */
		};
		/* A state change for MRC_EV_R_SILENT: the evidence. */
		struct {
			__u32 silent_ns; /* since its first unanswered packet left */
			__u32 lead_ns; /* the newest delivered one left this later */
			__u32 margin_ns; /* the lead the rule asked for */
		};
	};
	__u32 ifindex; /* probe: the interface the answer came in on */
};
_Static_assert(sizeof(struct mrc_ev_event) == 40, "ev event layout");
#define MRC_EV_RING_BYTES (1u << 18)

/*
 * A command to the data path, run through BPF_PROG_TEST_RUN of mrc_xdp_ctl
 * with this struct as the packet: state changes that must happen under
 * the QP's send lock, which userspace cannot take, and the one way mrcd
 * reads a QP's send state (a consistent copy of the fields it needs, not
 * the 23 KB map value).
 */
enum mrc_dp_op {
	MRC_DP_EV_GOOD = 1, /* ASSUMED_BAD -> GOOD (probes answered) */
	MRC_DP_EV_BAD = 2, /* GOOD -> ASSUMED_BAD (reason given) */
	MRC_DP_EV_DENY = 3, /* any -> DENIED */
	MRC_DP_EV_ALLOW = 4, /* DENIED -> ASSUMED_BAD: probed before use */
	/* The QP's struct mrc_qp_view, written after the command. */
	MRC_DP_QP_READ = 5,
	/* Both halves' state := value, each under its own lock. */
	MRC_DP_QP_STATE = 6,
	/* The send half's window (the peer's MPR) := value, 1..256 PSNs:
	 * dynamic MPR (docs/controller.md). */
	MRC_DP_QP_WINDOW = 7,
	/* The receive half's window (our MPR) := value, 1..256 PSNs. */
	MRC_DP_QP_RX_WINDOW = 8,
	/*
	 * A frame mrcd built whole (an EV probe, or a control message to a
	 * peer's mrcd) follows the command: out of port value (0-based)
	 * through its mrc_tx_port entry, like the data. Run with live frames;
	 * at most MRC_DP_FRAME_MAX bytes. No qpn.
	 */
	MRC_DP_EMIT = 9,
};
#define MRC_DP_FRAME_MAX 512

struct mrc_dp_cmd {
	__u32 magic; /* MRC_DP_MAGIC */
	__u32 op; /* enum mrc_dp_op */
	__u32 qpn;
	__u32 ev_idx;
	__u32 reason; /* enum mrc_ev_reason, for the event */
	__u32 result; /* written back: 0, or an errno */
	__u32 value; /* MRC_DP_QP_STATE: the new state */
	__u32 pad0;
};
_Static_assert(sizeof(struct mrc_dp_cmd) == 32, "dp command layout");
#define MRC_DP_MAGIC 0x4d52434cu /* "MRCL" */

/*
 * What mrcd knows of a QP's send half (MRC_DP_QP_READ): its configuration
 * and EVs, and where the data path is, copied under the send lock.
 */
struct mrc_qp_view {
	__u32 state; /* enum mrc_qp_state */
	__u32 peer_qpn;
	__u32 window;
	__u32 mtu;
	__u32 nev;
	__u32 next_psn;
	__u32 una_psn;
	__u32 sq_head;
	__u32 sq_done;
	__u32 pad0;
	__u64 timeout_ns;
	struct mrc_evmask ev_use;
	struct mrc_evmask ev_denied;
	__u16 ev[MRC_QP_EVS];
	__u16 ev_fl[MRC_QP_EVS];
	__u8 ev_port[MRC_QP_EVS];
	__u8 ev_state[MRC_QP_EVS];
	__u8 peer_addr[MRC_MAX_PORTS][16];
	/* Congestion control (cc_slot 0: none, the rest 0). */
	__u32 cc_slot;
	__u32 cwnd_bytes;
	__u32 inflight_bytes;
	__u32 cc_base_rtt_ns; /* the smallest RTT seen */
	__u32 cc_avg_delay_ns; /* queueing delay, averaged over a base RTT */
	/* Path health and steering (docs/health.md). */
	__u32 srtt_ns; /* smoothed round trip over every EV; 0: none yet */
	__u32 rtt_hi_ns; /* the high round trip lately */
	__u32 pad1;
	/* EVs cooled now (steering), their time not yet past */
	struct mrc_evmask ev_cool;
};
_Static_assert(sizeof(struct mrc_qp_view) == 48 + 3 * 8 * MRC_EV_WORDS +
						     6 * MRC_QP_EVS +
						     16 * MRC_MAX_PORTS + 32,
	       "QP view layout");

/*
 * What the sender knows of one EV of one QP: value of mrc_ev_stats, an
 * mmapable array keyed by QP number x MRC_QP_EVS + EV index. The data path
 * adds with atomics; the RTT fields are updated without a lock and may
 * lose a sample under contention.
 */
struct mrc_ev_stats {
	__u64 sent; /* packets, retransmissions included */
	__u64 retx; /* retransmissions sent on this EV */
	__u64 acked; /* packets sent on it and acknowledged (any ACK) */
	__u64 lost; /* resent because lost here: SACK hole or ACK timeout */
	__u64 ecn_ce; /* ACKs saying the packet arrived CE-marked */
	__u64 last_ack_ns; /* bpf_ktime_get_ns(): an ACK covered one of its packets */
	/*
	 * RTTs come from the packet an ACK answers, first transmissions only
	 * (Karn). An EV whose packets are always covered first by the ACK
	 * of another (its path is a little slower) has no sample: 0.
	 */
	__u32 rtt_min_ns;
	__u32 rtt_srtt_ns; /* smoothed, gain 1/8 */
	__u32 rtt_max_ns;
	__u32 trimmed; /* NACKs saying a switch cut the packet (never blamed) */
	__u64 rtt_samples; /* RTT samples taken, ever (the gray look's) */
	/*
	 * Of lost, those sent while a queue had been full lately
	 * (health_congested_lately): a full queue's drops, which mrcd's
	 * lossy rule does not hold against the path.
	 */
	__u64 lost_queue;
};
_Static_assert(sizeof(struct mrc_ev_stats) == 80, "ev stats layout");

/*
 * Low-latency doorbell: a UDP datagram to 127.0.0.1:MRC_DOORBELL_PORT that
 * the tc egress program on lo turns into the QP's next packet and sends
 * out of the chosen port, instead of waking mrcd. Any process may send
 * one; only a datagram with the QP's token does anything.
 */
#define MRC_DOORBELL_PORT 4792
#define MRC_DOORBELL_MAGIC 0x4d524344 /* "MRCD" */
struct mrc_doorbell {
	__be32 magic;
	__u32 qpn;
	__u64 token; /* mrc_qp_tx.db_token */
};
_Static_assert(sizeof(struct mrc_doorbell) == 16, "doorbell layout");

/* Value of mrc_port (array, key: port index): this host's end of a plane. */
struct mrc_port {
	__u32 ifindex;
	__u8 v6;
	__u8 pad0;
	__u8 smac[6]; /* ours */
	__u8 dmac[6]; /* the next hop's */
	__u8 pad1[2];
	__u8 saddr[16]; /* ours; IPv4 in the first 4 bytes */
};

/*
 * SRv6 (docs/wire.md, "SRv6"): a QP whose EV profile has an SRV6 format
 * sends every packet inside an outer IPv6 header whose destination is
 * the EV's uSID container (F3216), with an SRH when the EV has a second
 * segment, around the plain IPv6 packet. Its answers (ACKs, NACKs, probe
 * answers) go back the same way, on a route of the answering QP's own:
 * the receiver never takes a route from a packet.
 */
/* MRC_SRV6_OUTER_LEN, _SRH_LEN, _ENCAP_MAX and struct mrc_srh: wire.h. */
/* F3216: a 32-bit block, then 16-bit uSIDs (RFC 9800). */
#define MRC_SRV6_BLOCK_BYTES 4u
/* The UDP source port (and DEXT EV) of EV index i of an SRv6 QP. */
#define MRC_SRV6_SPORT(i) (0xc000u | ((i) & (MRC_QP_EVS - 1)))

struct mrc_srv6_route {
	__u8 dst[16]; /* the outer destination: block and uSIDs */
	__u8 seg[16]; /* the SRH's one further segment; all zero: no SRH */
};

/*
 * Value of mrc_qp_srv6 (array, key: QP number), written by mrcd when the
 * QP goes to RTR. route[i] is EV i's (port ev_port[i] of mrc_qp_tx);
 * by_port[p][0 .. n_by_port[p] - 1] are the EVs on port p, from which an
 * answer arriving on port p picks its way back.
 */
struct mrc_qp_srv6 {
	__u32 nroute; /* 0: not an SRv6 QP */
	__u16 n_by_port[MRC_MAX_PORTS]; /* up to MRC_QP_EVS on one port */
	__u8 port[MRC_QP_EVS]; /* route i leaves by port[i] */
	__u8 by_port[MRC_MAX_PORTS][MRC_QP_EVS];
	struct mrc_srv6_route route[MRC_QP_EVS];
};

/*
 * One transmit call of mrc_xdp_tx (BPF_PROG_TEST_RUN, live frames) serves
 * a list of QPs: the caller fills a list of its own (struct mrc_tx_list,
 * in the program's tx_list[]) and names it in the slot of the CPU it is
 * on (tx_call[], one slot per CPU). A call runs on one CPU from start to
 * end (the kernel disables migration for it), so callers on different
 * CPUs transmit at once without sharing one (mrcd's transmit threads,
 * docs/mrcd.md). A run whose slot names another thread sends nothing
 * (tx_runs_not_caller): its caller moved to another CPU before the call
 * began, or another thread took the slot while it was preempted. The
 * list is the caller's alone, so what such runs leave undone is still
 * in it, for its next call.
 */
struct mrc_tx_call {
	__u32 tid; /* the calling thread (gettid()), 0: no call */
	__u32 list; /* index into tx_list[] of the list it serves */
	/* A cache line each: two CPUs' slots must not share a line. */
	__u32 pad[14];
};
_Static_assert(sizeof(struct mrc_tx_call) == 64, "a slot per cache line");
/* CPUs with a slot; a run on another sends nothing */
#define MRC_TX_CALL_CPUS 1024

/*
 * One QP of a call's list: up to left runs build its packets, the last of
 * them asking for an ACK (left 0: no limit, every run asks; for tests).
 * Transmit lanes (docs/mrcd.md): calls for one QP at once on several CPUs
 * each spray over their own EVs, those whose index is lane modulo lanes
 * (1, 2, 4 or 8), so one EV's packets leave in order.
 */
struct mrc_tx_entry {
	__u32 qpn;
	__u16 left; /* runs left for it, counted down by the program */
	__u16 sent; /* packets it sent, counted by the program */
	__u16 lane;
	__u16 lanes;
};
_Static_assert(sizeof(struct mrc_tx_entry) == 12, "packed");

/*
 * A caller's list. Each run serves entry next: a packet it sends counts
 * against the entry's left, and the run that uses the last of it moves
 * next on. A run that finds nothing to send for the entry (its window,
 * its queue, its CQ) moves next on as well, unless the entry is the
 * list's last: that one keeps its runs, as a QP alone in a call does, so
 * ACKs that arrive during the call can open its window. Runs after the
 * list's end send nothing (tx_runs_spare). runs counts the caller's runs,
 * so a call none of whose runs was its own is told apart.
 */
#define MRC_TX_LIST_MAX 244 /* entries a list holds */
#define MRC_TX_LISTS 64 /* lists: one for each of mrcd's transmit threads */
struct mrc_tx_list {
	__u32 next; /* the entry the next run serves */
	__u32 n; /* entries */
	__u32 runs; /* runs of the caller's that read the list */
	/* Where the run in progress moves next if it sends nothing: kept
	 * here, not in a register, so the verifier walks the packet's
	 * building once, not once for each value. */
	__u32 next_idle;
	struct mrc_tx_entry e[MRC_TX_LIST_MAX];
};
/* A whole number of cache lines: two lists share none. */
_Static_assert(sizeof(struct mrc_tx_list) % 64 == 0, "lines of its own");

/* Send counters (mrc_tx_stats, per-CPU array indexed by counter). */
#define MRC_TX_COUNTERS(X)                               \
	X(PACKETS, "tx_packets")                         \
	X(BYTES, "tx_payload_bytes")                     \
	X(RETX, "retransmits")                           \
	X(IDLE, "tx_idle")                               \
	X(BUILD_FAILED, "tx_build_failed")               \
	X(ACKS, "acks_received")                         \
	X(NACKS, "nacks_received")                       \
	X(COMPLETIONS, "send_completions")               \
	X(LOST, "sack_losses")                           \
	X(EV_BAD, "ev_assumed_bad")                      \
	X(EV_EVENTS_DROPPED, "ev_events_dropped")        \
	X(EV_STATE_DROPPED, "ev_state_events_dropped")   \
	X(CQ_FULL, "tx_send_cq_full")                    \
	X(CWND_FULL, "tx_cwnd_full")                     \
	X(CC_TRIMS, "cc_trims")                          \
	X(CC_MD, "cc_decreases")                         \
	X(CC_QA, "cc_quick_adapts")                      \
	X(TIMEOUTS, "ack_timeouts")                      \
	X(RETX_Q_FULL, "retx_queue_full")                \
	X(OVERDUE, "overdue_resends")                    \
	X(MRCD_FRAMES, "mrcd_frames_sent")               \
	X(MRCD_FRAMES_FAILED, "mrcd_frames_failed")      \
	X(NOT_CALLER, "tx_runs_not_caller")              \
	X(SPARE, "tx_runs_spare")                        \
	X(ACK_CLOCKED, "tx_ack_clocked")                 \
	X(ACK_CLOCK_SMALL, "tx_ack_clock_small_frame")   \
	X(PUMP_GONE, "mrcd_exits_seen")                  \
	X(ACK_CLOCKED_NO_MRCD, "tx_ack_clocked_no_mrcd") \
	X(SILENT_PASSED, "ev_silent_passed_by")          \
	X(SILENT_DELIVERED, "ev_silent_delivered")

#define MRC_X_TX_ENUM(name, str) MRC_TX_##name,
enum mrc_tx_counter { MRC_TX_COUNTERS(MRC_X_TX_ENUM) MRC_TX_MAX };
#undef MRC_X_TX_ENUM

/* Receive counters (mrc_rx_stats, per-CPU array indexed by counter). */
#define MRC_RX_COUNTERS(X)                         \
	X(PACKETS, "rx_packets")                   \
	X(PLACED_BYTES, "placed_bytes")            \
	X(ACKS, "acks_sent")                       \
	X(NACKS, "nacks_sent")                     \
	X(COMPLETIONS, "recv_completions")         \
	X(ECN_CE, "rx_ecn_ce")                     \
	X(PROBES_ANSWERED, "probes_answered")      \
	X(PROBE_ANSWERS, "probe_answers_received") \
	X(ACKS_DEFERRED, "acks_deferred")

#define MRC_X_RX_ENUM(name, str) MRC_RX_##name,
enum mrc_rx_counter { MRC_RX_COUNTERS(MRC_X_RX_ENUM) MRC_RX_MAX };
#undef MRC_X_RX_ENUM

#endif /* MRC_ABI_H */
