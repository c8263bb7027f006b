// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl port: the device's ports, one per network plane
 * (mrcx_ctl_port_list, with the admin state from mrc_ctl_query_port), and
 * their admin state (mrc_ctl_modify_port).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "mrcctl.h"

/* Control messages dropped on it, "reason:count,..."; "-" for none. */
static char *ctl_drops(const struct mrcx_port_info *p)
{
#define CTL_DROP_NAME(name, text) text,
	static const char *const names[] = { MRCX_CTL_DROPS(CTL_DROP_NAME) };
#undef CTL_DROP_NAME
	char s[512] = "";
	size_t n = 0, i;

	for (i = 0; i < ARRAY_SIZE(names) && n < sizeof(s) - 40; i++)
		if (p->ctl_drop[i])
			n += (size_t)snprintf(s + n, sizeof(s) - n, "%s%s:%u",
					      n ? "," : "", names[i],
					      p->ctl_drop[i]);
	return xstrdup(n ? s : "-");
}

static int port_row(struct tbl *t, struct mrc_context *ctx,
		    const struct mrcx_port_info *p)
{
	struct mrc_ctl_port_attr attr = { 0 };
	int rc;

	errno = 0;
	rc = mrc_ctl_query_port(ctx, p->port, &attr, MRC_CTL_PORT_ADMIN_STATE);
	if (rc)
		return err_api(api_errno(rc), "mrc_ctl_query_port", "port %u",
			       p->port);
	tbl_row(t);
	tbl_u64(t, "port", "PORT", p->port);
	tbl_str(t, "ifname", "IFNAME", p->ifname[0] ? p->ifname : NULL);
	tbl_put(t, "carrier", "CARRIER", 0, xstrdup(p->carrier ? "up" : "down"),
		jv_bool(p->carrier));
	tbl_str(t, "admin", "ADMIN",
		attr.port_admin_state == MRC_CTL_PORT_ADMIN_ENABLED ?
			"enabled" :
			"disabled");
	tbl_u64(t, "mtu_bytes", "MTU(B)", p->mtu_bytes);
	tbl_str_own(t, "mac", "MAC", mac_str(p->mac));
	tbl_str_own(t, "gid", "GID", gid_str(p->gid));
	tbl_u64(t, "evs_in_use", "EVS_IN_USE", p->nev_in_use);
	tbl_u64(t, "evs_bad", "EVS_BAD", p->nev_bad);
	tbl_u64(t, "ctl_msgs", "CTL_MSGS", p->ctl_msgs);
	tbl_str_own(t, "ctl_drops", "CTL_DROPS", ctl_drops(p));
	return 0;
}

static int do_show(struct args *a)
{
	struct mrcx_port_info *ports = NULL;
	struct mrc_context *ctx = NULL;
	uint8_t want = 0;
	struct tbl *t;
	int i, n = 0, rc = 0;

	if (args_left(a))
		rc = arg_port(a, "PORT", &want);
	if (!rc)
		rc = arg_end(a);
	if (!rc)
		rc = ctl_open(&ctx);
	if (!rc)
		rc = ctl_port_list(ctx, &ports, &n);
	if (rc)
		return rc;
	t = tbl_new();
	for (i = 0; !rc && i < n; i++)
		if (!want || ports[i].port == want)
			rc = port_row(t, ctx, &ports[i]);
	for (i = 0; want && i < n && ports[i].port != want; i++)
		;
	if (!rc && want && i == n)
		rc = err_runtime("port %u: no such port", want);
	if (!rc && want)
		tbl_print_one(t, out, opts.json, opts.pretty);
	else if (!rc)
		tbl_print_list(t, out, opts.json, opts.pretty);
	tbl_free(t);
	free(ports);
	return rc;
}

static int do_set(struct args *a)
{
	static const char *const kws[] = { "admin" };
	static const char *const admin[] = { "enable", "disable" };
	struct mrc_ctl_port_attr attr = { 0 };
	struct mrc_context *ctx = NULL;
	unsigned int seen = 0;
	int rc, idx, which = 0;
	uint8_t port;

	rc = arg_port(a, "PORT", &port);
	while (!rc && args_left(a)) {
		rc = arg_keyword(a, kws, ARRAY_SIZE(kws), &idx);
		if (!rc)
			rc = arg_once(&seen, idx, kws);
		if (!rc)
			rc = arg_choice(a, "admin", admin, ARRAY_SIZE(admin),
					&which);
	}
	if (!rc && !seen)
		rc = arg_required(a, "admin");
	if (!rc)
		rc = ctl_open(&ctx);
	if (rc)
		return rc;
	attr.port_admin_state = which == 0 ? MRC_CTL_PORT_ADMIN_ENABLED :
					     MRC_CTL_PORT_ADMIN_DISABLED;
	errno = 0;
	rc = mrc_ctl_modify_port(ctx, port, &attr, MRC_CTL_PORT_ADMIN_STATE);
	if (rc)
		return err_api(api_errno(rc), "mrc_ctl_modify_port", "port %u",
			       port);
	print_null();
	return 0;
}

static const struct cmd cmds[] = {
	{ "show", do_show },
	{ "set", do_set },
};

static const char *const usage[] = {
	"show [ PORT ]",
	"set PORT admin { enable | disable }",
	NULL,
};

static const char *const defs[] = {
	"PORT := 1..255 (see 'mrcctl dev show')",
	NULL,
};

const struct object obj_port = {
	.name = "port",
	.what = "ports, one per network plane: link, admin state, EVs on it",
	.cmds = cmds,
	.ncmds = ARRAY_SIZE(cmds),
	.usage = usage,
	.defs = defs,
};
