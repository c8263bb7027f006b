/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrcd's side of the service manager's readiness
 * protocol (sd_notify(3), written here): state lines sent as datagrams to
 * $NOTIFY_SOCKET, when that is set.
 */
#ifndef MRC_DAEMON_NOTIFY_H
#define MRC_DAEMON_NOTIFY_H

/*
 * Sends msg ("READY=1", "RELOADING=1\nMONOTONIC_USEC=...", ...). 0 when
 * sent or when no service manager listens ($NOTIFY_SOCKET unset), else
 * -errno.
 */
int notify_send(const char *msg);

/* RELOADING=1 with MONOTONIC_USEC, as systemd wants it. */
int notify_reloading(void);

#endif /* MRC_DAEMON_NOTIFY_H */
