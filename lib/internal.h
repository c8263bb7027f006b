/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains libmrc's own objects behind the public handles: the
 * soft verbs context (a connection to mrcd), memory regions laid over the
 * application's buffers, CQs read straight from their completion rings,
 * and QPs whose send queues the application writes directly.
 */
#ifndef MRC_LIB_INTERNAL_H
#define MRC_LIB_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include <mrc.h>

#include "mrc/abi.h"
#include "mrc/mrcd_proto.h"

#define SOFT_MAX_ASYNC 64

struct soft_ctx {
	struct ibv_context ibv; /* first: the handle applications hold */
	int sock; /* to mrcd */
	pthread_mutex_t lock; /* one request at a time on sock */
	struct mrcd_dev_info info; /* info.session: for MRCD_RESUME */
	int db_sock; /* low-latency doorbells (-1: none yet, -2: none) */
	pthread_mutex_t mr_lock;
	struct soft_mr *mr[MRC_MAX_MR]; /* by index (the low key bits) */
	/*
	 * After mrcd restarts, a new connection resumes the session and
	 * the QPs' doorbells are replaced under the fd numbers posters use.
	 */
	long reconnect_ms; /* how long to try (MRC_RECONNECT_MS); 0: never */
	int lost; /* the session is gone: every call fails (ECONNRESET) */
	uint64_t next_check_ns; /* soft_check_link's, MONOTONIC_COARSE */
	pthread_mutex_t db_lock; /* taken after lock, never before */
	int *db[MRC_MAX_QP]; /* by QP number: &qp->db_fd, NULL: none */
	/* Verbs async events of plain QPs and CQs; ibv.async_fd counts them. */
	pthread_mutex_t ev_lock;
	struct ibv_async_event ev[SOFT_MAX_ASYNC];
	int nev, ev_lost;
};

struct soft_mr {
	struct ibv_mr ibv; /* first */
	uint32_t idx;
	uint32_t head; /* addr's offset in its page */
	uint8_t *base; /* addr rounded down to a page: the map starts here */
	uint64_t span; /* bytes laid over, from base, whole pages */
	unsigned int access; /* enum ibv_access_flags, as registered */
};

struct mrc_comp_channel {
	struct mrc_context *ctx;
	int epfd; /* the channel's fd: CQ rings armed one-shot */
	int ncq;
};

#define CQ_STASH 256 /* completions waiting for an earlier seq */

struct mrc_cq {
	struct mrc_context *ctx;
	uint32_t idx;
	int fd; /* the completion ring */
	void *cons_page; /* consumer position, ours to write */
	void *prod_page; /* producer position, then the data twice */
	/* MRC_CQ_POLLED or MRC_CQ_ARMED (abi.h), shared with the data path:
	 * a completion wakes the channel only once armed (NULL: an EV event
	 * queue's, which has none). */
	uint32_t *notify;
	uint64_t mask; /* ring bytes - 1 */
	struct mrc_comp_channel *ch;
	void *cq_context;
	unsigned int events_got, events_acked;
	pthread_mutex_t lock;
	struct mrc_cqe stash[CQ_STASH];
	int nstash;
	/* An EV event queue (mrc_ctl_create_ev_event_cq): fd is its
	 * eventfd, idx its number at mrcd; the fields below are unused. */
	struct mrcd_evq *evq;
	size_t evq_len;
	uint64_t next_nudge_ns; /* cq.c, nudge_unserved */
	/* Next seq per QP and direction ([qpn][0] send, [1] receive). */
	uint32_t expect[MRC_MAX_QP][2];
};

struct mrc_qp_hint {
	struct mrc_context *ctx;
	struct mrc_qp_hint_attr attr;
	int users;
};

struct mrc_qp {
	struct mrc_context *ctx;
	struct mrc_qp_init_attr init;
	uint32_t qpn;
	enum ibv_qp_state state;
	struct mrc_sq *sq; /* shared with the data path */
	int db_fd; /* eventfd mrcd serves */
	uint64_t db_token;
	pthread_mutex_t lock;
	uint32_t depth; /* send WRs at most in the queue */
	/* What mrcd gets at RTR and RTS. */
	struct mrcd_qp_modify m;
	struct ibv_qp_attr vattr;
	struct mrc_qp_attr mattr;
	int have_mask; /* MRC attributes ever set */
	/* Receive WRs: a ring of wr_ids consumed by incoming WRITE_IMMs. */
	uint64_t *rq;
	uint32_t rq_cap, rq_head, rq_tail;
	uint64_t rq_underflow; /* WRITE_IMMs that found no receive WR */
	/* After ERR: what has been flushed to the CQs. */
	int failed; /* counted in ctx->nfailed: CQ polls flush it */
	int err_seen;
	uint32_t flushed; /* send queue: next index to flush */
	int rq_flushed;
};

#define MRC_MAX_ASYNC 64

struct mrc_context {
	struct soft_ctx *sc;
	uint32_t api_version;
	pthread_mutex_t lock;
	int nobj; /* CQs, QPs, channels, hints alive */
	int nfailed; /* QPs in ERR whose WRs CQ polls flush */
	struct mrc_qp *qp[MRC_MAX_QP]; /* by QP number */
	uint32_t qp_hi; /* one past the highest QP number made here */
	int async_fd; /* eventfd: events queued */
	struct mrc_async_event async[MRC_MAX_ASYNC];
	int nasync;
};

/* One request to mrcd; fds it returns in fds[] (-1 where none). */
int soft_call(struct soft_ctx *sc, struct mrcd_req *req, struct mrcd_rep *rep,
	      int *fds, int nfds_max);
int soft_is_ours(struct ibv_context *ctx);
/* The soft device's MRC attributes (mrc_query_device's answer). */
void soft_device_attr(struct mrc_device_attr *attr);
/* A QP's doorbell fd, which a reconnect replaces in place (dup3). */
void soft_db_add(struct soft_ctx *sc, uint32_t qpn, int *fd);
void soft_db_del(struct soft_ctx *sc, uint32_t qpn, int *fd);
/*
 * After a doorbell write and on CQ polls: has mrcd gone away? Then
 * resume at once if it is back and the lock is free. Never blocks; looks
 * at most every 100 ms.
 */
void soft_check_link(struct soft_ctx *sc);
struct soft_mr *soft_mr_by_key(struct soft_ctx *sc, uint32_t lkey);

/*
 * A CQ's (or EV event queue's) fd joins channel (disarmed) and the
 * context counts it: 0 or an errno. cq_detach undoes both.
 */
int cq_attach(struct mrc_context *ctx, struct mrc_cq *cq,
	      struct mrc_comp_channel *channel, void *cq_context);
void cq_detach(struct mrc_cq *cq);

/* mrc_destroy_cq of an EV event queue (ctl.c). */
int ctl_evq_destroy(struct mrc_cq *cq);

/* The time on clock, in ns. */
static inline uint64_t now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void qp_mark_failed(struct mrc_qp *qp);
/*
 * If no mrcd serves qp's send queue (mrc_sq.no_pump) and it holds work
 * not completed, rings its low-latency doorbell: the packet that starts
 * its ACK clock again. 1 if rung.
 */
int qp_ring_unserved(struct mrc_qp *qp);
void qp_unmark_failed(struct mrc_qp *qp);
void ctx_post_async(struct mrc_context *ctx, const struct mrc_async_event *ev);

/* Sets errno to err and returns it (for the int-returning calls). */
static inline int fail_errno(int err)
{
	errno = err;
	return err;
}

#endif /* MRC_LIB_INTERNAL_H */
