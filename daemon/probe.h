/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrcd's probe frames (docs/health.md): one unbound
 * AF_PACKET socket for every port, and the frame a QP probe or a controller's device probe
 * is, addressed the way the data path addresses an EV's data packets.
 */
#ifndef MRC_DAEMON_PROBE_H
#define MRC_DAEMON_PROBE_H

#include <stdint.h>

#include "mrc/abi.h"

struct dev;

struct probe {
	struct dev *dev; /* the ports' addresses (its mrc_port map) */
	int fd; /* send only, unbound; -1: none */
	int ifindex[MRC_MAX_PORTS]; /* 0: no such port */
	int nports;
	uint64_t sent; /* frames sent */
};

/* The socket, and each of the nports interfaces found; 0 or -errno (said). */
int probe_open(struct probe *pr, struct dev *dev, int nports,
	       const char (*ifname)[16]);
/*
 * One probe frame out of port p to addr (the peer's address on that
 * plane): UDP source port sport, for STEV on IPv6 fl in the flow label,
 * to QP dqpn (MRC_PROBE_QPN: the device), ev_idx and seq echoed back,
 * IP TOS tos. 0 or -errno (-ENODEV: no such port).
 */
struct mrc_srv6_route;
int probe_frame(struct probe *pr, uint32_t p, const uint8_t addr[16],
		uint16_t sport, uint16_t fl, uint32_t dqpn, uint8_t ev_idx,
		uint32_t seq, uint8_t tos, const struct mrc_srv6_route *rt);
/*
 * An mrcd control message (wire.h's CEXT) to QP dqpn, addressed so. Both:
 * rt not NULL, inside that SRv6 route's outer header (docs/wire.md).
 */
struct mrc_cext;
int probe_ctl_frame(struct probe *pr, uint32_t p, const uint8_t addr[16],
		    uint16_t sport, uint16_t fl, uint32_t dqpn,
		    const struct mrc_cext *cx, uint8_t tos,
		    const struct mrc_srv6_route *rt);
/* A probe sequence number: random, never 0 (docs/security.md). */
uint32_t probe_nonce(void);
void probe_close(struct probe *pr);

#endif /* MRC_DAEMON_PROBE_H */
