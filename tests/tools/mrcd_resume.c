// SPDX-License-Identifier: GPL-2.0
/*
 * mrcd_resume SOCKET SESSION: one MRCD_RESUME of session SESSION (hex) on
 * a new connection to mrcd, as libmrc sends it after a restart; prints
 * the answer ("ok" or the errno name) and exits 0 once answered. Tests
 * use it to show that a session is only its own process's to resume.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "mrc/mrcd_proto.h"
#include "mrc/msg.h"

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct mrcd_req req = { .op = MRCD_RESUME,
				.version = MRCD_PROTO_VERSION };
	struct mrcd_rep rep;
	int fds[MRC_MSG_MAX_FDS], nfds = 0, fd, i;
	char *end;
	ssize_t n;

	if (argc != 3 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: mrcd_resume SOCKET SESSION-HEX\n");
		return 2;
	}
	errno = 0;
	req.resume.session = strtoull(argv[2], &end, 16);
	if (errno || *end || end == argv[2]) {
		fprintf(stderr, "mrcd_resume: bad session '%s'\n", argv[2]);
		return 2;
	}
	strcpy(sa.sun_path, argv[1]);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "mrcd_resume: %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	n = mrc_msg_send(fd, &req, sizeof(req), NULL, 0);
	if (!n)
		n = mrc_msg_recv(fd, &rep, sizeof(rep), fds, &nfds);
	for (i = 0; i < nfds; i++)
		close(fds[i]);
	if (n != (ssize_t)sizeof(rep)) {
		fprintf(stderr, "mrcd_resume: no answer (%zd)\n", n);
		return 1;
	}
	printf("%s\n", rep.err ? strerrorname_np(rep.err) : "ok");
	close(fd);
	return 0;
}
