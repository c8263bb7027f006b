// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl ev trace: the hops an EV's packets take to the QP's peer, with
 * the round trip to each (docs/health.md, "Path inspection").
 *
 * An SRv6 EV names its path: the hops are its uSIDs (after the port's
 * next hop), read from the EV as its profile expands it, the way
 * ev show prints it; nothing is sent (the SRv6 fabric answers no ICMP).
 *
 * An ECMP EV is a UDP source port (and, for STEV over IPv6, a flow
 * label): the fabric hashes the 5-tuple, so a probe with the data's
 * 5-tuple takes the data's path. Each EV gets a UDP socket bound to our
 * address on its port and to the EV's source port, on the port's
 * interface, connected to the peer's address on that plane, port 4791;
 * its probes go out with TTL 1, 2, 3, ... and each router on the way
 * answers the one whose TTL ends there with an ICMP time exceeded, which
 * the kernel queues on the socket's error queue (IP_RECVERR) with the
 * router's address. The peer's receive program answers nothing (the
 * payload is a BTH it drops as bad_opcode), so the peer is the hop where
 * the answers stop (trace_settle). Every EV of the QP is traced at once,
 * hop by hop, so a silent hop costs one timeout for all of them.
 *
 * The peer's address on each plane is the data path's own (mrc_qp_tx of
 * the port's mrc_xdp_rx, read-only), so this needs root, as the socket
 * options do.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/errqueue.h>
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/in6.h>
#include <bpf/bpf.h>

#include "mrcctl.h"
#include "dpmaps.h"
#include "trace.h"
#include "mrc/abi.h"
#include "mrc/wire.h"

#ifndef IPV6_AUTOFLOWLABEL
#define IPV6_AUTOFLOWLABEL 70
#endif

struct trace_ev {
	const struct mrcx_ev_info *e;
	const struct mrcx_port_info *port;
	int srv6;
	uint8_t route[MRC_CTL_EV_MAX_BYTES]; /* SRv6: the expanded EV */
	int v6;
	uint8_t src[16], dst[16]; /* IPv4 in the first 4 bytes */
	int fd;
	char *note; /* what went wrong, or what to know */
	int failed; /* note is an error: the EV is not traced */
	int done;
	struct trace_hop hops[TRACE_HOPS_MAX + 1];
	int nhops;
	/* The hop being probed (ECMP). */
	int64_t sent_ns[TRACE_PROBES_MAX]; /* CLOCK_REALTIME */
	uint8_t got[TRACE_PROBES_MAX];
	uint32_t nsent, ngot;
	uint8_t ee_type; /* the first answer's ICMP type */
	uint8_t ee_origin;
};

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int addr_len(int v6)
{
	return v6 ? 16 : 4;
}

/* A 16-byte address as mrcd keeps it (IPv4 in the first 4) as text. */
static char *addr_str(const uint8_t *a, int v6)
{
	char buf[INET6_ADDRSTRLEN];

	if (!inet_ntop(v6 ? AF_INET6 : AF_INET, a, buf, sizeof(buf)))
		return xstrdup("?");
	return xstrdup(buf);
}

static void set_note(struct trace_ev *t, int failed, const char *fmt, ...)
	PRINTF(3, 4);
static void set_note(struct trace_ev *t, int failed, const char *fmt, ...)
{
	va_list ap;

	free(t->note);
	va_start(ap, fmt);
	t->note = xvasprintf(fmt, ap);
	va_end(ap);
	t->failed = failed;
	if (failed)
		t->done = 1;
}

/* ---- what the device knows -------------------------------------------------- */

/*
 * The peer's address on every plane, as the data path sends to it: the
 * QP's mrc_qp_tx, through the mrc_xdp_rx on ifname (every port's program
 * shares the device's maps).
 */
static int peer_addrs(uint32_t qpn, const char *ifname,
		      uint8_t addr[MRC_MAX_PORTS][16], int *v6)
{
	struct mrc_qp_tx *qt;
	struct bpf_map_info mi = {};
	uint32_t len = sizeof(mi), key = qpn;
	int fd, rc = 0;

	fd = dp_port_map(ifname, BPF_MAP_TYPE_ARRAY, "mrc_qp_tx");
	if (fd == -EPERM)
		return err_runtime("qp %u: reading the data path's peer"
				   " addresses (mrc_qp_tx) needs root",
				   qpn);
	if (fd == -ENODEV)
		return err_runtime("qp %u: port %s: no such interface in this"
				   " network namespace (ev trace sends from"
				   " the ports: run it where mrcd runs)",
				   qpn, ifname);
	if (fd == -ENOENT)
		return err_runtime("qp %u: port %s: no mrc_xdp_rx with an"
				   " mrc_qp_tx on it (a capture running, or"
				   " not this mrcd's port?)",
				   qpn, ifname);
	if (fd < 0)
		return err_api(-fd, "finding the data path's mrc_qp_tx",
			       "qp %u: port %s", qpn, ifname);
	if (bpf_obj_get_info_by_fd(fd, &mi, &len)) {
		rc = err_api(errno, "bpf_obj_get_info_by_fd", "qp %u", qpn);
		goto out;
	}
	if (mi.value_size != sizeof(*qt)) {
		rc = err_runtime("qp %u: the data path's mrc_qp_tx has %u-byte"
				 " values, this mrcctl knows %zu: an mrcd of"
				 " another version",
				 qpn, mi.value_size, sizeof(*qt));
		goto out;
	}
	qt = xmalloc(sizeof(*qt));
	if (bpf_map_lookup_elem(fd, &key, qt))
		rc = err_api(errno, "bpf_map_lookup_elem", "qp %u: mrc_qp_tx",
			     qpn);
	else {
		memcpy(addr, qt->peer_addr, sizeof(qt->peer_addr));
		*v6 = qt->peer_v6;
	}
	free(qt);
out:
	close(fd);
	return rc;
}

static int all_zero(const uint8_t *a, int n)
{
	while (n--)
		if (*a++)
			return 0;
	return 1;
}

/* ---- ECMP: TTL-limited probes on the EV's 5-tuple ------------------------------ */

static void sa_fill(struct sockaddr_storage *ss, socklen_t *len, int v6,
		    const uint8_t *a, uint16_t port, uint32_t flowinfo)
{
	memset(ss, 0, sizeof(*ss));
	if (v6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		s6->sin6_flowinfo = htonl(flowinfo);
		memcpy(&s6->sin6_addr, a, 16);
		*len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		memcpy(&s4->sin_addr, a, 4);
		*len = sizeof(*s4);
	}
}

/*
 * Keep an STEV EV's flow label: the kernel sends a label only when the
 * socket has leased it (IPV6_FLOWLABEL_MGR) and IPV6_FLOWINFO_SEND is on.
 * Without one, no automatic label either: the data carries 0.
 */
static int set_flowlabel(int fd, const uint8_t *dst, uint32_t fl)
{
	struct in6_flowlabel_req req = {
		.flr_label = htonl(fl),
		.flr_action = IPV6_FL_A_GET,
		.flr_share = IPV6_FL_S_EXCL,
		.flr_flags = IPV6_FL_F_CREATE,
	};
	int one = 1, zero = 0;

	if (!fl) {
		if (setsockopt(fd, IPPROTO_IPV6, IPV6_AUTOFLOWLABEL, &zero,
			       sizeof(zero)) &&
		    errno != ENOPROTOOPT)
			return -errno;
		return 0;
	}
	memcpy(&req.flr_dst, dst, 16);
	if (setsockopt(fd, IPPROTO_IPV6, IPV6_FLOWLABEL_MGR, &req,
		       sizeof(req)) ||
	    setsockopt(fd, IPPROTO_IPV6, IPV6_FLOWINFO_SEND, &one, sizeof(one)))
		return -errno;
	return 0;
}

/* The EV's socket, or a note saying why there is none. */
static void ev_socket(struct trace_ev *t)
{
	uint16_t sport = (uint16_t)(t->e->wire_val & 0xffff);
	uint32_t fl = t->v6 ? t->e->wire_val >> 16 : 0;
	struct sockaddr_storage ss;
	const char *what = NULL;
	char *src = addr_str(t->src, t->v6);
	int fd, one = 1, err = 0;
	socklen_t len;

	fd = socket(t->v6 ? AF_INET6 : AF_INET,
		    SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		set_note(t, 1, "socket: %s", strerror(errno));
		goto out;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, t->port->ifname,
		       (socklen_t)strlen(t->port->ifname)))
		what = "SO_BINDTODEVICE";
	else if (setsockopt(fd, t->v6 ? IPPROTO_IPV6 : IPPROTO_IP,
			    t->v6 ? IPV6_RECVERR : IP_RECVERR, &one,
			    sizeof(one)))
		what = "IP_RECVERR";
	else if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)))
		what = "SO_TIMESTAMPNS";
	else if (t->v6 && (err = set_flowlabel(fd, t->dst, fl)))
		what = "the flow label";
	if (what) {
		err = err ? -err : errno;
		set_note(t, 1, "%s on %s: %s%s", what, t->port->ifname,
			 strerror(err),
			 err == EPERM ? " (needs root: CAP_NET_RAW)" : "");
		goto out;
	}
	sa_fill(&ss, &len, t->v6, t->src, sport, 0);
	if (bind(fd, (struct sockaddr *)&ss, len)) {
		err = errno;
		if (err == EADDRINUSE)
			set_note(
				t, 1,
				"UDP source port %u on %s is in use by another"
				" socket: no probe can carry this EV's 5-tuple",
				sport, src);
		else
			set_note(t, 1, "bind to %s port %u: %s", src, sport,
				 strerror(err));
		goto out;
	}
	sa_fill(&ss, &len, t->v6, t->dst, MRC_UDP_PORT, fl);
	if (connect(fd, (struct sockaddr *)&ss, len)) {
		set_note(t, 1, "connect to port %d: %s", MRC_UDP_PORT,
			 strerror(errno));
		goto out;
	}
	t->fd = fd;
	fd = -1;
out:
	if (fd >= 0)
		close(fd);
	free(src);
}

/* An ICMP error a late send may still find pending: consumed, retried. */
static int icmp_errno(int err)
{
	return err == EHOSTUNREACH || err == ENETUNREACH ||
	       err == ECONNREFUSED || err == EPROTO || err == EMSGSIZE;
}

/* The probes of hop for one EV. */
static void ev_send(struct trace_ev *t, uint32_t hop, uint32_t probes)
{
	uint8_t buf[TRACE_PAYLOAD_LEN];
	int ttl = (int)hop, tries;
	uint32_t k;
	ssize_t n;

	t->nsent = t->ngot = 0;
	memset(t->got, 0, sizeof(t->got));
	if (setsockopt(t->fd, t->v6 ? IPPROTO_IPV6 : IPPROTO_IP,
		       t->v6 ? IPV6_UNICAST_HOPS : IP_TTL, &ttl, sizeof(ttl))) {
		set_note(t, 1, "setting the TTL to %u: %s", hop,
			 strerror(errno));
		return;
	}
	for (k = 0; k < probes; k++) {
		trace_payload(buf, TRACE_TOKEN(hop, k));
		for (tries = 0; tries < 3; tries++) {
			t->sent_ns[k] = now_ns();
			n = send(t->fd, buf, sizeof(buf), 0);
			if (n >= 0 || !icmp_errno(errno))
				break;
		}
		if (n < 0) {
			set_note(t, 1, "sending hop %u's probe on %s: %s", hop,
				 t->port->ifname, strerror(errno));
			return;
		}
		t->nsent++;
	}
}

/* One message of the socket's error queue; 0, or -1 when it is empty. */
static int ev_read_error(struct trace_ev *t, uint32_t hop)
{
	union {
		char buf[512];
		struct cmsghdr align;
	} ctl;
	uint8_t pay[64];
	struct iovec iov = { .iov_base = pay, .iov_len = sizeof(pay) };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = ctl.buf,
			      .msg_controllen = sizeof(ctl.buf) };
	struct sock_extended_err *ee = NULL;
	struct trace_hop *h = &t->hops[t->nhops];
	int64_t rx_ns = 0, rtt;
	struct cmsghdr *c;
	uint32_t token, k;
	ssize_t n;

	n = recvmsg(t->fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT);
	if (n < 0)
		return -1;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		if ((c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR) ||
		    (c->cmsg_level == SOL_IPV6 && c->cmsg_type == IPV6_RECVERR))
			ee = (struct sock_extended_err *)CMSG_DATA(c);
		else if (c->cmsg_level == SOL_SOCKET &&
			 c->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			rx_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
		}
	}
	if (!ee || (ee->ee_origin != SO_EE_ORIGIN_ICMP &&
		    ee->ee_origin != SO_EE_ORIGIN_ICMP6))
		return 0; /* a local error: no hop's answer */
	/* Which probe: its token, if the router quoted enough of it. */
	if (!trace_payload_token(pay, (size_t)n, &token)) {
		if (TRACE_TOKEN_HOP(token) != hop)
			return 0; /* a late answer of an earlier hop */
		k = TRACE_TOKEN_PROBE(token);
	} else {
		for (k = 0; k < t->nsent && t->got[k]; k++)
			;
	}
	if (k >= t->nsent || t->got[k])
		return 0;
	t->got[k] = 1;
	t->ngot++;
	rtt = (rx_ns ? rx_ns : now_ns()) - t->sent_ns[k];
	if (rtt < 1)
		rtt = 1;
	if (!h->rtt_ns || rtt < h->rtt_ns)
		h->rtt_ns = rtt > UINT32_MAX ? UINT32_MAX : (uint32_t)rtt;
	if (!h->have_addr) {
		const struct sockaddr *off = SO_EE_OFFENDER(ee);

		if (off->sa_family == AF_INET6)
			memcpy(h->addr,
			       &((const struct sockaddr_in6 *)off)->sin6_addr,
			       16);
		else if (off->sa_family == AF_INET)
			memcpy(h->addr,
			       &((const struct sockaddr_in *)off)->sin_addr, 4);
		h->have_addr = off->sa_family == AF_INET6 ||
			       off->sa_family == AF_INET;
		h->v6 = off->sa_family == AF_INET6;
		t->ee_type = ee->ee_type;
		t->ee_origin = ee->ee_origin;
	}
	return 0;
}

/* What the answers of the hop just probed say; t->done when the EV ends. */
static void ev_settle(struct trace_ev *t, uint32_t hop, uint32_t max_hops)
{
	struct trace_hop *h = &t->hops[t->nhops];
	int exceeded, done;

	h->hop = hop;
	h->sent = t->nsent;
	h->answered = t->ngot;
	if (!t->ngot) {
		h->what = TRACE_SILENT;
	} else {
		exceeded = t->ee_origin == SO_EE_ORIGIN_ICMP ?
				   t->ee_type == ICMP_TIME_EXCEEDED :
				   t->ee_type == ICMPV6_TIME_EXCEED;
		if (exceeded)
			h->what = TRACE_ROUTER;
		else if (h->have_addr && h->v6 == t->v6 &&
			 !memcmp(h->addr, t->dst, (size_t)addr_len(t->v6)))
			h->what = TRACE_PEER; /* its kernel answered */
		else
			h->what = TRACE_UNREACH;
	}
	t->nhops = trace_settle(t->hops, t->nhops + 1, max_hops, &done);
	t->done = done;
	h = &t->hops[t->nhops - 1];
	if (done && h->what == TRACE_UNREACH)
		set_note(t, 0,
			 "destination unreachable (ICMP type %u) at hop"
			 " %u",
			 t->ee_type, h->hop);
	else if (done && h->what != TRACE_PEER)
		set_note(t, 0, "no peer within %u hops (max-hops)", max_hops);
}

/* Every ECMP EV of evs, hop by hop, all at once. */
static void trace_ecmp(struct trace_ev *evs, int n, const struct trace_opts *o)
{
	struct pollfd *pfd = xcalloc((size_t)n, sizeof(*pfd));
	int64_t deadline;
	uint32_t hop;
	int i, active, waiting, left;

	for (i = 0; i < n; i++)
		if (!evs[i].srv6 && !evs[i].failed)
			ev_socket(&evs[i]);
	for (hop = 1; hop <= o->max_hops; hop++) {
		active = 0;
		for (i = 0; i < n; i++) {
			struct trace_ev *t = &evs[i];

			if (t->srv6 || t->done)
				continue;
			/* What an earlier hop left in the queue. */
			while (!ev_read_error(t, 0))
				;
			memset(&t->hops[t->nhops], 0, sizeof(t->hops[0]));
			ev_send(t, hop, o->probes);
			active += !t->done;
		}
		if (!active)
			break;
		deadline = now_ns() + (int64_t)o->timeout_ms * 1000000;
		for (;;) {
			waiting = 0;
			for (i = 0; i < n; i++) {
				struct trace_ev *t = &evs[i];

				pfd[i].fd = -1;
				pfd[i].events = 0;
				pfd[i].revents = 0;
				if (t->srv6 || t->done || t->ngot == t->nsent)
					continue;
				pfd[i].fd = t->fd;
				waiting++;
			}
			left = (int)((deadline - now_ns()) / 1000000);
			if (!waiting || left <= 0)
				break;
			/* POLLERR: the error queue holds an answer. */
			if (poll(pfd, (nfds_t)n, left) < 0 && errno != EINTR)
				break;
			for (i = 0; i < n; i++)
				if (pfd[i].fd >= 0 && pfd[i].revents)
					while (!ev_read_error(&evs[i], hop))
						;
		}
		for (i = 0; i < n; i++)
			if (!evs[i].srv6 && !evs[i].done)
				ev_settle(&evs[i], hop, o->max_hops);
	}
	free(pfd);
}

/* ---- SRv6: the route names the hops ------------------------------------------- */

static void trace_srv6(struct trace_ev *t)
{
	t->nhops = trace_srv6_hops(t->route, t->hops, TRACE_HOPS_MAX);
	set_note(t, 0,
		 "hops from the route (SRv6 answers no ICMP): no RTT"
		 " but the peer's");
}

/*
 * The last hop: the peer, with the EV's measured RTT when it did not
 * answer itself. SRv6: after the route's hops; ECMP: the hop the trace
 * ended at, if it found the peer.
 */
static void peer_hop(struct trace_ev *t)
{
	struct trace_hop *h;

	if (t->failed)
		return;
	if (t->srv6) {
		if (t->nhops > TRACE_HOPS_MAX)
			return;
		h = &t->hops[t->nhops++];
		memset(h, 0, sizeof(*h));
		h->hop = (uint32_t)t->nhops;
		h->what = TRACE_PEER;
	} else if (!t->nhops || t->hops[t->nhops - 1].what != TRACE_PEER) {
		return;
	}
	h = &t->hops[t->nhops - 1];
	if (!h->have_addr) {
		h->have_addr = 1;
		h->v6 = t->v6;
		memcpy(h->addr, t->dst, 16);
	}
	if (!h->answered) /* silent: its RTT is the data's */
		h->rtt_ns = t->e->rtt_avg_ns;
}

/* ---- output ---------------------------------------------------------------- */

static const char *mode_name(const struct trace_ev *t)
{
	return t->srv6 ? "srv6" : "ecmp";
}

static struct jv *hop_jv(const struct trace_ev *t, const struct trace_hop *h)
{
	struct jv *o = jv_obj();
	char s[8];

	jv_add(o, "hop", jv_u64(h->hop));
	jv_add(o, "what", jv_str(trace_what_name(h->what)));
	if (h->have_addr) {
		char *a = addr_str(h->addr, h->v6);

		jv_add(o, "addr", jv_str(a));
		free(a);
	} else {
		jv_add(o, "addr", jv_null());
	}
	if (h->have_usid) {
		snprintf(s, sizeof(s), "%04x", h->usid);
		jv_add(o, "usid", jv_str(s));
	} else {
		jv_add(o, "usid", jv_null());
	}
	/* The port's next hop in SRv6: the link it is on. */
	jv_add(o, "dev",
	       jv_str(h->what == TRACE_NEXT_HOP ? t->port->ifname : NULL));
	jv_add(o, "rtt_us", h->rtt_ns ? jv_num(h->rtt_ns / 1e3, 3) : jv_null());
	jv_add(o, "rtt_from",
	       jv_str(!h->rtt_ns  ? NULL :
		      h->answered ? "icmp" :
				    "ev_stats"));
	if (t->srv6) {
		jv_add(o, "probes_sent", jv_null());
		jv_add(o, "probes_answered", jv_null());
	} else {
		jv_add(o, "probes_sent", jv_u64(h->sent));
		jv_add(o, "probes_answered", jv_u64(h->answered));
	}
	return o;
}

static struct jv *ev_jv(const struct trace_ev *t)
{
	struct jv *o = jv_obj(), *hops = jv_arr();
	char s[MRC_EV_SRV6_STR_LEN], *a;
	int i;

	jv_add(o, "qpn", jv_u64(t->e->qpn));
	jv_add(o, "idx", jv_u64(t->e->ev_idx));
	jv_add(o, "ev", jv_u64(ev_val(&t->e->ev)));
	jv_add(o, "wire_ev", jv_u64(t->e->wire_val));
	jv_add(o, "port", jv_u64(t->e->ev.port));
	jv_add(o, "dev", jv_str(t->port ? t->port->ifname : NULL));
	jv_add(o, "state", jv_str(ev_state_str(t->e->state)));
	jv_add(o, "mode", jv_str(mode_name(t)));
	a = addr_str(t->src, t->v6);
	jv_add(o, "src", jv_str(a));
	free(a);
	a = addr_str(t->dst, t->v6);
	jv_add(o, "dst", jv_str(a));
	free(a);
	if (t->srv6) {
		ev_srv6_str(t->route, s, sizeof(s));
		jv_add(o, "srv6_path", jv_str(s));
	} else {
		jv_add(o, "srv6_path", jv_null());
	}
	for (i = 0; i < t->nhops; i++)
		jv_add(hops, NULL, hop_jv(t, &t->hops[i]));
	jv_add(o, "hops", hops);
	jv_add(o, "note", jv_str(t->note));
	return o;
}

static void hop_row(struct tbl *tb, const struct trace_ev *t,
		    const struct trace_hop *h)
{
	char *s;

	tbl_row(tb);
	tbl_put(tb, "idx", "IDX", 0, xasprintf("%u", t->e->ev_idx), NULL);
	tbl_put(tb, "ev", "EV", 0, xasprintf("0x%x", t->e->wire_val), NULL);
	tbl_put(tb, "port", "PORT", 0, xasprintf("%u", t->e->ev.port), NULL);
	tbl_put(tb, "mode", "MODE", 0, xstrdup(mode_name(t)), NULL);
	if (!h) {
		tbl_put(tb, "hop", "HOP", 0, xstrdup("-"), NULL);
		tbl_put(tb, "addr", "ADDR", 0, xstrdup("-"), NULL);
		tbl_put(tb, "usid", "USID", 0, xstrdup("-"), NULL);
		tbl_put(tb, "rtt", "RTT(us)", 0, xstrdup("-"), NULL);
		tbl_put(tb, "what", "WHAT", 0, xstrdup("-"), NULL);
		tbl_put(tb, "note", "NOTE", 0, xstrdup(t->note ? t->note : "-"),
			NULL);
		return;
	}
	tbl_put(tb, "hop", "HOP", 0, xasprintf("%u", h->hop), NULL);
	if (h->have_addr)
		s = addr_str(h->addr, h->v6);
	else if (h->what == TRACE_NEXT_HOP)
		s = xasprintf("(next hop on %s)", t->port->ifname);
	else
		s = xstrdup("*");
	tbl_put(tb, "addr", "ADDR", 0, s, NULL);
	tbl_put(tb, "usid", "USID", 0,
		h->have_usid ? xasprintf("%04x", h->usid) : xstrdup("-"), NULL);
	if (!h->rtt_ns)
		s = xstrdup("-");
	else
		s = xasprintf("%.3f%s", h->rtt_ns / 1e3,
			      h->answered ? "" : " (ev)");
	tbl_put(tb, "rtt", "RTT(us)", 0, s, NULL);
	if (t->srv6)
		s = xstrdup(trace_what_name(h->what));
	else
		s = xasprintf("%s %u/%u", trace_what_name(h->what), h->answered,
			      h->sent);
	tbl_put(tb, "what", "WHAT", 0, s, NULL);
	tbl_put(tb, "note", "NOTE", 0,
		xstrdup(h == &t->hops[t->nhops - 1] && t->note ? t->note : "-"),
		NULL);
}

static void print_trace(const struct trace_ev *evs, int n)
{
	struct jv *arr;
	struct tbl *tb;
	int i, k;

	if (opts.json) {
		arr = jv_arr();
		for (i = 0; i < n; i++)
			jv_add(arr, NULL, ev_jv(&evs[i]));
		jv_print(out, arr, opts.pretty);
		jv_free(arr);
		return;
	}
	tb = tbl_new();
	for (i = 0; i < n; i++) {
		if (!evs[i].nhops)
			hop_row(tb, &evs[i], NULL);
		for (k = 0; k < evs[i].nhops; k++)
			hop_row(tb, &evs[i], &evs[i].hops[k]);
	}
	tbl_print_list(tb, out, 0, 0);
	tbl_free(tb);
}

/* ---- the command ------------------------------------------------------------ */

/* Each EV's port, mode, route and addresses. */
static int trace_setup(struct mrc_context *ctx, const struct trace_opts *o,
		       struct trace_ev *evs, int n,
		       const struct mrcx_port_info *ports, int nports)
{
	uint8_t peer[MRC_MAX_PORTS][16];
	struct ev_expander x = { 0 };
	int i, k, rc = 0, peer_v6 = 0, have_peer = 0;

	/* A QP's EVs come from one profile: 0 is mrcd's, UDP ports. */
	if (evs[0].e->profile_id)
		rc = ev_expander_load(ctx, evs[0].e->profile_id, &x);
	for (i = 0; !rc && i < n; i++) {
		struct trace_ev *t = &evs[i];
		uint8_t p = t->e->ev.port;

		for (k = 0; k < nports && ports[k].port != p; k++)
			;
		if (k == nports || p < 1 || p > MRC_MAX_PORTS) {
			set_note(t, 1, "port %u: no such port", p);
			continue;
		}
		t->port = &ports[k];
		t->v6 = memcmp(t->port->gid, "\0\0\0\0\0\0\0\0\0\0\xff\xff",
			       12) != 0;
		memcpy(t->src, t->v6 ? t->port->gid : t->port->gid + 12,
		       (size_t)addr_len(t->v6));
		if (x.fmt_mode == MRC_CTL_EV_FMT_MODE_SRV6) {
			t->srv6 = 1;
			if (ev_expand_srv6(x.f, x.nf, x.ff, x.nff,
					   ev_val(&t->e->ev), t->route))
				set_note(t, 1,
					 "its profile's fields no longer"
					 " expand it");
		}
		if (!have_peer) {
			rc = peer_addrs(o->qpn, t->port->ifname, peer,
					&peer_v6);
			have_peer = !rc;
		}
		if (rc)
			break;
		if (peer_v6 != t->v6) {
			set_note(t, 1, "the peer is IPv%d, port %u IPv%d",
				 peer_v6 ? 6 : 4, p, t->v6 ? 6 : 4);
			continue;
		}
		memcpy(t->dst, peer[p - 1], 16);
		if (all_zero(t->dst, addr_len(t->v6)))
			set_note(t, 1,
				 "no peer address on port %u (the QP is"
				 " not connected)",
				 p);
	}
	ev_expander_free(&x);
	return rc;
}

int ev_do_trace(struct args *a)
{
	struct mrcx_port_info *ports = NULL;
	struct mrcx_ev_info *list = NULL;
	struct mrcx_qp_info *qps = NULL;
	struct mrc_context *ctx = NULL;
	struct trace_ev *evs = NULL;
	struct trace_opts o;
	int rc, i, n = 0, nq = 0, np = 0, nev = 0, bad = -1;

	rc = trace_parse(a, &o);
	if (!rc)
		rc = ctl_open(&ctx);
	if (!rc)
		rc = qp_list(ctx, &qps, &nq);
	for (i = 0; !rc && i < nq && qps[i].qpn != o.qpn; i++)
		;
	if (!rc && i == nq)
		rc = err_runtime("qp %u: no such QP", o.qpn);
	if (!rc)
		rc = ev_list(ctx, o.qpn, &list, &n);
	if (!rc && !n)
		rc = err_runtime("qp %u has no EVs (state %s)", o.qpn,
				 qp_state_name(qps[i].state));
	if (!rc && o.one && o.idx >= (uint32_t)n)
		rc = err_runtime("qp %u: no EV %u (it has %d: 0..%d)", o.qpn,
				 o.idx, n, n - 1);
	if (!rc)
		rc = ctl_port_list(ctx, &ports, &np);
	if (rc)
		goto out;
	evs = xcalloc((size_t)n, sizeof(*evs));
	for (i = 0; i < n; i++) {
		evs[i].fd = -1;
		if (!o.one || list[i].ev_idx == o.idx)
			evs[nev++].e = &list[i];
	}
	if (!nev) {
		rc = err_runtime("qp %u: no EV %u", o.qpn, o.idx);
		goto out;
	}
	rc = trace_setup(ctx, &o, evs, nev, ports, np);
	if (rc)
		goto out;
	trace_ecmp(evs, nev, &o);
	for (i = 0; i < nev; i++) {
		if (evs[i].srv6 && !evs[i].failed)
			trace_srv6(&evs[i]);
		peer_hop(&evs[i]);
		if (evs[i].failed && bad < 0)
			bad = i;
	}
	print_trace(evs, nev);
	if (bad >= 0) {
		out_keep = 1; /* the EVs that were traced are printed */
		rc = err_runtime("qp %u ev %u: %s", o.qpn, evs[bad].e->ev_idx,
				 evs[bad].note);
	}
out:
	for (i = 0; evs && i < nev; i++) {
		if (evs[i].fd >= 0)
			close(evs[i].fd);
		free(evs[i].note);
	}
	free(evs);
	free(ports);
	free(list);
	free(qps);
	return rc;
}
