/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the transmit pipeline's per-packet logic, shared by
 * the XDP transmit program (bulk, live frames) and the tc egress program
 * (low latency, doorbells): one run turns the context's packet into the
 * next packet of one QP.
 *
 *   pick (under the QP's send lock): a queued retransmission first, else
 *        the next MTU of the oldest unfinished WQE if the peer's window,
 *        the WIMM limit and the congestion window (NSCC, when the QP has
 *        a CC profile) allow, else the oldest PSN in flight if its ACK
 *        timeout passed (failing the WQE once its retries are spent); give
 *        it a PSN, an EV (round robin over the QP's EVs on all ports, a
 *        different one for a retransmission) and an in-flight record
 *   build: Ethernet, IP and UDP for the EV's port and the peer's address on
 *        that plane, BTH/RETH/[ImmDt]/DEXT, the payload straight from the
 *        local memory region, the UDP checksum
 *   account: packet, byte, retransmit and per-EV counters
 *
 * Sending is the caller's: it redirects to the port tx_one() names. What
 * differs between XDP and tc (length changes, byte copies, the checksum
 * state of an skb) is in ctx.h.
 */
#ifndef MRC_BPF_TX_H
#define MRC_BPF_TX_H

#include <stddef.h>
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "mrc/abi.h"
#include "mrc/wire.h"
#include "cq.h"
#include "csum.h"
#include "ctx.h"
#include "health.h"
#include "maps.h"
#include "nscc.h"
#include "pkt.h"
#include "srv6.h"

/* What the locked pick hands to the packet builder. */
struct tx_pick {
	__u64 lane_bits; /* in: the EVs of this call's lane, every word */
	__u64 raddr;
	__u64 laddr;
	__u32 psn;
	__u32 len;
	__u32 lkey;
	__u32 pd; /* the QP's protection domain: lkey's region must be in it */
	__u32 rkey;
	__u32 msg_len;
	__be32 imm;
	__u32 peer_qpn;
	__u64 tx_ns;
	__u32 cpu; /* in: the CPU this runs on */
	__u16 ev;
	__u16 fl; /* IPv6 flow label, low 16 bits (STEV) */
	__u8 port;
	__u8 opcode;
	__u8 dflags;
	__u8 retx;
	__u8 failed; /* retries exhausted: complete err_wr_id in error */
	__u8 ev_idx;
	__u8 timed_out; /* a timeout resend: lost_ev_idx lost it */
	__u8 hole_lost; /* a resend of a SACK hole: lost_ev_idx lost it */
	__u8 overdue; /* una resent, its answer overdue: lost_ev_idx lost it */
	__u8 lost_ev_idx;
	__u8 lost_queue; /* ...when a queue had been full lately */
	__u8 ev_bad; /* ...which made lost_ev_idx ASSUMED_BAD: an event */
	__u8 ev_kept; /* ...or would have, but ev_min_active keeps it */
	__u8 silent_bad; /* silent_idx was found silent: ASSUMED_BAD */
	__u8 silent_kept;
	__u8 silent_idx;
	__u8 cwnd_full; /* new data waited for the congestion window */
	__u8 silent_passed; /* an EV was passed by for silence */
	__u32 silent_ns; /* silent_idx's evidence (struct mrc_ev_event) */
	__u32 silent_lead_ns;
	__u32 silent_margin_ns;
	__u64 err_wr_id;
	__u32 err_seq;
};

/*
 * Under the send lock: una (rec) is overdue, to be resent now, before its
 * ACK timeout: its answer is later than health_pto, it has not timed out
 * yet, and it has gone out at most MRC_OVERDUE_TRIES times (then only
 * timeouts, which a peer gone away runs out of). Checked whether or not
 * new data may go: a QP that keeps sending finds its lost una only by
 * SACK otherwise, and a lost resend not at all.
 */
static __always_inline int tx_overdue(const struct mrc_qp_tx *qp,
				      const struct mrc_tx_rec *rec, __u64 now,
				      int probe)
{
	__u64 waited = now - rec->tx_ns, pto = health_pto(qp);

	/* No mrcd pumps and the window is full (TX_PROBE): health_pto
	 * without its floor of an eighth of the ACK timeout, for this call
	 * may be the QP's last until the next mrcd (ACK clocking with no
	 * mrcd, docs/congestion.md). */
	if (probe)
		pto = (__u64)qp->rtt_hi_ns + qp->srtt_ns + qp->reorder_ns / 8;
	return (rec->flags & (MRC_REC_INFLIGHT | MRC_REC_RETX_Q |
			      MRC_REC_NACKED)) == MRC_REC_INFLIGHT &&
	       !rec->timeouts && rec->tries <= MRC_OVERDUE_TRIES &&
	       waited >= pto &&
	       waited < (qp->timeout_ns << (qp->retry_linear ? 0 : 1));
}

/* tx_one's and tx_pick's last: the caller's last run for the QP now
 * (tx_ack_later); and no mrcd pumps, so a full window probes una. */
#define TX_LAST 1u
#define TX_PROBE 2u

_Static_assert(MRC_DF_ACK_LATER == 1 << 2, "tx_pick shifts it into place");

/* 1 if a < b, else 0, for values below 2^63: no branch (BPF has no
 * set-on-condition, and a comparison would fork the verifier's walk). */
static __always_inline __u64 tx_lt(__u64 a, __u64 b)
{
	return (a - b) >> 63;
}

/* 1 if the 32-bit x is not 0, else 0; no branch. */
static __always_inline __u64 tx_nz32(__u32 x)
{
	return ((__u64)x + 0xffffffffull) >> 32;
}

/*
 * Under the send lock, for a new packet just picked (qp's next_psn and
 * sq_head already past it): may it go out MRC_DF_ACK_LATER, its ACK left
 * to a later packet's? 1 when another packet follows at once (the caller
 * has a run left after this one, last 0; the WQEs go on; and the peer's
 * window and the WIMM limit each take one more)
 * and fewer than ack_every - 1 before it did so. The last packet of a
 * transmit call asks: when this QP's turn comes again, after every other
 * QP's, is not known. A QP with a CC profile asks on every packet: NSCC
 * is clocked by its ACKs, and with one ACK opening the window by a run
 * of packets, 095's drop-tail incast overflowed its queues (1,809
 * drops) and an EV was blamed by silence in 1 of 7 runs.
 * Arithmetic, not branches: the verifier walks the sprayer once per path
 * into it.
 */
static __always_inline __u64 tx_ack_later(const struct mrc_qp_tx *qp,
					  __u32 tail, __u32 last)
{
	__u32 inflight = (qp->next_psn - qp->una_psn) & MRC_BTH_PSN_MASK;
	__u64 wimm_ok = (1 - tx_nz32(qp->max_wimm)) |
			tx_lt(qp->wimm_inflight, qp->max_wimm);
	__u64 no_cc = 1 - tx_nz32(qp->cc_slot);

	return (1 - (last & 1)) & tx_lt(1, qp->ack_every) &
	       tx_lt((__u64)qp->ack_run + 1, qp->ack_every) &
	       tx_nz32(qp->sq_head ^ tail) & tx_lt(inflight, qp->window) &
	       wimm_ok & no_cc;
}

/*
 * Returns 0 with p filled, or -1 when there is nothing to send. cc: the
 * QP's NSCC parameters, NULL for none. New data waits for the congestion
 * window; resends never do (their bytes are in flight already, and a
 * window full of lost packets must not stall the QP). last: TX_LAST, the
 * caller runs no more for this QP now (tx_ack_later); TX_PROBE, no mrcd
 * pumps (tx_overdue).
 */
static __always_inline int tx_pick(struct mrc_qp_tx *qp, struct mrc_sq *sq,
				   const struct mrc_nscc_params *cc, __u32 last,
				   struct tx_pick *p)
{
	struct mrc_tx_rec *rec = NULL;
	struct mrc_wqe *w;
	__u32 k, i, psn = 0, nev;
	__u64 later = 0; /* MRC_DF_ACK_LATER */
	int found = 0;

	bpf_spin_lock(&qp->lock);
	/* Never behind a stamp another CPU made while this one waited for
	 * the lock (tx_clock_ns). Arithmetic, not a branch. */
	p->tx_ns +=
		(qp->tx_clock_ns - p->tx_ns) * tx_lt(p->tx_ns, qp->tx_clock_ns);
	qp->tx_clock_ns = p->tx_ns;
	/* Every EV denied by the controller: nothing may leave. Nor on a
	 * lane with no EV: the QP's other lanes carry it. */
	if (health_all_denied(qp) ||
	    health_lane_empty(qp, qp->nev, p->lane_bits))
		goto idle;
	/* Retransmissions first; skip entries acknowledged meanwhile. */
	for (k = 0; k < 8; k++) {
		if (qp->retx_head == qp->retx_tail)
			break;
		psn = qp->retx[qp->retx_head % MRC_RETX_Q];
		qp->retx_head++;
		/* Delivered while it waited: its slot may hold the PSN 512
		 * later, in flight, whose record is not this entry's. */
		if (!psn_in_flight(qp, psn))
			continue;
		rec = &qp->rec[psn % MRC_TX_RING];
		if (rec->flags & MRC_REC_INFLIGHT) {
			found = 1;
			p->retx = 1;
			/* A SACK hole's: lost on the EV it went out on. */
			p->hole_lost = !!(rec->flags & MRC_REC_LOST);
			p->lost_ev_idx = rec->ev_idx;
			p->lost_queue =
				(__u8)health_congested_lately(qp, rec->tx_ns);
		}
		rec->flags &= ~(MRC_REC_RETX_Q | MRC_REC_LOST);
		if (found)
			break;
	}
	/* una overdue, whether or not new data may go: resent first. */
	if (!found && qp->una_psn != qp->next_psn) {
		rec = &qp->rec[qp->una_psn % MRC_TX_RING];
		if (tx_overdue(qp, rec, p->tx_ns,
			       (last & TX_PROBE) && mrc_psn_diff(qp->next_psn,
								 qp->una_psn) >=
							    (int)qp->window)) {
			/* Resent now, as lost: a loss to the window, no
			 * verdict on its EV, not a retry. */
			psn = qp->una_psn;
			p->retx = 1;
			if (!(rec->flags & MRC_REC_UNSENT)) {
				p->overdue = 1;
				p->lost_ev_idx = rec->ev_idx;
				p->lost_queue = (__u8)health_congested_lately(
					qp, rec->tx_ns);
				if (cc)
					nscc_on_loss(&qp->cc, cc, rec->len);
			}
			goto spray;
		}
		rec = NULL;
	}
	if (!found) {
		__u32 tail = *(volatile __u32 *)&sq->tail, left;

		if (qp->sq_head == tail ||
		    mrc_psn_diff(qp->next_psn, qp->una_psn) >= (int)qp->window)
			goto timeout;
		w = &sq->wqe[qp->sq_head % MRC_SQ_DEPTH];
		left = w->len - qp->sq_off;
		if (cc && !nscc_can_send(&qp->cc, cc,
					 left < qp->mtu ? left : qp->mtu)) {
			p->cwnd_full = 1;
			goto timeout;
		}
		if (!qp->sq_off && w->opcode == MRC_WR_RDMA_WRITE_WITH_IMM) {
			/* A new WRITE_IMM: within the peer's WIMM limit? */
			if (qp->max_wimm && qp->wimm_inflight >= qp->max_wimm)
				goto timeout;
			qp->wimm_inflight++;
		}
		psn = qp->next_psn;
		qp->next_psn = (psn + 1) & MRC_BTH_PSN_MASK;
		rec = &qp->rec[psn % MRC_TX_RING];
		rec->len = left < qp->mtu ? left : qp->mtu;
		if (cc)
			nscc_on_send(&qp->cc, rec->len);
		rec->raddr = w->raddr + qp->sq_off;
		rec->laddr = w->laddr + qp->sq_off;
		rec->wqe = qp->sq_head;
		rec->tries = 0;
		rec->timeouts = 0;
		rec->flags = MRC_REC_INFLIGHT;
		qp->sq_off += rec->len;
		if (qp->sq_off >= w->len) {
			rec->flags |= MRC_REC_LAST;
			qp->wqe_last_psn[qp->sq_head % MRC_SQ_DEPTH] = psn;
			qp->sq_head++;
			qp->sq_off = 0;
			sq->sent = qp->sq_head; /* libmrc's doorbell choice */
		}
		p->retx = 0;
		/* Coalesced ACKs (wire.md): ack_run counts the packets in a
		 * row that left without asking. */
		later = tx_ack_later(qp, tail, last);
		qp->ack_run = (__u32)((qp->ack_run + 1) * later);
	}
	if (!rec)
		goto idle;
	goto spray;

timeout:
	/*
	 * Nothing new may go out. If the oldest PSN in flight has waited
	 * past its ACK timeout, resend it (the others follow by SACK once it
	 * is through, or time out in their turn as the oldest).
	 */
	if (qp->una_psn == qp->next_psn)
		goto idle;
	rec = &qp->rec[qp->una_psn % MRC_TX_RING];
	if ((rec->flags & (MRC_REC_INFLIGHT | MRC_REC_RETX_Q)) !=
	    MRC_REC_INFLIGHT)
		goto idle;
	/* NACKed with the resend queue full: due now, not a timeout. */
	if (rec->flags & MRC_REC_NACKED) {
		psn = qp->una_psn;
		p->retx = 1;
		goto spray;
	}
	/* Retries so far: the first retry_linear wait one timeout each. */
	k = rec->timeouts;
	k = k < qp->retry_linear ? 0 : k - qp->retry_linear + 1;
	if (k > 30)
		k = 30;
	/* Not timed out (nor overdue: that was looked at first). */
	if (p->tx_ns - rec->tx_ns < (qp->timeout_ns << k))
		goto idle;
	psn = qp->una_psn;
	/* A retry either way; but one that never left, or whose answer we
	 * refused (a full send CQ), is no evidence against its EV. */
	if (!(rec->flags & MRC_REC_UNSENT) && !qp->cq_stalled) {
		int kept = 0;

		p->timed_out = 1;
		p->lost_ev_idx = rec->ev_idx;
		p->lost_queue = (__u8)health_congested_lately(qp, rec->tx_ns);
		/* A verdict on the EV only if no queue had been full
		 * lately, the EV has delivered nothing sent after it (a
		 * path that delivers is not dead, and a drop on it is a
		 * queue's, or a lossy path's, judged by counts in mrcd),
		 * and other EVs have delivered a packet sent a margin later
		 * (with nothing at all delivered, the loss names no path:
		 * the peer, a whole window emptied by a full queue, or this
		 * sender held off the CPU). The silence rule still finds a
		 * dead EV, at its next turn. */
		if (!health_congested_lately(qp, rec->tx_ns) &&
		    qp->ev_acked_ns[rec->ev_idx & (MRC_QP_EVS - 1)] <=
			    rec->tx_ns &&
		    qp->acked_tx_ns > rec->tx_ns + health_silence_margin(qp))
			p->ev_bad =
				(__u8)health_mark_bad(qp, rec->ev_idx, &kept);
		p->ev_kept = (__u8)kept;
		/* A timeout is a loss to the window too (UET's inferred
		 * loss). */
		if (cc)
			nscc_on_loss(&qp->cc, cc, rec->len);
	}
	if (rec->timeouts >= qp->retry_linear + qp->retry_exp &&
	    qp->retry_exp != MRC_RETRY_INFINITE) {
		/* Out of retries: the WQE fails, the QP goes to ERR. */
		struct mrc_wqe *fw = &sq->wqe[rec->wqe % MRC_SQ_DEPTH];

		qp->state = MRC_QPS_ERR;
		sq->err_wqe = rec->wqe;
		p->err_wr_id = fw->wr_id;
		p->err_seq = qp->cqe_seq++;
		p->failed = 1;
		goto idle;
	}
	if (rec->timeouts < 255)
		rec->timeouts++;
	p->retx = 1;

spray:
	/* Spray: the next EV in turn, another one for a retransmission. */
	nev = qp->nev;
	if (!nev || nev > MRC_QP_EVS)
		goto idle;
	i = health_next_ev(qp, nev, p->retx ? rec->ev_idx : MRC_QP_EVS,
			   p->lane_bits);
	if (i >= MRC_QP_EVS)
		goto idle; /* cannot be: checked under this lock above */
	/*
	 * Its turn, but silent while later packets got through. The first
	 * time, it is passed by for health_silence_pass_ns (until a packet
	 * sent that much later is delivered) and then given a packet again;
	 * silent again, with nothing of its own delivered since, it is
	 * dead. Passed by and in turn still (too few others are warm):
	 * sent on, no verdict.
	 */
	if (health_silent_dead(qp, i)) {
		__u32 e = i & (MRC_QP_EVS - 1);
		__u64 t = qp->ev_silent_ns[e];
		int kept;

		if (!evm_has(&qp->ev_cool_silent, e)) {
			evm_set(&qp->ev_cool_silent, e);
			health_cool(qp, i, t + health_silence_pass_ns(qp));
			p->silent_passed = 1;
			i = health_next_ev(qp, nev,
					   p->retx ? rec->ev_idx : MRC_QP_EVS,
					   p->lane_bits);
		} else if (!evm_has(&qp->ev_cool, e)) {
			p->silent_ns = health_ns32(p->tx_ns - t);
			p->silent_lead_ns = health_ns32(qp->acked_tx_ns - t);
			p->silent_margin_ns =
				health_ns32(health_silence_margin(qp));
			p->silent_bad = (__u8)health_mark_bad(qp, i, &kept);
			p->silent_kept = (__u8)kept;
			p->silent_idx = (__u8)i;
			if (p->silent_bad && !kept)
				i = health_next_ev(qp, nev,
						   p->retx ? rec->ev_idx :
							     MRC_QP_EVS,
						   p->lane_bits);
		}
		if (i >= MRC_QP_EVS)
			goto idle;
	}
	health_silent_sent(qp, i, p->tx_ns);
	rec->ev = qp->ev[i];
	rec->ev_idx = i;
	rec->port = qp->ev_port[i];
	if (rec->tries < 255)
		rec->tries++;
	rec->cpu = (__u8)p->cpu;
	rec->tx_ns = p->tx_ns;
	health_sent(qp, p->retx);
	rec->flags &= ~(MRC_REC_UNSENT | MRC_REC_NACKED);
#ifdef MRC_CTX_SKB
	rec->flags |= MRC_REC_SKB;
#else
	rec->flags &= ~MRC_REC_SKB;
#endif

	w = &sq->wqe[rec->wqe % MRC_SQ_DEPTH];
	p->psn = psn;
	p->raddr = rec->raddr;
	p->laddr = rec->laddr;
	p->len = rec->len;
	p->ev = rec->ev;
	p->fl = qp->ev_fl[rec->ev_idx & (MRC_QP_EVS - 1)];
	p->ev_idx = rec->ev_idx;
	p->port = rec->port;
	p->dflags = (rec->flags & MRC_REC_LAST ? MRC_DF_LAST : 0) |
		    (p->retx ? MRC_DF_RETX : 0) | (__u8)(later << 2);
	p->lkey = w->lkey;
	p->rkey = w->rkey;
	p->imm = w->imm;
	p->msg_len = w->msg_len ? w->msg_len :
				  w->len; /* split WRs: the whole */
	p->opcode = w->opcode == MRC_WR_RDMA_WRITE_WITH_IMM ?
			    MRC_OP_WRITE_ONLY_IMM :
			    MRC_OP_WRITE_ONLY;
	p->peer_qpn = qp->peer_qpn;
	bpf_spin_unlock(&qp->lock);
	return 0;
idle:
	bpf_spin_unlock(&qp->lock);
	return -1;
}

/*
 * Copy len bytes at offset off of a local region into the frame. The
 * region must be the QP's protection domain's (pd): an lkey is a number
 * another process may know (it is the rkey its owner hands its peers), and
 * sending from it would send that process's memory.
 */
static __always_inline int tx_load_payload(struct __ctx_buff *ctx,
					   __u32 pay_off, __u32 pd, __u32 lkey,
					   __u64 off, __u32 len)
{
	__u32 idx = lkey & MRC_RKEY_INDEX_MASK, elem, in, first, rest = 0;
	struct mrc_mr_info *mr = bpf_map_lookup_elem(&mrc_mr_info, &idx);
	struct mrc_mr_elem *e;
	void *mem;

	if (!len)
		return 0;
	if (!mr || !mr->rkey || mr->rkey != lkey || mr->pd != pd ||
	    off > mr->len || len > mr->len - off)
		return -1;
	mem = bpf_map_lookup_elem(&mrc_mr, &idx);
	if (!mem)
		return -1;
	elem = off / MRC_MR_CHUNK;
	in = off % MRC_MR_CHUNK;
	first = len;
	if (in + len > MRC_MR_CHUNK) {
		first = MRC_MR_CHUNK - in;
		rest = len - first;
	}
	e = bpf_map_lookup_elem(mem, &elem);
	if (!e || first < 1 || first > MRC_MAX_PAYLOAD || in > MRC_MR_CHUNK - 1)
		return -1;
	if (ctx_store_bytes(ctx, pay_off, &e->bytes[in], first))
		return -1;
	if (!rest)
		return 0;
	elem++;
	e = bpf_map_lookup_elem(mem, &elem);
	if (!e || rest < 1 || rest > MRC_MAX_PAYLOAD)
		return -1;
	return ctx_store_bytes(ctx, pay_off + first, &e->bytes[0], rest);
}

/*
 * Build the packet p names. route: its EV's SRv6 route (the QP is an
 * SRv6 one), or NULL: then the outer IPv6 header (and SRH) go in front of
 * the IPv6 packet (srv6.h), whose addresses are the hosts' as always.
 */
static __always_inline int tx_build(struct __ctx_buff *ctx,
				    struct mrc_qp_tx *qp,
				    const struct tx_pick *p,
				    const struct mrc_srv6_route *route)
{
	__u32 port_idx = p->port, l3_len, udp_off, hdr_len, udp_len, new_len,
	      off, enc = 0, l3_off;
	struct mrc_port *port = bpf_map_lookup_elem(&mrc_port, &port_idx);
	struct ethhdr *eth;
	struct udphdr *udp;
	struct mrc_bth *bth;
	struct mrc_reth *reth;
	struct mrc_dext *dext;
	__u8 *peer;
	__s64 pseudo, data;
	int v6;

	if (!port || port_idx >= MRC_MAX_PORTS)
		return -1;
	v6 = port->v6;
	peer = qp->peer_addr[port_idx & (MRC_MAX_PORTS - 1)];
	if (route) {
		if (!v6)
			return -1; /* SRv6 carries IPv6 */
		enc = srv6_encap_len(route);
	}
	l3_off = sizeof(*eth) + enc;
	l3_len = v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);
	udp_off = l3_off + l3_len;
	hdr_len = MRC_DATA_HDR_LEN +
		  (p->opcode == MRC_OP_WRITE_ONLY_IMM ? sizeof(__be32) : 0);
	udp_len = sizeof(*udp) + hdr_len + p->len;
	new_len = udp_off + udp_len;

	if (ctx_resize(ctx, new_len, v6, enc))
		return -1;

	eth = at(ctx, 0, sizeof(*eth));
	if (!eth)
		return -1;
	__builtin_memcpy(eth->h_source, port->smac, ETH_ALEN);
	__builtin_memcpy(eth->h_dest, port->dmac, ETH_ALEN);
	if (v6) {
		struct ipv6hdr *ip6 = at(ctx, l3_off, sizeof(*ip6));

		if (!ip6)
			return -1;
		eth->h_proto = bpf_htons(ETH_P_IPV6);
		/* ECT(0), and the STEV EV's high half in the flow label */
		*(__be32 *)ip6 = bpf_htonl(6 << 28 | 0x02 << 20 | p->fl);
		ip6->payload_len = bpf_htons(udp_len);
		ip6->nexthdr = IPPROTO_UDP;
		ip6->hop_limit = 64;
		__builtin_memcpy(&ip6->saddr, port->saddr, 16);
		__builtin_memcpy(&ip6->daddr, peer, 16);
	} else {
		struct iphdr *ip = at(ctx, sizeof(*eth), sizeof(*ip));

		if (!ip)
			return -1;
		eth->h_proto = bpf_htons(ETH_P_IP);
		ip->version = 4;
		ip->ihl = 5;
		ip->tos = 0x02; /* ECT(0) */
		ip->tot_len = bpf_htons(sizeof(*ip) + udp_len);
		ip->id = 0;
		ip->frag_off = bpf_htons(0x4000);
		ip->ttl = 64;
		ip->protocol = IPPROTO_UDP;
		__builtin_memcpy(&ip->saddr, port->saddr, 4);
		__builtin_memcpy(&ip->daddr, peer, 4);
		ip->check = 0;
		ip->check = csum_fold_wsum(
			bpf_csum_diff(NULL, 0, (__be32 *)ip, sizeof(*ip), 0));
	}
	/* Constant lengths for the verifier: with or without the ImmDt. */
	if (p->opcode == MRC_OP_WRITE_ONLY_IMM)
		udp = at(ctx, udp_off, sizeof(*udp) + MRC_DATA_IMM_HDR_LEN);
	else
		udp = at(ctx, udp_off, sizeof(*udp) + MRC_DATA_HDR_LEN);
	if (!udp)
		return -1;
	udp->source = bpf_htons(p->ev);
	udp->dest = bpf_htons(MRC_UDP_PORT);
	udp->len = bpf_htons(udp_len);
	udp->check = 0;
	bth = (void *)(udp + 1);
	bth->opcode = p->opcode;
	bth->flags = 0;
	bth->pkey = bpf_htons(MRC_PKEY_DEFAULT);
	bth->dqpn = bpf_htonl(p->peer_qpn & MRC_BTH_QPN_MASK);
	bth->psn = bpf_htonl(p->psn & MRC_BTH_PSN_MASK);
	reth = (void *)(bth + 1);
	reth->va_hi = bpf_htonl(p->raddr >> 32);
	reth->va_lo = bpf_htonl(p->raddr & 0xffffffff);
	reth->rkey = bpf_htonl(p->rkey);
	reth->len = bpf_htonl(p->len);
	off = udp_off + sizeof(*udp) + sizeof(*bth) + sizeof(*reth);
	if (p->opcode == MRC_OP_WRITE_ONLY_IMM) {
		struct mrc_immdt *imm = at(ctx, off, sizeof(*imm));

		if (!imm)
			return -1;
		imm->imm = p->imm;
		off += sizeof(*imm);
	}
	/* Its own bounds check: the verifier cannot tie it to the one above. */
	dext = at(ctx, off, sizeof(*dext));
	if (!dext)
		return -1;
	dext->version = MRC_WIRE_VERSION;
	dext->flags = p->dflags;
	dext->ev = bpf_htons(p->ev);
	dext->msg_id = bpf_htonl(p->psn); /* for tracing: first use of id */
	dext->msg_len = bpf_htonl(p->msg_len);
	dext->echo = bpf_htonl(mrc_echo(qp->echo_key, p->psn));

	if (tx_load_payload(ctx, udp_off + sizeof(*udp) + hdr_len, p->pd,
			    p->lkey, p->laddr, p->len))
		return -1;
	pseudo = mrc_pseudo_sum(ctx, l3_off, udp_len, v6);
	data = mrc_data_sum(ctx, udp_off, udp_len, 0);
	if (pseudo < 0 || data < 0)
		return -1;
	if (ctx_udp_csum_store(ctx, udp_off + offsetof(struct udphdr, check),
			       pseudo, data))
		return -1;
	return route ? srv6_write_outer(ctx, route, enc, l3_len + udp_len,
					port->saddr) :
		       0;
}

/* The error completion of a WQE whose retries ran out. */
static __always_inline void tx_fail_wqe(struct mrc_qp_tx *qp, struct tx_pick *p,
					__u32 qpn)
{
	struct mrc_cqe cqe = {
		.wr_id = p->err_wr_id,
		.qpn = qpn,
		.seq = p->err_seq,
		.opcode = MRC_WC_RDMA_WRITE,
		.status = MRC_WC_RETRY_EXC_ERR,
		.ts_ns = bpf_ktime_get_ns(),
	};
	__u32 cq = qp->send_cq, *word = cq_notify_word(cq);
	void *ring = bpf_map_lookup_elem(&mrc_cq, &cq);

	if (!ring ||
	    bpf_ringbuf_output(ring, &cqe, sizeof(cqe), cq_submit_flags(word)))
		mrc_count_drop(MRC_DROP_CQ_OVERFLOW);
	else
		cq_notify(word, ring);
}

/*
 * The pick recorded a transmission that building the frame then failed to
 * make: now and then bpf_xdp_adjust_tail refuses a live frame (seen in
 * 090 about once in a few million frames), or the WQE names a region the
 * QP may not send from. Nothing left, so nothing may take the PSN for a
 * loss on its EV: a later packet there delivered would prove a healthy
 * path lossy. A first attempt goes again at once from the resend queue;
 * a PSN that failed before waits for its timeout, which counts against
 * the retry budget, so a WQE that can never be built fails the QP as
 * before instead of spinning.
 */
static __always_inline void tx_unsend(struct mrc_qp_tx *qp,
				      const struct tx_pick *p)
{
	struct mrc_tx_rec *rec = &qp->rec[p->psn % MRC_TX_RING];
	__u32 e = p->ev_idx & (MRC_QP_EVS - 1);

	bpf_spin_lock(&qp->lock);
	/* Still this pick's: not acknowledged or picked again meanwhile. */
	if ((rec->flags & MRC_REC_INFLIGHT) && rec->tx_ns == p->tx_ns &&
	    rec->ev_idx == p->ev_idx) {
		rec->flags |= MRC_REC_UNSENT;
		if (qp->ev_silent_ns[e] == p->tx_ns)
			qp->ev_silent_ns[e] = 0;
		if (qp->ev_silent_n[e] &&
		    qp->ev_silent_last[e] == (__u32)p->tx_ns)
			qp->ev_silent_n[e]--; /* it was counted */
		if (qp->ev_strike_ns[e] == p->tx_ns)
			qp->ev_strike_ns[e] = 0; /* no strike after all */
		if (rec->tries == 1 && !(rec->flags & MRC_REC_RETX_Q))
			retx_push(qp, rec, p->psn);
	}
	bpf_spin_unlock(&qp->lock);
}

/* What tx_one() did; TX_SENT leaves the packet built for *port. */
#define TX_SENT 0
/* EV idx went ASSUMED_BAD for reason (or would have: kept in use). */
static __always_inline void tx_bad_event(__u32 qpn, struct mrc_qp_tx *qp,
					 __u32 idx, __u8 kept, __u8 reason)
{
	mrc_count_tx(MRC_TX_EV_BAD, 1);
	health_event(qpn, qp, idx, MRC_EVT_STATE, MRC_EV_ASSUMED_BAD,
		     MRC_EV_GOOD, kept ? MRC_EV_R_MIN_ACTIVE : reason);
}

/* EVs the pick moved to ASSUMED_BAD: tell mrcd. */
static __always_inline void tx_health_event(__u32 qpn, struct mrc_qp_tx *qp,
					    const struct tx_pick *p)
{
	if (p->ev_bad)
		tx_bad_event(qpn, qp, p->lost_ev_idx, p->ev_kept,
			     MRC_EV_R_TIMEOUT);
	if (p->silent_passed)
		mrc_count_tx(MRC_TX_SILENT_PASSED, 1);
	if (p->silent_bad) {
		mrc_count_tx(MRC_TX_EV_BAD, 1);
		health_event_silent(
			qpn, qp, p->silent_idx,
			p->silent_kept ? MRC_EV_R_MIN_ACTIVE : MRC_EV_R_SILENT,
			p->silent_ns, p->silent_lead_ns, p->silent_margin_ns);
	}
}

#define TX_IDLE 1 /* nothing to send: counted as tx_idle */
#define TX_FAILED 2 /* building failed: counted as tx_build_failed */
#define TX_CWND 3 /* new data waits for the congestion window: tx_idle too */

/*
 * The EVs of lane lane of lanes (struct mrc_tx_call), as the bits of every
 * word of an EV mask: those whose index is lane modulo lanes. Any other
 * lanes than 2, 4 or 8: every EV.
 */
static __always_inline __u64 tx_lane_bits(__u32 lane, __u32 lanes)
{
	__u64 b;

	switch (lanes) {
	case 2:
		b = 0x5555555555555555ull;
		break;
	case 4:
		b = 0x1111111111111111ull;
		break;
	case 8:
		b = 0x0101010101010101ull;
		break;
	default:
		return ~0ull;
	}
	return b << (lane & (lanes - 1));
}

/*
 * Turn the packet in ctx into QP qpn's next packet; last: TX_LAST, the
 * caller's last run for it now, and TX_PROBE (tx_pick); lane of lanes:
 * the EVs it may spray over
 * (tx_lane_bits; lanes 1: all). Returns TX_SENT with the port index to
 * send it from in *port, or why nothing is to be sent (already counted).
 */
static __always_inline int tx_one(struct __ctx_buff *ctx, __u32 qpn, __u32 last,
				  __u32 lane, __u32 lanes, __u32 *port)
{
	const struct mrc_srv6_route *route = NULL;
	struct mrc_ev_stats *ev;
	struct mrc_scratch *s;
	struct tx_pick p = {};
	struct mrc_qp_rx *own;
	struct mrc_qp_tx *qp;
	struct mrc_sq *sq;
	__u32 zero = 0;
	void *sqmap;
	int busy;

	qp = bpf_map_lookup_elem(&mrc_qp_tx, &qpn);
	sqmap = bpf_map_lookup_elem(&mrc_sq, &qpn);
	s = bpf_map_lookup_elem(&mrc_scratch, &zero);
	if (!qp || !sqmap || !s || qp->state != MRC_QPS_RTS)
		goto idle;
	sq = bpf_map_lookup_elem(sqmap, &zero);
	if (!sq)
		goto idle;
	/* The QP's protection domain lives in its receive half. */
	own = bpf_map_lookup_elem(&mrc_qp, &qpn);
	if (!own)
		goto idle;
	p.pd = own->pd;
	/*
	 * Back-pressure: while the send CQ has no room, the QP waits for the
	 * application to poll: nothing new goes out (its completions would
	 * find none either), and no timeout runs, so none fails a WQE whose
	 * error completion could not be written.
	 */
	if (send_cq_full(qp)) {
		mrc_count_tx(MRC_TX_CQ_FULL, 1);
		return TX_IDLE;
	}
	p.tx_ns = bpf_ktime_get_ns();
	/* Read here although mrc_xdp_tx read it for its slot: the JIT
	 * inlines the helper, and passing it down as an argument made the
	 * verifier walk 76,000 more instructions (682,009 -> 757,896). */
	p.cpu = bpf_get_smp_processor_id();
	p.lane_bits = tx_lane_bits(lane, lanes);
	busy = tx_pick(qp, sq, mrc_cc_of(qp), last, &p);
	/* Lost on its EV (timed out after it left, a SACK hole, overdue):
	 * that holds whether or not a resend follows. */
	if (p.timed_out)
		mrc_count_tx(MRC_TX_TIMEOUTS, 1);
	if (p.hole_lost)
		mrc_count_tx(MRC_TX_LOST, 1);
	if (p.overdue)
		mrc_count_tx(MRC_TX_OVERDUE, 1);
	if (p.timed_out || p.hole_lost || p.overdue) {
		ev = mrc_ev_of(qpn, p.lost_ev_idx);
		if (ev)
			__sync_fetch_and_add(&ev->lost, 1);
		if (ev && p.lost_queue)
			__sync_fetch_and_add(&ev->lost_queue, 1);
	}
	if (busy) {
		if (p.cwnd_full)
			mrc_count_tx(MRC_TX_CWND_FULL, 1);
		tx_health_event(qpn, qp, &p);
		if (p.failed) {
			tx_fail_wqe(qp, &p, qpn);
			sq->state = MRC_QPS_ERR; /* after its completion */
		}
		goto idle;
	}
	/* An SRv6 QP's EV is its route (docs/wire.md). */
	if (qp->srv6) {
		const struct mrc_qp_srv6 *sr =
			bpf_map_lookup_elem(&mrc_qp_srv6, &qpn);

		route = sr && p.ev_idx < sr->nroute ?
				&sr->route[p.ev_idx & (MRC_QP_EVS - 1)] :
				NULL;
	}
	if ((qp->srv6 && !route) || tx_build(ctx, qp, &p, route)) {
		tx_unsend(qp, &p);
		/* The pick may have found an EV dead: that holds. */
		tx_health_event(qpn, qp, &p);
		mrc_count_tx(MRC_TX_BUILD_FAILED, 1);
		return TX_FAILED;
	}
	mrc_count_tx(MRC_TX_PACKETS, 1);
	mrc_count_tx(MRC_TX_BYTES, p.len);
	if (p.retx)
		mrc_count_tx(MRC_TX_RETX, 1);
	ev = mrc_ev_of(qpn, p.ev_idx);
	if (ev) {
		__sync_fetch_and_add(&ev->sent, 1);
		if (p.retx)
			__sync_fetch_and_add(&ev->retx, 1);
	}
	tx_health_event(qpn, qp, &p);
	*port = p.port;
	return TX_SENT;
idle:
	mrc_count_tx(MRC_TX_IDLE, 1);
	return p.cwnd_full ? TX_CWND : TX_IDLE;
}

#endif /* MRC_BPF_TX_H */
