// SPDX-License-Identifier: GPL-2.0
/*
 * Ports are planes: mrcd watches its ports' links with rtnetlink (libmnl).
 * A port that loses carrier or goes admin down takes every EV of every QP
 * that leaves by it out of use at once (ASSUMED_BAD, reason port down),
 * through the control program; when it comes back those EVs are probed
 * at once, and probes alone return them to GOOD (health.c).
 */
#include <errno.h>
#include <libmnl/libmnl.h>
#include <linux/if.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "link_msg.h"
#include "links.h"
#include "mrcd.h"

int links_port_live(const struct mrcd *m, int p)
{
	return m->port_up[p] && m->port_admin[p] == MRC_CTL_PORT_ADMIN_ENABLED;
}

/* Port p became live (up) or stopped being live: carrier or admin. */
static void port_live_changed(struct mrcd *m, int p, int up)
{
	struct mrc_qp_view qt;
	uint64_t now = mrcd_now_ns();
	uint32_t qpn, i;
	int n = 0;

	mrcd_log(m, 0, "port %s (plane %d) %s\n", m->port[p].ifname, p,
		 up ? "up: probing its EVs" : "down: its EVs leave use");
	for (qpn = 0; qpn < MRC_MAX_QP; qpn++) {
		struct qp_ent *q = &m->qp[qpn];

		if (!q->owner || q->state != MRC_QPS_RTS ||
		    dev_qp_view(&m->dev, qpn, &qt))
			continue;
		for (i = 0; i < qt.nev && i < MRC_QP_EVS; i++) {
			if (qt.ev_port[i] != (uint32_t)p)
				continue;
			if (!up) {
				if (!dev_ev_cmd(&m->dev, MRC_DP_EV_BAD, qpn, i,
						MRC_EV_R_PORT_DOWN))
					n++;
			} else if (q->ev &&
				   q->ev[i].state == MRC_EV_ASSUMED_BAD) {
				/* Back: probe now, not after the backoff the
				 * dead port ran up. */
				q->ev[i].backoff_ns =
					(uint64_t)m->cfg.probe_backoff_min_ms *
					1000000ull;
				q->ev[i].due_ns = now;
				q->ev[i].deadline_ns = now;
				n++;
			}
		}
	}
	mrcd_log(m, 1, "port %s: %d EVs %s\n", m->port[p].ifname, n,
		 up ? "to probe" : "out of use");
}

static void port_changed(struct mrcd *m, int p, int carrier)
{
	int was = links_port_live(m, p);

	m->port_up[p] = carrier;
	if (links_port_live(m, p) != was)
		port_live_changed(m, p, !was);
}

void links_resync(struct mrcd *m)
{
	int p;

	for (p = 0; p < m->nports; p++)
		if (!links_port_live(m, p))
			port_live_changed(m, p, 0);
}

void links_set_admin(struct mrcd *m, int p, int enabled)
{
	int was = links_port_live(m, p);

	m->port_admin[p] = enabled ? MRC_CTL_PORT_ADMIN_ENABLED :
				     MRC_CTL_PORT_ADMIN_DISABLED;
	mrcd_log(m, 0, "port %s (plane %d) %s by the controller\n",
		 m->port[p].ifname, p, enabled ? "enabled" : "disabled");
	if (links_port_live(m, p) != was)
		port_live_changed(m, p, !was);
}

/* A link's state from the kernel: a port's, or none of ours. */
static void on_link(int ifindex, int up, void *arg)
{
	struct mrcd *m = arg;
	int p;

	for (p = 0; p < m->nports; p++)
		if (m->dev.port[p].ifindex == ifindex && up != m->port_up[p])
			port_changed(m, p, up);
}

/*
 * One datagram from the rtnetlink socket, and who sent it. Any local
 * process may unicast to this socket's port id, whatever its uid: only
 * the kernel's messages (port id 0) are the links' state.
 */
static ssize_t links_recv(struct mrcd *m, char *buf, size_t len, uint32_t *from)
{
	struct sockaddr_nl sa = { 0 };
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr mh = { .msg_name = &sa,
			     .msg_namelen = sizeof(sa),
			     .msg_iov = &iov,
			     .msg_iovlen = 1 };
	ssize_t n = recvmsg(mnl_socket_get_fd(m->nl), &mh, 0);

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

void links_event(struct mrcd *m)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	uint32_t from;
	ssize_t n;

	while ((n = links_recv(m, buf, sizeof(buf), &from)) >= 0) {
		if (from != 0) {
			m->links_forged++;
			if (m->links_forged == 1 || !(m->links_forged % 1000))
				mrcd_log(
					m, 0,
					"rtnetlink: ignored %llu messages not from the kernel (last from port id %u)\n",
					(unsigned long long)m->links_forged,
					from);
			continue;
		}
		link_msg_parse(buf, (size_t)n, on_link, m);
	}
	if (n < 0 && errno == ENOBUFS) {
		/* Missed messages: read every port's state again. */
		int p;

		mrcd_log(m, 0, "netlink overrun: rereading the ports\n");
		for (p = 0; p < m->nports; p++) {
			uint32_t mtu;
			int up = 0;

			dev_link_state(m->port[p].ifname, &mtu, &up);
			if (up != m->port_up[p])
				port_changed(m, p, up);
		}
	}
}

int links_init(struct mrcd *m)
{
	struct epoll_event ee = { .events = EPOLLIN };
	int p, fd;

	for (p = 0; p < m->nports; p++) {
		uint32_t mtu;

		dev_link_state(m->port[p].ifname, &mtu, &m->port_up[p]);
	}
	m->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (!m->nl || mnl_socket_bind(m->nl, RTMGRP_LINK, MNL_SOCKET_AUTOPID)) {
		fprintf(stderr, "mrcd: rtnetlink: %s\n", strerror(errno));
		return -errno;
	}
	fd = mnl_socket_get_fd(m->nl);
	ee.data.u64 = (uint64_t)TAG_LINK << 32;
	if (epoll_ctl(m->epfd, EPOLL_CTL_ADD, fd, &ee))
		return -errno;
	return 0;
}

void links_close(struct mrcd *m)
{
	if (m->nl)
		mnl_socket_close(m->nl);
	m->nl = NULL;
}
