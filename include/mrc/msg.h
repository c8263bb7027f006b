/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the message transport of the mrcd protocol: one
 * datagram on a SOCK_SEQPACKET unix socket, with up to MRC_MSG_MAX_FDS file
 * descriptors attached. Used by libmrc and by mrcd.
 */
#ifndef MRC_MSG_H
#define MRC_MSG_H

#include <stddef.h>
#include <sys/types.h>

#define MRC_MSG_MAX_FDS 4

/* Sends len bytes and nfds fds; returns 0 or -errno. */
int mrc_msg_send(int sock, const void *buf, size_t len, const int *fds,
		 int nfds);
/*
 * Receives one message of at most len bytes and up to MRC_MSG_MAX_FDS fds
 * (set to -1 where none came; they are close-on-exec). Returns the bytes
 * received (0: the peer closed) or -errno; a truncated message is -EMSGSIZE
 * and its fds are closed.
 */
ssize_t mrc_msg_recv(int sock, void *buf, size_t len, int *fds, int *nfds);

#endif /* MRC_MSG_H */
