// SPDX-License-Identifier: GPL-2.0
/*
 * Doorbells for the low-latency transmit path: a 16-byte UDP datagram to
 * 127.0.0.1:MRC_DOORBELL_PORT that the tc program on lo consumes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mrc/abi.h"
#include "mrc/doorbell.h"

static struct sockaddr_in db_addr(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET };

	a.sin_port = htons(MRC_DOORBELL_PORT);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

int mrc_doorbell_socket(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), one = 1, err;
	struct sockaddr_in a = db_addr();

	if (fd < 0)
		return -errno;
	/*
	 * Without a checksum the skb is CHECKSUM_NONE and the program
	 * stores the packet's full checksum; with one it is
	 * CHECKSUM_PARTIAL and the port's transmit completes it (ctx.h).
	 * Connecting caches the route: send() skips the lookup.
	 */
	if (setsockopt(fd, SOL_SOCKET, SO_NO_CHECK, &one, sizeof(one)) ||
	    connect(fd, (const struct sockaddr *)&a, sizeof(a))) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

int mrc_doorbell_ring(int udp_fd, uint32_t qpn, uint64_t token)
{
	struct mrc_doorbell db = { .qpn = qpn, .token = token };
	struct sockaddr_in a;
	ssize_t n;

	db.magic = htonl(MRC_DOORBELL_MAGIC);
	n = send(udp_fd, &db, sizeof(db), 0);
	if (n < 0 && (errno == EDESTADDRREQ || errno == ENOTCONN)) {
		a = db_addr();
		n = sendto(udp_fd, &db, sizeof(db), 0,
			   (const struct sockaddr *)&a, sizeof(a));
	}
	if (n < 0)
		return -errno;
	return n == sizeof(db) ? 0 : -EIO;
}
