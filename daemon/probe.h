/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrcd's probe frames (docs/health.md): the frame a QP
 * probe, a controller's device probe or a control message to a peer's
 * mrcd is, addressed the way the data path addresses an EV's data packets
 * and sent out of its port by the data path (dev_emit).
 */
#ifndef MRC_DAEMON_PROBE_H
#define MRC_DAEMON_PROBE_H

#include <stdint.h>

#include "mrc/abi.h"

struct dev;

struct probe {
	struct dev *dev; /* the ports' addresses, and the way out; NULL: closed */
	int nports;
	uint64_t sent; /* frames sent */
};

/* Probes out of dev's first nports ports. */
void probe_open(struct probe *pr, struct dev *dev, int nports);
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
