/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrcd's view of its ports as planes: carrier from
 * rtnetlink (only the kernel's messages count) and the controller's admin
 * state. A port is live when both say so; when that changes, links tells
 * whoever main wired to live_changed (health takes the port's EVs out of
 * use, or probes them back). It knows nothing of QPs.
 */
#ifndef MRC_DAEMON_LINKS_H
#define MRC_DAEMON_LINKS_H

#include <stdint.h>

#include "loop.h"
#include "mrc/abi.h"

struct mnl_socket;

struct links {
	struct loop *loop;
	struct loop_fd lfd;
	struct mnl_socket *nl;
	int nports;
	char ifname[MRC_MAX_PORTS][16];
	int ifindex[MRC_MAX_PORTS];
	int up[MRC_MAX_PORTS]; /* carrier */
	int admin[MRC_MAX_PORTS]; /* enum mrc_ctl_port_admin_state */
	uint64_t forged; /* rtnetlink messages not from the kernel, ignored */
	/* Port p became live (live 1) or stopped being live (0). */
	void (*live_changed)(void *ctx, int p, int live);
	void *ctx;
};

/*
 * Ports 0..nports-1 are ifname[p] (ifindex[p]), all enabled: reads their
 * carrier and subscribes to link changes. 0 or -errno.
 */
int links_init(struct links *l, struct loop *loop, int nports,
	       const char (*ifname)[16], const int *ifindex);
void links_close(struct links *l);
/* Port p (0-based) has carrier and is administratively enabled. */
int links_port_live(const struct links *l, int p);
/* The controller enables or disables port p: like carrier, but its own. */
void links_set_admin(struct links *l, int p, int enabled);
/* After a takeover: every port not live is told (live_changed 0) again:
 * it went down while no mrcd watched, or is disabled. */
void links_resync(struct links *l);

#endif /* MRC_DAEMON_LINKS_H */
