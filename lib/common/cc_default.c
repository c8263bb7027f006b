// SPDX-License-Identifier: GPL-2.0
/*
 * NSCC for a software device on veth: a base RTT below the smallest it
 * sees (10 us), a target queueing delay above its scheduling noise
 * (100 us), quick adapt only past 4 targets; UET's increases (eta 0.15
 * MTU x a, fi 5 MTU x a, fi_scale 0.25 a) and MaxWnd (1.5 BDP) for a BDP
 * of 50 KB (a = 1/3) and 4096-byte packets. eta and fi are bytes.
 * max_cwnd also sizes the proportional increase (scaling_a = max_cwnd /
 * 225000 B, nscc_params.c), so it must be the same BDP's: 1 MiB made that
 * increase 14 times the others (docs/congestion.md, 2026-12-05).
 */
#include "mrc/cc_default.h"

const struct mrc_ctl_cc_nscc_cfg mrc_cc_soft_nscc = {
	.disable_qa = 0,
	.adjust_bytes_threshold = 32768,
	.adjust_period_threshold = 10000,
	.base_rtt = 10000,
	.eta = 200.0f,
	.fi = 6800.0f,
	.fi_scale = 0.08f,
	.gamma = 0.8f,
	.max_md_jump = 0.5f,
	.max_cwnd = 75000,
	.qa_gate = 3,
	.qa_threshold = 400000,
	.target_delay = 100000,
};

void mrc_cc_nscc_size(struct mrc_ctl_cc_nscc_cfg *c, double bdp_bytes,
		      double mtu_bytes)
{
	double a = bdp_bytes / MRC_NSCC_REF_BDP_BYTES;
	double w = MRC_NSCC_MAX_CWND_BDPS * bdp_bytes;

	c->eta = (float)(0.15 * mtu_bytes * a);
	c->fi = (float)(5 * mtu_bytes * a);
	c->fi_scale = (float)(0.25 * a);
	w = w > mtu_bytes ? w : mtu_bytes;
	c->max_cwnd = w < 4294967295.0 ? (__u32)(w + 0.5) : 0xffffffffu;
}
