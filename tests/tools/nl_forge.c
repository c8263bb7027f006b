// SPDX-License-Identifier: GPL-2.0
/*
 * A process forging link state: sends one rtnetlink message,
 * RTM_NEWLINK (link down: no IFF_UP, no IFF_RUNNING) or RTM_DELLINK, for
 * interface IFINDEX straight to the netlink port id of another process's
 * socket (mrcd's link watch); the kernel allows it with CAP_NET_ADMIN
 * only. The kernel never sent it.
 *
 *   nl_forge --portid ID --ifindex N [--del] [--count K]
 *
 * Exits 0 once every message was accepted by the kernel for delivery.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

static unsigned long num(const char *opt, const char *s)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || !*s || *end) {
		fprintf(stderr, "nl_forge: --%s: '%s' is not a number\n", opt,
			s);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = { { "portid", 1, 0, 'p' },
					      { "ifindex", 1, 0, 'i' },
					      { "del", 0, 0, 'd' },
					      { "count", 1, 0, 'c' },
					      { 0, 0, 0, 0 } };
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
	} msg;
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	unsigned long portid = 0, ifindex = 0, count = 1, i;
	int c, fd, del = 0, have_portid = 0;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			portid = num("portid", optarg);
			have_portid = 1;
			break;
		case 'i':
			ifindex = num("ifindex", optarg);
			break;
		case 'd':
			del = 1;
			break;
		case 'c':
			count = num("count", optarg);
			break;
		default:
			return 2;
		}
	}
	if (!have_portid || !portid || !ifindex) {
		fprintf(stderr, "usage: nl_forge --portid ID --ifindex N "
				"[--del] [--count K]\n");
		return 2;
	}
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0) {
		perror("nl_forge: socket");
		return 1;
	}
	memset(&msg, 0, sizeof(msg));
	msg.nh.nlmsg_len = sizeof(msg);
	msg.nh.nlmsg_type = del ? RTM_DELLINK : RTM_NEWLINK;
	msg.ifi.ifi_family = AF_UNSPEC;
	msg.ifi.ifi_index = (int)ifindex;
	msg.ifi.ifi_flags = 0; /* down, no carrier */
	msg.ifi.ifi_change = ~0u;
	to.nl_pid = (__u32)portid;
	for (i = 0; i < count; i++) {
		msg.nh.nlmsg_seq = (__u32)i;
		if (sendto(fd, &msg, sizeof(msg), 0, (struct sockaddr *)&to,
			   sizeof(to)) != (ssize_t)sizeof(msg)) {
			perror("nl_forge: sendto");
			return 1;
		}
	}
	close(fd);
	printf("sent %lu forged %s for ifindex %lu to port id %lu\n", count,
	       del ? "RTM_DELLINK" : "RTM_NEWLINK", ifindex, portid);
	return 0;
}
