// SPDX-License-Identifier: GPL-2.0
/*
 * The GID table of the soft device (gid.h) and the verbs calls that read
 * it: ibv_query_gid (verbs.c), ibv_query_gid_ex, ibv_query_gid_table and
 * rdma-core's ibv_query_gid_type.
 *
 * A RoCE NIC lists, per netdev address, a RoCE v1 and a RoCE v2 GID,
 * link-local first: programs written for RoCE learned to take index 3
 * (RoCE v2 of the IPv4 address) or to search for a RoCE v2 entry, and
 * exchange that GID with the peer. mrcd knows one address per port and
 * the port's MAC, which is all this layout needs. The peer must be named
 * by its address (index 2 or 3): mrcd routes by it, and a link-local GID
 * names no plane.
 */
#include <errno.h>
#include <string.h>

#include "bind.h"
#include "gid.h"
#include "internal.h"

int gid_entry(const uint8_t addr[16], const uint8_t mac[6], uint32_t index,
	      union ibv_gid *gid, uint32_t *type)
{
	if (index >= GID_TBL_LEN)
		return -EINVAL;
	if (index < 2) {
		/* fe80::/64 with the modified EUI-64 of the MAC (RFC 4291). */
		memset(gid->raw, 0, sizeof(gid->raw));
		gid->raw[0] = 0xfe;
		gid->raw[1] = 0x80;
		gid->raw[8] = mac[0] ^ 0x02;
		gid->raw[9] = mac[1];
		gid->raw[10] = mac[2];
		gid->raw[11] = 0xff;
		gid->raw[12] = 0xfe;
		gid->raw[13] = mac[3];
		gid->raw[14] = mac[4];
		gid->raw[15] = mac[5];
	} else {
		memcpy(gid->raw, addr, sizeof(gid->raw));
	}
	*type = index & 1 ? IBV_GID_TYPE_ROCE_V2 : IBV_GID_TYPE_ROCE_V1;
	return 0;
}

/* Entry index of port (1-based) of an open soft device: 0 or -errno. */
static int soft_gid(struct ibv_context *context, uint32_t port, uint32_t index,
		    struct ibv_gid_entry *e)
{
	struct soft_ctx *sc = (struct soft_ctx *)context;
	int err;

	if (!soft_is_ours(context) || port < 1 || port > sc->info.nports)
		return -EINVAL;
	memset(e, 0, sizeof(*e));
	err = gid_entry(sc->info.gid[port - 1], sc->info.mac[port - 1], index,
			&e->gid, &e->gid_type);
	if (err)
		return err;
	e->gid_index = index;
	e->port_num = port;
	/* The netdev lives in mrcd's namespace, not necessarily ours. */
	e->ndev_ifindex = 0;
	return 0;
}

int gid_query(struct ibv_context *context, uint8_t port, int index,
	      union ibv_gid *gid)
{
	struct ibv_gid_entry e;
	int err;

	if (index < 0)
		return -EINVAL;
	err = soft_gid(context, port, (uint32_t)index, &e);
	if (!err)
		*gid = e.gid;
	return err;
}

int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, int *type)
{
	struct ibv_gid_entry e;
	int err;

	if (context && !soft_is_ours(context))
		BIND_FORWARD(ibv_query_gid_type, ENODEV, context, port_num,
			     index, type);
	err = soft_gid(context, port_num, index, &e);

	if (err)
		return fail_errno(-err);
	*type = e.gid_type == IBV_GID_TYPE_ROCE_V2 ? GID_SYSFS_ROCE_V2 :
						     GID_SYSFS_ROCE_V1;
	return 0;
}

int _ibv_query_gid_ex(struct ibv_context *context, uint32_t port_num,
		      uint32_t gid_index, struct ibv_gid_entry *entry,
		      uint32_t flags, size_t entry_size)
{
	struct ibv_gid_entry e;
	int err;

	if (context && !soft_is_ours(context))
		BIND_FORWARD(_ibv_query_gid_ex, ENODEV, context, port_num,
			     gid_index, entry, flags, entry_size);
	/* No flags are defined; a caller's struct may be newer (larger). */
	if (flags || !entry || entry_size < sizeof(e))
		return EINVAL;
	err = soft_gid(context, port_num, gid_index, &e);
	if (err)
		return -err;
	memset(entry, 0, entry_size);
	memcpy(entry, &e, sizeof(e));
	return 0;
}

ssize_t _ibv_query_gid_table(struct ibv_context *context,
			     struct ibv_gid_entry *entries, size_t max_entries,
			     uint32_t flags, size_t entry_size)
{
	struct soft_ctx *sc = (struct soft_ctx *)context;
	size_t n = 0;
	uint32_t port, i;

	if (context && !soft_is_ours(context))
		BIND_FORWARD(_ibv_query_gid_table, -ENODEV, context, entries,
			     max_entries, flags, entry_size);
	if (!context || flags || !entries ||
	    entry_size < sizeof(struct ibv_gid_entry))
		return -EINVAL;
	if (max_entries < (size_t)sc->info.nports * GID_TBL_LEN)
		return -EINVAL; /* as rdma-core's: no partial tables */
	for (port = 1; port <= sc->info.nports; port++)
		for (i = 0; i < GID_TBL_LEN; i++, n++) {
			struct ibv_gid_entry *to =
				(void *)((char *)entries + n * entry_size);

			memset(to, 0, entry_size);
			soft_gid(context, port, i, to);
		}
	return (ssize_t)n;
}
