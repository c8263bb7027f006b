/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the names userspace prints for EV states and for the
 * reasons of EV events (include/mrc/abi.h), one list for mrcd, mrc-perf
 * and, later, mrcctl.
 */
#ifndef MRC_EV_NAMES_H
#define MRC_EV_NAMES_H

#include "abi.h"

static inline const char *mrc_ev_state_name(unsigned int s)
{
	return s == MRC_EV_GOOD	       ? "GOOD" :
	       s == MRC_EV_ASSUMED_BAD ? "ASSUMED_BAD" :
	       s == MRC_EV_DENIED      ? "DENIED" :
					 "?";
}

static inline const char *mrc_ev_reason_name(unsigned int r)
{
	static const char *const names[] = {
		[MRC_EV_R_LOSS] = "loss on this EV",
		[MRC_EV_R_TIMEOUT] = "ACK timeout",
		[MRC_EV_R_PROBES] = "probes answered",
		[MRC_EV_R_PORT_DOWN] = "port down",
		[MRC_EV_R_PORT_UP] = "port up",
		[MRC_EV_R_DENY] = "denied",
		[MRC_EV_R_ALLOW] = "allowed",
		[MRC_EV_R_MIN_ACTIVE] = "kept in use: ev_min_active",
		[MRC_EV_R_PROBE_ANSWER] = "probe answer",
		[MRC_EV_R_SILENT] = "silent while later packets got through",
		[MRC_EV_R_GRAY] = "gray: RTT far above its siblings'",
		[MRC_EV_R_LOSSY] = "lossy: loses far more than its siblings",
	};

	return r < sizeof(names) / sizeof(names[0]) && names[r] ? names[r] :
								  "?";
}

#endif /* MRC_EV_NAMES_H */
