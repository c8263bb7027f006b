/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrc-perf's client: its rows' results and what runs
 * them, the layout of its region (layout.c), the bw and rate rows
 * (bw.c), the latency ping-pong over MRC (lat.c) and over TCP (tcp.c),
 * and the session that drives them (client.c).
 */
#ifndef MRC_TOOLS_PERF_CLIENT_H
#define MRC_TOOLS_PERF_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "dev.h"
#include "opts.h"
#include "post.h"
#include "sc.h"

struct row_result {
	unsigned int transport;
	uint64_t size_bytes;
	uint64_t posted, msgs; /* WRs posted; completed without error */
	uint64_t elapsed_ns, client_cpu_ns;
	bool stopped; /* ended by the time limit, not the iteration count */
	struct sc_result srv;
	/* lat */
	uint64_t samples;
	uint64_t rtt_ns_min, rtt_ns_p50, rtt_ns_p99, rtt_ns_max;
};

struct perf_client {
	const struct perf_opts *o;
	int fd;
	struct perf_dev dev;
	struct sc_params params;
	struct row_result *rows;
	unsigned int nrows;
	uint64_t server_mem_per_qp_bytes;
	int failed;
};

/* ---- layout.c ---- */

/* Message-sized places each QP writes round-robin in its slice. */
uint64_t row_slots(const struct perf_opts *o, uint64_t size);
/* The rows' message sizes, max at most. */
unsigned int row_sizes(const struct perf_opts *o, uint64_t *sizes,
		       unsigned int max);
/* Bytes of each QP's slice, on both sides. */
uint64_t slice_bytes_for(const struct perf_opts *o);
/* Receive WRs each QP keeps posted. */
unsigned int rq_depth_for(const struct perf_opts *o);

/* ---- bw.c ---- */

/* The bw and rate rows: WRITEs (or WRITE_IMMs) at full depth on every QP. */
int client_writes(struct perf_client *c, const struct perf_row *r,
		  struct row_result *res);

/* ---- lat.c ---- */

/* Round trips not counted at the start of a run of iters. */
uint64_t lat_warmup(uint64_t iters);
/* min, p50, p99, max of n round trips (sorts rtt_ns). */
void lat_stats(uint64_t *rtt_ns, uint64_t n, struct row_result *res);
/* Ping-pong of WRITE_IMMs; the server answers each one with its own. */
int client_lat_mrc(struct perf_client *c, const struct perf_row *r,
		   uint64_t iters, struct row_result *res);

/* ---- tcp.c ---- */

/* The same ping-pong over the side channel's TCP connection. */
int client_lat_tcp(struct perf_client *c, uint64_t size, uint64_t iters,
		   struct row_result *res);

/* ---- client.c ---- */

/* mrc-perf client: the exit status. */
int client_main(const struct perf_opts *o);

#endif /* MRC_TOOLS_PERF_CLIENT_H */
