// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl ev-profile usid: an SRv6 EV profile for the testbed's uSID plan
 * in one command (the plan and its fields: usid_plan.c). It makes the
 * format profile SRV6 with widths 32,16,4,12 (or keeps it when it is
 * that already), then the EV profile, generated, spines x planes EVs,
 * ONLINE, and prints the EVs it made as `ev-profile evs` does.
 *
 * Generated entry i goes to the device's (i mod ports)-th port and names
 * plane i mod planes (the plane counts fastest), so plane P leaves by
 * the P-th port only when there are as many ports as planes: checked
 * first, before anything changes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mrcctl.h"

/* What the device must offer for the plan u. */
static int usid_device_check(const struct usid_plan *u)
{
	struct mrc_ctl_device_attr d;
	uint32_t count = u->spines * u->planes;
	int rc, nports;

	rc = ctl_query_device(&d);
	if (rc)
		return rc;
	if (!(d.ev.ev_fmt_mode_mask & MRC_CTL_EV_FMT_MODE_SRV6))
		return err_runtime("ev-profile usid: the device has no SRV6"
				   " EV format mode");
	nports = __builtin_popcount(d.phy_port_mask);
	if ((int)u->planes != nports)
		return err_runtime("ev-profile usid: planes %u, but the device"
				   " has %d ports: EV i names plane i mod"
				   " planes and leaves by port (i mod ports)"
				   " + 1, so give planes %d",
				   u->planes, nports, nports);
	if (count > d.ev.ev_max_count_profile)
		return err_runtime("ev-profile usid: spines %u x planes %u ="
				   " %u EVs, more than the %u of an EV"
				   " profile",
				   u->spines, u->planes, count,
				   d.ev.ev_max_count_profile);
	return 0;
}

static int evp_state(struct mrc_context *ctx, uint64_t id, uint32_t *state)
{
	struct mrc_ctl_ev_profile_attr attr = { 0 };
	int rc;

	errno = 0;
	rc = mrc_ctl_query_ev_profile(ctx, id, &attr,
				      MRC_CTL_EV_PROFILE_CUR_STATE);
	if (rc)
		return err_api(api_errno(rc), "mrc_ctl_query_ev_profile",
			       "ev-profile %" PRIu64, id);
	*state = attr.cur_profile_state;
	return 0;
}

/* EV profile id to state to (STATE alone; ONLINE with what it needs). */
static int evp_to(struct mrc_context *ctx, uint64_t id, uint32_t to)
{
	struct mrc_ctl_ev_profile_attr attr = { 0 };
	int rc, err;

	attr.profile_state = to;
	errno = 0;
	rc = mrc_ctl_modify_ev_profile(ctx, id, &attr,
				       MRC_CTL_EV_PROFILE_STATE);
	if (!rc)
		return 0;
	err = api_errno(rc);
	if (err == EBUSY)
		return err_runtime("ev-profile %" PRIu64 " is ONLINE and QPs"
				   " hold it: not replaced (destroy or reset"
				   " them first)",
				   id);
	return err_api(err, "mrc_ctl_modify_ev_profile",
		       "ev-profile %" PRIu64 ": to %s", id,
		       profile_state_name(to));
}

static int fmt_modify(struct mrc_context *ctx, uint64_t id,
		      struct mrc_ctl_ev_fmt_profile_attr *attr, int mask)
{
	int rc;

	errno = 0;
	rc = mrc_ctl_modify_ev_fmt_profile(ctx, id, attr, mask);
	if (!rc)
		return 0;
	if (api_errno(rc) == EBUSY)
		return err_runtime("ev-fmt %" PRIu64 " is ONLINE and an ONLINE"
				   " EV profile uses it: not replaced (take"
				   " that profile offline, or give another"
				   " fmt)",
				   id);
	return err_api(api_errno(rc), "mrc_ctl_modify_ev_fmt_profile",
		       "ev-fmt %" PRIu64, id);
}

/* Whether format profile id is the plan's format ff, ONLINE. */
static int fmt_is(const struct mrc_ctl_ev_fmt_profile_attr *attr,
		  const struct mrc_ctl_ev_fmt_field *cur, int n,
		  const struct mrc_ctl_ev_fmt_field *ff)
{
	int i;

	if (attr->cur_profile_state != MRC_CTL_PROFILE_ONLINE ||
	    attr->ev_fmt_mode != MRC_CTL_EV_FMT_MODE_SRV6 || n != USID_FIELDS)
		return 0;
	for (i = 0; i < n; i++)
		if (cur[i].width != ff[i].width)
			return 0;
	return 1;
}

/* Format profile id as the plan's format ff, ONLINE. */
static int usid_fmt(struct mrc_context *ctx, uint64_t id,
		    struct mrc_ctl_ev_fmt_field *ff)
{
	struct mrc_ctl_ev_fmt_profile_attr attr;
	struct mrc_ctl_ev_fmt_field *cur;
	int rc, n, same;

	rc = fmt_query(ctx, id, &attr, &cur, &n);
	if (rc)
		return rc;
	same = fmt_is(&attr, cur, n, ff);
	free(cur);
	if (same)
		return 0; /* other profiles may use it: left alone */
	if (attr.cur_profile_state == MRC_CTL_PROFILE_ONLINE) {
		attr.profile_state = MRC_CTL_PROFILE_OFFLINE;
		rc = fmt_modify(ctx, id, &attr, MRC_CTL_EV_FMT_PROFILE_STATE);
		if (rc)
			return rc;
	}
	memset(&attr, 0, sizeof(attr));
	attr.profile_state = MRC_CTL_PROFILE_OFFLINE;
	attr.ev_fmt_mode = MRC_CTL_EV_FMT_MODE_SRV6;
	attr.ev_fmt_op.op = MRC_CTL_EV_FMT_OP_MODIFY_FIELDS;
	attr.ev_fmt_op.fmt_fields = ff;
	attr.ev_fmt_op.fmt_field_count = USID_FIELDS;
	rc = fmt_modify(ctx, id, &attr,
			MRC_CTL_EV_FMT_PROFILE_STATE |
				MRC_CTL_EV_FMT_PROFILE_MODE |
				MRC_CTL_EV_FMT_PROFILE_OP);
	if (rc)
		return rc;
	attr.profile_state = MRC_CTL_PROFILE_ONLINE;
	return fmt_modify(ctx, id, &attr, MRC_CTL_EV_FMT_PROFILE_STATE);
}

/* EV profile u->id, generated from f, to OFFLINE and then ONLINE. */
static int usid_evp(struct mrc_context *ctx, const struct usid_plan *u,
		    struct mrc_ctl_ev_field *f)
{
	struct mrc_ctl_ev_profile_attr attr = { 0 };
	int rc;

	attr.profile_state = MRC_CTL_PROFILE_OFFLINE;
	attr.ev_mode = MRC_CTL_EV_MODE_GEN;
	attr.ev_fmt_profile_id = u->fmt_id;
	attr.ev_count = u->spines * u->planes;
	attr.ev_min_active = 1;
	attr.ev_event_mask = MRC_CTL_EV_GOOD | MRC_CTL_EV_ASSUMED_BAD;
	attr.ev_fields_op.op = MRC_CTL_EV_FIELDS_OP_MODIFY_FIELDS;
	attr.ev_fields_op.fields = f;
	attr.ev_fields_op.field_count = USID_FIELDS;
	errno = 0;
	rc = mrc_ctl_modify_ev_profile(
		ctx, u->id, &attr,
		MRC_CTL_EV_PROFILE_STATE | MRC_CTL_EV_PROFILE_MODE |
			MRC_CTL_EV_PROFILE_FMT_ID | MRC_CTL_EV_PROFILE_COUNT |
			MRC_CTL_EV_PROFILE_MIN_ACTIVE |
			MRC_CTL_EV_PROFILE_EVENT_MASK |
			MRC_CTL_EV_PROFILE_EV_FIELDS_OP);
	if (rc)
		return err_api(api_errno(rc), "mrc_ctl_modify_ev_profile",
			       "ev-profile %" PRIu64, u->id);
	return evp_to(ctx, u->id, MRC_CTL_PROFILE_ONLINE);
}

int evp_do_usid(struct args *a)
{
	struct mrc_ctl_ev_fmt_field ff[USID_FIELDS];
	struct mrc_ctl_ev_field f[USID_FIELDS];
	struct mrc_context *ctx = NULL;
	struct usid_plan u;
	uint32_t state = MRC_CTL_PROFILE_INIT;
	int rc, was_online;

	rc = usid_parse(a, &u);
	if (!rc)
		rc = ctl_open(&ctx);
	if (!rc)
		rc = usid_device_check(&u);
	if (!rc)
		rc = evp_state(ctx, u.id, &state);
	if (rc)
		return rc;
	usid_fields(&u, ff, f);
	/* The profile first: it may be the one using the format. */
	was_online = state == MRC_CTL_PROFILE_ONLINE;
	if (was_online) {
		rc = evp_to(ctx, u.id, MRC_CTL_PROFILE_OFFLINE);
		if (rc)
			return rc;
	}
	rc = usid_fmt(ctx, u.fmt_id, ff);
	if (rc && was_online) {
		/*
		 * Nothing was replaced: the profile back as it was, quietly
		 * (the error to report is the format's).
		 */
		struct mrc_ctl_ev_profile_attr back = {
			.profile_state = MRC_CTL_PROFILE_ONLINE,
		};

		mrc_ctl_modify_ev_profile(ctx, u.id, &back,
					  MRC_CTL_EV_PROFILE_STATE);
	}
	if (rc)
		return rc;
	rc = usid_evp(ctx, &u, f);
	return rc ? rc : evp_print_evs(ctx, u.id);
}
