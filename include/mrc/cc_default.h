/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the NSCC parameters mrc chooses for a software
 * device on veth (docs/congestion.md): the profile mrcd offers (CC
 * profile 15) and what mrcctl cc-profile set fills in for keys not given.
 */
#ifndef MRC_CC_DEFAULT_H
#define MRC_CC_DEFAULT_H

#include "mrc_ctl.h"

extern const struct mrc_ctl_cc_nscc_cfg mrc_cc_soft_nscc;

/* UET's reference network: 100 Gbit/s x 12 us, one BDP of 150000 bytes. */
#define MRC_NSCC_REF_BDP_BYTES 150000.0
#define MRC_NSCC_REF_RTT_NS 12000.0
/* UET's MaxWnd, in BDPs. */
#define MRC_NSCC_MAX_CWND_BDPS 1.5

/*
 * Sizes c's increases and largest window for a QP whose bandwidth-delay
 * product is bdp_bytes (what its paths carry in all, over every plane,
 * times the round trip its window must cover), at packets of mtu_bytes,
 * by UET's rules: scaling_a = bdp / 150000 B, eta 0.15 MTU x a, fi
 * 5 MTU x a, fi_scale 0.25 a, max_cwnd 1.5 BDP (at least one MTU, at
 * most 2^32 - 1). The other fields are left. Nothing else is clamped:
 * the profile's checks (mrcd) refuse a value out of range.
 */
void mrc_cc_nscc_size(struct mrc_ctl_cc_nscc_cfg *c, double bdp_bytes,
		      double mtu_bytes);

#endif /* MRC_CC_DEFAULT_H */
