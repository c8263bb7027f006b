// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl ev-profile show and evs: EV profiles, the EVs the QPs that name
 * them spray over (mrc_ctl_query_ev_profile), and the EV array of one
 * with each EV's state (EV op QUERY_EV_ARRAY) and, for an SRv6 format,
 * the path each EV names. The commands that change a profile are in
 * ev_profile_set.c and ev_profile_usid.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mrcctl.h"

#define EVP_ALL                                                          \
	(MRC_CTL_EV_PROFILE_FMT_ID | MRC_CTL_EV_PROFILE_COUNT |          \
	 MRC_CTL_EV_PROFILE_MIN_ACTIVE | MRC_CTL_EV_PROFILE_EVENT_MASK | \
	 MRC_CTL_EV_PROFILE_EV_FIELDS_OP)

static int evp_fields(struct mrc_context *ctx, uint64_t id,
		      struct mrc_ctl_ev_profile_attr *attr,
		      struct mrc_ctl_ev_field **fp, int *nf)
{
	struct mrc_ctl_ev_field *f = NULL;
	int rc, e, max = MRC_EV_MAX_FIELDS, tries;

	for (tries = 0; tries < 4; tries++) {
		f = xrealloc(f, (size_t)max, sizeof(*f));
		attr->ev_fields_op.op = MRC_CTL_EV_FIELDS_OP_QUERY_FIELDS;
		attr->ev_fields_op.fields = f;
		attr->ev_fields_op.field_count = max;
		errno = 0;
		rc = mrc_ctl_query_ev_profile(ctx, id, attr, EVP_ALL);
		e = rc ? api_errno(rc) : 0;
		if (!rc && attr->ev_fields_op.field_count >= 0 &&
		    attr->ev_fields_op.field_count <= max) {
			*fp = f;
			*nf = attr->ev_fields_op.field_count;
			return 0;
		}
		/* E2BIG: the array was short, the count says how long. */
		if (rc && (e != E2BIG || attr->ev_fields_op.field_count <= max))
			break;
		max = attr->ev_fields_op.field_count;
	}
	free(f);
	return err_api(e ? e : EPROTO, "mrc_ctl_query_ev_profile",
		       "ev-profile %" PRIu64, id);
}

int evp_query(struct mrc_context *ctx, uint64_t id,
	      struct mrc_ctl_ev_profile_attr *attr, struct mrc_ctl_ev_field **f,
	      int *nf)
{
	int rc;

	*f = NULL;
	*nf = 0;
	memset(attr, 0, sizeof(*attr));
	errno = 0;
	rc = mrc_ctl_query_ev_profile(ctx, id, attr,
				      MRC_CTL_EV_PROFILE_CUR_STATE |
					      MRC_CTL_EV_PROFILE_MODE);
	if (rc)
		return err_api(api_errno(rc), "mrc_ctl_query_ev_profile",
			       "ev-profile %" PRIu64, id);
	if (attr->cur_profile_state == MRC_CTL_PROFILE_INIT)
		return 0;
	if (attr->ev_mode != MRC_CTL_EV_MODE_AUTO)
		return evp_fields(ctx, id, attr, f, nf);
	/* AUTO: the device picks the EVs; there is no format, no field. */
	errno = 0;
	rc = mrc_ctl_query_ev_profile(ctx, id, attr,
				      MRC_CTL_EV_PROFILE_COUNT |
					      MRC_CTL_EV_PROFILE_MIN_ACTIVE |
					      MRC_CTL_EV_PROFILE_EVENT_MASK);
	if (rc)
		return err_api(api_errno(rc), "mrc_ctl_query_ev_profile",
			       "ev-profile %" PRIu64, id);
	return 0;
}

int evp_ev_modify(struct mrc_context *ctx, uint64_t id, enum mrc_ctl_ev_op op,
		  struct mrc_ctl_ev_op_entry *e)
{
	struct mrc_ctl_ev_profile_attr attr = { 0 };
	int rc;

	attr.ev_op.op = op;
	attr.ev_op.entries = e;
	attr.ev_op.entry_count = 1;
	errno = 0;
	rc = mrc_ctl_modify_ev_profile(ctx, id, &attr,
				       MRC_CTL_EV_PROFILE_EV_OP);
	if (rc && op == MRC_CTL_EV_OP_REPLACE_EV)
		return err_api(api_errno(rc), "mrc_ctl_modify_ev_profile",
			       "ev-profile %" PRIu64 ": replace ev 0x%x port %u"
			       " with 0x%x port %u",
			       id, ev_val(&e->ev), e->ev.port,
			       ev_val(&e->ev_new), e->ev_new.port);
	if (rc)
		return err_api(api_errno(rc), "mrc_ctl_modify_ev_profile",
			       "ev-profile %" PRIu64 ": ev 0x%x port %u", id,
			       ev_val(&e->ev), e->ev.port);
	return 0;
}

static void put_events(struct tbl *t, int mask)
{
	struct jv *arr = jv_arr();
	int good = mask & MRC_CTL_EV_GOOD, bad = mask & MRC_CTL_EV_ASSUMED_BAD;

	if (good)
		jv_add(arr, NULL, jv_str("good"));
	if (bad)
		jv_add(arr, NULL, jv_str("bad"));
	tbl_put(t, "events", "EVENTS", 0,
		xstrdup(good && bad ? "good,bad" :
			good	    ? "good" :
			bad	    ? "bad" :
				      "none"),
		arr);
}

static void put_fields(struct tbl *t, const struct mrc_ctl_ev_field *f, int nf)
{
	struct jv *arr = jv_arr(), *o;
	char *s = xstrdup(""), *n;
	int i;

	for (i = 0; i < nf; i++) {
		o = jv_add(arr, NULL, jv_obj());
		jv_add(o, "width_bits", jv_u64(f[i].width));
		jv_add(o, "init_val", jv_u64(f[i].init_val));
		jv_add(o, "min_val", jv_u64(f[i].min_val));
		jv_add(o, "max_val", jv_u64(f[i].max_val));
		jv_add(o, "mask", jv_u64(f[i].mask));
		n = xasprintf("%s%s%u:0x%x:%u-%u:0x%x", s, i ? " " : "",
			      f[i].width, f[i].init_val, f[i].min_val,
			      f[i].max_val, f[i].mask);
		free(s);
		s = n;
	}
	if (!nf) {
		free(s);
		s = xstrdup("-");
	}
	tbl_put(t, "fields", "FIELDS(width:init:min-max:mask)", 0, s, arr);
}

static void evp_row(struct tbl *t, uint64_t id,
		    const struct mrc_ctl_ev_profile_attr *attr,
		    const struct mrc_ctl_ev_field *f, int nf)
{
	int init = attr->cur_profile_state == MRC_CTL_PROFILE_INIT;
	int fmt = !init && attr->ev_mode != MRC_CTL_EV_MODE_AUTO;

	tbl_row(t);
	tbl_u64(t, "id", "ID", id);
	tbl_str(t, "state", "STATE",
		profile_state_name(attr->cur_profile_state));
	tbl_str(t, "mode", "MODE", init ? NULL : ev_mode_name(attr->ev_mode));
	if (fmt)
		tbl_u64(t, "fmt_id", "FMT", attr->ev_fmt_profile_id);
	else
		tbl_none(t, "fmt_id", "FMT");
	if (init) {
		tbl_none(t, "ev_count", "EVS");
		tbl_none(t, "ev_min_active", "MIN_ACTIVE(EVs)");
		tbl_none(t, "events", "EVENTS");
	} else {
		tbl_u64(t, "ev_count", "EVS", attr->ev_count);
		tbl_u64(t, "ev_min_active", "MIN_ACTIVE(EVs)",
			attr->ev_min_active);
		put_events(t, attr->ev_event_mask);
	}
	put_fields(t, f, nf);
}

static uint32_t evp_max(const struct mrc_ctl_device_attr *d)
{
	return d->ev.ev_max_profiles;
}

static int evp_show_one(struct mrc_context *ctx, uint64_t id, int all,
			struct tbl *t)
{
	struct mrc_ctl_ev_profile_attr attr;
	struct mrc_ctl_ev_field *f;
	int nf, rc = evp_query(ctx, id, &attr, &f, &nf);

	if (rc)
		return rc;
	if (!all || attr.cur_profile_state != MRC_CTL_PROFILE_INIT)
		evp_row(t, id, &attr, f, nf);
	free(f);
	return 0;
}

static int do_show(struct args *a)
{
	return profile_show(a, evp_max, evp_show_one);
}

/* The EV array of profile id with states; *ents is the caller's. */
static int evp_array(struct mrc_context *ctx, uint64_t id,
		     struct mrc_ctl_ev_op_entry **ents, int *n)
{
	struct mrc_ctl_ev_profile_attr attr = { 0 };
	struct mrc_ctl_ev_op_entry *e = NULL;
	int rc, err, max, tries;

	errno = 0;
	rc = mrc_ctl_query_ev_profile(ctx, id, &attr, MRC_CTL_EV_PROFILE_COUNT);
	if (rc)
		return err_api(api_errno(rc), "mrc_ctl_query_ev_profile",
			       "ev-profile %" PRIu64, id);
	max = attr.ev_count > 0 && attr.ev_count < INT32_MAX ?
		      (int)attr.ev_count :
		      1;
	for (tries = 0; tries < 4; tries++) {
		e = xrealloc(e, (size_t)max, sizeof(*e));
		memset(e, 0, (size_t)max * sizeof(*e));
		attr.ev_op.op = MRC_CTL_EV_OP_QUERY_EV_ARRAY;
		attr.ev_op.entries = e;
		attr.ev_op.entry_count = max;
		errno = 0;
		rc = mrc_ctl_query_ev_profile(ctx, id, &attr,
					      MRC_CTL_EV_PROFILE_EV_OP);
		err = rc ? api_errno(rc) : 0;
		if (!rc && attr.ev_op.entry_count >= 0 &&
		    attr.ev_op.entry_count <= max) {
			*ents = e;
			*n = attr.ev_op.entry_count;
			return 0;
		}
		if (rc && (err != E2BIG || attr.ev_op.entry_count <= max))
			break;
		max = attr.ev_op.entry_count;
	}
	free(e);
	return err_api(err ? err : EPROTO, "mrc_ctl_query_ev_profile",
		       "ev-profile %" PRIu64 " EV array", id);
}

int evp_print_evs(struct mrc_context *ctx, uint64_t id)
{
	struct mrc_ctl_ev_op_entry *e = NULL;
	struct ev_expander x;
	struct tbl *t;
	int rc, i, n = 0, populated;

	rc = evp_array(ctx, id, &e, &n);
	if (!rc)
		rc = ev_expander_load(ctx, id, &x);
	if (rc) {
		free(e);
		return rc;
	}
	t = tbl_new();
	for (i = 0; i < n; i++) {
		populated = ev_val(&e[i].ev) || e[i].ev.port;
		tbl_row(t);
		tbl_u64(t, "idx", "IDX", (uint64_t)i);
		tbl_hex(t, "ev", "EV", ev_val(&e[i].ev));
		tbl_u64(t, "port", "PORT", e[i].ev.port);
		tbl_str(t, "state", "STATE",
			populated ? ev_state_str(e[i].state) : NULL);
		tbl_bool(t, "populated", "POPULATED", populated);
		/* An SRV6 format's EVs: the path each names. */
		if (x.fmt_mode == MRC_CTL_EV_FMT_MODE_SRV6 && !populated)
			put_srv6_none(t);
		else
			put_srv6_ev(t, &x, ev_val(&e[i].ev));
	}
	tbl_print_list(t, out, opts.json, opts.pretty);
	tbl_free(t);
	ev_expander_free(&x);
	free(e);
	return 0;
}

static int do_evs(struct args *a)
{
	struct mrc_context *ctx = NULL;
	uint64_t id;
	int rc;

	rc = arg_u64(a, "ID", 0, UINT64_MAX, &id);
	if (!rc)
		rc = arg_end(a);
	if (!rc)
		rc = ctl_open(&ctx);
	return rc ? rc : evp_print_evs(ctx, id);
}

static const struct cmd cmds[] = {
	{ "show", do_show },   { "set", evp_do_set },
	{ "add", evp_do_add }, { "replace", evp_do_replace },
	{ "evs", do_evs },     { "usid", evp_do_usid },
};

static const char *const usage[] = {
	"show [ ID ]",
	"set ID [ mode { exp | gen } ] [ fmt ID ] [ count N ] [ min-active N ]",
	"  [ events EVENTS ] [ field FIELD ]... [ state STATE ]",
	"add ID ev VAL port P [ denied ]",
	"replace ID ev VAL port P with VAL port P [ all ] [ denied ]",
	"evs ID",
	"usid ID fmt ID block PREFIX spines N planes N host H",
	NULL,
};

static const char *const defs[] = {
	"EVENTS := { good | bad | good,bad | none }",
	"FIELD := width W [ init V ] [ min A ] [ max B ] [ mask M ]",
	"PREFIX := a 32-bit uSID block (F3216), e.g. fdbb:bb00",
	HELP_PROFILE_STATE,
	HELP_EV,
	HELP_NUMBER,
	NULL,
};

const struct object obj_ev_profile = {
	.name = "ev-profile",
	.what = "EV profiles: the EVs QPs spray over, explicit or generated",
	.cmds = cmds,
	.ncmds = ARRAY_SIZE(cmds),
	.usage = usage,
	.defs = defs,
};
