// SPDX-License-Identifier: GPL-2.0
/*
 * UET 1.0 NSCC (bpf/lib/nscc.h, the code the data path is to run) on a
 * clock of the test's, with vectors worked by hand for each rule, and the
 * conversion of a CC profile's parameters (daemon/nscc_params.c).
 *
 * Most vectors use one small profile, chosen so the sums are easy:
 * packets of 1000 bytes, MaxWnd 100000 bytes, base RTT and target delay
 * 10 us, an adjustment after 8000 bytes or 10 us, eta 100 bytes, fi 500
 * bytes, alpha x target 2000 bytes, fi_scale 1/4, gamma 3/4, max_md_jump
 * 1/2, quick adapt above 40 us of delay and below MaxWnd >> 3.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../bpf/lib/nscc.h"
#include "nscc_params.h"

#define US 1000ull

static struct mrc_nscc_params params(void)
{
	return (struct mrc_nscc_params){
		.mtu_bytes = 1000,
		.max_cwnd_bytes = 100000,
		.base_rtt_ns = 10 * US,
		.target_delay_ns = 10 * US,
		.adjust_period_ns = 10 * US,
		.adjust_bytes = 8000,
		.eta_q8_bytes = 100 * 256,
		.fi_q8_bytes = 500 * 256,
		.alpha_target_q8_bytes = 2000 * 256,
		.fi_scale_q16 = 16384,
		.gamma_q16 = 49152,
		.max_md_jump_q16 = 32768,
		.near_zero_ns = MRC_NSCC_NEAR_ZERO_NS,
		.qa_threshold_ns = 40 * US,
		.qa_gate = 3,
	};
}

/* An ACK of bytes; rtt_ns is base + delay (0: no sample). */
static enum mrc_nscc_verdict ack(struct mrc_nscc *s,
				 const struct mrc_nscc_params *p, __u64 now_ns,
				 __u32 bytes, __u64 rtt_ns, int ecn)
{
	return nscc_on_ack(s, p, now_ns, bytes, rtt_ns, ecn);
}

static void init_starts_at_max_window(void **state)
{
	struct mrc_nscc_params p = params();
	struct mrc_nscc s;

	(void)state;
	memset(&s, 0xa5, sizeof(s));
	nscc_init(&s, &p, 5 * US, 0);
	assert_int_equal(s.cwnd_bytes, 100000);
	assert_int_equal(s.max_wnd_bytes, 100000);
	assert_int_equal(s.base_rtt_ns, 10 * US);
	assert_int_equal(s.inflight_bytes, 0);
	assert_int_equal(s.avg_delay_ns, 0);
	assert_int_equal(s.inc_bytes2_q8, 0);
	assert_int_equal(s.qa_endtime_ns, 0);
	assert_int_equal(s.last_adjust_ns, 5 * US);
	assert_int_equal(s.last_dec_ns, 5 * US);
	assert_int_equal(s.last_delay_ns, 5 * US);
	assert_int_equal(s.increase_mode, 0);
	assert_int_equal(s.trigger_qa, 0);
}

/*
 * Delay 15 us >= target, no ECN: each 1000-byte ACK adds fi x 1000 =
 * 500000 bytes^2 (128e6 in Q8). The 9th ACK passes 8000 bytes: cwnd +=
 * 9 x 500000 / 50000 = 90 bytes, with no eta (the period has not
 * passed): fi bytes per window, whatever the window.
 */
static void fair_increase_above_target(void **state)
{
	struct mrc_nscc_params p = params();
	struct mrc_nscc s;
	int i;

	(void)state;
	nscc_init(&s, &p, 0, 0);
	s.cwnd_bytes = 50000;
	for (i = 1; i <= 8; i++) {
		assert_int_equal(ack(&s, &p, i * US, 1000, 25 * US, 0),
				 MRC_NSCC_FAIR);
		assert_int_equal(s.cwnd_bytes, 50000);
	}
	assert_int_equal(s.inc_bytes2_q8, 8 * 128000000ull);
	assert_int_equal(ack(&s, &p, 9 * US, 1000, 25 * US, 0), MRC_NSCC_FAIR);
	assert_int_equal(s.cwnd_bytes, 50090);
	assert_int_equal(s.inc_bytes2_q8, 0);
	assert_int_equal(s.received_bytes, 0);
	/* Exactly at target is still fair increase. */
	assert_int_equal(ack(&s, &p, 9 * US + 1, 1000, 20 * US, 0),
			 MRC_NSCC_FAIR);
}

/*
 * Delay 5 us, half the target: alpha x (target - delay) = 2000 / 2 =
 * 1000 bytes per window. 9 ACKs of 1000 bytes: cwnd += 9000 x 1000 /
 * 50000 = 180.
 */
static void proportional_increase_below_target(void **state)
{
	struct mrc_nscc_params p = params();
	struct mrc_nscc s;
	int i;

	(void)state;
	nscc_init(&s, &p, 0, 0);
	s.cwnd_bytes = 50000;
	for (i = 1; i <= 8; i++)
		assert_int_equal(ack(&s, &p, i * US, 1000, 15 * US, 0),
				 MRC_NSCC_PROP);
	/* 1000 bytes x 1000 bytes each, in Q8. */
	assert_int_equal(s.inc_bytes2_q8, 8 * 256000000ull);
	assert_int_equal(s.fi_count_bytes, 0); /* 5 us is not near zero */
	assert_int_equal(ack(&s, &p, 9 * US, 1000, 15 * US, 0), MRC_NSCC_PROP);
	assert_int_equal(s.cwnd_bytes, 50180);
}

/* Unmarked ACKs at low delay forever: up to MaxWnd, never beyond. */
static void proportional_increase_stops_at_max_cwnd(void **state)
{
	struct mrc_nscc_params p = params();
	struct mrc_nscc s;
	__u32 prev = 50000;
	int i;

	(void)state;
	nscc_init(&s, &p, 0, 0);
	s.cwnd_bytes = 50000;
	for (i = 1; i <= 5000; i++) {
		assert_int_equal(ack(&s, &p, i * US, 1000, 15 * US, 0),
				 MRC_NSCC_PROP);
		assert_true(s.cwnd_bytes >= prev);
		assert_true(s.cwnd_bytes <= 100000);
		prev = s.cwnd_bytes;
	}
	assert_int_equal(s.cwnd_bytes, 100000);
}

/*
 * Delay 0 and no adjustment in the way (thresholds at their limits):
 * ACKs 1..50 are proportional while fi_count reaches 50000, not above
 * cwnd; ACK 51 makes it 51000 > 50000 and starts fast increase, 1000 x
 * 1/4 = 250 bytes per ACK at once: 50000 + 200 x 250 = 100000 at ACK
 * 250, where it stays. A delay not near zero ends it; a new run must
 * again see a whole window first.
 */
static void fast_increase_after_a_window_at_zero_delay(void **state)
{
	struct mrc_nscc_params p = params();
	struct mrc_nscc s;
	int i;

	(void)state;
	p.adjust_bytes = MRC_NSCC_CWND_MAX;
	p.adjust_period_ns = MRC_NSCC_TIME_MAX_NS;
	nscc_init(&s, &p, 0, 0);
	s.cwnd_bytes = 50000;
	for (i = 1; i <= 50; i++)
		assert_int_equal(ack(&s, &p, i * US, 1000, 10 * US, 0),
				 MRC_NSCC_PROP);
	assert_int_equal(s.fi_count_bytes, 50000);
	assert_int_equal(s.increase_mode, 0);
	assert_int_equal(s.cwnd_bytes, 50000);
	assert_int_equal(ack(&s, &p, 51 * US, 1000, 10 * US, 0), MRC_NSCC_FAST);
	assert_int_equal(s.cwnd_bytes, 50250);
	assert_int_equal(s.increase_mode, 1);
	for (i = 52; i <= 250; i++)
		assert_int_equal(ack(&s, &p, i * US, 1000, 10 * US, 0),
				 MRC_NSCC_FAST);
	assert_int_equal(s.cwnd_bytes, 100000);
	for (i = 251; i <= 300; i++)
		assert_int_equal(ack(&s, &p, i * US, 1000, 10 * US, 0),
				 MRC_NSCC_FAST);
	assert_int_equal(s.cwnd_bytes, 100000);
	/* 1 us of delay is not near zero. */
	assert_int_equal(ack(&s, &p, 301 * US, 1000, 11 * US, 0),
			 MRC_NSCC_PROP);
	assert_int_equal(s.increase_mode, 0);
	assert_int_equal(s.fi_count_bytes, 0);
	assert_int_equal(ack(&s, &p, 302 * US, 1000, 10 * US, 0),
			 MRC_NSCC_PROP);
	assert_int_equal(s.fi_count_bytes, 1000);
}

/*
 * ECN with delay 20 us: a sample after a base RTT of silence sets the
 * average to 20 us, so cwnd x max(1 - 3/4 x 10/20, 1/2) = 5/8: 100000
 * -> 62500. No second cut within a base RTT (10 us); after it, 62500 x
 * 5/8 = 39062.5 -> 39062. At 200 us of delay 1 - 3/4 x 190/200 = 0.2875
 * is below max_md_jump: halved, to 19531, and down to one MTU, no
 * lower. eta is 0 and quick adapt off here, to see the cuts alone.
 */
static void md_on_ecn_at_high_delay(void **state)
{
	struct mrc_nscc_params p = params();
	const __u32 halves[] = { 9765, 4882, 2441, 1220, 1000, 1000 };
	struct mrc_nscc s;
	unsigned int i;
	__u64 t;

	(void)state;
	p.eta_q8_bytes = 0;
	p.qa_threshold_ns = MRC_NSCC_QA_NEVER;
	nscc_init(&s, &p, 0, 0);
	s.increase_mode = 1;
	s.fi_count_bytes = 7000;
	assert_int_equal(ack(&s, &p, 20 * US, 1000, 30 * US, 1), MRC_NSCC_MD);
	assert_int_equal(s.avg_delay_ns, 20 * US);
	assert_int_equal(s.cwnd_bytes, 62500);
	assert_int_equal(s.last_dec_ns, 20 * US);
	assert_int_equal(s.increase_mode, 0);
	assert_int_equal(s.fi_count_bytes, 0);
	/* 5 us later: once per base RTT. */
	assert_int_equal(ack(&s, &p, 25 * US, 1000, 30 * US, 1),
			 MRC_NSCC_MD_HELD);
	assert_int_equal(s.cwnd_bytes, 62500);
	/* Exactly one base RTT later: still held (more than one). */
	assert_int_equal(ack(&s, &p, 30 * US, 1000, 30 * US, 1),
			 MRC_NSCC_MD_HELD);
	assert_int_equal(ack(&s, &p, 30 * US + 1, 1000, 30 * US, 1),
			 MRC_NSCC_MD);
	assert_int_equal(s.cwnd_bytes, 39062);
	/* Bounded by max_md_jump. */
	assert_int_equal(ack(&s, &p, 50 * US, 1000, 210 * US, 1), MRC_NSCC_MD);
	assert_int_equal(s.avg_delay_ns, 200 * US);
	assert_int_equal(s.cwnd_bytes, 19531);
	t = 50 * US;
	for (i = 0; i < sizeof(halves) / sizeof(halves[0]); i++) {
		t += 10 * US + 1;
		assert_int_equal(ack(&s, &p, t, 1000, 210 * US, 1),
				 MRC_NSCC_MD);
		assert_int_equal(s.cwnd_bytes, halves[i]);
	}
}

/*
 * MD needs the average above target too: after a zero-delay sample, a
 * marked ACK with 20 us of delay 0.5 us later moves the average by only
 * 20 x 0.5 / 10 = 1 us. Nothing is cut.
 */
static void md_needs_average_above_target(void **state)
{
	struct mrc_nscc_params p = params();
	struct mrc_nscc s;

	(void)state;
	nscc_init(&s, &p, 0, 0);
	ack(&s, &p, 100 * US, 1000, 10 * US, 0);
	assert_int_equal(s.avg_delay_ns, 0);
	assert_int_equal(ack(&s, &p, 100 * US + 500, 1000, 30 * US, 1),
			 MRC_NSCC_MD_HELD);
	assert_int_equal(s.avg_delay_ns, 1000);
	assert_int_equal(s.cwnd_bytes, 100000);
}

/*
 * ECN at 5 us of delay: no congestion reaction at all (UET leaves it to
 * load balancing), fast-increase state untouched. The adjustment still
 * runs: 9 ACKs pass 8000 bytes with nothing to add, and the period's
 * end adds only eta.
 */
static void ecn_at_low_delay_changes_nothing(void **state)
{
	struct mrc_nscc_params p = params();
	struct mrc_nscc s;
	int i;

	(void)state;
	nscc_init(&s, &p, 0, 0);
	s.cwnd_bytes = 50000;
	s.increase_mode = 1;
	s.fi_count_bytes = 3000;
	for (i = 1; i <= 9; i++)
		assert_int_equal(ack(&s, &p, i * US, 1000, 15 * US, 1),
				 MRC_NSCC_ECN_LOW);
	assert_int_equal(s.cwnd_bytes, 50000);
	assert_int_equal(s.inc_bytes2_q8, 0);
	assert_int_equal(s.increase_mode, 1);
	assert_int_equal(s.fi_count_bytes, 3000);
	assert_int_equal(ack(&s, &p, 10 * US, 1000, 15 * US, 1),
			 MRC_NSCC_ECN_LOW);
	assert_int_equal(s.cwnd_bytes, 50100);
}

/*
 * 20 packets out; ACKs at 1..5 us (zero delay). With quick adapt on, the
 * first only starts its period (to 1 + 10 + 10 = 21 us) and the other
 * four achieve 4000 bytes.
 */
static void trim_setup(struct mrc_nscc *s, const struct mrc_nscc_params *p)
{
	int i;

	nscc_init(s, p, 0, 0);
	for (i = 0; i < 20; i++)
		nscc_on_send(s, 1000);
	for (i = 1; i <= 5; i++)
		ack(s, p, i * US, 1000, 10 * US, 0);
	assert_int_equal(s->inflight_bytes, 15000);
	assert_int_equal(s->cwnd_bytes, 100000);
}

/*
 * A burst of 5 trims at 22 us, after the period: the first quick-adapts,
 * cwnd = the 4000 bytes achieved (below 100000 >> 3 = 12500); the 15000
 * bytes then in flight are to be ignored, so the rest of the burst and
 * stale marked ACKs change nothing. Trims leave inflight alone.
 */
static void trim_burst_quick_adapts(void **state)
{
	struct mrc_nscc_params p = params();
	struct mrc_nscc s;
	int i;

	(void)state;
	trim_setup(&s, &p);
	assert_int_equal(s.qa_endtime_ns, 21 * US);
	assert_int_equal(s.achieved_bytes, 4000);
	assert_int_equal(nscc_on_trim(&s, &p, 22 * US, 1000), MRC_NSCC_QA);
	assert_int_equal(s.cwnd_bytes, 4000);
	assert_int_equal(s.bytes_to_ignore, 15000);
	assert_int_equal(s.bytes_ignored, 0);
	assert_int_equal(s.trigger_qa, 0);
	assert_int_equal(s.achieved_bytes, 0);
	assert_int_equal(s.qa_endtime_ns, 42 * US);
	assert_int_equal(s.inc_bytes2_q8, 0);
	assert_int_equal(s.received_bytes, 0);
	assert_int_equal(s.avg_delay_ns, 10 * US); /* a trim: one base RTT */
	for (i = 1; i <= 4; i++)
		assert_int_equal(nscc_on_trim(&s, &p, 22 * US + i * 100, 1000),
				 MRC_NSCC_IGNORED);
	assert_int_equal(s.cwnd_bytes, 4000);
	assert_int_equal(s.inflight_bytes, 15000);
	assert_int_equal(s.bytes_ignored, 4000);
	/* A stale marked ACK at high delay: ignored, no MD. */
	assert_int_equal(ack(&s, &p, 23 * US, 1000, 30 * US, 1),
			 MRC_NSCC_IGNORED);
	assert_int_equal(s.cwnd_bytes, 4000);
	/* An unmarked one is not stale: fair increase goes on. */
	assert_int_equal(ack(&s, &p, 23 * US + 1, 1000, 30 * US, 0),
			 MRC_NSCC_FAIR);
}

/* disable_qa: each trim of the burst takes one packet off the window. */
static void trim_without_quick_adapt(void **state)
{
	struct mrc_nscc_params p = params();
	struct mrc_nscc s;
	int i;

	(void)state;
	p.disable_qa = 1;
	trim_setup(&s, &p);
	for (i = 0; i < 5; i++)
		assert_int_equal(nscc_on_trim(&s, &p, 22 * US + i * 100, 1000),
				 MRC_NSCC_CUT);
	assert_int_equal(s.cwnd_bytes, 95000);
	assert_int_equal(s.inflight_bytes, 15000);
	/* ... and a marked ACK is never ignored. */
	assert_int_equal(ack(&s, &p, 40 * US, 1000, 30 * US, 1), MRC_NSCC_MD);
}

/*
 * qa_gate 5: quick adapt only below 100000 >> 5 = 3125 bytes achieved.
 * 4000 were, so the trim cuts one packet; the request stays, and at the
 * end of the next period (42 us), with 1000 bytes achieved, an ACK
 * quick-adapts to them.
 */
static void qa_gate_limits_quick_adapt(void **state)
{
	struct mrc_nscc_params p = params();
	struct mrc_nscc s;

	(void)state;
	p.qa_gate = 5;
	trim_setup(&s, &p);
	assert_int_equal(nscc_on_trim(&s, &p, 22 * US, 1000), MRC_NSCC_CUT);
	assert_int_equal(s.cwnd_bytes, 99000);
	assert_int_equal(s.trigger_qa, 1);
	assert_int_equal(s.qa_endtime_ns, 42 * US);
	assert_int_equal(s.achieved_bytes, 0);
	assert_int_equal(ack(&s, &p, 43 * US, 1000, 10 * US, 0), MRC_NSCC_QA);
	assert_int_equal(s.cwnd_bytes, 1000);
	assert_int_equal(s.trigger_qa, 0);
}

/*
 * A delay above qa_threshold (40 us) quick-adapts at the period's end:
 * 30 out, ACKs at 1 us (starts the period, to 21 us), 2 and 3 us, then
 * at 21 us one with 50 us of delay: cwnd = 3000 achieved, 26000 in
 * flight to ignore. Within the next period (to 41 us) no quick adapt:
 * fair increase, and the period's adjustment (last one at 0) adds
 * 500000 / 3000 + eta = 166 + 100 bytes.
 */
static void quick_adapt_on_delay_above_threshold(void **state)
{
	struct mrc_nscc_params p = params();
	struct mrc_nscc s;
	int i;

	(void)state;
	for (i = 0; i < 2; i++) {
		int j;

		nscc_init(&s, &p, 0, 0);
		for (j = 0; j < 30; j++)
			nscc_on_send(&s, 1000);
		for (j = 1; j <= 3; j++)
			ack(&s, &p, j * US, 1000, 10 * US, 0);
		if (i == 0) {
			/* Exactly at the threshold: not above it. */
			assert_int_equal(ack(&s, &p, 21 * US, 1000, 50 * US, 0),
					 MRC_NSCC_FAIR);
			assert_int_equal(s.achieved_bytes, 0);
			assert_int_equal(s.qa_endtime_ns, 41 * US);
		}
	}
	assert_int_equal(ack(&s, &p, 21 * US, 1000, 60 * US, 0), MRC_NSCC_QA);
	assert_int_equal(s.cwnd_bytes, 3000);
	assert_int_equal(s.bytes_to_ignore, 26000);
	assert_int_equal(s.qa_endtime_ns, 41 * US);
	assert_int_equal(ack(&s, &p, 22 * US, 1000, 60 * US, 0), MRC_NSCC_FAIR);
	assert_int_equal(s.cwnd_bytes, 3266);
	assert_int_equal(s.last_adjust_ns, 22 * US);
}

/*
 * Fair increase (500000 bytes^2 per 1000-byte ACK) from cwnd 50000:
 *  - bytes: 8 ACKs make 8000, not above the threshold; the 9th adjusts
 *    by 4500000 / 50000 = 90, without eta; last_adjust stays 0;
 *  - period: at 10 us, 500000 / 50090 = 9.98 (Q8: 2555) + eta 100 (Q8:
 *    25600) = 28155 / 256 -> 109: 50199, last_adjust 10 us;
 *  - bytes again at 10.9 us: 4500000 / 50199 = 89.6 -> 89: 50288;
 *  - the period counts from the last period adjustment: at 20 us,
 *    (2545 + 25600) / 256 -> 109: 50397.
 */
static void adjust_by_bytes_and_by_period(void **state)
{
	struct mrc_nscc_params p = params();
	struct mrc_nscc s;
	int i;

	(void)state;
	nscc_init(&s, &p, 0, 0);
	s.cwnd_bytes = 50000;
	for (i = 1; i <= 8; i++)
		ack(&s, &p, i * 100, 1000, 25 * US, 0);
	assert_int_equal(s.cwnd_bytes, 50000);
	assert_int_equal(s.received_bytes, 8000);
	ack(&s, &p, 900, 1000, 25 * US, 0);
	assert_int_equal(s.cwnd_bytes, 50090);
	assert_int_equal(s.last_adjust_ns, 0);
	assert_int_equal(s.received_bytes, 0);
	ack(&s, &p, 10 * US, 1000, 25 * US, 0);
	assert_int_equal(s.cwnd_bytes, 50199);
	assert_int_equal(s.last_adjust_ns, 10 * US);
	for (i = 1; i <= 9; i++)
		ack(&s, &p, 10 * US + i * 100, 1000, 25 * US, 0);
	assert_int_equal(s.cwnd_bytes, 50288);
	assert_int_equal(s.last_adjust_ns, 10 * US);
	ack(&s, &p, 20 * US, 1000, 25 * US, 0);
	assert_int_equal(s.cwnd_bytes, 50397);
	assert_int_equal(s.last_adjust_ns, 20 * US);
}

/*
 * The base RTT only falls, and MaxWnd follows it: 100000 x 8 / 10 =
 * 80000 at 8 us, 50000 at 5 us, one MTU at 1 ns; cwnd is capped with it.
 * Delay is measured from the learned base.
 */
static void base_rtt_learned_downwards_only(void **state)
{
	struct mrc_nscc_params p = params();
	struct mrc_nscc s;

	(void)state;
	nscc_init(&s, &p, 0, 0);
	ack(&s, &p, 1 * US, 1000, 12 * US, 0);
	assert_int_equal(s.base_rtt_ns, 10 * US);
	assert_int_equal(s.max_wnd_bytes, 100000);
	ack(&s, &p, 2 * US, 1000, 8 * US, 0);
	assert_int_equal(s.base_rtt_ns, 8 * US);
	assert_int_equal(s.max_wnd_bytes, 80000);
	assert_int_equal(s.cwnd_bytes, 80000);
	ack(&s, &p, 3 * US, 1000, 9 * US, 0);
	assert_int_equal(s.base_rtt_ns, 8 * US);
	assert_int_equal(s.fi_count_bytes, 0); /* 1 us: not near zero */
	ack(&s, &p, 4 * US, 1000, 5 * US, 0);
	assert_int_equal(s.base_rtt_ns, 5 * US);
	assert_int_equal(s.max_wnd_bytes, 50000);
	assert_int_equal(s.cwnd_bytes, 50000);
	assert_int_equal(s.fi_count_bytes, 1000); /* delay 0 */
	ack(&s, &p, 5 * US, 1000, 20 * US, 0);
	assert_int_equal(s.base_rtt_ns, 5 * US);
	ack(&s, &p, 6 * US, 1000, 1, 0);
	assert_int_equal(s.base_rtt_ns, 1);
	assert_int_equal(s.max_wnd_bytes, 1000);
	assert_int_equal(s.cwnd_bytes, 1000);
}

/*
 * Karn: without a sample the bytes count, nothing else happens, not even
 * the adjustment due. The next sampled ACK (fair, at 21 us, last
 * adjustment at 0) applies 500000 / 50000 + eta = 110 bytes.
 */
static void no_rtt_sample_is_bookkeeping_only(void **state)
{
	struct mrc_nscc_params p = params();
	struct mrc_nscc s;
	int i;

	(void)state;
	nscc_init(&s, &p, 0, 0);
	s.cwnd_bytes = 50000;
	for (i = 0; i < 20; i++)
		nscc_on_send(&s, 1000);
	for (i = 1; i <= 20; i++)
		assert_int_equal(ack(&s, &p, i * US, 1000, 0, 1),
				 MRC_NSCC_NONE);
	assert_int_equal(s.inflight_bytes, 0);
	assert_int_equal(s.received_bytes, 20000);
	assert_int_equal(s.achieved_bytes, 20000);
	assert_int_equal(s.bytes_ignored, 20000);
	assert_int_equal(s.cwnd_bytes, 50000);
	assert_int_equal(s.last_adjust_ns, 0);
	assert_int_equal(s.qa_endtime_ns, 0);
	assert_int_equal(s.avg_delay_ns, 0);
	assert_int_equal(ack(&s, &p, 21 * US, 1000, 25 * US, 0), MRC_NSCC_FAIR);
	assert_int_equal(s.cwnd_bytes, 50110);
	assert_int_equal(s.inflight_bytes, 0); /* never below 0 */
}

/*
 * avg += (delay - avg) x min(dt, base) / base: 20 us after a base RTT of
 * silence; then 0 after 2.5 us: 20 - 20/4 = 15; again at the same time:
 * no weight; 5 us after 2.5 us more: 15 - 10/4 = 12.5; a trim counts as
 * one base RTT (10 us) of delay; a clock read earlier changes nothing.
 */
static void avg_delay_over_one_base_rtt(void **state)
{
	struct mrc_nscc_params p = params();
	struct mrc_nscc s;

	(void)state;
	nscc_init(&s, &p, 0, 0);
	ack(&s, &p, 20 * US, 1000, 30 * US, 0);
	assert_int_equal(s.avg_delay_ns, 20000);
	ack(&s, &p, 22500, 1000, 10 * US, 0);
	assert_int_equal(s.avg_delay_ns, 15000);
	ack(&s, &p, 22500, 1000, 10 * US, 0);
	assert_int_equal(s.avg_delay_ns, 15000);
	ack(&s, &p, 25000, 1000, 15 * US, 0);
	assert_int_equal(s.avg_delay_ns, 12500);
	nscc_on_trim(&s, &p, 35 * US, 1000);
	assert_int_equal(s.avg_delay_ns, 10000);
	ack(&s, &p, 30 * US, 1000, 40 * US, 0);
	assert_int_equal(s.avg_delay_ns, 10000);
	assert_int_equal(s.last_delay_ns, 35 * US);
}

/* A timeout or inferred loss: one packet off, floor one MTU, no QA. */
static void loss_cuts_one_packet(void **state)
{
	struct mrc_nscc_params p = params();
	struct mrc_nscc s;

	(void)state;
	nscc_init(&s, &p, 0, 0);
	nscc_on_send(&s, 1000);
	assert_int_equal(nscc_on_loss(&s, &p, 1000), MRC_NSCC_CUT);
	assert_int_equal(s.cwnd_bytes, 99000);
	assert_int_equal(s.inflight_bytes, 1000); /* resent, same PSN */
	assert_int_equal(s.bytes_ignored, 1000);
	assert_int_equal(s.trigger_qa, 0);
	assert_int_equal(s.qa_endtime_ns, 0);
	s.cwnd_bytes = 3000;
	nscc_on_loss(&s, &p, 4000);
	assert_int_equal(s.cwnd_bytes, 1000);
	nscc_on_loss(&s, &p, 1000);
	assert_int_equal(s.cwnd_bytes, 1000);
}

/*
 * A QP whose packets are smaller than the profile's mtu_bytes stops its
 * cuts at one of its own packets, not at the profile's; a QP with larger
 * packets (or none given) at the profile's. MD and a lower base RTT keep
 * the same floor.
 */
static void floor_is_one_of_the_qps_packets(void **state)
{
	struct mrc_nscc_params p = params();
	struct mrc_nscc s;

	(void)state;
	nscc_init(&s, &p, 0, 400);
	assert_int_equal(s.min_wnd_bytes, 400);
	s.cwnd_bytes = 1200;
	nscc_on_loss(&s, &p, 400);
	assert_int_equal(s.cwnd_bytes, 800);
	nscc_on_loss(&s, &p, 400);
	nscc_on_loss(&s, &p, 400);
	assert_int_equal(s.cwnd_bytes, 400);
	nscc_on_trim(&s, &p, 5 * US, 400);
	assert_int_equal(s.cwnd_bytes, 400);
	/* A base RTT 1000 times smaller: max_wnd would be 100 B. */
	nscc_update_base_rtt(&s, &p, 10);
	assert_int_equal(s.max_wnd_bytes, 400);
	assert_int_equal(s.cwnd_bytes, 400);

	nscc_init(&s, &p, 0, 4000);
	assert_int_equal(s.min_wnd_bytes, 1000);
	nscc_init(&s, &p, 0, 0);
	assert_int_equal(s.min_wnd_bytes, 1000);
}

/*
 * inflight is the bytes of distinct PSNs not yet acknowledged: a trim or
 * a loss leaves it (the resend is not counted again), each first ACK or
 * SACK takes its bytes off once, and it never wraps.
 */
static void inflight_counts_distinct_psns(void **state)
{
	struct mrc_nscc_params p = params();
	struct mrc_nscc s;
	int i;

	(void)state;
	nscc_init(&s, &p, 0, 0);
	for (i = 0; i < 10; i++)
		nscc_on_send(&s, 1000);
	assert_int_equal(s.inflight_bytes, 10000);
	nscc_on_trim(&s, &p, 1 * US, 1000);
	nscc_on_loss(&s, &p, 1000);
	assert_int_equal(s.inflight_bytes, 10000);
	ack(&s, &p, 2 * US, 3000, 12 * US, 0); /* a SACK of three PSNs */
	assert_int_equal(s.inflight_bytes, 7000);
	ack(&s, &p, 3 * US, 1000, 0, 0); /* the resent one: no sample */
	assert_int_equal(s.inflight_bytes, 6000);
	ack(&s, &p, 4 * US, 6000, 12 * US, 0);
	assert_int_equal(s.inflight_bytes, 0);
	ack(&s, &p, 5 * US, 1000, 12 * US, 0);
	assert_int_equal(s.inflight_bytes, 0);
	/* Given up without an ACK (WQE failed, QP flushed). */
	nscc_on_send(&s, 2000);
	nscc_on_forget(&s, 2000);
	assert_int_equal(s.inflight_bytes, 0);
	nscc_on_forget(&s, 5000);
	assert_int_equal(s.inflight_bytes, 0);
	s.inflight_bytes = 0xffffff00u;
	nscc_on_send(&s, 0x1000);
	assert_int_equal(s.inflight_bytes, 0xffffffffu);
}

/*
 * The window gates new data; with nothing in flight anything may go,
 * even a packet larger than the window, so no QP ever stalls.
 */
static void can_send_never_deadlocks(void **state)
{
	struct mrc_nscc_params p = params();
	struct mrc_nscc s;
	int i, n = 0;

	(void)state;
	nscc_init(&s, &p, 0, 0);
	while (nscc_can_send(&s, &p, 1000) && n < 1000) {
		nscc_on_send(&s, 1000);
		n++;
	}
	assert_int_equal(n, 100);
	assert_true(nscc_can_send(&s, &p, 0));
	/* Every packet lost: the window falls to one MTU. */
	for (i = 0; i < 100; i++)
		nscc_on_loss(&s, &p, 1000);
	assert_int_equal(s.cwnd_bytes, 1000);
	assert_false(nscc_can_send(&s, &p, 1000));
	/* The resends are acknowledged (no samples). */
	for (i = 0; i < 99; i++)
		ack(&s, &p, i * US, 1000, 0, 0);
	assert_false(nscc_can_send(&s, &p, 1));
	ack(&s, &p, 100 * US, 1000, 0, 0);
	assert_int_equal(s.inflight_bytes, 0);
	assert_true(nscc_can_send(&s, &p, 1000));
	assert_true(nscc_can_send(&s, &p, 4096));
	nscc_on_send(&s, 4096);
	assert_false(nscc_can_send(&s, &p, 1));
	ack(&s, &p, 101 * US, 4096, 0, 0);
	assert_true(nscc_can_send(&s, &p, 4096));
}

#define assert_near(x, y, eps) assert_true(fabs((double)(x) - (y)) <= (eps))

/*
 * UET's reference, 100 Gbit/s x 12 us, MTU 4096, trimming: BDP 150000
 * bytes, scaling_a 1, target 9 us; fi 5 MTU = 20480, eta 0.15 MTU =
 * 614.4, fi_scale 0.25, MaxWnd 1.5 BDP = 225000, 8 MTU, one base RTT,
 * no quick adapt by delay. alpha x target = 4 x 1 x 0.75 x 4096 = 12288.
 * Without trimming: target 12 us, quick adapt above 48 us.
 */
static void params_defaults_100g_12us(void **state)
{
	struct mrc_ctl_cc_nscc_cfg c;
	struct mrc_nscc_params p;
	char why[128] = "";

	(void)state;
	nscc_cfg_defaults(12500000000ull, 12000, 4096, 1, &c);
	assert_int_equal(c.disable_qa, 0);
	assert_int_equal(c.adjust_bytes_threshold, 32768);
	assert_int_equal(c.adjust_period_threshold, 12000);
	assert_int_equal(c.base_rtt, 12000);
	assert_near(c.eta, 614.4, 1e-3);
	assert_near(c.fi, 20480, 1e-3);
	assert_near(c.fi_scale, 0.25, 1e-7);
	assert_near(c.gamma, 0.8, 1e-7);
	assert_near(c.max_md_jump, 0.5, 1e-7);
	assert_int_equal(c.max_cwnd, 225000);
	assert_int_equal(c.qa_gate, 3);
	assert_int_equal(c.qa_threshold, UINT32_MAX);
	assert_int_equal(c.target_delay, 9000);
	assert_int_equal(nscc_params_from_cfg(&c, 4096, &p, why, sizeof(why)),
			 0);
	assert_string_equal(why, "");
	assert_int_equal(p.mtu_bytes, 4096);
	assert_int_equal(p.max_cwnd_bytes, 225000);
	assert_int_equal(p.eta_q8_bytes, 157286); /* 614.4 x 256 */
	assert_int_equal(p.fi_q8_bytes, 20480 * 256);
	assert_int_equal(p.fi_scale_q16, 16384);
	assert_int_equal(p.gamma_q16, 52429); /* 0.8 x 65536 = 52428.8 */
	assert_int_equal(p.max_md_jump_q16, 32768);
	assert_int_equal(p.alpha_target_q8_bytes, 12288 * 256);
	assert_int_equal(p.qa_threshold_ns, MRC_NSCC_QA_NEVER);
	assert_int_equal(p.near_zero_ns, 1000);

	nscc_cfg_defaults(12500000000ull, 12000, 4096, 0, &c);
	assert_int_equal(c.target_delay, 12000);
	assert_int_equal(c.qa_threshold, 48000);
	assert_int_equal(nscc_params_from_cfg(&c, 4096, &p, NULL, 0), 0);
	assert_int_equal(p.qa_threshold_ns, 48000);
	assert_int_equal(p.alpha_target_q8_bytes, 16384 * 256);

	/* 400 Gbit/s: scaling_a 4. */
	nscc_cfg_defaults(50000000000ull, 12000, 4096, 1, &c);
	assert_int_equal(c.max_cwnd, 900000);
	assert_near(c.fi, 81920, 1e-2);
	assert_near(c.eta, 2457.6, 1e-3);
	assert_near(c.fi_scale, 1.0, 1e-7);
}

/*
 * The testbed: 4 planes of 1 Gbit/s that a QP sprays over, 500e6 bytes/s
 * in all, base RTT 50 us: BDP 25000 bytes, scaling_a 1/6. MTU 1500:
 * fi 1250, eta 37.5, fi_scale 1/24, MaxWnd 37500, 12000 bytes, target
 * 37.5 us; alpha x target = 4 x 1/6 x 37.5/12 x 1500 = 3125. MTU 4096:
 * fi 3413.3, eta 102.4, 32768 bytes.
 */
static void params_defaults_testbed(void **state)
{
	struct mrc_ctl_cc_nscc_cfg c;
	struct mrc_nscc_params p;

	(void)state;
	nscc_cfg_defaults(500000000ull, 50000, 1500, 1, &c);
	assert_int_equal(c.max_cwnd, 37500);
	assert_int_equal(c.adjust_bytes_threshold, 12000);
	assert_int_equal(c.adjust_period_threshold, 50000);
	assert_int_equal(c.target_delay, 37500);
	assert_near(c.fi, 1250, 1e-3);
	assert_near(c.eta, 37.5, 1e-4);
	assert_near(c.fi_scale, 1.0 / 24, 1e-7);
	assert_int_equal(nscc_params_from_cfg(&c, 1500, &p, NULL, 0), 0);
	assert_int_equal(p.fi_q8_bytes, 1250 * 256);
	assert_int_equal(p.eta_q8_bytes, 9600); /* 37.5 x 256 */
	assert_int_equal(p.fi_scale_q16, 2731); /* 65536 / 24 = 2730.7 */
	assert_int_equal(p.alpha_target_q8_bytes, 3125 * 256);

	nscc_cfg_defaults(500000000ull, 50000, 4096, 1, &c);
	assert_int_equal(c.max_cwnd, 37500);
	assert_int_equal(c.adjust_bytes_threshold, 32768);
	assert_near(c.fi, 3413.333, 1e-3);
	assert_near(c.eta, 102.4, 1e-4);
	assert_int_equal(nscc_params_from_cfg(&c, 4096, &p, NULL, 0), 0);

	/* Out-of-range inputs are clamped: the result still converts. */
	nscc_cfg_defaults(0, 0, 0, 0, &c);
	assert_int_equal(c.max_cwnd, MRC_NSCC_MTU_MIN);
	assert_int_equal(c.base_rtt, 1);
	assert_int_equal(
		nscc_params_from_cfg(&c, MRC_NSCC_MTU_MIN, &p, NULL, 0), 0);
	nscc_cfg_defaults(~0ull, ~0u, ~0u, 0, &c);
	assert_int_equal(c.max_cwnd, MRC_NSCC_CWND_MAX);
	assert_int_equal(c.qa_threshold, UINT32_MAX - 1);
	assert_int_equal(
		nscc_params_from_cfg(&c, MRC_NSCC_MTU_MAX, &p, NULL, 0), 0);
}

static struct mrc_ctl_cc_nscc_cfg good_cfg(void)
{
	return (struct mrc_ctl_cc_nscc_cfg){
		.disable_qa = 7,
		.adjust_bytes_threshold = 12000,
		.adjust_period_threshold = 50000,
		.base_rtt = 50000,
		.eta = 9.375f,
		.fi = 312.5f,
		.fi_scale = 0.25f / 24,
		.gamma = 0.75f,
		.max_md_jump = 0.5f,
		.max_cwnd = 9375,
		.qa_gate = 4,
		.qa_threshold = 200000,
		.target_delay = 50000,
	};
}

/*
 * mrcctl's "bdp": UET's reference BDP gives UET's reference increases
 * and MaxWnd; 25 KB a sixth of them; the other fields are left.
 */
static void size_by_bdp(void **state)
{
	struct mrc_ctl_cc_nscc_cfg c = { .base_rtt = 7, .target_delay = 9 };

	(void)state;
	mrc_cc_nscc_size(&c, 150000, 4096);
	assert_float_equal(c.eta, 614.4, 0.01);
	assert_float_equal(c.fi, 20480, 0.01);
	assert_float_equal(c.fi_scale, 0.25, 1e-6);
	assert_int_equal(c.max_cwnd, 225000);
	mrc_cc_nscc_size(&c, 25000, 4096);
	assert_float_equal(c.eta, 102.4, 0.01);
	assert_float_equal(c.fi, 3413.33, 0.01);
	assert_float_equal(c.fi_scale, 0.041667, 1e-6);
	assert_int_equal(c.max_cwnd, 37500);
	assert_int_equal(c.base_rtt, 7);
	assert_int_equal(c.target_delay, 9);
	/* MaxWnd is at least one packet. */
	mrc_cc_nscc_size(&c, 100, 4096);
	assert_int_equal(c.max_cwnd, 4096);
}

/*
 * Each field in fixed point, rounded to nearest. fi_scale 1/96 is
 * 682.67 in Q16; alpha x target from max_cwnd: scaling_a = 9375 /
 * 225000 = 1/24, scaling_b = 50 / 12, 4 x 1/24 x 50/12 x 1500 = 1041.67
 * bytes, 266666.7 in Q8.
 */
static void params_convert_fixed_point(void **state)
{
	struct mrc_ctl_cc_nscc_cfg c = good_cfg();
	struct mrc_nscc_params p;

	(void)state;
	assert_int_equal(nscc_params_from_cfg(&c, 1500, &p, NULL, 0), 0);
	assert_int_equal(p.mtu_bytes, 1500);
	assert_int_equal(p.max_cwnd_bytes, 9375);
	assert_int_equal(p.base_rtt_ns, 50000);
	assert_int_equal(p.target_delay_ns, 50000);
	assert_int_equal(p.adjust_period_ns, 50000);
	assert_int_equal(p.adjust_bytes, 12000);
	assert_int_equal(p.eta_q8_bytes, 2400);
	assert_int_equal(p.fi_q8_bytes, 80000);
	assert_int_equal(p.fi_scale_q16, 683);
	assert_int_equal(p.gamma_q16, 49152);
	assert_int_equal(p.max_md_jump_q16, 32768);
	assert_int_equal(p.alpha_target_q8_bytes, 266667);
	assert_int_equal(p.qa_threshold_ns, 200000);
	assert_int_equal(p.disable_qa, 1);
	assert_int_equal(p.qa_gate, 4);
	assert_int_equal(p.near_zero_ns, MRC_NSCC_NEAR_ZERO_NS);
	/* 2^32 - 1 ns of delay: never. */
	c.qa_threshold = UINT32_MAX;
	assert_int_equal(nscc_params_from_cfg(&c, 1500, &p, NULL, 0), 0);
	assert_int_equal(p.qa_threshold_ns, MRC_NSCC_QA_NEVER);
	/* The limits themselves are in range. */
	c = good_cfg();
	c.eta = 16777215.0f;
	c.fi = 16777215.0f;
	c.fi_scale = 256;
	c.gamma = 1;
	c.max_md_jump = 0;
	c.max_cwnd = MRC_NSCC_CWND_MAX;
	c.adjust_bytes_threshold = 0;
	c.qa_gate = 31;
	assert_int_equal(nscc_params_from_cfg(&c, 1500, &p, NULL, 0), 0);
	assert_int_equal(p.eta_q8_bytes, 4294967040u);
	assert_int_equal(p.fi_scale_q16, MRC_NSCC_FI_SCALE_MAX_Q16);
	assert_int_equal(p.gamma_q16, MRC_NSCC_Q16);
	/* alpha x target = 4 x 2^28 / 225000 x 50/12 x 1500 = 2.98e7 bytes:
	 * capped below 2^24. */
	assert_int_equal(p.alpha_target_q8_bytes, MRC_NSCC_INC_MAX_Q8);
}

/* cfg is refused with exactly want, and *out left alone. */
static void reject(const struct mrc_ctl_cc_nscc_cfg *c, __u32 mtu,
		   const char *want)
{
	struct mrc_nscc_params p, before;
	char why[160] = "";

	memset(&p, 0x5a, sizeof(p));
	before = p;
	assert_int_equal(nscc_params_from_cfg(c, mtu, &p, why, sizeof(why)),
			 -EINVAL);
	assert_string_equal(why, want);
	assert_memory_equal(&p, &before, sizeof(p));
}

/* good_cfg() with one field spoilt. */
#define REJECT(field, v, want)                              \
	do {                                                \
		struct mrc_ctl_cc_nscc_cfg c_ = good_cfg(); \
		c_.field = (v);                             \
		reject(&c_, 1500, want);                    \
	} while (0)

static void params_reject_bad_values(void **state)
{
	struct mrc_ctl_cc_nscc_cfg c = good_cfg();
	struct mrc_nscc_params p;
	char why[16];

	(void)state;
	REJECT(base_rtt, 0, "base_rtt must be in [1, 1073741824] ns, got 0");
	REJECT(base_rtt, MRC_NSCC_TIME_MAX_NS + 1,
	       "base_rtt must be in [1, 1073741824] ns, got 1073741825");
	REJECT(target_delay, 0,
	       "target_delay must be in [1, 1073741824] ns, got 0");
	REJECT(adjust_period_threshold, 0,
	       "adjust_period_threshold must be in [1, 1073741824] ns, got 0");
	REJECT(max_cwnd, 1499,
	       "max_cwnd must be in [1500, 268435456] bytes, got 1499");
	REJECT(max_cwnd, MRC_NSCC_CWND_MAX + 1,
	       "max_cwnd must be in [1500, 268435456] bytes, got 268435457");
	REJECT(adjust_bytes_threshold, MRC_NSCC_CWND_MAX + 1,
	       "adjust_bytes_threshold must be in [0, 268435456] bytes, "
	       "got 268435457");
	REJECT(qa_threshold, 0,
	       "qa_threshold must be in [1, 4294967295] ns, got 0");
	REJECT(qa_gate, 32, "qa_gate must be in [0, 31] bits, got 32");
	REJECT(eta, NAN, "eta must be in [0, 16777215], got nan");
	REJECT(eta, -1, "eta must be in [0, 16777215], got -1");
	REJECT(fi, INFINITY, "fi must be in [0, 16777215], got inf");
	REJECT(fi, 16777216.0f, "fi must be in [0, 16777215], got 16777216");
	REJECT(fi_scale, 300, "fi_scale must be in [0, 256], got 300");
	REJECT(gamma, 1.5f, "gamma must be in [0, 1], got 1.5");
	REJECT(gamma, -NAN, "gamma must be in [0, 1], got -nan");
	REJECT(max_md_jump, -0.25f, "max_md_jump must be in [0, 1], got -0.25");
	reject(&c, 0, "mtu_bytes must be in [64, 65536] bytes, got 0");
	reject(&c, 65537, "mtu_bytes must be in [64, 65536] bytes, got 65537");
	/* No buffer, or a short one, which still ends in a NUL. */
	assert_int_equal(nscc_params_from_cfg(&c, 0, &p, NULL, 0), -EINVAL);
	assert_int_equal(nscc_params_from_cfg(&c, 0, &p, why, 9), -EINVAL);
	assert_string_equal(why, "mtu_byte");
}

/*
 * Every parameter at its limit, every input at its largest: the
 * accumulator grows by exactly fi x acked with no wrap (checked in 128
 * bits), the window stays within [MTU, MaxWnd], and the same holds over
 * a long mixed run at times near 2^63.
 */
static void no_overflow_at_the_limits(void **state)
{
	struct mrc_ctl_cc_nscc_cfg c = {
		.adjust_bytes_threshold = MRC_NSCC_CWND_MAX,
		.adjust_period_threshold = MRC_NSCC_TIME_MAX_NS,
		.base_rtt = MRC_NSCC_TIME_MAX_NS,
		.eta = 16777215.0f,
		.fi = 16777215.0f,
		.fi_scale = 256,
		.gamma = 1,
		.max_md_jump = 0,
		.max_cwnd = MRC_NSCC_CWND_MAX,
		.qa_gate = 0,
		.qa_threshold = 1,
		.target_delay = MRC_NSCC_TIME_MAX_NS,
	};
	const __u64 t0 = 1ull << 63, big_rtt = ~0ull;
	unsigned __int128 inc;
	struct mrc_nscc_params p;
	struct mrc_nscc s;
	__u64 x = 12345, t = t0, before;
	int i;

	(void)state;
	assert_int_equal(
		nscc_params_from_cfg(&c, MRC_NSCC_MTU_MAX, &p, NULL, 0), 0);
	p.disable_qa = 1;
	nscc_init(&s, &p, t0, 0);
	s.cwnd_bytes = MRC_NSCC_MTU_MAX;
	/* Fair increase with the largest ACK, capped at MaxWnd bytes. */
	assert_int_equal(ack(&s, &p, t0 + 1, ~0u, big_rtt, 0), MRC_NSCC_FAIR);
	inc = (unsigned __int128)p.fi_q8_bytes * MRC_NSCC_CWND_MAX;
	assert_true(s.inc_bytes2_q8 == inc);
	assert_int_equal(s.received_bytes, MRC_NSCC_CWND_MAX);
	/* The second passes adjust_bytes: 2 x 2^32 x 2^28 / 2^16, capped. */
	ack(&s, &p, t0 + 2, ~0u, big_rtt, 0);
	assert_int_equal(s.cwnd_bytes, MRC_NSCC_CWND_MAX);
	assert_int_equal(s.inc_bytes2_q8, 0);
	/* Zero delay: proportional at (2^32 - 1) x 2^28, then fast. */
	assert_int_equal(ack(&s, &p, t0 + 3, ~0u, MRC_NSCC_TIME_MAX_NS, 0),
			 MRC_NSCC_PROP);
	inc = (unsigned __int128)MRC_NSCC_INC_MAX_Q8 * MRC_NSCC_CWND_MAX;
	assert_true(s.inc_bytes2_q8 == inc);
	assert_int_equal(ack(&s, &p, t0 + 4, ~0u, MRC_NSCC_TIME_MAX_NS, 0),
			 MRC_NSCC_FAST);
	s.cwnd_bytes = MRC_NSCC_MTU_MAX;
	assert_int_equal(ack(&s, &p, t0 + 5, ~0u, MRC_NSCC_TIME_MAX_NS, 0),
			 MRC_NSCC_FAST);
	assert_int_equal(s.cwnd_bytes, MRC_NSCC_CWND_MAX);
	/*
	 * MD a base RTT later at the largest average: keep = 65536 -
	 * 65536 x (2^32 - 1 - 2^30) / (2^32 - 1) = 16385, cwnd 16385 x
	 * 2^12 = 67112960; the period's eta (16777215) follows.
	 */
	assert_int_equal(ack(&s, &p, t0 + 4ull * MRC_NSCC_TIME_MAX_NS, ~0u,
			     big_rtt, 1),
			 MRC_NSCC_MD);
	assert_int_equal(s.avg_delay_ns, 0xffffffffu);
	assert_int_equal(s.cwnd_bytes, 67112960 + 16777215);
	/* A base RTT 1 ns below the configured one. */
	ack(&s, &p, t0 + 5ull * MRC_NSCC_TIME_MAX_NS, ~0u,
	    MRC_NSCC_TIME_MAX_NS - 1, 0);
	assert_int_equal(s.max_wnd_bytes, MRC_NSCC_CWND_MAX - 1);

	/* A long run of everything, quick adapt on. */
	p.disable_qa = 0;
	nscc_init(&s, &p, t0, 0);
	for (i = 0; i < 200000; i++) {
		__u64 r;

		x = x * 6364136223846793005ull + 1442695040888963407ull;
		r = x >> 33;
		t += r & 1 ? r % (2ull * MRC_NSCC_TIME_MAX_NS) : r % 1000;
		before = s.inc_bytes2_q8;
		switch (r % 7) {
		case 0:
		case 1:
		case 2:
			/* RTTs at or above the base: MaxWnd stays large. */
			ack(&s, &p, t, r & 4 ? ~0u : (__u32)r,
			    r & 8 ? 0 : r << 8 | MRC_NSCC_TIME_MAX_NS, r & 16);
			break;
		case 3:
			ack(&s, &p, t, ~0u, MRC_NSCC_TIME_MAX_NS, 0);
			break;
		case 4:
			nscc_on_trim(&s, &p, t, ~0u);
			break;
		case 5:
			nscc_on_loss(&s, &p, (__u32)r);
			break;
		default:
			nscc_on_send(&s, ~0u);
			break;
		}
		assert_true(s.cwnd_bytes >= p.mtu_bytes);
		assert_true(s.cwnd_bytes <= s.max_wnd_bytes);
		assert_true(s.max_wnd_bytes <= p.max_cwnd_bytes);
		assert_true(s.base_rtt_ns <= p.base_rtt_ns);
		/* Either reset, or grown without wrapping. */
		assert_true((s.inc_bytes2_q8 == 0 && s.received_bytes == 0) ||
			    s.inc_bytes2_q8 >= before);
		assert_true(s.inc_bytes2_q8 < 1ull << 62);
	}
}

/* mrc_cc_delay's buckets: 10 us wide from 0, the last holds the rest. */
static void delay_buckets(void **state)
{
	(void)state;
	assert_int_equal(mrc_cc_delay_bucket(0), 0);
	assert_int_equal(mrc_cc_delay_bucket(9999), 0);
	assert_int_equal(mrc_cc_delay_bucket(10000), 1);
	assert_int_equal(mrc_cc_delay_bucket(399999), 39);
	assert_int_equal(mrc_cc_delay_bucket(2549999), 254);
	assert_int_equal(mrc_cc_delay_bucket(2550000), 255);
	assert_int_equal(mrc_cc_delay_bucket(~0ull), MRC_CC_DELAY_BUCKETS - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(init_starts_at_max_window),
		cmocka_unit_test(fair_increase_above_target),
		cmocka_unit_test(proportional_increase_below_target),
		cmocka_unit_test(proportional_increase_stops_at_max_cwnd),
		cmocka_unit_test(fast_increase_after_a_window_at_zero_delay),
		cmocka_unit_test(md_on_ecn_at_high_delay),
		cmocka_unit_test(md_needs_average_above_target),
		cmocka_unit_test(ecn_at_low_delay_changes_nothing),
		cmocka_unit_test(trim_burst_quick_adapts),
		cmocka_unit_test(trim_without_quick_adapt),
		cmocka_unit_test(qa_gate_limits_quick_adapt),
		cmocka_unit_test(quick_adapt_on_delay_above_threshold),
		cmocka_unit_test(adjust_by_bytes_and_by_period),
		cmocka_unit_test(base_rtt_learned_downwards_only),
		cmocka_unit_test(no_rtt_sample_is_bookkeeping_only),
		cmocka_unit_test(avg_delay_over_one_base_rtt),
		cmocka_unit_test(loss_cuts_one_packet),
		cmocka_unit_test(floor_is_one_of_the_qps_packets),
		cmocka_unit_test(inflight_counts_distinct_psns),
		cmocka_unit_test(can_send_never_deadlocks),
		cmocka_unit_test(params_defaults_100g_12us),
		cmocka_unit_test(params_defaults_testbed),
		cmocka_unit_test(size_by_bdp),
		cmocka_unit_test(params_convert_fixed_point),
		cmocka_unit_test(params_reject_bad_values),
		cmocka_unit_test(no_overflow_at_the_limits),
		cmocka_unit_test(delay_buckets),
	};

	return cmocka_run_group_tests_name("nscc", tests, NULL, NULL);
}
