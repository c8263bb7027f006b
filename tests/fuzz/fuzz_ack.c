// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzzer of the sender's ACK processing (bpf/mrc_xdp_rx.bpf.c: handle_ack,
 * take_ack and the completions it claims), through BPF_PROG_TEST_RUN,
 * against a model of the send side written here from docs/wire.md,
 * docs/health.md and include/mrc/abi.h. The model parses every frame
 * itself and says the verdict, the drop reason, and what the QP's send
 * state (struct mrc_qp_tx, every byte of it), its send queue page and its
 * send CQ look like after it.
 *
 * A few sending QPs, each from a random PSN (often just below the 24-bit
 * wrap) with a random key for mrc_echo(), window, MTU, EVs and
 * reorder_ns, post WQEs of random lengths (one to several packets, some
 * WRITE_IMM, most signaled), sent by running the transmit programs
 * (mrc_xdp_tx; mrc_tc_tx for doorbells) for real. ACKs and NACKs from the
 * peer then come in classes:
 *   valid     naming a PSN in flight with its echo, cumulative PSN in
 *             [una, next] (now and then behind una), SACK bits over the
 *             PSNs in flight, ECN marks, retryable NACKs
 *   stale     naming PSNs delivered long ago, 512 apart from one in
 *             flight, or not sent yet, each with its own (old) echo; or a
 *             cumulative PSN beyond next
 *   forged    a PSN in flight with a wrong echo (random, a neighbour's,
 *             the previous key's), every SACK bit set
 *   nack      NACKs of every reason, in flight and stale
 *   malformed wrong version, truncated, UDP length lies, bad or no UDP
 *             checksum, wrong QP, IP options, bytes flipped
 * A "valid" answer never names, SACKs or cumulatively acknowledges a PSN
 * no transmission of which left (no receiver has it).
 *
 * The transmit runs are modelled too: which PSN each must send (a queued
 * resend, the next piece of the oldest WQE, or una once its ACK timeout
 * passed), on which EV (the round robin over the EVs in use, another one
 * for a resend, the silence rule of health.md), with which record fields,
 * counters and health changes, or that it sends nothing. QPs come in
 * shapes:
 *   plain     no ACK timeout (10^12 ns), nor an overdue resend (an eighth
 *             of it at least): every resend is an ACK's doing
 *   timeout   a third: timeout_ns 1, the backoff exponent 0 for the first
 *             retry_linear retries and retry_exp + 1 at most (waits of 1
 *             to 16 ns, and runs are microseconds apart), reorder_ns 0:
 *             every run that finds nothing new to send (window full, SQ
 *             empty) and una in flight and not queued resends una, and
 *             once retry_linear + retry_exp are spent the WQE fails: one
 *             RETRY_EXC_ERR completion, QP and send queue page in ERR; or
 *             MRC_RETRY_INFINITE with retry_linear above 255 (timeouts
 *             stop at 255). Small windows; the peer falls silent now and
 *             then (no valid ACKs) so that budgets run out
 *   doorbell  a share of the runs go through mrc_tc_tx (loaded from
 *             mrc_tc_tx.bpf.o beside the build's tests/, or -t): records
 *             flagged MRC_REC_SKB, which prove no loss on their EV
 *   bad WQEs  some WQEs name a region the QP may not send from (a wrong
 *             key, another PD's region, past the region's end), and keys
 *             are rewritten after posting, spoiled or mended: the frame
 *             fails to build (MRC_REC_UNSENT, no EV blamed for its
 *             absence nor for its timeout); a first attempt is queued to
 *             go again at once
 * and each QP completes on one of: the big CQ (1 MiB, drained after every
 * step), a 4 KiB ring (102 completions) of its own or shared with the
 * other QP, which now and then goes unread for hundreds of steps, or an
 * mrc_cq slot with no ring.
 *
 * After every frame and every transmit run: the verdict (and the packet
 * sent: PSN, flags, echo, EV, length); the drop counter the model expects
 * moved; the QP's whole mrc_qp_tx against the model's (una never goes back
 * nor past next, moves only on a valid answer; no record freed that no
 * valid answer delivered; a stale, forged or malformed frame changes not
 * one byte); the send queue page (done, sent, state, err_wqe). Every send
 * completion when its ring is read: in order, each once, only for WQEs
 * whose every PSN was delivered; one error completion for a fatal NACK in
 * flight, none for a stale one; one for a WQE out of retries. After every
 * batch, and when a QP is made anew: each drop reason, the send counters,
 * each EV's counters (lost included). A failure prints the seed, the
 * frame number (replay with -n that number) and the frame in hex.
 *
 * A send CQ whose ring has less room than MRC_SCQ_ROOM_BYTES holds its
 * QPs back: a valid ACK is refused (cq_full; the QP's cq_stalled set, so a
 * timeout meanwhile blames no EV) and the transmit path sends nothing and
 * runs no timeout (tx_send_cq_full), so no completion is ever lost to a
 * full ring. The clock makes a run differ from one with the same seed
 * wherever reorder_ns is not 0; timeout QPs have it 0, and -d gives it to
 * every QP: the run then depends on the seed alone.
 *
 *   fuzz_ack [-n FRAMES] [-s SEED] [-b BATCH] [-q] [-d] [-t TC_OBJ]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "mrc/abi.h"
#include "mrc/drop.h"
#include "mrc/wire.h"
#include "mrc_xdp_rx.skel.h"
#include "mrc_xdp_tx.skel.h"
#include "model.h"
#include "tx_call.h"

#define FRAME_MAX 512
#define ACK_LEN 68 /* BTH 12 + AETH 4 + AEXT 52 */
#define NQP 2
#define QPN0 5 /* the QPs that send: QPN0, QPN0 + 1 */
#define PEER0 77
#define NOSQ_QPN 9 /* sends (RTS) but has no send queue map */
#define EV0 49152
#define NPORT 4
#define MR_IDX 3
#define MR_RKEY ((0x5a5au << MRC_RKEY_INDEX_BITS) | MR_IDX)
#define PD 1
#define MR2_IDX 4 /* a region of another protection domain */
#define MR2_RKEY ((0x3c3cu << MRC_RKEY_INDEX_BITS) | MR2_IDX)
#define PD2 2
#define TX_FRAME 1600
#define DB_LEN 58 /* a doorbell on lo: Ethernet, IPv4, UDP, 16 bytes */

/*
 * Send CQs, as mrc_cq slots: a big ring drained after every step, a small
 * one both QPs may share, one small one per QP, and a slot with no ring.
 * A BPF ring buffer takes a record while the producer stays less than its
 * size ahead of the consumer; a completion is 8 header bytes and 32 of
 * CQE, so a 16 KiB ring holds (16384 - 1) / 40 = 409 of them; its QPs
 * are held back (back-pressure) once fewer than MRC_SCQ_ROOM_BYTES are
 * free, i.e. from 152 unread.
 */
#define CQ_BIG 0
#define CQ_SHARED 1
#define CQ_OWN 2 /* + the QP's slot */
#define NCQ (CQ_OWN + NQP)
#define CQ_NONE 9
#define SMALL_RING 16384u
#define CQE_BYTES (8 + sizeof(struct mrc_cqe))
#define CQ_FIFO 512

/* --- the generator (model.h), and a one-in-n draw ------------------------- */

static int chance_in(uint32_t n) /* one in n */
{
	return below(n) == 0;
}

static uint32_t psn_add(uint32_t a, int d)
{
	return (a + (uint32_t)d) & MRC_BTH_PSN_MASK;
}

/* --- the model of one sending QP ---------------------------------------------- */

/* EV sets in the device's layout (bit i of word i / 64), the model's own
 * plain operations on them. */
static int m_has(const struct mrc_evmask *m, uint32_t i)
{
	return i < MRC_QP_EVS && (m->w[i / 64] >> (i % 64) & 1);
}

static void m_set(struct mrc_evmask *m, uint32_t i)
{
	m->w[i / 64] |= 1ull << (i % 64);
}

static void m_clear(struct mrc_evmask *m, uint32_t i)
{
	m->w[i / 64] &= ~(1ull << (i % 64));
}

static uint32_t m_count(const struct mrc_evmask *m)
{
	uint32_t k, n = 0;

	for (k = 0; k < MRC_EV_WORDS; k++)
		n += (uint32_t)__builtin_popcountll(m->w[k]);
	return n;
}

/* Does a hold an EV that neither b nor c does? */
static int m_extra(const struct mrc_evmask *a, const struct mrc_evmask *b,
		   const struct mrc_evmask *c)
{
	uint32_t i;

	for (i = 0; i < MRC_QP_EVS; i++)
		if (m_has(a, i) && !m_has(b, i) && !m_has(c, i))
			return 1;
	return 0;
}

/* What the model knows of one in-flight record: every field the device
 * keeps but the time of its last transmission, which is read. */
struct mrec {
	uint32_t psn; /* the PSN whose record the slot holds */
	uint8_t flags; /* MRC_REC_* */
	uint8_t timeouts;
	uint8_t tries; /* stops at 255 */
	uint8_t cpu; /* the CPU it left from: this pinned thread's */
	uint8_t ev_idx, port;
	uint16_t ev; /* the EV's value (UDP source port), 0 before any */
	uint8_t left; /* some transmission of it left: the peer may have it */
	uint32_t wqe, len;
	uint64_t raddr, laddr;
	uint64_t tx_ns; /* the transmit program's clock: read, not made */
};

struct mwqe {
	uint64_t wr_id, raddr, laddr;
	uint32_t len, opcode, signaled, last_psn;
	uint32_t lkey; /* MR_RKEY, or one the QP may not send from */
};

struct mq {
	uint32_t qpn, peer, key, old_key, window, mtu, nev, reorder_ns;
	uint32_t state; /* MRC_QPS_RTS or MRC_QPS_ERR */
	uint32_t una, next;
	uint32_t tail, sq_head, sq_off, sq_done, cqe_seq, wimm;
	uint32_t retx_head, retx_tail, retx[MRC_RETX_Q];
	struct mrec rec[MRC_TX_RING];
	struct mwqe wqe[MRC_SQ_DEPTH];
	uint64_t ev_acked_ns[MRC_QP_EVS], acked_tx_ns;
	uint8_t ev_acked_cpu[MRC_QP_EVS];
	/* Slots of send time whose answers said a queue was full (an ECN
	 * echo, a TRIMMED NACK): health.md's congestion rule. Bit j is slot
	 * cong_hi - j. */
	uint64_t cong_slots, cong_hi;
	/* Packets sent, and of those resends (health.h's sent_n). */
	uint32_t sent_n, sent_retx_n;
	/* Steering in the last step (health.md): EVs whose ev_cool_ns the
	 * device set, by a mark (cool_new, also set in cur.ev_cool) or
	 * maybe by the slow rule, whose round trip is the device's clock
	 * (cool_may). */
	struct mrc_evmask cool_new, cool_may;
	/* Per EV, since the QP was made (its mrc_ev_stats are zeroed). */
	uint64_t ev_sent[MRC_QP_EVS], ev_retx[MRC_QP_EVS];
	uint64_t ev_acked[MRC_QP_EVS], ev_samples[MRC_QP_EVS];
	uint64_t ev_trimmed[MRC_QP_EVS], ev_ecn[MRC_QP_EVS];
	uint64_t ev_lost[MRC_QP_EVS], ev_lost_queue[MRC_QP_EVS];
	uint32_t fatal_per_mille; /* how often a valid NACK is fatal */
	uint32_t budget; /* PSNs to send before the QP is made anew */
	uint32_t sent_psns, err_frames, err_wqe;
	/* Shape: ACK timeouts (timeout_ns 1), its retries; doorbell share
	 * (percent of its transmit runs through tc), bad WQEs (percent). */
	int fast;
	uint32_t retry_linear, retry_exp, tc_pct, bad_pct;
	uint32_t silent; /* frames the peer says nothing valid for */
	uint32_t cq; /* its send CQ: an mrc_cq slot */
	uint8_t cq_stalled; /* an ACK refused for a full send CQ since the last taken */
	uint64_t db_token;
	int broken; /* the device and the model parted: start again */
	uint64_t next_wr_id;
	struct mrc_sq *sq;
	struct mrc_qp_tx cur; /* the device's, after the last step */
};

/* A send CQ as the model sees it: what its ring holds, in order. */
struct mcq {
	struct ring_buffer *rb;
	uint32_t cap; /* completions it holds; 0: no ring */
	uint32_t bytes; /* its ring's size */
	uint32_t hold; /* steps before it is drained again */
	uint32_t head, n; /* want[head .. head + n) are in the ring */
	struct mrc_cqe want[CQ_FIFO];
};

static struct mq qps[NQP];
static struct mrc_xdp_rx *rx;
static struct mrc_xdp_tx *tx;
static struct bpf_object *tc_obj;
static int tc_prog = -1;
static struct mcq cqs[NCQ];

/* send_cq_full(): less room in q's send CQ ring than a send queue needs. */
static int scq_full(const struct mq *q)
{
	const struct mcq *cq = q->cq < NCQ ? &cqs[q->cq] : NULL;

	return cq && cq->cap &&
	       cq->bytes < cq->n * CQE_BYTES + MRC_SCQ_ROOM_BYTES;
}
static struct mrc_cqe got_cqe[CQ_FIFO];
static int ngot_cqe, cqe_overrun;
static int det; /* -d */

/* Model counters, against the maps after every batch. */
static uint64_t m_drop[MRC_DROP_MAX], m_tx[MRC_TX_MAX];

static int in_flight(const struct mq *q, uint32_t psn)
{
	return psn_diff(psn, q->una) >= 0 && psn_diff(psn, q->next) < 0;
}

static uint32_t nflight(const struct mq *q)
{
	return (uint32_t)psn_diff(q->next, q->una);
}

/* --- frames ---------------------------------------------------------------------- */

enum { C_VALID, C_STALE, C_FORGED, C_NACK, C_MALFORMED, C_MAX };
static const char *const cls_name[C_MAX] = { "valid", "stale", "forged", "nack",
					     "malformed" };

struct frame {
	uint8_t b[FRAME_MAX + 64];
	uint32_t len;
	int cls;
};

/* What an ACK or NACK says, before it is laid out. */
struct ack {
	int v6;
	uint32_t qpn, psn, cum, echo, sack[MRC_SACK_BITS / 32];
	uint8_t flags, reason, version, tos;
	uint16_t sport;
	int no_csum, bad_csum, ip_opts, ip_frag;
	int udp_len_delta; /* added to the UDP length (lies) */
	uint32_t trail; /* bytes after the datagram, outside udp_len */
	uint32_t extra; /* bytes inside udp_len after the AEXT */
};

static void lay_ack(struct frame *fr, const struct ack *a)
{
	static const uint8_t mac_a[6] = { 2, 0, 0, 0, 0, 0xa };
	static const uint8_t mac_b[6] = { 2, 0, 0, 0, 0, 0xb };
	uint8_t *f = fr->b;
	uint32_t udp, o, i, udp_len;

	memset(f, 0, 14 + 60 + 8 + ACK_LEN);
	memcpy(f, mac_a, 6);
	memcpy(f + 6, mac_b, 6);
	if (a->v6) {
		put16(f + 12, 0x86dd);
		f[14] = 0x60 | a->tos >> 4;
		f[15] = (uint8_t)(a->tos << 4);
		f[20] = 17;
		f[21] = 64;
		f[22] = 0xfd;
		f[37] = 2;
		f[38] = 0xfd;
		f[39] = 1;
		f[53] = 2;
		udp = 54;
	} else {
		put16(f + 12, 0x0800);
		f[14] = a->ip_opts ? 0x46 : 0x45;
		f[15] = a->tos;
		put16(f + 20, a->ip_frag ? 0x2001 : 0x4000);
		f[22] = 64;
		f[23] = 17;
		put32(f + 26, 0xc6120202); /* 198.18.2.2 */
		put32(f + 30, 0xc6120102); /* 198.18.1.2 */
		udp = 34;
		if (a->ip_opts) {
			memset(f + 34, 1, 4);
			udp = 38;
		}
	}
	put16(f + udp, a->sport);
	put16(f + udp + 2, MRC_UDP_PORT);
	o = udp + 8;
	f[o] = MRC_OP_ACK;
	put16(f + o + 2, MRC_PKEY_DEFAULT);
	put32(f + o + 4, a->qpn);
	put32(f + o + 8, a->psn);
	f[o + 12] = a->flags & MRC_AF_NACK ?
			    (uint8_t)(MRC_AETH_NAK | (a->reason & 0x1f)) :
			    MRC_AETH_ACK;
	o += 16;
	f[o] = a->version;
	f[o + 1] = a->flags;
	put16(f + o + 2, a->sport);
	f[o + 4] = a->reason;
	put32(f + o + 8, a->cum);
	put32(f + o + 12, a->psn);
	put32(f + o + 16, a->echo);
	for (i = 0; i < MRC_SACK_BITS / 32; i++)
		put32(f + o + 20 + i * 4, a->sack[i]);
	o += 52;
	for (i = 0; i < a->extra; i++)
		f[o + i] = (uint8_t)rnd();
	o += a->extra;
	udp_len = o - udp;
	put16(f + udp + 4, (uint16_t)(udp_len + (uint32_t)a->udp_len_delta));
	if (a->v6) {
		put16(f + 18, (uint16_t)udp_len);
	} else {
		put16(f + 16, (uint16_t)(o - 14));
		set_ip_csum(f, 14);
	}
	if (!a->no_csum && udp_len + (uint32_t)a->udp_len_delta == udp_len)
		set_udp_csum(f, 14, a->v6, udp, udp_len);
	else if (!a->no_csum)
		put16(f + udp + 6, (uint16_t)rnd() | 1);
	if (a->bad_csum)
		f[udp + 7] ^= (uint8_t)(1u << below(8));
	for (i = 0; i < a->trail; i++)
		f[o + i] = (uint8_t)rnd();
	fr->len = o + a->trail;
}

static void set_sack(struct ack *a, uint32_t i)
{
	a->sack[i / 32] |= 1u << (31 - i % 32);
}

/* A PSN in flight: most often one whose record is still in flight. */
static uint32_t pick_flight(const struct mq *q, uint32_t n)
{
	uint32_t i, p;

	for (i = 0; i < 4; i++) {
		p = psn_add(q->una, (int)below(n));
		if (q->rec[p % MRC_TX_RING].flags & MRC_REC_INFLIGHT)
			return p;
	}
	return psn_add(q->una, (int)below(n));
}

/*
 * The first PSN in flight no transmission of which left (its frame never
 * built): no receiver has it, so none acknowledges it or anything after
 * it cumulatively, SACKs it or names it. next when there is none.
 */
static uint32_t never_left(const struct mq *q)
{
	uint32_t n = nflight(q), i, p;

	if (!q->bad_pct) /* only these post WQEs that cannot be built */
		return q->next;
	for (i = 0; i < n; i++) {
		const struct mrec *r;

		p = psn_add(q->una, (int)i);
		r = &q->rec[p % MRC_TX_RING];
		if ((r->flags & MRC_REC_INFLIGHT) && !r->left)
			return p;
	}
	return q->next;
}

/* PSNs from una on that the peer can have received. */
static uint32_t answerable(const struct mq *q)
{
	return (uint32_t)psn_diff(never_left(q), q->una);
}

/* The peer's own answer, as a receiver could send it. */
static struct ack valid_ack(const struct mq *q)
{
	struct ack a = {
		.v6 = chance(30),
		.qpn = q->qpn,
		.version = MRC_WIRE_VERSION,
		.tos = 0x02,
		.sport = (uint16_t)(EV0 + below(q->nev)),
	};
	uint32_t lim = never_left(q), n = (uint32_t)psn_diff(lim, q->una), k;
	uint32_t density;
	int d;

	a.psn = pick_flight(q, n);
	switch (below(8)) {
	case 0: /* behind una: a receiver's older view */
		a.cum = psn_add(q->una, -(int)below(700));
		break;
	case 1:
		a.cum = lim;
		break;
	case 2:
		a.cum = q->una;
		break;
	default:
		a.cum = psn_add(q->una, (int)below(n + 1));
	}
	density = (uint32_t[]){ 0, 0, 10, 50, 90, 100 }[below(6)];
	for (k = 0; k < MRC_SACK_BITS; k++) {
		uint32_t p = psn_add(a.cum, (int)k + 1);
		const struct mrec *r = &q->rec[p % MRC_TX_RING];

		d = psn_diff(p, q->next);
		if (d < 0 && chance(density) &&
		    (r->left || !in_flight(q, p) ||
		     !(r->flags & MRC_REC_INFLIGHT)))
			set_sack(&a, k);
		else if (d >= 0 && chance_in(500)) /* past next: ignored */
			set_sack(&a, k);
	}
	if (chance(10))
		a.flags |= MRC_AF_ECN_CE;
	a.echo = mrc_echo(q->key, a.psn);
	return a;
}

static const uint8_t retryable[] = { MRC_NACK_TRIMMED, MRC_NACK_CHECKSUM,
				     MRC_NACK_PSN_WINDOW };
static const uint8_t fatal[] = { MRC_NACK_RKEY, MRC_NACK_BOUNDS,
				 MRC_NACK_QP_STATE };

/* A PSN not in flight, with its own echo: a late answer. */
static void stale_psn(const struct mq *q, struct ack *a)
{
	uint32_t n = nflight(q);

	switch (below(5)) {
	case 0: /* just delivered */
		a->psn = psn_add(q->una, -1 - (int)below(8));
		break;
	case 1: /* long delivered, maybe the slot of one in flight */
		a->psn = psn_add(q->una, -1 - (int)below(2000));
		break;
	case 2: /* 512 before one in flight: the same ring slot */
		a->psn = psn_add(q->una, (int)below(n + 1) - MRC_TX_RING);
		break;
	case 3: /* not sent yet */
		a->psn = psn_add(q->next, (int)below(600));
		break;
	default:
		a->psn = (uint32_t)rnd() & MRC_BTH_PSN_MASK;
	}
	a->echo = mrc_echo(q->key, a->psn);
}

static void all_sack(struct ack *a)
{
	memset(a->sack, 0xff, sizeof(a->sack));
}

static struct ack stale_ack(const struct mq *q)
{
	struct ack a = valid_ack(q);

	if (chance(25) && nflight(q)) {
		/* In flight, its echo, but a cumulative PSN beyond next. */
		a.cum = psn_add(q->next, 1 + (int)below(400));
		return a;
	}
	stale_psn(q, &a);
	if (chance(50))
		all_sack(&a);
	if (chance(30))
		a.cum = psn_add(q->next, -(int)below(1200));
	if (chance(30)) {
		a.flags |= MRC_AF_NACK;
		a.reason = chance(50) ? retryable[below(3)] : fatal[below(3)];
	}
	return a;
}

static struct ack forged_ack(const struct mq *q)
{
	struct ack a = valid_ack(q);

	switch (below(4)) {
	case 0:
		a.echo = (uint32_t)rnd();
		break;
	case 1: /* a neighbour's */
		a.echo = mrc_echo(q->key, psn_add(a.psn, chance(50) ? 1 : -1));
		break;
	case 2: /* the QP before this one's */
		a.echo = mrc_echo(q->old_key, a.psn);
		break;
	default: /* one bit off */
		a.echo ^= 1u << below(32);
	}
	if (a.echo == mrc_echo(q->key, a.psn))
		a.echo ^= 1;
	if (chance(70)) {
		all_sack(&a);
		a.cum = chance(50) ? q->next :
				     psn_add(q->una, -(int)below(600));
	}
	if (chance(10)) /* blind: any PSN */
		a.psn = (uint32_t)rnd() & MRC_BTH_PSN_MASK;
	if (chance(30)) {
		a.flags |= MRC_AF_NACK;
		a.reason = chance(50) ? retryable[below(3)] : fatal[below(3)];
	}
	return a;
}

static struct ack nack_ack(const struct mq *q)
{
	struct ack a = valid_ack(q);

	a.flags |= MRC_AF_NACK;
	/* A NACK says the PSN was not taken: cum is at or below it. */
	if (psn_diff(a.cum, a.psn) > 0)
		a.cum = chance(50) ? a.psn : q->una;
	memset(a.sack, 0, sizeof(a.sack));
	if (chance(50))
		a.sack[0] = (uint32_t)rnd();
	if (chance(60))
		a.reason = retryable[below(3)];
	else if (chance_in(3))
		a.reason = (uint8_t)(chance(50) ? 0 : 7 + below(249));
	else
		a.reason = fatal[below(3)];
	/* A fatal one in flight ends the QP: mostly stale ones, then. */
	if (!memchr(retryable, a.reason, sizeof(retryable)) &&
	    below(1000) >= q->fatal_per_mille * 20)
		stale_psn(q, &a);
	else if (chance(20))
		stale_psn(q, &a);
	return a;
}

static void mutate(struct frame *fr)
{
	int n = 1 + (int)below(4), v6;
	uint32_t at, udp;

	while (n--) {
		at = below(fr->len);
		switch (below(6)) {
		case 0:
			fr->b[at] ^= (uint8_t)(1u << below(8));
			break;
		case 1:
			fr->b[at] = (uint8_t)rnd();
			break;
		case 2: /* cut, to no less than an Ethernet header */
			fr->len = at > 14 ? at : 14;
			break;
		case 3:
			if (fr->len < FRAME_MAX - 64) {
				uint32_t k = 1 + below(64), i;

				for (i = 0; i < k; i++)
					fr->b[fr->len + i] = (uint8_t)rnd();
				fr->len += k;
			}
			break;
		case 4: /* the AEXT: cum, PSN, echo, SACK */
			at = 34 + 8 + 16 + below(52);
			fr->b[at] = (uint8_t)rnd();
			break;
		default:
			at = 14 + below(100);
			put32(fr->b + at, (uint32_t)rnd());
		}
	}
	v6 = get16(fr->b + 12) == 0x86dd;
	udp = v6 ? 54 : 34;
	/* Still an ACK: the model knows nothing of the data path. */
	if (fr->len > udp + 8)
		fr->b[udp + 8] = MRC_OP_ACK;
	if (chance(50) && fr->len >= udp + 8) {
		uint32_t ul = get16(fr->b + udp + 4);

		if (ul >= 8 && udp + ul <= fr->len)
			set_udp_csum(fr->b, 14, v6, udp, ul);
	}
}

static void malformed(struct frame *fr, const struct mq *q)
{
	struct ack a = chance(50) ? valid_ack(q) : forged_ack(q);

	switch (below(14)) {
	case 0:
		a.version = (uint8_t)(chance(50) ? 0 : 2 + below(254));
		break;
	case 1:
		a.udp_len_delta = -(int)(1 + below(60));
		break;
	case 2:
		a.udp_len_delta = 1 + (int)below(500);
		break;
	case 3:
		a.bad_csum = 1;
		break;
	case 4:
		a.no_csum = 1;
		break;
	case 5:
		a.qpn = (uint32_t)rnd() & MRC_BTH_QPN_MASK;
		break;
	case 6:
		a.qpn = chance(50) ? NOSQ_QPN : 2 + below(MRC_MAX_QP - 2);
		break;
	case 7:
		a.qpn = qps[below(NQP)].qpn; /* maybe the other QP's */
		break;
	case 8:
		a.ip_opts = !a.v6;
		break;
	case 9:
		a.ip_frag = !a.v6;
		break;
	case 10: /* link padding, or bytes inside the datagram */
		if (chance(50))
			a.trail = 1 + below(40);
		else
			a.extra = 1 + below(40);
		break;
	default:
		lay_ack(fr, &a);
		mutate(fr);
		return;
	}
	lay_ack(fr, &a);
	if (chance(10)) /* cut short */
		fr->len = 14 + below(fr->len - 14);
}

static void make_frame(struct frame *fr, int cls, const struct mq *q)
{
	struct ack a;

	fr->cls = cls;
	switch (cls) {
	case C_VALID:
		a = valid_ack(q);
		if (chance(25)) {
			a.flags |= MRC_AF_NACK;
			a.reason = retryable[below(3)];
		} else if (below(1000) < q->fatal_per_mille) {
			a.flags |= MRC_AF_NACK;
			a.reason = fatal[below(3)];
		}
		break;
	case C_STALE:
		a = stale_ack(q);
		break;
	case C_FORGED:
		a = forged_ack(q);
		break;
	case C_NACK:
		a = nack_ack(q);
		break;
	default:
		malformed(fr, q);
		return;
	}
	lay_ack(fr, &a);
}

/* --- the model ------------------------------------------------------------------- */

struct verdict {
	int action; /* XDP_* */
	int drop; /* MRC_DROP_*, 0: taken in */
	struct mq *q; /* the QP it was for */
	int taken; /* valid: acted on */
	int una_moved;
	uint32_t blamed; /* EVs it proved lossy, in order */
	struct mrc_cqe due[MRC_SQ_DEPTH + 1];
	int ndue;
};

static struct mq *find_qp(uint32_t qpn)
{
	unsigned int i;

	for (i = 0; i < NQP; i++)
		if (qps[i].qpn == qpn)
			return &qps[i];
	return NULL;
}

static int sack_bit(const uint32_t *sack, uint32_t i)
{
	return sack[i / 32] >> (31 - i % 32) & 1;
}

/* A record's last transmission got through: what its EV proves. */
static void ev_proven(struct mq *q, const struct mrec *r)
{
	uint32_t e = r->ev_idx;

	/* Karn, for paths (health.md): a PSN sent more than once proves
	 * nothing about the EV its record names, nor for the others; it
	 * still ends that EV's silence. */
	if (r->tries == 1) {
		if (r->tx_ns > q->ev_acked_ns[e]) {
			q->ev_acked_ns[e] = r->tx_ns;
			q->ev_acked_cpu[e] = r->cpu;
		}
		if (r->tx_ns > q->acked_tx_ns)
			q->acked_tx_ns = r->tx_ns;
	}
	if (r->tx_ns >= q->cur.ev_silent_ns[e]) {
		q->cur.ev_silent_ns[e] = 0;
		q->cur.ev_silent_n[e] = 0;
		/* Passed by for silence (its silence since forgiven, or
		 * not), and it delivers: alive. */
		if (m_has(&q->cur.ev_cool_silent, e)) {
			m_clear(&q->cur.ev_cool_silent, e);
			m_tx[MRC_TX_SILENT_DELIVERED]++;
		}
	}
}

static void deliver(struct mq *q, uint32_t psn)
{
	struct mrec *r = &q->rec[psn % MRC_TX_RING];

	if (!(r->flags & MRC_REC_INFLIGHT))
		return;
	r->flags &= (uint8_t)~MRC_REC_INFLIGHT;
	q->ev_acked[r->ev_idx]++;
	ev_proven(q, r);
}

static void push_retx(struct mq *q, uint32_t psn)
{
	q->retx[q->retx_tail++ % MRC_RETX_Q] = psn;
}

/* health.md: a GOOD EV with proven loss goes ASSUMED_BAD and out of use,
 * unless fewer than ev_min_active would stay in use. */
static int blame_kept(struct mq *q, uint32_t e, int *kept)
{
	struct mrc_evmask rest = q->cur.ev_use;

	*kept = 0;
	if (q->cur.ev_state[e] != MRC_EV_GOOD)
		return 0;
	q->cur.ev_state[e] = MRC_EV_ASSUMED_BAD;
	m_clear(&q->cur.ev_cool_silent, e); /* judged */
	m_clear(&rest, e);
	if (m_count(&rest) >= q->cur.ev_min_active)
		q->cur.ev_use = rest;
	else
		*kept = 1;
	return 1;
}

static int blame(struct mq *q, uint32_t e)
{
	int kept;

	return blame_kept(q, e, &kept);
}

/*
 * What the sender does with an ACK or NACK it trusts (wire.md): every PSN
 * before cum is delivered, every SACKed PSN in flight; holes below the
 * highest SACKed PSN are resent when a packet sent later on their EV was
 * delivered (proven loss, the EV blamed) or when the highest SACKed PSN
 * is more than MRC_REORDER_PKTS beyond them; a retryable NACK resends its
 * PSN, a fatal one fails its WQE and the QP; then WQEs whose every PSN is
 * delivered complete, in order. The device's mrc_qp_tx fields outside
 * the model (health) are updated in q->cur, from the copy before.
 */
/*
 * health.md: a packet sent at tx_ns met the full queue an answer told of,
 * so its loss or timeout blames no EV. By send times and the device's
 * rtt_hi_ns before this step (q->cur): all the model knows exactly.
 */
static int marked(const struct mq *q, uint64_t lo, uint64_t hi)
{
	uint64_t t;

	/* Any slot lo..hi, of the 64 remembered. */
	for (t = lo; t <= hi; t++)
		if (q->cong_slots && t <= q->cong_hi && q->cong_hi - t < 64 &&
		    (q->cong_slots >> (q->cong_hi - t) & 1))
			return 1;
	return 0;
}

static int congested(const struct mq *q, uint64_t tx_ns)
{
	uint64_t w = 2ull * q->reorder_ns + 2ull * q->cur.rtt_hi_ns;

	return marked(q, (tx_ns > w ? tx_ns - w : 0) >> MRC_CONG_SLOT_SHIFT,
		      (tx_ns + w) >> MRC_CONG_SLOT_SHIFT);
}

/* health.md: a queue had been full lately when tx_ns left: a slot of the
 * 64 before it, or within a span after. */
static int congested_lately(const struct mq *q, uint64_t tx_ns)
{
	uint64_t w = 2ull * q->reorder_ns + 2ull * q->cur.rtt_hi_ns;
	uint64_t t = tx_ns >> MRC_CONG_SLOT_SHIFT;

	return marked(q, t > 63 ? t - 63 : 0,
		      (tx_ns + w) >> MRC_CONG_SLOT_SHIFT);
}

/* health.md: the silence rule's strikes under a full queue, the least n
 * with a chance of n - 1 losses in a row at the loss rate, 2^-l, below
 * 2^-MRC_SILENT_FALSE_BITS. */
static uint32_t strikes(const struct mq *q)
{
	uint32_t l = 0, n;

	while (((q->sent_n + 1) / (q->sent_retx_n + 1)) >> (l + 1))
		l++;
	if (!l)
		l = 1;
	n = 1 + (MRC_SILENT_FALSE_BITS + l - 1) / l;
	if (n < MRC_SILENT_STRIKES)
		n = MRC_SILENT_STRIKES;
	return n > MRC_SILENT_STRIKES_MAX ? MRC_SILENT_STRIKES_MAX : n;
}

/* health.md: EV i is dead by the silence rule. Its first unanswered packet
 * left a margin before one delivered; one loss proves it with no full
 * queue then, and under one the strikes must be proven lost too: the
 * record's packet, as many as asked, a margin before one delivered. */
static int silent_dead(const struct mq *q, uint32_t i)
{
	uint64_t m = 2ull * q->reorder_ns + q->cur.rtt_hi_ns;
	uint64_t t = q->cur.ev_silent_ns[i];

	if (!t || t + m >= q->acked_tx_ns)
		return 0;
	if (!congested_lately(q, t))
		return 1;
	return q->cur.ev_strike_ns[i] >= t &&
	       q->cur.ev_strike_n[i] >= strikes(q) &&
	       q->cur.ev_strike_ns[i] + m < q->acked_tx_ns;
}

/* health.md: the answer to a packet sent at tx_ns said a queue was full. */
static void full_queue(struct mq *q, uint64_t tx_ns)
{
	uint64_t t = tx_ns >> MRC_CONG_SLOT_SHIFT;

	if (!q->cong_slots) {
		q->cong_slots = 1;
		q->cong_hi = t;
	}
	for (; q->cong_hi < t; q->cong_hi++)
		q->cong_slots <<= 1;
	if (q->cong_hi - t < 64)
		q->cong_slots |= 1ull << (q->cong_hi - t);
}

static void take(struct mq *q, uint32_t psn, uint32_t cum, uint8_t flags,
		 uint8_t reason, const uint32_t *sack, struct verdict *v)
{
	struct mrec *named = &q->rec[psn % MRC_TX_RING], *r;
	uint32_t k, p, high = 0, nbad = 0;
	uint64_t w, reo_before;
	int bad = 0;

	v->taken = 1;
	if (named->flags & MRC_REC_INFLIGHT) {
		uint32_t e = named->ev_idx;

		if (named->tries == 1)
			q->ev_samples[e]++;
		if (flags & MRC_AF_ECN_CE)
			q->ev_ecn[e]++;
		if ((flags & MRC_AF_NACK) && reason == MRC_NACK_TRIMMED)
			q->ev_trimmed[e]++;
		ev_proven(q, named);
		if (((flags & MRC_AF_ECN_CE) ||
		     ((flags & MRC_AF_NACK) && reason == MRC_NACK_TRIMMED)) &&
		    named->tx_ns) {
			full_queue(q, named->tx_ns);
			/* Steering: its EV is passed by for a while. */
			m_set(&q->cur.ev_cool, e);
			m_set(&q->cool_new, e);
		}
		/* ...and maybe for a round trip far above srtt_ns. */
		if (named->tries == 1 && q->cur.srtt_ns)
			m_set(&q->cool_may, e);
	}
	while (psn_diff(cum, q->una) > 0) {
		deliver(q, q->una);
		q->una = psn_add(q->una, 1);
		v->una_moved = 1;
	}
	for (k = 0; k < MRC_SACK_BITS; k++) {
		p = psn_add(cum, (int)k + 1);
		if (!sack_bit(sack, k) || !in_flight(q, p))
			continue;
		deliver(q, p);
		high = k + 1;
	}
	/* health.h's reordering span, from the high round trip before. */
	w = q->reorder_ns / 8 + q->cur.rtt_hi_ns;
	reo_before = q->acked_tx_ns > w ? q->acked_tx_ns - w : 0;
	for (k = 0; k < high; k++) {
		int same_ev;

		p = psn_add(cum, (int)k);
		if (!in_flight(q, p))
			continue;
		r = &q->rec[p % MRC_TX_RING];
		if ((r->flags & (MRC_REC_INFLIGHT | MRC_REC_RETX_Q)) !=
		    MRC_REC_INFLIGHT)
			continue;
		/* NACKed with no room to queue it: due, not lost. */
		if (r->flags & MRC_REC_NACKED) {
			if (q->retx_tail - q->retx_head < MRC_RETX_Q) {
				r->flags =
					(uint8_t)((r->flags | MRC_REC_RETX_Q) &
						  ~MRC_REC_NACKED);
				push_retx(q, p);
			}
			continue;
		}
		/* health.md's exceptions: a packet that left through the
		 * kernel stack is overtaken by later XDP frames, and one that
		 * never left was not lost on its EV. */
		same_ev = !(r->flags & (MRC_REC_SKB | MRC_REC_UNSENT)) &&
			  r->cpu == q->ev_acked_cpu[r->ev_idx] &&
			  r->tx_ns + q->reorder_ns / 8 <
				  q->ev_acked_ns[r->ev_idx];
		if (!same_ev &&
		    (high - k <= MRC_REORDER_PKTS || r->tx_ns >= reo_before))
			continue;
		if (q->retx_tail - q->retx_head < MRC_RETX_Q) {
			r->flags |= MRC_REC_RETX_Q;
			if (!(r->flags & MRC_REC_UNSENT))
				r->flags |= MRC_REC_LOST;
			push_retx(q, p);
		}
		if (same_ev && nbad < 8 && !congested(q, r->tx_ns) &&
		    blame(q, r->ev_idx)) {
			v->blamed |= 1u << r->ev_idx;
			m_tx[MRC_TX_EV_BAD]++;
			nbad++;
		}
	}
	if (flags & MRC_AF_NACK) {
		if (memchr(retryable, reason, sizeof(retryable))) {
			if ((named->flags &
			     (MRC_REC_INFLIGHT | MRC_REC_RETX_Q)) !=
			    MRC_REC_INFLIGHT) {
				/* queued already, or not in flight */
			} else if (q->retx_tail - q->retx_head < MRC_RETX_Q) {
				named->flags = (uint8_t)((named->flags |
							  MRC_REC_RETX_Q) &
							 ~MRC_REC_NACKED);
				push_retx(q, psn);
			} else {
				named->flags |= MRC_REC_NACKED;
				m_tx[MRC_TX_RETX_Q_FULL]++;
			}
		} else if (named->flags & MRC_REC_INFLIGHT) {
			/* Any other reason: the peer refuses the access. */
			v->due[0] = (struct mrc_cqe){
				.wr_id =
					q->wqe[named->wqe % MRC_SQ_DEPTH].wr_id,
				.qpn = q->qpn,
				.seq = q->cqe_seq++,
				.opcode = MRC_WC_RDMA_WRITE,
				.status = MRC_WC_REM_ACCESS_ERR,
			};
			v->ndue = 1;
			q->state = MRC_QPS_ERR;
			q->err_wqe = named->wqe;
			q->err_frames = below(4);
			bad = 1;
		}
	}
	if (bad)
		return;
	while (q->sq_done != q->sq_head) {
		struct mwqe *w = &q->wqe[q->sq_done % MRC_SQ_DEPTH];

		if (psn_diff(q->una, w->last_psn) <= 0)
			break;
		if (w->opcode == MRC_WR_RDMA_WRITE_WITH_IMM && q->wimm)
			q->wimm--;
		if (w->signaled)
			v->due[v->ndue++] = (struct mrc_cqe){
				.wr_id = w->wr_id,
				.qpn = q->qpn,
				.seq = q->cqe_seq++,
				.byte_len = w->len,
				.opcode = MRC_WC_RDMA_WRITE,
				.status = MRC_WC_SUCCESS,
			};
		q->sq_done++;
	}
}

static void drop(struct verdict *v, int why)
{
	v->drop = why;
	v->action = XDP_DROP;
}

/* What the program must do with frame f (wire.md), and to the model. */
static void model(const uint8_t *f, uint32_t n, struct verdict *v)
{
	uint32_t udp, udp_len, o, qpn, psn, cum, echo, sack[8], k;
	uint8_t flags, reason;
	struct mq *q;
	int v6;

	memset(v, 0, sizeof(*v));
	v->action = XDP_PASS;
	if (n < 14)
		return;
	if (get16(f + 12) == 0x0800) {
		if (n < 34 || (f[14] & 0x0f) != 5 || (get16(f + 20) & 0x3fff) ||
		    f[23] != 17)
			return;
		v6 = 0;
		udp = 34;
	} else if (get16(f + 12) == 0x86dd) {
		if (n < 54 || f[20] != 17)
			return;
		v6 = 1;
		udp = 54;
	} else {
		return;
	}
	if (n < udp + 8 || get16(f + udp + 2) != MRC_UDP_PORT)
		return;
	/* Ours: every problem is a drop. */
	udp_len = get16(f + udp + 4);
	o = udp + 8;
	if (n < o + 12)
		return drop(v, MRC_DROP_TRUNCATED);
	qpn = get32(f + o + 4) & MRC_BTH_QPN_MASK;
	psn = get32(f + o + 8) & MRC_BTH_PSN_MASK;
	if (n < o + ACK_LEN)
		return drop(v, MRC_DROP_TRUNCATED);
	o += 16; /* the AEXT */
	if (f[o] != MRC_WIRE_VERSION)
		return drop(v, MRC_DROP_BAD_VERSION);
	if (udp_len < 8 + ACK_LEN || udp + udp_len > n)
		return drop(v, MRC_DROP_TRUNCATED);
	q = find_qp(qpn);
	if (!q || q->state != MRC_QPS_RTS)
		return drop(v, MRC_DROP_UNKNOWN_QP);
	v->q = q;
	if (udp_sum(f, 14, v6, udp, udp_len) != 0xffff)
		return drop(v, MRC_DROP_CHECKSUM);
	flags = f[o + 1];
	reason = f[o + 4];
	cum = get32(f + o + 8) & MRC_BTH_PSN_MASK;
	echo = get32(f + o + 16);
	for (k = 0; k < 8; k++)
		sack[k] = get32(f + o + 20 + k * 4);
	m_tx[flags & MRC_AF_NACK ? MRC_TX_NACKS : MRC_TX_ACKS]++;
	v->action = XDP_DROP; /* consumed, whatever it says */
	if (!in_flight(q, psn) || psn_diff(cum, q->next) > 0)
		return drop(v, MRC_DROP_ACK_STALE);
	if (echo != mrc_echo(q->key, psn))
		return drop(v, MRC_DROP_ACK_ECHO);
	/* Back-pressure: what it completes would find no room. */
	if (scq_full(q)) {
		q->cq_stalled = 1;
		return drop(v, MRC_DROP_CQ_FULL);
	}
	q->cq_stalled = 0;
	take(q, psn, cum, flags, reason, sack, v);
}

/* --- the device under test ----------------------------------------------------- */

/* A completion is the model's, and the data path stamped it (the model
 * cannot know when: mrc_cqe.ts_ns is left out of the comparison). */
static int cqe_same(const struct mrc_cqe *got, const struct mrc_cqe *want)
{
	return got->ts_ns &&
	       !memcmp(got, want, offsetof(struct mrc_cqe, ts_ns));
}

static int on_cqe(void *ctx, void *d, size_t len)
{
	(void)ctx;
	if (len != sizeof(struct mrc_cqe) ||
	    ngot_cqe == (int)(sizeof(got_cqe) / sizeof(got_cqe[0]))) {
		cqe_overrun = 1;
		return 0;
	}
	memcpy(&got_cqe[ngot_cqe++], d, len);
	return 0;
}

static int xdp_run(int prog, const void *in, uint32_t len, void *out,
		   uint32_t *out_len)
{
	struct xdp_md ctx = { .data_end = len, .ingress_ifindex = 1 };

	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in, .data_size_in = len,
		    .data_out = out, .data_size_out = *out_len, .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx));
	if (bpf_prog_test_run_opts(prog, &o))
		return -1;
	*out_len = o.data_size_out;
	return (int)o.retval;
}

static int read_qp(uint32_t qpn, struct mrc_qp_tx *qt)
{
	return bpf_map_lookup_elem(bpf_map__fd(rx->maps.mrc_qp_tx), &qpn, qt);
}

static uint64_t percpu_sum(struct bpf_map *m, uint32_t key)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	uint64_t v[ncpu > 0 ? ncpu : 1], s = 0;

	if (ncpu <= 0 || bpf_map_lookup_elem(bpf_map__fd(m), &key, v))
		return ~0ull;
	for (i = 0; i < ncpu; i++)
		s += v[i];
	return s;
}

static const char *const drop_name[MRC_DROP_MAX] = { [0] = "none",
#define X(name, str, nack) [MRC_DROP_##name] = str,
						     MRC_DROP_REASONS(X)
#undef X
};

static const char *const tx_name[MRC_TX_MAX] = {
#define X(name, str) [MRC_TX_##name] = str,
	MRC_TX_COUNTERS(X)
#undef X
};

/* --- the run ---------------------------------------------------------------------- */

static struct {
	uint64_t frames[C_MAX], verdict[C_MAX][5], taken[C_MAX];
	uint64_t by_drop[MRC_DROP_MAX];
	uint64_t sent, resent, completions, errors, una_moves, qps_made;
	uint64_t lost_holes, blamed, violations;
	uint64_t timeouts, retry_fails, retry_unsent, unsent, tc_sent;
	uint64_t saturated, cq_full, cq_none, cq_drained, cq_holds, fast_qps;
} st;

static uint64_t seed, frame_no;
static int quiet, printed;

static void hex(FILE *o, const struct frame *f)
{
	uint32_t i;

	for (i = 0; i < f->len; i++)
		fprintf(o, "%02x", f->b[i]);
	fputc('\n', o);
}

static void report_violation(const struct frame *f, const char *what)
{
	fprintf(stderr,
		"VIOLATION seed %llu frame %llu (%s; replay: fuzz_ack%s -s %llu -n %llu): %s\n",
		(unsigned long long)seed, (unsigned long long)frame_no,
		f ? cls_name[f->cls] : "transmit", det ? " -d" : "",
		(unsigned long long)seed, (unsigned long long)frame_no + 1,
		what);
	if (f) {
		fprintf(stderr, "  frame: ");
		hex(stderr, f);
	}
}

static void violation(const struct frame *f, const char *what)
{
	st.violations++;
	if (printed++ >= 10)
		return;
	report_violation(f, what);
}

/* Name the first field of struct mrc_qp_tx where a and b differ. */
static void qp_diff(const struct mrc_qp_tx *got, const struct mrc_qp_tx *want,
		    const struct mq *q, char *why, size_t n)
{
	static const struct {
		const char *name;
		size_t off, size;
	} fld[] = {
#define F(x)                                 \
	{ #x, offsetof(struct mrc_qp_tx, x), \
	  sizeof(((struct mrc_qp_tx *)0)->x) }
		F(state),	 F(send_cq),	   F(window),
		F(reorder_ns),	 F(echo_key),	   F(ev_state),
		F(next_psn),	 F(una_psn),	   F(sq_head),
		F(sq_off),	 F(sq_done),	   F(cqe_seq),
		F(ev_next),	 F(wimm_inflight), F(retx_head),
		F(retx_tail),	 F(retx),	   F(wqe_last_psn),
		F(acked_tx_ns),	 F(tx_clock_ns),   F(ev_use),
		F(ev_denied),	 F(ev_silent_ns),  F(ev_acked_ns),
		F(rec),		 F(ev_acked_cpu),  F(ev_cool),
		F(ev_cool_ns),	 F(srtt_ns),	   F(sent_n),
		F(sent_retx_n),	 F(cong_slots),	   F(cong_slot_hi),
		F(ev_strike_ns), F(ev_strike_n),
#undef F
	};
	const uint8_t *a = (const void *)got, *b = (const void *)want;
	size_t i, off, slot;

	/* A record first: what was freed or queued says the most. */
	for (slot = 0; slot < MRC_TX_RING; slot++)
		if (memcmp(&got->rec[slot], &want->rec[slot],
			   sizeof(got->rec[slot])))
			break;
	if (slot < MRC_TX_RING) {
		const struct mrc_tx_rec *g = &got->rec[slot],
					*w = &want->rec[slot];

		snprintf(
			why, n,
			"QP %u: record of PSN %u (slot %zu) flags 0x%x tries %u timeouts %u EV %u, the model 0x%x %u %u %u (una %u next %u; device una %u)",
			q->qpn, q->rec[slot].psn, slot, g->flags, g->tries,
			g->timeouts, g->ev_idx, w->flags, w->tries, w->timeouts,
			w->ev_idx, q->una, q->next, got->una_psn);
		if ((w->flags & MRC_REC_INFLIGHT) &&
		    !(g->flags & MRC_REC_INFLIGHT))
			strncat(why, ": freed, never delivered",
				n - strlen(why) - 1);
		return;
	}
	for (off = 0; off < sizeof(*got) && a[off] == b[off]; off++)
		;
	for (i = 0; i < sizeof(fld) / sizeof(fld[0]); i++)
		if (off >= fld[i].off && off < fld[i].off + fld[i].size)
			break;
	snprintf(
		why, n,
		"QP %u: mrc_qp_tx.%s differs at byte %zu (una %u, the model %u; next %u, the model %u; cqe_seq %u, the model %u; retx %u..%u, the model %u..%u)",
		q->qpn, i < sizeof(fld) / sizeof(fld[0]) ? fld[i].name : "?",
		off, got->una_psn, want->una_psn, got->next_psn, want->next_psn,
		got->cqe_seq, want->cqe_seq, got->retx_head, got->retx_tail,
		want->retx_head, want->retx_tail);
}

/* The device's mrc_qp_tx as the model says it must be. */
static void expect_qp(const struct mq *q, struct mrc_qp_tx *w)
{
	uint32_t i;

	*w = q->cur;
	w->state = q->state;
	w->una_psn = q->una;
	w->next_psn = q->next;
	w->sq_head = q->sq_head;
	w->sq_off = q->sq_off;
	w->sq_done = q->sq_done;
	w->cqe_seq = q->cqe_seq;
	w->wimm_inflight = q->wimm;
	w->retx_head = q->retx_head;
	w->retx_tail = q->retx_tail;
	memcpy(w->retx, q->retx, sizeof(w->retx));
	for (i = 0; i < MRC_TX_RING; i++) {
		const struct mrec *r = &q->rec[i];
		struct mrc_tx_rec *d = &w->rec[i];

		d->flags = r->flags;
		d->tries = r->tries;
		d->cpu = r->cpu;
		d->timeouts = r->timeouts;
		d->ev_idx = r->ev_idx;
		d->ev = r->ev;
		d->port = r->port;
		d->wqe = r->wqe;
		d->len = r->len;
		d->raddr = r->raddr;
		d->laddr = r->laddr;
		d->tx_ns = r->tx_ns;
	}
	for (i = 0; i < MRC_SQ_DEPTH; i++)
		w->wqe_last_psn[i] = q->wqe[i].last_psn;
	memcpy(w->ev_acked_ns, q->ev_acked_ns, sizeof(w->ev_acked_ns));
	memcpy(w->ev_acked_cpu, q->ev_acked_cpu, sizeof(w->ev_acked_cpu));
	w->acked_tx_ns = q->acked_tx_ns;
	w->cq_stalled = q->cq_stalled;
	w->sent_n = q->sent_n;
	w->sent_retx_n = q->sent_retx_n;
	w->cong_slots = q->cong_slots;
	w->cong_slot_hi = q->cong_hi;
}

/* Compare the device's QP (got, just read) with the model's; 0 when the
 * same. */
static int check_read(struct mq *q, const struct mrc_qp_tx *now,
		      const struct frame *f, const char *when)
{
	static struct mrc_qp_tx got, want;
	char why[400], full[460];
	uint32_t slot;

	got = *now;
	expect_qp(q, &want);
	/*
	 * rtt_hi_ns follows round trips on the device's clock, which the
	 * model does not read: taken as it is, within its bound (the rules
	 * that use it read it from q->cur, exactly).
	 */
	if (got.rtt_hi_ns > MRC_RTT_HI_MAX_NS)
		violation(f, "rtt_hi_ns past MRC_RTT_HI_MAX_NS");
	want.rtt_hi_ns = got.rtt_hi_ns;
	if (got.srtt_ns > MRC_RTT_HI_MAX_NS)
		violation(f, "srtt_ns past MRC_RTT_HI_MAX_NS");
	want.srtt_ns = got.srtt_ns;
	/*
	 * tx_clock_ns is the device's clock too, as each pick read it: taken
	 * as it is, but never behind what it was, nor behind the stamp of a
	 * packet in flight (tx_pick goes by the later of the two).
	 */
	if (got.tx_clock_ns < q->cur.tx_clock_ns)
		violation(f, "tx_clock_ns went back");
	for (slot = 0; slot < MRC_TX_RING; slot++)
		if ((got.rec[slot].flags & MRC_REC_INFLIGHT) &&
		    got.rec[slot].tx_ns > got.tx_clock_ns)
			violation(
				f,
				"a packet in flight stamped after tx_clock_ns");
	want.tx_clock_ns = got.tx_clock_ns;
	/*
	 * Steering: the cooled EVs are the model's, and any the slow rule
	 * may have cooled; their times the device's clock, never earlier
	 * than they were (the others' unchanged).
	 */
	if (!m_extra(&got.ev_cool, &want.ev_cool, &q->cool_may)) {
		uint32_t e;

		for (e = 0; e < MRC_QP_EVS; e++) {
			int set = m_has(&q->cool_new, e) ||
				  (m_has(&q->cool_may, e) &&
				   m_has(&got.ev_cool, e));

			if (m_has(&got.ev_cool, e))
				m_set(&want.ev_cool, e);
			if (set && got.ev_cool_ns[e] >= want.ev_cool_ns[e])
				want.ev_cool_ns[e] = got.ev_cool_ns[e];
		}
	}
	memset(&q->cool_new, 0, sizeof(q->cool_new));
	memset(&q->cool_may, 0, sizeof(q->cool_may));
	if (memcmp(&got, &want, sizeof(got))) {
		qp_diff(&got, &want, q, why, sizeof(why));
		snprintf(full, sizeof(full), "%s: %s", when, why);
		violation(f, full);
		q->cur = got;
		q->broken = 1; /* the model cannot follow: make it anew */
		return -1;
	}
	q->cur = got;
	return 0;
}

static int check_qp(struct mq *q, const struct frame *f, const char *when)
{
	static struct mrc_qp_tx got;

	if (read_qp(q->qpn, &got)) {
		violation(f, "mrc_qp_tx lookup failed");
		return -1;
	}
	return check_read(q, &got, f, when);
}

/* --- send CQs --------------------------------------------------------------------- */

static struct mcq *cq_of(uint32_t idx)
{
	return idx < NCQ && cqs[idx].cap ? &cqs[idx] : NULL;
}

/*
 * The data path completes c on CQ idx (handle_ack's emit_one, or
 * tx_fail_wqe for a WQE out of retries): into the ring if it has room,
 * else the completion is lost and counted cq_overflow, and the QP goes on
 * (una and sq_done have moved; nothing retries it). A slot with no ring
 * loses every completion by design (wire.md). The ACK path counts what it
 * writes as send_completions; the retry failure does not (counted is 0).
 */
static void cq_emit(uint32_t idx, const struct mrc_cqe *c, int counted,
		    const struct frame *f)
{
	struct mcq *cq = cq_of(idx);
	char why[300];

	st.completions++;
	if (c->status != MRC_WC_SUCCESS)
		st.errors++;
	if (!cq) {
		m_drop[MRC_DROP_CQ_OVERFLOW]++;
		st.cq_none++;
		return;
	}
	if (cq->n >= cq->cap) {
		m_drop[MRC_DROP_CQ_OVERFLOW]++;
		st.cq_full++;
		snprintf(
			why, sizeof(why),
			"CQ %u full (%u completions unread): QP %u's completion seq %u (wr_id %llu, status %u) would be lost; back-pressure should have held the QP back",
			idx, cq->n, c->qpn, c->seq,
			(unsigned long long)c->wr_id, c->status);
		violation(f, why);
		return;
	}
	if (cq->n >= CQ_FIFO) {
		violation(f, "the model's CQ FIFO overflowed");
		return;
	}
	cq->want[(cq->head + cq->n++) % CQ_FIFO] = *c;
	if (counted)
		m_tx[MRC_TX_COMPLETIONS]++;
}

/* Read CQ idx's ring: exactly what the model says it holds, in order. */
static void cq_drain(uint32_t idx, const struct frame *f)
{
	struct mcq *cq = &cqs[idx];
	char why[300];
	uint32_t i;

	ngot_cqe = 0;
	cqe_overrun = 0;
	if (ring_buffer__consume(cq->rb) < 0)
		cqe_overrun = 1;
	if (cqe_overrun || ngot_cqe != (int)cq->n) {
		snprintf(why, sizeof(why),
			 "CQ %u: %d send completions, the model %u", idx,
			 ngot_cqe, cq->n);
		violation(f, why);
	} else {
		for (i = 0; i < cq->n; i++) {
			const struct mrc_cqe *w =
				&cq->want[(cq->head + i) % CQ_FIFO];
			const struct mrc_cqe *g = &got_cqe[i];

			if (cqe_same(g, w))
				continue;
			snprintf(
				why, sizeof(why),
				"CQ %u completion %u: QP %u wr_id %llu seq %u status %u len %u, the model's QP %u wr_id %llu seq %u status %u len %u",
				idx, i, g->qpn, (unsigned long long)g->wr_id,
				g->seq, g->status, g->byte_len, w->qpn,
				(unsigned long long)w->wr_id, w->seq, w->status,
				w->byte_len);
			violation(f, why);
			break;
		}
	}
	st.cq_drained += (uint64_t)ngot_cqe;
	cq->head = (cq->head + cq->n) % CQ_FIFO;
	cq->n = 0;
}

/* After every step: the rings not held back are read and compared. */
static void cq_step(const struct frame *f)
{
	uint32_t i;

	for (i = 0; i < NCQ; i++) {
		if (cqs[i].hold) {
			cqs[i].hold--;
			continue;
		}
		cq_drain(i, f);
	}
}

/* The send queue page: what the data path mirrors for the poster. */
static void check_sq(const struct mq *q, const struct frame *f)
{
	uint32_t state = q->state == MRC_QPS_ERR ? MRC_QPS_ERR : 0;
	char why[200];

	if (q->sq->done == q->sq_done && q->sq->sent == q->sq_head &&
	    q->sq->state == state && (!state || q->sq->err_wqe == q->err_wqe))
		return;
	snprintf(
		why, sizeof(why),
		"QP %u send queue: done %u sent %u state %u err_wqe %u, the model %u %u %u %u",
		q->qpn, q->sq->done, q->sq->sent, q->sq->state, q->sq->err_wqe,
		q->sq_done, q->sq_head, state, q->err_wqe);
	violation(f, why);
}

/* --- the model of the transmit program (bpf/lib/tx.h) ------------------------ */

/*
 * health.md: the next EV in turn (the cursor ev_next) among those in use,
 * or among all not DENIED when none is; for a resend, another than the EV
 * it last took when there is another. One EV at a time, from the cursor
 * round: the plain way, against the device's word arithmetic.
 */
static uint32_t in_turn(const struct mrc_evmask *use, uint32_t c)
{
	uint32_t k;

	for (k = 0; k < MRC_QP_EVS; k++)
		if (m_has(use, (c + k) % MRC_QP_EVS))
			return (c + k) % MRC_QP_EVS;
	return MRC_QP_EVS;
}

/*
 * health.md's steering: EVs a mark or a slow answer cooled are passed by
 * while a quarter of those in use (and ev_min_active) are left; the EV in
 * turn is warm again once a packet sent at its time or later is delivered.
 */
static uint32_t next_ev(struct mq *q, uint32_t avoid)
{
	struct mrc_evmask use = {}, warm = {};
	uint32_t c = q->cur.ev_next, i, keep;

	for (i = 0; i < q->nev; i++)
		if (m_has(&q->cur.ev_use, i) && !m_has(&q->cur.ev_denied, i))
			m_set(&use, i);
	if (!m_count(&use))
		for (i = 0; i < q->nev; i++)
			if (!m_has(&q->cur.ev_denied, i))
				m_set(&use, i);
	if (!m_count(&use))
		return MRC_QP_EVS;
	if (avoid < MRC_QP_EVS) {
		struct mrc_evmask other = {};

		/* A resend: another port's EV if one is in use (EV i leaves
		 * by port i % NPORT), else another EV. */
		for (i = 0; i < MRC_QP_EVS; i++)
			if (m_has(&use, i) && i % NPORT != avoid % NPORT)
				m_set(&other, i);
		if (m_count(&other))
			use = other;
		else if (m_has(&use, avoid) && m_count(&use) > 1)
			m_clear(&use, avoid);
	}
	if (m_count(&q->cur.ev_cool)) {
		i = in_turn(&use, c);
		if (m_has(&q->cur.ev_cool, i) &&
		    q->acked_tx_ns >= q->cur.ev_cool_ns[i]) {
			m_clear(&q->cur.ev_cool, i);
			q->cur.ev_silent_ns[i] = 0;
			q->cur.ev_silent_n[i] = 0;
		}
		for (i = 0; i < MRC_QP_EVS; i++)
			if (m_has(&use, i) && !m_has(&q->cur.ev_cool, i))
				m_set(&warm, i);
		keep = m_count(&use) / MRC_COOL_KEEP_DIV;
		if (keep < q->cur.ev_min_active)
			keep = q->cur.ev_min_active;
		if (m_count(&warm) && m_count(&warm) >= keep)
			use = warm;
	}
	i = in_turn(&use, c);
	q->cur.ev_next = i + 1 >= q->nev ? 0 : i + 1;
	return i;
}

/* What one run of the transmit program must do. */
struct mpick {
	struct mrec *r; /* the record it sends, or fails */
	uint32_t psn, e; /* its PSN; the EV index it goes out on */
	int out; /* a packet is due (built, or failing to build) */
	int fail_build; /* ...and its frame cannot be built */
	int retx, timed_out, hole_lost, retry_failed;
	uint32_t lost_e; /* the EV that lost it (timed_out, hole_lost) */
	int lost_queue; /* ...when a queue had been full lately */
	uint32_t nbad; /* EVs the pick moved to ASSUMED_BAD */
	uint32_t npassed; /* EVs the pick passed by for silence */
	uint32_t wait_ns; /* a timeout resend: the timeout it waited out */
	int silent_set; /* ev_silent_ns[e] takes this run's clock */
	uint32_t strikes; /* what health_strikes asked when it left */
	uint64_t prev_tx_ns;
	int cq_full; /* held back: the send CQ has no room */
};

/* tx_load_payload: a region of the QP's PD, the bytes inside it. */
static int builds(const struct mq *q, const struct mrec *r)
{
	const struct mwqe *w = &q->wqe[r->wqe % MRC_SQ_DEPTH];

	if (!r->len)
		return 1;
	return w->lkey == MR_RKEY && r->laddr <= MRC_MR_CHUNK &&
	       r->len <= MRC_MR_CHUNK - r->laddr;
}

/*
 * The pick: a queued resend first (skipping PSNs delivered meanwhile), else
 * the next piece of the oldest unsent WQE within the window, else una once
 * its ACK timeout passed: a retry, which blames its EV unless it never
 * left, and fails the WQE once retry_linear + retry_exp are spent. Only
 * timeout QPs have a timeout that passes: theirs is 1 ns, doubled after
 * retry_linear retries, and runs are microseconds apart.
 */
static void pick(struct mq *q, int skb, struct mpick *p)
{
	struct mrec *r = NULL;
	uint32_t k, i, avoid;
	char why[160];
	int kept;

	memset(p, 0, sizeof(*p));
	if (q->state != MRC_QPS_RTS)
		return;
	/* Back-pressure: no room in the send CQ, nothing runs. */
	if (scq_full(q)) {
		p->cq_full = 1;
		return;
	}
	for (k = 0; k < q->nev && m_has(&q->cur.ev_denied, k); k++)
		;
	if (k == q->nev)
		return; /* every EV DENIED */
	for (k = 0; k < 8 && q->retx_head != q->retx_tail; k++) {
		uint32_t x = q->retx[q->retx_head++ % MRC_RETX_Q];
		struct mrec *y = &q->rec[x % MRC_TX_RING];
		int found;

		/* Delivered while it waited: the slot is no longer x's. */
		if (!in_flight(q, x))
			continue;
		found = !!(y->flags & MRC_REC_INFLIGHT);

		if (found) {
			if (y->psn != x) {
				snprintf(
					why, sizeof(why),
					"QP %u: PSN %u queued for resend, its slot holds %u",
					q->qpn, x, y->psn);
				violation(NULL, why);
			}
			p->retx = 1;
			p->hole_lost = !!(y->flags & MRC_REC_LOST);
			p->lost_e = y->ev_idx;
			p->lost_queue = congested_lately(q, y->tx_ns);
		}
		y->flags &= (uint8_t) ~(MRC_REC_RETX_Q | MRC_REC_LOST);
		if (found) {
			p->psn = x;
			r = y;
			break;
		}
	}
	if (!r && q->sq_head != q->tail && nflight(q) < q->window) {
		struct mwqe *w = &q->wqe[q->sq_head % MRC_SQ_DEPTH];
		uint32_t left = w->len - q->sq_off;

		p->psn = q->next;
		q->next = psn_add(q->next, 1);
		if (!q->sq_off && w->opcode == MRC_WR_RDMA_WRITE_WITH_IMM)
			q->wimm++;
		r = &q->rec[p->psn % MRC_TX_RING];
		r->psn = p->psn;
		r->len = left < q->mtu ? left : q->mtu;
		r->raddr = w->raddr + q->sq_off;
		r->laddr = w->laddr + q->sq_off;
		r->wqe = q->sq_head;
		r->tries = 0;
		r->timeouts = 0;
		r->left = 0;
		r->flags = MRC_REC_INFLIGHT;
		q->sq_off += r->len;
		if (q->sq_off >= w->len) {
			r->flags |= MRC_REC_LAST;
			w->last_psn = p->psn;
			q->sq_head++;
			q->sq_off = 0;
		}
		q->sent_psns++;
	} else if (!r) {
		if (q->una == q->next)
			return;
		r = &q->rec[q->una % MRC_TX_RING];
		if ((r->flags & (MRC_REC_INFLIGHT | MRC_REC_RETX_Q)) !=
		    MRC_REC_INFLIGHT)
			return;
		if (r->flags & MRC_REC_NACKED) {
			/* Due now: no timeout, no verdict. */
			p->psn = q->una;
			p->retx = 1;
			goto spray;
		}
		if (!q->fast)
			return;
		k = r->timeouts < q->retry_linear ?
			    0 :
			    r->timeouts - q->retry_linear + 1;
		p->wait_ns = 1u << (k > 30 ? 30 : k);
		p->psn = q->una;
		if (!(r->flags & MRC_REC_UNSENT) && !q->cq_stalled) {
			p->timed_out = 1;
			p->lost_e = r->ev_idx;
			p->lost_queue = congested_lately(q, r->tx_ns);
			if (!congested_lately(q, r->tx_ns) &&
			    q->ev_acked_ns[r->ev_idx & 63] <= r->tx_ns &&
			    q->acked_tx_ns > r->tx_ns + 2ull * q->reorder_ns +
						     q->cur.rtt_hi_ns)
				p->nbad += (uint32_t)blame(q, r->ev_idx);
		}
		if (r->timeouts >= q->retry_linear + q->retry_exp &&
		    q->retry_exp != MRC_RETRY_INFINITE) {
			p->retry_failed = 1;
			p->r = r;
			return;
		}
		if (r->timeouts < 255)
			r->timeouts++;
		p->retx = 1;
	}
spray:
	/* Spray; an EV silent while later packets got through is passed
	 * by for a timeout (at least twice the silence margin), and dead if
	 * silent again with nothing of its own delivered since; passed by
	 * and in turn all the same (too few warm): no verdict. */
	avoid = p->retx ? r->ev_idx : MRC_QP_EVS;
	i = next_ev(q, avoid);
	if (i >= MRC_QP_EVS)
		return; /* cannot be: not every EV is DENIED */
	if (silent_dead(q, i)) {
		if (!m_has(&q->cur.ev_cool_silent, i)) {
			uint64_t m = 2ull *
				     (2ull * q->reorder_ns + q->cur.rtt_hi_ns),
				 until = q->cur.ev_silent_ns[i] +
					 (q->cur.timeout_ns > m ?
						  q->cur.timeout_ns :
						  m);

			m_set(&q->cur.ev_cool_silent, i);
			m_set(&q->cur.ev_cool, i);
			if (until > q->cur.ev_cool_ns[i])
				q->cur.ev_cool_ns[i] = until;
			p->npassed++;
			i = next_ev(q, avoid);
		} else if (!m_has(&q->cur.ev_cool, i) &&
			   blame_kept(q, i, &kept)) {
			p->nbad++;
			if (!kept)
				i = next_ev(q, avoid);
		}
	}
	/* The silence count and strike record follow once the send time is
	 * known (silent_sent). */
	p->silent_set = !q->cur.ev_silent_ns[i];
	p->strikes = strikes(q);
	p->prev_tx_ns = r->tx_ns;
	r->ev_idx = (uint8_t)i;
	r->ev = (uint16_t)(EV0 + i);
	r->port = (uint8_t)(i % NPORT);
	if (r->tries < 255)
		r->tries++;
	r->cpu = (uint8_t)sched_getcpu();
	q->sent_n++;
	if (p->retx)
		q->sent_retx_n++;
	if (q->sent_n > MRC_SENT_SPAN) {
		q->sent_n >>= 1;
		q->sent_retx_n >>= 1;
	}
	r->flags &= (uint8_t) ~(MRC_REC_UNSENT | MRC_REC_NACKED);
	if (skb)
		r->flags |= MRC_REC_SKB;
	else
		r->flags &= (uint8_t)~MRC_REC_SKB;
	p->r = r;
	p->e = i;
	p->out = 1;
	p->fail_build = !builds(q, r);
}

/*
 * health.md: the packet p sent at tx_ns on its EV, unanswered yet. The
 * first of a silence starts it; a later one counts only a smoothed round
 * trip after the last one counted. The strike record: this send, if it
 * reaches the strikes asked and the record is of an earlier silence or
 * short of them.
 */
static void silent_sent(struct mq *q, const struct mpick *p, uint64_t tx_ns)
{
	struct mrc_qp_tx *c = &q->cur;
	uint32_t e = p->e;

	if (p->silent_set)
		c->ev_silent_ns[e] = tx_ns;
	else if ((uint32_t)tx_ns - c->ev_silent_last[e] < c->srtt_ns)
		return;
	c->ev_silent_last[e] = (uint32_t)tx_ns;
	if (c->ev_silent_n[e] < 255)
		c->ev_silent_n[e]++;
	if (c->ev_silent_n[e] >= p->strikes &&
	    (c->ev_strike_ns[e] < c->ev_silent_ns[e] ||
	     c->ev_strike_n[e] < p->strikes)) {
		c->ev_strike_ns[e] = tx_ns;
		c->ev_strike_n[e] = c->ev_silent_n[e];
	}
}

/* After the run: the counters, the failure, tx_unsend's undoing. */
static void account(struct mq *q, const struct mpick *p, int skb)
{
	struct mrec *r = p->r;

	/* Lost on its EV (timed out after it left, or a SACK hole), whatever
	 * follows: a resend, a failed build, or the WQE failed. */
	if (p->timed_out)
		m_tx[MRC_TX_TIMEOUTS]++;
	if (p->hole_lost) {
		m_tx[MRC_TX_LOST]++;
		st.lost_holes++;
	}
	if (p->timed_out || p->hole_lost)
		q->ev_lost[p->lost_e]++;
	if ((p->timed_out || p->hole_lost) && p->lost_queue)
		q->ev_lost_queue[p->lost_e]++;
	if (p->retry_failed) {
		const struct mwqe *w = &q->wqe[r->wqe % MRC_SQ_DEPTH];
		struct mrc_cqe c = {
			.wr_id = w->wr_id,
			.qpn = q->qpn,
			.seq = q->cqe_seq++,
			.opcode = MRC_WC_RDMA_WRITE,
			.status = MRC_WC_RETRY_EXC_ERR,
		};

		q->state = MRC_QPS_ERR;
		q->err_wqe = r->wqe;
		q->err_frames = below(4);
		m_tx[MRC_TX_EV_BAD] += p->nbad;
		m_tx[MRC_TX_SILENT_PASSED] += p->npassed;
		m_tx[MRC_TX_IDLE]++;
		cq_emit(q->cq, &c, 0, NULL);
		st.retry_fails++;
		/* Lost on its EV only if it ever left (health.md). */
		if (!p->timed_out)
			st.retry_unsent++;
		return;
	}
	if (!p->out) {
		m_tx[p->cq_full ? MRC_TX_CQ_FULL : MRC_TX_IDLE]++;
		return;
	}
	if (p->fail_build) {
		/* tx_unsend: nothing left; a first attempt goes again. */
		r->flags |= MRC_REC_UNSENT;
		if (q->cur.ev_silent_ns[p->e] == r->tx_ns)
			q->cur.ev_silent_ns[p->e] = 0;
		if (q->cur.ev_silent_n[p->e] &&
		    q->cur.ev_silent_last[p->e] == (uint32_t)r->tx_ns)
			q->cur.ev_silent_n[p->e]--;
		if (q->cur.ev_strike_ns[p->e] == r->tx_ns)
			q->cur.ev_strike_ns[p->e] = 0;
		if (r->tries == 1 && !(r->flags & MRC_REC_RETX_Q) &&
		    q->retx_tail - q->retx_head < MRC_RETX_Q) {
			r->flags |= MRC_REC_RETX_Q;
			r->flags &= (uint8_t)~MRC_REC_NACKED;
			push_retx(q, p->psn);
		}
		m_tx[MRC_TX_BUILD_FAILED]++;
		st.unsent++;
		/* What the pick found holds: every change an event. */
		m_tx[MRC_TX_EV_BAD] += p->nbad;
		m_tx[MRC_TX_SILENT_PASSED] += p->npassed;
		return;
	}
	r->left = 1;
	if (p->wait_ns)
		st.timeouts++;
	m_tx[MRC_TX_PACKETS]++;
	m_tx[MRC_TX_BYTES] += r->len;
	m_tx[MRC_TX_EV_BAD] += p->nbad;
	m_tx[MRC_TX_SILENT_PASSED] += p->npassed;
	q->ev_sent[p->e]++;
	if (p->retx) {
		m_tx[MRC_TX_RETX]++;
		q->ev_retx[p->e]++;
		st.resent++;
	}
	if (p->wait_ns && r->timeouts == 255)
		st.saturated++;
	st.sent++;
	if (skb)
		st.tc_sent++;
}

static int tc_run(const void *in, uint32_t len, void *out, uint32_t *out_len)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in, .data_size_in = len,
		    .data_out = out, .data_size_out = *out_len, .repeat = 1);

	if (bpf_prog_test_run_opts(tc_prog, &o))
		return -1;
	*out_len = o.data_size_out;
	return (int)o.retval;
}

/* A doorbell for q, as a UDP socket on lo sends it (abi.h). */
static void lay_doorbell(uint8_t *f, const struct mq *q)
{
	memset(f, 0, DB_LEN);
	f[12] = 0x08; /* IPv4, zero MACs as lo has */
	f[14] = 0x45;
	put16(f + 16, DB_LEN - 14);
	put16(f + 20, 0x4000);
	f[22] = 64;
	f[23] = 17;
	put32(f + 26, 0x7f000001);
	put32(f + 30, 0x7f000001);
	set_ip_csum(f, 14);
	put16(f + 34, 40000);
	put16(f + 36, MRC_DOORBELL_PORT);
	put16(f + 38, DB_LEN - 34);
	put32(f + 42, MRC_DOORBELL_MAGIC);
	memcpy(f + 46, &q->qpn, 4);
	memcpy(f + 50, &q->db_token, 8);
}

/*
 * One run of the transmit program for q, through mrc_xdp_tx or, now and
 * then, a doorbell through mrc_tc_tx: the model says what it must do,
 * the frame and the QP's state say what it did. Returns 1 when a packet
 * was due (sent, or failing to build).
 */
static int send_one(struct mq *q)
{
	static uint8_t in[TX_FRAME], out[TX_FRAME + 64];
	static struct mrc_qp_tx now;
	int skb = tc_prog >= 0 && q->tc_pct && below(100) < q->tc_pct;
	uint32_t out_len = sizeof(out), udp = 34, o, k, e;
	struct mrec *r;
	struct mpick p;
	char why[300];
	int rc, want;

	pick(q, skb, &p);
	r = p.r;
	if (skb) {
		lay_doorbell(in, q);
		rc = tc_run(in, DB_LEN, out, &out_len);
		want = p.out && !p.fail_build ? TC_ACT_REDIRECT : TC_ACT_SHOT;
	} else {
		tx_call_set(tx->bss->tx_call, tx->bss->tx_list, q->qpn, 0);
		rc = xdp_run(bpf_program__fd(tx->progs.mrc_xdp_tx), in,
			     sizeof(in), out, &out_len);
		want = p.out && !p.fail_build ? XDP_REDIRECT : XDP_DROP;
	}
	if (rc != want) {
		snprintf(why, sizeof(why),
			 "QP %u: %s verdict %d, the model says %s (PSN %u%s)",
			 q->qpn, skb ? "doorbell" : "transmit", rc,
			 p.retry_failed ? "nothing: out of retries" :
			 !p.out		? "nothing" :
			 p.fail_build	? "a frame that fails to build" :
					  "a packet",
			 p.psn, p.wait_ns ? ", a timeout" : "");
		violation(NULL, why);
		q->broken = 1;
		return 0;
	}
	if (p.out && !p.fail_build) {
		/* The frame: PSN, flags, echo, EV, payload length. */
		o = udp + 8;
		k = o + 12 + 16 + (out[o] == MRC_OP_WRITE_ONLY_IMM ? 4 : 0);
		e = (uint32_t)get16(out + udp) - EV0;
		if (out_len < k + 16 ||
		    (get32(out + o + 8) & MRC_BTH_PSN_MASK) != p.psn ||
		    !!(out[k + 1] & MRC_DF_RETX) != p.retx ||
		    !!(out[k + 1] & MRC_DF_LAST) !=
			    !!(r->flags & MRC_REC_LAST) ||
		    get32(out + k + 12) != mrc_echo(q->key, p.psn) ||
		    e != p.e || get32(out + o + 24) != r->len) {
			snprintf(
				why, sizeof(why),
				"QP %u: %s PSN %u flags 0x%x EV %u len %u, the model: PSN %u %s%s on EV %u, len %u",
				q->qpn, skb ? "doorbell sent" : "sent",
				get32(out + o + 8) & MRC_BTH_PSN_MASK,
				out[k + 1], e, get32(out + o + 24), p.psn,
				p.retx ? "resent" : "new",
				p.wait_ns ? " (timeout)" : "", p.e, r->len);
			violation(NULL, why);
			q->broken = 1;
			return 0;
		}
	}
	if (read_qp(q->qpn, &now)) {
		violation(NULL, "mrc_qp_tx lookup failed");
		return 0;
	}
	/* The time is the program's: read; later than the last, and for a
	 * timeout later by the timeout at least. */
	if (p.out) {
		r->tx_ns = now.rec[p.psn % MRC_TX_RING].tx_ns;
		if (r->tx_ns <= p.prev_tx_ns ||
		    (p.wait_ns && r->tx_ns - p.prev_tx_ns < p.wait_ns)) {
			snprintf(
				why, sizeof(why),
				"QP %u: PSN %u sent at %llu ns, before %llu + its timeout %u",
				q->qpn, p.psn, (unsigned long long)r->tx_ns,
				(unsigned long long)p.prev_tx_ns, p.wait_ns);
			violation(NULL, why);
		}
		silent_sent(q, &p, r->tx_ns);
	}
	account(q, &p, skb);
	check_read(q, &now, NULL,
		   skb ? "after a doorbell" : "after a transmit run");
	check_sq(q, NULL);
	cq_step(NULL);
	return p.out;
}

static int share_maps(struct bpf_object *obj, struct bpf_object *from)
{
	struct bpf_map *m, *same;

	bpf_object__for_each_map(m, obj)
	{
		if (bpf_map__is_internal(m))
			continue;
		same = bpf_object__find_map_by_name(from, bpf_map__name(m));
		if (!same || bpf_map__reuse_fd(m, bpf_map__fd(same)))
			return -1;
	}
	return 0;
}

static int zero_percpu(struct bpf_map *m, uint32_t n)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t zero[ncpu > 0 ? ncpu : 1];
	uint32_t k;

	memset(zero, 0, sizeof(zero));
	for (k = 0; k < n; k++)
		if (bpf_map_update_elem(bpf_map__fd(m), &k, zero, BPF_ANY))
			return -1;
	return 0;
}

/* Each EV's counters of q against the model's. */
static void check_ev(struct mq *q)
{
	char why[300];
	uint32_t e;

	for (e = 0; e < q->nev; e++) {
		struct mrc_ev_stats es;
		uint32_t key = q->qpn * MRC_QP_EVS + e;

		if (bpf_map_lookup_elem(bpf_map__fd(rx->maps.mrc_ev_stats),
					&key, &es))
			continue;
		if (es.sent != q->ev_sent[e] || es.retx != q->ev_retx[e] ||
		    es.acked != q->ev_acked[e] || es.lost != q->ev_lost[e] ||
		    es.rtt_samples != q->ev_samples[e] ||
		    es.trimmed != q->ev_trimmed[e] ||
		    es.ecn_ce != q->ev_ecn[e] ||
		    es.lost_queue != q->ev_lost_queue[e]) {
			snprintf(
				why, sizeof(why),
				"QP %u EV %u: sent %llu retx %llu acked %llu lost %llu samples %llu trimmed %u ce %llu lost_queue %llu; the model %llu %llu %llu %llu %llu %llu %llu %llu",
				q->qpn, e, (unsigned long long)es.sent,
				(unsigned long long)es.retx,
				(unsigned long long)es.acked,
				(unsigned long long)es.lost,
				(unsigned long long)es.rtt_samples, es.trimmed,
				(unsigned long long)es.ecn_ce,
				(unsigned long long)es.lost_queue,
				(unsigned long long)q->ev_sent[e],
				(unsigned long long)q->ev_retx[e],
				(unsigned long long)q->ev_acked[e],
				(unsigned long long)q->ev_lost[e],
				(unsigned long long)q->ev_samples[e],
				(unsigned long long)q->ev_trimmed[e],
				(unsigned long long)q->ev_ecn[e],
				(unsigned long long)q->ev_lost_queue[e]);
			violation(NULL, why);
			q->ev_sent[e] = es.sent;
			q->ev_retx[e] = es.retx;
			q->ev_acked[e] = es.acked;
			q->ev_lost[e] = es.lost;
			q->ev_samples[e] = es.rtt_samples;
			q->ev_trimmed[e] = es.trimmed;
			q->ev_ecn[e] = es.ecn_ce;
			q->ev_lost_queue[e] = es.lost_queue;
		}
	}
}

/*
 * A new QP in slot q: RTS, nothing sent, a fresh key and shape. A third
 * are timeout QPs (timeout_ns 1, reorder_ns 0: deterministic, see pick());
 * some send part of their packets by doorbell, some post WQEs their frames
 * cannot be built from; each completes on one of the CQs.
 */
static int make_qp(struct mq *q)
{
	static const uint32_t mtus[] = { 64, 256, 512, 1024 };
	static const uint32_t reorder[] = { 0, 1000, 500000, 0xffffffffu };
	static const uint32_t cq_pick[10] = { CQ_BIG,	CQ_BIG,	   CQ_BIG,
					      CQ_BIG,	CQ_SHARED, CQ_SHARED,
					      CQ_OWN,	CQ_OWN,	   CQ_NONE,
					      CQ_SHARED };
	static struct mrc_qp_tx qt;
	struct mrc_sq *sq = q->sq;
	uint32_t i, key = q->qpn, qpn = q->qpn, peer = q->peer, slot;
	uint32_t old_key = q->key;
	uint64_t wr_id = q->next_wr_id;

	slot = (uint32_t)(q - qps);
	if (q->nev && !q->broken) /* the last one's counters, complete */
		check_ev(q);
	memset(q, 0, sizeof(*q));
	q->qpn = qpn;
	q->peer = peer;
	q->sq = sq;
	q->next_wr_id = wr_id;
	q->old_key = old_key;
	q->key = (uint32_t)rnd();
	q->state = MRC_QPS_RTS;
	q->window = chance(50) ? MRC_RX_WINDOW_MAX : 8 + below(249);
	q->mtu = mtus[below(4)];
	/* Mostly a few EVs, where rules meet often; up to all of them, over
	 * the mask's words, otherwise. */
	q->nev = chance(70) ? 1 + below(8) : 1 + below(MRC_QP_EVS);
	q->reorder_ns = reorder[below(4)];
	q->fatal_per_mille = chance(50) ? 0 : 1 + below(3);
	q->budget = 500 + below(20000);
	q->una = q->next = chance(30) ?
				   psn_add(MRC_BTH_PSN_MASK, -(int)below(600)) :
				   (uint32_t)rnd() & MRC_BTH_PSN_MASK;
	q->fast = chance(35);
	if (q->fast) {
		st.fast_qps++;
		/* The backoff exponent stays 0 for the first retry_linear
		 * retries and reaches retry_exp + 1 at most: waits of 1 to
		 * 16 ns. Retrying for ever, it stays 0 throughout. */
		q->retry_exp = chance_in(8) ? MRC_RETRY_INFINITE : below(4);
		q->retry_linear = q->retry_exp == MRC_RETRY_INFINITE ?
					  256 + below(100) :
					  1 + below(12);
		q->reorder_ns = 0;
		q->budget = 200 + below(4000);
		/* A small window fills, and then every run is a timeout. */
		if (chance(70))
			q->window = 4 + below(29);
	} else {
		q->retry_linear = 7;
		q->retry_exp = 7;
	}
	if (det)
		q->reorder_ns = 0;
	q->tc_pct = tc_prog >= 0 && chance(40) ? (chance(50) ? 20 : 70) : 0;
	q->bad_pct = chance(30) ? 1 + below(6) : 0;
	q->cq = cq_pick[below(10)];
	if (q->cq == CQ_OWN)
		q->cq += slot;
	q->db_token = rnd() | 1;
	for (i = 0; i < MRC_TX_RING; i++)
		q->rec[i].psn = psn_add(q->una, (int)i - (int)(q->una % 512));
	for (i = 0; i < MRC_TX_RING; i++) /* slot i: the PSN it will hold */
		if (q->rec[i].psn % MRC_TX_RING != i)
			return -1;

	memset(&qt, 0, sizeof(qt));
	qt.state = MRC_QPS_RTS;
	qt.peer_qpn = q->peer;
	qt.send_cq = q->cq;
	qt.window = q->window;
	qt.mtu = q->mtu;
	qt.nev = q->nev;
	/* Plain QPs: no timeouts, every resend comes from what an ACK said. */
	qt.timeout_ns = q->fast ? 1 : 1000000000000ull;
	qt.retry_linear = q->retry_linear;
	qt.retry_exp = q->retry_exp;
	qt.ev_min_active = 1;
	qt.reorder_ns = q->reorder_ns;
	qt.echo_key = q->key;
	qt.db_token = q->db_token;
	qt.next_psn = qt.una_psn = q->una;
	for (i = 0; i < q->nev; i++) {
		qt.ev[i] = (uint16_t)(EV0 + i);
		qt.ev_port[i] = (uint8_t)(i % NPORT);
		m_set(&qt.port_evs[i % NPORT], i);
		qt.ev_state[i] = MRC_EV_GOOD;
	}
	for (i = 0; i < NPORT; i++)
		put32(qt.peer_addr[i], 0xc6120202);
	for (i = 0; i < q->nev; i++)
		m_set(&qt.ev_use, i);
	for (i = 0; i < MRC_QP_EVS; i++) {
		struct mrc_ev_stats es = {};
		uint32_t ek = q->qpn * MRC_QP_EVS + i;

		if (bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_ev_stats), &ek,
					&es, BPF_ANY))
			return -1;
	}
	memset(sq, 0, sizeof(*sq));
	if (bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_qp_tx), &key, &qt,
				BPF_ANY))
		return -1;
	st.qps_made++;
	return read_qp(q->qpn, &q->cur);
}

/*
 * A key or address the QP may not send from (tx_load_payload). A record
 * keeps the address it was picked with, so one past the region's end can
 * never be sent: only for a QP whose retries run out.
 */
static void spoil(const struct mq *q, struct mrc_wqe *w, struct mwqe *m)
{
	int ends = q->fast && q->retry_exp != MRC_RETRY_INFINITE && w->len;

	switch (below(ends ? 3 : 2)) {
	case 0: /* the region's index, not its key */
		w->lkey = MR_RKEY ^ (1u << (MRC_RKEY_INDEX_BITS + below(22)));
		break;
	case 1: /* another protection domain's region */
		w->lkey = MR2_RKEY;
		break;
	default: /* running past the region's end */
		w->laddr = MRC_MR_CHUNK - w->len + 1 + below(64);
		m->laddr = w->laddr;
	}
	m->lkey = w->lkey;
}

/* Post WQEs while the send queue has room. */
static void post(struct mq *q)
{
	uint32_t n = 1 + below(16);

	while (n-- && q->tail - q->sq_done < MRC_SQ_DEPTH) {
		struct mrc_wqe *w = &q->sq->wqe[q->tail % MRC_SQ_DEPTH];
		struct mwqe *m = &q->wqe[q->tail % MRC_SQ_DEPTH];
		uint32_t len;

		switch (below(5)) {
		case 0:
			len = 0;
			break;
		case 1:
			len = 1 + below(q->mtu);
			break;
		case 2:
			len = q->mtu * (1 + below(4));
			break;
		default:
			len = 1 + below(q->mtu * 5);
		}
		memset(w, 0, sizeof(*w));
		w->wr_id = q->next_wr_id++;
		w->opcode = chance(25) ? MRC_WR_RDMA_WRITE_WITH_IMM :
					 MRC_WR_RDMA_WRITE;
		w->flags = chance(85) ? MRC_SEND_SIGNALED : 0;
		w->len = len;
		w->lkey = MR_RKEY;
		w->laddr = below(MRC_MR_CHUNK - len);
		w->raddr = rnd();
		w->rkey = (uint32_t)rnd();
		w->imm = (uint32_t)rnd();
		m->wr_id = w->wr_id;
		m->len = len;
		m->opcode = w->opcode;
		m->signaled = !!(w->flags & MRC_SEND_SIGNALED);
		m->raddr = w->raddr;
		m->laddr = w->laddr;
		m->lkey = w->lkey;
		if (q->bad_pct && below(100) < q->bad_pct)
			spoil(q, w, m);
		__atomic_store_n(&q->sq->tail, q->tail + 1, __ATOMIC_RELEASE);
		q->tail++;
	}
}

/*
 * The application rewrites the key of a WQE it posted (the page is its
 * own): spoiled, or mended. A record sent before then may now fail to
 * build on its resend, and one that could not be built may now go.
 */
static void rewrite(struct mq *q)
{
	uint32_t n = q->tail - q->sq_done, i;
	struct mrc_wqe *w;
	struct mwqe *m;

	if (!n)
		return;
	i = (q->sq_done + below(n)) % MRC_SQ_DEPTH;
	if (q->una != q->next && chance(50)) /* the oldest in flight's */
		i = q->rec[q->una % MRC_TX_RING].wqe % MRC_SQ_DEPTH;
	w = &q->sq->wqe[i];
	m = &q->wqe[i];
	if (m->lkey != MR_RKEY)
		w->lkey = MR_RKEY;
	else
		w->lkey = chance(50) ? MR2_RKEY : MR_RKEY ^ (1u << 20);
	m->lkey = w->lkey;
}

/* Keep PSNs in flight: post and send up to a window. */
static void top_up(struct mq *q)
{
	uint32_t n = 1 + below(8);

	if (q->sent_psns < q->budget)
		post(q);
	while (n--)
		if (!send_one(q))
			break;
}

/* One frame for q: through the model and the program, compared. */
static void one(struct frame *in)
{
	static uint8_t out[FRAME_MAX + 256];
	uint32_t out_len = sizeof(out), una_before = 0, next_before = 0;
	struct verdict v;
	struct mq *q;
	char why[300];
	int rc, i;

	model(in->b, in->len, &v);
	q = v.q;
	if (q) {
		una_before = q->cur.una_psn;
		next_before = q->cur.next_psn;
	}
	if (v.drop)
		m_drop[v.drop]++;
	st.by_drop[v.drop]++;
	/* Error completions count as send completions here too. */
	for (i = 0; i < v.ndue; i++)
		cq_emit(q->cq, &v.due[i], 1, in);

	rc = xdp_run(bpf_program__fd(rx->progs.mrc_xdp_rx), in->b, in->len, out,
		     &out_len);
	st.frames[in->cls]++;
	st.verdict[in->cls][rc >= 0 && rc <= 4 ? rc : 0]++;
	if (v.taken)
		st.taken[in->cls]++;
	if (v.una_moved)
		st.una_moves++;
	st.blamed += (uint64_t)__builtin_popcount(v.blamed);
	if (rc != v.action) {
		snprintf(why, sizeof(why),
			 "verdict %d, the model says %d (drop %s)", rc,
			 v.action, drop_name[v.drop]);
		violation(in, why);
	}
	if (v.drop || v.ndue) {
		int d = v.drop ? v.drop : MRC_DROP_CQ_OVERFLOW;
		uint64_t got = percpu_sum(rx->maps.mrc_drop, (uint32_t)d);

		if (got != m_drop[d]) {
			snprintf(why, sizeof(why),
				 "drop %s counted %llu, the model %llu",
				 drop_name[d], (unsigned long long)got,
				 (unsigned long long)m_drop[d]);
			violation(in, why);
			m_drop[d] = got;
		}
	}
	/* Every QP: a frame for one must not touch the other. */
	for (i = 0; i < NQP; i++) {
		struct mq *x = &qps[i];

		if (check_qp(x, in,
			     x == q ? "after the frame" : "another QP's frame"))
			continue;
		if (x != q)
			continue;
		if (psn_diff(x->cur.una_psn, una_before) < 0 ||
		    psn_diff(x->cur.una_psn, next_before) > 0)
			violation(in, "una went back or past next");
	}
	cq_step(in);
	if (q)
		check_sq(q, in);
}

/* After a batch: each drop reason, the send counters, each EV's. */
static void check_counters(void)
{
	static const int txc[] = {
		MRC_TX_PACKETS, MRC_TX_BYTES,	      MRC_TX_RETX,
		MRC_TX_IDLE,	MRC_TX_BUILD_FAILED,  MRC_TX_ACKS,
		MRC_TX_NACKS,	MRC_TX_COMPLETIONS,   MRC_TX_LOST,
		MRC_TX_EV_BAD,	MRC_TX_TIMEOUTS,      MRC_TX_RETX_Q_FULL,
		MRC_TX_OVERDUE, MRC_TX_SILENT_PASSED, MRC_TX_SILENT_DELIVERED
	};
	char why[300];
	uint32_t i;

	for (i = 1; i < MRC_DROP_MAX; i++) {
		uint64_t got = percpu_sum(rx->maps.mrc_drop, i);

		if (got != m_drop[i]) {
			snprintf(why, sizeof(why),
				 "drop %s counted %llu, the model %llu",
				 drop_name[i], (unsigned long long)got,
				 (unsigned long long)m_drop[i]);
			violation(NULL, why);
			m_drop[i] = got;
		}
	}
	for (i = 0; i < sizeof(txc) / sizeof(txc[0]); i++) {
		uint64_t got =
			percpu_sum(rx->maps.mrc_tx_stats, (uint32_t)txc[i]);

		if (got != m_tx[txc[i]]) {
			snprintf(why, sizeof(why),
				 "send counter %s is %llu, the model's %llu",
				 tx_name[txc[i]], (unsigned long long)got,
				 (unsigned long long)m_tx[txc[i]]);
			violation(NULL, why);
			m_tx[txc[i]] = got;
		}
	}
	for (i = 0; i < NQP; i++)
		check_ev(&qps[i]);
}

/*
 * The doorbell program, from the object the build leaves beside the
 * tests (build/bpf/mrc_tc_tx.bpf.o; -t names another): loaded with the
 * receive program's maps. Not there: the tc path is not covered (said).
 */
static const char *load_tc(const char *path, char *buf, size_t n)
{
	struct bpf_program *pg;
	char *slash;
	ssize_t k;

	if (!path) {
		k = readlink("/proc/self/exe", buf, n - 32);
		if (k <= 0)
			return NULL;
		buf[k] = 0;
		slash = strrchr(buf, '/');
		if (!slash)
			return NULL;
		strcpy(slash, "/../bpf/mrc_tc_tx.bpf.o");
		path = buf;
	}
	if (access(path, R_OK))
		return path;
	tc_obj = bpf_object__open_file(path, NULL);
	if (!tc_obj || share_maps(tc_obj, rx->obj) || bpf_object__load(tc_obj))
		return path;
	pg = bpf_object__find_program_by_name(tc_obj, "mrc_tc_tx");
	if (pg)
		tc_prog = bpf_program__fd(pg);
	return path;
}

static int add_cq(uint32_t idx, uint32_t bytes)
{
	uint32_t key = idx;
	int fd;

	fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "mrc_cq_fuzz", 0, 0, bytes,
			    NULL);
	if (fd < 0 || bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_cq), &key,
					  &fd, BPF_ANY))
		return -1;
	cqs[idx].rb = ring_buffer__new(fd, on_cqe, NULL, NULL);
	cqs[idx].cap = (bytes - 1) / (uint32_t)CQE_BYTES;
	cqs[idx].bytes = bytes;
	close(fd);
	return cqs[idx].rb ? 0 : -1;
}

static const char *tc_path;
static char tc_buf[4096];

static int setup(const char *tc_arg)
{
	LIBBPF_OPTS(bpf_map_create_opts, mm, .map_flags = BPF_F_MMAPABLE);
	LIBBPF_OPTS(bpf_map_create_opts, inner,
		    .map_flags = BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	struct mrc_port port = { .ifindex = 1,
				 .smac = { 2, 0, 0, 0, 0, 0xb },
				 .dmac = { 2, 0, 0, 0, 0, 0xa } };
	struct mrc_mr_info mr = { .rkey = MR_RKEY,
				  .pd = PD,
				  .va = 0,
				  .len = MRC_MR_CHUNK,
				  .access = 1 };
	static struct mrc_qp_rx own;
	static struct mrc_qp_tx other;
	uint32_t i, idx = MR_IDX, key;
	int fd;

	rx = mrc_xdp_rx__open_and_load();
	if (!rx) {
		fprintf(stderr, "fuzz_ack: loading mrc_xdp_rx: %s\n",
			strerror(errno));
		return -1;
	}
	tx = mrc_xdp_tx__open();
	if (!tx || share_maps(tx->obj, rx->obj) || mrc_xdp_tx__load(tx)) {
		fprintf(stderr, "fuzz_ack: loading mrc_xdp_tx: %s\n",
			strerror(errno));
		return -1;
	}
	tc_path = load_tc(tc_arg, tc_buf, sizeof(tc_buf));
	if (tc_arg && tc_prog < 0) {
		fprintf(stderr, "fuzz_ack: loading %s: %s\n", tc_arg,
			strerror(errno));
		return -1;
	}
	put32(port.saddr, 0xc6120102);
	for (i = 0; i < NPORT; i++) {
		/* lo, with no egress program */
		struct bpf_devmap_val lo = { .ifindex = 1 };

		if (bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_port), &i,
					&port, BPF_ANY) ||
		    bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_tx_port), &i,
					&lo, BPF_ANY))
			return -1;
	}
	/* The local region the WQEs send from, and one of another PD. */
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "mrc_mr_fuzz", 4, MRC_MR_ELEM,
			    1, &inner);
	if (fd < 0 ||
	    bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_mr_info), &idx, &mr,
				BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_mr), &idx, &fd,
				BPF_ANY))
		return -1;
	idx = MR2_IDX;
	mr.rkey = MR2_RKEY;
	mr.pd = PD2;
	if (bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_mr_info), &idx, &mr,
				BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_mr), &idx, &fd,
				BPF_ANY))
		return -1;
	close(fd);
	if (add_cq(CQ_BIG, 1u << 20) || add_cq(CQ_SHARED, SMALL_RING))
		return -1;
	for (i = 0; i < NQP; i++)
		if (add_cq(CQ_OWN + i, SMALL_RING))
			return -1;
	own.pd = PD; /* the QPs' receive halves: their PD, nothing else */
	for (i = 0; i < NQP; i++) {
		struct mq *q = &qps[i];

		q->qpn = QPN0 + i;
		q->peer = PEER0 + i;
		key = q->qpn;
		fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "mrc_sq_fuzz", 4,
				    sizeof(struct mrc_sq), 1, &mm);
		if (fd < 0 ||
		    bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_sq), &key, &fd,
					BPF_ANY) ||
		    bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_qp), &key,
					&own, BPF_ANY))
			return -1;
		q->sq = mmap(NULL, sizeof(*q->sq), PROT_READ | PROT_WRITE,
			     MAP_SHARED, fd, 0);
		close(fd);
		if (q->sq == MAP_FAILED)
			return -1;
		q->next_wr_id = 1000000ull * (i + 1);
		if (make_qp(q))
			return -1;
	}
	/* A QP that sends but has no send queue: its ACKs are nobody's. */
	other.state = MRC_QPS_RTS;
	key = NOSQ_QPN;
	if (bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_qp_tx), &key, &other,
				BPF_ANY))
		return -1;
	return zero_percpu(rx->maps.mrc_drop, MRC_DROP_MAX) ||
	       zero_percpu(rx->maps.mrc_tx_stats, MRC_TX_MAX);
}

static void report(double secs, double cpu)
{
	static const char *const act[5] = { "aborted", "drop", "pass", "tx",
					    "redirect" };
	uint64_t total = 0;
	int c, a, d;

	for (c = 0; c < C_MAX; c++)
		total += st.frames[c];
	printf("fuzz_ack: %llu frames in %.1f s (%.0f frames/s, %.1f s CPU), seed %llu\n",
	       (unsigned long long)total, secs, (double)total / secs, cpu,
	       (unsigned long long)seed);
	if (!quiet) {
		for (c = 0; c < C_MAX; c++) {
			printf("  %-9s %10llu: taken %llu,", cls_name[c],
			       (unsigned long long)st.frames[c],
			       (unsigned long long)st.taken[c]);
			for (a = 1; a < 3; a++)
				printf(" %s %llu", act[a],
				       (unsigned long long)st.verdict[c][a]);
			printf("\n");
		}
		printf("  QPs made %llu (timeout QPs %llu); PSNs sent %llu, resent %llu; una moved %llu times; send completions %llu (errors %llu); EVs blamed %llu, passed by for silence %llu\n",
		       (unsigned long long)st.qps_made,
		       (unsigned long long)st.fast_qps,
		       (unsigned long long)st.sent,
		       (unsigned long long)st.resent,
		       (unsigned long long)st.una_moves,
		       (unsigned long long)st.completions,
		       (unsigned long long)st.errors,
		       (unsigned long long)st.blamed,
		       (unsigned long long)m_tx[MRC_TX_SILENT_PASSED]);
		printf("  timeouts resent %llu (at 255 timeouts %llu); WQEs failed by retries %llu (never sent %llu); frames failed to build %llu; sent by doorbell %llu\n",
		       (unsigned long long)st.timeouts,
		       (unsigned long long)st.saturated,
		       (unsigned long long)st.retry_fails,
		       (unsigned long long)st.retry_unsent,
		       (unsigned long long)st.unsent,
		       (unsigned long long)st.tc_sent);
		printf("  send CQs: read %llu completions; CQ-full events %llu, no ring %llu; rings held back %llu times\n",
		       (unsigned long long)st.cq_drained,
		       (unsigned long long)st.cq_full,
		       (unsigned long long)st.cq_none,
		       (unsigned long long)st.cq_holds);
		printf("  drops by reason:");
		for (d = 1; d < MRC_DROP_MAX; d++)
			if (st.by_drop[d])
				printf(" %s %llu", drop_name[d],
				       (unsigned long long)st.by_drop[d]);
		printf("\n");
		printf("  doorbell path: %s%s\n", tc_path ? tc_path : "?",
		       tc_prog >= 0 ?
			       "" :
			       " not loaded: MRC_REC_SKB records not covered");
	}
	printf("  violations: %llu\n", (unsigned long long)st.violations);
}

int main(int argc, char **argv)
{
	static struct frame fr;
	long frames = 1000000, done = 0;
	const char *tc_arg = NULL;
	int nb = 256, opt, k, i;
	struct rusage ru;
	double t0;

	seed = (uint64_t)time(NULL);
	while ((opt = getopt(argc, argv, "n:s:b:qdt:")) != -1) {
		switch (opt) {
		case 'n':
			frames = strtol(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'b':
			nb = atoi(optarg);
			break;
		case 'q':
			quiet = 1;
			break;
		case 'd':
			det = 1;
			break;
		case 't':
			tc_arg = optarg;
			break;
		default:
			fprintf(stderr,
				"usage: fuzz_ack [-n FRAMES] [-s SEED] [-b BATCH] [-q] [-d] [-t TC_OBJ]\n");
			return 2;
		}
	}
	if (frames < 1 || nb < 1) {
		fprintf(stderr, "fuzz_ack: -n and -b must be >= 1\n");
		return 2;
	}
	if (geteuid() != 0) {
		printf("SKIP: fuzz_ack needs root (BPF)\n");
		return 77;
	}
	rng_state = seed * 0x9e3779b97f4a7c15ull | 1;
	pin_to_this_cpu();
	if (setup(tc_arg)) {
		printf("SKIP: fuzz_ack: BPF setup failed (%s)\n",
		       strerror(errno));
		return 77;
	}
	t0 = now_s();
	while (done < frames) {
		int n = frames - done < nb ? (int)(frames - done) : nb;

		for (k = 0; k < n; k++) {
			struct mq *q = &qps[below(NQP)];
			unsigned int r;
			int cls;

			for (i = 0; i < NQP; i++) /* the model lost them */
				if (qps[i].broken)
					make_qp(&qps[i]);
			if (q->state == MRC_QPS_ERR && !q->err_frames--) {
				make_qp(q);
			} else if (q->state == MRC_QPS_RTS &&
				   q->sent_psns >= q->budget &&
				   q->sq_done == q->tail) {
				make_qp(q); /* done: all of it completed */
			}
			if (q->state != MRC_QPS_RTS) {
				if (chance(20))
					send_one(q); /* ERR: sends nothing */
			} else if (q->fast ? chance(60) :
					     nflight(q) < q->window / 4 ||
						     chance(2) ||
						     q->retx_head !=
							     q->retx_tail) {
				top_up(q);
			}
			if (q->bad_pct && chance_in(q->fast ? 30 : 100))
				rewrite(q);
			/* A plain QP waits for ever on a WQE it cannot send:
			 * the application mends it, in a while. */
			if (q->bad_pct && !q->fast && chance_in(8)) {
				uint32_t b = never_left(q), w;

				w = q->rec[b % MRC_TX_RING].wqe % MRC_SQ_DEPTH;
				if (b != q->next)
					q->sq->wqe[w].lkey = q->wqe[w].lkey =
						MR_RKEY;
			}
			/* Now and then a small CQ goes unread for a while. */
			for (i = CQ_SHARED; i < NCQ; i++)
				if (!cqs[i].hold && chance_in(150)) {
					cqs[i].hold = 100 + below(700);
					st.cq_holds++;
				}
			r = below(100);
			cls = r < 45 ? C_VALID :
			      r < 57 ? C_STALE :
			      r < 69 ? C_FORGED :
			      r < 77 ? C_NACK :
				       C_MALFORMED;
			/* A timeout QP's peer goes silent now and then:
			 * nothing it says is news, and retries run out. */
			if (q->silent) {
				q->silent--;
				if (cls == C_VALID || cls == C_NACK ||
				    cls == C_MALFORMED)
					cls = chance(50) ? C_STALE : C_FORGED;
			} else if (q->fast && chance_in(30)) {
				q->silent =
					5 +
					below(q->retry_exp == MRC_RETRY_INFINITE ?
						      150 :
						      60);
			}
			/* Nothing in flight the peer has: no PSN to name but
			 * stale ones. */
			if (cls == C_VALID && !answerable(q))
				cls = C_STALE;
			make_frame(&fr, cls, q);
			one(&fr);
			frame_no++;
		}
		check_counters();
		done += n;
	}
	getrusage(RUSAGE_SELF, &ru);
	report(now_s() - t0,
	       (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	for (i = 0; i < NCQ; i++)
		ring_buffer__free(cqs[i].rb);
	bpf_object__close(tc_obj);
	mrc_xdp_tx__destroy(tx);
	mrc_xdp_rx__destroy(rx);
	return st.violations ? 1 : 0;
}
