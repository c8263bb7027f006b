// SPDX-License-Identifier: GPL-2.0
/*
 * `OBJECT show [ID]` for the three profile kinds (ev-fmt, ev-profile,
 * cc-profile): one profile, or every one the device has room for that is
 * not INIT, in one table.
 */
#include <stdint.h>

#include "mrcctl.h"

int profile_show(struct args *a,
		 uint32_t (*max)(const struct mrc_ctl_device_attr *d),
		 int (*row)(struct mrc_context *ctx, uint64_t id, int all,
			    struct tbl *t))
{
	struct mrc_ctl_device_attr d;
	struct mrc_context *ctx = NULL;
	uint64_t id = 0, k, n;
	int rc = 0, one = 0;
	struct tbl *t;

	if (args_left(a)) {
		rc = arg_u64(a, "ID", 0, UINT64_MAX, &id);
		one = 1;
	}
	if (!rc)
		rc = arg_end(a);
	if (!rc)
		rc = ctl_open(&ctx);
	if (!rc && !one)
		rc = ctl_query_device(&d);
	if (rc)
		return rc;
	n = one ? 1 : max(&d);
	t = tbl_new();
	for (k = 0; !rc && k < n; k++)
		rc = row(ctx, one ? id : k, !one, t);
	if (!rc && one)
		tbl_print_one(t, out, opts.json, opts.pretty);
	else if (!rc)
		tbl_print_list(t, out, opts.json, opts.pretty);
	tbl_free(t);
	return rc;
}
