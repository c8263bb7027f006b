// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the congestion point's decision (tests/fabric/queue.h),
 * the code the fabric's tc egress program runs, on a clock of the test's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "queue.h"

#define MS 1000000ull

/* 8 Mbit/s: 1000 bytes per millisecond, so the sums are easy. */
static struct fab_queue_cfg cfg(void)
{
	return (struct fab_queue_cfg){
		.rate_bytes_per_s = 1000000,
		.buffer_bytes = 10000,
		.full = FAB_Q_FULL_DROP,
	};
}

static void drains_at_its_rate(void **state)
{
	struct fab_queue_cfg c = cfg();
	struct fab_queue_state s = { .last_ns = 1 * MS };
	int i;

	(void)state;
	/* Ten 1000-byte packets at once fill the buffer exactly. */
	for (i = 0; i < 10; i++)
		assert_int_equal(fab_q_decide(&c, &s, 1 * MS, -1, 1000, 0, 1,
					      0),
				 FAB_Q_PASS);
	assert_int_equal(s.backlog_bytes, 10000);
	assert_int_equal(s.hwm_bytes, 10000);
	/* The eleventh finds no room and is dropped, changing nothing. */
	assert_int_equal(fab_q_decide(&c, &s, 1 * MS, -1, 1000, 0, 1, 0),
			 FAB_Q_DROP);
	assert_int_equal(s.backlog_bytes, 10000);
	/* 2.5 ms later 2500 bytes have left. */
	fab_q_drain(&c, &s, 3 * MS + MS / 2);
	assert_int_equal(s.backlog_bytes, 7500);
	/* A clock read earlier on another CPU drains nothing. */
	fab_q_drain(&c, &s, 2 * MS);
	assert_int_equal(s.backlog_bytes, 7500);
	/* Long idle: empty, and never below. */
	fab_q_drain(&c, &s, 100000 * MS);
	assert_int_equal(s.backlog_bytes, 0);
	assert_int_equal(s.hwm_bytes, 10000);
}

static void no_overflow_for_long_gaps(void **state)
{
	struct fab_queue_cfg c = cfg();
	struct fab_queue_state s = { .backlog_bytes = 5000 };

	(void)state;
	c.rate_bytes_per_s = FAB_Q_RATE_MAX;
	fab_q_drain(&c, &s, ~0ull);
	assert_int_equal(s.backlog_bytes, 0);
	/* One byte per second: 3 s drain 3 bytes, not 0 or 2^64 - 3. */
	c.rate_bytes_per_s = 1;
	s = (struct fab_queue_state){ .backlog_bytes = 5000, .last_ns = 1 };
	fab_q_drain(&c, &s, 3 * FAB_NSEC_PER_SEC + 1);
	assert_int_equal(s.backlog_bytes, 4997);
	/* The fastest rate, for just under a second: no overflow. */
	c.rate_bytes_per_s = FAB_Q_RATE_MAX;
	s = (struct fab_queue_state){ .backlog_bytes = ~0u, .last_ns = 1 };
	fab_q_drain(&c, &s, FAB_NSEC_PER_SEC);
	assert_int_equal(s.backlog_bytes, 0);
	s = (struct fab_queue_state){ .backlog_bytes = ~0u, .last_ns = 1 };
	fab_q_drain(&c, &s, 1 + 100 * 1000);
	assert_int_equal(s.backlog_bytes, ~0u - 1250000);
}

static void ecn_step(void **state)
{
	struct fab_queue_cfg c = cfg();
	struct fab_queue_state s = {};

	(void)state;
	c.ecn_min_bytes = c.ecn_max_bytes = 3000;
	c.ecn_max_prob = FAB_PROB_ALWAYS;
	/* Finding 0, 1000, 2000, 3000 bytes: not above the step. */
	for (int i = 0; i < 4; i++)
		assert_int_equal(fab_q_decide(&c, &s, 0, -1, 1000, 0, 1, 0),
				 FAB_Q_PASS);
	/* Finding 4000: marked whatever the random draw. */
	assert_int_equal(fab_q_decide(&c, &s, 0, -1, 1000, 0, 1, 0xffffffffu),
			 FAB_Q_MARK);
	/* Not-ECT packets are queued unmarked, and said so. */
	assert_int_equal(fab_q_decide(&c, &s, 0, -1, 1000, 0, 0, 0),
			 FAB_Q_NOT_ECT);
	assert_int_equal(s.backlog_bytes, 6000);
	/* Drained below the step again: no mark. */
	assert_int_equal(fab_q_decide(&c, &s, 4 * MS, -1, 1000, 0, 1, 0),
			 FAB_Q_PASS);
}

static void ecn_ramp(void **state)
{
	struct fab_queue_cfg c = cfg();
	struct fab_queue_state s;

	(void)state;
	c.buffer_bytes = 100000;
	c.ecn_min_bytes = 2000;
	c.ecn_max_bytes = 6000;
	c.ecn_max_prob = 0x80000000u; /* 50 % at the top of the ramp */
	/* Finding 4000 (half way): probability 25 %, 0x40000000. */
	s = (struct fab_queue_state){ .backlog_bytes = 4000 };
	assert_int_equal(fab_q_decide(&c, &s, 0, -1, 100, 0, 1, 0x3fffffffu),
			 FAB_Q_MARK);
	s = (struct fab_queue_state){ .backlog_bytes = 4000 };
	assert_int_equal(fab_q_decide(&c, &s, 0, -1, 100, 0, 1, 0x40000000u),
			 FAB_Q_PASS);
	/* At or above the top: always, not 50 %. */
	s = (struct fab_queue_state){ .backlog_bytes = 6000 };
	assert_int_equal(fab_q_decide(&c, &s, 0, -1, 100, 0, 1, 0xffffffffu),
			 FAB_Q_MARK);
	/* At the bottom: never. */
	s = (struct fab_queue_state){ .backlog_bytes = 2000 };
	assert_int_equal(fab_q_decide(&c, &s, 0, -1, 100, 0, 1, 0), FAB_Q_PASS);
}

static void trims_when_full(void **state)
{
	struct fab_queue_cfg c = cfg();
	struct fab_queue_state s = { .backlog_bytes = 9500 };

	(void)state;
	c.full = FAB_Q_FULL_TRIM;
	/* Fits: queued whole. */
	assert_int_equal(fab_q_decide(&c, &s, 0, -1, 500, 100, 1, 0),
			 FAB_Q_PASS);
	/* Full: trimmed, and its header still takes the wire. */
	assert_int_equal(fab_q_decide(&c, &s, 0, -1, 1500, 100, 1, 0),
			 FAB_Q_TRIM);
	assert_int_equal(s.backlog_bytes, 10100);
	assert_int_equal(s.hwm_bytes, 10100);
	/* Headers keep coming while the data waits: all trimmed. */
	assert_int_equal(fab_q_decide(&c, &s, 0, -1, 1500, 100, 1, 0),
			 FAB_Q_TRIM);
	/* What cannot be trimmed (an ACK, not UDP) is dropped. */
	assert_int_equal(fab_q_decide(&c, &s, 0, -1, 90, 0, 1, 0), FAB_Q_DROP);
	assert_int_equal(s.backlog_bytes, 10200);
	/* Trimming off: the same packet is dropped. */
	c.full = FAB_Q_FULL_DROP;
	assert_int_equal(fab_q_decide(&c, &s, 0, -1, 1500, 100, 1, 0),
			 FAB_Q_DROP);
	assert_int_equal(s.backlog_bytes, 10200);
}

/* The real queue's backlog, when given, replaces the model's. */
static void real_backlog_wins(void **state)
{
	struct fab_queue_cfg c = cfg();
	struct fab_queue_state s = { .backlog_bytes = 9500 };

	(void)state;
	/* The model says full; the qdisc holds 2000 bytes: queued. */
	assert_int_equal(fab_q_decide(&c, &s, 0, 2000, 1000, 0, 1, 0),
			 FAB_Q_PASS);
	assert_int_equal(s.backlog_bytes, 3000);
	/* The model says 3000; the qdisc, slower, holds 9500: dropped. */
	assert_int_equal(fab_q_decide(&c, &s, 0, 9500, 1000, 0, 1, 0),
			 FAB_Q_DROP);
	assert_int_equal(s.backlog_bytes, 9500);
	assert_int_equal(s.hwm_bytes, 3000);
	/* Without a reading, the model carries on from there. */
	assert_int_equal(fab_q_decide(&c, &s, 0, -1, 400, 0, 1, 0), FAB_Q_PASS);
	assert_int_equal(s.backlog_bytes, 9900);
}

/*
 * Each queued data packet counts in the histogram the wait it found (its
 * backlog at the rate); a dropped or trimmed one does not; a wait beyond
 * the last bucket counts in it.
 */
static void wait_histogram(void **state)
{
	struct fab_queue_cfg c = cfg();
	struct fab_queue_state s = {};
	__u64 sum = 0;
	int i;

	(void)state;
	c.full = FAB_Q_FULL_TRIM;
	c.rate_bytes_per_s = 10000000;
	/* At 10 MB/s, the k-th 1000-byte packet waits k x 100 us. */
	for (i = 0; i < 10; i++)
		assert_int_equal(fab_q_decide(&c, &s, 0, -1, 1000, 100, 1, 0),
				 FAB_Q_PASS);
	for (i = 0; i < 10; i++)
		assert_int_equal(s.wait_hist[i * 100000 / FAB_Q_WAIT_BUCKET_NS],
				 1);
	/* Full: trimmed, not counted. */
	assert_int_equal(fab_q_decide(&c, &s, 0, -1, 1000, 100, 1, 0),
			 FAB_Q_TRIM);
	for (i = 0; i < FAB_Q_WAIT_BUCKETS; i++)
		sum += s.wait_hist[i];
	assert_int_equal(sum, 10);
	/* 500 bytes wait 50 us: bucket 5 (10 us each). */
	s = (struct fab_queue_state){};
	fab_q_decide(&c, &s, 0, 500, 1000, 0, 1, 0);
	assert_int_equal(s.wait_hist[5], 1);
	/* 9000 bytes at 1 MB/s wait 9 ms, past the last bucket's 2.55 ms. */
	c.rate_bytes_per_s = 1000000;
	fab_q_decide(&c, &s, 0, 9000, 1000, 0, 1, 0);
	assert_int_equal(s.wait_hist[FAB_Q_WAIT_BUCKETS - 1], 1);
	/* No rate, no wait to speak of: bucket 0. */
	assert_int_equal(fab_q_wait_bucket(&(struct fab_queue_cfg){}, 5000), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(drains_at_its_rate),
		cmocka_unit_test(no_overflow_for_long_gaps),
		cmocka_unit_test(ecn_step),
		cmocka_unit_test(ecn_ramp),
		cmocka_unit_test(trims_when_full),
		cmocka_unit_test(real_backlog_wins),
		cmocka_unit_test(wait_histogram),
	};

	return cmocka_run_group_tests_name("fab_queue", tests, NULL, NULL);
}
