// SPDX-License-Identifier: GPL-2.0
/*
 * Gray-failure detection (daemon/gray.c) with worked vectors: which EVs a
 * QP's RTTs and loss rates single out, and when there is too little to
 * judge.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "gray.h"

/* The EVs gray_find / lossy_find single out, as word 0 of the mask, with
 * the count they return checked against it and the other words empty. */
static uint64_t gray_w0(const struct gray_ev *ev, unsigned int nev,
			uint32_t *med)
{
	struct mrc_evmask m;
	unsigned int n = gray_find(ev, nev, GRAY_FACTOR, med, &m);

	assert_int_equal(n, evm_count(&m));
	assert_true(!m.w[1] && !m.w[2] && !m.w[3]);
	return m.w[0];
}

static uint64_t lossy_w0(const struct gray_ev *ev, unsigned int nev,
			 uint32_t *med)
{
	struct mrc_evmask m;
	unsigned int n = lossy_find(ev, nev, med, &m);

	assert_int_equal(n, evm_count(&m));
	assert_true(!m.w[1] && !m.w[2] && !m.w[3]);
	return m.w[0];
}

/* 16 EVs in use, RTT 50..65 us, 10 samples each. */
static void healthy(struct gray_ev *ev)
{
	unsigned int i;

	for (i = 0; i < 16; i++)
		ev[i] = (struct gray_ev){ .srtt_ns = 50000 + 1000 * i,
					  .samples = 10,
					  .in_use = 1 };
}

static void none_among_peers(void **state)
{
	struct gray_ev ev[16];
	uint32_t med;

	(void)state;
	healthy(ev);
	assert_int_equal(gray_w0(ev, 16, &med), 0);
	assert_int_equal(med, 58000); /* rtt[8] of 50..65 us */
}

static void one_slow_path(void **state)
{
	struct gray_ev ev[16];
	uint32_t med;

	(void)state;
	healthy(ev);
	ev[5].srtt_ns = 1500000; /* 26x the median, 1.4 ms above */
	ev[9].srtt_ns = 400000; /* 6.9x: congested, not gray */
	assert_int_equal(gray_w0(ev, 16, &med), 1ull << 5);
}

static void factor_and_floor_both_needed(void **state)
{
	struct gray_ev ev[16];
	uint32_t med;
	unsigned int i;

	(void)state;
	/* Tiny RTTs: 20x the median but only 190 us above it. */
	for (i = 0; i < 16; i++)
		ev[i] = (struct gray_ev){ .srtt_ns = 10000,
					  .samples = 10,
					  .in_use = 1 };
	ev[3].srtt_ns = 200000;
	assert_int_equal(gray_w0(ev, 16, &med), 0);
	/* 1.09 ms above, and over 8x: gray. */
	ev[3].srtt_ns = 1100000;
	assert_int_equal(gray_w0(ev, 16, &med), 1ull << 3);
}

static void too_little_to_judge(void **state)
{
	struct gray_ev ev[16];
	uint32_t med;
	unsigned int i;

	(void)state;
	healthy(ev);
	ev[5].srtt_ns = 5000000;
	/* The slow one itself has too few samples: not judged. */
	ev[5].samples = GRAY_MIN_SAMPLES - 1;
	assert_int_equal(gray_w0(ev, 16, &med), 0);
	/* Fewer than GRAY_MIN_PEERS EVs with samples: no median at all. */
	ev[5].samples = 10;
	for (i = 0; i < 16; i++)
		if (i != 5 && i > GRAY_MIN_PEERS - 3)
			ev[i].samples = 0;
	assert_int_equal(gray_w0(ev, 16, &med), 0);
	assert_int_equal(med, 0);
}

static void only_evs_in_use(void **state)
{
	struct gray_ev ev[64] = {};
	uint32_t med;
	unsigned int i;

	(void)state;
	healthy(ev);
	/* 48 EVs out of use with huge RTTs: neither in the median nor
	 * blamed again. */
	for (i = 16; i < 64; i++)
		ev[i] = (struct gray_ev){ .srtt_ns = 5000000,
					  .samples = 10,
					  .in_use = 0 };
	assert_int_equal(gray_w0(ev, 64, &med), 0);
	assert_int_equal(med, 58000);
	ev[63].in_use = 1;
	assert_int_equal(gray_w0(ev, 64, &med), 1ull << 63);
}

/* 16 EVs in use, 600 packets each since the last look, 1 % resent. */
static void sending(struct gray_ev *ev)
{
	unsigned int i;

	for (i = 0; i < 16; i++)
		ev[i] = (struct gray_ev){ .sent = 600, .lost = 6, .in_use = 1 };
}

/* A path that loses 30 % among paths that lose 1 %: lossy, alone. */
static void one_lossy_path(void **state)
{
	struct gray_ev ev[16];
	uint32_t med;

	(void)state;
	sending(ev);
	assert_int_equal(lossy_w0(ev, 16, &med), 0);
	assert_int_equal(med, 10);
	ev[5].lost = 180;
	assert_int_equal(lossy_w0(ev, 16, &med), 1u << 5);
	assert_int_equal(med, 10);
}

/* Reordering resends on every EV alike raise the median: none lossy. */
static void loss_everywhere_is_no_path(void **state)
{
	struct gray_ev ev[16];
	unsigned int i;
	uint32_t med;

	(void)state;
	sending(ev);
	for (i = 0; i < 16; i++)
		ev[i].lost = 60 + 2 * i; /* 10..15 % */
	assert_int_equal(lossy_w0(ev, 16, &med), 0);
	ev[3].lost = 240; /* 40 %: over 3 x the median, 13 % */
	assert_int_equal(lossy_w0(ev, 16, &med), 1u << 3);
}

/* Each minimum holds on its own: rate, factor, packets sent and lost. */
static void lossy_minimums(void **state)
{
	struct gray_ev ev[16];
	uint32_t med;
	unsigned int i;

	(void)state;
	sending(ev);
	for (i = 0; i < 16; i++)
		ev[i].lost = 0;
	ev[2].lost = 29; /* 4.8 %, above 3 x 0 but under 5 % */
	assert_int_equal(lossy_w0(ev, 16, &med), 0);
	ev[2].lost = 30; /* 5 % */
	assert_int_equal(lossy_w0(ev, 16, &med), 1u << 2);
	ev[2] = (struct gray_ev){ .sent = 63, .lost = 40, .in_use = 1 };
	assert_int_equal(lossy_w0(ev, 16, &med), 0); /* too few sent */
	ev[2] = (struct gray_ev){ .sent = 64, .lost = 7, .in_use = 1 };
	assert_int_equal(lossy_w0(ev, 16, &med), 0); /* too few lost */
	ev[2].lost = 8;
	assert_int_equal(lossy_w0(ev, 16, &med), 1u << 2);
	ev[2].in_use = 0; /* out of use already */
	assert_int_equal(lossy_w0(ev, 16, &med), 0);
	/* Fewer than GRAY_MIN_PEERS judged: no median, nothing lossy. */
	for (i = 0; i < 16; i++)
		ev[i].sent = i < GRAY_MIN_PEERS - 1 || i == 9 ? 600 : 10;
	ev[9].lost = 300;
	assert_int_equal(lossy_w0(ev, 16, &med), 0);
	assert_int_equal(med, 0);
}

/* 256 EVs over 8 planes: the last words of the mask count as the first
 * (a QP sprays over every one of them). */
static void all_256_evs(void **state)
{
	struct gray_ev ev[MRC_QP_EVS];
	struct mrc_evmask m;
	unsigned int i;
	uint32_t med;

	(void)state;
	for (i = 0; i < MRC_QP_EVS; i++)
		ev[i] = (struct gray_ev){ .srtt_ns = 50000 + 100 * i,
					  .samples = 10,
					  .sent = 600,
					  .lost = 6,
					  .in_use = 1 };
	ev[200].srtt_ns = 3000000;
	ev[255].lost = 200;
	assert_int_equal(gray_find(ev, MRC_QP_EVS, GRAY_FACTOR, &med, &m), 1);
	assert_true(evm_has(&m, 200) && m.w[3] == 1ull << (200 - 192));
	assert_int_equal(med, 50000 + 100 * 128);
	assert_int_equal(lossy_find(ev, MRC_QP_EVS, &med, &m), 1);
	assert_true(evm_has(&m, 255) && m.w[3] == 1ull << 63 && !m.w[0]);
	/* More than a QP has: judged as the first MRC_QP_EVS. */
	assert_int_equal(lossy_find(ev, 1000, &med, &m), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(none_among_peers),
		cmocka_unit_test(all_256_evs),
		cmocka_unit_test(one_slow_path),
		cmocka_unit_test(factor_and_floor_both_needed),
		cmocka_unit_test(too_little_to_judge),
		cmocka_unit_test(only_evs_in_use),
		cmocka_unit_test(one_lossy_path),
		cmocka_unit_test(loss_everywhere_is_no_path),
		cmocka_unit_test(lossy_minimums),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
