// SPDX-License-Identifier: GPL-2.0
/*
 * mrcd: the soft MRC device's firmware. Loads and attaches the data path on
 * the ports, serves applications on a unix socket (each gets only its own
 * QPs, CQs and memory regions), and pumps send queues: a doorbell makes it
 * run the transmit program for that QP until the QP has nothing to send,
 * and QPs with work in flight are polled so that ACK timeouts fire.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/capability.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "books.h"
#include "dev_lowlat.h"
#include "health.h"
#include "mrcd.h"
#include "links.h"
#include "notify.h"
#include "pin.h"
#include "mrc/msg.h"
#include "mrc_xdp_rx.skel.h"

#define BURST_MAX 256 /* frames per transmit call while data flows */
#define POLL_MIN_NS 20000ull /* first re-poll of a QP waiting for ACKs */
#define POLL_MAX_NS 1000000ull
#define SCAN_NS 1000000ull /* sweep for work nobody rang mrcd about */

static int stop;

static void reload(struct mrcd *m, const struct cli *o);

/* SIGTERM and SIGINT stop mrcd; SIGHUP reloads its configuration. */
static void signal_event(struct mrcd *m)
{
	struct signalfd_siginfo si;

	while (read(m->sig_fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP)
			reload(m, m->cli);
		else
			stop = 1;
	}
}

uint64_t mrcd_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

void mrcd_log(struct mrcd *m, int level, const char *fmt, ...)
{
	va_list ap;

	if (level > m->verbose ||
	    (level == 0 && m->cfg.log_level == CONFIG_LOG_ERROR))
		return;
	va_start(ap, fmt);
	fputs("mrcd: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: mrcd [OPTIONS] -p PORT [-p PORT ...] -a IF\n"
		"       mrcd [OPTIONS] -c FILE\n"
		"  -p, --port IF[,mac=MAC][,plane=PREFIX/LEN]\n"
		"                      a port, one per plane, in plane order; mac= is the\n"
		"                      next hop on that plane; plane= the plane's prefix\n"
		"                      (default: the interface's own subnet)\n"
		"  -a, --anchor IF     idle interface the transmit program sits on\n"
		"  -s, --socket PATH   control socket (default $%s or %s)\n"
		"  -P, --pin-dir DIR   pin maps and programs under DIR/abi%d (default %s;\n"
		"                      bpffs; removed on a clean stop)\n"
		"      --no-pin        pin nothing\n"
		"  -6, --ipv6          the planes are IPv6\n"
		"  -c, --config FILE   read FILE (mrcd.conf(5)); options given here win;\n"
		"                      SIGHUP reads it again\n"
		"  -v, --verbose       more log lines (log-level debug)\n"
		"  -h, --help\n",
		MRCD_SOCKET_ENV, MRCD_SOCKET_DEFAULT, MRC_ABI_VERSION,
		MRCD_PIN_DIR_DEFAULT);
}

/* The plane prefix of a port without plane=: its address's own subnet. */
static int port_subnet(struct port_spec *p)
{
	struct ifaddrs *ifa, *i;
	int family = p->v6 ? AF_INET6 : AF_INET, bits, k;

	if (getifaddrs(&ifa))
		return -errno;
	for (i = ifa; i; i = i->ifa_next) {
		const uint8_t *a, *mask;
		int len = p->v6 ? 16 : 4;

		if (!i->ifa_addr || !i->ifa_netmask ||
		    strcmp(i->ifa_name, p->ifname) ||
		    i->ifa_addr->sa_family != family)
			continue;
		if (p->v6) {
			a = ((struct sockaddr_in6 *)i->ifa_addr)
				    ->sin6_addr.s6_addr;
			mask = ((struct sockaddr_in6 *)i->ifa_netmask)
				       ->sin6_addr.s6_addr;
			if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
				continue; /* link-local */
		} else {
			a = (const uint8_t *)&(
				    (struct sockaddr_in *)i->ifa_addr)
				    ->sin_addr;
			mask = (const uint8_t *)&(
				       (struct sockaddr_in *)i->ifa_netmask)
				       ->sin_addr;
		}
		for (bits = 0, k = 0; k < len; k++) {
			p->prefix[k] = a[k] & mask[k];
			bits += __builtin_popcount(mask[k]);
		}
		p->prefix_len = bits;
		freeifaddrs(ifa);
		return 0;
	}
	freeifaddrs(ifa);
	return -EADDRNOTAVAIL;
}

static int listen_on(struct mrcd *m)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[sizeof(sa.sun_path)], *slash;
	int fd;

	if (strlen(m->sock_path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "mrcd: socket path too long: %s\n",
			m->sock_path);
		return -1;
	}
	strcpy(sa.sun_path, m->sock_path);
	strcpy(dir, m->sock_path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		mkdir(dir, 0755);
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -1;
	unlink(m->sock_path);
	/* Anyone may connect: each connection only reaches its own objects. */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    chmod(m->sock_path, 0666) || listen(fd, 64)) {
		fprintf(stderr, "mrcd: listening on %s: %s\n", m->sock_path,
			strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static int epoll_add(struct mrcd *m, int fd, enum mrcd_tag tag, uint32_t idx)
{
	struct epoll_event ev = { .events = EPOLLIN,
				  .data.u64 = (uint64_t)tag << 32 | idx };

	return epoll_ctl(m->epfd, EPOLL_CTL_ADD, fd, &ev);
}

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

/*
 * Whether the process at the other end of fd may be the controller: it
 * holds CAP_NET_ADMIN in its effective set, in mrcd's own user namespace
 * (a capability in a namespace of its own is no capability over this
 * device), with the effective uid it connected with (an exec of a setuid
 * program after connecting does not count). The pidfd pins the process:
 * a pid reused between reading its status and the check is caught, since
 * the pidfd then refers to a dead process. Decided once, at accept.
 */
static int peer_net_admin(struct mrcd *m, int fd, const struct ucred *cr)
{
	char path[64], line[256];
	unsigned long long eff = 0;
	unsigned int ruid, euid = ~0u;
	socklen_t len = sizeof(int);
	int pidfd = -1, found = 0;
	struct stat ns_peer, ns_self;
	struct pollfd pfd;
	FILE *f;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len)) {
		mrcd_log(
			m, 0,
			"no SO_PEERPIDFD (%s): the controller API is refused to everyone\n",
			strerror(errno));
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)cr->pid);
	if (stat(path, &ns_peer) || stat("/proc/self/ns/user", &ns_self) ||
	    ns_peer.st_ino != ns_self.st_ino ||
	    ns_peer.st_dev != ns_self.st_dev)
		goto out;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)cr->pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			found |= 1;
		if (sscanf(line, "Uid: %u %u", &ruid, &euid) == 2)
			found |= 2;
	}
	if (f)
		fclose(f);
	/* Still the same process? A dead one's pidfd polls readable. */
	pfd = (struct pollfd){ .fd = pidfd, .events = POLLIN };
	if (poll(&pfd, 1, 0) != 0)
		found = 0;
out:
	close(pidfd);
	return found == 3 && euid == cr->uid && (eff >> CAP_NET_ADMIN & 1);
}

static void accept_client(struct mrcd *m)
{
	struct ucred cr = { .pid = 0, .uid = ~0u };
	socklen_t len = sizeof(cr);
	int fd, i, n;

	/* Non-blocking: a client that does not read its replies is dropped
	 * (EAGAIN on a reply), never waited for. */
	fd = accept4(m->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return;
	/* max-clients counts connections; orphans (a predecessor's clients
	 * that have not resumed) hold slots beyond it, and must find one
	 * to resume from. */
	for (i = 0, n = 0; i < MRCD_MAX_CLIENTS; i++)
		n += m->client[i].fd >= 0;
	for (i = 0; i < MRCD_MAX_CLIENTS &&
		    (m->client[i].fd >= 0 || m->client[i].orphan);
	     i++)
		;
	if (n >= (int)m->cfg.max_clients || i == MRCD_MAX_CLIENTS ||
	    epoll_add(m, fd, TAG_CLIENT, i)) {
		mrcd_log(m, 0, "refusing a connection: too many clients\n");
		close(fd);
		return;
	}
	m->client[i].fd = fd;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len))
		cr = (struct ucred){ .pid = 0, .uid = ~0u };
	m->client[i].uid = cr.uid;
	m->client[i].pid = (uint32_t)cr.pid;
	m->client[i].net_admin = cr.pid > 0 && peer_net_admin(m, fd, &cr);
	m->client[i].start_ticks = books_proc_start(m->client[i].pid);
	if (getrandom(&m->client[i].session, sizeof(m->client[i].session), 0) !=
	    sizeof(m->client[i].session))
		m->client[i].session = mrcd_now_ns() * 0x9e3779b97f4a7c15ull;
	m->client[i].session |= 1; /* never 0: 0 is a free slot */
	books_client(m, &m->client[i]);
	mrcd_log(m, 1, "client pid %u uid %u connected%s\n", m->client[i].pid,
		 m->client[i].uid,
		 m->client[i].net_admin ? " (CAP_NET_ADMIN: controller)" : "");
}

static void client_event(struct mrcd *m, struct client *c)
{
	union {
		struct mrcd_req req;
		char buf[sizeof(struct mrcd_req) + 64];
	} u;
	int fds[MRC_MSG_MAX_FDS], nfds, i;
	ssize_t n = mrc_msg_recv(c->fd, &u, sizeof(u), fds, &nfds);

	for (i = 0; i < nfds; i++)
		close(fds[i]); /* applications send none */
	if (n > 0 && serve_request(m, c, &u.req, n) == 0)
		return;
	if (n < 0 && n == -EAGAIN)
		return;
	if (c->fd < 0)
		return; /* resumed into an orphan's slot, which replied */
	mrcd_log(m, 1, "client pid %u gone\n", c->pid);
	serve_drop_client(m, c);
	epoll_ctl(m->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
}

struct client *mrcd_resume(struct mrcd *m, struct client *c, uint64_t session)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct client *o;
	int i;

	for (i = 0; i < MRCD_MAX_CLIENTS; i++) {
		o = &m->client[i];
		if (o->orphan && o->session == session && o->pid == c->pid &&
		    o->uid == c->uid && o->start_ticks == c->start_ticks)
			break;
	}
	if (i == MRCD_MAX_CLIENTS)
		return NULL;
	ev.data.u64 = (uint64_t)TAG_CLIENT << 32 | (uint32_t)i;
	if (epoll_ctl(m->epfd, EPOLL_CTL_MOD, c->fd, &ev))
		return NULL;
	epoll_ctl(m->epfd, EPOLL_CTL_DEL, o->pidfd, NULL);
	close(o->pidfd);
	o->pidfd = -1;
	o->orphan = 0;
	o->fd = c->fd;
	o->net_admin = c->net_admin;
	c->fd = -1;
	c->session = 0;
	m->norphans--;
	books_client(m, c);
	books_client(m, o);
	mrcd_log(m, 0,
		 "client pid %u resumed its session (%u still to resume)\n",
		 o->pid, m->norphans);
	return o;
}

/* An orphan's process ended without resuming: its objects go. */
static void orphan_gone(struct mrcd *m, uint32_t idx)
{
	struct client *c = &m->client[idx];

	if (idx >= MRCD_MAX_CLIENTS || !c->orphan)
		return;
	mrcd_log(m, 0,
		 "client pid %u ended before resuming: its objects are freed\n",
		 c->pid);
	if (c->pidfd >= 0) {
		epoll_ctl(m->epfd, EPOLL_CTL_DEL, c->pidfd, NULL);
		close(c->pidfd);
	}
	c->pidfd = -1;
	c->orphan = 0;
	m->norphans--;
	serve_drop_client(m, c);
}

void pump_activate(struct mrcd *m, uint32_t qpn)
{
	struct qp_ent *q = &m->qp[qpn];

	q->next_ns = 0;
	q->poll_ns = POLL_MIN_NS;
	if (!q->burst)
		q->burst = 64;
	if (q->active)
		return;
	q->active = 1;
	m->active[m->nactive++] = qpn;
	/* Posters may skip the doorbell while this is set. */
	if (q->sq)
		__atomic_store_n(&q->sq->pumping, 1, __ATOMIC_SEQ_CST);
}

static void doorbell_event(struct mrcd *m, uint32_t qpn)
{
	uint64_t v;

	if (qpn >= MRC_MAX_QP || !m->qp[qpn].owner)
		return;
	if (read(m->qp[qpn].db_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return;
	pump_activate(m, qpn);
}

/*
 * Nothing left to send or complete. Clearing pumping and then looking at
 * tail again pairs with the poster's storing tail and then looking at
 * pumping: one of the two sees the other, so no post goes unserved.
 */
static int sq_idle(struct qp_ent *q)
{
	if (__atomic_load_n(&q->sq->tail, __ATOMIC_SEQ_CST) !=
	    __atomic_load_n(&q->sq->done, __ATOMIC_SEQ_CST))
		return 0;
	__atomic_store_n(&q->sq->pumping, 0, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&q->sq->tail, __ATOMIC_SEQ_CST) !=
	    __atomic_load_n(&q->sq->done, __ATOMIC_SEQ_CST)) {
		__atomic_store_n(&q->sq->pumping, 1, __ATOMIC_SEQ_CST);
		return 0;
	}
	return 1;
}

/*
 * One pass over the QPs with work: transmit what each may send now.
 * Returns 1 if anything went out; *next_ns is when a waiting QP is due.
 */
static int pump(struct mrcd *m, uint64_t *next_ns)
{
	uint64_t now = mrcd_now_ns(), poll_max;
	int i, progress = 0, n;

	*next_ns = UINT64_MAX;
	for (i = 0; i < m->nactive; i++) {
		uint32_t qpn = m->active[i];
		struct qp_ent *q = &m->qp[qpn];

		if (!q->owner || q->state != MRC_QPS_RTS || !q->sq ||
		    q->sq->state == MRC_QPS_ERR || sq_idle(q)) {
			q->active = 0;
			q->burst = 0;
			m->active[i--] = m->active[--m->nactive];
			continue;
		}
		if (now < q->next_ns) {
			if (q->next_ns < *next_ns)
				*next_ns = q->next_ns;
			continue;
		}
		n = dev_tx_burst(&m->dev, qpn, q->burst);
		m->tx_calls++;
		if (n > 0) {
			progress = 1;
			q->burst = q->burst * 2 > BURST_MAX ? BURST_MAX :
							      q->burst * 2;
			q->poll_ns = POLL_MIN_NS;
			q->next_ns = 0;
			continue;
		}
		/*
		 * Waiting for ACKs (window, WIMM) or for a timeout. Ask the
		 * receive program for a wakeup when an ACK moves the window,
		 * then look once more: an ACK between the two is not missed.
		 */
		if (m->wake)
			__atomic_store_n(&m->wake[qpn], 1, __ATOMIC_SEQ_CST);
		n = dev_tx_burst(&m->dev, qpn, 1);
		m->tx_calls++;
		if (n > 0) {
			progress = 1;
			q->poll_ns = POLL_MIN_NS;
			q->next_ns = 0;
			continue;
		}
		q->burst = 1;
		q->next_ns = now + q->poll_ns;
		poll_max = q->timeout_ns / 4;
		if (poll_max > POLL_MAX_NS)
			poll_max = POLL_MAX_NS;
		if (poll_max < POLL_MIN_NS)
			poll_max = POLL_MIN_NS;
		q->poll_ns = q->poll_ns * 2 > poll_max ? poll_max :
							 q->poll_ns * 2;
		if (q->next_ns < *next_ns)
			*next_ns = q->next_ns;
	}
	return progress;
}

/*
 * Work can reach a send queue without mrcd hearing of it: a low-latency
 * doorbell sends one packet and the tc program cannot wake anyone, and
 * what it sent still needs its ACK timeout watched. Every SCAN_NS, QPs
 * with WQEs not completed join the pump list (reading mapped queues only).
 */
static void scan(struct mrcd *m)
{
	uint64_t ticks;
	uint32_t qpn;

	if (read(m->scan_fd, &ticks, sizeof(ticks)) < 0)
		return;
	health_tick(m);
	ctl_tick(m);
	m->gray_ticks += ticks;
	if (m->gray_ticks * SCAN_NS >= m->cfg.gray_interval_ms * 1000000ull) {
		m->gray_ticks = 0;
		health_gray(m);
	}
	for (qpn = 0; qpn < MRC_MAX_QP; qpn++) {
		struct qp_ent *q = &m->qp[qpn];

		if (q->owner && !q->active && q->state == MRC_QPS_RTS &&
		    q->sq->state != MRC_QPS_ERR &&
		    *(volatile uint32_t *)&q->sq->tail !=
			    *(volatile uint32_t *)&q->sq->done)
			pump_activate(m, qpn);
	}
}

static int run(struct mrcd *m)
{
	struct epoll_event ev[64];
	uint64_t next_ns = UINT64_MAX;
	int progress = 0, n, i;

	while (!stop) {
		struct timespec ts = {}, *tp = NULL;
		uint64_t now;

		if (progress) {
			tp = &ts; /* data flows: just look for news */
		} else if (m->nactive) {
			now = mrcd_now_ns();
			tp = &ts;
			if (next_ns > now) {
				ts.tv_sec = (next_ns - now) / 1000000000ull;
				ts.tv_nsec = (next_ns - now) % 1000000000ull;
			}
		}
		n = epoll_pwait2(m->epfd, ev, 64, tp, NULL);
		if (n < 0 && errno != EINTR) {
			fprintf(stderr, "mrcd: epoll: %s\n", strerror(errno));
			return 1;
		}
		for (i = 0; i < n; i++) {
			uint32_t tag = ev[i].data.u64 >> 32;
			uint32_t idx = (uint32_t)ev[i].data.u64;

			if (tag == TAG_LISTEN)
				accept_client(m);
			else if (tag == TAG_CLIENT && idx < MRCD_MAX_CLIENTS &&
				 m->client[idx].fd >= 0)
				client_event(m, &m->client[idx]);
			else if (tag == TAG_DOORBELL)
				doorbell_event(m, idx);
			else if (tag == TAG_SCAN)
				scan(m);
			else if (tag == TAG_EVENTS)
				health_events(m);
			else if (tag == TAG_LINK)
				links_event(m);
			else if (tag == TAG_SIGNAL)
				signal_event(m);
			else if (tag == TAG_ORPHAN)
				orphan_gone(m, idx);
		}
		progress = m->nactive ? pump(m, &next_ns) : 0;
	}
	return 0;
}

/* Leftovers in the data path that no booked owner has (a SIGKILL between
 * changing the data path and writing the books). */
static int in_outer(struct bpf_map *outer, uint32_t i)
{
	uint32_t id;

	return !bpf_map_lookup_elem(bpf_map__fd(outer), &i, &id);
}

static void adopt_sweep(struct mrcd *m)
{
	uint32_t i;

	for (i = 0; i < MRC_MAX_QP; i++)
		if (!m->qp[i].owner && in_outer(m->dev.rx->maps.mrc_sq, i)) {
			dev_qp_destroy(&m->dev, i, NULL);
			dev_pin_sq(m->pin_dir, i, -1);
		}
	for (i = 0; i < MRC_MAX_MR; i++)
		if (!m->mr_owner[i] && in_outer(m->dev.rx->maps.mrc_mr, i))
			dev_mr_remove(&m->dev, i);
	for (i = 0; i < MRC_MAX_CQ; i++)
		if (!m->cq_owner[i] && in_outer(m->dev.rx->maps.mrc_cq, i))
			dev_cq_remove(&m->dev, i);
}

/*
 * The device a stopped or killed mrcd left running: its books, every QP's
 * send queue, and its clients as orphans until their processes resume
 * (or end). The data path never stopped; this mrcd's sweep sends what was
 * posted meanwhile.
 */
static int adopt(struct mrcd *m)
{
	uint32_t i, nqp = 0, nmr = 0, ncq = 0;
	int err = books_adopt(m);

	if (err)
		return err;
	links_resync(m); /* ports that went down while no mrcd watched */
	dev_lowlat_adopt_qdisc((int)m->books->lowlat_made_qdisc);
	for (i = 0; i < MRC_MAX_QP; i++)
		if (m->qp[i].owner && !serve_adopt_qp(m, i))
			nqp++;
	for (i = 0; i < MRC_MAX_MR; i++)
		nmr += m->mr_owner[i] != NULL;
	for (i = 0; i < MRC_MAX_CQ; i++)
		ncq += m->cq_owner[i] != NULL;
	adopt_sweep(m);
	for (i = 0; i < MRCD_MAX_CLIENTS; i++)
		if (m->client[i].orphan)
			m->norphans++;
	mrcd_log(
		m, 0,
		"took over the running device (mrcd number %llu on it): %u QPs, %u memory regions, %u completion queues of %u processes\n",
		(unsigned long long)m->books->generation, nqp, nmr, ncq,
		m->norphans);
	for (i = 0; i < MRCD_MAX_CLIENTS; i++) {
		struct client *c = &m->client[i];
		struct epoll_event ev = { .events = EPOLLIN };

		if (!c->orphan)
			continue;
		c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
		ev.data.u64 = (uint64_t)TAG_ORPHAN << 32 | i;
		/* The start time tells a reused pid from the process. */
		if (c->pidfd < 0 ||
		    books_proc_start(c->pid) != c->start_ticks ||
		    epoll_ctl(m->epfd, EPOLL_CTL_ADD, c->pidfd, &ev))
			orphan_gone(m, i);
	}
	books_save(m);
	return 0;
}

static int setup(struct mrcd *m, const char *anchor)
{
	int i, err, running = 0;

	/* First: a second mrcd for the same device stops here. */
	if (m->pin_dir) {
		running = dev_pin_present(m->pin_dir);
		if (running) {
			int fd = dev_pin_get(m->pin_dir, "maps", "mrcd_books");

			if (fd >= 0) {
				close(fd);
			} else {
				fd = dev_pin_lock(m->pin_dir);
				if (fd < 0)
					return fd;
				mrcd_log(
					m, 0,
					"%s holds a device without mrcd's books (an mrcd ended while starting): removing it\n",
					m->pin_dir);
				dev_unpin(m->pin_dir);
				close(fd);
				running = 0;
			}
		}
		if (!running) {
			err = dev_pin_claim(m->pin_dir);
			if (err)
				return err;
		}
		m->pin_lock_fd = dev_pin_lock(m->pin_dir);
		if (m->pin_lock_fd < 0)
			return m->pin_lock_fd;
		m->pinned = 1;
		m->adopted = running;
	}
	/* Everything that can refuse comes before anything is attached: a
	 * running device is either taken over or left exactly as it was. */
	for (i = 0; i < m->nports; i++) {
		struct port_spec *p = &m->port[i];

		if (!p->has_mac) {
			fprintf(stderr, "mrcd: port %s: mac= is required\n",
				p->ifname);
			return -EINVAL;
		}
		p->v6 = m->v6;
		if (p->prefix_len < 0 && port_subnet(p)) {
			fprintf(stderr,
				"mrcd: port %s: no %s address to take the plane from\n",
				p->ifname, m->v6 ? "IPv6" : "IPv4");
			return -EADDRNOTAVAIL;
		}
	}
	err = running ? dev_open_pinned(&m->dev, m->pin_dir) :
			dev_open(&m->dev);
	if (!err && running)
		err = books_check(m);
	if (err)
		return err;
	for (i = 0; i < m->nports; i++) {
		err = dev_add_port(&m->dev, i, m->port[i].ifname,
				   m->port[i].mac, m->v6);
		if (err)
			return err;
	}
	err = dev_set_anchor(&m->dev, anchor);
	if (err)
		return err;
	/* Without it applications ring mrcd; slower, still correct. */
	m->lowlat = dev_lowlat_attach(&m->dev) == 0;
	if (!m->lowlat)
		mrcd_log(m, 0, "low-latency doorbells off (see above)\n");
	if (m->pin_dir) {
		/* A running device's maps are pinned already (the same). */
		err = dev_pin(&m->dev, m->pin_dir, dev_lowlat_prog_fd(),
			      !running);
		if (err)
			return err;
	}
	m->epfd = epoll_create1(EPOLL_CLOEXEC);
	m->scan_fd =
		timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (m->epfd < 0 || m->scan_fd < 0 ||
	    epoll_add(m, m->scan_fd, TAG_SCAN, 0))
		return -EIO;
	ctl_init(m);
	err = health_init(m);
	if (!err)
		err = links_init(m);
	if (!err && m->pin_dir)
		err = running ? adopt(m) : books_create(m);
	if (err)
		return err;
	if (m->books)
		m->books->lowlat_made_qdisc |=
			(uint32_t)dev_lowlat_made_qdisc();
	/* Last: applications that connect find everything in place. */
	m->listen_fd = listen_on(m);
	if (m->listen_fd < 0 || epoll_add(m, m->listen_fd, TAG_LISTEN, 0))
		return -EIO;
	{
		struct itimerspec it = {
			.it_interval.tv_nsec = SCAN_NS,
			.it_value.tv_nsec = SCAN_NS,
		};

		if (timerfd_settime(m->scan_fd, 0, &it, NULL))
			return -errno;
	}
	return 0;
}

/* What the command line said, applied over the configuration file. */
struct cli {
	struct port_spec port[MRC_MAX_PORTS];
	int nports;
	const char *anchor, *socket, *pin_dir;
	int no_pin, v6, verbose;
};

static void apply_cli(struct mrcd_config *c, const struct cli *o)
{
	int i;

	if (o->nports) {
		for (i = 0; i < o->nports; i++)
			c->port[i] = o->port[i];
		c->nports = o->nports;
	}
	if (o->anchor)
		snprintf(c->anchor, sizeof(c->anchor), "%s", o->anchor);
	if (o->socket)
		snprintf(c->socket, sizeof(c->socket), "%s", o->socket);
	else if (!c->line[CONFIG_SOCKET] && getenv(MRCD_SOCKET_ENV))
		snprintf(c->socket, sizeof(c->socket), "%s",
			 getenv(MRCD_SOCKET_ENV));
	if (o->pin_dir)
		snprintf(c->pin_dir, sizeof(c->pin_dir), "%s", o->pin_dir);
	if (o->no_pin)
		c->pin_dir[0] = 0; /* whatever the order of -P and --no-pin */
	if (o->v6)
		c->ipv6 = 1;
	if (o->verbose)
		c->log_level = CONFIG_LOG_DEBUG;
}

/* The configuration's values that mrcd keeps outside m->cfg. */
static void adopt_cfg(struct mrcd *m)
{
	int i;

	for (i = 0; i < m->cfg.nports; i++)
		m->port[i] = m->cfg.port[i];
	m->nports = m->cfg.nports;
	m->v6 = m->cfg.ipv6;
	m->sock_path = m->cfg.socket;
	m->pin_dir = m->cfg.pin_dir[0] ? m->cfg.pin_dir : NULL;
	m->verbose = m->cfg.log_level >= CONFIG_LOG_DEBUG ? 1 : 0;
}

/*
 * SIGHUP: the file again, the command line over it. What may change at
 * run time changes; anything else, or a bad file, keeps the running
 * configuration and says why.
 */
static void reload(struct mrcd *m, const struct cli *o)
{
	static struct mrcd_config next;
	char err[512];

	notify_reloading();
	if (!m->config_path) {
		mrcd_log(
			m, 0,
			"SIGHUP: no configuration file (-c): nothing to reload\n");
		notify_send("READY=1\nSTATUS=running (nothing to reload)");
		return;
	}
	config_defaults(&next);
	if (config_load(m->config_path, &next, err, sizeof(err))) {
		mrcd_log(m, 0, "reload refused, configuration kept: %s\n", err);
		notify_send(
			"READY=1\nSTATUS=running; the last reload was refused");
		return;
	}
	apply_cli(&next, o);
	if (config_reload_check(&m->cfg, &next, err, sizeof(err))) {
		mrcd_log(m, 0, "reload refused, configuration kept: %s\n", err);
		notify_send(
			"READY=1\nSTATUS=running; the last reload was refused");
		return;
	}
	if (next.log_level != m->cfg.log_level)
		mrcd_log(m, 0, "log-level %s -> %s\n",
			 config_log_level_name(m->cfg.log_level),
			 config_log_level_name(next.log_level));
	/* Only run-time keys differ (checked above): ports, socket and pins
	 * stay as setup() resolved them (a plane prefix taken from the
	 * interface is in m->port, not in the file). */
	m->cfg = next;
	m->verbose = m->cfg.log_level >= CONFIG_LOG_DEBUG ? 1 : 0;
	mrcd_log(
		m, 0,
		"reloaded %s: probe-answers %u, probe-backoff %u-%u ms, gray-factor %u, reorder %u us\n",
		m->config_path, m->cfg.probe_answers,
		m->cfg.probe_backoff_min_ms, m->cfg.probe_backoff_max_ms,
		m->cfg.gray_factor, m->cfg.reorder_us);
	notify_send("READY=1\nSTATUS=running");
}

/*
 * One mrcd per socket: an exclusive lock on SOCKET.lock, held until mrcd
 * exits (the kernel drops it however mrcd ends).
 */
static int take_lock(struct mrcd *m)
{
	char path[sizeof(m->cfg.socket) + 8];
	int fd;

	snprintf(path, sizeof(path), "%s.lock", m->sock_path);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		fprintf(stderr, "mrcd: %s: %s\n", path, strerror(errno));
		return -1;
	}
	{
		struct stat st;

		if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
		    st.st_uid != geteuid()) {
			fprintf(stderr,
				"mrcd: %s: not a regular file of ours; refusing it\n",
				path);
			close(fd);
			return -1;
		}
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		char pid[32] = "";
		ssize_t n = pread(fd, pid, sizeof(pid) - 1, 0);

		if (n > 0)
			pid[strcspn(pid, "\n")] = 0;
		fprintf(stderr,
			"mrcd: another mrcd%s%s serves %s (it holds %s)\n",
			pid[0] ? ", pid " : "", pid, m->sock_path, path);
		close(fd);
		return -1;
	}
	if (ftruncate(fd, 0) == 0)
		dprintf(fd, "%d\n", (int)getpid());
	m->lock_fd = fd;
	return 0;
}

/*
 * Closes what this mrcd holds. keep: the device stays attached and pinned
 * (a hand-over, or a running device it did not take over); else it goes.
 */
static void teardown(struct mrcd *m, int keep)
{
	links_close(m);
	ctl_close(m);
	health_close(m);
	books_close(m);
	if (keep) {
		dev_lowlat_release();
		dev_release(&m->dev);
		return;
	}
	if (m->pinned)
		dev_unpin(m->pin_dir);
	if (m->lowlat)
		dev_lowlat_detach(&m->dev);
	dev_close(&m->dev);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "port", 1, 0, 'p' },	  { "anchor", 1, 0, 'a' },
		{ "socket", 1, 0, 's' },  { "ipv6", 0, 0, '6' },
		{ "verbose", 0, 0, 'v' }, { "pin-dir", 1, 0, 'P' },
		{ "no-pin", 0, 0, 'N' },  { "config", 1, 0, 'c' },
		{ "help", 0, 0, 'h' },	  {}
	};
	static struct mrcd m;
	static struct cli o;
	char err[512];
	sigset_t sigs;
	int c, i, rc, handover;

	m.listen_fd = m.epfd = m.scan_fd = m.sig_fd = m.lock_fd = -1;
	m.pin_lock_fd = m.books_fd = -1;
	for (i = 0; i < MRCD_MAX_CLIENTS; i++)
		m.client[i].fd = m.client[i].pidfd = -1;
	while ((c = getopt_long(argc, argv, "p:a:s:P:c:6vh", opts, NULL)) !=
	       -1) {
		switch (c) {
		case 'p':
			if (o.nports == MRC_MAX_PORTS) {
				fprintf(stderr, "mrcd: at most %d ports\n",
					MRC_MAX_PORTS);
				return 2;
			}
			if (port_spec_parse(optarg, &o.port[o.nports], err,
					    sizeof(err))) {
				fprintf(stderr, "mrcd: -p %s: %s\n", optarg,
					err);
				return 2;
			}
			o.nports++;
			break;
		case 'a':
			o.anchor = optarg;
			break;
		case 's':
			o.socket = optarg;
			break;
		case '6':
			o.v6 = 1;
			break;
		case 'P':
			if (!*optarg) {
				fprintf(stderr, "mrcd: -P needs a directory\n");
				return 2;
			}
			o.pin_dir = optarg;
			break;
		case 'N':
			o.no_pin = 1;
			break;
		case 'c':
			m.config_path = optarg;
			break;
		case 'v':
			o.verbose++;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "mrcd: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		return 2;
	}
	config_defaults(&m.cfg);
	snprintf(m.cfg.socket, sizeof(m.cfg.socket), "%s", MRCD_SOCKET_DEFAULT);
	snprintf(m.cfg.pin_dir, sizeof(m.cfg.pin_dir), "%s",
		 MRCD_PIN_DIR_DEFAULT);
	if (m.config_path &&
	    config_load(m.config_path, &m.cfg, err, sizeof(err))) {
		fprintf(stderr, "mrcd: %s\n", err);
		return 2;
	}
	apply_cli(&m.cfg, &o);
	if (!m.cfg.nports || !m.cfg.anchor[0]) {
		fprintf(stderr, "mrcd: %s\n",
			!m.cfg.nports ?
				"no port given (-p, or port in -c FILE)" :
				"no anchor interface given (-a, or anchor in -c FILE)");
		usage(stderr);
		return 2;
	}
	if (m.config_path && config_finish(&m.cfg, err, sizeof(err))) {
		fprintf(stderr, "mrcd: %s\n", err);
		return 2;
	}
	adopt_cfg(&m);
	/* Signals arrive on a signalfd in the event loop. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	m.sig_fd = signalfd(-1, &sigs, SFD_NONBLOCK | SFD_CLOEXEC);
	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < MRC_MAX_PORTS; i++)
		m.probe_fd[i] = -1;
	if (m.sig_fd < 0 || take_lock(&m))
		return 1;
	if (setup(&m, m.cfg.anchor) || epoll_add(&m, m.sig_fd, TAG_SIGNAL, 0)) {
		/* A running device stays as it was found. */
		if (m.adopted)
			fprintf(stderr,
				"mrcd: the running device in %s is left as it is\n",
				m.pin_dir);
		teardown(&m, m.adopted);
		return 1;
	}
	mrcd_log(&m, 0, "ready: %d ports, socket %s%s%s\n", m.nports,
		 m.sock_path, m.config_path ? ", configuration " : "",
		 m.config_path ? m.config_path : "");
	notify_send("READY=1\nSTATUS=running");
	m.cli = &o;
	rc = run(&m);
	notify_send("STOPPING=1");
	/*
	 * Applications with objects keep them: the data path stays attached
	 * and pinned with the books for the next mrcd (a restart), and their
	 * connections close. With none, the device goes.
	 */
	handover = m.pinned && serve_objects_alive(&m);
	for (i = 0; i < MRCD_MAX_CLIENTS; i++) {
		if (m.client[i].fd >= 0 && !handover)
			serve_drop_client(&m, &m.client[i]);
		if (m.client[i].fd >= 0)
			close(m.client[i].fd);
		if (m.client[i].pidfd >= 0)
			close(m.client[i].pidfd);
	}
	unlink(m.sock_path);
	if (handover) {
		uint32_t nqp = 0;

		for (i = 0; i < MRC_MAX_QP; i++)
			nqp += m.qp[i].owner != NULL;
		books_save(&m);
		mrcd_log(
			&m, 0,
			"handing the device over: %u QPs and their applications' objects stay in the data path (pinned in %s) for the next mrcd\n",
			nqp, m.pin_dir);
		teardown(&m, 1);
		return rc;
	}
	mrcd_log(
		&m, 0,
		"path health: %llu EV state changes (%llu flaps), %llu probes sent, %llu answered, %llu lost\n",
		(unsigned long long)m.ev_state_events,
		(unsigned long long)m.flaps, (unsigned long long)m.probes_sent,
		(unsigned long long)m.probe_answers,
		(unsigned long long)m.probes_lost);
	teardown(&m, 0);
	mrcd_log(&m, 0, "stopped after %llu transmit calls\n",
		 (unsigned long long)m.tx_calls);
	return rc;
}
