/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrcd's link watch: rtnetlink messages about its ports
 * turned into EV state (links.c).
 */
#ifndef MRC_DAEMON_LINKS_H
#define MRC_DAEMON_LINKS_H

struct mrcd;

/* Reads the ports' state and subscribes to link changes. 0 or -errno. */
int links_init(struct mrcd *m);
/* The netlink socket is readable. */
void links_event(struct mrcd *m);
void links_close(struct mrcd *m);
/* Port p (0-based) has carrier and is administratively enabled. */
int links_port_live(const struct mrcd *m, int p);
/* The controller enables or disables port p: like carrier, but its own. */
void links_set_admin(struct mrcd *m, int p, int enabled);
/* After a takeover: ports not live (down while no mrcd watched, or
 * disabled) take their EVs out of use. */
void links_resync(struct mrcd *m);

#endif /* MRC_DAEMON_LINKS_H */
