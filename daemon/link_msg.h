/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the parser of rtnetlink link messages (link_msg.c):
 * one datagram from the kernel in, each link's index and state out. It
 * knows nothing of mrcd, so it is fuzzed on its own
 * (tests/fuzz/fuzz_link_msg.c).
 */
#ifndef MRC_DAEMON_LINK_MSG_H
#define MRC_DAEMON_LINK_MSG_H

#include <stddef.h>

/* A link's state: up is 1 for RTM_NEWLINK with IFF_UP and IFF_RUNNING. */
typedef void (*link_msg_fn)(int ifindex, int up, void *arg);

/*
 * Calls fn for each RTM_NEWLINK and RTM_DELLINK message in the datagram
 * buf[0, len) long enough to name its link; other messages are skipped.
 * Returns the messages reported, or -1 (errno set) when the datagram is
 * malformed or ends in an error message; the links reported before it
 * stand.
 */
int link_msg_parse(const void *buf, size_t len, link_msg_fn fn, void *arg);

#endif /* MRC_DAEMON_LINK_MSG_H */
