// SPDX-License-Identifier: GPL-2.0
/*
 * The device's receive pipeline, on every port: take an mrc data packet,
 * validate it, place its payload straight into the destination memory
 * region, record its PSN, and turn the packet itself into the ACK (or NACK)
 * that goes back out of the same port with XDP_TX. WRITE with immediate
 * completes, exactly once and in PSN order, on the QP's receive CQ.
 *
 *   parse -> QP -> checksum -> lengths/trim -> MR bounds -> PSN window
 *         -> place -> mark PSN, advance, claim completions -> emit CQEs
 *         -> rewrite as ACK -> XDP_TX
 *
 * Anything that is not mrc (not UDP to 4791) goes on to the kernel. Every
 * packet the program does not place is counted in mrc_drop by reason, and
 * NACKed when the sender can act on the reason (include/mrc/drop.h).
 *
 * At the sender the same program takes in ACKs and NACKs: frees in-flight
 * records, queues losses (SACK holes past the reorder threshold, retryable
 * NACKs) for the transmit program, and completes WQEs in order.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "mrc/abi.h"
#include "mrc/drop.h"
#include "mrc/wire.h"
#include "lib/cq.h"
#include "lib/csum.h"
#include "lib/health.h"
#include "lib/maps.h"
#include "lib/nscc.h"
#include "lib/pkt.h"
#include "lib/srv6.h"

/* DSCP a trimming switch writes into trimmed packets; 0xff: none. */
const volatile __u8 trim_dscp = 0xff;
/*
 * Write the service time into ACKs (AEXT svc). The fixture tests that
 * compare ACKs byte for byte turn it off: it is a clock reading.
 */
const volatile __u8 report_svc = 1;

#define IBV_ACCESS_REMOTE_WRITE 2 /* enum ibv_access_flags */

/* Where the headers of the packet being handled are, as frame offsets. */
struct rx {
	__u32 l3_off;
	__u32 udp_off;
	__u32 pay_off; /* payload */
	__u32 udp_len; /* from the UDP header */
	__u32 pay_len; /* payload bytes present, from udp_len */
	__u8 v6;
	__u8 opcode;
	__u8 ecn;
	__u8 dscp;
	/* From the headers, host order. */
	__u32 qpn;
	__u32 psn;
	__u64 va;
	__u32 rkey;
	__u32 len; /* RETH length */
	__be32 imm;
	__u8 dflags;
	__u8 srv6; /* it came in an SRv6 outer header: answers go back so */
	__u16 ev;
	__u32 msg_len;
	__be32 echo;
	__u64 t0_ns; /* a data packet's arrival here, for the ACK's svc */
};

/*
 * An SRv6 packet at the end of its route (docs/wire.md, "SRv6"): strip
 * the outer IPv6 header and SRH, so what follows sees the plain IPv6
 * packet inside. ECN CE (on an ECN-capable inner packet) and the trim
 * mark move to the inner header, as a decapsulating node does (RFC 6040).
 * It is SRv6 when the outer header is followed by an SRH (type 4), or by
 * IPv6 while its destination's block is one of our routes'. Returns 1
 * (stripped), 0 (not SRv6: untouched) or -reason (MRC_DROP_SRV6_*).
 * A global function: the verifier checks it once, not on every path of
 * its caller.
 */
__attribute__((noinline)) int srv6_strip(struct xdp_md *ctx)
{
	struct ethhdr *eth = at(ctx, 0, sizeof(*eth));
	struct ipv6hdr *o, *in;
	struct mrc_srh *srh;
	__u8 eh[ETH_HLEN], nh, otc, itc;
	__u32 off = ETH_HLEN + sizeof(*o), len, block, k;
	int srh_seen = 0;

	if (!eth || eth->h_proto != bpf_htons(ETH_P_IPV6))
		return 0;
	o = at(ctx, ETH_HLEN, sizeof(*o));
	if (!o)
		return 0;
	nh = o->nexthdr;
	if (nh == MRC_IPPROTO_ROUTING) {
		srh = at(ctx, off, 8);
		if (!srh || srh->type != MRC_SRH_TYPE)
			return 0; /* no SRH to be seen: the kernel's */
		len = 8 + (__u32)srh->hdr_ext_len * 8;
		if ((__u32)(srh->last_entry + 1) * 16 + 8 > len)
			return -MRC_DROP_SRV6_MALFORMED;
		if (srh->segments_left)
			return -MRC_DROP_SRV6_SEGMENTS_LEFT;
		nh = srh->nexthdr;
		if (!at(ctx, off, len))
			return -MRC_DROP_SRV6_MALFORMED;
		off += len;
		srh_seen = 1;
	}
	if (nh != MRC_IPPROTO_IPV6)
		return srh_seen ? -MRC_DROP_SRV6_MALFORMED : 0;
	o = at(ctx, ETH_HLEN, sizeof(*o));
	if (!o)
		return 0;
	__builtin_memcpy(&block, &o->daddr, MRC_SRV6_BLOCK_BYTES);
	if (!srh_seen && !bpf_map_lookup_elem(&mrc_srv6_block, &block))
		return 0; /* a tunnel of someone else's */
	/* F3216: every uSID used up, or the route goes on past us. */
	for (k = MRC_SRV6_BLOCK_BYTES; k < 16; k++)
		if (o->daddr.in6_u.u6_addr8[k])
			return -MRC_DROP_SRV6_NOT_END;
	otc = o->priority << 4 | o->flow_lbl[0] >> 4;
	/* mrc's SRH is 40 bytes: one this long is none of ours. */
	if (off > 255)
		return -MRC_DROP_SRV6_MALFORMED;
	in = at(ctx, off, sizeof(*in));
	if (!in || in->version != 6)
		return -MRC_DROP_SRV6_MALFORMED;
	itc = in->priority << 4 | in->flow_lbl[0] >> 4;
	if ((otc & 3) == 3 && (itc & 3))
		itc |= 3;
	if (otc >> 2 == trim_dscp)
		itc = (itc & 3) | (otc & ~3);
	in->priority = itc >> 4;
	in->flow_lbl[0] = (in->flow_lbl[0] & 0x0f) | (itc << 4);
	__builtin_memcpy(eh, eth, ETH_HLEN);
	if (bpf_xdp_adjust_head(ctx, (int)off - ETH_HLEN))
		return -MRC_DROP_SRV6_MALFORMED;
	eth = at(ctx, 0, sizeof(*eth));
	if (!eth)
		return -MRC_DROP_SRV6_MALFORMED;
	__builtin_memcpy(eth, eh, ETH_HLEN);
	return 1;
}

/*
 * Put an answer of an SRv6 QP qpn (turned around: Ethernet and inner IPv6
 * addressed back) into an outer header of its own route, whether the
 * packet it answers came in SRv6 or (came 0) decapsulated by the last
 * hop: EV index ev % MRC_QP_EVS of the QP's own routes when that leaves by the
 * port it came in on, else one of that port's routes picked by ev. The
 * packet only chooses among routes mrcd installed; none on this port:
 * dropped. Another QP's answer is left as it is, unless its packet came
 * in SRv6 (then there is no way back). 0 or MRC_DROP_SRV6_NO_ROUTE.
 */
__attribute__((noinline)) int srv6_wrap(struct xdp_md *ctx, __u32 qpn, __u32 ev,
					__u32 came)
{
	const struct mrc_qp_srv6 *rt;
	const struct mrc_srv6_route *r;
	struct ipv6hdr *in;
	struct mrc_port *mp;
	__u8 eh[ETH_HLEN], src[16];
	__u32 p, k, i, n, enc, inner_len;
	void *data, *end;

	rt = qpn < MRC_MAX_QP ? bpf_map_lookup_elem(&mrc_qp_srv6, &qpn) : NULL;
	if (!rt || !rt->nroute)
		return came ? MRC_DROP_SRV6_NO_ROUTE : 0;
	p = MRC_MAX_PORTS;
	for (k = 0; k < MRC_MAX_PORTS; k++) {
		__u32 key = k;

		mp = bpf_map_lookup_elem(&mrc_port, &key);
		if (mp && mp->ifindex && mp->ifindex == ctx->ingress_ifindex) {
			p = k;
			break;
		}
	}
	if (p >= MRC_MAX_PORTS)
		return MRC_DROP_SRV6_NO_ROUTE;
	i = ev & (MRC_QP_EVS - 1);
	if (i >= rt->nroute || rt->port[i] != p) {
		n = rt->n_by_port[p];
		if (!n || n > MRC_QP_EVS)
			return MRC_DROP_SRV6_NO_ROUTE;
		k = ev % n;
		/* Keep the mask: clang knows k < MRC_QP_EVS, the verifier
		 * not. */
		asm volatile("" : "+r"(k));
		i = rt->by_port[p][k & (MRC_QP_EVS - 1)];
	}
	r = &rt->route[i & (MRC_QP_EVS - 1)];
	enc = srv6_encap_len(r);
	in = at(ctx, ETH_HLEN, sizeof(*in));
	if (!in || in->version != 6)
		return MRC_DROP_SRV6_NO_ROUTE;
	__builtin_memcpy(src, &in->saddr, 16);
	__builtin_memcpy(eh, (void *)(long)ctx->data, ETH_HLEN);
	data = (void *)(long)ctx->data;
	end = (void *)(long)ctx->data_end;
	inner_len = end - data - ETH_HLEN;
	if (bpf_xdp_adjust_head(ctx, -(int)enc))
		return MRC_DROP_SRV6_NO_ROUTE;
	data = (void *)(long)ctx->data;
	if (data + ETH_HLEN > (void *)(long)ctx->data_end)
		return MRC_DROP_SRV6_NO_ROUTE;
	__builtin_memcpy(data, eh, ETH_HLEN);
	if (srv6_write_outer(ctx, r, enc, inner_len, src))
		return MRC_DROP_SRV6_NO_ROUTE;
	return 0;
}

#define NOT_OURS -1
#define AN_ACK -2
#define A_PROBE -3 /* a probe or a probe's answer */

/* An ACK's AEXT, copied off the frame. */
struct ackin {
	__u32 cum_psn;
	__u32 echo; /* host order */
	__u32 sack[MRC_SACK_BITS / 32]; /* host order */
	__u32 svc_ns; /* the responder's service time */
	__u8 flags;
	__u8 reason;
};

static __always_inline int parse_ack(struct xdp_md *ctx, struct rx *r,
				     __u32 off)
{
	struct mrc_aext *ax =
		at(ctx, off + sizeof(struct mrc_aeth), sizeof(*ax));
	__u32 end = off + sizeof(struct mrc_aeth) + sizeof(*ax);

	if (!ax)
		return MRC_DROP_TRUNCATED;
	if (ax->version != MRC_WIRE_VERSION)
		return MRC_DROP_BAD_VERSION;
	if (r->udp_len < end - r->udp_off || !at(ctx, r->udp_off, r->udp_len))
		return MRC_DROP_TRUNCATED;
	r->ev = bpf_ntohs(ax->ev);
	r->echo = ax->echo;
	return AN_ACK;
}

/*
 * Parse up to the payload. Returns 0 for an mrc data packet, NOT_OURS for
 * anything else (XDP_PASS), or a drop reason.
 */
static __always_inline int parse(struct xdp_md *ctx, struct rx *r)
{
	struct ethhdr *eth = at(ctx, 0, sizeof(*eth));
	struct mrc_reth *reth;
	struct mrc_dext *dext;
	struct mrc_bth *bth;
	struct udphdr *udp;
	__u32 off, hdr_len;
	__u8 proto;

	if (!eth)
		return NOT_OURS;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = at(ctx, sizeof(*eth), sizeof(*ip));

		if (!ip || ip->ihl != 5 || (ip->frag_off & bpf_htons(0x3fff)))
			return NOT_OURS; /* options or fragments: not ours */
		proto = ip->protocol;
		r->ecn = ip->tos & 3;
		r->dscp = ip->tos >> 2;
		r->udp_off = sizeof(*eth) + sizeof(*ip);
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = at(ctx, sizeof(*eth), sizeof(*ip6));
		__u8 tc;

		if (!ip6)
			return NOT_OURS;
		proto = ip6->nexthdr;
		tc = ip6->priority << 4 | ip6->flow_lbl[0] >> 4;
		r->ecn = tc & 3;
		r->dscp = tc >> 2;
		r->v6 = 1;
		r->udp_off = sizeof(*eth) + sizeof(*ip6);
	} else {
		return NOT_OURS;
	}
	r->l3_off = sizeof(*eth);
	if (proto != IPPROTO_UDP)
		return NOT_OURS;
	udp = at(ctx, r->udp_off, sizeof(*udp));
	if (!udp || udp->dest != bpf_htons(MRC_UDP_PORT))
		return NOT_OURS;

	/* From here on the packet is ours: problems are drops. */
	r->udp_len = bpf_ntohs(udp->len);
	off = r->udp_off + sizeof(*udp);
	bth = at(ctx, off, sizeof(*bth));
	if (!bth)
		return MRC_DROP_TRUNCATED;
	r->opcode = bth->opcode;
	/* mrcd's own messages go to its socket (wire.h, MRC_OP_CTL). */
	if (r->opcode == MRC_OP_CTL)
		return NOT_OURS;
	r->qpn = bpf_ntohl(bth->dqpn) & MRC_BTH_QPN_MASK;
	r->psn = bpf_ntohl(bth->psn) & MRC_BTH_PSN_MASK;
	if (r->opcode == MRC_OP_ACK)
		return parse_ack(ctx, r, off + sizeof(*bth));
	if (r->opcode == MRC_OP_PROBE || r->opcode == MRC_OP_PROBE_ANSWER) {
		struct mrc_pext *px = at(ctx, off + sizeof(*bth), sizeof(*px));

		if (!px)
			return MRC_DROP_TRUNCATED;
		if (px->version != MRC_WIRE_VERSION)
			return MRC_DROP_BAD_VERSION;
		if (r->udp_len != sizeof(*udp) + MRC_PROBE_LEN ||
		    !at(ctx, r->udp_off, r->udp_len))
			return MRC_DROP_TRUNCATED;
		r->pay_off = off + sizeof(*bth); /* the PEXT */
		return A_PROBE;
	}
	if (r->opcode != MRC_OP_WRITE_ONLY &&
	    r->opcode != MRC_OP_WRITE_ONLY_IMM)
		return MRC_DROP_BAD_OPCODE;
	off += sizeof(*bth);
	reth = at(ctx, off, sizeof(*reth));
	if (!reth)
		return MRC_DROP_TRUNCATED;
	r->va = (__u64)bpf_ntohl(reth->va_hi) << 32 | bpf_ntohl(reth->va_lo);
	r->rkey = bpf_ntohl(reth->rkey);
	r->len = bpf_ntohl(reth->len);
	off += sizeof(*reth);
	if (r->opcode == MRC_OP_WRITE_ONLY_IMM) {
		struct mrc_immdt *imm = at(ctx, off, sizeof(*imm));

		if (!imm)
			return MRC_DROP_TRUNCATED;
		r->imm = imm->imm;
		off += sizeof(*imm);
	}
	dext = at(ctx, off, sizeof(*dext));
	if (!dext)
		return MRC_DROP_TRUNCATED;
	if (dext->version != MRC_WIRE_VERSION)
		return MRC_DROP_BAD_VERSION;
	r->dflags = dext->flags;
	r->ev = bpf_ntohs(dext->ev);
	r->msg_len = bpf_ntohl(dext->msg_len);
	r->echo = dext->echo;
	off += sizeof(*dext);
	r->pay_off = off;

	/* The UDP length must cover the headers and lie within the frame. */
	hdr_len = off - r->udp_off;
	if (r->udp_len < hdr_len || !at(ctx, r->udp_off, r->udp_len))
		return MRC_DROP_TRUNCATED;
	r->pay_len = r->udp_len - hdr_len;
	return 0;
}

/*
 * Copy the payload into the region: offset off of the region, len bytes,
 * split in two where it crosses a chunk boundary.
 */
static __always_inline int place(struct xdp_md *ctx, struct rx *r, void *mr,
				 __u64 off)
{
	__u32 elem = off / MRC_MR_CHUNK, in = off % MRC_MR_CHUNK;
	__u32 first = r->len, rest = 0;
	struct mrc_mr_elem *e;

	if (in + first > MRC_MR_CHUNK) {
		first = MRC_MR_CHUNK - in;
		rest = r->len - first;
	}
	e = bpf_map_lookup_elem(mr, &elem);
	if (!e || first < 1 || first > MRC_MAX_PAYLOAD || in > MRC_MR_CHUNK - 1)
		return -1;
	if (bpf_xdp_load_bytes(ctx, r->pay_off, &e->bytes[in], first))
		return -1;
	if (!rest)
		return 0;
	elem++;
	e = bpf_map_lookup_elem(mr, &elem);
	if (!e || rest > MRC_MAX_PAYLOAD || rest < 1)
		return -1;
	return bpf_xdp_load_bytes(ctx, r->pay_off + first, &e->bytes[0], rest);
}

static __always_inline int rx_bit(const __u64 *bits, __u32 psn)
{
	__u32 i = psn % MRC_RX_RING;

	return (bits[(i / 64) & (MRC_RX_RING / 64 - 1)] >> (i % 64)) & 1;
}

/* What the ACK needs from the QP, read under its lock. */
struct ack_state {
	__u32 cum_psn;
	__u32 peer_qpn;
	__u32 defer; /* mark_received: no ACK for this packet (ACK_LATER) */
	__u64 bits[MRC_RX_RING / 64];
};

/*
 * Under the QP lock: record psn as received with its completion slot,
 * advance cum_psn over everything contiguous, and claim the completions
 * that became due: scratch cqe[k] for the k-th PSN advanced over, opcode
 * 0 where that PSN completes nothing. (Indexing by k, not by a count of
 * completions, keeps the verifier from tracking one state per count.)
 * Coalesced ACKs: st->defer says the packet needs no ACK of its own. It
 * asked for none (MRC_DF_ACK_LATER, no CE), and either no ACK has yet
 * answered a later PSN (the sender asks on a later packet, whose ACK,
 * snapshotted under this lock after this mark, covers it), or one has,
 * and PSNs below that one are still missing: it arrived late, as packets
 * sprayed over several ports do, and the packet that completes them is
 * answered (cum_psn passes ack_psn_hi), covering all of them at once.
 * Were that one lost, its resend is (una's, at its PTO: docs/wire.md).
 * Returns 1 if psn had already been received (a duplicate that raced
 * us), else 0.
 */
static __always_inline int mark_received(struct mrc_qp_rx *qp, struct rx *r,
					 struct mrc_scratch *s,
					 struct ack_state *st)
{
	__u32 i = r->psn % MRC_RX_RING, w = (i / 64) & 7, k = 0;
	int later = (r->dflags & MRC_DF_ACK_LATER) && r->ecn != 3;
	struct mrc_rx_slot *slot;
	int dup = 0;

	s->ndue = 0;
	st->defer = 0;
	bpf_spin_lock(&qp->lock);
	/*
	 * The window was checked on a copy taken before placing: another
	 * CPU may have received this PSN since and moved cum_psn past it,
	 * clearing its bit. Setting the bit then would mark the PSN 512
	 * later received before it is.
	 */
	if (mrc_psn_diff(r->psn, qp->cum_psn) < 0 ||
	    (qp->rx_bits[w] & (1ull << (i % 64)))) {
		dup = 1;
		goto snapshot;
	}
	qp->rx_bits[w] |= 1ull << (i % 64);
	if (!later) {
		if (mrc_psn_diff(r->psn, qp->ack_psn_hi) > 0)
			qp->ack_psn_hi = r->psn;
	} else {
		st->defer = 1;
	}
	slot = &qp->slot[i & (MRC_RX_RING - 1)];
	slot->imm = r->imm;
	slot->msg_len = r->msg_len;
	slot->flags = (r->dflags & MRC_DF_LAST ? MRC_SLOT_LAST : 0) |
		      (r->opcode == MRC_OP_WRITE_ONLY_IMM ? MRC_SLOT_IMM : 0);

	for (k = 0; k <= MRC_RX_WINDOW_MAX; k++) {
		__u32 c = qp->cum_psn % MRC_RX_RING, cw = (c / 64) & 7;
		__u64 bit = 1ull << (c % 64);
		struct mrc_cqe *cqe = &s->cqe[k];

		if (!(qp->rx_bits[cw] & bit))
			break;
		qp->rx_bits[cw] &= ~bit;
		slot = &qp->slot[c & (MRC_RX_RING - 1)];
		cqe->opcode = 0;
		if ((slot->flags & (MRC_SLOT_LAST | MRC_SLOT_IMM)) ==
		    (MRC_SLOT_LAST | MRC_SLOT_IMM)) {
			/* Whole: the ring is the application's to read. */
			*cqe = (struct mrc_cqe){
				.qpn = r->qpn,
				.seq = qp->cqe_seq++,
				.byte_len = slot->msg_len,
				.imm = slot->imm,
				.psn = qp->cum_psn,
				.opcode = MRC_WC_RECV_RDMA_WITH_IMM,
				.status = MRC_WC_SUCCESS,
			};
			s->ndue++;
		}
		slot->flags = 0;
		qp->cum_psn = (qp->cum_psn + 1) & MRC_BTH_PSN_MASK;
	}
	qp->cqe_psn = qp->cum_psn;
	/* A late one that completes what the last answer left open. */
	if (st->defer && mrc_psn_diff(r->psn, qp->ack_psn_hi) < 0 &&
	    mrc_psn_diff(qp->cum_psn, qp->ack_psn_hi) > 0)
		st->defer = 0;
snapshot:
	st->cum_psn = qp->cum_psn;
	st->peer_qpn = qp->peer_qpn;
	for (i = 0; i < MRC_RX_RING / 64; i++)
		st->bits[i] = qp->rx_bits[i];
	bpf_spin_unlock(&qp->lock);
	s->ncqe = k;
	return dup;
}

struct emit_ctx {
	struct mrc_scratch *s;
	void *ring;
	__u64 ts_ns; /* every completion of the run: mrc_cqe.ts_ns */
	__u64 flags; /* to commit them with: cq_submit_flags */
};

static long emit_one(__u32 i, void *data)
{
	struct emit_ctx *e = data;
	struct mrc_cqe *out;

	if (i >= e->s->ncqe || i > MRC_RX_WINDOW_MAX)
		return 1;
	if (!e->s->cqe[i].opcode)
		return 0; /* this PSN completed no message */
	out = bpf_ringbuf_reserve(e->ring, sizeof(*out), 0);
	if (!out) {
		mrc_count_drop(MRC_DROP_CQ_OVERFLOW);
		return 0;
	}
	*out = e->s->cqe[i];
	out->ts_ns = e->ts_ns;
	bpf_ringbuf_submit(out, e->flags);
	if (e->s->cqe[i].opcode == MRC_WC_RECV_RDMA_WITH_IMM)
		mrc_count_rx(MRC_RX_COMPLETIONS, 1);
	else
		mrc_count_tx(MRC_TX_COMPLETIONS, 1);
	return 0;
}

/*
 * The run's completions due (scratch cqe[0..loops)) into ring, stamped
 * ts_ns, and the CQ's waiters woken if it is armed (lib/cq.h); with no
 * ring every one due is lost, counted.
 */
static __always_inline void emit_due(struct emit_ctx *e, __u32 cq, __u32 loops)
{
	__u32 *word;

	if (!e->ring) {
		mrc_count_drops(MRC_DROP_CQ_OVERFLOW, e->s->ndue);
		return;
	}
	word = cq_notify_word(cq);
	e->flags = cq_submit_flags(word);
	bpf_loop(loops, emit_one, e, 0);
	cq_notify(word, e->ring);
}

/* A consistent copy of the receive state, for window checks and NACKs. */
static __always_inline void peek_state(struct mrc_qp_rx *qp,
				       struct ack_state *st)
{
	__u32 k;

	bpf_spin_lock(&qp->lock);
	st->cum_psn = qp->cum_psn;
	st->peer_qpn = qp->peer_qpn;
	for (k = 0; k < MRC_RX_RING / 64; k++)
		st->bits[k] = qp->rx_bits[k];
	bpf_spin_unlock(&qp->lock);
}

/*
 * SACK word k: 32 ring bits from PSN cum + 1 + 32k on, read a word at a time
 * (the ring keeps PSN p at bit p % 64 of word p / 64 % 8, least significant
 * first) and reversed, since the wire puts the lowest PSN in the most
 * significant bit.
 */
static __always_inline __u32 sack_word(const struct ack_state *st, __u32 k)
{
	__u32 j = (st->cum_psn + 1 + k * 32) % MRC_RX_RING, s = j % 64;
	__u64 v = st->bits[(j / 64) & 7] >> s;
	__u32 w;

	if (s > 32)
		v |= st->bits[(j / 64 + 1) & 7] << (64 - s);
	w = (__u32)v;
	w = (w >> 1 & 0x55555555) | (w & 0x55555555) << 1;
	w = (w >> 2 & 0x33333333) | (w & 0x33333333) << 2;
	w = (w >> 4 & 0x0f0f0f0f) | (w & 0x0f0f0f0f) << 4;
	w = (w >> 8 & 0x00ff00ff) | (w & 0x00ff00ff) << 8;
	return w >> 16 | w << 16;
}

/*
 * Send the packet back where it came from, as udp_len bytes of UDP: the
 * frame cut or grown to exactly that (a multi-buffer frame's fragments and
 * whatever followed the datagram go), Ethernet and IP addresses swapped,
 * UDP ports kept (so it takes the EV's reverse path), the IP length, a
 * fresh hop limit, ECT(0) with the DSCP cleared (ACKs and probe answers
 * are ECN-capable too). For make_ack and answer_probe. 0, or -1 when the
 * frame cannot be resized or the headers are not there.
 */
static __always_inline int turn_around(struct xdp_md *ctx, struct rx *r,
				       __u32 udp_len)
{
	__u64 old_len = bpf_xdp_get_buff_len(ctx);
	__u32 new_len = r->udp_off + udp_len;
	struct ethhdr *eth;
	__u8 mac[ETH_ALEN];

	if (old_len != new_len &&
	    bpf_xdp_adjust_tail(ctx, (int)new_len - (int)old_len))
		return -1;
	eth = at(ctx, 0, sizeof(*eth));
	if (!eth)
		return -1;
	__builtin_memcpy(mac, eth->h_dest, ETH_ALEN);
	__builtin_memcpy(eth->h_dest, eth->h_source, ETH_ALEN);
	__builtin_memcpy(eth->h_source, mac, ETH_ALEN);
	if (r->v6) {
		struct ipv6hdr *ip6 = at(ctx, r->l3_off, sizeof(*ip6));
		struct in6_addr a;

		if (!ip6)
			return -1;
		a = ip6->saddr;
		ip6->saddr = ip6->daddr;
		ip6->daddr = a;
		ip6->payload_len = bpf_htons(udp_len);
		ip6->hop_limit = 64;
		ip6->priority = 0;
		ip6->flow_lbl[0] = (ip6->flow_lbl[0] & 0x0f) | 0x20;
	} else {
		struct iphdr *ip = at(ctx, r->l3_off, sizeof(*ip));
		__be32 a;

		if (!ip)
			return -1;
		a = ip->saddr;
		ip->saddr = ip->daddr;
		ip->daddr = a;
		ip->tot_len = bpf_htons(sizeof(*ip) + udp_len);
		ip->ttl = 64;
		ip->tos = 0x02; /* ECT(0) */
		ip->frag_off = bpf_htons(0x4000);
		ip->check = 0;
		ip->check = csum_fold_wsum(
			bpf_csum_diff(NULL, 0, (__be32 *)ip, sizeof(*ip), 0));
	}
	return 0;
}

/*
 * Every frame this program turns around leaves through here: a capture
 * of what leaves the port has its program in mrc_turn_hook, which takes
 * a copy and returns XDP_TX itself; otherwise the tail call falls
 * through (maps.h).
 */
static __always_inline int send_back(struct xdp_md *ctx, struct rx *r)
{
	int why;

	/* An SRv6 QP's answer goes back on a route of its own. */
	why = srv6_wrap(ctx, r->qpn, r->ev, r->srv6);
	if (why) {
		mrc_count_drop(why);
		return XDP_DROP;
	}
	bpf_tail_call(ctx, &mrc_turn_hook, 0);
	return XDP_TX;
}

/*
 * Turn the packet into an ACK or NACK (reason != MRC_NACK_NONE) in place:
 * addresses swapped, UDP ports kept (the source port is the EV, so ACKs
 * are sprayed too), the MRC headers rewritten, lengths and checksums new.
 */
static __always_inline int make_ack(struct xdp_md *ctx, struct rx *r,
				    const struct ack_state *st, __u8 reason)
{
	struct udphdr *udp;
	struct mrc_bth *bth;
	struct mrc_aeth *aeth;
	struct mrc_aext *ax;
	struct mrc_scratch *s;
	__u32 zero = 0;
	int sum;
	__u32 k;

	if (turn_around(ctx, r, sizeof(*udp) + MRC_ACK_LEN))
		return XDP_DROP;
	udp = at(ctx, r->udp_off, sizeof(*udp) + MRC_ACK_LEN);
	if (!udp)
		return XDP_DROP;
	udp->len = bpf_htons(sizeof(*udp) + MRC_ACK_LEN);
	udp->check = 0;
	bth = (void *)(udp + 1);
	bth->opcode = MRC_OP_ACK;
	bth->flags = 0;
	bth->pkey = bpf_htons(MRC_PKEY_DEFAULT);
	bth->dqpn = bpf_htonl(st->peer_qpn & MRC_BTH_QPN_MASK);
	bth->psn = bpf_htonl(r->psn);
	aeth = (void *)(bth + 1);
	aeth->syn_msn = bpf_htonl(
		(reason ? MRC_AETH_NAK | reason : MRC_AETH_ACK) << 24);
	ax = (void *)(aeth + 1);
	ax->version = MRC_WIRE_VERSION;
	ax->flags = (reason ? MRC_AF_NACK : 0) |
		    (r->ecn == 3 ? MRC_AF_ECN_CE : 0);
	ax->ev = bpf_htons(r->ev);
	ax->nack_reason = reason;
	ax->pad = 0;
	ax->svc = 0;
	if (report_svc && r->t0_ns) {
		__u64 svc = (bpf_ktime_get_ns() - r->t0_ns) / MRC_SVC_UNIT_NS;

		ax->svc =
			bpf_htons(svc < MRC_SVC_MAX ? (__u16)svc : MRC_SVC_MAX);
	}
	ax->cum_psn = bpf_htonl(st->cum_psn);
	ax->ack_psn = bpf_htonl(r->psn);
	ax->echo = r->echo;
	for (k = 0; k < MRC_SACK_BITS / 32; k++)
		ax->sack[k] = bpf_htonl(sack_word(st, k));

	/* The same UDP checksum code the data path verifies with. */
	s = bpf_map_lookup_elem(&mrc_scratch, &zero);
	if (!s)
		return XDP_DROP;
	sum = mrc_udp_sum(ctx, r->l3_off, r->udp_off,
			  sizeof(*udp) + MRC_ACK_LEN, r->v6);
	udp = at(ctx, r->udp_off, sizeof(*udp));
	if (sum < 0 || !udp)
		return XDP_DROP;
	udp->check = (__u16)~sum ?: 0xffff;
	mrc_count_rx(reason ? MRC_RX_NACKS : MRC_RX_ACKS, 1);
	return send_back(ctx, r);
}

/* Count a drop; NACK it when the reason has a NACK and we know the QP. */
static __always_inline int reject(struct xdp_md *ctx, struct rx *r,
				  struct mrc_qp_rx *qp,
				  enum mrc_drop_reason why)
{
	static const __u8 nack_of[MRC_DROP_MAX] = {
#define MRC_X_NACK(name, str, nack) [MRC_DROP_##name] = nack,
		MRC_DROP_REASONS(MRC_X_NACK)
#undef MRC_X_NACK
	};
	struct ack_state st;
	__u8 nack;

	mrc_count_drop(why);
	nack = why < MRC_DROP_MAX ? nack_of[why] : 0;
	if (!qp || !nack)
		return XDP_DROP;
	peek_state(qp, &st);
	return make_ack(ctx, r, &st, nack);
}

static __always_inline int sack_bit(const struct ackin *a, __u32 i)
{
	return (a->sack[(i / 32) & 7] >> (31 - i % 32)) & 1;
}

/*
 * Under the send lock: rec's last transmission got through. Its EV
 * delivered what it sent then: the newest such time proves losses of older
 * packets on it, and ends its silence (health.h).
 */
static __always_inline void ev_delivered(struct mrc_qp_tx *qp,
					 const struct mrc_tx_rec *rec,
					 struct mrc_scratch *s)
{
	__u32 e = rec->ev_idx & (MRC_QP_EVS - 1);

	/*
	 * Karn, for paths: a PSN sent more than once may have arrived by an
	 * earlier transmission, on another EV, while the record names the
	 * last. Its delivery proves no loss on the last one's EV and is no
	 * yardstick for the others' silence (both would blame paths for
	 * packets still in flight); it still ends its own EV's silence.
	 */
	if (rec->tries == 1) {
		if (rec->tx_ns > qp->ev_acked_ns[e]) {
			qp->ev_acked_ns[e] = rec->tx_ns;
			qp->ev_acked_cpu[e] = rec->cpu;
		}
		if (rec->tx_ns > qp->acked_tx_ns)
			qp->acked_tx_ns = rec->tx_ns;
	}
	if (rec->tx_ns >= qp->ev_silent_ns[e]) {
		qp->ev_silent_ns[e] = 0;
		qp->ev_silent_n[e] = 0;
		/* Passed by for silence, and it delivers: alive. */
		if (evm_has(&qp->ev_cool_silent, e)) {
			evm_clear(&qp->ev_cool_silent, e);
			s->silent_delivered++; /* counted after the lock */
		}
	}
}

/* Under the send lock: a PSN in flight is delivered (cumulative ACK or
 * SACK bit). */
static __always_inline void
delivered(struct mrc_qp_tx *qp, struct mrc_tx_rec *rec, struct mrc_scratch *s)
{
	if (!(rec->flags & MRC_REC_INFLIGHT))
		return;
	rec->flags &= ~MRC_REC_INFLIGHT;
	s->acked_bytes += rec->len;
	/* counted per EV after the lock */
	s->acked_n[rec->ev_idx & (MRC_QP_EVS - 1)]++;
	evm_set(&s->acked_evs, rec->ev_idx);
	ev_delivered(qp, rec, s);
}

/*
 * Under the send lock: take in what the ACK says. Everything before cum is
 * delivered; SACKed PSNs are delivered; a PSN still in flight that the
 * rules below call lost is queued for retransmission (once), as is the PSN
 * a retryable NACK names. Then claim
 * the send completions of WQEs whose PSNs are all delivered, in order.
 * Returns the number of scratch cqe[] slots used.
 */
static __always_inline __u32 take_ack(struct mrc_qp_tx *qp, struct mrc_sq *sq,
				      struct rx *r, struct ackin *a,
				      struct mrc_scratch *s)
{
	__u32 k, psn, n = 0;
	struct mrc_tx_rec *rec;
	int bad = 0;

	s->sack_high = 0;
	s->lost = 0;
	s->silent_delivered = 0;
	s->retx_full = 0;
	s->ack_ev = MRC_QP_EVS; /* none */
	s->ack_rtt_ns = 0;
	s->acked_bytes = 0;
	s->lost_bytes = 0;
	s->trim_bytes = 0;
	s->una_moved = 0;
	s->nbad = 0;
	s->ndue = 0;
	s->ack_drop = 0;
	evm_zero(&s->acked_evs); /* acked_n[] is all zero between ACKs */
	bpf_spin_lock(&qp->lock);
	/*
	 * Only the peer's answer to a PSN in flight is taken in: it names a
	 * PSN sent and not yet cumulatively acknowledged, and returns that
	 * PSN's echo (wire.md). An answer to a PSN already delivered is late
	 * and says nothing newer than what moved una; one with another echo
	 * is forged (an off-path host cannot know it) or corrupt. Either
	 * changes nothing: no record freed, resent or failed, no sample.
	 */
	if (!psn_in_flight(qp, r->psn) ||
	    mrc_psn_diff(a->cum_psn, qp->next_psn) > 0) {
		s->ack_drop = MRC_DROP_ACK_STALE;
		goto out;
	}
	if (a->echo != mrc_echo(qp->echo_key, r->psn)) {
		s->ack_drop = MRC_DROP_ACK_ECHO;
		goto out;
	}
	/*
	 * Back-pressure, as on the receive side: the completions this ACK
	 * may claim would find no room, and a completion lost leaves a hole
	 * in the CQ's sequence the application waits at for good. Take
	 * nothing in; the transmit path waits too (tx_one), and once the
	 * application polls, una's resend brings the peer's answer again.
	 * Only a valid answer says so: a forged one cannot spare an EV.
	 */
	if (s->scq_full) {
		qp->cq_stalled = 1;
		s->ack_drop = MRC_DROP_CQ_FULL;
		goto out;
	}
	qp->cq_stalled = 0;
	rec = &qp->rec[r->psn % MRC_TX_RING];
	if (rec->flags & MRC_REC_INFLIGHT) {
		s->ack_ev = rec->ev_idx;
		/* Karn: no RTT from a PSN sent more than once. */
		if (rec->tries == 1)
			s->ack_rtt_ns = (__u32)(s->now_ns - rec->tx_ns);
		/* Its EV delivered it (a NACK too: the path works). */
		ev_delivered(qp, rec, s);
	}
	/* An answer that says the queue it met is full: that queue took
	 * whatever was sent about as it was. */
	if ((rec->flags & MRC_REC_INFLIGHT) &&
	    ((a->flags & MRC_AF_ECN_CE) ||
	     ((a->flags & MRC_AF_NACK) && a->reason == MRC_NACK_TRIMMED)) &&
	    rec->tx_ns) {
		health_full_queue(qp, rec->tx_ns);
		/* ...and its EV gets less traffic for a while (steering). */
		health_cool_marked(qp, rec->ev_idx, s->now_ns);
	}
	for (k = 0; k < MRC_RX_WINDOW_MAX + 1; k++) {
		if (mrc_psn_diff(a->cum_psn, qp->una_psn) <= 0)
			break;
		delivered(qp, &qp->rec[qp->una_psn % MRC_TX_RING], s);
		qp->una_psn = (qp->una_psn + 1) & MRC_BTH_PSN_MASK;
		s->una_moved = 1;
	}
	for (k = 0; k < MRC_SACK_BITS; k++) {
		if (!(k % 32) && !a->sack[(k / 32) & 7]) {
			k += 31; /* nothing SACKed in this word */
			continue;
		}
		psn = (a->cum_psn + 1 + k) & MRC_BTH_PSN_MASK;
		if (mrc_psn_diff(psn, qp->next_psn) >= 0)
			break;
		/* Below una: delivered long ago, and its slot may hold a PSN
		 * 512 later that is in flight (an ACK far behind, or forged). */
		if (mrc_psn_diff(psn, qp->una_psn) < 0)
			continue;
		if (sack_bit(a, k)) {
			delivered(qp, &qp->rec[psn % MRC_TX_RING], s);
			s->sack_high = k + 1;
		}
	}
	/*
	 * Holes below the highest SACKed PSN. Lost, and resent at once on
	 * another EV, when a packet sent later on the same EV was delivered:
	 * that proves the EV's path lost it, and the EV goes ASSUMED_BAD
	 * (health.h). Resent too, blaming nothing, when a PSN more than
	 * MRC_REORDER_PKTS beyond it was delivered and a packet sent more
	 * than the reordering span after it (health_reorder_before):
	 * spraying reorders across EVs, by as much as their queues differ.
	 * (A dead EV proves nothing this way; the transmit side finds it
	 * silent.)
	 */
	s->reo_before_ns = health_reorder_before(qp);
	for (k = 0; k < MRC_SACK_BITS; k++) {
		int same_ev, kept;
		__u32 e;

		if (k >= s->sack_high)
			break;
		psn = (a->cum_psn + k) & MRC_BTH_PSN_MASK;
		if (mrc_psn_diff(psn, qp->una_psn) < 0)
			continue;
		rec = &qp->rec[psn % MRC_TX_RING];
		if ((rec->flags & (MRC_REC_INFLIGHT | MRC_REC_RETX_Q)) !=
		    MRC_REC_INFLIGHT)
			continue;
		e = rec->ev_idx & (MRC_QP_EVS - 1);
		/* NACKed when the queue had no room: due now, no loss. */
		if (rec->flags & MRC_REC_NACKED) {
			retx_push(qp, rec, psn);
			continue;
		}
		/* Sent a little earlier on the same EV from the same CPU, and
		 * still missing: each CPU's frames take that CPU's queues, and
		 * one CPU's may wait behind other work while the other's get
		 * through. Not through the kernel stack either, which later
		 * XDP frames overtake. */
		same_ev = !(rec->flags & (MRC_REC_SKB | MRC_REC_UNSENT)) &&
			  rec->cpu == qp->ev_acked_cpu[e] &&
			  rec->tx_ns + qp->reorder_ns / 8 < qp->ev_acked_ns[e];
		if (!same_ev && (k + MRC_REORDER_PKTS >= s->sack_high ||
				 rec->tx_ns >= s->reo_before_ns))
			continue;
		/*
		 * A full queue delays the resend (the hole is judged again on
		 * the next ACK, or its timeout resends it), never the verdict
		 * on the EV: a dead plane fills the queue at once.
		 */
		if (retx_push(qp, rec, psn)) {
			/* Counted lost when resent (tx.h), not now: a late
			 * packet may still arrive before that. A loss to the
			 * window too, if it ever left. */
			if (!(rec->flags & MRC_REC_UNSENT)) {
				s->lost_bytes += rec->len;
				rec->flags |= MRC_REC_LOST;
			}
			s->lost++;
		}
		if (same_ev && s->nbad < 8 &&
		    !health_congested(qp, rec->tx_ns) &&
		    health_mark_bad(qp, rec->ev_idx, &kept)) {
			s->bad_ev[s->nbad & 7] = rec->ev_idx;
			s->bad_kept[s->nbad & 7] = (__u8)kept;
			s->nbad++;
		}
	}
	/* After the holes: they were judged by the round trips before. A
	 * round trip far above the QP's steers traffic off its EV. */
	if (s->ack_ev < MRC_QP_EVS)
		health_cool_slow(qp, s->ack_ev, s->ack_rtt_ns, s->now_ns);
	health_rtt(qp, s->ack_rtt_ns);
	if (a->flags & MRC_AF_NACK) {
		rec = &qp->rec[r->psn % MRC_TX_RING];
		switch (a->reason) {
		case MRC_NACK_TRIMMED:
			/*
			 * A full queue cut it: a congestion signal for the
			 * window, never a verdict on the EV (the NACK came
			 * back on it). Resent at once, on another EV.
			 */
			if (rec->flags & MRC_REC_INFLIGHT)
				s->trim_bytes = rec->len;
			/* fall through */
		case MRC_NACK_CHECKSUM:
		case MRC_NACK_PSN_WINDOW:
			if ((rec->flags & (MRC_REC_INFLIGHT |
					   MRC_REC_RETX_Q)) != MRC_REC_INFLIGHT)
				break;
			if (!retx_push(qp, rec, r->psn)) {
				/* Not lost for want of room (MRC_REC_NACKED). */
				rec->flags |= MRC_REC_NACKED;
				s->retx_full = 1;
			}
			break;
		default:
			/* The peer refuses the access: the WQE fails, the
			 * QP goes to ERR (mrcd flushes the rest). */
			if (rec->flags & MRC_REC_INFLIGHT) {
				struct mrc_wqe *w =
					&sq->wqe[rec->wqe % MRC_SQ_DEPTH];

				s->cqe[0] = (struct mrc_cqe){
					.wr_id = w->wr_id,
					.qpn = r->qpn,
					.seq = qp->cqe_seq++,
					.opcode = MRC_WC_RDMA_WRITE,
					.status = MRC_WC_REM_ACCESS_ERR,
				};
				s->ndue = 1;
				qp->state = MRC_QPS_ERR;
				sq->err_wqe = rec->wqe;
				bad = 1;
			}
		}
	}
	if (bad) {
		n = 1;
		goto out;
	}
	/* Completions: every PSN of the WQE delivered, older WQEs first. */
	for (k = 0; k < MRC_SQ_DEPTH; k++) {
		struct mrc_wqe *w = &sq->wqe[qp->sq_done % MRC_SQ_DEPTH];
		struct mrc_cqe *c = &s->cqe[k];
		__u32 last = qp->wqe_last_psn[qp->sq_done % MRC_SQ_DEPTH];

		if (qp->sq_done == qp->sq_head ||
		    mrc_psn_diff(qp->una_psn, last) <= 0)
			break;
		c->opcode = 0;
		if (w->opcode == MRC_WR_RDMA_WRITE_WITH_IMM &&
		    qp->wimm_inflight)
			qp->wimm_inflight--;
		if (w->flags & MRC_SEND_SIGNALED) {
			/*
			 * Whole: the scratch may still hold another QP's
			 * receive completion (its imm and PSN), and the CQ
			 * ring is another process's to read.
			 */
			*c = (struct mrc_cqe){
				.wr_id = w->wr_id,
				.qpn = r->qpn,
				.seq = qp->cqe_seq++,
				.byte_len = w->len,
				.opcode = MRC_WC_RDMA_WRITE,
				.status = MRC_WC_SUCCESS,
			};
			s->ndue++;
		}
		qp->sq_done++;
	}
	sq->done = qp->sq_done;
	n = k;
out:
	bpf_spin_unlock(&qp->lock);
	return n;
}

/*
 * The congestion window (bpf/lib/nscc.h), under the lock again after
 * take_ack: what the answer delivered, lost and trimmed, and the
 * network's part of the round trip (the responder's service time taken
 * out; a service time as long as the round trip leaves no sample; a
 * NACK's round trip is no delivery). Apart from take_ack's loops, which
 * the verifier walks once per distinct state. Returns the verdict.
 */
static __always_inline enum mrc_nscc_verdict
cc_ack(struct mrc_qp_tx *qp, const struct mrc_nscc_params *cc,
       const struct ackin *a, struct mrc_scratch *s)
{
	enum mrc_nscc_verdict v;
	__u32 rtt = s->ack_rtt_ns, delay = 0;

	rtt = rtt > a->svc_ns && !(a->flags & MRC_AF_NACK) ? rtt - a->svc_ns :
							     0;
	bpf_spin_lock(&qp->lock);
	/* One cut for every packet found lost (UET cuts one a packet,
	 * floored at one MTU: the same). */
	if (s->lost_bytes)
		nscc_on_loss(&qp->cc, cc, s->lost_bytes);
	v = nscc_on_ack(&qp->cc, cc, s->now_ns, s->acked_bytes, rtt,
			!!(a->flags & MRC_AF_ECN_CE));
	/* The delay it took (the base RTT is at most any sample). */
	if (rtt)
		delay = rtt - qp->cc.base_rtt_ns;
	/* A trim: a congestion signal, never a verdict on the EV. */
	if (s->trim_bytes)
		v = nscc_on_trim(&qp->cc, cc, s->now_ns, s->trim_bytes);
	bpf_spin_unlock(&qp->lock);
	if (rtt)
		mrc_count_cc_delay(delay);
	return v;
}

/*
 * Per-EV counters for what one ACK said, after the lock. A global
 * function: the verifier walks its loop once, not once for every path
 * into it.
 */
__attribute__((noinline)) int ev_account(__u32 qpn, const struct ackin *a,
					 struct mrc_scratch *s)
{
	struct mrc_ev_stats *ev;
	__u32 w, j, k, rtt;
	__u64 x;

	if (!a || !s)
		return 0;
	rtt = s->ack_rtt_ns;

	for (w = 0; w < MRC_EV_WORDS; w++) {
		x = s->acked_evs.w[w];
		/* Only the EVs this ACK delivered on, lowest first. */
		for (j = 0; j < 64 && x; j++) {
			k = w * 64 + evm_ctz64(x);
			x &= x - 1;
			ev = mrc_ev_of(qpn, k);
			if (ev) {
				__sync_fetch_and_add(
					&ev->acked,
					s->acked_n[k & (MRC_QP_EVS - 1)]);
				ev->last_ack_ns = s->now_ns;
			}
			s->acked_n[k & (MRC_QP_EVS - 1)] = 0;
		}
	}
	if (s->ack_ev < MRC_QP_EVS && (ev = mrc_ev_of(qpn, s->ack_ev))) {
		if (a->flags & MRC_AF_ECN_CE)
			__sync_fetch_and_add(&ev->ecn_ce, 1);
		if ((a->flags & MRC_AF_NACK) && a->reason == MRC_NACK_TRIMMED)
			__sync_fetch_and_add(&ev->trimmed, 1);
		if (rtt) {
			__sync_fetch_and_add(&ev->rtt_samples, 1);
			if (!ev->rtt_min_ns || rtt < ev->rtt_min_ns)
				ev->rtt_min_ns = rtt;
			if (rtt > ev->rtt_max_ns)
				ev->rtt_max_ns = rtt;
			/* srtt += (rtt - srtt) / 8, in unsigned arithmetic:
			 * BPF has no signed division. */
			ev->rtt_srtt_ns = ev->rtt_srtt_ns ?
						  ev->rtt_srtt_ns -
							  ev->rtt_srtt_ns / 8 +
							  rtt / 8 :
						  rtt;
		}
	}
	return 0;
}

/*
 * A probe: answer it from here (docs/health.md), if it names a QP of ours
 * that receives. Addresses swap, ports stay, so the answer takes the EV's
 * reverse path; svc_ns says how long the answer took to make.
 */
static __always_inline int answer_probe(struct xdp_md *ctx, struct rx *r,
					__u64 t0)
{
	struct mrc_qp_rx *qp = r->qpn < MRC_MAX_QP ?
				       bpf_map_lookup_elem(&mrc_qp, &r->qpn) :
				       NULL;
	__u32 dqpn = MRC_PROBE_QPN; /* a device probe answers to the device */
	struct mrc_pext *px;
	struct mrc_bth *bth;
	struct udphdr *udp;
	int sum;

	if (r->qpn != MRC_PROBE_QPN) {
		if (!qp ||
		    (qp->state != MRC_QPS_RTR && qp->state != MRC_QPS_RTS)) {
			mrc_count_drop(MRC_DROP_UNKNOWN_QP);
			return XDP_DROP;
		}
		dqpn = qp->peer_qpn;
	}
	if (turn_around(ctx, r, sizeof(*udp) + MRC_PROBE_LEN))
		return XDP_DROP;
	udp = at(ctx, r->udp_off, sizeof(*udp) + MRC_PROBE_LEN);
	if (!udp)
		return XDP_DROP;
	bth = (void *)(udp + 1);
	px = (void *)(bth + 1);
	r->ev = bpf_ntohs(px->ev); /* the EV its answer returns by (SRv6) */
	bth->opcode = MRC_OP_PROBE_ANSWER;
	bth->dqpn = bpf_htonl(dqpn & MRC_BTH_QPN_MASK);
	udp->check = 0;
	px->svc_ns = bpf_htonl((__u32)(bpf_ktime_get_ns() - t0));
	sum = mrc_udp_sum(ctx, r->l3_off, r->udp_off,
			  sizeof(*udp) + MRC_PROBE_LEN, r->v6);
	udp = at(ctx, r->udp_off, sizeof(*udp));
	if (sum < 0 || !udp)
		return XDP_DROP;
	udp->check = (__u16)~sum ?: 0xffff;
	mrc_count_rx(MRC_RX_PROBES_ANSWERED, 1);
	return send_back(ctx, r);
}

/* A probe's answer at the prober: an EV event for mrcd, with the RTT. */
static __always_inline int take_probe_answer(struct xdp_md *ctx, struct rx *r)
{
	struct mrc_pext *px = at(ctx, r->pay_off, sizeof(*px));
	struct mrc_qp_tx *qp =
		r->qpn < MRC_MAX_QP ? bpf_map_lookup_elem(&mrc_qp_tx, &r->qpn) :
				      NULL;
	struct mrc_ev_event e = { .type = MRC_EVT_PROBE,
				  .reason = MRC_EV_R_PROBE_ANSWER };
	__u64 sent, now = bpf_ktime_get_ns();
	__u32 svc;

	if (r->qpn != MRC_PROBE_QPN && (!qp || qp->state == MRC_QPS_RESET)) {
		mrc_count_drop(MRC_DROP_UNKNOWN_QP);
		return XDP_DROP;
	}
	/* An EV the QP does not have (any index, for the device's probes). */
	if (!px || (r->qpn != MRC_PROBE_QPN && qp && px->ev_idx >= qp->nev)) {
		mrc_count_drop(MRC_DROP_PROBE_EV);
		return XDP_DROP;
	}
	if (r->qpn == MRC_PROBE_QPN) {
		/* Only answers to probes mrcd sent and still waits for. */
		__u32 zero = 0, seq = bpf_ntohl(px->seq);
		struct mrc_probe_arm *arm =
			bpf_map_lookup_elem(&mrc_probe_arm, &zero);

		if (!arm || seq - arm->seq_lo >= arm->seq_hi - arm->seq_lo) {
			mrc_count_drop(MRC_DROP_STRAY_PROBE_ANSWER);
			return XDP_DROP;
		}
	}
	sent = (__u64)bpf_ntohl(px->tx_ts_hi) << 32 | bpf_ntohl(px->tx_ts_lo);
	svc = bpf_ntohl(px->svc_ns);
	e.ts_ns = now;
	e.qpn = r->qpn;
	e.ev_idx = px->ev_idx;
	e.ev = bpf_ntohs(px->ev);
	e.ifindex = ctx->ingress_ifindex;
	if (qp) {
		e.port = qp->ev_port[px->ev_idx & (MRC_QP_EVS - 1)];
		e.state = qp->ev_state[px->ev_idx & (MRC_QP_EVS - 1)];
		e.old_state = e.state;
	}
	e.seq = bpf_ntohl(px->seq);
	e.svc_ns = svc;
	e.rtt_ns = now > sent + svc ? (__u32)(now - sent - svc) : 0;
	mrc_count_rx(MRC_RX_PROBE_ANSWERS, 1);
	health_emit(&e);
	return XDP_DROP; /* consumed */
}

/*
 * After an ACK that made room in a QP's window (handle_ack): a QP with a
 * CC profile sends its next packet in this frame (ACK clocking,
 * bpf/mrc_xdp_ack_tx.bpf.c; NSCC asks an ACK of every packet, so each ACK
 * frees about one). Without that program, or without a CC profile, mrcd
 * sends, if it waits. Here, after handle_ack has returned, where little
 * is live: versions that decided or tail-called inside handle_ack, or
 * reset the scratch's fields as it began, took the verifier from 575,618
 * instructions to over its 1,000,000 (the ACK loops walked again).
 */
static __always_inline int after_ack(struct xdp_md *ctx, struct mrc_scratch *s)
{
	__u32 zero = 0;
	struct mrc_pump *p;

	/* No mrcd to pump it (abi.h, struct mrc_pump): any QP's ACK clocks. */
	if (s->clock_qpn & MRC_CLOCK_NO_MRCD) {
		p = bpf_map_lookup_elem(&mrc_pump, &zero);
		s->clock_qpn = p && p->gone ?
				       s->clock_qpn & ~MRC_CLOCK_NO_MRCD :
				       MRC_MAX_QP;
	}
	if (s->clock_qpn < MRC_MAX_QP)
		bpf_tail_call(ctx, &mrc_ack_clock, 0);
	s->clock_qpn = MRC_MAX_QP;
	if (s->wake_qpn < MRC_MAX_QP)
		mrcd_wake(s->wake_qpn, s->now_ns);
	return XDP_DROP; /* consumed */
}

/* handle_ack took the ACK: after_ack() next. */
#define ACK_TAKEN 0x100

/* An ACK or NACK arriving at the sender: consume it. XDP_DROP, or
 * ACK_TAKEN (consumed too) with the scratch's clock_qpn and wake_qpn set. */
static __always_inline int handle_ack(struct xdp_md *ctx, struct rx *r,
				      struct mrc_scratch *s)
{
	struct mrc_aext *ax =
		at(ctx,
		   r->udp_off + sizeof(struct udphdr) + sizeof(struct mrc_bth) +
			   sizeof(struct mrc_aeth),
		   sizeof(*ax));
	struct emit_ctx e = { .s = s };
	const struct mrc_nscc_params *cc;
	__u32 k, zero = 0;
	struct mrc_qp_tx *qp;
	struct ackin a = {};
	struct mrc_sq *sq;
	void *sqmap;

	if (!ax)
		return XDP_DROP;
	a.cum_psn = bpf_ntohl(ax->cum_psn) & MRC_BTH_PSN_MASK;
	a.echo = bpf_ntohl(ax->echo);
	a.flags = ax->flags;
	a.reason = ax->nack_reason;
	a.svc_ns = (__u32)bpf_ntohs(ax->svc) * MRC_SVC_UNIT_NS;
	for (k = 0; k < MRC_SACK_BITS / 32; k++)
		a.sack[k] = bpf_ntohl(ax->sack[k]);

	qp = r->qpn < MRC_MAX_QP ? bpf_map_lookup_elem(&mrc_qp_tx, &r->qpn) :
				   NULL;
	sqmap = bpf_map_lookup_elem(&mrc_sq, &r->qpn);
	sq = sqmap ? bpf_map_lookup_elem(sqmap, &zero) : NULL;
	if (!qp || !sq || qp->state != MRC_QPS_RTS) {
		mrc_count_drop(MRC_DROP_UNKNOWN_QP);
		return XDP_DROP;
	}
	if (mrc_udp_sum(ctx, r->l3_off, r->udp_off, r->udp_len, r->v6) !=
	    0xffff) {
		mrc_count_drop(MRC_DROP_CHECKSUM);
		return XDP_DROP;
	}
	mrc_count_tx(a.flags & MRC_AF_NACK ? MRC_TX_NACKS : MRC_TX_ACKS, 1);
	s->scq_full = send_cq_full(qp);
	s->now_ns = bpf_ktime_get_ns();
	s->ncqe = take_ack(qp, sq, r, &a, s);
	if (s->retx_full)
		mrc_count_tx(MRC_TX_RETX_Q_FULL, 1);
	if (s->silent_delivered)
		mrc_count_tx(MRC_TX_SILENT_DELIVERED, s->silent_delivered);
	if (s->ack_drop) {
		mrc_count_drop(s->ack_drop);
		return XDP_DROP;
	}
	ev_account(r->qpn, &a, s);
	cc = qp->state == MRC_QPS_RTS ? mrc_cc_of(qp) : NULL;
	if (cc) {
		enum mrc_nscc_verdict v = cc_ack(qp, cc, &a, s);

		if (s->trim_bytes)
			mrc_count_tx(MRC_TX_CC_TRIMS, 1);
		if (v == MRC_NSCC_MD)
			mrc_count_tx(MRC_TX_CC_MD, 1);
		else if (v == MRC_NSCC_QA)
			mrc_count_tx(MRC_TX_CC_QA, 1);
	}
	/*
	 * The ACK made room in the window (with a congestion window, any
	 * delivered byte does), or left resends queued (a TRIMMED NACK's,
	 * SACK holes: resent at once, whatever the window): what
	 * after_ack() does with it.
	 */
	s->wake_qpn = s->una_moved || (cc && s->acked_bytes) ||
				      qp->retx_head != qp->retx_tail ?
			      r->qpn :
			      MRC_MAX_QP;
	/* Without a congestion window, or for a QP clocked only without
	 * mrcd (clock_no_mrcd_only: mrcd transmits by skb): only while no
	 * mrcd pumps, and then on any delivered byte too (the window is far
	 * from full then: only the ACKs' own packets are in flight). */
	s->clock_qpn = cc && !qp->clock_no_mrcd_only ?
			       s->wake_qpn :
		       s->wake_qpn < MRC_MAX_QP || s->acked_bytes ?
			       r->qpn | MRC_CLOCK_NO_MRCD :
			       MRC_MAX_QP;
	for (k = 0; k < 8; k++) {
		if (k >= s->nbad)
			break;
		mrc_count_tx(MRC_TX_EV_BAD, 1);
		health_event(r->qpn, qp, s->bad_ev[k], MRC_EVT_STATE,
			     MRC_EV_ASSUMED_BAD, MRC_EV_GOOD,
			     s->bad_kept[k] ? MRC_EV_R_MIN_ACTIVE :
					      MRC_EV_R_LOSS);
	}
	if (s->ndue) {
		__u32 cq = qp->send_cq;

		e.ring = bpf_map_lookup_elem(&mrc_cq, &cq);
		e.ts_ns = s->now_ns;
		emit_due(&e, cq, MRC_SQ_DEPTH);
	}
	/* After the error completion, so the poster flushes behind it. */
	if (qp->state == MRC_QPS_ERR)
		sq->state = MRC_QPS_ERR;
	return ACK_TAKEN;
}

SEC("xdp")
int mrc_xdp_rx(struct xdp_md *ctx)
{
	struct mrc_scratch *s;
	struct mrc_mr_info *mr;
	struct ack_state st;
	struct mrc_qp_rx *qp;
	struct rx r = {};
	__u32 zero = 0, idx, cq;
	__u64 off;
	void *mem, *ring;
	int rc, d;

	rc = srv6_strip(ctx);
	if (rc < 0) {
		mrc_count_drop(-rc);
		return XDP_DROP;
	}
	r.srv6 = rc;
	rc = parse(ctx, &r);
	if (rc == NOT_OURS)
		return XDP_PASS;
	if (rc == AN_ACK) {
		s = bpf_map_lookup_elem(&mrc_scratch, &zero);
		if (!s)
			return XDP_DROP;
		if (handle_ack(ctx, &r, s) != ACK_TAKEN)
			return XDP_DROP;
		return after_ack(ctx, s);
	}
	if (rc == A_PROBE) {
		__u64 t0 = bpf_ktime_get_ns();

		s = bpf_map_lookup_elem(&mrc_scratch, &zero);
		if (!s)
			return XDP_DROP;
		if (mrc_udp_sum(ctx, r.l3_off, r.udp_off, r.udp_len, r.v6) !=
		    0xffff) {
			mrc_count_drop(MRC_DROP_CHECKSUM);
			return XDP_DROP;
		}
		if (r.opcode == MRC_OP_PROBE)
			return answer_probe(ctx, &r, t0);
		return take_probe_answer(ctx, &r);
	}
	if (rc)
		return reject(ctx, &r, NULL, rc);
	/* Its ACK says how long we took (not read when it will not say). */
	r.t0_ns = report_svc ? bpf_ktime_get_ns() : 0;
	mrc_count_rx(MRC_RX_PACKETS, 1);

	qp = r.qpn < MRC_MAX_QP ? bpf_map_lookup_elem(&mrc_qp, &r.qpn) : NULL;
	if (!qp || qp->state == MRC_QPS_RESET)
		return reject(ctx, &r, NULL, MRC_DROP_UNKNOWN_QP);
	if (qp->state != MRC_QPS_RTR && qp->state != MRC_QPS_RTS)
		return reject(ctx, &r, qp, MRC_DROP_QP_STATE);

	s = bpf_map_lookup_elem(&mrc_scratch, &zero);
	if (!s)
		return XDP_DROP;
	{
		struct udphdr *udp = at(ctx, r.udp_off, sizeof(*udp));

		if (!udp)
			return XDP_DROP;
		if (!udp->check)
			return reject(ctx, &r, qp, MRC_DROP_NO_CHECKSUM);
	}
	if (mrc_udp_sum(ctx, r.l3_off, r.udp_off, r.udp_len, r.v6) != 0xffff)
		return reject(ctx, &r, qp, MRC_DROP_CHECKSUM);

	/* A trimming switch marks what it cut; the length tells in any case. */
	if (r.dscp == trim_dscp || r.pay_len < r.len)
		return reject(ctx, &r, qp, MRC_DROP_TRIMMED);
	if (r.len > MRC_MAX_PAYLOAD)
		return reject(ctx, &r, qp, MRC_DROP_OVERSIZED);
	if (r.pay_len != r.len)
		return reject(ctx, &r, qp, MRC_DROP_BAD_LENGTH);

	/* The window first: a duplicate of a completed PSN is never placed. */
	peek_state(qp, &st);
	d = mrc_psn_diff(r.psn, st.cum_psn);
	if (d < 0) {
		mrc_count_drop(MRC_DROP_DUPLICATE);
		return make_ack(ctx, &r, &st, MRC_NACK_NONE);
	}
	/* Before the ring bit: beyond the window the ring slot is another
	 * PSN's, and says nothing about this one. */
	if (d > (int)qp->window || d > MRC_RX_WINDOW_MAX)
		return reject(ctx, &r, qp, MRC_DROP_PSN_WINDOW);
	if (rx_bit(st.bits, r.psn)) {
		mrc_count_drop(MRC_DROP_DUPLICATE);
		return make_ack(ctx, &r, &st, MRC_NACK_NONE);
	}

	idx = r.rkey & MRC_RKEY_INDEX_MASK;
	mr = bpf_map_lookup_elem(&mrc_mr_info, &idx);
	if (!mr || !mr->rkey || mr->rkey != r.rkey || mr->pd != qp->pd ||
	    !(mr->access & IBV_ACCESS_REMOTE_WRITE))
		return reject(ctx, &r, qp, MRC_DROP_BAD_RKEY);
	off = r.va - mr->va;
	if (r.va < mr->va + mr->head || off > mr->len || r.len > mr->len - off)
		return reject(ctx, &r, qp, MRC_DROP_BOUNDS);
	/*
	 * Back-pressure, as RNR is in RDMA: a packet may complete up to a
	 * window of messages, and a completion the ring has no room for
	 * would be lost while the QP goes on. With less room than that (on
	 * two CPUs at once), take nothing: no placement, no ACK; the sender
	 * resends once its timeout passes, by when the application may have
	 * polled. A CQ with no ring loses its completions anyway.
	 */
	cq = qp->recv_cq;
	ring = bpf_map_lookup_elem(&mrc_cq, &cq);
	if (ring && bpf_ringbuf_query(ring, BPF_RB_RING_SIZE) <
			    bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA) +
				    MRC_CQ_ROOM_BYTES)
		return reject(ctx, &r, qp, MRC_DROP_CQ_FULL);
	if (r.len) {
		mem = bpf_map_lookup_elem(&mrc_mr, &idx);
		if (!mem || place(ctx, &r, mem, off))
			return reject(ctx, &r, qp, MRC_DROP_PLACE_FAILED);
		mrc_count_rx(MRC_RX_PLACED_BYTES, r.len);
	}
	if (r.ecn == 3)
		mrc_count_rx(MRC_RX_ECN_CE, 1);

	if (mark_received(qp, &r, s, &st)) {
		mrc_count_drop(MRC_DROP_DUPLICATE);
		return make_ack(ctx, &r, &st, MRC_NACK_NONE);
	}
	if (s->ndue) {
		struct emit_ctx e = { .s = s,
				      .ring = ring,
				      .ts_ns = bpf_ktime_get_ns() };

		emit_due(&e, cq, MRC_RX_WINDOW_MAX + 1);
	}
	/*
	 * Coalesced ACKs: placed, and the sender said a later packet's ACK
	 * will answer for this one (its cumulative PSN and SACK cover it;
	 * mark_received). A CE mark is answered at once, so that its echo
	 * names the packet it marked; a duplicate (above) too, for the
	 * sender resends una when the ACK that covered it was lost.
	 */
	if (st.defer) {
		mrc_count_rx(MRC_RX_ACKS_DEFERRED, 1);
		return XDP_DROP;
	}
	return make_ack(ctx, &r, &st, MRC_NACK_NONE);
}

char LICENSE[] SEC("license") = "GPL";
