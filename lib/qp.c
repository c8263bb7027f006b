// SPDX-License-Identifier: GPL-2.0
/*
 * QPs: creation and the RESET -> INIT -> RTR -> RTS state machine with the
 * attributes the OCP MRC API requires at each step (mrcd configures the
 * data path at RTR and RTS), and the send and receive queues. Posting a
 * send writes WQEs into the queue the data path reads and rings the QP's
 * doorbell; the application never waits for mrcd to answer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "compat.h"
#include "internal.h"
#include "log.h"
#include "mrc_ext.h"
#include "mrc/doorbell.h"

/* What each transition requires, verbs and MRC attributes. */
#define INIT_MRC (MRC_QP_HINT | MRC_EV_PROFILE_ID | MRC_CC_PROFILE_ID)
#define RTR_VERBS \
	(IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN)
#define RTR_MRC \
	(MRC_QP_MAX_WIMM_DEST | MRC_QP_MPR_DEST | MRC_QP_DYNAMIC_MPR_DEST)
#define RTS_VERBS IBV_QP_SQ_PSN
#define RTS_MRC \
	(MRC_QP_MAX_WIMM | MRC_QP_MPR | MRC_QP_RETRY_CNT | MRC_QP_TIMEOUT)

#define MAX_MPR 2 /* units of 128 PSNs: the receive window is 256 */
#define MAX_WIMM 65535
#define MAX_SGE 4

struct mrc_qp *mrc_create_qp(struct mrc_context *ctx,
			     struct mrc_qp_init_attr *a)
{
	struct mrcd_req req = { .op = MRCD_QP_CREATE };
	struct mrcd_rep rep;
	struct mrc_qp *qp;
	int fds[2], err;

	if (!ctx || !a || !a->send_cq || !a->recv_cq || !a->pd ||
	    a->send_cq->ctx != ctx || a->recv_cq->ctx != ctx ||
	    a->cap.max_send_wr > MRC_SQ_DEPTH ||
	    a->cap.max_send_sge > MAX_SGE || a->cap.max_recv_sge > MAX_SGE ||
	    a->cap.max_inline_data || a->cap.max_recv_wr > 65536 ||
	    (a->protocol_version &&
	     a->protocol_version != MRC_PROTOCOL_VERSION_1) ||
	    (a->send_ops_flags &
	     ~(uint64_t)(IBV_QP_EX_WITH_RDMA_WRITE |
			 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM))) {
		errno = EINVAL;
		return NULL;
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	qp->rq_cap = a->cap.max_recv_wr ? a->cap.max_recv_wr : 1;
	qp->rq = calloc(qp->rq_cap, sizeof(*qp->rq));
	if (!qp->rq) {
		free(qp);
		errno = ENOMEM;
		return NULL;
	}
	req.qp_create.pd = a->pd->handle;
	req.qp_create.send_cq = a->send_cq->idx;
	req.qp_create.recv_cq = a->recv_cq->idx;
	err = soft_call(ctx->sc, &req, &rep, fds, 2);
	if (!err && (fds[0] < 0 || fds[1] < 0))
		err = EPROTO;
	if (!err) {
		qp->sq = mmap(NULL, sizeof(struct mrc_sq),
			      PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
		if (qp->sq == MAP_FAILED)
			err = errno;
	}
	if (fds[0] >= 0)
		close(fds[0]);
	if (err) {
		if (fds[1] >= 0)
			close(fds[1]);
		free(qp->rq);
		free(qp);
		errno = err;
		return NULL;
	}
	qp->ctx = ctx;
	qp->init = *a;
	qp->init.cap.max_send_wr = a->cap.max_send_wr ? a->cap.max_send_wr :
							MRC_SQ_DEPTH;
	qp->init.cap.max_recv_wr = qp->rq_cap;
	qp->depth = qp->init.cap.max_send_wr;
	qp->qpn = rep.qp.qpn;
	qp->db_fd = fds[1];
	qp->db_token = rep.qp.db_token;
	qp->state = IBV_QPS_RESET;
	qp->m.qpn = qp->qpn;
	pthread_mutex_init(&qp->lock, NULL);
	/* A restarted mrcd's doorbell replaces this one under its number. */
	soft_db_add(ctx->sc, qp->qpn, &qp->db_fd);
	pthread_mutex_lock(&ctx->lock);
	ctx->qp[qp->qpn] = qp;
	if (qp->qpn >= ctx->qp_hi)
		ctx->qp_hi = qp->qpn + 1;
	ctx->nobj++;
	pthread_mutex_unlock(&ctx->lock);
	return qp;
}

int mrc_destroy_qp(struct mrc_qp *qp)
{
	struct mrcd_req req = { .op = MRCD_QP_DESTROY };
	struct mrcd_rep rep;
	struct mrc_context *ctx;
	int err;

	if (!qp)
		return fail_errno(EINVAL);
	ctx = qp->ctx;
	req.obj.idx = qp->qpn;
	err = soft_call(ctx->sc, &req, &rep, NULL, 0);
	if (err)
		return fail_errno(err);
	qp_unmark_failed(qp);
	pthread_mutex_lock(&ctx->lock);
	ctx->qp[qp->qpn] = NULL;
	ctx->nobj--;
	pthread_mutex_unlock(&ctx->lock);
	if (qp->mattr.qp_hint)
		qp->mattr.qp_hint->users--;
	munmap(qp->sq, sizeof(*qp->sq));
	soft_db_del(ctx->sc, qp->qpn, &qp->db_fd);
	close(qp->db_fd);
	free(qp->rq);
	free(qp);
	return 0;
}

int mrc_get_qpn(struct mrc_qp *qp, uint32_t *qpn)
{
	if (!qp || !qpn) {
		errno = EINVAL;
		return -1;
	}
	*qpn = qp->qpn;
	return 0;
}

/*
 * Payload bytes per packet for a path MTU: as IB sizes it, but no more
 * than the device's ports carry (mrcd says how much: a 1500-byte IP MTU
 * holds 1404 after the headers, so IBV_MTU_2048 gives 1404 there).
 */
static uint32_t mtu_bytes(const struct mrc_qp *qp, enum ibv_mtu mtu)
{
	uint32_t b = mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128u << mtu :
								 0,
		 max = qp->ctx->sc->info.max_mtu;

	return b > max ? max : b;
}

/* Checks and stores the MRC attributes in mask. */
static int take_mrc_attrs(struct mrc_qp *qp, const struct mrc_qp_attr *a,
			  int mask)
{
	if (mask & ~(RTR_MRC | RTS_MRC | INIT_MRC | MRC_QP_VENDOR_CFG))
		return EINVAL;
	if (!mask)
		return 0;
	if (!a)
		return EINVAL;
	if (((mask & MRC_QP_MPR) && (!a->mpr.mpr || a->mpr.mpr > MAX_MPR)) ||
	    ((mask & MRC_QP_MPR_DEST) &&
	     (!a->mpr.mpr_dest || a->mpr.mpr_dest > MAX_MPR)) ||
	    ((mask & MRC_QP_DYNAMIC_MPR_DEST) && a->mpr.dynamic_mpr_dest > 1) ||
	    ((mask & MRC_QP_TIMEOUT) && a->timeout > 24) ||
	    ((mask & MRC_QP_RETRY_CNT) &&
	     (a->retry.linear_cnt > 7 || a->retry.exp_cnt > 25)) ||
	    ((mask & MRC_QP_HINT) && a->qp_hint && a->qp_hint->ctx != qp->ctx))
		return EINVAL;
	if (mask & MRC_QP_MPR)
		qp->mattr.mpr.mpr = a->mpr.mpr;
	if (mask & MRC_QP_MPR_DEST)
		qp->mattr.mpr.mpr_dest = a->mpr.mpr_dest;
	if (mask & MRC_QP_DYNAMIC_MPR_DEST)
		qp->mattr.mpr.dynamic_mpr_dest = a->mpr.dynamic_mpr_dest;
	if (mask & MRC_QP_MAX_WIMM)
		qp->mattr.wimm.max_wimm = a->wimm.max_wimm;
	if (mask & MRC_QP_MAX_WIMM_DEST)
		qp->mattr.wimm.max_wimm_dest = a->wimm.max_wimm_dest;
	if (mask & MRC_QP_TIMEOUT)
		qp->mattr.timeout = a->timeout;
	if (mask & MRC_QP_RETRY_CNT)
		qp->mattr.retry = a->retry;
	if (mask & MRC_EV_PROFILE_ID)
		qp->mattr.profile.ev_profile_id = a->profile.ev_profile_id;
	if (mask & MRC_CC_PROFILE_ID)
		qp->mattr.profile.cc_profile_id = a->profile.cc_profile_id;
	if (mask & MRC_QP_HINT) {
		if (qp->mattr.qp_hint)
			qp->mattr.qp_hint->users--;
		qp->mattr.qp_hint = a->qp_hint;
		if (a->qp_hint)
			a->qp_hint->users++;
	}
	if (mask & MRC_QP_VENDOR_CFG)
		memcpy(qp->mattr.vendor_cfg, a->vendor_cfg,
		       sizeof(a->vendor_cfg));
	qp->have_mask |= mask;
	return 0;
}

static int take_verbs_attrs(struct mrc_qp *qp, const struct ibv_qp_attr *v,
			    int mask)
{
	/* Checks first: a refused call changes nothing. */
	if (((mask & IBV_QP_AV) && !v->ah_attr.is_global) || /* named by GID */
	    ((mask & IBV_QP_PATH_MTU) && !mtu_bytes(qp, v->path_mtu)) ||
	    ((mask & IBV_QP_DEST_QPN) && v->dest_qp_num >= 1u << 24) ||
	    ((mask & IBV_QP_PKEY_INDEX) && v->pkey_index))
		return EINVAL;
	if (mask & IBV_QP_AV) {
		memcpy(qp->m.peer_gid, v->ah_attr.grh.dgid.raw, 16);
		qp->vattr.ah_attr = v->ah_attr;
	}
	if (mask & IBV_QP_PATH_MTU) {
		qp->m.mtu = mtu_bytes(qp, v->path_mtu);
		qp->vattr.path_mtu = v->path_mtu;
	}
	if (mask & IBV_QP_DEST_QPN)
		qp->m.peer_qpn = v->dest_qp_num;
	if (mask & IBV_QP_RQ_PSN)
		qp->m.rq_psn = v->rq_psn & MRC_BTH_PSN_MASK;
	if (mask & IBV_QP_SQ_PSN)
		qp->m.sq_psn = v->sq_psn & MRC_BTH_PSN_MASK;
	if (mask & IBV_QP_ACCESS_FLAGS)
		qp->vattr.qp_access_flags = v->qp_access_flags;
	return 0;
}

static void fill_modify(struct mrc_qp *qp, uint32_t state)
{
	struct mrcd_qp_modify *m = &qp->m;

	m->state = state;
	m->window_rx = qp->mattr.mpr.mpr_dest * 128u;
	m->window_tx = qp->mattr.mpr.mpr * 128u;
	m->flags = qp->mattr.mpr.dynamic_mpr_dest ? MRCD_QPF_DYN_MPR : 0;
	m->max_wimm = qp->mattr.wimm.max_wimm;
	m->retry_linear = qp->mattr.retry.linear_cnt;
	m->retry_exp = qp->mattr.retry.exp_cnt;
	m->timeout_ns = 1024ull << qp->mattr.timeout; /* 1.024 us x 2^t */
	m->ev_profile_id = qp->mattr.profile.ev_profile_id;
	m->cc_profile_id = qp->mattr.profile.cc_profile_id;
}

int mrc_modify_qp(struct mrc_qp *qp, struct ibv_qp_attr *vattr, int vmask,
		  struct mrc_qp_attr *mattr, int mmask)
{
	struct mrcd_req req = { .op = MRCD_QP_MODIFY };
	struct mrc_device_attr dev;
	struct compat_say_ctx say;
	struct compat_qp_out c;
	struct compat_qp_in in;
	struct mrcd_rep rep;
	enum ibv_qp_state to;
	uint8_t old_mpr_dest;
	int err, vary;

	if (!qp || (vmask && !vattr) || (mmask && !mattr))
		return fail_errno(EINVAL);
	if ((vmask & IBV_QP_CUR_STATE) && vattr->cur_qp_state != qp->state)
		return fail_errno(EINVAL);
	to = (vmask & IBV_QP_STATE) ? vattr->qp_state : qp->state;
	/* RC-style setup: what MRC makes of it, or strict mode's refusal. */
	soft_device_attr(&dev);
	in = (struct compat_qp_in){ .from = qp->state,
				    .to = to,
				    .vmask = vmask,
				    .vattr = vattr,
				    .mmask = mmask,
				    .mattr = mattr,
				    .dev = &dev,
				    .strict = compat_strict() };
	say = (struct compat_say_ctx){ .qpn = qp->qpn,
				       .from = qp->state,
				       .to = to };
	err = compat_qp_attrs(&in, &c, compat_say_log, &say);
	if (err)
		return fail_errno(-err);
	vmask = c.vmask;
	mmask = c.mmask;
	mattr = &c.mattr;
	switch (to) {
	case IBV_QPS_INIT:
		if ((qp->state != IBV_QPS_RESET && qp->state != IBV_QPS_INIT) ||
		    (qp->state == IBV_QPS_RESET &&
		     (mmask & INIT_MRC) != INIT_MRC))
			return fail_errno(EINVAL);
		break;
	case IBV_QPS_RTR:
		if (qp->state != IBV_QPS_INIT ||
		    (vmask & RTR_VERBS) != RTR_VERBS ||
		    (mmask & RTR_MRC) != RTR_MRC)
			return fail_errno(EINVAL);
		break;
	case IBV_QPS_RTS:
		if ((qp->state == IBV_QPS_RTR &&
		     ((vmask & RTS_VERBS) != RTS_VERBS ||
		      (mmask & RTS_MRC) != RTS_MRC)) ||
		    (qp->state != IBV_QPS_RTR && qp->state != IBV_QPS_RTS))
			return fail_errno(EINVAL);
		break;
	case IBV_QPS_ERR:
	case IBV_QPS_RESET:
		break;
	default:
		return fail_errno(EINVAL); /* SQD, SQE: not in MRC */
	}
	pthread_mutex_lock(&qp->lock);
	old_mpr_dest = qp->mattr.mpr.mpr_dest;
	err = take_verbs_attrs(qp, vattr, vmask);
	if (!err)
		err = take_mrc_attrs(qp, mattr, mmask);
	/* RTS to RTS with MRC_QP_MPR_DEST: the responder varies its MPR,
	 * which mrcd allows with dynamic MPR in effect. */
	vary = !err && to == IBV_QPS_RTS && qp->state == IBV_QPS_RTS &&
	       (mmask & MRC_QP_MPR_DEST) &&
	       qp->mattr.mpr.mpr_dest != old_mpr_dest;
	if (err || (to == qp->state && !vary)) {
		pthread_mutex_unlock(&qp->lock);
		return err ? fail_errno(err) : 0;
	}
	fill_modify(qp, to);
	req.qp_modify = qp->m;
	err = soft_call(qp->ctx->sc, &req, &rep, NULL, 0);
	if (vary) {
		if (err)
			qp->mattr.mpr.mpr_dest = old_mpr_dest;
		pthread_mutex_unlock(&qp->lock);
		return err ? fail_errno(err) : 0;
	}
	if (!err) {
		struct mrc_cq *scq = qp->init.send_cq, *rcq = qp->init.recv_cq;

		/* Completion order restarts with each configuration. */
		if (to == IBV_QPS_RTR)
			rcq->expect[qp->qpn][1] = 0;
		if (to == IBV_QPS_RTS)
			scq->expect[qp->qpn][0] = 0;
		if (to == IBV_QPS_RESET) {
			qp->rq_head = qp->rq_tail = 0;
			qp->err_seen = 0;
		}
		qp->state = to;
	}
	pthread_mutex_unlock(&qp->lock);
	if (!err && to == IBV_QPS_ERR)
		qp_mark_failed(qp);
	if (!err && to == IBV_QPS_RESET)
		qp_unmark_failed(qp);
	return err ? fail_errno(err) : 0;
}

int mrcx_query_qp_health(struct mrc_qp *qp, uint32_t after,
			 struct mrcd_qp_health *h)
{
	struct mrcd_req req = { .op = MRCD_QP_HEALTH };
	struct mrcd_rep rep;
	int err;

	if (!qp || !h)
		return fail_errno(EINVAL);
	req.qp_health.qpn = qp->qpn;
	req.qp_health.after = after;
	err = soft_call(qp->ctx->sc, &req, &rep, NULL, 0);
	if (err)
		return fail_errno(err);
	*h = rep.qp_health;
	return 0;
}

int mrc_query_qp(struct mrc_qp *qp, struct ibv_qp_attr *vattr, int vmask,
		 struct mrc_qp_attr *mattr, int mmask,
		 struct mrc_qp_init_attr *init_attr)
{
	struct mrcd_req req = { .op = MRCD_QP_QUERY };
	struct mrcd_rep rep;
	int err;

	if (!qp)
		return fail_errno(EINVAL);
	pthread_mutex_lock(&qp->lock);
	/* The data path may have moved it to ERR (retries exhausted). */
	if (qp->state == IBV_QPS_RTS &&
	    __atomic_load_n(&qp->sq->state, __ATOMIC_ACQUIRE) == MRC_QPS_ERR)
		qp->state = IBV_QPS_ERR;
	if (vattr && vmask) {
		*vattr = qp->vattr;
		vattr->qp_state = vattr->cur_qp_state = qp->state;
		vattr->dest_qp_num = qp->m.peer_qpn;
		vattr->rq_psn = qp->m.rq_psn;
		vattr->sq_psn = qp->m.sq_psn;
		vattr->cap = qp->init.cap;
	}
	if (mattr && mmask)
		*mattr = qp->mattr;
	if (init_attr)
		*init_attr = qp->init;
	pthread_mutex_unlock(&qp->lock);
	if (qp->state == IBV_QPS_RTS &&
	    ((vattr && (vmask & IBV_QP_STATE)) ||
	     (mattr && (mmask & MRC_QP_DYNAMIC_MPR_DEST)))) {
		req.obj.idx = qp->qpn;
		err = soft_call(qp->ctx->sc, &req, &rep, NULL, 0);
		if (err)
			return fail_errno(err);
		if (vattr && (vmask & IBV_QP_STATE) &&
		    rep.qp_query.state == MRC_QPS_ERR)
			vattr->qp_state = vattr->cur_qp_state = IBV_QPS_ERR;
		/* In RTS the query says whether it is in effect: both
		 * peers enabled it (docs/libmrc.md, "Dynamic MPR"). */
		if (mattr && (mmask & MRC_QP_DYNAMIC_MPR_DEST))
			mattr->mpr.dynamic_mpr_dest =
				(rep.qp_query.dyn_mpr & 3) == 3;
	}
	return 0;
}

int mrc_post_recv(struct mrc_qp *qp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr)
{
	int err = 0;

	if (!qp || !wr) {
		if (bad_wr)
			*bad_wr = wr;
		return fail_errno(EINVAL);
	}
	pthread_mutex_lock(&qp->lock);
	for (; wr; wr = wr->next) {
		if (qp->state == IBV_QPS_RESET || qp->state == IBV_QPS_ERR ||
		    wr->num_sge < 0 ||
		    (uint32_t)wr->num_sge > qp->init.cap.max_recv_sge + 1) {
			err = EINVAL;
			break;
		}
		if (qp->rq_tail - qp->rq_head >= qp->rq_cap) {
			err = ENOMEM;
			break;
		}
		qp->rq[qp->rq_tail++ % qp->rq_cap] = wr->wr_id;
	}
	pthread_mutex_unlock(&qp->lock);
	if (err && bad_wr)
		*bad_wr = wr;
	return err ? fail_errno(err) : 0;
}

/* One scatter entry resolved: its region's map offset. */
struct piece {
	uint64_t laddr;
	uint32_t lkey, len;
};

static int resolve_sges(struct mrc_qp *qp, const struct ibv_send_wr *wr,
			struct piece *p, int *np)
{
	int i, n = 0;

	if (wr->num_sge < 0 || wr->num_sge > MAX_SGE)
		return EINVAL;
	for (i = 0; i < wr->num_sge; i++) {
		const struct ibv_sge *s = &wr->sg_list[i];
		struct soft_mr *mr = soft_mr_by_key(qp->ctx->sc, s->lkey);
		uint64_t off;

		if (!mr || s->addr < (uintptr_t)mr->ibv.addr ||
		    s->addr - (uintptr_t)mr->ibv.addr > mr->ibv.length ||
		    s->length > mr->ibv.length -
					(s->addr - (uintptr_t)mr->ibv.addr) ||
		    mr->ibv.pd != qp->init.pd)
			return EINVAL; /* local protection */
		if (!s->length)
			continue;
		off = s->addr - (uintptr_t)mr->base;
		/* Neighbours in one region merge into one WQE. */
		if (n && p[n - 1].lkey == s->lkey &&
		    p[n - 1].laddr + p[n - 1].len == off) {
			p[n - 1].len += s->length;
			continue;
		}
		p[n].laddr = off;
		p[n].lkey = s->lkey;
		p[n].len = s->length;
		n++;
	}
	if (!n) { /* a zero-length WRITE still goes out and completes */
		p[0].laddr = 0;
		p[0].lkey = 0;
		p[0].len = 0;
		n = 1;
	}
	*np = n;
	return 0;
}

static int post_one(struct mrc_qp *qp, const struct ibv_send_wr *wr)
{
	struct piece p[MAX_SGE];
	struct mrc_sq *sq = qp->sq;
	uint32_t tail = sq->tail, total = 0, done;
	uint64_t raddr = wr->wr.rdma.remote_addr;
	int n, i, err;

	if (wr->opcode != IBV_WR_RDMA_WRITE &&
	    wr->opcode != IBV_WR_RDMA_WRITE_WITH_IMM)
		return EINVAL;
	if (wr->send_flags & IBV_SEND_INLINE)
		return EINVAL; /* max_inline_data is 0 */
	err = resolve_sges(qp, wr, p, &n);
	if (err)
		return err;
	done = __atomic_load_n(&sq->done, __ATOMIC_ACQUIRE);
	if (tail - done + n > qp->depth)
		return ENOMEM;
	for (i = 0; i < n; i++)
		total += p[i].len;
	for (i = 0; i < n; i++) {
		struct mrc_wqe *w = &sq->wqe[(tail + i) % MRC_SQ_DEPTH];
		int last = i == n - 1;

		w->wr_id = wr->wr_id;
		w->laddr = p[i].laddr;
		w->raddr = raddr;
		w->lkey = p[i].lkey;
		w->rkey = wr->wr.rdma.rkey;
		w->len = p[i].len;
		w->imm = wr->imm_data;
		w->opcode = last && wr->opcode == IBV_WR_RDMA_WRITE_WITH_IMM ?
				    MRC_WR_RDMA_WRITE_WITH_IMM :
				    MRC_WR_RDMA_WRITE;
		w->flags = !last ? MRC_WQE_PIECE :
			   (qp->init.sq_sig_all ||
			    (wr->send_flags & IBV_SEND_SIGNALED)) ?
				   MRC_SEND_SIGNALED :
				   0;
		w->msg_len = n > 1 && last ? total : 0;
		raddr += p[i].len;
	}
	__atomic_store_n(&sq->tail, tail + n, __ATOMIC_SEQ_CST);
	return 0;
}

/*
 * The low-latency doorbell sends one packet (docs/lowlat.md): worth it
 * when the queue was idle and the post is one WQE of one packet. mrcd's
 * sweep catches anything it leaves behind.
 */
static int ring_lowlat(struct mrc_qp *qp)
{
	struct soft_ctx *sc = qp->ctx->sc;
	int fd = __atomic_load_n(&sc->db_sock, __ATOMIC_ACQUIRE);

	if (!sc->info.lowlat || fd == -2)
		return -1;
	if (fd == -1) {
		int nfd = mrc_doorbell_socket(), exp = -1;

		if (nfd < 0) {
			lib_info(
				"low-latency doorbells off: %s (doorbells go to mrcd)\n",
				strerror(-nfd));
			nfd = -2;
		}
		if (!__atomic_compare_exchange_n(&sc->db_sock, &exp, nfd, 0,
						 __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE)) {
			if (nfd >= 0)
				close(nfd);
			nfd = exp;
		}
		if (nfd < 0)
			return -1;
		fd = nfd;
	}
	return mrc_doorbell_ring(fd, qp->qpn, qp->db_token) ? -1 : 0;
}

int qp_ring_unserved(struct mrc_qp *qp)
{
	struct mrc_sq *sq = qp->sq;

	if (qp->state != IBV_QPS_RTS ||
	    !__atomic_load_n(&sq->no_pump, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&sq->tail, __ATOMIC_ACQUIRE) ==
		    __atomic_load_n(&sq->done, __ATOMIC_ACQUIRE))
		return 0;
	return !ring_lowlat(qp);
}

/*
 * May a doorbell send the one-packet WQE at tail0? The tc program sends
 * the QP's next packet: this WQE's only if every WQE before it is already
 * sent (sq->sent) and the peer's window has room beyond the packets of
 * those not yet acknowledged (at most a few, counted from their lengths).
 * A wrong guess costs time, not data: mrcd's sweep sends what is left.
 */
static bool lowlat_fits(const struct mrc_qp *qp, uint32_t tail0, uint32_t done0)
{
	uint32_t sent = __atomic_load_n(&qp->sq->sent, __ATOMIC_ACQUIRE);
	uint32_t i, pkts = 1,
		    win = qp->m.window_tx < qp->m.window_rx ? qp->m.window_tx :
							      qp->m.window_rx;

	if (sent != tail0 || tail0 - done0 > 4)
		return false;
	for (i = done0; i != tail0; i++)
		pkts += (qp->sq->wqe[i % MRC_SQ_DEPTH].len + qp->m.mtu - 1) / qp->m.mtu ?:
				1;
	return pkts <= win;
}

int mrc_post_send(struct mrc_qp *qp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr)
{
	uint32_t tail0, done0, len0 = 0;
	uint64_t one = 1;
	int err = 0, posted = 0;

	if (!qp || !wr) {
		if (bad_wr)
			*bad_wr = wr;
		return fail_errno(EINVAL);
	}
	pthread_mutex_lock(&qp->lock);
	tail0 = qp->sq->tail;
	done0 = __atomic_load_n(&qp->sq->done, __ATOMIC_ACQUIRE);
	if (qp->state != IBV_QPS_RTS ||
	    __atomic_load_n(&qp->sq->state, __ATOMIC_ACQUIRE) == MRC_QPS_ERR)
		err = EINVAL;
	for (; wr && !err; wr = wr->next) {
		err = post_one(qp, wr);
		if (err)
			break;
		posted++;
	}
	if (posted)
		len0 = qp->sq->wqe[tail0 % MRC_SQ_DEPTH].len;
	/*
	 * No mrcd serves the queue (killed, or restarting): the doorbell's
	 * packet is what sends anything, its ACK the rest, until the next
	 * mrcd, which the eventfd below still tells. Read after the tail is
	 * stored, as a stopping mrcd marks before it sends its QPs' last
	 * packets: one of the two sees the other.
	 */
	if (posted && __atomic_load_n(&qp->sq->no_pump, __ATOMIC_SEQ_CST))
		ring_lowlat(qp);
	else if (posted && qp->sq->tail - tail0 == 1 && len0 <= qp->m.mtu &&
		 lowlat_fits(qp, tail0, done0) && !ring_lowlat(qp))
		posted = 0; /* rung */
	/* mrcd is sending from this queue: it sees the new tail itself. */
	if (posted && __atomic_load_n(&qp->sq->pumping, __ATOMIC_SEQ_CST))
		posted = 0;
	pthread_mutex_unlock(&qp->lock);
	if (posted) {
		if (write(qp->db_fd, &one, sizeof(one)) < 0 &&
		    errno != EAGAIN && !err)
			err = errno;
		/* mrcd may have restarted: we would not know until a call. */
		soft_check_link(qp->ctx->sc);
	}
	if (err && bad_wr)
		*bad_wr = wr;
	return err ? fail_errno(err) : 0;
}
