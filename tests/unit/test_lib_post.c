// SPDX-License-Identifier: GPL-2.0
/*
 * libmrc's doorbells while no mrcd serves a send queue (lib/qp.c,
 * lib/cq.c; docs/lowlat.md): with mrc_sq.no_pump set, every post rings
 * the low-latency doorbell, whatever its size, and an empty CQ poll rings
 * it for a QP whose work a post left to a dead mrcd's eventfd, at most
 * once a coarse-clock tick. With the mark clear, neither rings what the
 * low-latency rules would not. The doorbells are read from a UDP socket
 * bound to the doorbell address (127.0.0.1:MRC_DOORBELL_PORT) in a
 * network namespace of the test's own (as root, or in a user namespace
 * of its own), so no tc program, no mrcd, and no other run of this test
 * holds the port.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "internal.h"
#include "mrc/abi.h"

#define QPN 5u
#define TOKEN 0x1234abcdull

/* What lib/qp.c and lib/cq.c call of the rest of libmrc: no mrcd here. */
int soft_call(struct soft_ctx *sc, struct mrcd_req *req, struct mrcd_rep *rep,
	      int *fds, int nfds_max)
{
	(void)sc;
	(void)req;
	(void)rep;
	(void)fds;
	(void)nfds_max;
	return ENOTCONN;
}

void soft_check_link(struct soft_ctx *sc)
{
	(void)sc;
}

struct soft_mr *soft_mr_by_key(struct soft_ctx *sc, uint32_t lkey)
{
	(void)sc;
	(void)lkey;
	return NULL;
}

void soft_db_add(struct soft_ctx *sc, uint32_t qpn, int *fd)
{
	(void)sc;
	(void)qpn;
	(void)fd;
}

void soft_db_del(struct soft_ctx *sc, uint32_t qpn, int *fd)
{
	(void)sc;
	(void)qpn;
	(void)fd;
}

int ctl_evq_destroy(struct mrc_cq *cq)
{
	(void)cq;
	return 0;
}

int soft_is_ours(struct ibv_context *c)
{
	(void)c;
	return 1;
}

/* No real libibverbs here. */
void *bind_real(const char *name)
{
	(void)name;
	return NULL;
}

void soft_device_attr(struct mrc_device_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
}

void ctx_post_async(struct mrc_context *c, const struct mrc_async_event *ev)
{
	(void)c;
	(void)ev;
}

static struct soft_ctx sc;
static struct mrc_context *ctx;
static struct mrc_qp qp;
static struct mrc_cq *cq;
static struct mrc_sq *sq;
static int bell = -1; /* the doorbell address, bound here */

static int setup(void **state)
{
	struct sockaddr_in a = { .sin_family = AF_INET };

	(void)state;
	bell = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	a.sin_port = htons(MRC_DOORBELL_PORT);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true(bell >= 0);
	assert_int_equal(bind(bell, (struct sockaddr *)&a, sizeof(a)), 0);
	memset(&sc, 0, sizeof(sc));
	sc.info.lowlat = 1;
	sc.db_sock = -1;
	ctx = calloc(1, sizeof(*ctx));
	cq = calloc(1, sizeof(*cq));
	sq = calloc(1, sizeof(*sq));
	assert_non_null(ctx);
	assert_non_null(cq);
	assert_non_null(sq);
	ctx->sc = &sc;
	pthread_mutex_init(&ctx->lock, NULL);
	cq->ctx = ctx;
	pthread_mutex_init(&cq->lock, NULL);
	/* An empty ring: producer and consumer at 0. */
	cq->prod_page = calloc(1, 4096 + 2 * (size_t)MRC_CQ_RING_BYTES);
	cq->cons_page = calloc(1, 4096);
	cq->mask = MRC_CQ_RING_BYTES - 1;
	memset(&qp, 0, sizeof(qp));
	qp.ctx = ctx;
	qp.qpn = QPN;
	qp.state = IBV_QPS_RTS;
	qp.sq = sq;
	qp.depth = 64;
	qp.db_token = TOKEN;
	qp.db_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	qp.m.mtu = 1024;
	qp.m.window_tx = qp.m.window_rx = 64;
	qp.init.send_cq = cq;
	pthread_mutex_init(&qp.lock, NULL);
	ctx->qp[QPN] = &qp;
	ctx->qp_hi = QPN + 1;
	/* Work before this test's: three WQEs, two sent, none done, so the
	 * low-latency rules never ring (every WQE before must be sent). */
	sq->tail = 3;
	sq->sent = 2;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (sc.db_sock >= 0)
		close(sc.db_sock);
	close(qp.db_fd);
	close(bell);
	free(cq->prod_page);
	free(cq->cons_page);
	free(cq);
	free(sq);
	free(ctx);
	return 0;
}

/* Doorbells that reached the address since the last call, each checked. */
static int rung(void)
{
	struct mrc_doorbell db;
	int n = 0;

	while (recv(bell, &db, sizeof(db), 0) == (ssize_t)sizeof(db)) {
		assert_int_equal(ntohl(db.magic), MRC_DOORBELL_MAGIC);
		assert_int_equal(db.qpn, QPN);
		assert_true(db.token == TOKEN);
		n++;
	}
	return n;
}

/* One zero-length WRITE: a WQE of its own, no region needed. */
static void post(void)
{
	struct ibv_send_wr wr = { .opcode = IBV_WR_RDMA_WRITE }, *bad;

	assert_int_equal(mrc_post_send(&qp, &wr, &bad), 0);
}

/* The eventfd's count since the last call. */
static uint64_t kicks(void)
{
	uint64_t n = 0;

	if (read(qp.db_fd, &n, sizeof(n)) != sizeof(n))
		return 0;
	return n;
}

static void served_posts_kick_mrcd(void **state)
{
	(void)state;
	post();
	post();
	assert_int_equal(rung(), 0);
	assert_int_equal(kicks(), 2);
}

static void unserved_posts_ring_each(void **state)
{
	(void)state;
	sq->no_pump = 1;
	post();
	post();
	post();
	assert_int_equal(rung(), 3);
	/* ...and mrcd's eventfd still, for the next one. */
	assert_int_equal(kicks(), 3);
	sq->no_pump = 0;
	post();
	assert_int_equal(rung(), 0);
	assert_int_equal(kicks(), 1);
}

static uint64_t coarse_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int poll_empty(void)
{
	struct ibv_wc wc;

	return mrc_poll_cq(cq, 1, &wc);
}

static void empty_poll_rings_work_left_unserved(void **state)
{
	uint64_t t0, t1;
	int k;

	(void)state;
	/* Served: an empty poll rings nothing, work or not. Each wait
	 * below counts from a clock read after the last poll, whose look
	 * was no later. */
	assert_int_equal(poll_empty(), 0);
	t1 = coarse_ns();
	assert_int_equal(rung(), 0);
	/* Unserved, with WQEs not done: one ring, once a millisecond has
	 * passed since the last look... */
	sq->no_pump = 1;
	while (coarse_ns() < t1 + 1000000ull)
		;
	t0 = coarse_ns();
	assert_int_equal(poll_empty(), 0);
	assert_int_equal(rung(), 1);
	/* ...and none more within a millisecond of it (checked when the
	 * polls all fell in it: the coarse clock moves a tick at a time). */
	for (k = 0; k < 100; k++)
		assert_int_equal(poll_empty(), 0);
	t1 = coarse_ns();
	if (t1 < t0 + 1000000ull)
		assert_int_equal(rung(), 0);
	else
		rung();
	/* A millisecond later the next empty poll rings again. */
	while (coarse_ns() < t1 + 1000000ull)
		;
	assert_int_equal(poll_empty(), 0);
	assert_int_equal(rung(), 1);
	/* All done: nothing to start. */
	sq->done = sq->tail;
	t1 = coarse_ns();
	while (coarse_ns() < t1 + 1000000ull)
		;
	assert_int_equal(poll_empty(), 0);
	assert_int_equal(rung(), 0);
	/* A QP not in RTS is not rung. */
	sq->tail++;
	qp.state = IBV_QPS_ERR;
	t1 = coarse_ns();
	while (coarse_ns() < t1 + 1000000ull)
		;
	assert_int_equal(poll_empty(), 0);
	assert_int_equal(rung(), 0);
}

/* A network namespace of our own with lo up: 0, or why not. */
static const char *own_netns(void)
{
	struct ifreq ifr = { 0 };
	int fd;

	if (unshare(CLONE_NEWNET) && unshare(CLONE_NEWUSER | CLONE_NEWNET))
		return strerror(errno);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return strerror(errno);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) == 0) {
			close(fd);
			return NULL;
		}
	}
	close(fd);
	return "lo could not be brought up";
}

int main(void)
{
	const char *why = own_netns();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(served_posts_kick_mrcd, setup,
						teardown),
		cmocka_unit_test_setup_teardown(unserved_posts_ring_each, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			empty_poll_rings_work_left_unserved, setup, teardown),
	};

	if (why) {
		printf("SKIP: no network namespace of our own: %s\n", why);
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
