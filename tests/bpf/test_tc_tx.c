// SPDX-License-Identifier: GPL-2.0
/*
 * Fixture tests of the low-latency transmit path (bpf/mrc_tc_tx.bpf.c)
 * through BPF_PROG_TEST_RUN on the tc program: what lo carries besides
 * doorbells passes untouched, every malformed doorbell drops with its own
 * reason, and a valid doorbell becomes the QP's next packet, which the
 * peer's receive program accepts, places and ACKs, and whose ACK the
 * sender's receive program takes in.
 *
 *   app --doorbell (UDP 127.0.0.1:4792)--> mrc_tc_tx on lo --data-->
 *       port 0: 198.18.0.1 -> 198.18.0.2 (IPv4), MAC ..:01:00 -> ..:02:00
 *       port 1: fd00:3::1 -> fd00:3::2 (IPv6), MAC ..:01:01 -> ..:02:01
 *   --> peer mrc_xdp_rx (its own maps): QP 77, MR 3 at VA 0x7f0000000000
 *   <--ACK-- sender mrc_xdp_rx (the tc program's maps): QP 5, send CQ 0
 *
 * test_run hands the program a CHECKSUM_NONE skb, so these cases check the
 * full UDP checksum; the CHECKSUM_PARTIAL skb a plain UDP socket makes is
 * checked live (docs/lowlat.md).
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
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fixture.h"
#include "mrc/abi.h"
#include "mrc/drop.h"
#include "mrc/wire.h"
#include "mrc_tc_tx.skel.h"
#include "mrc_xdp_rx.skel.h"

#define S_QPN 5 /* sender's QP, the one rung */
#define R_QPN 77 /* receiver's */
#define IDLE_QPN 6 /* in RTS, token set, nothing posted */
#define NOTOKEN_QPN 8 /* in RTS, no token: takes no doorbells */
#define TOKEN 0x0123456789abcdefull
#define MR_IDX 3
#define S_LKEY ((0x5151u << MRC_RKEY_INDEX_BITS) | MR_IDX)
/* Another process's region on the sender, in protection domain 2. */
#define OTHER_IDX 4
#define OTHER_LKEY ((0x0badu << MRC_RKEY_INDEX_BITS) | OTHER_IDX)
#define R_RKEY ((0x7777u << MRC_RKEY_INDEX_BITS) | MR_IDX)
#define R_VA 0x7f0000000000ull
#define MR_LEN ((uint64_t)MRC_MR_CHUNK)
#define FIRST_PSN 1000
#define MTU 1024
#define EV_V4 50000
#define EV_V6 50001
#define IMM 0xfeedf00du

static struct mrc_tc_tx *tc;
static struct mrc_xdp_rx *srx, *rrx; /* sender's, receiver's */
static uint8_t *smr, *rmr; /* their regions, chunk 0 */
static struct ring_buffer *scq, *rcq;
static struct mrc_cqe cqes[16];
static int ncqes;
static struct mrc_sq *sq;

static int on_cqe(void *ctx, void *d, size_t len)
{
	(void)ctx;
	if (len != sizeof(struct mrc_cqe) || ncqes == 16)
		return -EINVAL;
	memcpy(&cqes[ncqes++], d, len);
	return 0;
}

static int add_inner(struct bpf_map *outer, uint32_t key, int fd)
{
	return bpf_map_update_elem(bpf_map__fd(outer), &key, &fd, BPF_ANY);
}

/* Region (one chunk), CQ 0 and the region's description on one side. */
static int setup_side(struct mrc_xdp_rx *rx, uint32_t key, uint8_t **mem,
		      struct ring_buffer **cq)
{
	LIBBPF_OPTS(bpf_map_create_opts, mm,
		    .map_flags = BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	struct mrc_mr_info mr = {
		.rkey = key, .pd = 1, .va = R_VA, .len = MR_LEN, .access = 2
	};
	uint32_t idx = MR_IDX;
	int mr_fd, cq_fd;

	mr_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "mrc_mr", 4, MRC_MR_ELEM, 1,
			       &mm);
	cq_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "mrc_cq", 0, 0, 1 << 16,
			       NULL);
	if (mr_fd < 0 || cq_fd < 0 || add_inner(rx->maps.mrc_mr, idx, mr_fd) ||
	    add_inner(rx->maps.mrc_cq, 0, cq_fd) ||
	    bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_mr_info), &idx, &mr,
				BPF_ANY))
		return -1;
	*mem = mmap(NULL, MRC_MR_ELEM, PROT_READ | PROT_WRITE, MAP_SHARED,
		    mr_fd, 0);
	*cq = ring_buffer__new(cq_fd, on_cqe, NULL, NULL);
	close(mr_fd);
	close(cq_fd);
	return *mem == MAP_FAILED || !*cq ? -1 : 0;
}

/* The tc program shares every map of the sender's receive program. */
static int setup_tc(void)
{
	struct bpf_map *m, *same;

	tc = mrc_tc_tx__open();
	if (!tc)
		return -1;
	bpf_object__for_each_map(m, tc->obj)
	{
		if (bpf_map__is_internal(m))
			continue; /* .rodata: the program's own */
		same = bpf_object__find_map_by_name(srx->obj, bpf_map__name(m));
		if (!same || bpf_map__reuse_fd(m, bpf_map__fd(same)))
			return -1;
	}
	return mrc_tc_tx__load(tc);
}

static int setup(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, mm, .map_flags = BPF_F_MMAPABLE);
	struct mrc_port port[2] = {
		{ .ifindex = 1,
		  .smac = { 2, 0, 0, 1, 0, 0 },
		  .dmac = { 2, 0, 0, 2, 0, 0 },
		  .saddr = { 198, 18, 0, 1 } },
		{ .ifindex = 1,
		  .v6 = 1,
		  .smac = { 2, 0, 0, 1, 0, 1 },
		  .dmac = { 2, 0, 0, 2, 0, 1 } },
	};
	uint32_t p, key = S_QPN;
	int sq_fd;

	srx = mrc_xdp_rx__open_and_load();
	rrx = mrc_xdp_rx__open_and_load();
	if (!srx || !rrx || setup_side(srx, S_LKEY, &smr, &scq) ||
	    setup_side(rrx, R_RKEY, &rmr, &rcq) || setup_tc())
		return -1;
	inet_pton(AF_INET6, "fd00:3::1", port[1].saddr);
	for (p = 0; p < 2; p++)
		if (bpf_map_update_elem(bpf_map__fd(srx->maps.mrc_port), &p,
					&port[p], BPF_ANY))
			return -1;
	sq_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "mrc_sq", 4,
			       sizeof(struct mrc_sq), 1, &mm);
	if (sq_fd < 0 || add_inner(srx->maps.mrc_sq, key, sq_fd))
		return -1;
	key = IDLE_QPN;
	if (add_inner(srx->maps.mrc_sq, key, sq_fd))
		return -1;
	sq = mmap(NULL, sizeof(*sq), PROT_READ | PROT_WRITE, MAP_SHARED, sq_fd,
		  0);
	close(sq_fd);
	return sq == MAP_FAILED ? -1 : 0;
}

/* Sender QP qpn over one EV on port (0: IPv4, 1: IPv6), token tok. */
static int set_qp_tx(uint32_t qpn, uint32_t port, uint64_t tok)
{
	static struct mrc_qp_tx qt;
	static struct mrc_qp_rx own;

	memset(&qt, 0, sizeof(qt));
	qt.state = MRC_QPS_RTS;
	qt.peer_qpn = R_QPN;
	qt.window = MRC_RX_WINDOW_MAX;
	qt.mtu = MTU;
	qt.nev = 1;
	qt.timeout_ns = 1000000000ull;
	qt.retry_linear = 3;
	qt.retry_exp = 4;
	qt.db_token = tok;
	qt.ev[0] = port ? EV_V6 : EV_V4;
	qt.ev_port[0] = port;
	memcpy(qt.peer_addr[0], (uint8_t[]){ 198, 18, 0, 2 }, 4);
	inet_pton(AF_INET6, "fd00:3::2", qt.peer_addr[1]);
	qt.next_psn = qt.una_psn = FIRST_PSN;
	/* Its receive half holds its protection domain, the regions'. */
	memset(&own, 0, sizeof(own));
	own.state = MRC_QPS_RTS;
	own.peer_qpn = R_QPN;
	own.pd = 1;
	own.window = MRC_RX_WINDOW_MAX;
	return bpf_map_update_elem(bpf_map__fd(srx->maps.mrc_qp_tx), &qpn, &qt,
				   BPF_ANY) ||
	       bpf_map_update_elem(bpf_map__fd(srx->maps.mrc_qp), &qpn, &own,
				   BPF_ANY);
}

/* Fresh QPs, counters, regions and rings; the sender's QP on port. */
static int reset(uint32_t port)
{
	static struct mrc_qp_rx qr;
	int ncpu = libbpf_num_possible_cpus();
	uint64_t zeros[ncpu];
	uint32_t k, r_qpn = R_QPN, none = 0;

	memset(zeros, 0, sizeof(zeros));
	for (k = 0; k < MRC_DROP_MAX; k++)
		bpf_map_update_elem(bpf_map__fd(srx->maps.mrc_drop), &k, zeros,
				    BPF_ANY);
	for (k = 0; k < MRC_TX_MAX; k++)
		bpf_map_update_elem(bpf_map__fd(srx->maps.mrc_tx_stats), &k,
				    zeros, BPF_ANY);
	memset(&qr, 0, sizeof(qr));
	qr.state = MRC_QPS_RTR;
	qr.peer_qpn = S_QPN;
	qr.pd = 1;
	qr.window = MRC_RX_WINDOW_MAX;
	qr.cum_psn = qr.cqe_psn = FIRST_PSN;
	if (set_qp_tx(S_QPN, port, TOKEN) || set_qp_tx(IDLE_QPN, 0, TOKEN) ||
	    set_qp_tx(NOTOKEN_QPN, 0, none) ||
	    bpf_map_update_elem(bpf_map__fd(rrx->maps.mrc_qp), &r_qpn, &qr,
				BPF_ANY))
		return -1;
	memset(sq, 0, sizeof(*sq));
	for (k = 0; k < 3 * MTU; k++) {
		smr[k] = (uint8_t)(k * 7 + 3);
		rmr[k] = 0;
	}
	ring_buffer__consume(scq);
	ring_buffer__consume(rcq);
	ncqes = 0;
	return 0;
}

/*
 * Another process's region on the sender (PD 2, its bytes 0xee), whose
 * key this process may know: its owner hands it to peers as an rkey.
 */
static int other_region(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, mm,
		    .map_flags = BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	struct mrc_mr_info mr = { .rkey = OTHER_LKEY,
				  .pd = 2,
				  .va = R_VA,
				  .len = MR_LEN,
				  .access = 2 };
	uint32_t idx = OTHER_IDX;
	uint8_t *mem;
	int fd;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "mrc_mr", 4, MRC_MR_ELEM, 1,
			    &mm);
	if (fd < 0 || add_inner(srx->maps.mrc_mr, idx, fd) ||
	    bpf_map_update_elem(bpf_map__fd(srx->maps.mrc_mr_info), &idx, &mr,
				BPF_ANY))
		return -1;
	mem = mmap(NULL, MRC_MR_ELEM, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   0);
	close(fd);
	if (mem == MAP_FAILED)
		return -1;
	memset(mem, 0xee, MRC_MR_CHUNK);
	munmap(mem, MRC_MR_ELEM);
	return 0;
}

static void post(uint64_t wr_id, uint32_t len, int imm)
{
	struct mrc_wqe *w = &sq->wqe[sq->tail % MRC_SQ_DEPTH];

	w->wr_id = wr_id;
	w->laddr = 0;
	w->raddr = R_VA;
	w->lkey = S_LKEY;
	w->rkey = R_RKEY;
	w->len = len;
	w->imm = htonl(IMM);
	w->opcode = imm ? MRC_WR_RDMA_WRITE_WITH_IMM : MRC_WR_RDMA_WRITE;
	w->flags = MRC_SEND_SIGNALED;
	__atomic_store_n(&sq->tail, sq->tail + 1, __ATOMIC_RELEASE);
}

/* --- frames ---------------------------------------------------------------- */

static const uint8_t zero_mac[6];

/* A doorbell as the stack puts it on lo: payload len bytes of db. */
static void doorbell_len(struct pkt *p, uint32_t magic, uint32_t qpn,
			 uint64_t token, size_t len)
{
	struct mrc_doorbell db = { .magic = htonl(magic),
				   .qpn = qpn,
				   .token = token };
	uint8_t buf[32] = {};

	memcpy(buf, &db, sizeof(db));
	pkt_eth(p, zero_mac, zero_mac);
	pkt_ipv4(p, "127.0.0.1", "127.0.0.1", 0);
	pkt_udp(p, 40000, MRC_DOORBELL_PORT);
	pkt_bytes(p, buf, len);
	pkt_finish(p);
}

static void doorbell(struct pkt *p, uint32_t qpn, uint64_t token)
{
	doorbell_len(p, MRC_DOORBELL_MAGIC, qpn, token,
		     sizeof(struct mrc_doorbell));
}

/* --- running ----------------------------------------------------------------- */

static uint8_t out[PKT_MAX];
static uint32_t out_len;

static int run_tc(const struct pkt *in)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in->data,
		    .data_size_in = in->len, .data_out = out,
		    .data_size_out = sizeof(out), .repeat = 1);

	assert_int_equal(bpf_prog_test_run_opts(
				 bpf_program__fd(tc->progs.mrc_tc_tx), &o),
			 0);
	out_len = o.data_size_out;
	return o.retval;
}

/* Run an XDP receive program on frame; the result back in frame. */
static int run_rx(struct mrc_xdp_rx *rx, uint8_t *frame, uint32_t *len)
{
	static uint8_t res[PKT_MAX];
	struct xdp_md ctx = { .data_end = *len, .ingress_ifindex = 1 };

	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame,
		    .data_size_in = *len, .data_out = res,
		    .data_size_out = sizeof(res), .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx));
	assert_int_equal(bpf_prog_test_run_opts(
				 bpf_program__fd(rx->progs.mrc_xdp_rx), &o),
			 0);
	memcpy(frame, res, o.data_size_out);
	*len = o.data_size_out;
	return o.retval;
}

static uint64_t drops(enum mrc_drop_reason r)
{
	return fixture_percpu_sum(bpf_map__fd(srx->maps.mrc_drop), r);
}

static uint64_t txc(enum mrc_tx_counter c)
{
	return fixture_percpu_sum(bpf_map__fd(srx->maps.mrc_tx_stats), c);
}

static uint64_t all_drops(void)
{
	uint64_t n = 0;
	int r;

	for (r = 1; r < MRC_DROP_MAX; r++)
		n += drops(r);
	return n;
}

/* --- lo's other traffic passes untouched -------------------------------------- */

static void tcp_to_doorbell_port(struct pkt *p)
{
	pkt_eth(p, zero_mac, zero_mac);
	pkt_ipv4(p, "127.0.0.1", "127.0.0.1", 0);
	p->data[p->l3_off + 9] = 6; /* TCP */
	pkt_pattern(p, 40, 1);
	pkt_finish(p);
}

static void udp_other_port(struct pkt *p)
{
	pkt_eth(p, zero_mac, zero_mac);
	pkt_ipv4(p, "127.0.0.1", "127.0.0.1", 0);
	pkt_udp(p, 40000, 53);
	pkt_pattern(p, 16, 2);
	pkt_finish(p);
}

static void udp_other_addr(struct pkt *p)
{
	pkt_eth(p, zero_mac, zero_mac);
	pkt_ipv4(p, "127.0.0.1", "127.0.0.2", 0);
	pkt_udp(p, 40000, MRC_DOORBELL_PORT);
	pkt_pattern(p, 16, 3);
	pkt_finish(p);
}

static void udp6_to_doorbell_port(struct pkt *p)
{
	pkt_eth(p, zero_mac, zero_mac);
	pkt_ipv6(p, "::1", "::1", 0);
	pkt_udp(p, 40000, MRC_DOORBELL_PORT);
	pkt_pattern(p, 16, 4);
	pkt_finish(p);
}

static void arp(struct pkt *p)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	pkt_eth(p, bcast, PKT_MAC_A);
	p->data[12] = 0x08;
	p->data[13] = 0x06;
	pkt_pattern(p, 28, 5);
}

static void later_fragment(struct pkt *p)
{
	pkt_eth(p, zero_mac, zero_mac);
	pkt_ipv4(p, "127.0.0.1", "127.0.0.1", 0);
	pkt_pattern(p, 24, 6); /* no UDP header in a later fragment */
	pkt_finish(p);
	p->data[p->l3_off + 6] = 0x00; /* offset 185 x 8 */
	p->data[p->l3_off + 7] = 185;
}

/*
 * A doorbell in every byte but the IP version: not IPv4, so not one (the
 * kernel drops it on the way in).
 */
static void not_version_4(struct pkt *p)
{
	doorbell(p, S_QPN, TOKEN);
	p->data[p->l3_off] = 0xd5; /* version 13, ihl 5 */
}

/* UDP to the doorbell address, cut inside the UDP header. */
static void short_ipv4(struct pkt *p)
{
	pkt_eth(p, zero_mac, zero_mac);
	pkt_ipv4(p, "127.0.0.1", "127.0.0.1", 0);
	pkt_bytes(p, (uint8_t[]){ 0x9c, 0x40, 0x12, 0xb8 }, 4);
	pkt_finish(p);
}

static void passes(void (*make)(struct pkt *))
{
	static struct pkt in;

	assert_int_equal(reset(0), 0);
	post(1, 8, 1); /* something to send, were it a doorbell */
	pkt_init(&in);
	make(&in);
	assert_int_equal(run_tc(&in), TC_ACT_OK);
	assert_int_equal(out_len, in.len);
	assert_memory_equal(out, in.data, in.len);
	assert_int_equal(all_drops(), 0);
	assert_int_equal(txc(MRC_TX_PACKETS) + txc(MRC_TX_IDLE), 0);
	assert_int_equal(sq->done, 0);
}

static void pass_not_version_4(void **state)
{
	(void)state;
	passes(not_version_4);
}

static void pass_tcp(void **state)
{
	(void)state;
	passes(tcp_to_doorbell_port);
}

static void pass_udp_other_port(void **state)
{
	(void)state;
	passes(udp_other_port);
}

static void pass_udp_other_addr(void **state)
{
	(void)state;
	passes(udp_other_addr);
}

static void pass_ipv6(void **state)
{
	(void)state;
	passes(udp6_to_doorbell_port);
}

static void pass_arp(void **state)
{
	(void)state;
	passes(arp);
}

static void pass_later_fragment(void **state)
{
	(void)state;
	passes(later_fragment);
}

static void pass_short(void **state)
{
	(void)state;
	passes(short_ipv4);
}

/* --- bad doorbells drop, each with its reason ------------------------------------ */

static void drops_with(const struct pkt *in, enum mrc_drop_reason why)
{
	assert_int_equal(run_tc(in), TC_ACT_SHOT);
	assert_int_equal(drops(why), 1);
	assert_int_equal(all_drops(), 1);
	assert_int_equal(txc(MRC_TX_PACKETS), 0);
}

static void drop_short(void **state)
{
	static struct pkt in;

	(void)state;
	assert_int_equal(reset(0), 0);
	post(1, 8, 1);
	pkt_init(&in);
	doorbell_len(&in, MRC_DOORBELL_MAGIC, S_QPN, TOKEN, 15);
	drops_with(&in, MRC_DROP_DB_LENGTH);
}

static void drop_long(void **state)
{
	static struct pkt in;

	(void)state;
	assert_int_equal(reset(0), 0);
	post(1, 8, 1);
	pkt_init(&in);
	doorbell_len(&in, MRC_DOORBELL_MAGIC, S_QPN, TOKEN, 24);
	drops_with(&in, MRC_DROP_DB_LENGTH);
}

static void drop_empty(void **state)
{
	static struct pkt in;

	(void)state;
	assert_int_equal(reset(0), 0);
	pkt_init(&in);
	doorbell_len(&in, MRC_DOORBELL_MAGIC, S_QPN, TOKEN, 0);
	drops_with(&in, MRC_DROP_DB_LENGTH);
}

static void drop_first_fragment(void **state)
{
	static struct pkt in;

	(void)state;
	assert_int_equal(reset(0), 0);
	post(1, 8, 1);
	pkt_init(&in);
	doorbell(&in, S_QPN, TOKEN);
	in.data[in.l3_off + 6] = 0x20; /* more fragments */
	drops_with(&in, MRC_DROP_DB_LENGTH);
}

static void drop_magic(void **state)
{
	static struct pkt in;

	(void)state;
	assert_int_equal(reset(0), 0);
	post(1, 8, 1);
	pkt_init(&in);
	doorbell_len(&in, MRC_DOORBELL_MAGIC ^ 1, S_QPN, TOKEN, 16);
	drops_with(&in, MRC_DROP_DB_MAGIC);
}

static void drop_unknown_qp(void **state)
{
	static struct pkt in;

	(void)state;
	assert_int_equal(reset(0), 0);
	pkt_init(&in);
	doorbell(&in, 99, TOKEN); /* in RESET */
	drops_with(&in, MRC_DROP_DB_UNKNOWN_QP);
	pkt_init(&in);
	doorbell(&in, MRC_MAX_QP, TOKEN); /* beyond the map */
	assert_int_equal(run_tc(&in), TC_ACT_SHOT);
	assert_int_equal(drops(MRC_DROP_DB_UNKNOWN_QP), 2);
}

static void drop_bad_token(void **state)
{
	static struct pkt in;

	(void)state;
	assert_int_equal(reset(0), 0);
	post(1, 8, 1);
	pkt_init(&in);
	doorbell(&in, S_QPN, TOKEN ^ 0x100);
	drops_with(&in, MRC_DROP_DB_TOKEN);
	assert_int_equal(sq->done, 0);
}

static void drop_no_token(void **state)
{
	static struct pkt in;

	(void)state;
	assert_int_equal(reset(0), 0);
	pkt_init(&in);
	doorbell(&in, NOTOKEN_QPN, 0);
	drops_with(&in, MRC_DROP_DB_TOKEN);
}

static void idle_doorbell(void **state)
{
	static struct pkt in;

	(void)state;
	assert_int_equal(reset(0), 0);
	pkt_init(&in);
	doorbell(&in, IDLE_QPN, TOKEN);
	assert_int_equal(run_tc(&in), TC_ACT_SHOT);
	assert_int_equal(txc(MRC_TX_IDLE), 1);
	assert_int_equal(all_drops(), 0);
}

/* --- a valid doorbell is the next packet ----------------------------------------- */

/*
 * The packet the transmit pipeline sends for PSN psn of a WQE of len bytes
 * written from offset off; its echo is mrc_echo() of the PSN (key 0).
 */
static void expect_data(struct pkt *p, uint32_t port, uint32_t psn,
			uint32_t off, uint32_t plen, uint32_t msg_len, int imm,
			int last)
{
	const uint8_t smac[6] = { 2, 0, 0, 1, 0, (uint8_t)port };
	const uint8_t dmac[6] = { 2, 0, 0, 2, 0, (uint8_t)port };
	uint16_t ev = port ? EV_V6 : EV_V4;

	pkt_init(p);
	p->udp_csum = 1;
	pkt_eth(p, dmac, smac);
	if (port)
		pkt_ipv6(p, "fd00:3::1", "fd00:3::2", 0x02);
	else
		pkt_ipv4(p, "198.18.0.1", "198.18.0.2", 0x02);
	if (!port)
		p->data[p->l3_off + 4] = p->data[p->l3_off + 5] = 0; /* id */
	pkt_udp(p, ev, MRC_UDP_PORT);
	pkt_bth(p, imm ? MRC_OP_WRITE_ONLY_IMM : MRC_OP_WRITE_ONLY, R_QPN, psn,
		0);
	pkt_reth(p, R_VA + off, R_RKEY, plen);
	if (imm)
		pkt_immdt(p, IMM);
	pkt_dext(p, last ? MRC_DF_LAST : 0, ev, psn, msg_len, mrc_echo(0, psn));
	pkt_bytes(p, smr + off, plen);
	pkt_finish(p);
}

static void expect_frame(const struct pkt *want)
{
	if (out_len != want->len || memcmp(out, want->data, want->len)) {
		fixture_diff(want->data, want->len, out, out_len);
		fail_msg("not the packet the transmit pipeline sends");
	}
	assert_int_equal(pkt_verify_csums(out, out_len), 0);
}

/*
 * A WQE naming another protection domain's region as its source: no
 * packet leaves with that process's bytes; the build fails and is
 * counted.
 */
static void lkey_of_another_pd(void **state)
{
	static struct pkt in;

	(void)state;
	assert_int_equal(reset(0), 0);
	assert_int_equal(other_region(), 0);
	post(7, 64, 0);
	sq->wqe[(sq->tail - 1) % MRC_SQ_DEPTH].lkey = OTHER_LKEY;
	pkt_init(&in);
	doorbell(&in, S_QPN, TOKEN);
	assert_int_equal(run_tc(&in), TC_ACT_SHOT);
	assert_int_equal(txc(MRC_TX_PACKETS), 0);
	assert_int_equal(txc(MRC_TX_BUILD_FAILED), 1);
}

/* WRITE_IMM of 8 bytes: the packet, then placed, ACKed, completed. */
static void write_imm_8(uint32_t port)
{
	static struct pkt in, want;
	uint32_t len;

	assert_int_equal(reset(port), 0);
	post(42, 8, 1);
	pkt_init(&in);
	doorbell(&in, S_QPN, TOKEN);
	assert_int_equal(run_tc(&in), TC_ACT_REDIRECT);
	expect_data(&want, port, FIRST_PSN, 0, 8, 8, 1, 1);
	expect_frame(&want);
	assert_int_equal(txc(MRC_TX_PACKETS), 1);
	assert_int_equal(all_drops(), 0);

	/* The peer places it and completes the WRITE_IMM ... */
	len = out_len;
	assert_int_equal(run_rx(rrx, out, &len), XDP_TX);
	assert_memory_equal(rmr, smr, 8);
	assert_int_equal(rmr[8], 0);
	ring_buffer__consume(rcq);
	assert_int_equal(ncqes, 1);
	assert_int_equal(cqes[0].opcode, MRC_WC_RECV_RDMA_WITH_IMM);
	assert_int_equal(ntohl(cqes[0].imm), IMM);
	assert_int_equal(cqes[0].byte_len, 8);
	assert_int_equal(fixture_percpu_sum(bpf_map__fd(rrx->maps.mrc_drop),
					    MRC_DROP_CHECKSUM),
			 0);

	/* ... and its ACK completes the WQE at the sender. */
	assert_int_equal(run_rx(srx, out, &len), XDP_DROP);
	ring_buffer__consume(scq);
	assert_int_equal(ncqes, 2);
	assert_int_equal(cqes[1].wr_id, 42);
	assert_int_equal(cqes[1].status, MRC_WC_SUCCESS);
	assert_int_equal(sq->done, 1);
	assert_int_equal(txc(MRC_TX_ACKS), 1);
}

static void valid_ipv4(void **state)
{
	(void)state;
	write_imm_8(0);
}

static void valid_ipv6(void **state)
{
	(void)state;
	write_imm_8(1);
}

/*
 * An SRv6 QP (docs/wire.md): the doorbell's packet is the IPv6 one inside
 * an outer header to the EV's uSID container (and an SRH when the route
 * has a segment); the inner packet and its checksum exactly as without.
 */
static void srv6_route(int with_srh)
{
	static struct mrc_qp_tx qt;
	static struct mrc_qp_srv6 rs;
	static struct pkt in, want;
	uint32_t qpn = S_QPN, enc = with_srh ? 80 : 40;
	const uint8_t *o = out + 14;

	assert_int_equal(reset(1), 0);
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(srx->maps.mrc_qp_tx),
					     &qpn, &qt),
			 0);
	qt.srv6 = 1;
	memset(&rs, 0, sizeof(rs));
	rs.nroute = 1;
	rs.port[0] = 1;
	rs.n_by_port[1] = 1;
	inet_pton(AF_INET6, "fdbb:bb00:202:1102::", rs.route[0].dst);
	if (with_srh) {
		inet_pton(AF_INET6, "fdbb:bb00:202::", rs.route[0].dst);
		inet_pton(AF_INET6, "fdbb:bb00:1102::", rs.route[0].seg);
	}
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(srx->maps.mrc_qp_tx),
					     &qpn, &qt, BPF_ANY),
			 0);
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(srx->maps.mrc_qp_srv6),
					     &qpn, &rs, BPF_ANY),
			 0);
	post(42, 8, 1);
	pkt_init(&in);
	doorbell(&in, S_QPN, TOKEN);
	assert_int_equal(run_tc(&in), TC_ACT_REDIRECT);
	assert_int_equal(txc(MRC_TX_BUILD_FAILED), 0);
	expect_data(&want, 1, FIRST_PSN, 0, 8, 8, 1, 1);
	assert_int_equal(out_len, want.len + enc);
	assert_memory_equal(out, want.data, 14);
	assert_int_equal(o[0] >> 4, 6);
	assert_int_equal((o[1] >> 4) & 3, 2); /* ECT(0) */
	assert_int_equal(o[4] << 8 | o[5], want.len - 14 + enc - 40);
	assert_int_equal(o[6], with_srh ? 43 : 41);
	assert_memory_equal(o + 8, want.data + 14 + 8, 16); /* our address */
	assert_memory_equal(o + 24, rs.route[0].dst, 16);
	if (with_srh) {
		const uint8_t *srh = o + 40;

		assert_int_equal(srh[0], 41);
		assert_int_equal(srh[1], 4);
		assert_int_equal(srh[2], 4);
		assert_int_equal(srh[3], 1);
		assert_int_equal(srh[4], 1);
		assert_memory_equal(srh + 8, rs.route[0].seg, 16);
		assert_memory_equal(srh + 24, rs.route[0].dst, 16);
	}
	/* The inner packet, its UDP checksum included, as without SRv6. */
	if (memcmp(out + 14 + enc, want.data + 14, want.len - 14)) {
		fixture_diff(want.data + 14, want.len - 14, out + 14 + enc,
			     out_len - 14 - enc);
		fail_msg("inner packet differs");
	}
	memset(&rs, 0, sizeof(rs));
	bpf_map_update_elem(bpf_map__fd(srx->maps.mrc_qp_srv6), &qpn, &rs,
			    BPF_ANY);
}

static void srv6_container(void **state)
{
	(void)state;
	srv6_route(0);
}

static void srv6_srh(void **state)
{
	(void)state;
	srv6_route(1);
}

/*
 * An STEV EV to an IPv6 peer: its high 16 bits go into the low 16 bits of
 * the flow label (docs/controller.md), the rest of the packet as ever.
 */
static void stev_flow_label(void **state)
{
	static struct mrc_qp_tx qt;
	static struct pkt in, want;
	uint32_t qpn = S_QPN;

	(void)state;
	assert_int_equal(reset(1), 0);
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(srx->maps.mrc_qp_tx),
					     &qpn, &qt),
			 0);
	qt.ev_fl[0] = 0xbeef;
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(srx->maps.mrc_qp_tx),
					     &qpn, &qt, BPF_ANY),
			 0);
	post(7, 8, 1);
	pkt_init(&in);
	doorbell(&in, S_QPN, TOKEN);
	assert_int_equal(run_tc(&in), TC_ACT_REDIRECT);
	expect_data(&want, 1, FIRST_PSN, 0, 8, 8, 1, 1);
	/* Version 6, traffic class ECT(0), flow label 0x0beef. */
	want.data[want.l3_off + 2] = 0xbe;
	want.data[want.l3_off + 3] = 0xef;
	expect_frame(&want);
	assert_int_equal(out[want.l3_off + 1] & 0x0f, 0); /* top 4 bits */
}

/* A WRITE of 2.5 MTUs: one packet per doorbell, then idle. */
static void segments(void **state)
{
	const uint32_t len = 2 * MTU + MTU / 2;
	static struct pkt in, want;
	uint32_t i, l;

	(void)state;
	assert_int_equal(reset(1), 0);
	post(7, len, 0);
	pkt_init(&in);
	doorbell(&in, S_QPN, TOKEN);
	for (i = 0; i < 3; i++) {
		uint32_t plen = i < 2 ? MTU : MTU / 2;

		assert_int_equal(run_tc(&in), TC_ACT_REDIRECT);
		expect_data(&want, 1, FIRST_PSN + i, i * MTU, plen, len, 0,
			    i == 2);
		expect_frame(&want);
		l = out_len;
		assert_int_equal(run_rx(rrx, out, &l), XDP_TX);
	}
	assert_int_equal(run_tc(&in), TC_ACT_SHOT);
	assert_int_equal(txc(MRC_TX_IDLE), 1);
	assert_int_equal(txc(MRC_TX_PACKETS), 3);
	assert_memory_equal(rmr, smr, len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pass_tcp),
		cmocka_unit_test(pass_not_version_4),
		cmocka_unit_test(pass_udp_other_port),
		cmocka_unit_test(pass_udp_other_addr),
		cmocka_unit_test(pass_ipv6),
		cmocka_unit_test(pass_arp),
		cmocka_unit_test(pass_later_fragment),
		cmocka_unit_test(pass_short),
		cmocka_unit_test(drop_short),
		cmocka_unit_test(drop_long),
		cmocka_unit_test(drop_empty),
		cmocka_unit_test(drop_first_fragment),
		cmocka_unit_test(drop_magic),
		cmocka_unit_test(drop_unknown_qp),
		cmocka_unit_test(drop_bad_token),
		cmocka_unit_test(drop_no_token),
		cmocka_unit_test(idle_doorbell),
		cmocka_unit_test(lkey_of_another_pd),
		cmocka_unit_test(valid_ipv4),
		cmocka_unit_test(valid_ipv6),
		cmocka_unit_test(srv6_container),
		cmocka_unit_test(srv6_srh),
		cmocka_unit_test(stev_flow_label),
		cmocka_unit_test(segments),
	};

	if (geteuid() != 0) {
		printf("SKIP: test_tc_tx needs root (BPF)\n");
		return 77;
	}
	if (setup()) {
		fprintf(stderr, "setup: %s\n", strerror(errno));
		return 1;
	}
	return cmocka_run_group_tests_name("tc transmit", tests, NULL, NULL);
}
