// SPDX-License-Identifier: GPL-2.0
/*
 * The verbs calls MRC programs make beside the MRC API: plain CQs and QPs
 * (plain.h), async events, fork init, dmabuf registration, completion
 * channels. On the soft device each gets what the device can give, or a
 * clear errno; on a real device each is the real libibverbs' call.
 */
#include <errno.h>

#include "bind.h"
#include "internal.h"
#include "plain.h"

struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)
{
	/* No kernel to signal one: plain CQs are polled. */
	if (soft_is_ours(context)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	BIND_FORWARD(ibv_create_comp_channel, NULL, context);
}

struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe,
			     void *cq_context, struct ibv_comp_channel *channel,
			     int comp_vector)
{
	if (soft_is_ours(context))
		return plain_create_cq(context, cqe, cq_context, channel,
				       comp_vector);
	BIND_FORWARD(ibv_create_cq, NULL, context, cqe, cq_context, channel,
		     comp_vector);
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
	if (plain_cq_ours(cq)) {
		int err = plain_destroy_cq(cq);

		return err ? fail_errno(err) : 0;
	}
	BIND_FORWARD(ibv_destroy_cq, ENODEV, cq);
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd,
			     struct ibv_qp_init_attr *qp_init_attr)
{
	if (soft_is_ours(pd->context))
		return plain_create_qp(pd, qp_init_attr);
	BIND_FORWARD(ibv_create_qp, NULL, pd, qp_init_attr);
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	if (plain_qp_ours(qp)) {
		int err = plain_modify_qp(qp, attr, attr_mask);

		return err ? fail_errno(err) : 0;
	}
	BIND_FORWARD(ibv_modify_qp, ENODEV, qp, attr, attr_mask);
}

int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		 struct ibv_qp_init_attr *init_attr)
{
	if (plain_qp_ours(qp))
		return plain_query_qp(qp, attr, attr_mask, init_attr);
	BIND_FORWARD(ibv_query_qp, ENODEV, qp, attr, attr_mask, init_attr);
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	if (plain_qp_ours(qp))
		return plain_destroy_qp(qp);
	BIND_FORWARD(ibv_destroy_qp, ENODEV, qp);
}

int ibv_get_async_event(struct ibv_context *context,
			struct ibv_async_event *event)
{
	if (soft_is_ours(context)) {
		int err = async_get(context, event);

		if (err) {
			errno = -err;
			return -1;
		}
		return 0;
	}
	BIND_FORWARD(ibv_get_async_event, -1, context, event);
}

void ibv_ack_async_event(struct ibv_async_event *event)
{
	void (*real)(struct ibv_async_event *);

	/*
	 * A soft event holds nothing (the QP or CQ may go at any time):
	 * the element's context says whose it is.
	 */
	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR:
		if (plain_cq_ours(event->element.cq))
			return;
		break;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		if (plain_qp_ours(event->element.qp))
			return;
		break;
	default:
		break;
	}
	real = (void (*)(struct ibv_async_event *))bind_real(
		"ibv_ack_async_event");
	if (real)
		real(event);
}

/*
 * Device memory here is shared mappings of BPF maps, which a fork()
 * shares rather than copies: nothing to prepare. The real libibverbs'
 * answer counts where it is loaded (a real device may need MADV_DONTFORK).
 */
int ibv_fork_init(void)
{
	int (*real)(void) = (int (*)(void))bind_real("ibv_fork_init");

	return real ? real() : 0;
}

struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset,
				 size_t length, uint64_t iova, int fd,
				 int access)
{
	/* mrcd's regions are BPF maps: a dmabuf cannot become one. */
	if (soft_is_ours(pd->context)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	BIND_FORWARD(ibv_reg_dmabuf_mr, NULL, pd, offset, length, iova, fd,
		     access);
}
