/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrcd's event loop: each module registers the file
 * descriptors it owns, each with the function that handles it, and the
 * loop knows nothing else of them (no tags, no module's names).
 *
 *   struct foo { struct loop_fd lfd; ... };
 *   static void foo_ready(struct loop_fd *h)
 *   {
 *           struct foo *f = container_of(h, struct foo, lfd);
 *           ...
 *   }
 *   loop_add(loop, &f->lfd, fd, foo_ready);
 */
#ifndef MRC_DAEMON_LOOP_H
#define MRC_DAEMON_LOOP_H

#include <stddef.h>
#include <stdint.h>

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr)-offsetof(type, member)))
#endif

struct loop_fd {
	int fd; /* -1: not registered */
	void (*ready)(struct loop_fd *h); /* fd is readable */
};

struct loop {
	int epfd;
};

/* 0 or -errno. */
int loop_init(struct loop *l);
void loop_close(struct loop *l);
/* h handles fd from now on (readable: ready(h)). 0 or -errno. */
int loop_add(struct loop *l, struct loop_fd *h, int fd,
	     void (*ready)(struct loop_fd *h));
/* The same fd and function, now with to as its handle (from is free). */
int loop_move(struct loop *l, struct loop_fd *from, struct loop_fd *to);
/* Not watched any more (the fd stays open: its owner closes it). */
void loop_del(struct loop *l, struct loop_fd *h);
/*
 * Waits up to timeout_ns (0: only looks; UINT64_MAX: for ever) and runs
 * the handlers of the fds that are ready. The number run, or -errno.
 */
int loop_once(struct loop *l, uint64_t timeout_ns);

#endif /* MRC_DAEMON_LOOP_H */
