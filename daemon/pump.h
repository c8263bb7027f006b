/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrcd's pump: the list of QPs with posted work that
 * mrcd transmits for (the bulk path, docs/lowlat.md for the other), each
 * in bursts that grow while frames leave and a poll that backs off while
 * the QP waits for ACKs. A QP joins when its doorbell rings, when an ACK
 * opens its window (pump_activate, wired by main from the event ring), or
 * when the 1 ms scan finds work nobody rang about; it leaves when its
 * queue is done.
 */
#ifndef MRC_DAEMON_PUMP_H
#define MRC_DAEMON_PUMP_H

#include <stdint.h>

#include "loop.h"
#include "mrc/abi.h"
#include "qpset.h"
#include "txthreads.h"

struct dev;

#define PUMP_BURST_MAX 256 /* frames per transmit call while data flows */
/* Frames for a call after a wait: runs that find nothing to send cost
 * about 0.1 us each, the call's setup 25 us. */
#define PUMP_BURST_WAIT 16
/*
 * A QP gets transmit lanes (add_lanes in pump.c) only for messages of at
 * least this: with small ones, two CPUs on one QP contend for its state
 * more than they add (docs/perf.md, "Transmit lanes").
 */
#define PUMP_LANE_MIN_BYTES (64u * 1024)
#define PUMP_POLL_MIN_NS 20000ull /* first re-poll of a QP waiting for ACKs */
/* ...when work is left unsent and an ACK wakes it: a poll for timeouts. */
#define PUMP_POLL_WAKE_NS 250000ull
#define PUMP_POLL_MAX_NS 1000000ull

struct pump_qp {
	struct mrc_sq *sq; /* the owner's mapping (serve.c), borrowed */
	struct loop_fd db; /* its doorbell eventfd, watched */
	uint32_t qpn;
	int rts; /* may be pumped: RTS, until stopped */
	int active; /* in the list */
	uint32_t burst; /* frames for the next transmit call */
	uint64_t next_ns; /* not before (when nothing went out) */
	uint64_t poll_ns; /* interval while waiting for ACKs */
	int wait_unsent; /* ...with work unsent (an ACK wakes it) */
	uint64_t timeout_ns; /* the QP's ACK timeout */
	uint32_t tail0; /* sq->tail before this pass's call */
	uint32_t lanes; /* transmit lanes held while active (add_lanes) */
};

struct pump {
	struct dev *dev;
	struct loop *loop;
	mrc_wake_t *wake; /* mrc_wake, mmapped: [qpn] = 1 asks for a wakeup */
	struct pump_qp qp[MRC_MAX_QP];
	uint32_t active[MRC_MAX_QP];
	int nactive;
	struct qpset rts; /* the QPs whose rts is set: what pump_scan walks */
	uint64_t tx_calls; /* transmit calls (dev_tx_list's) */
	uint64_t qp_bursts; /* QPs' bursts in them (struct txt_call) */
	uint64_t lane_calls; /* ...of them a QP's second lane or later */
	/* Passes with calls: how many, the longest, and those over 1 ms
	 * (a pass's calls are all done when it ends: docs/mrcd.md). */
	uint64_t call_passes, pass_ns_max, passes_over_1ms;
	struct txthreads txt; /* where the calls run */
	uint32_t max_lanes; /* calls at once for one QP (add_lanes) */
	struct txt_call calls[MRC_MAX_QP]; /* a pass's QPs' bursts */
};

/* With tx_threads transmit threads (txthreads.h; 0: one per CPU), and up
 * to tx_lanes calls at once for one QP (0: TXT_LANES_MAX). 0 or -errno. */
int pump_init(struct pump *p, struct dev *d, struct loop *l,
	      uint32_t tx_threads, uint32_t tx_lanes);
void pump_close(struct pump *p);
/*
 * QP qpn's send queue (sq, mapped by its owner) and doorbell (db_fd,
 * watched from now on; its owner closes it after pump_qp_del). 0 or
 * -errno.
 */
int pump_qp_add(struct pump *p, uint32_t qpn, struct mrc_sq *sq, int db_fd);
void pump_qp_del(struct pump *p, uint32_t qpn);
/* The QP is in RTS with this ACK timeout: its work may be pumped. */
void pump_qp_rts(struct pump *p, uint32_t qpn, uint64_t timeout_ns);
/* It left RTS: nothing more is pumped. */
void pump_qp_stop(struct pump *p, uint32_t qpn);
/* Into the list (a doorbell rang, an ACK opened its window, work found). */
void pump_activate(struct pump *p, uint32_t qpn);
/*
 * One pass over the list: transmit what each QP may send now. Returns 1
 * if anything went out; *next_ns is when a waiting QP is due.
 */
int pump_pass(struct pump *p, uint64_t *next_ns);
/*
 * The pump stops with the device left running, the data path told so
 * (dev_pump_gone): one packet more for every QP with work, the last of
 * its call and so asking for an ACK, which the data path, knowing, turns
 * into the next packet, and so on (ACK clocking with no mrcd,
 * docs/congestion.md). Without it the last ACK may come back before the
 * data path knows, and the QP waits for the next mrcd. Returns the
 * packets sent.
 */
int pump_kick(struct pump *p);
/*
 * Every send queue this pump knows is served again (mrc_sq.no_pump
 * cleared): what the pump's claim does in the data path, for an mrcd
 * whose watch could not be loaded.
 */
void pump_served(struct pump *p);
/* QPs in RTS with WQEs not completed join the list (the 1 ms scan). */
void pump_scan(struct pump *p);
/* Whether pump_scan has anything to do: QPs that may be pumped. */
static inline int pump_ticking(const struct pump *p)
{
	return !qpset_empty(&p->rts);
}

#endif /* MRC_DAEMON_PUMP_H */
