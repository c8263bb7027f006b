/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrc-perf's command line: the options of either side
 * and their parser (opts.c).
 */
#ifndef MRC_TOOLS_PERF_OPTS_H
#define MRC_TOOLS_PERF_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "perf.h"
#include "timeline.h"

struct perf_opts {
	bool server;
	/* the EV and CC profiles this side's QPs name (its controller's) */
	unsigned int ev_profile, cc_profile;
	/* this side's QPs as responders: dynamic MPR, their own MPR (0: as
	 * --mpr); neither is sent to the peer */
	bool dyn_mpr;
	unsigned int mpr_dest;
	/* server: --vary-mpr-dest N@S, MPR N S seconds into the first row */
	unsigned int vary_mpr;
	double vary_after_s;
	const char *host; /* client: the server; server: listen address */
	const char *port;
	enum perf_test test;
	unsigned int transport; /* enum perf_transport bits */
	uint64_t size_bytes;
	bool size_set;
	bool idle_set;
	uint64_t sweep_min_bytes, sweep_max_bytes;
	bool sweep;
	unsigned int depth;
	double seconds;
	bool seconds_set;
	uint64_t iters;
	unsigned int qps;
	bool verify, imm, json;
	unsigned int mpr; /* 0: the device's largest */
	unsigned int timeout; /* 1.024 us x 2^timeout */
	unsigned int retry_linear, retry_exp;
	unsigned int mtu_bytes; /* 0: the port's active MTU */
	unsigned int sge;
	unsigned int idle_us; /* 0: spin on empty CQs */
	double wait_s;
	const char *timeline; /* --timeline CSV file */
	const char *at[TL_MAX_AT]; /* --at MS:CMD */
	int nat;
};

/* Fills o from the command line; 0, or -EINVAL after a message. --help
 * prints the usage and exits. */
int parse_args(int argc, char **argv, struct perf_opts *o);

#endif /* MRC_TOOLS_PERF_OPTS_H */
