// SPDX-License-Identifier: GPL-2.0
/*
 * Fixture tests of the receive pipeline (bpf/mrc_xdp_rx.bpf.c) through
 * BPF_PROG_TEST_RUN: every packet type and hostile input, each with its
 * verdict, the exact frame it leaves (the ACK or NACK it became), its
 * reason counter, and what it wrote into the memory region (nothing, unless
 * it was placed).
 *
 *   peer 198.18.1.2 / fd00:1::2, MAC ..:0b  --data-->  us 198.18.2.2 /
 *   fd00:2::2, MAC ..:0a; QP 5 (peer QP 77, PD 1, cum PSN 100, window 256),
 *   QP 6 in INIT; MR index 3, 2 chunks (2 MiB) at VA 0x7f0000000000,
 *   receive completions on CQ 0.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fixture.h"
#include "mrc/abi.h"
#include "mrc/drop.h"
#include "mrc/wire.h"
#include "mrc_xdp_rx.skel.h"

#define QPN 5
#define QPN_INIT 6
#define PEER_QPN 77
#define PD 1
#define MR_IDX 3
#define RKEY ((0xabcdeu << MRC_RKEY_INDEX_BITS) | MR_IDX)
#define HEADED_RKEY ((0x5eedu << MRC_RKEY_INDEX_BITS) | 5)
#define VA 0x7f0000000000ull
#define CHUNKS 2
#define MR_LEN ((uint64_t)CHUNKS * MRC_MR_CHUNK)
#define CUM 100
#define EV 49200
#define TS 0x11223344u
#define TRIM_DSCP 9

static struct mrc_xdp_rx *skel;
/* The same program loaded frags-aware (multi-buffer frames), on skel's maps. */
static struct mrc_xdp_rx *frags;
static uint8_t *mr_mem; /* the MR map, mmapped: chunk i at i * MRC_MR_ELEM */
static struct ring_buffer *cq;
static struct mrc_cqe cqes[64];
static int ncqes;

/* --- frames ---------------------------------------------------------------- */

/* A work request as the peer's transmit pipeline would put it on the wire. */
struct wr {
	int v6;
	uint8_t op, flags, tos;
	uint16_t dport;
	uint32_t qpn, psn, rkey, len, paylen, imm, msg_len;
	uint64_t va;
	int no_csum, corrupt, version;
};

static struct wr def_wr(void)
{
	struct wr w = {
		.op = MRC_OP_WRITE_ONLY,
		.flags = MRC_DF_LAST,
		.tos = 0x02,
		.dport = MRC_UDP_PORT,
		.qpn = QPN,
		.psn = CUM,
		.rkey = RKEY,
		.len = 100,
		.paylen = 100,
		.msg_len = 100,
		.va = VA,
		.version = MRC_WIRE_VERSION,
	};

	return w;
}

static void data(struct pkt *p, const struct wr *w)
{
	pkt_eth(p, PKT_MAC_A, PKT_MAC_B);
	if (w->v6)
		pkt_ipv6(p, "fd00:1::2", "fd00:2::2", w->tos);
	else
		pkt_ipv4(p, "198.18.1.2", "198.18.2.2", w->tos);
	pkt_udp(p, EV, w->dport);
	pkt_bth(p, w->op, w->qpn, w->psn, 0);
	pkt_reth(p, w->va, w->rkey, w->len);
	if (w->op == MRC_OP_WRITE_ONLY_IMM)
		pkt_immdt(p, w->imm);
	pkt_dext(p, w->flags, EV, 7, w->msg_len, TS);
	if (w->version != MRC_WIRE_VERSION)
		p->data[p->len - sizeof(struct mrc_dext)] = w->version;
	pkt_pattern(p, w->paylen, (uint8_t)w->psn);
	p->udp_csum = !w->no_csum;
	pkt_finish(p);
	if (w->corrupt)
		p->data[p->len - 1] ^= 0x5a;
}

/* The ACK or NACK the receiver makes of w: addresses swapped, ports kept. */
static void ack(struct pkt *p, const struct wr *w, uint8_t reason, uint32_t cum,
		const uint32_t *sack, uint8_t flags)
{
	pkt_eth(p, PKT_MAC_B, PKT_MAC_A);
	if (w->v6)
		pkt_ipv6(p, "fd00:2::2", "fd00:1::2", 0x02);
	else
		pkt_ipv4(p, "198.18.2.2", "198.18.1.2", 0x02);
	pkt_udp(p, EV, MRC_UDP_PORT);
	pkt_bth(p, MRC_OP_ACK, PEER_QPN, w->psn, 0);
	pkt_aeth(p, reason ? MRC_AETH_NAK | reason : MRC_AETH_ACK, 0);
	pkt_aext(p, flags | (reason ? MRC_AF_NACK : 0), EV, reason, cum, w->psn,
		 TS, sack);
	p->udp_csum = 1;
	pkt_finish(p);
}

/* IN(name, changes): an input frame; OUT(name, changes, reason, cum, sack
 * word 0, AEXT flags): the ACK that input becomes. */
#define IN(name, ...)                   \
	static void name(struct pkt *p) \
	{                               \
		struct wr w = def_wr(); \
		__VA_ARGS__;            \
		data(p, &w);            \
	}
#define OUT(name, change, reason, cum, sack0, fl)  \
	static void name(struct pkt *p)            \
	{                                          \
		struct wr w = def_wr();            \
		uint32_t sack[8] = { sack0 };      \
		change;                            \
		ack(p, &w, reason, cum, sack, fl); \
	}

IN(write_in, (void)0)
OUT(write_ack, (void)0, 0, CUM + 1, 0, 0)
IN(write6_in, w.v6 = 1)
OUT(write6_ack, w.v6 = 1, 0, CUM + 1, 0, 0)
IN(ooo_in, w.psn = CUM + 2)
OUT(ooo_ack, w.psn = CUM + 2, 0, CUM, 0x40000000u, 0)
IN(imm_in, w.op = MRC_OP_WRITE_ONLY_IMM; w.imm = 0xfeedf00d; w.msg_len = 4100)
OUT(imm_ack, (void)0, 0, CUM + 1, 0, 0)
IN(ce_in, w.tos = 0x03)
OUT(ce_ack, (void)0, 0, CUM + 1, 0, MRC_AF_ECN_CE)
IN(chunk_cross_in, w.va = VA + MRC_MR_CHUNK - 40)
IN(region_end_in, w.va = VA + MR_LEN - 100)
IN(bad_rkey_in, w.rkey = RKEY ^ 0x400)
OUT(bad_rkey_nack, (void)0, MRC_NACK_RKEY, CUM, 0, 0)
IN(other_pd_rkey_in, w.rkey = (0x12345u << MRC_RKEY_INDEX_BITS) | 4)
/* Region 5 was registered 100 bytes into its first page. */
IN(in_head_in, w.rkey = HEADED_RKEY; w.va = VA + 99)
IN(past_end_in, w.va = VA + MR_LEN - 99)
OUT(bounds_nack, (void)0, MRC_NACK_BOUNDS, CUM, 0, 0)
IN(below_start_in, w.va = VA - 1)
IN(wrap_in, w.va = ~0ull - 10)
IN(window_in, w.psn = CUM + 257)
OUT(window_nack, w.psn = CUM + 257, MRC_NACK_PSN_WINDOW, CUM, 0, 0)
IN(old_psn_in, w.psn = CUM - 1)
OUT(old_psn_ack, w.psn = CUM - 1, 0, CUM, 0, 0)
IN(bad_csum_in, w.corrupt = 1)
OUT(bad_csum_nack, (void)0, MRC_NACK_CHECKSUM, CUM, 0, 0)
IN(no_csum_in, w.no_csum = 1)
IN(trimmed_in, w.tos = TRIM_DSCP << 2 | 2; w.paylen = 32)
OUT(trimmed_nack, (void)0, MRC_NACK_TRIMMED, CUM, 0, 0)
IN(short_unmarked_in, w.paylen = 60)
IN(long_payload_in, w.len = 50)
IN(unknown_qp_in, w.qpn = 999)
IN(huge_qpn_in, w.qpn = 0xffffff)
IN(init_qp_in, w.qpn = QPN_INIT)
OUT(init_qp_nack, (void)0, MRC_NACK_QP_STATE, 0, 0, 0)
IN(version_in, w.version = 2)
IN(send_opcode_in, w.op = 0x04)
IN(ctl_in, w.op = MRC_OP_CTL)
IN(not_mrc_in, w.dport = 9000)
IN(zero_len_in, w.len = 0; w.paylen = 0)

static void bth_cut(struct pkt *p)
{
	pkt_eth(p, PKT_MAC_A, PKT_MAC_B);
	pkt_ipv4(p, "198.18.1.2", "198.18.2.2", 0);
	pkt_udp(p, EV, MRC_UDP_PORT);
	pkt_pattern(p, 8, 0); /* 8 of the BTH's 12 bytes */
	p->udp_csum = 1;
	pkt_finish(p);
}

static void dext_cut(struct pkt *p)
{
	pkt_eth(p, PKT_MAC_A, PKT_MAC_B);
	pkt_ipv4(p, "198.18.1.2", "198.18.2.2", 0);
	pkt_udp(p, EV, MRC_UDP_PORT);
	pkt_bth(p, MRC_OP_WRITE_ONLY, QPN, CUM, 0);
	pkt_reth(p, VA, RKEY, 0);
	pkt_pattern(p, 10, 0); /* 10 of the DEXT's 16 bytes */
	p->udp_csum = 1;
	pkt_finish(p);
}

/* UDP length claims more than the frame holds. */
static void udp_len_lies(struct pkt *p)
{
	write_in(p);
	p->data[p->l4_off + 4] = 0x10; /* 4096 + ... */
}

static void ack_in(struct pkt *p)
{
	struct wr w = def_wr();
	uint32_t sack[8] = { 0 };

	ack(p, &w, 0, CUM, sack, 0);
}

/* --- state ----------------------------------------------------------------- */

static uint64_t percpu_sum(struct bpf_map *m, uint32_t key)
{
	return fixture_percpu_sum(bpf_map__fd(m), key);
}

static uint64_t drops(enum mrc_drop_reason r)
{
	return percpu_sum(skel->maps.mrc_drop, r);
}

static uint64_t rxc(enum mrc_rx_counter c)
{
	return percpu_sum(skel->maps.mrc_rx_stats, c);
}

static uint64_t total_drops(void)
{
	uint64_t n = 0;
	int r;

	for (r = 1; r < MRC_DROP_MAX; r++)
		n += drops(r);
	return n;
}

static int set_qp(uint32_t qpn, uint32_t state)
{
	static struct mrc_qp_rx qp;

	memset(&qp, 0, sizeof(qp));
	qp.state = state;
	qp.peer_qpn = PEER_QPN;
	qp.pd = PD;
	qp.recv_cq = 0;
	qp.window = MRC_RX_WINDOW_MAX;
	qp.cum_psn = state == MRC_QPS_RTS ? CUM : 0;
	qp.cqe_psn = qp.cum_psn;
	return bpf_map_update_elem(bpf_map__fd(skel->maps.mrc_qp), &qpn, &qp,
				   BPF_ANY);
}

static int zero_percpu(struct bpf_map *m, uint32_t n)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t zero[ncpu];
	uint32_t k;

	memset(zero, 0, sizeof(zero));
	for (k = 0; k < n; k++)
		if (bpf_map_update_elem(bpf_map__fd(m), &k, zero, BPF_ANY))
			return -errno;
	return 0;
}

static int on_cqe(void *ctx, void *d, size_t len)
{
	(void)ctx;
	if (len != sizeof(struct mrc_cqe) || ncqes == 64)
		return -EINVAL;
	memcpy(&cqes[ncqes++], d, len);
	return 0;
}

static int drain_cq(void)
{
	return ring_buffer__consume(cq) < 0 ? -1 : 0;
}

static int reset(void)
{
	struct mrc_mr_info mr = {
		.rkey = RKEY, .pd = PD, .va = VA, .len = MR_LEN, .access = 2
	};
	struct mrc_mr_info other = { .rkey = (0x12345u << MRC_RKEY_INDEX_BITS) |
					     4,
				     .pd = PD + 1,
				     .va = VA,
				     .len = MR_LEN,
				     .access = 2 };
	struct mrc_mr_info headed = { .rkey = HEADED_RKEY,
				      .pd = PD,
				      .va = VA,
				      .len = MR_LEN,
				      .access = 2,
				      .head = 100 };
	uint32_t idx = MR_IDX, idx2 = 4, idx3 = 5;
	int i;

	if (set_qp(QPN, MRC_QPS_RTS) || set_qp(QPN_INIT, MRC_QPS_INIT) ||
	    bpf_map_update_elem(bpf_map__fd(skel->maps.mrc_mr_info), &idx, &mr,
				BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(skel->maps.mrc_mr_info), &idx2,
				&other, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(skel->maps.mrc_mr_info), &idx3,
				&headed, BPF_ANY))
		return -1;
	for (i = 0; i < CHUNKS; i++)
		memset(mr_mem + (size_t)i * MRC_MR_ELEM, 0, MRC_MR_ELEM);
	if (zero_percpu(skel->maps.mrc_drop, MRC_DROP_MAX) ||
	    zero_percpu(skel->maps.mrc_rx_stats, MRC_RX_MAX) || drain_cq())
		return -1;
	ncqes = 0;
	return 0;
}

/* The region's byte at offset off, through the application's view. */
static uint8_t mr_byte(uint64_t off)
{
	return mr_mem[(off / MRC_MR_CHUNK) * MRC_MR_ELEM + off % MRC_MR_CHUNK];
}

static int mr_untouched(void)
{
	uint64_t off;

	for (off = 0; off < MR_LEN; off += 1)
		if (mr_byte(off))
			return 0;
	return 1;
}

/* Region bytes [off, off + len) hold the pattern pkt_pattern(len, seed). */
static int mr_holds(uint64_t off, uint32_t len, uint8_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (mr_byte(off + i) != (uint8_t)(seed + i * 7))
			return 0;
	return 1;
}

/* --- checks ---------------------------------------------------------------- */

static int placed_100(const struct fixture_out *o)
{
	(void)o;
	EXPECT(mr_holds(0, 100, CUM));
	EXPECT(mr_byte(100) == 0);
	EXPECT(rxc(MRC_RX_PLACED_BYTES) == 100);
	EXPECT(rxc(MRC_RX_ACKS) == 1);
	EXPECT(total_drops() == 0);
	EXPECT(drain_cq() == 0 && ncqes == 0); /* plain WRITE: no completion */
	return 0;
}

static int placed_ooo(const struct fixture_out *o)
{
	(void)o;
	EXPECT(mr_holds(0, 100, CUM + 2));
	EXPECT(drain_cq() == 0 && ncqes == 0);
	return 0;
}

static int completed_imm(const struct fixture_out *o)
{
	(void)o;
	EXPECT(mr_holds(0, 100, CUM));
	EXPECT(drain_cq() == 0 && ncqes == 1);
	EXPECT(cqes[0].qpn == QPN && cqes[0].seq == 0);
	EXPECT(cqes[0].opcode == MRC_WC_RECV_RDMA_WITH_IMM);
	EXPECT(ntohl(cqes[0].imm) == 0xfeedf00d);
	EXPECT(cqes[0].byte_len == 4100 && cqes[0].psn == CUM);
	EXPECT(rxc(MRC_RX_COMPLETIONS) == 1);
	return 0;
}

static int counted_ce(const struct fixture_out *o)
{
	(void)o;
	EXPECT(rxc(MRC_RX_ECN_CE) == 1);
	return 0;
}

static int placed_across_chunks(const struct fixture_out *o)
{
	(void)o;
	EXPECT(mr_holds(MRC_MR_CHUNK - 40, 100, CUM));
	EXPECT(mr_byte(MRC_MR_CHUNK - 41) == 0 &&
	       mr_byte(MRC_MR_CHUNK + 60) == 0);
	return 0;
}

static int placed_at_end(const struct fixture_out *o)
{
	(void)o;
	EXPECT(mr_holds(MR_LEN - 100, 100, CUM));
	return 0;
}

/* A rejected packet: its own counter, nothing else, nothing written. */
#define REJECTED(fn, reason, nacks)                    \
	static int fn(const struct fixture_out *o)     \
	{                                              \
		(void)o;                               \
		EXPECT(drops(reason) == 1);            \
		EXPECT(total_drops() == 1);            \
		EXPECT(mr_untouched());                \
		EXPECT(rxc(MRC_RX_PLACED_BYTES) == 0); \
		EXPECT(rxc(MRC_RX_NACKS) == (nacks));  \
		EXPECT(drain_cq() == 0 && ncqes == 0); \
		return 0;                              \
	}

REJECTED(rejected_rkey, MRC_DROP_BAD_RKEY, 1)
REJECTED(rejected_bounds, MRC_DROP_BOUNDS, 1)
REJECTED(rejected_window, MRC_DROP_PSN_WINDOW, 1)
REJECTED(rejected_dup, MRC_DROP_DUPLICATE, 0)
REJECTED(rejected_csum, MRC_DROP_CHECKSUM, 1)
REJECTED(rejected_no_csum, MRC_DROP_NO_CHECKSUM, 0)
REJECTED(rejected_trimmed, MRC_DROP_TRIMMED, 1)
REJECTED(rejected_length, MRC_DROP_BAD_LENGTH, 0)
REJECTED(rejected_qp, MRC_DROP_UNKNOWN_QP, 0)
REJECTED(rejected_qp_state, MRC_DROP_QP_STATE, 1)
REJECTED(rejected_version, MRC_DROP_BAD_VERSION, 0)
REJECTED(rejected_opcode, MRC_DROP_BAD_OPCODE, 0)
REJECTED(rejected_truncated, MRC_DROP_TRUNCATED, 0)

static int passed_untouched(const struct fixture_out *o)
{
	(void)o;
	EXPECT(total_drops() == 0);
	EXPECT(rxc(MRC_RX_PACKETS) == 0);
	EXPECT(mr_untouched());
	return 0;
}

static int zero_len_acked(const struct fixture_out *o)
{
	(void)o;
	EXPECT(mr_untouched());
	EXPECT(rxc(MRC_RX_ACKS) == 1);
	return 0;
}

/* One case: description, input, verdict, expected frame, check. */
#define FX(d, i, v, o, c)                                              \
	{                                                              \
		.desc = d, .in = i, .verdict = v, .out = o, .check = c \
	}

static const struct fixture cases[] = {
	FX("WRITE placed, ACK cum+1", write_in, XDP_TX, write_ack, placed_100),
	FX("WRITE over IPv6 placed, ACK", write6_in, XDP_TX, write6_ack,
	   placed_100),
	FX("WRITE out of order: placed, SACK bit, cum stays", ooo_in, XDP_TX,
	   ooo_ack, placed_ooo),
	FX("WRITE_IMM last packet: placed, one completion", imm_in, XDP_TX,
	   imm_ack, completed_imm),
	FX("CE-marked data: ACK echoes CE", ce_in, XDP_TX, ce_ack, counted_ce),
	FX("write across a chunk boundary: split, exact", chunk_cross_in,
	   XDP_TX, write_ack, placed_across_chunks),
	FX("write ending at the region's last byte", region_end_in, XDP_TX,
	   write_ack, placed_at_end),
	FX("zero-length WRITE: acked, nothing written", zero_len_in, XDP_TX,
	   write_ack, zero_len_acked),
	FX("bad rkey: NACK rkey, nothing written", bad_rkey_in, XDP_TX,
	   bad_rkey_nack, rejected_rkey),
	FX("rkey of another PD: NACK rkey", other_pd_rkey_in, XDP_TX,
	   bad_rkey_nack, rejected_rkey),
	FX("one byte past the region: NACK bounds", past_end_in, XDP_TX,
	   bounds_nack, rejected_bounds),
	FX("one byte before the region: NACK bounds", below_start_in, XDP_TX,
	   bounds_nack, rejected_bounds),
	FX("into the page head before a mid-page region: NACK bounds",
	   in_head_in, XDP_TX, bounds_nack, rejected_bounds),
	FX("address wrapping 2^64: NACK bounds", wrap_in, XDP_TX, bounds_nack,
	   rejected_bounds),
	FX("PSN beyond the window: NACK window", window_in, XDP_TX, window_nack,
	   rejected_window),
	FX("PSN below cum (old duplicate): ACK, not placed", old_psn_in, XDP_TX,
	   old_psn_ack, rejected_dup),
	FX("bad UDP checksum: NACK checksum, nothing written", bad_csum_in,
	   XDP_TX, bad_csum_nack, rejected_csum),
	FX("no UDP checksum: dropped", no_csum_in, XDP_DROP, NULL,
	   rejected_no_csum),
	FX("trimmed (DSCP mark, cut payload): NACK trimmed", trimmed_in, XDP_TX,
	   trimmed_nack, rejected_trimmed),
	FX("payload shorter than RETH, unmarked: NACK trimmed",
	   short_unmarked_in, XDP_TX, trimmed_nack, rejected_trimmed),
	FX("payload longer than RETH: dropped", long_payload_in, XDP_DROP, NULL,
	   rejected_length),
	FX("unknown QP: dropped", unknown_qp_in, XDP_DROP, NULL, rejected_qp),
	FX("QP number beyond the table: dropped", huge_qpn_in, XDP_DROP, NULL,
	   rejected_qp),
	FX("QP in INIT: NACK qp state", init_qp_in, XDP_TX, init_qp_nack,
	   rejected_qp_state),
	FX("unknown wire version: dropped", version_in, XDP_DROP, NULL,
	   rejected_version),
	FX("SEND opcode (not MRC): dropped", send_opcode_in, XDP_DROP, NULL,
	   rejected_opcode),
	FX("BTH cut short: dropped", bth_cut, XDP_DROP, NULL,
	   rejected_truncated),
	FX("DEXT cut short: dropped", dext_cut, XDP_DROP, NULL,
	   rejected_truncated),
	FX("UDP length beyond the frame: dropped", udp_len_lies, XDP_DROP, NULL,
	   rejected_truncated),
	FX("UDP to another port: passed, untouched", not_mrc_in, XDP_PASS,
	   not_mrc_in, passed_untouched),
	FX("mrcd's control message (0xc2): passed, untouched", ctl_in, XDP_PASS,
	   ctl_in, passed_untouched),
	FX("ACK for a QP with no send side: dropped", ack_in, XDP_DROP, NULL,
	   rejected_qp),
};

/* --- sequences --------------------------------------------------------------- */

static int run_prog(int prog_fd, const struct wr *w, size_t pad,
		    struct pkt *out)
{
	static struct pkt in;
	struct xdp_md ctx = {};

	LIBBPF_OPTS(bpf_test_run_opts, opts);

	pkt_init(&in);
	data(&in, w);
	/* Trailing bytes beyond the IP datagram, as a link may pad it. */
	memset(in.data + in.len, 0xa5, pad);
	in.len += pad;
	ctx.data_end = in.len;
	ctx.ingress_ifindex = 1;
	opts.data_in = in.data;
	opts.data_size_in = in.len;
	opts.ctx_in = &ctx;
	opts.ctx_size_in = sizeof(ctx);
	if (out) {
		pkt_init(out);
		opts.data_out = out->data;
		opts.data_size_out = sizeof(out->data);
	}
	if (bpf_prog_test_run_opts(prog_fd, &opts))
		return -1;
	if (out)
		out->len = opts.data_size_out;
	return opts.retval;
}

static int run(const struct wr *w, struct pkt *out)
{
	return run_prog(bpf_program__fd(skel->progs.mrc_xdp_rx), w, 0, out);
}

static uint32_t ack_reason(const struct pkt *a)
{
	struct mrc_aext ax;

	memcpy(&ax, a->data + a->len - sizeof(ax), sizeof(ax));
	return ax.nack_reason;
}

static uint32_t ack_cum(const struct pkt *a)
{
	struct mrc_aext ax;

	memcpy(&ax, a->data + a->len - sizeof(ax), sizeof(ax));
	return ntohl(ax.cum_psn);
}

/*
 * Three WRITE_IMM messages of one packet each arrive 102, 101, 103, then
 * the plain WRITE 100 fills the hole: the completions come out once each,
 * in PSN order (101, 102, 103), with their own immediates.
 */
static void imm_completions_in_order(void **state)
{
	static struct pkt out;
	const uint32_t order[] = { CUM + 2, CUM + 1, CUM + 3, CUM };
	unsigned int i;

	(void)state;
	assert_int_equal(reset(), 0);
	for (i = 0; i < 4; i++) {
		struct wr w = def_wr();

		w.psn = order[i];
		w.va = VA + (w.psn - CUM) * 100;
		if (w.psn != CUM) {
			w.op = MRC_OP_WRITE_ONLY_IMM;
			w.imm = 0x1000 + w.psn;
		}
		assert_int_equal(run(&w, &out), XDP_TX);
		assert_int_equal(ack_cum(&out), i < 3 ? CUM : CUM + 4);
		assert_int_equal(drain_cq(), 0);
		assert_int_equal(ncqes, 0 + (i == 3 ? 3 : 0));
	}
	for (i = 0; i < 3; i++) {
		assert_int_equal(cqes[i].seq, i);
		assert_int_equal(cqes[i].psn, CUM + 1 + i);
		assert_int_equal(ntohl(cqes[i].imm), 0x1000 + CUM + 1 + i);
	}
	for (i = 0; i < 4; i++)
		assert_true(mr_holds(i * 100, 100, (uint8_t)(CUM + i)));
}

static uint8_t ack_flags(const struct pkt *a)
{
	struct mrc_aext ax;

	memcpy(&ax, a->data + a->len - sizeof(ax), sizeof(ax));
	return ax.flags;
}

/*
 * Coalesced ACKs (MRC_DF_ACK_LATER): the packet is placed and completes
 * as any other, and its ACK is left to a later packet's (XDP_DROP,
 * counted acks_deferred); that ACK's cumulative PSN covers it. A CE-marked
 * one is answered at once, echoing the mark; so is a duplicate, whose
 * sender lost the ACK that covered it, and one that arrives after an ACK
 * for a later PSN left.
 */
static void ack_later_deferred_then_covered(void **state)
{
	static struct pkt out;
	struct wr w = def_wr();
	uint64_t deferred = rxc(MRC_RX_ACKS_DEFERRED);
	unsigned int i;

	(void)state;
	assert_int_equal(reset(), 0);
	for (i = 0; i < 3; i++) {
		w = def_wr();
		w.psn = CUM + i;
		w.va = VA + i * 100;
		w.flags = MRC_DF_ACK_LATER;
		if (i == 2) {
			w.op = MRC_OP_WRITE_ONLY_IMM;
			w.imm = 77;
			w.flags |= MRC_DF_LAST;
		}
		assert_int_equal(run(&w, &out), XDP_DROP);
		assert_true(mr_holds(i * 100, 100, (uint8_t)(CUM + i)));
	}
	assert_int_equal(rxc(MRC_RX_ACKS_DEFERRED) - deferred, 3);
	assert_int_equal(total_drops(), 0);
	/* The receive completion does not wait for an ACK. */
	assert_int_equal(drain_cq(), 0);
	assert_int_equal(ncqes, 1);
	/* CE: answered at once, the mark echoed, covering all before. */
	w = def_wr();
	w.psn = CUM + 3;
	w.va = VA + 300;
	w.flags = MRC_DF_ACK_LATER;
	w.tos = 0x03;
	assert_int_equal(run(&w, &out), XDP_TX);
	assert_int_equal(ack_cum(&out), CUM + 4);
	assert_true(ack_flags(&out) & MRC_AF_ECN_CE);
	/* A later packet that asks: its ACK covers the deferred ones. */
	w = def_wr();
	w.psn = CUM + 5;
	w.va = VA + 500;
	w.flags = MRC_DF_ACK_LATER;
	assert_int_equal(run(&w, &out), XDP_DROP);
	w.psn = CUM + 4;
	w.va = VA + 400;
	w.flags = 0;
	assert_int_equal(run(&w, &out), XDP_TX);
	assert_int_equal(ack_cum(&out), CUM + 6);
	/* A resend of a deferred PSN: a duplicate, answered at once. */
	w.psn = CUM + 5;
	w.va = VA + 500;
	w.flags = MRC_DF_ACK_LATER | MRC_DF_RETX;
	assert_int_equal(run(&w, &out), XDP_TX);
	assert_int_equal(ack_cum(&out), CUM + 6);
	assert_int_equal(drops(MRC_DROP_DUPLICATE), 1);
	assert_int_equal(rxc(MRC_RX_ACKS_DEFERRED) - deferred, 4);
	/*
	 * Overtaken: PSN 7 asks and is answered; PSN 6, sent before it and
	 * flagged ACK_LATER, arrives after that answer left without it, and
	 * completes what it left open: answered at once (no later ACK is
	 * sure to come).
	 */
	w.psn = CUM + 7;
	w.va = VA + 700;
	w.flags = 0;
	assert_int_equal(run(&w, &out), XDP_TX);
	assert_int_equal(ack_cum(&out), CUM + 6);
	w.psn = CUM + 6;
	w.va = VA + 600;
	w.flags = MRC_DF_ACK_LATER;
	assert_int_equal(run(&w, &out), XDP_TX);
	assert_int_equal(ack_cum(&out), CUM + 8);
	assert_int_equal(rxc(MRC_RX_ACKS_DEFERRED) - deferred, 4);
	/* 11 asks with 8-10 missing; late 9 and 10 wait for 8, whose
	 * answer covers all three. */
	w.psn = CUM + 11;
	w.va = VA + 1100;
	w.flags = 0;
	assert_int_equal(run(&w, &out), XDP_TX);
	assert_int_equal(ack_cum(&out), CUM + 8);
	for (i = 0; i < 3; i++) {
		w.psn = CUM + (i < 2 ? 9 + i : 8);
		w.va = VA + (w.psn - CUM) * 100;
		w.flags = MRC_DF_ACK_LATER;
		assert_int_equal(run(&w, &out), i < 2 ? XDP_DROP : XDP_TX);
	}
	assert_int_equal(ack_cum(&out), CUM + 12);
	assert_int_equal(rxc(MRC_RX_ACKS_DEFERRED) - deferred, 6);
}

/*
 * A retransmission of a PSN already received never completes twice and
 * never writes: the application may already have reused that memory.
 */
static void duplicates_neither_complete_nor_write(void **state)
{
	struct wr w = def_wr();
	static struct pkt out;

	(void)state;
	assert_int_equal(reset(), 0);
	w.op = MRC_OP_WRITE_ONLY_IMM;
	w.imm = 42;
	assert_int_equal(run(&w, &out), XDP_TX);
	assert_int_equal(drain_cq(), 0);
	assert_int_equal(ncqes, 1);
	/* The application reuses the buffer... */
	memset(mr_mem, 0xee, 100);
	/* ...and the retransmission of PSN 100 arrives, twice. */
	assert_int_equal(run(&w, &out), XDP_TX);
	assert_int_equal(run(&w, &out), XDP_TX);
	assert_int_equal(ack_cum(&out), CUM + 1);
	assert_int_equal(drain_cq(), 0);
	assert_int_equal(ncqes, 1);
	assert_int_equal(mr_mem[0], 0xee);
	assert_int_equal(mr_mem[99], 0xee);
	assert_int_equal(drops(MRC_DROP_DUPLICATE), 2);
}

/*
 * A multi-packet WRITE_IMM: only the packet flagged last carries the
 * completion, and it fires when every earlier PSN is in, not before.
 */
static void multi_packet_imm_completes_when_whole(void **state)
{
	static struct pkt out;
	uint32_t psn;

	(void)state;
	assert_int_equal(reset(), 0);
	for (psn = CUM + 3; psn >= CUM; psn--) { /* arrives backwards */
		struct wr w = def_wr();

		w.op = MRC_OP_WRITE_ONLY_IMM;
		w.imm = 7;
		w.psn = psn;
		w.flags = psn == CUM + 3 ? MRC_DF_LAST : 0;
		w.msg_len = 400;
		w.va = VA + (psn - CUM) * 100;
		assert_int_equal(run(&w, &out), XDP_TX);
		assert_int_equal(drain_cq(), 0);
		assert_int_equal(ncqes, psn == CUM ? 1 : 0);
	}
	assert_int_equal(cqes[0].byte_len, 400);
	assert_int_equal(cqes[0].psn, CUM + 3);
}

/* The window follows cum across the 24-bit PSN wrap. */
static void psn_wraps(void **state)
{
	static struct mrc_qp_rx qp;
	static struct pkt out;
	uint32_t qpn = QPN, i;

	(void)state;
	assert_int_equal(reset(), 0);
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(skel->maps.mrc_qp),
					     &qpn, &qp),
			 0);
	qp.cum_psn = qp.cqe_psn = MRC_BTH_PSN_MASK - 1;
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(skel->maps.mrc_qp),
					     &qpn, &qp, BPF_ANY),
			 0);
	for (i = 0; i < 4; i++) {
		struct wr w = def_wr();

		w.psn = (MRC_BTH_PSN_MASK - 1 + i) & MRC_BTH_PSN_MASK;
		w.va = VA + i * 100;
		assert_int_equal(run(&w, &out), XDP_TX);
		assert_int_equal(ack_cum(&out), (w.psn + 1) & MRC_BTH_PSN_MASK);
	}
	assert_int_equal(ack_cum(&out), 2);
	assert_int_equal(drops(MRC_DROP_PSN_WINDOW), 0);
}

/*
 * A PSN 512 or more beyond cum lands on the ring slot of a PSN in the
 * window; that slot's bit says nothing about it. It is out of the window
 * (NACKed so), not a duplicate.
 */
static void beyond_ring_is_out_of_window(void **state)
{
	static struct pkt out;
	struct wr w = def_wr();

	(void)state;
	assert_int_equal(reset(), 0);
	w.psn = CUM + 2;
	assert_int_equal(run(&w, &out), XDP_TX);
	w.psn = CUM + 2 + MRC_RX_RING;
	w.va = VA + 1000;
	assert_int_equal(run(&w, &out), XDP_TX);
	assert_int_equal(ack_reason(&out), MRC_NACK_PSN_WINDOW);
	assert_int_equal(drops(MRC_DROP_PSN_WINDOW), 1);
	assert_int_equal(drops(MRC_DROP_DUPLICATE), 0);
	assert_int_equal(mr_byte(1000), 0);
}

/*
 * A QP whose receive CQ has no ring loses only the completions that were
 * due: a plain WRITE advancing cum completes nothing and counts nothing.
 */
static void ringless_cq_counts_only_completions(void **state)
{
	static struct mrc_qp_rx qp;
	static struct pkt out;
	uint32_t qpn = QPN;
	struct wr w = def_wr();

	(void)state;
	assert_int_equal(reset(), 0);
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(skel->maps.mrc_qp),
					     &qpn, &qp),
			 0);
	qp.recv_cq = 9; /* no ring there */
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(skel->maps.mrc_qp),
					     &qpn, &qp, BPF_ANY),
			 0);
	assert_int_equal(run(&w, &out), XDP_TX);
	assert_int_equal(ack_cum(&out), CUM + 1);
	assert_int_equal(drops(MRC_DROP_CQ_OVERFLOW), 0);
	w.psn = CUM + 1;
	w.op = MRC_OP_WRITE_ONLY_IMM;
	assert_int_equal(run(&w, &out), XDP_TX);
	assert_int_equal(drops(MRC_DROP_CQ_OVERFLOW), 1);
}

/*
 * A multi-buffer frame (a frags-aware program, a frame longer than the
 * linear part) becomes exactly the ACK a one-buffer frame becomes: the
 * tail is cut over the fragments too.
 */
static void multibuffer_frame_acked_exactly(void **state)
{
	static struct pkt out, want;
	struct wr w = def_wr();
	uint32_t sack[8] = { 0 };

	(void)state;
	assert_int_equal(reset(), 0);
	w.len = w.paylen = w.msg_len = 2048;
	assert_int_equal(run_prog(bpf_program__fd(frags->progs.mrc_xdp_rx), &w,
				  3000, &out),
			 XDP_TX);
	pkt_init(&want);
	ack(&want, &w, 0, CUM + 1, sack, 0);
	if (out.len != want.len || memcmp(out.data, want.data, want.len))
		fixture_diff(want.data, want.len, out.data, out.len);
	assert_int_equal(out.len, want.len);
	assert_memory_equal(out.data, want.data, want.len);
	assert_true(mr_holds(0, 2048, CUM));
}

/*
 * The receiver sums a datagram in place in blocks of 512 bytes down to 4
 * and pads the last 1-3 (bpf/lib/pkt.h): every payload length below, each
 * ending in another mix of blocks, is placed and acknowledged when its
 * checksum is right, and NACKed with nothing placed when its last byte is
 * flipped (the odd tail is where a padding slip would hide).
 */
static void checksum_every_tail_length(void **state)
{
	static const uint32_t lens[] = {
		1,   2,	  3,	4,    5,    6,	  7,	8,    9,    15,	 17,
		31,  33,  63,	65,   127,  129,  255,	257,  511,  512, 513,
		514, 515, 1023, 1025, 2047, 2049, 2923, 2924, 3001, 3297
	};
	static struct pkt out;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		struct wr w = def_wr();

		w.len = w.paylen = w.msg_len = lens[i];
		assert_int_equal(reset(), 0);
		assert_int_equal(run(&w, &out), XDP_TX);
		if (ack_reason(&out) != 0 || !mr_holds(0, lens[i], CUM))
			fail_msg("payload of %u bytes: NACK %u or not placed",
				 lens[i], ack_reason(&out));
		assert_int_equal(reset(), 0);
		w.corrupt = 1;
		assert_int_equal(run(&w, &out), XDP_TX);
		if (ack_reason(&out) != MRC_NACK_CHECKSUM || !mr_untouched())
			fail_msg("payload of %u bytes, last byte flipped: "
				 "NACK %u, region %s",
				 lens[i], ack_reason(&out),
				 mr_untouched() ? "untouched" : "written");
	}
}

static int count_cqe(void *ctx, void *d, size_t len)
{
	(*(int *)ctx)++;
	(void)d;
	(void)len;
	return 0;
}

/*
 * Back-pressure: a receive CQ ring of 64 KiB, never polled, takes
 * one-packet WRITE_IMMs only while it has room for a window's worth
 * (MRC_CQ_ROOM_BYTES) on each of two CPUs: about 850 of 1,365 records; the next ones are not taken (nothing placed, no ACK,
 * counted cq_full), so no completion is ever lost. Once polled, the
 * packet refused before is taken.
 */
static void full_cq_refuses_and_loses_nothing(void **state)
{
	static struct mrc_qp_rx qp;
	static struct pkt out;
	struct ring_buffer *small;
	uint32_t qpn = QPN, idx = 2, psn;
	int fd, got = 0, taken = 0;

	(void)state;
	assert_int_equal(reset(), 0);
	const int room = ((1 << 16) - (int)MRC_CQ_ROOM_BYTES) /
			 (8 + (int)sizeof(struct mrc_cqe));

	fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "mrc_cq_2", 0, 0, 1 << 16,
			    NULL);
	assert_true(fd >= 0);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(skel->maps.mrc_cq),
					     &idx, &fd, BPF_ANY),
			 0);
	small = ring_buffer__new(fd, count_cqe, &got, NULL);
	close(fd);
	assert_non_null(small);
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(skel->maps.mrc_qp),
					     &qpn, &qp),
			 0);
	qp.recv_cq = idx;
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(skel->maps.mrc_qp),
					     &qpn, &qp, BPF_ANY),
			 0);
	for (psn = CUM; psn < CUM + 2 * (uint32_t)room; psn++) {
		struct wr w = def_wr();

		w.op = MRC_OP_WRITE_ONLY_IMM;
		w.len = w.paylen = 0;
		w.psn = psn;
		if (run(&w, &out) != XDP_TX)
			break;
		taken++;
	}
	assert_true(taken >= room - 1 && taken <= room + 1);
	assert_int_equal(drops(MRC_DROP_CQ_FULL), 1);
	assert_int_equal(drops(MRC_DROP_CQ_OVERFLOW), 0);
	assert_int_equal(ring_buffer__consume(small), taken);
	assert_int_equal(got, taken); /* every one taken completed */
	{
		struct wr w = def_wr();

		w.op = MRC_OP_WRITE_ONLY_IMM;
		w.len = w.paylen = 0;
		w.psn = CUM + (uint32_t)taken; /* the refused one, resent */
		assert_int_equal(run(&w, &out), XDP_TX);
		assert_int_equal(ack_cum(&out), CUM + (uint32_t)taken + 1);
	}
	assert_int_equal(ring_buffer__consume(small), 1);
	ring_buffer__free(small);
	idx = 2;
	bpf_map_delete_elem(bpf_map__fd(skel->maps.mrc_cq), &idx);
}

/* Load the receive program again, frags-aware, over skel's maps. */
static int load_frags(void)
{
	struct bpf_map *m;

	frags = mrc_xdp_rx__open();
	if (!frags)
		return -1;
	frags->rodata->trim_dscp = TRIM_DSCP;
	/* ACKs compared byte for byte: no clock reading in them. */
	frags->rodata->report_svc = 0;
	bpf_program__set_flags(frags->progs.mrc_xdp_rx,
			       bpf_program__flags(frags->progs.mrc_xdp_rx) |
				       BPF_F_XDP_HAS_FRAGS);
	bpf_object__for_each_map(m, frags->obj)
	{
		struct bpf_map *same;

		/*
		 * A program array takes programs of one frags flag only, and
		 * skel's mrc_turn_hook and mrc_ack_clock are skel's: this
		 * copy keeps its own.
		 */
		if (bpf_map__is_internal(m) || m == frags->maps.mrc_turn_hook ||
		    m == frags->maps.mrc_ack_clock)
			continue;
		same = bpf_object__find_map_by_name(skel->obj,
						    bpf_map__name(m));
		if (!same || bpf_map__reuse_fd(m, bpf_map__fd(same)))
			return -1;
	}
	if (mrc_xdp_rx__load(frags)) {
		fprintf(stderr, "loading mrc_xdp_rx with frags: %s\n",
			strerror(errno));
		return -1;
	}
	return 0;
}

static int setup(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, mmapable,
		    .map_flags = BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	uint32_t idx = MR_IDX, zero = 0;
	int mr_fd, cq_fd;

	skel = mrc_xdp_rx__open();
	if (!skel)
		return -1;
	skel->rodata->trim_dscp = TRIM_DSCP;
	/* ACKs compared byte for byte: no clock reading in them. */
	skel->rodata->report_svc = 0;
	if (mrc_xdp_rx__load(skel)) {
		fprintf(stderr, "loading mrc_xdp_rx: %s\n", strerror(errno));
		return -1;
	}
	mr_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "mrc_mr_3", 4, MRC_MR_ELEM,
			       CHUNKS, &mmapable);
	cq_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "mrc_cq_0", 0, 0, 1 << 16,
			       NULL);
	if (mr_fd < 0 || cq_fd < 0 ||
	    bpf_map_update_elem(bpf_map__fd(skel->maps.mrc_mr), &idx, &mr_fd,
				BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(skel->maps.mrc_cq), &zero, &cq_fd,
				BPF_ANY)) {
		fprintf(stderr, "MR/CQ maps: %s\n", strerror(errno));
		return -1;
	}
	mr_mem = mmap(NULL, (size_t)CHUNKS * MRC_MR_ELEM,
		      PROT_READ | PROT_WRITE, MAP_SHARED, mr_fd, 0);
	cq = ring_buffer__new(cq_fd, on_cqe, NULL, NULL);
	if (mr_mem == MAP_FAILED || !cq)
		return -1;
	/* The outer maps and the mapping hold them now. */
	close(mr_fd);
	close(cq_fd);
	return load_frags();
}

int main(void)
{
	const struct CMUnitTest sequences[] = {
		cmocka_unit_test(imm_completions_in_order),
		cmocka_unit_test(duplicates_neither_complete_nor_write),
		cmocka_unit_test(ack_later_deferred_then_covered),
		cmocka_unit_test(multi_packet_imm_completes_when_whole),
		cmocka_unit_test(psn_wraps),
		cmocka_unit_test(beyond_ring_is_out_of_window),
		cmocka_unit_test(ringless_cq_counts_only_completions),
		cmocka_unit_test(multibuffer_frame_acked_exactly),
		cmocka_unit_test(checksum_every_tail_length),
		cmocka_unit_test(full_cq_refuses_and_loses_nothing),
	};
	int failed;

	if (geteuid() != 0) {
		printf("SKIP: test_xdp_rx needs root (BPF)\n");
		return 77;
	}
	if (setup())
		return 1;
	failed = fixture_run_xdp("receive pipeline fixtures", cases,
				 sizeof(cases) / sizeof(cases[0]),
				 bpf_program__fd(skel->progs.mrc_xdp_rx),
				 reset);
	failed += cmocka_run_group_tests_name("receive pipeline sequences",
					      sequences, NULL, NULL);
	ring_buffer__free(cq);
	munmap(mr_mem, (size_t)CHUNKS * MRC_MR_ELEM);
	mrc_xdp_rx__destroy(frags);
	mrc_xdp_rx__destroy(skel);
	return failed ? 1 : 0;
}
