// SPDX-License-Identifier: GPL-2.0
/*
 * Compiled by tests/lint/headers.sh against the installed headers alone:
 * a program may use every type and constant of the public API, the OCP
 * application and controller APIs and our extensions, without anything
 * of include/mrc/.
 */
#include <mrc.h>
#include <mrc_api_ver.h>
#include <mrc_ctl.h>
#include <mrc_ctl_api_ver.h>
#include <mrc_ext.h>

int public_api(struct mrc_qp *qp, struct mrc_context *ctx);

int public_api(struct mrc_qp *qp, struct mrc_context *ctx)
{
	struct mrcd_qp_health h;
	struct mrcx_port_info ports[4];
	struct mrcx_ev_info ev;
	int n = 0;

	if (mrcx_query_qp_health(qp, 0, &h))
		return -1;
	if (mrcx_ctl_port_list(ctx, ports, 4, &n))
		return -1;
	if (mrcx_ctl_ev_list(ctx, 0, &ev, 1, &n))
		return -1;
	return h.nevents <= MRCD_HEALTH_EVENTS && h.nev <= MRCX_QP_EVS &&
			       h.events[0].reason <= MRCX_EV_R_LOSSY &&
			       h.state[0] == MRC_CTL_EV_GOOD ?
		       0 :
		       -1;
}
