// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl dev: what the device is and allows (mrc_ctl_query_device_ex):
 * controller API versions, EV and CC limits, ports, optional capabilities.
 */
#include <stdlib.h>
#include <string.h>

#include "mrcctl.h"

/* A list as a JSON array and as "a, b" text; the text is added to *s. */
static void list_add(struct jv *arr, char **s, struct jv *v, const char *text)
{
	char *t = xasprintf("%s%s%s", *s, **s ? ", " : "", text);

	jv_add(arr, NULL, v);
	free(*s);
	*s = t;
}

static void put_list(struct tbl *t, const char *key, const char *head,
		     struct jv *arr, char *s)
{
	if (!*s) {
		free(s);
		s = xstrdup("none");
	}
	tbl_put(t, key, head, 0, s, arr);
}

static char *version_str(uint32_t v)
{
	return xasprintf("%u.%u.%u", v >> 24, (v >> 16) & 0xff, v & 0xffff);
}

static void put_versions(struct tbl *t)
{
	uint32_t cur = 0, last = 0, vcur = 0, vlast = 0;
	char *s;

	mrc_ctl_query_version(&cur, &last, &vcur, &vlast);
	s = version_str(cur);
	tbl_put(t, "ctl_api_version", "controller API", 0, s, jv_str(s));
	s = version_str(last);
	tbl_put(t, "ctl_api_oldest", "controller API, oldest served", 0, s,
		jv_str(s));
	s = version_str(vcur);
	tbl_put(t, "vendor_api_version", "vendor API", 0, s, jv_str(s));
}

static void put_modes(struct tbl *t, const struct mrc_ctl_device_attr *d)
{
	static const uint32_t ev_modes[] = { MRC_CTL_EV_MODE_AUTO,
					     MRC_CTL_EV_MODE_EXP,
					     MRC_CTL_EV_MODE_GEN };
	struct jv *arr = jv_arr();
	char *s = xstrdup("");
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fmt_mode_values); i++)
		if (d->ev.ev_fmt_mode_mask & (uint32_t)fmt_mode_values[i])
			list_add(arr, &s, jv_str(fmt_mode_words[i]),
				 fmt_mode_words[i]);
	put_list(t, "ev_fmt_modes", "EV format modes", arr, s);
	arr = jv_arr();
	s = xstrdup("");
	for (i = 0; i < ARRAY_SIZE(ev_modes); i++)
		if (d->ev.ev_mode_mask & ev_modes[i])
			list_add(arr, &s, jv_str(ev_mode_name(ev_modes[i])),
				 ev_mode_name(ev_modes[i]));
	put_list(t, "ev_modes", "EV profile modes", arr, s);
}

static void put_ev_limits(struct tbl *t, const struct mrc_ctl_device_attr *d)
{
	tbl_u64(t, "ev_max_fmt_profiles", "EV format profiles",
		d->ev.ev_max_fmt_profiles);
	tbl_u64(t, "ev_max_profiles", "EV profiles", d->ev.ev_max_profiles);
	tbl_u64(t, "ev_max_count", "EVs, total", d->ev.ev_max_count);
	tbl_u64(t, "ev_free_count", "EVs, free", d->ev.ev_free_count);
	tbl_u64(t, "ev_max_count_profile", "EVs per profile, at most",
		d->ev.ev_max_count_profile);
	tbl_u64(t, "ev_count_align", "EV count alignment (EVs)",
		d->ev.ev_count_align);
	tbl_u64(t, "ev_max_width_bits", "EV width (bits)", d->ev.ev_max_width);
	tbl_u64(t, "ev_op_max_entries", "EV op entries per call (0: any)",
		d->ev.ev_op_max_entries);
	put_modes(t, d);
}

static void put_cc_ports_caps(struct tbl *t,
			      const struct mrc_ctl_device_attr *d)
{
	struct jv *arr = jv_arr();
	char *s = xstrdup(""), *n;
	unsigned int i;

	tbl_u64(t, "cc_max_profiles", "CC profiles", d->cc.cc_max_profiles);
	for (i = 0; d->cc.algorithms && d->cc.algorithms[i]; i++)
		list_add(arr, &s, jv_str(d->cc.algorithms[i]),
			 d->cc.algorithms[i]);
	put_list(t, "cc_algorithms", "CC algorithms", arr, s);
	arr = jv_arr();
	s = xstrdup("");
	for (i = 1; i < 32; i++)
		if (d->phy_port_mask & 1u << i) {
			n = xasprintf("%u", i);
			list_add(arr, &s, jv_u64(i), n);
			free(n);
		}
	put_list(t, "ports", "ports", arr, s);
	arr = opt_cap_names(d->opt_attr, &s);
	tbl_put(t, "capabilities", "optional capabilities", 0, s, arr);
}

static int do_show(struct args *a)
{
	struct mrc_ctl_device_attr d;
	struct tbl *t;
	int rc;

	rc = arg_end(a);
	if (!rc)
		rc = ctl_query_device(&d);
	if (rc)
		return rc;
	t = tbl_new();
	tbl_str(t, "device", "device", "mrc0");
	tbl_str(t, "socket", "mrcd socket", ctl_socket());
	put_versions(t);
	tbl_hex(t, "protocol_versions", "protocol versions (bits)",
		d.mrc_ctl_protocol_version);
	put_ev_limits(t, &d);
	put_cc_ports_caps(t, &d);
	tbl_print_one(t, out, opts.json, opts.pretty);
	tbl_free(t);
	return 0;
}

static const struct cmd cmds[] = {
	{ "show", do_show },
};

static const char *const usage[] = {
	"show",
	NULL,
};

const struct object obj_dev = {
	.name = "dev",
	.what = "the device: API versions, limits, ports, capabilities",
	.cmds = cmds,
	.ncmds = ARRAY_SIZE(cmds),
	.usage = usage,
};
