// SPDX-License-Identifier: GPL-2.0
/*
 * mrcd's event loop: epoll, each event carrying its handler.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "loop.h"

int loop_init(struct loop *l)
{
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	return l->epfd < 0 ? -errno : 0;
}

void loop_close(struct loop *l)
{
	if (l->epfd >= 0)
		close(l->epfd);
	l->epfd = -1;
}

int loop_add(struct loop *l, struct loop_fd *h, int fd,
	     void (*ready)(struct loop_fd *h))
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = h };

	h->fd = fd;
	h->ready = ready;
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev)) {
		h->fd = -1;
		return -errno;
	}
	return 0;
}

int loop_move(struct loop *l, struct loop_fd *from, struct loop_fd *to)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = to };

	if (epoll_ctl(l->epfd, EPOLL_CTL_MOD, from->fd, &ev))
		return -errno;
	to->fd = from->fd;
	to->ready = from->ready;
	from->fd = -1;
	return 0;
}

void loop_del(struct loop *l, struct loop_fd *h)
{
	if (l && h->fd >= 0)
		epoll_ctl(l->epfd, EPOLL_CTL_DEL, h->fd, NULL);
	h->fd = -1;
}

int loop_once(struct loop *l, uint64_t timeout_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(timeout_ns / 1000000000ull),
			       .tv_nsec = (long)(timeout_ns % 1000000000ull) };
	struct epoll_event ev[64];
	int n, i;

	static int no_pwait2;

	n = no_pwait2 ?
		    -1 :
		    epoll_pwait2(l->epfd, ev, 64,
				 timeout_ns == UINT64_MAX ? NULL : &ts, NULL);
	if (no_pwait2 || (n < 0 && errno == ENOSYS)) {
		/* Before 5.11, or under valgrind: ms, rounded up. */
		int ms = timeout_ns == UINT64_MAX ?
				 -1 :
			 timeout_ns > 1000000000000ull ?
				 1000000 :
				 (int)((timeout_ns + 999999) / 1000000);

		no_pwait2 = 1;
		n = epoll_wait(l->epfd, ev, 64, ms);
	}
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (i = 0; i < n; i++) {
		struct loop_fd *h = ev[i].data.ptr;

		if (h->fd >= 0)
			h->ready(h);
	}
	return n;
}
