/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrcd's side of the controller API (mrc_ctl.h): who
 * may use it, the profiles QPs name, the EV event queues of subscribers,
 * the controller's probes and port admin state (docs/controller.md).
 */
#ifndef MRC_DAEMON_CTL_H
#define MRC_DAEMON_CTL_H

#include <stdint.h>

#include "profiles.h"
#include "mrc/abi.h"
#include "mrc/mrcd_proto.h"

struct client;
struct dev;
struct dev_qp_attr;
struct health;
struct peer;
struct links;
struct objects;
struct port_spec;
struct probe;
struct mrc_probe_arm;

#define CTL_MAX_SUBS 16 /* EV event queues at once */
#define CTL_EVQ_MAX (1u << 16) /* records in one queue at most */

struct ctl_sub {
	struct client *owner; /* NULL: free */
	struct mrcd_evq *q; /* shared with the controller: only cons is read */
	size_t map_len;
	uint32_t size; /* records; mrcd's own copy, never read back */
	uint64_t prod; /* ...and its producer index */
	int efd; /* eventfd: written after adding records */
	uint32_t pending_drops; /* events lost since the last one queued */
};

/* A probe batch waiting for answers: its reply goes out when complete. */
struct ctl_probe_wait {
	struct client *owner; /* NULL: none */
	uint64_t deadline_ns;
	uint32_t first_seq; /* request i went out with first_seq + i */
	uint32_t nreq, nrsp;
	uint8_t answered[MRCD_CTL_PROBE_MAX];
	uint64_t sent_ns[MRCD_CTL_PROBE_MAX];
	struct mrcd_ctl_probe msg; /* requests in, answers out */
};

/* What the controller module works over: the layers below it. */
struct ctl_deps {
	struct dev *dev;
	struct objects *obj; /* QPs: the profiles they hold, for the lists */
	struct health *health; /* EV states and counters */
	struct peer *peer; /* port status updates go out through it */
	struct probe *probe; /* device probes go out as its frames */
	struct links *links; /* port admin state */
	const struct port_spec *port; /* the ports' planes */
	int nports, v6;
};

struct ctl {
	struct ctl_deps below;
	struct profiles prof;
	struct ctl_sub sub[CTL_MAX_SUBS];
	struct ctl_probe_wait probe_wait;
	struct mrc_probe_arm *probe_arm; /* mrc_probe_arm[0], mmapped */
	uint32_t probe_seq; /* the last device probe's sequence number */
};

/*
 * The controller over deps, its profiles as prof_init leaves them.
 * On zeroed storage (mrcd's is static): init writes only what is not
 * zero, so the per-QP tables cost no page until a QP uses them (each
 * first write to a page is some 6 us on a paravirtualized guest,
 * docs/mrcd.md). A test that reuses one zeroes it first.
 */
int ctl_init(struct ctl *ctl, const struct ctl_deps *deps);
void ctl_close(struct ctl *ctl);
/* Every CC profile's parameters into the data path (mrc_cc), as the
 * profiles say now: after setup, or after books restored them. */
int ctl_cc_publish_all(struct ctl *ctl);

/* A request of a controller op (MRCD_CTL_*): fills rep; the errno, or
 * -1 when the reply goes out later (probes) and nothing is to be sent. */
int ctl_request(struct ctl *ctl, struct client *c, const struct mrcd_req *req,
		struct mrcd_rep *rep, int *fds, int *nfds);

/* A QP moving to INIT names its profiles; RESET or destroy lets go. */
int ctl_qp_hold(struct ctl *ctl, uint32_t qpn, uint64_t ev_id, uint64_t cc_id);
void ctl_qp_release(struct ctl *ctl, uint32_t qpn);
/* The EVs of a QP going to RTS, from its EV profile (0: mrcd's own). */
int ctl_qp_evs(struct ctl *ctl, uint32_t qpn, struct dev_qp_attr *a);
/*
 * The congestion control of QP qpn's profile into a (cc_slot, cc): none
 * for CC profile 0. 0, or EINVAL when the profile is not ONLINE.
 * ctl_qp_evs calls it too.
 */
int ctl_qp_cc(struct ctl *ctl, uint32_t qpn, struct dev_qp_attr *a);
/* After RTS: denied EVs and EVs of dead or disabled ports out of use. */
void ctl_qp_started(struct ctl *ctl, uint32_t qpn);

/* An EV state change from the data path, for the subscribers. */
void ctl_ev_event(struct ctl *ctl, const struct mrc_ev_event *v);
/* Events the data path dropped: every subscriber is told. */
void ctl_ev_dropped(struct ctl *ctl, uint64_t n);
/* A device probe's answer (qpn MRC_PROBE_QPN). */
void ctl_probe_answer(struct ctl *ctl, const struct mrc_ev_event *v);
/* A port status update's answer (peer.c): 0 if a request waited for it. */
int ctl_psu_answer(struct ctl *ctl, uint32_t seq, int port);
/* Every scan tick: probe batches past their deadline are answered. */
void ctl_tick(struct ctl *ctl);
/* Whether ctl_tick has anything to do: a device probe awaits its answer. */
static inline int ctl_ticking(const struct ctl *ctl)
{
	return ctl->probe_wait.owner != NULL;
}
/* A client left: its queues and waits go. */
void ctl_drop_client(struct ctl *ctl, struct client *c);

/* Whether c has an event queue or a probe batch waiting. */
int ctl_client_busy(const struct ctl *ctl, const struct client *c);

#endif /* MRC_DAEMON_CTL_H */
