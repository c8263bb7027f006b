/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrcd's view of its ports as planes: how a port is
 * given on the command line, and how a peer's address on every plane
 * follows from its address on one of them.
 */
#ifndef MRC_DAEMON_PLANE_H
#define MRC_DAEMON_PLANE_H

#include <stddef.h>
#include <stdint.h>

struct port_spec {
	char ifname[16];
	uint8_t mac[6]; /* the next hop on this plane */
	int has_mac;
	int v6;
	uint8_t prefix[16]; /* the plane's prefix (IPv4 in the first 4) */
	int prefix_len; /* -1: not given, take the interface's own subnet */
};

/*
 * Parses "IFNAME[,mac=MAC][,plane=PREFIX/LEN]". Returns 0, or -1 with the
 * reason in err.
 */
int port_spec_parse(const char *s, struct port_spec *p, char *err,
		    size_t errlen);

/*
 * A peer's address on each of n planes. Hosts keep their host bits on
 * every plane (the same host number in each plane's prefix), so the
 * address on plane i is plane i's prefix with the host bits of gid, which
 * must lie in one of the planes. gid is a GID: IPv4-mapped for IPv4 planes.
 * Returns 0, or -EADDRNOTAVAIL when gid is in no plane.
 */
int plane_peer_addrs(const struct port_spec *ports, int n,
		     const uint8_t gid[16], uint8_t out[][16]);

/* The GID of an address (IPv4-mapped for IPv4). */
void plane_gid(const uint8_t *addr, int v6, uint8_t gid[16]);

#endif /* MRC_DAEMON_PLANE_H */
