// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzzer of the low-latency transmit path (bpf/mrc_tc_tx.bpf.c, the tc
 * program on lo that turns a doorbell into a QP's next packet), through
 * BPF_PROG_TEST_RUN, against a model written here from the program's
 * contract (docs/lowlat.md, struct mrc_doorbell in include/mrc/abi.h) and
 * docs/wire.md: which of lo's frames are doorbells, why each bad one is
 * dropped, and, for a good one, exactly which packet goes out.
 *
 * Anything local may send to 127.0.0.1:4792, so every frame on lo is
 * input. Frames come in four classes, drawn from a seeded generator:
 *   valid    a doorbell for the busy QP with its token
 *   hostile  a doorbell but for one field chosen to be wrong: magic,
 *            token (a bit off, none, another QP's), QPs that are unknown,
 *            out of range, without a token, idle, in ERR or RTR; lengths,
 *            IP and UDP lengths that lie, Ethernet padding, fragments, IP
 *            options and versions, other addresses, ports and protocols
 *   mutated  a doorbell with a few bytes changed, cut or added
 *   random   random bytes, half behind an IPv4/UDP header to the doorbell
 *            port
 * The busy QP always has WQEs posted (random lengths, some WRITE_IMM) over
 * two EVs, one per port (IPv4 and IPv6), and a narrow window.
 *
 * After every frame: the verdict; an untouched frame is byte for byte the
 * one sent; a packet sent is the QP's next PSN with the model's Ethernet,
 * IP, UDP, BTH, RETH, ImmDt and DEXT fields and payload, on one of its
 * EVs, and the peer's receive program accepts it and ACKs it. ACKs reach
 * the sender late and out of order (a late one is dropped as
 * ack_not_in_flight). After every batch: the peer's region against the
 * model's copy, every drop reason and send counter, the QP's send state
 * (next PSN, una, WQE cursors), the send and receive completions (each
 * once, in order, with the model's wr_id, immediate and length). A
 * failure prints the seed, the batch and its frames in hex.
 *
 *   fuzz_tc [-n FRAMES] [-s SEED] [-b BATCH]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <sched.h>
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
#include "mrc_tc_tx.skel.h"
#include "mrc_xdp_rx.skel.h"
#include "model.h"

/* --- the device ------------------------------------------------------------------ */

#define S_QPN 5 /* the busy QP */
#define R_QPN 77 /* its peer */
#define IDLE_QPN 6 /* RTS, token, an empty send queue of its own */
#define NOTOKEN_QPN 8 /* RTS, no token: takes no doorbells */
#define ERR_QPN 9 /* ERR, token */
#define RTR_QPN 10 /* RTR, token */
#define RESET_QPN 11 /* never set up */
#define TOKEN 0x0123456789abcdefull
#define TOKEN2 0x0fedcba987654321ull /* ERR_QPN's and RTR_QPN's */
#define MR_IDX 3
#define S_LKEY ((0x5151u << MRC_RKEY_INDEX_BITS) | MR_IDX)
#define R_RKEY ((0x7777u << MRC_RKEY_INDEX_BITS) | MR_IDX)
#define R_VA 0x7f0000000000ull
#define FIRST_PSN (MRC_BTH_PSN_MASK - 300) /* wraps early in the run */
#define MTU 1024
#define WINDOW 12
#define EV_V4 50000 /* on port 0 */
#define EV_V6 50001 /* on port 1 */
#define DB_PORT MRC_DOORBELL_PORT
#define DB_LEN 58 /* Ethernet 14, IPv4 20, UDP 8, doorbell 16 */
#define FRAME_MAX 4096
#define WQES_MAX 48 /* posted and not completed, at most */

static const uint8_t smac[2][6] = { { 2, 0, 0, 1, 0, 0 },
				    { 2, 0, 0, 1, 0, 1 } };
static const uint8_t dmac[2][6] = { { 2, 0, 0, 2, 0, 0 },
				    { 2, 0, 0, 2, 0, 1 } };
static const uint8_t saddr4[4] = { 198, 18, 0, 1 },
		     daddr4[4] = { 198, 18, 0, 2 };
static uint8_t saddr6[16], daddr6[16];

static struct mrc_tc_tx *tc;
static struct mrc_xdp_rx *srx, *rrx; /* the sender's, the peer's */
static uint8_t *smr, *rmr, *shadow; /* regions, and the model's copy of rmr */
static struct ring_buffer *scq, *rcq;
static struct mrc_sq *sq;

/* --- the model's view of the busy QP ---------------------------------------------- */

struct mwqe {
	uint64_t wr_id;
	uint32_t laddr, raddr, len;
	int imm;
};

static struct {
	struct mwqe w[MRC_SQ_DEPTH]; /* by free-running index % depth */
	uint32_t tail, head, off, done; /* posted, sending, its bytes, done */
	uint32_t next, una; /* PSNs */
	uint32_t last_psn[MRC_SQ_DEPTH]; /* of each WQE once all sent */
	uint32_t scqe_seq, rcqe_seq; /* send and receive completions */
	uint32_t imm_seen; /* WQEs looked at for receive completions */
} m;

/* ACKs from the peer, not yet delivered to the sender. */
#define ACKS_MAX 16
static struct {
	uint8_t b[256];
	uint32_t len, psn;
} acks[ACKS_MAX];
static int nacks;
static unsigned int ack_pct; /* chance per frame that one comes back */

/* Completions the rings returned. */
static struct mrc_cqe got_s[256], got_r[256];
static int ngot_s, ngot_r;

static uint64_t m_drop[MRC_DROP_MAX], m_tx[MRC_TX_MAX];

/* --- frames ------------------------------------------------------------------------ */

enum { C_VALID, C_HOSTILE, C_MUTATED, C_RANDOM, C_MAX };
static const char *const cls_name[C_MAX] = { "valid", "hostile", "mutated",
					     "random" };

struct frame {
	uint8_t b[FRAME_MAX];
	uint32_t len;
	int cls;
};

/* A doorbell as the stack puts it on lo: payload plen bytes of db. */
static void lay_doorbell(struct frame *f, uint32_t magic, uint32_t qpn,
			 uint64_t token, uint32_t plen)
{
	struct mrc_doorbell db = { .magic = htonl(magic),
				   .qpn = qpn,
				   .token = token };
	uint8_t *ip = f->b + 14, *udp = ip + 20;

	memset(f->b, 0, 42 + plen);
	f->b[12] = 0x08; /* zero MACs, as lo has */
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)(28 + plen));
	put16(ip + 4, (uint16_t)rnd());
	put16(ip + 6, 0x4000); /* DF, as the stack sets it */
	ip[8] = 64;
	ip[9] = 17;
	put32(ip + 12, chance(80) ? 0x7f000001 : 0x7f000000 | below(1 << 24));
	put32(ip + 16, 0x7f000001);
	set_ip_csum(f->b, 14);
	put16(udp, (uint16_t)(32768 + below(28000)));
	put16(udp + 2, DB_PORT);
	put16(udp + 4, (uint16_t)(8 + plen));
	memcpy(udp + 8, &db, plen < sizeof(db) ? plen : sizeof(db));
	if (plen > sizeof(db))
		memset(udp + 8 + sizeof(db), (int)below(256),
		       plen - sizeof(db));
	if (chance(50))
		set_udp_csum(f->b, 14, 0, 34, 8 + plen);
	f->len = 42 + plen;
}

static void valid(struct frame *f)
{
	lay_doorbell(f, MRC_DOORBELL_MAGIC, S_QPN, TOKEN, 16);
}

/* lo's other traffic, most of it close to a doorbell. */
static void other_traffic(struct frame *f, uint32_t kind)
{
	uint8_t *ip = f->b + 14;
	uint32_t n = 8 + below(64), i;

	valid(f);
	switch (kind) {
	case 0: /* TCP to the doorbell port */
		ip[9] = 6;
		break;
	case 1: /* UDP to another port */
		put16(ip + 22, (uint16_t)(DB_PORT + 1 + below(60000)));
		break;
	case 2: /* another local address */
		put32(ip + 16, 0x7f000002 + below(1000));
		break;
	case 3: /* IPv6 UDP to ::1, the doorbell port */
		memset(f->b, 0, 54 + 8 + n);
		f->b[12] = 0x86;
		f->b[13] = 0xdd;
		ip[0] = 0x60;
		put16(ip + 4, (uint16_t)(8 + n));
		ip[6] = 17;
		ip[7] = 64;
		ip[23] = 1;
		ip[39] = 1;
		put16(ip + 40, 40000);
		put16(ip + 42, DB_PORT);
		put16(ip + 44, (uint16_t)(8 + n));
		f->len = 54 + 8 + n;
		break;
	case 4: /* ARP */
		memset(f->b, 0xff, 6);
		f->b[12] = 0x08;
		f->b[13] = 0x06;
		for (i = 14; i < 42; i++)
			f->b[i] = (uint8_t)rnd();
		f->len = 42;
		break;
	case 5: /* VLAN-tagged */
		f->b[12] = 0x81;
		f->b[13] = 0x00;
		break;
	case 6: /* a later fragment: no UDP header in it */
		put16(ip + 6, (uint16_t)((1 + below(0x1fff)) |
					 (chance(50) ? 0x2000 : 0)));
		break;
	case 7: /* IP options: ihl 6..15 */
		ip[0] = (uint8_t)(0x40 | (6 + below(10)));
		break;
	default: /* not version 4 */
		ip[0] = (uint8_t)((below(16) << 4) | 5);
		if ((ip[0] >> 4) == 4)
			ip[0] = 0x65;
		break;
	}
}

static void hostile(struct frame *f)
{
	static const uint32_t bad_qpn[] = { RESET_QPN, MRC_MAX_QP,
					    MRC_MAX_QP + 1, 0xffffffffu,
					    MRC_MAX_QP - 1 };
	static const uint32_t quiet_qpn[] = { IDLE_QPN, ERR_QPN, RTR_QPN };
	uint8_t *ip = f->b + 14, *udp = ip + 20;
	uint32_t plen, qpn;
	uint64_t t;

	switch (below(20)) {
	case 0: /* wrong magic */
		lay_doorbell(f, MRC_DOORBELL_MAGIC ^ (1 + below(0xfffffffeu)),
			     S_QPN, TOKEN, 16);
		break;
	case 1: /* token a bit off, none, another QP's */
		t = chance(60) ? TOKEN ^ (1ull << below(64)) :
		    chance(50) ? 0 :
				 TOKEN2;
		lay_doorbell(f, MRC_DOORBELL_MAGIC, S_QPN, t, 16);
		break;
	case 2: /* no such QP, or out of range */
		lay_doorbell(f, MRC_DOORBELL_MAGIC, bad_qpn[below(5)], TOKEN,
			     16);
		break;
	case 3: /* a QP that takes no doorbells */
		lay_doorbell(f, MRC_DOORBELL_MAGIC, NOTOKEN_QPN,
			     chance(50) ? 0 : TOKEN, 16);
		break;
	case 4: /* QPs that have nothing to send, or may not send */
		qpn = quiet_qpn[below(3)];
		t = qpn == IDLE_QPN ? TOKEN : TOKEN2;
		if (chance(20))
			t ^= TOKEN ^ TOKEN2; /* each other's */
		lay_doorbell(f, MRC_DOORBELL_MAGIC, qpn, t, 16);
		break;
	case 5: /* payload not 16 bytes, lengths agreeing */
		plen = below(41);
		if (plen == 16)
			plen = 0;
		lay_doorbell(f, MRC_DOORBELL_MAGIC, S_QPN, TOKEN, plen);
		break;
	case 6: /* IP total length lies */
		valid(f);
		put16(ip + 2,
		      (uint16_t)(chance(50) ? 45 + below(2000) : below(44)));
		break;
	case 7: /* UDP length lies */
		valid(f);
		put16(udp + 4,
		      (uint16_t)(chance(50) ? below(24) : 25 + below(3000)));
		break;
	case 8: /* Ethernet padding to 60 bytes and more */
		valid(f);
		plen = 2 + below(64);
		memset(f->b + f->len, 0, plen);
		f->len += plen;
		break;
	case 9: /* a first fragment */
		valid(f);
		put16(ip + 6, 0x2000);
		break;
	case 10: /* cut short */
		valid(f);
		f->len = 14 + below(DB_LEN - 14);
		break;
	default:
		other_traffic(f, below(9));
		break;
	}
}

static void mutate(struct frame *f)
{
	uint32_t n = 1 + below(3), i, at;

	valid(f);
	for (i = 0; i < n; i++) {
		switch (below(4)) {
		case 0: /* cut */
			f->len = 14 + below(f->len - 13);
			break;
		case 1: /* add */
			at = below(24);
			for (; at && f->len < FRAME_MAX; at--)
				f->b[f->len++] = (uint8_t)rnd();
			break;
		default: /* change */
			at = below(f->len);
			f->b[at] ^= (uint8_t)(1 + below(255));
			break;
		}
	}
	if (f->len >= 34 && chance(50))
		set_ip_csum(f->b, 14);
}

static void random_frame(struct frame *f)
{
	uint8_t *ip = f->b + 14;
	uint32_t i;

	f->len = 14 + below(200);
	for (i = 0; i < f->len; i++)
		f->b[i] = (uint8_t)rnd();
	if (chance(50) && f->len >= 42) {
		f->b[12] = 0x08;
		f->b[13] = 0x00;
		ip[0] = 0x45;
		ip[6] &= 0xc0; /* not a later fragment */
		ip[7] = 0;
		ip[9] = 17;
		put32(ip + 16, 0x7f000001);
		put16(ip + 22, DB_PORT);
		if (chance(50)) {
			put16(ip + 2, (uint16_t)(f->len - 14));
			put16(ip + 24, (uint16_t)(f->len - 34));
		}
	}
}

static void make_frame(struct frame *f, int cls)
{
	f->cls = cls;
	switch (cls) {
	case C_VALID:
		valid(f);
		break;
	case C_HOSTILE:
		hostile(f);
		break;
	case C_MUTATED:
		mutate(f);
		break;
	default:
		random_frame(f);
		break;
	}
}

/* --- the model ---------------------------------------------------------------------- */

enum { V_PASS, V_DROP, V_DOORBELL };

struct verdict {
	int kind, drop; /* drop: enum mrc_drop_reason, for V_DROP */
	uint32_t qpn; /* for V_DOORBELL */
};

/*
 * lo carries all local traffic: a frame is a doorbell candidate only if it
 * is IPv4 (ethertype, version 4, no options) UDP to 127.0.0.1:4792 and
 * not a later fragment; anything else passes untouched. A candidate must
 * be exactly one doorbell (IP and UDP lengths, frame length, not a first
 * fragment), carry the magic, name a QP that exists and carry its token.
 */
static void classify(const uint8_t *f, uint32_t n, struct verdict *v)
{
	const uint8_t *ip = f + 14, *udp = ip + 20, *db = udp + 8;
	uint64_t token;
	uint32_t qpn;

	memset(v, 0, sizeof(*v));
	v->kind = V_PASS;
	if (get16(f + 12) != 0x0800 || n < 42)
		return;
	if (ip[0] != 0x45 || ip[9] != 17 || get32(ip + 16) != 0x7f000001 ||
	    (get16(ip + 6) & 0x1fff) || get16(udp + 2) != DB_PORT)
		return;
	v->kind = V_DROP;
	v->drop = MRC_DROP_DB_LENGTH;
	if ((get16(ip + 6) & 0x2000) || get16(ip + 2) != 44 ||
	    get16(udp + 4) != 24 || n != DB_LEN)
		return;
	if (get32(db) != MRC_DOORBELL_MAGIC) {
		v->drop = MRC_DROP_DB_MAGIC;
		return;
	}
	memcpy(&qpn, db + 4, 4);
	memcpy(&token, db + 8, 8);
	if (qpn != S_QPN && qpn != IDLE_QPN && qpn != NOTOKEN_QPN &&
	    qpn != ERR_QPN && qpn != RTR_QPN) {
		v->drop = MRC_DROP_DB_UNKNOWN_QP;
		return;
	}
	if (qpn == NOTOKEN_QPN ||
	    token != (qpn == S_QPN || qpn == IDLE_QPN ? TOKEN : TOKEN2)) {
		v->drop = MRC_DROP_DB_TOKEN;
		return;
	}
	v->kind = V_DOORBELL;
	v->qpn = qpn;
}

/* The packet the busy QP sends next, if any: its PSN, WQE and offset. */
struct next_pkt {
	uint32_t psn, wqe, off, len;
	int last;
};

static int model_next(struct next_pkt *p)
{
	struct mwqe *w;

	if (m.head == m.tail || psn_diff(m.next, m.una) >= WINDOW)
		return -1;
	w = &m.w[m.head % MRC_SQ_DEPTH];
	p->psn = m.next;
	p->wqe = m.head;
	p->off = m.off;
	p->len = w->len - m.off < MTU ? w->len - m.off : MTU;
	p->last = m.off + p->len >= w->len;
	return 0;
}

static void model_sent(const struct next_pkt *p)
{
	m.next = (m.next + 1) & MRC_BTH_PSN_MASK;
	m.off += p->len;
	if (p->last) {
		m.last_psn[m.head % MRC_SQ_DEPTH] = p->psn;
		m.head++;
		m.off = 0;
	}
}

/* --- the programs -------------------------------------------------------------------- */

static int on_scqe(void *ctx, void *d, size_t len)
{
	(void)ctx;
	if (len != sizeof(struct mrc_cqe) || ngot_s == 256)
		return -EINVAL;
	memcpy(&got_s[ngot_s++], d, len);
	return 0;
}

static int on_rcqe(void *ctx, void *d, size_t len)
{
	(void)ctx;
	if (len != sizeof(struct mrc_cqe) || ngot_r == 256)
		return -EINVAL;
	memcpy(&got_r[ngot_r++], d, len);
	return 0;
}

static int run_tc(const struct frame *in, struct frame *out)
{
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in->b,
		    .data_size_in = in->len, .data_out = out->b,
		    .data_size_out = sizeof(out->b), .repeat = 1);

	if (bpf_prog_test_run_opts(bpf_program__fd(tc->progs.mrc_tc_tx), &o))
		return -1000 - errno;
	out->len = o.data_size_out;
	return (int)o.retval;
}

static int run_rx(struct mrc_xdp_rx *rx, const uint8_t *in, uint32_t len,
		  uint8_t *out, uint32_t *out_len)
{
	struct xdp_md ctx = { .data_end = len, .ingress_ifindex = 1 };

	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in, .data_size_in = len,
		    .data_out = out, .data_size_out = FRAME_MAX, .ctx_in = &ctx,
		    .ctx_size_in = sizeof(ctx));
	if (bpf_prog_test_run_opts(bpf_program__fd(rx->progs.mrc_xdp_rx), &o))
		return -1000 - errno;
	*out_len = o.data_size_out;
	return (int)o.retval;
}

static uint64_t percpu_sum(struct bpf_map *mp, uint32_t key)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	uint64_t v[ncpu], s = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(mp), &key, v))
		return ~0ull;
	for (i = 0; i < ncpu; i++)
		s += v[i];
	return s;
}

static int add_inner(struct bpf_map *outer, uint32_t key, int fd)
{
	return bpf_map_update_elem(bpf_map__fd(outer), &key, &fd, BPF_ANY);
}

/* A region of one chunk, CQ 0 and the region's description on one side. */
static int setup_side(struct mrc_xdp_rx *rx, uint32_t key, uint8_t **mem,
		      struct ring_buffer **cq, ring_buffer_sample_fn fn)
{
	LIBBPF_OPTS(bpf_map_create_opts, mm,
		    .map_flags = BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	struct mrc_mr_info mr = { .rkey = key,
				  .pd = 1,
				  .va = R_VA,
				  .len = MRC_MR_CHUNK,
				  .access = 2 };
	uint32_t idx = MR_IDX;
	int mr_fd, cq_fd;

	mr_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "mrc_mr", 4, MRC_MR_ELEM, 1,
			       &mm);
	cq_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "mrc_cq", 0, 0, 1 << 20,
			       NULL);
	if (mr_fd < 0 || cq_fd < 0 || add_inner(rx->maps.mrc_mr, idx, mr_fd) ||
	    add_inner(rx->maps.mrc_cq, 0, cq_fd) ||
	    bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_mr_info), &idx, &mr,
				BPF_ANY))
		return -1;
	*mem = mmap(NULL, MRC_MR_ELEM, PROT_READ | PROT_WRITE, MAP_SHARED,
		    mr_fd, 0);
	*cq = ring_buffer__new(cq_fd, fn, NULL, NULL);
	close(mr_fd);
	close(cq_fd);
	return *mem == MAP_FAILED || !*cq ? -1 : 0;
}

/* The tc program shares every map of the sender's receive program. */
static int setup_tc(void)
{
	struct bpf_map *mp, *same;

	tc = mrc_tc_tx__open();
	if (!tc)
		return -1;
	bpf_object__for_each_map(mp, tc->obj)
	{
		if (bpf_map__is_internal(mp))
			continue;
		same = bpf_object__find_map_by_name(srx->obj,
						    bpf_map__name(mp));
		if (!same || bpf_map__reuse_fd(mp, bpf_map__fd(same)))
			return -1;
	}
	return mrc_tc_tx__load(tc);
}

static struct mrc_sq *new_sq(uint32_t qpn)
{
	LIBBPF_OPTS(bpf_map_create_opts, mm, .map_flags = BPF_F_MMAPABLE);
	struct mrc_sq *p;
	int fd;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "mrc_sq", 4,
			    sizeof(struct mrc_sq), 1, &mm);
	if (fd < 0 || add_inner(srx->maps.mrc_sq, qpn, fd))
		return NULL;
	p = mmap(NULL, sizeof(*p), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return p == MAP_FAILED ? NULL : p;
}

static int set_qp_tx(uint32_t qpn, uint32_t state, uint64_t tok)
{
	static struct mrc_qp_tx qt;
	static struct mrc_qp_rx own;

	memset(&qt, 0, sizeof(qt));
	qt.state = state;
	qt.peer_qpn = R_QPN;
	qt.window = WINDOW;
	qt.mtu = MTU;
	qt.nev = 2;
	/* No timeouts, no silence: the model has no clock. */
	qt.timeout_ns = 1ull << 50;
	qt.reorder_ns = 0xffffffffu;
	qt.retry_linear = 3;
	qt.retry_exp = 4;
	qt.db_token = tok;
	qt.ev[0] = EV_V4;
	qt.ev_port[0] = 0;
	qt.ev[1] = EV_V6;
	qt.ev_port[1] = 1;
	memcpy(qt.peer_addr[0], daddr4, 4);
	memcpy(qt.peer_addr[1], daddr6, 16);
	qt.next_psn = qt.una_psn = FIRST_PSN;
	memset(&own, 0, sizeof(own));
	own.state = state;
	own.peer_qpn = R_QPN;
	own.pd = 1;
	own.window = MRC_RX_WINDOW_MAX;
	return bpf_map_update_elem(bpf_map__fd(srx->maps.mrc_qp_tx), &qpn, &qt,
				   BPF_ANY) ||
	       bpf_map_update_elem(bpf_map__fd(srx->maps.mrc_qp), &qpn, &own,
				   BPF_ANY);
}

static int setup(void)
{
	struct mrc_port port[2] = {};
	static struct mrc_qp_rx qr;
	uint32_t p, key = R_QPN, i;

	inet_pton(AF_INET6, "fd00:3::1", saddr6);
	inet_pton(AF_INET6, "fd00:3::2", daddr6);
	for (p = 0; p < 2; p++) {
		port[p].ifindex = 1;
		port[p].v6 = (uint8_t)p;
		memcpy(port[p].smac, smac[p], 6);
		memcpy(port[p].dmac, dmac[p], 6);
	}
	memcpy(port[0].saddr, saddr4, 4);
	memcpy(port[1].saddr, saddr6, 16);
	srx = mrc_xdp_rx__open_and_load();
	rrx = mrc_xdp_rx__open_and_load();
	if (!srx || !rrx) {
		fprintf(stderr, "fuzz_tc: loading the receive program: %s\n",
			strerror(errno));
		return -1;
	}
	if (setup_side(srx, S_LKEY, &smr, &scq, on_scqe) ||
	    setup_side(rrx, R_RKEY, &rmr, &rcq, on_rcqe) || setup_tc()) {
		fprintf(stderr, "fuzz_tc: setting up the maps: %s\n",
			strerror(errno));
		return -1;
	}
	for (p = 0; p < 2; p++)
		if (bpf_map_update_elem(bpf_map__fd(srx->maps.mrc_port), &p,
					&port[p], BPF_ANY))
			return -1;
	sq = new_sq(S_QPN);
	if (!sq || !new_sq(IDLE_QPN) || !new_sq(ERR_QPN) || !new_sq(RTR_QPN) ||
	    set_qp_tx(S_QPN, MRC_QPS_RTS, TOKEN) ||
	    set_qp_tx(IDLE_QPN, MRC_QPS_RTS, TOKEN) ||
	    set_qp_tx(NOTOKEN_QPN, MRC_QPS_RTS, 0) ||
	    set_qp_tx(ERR_QPN, MRC_QPS_ERR, TOKEN2) ||
	    set_qp_tx(RTR_QPN, MRC_QPS_RTR, TOKEN2))
		return -1;
	qr.state = MRC_QPS_RTR;
	qr.peer_qpn = S_QPN;
	qr.pd = 1;
	qr.window = MRC_RX_WINDOW_MAX;
	qr.cum_psn = qr.cqe_psn = FIRST_PSN;
	if (bpf_map_update_elem(bpf_map__fd(rrx->maps.mrc_qp), &key, &qr,
				BPF_ANY))
		return -1;
	for (i = 0; i < MRC_MR_CHUNK; i++)
		smr[i] = (uint8_t)(i * 7 + (i >> 11) + 3);
	shadow = calloc(1, MRC_MR_CHUNK);
	m.next = m.una = FIRST_PSN;
	return shadow ? 0 : -1;
}

/* Keep the busy QP's send queue fed: WQEs of 0 to 3.5 MTUs. */
static void post_more(void)
{
	while (m.tail - m.done < WQES_MAX && chance(70)) {
		struct mwqe *mw = &m.w[m.tail % MRC_SQ_DEPTH];
		struct mrc_wqe *w = &sq->wqe[m.tail % MRC_SQ_DEPTH];

		mw->wr_id = 0x5100000000ull + m.tail;
		mw->len = chance(3) ? 0 : 1 + below(7 * MTU / 2);
		mw->laddr = below(MRC_MR_CHUNK - mw->len + 1);
		mw->raddr = below(MRC_MR_CHUNK - mw->len + 1);
		mw->imm = chance(30);
		memset(w, 0, sizeof(*w));
		w->wr_id = mw->wr_id;
		w->laddr = mw->laddr;
		w->raddr = R_VA + mw->raddr;
		w->lkey = S_LKEY;
		w->rkey = R_RKEY;
		w->len = mw->len;
		w->imm = htonl((uint32_t)mw->wr_id);
		w->opcode = mw->imm ? MRC_WR_RDMA_WRITE_WITH_IMM :
				      MRC_WR_RDMA_WRITE;
		w->flags = MRC_SEND_SIGNALED;
		m.tail++;
		__atomic_store_n(&sq->tail, m.tail, __ATOMIC_RELEASE);
	}
}

/* --- the run ------------------------------------------------------------------------- */

static struct {
	uint64_t frames[C_MAX], passed[C_MAX], dropped[C_MAX], sent[C_MAX];
	uint64_t idle[C_MAX], refused[C_MAX], by_drop[MRC_DROP_MAX];
	uint64_t acks, stale_acks, scqes, rcqes, bytes, violations;
} st;

static uint64_t seed;
static long batch_no;

static void hex(FILE *o, const uint8_t *b, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		fprintf(o, "%02x", b[i]);
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
	hex(stderr, f->b, f->len);
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

/*
 * The packet out must be the model's next one: every header field the
 * sender sets and the payload from the local region. Returns NULL or
 * what differs.
 */
static const char *check_packet(const struct frame *o, const struct next_pkt *p)
{
	const struct mwqe *w = &m.w[p->wqe % MRC_SQ_DEPTH];
	const uint8_t *u, *bth, *reth, *dext;
	uint32_t l4, hdr, ev, v6;

	if (o->len < 14)
		return "Ethernet header";
	v6 = get16(o->b + 12) == 0x86dd;
	if (!v6 && get16(o->b + 12) != 0x0800)
		return "ethertype";
	if (memcmp(o->b, dmac[v6], 6) || memcmp(o->b + 6, smac[v6], 6))
		return "MAC addresses";
	ev = v6 ? EV_V6 : EV_V4;
	hdr = 12 + 16 + (w->imm ? 4 : 0) + 16;
	l4 = v6 ? 54 : 34;
	if (o->len != l4 + 8 + hdr + p->len)
		return "length";
	if (v6) {
		if (o->b[14] >> 4 != 6 || o->b[20] != 17 ||
		    memcmp(o->b + 22, saddr6, 16) ||
		    memcmp(o->b + 38, daddr6, 16) ||
		    get16(o->b + 18) != 8 + hdr + p->len)
			return "IPv6 header";
	} else {
		if (o->b[14] != 0x45 || o->b[23] != 17 ||
		    memcmp(o->b + 26, saddr4, 4) ||
		    memcmp(o->b + 30, daddr4, 4) ||
		    get16(o->b + 16) != 20 + 8 + hdr + p->len ||
		    fold(sum16(o->b + 14, 20, 0)) != 0xffff)
			return "IPv4 header";
	}
	u = o->b + l4;
	if (get16(u) != ev || get16(u + 2) != 4791 ||
	    get16(u + 4) != 8 + hdr + p->len)
		return "UDP header";
	if (udp_sum(o->b, 14, (int)v6, l4, 8 + hdr + p->len) != 0xffff)
		return "UDP checksum";
	bth = u + 8;
	if (bth[0] != (w->imm ? MRC_OP_WRITE_ONLY_IMM : MRC_OP_WRITE_ONLY) ||
	    (get32(bth + 4) & 0xffffff) != R_QPN ||
	    (get32(bth + 8) & 0xffffff) != p->psn)
		return "BTH (opcode, QP or PSN)";
	reth = bth + 12;
	if (get32(reth) != (uint32_t)((R_VA + w->raddr + p->off) >> 32) ||
	    get32(reth + 4) != (uint32_t)(R_VA + w->raddr + p->off) ||
	    get32(reth + 8) != R_RKEY || get32(reth + 12) != p->len)
		return "RETH";
	if (w->imm && get32(reth + 16) != (uint32_t)w->wr_id)
		return "ImmDt";
	dext = reth + 16 + (w->imm ? 4 : 0);
	if (dext[0] != 1 || (dext[1] & 0x01) != p->last ||
	    get16(dext + 2) != ev || get32(dext + 8) != w->len)
		return "DEXT (version, LAST, EV or message length)";
	if (memcmp(dext + 16, smr + w->laddr + p->off, p->len))
		return "payload";
	return NULL;
}

/* The peer takes the packet in; its ACK waits to reach the sender. */
static void to_peer(const struct frame *f, const struct frame *o,
		    const struct next_pkt *p)
{
	const struct mwqe *w = &m.w[p->wqe % MRC_SQ_DEPTH];
	static uint8_t ack[FRAME_MAX];
	uint32_t len;
	int rc;

	memcpy(shadow + w->raddr + p->off, smr + w->laddr + p->off, p->len);
	rc = run_rx(rrx, o->b, o->len, ack, &len);
	if (rc != XDP_TX || len > sizeof(acks[0].b) || nacks == ACKS_MAX) {
		violation(f, "the peer did not answer the packet with an ACK");
		return;
	}
	memcpy(acks[nacks].b, ack, len);
	acks[nacks].len = len;
	acks[nacks].psn = p->psn;
	nacks++;
}

/* Completions of the WQEs whose every PSN is below una, in order. */
static void expect_completions(const struct frame *f)
{
	char why[200];
	int i = 0;

	ngot_s = 0;
	ring_buffer__consume(scq);
	while (m.done != m.head &&
	       psn_diff(m.una, m.last_psn[m.done % MRC_SQ_DEPTH]) > 0) {
		const struct mwqe *w = &m.w[m.done % MRC_SQ_DEPTH];
		const struct mrc_cqe *c = &got_s[i];

		if (i >= ngot_s) {
			snprintf(
				why, sizeof(why),
				"WQE %u (wr_id %#llx) delivered, not completed",
				m.done, (unsigned long long)w->wr_id);
			violation(f, why);
			return;
		}
		if (c->wr_id != w->wr_id || c->qpn != S_QPN ||
		    c->seq != m.scqe_seq || c->status != MRC_WC_SUCCESS ||
		    c->opcode != MRC_WC_RDMA_WRITE) {
			snprintf(
				why, sizeof(why),
				"send completion wr_id %#llx seq %u status %u, the model's %#llx seq %u",
				(unsigned long long)c->wr_id, c->seq, c->status,
				(unsigned long long)w->wr_id, m.scqe_seq);
			violation(f, why);
		}
		m.scqe_seq++;
		m.done++;
		m_tx[MRC_TX_COMPLETIONS]++;
		i++;
		st.scqes++;
	}
	if (i != ngot_s) {
		snprintf(why, sizeof(why), "%d send completions, the model %d",
			 ngot_s, i);
		violation(f, why);
	}
}

/* Deliver waiting ACK k to the sender. */
static void deliver_ack(const struct frame *f, int k)
{
	static uint8_t res[FRAME_MAX];
	uint32_t len, psn = acks[k].psn;
	int rc, stale = psn_diff(psn, m.una) < 0;
	char why[160];

	rc = run_rx(srx, acks[k].b, acks[k].len, res, &len);
	acks[k] = acks[--nacks];
	if (rc != XDP_DROP) {
		snprintf(why, sizeof(why), "the sender's verdict on an ACK: %d",
			 rc);
		violation(f, why);
	}
	st.acks++;
	m_tx[MRC_TX_ACKS]++;
	if (stale) {
		/* Older than una: a later ACK covered it already. */
		m_drop[MRC_DROP_ACK_STALE]++;
		st.stale_acks++;
		return;
	}
	m.una = (psn + 1) & MRC_BTH_PSN_MASK;
	expect_completions(f);
}

/* Receive completions at the peer: one per WRITE_IMM, in order. */
static void check_rcqes(const struct frame *f)
{
	char why[200];
	int i;

	ngot_r = 0;
	ring_buffer__consume(rcq);
	for (i = 0; i < ngot_r; i++) {
		const struct mrc_cqe *c = &got_r[i];
		const struct mwqe *w = NULL;

		while (m.imm_seen != m.head) {
			w = &m.w[m.imm_seen++ % MRC_SQ_DEPTH];
			if (w->imm)
				break;
			w = NULL;
		}
		if (!w || c->opcode != MRC_WC_RECV_RDMA_WITH_IMM ||
		    ntohl(c->imm) != (uint32_t)w->wr_id ||
		    c->byte_len != w->len || c->qpn != R_QPN ||
		    c->seq != m.rcqe_seq) {
			snprintf(
				why, sizeof(why),
				"receive completion imm %#x len %u seq %u: not the model's next",
				ntohl(c->imm), c->byte_len, c->seq);
			violation(f, why);
		}
		m.rcqe_seq++;
		st.rcqes++;
	}
}

static int ip_cut_short(const struct frame *f)
{
	uint16_t type = get16(f->b + 12);

	return (type == 0x0800 && f->len < 34) ||
	       (type == 0x86dd && f->len < 54);
}

static void one(struct frame *in)
{
	static struct frame out;
	struct next_pkt p = {};
	struct verdict v;
	const char *bad;
	char why[200];
	int rc, want;

	post_more();
	classify(in->b, in->len, &v);
	want = v.kind == V_PASS ? TC_ACT_OK : TC_ACT_SHOT;
	if (ip_cut_short(in))
		v.kind = V_PASS; /* refused below */
	if (v.kind == V_DROP)
		m_drop[v.drop]++;
	if (v.kind == V_DOORBELL) {
		if (v.qpn == S_QPN && !model_next(&p))
			want = TC_ACT_REDIRECT;
		else
			m_tx[MRC_TX_IDLE]++;
	}
	st.by_drop[v.kind == V_DROP ? v.drop : 0]++;
	rc = run_tc(in, &out);
	st.frames[in->cls]++;
	/*
	 * test_run refuses an IP frame shorter than its fixed header; lo
	 * never carries one.
	 */
	if (rc == -1000 - EINVAL && ip_cut_short(in)) {
		st.refused[in->cls]++;
		return;
	}
	if (rc != want) {
		snprintf(why, sizeof(why),
			 "verdict %d, the model says %d (drop %s)", rc, want,
			 v.kind == V_DROP ? drop_name[v.drop] : "none");
		violation(in, why);
		return;
	}
	if (rc == TC_ACT_OK) {
		st.passed[in->cls]++;
		if (out.len != in->len || memcmp(out.b, in->b, in->len))
			violation(in,
				  "a frame that is no doorbell was changed");
	} else if (rc == TC_ACT_SHOT) {
		if (v.kind == V_DROP)
			st.dropped[in->cls]++;
		else
			st.idle[in->cls]++;
	} else {
		st.sent[in->cls]++;
		bad = check_packet(&out, &p);
		if (bad) {
			snprintf(why, sizeof(why),
				 "PSN %u (WQE %u at %u, %u bytes): %s differs",
				 p.psn, p.wqe, p.off, p.len, bad);
			violation(in, why);
			fprintf(stderr, "  sent (its first 128 bytes): ");
			hex(stderr, out.b, out.len < 128 ? out.len : 128);
		}
		m_tx[MRC_TX_PACKETS]++;
		m_tx[MRC_TX_BYTES] += p.len;
		st.bytes += p.len;
		model_sent(&p);
		to_peer(in, &out, &p);
	}
	/* ACKs come back late and in any order. */
	while (nacks && (nacks == ACKS_MAX || chance(ack_pct)))
		deliver_ack(in, (int)below((uint32_t)nacks));
	check_rcqes(in);
}

/* After a batch: region, counters, send state, against the model. */
static void check_batch(struct frame *batch, int nb)
{
	static struct mrc_qp_tx qt;
	uint32_t key = S_QPN, i;
	char why[240];
	int bad = 0, k;

	while (nacks)
		deliver_ack(&batch[0], (int)below((uint32_t)nacks));
	check_rcqes(&batch[0]);
	if (memcmp(rmr, shadow, MRC_MR_CHUNK)) {
		violation(&batch[0],
			  "the peer's region differs from the model's");
		bad = 1;
	}
	for (i = 1; i < MRC_DROP_MAX; i++) {
		uint64_t got = percpu_sum(srx->maps.mrc_drop, i);
		uint64_t peer = percpu_sum(rrx->maps.mrc_drop, i);

		if (got != m_drop[i] || peer) {
			snprintf(
				why, sizeof(why),
				"drop %s counted %llu (the peer %llu), the model %llu",
				drop_name[i], (unsigned long long)got,
				(unsigned long long)peer,
				(unsigned long long)m_drop[i]);
			violation(&batch[0], why);
			m_drop[i] = got;
			bad = 1;
		}
	}
	for (i = 0; i < MRC_TX_MAX; i++) {
		uint64_t got = percpu_sum(srx->maps.mrc_tx_stats, i);

		if (got != m_tx[i]) {
			snprintf(why, sizeof(why),
				 "send counter %s is %llu, the model's %llu",
				 tx_name[i], (unsigned long long)got,
				 (unsigned long long)m_tx[i]);
			violation(&batch[0], why);
			m_tx[i] = got;
			bad = 1;
		}
	}
	if (bpf_map_lookup_elem(bpf_map__fd(srx->maps.mrc_qp_tx), &key, &qt) ||
	    qt.state != MRC_QPS_RTS || qt.next_psn != m.next ||
	    qt.una_psn != m.una || qt.sq_head != m.head || qt.sq_off != m.off ||
	    qt.sq_done != m.done || qt.retx_head != qt.retx_tail) {
		snprintf(
			why, sizeof(why),
			"QP %u: state %u next %u una %u head %u off %u done %u; the model: next %u una %u head %u off %u done %u",
			(unsigned int)S_QPN, qt.state, qt.next_psn, qt.una_psn,
			qt.sq_head, qt.sq_off, qt.sq_done, m.next, m.una,
			m.head, m.off, m.done);
		violation(&batch[0], why);
		bad = 1;
	}
	if (bad && st.violations <= 10) {
		fprintf(stderr, "  the batch's %d frames:\n", nb);
		for (k = 0; k < nb; k++) {
			fprintf(stderr, "  %s ", cls_name[batch[k].cls]);
			hex(stderr, batch[k].b, batch[k].len);
		}
	}
}

static void report(double secs, double cpu)
{
	uint64_t total = 0;
	int c, d;

	for (c = 0; c < C_MAX; c++)
		total += st.frames[c];
	printf("fuzz_tc: %llu frames in %.1f s (%.0f frames/s, %.1f s CPU), seed %llu\n",
	       (unsigned long long)total, secs, (double)total / secs, cpu,
	       (unsigned long long)seed);
	for (c = 0; c < C_MAX; c++)
		printf("  %-8s %10llu: passed %llu, dropped %llu, idle %llu, sent %llu, refused by test_run %llu\n",
		       cls_name[c], (unsigned long long)st.frames[c],
		       (unsigned long long)st.passed[c],
		       (unsigned long long)st.dropped[c],
		       (unsigned long long)st.idle[c],
		       (unsigned long long)st.sent[c],
		       (unsigned long long)st.refused[c]);
	printf("  payload sent %llu bytes; ACKs %llu (%llu late); completions: send %llu, receive %llu\n  drops by reason:",
	       (unsigned long long)st.bytes, (unsigned long long)st.acks,
	       (unsigned long long)st.stale_acks, (unsigned long long)st.scqes,
	       (unsigned long long)st.rcqes);
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
				"usage: fuzz_tc [-n FRAMES] [-s SEED] [-b BATCH]\n");
			return 2;
		}
	}
	if (frames < 1 || nb < 1 || nb > 4096) {
		fprintf(stderr, "fuzz_tc: -n must be >= 1, -b 1..4096\n");
		return 2;
	}
	if (geteuid() != 0) {
		printf("SKIP: fuzz_tc needs root (BPF)\n");
		return 77;
	}
	rng_state = seed * 0x9e3779b97f4a7c15ull | 1;
	pin_to_this_cpu();
	if (setup())
		return 1;
	t0 = now_s();
	while (done < frames) {
		int n = frames - done < nb ? (int)(frames - done) : nb;

		/* Some batches with ACKs slow enough to fill the window. */
		ack_pct = 3 + below(60);

		for (k = 0; k < n; k++) {
			unsigned int r = below(100);
			int cls = r < 40 ? C_VALID :
				  r < 70 ? C_HOSTILE :
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
