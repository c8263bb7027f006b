// SPDX-License-Identifier: GPL-2.0
/*
 * UET 1.0 NSCC parameters (nscc_params.h): checked, converted to the data
 * path's fixed point, and the defaults scaled from UET's reference
 * network. Pure arithmetic, so unit tests drive it.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "nscc_params.h"
#include "../bpf/lib/nscc.h"

/* The largest float below 2^24: fi and eta in Q8 then fit __u32. */
#define INC_MAX_BYTES 16777215.0

/* 0 if lo <= v <= hi, else -EINVAL with why naming field and range. */
static int check_u(char *why, size_t len, const char *field, __u64 v, __u64 lo,
		   __u64 hi, const char *unit)
{
	if (v >= lo && v <= hi)
		return 0;
	if (why && len)
		snprintf(why, len, "%s must be in [%llu, %llu] %s, got %llu",
			 field, (unsigned long long)lo, (unsigned long long)hi,
			 unit, (unsigned long long)v);
	return -EINVAL;
}

/* The same for a float; NaN is in no range. */
static int check_f(char *why, size_t len, const char *field, float v, double lo,
		   double hi)
{
	if ((double)v >= lo && (double)v <= hi)
		return 0;
	if (why && len)
		snprintf(why, len, "%s must be in [%.9g, %.9g], got %.9g",
			 field, lo, hi, (double)v);
	return -EINVAL;
}

/* v x scale, rounded to nearest; v is in range, so it fits. */
static __u32 fixed(double v, double scale)
{
	return (__u32)(uint64_t)(v * scale + 0.5);
}

#define CHECK_U(field, v, lo, hi, unit)                                   \
	do {                                                              \
		int err_ = check_u(why, why_len, field, v, lo, hi, unit); \
		if (err_)                                                 \
			return err_;                                      \
	} while (0)

#define CHECK_F(field, v, lo, hi)                                   \
	do {                                                        \
		int err_ = check_f(why, why_len, field, v, lo, hi); \
		if (err_)                                           \
			return err_;                                \
	} while (0)

int nscc_params_from_cfg(const struct mrc_ctl_cc_nscc_cfg *cfg, __u32 mtu_bytes,
			 struct mrc_nscc_params *out, char *why, size_t why_len)
{
	struct mrc_nscc_params p = { 0 };
	double a, b, at;

	CHECK_U("mtu_bytes", mtu_bytes, MRC_NSCC_MTU_MIN, MRC_NSCC_MTU_MAX,
		"bytes");
	CHECK_U("base_rtt", cfg->base_rtt, 1, MRC_NSCC_TIME_MAX_NS, "ns");
	CHECK_U("target_delay", cfg->target_delay, 1, MRC_NSCC_TIME_MAX_NS,
		"ns");
	CHECK_U("adjust_period_threshold", cfg->adjust_period_threshold, 1,
		MRC_NSCC_TIME_MAX_NS, "ns");
	CHECK_U("adjust_bytes_threshold", cfg->adjust_bytes_threshold, 0,
		MRC_NSCC_CWND_MAX, "bytes");
	CHECK_U("max_cwnd", cfg->max_cwnd, mtu_bytes, MRC_NSCC_CWND_MAX,
		"bytes");
	CHECK_U("qa_threshold", cfg->qa_threshold, 1, UINT32_MAX, "ns");
	CHECK_U("qa_gate", cfg->qa_gate, 0, MRC_NSCC_QA_GATE_MAX, "bits");
	CHECK_F("eta", cfg->eta, 0, INC_MAX_BYTES);
	CHECK_F("fi", cfg->fi, 0, INC_MAX_BYTES);
	CHECK_F("fi_scale", cfg->fi_scale, 0, 256);
	CHECK_F("gamma", cfg->gamma, 0, 1);
	CHECK_F("max_md_jump", cfg->max_md_jump, 0, 1);

	p.mtu_bytes = mtu_bytes;
	p.max_cwnd_bytes = cfg->max_cwnd;
	p.base_rtt_ns = cfg->base_rtt;
	p.target_delay_ns = cfg->target_delay;
	p.adjust_period_ns = cfg->adjust_period_threshold;
	p.adjust_bytes = cfg->adjust_bytes_threshold;
	p.eta_q8_bytes = fixed(cfg->eta, MRC_NSCC_Q8);
	p.fi_q8_bytes = fixed(cfg->fi, MRC_NSCC_Q8);
	p.fi_scale_q16 = fixed(cfg->fi_scale, MRC_NSCC_Q16);
	p.gamma_q16 = fixed(cfg->gamma, MRC_NSCC_Q16);
	p.max_md_jump_q16 = fixed(cfg->max_md_jump, MRC_NSCC_Q16);
	p.near_zero_ns = MRC_NSCC_NEAR_ZERO_NS;
	p.qa_threshold_ns = cfg->qa_threshold == UINT32_MAX ?
				    MRC_NSCC_QA_NEVER :
				    cfg->qa_threshold;
	p.disable_qa = !!cfg->disable_qa;
	p.qa_gate = cfg->qa_gate;
	/*
	 * alpha is no OCP field. UET has alpha = 4 x scaling_a x scaling_b x
	 * MTU / target_delay, scaling_a = BDP / 150000 B and scaling_b =
	 * target_delay / 12 us; the profile gives no link rate, but
	 * max_cwnd is 1.5 BDP, so scaling_a = max_cwnd / 225000 B. What the
	 * data path needs is alpha x target_delay, the increase per RTT at
	 * zero delay, capped below 2^24 bytes.
	 */
	a = cfg->max_cwnd / (MRC_NSCC_MAX_CWND_BDPS * MRC_NSCC_REF_BDP_BYTES);
	b = cfg->target_delay / MRC_NSCC_REF_RTT_NS;
	at = 4.0 * a * b * mtu_bytes;
	p.alpha_target_q8_bytes = at < INC_MAX_BYTES ? fixed(at, MRC_NSCC_Q8) :
						       MRC_NSCC_INC_MAX_Q8;
	*out = p;
	return 0;
}

static __u32 clamp_u(double v, double lo, double hi)
{
	if (!(v >= lo))
		v = lo;
	if (v > hi)
		v = hi;
	return (__u32)(uint64_t)(v + 0.5);
}

static float clamp_f(double v, double hi)
{
	return (float)(v < hi ? v : hi);
}

void nscc_cfg_defaults(__u64 link_bytes_per_s, __u32 base_rtt_ns,
		       __u32 mtu_bytes, int trimming,
		       struct mrc_ctl_cc_nscc_cfg *cfg)
{
	double mtu = clamp_u(mtu_bytes, MRC_NSCC_MTU_MIN, MRC_NSCC_MTU_MAX);
	double rtt = clamp_u(base_rtt_ns, 1, MRC_NSCC_TIME_MAX_NS);
	double bdp = (double)link_bytes_per_s * rtt / 1e9;
	/* Trimming tells of congestion early: a lower target (UET). */
	double target =
		clamp_u(trimming ? 0.75 * rtt : rtt, 1, MRC_NSCC_TIME_MAX_NS);

	*cfg = (struct mrc_ctl_cc_nscc_cfg){
		.disable_qa = 0,
		.adjust_bytes_threshold =
			clamp_u(8 * mtu, 0, MRC_NSCC_CWND_MAX),
		.adjust_period_threshold = (__u32)rtt,
		.base_rtt = (__u32)rtt,
		.gamma = 0.8f,
		.max_md_jump = 0.5f,
		.qa_gate = 3,
		/*
		 * Without trimming, a queue above the tail-drop threshold
		 * UET assumes (5 BDP) is 4 target delays deep; with it,
		 * trims call for quick adapt and the delay never does.
		 */
		.qa_threshold =
			trimming ? UINT32_MAX :
				   clamp_u(4 * target, 1, UINT32_MAX - 1.0),
		.target_delay = (__u32)target,
	};
	/* The increases and MaxWnd by the rules mrcctl's "bdp" uses. */
	mrc_cc_nscc_size(cfg, bdp, mtu);
	cfg->eta = clamp_f(cfg->eta, INC_MAX_BYTES);
	cfg->fi = clamp_f(cfg->fi, INC_MAX_BYTES);
	cfg->fi_scale = clamp_f(cfg->fi_scale, 256);
	cfg->max_cwnd = clamp_u(cfg->max_cwnd, mtu, MRC_NSCC_CWND_MAX);
}

void nscc_start(struct mrc_nscc *s, const struct mrc_nscc_params *p,
		__u64 now_ns, __u32 pkt_bytes)
{
	nscc_init(s, p, now_ns, pkt_bytes);
}
