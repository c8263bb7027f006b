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
#define MRC_EV_REASON_NAME(name, value, text) [value] = text,
	static const char *const names[] = { MRC_EV_REASONS(
		MRC_EV_REASON_NAME) };
#undef MRC_EV_REASON_NAME

	return r < sizeof(names) / sizeof(names[0]) && names[r] ? names[r] :
								  "?";
}

#endif /* MRC_EV_NAMES_H */
