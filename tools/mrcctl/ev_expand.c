// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl ev expand: what compact EVs become under an EV profile's fields
 * and its format's (both read with QUERY_FIELDS), computed by ev_expand()
 * and ev_expand_srv6() from include/mrc/ev_fields.h, the same code mrcd
 * applies. Each expanded EV is shown whole and cut at the format's
 * fields, in hex and binary; an SRv6 one as the path it names. The
 * loading and the SRv6 columns serve the other commands that show EVs of
 * a profile (ev-profile evs, ev show, ev-profile usid) too.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mrcctl.h"

int ev_expander_load(struct mrc_context *ctx, uint64_t id,
		     struct ev_expander *x)
{
	struct mrc_ctl_ev_fmt_profile_attr fattr;
	struct mrc_ctl_ev_profile_attr attr;
	int rc;

	memset(x, 0, sizeof(*x));
	rc = evp_query(ctx, id, &attr, &x->f, &x->nf);
	if (rc)
		return rc;
	x->state = attr.cur_profile_state;
	x->mode = attr.ev_mode;
	if (attr.cur_profile_state == MRC_CTL_PROFILE_INIT ||
	    attr.ev_mode == MRC_CTL_EV_MODE_AUTO)
		return 0; /* the device picks its EVs, or there are none */
	x->fmt_id = attr.ev_fmt_profile_id;
	rc = fmt_query(ctx, x->fmt_id, &fattr, &x->ff, &x->nff);
	if (rc) {
		ev_expander_free(x);
		return rc;
	}
	if (fattr.cur_profile_state != MRC_CTL_PROFILE_INIT)
		x->fmt_mode = fattr.ev_fmt_mode;
	return 0;
}

void ev_expander_free(struct ev_expander *x)
{
	free(x->f);
	free(x->ff);
	x->f = NULL;
	x->ff = NULL;
	x->nf = x->nff = 0;
}

/* The uSIDs of container addr as a JSON array of 4-digit hex strings. */
static struct jv *usid_arr(const uint8_t *addr)
{
	uint16_t usid[MRC_EV_SRV6_USIDS];
	int i, n = ev_srv6_usids(addr, usid);
	struct jv *arr = jv_arr();
	char s[8];

	for (i = 0; i < n; i++) {
		snprintf(s, sizeof(s), "%04x", usid[i]);
		jv_add(arr, NULL, jv_str(s));
	}
	return arr;
}

/* A 16-byte address as a JSON string. */
static struct jv *addr_jv(const uint8_t *addr)
{
	char *s = gid_str(addr);
	struct jv *v = jv_str(s);

	free(s);
	return v;
}

void put_srv6(struct tbl *t, const uint8_t v[MRC_CTL_EV_MAX_BYTES])
{
	const uint8_t *seg = v + MRC_EV_SRV6_ADDR_BYTES;
	char s[MRC_EV_SRV6_STR_LEN];
	struct jv *o = jv_obj();
	int srh = ev_srv6_has_srh(v);

	ev_srv6_str(v, s, sizeof(s));
	tbl_put(t, "srv6_path", "SRV6", 0, xstrdup(s), NULL);
	ev_srv6_usid_str(v, s, sizeof(s));
	/* "uSIDs 0200 1102": the column's head says what they are. */
	tbl_put(t, "srv6_usids", "USIDS", 0,
		xstrdup(strncmp(s, "uSIDs ", 6) ? s : s + 6), NULL);
	jv_add(o, "dst", addr_jv(v));
	jv_add(o, "usids", usid_arr(v));
	jv_add(o, "srh", srh ? addr_jv(seg) : jv_null());
	jv_add(o, "srh_usids", srh ? usid_arr(seg) : jv_arr());
	tbl_put(t, "srv6", NULL, 0, NULL, o);
}

void put_srv6_none(struct tbl *t)
{
	tbl_put(t, "srv6_path", "SRV6", 0, xstrdup("-"), NULL);
	tbl_put(t, "srv6_usids", "USIDS", 0, xstrdup("-"), NULL);
	tbl_put(t, "srv6", NULL, 0, NULL, jv_null());
}

int put_srv6_ev(struct tbl *t, const struct ev_expander *x, uint32_t val)
{
	uint8_t v[MRC_CTL_EV_MAX_BYTES];

	if (x->fmt_mode != MRC_CTL_EV_FMT_MODE_SRV6)
		return 0;
	if (ev_expand_srv6(x->f, x->nf, x->ff, x->nff, val, v))
		put_srv6_none(t); /* fields that no longer fit the format */
	else
		put_srv6(t, v);
	return 1;
}

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
static int expand_load(struct mrc_context *ctx, uint64_t id,
		       struct ev_expander *x)
{
	unsigned int width;
	int rc, err;

	rc = ev_expander_load(ctx, id, x);
	if (rc)
		return rc;
	if (x->state == MRC_CTL_PROFILE_INIT ||
	    x->mode == MRC_CTL_EV_MODE_AUTO || !x->nf)
		return err_runtime("ev-profile %" PRIu64 " has no fields to"
				   " expand by (state %s, mode %s)",
				   id, profile_state_name(x->state),
				   ev_mode_name(x->mode));
	if (!x->nff)
		return err_runtime("ev-fmt %" PRIu64 " (of ev-profile %" PRIu64
				   ") has no fields",
				   x->fmt_id, id);
	width = ev_fmt_width(x->ff, x->nff);
	if (x->fmt_mode != MRC_CTL_EV_FMT_MODE_SRV6 && width > 32)
		return err_runtime("ev-fmt %" PRIu64 " is %u bits wide: only"
				   " SRV6 formats are wider than 32 bits",
				   x->fmt_id, width);
	err = ev_fields_check(x->f, x->nf, x->ff, x->nff);
	if (!err && x->fmt_mode == MRC_CTL_EV_FMT_MODE_SRV6)
		err = ev_fmt_check(MRC_CTL_EV_FMT_MODE_SRV6, x->ff, x->nff);
	if (err)
		return err_runtime("ev-profile %" PRIu64 ": its fields do not"
				   " fit ev-fmt %" PRIu64 ": %s",
				   id, x->fmt_id, strerror(-err));
	return 0;
}

/* The bit of v at off from the top of v[0]. */
static unsigned int bit_at(const uint8_t *v, unsigned int off)
{
	return v[off / 8] >> (7 - off % 8) & 1;
}

/*
 * Format field i of expanded EV e (right-aligned), or of SRv6 EV sv when
 * sv is not NULL (from the top of the address); at most its low 32 bits,
 * which hold all a profile field can set.
 */
static uint32_t fmt_field(const struct ev_expander *x, uint32_t e,
			  const uint8_t *sv, int i)
{
	unsigned int shift = ev_fmt_width(x->ff, x->nff), w = 0, off = 0, k;
	uint32_t v = 0;
	int j;

	for (j = 0; j <= i; j++) {
		w = x->ff[j].width;
		shift -= w;
		off += w;
	}
	if (!sv)
		return (uint32_t)(((uint64_t)e >> shift) &
				  ((UINT64_C(1) << w) - 1));
	/* off is now the field's end: its last min(w, 32) bits. */
	for (k = off - (w > 32 ? 32 : w); k < off; k++)
		v = v << 1 | bit_at(sv, k);
	return v;
}

static void expand_row(struct tbl *t, const struct ev_expander *x, uint32_t val)
{
	int srv6 = x->fmt_mode == MRC_CTL_EV_FMT_MODE_SRV6;
	uint8_t sv[MRC_CTL_EV_MAX_BYTES];
	uint32_t e = 0, v;
	char *bin = xstrdup(""), *s, *key, *head;
	struct jv *arr = jv_arr(), *o;
	unsigned int w;
	int i;

	if (srv6)
		ev_expand_srv6(x->f, x->nf, x->ff, x->nff, val, sv);
	else
		e = ev_expand(x->f, x->nf, x->ff, x->nff, val);
	for (i = 0; i < x->nff; i++) {
		w = x->ff[i].width;
		s = bin_str(fmt_field(x, e, srv6 ? sv : NULL, i),
			    w > 32 ? 32 : w);
		key = xasprintf("%s%s%s", bin, i ? "_" : "", s);
		free(bin);
		free(s);
		bin = key;
	}
	tbl_row(t);
	tbl_hex(t, "compact", "COMPACT", val);
	if (srv6) {
		/* The value is the path: an address, not a number. */
		put_srv6(t, sv);
		free(bin);
	} else {
		tbl_hex(t, "expanded", "EXPANDED", e);
		tbl_put(t, "expanded_bin", "EXPANDED(bin)", 0, bin,
			jv_str(bin));
	}
	/* Text shows the format's fields as columns, JSON as an array. */
	for (i = 0; i < x->nff; i++) {
		w = x->ff[i].width;
		v = fmt_field(x, e, srv6 ? sv : NULL, i);
		s = bin_str(v, w > 32 ? 32 : w);
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
	struct ev_expander x = { 0 };
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
	ev_expander_free(&x);
	free(vals);
	return rc;
}
