/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains libmrc's extensions: calls this soft device offers
 * beyond the OCP MRC application API (mrc.h). Programs that use them run
 * only on mrc; the names start with mrcx_ to say so. It is public and
 * stands on its own: mrcd's protocol (include/mrc/mrcd_proto.h) embeds
 * these structs, never the other way round.
 */
#ifndef MRC_EXT_H
#define MRC_EXT_H

#include <stdint.h>

#include "mrc.h"
#include "mrc_ctl.h"

/* EVs of one QP at most (the device's MRC_QP_EVS), and the 64-bit words
 * of a mask with a bit for each (bit i of word i / 64: EV i). */
#define MRCX_QP_EVS 256
#define MRCX_QP_EV_WORDS (MRCX_QP_EVS / 64)

/* Why an EV changed state (mrcd_ev_rec, mrcx_ev_event); docs/health.md. */
enum mrcx_ev_reason {
	MRCX_EV_R_LOSS = 1, /* a later packet on the same EV got through */
	MRCX_EV_R_TIMEOUT = 2, /* the ACK timeout of a packet sent on it */
	MRCX_EV_R_PROBES = 3, /* consecutive probe answers: GOOD again */
	MRCX_EV_R_PORT_DOWN = 4, /* its port lost carrier or was disabled */
	MRCX_EV_R_PORT_UP = 5, /* its port is back (it is probed first) */
	MRCX_EV_R_DENY = 6, /* the controller denied it */
	MRCX_EV_R_ALLOW = 7, /* the controller allowed it again */
	MRCX_EV_R_MIN_ACTIVE = 8, /* looked bad, kept in use: ev_min_active */
	MRCX_EV_R_PROBE_ANSWER = 9, /* a probe came back */
	MRCX_EV_R_SILENT = 10, /* delivered nothing while later packets did */
	MRCX_EV_R_GRAY = 11, /* delivers, but its RTT is far above its peers' */
	MRCX_EV_R_LOSSY = 12, /* delivers, but loses far more than its peers */
	MRCX_EV_R_PEER_PORT_DOWN = 13, /* the peer's port it leads to is down */
};

/*
 * One EV event of a QP, as mrcd logged it (numbered from 1 per QP). States
 * are enum mrc_ctl_ev_state values (mrc_ctl.h), reasons enum
 * mrcx_ev_reason.
 */
struct mrcd_ev_rec {
	uint64_t ts_ns; /* CLOCK_MONOTONIC, the data path's */
	uint32_t no;
	uint8_t ev_idx, state, old_state, reason;
	/* events the device dropped (ring full, any QP) since the last one
	 * mrcd read: the OCP event's drop_count, exact */
	uint32_t dropped;
	uint32_t pad0;
};

#define MRCD_HEALTH_EVENTS 16

/* A QP's path health: its EVs now, its packet counters, its last events. */
struct mrcd_qp_health {
	uint32_t nev;
	uint32_t nevents; /* in events[], oldest first */
	uint64_t ev_use[MRCX_QP_EV_WORDS]; /* bit i: EV i carries traffic */
	uint64_t ev_denied[MRCX_QP_EV_WORDS];
	uint64_t sent, retx, lost; /* packets, over all its EVs */
	uint32_t last_no; /* the newest event's number (0: none yet) */
	uint32_t pad0;
	uint8_t state[MRCX_QP_EVS]; /* enum mrc_ctl_ev_state */
	struct mrcd_ev_rec events[MRCD_HEALTH_EVENTS];
};

/*
 * Path health of one of the caller's QPs (docs/health.md): the state of
 * each of its EVs, which carry traffic, its packet counters (sent,
 * retransmitted, lost, over all its EVs) and its EV events numbered after
 * 'after' (up to MRCD_HEALTH_EVENTS, oldest first; pass h->last_no back to
 * read on). Returns 0, or -1 with errno: EINVAL, EPERM (not the caller's
 * QP), ENOENT, EIO (mrcd gone).
 */
int mrcx_query_qp_health(struct mrc_qp *qp, uint32_t after,
			 struct mrcd_qp_health *h);

/*
 * mrc_poll_cq(), and for each completion the time it completed:
 * ts_ns[i] is CLOCK_MONOTONIC in ns when the data path made wc[i] (the
 * sender's program taking the ACK that finished the WR, the receiver's
 * placing the message's last PSN), not when the application polled it;
 * what ibv_wc_read_completion_wallclock_ns() gives on a NIC. Flush
 * completions (IBV_WC_WR_FLUSH_ERR) are libmrc's and carry the time of
 * the poll. ts_ns has room for num_entries. Returns as mrc_poll_cq().
 */
int mrcx_poll_cq_ts(struct mrc_cq *cq, int num_entries, struct ibv_wc *wc,
		    uint64_t *ts_ns);

/*
 * Controller extensions (need CAP_NET_ADMIN like mrc_ctl.h; EPERM
 * otherwise): what mrcctl shows beyond the OCP controller API.
 */
/*
 * Why mrcd dropped a control message from a peer's mrcd (docs/wire.md,
 * CEXT): X(name, text), numbered from 0 in this order.
 */
#define MRCX_CTL_DROPS(X)                                              \
	X(TRUNCATED, "truncated") /* not exactly BTH + CEXT */         \
	X(BAD_OPCODE, "bad_opcode") /* not MRC_OP_CTL */               \
	X(BAD_VERSION, "bad_version")                                  \
	X(BAD_TYPE, "bad_type")                                        \
	X(NO_PORT, "no_port") /* came in on none of our ports */       \
	X(UNKNOWN_QP, "unknown_qp") /* no such QP in RTR or RTS */     \
	X(NOT_PEER, "not_peer") /* sender not the QP's peer */         \
	X(BAD_TOKEN, "bad_token") /* not the token we gave the peer */ \
	X(STRAY_ANSWER, "stray_answer") /* answers nothing we sent */  \
	X(BAD_VALUE, "bad_value") /* a window out of range */          \
	X(NOT_NEGOTIATED, "not_negotiated") /* MPR: dynamic MPR off */
#define MRCX_CTL_DROP_MAX 16

/* One port (plane) of the device. */
struct mrcx_port_info {
	uint8_t port; /* 1-based */
	uint8_t carrier; /* 1: the link is up */
	uint8_t admin; /* enum mrc_ctl_port_admin_state */
	uint8_t pad0;
	uint32_t mtu_bytes; /* the interface's IP MTU */
	uint32_t nev_in_use; /* EVs on it carrying traffic, over all QPs */
	uint32_t nev_bad; /* ...ASSUMED_BAD or DENIED */
	char ifname[16];
	uint8_t mac[6];
	uint8_t gid[16]; /* our address on this plane */
	uint8_t pad1[2];
	/* Control messages from peers' mrcds that came in on it: taken, and
	 * dropped by reason (MRCX_CTL_DROPS order; no_port: on port 1). */
	uint32_t ctl_msgs;
	uint32_t ctl_drop[MRCX_CTL_DROP_MAX];
};

/* Fills up to max entries; *n is the number of ports. */
int mrcx_ctl_port_list(struct mrc_context *ctx, struct mrcx_port_info *out,
		       int max, int *n);

/* One QP of any process on the device. */
struct mrcx_qp_info {
	uint32_t qpn;
	uint32_t state; /* enum mrc_qp_state, the data path's */
	uint32_t peer_qpn;
	uint32_t owner_pid; /* the process that created it */
	uint64_t ev_profile_id, cc_profile_id;
	uint32_t window_psns; /* PSNs in flight at most */
	uint32_t inflight_psns; /* sent, not yet acknowledged */
	uint32_t nev; /* EVs it sprays over */
	uint32_t nev_in_use;
	uint8_t peer_gid[16];
	uint64_t sent_pkts, retx_pkts, lost_pkts;
	/* Congestion control (its CC profile's NSCC; 0 without one). */
	uint32_t cwnd_bytes; /* the congestion window */
	uint32_t cc_inflight_bytes; /* payload sent, not acknowledged */
	uint32_t cc_base_rtt_ns; /* the smallest RTT seen, less service */
	uint32_t cc_avg_delay_ns; /* queueing delay, over about a base RTT */
	/* Over its EVs: what the answers said of the queues. */
	uint64_t trimmed_pkts, ecn_pkts;
	uint32_t rtt_min_ns; /* the smallest round trip; 0: none yet */
	uint32_t srtt_ns; /* smoothed round trip, gain 1/8; 0: none yet */
	uint32_t rtt_hi_ns; /* the high round trip lately (docs/health.md) */
	uint32_t nev_cooled; /* EVs steered around now (congestion) */
	/* Dynamic MPR: bit 0 this QP enabled it, bit 1 its peer did; in
	 * effect when both are set (docs/libmrc.md). */
	uint32_t dyn_mpr;
	/* Ports (bit p-1: port p) the peer said are down (PORT_STATUS_UPDATE):
	 * the EVs that lead to them stay out of use. */
	uint32_t peer_ports_down;
	/* Payload bytes per packet: its path MTU, cut to what every port
	 * carries (docs/libmrc.md); 0 before RTS. */
	uint32_t path_mtu_bytes;
	uint32_t pad0;
};

/* Fills up to max entries; *n is the number of QPs there are. */
int mrcx_ctl_qp_list(struct mrc_context *ctx, struct mrcx_qp_info *out, int max,
		     int *n);

/* One EV of one QP, with its counters. */
struct mrcx_ev_info {
	uint32_t qpn;
	uint32_t ev_idx; /* index in the QP's EV array */
	uint64_t profile_id; /* the EV profile the QP uses */
	/* the EV as the API shows it (compact: what the controller wrote;
	 * for EV profile 0 the UDP source port) and its port, 1-based */
	struct mrc_ctl_ev ev;
	uint32_t state; /* enum mrc_ctl_ev_state */
	uint32_t in_use; /* 1: carries traffic now */
	uint64_t sent_pkts, acked_pkts, lost_pkts, retx_pkts;
	uint64_t trimmed_pkts, ecn_pkts;
	uint32_t rtt_min_ns, rtt_avg_ns, rtt_max_ns; /* 0: no sample yet */
	uint32_t wire_val; /* on the wire: UDP source port | flow label << 16 */
	uint64_t last_ack_age_ns; /* since the latest ACK; 0: none yet */
	uint32_t cooled; /* 1: steered around now (congestion, no verdict) */
	/* Its share of the QP's packets over mrcd's last health look
	 * (gray-interval-ms), per mille; 0 before the first look. */
	uint32_t share_pm;
};

/*
 * The EVs of QP qpn, or of every QP when qpn is UINT32_MAX: fills up to
 * max entries, *n is how many there are. ENOENT: no such QP.
 */
int mrcx_ctl_ev_list(struct mrc_context *ctx, uint32_t qpn,
		     struct mrcx_ev_info *out, int max, int *n);

/* An EV event with what the OCP event leaves out. */
struct mrcx_ev_event {
	struct mrc_ctl_ev_event base; /* profile, EV, drop_count, state */
	uint64_t ts_ns; /* CLOCK_MONOTONIC */
	uint32_t qpn;
	uint32_t ev_idx;
	uint32_t old_state; /* enum mrc_ctl_ev_state */
	uint32_t reason; /* enum mrcx_ev_reason */
};

/* mrc_ctl_poll_ev_event(), with the extra fields. */
int mrcx_ctl_poll_ev_event(struct mrc_cq *ev_cq, int num_entries,
			   struct mrcx_ev_event *ev_event);

#endif /* MRC_EXT_H */
