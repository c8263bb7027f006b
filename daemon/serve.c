// SPDX-License-Identifier: GPL-2.0
/*
 * mrcd's answers to applications: every request checks that the objects it
 * names belong to the asking connection, creates or changes them on the
 * soft device, and replies with an errno value and, where the application
 * must map something, the map's file descriptor.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "books.h"
#include "clients.h"
#include "clock.h"
#include "config.h"
#include "ctl.h"
#include "dev.h"
#include "health.h"
#include "links.h"
#include "log.h"
#include "objects.h"
#include "peer.h"
#include "pin.h"
#include "plane.h"
#include "pump.h"
#include "serve.h"
#include "mrc/msg.h"

static int reply(struct client *c, struct mrcd_rep *rep, const int *fds,
		 int nfds)
{
	return mrc_msg_send(c->conn.fd, rep, sizeof(*rep), fds, nfds);
}

/* 0 if c owns slot idx of table (of n), else ENOENT or EPERM. */
static int owns(struct client *const *table, uint32_t n, uint32_t idx,
		const struct client *c)
{
	if (idx >= n || !table[idx])
		return ENOENT;
	return table[idx] == c ? 0 : EPERM;
}

static int qp_owned(struct serve *s, uint32_t qpn, const struct client *c)
{
	const struct qp_ent *q = objects_qp(s->obj, qpn);

	if (!q)
		return ENOENT;
	return q->owner == c ? 0 : EPERM;
}

static int free_slot(struct client *const *table, uint32_t from, uint32_t n)
{
	uint32_t i;

	for (i = from; i < n; i++)
		if (!table[i])
			return i;
	return -1;
}

static uint32_t port_mtu(const struct serve *s, int i)
{
	uint32_t mtu = 0;
	int up;

	dev_link_state(s->port[i].ifname, &mtu, &up);
	return mtu;
}

/*
 * Payload bytes per packet at most: what every port's IP MTU carries after
 * the headers, and what a live frame holds. Read at each use, so a port's
 * MTU changed at run time counts for the QPs set up after.
 */
static uint32_t max_payload(const struct serve *s)
{
	uint32_t max = DEV_PAYLOAD_MAX, mtu, over = MRC_DATA_OVERHEAD(s->v6);
	int i;

	for (i = 0; i < s->nports; i++) {
		mtu = port_mtu(s, i);
		if (mtu < over + 64)
			return 64;
		if (mtu - over < max)
			max = mtu - over;
	}
	return max;
}

static int do_hello(struct serve *s, const struct client *c,
		    struct mrcd_rep *rep)
{
	struct mrcd_dev_info *h = &rep->hello;
	uint32_t i;

	h->session = c->session;
	h->nports = s->nports;
	h->max_qp = MRC_MAX_QP - 2;
	h->max_mr = MRC_MAX_MR;
	h->max_cq = MRC_MAX_CQ;
	h->max_sq_depth = MRC_SQ_DEPTH;
	h->max_mtu = max_payload(s);
	h->max_window = MRC_RX_WINDOW_MAX;
	h->mr_chunk = MRC_MR_CHUNK;
	h->lowlat = s->lowlat;
	for (i = 0; i < (uint32_t)s->nports; i++) {
		struct mrc_port p;

		int err = dev_port_get(s->dev, i, &p);

		if (err)
			return -err;
		plane_gid(p.saddr, p.v6, h->gid[i]);
		memcpy(h->mac[i], p.smac, 6);
		int up = 0;

		dev_link_state(s->port[i].ifname, &h->port_mtu[i], &up);
		/* A port the controller disabled reports down. */
		h->port_up[i] =
			(uint32_t)(up && s->links->admin[i] ==
						 MRC_CTL_PORT_ADMIN_ENABLED);
	}
	return 0;
}

static int do_pd_free(struct serve *s, struct client *c, uint32_t pd)
{
	int err = owns(s->obj->pd_owner, MRCD_MAX_PD, pd, c);
	uint32_t i;

	if (err)
		return err;
	for (i = 0; i < MRC_MAX_QP; i++)
		if (s->obj->qp[i].owner && s->obj->qp[i].pd == pd)
			return EBUSY;
	for (i = 0; i < MRC_MAX_MR; i++)
		if (s->obj->mr_owner[i] && s->obj->mr_pd[i] == pd)
			return EBUSY;
	s->obj->pd_owner[pd] = NULL;
	return 0;
}

/*
 * Bytes of regions the connections of uid hold: region maps are kernel
 * memory mrcd allocates, so without a bound one unprivileged user could
 * take the host's memory (and hold mrcd's loop for seconds zeroing it).
 */
static uint64_t mr_bytes_of_uid(struct serve *s, uint32_t uid)
{
	struct mrc_mr_info info;
	uint64_t sum = 0;
	uint32_t i;

	for (i = 0; i < MRC_MAX_MR; i++)
		if (s->obj->mr_owner[i] && s->obj->mr_owner[i]->uid == uid &&
		    !dev_mr_info(s->dev, i, &info))
			sum += info.len;
	return sum;
}

/* What one user may register in all: half the host's memory. */
static uint64_t mr_limit_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);

	return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size / 2 :
				       (uint64_t)MRC_MR_CHUNK * 1024;
}

static int do_mr_reg(struct serve *s, struct client *c,
		     const struct mrcd_mr_req *r, struct mrcd_rep *rep, int *fd)
{
	struct dev_mr mr;
	int idx, err = owns(s->obj->pd_owner, MRCD_MAX_PD, r->pd, c);

	if (err)
		return err;
	if (!r->len || r->len > (uint64_t)MRC_MR_CHUNK * 65536 ||
	    r->head >= 4096 || r->va < r->head)
		return EINVAL;
	if (r->len + r->head > mr_limit_bytes() ||
	    mr_bytes_of_uid(s, c->uid) + r->len + r->head > mr_limit_bytes())
		return ENOMEM;
	idx = free_slot(s->obj->mr_owner, 0, MRC_MAX_MR);
	if (idx < 0)
		return ENOMEM;
	/* The map starts at the page the buffer starts in. */
	err = dev_mr_create(s->dev, idx, r->len + r->head, r->pd,
			    r->va - r->head, r->head, &mr);
	if (err)
		return -err;
	/* mrcd needs no view of it: the application maps the fd. */
	munmap(mr.map, mr.map_len);
	mr.map = NULL;
	*fd = mr.fd;
	s->obj->mr_owner[idx] = c;
	s->obj->mr_pd[idx] = r->pd;
	rep->mr.idx = idx;
	rep->mr.key = mr.key;
	rep->mr.map_len = mr.map_len;
	return 0;
}

static void mr_free(struct serve *s, uint32_t idx)
{
	dev_mr_remove(s->dev, idx);
	s->obj->mr_owner[idx] = NULL;
}

/* fd[0]: the completion ring; fd[1]: its notify word (dev_cq_map). */
static int do_cq_create(struct serve *s, struct client *c, struct mrcd_rep *rep,
			int fd[2])
{
	int idx = free_slot(s->obj->cq_owner, 0, MRC_MAX_CQ);

	if (idx < 0)
		return ENOMEM;
	fd[0] = dev_cq_map(s->dev, idx, &fd[1]);
	if (fd[0] < 0)
		return -fd[0];
	s->obj->cq_owner[idx] = c;
	rep->obj.idx = idx;
	return 0;
}

static int do_cq_destroy(struct serve *s, struct client *c, uint32_t idx)
{
	int err = owns(s->obj->cq_owner, MRC_MAX_CQ, idx, c);
	uint32_t i;

	if (err)
		return err;
	for (i = 0; i < MRC_MAX_QP; i++)
		if (s->obj->qp[i].owner && (s->obj->qp[i].send_cq == idx ||
					    s->obj->qp[i].recv_cq == idx))
			return EBUSY;
	dev_cq_remove(s->dev, idx);
	s->obj->cq_owner[idx] = NULL;
	return 0;
}

static int do_qp_create(struct serve *s, struct client *c,
			const struct mrcd_qp_create *r, struct mrcd_rep *rep,
			int fds[2])
{
	struct qp_ent *q;
	uint32_t qpn;
	int err;

	err = owns(s->obj->pd_owner, MRCD_MAX_PD, r->pd, c);
	if (!err)
		err = owns(s->obj->cq_owner, MRC_MAX_CQ, r->send_cq, c);
	if (!err)
		err = owns(s->obj->cq_owner, MRC_MAX_CQ, r->recv_cq, c);
	if (err)
		return err;
	/* QP numbers 0 and 1 are special in verbs; start at 2. */
	for (qpn = 2; qpn < MRC_MAX_QP && s->obj->qp[qpn].owner; qpn++)
		;
	if (qpn == MRC_MAX_QP)
		return ENOMEM;
	q = &s->obj->qp[qpn];
	memset(q, 0, sizeof(*q));
	q->db_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (q->db_fd < 0)
		return errno;
	err = dev_sq_create(s->dev, qpn, &q->sq, &fds[0]);
	if (err) {
		close(q->db_fd);
		return -err;
	}
	if (getrandom(&q->db_token, sizeof(q->db_token), 0) < 0)
		q->db_token = now_ns() * 0x9e3779b97f4a7c15ull;
	err = -pump_qp_add(s->pump, qpn, q->sq, q->db_fd);
	if (err) {
		close(fds[0]);
		close(q->db_fd);
		dev_qp_destroy(s->dev, qpn, q->sq);
		return err;
	}
	if (s->pin_dir) {
		/* A restarted mrcd maps the queue again from the pin. */
		err = -dev_pin_sq(s->pin_dir, qpn, fds[0]);
		if (err) {
			pump_qp_del(s->pump, qpn);
			close(fds[0]);
			close(q->db_fd);
			dev_qp_destroy(s->dev, qpn, q->sq);
			return err;
		}
	}
	fds[1] = q->db_fd;
	q->owner = c;
	health_qp_open(s->health, qpn);
	q->pd = r->pd;
	q->send_cq = r->send_cq;
	q->recv_cq = r->recv_cq;
	q->state = MRC_QPS_RESET;
	rep->qp.qpn = qpn;
	rep->qp.db_token = q->db_token;
	return 0;
}

static void qp_free(struct serve *s, uint32_t qpn)
{
	struct qp_ent *q = &s->obj->qp[qpn];

	pump_qp_del(s->pump, qpn);
	if (q->db_fd >= 0)
		close(q->db_fd);
	q->db_fd = -1;
	dev_qp_destroy(s->dev, qpn, q->sq);
	if (s->pin_dir)
		dev_pin_sq(s->pin_dir, qpn, -1);
	health_qp_close(s->health, qpn);
	peer_qp_state(s->peer, qpn, MRC_QPS_RESET, 0, NULL, 0, 0, 0);
	ctl_qp_release(s->ctl, qpn);
	q->owner = NULL;
	q->sq = NULL;
	books_qp(s->books, qpn);
}

/* The data path's view of a QP from what the application asked for. */
static int qp_attr(struct serve *s, const struct qp_ent *q,
		   const struct mrcd_qp_modify *r, struct dev_qp_attr *a)
{
	int err;

	if (r->mtu < 64 || r->mtu > max_payload(s) || !r->window_rx ||
	    r->window_rx > MRC_RX_WINDOW_MAX ||
	    r->window_tx > MRC_RX_WINDOW_MAX || r->retry_linear > 7 ||
	    r->retry_exp > MRC_RETRY_INFINITE || r->peer_qpn >= 1u << 24)
		return EINVAL;
	memset(a, 0, sizeof(*a));
	a->qpn = r->qpn;
	a->peer_qpn = r->peer_qpn;
	a->pd = q->pd;
	a->send_cq = q->send_cq;
	a->recv_cq = q->recv_cq;
	a->mtu = r->mtu;
	a->window = r->window_rx;
	a->window_tx = r->window_tx;
	a->retry_linear = r->retry_linear;
	a->retry_exp = r->retry_exp;
	a->max_wimm = r->max_wimm;
	a->timeout_ns = r->timeout_ns;
	a->first_psn = r->sq_psn & MRC_BTH_PSN_MASK;
	a->peer_first_psn = r->rq_psn & MRC_BTH_PSN_MASK;
	a->v6 = s->v6;
	/* EV profile 0: a block of MRC_QP_EVS source ports per QP from
	 * auto-ev-base, wrapping before 65536. */
	a->ev_base = (uint16_t)(s->cfg->auto_ev_base +
				(r->qpn % ((65536 - s->cfg->auto_ev_base) /
					   MRC_QP_EVS)) *
					MRC_QP_EVS);
	a->nev = s->cfg->auto_evs_per_port * (uint32_t)s->nports;
	a->reorder_ns = s->cfg->reorder_us * 1000u;
	a->ack_every = s->cfg->ack_every;
	if (a->nev > MRC_QP_EVS)
		a->nev = MRC_QP_EVS;
	a->db_token = q->db_token;
	err = ctl_qp_evs(s->ctl, r->qpn, a); /* an EV profile's EVs instead */
	if (err)
		return err;
	/* SRv6 headers take room from the payload (docs/wire.md): the
	 * outer header, and an SRH if any route has a second segment. */
	if (a->srv6) {
		static const uint8_t zero[16];
		uint32_t enc = MRC_SRV6_OUTER_LEN, i;

		for (i = 0; i < a->nev && i < MRC_QP_EVS; i++)
			if (memcmp(a->route[i].seg, zero, 16))
				enc = MRC_SRV6_ENCAP_MAX;
		if (max_payload(s) < 64 + enc)
			return EINVAL;
		if (a->mtu + enc > max_payload(s))
			a->mtu = max_payload(s) - enc;
	}
	err = plane_peer_addrs(s->port, s->nports, r->peer_gid, a->peer_addr);
	return err ? -err : 0;
}

static int do_qp_modify(struct serve *s, struct client *c,
			const struct mrcd_qp_modify *r)
{
	struct dev_qp_attr a;
	struct qp_ent *q;
	int err = qp_owned(s, r->qpn, c);

	if (err)
		return err;
	q = &s->obj->qp[r->qpn];
	switch (r->state) {
	case MRC_QPS_INIT:
		if (q->state != MRC_QPS_RESET && q->state != MRC_QPS_INIT)
			return EINVAL;
		/* Its profiles are held from here: they cannot go away. */
		err = ctl_qp_hold(s->ctl, r->qpn, r->ev_profile_id,
				  r->cc_profile_id);
		break;
	case MRC_QPS_RTR:
		if (q->state != MRC_QPS_INIT)
			return EINVAL;
		err = qp_attr(s, q, r, &a);
		if (!err)
			err = -dev_qp_config(s->dev, &a, MRC_QPS_RTR,
					     DEV_QP_RX);
		break;
	case MRC_QPS_RTS:
		if (q->state == MRC_QPS_RTS) {
			/* RTS to RTS: the responder varies its MPR (dynamic
			 * MPR in effect, EINVAL otherwise). */
			err = -peer_qp_mpr(s->peer, r->qpn, r->window_rx);
			break;
		}
		if (q->state != MRC_QPS_RTR)
			return EINVAL;
		err = qp_attr(s, q, r, &a);
		if (!err)
			err = -dev_qp_config(s->dev, &a, MRC_QPS_RTS,
					     DEV_QP_TX);
		q->timeout_ns = a.timeout_ns;
		q->nev = a.nev;
		q->peer_qpn = r->peer_qpn;
		memcpy(q->peer_gid, r->peer_gid, 16);
		if (!err)
			ctl_qp_started(s->ctl, r->qpn);
		break;
	case MRC_QPS_ERR:
		err = -dev_qp_set_state(s->dev, r->qpn, MRC_QPS_ERR);
		if (!err && q->sq->state != MRC_QPS_ERR) {
			/* No WR failed: name one that completed already. */
			q->sq->err_wqe = q->sq->done - 1;
			__atomic_store_n(&q->sq->state, MRC_QPS_ERR,
					 __ATOMIC_RELEASE);
		}
		break;
	case MRC_QPS_RESET:
		/* The application empties its own view of the queue too. */
		dev_qp_clear(s->dev, r->qpn);
		ctl_qp_release(s->ctl, r->qpn);
		q->sq->tail = q->sq->done = q->sq->err_wqe = q->sq->sent = 0;
		q->sq->state = MRC_QPS_RESET;
		break;
	default:
		return EINVAL;
	}
	if (!err)
		q->state = r->state;
	/* Into RTS or RESET, health starts every EV over. */
	health_qp_state(s->health, r->qpn, q->state, q->nev);
	if (!err && r->state != MRC_QPS_INIT)
		peer_qp_state(s->peer, r->qpn, q->state, r->peer_qpn,
			      r->peer_gid, !!(r->flags & MRCD_QPF_DYN_MPR),
			      r->window_rx, r->window_tx);
	/* Only a QP in RTS is pumped (the next pass drops any other). */
	if (q->state == MRC_QPS_RTS)
		pump_qp_rts(s->pump, r->qpn, q->timeout_ns);
	else
		pump_qp_stop(s->pump, r->qpn);
	return err;
}

static int do_qp_query(struct serve *s, struct client *c, uint32_t qpn,
		       struct mrcd_rep *rep)
{
	uint32_t state, una, next;
	int err = qp_owned(s, qpn, c);

	if (err)
		return err;
	if (s->obj->qp[qpn].state != MRC_QPS_RTS) {
		rep->qp_query.state = s->obj->qp[qpn].state;
		return 0;
	}
	err = dev_qp_tx_state(s->dev, qpn, &state, &una, &next);
	if (err)
		return -err;
	rep->qp_query.state = state;
	rep->qp_query.dyn_mpr = peer_qp_dyn(s->peer, qpn);
	rep->qp_query.una_psn = una;
	rep->qp_query.next_psn = next;
	return 0;
}

/* Whether c owns or waits for anything (RESUME needs a fresh connection). */
static int owns_anything(const struct serve *s, const struct client *c)
{
	return ctl_client_busy(s->ctl, c) || objects_owned_by(s->obj, c);
}

int serve_request(struct serve *s, struct client *c, const struct mrcd_req *req,
		  size_t len)
{
	const struct mrcd_ctl_hdr *h;
	struct mrcd_rep rep = {};
	int fds[2] = { -1, -1 }, nfds = 0, err, idx;

	_Static_assert(offsetof(struct mrcd_ctl_port, h) == 0 &&
			       offsetof(struct mrcd_ctl_fmt, h) == 0 &&
			       offsetof(struct mrcd_ctl_evp, h) == 0 &&
			       offsetof(struct mrcd_ctl_cc, h) == 0,
		       "a controller request starts with its header");
	/* Every request is a whole struct mrcd_req: nothing read is stale. */
	if (len != sizeof(*req) || req->version != MRCD_PROTO_VERSION) {
		rep.err = EPROTO;
		return reply(c, &rep, NULL, 0);
	}
	switch (req->op) {
	case MRCD_HELLO:
		err = do_hello(s, c, &rep);
		break;
	case MRCD_RESUME: {
		struct client *o =
			owns_anything(s, c) ?
				NULL :
				clients_resume(s->cl, c, req->resume.session);

		err = o ? 0 : ENOENT;
		if (o) {
			c = o; /* the connection is o's now */
			err = do_hello(s, c, &rep);
		}
		break;
	}
	case MRCD_QP_DOORBELL:
		err = qp_owned(s, req->obj.idx, c);
		if (!err) {
			fds[0] = fcntl(s->obj->qp[req->obj.idx].db_fd,
				       F_DUPFD_CLOEXEC, 0);
			err = fds[0] < 0 ? errno : 0;
		}
		nfds = err ? 0 : 1;
		break;
	case MRCD_PD_ALLOC:
		idx = free_slot(s->obj->pd_owner, 1, MRCD_MAX_PD);
		err = idx < 0 ? ENOMEM : 0;
		if (!err) {
			s->obj->pd_owner[idx] = c;
			rep.obj.idx = idx;
		}
		break;
	case MRCD_PD_FREE:
		err = do_pd_free(s, c, req->obj.idx);
		break;
	case MRCD_MR_REG:
		err = do_mr_reg(s, c, &req->mr, &rep, &fds[0]);
		nfds = err ? 0 : 1;
		break;
	case MRCD_MR_DEREG:
		err = owns(s->obj->mr_owner, MRC_MAX_MR, req->obj.idx, c);
		if (!err)
			mr_free(s, req->obj.idx);
		break;
	case MRCD_CQ_CREATE:
		err = do_cq_create(s, c, &rep, fds);
		nfds = err ? 0 : 2;
		break;
	case MRCD_CQ_DESTROY:
		err = do_cq_destroy(s, c, req->obj.idx);
		break;
	case MRCD_QP_CREATE:
		err = do_qp_create(s, c, &req->qp_create, &rep, fds);
		nfds = err ? 0 : 2;
		break;
	case MRCD_QP_MODIFY:
		err = do_qp_modify(s, c, &req->qp_modify);
		break;
	case MRCD_QP_QUERY:
		err = do_qp_query(s, c, req->obj.idx, &rep);
		break;
	case MRCD_QP_HEALTH:
		err = qp_owned(s, req->qp_health.qpn, c);
		if (!err)
			err = health_query(s->health, req->qp_health.qpn,
					   req->qp_health.after,
					   &rep.qp_health);
		break;
	case MRCD_QP_DESTROY:
		err = qp_owned(s, req->obj.idx, c);
		if (!err)
			qp_free(s, req->obj.idx);
		break;
	default:
		err = req->op >= MRCD_CTL_DEVICE &&
				      req->op <= MRCD_CTL_EVENTS_CLOSE ?
			      ctl_request(s->ctl, c, req, &rep, fds, &nfds) :
			      EOPNOTSUPP;
		if (err < 0)
			return 0; /* the reply goes out later */
	}
	rep.err = err;
	/* What the reply says is kept: the books first. */
	if (!rep.err)
		switch (req->op) {
		case MRCD_PD_ALLOC:
		case MRCD_PD_FREE:
		case MRCD_MR_REG:
		case MRCD_MR_DEREG:
		case MRCD_CQ_CREATE:
		case MRCD_CQ_DESTROY:
			books_objs(s->books);
			break;
		case MRCD_QP_CREATE:
			books_qp(s->books, rep.qp.qpn);
			break;
		case MRCD_QP_MODIFY:
			books_qp(s->books, req->qp_modify.qpn);
			break;
		}
	/*
	 * A query changes nothing; a modify one profile, booked even when
	 * refused: one that failed partway (an EV_OP's first entries, a CC
	 * profile the data path did not take) may have changed what the
	 * next mrcd must find, and the books take the live state.
	 */
	h = &req->ctl_port.h; /* each of the four starts with it */
	switch (req->op) {
	case MRCD_CTL_PORT:
	case MRCD_CTL_FMT:
	case MRCD_CTL_CC:
		if (h->modify)
			books_prof(s->books, -1);
		break;
	case MRCD_CTL_EV_PROFILE:
		if (h->modify && h->id < PROF_MAX_EV)
			books_prof(s->books, (int)h->id);
		break;
	}
	err = reply(c, &rep, fds, nfds);
	/* The application has its copies now (the doorbell stays ours). */
	if (nfds)
		close(fds[0]);
	if (nfds == 2 &&
	    (req->op == MRCD_CTL_EVENTS || req->op == MRCD_CQ_CREATE))
		close(fds[1]); /* a dup, or the device's inner map holds it */
	if (err)
		log_debug("client pid %u: reply: %s\n", c->pid, strerror(-err));
	return err;
}

void serve_drop_client(struct serve *s, struct client *c)
{
	uint32_t i;

	ctl_drop_client(s->ctl, c);
	for (i = 0; i < MRC_MAX_QP; i++)
		if (s->obj->qp[i].owner == c)
			qp_free(s, i);
	for (i = 0; i < MRC_MAX_MR; i++)
		if (s->obj->mr_owner[i] == c)
			mr_free(s, i);
	for (i = 0; i < MRC_MAX_CQ; i++)
		if (s->obj->cq_owner[i] == c) {
			dev_cq_remove(s->dev, i);
			s->obj->cq_owner[i] = NULL;
		}
	for (i = 0; i < MRCD_MAX_PD; i++)
		if (s->obj->pd_owner[i] == c)
			s->obj->pd_owner[i] = NULL;
	c->session = 0;
	books_objs(s->books);
	books_client(s->books, c);
}

int serve_adopt_qp(struct serve *s, uint32_t qpn)
{
	struct qp_ent *q = &s->obj->qp[qpn];
	int fd, err = 0;
	void *p;

	dev_sq_adopt(s->dev, qpn); /* a QP's, kept or dropped below */
	dev_qp_db_token(s->dev, qpn, q->db_token);
	fd = dev_pin_sq_get(s->pin_dir, qpn);
	if (fd < 0) {
		err = -fd;
		goto drop;
	}
	p = mmap(NULL, sizeof(struct mrc_sq), PROT_READ | PROT_WRITE,
		 MAP_SHARED, fd, 0);
	err = p == MAP_FAILED ? errno : 0;
	close(fd);
	if (err)
		goto drop;
	q->sq = p;
	/* The application keeps ringing its old doorbell until it resumes
	 * (MRCD_QP_DOORBELL hands it this one); the sweep serves it. */
	q->db_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	err = q->db_fd < 0 ? errno :
			     -pump_qp_add(s->pump, qpn, q->sq, q->db_fd);
	if (err)
		goto drop;
	/* The predecessor may have died pumping: posters would skip the
	 * doorbell for good. */
	__atomic_store_n(&q->sq->pumping, 0, __ATOMIC_SEQ_CST);
	health_qp_open(s->health, qpn);
	health_qp_state(s->health, qpn, q->state, q->nev);
	if (q->state == MRC_QPS_RTS) {
		struct mrc_qp_view v;

		pump_qp_rts(s->pump, qpn, q->timeout_ns);
		health_adopt_qp(s->health, qpn);
		/* A new token for its peer; dynamic MPR is not in the books
		 * and stays off (docs/controller.md). */
		if (!dev_qp_view(s->dev, qpn, &v))
			peer_qp_state(s->peer, qpn, MRC_QPS_RTS, q->peer_qpn,
				      q->peer_gid, 0, MRC_RX_WINDOW_MAX,
				      v.window);
		if (q->sq->tail != q->sq->done)
			pump_activate(s->pump, qpn);
	}
	return 0;
drop:
	log_info("QP %u: cannot take it over (send queue %s): freed\n", qpn,
		 strerror(err));
	qp_free(s, qpn);
	return err;
}
