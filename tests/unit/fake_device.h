/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A device for unit tests of mrcd's modules (health, ctl, serve, pump):
 * the functions of daemon/dev.h, pin.h's send-queue pins, probe.h's frames
 * and clock.h's clock, over plain memory instead of BPF maps. EV commands
 * behave as the control program's do (bpf/mrc_xdp_ctl.bpf.c): they change
 * the QP's view and queue the EV event the data path would, which a test
 * hands to the module under test the way mrcd's event ring does. Nothing
 * here needs root.
 */
#ifndef MRC_TESTS_FAKE_DEVICE_H
#define MRC_TESTS_FAKE_DEVICE_H

#include <stdint.h>

#include "dev.h"
#include "mrc/abi.h"
#include "mrc/wire.h"

#define FAKE_MAX 4096 /* commands, events, probes and transmit calls kept */

struct fake_cmd {
	uint32_t op, qpn, ev_idx, reason;
	int result; /* what dev_ev_cmd returned */
};

struct fake_probe {
	uint32_t port, dqpn, seq;
	uint16_t sport, fl;
	uint8_t ev_idx, tos;
	uint8_t addr[16];
};

/* A control message (probe_ctl_frame): where it went and what it said. */
struct fake_ctl {
	uint32_t port, dqpn;
	uint16_t sport;
	uint8_t addr[16];
	struct mrc_cext cx;
};

struct fake_device {
	uint64_t now_ns; /* the clock now_ns() reads; tests move it */
	int nports;
	struct mrc_port port[MRC_MAX_PORTS];
	int qp_exists[MRC_MAX_QP];
	struct mrc_qp_view view[MRC_MAX_QP];
	struct mrc_sq *sq[MRC_MAX_QP];
	uint64_t mr_len[MRC_MAX_MR]; /* 0: no region */
	int cq[MRC_MAX_CQ];
	/* Frames each QP's transmit program may still send. */
	uint32_t tx_budget[MRC_MAX_QP];
	uint64_t tx_calls, tx_frames; /* QPs' bursts, frames they sent */
	/* dev_tx_list's calls, and the most QPs one had. */
	uint64_t tx_lists;
	uint64_t tx_bursts; /* dev_tx_burst's calls (one QP each) */
	uint32_t tx_list_max;
	/* The thread of each QP's latest transmit call (gettid()). */
	uint32_t tx_tid[MRC_MAX_QP];
	/* Calls made on a lane (lanes > 1): by lane, the last one's thread. */
	uint64_t tx_lane_calls[8];
	uint32_t tx_lane_tid[8];
	uint32_t tx_lanes; /* the last such call's lanes */
	struct fake_cmd cmd[FAKE_MAX];
	int ncmd;
	/* EV events the data path would have queued, oldest first. */
	struct mrc_ev_event ev[FAKE_MAX];
	int nev;
	struct fake_probe probe[FAKE_MAX];
	int nprobe;
	int probe_err; /* probe_frame's result when not 0 */
	struct fake_ctl ctl[64]; /* the newest at (nctl - 1) % 64 */
	uint32_t rx_window[MRC_MAX_QP]; /* dev_qp_set_rx_window's */
	int nctl;
	uint32_t next_nonce;
	int map_fd[8]; /* the mmapable maps, memfds; -1 until asked for */
	/* mrc_cc: what dev_cc_set wrote; cc_set[slot] 0: never, 1: params,
	 * 2: cleared. */
	struct mrc_nscc_params cc[MRC_CC_SLOTS];
	int cc_set[MRC_CC_SLOTS];
};

extern struct fake_device fake;

/* Everything forgotten; nports ports with addresses 198.18.16*p.1. */
void fake_reset(int nports);
/* QP qpn in RTS with nev EVs spread over the ports (EV i on port
 * i % nports, source port 49152 + i), every EV GOOD and in use. */
void fake_qp_rts(uint32_t qpn, uint32_t nev);
/* The EV events queued since the last call, handed to fn one by one. */
void fake_deliver(void (*fn)(void *ctx, const struct mrc_ev_event *v),
		  void *ctx);
/* How many commands of op were run on (qpn, ev_idx); ev_idx -1: any. */
int fake_cmds(uint32_t op, uint32_t qpn, int ev_idx);

#endif /* MRC_TESTS_FAKE_DEVICE_H */
