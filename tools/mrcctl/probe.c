// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl probe: EV probes to a peer (mrc_ctl_ep_batch_send_wait with
 * MRC_CTL_EP_OP_EV_PROBE), one request per EV and round, each with a
 * request id of its own. Every request gets a line: its answer (the port
 * it came back on, the RTT) or a timeout. Missing answers are no usage
 * error: what came back is printed, and the exit status is 2. With
 * status BITS each request is a port status update instead
 * (MRC_CTL_EP_OP_PORT_STATUS_UPDATE): the peer is told which of our ports
 * are up, and its answer is timed the same way.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mrcctl.h"

#define PROBE_MAX_ROUNDS 1000
/* rsp_timeout is in ns in a uint32_t: at most 4294 ms. */
#define PROBE_MAX_TIMEOUT_MS (UINT32_MAX / 1000000u)

struct probe {
	union ibv_gid dgid, sgid;
	int have_dgid, have_sgid;
	struct mrc_ctl_ev *evs;
	int nev;
	uint32_t rounds, timeout_ms;
	enum mrc_ctl_ev_fmt_mode mode;
	int have_status;
	uint32_t status; /* bit p-1: our port p is up */
};

enum { P_DGID, P_EV, P_SGID, P_COUNT, P_TIMEOUT, P_MODE, P_STATUS };
static const char *const kws[] = { "dgid",    "ev",   "sgid",  "count",
				   "timeout", "mode", "status" };

static int probe_args(struct args *a, struct probe *p)
{
	static const char *const modes[] = { "stev", "udp" };
	unsigned int seen = 0;
	int rc = 0, kw, w = 0;

	while (!rc && args_left(a)) {
		rc = arg_keyword(a, kws, ARRAY_SIZE(kws), &kw);
		if (!rc && kw != P_EV) /* ev repeats */
			rc = arg_once(&seen, kw, kws);
		if (rc)
			break;
		switch (kw) {
		case P_DGID:
			rc = arg_gid(a, "dgid", &p->dgid);
			p->have_dgid = 1;
			break;
		case P_EV:
			p->evs = xrealloc(p->evs, (size_t)p->nev + 1,
					  sizeof(*p->evs));
			rc = arg_ev(a, "ev", &p->evs[p->nev++]);
			break;
		case P_SGID:
			rc = arg_gid(a, "sgid", &p->sgid);
			p->have_sgid = 1;
			break;
		case P_COUNT:
			rc = arg_u32(a, "count", 1, PROBE_MAX_ROUNDS,
				     &p->rounds);
			break;
		case P_TIMEOUT:
			rc = arg_u32(a, "timeout", 1, PROBE_MAX_TIMEOUT_MS,
				     &p->timeout_ms);
			break;
		case P_MODE:
			rc = arg_choice(a, "mode", modes, ARRAY_SIZE(modes),
					&w);
			p->mode = w ? MRC_CTL_EV_FMT_MODE_UDP :
				      MRC_CTL_EV_FMT_MODE_STEV;
			break;
		case P_STATUS:
			rc = arg_u32(a, "status", 0, UINT32_MAX, &p->status);
			p->have_status = 1;
			break;
		}
	}
	if (!rc && !p->have_dgid)
		rc = arg_required(a, "dgid GID");
	if (!rc && !p->nev)
		rc = arg_required(a, "ev VAL port P");
	return rc;
}

/* Our GID on the port each EV leaves by, unless sgid names one. */
static int probe_sgids(struct mrc_context *ctx, const struct probe *p,
		       union ibv_gid *sgid)
{
	struct mrcx_port_info *ports = NULL;
	int rc, i, k, n = 0;

	if (p->have_sgid) {
		for (i = 0; i < p->nev; i++)
			sgid[i] = p->sgid;
		return 0;
	}
	rc = ctl_port_list(ctx, &ports, &n);
	for (i = 0; !rc && i < p->nev; i++) {
		for (k = 0; k < n && ports[k].port != p->evs[i].port; k++)
			;
		if (k == n)
			rc = err_runtime("port %u: no such port (ev 0x%x)",
					 p->evs[i].port, ev_val(&p->evs[i]));
		else
			memcpy(sgid[i].raw, ports[k].gid, sizeof(sgid[i].raw));
	}
	free(ports);
	return rc;
}

static void probe_row(struct tbl *t, uint32_t round,
		      const struct mrc_ctl_ep_req *q,
		      const struct mrc_ctl_ep_rsp *r)
{
	tbl_row(t);
	tbl_u64(t, "round", "ROUND", round);
	tbl_u64(t, "req_id", "REQ_ID", q->req_id);
	tbl_hex(t, "ev", "EV", ev_val(&q->req_ev));
	tbl_u64(t, "port", "PORT", q->req_ev.port);
	tbl_str(t, "status", "STATUS", r ? "answered" : "timeout");
	if (r) {
		tbl_u64(t, "rx_port", "RX_PORT", r->port);
		tbl_fixed(t, "rtt_us", "RTT(us)", r->rtt / 1e3, 3);
		tbl_bool(t, "svc_time_adjusted", "SVC_TIME_ADJUSTED",
			 r->adj_svc_time);
	} else {
		tbl_none(t, "rx_port", "RX_PORT");
		tbl_none(t, "rtt_us", "RTT(us)");
		tbl_none(t, "svc_time_adjusted", "SVC_TIME_ADJUSTED");
	}
}

/* One round: every EV once. Returns the answers missing in *missing. */
static int probe_round(struct mrc_context *ctx, const struct probe *p,
		       struct mrc_ctl_ep_req *req, struct mrc_ctl_ep_rsp *rsp,
		       uint32_t round, struct tbl *t, int *missing)
{
	int rc, err, i, k, nrsp = 0;

	errno = 0;
	rc = mrc_ctl_ep_batch_send_wait(
		ctx, 0,
		p->have_status ? MRC_CTL_EP_OP_PORT_STATUS_UPDATE :
				 MRC_CTL_EP_OP_EV_PROBE,
		req, p->nev, p->timeout_ms * 1000000u, rsp, &nrsp);
	err = rc ? api_errno(rc) : 0;
	if (rc && err != ETIMEDOUT)
		return err_api(err, "mrc_ctl_ep_batch_send_wait",
			       "probe round %u", round);
	if (nrsp < 0 || nrsp > p->nev)
		nrsp = 0;
	for (i = 0; i < p->nev; i++) {
		for (k = 0; k < nrsp && rsp[k].req_id != req[i].req_id; k++)
			;
		probe_row(t, round, &req[i], k < nrsp ? &rsp[k] : NULL);
		*missing += k == nrsp;
	}
	return 0;
}

static int probe_run(struct args *a)
{
	struct probe p = { .rounds = 1,
			   .timeout_ms = 1000,
			   .mode = MRC_CTL_EV_FMT_MODE_STEV };
	struct mrc_ctl_ep_req *req = NULL;
	struct mrc_ctl_ep_rsp *rsp = NULL;
	union ibv_gid *sgid = NULL;
	struct mrc_context *ctx = NULL;
	struct tbl *t = NULL;
	uint16_t id = (uint16_t)getpid();
	int rc, i, missing = 0;
	uint32_t r;

	rc = probe_args(a, &p);
	if (!rc)
		rc = ctl_open(&ctx);
	if (!rc) {
		sgid = xcalloc((size_t)p.nev, sizeof(*sgid));
		rc = probe_sgids(ctx, &p, sgid);
	}
	if (!rc) {
		req = xcalloc((size_t)p.nev, sizeof(*req));
		rsp = xcalloc((size_t)p.nev, sizeof(*rsp));
		t = tbl_new();
	}
	for (r = 1; !rc && r <= p.rounds; r++) {
		for (i = 0; i < p.nev; i++) {
			memset(&req[i], 0, sizeof(req[i]));
			req[i].req_id = id++; /* unique among outstanding */
			req[i].sgid = sgid[i];
			req[i].dgid = p.dgid;
			req[i].ev_fmt_mode = p.mode;
			req[i].req_ev = p.evs[i];
			req[i].op.port_status_update.port_status = p.status;
		}
		rc = probe_round(ctx, &p, req, rsp, r, t, &missing);
	}
	if (!rc) {
		tbl_print_list(t, out, opts.json, opts.pretty);
		if (missing) {
			out_keep = 1; /* the answers that came are printed */
			rc = err_runtime("%d of %u probes got no answer within"
					 " %u ms",
					 missing, p.rounds * (uint32_t)p.nev,
					 p.timeout_ms);
		}
	}
	tbl_free(t);
	free(req);
	free(rsp);
	free(sgid);
	free(p.evs);
	return rc;
}

static const char *const defs[] = {
	"PROBE := dgid GID ev VAL port P [ ev VAL port P ]... [ sgid GID ]",
	"         [ count N ] [ timeout MS ] [ mode { stev | udp } ]",
	"         [ status BITS ]",
	"BITS := a port status update instead of probes: bit p-1 set says"
	" our port p is up, clear that it is down",
	"GID := an IPv4 (taken as ::ffff:a.b.c.d) or IPv6 address; sgid"
	" defaults to ours on each EV's port",
	"N := rounds, 1..1000 (default 1); MS := 1..4294 (default 1000)",
	HELP_EV,
	NULL,
};

const struct object obj_probe = {
	.name = "probe",
	.what = "send EV probes (or port status updates) to a peer and time the answers",
	.run = probe_run,
	.form = "PROBE",
	.defs = defs,
};
