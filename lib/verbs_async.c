// SPDX-License-Identifier: GPL-2.0
/*
 * The soft context's verbs async events (plain.h): what plain QPs and CQs
 * report (a QP that refused a peer's access, a CQ overrun), read with
 * ibv_get_async_event. A NIC's driver reports them on the context's
 * async_fd; here that fd is an eventfd in semaphore mode, one count per
 * event queued, so a program that polls async_fd, or set it O_NONBLOCK
 * and reads EAGAIN, sees what it would see on a NIC. MRC QPs report
 * theirs on the MRC context (mrc_get_async_event), as OCP has it.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "internal.h"
#include "plain.h"

int async_init(struct ibv_context *ctx)
{
	struct soft_ctx *sc = (struct soft_ctx *)ctx;

	pthread_mutex_init(&sc->ev_lock, NULL);
	sc->nev = 0;
	ctx->async_fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	return ctx->async_fd < 0 ? -errno : 0;
}

void async_fini(struct ibv_context *ctx)
{
	if (ctx->async_fd >= 0)
		close(ctx->async_fd);
	ctx->async_fd = -1;
}

void async_post(struct ibv_context *ctx, const struct ibv_async_event *ev)
{
	struct soft_ctx *sc = (struct soft_ctx *)ctx;
	uint64_t one = 1;
	int queued = 0;

	pthread_mutex_lock(&sc->ev_lock);
	if (sc->nev < SOFT_MAX_ASYNC) {
		sc->ev[sc->nev++] = *ev;
		queued = 1;
	} else {
		sc->ev_lost++; /* nobody reads them: keep the oldest */
	}
	pthread_mutex_unlock(&sc->ev_lock);
	if (queued && write(ctx->async_fd, &one, sizeof(one)) != sizeof(one))
		return;
}

int async_get(struct ibv_context *ctx, struct ibv_async_event *ev)
{
	struct soft_ctx *sc = (struct soft_ctx *)ctx;
	uint64_t one;

	/* Blocks, or EAGAIN, as the program set the fd. */
	if (read(ctx->async_fd, &one, sizeof(one)) != sizeof(one))
		return -errno;
	pthread_mutex_lock(&sc->ev_lock);
	if (!sc->nev) {
		pthread_mutex_unlock(&sc->ev_lock);
		return -EAGAIN;
	}
	*ev = sc->ev[0];
	memmove(sc->ev, sc->ev + 1, --sc->nev * sizeof(sc->ev[0]));
	pthread_mutex_unlock(&sc->ev_lock);
	return 0;
}
