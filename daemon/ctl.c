// SPDX-License-Identifier: GPL-2.0
/*
 * mrcd's side of the controller API (mrc_ctl.h, docs/controller.md):
 * profiles (profiles.c keeps the books, this file applies them to QPs),
 * port admin state, EV event queues for subscribers, the controller's
 * probes, and the lists mrcctl shows. Only a peer that held CAP_NET_ADMIN
 * when it connected gets past ctl_request's first check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clients.h"
#include "clock.h"
#include "ctl.h"
#include "dev.h"
#include "health.h"
#include "links.h"
#include "log.h"
#include "objects.h"
#include "plane.h"
#include "peer.h"
#include "probe.h"
#include "mrc/msg.h"

static struct mrc_qp_view qv; /* the last QP read_qp() read */

static int read_qp(struct ctl *ctl, uint32_t qpn)
{
	return dev_qp_view(ctl->below.dev, qpn, &qv);
}

static uint32_t port_mask(const struct ctl *ctl)
{
	return ctl->below.nports >= 31 ? ~1u :
					 ((1u << ctl->below.nports) - 1) << 1;
}

/* ---- profiles and QPs ------------------------------------------------ */

/* The run-time state of entry idx of EV profile id over its QPs. */
static uint32_t runtime_state(void *ctx, uint64_t id, int idx)
{
	struct ctl *ctl = ctx;
	uint32_t qpn;

	for (qpn = 0; qpn < MRC_MAX_QP; qpn++) {
		struct qp_ent *q = &ctl->below.obj->qp[qpn];

		if (q->owner && q->prof_held && q->ev_prof == id &&
		    q->state == MRC_QPS_RTS && idx >= 0 &&
		    health_ev_state(ctl->below.health, qpn, (uint32_t)idx) ==
			    MRC_EV_ASSUMED_BAD)
			return MRC_CTL_EV_ASSUMED_BAD;
	}
	return MRC_CTL_EV_GOOD;
}

int ctl_init(struct ctl *ctl, const struct ctl_deps *deps)
{
	void *p;
	int i;

	ctl->below = *deps;
	prof_init(&ctl->prof, port_mask(ctl));
	/* Cannot fail on mrc's own parameters; if it did, no default. */
	if (prof_cc_offer_default(&ctl->prof))
		log_warn(
			"CC profile %d: the default NSCC profile not offered\n",
			PROF_CC_DEFAULT);
	ctl->prof.ev_runtime_state = runtime_state;
	ctl->prof.ctx = ctl;
	for (i = 0; i < CTL_MAX_SUBS; i++)
		ctl->sub[i].efd = -1;
	/* Device probes number consecutive runs (mrc_probe_arm) from a
	 * random start, for the same reason as QP probes. */
	ctl->probe_seq = probe_nonce();
	/* mrcd's own map (never handed out): which answers the receive
	 * program takes for device probes. */
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
		 dev_map_fd(ctl->below.dev, DEV_MAP_PROBE_ARM), 0);
	if (p == MAP_FAILED) {
		log_err("mapping mrc_probe_arm: %s\n", strerror(errno));
		return -EIO;
	}
	ctl->probe_arm = p;
	return 0;
}

int ctl_qp_hold(struct ctl *ctl, uint32_t qpn, uint64_t ev_id, uint64_t cc_id)
{
	struct qp_ent *q = &ctl->below.obj->qp[qpn];
	int err;

	if (q->prof_held && q->ev_prof == ev_id && q->cc_prof == cc_id)
		return 0;
	err = prof_qp_use(&ctl->prof, ev_id, cc_id);
	if (err)
		return -err; /* a positive errno, as the caller replies */
	ctl_qp_release(ctl, qpn);
	q->prof_held = 1;
	q->ev_prof = ev_id;
	q->cc_prof = cc_id;
	return 0;
}

void ctl_qp_release(struct ctl *ctl, uint32_t qpn)
{
	struct qp_ent *q = &ctl->below.obj->qp[qpn];

	if (!q->prof_held)
		return;
	prof_qp_release(&ctl->prof, q->ev_prof, q->cc_prof);
	q->prof_held = 0;
}

/*
 * An SRV6 profile's EVs are routes (docs/wire.md, "SRv6"): bytes 0-15
 * the outer destination, 16-31 the SRH segment (zero: none). The planes
 * must be IPv6 (an SRv6 packet carries an IPv6 one). The UDP source port
 * of EV i is MRC_SRV6_SPORT(i): it tells the peer which of its own
 * routes to answer by.
 */
static int ctl_qp_srv6(struct ctl *ctl, uint32_t qpn, const struct prof_ev *pe,
		       struct dev_qp_attr *a)
{
	static const uint8_t zero[16];
	uint32_t i;

	if (!ctl->below.v6)
		return EINVAL;
	a->srv6 = 1;
	for (i = 0; i < pe->count && i < MRC_QP_EVS; i++) {
		const uint8_t *v = pe->ev[i].sval;

		if (!memcmp(v, zero, 16) || v[0] == 0xff)
			return EINVAL; /* no destination, or multicast */
		if (!pe->ev[i].port || pe->ev[i].port > ctl->below.nports)
			return EINVAL;
		memcpy(a->route[i].dst, v, 16);
		memcpy(a->route[i].seg, v + 16, 16);
		a->ev[i] = (uint16_t)MRC_SRV6_SPORT(i);
		a->ev_fl[i] = 0;
		a->ev_port[i] = (uint8_t)(pe->ev[i].port - 1);
	}
	return ctl_qp_cc(ctl, qpn, a);
}

int ctl_qp_evs(struct ctl *ctl, uint32_t qpn, struct dev_qp_attr *a)
{
	const struct qp_ent *q = &ctl->below.obj->qp[qpn];
	const struct prof_ev *pe;
	const struct prof_fmt *pf;
	uint32_t i;

	if (!q->prof_held)
		return EINVAL; /* never went through INIT */
	if (q->ev_prof == 0)
		return ctl_qp_cc(ctl, qpn, a); /* mrcd's own EVs (ev_base) */
	pe = &ctl->prof.ev[q->ev_prof];
	pf = &ctl->prof.fmt[pe->fmt_id];
	if (pe->state != MRC_CTL_PROFILE_ONLINE || !pe->count)
		return EINVAL;
	a->evs_given = 1;
	a->nev = pe->count;
	a->ev_min_active = pe->min_active ? pe->min_active : 1;
	if (pf->mode == MRC_CTL_EV_FMT_MODE_SRV6)
		return ctl_qp_srv6(ctl, qpn, pe, a);
	for (i = 0; i < pe->count && i < MRC_QP_EVS; i++) {
		uint32_t v = pe->ev[i].val;

		/* Only STEV has the flow label, and only IPv6 carries it. */
		if ((v >> 16) &&
		    (pf->mode != MRC_CTL_EV_FMT_MODE_STEV || !ctl->below.v6))
			return EINVAL;
		if (!pe->ev[i].port || pe->ev[i].port > ctl->below.nports)
			return EINVAL;
		a->ev[i] = (uint16_t)v;
		a->ev_fl[i] = (uint16_t)(v >> 16);
		a->ev_port[i] = (uint8_t)(pe->ev[i].port - 1);
	}
	/* Its CC profile: NSCC's window, or none (profile 0, or NULL). */
	return ctl_qp_cc(ctl, qpn, a);
}

int ctl_qp_cc(struct ctl *ctl, uint32_t qpn, struct dev_qp_attr *a)
{
	const struct qp_ent *q = &ctl->below.obj->qp[qpn];
	const struct prof_cc *pc;

	a->cc_slot = 0;
	if (!q->prof_held || !q->cc_prof || q->cc_prof >= PROF_MAX_CC)
		return 0;
	pc = &ctl->prof.cc[q->cc_prof];
	if (pc->state != MRC_CTL_PROFILE_ONLINE)
		return EINVAL;
	if (pc->algo != PROF_CC_NSCC)
		return 0;
	a->cc_slot = (uint32_t)q->cc_prof;
	a->cc = pc->params;
	return 0;
}

void ctl_qp_started(struct ctl *ctl, uint32_t qpn)
{
	const struct qp_ent *q = &ctl->below.obj->qp[qpn];
	const struct prof_ev *pe = q->ev_prof ? &ctl->prof.ev[q->ev_prof] :
						NULL;
	uint32_t i;

	if (read_qp(ctl, qpn))
		return;
	for (i = 0; i < qv.nev && i < MRC_QP_EVS; i++) {
		uint32_t p = qv.ev_port[i];

		if (pe && pe->ev[i].denied)
			dev_ev_cmd(ctl->below.dev, MRC_DP_EV_DENY, qpn, i,
				   MRC_EV_R_DENY);
		else if (p < MRC_MAX_PORTS &&
			 !links_port_live(ctl->below.links, (int)p))
			dev_ev_cmd(ctl->below.dev, MRC_DP_EV_BAD, qpn, i,
				   MRC_EV_R_PORT_DOWN);
	}
}

/*
 * Denials of EV profile id reach every QP using it: entry i of the profile
 * is EV i of each such QP.
 */
static void apply_denials(struct ctl *ctl, uint64_t id)
{
	const struct prof_ev *pe = &ctl->prof.ev[id];
	uint32_t qpn, i;

	for (qpn = 0; qpn < MRC_MAX_QP; qpn++) {
		const struct qp_ent *q = &ctl->below.obj->qp[qpn];

		if (!q->owner || !q->prof_held || q->ev_prof != id ||
		    q->state != MRC_QPS_RTS || read_qp(ctl, qpn))
			continue;
		for (i = 0; i < qv.nev && i < MRC_QP_EVS; i++) {
			int denied = evm_has(&qv.ev_denied, i);

			if (pe->ev[i].denied && !denied)
				dev_ev_cmd(ctl->below.dev, MRC_DP_EV_DENY, qpn,
					   i, MRC_EV_R_DENY);
			else if (!pe->ev[i].denied && denied)
				dev_ev_cmd(ctl->below.dev, MRC_DP_EV_ALLOW, qpn,
					   i, MRC_EV_R_ALLOW);
		}
	}
}

static int do_fmt(struct ctl *ctl, const struct mrcd_ctl_fmt *r,
		  struct mrcd_ctl_fmt *o)
{
	int err;

	*o = *r;
	o->attr.ev_fmt_op.fmt_fields = o->fields;
	if (o->attr.ev_fmt_op.fmt_field_count > MRC_EV_FMT_MAX_FIELDS &&
	    r->h.modify)
		return E2BIG;
	if (o->attr.ev_fmt_op.fmt_field_count > MRC_EV_FMT_MAX_FIELDS)
		o->attr.ev_fmt_op.fmt_field_count = MRC_EV_FMT_MAX_FIELDS;
	err = r->h.modify ?
		      prof_fmt_modify(&ctl->prof, r->h.id, &o->attr,
				      r->h.mask) :
		      prof_fmt_query(&ctl->prof, r->h.id, &o->attr, r->h.mask);
	o->attr.ev_fmt_op.fmt_fields = NULL;
	return -err;
}

static int do_evp(struct ctl *ctl, const struct mrcd_ctl_evp *r,
		  struct mrcd_ctl_evp *o)
{
	int err, n = r->attr.ev_op.entry_count;

	*o = *r;
	o->attr.ev_op.entries = o->entries;
	o->attr.ev_fields_op.fields = o->fields;
	/* The library sends at most what fits and asks again for more. */
	if (n > MRCD_CTL_OP_MAX) {
		if (r->h.modify)
			return E2BIG;
		o->attr.ev_op.entry_count = MRCD_CTL_OP_MAX;
	}
	if (o->attr.ev_fields_op.field_count > MRC_EV_MAX_FIELDS) {
		if (r->h.modify)
			return E2BIG;
		o->attr.ev_fields_op.field_count = MRC_EV_MAX_FIELDS;
	}
	err = r->h.modify ?
		      prof_ev_modify(&ctl->prof, r->h.id, &o->attr, r->h.mask) :
		      prof_ev_query(&ctl->prof, r->h.id, &o->attr, r->h.mask);
	o->attr.ev_op.entries = NULL;
	o->attr.ev_fields_op.fields = NULL;
	/* A partly applied EV_OP is applied: denials go out either way. */
	if (r->h.modify && (r->h.mask & MRC_CTL_EV_PROFILE_EV_OP) &&
	    r->h.id < PROF_MAX_EV)
		apply_denials(ctl, r->h.id);
	return -err;
}

/*
 * The data path's copy of CC profile id's parameters (mrc_cc): an ONLINE
 * NSCC profile's, else none. Its QPs read them on every packet.
 */
static int cc_publish(struct ctl *ctl, uint64_t id)
{
	const struct prof_cc *pc;

	if (!id || id >= PROF_MAX_CC || id >= MRC_CC_SLOTS)
		return 0;
	pc = &ctl->prof.cc[id];
	return dev_cc_set(ctl->below.dev, (uint32_t)id,
			  pc->state == MRC_CTL_PROFILE_ONLINE &&
					  pc->algo == PROF_CC_NSCC ?
				  &pc->params :
				  NULL);
}

int ctl_cc_publish_all(struct ctl *ctl)
{
	uint64_t id;
	int err = 0;

	for (id = 1; id < PROF_MAX_CC && id < MRC_CC_SLOTS; id++)
		if (!err)
			err = cc_publish(ctl, id);
	return err;
}

static int do_cc(struct ctl *ctl, const struct mrcd_ctl_cc *r,
		 struct mrcd_ctl_cc *o)
{
	struct mrc_ctl_cc_profile_attr a = r->attr;
	char name[sizeof(r->algorithm)];
	int err;

	*o = *r;
	memcpy(name, r->algorithm, sizeof(name));
	name[sizeof(name) - 1] = 0;
	a.algorithm = r->has_algorithm && name[0] ? name : NULL;
	a.cc_config = &r->nscc;
	if (r->h.modify) {
		err = prof_cc_modify(&ctl->prof, r->h.id, &a, r->h.mask);
		if (!err)
			err = cc_publish(ctl, r->h.id);
		return -err;
	}
	err = prof_cc_query(&ctl->prof, r->h.id, &a, r->h.mask);
	if (err)
		return -err;
	o->attr = a;
	o->attr.algorithm = NULL;
	o->attr.cc_config = NULL;
	memset(o->algorithm, 0, sizeof(o->algorithm));
	o->has_algorithm = 1;
	if (a.algorithm)
		snprintf(o->algorithm, sizeof(o->algorithm), "%s", a.algorithm);
	if (a.cc_config)
		o->nscc = *(const struct mrc_ctl_cc_nscc_cfg *)a.cc_config;
	return 0;
}

static void do_device(struct ctl *ctl, struct mrc_ctl_device_attr *d)
{
	memset(d, 0, sizeof(*d));
	d->mrc_ctl_protocol_version = MRC_CTL_PROTOCOL_VERSION_1;
	d->ev.ev_max_fmt_profiles = PROF_MAX_FMT;
	d->ev.ev_max_profiles = PROF_MAX_EV;
	d->ev.ev_max_count = PROF_EV_TOTAL;
	d->ev.ev_free_count = PROF_EV_TOTAL - prof_ev_used(&ctl->prof);
	d->ev.ev_max_count_profile = PROF_EV_MAX_COUNT;
	d->ev.ev_count_align = 1;
	d->ev.ev_max_width = 32;
	d->ev.ev_fmt_mode_mask = MRC_CTL_EV_FMT_MODE_UDP |
				 MRC_CTL_EV_FMT_MODE_STEV |
				 MRC_CTL_EV_FMT_MODE_SRV6;
	d->ev.ev_mode_mask = MRC_CTL_EV_MODE_AUTO | MRC_CTL_EV_MODE_EXP |
			     MRC_CTL_EV_MODE_GEN;
	d->ev.ev_op_max_entries = PROF_OP_MAX_ENTRIES;
	d->cc.cc_max_profiles = PROF_MAX_CC;
	d->phy_port_mask = port_mask(ctl);
	d->opt_attr = MRC_CTL_OPT_CAP_EV_PROFILE_MODIFY_ONLINE |
		      MRC_CTL_OPT_CAP_EV_EVENT |
		      MRC_CTL_OPT_CAP_EV_EVENT_PRECISE_DROP_CNT |
		      MRC_CTL_OPT_CAP_EP_OP_EV_PROBE;
}

/* ---- ports ------------------------------------------------------------- */

static int do_port(struct ctl *ctl, const struct mrcd_ctl_port *r,
		   struct mrcd_ctl_port *o)
{
	uint64_t p = r->h.id;

	*o = *r;
	if (!p || p > (uint64_t)ctl->below.nports ||
	    (r->h.mask & ~MRC_CTL_PORT_ADMIN_STATE))
		return EINVAL;
	if (!r->h.modify) {
		o->attr.port_admin_state = ctl->below.links->admin[p - 1];
		return 0;
	}
	if (!(r->h.mask & MRC_CTL_PORT_ADMIN_STATE))
		return 0;
	if (r->attr.port_admin_state != MRC_CTL_PORT_ADMIN_ENABLED &&
	    r->attr.port_admin_state != MRC_CTL_PORT_ADMIN_DISABLED)
		return EINVAL;
	links_set_admin(ctl->below.links, (int)p - 1,
			r->attr.port_admin_state == MRC_CTL_PORT_ADMIN_ENABLED);
	return 0;
}

static void do_port_list(struct ctl *ctl, struct mrcd_ctl_ports *o)
{
	uint32_t qpn, i;
	int p;

	memset(o, 0, sizeof(*o));
	o->n = (uint32_t)ctl->below.nports;
	for (p = 0; p < ctl->below.nports; p++) {
		struct mrcx_port_info *pi = &o->port[p];
		struct mrc_port mp;
		uint32_t k = (uint32_t)p;
		int up = 0;

		pi->port = (uint8_t)(p + 1);
		if (ctl->below.peer) {
			pi->ctl_msgs = ctl->below.peer->st.port_msgs[p];
			memcpy(pi->ctl_drop, ctl->below.peer->st.port_drop[p],
			       sizeof(ctl->below.peer->st.port_drop[p]));
		}
		pi->admin = (uint8_t)ctl->below.links->admin[p];
		dev_link_state(ctl->below.port[p].ifname, &pi->mtu_bytes, &up);
		pi->carrier = (uint8_t)up;
		snprintf(pi->ifname, sizeof(pi->ifname), "%s",
			 ctl->below.port[p].ifname);
		if (!dev_port_get(ctl->below.dev, k, &mp)) {
			memcpy(pi->mac, mp.smac, 6);
			plane_gid(mp.saddr, mp.v6, pi->gid);
		}
	}
	for (qpn = 0; qpn < MRC_MAX_QP; qpn++) {
		if (!ctl->below.obj->qp[qpn].owner ||
		    ctl->below.obj->qp[qpn].state != MRC_QPS_RTS ||
		    read_qp(ctl, qpn))
			continue;
		for (i = 0; i < qv.nev && i < MRC_QP_EVS; i++) {
			uint32_t pp = qv.ev_port[i];

			if (pp >= o->n)
				continue;
			if (evm_has(&qv.ev_use, i))
				o->port[pp].nev_in_use++;
			if (qv.ev_state[i] != MRC_EV_GOOD)
				o->port[pp].nev_bad++;
		}
	}
}

/* ---- lists ------------------------------------------------------------- */

/* A QP's counters, summed over its EVs; its smallest round trip. */
static void stats_sum(struct ctl *ctl, uint32_t qpn, struct mrcx_qp_info *qi)
{
	uint32_t i;

	for (i = 0; i < qi->nev && i < MRC_QP_EVS; i++) {
		const struct mrc_ev_stats *s =
			health_ev_stats(ctl->below.health, qpn, i);

		if (!s)
			break;
		qi->sent_pkts += s->sent;
		qi->retx_pkts += s->retx;
		qi->lost_pkts += s->lost;
		qi->trimmed_pkts += s->trimmed;
		qi->ecn_pkts += s->ecn_ce;
		if (s->rtt_min_ns &&
		    (!qi->rtt_min_ns || s->rtt_min_ns < qi->rtt_min_ns))
			qi->rtt_min_ns = s->rtt_min_ns;
	}
}

static void do_qp_list(struct ctl *ctl, const struct mrcd_ctl_list *r,
		       struct mrcd_ctl_qps *o)
{
	uint32_t qpn;
	int p;

	memset(o, 0, sizeof(*o));
	for (qpn = 0; qpn < MRC_MAX_QP; qpn++) {
		const struct qp_ent *q = &ctl->below.obj->qp[qpn];
		struct mrcx_qp_info *qi;
		struct mrc_evmask cooled;

		if (!q->owner)
			continue;
		o->total++;
		if (qpn < r->cursor || o->n == MRCD_LIST_QPS) {
			if (qpn >= r->cursor && !o->cursor)
				o->cursor = qpn;
			continue;
		}
		qi = &o->qp[o->n++];
		qi->qpn = qpn;
		qi->state = q->state;
		qi->owner_pid = q->owner->pid;
		qi->ev_profile_id = q->ev_prof;
		qi->cc_profile_id = q->cc_prof;
		memcpy(qi->peer_gid, q->peer_gid, 16);
		qi->peer_qpn = q->peer_qpn;
		if (q->state != MRC_QPS_RTS || read_qp(ctl, qpn))
			continue;
		qi->state = qv.state;
		qi->window_psns = qv.window;
		qi->inflight_psns = (qv.next_psn - qv.una_psn) &
				    MRC_BTH_PSN_MASK;
		qi->nev = qv.nev;
		qi->nev_in_use = evm_count(&qv.ev_use);
		stats_sum(ctl, qpn, qi);
		qi->cwnd_bytes = qv.cwnd_bytes;
		qi->cc_inflight_bytes = qv.inflight_bytes;
		qi->cc_base_rtt_ns = qv.cc_base_rtt_ns;
		qi->cc_avg_delay_ns = qv.cc_avg_delay_ns;
		qi->path_mtu_bytes = qv.mtu;
		qi->srtt_ns = qv.srtt_ns;
		qi->rtt_hi_ns = qv.rtt_hi_ns;
		evm_and(&cooled, &qv.ev_cool, &qv.ev_use);
		evm_andnot(&cooled, &cooled, &qv.ev_denied);
		qi->nev_cooled = evm_count(&cooled);
		qi->dyn_mpr = peer_qp_dyn(ctl->below.peer, qpn);
		for (p = 0; p < ctl->below.nports; p++)
			if (health_peer_down(ctl->below.health, qpn,
					     (uint32_t)p))
				qi->peer_ports_down |= 1u << p;
	}
}

static void ev_info(struct ctl *ctl, uint32_t qpn, uint32_t i,
		    struct mrcx_ev_info *e, uint64_t now)
{
	const struct qp_ent *q = &ctl->below.obj->qp[qpn];
	uint32_t v = qv.ev[i] | (uint32_t)qv.ev_fl[i] << 16;
	const struct mrc_ev_stats *s;

	memset(e, 0, sizeof(*e));
	e->qpn = qpn;
	e->ev_idx = i;
	e->profile_id = q->ev_prof;
	if (q->ev_prof && q->ev_prof < PROF_MAX_EV)
		v = ctl->prof.ev[q->ev_prof].ev[i].cval;
	memcpy(e->ev.val, &v, sizeof(v));
	e->wire_val = qv.ev[i] | (uint32_t)qv.ev_fl[i] << 16;
	e->ev.port = (uint8_t)(qv.ev_port[i] + 1);
	e->state = qv.ev_state[i];
	e->in_use = (uint32_t)evm_has(&qv.ev_use, i);
	e->cooled = (uint32_t)evm_has(&qv.ev_cool, i);
	e->share_pm = health_ev_share_pm(ctl->below.health, qpn, i);
	s = health_ev_stats(ctl->below.health, qpn, i);
	if (s) {
		e->sent_pkts = s->sent;
		e->acked_pkts = s->acked;
		e->lost_pkts = s->lost;
		e->retx_pkts = s->retx;
		e->trimmed_pkts = s->trimmed;
		e->ecn_pkts = s->ecn_ce;
		e->rtt_min_ns = s->rtt_min_ns;
		e->rtt_avg_ns = s->rtt_srtt_ns;
		e->rtt_max_ns = s->rtt_max_ns;
		if (s->last_ack_ns && now > s->last_ack_ns)
			e->last_ack_age_ns = now - s->last_ack_ns;
	}
}

static int do_ev_list(struct ctl *ctl, const struct mrcd_ctl_list *r,
		      struct mrcd_ctl_evs *o)
{
	uint64_t now = now_ns();
	uint32_t qpn, i, pos;

	memset(o, 0, sizeof(*o));
	if (r->qpn != UINT32_MAX &&
	    (r->qpn >= MRC_MAX_QP || !ctl->below.obj->qp[r->qpn].owner))
		return ENOENT;
	for (qpn = 0; qpn < MRC_MAX_QP; qpn++) {
		if ((r->qpn != UINT32_MAX && qpn != r->qpn) ||
		    !ctl->below.obj->qp[qpn].owner ||
		    ctl->below.obj->qp[qpn].state != MRC_QPS_RTS ||
		    read_qp(ctl, qpn))
			continue;
		for (i = 0; i < qv.nev && i < MRC_QP_EVS; i++) {
			pos = qpn * MRC_QP_EVS + i;
			o->total++;
			if (pos < r->cursor)
				continue;
			if (o->n == MRCD_LIST_EVS) {
				if (!o->cursor)
					o->cursor = pos;
				continue;
			}
			ev_info(ctl, qpn, i, &o->ev[o->n++], now);
		}
	}
	return 0;
}

/* ---- EV event queues --------------------------------------------------- */

static void sub_free(struct ctl_sub *s)
{
	if (s->q)
		munmap(s->q, s->map_len);
	if (s->efd >= 0)
		close(s->efd);
	memset(s, 0, sizeof(*s));
	s->efd = -1;
}

static int do_events(struct ctl *ctl, struct client *c,
		     const struct mrcd_ctl_events *r, struct mrcd_rep *rep,
		     int *fds, int *nfds)
{
	struct ctl_sub *s = NULL;
	uint32_t size = 16;
	int i, fd;

	if (!r->cqe || r->cqe > CTL_EVQ_MAX)
		return EINVAL;
	while (size < r->cqe)
		size <<= 1;
	for (i = 0; i < CTL_MAX_SUBS && !s; i++)
		if (!ctl->sub[i].owner)
			s = &ctl->sub[i];
	if (!s)
		return ENOMEM;
	/* Sealed: the controller can neither shrink nor grow it under us. */
	fd = memfd_create("mrc-ev-events", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return errno;
	s->map_len = sizeof(*s->q) + (size_t)size * sizeof(s->q->rec[0]);
	s->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (s->efd < 0 || ftruncate(fd, (off_t)s->map_len)) {
		int err = errno;

		close(fd);
		sub_free(s);
		return err;
	}
	s->q = mmap(NULL, s->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		    0);
	if (s->q == MAP_FAILED) {
		int err = errno;

		s->q = NULL;
		close(fd);
		sub_free(s);
		return err;
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) {
		int err = errno;

		close(fd);
		sub_free(s);
		return err;
	}
	s->q->size = size; /* for the controller; mrcd keeps s->size */
	s->size = size;
	s->prod = 0;
	s->owner = c;
	fds[0] = fd; /* closed by the caller once sent */
	fds[1] = dup(s->efd);
	if (fds[1] < 0) {
		int err = errno;

		close(fd);
		sub_free(s);
		return err;
	}
	*nfds = 2;
	rep->obj.idx = (uint32_t)(s - ctl->sub);
	return 0;
}

/* Adds rec to every queue whose profile mask selects it. */
static void publish(struct ctl *ctl, struct mrcx_ev_event *rec, int mask)
{
	int i;

	for (i = 0; i < CTL_MAX_SUBS; i++) {
		struct ctl_sub *s = &ctl->sub[i];
		uint64_t prod, cons, one = 1;

		if (!s->owner)
			continue;
		if (!(rec->base.state & (uint32_t)mask))
			continue;
		/* cons is the controller's to write: trusted for nothing but
		 * room (a bogus one only makes the queue look full). */
		prod = s->prod;
		cons = __atomic_load_n(&s->q->cons, __ATOMIC_ACQUIRE);
		if (prod - cons >= s->size) {
			s->pending_drops++; /* no overruns: counted instead */
			continue;
		}
		rec->base.drop_count = s->pending_drops;
		s->q->rec[prod & (s->size - 1)] = *rec;
		s->prod = prod + 1;
		__atomic_store_n(&s->q->prod, s->prod, __ATOMIC_RELEASE);
		s->pending_drops = 0;
		if (write(s->efd, &one, sizeof(one)) < 0 && errno != EAGAIN)
			log_debug("client pid %u: event queue %d: wakeup: %s\n",
				  s->owner->pid, i, strerror(errno));
	}
}

void ctl_ev_event(struct ctl *ctl, const struct mrc_ev_event *v)
{
	const struct qp_ent *q;
	struct mrcx_ev_event rec = {};
	uint32_t val = v->ev;
	int mask = MRC_CTL_EV_GOOD | MRC_CTL_EV_ASSUMED_BAD;

	if (v->qpn >= MRC_MAX_QP)
		return;
	q = &ctl->below.obj->qp[v->qpn];
	_Static_assert(PROF_EV_MAX_COUNT > 255, "ev_idx is a __u8");
	if (q->prof_held && q->ev_prof && q->ev_prof < PROF_MAX_EV) {
		const struct prof_ev *pe = &ctl->prof.ev[q->ev_prof];

		val = pe->ev[v->ev_idx].cval;
		mask = pe->event_mask;
	} else if (q->prof_held && q->ev_prof == 0) {
		mask = ctl->prof.ev[0].event_mask;
	}
	rec.base.profile_id = q->ev_prof;
	memcpy(rec.base.ev.val, &val, sizeof(val));
	rec.base.ev.port = (uint8_t)(v->port + 1);
	rec.base.state = v->state;
	rec.ts_ns = v->ts_ns;
	rec.qpn = v->qpn;
	rec.ev_idx = v->ev_idx;
	rec.old_state = v->old_state;
	rec.reason = v->reason;
	/* Kept in use by ev_min_active: no state changed, no event. */
	if (v->state == v->old_state)
		return;
	publish(ctl, &rec, mask);
}

void ctl_ev_dropped(struct ctl *ctl, uint64_t n)
{
	int i;

	for (i = 0; i < CTL_MAX_SUBS; i++)
		if (ctl->sub[i].owner)
			ctl->sub[i].pending_drops += (uint32_t)n;
}

/* ---- probes ------------------------------------------------------------ */

static int gid_port_addr(struct ctl *ctl, const union ibv_gid *gid, int p,
			 uint8_t addr[16])
{
	uint8_t all[MRC_MAX_PORTS][16];
	int err = plane_peer_addrs(ctl->below.port, ctl->below.nports, gid->raw,
				   all);

	if (err)
		return -err;
	memcpy(addr, all[p], 16);
	return 0;
}

static void probe_reply(struct ctl *ctl, int err)
{
	struct ctl_probe_wait *w = &ctl->probe_wait;
	struct mrcd_rep *rep = calloc(1, sizeof(*rep));

	if (rep) {
		rep->err = err;
		rep->ctl_probe = w->msg;
		rep->ctl_probe.nreq = w->nrsp;
		if (mrc_msg_send(w->owner->conn.fd, rep, sizeof(*rep), NULL,
				 0) < 0)
			log_debug("client pid %u: probe reply: %s\n",
				  w->owner->pid, strerror(errno));
		free(rep);
	}
	w->owner = NULL;
	if (ctl->probe_arm)
		__atomic_store_n(&ctl->probe_arm->seq_hi,
				 __atomic_load_n(&ctl->probe_arm->seq_lo,
						 __ATOMIC_SEQ_CST),
				 __ATOMIC_SEQ_CST);
}

static int do_probe(struct ctl *ctl, struct client *c,
		    const struct mrcd_ctl_probe *r)
{
	struct ctl_probe_wait *w = &ctl->probe_wait;
	uint32_t i;

	if (w->owner)
		return EAGAIN; /* one batch at a time, device-wide */
	if (!r->nreq || r->nreq > MRCD_CTL_PROBE_MAX || !r->timeout_ns)
		return EINVAL;
	if (r->op != MRC_CTL_EP_OP_EV_PROBE &&
	    (r->op != MRC_CTL_EP_OP_PORT_STATUS_UPDATE || !ctl->below.peer ||
	     ctl->below.peer->lfd.fd < 0))
		return r->op == MRC_CTL_EP_OP_PORT_STATUS_UPDATE ? ENOTSUP :
								   EINVAL;
	for (i = 0; i < r->nreq; i++) {
		const struct mrc_ctl_ep_req *q = &r->req[i];
		uint32_t v, j;
		uint8_t addr[16];

		memcpy(&v, q->req_ev.val, sizeof(v));
		if (!q->req_ev.port || q->req_ev.port > ctl->below.nports ||
		    (q->ev_fmt_mode != MRC_CTL_EV_FMT_MODE_UDP &&
		     q->ev_fmt_mode != MRC_CTL_EV_FMT_MODE_STEV))
			return EINVAL;
		if ((v >> 16) && (q->ev_fmt_mode != MRC_CTL_EV_FMT_MODE_STEV ||
				  !ctl->below.v6))
			return EINVAL;
		if (gid_port_addr(ctl, &q->dgid, q->req_ev.port - 1, addr))
			return EINVAL;
		for (j = 0; j < i; j++)
			if (r->req[j].req_id == q->req_id)
				return EINVAL; /* ids must be unique */
	}
	memset(w, 0, sizeof(*w));
	w->msg = *r;
	w->nreq = r->nreq;
	w->first_seq = ctl->probe_seq + 1;
	ctl->probe_seq += r->nreq;
	/* The receive program takes answers to these alone (a port status
	 * update's answer comes to peer.c instead). */
	if (ctl->probe_arm && r->op == MRC_CTL_EP_OP_EV_PROBE) {
		__atomic_store_n(&ctl->probe_arm->seq_lo, w->first_seq,
				 __ATOMIC_SEQ_CST);
		__atomic_store_n(&ctl->probe_arm->seq_hi,
				 w->first_seq + r->nreq, __ATOMIC_SEQ_CST);
	}
	for (i = 0; i < r->nreq; i++) {
		const struct mrc_ctl_ep_req *q = &r->req[i];
		uint32_t v;
		uint8_t addr[16];
		int err;

		memcpy(&v, q->req_ev.val, sizeof(v));
		gid_port_addr(ctl, &q->dgid, q->req_ev.port - 1, addr);
		w->sent_ns[i] = now_ns();
		if (r->op == MRC_CTL_EP_OP_PORT_STATUS_UPDATE) {
			err = peer_psu_send(
				ctl->below.peer, q->req_ev.port - 1, addr,
				(uint16_t)v, (uint16_t)(v >> 16),
				q->op.port_status_update.port_status,
				w->first_seq + i, (uint8_t)(r->tc << 2));
			if (err)
				return -err == ENODEV ? EIO : -err;
			continue;
		}
		err = probe_frame(ctl->below.probe, q->req_ev.port - 1, addr,
				  (uint16_t)v, (uint16_t)(v >> 16),
				  MRC_PROBE_QPN, (uint8_t)i, w->first_seq + i,
				  (uint8_t)(r->tc << 2), NULL);
		if (err)
			return -err == ENODEV ? EIO : -err;
	}
	w->owner = c;
	w->deadline_ns = now_ns() + r->timeout_ns;
	return -1; /* answered when complete */
}

void ctl_probe_answer(struct ctl *ctl, const struct mrc_ev_event *v)
{
	struct ctl_probe_wait *w = &ctl->probe_wait;
	uint32_t i = v->seq - w->first_seq;
	struct mrc_ctl_ep_rsp *rsp;
	int p;

	if (!w->owner || i >= w->nreq || w->answered[i])
		return; /* late, or a batch that is gone */
	w->answered[i] = 1;
	rsp = &w->msg.rsp[w->nrsp++];
	rsp->req_id = w->msg.req[i].req_id;
	rsp->rtt = v->rtt_ns;
	rsp->adj_svc_time = 1;
	rsp->port = 0;
	for (p = 0; p < ctl->below.nports; p++)
		if ((uint32_t)ctl->below.dev->port[p].ifindex == v->ifindex)
			rsp->port = (uint8_t)(p + 1);
	if (w->nrsp == w->nreq)
		probe_reply(ctl, 0);
}

int ctl_psu_answer(struct ctl *ctl, uint32_t seq, int port)
{
	struct ctl_probe_wait *w = &ctl->probe_wait;
	uint32_t i = seq - w->first_seq;
	struct mrc_ctl_ep_rsp *rsp;

	if (!w->owner || w->msg.op != MRC_CTL_EP_OP_PORT_STATUS_UPDATE ||
	    i >= w->nreq || w->answered[i])
		return -ENOENT; /* late, or a batch that is gone */
	w->answered[i] = 1;
	rsp = &w->msg.rsp[w->nrsp++];
	rsp->req_id = w->msg.req[i].req_id;
	rsp->rtt = (unsigned int)(now_ns() - w->sent_ns[i]);
	rsp->adj_svc_time = 0; /* mrcd's time is in it */
	rsp->port = (uint8_t)port;
	if (w->nrsp == w->nreq)
		probe_reply(ctl, 0);
	return 0;
}

void ctl_tick(struct ctl *ctl)
{
	if (ctl->probe_wait.owner && now_ns() >= ctl->probe_wait.deadline_ns)
		probe_reply(ctl, ETIMEDOUT);
}

/* ---- requests ------------------------------------------------------------ */

int ctl_request(struct ctl *ctl, struct client *c, const struct mrcd_req *req,
		struct mrcd_rep *rep, int *fds, int *nfds)
{
	if (!c->net_admin)
		return EPERM;
	switch (req->op) {
	case MRCD_CTL_DEVICE:
		do_device(ctl, &rep->ctl_device);
		return 0;
	case MRCD_CTL_PORT:
		return do_port(ctl, &req->ctl_port, &rep->ctl_port);
	case MRCD_CTL_FMT:
		return do_fmt(ctl, &req->ctl_fmt, &rep->ctl_fmt);
	case MRCD_CTL_EV_PROFILE:
		return do_evp(ctl, &req->ctl_evp, &rep->ctl_evp);
	case MRCD_CTL_CC:
		return do_cc(ctl, &req->ctl_cc, &rep->ctl_cc);
	case MRCD_CTL_EVENTS:
		return do_events(ctl, c, &req->ctl_events, rep, fds, nfds);
	case MRCD_CTL_EVENTS_CLOSE:
		if (req->obj.idx >= CTL_MAX_SUBS ||
		    ctl->sub[req->obj.idx].owner != c)
			return ENOENT;
		sub_free(&ctl->sub[req->obj.idx]);
		return 0;
	case MRCD_CTL_PROBE:
		return do_probe(ctl, c, &req->ctl_probe);
	case MRCD_CTL_PORT_LIST:
		do_port_list(ctl, &rep->ctl_ports);
		return 0;
	case MRCD_CTL_QP_LIST:
		do_qp_list(ctl, &req->ctl_list, &rep->ctl_qps);
		return 0;
	case MRCD_CTL_EV_LIST:
		return do_ev_list(ctl, &req->ctl_list, &rep->ctl_evs);
	}
	return EOPNOTSUPP;
}

void ctl_drop_client(struct ctl *ctl, struct client *c)
{
	int i;

	for (i = 0; i < CTL_MAX_SUBS; i++)
		if (ctl->sub[i].owner == c)
			sub_free(&ctl->sub[i]);
	if (ctl->probe_wait.owner == c) {
		ctl->probe_wait.owner = NULL;
		if (ctl->probe_arm) /* nothing to take answers for */
			ctl->probe_arm->seq_hi = ctl->probe_arm->seq_lo;
	}
}

void ctl_close(struct ctl *ctl)
{
	int i;

	for (i = 0; i < CTL_MAX_SUBS; i++)
		if (ctl->sub[i].owner)
			sub_free(&ctl->sub[i]);
	if (ctl->probe_arm)
		munmap(ctl->probe_arm, 4096);
	ctl->probe_arm = NULL;
}

int ctl_client_busy(const struct ctl *ctl, const struct client *c)
{
	int i;

	for (i = 0; i < CTL_MAX_SUBS; i++)
		if (ctl->sub[i].owner == c)
			return 1;
	return ctl->probe_wait.owner == c;
}
