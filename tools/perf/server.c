// SPDX-License-Identifier: GPL-2.0
/*
 * mrc-perf server (server.h).
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pattern.h"
#include "perf.h"
#include "post.h"
#include "server.h"

static int server_check_params(const struct sc_params *p)
{
	if (p->magic != PERF_MAGIC || p->version != PERF_PROTO_VERSION) {
		pr_err("the client speaks another protocol (version %" PRIu64
		       ")",
		       p->version);
		return -EPROTO;
	}
	if (p->test > TEST_LAT || !p->transport || p->transport > 3 ||
	    !p->qps || p->qps > PERF_MAX_QPS || !p->depth ||
	    p->depth > PERF_MAX_DEPTH || !p->sge || p->sge > PERF_MAX_SGE ||
	    !p->rq_depth || p->rq_depth > PERF_CQ_MAX ||
	    p->slice_bytes * p->qps > 2 * PERF_MAX_SIZE_BYTES ||
	    p->idle_us > 1000000) {
		pr_err("the client sent parameters out of range");
		return -EINVAL;
	}
	return 0;
}

/* --vary-mpr-dest: every QP's MPR as responder, RTS to RTS (dynamic MPR). */
static void server_vary_mpr(struct perf_server *s)
{
	struct ibv_qp_attr va = { .qp_state = IBV_QPS_RTS };
	struct mrc_qp_attr ma = { .mpr = { .mpr_dest = (uint8_t)s->vary_mpr } };
	unsigned int i;

	s->vary_at_ns = 0;
	s->vary_mpr = 0;
	for (i = 0; i < s->dev.nqps; i++)
		if (mrc_modify_qp(s->dev.qps[i].qp, &va, IBV_QP_STATE, &ma,
				  MRC_QP_MPR_DEST))
			pr_err("QP %u: MPR %u as responder: %s",
			       s->dev.qps[i].qpn, ma.mpr.mpr_dest,
			       strerror(errno));
}

/* Waits for DONE from the client; true when it came (or the link died). */
static bool server_done_pending(struct perf_server *s, unsigned int *spins)
{
	if ((++*spins & 1023) == 0) {
		if (s->vary_at_ns && now_ns() >= s->vary_at_ns)
			server_vary_mpr(s);
		return sc_pending(s->fd);
	}
	return false;
}

/* Polls the receive CQ until DONE arrives, then for the last few. */
static int server_poll_recvs(struct perf_server *s, uint64_t deadline,
			     struct sc_done *done, uint64_t *t_last)
{
	struct perf_dev *d = &s->dev;
	uint64_t grace;
	unsigned int spins = 0, empty = 0;
	int n, err;

	while (!server_done_pending(s, &spins)) {
		n = poll_recv(d, NULL);
		if (n < 0)
			return n;
		if (n)
			*t_last = now_ns();
		else
			idle(d, &empty);
		if ((spins & 1023) == 0 && (g_stop || now_ns() > deadline))
			return g_stop ? -EINTR : -ETIMEDOUT;
	}
	err = sc_recv(s->fd, SC_DONE, done, sizeof(*done), PERF_IO_TIMEOUT_MS);
	if (err)
		return err;
	grace = now_ns() + PERF_RECV_GRACE_MS * 1000000ull;
	while (recv_total(d) + d->recv_errors < done->msgs && !g_stop &&
	       now_ns() < grace) {
		n = poll_recv(d, NULL);
		if (n < 0)
			return n;
		if (n)
			*t_last = now_ns();
		else
			idle(d, &empty);
	}
	return 0;
}

/* Answers every WRITE_IMM that arrives with one of its own. */
static int server_pong(struct perf_server *s, const struct perf_row *r,
		       uint64_t deadline, struct sc_done *done)
{
	struct perf_dev *d = &s->dev;
	struct ibv_wc wc[PERF_POLL_BATCH];
	unsigned int spins = 0, empty = 0;
	int n, i, err;

	row_reset_qps(d, d->depth);
	while (!server_done_pending(s, &spins)) {
		n = poll_recv(d, wc);
		if (n < 0)
			return n;
		for (i = 0; i < n; i++) {
			struct perf_qp *q = &d->qps[wc[i].wr_id];

			if (wc[i].status != IBV_WC_SUCCESS)
				continue;
			err = wait_room(d, q, deadline);
			if (!err)
				err = qp_post_writes(d, q, r, 1,
						     be32toh(wc[i].imm_data),
						     false);
			if (err)
				return err;
		}
		if (!n && (spins & 63) == 0 && poll_send(d) < 0)
			return -EIO;
		if (!n)
			idle(d, &empty);
		if ((spins & 1023) == 0 && (g_stop || now_ns() > deadline))
			return g_stop ? -EINTR : -ETIMEDOUT;
	}
	return sc_recv(s->fd, SC_DONE, done, sizeof(*done), PERF_IO_TIMEOUT_MS);
}

static void server_verify(struct perf_server *s, const struct sc_start *st,
			  struct sc_result *res)
{
	struct perf_dev *d = &s->dev;
	uint64_t used = st->slots * st->size_bytes;
	unsigned int i;

	for (i = 0; i < d->nqps; i++) {
		res->bad_bytes += pattern_bad_bytes(d->buf, d->qps[i].slice_off,
						    used, st->pass);
		res->checked_bytes += used;
	}
}

static int server_row(struct perf_server *s, const struct sc_start *st)
{
	uint64_t deadline = now_ns() + s->params.limit_ms * 1000000ull +
			    PERF_IO_TIMEOUT_MS * 1000000ull;
	struct perf_row r = { .size_bytes = st->size_bytes,
			      .slots = st->slots,
			      .pass = st->pass,
			      .imm = true };
	struct sc_result res = { 0 };
	struct sc_done done = { 0 };
	struct perf_dev *d = &s->dev;
	uint64_t cpu0, t0, t_last;
	int err;

	if (st->transport == XPORT_MRC) {
		row_reset_qps(d, d->depth);
		d->send_errors = d->recv_errors = d->rq_underflows = 0;
	}
	cpu0 = cpu_ns();
	t0 = t_last = now_ns();
	if (s->vary_mpr && !s->vary_at_ns)
		s->vary_at_ns = t0 + s->vary_after_ns;
	err = sc_send(s->fd, SC_GO, NULL, 0);
	if (err)
		return err;
	if (st->transport == XPORT_TCP)
		err = server_echo_tcp(s, st, deadline, &done);
	else if (s->params.test == TEST_LAT)
		err = server_pong(s, &r, deadline, &done);
	else if (s->params.imm)
		err = server_poll_recvs(s, deadline, &done, &t_last);
	else {
		/* Nothing to poll (WRITEs complete nowhere here): wait
		 * for DONE, doing --vary-mpr-dest on its time. */
		while (s->vary_at_ns && !sc_pending(s->fd) && !g_stop) {
			if (now_ns() >= s->vary_at_ns)
				server_vary_mpr(s);
			else
				usleep(1000);
		}
		err = sc_recv(s->fd, SC_DONE, &done, sizeof(done),
			      s->params.limit_ms + PERF_IO_TIMEOUT_MS);
	}
	if (err)
		return err;
	res.cpu_ns = cpu_ns() - cpu0;
	res.elapsed_ns = t_last - t0;
	if (st->transport == XPORT_MRC) {
		res.recv_msgs = recv_total(d);
		res.recv_errors = d->recv_errors;
		res.recv_first_status = d->recv_first_status;
		res.send_errors = d->send_errors;
		res.send_first_status = d->send_first_status;
		res.rq_underflows = d->rq_underflows;
		if (s->params.verify && !done.aborted)
			server_verify(s, st, &res);
	}
	return sc_send(s->fd, SC_RESULT, &res, sizeof(res));
}

static int server_rows(struct perf_server *s)
{
	struct sc_start st;
	enum sc_type type;
	size_t len;
	int err;

	for (;;) {
		len = sizeof(st);
		err = sc_recv_any(s->fd, &type, &st, &len,
				  PERF_IDLE_TIMEOUT_MS);
		if (err)
			return err;
		if (type == SC_BYE)
			return 0;
		if (type != SC_START || len != sizeof(st) || !st.size_bytes ||
		    st.size_bytes > s->params.slice_bytes || !st.slots ||
		    st.slots * st.size_bytes > s->params.slice_bytes ||
		    !(st.transport & s->params.transport))
			return -EPROTO;
		err = server_row(s, &st);
		if (err)
			return err;
	}
}

static int server_session(struct perf_server *s)
{
	struct sc_ready ready = { 0 };
	int err;

	err = sc_recv(s->fd, SC_HELLO, &s->params, sizeof(s->params),
		      PERF_IO_TIMEOUT_MS);
	if (err) {
		pr_err("no valid hello from the client: %s", strerror(-err));
		return err;
	}
	err = server_check_params(&s->params);
	if (err)
		return err;
	if (s->params.transport & XPORT_MRC) {
		err = dev_setup(&s->dev, &s->params);
		if (!err)
			err = sc_send_qps(s->fd, &s->dev);
		if (!err)
			err = sc_recv_qps(s->fd, &s->dev);
		if (!err)
			err = dev_connect_qps(&s->dev, &s->params);
		if (err)
			return err;
		ready.mem_per_qp_bytes = s->dev.mem_per_qp_bytes;
		err = sc_send(s->fd, SC_READY, &ready, sizeof(ready));
		if (err)
			return err;
	}
	return server_rows(s);
}

int server_main(const struct perf_opts *o)
{
	struct perf_server s = { .fd = -1 };
	int lfd, err;

	s.dev.ev_profile = o->ev_profile;
	s.dev.cc_profile = o->cc_profile;
	s.dev.dyn_mpr = o->dyn_mpr;
	s.dev.mpr_dest = o->mpr_dest;
	s.vary_mpr = o->vary_mpr;
	s.vary_after_ns = (uint64_t)(o->vary_after_s * 1e9);

	lfd = sock_listen(o->host, o->port);
	if (lfd < 0)
		return 1;
	if (!o->json)
		fprintf(stderr, "mrc-perf: waiting for a client on port %s\n",
			o->port);
	s.fd = sock_accept(lfd, (uint64_t)(o->wait_s * 1000));
	close(lfd);
	if (s.fd < 0) {
		pr_err("no client came: %s", strerror(-s.fd));
		return 1;
	}
	err = server_session(&s);
	if (err && err != -ECONNABORTED)
		sc_send(s.fd, SC_ABORT, NULL, 0);
	if (err == -EINTR)
		pr_err("interrupted");
	else if (err == -ECONNABORTED)
		pr_err("the client gave up");
	else if (err)
		pr_err("session failed: %s", strerror(-err));
	dev_close(&s.dev);
	close(s.fd);
	return err ? 1 : 0;
}
