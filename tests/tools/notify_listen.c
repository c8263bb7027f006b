// SPDX-License-Identifier: GPL-2.0
/*
 * notify_listen SOCKET SECONDS: stands in for the service manager. Binds
 * a datagram socket at SOCKET (the path a service gets as
 * $NOTIFY_SOCKET) and prints every message it receives as one line
 * (newlines inside a message become spaces), flushed, until SECONDS have
 * passed or a message contains STOPPING=1 and then one more second.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	double end;
	char buf[4096];
	int fd;

	if (argc != 3 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: notify_listen SOCKET SECONDS\n");
		return 2;
	}
	strcpy(sa.sun_path, argv[1]);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	unlink(argv[1]);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "notify_listen: %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	printf("listening\n");
	fflush(stdout);
	end = now_s() + atof(argv[2]);
	while (now_s() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int i;

		if (poll(&p, 1, 100) <= 0)
			continue;
		n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			continue;
		buf[n] = 0;
		for (i = 0; i < n; i++)
			if (buf[i] == '\n')
				buf[i] = ' ';
		printf("%s\n", buf);
		fflush(stdout);
		if (strstr(buf, "STOPPING=1") && end > now_s() + 1)
			end = now_s() + 1;
	}
	unlink(argv[1]);
	return 0;
}
