/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains UET 1.0 NSCC, the sender's delay- and ECN-based
 * congestion window of one QP (docs/congestion.md), as plain integer C
 * over struct mrc_nscc and struct mrc_nscc_params (include/mrc/nscc.h).
 * The data path runs it under the QP's lock (tx.h: the send gate;
 * mrc_xdp_rx.bpf.c: cc_ack); tests/unit/test_nscc.c runs the same code
 * with a clock of its own.
 *
 * No helpers, no loops, no signed division and a few words of stack, so
 * it compiles for clang -target bpf and for gcc alike. Time is passed in
 * (now_ns), never read. Every product is bounded in a comment by the
 * parameter limits of include/mrc/nscc.h; params must come from
 * nscc_params_from_cfg() (a zero divisor is not checked again here).
 *
 * Where UET leaves a choice, the choice made here:
 *  - avg_delay_ns is a time-weighted average over one base RTT: each
 *    sample moves it by (delay - avg) x min(dt, base_rtt) / base_rtt,
 *    where dt is the time since the previous sample ("the average over
 *    the most recent base_rtt", which UET leaves to the implementation).
 *  - "delay near zero" for fast increase is delay < near_zero_ns (1 us).
 *  - cwnd is whole bytes; fractions of a byte are dropped at each
 *    increase, and MD rounds down.
 *  - A smaller base RTT lowers max_wnd and caps cwnd at once, so cwnd
 *    stays within [min_wnd_bytes, max_wnd_bytes] after every call.
 *  - The floor (UET: one MTU) is one of the QP's own packets, which can
 *    be smaller than the profile's mtu_bytes.
 *  - Only the ACKs' RTTs teach the base RTT; a trim's NACK does not.
 *  - Every trim is a UET_TRIMMED one (no receiver-side CC here), and
 *    ACKs carry no receiver window penalty (Rcv_Cwnd_Pend).
 */
#ifndef MRC_BPF_NSCC_H
#define MRC_BPF_NSCC_H

#include <linux/types.h>

#include "mrc/nscc.h"

static __always_inline __u64 nscc_min(__u64 a, __u64 b)
{
	return a < b ? a : b;
}

static __always_inline __u64 nscc_max(__u64 a, __u64 b)
{
	return a > b ? a : b;
}

/* Time from then to now; 0 for a clock read earlier on another CPU. */
static __always_inline __u64 nscc_since(__u64 now_ns, __u64 then_ns)
{
	return now_ns > then_ns ? now_ns - then_ns : 0;
}

/* The window set to w, within [min_wnd_bytes, max_wnd_bytes]. */
static __always_inline void nscc_set_cwnd(struct mrc_nscc *s, __u64 w)
{
	w = nscc_min(w, s->max_wnd_bytes);
	s->cwnd_bytes = (__u32)nscc_max(w, s->min_wnd_bytes);
}

/*
 * A new QP whose packets carry pkt_bytes each (0: the profile's
 * mtu_bytes): the window starts at MaxWnd (UET), all learning ahead.
 */
static __always_inline void nscc_init(struct mrc_nscc *s,
				      const struct mrc_nscc_params *p,
				      __u64 now_ns, __u32 pkt_bytes)
{
	__builtin_memset(s, 0, sizeof(*s));
	s->min_wnd_bytes = pkt_bytes && pkt_bytes < p->mtu_bytes ? pkt_bytes :
								   p->mtu_bytes;
	s->max_wnd_bytes = p->max_cwnd_bytes;
	s->cwnd_bytes = p->max_cwnd_bytes;
	s->base_rtt_ns = p->base_rtt_ns;
	s->last_adjust_ns = now_ns;
	s->last_dec_ns = now_ns;
	s->last_delay_ns = now_ns;
}

/*
 * May len more bytes of new data go? Always when nothing is in flight,
 * so that a window smaller than one packet never stalls a QP. A resend
 * is not asked about: its bytes are in flight already.
 */
static __always_inline int nscc_can_send(const struct mrc_nscc *s,
					 const struct mrc_nscc_params *p,
					 __u32 len)
{
	(void)p;
	return !s->inflight_bytes ||
	       (__u64)s->inflight_bytes + len <= s->cwnd_bytes;
}

/* len bytes of a new PSN left. A resend does not call this. */
static __always_inline void nscc_on_send(struct mrc_nscc *s, __u32 len)
{
	__u64 f = (__u64)s->inflight_bytes + len;

	s->inflight_bytes = (__u32)nscc_min(f, 0xffffffffu);
}

/*
 * A PSN in flight that will never be acknowledged (its WQE failed, the
 * QP is flushed): out of inflight, with no congestion signal.
 */
static __always_inline void nscc_on_forget(struct mrc_nscc *s, __u32 len)
{
	s->inflight_bytes -= (__u32)nscc_min(len, s->inflight_bytes);
}

/*
 * A smaller RTT lowers the base RTT (never raises it) and with it the
 * largest window, 1.5 BDP of the path measured: max_cwnd x base_rtt /
 * config_base_rtt (< 2^28 x 2^30).
 */
static __always_inline void
nscc_update_base_rtt(struct mrc_nscc *s, const struct mrc_nscc_params *p,
		     __u64 rtt_ns)
{
	__u64 w;

	if (rtt_ns >= s->base_rtt_ns)
		return;
	s->base_rtt_ns = (__u32)rtt_ns;
	w = (__u64)p->max_cwnd_bytes * rtt_ns / p->base_rtt_ns;
	s->max_wnd_bytes = (__u32)nscc_max(w, s->min_wnd_bytes);
	nscc_set_cwnd(s, s->cwnd_bytes);
}

/*
 * avg_delay_ns: avg += (delay - avg) x min(dt, base_rtt) / base_rtt, dt
 * the time since the previous sample. A sample after a base RTT of
 * silence replaces the average; a burst moves it by its duration.
 * Samples are capped at 2^32 - 1 ns, so each product is < 2^32 x 2^30.
 */
static __always_inline void nscc_update_delay(struct mrc_nscc *s, __u64 now_ns,
					      __u64 delay_ns)
{
	__u64 x = nscc_min(delay_ns, 0xffffffffu), avg = s->avg_delay_ns;
	__u64 base = nscc_max(s->base_rtt_ns, 1);
	__u64 w = nscc_min(nscc_since(now_ns, s->last_delay_ns), base);

	if (x >= avg)
		avg += (x - avg) * w / base;
	else
		avg -= (avg - x) * w / base;
	s->avg_delay_ns = (__u32)avg;
	if (now_ns > s->last_delay_ns)
		s->last_delay_ns = now_ns;
}

/*
 * Quick adapt (UET): at the end of each period of base_rtt +
 * target_delay, if a trim asked for it, or this is a loss, or the delay
 * exceeds qa_threshold, and the bytes acknowledged in the period are
 * few (below max_wnd >> qa_gate), the window becomes those bytes: what
 * the path actually delivered. ECN-marked ACKs of the packets in flight
 * then (bytes_to_ignore) are ignored: they describe the old window.
 * Returns MRC_NSCC_QA, MRC_NSCC_IGNORED, or MRC_NSCC_NONE when the
 * caller goes on; both of the former drop the pending increase.
 */
static __always_inline enum mrc_nscc_verdict
nscc_quick_adapt(struct mrc_nscc *s, const struct mrc_nscc_params *p,
		 __u64 now_ns, int is_loss, int ecn, __u64 delay_ns)
{
	enum mrc_nscc_verdict v = MRC_NSCC_NONE;
	__u64 gate;

	if (p->disable_qa)
		return MRC_NSCC_NONE;
	if (s->bytes_ignored < s->bytes_to_ignore && ecn) {
		v = MRC_NSCC_IGNORED;
	} else if (now_ns >= s->qa_endtime_ns) {
		/* qa_gate <= 31; the mask only keeps the shift defined. */
		gate = (__u64)s->max_wnd_bytes >> (p->qa_gate & 63);
		/* The first call only starts a period: nothing measured. */
		if (s->qa_endtime_ns &&
		    (s->trigger_qa || is_loss ||
		     delay_ns > p->qa_threshold_ns) &&
		    s->achieved_bytes < gate) {
			nscc_set_cwnd(s, s->achieved_bytes);
			s->bytes_to_ignore = s->inflight_bytes;
			s->bytes_ignored = 0;
			s->trigger_qa = 0;
			v = MRC_NSCC_QA;
		}
		s->achieved_bytes = 0;
		s->qa_endtime_ns = now_ns + s->base_rtt_ns + p->target_delay_ns;
	}
	if (v != MRC_NSCC_NONE) {
		s->inc_bytes2_q8 = 0;
		s->received_bytes = 0;
	}
	return v;
}

/*
 * Fast increase: once a whole window was acknowledged at near-zero
 * delay, each such ACK grows cwnd at once by acked x fi_scale (< 2^28 x
 * 2^24), up to max_wnd, until a delay that is not near zero or an MD.
 * Returns 1 when it grew the window.
 */
static __always_inline int nscc_fast_increase(struct mrc_nscc *s,
					      const struct mrc_nscc_params *p,
					      __u64 nb, __u64 delay_ns)
{
	__u64 inc;

	if (delay_ns < p->near_zero_ns) {
		s->fi_count_bytes += nb;
		if (s->fi_count_bytes > s->cwnd_bytes || s->increase_mode) {
			inc = nb * p->fi_scale_q16 >> 16;
			nscc_set_cwnd(s, s->cwnd_bytes + inc);
			s->increase_mode = 1;
			return 1;
		}
	} else {
		s->fi_count_bytes = 0;
	}
	s->increase_mode = 0;
	return 0;
}

/*
 * Delay below target, no ECN: fast increase if it applies, else
 * inc += alpha x (target - delay) x acked, that is
 * alpha_target x (target - delay) / target (< 2^32 x 2^30, then < 2^32)
 * times acked (< 2^28).
 */
static __always_inline enum mrc_nscc_verdict
nscc_proportional_increase(struct mrc_nscc *s, const struct mrc_nscc_params *p,
			   __u64 nb, __u64 delay_ns)
{
	__u64 k;

	if (nscc_fast_increase(s, p, nb, delay_ns))
		return MRC_NSCC_FAST;
	k = (__u64)p->alpha_target_q8_bytes * (p->target_delay_ns - delay_ns) /
	    p->target_delay_ns;
	s->inc_bytes2_q8 += k * nb;
	return MRC_NSCC_PROP;
}

/*
 * ECN and delay at or above target: cwnd x max(1 - gamma (avg - target)
 * / avg, max_md_jump), at most once per base RTT, never below min_wnd_bytes.
 * gamma x (avg - target) < 2^16 x 2^32; cwnd x keep < 2^28 x 2^16.
 */
static __always_inline enum mrc_nscc_verdict
nscc_multiplicative_decrease(struct mrc_nscc *s,
			     const struct mrc_nscc_params *p, __u64 now_ns)
{
	__u64 avg = s->avg_delay_ns, cut, keep;

	s->increase_mode = 0;
	s->fi_count_bytes = 0;
	if (avg <= p->target_delay_ns ||
	    nscc_since(now_ns, s->last_dec_ns) <= s->base_rtt_ns)
		return MRC_NSCC_MD_HELD;
	cut = (__u64)p->gamma_q16 * (avg - p->target_delay_ns) / avg;
	keep = cut < MRC_NSCC_Q16 ? MRC_NSCC_Q16 - cut : 0;
	keep = nscc_max(keep, p->max_md_jump_q16);
	nscc_set_cwnd(s, (__u64)s->cwnd_bytes * keep >> 16);
	s->last_dec_ns = now_ns;
	return MRC_NSCC_MD;
}

/*
 * Apply the increase accumulated so far, once more than adjust_bytes
 * were acknowledged or a whole adjust period passed; only the period
 * adds eta. inc / cwnd < 2^61 / 2^6.
 */
static __always_inline void
nscc_fulfill(struct mrc_nscc *s, const struct mrc_nscc_params *p, __u64 now_ns)
{
	__u64 since = nscc_since(now_ns, s->last_adjust_ns), add;

	if (since < p->adjust_period_ns && s->received_bytes <= p->adjust_bytes)
		return;
	add = s->inc_bytes2_q8 / s->cwnd_bytes;
	if (since >= p->adjust_period_ns) {
		s->last_adjust_ns = now_ns;
		add += p->eta_q8_bytes;
	}
	nscc_set_cwnd(s, s->cwnd_bytes + (add >> 8));
	s->inc_bytes2_q8 = 0;
	s->received_bytes = 0;
}

/*
 * An ACK or SACK newly acknowledged acked_bytes (each PSN once) at now_ns
 * (UET's NSCC.OnACK). rtt_ns: the RTT the sender measured for it less the
 * responder's service time (the time between the packet's arrival and
 * its ACK's departure), so that ACK coalescing is not taken for queueing;
 * 0 when there is no valid sample (Karn: the PSN was resent, so the ACK
 * may be the first transmission's). ecn: the ACK echoes CE.
 *
 * Acknowledged bytes always count; the window moves only with a sample.
 * The four cases use this ACK's delay; MD sizes its cut by the average.
 */
static __always_inline enum mrc_nscc_verdict
nscc_on_ack(struct mrc_nscc *s, const struct mrc_nscc_params *p, __u64 now_ns,
	    __u32 acked_bytes, __u64 rtt_ns, int ecn)
{
	/* An ACK covers at most what is in flight, so at most max_cwnd;
	 * the cap only keeps the products below bounded. */
	__u64 nb = nscc_min(acked_bytes, p->max_cwnd_bytes), delay;
	enum mrc_nscc_verdict v;

	s->inflight_bytes -= (__u32)nscc_min(acked_bytes, s->inflight_bytes);
	s->bytes_ignored += nb;
	s->received_bytes += nb;
	s->achieved_bytes += nb;
	if (!rtt_ns)
		return MRC_NSCC_NONE;
	nscc_update_base_rtt(s, p, rtt_ns);
	delay = rtt_ns - s->base_rtt_ns;
	nscc_update_delay(s, now_ns, delay);
	v = nscc_quick_adapt(s, p, now_ns, 0, ecn, delay);
	if (v != MRC_NSCC_NONE)
		return v;
	if (!ecn && delay >= p->target_delay_ns) {
		/* Fair increase: fi x acked (< 2^32 x 2^28). */
		s->inc_bytes2_q8 += (__u64)p->fi_q8_bytes * nb;
		v = MRC_NSCC_FAIR;
	} else if (!ecn) {
		v = nscc_proportional_increase(s, p, nb, delay);
	} else if (delay >= p->target_delay_ns) {
		v = nscc_multiplicative_decrease(s, p, now_ns);
	} else {
		/* UET: marks at low delay are mostly uneven load balance;
		 * let the choice of EV react to them first. */
		v = MRC_NSCC_ECN_LOW;
	}
	nscc_fulfill(s, p, now_ns);
	return v;
}

/* cwnd less one packet, at least min_wnd_bytes. */
static __always_inline void nscc_cut(struct mrc_nscc *s, __u32 bytes)
{
	__u64 w = s->cwnd_bytes;

	nscc_set_cwnd(s, w > bytes ? w - bytes : 0);
}

/*
 * A TRIMMED NACK for a packet of bytes (UET's NSCC.OnNACK for a trim):
 * the packet met a full queue, so it counts as a delay of one base RTT
 * and asks for quick adapt; unless quick adapt acts (now, as a loss) the
 * window loses one packet. inflight_bytes stays: the packet is resent
 * under the same PSN, and its ACK subtracts it. A trim says a queue is
 * full, not that a path is dead: it never touches path state.
 */
static __always_inline enum mrc_nscc_verdict
nscc_on_trim(struct mrc_nscc *s, const struct mrc_nscc_params *p, __u64 now_ns,
	     __u32 bytes)
{
	enum mrc_nscc_verdict v;

	nscc_update_delay(s, now_ns, p->base_rtt_ns);
	s->bytes_ignored += bytes;
	s->trigger_qa = 1;
	v = nscc_quick_adapt(s, p, now_ns, 1, 1, 0);
	if (v != MRC_NSCC_NONE)
		return v;
	nscc_cut(s, bytes);
	return MRC_NSCC_CUT;
}

/*
 * A packet of bytes inferred lost or timed out (UET's
 * NSCC.OnInferredLoss): the window loses one packet; no quick adapt, no
 * delay sample. inflight_bytes stays, as for a trim.
 */
static __always_inline enum mrc_nscc_verdict
nscc_on_loss(struct mrc_nscc *s, const struct mrc_nscc_params *p, __u32 bytes)
{
	(void)p; /* the arguments every event takes */
	s->bytes_ignored += bytes;
	nscc_cut(s, bytes);
	return MRC_NSCC_CUT;
}

#endif /* MRC_BPF_NSCC_H */
