// SPDX-License-Identifier: GPL-2.0
/*
 * Ports are planes: mrcd watches its ports' links with rtnetlink (libmnl).
 * A port that loses carrier or that the controller disables is no longer
 * live; main hands that to health, which takes every EV leaving by it out
 * of use at once (ASSUMED_BAD, reason port down) and probes them when it
 * is live again (probes alone return them to GOOD).
 */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "dev.h"
#include "link_msg.h"
#include "links.h"
#include "log.h"
#include "mrc_ctl.h"

int links_port_live(const struct links *l, int p)
{
	return p >= 0 && p < l->nports && l->up[p] &&
	       l->admin[p] == MRC_CTL_PORT_ADMIN_ENABLED;
}

static void live_changed(struct links *l, int p, int live)
{
	log_info("port %s (plane %d) %s\n", l->ifname[p], p,
		 live ? "up: probing its EVs" : "down: its EVs leave use");
	if (l->live_changed)
		l->live_changed(l->ctx, p, live);
}

static void port_changed(struct links *l, int p, int carrier)
{
	int was = links_port_live(l, p);

	l->up[p] = carrier;
	if (links_port_live(l, p) != was)
		live_changed(l, p, !was);
}

void links_resync(struct links *l)
{
	int p;

	for (p = 0; p < l->nports; p++)
		if (!links_port_live(l, p))
			live_changed(l, p, 0);
}

void links_set_admin(struct links *l, int p, int enabled)
{
	int was = links_port_live(l, p);

	if (p < 0 || p >= l->nports)
		return;
	l->admin[p] = enabled ? MRC_CTL_PORT_ADMIN_ENABLED :
				MRC_CTL_PORT_ADMIN_DISABLED;
	log_info("port %s (plane %d) %s by the controller\n", l->ifname[p], p,
		 enabled ? "enabled" : "disabled");
	if (links_port_live(l, p) != was)
		live_changed(l, p, !was);
}

/* A link's state from the kernel: a port's, or none of ours. */
static void on_link(int ifindex, int up, void *arg)
{
	struct links *l = arg;
	int p;

	for (p = 0; p < l->nports; p++)
		if (l->ifindex[p] == ifindex && up != l->up[p])
			port_changed(l, p, up);
}

/*
 * One datagram from the rtnetlink socket, and who sent it. Any local
 * process may unicast to this socket's port id, whatever its uid: only
 * the kernel's messages (port id 0) are the links' state.
 */
static ssize_t links_recv(struct links *l, char *buf, size_t len,
			  uint32_t *from)
{
	struct sockaddr_nl sa = { 0 };
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr mh = { .msg_name = &sa,
			     .msg_namelen = sizeof(sa),
			     .msg_iov = &iov,
			     .msg_iovlen = 1 };
	ssize_t n = recvmsg(l->lfd.fd, &mh, 0);

	if (n < 0)
		return -1;
	if (mh.msg_flags & MSG_TRUNC) {
		errno = ENOSPC;
		return -1;
	}
	*from = mh.msg_namelen >= sizeof(sa) && sa.nl_family == AF_NETLINK ?
			sa.nl_pid :
			UINT32_MAX;
	return n;
}

static void links_ready(struct loop_fd *h)
{
	struct links *l = container_of(h, struct links, lfd);
	char buf[MNL_SOCKET_BUFFER_SIZE];
	uint32_t from;
	ssize_t n;

	while ((n = links_recv(l, buf, sizeof(buf), &from)) >= 0) {
		if (from != 0) {
			l->forged++;
			if (l->forged == 1 || !(l->forged % 1000))
				log_warn(
					"rtnetlink: ignored %llu messages not from the kernel (last from port id %u)\n",
					(unsigned long long)l->forged, from);
			continue;
		}
		link_msg_parse(buf, (size_t)n, on_link, l);
	}
	if (n < 0 && errno == ENOBUFS) {
		/* Missed messages: read every port's state again. */
		int p;

		log_info("netlink overrun: rereading the ports\n");
		for (p = 0; p < l->nports; p++) {
			uint32_t mtu;
			int up = 0;

			dev_link_state(l->ifname[p], &mtu, &up);
			if (up != l->up[p])
				port_changed(l, p, up);
		}
	}
}

int links_init(struct links *l, struct loop *loop, int nports,
	       const char (*ifname)[16], const int *ifindex)
{
	int p, err;

	l->loop = loop;
	l->lfd.fd = -1;
	l->nports = nports > MRC_MAX_PORTS ? MRC_MAX_PORTS : nports;
	for (p = 0; p < l->nports; p++) {
		uint32_t mtu;

		snprintf(l->ifname[p], sizeof(l->ifname[p]), "%s", ifname[p]);
		l->ifindex[p] = ifindex[p];
		l->admin[p] = MRC_CTL_PORT_ADMIN_ENABLED;
		dev_link_state(l->ifname[p], &mtu, &l->up[p]);
	}
	l->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (!l->nl || mnl_socket_bind(l->nl, RTMGRP_LINK, MNL_SOCKET_AUTOPID)) {
		err = -errno;
		log_err("rtnetlink: %s\n", strerror(errno));
		return err;
	}
	return loop_add(loop, &l->lfd, mnl_socket_get_fd(l->nl), links_ready);
}

void links_close(struct links *l)
{
	if (!l->loop)
		return; /* never started */
	loop_del(l->loop, &l->lfd);
	if (l->nl)
		mnl_socket_close(l->nl);
	l->nl = NULL;
}
