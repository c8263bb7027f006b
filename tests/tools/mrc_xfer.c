// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_xfer: a transfer over the real data path between two hosts of the
 * testbed, for the integration tests, until libmrc and mrcd carry it. Each
 * side runs the soft device in-process (daemon/dev.c) on its ports.
 *
 *   mrc_xfer server --info DIR --port IF=MAC... [--v6] [--region BYTES]
 *   mrc_xfer client --info DIR --port IF=MAC... --anchor IF [--v6]
 *                   [--region BYTES] [--total BYTES] [--max BYTES]
 *                   [--seed N] [--mtu BYTES] [--timeout-us N] [--retries N]
 *                   [--size BYTES] [--imm-every N]
 *
 * MAC is the next hop's on that port. The two exchange QP number, rkey,
 * region address and port addresses through files in DIR (both run on one
 * machine, in different namespaces). The client writes --total bytes in
 * WRITEs of 1 byte to --max bytes at random offsets of the server's region
 * (every fourth with immediate), then a WRITE_IMM with immediate
 * 0xffffffff, and lists what it wrote in DIR/extents. The server waits
 * for that immediate and checks every byte of its region: the source
 * pattern where a write landed, zero elsewhere. Both print one JSON line.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dev.h"
#include "dev_lowlat.h"
#include "log.h"
#include "mrc/drop.h"
#include "mrc_xdp_rx.skel.h"

#define QPN 7
#define MR_IDX 1
#define CQ_IDX 0
#define DONE_IMM 0xffffffffu

struct opts {
	int server, v6, nports;
	const char *info, *anchor;
	char ifname[MRC_MAX_PORTS][16];
	uint8_t mac[MRC_MAX_PORTS][6];
	uint64_t region, total, max;
	unsigned int seed, mtu, timeout_us, retries, seconds;
	uint64_t size; /* fixed write size; 0: log-uniform 1..max */
	unsigned int imm_every; /* every n-th write carries an immediate */
};

/* What one side tells the other. */
struct info {
	uint32_t qpn, rkey;
	uint64_t va;
	uint8_t addr[MRC_MAX_PORTS][16];
};

static uint8_t pattern(uint64_t off)
{
	return (uint8_t)(off * 131 + (off >> 12));
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int die(const char *what)
{
	fprintf(stderr, "mrc_xfer: %s\n", what);
	return 1;
}

static int write_info(const char *dir, const char *name, const struct info *in)
{
	char path[512], tmp[520];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f || fwrite(in, sizeof(*in), 1, f) != 1 || fclose(f))
		return -1;
	return rename(tmp, path); /* appears whole */
}

static int read_info(const char *dir, const char *name, struct info *in,
		     double timeout_s)
{
	char path[512];
	double t0 = now_s();
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	while (!(f = fopen(path, "r"))) {
		if (now_s() - t0 > timeout_s)
			return -1;
		usleep(10000);
	}
	if (fread(in, sizeof(*in), 1, f) != 1) {
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

static int parse_port(struct opts *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	unsigned int b[6], i;

	if (!eq || eq == arg || eq - arg >= 16 || o->nports == MRC_MAX_PORTS ||
	    sscanf(eq + 1, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5]) != 6) {
		fprintf(stderr, "mrc_xfer: --port %s: want IFNAME=MAC\n", arg);
		return -1;
	}
	memcpy(o->ifname[o->nports], arg, eq - arg);
	for (i = 0; i < 6; i++)
		o->mac[o->nports][i] = b[i];
	o->nports++;
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "info", 1, 0, 'i' },	  { "port", 1, 0, 'p' },
		{ "anchor", 1, 0, 'a' },  { "v6", 0, 0, '6' },
		{ "region", 1, 0, 'r' },  { "total", 1, 0, 't' },
		{ "max", 1, 0, 'm' },	  { "seed", 1, 0, 's' },
		{ "mtu", 1, 0, 'u' },	  { "timeout-us", 1, 0, 'T' },
		{ "retries", 1, 0, 'R' }, { "seconds", 1, 0, 'S' },
		{ "size", 1, 0, 'z' },	  { "imm-every", 1, 0, 'e' },
		{ 0, 0, 0, 0 },
	};
	char *end;
	int c;

	o->region = 64ull << 20;
	o->total = 64ull << 20;
	o->max = 8ull << 20;
	o->seed = 1;
	o->mtu = 1400;
	o->timeout_us = 4000;
	o->retries = 7;
	o->seconds = 120;
	o->imm_every = 4;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		unsigned long long v = 0;

		if (strchr("rtmsuTRSze", c)) {
			v = strtoull(optarg, &end, 0);
			if (*end || !v) {
				fprintf(stderr, "mrc_xfer: bad number '%s'\n",
					optarg);
				return -1;
			}
		}
		switch (c) {
		case 'i':
			o->info = optarg;
			break;
		case 'p':
			if (parse_port(o, optarg))
				return -1;
			break;
		case 'a':
			o->anchor = optarg;
			break;
		case '6':
			o->v6 = 1;
			break;
		case 'r':
			o->region = v;
			break;
		case 't':
			o->total = v;
			break;
		case 'm':
			o->max = v;
			break;
		case 's':
			o->seed = v;
			break;
		case 'u':
			o->mtu = v;
			break;
		case 'T':
			o->timeout_us = v;
			break;
		case 'R':
			o->retries = v;
			break;
		case 'S':
			o->seconds = v;
			break;
		case 'z':
			o->size = v;
			break;
		case 'e':
			o->imm_every = v;
			break;
		default:
			return -1;
		}
	}
	if (!o->info || !o->nports || (!o->server && !o->anchor) ||
	    o->max > o->region || o->mtu > 1400) {
		fprintf(stderr, "mrc_xfer: need --info, --port (and --anchor "
				"for the client); --max <= --region; --mtu <= "
				"1400\n");
		return -1;
	}
	return 0;
}

/* The doorbell program on lo, when the sender transmits by skb. */
static int lowlat;

static int setup(struct dev *d, const struct opts *o, struct dev_mr *mr,
		 struct dev_cq *cq, struct info *me, int sender)
{
	int i;

	if (dev_open(d))
		return -1;
	/* A kernel that refuses live frames: by skb, as mrcd does. */
	if (sender && o->anchor && dev_check_live_frame(d, o->anchor)) {
		if (dev_lowlat_attach(d) || dev_tx_by_skb(d))
			return -1;
		lowlat = 1;
	}
	for (i = 0; i < o->nports; i++)
		if (dev_add_port(d, i, o->ifname[i], o->mac[i], o->v6))
			return -1;
	if (o->anchor && dev_set_anchor(d, o->anchor))
		return -1;
	if (dev_mr_create(d, MR_IDX, o->region, 1, 0x10000000000ull, 0, mr) ||
	    dev_cq_create(d, CQ_IDX, cq))
		return -1;
	memset(me, 0, sizeof(*me));
	me->qpn = QPN;
	me->rkey = mr->key;
	me->va = 0x10000000000ull;
	for (i = 0; i < o->nports; i++) {
		struct mrc_port p;
		uint32_t k = i;

		if (bpf_map_lookup_elem(bpf_map__fd(d->rx->maps.mrc_port), &k,
					&p))
			return -1;
		memcpy(me->addr[i], p.saddr, 16);
	}
	return 0;
}

static int make_qp(struct dev *d, const struct opts *o, const struct info *peer,
		   struct mrc_sq **sq)
{
	struct dev_qp_attr a = {
		.qpn = QPN,
		.peer_qpn = peer->qpn,
		.pd = 1,
		.send_cq = CQ_IDX,
		.recv_cq = CQ_IDX,
		.mtu = o->mtu,
		.window = MRC_RX_WINDOW_MAX,
		.timeout_ns = o->timeout_us * 1000ull,
		.retry_linear = 7,
		.retry_exp = o->retries,
		.v6 = o->v6,
		.ev_base = 49152,
		.nev = 16 * o->nports,
	};

	memcpy(a.peer_addr, peer->addr, sizeof(a.peer_addr));
	/* Its packets' doorbells, when it transmits by skb. */
	if (d->tx_skb) {
		if (getrandom(&a.db_token, sizeof(a.db_token), 0) !=
		    sizeof(a.db_token))
			return -1;
		a.db_token |= 1; /* 0 would take no doorbells */
	}
	return dev_qp_create(d, &a, sq);
}

/* Completions the data path dropped for want of room in a CQ ring. */
static uint64_t cq_overflows(struct dev *d)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	uint64_t v[ncpu > 0 ? ncpu : 1], sum = 0;
	uint32_t key = MRC_DROP_CQ_OVERFLOW;

	if (ncpu <= 0 ||
	    bpf_map_lookup_elem(bpf_map__fd(d->rx->maps.mrc_drop), &key, v))
		return 0;
	for (i = 0; i < ncpu; i++)
		sum += v[i];
	return sum;
}

static int server(const struct opts *o)
{
	static struct mrc_cqe cqe[2048];
	struct info me, peer;
	uint64_t off, bad = 0, covered = 0, imms = 0, done_seq = 0;
	uint8_t *cov;
	struct dev_mr mr;
	struct dev_cq cq;
	struct mrc_sq *sq;
	struct dev d;
	double t0;
	FILE *f;
	char path[512];
	int n, i, done = 0;

	if (setup(&d, o, &mr, &cq, &me, 0))
		return die("server setup failed");
	if (write_info(o->info, "server", &me) ||
	    read_info(o->info, "client", &peer, 30) ||
	    make_qp(&d, o, &peer, &sq))
		return die("exchange with the client failed");
	write_info(o->info, "server-ready", &me);
	t0 = now_s();
	/*
	 * Two CPUs may commit neighbouring completions to the ring out of
	 * order (their seq numbers say the order): after the final immediate
	 * arrives, wait for every completion numbered before it.
	 */
	while ((!done || imms <= done_seq) && now_s() - t0 < o->seconds) {
		n = dev_cq_poll(&cq, cqe, 2048);
		for (i = 0; i < n; i++) {
			imms++;
			if (ntohl(cqe[i].imm) == DONE_IMM) {
				done = 1;
				done_seq = cqe[i].seq;
			}
		}
		if (!n)
			usleep(100);
	}
	if (!done)
		return die("no final WRITE_IMM before the deadline");
	/* Which bytes did the client write? */
	cov = calloc(1, o->region);
	snprintf(path, sizeof(path), "%s/extents", o->info);
	f = fopen(path, "r");
	if (!cov || !f)
		return die("no extents from the client");
	{
		unsigned long long eo, el;

		while (fscanf(f, "%llu %llu", &eo, &el) == 2)
			if (eo + el <= o->region)
				memset(cov + eo, 1, el);
	}
	fclose(f);
	for (off = 0; off < o->region; off++) {
		uint8_t want = cov[off] ? pattern(off) : 0;

		covered += cov[off];
		if (*dev_mr_at(&mr, off) != want && bad++ < 5)
			fprintf(stderr, "byte %llu: 0x%02x, want 0x%02x\n",
				(unsigned long long)off, *dev_mr_at(&mr, off),
				want);
	}
	printf("{\"role\":\"server\",\"bytes_checked\":%llu,"
	       "\"bytes_written\":%llu,\"bad_bytes\":%llu,"
	       "\"recv_completions\":%llu,\"cq_overflows\":%llu}\n",
	       (unsigned long long)o->region, (unsigned long long)covered,
	       (unsigned long long)bad, (unsigned long long)imms,
	       (unsigned long long)cq_overflows(&d));
	free(cov);
	dev_qp_destroy(&d, QPN, sq);
	dev_cq_destroy(&cq);
	dev_mr_destroy(&mr);
	dev_close(&d);
	return bad ? 1 : 0;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The QP's EVs with their counters, as JSON array members. */
static void print_evs(struct dev *d, const struct opts *o)
{
	struct mrc_ev_stats ev;
	uint32_t i, key, n = 16 * o->nports;

	for (i = 0; i < n && i < MRC_QP_EVS; i++) {
		key = QPN * MRC_QP_EVS + i;
		if (bpf_map_lookup_elem(bpf_map__fd(d->rx->maps.mrc_ev_stats),
					&key, &ev))
			continue;
		printf("%s{\"ev\":%u,\"port\":%u,\"sent\":%llu,\"acked\":%llu,"
		       "\"lost\":%llu,\"retx\":%llu,\"rtt_min_us\":%.1f,"
		       "\"rtt_srtt_us\":%.1f,\"rtt_max_us\":%.1f}",
		       i ? "," : "", 49152 + i, i % o->nports,
		       (unsigned long long)ev.sent,
		       (unsigned long long)ev.acked,
		       (unsigned long long)ev.lost, (unsigned long long)ev.retx,
		       ev.rtt_min_ns / 1e3, ev.rtt_srtt_ns / 1e3,
		       ev.rtt_max_ns / 1e3);
	}
}

static int client(const struct opts *o)
{
	static struct mrc_cqe cqe[2048];
	uint64_t s = o->seed * 0x9e3779b97f4a7c15ull + 1, sent = 0, off;
	uint32_t posted = 0, completed = 0, state, una, next, errors = 0;
	uint32_t imm_writes = 0;
	struct info me, peer;
	struct dev_mr mr;
	struct dev_cq cq;
	struct mrc_sq *sq;
	struct dev d;
	double t0, t1;
	FILE *ext;
	char path[512];
	int n, i, final_posted = 0, final_done = 0;

	if (setup(&d, o, &mr, &cq, &me, 1))
		return die("client setup failed");
	for (off = 0; off < o->region; off++)
		*dev_mr_at(&mr, off) = pattern(off);
	if (write_info(o->info, "client", &me) ||
	    read_info(o->info, "server", &peer, 30) ||
	    make_qp(&d, o, &peer, &sq) ||
	    read_info(o->info, "server-ready", &peer, 30))
		return die("exchange with the server failed");
	snprintf(path, sizeof(path), "%s/extents", o->info);
	ext = fopen(path, "w");
	if (!ext)
		return die("cannot write the extents file");

	t0 = now_s();
	while (!final_done && now_s() - t0 < o->seconds) {
		/* Keep the send queue full. */
		while (posted - completed < MRC_SQ_DEPTH && !final_posted) {
			struct mrc_wqe *w = &sq->wqe[sq->tail % MRC_SQ_DEPTH];
			uint64_t len, lo;

			if (sent >= o->total) {
				len = 1;
				lo = 0;
				w->imm = htonl(DONE_IMM);
				w->opcode = MRC_WR_RDMA_WRITE_WITH_IMM;
				final_posted = 1;
			} else {
				/* Log-uniform sizes: as many small as large. */
				int bits = rnd(&s) % 64;
				uint64_t maxb = 1;

				while (maxb < o->max && bits-- > 0)
					maxb <<= 1;
				if (maxb > o->max)
					maxb = o->max;
				len = o->size ? o->size : 1 + rnd(&s) % maxb;
				if (len > o->total - sent)
					len = o->total - sent;
				lo = rnd(&s) % (o->region - len + 1);
				w->imm = htonl(posted);
				w->opcode = posted % o->imm_every ==
							    o->imm_every - 1 ?
						    MRC_WR_RDMA_WRITE_WITH_IMM :
						    MRC_WR_RDMA_WRITE;
			}
			imm_writes += w->opcode == MRC_WR_RDMA_WRITE_WITH_IMM;
			w->wr_id = posted;
			w->laddr = lo;
			w->raddr = peer.va + lo;
			w->lkey = mr.key;
			w->rkey = peer.rkey;
			w->len = len;
			w->flags = MRC_SEND_SIGNALED;
			fprintf(ext, "%llu %llu\n", (unsigned long long)lo,
				(unsigned long long)len);
			sent += len;
			posted++;
			__atomic_store_n(&sq->tail, sq->tail + 1,
					 __ATOMIC_RELEASE);
		}
		n = dev_tx_burst(&d, QPN, 256, 0, 1);
		if (n < 0)
			return die("transmit failed");
		i = dev_cq_poll(&cq, cqe, 2048);
		for (int k = 0; k < i; k++) {
			if (cqe[k].status)
				errors++;
			completed++;
			if (final_posted && completed == posted)
				final_done = 1;
		}
		if (errors)
			break;
		if (!n && !i) {
			if (dev_qp_tx_state(&d, QPN, &state, &una, &next) ||
			    state != MRC_QPS_RTS)
				break;
			usleep(50);
		}
	}
	t1 = now_s();
	fclose(ext);
	{
		uint32_t key = MRC_TX_RETX;
		int ncpu = libbpf_num_possible_cpus(), c;
		uint64_t v[ncpu], retx = 0;

		if (!bpf_map_lookup_elem(bpf_map__fd(d.rx->maps.mrc_tx_stats),
					 &key, v))
			for (c = 0; c < ncpu; c++)
				retx += v[c];
		printf("{\"role\":\"client\",\"bytes\":%llu,\"writes\":%u,"
		       "\"completed\":%u,\"errors\":%u,\"retransmits\":%llu,"
		       "\"seconds\":%.3f,\"goodput_gbit_s\":%.3f,"
		       "\"writes_per_s\":%.0f,\"imm_writes\":%u,\"evs\":[",
		       (unsigned long long)sent, posted, completed, errors,
		       (unsigned long long)retx, t1 - t0,
		       sent * 8 / (t1 - t0) / 1e9, posted / (t1 - t0),
		       imm_writes);
		print_evs(&d, o);
		printf("]}\n");
	}
	dev_qp_destroy(&d, QPN, sq);
	dev_cq_destroy(&cq);
	dev_mr_destroy(&mr);
	if (lowlat)
		dev_lowlat_detach(&d);
	dev_close(&d);
	return final_done && !errors ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct opts o = {};

	log_set_ident("mrc_xfer");
	if (argc < 2 ||
	    (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
		fprintf(stderr,
			"usage: mrc_xfer { server | client } --info DIR "
			"--port IF=MAC... [options]\n");
		return 2;
	}
	o.server = !strcmp(argv[1], "server");
	if (parse_opts(argc - 1, argv + 1, &o))
		return 2;
	return o.server ? server(&o) : client(&o);
}
