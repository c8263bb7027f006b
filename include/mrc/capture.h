/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains what mrcctl capture and its XDP program
 * (bpf/mrc_capture.bpf.c) share: the packet classes its filter names, the
 * record that leads each sample in the perf event array, and the program's
 * counters.
 *
 * Only fixed-width types and explicit padding (include/mrc/abi.h's rule).
 */
#ifndef MRC_CAPTURE_H
#define MRC_CAPTURE_H

#include <linux/types.h>

/* Packet classes, as filter bits. */
#define MRC_CAP_DATA 0x01u /* WRITE, WRITE with immediate */
#define MRC_CAP_ACK 0x02u /* ACK (AETH syndrome not NAK) */
#define MRC_CAP_NACK 0x04u /* ACK opcode with a NAK syndrome */
#define MRC_CAP_PROBE 0x08u /* EV probe and its answer */
#define MRC_CAP_OTHER 0x10u /* anything else that reaches the port */
#define MRC_CAP_ALL 0x1fu

/* The record before each sample's frame bytes (perf raw sample). */
struct mrc_cap_rec {
	__u64 ts_ns; /* bpf_ktime_get_ns() when taken: CLOCK_MONOTONIC */
	__u32 pkt_len; /* bytes of the frame */
	__u32 cap_len; /* bytes of it that follow (snap length) */
	__u32 qpn; /* BTH destination QP; ~0 when it has none */
	__u8 cls; /* one MRC_CAP_* class bit */
	__u8 dir; /* MRC_CAP_DIR_IN or MRC_CAP_DIR_OUT */
	__u8 via; /* MRC_CAP_VIA_*: where it was taken */
	__u8 pad;
};

/* Where a frame was taken (mrc_cap_rec.dir). */
#define MRC_CAP_DIR_IN 0 /* arriving: in front of mrc_xdp_rx */
#define MRC_CAP_DIR_OUT 1 /* leaving */

/* Which hook took it (mrc_cap_rec.via). */
#define MRC_CAP_VIA_RX 0 /* arriving: mrc_cap_xdp, in front of mrc_xdp_rx */
#define MRC_CAP_VIA_TX_PORT 1 /* sent: mrc_tx_port's egress program */
#define MRC_CAP_VIA_XDP_TX 2 /* turned around by mrc_xdp_rx: mrc_turn_hook */
#define MRC_CAP_VIA_STACK 3 /* sent by the kernel stack: a packet socket */

/* Counters the program keeps (per CPU, mrc_cap_stats). */
enum mrc_cap_stat {
	MRC_CAP_SEEN = 0, /* frames that arrived on the port */
	MRC_CAP_MATCHED = 1, /* of those, frames the filter kept */
	MRC_CAP_OUTPUT_FAILED = 2, /* kept, but the perf ring was full */
	MRC_CAP_TAIL_FAILED = 3, /* mrc_xdp_rx not reached: to the stack */
	MRC_CAP_OUT_SEEN = 4, /* frames the transmit program sent out of it */
	MRC_CAP_OUT_MATCHED = 5, /* of those, frames the filter kept */
	MRC_CAP_OUT_OUTPUT_FAILED = 6, /* kept, but the perf ring was full */
	MRC_CAP_TURN_SEEN = 7, /* frames mrc_xdp_rx turned around on it */
	MRC_CAP_TURN_MATCHED = 8, /* of those, frames the filter kept */
	MRC_CAP_TURN_OUTPUT_FAILED = 9, /* kept, but the perf ring was full */
	MRC_CAP_TURN_OTHER_PORT = 10, /* turned around on another port */
	MRC_CAP_NSTATS = 11,
};

_Static_assert(sizeof(struct mrc_cap_rec) == 24, "capture record layout");

#endif /* MRC_CAPTURE_H */
