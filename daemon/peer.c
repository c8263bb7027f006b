// SPDX-License-Identifier: GPL-2.0
/*
 * Messages between the mrcds of two peer QPs (peer.h, wire.h's CEXT).
 *
 * Trust: an off-path host can send us anything from any address, so
 * nothing here acts on a message before it is validated. A message must
 * name (BTH) one of our QPs in RTR or RTS whose peer is the message's
 * sqpn at the message's source address on the plane it came in on. Then:
 * - a hello is believed in nothing: it is answered (our token, bit and
 *   window, to the peer's address, which only the peer receives), and if
 *   we know nothing of the peer yet, or it offers another token (its mrcd
 *   restarted, or a forger), we say hello back;
 * - a hello answer is believed only if it returns the number of the hello
 *   we sent, which went only to the peer's address;
 * - a port status update or its answer only if it carries our token,
 *   which went only to the peer's address.
 * So a blind forger must guess 32 random bits, as for an ACK's echo
 * (docs/security.md); one on the path can do anything, as with any packet.
 */
#define _GNU_SOURCE /* struct in6_pktinfo */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "dev.h"
#include "health.h"
#include "links.h"
#include "log.h"
#include "peer.h"
#include "plane.h"
#include "probe.h"
#include "mrc/wire.h"

/* Control messages leave with this UDP source port (no EV: no data). */
#define PEER_SPORT MRC_UDP_PORT

static const char *const drop_names[] = {
#define PEER_DROP_NAME(name, text) text,
	PEER_DROPS(PEER_DROP_NAME)
#undef PEER_DROP_NAME
};

const char *peer_drop_name(int reason)
{
	return reason >= 0 && reason < PEER_DROP_MAX ? drop_names[reason] : "?";
}

static void drop(struct peer *pe, int p, enum peer_drop why, uint32_t qpn)
{
	pe->st.drop[why]++;
	pe->st.port_drop[p >= 0 && p < pe->nports ? p : 0][why]++;
	log_debug("control message for QP %u dropped: %s\n", qpn,
		  drop_names[why]);
}

/* A live port: the one the QP's plane 0 is, or the first live one. */
static int out_port(const struct peer *pe)
{
	int p;

	for (p = 0; p < pe->nports; p++)
		if (!pe->links || links_port_live(pe->links, p))
			return p;
	return -1;
}

static int send_cext(struct peer *pe, int p, uint32_t qpn, uint8_t type,
		     uint32_t seq, uint32_t token, uint32_t value,
		     uint16_t sport, uint16_t fl, uint8_t tos)
{
	struct peer_qp *q = &pe->qp[qpn];
	struct mrc_cext cx = {
		.version = MRC_WIRE_VERSION,
		.type = type,
		.flags = q->dyn_local ? MRC_CTLF_DYN_MPR : 0,
		.sqpn = htonl(qpn),
		.seq = htonl(seq),
		.token = htonl(token),
		.value = htonl(value),
	};
	struct mrc_srv6_route rt;
	int err, has_rt;

	if (p < 0 || p >= pe->nports)
		return -ENODEV;
	/* An SRv6 QP's messages take one of its routes on that port. */
	has_rt = pe->dev && !dev_qp_route(pe->dev, qpn, -1, (uint32_t)p, &rt);
	err = probe_ctl_frame(pe->probe, (uint32_t)p, q->peer_addr[p], sport,
			      fl, q->peer_qpn, &cx, tos, has_rt ? &rt : NULL);
	if (!err)
		pe->st.sent++;
	return err;
}

/*
 * Hello, or hello again. One said within the retry interval keeps the
 * number of the hello before it, whose answer may be on its way: at RTR
 * and then RTS, the first answer was otherwise a stray. A retry past the
 * interval takes a new number; learn() clears it.
 */
static void say_hello(struct peer *pe, uint32_t qpn)
{
	struct peer_qp *q = &pe->qp[qpn];
	uint64_t now = now_ns();
	int err;

	if (!q->hello_seq || now >= q->hello_due_ns)
		q->hello_seq = probe_nonce();
	q->hello_tries++;
	q->hello_due_ns = now + PEER_HELLO_RETRY_NS;
	qpset_add(&pe->hello_waiting, qpn);
	err = send_cext(pe, out_port(pe), qpn, MRC_CTL_HELLO, q->hello_seq,
			q->my_token, q->window_rx, PEER_SPORT, 0, 0);
	if (err)
		log_debug("QP %u: hello: %s\n", qpn, strerror(-err));
}

/*
 * Dynamic MPR in effect (both enabled it): the send half honours the
 * peer's receive window when it is smaller than our own MPR; else our
 * application's MPR stands, as without it.
 */
static void apply_window(struct peer *pe, uint32_t qpn)
{
	struct peer_qp *q = &pe->qp[qpn];
	uint32_t w = q->window_tx;
	int err;

	if (!q->rts)
		return;
	if (q->dyn_local && q->dyn_peer && q->peer_window && q->peer_window < w)
		w = q->peer_window;
	if (w == q->window || !w)
		return;
	err = dev_qp_set_window(pe->dev, qpn, w);
	if (err) {
		log_info("QP %u: window %u: %s\n", qpn, w, strerror(-err));
		return;
	}
	log_debug("QP %u: window %u PSNs (dynamic MPR %s)\n", qpn, w,
		  q->dyn_local && q->dyn_peer ? "on" : "off");
	q->window = w;
}

void peer_qp_state(struct peer *pe, uint32_t qpn, uint32_t state,
		   uint32_t peer_qpn, const uint8_t peer_gid[16], int dyn,
		   uint32_t window_rx, uint32_t window_tx)
{
	struct peer_qp *q;

	if (!pe || qpn >= MRC_MAX_QP)
		return;
	q = &pe->qp[qpn];
	if (state != MRC_QPS_RTR && state != MRC_QPS_RTS) {
		if (state != MRC_QPS_ERR) {
			memset(q, 0, sizeof(*q)); /* a new connection next */
			qpset_del(&pe->hello_waiting, qpn);
		} else {
			q->rts = 0;
		}
		return;
	}
	if (!q->live) {
		memset(q, 0, sizeof(*q));
		qpset_del(&pe->hello_waiting, qpn);
		q->my_token = probe_nonce();
	}
	q->live = 1;
	q->peer_qpn = peer_qpn;
	q->dyn_local = !!dyn;
	q->window_rx = window_rx;
	if (peer_gid &&
	    plane_peer_addrs(pe->port, pe->nports, peer_gid, q->peer_addr))
		memset(q->peer_addr, 0, sizeof(q->peer_addr));
	if (state == MRC_QPS_RTS && !q->rts) {
		q->rts = 1;
		q->window_tx = window_tx;
		q->window = window_tx; /* what the RTS configuration set */
		apply_window(pe, qpn);
	}
	if (!q->known) {
		q->hello_tries = 0;
		say_hello(pe, qpn);
	}
}

uint32_t peer_qp_dyn(const struct peer *pe, uint32_t qpn)
{
	const struct peer_qp *q;

	if (!pe || qpn >= MRC_MAX_QP)
		return 0;
	q = &pe->qp[qpn];
	return (uint32_t)q->dyn_local | (uint32_t)(q->known && q->dyn_peer)
						<< 1;
}

int peer_qp_mpr(struct peer *pe, uint32_t qpn, uint32_t window_rx)
{
	struct peer_qp *q;
	int err;

	if (!pe || qpn >= MRC_MAX_QP)
		return -EINVAL;
	q = &pe->qp[qpn];
	if (!q->rts || !q->dyn_local || !q->known || !q->dyn_peer ||
	    !window_rx || window_rx > MRC_RX_WINDOW_MAX)
		return -EINVAL;
	if (window_rx == q->window_rx)
		return 0;
	/*
	 * Ours first: what the requester has in flight beyond a smaller
	 * window meanwhile is NACKed psn_window and sent again, as always.
	 */
	err = dev_qp_set_rx_window(pe->dev, qpn, window_rx);
	if (err)
		return err;
	q->window_rx = window_rx;
	err = send_cext(pe, out_port(pe), qpn, MRC_CTL_MPR, probe_nonce(),
			q->peer_token, window_rx, PEER_SPORT, 0, 0);
	if (err)
		log_info("QP %u: telling the peer our MPR %u: %s\n", qpn,
			 window_rx, strerror(-err));
	return 0;
}

int peer_psu_send(struct peer *pe, uint32_t p, const uint8_t addr[16],
		  uint16_t sport, uint16_t fl, uint32_t status, uint32_t seq,
		  uint8_t tos)
{
	uint32_t qpn;

	if (p >= (uint32_t)pe->nports)
		return -ENODEV;
	for (qpn = 0; qpn < MRC_MAX_QP; qpn++) {
		struct peer_qp *q = &pe->qp[qpn];

		if (!q->rts || !q->known ||
		    memcmp(q->peer_addr[p], addr, pe->v6 ? 16 : 4))
			continue;
		return send_cext(pe, (int)p, qpn, MRC_CTL_PSU, seq,
				 q->peer_token, status, sport, fl, tos);
	}
	return -ENOTCONN;
}

/* What a validated answer or port status update says of the peer. */
static void learn(struct peer *pe, uint32_t qpn, const struct mrc_cext *cx)
{
	struct peer_qp *q = &pe->qp[qpn];

	q->peer_token = ntohl(cx->token);
	q->dyn_peer = !!(cx->flags & MRC_CTLF_DYN_MPR);
	q->peer_window = ntohl(cx->value);
	q->known = 1;
	q->hello_seq = 0;
	qpset_del(&pe->hello_waiting, qpn);
	apply_window(pe, qpn);
}

/* Port status: every QP of ours in RTS to the same peer host. */
static void apply_psu(struct peer *pe, int p, const uint8_t src[16],
		      uint32_t status)
{
	uint32_t mask = pe->nports >= 32 ? ~0u : (1u << pe->nports) - 1;
	uint32_t down = ~status & mask, qpn;
	uint64_t until = now_ns() + PEER_PSU_HOLD_NS;

	for (qpn = 0; qpn < MRC_MAX_QP; qpn++) {
		struct peer_qp *q = &pe->qp[qpn];

		if (!q->rts || memcmp(q->peer_addr[p], src, pe->v6 ? 16 : 4))
			continue;
		if (health_peer_ports(pe->health, qpn, down, until) >= 0)
			pe->st.psu_applied++;
	}
}

void peer_input(struct peer *pe, int p, const uint8_t src[16], const void *msg,
		uint32_t len)
{
	const struct mrc_bth *bth = msg;
	const struct mrc_cext *cx = (const void *)(bth + 1);
	struct peer_qp *q;
	uint32_t qpn = 0, value;

	pe->st.rx++;
	if (len < sizeof(*bth)) {
		drop(pe, p, PEER_DROP_TRUNCATED, 0);
		return;
	}
	if (bth->opcode != MRC_OP_CTL) {
		drop(pe, p, PEER_DROP_BAD_OPCODE, 0);
		return;
	}
	if (len != MRC_CTL_LEN) {
		drop(pe, p, PEER_DROP_TRUNCATED, 0);
		return;
	}
	qpn = ntohl(bth->dqpn) & MRC_BTH_QPN_MASK;
	if (cx->version != MRC_WIRE_VERSION) {
		drop(pe, p, PEER_DROP_BAD_VERSION, qpn);
		return;
	}
	if (cx->type < MRC_CTL_PSU || cx->type > MRC_CTL_MPR) {
		drop(pe, p, PEER_DROP_BAD_TYPE, qpn);
		return;
	}
	if (p < 0 || p >= pe->nports) {
		drop(pe, p, PEER_DROP_NO_PORT, qpn);
		return;
	}
	if (qpn >= MRC_MAX_QP || !pe->qp[qpn].live) {
		drop(pe, p, PEER_DROP_UNKNOWN_QP, qpn);
		return;
	}
	q = &pe->qp[qpn];
	if (ntohl(cx->sqpn) != q->peer_qpn ||
	    memcmp(q->peer_addr[p], src, pe->v6 ? 16 : 4)) {
		drop(pe, p, PEER_DROP_NOT_PEER, qpn);
		return;
	}
	value = ntohl(cx->value);
	switch (cx->type) {
	case MRC_CTL_HELLO:
		if (!value || value > MRC_RX_WINDOW_MAX) {
			drop(pe, p, PEER_DROP_BAD_VALUE, qpn);
			return;
		}
		pe->st.hellos++;
		pe->st.port_msgs[p]++;
		send_cext(pe, p, qpn, MRC_CTL_HELLO_ANSWER, ntohl(cx->seq),
			  q->my_token, q->window_rx, PEER_SPORT, 0, 0);
		/* Believed only from an answer to ours: ask, unless one
		 * is on its way (no more than one per retry interval). */
		if ((!q->known || ntohl(cx->token) != q->peer_token) &&
		    (!q->hello_seq || now_ns() >= q->hello_due_ns)) {
			q->hello_tries = 0;
			say_hello(pe, qpn);
		}
		return;
	case MRC_CTL_HELLO_ANSWER:
		if (!q->hello_seq || ntohl(cx->seq) != q->hello_seq) {
			drop(pe, p, PEER_DROP_STRAY_ANSWER, qpn);
			return;
		}
		if (!value || value > MRC_RX_WINDOW_MAX) {
			drop(pe, p, PEER_DROP_BAD_VALUE, qpn);
			return;
		}
		learn(pe, qpn, cx);
		pe->st.port_msgs[p]++;
		return;
	}
	if (ntohl(cx->token) != q->my_token) {
		drop(pe, p, PEER_DROP_BAD_TOKEN, qpn);
		return;
	}
	if (cx->type == MRC_CTL_MPR) {
		if (!value || value > MRC_RX_WINDOW_MAX) {
			drop(pe, p, PEER_DROP_BAD_VALUE, qpn);
			return;
		}
		if (!q->dyn_local || !q->known || !q->dyn_peer) {
			drop(pe, p, PEER_DROP_NOT_NEGOTIATED, qpn);
			return;
		}
		pe->st.port_msgs[p]++;
		q->peer_window = value;
		apply_window(pe, qpn);
		return;
	}
	if (cx->type == MRC_CTL_PSU) {
		pe->st.port_msgs[p]++;
		apply_psu(pe, p, src, value);
		/* Answered to where it came from, the same path back. */
		if (q->known)
			send_cext(pe, p, qpn, MRC_CTL_PSU_ANSWER,
				  ntohl(cx->seq), q->peer_token, value,
				  PEER_SPORT, 0, 0);
		return;
	}
	/* MRC_CTL_PSU_ANSWER */
	if (!pe->on_psu_answer ||
	    pe->on_psu_answer(pe->arg, ntohl(cx->seq), p + 1)) {
		drop(pe, p, PEER_DROP_STRAY_ANSWER, qpn);
		return;
	}
	pe->st.psu_answers++;
	pe->st.port_msgs[p]++;
}

void peer_tick(struct peer *pe)
{
	uint64_t now = now_ns();
	uint32_t qpn;

	qpset_each(&pe->hello_waiting, qpn)
	{
		struct peer_qp *q = &pe->qp[qpn];

		if (!q->live || !q->hello_seq ||
		    q->hello_tries >= PEER_HELLO_TRIES) {
			/* Answered, gone, or given up on. */
			qpset_del(&pe->hello_waiting, qpn);
			continue;
		}
		if (now >= q->hello_due_ns)
			say_hello(pe, qpn);
	}
}

/* The socket: IPv4 or IPv6 after the planes, with the arrival interface. */
static void peer_ready(struct loop_fd *h)
{
	struct peer *pe = container_of(h, struct peer, lfd);
	uint8_t buf[256], cbuf[256], src[16];
	struct sockaddr_storage from;
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = {
		.msg_name = &from,
		.msg_namelen = sizeof(from),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	int n, k, ifindex, p;

	for (k = 0; k < 64; k++) {
		mh.msg_namelen = sizeof(from);
		mh.msg_controllen = sizeof(cbuf);
		n = (int)recvmsg(h->fd, &mh, MSG_DONTWAIT);
		if (n < 0)
			return;
		ifindex = 0;
		memset(src, 0, sizeof(src));
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			if (cm->cmsg_level == IPPROTO_IP &&
			    cm->cmsg_type == IP_PKTINFO) {
				struct in_pktinfo pi;

				memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
				ifindex = pi.ipi_ifindex;
			} else if (cm->cmsg_level == IPPROTO_IPV6 &&
				   cm->cmsg_type == IPV6_PKTINFO) {
				struct in6_pktinfo pi;

				memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
				ifindex = (int)pi.ipi6_ifindex;
			}
		}
		if (from.ss_family == AF_INET)
			memcpy(src, &((struct sockaddr_in *)&from)->sin_addr,
			       4);
		else
			memcpy(src, &((struct sockaddr_in6 *)&from)->sin6_addr,
			       16);
		for (p = 0; p < pe->nports; p++)
			if (pe->dev && pe->dev->port[p].ifindex == ifindex)
				break;
		peer_input(pe, p < pe->nports ? p : -1, src, buf,
			   (uint32_t)n > sizeof(buf) ? sizeof(buf) :
						       (uint32_t)n);
	}
}

int peer_init(struct peer *pe, struct loop *l, struct dev *dev,
	      struct probe *probe, struct health *health,
	      const struct links *links, const struct port_spec *port,
	      int nports, int v6)
{
	int fd, one = 1, err;

	pe->dev = dev;
	pe->probe = probe;
	pe->health = health;
	pe->links = links;
	pe->port = port;
	pe->nports = nports;
	pe->v6 = v6;
	pe->lfd.fd = -1;
	fd = socket(v6 ? AF_INET6 : AF_INET,
		    SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	if (v6) {
		struct sockaddr_in6 a = { .sin6_family = AF_INET6,
					  .sin6_port = htons(MRC_UDP_PORT) };

		if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one,
			       sizeof(one)) ||
		    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one,
			       sizeof(one)) ||
		    setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one,
			       sizeof(one)) ||
		    bind(fd, (struct sockaddr *)&a, sizeof(a)))
			goto fail;
	} else {
		struct sockaddr_in a = { .sin_family = AF_INET,
					 .sin_port = htons(MRC_UDP_PORT) };

		if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one,
			       sizeof(one)) ||
		    setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one)) ||
		    bind(fd, (struct sockaddr *)&a, sizeof(a)))
			goto fail;
	}
	err = loop_add(l, &pe->lfd, fd, peer_ready);
	if (err) {
		close(fd);
		return err;
	}
	return 0;
fail:
	err = -errno;
	log_err("control message socket (UDP %d): %s\n", MRC_UDP_PORT,
		strerror(errno));
	if (fd >= 0)
		close(fd);
	return err;
}

void peer_close(struct peer *pe, struct loop *l)
{
	if (pe->lfd.fd >= 0) {
		loop_del(l, &pe->lfd);
		close(pe->lfd.fd);
		pe->lfd.fd = -1;
	}
}
