/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrc-perf's device, as either side sets it up
 * (dev.c, qp.c): the MRC device opened through the public API, one
 * registered region sliced between the QPs, a send and a receive CQ, and
 * the QPs, created, described to the peer over the side channel and
 * connected to the peer's.
 */
#ifndef MRC_TOOLS_PERF_DEV_H
#define MRC_TOOLS_PERF_DEV_H

#include <stddef.h>
#include <stdint.h>

#include <mrc.h>

#include "sc.h"

struct perf_qp {
	struct mrc_qp *qp;
	uint32_t qpn, psn;
	uint64_t slice_off; /* of this QP's slice, in both regions */
	struct sc_qp peer;
	/* send side: WR counts since the row started */
	uint64_t posted, completed, signaled, ok, target;
	unsigned int window, sig_every;
	/* receive side */
	uint64_t recv_msgs;
	unsigned int rq_refill; /* receive WRs consumed, not yet reposted */
};

struct perf_dev {
	struct ibv_device **list;
	struct ibv_context *vctx;
	struct ibv_pd *pd;
	struct mrc_context *mctx;
	struct mrc_cq *scq, *rcq;
	/* Both CQs' completion channel, when idle_us is set: idle() waits
	 * on it instead of polling (NULL: idle_us 0, idle() spins). */
	struct mrc_comp_channel *ch;
	uint8_t *buf;
	size_t buf_bytes;
	struct ibv_mr *mr;
	union ibv_gid gid;
	unsigned int port_mtu_bytes; /* the port's active MTU */
	/* The path MTU this side asks and offers its peer: --mtu if given (both
	 * sides run it: on uniform links, IBV_MTU_4096 fills each frame),
	 * else the port's active MTU, which fits whatever the peer's is. */
	unsigned int offer_mtu_bytes;
	unsigned int path_mtu_bytes; /* the QPs' path MTU, as set */
	struct tl *tl; /* --timeline / --at: the failover timeline */
	uint64_t wr_bytes; /* bytes per WR of the running row */
	struct mrc_device_attr attr;
	struct perf_qp *qps;
	unsigned int nqps, depth, rq_depth, sge;
	unsigned int idle_us, max_cqe;
	unsigned int ev_profile, cc_profile; /* named at INIT */
	unsigned int dyn_mpr, mpr_dest; /* at RTR: dynamic MPR, MPR (0: mpr) */
	uint64_t slice_bytes;
	uint64_t mem_per_qp_bytes;
	/* errors seen in completions */
	uint64_t send_errors, recv_errors;
	unsigned int send_first_status, recv_first_status;
	uint64_t rq_underflows; /* WRITE_IMMs that found no receive WR */
	/* the first send error: how long after the last good completion, and
	 * the state its QP was in right after (ibv_query_qp) */
	uint64_t send_last_ok_ns, send_first_error_ns;
	int send_first_error_qp_state;
};

/* ---- dev.c ---- */

unsigned int mtu_enum_to_bytes(enum ibv_mtu mtu);
enum ibv_mtu mtu_bytes_to_enum(unsigned int bytes);
/*
 * Opens the device with the parameters both sides agree on and creates
 * the QPs (p->mpr 0 becomes the device's largest); dev_close undoes it.
 */
int dev_setup(struct perf_dev *d, struct sc_params *p);
void dev_close(struct perf_dev *d);

/* ---- qp.c ---- */

/* n receive WRs on q. */
int qp_post_recvs(struct perf_dev *d, struct perf_qp *q, unsigned int n);
/* Every QP, taken to INIT; measures the memory they cost. */
int dev_create_qps(struct perf_dev *d);
/* Our QPs to the peer, the peer's QPs from it. */
int sc_send_qps(int fd, const struct perf_dev *d);
int sc_recv_qps(int fd, struct perf_dev *d);
/* Every QP to RTS, connected to its peer. */
int dev_connect_qps(struct perf_dev *d, const struct sc_params *p);

#endif /* MRC_TOOLS_PERF_DEV_H */
