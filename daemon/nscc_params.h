/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the conversion of a CC profile's UET 1.0 NSCC
 * parameters (struct mrc_ctl_cc_nscc_cfg, floats in the OCP API) into the
 * fixed point the data path runs on (struct mrc_nscc_params), done once
 * when the profile goes ONLINE, and the UET defaults for a link rate and
 * base RTT (docs/congestion.md).
 *
 * Units of struct mrc_ctl_cc_nscc_cfg as mrc reads them:
 *   adjust_bytes_threshold, max_cwnd      bytes
 *   adjust_period_threshold, base_rtt,
 *   qa_threshold, target_delay            ns (qa_threshold 2^32 - 1: never)
 *   eta, fi                               bytes (eta per adjust period,
 *                                         fi about per RTT)
 *   fi_scale, gamma, max_md_jump          fractions (plain numbers)
 *   qa_gate                               a shift: quick adapt only while
 *                                         achieved < max window >> qa_gate
 *   disable_qa                            non-zero: no quick adapt
 */
#ifndef MRC_DAEMON_NSCC_PARAMS_H
#define MRC_DAEMON_NSCC_PARAMS_H

#include <stddef.h>
#include <linux/types.h>

#include "mrc/nscc.h"
#include "mrc_ctl.h"
#include "mrc/cc_default.h"

/*
 * *out from cfg for packets of mtu_bytes (the unit the data path counts
 * cwnd in). Returns 0, or -EINVAL with why naming the field and its
 * allowed range (NaN, infinite, negative, out of range, zero where zero
 * means nothing); *out is then unchanged.
 */
int nscc_params_from_cfg(const struct mrc_ctl_cc_nscc_cfg *cfg, __u32 mtu_bytes,
			 struct mrc_nscc_params *out, char *why,
			 size_t why_len);

/*
 * UET's defaults for a QP whose paths carry link_bytes_per_s in all
 * (over every plane it sprays on) with an unloaded RTT of base_rtt_ns,
 * scaled from the reference network; trimming: the fabric trims rather
 * than drops. Values out of range are clamped, so the result always
 * converts.
 */
void nscc_cfg_defaults(__u64 link_bytes_per_s, __u32 base_rtt_ns,
		       __u32 mtu_bytes, int trimming,
		       struct mrc_ctl_cc_nscc_cfg *cfg);

/*
 * A QP's NSCC state at its start (bpf/lib/nscc.h's nscc_init, the code the
 * data path runs), now_ns on CLOCK_MONOTONIC, the data path's clock, for
 * a QP that carries pkt_bytes of payload a packet (its window's floor).
 */
void nscc_start(struct mrc_nscc *s, const struct mrc_nscc_params *p,
		__u64 now_ns, __u32 pkt_bytes);

#endif /* MRC_DAEMON_NSCC_PARAMS_H */
