/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrc-perf's side channel (sc.c): the TCP connection
 * between client and server and the messages they exchange over it, the
 * test parameters, each side's QPs, and each row's START, GO, DONE and
 * RESULT. Every wait has a deadline, so neither side hangs on a dead peer.
 */
#ifndef MRC_TOOLS_PERF_SC_H
#define MRC_TOOLS_PERF_SC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sc_type {
	SC_HELLO = 1, /* client -> server: struct sc_params */
	SC_QPS, /* both ways: struct sc_qp per QP */
	SC_READY, /* server -> client: struct sc_ready */
	SC_START, /* client -> server: struct sc_start */
	SC_GO, /* server -> client: nothing */
	SC_DONE, /* client -> server: struct sc_done */
	SC_RESULT, /* server -> client: struct sc_result */
	SC_BYE, /* client -> server: nothing */
	SC_ABORT, /* either way: nothing; the sender gives up */
};

/*
 * Messages are structs of uint64_t only, big-endian on the wire. Raw bytes
 * (the GID) ride in such words too: swapped on send, swapped back on
 * receive.
 */
struct sc_params {
	uint64_t magic, version;
	uint64_t test, transport;
	uint64_t qps, depth, rq_depth, sge;
	uint64_t slice_bytes; /* per QP, on both sides */
	uint64_t verify, imm;
	uint64_t mpr, timeout, retry_linear, retry_exp;
	uint64_t mtu_bytes;
	uint64_t limit_ms; /* time limit of one row */
	uint64_t idle_us; /* sleep after empty polls; 0: spin */
};

struct sc_qp {
	uint64_t qpn, psn, rkey;
	uint64_t addr, len_bytes; /* this QP's slice of the region */
	uint64_t rq_depth; /* receive WRs kept posted */
	uint64_t mtu_bytes;
	uint64_t gid[2];
};

struct sc_ready {
	uint64_t mem_per_qp_bytes;
};

struct sc_start {
	uint64_t size_bytes, slots, pass;
	uint64_t transport, iters;
};

struct sc_done {
	uint64_t msgs; /* WRs the client saw complete */
	uint64_t aborted;
};

struct sc_result {
	uint64_t recv_msgs, recv_errors, recv_first_status;
	uint64_t send_errors, send_first_status;
	uint64_t bad_bytes, checked_bytes;
	uint64_t cpu_ns, elapsed_ns; /* from GO to the last completion */
	uint64_t stopped; /* the server hit its time limit */
	uint64_t rq_underflows;
};

struct sc_hdr {
	uint32_t type, len;
};

/* len bytes to fd, or -errno (-ETIMEDOUT past deadline, -EINTR on a signal). */
int write_full(int fd, const void *buf, size_t len, uint64_t deadline);
/* len bytes from fd, waiting in poll() or, with spin, retrying recv(). */
int read_full_mode(int fd, void *buf, size_t len, uint64_t deadline, bool spin);

/* One message; the uint64_t words of msg go big-endian. */
int sc_send(int fd, enum sc_type type, const void *msg, size_t len);
/* One message of any type; *len: room in msg, then the size received. */
int sc_recv_any(int fd, enum sc_type *type, void *msg, size_t *len,
		uint64_t timeout_ms);
/* Exactly one message of the given type and size. */
int sc_recv(int fd, enum sc_type type, void *msg, size_t len,
	    uint64_t timeout_ms);
/* True when the peer has sent something (or closed), without blocking. */
bool sc_pending(int fd);

/* The server's listening socket (host NULL: any), or -1 after a message. */
int sock_listen(const char *host, const char *port);
/* The client that connects within timeout_ms, or -errno. */
int sock_accept(int lfd, uint64_t timeout_ms);
/* Connects to the server, retrying for wait_s; -errno after a message. */
int sock_connect(const char *host, const char *port, double wait_s);

#endif /* MRC_TOOLS_PERF_SC_H */
