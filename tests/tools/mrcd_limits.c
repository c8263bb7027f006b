// SPDX-License-Identifier: GPL-2.0
/*
 * mrcd's limits, tried by clients that would exhaust it (docs/security.md,
 * "exhaust mrcd"), each checked against what mrcd promises:
 *   max-clients  exactly MAX connections are answered; the next one is
 *                closed unanswered; when one leaves, a new one is answered
 *   slow reader  a client that sends requests and never reads a reply is
 *                dropped (its socket reaches EOF), while a fresh client is
 *                answered within 2 s
 *   regions      one registration of more than half the host's memory is
 *                ENOMEM at once (nothing allocated: answered within 2 s)
 * mrcd must have no other client. Prints one line per check; exits 1 on
 * the first that fails.
 *
 *   mrcd_limits --socket PATH --max-clients MAX
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "mrc/mrcd_proto.h"
#include "mrc/msg.h"

#define CLIENTS_MAX 1024 /* mrcd's own bound on max-clients */

static const char *sock_path;

static int connect_mrcd(void)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	struct timeval two_s = { .tv_sec = 2 };

	if (fd < 0)
		return -1;
	/* Never wait on mrcd for good: a send blocks 2 s at most. */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &two_s, sizeof(two_s));
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", sock_path);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Sends req and waits up to 2 s for the reply: 1 with it in rep (its fds
 * closed), 0 when none came, -1 when mrcd closed the connection.
 */
static int call(int fd, struct mrcd_req *req, struct mrcd_rep *rep)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int fds[8], nfds = 0, i;
	ssize_t n;

	req->version = MRCD_PROTO_VERSION;
	if (mrc_msg_send(fd, req, sizeof(*req), NULL, 0) < 0)
		return errno == EPIPE || errno == ECONNRESET ? -1 : 0;
	if (poll(&p, 1, 2000) <= 0)
		return 0;
	n = mrc_msg_recv(fd, rep, sizeof(*rep), fds, &nfds);
	for (i = 0; i < nfds; i++)
		close(fds[i]);
	return n > 0 ? 1 : -1;
}

/* A new connection that mrcd answers; its fd, or -1. */
static int hello_once(void)
{
	struct mrcd_req r = { .op = MRCD_HELLO };
	struct mrcd_rep rep;
	int fd = connect_mrcd();

	if (fd < 0)
		return -1;
	if (call(fd, &r, &rep) != 1 || rep.err) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The same within 2 s: mrcd may see a new connection before the close of
 * one that left (both wait in one epoll_wait), and refuses it then.
 */
static int hello(void)
{
	double t0 = now_s();
	int fd;

	while ((fd = hello_once()) < 0 && now_s() - t0 < 2)
		usleep(10000);
	return fd;
}

static int max_clients(int max)
{
	static int fd[CLIENTS_MAX + 1];
	struct mrcd_req r = { .op = MRCD_HELLO };
	struct mrcd_rep rep;
	int i, rc, extra;

	for (i = 0; i < max; i++) {
		fd[i] = hello_once();
		if (fd[i] < 0) {
			fprintf(stderr,
				"mrcd_limits: connection %d of max-clients %d not answered\n",
				i + 1, max);
			return -1;
		}
	}
	extra = connect_mrcd();
	rc = extra < 0 ? -1 : call(extra, &r, &rep);
	if (rc != -1) {
		fprintf(stderr,
			"mrcd_limits: connection %d of max-clients %d %s\n",
			max + 1, max,
			rc ? "was answered" :
			     "was neither answered nor closed in 2 s");
		return -1;
	}
	close(extra);
	close(fd[0]);
	fd[0] = hello();
	if (fd[0] < 0) {
		fprintf(stderr,
			"mrcd_limits: a connection after one of %d left was not answered\n",
			max);
		return -1;
	}
	for (i = 0; i < max; i++)
		close(fd[i]);
	printf("max-clients: %d connections answered, connection %d closed unanswered, one more answered after one left\n",
	       max, max + 1);
	return 0;
}

static int slow_reader(void)
{
	struct mrcd_req r = { .op = MRCD_HELLO, .version = MRCD_PROTO_VERSION };
	int fd = hello(), probe, dropped = 0, fds[8], nfds, i;
	double t0 = now_s(), answered_s = -1;
	struct mrcd_rep rep;
	long sent = 0, read = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	/* Requests, never a reply read, until mrcd gives up on us. */
	while (now_s() - t0 < 20 && sent < 1000000) {
		if (mrc_msg_send(fd, &r, sizeof(r), NULL, 0) < 0) {
			if (errno == EPIPE || errno == ECONNRESET) {
				dropped = 1;
				break;
			}
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != ENOBUFS) {
				perror("mrcd_limits: sending");
				return -1;
			}
			usleep(1000);
			continue;
		}
		sent++;
		if (sent == 20) {
			/* Meanwhile, others are served. */
			double t = now_s();

			probe = hello();
			if (probe < 0) {
				fprintf(stderr,
					"mrcd_limits: a client was not answered while another did not read\n");
				return -1;
			}
			answered_s = now_s() - t;
			close(probe);
		}
	}
	/* The replies mrcd queued before it closed, then EOF. */
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, 2000) <= 0)
			break;
		n = mrc_msg_recv(fd, &rep, sizeof(rep), fds, &nfds);
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		if (n <= 0) {
			dropped = 1;
			break;
		}
		read++;
	}
	close(fd);
	if (!dropped) {
		fprintf(stderr,
			"mrcd_limits: a client that read no reply for %.1f s (%ld requests) was not dropped\n",
			now_s() - t0, sent);
		return -1;
	}
	if (hello() < 0) {
		fprintf(stderr,
			"mrcd_limits: no answer after dropping a slow reader\n");
		return -1;
	}
	printf("slow reader: dropped after %ld requests (%ld replies were queued for it) in %.2f s; another client answered meanwhile in %.3f s\n",
	       sent, read, now_s() - t0, answered_s);
	return 0;
}

static int regions(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	struct mrcd_req r = { .op = MRCD_PD_ALLOC };
	uint64_t half = (uint64_t)pages * (uint64_t)size / 2;
	int fd = hello(), rc;
	struct mrcd_rep rep;
	double t;

	if (fd < 0 || call(fd, &r, &rep) != 1 || rep.err) {
		fprintf(stderr, "mrcd_limits: allocating a PD failed\n");
		return -1;
	}
	r.op = MRCD_MR_REG;
	r.mr.pd = rep.obj.idx;
	r.mr.access = 7; /* local write, remote write and read */
	r.mr.len = half + 4096;
	r.mr.va = 0x10000000;
	t = now_s();
	rc = call(fd, &r, &rep);
	close(fd);
	if (rc != 1 || rep.err != ENOMEM) {
		fprintf(stderr,
			"mrcd_limits: registering %llu bytes (half the host's memory and a page): %s\n",
			(unsigned long long)r.mr.len,
			rc != 1 ? "no reply" :
			rep.err ? strerror(rep.err) :
				  "succeeded");
		return -1;
	}
	printf("regions: %llu bytes (half the host's memory and a page) refused with ENOMEM in %.3f s\n",
	       (unsigned long long)r.mr.len, now_s() - t);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "socket", required_argument, NULL, 'S' },
		{ "max-clients", required_argument, NULL, 'm' },
		{}
	};
	int opt, max = 0;

	while ((opt = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (opt) {
		case 'S':
			sock_path = optarg;
			break;
		case 'm':
			max = atoi(optarg);
			break;
		default:
			return 2;
		}
	}
	if (!sock_path || max < 1 || max > CLIENTS_MAX) {
		fprintf(stderr,
			"usage: mrcd_limits --socket PATH --max-clients 1..%d\n",
			CLIENTS_MAX);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (max_clients(max) || slow_reader() || regions())
		return 1;
	return 0;
}
