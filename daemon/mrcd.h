/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrcd's state as main sees it: the configuration, the
 * device and its ports, and each module's own state, which main sets up
 * bottom up, wires together and tears down top down.
 */
#ifndef MRC_DAEMON_MRCD_H
#define MRC_DAEMON_MRCD_H

#include <stdint.h>

#include "books.h"
#include "clients.h"
#include "config.h"
#include "ctl.h"
#include "dev.h"
#include "events.h"
#include "health.h"
#include "peer.h"
#include "links.h"
#include "loop.h"
#include "objects.h"
#include "plane.h"
#include "probe.h"
#include "pump.h"
#include "serve.h"

struct cli;

/* Only main (mrcd.c) sees this: every module has its own state below. */
struct mrcd {
	struct dev dev;
	struct mrcd_config cfg; /* in force: the file, the command line over it */
	const char *config_path; /* -c; NULL: none */
	const struct cli *cli; /* the command line, for reloads */
	struct loop loop;
	struct loop_fd sig, scan;
	int lock_fd, pin_lock_fd;
	struct port_spec port[MRC_MAX_PORTS];
	int nports, v6;
	const char *sock_path;
	const char *pin_dir; /* NULL: --no-pin */
	int pinned;
	int lowlat; /* the tc doorbell path is attached */
	int adopted; /* this mrcd takes over a running device */
	uint64_t gray_ticks; /* scan ticks since the last gray look */
	int scan_armed; /* the scan timer runs (scan_arm) */
	/* The modules, from the bottom up (docs/architecture.md). */
	struct pump pump;
	struct events events;
	struct links links;
	struct probe probe;
	struct objects obj;
	struct clients clients;
	struct health health;
	struct peer peer;
	struct ctl ctl;
	struct books_ctx books;
	struct serve serve;
};

#endif /* MRC_DAEMON_MRCD_H */
