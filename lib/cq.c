// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues and channels. A CQ is a BPF ring buffer the data path
 * writes and libmrc reads in place (no system call per poll). Records of
 * one QP and direction carry consecutive seq numbers; two CPUs may commit
 * neighbours out of order, so a record that runs ahead waits in a stash
 * until its predecessor arrives. A completion channel is an epoll fd over
 * the CQs' rings, armed one-shot by mrc_req_notify_cq(), which also arms
 * the CQ's notify word: the data path wakes the ring's readers only for
 * an armed CQ, so a polled one costs no wakeup per completion.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define PAGE 4096ul
/* Ring record header bits, as the kernel's BPF ring buffer sets them. */
#define RB_BUSY (1u << 31)
#define RB_DISCARD (1u << 30)
#define RB_HDR 8

int mrc_create_comp_channel(struct mrc_context *ctx,
			    struct mrc_comp_channel **channel)
{
	struct mrc_comp_channel *ch;

	if (!ctx || !channel)
		return fail_errno(EINVAL);
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return fail_errno(ENOMEM);
	ch->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (ch->epfd < 0) {
		int err = errno;

		free(ch);
		return fail_errno(err);
	}
	ch->ctx = ctx;
	pthread_mutex_lock(&ctx->lock);
	ctx->nobj++;
	pthread_mutex_unlock(&ctx->lock);
	*channel = ch;
	return 0;
}

int mrc_get_comp_channel_fd(struct mrc_comp_channel *channel, int *fd)
{
	if (!channel || !fd) {
		errno = EINVAL;
		return -1;
	}
	*fd = channel->epfd;
	return 0;
}

int mrc_destroy_comp_channel(struct mrc_comp_channel *ch)
{
	if (!ch)
		return fail_errno(EINVAL);
	if (ch->ncq)
		return fail_errno(EBUSY);
	close(ch->epfd);
	pthread_mutex_lock(&ch->ctx->lock);
	ch->ctx->nobj--;
	pthread_mutex_unlock(&ch->ctx->lock);
	free(ch);
	return 0;
}

struct mrc_cq *mrc_create_cq(struct mrc_context *ctx, int cqe, void *cq_context,
			     struct mrc_comp_channel *channel, int comp_vector)
{
	struct mrcd_req req = { .op = MRCD_CQ_CREATE };
	struct mrcd_rep rep;
	struct mrc_cq *cq;
	int err, fds[2] = { -1, -1 };
	void *notify;

	if (!ctx || cqe < 1 || cqe > (int)(MRC_CQ_RING_BYTES / 64) ||
	    comp_vector != 0) {
		errno = EINVAL;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	cq->fd = -1;
	cq->cons_page = cq->prod_page = MAP_FAILED;
	err = soft_call(ctx->sc, &req, &rep, fds, 2);
	if (err)
		goto fail;
	cq->fd = fds[0];
	cq->idx = rep.obj.idx;
	/* Both fds, or mrcd is not of this library's protocol. */
	notify = fds[1] < 0 ? MAP_FAILED :
			      mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
				   MAP_SHARED, fds[1], 0);
	err = cq->fd < 0 || fds[1] < 0 ? EPROTO : errno;
	if (fds[1] >= 0)
		close(fds[1]);
	if (cq->fd < 0 || notify == MAP_FAILED)
		goto fail_dev;
	cq->notify = notify;
	cq->mask = MRC_CQ_RING_BYTES - 1;
	cq->cons_page =
		mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, cq->fd, 0);
	cq->prod_page = mmap(NULL, PAGE + 2 * (size_t)MRC_CQ_RING_BYTES,
			     PROT_READ, MAP_SHARED, cq->fd, PAGE);
	if (cq->cons_page == MAP_FAILED || cq->prod_page == MAP_FAILED) {
		err = errno;
		goto fail_dev;
	}
	err = cq_attach(ctx, cq, channel, cq_context);
	if (err)
		goto fail_dev;
	return cq;
fail_dev : {
	struct mrcd_req d = { .op = MRCD_CQ_DESTROY, .obj.idx = cq->idx };

	soft_call(ctx->sc, &d, &rep, NULL, 0);
}
fail:
	if (cq->notify)
		munmap(cq->notify, PAGE);
	if (cq->cons_page != MAP_FAILED)
		munmap(cq->cons_page, PAGE);
	if (cq->prod_page != MAP_FAILED)
		munmap(cq->prod_page, PAGE + 2 * (size_t)MRC_CQ_RING_BYTES);
	if (cq->fd >= 0)
		close(cq->fd);
	free(cq);
	errno = err;
	return NULL;
}

int cq_attach(struct mrc_context *ctx, struct mrc_cq *cq,
	      struct mrc_comp_channel *channel, void *cq_context)
{
	if (channel) {
		/* Added disarmed: EPOLLONESHOT with no events until armed. */
		struct epoll_event ev = { .events = EPOLLONESHOT,
					  .data.ptr = cq };

		if (epoll_ctl(channel->epfd, EPOLL_CTL_ADD, cq->fd, &ev))
			return errno;
		channel->ncq++;
	}
	cq->ctx = ctx;
	cq->ch = channel;
	cq->cq_context = cq_context;
	pthread_mutex_init(&cq->lock, NULL);
	pthread_mutex_lock(&ctx->lock);
	ctx->nobj++;
	pthread_mutex_unlock(&ctx->lock);
	return 0;
}

void cq_detach(struct mrc_cq *cq)
{
	if (cq->ch) {
		epoll_ctl(cq->ch->epfd, EPOLL_CTL_DEL, cq->fd, NULL);
		cq->ch->ncq--;
	}
	pthread_mutex_lock(&cq->ctx->lock);
	cq->ctx->nobj--;
	pthread_mutex_unlock(&cq->ctx->lock);
}

int mrc_destroy_cq(struct mrc_cq *cq)
{
	struct mrcd_req req = { .op = MRCD_CQ_DESTROY };
	struct mrcd_rep rep;
	int err;

	if (!cq)
		return fail_errno(EINVAL);
	if (cq->events_acked != cq->events_got)
		return fail_errno(EBUSY);
	if (cq->evq)
		return ctl_evq_destroy(cq);
	req.obj.idx = cq->idx;
	err = soft_call(cq->ctx->sc, &req, &rep, NULL, 0);
	if (err)
		return fail_errno(err); /* EBUSY while a QP uses it */
	cq_detach(cq);
	munmap(cq->notify, PAGE);
	munmap(cq->cons_page, PAGE);
	munmap(cq->prod_page, PAGE + 2 * (size_t)MRC_CQ_RING_BYTES);
	close(cq->fd);
	free(cq);
	return 0;
}

/* Turns one record into a work completion; 0 if it is not for us. */
static int to_wc(struct mrc_cq *cq, const struct mrc_cqe *c, struct ibv_wc *wc,
		 uint64_t *ts_ns)
{
	struct mrc_context *ctx = cq->ctx;
	struct mrc_qp *qp = c->qpn < MRC_MAX_QP ? ctx->qp[c->qpn] : NULL;

	memset(wc, 0, sizeof(*wc));
	if (ts_ns)
		*ts_ns = c->ts_ns;
	wc->wr_id = c->wr_id;
	wc->status = c->status;
	wc->qp_num = c->qpn;
	wc->byte_len = c->byte_len;
	if (c->opcode == MRC_WC_RECV_RDMA_WITH_IMM) {
		wc->opcode = IBV_WC_RECV_RDMA_WITH_IMM;
		wc->wc_flags = IBV_WC_WITH_IMM;
		wc->imm_data = c->imm;
		wc->wr_id = 0;
		if (qp) {
			pthread_mutex_lock(&qp->lock);
			if (qp->rq_head != qp->rq_tail)
				wc->wr_id = qp->rq[qp->rq_head++ % qp->rq_cap];
			else
				qp->rq_underflow++;
			pthread_mutex_unlock(&qp->lock);
		}
	} else {
		wc->opcode = IBV_WC_RDMA_WRITE;
	}
	if (qp) {
		wc->src_qp = qp->m.peer_qpn;
		if (c->status != MRC_WC_SUCCESS)
			qp_mark_failed(qp);
	}
	return 1;
}

/* The seq the record's QP and direction expects next. */
static uint32_t *expected(struct mrc_cq *cq, const struct mrc_cqe *c)
{
	return &cq->expect[c->qpn % MRC_MAX_QP]
			  [c->opcode == MRC_WC_RECV_RDMA_WITH_IMM];
}

/* The i-th timestamp slot of a poll's, if it asked for them. */
static uint64_t *ts_at(uint64_t *ts_ns, int i)
{
	return ts_ns ? &ts_ns[i] : NULL;
}

/* Stashed records that are now next in their order go out first. */
static int from_stash(struct mrc_cq *cq, int n, struct ibv_wc *wc,
		      uint64_t *ts_ns)
{
	int got = 0, i, again = 1;

	while (again && got < n) {
		again = 0;
		for (i = 0; i < cq->nstash && got < n; i++) {
			struct mrc_cqe *c = &cq->stash[i];
			uint32_t *e = expected(cq, c);

			if (c->seq != *e)
				continue;
			(*e)++;
			got += to_wc(cq, c, &wc[got], ts_at(ts_ns, got));
			cq->stash[i--] = cq->stash[--cq->nstash];
			again = 1;
		}
	}
	return got;
}

/* Reads ring records until n completions are out or the ring is empty. */
static int from_ring(struct mrc_cq *cq, int n, struct ibv_wc *wc,
		     uint64_t *ts_ns)
{
	uint64_t *cons = cq->cons_page, pos, prod;
	uint8_t *data = (uint8_t *)cq->prod_page + PAGE;
	int got = 0;

	pos = *cons;
	prod = __atomic_load_n((uint64_t *)cq->prod_page, __ATOMIC_ACQUIRE);
	while (pos < prod && got < n) {
		uint32_t *hdr = (uint32_t *)(data + (pos & cq->mask));
		uint32_t len = __atomic_load_n(hdr, __ATOMIC_ACQUIRE);
		struct mrc_cqe c;

		if (len & RB_BUSY)
			break; /* reserved, not committed yet */
		if (cq->nstash == CQ_STASH)
			break; /* make room first */
		if (!(len & RB_DISCARD) &&
		    (len & ~(RB_BUSY | RB_DISCARD)) == sizeof(c)) {
			uint32_t *e;

			memcpy(&c, hdr + 2, sizeof(c));
			e = expected(cq, &c);
			if (c.seq == *e) {
				(*e)++;
				got += to_wc(cq, &c, &wc[got],
					     ts_at(ts_ns, got));
				got += from_stash(cq, n - got, &wc[got],
						  ts_at(ts_ns, got));
			} else {
				cq->stash[cq->nstash++] = c;
			}
		}
		pos += ((len & ~(RB_BUSY | RB_DISCARD)) + RB_HDR + 7) & ~7ull;
		__atomic_store_n(cons, pos, __ATOMIC_RELEASE);
	}
	return got;
}

/*
 * A QP in ERR completes what it still holds with IBV_WC_WR_FLUSH_ERR:
 * send WRs behind the one that failed, then posted receives.
 */
static int flush_qp(struct mrc_cq *cq, struct mrc_qp *qp, int n,
		    struct ibv_wc *wc)
{
	int got = 0;

	pthread_mutex_lock(&qp->lock);
	if (qp->init.send_cq == cq) {
		uint32_t tail = qp->sq->tail;

		if (!qp->err_seen) {
			qp->err_seen = 1;
			qp->flushed = qp->sq->done;
			if (qp->state != IBV_QPS_ERR) {
				struct mrc_async_event ev = {
					.element.qp = qp,
					.event_type = IBV_EVENT_QP_FATAL
				};

				/* The data path failed it, not the app. */
				qp->state = IBV_QPS_ERR;
				ctx_post_async(qp->ctx, &ev);
			}
		}
		for (; qp->flushed != tail && got < n; qp->flushed++) {
			struct mrc_wqe *w =
				&qp->sq->wqe[qp->flushed % MRC_SQ_DEPTH];

			if (qp->flushed == qp->sq->err_wqe)
				continue; /* completed in error already */
			if (w->flags & MRC_WQE_PIECE)
				continue; /* one completion per WR */
			memset(&wc[got], 0, sizeof(wc[got]));
			wc[got].wr_id = w->wr_id;
			wc[got].status = IBV_WC_WR_FLUSH_ERR;
			wc[got].opcode = IBV_WC_RDMA_WRITE;
			wc[got].qp_num = qp->qpn;
			got++;
		}
	}
	if (qp->init.recv_cq == cq) {
		for (; qp->rq_head != qp->rq_tail && got < n; qp->rq_head++) {
			memset(&wc[got], 0, sizeof(wc[got]));
			wc[got].wr_id = qp->rq[qp->rq_head % qp->rq_cap];
			wc[got].status = IBV_WC_WR_FLUSH_ERR;
			wc[got].opcode = IBV_WC_RECV;
			wc[got].qp_num = qp->qpn;
			got++;
		}
	}
	pthread_mutex_unlock(&qp->lock);
	return got;
}

/* From now on, polls of the QP's CQs flush what it still holds. */
void qp_mark_failed(struct mrc_qp *qp)
{
	pthread_mutex_lock(&qp->ctx->lock);
	if (!qp->failed) {
		qp->failed = 1;
		qp->ctx->nfailed++;
	}
	pthread_mutex_unlock(&qp->ctx->lock);
}

void qp_unmark_failed(struct mrc_qp *qp)
{
	pthread_mutex_lock(&qp->ctx->lock);
	if (qp->failed) {
		qp->failed = 0;
		qp->ctx->nfailed--;
	}
	pthread_mutex_unlock(&qp->ctx->lock);
}

/*
 * A post that read no_pump clear in the instant before mrcd died rang
 * mrcd's eventfd, which nobody reads now; with nothing of its QP's in
 * flight no ACK sends it either, and it would wait for the next mrcd. An
 * empty poll rings the doorbell of each QP sending to this CQ that no
 * mrcd serves and has work (qp_ring_unserved), at most every NUDGE_NS
 * by the coarse clock (a tick: 4 ms at HZ 250). Never waits for a lock.
 */
#define NUDGE_NS 1000000ull

static void nudge_unserved(struct mrc_cq *cq)
{
	struct mrc_context *ctx = cq->ctx;
	uint64_t now = now_ns(CLOCK_MONOTONIC_COARSE);
	uint32_t i;

	if (now < __atomic_load_n(&cq->next_nudge_ns, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&cq->next_nudge_ns, now + NUDGE_NS, __ATOMIC_RELAXED);
	/* Held, a QP is not destroyed under us (mrc_destroy_qp). */
	if (pthread_mutex_trylock(&ctx->lock))
		return;
	for (i = 0; i < ctx->qp_hi && i < MRC_MAX_QP; i++) {
		struct mrc_qp *qp = ctx->qp[i];

		if (qp && qp->init.send_cq == cq)
			qp_ring_unserved(qp);
	}
	pthread_mutex_unlock(&ctx->lock);
}

static int poll_cq(struct mrc_cq *cq, int num_entries, struct ibv_wc *wc,
		   uint64_t *ts_ns)
{
	struct mrc_context *ctx;
	int got, i, flushed;

	if (!cq || cq->evq || num_entries < 0 || (num_entries && !wc)) {
		errno = EINVAL; /* an EV event queue: mrc_ctl_poll_ev_event */
		return -1;
	}
	ctx = cq->ctx;
	/* Applications poll all the time: the cheapest place to notice that
	 * mrcd restarted and resume (a clock read, a poll() each 100 ms). */
	soft_check_link(ctx->sc);
	pthread_mutex_lock(&cq->lock);
	got = from_stash(cq, num_entries, wc, ts_ns);
	got += from_ring(cq, num_entries - got, wc + got, ts_at(ts_ns, got));
	flushed = got;
	/* Flushes follow the error completion that marked the QP failed. */
	if (__atomic_load_n(&ctx->nfailed, __ATOMIC_ACQUIRE)) {
		struct mrc_qp *f[64];
		int nf = 0, k;

		pthread_mutex_lock(&ctx->lock);
		for (i = 0; i < MRC_MAX_QP && nf < 64; i++) {
			struct mrc_qp *qp = ctx->qp[i];

			if (qp && qp->failed &&
			    (qp->init.send_cq == cq || qp->init.recv_cq == cq))
				f[nf++] = qp;
		}
		pthread_mutex_unlock(&ctx->lock);
		for (k = 0; k < nf && got < num_entries; k++)
			got += flush_qp(cq, f[k], num_entries - got, wc + got);
	}
	pthread_mutex_unlock(&cq->lock);
	if (!got)
		nudge_unserved(cq);
	/* Flushes are libmrc's, made now; the data path stamped the rest. */
	if (ts_ns && flushed < got) {
		uint64_t now = now_ns(CLOCK_MONOTONIC);

		for (i = flushed; i < got; i++)
			ts_ns[i] = now;
	}
	return got;
}

int mrc_poll_cq(struct mrc_cq *cq, int num_entries, struct ibv_wc *wc)
{
	return poll_cq(cq, num_entries, wc, NULL);
}

int mrcx_poll_cq_ts(struct mrc_cq *cq, int num_entries, struct ibv_wc *wc,
		    uint64_t *ts_ns)
{
	if (num_entries > 0 && !ts_ns) {
		errno = EINVAL;
		return -1;
	}
	return poll_cq(cq, num_entries, wc, ts_ns);
}

int mrc_req_notify_cq(struct mrc_cq *cq, int solicited_only)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLONESHOT,
				  .data.ptr = cq };

	(void)solicited_only; /* every completion is an event */
	if (!cq || !cq->ch)
		return fail_errno(EINVAL);
	/*
	 * Armed first, then epoll looks at the ring: a completion committed
	 * before the word was seen armed is in the ring for epoll to see,
	 * and one after wakes the channel (the data path reads the word
	 * after each commit; bpf/lib/cq.h). Sequentially consistent: this
	 * store must not pass the ring's read in the call below.
	 */
	if (cq->notify)
		__atomic_store_n(cq->notify, MRC_CQ_ARMED, __ATOMIC_SEQ_CST);
	if (epoll_ctl(cq->ch->epfd, EPOLL_CTL_MOD, cq->fd, &ev))
		return fail_errno(errno);
	return 0;
}

int mrc_get_cq_event(struct mrc_comp_channel *channel, struct mrc_cq **cq,
		     void **cq_context)
{
	struct epoll_event ev;
	int n;

	if (!channel || !cq || !cq_context) {
		errno = EINVAL;
		return -1;
	}
	do
		n = epoll_wait(channel->epfd, &ev, 1, -1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		return -1;
	*cq = ev.data.ptr;
	*cq_context = (*cq)->cq_context;
	(*cq)->events_got++;
	return 0;
}

void mrc_ack_cq_events(struct mrc_cq *cq, unsigned int nevents)
{
	if (cq)
		cq->events_acked += nevents;
}
