// SPDX-License-Identifier: GPL-2.0
/*
 * mrcd's answers to applications (daemon/serve.c) over the fake device,
 * with the real clients, objects, controller, health and pump below it
 * and the books counted (they are bpffs): requests are whole or refused,
 * every object belongs to the connection that made it, a QP's states go
 * in order and reach health and the pump, what a reply says is in the
 * books first, and a client that leaves frees all it had.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "books.h"
#include "clients.h"
#include "config.h"
#include "ctl.h"
#include "fake_device.h"
#include "fake_ports.h"
#include "health.h"
#include "links.h"
#include "objects.h"
#include "plane.h"
#include "probe.h"
#include "pump.h"
#include "serve.h"
#include "mrc/msg.h"
#include "mrc/mrcd_proto.h"

/* ---- the books, counted ---------------------------------------------- */

static int booked_qp[MRC_MAX_QP], booked_objs, booked_client, booked_prof;
static int booked_prof_ev; /* books_prof's last ev_id */

void books_qp(struct books_ctx *bk, uint32_t qpn)
{
	(void)bk;
	booked_qp[qpn]++;
}

void books_objs(struct books_ctx *bk)
{
	(void)bk;
	booked_objs++;
}

void books_client(struct books_ctx *bk, const struct client *c)
{
	(void)bk;
	(void)c;
	booked_client++;
}

void books_prof(struct books_ctx *bk, int ev_id)
{
	(void)bk;
	booked_prof++;
	booked_prof_ev = ev_id;
}

/* ---- the modules ----------------------------------------------------- */

static struct serve s;
static struct dev dev;
static struct objects obj;
static struct clients cl;
static struct ctl ctl;
static struct health health;
static struct pump pump;
static struct links links;
static struct probe probe;
static struct loop loop;
static struct books_ctx books;
static struct mrcd_config cfg;
static struct port_spec port[4];
/* Two applications: a and b, each a connected socket pair. */
static struct client *a, *b;
static int a_peer, b_peer;
static struct mrcd_req req;
static struct mrcd_rep rep;
static int rep_fds[MRC_MSG_MAX_FDS], rep_nfds;

static void unused_ready(struct loop_fd *h)
{
	(void)h;
	fail(); /* the tests call serve_request themselves */
}

/* A connection in slot, registered with the loop as clients.c does. */
static struct client *connect_client(uint32_t slot, uint32_t pid, int *peer)
{
	struct client *c = &cl.client[slot];
	int sv[2];

	assert_int_equal(
		socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(loop_add(&loop, &c->conn, sv[0], unused_ready), 0);
	c->pid = pid;
	c->uid = 1000 + pid;
	c->session = 0x1001 + 2 * (uint64_t)pid;
	*peer = sv[1];
	return c;
}

static int setup(void **state)
{
	(void)state;
	fake_reset(4);
	config_defaults(&cfg);
	memset(&obj, 0, sizeof(obj));
	memset(booked_qp, 0, sizeof(booked_qp));
	booked_objs = booked_client = booked_prof = 0;
	booked_prof_ev = -2;
	assert_int_equal(fake_ports(port, &links, &dev), 0);
	assert_int_equal(loop_init(&loop), 0);
	clients_init(&cl, &loop);
	assert_int_equal(pump_init(&pump, &dev, &loop, 1, 0), 0);
	memset(&health, 0, sizeof(health)); /* *_init take zeroed storage */
	memset(&ctl, 0, sizeof(ctl));
	assert_int_equal(health_init(&health, &dev, &probe, &links, &cfg), 0);
	{
		const struct ctl_deps d = { .dev = &dev,
					    .obj = &obj,
					    .health = &health,
					    .probe = &probe,
					    .links = &links,
					    .port = port,
					    .nports = 4 };

		assert_int_equal(ctl_init(&ctl, &d), 0);
	}
	s = (struct serve){ .dev = &dev,
			    .obj = &obj,
			    .cl = &cl,
			    .ctl = &ctl,
			    .health = &health,
			    .pump = &pump,
			    .books = &books,
			    .cfg = &cfg,
			    .links = &links,
			    .port = port,
			    .nports = 4 };
	a = connect_client(0, 10, &a_peer);
	b = connect_client(1, 20, &b_peer);
	return 0;
}

static void close_fds(void)
{
	int i;

	for (i = 0; i < rep_nfds; i++)
		close(rep_fds[i]);
	rep_nfds = 0;
}

static int teardown(void **state)
{
	int i;

	(void)state;
	close_fds();
	for (i = 0; i < MRCD_MAX_CLIENTS; i++)
		if (cl.client[i].conn.fd >= 0) {
			serve_drop_client(&s, &cl.client[i]);
			close(cl.client[i].conn.fd);
		}
	close(a_peer);
	close(b_peer);
	ctl_close(&ctl);
	health_close(&health);
	pump_close(&pump);
	loop_close(&loop);
	fake_reset(0);
	return 0;
}

/* c asks op; returns the reply's errno (the reply read off its socket). */
static int ask(struct client *c, uint32_t op)
{
	int peer = c == a ? a_peer : b_peer;
	ssize_t n;

	close_fds();
	req.op = op;
	req.version = MRCD_PROTO_VERSION;
	assert_int_equal(serve_request(&s, c, &req, sizeof(req)), 0);
	memset(&rep, 0, sizeof(rep));
	n = mrc_msg_recv(peer, &rep, sizeof(rep), rep_fds, &rep_nfds);
	assert_int_equal(n, sizeof(rep));
	return rep.err;
}

static uint32_t make_pd(struct client *c)
{
	memset(&req, 0, sizeof(req));
	assert_int_equal(ask(c, MRCD_PD_ALLOC), 0);
	return rep.obj.idx;
}

static uint32_t make_cq(struct client *c)
{
	memset(&req, 0, sizeof(req));
	assert_int_equal(ask(c, MRCD_CQ_CREATE), 0);
	assert_int_equal(rep_nfds, 2); /* its ring, its notify word */
	return rep.obj.idx;
}

static uint32_t make_qp(struct client *c, uint32_t pd, uint32_t cq)
{
	memset(&req, 0, sizeof(req));
	req.qp_create.pd = pd;
	req.qp_create.send_cq = cq;
	req.qp_create.recv_cq = cq;
	assert_int_equal(ask(c, MRCD_QP_CREATE), 0);
	assert_int_equal(rep_nfds, 2); /* its send queue, its doorbell */
	return rep.qp.qpn;
}

static int modify(struct client *c, uint32_t qpn, uint32_t state)
{
	memset(&req, 0, sizeof(req));
	req.qp_modify.qpn = qpn;
	req.qp_modify.state = state;
	req.qp_modify.mtu = 1024;
	req.qp_modify.window_rx = 64;
	req.qp_modify.timeout_ns = 5000000;
	req.qp_modify.peer_qpn = 77;
	/* The peer: ::ffff:198.18.0.2 */
	req.qp_modify.peer_gid[10] = req.qp_modify.peer_gid[11] = 0xff;
	req.qp_modify.peer_gid[12] = 198;
	req.qp_modify.peer_gid[13] = 18;
	req.qp_modify.peer_gid[15] = 2;
	return ask(c, MRCD_QP_MODIFY);
}

static void malformed_requests_refused(void **state)
{
	int fds[MRC_MSG_MAX_FDS], nfds;

	(void)state;
	memset(&req, 0, sizeof(req));
	req.op = MRCD_PD_ALLOC;
	req.version = MRCD_PROTO_VERSION + 1;
	assert_int_equal(serve_request(&s, a, &req, sizeof(req)), 0);
	assert_int_equal(mrc_msg_recv(a_peer, &rep, sizeof(rep), fds, &nfds),
			 sizeof(rep));
	assert_int_equal(rep.err, EPROTO);
	req.version = MRCD_PROTO_VERSION;
	assert_int_equal(serve_request(&s, a, &req, sizeof(req) - 1), 0);
	assert_int_equal(mrc_msg_recv(a_peer, &rep, sizeof(rep), fds, &nfds),
			 sizeof(rep));
	assert_int_equal(rep.err, EPROTO);
	assert_false(objects_owned_by(&obj, NULL));
	memset(&req, 0, sizeof(req));
	assert_int_equal(ask(a, 999), EOPNOTSUPP);
	assert_int_equal(booked_objs, 0);
}

static void objects_belong_to_their_maker(void **state)
{
	uint32_t pd, cq, qpn;

	(void)state;
	pd = make_pd(a);
	cq = make_cq(a);
	qpn = make_qp(a, pd, cq);
	assert_true(qpn >= 2); /* 0 and 1 are special in verbs */
	assert_int_equal(booked_qp[qpn], 1); /* before the reply */
	assert_int_equal(booked_objs, 2);
	/* b may not use, change or free any of them. */
	memset(&req, 0, sizeof(req));
	req.qp_create.pd = pd;
	req.qp_create.send_cq = req.qp_create.recv_cq = cq;
	assert_int_equal(ask(b, MRCD_QP_CREATE), EPERM);
	assert_int_equal(modify(b, qpn, MRC_QPS_INIT), EPERM);
	memset(&req, 0, sizeof(req));
	req.obj.idx = qpn;
	assert_int_equal(ask(b, MRCD_QP_DESTROY), EPERM);
	assert_int_equal(ask(b, MRCD_QP_DOORBELL), EPERM);
	assert_int_equal(ask(b, MRCD_QP_QUERY), EPERM);
	req.obj.idx = cq;
	assert_int_equal(ask(b, MRCD_CQ_DESTROY), EPERM);
	req.obj.idx = pd;
	assert_int_equal(ask(b, MRCD_PD_FREE), EPERM);
	/* Nothing there at all: ENOENT. */
	req.obj.idx = qpn + 1;
	assert_int_equal(ask(a, MRCD_QP_DESTROY), ENOENT);
	req.obj.idx = MRC_MAX_QP + 5;
	assert_int_equal(ask(a, MRCD_QP_QUERY), ENOENT);
	/* In use: a PD with a QP, a CQ with a QP. */
	req.obj.idx = pd;
	assert_int_equal(ask(a, MRCD_PD_FREE), EBUSY);
	req.obj.idx = cq;
	assert_int_equal(ask(a, MRCD_CQ_DESTROY), EBUSY);
	/* a's doorbell request gives a's QP's doorbell. */
	req.obj.idx = qpn;
	assert_int_equal(ask(a, MRCD_QP_DOORBELL), 0);
	assert_int_equal(rep_nfds, 1);
	assert_int_equal(ask(a, MRCD_QP_DESTROY), 0);
	assert_false(fake.qp_exists[qpn]);
	assert_int_equal(booked_qp[qpn], 2);
	req.obj.idx = cq;
	assert_int_equal(ask(a, MRCD_CQ_DESTROY), 0);
	req.obj.idx = pd;
	assert_int_equal(ask(a, MRCD_PD_FREE), 0);
	assert_false(objects_owned_by(&obj, NULL));
}

static void qp_states_in_order(void **state)
{
	uint32_t qpn = make_qp(a, make_pd(a), make_cq(a));

	(void)state;
	/* No skipping: RTR and RTS need the state before. */
	assert_int_equal(modify(a, qpn, MRC_QPS_RTR), EINVAL);
	assert_int_equal(modify(a, qpn, MRC_QPS_RTS), EINVAL);
	assert_int_equal(modify(a, qpn, MRC_QPS_INIT), 0);
	assert_int_equal(ctl.prof.ev[0].users, 1); /* holds EV profile 0 */
	assert_int_equal(modify(a, qpn, MRC_QPS_RTS), EINVAL);
	assert_int_equal(modify(a, qpn, MRC_QPS_RTR), 0);
	assert_false(pump.qp[qpn].rts);
	assert_false(health.qp[qpn].rts);
	assert_int_equal(modify(a, qpn, MRC_QPS_RTS), 0);
	/* RTS reaches the data path, health and the pump. */
	assert_int_equal(fake.view[qpn].state, MRC_QPS_RTS);
	assert_int_equal(fake.view[qpn].nev, 64); /* 16 per port */
	assert_int_equal(fake.view[qpn].peer_qpn, 77);
	assert_true(health.qp[qpn].rts);
	assert_int_equal(health.qp[qpn].nev, 64);
	assert_true(pump.qp[qpn].rts);
	assert_int_equal(pump.qp[qpn].timeout_ns, 5000000);
	assert_int_equal(obj.qp[qpn].state, MRC_QPS_RTS);
	/* A bad attribute is refused and changes nothing. */
	memset(&req, 0, sizeof(req));
	req.obj.idx = qpn;
	assert_int_equal(ask(a, MRCD_QP_QUERY), 0);
	assert_int_equal(rep.qp_query.state, MRC_QPS_RTS);
	/* ERR: the data path's state, and the queue says so. */
	assert_int_equal(modify(a, qpn, MRC_QPS_ERR), 0);
	assert_int_equal(fake.view[qpn].state, MRC_QPS_ERR);
	assert_int_equal(fake.sq[qpn]->state, MRC_QPS_ERR);
	assert_false(pump.qp[qpn].rts);
	/* RESET: empty again, its profiles let go. */
	assert_int_equal(modify(a, qpn, MRC_QPS_RESET), 0);
	assert_int_equal(fake.sq[qpn]->state, MRC_QPS_RESET);
	assert_int_equal(ctl.prof.ev[0].users, 0);
	assert_false(health.qp[qpn].rts);
	assert_int_equal(modify(a, qpn, 99), EINVAL);
}

static void bad_attributes_refused(void **state)
{
	uint32_t qpn = make_qp(a, make_pd(a), make_cq(a));

	(void)state;
	assert_int_equal(modify(a, qpn, MRC_QPS_INIT), 0);
	memset(&req, 0, sizeof(req));
	req.qp_modify.qpn = qpn;
	req.qp_modify.state = MRC_QPS_RTR;
	req.qp_modify.mtu = 1024;
	req.qp_modify.window_rx = 0; /* no window */
	assert_int_equal(ask(a, MRCD_QP_MODIFY), EINVAL);
	req.qp_modify.window_rx = MRC_RX_WINDOW_MAX + 1;
	assert_int_equal(ask(a, MRCD_QP_MODIFY), EINVAL);
	req.qp_modify.window_rx = 64;
	req.qp_modify.mtu = 63;
	assert_int_equal(ask(a, MRCD_QP_MODIFY), EINVAL);
	req.qp_modify.mtu = 1500; /* more than the ports' MTU carries */
	assert_int_equal(ask(a, MRCD_QP_MODIFY), EINVAL);
	req.qp_modify.mtu = 1024;
	req.qp_modify.peer_qpn = 1u << 24;
	assert_int_equal(ask(a, MRCD_QP_MODIFY), EINVAL);
	assert_int_equal(obj.qp[qpn].state, MRC_QPS_INIT);
}

static void regions_bounded(void **state)
{
	uint32_t pd = make_pd(a);

	(void)state;
	memset(&req, 0, sizeof(req));
	req.mr.pd = pd;
	req.mr.len = 0;
	assert_int_equal(ask(a, MRCD_MR_REG), EINVAL);
	req.mr.len = 1ull << 50;
	assert_int_equal(ask(a, MRCD_MR_REG), EINVAL);
	req.mr.len = 8192;
	req.mr.va = 0x10000;
	req.mr.head = 4096; /* a head is within its page */
	assert_int_equal(ask(a, MRCD_MR_REG), EINVAL);
	req.mr.head = 16;
	req.mr.va = 8; /* va before its own head */
	assert_int_equal(ask(a, MRCD_MR_REG), EINVAL);
	req.mr.va = 0x10010;
	assert_int_equal(ask(a, MRCD_MR_REG), 0);
	assert_int_equal(rep_nfds, 1);
	assert_int_equal(fake.mr_len[rep.mr.idx], 8192 + 16);
	/* b cannot deregister it; a can. */
	req.obj.idx = rep.mr.idx;
	assert_int_equal(ask(b, MRCD_MR_DEREG), EPERM);
	assert_int_equal(ask(a, MRCD_MR_DEREG), 0);
	assert_int_equal(fake.mr_len[req.obj.idx], 0);
	/* Another's PD: refused. */
	memset(&req, 0, sizeof(req));
	req.mr.pd = pd;
	req.mr.len = 4096;
	assert_int_equal(ask(b, MRCD_MR_REG), EPERM);
}

static void leaving_client_frees_everything(void **state)
{
	uint32_t pd = make_pd(b), cq = make_cq(b), qpn = make_qp(b, pd, cq);

	(void)state;
	assert_int_equal(modify(b, qpn, MRC_QPS_INIT), 0);
	assert_int_equal(modify(b, qpn, MRC_QPS_RTR), 0);
	assert_int_equal(modify(b, qpn, MRC_QPS_RTS), 0);
	make_pd(a);
	serve_drop_client(&s, b);
	assert_false(objects_owned_by(&obj, b));
	assert_true(objects_owned_by(&obj, a));
	assert_false(fake.qp_exists[qpn]);
	assert_false(health.qp[qpn].open);
	assert_false(pump.qp[qpn].rts);
	assert_int_equal(ctl.prof.ev[0].users, 0);
	assert_int_equal(b->session, 0);
}

static void resume_takes_an_orphans_objects(void **state)
{
	struct client *o = &cl.client[5];
	uint32_t pd;

	(void)state;
	/* A predecessor's client: booked, objects owned, no connection. */
	o->conn.fd = -1;
	o->orphan = 1;
	o->pid = b->pid;
	o->uid = b->uid;
	o->session = 0xabcd;
	cl.norphans = 1;
	obj.pd_owner[7] = o;
	/* a is another process: no. */
	memset(&req, 0, sizeof(req));
	req.resume.session = 0xabcd;
	assert_int_equal(ask(a, MRCD_RESUME), ENOENT);
	/* b with a wrong session: no. */
	req.resume.session = 0xabce;
	assert_int_equal(ask(b, MRCD_RESUME), ENOENT);
	/* b owning something already: no (resume needs a fresh one). */
	pd = make_pd(b);
	req.resume.session = 0xabcd;
	assert_int_equal(ask(b, MRCD_RESUME), ENOENT);
	memset(&req, 0, sizeof(req));
	req.obj.idx = pd;
	assert_int_equal(ask(b, MRCD_PD_FREE), 0);
	/* Now: the orphan's slot takes b's connection and answers HELLO. */
	req.resume.session = 0xabcd;
	req.op = MRCD_RESUME;
	req.version = MRCD_PROTO_VERSION;
	assert_int_equal(serve_request(&s, b, &req, sizeof(req)), 0);
	{
		int fds[MRC_MSG_MAX_FDS], nfds;

		assert_int_equal(mrc_msg_recv(b_peer, &rep, sizeof(rep), fds,
					      &nfds),
				 sizeof(rep));
	}
	assert_int_equal(rep.err, 0);
	assert_int_equal(rep.hello.session, 0xabcd);
	assert_int_equal(rep.hello.nports, 4);
	assert_false(o->orphan);
	assert_int_equal(cl.norphans, 0);
	assert_true(o->conn.fd >= 0);
	assert_int_equal(b->conn.fd, -1);
	/* The PD is the resumed connection's (b's socket) to free. */
	memset(&req, 0, sizeof(req));
	req.obj.idx = 7;
	assert_int_equal(ask(o, MRCD_PD_FREE), 0);
	assert_false(objects_owned_by(&obj, NULL));
}

/*
 * A controller's query books nothing; a modify books what it changed, an
 * EV profile by its id alone (the books once took all 64, 720 KB, at every
 * controller request), refused or not; a modify of no profile nothing.
 */
static void controller_changes_booked_in_part(void **state)
{
	(void)state;
	a->net_admin = 1;
	memset(&req, 0, sizeof(req));
	req.ctl_cc.h.id = 1;
	assert_int_equal(ask(a, MRCD_CTL_CC), 0);
	req.ctl_evp.h.id = 5;
	assert_int_equal(ask(a, MRCD_CTL_EV_PROFILE), 0);
	assert_int_equal(booked_prof, 0);

	memset(&req, 0, sizeof(req));
	req.ctl_port.h.id = 2;
	req.ctl_port.h.modify = 1;
	req.ctl_port.h.mask = MRC_CTL_PORT_ADMIN_STATE;
	req.ctl_port.attr.port_admin_state = MRC_CTL_PORT_ADMIN_DISABLED;
	assert_int_equal(ask(a, MRCD_CTL_PORT), 0);
	assert_int_equal(booked_prof, 1);
	assert_int_equal(booked_prof_ev, -1);

	memset(&req, 0, sizeof(req));
	req.ctl_evp.h.id = 5;
	req.ctl_evp.h.modify = 1;
	req.ctl_evp.h.mask = MRC_CTL_EV_PROFILE_EVENT_MASK;
	req.ctl_evp.attr.ev_event_mask = MRC_CTL_EV_GOOD;
	assert_int_equal(ask(a, MRCD_CTL_EV_PROFILE), 0);
	assert_int_equal(booked_prof, 2);
	assert_int_equal(booked_prof_ev, 5);

	/* Refused, it may have changed some of it (an EV_OP that fails
	 * partway): booked as it stands. */
	req.ctl_evp.h.mask = MRC_CTL_EV_PROFILE_EV_OP; /* INIT: no array */
	req.ctl_evp.attr.ev_op.op = MRC_CTL_EV_OP_MODIFY_EV_STATE;
	req.ctl_evp.attr.ev_op.entry_count = 1;
	assert_int_not_equal(ask(a, MRCD_CTL_EV_PROFILE), 0);
	assert_int_equal(booked_prof, 3);
	assert_int_equal(booked_prof_ev, 5);
	req.ctl_evp.h.id = PROF_MAX_EV; /* no such profile: nothing */
	assert_int_not_equal(ask(a, MRCD_CTL_EV_PROFILE), 0);
	assert_int_equal(booked_prof, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			controller_changes_booked_in_part, setup, teardown),
		cmocka_unit_test_setup_teardown(malformed_requests_refused,
						setup, teardown),
		cmocka_unit_test_setup_teardown(objects_belong_to_their_maker,
						setup, teardown),
		cmocka_unit_test_setup_teardown(qp_states_in_order, setup,
						teardown),
		cmocka_unit_test_setup_teardown(bad_attributes_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(regions_bounded, setup,
						teardown),
		cmocka_unit_test_setup_teardown(leaving_client_frees_everything,
						setup, teardown),
		cmocka_unit_test_setup_teardown(resume_takes_an_orphans_objects,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
