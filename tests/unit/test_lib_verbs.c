// SPDX-License-Identifier: GPL-2.0
/*
 * The verbs calls libmrc serves beside the MRC API, without mrcd: plain
 * CQs and loopback RC QPs (lib/plain_cq.c, lib/plain_qp.c) moving bytes
 * between regions of a soft context made by hand, through verbs.h's own
 * inline ibv_post_send and ibv_poll_cq; the errnos of what the soft
 * device cannot do (lib/verbs_plain.c); async events (verbs_async.c);
 * the event and status strings (verbs_str.c); and the merged device list
 * (devlist.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "devlist.h"
#include "internal.h"
#include "plain.h"

static struct soft_ctx fake, other;
static struct ibv_device fake_dev;
static struct soft_mr mrs[4];

int soft_is_ours(struct ibv_context *ctx)
{
	return ctx == &fake.ibv || ctx == &other.ibv;
}

struct soft_mr *soft_mr_by_key(struct soft_ctx *sc, uint32_t lkey)
{
	struct soft_mr *mr = sc->mr[lkey & MRC_RKEY_INDEX_MASK];

	return mr && mr->ibv.lkey == lkey ? mr : NULL;
}

/* No real libibverbs here. */
void *bind_real(const char *name)
{
	(void)name;
	return NULL;
}

static const uint8_t addr[16] = { [10] = 0xff, [11] = 0xff, 198, 18, 0, 1 };

static void ctx_make(struct soft_ctx *sc)
{
	memset(sc, 0, sizeof(*sc));
	sc->ibv.device = &fake_dev;
	sc->ibv.num_comp_vectors = 1;
	sc->info.nports = 1;
	memcpy(sc->info.gid[0], addr, 16);
	plain_ops_set(&sc->ibv);
	assert_int_equal(async_init(&sc->ibv), 0);
}

/* A region over buf as ibv_reg_mr leaves it: key 0x100 + index. */
static struct ibv_mr *mr_make(struct soft_ctx *sc, struct ibv_pd *pd, int idx,
			      void *buf, size_t len, unsigned int access)
{
	struct soft_mr *m = &mrs[idx];

	memset(m, 0, sizeof(*m));
	m->ibv.context = &sc->ibv;
	m->ibv.pd = pd;
	m->ibv.addr = buf;
	m->ibv.length = len;
	m->ibv.lkey = m->ibv.rkey = (0x5a00u << 16) | idx;
	m->access = access;
	sc->mr[idx] = m;
	return &m->ibv;
}

static struct ibv_qp *qp_make(struct ibv_pd *pd, struct ibv_cq *cq, int sig_all)
{
	struct ibv_qp_init_attr a = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 16,
			 .max_recv_wr = 4,
			 .max_send_sge = 4,
			 .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = sig_all,
	};
	struct ibv_qp *qp = plain_create_qp(pd, &a);

	assert_non_null(qp);
	assert_true(qp->qp_num >= PLAIN_QPN_BASE);
	assert_int_equal(qp->state, IBV_QPS_RESET);
	return qp;
}

/* RESET -> INIT -> RTR -> RTS the RC way, peer named by GID index 3. */
static int connect_qp(struct ibv_qp *qp, uint32_t dest, int access,
		      const uint8_t *dgid)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT,
				 .port_num = 1,
				 .qp_access_flags = access };
	int err;

	err = plain_modify_qp(qp, &a,
			      IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				      IBV_QP_ACCESS_FLAGS);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	memcpy(a.ah_attr.grh.dgid.raw, dgid, 16);
	err = plain_modify_qp(qp, &a,
			      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				      IBV_QP_MAX_DEST_RD_ATOMIC |
				      IBV_QP_MIN_RNR_TIMER);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	return plain_modify_qp(qp, &a,
			       IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				       IBV_QP_MAX_QP_RD_ATOMIC);
}

#define ALL_REMOTE (IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE)
#define ALL_ACCESS (IBV_ACCESS_LOCAL_WRITE | ALL_REMOTE)

static int post(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t wr_id,
		struct ibv_mr *l, size_t loff, struct ibv_mr *r, size_t roff,
		uint32_t len)
{
	struct ibv_sge s = { .addr = (uintptr_t)l->addr + loff,
			     .length = len,
			     .lkey = l->lkey };
	struct ibv_send_wr wr = { .wr_id = wr_id,
				  .sg_list = &s,
				  .num_sge = 1,
				  .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED },
			   *bad = NULL;

	wr.wr.rdma.remote_addr = (uintptr_t)r->addr + roff;
	wr.wr.rdma.rkey = r->rkey;
	wr.imm_data = htobe32(0x1234);
	/* verbs.h's own inline call: the context's ops. */
	return ibv_post_send(qp, &wr, &bad);
}

static struct ibv_wc poll_one(struct ibv_cq *cq)
{
	struct ibv_wc wc[2];

	assert_int_equal(ibv_poll_cq(cq, 2, wc), 1);
	return wc[0];
}

static void fill(uint8_t *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 31 + seed + (i >> 8));
}

#define LEN 65536

static void loopback_write_read(void **state)
{
	uint8_t *src = malloc(LEN), *dst = malloc(LEN), *back = malloc(LEN);
	struct ibv_pd pd = { .context = &fake.ibv };
	struct ibv_mr *msrc, *mdst, *mback;
	struct ibv_qp *a, *b, *self;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qi;
	struct ibv_cq *cq;
	struct ibv_wc wc;

	(void)state;
	ctx_make(&fake);
	fill(src, LEN, 7);
	memset(dst, 0, LEN);
	memset(back, 0, LEN);
	msrc = mr_make(&fake, &pd, 1, src, LEN, IBV_ACCESS_LOCAL_WRITE);
	mdst = mr_make(&fake, &pd, 2, dst, LEN, ALL_ACCESS);
	mback = mr_make(&fake, &pd, 3, back, LEN, IBV_ACCESS_LOCAL_WRITE);
	cq = plain_create_cq(&fake.ibv, 64, NULL, NULL, 0);
	assert_non_null(cq);
	a = qp_make(&pd, cq, 0);
	b = qp_make(&pd, cq, 0);
	assert_int_equal(connect_qp(a, b->qp_num, ALL_REMOTE, addr), 0);
	assert_int_equal(connect_qp(b, a->qp_num, ALL_REMOTE, addr), 0);
	assert_int_equal(a->state, IBV_QPS_RTS);

	/* WRITE a -> b's region, then READ it back into a third. */
	assert_int_equal(post(a, IBV_WR_RDMA_WRITE, 11, msrc, 0, mdst, 0, LEN),
			 0);
	wc = poll_one(cq);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.opcode, IBV_WC_RDMA_WRITE);
	assert_int_equal(wc.wr_id, 11);
	assert_int_equal(wc.qp_num, a->qp_num);
	assert_memory_equal(dst, src, LEN);
	assert_int_equal(post(a, IBV_WR_RDMA_READ, 12, mback, 100, mdst, 200,
			      LEN - 300),
			 0);
	wc = poll_one(cq);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_int_equal(wc.opcode, IBV_WC_RDMA_READ);
	assert_int_equal(wc.byte_len, LEN - 300);
	assert_memory_equal(back + 100, src + 200, LEN - 300);
	assert_int_equal(back[99], 0);
	assert_int_equal(back[LEN - 200], 0);

	/* A QP connected to itself, as a flush READ does. */
	self = qp_make(&pd, cq, 1);
	assert_int_equal(connect_qp(self, self->qp_num, ALL_REMOTE, addr), 0);
	memset(back, 0, LEN);
	{
		struct ibv_sge s = { .addr = (uintptr_t)back,
				     .length = 4,
				     .lkey = mback->lkey };
		struct ibv_send_wr wr = { .wr_id = 13,
					  .sg_list = &s,
					  .num_sge = 1,
					  .opcode = IBV_WR_RDMA_READ },
				   *bad;

		wr.wr.rdma.remote_addr = (uintptr_t)dst + 4;
		wr.wr.rdma.rkey = mdst->rkey;
		/* Unsignaled, but sq_sig_all. */
		assert_int_equal(ibv_post_send(self, &wr, &bad), 0);
	}
	wc = poll_one(cq);
	assert_int_equal(wc.wr_id, 13);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	assert_memory_equal(back, src + 4, 4);

	/* Unsignaled without sq_sig_all: no completion. */
	{
		struct ibv_sge s = { .addr = (uintptr_t)src,
				     .length = 8,
				     .lkey = msrc->lkey };
		struct ibv_send_wr wr = { .sg_list = &s,
					  .num_sge = 1,
					  .opcode = IBV_WR_RDMA_WRITE },
				   *bad;

		wr.wr.rdma.remote_addr = (uintptr_t)dst;
		wr.wr.rdma.rkey = mdst->rkey;
		assert_int_equal(ibv_post_send(a, &wr, &bad), 0);
		assert_int_equal(ibv_poll_cq(cq, 1, &wc), 0);
	}

	/* WRITE_WITH_IMM takes b's receive WR. */
	{
		struct ibv_recv_wr r = { .wr_id = 77 }, *rbad;

		assert_int_equal(ibv_post_recv(b, &r, &rbad), 0);
		assert_int_equal(post(a, IBV_WR_RDMA_WRITE_WITH_IMM, 14, msrc,
				      0, mdst, 0, 16),
				 0);
		assert_int_equal(ibv_poll_cq(cq, 1, &wc), 1);
		assert_int_equal(wc.wr_id, 77);
		assert_int_equal(wc.opcode, IBV_WC_RECV_RDMA_WITH_IMM);
		assert_int_equal(wc.byte_len, 16);
		assert_int_equal(be32toh(wc.imm_data), 0x1234);
		assert_int_equal(wc.qp_num, b->qp_num);
		wc = poll_one(cq);
		assert_int_equal(wc.wr_id, 14);
		/* None left: receiver not ready. */
		assert_int_equal(post(a, IBV_WR_RDMA_WRITE_WITH_IMM, 15, msrc,
				      0, mdst, 0, 16),
				 0);
		wc = poll_one(cq);
		assert_int_equal(wc.status, IBV_WC_RNR_RETRY_EXC_ERR);
		assert_int_equal(a->state, IBV_QPS_ERR);
	}

	assert_int_equal(plain_query_qp(b, &qa, IBV_QP_STATE, &qi), 0);
	assert_int_equal(qa.qp_state, IBV_QPS_RTS);
	assert_int_equal(qa.dest_qp_num, a->qp_num);
	assert_int_equal(qa.qp_access_flags, ALL_REMOTE);
	assert_int_equal(qa.port_num, 1);
	assert_int_equal(qi.cap.max_send_wr, 16);
	assert_int_equal(qi.qp_type, IBV_QPT_RC);

	assert_int_equal(plain_destroy_cq(cq), EBUSY); /* QPs use it */
	assert_int_equal(plain_destroy_qp(a), 0);
	assert_int_equal(plain_destroy_qp(b), 0);
	assert_int_equal(plain_destroy_qp(self), 0);
	assert_int_equal(plain_destroy_cq(cq), 0);
	async_fini(&fake.ibv);
	free(src);
	free(dst);
	free(back);
}

static void loopback_refusals(void **state)
{
	uint8_t src[256], dst[256];
	struct ibv_pd pd = { .context = &fake.ibv };
	struct ibv_mr *msrc, *mdst, *mro;
	uint8_t far[16] = { [10] = 0xff, [11] = 0xff, 198, 18, 9, 9 };
	struct ibv_async_event ev;
	struct ibv_send_wr *bad;
	struct ibv_qp *a, *b;
	struct ibv_cq *cq;
	struct ibv_wc wc;

	(void)state;
	ctx_make(&fake);
	fill(src, sizeof(src), 1);
	memset(dst, 0, sizeof(dst));
	msrc = mr_make(&fake, &pd, 1, src, sizeof(src), 0);
	mdst = mr_make(&fake, &pd, 2, dst, sizeof(dst), ALL_ACCESS);
	mro = mr_make(&fake, &pd, 3, dst, sizeof(dst), IBV_ACCESS_REMOTE_READ);
	cq = plain_create_cq(&fake.ibv, 1, NULL, NULL, 0);
	a = qp_make(&pd, cq, 0);
	b = qp_make(&pd, cq, 0);

	/* Not yet RTS: refused at post, *bad_wr set. */
	assert_int_equal(post(a, IBV_WR_RDMA_WRITE, 1, msrc, 0, mdst, 0, 8),
			 EINVAL);
	/* Peers on other hosts, or QPs that do not exist: not reachable. */
	assert_int_equal(connect_qp(a, b->qp_num, ALL_REMOTE, far), EOPNOTSUPP);
	assert_int_equal(a->state, IBV_QPS_INIT);
	assert_int_equal(connect_qp(a, PLAIN_QPN_BASE + PLAIN_MAX_QP - 1,
				    ALL_REMOTE, addr),
			 EOPNOTSUPP); /* INIT -> INIT, then no such QP */
	{
		struct ibv_qp_attr r = { .qp_state = IBV_QPS_RESET };

		assert_int_equal(plain_modify_qp(a, &r, IBV_QP_STATE), 0);
		assert_int_equal(connect_qp(a, 0x5, ALL_REMOTE, addr),
				 EOPNOTSUPP);
		assert_int_equal(plain_modify_qp(a, &r, IBV_QP_STATE), 0);
	}
	assert_int_equal(connect_qp(a, b->qp_num, ALL_REMOTE, addr), 0);
	/* b allows only READ. */
	assert_int_equal(connect_qp(b, a->qp_num, IBV_ACCESS_REMOTE_READ, addr),
			 0);

	/* A SEND the soft device does not carry: refused at post. */
	assert_int_equal(post(a, IBV_WR_SEND, 2, msrc, 0, mdst, 0, 8),
			 EOPNOTSUPP);
	/* A region registered without REMOTE_WRITE: nothing moves. */
	assert_int_equal(post(a, IBV_WR_RDMA_WRITE, 3, msrc, 0, mro, 0, 8), 0);
	wc = poll_one(cq);
	assert_int_equal(wc.status, IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(wc.wr_id, 3);
	assert_int_equal(dst[0], 0);
	assert_int_equal(a->state, IBV_QPS_ERR);
	assert_int_equal(b->state, IBV_QPS_ERR);
	fcntl(fake.ibv.async_fd, F_SETFL, O_NONBLOCK);
	assert_int_equal(async_get(&fake.ibv, &ev), 0);
	assert_int_equal(ev.event_type, IBV_EVENT_QP_ACCESS_ERR);
	assert_ptr_equal(ev.element.qp, b);
	assert_int_equal(async_get(&fake.ibv, &ev), -EAGAIN);
	/* In ERR a WR is flushed. */
	assert_int_equal(post(a, IBV_WR_RDMA_WRITE, 4, msrc, 0, mdst, 0, 8), 0);
	wc = poll_one(cq);
	assert_int_equal(wc.status, IBV_WC_WR_FLUSH_ERR);

	/* READ into a region without LOCAL_WRITE; past a region's end. */
	{
		struct ibv_qp_attr r = { .qp_state = IBV_QPS_RESET };

		plain_modify_qp(a, &r, IBV_QP_STATE);
		plain_modify_qp(b, &r, IBV_QP_STATE);
		assert_int_equal(connect_qp(a, b->qp_num, ALL_REMOTE, addr), 0);
		assert_int_equal(connect_qp(b, a->qp_num, ALL_REMOTE, addr), 0);
	}
	assert_int_equal(post(a, IBV_WR_RDMA_READ, 5, msrc, 0, mdst, 0, 8), 0);
	wc = poll_one(cq);
	assert_int_equal(wc.status, IBV_WC_LOC_PROT_ERR);
	plain_modify_qp(a, &(struct ibv_qp_attr){ .qp_state = IBV_QPS_RESET },
			IBV_QP_STATE);
	assert_int_equal(connect_qp(a, b->qp_num, ALL_REMOTE, addr), 0);
	assert_int_equal(post(a, IBV_WR_RDMA_WRITE, 6, msrc, 0, mdst, 200, 100),
			 0);
	wc = poll_one(cq);
	assert_int_equal(wc.status, IBV_WC_REM_ACCESS_ERR);
	assert_int_equal(dst[200], 0);
	async_get(&fake.ibv, &ev); /* b's access error */

	/* A CQ of one entry overruns: the completion is lost, CQ_ERR said. */
	plain_modify_qp(a, &(struct ibv_qp_attr){ .qp_state = IBV_QPS_RESET },
			IBV_QP_STATE);
	plain_modify_qp(b, &(struct ibv_qp_attr){ .qp_state = IBV_QPS_RESET },
			IBV_QP_STATE);
	assert_int_equal(connect_qp(a, b->qp_num, ALL_REMOTE, addr), 0);
	assert_int_equal(connect_qp(b, a->qp_num, ALL_REMOTE, addr), 0);
	assert_int_equal(post(a, IBV_WR_RDMA_WRITE, 7, msrc, 0, mdst, 0, 8), 0);
	assert_int_equal(post(a, IBV_WR_RDMA_WRITE, 8, msrc, 0, mdst, 0, 8), 0);
	assert_int_equal(async_get(&fake.ibv, &ev), 0);
	assert_int_equal(ev.event_type, IBV_EVENT_CQ_ERR);
	assert_ptr_equal(ev.element.cq, cq);
	wc = poll_one(cq);
	assert_int_equal(wc.wr_id, 7);
	bad = NULL;
	(void)bad;
	plain_destroy_qp(a);
	plain_destroy_qp(b);
	plain_destroy_cq(cq);
	async_fini(&fake.ibv);
}

/* What the soft device cannot do answers a clear errno. */
static void unsupported(void **state)
{
	struct ibv_pd pd = { .context = &fake.ibv };
	struct ibv_comp_channel ch = { .context = &fake.ibv };
	struct ibv_qp_init_attr ud = { .qp_type = IBV_QPT_UD };
	struct ibv_async_event ev;
	struct ibv_cq *cq;

	(void)state;
	ctx_make(&fake);
	errno = 0;
	assert_null(ibv_reg_dmabuf_mr(&pd, 0, 4096, 0, 3, 0));
	assert_int_equal(errno, EOPNOTSUPP);
	errno = 0;
	assert_null(ibv_create_comp_channel(&fake.ibv));
	assert_int_equal(errno, EOPNOTSUPP);
	errno = 0;
	assert_null(ibv_create_cq(&fake.ibv, 4, NULL, &ch, 0));
	assert_int_equal(errno, EOPNOTSUPP);
	errno = 0;
	assert_null(ibv_create_cq(&fake.ibv, 0, NULL, NULL, 0));
	assert_int_equal(errno, EINVAL);
	cq = ibv_create_cq(&fake.ibv, 4, NULL, NULL, 0);
	assert_non_null(cq);
	ud.send_cq = ud.recv_cq = cq;
	errno = 0;
	assert_null(ibv_create_qp(&pd, &ud));
	assert_int_equal(errno, EOPNOTSUPP);
	assert_int_equal(ibv_fork_init(), 0);
	/* No event: a non-blocking async_fd says EAGAIN. */
	fcntl(fake.ibv.async_fd, F_SETFL, O_NONBLOCK);
	errno = 0;
	assert_int_equal(ibv_get_async_event(&fake.ibv, &ev), -1);
	assert_int_equal(errno, EAGAIN);
	ev.event_type = IBV_EVENT_CQ_ERR;
	ev.element.cq = cq;
	async_post(&fake.ibv, &ev);
	memset(&ev, 0, sizeof(ev));
	assert_int_equal(ibv_get_async_event(&fake.ibv, &ev), 0);
	assert_ptr_equal(ev.element.cq, cq);
	ibv_ack_async_event(&ev);
	assert_int_equal(ibv_destroy_cq(cq), 0);
	async_fini(&fake.ibv);
}

static void strings(void **state)
{
	(void)state;
	assert_string_equal(ibv_wc_status_str(IBV_WC_SUCCESS),
			    "IBV_WC_SUCCESS: success");
	assert_non_null(strstr(ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR),
			       "IBV_WC_REM_ACCESS_ERR"));
	assert_non_null(strstr(ibv_wc_status_str(IBV_WC_TM_RNDV_INCOMPLETE),
			       "IBV_WC_TM_RNDV_INCOMPLETE"));
	assert_string_equal(ibv_wc_status_str((enum ibv_wc_status)999),
			    "unknown status");
	assert_non_null(strstr(ibv_event_type_str(IBV_EVENT_QP_FATAL),
			       "IBV_EVENT_QP_FATAL"));
	assert_non_null(strstr(ibv_event_type_str(IBV_EVENT_WQ_FATAL),
			       "IBV_EVENT_WQ_FATAL"));
	assert_string_equal(ibv_event_type_str((enum ibv_event_type) - 1),
			    "unknown event");
	/* Every value has its own name. */
	for (int i = IBV_EVENT_CQ_ERR; i <= IBV_EVENT_WQ_FATAL; i++)
		assert_string_not_equal(
			ibv_event_type_str((enum ibv_event_type)i),
			"unknown event");
	for (int i = IBV_WC_SUCCESS; i <= IBV_WC_TM_RNDV_INCOMPLETE; i++)
		assert_string_not_equal(
			ibv_wc_status_str((enum ibv_wc_status)i),
			"unknown status");
}

static void device_list(void **state)
{
	struct ibv_device r1 = { .name = "mlx5_0" }, r2 = { .name = "mlx5_1" };
	struct ibv_device soft = { .name = "mrc0" };
	struct ibv_device *real[] = { &r1, &r2, NULL }, **l, **got, *alien[2];
	int n = -1;

	(void)state;
	/* The real devices first, as the real library lists them, then ours. */
	l = devlist_merge(real, 2, &soft, &n);
	assert_int_equal(n, 3);
	assert_ptr_equal(l[0], &r1);
	assert_ptr_equal(l[1], &r2);
	assert_ptr_equal(l[2], &soft);
	assert_null(l[3]);
	assert_int_equal(devlist_release(l, &got), 1);
	assert_ptr_equal(got, real);
	/* No real library (or no device there), or mrcd not listening. */
	l = devlist_merge(NULL, -1, &soft, &n);
	assert_int_equal(n, 1);
	assert_ptr_equal(l[0], &soft);
	assert_null(l[1]);
	assert_int_equal(devlist_release(l, &got), 1);
	assert_null(got);
	l = devlist_merge(real, 2, NULL, &n);
	assert_int_equal(n, 2);
	assert_null(l[2]);
	/* A list the real library made is not ours to free. */
	assert_int_equal(devlist_release(alien, &got), 0);
	assert_int_equal(devlist_release(l, &got), 1);
	assert_int_equal(devlist_release(l, &got), 0); /* once only */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(loopback_write_read),
		cmocka_unit_test(loopback_refusals),
		cmocka_unit_test(unsupported),
		cmocka_unit_test(strings),
		cmocka_unit_test(device_list),
	};

	(void)other;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
