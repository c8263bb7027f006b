/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrcd's side of path health (docs/health.md): it reads
 * the data path's EV events, probes every ASSUMED_BAD EV with backoff and
 * jitter, and after enough consecutive answers moves the EV back to GOOD
 * through the control program. The data path alone moves EVs to
 * ASSUMED_BAD; mrcd alone brings them back.
 */
#ifndef MRC_DAEMON_HEALTH_H
#define MRC_DAEMON_HEALTH_H

#include <stdint.h>

#include "mrc/abi.h"
#include "mrc/mrcd_proto.h"

struct mrcd;

/* Probe timing: the defaults of mrcd.conf's probe-* and flap-hold-* keys
 * (daemon/config.c); mrcd runs with m->cfg's values. */
#define HEALTH_PROBE_OK 3 /* consecutive answers: GOOD again */
#define HEALTH_PROBE_TIMEOUT_NS 2000000ull /* a probe unanswered: failed */
#define HEALTH_BACKOFF_MIN_NS 1000000ull /* first wait, and after a fail */
#define HEALTH_BACKOFF_MAX_NS 64000000ull
/*
 * Marked bad again this soon after GOOD: a flap (a second: longer than
 * two gray looks, so a lossy or slow path found by them flaps too). Then
 * the backoff keeps
 * doubling, and the EV must answer every probe for a hold time (10 ms,
 * doubling with each flap up to 1 s) before it is GOOD again, so a path
 * that flaps faster than the hold stays out of use.
 */
#define HEALTH_FLAP_NS 1000000000ull
#define HEALTH_HOLD_MIN_NS 10000000ull
#define HEALTH_HOLD_MAX_NS 1000000000ull
#define HEALTH_MAX_PROBING 8192 /* (QP, EV) pairs probed at once */

/* What mrcd knows of one EV of one QP. */
struct ev_health {
	uint8_t state; /* MRC_EV_*, from the data path's events; 0: GOOD */
	uint8_t ok; /* consecutive probe answers */
	uint8_t probing; /* in the probe list */
	uint8_t pad0;
	uint32_t seq; /* the probe in flight, 0: none */
	uint64_t backoff_ns;
	uint64_t due_ns; /* next probe */
	uint64_t deadline_ns; /* the probe in flight is lost after */
	uint64_t good_ns; /* when it last became GOOD */
	uint64_t hold_ns; /* answers must span this long (flapping); 0: no */
	uint64_t first_ok_ns; /* the first answer of the current run */
	uint32_t gray_limit_ns; /* gray: answers slower than this fail */
	uint32_t gray_looks; /* looks in a row that found it gray */
	uint64_t prev_samples; /* ev_stats.rtt_samples at the last gray look */
	uint64_t prev_sent; /* ev_stats.sent at the last look */
	uint64_t prev_lost; /* ev_stats.lost at the last look */
};

/* The newest events of one QP, for MRCD_QP_HEALTH. */
#define HEALTH_LOG 64
struct qp_evlog {
	uint32_t count; /* events ever; the newest is number count */
	struct mrcd_ev_rec rec[HEALTH_LOG]; /* number n at (n - 1) % HEALTH_LOG */
};

int health_init(struct mrcd *m);
/* MRCD_QP_HEALTH for QP qpn: events numbered after 'after'. */
int health_query(struct mrcd *m, uint32_t qpn, uint32_t after,
		 struct mrcd_qp_health *h);
void health_close(struct mrcd *m);
/* One probe frame (see health.c); 0 or -errno. */
int health_probe_frame(struct mrcd *m, uint32_t p, const uint8_t addr[16],
		       uint16_t sport, uint16_t fl, uint32_t dqpn,
		       uint8_t ev_idx, uint32_t seq, uint8_t tos);
/* From the event ring (events.h): an EV changed state; a probe answer
 * for one of a QP's EVs; state changes the data path could not queue. */
void health_on_state(struct mrcd *m, const struct mrc_ev_event *v);
void health_on_probe(struct mrcd *m, const struct mrc_ev_event *v);
void health_on_dropped(struct mrcd *m, uint64_t n);
/* Probes due and probes lost; call often (mrcd's 1 ms tick). */
void health_tick(struct mrcd *m);
/* Every GRAY_INTERVAL_NS: compare each QP's EVs (gray.h). */
#define GRAY_INTERVAL_NS 100000000ull
void health_gray(struct mrcd *m);
/* Port p became live or stopped being live (links.h): every EV on it
 * leaves use at once (port down), or is probed at once (back). */
void health_port_live(struct mrcd *m, int p, int live);
/* QP qpn is gone: forget its EVs. */
void health_forget(struct mrcd *m, uint32_t qpn);
/* A QP taken over from a predecessor: its EVs the data path holds
 * ASSUMED_BAD are probed again (the predecessor's probes died with it). */
void health_adopt_qp(struct mrcd *m, uint32_t qpn);

#endif /* MRC_DAEMON_HEALTH_H */
