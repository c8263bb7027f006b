/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the soft device's GID table: per port, the entries a
 * common RoCE NIC shows for a netdev with one address, in the same order,
 * so programs that pick a GID by index (3, as perftest and most RoCE
 * programs do) or by type find the port's address.
 */
#ifndef MRC_LIB_GID_H
#define MRC_LIB_GID_H

#include <stdint.h>
#include <infiniband/verbs.h>

/*
 * Index 0: RoCE v1, link-local (fe80:: and the MAC's EUI-64)
 *       1: RoCE v2, link-local
 *       2: RoCE v1, the port's address (IPv4-mapped for IPv4)
 *       3: RoCE v2, the port's address
 */
#define GID_TBL_LEN 4

/*
 * Entry index of a port with address addr (a GID) and MAC mac: 0, or
 * -EINVAL past the table. type: enum ibv_gid_type (IBV_GID_TYPE_ROCE_V1
 * or _V2).
 */
int gid_entry(const uint8_t addr[16], const uint8_t mac[6], uint32_t index,
	      union ibv_gid *gid, uint32_t *type);

/*
 * rdma-core's ibv_query_gid_type (driver.h, not public): the type as
 * sysfs spells it, 0 for "IB/RoCE v1", 1 for "RoCE v2".
 */
/* ibv_query_gid's answer for an open soft device: 0 or -errno. */
int gid_query(struct ibv_context *context, uint8_t port, int index,
	      union ibv_gid *gid);

#define GID_SYSFS_ROCE_V1 0
#define GID_SYSFS_ROCE_V2 1
int ibv_query_gid_type(struct ibv_context *context, uint8_t port_num,
		       unsigned int index, int *type);

#endif /* MRC_LIB_GID_H */
