/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains how mrcctl finds the maps of a running device's data
 * path: through the programs attached to its ports, never by pin paths
 * (a device's pins may be anywhere or nowhere, and other devices, of
 * other network namespaces, have their own). Reading them needs root
 * (CAP_SYS_ADMIN for BPF object ids).
 */
#ifndef MRCCTL_DPMAPS_H
#define MRCCTL_DPMAPS_H

#include <stdint.h>
#include <linux/bpf.h>

#define DP_MAX_MAPS 64 /* map ids read of one program */

/* A program's map ids (at most DP_MAX_MAPS) and name; the count or -errno. */
int dp_prog_maps(int fd, uint32_t *ids, char name[BPF_OBJ_NAME_LEN]);

/*
 * The map of that type and name among ids (a program's, n of them): a new
 * fd, its id in *id (if id), or -ENOENT.
 */
int dp_map_named(const uint32_t *ids, int n, uint32_t type, const char *name,
		 uint32_t *id);

/*
 * The map of that type and name of the mrc_xdp_rx attached to interface
 * ifname: a new fd, or -errno (-ENODEV: no such interface, -ENOENT: no
 * mrc_xdp_rx on it or no such map, -EPERM: not root).
 */
int dp_port_map(const char *ifname, uint32_t type, const char *name);

#endif /* MRCCTL_DPMAPS_H */
