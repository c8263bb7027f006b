// SPDX-License-Identifier: GPL-2.0
/*
 * Acceptance of programs written for other MRC libraries (compat.h): API
 * versions, and QP transitions written the RC way.
 *
 * OCP's mrc.h lists verbs attributes an MRC QP does not support and MRC
 * attributes each transition requires; vendor libraries accept RC-style
 * setup anyway, and published MRC programs rely on it. So by default the
 * verbs attributes an RC program passes are taken for what they mean to
 * MRC (timeout, retry count) or ignored (port, RNR, RDMA READ depths), and
 * required MRC attributes not given take the device's defaults. Strict
 * mode keeps OCP's letter instead, for checking a program before it meets
 * hardware whose library might.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "log.h"

int compat_api_version(uint32_t asked, uint32_t *in_force)
{
	if (asked == MRC_API_VER_LATEST) {
		*in_force = MRC_API_CURRENT_VERSION;
		return 0;
	}
	/* LAST_SUPPORTED is 0.0.0: every value up to the current one. */
#if MRC_API_LAST_SUPPORTED_VERSION > 0
	if (asked < MRC_API_LAST_SUPPORTED_VERSION)
		return -EPROTONOSUPPORT;
#endif
	if (asked > MRC_API_CURRENT_VERSION)
		return -EPROTONOSUPPORT;
	*in_force = asked;
	return 0;
}

bool compat_strict_value(const char *value)
{
	return value && !strcmp(value, "1");
}

/* Accepted and ignored: nothing in MRC means what they set. */
#define V_IGNORED                                                \
	(IBV_QP_PORT | IBV_QP_RNR_RETRY | IBV_QP_MIN_RNR_TIMER | \
	 IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC)
/* Accepted and taken as MRC attributes. */
#define V_MAPPED (IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT)
/* Refused in any mode: an alternate path has no meaning here. */
#define V_REFUSED (IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE)

struct bit_name {
	int bit;
	const char *name;
};

static const struct bit_name vnames[] = {
	{ IBV_QP_PORT, "IBV_QP_PORT" },
	{ IBV_QP_TIMEOUT, "IBV_QP_TIMEOUT" },
	{ IBV_QP_RETRY_CNT, "IBV_QP_RETRY_CNT" },
	{ IBV_QP_RNR_RETRY, "IBV_QP_RNR_RETRY" },
	{ IBV_QP_MIN_RNR_TIMER, "IBV_QP_MIN_RNR_TIMER" },
	{ IBV_QP_MAX_QP_RD_ATOMIC, "IBV_QP_MAX_QP_RD_ATOMIC" },
	{ IBV_QP_MAX_DEST_RD_ATOMIC, "IBV_QP_MAX_DEST_RD_ATOMIC" },
	{ IBV_QP_ALT_PATH, "IBV_QP_ALT_PATH" },
	{ IBV_QP_PATH_MIG_STATE, "IBV_QP_PATH_MIG_STATE" },
};

static const struct bit_name mnames[] = {
	{ MRC_QP_HINT, "MRC_QP_HINT" },
	{ MRC_EV_PROFILE_ID, "MRC_EV_PROFILE_ID" },
	{ MRC_CC_PROFILE_ID, "MRC_CC_PROFILE_ID" },
	{ MRC_QP_MAX_WIMM_DEST, "MRC_QP_MAX_WIMM_DEST" },
	{ MRC_QP_MPR_DEST, "MRC_QP_MPR_DEST" },
	{ MRC_QP_DYNAMIC_MPR_DEST, "MRC_QP_DYNAMIC_MPR_DEST" },
	{ MRC_QP_MAX_WIMM, "MRC_QP_MAX_WIMM" },
	{ MRC_QP_MPR, "MRC_QP_MPR" },
	{ MRC_QP_RETRY_CNT, "MRC_QP_RETRY_CNT" },
	{ MRC_QP_TIMEOUT, "MRC_QP_TIMEOUT" },
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* The MRC attributes OCP requires for a transition (0: none). */
static int required(enum ibv_qp_state from, enum ibv_qp_state to)
{
	if (from == IBV_QPS_RESET && to == IBV_QPS_INIT)
		return MRC_QP_HINT | MRC_EV_PROFILE_ID | MRC_CC_PROFILE_ID;
	if (from == IBV_QPS_INIT && to == IBV_QPS_RTR)
		return MRC_QP_MAX_WIMM_DEST | MRC_QP_MPR_DEST |
		       MRC_QP_DYNAMIC_MPR_DEST;
	if (from == IBV_QPS_RTR && to == IBV_QPS_RTS)
		return MRC_QP_MAX_WIMM | MRC_QP_MPR | MRC_QP_RETRY_CNT |
		       MRC_QP_TIMEOUT;
	return 0;
}

/*
 * IB's 5-bit local ACK timeout has the same formula up to 24; 0 there
 * means "wait forever", which MRC does not have: the longest it has
 * (24, about 17 s) is the nearest.
 */
static uint8_t map_timeout(uint8_t ib)
{
	return !ib || ib > 24 ? 24 : ib;
}

/* Default of one missing required MRC attribute. */
static void set_default(struct mrc_qp_attr *m, int bit,
			const struct mrc_device_attr *dev)
{
	switch (bit) {
	case MRC_QP_HINT:
		m->qp_hint = NULL;
		break;
	case MRC_EV_PROFILE_ID:
		m->profile.ev_profile_id = 0; /* the device's own EVs */
		break;
	case MRC_CC_PROFILE_ID:
		m->profile.cc_profile_id = COMPAT_CC_PROFILE_DEFAULT;
		break;
	case MRC_QP_MAX_WIMM_DEST:
		m->wimm.max_wimm_dest = dev->wimm_attr.max_wimm_dest;
		break;
	case MRC_QP_MPR_DEST:
		m->mpr.mpr_dest = dev->mpr_attr.max_mpr;
		break;
	case MRC_QP_DYNAMIC_MPR_DEST:
		m->mpr.dynamic_mpr_dest = 0;
		break;
	case MRC_QP_MAX_WIMM:
		m->wimm.max_wimm = dev->wimm_attr.max_wimm;
		break;
	case MRC_QP_MPR:
		m->mpr.mpr = dev->mpr_attr.max_mpr;
		break;
	case MRC_QP_RETRY_CNT:
		m->retry.linear_cnt = COMPAT_RETRY_LINEAR_DEFAULT;
		m->retry.exp_cnt = COMPAT_RETRY_EXP_DEFAULT;
		break;
	case MRC_QP_TIMEOUT:
		m->timeout = COMPAT_TIMEOUT_DEFAULT;
		break;
	}
}

static const char *verbs_fate(int bit, bool strict)
{
	if (bit & V_REFUSED)
		return "not supported by the OCP MRC API: refused";
	if (strict)
		return "not supported by the OCP MRC API: refused (MRC_STRICT=1)";
	if (bit == IBV_QP_TIMEOUT)
		return "not supported by the OCP MRC API: taken as MRC_QP_TIMEOUT";
	if (bit == IBV_QP_RETRY_CNT)
		return "not supported by the OCP MRC API: taken as MRC_QP_RETRY_CNT linear retries";
	return "not supported by the OCP MRC API: ignored";
}

int compat_qp_attrs(const struct compat_qp_in *in, struct compat_qp_out *out,
		    compat_say_fn say, void *arg)
{
	int unsup = in->vmask & (V_IGNORED | V_MAPPED | V_REFUSED);
	int missing = required(in->from, in->to) & ~in->mmask;
	/* What the verbs attributes given will stand for. */
	int mapped = (in->vmask & IBV_QP_TIMEOUT ? MRC_QP_TIMEOUT : 0) |
		     (in->vmask & IBV_QP_RETRY_CNT ? MRC_QP_RETRY_CNT : 0);
	bool refused = false;
	unsigned int i;

	memset(out, 0, sizeof(*out));
	if (in->mmask && in->mattr)
		out->mattr = *in->mattr;
	out->mmask = in->mmask;
	/* Name every reason first: a refusal lists them all at once. */
	for (i = 0; i < ARRAY_LEN(vnames); i++) {
		bool no = in->strict || (vnames[i].bit & V_REFUSED);

		if (!(unsup & vnames[i].bit))
			continue;
		say(arg, vnames[i].name, verbs_fate(vnames[i].bit, in->strict),
		    no);
		refused |= no;
	}
	for (i = 0; i < ARRAY_LEN(mnames); i++) {
		if (!(missing & mnames[i].bit) ||
		    (!in->strict && (mapped & mnames[i].bit)))
			continue;
		say(arg, mnames[i].name,
		    in->strict ?
			    "required by the OCP MRC API, not given: refused (MRC_STRICT=1)" :
			    "required by the OCP MRC API, not given: the default taken",
		    in->strict);
		refused |= in->strict;
	}
	if (refused)
		return -EINVAL;
	/* An MRC attribute given wins over the verbs one it replaces. */
	if ((in->vmask & IBV_QP_TIMEOUT) && !(out->mmask & MRC_QP_TIMEOUT)) {
		out->mattr.timeout = map_timeout(in->vattr->timeout);
		out->mmask |= MRC_QP_TIMEOUT;
		missing &= ~MRC_QP_TIMEOUT;
	}
	if ((in->vmask & IBV_QP_RETRY_CNT) &&
	    !(out->mmask & MRC_QP_RETRY_CNT)) {
		/* IB's 3-bit count; some programs pass more: 7 at most. */
		out->mattr.retry.linear_cnt =
			in->vattr->retry_cnt > 7 ? 7 : in->vattr->retry_cnt;
		out->mattr.retry.exp_cnt = 0;
		out->mmask |= MRC_QP_RETRY_CNT;
		missing &= ~MRC_QP_RETRY_CNT;
	}
	for (i = 0; i < ARRAY_LEN(mnames); i++)
		if (missing & mnames[i].bit)
			set_default(&out->mattr, mnames[i].bit, in->dev);
	out->mmask |= missing;
	out->vmask = in->vmask & ~(V_IGNORED | V_MAPPED);
	return 0;
}

/*
 * Read at each call, not once: a transition costs a round trip to mrcd
 * anyway, and a test may check both modes in one process.
 */
bool compat_strict(void)
{
	return compat_strict_value(getenv(COMPAT_STRICT_ENV));
}

static const char *state_name(enum ibv_qp_state s)
{
	static const char *const names[] = { "RESET", "INIT", "RTR", "RTS",
					     "SQD",   "SQE",  "ERR" };

	return (unsigned int)s < sizeof(names) / sizeof(names[0]) ? names[s] :
								    "?";
}

void compat_say_log(void *arg, const char *what, const char *why, bool refused)
{
	const struct compat_say_ctx *c = arg;

	if (refused)
		lib_err("QP %u %s->%s: %s: %s\n", c->qpn, state_name(c->from),
			state_name(c->to), what, why);
	else
		lib_info("QP %u %s->%s: %s: %s\n", c->qpn, state_name(c->from),
			 state_name(c->to), what, why);
}
