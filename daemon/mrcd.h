/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrcd's state: the soft device, its ports, the
 * connected applications and who owns which device object, and the send
 * queues mrcd pumps.
 */
#ifndef MRC_DAEMON_MRCD_H
#define MRC_DAEMON_MRCD_H

#include <stdint.h>

#include "config.h"
#include "ctl.h"
#include "dev.h"
#include "events.h"
#include "health.h"
#include "links.h"
#include "log.h"
#include "loop.h"
#include "plane.h"
#include "profiles.h"
#include "pump.h"
#include "mrc/mrcd_proto.h"

#define MRCD_MAX_CLIENTS 1024 /* max-clients: at most this */
#define MRCD_MAX_PD 1024

struct client {
	/* Its connection; conn.fd -1: none (slot free, unless an orphan). */
	struct loop_fd conn;
	uint32_t idx; /* its slot */
	uint32_t uid;
	uint32_t pid;
	int net_admin; /* held CAP_NET_ADMIN when it connected */
	uint64_t session; /* MRCD_RESUME takes a slot back with it */
	uint64_t start_ticks; /* the process's start (books_proc_start) */
	/*
	 * An orphan: a predecessor's client whose objects this mrcd adopted
	 * and whose process has not resumed yet. pidfd tells when the
	 * process ends (its objects are freed then).
	 */
	int orphan;
	struct loop_fd pidfd;
};

struct qp_ent {
	struct client *owner; /* NULL: free */
	struct mrc_sq *sq; /* mrcd's own mapping of the send queue */
	int db_fd; /* eventfd the application rings */
	uint64_t db_token;
	uint32_t state; /* as the application last set it */
	uint32_t pd, send_cq, recv_cq;
	uint64_t timeout_ns; /* the QP's ACK timeout */
	struct ev_health *ev; /* MRC_QP_EVS of them, once an event came */
	struct qp_evlog *evlog; /* with ev */
	uint32_t nev; /* its EVs, once RTS */
	uint32_t rtt_median_ns; /* of its EVs in use, at the last gray look */
	int prof_held; /* holds ev_prof and cc_prof (from INIT) */
	uint64_t ev_prof, cc_prof;
	uint32_t peer_qpn;
	uint8_t peer_gid[16];
};

struct cli;
struct books;

struct mrcd {
	struct dev dev;
	struct mrcd_config cfg; /* in force: the file, the command line over it */
	const char *config_path; /* -c; NULL: none */
	const struct cli *cli; /* the command line, for reloads */
	struct loop loop;
	struct loop_fd sig, listen, scan;
	int lock_fd, pin_lock_fd;
	struct port_spec port[MRC_MAX_PORTS];
	int nports, v6;
	const char *sock_path;
	const char *pin_dir; /* NULL: --no-pin */
	int pinned;
	int lowlat; /* the tc doorbell path is attached */
	struct client client[MRCD_MAX_CLIENTS];
	struct client *pd_owner[MRCD_MAX_PD];
	struct client *mr_owner[MRC_MAX_MR];
	uint32_t mr_pd[MRC_MAX_MR];
	struct client *cq_owner[MRC_MAX_CQ];
	struct qp_ent qp[MRC_MAX_QP];
	struct pump pump;
	struct events events;
	/* Path health (health.c). */
	int probe_fd[MRC_MAX_PORTS]; /* AF_PACKET, per port */
	struct {
		uint32_t qpn, idx;
	} probing[HEALTH_MAX_PROBING];
	int nprobing;
	uint32_t probe_seq;
	uint64_t ev_state_events, probes_sent, probe_answers, probes_lost;
	uint64_t flaps; /* EVs blamed again soon after coming back */
	uint64_t gray_ticks; /* scan ticks since the last gray look */
	uint64_t ev_dropped_unreported; /* for the next event logged */
	struct mrc_ev_stats *ev_stats; /* the data path's, mmapped */
	struct mrc_probe_arm *probe_arm; /* mrc_probe_arm[0], mmapped */
	struct links links; /* ports: carrier and admin state */
	/* The controller (ctl.c). */
	struct profiles prof;
	struct ctl_sub sub[CTL_MAX_SUBS];
	struct ctl_probe_wait probe_wait;
	/* Restarts (books.c). */
	struct books *books; /* the pinned books, mmapped */
	int books_fd;
	int adopted; /* this mrcd takes over a running device */
	uint32_t norphans;
};

/* Handles one request of client c; the reply and its fds go back on c->fd. */
int serve_request(struct mrcd *m, struct client *c, const struct mrcd_req *req,
		  size_t len);
/* Frees everything c owns. */
void serve_drop_client(struct mrcd *m, struct client *c);
/*
 * A QP the books gave this mrcd: its send queue mapped again (the pin),
 * a new doorbell, pumping if work is pending, its ASSUMED_BAD EVs probed.
 * 0 or an errno value (the QP is then freed).
 */
int serve_adopt_qp(struct mrcd *m, uint32_t qpn);
/* Whether any connection or orphan owns a device object. */
int serve_objects_alive(const struct mrcd *m);

/*
 * MRCD_RESUME on connection c: the orphan of session whose process c is
 * (same pid and uid) takes c's connection; c's slot is free again.
 * Returns the orphan, or NULL (no such session of this process).
 */
struct client *mrcd_resume(struct mrcd *m, struct client *c, uint64_t session);

#endif /* MRC_DAEMON_MRCD_H */
