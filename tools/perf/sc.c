// SPDX-License-Identifier: GPL-2.0
/*
 * mrc-perf's side channel (sc.h): the TCP connection, bounded waits, and
 * the messages framed on it.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "perf.h"
#include "sc.h"

static int poll_fd(int fd, short events, uint64_t deadline_ns)
{
	struct pollfd p = { .fd = fd, .events = events };

	for (;;) {
		uint64_t now = now_ns();
		int ms, n;

		if (g_stop >= g_stop_waits_at)
			return -EINTR;
		if (now >= deadline_ns)
			return -ETIMEDOUT;
		ms = (int)((deadline_ns - now + 999999) / 1000000);
		n = poll(&p, 1, ms > 100 ? 100 : ms);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

int write_full(int fd, const void *buf, size_t len, uint64_t deadline)
{
	const uint8_t *p = buf;
	int err;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			err = poll_fd(fd, POLLOUT, deadline);
			if (err)
				return err;
			continue;
		}
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Reads len bytes; waits in poll(), or with spin, by retrying recv() (the
 * TCP side of a spinning ping-pong, like a busy-polling RDMA application).
 */
int read_full_mode(int fd, void *buf, size_t len, uint64_t deadline, bool spin)
{
	unsigned int spins = 0;
	uint8_t *p = buf;
	int err;

	while (len) {
		ssize_t n = recv(fd, p, len, MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (spin && (++spins & 1023)) {
				continue;
			} else if (spin) {
				if (g_stop >= g_stop_waits_at)
					return -EINTR;
				if (now_ns() >= deadline)
					return -ETIMEDOUT;
				continue;
			}
			err = poll_fd(fd, POLLIN, deadline);
			if (err)
				return err;
			continue;
		}
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ECONNRESET;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int read_full(int fd, void *buf, size_t len, uint64_t deadline)
{
	return read_full_mode(fd, buf, len, deadline, false);
}

static void words_swap(uint64_t *w, size_t n, bool to_wire)
{
	size_t i;

	for (i = 0; i < n; i++)
		w[i] = to_wire ? htobe64(w[i]) : be64toh(w[i]);
}

int sc_send(int fd, enum sc_type type, const void *msg, size_t len)
{
	uint64_t deadline = now_ns() + PERF_IO_TIMEOUT_MS * 1000000ull;
	struct sc_hdr h = { htobe32(type), htobe32((uint32_t)len) };
	uint64_t *w = NULL;
	int err;

	if (len) {
		w = malloc(len);
		if (!w)
			return -ENOMEM;
		memcpy(w, msg, len);
		words_swap(w, len / 8, true);
	}
	err = write_full(fd, &h, sizeof(h), deadline);
	if (!err && len)
		err = write_full(fd, w, len, deadline);
	free(w);
	return err;
}

/*
 * Receives one message of any type; *len is the room in msg on entry and
 * the size received on return. An ABORT from the peer is -ECONNABORTED.
 */
int sc_recv_any(int fd, enum sc_type *type, void *msg, size_t *len,
		uint64_t timeout_ms)
{
	uint64_t deadline = now_ns() + timeout_ms * 1000000ull;
	struct sc_hdr h;
	int err;

	err = read_full(fd, &h, sizeof(h), deadline);
	if (err)
		return err;
	h.type = be32toh(h.type);
	h.len = be32toh(h.len);
	if (h.len > *len || h.len % 8)
		return -EPROTO;
	err = read_full(fd, msg, h.len, deadline);
	if (err)
		return err;
	words_swap(msg, h.len / 8, false);
	*type = (enum sc_type)h.type;
	*len = h.len;
	return h.type == SC_ABORT ? -ECONNABORTED : 0;
}

/* Receives exactly one message of the given type and size. */
int sc_recv(int fd, enum sc_type type, void *msg, size_t len,
	    uint64_t timeout_ms)
{
	enum sc_type got;
	size_t n = len;
	int err;

	err = sc_recv_any(fd, &got, msg, &n, timeout_ms);
	if (err)
		return err;
	return got == type && n == len ? 0 : -EPROTO;
}

/* True when the peer has sent something (or closed), without blocking. */
bool sc_pending(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

static void sock_nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int sock_listen(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE };
	struct addrinfo *res, *ai;
	int fd = -1, one = 1, zero = 0, err;

	hints.ai_family = host ? AF_UNSPEC : AF_INET6;
	err = getaddrinfo(host, port, &hints, &res);
	if (err) {
		pr_err("cannot resolve listen address %s port %s: %s",
		       host ? host : "::", port, gai_strerror(err));
		return -EINVAL;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (ai->ai_family == AF_INET6)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero,
				   sizeof(zero));
		if (!bind(fd, ai->ai_addr, ai->ai_addrlen) && !listen(fd, 1))
			break;
		err = -errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		pr_err("cannot listen on port %s: %s", port,
		       strerror(err ? -err : EADDRNOTAVAIL));
	return fd;
}

int sock_accept(int lfd, uint64_t timeout_ms)
{
	int err, fd;

	err = poll_fd(lfd, POLLIN, now_ns() + timeout_ms * 1000000ull);
	if (err)
		return err;
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return -errno;
	sock_nodelay(fd);
	return fd;
}

/* One non-blocking connect attempt to one address, bounded by deadline. */
static int sock_connect_one(const struct addrinfo *ai, uint64_t deadline)
{
	socklen_t sl = sizeof(int);
	int fd, err, soerr = 0;

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS) {
		err = -errno;
		goto close_fd;
	}
	err = poll_fd(fd, POLLOUT, deadline);
	if (err)
		goto close_fd;
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
	if (soerr) {
		err = -soerr;
		goto close_fd;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	sock_nodelay(fd);
	return fd;
close_fd:
	close(fd);
	return err;
}

/* Connects to the server, retrying while it is not listening yet. */
int sock_connect(const char *host, const char *port, double wait_s)
{
	uint64_t deadline = now_ns() + (uint64_t)(wait_s * 1e9);
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *ai;
	int fd = -ETIMEDOUT, err;

	err = getaddrinfo(host, port, &hints, &res);
	if (err) {
		pr_err("cannot resolve %s: %s", host, gai_strerror(err));
		return -EINVAL;
	}
	while (!g_stop && now_ns() < deadline) {
		for (ai = res; ai; ai = ai->ai_next) {
			fd = sock_connect_one(ai, deadline);
			if (fd >= 0)
				goto out;
		}
		usleep(100000);
	}
out:
	freeaddrinfo(res);
	if (fd < 0)
		pr_err("cannot connect to %s port %s: %s", host, port,
		       strerror(-fd));
	return fd;
}
