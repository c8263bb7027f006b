// SPDX-License-Identifier: GPL-2.0
/*
 * Posting and polling, for both sides (post.h).
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <string.h>
#include <time.h>

#include "mrc_ext.h"
#include "perf.h"
#include "post.h"
#include "timeline.h"

void row_reset_qps(struct perf_dev *d, unsigned int window)
{
	unsigned int i;

	for (i = 0; i < d->nqps; i++) {
		struct perf_qp *q = &d->qps[i];

		q->posted = q->completed = q->signaled = q->ok = 0;
		q->target = UINT64_MAX;
		q->recv_msgs = 0;
		q->window = window;
		/* A timeline times every WR's completion. */
		q->sig_every = d->tl ? 1 : window / 2 ? window / 2 : 1;
	}
}

static void wr_fill(const struct perf_dev *d, const struct perf_qp *q,
		    const struct perf_row *r, uint64_t idx, uint32_t imm,
		    struct ibv_send_wr *wr, struct ibv_sge *sge)
{
	uint64_t off = (idx % r->slots) * r->size_bytes;
	uint64_t part = r->size_bytes / d->sge, done = 0;
	unsigned int i;

	for (i = 0; i < d->sge; i++) {
		uint64_t len = i + 1 < d->sge ? part : r->size_bytes - done;

		sge[i] = (struct ibv_sge){
			.addr = (uintptr_t)d->buf + q->slice_off + off + done,
			.length = (uint32_t)len,
			.lkey = d->mr->lkey,
		};
		done += len;
	}
	*wr = (struct ibv_send_wr){
		.wr_id = idx << PERF_QP_BITS | (uint64_t)(q - d->qps),
		.sg_list = sge,
		.num_sge = (int)d->sge,
		.opcode = r->imm ? IBV_WR_RDMA_WRITE_WITH_IMM :
				   IBV_WR_RDMA_WRITE,
		.imm_data = htobe32(imm),
	};
	wr->wr.rdma.remote_addr = q->peer.addr + off;
	wr->wr.rdma.rkey = (uint32_t)q->peer.rkey;
}

/*
 * Posts up to n WRITEs on q as one chain. A WR is signaled every
 * sig_every, at the QP's target, or when force_signal asks for the last
 * one to be (the tail of a time-limited run must complete visibly).
 */
int qp_post_writes(struct perf_dev *d, struct perf_qp *q,
		   const struct perf_row *r, unsigned int n, uint32_t imm,
		   bool force_signal)
{
	struct ibv_sge sge[PERF_POST_BATCH][PERF_MAX_SGE];
	struct ibv_send_wr wr[PERF_POST_BATCH], *bad = NULL;
	unsigned int i;
	int err;

	if (n > PERF_POST_BATCH)
		n = PERF_POST_BATCH;
	for (i = 0; i < n; i++) {
		uint64_t idx = q->posted + i;

		wr_fill(d, q, r, idx, imm ? imm : (uint32_t)idx, &wr[i],
			sge[i]);
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		if ((idx + 1) % q->sig_every == 0 || idx + 1 == q->target ||
		    (force_signal && i + 1 == n)) {
			wr[i].send_flags = IBV_SEND_SIGNALED;
			q->signaled = idx + 1;
		}
	}
	err = mrc_post_send(q->qp, wr, &bad);
	if (err) {
		pr_err("cannot post WRITEs on QP %u: %s", q->qpn,
		       strerror(err));
		return -err;
	}
	q->posted += n;
	return 0;
}

unsigned int qp_room(const struct perf_qp *q)
{
	uint64_t out = q->posted - q->completed;

	return out < q->window ? q->window - (unsigned int)out : 0;
}

/*
 * On the soft device the NIC (mrcd's send-queue pump, the XDP programs in
 * softirq) shares the CPUs with the application: a poller spinning on an
 * empty CQ takes the cycles that would complete its own work. Measured on
 * 2 CPUs (docs/perf.md): a bulk client that yielded the CPU at each empty
 * poll took 0.9-1.3 CPU seconds a second, most of it in sched_yield, and
 * left the data path one CPU. So after a short run of empty polls it arms
 * both CQs and sleeps on their completion channel until a completion (the
 * ring buffer's wakeup) or idle_us, whichever comes first; the bound keeps
 * deadlines and signals seen. An armed CQ that already holds a record is
 * ready at once (epoll looks when it is armed), so none is missed.
 * idle_us 0 spins, as one would on a hardware NIC (and no channel exists).
 */
static void wait_event(const struct perf_dev *d)
{
	struct pollfd p = { .events = POLLIN };
	struct timespec ts = { d->idle_us / 1000000,
			       (long)(d->idle_us % 1000000) * 1000 };
	struct mrc_cq *cq;
	void *ctx;

	if (mrc_get_comp_channel_fd(d->ch, &p.fd) ||
	    mrc_req_notify_cq(d->scq, 0) || mrc_req_notify_cq(d->rcq, 0) ||
	    ppoll(&p, 1, &ts, NULL) != 1)
		return;
	if (!mrc_get_cq_event(d->ch, &cq, &ctx))
		mrc_ack_cq_events(cq, 1);
}

void idle(const struct perf_dev *d, unsigned int *empty)
{
	if (!d->ch || ++*empty < PERF_IDLE_POLLS)
		return;
	*empty = 0;
	wait_event(d);
}

static void note_send_error(struct perf_dev *d, const struct ibv_wc *wc)
{
	if (!d->send_errors++) {
		struct ibv_qp_attr attr = { 0 };
		unsigned int qi = (unsigned int)(wc->wr_id & PERF_QP_MASK);

		d->send_first_status = wc->status;
		d->send_first_error_ns = now_ns();
		d->send_first_error_qp_state = -1;
		if (qi < d->nqps && !mrc_query_qp(d->qps[qi].qp, &attr,
						  IBV_QP_STATE, NULL, 0, NULL))
			d->send_first_error_qp_state = attr.qp_state;
		pr_err("WRITE on QP %u completed with error: %s (status %u)",
		       wc->qp_num, wc_status_name(wc->status), wc->status);
	}
}

/* Polls the send CQ once; returns completions seen, or -errno. */
int poll_send(struct perf_dev *d)
{
	struct ibv_wc wc[PERF_POLL_BATCH];
	uint64_t ts[PERF_POLL_BATCH];
	int n, i;

	n = mrcx_poll_cq_ts(d->scq, PERF_POLL_BATCH, wc, ts);
	if (n < 0) {
		pr_err("polling the send CQ failed");
		return -EIO;
	}
	for (i = 0; i < n; i++) {
		unsigned int qi = (unsigned int)(wc[i].wr_id & PERF_QP_MASK);
		uint64_t idx = wc[i].wr_id >> PERF_QP_BITS;
		struct perf_qp *q;

		if (qi >= d->nqps) {
			pr_err("send completion for an unknown WR %#" PRIx64,
			       (uint64_t)wc[i].wr_id);
			return -EPROTO;
		}
		q = &d->qps[qi];
		/*
		 * Each completion covers the unsignaled WRs before it (at most
		 * one per WR): one for a WR not posted, already covered or
		 * completed twice is the device's bug, never counted.
		 */
		if (idx < q->completed || idx >= q->posted) {
			pr_err("send completion for WR %" PRIu64
			       " of QP %u: %s (%" PRIu64 " completed, %" PRIu64
			       " posted)",
			       idx, q->qpn,
			       idx < q->completed ?
				       "a duplicate or out of order" :
				       "never posted",
			       q->completed, q->posted);
			return -EPROTO;
		}
		if (wc[i].status != IBV_WC_SUCCESS) {
			note_send_error(d, &wc[i]);
		} else {
			q->ok += idx + 1 - q->completed;
			d->send_last_ok_ns = now_ns();
			if (d->tl)
				tl_completion(d->tl, d->send_last_ok_ns, ts[i],
					      (idx + 1 - q->completed) *
						      d->wr_bytes);
		}
		q->completed = idx + 1;
	}
	return n;
}

static unsigned int qp_index(const struct perf_dev *d, uint32_t qpn)
{
	unsigned int i;

	for (i = 0; i < d->nqps; i++)
		if (d->qps[i].qpn == qpn)
			break;
	return i;
}

static void note_recv_error(struct perf_dev *d, const struct ibv_wc *wc)
{
	if (!d->recv_errors++) {
		d->recv_first_status = wc->status;
		pr_err("receive on QP %u completed with error: %s (status %u)",
		       wc->qp_num, wc_status_name(wc->status), wc->status);
	}
}

/*
 * Polls the receive CQ once and reposts what was consumed. wc_out, when
 * given, gets the completions (room for PERF_POLL_BATCH).
 */
int poll_recv(struct perf_dev *d, struct ibv_wc *wc_out)
{
	struct ibv_wc wc_buf[PERF_POLL_BATCH], *wc = wc_out ? wc_out : wc_buf;
	int n, i, err;

	n = mrc_poll_cq(d->rcq, PERF_POLL_BATCH, wc);
	if (n < 0) {
		pr_err("polling the receive CQ failed");
		return -EIO;
	}
	for (i = 0; i < n; i++) {
		uint64_t id = wc[i].wr_id;
		unsigned int qi;

		/*
		 * The WR's id is its QP's index + 1. A WRITE_IMM that found
		 * no receive WR posted completes with id 0: nothing to
		 * repost, but the receiver fell behind, and we count it.
		 * From here on wr_id is the QP's index.
		 */
		if (id && id <= d->nqps && d->qps[id - 1].qpn == wc[i].qp_num)
			qi = (unsigned int)id - 1;
		else
			qi = qp_index(d, wc[i].qp_num);
		if (qi >= d->nqps) {
			pr_err("receive completion for unknown QP %u",
			       wc[i].qp_num);
			return -EPROTO;
		}
		wc[i].wr_id = qi;
		if (!id)
			d->rq_underflows++;
		if (wc[i].status != IBV_WC_SUCCESS) {
			note_recv_error(d, &wc[i]);
			continue; /* flushed: the QP takes no more WRs */
		}
		d->qps[qi].recv_msgs++;
		if (id)
			d->qps[qi].rq_refill++;
	}
	for (i = 0; i < n; i++) {
		struct perf_qp *q = &d->qps[wc[i].wr_id];

		if (!q->rq_refill)
			continue;
		err = qp_post_recvs(d, q, q->rq_refill);
		if (err)
			return err;
		q->rq_refill = 0;
	}
	return n;
}

uint64_t recv_total(const struct perf_dev *d)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < d->nqps; i++)
		n += d->qps[i].recv_msgs;
	return n;
}

/* Polls until a send slot is free on q. */
int wait_room(struct perf_dev *d, struct perf_qp *q, uint64_t deadline)
{
	unsigned int empty = 0;
	int n;

	while (!qp_room(q)) {
		n = poll_send(d);
		if (n < 0)
			return n;
		if (d->send_errors)
			return -EIO;
		if (g_stop)
			return -EINTR;
		if (!n && now_ns() > deadline)
			return -ETIMEDOUT;
		if (!n)
			idle(d, &empty);
	}
	return 0;
}

/* Polls until one receive completion arrives; reposts its receive WR. */
int wait_recv(struct perf_dev *d, struct ibv_wc *wc, uint64_t deadline)
{
	unsigned int spins = 0, empty = 0;
	int n;

	for (;;) {
		n = poll_recv(d, wc);
		if (n)
			return n;
		if ((++spins & 255) == 0) {
			if (g_stop)
				return -EINTR;
			if (now_ns() > deadline)
				return -ETIMEDOUT;
		}
		if (d->send_errors)
			return -EIO;
		if ((spins & 63) == 0 && poll_send(d) < 0)
			return -EIO;
		idle(d, &empty);
	}
}
