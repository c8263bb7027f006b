// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_lat: 8-byte ping-pong round trips between two testbed hosts over
 * the three ways a small message can go, in one run:
 *
 *   doorbell  WRITE_IMM posted, then a doorbell datagram on lo: the tc
 *             program (daemon/dev_lowlat.c) sends it
 *   burst     WRITE_IMM posted, then dev_tx_burst(): one live-frame run
 *             of the XDP transmit program
 *   tcp       8 bytes over a TCP connection (TCP_NODELAY) on plane 0
 *
 * Each side runs the soft device in-process; the receiver of a WRITE_IMM
 * busy-polls its completion ring and answers the same way it was reached.
 *
 *   mrc_lat server --info DIR --port IF=MAC... --anchor IF [--v6]
 *   mrc_lat client --info DIR --port IF=MAC... --anchor IF [--v6]
 *                  [--iters N] [--csum]
 *
 * --csum rings from a plain UDP socket (CHECKSUM_PARTIAL skbs) instead of
 * mrc_doorbell_socket()'s SO_NO_CHECK one. The client prints one JSON
 * line: median and p99 round trip per way, in microseconds, and the
 * receive-side drop counters (a wrong checksum would show there).
 * A measurement, not a test: tests/tools/mrc_lat.sh runs it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dev.h"
#include "dev_lowlat.h"
#include "mrc/doorbell.h"
#include "mrc/drop.h"
#include "mrc_xdp_rx.skel.h"

#define QPN 9
#define MR_IDX 1
#define CQ_IDX 0
#define VA 0x20000000000ull
#define REGION 4096
#define MSG 8
#define TCP_PORT 4793
#define WARMUP 500
#define KICK_NS 2000000ull /* resend (ACK timeout passed) after 2 ms */

enum way { WAY_DOORBELL = 1, WAY_BURST = 2, WAY_QUIT = 3 };

struct opts {
	int server, v6, nports, csum;
	unsigned int iters;
	const char *info, *anchor;
	char ifname[MRC_MAX_PORTS][16];
	uint8_t mac[MRC_MAX_PORTS][6];
};

struct info {
	uint32_t qpn, rkey;
	uint64_t va;
	uint8_t addr[MRC_MAX_PORTS][16];
};

struct side {
	struct dev d;
	struct dev_mr mr;
	struct dev_cq cq;
	struct mrc_sq *sq;
	struct info me, peer;
	uint64_t token;
	int db_fd;
	uint64_t last_tx_ns;
	enum way last_way;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int die(const char *what)
{
	fprintf(stderr, "mrc_lat: %s\n", what);
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
	return rename(tmp, path);
}

static int read_info(const char *dir, const char *name, struct info *in)
{
	uint64_t t0 = now_ns();
	char path[512];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	while (!(f = fopen(path, "r"))) {
		if (now_ns() - t0 > 30000000000ull)
			return -1;
		usleep(10000);
	}
	ok = fread(in, sizeof(*in), 1, f) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "info", 1, 0, 'i' },	 { "port", 1, 0, 'p' },
		{ "anchor", 1, 0, 'a' }, { "v6", 0, 0, '6' },
		{ "iters", 1, 0, 'n' },	 { "csum", 0, 0, 'c' },
		{ 0, 0, 0, 0 },
	};
	unsigned int b[6], i;
	const char *eq;
	int c;

	o->iters = 20000;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->info = optarg;
			break;
		case 'p':
			eq = strchr(optarg, '=');
			if (!eq || eq == optarg || eq - optarg >= 16 ||
			    o->nports == MRC_MAX_PORTS ||
			    sscanf(eq + 1, "%x:%x:%x:%x:%x:%x", &b[0], &b[1],
				   &b[2], &b[3], &b[4], &b[5]) != 6)
				return -1;
			memcpy(o->ifname[o->nports], optarg, eq - optarg);
			for (i = 0; i < 6; i++)
				o->mac[o->nports][i] = b[i];
			o->nports++;
			break;
		case 'a':
			o->anchor = optarg;
			break;
		case '6':
			o->v6 = 1;
			break;
		case 'n':
			o->iters = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			o->csum = 1;
			break;
		default:
			return -1;
		}
	}
	return o->info && o->nports && o->anchor && o->iters ? 0 : -1;
}

/* A UDP socket connected to the doorbell address, checksummed. */
static int plain_doorbell_socket(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	a.sin_port = htons(MRC_DOORBELL_PORT);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	return fd;
}

static int setup(struct side *s, const struct opts *o)
{
	struct dev_qp_attr a = {
		.qpn = QPN,
		.pd = 1,
		.send_cq = CQ_IDX,
		.recv_cq = CQ_IDX,
		.mtu = 1400,
		.window = MRC_RX_WINDOW_MAX,
		.timeout_ns = 1000000,
		.retry_linear = 7,
		.retry_exp = MRC_RETRY_INFINITE,
		.v6 = o->v6,
		.ev_base = 49152,
		.nev = 16 * o->nports,
	};
	int i;

	if (dev_open(&s->d))
		return -1;
	for (i = 0; i < o->nports; i++)
		if (dev_add_port(&s->d, i, o->ifname[i], o->mac[i], o->v6))
			return -1;
	if (dev_set_anchor(&s->d, o->anchor) || dev_lowlat_attach(&s->d) ||
	    dev_mr_create(&s->d, MR_IDX, REGION, 1, VA, 0, &s->mr) ||
	    dev_cq_create(&s->d, CQ_IDX, &s->cq))
		return -1;
	s->db_fd = o->csum ? plain_doorbell_socket() : mrc_doorbell_socket();
	if (s->db_fd < 0 ||
	    getrandom(&s->token, sizeof(s->token), 0) != sizeof(s->token))
		return -1;
	s->token |= 1; /* never 0: that disables doorbells */
	s->me.qpn = QPN;
	s->me.rkey = s->mr.key;
	s->me.va = VA;
	for (i = 0; i < o->nports; i++) {
		struct mrc_port p;
		uint32_t k = i;

		if (bpf_map_lookup_elem(bpf_map__fd(s->d.rx->maps.mrc_port), &k,
					&p))
			return -1;
		memcpy(s->me.addr[i], p.saddr, 16);
	}
	if (write_info(o->info, o->server ? "server" : "client", &s->me) ||
	    read_info(o->info, o->server ? "client" : "server", &s->peer))
		return -1;
	a.peer_qpn = s->peer.qpn;
	a.db_token = s->token;
	memcpy(a.peer_addr, s->peer.addr, sizeof(a.peer_addr));
	return dev_qp_create(&s->d, &a, &s->sq);
}

static int kick(struct side *s, enum way w)
{
	s->last_tx_ns = now_ns();
	s->last_way = w;
	if (w == WAY_BURST)
		return dev_tx_burst(&s->d, QPN, 1, 0, 1) < 0 ? -1 : 0;
	return mrc_doorbell_ring(s->db_fd, QPN, s->token);
}

/* Post an 8-byte WRITE_IMM (unsignaled) and send it the way w. */
static int send_imm(struct side *s, uint32_t imm, enum way w)
{
	struct mrc_wqe *q;

	while (s->sq->tail - __atomic_load_n(&s->sq->done, __ATOMIC_ACQUIRE) >=
	       MRC_SQ_DEPTH)
		;
	q = &s->sq->wqe[s->sq->tail % MRC_SQ_DEPTH];
	memset(q, 0, sizeof(*q));
	q->laddr = 0;
	q->raddr = s->peer.va;
	q->lkey = s->mr.key;
	q->rkey = s->peer.rkey;
	q->len = MSG;
	q->imm = htonl(imm);
	q->opcode = MRC_WR_RDMA_WRITE_WITH_IMM;
	__atomic_store_n(&s->sq->tail, s->sq->tail + 1, __ATOMIC_RELEASE);
	return kick(s, w);
}

/*
 * Busy-poll for the next receive completion; its immediate in *imm.
 * Resends (through the ACK timeout) if something stays unacknowledged.
 */
static int wait_imm(struct side *s, uint32_t *imm, uint64_t deadline_ns)
{
	struct mrc_cqe c[16];
	uint32_t state, una, next;
	int n, i;

	for (;;) {
		n = dev_cq_poll(&s->cq, c, 16);
		for (i = 0; i < n; i++)
			if (c[i].opcode == MRC_WC_RECV_RDMA_WITH_IMM) {
				*imm = ntohl(c[i].imm);
				return 0; /* one at a time in a ping-pong */
			}
		/*
		 * Let ksoftirqd run if it has to: veth's NAPI (the peer's XDP,
		 * our ACKs) may be deferred to it on these two CPUs, and a
		 * spinning poller would hold it off for a whole time slice.
		 */
		if (!n)
			sched_yield();
		if (s->last_way && now_ns() - s->last_tx_ns > KICK_NS) {
			if (dev_qp_tx_state(&s->d, QPN, &state, &una, &next))
				return -1;
			if (una != next)
				kick(s, s->last_way);
			else
				s->last_tx_ns = now_ns();
			if (now_ns() > deadline_ns)
				return -1;
		}
	}
}

static int tcp_serve(void)
{
	int one = 1, ls = socket(AF_INET6, SOCK_STREAM, 0);
	struct sockaddr_in6 a = { .sin6_family = AF_INET6,
				  .sin6_port = htons(TCP_PORT) };

	if (ls < 0 ||
	    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 1))
		return -1;
	return ls;
}

static int server(const struct opts *o)
{
	struct side s = {};
	uint32_t imm;
	char buf[MSG];
	int ls, c, one = 1;

	ls = tcp_serve();
	if (ls < 0 || setup(&s, o))
		return die("server setup failed");
	write_info(o->info, "server-ready", &s.me);
	for (;;) {
		if (wait_imm(&s, &imm, now_ns() + 120000000000ull))
			return die("no ping for 2 minutes");
		if (imm >> 28 == WAY_QUIT)
			break;
		if (send_imm(&s, imm, imm >> 28))
			return die("pong failed");
	}
	c = accept(ls, NULL, NULL);
	if (c < 0)
		return die("accept");
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	while (recv(c, buf, MSG, MSG_WAITALL) == MSG)
		if (send(c, buf, MSG, 0) != MSG)
			break;
	close(c);
	close(ls);
	dev_lowlat_detach(&s.d);
	dev_qp_destroy(&s.d, QPN, s.sq);
	dev_cq_destroy(&s.cq);
	dev_mr_destroy(&s.mr);
	dev_close(&s.d);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void print_way(const char *name, uint64_t *rtt, unsigned int n, int last)
{
	qsort(rtt, n, sizeof(*rtt), cmp_u64);
	printf("\"%s\":{\"n\":%u,\"median_us\":%.2f,\"p99_us\":%.2f,"
	       "\"min_us\":%.2f}%s",
	       name, n, rtt[n / 2] / 1e3, rtt[(size_t)n * 99 / 100] / 1e3,
	       rtt[0] / 1e3, last ? "" : ",");
}

static int rdma_pingpong(struct side *s, enum way w, unsigned int iters,
			 uint64_t *rtt)
{
	uint32_t imm, i;
	uint64_t t0;

	for (i = 0; i < WARMUP + iters; i++) {
		uint32_t want = (uint32_t)w << 28 | (i & 0x0fffffff);

		t0 = now_ns();
		if (send_imm(s, want, w) ||
		    wait_imm(s, &imm, now_ns() + 10000000000ull))
			return -1;
		if (imm != want)
			return -1;
		if (i >= WARMUP)
			rtt[i - WARMUP] = now_ns() - t0;
	}
	return 0;
}

static int tcp_pingpong(const struct side *s, const struct opts *o,
			unsigned int iters, uint64_t *rtt)
{
	struct sockaddr_storage ss = {};
	socklen_t len;
	char buf[MSG] = "pingpong";
	int fd, one = 1;
	unsigned int i;
	uint64_t t0;

	if (o->v6) {
		struct sockaddr_in6 *a = (void *)&ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(TCP_PORT);
		memcpy(&a->sin6_addr, s->peer.addr[0], 16);
		len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (void *)&ss;

		a->sin_family = AF_INET;
		a->sin_port = htons(TCP_PORT);
		memcpy(&a->sin_addr, s->peer.addr[0], 4);
		len = sizeof(*a);
	}
	fd = socket(ss.ss_family, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&ss, len))
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	for (i = 0; i < WARMUP + iters; i++) {
		t0 = now_ns();
		if (send(fd, buf, MSG, 0) != MSG ||
		    recv(fd, buf, MSG, MSG_WAITALL) != MSG)
			return -1;
		if (i >= WARMUP)
			rtt[i - WARMUP] = now_ns() - t0;
	}
	close(fd);
	return 0;
}

static uint64_t percpu_sum(struct bpf_map *m, uint32_t key)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	uint64_t v[ncpu], sum = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(m), &key, v))
		return 0;
	for (i = 0; i < ncpu; i++)
		sum += v[i];
	return sum;
}

static int client(const struct opts *o)
{
	uint64_t *rtt = calloc(3 * (size_t)o->iters, sizeof(*rtt)), *db, *burst,
		 *tcp;
	const char *failed = NULL;
	struct side s = {};
	struct info ready;
	uint32_t r;

	if (!rtt || setup(&s, o) ||
	    read_info(o->info, "server-ready", &ready)) {
		free(rtt);
		return die("client setup failed");
	}
	db = rtt;
	burst = rtt + o->iters;
	tcp = rtt + 2 * o->iters;
	if (rdma_pingpong(&s, WAY_DOORBELL, o->iters, db)) {
		/* A NACK says why: checksum (5) when the checksum is wrong. */
		fprintf(stderr, "mrc_lat: %llu NACKs received\n",
			(unsigned long long)percpu_sum(
				s.d.rx->maps.mrc_tx_stats, MRC_TX_NACKS));
		failed = "doorbell ping-pong failed";
	} else if (rdma_pingpong(&s, WAY_BURST, o->iters, burst)) {
		failed = "burst ping-pong failed";
	} else if (send_imm(&s, (uint32_t)WAY_QUIT << 28, WAY_DOORBELL)) {
		failed = "quit failed";
	} else {
		usleep(100000); /* the server turns to its TCP socket */
		if (tcp_pingpong(&s, o, o->iters, tcp))
			failed = "TCP ping-pong failed";
	}
	if (!failed) {
		printf("{\"bytes\":%d,\"doorbell_socket\":\"%s\",\"v6\":%d,",
		       MSG, o->csum ? "checksummed" : "SO_NO_CHECK", o->v6);
		print_way("doorbell", db, o->iters, 0);
		print_way("burst", burst, o->iters, 0);
		print_way("tcp", tcp, o->iters, 0);
		printf("\"client_drops\":{");
		for (r = 1; r < MRC_DROP_MAX; r++)
			printf("%s\"%u\":%llu", r > 1 ? "," : "", r,
			       (unsigned long long)percpu_sum(
				       s.d.rx->maps.mrc_drop, r));
		printf("}}\n");
	}
	dev_lowlat_detach(&s.d);
	dev_qp_destroy(&s.d, QPN, s.sq);
	dev_cq_destroy(&s.cq);
	dev_mr_destroy(&s.mr);
	dev_close(&s.d);
	free(rtt);
	return failed ? die(failed) : 0;
}

int main(int argc, char **argv)
{
	struct opts o = {};

	if (argc < 2 ||
	    (strcmp(argv[1], "server") && strcmp(argv[1], "client")))
		return die("usage: mrc_lat server|client --info DIR "
			   "--port IF=MAC... --anchor IF [--v6] [--iters N] "
			   "[--csum]");
	o.server = !strcmp(argv[1], "server");
	if (parse_opts(argc - 1, argv + 1, &o))
		return die("need --info, --port and --anchor");
	return o.server ? server(&o) : client(&o);
}
