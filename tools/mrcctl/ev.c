// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl ev: every EV of every QP with its state and counters
 * (mrcx_ctl_ev_list) and, for an SRv6 profile's, the path it names;
 * denying or allowing an EV of a profile (EV op
 * MODIFY_EV_STATE). 'ev expand' is in ev_expand.c, 'ev trace' in
 * trace.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "mrcctl.h"

int ev_list(struct mrc_context *ctx, uint32_t qpn, struct mrcx_ev_info **evs,
	    int *n)
{
	struct mrcx_ev_info *e = NULL;
	int max = 256, tries, rc;

	/* Ask again with room for what it said; QPs come and go. */
	for (tries = 0; tries < 4; tries++) {
		e = xrealloc(e, (size_t)max, sizeof(*e));
		errno = 0;
		rc = mrcx_ctl_ev_list(ctx, qpn, e, max, n);
		if (rc) {
			free(e);
			if (qpn == UINT32_MAX)
				return err_api(api_errno(rc),
					       "mrcx_ctl_ev_list", "ev");
			return err_api(api_errno(rc), "mrcx_ctl_ev_list",
				       "qp %u", qpn);
		}
		if (*n >= 0 && *n <= max) {
			*evs = e;
			return 0;
		}
		max = *n;
	}
	free(e);
	return err_runtime("mrcx_ctl_ev_list: the EV count keeps changing");
}

static void ev_row(struct tbl *t, const struct mrcx_ev_info *e)
{
	tbl_row(t);
	tbl_u64(t, "qpn", "QPN", e->qpn);
	tbl_u64(t, "idx", "IDX", e->ev_idx);
	tbl_u64(t, "profile_id", "PROFILE", e->profile_id);
	tbl_hex(t, "ev", "EV", ev_val(&e->ev));
	tbl_hex(t, "wire_ev", "WIRE_EV", e->wire_val);
	tbl_u64(t, "port", "PORT", e->ev.port);
	tbl_str(t, "state", "STATE", ev_state_str(e->state));
	tbl_bool(t, "in_use", "IN_USE", e->in_use);
	tbl_bool(t, "cooled", "COOLED", e->cooled);
	tbl_fixed(t, "share_pct", "SHARE(%)", e->share_pm / 10.0, 1);
	tbl_u64(t, "sent_pkts", "SENT(pkts)", e->sent_pkts);
	tbl_u64(t, "acked_pkts", "ACKED(pkts)", e->acked_pkts);
	tbl_u64(t, "lost_pkts", "LOST(pkts)", e->lost_pkts);
	tbl_u64(t, "retx_pkts", "RETX(pkts)", e->retx_pkts);
	tbl_u64(t, "trimmed_pkts", "TRIMMED(pkts)", e->trimmed_pkts);
	tbl_u64(t, "ecn_pkts", "ECN(pkts)", e->ecn_pkts);
	put_us(t, "rtt_min_us", "RTT_MIN(us)", e->rtt_min_ns);
	put_us(t, "rtt_avg_us", "RTT_AVG(us)", e->rtt_avg_ns);
	put_us(t, "rtt_max_us", "RTT_MAX(us)", e->rtt_max_ns);
	if (e->last_ack_age_ns)
		tbl_fixed(t, "last_ack_age_ms", "LAST_ACK_AGE(ms)",
			  (double)e->last_ack_age_ns / 1e6, 3);
	else
		tbl_none(t, "last_ack_age_ms", "LAST_ACK_AGE(ms)");
}

enum { S_PROFILE, S_QP, S_PORT, S_STATE };
static const char *const show_kws[] = { "profile", "qp", "port", "state" };

struct ev_filter {
	unsigned int seen; /* S_* bits */
	uint64_t profile;
	uint32_t qpn;
	uint8_t port;
	uint32_t state;
};

static int filter_args(struct args *a, struct ev_filter *flt)
{
	int rc = 0, kw, w;

	while (!rc && args_left(a)) {
		rc = arg_keyword(a, show_kws, ARRAY_SIZE(show_kws), &kw);
		if (!rc)
			rc = arg_once(&flt->seen, kw, show_kws);
		if (rc)
			break;
		switch (kw) {
		case S_PROFILE:
			rc = arg_u64(a, "profile", 0, UINT64_MAX,
				     &flt->profile);
			break;
		case S_QP:
			rc = arg_u32(a, "qp", 0, UINT32_MAX - 1, &flt->qpn);
			break;
		case S_PORT:
			rc = arg_port(a, "port", &flt->port);
			break;
		case S_STATE:
			rc = arg_choice(a, "state", ev_state_words,
					ARRAY_SIZE(ev_state_words), &w);
			flt->state = rc ? 0 : (uint32_t)ev_state_values[w];
			break;
		}
	}
	return rc;
}

static int wanted(const struct ev_filter *flt, const struct mrcx_ev_info *e)
{
	return (!(flt->seen & 1u << S_PROFILE) ||
		e->profile_id == flt->profile) &&
	       (!(flt->seen & 1u << S_PORT) || e->ev.port == flt->port) &&
	       (!(flt->seen & 1u << S_STATE) || e->state == flt->state);
}

/* The expanders of the EV profiles the listed EVs come from, by id. */
struct ev_profiles {
	uint64_t *id;
	struct ev_expander *x;
	int n;
};

/* Profile id's expander, loaded on first use; NULL for AUTO profile 0. */
static int ev_profile_of(struct mrc_context *ctx, struct ev_profiles *p,
			 uint64_t id, const struct ev_expander **x)
{
	int i, rc;

	*x = NULL;
	if (!id)
		return 0; /* mrcd's own EVs: UDP source ports */
	for (i = 0; i < p->n; i++)
		if (p->id[i] == id) {
			*x = &p->x[i];
			return 0;
		}
	p->id = xrealloc(p->id, (size_t)p->n + 1, sizeof(*p->id));
	p->x = xrealloc(p->x, (size_t)p->n + 1, sizeof(*p->x));
	rc = ev_expander_load(ctx, id, &p->x[p->n]);
	if (rc)
		return rc;
	p->id[p->n] = id;
	*x = &p->x[p->n++];
	return 0;
}

static int do_show(struct args *a)
{
	struct ev_profiles prof = { 0 };
	const struct ev_expander *x;
	struct ev_filter flt = { 0 };
	struct mrcx_ev_info *evs = NULL;
	struct mrc_context *ctx = NULL;
	struct tbl *t;
	int rc, i, n = 0;

	rc = filter_args(a, &flt);
	if (!rc)
		rc = ctl_open(&ctx);
	if (!rc)
		rc = ev_list(ctx, flt.seen & 1u << S_QP ? flt.qpn : UINT32_MAX,
			     &evs, &n);
	if (rc)
		return rc;
	t = tbl_new();
	for (i = 0; !rc && i < n; i++) {
		if (!wanted(&flt, &evs[i]))
			continue;
		ev_row(t, &evs[i]);
		/* An SRV6 profile's EV: the path it names too. */
		rc = ev_profile_of(ctx, &prof, evs[i].profile_id, &x);
		if (!rc && x)
			put_srv6_ev(t, x, ev_val(&evs[i].ev));
	}
	if (!rc)
		tbl_print_list(t, out, opts.json, opts.pretty);
	tbl_free(t);
	for (i = 0; i < prof.n; i++)
		ev_expander_free(&prof.x[i]);
	free(prof.id);
	free(prof.x);
	free(evs);
	return rc;
}

/* deny and allow: profile N ev VAL port P */
static int set_state(struct args *a, enum mrc_ctl_ev_state state)
{
	static const char *const kws[] = { "profile", "ev" };
	struct mrc_ctl_ev_op_entry e = { .state = state };
	struct mrc_context *ctx = NULL;
	unsigned int seen = 0;
	uint64_t profile = 0;
	int rc = 0, kw;

	while (!rc && args_left(a)) {
		rc = arg_keyword(a, kws, ARRAY_SIZE(kws), &kw);
		if (!rc)
			rc = arg_once(&seen, kw, kws);
		if (!rc && kw == 0)
			rc = arg_u64(a, "profile", 0, UINT64_MAX, &profile);
		else if (!rc)
			rc = arg_ev(a, "ev", &e.ev);
	}
	if (!rc && !(seen & 1u << 0))
		rc = arg_required(a, "profile N");
	if (!rc && !(seen & 1u << 1))
		rc = arg_required(a, "ev VAL port P");
	if (!rc)
		rc = ctl_open(&ctx);
	if (!rc)
		rc = evp_ev_modify(ctx, profile, MRC_CTL_EV_OP_MODIFY_EV_STATE,
				   &e);
	if (!rc)
		print_null();
	return rc;
}

static int do_deny(struct args *a)
{
	return set_state(a, MRC_CTL_EV_DENIED);
}

static int do_allow(struct args *a)
{
	return set_state(a, MRC_CTL_EV_GOOD);
}

static const struct cmd cmds[] = {
	{ "show", do_show },   { "expand", ev_do_expand }, { "deny", do_deny },
	{ "allow", do_allow }, { "trace", ev_do_trace },
};

static const char *const usage[] = {
	"show [ profile N ] [ qp N ] [ port P ] [ state EVSTATE ]",
	"expand profile N VAL...",
	"deny profile N ev VAL port P",
	"allow profile N ev VAL port P",
	"trace qp N [ ev IDX ] [ max-hops N ] [ probes N ] [ timeout MS ]",
	NULL,
};

static const char *const defs[] = {
	"EVSTATE := { good | assumed-bad | denied }",
	"IDX := the EV's index in the QP's EV array (ev show's IDX);"
	" trace: every EV when not given",
	"trace: max-hops 1..64 (default 16), probes per hop 1..10"
	" (default 3), timeout per hop 1..10000 ms (default 1000)",
	HELP_EV,
	HELP_NUMBER,
	NULL,
};

const struct object obj_ev = {
	.name = "ev",
	.what = "EVs of every QP: state, counters, RTT; expand, deny, allow, trace",
	.cmds = cmds,
	.ncmds = ARRAY_SIZE(cmds),
	.usage = usage,
	.defs = defs,
};
