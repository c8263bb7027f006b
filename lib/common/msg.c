// SPDX-License-Identifier: GPL-2.0
/*
 * One protocol message on a SOCK_SEQPACKET socket, with file descriptors
 * attached as SCM_RIGHTS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mrc/msg.h"

int mrc_msg_send(int sock, const void *buf, size_t len, const int *fds,
		 int nfds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * MRC_MSG_MAX_FDS)];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (nfds < 0 || nfds > MRC_MSG_MAX_FDS)
		return -EINVAL;
	if (nfds) {
		memset(&ctl, 0, sizeof(ctl));
		m.msg_control = ctl.buf;
		m.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	for (;;) {
		ssize_t n = sendmsg(sock, &m, MSG_NOSIGNAL);

		if (n >= 0)
			return (size_t)n == len ? 0 : -EMSGSIZE;
		if (errno != EINTR)
			return -errno;
	}
}

ssize_t mrc_msg_recv(int sock, void *buf, size_t len, int *fds, int *nfds)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * MRC_MSG_MAX_FDS)];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr m = { .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = ctl.buf,
			    .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *c;
	ssize_t n;
	int i, got = 0;

	for (i = 0; i < MRC_MSG_MAX_FDS; i++)
		fds[i] = -1;
	do
		n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		int k;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			if (got < MRC_MSG_MAX_FDS)
				fds[got++] = fd;
			else
				close(fd);
		}
	}
	*nfds = got;
	if (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
		for (i = 0; i < got; i++)
			close(fds[i]);
		*nfds = 0;
		return -EMSGSIZE;
	}
	return n;
}
