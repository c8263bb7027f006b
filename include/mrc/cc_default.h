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

#endif /* MRC_CC_DEFAULT_H */
