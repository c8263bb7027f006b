// SPDX-License-Identifier: GPL-2.0
/*
 * The controller API (mrc_ctl.h) and libmrc's controller extensions
 * (mrcx_ctl_*): each call is one request to mrcd, which checks that this
 * process held CAP_NET_ADMIN when it connected. Arrays travel inline in
 * the request; the EV event queue is a ring shared with mrcd.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"
#include "mrc_ctl.h"
#include "mrc_ext.h"

/* The controller API's convention: -1 with errno (the verbs one returns
 * the errno value). */
static int ctl_fail(int err)
{
	errno = err;
	return -1;
}

static const char *cc_algorithms[] = { "uet-1.0-nscc", NULL };

/* One request and reply, both too big for a thread's stack comfort. */
struct call {
	struct mrcd_req req;
	struct mrcd_rep rep;
};

static struct call *call_new(uint32_t op)
{
	struct call *c = calloc(1, sizeof(*c));

	if (c)
		c->req.op = op;
	return c;
}

/* Runs c on ctx's connection; returns 0 or -1 with errno, frees c. */
static int call_run(struct soft_ctx *sc, struct call *c,
		    int (*out)(void *, struct call *), void *arg)
{
	int err;

	if (!c)
		return ctl_fail(ENOMEM);
	err = soft_call(sc, &c->req, &c->rep, NULL, 0);
	if (out && (!err || err == E2BIG || err == ETIMEDOUT)) {
		int e2 = out(arg, c);

		if (!err)
			err = e2;
	}
	free(c);
	if (err == ECONNRESET || err == EPROTO)
		err = EIO; /* mrcd is gone or does not speak our protocol */
	return err ? ctl_fail(err) : 0;
}

static struct soft_ctx *sc_of(struct mrc_context *ctx)
{
	return ctx ? ctx->sc : NULL;
}

void mrc_ctl_query_version(uint32_t *current_version,
			   uint32_t *last_supported_version,
			   uint32_t *vendor_version,
			   uint32_t *last_supported_vendor_version)
{
	if (current_version)
		*current_version = MRC_CTL_API_CURRENT_VERSION;
	if (last_supported_version)
		*last_supported_version = MRC_CTL_API_LAST_SUPPORTED_VERSION;
	if (vendor_version)
		*vendor_version = MRC_CTL_VENDOR_API_CURRENT_VERSION;
	if (last_supported_vendor_version)
		*last_supported_vendor_version =
			MRC_CTL_VENDOR_API_LAST_SUPPORTED_VERSION;
}

/* ---- device ------------------------------------------------------------ */

static int device_out(void *arg, struct call *c)
{
	struct mrc_ctl_device_attr *a = arg;

	*a = c->rep.ctl_device;
	a->cc.algorithms = cc_algorithms;
	return 0;
}

int mrc_ctl_query_device_ex(struct ibv_context *context,
			    struct mrc_context *mcontext,
			    struct mrc_ctl_device_attr *ctl_attr,
			    int *supported)
{
	struct soft_ctx *sc;

	if (!ctl_attr || (!context && !mcontext))
		return ctl_fail(EINVAL);
	if (supported)
		*supported = 0;
	if (mcontext)
		sc = mcontext->sc;
	else if (soft_is_ours(context))
		sc = (struct soft_ctx *)context;
	else
		return ctl_fail(EOPNOTSUPP); /* not an mrc device */
	if (supported)
		*supported = 1;
	return call_run(sc, call_new(MRCD_CTL_DEVICE), device_out, ctl_attr);
}

int mrc_ctl_query_device(struct ibv_context *context,
			 struct mrc_ctl_device_attr *ctl_attr)
{
	return mrc_ctl_query_device_ex(context, NULL, ctl_attr, NULL);
}

/* ---- ports ------------------------------------------------------------- */

static int port_out(void *arg, struct call *c)
{
	*(struct mrc_ctl_port_attr *)arg = c->rep.ctl_port.attr;
	return 0;
}

static int port_call(struct mrc_context *ctx, uint8_t port, int modify,
		     struct mrc_ctl_port_attr *attr, int mask)
{
	struct call *c;

	if (!ctx || !attr)
		return ctl_fail(EINVAL);
	c = call_new(MRCD_CTL_PORT);
	if (c) {
		c->req.ctl_port.h.id = port;
		c->req.ctl_port.h.modify = (uint32_t)modify;
		c->req.ctl_port.h.mask = mask;
		c->req.ctl_port.attr = *attr;
	}
	return call_run(sc_of(ctx), c, modify ? NULL : port_out, attr);
}

int mrc_ctl_query_port(struct mrc_context *context, uint8_t port_num,
		       struct mrc_ctl_port_attr *attr, int attr_mask)
{
	return port_call(context, port_num, 0, attr, attr_mask);
}

int mrc_ctl_modify_port(struct mrc_context *context, uint8_t port_num,
			struct mrc_ctl_port_attr *attr, int attr_mask)
{
	return port_call(context, port_num, 1, attr, attr_mask);
}

/* ---- EV format profiles ------------------------------------------------ */

static int fmt_out(void *arg, struct call *c)
{
	struct mrc_ctl_ev_fmt_profile_attr *a = arg;
	const struct mrcd_ctl_fmt *o = &c->rep.ctl_fmt;
	struct mrc_ctl_ev_fmt_field *user = a->ev_fmt_op.fmt_fields;
	int n = o->attr.ev_fmt_op.fmt_field_count,
	    have = a->ev_fmt_op.fmt_field_count;

	a->profile_state = o->attr.profile_state;
	a->cur_profile_state = o->attr.cur_profile_state;
	a->ev_fmt_mode = o->attr.ev_fmt_mode;
	if (user && n > 0 && n <= have && n <= MRC_EV_FMT_MAX_FIELDS &&
	    !c->rep.err)
		memcpy(user, o->fields, (size_t)n * sizeof(*user));
	a->ev_fmt_op.fmt_field_count = n;
	return 0;
}

static int fmt_call(struct mrc_context *ctx, uint64_t id, int modify,
		    struct mrc_ctl_ev_fmt_profile_attr *attr, int mask)
{
	struct call *c;
	int n;

	if (!ctx || !attr)
		return ctl_fail(EINVAL);
	n = attr->ev_fmt_op.fmt_field_count;
	if ((mask & MRC_CTL_EV_FMT_PROFILE_OP) &&
	    (n < 0 || (n && !attr->ev_fmt_op.fmt_fields)))
		return ctl_fail(EINVAL);
	c = call_new(MRCD_CTL_FMT);
	if (c) {
		struct mrcd_ctl_fmt *r = &c->req.ctl_fmt;

		r->h.id = id;
		r->h.modify = (uint32_t)modify;
		r->h.mask = mask;
		r->attr = *attr;
		r->attr.ev_fmt_op.fmt_fields = NULL;
		if (modify && (mask & MRC_CTL_EV_FMT_PROFILE_OP) && n > 0 &&
		    attr->ev_fmt_op.op == MRC_CTL_EV_FMT_OP_MODIFY_FIELDS) {
			if (n > MRC_EV_FMT_MAX_FIELDS) {
				free(c);
				return ctl_fail(E2BIG);
			}
			memcpy(r->fields, attr->ev_fmt_op.fmt_fields,
			       (size_t)n * sizeof(r->fields[0]));
		}
	}
	return call_run(sc_of(ctx), c, modify ? NULL : fmt_out, attr);
}

int mrc_ctl_modify_ev_fmt_profile(struct mrc_context *mrc_ctx,
				  uint64_t ev_fmt_profile_id,
				  struct mrc_ctl_ev_fmt_profile_attr *attr,
				  int attr_mask)
{
	return fmt_call(mrc_ctx, ev_fmt_profile_id, 1, attr, attr_mask);
}

int mrc_ctl_query_ev_fmt_profile(struct mrc_context *mrc_ctx,
				 uint64_t ev_fmt_profile_id,
				 struct mrc_ctl_ev_fmt_profile_attr *attr,
				 int attr_mask)
{
	return fmt_call(mrc_ctx, ev_fmt_profile_id, 0, attr, attr_mask);
}

/* ---- EV profiles ------------------------------------------------------- */

struct evp_io {
	struct mrc_ctl_ev_profile_attr *a;
	int op_mask, fields_mask;
	int sent; /* entries sent in the request */
};

static int evp_out(void *arg, struct call *c)
{
	struct evp_io *io = arg;
	struct mrc_ctl_ev_profile_attr *a = io->a;
	const struct mrcd_ctl_evp *o = &c->rep.ctl_evp;
	int err = c->rep.err;

	a->profile_state = o->attr.profile_state;
	a->cur_profile_state = o->attr.cur_profile_state;
	a->ev_mode = o->attr.ev_mode;
	a->ev_fmt_profile_id = o->attr.ev_fmt_profile_id;
	a->ev_count = o->attr.ev_count;
	a->ev_min_active = o->attr.ev_min_active;
	a->ev_event_mask = o->attr.ev_event_mask;
	if (io->fields_mask) {
		int n = o->attr.ev_fields_op.field_count;

		if (!err && n > 0 && n <= MRC_EV_MAX_FIELDS &&
		    a->ev_fields_op.fields)
			memcpy(a->ev_fields_op.fields, o->fields,
			       (size_t)n * sizeof(o->fields[0]));
		a->ev_fields_op.field_count = n;
	}
	if (io->op_mask) {
		/* What mrcd used, or on E2BIG the length it needs. */
		int n = o->attr.ev_op.entry_count;

		if (!err && n > 0 && n <= io->sent)
			memcpy(a->ev_op.entries, o->entries,
			       (size_t)n * sizeof(o->entries[0]));
		if (!err || err == E2BIG)
			a->ev_op.entry_count = n;
	}
	return 0;
}

static int evp_call(struct mrc_context *ctx, uint64_t id, int modify,
		    struct mrc_ctl_ev_profile_attr *attr, int mask)
{
	struct evp_io io = { .a = attr };
	int n = 0, nf = 0;
	struct call *c;

	if (!ctx || !attr)
		return ctl_fail(EINVAL);
	io.op_mask = mask & MRC_CTL_EV_PROFILE_EV_OP;
	io.fields_mask = mask & MRC_CTL_EV_PROFILE_EV_FIELDS_OP;
	if (io.op_mask) {
		n = attr->ev_op.entry_count;
		if (n < 0 || (n && !attr->ev_op.entries))
			return ctl_fail(EINVAL);
		/* One call, one request: at most ev_op_max_entries entries
		 * to change (a query array may be longer; it gets what
		 * there is). */
		if (n > MRCD_CTL_OP_MAX) {
			if (modify ||
			    attr->ev_op.op != MRC_CTL_EV_OP_QUERY_EV_ARRAY)
				return ctl_fail(E2BIG);
			n = MRCD_CTL_OP_MAX;
		}
	}
	if (io.fields_mask) {
		nf = attr->ev_fields_op.field_count;
		if (nf < 0 || (nf && !attr->ev_fields_op.fields))
			return ctl_fail(EINVAL);
		if (nf > MRC_EV_MAX_FIELDS) {
			if (modify)
				return ctl_fail(E2BIG);
			nf = MRC_EV_MAX_FIELDS;
		}
	}
	c = call_new(MRCD_CTL_EV_PROFILE);
	if (c) {
		struct mrcd_ctl_evp *r = &c->req.ctl_evp;

		r->h.id = id;
		r->h.modify = (uint32_t)modify;
		r->h.mask = mask;
		r->attr = *attr;
		r->attr.ev_op.entries = NULL;
		r->attr.ev_fields_op.fields = NULL;
		r->attr.ev_op.entry_count = n;
		r->attr.ev_fields_op.field_count = nf;
		if (n)
			memcpy(r->entries, attr->ev_op.entries,
			       (size_t)n * sizeof(r->entries[0]));
		if (nf)
			memcpy(r->fields, attr->ev_fields_op.fields,
			       (size_t)nf * sizeof(r->fields[0]));
		io.sent = n;
	}
	return call_run(sc_of(ctx), c, evp_out, &io);
}

int mrc_ctl_modify_ev_profile(struct mrc_context *mrc_ctx,
			      uint64_t ev_profile_id,
			      struct mrc_ctl_ev_profile_attr *attr,
			      int attr_mask)
{
	return evp_call(mrc_ctx, ev_profile_id, 1, attr, attr_mask);
}

int mrc_ctl_query_ev_profile(struct mrc_context *mrc_ctx,
			     uint64_t ev_profile_id,
			     struct mrc_ctl_ev_profile_attr *attr,
			     int attr_mask)
{
	return evp_call(mrc_ctx, ev_profile_id, 0, attr, attr_mask);
}

/* ---- CC profiles ------------------------------------------------------- */

/* Where a queried CC profile's config lives: per attr, as documented. */
struct cc_store {
	struct mrc_ctl_cc_profile_attr *attr;
	struct mrc_ctl_cc_nscc_cfg cfg;
	struct cc_store *next;
};
static struct cc_store *cc_stores;
static pthread_mutex_t cc_lock = PTHREAD_MUTEX_INITIALIZER;

static struct mrc_ctl_cc_nscc_cfg *
cc_store_for(struct mrc_ctl_cc_profile_attr *attr)
{
	struct cc_store *s;

	pthread_mutex_lock(&cc_lock);
	for (s = cc_stores; s && s->attr != attr; s = s->next)
		;
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (s) {
			s->attr = attr;
			s->next = cc_stores;
			cc_stores = s;
		}
	}
	pthread_mutex_unlock(&cc_lock);
	return s ? &s->cfg : NULL;
}

static int cc_out(void *arg, struct call *c)
{
	struct mrc_ctl_cc_profile_attr *a = arg;
	const struct mrcd_ctl_cc *o = &c->rep.ctl_cc;
	struct mrc_ctl_cc_nscc_cfg *cfg;
	int i;

	a->profile_state = o->attr.profile_state;
	a->cur_profile_state = o->attr.cur_profile_state;
	a->algorithm = NULL;
	for (i = 0; cc_algorithms[i]; i++)
		if (!strcmp(o->algorithm, cc_algorithms[i]))
			a->algorithm = cc_algorithms[i];
	a->cc_config = NULL;
	if (a->algorithm) {
		cfg = cc_store_for(a);
		if (!cfg)
			return ENOMEM;
		*cfg = o->nscc;
		a->cc_config = cfg;
	}
	return 0;
}

static int cc_call(struct mrc_context *ctx, uint64_t id, int modify,
		   struct mrc_ctl_cc_profile_attr *attr, int mask)
{
	struct call *c;

	if (!ctx || !attr)
		return ctl_fail(EINVAL);
	if (modify && (mask & MRC_CTL_CC_PROFILE_ALGORITHM) &&
	    attr->algorithm &&
	    strlen(attr->algorithm) >= sizeof(c->req.ctl_cc.algorithm))
		return ctl_fail(EINVAL);
	c = call_new(MRCD_CTL_CC);
	if (c) {
		struct mrcd_ctl_cc *r = &c->req.ctl_cc;

		r->h.id = id;
		r->h.modify = (uint32_t)modify;
		r->h.mask = mask;
		r->attr = *attr;
		r->attr.algorithm = NULL;
		r->attr.cc_config = NULL;
		if (modify && (mask & MRC_CTL_CC_PROFILE_ALGORITHM)) {
			r->has_algorithm = 1;
			if (attr->algorithm)
				strcpy(r->algorithm, attr->algorithm);
		}
		if (modify && (mask & MRC_CTL_CC_PROFILE_CONFIG) &&
		    attr->cc_config)
			r->nscc = *(const struct mrc_ctl_cc_nscc_cfg *)
					   attr->cc_config;
	}
	return call_run(sc_of(ctx), c, modify ? NULL : cc_out, attr);
}

int mrc_ctl_modify_cc_profile(struct mrc_context *mrc_ctx,
			      uint64_t cc_profile_id,
			      struct mrc_ctl_cc_profile_attr *attr,
			      int attr_mask)
{
	return cc_call(mrc_ctx, cc_profile_id, 1, attr, attr_mask);
}

int mrc_ctl_query_cc_profile(struct mrc_context *mrc_ctx,
			     uint64_t cc_profile_id,
			     struct mrc_ctl_cc_profile_attr *attr,
			     int attr_mask)
{
	return cc_call(mrc_ctx, cc_profile_id, 0, attr, attr_mask);
}

/* ---- EV events --------------------------------------------------------- */

struct mrc_cq *mrc_ctl_create_ev_event_cq(struct mrc_context *mrc_ctx, int cqe,
					  void *cq_context,
					  struct mrc_comp_channel *channel,
					  int comp_vector)
{
	struct mrcd_req req = { .op = MRCD_CTL_EVENTS };
	struct mrcd_rep *rep = calloc(1, sizeof(*rep));
	struct mrc_cq *cq = calloc(1, sizeof(*cq));
	int fds[2] = { -1, -1 }, err;

	if (!rep || !cq) {
		err = ENOMEM;
		goto fail;
	}
	if (!mrc_ctx || cqe < 1 || cqe > 65536 || comp_vector != 0) {
		err = EINVAL;
		goto fail;
	}
	req.ctl_events.cqe = (uint32_t)cqe;
	err = soft_call(mrc_ctx->sc, &req, rep, fds, 2);
	if (err)
		goto fail;
	cq->idx = rep->obj.idx;
	cq->fd = fds[1];
	{
		struct mrcd_evq head;

		if (pread(fds[0], &head, sizeof(head), 0) != sizeof(head)) {
			err = EIO;
			goto fail_dev;
		}
		cq->evq_len =
			sizeof(head) + (size_t)head.size * sizeof(head.rec[0]);
	}
	cq->evq = mmap(NULL, cq->evq_len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       fds[0], 0);
	if (cq->evq == MAP_FAILED) {
		cq->evq = NULL;
		err = errno;
		goto fail_dev;
	}
	close(fds[0]);
	fds[0] = -1;
	err = cq_attach(mrc_ctx, cq, channel, cq_context);
	if (err)
		goto fail_dev;
	free(rep);
	return cq;
fail_dev:
	memset(&req, 0, sizeof(req));
	req.op = MRCD_CTL_EVENTS_CLOSE;
	req.obj.idx = cq->idx;
	soft_call(mrc_ctx->sc, &req, rep, NULL, 0);
fail:
	if (cq && cq->evq)
		munmap(cq->evq, cq->evq_len);
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	free(cq);
	free(rep);
	errno = err;
	return NULL;
}

int ctl_evq_destroy(struct mrc_cq *cq)
{
	struct mrcd_req req = { .op = MRCD_CTL_EVENTS_CLOSE };
	struct mrcd_rep *rep = calloc(1, sizeof(*rep));
	int err;

	if (!rep)
		return ctl_fail(ENOMEM);
	req.obj.idx = cq->idx;
	err = soft_call(cq->ctx->sc, &req, rep, NULL, 0);
	free(rep);
	if (err && err != ECONNRESET)
		return ctl_fail(err);
	cq_detach(cq);
	munmap(cq->evq, cq->evq_len);
	close(cq->fd);
	free(cq);
	return 0;
}

int mrcx_ctl_poll_ev_event(struct mrc_cq *ev_cq, int num_entries,
			   struct mrcx_ev_event *ev_event)
{
	struct mrcd_evq *q;
	uint64_t prod, cons, cnt;
	int n = 0;

	if (!ev_cq || !ev_cq->evq || num_entries < 0 ||
	    (num_entries && !ev_event))
		return -EINVAL;
	q = ev_cq->evq;
	pthread_mutex_lock(&ev_cq->lock);
	cons = q->cons;
	prod = __atomic_load_n(&q->prod, __ATOMIC_ACQUIRE);
	if (prod == cons) {
		/* Empty: clear the wakeup, then look once more (a record
		 * added in between has written the eventfd again). */
		if (read(ev_cq->fd, &cnt, sizeof(cnt)) < 0 && errno != EAGAIN)
			n = -errno;
		prod = __atomic_load_n(&q->prod, __ATOMIC_ACQUIRE);
	}
	if (prod - cons > q->size)
		n = -EIO; /* mrcd broke the ring: never happens */
	for (; n >= 0 && n < num_entries && cons != prod; n++, cons++)
		ev_event[n] = q->rec[cons & (q->size - 1)];
	__atomic_store_n(&q->cons, cons, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ev_cq->lock);
	return n;
}

int mrc_ctl_poll_ev_event(struct mrc_cq *ev_cq, int num_entries,
			  struct mrc_ctl_ev_event *ev_event)
{
	struct mrcx_ev_event x[16];
	int got = 0, n, i;

	if (num_entries < 0 || (num_entries && !ev_event))
		return -EINVAL;
	while (got < num_entries) {
		int want = num_entries - got > 16 ? 16 : num_entries - got;

		n = mrcx_ctl_poll_ev_event(ev_cq, want, x);
		if (n < 0)
			return got ? got : n;
		for (i = 0; i < n; i++)
			ev_event[got + i] = x[i].base;
		got += n;
		if (n < want)
			break;
	}
	return got;
}

/* ---- probes ------------------------------------------------------------ */

struct probe_io {
	struct mrc_ctl_ep_rsp *rsp;
	int *num_rsp;
};

static int probe_out(void *arg, struct call *c)
{
	struct probe_io *io = arg;
	uint32_t n = c->rep.ctl_probe.nreq;

	if (n > MRCD_CTL_PROBE_MAX)
		n = MRCD_CTL_PROBE_MAX;
	memcpy(io->rsp, c->rep.ctl_probe.rsp, n * sizeof(io->rsp[0]));
	*io->num_rsp = (int)n;
	return 0;
}

int mrc_ctl_ep_batch_send_wait(struct mrc_context *mrc_ctx, uint8_t req_tc,
			       enum mrc_ctl_ep_op_type op_type,
			       struct mrc_ctl_ep_req *req, int num_req,
			       uint32_t rsp_timeout, struct mrc_ctl_ep_rsp *rsp,
			       int *num_rsp)
{
	struct probe_io io = { .rsp = rsp, .num_rsp = num_rsp };
	struct call *c;

	if (!mrc_ctx || !req || !rsp || !num_rsp || num_req < 1 ||
	    !rsp_timeout || req_tc > 63)
		return ctl_fail(EINVAL);
	*num_rsp = 0;
	if (op_type != MRC_CTL_EP_OP_EV_PROBE &&
	    op_type != MRC_CTL_EP_OP_PORT_STATUS_UPDATE)
		return ctl_fail(EINVAL);
	if (num_req > MRCD_CTL_PROBE_MAX)
		return ctl_fail(EINVAL);
	c = call_new(MRCD_CTL_PROBE);
	if (c) {
		c->req.ctl_probe.nreq = (uint32_t)num_req;
		c->req.ctl_probe.timeout_ns = rsp_timeout;
		c->req.ctl_probe.tc = req_tc;
		c->req.ctl_probe.op = (uint32_t)op_type;
		memcpy(c->req.ctl_probe.req, req,
		       (size_t)num_req * sizeof(*req));
	}
	return call_run(sc_of(mrc_ctx), c, probe_out, &io);
}

/* ---- lists (extensions) ------------------------------------------------ */

static int ports_out(void *arg, struct call *c)
{
	struct {
		struct mrcx_port_info *out;
		int max, *n;
	} *io = arg;
	int n = (int)c->rep.ctl_ports.n;

	memcpy(io->out, c->rep.ctl_ports.port,
	       (size_t)(n < io->max ? n : io->max) * sizeof(io->out[0]));
	*io->n = n;
	return 0;
}

int mrcx_ctl_port_list(struct mrc_context *ctx, struct mrcx_port_info *out,
		       int max, int *n)
{
	struct {
		struct mrcx_port_info *out;
		int max, *n;
	} io = { out, max, n };

	if (!ctx || max < 0 || (max && !out) || !n)
		return ctl_fail(EINVAL);
	return call_run(ctx->sc, call_new(MRCD_CTL_PORT_LIST), ports_out, &io);
}

struct list_io {
	void *out;
	int max, got, total;
	uint32_t cursor;
};

static int qps_out(void *arg, struct call *c)
{
	struct list_io *io = arg;
	const struct mrcd_ctl_qps *o = &c->rep.ctl_qps;
	struct mrcx_qp_info *out = io->out;
	uint32_t i;

	for (i = 0; i < o->n && i < MRCD_LIST_QPS; i++, io->got++)
		if (io->got < io->max)
			out[io->got] = o->qp[i];
	io->total = (int)o->total;
	io->cursor = o->cursor;
	return 0;
}

static int evs_out(void *arg, struct call *c)
{
	struct list_io *io = arg;
	const struct mrcd_ctl_evs *o = &c->rep.ctl_evs;
	struct mrcx_ev_info *out = io->out;
	uint32_t i;

	for (i = 0; i < o->n && i < MRCD_LIST_EVS; i++, io->got++)
		if (io->got < io->max)
			out[io->got] = o->ev[i];
	io->total = (int)o->total;
	io->cursor = o->cursor;
	return 0;
}

static int list_run(struct mrc_context *ctx, uint32_t op, uint32_t qpn,
		    struct list_io *io, int (*out)(void *, struct call *))
{
	do {
		struct call *c = call_new(op);

		if (c) {
			c->req.ctl_list.qpn = qpn;
			c->req.ctl_list.cursor = io->cursor;
		}
		io->cursor = 0;
		if (call_run(ctx->sc, c, out, io))
			return -1;
	} while (io->cursor && io->got < io->max);
	return 0;
}

int mrcx_ctl_qp_list(struct mrc_context *ctx, struct mrcx_qp_info *out, int max,
		     int *n)
{
	struct list_io io = { .out = out, .max = max };

	if (!ctx || max < 0 || (max && !out) || !n)
		return ctl_fail(EINVAL);
	if (list_run(ctx, MRCD_CTL_QP_LIST, 0, &io, qps_out))
		return -1;
	*n = io.total;
	return 0;
}

int mrcx_ctl_ev_list(struct mrc_context *ctx, uint32_t qpn,
		     struct mrcx_ev_info *out, int max, int *n)
{
	struct list_io io = { .out = out, .max = max };

	if (!ctx || max < 0 || (max && !out) || !n)
		return ctl_fail(EINVAL);
	if (list_run(ctx, MRCD_CTL_EV_LIST, qpn, &io, evs_out))
		return -1;
	*n = io.total;
	return 0;
}
