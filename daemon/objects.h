/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the device objects mrcd hands out and who owns each:
 * protection domains, memory regions, completion queues and queue pairs.
 * The tables only: serve.c creates and frees the objects, books.c keeps
 * the tables across a restart. An owner is a client (clients.h), never
 * dereferenced here.
 */
#ifndef MRC_DAEMON_OBJECTS_H
#define MRC_DAEMON_OBJECTS_H

#include <stdint.h>

#include "mrc/abi.h"

#define MRCD_MAX_PD 1024

struct client;
struct mrc_sq;

/* What mrcd keeps of one QP beside the data path's own state. */
struct qp_ent {
	struct client *owner; /* NULL: free */
	struct mrc_sq *sq; /* mrcd's own mapping of the send queue */
	int db_fd; /* eventfd the application rings */
	uint64_t db_token;
	uint32_t state; /* as the application last set it */
	uint32_t pd, send_cq, recv_cq;
	uint64_t timeout_ns; /* the QP's ACK timeout */
	uint32_t nev; /* its EVs, once RTS */
	uint32_t prof_held; /* holds ev_prof and cc_prof (from INIT) */
	uint64_t ev_prof, cc_prof;
	uint32_t peer_qpn;
	uint8_t peer_gid[16];
};

struct objects {
	struct client *pd_owner[MRCD_MAX_PD];
	struct client *mr_owner[MRC_MAX_MR];
	uint32_t mr_pd[MRC_MAX_MR];
	struct client *cq_owner[MRC_MAX_CQ];
	struct qp_ent qp[MRC_MAX_QP];
};

/* QP qpn's entry if the QP exists, else NULL. */
static inline struct qp_ent *objects_qp(struct objects *o, uint32_t qpn)
{
	return qpn < MRC_MAX_QP && o->qp[qpn].owner ? &o->qp[qpn] : NULL;
}

/* Whether c (NULL: anyone) owns a QP, MR, CQ or PD. */
int objects_owned_by(const struct objects *o, const struct client *c);

#endif /* MRC_DAEMON_OBJECTS_H */
