/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains libmrc's extensions: calls this soft device offers
 * beyond the OCP MRC application API (mrc.h). Programs that use them run
 * only on mrc; the names start with mrcx_ to say so.
 */
#ifndef MRC_EXT_H
#define MRC_EXT_H

#include <stdint.h>

#include "mrc.h"
#include "mrc/mrcd_proto.h"

/*
 * Path health of one of the caller's QPs (docs/health.md): the state of
 * each of its EVs, which carry traffic, its packet counters (sent,
 * retransmitted, lost, over all its EVs) and its EV events numbered after
 * 'after' (up to MRCD_HEALTH_EVENTS, oldest first; pass h->last_no back to
 * read on). Returns 0, or -1 with errno: EINVAL, EPERM (not the caller's
 * QP), ENOENT, EIO (mrcd gone).
 */
int mrcx_query_qp_health(struct mrc_qp *qp, uint32_t after,
			 struct mrcd_qp_health *h);

#endif /* MRC_EXT_H */
