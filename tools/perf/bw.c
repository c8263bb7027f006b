// SPDX-License-Identifier: GPL-2.0
/*
 * The client's bw and rate rows (client.h): every QP keeps its window of
 * WRITEs full until the time or the iterations are up.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>

#include "client.h"
#include "perf.h"
#include "timeline.h"

static bool writes_covered(const struct perf_dev *d, uint64_t slots)
{
	unsigned int i;

	for (i = 0; i < d->nqps; i++)
		if (d->qps[i].posted < slots)
			return false;
	return true;
}

static bool writes_done(const struct perf_dev *d)
{
	unsigned int i;

	for (i = 0; i < d->nqps; i++)
		if (d->qps[i].completed < d->qps[i].posted ||
		    d->qps[i].signaled < d->qps[i].posted)
			return false;
	return true;
}

/*
 * One round over every QP: fill its window, or post its signaled tail.
 * Returns the WRs posted, or -errno.
 */
static int post_round(struct perf_dev *d, const struct perf_row *r,
		      bool stopping)
{
	unsigned int i, room;
	int err, posted = 0;

	for (i = 0; i < d->nqps; i++) {
		struct perf_qp *q = &d->qps[i];

		room = qp_room(q);
		if (!room)
			continue;
		if (stopping) {
			if (q->signaled < q->posted)
				err = qp_post_writes(d, q, r, 1, 0, true);
			else
				continue;
		} else {
			if (q->target - q->posted < room)
				room = (unsigned int)(q->target - q->posted);
			if (!room)
				continue;
			err = qp_post_writes(d, q, r, room, 0, false);
		}
		if (err)
			return err;
		posted++;
	}
	return posted;
}

static bool writes_should_stop(const struct perf_client *c,
			       const struct perf_row *r, uint64_t now,
			       uint64_t deadline)
{
	const struct perf_dev *d = &c->dev;
	uint64_t posted = 0;
	unsigned int i;

	if (g_stop || d->send_errors)
		return true;
	if (now >= deadline + PERF_DRAIN_TIMEOUT_MS * 1000000ull)
		return true; /* --verify could not cover the region in time */
	if (c->o->iters) {
		for (i = 0; i < d->nqps; i++)
			posted += d->qps[i].posted >= d->qps[i].target;
		return posted == d->nqps;
	}
	return (now >= deadline || g_time_up) &&
	       (!c->o->verify || writes_covered(d, r->slots));
}

static void writes_targets(struct perf_dev *d, const struct perf_opts *o,
			   uint64_t slots)
{
	uint64_t share = o->iters / d->nqps, extra = o->iters % d->nqps;
	unsigned int i;

	if (!o->iters)
		return;
	for (i = 0; i < d->nqps; i++) {
		d->qps[i].target = share + (i < extra);
		if (o->verify && d->qps[i].target < slots)
			d->qps[i].target = slots;
	}
}

/* The bw and rate rows: WRITEs (or WRITE_IMMs) at full depth on every QP. */
int client_writes(struct perf_client *c, const struct perf_row *r,
		  struct row_result *res)
{
	uint64_t limit_ns = c->params.limit_ms * 1000000ull;
	uint64_t t0 = now_ns(), cpu0 = cpu_ns(), t_last = t0, stop_ns = 0;
	uint64_t deadline = t0 + limit_ns;
	struct perf_dev *d = &c->dev;
	unsigned int window = d->depth, i, empty = 0;
	bool stopping = false;
	int err = 0, n, posted = 0;

	/* WRITE_IMMs need a receive WR each at the peer; leave it slack. */
	if (r->imm && window > d->qps[0].peer.rq_depth / 2)
		window = (unsigned int)(d->qps[0].peer.rq_depth / 2);
	row_reset_qps(d, window ? window : 1);
	writes_targets(d, c->o, r->slots);
	d->wr_bytes = r->size_bytes;
	if (d->tl)
		tl_start(d->tl, t0, d->qps[0].qp);
	for (;;) {
		uint64_t now = now_ns();

		if (d->tl)
			tl_tick(d->tl, now);

		if (!stopping && writes_should_stop(c, r, now, deadline)) {
			stopping = true;
			stop_ns = now;
		}
		if (!d->send_errors) {
			posted = post_round(d, r, stopping);
			if (posted < 0) {
				err = posted;
				break;
			}
		}
		n = poll_send(d);
		if (n < 0) {
			err = n;
			break;
		}
		if (n > 0)
			t_last = now_ns();
		else if (!posted)
			idle(d, &empty);
		if (stopping && writes_done(d))
			break;
		if (stopping &&
		    now > stop_ns + PERF_DRAIN_TIMEOUT_MS * 1000000ull) {
			pr_err("WRITEs still incomplete %d ms after the end",
			       PERF_DRAIN_TIMEOUT_MS);
			err = -ETIMEDOUT;
			break;
		}
	}
	for (i = 0; i < d->nqps; i++) {
		res->posted += d->qps[i].posted;
		res->msgs += d->qps[i].ok;
		if (d->qps[i].posted < d->qps[i].target && c->o->iters)
			res->stopped = true;
	}
	res->stopped |= g_stop;
	res->elapsed_ns = t_last - t0;
	if (d->tl)
		tl_finish(d->tl, now_ns());
	res->client_cpu_ns = cpu_ns() - cpu0;
	return err;
}
