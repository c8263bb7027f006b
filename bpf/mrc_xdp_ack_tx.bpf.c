// SPDX-License-Identifier: GPL-2.0
/*
 * ACK clocking: the sender's receive program takes an ACK that made room
 * in a QP's congestion window, then tail-calls this program (mrc_ack_clock)
 * with the ACK's frame. The frame becomes the QP's next packet (the same
 * pick and build as every transmit path, bpf/lib/tx.h) and leaves at once,
 * from the poll that received the ACK, as a NIC sends when an ACK opens its
 * window: no wakeup of mrcd, no transmit call. NSCC asks an ACK of every
 * packet (tx_ack_later), so in steady state each ACK frees about one
 * packet's room and sends one packet, and a QP's rate follows its ACKs,
 * not when its mrcd thread next gets a CPU.
 *
 *   no QP handed over (not a tail call)  -> XDP_DROP, tx_runs_not_caller
 *   the frame cannot hold a full packet  -> XDP_DROP, mrcd woken to send,
 *                                           tx_ack_clock_small_frame
 *   nothing to send (tx_one says why)    -> XDP_DROP; mrcd woken unless the
 *                                           congestion window is what waits
 *                                           and no resend is queued
 *   else                                 -> the packet, XDP_REDIRECT to the
 *                                           port of its EV, tx_ack_clocked;
 *                                           mrcd woken when there is room
 *                                           for more than this one packet
 *
 * mrcd's transmit calls stay for the rest: new work, a window opened by
 * more than one packet, resends queued by a SACK, timeouts.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>

#include "lib/maps.h"
#include "lib/tx.h"

/*
 * Grow the frame to the longest packet QP qp sends (an IPv6 WRITE with
 * immediate of a full MTU, behind an SRv6 encapsulation if the QP has
 * one): 0, or -1 when the frame's buffer has no room for it. A frame
 * received holds what its driver gave it; the answer to a full packet
 * was one, but the answer to a short last packet may not hold a full one.
 */
static __always_inline int frame_fits(struct xdp_md *ctx,
				      const struct mrc_qp_tx *qp)
{
	__u64 cur = (void *)(long)ctx->data_end - (void *)(long)ctx->data;
	__u32 want = ETH_HLEN + sizeof(struct ipv6hdr) + sizeof(struct udphdr) +
		     MRC_DATA_IMM_HDR_LEN + qp->mtu +
		     (qp->srv6 ? MRC_SRV6_ENCAP_MAX : 0);

	asm volatile("" : "+r"(cur));
	return bpf_xdp_adjust_tail(ctx, (int)want - (int)cur) ? -1 : 0;
}

/*
 * After sending one packet: may the QP send another now? A read without
 * the send lock, so only a hint: a wrong yes costs mrcd a call that finds
 * nothing; a wrong no, the next ACK sends (one is coming: a packet is in
 * flight), and mrcd's poll is there for the rest.
 */
static __always_inline int room_for_more(const struct mrc_qp_tx *qp,
					 const struct mrc_sq *sq,
					 const struct mrc_nscc_params *cc)
{
	if (qp->retx_head != qp->retx_tail)
		return 1;
	if (qp->sq_head == *(volatile __u32 *)&sq->tail ||
	    mrc_psn_diff(qp->next_psn, qp->una_psn) >= (int)qp->window)
		return 0;
	return !cc || nscc_can_send(&qp->cc, cc, qp->mtu);
}

SEC("xdp")
int mrc_xdp_ack_tx(struct xdp_md *ctx)
{
	const struct mrc_nscc_params *cc;
	__u32 zero = 0, qpn, port = 0;
	struct mrc_pump *pump;
	struct mrc_scratch *s;
	struct mrc_qp_tx *qp;
	struct mrc_sq *sq;
	void *sqmap;
	int rc;

	s = bpf_map_lookup_elem(&mrc_scratch, &zero);
	if (!s)
		return XDP_DROP;
	qpn = s->clock_qpn;
	s->clock_qpn = MRC_MAX_QP; /* handed over once */
	qp = qpn < MRC_MAX_QP ? bpf_map_lookup_elem(&mrc_qp_tx, &qpn) : NULL;
	sqmap = bpf_map_lookup_elem(&mrc_sq, &qpn);
	sq = sqmap ? bpf_map_lookup_elem(sqmap, &zero) : NULL;
	if (!qp || !sq || !qpn) {
		mrc_count_tx(MRC_TX_NOT_CALLER, 1);
		return XDP_DROP;
	}
	if (frame_fits(ctx, qp)) {
		mrc_count_tx(MRC_TX_ACK_CLOCK_SMALL, 1);
		mrcd_wake(qpn, bpf_ktime_get_ns());
		return XDP_DROP;
	}
	/* Last: its ACK is asked for (NSCC asks on every packet anyway).
	 * With no mrcd, this ACK may be the QP's last: a full window
	 * probes una after a round trip (tx_overdue). */
	pump = bpf_map_lookup_elem(&mrc_pump, &zero);
	rc = tx_one(ctx, qpn, TX_LAST | (pump && pump->gone ? TX_PROBE : 0), 0,
		    1, &port);
	if (rc != TX_SENT) {
		/* A pick looks at 8 queued resends at most, and moves on
		 * past those delivered meanwhile: resends may remain. */
		if (rc != TX_CWND || qp->retx_head != qp->retx_tail)
			mrcd_wake(qpn, bpf_ktime_get_ns());
		return XDP_DROP;
	}
	mrc_count_tx(MRC_TX_ACK_CLOCKED, 1);
	cc = mrc_cc_of(qp);
	if (pump && pump->gone)
		mrc_count_tx(MRC_TX_ACK_CLOCKED_NO_MRCD, 1);
	if (room_for_more(qp, sq, cc))
		mrcd_wake(qpn, bpf_ktime_get_ns());
	return bpf_redirect_map(&mrc_tx_port, port, 0);
}

char LICENSE[] SEC("license") = "GPL";
