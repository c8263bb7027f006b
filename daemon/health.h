/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrcd's side of path health (docs/health.md): it reads
 * the data path's EV events, probes every ASSUMED_BAD EV with backoff and
 * jitter, and after enough consecutive answers moves the EV back to GOOD
 * through the control program. The data path alone moves EVs to
 * ASSUMED_BAD; mrcd alone brings them back. It reads the device, sends
 * probe.c's frames and asks links.c whether a port is live; nothing else.
 */
#ifndef MRC_DAEMON_HEALTH_H
#define MRC_DAEMON_HEALTH_H

#include <stdint.h>

#include "mrc/abi.h"
#include "mrc/mrcd_proto.h"

struct dev;
struct links;
struct mrcd_config;
struct probe;

/*
 * Marked bad again this soon after GOOD: a flap (a second: longer than
 * two gray looks, so a lossy or slow path found by them flaps too). Then
 * the backoff keeps
 * doubling, and the EV must answer every probe for a hold time (10 ms,
 * doubling with each flap up to 1 s: flap-hold-*) before it is GOOD again, so a path
 * that flaps faster than the hold stays out of use.
 */
#define HEALTH_FLAP_NS 1000000000ull
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
	uint64_t look_sent; /* packets it sent between the last two looks */
};

/* The newest events of one QP, for MRCD_QP_HEALTH. */
#define HEALTH_LOG 64
struct qp_evlog {
	uint32_t count; /* events ever; the newest is number count */
	struct mrcd_ev_rec rec[HEALTH_LOG]; /* number n at (n - 1) % HEALTH_LOG */
};

/* What health knows of one QP: serve.c tells it (health_qp_*). */
struct health_qp {
	uint8_t open; /* the QP exists */
	uint8_t rts; /* its application set it to RTS */
	uint16_t pad0;
	uint32_t state; /* as its application last set it */
	uint32_t nev; /* its EVs, once RTS */
	uint32_t rtt_median_ns; /* of its EVs in use, at the last gray look */
	uint64_t look_sent; /* packets its EVs sent between the last two looks */
	/*
	 * Ports (bit p, 0-based) the peer said are down (PSU, peer.c):
	 * their EVs stay out of use, probes answered or not, until the peer
	 * says they are up or peer_down_until_ns passes.
	 */
	uint32_t peer_down;
	uint64_t peer_down_until_ns;
	struct ev_health *ev; /* MRC_QP_EVS of them, once an event came */
	struct qp_evlog *evlog; /* with ev */
	/* Its window of the data path's mrc_ev_stats, mapped at its first
	 * read (health.c, qp_stats); NULL: not yet, or not mapped. */
	const struct mrc_ev_stats *stats;
};

struct health {
	struct dev *dev;
	struct probe *probe;
	const struct links *links; /* a port's liveness */
	const struct mrcd_config *cfg; /* in force: probe-*, flap-*, gray-* */
	struct health_qp qp[MRC_MAX_QP];
	struct {
		uint32_t qpn, idx;
	} probing[HEALTH_MAX_PROBING];
	int nprobing;
	uint64_t ev_state_events, probe_answers, probes_lost;
	uint64_t flaps; /* EVs blamed again soon after coming back */
	uint64_t ev_dropped_unreported; /* for the next event logged */
};

/*
 * h's 328 KB of per-QP state, for the modules below.
 * On zeroed storage (mrcd's is static): init writes only what is not
 * zero, so the per-QP tables cost no page until a QP uses them (each
 * first write to a page is some 6 us on a paravirtualized guest,
 * docs/mrcd.md). A test that reuses one zeroes it first.
 */
int health_init(struct health *h, struct dev *dev, struct probe *probe,
		const struct links *links, const struct mrcd_config *cfg);
void health_close(struct health *h);
/* QP qpn exists (created, or taken over); it is RESET until told. */
void health_qp_open(struct health *h, uint32_t qpn);
/* Its application set state (nev: its EVs in RTS); into RTS or RESET
 * every EV starts GOOD. */
void health_qp_state(struct health *h, uint32_t qpn, uint32_t state,
		     uint32_t nev);
/* QP qpn is gone: its EVs are forgotten. */
void health_qp_close(struct health *h, uint32_t qpn);
/* What health last heard of EV idx of QP qpn (MRC_EV_*). */
uint8_t health_ev_state(const struct health *h, uint32_t qpn, uint32_t idx);
/* The data path's counters of EV idx of QP qpn; NULL: none mapped. */
const struct mrc_ev_stats *health_ev_stats(struct health *h, uint32_t qpn,
					   uint32_t idx);
/* EV idx's share of QP qpn's packets between the last two gray looks, per
 * mille; 0 before a look saw any. */
uint32_t health_ev_share_pm(const struct health *h, uint32_t qpn, uint32_t idx);
/* MRCD_QP_HEALTH for QP qpn: events numbered after 'after'. */
int health_query(struct health *h, uint32_t qpn, uint32_t after,
		 struct mrcd_qp_health *o);
/* From the event ring (events.h): an EV changed state; a probe answer
 * for one of a QP's EVs; state changes the data path could not queue. */
void health_on_state(struct health *h, const struct mrc_ev_event *v);
void health_on_probe(struct health *h, const struct mrc_ev_event *v);
void health_on_dropped(struct health *h, uint64_t n);
/* Probes due and probes lost; call often (mrcd's 1 ms tick). */
void health_tick(struct health *h);
/* Whether health_tick has anything to do: EVs being probed. */
static inline int health_ticking(const struct health *h)
{
	return h->nprobing > 0;
}
/* Every gray-interval: compare each QP's EVs (gray.h). */
void health_gray(struct health *h);
/* Port p became live or stopped being live (links.h): every EV on it
 * leaves use at once (port down), or is probed at once (back). */
void health_port_live(struct health *h, int p, int live);
/*
 * The peer of QP qpn says which of its ports are down (down: bit p,
 * 0-based, plane p), until until_ns: EVs on newly down planes leave use
 * (reason peer port down), those on planes up again are probed at once.
 * Returns the number of EVs whose use changed, or -ENOENT (not in RTS).
 */
int health_peer_ports(struct health *h, uint32_t qpn, uint32_t down,
		      uint64_t until_ns);
/* Whether the peer of QP qpn said plane p is down (and it still holds). */
int health_peer_down(const struct health *h, uint32_t qpn, uint32_t p);
/* A QP taken over from a predecessor: its EVs the data path holds
 * ASSUMED_BAD are probed again (the predecessor's probes died with it). */
void health_adopt_qp(struct health *h, uint32_t qpn);

#endif /* MRC_DAEMON_HEALTH_H */
