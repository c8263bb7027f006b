// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl cc-profile: congestion control profiles, their algorithm and UET
 * 1.0 NSCC parameters (mrc_ctl_query_cc_profile, mrc_ctl_modify_cc_profile).
 * 'set' with any NSCC key sends the whole parameter set: the keys given,
 * mrc's for a software device for the rest (include/mrc/cc_default.h,
 * the profile mrcd offers as number 15; mrcctl(8) lists them).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mrcctl.h"
#include "mrc/cc_default.h"

#define NSCC_NAME "uet-1.0-nscc"

struct cc_info {
	uint32_t state;
	const char *algorithm; /* the library's; NULL: none */
	int have_cfg;
	struct mrc_ctl_cc_nscc_cfg cfg;
};

static int cc_query(struct mrc_context *ctx, uint64_t id, struct cc_info *ci)
{
	struct mrc_ctl_cc_profile_attr attr;
	int rc;

	memset(ci, 0, sizeof(*ci));
	memset(&attr, 0, sizeof(attr));
	errno = 0;
	rc = mrc_ctl_query_cc_profile(ctx, id, &attr,
				      MRC_CTL_CC_PROFILE_CUR_STATE);
	if (rc)
		return err_api(api_errno(rc), "mrc_ctl_query_cc_profile",
			       "cc-profile %" PRIu64, id);
	ci->state = attr.cur_profile_state;
	if (ci->state == MRC_CTL_PROFILE_INIT)
		return 0;
	errno = 0;
	rc = mrc_ctl_query_cc_profile(ctx, id, &attr,
				      MRC_CTL_CC_PROFILE_ALGORITHM |
					      MRC_CTL_CC_PROFILE_CONFIG);
	if (rc) {
		/* OFFLINE before its CONFIG: ask for the algorithm alone. */
		errno = 0;
		rc = mrc_ctl_query_cc_profile(ctx, id, &attr,
					      MRC_CTL_CC_PROFILE_ALGORITHM);
		if (rc)
			return err_api(api_errno(rc),
				       "mrc_ctl_query_cc_profile",
				       "cc-profile %" PRIu64, id);
		attr.cc_config = NULL;
	}
	ci->algorithm = attr.algorithm;
	if (attr.algorithm && !strcmp(attr.algorithm, NSCC_NAME) &&
	    attr.cc_config) {
		ci->cfg = *(const struct mrc_ctl_cc_nscc_cfg *)attr.cc_config;
		ci->have_cfg = 1;
	}
	return 0;
}

static void put_f(struct tbl *t, const char *key, const char *head, float v,
		  int have)
{
	double below = 0.1;
	int d = 3;

	/* Three decimals, or three significant digits below 0.1. */
	for (; d < 9 && v > 0 && v < below; below /= 10)
		d++;
	if (have)
		tbl_fixed(t, key, head, v, d);
	else
		tbl_none(t, key, head);
}

static void put_u(struct tbl *t, const char *key, const char *head, uint32_t v,
		  int have)
{
	if (have)
		tbl_u64(t, key, head, v);
	else
		tbl_none(t, key, head);
}

static void cc_row(struct tbl *t, uint64_t id, const struct cc_info *ci)
{
	const struct mrc_ctl_cc_nscc_cfg *c = &ci->cfg;
	int h = ci->have_cfg;

	tbl_row(t);
	tbl_u64(t, "id", "ID", id);
	tbl_str(t, "state", "STATE", profile_state_name(ci->state));
	if (ci->state == MRC_CTL_PROFILE_INIT)
		tbl_none(t, "algorithm", "ALGORITHM");
	else if (ci->algorithm)
		tbl_str(t, "algorithm", "ALGORITHM", ci->algorithm);
	else
		tbl_put(t, "algorithm", "ALGORITHM", 0, xstrdup("none"),
			jv_null());
	put_u(t, "base_rtt_ns", "BASE_RTT(ns)", c->base_rtt, h);
	put_u(t, "target_delay_ns", "TARGET_DELAY(ns)", c->target_delay, h);
	put_u(t, "max_cwnd_bytes", "MAX_CWND(B)", c->max_cwnd, h);
	put_f(t, "eta", "ETA", c->eta, h);
	put_f(t, "fi", "FI", c->fi, h);
	put_f(t, "fi_scale", "FI_SCALE", c->fi_scale, h);
	put_f(t, "gamma", "GAMMA", c->gamma, h);
	put_f(t, "max_md_jump", "MAX_MD_JUMP", c->max_md_jump, h);
	put_u(t, "qa_gate", "QA_GATE", c->qa_gate, h);
	put_u(t, "qa_threshold_ns", "QA_THRESHOLD(ns)", c->qa_threshold, h);
	put_u(t, "adjust_bytes", "ADJUST(B)", c->adjust_bytes_threshold, h);
	put_u(t, "adjust_period_ns", "ADJUST_PERIOD(ns)",
	      c->adjust_period_threshold, h);
	if (h)
		tbl_put(t, "quick_adapt", "QA", 0,
			xstrdup(c->disable_qa ? "off" : "on"),
			jv_bool(!c->disable_qa));
	else
		tbl_none(t, "quick_adapt", "QA");
}

static uint32_t cc_max(const struct mrc_ctl_device_attr *d)
{
	return d->cc.cc_max_profiles;
}

static int cc_show_one(struct mrc_context *ctx, uint64_t id, int all,
		       struct tbl *t)
{
	struct cc_info ci;
	int rc = cc_query(ctx, id, &ci);

	if (!rc && (!all || ci.state != MRC_CTL_PROFILE_INIT))
		cc_row(t, id, &ci);
	return rc;
}

static int do_show(struct args *a)
{
	return profile_show(a, cc_max, cc_show_one);
}

enum {
	C_ALGORITHM,
	C_STATE,
	C_BASE_RTT, /* the NSCC keys from here */
	C_TARGET_DELAY,
	C_MAX_CWND,
	C_ETA,
	C_FI,
	C_FI_SCALE,
	C_GAMMA,
	C_MAX_MD_JUMP,
	C_QA_GATE,
	C_QA_THRESHOLD,
	C_ADJUST_BYTES,
	C_ADJUST_PERIOD,
	C_DISABLE_QA,
	C_BDP,
};
static const char *const set_kws[] = {
	"algorithm",	"state",	 "base-rtt",   "target-delay",
	"max-cwnd",	"eta",		 "fi",	       "fi-scale",
	"gamma",	"max-md-jump",	 "qa-gate",    "qa-threshold",
	"adjust-bytes", "adjust-period", "disable-qa", "bdp",
};

/*
 * The bdp key's range: from under one packet to where fi (5 MTU x
 * bdp / 150000 B) would pass the 2^24 bytes mrcd accepts.
 */
#define BDP_MIN 1000u
#define BDP_MAX 100000000u

/*
 * "bdp BYTES": eta, fi, fi-scale and max-cwnd as UET sizes them for that
 * bandwidth-delay product at the profile's 4096-byte packets, except the
 * ones given by their own keys, wherever they stand.
 */
static void nscc_size(struct mrc_ctl_cc_nscc_cfg *c, uint32_t bdp,
		      unsigned int seen)
{
	struct mrc_ctl_cc_nscc_cfg z = *c;

	mrc_cc_nscc_size(&z, bdp, MRC_MAX_PAYLOAD);
	if (!(seen & 1u << C_ETA))
		c->eta = z.eta;
	if (!(seen & 1u << C_FI))
		c->fi = z.fi;
	if (!(seen & 1u << C_FI_SCALE))
		c->fi_scale = z.fi_scale;
	if (!(seen & 1u << C_MAX_CWND))
		c->max_cwnd = z.max_cwnd;
}

static int nscc_arg(struct args *a, int kw, struct mrc_ctl_cc_nscc_cfg *c)
{
	const char *k = set_kws[kw];
	uint32_t v = 0;
	int rc = 0;

	switch (kw) {
	case C_ETA:
		return arg_float(a, k, &c->eta);
	case C_FI:
		return arg_float(a, k, &c->fi);
	case C_FI_SCALE:
		return arg_float(a, k, &c->fi_scale);
	case C_GAMMA:
		return arg_float(a, k, &c->gamma);
	case C_MAX_MD_JUMP:
		return arg_float(a, k, &c->max_md_jump);
	case C_DISABLE_QA:
		c->disable_qa = 1;
		return 0;
	case C_QA_GATE:
		rc = arg_u32(a, k, 0, UINT8_MAX, &v);
		c->qa_gate = (uint8_t)v;
		return rc;
	}
	rc = arg_u32(a, k, 0, UINT32_MAX, &v);
	if (kw == C_BASE_RTT)
		c->base_rtt = v;
	else if (kw == C_TARGET_DELAY)
		c->target_delay = v;
	else if (kw == C_MAX_CWND)
		c->max_cwnd = v;
	else if (kw == C_QA_THRESHOLD)
		c->qa_threshold = v;
	else if (kw == C_ADJUST_BYTES)
		c->adjust_bytes_threshold = v;
	else
		c->adjust_period_threshold = v;
	return rc;
}

static int do_set(struct args *a)
{
	static const char *const algos[] = { NSCC_NAME, "none" };
	struct mrc_ctl_cc_nscc_cfg cfg = mrc_cc_soft_nscc;
	struct mrc_ctl_cc_profile_attr attr = { 0 };
	struct mrc_context *ctx = NULL;
	unsigned int seen = 0;
	int rc, kw, w = 0, mask = 0;
	uint32_t bdp = 0;
	uint64_t id;

	rc = arg_u64(a, "ID", 0, UINT64_MAX, &id);
	while (!rc && args_left(a)) {
		rc = arg_keyword(a, set_kws, ARRAY_SIZE(set_kws), &kw);
		if (!rc)
			rc = arg_once(&seen, kw, set_kws);
		if (rc)
			break;
		if (kw == C_ALGORITHM) {
			rc = arg_choice(a, "algorithm", algos,
					ARRAY_SIZE(algos), &w);
			attr.algorithm = w ? NULL : NSCC_NAME;
			mask |= MRC_CTL_CC_PROFILE_ALGORITHM;
		} else if (kw == C_STATE) {
			rc = arg_choice(a, "state", profile_state_words,
					ARRAY_SIZE(profile_state_words), &w);
			attr.profile_state = (enum mrc_ctl_profile_state)w;
			mask |= MRC_CTL_CC_PROFILE_STATE;
		} else if (kw == C_BDP) {
			rc = arg_u32(a, set_kws[kw], BDP_MIN, BDP_MAX, &bdp);
			mask |= MRC_CTL_CC_PROFILE_CONFIG;
		} else {
			rc = nscc_arg(a, kw, &cfg);
			mask |= MRC_CTL_CC_PROFILE_CONFIG;
		}
	}
	if (!rc && bdp)
		nscc_size(&cfg, bdp, seen);
	if (!rc && !mask)
		rc = err_usage("'%s' needs a keyword (see 'mrcctl cc-profile"
			       " help')",
			       a->cmd);
	if (!rc)
		rc = ctl_open(&ctx);
	if (rc)
		return rc;
	attr.cc_config = mask & MRC_CTL_CC_PROFILE_CONFIG ? &cfg : NULL;
	errno = 0;
	rc = mrc_ctl_modify_cc_profile(ctx, id, &attr, mask);
	if (rc)
		return err_api(api_errno(rc), "mrc_ctl_modify_cc_profile",
			       "cc-profile %" PRIu64, id);
	print_null();
	return 0;
}

static const struct cmd cmds[] = {
	{ "show", do_show },
	{ "set", do_set },
};

static const char *const usage[] = {
	"show [ ID ]",
	"set ID [ algorithm { " NSCC_NAME " | none } ] [ NSCC ]..."
	" [ state STATE ]",
	NULL,
};

static const char *const defs[] = {
	"NSCC := { base-rtt NS | target-delay NS | max-cwnd BYTES | eta BYTES |"
	" fi BYTES | fi-scale F |",
	"          gamma F | max-md-jump F | qa-gate N | qa-threshold NS |"
	" adjust-bytes BYTES |",
	"          adjust-period NS | disable-qa | bdp BYTES }",
	"  Any NSCC key sends all of them: those not given take their"
	" defaults,",
	"  base-rtt 10000 target-delay 100000 max-cwnd 75000 eta 200 fi 6800"
	" fi-scale 0.08",
	"  gamma 0.8 max-md-jump 0.5 qa-gate 3 qa-threshold 400000"
	" adjust-bytes 32768",
	"  adjust-period 10000 (NS in nanoseconds, F a decimal fraction).",
	"  bdp BYTES (1000-100000000) sizes eta, fi, fi-scale and max-cwnd"
	" for a QP's",
	"  bandwidth-delay product as UET does (all its paths' rate x the"
	" round trip its",
	"  window covers); those keys, when given too, win. max-cwnd also"
	" sizes the",
	"  proportional increase.",
	HELP_PROFILE_STATE,
	HELP_NUMBER,
	NULL,
};

const struct object obj_cc_profile = {
	.name = "cc-profile",
	.what = "congestion control profiles: algorithm, NSCC parameters",
	.cmds = cmds,
	.ncmds = ARRAY_SIZE(cmds),
	.usage = usage,
	.defs = defs,
};
