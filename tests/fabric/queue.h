/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the congestion point's decision: what a switch queue
 * of a given rate and buffer does with one packet (pass, CE-mark, trim or
 * drop), from a model of its backlog. Plain C over struct fab_queue
 * (fabric_abi.h): the fabric's tc egress program runs it under the
 * queue's lock, and tests/unit/test_fab_queue.c runs the same code with a
 * clock of its own.
 */
#ifndef MRC_FABRIC_QUEUE_H
#define MRC_FABRIC_QUEUE_H

#include "fabric_abi.h"

enum fab_q_verdict {
	FAB_Q_PASS, /* queued as it is */
	FAB_Q_MARK, /* queued with CE set */
	FAB_Q_NOT_ECT, /* queued; would have been marked, but is not ECT */
	FAB_Q_TRIM, /* cut to its headers, queued ahead of the data */
	FAB_Q_DROP, /* not queued */
};

#define FAB_NSEC_PER_SEC 1000000000ull
/* The fastest queue the model takes: 100 Gbit/s, in bytes per second. */
#define FAB_Q_RATE_MAX 12500000000ull

/*
 * Drain the model to now_ns at the queue's rate: what the qdisc sent
 * meanwhile. Rounds down, so the model may lag the qdisc by under a byte
 * per packet; a clock that went backwards (another CPU's earlier reading)
 * drains nothing.
 */
static inline void fab_q_drain(const struct fab_queue_cfg *c,
			       struct fab_queue_state *s, __u64 now_ns)
{
	__u64 dt, out;

	if (now_ns <= s->last_ns)
		return;
	dt = now_ns - s->last_ns;
	s->last_ns = now_ns;
	if (!s->backlog_bytes)
		return;
	if (!c->rate_bytes_per_s ||
	    dt / FAB_NSEC_PER_SEC > s->backlog_bytes / c->rate_bytes_per_s) {
		/* Whole seconds alone would empty it (and keep out from
		 * overflowing); an unconfigured rate means no queue. */
		s->backlog_bytes = 0;
		return;
	}
	/* Seconds, then the rest: no overflow up to FAB_Q_RATE_MAX. */
	out = dt / FAB_NSEC_PER_SEC * c->rate_bytes_per_s +
	      dt % FAB_NSEC_PER_SEC * c->rate_bytes_per_s / FAB_NSEC_PER_SEC;
	s->backlog_bytes = s->backlog_bytes > out ? s->backlog_bytes - out : 0;
}

/* The histogram bucket of a wait behind q bytes (struct fab_queue_state). */
static inline __u32 fab_q_wait_bucket(const struct fab_queue_cfg *c, __u64 q)
{
	__u64 b;

	if (!c->rate_bytes_per_s)
		return 0;
	/* q is below 2^32 (the buffer), so q x 10^9 fits. */
	b = q * FAB_NSEC_PER_SEC / c->rate_bytes_per_s / FAB_Q_WAIT_BUCKET_NS;
	if (b >= FAB_Q_WAIT_BUCKETS)
		b = FAB_Q_WAIT_BUCKETS - 1;
	/* A power of two: the mask is the bound the verifier can see. */
	return (__u32)b & (FAB_Q_WAIT_BUCKETS - 1);
}

/*
 * One packet of len bytes (as the qdisc counts it: the whole frame)
 * arrives at now_ns. qdisc_backlog: the bytes the real queue holds, or -1
 * to go by the model. trim_len: its length once trimmed, 0 when it cannot
 * be (not UDP, or no longer than the trim would leave it). ect: its ECN
 * field is ECT(0), ECT(1) or CE. rnd: a uniform random u32 for the
 * marking ramp. Updates the model (set to the real backlog when known; a
 * queued packet joins it) and returns what to do.
 */
static inline enum fab_q_verdict fab_q_decide(const struct fab_queue_cfg *c,
					      struct fab_queue_state *s,
					      __u64 now_ns, __s64 qdisc_backlog,
					      __u32 len, __u32 trim_len,
					      int ect, __u32 rnd)
{
	__u64 q, span, p;

	fab_q_drain(c, s, now_ns);
	if (qdisc_backlog >= 0)
		s->backlog_bytes = (__u64)qdisc_backlog;
	q = s->backlog_bytes; /* what the packet finds */
	if (q + len > c->buffer_bytes) {
		if (c->full != FAB_Q_FULL_TRIM || !trim_len)
			return FAB_Q_DROP;
		/* The header takes its place on the wire, ahead of the data. */
		s->backlog_bytes = q + trim_len;
		if (s->backlog_bytes > s->hwm_bytes)
			s->hwm_bytes = s->backlog_bytes;
		return FAB_Q_TRIM;
	}
	s->backlog_bytes = q + len;
	if (s->backlog_bytes > s->hwm_bytes)
		s->hwm_bytes = s->backlog_bytes;
	s->wait_hist[fab_q_wait_bucket(c, q)]++;
	if (!c->ecn_max_bytes || q <= c->ecn_min_bytes)
		return FAB_Q_PASS;
	if (q < c->ecn_max_bytes) {
		/* The ramp: ecn_max_prob x (q - min) / (max - min). */
		span = c->ecn_max_bytes - c->ecn_min_bytes;
		p = (__u64)c->ecn_max_prob * (q - c->ecn_min_bytes) / span;
		if (rnd >= p)
			return FAB_Q_PASS;
	}
	return ect ? FAB_Q_MARK : FAB_Q_NOT_ECT;
}

#endif /* MRC_FABRIC_QUEUE_H */
