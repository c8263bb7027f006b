// SPDX-License-Identifier: GPL-2.0
/*
 * mrcd's controller module (daemon/ctl.c) over the fake device with the
 * real health, links, objects and profiles below it: only a peer that held
 * CAP_NET_ADMIN gets in, port admin state reaches links, an EV profile's
 * EVs become a QP's and its denials reach the QPs using it, EV events go
 * to subscribers' queues (full queues count drops, told with the next),
 * and device probes go out, are answered once, and time out.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

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
#include "mrc/msg.h"
#include "mrc/mrcd_proto.h"

#define QPN 12u

static struct ctl ctl;
static struct objects obj;
static struct health health;
static struct links links;
static struct probe probe;
static struct mrcd_config cfg;
static struct dev dev;
static struct port_spec port[4];
static struct client admin, user;
static int admin_peer = -1; /* the controller's end of admin's connection */
static struct mrcd_req req;
static struct mrcd_rep rep;
static int live_calls[4], live_last[4];

static void on_live(void *ctx, int p, int live)
{
	(void)ctx;
	live_calls[p]++;
	live_last[p] = live;
}

static int setup(void **state)
{
	int sv[2];

	(void)state;
	fake_reset(4);
	config_defaults(&cfg);
	memset(&obj, 0, sizeof(obj));
	memset(live_calls, 0, sizeof(live_calls));
	assert_int_equal(fake_ports(port, &links, &dev), 0);
	links.live_changed = on_live;
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
	assert_int_equal(
		socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	memset(&admin, 0, sizeof(admin));
	admin.conn.fd = sv[0];
	admin.net_admin = 1;
	admin.pid = 100;
	admin_peer = sv[1];
	memset(&user, 0, sizeof(user));
	user.conn.fd = -1;
	user.pid = 200;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ctl_close(&ctl);
	health_close(&health);
	close(admin.conn.fd);
	close(admin_peer);
	fake_reset(0);
	return 0;
}

static int request(struct client *c, uint32_t op, int *fds, int *nfds)
{
	req.op = op;
	req.version = MRCD_PROTO_VERSION;
	memset(&rep, 0, sizeof(rep));
	*nfds = 0;
	return ctl_request(&ctl, c, &req, &rep, fds, nfds);
}

static void only_the_controller(void **state)
{
	int fds[2], nfds;
	uint32_t op;

	(void)state;
	for (op = MRCD_CTL_DEVICE; op <= MRCD_CTL_EVENTS_CLOSE; op++) {
		memset(&req, 0, sizeof(req));
		assert_int_equal(request(&user, op, fds, &nfds), EPERM);
		assert_int_equal(nfds, 0);
	}
	assert_int_equal(fake.ncmd + fake.nprobe, 0);
	memset(&req, 0, sizeof(req));
	assert_int_equal(request(&admin, MRCD_CTL_DEVICE, fds, &nfds), 0);
	assert_int_equal(rep.ctl_device.phy_port_mask, 0x1e); /* ports 1-4 */
}

static void port_admin_state(void **state)
{
	int fds[2], nfds;

	(void)state;
	memset(&req, 0, sizeof(req));
	req.ctl_port.h.id = 3;
	req.ctl_port.h.modify = 1;
	req.ctl_port.h.mask = MRC_CTL_PORT_ADMIN_STATE;
	req.ctl_port.attr.port_admin_state = MRC_CTL_PORT_ADMIN_DISABLED;
	assert_int_equal(request(&admin, MRCD_CTL_PORT, fds, &nfds), 0);
	assert_int_equal(links.admin[2], MRC_CTL_PORT_ADMIN_DISABLED);
	assert_int_equal(live_calls[2], 1);
	assert_int_equal(live_last[2], 0);
	assert_false(links_port_live(&links, 2));
	/* Read back. */
	req.ctl_port.h.modify = 0;
	assert_int_equal(request(&admin, MRCD_CTL_PORT, fds, &nfds), 0);
	assert_int_equal(rep.ctl_port.attr.port_admin_state,
			 MRC_CTL_PORT_ADMIN_DISABLED);
	/* No port 0 or 5, no other attribute, no third state. */
	req.ctl_port.h.modify = 1;
	req.ctl_port.h.id = 0;
	assert_int_equal(request(&admin, MRCD_CTL_PORT, fds, &nfds), EINVAL);
	req.ctl_port.h.id = 5;
	assert_int_equal(request(&admin, MRCD_CTL_PORT, fds, &nfds), EINVAL);
	req.ctl_port.h.id = 1;
	req.ctl_port.h.mask = 1 << 5;
	assert_int_equal(request(&admin, MRCD_CTL_PORT, fds, &nfds), EINVAL);
	req.ctl_port.h.mask = MRC_CTL_PORT_ADMIN_STATE;
	req.ctl_port.attr.port_admin_state = 7;
	assert_int_equal(request(&admin, MRCD_CTL_PORT, fds, &nfds), EINVAL);
	assert_int_equal(links.admin[0], MRC_CTL_PORT_ADMIN_ENABLED);
}

/* Format 1 (UDP, 16 bits) and EV profile 1, explicit, its field 0xc000
 * with the low 12 bits the EV's: entry i is compact value 848 + i, source
 * port 50000 + i, on port i % 4 + 1; ONLINE. */
static void profile_online(uint32_t count)
{
	struct mrc_ctl_ev_fmt_field w16[] = { { 16 } };
	struct mrc_ctl_ev_field f[] = {
		{ .width = 16, .init_val = 0xc000, .mask = 0x0fff }
	};
	struct mrc_ctl_ev_fmt_profile_attr fa = { 0 };
	struct mrc_ctl_ev_profile_attr a = { 0 };
	uint32_t i;

	fa.profile_state = MRC_CTL_PROFILE_OFFLINE;
	fa.ev_fmt_mode = MRC_CTL_EV_FMT_MODE_UDP;
	fa.ev_fmt_op.op = MRC_CTL_EV_FMT_OP_MODIFY_FIELDS;
	fa.ev_fmt_op.fmt_fields = w16;
	fa.ev_fmt_op.fmt_field_count = 1;
	assert_int_equal(prof_fmt_modify(&ctl.prof, 1, &fa,
					 MRC_CTL_EV_FMT_PROFILE_STATE |
						 MRC_CTL_EV_FMT_PROFILE_MODE |
						 MRC_CTL_EV_FMT_PROFILE_OP),
			 0);
	fa.profile_state = MRC_CTL_PROFILE_ONLINE;
	assert_int_equal(prof_fmt_modify(&ctl.prof, 1, &fa,
					 MRC_CTL_EV_FMT_PROFILE_STATE),
			 0);
	a.profile_state = MRC_CTL_PROFILE_OFFLINE;
	a.ev_mode = MRC_CTL_EV_MODE_EXP;
	a.ev_fmt_profile_id = 1;
	a.ev_count = count;
	a.ev_min_active = 1;
	a.ev_event_mask = MRC_CTL_EV_GOOD | MRC_CTL_EV_ASSUMED_BAD;
	a.ev_fields_op.op = MRC_CTL_EV_FIELDS_OP_MODIFY_FIELDS;
	a.ev_fields_op.fields = f;
	a.ev_fields_op.field_count = 1;
	assert_int_equal(
		prof_ev_modify(&ctl.prof, 1, &a,
			       MRC_CTL_EV_PROFILE_STATE |
				       MRC_CTL_EV_PROFILE_MODE |
				       MRC_CTL_EV_PROFILE_FMT_ID |
				       MRC_CTL_EV_PROFILE_COUNT |
				       MRC_CTL_EV_PROFILE_EV_FIELDS_OP),
		0);
	for (i = 0; i < count; i++) {
		struct mrc_ctl_ev_op_entry e = { .state = MRC_CTL_EV_GOOD };
		struct mrc_ctl_ev_profile_attr o = { 0 };
		uint32_t v = 848 + i;

		memcpy(e.ev_new.val, &v, sizeof(v));
		e.ev_new.port = (uint8_t)(i % 4 + 1);
		o.ev_op.op = MRC_CTL_EV_OP_REPLACE_EV;
		o.ev_op.entries = &e;
		o.ev_op.entry_count = 1;
		assert_int_equal(prof_ev_modify(&ctl.prof, 1, &o,
						MRC_CTL_EV_PROFILE_EV_OP),
				 0);
	}
	a.profile_state = MRC_CTL_PROFILE_ONLINE;
	assert_int_equal(prof_ev_modify(&ctl.prof, 1, &a,
					MRC_CTL_EV_PROFILE_STATE |
						MRC_CTL_EV_PROFILE_MIN_ACTIVE |
						MRC_CTL_EV_PROFILE_EVENT_MASK),
			 0);
}

/* QP QPN of user's, INIT with EV profile 1 and then RTS with its EVs. */
static void qp_on_profile(uint32_t count)
{
	struct dev_qp_attr a = { .qpn = QPN, .nev = 99 };
	uint32_t i;

	obj.qp[QPN].owner = &user;
	obj.qp[QPN].state = MRC_QPS_INIT;
	assert_int_equal(ctl_qp_hold(&ctl, QPN, 1, 0), 0);
	assert_int_equal(ctl.prof.ev[1].users, 1);
	assert_int_equal(ctl_qp_evs(&ctl, QPN, &a), 0);
	assert_int_equal(a.evs_given, 1);
	assert_int_equal(a.nev, count);
	for (i = 0; i < count; i++) {
		assert_int_equal(a.ev[i], 50000 + i);
		assert_int_equal(a.ev_port[i], i % 4);
	}
	fake.qp_exists[QPN] = 1;
	assert_int_equal(dev_qp_config(&dev, &a, MRC_QPS_RTS, DEV_QP_TX), 0);
	obj.qp[QPN].state = MRC_QPS_RTS;
	obj.qp[QPN].nev = count;
	health_qp_open(&health, QPN);
	health_qp_state(&health, QPN, MRC_QPS_RTS, count);
}

static void profile_evs_and_denials(void **state)
{
	struct mrc_ctl_ev_op_entry *e = &req.ctl_evp.entries[0];
	struct dev_qp_attr a = { .qpn = QPN };
	int fds[2], nfds;
	uint32_t v = 848 + 2; /* 50002 */

	(void)state;
	/* Without INIT (no profile held) there are no EVs to give. */
	assert_int_equal(ctl_qp_evs(&ctl, QPN, &a), EINVAL);
	profile_online(8);
	qp_on_profile(8);
	/* RTS on a disabled port: its EVs start out of use. */
	links.admin[3] = MRC_CTL_PORT_ADMIN_DISABLED;
	ctl_qp_started(&ctl, QPN);
	assert_int_equal(fake_cmds(MRC_DP_EV_BAD, QPN, 3), 1);
	assert_int_equal(fake_cmds(MRC_DP_EV_BAD, QPN, 7), 1);
	assert_int_equal(fake.ncmd, 2);
	/* The controller denies entry 2 (50002 on port 3): EV 2 of every
	 * QP on the profile; then allows it again. */
	memset(&req, 0, sizeof(req));
	req.ctl_evp.h.id = 1;
	req.ctl_evp.h.modify = 1;
	req.ctl_evp.h.mask = MRC_CTL_EV_PROFILE_EV_OP;
	req.ctl_evp.attr.ev_op.op = MRC_CTL_EV_OP_MODIFY_EV_STATE;
	req.ctl_evp.attr.ev_op.entry_count = 1;
	memcpy(e->ev.val, &v, sizeof(v));
	e->ev.port = 3;
	e->state = MRC_CTL_EV_DENIED;
	assert_int_equal(request(&admin, MRCD_CTL_EV_PROFILE, fds, &nfds), 0);
	assert_int_equal(fake_cmds(MRC_DP_EV_DENY, QPN, 2), 1);
	assert_int_equal(fake.view[QPN].ev_state[2], MRC_EV_DENIED);
	/* Asked again: already denied, nothing more. */
	assert_int_equal(request(&admin, MRCD_CTL_EV_PROFILE, fds, &nfds), 0);
	assert_int_equal(fake_cmds(MRC_DP_EV_DENY, QPN, 2), 1);
	e->state = MRC_CTL_EV_GOOD;
	assert_int_equal(request(&admin, MRCD_CTL_EV_PROFILE, fds, &nfds), 0);
	assert_int_equal(fake_cmds(MRC_DP_EV_ALLOW, QPN, 2), 1);
	/* The QP lets go of its profile at RESET. */
	ctl_qp_release(&ctl, QPN);
	assert_int_equal(ctl.prof.ev[1].users, 0);
	assert_false(obj.qp[QPN].prof_held);
}

/* A subscriber's queue of cqe records: its mapping and eventfd. */
static struct mrcd_evq *subscribe(uint32_t cqe, int *efd, size_t *len)
{
	int fds[2], nfds;
	void *p;

	memset(&req, 0, sizeof(req));
	req.ctl_events.cqe = cqe;
	assert_int_equal(request(&admin, MRCD_CTL_EVENTS, fds, &nfds), 0);
	assert_int_equal(nfds, 2);
	*len = sizeof(struct mrcd_evq) + 16 * sizeof(struct mrcx_ev_event);
	p = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
	assert_true(p != MAP_FAILED);
	close(fds[0]);
	*efd = fds[1];
	/* Sealed: the controller cannot shrink it under mrcd. */
	assert_int_not_equal(ftruncate(fds[0], 0), 0);
	return p;
}

static void events_reach_subscribers(void **state)
{
	struct mrc_ev_event v = { .qpn = QPN,
				  .ev = 50001,
				  .ev_idx = 1,
				  .port = 1,
				  .type = MRC_EVT_STATE,
				  .state = MRC_EV_ASSUMED_BAD,
				  .old_state = MRC_EV_GOOD,
				  .reason = MRC_EV_R_LOSS };
	struct mrcd_evq *q;
	uint64_t n = 0;
	size_t len;
	int efd, k;

	(void)state;
	profile_online(8);
	qp_on_profile(8);
	q = subscribe(16, &efd, &len);
	assert_int_equal(q->size, 16);
	ctl_ev_event(&ctl, &v);
	assert_int_equal(q->prod, 1);
	assert_int_equal(read(efd, &n, sizeof(n)), sizeof(n));
	assert_int_equal(n, 1);
	assert_int_equal(q->rec[0].base.profile_id, 1);
	assert_int_equal(q->rec[0].qpn, QPN);
	assert_int_equal(q->rec[0].ev_idx, 1);
	assert_int_equal(q->rec[0].base.ev.port, 2); /* 1-based */
	assert_int_equal(q->rec[0].reason, MRC_EV_R_LOSS);
	/* Kept in use (no change of state): no event. */
	v.state = v.old_state;
	ctl_ev_event(&ctl, &v);
	assert_int_equal(q->prod, 1);
	/* The controller reads nothing: 15 more fill it, 5 are dropped and
	 * the next one that fits says so. */
	v.state = MRC_EV_ASSUMED_BAD;
	for (k = 0; k < 20; k++)
		ctl_ev_event(&ctl, &v);
	assert_int_equal(q->prod, 16);
	ctl_ev_dropped(&ctl, 2); /* and two the data path lost */
	q->cons = 16;
	ctl_ev_event(&ctl, &v);
	assert_int_equal(q->prod, 17);
	assert_int_equal(q->rec[0].base.drop_count, 7);
	/* A bogus cons only makes the queue look full. */
	q->cons = 1u << 30;
	ctl_ev_event(&ctl, &v);
	assert_int_equal(q->prod, 17);
	/* Closing: another client cannot, the owner can. */
	memset(&req, 0, sizeof(req));
	req.obj.idx = 0;
	{
		int fds[2], nfds;
		struct client other = { .net_admin = 1, .conn.fd = -1 };

		assert_int_equal(request(&other, MRCD_CTL_EVENTS_CLOSE, fds,
					 &nfds),
				 ENOENT);
		assert_true(ctl_client_busy(&ctl, &admin));
		assert_int_equal(
			request(&admin, MRCD_CTL_EVENTS_CLOSE, fds, &nfds), 0);
		assert_false(ctl_client_busy(&ctl, &admin));
	}
	munmap(q, len);
	close(efd);
}

/* Reads the reply the probe batch got on admin's connection. */
static int probe_reply(struct mrcd_rep *r)
{
	int fds[MRC_MSG_MAX_FDS], nfds;
	ssize_t n = mrc_msg_recv(admin_peer, r, sizeof(*r), fds, &nfds);

	return n == (ssize_t)sizeof(*r) ? 0 : -1;
}

static void device_probes(void **state)
{
	struct mrcd_ctl_probe *pr = &req.ctl_probe;
	struct mrc_probe_arm *arm = ctl.probe_arm;
	static struct mrcd_rep r;
	struct mrc_ev_event v = { .qpn = MRC_PROBE_QPN, .type = MRC_EVT_PROBE };
	uint32_t val = 51000, first;
	int fds[2], nfds, i;

	(void)state;
	memset(&req, 0, sizeof(req));
	pr->nreq = 2;
	pr->timeout_ns = 5000000;
	pr->tc = 3;
	for (i = 0; i < 2; i++) {
		pr->req[i].req_id = (uint16_t)(7 + i);
		pr->req[i].ev_fmt_mode = MRC_CTL_EV_FMT_MODE_UDP;
		memcpy(pr->req[i].req_ev.val, &val, sizeof(val));
		pr->req[i].req_ev.port = (uint8_t)(2 + i);
		/* The peer's GID: ::ffff:198.18.0.2 (plane 0). */
		pr->req[i].dgid.raw[10] = pr->req[i].dgid.raw[11] = 0xff;
		pr->req[i].dgid.raw[12] = 198;
		pr->req[i].dgid.raw[13] = 18;
		pr->req[i].dgid.raw[15] = 2;
	}
	assert_int_equal(request(&admin, MRCD_CTL_PROBE, fds, &nfds), -1);
	assert_int_equal(fake.nprobe, 2);
	first = fake.probe[0].seq;
	for (i = 0; i < 2; i++) {
		assert_int_equal(fake.probe[i].dqpn, MRC_PROBE_QPN);
		assert_int_equal(fake.probe[i].port, 1 + i);
		assert_int_equal(fake.probe[i].sport, 51000);
		assert_int_equal(fake.probe[i].seq, first + i);
		assert_int_equal(fake.probe[i].tos, 3 << 2);
		/* The peer's address on that port's plane. */
		assert_int_equal(fake.probe[i].addr[2], 16 * (1 + i));
	}
	/* Only this batch's answers are taken by the receive program. */
	assert_int_equal(arm->seq_lo, first);
	assert_int_equal(arm->seq_hi, first + 2);
	/* One batch at a time. */
	assert_int_equal(request(&admin, MRCD_CTL_PROBE, fds, &nfds), EAGAIN);
	/* Answers: a stranger's number and a repeat change nothing. */
	v.seq = first + 5;
	ctl_probe_answer(&ctl, &v);
	v.seq = first + 1;
	v.rtt_ns = 12345;
	v.ifindex = 22;
	ctl_probe_answer(&ctl, &v);
	ctl_probe_answer(&ctl, &v);
	assert_true(ctl_client_busy(&ctl, &admin));
	v.seq = first;
	ctl_probe_answer(&ctl, &v);
	assert_int_equal(probe_reply(&r), 0);
	assert_int_equal(r.err, 0);
	assert_int_equal(r.ctl_probe.nreq, 2);
	assert_int_equal(r.ctl_probe.rsp[0].req_id, 8);
	assert_int_equal(r.ctl_probe.rsp[0].rtt, 12345);
	assert_int_equal(r.ctl_probe.rsp[0].port, 3); /* ifindex 22 */
	assert_int_equal(r.ctl_probe.rsp[1].req_id, 7);
	assert_false(ctl_client_busy(&ctl, &admin));
	assert_int_equal(arm->seq_hi, arm->seq_lo); /* closed */
	/* A batch nobody answers times out with what it has. */
	assert_int_equal(request(&admin, MRCD_CTL_PROBE, fds, &nfds), -1);
	ctl_tick(&ctl);
	assert_true(ctl_client_busy(&ctl, &admin));
	fake.now_ns += 5000000;
	ctl_tick(&ctl);
	assert_int_equal(probe_reply(&r), 0);
	assert_int_equal(r.err, ETIMEDOUT);
	assert_int_equal(r.ctl_probe.nreq, 0);
	/* Bad batches: no port, a duplicate id, a flow label on UDP. */
	pr->req[0].req_ev.port = 9;
	assert_int_equal(request(&admin, MRCD_CTL_PROBE, fds, &nfds), EINVAL);
	pr->req[0].req_ev.port = 2;
	pr->req[1].req_id = pr->req[0].req_id;
	assert_int_equal(request(&admin, MRCD_CTL_PROBE, fds, &nfds), EINVAL);
	pr->req[1].req_id = 99;
	val = 0x10000 | 51000;
	memcpy(pr->req[1].req_ev.val, &val, sizeof(val));
	assert_int_equal(request(&admin, MRCD_CTL_PROBE, fds, &nfds), EINVAL);
	assert_int_equal(fake.nprobe, 4);
}

static void client_gone_frees_its_waits(void **state)
{
	struct mrcd_evq *q;
	size_t len;
	int efd, fds[2], nfds;
	uint32_t val = 51000;

	(void)state;
	q = subscribe(16, &efd, &len);
	memset(&req, 0, sizeof(req));
	req.ctl_probe.nreq = 1;
	req.ctl_probe.timeout_ns = 1000000;
	req.ctl_probe.req[0].ev_fmt_mode = MRC_CTL_EV_FMT_MODE_UDP;
	memcpy(req.ctl_probe.req[0].req_ev.val, &val, sizeof(val));
	req.ctl_probe.req[0].req_ev.port = 1;
	req.ctl_probe.req[0].dgid.raw[10] = 0xff;
	req.ctl_probe.req[0].dgid.raw[11] = 0xff;
	req.ctl_probe.req[0].dgid.raw[12] = 198;
	req.ctl_probe.req[0].dgid.raw[13] = 18;
	assert_int_equal(request(&admin, MRCD_CTL_PROBE, fds, &nfds), -1);
	assert_true(ctl_client_busy(&ctl, &admin));
	ctl_drop_client(&ctl, &admin);
	assert_false(ctl_client_busy(&ctl, &admin));
	assert_int_equal(ctl.probe_arm->seq_hi, ctl.probe_arm->seq_lo);
	/* Its batch's deadline passes: no reply to a client that is gone. */
	fake.now_ns += 2000000;
	ctl_tick(&ctl);
	munmap(q, len);
	close(efd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(only_the_controller, setup,
						teardown),
		cmocka_unit_test_setup_teardown(port_admin_state, setup,
						teardown),
		cmocka_unit_test_setup_teardown(profile_evs_and_denials, setup,
						teardown),
		cmocka_unit_test_setup_teardown(events_reach_subscribers, setup,
						teardown),
		cmocka_unit_test_setup_teardown(device_probes, setup, teardown),
		cmocka_unit_test_setup_teardown(client_gone_frees_its_waits,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
