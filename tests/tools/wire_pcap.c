// SPDX-License-Identifier: GPL-2.0
/*
 * wire_pcap DIR: packets of every kind, made by the real BPF programs
 * through BPF_PROG_TEST_RUN, written as DIR/good.pcap for the dissector
 * test (tests/system/003-dissector.sh), and garbled copies of them as
 * DIR/bad.pcap; beside each, what tshark must decode (wire_expect.h).
 *
 *   sender: mrc_xdp_tx --data--> receiver: mrc_xdp_rx --ACK/NACK--> sender
 *   prober (a frame built as mrcd builds it) --probe--> receiver --answer
 *
 * Data: a 3-packet WRITE (first, middle, last), a WRITE_IMM of one packet
 * and of three, a zero-length WRITE_IMM, one CE-marked packet, one lost
 * and then retransmitted (so ACKs carry SACK bits and a RETX goes out);
 * a NACK of each reason, TRIMMED by cutting a packet as a switch does;
 * over IPv6 a WRITE_IMM, a QP's probe and a device probe, and answers.
 * Needs root (BPF). Exit 0 when both captures are written.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "pkt.h"
#include "mrc/abi.h"
#include "mrc/wire.h"
#include "mrc_xdp_rx.skel.h"
#include "mrc_xdp_tx.skel.h"
#include "tx_call.h"
#include "wire_expect.h"

#define S_QPN 5
#define R_QPN 77
#define MR_IDX 3
#define S_LKEY ((0x5151u << MRC_RKEY_INDEX_BITS) | MR_IDX)
#define R_RKEY ((0x7777u << MRC_RKEY_INDEX_BITS) | MR_IDX)
#define R_VA 0x7f0000000000ull
#define MTU 1024
#define NEV 4
#define FIRST_PSN 1000
#define FRAME_MAX 1600

struct frame {
	uint8_t b[FRAME_MAX + 200];
	uint32_t len;
};

static struct mrc_xdp_rx *s_rx, *r_rx; /* sender's (ACKs), receiver's */
static struct mrc_xdp_tx *tx;
static struct mrc_sq *sq;
static struct capture good, bad;
static struct frame last_ack; /* the receiver's last answer */

#define CHECK(cond)                                                         \
	do {                                                                \
		if (!(cond)) {                                              \
			fprintf(stderr, "wire_pcap: %s:%d: %s\n", __FILE__, \
				__LINE__, #cond);                           \
			exit(1);                                            \
		}                                                           \
	} while (0)

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int fd_of(struct bpf_map *m)
{
	return bpf_map__fd(m);
}

static void add_inner(struct bpf_map *outer, uint32_t key, int fd)
{
	CHECK(fd >= 0 && !bpf_map_update_elem(fd_of(outer), &key, &fd, 0));
	close(fd);
}

/* A one-chunk region for rx's MR index MR_IDX, its CQ; the region mapped. */
static uint8_t *region(struct mrc_xdp_rx *rx, uint32_t rkey)
{
	LIBBPF_OPTS(bpf_map_create_opts, mm,
		    .map_flags = BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	struct mrc_mr_info mr = { .rkey = rkey,
				  .pd = 1,
				  .va = R_VA,
				  .len = MRC_MR_CHUNK,
				  .access = 2 };
	uint32_t idx = MR_IDX;
	uint8_t *mem;
	int fd;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "mrc_mr", 4, MRC_MR_ELEM, 1,
			    &mm);
	CHECK(fd >= 0);
	mem = mmap(NULL, MRC_MR_ELEM, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   0);
	CHECK(mem != MAP_FAILED);
	add_inner(rx->maps.mrc_mr, idx, fd);
	add_inner(rx->maps.mrc_cq, 0,
		  bpf_map_create(BPF_MAP_TYPE_RINGBUF, "mrc_cq", 0, 0, 1 << 16,
				 NULL));
	CHECK(!bpf_map_update_elem(fd_of(rx->maps.mrc_mr_info), &idx, &mr, 0));
	return mem;
}

static void set_qp_rx(struct mrc_xdp_rx *rx, uint32_t qpn, uint32_t peer,
		      uint32_t state, uint32_t cum)
{
	struct mrc_qp_rx q;

	memset(&q, 0, sizeof(q));
	q.state = state;
	q.peer_qpn = peer;
	q.pd = 1;
	q.window = MRC_RX_WINDOW_MAX;
	q.cum_psn = q.cqe_psn = cum;
	CHECK(!bpf_map_update_elem(fd_of(rx->maps.mrc_qp), &qpn, &q, 0));
}

/* The sender's ports, QP and send queue; the transmit program on its maps. */
static void setup_sender(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, mm, .map_flags = BPF_F_MMAPABLE);
	static struct mrc_qp_tx qt;
	struct bpf_map *m, *same;
	uint32_t i, qpn = S_QPN;
	uint8_t *mem;
	int fd;

	mem = region(s_rx, S_LKEY);
	for (i = 0; i < MRC_MR_CHUNK; i++)
		mem[i] = (uint8_t)(i * 131 + 7);
	tx = mrc_xdp_tx__open();
	CHECK(tx);
	bpf_object__for_each_map(m, tx->obj)
	{
		if (strchr(bpf_map__name(m), '.'))
			continue; /* .bss, .rodata: the program's own */
		same = bpf_object__find_map_by_name(s_rx->obj,
						    bpf_map__name(m));
		CHECK(same && !bpf_map__reuse_fd(m, bpf_map__fd(same)));
	}
	CHECK(!mrc_xdp_tx__load(tx));
	tx_call_set(tx->bss->tx_call, tx->bss->tx_list, S_QPN, 0);
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "mrc_sq", 4,
			    sizeof(struct mrc_sq), 1, &mm);
	CHECK(fd >= 0);
	sq = mmap(NULL, sizeof(*sq), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	CHECK(sq != MAP_FAILED);
	add_inner(s_rx->maps.mrc_sq, qpn, fd);
	for (i = 0; i < NEV; i++) {
		struct mrc_port port = {
			.ifindex = 1,
			.smac = { 2, 0, 0, 0, 1, (uint8_t)i },
			.dmac = { 2, 0, 0, 0, 2, (uint8_t)i },
			.saddr = { 198, 18, (uint8_t)(16 * i + 1), 2 },
		};
		/* lo, with no egress program */
		struct bpf_devmap_val lo = { .ifindex = 1 };

		CHECK(!bpf_map_update_elem(fd_of(s_rx->maps.mrc_port), &i,
					   &port, 0));
		CHECK(!bpf_map_update_elem(fd_of(s_rx->maps.mrc_tx_port), &i,
					   &lo, 0));
	}
	memset(&qt, 0, sizeof(qt));
	qt.state = MRC_QPS_RTS;
	qt.peer_qpn = R_QPN;
	qt.window = MRC_RX_WINDOW_MAX;
	qt.mtu = MTU;
	qt.nev = NEV;
	qt.timeout_ns = 1000000000ull;
	qt.reorder_ns = MRC_REORDER_NS_DEFAULT;
	qt.retry_linear = 3;
	qt.retry_exp = 4;
	qt.echo_key = 0x5eed1234;
	for (i = 0; i < NEV; i++) {
		qt.ev[i] = (uint16_t)(49152 + 17 * i);
		qt.ev_port[i] = (uint8_t)i;
		evm_set(&qt.port_evs[i], i);
		qt.peer_addr[i][0] = 198;
		qt.peer_addr[i][1] = 18;
		qt.peer_addr[i][2] = (uint8_t)(16 * i + 2);
		qt.peer_addr[i][3] = 2;
	}
	qt.next_psn = qt.una_psn = FIRST_PSN;
	CHECK(!bpf_map_update_elem(fd_of(s_rx->maps.mrc_qp_tx), &qpn, &qt, 0));
	set_qp_rx(s_rx, S_QPN, R_QPN, MRC_QPS_RTS, 0);
}

static int run(int prog, const struct frame *in, struct frame *out)
{
	struct xdp_md ctx = { .data_end = in->len, .ingress_ifindex = 1 };

	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in->b,
		    .data_size_in = in->len, .data_out = out->b,
		    .data_size_out = sizeof(out->b), .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx));
	CHECK(!bpf_prog_test_run_opts(prog, &o));
	out->len = o.data_size_out;
	return (int)o.retval;
}

static void post(uint64_t wr_id, uint64_t off, uint32_t len, int imm)
{
	struct mrc_wqe *w = &sq->wqe[sq->tail % MRC_SQ_DEPTH];

	w->wr_id = wr_id;
	w->laddr = off;
	w->raddr = R_VA + off;
	w->lkey = S_LKEY;
	w->rkey = R_RKEY;
	w->len = len;
	w->imm = htonl(0xab000000 | (uint32_t)wr_id);
	w->opcode = imm ? MRC_WR_RDMA_WRITE_WITH_IMM : MRC_WR_RDMA_WRITE;
	w->flags = MRC_SEND_SIGNALED;
	__atomic_store_n(&sq->tail, sq->tail + 1, __ATOMIC_RELEASE);
}

/* Whatever the transmit program sends now, up to max frames. */
static unsigned int burst(struct frame *out, unsigned int max)
{
	static struct frame empty;
	unsigned int n;

	empty.len = FRAME_MAX + 1;
	for (n = 0; n < max; n++) {
		int v = run(bpf_program__fd(tx->progs.mrc_xdp_tx), &empty,
			    &out[n]);

		if (v == XDP_DROP)
			break;
		CHECK(v == XDP_REDIRECT);
	}
	return n;
}

/*
 * Data frame f to the receiver; its answer (an XDP_TX frame) into the
 * capture and, when to_sender, to the sender's receive program.
 */
static void deliver(const struct frame *f, int to_sender)
{
	struct frame *a = &last_ack;

	capture_frame(&good, f->b, f->len);
	CHECK(run(bpf_program__fd(r_rx->progs.mrc_xdp_rx), f, a) == XDP_TX);
	capture_frame(&good, a->b, a->len);
	if (to_sender) {
		static struct frame scratch;

		CHECK(run(bpf_program__fd(s_rx->progs.mrc_xdp_rx), a,
			  &scratch) == XDP_DROP);
	}
}

static uint8_t *hdr(struct frame *f)
{
	return f->b + udp_payload(f->b);
}

/* A copy of f with change applied and checksums new, to the receiver. */
static void nack(const struct frame *f, void (*change)(struct frame *))
{
	struct frame c = *f;

	change(&c);
	deliver(&c, 0);
}

static void psn_far(struct frame *f)
{
	uint32_t *psn = (uint32_t *)(hdr(f) + 8);

	*psn = htonl(ntohl(*psn) + 2 * MRC_RX_WINDOW_MAX);
	frame_fix(f->b);
}

static void rkey_bad(struct frame *f)
{
	hdr(f)[12 + 8] ^= 0x40;
	frame_fix(f->b);
}

static void va_past_end(struct frame *f)
{
	uint32_t *lo = (uint32_t *)(hdr(f) + 12 + 4);

	*lo = htonl((uint32_t)(R_VA + MRC_MR_CHUNK) - 10);
	frame_fix(f->b);
}

static void payload_flip(struct frame *f)
{
	f->b[f->len - 1] ^= 0x5a; /* checksum left as it was */
}

/* A switch's trim: the headers and 16 bytes of payload kept. */
static void trim(struct frame *f)
{
	size_t keep = MRC_DATA_HDR_LEN + 16;

	if (hdr(f)[0] == MRC_OP_WRITE_ONLY_IMM)
		keep += sizeof(struct mrc_immdt);
	f->len = (uint32_t)frame_resize(f->b, keep);
}

/* The receiver's QP in INIT for one packet. */
static void qp_state(const struct frame *f)
{
	struct mrc_qp_rx q;
	uint32_t qpn = R_QPN;

	CHECK(!bpf_map_lookup_elem(fd_of(r_rx->maps.mrc_qp), &qpn, &q));
	q.state = MRC_QPS_INIT;
	CHECK(!bpf_map_update_elem(fd_of(r_rx->maps.mrc_qp), &qpn, &q, 0));
	deliver(f, 0);
	q.state = MRC_QPS_RTR;
	CHECK(!bpf_map_update_elem(fd_of(r_rx->maps.mrc_qp), &qpn, &q, 0));
}

static void mark_ce(struct frame *f)
{
	f->b[14 + 1] |= 3;
	frame_fix(f->b);
}

/* Date una's record back past its ACK timeout: the next burst resends. */
static void expire_una(void)
{
	static struct mrc_qp_tx qt;
	uint32_t qpn = S_QPN;

	CHECK(!bpf_map_lookup_elem(fd_of(s_rx->maps.mrc_qp_tx), &qpn, &qt));
	qt.rec[qt.una_psn % MRC_TX_RING].tx_ns = mono_ns() - 2 * qt.timeout_ns;
	CHECK(!bpf_map_update_elem(fd_of(s_rx->maps.mrc_qp_tx), &qpn, &qt, 0));
}

static void from_pkt(struct frame *f, const struct pkt *p)
{
	memcpy(f->b, p->data, p->len);
	f->len = (uint32_t)p->len;
}

/* A probe to the receiver's QP, as mrcd builds it (daemon/probe.c). */
static void probe(struct frame *f, int v6, uint32_t qpn, uint16_t ev,
		  uint8_t ev_idx, uint32_t seq)
{
	static struct pkt p;

	pkt_init(&p);
	pkt_eth(&p, PKT_MAC_B, PKT_MAC_A);
	if (v6)
		pkt_ipv6(&p, "fd00:1::2", "fd00:2::2", 0x02);
	else
		pkt_ipv4(&p, "198.18.1.2", "198.18.2.2", 0x02);
	pkt_udp(&p, ev, MRC_UDP_PORT);
	pkt_bth(&p, MRC_OP_PROBE, qpn, 0, 0);
	pkt_pext(&p, ev, ev_idx, seq, mono_ns(), 0);
	p.udp_csum = 1;
	pkt_finish(&p);
	from_pkt(f, &p);
}

/*
 * The sender's transmit program has no IPv6 port here: a WRITE_IMM over
 * IPv6 as it would build one, at PSN psn (the receiver's next).
 */
static void write6(struct frame *f, uint32_t psn)
{
	static struct pkt p;
	uint16_t ev = 49152 + 99;

	pkt_init(&p);
	pkt_eth(&p, PKT_MAC_B, PKT_MAC_A);
	pkt_ipv6(&p, "fd00:1::2", "fd00:2::2", 0x02);
	pkt_udp(&p, ev, MRC_UDP_PORT);
	pkt_bth(&p, MRC_OP_WRITE_ONLY_IMM, R_QPN, psn, 0);
	pkt_reth(&p, R_VA + 32768, R_RKEY, 64);
	pkt_immdt(&p, 0x66666666);
	pkt_dext(&p, MRC_DF_LAST, ev, 5, 64, mrc_echo(0x5eed1234, psn));
	pkt_pattern(&p, 64, 6);
	p.udp_csum = 1;
	pkt_finish(&p);
	from_pkt(f, &p);
}

/*
 * mrcd's control message (CEXT) of type to qpn, as probe.c builds it: the
 * receive program passes it to the kernel stack untouched.
 */
static void ctl_msg(int v6, uint32_t qpn, uint8_t type, uint8_t flags,
		    uint32_t value)
{
	static struct frame f, out;
	static struct pkt p;
	struct mrc_cext x = {
		.version = MRC_WIRE_VERSION,
		.type = type,
		.flags = flags,
		.sqpn = htonl(77),
		.seq = htonl(0x1000 + type),
		.token = htonl(0x5eed0000u + type),
		.value = htonl(value),
	};

	pkt_init(&p);
	pkt_eth(&p, PKT_MAC_B, PKT_MAC_A);
	if (v6)
		pkt_ipv6(&p, "fd00:1::2", "fd00:2::2", 0);
	else
		pkt_ipv4(&p, "198.18.1.2", "198.18.2.2", 0);
	pkt_udp(&p, MRC_UDP_PORT, MRC_UDP_PORT);
	pkt_bth(&p, MRC_OP_CTL, qpn, 0, 0);
	pkt_bytes(&p, &x, sizeof(x));
	p.udp_csum = 1;
	pkt_finish(&p);
	from_pkt(&f, &p);
	CHECK(run(bpf_program__fd(r_rx->progs.mrc_xdp_rx), &f, &out) ==
	      XDP_PASS);
	CHECK(out.len == f.len && !memcmp(out.b, f.b, f.len));
	capture_frame(&good, f.b, f.len);
}

/* A probe to qpn and the receiver's answer into the capture. */
static void probe_answered(struct frame *pr, int v6, uint32_t qpn)
{
	static struct frame ans;

	probe(pr, v6, qpn, 49152 + 17, 1, 0xc0ffee + (uint32_t)v6);
	capture_frame(&good, pr->b, pr->len);
	CHECK(run(bpf_program__fd(r_rx->progs.mrc_xdp_rx), pr, &ans) == XDP_TX);
	CHECK(hdr(&ans)[0] == MRC_OP_PROBE_ANSWER);
	capture_frame(&good, ans.b, ans.len);
}

static void traffic(void)
{
	static struct frame d[16], resent[4], ack4, pr, pr6, w6;
	unsigned int n, i;

	post(1, 0, 2500, 0); /* PSN 1000-1002: first, middle, last */
	post(2, 8192, 100, 1); /* 1003: WRITE_IMM only */
	post(3, 16384, 2100, 1); /* 1004-1006 */
	post(4, 0, 0, 1); /* 1007: zero-length WRITE_IMM */
	n = burst(d, 16);
	CHECK(n == 8);
	/* NACKs first, while the PSNs they name are not yet received. */
	nack(&d[4], psn_far);
	nack(&d[4], rkey_bad);
	nack(&d[4], va_past_end);
	nack(&d[4], payload_flip);
	nack(&d[5], trim);
	qp_state(&d[6]);
	/* 1001 lost: later ACKs SACK past it. 1003 CE-marked. */
	for (i = 0; i < n; i++) {
		if (i == 1)
			continue;
		if (i == 3)
			mark_ce(&d[i]);
		deliver(&d[i], 1);
	}
	expire_una();
	CHECK(burst(resent, 4) == 1);
	deliver(&resent[0], 1);
	ack4 = last_ack;

	probe_answered(&pr, 0, R_QPN);
	/* IPv6: a WRITE_IMM at the receiver's next PSN, a probe. */
	write6(&w6, FIRST_PSN + n);
	deliver(&w6, 0);
	probe_answered(&pr6, 1, R_QPN);
	/* The controller's EV probe, to the device rather than a QP. */
	probe_answered(&pr6, 1, MRC_PROBE_QPN);
	/* mrcd's own messages: a hello (dynamic MPR), a port status
	 * update and their answers, passed up untouched. */
	ctl_msg(0, R_QPN, MRC_CTL_HELLO, MRC_CTLF_DYN_MPR, 128);
	ctl_msg(0, R_QPN, MRC_CTL_HELLO_ANSWER, 0, 256);
	ctl_msg(1, R_QPN, MRC_CTL_PSU, 0, 0xb);
	ctl_msg(0, R_QPN, MRC_CTL_PSU_ANSWER, 0, 0xb);

	/* bad.pcap: a WRITE, a WRITE_IMM, an ACK and a probe (IPv4), garbled. */
	garble(&bad, d[0].b, d[0].len, d[3].b, d[3].len, ack4.b, ack4.len, pr.b,
	       pr.len);
}

int main(int argc, char **argv)
{
	char path[4096];

	if (argc != 2) {
		fprintf(stderr, "usage: wire_pcap DIR\n");
		return 2;
	}
	libbpf_set_print(NULL);
	s_rx = mrc_xdp_rx__open_and_load();
	r_rx = mrc_xdp_rx__open_and_load();
	CHECK(s_rx && r_rx);
	region(r_rx, R_RKEY);
	set_qp_rx(r_rx, R_QPN, S_QPN, MRC_QPS_RTR, FIRST_PSN);
	setup_sender();
	snprintf(path, sizeof(path), "%s/good", argv[1]);
	CHECK(!capture_open(&good, path));
	snprintf(path, sizeof(path), "%s/bad", argv[1]);
	CHECK(!capture_open(&bad, path));
	traffic();
	CHECK(!capture_close(&good) && !capture_close(&bad));
	printf("wire_pcap: %u frames in good.pcap, %u in bad.pcap\n",
	       good.frames, bad.frames);
	return 0;
}
