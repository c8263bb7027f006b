// SPDX-License-Identifier: GPL-2.0
/*
 * The service manager's readiness protocol: one datagram per state
 * change to the AF_UNIX socket named by $NOTIFY_SOCKET (a path, or an
 * abstract name when it starts with '@').
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "notify.h"

int notify_send(const char *msg)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t len;
	int fd, err = 0;

	if (!path || !*path)
		return 0;
	if ((path[0] != '/' && path[0] != '@') ||
	    strlen(path) >= sizeof(sa.sun_path))
		return -EINVAL;
	memcpy(sa.sun_path, path, strlen(path));
	if (path[0] == '@')
		sa.sun_path[0] = 0; /* abstract */
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
			  strlen(path) + (path[0] == '/'));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&sa,
		   len) < 0)
		err = -errno;
	close(fd);
	return err;
}

int notify_reloading(void)
{
	struct timespec ts;
	char msg[64];

	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(msg, sizeof(msg), "RELOADING=1\nMONOTONIC_USEC=%llu",
		 (unsigned long long)ts.tv_sec * 1000000ull +
			 (unsigned long long)ts.tv_nsec / 1000);
	return notify_send(msg);
}
