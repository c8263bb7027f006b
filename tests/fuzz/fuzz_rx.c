// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzzer of the receive pipeline (bpf/mrc_xdp_rx.bpf.c), through
 * BPF_PROG_TEST_RUN, against a model of what each frame may do written
 * here from docs/wire.md: the model parses every frame itself and says
 * the verdict, the drop reason, the exact frame that goes back (ACK,
 * NACK or probe answer), the bytes placed and the completions due.
 *
 * Frames come in four classes, drawn from a seeded generator:
 *   valid    well-formed WRITE and WRITE_IMM within (or near) the window
 *   hostile  well-formed but for one field chosen to be wrong: rkeys of
 *            another PD or none, addresses at and past the edges, lengths
 *            that lie, PSNs at, past and far past the window, QPs that
 *            do not receive, versions, opcodes, probes, ACKs, IP options
 *   mutated  a valid frame with a few bytes changed, cut or added (its
 *            checksum made right again half of the time)
 *   random   random bytes, half of them behind a valid Ethernet/IP/UDP
 *            header to port 4791
 *
 * After every frame: the verdict, the frame returned and the completion
 * records. After every batch: every byte of every region against the
 * model's copy (nothing changes outside [addr, addr + len) of a fully
 * valid packet), each drop reason's counter, the receive counters, and
 * each QP's receive state (cumulative PSN, received bits, completions).
 * A failure prints the seed, the batch and each frame of the batch in hex.
 *
 *   fuzz_rx [-n FRAMES] [-s SEED] [-b BATCH] [-q]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
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
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "mrc/abi.h"
#include "mrc/drop.h"
#include "mrc/wire.h"
#include "mrc_xdp_rx.skel.h"
#include "model.h"

#define TRIM_DSCP 9
#define FRAME_MAX 3400 /* below what a test run holds linearly (DESIGN.md) */
#define ACK_LEN 68 /* BTH 12 + AETH 4 + AEXT 52 */
#define PROBE_LEN 36 /* BTH 12 + PEXT 24 */

/* --- the device the frames are aimed at -------------------------------------- */

/* The model's view of a QP's receive side. */
struct mqp {
	uint32_t qpn, state, peer, pd, cq, window;
	uint32_t cum, seq;
	uint32_t ack_hi; /* the highest PSN an ACK answered (coalesced ACKs) */
	uint8_t got[MRC_RX_WINDOW_MAX + 1]; /* got[d]: PSN cum + d received */
	uint32_t imm[MRC_RX_WINDOW_MAX + 1], len[MRC_RX_WINDOW_MAX + 1];
	uint8_t flags[MRC_RX_WINDOW_MAX + 1]; /* 1: last, 2: with immediate */
};

static struct mqp qps[] = {
	/* receives, wraps its PSN in the run, completes on CQ 0 */
	{ .qpn = 5,
	  .state = MRC_QPS_RTS,
	  .peer = 77,
	  .pd = 1,
	  .cq = 0,
	  .window = 256,
	  .cum = 0xffffff - 3000 },
	/* a narrow window, a CQ with no ring */
	{ .qpn = 6,
	  .state = MRC_QPS_RTR,
	  .peer = 78,
	  .pd = 1,
	  .cq = 9,
	  .window = 16,
	  .cum = 12345 },
	/* the last QP number, another PD */
	{ .qpn = MRC_MAX_QP - 1,
	  .state = MRC_QPS_RTS,
	  .peer = 79,
	  .pd = 2,
	  .cq = 0,
	  .window = 64,
	  .cum = 7 },
	/* do not receive */
	{ .qpn = 7, .state = MRC_QPS_INIT, .peer = 80, .pd = 1, .cum = 0 },
	{ .qpn = 8, .state = MRC_QPS_ERR, .peer = 81, .pd = 1, .cum = 55 },
};
#define NQP (sizeof(qps) / sizeof(qps[0]))
#define NRECV 3 /* the first three receive */

struct mmr {
	uint32_t idx, rkey, pd, access, head, chunks;
	uint64_t va, len;
	uint8_t *mem; /* the map, mmapped: chunk i at i * MRC_MR_ELEM */
	uint8_t *shadow; /* the model's copy of the chunks, back to back */
};

static struct mmr mrs[] = {
	{ .idx = 3,
	  .rkey = 0x1a2b3u << 10 | 3,
	  .pd = 1,
	  .access = 2,
	  .chunks = 2,
	  .va = 0x7f0000000000ull,
	  .len = 2ull << 20 },
	{ .idx = 4,
	  .rkey = 0x0c0ffu << 10 | 4,
	  .pd = 2,
	  .access = 2,
	  .chunks = 1,
	  .va = 0x7f0000000000ull,
	  .len = 1ull << 20 },
	/* registered 100 bytes into its first page */
	{ .idx = 5,
	  .rkey = 0x5eedu << 10 | 5,
	  .pd = 1,
	  .access = 2,
	  .head = 100,
	  .chunks = 1,
	  .va = 0x10000,
	  .len = 1ull << 20 },
	/* local access only */
	{ .idx = 6,
	  .rkey = 0x6666u << 10 | 6,
	  .pd = 1,
	  .access = 1,
	  .chunks = 1,
	  .va = 0x20000000,
	  .len = 65536 },
	/* small, at the top of the address space, the last index */
	{ .idx = 1023,
	  .rkey = 0x3ffu << 10 | 1023,
	  .pd = 2,
	  .access = 2,
	  .chunks = 1,
	  .va = ~0ull - 8191,
	  .len = 8192 },
};
#define NMR (sizeof(mrs) / sizeof(mrs[0]))

static struct mrc_xdp_rx *skel;
static struct ring_buffer *cq0;
static struct mrc_cqe got_cqe[64];
static int ngot_cqe;

/* The model's counters, to compare with the maps' after every batch. */
static uint64_t m_drop[MRC_DROP_MAX], m_rx[MRC_RX_MAX];

/* --- frames ---------------------------------------------------------------------- */

struct frame {
	uint8_t b[FRAME_MAX + 64];
	uint32_t len;
	int cls;
};

enum { C_VALID, C_HOSTILE, C_MUTATED, C_RANDOM, C_MAX };
static const char *const cls_name[C_MAX] = { "valid", "hostile", "mutated",
					     "random" };

/* What a data frame says, before it is laid out. */
struct wr {
	int v6;
	uint8_t op, dflags, tos, ttl;
	uint16_t sport, dport, ev;
	uint32_t qpn, psn, rkey, len, paylen, imm, msg_len, tx_ts;
	uint64_t va;
	int no_csum, bad_csum, version;
	int ip_opts, ip_frag;
	uint32_t udp_len_delta; /* added to the UDP length (lies) */
	uint32_t trail; /* bytes after the datagram (link padding) */
};

static size_t lay_ip(uint8_t *f, const struct wr *w, size_t *l3)
{
	static const uint8_t mac_a[6] = { 2, 0, 0, 0, 0, 0xa };
	static const uint8_t mac_b[6] = { 2, 0, 0, 0, 0, 0xb };
	size_t o = 14;

	memcpy(f, mac_b, 6);
	memcpy(f + 6, mac_a, 6);
	*l3 = 14;
	if (w->v6) {
		put16(f + 12, 0x86dd);
		memset(f + o, 0, 40);
		f[o] = 0x60 | w->tos >> 4;
		f[o + 1] = (uint8_t)(w->tos << 4) | 0x0b; /* flow label bits */
		f[o + 2] = 0xcd;
		f[o + 3] = 0xef;
		f[o + 6] = 17;
		f[o + 7] = w->ttl;
		inet_pton(AF_INET6, "fd00:1::2", f + o + 8);
		inet_pton(AF_INET6, "fd00:2::2", f + o + 24);
		return o + 40;
	}
	put16(f + 12, 0x0800);
	memset(f + o, 0, 20);
	f[o] = w->ip_opts ? 0x46 : 0x45;
	f[o + 1] = w->tos;
	put16(f + o + 4, 0x4321);
	put16(f + o + 6, w->ip_frag ? 0x2000 : 0x4000);
	f[o + 8] = w->ttl;
	f[o + 9] = 17;
	inet_pton(AF_INET, "198.18.1.2", f + o + 12);
	inet_pton(AF_INET, "198.18.2.2", f + o + 16);
	if (w->ip_opts) {
		memset(f + o + 20, 1, 4); /* NOPs */
		return o + 24;
	}
	return o + 20;
}

/* Fill in the IP lengths and checksums for a datagram of udp_len bytes. */
static void finish_ip(uint8_t *f, size_t l3, int v6, size_t udp,
		      uint32_t udp_len)
{
	if (v6) {
		put16(f + l3 + 4, (uint16_t)udp_len);
	} else {
		put16(f + l3 + 2, (uint16_t)(udp - l3 + udp_len));
		set_ip_csum(f, l3);
	}
}

static void lay_data(struct frame *fr, const struct wr *w)
{
	uint8_t *f = fr->b;
	size_t l3, udp, o;
	uint32_t i, udp_len;

	udp = lay_ip(f, w, &l3);
	o = udp + 8;
	memset(f + udp, 0, 8);
	put16(f + udp, w->sport);
	put16(f + udp + 2, w->dport);
	f[o] = w->op;
	f[o + 1] = 0;
	put16(f + o + 2, 0xffff);
	put32(f + o + 4, w->qpn);
	put32(f + o + 8, w->psn);
	o += 12;
	put32(f + o, (uint32_t)(w->va >> 32));
	put32(f + o + 4, (uint32_t)w->va);
	put32(f + o + 8, w->rkey);
	put32(f + o + 12, w->len);
	o += 16;
	if (w->op == MRC_OP_WRITE_ONLY_IMM) {
		put32(f + o, w->imm);
		o += 4;
	}
	f[o] = (uint8_t)w->version;
	f[o + 1] = w->dflags;
	put16(f + o + 2, w->ev);
	put32(f + o + 4, (uint32_t)rnd());
	put32(f + o + 8, w->msg_len);
	put32(f + o + 12, w->tx_ts);
	o += 16;
	for (i = 0; i < w->paylen; i++)
		f[o + i] = (uint8_t)rnd();
	o += w->paylen;
	udp_len = (uint32_t)(o - udp);
	put16(f + udp + 4, (uint16_t)(udp_len + w->udp_len_delta));
	finish_ip(f, l3, w->v6, udp, udp_len);
	if (!w->no_csum)
		set_udp_csum(f, l3, w->v6, udp, udp_len);
	if (w->bad_csum)
		f[udp + 7] ^= 0x01 << below(8);
	for (i = 0; i < w->trail; i++)
		f[o + i] = (uint8_t)rnd();
	fr->len = (uint32_t)(o + w->trail);
}

static struct mqp *pick_recv_qp(void)
{
	return &qps[below(NRECV)];
}

static struct mmr *mr_of_pd(uint32_t pd)
{
	struct mmr *m;

	do
		m = &mrs[below(NMR)];
	while (m->pd != pd || !(m->access & 2));
	return m;
}

static uint32_t pick_len(void)
{
	switch (below(6)) {
	case 0:
		return 0;
	case 1:
		return 1 + below(8);
	case 2:
		return 2048;
	default:
		return below(3200);
	}
}

/* A fully valid WRITE or WRITE_IMM for a receiving QP, near its window. */
static struct wr valid_wr(void)
{
	struct mqp *q = pick_recv_qp();
	struct mmr *m = mr_of_pd(q->pd);
	struct wr w = {
		.v6 = chance(30),
		.op = chance(40) ? MRC_OP_WRITE_ONLY_IMM : MRC_OP_WRITE_ONLY,
		.dflags = (chance(50) ? MRC_DF_LAST : 0) |
			  (chance(50) ? MRC_DF_ACK_LATER : 0),
		.tos = (uint8_t)(below(64) << 2 | below(4)),
		.ttl = 64,
		.sport = (uint16_t)(49152 + below(16384)),
		.dport = MRC_UDP_PORT,
		.qpn = q->qpn,
		.rkey = m->rkey,
		.imm = (uint32_t)rnd(),
		.msg_len = (uint32_t)rnd() & 0xffff,
		.tx_ts = (uint32_t)rnd(),
		.version = MRC_WIRE_VERSION,
	};
	uint64_t room;

	if ((w.tos >> 2) == TRIM_DSCP)
		w.tos ^= 4;
	w.ev = w.sport;
	switch (below(10)) {
	case 0: /* already delivered */
		w.psn = (q->cum - 1 - below(300)) & MRC_BTH_PSN_MASK;
		break;
	case 1:
	case 2:
	case 3:
	case 4:
		w.psn = q->cum; /* moves cum */
		break;
	default:
		w.psn = (q->cum + below(q->window + 1)) & MRC_BTH_PSN_MASK;
	}
	w.len = w.paylen = pick_len();
	room = m->len - m->head;
	if (w.len > room)
		w.len = w.paylen = (uint32_t)room;
	w.va = m->va + m->head + (rnd() % (room - w.len + 1));
	if (chance(5))
		w.trail = below(40);
	return w;
}

/* A valid WRITE with one thing wrong. */
static struct wr hostile_wr(void)
{
	struct wr w = valid_wr();
	struct mmr *m = &mrs[below(NMR)];
	struct mqp *q = &qps[below(NQP)];

	switch (below(28)) {
	case 0:
		w.rkey ^= 1u << (10 + below(22)); /* right index, wrong key */
		break;
	case 1:
		w.rkey = m->rkey; /* any region: maybe another PD's */
		w.va = m->va + m->head;
		break;
	case 2:
		w.rkey = (uint32_t)rnd();
		break;
	case 3: /* one byte past the end */
		w.rkey = m->rkey;
		w.va = m->va + m->len - w.len + 1;
		break;
	case 4: /* one byte before the start (the head) */
		w.rkey = m->rkey;
		w.va = m->va + m->head - 1;
		break;
	case 5: /* wraps 2^64 */
		w.va = ~0ull - below(4096);
		break;
	case 6:
		w.va = rnd();
		break;
	case 7: /* RETH length above the payload: looks trimmed */
		w.len = w.paylen + 1 + below(5000);
		break;
	case 8: /* RETH length below the payload */
		if (w.paylen)
			w.len = below(w.paylen);
		else
			w.paylen = 1 + below(64);
		break;
	case 9:
		w.len = MRC_MAX_PAYLOAD + 1 + below(1u << 30);
		w.paylen = below(3000);
		break;
	case 10: /* PSN at and past the window's edge */
		w.psn = (qps[0].cum + qps[0].window + below(3)) &
			MRC_BTH_PSN_MASK;
		w.qpn = qps[0].qpn;
		w.rkey = mrs[0].rkey;
		w.va = mrs[0].va;
		w.len = w.paylen = below(64);
		break;
	case 11: /* far past: a ring slot of the window */
		w.psn = (qps[0].cum + MRC_RX_RING * (1 + below(3)) +
			 below(qps[0].window + 1)) &
			MRC_BTH_PSN_MASK;
		w.qpn = qps[0].qpn;
		w.rkey = mrs[0].rkey;
		w.va = mrs[0].va;
		w.len = w.paylen = below(64);
		break;
	case 12:
		w.psn = (uint32_t)rnd() & MRC_BTH_PSN_MASK;
		break;
	case 13:
		w.qpn = q->qpn; /* maybe INIT or ERR */
		break;
	case 14:
		w.qpn = (uint32_t)rnd() & MRC_BTH_PSN_MASK;
		break;
	case 15:
		w.qpn = 2 + below(MRC_MAX_QP - 2); /* mostly nobody's */
		break;
	case 16:
		w.version = (int)below(256);
		break;
	case 17:
		w.op = (uint8_t)rnd();
		break;
	case 18:
		w.no_csum = 1;
		break;
	case 19:
		w.bad_csum = 1;
		break;
	case 20: /* trimmed by a switch */
		w.tos = TRIM_DSCP << 2 | (w.tos & 3);
		w.paylen = below(w.paylen + 1);
		break;
	case 21:
		w.udp_len_delta = 1 + below(5000);
		break;
	case 22:
		w.udp_len_delta = (uint32_t) - (int)(1 + below(60));
		break;
	case 23:
		w.ip_opts = 1;
		break;
	case 24:
		w.ip_frag = 1;
		break;
	case 25:
		w.dport = (uint16_t)rnd();
		break;
	case 26:
		w.qpn = MRC_PROBE_QPN;
		break;
	default:
		w.psn = (qps[0].cum - 1) &
			MRC_BTH_PSN_MASK; /* just delivered */
		w.qpn = qps[0].qpn;
	}
	return w;
}

/* A probe or a probe's answer, an ACK, or mrcd's message, for any QP. */
static void lay_control(struct frame *fr)
{
	struct wr w = valid_wr();
	uint8_t *f = fr->b;
	size_t l3, udp, o;
	uint32_t udp_len, i, body;
	uint8_t op;

	switch (below(4)) {
	case 0:
		op = MRC_OP_PROBE;
		body = 24;
		break;
	case 3:
		op = MRC_OP_CTL;
		body = 20;
		break;
	case 1:
		op = MRC_OP_PROBE_ANSWER;
		body = 24;
		break;
	default:
		op = MRC_OP_ACK;
		body = 56;
	}
	if (chance(30))
		w.qpn = qps[below(NQP)].qpn;
	else if (chance(30))
		w.qpn = MRC_PROBE_QPN;
	udp = lay_ip(f, &w, &l3);
	o = udp + 8;
	memset(f + udp, 0, 8);
	put16(f + udp, w.sport);
	put16(f + udp + 2, MRC_UDP_PORT);
	f[o] = op;
	f[o + 1] = (uint8_t)rnd();
	put16(f + o + 2, 0xffff);
	put32(f + o + 4, w.qpn);
	put32(f + o + 8, (uint32_t)rnd());
	o += 12;
	for (i = 0; i < body; i++)
		f[o + i] = (uint8_t)rnd();
	if (op != MRC_OP_ACK) {
		f[o] = chance(90) ? MRC_WIRE_VERSION : (uint8_t)rnd();
		f[o + 4] = chance(80) ? (uint8_t)below(64) : (uint8_t)rnd();
	} else {
		f[o + 4] = chance(90) ? MRC_WIRE_VERSION : (uint8_t)rnd();
	}
	o += body;
	if (chance(10))
		o -= below(body);
	udp_len = (uint32_t)(o - udp);
	put16(f + udp + 4, (uint16_t)udp_len);
	finish_ip(f, l3, w.v6, udp, udp_len);
	set_udp_csum(f, l3, w.v6, udp, udp_len);
	if (chance(10))
		f[udp + 6] ^= 0x10;
	fr->len = (uint32_t)o;
}

static void mutate(struct frame *fr)
{
	size_t l3, udp;
	int n = 1 + (int)below(4), v6;
	uint32_t at;

	while (n--) {
		at = below(fr->len);
		switch (below(6)) {
		case 0:
			fr->b[at] ^= (uint8_t)(1u << below(8));
			break;
		case 1:
			fr->b[at] = (uint8_t)rnd();
			break;
		case 2: /* cut, to no less than an Ethernet header (a test
			 * run refuses shorter frames) */
			fr->len = at > 14 ? at : 14;
			break;
		case 3: /* grow */
			if (fr->len < FRAME_MAX - 64) {
				uint32_t k = 1 + below(64), i;

				for (i = 0; i < k; i++)
					fr->b[fr->len + i] = (uint8_t)rnd();
				fr->len += k;
			}
			break;
		case 4: /* a byte into the headers */
			fr->b[14 + below(80)] = (uint8_t)rnd();
			break;
		default: /* a field's worth */
			at = 14 + below(80);
			put32(fr->b + at, (uint32_t)rnd());
		}
	}
	/* Half the time the checksums are made right again, so the mutation
	 * reaches the checks behind them. */
	v6 = get16(fr->b + 12) == 0x86dd;
	l3 = 14;
	udp = l3 + (v6 ? 40 : 20);
	if (chance(50) && fr->len >= udp + 8) {
		uint32_t ul = get16(fr->b + udp + 4);

		if (ul >= 8 && udp + ul <= fr->len)
			set_udp_csum(fr->b, l3, v6, udp, ul);
	}
}

/*
 * An IPv6 frame as an SRv6 fabric delivers it (docs/wire.md, "SRv6"): an
 * outer IPv6 header and a two-segment SRH in front, mostly well formed,
 * sometimes with segments left, an SRH listing more than it holds or
 * longer than the frame, uSIDs left in the container, CE or the trim mark
 * on the outer header.
 */
static void srv6_encap(struct frame *fr)
{
	uint8_t *f = fr->b, *o = f + 14, *srh = o + 40;
	uint32_t k;

	if (get16(f + 12) != 0x86dd || fr->len + 80 > sizeof(fr->b))
		return;
	memmove(f + 14 + 80, f + 14, fr->len - 14);
	fr->len += 80;
	memset(o, 0, 80);
	o[0] = 0x60;
	if (chance(20))
		o[1] = 0x30; /* CE */
	else if (chance(20))
		o[0] = (uint8_t)(0x60 | TRIM_DSCP >> 2),
		o[1] = (uint8_t)((TRIM_DSCP & 3) << 6 | 0x20);
	put16(o + 4, (uint16_t)(fr->len - 14 - 40));
	o[6] = 43;
	o[7] = 61;
	o[24] = 0xfd, o[25] = 0xbb, o[26] = 0xbb;
	if (chance(10))
		for (k = 4; k < 16; k++)
			o[24 + k] = (uint8_t)rnd();
	srh[0] = chance(95) ? 41 : (uint8_t)rnd();
	srh[1] = chance(90) ? 4 : (uint8_t)rnd();
	srh[2] = 4;
	srh[3] = chance(90) ? 0 : (uint8_t)rnd();
	srh[4] = chance(90) ? 1 : (uint8_t)rnd();
	for (k = 8; k < 40; k++)
		srh[k] = (uint8_t)rnd();
}

static void make_frame(struct frame *fr, int cls)
{
	struct wr w;
	uint32_t i;

	fr->cls = cls;
	switch (cls) {
	case C_VALID:
		w = valid_wr();
		lay_data(fr, &w);
		return;
	case C_HOSTILE:
		if (chance(15)) {
			lay_control(fr);
			return;
		}
		w = hostile_wr();
		lay_data(fr, &w);
		if (chance(5))
			srv6_encap(fr);
		return;
	case C_MUTATED:
		if (chance(20)) {
			lay_control(fr);
		} else {
			w = valid_wr();
			lay_data(fr, &w);
		}
		if (chance(5))
			srv6_encap(fr);
		mutate(fr);
		return;
	default:
		fr->len = 14 + below(300);
		for (i = 0; i < fr->len; i++)
			fr->b[i] = (uint8_t)rnd();
		if (chance(50)) {
			struct wr h = valid_wr();
			size_t l3, udp = lay_ip(fr->b, &h, &l3);

			if (fr->len < udp + 8)
				fr->len = (uint32_t)udp + 8;
			put16(fr->b + udp + 2, MRC_UDP_PORT);
			if (chance(50))
				fr->b[udp + 8] =
					(uint8_t)(chance(50) ?
							  MRC_OP_WRITE_ONLY :
							  MRC_OP_WRITE_ONLY_IMM);
		}
	}
}

/* --- the model ------------------------------------------------------------------- */

struct verdict {
	int action; /* XDP_* */
	int drop; /* MRC_DROP_*, 0 none */
	uint8_t nack; /* for an ACK/NACK answer */
	int answer; /* 1: an ACK/NACK, 2: a probe answer */
	int deferred; /* placed, its ACK left to a later one (ACK_LATER) */
	struct mqp *q; /* the QP the ACK reports on */
	/* from the headers */
	int v6;
	size_t l3, udp;
	uint32_t udp_len, psn, ev, tx_ts, qpn, peer;
	uint8_t ecn;
	/* a placement */
	struct mmr *mr;
	uint64_t off;
	uint32_t len, pay_off;
	const uint8_t *pay; /* the frame pay_off counts in */
	int drop2; /* MRC_DROP_*: the answer's own drop (SRv6), 0 none */
};

static struct mqp *find_qp(uint32_t qpn)
{
	unsigned int i;

	for (i = 0; i < NQP; i++)
		if (qps[i].qpn == qpn)
			return &qps[i];
	return NULL;
}

static struct mmr *find_mr(uint32_t idx)
{
	unsigned int i;

	for (i = 0; i < NMR; i++)
		if (mrs[i].idx == idx)
			return &mrs[i];
	return NULL;
}

static int nack_of(int drop)
{
	switch (drop) {
	case MRC_DROP_CHECKSUM:
		return MRC_NACK_CHECKSUM;
	case MRC_DROP_QP_STATE:
		return MRC_NACK_QP_STATE;
	case MRC_DROP_PSN_WINDOW:
		return MRC_NACK_PSN_WINDOW;
	case MRC_DROP_BAD_RKEY:
		return MRC_NACK_RKEY;
	case MRC_DROP_BOUNDS:
		return MRC_NACK_BOUNDS;
	case MRC_DROP_TRIMMED:
		return MRC_NACK_TRIMMED;
	}
	return 0;
}

/* Drop for reason d, NACKed (to q) when the reason has a NACK. */
static void reject(struct verdict *v, int d, struct mqp *q)
{
	v->drop = d;
	v->action = XDP_DROP;
	if (q && nack_of(d)) {
		v->nack = (uint8_t)nack_of(d);
		v->answer = 1;
		v->q = q;
		v->action = XDP_TX;
	}
}

static void model_plain(const uint8_t *f, uint32_t n, struct verdict *v);

/*
 * An SRv6 frame (docs/wire.md, "SRv6"): IPv6 whose next header is an SRH
 * (routing type 4; the fuzzer installs no routes, so IPv6-in-IPv6 is
 * never SRv6 here). 0: not SRv6; 1: v says what becomes of it.
 */
static int model_srv6(const uint8_t *f, uint32_t n, struct verdict *v)
{
	static uint8_t in[2 * 4096];
	uint32_t len, off, k;
	uint8_t otc, itc;

	if (n < 14 + 40 + 8 || get16(f + 12) != 0x86dd || f[20] != 43 ||
	    f[56] != 4)
		return 0;
	v->action = XDP_DROP;
	len = 8 + (uint32_t)f[55] * 8;
	if (((uint32_t)f[58] + 1) * 16 + 8 > len) {
		v->drop = MRC_DROP_SRV6_MALFORMED;
		return 1;
	}
	if (f[57]) {
		v->drop = MRC_DROP_SRV6_SEGMENTS_LEFT;
		return 1;
	}
	off = 54 + len;
	if (off > n || f[54] != 41) {
		v->drop = MRC_DROP_SRV6_MALFORMED;
		return 1;
	}
	for (k = 4; k < 16; k++)
		if (f[38 + k]) {
			v->drop = MRC_DROP_SRV6_NOT_END;
			return 1;
		}
	if (off > 255 || n < off + 40 || (f[off] >> 4) != 6 ||
	    n - off + 14 > sizeof(in)) {
		v->drop = MRC_DROP_SRV6_MALFORMED;
		return 1;
	}
	/* Stripped: CE and the trim DSCP move inward. */
	memcpy(in, f, 14);
	memcpy(in + 14, f + off, n - off);
	otc = (uint8_t)((f[14] & 0x0f) << 4 | f[15] >> 4);
	itc = (uint8_t)((in[14] & 0x0f) << 4 | in[15] >> 4);
	if ((otc & 3) == 3 && (itc & 3))
		itc |= 3;
	if (otc >> 2 == TRIM_DSCP)
		itc = (uint8_t)((itc & 3) | (otc & ~3));
	in[14] = (uint8_t)((in[14] & 0xf0) | itc >> 4);
	in[15] = (uint8_t)((in[15] & 0x0f) | (itc & 0x0f) << 4);
	model_plain(in, n - off + 14, v);
	/* No QP here has a route: an answer cannot go back. */
	if (v->action == XDP_TX) {
		v->action = XDP_DROP;
		v->drop2 = MRC_DROP_SRV6_NO_ROUTE;
	}
	return 1;
}

/* What the program must do with frame f (docs/wire.md, the order of the
 * receive pipeline's checks). */
static void model(const uint8_t *f, uint32_t n, struct verdict *v)
{
	memset(v, 0, sizeof(*v));
	if (!model_srv6(f, n, v))
		model_plain(f, n, v);
}

static void model_plain(const uint8_t *f, uint32_t n, struct verdict *v)
{
	uint32_t o, hdr, pay_len, len, rkey, dscp, d;
	uint64_t va;
	struct mqp *q;
	struct mmr *m;
	uint8_t op, tc;
	uint16_t et;

	memset(v, 0, sizeof(*v));
	v->action = XDP_PASS;
	if (n < 14)
		return;
	et = get16(f + 12);
	v->l3 = 14;
	if (et == 0x0800) {
		if (n < 34 || (f[14] & 0x0f) != 5 || (get16(f + 20) & 0x3fff))
			return;
		if (f[23] != 17)
			return;
		v->ecn = f[15] & 3;
		dscp = f[15] >> 2;
		v->udp = 34;
	} else if (et == 0x86dd) {
		if (n < 54 || f[20] != 17)
			return;
		tc = (uint8_t)((f[14] & 0x0f) << 4 | f[15] >> 4);
		v->ecn = tc & 3;
		dscp = tc >> 2;
		v->v6 = 1;
		v->udp = 54;
	} else {
		return;
	}
	if (n < v->udp + 8 || get16(f + v->udp + 2) != MRC_UDP_PORT)
		return;
	/* Ours from here: every problem is a drop. */
	v->action = XDP_DROP;
	v->udp_len = get16(f + v->udp + 4);
	o = (uint32_t)v->udp + 8;
	if (n < o + 12)
		return reject(v, MRC_DROP_TRUNCATED, NULL);
	op = f[o];
	if (op == MRC_OP_CTL) { /* mrcd's: to the kernel stack, untouched */
		v->action = XDP_PASS;
		return;
	}
	v->qpn = get32(f + o + 4) & MRC_BTH_QPN_MASK;
	v->psn = get32(f + o + 8) & MRC_BTH_PSN_MASK;
	if (op == MRC_OP_ACK) {
		if (n < o + ACK_LEN)
			return reject(v, MRC_DROP_TRUNCATED, NULL);
		if (f[o + 16] != MRC_WIRE_VERSION)
			return reject(v, MRC_DROP_BAD_VERSION, NULL);
		if (v->udp_len < 8 + ACK_LEN || v->udp + v->udp_len > n)
			return reject(v, MRC_DROP_TRUNCATED, NULL);
		/* No QP here sends: every ACK is for an unknown QP. */
		return reject(v, MRC_DROP_UNKNOWN_QP, NULL);
	}
	if (op == MRC_OP_PROBE || op == MRC_OP_PROBE_ANSWER) {
		if (n < o + PROBE_LEN)
			return reject(v, MRC_DROP_TRUNCATED, NULL);
		if (f[o + 12] != MRC_WIRE_VERSION)
			return reject(v, MRC_DROP_BAD_VERSION, NULL);
		if (v->udp_len != 8 + PROBE_LEN || v->udp + v->udp_len > n)
			return reject(v, MRC_DROP_TRUNCATED, NULL);
		if (udp_sum(f, v->l3, v->v6, v->udp, v->udp_len) != 0xffff)
			return reject(v, MRC_DROP_CHECKSUM, NULL);
		if (op == MRC_OP_PROBE_ANSWER) {
			/* No QP here sends; no device probe is armed. */
			if (v->qpn != MRC_PROBE_QPN)
				return reject(v, MRC_DROP_UNKNOWN_QP, NULL);
			/* Any EV index: the device's probes have no QP. */
			return reject(v, MRC_DROP_STRAY_PROBE_ANSWER, NULL);
		}
		if (v->qpn != MRC_PROBE_QPN) {
			q = find_qp(v->qpn);
			if (!q || (q->state != MRC_QPS_RTR &&
				   q->state != MRC_QPS_RTS))
				return reject(v, MRC_DROP_UNKNOWN_QP, NULL);
			v->peer = q->peer;
		} else {
			v->peer = MRC_PROBE_QPN;
		}
		v->action = XDP_TX;
		v->answer = 2;
		m_rx[MRC_RX_PROBES_ANSWERED]++;
		return;
	}
	if (op != MRC_OP_WRITE_ONLY && op != MRC_OP_WRITE_ONLY_IMM)
		return reject(v, MRC_DROP_BAD_OPCODE, NULL);
	o += 12;
	if (n < o + 16)
		return reject(v, MRC_DROP_TRUNCATED, NULL);
	va = (uint64_t)get32(f + o) << 32 | get32(f + o + 4);
	rkey = get32(f + o + 8);
	len = get32(f + o + 12);
	o += 16;
	if (op == MRC_OP_WRITE_ONLY_IMM) {
		if (n < o + 4)
			return reject(v, MRC_DROP_TRUNCATED, NULL);
		o += 4;
	}
	if (n < o + 16)
		return reject(v, MRC_DROP_TRUNCATED, NULL);
	if (f[o] != MRC_WIRE_VERSION)
		return reject(v, MRC_DROP_BAD_VERSION, NULL);
	v->ev = get16(f + o + 2);
	v->tx_ts = get32(f + o + 12);
	o += 16;
	hdr = o - (uint32_t)v->udp;
	if (v->udp_len < hdr || v->udp + v->udp_len > n)
		return reject(v, MRC_DROP_TRUNCATED, NULL);
	pay_len = v->udp_len - hdr;
	m_rx[MRC_RX_PACKETS]++;

	q = find_qp(v->qpn);
	if (!q || q->state == MRC_QPS_RESET)
		return reject(v, MRC_DROP_UNKNOWN_QP, NULL);
	if (q->state != MRC_QPS_RTR && q->state != MRC_QPS_RTS)
		return reject(v, MRC_DROP_QP_STATE, q);
	if (!get16(f + v->udp + 6))
		return reject(v, MRC_DROP_NO_CHECKSUM, q);
	if (udp_sum(f, v->l3, v->v6, v->udp, v->udp_len) != 0xffff)
		return reject(v, MRC_DROP_CHECKSUM, q);
	if (dscp == TRIM_DSCP || pay_len < len)
		return reject(v, MRC_DROP_TRIMMED, q);
	if (len > MRC_MAX_PAYLOAD)
		return reject(v, MRC_DROP_OVERSIZED, q);
	if (pay_len != len)
		return reject(v, MRC_DROP_BAD_LENGTH, q);
	d = (uint32_t)psn_diff(v->psn, q->cum);
	if ((int)d < 0) {
		v->drop = MRC_DROP_DUPLICATE;
		goto ack;
	}
	if (d > q->window)
		return reject(v, MRC_DROP_PSN_WINDOW, q);
	if (q->got[d]) {
		v->drop = MRC_DROP_DUPLICATE;
		goto ack;
	}
	m = find_mr(rkey & MRC_RKEY_INDEX_MASK);
	if (!m || m->rkey != rkey || m->pd != q->pd || !(m->access & 2))
		return reject(v, MRC_DROP_BAD_RKEY, q);
	if (va < m->va + m->head || va - m->va > m->len ||
	    len > m->len - (va - m->va))
		return reject(v, MRC_DROP_BOUNDS, q);
	/* Placed, recorded, and acknowledged. */
	v->mr = m;
	v->off = va - m->va;
	v->len = len;
	v->pay_off = o;
	v->pay = f;
	m_rx[MRC_RX_PLACED_BYTES] += len;
	if (v->ecn == 3)
		m_rx[MRC_RX_ECN_CE]++;
	q->got[d] = 1;
	q->imm[d] = get32(f + o - 16 - 4);
	q->len[d] = get32(f + o - 16 + 8);
	q->flags[d] = (uint8_t)((f[o - 16 + 1] & MRC_DF_LAST ? 1 : 0) |
				(op == MRC_OP_WRITE_ONLY_IMM ? 2 : 0));
	/*
	 * Coalesced ACKs (docs/wire.md): one that asks raises the highest PSN
	 * answered; one flagged ACK_LATER (not CE) gets no ACK, unless it
	 * is late (below that PSN) and completes what that ACK left open
	 * (the cumulative PSN, advanced over it, passes it).
	 */
	if (!(f[o - 16 + 1] & MRC_DF_ACK_LATER) || v->ecn == 3) {
		if (psn_diff(v->psn, q->ack_hi) > 0)
			q->ack_hi = v->psn;
	} else {
		uint32_t k = 0;

		while (k <= MRC_RX_WINDOW_MAX && q->got[k])
			k++;
		if (!(psn_diff(v->psn, q->ack_hi) < 0 &&
		      psn_diff((q->cum + k) & MRC_BTH_PSN_MASK, q->ack_hi) >
			      0)) {
			v->q = q;
			v->deferred = 1;
			v->action = XDP_DROP;
			return;
		}
	}
ack:
	v->q = q;
	v->answer = 1;
	v->action = XDP_TX;
}

/* Advance q's cumulative PSN; the completions it makes due. */
static int advance(struct mqp *q, struct mrc_cqe *out)
{
	int n = 0;

	while (q->got[0]) {
		if (q->flags[0] == 3)
			out[n++] = (struct mrc_cqe){
				.qpn = q->qpn,
				.seq = q->seq++,
				.byte_len = q->len[0],
				.imm = htonl(q->imm[0]),
				.psn = q->cum,
				.opcode = MRC_WC_RECV_RDMA_WITH_IMM,
			};
		memmove(q->got, q->got + 1, MRC_RX_WINDOW_MAX);
		memmove(q->imm, q->imm + 1, MRC_RX_WINDOW_MAX * 4);
		memmove(q->len, q->len + 1, MRC_RX_WINDOW_MAX * 4);
		memmove(q->flags, q->flags + 1, MRC_RX_WINDOW_MAX);
		q->got[MRC_RX_WINDOW_MAX] = 0;
		q->cum = (q->cum + 1) & MRC_BTH_PSN_MASK;
	}
	return n;
}

/* The answer frame the model expects, made from the input frame. */
static void expect_answer(const uint8_t *in, const struct verdict *v,
			  const struct frame *got, struct frame *want)
{
	uint8_t *f = want->b, mac[6];
	uint32_t ulen = v->answer == 1 ? 8 + ACK_LEN : 8 + PROBE_LEN, i, k;
	size_t o = v->udp + 8;

	memcpy(f, in, v->udp + ulen);
	memcpy(mac, f, 6);
	memcpy(f, f + 6, 6);
	memcpy(f + 6, mac, 6);
	if (v->v6) {
		uint8_t a[16];

		memcpy(a, f + v->l3 + 8, 16);
		memcpy(f + v->l3 + 8, f + v->l3 + 24, 16);
		memcpy(f + v->l3 + 24, a, 16);
		put16(f + v->l3 + 4, (uint16_t)ulen);
		f[v->l3 + 7] = 64;
		f[v->l3] = (f[v->l3] & 0xf0); /* traffic class 0x02: */
		f[v->l3 + 1] = (uint8_t)((f[v->l3 + 1] & 0x0f) | 0x20);
	} else {
		uint8_t a[4];

		memcpy(a, f + v->l3 + 12, 4);
		memcpy(f + v->l3 + 12, f + v->l3 + 16, 4);
		memcpy(f + v->l3 + 16, a, 4);
		put16(f + v->l3 + 2, (uint16_t)(20 + ulen));
		f[v->l3 + 8] = 64;
		f[v->l3 + 1] = 0x02;
		put16(f + v->l3 + 6, 0x4000);
		set_ip_csum(f, v->l3);
	}
	put16(f + v->udp + 4, (uint16_t)ulen);
	if (v->answer == 2) {
		f[o] = MRC_OP_PROBE_ANSWER;
		put32(f + o + 4, v->peer & MRC_BTH_QPN_MASK);
		/* The service time is the responder's clock: take it. */
		memcpy(f + o + 12 + 20, got->b + o + 12 + 20, 4);
	} else {
		const struct mqp *q = v->q;

		memset(f + o, 0, ACK_LEN);
		f[o] = MRC_OP_ACK;
		put16(f + o + 2, 0xffff);
		put32(f + o + 4, q->peer & MRC_BTH_QPN_MASK);
		put32(f + o + 8, v->psn);
		f[o + 12] = v->nack ? (uint8_t)(MRC_AETH_NAK | v->nack) : 0;
		o += 16;
		f[o] = MRC_WIRE_VERSION;
		f[o + 1] = (uint8_t)((v->nack ? MRC_AF_NACK : 0) |
				     (v->ecn == 3 ? MRC_AF_ECN_CE : 0));
		put16(f + o + 2, (uint16_t)v->ev);
		f[o + 4] = v->nack;
		put32(f + o + 8, q->cum);
		put32(f + o + 12, v->psn);
		put32(f + o + 16, v->tx_ts);
		for (i = 0; i < MRC_SACK_BITS / 32; i++) {
			uint32_t w = 0;

			for (k = 0; k < 32; k++)
				if (q->got[1 + i * 32 + k])
					w |= 1u << (31 - k);
			put32(f + o + 20 + i * 4, w);
		}
	}
	set_udp_csum(f, v->l3, v->v6, v->udp, ulen);
	want->len = (uint32_t)v->udp + ulen;
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
	if (len != sizeof(struct mrc_cqe) || ngot_cqe == 64)
		return -EINVAL;
	memcpy(&got_cqe[ngot_cqe++], d, len);
	return 0;
}

static int setup(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, mm,
		    .map_flags = BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	uint32_t zero = 0, i;
	int fd;

	skel = mrc_xdp_rx__open();
	if (!skel)
		return -1;
	skel->rodata->trim_dscp = TRIM_DSCP;
	skel->rodata->report_svc = 0; /* the model's ACKs carry none */
	if (mrc_xdp_rx__load(skel)) {
		fprintf(stderr, "fuzz_rx: loading mrc_xdp_rx: %s\n",
			strerror(errno));
		return -1;
	}
	for (i = 0; i < NQP; i++) {
		static struct mrc_qp_rx qp;

		memset(&qp, 0, sizeof(qp));
		qp.state = qps[i].state;
		qp.peer_qpn = qps[i].peer;
		qp.pd = qps[i].pd;
		qp.recv_cq = qps[i].cq;
		qp.window = qps[i].window;
		qp.cum_psn = qp.cqe_psn = qps[i].cum;
		/* As mrcd sets it up (daemon/dev.c). */
		qps[i].ack_hi = (qps[i].cum - 1) & MRC_BTH_PSN_MASK;
		qp.ack_psn_hi = qps[i].ack_hi;
		if (bpf_map_update_elem(bpf_map__fd(skel->maps.mrc_qp),
					&qps[i].qpn, &qp, BPF_ANY))
			return -1;
	}
	for (i = 0; i < NMR; i++) {
		struct mmr *m = &mrs[i];
		struct mrc_mr_info info = { .rkey = m->rkey,
					    .pd = m->pd,
					    .va = m->va,
					    .len = m->len,
					    .access = m->access,
					    .head = m->head };
		size_t bytes = (size_t)m->chunks * MRC_MR_ELEM;

		fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "mrc_mr_fuzz", 4,
				    MRC_MR_ELEM, m->chunks, &mm);
		if (fd < 0 ||
		    bpf_map_update_elem(bpf_map__fd(skel->maps.mrc_mr_info),
					&m->idx, &info, BPF_ANY) ||
		    bpf_map_update_elem(bpf_map__fd(skel->maps.mrc_mr), &m->idx,
					&fd, BPF_ANY))
			return -1;
		m->mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
			      fd, 0);
		close(fd);
		m->shadow = calloc(m->chunks, MRC_MR_CHUNK);
		if (m->mem == MAP_FAILED || !m->shadow)
			return -1;
	}
	fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "mrc_cq_fuzz", 0, 0, 1 << 16,
			    NULL);
	if (fd < 0 || bpf_map_update_elem(bpf_map__fd(skel->maps.mrc_cq), &zero,
					  &fd, BPF_ANY))
		return -1;
	cq0 = ring_buffer__new(fd, on_cqe, NULL, NULL);
	close(fd);
	return cq0 ? 0 : -1;
}

static int run(const struct frame *in, struct frame *out)
{
	struct xdp_md ctx = { .data_end = in->len, .ingress_ifindex = 1 };

	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in->b,
		    .data_size_in = in->len, .data_out = out->b,
		    .data_size_out = sizeof(out->b), .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx));
	if (bpf_prog_test_run_opts(bpf_program__fd(skel->progs.mrc_xdp_rx), &o))
		return -1;
	out->len = o.data_size_out;
	return (int)o.retval;
}

static uint64_t percpu_sum(struct bpf_map *m, uint32_t key)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	uint64_t v[ncpu], s = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(m), &key, v))
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

/* --- the run ---------------------------------------------------------------------- */

static struct {
	uint64_t frames[C_MAX], verdict[C_MAX][5], by_drop[MRC_DROP_MAX];
	uint64_t placed, completions, violations;
} st;

static uint64_t seed;
static long batch_no;

static void hex(FILE *o, const struct frame *f)
{
	uint32_t i;

	for (i = 0; i < f->len; i++)
		fprintf(o, "%02x", f->b[i]);
	fputc('\n', o);
}

static void violation(const struct frame *f, const char *what)
{
	st.violations++;
	if (st.violations > 10)
		return;
	fprintf(stderr, "VIOLATION seed %llu batch %ld (%s frame): %s\n",
		(unsigned long long)seed, batch_no, cls_name[f->cls], what);
	fprintf(stderr, "  frame: ");
	hex(stderr, f);
}

/* One frame: through the model and the program, compared. */
static void one(struct frame *in)
{
	static struct frame out, want;
	struct mrc_cqe due[MRC_RX_WINDOW_MAX + 1];
	struct verdict v;
	int rc, n = 0, i;
	char why[160];

	model(in->b, in->len, &v);
	if (v.drop)
		m_drop[v.drop]++;
	if (v.drop2) {
		m_drop[v.drop2]++;
		st.by_drop[v.drop2]++;
	}
	st.by_drop[v.drop]++;
	if (v.mr) {
		uint64_t k;

		for (k = 0; k < v.len; k++)
			v.mr->shadow[v.off + k] = v.pay[v.pay_off + k];
		st.placed++;
		n = advance(v.q, due);
		for (i = 0; i < n; i++)
			if (v.q->cq)
				m_drop[MRC_DROP_CQ_OVERFLOW]++;
			else
				m_rx[MRC_RX_COMPLETIONS]++;
		if (v.q->cq)
			n = 0;
	}
	if (v.answer == 1)
		m_rx[v.nack ? MRC_RX_NACKS : MRC_RX_ACKS]++;
	if (v.deferred)
		m_rx[MRC_RX_ACKS_DEFERRED]++;

	rc = run(in, &out);
	st.frames[in->cls]++;
	st.verdict[in->cls][rc >= 0 && rc <= 4 ? rc : 0]++;
	if (rc != v.action) {
		snprintf(why, sizeof(why),
			 "verdict %d, the model says %d (drop %s)", rc,
			 v.action, drop_name[v.drop]);
		violation(in, why);
		return;
	}
	if (rc == XDP_TX) {
		expect_answer(in->b, &v, &out, &want);
		if (out.len != want.len || memcmp(out.b, want.b, want.len)) {
			for (i = 0; i < (int)want.len && i < (int)out.len; i++)
				if (out.b[i] != want.b[i])
					break;
			snprintf(
				why, sizeof(why),
				"answer differs at byte %d (length %u, the model's %u; drop %s)",
				i, out.len, want.len, drop_name[v.drop]);
			violation(in, why);
			fprintf(stderr, "  got:   ");
			hex(stderr, &out);
			fprintf(stderr, "  model: ");
			hex(stderr, &want);
		}
	}
	ngot_cqe = 0;
	ring_buffer__consume(cq0);
	if (ngot_cqe != n) {
		snprintf(why, sizeof(why), "%d completions, the model says %d",
			 ngot_cqe, n);
		violation(in, why);
		return;
	}
	for (i = 0; i < n; i++)
		if (!cqe_same(&got_cqe[i], &due[i])) {
			snprintf(
				why, sizeof(why),
				"completion %d differs (seq %u psn %u, the model's seq %u psn %u)",
				i, got_cqe[i].seq, got_cqe[i].psn, due[i].seq,
				due[i].psn);
			violation(in, why);
		}
	st.completions += (uint64_t)n;
}

/* After a batch: regions, counters and QP state against the model. */
static void check_batch(struct frame *batch, int nb)
{
	static struct mrc_qp_rx qp;
	char why[200];
	unsigned int i, c;
	int bad = 0;

	for (i = 0; i < NMR; i++)
		for (c = 0; c < mrs[i].chunks; c++)
			if (memcmp(mrs[i].mem + (size_t)c * MRC_MR_ELEM,
				   mrs[i].shadow + (size_t)c * MRC_MR_CHUNK,
				   MRC_MR_CHUNK)) {
				snprintf(
					why, sizeof(why),
					"region %u chunk %u differs from the model's",
					mrs[i].idx, c);
				violation(&batch[0], why);
				bad = 1;
			}
	for (i = 1; i < MRC_DROP_MAX; i++) {
		uint64_t got = percpu_sum(skel->maps.mrc_drop, i);

		if (got != m_drop[i]) {
			snprintf(why, sizeof(why),
				 "drop %s counted %llu, the model %llu",
				 drop_name[i], (unsigned long long)got,
				 (unsigned long long)m_drop[i]);
			violation(&batch[0], why);
			m_drop[i] = got;
			bad = 1;
		}
	}
	for (i = 0; i < MRC_RX_MAX; i++) {
		uint64_t got = percpu_sum(skel->maps.mrc_rx_stats, i);

		if (got != m_rx[i]) {
			snprintf(why, sizeof(why),
				 "receive counter %u is %llu, the model's %llu",
				 i, (unsigned long long)got,
				 (unsigned long long)m_rx[i]);
			violation(&batch[0], why);
			m_rx[i] = got;
			bad = 1;
		}
	}
	for (i = 0; i < NQP; i++) {
		struct mqp *q = &qps[i];
		uint32_t d, set = 1;

		if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.mrc_qp), &q->qpn,
					&qp))
			continue;
		for (d = 1; d <= MRC_RX_WINDOW_MAX; d++) {
			uint32_t s = (q->cum + d) % MRC_RX_RING;

			if (!!(qp.rx_bits[s / 64] >> (s % 64) & 1) != q->got[d])
				set = 0;
		}
		if (qp.cum_psn != q->cum || qp.cqe_seq != q->seq || !set) {
			snprintf(
				why, sizeof(why),
				"QP %u: cum %u seq %u bits %s; the model: cum %u seq %u",
				q->qpn, qp.cum_psn, qp.cqe_seq,
				set ? "same" : "differ", q->cum, q->seq);
			violation(&batch[0], why);
			bad = 1;
		}
	}
	if (bad && st.violations <= 10) {
		int k;

		fprintf(stderr, "  the batch's %d frames:\n", nb);
		for (k = 0; k < nb; k++) {
			fprintf(stderr, "  %s ", cls_name[batch[k].cls]);
			hex(stderr, &batch[k]);
		}
	}
}

static void report(double secs, double cpu)
{
	static const char *const act[5] = { "aborted", "drop", "pass", "tx",
					    "redirect" };
	uint64_t total = 0;
	int c, a, d;

	for (c = 0; c < C_MAX; c++)
		total += st.frames[c];
	printf("fuzz_rx: %llu frames in %.1f s (%.0f frames/s, %.1f s CPU), seed %llu\n",
	       (unsigned long long)total, secs, (double)total / secs, cpu,
	       (unsigned long long)seed);
	for (c = 0; c < C_MAX; c++) {
		printf("  %-8s %10llu:", cls_name[c],
		       (unsigned long long)st.frames[c]);
		for (a = 1; a < 4; a++)
			printf(" %s %llu", act[a],
			       (unsigned long long)st.verdict[c][a]);
		printf("\n");
	}
	printf("  placed %llu, completions %llu\n  drops by reason:",
	       (unsigned long long)st.placed,
	       (unsigned long long)st.completions);
	for (d = 1; d < MRC_DROP_MAX; d++)
		if (st.by_drop[d])
			printf(" %s %llu", drop_name[d],
			       (unsigned long long)st.by_drop[d]);
	printf("\n  violations: %llu\n", (unsigned long long)st.violations);
}

int main(int argc, char **argv)
{
	static struct frame batch[4096];
	long frames = 1000000, done = 0;
	int nb = 256, opt, k;
	struct rusage ru;
	double t0;

	seed = (uint64_t)time(NULL);
	while ((opt = getopt(argc, argv, "n:s:b:")) != -1) {
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
		default:
			fprintf(stderr,
				"usage: fuzz_rx [-n FRAMES] [-s SEED] [-b BATCH]\n");
			return 2;
		}
	}
	if (frames < 1 || nb < 1 || nb > 4096) {
		fprintf(stderr, "fuzz_rx: -n must be >= 1, -b 1..4096\n");
		return 2;
	}
	if (geteuid() != 0) {
		printf("SKIP: fuzz_rx needs root (BPF)\n");
		return 77;
	}
	rng_state = seed * 0x9e3779b97f4a7c15ull | 1;
	pin_to_this_cpu();
	if (setup())
		return 1;
	t0 = now_s();
	while (done < frames) {
		int n = frames - done < nb ? (int)(frames - done) : nb;

		for (k = 0; k < n; k++) {
			unsigned int r = below(100);
			int cls = r < 35 ? C_VALID :
				  r < 65 ? C_HOSTILE :
				  r < 90 ? C_MUTATED :
					   C_RANDOM;

			make_frame(&batch[k], cls);
			one(&batch[k]);
		}
		check_batch(batch, n);
		done += n;
		batch_no++;
	}
	getrusage(RUSAGE_SELF, &ru);
	report(now_s() - t0,
	       (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	return st.violations ? 1 : 0;
}
