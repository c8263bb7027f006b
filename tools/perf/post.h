/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains how either side posts WRITEs and receive WRs and
 * polls its CQs (post.c), counting per QP what completed and every error.
 */
#ifndef MRC_TOOLS_PERF_POST_H
#define MRC_TOOLS_PERF_POST_H

#include <stdbool.h>
#include <stdint.h>

#include "dev.h"

/* What one row writes: message size, slots per QP slice, pass, opcode. */
struct perf_row {
	uint64_t size_bytes, slots, pass;
	bool imm;
	bool time_mode; /* a tail WR must be signaled at the end */
};

/* Every QP's counts to 0 for a new row, window WRs in flight at most. */
void row_reset_qps(struct perf_dev *d, unsigned int window);
/* Up to n WRITEs on q as one chain (imm 0: each WR's index). */
int qp_post_writes(struct perf_dev *d, struct perf_qp *q,
		   const struct perf_row *r, unsigned int n, uint32_t imm,
		   bool force_signal);
/* WRs q may post before its window is full. */
unsigned int qp_room(const struct perf_qp *q);
/* After a run of empty polls: wait for a completion event, at most
 * d->idle_us; idle_us 0 spins. */
void idle(const struct perf_dev *d, unsigned int *empty);
/* Polls the send CQ once: completions seen, or -errno. */
int poll_send(struct perf_dev *d);
/* Polls the receive CQ once and reposts; wc_out (room for
 * PERF_POLL_BATCH), when given, gets the completions. */
int poll_recv(struct perf_dev *d, struct ibv_wc *wc_out);
/* Receive completions of every QP since the row started. */
uint64_t recv_total(const struct perf_dev *d);
/* Polls until a send slot is free on q. */
int wait_room(struct perf_dev *d, struct perf_qp *q, uint64_t deadline);
/* Polls until one receive completion arrives. */
int wait_recv(struct perf_dev *d, struct ibv_wc *wc, uint64_t deadline);

#endif /* MRC_TOOLS_PERF_POST_H */
