// SPDX-License-Identifier: GPL-2.0
/*
 * mrcd's clients: accepting connections (who is at the other end, decided
 * once), reading their requests, sessions resumed after a restart, and
 * orphans whose process may still come back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "clients.h"
#include "clock.h"
#include "log.h"
#include "mrc/msg.h"
#include "mrc/mrcd_proto.h"

void clients_init(struct clients *cl, struct loop *loop)
{
	int i;

	memset(cl, 0, sizeof(*cl));
	cl->loop = loop;
	cl->listen.fd = -1;
	cl->max_clients = MRCD_MAX_CLIENTS;
	for (i = 0; i < MRCD_MAX_CLIENTS; i++) {
		cl->client[i].conn.fd = cl->client[i].pidfd.fd = -1;
		cl->client[i].idx = (uint32_t)i;
	}
}

static void changed(struct clients *cl, const struct client *c)
{
	if (cl->on_change)
		cl->on_change(cl->ctx, c);
}

/* The clients whose slot c is. */
static struct clients *clients_of(struct client *c)
{
	return container_of(c - c->idx, struct clients, client[0]);
}

uint64_t clients_proc_start(uint32_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long t = 0;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	/* After the command name in parentheses (which may hold anything):
	 * field 3 onwards; starttime is field 22. */
	p = strrchr(buf, ')');
	for (i = 2; p && i < 22; i++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &t) != 1)
		return 0;
	return t;
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
static int peer_net_admin(int fd, const struct ucred *cr)
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
		log_info(
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

static void client_event(struct loop_fd *h);

static void accept_client(struct loop_fd *h)
{
	struct clients *cl = container_of(h, struct clients, listen);
	struct ucred cr = { .pid = 0, .uid = ~0u };
	socklen_t len = sizeof(cr);
	struct client *c;
	int fd, i, n;

	/* Non-blocking: a client that does not read its replies is dropped
	 * (EAGAIN on a reply), never waited for. */
	fd = accept4(h->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return;
	/* max-clients counts connections; orphans (a predecessor's clients
	 * that have not resumed) hold slots beyond it, and must find one
	 * to resume from. */
	for (i = 0, n = 0; i < MRCD_MAX_CLIENTS; i++)
		n += cl->client[i].conn.fd >= 0;
	for (i = 0; i < MRCD_MAX_CLIENTS &&
		    (cl->client[i].conn.fd >= 0 || cl->client[i].orphan);
	     i++)
		;
	if (n >= (int)cl->max_clients || i == MRCD_MAX_CLIENTS ||
	    loop_add(cl->loop, &cl->client[i].conn, fd, client_event)) {
		log_warn("refusing a connection: too many clients\n");
		close(fd);
		return;
	}
	c = &cl->client[i];
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len))
		cr = (struct ucred){ .pid = 0, .uid = ~0u };
	c->uid = cr.uid;
	c->pid = (uint32_t)cr.pid;
	c->net_admin = cr.pid > 0 && peer_net_admin(fd, &cr);
	c->start_ticks = clients_proc_start(c->pid);
	if (getrandom(&c->session, sizeof(c->session), 0) != sizeof(c->session))
		c->session = now_ns() * 0x9e3779b97f4a7c15ull;
	c->session |= 1; /* never 0: 0 is a free slot */
	changed(cl, c);
	log_debug("client pid %u uid %u connected%s\n", c->pid, c->uid,
		  c->net_admin ? " (CAP_NET_ADMIN: controller)" : "");
}

static void hang_up(struct clients *cl, struct client *c)
{
	int fd = c->conn.fd;

	loop_del(cl->loop, &c->conn);
	close(fd);
}

static void client_event(struct loop_fd *h)
{
	struct client *c = container_of(h, struct client, conn);
	struct clients *cl = clients_of(c);
	union {
		struct mrcd_req req;
		char buf[sizeof(struct mrcd_req) + 64];
	} u;
	int fds[MRC_MSG_MAX_FDS], nfds, i;
	ssize_t n = mrc_msg_recv(c->conn.fd, &u, sizeof(u), fds, &nfds);

	for (i = 0; i < nfds; i++)
		close(fds[i]); /* applications send none */
	if (n > 0 && cl->on_request(cl->ctx, c, &u.req, (size_t)n) == 0)
		return;
	if (n < 0 && n == -EAGAIN)
		return;
	if (c->conn.fd < 0)
		return; /* resumed into an orphan's slot, which replied */
	log_debug("client pid %u gone\n", c->pid);
	cl->on_gone(cl->ctx, c);
	hang_up(cl, c);
}

int clients_listen(struct clients *cl, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[sizeof(sa.sun_path)], *slash;
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		log_err("socket path too long: %s\n", path);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, path);
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		mkdir(dir, 0755);
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	unlink(path);
	/* Anyone may connect: each connection only reaches its own objects. */
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || chmod(path, 0666) ||
	    listen(fd, 64)) {
		int err = -errno;

		log_err("listening on %s: %s\n", path, strerror(errno));
		close(fd);
		return err;
	}
	if (loop_add(cl->loop, &cl->listen, fd, accept_client)) {
		close(fd);
		return -EIO;
	}
	cl->path = path;
	return 0;
}

static void unwatch(struct clients *cl, struct client *c)
{
	if (c->pidfd.fd >= 0) {
		int fd = c->pidfd.fd;

		loop_del(cl->loop, &c->pidfd);
		close(fd);
	}
}

struct client *clients_resume(struct clients *cl, struct client *c,
			      uint64_t session)
{
	struct client *o;
	int i;

	for (i = 0; i < MRCD_MAX_CLIENTS; i++) {
		o = &cl->client[i];
		if (o->orphan && o->session == session && o->pid == c->pid &&
		    o->uid == c->uid && o->start_ticks == c->start_ticks)
			break;
	}
	if (i == MRCD_MAX_CLIENTS)
		return NULL;
	if (loop_move(cl->loop, &c->conn, &o->conn))
		return NULL;
	unwatch(cl, o);
	o->orphan = 0;
	o->net_admin = c->net_admin;
	c->session = 0;
	cl->norphans--;
	changed(cl, c);
	changed(cl, o);
	log_info("client pid %u resumed its session (%u still to resume)\n",
		 o->pid, cl->norphans);
	return o;
}

/* An orphan's process ended without resuming: its objects go. */
static void orphan_gone(struct clients *cl, struct client *c)
{
	if (!c->orphan)
		return;
	log_info("client pid %u ended before resuming: its objects are freed\n",
		 c->pid);
	unwatch(cl, c);
	c->orphan = 0;
	cl->norphans--;
	cl->on_gone(cl->ctx, c);
}

static void orphan_event(struct loop_fd *h)
{
	struct client *c = container_of(h, struct client, pidfd);

	orphan_gone(clients_of(c), c);
}

void clients_watch_orphans(struct clients *cl)
{
	int i;

	cl->norphans = 0;
	for (i = 0; i < MRCD_MAX_CLIENTS; i++)
		cl->norphans += cl->client[i].orphan != 0;
	for (i = 0; i < MRCD_MAX_CLIENTS; i++) {
		struct client *c = &cl->client[i];
		int fd;

		if (!c->orphan)
			continue;
		fd = (int)syscall(SYS_pidfd_open, c->pid, 0);
		/* The start time tells a reused pid from the process. */
		if (fd >= 0 &&
		    (clients_proc_start(c->pid) != c->start_ticks ||
		     loop_add(cl->loop, &c->pidfd, fd, orphan_event))) {
			close(fd);
			fd = -1;
		}
		if (fd < 0)
			orphan_gone(cl, c);
	}
}

void clients_close(struct clients *cl, int drop)
{
	int i;

	for (i = 0; i < MRCD_MAX_CLIENTS; i++) {
		struct client *c = &cl->client[i];

		if (c->conn.fd >= 0 && drop)
			cl->on_gone(cl->ctx, c);
		if (c->conn.fd >= 0)
			hang_up(cl, c);
		unwatch(cl, c);
	}
	if (cl->listen.fd >= 0) {
		int fd = cl->listen.fd;

		loop_del(cl->loop, &cl->listen);
		close(fd);
		if (cl->path)
			unlink(cl->path);
	}
}
