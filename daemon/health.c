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
 * Probes leave through an AF_PACKET socket on the EV's port, built here
 * byte for byte the way the transmit program builds data packets (same
 * addresses, same UDP source port), so they hash onto the same path.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "csum.h"
#include "gray.h"
#include "health.h"
#include "links.h"
#include "mrcd.h"
#include "mrc/ev_names.h"
#include "mrc/wire.h"

/* The timers of mrcd.conf (in force: they change on SIGHUP), in ns. */
#define MS_NS(x) ((uint64_t)(x)*1000000ull)
#define BACKOFF_MIN_NS(m) MS_NS((m)->cfg.probe_backoff_min_ms)
#define BACKOFF_MAX_NS(m) MS_NS((m)->cfg.probe_backoff_max_ms)
#define HOLD_MIN_NS(m) MS_NS((m)->cfg.flap_hold_min_ms)
#define HOLD_MAX_NS(m) MS_NS((m)->cfg.flap_hold_max_ms)
#define PROBE_TIMEOUT_NS(m) MS_NS((m)->cfg.probe_timeout_ms)

static struct ev_health *ev_of(struct mrcd *m, uint32_t qpn, uint32_t idx)
{
	struct qp_ent *q;

	if (qpn >= MRC_MAX_QP || idx >= MRC_QP_EVS)
		return NULL;
	q = &m->qp[qpn];
	if (!q->owner)
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

/*
 * A QP probe's sequence number, which its answer must return: random, so
 * a host that does not see the probe cannot answer it in the EV's name
 * (docs/security.md). Never 0 (no probe out).
 */
static uint32_t probe_nonce(void)
{
	uint32_t r = 0;

	while (!r)
		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = (uint32_t)now_ns() * 0x9e3779b9u;
	return r;
}

static void start_probing(struct mrcd *m, uint32_t qpn, uint32_t idx,
			  struct ev_health *e, uint64_t now)
{
	if (e->good_ns && now - e->good_ns < HEALTH_FLAP_NS) {
		e->backoff_ns = e->backoff_ns * 2 > BACKOFF_MAX_NS(m) ?
					BACKOFF_MAX_NS(m) :
					e->backoff_ns * 2;
		e->hold_ns = !e->hold_ns		     ? HOLD_MIN_NS(m) :
			     e->hold_ns * 2 > HOLD_MAX_NS(m) ? HOLD_MAX_NS(m) :
							       e->hold_ns * 2;
		m->flaps++;
	} else {
		e->backoff_ns = BACKOFF_MIN_NS(m);
		e->hold_ns = 0;
	}
	e->ok = 0;
	e->seq = 0;
	e->due_ns = now + jittered(e->backoff_ns);
	if (e->probing)
		return;
	if (m->nprobing == HEALTH_MAX_PROBING) {
		log_info("QP %u EV %u: too many EVs to probe; not probed\n",
			 qpn, idx);
		return;
	}
	m->probing[m->nprobing].qpn = qpn;
	m->probing[m->nprobing].idx = idx;
	m->nprobing++;
	e->probing = 1;
}

void health_on_state(struct mrcd *m, const struct mrc_ev_event *v)
{
	struct ev_health *e = ev_of(m, v->qpn, v->ev_idx);
	uint64_t now = now_ns();

	m->ev_state_events++;
	log_debug("QP %u EV %u (port %u, %u): %s -> %s (%s)\n", v->qpn,
		  v->ev_idx, v->port, v->ev, mrc_ev_state_name(v->old_state),
		  mrc_ev_state_name(v->state), mrc_ev_reason_name(v->reason));
	if (!e)
		return;
	{
		struct qp_evlog *l = m->qp[v->qpn].evlog;
		struct mrcd_ev_rec *r = &l->rec[l->count % HEALTH_LOG];

		r->no = ++l->count;
		r->dropped = (uint32_t)m->ev_dropped_unreported;
		m->ev_dropped_unreported = 0;
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
		uint32_t med = m->qp[v->qpn].rtt_median_ns;

		if (!e->gray_limit_ns && med)
			e->gray_limit_ns =
				m->cfg.gray_factor * med + GRAY_MIN_NS;
		start_probing(m, v->qpn, v->ev_idx, e, now);
	} else if (v->state == MRC_EV_GOOD) {
		e->good_ns = now;
		e->gray_limit_ns = 0;
	}
	/* DENIED: nothing to probe; the probe list drops it on its turn. */
}

static int probe_send(struct mrcd *m, uint32_t qpn, uint32_t idx, uint32_t seq);

void health_on_probe(struct mrcd *m, const struct mrc_ev_event *v)
{
	struct ev_health *e = ev_of(m, v->qpn, v->ev_idx);
	uint64_t now;
	int err;

	m->probe_answers++;
	if (!e || !e->seq || e->seq != v->seq)
		return; /* late, or an operator's probe */
	e->seq = 0;
	if (e->state != MRC_EV_ASSUMED_BAD)
		return;
	now = now_ns();
	if (v->port < MRC_MAX_PORTS && !links_port_live(&m->links, v->port)) {
		/* Answers, but its port is disabled: it stays out. */
		e->ok = 0;
		e->due_ns = now + jittered(BACKOFF_MAX_NS(m));
		return;
	}
	if (e->gray_limit_ns && v->rtt_ns > e->gray_limit_ns) {
		/* Answered, but still far slower than its siblings. */
		e->ok = 0;
		e->backoff_ns = e->backoff_ns * 2 > BACKOFF_MAX_NS(m) ?
					BACKOFF_MAX_NS(m) :
					e->backoff_ns * 2;
		e->due_ns = now + jittered(e->backoff_ns);
		return;
	}
	if (!e->ok++)
		e->first_ok_ns = now;
	if (e->ok < m->cfg.probe_answers) {
		/* The next one at once: a path that answers is back fast. */
		e->seq = probe_nonce();
		e->deadline_ns = now + PROBE_TIMEOUT_NS(m);
		if (probe_send(m, v->qpn, v->ev_idx, e->seq))
			e->seq = 0;
		return;
	}
	if (now - e->first_ok_ns < e->hold_ns) {
		/* Flapping: keep it answering for the hold time. */
		e->due_ns = now + e->hold_ns / 8;
		return;
	}
	err = dev_ev_cmd(&m->dev, MRC_DP_EV_GOOD, v->qpn, v->ev_idx,
			 MRC_EV_R_PROBES);
	if (err)
		log_info("QP %u EV %u: back to GOOD failed: %s\n", v->qpn,
			 v->ev_idx, strerror(-err));
	/* The GOOD event that follows updates the mirror. */
}

void health_on_dropped(struct mrcd *m, uint64_t n)
{
	m->ev_dropped_unreported += n; /* told with the next event logged */
}

/*
 * One probe frame out of port p to addr (the peer's address on that
 * plane): UDP source port sport, for STEV on IPv6 fl in the flow label,
 * to QP dqpn (MRC_PROBE_QPN: the device), ev_idx and seq echoed back.
 */
int health_probe_frame(struct mrcd *m, uint32_t p, const uint8_t addr[16],
		       uint16_t sport, uint16_t fl, uint32_t dqpn,
		       uint8_t ev_idx, uint32_t seq, uint8_t tos)
{
	uint8_t f[14 + 40 + 8 + MRC_PROBE_LEN] = {};
	struct ethhdr *eth = (void *)f;
	struct mrc_port port;
	struct mrc_bth *bth;
	struct mrc_pext *px;
	struct udphdr *udp;
	uint32_t l3, len;
	uint64_t sum, ts;
	uint16_t ulen;

	if (p >= (uint32_t)m->nports || m->probe_fd[p] < 0 ||
	    bpf_map_lookup_elem(dev_map_fd(&m->dev, DEV_MAP_PORT), &p, &port))
		return -ENODEV;
	memcpy(eth->h_dest, port.dmac, 6);
	memcpy(eth->h_source, port.smac, 6);
	l3 = port.v6 ? 40 : 20;
	ulen = (uint16_t)(sizeof(*udp) + MRC_PROBE_LEN);
	len = 14 + l3 + ulen;
	udp = (void *)(f + 14 + l3);
	if (port.v6) {
		struct ipv6hdr *ip6 = (void *)(f + 14);

		eth->h_proto = htons(ETH_P_IPV6);
		*(uint32_t *)ip6 = htonl(6u << 28 | (uint32_t)tos << 20 | fl);
		ip6->payload_len = htons(ulen);
		ip6->nexthdr = IPPROTO_UDP;
		ip6->hop_limit = 64;
		memcpy(&ip6->saddr, port.saddr, 16);
		memcpy(&ip6->daddr, addr, 16);
		sum = mrc_csum_add(0, &ip6->saddr, 32);
	} else {
		struct iphdr *ip = (void *)(f + 14);

		eth->h_proto = htons(ETH_P_IP);
		ip->version = 4;
		ip->ihl = 5;
		ip->tos = tos;
		ip->tot_len = htons((uint16_t)(20 + ulen));
		ip->frag_off = htons(0x4000);
		ip->ttl = 64;
		ip->protocol = IPPROTO_UDP;
		memcpy(&ip->saddr, port.saddr, 4);
		memcpy(&ip->daddr, addr, 4);
		ip->check = htons(mrc_csum(ip, 20));
		sum = mrc_csum_add(0, &ip->saddr, 8);
	}
	udp->source = htons(sport);
	udp->dest = htons(MRC_UDP_PORT);
	udp->len = htons(ulen);
	bth = (void *)(udp + 1);
	bth->opcode = MRC_OP_PROBE;
	bth->pkey = htons(MRC_PKEY_DEFAULT);
	bth->dqpn = htonl(dqpn & MRC_BTH_QPN_MASK);
	px = (void *)(bth + 1);
	px->version = MRC_WIRE_VERSION;
	px->ev = htons(sport);
	px->ev_idx = ev_idx;
	px->seq = htonl(seq);
	ts = now_ns(); /* CLOCK_MONOTONIC, as bpf_ktime_get_ns() */
	px->tx_ts_hi = htonl((uint32_t)(ts >> 32));
	px->tx_ts_lo = htonl((uint32_t)ts);
	{
		uint16_t proto_len[2] = { htons(IPPROTO_UDP), htons(ulen) };
		uint16_t c;

		sum = mrc_csum_add(sum, proto_len, sizeof(proto_len));
		sum = mrc_csum_add(sum, udp, ulen);
		c = mrc_csum_fold(sum);
		udp->check = htons(c ? c : 0xffff);
	}
	if (send(m->probe_fd[p], f, len, 0) != (ssize_t)len)
		return -errno;
	m->probes_sent++;
	return 0;
}

/*
 * A probe for EV idx of QP qpn, as the transmit program would address a
 * data packet on that EV: the EV's port, its next hop, our address there,
 * the peer's on that plane, the EV as UDP source port (and flow label).
 */
static int probe_send(struct mrcd *m, uint32_t qpn, uint32_t idx, uint32_t seq)
{
	struct mrc_qp_view qt;
	uint32_t p;

	if (dev_qp_view(&m->dev, qpn, &qt) || idx >= qt.nev)
		return -ENOENT;
	p = qt.ev_port[idx];
	if (p >= MRC_MAX_PORTS)
		return -ENODEV;
	return health_probe_frame(m, p, qt.peer_addr[p], qt.ev[idx],
				  qt.ev_fl[idx], qt.peer_qpn, (uint8_t)idx, seq,
				  0);
}

void health_tick(struct mrcd *m)
{
	uint64_t now = now_ns();
	int i;

	for (i = 0; i < m->nprobing; i++) {
		uint32_t qpn = m->probing[i].qpn, idx = m->probing[i].idx;
		struct ev_health *e = m->qp[qpn].owner && m->qp[qpn].ev ?
					      &m->qp[qpn].ev[idx] :
					      NULL;

		if (!e || e->state != MRC_EV_ASSUMED_BAD) {
			if (e)
				e->probing = 0;
			m->probing[i--] = m->probing[--m->nprobing];
			continue;
		}
		if (e->seq && now >= e->deadline_ns) {
			/* Lost: start over, later. */
			e->seq = 0;
			e->ok = 0;
			e->backoff_ns = e->backoff_ns * 2 > BACKOFF_MAX_NS(m) ?
						BACKOFF_MAX_NS(m) :
						e->backoff_ns * 2;
			e->due_ns = now + jittered(e->backoff_ns);
			m->probes_lost++;
		}
		if (!e->seq && now >= e->due_ns) {
			e->seq = probe_nonce();
			e->deadline_ns = now + PROBE_TIMEOUT_NS(m);
			if (probe_send(m, qpn, idx, e->seq)) {
				e->seq = 0;
				e->due_ns = now + jittered(e->backoff_ns);
			}
		}
	}
}

void health_gray(struct mrcd *m)
{
	struct gray_ev g[MRC_QP_EVS];
	uint32_t qpn, i, med, loss_med;
	uint64_t gray, lossy;

	if (!m->ev_stats)
		return;
	for (qpn = 0; qpn < MRC_MAX_QP; qpn++) {
		struct qp_ent *q = &m->qp[qpn];

		if (!q->owner || q->state != MRC_QPS_RTS || !q->nev ||
		    !ev_of(m, qpn, 0))
			continue;
		for (i = 0; i < q->nev && i < MRC_QP_EVS; i++) {
			const struct mrc_ev_stats *st =
				&m->ev_stats[qpn * MRC_QP_EVS + i];
			struct ev_health *e = &q->ev[i];
			uint64_t n = st->rtt_samples;

			g[i].srtt_ns = st->rtt_srtt_ns;
			g[i].samples = (uint32_t)(n - e->prev_samples);
			g[i].sent = (uint32_t)(st->sent - e->prev_sent);
			g[i].lost = (uint32_t)(st->lost - e->prev_lost);
			g[i].in_use = !e->state || e->state == MRC_EV_GOOD;
			e->prev_samples = n;
			e->prev_sent = st->sent;
			e->prev_lost = st->lost;
		}
		gray = gray_find(g, q->nev, m->cfg.gray_factor, &med);
		if (med)
			q->rtt_median_ns = med;
		/* Lossy: one look is evidence enough (gray.h's minimums). */
		lossy = lossy_find(g, q->nev, &loss_med);
		for (i = 0; i < q->nev && i < MRC_QP_EVS; i++) {
			if (!(lossy & (1ull << i)))
				continue;
			log_debug(
				"QP %u EV %u: lost %u of %u packets, its siblings' median %u per mille\n",
				qpn, i, g[i].lost, g[i].sent, loss_med);
			dev_ev_cmd(&m->dev, MRC_DP_EV_BAD, qpn, i,
				   MRC_EV_R_LOSSY);
			gray &= ~(1ull << i);
		}
		for (i = 0; i < q->nev && i < MRC_QP_EVS; i++) {
			if (!(gray & (1ull << i))) {
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
			dev_ev_cmd(&m->dev, MRC_DP_EV_BAD, qpn, i,
				   MRC_EV_R_GRAY);
		}
	}
}

void health_port_live(struct mrcd *m, int p, int live)
{
	struct mrc_qp_view qt;
	uint64_t now = now_ns();
	uint32_t qpn, i;
	int n = 0;

	for (qpn = 0; qpn < MRC_MAX_QP; qpn++) {
		struct qp_ent *q = &m->qp[qpn];

		if (!q->owner || q->state != MRC_QPS_RTS ||
		    dev_qp_view(&m->dev, qpn, &qt))
			continue;
		for (i = 0; i < qt.nev && i < MRC_QP_EVS; i++) {
			if (qt.ev_port[i] != (uint32_t)p)
				continue;
			if (!live) {
				if (!dev_ev_cmd(&m->dev, MRC_DP_EV_BAD, qpn, i,
						MRC_EV_R_PORT_DOWN))
					n++;
			} else if (q->ev &&
				   q->ev[i].state == MRC_EV_ASSUMED_BAD) {
				/* Back: probe now, not after the backoff the
				 * dead port ran up. */
				q->ev[i].backoff_ns = BACKOFF_MIN_NS(m);
				q->ev[i].due_ns = now;
				q->ev[i].deadline_ns = now;
				n++;
			}
		}
	}
	log_debug("port %d: %d EVs %s\n", p, n,
		  live ? "to probe" : "out of use");
}

void health_adopt_qp(struct mrcd *m, uint32_t qpn)
{
	uint64_t now = now_ns();
	struct mrc_qp_view qt;
	struct ev_health *e;
	uint32_t i;

	if (dev_qp_view(&m->dev, qpn, &qt))
		return;
	for (i = 0; i < qt.nev && i < MRC_QP_EVS; i++) {
		if (qt.ev_state[i] != MRC_EV_ASSUMED_BAD)
			continue;
		e = ev_of(m, qpn, i);
		if (!e)
			return;
		e->state = MRC_EV_ASSUMED_BAD;
		start_probing(m, qpn, i, e, now);
	}
}

void health_forget(struct mrcd *m, uint32_t qpn)
{
	int i;

	for (i = 0; i < m->nprobing; i++)
		if (m->probing[i].qpn == qpn)
			m->probing[i--] = m->probing[--m->nprobing];
	free(m->qp[qpn].ev);
	free(m->qp[qpn].evlog);
	m->qp[qpn].ev = NULL;
	m->qp[qpn].evlog = NULL;
}

int health_query(struct mrcd *m, uint32_t qpn, uint32_t after,
		 struct mrcd_qp_health *h)
{
	struct qp_evlog *l = m->qp[qpn].evlog;
	struct mrc_qp_view qt;
	uint32_t i, n, first;
	int err;

	memset(h, 0, sizeof(*h));
	err = dev_qp_view(&m->dev, qpn, &qt);
	if (err)
		return -err;
	h->nev = qt.nev;
	h->ev_use = qt.ev_use;
	h->ev_denied = qt.ev_denied;
	memcpy(h->state, qt.ev_state, sizeof(h->state));
	for (i = 0; i < qt.nev && i < MRC_QP_EVS && m->ev_stats; i++) {
		const struct mrc_ev_stats *st =
			&m->ev_stats[qpn * MRC_QP_EVS + i];

		h->sent += st->sent;
		h->retx += st->retx;
		h->lost += st->lost;
	}
	if (!l)
		return 0;
	h->last_no = l->count;
	/* The oldest still logged after 'after', at most MRCD_HEALTH_EVENTS. */
	first = after + 1;
	if (l->count >= HEALTH_LOG && first <= l->count - HEALTH_LOG)
		first = l->count - HEALTH_LOG + 1;
	for (n = 0; first <= l->count && n < MRCD_HEALTH_EVENTS; first++, n++)
		h->events[n] = l->rec[(first - 1) % HEALTH_LOG];
	h->nevents = n;
	return 0;
}

int health_init(struct mrcd *m)
{
	int i;

	for (i = 0; i < MRC_MAX_PORTS; i++)
		m->probe_fd[i] = -1;
	/* Device probes number consecutive runs (mrc_probe_arm) from a
	 * random start, for the same reason as probe_nonce(). */
	m->probe_seq = probe_nonce();
	for (i = 0; i < m->nports; i++) {
		struct sockaddr_ll sll = {
			.sll_family = AF_PACKET,
			.sll_protocol = 0, /* send only */
			.sll_ifindex = (int)if_nametoindex(m->port[i].ifname),
		};

		m->probe_fd[i] = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
		if (m->probe_fd[i] < 0 ||
		    bind(m->probe_fd[i], (struct sockaddr *)&sll,
			 sizeof(sll))) {
			log_err("port %s: probe socket: %s\n",
				m->port[i].ifname, strerror(errno));
			return -errno;
		}
	}
	m->ev_stats = mmap(NULL,
			   (size_t)MRC_MAX_QP * MRC_QP_EVS *
				   sizeof(struct mrc_ev_stats),
			   PROT_READ, MAP_SHARED,
			   dev_map_fd(&m->dev, DEV_MAP_EV_STATS), 0);
	if (m->ev_stats == MAP_FAILED)
		m->ev_stats = NULL; /* counters read as 0 */
	/* mrcd's own maps (never handed out): wakeups and probe arming. */
	m->probe_arm = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
			    dev_map_fd(&m->dev, DEV_MAP_PROBE_ARM), 0);
	if (m->probe_arm == MAP_FAILED) {
		log_err("mapping mrc_probe_arm: %s\n", strerror(errno));
		m->probe_arm = NULL;
		return -EIO;
	}
	return 0;
}

void health_close(struct mrcd *m)
{
	int i;

	for (i = 0; i < MRC_MAX_PORTS; i++)
		if (m->probe_fd[i] >= 0) {
			close(m->probe_fd[i]);
			m->probe_fd[i] = -1;
		}
	for (i = 0; i < MRC_MAX_QP; i++) {
		free(m->qp[i].ev);
		free(m->qp[i].evlog);
		m->qp[i].ev = NULL;
		m->qp[i].evlog = NULL;
	}
	if (m->ev_stats)
		munmap(m->ev_stats, (size_t)MRC_MAX_QP * MRC_QP_EVS *
					    sizeof(struct mrc_ev_stats));
	m->ev_stats = NULL;
	if (m->probe_arm)
		munmap(m->probe_arm, 4096);
	m->probe_arm = NULL;
}
