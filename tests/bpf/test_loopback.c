// SPDX-License-Identifier: GPL-2.0
/*
 * The whole protocol, in one process, through BPF_PROG_TEST_RUN: a sender
 * (the transmit program plus its own receive program, for ACKs) and a
 * receiver (a second receive program with maps of its own), joined by a
 * channel this test controls: it loses, duplicates and reorders packets.
 *
 *   sender                                     receiver
 *   SQ -> mrc_xdp_tx --data--> [channel] --> mrc_xdp_rx -> MR, recv CQ
 *   send CQ <- mrc_xdp_rx <------ACK------------------'
 *
 * Every run checks the receiver's region byte for byte against the
 * sender's, each completion exactly once and in order.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "csum.h"
#include "fixture.h"
#include "../../bpf/lib/nscc.h"
#include "mrc/abi.h"
#include "mrc/drop.h"
#include "mrc/wire.h"
#include "mrc_xdp_rx.skel.h"
#include "mrc_xdp_tx.skel.h"
#include "mrc_xdp_ack_tx.skel.h"
#include "mrc_pump_gone.skel.h"
#include "tx_call.h"

#define S_QPN 5 /* sender's QP */
#define R_QPN 77 /* receiver's QP */
#define MR_IDX 3
#define S_LKEY ((0x5151u << MRC_RKEY_INDEX_BITS) | MR_IDX)
#define R_RKEY ((0x7777u << MRC_RKEY_INDEX_BITS) | MR_IDX)
#define R_VA 0x7f0000000000ull
#define CHUNKS 3
#define MR_LEN ((uint64_t)CHUNKS * MRC_MR_CHUNK)
#define MTU 1024
#define PORTS 4
#define NEV 16
#define FRAME_MAX 1600
/*
 * ACK timeouts. Transfers use a long one, so that no delay of this process
 * on a loaded machine lets it pass while a packet's ACK is on its way (a
 * resend no loss explains); when the pump is idle with PSNs in flight, it
 * makes una's timeout pass at once (expire_una). peer_gone measures the
 * retry schedule against the clock with a short one.
 */
#define TIMEOUT_NS 2000000 /* 2 ms */
#define LONG_TIMEOUT_NS 1000000000ull /* 1 s */

struct side {
	struct mrc_xdp_rx *rx;
	uint8_t *mr; /* mmapped region, chunk i at i * MRC_MR_ELEM */
	struct ring_buffer *cq;
	struct mrc_cqe cqe[256];
	int ncqe;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* bpf_ktime_get_ns's clock */
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct side snd, rcv;
static struct mrc_xdp_tx *tx;
static struct mrc_xdp_ack_tx *ack_tx; /* ACK clocking (ack_clock()) */
/* The pump's watch: the exit hook run by hand, both attached for real. */
static struct mrc_pump_gone *pump_gone_;
/* The next reset() gives the sender this congestion control (slot 1). */
static const struct mrc_nscc_params *cc;
static struct mrc_sq *sq; /* the sender's send queue, mmapped */
/*
 * The next reset() makes both QPs SRv6 ones (docs/wire.md): IPv6 ports,
 * routes on both sides, and the channel plays an SRv6 fabric (srv6_hop).
 */
static int srv6;
/* The next reset() gives the sender this ack_every (coalesced ACKs). */
static uint8_t ack_every = MRC_ACK_EVERY_DEFAULT;
/* The fabric's uSID block, and what the channel saw of SRv6. */
static const uint8_t BLOCK[4] = { 0xfd, 0xbb, 0xbb, 0x00 };
struct srv6_seen {
	unsigned int data, srh, acks;
};
static struct srv6_seen seen;

static int on_cqe(void *ctx, void *d, size_t len)
{
	struct side *s = ctx;

	if (len != sizeof(struct mrc_cqe) || s->ncqe == 256)
		return -EINVAL;
	memcpy(&s->cqe[s->ncqe++], d, len);
	return 0;
}

static uint8_t *mr_at(uint8_t *mr, uint64_t off)
{
	return mr + (off / MRC_MR_CHUNK) * MRC_MR_ELEM + off % MRC_MR_CHUNK;
}

static int add_inner(struct bpf_map *outer, uint32_t key, int fd)
{
	return bpf_map_update_elem(bpf_map__fd(outer), &key, &fd, BPF_ANY);
}

/* Region, CQ and MR description for one side. */
static int setup_side(struct side *s, uint32_t key)
{
	LIBBPF_OPTS(bpf_map_create_opts, mm,
		    .map_flags = BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	struct mrc_mr_info mr = {
		.rkey = key, .pd = 1, .va = R_VA, .len = MR_LEN, .access = 2
	};
	uint32_t idx = MR_IDX;
	int mr_fd, cq_fd;

	s->rx = mrc_xdp_rx__open_and_load();
	if (!s->rx)
		return -1;
	mr_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "mrc_mr", 4, MRC_MR_ELEM,
			       CHUNKS, &mm);
	cq_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "mrc_cq", 0, 0, 1 << 16,
			       NULL);
	if (mr_fd < 0 || cq_fd < 0 ||
	    add_inner(s->rx->maps.mrc_mr, idx, mr_fd) ||
	    add_inner(s->rx->maps.mrc_cq, 0, cq_fd) ||
	    bpf_map_update_elem(bpf_map__fd(s->rx->maps.mrc_mr_info), &idx, &mr,
				BPF_ANY))
		return -1;
	s->mr = mmap(NULL, (size_t)CHUNKS * MRC_MR_ELEM, PROT_READ | PROT_WRITE,
		     MAP_SHARED, mr_fd, 0);
	s->cq = ring_buffer__new(cq_fd, on_cqe, s, NULL);
	close(mr_fd);
	close(cq_fd);
	return s->mr == MAP_FAILED || !s->cq ? -1 : 0;
}

/* obj takes every map of the sender's receive program. */
static int share_snd_maps(struct bpf_object *obj)
{
	struct bpf_map *m, *same;

	bpf_object__for_each_map(m, obj)
	{
		if (strchr(bpf_map__name(m), '.'))
			continue; /* .bss, .rodata: the program's own */
		same = bpf_object__find_map_by_name(snd.rx->obj,
						    bpf_map__name(m));
		if (!same || bpf_map__reuse_fd(m, bpf_map__fd(same)))
			return -1;
	}
	return 0;
}

/* The transmit programs share every map of the sender's receive program. */
static int setup_tx(void)
{
	tx = mrc_xdp_tx__open();
	ack_tx = mrc_xdp_ack_tx__open();
	pump_gone_ = mrc_pump_gone__open();
	if (!tx || !ack_tx || !pump_gone_ || share_snd_maps(tx->obj) ||
	    share_snd_maps(ack_tx->obj) || share_snd_maps(pump_gone_->obj) ||
	    mrc_xdp_tx__load(tx) || mrc_xdp_ack_tx__load(ack_tx) ||
	    mrc_pump_gone__load(pump_gone_))
		return -1;
	tx_call_set(tx->bss->tx_call, tx->bss->tx_list, S_QPN, 0);
	return 0;
}

/* The sender's ACKs send its CC QP's next packets (on), or leave that to
 * the transmit calls (off), as mrcd.conf's ack-clock. */
static void ack_clock(int on)
{
	int fd = bpf_map__fd(snd.rx->maps.mrc_ack_clock);
	int pfd = bpf_program__fd(ack_tx->progs.mrc_xdp_ack_tx);
	uint32_t key = 0;

	if (on)
		assert_int_equal(bpf_map_update_elem(fd, &key, &pfd, BPF_ANY),
				 0);
	else
		bpf_map_delete_elem(fd, &key);
}

/* Host address on plane p: 198.18.(16p + 1 or 2).2, or fd00:1:0:p::1/2. */
static void host_addr(uint8_t a[16], int v6, uint32_t p, int host)
{
	memset(a, 0, 16);
	if (v6) {
		a[0] = 0xfd;
		a[3] = 1;
		a[7] = (uint8_t)p;
		a[15] = (uint8_t)host;
	} else {
		a[0] = 198;
		a[1] = 18;
		a[2] = (uint8_t)(16 * p + (uint32_t)host);
		a[3] = 2;
	}
}

/*
 * The sender's ports, IPv4 or IPv6 (SRv6 needs it). The receiver knows
 * one port (the port it answers SRv6 from: test runs come in by lo).
 */
static int set_ports(int v6)
{
	uint32_t p;

	for (p = 0; p < PORTS; p++) {
		struct mrc_port port = {
			.ifindex = 1,
			.v6 = (uint8_t)v6,
			.smac = { 2, 0, 0, 0, 1, (uint8_t)p },
			.dmac = { 2, 0, 0, 0, 2, (uint8_t)p },
		};
		/* lo, with no egress program */
		struct bpf_devmap_val lo = { .ifindex = 1 };

		host_addr(port.saddr, v6, p, 1);
		if (bpf_map_update_elem(bpf_map__fd(snd.rx->maps.mrc_port), &p,
					&port, BPF_ANY) ||
		    bpf_map_update_elem(bpf_map__fd(snd.rx->maps.mrc_tx_port),
					&p, &lo, BPF_ANY))
			return -1;
		if (p)
			continue;
		host_addr(port.saddr, v6, p, 2);
		if (bpf_map_update_elem(bpf_map__fd(rcv.rx->maps.mrc_port), &p,
					&port, BPF_ANY))
			return -1;
	}
	return 0;
}

/*
 * EV i's route to host `to`, as the testbed's uSID plan names it
 * (docs/testbed.md): block, spine i / PORTS (0x02SS), the far leaf on
 * plane i % PORTS (0xP1HH); every seventh EV carries the far leaf in an
 * SRH segment instead.
 */
static void route_of(struct mrc_srv6_route *r, uint32_t i, int to)
{
	uint16_t spine = (uint16_t)(0x0200 + i / PORTS),
		 leaf = (uint16_t)((i % PORTS) << 12 | 0x100 | (uint32_t)to);

	memset(r, 0, sizeof(*r));
	memcpy(r->dst, BLOCK, 4);
	r->dst[4] = (uint8_t)(spine >> 8);
	r->dst[5] = (uint8_t)spine;
	if (i % 7 == 6) {
		memcpy(r->seg, BLOCK, 4);
		r->seg[4] = (uint8_t)(leaf >> 8);
		r->seg[5] = (uint8_t)leaf;
		return;
	}
	r->dst[6] = (uint8_t)(leaf >> 8);
	r->dst[7] = (uint8_t)leaf;
}

/* Both QPs' routes (nroute 0: none) and the block, into each side. */
static int set_routes(uint32_t nroute)
{
	static struct mrc_qp_srv6 rs, rr;
	uint32_t s_qpn = S_QPN, r_qpn = R_QPN, block, one = 1, i, p;

	memset(&rs, 0, sizeof(rs));
	memset(&rr, 0, sizeof(rr));
	rs.nroute = rr.nroute = nroute;
	for (i = 0; i < nroute; i++) {
		p = i % PORTS;
		route_of(&rs.route[i], i, 2);
		rs.port[i] = (uint8_t)p;
		rs.by_port[p][rs.n_by_port[p]++] = (uint8_t)i;
		route_of(&rr.route[i], i, 1);
		rr.port[i] = (uint8_t)p;
		rr.by_port[p][rr.n_by_port[p]++] = (uint8_t)i;
	}
	memcpy(&block, BLOCK, 4);
	return bpf_map_update_elem(bpf_map__fd(snd.rx->maps.mrc_qp_srv6),
				   &s_qpn, &rs, BPF_ANY) ||
	       bpf_map_update_elem(bpf_map__fd(rcv.rx->maps.mrc_qp_srv6),
				   &r_qpn, &rr, BPF_ANY) ||
	       bpf_map_update_elem(bpf_map__fd(snd.rx->maps.mrc_srv6_block),
				   &block, &one, BPF_ANY) ||
	       bpf_map_update_elem(bpf_map__fd(rcv.rx->maps.mrc_srv6_block),
				   &block, &one, BPF_ANY);
}

static int setup(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, mm, .map_flags = BPF_F_MMAPABLE);
	uint32_t key = S_QPN;
	int sq_fd;

	if (setup_side(&snd, S_LKEY) || setup_side(&rcv, R_RKEY) || setup_tx())
		return -1;
	sq_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "mrc_sq", 4,
			       sizeof(struct mrc_sq), 1, &mm);
	if (sq_fd < 0 || add_inner(snd.rx->maps.mrc_sq, key, sq_fd))
		return -1;
	sq = mmap(NULL, sizeof(*sq), PROT_READ | PROT_WRITE, MAP_SHARED, sq_fd,
		  0);
	close(sq_fd);
	if (sq == MAP_FAILED)
		return -1;
	return set_ports(0);
}

/* Fresh QPs on both sides, regions filled and cleared, queues empty. */
static int reset(uint32_t first_psn)
{
	static struct mrc_qp_tx qt;
	static struct mrc_qp_rx qr, qs;
	uint32_t s_qpn = S_QPN, r_qpn = R_QPN, i, p;
	uint64_t off;

	memset(&qt, 0, sizeof(qt));
	qt.state = MRC_QPS_RTS;
	qt.peer_qpn = R_QPN;
	qt.send_cq = 0;
	qt.window = MRC_RX_WINDOW_MAX;
	qt.mtu = MTU;
	qt.nev = NEV;
	qt.timeout_ns = LONG_TIMEOUT_NS;
	qt.reorder_ns = MRC_REORDER_NS_DEFAULT;
	qt.ack_every = ack_every;
	qt.retry_linear = 3;
	qt.retry_exp = 4;
	for (i = 0; i < NEV; i++) {
		qt.ev[i] = srv6 ? MRC_SRV6_SPORT(i) : 49152 + i;
		qt.ev_port[i] = i % PORTS;
		evm_set(&qt.port_evs[i % PORTS], i);
	}
	for (p = 0; p < PORTS; p++)
		host_addr(qt.peer_addr[p], srv6, p, 2);
	qt.srv6 = (uint8_t)srv6;
	qt.peer_v6 = (uint8_t)srv6;
	if (set_ports(srv6) || set_routes(srv6 ? NEV : 0))
		return -1;
	memset(&seen, 0, sizeof(seen));
	qt.next_psn = qt.una_psn = first_psn;
	if (cc) {
		uint32_t slot = 1;

		qt.cc_slot = slot;
		nscc_init(&qt.cc, cc, mono_ns(), qt.mtu);
		if (bpf_map_update_elem(bpf_map__fd(snd.rx->maps.mrc_cc), &slot,
					cc, BPF_ANY))
			return -1;
	}
	memset(&qr, 0, sizeof(qr));
	qr.state = MRC_QPS_RTR;
	qr.peer_qpn = S_QPN;
	qr.pd = 1;
	qr.window = MRC_RX_WINDOW_MAX;
	qr.cum_psn = qr.cqe_psn = first_psn;
	/* The sender's receive half holds its protection domain. */
	memset(&qs, 0, sizeof(qs));
	qs.state = MRC_QPS_RTS;
	qs.peer_qpn = R_QPN;
	qs.pd = 1;
	qs.window = MRC_RX_WINDOW_MAX;
	if (bpf_map_update_elem(bpf_map__fd(snd.rx->maps.mrc_qp_tx), &s_qpn,
				&qt, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(snd.rx->maps.mrc_qp), &s_qpn, &qs,
				BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(rcv.rx->maps.mrc_qp), &r_qpn, &qr,
				BPF_ANY))
		return -1;
	memset(sq, 0, sizeof(*sq));
	for (off = 0; off < MR_LEN; off++) {
		*mr_at(snd.mr, off) = (uint8_t)(off * 131 + (off >> 12));
		*mr_at(rcv.mr, off) = 0;
	}
	ring_buffer__consume(snd.cq);
	ring_buffer__consume(rcv.cq);
	snd.ncqe = rcv.ncqe = 0;
	return 0;
}

static void post(uint64_t wr_id, uint64_t laddr, uint64_t roff, uint32_t len,
		 int imm)
{
	struct mrc_wqe *w = &sq->wqe[sq->tail % MRC_SQ_DEPTH];

	w->wr_id = wr_id;
	w->laddr = laddr;
	w->raddr = R_VA + roff;
	w->lkey = S_LKEY;
	w->rkey = R_RKEY;
	w->len = len;
	w->imm = htonl(0xab000000 | (uint32_t)wr_id);
	w->opcode = imm ? MRC_WR_RDMA_WRITE_WITH_IMM : MRC_WR_RDMA_WRITE;
	w->flags = MRC_SEND_SIGNALED;
	__atomic_store_n(&sq->tail, sq->tail + 1, __ATOMIC_RELEASE);
}

struct frame {
	uint8_t b[FRAME_MAX + 200];
	uint32_t len;
};

/* Run prog on in; the result frame in out (may be in). */
static int run(int prog, const struct frame *in, struct frame *out)
{
	struct xdp_md ctx = { .data_end = in->len, .ingress_ifindex = 1 };

	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in->b,
		    .data_size_in = in->len, .data_out = out->b,
		    .data_size_out = sizeof(out->b), .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx));
	if (bpf_prog_test_run_opts(prog, &o))
		return -1;
	out->len = o.data_size_out;
	return o.retval;
}

/* Channel behaviour, decided per data packet by its sequence number. */
struct channel {
	unsigned int drop_every; /* drop packets 1, 1 + every, 1 + 2 every... */
	int dup; /* deliver every data packet twice */
	unsigned int reorder; /* deliver in reversed groups of this size */
	unsigned int drop_acks_every;
	/* As a full switch queue would: cut data packets 1, 1 + every...
	 * to their headers (with a trimming switch's DSCP 46), or set CE
	 * on every data packet. */
	unsigned int trim_every;
	int ce;
	/* SRv6: the last hop delivers data decapsulated (plain IPv6). */
	int decap;
	/* After each burst: the least congestion window seen, and whether
	 * new data ever left with the window already full. */
	uint32_t cwnd_min;
	int over_window;
	/* Lose the ACK that covers a run: the answer to a data packet that
	 * asks for one after at least 3 that did not (MRC_DF_ACK_LATER). */
	int drop_covering_acks;
	unsigned int later_run, covering_dropped, later_seen;
};

/* A plain (not SRv6) data frame's DEXT flags. */
static uint8_t dext_flags(const struct frame *f)
{
	unsigned int off = 14 + 20 + 8 + 12 + 16;

	if (f->b[off - 16 - 12] == MRC_OP_WRITE_ONLY_IMM)
		off += 4;
	assert_true(off + 2 <= f->len);
	return f->b[off + 1];
}

static uint64_t percpu(struct bpf_map *m, uint32_t key)
{
	return fixture_percpu_sum(bpf_map__fd(m), key);
}

static struct mrc_qp_tx *get_qp_tx(void)
{
	static struct mrc_qp_tx qt;
	uint32_t qpn = S_QPN;

	if (bpf_map_lookup_elem(bpf_map__fd(snd.rx->maps.mrc_qp_tx), &qpn, &qt))
		return NULL;
	return &qt;
}

/*
 * The pump is idle with PSNs in flight and every ACK in: una was lost.
 * Wait out its ACK timeout: sleep through a short one; date the record
 * back past a long one (the backoff included, tx.h), which no ACK can
 * race, since ACKs come only from this thread.
 */
static void expire_una(struct mrc_qp_tx *qt)
{
	struct mrc_tx_rec *r = &qt->rec[qt->una_psn % MRC_TX_RING];
	uint32_t qpn = S_QPN, k = r->timeouts;
	uint64_t wait;

	if (qt->timeout_ns < LONG_TIMEOUT_NS) {
		usleep((useconds_t)(qt->timeout_ns / 1000 * 2));
		return;
	}
	k = k < qt->retry_linear ? 0 : k - qt->retry_linear + 1;
	wait = qt->timeout_ns << k;
	if (mono_ns() <= wait)
		fail_msg("up %llu ns, not enough to date a record %llu back",
			 (unsigned long long)mono_ns(),
			 (unsigned long long)wait);
	r->tx_ns = mono_ns() - wait - 1;
	assert_int_equal(
		bpf_map_update_elem(bpf_map__fd(snd.rx->maps.mrc_qp_tx), &qpn,
				    qt, BPF_EXIST),
		0);
}

/* IPv4 header checksum over 20 bytes at h. */
static void ip4_csum(uint8_t *h)
{
	uint16_t c;

	h[10] = h[11] = 0;
	c = mrc_csum(h, 20);
	h[10] = (uint8_t)(c >> 8);
	h[11] = (uint8_t)c;
}

/*
 * Trim a data frame (Ethernet, IPv4, UDP, MRC headers, payload) to 64
 * bytes of UDP payload, as a switch does: IP and UDP lengths fixed, DSCP 46, both
 * checksums new.
 */
static void trim_frame(struct frame *f)
{
	uint8_t *ip = f->b + 14, *udp = ip + 20;
	uint32_t hdr = 14 + 20 + 8 + 64; /* keep 64: every MRC header */

	if (f->len <= hdr)
		return;
	f->len = hdr;
	ip[1] = (uint8_t)(46 << 2 | (ip[1] & 3));
	ip[2] = (uint8_t)((hdr - 14) >> 8);
	ip[3] = (uint8_t)(hdr - 14);
	ip4_csum(ip);
	udp[4] = (uint8_t)((hdr - 34) >> 8);
	udp[5] = (uint8_t)(hdr - 34);
	udp[6] = udp[7] = 0;
	{
		uint64_t sum = mrc_csum_add(0, ip + 12, 8) + 17 + (hdr - 34);
		uint16_t c = mrc_csum_fold(mrc_csum_add(sum, udp, hdr - 34));

		c = c ? c : 0xffff;
		udp[6] = (uint8_t)(c >> 8);
		udp[7] = (uint8_t)c;
	}
}

static void mark_ce(struct frame *f)
{
	uint8_t *ip = f->b + 14;

	if (ip[1] & 3) { /* ECT */
		ip[1] |= 3;
		ip4_csum(ip);
	}
}

/*
 * The channel as an SRv6 fabric (docs/testbed.md) for one frame: it must
 * be an SRv6 packet on the route its EV names (a data packet: the
 * sender's route for its EV; an answer: the receiver's own route for
 * that EV when it is on port 0, the port answers leave by here, else
 * one of port 0's picked by the EV), with the SRH when the route has a
 * segment. It then arrives as the last leaf delivers it: every uSID used
 * up (the bare block), segments left 0; ce: CE set on an ECN-capable
 * outer header, as a congested node would.
 */
static void srv6_hop(struct frame *f, int answer, int ce, int decap)
{
	struct mrc_srv6_route want;
	uint8_t *o = f->b + 14, *srh = o + 40, *in;
	uint32_t enc, i;
	uint16_t sport;

	if (f->len < 14 + 80 + 8 || f->b[12] != 0x86 || f->b[13] != 0xdd)
		fail_msg("not an IPv6 frame (%u bytes)", f->len);
	enc = o[6] == 43 ? 80 : 40;
	if (o[6] != 43 && o[6] != 41)
		fail_msg("outer next header %u, want 41 or 43", o[6]);
	in = o + enc;
	sport = (uint16_t)(in[40] << 8 | in[41]);
	i = sport & (MRC_QP_EVS - 1);
	if (sport != MRC_SRV6_SPORT(i) || i >= NEV)
		fail_msg("UDP source port 0x%04x is no SRv6 EV's", sport);
	if (answer && i % PORTS)
		i = (sport % (NEV / PORTS)) * PORTS; /* by_port[0][ev % n] */
	route_of(&want, i, answer ? 1 : 2);
	if (memcmp(o + 24, want.dst, 16))
		fail_msg("%s of EV %u: outer destination is not its route",
			 answer ? "answer" : "data", i);
	if ((enc == 80) != (i % 7 == 6))
		fail_msg("EV %u: SRH %s", i,
			 enc == 80 ? "not wanted" : "missing");
	if (enc == 80) {
		if (srh[0] != 41 || srh[2] != 4 || srh[3] != 1 || srh[4] != 1 ||
		    memcmp(srh + 8, want.seg, 16) ||
		    memcmp(srh + 24, want.dst, 16))
			fail_msg("EV %u: SRH is not its route's", i);
		srh[3] = 0;
		seen.srh++;
	}
	if (answer)
		seen.acks++;
	else
		seen.data++;
	memset(o + 24 + 4, 0, 12);
	if (ce && (o[1] & 0x30))
		o[1] |= 0x30;
	if (decap) { /* the last hop decapsulates instead */
		memmove(o, o + enc, f->len - 14 - enc);
		f->len -= enc;
	}
}

/*
 * Pump: transmit whatever the sender has (new packets and retransmits),
 * pass it through the channel to the receiver, return its ACKs. Stops when
 * the sender has nothing more to send. Returns data packets sent.
 */
static int pump(struct channel *ch)
{
	/* A burst, and the packets the ACKs before it sent (ACK clocking). */
	static struct frame batch[64 + MRC_RX_WINDOW_MAX], ackf, empty;
	static struct frame clocked[MRC_RX_WINDOW_MAX];
	int rx_s = bpf_program__fd(snd.rx->progs.mrc_xdp_rx);
	int rx_r = bpf_program__fd(rcv.rx->progs.mrc_xdp_rx);
	int txp = bpf_program__fd(tx->progs.mrc_xdp_tx);
	unsigned int sent = 0, rounds, n, i, k, acks = 0, nclocked = 0;
	int covering;

	empty.len = FRAME_MAX + 1;
	for (rounds = 0; rounds < 100000; rounds++) {
		/* A burst from the sender: 64 runs, as mrcd's pump calls. */
		tx_call_set(tx->bss->tx_call, tx->bss->tx_list, S_QPN, 64);
		for (n = 0; n < 64; n++) {
			int v = run(txp, &empty, &batch[n]);

			if (v == XDP_DROP)
				break; /* idle: window full or queue empty */
			assert_int_equal(v, XDP_REDIRECT);
		}
		/* Then what left in the last round's ACKs' frames. */
		for (i = 0; i < nclocked; i++)
			batch[n++] = clocked[i];
		nclocked = 0;
		if (cc) {
			struct mrc_qp_tx *qt = get_qp_tx();

			assert_non_null(qt);
			if (!ch->cwnd_min || qt->cc.cwnd_bytes < ch->cwnd_min)
				ch->cwnd_min = qt->cc.cwnd_bytes;
			/* What left new is at most the window, or one packet
			 * into an empty one. */
			if (qt->cc.inflight_bytes >
			    (qt->cc.cwnd_bytes > MTU ? qt->cc.cwnd_bytes : MTU))
				ch->over_window = 1;
		}
		if (!n) {
			/*
			 * Idle. Whatever is still in flight now was lost (every
			 * ACK is in): wait out the ACK timeout and go on.
			 */
			struct mrc_qp_tx *qt = get_qp_tx();

			assert_non_null(qt);
			if (qt->state != MRC_QPS_RTS ||
			    qt->una_psn == qt->next_psn)
				return sent;
			expire_una(qt);
			continue;
		}
		/* Through the channel to the receiver, ACKs back. */
		for (k = 0; k < n; k++) {
			i = ch->reorder ? (k / ch->reorder) * ch->reorder +
						  (ch->reorder - 1 -
						   k % ch->reorder) :
					  k;
			if (i >= n)
				i = k;
			sent++;
			if (ch->drop_every && (sent - 1) % ch->drop_every == 0)
				continue;
			if (ch->trim_every && (sent - 1) % ch->trim_every == 0)
				trim_frame(&batch[i]);
			if (srv6)
				srv6_hop(&batch[i], 0, ch->ce, ch->decap);
			else if (ch->ce)
				mark_ce(&batch[i]);
			covering = 0;
			if (!srv6) {
				uint8_t fl = dext_flags(&batch[i]);

				if (fl & MRC_DF_ACK_LATER) {
					ch->later_seen++;
					ch->later_run++;
				} else {
					covering = ch->later_run >= 3;
					ch->later_run = 0;
				}
			}
			for (int copy = 0; copy < 1 + ch->dup; copy++) {
				int v = run(rx_r, &batch[i], &ackf);

				if (v != XDP_TX)
					continue;
				if (ch->drop_covering_acks && covering) {
					ch->covering_dropped++;
					continue;
				}
				if (ch->drop_acks_every &&
				    ++acks % ch->drop_acks_every == 0)
					continue;
				if (srv6)
					srv6_hop(&ackf, 1, 0, 0);
				v = run(rx_s, &ackf, &clocked[nclocked]);
				if (v == XDP_REDIRECT) {
					assert_true(nclocked <
						    MRC_RX_WINDOW_MAX);
					nclocked++;
					continue;
				}
				assert_int_equal(v, XDP_DROP);
			}
		}
	}
	fail_msg("pump did not settle");
	return -1;
}

static int last_pumped; /* packets the last transfer put on the channel */

/* A completion's timestamp: made during the pump, and in order. */
static void assert_cqe_time(const struct side *s, int i, uint64_t t0,
			    uint64_t t1)
{
	uint64_t ts = s->cqe[i].ts_ns;

	if (ts < t0 || ts > t1 || (i && ts < s->cqe[i - 1].ts_ns))
		fail_msg("completion %d stamped %llu, outside [%llu, %llu] "
			 "or before the previous one",
			 i, (unsigned long long)ts, (unsigned long long)t0,
			 (unsigned long long)t1);
}

/* Post a mixed workload; check bytes and completions after pumping. */
static void transfer(struct channel *ch, uint32_t first_psn)
{
	/* len, remote offset, with immediate */
	static const struct {
		uint32_t len;
		uint64_t off;
		int imm;
	} wr[] = {
		{ 1, 7, 0 },
		{ 100000, 4096, 1 },
		{ MTU, MRC_MR_CHUNK - 300, 0 }, /* crosses a chunk boundary */
		{ 3 * MTU + 17, 2 * MRC_MR_CHUNK - 2000, 1 },
		{ 0, 0, 1 }, /* zero-length WRITE_IMM */
		{ 250000, 300000, 0 },
		{ 12345, 1000000, 1 },
	};
	const unsigned int n = sizeof(wr) / sizeof(wr[0]);
	unsigned int i, imms = 0;
	uint64_t off, t0, t1;

	assert_int_equal(reset(first_psn), 0);
	for (i = 0; i < n; i++)
		post(i + 1, wr[i].off, wr[i].off, wr[i].len, wr[i].imm);
	t0 = mono_ns();
	last_pumped = pump(ch);
	t1 = mono_ns();
	assert_true(last_pumped > 0);
	ring_buffer__consume(snd.cq);
	ring_buffer__consume(rcv.cq);

	/* Every byte written where it belongs, and nothing elsewhere. */
	for (off = 0; off < MR_LEN; off++) {
		int inside = 0;

		for (i = 0; i < n; i++)
			inside |= off >= wr[i].off &&
				  off < wr[i].off + wr[i].len;
		if (*mr_at(rcv.mr, off) != (inside ? *mr_at(snd.mr, off) : 0))
			fail_msg("receiver byte %llu: 0x%02x, want 0x%02x",
				 (unsigned long long)off, *mr_at(rcv.mr, off),
				 inside ? *mr_at(snd.mr, off) : 0);
	}
	/* Send completions: one per WQE, in posting order, successful. */
	assert_int_equal(snd.ncqe, n);
	for (i = 0; i < n; i++) {
		assert_int_equal(snd.cqe[i].wr_id, i + 1);
		assert_int_equal(snd.cqe[i].status, MRC_WC_SUCCESS);
		assert_int_equal(snd.cqe[i].seq, i);
		assert_int_equal(snd.cqe[i].byte_len, wr[i].len);
		assert_cqe_time(&snd, i, t0, t1);
	}
	/* Receive completions: one per WRITE_IMM, in order, its immediate. */
	for (i = 0; i < n; i++) {
		if (!wr[i].imm)
			continue;
		assert_true(imms < (unsigned int)rcv.ncqe);
		assert_int_equal(ntohl(rcv.cqe[imms].imm),
				 0xab000000 | (i + 1));
		assert_int_equal(rcv.cqe[imms].byte_len, wr[i].len);
		assert_int_equal(rcv.cqe[imms].seq, imms);
		assert_cqe_time(&rcv, imms, t0, t1);
		imms++;
	}
	assert_int_equal(rcv.ncqe, imms);
}

/* The receiver's ACKs sent and deferred, and data packets taken. */
struct acks {
	uint64_t sent, deferred, rx;
};

static struct acks acks_now(void)
{
	return (struct acks){
		.sent = percpu(rcv.rx->maps.mrc_rx_stats, MRC_RX_ACKS),
		.deferred =
			percpu(rcv.rx->maps.mrc_rx_stats, MRC_RX_ACKS_DEFERRED),
		.rx = percpu(rcv.rx->maps.mrc_rx_stats, MRC_RX_PACKETS),
	};
}

/*
 * Coalesced ACKs, no loss: at most ack_every - 1 packets in a row wait
 * for a later ACK, the burst's last asks for one, nothing is resent, and
 * every data packet is answered or deferred, never both.
 */
static void clean_channel(void **state)
{
	struct channel ch = { 0 };
	struct acks a0 = acks_now(), a1;

	(void)state;
	transfer(&ch, 1000);
	a1 = acks_now();
	assert_int_equal(percpu(tx->maps.mrc_tx_stats, MRC_TX_RETX), 0);
	assert_int_equal(a1.sent - a0.sent + a1.deferred - a0.deferred,
			 a1.rx - a0.rx);
	assert_int_equal(a1.deferred - a0.deferred, ch.later_seen);
	/* The transfer's packets less one ACK per burst of 64 at most. */
	assert_true(a1.deferred - a0.deferred >=
		    (a1.rx - a0.rx) * (MRC_ACK_EVERY_DEFAULT - 1) /
				    MRC_ACK_EVERY_DEFAULT -
			    (a1.rx - a0.rx) / 64 - 1);
}

/* ack_every 1: every packet asks for its ACK, and gets it. */
static void every_packet_acked(void **state)
{
	struct channel ch = { 0 };
	struct acks a0 = acks_now(), a1;

	(void)state;
	ack_every = 1;
	transfer(&ch, 1000);
	ack_every = MRC_ACK_EVERY_DEFAULT;
	a1 = acks_now();
	assert_int_equal(a1.deferred - a0.deferred, 0);
	assert_int_equal(ch.later_seen, 0);
	assert_int_equal(a1.sent - a0.sent, a1.rx - a0.rx);
}

/*
 * The one ACK that covers a run of packets is lost, every time: the
 * sender resends the oldest (overdue, then by timeout), the receiver
 * answers the duplicate at once, and that ACK delivers the run. Bytes
 * and completions exactly as on a clean channel.
 */
static void coalesced_ack_lost(void **state)
{
	struct channel ch = { .drop_covering_acks = 1 };

	(void)state;
	transfer(&ch, 4242);
	assert_true(ch.covering_dropped > 10);
}

static void psn_wrap(void **state)
{
	struct channel ch = { 0 };

	(void)state;
	transfer(&ch, MRC_BTH_PSN_MASK - 40);
}

static void lossy_channel(void **state)
{
	struct channel ch = { .drop_every = 13 };
	uint64_t retx = percpu(tx->maps.mrc_tx_stats, MRC_TX_RETX);

	(void)state;
	uint64_t lost = percpu(tx->maps.mrc_tx_stats, MRC_TX_LOST);
	uint64_t unbuilt = percpu(tx->maps.mrc_tx_stats, MRC_TX_BUILD_FAILED);
	uint64_t nacks = percpu(tx->maps.mrc_tx_stats, MRC_TX_NACKS);

	struct mrc_ev_stats ev, sum = {};
	uint64_t sent = percpu(tx->maps.mrc_tx_stats, MRC_TX_PACKETS);
	uint32_t i, key, used = 0;

	for (i = 0; i < NEV; i++) {
		key = S_QPN * MRC_QP_EVS + i;
		assert_int_equal(bpf_map_lookup_elem(
					 bpf_map__fd(snd.rx->maps.mrc_ev_stats),
					 &key, &ev),
				 0);
		sum.sent -= ev.sent; /* counters accumulate across tests */
		sum.lost -= ev.lost;
		sum.acked -= ev.acked;
		sum.retx -= ev.retx;
	}
	transfer(&ch, 5);
	assert_true(percpu(tx->maps.mrc_tx_stats, MRC_TX_RETX) > retx);
	/* Holes were found by SACK, not only by timeouts. */
	assert_true(percpu(tx->maps.mrc_tx_stats, MRC_TX_LOST) > lost);
	/* Per EV: every packet sent is counted on its EV, losses too. */
	for (i = 0; i < NEV; i++) {
		key = S_QPN * MRC_QP_EVS + i;
		assert_int_equal(bpf_map_lookup_elem(
					 bpf_map__fd(snd.rx->maps.mrc_ev_stats),
					 &key, &ev),
				 0);
		sum.sent += ev.sent;
		sum.lost += ev.lost;
		sum.acked += ev.acked;
		sum.retx += ev.retx;
		used += ev.sent > 0 && ev.acked > 0 && ev.rtt_min_ns > 0 &&
			ev.rtt_min_ns <= ev.rtt_srtt_ns * 2 &&
			ev.rtt_min_ns <= ev.rtt_max_ns;
	}
	assert_int_equal(sum.sent,
			 percpu(tx->maps.mrc_tx_stats, MRC_TX_PACKETS) - sent);
	assert_true(sum.lost > 0);
	/*
	 * Every packet that got through was acknowledged once, on the EV it
	 * went out on (channel packets 1, 14, 27... were dropped); every
	 * loss was resent; nothing was resent that was not lost (no
	 * reordering here, so no hole was a late packet), but a packet
	 * whose frame failed to build after its pick (MRC_REC_UNSENT, rare:
	 * health.md), which goes again counting no loss.
	 */
	unbuilt = percpu(tx->maps.mrc_tx_stats, MRC_TX_BUILD_FAILED) - unbuilt;
	nacks = percpu(tx->maps.mrc_tx_stats, MRC_TX_NACKS) - nacks;
	if (sum.retx != sum.lost + unbuilt)
		fail_msg(
			"resent %llu, lost %llu, frames that failed to build %llu, NACKs %llu",
			(unsigned long long)sum.retx,
			(unsigned long long)sum.lost,
			(unsigned long long)unbuilt, (unsigned long long)nacks);
	assert_int_equal(sum.acked, last_pumped - (last_pumped + 12) / 13);
	assert_int_equal(sum.lost, (last_pumped + 12) / 13);
	assert_int_equal(used, NEV); /* all EVs sprayed, acked, timed */
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * The peer is gone: every packet is lost. After 3 linear retries one
 * timeout apart and 4 exponential ones (2, 4, 8, 16 timeouts), and one
 * more doubled wait for the last, the WQE completes with
 * IBV_WC_RETRY_EXC_ERR and the QP is in ERR: 3 + 2 + 4 + 8 + 16 + 32 = 65 timeouts
 * (130 ms here), never earlier, after exactly 7 resends of the first PSN.
 * (How much later depends on how soon this process runs again: a bound on
 * that would fail on a loaded machine. The schedule is what is checked.)
 */
static void peer_gone(void **state)
{
	struct channel ch = { .drop_every = 1 };
	static struct mrc_qp_tx qt;
	uint32_t qpn = S_QPN;
	uint64_t retx = percpu(tx->maps.mrc_tx_stats, MRC_TX_RETX);
	double t0, ms;

	(void)state;
	assert_int_equal(reset(1), 0);
	qt = *get_qp_tx();
	qt.timeout_ns = TIMEOUT_NS; /* real time: expire_una sleeps */
	assert_int_equal(
		bpf_map_update_elem(bpf_map__fd(snd.rx->maps.mrc_qp_tx), &qpn,
				    &qt, BPF_EXIST),
		0);
	t0 = now_ms();
	post(42, 0, 0, 5000, 0);
	pump(&ch);
	ms = now_ms() - t0;
	ring_buffer__consume(snd.cq);
	assert_int_equal(snd.ncqe, 1);
	assert_int_equal(snd.cqe[0].wr_id, 42);
	assert_int_equal(snd.cqe[0].status, MRC_WC_RETRY_EXC_ERR);
	assert_int_equal(
		bpf_map_lookup_elem(bpf_map__fd(snd.rx->maps.mrc_qp_tx), &qpn,
				    &qt),
		0);
	assert_int_equal(qt.state, MRC_QPS_ERR);
	if (ms < 65 * TIMEOUT_NS / 1e6)
		fail_msg("error after %.1f ms, formula says %.1f ms", ms,
			 65 * TIMEOUT_NS / 1e6);
	assert_int_equal(qt.rec[1].timeouts, 7);
	assert_int_equal(qt.rec[1].tries, 8);
	/* 5000 bytes, MTU 1024: five PSNs sent once, the first 7 times more */
	assert_int_equal(percpu(tx->maps.mrc_tx_stats, MRC_TX_RETX) - retx, 7);
	assert_int_equal(rcv.ncqe, 0);
}

static void duplicating_channel(void **state)
{
	struct channel ch = { .dup = 1 };

	(void)state;
	transfer(&ch, 77);
}

static void reordering_channel(void **state)
{
	struct channel ch = { .reorder = 7 };

	(void)state;
	transfer(&ch, 9);
}

static void lossy_reordering_ack_losing(void **state)
{
	struct channel ch = {
		.drop_every = 29, .reorder = 5, .dup = 1, .drop_acks_every = 3
	};

	(void)state;
	transfer(&ch, 123456);
}

/*
 * The receiver refuses the rkey: the WQE completes with
 * IBV_WC_REM_ACCESS_ERR, the QP goes to ERR, nothing is written.
 */
static void remote_access_error(void **state)
{
	struct channel ch = { 0 };
	static struct mrc_qp_tx qt;
	uint32_t qpn = S_QPN;
	uint64_t off;

	(void)state;
	assert_int_equal(reset(1), 0);
	post(9, 0, 0, 3000, 0);
	sq->wqe[0].rkey ^= 1u << 20; /* not the receiver's key */
	pump(&ch);
	ring_buffer__consume(snd.cq);
	assert_int_equal(snd.ncqe, 1);
	assert_int_equal(snd.cqe[0].wr_id, 9);
	assert_int_equal(snd.cqe[0].status, MRC_WC_REM_ACCESS_ERR);
	assert_int_equal(
		bpf_map_lookup_elem(bpf_map__fd(snd.rx->maps.mrc_qp_tx), &qpn,
				    &qt),
		0);
	assert_int_equal(qt.state, MRC_QPS_ERR);
	for (off = 0; off < 4096; off++)
		assert_int_equal(*mr_at(rcv.mr, off), 0);
}

/*
 * At most max_wimm WRITE_IMMs in flight: with a limit of 1 and ten
 * one-packet WRITE_IMMs posted, the first burst carries one packet.
 */
static void wimm_limit(void **state)
{
	static struct frame out, empty;
	static struct mrc_qp_tx qt;
	uint32_t qpn = S_QPN, i;
	int txp = bpf_program__fd(tx->progs.mrc_xdp_tx), sent = 0;
	struct channel ch = { 0 };

	(void)state;
	assert_int_equal(reset(1), 0);
	assert_int_equal(
		bpf_map_lookup_elem(bpf_map__fd(snd.rx->maps.mrc_qp_tx), &qpn,
				    &qt),
		0);
	qt.max_wimm = 1;
	assert_int_equal(
		bpf_map_update_elem(bpf_map__fd(snd.rx->maps.mrc_qp_tx), &qpn,
				    &qt, BPF_ANY),
		0);
	for (i = 0; i < 10; i++)
		post(i + 1, i * 100, i * 100, 100, 1);
	empty.len = FRAME_MAX + 1;
	for (i = 0; i < 10; i++)
		sent += run(txp, &empty, &out) == XDP_REDIRECT;
	assert_int_equal(sent, 1);
	/* That packet lost, the rest follow one at a time as each completes. */
	pump(&ch);
	ring_buffer__consume(snd.cq);
	ring_buffer__consume(rcv.cq);
	assert_int_equal(snd.ncqe, 10);
	assert_int_equal(rcv.ncqe, 10);
}

static uint64_t tx_stat(enum mrc_tx_counter c);

/* Run the transmit program once for each of want's verdicts. */
static void runs_give(const int *want, int n)
{
	static struct frame out, empty;
	int txp = bpf_program__fd(tx->progs.mrc_xdp_tx), i;

	empty.len = FRAME_MAX + 1;
	for (i = 0; i < n; i++)
		assert_int_equal(run(txp, &empty, &out), want[i]);
}

/* The list serves n QPs, q[i][0] for up to q[i][1] runs, from the first. */
static void list_of(struct mrc_tx_list *l, const uint32_t (*q)[2], uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		l->e[i] = (struct mrc_tx_entry){ .qpn = q[i][0],
						 .left = (uint16_t)q[i][1],
						 .lanes = 1 };
	l->n = n;
	l->next = 0;
}

/*
 * One call serves a list of QPs (struct mrc_tx_list): a QP with nothing
 * to send gives its runs up to the next, one whose budget is used moves
 * on, the list's last keeps its runs, and runs after the end send
 * nothing.
 */
static void list_serves_qps_in_turn(void **state)
{
	static const int first[] = { XDP_DROP,	   XDP_REDIRECT, XDP_REDIRECT,
				     XDP_REDIRECT, XDP_DROP,	 XDP_DROP,
				     XDP_DROP },
			 second[] = { XDP_REDIRECT, XDP_REDIRECT, XDP_REDIRECT,
				      XDP_REDIRECT, XDP_REDIRECT, XDP_REDIRECT,
				      XDP_REDIRECT, XDP_DROP,	  XDP_DROP,
				      XDP_DROP };
	struct mrc_tx_list *l = &tx->bss->tx_list[0];
	uint64_t spare = tx_stat(MRC_TX_SPARE);
	uint32_t i, runs;

	(void)state;
	assert_int_equal(reset(1), 0);
	for (i = 0; i < 10; i++)
		post(i + 1, i * 100, i * 100, 100, 0);
	/* A QP that does not exist, ours for 3, another absent one last. */
	list_of(l,
		(const uint32_t[][2]){
			{ S_QPN + 100, 4 }, { S_QPN, 3 }, { S_QPN + 101, 2 } },
		3);
	runs = l->runs;
	runs_give(first, 7);
	assert_int_equal(l->e[0].sent, 0);
	assert_int_equal(l->e[0].left, 3); /* one run, then the next's */
	assert_int_equal(l->e[1].sent, 3);
	assert_int_equal(l->e[1].left, 0);
	assert_int_equal(l->e[2].sent, 0);
	assert_int_equal(l->e[2].left, 0); /* the last: both its runs */
	assert_int_equal(l->next, 3);
	assert_int_equal(l->runs - runs, 7);
	assert_int_equal(tx_stat(MRC_TX_SPARE) - spare, 1);
	/* Our QP first for 10, with 7 packets' work left: it gives up its
	 * last 3 runs to the absent QP after it, which has one. */
	list_of(l, (const uint32_t[][2]){ { S_QPN, 10 }, { S_QPN + 100, 1 } },
		2);
	runs_give(second, 10);
	assert_int_equal(l->e[0].sent, 7);
	assert_int_equal(l->e[0].left, 2);
	assert_int_equal(l->e[1].sent, 0);
	assert_int_equal(l->next, 2);
	assert_int_equal(tx_stat(MRC_TX_SPARE) - spare, 2);
	/* Every packet reached the receiver: the 10 WRITEs complete. */
	{
		struct channel ch = { 0 };

		pump(&ch);
	}
	ring_buffer__consume(snd.cq);
	ring_buffer__consume(rcv.cq);
	assert_int_equal(snd.ncqe, 10);
	tx_call_set(tx->bss->tx_call, tx->bss->tx_list, S_QPN, 0);
}

/* --- congestion control (NSCC) in the data path ------------------------ */

/*
 * NSCC parameters in the data path's fixed point (include/mrc/nscc.h):
 * window max_cwnd, target queueing delay target_ns over a configured base
 * RTT of base_ns; no quick adapt unless qa.
 */
static struct mrc_nscc_params cc_params(uint32_t max_cwnd, uint32_t target_ns,
					uint32_t base_ns, int qa)
{
	return (struct mrc_nscc_params){
		.mtu_bytes = MTU,
		.max_cwnd_bytes = max_cwnd,
		.base_rtt_ns = base_ns,
		.target_delay_ns = target_ns,
		.adjust_period_ns = 1000000,
		.adjust_bytes = 8 * MTU,
		.fi_q8_bytes = MTU * MRC_NSCC_Q8,
		.alpha_target_q8_bytes = MTU * MRC_NSCC_Q8,
		.fi_scale_q16 = MRC_NSCC_Q16 / 4,
		.gamma_q16 = 52429, /* 0.8 */
		.max_md_jump_q16 = MRC_NSCC_Q16 / 2,
		.near_zero_ns = MRC_NSCC_NEAR_ZERO_NS,
		.qa_threshold_ns = MRC_NSCC_QA_NEVER,
		.disable_qa = !qa,
		.qa_gate = 3,
	};
}

static uint64_t tx_stat(enum mrc_tx_counter c)
{
	return percpu(tx->maps.mrc_tx_stats, c);
}

/* Nothing left in flight, by the window's count either. */
static void cc_settled(void)
{
	struct mrc_qp_tx *qt = get_qp_tx();

	assert_non_null(qt);
	assert_int_equal(qt->una_psn, qt->next_psn);
	assert_int_equal(qt->cc.inflight_bytes, 0);
}

/*
 * A window of four packets: the first burst carries four, new data then
 * waits for ACKs (counted tx_cwnd_full), never more in flight than the
 * window; the transfer is byte-exact. (A target delay of 1 s: every RTT
 * is below it, so the window only grows, up to max_cwnd.)
 */
static void cwnd_gates_new_data(void **state)
{
	const struct mrc_nscc_params p =
		cc_params(4 * MTU, 1000000000, 1000, 0);
	static struct frame out, empty;
	uint64_t full = tx_stat(MRC_TX_CWND_FULL);
	int txp = bpf_program__fd(tx->progs.mrc_xdp_tx), sent = 0, i;
	struct channel ch = { 0 };

	(void)state;
	cc = &p;
	assert_int_equal(reset(1), 0);
	post(1, 0, 0, 20 * MTU, 0);
	empty.len = FRAME_MAX + 1;
	for (i = 0; i < 10; i++)
		sent += run(txp, &empty, &out) == XDP_REDIRECT;
	assert_int_equal(sent, 4);
	assert_true(tx_stat(MRC_TX_CWND_FULL) > full);
	assert_int_equal(get_qp_tx()->cc.inflight_bytes, 4 * MTU);
	ring_buffer__consume(snd.cq);
	transfer(&ch, 1000);
	assert_false(ch.over_window);
	cc_settled();
	cc = NULL;
}

/*
 * A fresh QP from first_psn with 20 MTUs posted, under the CC set in cc
 * (a window of four packets): ten transmit runs send four packets, into
 * data[0..3], and the window is full.
 */
static void window_filled(uint32_t first_psn, struct frame data[10])
{
	static struct frame empty;
	int txp = bpf_program__fd(tx->progs.mrc_xdp_tx), i, sent;

	assert_int_equal(reset(first_psn), 0);
	post(1, 0, 0, 20 * MTU, 0);
	empty.len = FRAME_MAX + 1;
	for (i = sent = 0; i < 10; i++)
		sent += run(txp, &empty, &data[sent]) == XDP_REDIRECT;
	assert_int_equal(sent, 4);
}

/* The PSN of a plain (not SRv6) data frame. */
static uint32_t data_psn(const struct frame *f)
{
	const uint8_t *bth = f->b + 14 + 20 + 8;

	assert_true(f->len > 14 + 20 + 8 + 12);
	return ((uint32_t)bth[9] << 16 | (uint32_t)bth[10] << 8 | bth[11]) &
	       MRC_BTH_PSN_MASK;
}

/*
 * ACK clocking: with a window of four packets full, the ACK of the first
 * leaves the sender's receive program as the fifth packet (XDP_REDIRECT,
 * counted tx_ack_clocked); mrc_wake, armed, stays armed (mrcd has nothing
 * to do). Without the program in mrc_ack_clock the same ACK is consumed
 * (XDP_DROP) and wakes mrcd instead. Each way the transfer is byte-exact.
 */
static void ack_clocks_next_packet(void **state)
{
	const struct mrc_nscc_params p =
		cc_params(4 * MTU, 1000000000, 1000, 0);
	int rx_s = bpf_program__fd(snd.rx->progs.mrc_xdp_rx);
	int rx_r = bpf_program__fd(rcv.rx->progs.mrc_xdp_rx);
	int wfd = bpf_map__fd(snd.rx->maps.mrc_wake), on;
	static struct frame data[10], ackf, out;
	uint64_t clocked;
	uint32_t qpn = S_QPN;
	mrc_wake_t armed = 1, w;
	struct channel ch = { 0 };

	(void)state;
	cc = &p;
	for (on = 1; on >= 0; on--) {
		ack_clock(on);
		window_filled(100, data);
		assert_int_equal(
			bpf_map_update_elem(wfd, &qpn, &armed, BPF_ANY), 0);
		assert_int_equal(run(rx_r, &data[0], &ackf), XDP_TX);
		clocked = tx_stat(MRC_TX_ACK_CLOCKED);
		if (on) {
			assert_int_equal(run(rx_s, &ackf, &out), XDP_REDIRECT);
			assert_int_equal(data_psn(&out), 104);
			assert_int_equal(tx_stat(MRC_TX_ACK_CLOCKED),
					 clocked + 1);
			assert_int_equal(get_qp_tx()->next_psn, 105);
		} else {
			assert_int_equal(run(rx_s, &ackf, &out), XDP_DROP);
			assert_int_equal(tx_stat(MRC_TX_ACK_CLOCKED), clocked);
			assert_int_equal(get_qp_tx()->next_psn, 104);
		}
		assert_int_equal(bpf_map_lookup_elem(wfd, &qpn, &w), 0);
		assert_int_equal(w, on ? 1 : 0);
		ring_buffer__consume(snd.cq);
		transfer(&ch, 1000);
		assert_false(ch.over_window);
		cc_settled();
	}
	cc = NULL;
}

/*
 * A TRIMMED NACK is resent at once: with the window full and ACK
 * clocking on, the NACK of the trimmed first packet leaves the sender's
 * receive program as that packet again (its PSN, XDP_REDIRECT), though
 * it delivered nothing and moved nothing.
 */
static void trim_nack_resent_from_its_frame(void **state)
{
	const struct mrc_nscc_params p =
		cc_params(4 * MTU, 1000000000, 1000, 0);
	int rx_s = bpf_program__fd(snd.rx->progs.mrc_xdp_rx);
	int rx_r = bpf_program__fd(rcv.rx->progs.mrc_xdp_rx);
	static struct frame data[10], nack, out;
	uint64_t retx = tx_stat(MRC_TX_RETX);

	(void)state;
	cc = &p;
	ack_clock(1);
	window_filled(200, data);
	trim_frame(&data[0]);
	assert_int_equal(run(rx_r, &data[0], &nack), XDP_TX);
	assert_int_equal(run(rx_s, &nack, &out), XDP_REDIRECT);
	assert_int_equal(data_psn(&out), 200);
	assert_int_equal(tx_stat(MRC_TX_RETX), retx + 1);
	ack_clock(0);
	assert_int_equal(reset(1), 0);
	cc = NULL;
}

/*
 * Two CPUs send for one QP (ACK clocking and a transmit call): one reads
 * the clock, waits for the send lock, and meanwhile the other stamps una
 * after that reading. Its pick must not find una sent in the future and
 * so "waiting" past its ACK timeout (an unsigned difference wraps): with
 * the window full, nothing is resent and no timeout counted. Here the
 * other CPU's stamp is made 1 s ahead, where that pick leaves it (una's
 * record and the QP's clock, tx_clock_ns).
 */
static void stamp_ahead_is_no_timeout(void **state)
{
	const struct mrc_nscc_params p =
		cc_params(4 * MTU, 1000000000, 1000, 0);
	int txp = bpf_program__fd(tx->progs.mrc_xdp_tx);
	uint64_t timeouts, retx, ahead = mono_ns() + 1000000000ull;
	static struct frame data[10], out, empty;
	struct mrc_qp_tx *qt;
	uint32_t qpn = S_QPN;

	(void)state;
	cc = &p;
	window_filled(1, data);
	qt = get_qp_tx();
	assert_non_null(qt);
	qt->rec[qt->una_psn % MRC_TX_RING].tx_ns = ahead;
	qt->tx_clock_ns = ahead;
	assert_int_equal(
		bpf_map_update_elem(bpf_map__fd(snd.rx->maps.mrc_qp_tx), &qpn,
				    qt, BPF_EXIST),
		0);
	timeouts = tx_stat(MRC_TX_TIMEOUTS);
	retx = tx_stat(MRC_TX_RETX);
	empty.len = FRAME_MAX + 1;
	assert_int_equal(run(txp, &empty, &out), XDP_DROP);
	assert_int_equal(tx_stat(MRC_TX_TIMEOUTS), timeouts);
	assert_int_equal(tx_stat(MRC_TX_RETX), retx);
	assert_int_equal(reset(1), 0);
	cc = NULL;
}

/*
 * ACK clocking over the channels the transfers take: clean, lossy,
 * reordering, trimming, CE-marking. Byte-exact, every completion once, no
 * EV blamed; and on the clean channel, where the window only grows, never
 * more in flight than the window, and most packets leave from ACKs.
 */
static void ack_clocked_channels(void **state)
{
	const struct mrc_nscc_params p =
		cc_params(16 * MTU, 1000000000, 1000, 1);
	const struct mrc_nscc_params marked = cc_params(64 * MTU, 1, 1, 0);
	struct channel chs[] = {
		{ 0 },
		{ .drop_every = 7 },
		{ .reorder = 5 },
		{ .trim_every = 7 },
		{ .ce = 1 },
	};
	uint64_t bad = tx_stat(MRC_TX_EV_BAD), clocked, pkts;
	unsigned int i;

	(void)state;
	ack_clock(1);
	for (i = 0; i < sizeof(chs) / sizeof(chs[0]); i++) {
		cc = chs[i].ce ? &marked : &p;
		clocked = tx_stat(MRC_TX_ACK_CLOCKED);
		pkts = tx_stat(MRC_TX_PACKETS);
		transfer(&chs[i], 3000 + i * 1000);
		cc_settled();
		clocked = tx_stat(MRC_TX_ACK_CLOCKED) - clocked;
		pkts = tx_stat(MRC_TX_PACKETS) - pkts;
		assert_true(clocked > 0);
		if (i == 0) {
			assert_false(chs[i].over_window);
			assert_true(clocked * 2 > pkts);
		}
	}
	assert_int_equal(tx_stat(MRC_TX_EV_BAD), bad);
	ack_clock(0);
	cc = NULL;
}

/*
 * A switch that trims one data packet in seven: each trim comes back as a
 * TRIMMED NACK, is resent, and shrinks the window; no EV is blamed for
 * it; byte-exact.
 */
static void trimming_channel(void **state)
{
	const struct mrc_nscc_params p =
		cc_params(64 * MTU, 1000000000, 1000, 1);
	uint64_t trims = tx_stat(MRC_TX_CC_TRIMS), bad = tx_stat(MRC_TX_EV_BAD);
	uint64_t retx = tx_stat(MRC_TX_RETX);
	uint64_t cut = percpu(rcv.rx->maps.mrc_drop, MRC_DROP_TRIMMED);
	struct channel ch = { .trim_every = 7 };

	(void)state;
	cc = &p;
	transfer(&ch, 4000);
	trims = tx_stat(MRC_TX_CC_TRIMS) - trims;
	cut = percpu(rcv.rx->maps.mrc_drop, MRC_DROP_TRIMMED) - cut;
	/* Every trim NACKed and taken by the window, about one in seven. */
	assert_int_equal(trims, cut);
	assert_true(trims >= (uint64_t)last_pumped / 8);
	assert_true(tx_stat(MRC_TX_RETX) - retx >= trims);
	assert_int_equal(tx_stat(MRC_TX_EV_BAD), bad);
	assert_true(ch.cwnd_min < 64 * MTU);
	cc_settled();
	cc = NULL;
}

/*
 * Every packet CE-marked, the queueing delay above target (1 ns): the
 * window decreases multiplicatively (counted cc_decreases), never below
 * one MTU; no EV is blamed; byte-exact.
 */
static void ce_marks_decrease(void **state)
{
	const struct mrc_nscc_params p = cc_params(64 * MTU, 1, 1, 0);
	uint64_t md = tx_stat(MRC_TX_CC_MD), bad = tx_stat(MRC_TX_EV_BAD);
	struct channel ch = { .ce = 1 };

	(void)state;
	cc = &p;
	transfer(&ch, 70000);
	assert_true(tx_stat(MRC_TX_CC_MD) > md);
	assert_int_equal(tx_stat(MRC_TX_EV_BAD), bad);
	assert_true(ch.cwnd_min < 32 * MTU);
	assert_true(ch.cwnd_min >= MTU);
	cc_settled();
	cc = NULL;
}

/*
 * The receiver says how long it held a packet (AEXT svc, 64 ns units),
 * and the sender's RTT for the window is its round trip less that: with
 * a configured base RTT of 1 s, the first sample is the learned base.
 */
static void service_time_taken_out(void **state)
{
	const struct mrc_nscc_params p =
		cc_params(64 * MTU, 1000000000, 1000000000, 0);
	int txp = bpf_program__fd(tx->progs.mrc_xdp_tx);
	int rx_s = bpf_program__fd(snd.rx->progs.mrc_xdp_rx);
	int rx_r = bpf_program__fd(rcv.rx->progs.mrc_xdp_rx);
	static struct frame data, ackf, empty;
	const struct mrc_aext *ax;
	struct mrc_ev_stats ev;
	struct mrc_qp_tx *qt;
	uint32_t svc_ns, key;

	(void)state;
	cc = &p;
	assert_int_equal(reset(1), 0);
	memset(&ev, 0, sizeof(ev));
	for (key = S_QPN * MRC_QP_EVS; key < S_QPN * MRC_QP_EVS + NEV; key++)
		assert_int_equal(bpf_map_update_elem(
					 bpf_map__fd(snd.rx->maps.mrc_ev_stats),
					 &key, &ev, BPF_ANY),
				 0);
	post(1, 0, 0, MTU, 0);
	empty.len = FRAME_MAX + 1;
	assert_int_equal(run(txp, &empty, &data), XDP_REDIRECT);
	assert_int_equal(run(rx_r, &data, &ackf), XDP_TX);
	ax = (const void *)(ackf.b + 14 + 20 + 8 + sizeof(struct mrc_bth) +
			    sizeof(struct mrc_aeth));
	svc_ns = ntohs(ax->svc) * MRC_SVC_UNIT_NS;
	/* A checksum and a copy of 1 KiB: more than 64 ns, far below 4 ms. */
	assert_true(svc_ns > 0);
	assert_true(ntohs(ax->svc) < MRC_SVC_MAX);
	assert_int_equal(run(rx_s, &ackf, &ackf), XDP_DROP);
	qt = get_qp_tx();
	key = S_QPN * MRC_QP_EVS + qt->rec[1].ev_idx;
	assert_int_equal(
		bpf_map_lookup_elem(bpf_map__fd(snd.rx->maps.mrc_ev_stats),
				    &key, &ev),
		0);
	/* The EV's RTT is the whole round trip; the window's, without svc. */
	assert_true(ev.rtt_max_ns > svc_ns);
	assert_int_equal(qt->cc.base_rtt_ns + svc_ns, ev.rtt_max_ns);
	cc_settled();
	cc = NULL;
}

/* The sender's pump (mrc_pump[0], abi.h): mrcd tgid, gone or not. */
static void pump_is(uint32_t tgid, uint32_t gone)
{
	struct mrc_pump p = { .tgid = tgid, .gone = gone };
	uint32_t key = 0;

	assert_int_equal(bpf_map_update_elem(bpf_map__fd(snd.rx->maps.mrc_pump),
					     &key, &p, BPF_ANY),
			 0);
}

/* What the sender's pump says now. */
static struct mrc_pump pump_read(void)
{
	struct mrc_pump p;
	uint32_t key = 0;

	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(snd.rx->maps.mrc_pump),
					     &key, &p),
			 0);
	return p;
}

static void pump_gone(int gone)
{
	pump_is(1, (uint32_t)gone);
}

/*
 * With no mrcd to pump (the exit hook set mrc_pump gone), an ACK that
 * makes room sends the next packet of a QP without a CC profile too
 * (tx_ack_clocked_no_mrcd), and that packet asks for an ACK of its own
 * (the receiver answers it at once), so the clock goes on. With mrcd
 * there, the same ACK sends nothing: mrcd's transmit calls serve such a
 * QP, in bursts.
 */
static void no_mrcd_any_qp_clocked(void **state)
{
	int txp = bpf_program__fd(tx->progs.mrc_xdp_tx);
	int rx_s = bpf_program__fd(snd.rx->progs.mrc_xdp_rx);
	int rx_r = bpf_program__fd(rcv.rx->progs.mrc_xdp_rx);
	static struct frame data, ackf, out, empty;
	uint64_t clocked = tx_stat(MRC_TX_ACK_CLOCKED_NO_MRCD);

	(void)state;
	cc = NULL;
	ack_clock(1);
	assert_int_equal(reset(400), 0);
	empty.len = FRAME_MAX + 1;
	/* Each packet the last posted when sent: its ACK comes at once. */
	pump_gone(0);
	post(1, 0, 0, MTU, 0);
	assert_int_equal(run(txp, &empty, &data), XDP_REDIRECT);
	post(2, MTU, MTU, MTU, 0);
	assert_int_equal(run(rx_r, &data, &ackf), XDP_TX);
	assert_int_equal(run(rx_s, &ackf, &out), XDP_DROP);
	assert_int_equal(get_qp_tx()->next_psn, 401);

	pump_gone(1);
	assert_int_equal(run(txp, &empty, &data), XDP_REDIRECT);
	post(3, 2 * MTU, 2 * MTU, MTU, 0);
	assert_int_equal(run(rx_r, &data, &ackf), XDP_TX);
	assert_int_equal(run(rx_s, &ackf, &out), XDP_REDIRECT);
	assert_int_equal(data_psn(&out), 402);
	assert_int_equal(tx_stat(MRC_TX_ACK_CLOCKED_NO_MRCD), clocked + 1);
	assert_int_equal(run(rx_r, &out, &ackf), XDP_TX);
	assert_int_equal(run(rx_s, &ackf, &out), XDP_DROP);
	assert_int_equal(get_qp_tx()->una_psn, 403);
	assert_int_equal(get_qp_tx()->next_psn, 403);
	assert_int_equal(memcmp(mr_at(rcv.mr, 0), mr_at(snd.mr, 0), 3 * MTU),
			 0);

	pump_gone(0);
	ack_clock(0);
}

/*
 * A QP clocked only without mrcd (clock_no_mrcd_only: mrcd transmits by
 * skb, docs/mrcd.md), with ACK clocking on and a CC profile: while mrcd
 * pumps, the ACK that makes room sends nothing (mrcd sends); with the pump
 * gone, it sends the next packet, as for any QP.
 */
static void clocked_only_without_mrcd(void **state)
{
	const struct mrc_nscc_params p =
		cc_params(4 * MTU, 1000000000, 1000, 0);
	int rx_s = bpf_program__fd(snd.rx->progs.mrc_xdp_rx);
	int rx_r = bpf_program__fd(rcv.rx->progs.mrc_xdp_rx);
	int qfd = bpf_map__fd(snd.rx->maps.mrc_qp_tx), gone;
	static struct frame data[10], ackf, out;
	uint32_t qpn = S_QPN;
	struct mrc_qp_tx *qt;

	(void)state;
	cc = &p;
	ack_clock(1);
	for (gone = 0; gone <= 1; gone++) {
		window_filled(100, data);
		qt = get_qp_tx();
		assert_non_null(qt);
		qt->clock_no_mrcd_only = 1;
		assert_int_equal(bpf_map_update_elem(qfd, &qpn, qt, BPF_ANY),
				 0);
		pump_gone(gone);
		assert_int_equal(run(rx_r, &data[0], &ackf), XDP_TX);
		if (gone) {
			assert_int_equal(run(rx_s, &ackf, &out), XDP_REDIRECT);
			assert_int_equal(data_psn(&out), 104);
		} else {
			assert_int_equal(run(rx_s, &ackf, &out), XDP_DROP);
			assert_int_equal(get_qp_tx()->next_psn, 104);
		}
	}
	pump_gone(0);
	ack_clock(0);
	cc = NULL;
}

/*
 * With no mrcd, an ACK may be a QP's last: its window full behind a lost
 * una, an ACK that finds nothing to send resends una once it has waited
 * its probe time without the floor (TX_PROBE), not the probe timeout that
 * mrcd's poll would wait for (an eighth of a 1 s ACK timeout here). The resend asks
 * for an ACK, which then sends new data again.
 */
static void no_mrcd_full_window_probes_una(void **state)
{
	int txp = bpf_program__fd(tx->progs.mrc_xdp_tx);
	int rx_s = bpf_program__fd(snd.rx->progs.mrc_xdp_rx);
	int rx_r = bpf_program__fd(rcv.rx->progs.mrc_xdp_rx);
	static struct frame lost, data, ackf, out, empty;
	uint64_t overdue = tx_stat(MRC_TX_OVERDUE);
	uint32_t qpn = S_QPN;
	struct mrc_qp_tx *qt;

	(void)state;
	cc = NULL;
	ack_clock(1);
	assert_int_equal(reset(500), 0);
	qt = get_qp_tx();
	qt->window = 2;
	assert_int_equal(
		bpf_map_update_elem(bpf_map__fd(snd.rx->maps.mrc_qp_tx), &qpn,
				    qt, BPF_EXIST),
		0);
	pump_gone(1);
	empty.len = FRAME_MAX + 1;
	post(1, 0, 0, MTU, 0);
	assert_int_equal(run(txp, &empty, &lost), XDP_REDIRECT);
	/* 500 waits 50 ms: past its probe time (some reordering slack and
	 * 501's round trip), not its probe timeout with mrcd (125 ms). */
	usleep(50000);
	post(2, MTU, MTU, MTU, 0);
	assert_int_equal(run(txp, &empty, &data), XDP_REDIRECT);
	post(3, 2 * MTU, 2 * MTU, MTU, 0);
	/* 500 lost; 501's SACK finds the window full: 500 again. */
	assert_int_equal(run(rx_r, &data, &ackf), XDP_TX);
	assert_int_equal(run(rx_s, &ackf, &out), XDP_REDIRECT);
	assert_int_equal(data_psn(&out), 500);
	assert_int_equal(tx_stat(MRC_TX_OVERDUE), overdue + 1);
	/* Its ACK moves una past 501: 502 leaves. */
	assert_int_equal(run(rx_r, &out, &ackf), XDP_TX);
	assert_int_equal(run(rx_s, &ackf, &out), XDP_REDIRECT);
	assert_int_equal(data_psn(&out), 502);
	assert_int_equal(run(rx_r, &out, &ackf), XDP_TX);
	assert_int_equal(run(rx_s, &ackf, &out), XDP_DROP);
	assert_int_equal(get_qp_tx()->una_psn, 503);
	assert_int_equal(memcmp(mr_at(rcv.mr, 0), mr_at(snd.mr, 0), 3 * MTU),
			 0);
	pump_gone(0);
	ack_clock(0);
	assert_int_equal(reset(1), 0);
}

/*
 * The exit hook (bpf/mrc_pump_gone.bpf.c), run as this process's exit
 * would run it: the exit of the pump's thread group leader sets gone; the
 * exit of another process, or of another thread of the pump's, does not.
 */
static void *exit_from_thread(void *arg)
{
	LIBBPF_OPTS(bpf_test_run_opts, o);

	return (void *)(long)bpf_prog_test_run_opts(*(int *)arg, &o);
}

/* The pump set to {tgid, gone}, prog run in this task; what it says then. */
static struct mrc_pump pump_run(const struct bpf_program *prog, uint32_t tgid,
				uint32_t gone)
{
	LIBBPF_OPTS(bpf_test_run_opts, o);

	pump_is(tgid, gone);
	assert_int_equal(bpf_prog_test_run_opts(bpf_program__fd(prog), &o), 0);
	return pump_read();
}

static void watch_marks_pump_and_queues(void **state)
{
	int fd = bpf_program__fd(pump_gone_->progs.mrc_pump_exit);
	uint64_t seen = tx_stat(MRC_TX_PUMP_GONE), t0 = mono_ns();
	uint32_t me = (uint32_t)getpid();
	struct mrc_pump p;
	pthread_t th;
	void *rc;

	(void)state;
	/* The claim names the caller, as the kernel knows it, not gone, and
	 * its posters' queues served again. */
	sq->no_pump = 1;
	p = pump_run(pump_gone_->progs.mrc_pump_claim, me + 1, 1);
	assert_int_equal(p.tgid, me);
	assert_int_equal(p.gone, 0);
	assert_int_equal(sq->no_pump, 0);

	assert_int_equal(
		pump_run(pump_gone_->progs.mrc_pump_exit, me + 1, 0).gone, 0);

	pump_is(me, 0);
	assert_int_equal(pthread_create(&th, NULL, exit_from_thread, &fd), 0);
	assert_int_equal(pthread_join(th, &rc), 0);
	assert_null(rc);
	assert_int_equal(pump_read().gone, 0);
	assert_int_equal(tx_stat(MRC_TX_PUMP_GONE), seen);
	assert_int_equal(sq->no_pump, 0);

	/* The leader's exit: gone, and every send queue unserved, so its
	 * poster's next post rings a packet out itself. */
	p = pump_run(pump_gone_->progs.mrc_pump_exit, me, 0);
	assert_int_equal(p.gone, 1);
	assert_true(p.gone_ns >= t0 && p.gone_ns <= mono_ns());
	assert_int_equal(tx_stat(MRC_TX_PUMP_GONE), seen + 1);
	assert_int_equal(sq->no_pump, 1);

	/* A stopping mrcd says the same of itself (mrc_pump_leave); another
	 * process's leave is not the pump's. */
	sq->no_pump = 0;
	assert_int_equal(
		pump_run(pump_gone_->progs.mrc_pump_leave, me + 1, 0).gone, 0);
	assert_int_equal(sq->no_pump, 0);
	assert_int_equal(pump_run(pump_gone_->progs.mrc_pump_leave, me, 0).gone,
			 1);
	assert_int_equal(tx_stat(MRC_TX_PUMP_GONE), seen + 2);
	assert_int_equal(sq->no_pump, 1);
	sq->no_pump = 0;
	pump_gone(0);
}

/* A child that waits to be killed, or (exit_now) exits once told to
 * (a byte on go_fd), not before its parent has named it the pump. */
static int go_fd = -1;

static pid_t child(int exit_now)
{
	int go[2];
	pid_t pid;
	char b;

	assert_int_equal(pipe(go), 0);
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		if (!exit_now)
			pause();
		if (read(go[0], &b, 1) < 0)
			_exit(1);
		_exit(0);
	}
	assert_true(pid > 0);
	close(go[0]);
	if (go_fd >= 0)
		close(go_fd);
	go_fd = go[1];
	return pid;
}

/* mrc_pump[0] names tgid, not gone; then what it says once tgid is dead
 * (killed with sig, or told to exit). */
static struct mrc_pump pump_after(pid_t tgid, int sig)
{
	int st;

	pump_is((uint32_t)tgid, 0);
	if (sig)
		assert_int_equal(kill(tgid, sig), 0);
	else
		assert_int_equal(write(go_fd, "x", 1), 1);
	assert_int_equal(waitpid(tgid, &st, 0), tgid);
	return pump_read();
}

/*
 * The pump's watch, attached for real, on real processes: the kill hook
 * alone marks the pump gone on a SIGKILL (at the kill, before the exit)
 * and not on a SIGTERM; the exit hook alone on any exit of the pump, and
 * not on the exit of another process.
 */
static void pump_watch_real_deaths(void **state)
{
	struct bpf_link *kill_link, *exit_link;
	pid_t pump, other;
	int st;

	(void)state;
	kill_link = bpf_program__attach_raw_tracepoint(
		pump_gone_->progs.mrc_pump_kill, "signal_generate");
	assert_non_null(kill_link);
	sq->no_pump = 0;
	assert_int_equal(pump_after(child(0), SIGKILL).gone, 1);
	assert_int_equal(sq->no_pump, 1);
	sq->no_pump = 0;
	assert_int_equal(pump_after(child(0), SIGTERM).gone, 0);
	assert_int_equal(sq->no_pump, 0);
	bpf_link__destroy(kill_link);

	exit_link = bpf_program__attach_raw_tracepoint(
		pump_gone_->progs.mrc_pump_exit, "sched_process_exit");
	assert_non_null(exit_link);
	assert_int_equal(pump_after(child(1), 0).gone, 1);
	assert_int_equal(pump_after(child(0), SIGTERM).gone, 1);
	/* The pump waits; another process exits. */
	pump = child(0);
	pump_is((uint32_t)pump, 0);
	other = child(1);
	assert_int_equal(write(go_fd, "x", 1), 1);
	assert_int_equal(waitpid(other, &st, 0), other);
	assert_int_equal(pump_read().gone, 0);
	assert_int_equal(kill(pump, SIGKILL), 0);
	assert_int_equal(waitpid(pump, &st, 0), pump);
	bpf_link__destroy(exit_link);
	sq->no_pump = 0;
	close(go_fd);
	go_fd = -1;
	pump_gone(0);
}

/* NSCC's samples in the sender's mrc_cc_delay: in bucket b, in all. */
static uint64_t cc_delay_in(uint32_t b)
{
	return percpu(snd.rx->maps.mrc_cc_delay, b);
}

static uint64_t cc_delays(void)
{
	uint64_t n = 0;
	uint32_t b;

	for (b = 0; b < MRC_CC_DELAY_BUCKETS; b++)
		n += cc_delay_in(b);
	return n;
}

/* One packet of MTU bytes from off: sent, answered, the answer taken
 * after hold_us; t (if not NULL) gets the time around it, in ns. */
static void one_packet(uint64_t off, unsigned int hold_us, uint64_t *t)
{
	int txp = bpf_program__fd(tx->progs.mrc_xdp_tx);
	int rx_s = bpf_program__fd(snd.rx->progs.mrc_xdp_rx);
	int rx_r = bpf_program__fd(rcv.rx->progs.mrc_xdp_rx);
	static struct frame data, ackf, empty;
	uint64_t t0;

	post(off / MTU + 1, off, off, MTU, 0);
	empty.len = FRAME_MAX + 1;
	t0 = mono_ns();
	assert_int_equal(run(txp, &empty, &data), XDP_REDIRECT);
	assert_int_equal(run(rx_r, &data, &ackf), XDP_TX);
	if (hold_us)
		usleep(hold_us);
	assert_int_equal(run(rx_s, &ackf, &ackf), XDP_DROP);
	if (t)
		*t = mono_ns() - t0;
}

/*
 * mrc_cc_delay counts each of NSCC's RTT samples once, by its queueing
 * delay: the sample less the QP's base RTT. The first sample, its ACK
 * held a millisecond, sets the base RTT (the profile's is 1 s): delay 0,
 * bucket 0, however loaded the machine (its whole round trip would be a
 * hundred buckets on). The next packet's is one sample more, no longer
 * than the time around its round trip. A TRIMMED NACK takes none, nor
 * the ACK of the resend it asks for (Karn).
 */
static void cc_delay_counted(void **state)
{
	const struct mrc_nscc_params p =
		cc_params(64 * MTU, 1000000000, 1000000000, 0);
	int txp = bpf_program__fd(tx->progs.mrc_xdp_tx);
	int rx_s = bpf_program__fd(snd.rx->progs.mrc_xdp_rx);
	int rx_r = bpf_program__fd(rcv.rx->progs.mrc_xdp_rx);
	static uint64_t before[MRC_CC_DELAY_BUCKETS];
	static struct frame data, nack, empty;
	uint64_t zero = cc_delay_in(0), all = cc_delays(), t;
	uint32_t b, grew = MRC_CC_DELAY_BUCKETS;

	(void)state;
	cc = &p;
	assert_int_equal(reset(1), 0);
	one_packet(0, 1000, NULL);
	assert_int_equal(cc_delay_in(0), zero + 1);
	assert_int_equal(cc_delays(), all + 1);

	for (b = 0; b < MRC_CC_DELAY_BUCKETS; b++)
		before[b] = cc_delay_in(b);
	one_packet(MTU, 0, &t);
	for (b = 0; b < MRC_CC_DELAY_BUCKETS; b++) {
		if (cc_delay_in(b) == before[b])
			continue;
		assert_int_equal(cc_delay_in(b), before[b] + 1);
		assert_int_equal(grew, MRC_CC_DELAY_BUCKETS);
		grew = b;
	}
	assert_true(grew <= mrc_cc_delay_bucket(t));

	post(3, 2 * MTU, 2 * MTU, MTU, 0);
	empty.len = FRAME_MAX + 1;
	assert_int_equal(run(txp, &empty, &data), XDP_REDIRECT);
	trim_frame(&data);
	assert_int_equal(run(rx_r, &data, &nack), XDP_TX);
	assert_int_equal(run(rx_s, &nack, &nack), XDP_DROP);
	assert_int_equal(cc_delays(), all + 2);
	assert_int_equal(run(txp, &empty, &data), XDP_REDIRECT);
	assert_int_equal(run(rx_r, &data, &nack), XDP_TX);
	assert_int_equal(run(rx_s, &nack, &nack), XDP_DROP);
	assert_int_equal(cc_delays(), all + 2);
	cc_settled();
	cc = NULL;
}

/* Over an SRv6 fabric: every packet and answer on its route. */
static void srv6_transfer(struct channel *ch, uint32_t first_psn)
{
	srv6 = 1;
	transfer(ch, first_psn);
	srv6 = 0;
	assert_true(seen.data > 0);
	assert_true(seen.srh > 0);
	assert_true(seen.acks > 0);
}

static void srv6_clean(void **state)
{
	struct channel ch = { 0 };

	(void)state;
	srv6_transfer(&ch, 1000);
	assert_int_equal(seen.data, last_pumped);
}

static void srv6_lossy_reordering(void **state)
{
	struct channel ch = {
		.drop_every = 29, .reorder = 5, .dup = 1, .drop_acks_every = 3
	};

	(void)state;
	srv6_transfer(&ch, 77);
}

/*
 * The last hop decapsulates: the receiver gets plain IPv6 and still
 * answers on its SRv6 route (an SRv6 QP's answers always do).
 */
static void srv6_decapsulated(void **state)
{
	struct channel ch = { .decap = 1 };

	(void)state;
	ack_every = 1; /* every packet answered, each on its route */
	srv6_transfer(&ch, 300);
	ack_every = MRC_ACK_EVERY_DEFAULT;
	assert_int_equal(seen.acks, last_pumped);
}

/* CE on the outer header reaches the receiver (RFC 6040) and its ACKs. */
static void srv6_ce(void **state)
{
	struct channel ch = { .ce = 1 };
	uint64_t ce = percpu(rcv.rx->maps.mrc_rx_stats, MRC_RX_ECN_CE);

	(void)state;
	srv6_transfer(&ch, 5);
	assert_int_equal(percpu(rcv.rx->maps.mrc_rx_stats, MRC_RX_ECN_CE) - ce,
			 seen.data);
}

/*
 * Hostile SRv6 at a host: each variant of a real data packet is dropped
 * and counted by its reason, nothing placed; a tunnel to a block that is
 * none of our routes' is not ours (the kernel's).
 */
static void srv6_hostile(void **state)
{
	static struct frame f[8], bad, out;
	int txp = bpf_program__fd(tx->progs.mrc_xdp_tx);
	int rx_r = bpf_program__fd(rcv.rx->progs.mrc_xdp_rx);
	struct drop_case {
		const char *what;
		int frame; /* 0: EV 0, no SRH; 6: EV 6, with SRH */
		int reason; /* MRC_DROP_*, or -1: XDP_PASS */
	} cases[] = {
		{ "uSIDs left in the container", 0, MRC_DROP_SRV6_NOT_END },
		{ "SRH segments left 1", 6, MRC_DROP_SRV6_SEGMENTS_LEFT },
		{ "SRH cut short", 6, MRC_DROP_SRV6_MALFORMED },
		{ "SRH listing more than it holds", 6,
		  MRC_DROP_SRV6_MALFORMED },
		{ "inner header not IPv6", 6, MRC_DROP_SRV6_MALFORMED },
		{ "another block", 0, -1 },
		{ "no route back", 0, MRC_DROP_SRV6_NO_ROUTE },
	};
	uint32_t k, n;

	(void)state;
	srv6 = 1;
	ack_every = 1; /* each packet answered: "no route back" is the ACK's */
	assert_int_equal(reset(1), 0);
	srv6 = 0;
	ack_every = MRC_ACK_EVERY_DEFAULT;
	post(1, 0, 0, 7 * MTU, 0);
	for (n = 0; n < 7; n++) {
		struct frame empty = { .len = FRAME_MAX + 1 };

		assert_int_equal(run(txp, &empty, &f[n]), XDP_REDIRECT);
	}
	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const struct drop_case *c = &cases[k];
		uint8_t *o = bad.b + 14;
		uint64_t before = c->reason < 0 ? 0 :
						  percpu(rcv.rx->maps.mrc_drop,
							 (uint32_t)c->reason);
		int v;

		bad = f[c->frame];
		srv6_hop(&bad, 0, 0, 0); /* as the last leaf delivers it */
		switch (k) {
		case 0:
			o[24 + 6] = 0x01; /* 0102 still to go */
			break;
		case 1:
			o[40 + 3] = 1;
			break;
		case 2:
			bad.len = 14 + 40 + 20;
			break;
		case 3:
			o[40 + 4] = 5;
			break;
		case 4:
			o[40] = 17;
			break;
		case 5:
			o[24] = 0xfc;
			break;
		case 6:
			assert_int_equal(set_routes(0), 0);
			break;
		}
		v = run(rx_r, &bad, &out);
		if (c->reason < 0) {
			if (v != XDP_PASS)
				fail_msg("%s: verdict %d, want XDP_PASS",
					 c->what, v);
			continue;
		}
		if (v != XDP_DROP)
			fail_msg("%s: verdict %d, want XDP_DROP", c->what, v);
		if (percpu(rcv.rx->maps.mrc_drop, (uint32_t)c->reason) !=
		    before + 1)
			fail_msg("%s: not counted as reason %d", c->what,
				 c->reason);
	}
	assert_int_equal(rcv.ncqe, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(clean_channel),
		cmocka_unit_test(every_packet_acked),
		cmocka_unit_test(coalesced_ack_lost),
		cmocka_unit_test(psn_wrap),
		cmocka_unit_test(lossy_channel),
		cmocka_unit_test(duplicating_channel),
		cmocka_unit_test(reordering_channel),
		cmocka_unit_test(lossy_reordering_ack_losing),
		cmocka_unit_test(peer_gone),
		cmocka_unit_test(remote_access_error),
		cmocka_unit_test(wimm_limit),
		cmocka_unit_test(list_serves_qps_in_turn),
		cmocka_unit_test(cwnd_gates_new_data),
		cmocka_unit_test(ack_clocks_next_packet),
		cmocka_unit_test(clocked_only_without_mrcd),
		cmocka_unit_test(ack_clocked_channels),
		cmocka_unit_test(stamp_ahead_is_no_timeout),
		cmocka_unit_test(trim_nack_resent_from_its_frame),
		cmocka_unit_test(trimming_channel),
		cmocka_unit_test(ce_marks_decrease),
		cmocka_unit_test(service_time_taken_out),
		cmocka_unit_test(cc_delay_counted),
		cmocka_unit_test(no_mrcd_any_qp_clocked),
		cmocka_unit_test(no_mrcd_full_window_probes_una),
		cmocka_unit_test(watch_marks_pump_and_queues),
		cmocka_unit_test(pump_watch_real_deaths),
		cmocka_unit_test(srv6_clean),
		cmocka_unit_test(srv6_lossy_reordering),
		cmocka_unit_test(srv6_decapsulated),
		cmocka_unit_test(srv6_ce),
		cmocka_unit_test(srv6_hostile),
	};

	if (geteuid() != 0) {
		printf("SKIP: test_loopback needs root (BPF)\n");
		return 77;
	}
	if (setup()) {
		fprintf(stderr, "setup: %s\n", strerror(errno));
		return 1;
	}
	return cmocka_run_group_tests_name("protocol loopback", tests, NULL,
					   NULL);
}
