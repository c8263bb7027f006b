// SPDX-License-Identifier: GPL-2.0
/*
 * mrcd's side of path health: EV events in, probes out.
 *
 *   data path: loss on EV e  -> ASSUMED_BAD, event ----.
 *   mrcd:      event -> probe e after its backoff      |
 *              answer -> next probe at once; HEALTH_PROBE_OK answers in a
 *                        row -> mrc_xdp_ctl GOOD, event
 *              no answer in HEALTH_PROBE_TIMEOUT_NS -> count restarts,
 *                        backoff doubles (to HEALTH_BACKOFF_MAX_NS), with
 *                        +-25 % jitter so EVs do not probe in lockstep
 *
 * Probes are probe.c's frames, on the EV's port and with its source port,
 * so they take the EV's path. What health knows of a QP (whether it
 * exists, whether RTS, its EVs) serve.c tells it (health_qp_*).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "clock.h"
#include "config.h"
#include "dev.h"
#include "gray.h"
#include "health.h"
#include "links.h"
#include "log.h"
#include "probe.h"
#include "mrc/ev_names.h"

/* The timers of mrcd.conf (in force: they change on SIGHUP), in ns. */
#define MS_NS(x) ((uint64_t)(x)*1000000ull)
#define BACKOFF_MIN_NS(h) MS_NS((h)->cfg->probe_backoff_min_ms)
#define BACKOFF_MAX_NS(h) MS_NS((h)->cfg->probe_backoff_max_ms)
#define HOLD_MIN_NS(h) MS_NS((h)->cfg->flap_hold_min_ms)
#define HOLD_MAX_NS(h) MS_NS((h)->cfg->flap_hold_max_ms)
#define PROBE_TIMEOUT_NS(h) MS_NS((h)->cfg->probe_timeout_ms)

static struct ev_health *ev_of(struct health *h, uint32_t qpn, uint32_t idx)
{
	struct health_qp *q;

	if (qpn >= MRC_MAX_QP || idx >= MRC_QP_EVS)
		return NULL;
	q = &h->qp[qpn];
	if (!q->open)
		return NULL;
	if (!q->ev) {
		q->ev = calloc(MRC_QP_EVS, sizeof(*q->ev));
		q->evlog = calloc(1, sizeof(*q->evlog));
		if (!q->ev || !q->evlog) {
			free(q->ev);
			free(q->evlog);
			q->ev = NULL;
			q->evlog = NULL;
			return NULL;
		}
	}
	return &q->ev[idx];
}

/* The backoff with +-25 % jitter. */
static uint64_t jittered(uint64_t ns)
{
	uint32_t r = 0;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
		r = (uint32_t)ns;
	return ns - ns / 4 + (uint64_t)r % (ns / 2 + 1);
}

/* A probe failed (or a flap): the next waits twice as long, at most
 * probe-backoff-max-ms. */
static void back_off(const struct health *h, struct ev_health *e)
{
	e->backoff_ns = e->backoff_ns * 2 > BACKOFF_MAX_NS(h) ?
				BACKOFF_MAX_NS(h) :
				e->backoff_ns * 2;
}

static void start_probing(struct health *h, uint32_t qpn, uint32_t idx,
			  struct ev_health *e, uint64_t now)
{
	if (e->good_ns && now - e->good_ns < HEALTH_FLAP_NS) {
		back_off(h, e);
		e->hold_ns = !e->hold_ns		     ? HOLD_MIN_NS(h) :
			     e->hold_ns * 2 > HOLD_MAX_NS(h) ? HOLD_MAX_NS(h) :
							       e->hold_ns * 2;
		h->flaps++;
	} else {
		e->backoff_ns = BACKOFF_MIN_NS(h);
		e->hold_ns = 0;
	}
	e->ok = 0;
	e->seq = 0;
	e->due_ns = now + jittered(e->backoff_ns);
	if (e->probing)
		return;
	if (h->nprobing == HEALTH_MAX_PROBING) {
		log_info("QP %u EV %u: too many EVs to probe; not probed\n",
			 qpn, idx);
		return;
	}
	h->probing[h->nprobing].qpn = qpn;
	h->probing[h->nprobing].idx = idx;
	h->nprobing++;
	e->probing = 1;
}

void health_on_state(struct health *h, const struct mrc_ev_event *v)
{
	struct ev_health *e = ev_of(h, v->qpn, v->ev_idx);
	uint64_t now = now_ns();

	h->ev_state_events++;
	if (v->reason == MRC_EV_R_SILENT)
		log_debug(
			"QP %u EV %u (port %u, %u): %s -> %s (%s: silent %u us, a packet sent %u us later delivered, margin %u us)\n",
			v->qpn, v->ev_idx, v->port, v->ev,
			mrc_ev_state_name(v->old_state),
			mrc_ev_state_name(v->state),
			mrc_ev_reason_name(v->reason), v->silent_ns / 1000,
			v->lead_ns / 1000, v->margin_ns / 1000);
	else
		log_debug("QP %u EV %u (port %u, %u): %s -> %s (%s)\n", v->qpn,
			  v->ev_idx, v->port, v->ev,
			  mrc_ev_state_name(v->old_state),
			  mrc_ev_state_name(v->state),
			  mrc_ev_reason_name(v->reason));
	if (!e)
		return;
	{
		struct qp_evlog *l = h->qp[v->qpn].evlog;
		struct mrcd_ev_rec *r = &l->rec[l->count % HEALTH_LOG];

		r->no = ++l->count;
		r->dropped = (uint32_t)h->ev_dropped_unreported;
		h->ev_dropped_unreported = 0;
		r->ts_ns = v->ts_ns;
		r->ev_idx = v->ev_idx;
		r->state = v->state;
		r->old_state = v->old_state;
		r->reason = v->reason;
	}
	e->state = v->state;
	if (v->state == MRC_EV_ASSUMED_BAD) {
		/* However it failed, a probe answer far slower than the
		 * siblings' is no answer (gray blames set a tighter one). */
		uint32_t med = h->qp[v->qpn].rtt_median_ns;

		if (!e->gray_limit_ns && med)
			e->gray_limit_ns =
				h->cfg->gray_factor * med + GRAY_MIN_NS;
		start_probing(h, v->qpn, v->ev_idx, e, now);
	} else if (v->state == MRC_EV_GOOD) {
		e->good_ns = now;
		e->gray_limit_ns = 0;
	}
	/* DENIED: nothing to probe; the probe list drops it on its turn. */
}

static int probe_send(struct health *h, uint32_t qpn, uint32_t idx,
		      uint32_t seq);

void health_on_probe(struct health *h, const struct mrc_ev_event *v)
{
	struct ev_health *e = ev_of(h, v->qpn, v->ev_idx);
	uint64_t now;
	int err;

	h->probe_answers++;
	if (!e || !e->seq || e->seq != v->seq)
		return; /* late, or an operator's probe */
	e->seq = 0;
	if (e->state != MRC_EV_ASSUMED_BAD)
		return;
	now = now_ns();
	if (v->port < MRC_MAX_PORTS && (!links_port_live(h->links, v->port) ||
					health_peer_down(h, v->qpn, v->port))) {
		/* Answers, but its port is disabled, or the peer's port
		 * there is down as the peer said (PSU): it stays out. */
		e->ok = 0;
		e->due_ns = now + jittered(BACKOFF_MAX_NS(h));
		return;
	}
	if (e->gray_limit_ns && v->rtt_ns > e->gray_limit_ns) {
		/* Answered, but still far slower than its siblings. */
		e->ok = 0;
		back_off(h, e);
		e->due_ns = now + jittered(e->backoff_ns);
		return;
	}
	if (!e->ok++)
		e->first_ok_ns = now;
	if (e->ok < h->cfg->probe_answers) {
		/* The next one at once: a path that answers is back fast. */
		e->seq = probe_nonce();
		e->deadline_ns = now + PROBE_TIMEOUT_NS(h);
		if (probe_send(h, v->qpn, v->ev_idx, e->seq))
			e->seq = 0;
		return;
	}
	if (now - e->first_ok_ns < e->hold_ns) {
		/* Flapping: keep it answering for the hold time. */
		e->due_ns = now + e->hold_ns / 8;
		return;
	}
	err = dev_ev_cmd(h->dev, MRC_DP_EV_GOOD, v->qpn, v->ev_idx,
			 MRC_EV_R_PROBES);
	if (err)
		log_info("QP %u EV %u: back to GOOD failed: %s\n", v->qpn,
			 v->ev_idx, strerror(-err));
	/* The GOOD event that follows updates the mirror. */
}

void health_on_dropped(struct health *h, uint64_t n)
{
	h->ev_dropped_unreported += n; /* told with the next event logged */
}

/*
 * A probe for EV idx of QP qpn, as the transmit program would address a
 * data packet on that EV: the EV's port, its next hop, our address there,
 * the peer's on that plane, the EV as UDP source port (and flow label).
 */
static int probe_send(struct health *h, uint32_t qpn, uint32_t idx,
		      uint32_t seq)
{
	struct mrc_srv6_route rt;
	struct mrc_qp_view qt;
	uint32_t p;

	if (dev_qp_view(h->dev, qpn, &qt) || idx >= qt.nev)
		return -ENOENT;
	p = qt.ev_port[idx];
	if (p >= MRC_MAX_PORTS)
		return -ENODEV;
	/* An SRv6 EV's probe takes its route (docs/wire.md). */
	return probe_frame(h->probe, p, qt.peer_addr[p], qt.ev[idx],
			   qt.ev_fl[idx], qt.peer_qpn, (uint8_t)idx, seq, 0,
			   dev_qp_route(h->dev, qpn, (int)idx, p, &rt) ? NULL :
									 &rt);
}

void health_tick(struct health *h)
{
	uint64_t now = now_ns();
	int i;

	for (i = 0; i < h->nprobing; i++) {
		uint32_t qpn = h->probing[i].qpn, idx = h->probing[i].idx;
		struct ev_health *e = h->qp[qpn].open && h->qp[qpn].ev ?
					      &h->qp[qpn].ev[idx] :
					      NULL;

		if (!e || e->state != MRC_EV_ASSUMED_BAD) {
			if (e)
				e->probing = 0;
			h->probing[i--] = h->probing[--h->nprobing];
			continue;
		}
		if (e->seq && now >= e->deadline_ns) {
			/* Lost: start over, later. */
			e->seq = 0;
			e->ok = 0;
			back_off(h, e);
			e->due_ns = now + jittered(e->backoff_ns);
			h->probes_lost++;
		}
		if (!e->seq && now >= e->due_ns) {
			e->seq = probe_nonce();
			e->deadline_ns = now + PROBE_TIMEOUT_NS(h);
			if (probe_send(h, qpn, idx, e->seq)) {
				e->seq = 0;
				e->due_ns = now + jittered(e->backoff_ns);
			}
		}
	}
}

/*
 * A QP's EV counters: its window of mrc_ev_stats (MRC_QP_EVS of them,
 * 20 KiB, five pages), mapped at the first read and kept until the QP
 * goes. Not the whole map at start: it is 84 MB, and mapping it (the
 * kernel inserts every page at mmap) cost a restarted mrcd 4.6 ms before
 * it served. NULL if it cannot be mapped (the counters read as 0).
 */
#define EV_STATS_QP_BYTES ((size_t)MRC_QP_EVS * sizeof(struct mrc_ev_stats))
_Static_assert(EV_STATS_QP_BYTES % 4096 == 0, "a QP's counters: whole pages");

static const struct mrc_ev_stats *qp_stats(struct health *h, uint32_t qpn)
{
	struct health_qp *q = &h->qp[qpn];
	int fd;
	void *p;

	if (q->stats)
		return q->stats;
	fd = dev_map_fd(h->dev, DEV_MAP_EV_STATS);
	if (fd < 0 || EV_STATS_QP_BYTES % (size_t)sysconf(_SC_PAGESIZE))
		return NULL;
	p = mmap(NULL, EV_STATS_QP_BYTES, PROT_READ, MAP_SHARED, fd,
		 (off_t)(qpn * EV_STATS_QP_BYTES));
	if (p == MAP_FAILED)
		return NULL;
	q->stats = p;
	return q->stats;
}

void health_gray(struct health *h)
{
	struct gray_ev g[MRC_QP_EVS];
	uint32_t qpn, i, med, loss_med;
	struct mrc_evmask gray, lossy;
	const struct mrc_ev_stats *qs;

	for (qpn = 0; qpn < MRC_MAX_QP; qpn++) {
		struct health_qp *q = &h->qp[qpn];

		if (!q->open || !q->rts || !q->nev || !ev_of(h, qpn, 0))
			continue;
		qs = qp_stats(h, qpn);
		if (!qs)
			continue;
		q->look_sent = 0;
		for (i = 0; i < q->nev && i < MRC_QP_EVS; i++) {
			const struct mrc_ev_stats *st = &qs[i];
			struct ev_health *e = &q->ev[i];
			uint64_t n = st->rtt_samples;
			/* A full queue's drops are no evidence against the
			 * path (docs/health.md, "Lossy paths"). */
			uint64_t lost = st->lost - st->lost_queue;

			g[i].srtt_ns = st->rtt_srtt_ns;
			g[i].samples = (uint32_t)(n - e->prev_samples);
			g[i].sent = (uint32_t)(st->sent - e->prev_sent);
			g[i].lost = (uint32_t)(lost - e->prev_lost);
			g[i].in_use = !e->state || e->state == MRC_EV_GOOD;
			e->prev_samples = n;
			e->prev_sent = st->sent;
			e->prev_lost = lost;
			e->look_sent = g[i].sent;
			q->look_sent += g[i].sent;
		}
		gray_find(g, q->nev, h->cfg->gray_factor, &med, &gray);
		if (med)
			q->rtt_median_ns = med;
		/* Lossy: one look is evidence enough (gray.h's minimums). */
		lossy_find(g, q->nev, &loss_med, &lossy);
		for (i = 0; i < q->nev && i < MRC_QP_EVS; i++) {
			if (!evm_has(&lossy, i))
				continue;
			log_debug(
				"QP %u EV %u: lost %u of %u packets, its siblings' median %u per mille\n",
				qpn, i, g[i].lost, g[i].sent, loss_med);
			dev_ev_cmd(h->dev, MRC_DP_EV_BAD, qpn, i,
				   MRC_EV_R_LOSSY);
			evm_clear(&gray, i);
		}
		for (i = 0; i < q->nev && i < MRC_QP_EVS; i++) {
			if (!evm_has(&gray, i)) {
				q->ev[i].gray_looks = 0;
				continue;
			}
			if (++q->ev[i].gray_looks < 2)
				continue;
			q->ev[i].gray_looks = 0;
			log_debug(
				"QP %u EV %u: RTT %u us, its siblings' median %u us\n",
				qpn, i, g[i].srtt_ns / 1000, med / 1000);
			q->ev[i].gray_limit_ns = 2 * med;
			dev_ev_cmd(h->dev, MRC_DP_EV_BAD, qpn, i,
				   MRC_EV_R_GRAY);
		}
	}
}

void health_port_live(struct health *h, int p, int live)
{
	struct mrc_qp_view qt;
	uint64_t now = now_ns();
	uint32_t qpn, i;
	int n = 0;

	for (qpn = 0; qpn < MRC_MAX_QP; qpn++) {
		struct health_qp *q = &h->qp[qpn];

		if (!q->open || !q->rts || dev_qp_view(h->dev, qpn, &qt))
			continue;
		for (i = 0; i < qt.nev && i < MRC_QP_EVS; i++) {
			if (qt.ev_port[i] != (uint32_t)p)
				continue;
			if (!live) {
				if (!dev_ev_cmd(h->dev, MRC_DP_EV_BAD, qpn, i,
						MRC_EV_R_PORT_DOWN))
					n++;
			} else if (q->ev &&
				   q->ev[i].state == MRC_EV_ASSUMED_BAD) {
				/* Back: probe now, not after the backoff the
				 * dead port ran up, nor after a probe sent
				 * while it was down times out. */
				q->ev[i].backoff_ns = BACKOFF_MIN_NS(h);
				q->ev[i].due_ns = now;
				q->ev[i].seq = 0;
				q->ev[i].ok = 0;
				n++;
			}
		}
	}
	log_debug("plane %d: %d EVs %s\n", p, n,
		  live ? "to probe" : "out of use");
}

int health_peer_down(const struct health *h, uint32_t qpn, uint32_t p)
{
	const struct health_qp *q;

	if (qpn >= MRC_MAX_QP || p >= 32)
		return 0;
	q = &h->qp[qpn];
	return (q->peer_down >> p & 1) && now_ns() < q->peer_down_until_ns;
}

int health_peer_ports(struct health *h, uint32_t qpn, uint32_t down,
		      uint64_t until_ns)
{
	struct mrc_qp_view qt;
	struct health_qp *q;
	uint64_t now = now_ns();
	uint32_t i, was, p;
	int n = 0;

	if (qpn >= MRC_MAX_QP)
		return -ENOENT;
	q = &h->qp[qpn];
	if (!q->open || !q->rts || dev_qp_view(h->dev, qpn, &qt))
		return -ENOENT;
	was = now < q->peer_down_until_ns ? q->peer_down : 0;
	q->peer_down = down;
	q->peer_down_until_ns = down ? until_ns : 0;
	for (i = 0; i < qt.nev && i < MRC_QP_EVS; i++) {
		p = qt.ev_port[i];
		if (p >= 32 || !((was ^ down) >> p & 1)) {
			/* Unchanged; but one still said down that a probe
			 * brought back in between must leave again. */
			if (p < 32 && (down >> p & 1) &&
			    qt.ev_state[i] == MRC_EV_GOOD &&
			    !dev_ev_cmd(h->dev, MRC_DP_EV_BAD, qpn, i,
					MRC_EV_R_PEER_PORT_DOWN))
				n++;
			continue;
		}
		if (down >> p & 1) {
			if (!dev_ev_cmd(h->dev, MRC_DP_EV_BAD, qpn, i,
					MRC_EV_R_PEER_PORT_DOWN))
				n++;
		} else if (q->ev && q->ev[i].state == MRC_EV_ASSUMED_BAD) {
			/* Up again: probed now, as a port that comes back. */
			q->ev[i].backoff_ns = BACKOFF_MIN_NS(h);
			q->ev[i].due_ns = now;
			q->ev[i].seq = 0;
			q->ev[i].ok = 0;
			n++;
		}
	}
	log_debug("QP %u: the peer's ports down 0x%x (were 0x%x): %d EVs\n",
		  qpn, down, was, n);
	return n;
}

void health_adopt_qp(struct health *h, uint32_t qpn)
{
	uint64_t now = now_ns();
	struct mrc_qp_view qt;
	struct ev_health *e;
	uint32_t i;

	if (dev_qp_view(h->dev, qpn, &qt))
		return;
	for (i = 0; i < qt.nev && i < MRC_QP_EVS; i++) {
		if (qt.ev_state[i] != MRC_EV_ASSUMED_BAD)
			continue;
		e = ev_of(h, qpn, i);
		if (!e)
			return;
		e->state = MRC_EV_ASSUMED_BAD;
		start_probing(h, qpn, i, e, now);
	}
}

static void forget(struct health *h, uint32_t qpn)
{
	int i;

	for (i = 0; i < h->nprobing; i++)
		if (h->probing[i].qpn == qpn)
			h->probing[i--] = h->probing[--h->nprobing];
	free(h->qp[qpn].ev);
	free(h->qp[qpn].evlog);
	h->qp[qpn].ev = NULL;
	h->qp[qpn].evlog = NULL;
	if (h->qp[qpn].stats)
		munmap((void *)h->qp[qpn].stats, EV_STATS_QP_BYTES);
	h->qp[qpn].stats = NULL;
}

void health_qp_open(struct health *h, uint32_t qpn)
{
	forget(h, qpn);
	memset(&h->qp[qpn], 0, sizeof(h->qp[qpn]));
	h->qp[qpn].open = 1;
}

void health_qp_state(struct health *h, uint32_t qpn, uint32_t state,
		     uint32_t nev)
{
	struct health_qp *q = &h->qp[qpn];

	if (state != q->state &&
	    (state == MRC_QPS_RTS || state == MRC_QPS_RESET))
		forget(h, qpn); /* every EV starts GOOD */
	if (state == MRC_QPS_RESET)
		q->peer_down = 0; /* a new connection: the peer says again */
	q->state = state;
	q->rts = state == MRC_QPS_RTS;
	q->nev = nev;
}

void health_qp_close(struct health *h, uint32_t qpn)
{
	forget(h, qpn);
	memset(&h->qp[qpn], 0, sizeof(h->qp[qpn]));
}

uint8_t health_ev_state(const struct health *h, uint32_t qpn, uint32_t idx)
{
	const struct health_qp *q;

	if (qpn >= MRC_MAX_QP || idx >= MRC_QP_EVS)
		return MRC_EV_GOOD;
	q = &h->qp[qpn];
	return q->open && q->ev ? q->ev[idx].state : MRC_EV_GOOD;
}

const struct mrc_ev_stats *health_ev_stats(struct health *h, uint32_t qpn,
					   uint32_t idx)
{
	const struct mrc_ev_stats *qs;

	if (qpn >= MRC_MAX_QP || idx >= MRC_QP_EVS)
		return NULL;
	qs = qp_stats(h, qpn);
	return qs ? &qs[idx] : NULL;
}

uint32_t health_ev_share_pm(const struct health *h, uint32_t qpn, uint32_t idx)
{
	const struct health_qp *q;

	if (qpn >= MRC_MAX_QP || idx >= MRC_QP_EVS)
		return 0;
	q = &h->qp[qpn];
	if (!q->ev || !q->look_sent)
		return 0;
	return (uint32_t)(q->ev[idx].look_sent * 1000 / q->look_sent);
}

int health_query(struct health *h, uint32_t qpn, uint32_t after,
		 struct mrcd_qp_health *o)
{
	struct qp_evlog *l = h->qp[qpn].evlog;
	struct mrc_qp_view qt;
	uint32_t i, n, first;
	int err;

	memset(o, 0, sizeof(*o));
	err = dev_qp_view(h->dev, qpn, &qt);
	if (err)
		return -err;
	o->nev = qt.nev;
	_Static_assert(sizeof(o->ev_use) == sizeof(qt.ev_use) &&
			       sizeof(o->ev_denied) == sizeof(qt.ev_denied),
		       "mrcd_qp_health: the view's masks");
	memcpy(o->ev_use, qt.ev_use.w, sizeof(o->ev_use));
	memcpy(o->ev_denied, qt.ev_denied.w, sizeof(o->ev_denied));
	memcpy(o->state, qt.ev_state, sizeof(o->state));
	for (i = 0; i < qt.nev && i < MRC_QP_EVS; i++) {
		const struct mrc_ev_stats *st = health_ev_stats(h, qpn, i);

		if (!st)
			break;
		o->sent += st->sent;
		o->retx += st->retx;
		o->lost += st->lost;
	}
	if (!l)
		return 0;
	o->last_no = l->count;
	/* The oldest still logged after 'after', at most MRCD_HEALTH_EVENTS. */
	first = after + 1;
	if (l->count >= HEALTH_LOG && first <= l->count - HEALTH_LOG)
		first = l->count - HEALTH_LOG + 1;
	for (n = 0; first <= l->count && n < MRCD_HEALTH_EVENTS; first++, n++)
		o->events[n] = l->rec[(first - 1) % HEALTH_LOG];
	o->nevents = n;
	return 0;
}

int health_init(struct health *h, struct dev *dev, struct probe *probe,
		const struct links *links, const struct mrcd_config *cfg)
{
	h->dev = dev;
	h->probe = probe;
	h->links = links;
	h->cfg = cfg;
	return 0;
}

void health_close(struct health *h)
{
	int i;

	h->nprobing = 0;
	for (i = 0; i < MRC_MAX_QP; i++)
		forget(h, (uint32_t)i);
}
