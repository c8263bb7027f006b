// SPDX-License-Identifier: GPL-2.0
/*
 * The MRC context (the parent of an application's MRC objects on one
 * device), device query, QP hints and asynchronous events.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "compat.h"
#include "internal.h"
#include "log.h"

void soft_device_attr(struct mrc_device_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->mrc_protocol_version = MRC_PROTOCOL_VERSION_1;
	attr->wimm_attr.max_wimm = 65535;
	attr->wimm_attr.max_wimm_dest = 65535;
	attr->mpr_attr.max_mpr = 2; /* 256 PSNs: the receive window */
	attr->mpr_attr.mpr_resolution = 1;
	/* A responder may vary its MPR; in effect when both peers say so
	 * (docs/libmrc.md, "Dynamic MPR"). */
	attr->mpr_attr.dynamic_mpr = 1;
	attr->qp_attr.max_qp_hint = 1024;
}

/* Parenthesised: mrc.h makes the name a macro from API 1.0.1 on. */
int(mrc_query_device)(struct ibv_context *context, struct mrc_device_attr *attr,
		      int *supported)
{
	if (!context || !attr || !supported)
		return fail_errno(EINVAL);
	*supported = soft_is_ours(context);
	if (!*supported) {
		memset(attr, 0, sizeof(*attr));
		return 0;
	}
	soft_device_attr(attr);
	return 0;
}

int mrcx_query_device_mctx(struct mrc_context *ctx,
			   struct mrc_device_attr *attr, int *supported)
{
	if (!ctx)
		return fail_errno(EINVAL);
	return (mrc_query_device)(&ctx->sc->ibv, attr, supported);
}

void mrc_query_version(uint32_t *current_version,
		       uint32_t *last_supported_version,
		       uint32_t *vendor_version,
		       uint32_t *last_supported_vendor_version)
{
	if (current_version)
		*current_version = MRC_API_CURRENT_VERSION;
	if (last_supported_version)
		*last_supported_version = MRC_API_LAST_SUPPORTED_VERSION;
	if (vendor_version)
		*vendor_version = MRC_VENDOR_API_CURRENT_VERSION;
	if (last_supported_vendor_version)
		*last_supported_vendor_version =
			MRC_VENDOR_API_LAST_SUPPORTED_VERSION;
}

struct mrc_context *mrc_create_context(struct ibv_context *vcontext,
				       struct mrc_context_attr *attr)
{
	struct mrc_context *ctx;
	uint32_t asked = attr ? attr->mrc_api_version_used : MRC_API_VER_LATEST,
		 v;
	int err;

	if (!soft_is_ours(vcontext)) {
		errno = EOPNOTSUPP; /* not an MRC device */
		return NULL;
	}
	err = compat_api_version(asked, &v);
	if (err) {
		lib_err("mrc_create_context: API version %u.%u.%u (%#x) is newer than this library's %u.%u.%u\n",
			asked >> MRC_API_VER_MAJOR_OFFSET,
			(asked >> MRC_API_VER_MINOR_OFFSET) & 0xff,
			asked & 0xffff, asked,
			MRC_API_CURRENT_VERSION >> MRC_API_VER_MAJOR_OFFSET,
			(MRC_API_CURRENT_VERSION >> MRC_API_VER_MINOR_OFFSET) &
				0xff,
			MRC_API_CURRENT_VERSION & 0xffff);
		errno = -err;
		return NULL;
	}
	/*
	 * Accepted (OCP's oldest is 0.0.0), but a value below 1.0.0 is no
	 * version of this API: MRC_PROTOCOL_VERSION_1 or 0 where
	 * MRC_API_VER(...) was meant. Say so where portability is checked.
	 */
	if (v < MRC_API_VER(1, 0, 0) && compat_strict())
		lib_warn(
			"mrc_create_context: mrc_api_version_used %#x is %u.%u.%u, not a released API version (MRC_API_VER(1, 0, 1) or MRC_API_VER_LATEST): accepted (MRC_STRICT=1)\n",
			v, v >> MRC_API_VER_MAJOR_OFFSET,
			(v >> MRC_API_VER_MINOR_OFFSET) & 0xff, v & 0xffff);
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx) {
		errno = ENOMEM;
		return NULL;
	}
	ctx->async_fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (ctx->async_fd < 0) {
		free(ctx);
		return NULL;
	}
	ctx->sc = (struct soft_ctx *)vcontext;
	ctx->api_version = v;
	pthread_mutex_init(&ctx->lock, NULL);
	return ctx;
}

int mrc_destroy_context(struct mrc_context *ctx)
{
	if (!ctx) {
		errno = EINVAL;
		return -1;
	}
	if (ctx->nobj) {
		errno = EBUSY;
		return -1;
	}
	close(ctx->async_fd);
	free(ctx);
	return 0;
}

struct mrc_qp_hint *mrc_create_qp_hint(struct mrc_context *ctx,
				       struct mrc_qp_hint_init_attr *init_attr)
{
	struct mrc_qp_hint *h;

	if (!ctx || !init_attr || init_attr->attr.num_qps_per_peer < 0 ||
	    init_attr->attr.num_send_peers < 0 ||
	    init_attr->attr.num_remote_recv_peers < 0) {
		errno = EINVAL;
		return NULL;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		errno = ENOMEM;
		return NULL;
	}
	h->ctx = ctx;
	h->attr = init_attr->attr;
	pthread_mutex_lock(&ctx->lock);
	ctx->nobj++;
	pthread_mutex_unlock(&ctx->lock);
	return h;
}

int mrc_destroy_qp_hint(struct mrc_qp_hint *h)
{
	if (!h)
		return fail_errno(EINVAL);
	if (h->users)
		return fail_errno(EBUSY);
	pthread_mutex_lock(&h->ctx->lock);
	h->ctx->nobj--;
	pthread_mutex_unlock(&h->ctx->lock);
	free(h);
	return 0;
}

#define HINT_MASK                                                    \
	(MRC_QP_HINT_NUM_QPS_PER_PEER | MRC_QP_HINT_NUM_SEND_PEERS | \
	 MRC_QP_HINT_NUM_REMOTE_RECV_PEERS | MRC_QP_HINT_VENDOR_CFG)

static void hint_copy(struct mrc_qp_hint_attr *to,
		      const struct mrc_qp_hint_attr *from, int mask)
{
	if (mask & MRC_QP_HINT_NUM_QPS_PER_PEER)
		to->num_qps_per_peer = from->num_qps_per_peer;
	if (mask & MRC_QP_HINT_NUM_SEND_PEERS)
		to->num_send_peers = from->num_send_peers;
	if (mask & MRC_QP_HINT_NUM_REMOTE_RECV_PEERS)
		to->num_remote_recv_peers = from->num_remote_recv_peers;
	if (mask & MRC_QP_HINT_VENDOR_CFG)
		memcpy(to->vendor_cfg, from->vendor_cfg,
		       sizeof(to->vendor_cfg));
}

int mrc_query_qp_hint(struct mrc_qp_hint *h, struct mrc_qp_hint_attr *attr,
		      int mask)
{
	if (!h || !attr || (mask & ~HINT_MASK))
		return fail_errno(EINVAL);
	hint_copy(attr, &h->attr, mask);
	return 0;
}

int mrc_modify_qp_hint(struct mrc_qp_hint *h, struct mrc_qp_hint_attr *attr,
		       int mask)
{
	if (!h || !attr || (mask & ~HINT_MASK) ||
	    ((mask & MRC_QP_HINT_NUM_QPS_PER_PEER) &&
	     attr->num_qps_per_peer < 0) ||
	    ((mask & MRC_QP_HINT_NUM_SEND_PEERS) && attr->num_send_peers < 0) ||
	    ((mask & MRC_QP_HINT_NUM_REMOTE_RECV_PEERS) &&
	     attr->num_remote_recv_peers < 0))
		return fail_errno(EINVAL);
	hint_copy(&h->attr, attr, mask);
	return 0;
}

/* Queues an event (libmrc notices QP failures while polling). */
void ctx_post_async(struct mrc_context *ctx, const struct mrc_async_event *ev)
{
	uint64_t one = 1;

	pthread_mutex_lock(&ctx->lock);
	if (ctx->nasync < MRC_MAX_ASYNC) {
		ctx->async[ctx->nasync++] = *ev;
		if (write(ctx->async_fd, &one, sizeof(one)) < 0)
			ctx->nasync--;
	}
	pthread_mutex_unlock(&ctx->lock);
}

int mrc_get_async_event(struct mrc_context *ctx, struct mrc_async_event *event)
{
	uint64_t v;

	if (!ctx || !event)
		return fail_errno(EINVAL);
	while (read(ctx->async_fd, &v, sizeof(v)) < 0)
		if (errno != EINTR)
			return fail_errno(errno);
	pthread_mutex_lock(&ctx->lock);
	*event = ctx->async[0];
	memmove(&ctx->async[0], &ctx->async[1],
		--ctx->nasync * sizeof(ctx->async[0]));
	pthread_mutex_unlock(&ctx->lock);
	return 0;
}

void mrc_ack_async_event(struct mrc_async_event *event)
{
	(void)event; /* nothing is held for an event */
}
