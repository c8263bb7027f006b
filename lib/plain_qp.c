// SPDX-License-Identifier: GPL-2.0
/*
 * Plain RC QPs on the soft device (plain.h), connected within the process:
 * to another plain QP of this device or to themselves. Programs open such
 * a QP beside their MRC QPs for a loopback RDMA READ (a flush of writes
 * into their own memory) or WRITE; between a host's own buffers that is
 * plain memory movement, done here at post time with the checks an RC
 * NIC makes (keys, bounds, the region's and the peer QP's access), and
 * completed on the plain CQs in order.
 *
 * One lock serves every plain QP of the process: a WR touches two QPs and
 * two regions, and these QPs carry flushes, not traffic.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gid.h"
#include "internal.h"
#include "plain.h"

struct plain_qp {
	struct ibv_qp ibv; /* first: the handle */
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr; /* as last set, for ibv_query_qp */
	uint64_t *rq; /* receive wr_ids, taken by WRITE_WITH_IMM */
	uint32_t rq_head, rq_n;
};

static pthread_mutex_t plain_lock = PTHREAD_MUTEX_INITIALIZER;
static struct plain_qp *plain_qps[PLAIN_MAX_QP];

int plain_qp_ours(struct ibv_qp *qp)
{
	return qp && soft_is_ours(qp->context);
}

static struct plain_qp *qp_by_num(uint32_t qpn)
{
	if (qpn < PLAIN_QPN_BASE || qpn >= PLAIN_QPN_BASE + PLAIN_MAX_QP)
		return NULL;
	return plain_qps[qpn - PLAIN_QPN_BASE];
}

struct ibv_qp *plain_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *a)
{
	struct plain_qp *q;
	int i;

	if (a->qp_type != IBV_QPT_RC || a->srq) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!plain_cq_ours(a->send_cq) || !plain_cq_ours(a->recv_cq) ||
	    a->send_cq->context != pd->context ||
	    a->recv_cq->context != pd->context ||
	    a->cap.max_send_wr > PLAIN_MAX_WR ||
	    a->cap.max_recv_wr > PLAIN_MAX_WR ||
	    a->cap.max_send_sge > PLAIN_MAX_SGE ||
	    a->cap.max_recv_sge > PLAIN_MAX_SGE || a->cap.max_inline_data) {
		errno = EINVAL;
		return NULL;
	}
	q = calloc(1, sizeof(*q));
	if (q)
		q->rq = calloc(a->cap.max_recv_wr + 1, sizeof(*q->rq));
	if (!q || !q->rq) {
		free(q);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&plain_lock);
	for (i = 0; i < PLAIN_MAX_QP && plain_qps[i]; i++)
		;
	if (i == PLAIN_MAX_QP) {
		pthread_mutex_unlock(&plain_lock);
		free(q->rq);
		free(q);
		errno = ENOMEM;
		return NULL;
	}
	q->init = *a;
	q->ibv.context = pd->context;
	q->ibv.qp_context = a->qp_context;
	q->ibv.pd = pd;
	q->ibv.send_cq = a->send_cq;
	q->ibv.recv_cq = a->recv_cq;
	q->ibv.qp_num = PLAIN_QPN_BASE + i;
	q->ibv.state = IBV_QPS_RESET;
	q->ibv.qp_type = IBV_QPT_RC;
	pthread_mutex_init(&q->ibv.mutex, NULL);
	pthread_cond_init(&q->ibv.cond, NULL);
	q->attr.qp_state = IBV_QPS_RESET;
	q->attr.cap = a->cap;
	plain_qps[i] = q;
	pthread_mutex_unlock(&plain_lock);
	plain_cq_use(a->send_cq, 1);
	plain_cq_use(a->recv_cq, 1);
	return &q->ibv;
}

int plain_destroy_qp(struct ibv_qp *qp)
{
	struct plain_qp *q = (struct plain_qp *)qp;

	pthread_mutex_lock(&plain_lock);
	plain_qps[qp->qp_num - PLAIN_QPN_BASE] = NULL;
	pthread_mutex_unlock(&plain_lock);
	plain_cq_use(qp->send_cq, -1);
	plain_cq_use(qp->recv_cq, -1);
	free(q->rq);
	free(q);
	return 0;
}

/* Does the AV name this device (any GID of any port), or no GID at all? */
static int av_is_local(struct ibv_context *ctx, const struct ibv_ah_attr *ah)
{
	struct soft_ctx *sc = (struct soft_ctx *)ctx;
	union ibv_gid g;
	uint8_t port;
	int i;

	if (!ah->is_global)
		return 1; /* a LID route: the port's own, LID 0 */
	for (port = 1; port <= sc->info.nports; port++)
		for (i = 0; i < GID_TBL_LEN; i++)
			if (!gid_query(ctx, port, i, &g) &&
			    !memcmp(g.raw, ah->grh.dgid.raw, sizeof(g.raw)))
				return 1;
	return 0;
}

/* Receive WRs not consumed: flushed, as an RC QP entering ERR does. */
static void flush_rq(struct plain_qp *q)
{
	struct ibv_wc wc = { .status = IBV_WC_WR_FLUSH_ERR,
			     .opcode = IBV_WC_RECV,
			     .qp_num = q->ibv.qp_num };

	for (; q->rq_n; q->rq_n--) {
		wc.wr_id = q->rq[q->rq_head];
		q->rq_head = (q->rq_head + 1) % (q->init.cap.max_recv_wr + 1);
		plain_cq_push(q->ibv.recv_cq, &wc);
	}
}

static int to_err(struct plain_qp *q)
{
	q->ibv.state = q->attr.qp_state = IBV_QPS_ERR;
	flush_rq(q);
	return 0;
}

static int modify_locked(struct plain_qp *q, struct ibv_qp_attr *a, int mask)
{
	enum ibv_qp_state cur = q->ibv.state, to = a->qp_state;
	struct soft_ctx *sc = (struct soft_ctx *)q->ibv.context;

	if (!(mask & IBV_QP_STATE))
		return EINVAL; /* nothing else may change without a move */
	if ((mask & IBV_QP_CUR_STATE) && a->cur_qp_state != cur)
		return EINVAL;
	if (mask & (IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE))
		return EOPNOTSUPP;
	if (to == IBV_QPS_ERR)
		return to_err(q);
	if (to == IBV_QPS_RESET) {
		q->rq_n = 0;
		memset(&q->attr, 0, sizeof(q->attr));
		q->attr.cap = q->init.cap;
		q->ibv.state = IBV_QPS_RESET;
		return 0;
	}
	if (!((cur == IBV_QPS_RESET && to == IBV_QPS_INIT) ||
	      (cur == IBV_QPS_INIT && to == IBV_QPS_INIT) ||
	      (cur == IBV_QPS_INIT && to == IBV_QPS_RTR) ||
	      (cur == IBV_QPS_RTR && to == IBV_QPS_RTS) ||
	      (cur == IBV_QPS_RTS && to == IBV_QPS_RTS)))
		return EINVAL;
	if ((mask & IBV_QP_PORT) &&
	    (a->port_num < 1 || a->port_num > sc->info.nports))
		return EINVAL;
	if ((mask & IBV_QP_PKEY_INDEX) && a->pkey_index)
		return EINVAL;
	if (to == IBV_QPS_RTR && cur == IBV_QPS_INIT) {
		if ((mask & (IBV_QP_AV | IBV_QP_DEST_QPN)) !=
		    (IBV_QP_AV | IBV_QP_DEST_QPN))
			return EINVAL;
		/*
		 * mrcd carries MRC QPs only: an RC peer must be a QP of this
		 * process on this device, named by one of its own GIDs.
		 */
		if (!av_is_local(q->ibv.context, &a->ah_attr) ||
		    !qp_by_num(a->dest_qp_num))
			return EOPNOTSUPP;
	}
	if (mask & IBV_QP_ACCESS_FLAGS)
		q->attr.qp_access_flags = a->qp_access_flags;
	if (mask & IBV_QP_PORT)
		q->attr.port_num = a->port_num;
	if (mask & IBV_QP_AV)
		q->attr.ah_attr = a->ah_attr;
	if (mask & IBV_QP_PATH_MTU)
		q->attr.path_mtu = a->path_mtu;
	if (mask & IBV_QP_DEST_QPN)
		q->attr.dest_qp_num = a->dest_qp_num;
	if (mask & IBV_QP_RQ_PSN)
		q->attr.rq_psn = a->rq_psn;
	if (mask & IBV_QP_SQ_PSN)
		q->attr.sq_psn = a->sq_psn;
	if (mask & IBV_QP_TIMEOUT)
		q->attr.timeout = a->timeout;
	if (mask & IBV_QP_RETRY_CNT)
		q->attr.retry_cnt = a->retry_cnt;
	if (mask & IBV_QP_RNR_RETRY)
		q->attr.rnr_retry = a->rnr_retry;
	if (mask & IBV_QP_MIN_RNR_TIMER)
		q->attr.min_rnr_timer = a->min_rnr_timer;
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
		q->attr.max_rd_atomic = a->max_rd_atomic;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		q->attr.max_dest_rd_atomic = a->max_dest_rd_atomic;
	q->ibv.state = q->attr.qp_state = to;
	return 0;
}

int plain_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	int err;

	pthread_mutex_lock(&plain_lock);
	err = modify_locked((struct plain_qp *)qp, attr, mask);
	pthread_mutex_unlock(&plain_lock);
	return err;
}

int plain_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
		   struct ibv_qp_init_attr *init_attr)
{
	struct plain_qp *q = (struct plain_qp *)qp;

	(void)mask; /* every field is at hand: all are filled */
	pthread_mutex_lock(&plain_lock);
	*attr = q->attr;
	attr->qp_state = attr->cur_qp_state = q->ibv.state;
	attr->cap = q->init.cap;
	if (init_attr)
		*init_attr = q->init;
	pthread_mutex_unlock(&plain_lock);
	return 0;
}

/* The bytes [addr, addr + len) of the region key names, if access allows. */
static uint8_t *mr_bytes(struct ibv_context *ctx, uint32_t key, uint64_t addr,
			 uint64_t len, unsigned int need)
{
	struct soft_mr *mr = soft_mr_by_key((struct soft_ctx *)ctx, key);
	uint64_t lo;

	if (!mr || (mr->access & need) != need)
		return NULL;
	lo = (uintptr_t)mr->ibv.addr;
	if (addr < lo || len > mr->ibv.length ||
	    addr - lo > mr->ibv.length - len)
		return NULL;
	return (uint8_t *)(uintptr_t)addr;
}

static uint64_t sge_total(const struct ibv_send_wr *wr)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++)
		n += wr->sg_list[i].length;
	return n;
}

/*
 * One WR between q and its peer p, both locked: the status of its
 * completion. Local keys are checked before any byte moves, so a failed
 * WR leaves both buffers as they were.
 */
static enum ibv_wc_status do_wr(struct plain_qp *q, struct plain_qp *p,
				const struct ibv_send_wr *wr)
{
	int write = wr->opcode != IBV_WR_RDMA_READ;
	unsigned int rneed = write ? IBV_ACCESS_REMOTE_WRITE :
				     IBV_ACCESS_REMOTE_READ;
	uint64_t total = sge_total(wr), off = 0;
	uint8_t *local[PLAIN_MAX_SGE], *remote;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		const struct ibv_sge *s = &wr->sg_list[i];

		local[i] = mr_bytes(q->ibv.context, s->lkey, s->addr, s->length,
				    write ? 0 : IBV_ACCESS_LOCAL_WRITE);
		if (!local[i])
			return IBV_WC_LOC_PROT_ERR;
	}
	if (!p || p->ibv.state < IBV_QPS_RTR || p->ibv.state > IBV_QPS_RTS)
		return IBV_WC_RETRY_EXC_ERR; /* no one answers */
	remote = (p->attr.qp_access_flags & rneed) ?
			 mr_bytes(p->ibv.context, wr->wr.rdma.rkey,
				  wr->wr.rdma.remote_addr, total, rneed) :
			 NULL;
	if (!remote)
		return IBV_WC_REM_ACCESS_ERR;
	if (wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM && !p->rq_n)
		return IBV_WC_RNR_RETRY_EXC_ERR;
	for (i = 0; i < wr->num_sge; i++) {
		uint32_t n = wr->sg_list[i].length;

		if (write)
			memmove(remote + off, local[i], n);
		else
			memmove(local[i], remote + off, n);
		off += n;
	}
	if (wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM) {
		struct ibv_wc rwc = { .wr_id = p->rq[p->rq_head],
				      .status = IBV_WC_SUCCESS,
				      .opcode = IBV_WC_RECV_RDMA_WITH_IMM,
				      .byte_len = (uint32_t)total,
				      .qp_num = p->ibv.qp_num,
				      .src_qp = q->ibv.qp_num,
				      .wc_flags = IBV_WC_WITH_IMM,
				      .imm_data = wr->imm_data };

		p->rq_head = (p->rq_head + 1) % (p->init.cap.max_recv_wr + 1);
		p->rq_n--;
		plain_cq_push(p->ibv.recv_cq, &rwc);
	}
	return IBV_WC_SUCCESS;
}

static void complete(struct plain_qp *q, const struct ibv_send_wr *wr,
		     enum ibv_wc_status st)
{
	struct ibv_wc wc = {
		.wr_id = wr->wr_id,
		.status = st,
		.opcode = wr->opcode == IBV_WR_RDMA_READ ? IBV_WC_RDMA_READ :
							   IBV_WC_RDMA_WRITE,
		.qp_num = q->ibv.qp_num,
	};

	if (wr->opcode == IBV_WR_RDMA_READ)
		wc.byte_len = (uint32_t)sge_total(wr);
	/* An error completes whether signaled or not, as on an RC NIC. */
	if (st != IBV_WC_SUCCESS || q->init.sq_sig_all ||
	    (wr->send_flags & IBV_SEND_SIGNALED))
		plain_cq_push(q->ibv.send_cq, &wc);
}

/* A WR the QP cannot take at all: refused at post, nothing completes. */
static int bad_wr_of(const struct plain_qp *q, const struct ibv_send_wr *wr)
{
	if (wr->opcode != IBV_WR_RDMA_WRITE &&
	    wr->opcode != IBV_WR_RDMA_WRITE_WITH_IMM &&
	    wr->opcode != IBV_WR_RDMA_READ)
		return EOPNOTSUPP;
	if (wr->num_sge < 0 || wr->num_sge > (int)q->init.cap.max_send_sge ||
	    wr->num_sge > PLAIN_MAX_SGE || (wr->send_flags & IBV_SEND_INLINE))
		return EINVAL;
	return 0;
}

int plain_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr)
{
	struct plain_qp *q = (struct plain_qp *)qp;
	int err = 0;

	pthread_mutex_lock(&plain_lock);
	for (; wr; wr = wr->next) {
		struct ibv_async_event ev = { .event_type =
						      IBV_EVENT_QP_ACCESS_ERR };
		enum ibv_wc_status st;
		struct plain_qp *p;

		if (q->ibv.state != IBV_QPS_RTS && q->ibv.state != IBV_QPS_ERR)
			err = EINVAL;
		else
			err = bad_wr_of(q, wr);
		if (err)
			break;
		if (q->ibv.state == IBV_QPS_ERR) {
			complete(q, wr, IBV_WC_WR_FLUSH_ERR);
			continue;
		}
		p = qp_by_num(q->attr.dest_qp_num);
		st = do_wr(q, p, wr);
		complete(q, wr, st);
		if (st == IBV_WC_SUCCESS)
			continue;
		/* The requester fails; a responder that refused access too. */
		to_err(q);
		if (st == IBV_WC_REM_ACCESS_ERR && p) {
			if (p != q)
				to_err(p);
			ev.element.qp = &p->ibv;
			async_post(p->ibv.context, &ev);
		}
	}
	pthread_mutex_unlock(&plain_lock);
	if (err && bad_wr)
		*bad_wr = wr;
	return err;
}

int plain_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr)
{
	struct plain_qp *q = (struct plain_qp *)qp;
	uint32_t slots = q->init.cap.max_recv_wr + 1;
	int err = 0;

	pthread_mutex_lock(&plain_lock);
	for (; wr; wr = wr->next) {
		if (q->ibv.state == IBV_QPS_RESET ||
		    wr->num_sge > (int)q->init.cap.max_recv_sge) {
			err = EINVAL;
			break;
		}
		if (q->rq_n >= q->init.cap.max_recv_wr) {
			err = ENOMEM;
			break;
		}
		q->rq[(q->rq_head + q->rq_n) % slots] = wr->wr_id;
		q->rq_n++;
	}
	if (!err && q->ibv.state == IBV_QPS_ERR)
		flush_rq(q);
	pthread_mutex_unlock(&plain_lock);
	if (err && bad_wr)
		*bad_wr = wr;
	return err;
}
