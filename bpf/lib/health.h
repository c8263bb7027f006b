/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains path health in the data path (docs/health.md): which
 * of a QP's EVs carry traffic, the move of an EV to ASSUMED_BAD when a
 * packet sent on it is lost, and the EV events that tell mrcd.
 *
 * ev_use is a mask over the QP's ev[] (include/mrc/evmask.h), so
 * choosing the next EV in turn and counting those in use are a few word
 * operations, with no loop over EVs under the QP's lock.
 */
#ifndef MRC_BPF_HEALTH_H
#define MRC_BPF_HEALTH_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "mrc/abi.h"
#include "maps.h"

/* Under the QP lock: is every one of the QP's EVs DENIED? Then nothing
 * may leave until the controller allows one. */
static __always_inline int health_all_denied(const struct mrc_qp_tx *qp)
{
	/* ev_denied holds only EVs below nev (mrc_xdp_ctl checks). */
	return evm_count(&qp->ev_denied) >= qp->nev;
}

/*
 * Under the QP lock: the EVs the sprayer may pick from, in *use: those in
 * use and not DENIED, or with none in use every EV not DENIED; of them,
 * the lane's (lane_bits in every word, tx_lane_bits; all ones: no lane).
 * Returns 0 when there is none.
 */
static __always_inline int health_lane_evs(const struct mrc_qp_tx *qp,
					   __u32 nev, __u64 lane_bits,
					   struct mrc_evmask *use)
{
	struct mrc_evmask all;
	__u32 k;

	evm_first(&all, nev);
	evm_andnot(use, &qp->ev_use, &qp->ev_denied);
	evm_and(use, use, &all);
	if (!evm_any(use))
		evm_andnot(use, &all, &qp->ev_denied);
	if (~lane_bits)
		for (k = 0; k < MRC_EV_WORDS; k++)
			use->w[k] &= lane_bits;
	return evm_any(use);
}

/*
 * Under the QP lock: the lane lane_bits names has no EV the sprayer may
 * use (health_lane_evs). A call on such a lane sends nothing: the other
 * lanes carry the QP, and its EVs still leave from one CPU each. Looked at
 * before anything is taken from the QP, so nothing waits on a lane that
 * cannot send it. No lane (all ones): never empty here.
 */
static __always_inline int health_lane_empty(const struct mrc_qp_tx *qp,
					     __u32 nev, __u64 lane_bits)
{
	struct mrc_evmask use;

	return ~lane_bits && !health_lane_evs(qp, nev, lane_bits, &use);
}

/*
 * Under the QP lock: the next EV in turn among those in use, other than
 * avoid when there is another (a retransmission leaves the EV that lost
 * it), and on another port when one has an EV in use (the port it was
 * lost on may be dead, and a second loss there waits out the ACK
 * timeout). With none in use it sprays over every EV not DENIED: path health never stalls a QP. Returns MRC_QP_EVS when
 * every EV is DENIED: then nothing may be sent until the controller
 * allows one.
 *
 * Steering: cooled EVs (ev_cool) are passed by while enough others are
 * left (MRC_COOL_KEEP_DIV, ev_min_active). The EV in turn is warm again
 * once a packet sent after its time was delivered (acked_tx_ns): it comes
 * back a round trip after its time, with news newer than what cooled it,
 * and at its first turn after that, its silence forgiven (the silence rule
 * starts again from its next packet).
 *
 * Lanes: a transmit call that shares the QP with calls on other CPUs
 * sprays over the EVs in lane_bits only (every word's; tx_lane_bits), so
 * each EV's packets leave from one CPU, in order, and a hole the same-EV
 * rule finds is a loss, not the other CPU's packet still on its way. Its
 * caller has made sure the lane has an EV (health_lane_empty).
 */
static __always_inline __u32 health_next_ev(struct mrc_qp_tx *qp, __u32 nev,
					    __u32 avoid, __u64 lane_bits)
{
	struct mrc_evmask use, warm;
	__u32 c = qp->ev_next, i, keep;

	if (!health_lane_evs(qp, nev, lane_bits, &use))
		return MRC_QP_EVS;
	if (avoid < MRC_QP_EVS && evm_has(&use, avoid)) {
		evm_clear(&use, avoid);
		if (!evm_any(&use))
			evm_set(&use, avoid);
	}
	if (avoid < MRC_QP_EVS) {
		struct mrc_evmask other;

		evm_andnot(&other, &use,
			   &qp->port_evs[qp->ev_port[avoid] % MRC_MAX_PORTS]);
		if (evm_any(&other))
			use = other;
	}
	if (evm_any(&qp->ev_cool)) {
		i = evm_in_turn(&use, c);
		if (evm_has(&qp->ev_cool, i) &&
		    qp->acked_tx_ns >= qp->ev_cool_ns[i & (MRC_QP_EVS - 1)]) {
			/* Warm again. Cooled for answering, it was alive:
			 * what it sent before, while passed by, had no later
			 * packet of its own to clear its silence. Passed by
			 * for silence, it is given this turn's packet, and
			 * blamed if that one is silent too (tx.h): its own
			 * packets were resent meanwhile, and a late delivery
			 * of one would name the resend's EV. */
			evm_clear(&qp->ev_cool, i);
			qp->ev_silent_ns[i & (MRC_QP_EVS - 1)] = 0;
			qp->ev_silent_n[i & (MRC_QP_EVS - 1)] = 0;
		}
		evm_andnot(&warm, &use, &qp->ev_cool);
		keep = evm_count(&use) / MRC_COOL_KEEP_DIV;
		if (keep < qp->ev_min_active)
			keep = qp->ev_min_active;
		if (evm_any(&warm) && evm_count(&warm) >= keep)
			use = warm;
	}
	i = evm_in_turn(&use, c);
	qp->ev_next = i + 1 >= nev ? 0 : i + 1;
	return i & (MRC_QP_EVS - 1);
}

/*
 * Under the QP lock: a round trip of rtt_ns (0: none) into rtt_hi_ns,
 * the QP's high round trip lately (include/mrc/abi.h).
 */
static __always_inline void health_rtt(struct mrc_qp_tx *qp, __u32 rtt_ns)
{
	__u32 hi = qp->rtt_hi_ns, srtt = qp->srtt_ns;

	if (!rtt_ns)
		return;
	if (rtt_ns > MRC_RTT_HI_MAX_NS)
		rtt_ns = MRC_RTT_HI_MAX_NS;
	if (rtt_ns > hi)
		hi = rtt_ns;
	else
		hi -= (hi - rtt_ns) >> MRC_RTT_HI_DECAY_SHIFT;
	qp->rtt_hi_ns = hi;
	/* srtt += (rtt - srtt) / 8, unsigned (BPF has no signed division) */
	qp->srtt_ns = srtt ? srtt - srtt / 8 + rtt_ns / 8 : rtt_ns;
}

/*
 * Steering, under the QP lock: the sprayer passes EV i by until a packet
 * sent at until or later is delivered (a later time already set stands).
 */
static __always_inline void health_cool(struct mrc_qp_tx *qp, __u32 i,
					__u64 until)
{
	if (i >= MRC_QP_EVS)
		return;
	evm_set(&qp->ev_cool, i);
	if (until > qp->ev_cool_ns[i & (MRC_QP_EVS - 1)])
		qp->ev_cool_ns[i & (MRC_QP_EVS - 1)] = until;
}

/*
 * Under the QP lock: the answer to a packet sent on EV i says its queue
 * is full or filling (a CE mark, a trim): out of turn for two round
 * trips, time for that queue to drain what it holds.
 */
static __always_inline void health_cool_marked(struct mrc_qp_tx *qp, __u32 i,
					       __u64 now)
{
	__u64 span = 2ull * qp->srtt_ns;

	if (span < MRC_COOL_MIN_NS)
		span = MRC_COOL_MIN_NS;
	if (span > MRC_COOL_MAX_NS)
		span = MRC_COOL_MAX_NS;
	health_cool(qp, i, now + span);
}

/*
 * Under the QP lock, before rtt_ns joins srtt_ns: a round trip of a
 * packet sent on EV i far above the QP's (twice srtt_ns and
 * MRC_SLOW_MIN_NS more) says its path's queue is that much deeper than
 * its siblings': out of turn for as long as that round trip, time for
 * what it holds to drain. Returns 1 if cooled.
 */
static __always_inline int health_cool_slow(struct mrc_qp_tx *qp, __u32 i,
					    __u32 rtt_ns, __u64 now)
{
	__u32 srtt = qp->srtt_ns;

	if (!rtt_ns || !srtt || (__u64)rtt_ns <= 2ull * srtt + MRC_SLOW_MIN_NS)
		return 0;
	health_cool(qp, i,
		    now + (rtt_ns < MRC_COOL_MAX_NS ? rtt_ns :
						      MRC_COOL_MAX_NS));
	return 1;
}

/*
 * Under the QP lock: a hole sent before this may be called lost because a
 * later PSN arrived (reordering, not a verdict on its EV): packets of
 * different EVs overtake each other by up to the spread of their
 * queues, which the high round trip bounds.
 */
static __always_inline __u64 health_reorder_before(const struct mrc_qp_tx *qp)
{
	__u64 w = qp->reorder_ns / 8 + qp->rtt_hi_ns;

	return qp->acked_tx_ns > w ? qp->acked_tx_ns - w : 0;
}

/*
 * Under the QP lock: how long the oldest PSN in flight waits for its answer
 * before it is resent as overdue (tx.h): past the highest round trip
 * lately, a smoothed one more and the reordering margin, the packet or
 * its answer is lost. At least an eighth of the ACK timeout, which this
 * forestalls: with the window full of lost packets nothing later is sent
 * to prove them lost, and a drop-tail queue's losses would each wait out
 * a timeout.
 */
static __always_inline __u64 health_pto(const struct mrc_qp_tx *qp)
{
	__u64 t = (__u64)qp->rtt_hi_ns + qp->srtt_ns + qp->reorder_ns / 8;
	__u64 floor = qp->timeout_ns / 8;

	return t > floor ? t : floor;
}

/* How far apart two packets can be sent and still meet one queue. */
static __always_inline __u64 health_queue_span(const struct mrc_qp_tx *qp)
{
	return 2ull * qp->reorder_ns + 2ull * qp->rtt_hi_ns;
}

/* Under the QP lock: did an answer tell of a full queue (cong_slots) met by
 * a packet sent in slots lo_s..hi_s (send time >> MRC_CONG_SLOT_SHIFT)? */
static __always_inline int health_marked(const struct mrc_qp_tx *qp, __u64 lo_s,
					 __u64 hi_s)
{
	__u64 bits = qp->cong_slots, hi = qp->cong_slot_hi, jlo, jhi;

	if (!bits || lo_s > hi)
		return 0; /* nothing, or all after the newest */
	/* Slots lo_s..hi_s are bits hi - hi_s .. hi - lo_s. */
	jlo = hi_s >= hi ? 0 : hi - hi_s;
	if (jlo > 63)
		return 0; /* before the oldest remembered */
	jhi = hi - lo_s > 63 ? 63 : hi - lo_s;
	return !!(bits & (~0ull << jlo) & (~0ull >> (63 - jhi)));
}

/*
 * Under the QP lock: did a packet sent at tx_ns meet a full queue an
 * answer told of, one sent within a span of it? Then its loss is no
 * verdict on its EV, where a later packet on the same EV proves the loss.
 */
static __always_inline int health_congested(const struct mrc_qp_tx *qp,
					    __u64 tx_ns)
{
	__u64 w = health_queue_span(qp);

	if (!qp->cong_slots)
		return 0; /* the common case, first: this runs per hole */
	return health_marked(qp,
			     (tx_ns > w ? tx_ns - w : 0) >> MRC_CONG_SLOT_SHIFT,
			     (tx_ns + w) >> MRC_CONG_SLOT_SHIFT);
}

/*
 * Under the QP lock: had a queue been full lately when a packet left at
 * tx_ns: did an answer in the memory (64 slots, 268 ms) tell of a full
 * queue met by a packet sent before it, or within a span after? For the
 * rules that blame on a loss no later packet of the same EV proves (an
 * ACK timeout, the silence rule's first strike). A full drop-tail queue
 * takes every packet a sender offers for as long as it stays full, and a
 * QP whose window it emptied gets no answers, marked or not, near its
 * losses; a sender held off the CPU times out a whole window at once.
 */
static __always_inline int health_congested_lately(const struct mrc_qp_tx *qp,
						   __u64 tx_ns)
{
	__u64 t = tx_ns >> MRC_CONG_SLOT_SHIFT;

	return health_marked(qp, t > 63 ? t - 63 : 0,
			     (tx_ns + health_queue_span(qp)) >>
				     MRC_CONG_SLOT_SHIFT);
}

/* Under the QP lock: the answer to a packet sent at tx_ns says a queue
 * was full. */
static __always_inline void health_full_queue(struct mrc_qp_tx *qp, __u64 tx_ns)
{
	__u64 t = tx_ns >> MRC_CONG_SLOT_SHIFT, hi = qp->cong_slot_hi;

	if (!qp->cong_slots || t > hi) {
		qp->cong_slots = !qp->cong_slots || t - hi > 63 ?
					 1 :
					 qp->cong_slots << (t - hi) | 1;
		qp->cong_slot_hi = t;
	} else if (hi - t <= 63) {
		qp->cong_slots |= 1ull << (hi - t);
	}
}

/* Under the QP lock: a packet leaves, a resend if retx (the loss rate
 * health_strikes reads). */
static __always_inline void health_sent(struct mrc_qp_tx *qp, __u8 retx)
{
	qp->sent_n++;
	if (retx)
		qp->sent_retx_n++;
	if (qp->sent_n > MRC_SENT_SPAN) {
		qp->sent_n >>= 1;
		qp->sent_retx_n >>= 1;
	}
}

/*
 * Under the QP lock: the silence rule's strikes while a queue is full. At
 * a loss rate p ((sent_retx_n + 1) / (sent_n + 1), at most 2^-l:
 * with little sent yet it is taken as high, not as 0, for a first burst of
 * drops meets a QP that has seen none), n packets of an
 * EV go unanswered in a row by chance with p^(n-1) after the first: n is
 * the least with that below 2^-MRC_SILENT_FALSE_BITS. A dead path loses
 * them all, and is found n packets later.
 */
static __always_inline __u32 health_strikes(const struct mrc_qp_tx *qp)
{
	__u64 q = (qp->sent_n + 1) / (qp->sent_retx_n + 1);
	__u32 l, n;

	/* l = floor(log2 q): q's top bit, smeared down, then found. */
	q |= q >> 1;
	q |= q >> 2;
	q |= q >> 4;
	q |= q >> 8;
	q |= q >> 16;
	l = evm_ctz64(q ^ (q >> 1));
	if (!l)
		l = 1;
	n = 1 + (MRC_SILENT_FALSE_BITS + l - 1) / l;
	if (n < MRC_SILENT_STRIKES)
		n = MRC_SILENT_STRIKES;
	return n > MRC_SILENT_STRIKES_MAX ? MRC_SILENT_STRIKES_MAX : n;
}

/* The silence rule's margin: how much later a delivered packet must have
 * left than an unanswered one on another EV to prove the latter lost. */
static __always_inline __u64 health_silence_margin(const struct mrc_qp_tx *qp)
{
	return 2ull * qp->reorder_ns + qp->rtt_hi_ns;
}

/*
 * How long an EV found silent is passed by before it is given a packet
 * again, to be blamed if that one is silent too: the QP's ACK timeout,
 * the time the application gives a packet before it is lost, and at
 * least twice the silence margin. A silent path may be holding packets
 * up, not losing them: on the 2-core testbed a router's softirq deferred
 * to ksoftirqd holds every packet of the EVs through it for 4-18 ms, and
 * each one arrives (docs/health.md).
 */
static __always_inline __u64 health_silence_pass_ns(const struct mrc_qp_tx *qp)
{
	__u64 m = 2ull * health_silence_margin(qp);

	return qp->timeout_ns > m ? qp->timeout_ns : m;
}

/* Under the QP lock: a packet leaves on EV i at now_ns, unanswered yet. */
static __always_inline void health_silent_sent(struct mrc_qp_tx *qp, __u32 i,
					       __u64 now_ns)
{
	__u32 e = i & (MRC_QP_EVS - 1), s;
	__u8 n;

	if (!qp->ev_silent_ns[e])
		qp->ev_silent_ns[e] = now_ns;
	else if ((__u32)now_ns - qp->ev_silent_last[e] < qp->srtt_ns)
		return; /* the same round trip: the same queue's fate */
	qp->ev_silent_last[e] = (__u32)now_ns;
	if (qp->ev_silent_n[e] < 255)
		qp->ev_silent_n[e]++;
	n = qp->ev_silent_n[e];
	s = health_strikes(qp);
	if (n >= s && (qp->ev_strike_ns[e] < qp->ev_silent_ns[e] ||
		       qp->ev_strike_n[e] < s)) {
		qp->ev_strike_ns[e] = now_ns;
		qp->ev_strike_n[e] = n;
	}
}

/*
 * Under the QP lock: is EV i dead by the silence rule? Its first
 * unanswered packet left a margin before one delivered on any EV, and
 * either no queue had been full lately (a path keeps order: one loss
 * proves it) or, if one had, the packets proven lost so far are as many
 * as health_strikes asks: counted up to the one at ev_strike_ns, never
 * the ones still in flight, which a deep queue holds for milliseconds.
 */
static __always_inline int health_silent_dead(const struct mrc_qp_tx *qp,
					      __u32 i)
{
	__u32 e = i & (MRC_QP_EVS - 1);
	__u64 m = health_silence_margin(qp), t = qp->ev_silent_ns[e];

	if (!t || t + m >= qp->acked_tx_ns)
		return 0;
	if (!health_congested_lately(qp, t))
		return 1;
	return qp->ev_strike_ns[e] >= t &&
	       qp->ev_strike_n[e] >= health_strikes(qp) &&
	       qp->ev_strike_ns[e] + m < qp->acked_tx_ns;
}

/*
 * Under the QP lock: a packet sent on EV i was lost. A GOOD EV becomes
 * ASSUMED_BAD and leaves ev_use, unless that would leave fewer than
 * ev_min_active in use: then it stays in use (still marked ASSUMED_BAD,
 * so probes bring it back) and *kept says so. Returns 1 if the state
 * changed (an event is due), else 0.
 */
static __always_inline int health_mark_bad(struct mrc_qp_tx *qp, __u32 i,
					   int *kept)
{
	__u32 e = i & (MRC_QP_EVS - 1);

	*kept = 0;
	if (i >= MRC_QP_EVS || qp->ev_state[e] != MRC_EV_GOOD)
		return 0;
	qp->ev_state[e] = MRC_EV_ASSUMED_BAD;
	evm_clear(&qp->ev_cool_silent, e); /* judged */
	if (evm_count(&qp->ev_use) - evm_has(&qp->ev_use, e) <
	    qp->ev_min_active)
		*kept = 1;
	else
		evm_clear(&qp->ev_use, e);
	return 1;
}

/*
 * Every record for mrcd goes through here: a full ring is counted, never
 * silent (state changes apart, for the drop counts mrcd reports).
 */
static __always_inline void health_emit(struct mrc_ev_event *e)
{
	if (bpf_ringbuf_output(&mrc_ev_events, e, sizeof(*e), 0)) {
		mrc_count_tx(MRC_TX_EV_EVENTS_DROPPED, 1);
		if (e->type == MRC_EVT_STATE)
			mrc_count_tx(MRC_TX_EV_STATE_DROPPED, 1);
	}
}

/*
 * mrcd waits for room in QP qpn's window (mrc_wake[qpn] 1, set before its
 * transmit call): wake it once, with an MRC_EVT_WAKE event.
 */
static __always_inline void mrcd_wake(__u32 qpn, __u64 now_ns)
{
	mrc_wake_t *wake = bpf_map_lookup_elem(&mrc_wake, &qpn);

	if (wake && *wake && __sync_val_compare_and_swap(wake, 1, 0) == 1) {
		struct mrc_ev_event w = { .ts_ns = now_ns,
					  .qpn = qpn,
					  .type = MRC_EVT_WAKE };

		health_emit(&w);
	}
}

/* After the lock: tell mrcd. */
static __always_inline void health_event(__u32 qpn, struct mrc_qp_tx *qp,
					 __u32 i, __u8 type, __u8 state,
					 __u8 old, __u8 reason)
{
	struct mrc_ev_event e = {
		.ts_ns = bpf_ktime_get_ns(),
		.qpn = qpn,
		.ev_idx = (__u8)i,
		.type = type,
		.state = state,
		.old_state = old,
		.reason = reason,
	};

	e.ev = qp->ev[i & (MRC_QP_EVS - 1)];
	e.port = qp->ev_port[i & (MRC_QP_EVS - 1)];
	health_emit(&e);
}

/* Nanoseconds into an event's 32-bit field: at most 4.29 s. */
static __always_inline __u32 health_ns32(__u64 ns)
{
	return ns > 0xffffffffull ? 0xffffffffu : (__u32)ns;
}

/* EV i GOOD -> ASSUMED_BAD by the silence rule, with its evidence. */
static __always_inline void health_event_silent(__u32 qpn, struct mrc_qp_tx *qp,
						__u32 i, __u8 reason,
						__u32 silent_ns, __u32 lead_ns,
						__u32 margin_ns)
{
	struct mrc_ev_event e = {
		.ts_ns = bpf_ktime_get_ns(),
		.qpn = qpn,
		.ev_idx = (__u8)i,
		.type = MRC_EVT_STATE,
		.state = MRC_EV_ASSUMED_BAD,
		.old_state = MRC_EV_GOOD,
		.reason = reason,
	};

	e.ev = qp->ev[i & (MRC_QP_EVS - 1)];
	e.port = qp->ev_port[i & (MRC_QP_EVS - 1)];
	e.silent_ns = silent_ns;
	e.lead_ns = lead_ns;
	e.margin_ns = margin_ns;
	health_emit(&e);
}

#endif /* MRC_BPF_HEALTH_H */
