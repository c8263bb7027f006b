/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the reader of the data path's EV event ring: state
 * changes, probe answers and wakeups (include/mrc/abi.h, struct
 * mrc_ev_event), handed to whoever main wired to each kind, and the count
 * of events the data path could not queue. It knows none of its readers.
 */
#ifndef MRC_DAEMON_EVENTS_H
#define MRC_DAEMON_EVENTS_H

#include <stdint.h>

#include "loop.h"
#include "mrc/abi.h"

struct dev;
struct ring_buffer;

/* Where each kind of event goes (any may be NULL). */
struct events_sink {
	void *ctx;
	/* An EV changed state (MRC_EVT_STATE). */
	void (*state)(void *ctx, const struct mrc_ev_event *v);
	/* A probe answer: of a QP's EV, or of a device probe (qpn is then
	 * MRC_PROBE_QPN). */
	void (*probe)(void *ctx, const struct mrc_ev_event *v);
	/* An ACK opened QP qpn's window (MRC_EVT_WAKE). */
	void (*wake)(void *ctx, uint32_t qpn);
	/* n state changes were dropped (the ring was full), reported after
	 * the ring's records and before the next state change. */
	void (*dropped)(void *ctx, uint64_t n);
};

struct events {
	struct dev *dev;
	struct loop *loop;
	struct ring_buffer *ring;
	struct loop_fd lfd;
	struct events_sink sink;
	uint64_t dropped_seen; /* the data path's drop count, last read */
};

/* Reads the ring whenever it has records, from now on. 0 or -errno. */
int events_init(struct events *e, struct dev *d, struct loop *l,
		const struct events_sink *sink);
/*
 * Hands on what the ring holds now. The loop calls it when the ring has
 * records; whoever judges answers by the clock calls it first, so that an
 * answer that came in time is not found missing because the loop had not
 * read it yet.
 */
void events_poll(struct events *e);
void events_close(struct events *e);

#endif /* MRC_DAEMON_EVENTS_H */
