// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzzer of mrcd's socket protocol (include/mrc/mrcd_proto.h), from
 * outside: a client of a running mrcd (tests/system/150-fuzz-mrcd.sh runs
 * one built with ASan and UBSan) sending it, from a seeded generator:
 *   - requests of every operation and of none, with random fields, or the
 *     fields pointed at objects this client owns (so they get past the
 *     ownership checks), or at other connections' objects;
 *   - requests cut short, one byte long, longer than a request, and far
 *     longer than mrcd reads (truncated by the kernel);
 *   - file descriptors nobody asked for (eventfds, pipes, memfds, sockets,
 *     /dev/null), up to more than a message carries;
 *   - garbage in the send queue pages mrcd hands out, and doorbells rung
 *     on them;
 *   - clients that die mid-call: send a request and exit before the
 *     reply, or are killed with objects alive;
 *   - connections opened and dropped.
 * Every few hundred requests, and at the end, a new connection must be
 * answered (HELLO) within 2 s. mrcd's own log (sanitizer reports, crashes)
 * is checked by the suite.
 *
 *   fuzz_mrcd --socket PATH [-n REQUESTS] [-s SEED]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mrc/mrcd_proto.h"
#include "mrc/msg.h"

static uint64_t rs;
static const char *sock_path;

static uint64_t rnd(void)
{
	rs ^= rs >> 12;
	rs ^= rs << 25;
	rs ^= rs >> 27;
	return rs * 0x2545f4914f6cdd1dull;
}

static uint32_t below(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

static int chance(unsigned int pct)
{
	return below(100) < pct;
}

/* What this client owns, by kind, as mrcd numbered it. */
#define OWN_MAX 64
static uint32_t own[4][OWN_MAX]; /* PD, CQ, MR, QP */
static int nown[4];

static struct {
	uint64_t sent, replies, no_reply, dropped, truncated, fds_sent;
	uint64_t deaths, reconnects, checks, garbage_sq;
	uint64_t err[140];
	uint64_t no_reply_op[MRCD_CTL_EVENTS_CLOSE + 2]; /* last: others */
} st;

static int connect_mrcd(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", sock_path);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A reply within ms, its fds in fds; 1, 0 on timeout, -1 when dropped. */
static int get_reply(int fd, struct mrcd_rep *rep, int *fds, int *nfds, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	*nfds = 0;
	if (poll(&p, 1, ms) <= 0)
		return 0;
	n = mrc_msg_recv(fd, rep, sizeof(*rep), fds, nfds);
	return n > 0 ? 1 : -1;
}

/* A file descriptor of some kind, for a request that asked for none. */
static int junk_fd(void)
{
	int p[2], fd = -1;

	switch (below(5)) {
	case 0:
		fd = eventfd(0, EFD_CLOEXEC);
		break;
	case 1:
		fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		break;
	case 2:
		if (!pipe2(p, O_CLOEXEC)) {
			close(p[1]);
			fd = p[0];
		}
		break;
	case 3:
		fd = memfd_create("junk", MFD_CLOEXEC);
		if (fd >= 0 && ftruncate(fd, 4096)) {
			close(fd);
			fd = -1;
		}
		break;
	default:
		if (!socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, p)) {
			close(p[1]);
			fd = p[0];
		}
	}
	return fd;
}

static uint32_t some_idx(int kind)
{
	if (nown[kind] && chance(70))
		return own[kind][below((uint32_t)nown[kind])];
	return chance(50) ? below(8) : (uint32_t)rnd();
}

static void make_req(struct mrcd_req *r)
{
	uint8_t *b = (uint8_t *)r;
	size_t i;

	for (i = 0; i < sizeof(*r); i++)
		b[i] = chance(70) ? 0 : (uint8_t)rnd();
	r->version = chance(97) ? MRCD_PROTO_VERSION : (uint32_t)rnd();
	r->op = chance(90) ? 1 + below(MRCD_CTL_EVENTS_CLOSE) :
		chance(50) ? 0 :
			     (uint32_t)rnd();
	switch (r->op) {
	case MRCD_PD_FREE:
		r->obj.idx = some_idx(0);
		break;
	case MRCD_CQ_DESTROY:
		r->obj.idx = some_idx(1);
		break;
	case MRCD_MR_DEREG:
		r->obj.idx = some_idx(2);
		break;
	case MRCD_QP_QUERY:
	case MRCD_QP_DESTROY:
	case MRCD_QP_DOORBELL:
		r->obj.idx = some_idx(3);
		break;
	case MRCD_MR_REG:
		r->mr.pd = some_idx(0);
		r->mr.access = below(16);
		/* Small, none, or beyond any host's memory: a legitimate
		 * region of gigabytes takes mrcd seconds to zero, which
		 * tells nothing and stalls the run. */
		r->mr.len = chance(60) ? 1 + below(1 << 16) :
			    chance(50) ? 0 :
			    chance(50) ? (1ull << 40) + (rnd() >> 20) :
					 rnd();
		r->mr.va = chance(80) ? 0x10000ull * below(1 << 20) : rnd();
		r->mr.head = chance(80) ? below(4096) : (uint32_t)rnd();
		break;
	case MRCD_QP_CREATE:
		r->qp_create.pd = some_idx(0);
		r->qp_create.send_cq = some_idx(1);
		r->qp_create.recv_cq = some_idx(1);
		break;
	case MRCD_QP_MODIFY:
		r->qp_modify.qpn = some_idx(3);
		r->qp_modify.state = chance(80) ? below(7) : (uint32_t)rnd();
		r->qp_modify.mtu = chance(80) ? 64u << below(7) :
						(uint32_t)rnd();
		r->qp_modify.window_rx = below(300);
		break;
	case MRCD_QP_HEALTH:
		r->qp_health.qpn = some_idx(3);
		break;
	case MRCD_RESUME:
		r->resume.session = chance(50) ? 0 : rnd();
		break;
	}
}

/* Note what a successful reply created. */
static void owned(uint32_t op, const struct mrcd_rep *rep)
{
	int kind = op == MRCD_PD_ALLOC	? 0 :
		   op == MRCD_CQ_CREATE ? 1 :
		   op == MRCD_MR_REG	? 2 :
		   op == MRCD_QP_CREATE ? 3 :
					  -1;
	uint32_t idx;

	if (kind < 0)
		return;
	idx = kind == 3 ? rep->qp.qpn : rep->obj.idx;
	if (nown[kind] < OWN_MAX)
		own[kind][nown[kind]++] = idx;
	else
		own[kind][below(OWN_MAX)] = idx;
}

/* A send queue page from mrcd: sometimes scribbled on, and rung. */
static void scribble(const int *fds, int nfds)
{
	uint8_t *p;
	size_t i;

	if (nfds < 2 || !chance(30))
		return;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
	if (p == MAP_FAILED)
		return;
	for (i = 0; i < 64; i++)
		p[below(4096)] = (uint8_t)rnd();
	munmap(p, 4096);
	if (write(fds[1], &(uint64_t){ 1 }, 8) == 8)
		st.garbage_sq++;
}

/* One request on fd; returns fd, or a new connection if mrcd dropped it. */
static int one(int fd)
{
	static uint8_t big[70000];
	struct mrcd_req r;
	struct mrcd_rep rep;
	int fds[4] = { -1, -1, -1, -1 }, nfds = 0, rfds[8], rn = 0, i, got;
	double t0;
	size_t len = sizeof(r);
	const void *buf = &r;

	make_req(&r);
	if (chance(8)) {
		len = below(sizeof(r)); /* cut short (0: an empty message) */
		st.truncated++;
	} else if (chance(4)) {
		len = sizeof(r) + 1 + below(64);
		memcpy(big, &r, sizeof(r));
		buf = big;
	} else if (chance(1)) {
		len = sizeof(big); /* beyond what mrcd reads */
		memcpy(big, &r, sizeof(r));
		buf = big;
	}
	if (chance(15)) {
		nfds = 1 + (int)below(4);
		for (i = 0; i < nfds; i++) {
			fds[i] = junk_fd();
			if (fds[i] < 0) {
				nfds = i; /* as many as could be made */
				break;
			}
		}
		st.fds_sent += (uint64_t)nfds;
	}
	if (mrc_msg_send(fd, buf, len, nfds ? fds : NULL, nfds) < 0) {
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		st.dropped++;
		close(fd);
		return connect_mrcd();
	}
	for (i = 0; i < nfds; i++)
		close(fds[i]);
	st.sent++;
	t0 = now_ms();
	got = get_reply(fd, &rep, rfds, &rn, 2000);
	if (now_ms() - t0 > 500)
		fprintf(stderr,
			"fuzz_mrcd: slow: op %u len %zu (mr len %llu) took %.0f ms%s\n",
			r.op, len, (unsigned long long)r.mr.len, now_ms() - t0,
			got ? "" : ", no reply");
	if (got <= 0) {
		/* A probe can take its time; anything else is dropped. */
		if (got == 0) {
			st.no_reply++;
			st.no_reply_op[r.op <= MRCD_CTL_EVENTS_CLOSE ?
					       r.op :
					       MRCD_CTL_EVENTS_CLOSE + 1]++;
		} else
			st.dropped++;
		close(fd);
		return connect_mrcd();
	}
	st.replies++;
	if (rep.err >= 0 && rep.err < 140)
		st.err[rep.err]++;
	if (!rep.err && len == sizeof(r))
		owned(r.op, &rep);
	if (!rep.err && r.op == MRCD_QP_CREATE)
		scribble(rfds, rn);
	for (i = 0; i < rn; i++)
		close(rfds[i]);
	return fd;
}

/* A client that asks and dies without the answer, or is killed. */
static void die_mid_call(void)
{
	pid_t pid = fork();

	if (pid < 0)
		return;
	if (!pid) {
		int fd = connect_mrcd();
		struct mrcd_req r = { .version = MRCD_PROTO_VERSION };
		struct mrcd_rep rep;
		int f[8], n;

		if (fd < 0)
			_exit(0);
		r.op = MRCD_PD_ALLOC;
		if (mrc_msg_send(fd, &r, sizeof(r), NULL, 0) < 0 ||
		    get_reply(fd, &rep, f, &n, 2000) <= 0)
			_exit(0);
		r.op = MRCD_CQ_CREATE;
		mrc_msg_send(fd, &r, sizeof(r), NULL, 0);
		if (rs & 1)
			_exit(0); /* before the reply */
		pause(); /* killed with objects alive */
		_exit(0);
	}
	if (!(rs & 1)) {
		usleep(2000);
		kill(pid, SIGKILL);
	}
	waitpid(pid, NULL, 0);
	st.deaths++;
}

/* A fresh connection is answered. */
static int alive(void)
{
	struct mrcd_req r = { .op = MRCD_HELLO, .version = MRCD_PROTO_VERSION };
	struct mrcd_rep rep;
	int fd = connect_mrcd(), f[8], n = 0, ok, i;

	if (fd < 0)
		return 0;
	ok = !mrc_msg_send(fd, &r, sizeof(r), NULL, 0) &&
	     get_reply(fd, &rep, f, &n, 2000) > 0 && rep.err == 0;
	for (i = 0; i < n; i++)
		close(f[i]);
	close(fd);
	st.checks++;
	return ok;
}

int main(int argc, char **argv)
{
	long n = 20000, k;
	uint64_t seed = 1;
	int opt, fd, e;

	static const struct option lo[] = {
		{ "socket", required_argument, NULL, 'S' }, {}
	};
	while ((opt = getopt_long(argc, argv, "n:s:", lo, NULL)) != -1) {
		switch (opt) {
		case 'S':
			sock_path = optarg;
			break;
		case 'n':
			n = strtol(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		default:
			return 2;
		}
	}
	if (!sock_path || n < 1) {
		fprintf(stderr,
			"usage: fuzz_mrcd --socket PATH [-n REQUESTS] [-s SEED]\n");
		return 2;
	}
	rs = seed * 0x9e3779b97f4a7c15ull | 1;
	signal(SIGPIPE, SIG_IGN);
	fd = connect_mrcd();
	if (fd < 0) {
		perror("fuzz_mrcd: connecting");
		return 1;
	}
	for (k = 0; k < n; k++) {
		if (chance(1)) {
			die_mid_call();
		} else if (chance(1)) {
			close(fd); /* with whatever it owns */
			memset(nown, 0, sizeof(nown));
			fd = connect_mrcd();
			st.reconnects++;
		}
		if (fd < 0 || (k % 500 == 499 && !alive())) {
			fprintf(stderr,
				"fuzz_mrcd: mrcd stopped answering after %ld requests (seed %llu)\n",
				k + 1, (unsigned long long)seed);
			return 1;
		}
		fd = one(fd);
	}
	if (!alive()) {
		fprintf(stderr, "fuzz_mrcd: mrcd does not answer at the end\n");
		return 1;
	}
	printf("fuzz_mrcd: %llu requests (%llu cut short), %llu replies, %llu without a reply in 2 s, %llu connections dropped by mrcd, %llu fds sent unasked, %llu send queues scribbled on, %llu clients died mid-call, %llu reconnects, %llu liveness checks; seed %llu\n  replies by error:",
	       (unsigned long long)st.sent, (unsigned long long)st.truncated,
	       (unsigned long long)st.replies, (unsigned long long)st.no_reply,
	       (unsigned long long)st.dropped, (unsigned long long)st.fds_sent,
	       (unsigned long long)st.garbage_sq, (unsigned long long)st.deaths,
	       (unsigned long long)st.reconnects, (unsigned long long)st.checks,
	       (unsigned long long)seed);
	for (e = 0; e < 140; e++)
		if (st.err[e])
			printf(" %s %llu", e ? strerrorname_np(e) : "ok",
			       (unsigned long long)st.err[e]);
	printf("\n  no reply in 2 s, by operation:");
	for (e = 0; e <= MRCD_CTL_EVENTS_CLOSE + 1; e++)
		if (st.no_reply_op[e])
			printf(" %d: %llu", e,
			       (unsigned long long)st.no_reply_op[e]);
	printf("\n");
	close(fd);
	return 0;
}
