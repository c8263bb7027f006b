// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl ev expand: what compact EVs become under an EV profile's fields
 * and its format's (both read with QUERY_FIELDS), computed by ev_expand()
 * from include/mrc/ev_fields.h, the same code mrcd applies. Each expanded
 * EV is shown whole and cut at the format's fields, in hex and binary.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mrcctl.h"

struct expand {
	struct mrc_ctl_ev_field *f;
	int nf;
	struct mrc_ctl_ev_fmt_field *ff;
	int nff;
};

static int expand_args(struct args *a, uint64_t *profile, uint32_t **vals,
		       int *n)
{
	static const char *const kws[] = { "profile" };
	int rc, kw;

	if (!args_left(a))
		return arg_required(a, "profile N");
	rc = arg_keyword(a, kws, ARRAY_SIZE(kws), &kw);
	if (!rc)
		rc = arg_u64(a, "profile", 0, UINT64_MAX, profile);
	if (!rc && !args_left(a))
		rc = arg_required(a, "VAL");
	for (*n = 0; !rc && args_left(a); (*n)++) {
		*vals = xrealloc(*vals, (size_t)*n + 1, sizeof(**vals));
		rc = arg_u32(a, "VAL", 0, UINT32_MAX, &(*vals)[*n]);
	}
	return rc;
}

/* The profile's fields and its format's, checked as mrcd checks them. */
static int expand_load(struct mrc_context *ctx, uint64_t id, struct expand *x)
{
	struct mrc_ctl_ev_fmt_profile_attr fattr;
	struct mrc_ctl_ev_profile_attr attr;
	int rc, err;

	rc = evp_query(ctx, id, &attr, &x->f, &x->nf);
	if (rc)
		return rc;
	if (attr.cur_profile_state == MRC_CTL_PROFILE_INIT ||
	    attr.ev_mode == MRC_CTL_EV_MODE_AUTO || !x->nf)
		return err_runtime("ev-profile %" PRIu64 " has no fields to"
				   " expand by (state %s, mode %s)",
				   id,
				   profile_state_name(attr.cur_profile_state),
				   ev_mode_name(attr.ev_mode));
	rc = fmt_query(ctx, attr.ev_fmt_profile_id, &fattr, &x->ff, &x->nff);
	if (rc)
		return rc;
	if (!x->nff)
		return err_runtime("ev-fmt %" PRIu64 " (of ev-profile %" PRIu64
				   ") has no fields",
				   attr.ev_fmt_profile_id, id);
	if (ev_fmt_width(x->ff, x->nff) > 32)
		return err_runtime("ev-fmt %" PRIu64 " is %u bits wide: only"
				   " formats of up to 32 bits expand here",
				   attr.ev_fmt_profile_id,
				   ev_fmt_width(x->ff, x->nff));
	err = ev_fields_check(x->f, x->nf, x->ff, x->nff);
	if (err)
		return err_runtime("ev-profile %" PRIu64 ": its fields do not"
				   " fit ev-fmt %" PRIu64 ": %s",
				   id, attr.ev_fmt_profile_id, strerror(-err));
	return 0;
}

/* Field i of expanded EV e, right-aligned. */
static uint32_t fmt_field(const struct expand *x, uint32_t e, int i)
{
	unsigned int shift = ev_fmt_width(x->ff, x->nff), w = 0;
	int k;

	for (k = 0; k <= i; k++) {
		w = x->ff[k].width;
		shift -= w;
	}
	return (uint32_t)(((uint64_t)e >> shift) & ((UINT64_C(1) << w) - 1));
}

static void expand_row(struct tbl *t, const struct expand *x, uint32_t val)
{
	uint32_t e = ev_expand(x->f, x->nf, x->ff, x->nff, val), v;
	char *bin = xstrdup(""), *s, *key, *head;
	struct jv *arr = jv_arr(), *o;
	unsigned int w;
	int i;

	for (i = 0; i < x->nff; i++) {
		s = bin_str(fmt_field(x, e, i), x->ff[i].width);
		key = xasprintf("%s%s%s", bin, i ? "_" : "", s);
		free(bin);
		free(s);
		bin = key;
	}
	tbl_row(t);
	tbl_hex(t, "compact", "COMPACT", val);
	tbl_hex(t, "expanded", "EXPANDED", e);
	tbl_put(t, "expanded_bin", "EXPANDED(bin)", 0, bin, jv_str(bin));
	/* Text shows the format's fields as columns, JSON as an array. */
	for (i = 0; i < x->nff; i++) {
		w = x->ff[i].width;
		v = fmt_field(x, e, i);
		s = bin_str(v, w);
		o = jv_add(arr, NULL, jv_obj());
		jv_add(o, "width_bits", jv_u64(w));
		jv_add(o, "value", jv_u64(v));
		key = xasprintf("0x%x", v);
		jv_add(o, "hex", jv_str(key));
		jv_add(o, "binary", jv_str(s));
		free(key);
		key = xasprintf("f%d", i);
		head = xasprintf("F%d(%ub:hex/bin)", i, w);
		tbl_put(t, key, head, 0, xasprintf("0x%x/%s", v, s), NULL);
		free(key);
		free(head);
		free(s);
	}
	tbl_put(t, "fields", NULL, 0, NULL, arr);
}

int ev_do_expand(struct args *a)
{
	struct expand x = { 0 };
	struct mrc_context *ctx = NULL;
	uint32_t *vals = NULL;
	unsigned int bits;
	uint64_t profile;
	struct tbl *t;
	int rc, i, n = 0;

	rc = expand_args(a, &profile, &vals, &n);
	if (!rc)
		rc = ctl_open(&ctx);
	if (!rc)
		rc = expand_load(ctx, profile, &x);
	bits = rc ? 0 : ev_compact_bits(x.f, x.nf);
	for (i = 0; !rc && i < n; i++)
		if (bits < 32 && vals[i] >> bits)
			rc = err_usage("VAL 0x%x is wider than the %u compact"
				       " bits of ev-profile %" PRIu64,
				       vals[i], bits, profile);
	if (!rc) {
		t = tbl_new();
		for (i = 0; i < n; i++)
			expand_row(t, &x, vals[i]);
		tbl_print_list(t, out, opts.json, opts.pretty);
		tbl_free(t);
	}
	free(x.f);
	free(x.ff);
	free(vals);
	return rc;
}
