// SPDX-License-Identifier: GPL-2.0
/*
 * mrcd's pump: transmit calls for the QPs with work (pump.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clock.h"
#include "dev.h"
#include "log.h"
#include "pump.h"

int pump_init(struct pump *p, struct dev *d, struct loop *l,
	      uint32_t tx_threads, uint32_t tx_lanes)
{
	uint32_t i;
	int fd = dev_map_fd(d, DEV_MAP_WAKE), err;

	memset(p, 0, sizeof(*p));
	p->dev = d;
	p->loop = l;
	for (i = 0; i < MRC_MAX_QP; i++) {
		p->qp[i].qpn = i;
		p->qp[i].db.fd = -1;
	}
	p->wake = fd < 0 ? MAP_FAILED :
			   mmap(NULL, MRC_WAKE_MAP_BYTES,
				PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p->wake == MAP_FAILED) {
		p->wake = NULL;
		log_err("mapping mrc_wake: %s\n", strerror(errno));
		return -EIO;
	}
	p->max_lanes = tx_lanes ? tx_lanes : TXT_LANES_MAX;
	err = txt_start(&p->txt, d, tx_threads);
	if (err)
		log_err("transmit threads: %s\n", strerror(-err));
	return err;
}

void pump_close(struct pump *p)
{
	uint32_t i;

	if (!p->loop)
		return; /* never started */
	txt_stop(&p->txt);
	for (i = 0; i < MRC_MAX_QP; i++)
		loop_del(p->loop, &p->qp[i].db);
	if (p->wake)
		munmap(p->wake, MRC_WAKE_MAP_BYTES);
	p->wake = NULL;
}

static void doorbell(struct loop_fd *h)
{
	struct pump_qp *q = container_of(h, struct pump_qp, db);
	struct pump *p = container_of(q - q->qpn, struct pump, qp[0]);
	uint64_t v;

	if (read(h->fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return;
	pump_activate(p, q->qpn);
}

int pump_qp_add(struct pump *p, uint32_t qpn, struct mrc_sq *sq, int db_fd)
{
	struct pump_qp *q;

	if (qpn >= MRC_MAX_QP)
		return -EINVAL;
	q = &p->qp[qpn];
	pump_qp_del(p, qpn);
	q->sq = sq;
	return loop_add(p->loop, &q->db, db_fd, doorbell);
}

void pump_qp_del(struct pump *p, uint32_t qpn)
{
	struct pump_qp *q;

	if (qpn >= MRC_MAX_QP)
		return;
	q = &p->qp[qpn];
	loop_del(p->loop, &q->db);
	pump_qp_stop(p, qpn);
	q->sq = NULL;
	q->timeout_ns = 0;
	q->lanes = 0;
}

void pump_qp_rts(struct pump *p, uint32_t qpn, uint64_t timeout_ns)
{
	if (qpn >= MRC_MAX_QP || !p->qp[qpn].sq)
		return;
	p->qp[qpn].rts = 1;
	qpset_add(&p->rts, qpn);
	p->qp[qpn].timeout_ns = timeout_ns;
}

void pump_qp_stop(struct pump *p, uint32_t qpn)
{
	if (qpn < MRC_MAX_QP) {
		p->qp[qpn].rts = 0; /* the next pass takes it off the list */
		qpset_del(&p->rts, qpn);
	}
}

void pump_activate(struct pump *p, uint32_t qpn)
{
	struct pump_qp *q;

	if (qpn >= MRC_MAX_QP || !p->qp[qpn].sq)
		return;
	q = &p->qp[qpn];
	q->next_ns = 0;
	q->poll_ns = PUMP_POLL_MIN_NS;
	if (!q->burst)
		q->burst = 64;
	if (q->active)
		return;
	q->active = 1;
	p->active[p->nactive++] = qpn;
	/* Posters may skip the doorbell while this is set. */
	__atomic_store_n(&q->sq->pumping, 1, __ATOMIC_SEQ_CST);
}

/*
 * Nothing left to send or complete. Clearing pumping and then looking at
 * tail again pairs with the poster's storing tail and then looking at
 * pumping: one of the two sees the other, so no post goes unserved.
 */
static int sq_idle(struct pump_qp *q)
{
	if (__atomic_load_n(&q->sq->tail, __ATOMIC_SEQ_CST) !=
	    __atomic_load_n(&q->sq->done, __ATOMIC_SEQ_CST))
		return 0;
	__atomic_store_n(&q->sq->pumping, 0, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&q->sq->tail, __ATOMIC_SEQ_CST) !=
	    __atomic_load_n(&q->sq->done, __ATOMIC_SEQ_CST)) {
		__atomic_store_n(&q->sq->pumping, 1, __ATOMIC_SEQ_CST);
		return 0;
	}
	return 1;
}

/*
 * The call found nothing more to send (window, congestion window, WIMM,
 * or all sent): poll later, backing off. sent says whether this call
 * sent anything (a new wait starts from the shortest poll).
 */
static void wait_acks(struct pump_qp *q, uint64_t now, int sent)
{
	uint64_t poll_max = q->timeout_ns / 4, poll_min = PUMP_POLL_MIN_NS;
	int unsent;

	/* Work left unsent waits for an ACK, which wakes the QP (armed
	 * before the call): the poll is only for timeouts and a wakeup lost
	 * to a full ring. With everything sent, posters may be skipping the
	 * doorbell (pumping): look soon. */
	unsent = __atomic_load_n(&q->sq->sent, __ATOMIC_RELAXED) !=
		 __atomic_load_n(&q->sq->tail, __ATOMIC_RELAXED);
	if (unsent)
		poll_min = PUMP_POLL_WAKE_NS;
	if (poll_max > PUMP_POLL_MAX_NS)
		poll_max = PUMP_POLL_MAX_NS;
	if (poll_min > poll_max)
		poll_min = poll_max;
	if (poll_max < PUMP_POLL_MIN_NS)
		poll_max = poll_min = PUMP_POLL_MIN_NS;
	/* A new wait, or one for another reason, starts from its shortest. */
	if (sent || unsent != q->wait_unsent || q->poll_ns < poll_min)
		q->poll_ns = poll_min;
	q->wait_unsent = unsent;
	q->burst = PUMP_BURST_WAIT;
	q->next_ns = now + q->poll_ns;
	q->poll_ns = q->poll_ns * 2 > poll_max ? poll_max : q->poll_ns * 2;
}

/*
 * The QP sends large messages: the WQE it is sending now is at least
 * PUMP_LANE_MIN_BYTES. A read of the poster's queue, for a heuristic only.
 */
static int large_messages(const struct mrc_sq *sq)
{
	uint32_t sent = __atomic_load_n(&sq->sent, __ATOMIC_RELAXED);

	if (sent == __atomic_load_n(&sq->tail, __ATOMIC_RELAXED))
		return 0;
	return *(volatile const uint32_t *)&sq->wqe[sent % MRC_SQ_DEPTH].len >=
	       PUMP_LANE_MIN_BYTES;
}

/*
 * Transmit lanes (docs/mrcd.md): the threads a pass leaves idle go to QPs
 * that send full bursts of large messages, a call on each lane, so one
 * QP's packets are built, received and acknowledged on more than one CPU.
 * Each call sprays over its lane's EVs (struct mrc_tx_call): one EV's
 * packets leave from one lane's calls only. Lanes are 2, 4 or 8, at most
 * max_lanes and the threads idle plus the QP's own. A QP keeps its lanes
 * while it is active, however its bursts go: a QP that flipped between
 * lanes and one call would send an EV's packets from two threads in turn,
 * which may run on two CPUs, whose receive work may overtake each other.
 * Returns the calls now, the lanes after the n first calls.
 */
static int add_lanes(struct pump *p, int n)
{
	int i, shares = txt_count(&p->txt), total = n;
	uint32_t lanes, l;

	for (i = 0; i < n; i++) {
		struct txt_call *c = &p->calls[i];
		struct pump_qp *q = &p->qp[c->qpn];

		if (q->lanes < 2) {
			if (q->burst < PUMP_BURST_MAX || !large_messages(q->sq))
				continue;
			for (lanes = 1; lanes * 2 <= p->max_lanes &&
					(int)lanes * 2 <= shares - total + 1;)
				lanes *= 2;
			if (lanes < 2)
				continue;
			q->lanes = lanes;
		}
		lanes = q->lanes;
		if (total + (int)lanes - 1 > MRC_MAX_QP) {
			q->lanes = 0; /* no room in calls[]: cannot be */
			continue;
		}
		c->lanes = (uint16_t)lanes;
		for (l = 1; l < lanes; l++) {
			p->calls[total] = *c;
			p->calls[total].lane = (uint16_t)l;
			p->calls[total].share = (uint32_t)total;
			total++;
		}
	}
	return total;
}

/*
 * The lanes' packets go to their QP's first call: add_lanes appended each
 * laned call's other lanes after the n first calls, in their order.
 * Returns n.
 */
static int merge_lanes(struct pump *p, int n)
{
	int i, k = n;
	uint32_t l;

	for (i = 0; i < n; i++) {
		struct txt_call *a = &p->calls[i];

		for (l = 1; l < a->lanes; l++, k++)
			if (p->calls[k].sent > 0)
				a->sent = a->sent > 0 ?
						  a->sent + p->calls[k].sent :
						  p->calls[k].sent;
	}
	return n;
}

int pump_kick(struct pump *p)
{
	int i, sent = 0, n;

	/* A post that rang the doorbell just before the queues were marked
	 * is in no list until its eventfd is read, and nobody will read it
	 * now: every QP in RTS with work joins first. */
	pump_scan(p);
	for (i = 0; i < p->nactive; i++) {
		struct pump_qp *q = &p->qp[p->active[i]];

		if (!q->rts || !q->sq || q->sq->state == MRC_QPS_ERR ||
		    sq_idle(q))
			continue;
		n = dev_tx_burst(p->dev, p->active[i], 1, 0, 1);
		sent += n > 0 ? n : 0;
	}
	return sent;
}

void pump_served(struct pump *p)
{
	uint32_t qpn;

	for (qpn = 0; qpn < MRC_MAX_QP; qpn++)
		if (p->qp[qpn].sq)
			__atomic_store_n(&p->qp[qpn].sq->no_pump, 0,
					 __ATOMIC_SEQ_CST);
}

int pump_pass(struct pump *p, uint64_t *next_ns)
{
	uint64_t now = now_ns();
	int i, progress = 0, ncalls = 0, nq, made;

	*next_ns = UINT64_MAX;
	for (i = 0; i < p->nactive; i++) {
		uint32_t qpn = p->active[i];
		struct pump_qp *q = &p->qp[qpn];

		if (!q->rts || !q->sq || q->sq->state == MRC_QPS_ERR ||
		    sq_idle(q)) {
			q->active = 0;
			q->burst = 0;
			/* Nothing in flight: lanes decided anew. */
			q->lanes = 0;
			p->active[i--] = p->active[--p->nactive];
			continue;
		}
		if (now < q->next_ns) {
			if (q->next_ns < *next_ns)
				*next_ns = q->next_ns;
			continue;
		}
		/*
		 * Ask the receive program for a wakeup when an ACK moves the
		 * window before the call, not after: one that comes during
		 * or after it is not missed, and a call that finds the QP
		 * stalled needs no second look (each call costs about 25 us
		 * of setup, docs/mrcd.md).
		 */
		__atomic_store_n(&p->wake[qpn], 1, __ATOMIC_SEQ_CST);
		q->tail0 = __atomic_load_n(&q->sq->tail, __ATOMIC_ACQUIRE);
		/* A burst per QP, on the shares in turn (txthreads.h). */
		p->calls[ncalls] = (struct txt_call){ .qpn = qpn,
						      .burst = q->burst,
						      .lanes = 1,
						      .share = ncalls };
		ncalls++;
	}
	nq = ncalls;
	if (p->max_lanes > 1)
		ncalls = add_lanes(p, ncalls);
	made = txt_run(&p->txt, p->calls, ncalls);
	p->tx_calls += (uint64_t)(made > 0 ? made : 0);
	p->qp_bursts += (uint64_t)ncalls;
	p->lane_calls += (uint64_t)(ncalls - nq);
	ncalls = merge_lanes(p, nq);
	if (ncalls) {
		uint64_t took = now_ns() - now;

		p->call_passes++;
		if (took > p->pass_ns_max)
			p->pass_ns_max = took;
		if (took > 1000000)
			p->passes_over_1ms++;
	}
	for (i = 0; i < ncalls; i++) {
		struct pump_qp *q = &p->qp[p->calls[i].qpn];
		int n = p->calls[i].sent;

		if (n > 0)
			progress = 1;
		if (n > 0 && (uint32_t)n >= q->burst) {
			/* All went: there may be more. */
			q->burst = q->burst * 2 > PUMP_BURST_MAX ?
					   PUMP_BURST_MAX :
					   q->burst * 2;
			q->poll_ns = PUMP_POLL_MIN_NS;
			q->next_ns = 0;
			continue;
		}
		/* The application posted during the call, skipping the
		 * doorbell (pumping): look again at once. */
		if (n > 0 && __atomic_load_n(&q->sq->tail, __ATOMIC_ACQUIRE) !=
				     q->tail0) {
			q->poll_ns = PUMP_POLL_MIN_NS;
			q->next_ns = 0;
			continue;
		}
		wait_acks(q, now, n > 0);
		if (q->next_ns < *next_ns)
			*next_ns = q->next_ns;
	}
	return progress;
}

void pump_scan(struct pump *p)
{
	uint32_t qpn;

	qpset_each(&p->rts, qpn)
	{
		struct pump_qp *q = &p->qp[qpn];

		if (!q->active && q->sq->state != MRC_QPS_ERR &&
		    *(volatile uint32_t *)&q->sq->tail !=
			    *(volatile uint32_t *)&q->sq->done)
			pump_activate(p, qpn);
	}
}
