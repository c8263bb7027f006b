// SPDX-License-Identifier: GPL-2.0
/*
 * The EV event ring, read and handed on (events.h).
 */
#include <errno.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "dev.h"
#include "events.h"
#include "log.h"

static int on_record(void *ctx, void *data, size_t len)
{
	struct events *e = ctx;
	const struct mrc_ev_event *v = data;
	const struct events_sink *s = &e->sink;

	if (len < sizeof(*v))
		return 0;
	if (v->type == MRC_EVT_STATE && s->state)
		s->state(s->ctx, v);
	else if (v->type == MRC_EVT_PROBE && s->probe)
		s->probe(s->ctx, v);
	else if (v->type == MRC_EVT_WAKE && v->qpn < MRC_MAX_QP && s->wake)
		s->wake(s->ctx, v->qpn);
	return 0;
}

/* State changes the data path could not queue (mrc_tx_stats), ever. */
static uint64_t dropped_ever(struct events *e)
{
	uint64_t n;

	return dev_tx_stat(e->dev, MRC_TX_EV_STATE_DROPPED, &n) ?
		       e->dropped_seen :
		       n;
}

void events_poll(struct events *e)
{
	uint64_t dropped;

	if (!e->ring)
		return; /* not started, or closed */

	/*
	 * The ring first: what it holds was queued before any drop (a drop
	 * needs a full ring). The count then goes with the next state
	 * change handed on: exact in number; in position, it may come a
	 * few events late (those queued while this read ran).
	 */
	ring_buffer__consume(e->ring);
	dropped = dropped_ever(e);
	if (dropped > e->dropped_seen) {
		log_warn("%llu EV events dropped: the event ring was full\n",
			 (unsigned long long)(dropped - e->dropped_seen));
		if (e->sink.dropped)
			e->sink.dropped(e->sink.ctx, dropped - e->dropped_seen);
		e->dropped_seen = dropped;
	}
}

static void ready(struct loop_fd *h)
{
	events_poll(container_of(h, struct events, lfd));
}

int events_init(struct events *e, struct dev *d, struct loop *l,
		const struct events_sink *sink)
{
	memset(e, 0, sizeof(*e));
	e->lfd.fd = -1;
	e->dev = d;
	e->loop = l;
	e->sink = *sink;
	e->ring = ring_buffer__new(dev_map_fd(d, DEV_MAP_EV_EVENTS), on_record,
				   e, NULL);
	if (!e->ring)
		return -errno;
	/* Drops from before this mrcd are not this mrcd's news. */
	e->dropped_seen = dropped_ever(e);
	return loop_add(l, &e->lfd, ring_buffer__epoll_fd(e->ring), ready);
}

void events_close(struct events *e)
{
	if (!e->loop)
		return; /* never started */
	loop_del(e->loop, &e->lfd);
	ring_buffer__free(e->ring);
	e->ring = NULL;
}
