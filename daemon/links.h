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

#endif /* MRC_DAEMON_LINKS_H */
