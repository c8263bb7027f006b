/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains plain verbs CQs and QPs on the soft device: RC QPs
 * whose peer is a QP of this process on this device (a loopback), their
 * RDMA WRITE, WRITE_WITH_IMM and READ done as memory movement in the
 * library, completions on plain CQs. mrcd carries only MRC QPs: an RC QP
 * that names another host cannot be connected (EOPNOTSUPP at RTR).
 */
#ifndef MRC_LIB_PLAIN_H
#define MRC_LIB_PLAIN_H

#include <infiniband/verbs.h>

/* Plain QP numbers start here, above every MRC QP number. */
#define PLAIN_QPN_BASE 0x10000
#define PLAIN_MAX_QP 256
#define PLAIN_MAX_CQE 65536
#define PLAIN_MAX_WR 4096
#define PLAIN_MAX_SGE 4

/* The context's ops that verbs.h's inline calls go through. */
void plain_ops_set(struct ibv_context *ctx);

/* As the verbs calls of the same names, on a soft context. */
struct ibv_cq *plain_create_cq(struct ibv_context *ctx, int cqe,
			       void *cq_context,
			       struct ibv_comp_channel *channel,
			       int comp_vector);
int plain_destroy_cq(struct ibv_cq *cq);
struct ibv_qp *plain_create_qp(struct ibv_pd *pd,
			       struct ibv_qp_init_attr *attr);
int plain_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask);
int plain_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
		   struct ibv_qp_init_attr *init_attr);
int plain_destroy_qp(struct ibv_qp *qp);

/* Is this CQ or QP one of ours (the device's own, not a real one)? */
int plain_cq_ours(struct ibv_cq *cq);
int plain_qp_ours(struct ibv_qp *qp);

/* A completion on cq (plain_cq.c); -ENOSPC when full (CQ_ERR posted). */
int plain_cq_push(struct ibv_cq *cq, const struct ibv_wc *wc);
/* A QP starts (delta 1) or stops (-1) completing on cq. */
void plain_cq_use(struct ibv_cq *cq, int delta);

/* The ops behind ibv_post_send and ibv_post_recv (plain_qp.c). */
int plain_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad_wr);
int plain_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
		    struct ibv_recv_wr **bad_wr);

/*
 * The soft context's verbs async events (verbs_async.c): the queue
 * behind its async_fd (an eventfd, ready while events wait).
 */
int async_init(struct ibv_context *ctx);
void async_fini(struct ibv_context *ctx);
void async_post(struct ibv_context *ctx, const struct ibv_async_event *ev);
int async_get(struct ibv_context *ctx, struct ibv_async_event *ev);

#endif /* MRC_LIB_PLAIN_H */
