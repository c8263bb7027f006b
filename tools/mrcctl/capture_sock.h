/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrcctl capture's packet socket, which takes the
 * packets the kernel stack sends out of a port (capture_sock.c).
 */
#ifndef MRCCTL_CAPTURE_SOCK_H
#define MRCCTL_CAPTURE_SOCK_H

#include <stdint.h>

/*
 * One frame: its time (CLOCK_REALTIME ns, the kernel's stamp), its length
 * and the cap_len bytes of it in data.
 */
typedef void (*cap_sock_fn)(void *ctx, uint64_t ts_ns, uint32_t len,
			    uint32_t cap_len, const uint8_t *data);

/* A non-blocking packet socket on ifindex that only outgoing frames reach; fd or -errno. */
int cap_sock_open(int ifindex);
/* Every frame queued on fd to fn, read into buf; how many, or -errno. */
int cap_sock_drain(int fd, uint8_t *buf, uint32_t size, cap_sock_fn fn,
		   void *ctx);
/* Adds the frames the socket's queue dropped since the last call; 0 or -errno. */
int cap_sock_drops(int fd, uint64_t *drops);

#endif /* MRCCTL_CAPTURE_SOCK_H */
