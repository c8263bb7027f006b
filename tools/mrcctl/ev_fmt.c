// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl ev-fmt: EV format profiles, where an EV goes in a packet (mode)
 * and the fields it is made of (mrc_ctl_query_ev_fmt_profile,
 * mrc_ctl_modify_ev_fmt_profile).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mrcctl.h"

int fmt_query(struct mrc_context *ctx, uint64_t id,
	      struct mrc_ctl_ev_fmt_profile_attr *attr,
	      struct mrc_ctl_ev_fmt_field **ff, int *nff)
{
	struct mrc_ctl_ev_fmt_field *f = NULL;
	int rc, e, max = MRC_EV_FMT_MAX_FIELDS, tries;

	*ff = NULL;
	*nff = 0;
	memset(attr, 0, sizeof(*attr));
	errno = 0;
	rc = mrc_ctl_query_ev_fmt_profile(ctx, id, attr,
					  MRC_CTL_EV_FMT_PROFILE_CUR_STATE);
	if (rc)
		return err_api(api_errno(rc), "mrc_ctl_query_ev_fmt_profile",
			       "ev-fmt %" PRIu64, id);
	if (attr->cur_profile_state == MRC_CTL_PROFILE_INIT)
		return 0;
	for (tries = 0; tries < 4; tries++) {
		f = xrealloc(f, (size_t)max, sizeof(*f));
		attr->ev_fmt_op.op = MRC_CTL_EV_FMT_OP_QUERY_FIELDS;
		attr->ev_fmt_op.fmt_fields = f;
		attr->ev_fmt_op.fmt_field_count = max;
		errno = 0;
		rc = mrc_ctl_query_ev_fmt_profile(
			ctx, id, attr,
			MRC_CTL_EV_FMT_PROFILE_MODE |
				MRC_CTL_EV_FMT_PROFILE_OP);
		e = rc ? api_errno(rc) : 0;
		if (!rc && attr->ev_fmt_op.fmt_field_count >= 0 &&
		    attr->ev_fmt_op.fmt_field_count <= max) {
			*ff = f;
			*nff = attr->ev_fmt_op.fmt_field_count;
			return 0;
		}
		/* E2BIG: the array was short, the count says how long. */
		if (rc &&
		    (e != E2BIG || attr->ev_fmt_op.fmt_field_count <= max))
			break;
		max = attr->ev_fmt_op.fmt_field_count;
	}
	free(f);
	return err_api(e ? e : EPROTO, "mrc_ctl_query_ev_fmt_profile",
		       "ev-fmt %" PRIu64 " fields", id);
}

static void fmt_row(struct tbl *t, uint64_t id,
		    const struct mrc_ctl_ev_fmt_profile_attr *attr,
		    const struct mrc_ctl_ev_fmt_field *ff, int nff)
{
	struct jv *arr = jv_arr();
	char *s = xstrdup(""), *n;
	int i;

	tbl_row(t);
	tbl_u64(t, "id", "ID", id);
	tbl_str(t, "state", "STATE",
		profile_state_name(attr->cur_profile_state));
	if (attr->cur_profile_state == MRC_CTL_PROFILE_INIT) {
		tbl_none(t, "mode", "MODE");
		tbl_none(t, "width_bits", "WIDTH(bits)");
	} else {
		tbl_str(t, "mode", "MODE", fmt_mode_name(attr->ev_fmt_mode));
		tbl_u64(t, "width_bits", "WIDTH(bits)", ev_fmt_width(ff, nff));
	}
	for (i = 0; i < nff; i++) {
		jv_add(arr, NULL, jv_u64(ff[i].width));
		n = xasprintf("%s%s%u", s, i ? "," : "", ff[i].width);
		free(s);
		s = n;
	}
	if (!nff) {
		free(s);
		s = xstrdup("-");
	}
	tbl_put(t, "field_widths_bits", "FIELDS(bits)", 0, s, arr);
}

static uint32_t fmt_max(const struct mrc_ctl_device_attr *d)
{
	return d->ev.ev_max_fmt_profiles;
}

static int fmt_show_one(struct mrc_context *ctx, uint64_t id, int all,
			struct tbl *t)
{
	struct mrc_ctl_ev_fmt_profile_attr attr;
	struct mrc_ctl_ev_fmt_field *ff;
	int nff, rc = fmt_query(ctx, id, &attr, &ff, &nff);

	if (rc)
		return rc;
	if (!all || attr.cur_profile_state != MRC_CTL_PROFILE_INIT)
		fmt_row(t, id, &attr, ff, nff);
	free(ff);
	return 0;
}

static int do_show(struct args *a)
{
	return profile_show(a, fmt_max, fmt_show_one);
}

/* "8,8,16": the widths of a format's fields. */
static int parse_widths(struct args *a, struct mrc_ctl_ev_fmt_field **ff,
			int *nff)
{
	char *list, *w, *save = NULL;
	uint64_t v;
	int n = 0;

	if (!args_left(a))
		return err_usage("missing value for 'fields' (want W[,W...])");
	list = xstrdup(a->argv[a->i++]);
	for (w = strtok_r(list, ",", &save); w;
	     w = strtok_r(NULL, ",", &save)) {
		/* Over 32 only an SRV6 format's total leaves room for. */
		if (parse_u64(w, &v) || v < 1 || v > UINT8_MAX) {
			err_usage(
				"bad width '%s' in 'fields' (want 1..255 bits)",
				w);
			free(list);
			return MRCCTL_EXIT_USAGE;
		}
		*ff = xrealloc(*ff, (size_t)n + 1, sizeof(**ff));
		(*ff)[n++].width = (uint8_t)v;
	}
	free(list);
	if (!n)
		return err_usage("missing value for 'fields' (want W[,W...])");
	*nff = n;
	return 0;
}

enum { FK_MODE, FK_FIELDS, FK_STATE };
static const char *const set_kws[] = { "mode", "fields", "state" };

static int do_set(struct args *a)
{
	struct mrc_ctl_ev_fmt_profile_attr attr = { 0 };
	struct mrc_ctl_ev_fmt_field *ff = NULL;
	struct mrc_context *ctx = NULL;
	unsigned int seen = 0;
	int rc, idx, w, nff = 0, mask = 0;
	uint64_t id;

	rc = arg_u64(a, "ID", 0, UINT64_MAX, &id);
	while (!rc && args_left(a)) {
		rc = arg_keyword(a, set_kws, ARRAY_SIZE(set_kws), &idx);
		if (!rc)
			rc = arg_once(&seen, idx, set_kws);
		if (rc)
			break;
		switch (idx) {
		case FK_MODE:
			rc = arg_choice(a, "mode", fmt_mode_words,
					ARRAY_SIZE(fmt_mode_words), &w);
			attr.ev_fmt_mode = rc ? 0 : fmt_mode_values[w];
			mask |= MRC_CTL_EV_FMT_PROFILE_MODE;
			break;
		case FK_FIELDS:
			rc = parse_widths(a, &ff, &nff);
			attr.ev_fmt_op.op = MRC_CTL_EV_FMT_OP_MODIFY_FIELDS;
			mask |= MRC_CTL_EV_FMT_PROFILE_OP;
			break;
		case FK_STATE:
			rc = arg_choice(a, "state", profile_state_words,
					ARRAY_SIZE(profile_state_words), &w);
			attr.profile_state = (enum mrc_ctl_profile_state)w;
			mask |= MRC_CTL_EV_FMT_PROFILE_STATE;
			break;
		}
	}
	if (!rc && !mask)
		rc = err_usage("'%s' needs one of mode, fields, state", a->cmd);
	if (!rc)
		rc = ctl_open(&ctx);
	if (!rc) {
		attr.ev_fmt_op.fmt_fields = ff;
		attr.ev_fmt_op.fmt_field_count = nff;
		errno = 0;
		rc = mrc_ctl_modify_ev_fmt_profile(ctx, id, &attr, mask);
		if (rc)
			rc = err_api(api_errno(rc),
				     "mrc_ctl_modify_ev_fmt_profile",
				     "ev-fmt %" PRIu64, id);
	}
	free(ff);
	if (!rc)
		print_null();
	return rc;
}

static const struct cmd cmds[] = {
	{ "show", do_show },
	{ "set", do_set },
};

static const char *const usage[] = {
	"show [ ID ]",
	"set ID [ mode { stev | udp | srv6 } ] [ fields W[,W...] ]"
	" [ state STATE ]",
	NULL,
};

static const char *const defs[] = {
	HELP_PROFILE_STATE,
	"W := a field's width in bits, 1..255 (over 32: SRV6), most"
	" significant field first",
	HELP_NUMBER,
	NULL,
};

const struct object obj_ev_fmt = {
	.name = "ev-fmt",
	.what = "EV format profiles: where EVs go in packets, their fields",
	.cmds = cmds,
	.ncmds = ARRAY_SIZE(cmds),
	.usage = usage,
	.defs = defs,
};
