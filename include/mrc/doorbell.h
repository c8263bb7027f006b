/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the application's side of the low-latency doorbell:
 * after posting WQEs to a QP's send queue, send one struct mrc_doorbell
 * (abi.h) to 127.0.0.1:MRC_DOORBELL_PORT and the tc program on lo sends
 * the QP's next packet (docs/lowlat.md). One doorbell, one packet.
 */
#ifndef MRC_DOORBELL_H
#define MRC_DOORBELL_H

#include <stdint.h>

/*
 * A UDP socket connected to the doorbell address, with SO_NO_CHECK (the
 * packet then leaves with its UDP checksum complete, whatever the port's
 * checksum offload). Returns the fd or -errno.
 */
int mrc_doorbell_socket(void);

/*
 * Ring QP qpn's doorbell with its token through udp_fd (any UDP socket;
 * unconnected ones are sent to the doorbell address). 0 or -errno;
 * -ECONNREFUSED means the datagram reached lo's receive side: no doorbell
 * program is attached in this network namespace.
 */
int mrc_doorbell_ring(int udp_fd, uint32_t qpn, uint64_t token);

#endif /* MRC_DOORBELL_H */
