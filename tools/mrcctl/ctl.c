// SPDX-License-Identifier: GPL-2.0
/*
 * The device mrcctl talks to: found and opened as any MRC program does
 * (ibv_get_device_list, ibv_open_device, mrc_create_context), through the
 * socket of mrcd that MRC_SOCKET (set by -s) or the default names. Opened
 * on first use, so that usage errors and help need no mrcd, and once for
 * all the commands of a batch.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mrcctl.h"

static struct {
	struct ibv_device **list;
	struct ibv_context *vctx;
	struct mrc_context *mctx;
} dev;

const char *ctl_socket(void)
{
	const char *p = getenv(MRCD_SOCKET_ENV);

	return p && *p ? p : MRCD_SOCKET_DEFAULT;
}

int ctl_open(struct mrc_context **ctx)
{
	const char *sock = ctl_socket();
	int i, n = 0;

	if (dev.mctx) {
		*ctx = dev.mctx;
		return 0;
	}
	/* The device exists while mrcd's socket does: say which one. */
	if (access(sock, F_OK))
		return err_runtime("no MRC device: mrcd socket %s: %s (is mrcd"
				   " running? see -s and MRC_SOCKET)",
				   sock, strerror(errno));
	dev.list = ibv_get_device_list(&n);
	if (!dev.list)
		return err_api(errno, "ibv_get_device_list", "%s", sock);
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(dev.list[i]), "mrc0"))
			break;
	if (i == n)
		return err_runtime("no MRC device behind %s", sock);
	dev.vctx = ibv_open_device(dev.list[i]);
	if (!dev.vctx)
		return err_api(errno, "ibv_open_device",
			       "cannot reach mrcd at %s", sock);
	dev.mctx = mrc_create_context(dev.vctx, NULL);
	if (!dev.mctx)
		return err_api(errno, "mrc_create_context", "%s", sock);
	*ctx = dev.mctx;
	return 0;
}

int ctl_query_device(struct mrc_ctl_device_attr *attr)
{
	struct mrc_context *ctx = NULL;
	int rc, supported = 0;

	rc = ctl_open(&ctx);
	if (rc)
		return rc;
	memset(attr, 0, sizeof(*attr));
	errno = 0;
	rc = mrc_ctl_query_device_ex(dev.vctx, ctx, attr, &supported);
	if (rc)
		return err_api(api_errno(rc), "mrc_ctl_query_device_ex", "dev");
	if (!supported)
		return err_runtime("%s: the device is no MRC device",
				   ctl_socket());
	return 0;
}

/* Every port: *ports is the caller's to free. */
int ctl_port_list(struct mrc_context *ctx, struct mrcx_port_info **ports,
		  int *n)
{
	struct mrcx_port_info *p = NULL;
	int max = 8, tries, rc;

	/* Ask again with room for what it said; ports come and go. */
	for (tries = 0; tries < 4; tries++) {
		p = xrealloc(p, (size_t)max, sizeof(*p));
		errno = 0;
		rc = mrcx_ctl_port_list(ctx, p, max, n);
		if (rc) {
			free(p);
			return err_api(api_errno(rc), "mrcx_ctl_port_list",
				       "port");
		}
		if (*n >= 0 && *n <= max) {
			*ports = p;
			return 0;
		}
		max = *n > 0 ? *n : max;
	}
	free(p);
	return err_runtime("mrcx_ctl_port_list: the port count keeps changing");
}

void ctl_close(void)
{
	if (dev.mctx)
		mrc_destroy_context(dev.mctx);
	if (dev.vctx)
		ibv_close_device(dev.vctx);
	if (dev.list)
		ibv_free_device_list(dev.list);
	memset(&dev, 0, sizeof(dev));
}
