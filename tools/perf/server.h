/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrc-perf's server (server.c): it waits for one
 * client, learns the test from it, sets up the same QPs and, row by row,
 * receives, answers or echoes, verifies and reports what it saw.
 */
#ifndef MRC_TOOLS_PERF_SERVER_H
#define MRC_TOOLS_PERF_SERVER_H

#include <stdint.h>

#include "dev.h"
#include "opts.h"
#include "sc.h"

struct perf_server {
	int fd;
	struct perf_dev dev;
	struct sc_params params;
	/* --vary-mpr-dest N@S: S ns into the first row, MPR N (0: none) */
	unsigned int vary_mpr;
	uint64_t vary_after_ns, vary_at_ns;
};

/* mrc-perf server: the exit status. */
int server_main(const struct perf_opts *o);
/* The server's end of the TCP ping-pong (tcp.c): echoes st->iters. */
int server_echo_tcp(struct perf_server *s, const struct sc_start *st,
		    uint64_t deadline, struct sc_done *done);

#endif /* MRC_TOOLS_PERF_SERVER_H */
