// SPDX-License-Identifier: GPL-2.0
/*
 * The MPTCP baseline for the failover benchmark (tests/bench/failover.sh):
 * one MPTCP connection, its subflows over every plane, a bulk transfer,
 * and the same failover figures mrc-perf --at reports, measured at the
 * receiver from the time of each read (tools/perf/timeline.c does the
 * arithmetic for both).
 *
 *   mptcp_bulk server --port P --seconds S [--at MS:CMD]... [--surviving F]
 *   mptcp_bulk client --dst ADDR --port P --seconds S
 *
 * The server runs the --at commands (the fault, the heal) counting from
 * its first byte, and prints one JSON object. Every loop is bounded by
 * --seconds.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "timeline.h"

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: mptcp_bulk server --port P --seconds S [--at MS:CMD]... [--surviving F]\n"
		"       mptcp_bulk client --dst ADDR --port P --seconds S\n");
	return 2;
}

static int server(int port, double seconds, const char *const *at, int nat,
		  double surviving)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port) };
	static char buf[1 << 16];
	uint64_t t0 = 0, end = 0, bytes = 0, now;
	int one = 1, lfd, fd;
	struct pollfd p;
	struct tl *t;
	ssize_t n;

	t = tl_new(NULL, at, nat);
	lfd = socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP);
	if (!t || lfd < 0) {
		perror("mptcp_bulk: MPTCP socket");
		return 1;
	}
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 1)) {
		perror("mptcp_bulk: listen");
		return 1;
	}
	p = (struct pollfd){ .fd = lfd, .events = POLLIN };
	if (poll(&p, 1, (int)(seconds * 1000) + 10000) != 1) {
		fprintf(stderr, "mptcp_bulk: no client\n");
		return 1;
	}
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		return 1;
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	for (;;) {
		if (poll(&p, 1, 1) < 0 && errno != EINTR)
			break;
		now = now_ns();
		if (t0)
			tl_tick(t, now);
		if (end && now > end)
			break;
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			break;
		}
		if (!t0) {
			t0 = now;
			end = t0 + (uint64_t)(seconds * 1e9) + 2000000000ull;
			tl_start(t, t0, NULL);
		}
		bytes += (uint64_t)n;
		tl_completion(t, now, 0, (uint64_t)n); /* no stamp: TCP */
	}
	tl_finish_surviving(t, now_ns(), surviving);
	printf("{\"bytes\":%llu,\"gbit_per_s\":%.3f", (unsigned long long)bytes,
	       t0 ? (double)bytes * 8 / (double)(now_ns() - t0) : 0.0);
	tl_json(t, stdout);
	printf("}\n");
	tl_free(t);
	close(fd);
	close(lfd);
	return 0;
}

static int client(const char *dst, int port, double seconds)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((uint16_t)port) };
	static char buf[1 << 16];
	uint64_t end;
	int fd, tries;

	if (inet_pton(AF_INET, dst, &a.sin_addr) != 1)
		return usage();
	for (tries = 0;; tries++) {
		fd = socket(AF_INET, SOCK_STREAM, IPPROTO_MPTCP);
		if (fd < 0) {
			perror("mptcp_bulk: MPTCP socket");
			return 1;
		}
		if (!connect(fd, (struct sockaddr *)&a, sizeof(a)))
			break;
		close(fd);
		if (tries == 50) {
			perror("mptcp_bulk: connect");
			return 1;
		}
		usleep(100000);
	}
	memset(buf, 0x5a, sizeof(buf));
	end = now_ns() + (uint64_t)(seconds * 1e9);
	while (now_ns() < end)
		if (send(fd, buf, sizeof(buf), 0) < 0 && errno != EINTR)
			break;
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", 1, 0, 'p' },	    { "seconds", 1, 0, 's' },
		{ "dst", 1, 0, 'd' },	    { "at", 1, 0, 'a' },
		{ "surviving", 1, 0, 'f' }, {}
	};
	const char *at[TL_MAX_AT], *dst = NULL;
	double seconds = 3, surviving = 1;
	int c, port = 18600, nat = 0;

	if (argc < 2)
		return usage();
	optind = 2;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			port = atoi(optarg);
			break;
		case 's':
			seconds = atof(optarg);
			break;
		case 'd':
			dst = optarg;
			break;
		case 'a':
			if (nat == TL_MAX_AT)
				return usage();
			at[nat++] = optarg;
			break;
		case 'f':
			surviving = atof(optarg);
			break;
		default:
			return usage();
		}
	}
	if (port < 1 || port > 65535 || seconds <= 0 || seconds > 60 ||
	    surviving <= 0 || surviving > 1)
		return usage();
	if (!strcmp(argv[1], "server"))
		return server(port, seconds, at, nat, surviving);
	if (!strcmp(argv[1], "client") && dst)
		return client(dst, port, seconds);
	return usage();
}
