// SPDX-License-Identifier: GPL-2.0
/*
 * mrc-perf client (client.h): sends the test to the server, sets up and
 * connects the QPs, runs each row with the server and reports.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "pattern.h"
#include "perf.h"
#include "report.h"
#include "timeline.h"

static void client_params(const struct perf_opts *o, struct sc_params *p)
{
	double limit_s = o->seconds;

	if (!o->seconds_set && (o->iters || o->test == TEST_LAT))
		limit_s = PERF_LAT_LIMIT_S;
	*p = (struct sc_params){
		.magic = PERF_MAGIC,
		.version = PERF_PROTO_VERSION,
		.test = o->test,
		.transport = o->transport,
		.qps = o->qps,
		.depth = o->depth,
		.rq_depth = rq_depth_for(o),
		.sge = o->sge,
		.slice_bytes = slice_bytes_for(o),
		.verify = o->verify,
		.imm = o->imm || o->test != TEST_BW,
		.mpr = o->mpr,
		.timeout = o->timeout,
		.retry_linear = o->retry_linear,
		.retry_exp = o->retry_exp,
		.mtu_bytes = o->mtu_bytes,
		.limit_ms = (uint64_t)(limit_s * 1000),
		.idle_us = o->idle_us,
	};
}

static int client_connect_qps(struct perf_client *c)
{
	struct sc_ready ready;
	int err;

	c->dev.ev_profile = c->o->ev_profile;
	c->dev.cc_profile = c->o->cc_profile;
	c->dev.dyn_mpr = c->o->dyn_mpr;
	c->dev.mpr_dest = c->o->mpr_dest;
	err = dev_setup(&c->dev, &c->params);
	if (err)
		return err;
	err = sc_recv_qps(c->fd, &c->dev);
	if (!err)
		err = sc_send_qps(c->fd, &c->dev);
	if (err) {
		pr_err("QP exchange with the server failed: %s",
		       strerror(-err));
		return err;
	}
	err = dev_connect_qps(&c->dev, &c->params);
	if (err)
		return err;
	err = sc_recv(c->fd, SC_READY, &ready, sizeof(ready),
		      PERF_IO_TIMEOUT_MS);
	if (err) {
		pr_err("the server did not get its QPs ready: %s",
		       strerror(-err));
		return err;
	}
	c->server_mem_per_qp_bytes = ready.mem_per_qp_bytes;
	return 0;
}

static int client_run_row(struct perf_client *c, struct sc_start *st,
			  struct row_result *res)
{
	struct perf_row r = {
		.size_bytes = st->size_bytes,
		.slots = st->slots,
		.pass = st->pass,
		.imm = c->params.imm,
	};
	uint64_t cpu0 = cpu_ns();
	int err;

	if (st->transport == XPORT_TCP)
		err = client_lat_tcp(c, st->size_bytes, st->iters, res);
	else if (c->o->test == TEST_LAT)
		err = client_lat_mrc(c, &r, st->iters, res);
	else
		err = client_writes(c, &r, res);
	if (!res->client_cpu_ns)
		res->client_cpu_ns = cpu_ns() - cpu0;
	return err;
}

static int client_row(struct perf_client *c, unsigned int transport,
		      uint64_t size, uint64_t pass, struct row_result *res)
{
	struct sc_start st = {
		.size_bytes = size,
		.slots = row_slots(c->o, size),
		.pass = pass,
		.transport = transport,
		.iters = c->o->iters ? c->o->iters : PERF_LAT_ITERS_DEFAULT,
	};
	struct sc_done done;
	int err, run_err;

	res->transport = transport;
	res->size_bytes = size;
	if (c->o->verify)
		pattern_fill(c->dev.buf, 0, c->dev.nqps * c->dev.slice_bytes,
			     pass);
	err = sc_send(c->fd, SC_START, &st, sizeof(st));
	if (!err)
		err = sc_recv(c->fd, SC_GO, NULL, 0, PERF_IO_TIMEOUT_MS);
	if (err) {
		pr_err("the server did not start the row: %s", strerror(-err));
		return err;
	}
	run_err = client_run_row(c, &st, res);
	/*
	 * A TCP ping-pong cut short leaves the server expecting pings, not
	 * DONE: the session cannot go on, and the client closes it.
	 */
	if (st.transport == XPORT_TCP && res->stopped)
		return run_err ? run_err : g_stop ? -EINTR : -ETIMEDOUT;
	done = (struct sc_done){ .msgs = res->msgs, .aborted = !!run_err };
	/* A first Ctrl-C ended the run; what the server saw still counts. */
	g_stop_waits_at = 2;
	err = sc_send(c->fd, SC_DONE, &done, sizeof(done));
	if (!err)
		err = sc_recv(c->fd, SC_RESULT, &res->srv, sizeof(res->srv),
			      run_err || c->dev.send_errors ?
				      PERF_ABORT_RESULT_MS :
				      c->params.limit_ms + PERF_IO_TIMEOUT_MS);
	g_stop_waits_at = 1;
	if (err)
		pr_err("no result from the server: %s", strerror(-err));
	return run_err ? run_err : err;
}

static int client_rows(struct perf_client *c)
{
	uint64_t sizes[64];
	unsigned int n = row_sizes(c->o, sizes, 64), i, t;
	int err = 0;

	c->rows = calloc(2 * n, sizeof(*c->rows));
	if (!c->rows)
		return -ENOMEM;
	for (i = 0; i < n && !err && !g_stop; i++) {
		for (t = XPORT_MRC; t <= XPORT_TCP && !err && !g_stop;
		     t <<= 1) {
			if (!(c->o->transport & t))
				continue;
			err = client_row(c, t, sizes[i], i + 1,
					 &c->rows[c->nrows++]);
		}
	}
	return err;
}

static bool row_failed(const struct perf_opts *o, const struct row_result *r)
{
	if (r->srv.recv_errors || r->srv.send_errors || r->srv.bad_bytes)
		return true;
	if (o->test == TEST_RATE && r->srv.recv_msgs != r->msgs)
		return true;
	return o->test == TEST_BW && o->imm && r->srv.recv_msgs != r->msgs;
}

int client_main(const struct perf_opts *o)
{
	struct perf_client c = { .o = o, .fd = -1 };
	unsigned int i;
	int err;

	client_params(o, &c.params);
	if (o->timeline || o->nat) {
		c.dev.tl = tl_new(o->timeline, o->at, o->nat);
		if (!c.dev.tl)
			return 2;
	}
	c.fd = sock_connect(o->host, o->port, o->wait_s);
	if (c.fd < 0)
		return 1;
	err = sc_send(c.fd, SC_HELLO, &c.params, sizeof(c.params));
	if (!err && (o->transport & XPORT_MRC))
		err = client_connect_qps(&c);
	if (!err)
		err = client_rows(&c);
	if (err)
		sc_send(c.fd, SC_ABORT, NULL, 0);
	else
		sc_send(c.fd, SC_BYE, NULL, 0);
	for (i = 0; i < c.nrows; i++)
		if (row_failed(o, &c.rows[i]))
			c.failed = 1;
	if (o->json)
		print_json(&c, err);
	else if (c.nrows)
		print_human(&c);
	if (!o->json && c.dev.tl)
		tl_human(c.dev.tl, stdout);
	if (err == -EINTR || g_stop)
		pr_err("interrupted");
	else if (err)
		pr_err("the test failed: %s", strerror(-err));
	else if (c.failed)
		pr_err("errors: see the counts above");
	tl_free(c.dev.tl);
	c.dev.tl = NULL;
	dev_close(&c.dev);
	free(c.rows);
	close(c.fd);
	return err || c.failed || g_stop ? 1 : 0;
}
