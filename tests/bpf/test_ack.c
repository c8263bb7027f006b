// SPDX-License-Identifier: GPL-2.0
/*
 * The sender's ACK processing (bpf/mrc_xdp_rx.bpf.c, take_ack) against
 * stale, forged and replayed ACKs and NACKs, through BPF_PROG_TEST_RUN: an
 * ACK or NACK acts only when it names a PSN in flight and returns that
 * PSN's echo (mrc_echo), and then only on PSNs in flight, so it never
 * frees, resends or fails the record of another PSN that shares its ring
 * slot; every completion record is written whole; a CQ without a ring
 * loses only the completions that were due.
 *
 *   the transmit program sends PSNs FIRST.. of QP S_QPN (4 EVs); ACKs and
 *   NACKs from the peer (QP R_QPN) come back into the receive program,
 *   which also receives WRITE_IMMs for its own QP L_QPN (another
 *   process's, completing on CQ 1). Send completions go to CQ 0.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/bpf.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fixture.h"
#include "pkt.h"
#include "mrc/abi.h"
#include "mrc/drop.h"
#include "mrc/wire.h"
#include "../../bpf/lib/nscc.h"
#include "mrc_xdp_rx.skel.h"
#include "mrc_xdp_tx.skel.h"
#include "tx_call.h"

#define S_QPN 5 /* the sender */
#define R_QPN 77 /* its peer */
#define L_QPN 9 /* a QP of another process that receives here */
#define NEV 4
#define EV0 49152
#define FIRST 1000 /* first PSN sent; slot FIRST % 512 = 488 */
#define SENT 8
#define MR_IDX 3
#define RKEY ((0x4242u << MRC_RKEY_INDEX_BITS) | MR_IDX)
#define VA 0x7f0000000000ull
#define NO_RING_CQ 9
#define FULL_CQ 10 /* a ring smaller than MRC_SCQ_ROOM_BYTES: never room */
#define NOTIFY_CQ 11 /* a ring with a notify word (armed_cq_wakes_once) */

static struct mrc_xdp_rx *rx;
static struct mrc_xdp_tx *tx;
static struct mrc_sq *sq;
static struct ring_buffer *cqs; /* CQ 0 (send) and CQ 1 (L_QPN's receive) */
static struct mrc_cqe cqe[2][64];
static int ncqe[2];

static int on_cqe(void *ctx, void *d, size_t len)
{
	int cq = (int)(long)ctx;

	if (len != sizeof(struct mrc_cqe) || ncqe[cq] == 64)
		return -EINVAL;
	memcpy(&cqe[cq][ncqe[cq]++], d, len);
	return 0;
}

static int drain(void)
{
	ncqe[0] = ncqe[1] = 0;
	return ring_buffer__consume(cqs) < 0 ? -1 : 0;
}

/*
 * A completion is want, and the data path stamped it at most a second
 * before now (CLOCK_MONOTONIC, as bpf_ktime_get_ns).
 */
static void assert_cqe(const struct mrc_cqe *got, struct mrc_cqe want)
{
	struct timespec now;
	uint64_t now_ns;

	clock_gettime(CLOCK_MONOTONIC, &now);
	now_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
	if (!got->ts_ns || got->ts_ns > now_ns ||
	    now_ns - got->ts_ns > 1000000000ull)
		fail_msg("completion stamped %llu, now %llu",
			 (unsigned long long)got->ts_ns,
			 (unsigned long long)now_ns);
	want.ts_ns = got->ts_ns;
	assert_memory_equal(got, &want, sizeof(want));
}

static uint64_t percpu(struct bpf_map *m, uint32_t key)
{
	return fixture_percpu_sum(bpf_map__fd(m), key);
}

static struct mrc_qp_tx *get_qp_tx(void)
{
	static struct mrc_qp_tx qt;
	uint32_t key = S_QPN;

	if (bpf_map_lookup_elem(bpf_map__fd(rx->maps.mrc_qp_tx), &key, &qt))
		return NULL;
	return &qt;
}

static int xdp_run(int prog_fd, const void *in, uint32_t len)
{
	struct xdp_md ctx = { .data_end = len, .ingress_ifindex = 1 };
	static uint8_t out[PKT_MAX];

	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in, .data_size_in = len,
		    .data_out = out, .data_size_out = sizeof(out),
		    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx));
	if (bpf_prog_test_run_opts(prog_fd, &o))
		return -1;
	return (int)o.retval;
}

/*
 * S_QPN in RTS with PSNs FIRST .. FIRST + SENT - 1 sent, one zero-length
 * signaled WRITE each (wr_id 100 + i), completing on send_cq.
 */
static int send_some(uint32_t send_cq)
{
	static struct mrc_qp_tx qt;
	static uint8_t frame[1600];
	uint32_t key = S_QPN, i;

	memset(&qt, 0, sizeof(qt));
	qt.state = MRC_QPS_RTS;
	qt.peer_qpn = R_QPN;
	qt.send_cq = send_cq;
	qt.window = MRC_RX_WINDOW_MAX;
	qt.mtu = 1024;
	qt.nev = NEV;
	qt.timeout_ns = 1000000000ull;
	qt.retry_linear = 7;
	qt.retry_exp = 7;
	qt.ev_min_active = 1;
	qt.reorder_ns = 1000000000;
	qt.next_psn = qt.una_psn = FIRST;
	for (i = 0; i < NEV; i++) {
		qt.ev[i] = (uint16_t)(EV0 + i);
		qt.ev_port[i] = (uint8_t)i;
		evm_set(&qt.port_evs[i], i);
		qt.ev_state[i] = MRC_EV_GOOD;
		inet_pton(AF_INET, "198.18.2.2", qt.peer_addr[i]);
	}
	qt.ev_use.w[0] = (1ull << NEV) - 1;
	for (i = 0; i < NEV; i++) {
		struct mrc_ev_stats st = {};
		uint32_t ek = S_QPN * MRC_QP_EVS + i;

		if (bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_ev_stats), &ek,
					&st, BPF_ANY))
			return -1;
	}
	memset(sq, 0, sizeof(*sq));
	if (bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_qp_tx), &key, &qt,
				BPF_ANY))
		return -1;
	for (i = 0; i < SENT; i++) {
		struct mrc_wqe *w = &sq->wqe[i];

		w->opcode = MRC_WR_RDMA_WRITE;
		w->flags = MRC_SEND_SIGNALED;
		w->wr_id = 100 + i;
	}
	sq->tail = SENT;
	for (i = 0; i < SENT; i++)
		if (xdp_run(bpf_program__fd(tx->progs.mrc_xdp_tx), frame,
			    sizeof(frame)) != XDP_REDIRECT)
			return -1;
	if (fixture_zero_percpu(bpf_map__fd(rx->maps.mrc_drop), MRC_DROP_MAX) ||
	    fixture_zero_percpu(bpf_map__fd(rx->maps.mrc_tx_stats), MRC_TX_MAX))
		return -1;
	return drain();
}

/* The echo the peer returns for psn: the QPs here have key 0. */
#define ECHO(psn) mrc_echo(0, (psn))
#define FORGED 0x12345678u /* an off-path host's guess */

/*
 * An ACK (reason 0) or NACK from the peer for psn, cumulative cum, SACK
 * words as given (NULL: none), returning echo.
 */
static void ack_flags(struct pkt *p, uint32_t psn, uint32_t cum, uint8_t reason,
		      const uint32_t *sack, uint32_t echo, uint8_t flags)
{
	pkt_init(p);
	pkt_eth(p, PKT_MAC_A, PKT_MAC_B);
	pkt_ipv4(p, "198.18.2.2", "198.18.1.2", 0x02);
	pkt_udp(p, EV0, MRC_UDP_PORT);
	pkt_bth(p, MRC_OP_ACK, S_QPN, psn, 0);
	pkt_aeth(p, reason ? MRC_AETH_NAK | reason : MRC_AETH_ACK, 0);
	pkt_aext(p, (uint8_t)((reason ? MRC_AF_NACK : 0) | flags), EV0, reason,
		 cum, psn, echo, sack);
	p->udp_csum = 1;
	pkt_finish(p);
}

static void ack(struct pkt *p, uint32_t psn, uint32_t cum, uint8_t reason,
		const uint32_t *sack, uint32_t echo)
{
	ack_flags(p, psn, cum, reason, sack, echo, 0);
}

static int take_echo(uint32_t psn, uint32_t cum, uint8_t reason,
		     const uint32_t *sack, uint32_t echo)
{
	static struct pkt a;

	ack(&a, psn, cum, reason, sack, echo);
	return xdp_run(bpf_program__fd(rx->progs.mrc_xdp_rx), a.data,
		       (uint32_t)a.len);
}

/* The peer's answer: the echo of the PSN it names. */
static int take(uint32_t psn, uint32_t cum, uint8_t reason,
		const uint32_t *sack)
{
	return take_echo(psn, cum, reason, sack, ECHO(psn));
}

/* Records of every PSN sent are still in flight, none queued again. */
static int all_in_flight(const struct mrc_qp_tx *qt)
{
	uint32_t i;

	for (i = 0; i < SENT; i++)
		if ((qt->rec[(FIRST + i) % MRC_TX_RING].flags &
		     (MRC_REC_INFLIGHT | MRC_REC_RETX_Q)) != MRC_REC_INFLIGHT)
			return 0;
	return qt->una_psn == FIRST && qt->retx_tail == qt->retx_head;
}

/* Packets the EVs count acknowledged, and RTT samples they took. */
static uint64_t ev_sum(int samples)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < NEV; i++) {
		struct mrc_ev_stats st;
		uint32_t key = S_QPN * MRC_QP_EVS + i;

		if (!bpf_map_lookup_elem(bpf_map__fd(rx->maps.mrc_ev_stats),
					 &key, &st))
			n += samples ? st.rtt_samples : st.acked;
	}
	return n;
}

static uint64_t ev_acked(void)
{
	return ev_sum(0) + ev_sum(1);
}

static uint64_t drops(enum mrc_drop_reason r)
{
	return percpu(rx->maps.mrc_drop, r);
}

/*
 * An ACK whose cumulative PSN is 513 behind una, every SACK bit set,
 * answering (with the right echo) a PSN in flight: its SACK range covers
 * the ring slots of every PSN in flight. It frees none of them; the loss
 * of FIRST is still found and resent, and everything completes.
 */
static void sack_below_una_frees_nothing(void **state)
{
	const uint32_t all[8] = { ~0u, ~0u, ~0u, ~0u, ~0u, ~0u, ~0u, ~0u };
	const uint32_t four[8] = { 0xf0000000u };
	struct mrc_qp_tx *qt;

	(void)state;
	assert_int_equal(send_some(0), 0);
	assert_int_equal(take(FIRST + SENT - 1, FIRST - 513, 0, all), XDP_DROP);
	qt = get_qp_tx();
	assert_non_null(qt);
	assert_true(all_in_flight(qt));
	assert_int_equal(ev_sum(0), 0);
	assert_int_equal(drain(), 0);
	assert_int_equal(ncqe[0], 0);
	/* The peer's real ACK: FIRST missing, the next four in. All were
	 * sent within the reordering span (health.h): FIRST is still in
	 * flight, not freed and not yet called lost; then all of it is
	 * acknowledged. */
	assert_int_equal(take(FIRST + 4, FIRST, 0, four), XDP_DROP);
	qt = get_qp_tx();
	assert_int_equal(qt->retx_tail - qt->retx_head, 0);
	assert_true(qt->rec[FIRST % MRC_TX_RING].flags & MRC_REC_INFLIGHT);
	assert_int_equal(take(FIRST, FIRST + SENT, 0, NULL), XDP_DROP);
	qt = get_qp_tx();
	assert_int_equal(qt->una_psn, FIRST + SENT);
	assert_int_equal(drain(), 0);
	assert_int_equal(ncqe[0], SENT);
	assert_int_equal(cqe[0][0].wr_id, 100);
	assert_int_equal(cqe[0][SENT - 1].wr_id, 100 + SENT - 1);
}

/* An ACK of a PSN long delivered, sharing the slot of FIRST: no RTT
 * sample, no delivery credited to FIRST's EV; counted stale. */
static void stale_ack_takes_no_sample(void **state)
{
	(void)state;
	assert_int_equal(send_some(0), 0);
	assert_int_equal(take(FIRST - MRC_TX_RING, FIRST, 0, NULL), XDP_DROP);
	assert_int_equal(ev_acked(), 0);
	assert_true(all_in_flight(get_qp_tx()));
	assert_int_equal(drops(MRC_DROP_ACK_STALE), 1);
}

/*
 * A blind injector's ACK and NACKs: the right QP and PSNs in flight (the
 * worst case: it guessed them), every SACK bit, but not the echo. Nothing
 * is freed, resent or failed; each is counted ack_bad_echo.
 */
static void forged_echo_changes_nothing(void **state)
{
	const uint32_t all[8] = { ~0u, ~0u, ~0u, ~0u, ~0u, ~0u, ~0u, ~0u };
	struct mrc_qp_tx *qt;

	(void)state;
	assert_int_equal(send_some(0), 0);
	assert_int_equal(take_echo(FIRST + 1, FIRST + SENT, 0, all, FORGED),
			 XDP_DROP);
	assert_int_equal(take_echo(FIRST + 2, FIRST, MRC_NACK_RKEY, NULL,
				   FORGED),
			 XDP_DROP);
	assert_int_equal(take_echo(FIRST + 3, FIRST, MRC_NACK_TRIMMED, NULL,
				   ECHO(FIRST + 4)),
			 XDP_DROP);
	qt = get_qp_tx();
	assert_int_equal(qt->state, MRC_QPS_RTS);
	assert_true(all_in_flight(qt));
	assert_int_equal(ev_acked(), 0);
	assert_int_equal(drain(), 0);
	assert_int_equal(ncqe[0], 0);
	assert_int_equal(drops(MRC_DROP_ACK_ECHO), 3);
	/* The peer's own ACK still works. */
	assert_int_equal(take(FIRST + SENT - 1, FIRST + SENT, 0, NULL),
			 XDP_DROP);
	assert_int_equal(get_qp_tx()->una_psn, FIRST + SENT);
	assert_int_equal(drain(), 0);
	assert_int_equal(ncqe[0], SENT);
}

/* take_echo, CE-marked. */
static int take_ce(uint32_t psn, uint32_t cum, uint8_t reason, uint32_t echo)
{
	static struct pkt a;

	ack_flags(&a, psn, cum, reason, NULL, echo, MRC_AF_ECN_CE);
	return xdp_run(bpf_program__fd(rx->progs.mrc_xdp_rx), a.data,
		       (uint32_t)a.len);
}

/*
 * Congestion news that is not the peer's changes nothing, on a QP whose
 * window NSCC runs: a CE-marked ACK and a TRIMMED NACK with another PSN's
 * echo, and a CE-marked ACK and a TRIMMED NACK for a PSN already
 * delivered. The QP (window, congestion episode, steering, round trips)
 * stays byte for byte as it was; the peer's own CE-marked ACK then does
 * move them.
 */
static void forged_congestion_news_changes_nothing(void **state)
{
	static struct mrc_qp_tx before;
	static struct mrc_nscc_params cc = {
		.mtu_bytes = 1024,
		.max_cwnd_bytes = 64 * 1024,
		.base_rtt_ns = 10000,
		.target_delay_ns = 10000,
		.adjust_period_ns = 1000000,
		.adjust_bytes = 8 * 1024,
		.fi_q8_bytes = 1024 * MRC_NSCC_Q8,
		.alpha_target_q8_bytes = 1024 * MRC_NSCC_Q8,
		.fi_scale_q16 = MRC_NSCC_Q16 / 4,
		.gamma_q16 = 52429,
		.max_md_jump_q16 = MRC_NSCC_Q16 / 2,
		.near_zero_ns = MRC_NSCC_NEAR_ZERO_NS,
		.qa_threshold_ns = MRC_NSCC_QA_NEVER,
		.disable_qa = 1,
		.qa_gate = 3,
	};
	uint32_t key = S_QPN, slot = 1;
	struct mrc_qp_tx *qt;

	(void)state;
	assert_int_equal(send_some(0), 0);
	qt = get_qp_tx();
	qt->cc_slot = slot;
	nscc_init(&qt->cc, &cc, 1, qt->mtu);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_cc),
					     &slot, &cc, BPF_ANY),
			 0);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_qp_tx),
					     &key, qt, BPF_ANY),
			 0);
	/* The peer delivers the first two, unmarked. */
	assert_int_equal(take(FIRST + 1, FIRST + 2, 0, NULL), XDP_DROP);
	before = *get_qp_tx();
	assert_int_equal(before.ev_cool.w[0], 0);
	assert_int_equal(take_ce(FIRST + 3, FIRST + 2, 0, FORGED), XDP_DROP);
	assert_int_equal(take_ce(FIRST + 4, FIRST + 2, MRC_NACK_TRIMMED,
				 ECHO(FIRST + 5)),
			 XDP_DROP);
	assert_int_equal(take_ce(FIRST, FIRST + 2, 0, ECHO(FIRST)), XDP_DROP);
	assert_int_equal(take_ce(FIRST + 1, FIRST + 2, MRC_NACK_TRIMMED,
				 ECHO(FIRST + 1)),
			 XDP_DROP);
	assert_int_equal(drops(MRC_DROP_ACK_ECHO), 2);
	assert_int_equal(drops(MRC_DROP_ACK_STALE), 2);
	qt = get_qp_tx();
	assert_memory_equal(qt, &before, sizeof(before));
	assert_int_equal(drain(), 0);
	/* The peer's own: a CE-marked ACK for PSN FIRST + 3. */
	assert_int_equal(take_ce(FIRST + 3, FIRST + 4, 0, ECHO(FIRST + 3)),
			 XDP_DROP);
	qt = get_qp_tx();
	assert_int_equal(qt->ev_cool.w[0],
			 1ull << qt->rec[(FIRST + 3) % MRC_TX_RING].ev_idx);
	assert_true(qt->cong_slots != 0);
	assert_int_equal(qt->una_psn, FIRST + 4);
}

/*
 * A fatal NACK (remote access) naming a PSN below una fails nothing; one
 * naming a PSN in flight fails that WQE with a whole completion record.
 */
static void stale_fatal_nack_fails_nothing(void **state)
{
	const struct mrc_cqe want = { .wr_id = 103,
				      .qpn = S_QPN,
				      .seq = 0,
				      .opcode = MRC_WC_RDMA_WRITE,
				      .status = MRC_WC_REM_ACCESS_ERR };
	struct mrc_qp_tx *qt;

	(void)state;
	assert_int_equal(send_some(0), 0);
	assert_int_equal(take(FIRST - MRC_TX_RING, FIRST, MRC_NACK_RKEY, NULL),
			 XDP_DROP);
	qt = get_qp_tx();
	assert_int_equal(qt->state, MRC_QPS_RTS);
	assert_int_equal(sq->state, 0);
	assert_int_equal(drain(), 0);
	assert_int_equal(ncqe[0], 0);
	assert_true(all_in_flight(qt));

	assert_int_equal(take(FIRST + 3, FIRST, MRC_NACK_RKEY, NULL), XDP_DROP);
	assert_int_equal(get_qp_tx()->state, MRC_QPS_ERR);
	assert_int_equal(sq->state, MRC_QPS_ERR);
	assert_int_equal(drain(), 0);
	assert_int_equal(ncqe[0], 1);
	assert_cqe(&cqe[0][0], want);
}

/* A retryable NACK (trimmed) queues a resend only for a PSN in flight. */
static void stale_retryable_nack_queues_nothing(void **state)
{
	struct mrc_qp_tx *qt;

	(void)state;
	assert_int_equal(send_some(0), 0);
	assert_int_equal(take(FIRST - MRC_TX_RING, FIRST, MRC_NACK_TRIMMED,
			      NULL),
			 XDP_DROP);
	assert_true(all_in_flight(get_qp_tx()));
	assert_int_equal(take(FIRST + 2, FIRST, MRC_NACK_TRIMMED, NULL),
			 XDP_DROP);
	qt = get_qp_tx();
	assert_int_equal(qt->retx_tail - qt->retx_head, 1);
	assert_int_equal(qt->retx[qt->retx_head % MRC_RETX_Q], FIRST + 2);
}

/*
 * EV 1 (reorder_ns / 8 = 125 us) carried FIRST + 1 and, 200 ms later,
 * FIRST + 5, the latter sent tries times; FIRST + 1 has flags too.
 */
static int later_on_ev1(uint16_t tries, uint8_t flags)
{
	struct mrc_qp_tx *qt = get_qp_tx();
	uint32_t key = S_QPN;

	if (!qt)
		return -1;
	qt->reorder_ns = 1000000;
	qt->rec[(FIRST + 1) % MRC_TX_RING].flags |= flags;
	qt->rec[(FIRST + 5) % MRC_TX_RING].tries = tries;
	qt->rec[(FIRST + 5) % MRC_TX_RING].tx_ns =
		qt->rec[(FIRST + 1) % MRC_TX_RING].tx_ns + 200000000ull;
	return bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_qp_tx), &key, qt,
				   BPF_ANY);
}

/*
 * Karn, for paths: PSN FIRST + 5 was sent twice, the last time on EV 1
 * long after FIRST + 1 left on EV 1. Its delivery may be the first
 * transmission's, on another EV: it proves nothing about EV 1, so
 * FIRST + 1 missing is no loss on EV 1, which stays GOOD.
 */
static void resent_psn_proves_nothing(void **state)
{
	const uint32_t sack[8] = { 0x08000000u }; /* FIRST + 5 */
	struct mrc_qp_tx *qt;

	(void)state;
	assert_int_equal(send_some(0), 0);
	assert_int_equal(later_on_ev1(2, 0), 0);
	assert_int_equal(take(FIRST + 5, FIRST, 0, sack), XDP_DROP);
	qt = get_qp_tx();
	assert_int_equal(qt->ev_state[1], MRC_EV_GOOD);
	assert_int_equal(qt->ev_use.w[0], (1ull << NEV) - 1);
	/* Sent once, the same delivery is proof: EV 1 lost FIRST + 1. */
	assert_int_equal(send_some(0), 0);
	assert_int_equal(later_on_ev1(1, 0), 0);
	assert_int_equal(take(FIRST + 5, FIRST, 0, sack), XDP_DROP);
	assert_int_equal(get_qp_tx()->ev_state[1], MRC_EV_ASSUMED_BAD);
}

/*
 * FIRST + 1 left on EV 1 through the kernel stack (the tc path); FIRST + 5
 * left on EV 1 later as an XDP frame and arrived first. XDP frames
 * overtake the stack: that is no loss on EV 1.
 */
static void stack_sent_psn_not_proven_lost(void **state)
{
	const uint32_t sack[8] = { 0x08000000u }; /* FIRST + 5 */

	(void)state;
	assert_int_equal(send_some(0), 0);
	assert_int_equal(later_on_ev1(1, MRC_REC_SKB), 0);
	assert_int_equal(take(FIRST + 5, FIRST, 0, sack), XDP_DROP);
	assert_int_equal(get_qp_tx()->ev_state[1], MRC_EV_GOOD);
}

static int put_qp_tx(const struct mrc_qp_tx *qt)
{
	uint32_t key = S_QPN;

	return bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_qp_tx), &key, qt,
				   BPF_ANY);
}

static int run_tx(void)
{
	static uint8_t frame[1600];

	return xdp_run(bpf_program__fd(tx->progs.mrc_xdp_tx), frame,
		       sizeof(frame));
}

/*
 * The resend queue names PSNs, and a PSN may be delivered while it waits
 * (queued as a SACK hole, then its first transmission arrives late). By
 * its turn its ring slot may hold the PSN 512 later, in flight: with more
 * than eight such entries ahead of it a pick sends new PSNs past them.
 * Here FIRST - 512 waits, delivered long ago, and FIRST holds its slot.
 * Its turn sends nothing and leaves FIRST's record as it was (before: a
 * packet with PSN FIRST - 512 and FIRST's payload left, counted as a
 * resend that no loss explains, and FIRST's record took its EV and time).
 */
static void stale_resend_entry_sends_nothing(void **state)
{
	struct mrc_tx_rec before;
	struct mrc_qp_tx *qt;

	(void)state;
	assert_int_equal(send_some(0), 0);
	qt = get_qp_tx();
	before = qt->rec[FIRST % MRC_TX_RING];
	qt->retx[qt->retx_tail++ % MRC_RETX_Q] = FIRST - MRC_TX_RING;
	assert_int_equal(put_qp_tx(qt), 0);
	assert_int_equal(run_tx(), XDP_DROP);
	assert_int_equal(percpu(tx->maps.mrc_tx_stats, MRC_TX_RETX), 0);
	assert_int_equal(percpu(tx->maps.mrc_tx_stats, MRC_TX_PACKETS), 0);
	qt = get_qp_tx();
	assert_int_equal(qt->retx_tail, qt->retx_head);
	assert_memory_equal(&qt->rec[FIRST % MRC_TX_RING], &before,
			    sizeof(before));
	assert_true(all_in_flight(qt));
}

/* Fill the resend queue with entries of a PSN delivered long ago. */
static int resend_queue_full(void)
{
	struct mrc_qp_tx *qt = get_qp_tx();
	uint32_t i;

	if (!qt)
		return -1;
	for (i = 0; i < MRC_RETX_Q; i++)
		qt->retx[qt->retx_tail++ % MRC_RETX_Q] = FIRST - MRC_TX_RING;
	return put_qp_tx(qt);
}

/* ...and empty it again, as the transmit side's turns do. */
static int resend_queue_drained(void)
{
	struct mrc_qp_tx *qt = get_qp_tx();

	if (!qt)
		return -1;
	qt->retx_head = qt->retx_tail;
	return put_qp_tx(qt);
}

/*
 * A burst of trims can find the resend queue full. The trimmed PSN is not
 * dropped from the resend plan for it, to wait out its ACK timeout and be
 * blamed on its EV as lost (as 4->1 incast did: EVs ASSUMED_BAD by "ACK
 * timeout" with nothing lost in the fabric). It is marked NACKED and
 * counted; once oldest it goes again at once (the timeout here is 1 s),
 * as a resend, no timeout and no verdict on its EV.
 */
static void trim_finding_resend_queue_full_goes_at_once(void **state)
{
	const struct mrc_tx_rec *r;
	struct mrc_qp_tx *qt;

	(void)state;
	assert_int_equal(send_some(0), 0);
	assert_int_equal(resend_queue_full(), 0);
	assert_int_equal(take(FIRST, FIRST, MRC_NACK_TRIMMED, NULL), XDP_DROP);
	qt = get_qp_tx();
	r = &qt->rec[FIRST % MRC_TX_RING];
	assert_int_equal(r->flags & (MRC_REC_NACKED | MRC_REC_RETX_Q),
			 MRC_REC_NACKED);
	assert_int_equal(percpu(rx->maps.mrc_tx_stats, MRC_TX_RETX_Q_FULL), 1);
	assert_int_equal(resend_queue_drained(), 0);
	/* Nothing new to send: the pick turns to the oldest PSN. */
	assert_int_equal(run_tx(), XDP_REDIRECT);
	qt = get_qp_tx();
	r = &qt->rec[FIRST % MRC_TX_RING];
	assert_int_equal(r->flags & MRC_REC_NACKED, 0);
	assert_int_equal(r->tries, 2);
	assert_int_equal(r->timeouts, 0);
	assert_int_equal(percpu(tx->maps.mrc_tx_stats, MRC_TX_RETX), 1);
	assert_int_equal(percpu(tx->maps.mrc_tx_stats, MRC_TX_TIMEOUTS), 0);
	assert_int_equal(percpu(tx->maps.mrc_tx_stats, MRC_TX_EV_BAD), 0);
	assert_int_equal(qt->ev_use.w[0], (1ull << NEV) - 1);
	/* Sent once: nothing more is due for a second. */
	assert_int_equal(run_tx(), XDP_DROP);
}

/*
 * Not the oldest: a NACKED PSN is queued by the next ACK whose SACK
 * shows it missing, once the queue has room, whatever the reordering
 * rules say, and as a trim, not a loss (no SACK loss, no blame).
 */
static void nacked_hole_queued_when_room(void **state)
{
	const uint32_t sack[8] = { 0x20000000u }; /* FIRST + 3 */
	const struct mrc_tx_rec *r;
	struct mrc_qp_tx *qt;

	(void)state;
	assert_int_equal(send_some(0), 0);
	assert_int_equal(resend_queue_full(), 0);
	assert_int_equal(take(FIRST + 2, FIRST, MRC_NACK_TRIMMED, NULL),
			 XDP_DROP);
	assert_int_equal(resend_queue_drained(), 0);
	assert_int_equal(take(FIRST + 3, FIRST, 0, sack), XDP_DROP);
	qt = get_qp_tx();
	r = &qt->rec[(FIRST + 2) % MRC_TX_RING];
	assert_int_equal(r->flags & (MRC_REC_NACKED | MRC_REC_RETX_Q |
				     MRC_REC_LOST),
			 MRC_REC_RETX_Q);
	assert_int_equal(qt->retx_tail - qt->retx_head, 1);
	assert_int_equal(qt->retx[qt->retx_head % MRC_RETX_Q], FIRST + 2);
	/* FIRST .. FIRST + 1 below it are no holes yet (reordering). */
	assert_int_equal(qt->rec[FIRST % MRC_TX_RING].flags & MRC_REC_RETX_Q,
			 0);
	assert_int_equal(qt->ev_use.w[0], (1ull << NEV) - 1);
	assert_int_equal(run_tx(), XDP_REDIRECT);
	assert_int_equal(percpu(tx->maps.mrc_tx_stats, MRC_TX_RETX), 1);
	assert_int_equal(percpu(tx->maps.mrc_tx_stats, MRC_TX_LOST), 0);
}

/*
 * The pick of FIRST + 8 is recorded, then building its frame fails (its
 * WQE names no region; on a live port a refused bpf_xdp_adjust_tail does
 * the same): nothing left. It goes again at once from the resend queue;
 * failing again, it waits for its timeout. FIRST + 9 leaves later on the
 * same EV and is delivered, and FIRST + 8 times out: neither is evidence
 * against that EV, which stays GOOD (before: ASSUMED_BAD for "loss on
 * this EV", a healthy path blamed in 090).
 */
static void build_failure_blames_no_ev(void **state)
{
	const uint32_t sack[8] = { 0x80000000u }; /* FIRST + 9 */
	const uint32_t bad = FIRST + SENT, good = FIRST + SENT + 1;
	struct mrc_qp_tx *qt;
	struct mrc_tx_rec *r;
	uint32_t e, i;
	int rc = 0;

	(void)state;
	assert_int_equal(send_some(0), 0);
	sq->wqe[SENT] =
		(struct mrc_wqe){ .opcode = MRC_WR_RDMA_WRITE,
				  .len = 64,
				  .lkey = 0x7777u << MRC_RKEY_INDEX_BITS,
				  .wr_id = 200 };
	sq->wqe[SENT + 1] =
		(struct mrc_wqe){ .opcode = MRC_WR_RDMA_WRITE, .wr_id = 201 };
	sq->tail = SENT + 2;
	assert_int_equal(run_tx(), XDP_DROP);
	assert_int_equal(percpu(tx->maps.mrc_tx_stats, MRC_TX_BUILD_FAILED), 1);
	qt = get_qp_tx();
	r = &qt->rec[bad % MRC_TX_RING];
	assert_int_equal(r->flags & (MRC_REC_INFLIGHT | MRC_REC_UNSENT |
				     MRC_REC_RETX_Q),
			 MRC_REC_INFLIGHT | MRC_REC_UNSENT | MRC_REC_RETX_Q);
	assert_int_equal(qt->retx_tail - qt->retx_head, 1);
	assert_int_equal(qt->retx[qt->retx_head % MRC_RETX_Q], bad);
	/* Again at once, failing again; then FIRST + 9 leaves. */
	for (i = 0; i < 3 && rc != XDP_REDIRECT; i++)
		rc = run_tx();
	assert_int_equal(rc, XDP_REDIRECT);
	assert_int_equal(percpu(tx->maps.mrc_tx_stats, MRC_TX_BUILD_FAILED), 2);
	qt = get_qp_tx();
	assert_int_equal(qt->next_psn, good + 1);
	/* On one EV, FIRST + 9 well after FIRST + 8. */
	e = qt->rec[good % MRC_TX_RING].ev_idx;
	qt->rec[bad % MRC_TX_RING].ev_idx = (uint8_t)e;
	qt->reorder_ns = 1000;
	qt->rec[good % MRC_TX_RING].tx_ns =
		qt->rec[bad % MRC_TX_RING].tx_ns + 1000000;
	assert_int_equal(put_qp_tx(qt), 0);
	assert_int_equal(take(good, bad, 0, sack), XDP_DROP);
	qt = get_qp_tx();
	assert_int_equal(qt->una_psn, bad);
	assert_int_equal(qt->ev_state[e], MRC_EV_GOOD);
	/* Its timeout: a retry, still no evidence. */
	qt->rec[bad % MRC_TX_RING].tx_ns = 1;
	qt->timeout_ns = 1000;
	assert_int_equal(put_qp_tx(qt), 0);
	assert_int_equal(run_tx(), XDP_DROP);
	qt = get_qp_tx();
	assert_int_equal(qt->rec[bad % MRC_TX_RING].timeouts, 1);
	for (i = 0; i < NEV; i++)
		assert_int_equal(qt->ev_state[i], MRC_EV_GOOD);
}

/* A WRITE_IMM for L_QPN, zero bytes, completing at once on CQ 1. */
static int receive_imm(uint32_t imm, uint32_t psn)
{
	static struct pkt p;

	pkt_init(&p);
	pkt_eth(&p, PKT_MAC_A, PKT_MAC_B);
	pkt_ipv4(&p, "198.18.2.2", "198.18.1.2", 0x02);
	pkt_udp(&p, EV0, MRC_UDP_PORT);
	pkt_bth(&p, MRC_OP_WRITE_ONLY_IMM, L_QPN, psn, 0);
	pkt_reth(&p, VA, RKEY, 0);
	pkt_immdt(&p, imm);
	pkt_dext(&p, MRC_DF_LAST, EV0, 1, 0, 0);
	p.udp_csum = 1;
	pkt_finish(&p);
	return xdp_run(bpf_program__fd(rx->progs.mrc_xdp_rx), p.data,
		       (uint32_t)p.len);
}

/*
 * Send completions are built in the same per-CPU scratch as receive
 * completions of other QPs: each record must be written whole, or the
 * immediate and PSN of another process's message land in this one's CQ.
 */
static void send_completion_is_whole(void **state)
{
	struct mrc_cqe want = { .wr_id = 100,
				.qpn = S_QPN,
				.opcode = MRC_WC_RDMA_WRITE,
				.status = MRC_WC_SUCCESS };
	static struct mrc_qp_rx lq;
	uint32_t key = L_QPN, i;

	(void)state;
	memset(&lq, 0, sizeof(lq));
	lq.state = MRC_QPS_RTS;
	lq.peer_qpn = 1;
	lq.pd = 1;
	lq.recv_cq = 1;
	lq.window = MRC_RX_WINDOW_MAX;
	lq.cum_psn = lq.cqe_psn = 5000;
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_qp), &key,
					     &lq, BPF_ANY),
			 0);
	assert_int_equal(send_some(0), 0);
	for (i = 0; i < SENT; i++) {
		/* Another process's message completes in the scratch... */
		assert_int_equal(receive_imm(0xdeadbeef, 5000 + i), XDP_TX);
		/* ...then this QP's WRITE does, in the same slot. */
		assert_int_equal(take(FIRST + i, FIRST + i + 1, 0, NULL),
				 XDP_DROP);
		assert_int_equal(drain(), 0);
		assert_int_equal(ncqe[1], 1);
		assert_int_equal(ntohl(cqe[1][0].imm), 0xdeadbeef);
		assert_int_equal(ncqe[0], 1);
		want.wr_id = 100 + i;
		want.seq = i;
		assert_cqe(&cqe[0][0], want);
	}
}

/*
 * A send CQ without a ring: unsignaled WRITEs complete nothing, so an ACK
 * covering them loses nothing; a signaled one is counted lost, once.
 */
static void ringless_cq_counts_only_completions(void **state)
{
	uint32_t i;

	(void)state;
	assert_int_equal(send_some(NO_RING_CQ), 0);
	for (i = 0; i < SENT - 1; i++)
		sq->wqe[i].flags = 0;
	assert_int_equal(take(FIRST + 6, FIRST + SENT - 1, 0, NULL), XDP_DROP);
	assert_int_equal(get_qp_tx()->una_psn, FIRST + SENT - 1);
	assert_int_equal(percpu(rx->maps.mrc_drop, MRC_DROP_CQ_OVERFLOW), 0);
	assert_int_equal(take(FIRST + 7, FIRST + SENT, 0, NULL), XDP_DROP);
	assert_int_equal(percpu(rx->maps.mrc_drop, MRC_DROP_CQ_OVERFLOW), 1);
}

/*
 * A CQ with a notify word: its completions are committed without a
 * wakeup while it is polled; once armed (mrc_req_notify_cq), the next
 * completion is followed by one wakeup, a discarded record, and the word
 * is polled again. Read from the ring's producer position: a completion
 * is 48 bytes (8 of header), the wakeup 16.
 */
static void armed_cq_wakes_once(void **state)
{
	LIBBPF_OPTS(bpf_map_create_opts, mm, .map_flags = BPF_F_MMAPABLE);
	uint32_t idx = NOTIFY_CQ, i;
	int ring = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "mrc_cq", 0, 0, 1 << 16,
				  NULL);
	int word_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "mrc_cq_notify", 4, 4,
				     1, &mm);
	volatile uint64_t *prod;
	uint32_t *word;
	uint64_t at;
	static const struct {
		uint32_t word, after; /* the word before and after the ACK */
		uint64_t bytes; /* the ring grows by */
	} step[] = {
		{ MRC_CQ_POLLED, MRC_CQ_POLLED, 48 },
		{ MRC_CQ_ARMED, MRC_CQ_POLLED, 48 + 16 },
		{ MRC_CQ_POLLED, MRC_CQ_POLLED, 48 },
		{ MRC_CQ_ARMED, MRC_CQ_POLLED, 48 + 16 },
	};

	(void)state;
	assert_int_equal(8 + sizeof(struct mrc_cqe), 48);
	assert_true(ring >= 0 && word_fd >= 0);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_cq), &idx,
					     &ring, BPF_ANY),
			 0);
	assert_int_equal(
		bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_cq_notify), &idx,
				    &word_fd, BPF_ANY),
		0);
	prod = mmap(NULL, 4096, PROT_READ, MAP_SHARED, ring, 4096);
	word = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, word_fd, 0);
	assert_true(prod != MAP_FAILED && word != MAP_FAILED);
	assert_int_equal(send_some(NOTIFY_CQ), 0);
	for (i = 0; i < sizeof(step) / sizeof(step[0]); i++) {
		*word = step[i].word;
		at = *prod;
		assert_int_equal(take(FIRST + i, FIRST + i + 1, 0, NULL),
				 XDP_DROP);
		assert_int_equal(*prod - at, step[i].bytes);
		assert_int_equal(*word, step[i].after);
	}
	/* A word of another value is not armed: no wakeup, left as it is. */
	*word = 7;
	at = *prod;
	assert_int_equal(take(FIRST + i, FIRST + i + 1, 0, NULL), XDP_DROP);
	assert_int_equal(*prod - at, 48);
	assert_int_equal(*word, 7);
	munmap((void *)prod, 4096);
	munmap(word, 4096);
	bpf_map_delete_elem(bpf_map__fd(rx->maps.mrc_cq_notify), &idx);
	bpf_map_delete_elem(bpf_map__fd(rx->maps.mrc_cq), &idx);
	close(ring);
	close(word_fd);
}

/*
 * Back-pressure from a send CQ with no room: a valid ACK is refused
 * (cq_full) and takes nothing in; the transmit path sends nothing and
 * runs no timeout, though una's has passed (tx_send_cq_full). Once there
 * is room, una goes again, blaming no EV (the answer was ours to refuse),
 * and the peer's answer is taken in with every completion.
 */
static void full_send_cq_holds_back(void **state)
{
	struct mrc_qp_tx *qt;
	uint32_t i;

	(void)state;
	assert_int_equal(send_some(0), 0);
	qt = get_qp_tx();
	qt->send_cq = FULL_CQ;
	qt->timeout_ns = 1000;
	qt->rec[FIRST % MRC_TX_RING].tx_ns = 1; /* its timeout has passed */
	assert_int_equal(put_qp_tx(qt), 0);
	assert_int_equal(take(FIRST + 3, FIRST + 4, 0, NULL), XDP_DROP);
	assert_int_equal(percpu(rx->maps.mrc_drop, MRC_DROP_CQ_FULL), 1);
	qt = get_qp_tx();
	assert_int_equal(qt->una_psn, FIRST);
	assert_true(all_in_flight(qt));
	assert_int_equal(qt->cq_stalled, 1);
	assert_int_equal(run_tx(), XDP_DROP);
	assert_int_equal(percpu(tx->maps.mrc_tx_stats, MRC_TX_CQ_FULL), 1);
	qt = get_qp_tx();
	assert_int_equal(qt->rec[FIRST % MRC_TX_RING].timeouts, 0);
	assert_int_equal(qt->state, MRC_QPS_RTS);
	/* The application polled: room. */
	qt->send_cq = 0;
	assert_int_equal(put_qp_tx(qt), 0);
	assert_int_equal(run_tx(), XDP_REDIRECT);
	qt = get_qp_tx();
	assert_int_equal(qt->rec[FIRST % MRC_TX_RING].timeouts, 1);
	for (i = 0; i < NEV; i++)
		assert_int_equal(qt->ev_state[i], MRC_EV_GOOD);
	assert_int_equal(percpu(tx->maps.mrc_tx_stats, MRC_TX_EV_BAD), 0);
	assert_int_equal(take(FIRST + 3, FIRST + 4, 0, NULL), XDP_DROP);
	qt = get_qp_tx();
	assert_int_equal(qt->una_psn, FIRST + 4);
	assert_int_equal(qt->cq_stalled, 0);
	assert_int_equal(drain(), 0);
	assert_int_equal(ncqe[0], 4);
	for (i = 0; i < 4; i++)
		assert_int_equal(cqe[0][i].wr_id, 100 + i);
	assert_int_equal(percpu(rx->maps.mrc_drop, MRC_DROP_CQ_OVERFLOW), 0);
}

static int add_cq_sized(uint32_t idx, uint32_t bytes)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "mrc_cq", 0, 0, bytes,
				NULL);
	int err;

	if (fd < 0 || bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_cq), &idx,
					  &fd, BPF_ANY))
		return -1;
	err = cqs ? ring_buffer__add(cqs, fd, on_cqe, (void *)(long)idx) :
		    ((cqs = ring_buffer__new(fd, on_cqe, (void *)(long)idx,
					     NULL)) ?
			     0 :
			     -1);
	close(fd);
	return err;
}

static int add_cq(uint32_t idx)
{
	return add_cq_sized(idx, 1 << 16);
}

static int setup(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, mm, .map_flags = BPF_F_MMAPABLE);
	struct mrc_port port = { .ifindex = 1,
				 .smac = { 2, 0, 0, 0, 0, 0xa },
				 .dmac = { 2, 0, 0, 0, 0, 0xb } };
	struct mrc_mr_info mr = {
		.rkey = RKEY, .pd = 1, .va = VA, .len = 4096, .access = 2
	};
	uint32_t p, key = S_QPN, idx = MR_IDX;
	cpu_set_t one;
	int sq_fd;

	/* One CPU: the per-CPU scratch of one run is the next one's. */
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return -1;
	rx = mrc_xdp_rx__open_and_load();
	if (!rx)
		return -1;
	tx = mrc_xdp_tx__open();
	if (!tx || fixture_share_maps(tx->obj, rx->obj) || mrc_xdp_tx__load(tx))
		return -1;
	tx_call_set(tx->bss->tx_call, tx->bss->tx_list, S_QPN, 0);
	inet_pton(AF_INET, "198.18.1.2", port.saddr);
	for (p = 0; p < NEV; p++) {
		/* lo, with no egress program */
		struct bpf_devmap_val lo = { .ifindex = 1 };

		if (bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_port), &p,
					&port, BPF_ANY) ||
		    bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_tx_port), &p,
					&lo, BPF_ANY))
			return -1;
	}
	if (bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_mr_info), &idx, &mr,
				BPF_ANY) ||
	    add_cq(0) || add_cq(1) || add_cq_sized(FULL_CQ, 8192))
		return -1;
	sq_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "mrc_sq", 4,
			       sizeof(struct mrc_sq), 1, &mm);
	if (sq_fd < 0 || bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_sq), &key,
					     &sq_fd, BPF_ANY))
		return -1;
	sq = mmap(NULL, sizeof(*sq), PROT_READ | PROT_WRITE, MAP_SHARED, sq_fd,
		  0);
	close(sq_fd);
	return sq == MAP_FAILED ? -1 : 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sack_below_una_frees_nothing),
		cmocka_unit_test(stale_ack_takes_no_sample),
		cmocka_unit_test(forged_echo_changes_nothing),
		cmocka_unit_test(forged_congestion_news_changes_nothing),
		cmocka_unit_test(resent_psn_proves_nothing),
		cmocka_unit_test(stack_sent_psn_not_proven_lost),
		cmocka_unit_test(build_failure_blames_no_ev),
		cmocka_unit_test(stale_fatal_nack_fails_nothing),
		cmocka_unit_test(stale_retryable_nack_queues_nothing),
		cmocka_unit_test(stale_resend_entry_sends_nothing),
		cmocka_unit_test(trim_finding_resend_queue_full_goes_at_once),
		cmocka_unit_test(nacked_hole_queued_when_room),
		cmocka_unit_test(send_completion_is_whole),
		cmocka_unit_test(ringless_cq_counts_only_completions),
		cmocka_unit_test(full_send_cq_holds_back),
		cmocka_unit_test(armed_cq_wakes_once),
	};
	int failed;

	if (geteuid() != 0) {
		printf("SKIP: test_ack needs root (BPF)\n");
		return 77;
	}
	if (setup()) {
		fprintf(stderr, "test_ack: setup failed: %s\n",
			strerror(errno));
		return 1;
	}
	failed = cmocka_run_group_tests_name("ACK processing at the sender",
					     tests, NULL, NULL);
	ring_buffer__free(cqs);
	munmap(sq, sizeof(*sq));
	mrc_xdp_tx__destroy(tx);
	mrc_xdp_rx__destroy(rx);
	return failed ? 1 : 0;
}
