// SPDX-License-Identifier: GPL-2.0
/*
 * Plain verbs CQs on the soft device (plain.h): a ring of work
 * completions that loopback QPs fill as they complete, polled through the
 * context's ops as verbs.h's ibv_poll_cq does. No completion channel: the
 * soft device has no kernel to signal one (EOPNOTSUPP).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "plain.h"

struct plain_cq {
	struct ibv_cq ibv; /* first: the handle */
	pthread_mutex_t lock;
	struct ibv_wc *wc;
	int cap, head, n;
	int users; /* QPs that complete here */
	int overrun;
};

int plain_cq_ours(struct ibv_cq *cq)
{
	return cq && soft_is_ours(cq->context);
}

struct ibv_cq *plain_create_cq(struct ibv_context *ctx, int cqe,
			       void *cq_context,
			       struct ibv_comp_channel *channel,
			       int comp_vector)
{
	struct plain_cq *c;

	if (channel) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (cqe < 1 || cqe > PLAIN_MAX_CQE || comp_vector < 0 ||
	    comp_vector >= ctx->num_comp_vectors) {
		errno = EINVAL;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (c)
		c->wc = calloc(cqe, sizeof(*c->wc));
	if (!c || !c->wc) {
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	c->cap = cqe;
	pthread_mutex_init(&c->lock, NULL);
	pthread_mutex_init(&c->ibv.mutex, NULL);
	pthread_cond_init(&c->ibv.cond, NULL);
	c->ibv.context = ctx;
	c->ibv.cq_context = cq_context;
	c->ibv.cqe = cqe;
	return &c->ibv;
}

int plain_destroy_cq(struct ibv_cq *cq)
{
	struct plain_cq *c = (struct plain_cq *)cq;

	pthread_mutex_lock(&c->lock);
	if (c->users) {
		pthread_mutex_unlock(&c->lock);
		return EBUSY;
	}
	pthread_mutex_unlock(&c->lock);
	pthread_mutex_destroy(&c->lock);
	free(c->wc);
	free(c);
	return 0;
}

void plain_cq_use(struct ibv_cq *cq, int delta)
{
	struct plain_cq *c = (struct plain_cq *)cq;

	pthread_mutex_lock(&c->lock);
	c->users += delta;
	pthread_mutex_unlock(&c->lock);
}

int plain_cq_push(struct ibv_cq *cq, const struct ibv_wc *wc)
{
	struct plain_cq *c = (struct plain_cq *)cq;
	struct ibv_async_event ev = { .element.cq = cq,
				      .event_type = IBV_EVENT_CQ_ERR };
	int first = 0;

	pthread_mutex_lock(&c->lock);
	if (c->n == c->cap) {
		/* As a NIC's CQ overrun: the completion is lost, said once. */
		first = !c->overrun;
		c->overrun = 1;
		pthread_mutex_unlock(&c->lock);
		if (first)
			async_post(cq->context, &ev);
		return -ENOSPC;
	}
	c->wc[(c->head + c->n) % c->cap] = *wc;
	c->n++;
	pthread_mutex_unlock(&c->lock);
	return 0;
}

static int plain_poll_cq(struct ibv_cq *cq, int num, struct ibv_wc *wc)
{
	struct plain_cq *c = (struct plain_cq *)cq;
	int i;

	if (num < 0)
		return -1;
	pthread_mutex_lock(&c->lock);
	for (i = 0; i < num && c->n; i++) {
		wc[i] = c->wc[c->head];
		c->head = (c->head + 1) % c->cap;
		c->n--;
	}
	pthread_mutex_unlock(&c->lock);
	return i;
}

/* Without a channel there is nothing to arm: accepted, as a no-op. */
static int plain_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	(void)cq;
	(void)solicited_only;
	return 0;
}

void plain_ops_set(struct ibv_context *ctx)
{
	ctx->ops.poll_cq = plain_poll_cq;
	ctx->ops.req_notify_cq = plain_req_notify_cq;
	ctx->ops.post_send = plain_post_send;
	ctx->ops.post_recv = plain_post_recv;
}
