// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl qp: the QPs of every process on the device (mrcx_ctl_qp_list):
 * state, peer, owner, profiles, window, EVs and packet counters.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "mrcctl.h"

int qp_list(struct mrc_context *ctx, struct mrcx_qp_info **qps, int *n)
{
	struct mrcx_qp_info *q = NULL;
	int max = 64, tries, rc;

	/* Ask again with room for what it said; QPs come and go. */
	for (tries = 0; tries < 4; tries++) {
		q = xrealloc(q, (size_t)max, sizeof(*q));
		errno = 0;
		rc = mrcx_ctl_qp_list(ctx, q, max, n);
		if (rc) {
			free(q);
			return err_api(api_errno(rc), "mrcx_ctl_qp_list", "qp");
		}
		if (*n >= 0 && *n <= max) {
			*qps = q;
			return 0;
		}
		max = *n;
	}
	free(q);
	return err_runtime("mrcx_ctl_qp_list: the QP count keeps changing");
}

/* Ports (bit p-1: port p) as "2,4"; "-" for none. */
static char *port_list(uint32_t bits)
{
	char s[3 * 32 + 1] = "";
	size_t n = 0;
	int p;

	for (p = 1; p <= 32; p++)
		if (bits >> (p - 1) & 1)
			n += (size_t)snprintf(s + n, sizeof(s) - n, "%s%d",
					      n ? "," : "", p);
	return xstrdup(n ? s : "-");
}

static void qp_row(struct tbl *t, const struct mrcx_qp_info *q)
{
	tbl_row(t);
	tbl_u64(t, "qpn", "QPN", q->qpn);
	tbl_str(t, "state", "STATE", qp_state_name(q->state));
	tbl_u64(t, "peer_qpn", "PEER_QPN", q->peer_qpn);
	tbl_str_own(t, "peer_gid", "PEER_GID", gid_str(q->peer_gid));
	tbl_u64(t, "owner_pid", "PID", q->owner_pid);
	tbl_u64(t, "ev_profile_id", "EV_PROFILE", q->ev_profile_id);
	tbl_u64(t, "cc_profile_id", "CC_PROFILE", q->cc_profile_id);
	tbl_u64(t, "window_psns", "WINDOW(psns)", q->window_psns);
	tbl_u64(t, "inflight_psns", "INFLIGHT(psns)", q->inflight_psns);
	tbl_u64(t, "evs_in_use", "EVS_IN_USE", q->nev_in_use);
	tbl_u64(t, "evs", "EVS", q->nev);
	tbl_u64(t, "path_mtu_bytes", "PATH_MTU(B)", q->path_mtu_bytes);
	tbl_u64(t, "sent_pkts", "SENT(pkts)", q->sent_pkts);
	tbl_u64(t, "retx_pkts", "RETX(pkts)", q->retx_pkts);
	tbl_u64(t, "lost_pkts", "LOST(pkts)", q->lost_pkts);
	tbl_u64(t, "trimmed_pkts", "TRIMMED(pkts)", q->trimmed_pkts);
	tbl_u64(t, "ecn_pkts", "ECN(pkts)", q->ecn_pkts);
	put_us(t, "rtt_min_us", "RTT_MIN(us)", q->rtt_min_ns);
	put_us(t, "srtt_us", "SRTT(us)", q->srtt_ns);
	put_us(t, "rtt_hi_us", "RTT_HI(us)", q->rtt_hi_ns);
	tbl_u64(t, "evs_cooled", "EVS_COOLED", q->nev_cooled);
	tbl_u64(t, "cwnd_bytes", "CWND(B)", q->cwnd_bytes);
	tbl_u64(t, "cc_inflight_bytes", "CC_INFLIGHT(B)", q->cc_inflight_bytes);
	tbl_u64(t, "cc_base_rtt_ns", "BASE_RTT(ns)", q->cc_base_rtt_ns);
	tbl_u64(t, "cc_avg_delay_ns", "QDELAY(ns)", q->cc_avg_delay_ns);
	tbl_bool(t, "dyn_mpr", "DYN_MPR", (q->dyn_mpr & 3) == 3);
	tbl_bool(t, "dyn_mpr_local", "DYN_MPR_LOCAL", q->dyn_mpr & 1);
	tbl_bool(t, "dyn_mpr_peer", "DYN_MPR_PEER", (q->dyn_mpr >> 1) & 1);
	tbl_str_own(t, "peer_ports_down", "PEER_PORTS_DOWN",
		    port_list(q->peer_ports_down));
}

static int do_show(struct args *a)
{
	struct mrcx_qp_info *qps = NULL;
	struct mrc_context *ctx = NULL;
	uint32_t qpn = 0;
	int rc = 0, one = 0, i, n = 0, found = 0;
	struct tbl *t;

	if (args_left(a)) {
		rc = arg_u32(a, "QPN", 0, UINT32_MAX, &qpn);
		one = 1;
	}
	if (!rc)
		rc = arg_end(a);
	if (!rc)
		rc = ctl_open(&ctx);
	if (!rc)
		rc = qp_list(ctx, &qps, &n);
	if (rc)
		return rc;
	t = tbl_new();
	for (i = 0; i < n; i++)
		if (!one || qps[i].qpn == qpn) {
			qp_row(t, &qps[i]);
			found = 1;
		}
	if (one && !found)
		rc = err_runtime("qp %u: no such QP", qpn);
	else if (one)
		tbl_print_one(t, out, opts.json, opts.pretty);
	else
		tbl_print_list(t, out, opts.json, opts.pretty);
	tbl_free(t);
	free(qps);
	return rc;
}

static const struct cmd cmds[] = {
	{ "show", do_show },
};

static const char *const usage[] = {
	"show [ QPN ]",
	NULL,
};

const struct object obj_qp = {
	.name = "qp",
	.what = "QPs of every process: state, peer, profiles, window, counters",
	.cmds = cmds,
	.ncmds = ARRAY_SIZE(cmds),
	.usage = usage,
};
