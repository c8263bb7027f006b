/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrcd's clients: the unix socket applications connect
 * to, one slot per connection with who is at the other end (pid, uid,
 * whether it may be the controller), its session for a resume after a
 * restart, and orphans: a predecessor's clients whose process has not
 * resumed yet. What a client asks goes to the on_request callback; a
 * client that leaves (or an orphan whose process ends) to on_gone.
 */
#ifndef MRC_DAEMON_CLIENTS_H
#define MRC_DAEMON_CLIENTS_H

#include <stddef.h>
#include <stdint.h>

#include "loop.h"

#define MRCD_MAX_CLIENTS 1024 /* max-clients: at most this */

struct mrcd_req;

struct client {
	/* Its connection; conn.fd -1: none (slot free, unless an orphan). */
	struct loop_fd conn;
	uint32_t idx; /* its slot */
	uint32_t uid;
	uint32_t pid;
	int net_admin; /* held CAP_NET_ADMIN when it connected */
	uint64_t session; /* MRCD_RESUME takes a slot back with it */
	uint64_t start_ticks; /* the process's start (clients_proc_start) */
	/*
	 * An orphan: a predecessor's client whose objects this mrcd adopted
	 * and whose process has not resumed yet. pidfd tells when the
	 * process ends (its objects are freed then).
	 */
	int orphan;
	struct loop_fd pidfd;
};

struct clients {
	struct loop *loop;
	struct loop_fd listen;
	const char *path; /* the socket's */
	uint32_t max_clients; /* connections at once (orphans beside) */
	uint32_t norphans;
	struct client client[MRCD_MAX_CLIENTS];
	/* Set by main. on_request: 0, or the connection is dropped. */
	void *ctx;
	int (*on_request)(void *ctx, struct client *c,
			  const struct mrcd_req *req, size_t len);
	void (*on_gone)(void *ctx, struct client *c); /* free what c owns */
	void (*on_change)(void *ctx, const struct client *c); /* books */
};

/* Every slot free, no socket yet. */
void clients_init(struct clients *cl, struct loop *loop);
/* Listens on path (its directory made, any old socket replaced). */
int clients_listen(struct clients *cl, const char *path);
/*
 * MRCD_RESUME on connection c: the orphan of session whose process c is
 * (same pid, uid and start time) takes c's connection; c's slot is free
 * again. Returns the orphan, or NULL (no such session of this process).
 */
struct client *clients_resume(struct clients *cl, struct client *c,
			      uint64_t session);
/*
 * After a takeover: the slots marked orphan are counted and each one's
 * process is watched (a pidfd); one already gone is let go at once.
 */
void clients_watch_orphans(struct clients *cl);
/* Closes every connection and pidfd and the socket (removed); drop: each
 * connected client's objects are freed first (on_gone). */
void clients_close(struct clients *cl, int drop);
/* The start time of process pid in clock ticks since boot; 0: gone. */
uint64_t clients_proc_start(uint32_t pid);

#endif /* MRC_DAEMON_CLIENTS_H */
