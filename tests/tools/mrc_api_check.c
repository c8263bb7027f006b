// SPDX-License-Identifier: GPL-2.0
/*
 * libmrc against a running mrcd, as an application sees it (run it as an
 * unprivileged user): the soft verbs device, the QP state machine with the
 * attributes each transition requires and the errors the API documents,
 * memory registration laid over the application's own pages, and
 * isolation: a second connection cannot touch the first one's objects.
 * MRC_SOCKET names mrcd's socket.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../lib/internal.h"
#include "mrc_ctl.h"
#include "mrc_ext.h"

struct app {
	struct ibv_device **list;
	struct ibv_context *dev;
	struct ibv_pd *pd;
	struct mrc_context *ctx;
	struct mrc_cq *cq;
};

static void app_open(struct app *a)
{
	int n = 0;

	memset(a, 0, sizeof(*a));
	a->list = ibv_get_device_list(&n);
	assert_non_null(a->list);
	assert_int_equal(n, 1);
	a->dev = ibv_open_device(a->list[0]);
	assert_non_null(a->dev);
	a->pd = ibv_alloc_pd(a->dev);
	assert_non_null(a->pd);
	a->ctx = mrc_create_context(a->dev, NULL);
	assert_non_null(a->ctx);
	a->cq = mrc_create_cq(a->ctx, 256, NULL, NULL, 0);
	assert_non_null(a->cq);
}

static void app_close(struct app *a)
{
	assert_int_equal(mrc_destroy_cq(a->cq), 0);
	assert_int_equal(mrc_destroy_context(a->ctx), 0);
	assert_int_equal(ibv_dealloc_pd(a->pd), 0);
	assert_int_equal(ibv_close_device(a->dev), 0);
	ibv_free_device_list(a->list);
}

static struct mrc_qp *new_qp(struct app *a)
{
	struct mrc_qp_init_attr ia = {
		.send_cq = a->cq,
		.recv_cq = a->cq,
		.cap = { .max_send_wr = 64,
			 .max_recv_wr = 64,
			 .max_send_sge = 4,
			 .max_recv_sge = 1 },
		.pd = a->pd,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM,
	};

	return mrc_create_qp(a->ctx, &ia);
}

static int to_init(struct mrc_qp *qp, int vextra, int mmask)
{
	struct ibv_qp_attr v = { .qp_state = IBV_QPS_INIT,
				 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE };
	struct mrc_qp_attr m = {};

	return mrc_modify_qp(
		qp, &v, IBV_QP_STATE | IBV_QP_ACCESS_FLAGS | vextra, &m, mmask);
}

#define INIT_MASK (MRC_QP_HINT | MRC_EV_PROFILE_ID | MRC_CC_PROFILE_ID)
#define RTR_MASK \
	(MRC_QP_MAX_WIMM_DEST | MRC_QP_MPR_DEST | MRC_QP_DYNAMIC_MPR_DEST)
#define RTS_MASK \
	(MRC_QP_MAX_WIMM | MRC_QP_MPR | MRC_QP_RETRY_CNT | MRC_QP_TIMEOUT)

static int to_rtr(struct app *a, struct mrc_qp *qp, struct mrc_qp_attr *m,
		  int mmask)
{
	struct ibv_qp_attr v = { .qp_state = IBV_QPS_RTR,
				 .path_mtu = IBV_MTU_1024,
				 .dest_qp_num = 77,
				 .rq_psn = 1000 };

	v.ah_attr.is_global = 1;
	v.ah_attr.port_num = 1;
	assert_int_equal(ibv_query_gid(a->dev, 1, 3, &v.ah_attr.grh.dgid), 0);
	return mrc_modify_qp(qp, &v,
			     IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				     IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
			     m, mmask);
}

static int to_rts(struct mrc_qp *qp, struct mrc_qp_attr *m, int mmask)
{
	struct ibv_qp_attr v = { .qp_state = IBV_QPS_RTS, .sq_psn = 5 };

	return mrc_modify_qp(qp, &v, IBV_QP_STATE | IBV_QP_SQ_PSN, m, mmask);
}

static void device_answers(void **state)
{
	struct mrc_device_attr ma;
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	union ibv_gid gid;
	struct app a;
	int supported = 0;

	(void)state;
	app_open(&a);
	assert_string_equal(ibv_get_device_name(a.list[0]), "mrc0");
	assert_int_equal(ibv_query_device(a.dev, &da), 0);
	assert_true(da.phys_port_cnt >= 1);
	assert_int_equal(da.max_qp_wr, MRC_SQ_DEPTH);
	assert_int_equal(ibv_query_port(a.dev, 1, &pa), 0);
	assert_int_equal(pa.state, IBV_PORT_ACTIVE);
	assert_int_equal(pa.link_layer, IBV_LINK_LAYER_ETHERNET);
	/*
	 * 1500-byte links: 1404 payload bytes after the headers, which
	 * IBV_MTU_2048 gets (cut to 1404) and IBV_MTU_1024 is sure to fit.
	 */
	assert_int_equal(pa.active_mtu, IBV_MTU_1024);
	assert_int_equal(pa.max_mtu, IBV_MTU_2048);
	assert_int_not_equal(ibv_query_port(a.dev, 0, &pa), 0);
	assert_int_not_equal(ibv_query_port(a.dev, da.phys_port_cnt + 1, &pa),
			     0);
	/* The RoCE layout: 0 and 1 link-local, 2 and 3 the address. */
	assert_int_equal(ibv_query_port(a.dev, 1, &pa), 0);
	assert_int_equal(pa.gid_tbl_len, 4);
	assert_int_equal(ibv_query_gid(a.dev, 1, 0, &gid), 0);
	assert_int_equal(gid.raw[0], 0xfe);
	assert_int_equal(gid.raw[1], 0x80);
	assert_int_equal(ibv_query_gid(a.dev, 1, 3, &gid), 0);
	assert_int_equal(gid.raw[10], 0xff); /* IPv4-mapped: 198.18... */
	assert_int_equal(gid.raw[12], 198);
	assert_int_not_equal(ibv_query_gid(a.dev, 1, 4, &gid), 0);
	assert_int_equal(mrc_query_device(a.dev, &ma, &supported), 0);
	assert_int_equal(supported, 1);
	assert_int_equal(ma.mrc_protocol_version, MRC_PROTOCOL_VERSION_1);
	assert_int_equal(ma.mpr_attr.max_mpr, 2);
	app_close(&a);
}

static void state_machine(void **state)
{
	struct mrc_qp_attr m = { .mpr = { .mpr = 2, .mpr_dest = 2 },
				 .wimm = { .max_wimm = 16,
					   .max_wimm_dest = 16 },
				 .timeout = 14,
				 .retry = { .linear_cnt = 7, .exp_cnt = 3 } };
	struct ibv_send_wr wr = { .opcode = IBV_WR_RDMA_WRITE }, *bad = NULL;
	struct ibv_qp_attr qa;
	struct mrc_qp_attr mq;
	struct mrc_qp *qp;
	struct app a;
	uint32_t qpn;

	(void)state;
	/* OCP's letter: what RC-style setup may leave out is refused. */
	setenv("MRC_STRICT", "1", 1);
	app_open(&a);
	qp = new_qp(&a);
	assert_non_null(qp);
	assert_int_equal(mrc_get_qpn(qp, &qpn), 0);
	assert_true(qpn >= 2);
	/* RESET -> RTR skips INIT. */
	assert_int_equal(to_rtr(&a, qp, &m, RTR_MASK), EINVAL);
	/* INIT needs the hint and both profile ids. */
	assert_int_equal(to_init(qp, 0, MRC_EV_PROFILE_ID), EINVAL);
	/* Verbs attributes MRC replaces or lacks are refused. */
	assert_int_equal(to_init(qp, IBV_QP_PORT, INIT_MASK), EINVAL);
	assert_int_equal(to_init(qp, IBV_QP_TIMEOUT, INIT_MASK), EINVAL);
	assert_int_equal(to_init(qp, IBV_QP_RETRY_CNT, INIT_MASK), EINVAL);
	assert_int_equal(to_init(qp, IBV_QP_MAX_QP_RD_ATOMIC, INIT_MASK),
			 EINVAL);
	assert_int_equal(to_init(qp, 0, INIT_MASK), 0);
	/* RTR: every responder attribute, in range. */
	assert_int_equal(to_rtr(&a, qp, &m, RTR_MASK & ~MRC_QP_MPR_DEST),
			 EINVAL);
	m.mpr.mpr_dest = 3;
	assert_int_equal(to_rtr(&a, qp, &m, RTR_MASK), EINVAL);
	m.mpr.mpr_dest = 2;
	m.mpr.dynamic_mpr_dest = 2; /* a bit: 0 or 1 */
	assert_int_equal(to_rtr(&a, qp, &m, RTR_MASK), EINVAL);
	m.mpr.dynamic_mpr_dest = 0;
	assert_int_equal(to_rtr(&a, qp, &m, RTR_MASK), 0);
	/* Sends wait for RTS. */
	assert_int_equal(mrc_post_send(qp, &wr, &bad), EINVAL);
	assert_ptr_equal(bad, &wr);
	/* RTS: every requester attribute, in range. */
	assert_int_equal(to_rts(qp, &m, RTS_MASK & ~MRC_QP_RETRY_CNT), EINVAL);
	m.timeout = 25;
	assert_int_equal(to_rts(qp, &m, RTS_MASK), EINVAL);
	m.timeout = 14;
	m.retry.linear_cnt = 8;
	assert_int_equal(to_rts(qp, &m, RTS_MASK), EINVAL);
	m.retry.linear_cnt = 7;
	assert_int_equal(to_rts(qp, &m, RTS_MASK), 0);
	/* Asserting a wrong current state fails. */
	qa.qp_state = IBV_QPS_RTS;
	qa.cur_qp_state = IBV_QPS_INIT;
	assert_int_equal(mrc_modify_qp(qp, &qa, IBV_QP_STATE | IBV_QP_CUR_STATE,
				       NULL, 0),
			 EINVAL);
	/* Only WRITE and WRITE_WITH_IMM. */
	wr.opcode = IBV_WR_SEND;
	bad = NULL;
	assert_int_equal(mrc_post_send(qp, &wr, &bad), EINVAL);
	assert_ptr_equal(bad, &wr);
	assert_int_equal(mrc_query_qp(qp, &qa, IBV_QP_STATE, &mq,
				      MRC_QP_TIMEOUT, NULL),
			 0);
	assert_int_equal(qa.qp_state, IBV_QPS_RTS);
	assert_int_equal(qa.dest_qp_num, 77);
	assert_int_equal(mq.timeout, 14);
	assert_int_equal(mq.retry.exp_cnt, 3);
	/* A CQ in use cannot go; a context with objects cannot either. */
	assert_int_equal(mrc_destroy_cq(a.cq), EBUSY);
	assert_int_equal(mrc_destroy_context(a.ctx), -1);
	assert_int_equal(errno, EBUSY);
	assert_int_equal(mrc_destroy_qp(qp), 0);
	app_close(&a);
	unsetenv("MRC_STRICT");
}

/*
 * Setup written the RC way is taken (docs/libmrc.md): port, pkey index
 * and RNR attributes ignored, timeout and retry count mapped, MRC
 * attributes not given defaulted from the device attributes.
 */
static void rc_style(void **state)
{
	struct ibv_qp_attr v = { .qp_state = IBV_QPS_INIT,
				 .port_num = 1,
				 .qp_access_flags = IBV_ACCESS_REMOTE_WRITE };
	struct mrc_qp_attr m = {}, mq;
	struct ibv_qp_attr qa;
	struct mrc_qp *qp;
	struct app a;

	(void)state;
	unsetenv("MRC_STRICT");
	app_open(&a);
	qp = new_qp(&a);
	assert_non_null(qp);
	assert_int_equal(mrc_modify_qp(qp, &v,
				       IBV_QP_STATE | IBV_QP_PKEY_INDEX |
					       IBV_QP_PORT |
					       IBV_QP_ACCESS_FLAGS,
				       &m, 0),
			 0);
	assert_int_equal(to_rtr(&a, qp, &m, 0), 0);
	v = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS,
				  .sq_psn = 5,
				  .timeout = 12,
				  .retry_cnt = 14, /* more than IB has: 7 */
				  .rnr_retry = 7,
				  .min_rnr_timer = 12 };
	/* An alternate path means something MRC cannot do: still refused. */
	assert_int_equal(mrc_modify_qp(qp, &v, IBV_QP_STATE | IBV_QP_ALT_PATH,
				       NULL, 0),
			 EINVAL);
	assert_int_equal(
		mrc_modify_qp(qp, &v,
			      IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				      IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				      IBV_QP_MIN_RNR_TIMER,
			      NULL, 0),
		0);
	assert_int_equal(mrc_query_qp(qp, &qa, IBV_QP_STATE, &mq,
				      MRC_QP_TIMEOUT, NULL),
			 0);
	assert_int_equal(qa.qp_state, IBV_QPS_RTS);
	assert_int_equal(mq.timeout, 12);
	assert_int_equal(mq.retry.linear_cnt, 7);
	assert_int_equal(mq.retry.exp_cnt, 0);
	assert_int_equal(mq.mpr.mpr, 2);
	assert_int_equal(mq.mpr.mpr_dest, 2);
	assert_int_equal(mq.wimm.max_wimm, 65535);
	assert_int_equal(mq.profile.ev_profile_id, 0);
	assert_int_equal(mq.profile.cc_profile_id, 15);
	assert_int_equal(mrc_destroy_qp(qp), 0);
	app_close(&a);
}

static void unknown_ev_profile(void **state)
{
	struct mrc_qp_attr m = { .mpr = { .mpr = 2, .mpr_dest = 2 } };
	struct mrc_qp *qp;
	struct app a;

	(void)state;
	app_open(&a);
	qp = new_qp(&a);
	assert_non_null(qp);
	{
		struct ibv_qp_attr v = { .qp_state = IBV_QPS_INIT };

		/* Profile 7 is a slot the controller has not configured:
		 * not ONLINE, EINVAL; 1000 is no profile at all: ENOENT.
		 * The QP stays in RESET either way. */
		m.profile.ev_profile_id = 7;
		assert_int_equal(mrc_modify_qp(qp, &v, IBV_QP_STATE, &m,
					       INIT_MASK),
				 EINVAL);
		m.profile.ev_profile_id = 1000;
		assert_int_equal(mrc_modify_qp(qp, &v, IBV_QP_STATE, &m,
					       INIT_MASK),
				 ENOENT);
		m.profile.ev_profile_id = 0;
		m.profile.cc_profile_id = 3; /* not configured either */
		assert_int_equal(mrc_modify_qp(qp, &v, IBV_QP_STATE, &m,
					       INIT_MASK),
				 EINVAL);
		m.profile.cc_profile_id = 0;
		assert_int_equal(
			mrc_modify_qp(qp, &v, IBV_QP_STATE, &m, INIT_MASK), 0);
	}
	assert_int_equal(mrc_destroy_qp(qp), 0);
	app_close(&a);
}

/*
 * This program runs as nobody: the controller API is refused with EPERM,
 * every part of it, and nothing changes.
 */
static void controller_needs_net_admin(void **state)
{
	struct mrc_ctl_device_attr d;
	struct mrc_ctl_port_attr pa = { MRC_CTL_PORT_ADMIN_DISABLED };
	struct mrc_ctl_ev_fmt_profile_attr fa = { 0 };
	struct mrc_ctl_ev_profile_attr ea = { 0 };
	struct mrc_ctl_cc_profile_attr ca = { 0 };
	struct mrc_ctl_ep_req req = { .req_id = 1 };
	struct mrc_ctl_ep_rsp rsp;
	struct mrcx_qp_info qi;
	int supported = 0, n = -1;
	struct app a;

	(void)state;
	app_open(&a);
	assert_int_equal(mrc_ctl_query_device_ex(a.dev, a.ctx, &d, &supported),
			 -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(supported, 1); /* it is an MRC device */
	assert_int_equal(mrc_ctl_modify_port(a.ctx, 1, &pa,
					     MRC_CTL_PORT_ADMIN_STATE),
			 -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(mrc_ctl_query_port(a.ctx, 1, &pa,
					    MRC_CTL_PORT_ADMIN_STATE),
			 -1);
	assert_int_equal(errno, EPERM);
	fa.profile_state = MRC_CTL_PROFILE_OFFLINE;
	fa.ev_fmt_mode = MRC_CTL_EV_FMT_MODE_UDP;
	assert_int_equal(mrc_ctl_modify_ev_fmt_profile(
				 a.ctx, 1, &fa,
				 MRC_CTL_EV_FMT_PROFILE_STATE |
					 MRC_CTL_EV_FMT_PROFILE_MODE),
			 -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(mrc_ctl_query_ev_profile(a.ctx, 0, &ea,
						  MRC_CTL_EV_PROFILE_STATE),
			 -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(mrc_ctl_query_cc_profile(a.ctx, 0, &ca,
						  MRC_CTL_CC_PROFILE_STATE),
			 -1);
	assert_int_equal(errno, EPERM);
	assert_null(mrc_ctl_create_ev_event_cq(a.ctx, 64, NULL, NULL, 0));
	assert_int_equal(errno, EPERM);
	req.ev_fmt_mode = MRC_CTL_EV_FMT_MODE_UDP;
	req.req_ev.port = 1;
	assert_int_equal(mrc_ctl_ep_batch_send_wait(a.ctx, 0,
						    MRC_CTL_EP_OP_EV_PROBE,
						    &req, 1, 1000000, &rsp, &n),
			 -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(n, 0);
	assert_int_equal(mrcx_ctl_qp_list(a.ctx, &qi, 1, &n), -1);
	assert_int_equal(errno, EPERM);
	app_close(&a);
}

static void registration_keeps_pointer_and_bytes(void **state)
{
	size_t len = 3 * 1024 * 1024 + 123, i;
	uint8_t *buf = malloc(len), *other = malloc(100);
	struct ibv_mr *mr, *mr2;
	struct app a;

	(void)state;
	app_open(&a);
	assert_non_null(buf);
	for (i = 0; i < len; i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	mr = ibv_reg_mr(a.pd, buf + 5, len - 5,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	assert_non_null(mr);
	assert_ptr_equal(mr->addr, buf + 5);
	assert_int_equal(mr->lkey, mr->rkey);
	for (i = 0; i < len; i++)
		if (buf[i] != (uint8_t)(i * 7 + 3))
			fail_msg("byte %zu changed by registration", i);
	/* A region shares no page with another one. */
	mr2 = ibv_reg_mr(a.pd, buf + 10, 10, IBV_ACCESS_REMOTE_WRITE);
	assert_null(mr2);
	assert_int_equal(errno, EEXIST);
	/* Access MRC has no use for is refused (no atomics). */
	mr2 = ibv_reg_mr(a.pd, other, 100, IBV_ACCESS_REMOTE_ATOMIC);
	assert_null(mr2);
	assert_int_equal(errno, EINVAL);
	buf[len - 1] = 0x5a; /* the application writes device memory */
	assert_int_equal(ibv_dereg_mr(mr), 0);
	assert_int_equal(buf[len - 1], 0x5a);
	assert_int_equal(buf[7], (uint8_t)(7 * 7 + 3));
	free(other);
	free(buf);
	app_close(&a);
}

/* One raw request on a's connection; returns mrcd's errno. */
static int raw(struct app *a, uint32_t op, uint32_t idx)
{
	struct mrcd_req req = { .op = op, .obj.idx = idx };
	struct mrcd_rep rep;
	int fds[2];

	return soft_call((struct soft_ctx *)a->dev, &req, &rep, fds, 2);
}

static void isolation(void **state)
{
	struct mrcd_req req = { .op = MRCD_QP_MODIFY };
	struct mrcd_rep rep;
	struct app a, b;
	struct mrc_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf = aligned_alloc(4096, 8192);
	uint32_t qpn;

	(void)state;
	app_open(&a);
	app_open(&b);
	qp = new_qp(&a);
	assert_non_null(qp);
	assert_int_equal(mrc_get_qpn(qp, &qpn), 0);
	mr = ibv_reg_mr(a.pd, buf, 8192, IBV_ACCESS_REMOTE_WRITE);
	assert_non_null(mr);
	/* b names a's objects: refused, and a's still work. */
	assert_int_equal(raw(&b, MRCD_QP_DESTROY, qpn), EPERM);
	assert_int_equal(raw(&b, MRCD_QP_QUERY, qpn), EPERM);
	req.qp_modify.qpn = qpn;
	req.qp_modify.state = MRC_QPS_ERR;
	assert_int_equal(soft_call((struct soft_ctx *)b.dev, &req, &rep, NULL,
				   0),
			 EPERM);
	assert_int_equal(raw(&b, MRCD_MR_DEREG, mr->lkey & MRC_RKEY_INDEX_MASK),
			 EPERM);
	assert_int_equal(raw(&b, MRCD_CQ_DESTROY, a.cq->idx), EPERM);
	assert_int_equal(raw(&b, MRCD_PD_FREE, a.pd->handle), EPERM);
	{
		struct mrcd_req c = { .op = MRCD_QP_CREATE };
		int fds[2];

		/* A QP in a's PD, on a's CQ. */
		c.qp_create.pd = a.pd->handle;
		c.qp_create.send_cq = b.cq->idx;
		c.qp_create.recv_cq = b.cq->idx;
		assert_int_equal(soft_call((struct soft_ctx *)b.dev, &c, &rep,
					   fds, 2),
				 EPERM);
		c.qp_create.pd = b.pd->handle;
		c.qp_create.send_cq = a.cq->idx;
		assert_int_equal(soft_call((struct soft_ctx *)b.dev, &c, &rep,
					   fds, 2),
				 EPERM);
		/* A region in a's PD. */
		c.op = MRCD_MR_REG;
		c.mr.pd = a.pd->handle;
		c.mr.len = 4096;
		c.mr.va = 1 << 20;
		assert_int_equal(soft_call((struct soft_ctx *)b.dev, &c, &rep,
					   fds, 1),
				 EPERM);
	}
	/* Nothing by that number: ENOENT, not EPERM. */
	assert_int_equal(raw(&b, MRCD_QP_DESTROY, MRC_MAX_QP - 1), ENOENT);
	assert_int_equal(raw(&b, MRCD_QP_DESTROY, 1u << 30), ENOENT);
	assert_int_equal(raw(&b, 999, 0), EOPNOTSUPP);
	assert_int_equal(to_init(qp, 0, INIT_MASK), 0);
	assert_int_equal(ibv_dereg_mr(mr), 0);
	assert_int_equal(mrc_destroy_qp(qp), 0);
	free(buf);
	app_close(&b);
	app_close(&a);
}

/* All QP numbers, then one more: ENOMEM; closing frees them all. */
static void qp_limit(void **state)
{
	static struct mrc_qp *qp[MRC_MAX_QP];
	struct app a;
	int n = 0, i;

	(void)state;
	app_open(&a);
	while (n < MRC_MAX_QP && (qp[n] = new_qp(&a)))
		n++;
	assert_int_equal(n, MRC_MAX_QP - 2);
	assert_int_equal(errno, ENOMEM);
	for (i = 0; i < n; i++)
		assert_int_equal(mrc_destroy_qp(qp[i]), 0);
	/* Again, leaving them to the connection's close. */
	for (i = 0; i < 10; i++)
		assert_non_null(new_qp(&a));
	assert_int_equal(ibv_close_device(a.dev), 0);
	ibv_free_device_list(a.list);
	app_open(&a);
	for (n = 0; n < MRC_MAX_QP && (qp[n] = new_qp(&a)); n++)
		;
	assert_int_equal(n, MRC_MAX_QP - 2);
	for (i = 0; i < n; i++)
		assert_int_equal(mrc_destroy_qp(qp[i]), 0);
	app_close(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(device_answers),
		cmocka_unit_test(state_machine),
		cmocka_unit_test(rc_style),
		cmocka_unit_test(unknown_ev_profile),
		cmocka_unit_test(controller_needs_net_admin),
		cmocka_unit_test(registration_keeps_pointer_and_bytes),
		cmocka_unit_test(isolation),
		cmocka_unit_test(qp_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
