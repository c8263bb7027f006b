// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl ev-profile set, add and replace: configuring an EV profile in one
 * mrc_ctl_modify_ev_profile call, and filling its explicit EV array (EV
 * op REPLACE_EV, where "add" replaces the unpopulated EV {0, port 0}).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mrcctl.h"

/* EVENTS := { good | bad | good,bad | none }, into an event mask. */
static int arg_events(struct args *a, int *mask)
{
	static const char *const words[] = { "good", "bad", "none" };
	char *list, *w, *save = NULL;
	int rc = 0, idx, n = 0, none = 0;

	if (!args_left(a))
		return err_usage("missing value for 'events' (want: good, bad,"
				 " good,bad, none)");
	*mask = 0;
	list = xstrdup(a->argv[a->i++]);
	for (w = strtok_r(list, ",", &save); !rc && w;
	     w = strtok_r(NULL, ",", &save), n++) {
		rc = match_word(w, words, ARRAY_SIZE(words), "event", NULL,
				&idx);
		if (rc)
			break;
		if (idx == 0)
			*mask |= MRC_CTL_EV_GOOD;
		else if (idx == 1)
			*mask |= MRC_CTL_EV_ASSUMED_BAD;
		else
			none = 1;
	}
	free(list);
	if (!rc && (!n || (none && n > 1)))
		rc = err_usage("bad value for 'events' (want: good, bad,"
			       " good,bad, none)");
	return rc;
}

enum { FLD_WIDTH, FLD_INIT, FLD_MIN, FLD_MAX, FLD_MASK };
static const char *const field_kws[] = { "width", "init", "min", "max",
					 "mask" };

/* FIELD := width W [ init V ] [ min A ] [ max B ] [ mask M ] */
static int arg_field(struct args *a, struct mrc_ctl_ev_field *f)
{
	unsigned int seen = 0;
	int rc = 0, idx;

	memset(f, 0, sizeof(*f));
	/* The group ends at the first word that is none of its keys. */
	while (!rc && args_left(a) &&
	       (idx = find_word(a->argv[a->i], field_kws,
				ARRAY_SIZE(field_kws))) != -1) {
		if (idx == -2)
			return arg_keyword(a, field_kws, ARRAY_SIZE(field_kws),
					   &idx);
		a->i++;
		rc = arg_once(&seen, idx, field_kws);
		if (rc)
			break;
		switch (idx) {
		case FLD_WIDTH:
			rc = arg_u32(a, "width", 1, 32, &f->width);
			break;
		case FLD_INIT:
			rc = arg_u32(a, "init", 0, UINT32_MAX, &f->init_val);
			break;
		case FLD_MIN:
			rc = arg_u32(a, "min", 0, UINT32_MAX, &f->min_val);
			break;
		case FLD_MAX:
			rc = arg_u32(a, "max", 0, UINT32_MAX, &f->max_val);
			break;
		case FLD_MASK:
			rc = arg_u32(a, "mask", 0, UINT32_MAX, &f->mask);
			break;
		}
	}
	if (!rc && !(seen & 1u << FLD_WIDTH))
		rc = err_usage("'field' needs 'width W'");
	return rc;
}

enum { K_MODE, K_FMT, K_COUNT, K_MIN_ACTIVE, K_EVENTS, K_FIELD, K_STATE };
static const char *const set_kws[] = { "mode",	 "fmt",	  "count", "min-active",
				       "events", "field", "state" };
static const int set_mask[] = {
	[K_MODE] = MRC_CTL_EV_PROFILE_MODE,
	[K_FMT] = MRC_CTL_EV_PROFILE_FMT_ID,
	[K_COUNT] = MRC_CTL_EV_PROFILE_COUNT,
	[K_MIN_ACTIVE] = MRC_CTL_EV_PROFILE_MIN_ACTIVE,
	[K_EVENTS] = MRC_CTL_EV_PROFILE_EVENT_MASK,
	[K_FIELD] = MRC_CTL_EV_PROFILE_EV_FIELDS_OP,
	[K_STATE] = MRC_CTL_EV_PROFILE_STATE,
};

static int set_one(struct args *a, int kw, struct mrc_ctl_ev_profile_attr *at,
		   struct mrc_ctl_ev_field **f, int *nf)
{
	static const char *const modes[] = { "exp", "gen" };
	int w = 0, rc = 0;

	switch (kw) {
	case K_MODE:
		rc = arg_choice(a, "mode", modes, ARRAY_SIZE(modes), &w);
		at->ev_mode = w ? MRC_CTL_EV_MODE_GEN : MRC_CTL_EV_MODE_EXP;
		break;
	case K_FMT:
		rc = arg_u64(a, "fmt", 0, UINT64_MAX, &at->ev_fmt_profile_id);
		break;
	case K_COUNT:
		rc = arg_u32(a, "count", 0, UINT32_MAX, &at->ev_count);
		break;
	case K_MIN_ACTIVE:
		rc = arg_u32(a, "min-active", 0, UINT32_MAX,
			     &at->ev_min_active);
		break;
	case K_EVENTS:
		rc = arg_events(a, &at->ev_event_mask);
		break;
	case K_FIELD:
		*f = xrealloc(*f, (size_t)*nf + 1, sizeof(**f));
		rc = arg_field(a, &(*f)[*nf]);
		(*nf)++;
		break;
	case K_STATE:
		rc = arg_choice(a, "state", profile_state_words,
				ARRAY_SIZE(profile_state_words), &w);
		at->profile_state = (enum mrc_ctl_profile_state)w;
		break;
	}
	return rc;
}

int evp_do_set(struct args *a)
{
	struct mrc_ctl_ev_profile_attr attr = { 0 };
	struct mrc_ctl_ev_field *f = NULL;
	struct mrc_context *ctx = NULL;
	unsigned int seen = 0;
	int rc, kw, nf = 0, mask = 0;
	uint64_t id;

	rc = arg_u64(a, "ID", 0, UINT64_MAX, &id);
	while (!rc && args_left(a)) {
		rc = arg_keyword(a, set_kws, ARRAY_SIZE(set_kws), &kw);
		if (!rc && kw != K_FIELD) /* field groups repeat */
			rc = arg_once(&seen, kw, set_kws);
		if (!rc) {
			rc = set_one(a, kw, &attr, &f, &nf);
			mask |= set_mask[kw];
		}
	}
	if (!rc && !mask)
		rc = err_usage("'%s' needs one of mode, fmt, count, min-active,"
			       " events, field, state",
			       a->cmd);
	if (!rc)
		rc = ctl_open(&ctx);
	if (!rc) {
		attr.ev_fields_op.op = MRC_CTL_EV_FIELDS_OP_MODIFY_FIELDS;
		attr.ev_fields_op.fields = f;
		attr.ev_fields_op.field_count = nf;
		errno = 0;
		rc = mrc_ctl_modify_ev_profile(ctx, id, &attr, mask);
		if (rc)
			rc = err_api(api_errno(rc), "mrc_ctl_modify_ev_profile",
				     "ev-profile %" PRIu64, id);
	}
	free(f);
	if (!rc)
		print_null();
	return rc;
}

static const char *const add_kws[] = { "ev", "denied" };
static const char *const rep_kws[] = { "ev", "with", "all", "denied" };

/* add is replace of the unpopulated EV, without 'with' and 'all'. */
static int replace(struct args *a, int add)
{
	const char *const *kws = add ? add_kws : rep_kws;
	int nkws = add ? ARRAY_SIZE(add_kws) : ARRAY_SIZE(rep_kws);
	struct mrc_ctl_ev_op_entry e = { .state = MRC_CTL_EV_GOOD };
	struct mrc_context *ctx = NULL;
	unsigned int seen = 0;
	const char *kw;
	uint64_t id;
	int rc, idx;

	rc = arg_u64(a, "ID", 0, UINT64_MAX, &id);
	while (!rc && args_left(a)) {
		rc = arg_keyword(a, kws, nkws, &idx);
		if (!rc)
			rc = arg_once(&seen, idx, kws);
		if (rc)
			break;
		kw = kws[idx];
		if (!strcmp(kw, "ev"))
			rc = arg_ev(a, "ev", add ? &e.ev_new : &e.ev);
		else if (!strcmp(kw, "with"))
			rc = arg_ev(a, "with", &e.ev_new);
		else if (!strcmp(kw, "all"))
			e.flags |= MRC_CTL_EV_OP_F_ALL_COPIES;
		else
			e.state = MRC_CTL_EV_DENIED;
	}
	if (!rc && !(seen & 1u << 0))
		rc = arg_required(a, "ev VAL port P");
	if (!rc && !add && !(seen & 1u << 1))
		rc = arg_required(a, "with VAL port P");
	if (!rc)
		rc = ctl_open(&ctx);
	if (!rc)
		rc = evp_ev_modify(ctx, id, MRC_CTL_EV_OP_REPLACE_EV, &e);
	if (!rc)
		print_null();
	return rc;
}

int evp_do_add(struct args *a)
{
	return replace(a, 1);
}

int evp_do_replace(struct args *a)
{
	return replace(a, 0);
}
