// SPDX-License-Identifier: GPL-2.0
/*
 * mrcd's pump (daemon/pump.c) over the fake device and a real event loop:
 * a doorbell puts a QP in the list, bursts grow while frames leave, a QP
 * that cannot send asks for a wakeup and is polled with backoff, an idle
 * or failed or stopped QP leaves, the scan finds work nobody rang about.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <cmocka.h>

#include "fake_device.h"
#include "loop.h"
#include "pump.h"

#define QPN 9u
#define US 1000ull

static struct pump p;
static struct loop loop;
static struct dev dev;
static struct mrc_sq *sq;
static int db;

static int setup(void **state)
{
	int fd;

	(void)state;
	fake_reset(4);
	assert_int_equal(loop_init(&loop), 0);
	assert_int_equal(pump_init(&p, &dev, &loop, 1, 0), 0);
	assert_int_equal(dev_sq_create(&dev, QPN, &sq, &fd), 0);
	close(fd);
	db = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	assert_true(db >= 0);
	assert_int_equal(pump_qp_add(&p, QPN, sq, db), 0);
	pump_qp_rts(&p, QPN, 1000000000ull);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	pump_qp_del(&p, QPN);
	close(db);
	pump_close(&p);
	loop_close(&loop);
	fake_reset(0);
	return 0;
}

static void ring(void)
{
	uint64_t one = 1;

	assert_int_equal(write(db, &one, sizeof(one)), sizeof(one));
	assert_int_equal(loop_once(&loop, 0), 1);
}

/* Work posted: n WQEs not done. */
static void post(uint32_t n)
{
	sq->tail += n;
}

static void doorbell_pumps_until_done(void **state)
{
	uint64_t next;

	(void)state;
	post(10);
	fake.tx_budget[QPN] = 10;
	assert_int_equal(p.nactive, 0);
	ring();
	assert_int_equal(p.nactive, 1);
	assert_int_equal(sq->pumping, 1); /* posters may skip the doorbell */
	assert_int_equal(pump_pass(&p, &next), 1);
	assert_int_equal(fake.tx_frames, 10);
	assert_int_equal(fake.tx_calls, 1);
	/* Ten of a burst of 64 went, then nothing could: no second call.
	 * The wakeup was asked for before the call; with WQEs still unsent
	 * (sent behind tail) an ACK wakes it, and the poll is only for
	 * timeouts. */
	assert_int_equal(p.wake[QPN], 1);
	assert_int_equal(next, fake.now_ns + PUMP_POLL_WAKE_NS);
	/* All sent, not yet acknowledged: posters may skip the doorbell
	 * meanwhile, so the next wait polls soon. */
	sq->sent = sq->tail;
	fake.now_ns = next;
	assert_int_equal(pump_pass(&p, &next), 0);
	assert_int_equal(fake.tx_calls, 2);
	assert_int_equal(next, fake.now_ns + PUMP_POLL_MIN_NS);
	assert_int_equal(p.nactive, 1);
	/* All completed: it leaves the list, and posters ring again. */
	sq->done = sq->tail;
	fake.now_ns = next;
	assert_int_equal(pump_pass(&p, &next), 0);
	assert_int_equal(p.nactive, 0);
	assert_int_equal(sq->pumping, 0);
	assert_int_equal(next, UINT64_MAX);
}

/*
 * A stopping mrcd's kick: one packet, in a call of its own, for a QP in
 * RTS with work, in the list or not; none for a QP with nothing left or
 * one that left RTS.
 */
static void kick_sends_one_packet_a_qp(void **state)
{
	(void)state;
	assert_int_equal(pump_kick(&p), 0);
	/* Posted, its doorbell not yet read: in no list, kicked all the
	 * same (nobody will read that doorbell now). */
	post(10);
	fake.tx_budget[QPN] = 10;
	assert_int_equal(p.nactive, 0);
	assert_int_equal(pump_kick(&p), 1);
	assert_int_equal(fake.tx_bursts, 1);
	assert_int_equal(fake.tx_frames, 1);
	fake.tx_budget[QPN] = 10;
	fake.tx_bursts = 0;
	fake.tx_frames = 0;
	ring();
	assert_int_equal(pump_kick(&p), 1);
	assert_int_equal(fake.tx_bursts, 1);
	assert_int_equal(fake.tx_frames, 1);
	sq->done = sq->tail;
	assert_int_equal(pump_kick(&p), 0);
	post(1);
	pump_qp_stop(&p, QPN);
	assert_int_equal(pump_kick(&p), 0);
	assert_int_equal(fake.tx_bursts, 1);
}

static void bursts_grow_while_frames_leave(void **state)
{
	uint64_t next, calls;
	int k;

	(void)state;
	post(1000);
	fake.tx_budget[QPN] = 100000;
	ring();
	for (k = 0; k < 4; k++) {
		calls = fake.tx_calls;
		assert_int_equal(pump_pass(&p, &next), 1);
		assert_int_equal(fake.tx_calls, calls + 1);
		assert_int_equal(100000 - fake.tx_budget[QPN], fake.tx_frames);
	}
	/* 64 + 128 + 256 + 256 frames: doubling, up to PUMP_BURST_MAX. */
	assert_int_equal(fake.tx_frames, 64 + 128 + 256 + 256);
}

static void waiting_qp_polled_with_backoff(void **state)
{
	uint64_t next, gap, prev = 0;
	int k;

	(void)state;
	post(1);
	ring();
	/* Nothing may go out (window full): the poll interval doubles from
	 * PUMP_POLL_WAKE_NS (work unsent: an ACK wakes it) up to a quarter
	 * of the ACK timeout, at most PUMP_POLL_MAX_NS; each call asks for
	 * PUMP_BURST_WAIT frames, and is the only one of its pass. */
	for (k = 0; k < 12; k++) {
		uint64_t calls = fake.tx_calls;

		assert_int_equal(pump_pass(&p, &next), 0);
		assert_int_equal(fake.tx_calls, calls + 1);
		assert_int_equal(p.qp[QPN].burst, PUMP_BURST_WAIT);
		gap = next - fake.now_ns;
		assert_true(gap >= (k ? prev : PUMP_POLL_WAKE_NS));
		assert_true(gap >= prev);
		assert_true(gap <= PUMP_POLL_MAX_NS);
		prev = gap;
		fake.now_ns = next;
	}
	assert_int_equal(prev, PUMP_POLL_MAX_NS);
	/* Before it is due nothing is tried. */
	assert_int_equal(pump_pass(&p, &next), 0);
	fake.now_ns = next - 1;
	k = (int)fake.tx_calls;
	assert_int_equal(pump_pass(&p, &next), 0);
	assert_int_equal(fake.tx_calls, (uint64_t)k);
	/* An ACK opens the window (the wakeup): at once, from the start. */
	pump_activate(&p, QPN);
	fake.tx_budget[QPN] = 1;
	assert_int_equal(pump_pass(&p, &next), 1);
}

static void short_timeout_polls_faster(void **state)
{
	uint64_t next = 0;
	int k;

	(void)state;
	pump_qp_rts(&p, QPN, 200 * US); /* a quarter: 50 us */
	post(1);
	ring();
	for (k = 0; k < 8; k++) {
		assert_int_equal(pump_pass(&p, &next), 0);
		assert_true(next - fake.now_ns <= 50 * US);
		fake.now_ns = next;
	}
}

static void failed_or_stopped_qp_leaves(void **state)
{
	uint64_t next, calls;

	(void)state;
	post(5);
	fake.tx_budget[QPN] = 5;
	sq->state = MRC_QPS_ERR;
	ring();
	calls = fake.tx_calls;
	assert_int_equal(pump_pass(&p, &next), 0);
	assert_int_equal(p.nactive, 0);
	assert_int_equal(fake.tx_calls, calls);
	sq->state = MRC_QPS_RTS;
	pump_qp_stop(&p, QPN);
	ring();
	assert_int_equal(pump_pass(&p, &next), 0);
	assert_int_equal(p.nactive, 0);
	assert_int_equal(fake.tx_calls, calls);
	/* Not in RTS: the scan leaves it alone too. */
	pump_scan(&p);
	assert_int_equal(p.nactive, 0);
}

static void scan_finds_unrung_work(void **state)
{
	uint64_t next;

	(void)state;
	/* Posted through the low-latency path: no doorbell rang. */
	post(3);
	fake.tx_budget[QPN] = 3;
	pump_scan(&p);
	assert_int_equal(p.nactive, 1);
	assert_int_equal(pump_pass(&p, &next), 1);
	assert_int_equal(fake.tx_frames, 3);
	/* Nothing pending: nothing found. */
	sq->done = sq->tail;
	assert_int_equal(pump_pass(&p, &next), 0);
	pump_scan(&p);
	assert_int_equal(p.nactive, 0);
}

static void deleted_qp_not_watched(void **state)
{
	uint64_t one = 1;

	(void)state;
	pump_qp_del(&p, QPN);
	assert_int_equal(write(db, &one, sizeof(one)), sizeof(one));
	assert_int_equal(loop_once(&loop, 0), 0);
	pump_activate(&p, QPN);
	assert_int_equal(p.nactive, 0);
	pump_qp_rts(&p, QPN, 1000); /* no queue: refused */
	assert_int_equal(p.qp[QPN].rts, 0);
	/* Out of range is refused, not written. */
	assert_int_equal(pump_qp_add(&p, MRC_MAX_QP, sq, db), -EINVAL);
}

/*
 * With two shares, the QPs of one pass transmit on two threads at once
 * (the pump's and a helper), and the pass returns only when every call is
 * done.
 */
static void qps_transmit_on_threads(void **state)
{
	enum { NQP = 8 };
	struct mrc_sq *q[NQP];
	int fd[NQP], i, passes = 0;
	uint32_t tids[NQP], distinct = 0, j;
	uint64_t next, total = 0;

	(void)state;
	pump_close(&p);
	assert_int_equal(pump_init(&p, &dev, &loop, 2, 0), 0);
	if (txt_count(&p.txt) < 2)
		skip(); /* one CPU: no second thread to run on */
	for (i = 0; i < NQP; i++) {
		uint32_t qpn = 100 + (uint32_t)i;

		assert_int_equal(dev_sq_create(&dev, qpn, &q[i], &fd[i]), 0);
		close(fd[i]);
		fd[i] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		assert_int_equal(pump_qp_add(&p, qpn, q[i], fd[i]), 0);
		pump_qp_rts(&p, qpn, 1000000000ull);
		q[i]->tail = 100000;
		fake.tx_budget[qpn] = 1000 + 37 * (uint32_t)i;
		total += fake.tx_budget[qpn];
		pump_activate(&p, qpn);
	}
	while (fake.tx_frames < total && passes++ < 100) {
		uint64_t left = 0;

		pump_pass(&p, &next);
		/* Every call returned before the pass did. */
		for (i = 0; i < NQP; i++)
			left += fake.tx_budget[100 + i];
		assert_int_equal(fake.tx_frames, total - left);
	}
	assert_int_equal(fake.tx_frames, total);
	for (i = 0; i < NQP; i++) {
		uint32_t qpn = 100 + (uint32_t)i;

		for (j = 0; j < distinct && tids[j] != fake.tx_tid[qpn]; j++)
			;
		if (j == distinct)
			tids[distinct++] = fake.tx_tid[qpn];
		pump_qp_del(&p, qpn);
		close(fd[i]);
	}
	assert_int_equal(distinct, 2);
}

/*
 * The QPs of one share go out together: a pass over 300 QPs with work
 * makes two transmit calls (lists of 255 and 45), not 300, and every QP
 * gets its burst.
 */
static void qps_share_calls(void **state)
{
	enum { NQP = 300 };
	struct mrc_sq *q[NQP];
	int fd[NQP], i;
	uint64_t next;

	(void)state;
	for (i = 0; i < NQP; i++) {
		uint32_t qpn = 100 + (uint32_t)i;

		assert_int_equal(dev_sq_create(&dev, qpn, &q[i], &fd[i]), 0);
		close(fd[i]);
		fd[i] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		assert_true(fd[i] >= 0);
		assert_int_equal(pump_qp_add(&p, qpn, q[i], fd[i]), 0);
		pump_qp_rts(&p, qpn, 1000000000ull);
		q[i]->tail = 2;
		fake.tx_budget[qpn] = 2;
		pump_activate(&p, qpn);
	}
	assert_int_equal(pump_pass(&p, &next), 1);
	assert_int_equal(fake.tx_lists, 2);
	assert_int_equal(fake.tx_list_max, MRC_TX_LIST_MAX);
	assert_int_equal(fake.tx_frames, 2 * NQP);
	assert_int_equal(p.tx_calls, 2);
	assert_int_equal(p.qp_bursts, NQP);
	for (i = 0; i < NQP; i++) {
		assert_int_equal(fake.tx_budget[100 + i], 0);
		pump_qp_del(&p, 100 + (uint32_t)i);
		close(fd[i]);
	}
}

/* The WQE the QP sends now (sq->sent) is len bytes. */
static void sending(uint32_t len)
{
	sq->wqe[sq->sent % MRC_SQ_DEPTH].len = len;
}

/*
 * Transmit lanes: with two shares and one QP sending full bursts of large
 * messages, each pass makes a call on each of two lanes, on two threads at
 * once, and their frames count as the QP's. It keeps its lanes while it
 * is active, its bursts stalled too. Before its bursts are full, after it
 * went idle and came back with messages under PUMP_LANE_MIN_BYTES, and
 * with tx-lanes 1, one call a pass.
 */
static void bulk_qp_transmits_on_lanes(void **state)
{
	uint64_t next, calls, frames;
	int k;

	(void)state;
	pump_close(&p);
	assert_int_equal(pump_init(&p, &dev, &loop, 2, 0), 0);
	if (txt_count(&p.txt) < 2)
		skip(); /* one CPU: no second thread to run on */
	assert_int_equal(pump_qp_add(&p, QPN, sq, db), 0);
	pump_qp_rts(&p, QPN, 1000000000ull);
	post(100000);
	sending(PUMP_LANE_MIN_BYTES);
	fake.tx_budget[QPN] = 1000000;
	ring();
	/* 64, 128: one call each; then full bursts, two lanes a pass. */
	for (k = 0; k < 2; k++) {
		calls = fake.tx_calls;
		assert_int_equal(pump_pass(&p, &next), 1);
		assert_int_equal(fake.tx_calls, calls + 1);
		assert_int_equal(fake.tx_lane_calls[0], 0);
	}
	for (k = 0; k < 4; k++) {
		calls = fake.tx_calls;
		frames = fake.tx_frames;
		assert_int_equal(pump_pass(&p, &next), 1);
		assert_int_equal(fake.tx_calls, calls + 2);
		/* Both lanes' frames: the burst stays full. */
		assert_int_equal(fake.tx_frames, frames + 2 * PUMP_BURST_MAX);
		assert_int_equal(p.qp[QPN].burst, PUMP_BURST_MAX);
	}
	assert_int_equal(fake.tx_lanes, 2);
	assert_int_equal(fake.tx_lane_calls[0], 4);
	assert_int_equal(fake.tx_lane_calls[1], 4);
	assert_int_not_equal(fake.tx_lane_tid[0], fake.tx_lane_tid[1]);
	assert_int_equal(1000000 - fake.tx_budget[QPN], fake.tx_frames);

	/* Stalled (nothing may go): still a call on each lane. */
	frames = fake.tx_budget[QPN];
	fake.tx_budget[QPN] = 0;
	for (k = 0; k < 2; k++) {
		calls = fake.tx_calls;
		fake.now_ns += PUMP_POLL_MAX_NS;
		assert_int_equal(pump_pass(&p, &next), 0);
		assert_int_equal(fake.tx_calls, calls + 2);
	}
	assert_int_equal(p.qp[QPN].burst, PUMP_BURST_WAIT);
	assert_int_equal(fake.tx_lane_calls[1], 6);
	assert_int_equal(p.lane_calls, 6); /* mrcd logs it when it stops */

	/* Idle (every WQE done): lanes decided anew. Small messages: one
	 * call a pass, the burst full. */
	sq->done = sq->tail;
	assert_int_equal(pump_pass(&p, &next), 0);
	assert_int_equal(p.nactive, 0);
	fake.tx_budget[QPN] = (uint32_t)frames;
	post(100000);
	sending(PUMP_LANE_MIN_BYTES - 1);
	ring();
	for (k = 0; k < 5; k++) {
		calls = fake.tx_calls;
		assert_int_equal(pump_pass(&p, &next), 1);
		assert_int_equal(fake.tx_calls, calls + 1);
	}
	assert_int_equal(p.qp[QPN].burst, PUMP_BURST_MAX);
	assert_int_equal(fake.tx_lane_calls[1], 6);

	/* tx-lanes 1: one call a pass, whatever the threads. */
	sending(PUMP_LANE_MIN_BYTES);
	pump_close(&p);
	assert_int_equal(pump_init(&p, &dev, &loop, 2, 1), 0);
	assert_int_equal(pump_qp_add(&p, QPN, sq, db), 0);
	pump_qp_rts(&p, QPN, 1000000000ull);
	ring();
	for (k = 0; k < 6; k++) {
		calls = fake.tx_calls;
		assert_int_equal(pump_pass(&p, &next), 1);
		assert_int_equal(fake.tx_calls, calls + 1);
	}
	assert_int_equal(fake.tx_lane_calls[0], 6);
	assert_int_equal(p.lane_calls, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(doorbell_pumps_until_done,
						setup, teardown),
		cmocka_unit_test_setup_teardown(kick_sends_one_packet_a_qp,
						setup, teardown),
		cmocka_unit_test_setup_teardown(bursts_grow_while_frames_leave,
						setup, teardown),
		cmocka_unit_test_setup_teardown(waiting_qp_polled_with_backoff,
						setup, teardown),
		cmocka_unit_test_setup_teardown(short_timeout_polls_faster,
						setup, teardown),
		cmocka_unit_test_setup_teardown(failed_or_stopped_qp_leaves,
						setup, teardown),
		cmocka_unit_test_setup_teardown(scan_finds_unrung_work, setup,
						teardown),
		cmocka_unit_test_setup_teardown(deleted_qp_not_watched, setup,
						teardown),
		cmocka_unit_test_setup_teardown(qps_share_calls, setup,
						teardown),
		cmocka_unit_test_setup_teardown(qps_transmit_on_threads, setup,
						teardown),
		cmocka_unit_test_setup_teardown(bulk_qp_transmits_on_lanes,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
