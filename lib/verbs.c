// SPDX-License-Identifier: GPL-2.0
/*
 * The soft verbs device: libmrc answers the verbs calls an MRC application
 * makes before it reaches the mrc_* API (device list, open, query, PD,
 * memory registration), so programs written for MRC NICs run unchanged
 * when linked with -lmrc, with or without -libverbs (bind.c makes these
 * the calls they reach; a real device's are forwarded to libibverbs).
 * The soft device, mrc0, is mrcd: opening it connects to mrcd's socket.
 *
 * Registering memory lays the device's memory (the region's mmapable map
 * chunks) over the application's own pages: the buffer's contents are
 * copied in once, then the chunks are mapped at the buffer's address, so
 * the application keeps its pointer and peers' WRITEs land in it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "bind.h"
#include "devlist.h"
#include "gid.h"
#include "internal.h"
#include "log.h"
#include "mrc/msg.h"
#include "plain.h"

/* The header's macro would route the call through an inline wrapper. */
#undef ibv_query_port
#undef ibv_reg_mr
#undef ibv_reg_mr_iova

#define PAGE 4096ul

/*
 * When mrcd restarts, the connection breaks: calls reconnect for this long
 * (MRC_RECONNECT_MS overrides; 0: never), trying every step, and posts look
 * for a broken connection at most every CHECK_EVERY_NS.
 */
#define RECONNECT_ENV "MRC_RECONNECT_MS"
#define RECONNECT_MS 10000
#define RECONNECT_STEP_MS 20
#define CHECK_EVERY_NS 100000000ull

static struct ibv_device soft_device = {
	.node_type = IBV_NODE_CA,
	.transport_type = IBV_TRANSPORT_IB,
	.name = "mrc0",
	.dev_name = "mrc0",
	.dev_path = "/run/mrc",
	.ibdev_path = "/run/mrc",
};

static const char *sock_path(void)
{
	const char *p = getenv(MRCD_SOCKET_ENV);

	return p && *p ? p : MRCD_SOCKET_DEFAULT;
}

/*
 * The host's real devices, as the real libibverbs lists them, then mrc0
 * while mrcd listens. A real list that fails (no RDMA subsystem: an empty
 * one, or NULL with ENOSYS) is no reason to hide mrc0.
 */
struct ibv_device **ibv_get_device_list(int *num_devices)
{
	struct ibv_device **(*real_get)(int *) =
		(struct ibv_device * *(*)(int *))
			bind_real("ibv_get_device_list");
	void (*real_free)(struct ibv_device **) = (void (*)(
		struct ibv_device **))bind_real("ibv_free_device_list");
	struct ibv_device **real = NULL, **list;
	int nreal = 0, n = 0;

	if (real_get && real_free)
		real = real_get(&nreal);
	list = devlist_merge(real, nreal,
			     access(sock_path(), F_OK) ? NULL : &soft_device,
			     &n);
	if (!list) {
		if (real)
			real_free(real);
		return NULL;
	}
	if (num_devices)
		*num_devices = n;
	return list;
}

void ibv_free_device_list(struct ibv_device **list)
{
	void (*real_free)(struct ibv_device **) = (void (*)(
		struct ibv_device **))bind_real("ibv_free_device_list");
	struct ibv_device **real;

	if (!devlist_release(list, &real)) {
		real = list; /* the real libibverbs made it */
		if (!real_free)
			return;
	}
	if (real && real_free)
		real_free(real);
}

const char *ibv_get_device_name(struct ibv_device *device)
{
	if (device == &soft_device)
		return device->name;
	BIND_FORWARD(ibv_get_device_name, NULL, device);
}

__be64 ibv_get_device_guid(struct ibv_device *device)
{
	if (device == &soft_device)
		return htobe64(0x6d72630000000001ull); /* "mrc" */
	BIND_FORWARD(ibv_get_device_guid, 0, device);
}

/* The kernel's index of the device: the soft device has none. */
int ibv_get_device_index(struct ibv_device *device)
{
	if (device == &soft_device)
		return -1;
	BIND_FORWARD(ibv_get_device_index, -1, device);
}

int soft_is_ours(struct ibv_context *ctx)
{
	return ctx && ctx->device == &soft_device;
}

/* The fds of a reply no one takes. */
static void close_fds(int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++)
		close(fds[i]);
}

/*
 * One request on fd, sc->lock held: the reply's length or -errno
 * (-ECONNRESET when mrcd closed), its fds in got[].
 */
static ssize_t call_fd(int fd, struct mrcd_req *req, struct mrcd_rep *rep,
		       int *got, int *ngot)
{
	ssize_t n;

	*ngot = 0;
	req->version = MRCD_PROTO_VERSION;
	n = mrc_msg_send(fd, req, sizeof(*req), NULL, 0);
	if (!n)
		n = mrc_msg_recv(fd, rep, sizeof(*rep), got, ngot);
	if (n == 0) {
		close_fds(got, *ngot);
		*ngot = 0;
		n = -ECONNRESET; /* mrcd went away */
	}
	return n;
}

/* Did the connection break (mrcd exited), rather than the request fail? */
static bool broken(ssize_t n)
{
	return n == -EPIPE || n == -ECONNRESET || n == -ENOTCONN;
}

/* How long a broken connection is retried, in ms (0: not at all). */
static long reconnect_ms(void)
{
	const char *p = getenv(RECONNECT_ENV);
	char *end;
	long ms;

	if (!p || !*p)
		return RECONNECT_MS;
	errno = 0;
	ms = strtol(p, &end, 10);
	if (errno || *end || ms < 0) {
		lib_warn("%s=%s: not a number of ms; %d in force\n",
			 RECONNECT_ENV, p, RECONNECT_MS);
		return RECONNECT_MS;
	}
	return ms > INT32_MAX ? INT32_MAX : ms;
}

void soft_db_add(struct soft_ctx *sc, uint32_t qpn, int *fd)
{
	if (qpn >= MRC_MAX_QP)
		return;
	pthread_mutex_lock(&sc->db_lock);
	sc->db[qpn] = fd;
	pthread_mutex_unlock(&sc->db_lock);
}

void soft_db_del(struct soft_ctx *sc, uint32_t qpn, int *fd)
{
	if (qpn >= MRC_MAX_QP)
		return;
	/* Once out, no reconnect writes over the fd its owner closes. Only
	 * its own entry: the number may be another QP's already. */
	pthread_mutex_lock(&sc->db_lock);
	if (sc->db[qpn] == fd)
		sc->db[qpn] = NULL;
	pthread_mutex_unlock(&sc->db_lock);
}

/*
 * The new mrcd made new doorbell eventfds: each goes over the old fd's
 * number, atomically for posters writing to it meanwhile. A QP whose
 * request fails keeps its old fd: mrcd's sweep still finds its posts.
 */
static void refresh_doorbells(struct soft_ctx *sc, struct mrcd_req *req,
			      struct mrcd_rep *rep)
{
	int got[MRC_MSG_MAX_FDS], ngot;
	uint32_t qpn;
	ssize_t n;

	pthread_mutex_lock(&sc->db_lock);
	for (qpn = 0; qpn < MRC_MAX_QP; qpn++) {
		if (!sc->db[qpn])
			continue;
		memset(req, 0, sizeof(*req));
		req->op = MRCD_QP_DOORBELL;
		req->obj.idx = qpn;
		n = call_fd(sc->sock, req, rep, got, &ngot);
		if (n == (ssize_t)sizeof(*rep) && !rep->err && ngot > 0)
			dup3(got[0], *sc->db[qpn], O_CLOEXEC);
		close_fds(got, ngot);
		if (broken(n))
			break; /* gone again: the next call reconnects anew */
	}
	pthread_mutex_unlock(&sc->db_lock);
}

/*
 * One attempt to resume sc's session on a new connection: 0, ENOENT (the
 * session is gone) or EAGAIN (mrcd is not back yet, or failed us).
 */
static const struct timeval resume_timeout = { .tv_sec = 2 };
static const struct timeval no_timeout;

static int resume_once(struct soft_ctx *sc, struct mrcd_req *req,
		       struct mrcd_rep *rep)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int got[MRC_MSG_MAX_FDS], ngot, fd, err = EAGAIN;
	uint64_t session = sc->info.session;
	ssize_t n;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path());
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return EAGAIN;
	/* ENOENT, ECONNREFUSED: the new mrcd does not listen yet (it listens
	 * once it has taken the device over). A hung mrcd must not hang a
	 * poster: the resume's own calls time out. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &resume_timeout,
		       sizeof(resume_timeout)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &resume_timeout,
		       sizeof(resume_timeout)) ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		goto out;
	memset(req, 0, sizeof(*req));
	req->op = MRCD_RESUME;
	req->resume.session = session;
	n = call_fd(fd, req, rep, got, &ngot);
	close_fds(got, ngot);
	if (n != (ssize_t)sizeof(*rep))
		goto out;
	if (rep->err) {
		err = rep->err == ENOENT ? ENOENT : EAGAIN;
		goto out;
	}
	/* The application may hold the number (cmd_fd): keep it. */
	if (dup3(fd, sc->sock, O_CLOEXEC) < 0)
		goto out;
	sc->info = rep->hello; /* ports may have changed meanwhile */
	sc->info.session = session;
	refresh_doorbells(sc, req, rep);
	/* Requests may wait long (a probe batch): no timeout from here. */
	setsockopt(sc->sock, SOL_SOCKET, SO_RCVTIMEO, &no_timeout,
		   sizeof(no_timeout));
	setsockopt(sc->sock, SOL_SOCKET, SO_SNDTIMEO, &no_timeout,
		   sizeof(no_timeout));
	err = 0;
out:
	close(fd);
	return err;
}

/*
 * Resumes sc's session after mrcd restarted, sc->lock held: tries every
 * RECONNECT_STEP_MS until deadline (CLOCK_MONOTONIC; once when already
 * past). 0, ENOENT (the session is gone) or ETIMEDOUT.
 */
static int reconnect(struct soft_ctx *sc, uint64_t deadline)
{
	struct {
		struct mrcd_req req;
		struct mrcd_rep rep;
	} *c = malloc(sizeof(*c));
	const struct timespec step = { 0, RECONNECT_STEP_MS * 1000000l };
	uint64_t t0 = now_ns(CLOCK_MONOTONIC);
	int err;

	lib_info("mrcd at %s went away: resuming session %#llx\n", sock_path(),
		 (unsigned long long)sc->info.session);
	for (;;) {
		err = c ? resume_once(sc, &c->req, &c->rep) : EAGAIN;
		if (err != EAGAIN)
			break;
		if (now_ns(CLOCK_MONOTONIC) >= deadline) {
			err = ETIMEDOUT;
			break;
		}
		nanosleep(&step, NULL);
		if (!c)
			c = malloc(sizeof(*c));
	}
	free(c);
	if (!err)
		lib_info("mrcd at %s: session %#llx resumed after %llu ms\n",
			 sock_path(), (unsigned long long)sc->info.session,
			 (unsigned long long)(now_ns(CLOCK_MONOTONIC) - t0) /
				 1000000ull);
	else if (err == ENOENT || deadline > t0)
		lib_err("mrcd at %s: session %#llx %s: this context's objects are gone\n",
			sock_path(), (unsigned long long)sc->info.session,
			err == ENOENT ? "is not there any more" :
					"could not be resumed in time");
	return err;
}

/*
 * A request repeated after a restart failed: had the old mrcd done it
 * before it went (and saved it, then died before replying)? A free that
 * finds nothing, or a QP move that finds the QP already there, was done.
 */
static bool done_before(struct soft_ctx *sc, const struct mrcd_req *req,
			const struct mrcd_rep *rep)
{
	struct mrcd_req q = { .op = MRCD_QP_QUERY };
	struct mrcd_rep r;
	int got[MRC_MSG_MAX_FDS], ngot;
	ssize_t n;

	switch (req->op) {
	case MRCD_PD_FREE:
	case MRCD_MR_DEREG:
	case MRCD_CQ_DESTROY:
	case MRCD_QP_DESTROY:
	case MRCD_CTL_EVENTS_CLOSE:
		return rep->err == ENOENT;
	case MRCD_QP_MODIFY:
		if (rep->err != EINVAL)
			return false;
		q.obj.idx = req->qp_modify.qpn;
		n = call_fd(sc->sock, &q, &r, got, &ngot);
		close_fds(got, ngot);
		return n == (ssize_t)sizeof(r) && !r.err &&
		       r.qp_query.state == req->qp_modify.state;
	}
	return false;
}

int soft_call(struct soft_ctx *sc, struct mrcd_req *req, struct mrcd_rep *rep,
	      int *fds, int nfds_max)
{
	int got[MRC_MSG_MAX_FDS], ngot = 0, i;
	ssize_t n = -ECONNRESET;

	pthread_mutex_lock(&sc->lock);
	if (!sc->lost)
		n = call_fd(sc->sock, req, rep, got, &ngot);
	/* Without a session (HELLO not answered yet) there is none to resume. */
	if (!sc->lost && broken(n) && sc->reconnect_ms && sc->info.session) {
		uint64_t deadline = now_ns(CLOCK_MONOTONIC) +
				    (uint64_t)sc->reconnect_ms * 1000000ull;

		if (!reconnect(sc, deadline)) {
			n = call_fd(sc->sock, req, rep, got, &ngot);
			/* The old mrcd may have done it before it went. */
			if (n == (ssize_t)sizeof(*rep) &&
			    done_before(sc, req, rep))
				rep->err = 0;
		} else {
			/* Our objects are gone, or mrcd is not coming back. */
			__atomic_store_n(&sc->lost, 1, __ATOMIC_RELAXED);
			n = -ECONNRESET;
		}
	}
	pthread_mutex_unlock(&sc->lock);
	if (n > 0 && (size_t)n != sizeof(*rep))
		n = -EPROTO;
	for (i = 0; i < ngot; i++) {
		if (n > 0 && !rep->err && fds && i < nfds_max)
			fds[i] = got[i];
		else
			close(got[i]);
	}
	for (; fds && i < nfds_max; i++)
		fds[i] = -1;
	if (n < 0)
		return -n;
	return rep->err;
}

void soft_check_link(struct soft_ctx *sc)
{
	struct pollfd p = { .fd = sc->sock, .events = POLLIN | POLLRDHUP };
	uint64_t now = now_ns(CLOCK_MONOTONIC_COARSE);

	if (now < __atomic_load_n(&sc->next_check_ns, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&sc->next_check_ns, now + CHECK_EVERY_NS,
			 __ATOMIC_RELAXED);
	if (!sc->reconnect_ms || !sc->info.session ||
	    __atomic_load_n(&sc->lost, __ATOMIC_RELAXED))
		return;
	if (poll(&p, 1, 0) <= 0 || !(p.revents & (POLLHUP | POLLRDHUP)))
		return;
	/* Never make a poster wait: a request under way reconnects anyway. */
	if (pthread_mutex_trylock(&sc->lock))
		return;
	/* Another thread may have reconnected between the poll and here. */
	p.revents = 0;
	if (!sc->lost && poll(&p, 1, 0) > 0 &&
	    (p.revents & (POLLHUP | POLLRDHUP)) && reconnect(sc, 0) == ENOENT)
		__atomic_store_n(&sc->lost, 1, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&sc->lock);
}

static int ctx_op_unsupported(void)
{
	return EOPNOTSUPP;
}

struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct soft_ctx *sc;
	struct mrcd_req req = { .op = MRCD_HELLO };
	struct mrcd_rep rep;
	int err;

	if (device != &soft_device)
		BIND_FORWARD(ibv_open_device, NULL, device);
	sc = calloc(1, sizeof(*sc));
	if (!sc) {
		errno = ENOMEM;
		return NULL;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path());
	sc->sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (sc->sock < 0 ||
	    connect(sc->sock, (struct sockaddr *)&sa, sizeof(sa))) {
		err = errno;
		lib_info("mrcd at %s: %s\n", sa.sun_path, strerror(err));
		goto fail;
	}
	pthread_mutex_init(&sc->lock, NULL);
	pthread_mutex_init(&sc->mr_lock, NULL);
	pthread_mutex_init(&sc->db_lock, NULL);
	sc->db_sock = -1;
	err = soft_call(sc, &req, &rep, NULL, 0);
	if (err) {
		lib_err("mrcd at %s: HELLO: %s%s\n", sa.sun_path, strerror(err),
			err == EPROTO ?
				" (another protocol version: mrcd and libmrc of different builds)" :
				"");
		goto fail;
	}
	sc->info = rep.hello;
	sc->reconnect_ms = reconnect_ms();
	sc->ibv.device = device;
	sc->ibv.cmd_fd = sc->sock;
	sc->ibv.num_comp_vectors = 1;
	sc->ibv.ops._compat_query_device = (void *)ctx_op_unsupported;
	/* What verbs.h's inline calls (ibv_post_send, ibv_poll_cq) reach. */
	plain_ops_set(&sc->ibv);
	pthread_mutex_init(&sc->ibv.mutex, NULL);
	err = -async_init(&sc->ibv);
	if (err)
		goto fail;
	return &sc->ibv;
fail:
	if (sc->sock >= 0)
		close(sc->sock);
	free(sc);
	errno = err;
	return NULL;
}

int ibv_close_device(struct ibv_context *context)
{
	struct soft_ctx *sc = (struct soft_ctx *)context;

	if (!soft_is_ours(context))
		BIND_FORWARD(ibv_close_device, -1, context);
	async_fini(context);
	/*
	 * mrcd frees whatever the connection still owns. After a reconnect
	 * sock is the same number, now the new connection.
	 */
	close(sc->sock);
	if (sc->db_sock >= 0)
		close(sc->db_sock);
	free(sc);
	return 0;
}

int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *attr)
{
	struct soft_ctx *sc = (struct soft_ctx *)context;

	if (!soft_is_ours(context))
		BIND_FORWARD(ibv_query_device, ENODEV, context, attr);
	memset(attr, 0, sizeof(*attr));
	snprintf(attr->fw_ver, sizeof(attr->fw_ver), "mrc %d",
		 MRCD_PROTO_VERSION);
	attr->node_guid = ibv_get_device_guid(context->device);
	attr->sys_image_guid = attr->node_guid;
	attr->max_mr_size = (uint64_t)sc->info.mr_chunk * 65536;
	attr->page_size_cap = PAGE;
	attr->vendor_id = 0;
	attr->max_qp = sc->info.max_qp;
	attr->max_qp_wr = sc->info.max_sq_depth;
	attr->device_cap_flags = 0;
	attr->max_sge = 4;
	attr->max_cq = sc->info.max_cq;
	attr->max_cqe = MRC_CQ_RING_BYTES / 64;
	attr->max_mr = sc->info.max_mr;
	attr->max_pd = 1023;
	attr->phys_port_cnt = sc->info.nports;
	return 0;
}

static int port_ok(struct soft_ctx *sc, uint8_t port)
{
	return port >= 1 && port <= sc->info.nports;
}

/* The largest IB MTU that fits payload bytes (IBV_MTU_256 at least). */
static enum ibv_mtu ib_mtu(uint32_t payload)
{
	enum ibv_mtu m = IBV_MTU_4096;

	while (m > IBV_MTU_256 && (128u << m) > payload)
		m--;
	return m;
}

/*
 * The smallest IB MTU that covers payload bytes: the largest path MTU
 * that changes anything (a QP's path MTU is cut to what the ports carry).
 */
static enum ibv_mtu ib_mtu_cover(uint32_t payload)
{
	enum ibv_mtu m = IBV_MTU_256;

	while (m < IBV_MTU_4096 && (128u << m) < payload)
		m++;
	return m;
}

int ibv_query_port(struct ibv_context *context, uint8_t port_num,
		   struct _compat_ibv_port_attr *port_attr)
{
	struct soft_ctx *sc = (struct soft_ctx *)context;
	struct ibv_port_attr *a = (struct ibv_port_attr *)port_attr;
	uint32_t mtu;

	if (!soft_is_ours(context))
		BIND_FORWARD(ibv_query_port, ENODEV, context, port_num,
			     port_attr);
	if (!port_ok(sc, port_num))
		return fail_errno(EINVAL);
	{
		/* Ask anew: carrier, admin state and MTU change at run time. */
		struct mrcd_req req = { .op = MRCD_HELLO };
		struct mrcd_rep *rep = malloc(sizeof(*rep));

		if (rep && !soft_call(sc, &req, rep, NULL, 0)) {
			sc->info.port_up[port_num - 1] =
				rep->hello.port_up[port_num - 1];
			sc->info.port_mtu[port_num - 1] =
				rep->hello.port_mtu[port_num - 1];
		}
		free(rep);
	}
	/* The compat layout is the head of struct ibv_port_attr. */
	memset(a, 0, sizeof(*a));
	mtu = sc->info.port_mtu[port_num - 1];
	a->state = sc->info.port_up[port_num - 1] ? IBV_PORT_ACTIVE :
						    IBV_PORT_DOWN;
	a->max_mtu = ib_mtu_cover(sc->info.max_mtu);
	/* This port's IP MTU less the headers of the largest data packet. */
	a->active_mtu = ib_mtu(mtu < MRC_DATA_OVERHEAD_V6 ?
				       0 :
			       mtu - MRC_DATA_OVERHEAD_V6 < sc->info.max_mtu ?
				       mtu - MRC_DATA_OVERHEAD_V6 :
				       sc->info.max_mtu);
	a->gid_tbl_len = GID_TBL_LEN;
	a->max_msg_sz = 1u << 31;
	a->pkey_tbl_len = 1;
	a->lid = 0;
	a->phys_state = a->state == IBV_PORT_ACTIVE ? 5 : 3;
	a->link_layer = IBV_LINK_LAYER_ETHERNET;
	a->active_width = 1;
	a->active_speed = 1;
	return 0;
}

int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index,
		  union ibv_gid *gid)
{
	int err;

	if (!soft_is_ours(context))
		BIND_FORWARD(ibv_query_gid, -1, context, port_num, index, gid);
	err = gid_query(context, port_num, index, gid);
	return err ? fail_errno(-err) : 0;
}

int ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index,
		   __be16 *pkey)
{
	struct soft_ctx *sc = (struct soft_ctx *)context;

	if (!soft_is_ours(context))
		BIND_FORWARD(ibv_query_pkey, -1, context, port_num, index,
			     pkey);
	if (!port_ok(sc, port_num) || index)
		return fail_errno(EINVAL);
	*pkey = htobe16(0xffff);
	return 0;
}

struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	struct mrcd_req req = { .op = MRCD_PD_ALLOC };
	struct mrcd_rep rep;
	struct ibv_pd *pd;
	int err;

	if (!soft_is_ours(context))
		BIND_FORWARD(ibv_alloc_pd, NULL, context);
	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	err = soft_call((struct soft_ctx *)context, &req, &rep, NULL, 0);
	if (err) {
		free(pd);
		errno = err;
		return NULL;
	}
	pd->context = context;
	pd->handle = rep.obj.idx;
	return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	struct mrcd_req req = { .op = MRCD_PD_FREE, .obj.idx = pd->handle };
	struct mrcd_rep rep;
	int err;

	if (!soft_is_ours(pd->context))
		BIND_FORWARD(ibv_dealloc_pd, ENODEV, pd);
	err = soft_call((struct soft_ctx *)pd->context, &req, &rep, NULL, 0);
	if (err)
		return fail_errno(err);
	free(pd);
	return 0;
}

struct soft_mr *soft_mr_by_key(struct soft_ctx *sc, uint32_t lkey)
{
	struct soft_mr *mr = sc->mr[lkey & MRC_RKEY_INDEX_MASK];

	return mr && mr->ibv.lkey == lkey ? mr : NULL;
}

/* Does [base, base + span) share a page with a region of this context? */
static int overlaps(struct soft_ctx *sc, const uint8_t *base, uint64_t span)
{
	int i;

	for (i = 0; i < MRC_MAX_MR; i++) {
		struct soft_mr *o = sc->mr[i];

		if (o && base < o->base + o->span && o->base < base + span)
			return 1;
	}
	return 0;
}

/* Gives the application private memory back with the same contents. */
static void lift_off(struct soft_mr *mr)
{
	uint8_t *copy = mmap(NULL, mr->span, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (copy == MAP_FAILED)
		return; /* leave the device memory in place: still valid */
	memcpy(copy, mr->base, mr->span);
	if (mmap(mr->base, mr->span, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED)
		memcpy(mr->base, copy, mr->span);
	munmap(copy, mr->span);
}

/*
 * Lays the region's map over [mr->base, mr->base + mr->span): chunk i of
 * the map (at i * MRC_MR_ELEM in the fd) at base + i * MRC_MR_CHUNK.
 */
static int lay_over(struct soft_mr *mr, int fd, uint64_t map_len)
{
	uint8_t *tmp;
	uint64_t off;

	tmp = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (tmp == MAP_FAILED)
		return errno;
	for (off = 0; off < mr->span; off += MRC_MR_CHUNK) {
		uint64_t n = mr->span - off < MRC_MR_CHUNK ? mr->span - off :
							     MRC_MR_CHUNK;

		memcpy(tmp + off / MRC_MR_CHUNK * MRC_MR_ELEM, mr->base + off,
		       n);
	}
	for (off = 0; off < mr->span; off += MRC_MR_CHUNK) {
		uint64_t n = mr->span - off < MRC_MR_CHUNK ? mr->span - off :
							     MRC_MR_CHUNK;

		if (mmap(mr->base + off, n, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, fd,
			 off / MRC_MR_CHUNK * MRC_MR_ELEM) == MAP_FAILED) {
			struct soft_mr part = { .base = mr->base, .span = off };
			int err = errno;

			/* What was laid over already becomes private again. */
			if (off)
				lift_off(&part);
			munmap(tmp, map_len);
			return err;
		}
	}
	munmap(tmp, map_len);
	return 0;
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length,
				uint64_t iova, unsigned int access)
{
	struct soft_ctx *sc = (struct soft_ctx *)pd->context;
	struct mrcd_req req = { .op = MRCD_MR_REG };
	struct mrcd_rep rep;
	struct soft_mr *mr;
	int fd, err;

	if (!soft_is_ours(pd->context))
		BIND_FORWARD(ibv_reg_mr_iova2, NULL, pd, addr, length, iova,
			     access);
	if (!addr || !length || iova != (uintptr_t)addr ||
	    (access &
	     ~(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
	       IBV_ACCESS_REMOTE_READ | IBV_ACCESS_RELAXED_ORDERING))) {
		errno = EINVAL;
		return NULL;
	}
	mr = calloc(1, sizeof(*mr));
	if (!mr) {
		errno = ENOMEM;
		return NULL;
	}
	mr->head = (uintptr_t)addr % PAGE;
	mr->base = (uint8_t *)addr - mr->head;
	mr->span = (mr->head + length + PAGE - 1) / PAGE * PAGE;
	pthread_mutex_lock(&sc->mr_lock);
	if (overlaps(sc, mr->base, mr->span)) {
		err = EEXIST; /* two regions cannot share a page */
		goto out;
	}
	req.mr.pd = pd->handle;
	req.mr.access = access;
	req.mr.len = length;
	req.mr.va = (uintptr_t)addr;
	req.mr.head = mr->head;
	err = soft_call(sc, &req, &rep, &fd, 1);
	if (err)
		goto out;
	mr->idx = rep.mr.idx;
	err = fd < 0 ? EPROTO : lay_over(mr, fd, rep.mr.map_len);
	if (fd >= 0)
		close(fd);
	if (err) {
		struct mrcd_req dereg = { .op = MRCD_MR_DEREG,
					  .obj.idx = mr->idx };

		soft_call(sc, &dereg, &rep, NULL, 0);
		goto out;
	}
	mr->ibv.context = pd->context;
	mr->ibv.pd = pd;
	mr->ibv.addr = addr;
	mr->ibv.length = length;
	mr->ibv.handle = mr->idx;
	mr->ibv.lkey = mr->ibv.rkey = rep.mr.key;
	mr->access = access;
	sc->mr[mr->idx] = mr;
out:
	pthread_mutex_unlock(&sc->mr_lock);
	if (err) {
		free(mr);
		errno = err;
		return NULL;
	}
	return &mr->ibv;
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
			  int access)
{
	if (!soft_is_ours(pd->context))
		BIND_FORWARD(ibv_reg_mr, NULL, pd, addr, length, access);
	return ibv_reg_mr_iova2(pd, addr, length, (uintptr_t)addr, access);
}

struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length,
			       uint64_t iova, int access)
{
	if (!soft_is_ours(pd->context))
		BIND_FORWARD(ibv_reg_mr_iova, NULL, pd, addr, length, iova,
			     access);
	return ibv_reg_mr_iova2(pd, addr, length, iova, access);
}

int ibv_dereg_mr(struct ibv_mr *ibv)
{
	struct soft_mr *mr = (struct soft_mr *)ibv;
	struct soft_ctx *sc = (struct soft_ctx *)ibv->context;
	struct mrcd_req req = { .op = MRCD_MR_DEREG, .obj.idx = mr->idx };
	struct mrcd_rep rep;
	int err;

	if (!soft_is_ours(ibv->context))
		BIND_FORWARD(ibv_dereg_mr, ENODEV, ibv);
	pthread_mutex_lock(&sc->mr_lock);
	err = soft_call(sc, &req, &rep, NULL, 0);
	if (!err) {
		lift_off(mr);
		sc->mr[mr->idx] = NULL;
	}
	pthread_mutex_unlock(&sc->mr_lock);
	if (err)
		return fail_errno(err);
	free(mr);
	return 0;
}
