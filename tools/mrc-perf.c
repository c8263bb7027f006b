// SPDX-License-Identifier: GPL-2.0
/*
 * mrc-perf: goodput, message rate and latency of an MRC device, measured
 * through the public API only (<mrc.h> and the verbs calls the soft device
 * answers), so the same program measures any MRC NIC.
 *
 * Two processes. "mrc-perf server" waits for one client; "mrc-perf client
 * HOST" connects to it over TCP (the side channel) and sends the test
 * parameters, so the server needs no options. Both sides then exchange what
 * their QPs need to connect (QP number, GID, PSN, rkey, address, length).
 * Each row of the report (one message size, or one transport) runs as:
 *
 *   client            server
 *   START  ------->   snapshot CPU time, get ready
 *          <-------   GO
 *   writes ------->   (bw: nothing, data lands; rate/lat: poll the CQ)
 *   DONE   ------->   wait for the last receive completions, verify
 *          <-------   RESULT (receive counts, bad bytes, CPU time)
 *
 * and the client says BYE at the end. Every wait has a deadline, so neither
 * side can hang on a dead peer, and SIGINT/SIGTERM end both cleanly.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <mrc.h>

#include "perf_timeline.h"

#define PERF_PORT_DEFAULT "18515"
#define PERF_MAGIC 0x4d524350u /* "MRCP" */
#define PERF_PROTO_VERSION 1
#define PERF_MAX_QPS 1024u
#define PERF_MAX_DEPTH 128u
#define PERF_MAX_SGE 4u
#define PERF_MAX_SIZE_BYTES (1ull << 30)
/* Both sides' regions together stay below this, whatever the depth. */
#define PERF_REGION_CAP_BYTES (32ull << 20)
/* CQ entries we ask for at most; the device may allow fewer. */
#define PERF_CQ_MAX 16384u
#define PERF_POST_BATCH 16u
#define PERF_POLL_BATCH 64
#define PERF_IDLE_POLLS 16u /* empty polls before idling */
#define PERF_IDLE_US_DEFAULT 20u
#define PERF_WARMUP_ITERS 100u
#define PERF_LAT_ITERS_DEFAULT 10000u
#define PERF_SECONDS_DEFAULT 5.0
#define PERF_LAT_LIMIT_S 60.0
#define PERF_IO_TIMEOUT_MS 30000
/* After a failed run the peer may be gone altogether, side channel too. */
#define PERF_ABORT_RESULT_MS 3000
#define PERF_DRAIN_TIMEOUT_MS 10000
#define PERF_RECV_GRACE_MS 5000
#define PERF_IDLE_TIMEOUT_MS 120000
#define NSEC_PER_SEC 1000000000ull

enum perf_test { TEST_BW, TEST_RATE, TEST_LAT };

enum perf_transport {
	XPORT_MRC = 1 << 0,
	XPORT_TCP = 1 << 1,
};

static const char *const test_names[] = { "bw", "rate", "lat" };

struct perf_opts {
	bool server;
	/* the EV and CC profiles this side's QPs name (its controller's) */
	unsigned int ev_profile, cc_profile;
	const char *host; /* client: the server; server: listen address */
	const char *port;
	enum perf_test test;
	unsigned int transport; /* enum perf_transport bits */
	uint64_t size_bytes;
	bool size_set;
	bool idle_set;
	uint64_t sweep_min_bytes, sweep_max_bytes;
	bool sweep;
	unsigned int depth;
	double seconds;
	bool seconds_set;
	uint64_t iters;
	unsigned int qps;
	bool verify, imm, json;
	unsigned int mpr; /* 0: the device's largest */
	unsigned int timeout; /* 1.024 us x 2^timeout */
	unsigned int retry_linear, retry_exp;
	unsigned int mtu_bytes; /* 0: the port's active MTU */
	unsigned int sge;
	unsigned int idle_us; /* 0: spin on empty CQs */
	double wait_s;
	const char *timeline; /* --timeline CSV file */
	const char *at[TL_MAX_AT]; /* --at MS:CMD */
	int nat;
};

/* Signals received: the first ends the run, a second every wait. */
static volatile sig_atomic_t g_stop;
/* Side-channel waits go on until g_stop exceeds this. */
static sig_atomic_t g_stop_waits_at = 1;

static void on_signal(int sig)
{
	(void)sig;
	if (g_stop < 2)
		g_stop++;
}

/* --- small helpers ---------------------------------------------------------- */

static void pr_err(const char *fmt, ...)
{
	va_list ap;

	fputs("mrc-perf: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* User plus system CPU time of this process. */
static uint64_t cpu_ns(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) *
		       NSEC_PER_SEC +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000;
}

/* VmRSS of this process, or 0 when /proc says nothing. */
static uint64_t rss_bytes(void)
{
	unsigned long long kib = 0;
	char line[256];
	FILE *f;

	f = fopen("/proc/self/status", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %llu kB", &kib) == 1)
			break;
	fclose(f);
	return kib * 1024;
}

static uint32_t random_psn(void)
{
	uint32_t v = 0;

	if (getrandom(&v, sizeof(v), 0) != sizeof(v))
		v = (uint32_t)now_ns() ^ (uint32_t)getpid();
	return v & 0xffffff;
}

static double ns_to_s(uint64_t ns)
{
	return (double)ns / 1e9;
}

/*
 * Completion status names, our own short wording for each enum
 * ibv_wc_status value, so no verbs library is needed to print them.
 */
static const char *wc_status_name(unsigned int status)
{
	static const char *const names[] = {
		[IBV_WC_SUCCESS] = "success",
		[IBV_WC_LOC_LEN_ERR] = "local length error",
		[IBV_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[IBV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
		[IBV_WC_LOC_PROT_ERR] = "local protection error",
		[IBV_WC_WR_FLUSH_ERR] = "flushed: QP in error state",
		[IBV_WC_MW_BIND_ERR] = "memory window bind error",
		[IBV_WC_BAD_RESP_ERR] = "bad response",
		[IBV_WC_LOC_ACCESS_ERR] = "local access error",
		[IBV_WC_REM_INV_REQ_ERR] = "remote: invalid request",
		[IBV_WC_REM_ACCESS_ERR] = "remote access error (rkey/bounds)",
		[IBV_WC_REM_OP_ERR] = "remote operation error",
		[IBV_WC_RETRY_EXC_ERR] = "retries exhausted (peer unreachable)",
		[IBV_WC_RNR_RETRY_EXC_ERR] =
			"receiver-not-ready retries exhausted",
		[IBV_WC_LOC_RDD_VIOL_ERR] = "local RDD violation",
		[IBV_WC_REM_INV_RD_REQ_ERR] = "remote: invalid read request",
		[IBV_WC_REM_ABORT_ERR] = "remote aborted",
		[IBV_WC_INV_EECN_ERR] = "invalid EE context number",
		[IBV_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
		[IBV_WC_FATAL_ERR] = "fatal error",
		[IBV_WC_RESP_TIMEOUT_ERR] = "response timeout",
		[IBV_WC_GENERAL_ERR] = "general error",
	};

	if (status < sizeof(names) / sizeof(names[0]) && names[status])
		return names[status];
	return "unknown status";
}

static const char *qp_state_name(int state)
{
	static const char *const names[] = {
		[IBV_QPS_RESET] = "RESET", [IBV_QPS_INIT] = "INIT",
		[IBV_QPS_RTR] = "RTR",	   [IBV_QPS_RTS] = "RTS",
		[IBV_QPS_SQD] = "SQD",	   [IBV_QPS_SQE] = "SQE",
		[IBV_QPS_ERR] = "ERR",
	};

	if (state >= 0 && (size_t)state < sizeof(names) / sizeof(names[0]) &&
	    names[state])
		return names[state];
	return "unknown";
}

/* --- the data pattern --------------------------------------------------------- */

/*
 * With --verify every byte the client writes is a function of its offset in
 * the server's region and of the pass (one per row), so the server can check
 * its whole region at the end without knowing which WRITE carried what.
 */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t pattern_word(uint64_t word_idx, uint64_t pass)
{
	return htole64(mix64(word_idx ^ (pass << 48)));
}

static void pattern_fill(uint8_t *buf, uint64_t off, uint64_t len,
			 uint64_t pass)
{
	uint64_t o, end = off + len;

	for (o = off; o < end;) {
		uint64_t w = pattern_word(o >> 3, pass);
		unsigned int b = o & 7, n = 8 - b;

		if (n > end - o)
			n = end - o;
		memcpy(buf + o, (uint8_t *)&w + b, n);
		o += n;
	}
}

static uint64_t pattern_bad_bytes(const uint8_t *buf, uint64_t off,
				  uint64_t len, uint64_t pass)
{
	uint64_t o, end = off + len, bad = 0;

	for (o = off; o < end;) {
		uint64_t w = pattern_word(o >> 3, pass);
		unsigned int b = o & 7, n = 8 - b, i;

		if (n > end - o)
			n = end - o;
		if (memcmp(buf + o, (uint8_t *)&w + b, n))
			for (i = 0; i < n; i++)
				bad += buf[o + i] != ((uint8_t *)&w)[b + i];
		o += n;
	}
	return bad;
}

/* --- the side channel ------------------------------------------------------- */

enum sc_type {
	SC_HELLO = 1, /* client -> server: struct sc_params */
	SC_QPS, /* both ways: struct sc_qp per QP */
	SC_READY, /* server -> client: struct sc_ready */
	SC_START, /* client -> server: struct sc_start */
	SC_GO, /* server -> client: nothing */
	SC_DONE, /* client -> server: struct sc_done */
	SC_RESULT, /* server -> client: struct sc_result */
	SC_BYE, /* client -> server: nothing */
	SC_ABORT, /* either way: nothing; the sender gives up */
};

/*
 * Messages are structs of uint64_t only, big-endian on the wire. Raw bytes
 * (the GID) ride in such words too: swapped on send, swapped back on
 * receive.
 */
struct sc_params {
	uint64_t magic, version;
	uint64_t test, transport;
	uint64_t qps, depth, rq_depth, sge;
	uint64_t slice_bytes; /* per QP, on both sides */
	uint64_t verify, imm;
	uint64_t mpr, timeout, retry_linear, retry_exp;
	uint64_t mtu_bytes;
	uint64_t limit_ms; /* time limit of one row */
	uint64_t idle_us; /* sleep after empty polls; 0: spin */
};

struct sc_qp {
	uint64_t qpn, psn, rkey;
	uint64_t addr, len_bytes; /* this QP's slice of the region */
	uint64_t rq_depth; /* receive WRs kept posted */
	uint64_t mtu_bytes;
	uint64_t gid[2];
};

struct sc_ready {
	uint64_t mem_per_qp_bytes;
};

struct sc_start {
	uint64_t size_bytes, slots, pass;
	uint64_t transport, iters;
};

struct sc_done {
	uint64_t msgs; /* WRs the client saw complete */
	uint64_t aborted;
};

struct sc_result {
	uint64_t recv_msgs, recv_errors, recv_first_status;
	uint64_t send_errors, send_first_status;
	uint64_t bad_bytes, checked_bytes;
	uint64_t cpu_ns, elapsed_ns; /* from GO to the last completion */
	uint64_t stopped; /* the server hit its time limit */
	uint64_t rq_underflows;
};

struct sc_hdr {
	uint32_t type, len;
};

static int poll_fd(int fd, short events, uint64_t deadline_ns)
{
	struct pollfd p = { .fd = fd, .events = events };

	for (;;) {
		uint64_t now = now_ns();
		int ms, n;

		if (g_stop >= g_stop_waits_at)
			return -EINTR;
		if (now >= deadline_ns)
			return -ETIMEDOUT;
		ms = (int)((deadline_ns - now + 999999) / 1000000);
		n = poll(&p, 1, ms > 100 ? 100 : ms);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

static int write_full(int fd, const void *buf, size_t len, uint64_t deadline)
{
	const uint8_t *p = buf;
	int err;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			err = poll_fd(fd, POLLOUT, deadline);
			if (err)
				return err;
			continue;
		}
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Reads len bytes; waits in poll(), or with spin, by retrying recv() (the
 * TCP side of a spinning ping-pong, like a busy-polling RDMA application).
 */
static int read_full_mode(int fd, void *buf, size_t len, uint64_t deadline,
			  bool spin)
{
	unsigned int spins = 0;
	uint8_t *p = buf;
	int err;

	while (len) {
		ssize_t n = recv(fd, p, len, MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			if (spin && (++spins & 1023)) {
				continue;
			} else if (spin) {
				if (g_stop >= g_stop_waits_at)
					return -EINTR;
				if (now_ns() >= deadline)
					return -ETIMEDOUT;
				continue;
			}
			err = poll_fd(fd, POLLIN, deadline);
			if (err)
				return err;
			continue;
		}
		if (n < 0)
			return -errno;
		if (n == 0)
			return -ECONNRESET;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int read_full(int fd, void *buf, size_t len, uint64_t deadline)
{
	return read_full_mode(fd, buf, len, deadline, false);
}

static void words_swap(uint64_t *w, size_t n, bool to_wire)
{
	size_t i;

	for (i = 0; i < n; i++)
		w[i] = to_wire ? htobe64(w[i]) : be64toh(w[i]);
}

static int sc_send(int fd, enum sc_type type, const void *msg, size_t len)
{
	uint64_t deadline = now_ns() + PERF_IO_TIMEOUT_MS * 1000000ull;
	struct sc_hdr h = { htobe32(type), htobe32((uint32_t)len) };
	uint64_t *w = NULL;
	int err;

	if (len) {
		w = malloc(len);
		if (!w)
			return -ENOMEM;
		memcpy(w, msg, len);
		words_swap(w, len / 8, true);
	}
	err = write_full(fd, &h, sizeof(h), deadline);
	if (!err && len)
		err = write_full(fd, w, len, deadline);
	free(w);
	return err;
}

/*
 * Receives one message of any type; *len is the room in msg on entry and
 * the size received on return. An ABORT from the peer is -ECONNABORTED.
 */
static int sc_recv_any(int fd, enum sc_type *type, void *msg, size_t *len,
		       uint64_t timeout_ms)
{
	uint64_t deadline = now_ns() + timeout_ms * 1000000ull;
	struct sc_hdr h;
	int err;

	err = read_full(fd, &h, sizeof(h), deadline);
	if (err)
		return err;
	h.type = be32toh(h.type);
	h.len = be32toh(h.len);
	if (h.len > *len || h.len % 8)
		return -EPROTO;
	err = read_full(fd, msg, h.len, deadline);
	if (err)
		return err;
	words_swap(msg, h.len / 8, false);
	*type = (enum sc_type)h.type;
	*len = h.len;
	return h.type == SC_ABORT ? -ECONNABORTED : 0;
}

/* Receives exactly one message of the given type and size. */
static int sc_recv(int fd, enum sc_type type, void *msg, size_t len,
		   uint64_t timeout_ms)
{
	enum sc_type got;
	size_t n = len;
	int err;

	err = sc_recv_any(fd, &got, msg, &n, timeout_ms);
	if (err)
		return err;
	return got == type && n == len ? 0 : -EPROTO;
}

/* True when the peer has sent something (or closed), without blocking. */
static bool sc_pending(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

static void sock_nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static int sock_listen(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE };
	struct addrinfo *res, *ai;
	int fd = -1, one = 1, zero = 0, err;

	hints.ai_family = host ? AF_UNSPEC : AF_INET6;
	err = getaddrinfo(host, port, &hints, &res);
	if (err) {
		pr_err("cannot resolve listen address %s port %s: %s",
		       host ? host : "::", port, gai_strerror(err));
		return -EINVAL;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (ai->ai_family == AF_INET6)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero,
				   sizeof(zero));
		if (!bind(fd, ai->ai_addr, ai->ai_addrlen) && !listen(fd, 1))
			break;
		err = -errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		pr_err("cannot listen on port %s: %s", port,
		       strerror(err ? -err : EADDRNOTAVAIL));
	return fd;
}

static int sock_accept(int lfd, uint64_t timeout_ms)
{
	int err, fd;

	err = poll_fd(lfd, POLLIN, now_ns() + timeout_ms * 1000000ull);
	if (err)
		return err;
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return -errno;
	sock_nodelay(fd);
	return fd;
}

/* One non-blocking connect attempt to one address, bounded by deadline. */
static int sock_connect_one(const struct addrinfo *ai, uint64_t deadline)
{
	socklen_t sl = sizeof(int);
	int fd, err, soerr = 0;

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS) {
		err = -errno;
		goto close_fd;
	}
	err = poll_fd(fd, POLLOUT, deadline);
	if (err)
		goto close_fd;
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
	if (soerr) {
		err = -soerr;
		goto close_fd;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	sock_nodelay(fd);
	return fd;
close_fd:
	close(fd);
	return err;
}

/* Connects to the server, retrying while it is not listening yet. */
static int sock_connect(const char *host, const char *port, double wait_s)
{
	uint64_t deadline = now_ns() + (uint64_t)(wait_s * 1e9);
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	struct addrinfo *res, *ai;
	int fd = -ETIMEDOUT, err;

	err = getaddrinfo(host, port, &hints, &res);
	if (err) {
		pr_err("cannot resolve %s: %s", host, gai_strerror(err));
		return -EINVAL;
	}
	while (!g_stop && now_ns() < deadline) {
		for (ai = res; ai; ai = ai->ai_next) {
			fd = sock_connect_one(ai, deadline);
			if (fd >= 0)
				goto out;
		}
		usleep(100000);
	}
out:
	freeaddrinfo(res);
	if (fd < 0)
		pr_err("cannot connect to %s port %s: %s", host, port,
		       strerror(-fd));
	return fd;
}

/* --- the device --------------------------------------------------------------- */

struct perf_qp {
	struct mrc_qp *qp;
	uint32_t qpn, psn;
	uint64_t slice_off; /* of this QP's slice, in both regions */
	struct sc_qp peer;
	/* send side: WR counts since the row started */
	uint64_t posted, completed, signaled, ok, target;
	unsigned int window, sig_every;
	/* receive side */
	uint64_t recv_msgs;
	unsigned int rq_refill; /* receive WRs consumed, not yet reposted */
};

struct perf_dev {
	struct ibv_device **list;
	struct ibv_context *vctx;
	struct ibv_pd *pd;
	struct mrc_context *mctx;
	struct mrc_cq *scq, *rcq;
	uint8_t *buf;
	size_t buf_bytes;
	struct ibv_mr *mr;
	union ibv_gid gid;
	unsigned int port_mtu_bytes;
	unsigned int path_mtu_bytes; /* the QPs' path MTU, as set */
	struct tl *tl; /* --timeline / --at: the failover timeline */
	uint64_t wr_bytes; /* bytes per WR of the running row */
	struct mrc_device_attr attr;
	struct perf_qp *qps;
	unsigned int nqps, depth, rq_depth, sge;
	unsigned int idle_us, max_cqe;
	unsigned int ev_profile, cc_profile; /* named at INIT */
	uint64_t slice_bytes;
	uint64_t mem_per_qp_bytes;
	/* errors seen in completions */
	uint64_t send_errors, recv_errors;
	unsigned int send_first_status, recv_first_status;
	uint64_t rq_underflows; /* WRITE_IMMs that found no receive WR */
	/* the first send error: how long after the last good completion, and
	 * the state its QP was in right after (ibv_query_qp) */
	uint64_t send_last_ok_ns, send_first_error_ns;
	int send_first_error_qp_state;
};

static unsigned int mtu_enum_to_bytes(enum ibv_mtu mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128u << mtu : 0;
}

static enum ibv_mtu mtu_bytes_to_enum(unsigned int bytes)
{
	enum ibv_mtu m;

	for (m = IBV_MTU_256; m < IBV_MTU_4096; m++)
		if (bytes <= mtu_enum_to_bytes(m))
			return m;
	return IBV_MTU_4096;
}

static int dev_find(struct perf_dev *d)
{
	int i, n = 0;

	d->list = ibv_get_device_list(&n);
	if (!d->list || n <= 0) {
		pr_err("no MRC device (is mrcd running?)");
		return -ENODEV;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(d->list[i]), "mrc0"))
			break;
	if (i == n)
		i = 0;
	d->vctx = ibv_open_device(d->list[i]);
	if (!d->vctx) {
		pr_err("cannot open device %s: %s",
		       ibv_get_device_name(d->list[i]), strerror(errno));
		return -errno;
	}
	return 0;
}

static int dev_query(struct perf_dev *d)
{
	struct ibv_port_attr pattr;
	struct ibv_device_attr dattr;
	int supported = 0, err;

	err = mrc_query_device(d->vctx, &d->attr, &supported);
	if (err || !supported) {
		pr_err("the device is no MRC device%s%s", err ? ": " : "",
		       err ? strerror(err) : "");
		return -ENODEV;
	}
	err = ibv_query_device(d->vctx, &dattr);
	if (err) {
		pr_err("cannot query the device: %s", strerror(err));
		return -err;
	}
	if (dattr.max_qp > 0 && d->nqps > (unsigned int)dattr.max_qp) {
		pr_err("%u QPs asked, the device allows %d", d->nqps,
		       dattr.max_qp);
		return -EINVAL;
	}
	d->max_cqe = dattr.max_cqe > 0 &&
				     (unsigned int)dattr.max_cqe < PERF_CQ_MAX ?
			     (unsigned int)dattr.max_cqe :
			     PERF_CQ_MAX;
	err = ibv_query_port(d->vctx, 1, &pattr);
	if (err) {
		pr_err("cannot query port 1: %s", strerror(err));
		return -err;
	}
	d->port_mtu_bytes = mtu_enum_to_bytes(pattr.active_mtu);
	err = ibv_query_gid(d->vctx, 1, 0, &d->gid);
	if (err) {
		pr_err("cannot query the GID of port 1: %s", strerror(err));
		return -err;
	}
	return 0;
}

static int dev_region(struct perf_dev *d, size_t bytes)
{
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
	long page = sysconf(_SC_PAGESIZE);

	d->buf_bytes = (bytes + (size_t)page - 1) & ~((size_t)page - 1);
	d->buf = mmap(NULL, d->buf_bytes, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (d->buf == MAP_FAILED) {
		d->buf = NULL;
		pr_err("cannot allocate %zu bytes: %s", d->buf_bytes,
		       strerror(errno));
		return -ENOMEM;
	}
	d->mr = ibv_reg_mr(d->pd, d->buf, d->buf_bytes, access);
	if (!d->mr) {
		pr_err("cannot register %zu bytes: %s", d->buf_bytes,
		       strerror(errno));
		return -errno;
	}
	return 0;
}

static int dev_cqs(struct perf_dev *d)
{
	unsigned int sends = d->nqps * d->depth, recvs = d->nqps * d->rq_depth;

	if (sends > d->max_cqe)
		sends = d->max_cqe;
	if (recvs > d->max_cqe) {
		pr_err("%u QPs x %u receive WRs do not fit a CQ of %u", d->nqps,
		       d->rq_depth, d->max_cqe);
		return -EINVAL;
	}
	d->scq = mrc_create_cq(d->mctx, (int)sends, NULL, NULL, 0);
	if (!d->scq) {
		pr_err("cannot create the send CQ: %s", strerror(errno));
		return -errno;
	}
	d->rcq = mrc_create_cq(d->mctx, (int)recvs, NULL, NULL, 0);
	if (!d->rcq) {
		pr_err("cannot create the receive CQ: %s", strerror(errno));
		return -errno;
	}
	return 0;
}

/* Opens the device and everything the QPs share; dev_close undoes it. */
static int dev_open(struct perf_dev *d)
{
	int err;

	err = dev_find(d);
	if (err)
		return err;
	err = dev_query(d);
	if (err)
		return err;
	d->pd = ibv_alloc_pd(d->vctx);
	if (!d->pd) {
		pr_err("cannot allocate a PD: %s", strerror(errno));
		return -errno;
	}
	d->mctx = mrc_create_context(d->vctx, NULL);
	if (!d->mctx) {
		pr_err("cannot create the MRC context: %s", strerror(errno));
		return -errno;
	}
	err = dev_region(d, d->nqps * d->slice_bytes);
	if (err)
		return err;
	return dev_cqs(d);
}

static void dev_close(struct perf_dev *d)
{
	unsigned int i;

	for (i = 0; d->qps && i < d->nqps; i++)
		if (d->qps[i].qp && mrc_destroy_qp(d->qps[i].qp))
			pr_err("cannot destroy QP %u", d->qps[i].qpn);
	free(d->qps);
	if (d->rcq)
		mrc_destroy_cq(d->rcq);
	if (d->scq)
		mrc_destroy_cq(d->scq);
	if (d->mr)
		ibv_dereg_mr(d->mr);
	if (d->buf)
		munmap(d->buf, d->buf_bytes);
	if (d->mctx)
		mrc_destroy_context(d->mctx);
	if (d->pd)
		ibv_dealloc_pd(d->pd);
	if (d->vctx)
		ibv_close_device(d->vctx);
	if (d->list)
		ibv_free_device_list(d->list);
	memset(d, 0, sizeof(*d));
}

static int qp_post_recvs(struct perf_dev *d, struct perf_qp *q, unsigned int n)
{
	struct ibv_recv_wr wr[PERF_POST_BATCH], *bad;
	unsigned int i, k;
	int err;

	while (n) {
		k = n < PERF_POST_BATCH ? n : PERF_POST_BATCH;
		for (i = 0; i < k; i++) {
			wr[i] = (struct ibv_recv_wr){
				/* 0 is what a receive without a WR gets */
				.wr_id = (uint64_t)(q - d->qps) + 1,
				.next = i + 1 < k ? &wr[i + 1] : NULL,
			};
		}
		err = mrc_post_recv(q->qp, wr, &bad);
		if (err) {
			pr_err("cannot post receive WRs on QP %u: %s", q->qpn,
			       strerror(err));
			return -err;
		}
		n -= k;
	}
	return 0;
}

static int qp_create(struct perf_dev *d, struct perf_qp *q)
{
	struct mrc_qp_init_attr ia = {
		.send_cq = d->scq,
		.recv_cq = d->rcq,
		.cap = { .max_send_wr = d->depth,
			 .max_recv_wr = d->rq_depth,
			 .max_send_sge = d->sge,
			 .max_recv_sge = 1 },
		.pd = d->pd,
	};
	struct ibv_qp_attr va = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE,
	};
	struct mrc_qp_attr ma = { .qp_hint = NULL };
	int err;

	ma.profile.ev_profile_id = d->ev_profile;
	ma.profile.cc_profile_id = d->cc_profile;
	q->qp = mrc_create_qp(d->mctx, &ia);
	if (!q->qp) {
		pr_err("cannot create QP %u of %u: %s",
		       (unsigned int)(q - d->qps) + 1, d->nqps,
		       strerror(errno));
		return -errno;
	}
	if (mrc_get_qpn(q->qp, &q->qpn)) {
		pr_err("cannot read a QP number: %s", strerror(errno));
		return -errno;
	}
	q->psn = random_psn();
	err = mrc_modify_qp(
		q->qp, &va,
		IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS, &ma,
		MRC_EV_PROFILE_ID | MRC_CC_PROFILE_ID | MRC_QP_HINT);
	if (err) {
		pr_err("QP %u: RESET -> INIT failed: %s", q->qpn,
		       strerror(err));
		return -err;
	}
	return qp_post_recvs(d, q, d->rq_depth);
}

static int qp_connect(struct perf_dev *d, struct perf_qp *q,
		      const struct sc_params *p)
{
	unsigned int mtu = p->mtu_bytes ? (unsigned int)p->mtu_bytes :
					  d->port_mtu_bytes;
	struct ibv_qp_attr va = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = mtu_bytes_to_enum(mtu),
		.dest_qp_num = (uint32_t)q->peer.qpn,
		.rq_psn = (uint32_t)q->peer.psn,
		.ah_attr = { .is_global = 1, .port_num = 1 },
	};
	struct mrc_qp_attr ma = {
		.mpr = { .mpr = (uint8_t)p->mpr,
			 .mpr_dest = (uint8_t)p->mpr,
			 .dynamic_mpr_dest = 0 },
		.wimm = { .max_wimm = (uint16_t)q->peer.rq_depth,
			  .max_wimm_dest = (uint16_t)d->rq_depth },
		.timeout = (uint8_t)p->timeout,
		.retry = { .linear_cnt = (uint8_t)p->retry_linear,
			   .exp_cnt = (uint8_t)p->retry_exp },
	};
	int err;

	if (q->peer.mtu_bytes && q->peer.mtu_bytes < mtu)
		va.path_mtu =
			mtu_bytes_to_enum((unsigned int)q->peer.mtu_bytes);
	d->path_mtu_bytes = mtu_enum_to_bytes(va.path_mtu);
	va.ah_attr.grh.hop_limit = 64;
	memcpy(va.ah_attr.grh.dgid.raw, q->peer.gid, 16);
	err = mrc_modify_qp(q->qp, &va,
			    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN,
			    &ma,
			    MRC_QP_MAX_WIMM_DEST | MRC_QP_MPR_DEST |
				    MRC_QP_DYNAMIC_MPR_DEST);
	if (err) {
		pr_err("QP %u: INIT -> RTR failed: %s", q->qpn, strerror(err));
		return -err;
	}
	va.qp_state = IBV_QPS_RTS;
	va.sq_psn = q->psn;
	err = mrc_modify_qp(q->qp, &va, IBV_QP_STATE | IBV_QP_SQ_PSN, &ma,
			    MRC_QP_MAX_WIMM | MRC_QP_MPR | MRC_QP_TIMEOUT |
				    MRC_QP_RETRY_CNT);
	if (err) {
		pr_err("QP %u: RTR -> RTS failed: %s", q->qpn, strerror(err));
		return -err;
	}
	return 0;
}

static void qp_describe(const struct perf_dev *d, const struct perf_qp *q,
			struct sc_qp *out)
{
	*out = (struct sc_qp){
		.qpn = q->qpn,
		.psn = q->psn,
		.rkey = d->mr->rkey,
		.addr = (uintptr_t)d->mr->addr + q->slice_off,
		.len_bytes = d->slice_bytes,
		.rq_depth = d->rq_depth,
		.mtu_bytes = d->port_mtu_bytes,
	};
	memcpy(out->gid, d->gid.raw, 16);
}

/* Creates every QP and takes it to INIT, measuring the memory they cost. */
static int dev_create_qps(struct perf_dev *d)
{
	uint64_t rss0, rss1;
	unsigned int i;
	int err;

	d->qps = calloc(d->nqps, sizeof(*d->qps));
	if (!d->qps)
		return -ENOMEM;
	rss0 = rss_bytes();
	for (i = 0; i < d->nqps; i++) {
		d->qps[i].slice_off = i * d->slice_bytes;
		err = qp_create(d, &d->qps[i]);
		if (err)
			return err;
	}
	rss1 = rss_bytes();
	d->mem_per_qp_bytes = rss1 > rss0 ? (rss1 - rss0) / d->nqps : 0;
	return 0;
}

static int sc_send_qps(int fd, const struct perf_dev *d)
{
	struct sc_qp *v;
	unsigned int i;
	int err;

	v = calloc(d->nqps, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < d->nqps; i++)
		qp_describe(d, &d->qps[i], &v[i]);
	err = sc_send(fd, SC_QPS, v, d->nqps * sizeof(*v));
	free(v);
	return err;
}

static int sc_recv_qps(int fd, struct perf_dev *d)
{
	struct sc_qp *v;
	unsigned int i;
	int err;

	v = calloc(d->nqps, sizeof(*v));
	if (!v)
		return -ENOMEM;
	err = sc_recv(fd, SC_QPS, v, d->nqps * sizeof(*v), PERF_IO_TIMEOUT_MS);
	for (i = 0; !err && i < d->nqps; i++) {
		if (v[i].len_bytes < d->slice_bytes || v[i].qpn > 0xffffff)
			err = -EPROTO;
		d->qps[i].peer = v[i];
	}
	free(v);
	return err;
}

static int dev_connect_qps(struct perf_dev *d, const struct sc_params *p)
{
	unsigned int i;
	int err;

	for (i = 0; i < d->nqps; i++) {
		err = qp_connect(d, &d->qps[i], p);
		if (err)
			return err;
	}
	return 0;
}

/* --- posting and polling --------------------------------------------------- */

/* What one row writes: message size, slots per QP slice, pass, opcode. */
struct perf_row {
	uint64_t size_bytes, slots, pass;
	bool imm;
	bool time_mode; /* a tail WR must be signaled at the end */
};

static void row_reset_qps(struct perf_dev *d, unsigned int window)
{
	unsigned int i;

	for (i = 0; i < d->nqps; i++) {
		struct perf_qp *q = &d->qps[i];

		q->posted = q->completed = q->signaled = q->ok = 0;
		q->target = UINT64_MAX;
		q->recv_msgs = 0;
		q->window = window;
		/* A timeline times every WR's completion. */
		q->sig_every = d->tl ? 1 : window / 2 ? window / 2 : 1;
	}
}

static void wr_fill(const struct perf_dev *d, const struct perf_qp *q,
		    const struct perf_row *r, uint64_t idx, uint32_t imm,
		    struct ibv_send_wr *wr, struct ibv_sge *sge)
{
	uint64_t off = (idx % r->slots) * r->size_bytes;
	uint64_t part = r->size_bytes / d->sge, done = 0;
	unsigned int i;

	for (i = 0; i < d->sge; i++) {
		uint64_t len = i + 1 < d->sge ? part : r->size_bytes - done;

		sge[i] = (struct ibv_sge){
			.addr = (uintptr_t)d->buf + q->slice_off + off + done,
			.length = (uint32_t)len,
			.lkey = d->mr->lkey,
		};
		done += len;
	}
	*wr = (struct ibv_send_wr){
		.wr_id = idx << 10 | (uint64_t)(q - d->qps),
		.sg_list = sge,
		.num_sge = (int)d->sge,
		.opcode = r->imm ? IBV_WR_RDMA_WRITE_WITH_IMM :
				   IBV_WR_RDMA_WRITE,
		.imm_data = htobe32(imm),
	};
	wr->wr.rdma.remote_addr = q->peer.addr + off;
	wr->wr.rdma.rkey = (uint32_t)q->peer.rkey;
}

/*
 * Posts up to n WRITEs on q as one chain. A WR is signaled every
 * sig_every, at the QP's target, or when force_signal asks for the last
 * one to be (the tail of a time-limited run must complete visibly).
 */
static int qp_post_writes(struct perf_dev *d, struct perf_qp *q,
			  const struct perf_row *r, unsigned int n,
			  uint32_t imm, bool force_signal)
{
	struct ibv_sge sge[PERF_POST_BATCH][PERF_MAX_SGE];
	struct ibv_send_wr wr[PERF_POST_BATCH], *bad = NULL;
	unsigned int i;
	int err;

	if (n > PERF_POST_BATCH)
		n = PERF_POST_BATCH;
	for (i = 0; i < n; i++) {
		uint64_t idx = q->posted + i;

		wr_fill(d, q, r, idx, imm ? imm : (uint32_t)idx, &wr[i],
			sge[i]);
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		if ((idx + 1) % q->sig_every == 0 || idx + 1 == q->target ||
		    (force_signal && i + 1 == n)) {
			wr[i].send_flags = IBV_SEND_SIGNALED;
			q->signaled = idx + 1;
		}
	}
	err = mrc_post_send(q->qp, wr, &bad);
	if (err) {
		pr_err("cannot post WRITEs on QP %u: %s", q->qpn,
		       strerror(err));
		return -err;
	}
	q->posted += n;
	return 0;
}

static unsigned int qp_room(const struct perf_qp *q)
{
	uint64_t out = q->posted - q->completed;

	return out < q->window ? q->window - (unsigned int)out : 0;
}

/*
 * On the soft device the NIC (mrcd's send-queue pump, the XDP programs in
 * softirq) shares the CPUs with the application: a poller spinning on an
 * empty CQ takes the cycles that would complete its own work. After a run
 * of empty polls it yields the CPU at each poll (ksoftirqd, where veth
 * may run the peer's XDP, gets its turn at once), and after a longer run
 * it sleeps for idle_us; 0 spins, as one would on a hardware NIC.
 */
static void idle(const struct perf_dev *d, unsigned int *empty)
{
	struct timespec ts = { 0, 0 };

	if (!d->idle_us || ++*empty < PERF_IDLE_POLLS)
		return;
	if (*empty < PERF_IDLE_POLLS * 64) {
		sched_yield();
		return;
	}
	*empty = 0;
	ts.tv_nsec = (long)d->idle_us * 1000;
	nanosleep(&ts, NULL);
}

static void note_send_error(struct perf_dev *d, const struct ibv_wc *wc)
{
	if (!d->send_errors++) {
		struct ibv_qp_attr attr = { 0 };
		unsigned int qi = (unsigned int)(wc->wr_id & 1023);

		d->send_first_status = wc->status;
		d->send_first_error_ns = now_ns();
		d->send_first_error_qp_state = -1;
		if (qi < d->nqps && !mrc_query_qp(d->qps[qi].qp, &attr,
						  IBV_QP_STATE, NULL, 0, NULL))
			d->send_first_error_qp_state = attr.qp_state;
		pr_err("WRITE on QP %u completed with error: %s (status %u)",
		       wc->qp_num, wc_status_name(wc->status), wc->status);
	}
}

/* Polls the send CQ once; returns completions seen, or -errno. */
static int poll_send(struct perf_dev *d)
{
	struct ibv_wc wc[PERF_POLL_BATCH];
	int n, i;

	n = mrc_poll_cq(d->scq, PERF_POLL_BATCH, wc);
	if (n < 0) {
		pr_err("polling the send CQ failed");
		return -EIO;
	}
	for (i = 0; i < n; i++) {
		unsigned int qi = (unsigned int)(wc[i].wr_id & 1023);
		uint64_t idx = wc[i].wr_id >> 10;
		struct perf_qp *q;

		if (qi >= d->nqps) {
			pr_err("send completion for an unknown WR %#" PRIx64,
			       (uint64_t)wc[i].wr_id);
			return -EPROTO;
		}
		q = &d->qps[qi];
		/*
		 * Each completion covers the unsignaled WRs before it (at most
		 * one per WR): one for a WR not posted, already covered or
		 * completed twice is the device's bug, never counted.
		 */
		if (idx < q->completed || idx >= q->posted) {
			pr_err("send completion for WR %" PRIu64
			       " of QP %u: %s (%" PRIu64 " completed, %" PRIu64
			       " posted)",
			       idx, q->qpn,
			       idx < q->completed ?
				       "a duplicate or out of order" :
				       "never posted",
			       q->completed, q->posted);
			return -EPROTO;
		}
		if (wc[i].status != IBV_WC_SUCCESS) {
			note_send_error(d, &wc[i]);
		} else {
			q->ok += idx + 1 - q->completed;
			d->send_last_ok_ns = now_ns();
			if (d->tl)
				tl_completion(d->tl, d->send_last_ok_ns,
					      (idx + 1 - q->completed) *
						      d->wr_bytes);
		}
		q->completed = idx + 1;
	}
	return n;
}

static unsigned int qp_index(const struct perf_dev *d, uint32_t qpn)
{
	unsigned int i;

	for (i = 0; i < d->nqps; i++)
		if (d->qps[i].qpn == qpn)
			break;
	return i;
}

static void note_recv_error(struct perf_dev *d, const struct ibv_wc *wc)
{
	if (!d->recv_errors++) {
		d->recv_first_status = wc->status;
		pr_err("receive on QP %u completed with error: %s (status %u)",
		       wc->qp_num, wc_status_name(wc->status), wc->status);
	}
}

/*
 * Polls the receive CQ once and reposts what was consumed. wc_out, when
 * given, gets the completions (room for PERF_POLL_BATCH).
 */
static int poll_recv(struct perf_dev *d, struct ibv_wc *wc_out)
{
	struct ibv_wc wc_buf[PERF_POLL_BATCH], *wc = wc_out ? wc_out : wc_buf;
	int n, i, err;

	n = mrc_poll_cq(d->rcq, PERF_POLL_BATCH, wc);
	if (n < 0) {
		pr_err("polling the receive CQ failed");
		return -EIO;
	}
	for (i = 0; i < n; i++) {
		uint64_t id = wc[i].wr_id;
		unsigned int qi;

		/*
		 * The WR's id is its QP's index + 1. A WRITE_IMM that found
		 * no receive WR posted completes with id 0: nothing to
		 * repost, but the receiver fell behind, and we count it.
		 * From here on wr_id is the QP's index.
		 */
		if (id && id <= d->nqps && d->qps[id - 1].qpn == wc[i].qp_num)
			qi = (unsigned int)id - 1;
		else
			qi = qp_index(d, wc[i].qp_num);
		if (qi >= d->nqps) {
			pr_err("receive completion for unknown QP %u",
			       wc[i].qp_num);
			return -EPROTO;
		}
		wc[i].wr_id = qi;
		if (!id)
			d->rq_underflows++;
		if (wc[i].status != IBV_WC_SUCCESS) {
			note_recv_error(d, &wc[i]);
			continue; /* flushed: the QP takes no more WRs */
		}
		d->qps[qi].recv_msgs++;
		if (id)
			d->qps[qi].rq_refill++;
	}
	for (i = 0; i < n; i++) {
		struct perf_qp *q = &d->qps[wc[i].wr_id];

		if (!q->rq_refill)
			continue;
		err = qp_post_recvs(d, q, q->rq_refill);
		if (err)
			return err;
		q->rq_refill = 0;
	}
	return n;
}

static uint64_t recv_total(const struct perf_dev *d)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < d->nqps; i++)
		n += d->qps[i].recv_msgs;
	return n;
}

/* --- the client's runs -------------------------------------------------------- */

struct row_result {
	unsigned int transport;
	uint64_t size_bytes;
	uint64_t posted, msgs; /* WRs posted; completed without error */
	uint64_t elapsed_ns, client_cpu_ns;
	bool stopped; /* ended by the time limit, not the iteration count */
	struct sc_result srv;
	/* lat */
	uint64_t samples;
	uint64_t rtt_ns_min, rtt_ns_p50, rtt_ns_p99, rtt_ns_max;
};

struct perf_client {
	const struct perf_opts *o;
	int fd;
	struct perf_dev dev;
	struct sc_params params;
	struct row_result *rows;
	unsigned int nrows;
	uint64_t server_mem_per_qp_bytes;
	int failed;
};

static bool writes_covered(const struct perf_dev *d, uint64_t slots)
{
	unsigned int i;

	for (i = 0; i < d->nqps; i++)
		if (d->qps[i].posted < slots)
			return false;
	return true;
}

static bool writes_done(const struct perf_dev *d)
{
	unsigned int i;

	for (i = 0; i < d->nqps; i++)
		if (d->qps[i].completed < d->qps[i].posted ||
		    d->qps[i].signaled < d->qps[i].posted)
			return false;
	return true;
}

/*
 * One round over every QP: fill its window, or post its signaled tail.
 * Returns the WRs posted, or -errno.
 */
static int post_round(struct perf_dev *d, const struct perf_row *r,
		      bool stopping)
{
	unsigned int i, room;
	int err, posted = 0;

	for (i = 0; i < d->nqps; i++) {
		struct perf_qp *q = &d->qps[i];

		room = qp_room(q);
		if (!room)
			continue;
		if (stopping) {
			if (q->signaled < q->posted)
				err = qp_post_writes(d, q, r, 1, 0, true);
			else
				continue;
		} else {
			if (q->target - q->posted < room)
				room = (unsigned int)(q->target - q->posted);
			if (!room)
				continue;
			err = qp_post_writes(d, q, r, room, 0, false);
		}
		if (err)
			return err;
		posted++;
	}
	return posted;
}

static bool writes_should_stop(const struct perf_client *c,
			       const struct perf_row *r, uint64_t now,
			       uint64_t deadline)
{
	const struct perf_dev *d = &c->dev;
	uint64_t posted = 0;
	unsigned int i;

	if (g_stop || d->send_errors)
		return true;
	if (now >= deadline + PERF_DRAIN_TIMEOUT_MS * 1000000ull)
		return true; /* --verify could not cover the region in time */
	if (c->o->iters) {
		for (i = 0; i < d->nqps; i++)
			posted += d->qps[i].posted >= d->qps[i].target;
		return posted == d->nqps;
	}
	return now >= deadline &&
	       (!c->o->verify || writes_covered(d, r->slots));
}

static void writes_targets(struct perf_dev *d, const struct perf_opts *o,
			   uint64_t slots)
{
	uint64_t share = o->iters / d->nqps, extra = o->iters % d->nqps;
	unsigned int i;

	if (!o->iters)
		return;
	for (i = 0; i < d->nqps; i++) {
		d->qps[i].target = share + (i < extra);
		if (o->verify && d->qps[i].target < slots)
			d->qps[i].target = slots;
	}
}

/* The bw and rate rows: WRITEs (or WRITE_IMMs) at full depth on every QP. */
static int client_writes(struct perf_client *c, const struct perf_row *r,
			 struct row_result *res)
{
	uint64_t limit_ns = c->params.limit_ms * 1000000ull;
	uint64_t t0 = now_ns(), cpu0 = cpu_ns(), t_last = t0, stop_ns = 0;
	uint64_t deadline = t0 + limit_ns;
	struct perf_dev *d = &c->dev;
	unsigned int window = d->depth, i, empty = 0;
	bool stopping = false;
	int err = 0, n, posted = 0;

	/* WRITE_IMMs need a receive WR each at the peer; leave it slack. */
	if (r->imm && window > d->qps[0].peer.rq_depth / 2)
		window = (unsigned int)(d->qps[0].peer.rq_depth / 2);
	row_reset_qps(d, window ? window : 1);
	writes_targets(d, c->o, r->slots);
	d->wr_bytes = r->size_bytes;
	if (d->tl)
		tl_start(d->tl, t0, d->qps[0].qp);
	for (;;) {
		uint64_t now = now_ns();

		if (d->tl)
			tl_tick(d->tl, now);

		if (!stopping && writes_should_stop(c, r, now, deadline)) {
			stopping = true;
			stop_ns = now;
		}
		if (!d->send_errors) {
			posted = post_round(d, r, stopping);
			if (posted < 0) {
				err = posted;
				break;
			}
		}
		n = poll_send(d);
		if (n < 0) {
			err = n;
			break;
		}
		if (n > 0)
			t_last = now_ns();
		else if (!posted)
			idle(d, &empty);
		if (stopping && writes_done(d))
			break;
		if (stopping &&
		    now > stop_ns + PERF_DRAIN_TIMEOUT_MS * 1000000ull) {
			pr_err("WRITEs still incomplete %u ms after the end",
			       PERF_DRAIN_TIMEOUT_MS);
			err = -ETIMEDOUT;
			break;
		}
	}
	for (i = 0; i < d->nqps; i++) {
		res->posted += d->qps[i].posted;
		res->msgs += d->qps[i].ok;
		if (d->qps[i].posted < d->qps[i].target && c->o->iters)
			res->stopped = true;
	}
	res->stopped |= g_stop;
	res->elapsed_ns = t_last - t0;
	if (d->tl)
		tl_finish(d->tl, now_ns());
	res->client_cpu_ns = cpu_ns() - cpu0;
	return err;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void lat_stats(uint64_t *rtt_ns, uint64_t n, struct row_result *res)
{
	res->samples = n;
	if (!n)
		return;
	qsort(rtt_ns, n, sizeof(*rtt_ns), cmp_u64);
	res->rtt_ns_min = rtt_ns[0];
	res->rtt_ns_p50 = rtt_ns[n / 2];
	res->rtt_ns_p99 = rtt_ns[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1];
	res->rtt_ns_max = rtt_ns[n - 1];
}

/* Polls until a send slot is free on q. */
static int wait_room(struct perf_dev *d, struct perf_qp *q, uint64_t deadline)
{
	unsigned int empty = 0;
	int n;

	while (!qp_room(q)) {
		n = poll_send(d);
		if (n < 0)
			return n;
		if (d->send_errors)
			return -EIO;
		if (g_stop)
			return -EINTR;
		if (!n && now_ns() > deadline)
			return -ETIMEDOUT;
		if (!n)
			idle(d, &empty);
	}
	return 0;
}

/* Polls until one receive completion arrives; reposts its receive WR. */
static int wait_recv(struct perf_dev *d, struct ibv_wc *wc, uint64_t deadline)
{
	unsigned int spins = 0, empty = 0;
	int n;

	for (;;) {
		n = poll_recv(d, wc);
		if (n)
			return n;
		if ((++spins & 255) == 0) {
			if (g_stop)
				return -EINTR;
			if (now_ns() > deadline)
				return -ETIMEDOUT;
		}
		if (d->send_errors)
			return -EIO;
		if ((spins & 63) == 0 && poll_send(d) < 0)
			return -EIO;
		idle(d, &empty);
	}
}

static uint64_t lat_warmup(uint64_t iters)
{
	return iters > PERF_WARMUP_ITERS ? PERF_WARMUP_ITERS : 0;
}

/* Ping-pong of WRITE_IMMs; the server answers each one with its own. */
static int client_lat_mrc(struct perf_client *c, const struct perf_row *r,
			  uint64_t iters, struct row_result *res)
{
	uint64_t deadline = now_ns() + c->params.limit_ms * 1000000ull;
	uint64_t i, k = 0, warm = lat_warmup(iters), *rtt;
	struct perf_dev *d = &c->dev;
	struct ibv_wc wc[PERF_POLL_BATCH];
	int err = 0, n;

	rtt = calloc(iters, sizeof(*rtt));
	if (!rtt)
		return -ENOMEM;
	row_reset_qps(d, d->depth);
	for (i = 0; i < iters; i++) {
		struct perf_qp *q = &d->qps[i % d->nqps];
		uint64_t t0, t1;

		err = wait_room(d, q, deadline);
		if (err)
			break;
		t0 = now_ns();
		err = qp_post_writes(d, q, r, 1, (uint32_t)i | 1u << 31, false);
		if (err)
			break;
		n = wait_recv(d, wc, deadline);
		t1 = now_ns();
		if (n < 0) {
			err = n;
			break;
		}
		if (n != 1 || wc[0].status != IBV_WC_SUCCESS ||
		    be32toh(wc[0].imm_data) != ((uint32_t)i | 1u << 31)) {
			pr_err("round trip %" PRIu64 ": unexpected answer", i);
			err = -EPROTO;
			break;
		}
		res->msgs++;
		if (i >= warm)
			rtt[k++] = t1 - t0;
	}
	res->posted = i;
	res->stopped = i < iters;
	lat_stats(rtt, k, res);
	free(rtt);
	return err;
}

/* The same ping-pong over the side channel's TCP connection. */
static int client_lat_tcp(struct perf_client *c, uint64_t size, uint64_t iters,
			  struct row_result *res)
{
	uint64_t deadline = now_ns() + c->params.limit_ms * 1000000ull;
	uint64_t i, k = 0, warm = lat_warmup(iters), *rtt;
	uint8_t *buf;
	int err = 0;

	rtt = calloc(iters, sizeof(*rtt));
	buf = calloc(1, size);
	if (!rtt || !buf) {
		free(rtt);
		free(buf);
		return -ENOMEM;
	}
	for (i = 0; i < iters && !g_stop && now_ns() < deadline; i++) {
		uint64_t t0 = now_ns();

		memcpy(buf, &i, size < sizeof(i) ? size : sizeof(i));
		err = write_full(c->fd, buf, size, deadline);
		if (!err)
			err = read_full_mode(c->fd, buf, size, deadline,
					     !c->dev.idle_us);
		if (err)
			break;
		res->msgs++;
		if (i >= warm)
			rtt[k++] = now_ns() - t0;
	}
	res->posted = i;
	res->stopped = i < iters;
	lat_stats(rtt, k, res);
	free(rtt);
	free(buf);
	return err;
}

/* --- region layout ----------------------------------------------------------- */

/*
 * Each QP writes round-robin over "slots" message-sized places in its own
 * slice of the peer's region, as many as the depth keeps in flight but no
 * more than the region cap allows, so 1024 QPs or 1 GiB messages still fit.
 */
static uint64_t row_slots(const struct perf_opts *o, uint64_t size)
{
	uint64_t slots = PERF_REGION_CAP_BYTES / ((uint64_t)o->qps * size);

	if (o->test == TEST_LAT)
		return 1;
	if (slots > o->depth)
		slots = o->depth;
	return slots ? slots : 1;
}

static unsigned int row_sizes(const struct perf_opts *o, uint64_t *sizes,
			      unsigned int max)
{
	unsigned int n = 0;
	uint64_t s;

	if (!o->sweep) {
		sizes[0] = o->size_bytes;
		return 1;
	}
	for (s = o->sweep_min_bytes; s <= o->sweep_max_bytes && n < max; s *= 2)
		sizes[n++] = s;
	return n;
}

static uint64_t slice_bytes_for(const struct perf_opts *o)
{
	uint64_t sizes[64], slice = 64, s;
	unsigned int i, n = row_sizes(o, sizes, 64);

	for (i = 0; i < n; i++) {
		s = sizes[i] * row_slots(o, sizes[i]);
		if (s > slice)
			slice = s;
	}
	return (slice + 63) & ~63ull;
}

static unsigned int rq_depth_for(const struct perf_opts *o)
{
	unsigned int rq = 2 * o->depth, cap = PERF_CQ_MAX / o->qps;

	if (rq > cap)
		rq = cap;
	return rq < 2 ? 2 : rq;
}

/* --- the client -------------------------------------------------------------- */

static void client_params(const struct perf_opts *o, struct sc_params *p)
{
	double limit_s = o->seconds;

	if (!o->seconds_set && (o->iters || o->test == TEST_LAT))
		limit_s = PERF_LAT_LIMIT_S;
	*p = (struct sc_params){
		.magic = PERF_MAGIC,
		.version = PERF_PROTO_VERSION,
		.test = o->test,
		.transport = o->transport,
		.qps = o->qps,
		.depth = o->depth,
		.rq_depth = rq_depth_for(o),
		.sge = o->sge,
		.slice_bytes = slice_bytes_for(o),
		.verify = o->verify,
		.imm = o->imm || o->test != TEST_BW,
		.mpr = o->mpr,
		.timeout = o->timeout,
		.retry_linear = o->retry_linear,
		.retry_exp = o->retry_exp,
		.mtu_bytes = o->mtu_bytes,
		.limit_ms = (uint64_t)(limit_s * 1000),
		.idle_us = o->idle_us,
	};
}

/* Device setup shared by both sides, from the parameters both agree on. */
static int dev_setup(struct perf_dev *d, struct sc_params *p)
{
	int err;

	d->nqps = (unsigned int)p->qps;
	d->depth = (unsigned int)p->depth;
	d->rq_depth = (unsigned int)p->rq_depth;
	d->sge = (unsigned int)p->sge;
	d->slice_bytes = p->slice_bytes;
	d->idle_us = (unsigned int)p->idle_us;
	err = dev_open(d);
	if (err)
		return err;
	if (!p->mpr)
		p->mpr = d->attr.mpr_attr.max_mpr ? d->attr.mpr_attr.max_mpr :
						    2;
	return dev_create_qps(d);
}

static int client_connect_qps(struct perf_client *c)
{
	struct sc_ready ready;
	int err;

	c->dev.ev_profile = c->o->ev_profile;
	c->dev.cc_profile = c->o->cc_profile;
	err = dev_setup(&c->dev, &c->params);
	if (err)
		return err;
	err = sc_recv_qps(c->fd, &c->dev);
	if (!err)
		err = sc_send_qps(c->fd, &c->dev);
	if (err) {
		pr_err("QP exchange with the server failed: %s",
		       strerror(-err));
		return err;
	}
	err = dev_connect_qps(&c->dev, &c->params);
	if (err)
		return err;
	err = sc_recv(c->fd, SC_READY, &ready, sizeof(ready),
		      PERF_IO_TIMEOUT_MS);
	if (err) {
		pr_err("the server did not get its QPs ready: %s",
		       strerror(-err));
		return err;
	}
	c->server_mem_per_qp_bytes = ready.mem_per_qp_bytes;
	return 0;
}

static int client_run_row(struct perf_client *c, struct sc_start *st,
			  struct row_result *res)
{
	struct perf_row r = {
		.size_bytes = st->size_bytes,
		.slots = st->slots,
		.pass = st->pass,
		.imm = c->params.imm,
	};
	uint64_t cpu0 = cpu_ns();
	int err;

	if (st->transport == XPORT_TCP)
		err = client_lat_tcp(c, st->size_bytes, st->iters, res);
	else if (c->o->test == TEST_LAT)
		err = client_lat_mrc(c, &r, st->iters, res);
	else
		err = client_writes(c, &r, res);
	if (!res->client_cpu_ns)
		res->client_cpu_ns = cpu_ns() - cpu0;
	return err;
}

static int client_row(struct perf_client *c, unsigned int transport,
		      uint64_t size, uint64_t pass, struct row_result *res)
{
	struct sc_start st = {
		.size_bytes = size,
		.slots = row_slots(c->o, size),
		.pass = pass,
		.transport = transport,
		.iters = c->o->iters ? c->o->iters : PERF_LAT_ITERS_DEFAULT,
	};
	struct sc_done done;
	int err, run_err;

	res->transport = transport;
	res->size_bytes = size;
	if (c->o->verify)
		pattern_fill(c->dev.buf, 0, c->dev.nqps * c->dev.slice_bytes,
			     pass);
	err = sc_send(c->fd, SC_START, &st, sizeof(st));
	if (!err)
		err = sc_recv(c->fd, SC_GO, NULL, 0, PERF_IO_TIMEOUT_MS);
	if (err) {
		pr_err("the server did not start the row: %s", strerror(-err));
		return err;
	}
	run_err = client_run_row(c, &st, res);
	/*
	 * A TCP ping-pong cut short leaves the server expecting pings, not
	 * DONE: the session cannot go on, and the client closes it.
	 */
	if (st.transport == XPORT_TCP && res->stopped)
		return run_err ? run_err : g_stop ? -EINTR : -ETIMEDOUT;
	done = (struct sc_done){ .msgs = res->msgs, .aborted = !!run_err };
	/* A first Ctrl-C ended the run; what the server saw still counts. */
	g_stop_waits_at = 2;
	err = sc_send(c->fd, SC_DONE, &done, sizeof(done));
	if (!err)
		err = sc_recv(c->fd, SC_RESULT, &res->srv, sizeof(res->srv),
			      run_err || c->dev.send_errors ?
				      PERF_ABORT_RESULT_MS :
				      c->params.limit_ms + PERF_IO_TIMEOUT_MS);
	g_stop_waits_at = 1;
	if (err)
		pr_err("no result from the server: %s", strerror(-err));
	return run_err ? run_err : err;
}

static int client_rows(struct perf_client *c)
{
	uint64_t sizes[64];
	unsigned int n = row_sizes(c->o, sizes, 64), i, t;
	int err = 0;

	c->rows = calloc(2 * n, sizeof(*c->rows));
	if (!c->rows)
		return -ENOMEM;
	for (i = 0; i < n && !err && !g_stop; i++) {
		for (t = XPORT_MRC; t <= XPORT_TCP && !err && !g_stop;
		     t <<= 1) {
			if (!(c->o->transport & t))
				continue;
			err = client_row(c, t, sizes[i], i + 1,
					 &c->rows[c->nrows++]);
		}
	}
	return err;
}

static bool row_failed(const struct perf_opts *o, const struct row_result *r)
{
	if (r->srv.recv_errors || r->srv.send_errors || r->srv.bad_bytes)
		return true;
	if (o->test == TEST_RATE && r->srv.recv_msgs != r->msgs)
		return true;
	return o->test == TEST_BW && o->imm && r->srv.recv_msgs != r->msgs;
}

/* --- output -------------------------------------------------------------------- */

static double gbit_per_s(const struct row_result *r)
{
	return r->elapsed_ns ? (double)r->msgs * (double)r->size_bytes * 8 /
				       (double)r->elapsed_ns :
			       0;
}

static double msg_per_s(uint64_t msgs, uint64_t ns)
{
	return ns ? (double)msgs * 1e9 / (double)ns : 0;
}

static const char *xport_name(unsigned int t)
{
	return t == XPORT_TCP ? "tcp" : "mrc";
}

static void json_row_writes(const struct perf_opts *o,
			    const struct row_result *r)
{
	printf("{\"size_bytes\":%" PRIu64 ",\"msgs\":%" PRIu64
	       ",\"seconds\":%.6f,\"gbit_per_s\":%.3f,\"msg_per_s\":%.1f",
	       r->size_bytes, r->msgs, ns_to_s(r->elapsed_ns), gbit_per_s(r),
	       msg_per_s(r->msgs, r->elapsed_ns));
	if (o->test == TEST_RATE || o->imm)
		printf(",\"msgs_received\":%" PRIu64
		       ",\"server_msg_per_s\":%.1f,\"count_ok\":%s",
		       r->srv.recv_msgs,
		       msg_per_s(r->srv.recv_msgs, r->srv.elapsed_ns),
		       r->srv.recv_msgs == r->msgs ? "true" : "false");
	printf(",\"server_cpu_s\":%.6f,\"client_cpu_s\":%.6f",
	       ns_to_s(r->srv.cpu_ns), ns_to_s(r->client_cpu_ns));
	if (o->verify)
		printf(",\"bad_bytes\":%" PRIu64 ",\"checked_bytes\":%" PRIu64,
		       r->srv.bad_bytes, r->srv.checked_bytes);
	printf(",\"send_errors\":%" PRIu64 ",\"recv_errors\":%" PRIu64
	       ",\"rq_underflows\":%" PRIu64 ",\"time_limited\":%s}",
	       r->srv.send_errors, r->srv.recv_errors, r->srv.rq_underflows,
	       r->stopped ? "true" : "false");
}

static void json_row_lat(const struct row_result *r)
{
	printf("{\"transport\":\"%s\",\"size_bytes\":%" PRIu64
	       ",\"iters\":%" PRIu64 ",\"samples\":%" PRIu64,
	       xport_name(r->transport), r->size_bytes, r->posted, r->samples);
	printf(",\"rtt_us_min\":%.3f,\"rtt_us_p50\":%.3f,\"rtt_us_p99\":%.3f"
	       ",\"rtt_us_max\":%.3f",
	       r->rtt_ns_min / 1e3, r->rtt_ns_p50 / 1e3, r->rtt_ns_p99 / 1e3,
	       r->rtt_ns_max / 1e3);
	printf(",\"one_way_us_min\":%.3f,\"one_way_us_p50\":%.3f"
	       ",\"one_way_us_p99\":%.3f,\"one_way_us_max\":%.3f",
	       r->rtt_ns_min / 2e3, r->rtt_ns_p50 / 2e3, r->rtt_ns_p99 / 2e3,
	       r->rtt_ns_max / 2e3);
	printf(",\"server_cpu_s\":%.6f,\"client_cpu_s\":%.6f}",
	       ns_to_s(r->srv.cpu_ns), ns_to_s(r->client_cpu_ns));
}

static void print_json(const struct perf_client *c, int err)
{
	const struct perf_opts *o = c->o;
	unsigned int i;

	printf("{\"test\":\"%s\",\"qps\":%u,\"depth\":%u,\"sge\":%u,"
	       "\"imm\":%s,\"verify\":%s",
	       test_names[o->test], o->qps, o->depth, o->sge,
	       c->params.imm ? "true" : "false", o->verify ? "true" : "false");
	if (c->dev.vctx)
		printf(",\"mpr\":%" PRIu64 ",\"path_mtu_bytes\":%u"
		       ",\"mem_per_qp_bytes\":%" PRIu64
		       ",\"server_mem_per_qp_bytes\":%" PRIu64,
		       c->params.mpr, c->dev.path_mtu_bytes,
		       c->dev.mem_per_qp_bytes, c->server_mem_per_qp_bytes);
	printf(",\"results\":[");
	for (i = 0; i < c->nrows; i++) {
		if (i)
			putchar(',');
		if (o->test == TEST_LAT)
			json_row_lat(&c->rows[i]);
		else
			json_row_writes(o, &c->rows[i]);
	}
	printf("]");
	printf(",\"client_send_errors\":%" PRIu64
	       ",\"client_recv_errors\":%" PRIu64,
	       c->dev.send_errors, c->dev.recv_errors);
	if (c->dev.send_errors)
		printf(",\"client_first_send_error\":{\"status\":%u,"
		       "\"status_name\":\"%s\",\"qp_state\":\"%s\","
		       "\"ms_after_last_ok\":%.3f}",
		       c->dev.send_first_status,
		       wc_status_name(c->dev.send_first_status),
		       qp_state_name(c->dev.send_first_error_qp_state),
		       c->dev.send_last_ok_ns ?
			       (double)(c->dev.send_first_error_ns -
					c->dev.send_last_ok_ns) /
				       1e6 :
			       -1.0);
	if (c->dev.tl)
		tl_json(c->dev.tl, stdout);
	if (err)
		printf(",\"error\":\"%s\"", strerror(-err));
	printf(",\"ok\":%s}\n", err || c->failed ? "false" : "true");
}

static void human_size(uint64_t b, char *out, size_t len)
{
	if (b >= (1u << 20) && !(b % (1u << 20)))
		snprintf(out, len, "%" PRIu64 "M", b >> 20);
	else if (b >= 1024 && !(b % 1024))
		snprintf(out, len, "%" PRIu64 "K", b >> 10);
	else
		snprintf(out, len, "%" PRIu64, b);
}

static void human_writes(const struct perf_client *c)
{
	const struct perf_opts *o = c->o;
	bool imm = o->test == TEST_RATE || o->imm;
	unsigned int i;
	char sz[32];

	printf("%8s %10s %8s %9s %12s", "size", "msgs", "seconds", "Gbit/s",
	       "msg/s");
	if (imm)
		printf(" %12s %10s", "rx msg/s", "rx count");
	printf(" %9s %9s", "srv CPU s", "cli CPU s");
	if (o->verify)
		printf(" %10s", "bad bytes");
	printf("\n");
	for (i = 0; i < c->nrows; i++) {
		const struct row_result *r = &c->rows[i];

		human_size(r->size_bytes, sz, sizeof(sz));
		printf("%8s %10" PRIu64 " %8.3f %9.3f %12.0f", sz, r->msgs,
		       ns_to_s(r->elapsed_ns), gbit_per_s(r),
		       msg_per_s(r->msgs, r->elapsed_ns));
		if (imm)
			printf(" %12.0f %10s",
			       msg_per_s(r->srv.recv_msgs, r->srv.elapsed_ns),
			       r->srv.recv_msgs == r->msgs ? "ok" : "MISMATCH");
		printf(" %9.3f %9.3f", ns_to_s(r->srv.cpu_ns),
		       ns_to_s(r->client_cpu_ns));
		if (o->verify)
			printf(" %10" PRIu64, r->srv.bad_bytes);
		printf("\n");
	}
}

static void human_lat(const struct perf_client *c)
{
	unsigned int i;

	printf("%-9s %6s %7s  %9s %9s %9s %9s  %9s %9s\n", "transport", "size",
	       "samples", "RTT min", "RTT p50", "RTT p99", "RTT max",
	       "1-way p50", "1-way p99");
	for (i = 0; i < c->nrows; i++) {
		const struct row_result *r = &c->rows[i];

		printf("%-9s %6" PRIu64 " %7" PRIu64
		       "  %9.2f %9.2f %9.2f %9.2f  %9.2f %9.2f\n",
		       xport_name(r->transport), r->size_bytes, r->samples,
		       r->rtt_ns_min / 1e3, r->rtt_ns_p50 / 1e3,
		       r->rtt_ns_p99 / 1e3, r->rtt_ns_max / 1e3,
		       r->rtt_ns_p50 / 2e3, r->rtt_ns_p99 / 2e3);
	}
	printf("(microseconds; first %u round trips are warm-up)\n",
	       PERF_WARMUP_ITERS);
}

static void print_human(const struct perf_client *c)
{
	const struct perf_opts *o = c->o;
	unsigned int i;

	printf("test %s, %u QP%s, depth %u%s%s", test_names[o->test], o->qps,
	       o->qps > 1 ? "s" : "", o->depth,
	       c->params.imm && o->test == TEST_BW ? ", WRITE_IMM" : "",
	       o->verify ? ", verify" : "");
	if (c->dev.vctx)
		printf(", mpr %" PRIu64 ", %u-byte packets"
		       "\nmemory per QP: client %" PRIu64
		       " bytes, server %" PRIu64 " bytes",
		       c->params.mpr, c->dev.path_mtu_bytes,
		       c->dev.mem_per_qp_bytes, c->server_mem_per_qp_bytes);
	printf("\n");
	if (o->test == TEST_LAT)
		human_lat(c);
	else
		human_writes(c);
	for (i = 0; i < c->nrows; i++) {
		const struct row_result *r = &c->rows[i];

		if (r->stopped)
			printf("note: row %u stopped before its iterations\n",
			       i + 1);
		if (r->srv.rq_underflows)
			printf("note: row %u: %" PRIu64 " WRITE_IMMs found no "
			       "receive WR posted at the server\n",
			       i + 1, r->srv.rq_underflows);
		if (r->srv.send_errors || r->srv.recv_errors)
			printf("note: row %u: server saw %" PRIu64
			       " send, %" PRIu64
			       " receive errors (first: %s)\n",
			       i + 1, r->srv.send_errors, r->srv.recv_errors,
			       wc_status_name((
				       unsigned int)(r->srv.recv_errors ?
							     r->srv.recv_first_status :
							     r->srv.send_first_status)));
	}
}

static int client_main(const struct perf_opts *o)
{
	struct perf_client c = { .o = o, .fd = -1 };
	unsigned int i;
	int err;

	client_params(o, &c.params);
	if (o->timeline || o->nat) {
		c.dev.tl = tl_new(o->timeline, o->at, o->nat);
		if (!c.dev.tl)
			return 2;
	}
	c.fd = sock_connect(o->host, o->port, o->wait_s);
	if (c.fd < 0)
		return 1;
	err = sc_send(c.fd, SC_HELLO, &c.params, sizeof(c.params));
	if (!err && (o->transport & XPORT_MRC))
		err = client_connect_qps(&c);
	if (!err)
		err = client_rows(&c);
	if (err)
		sc_send(c.fd, SC_ABORT, NULL, 0);
	else
		sc_send(c.fd, SC_BYE, NULL, 0);
	for (i = 0; i < c.nrows; i++)
		if (row_failed(o, &c.rows[i]))
			c.failed = 1;
	if (o->json)
		print_json(&c, err);
	else if (c.nrows)
		print_human(&c);
	if (!o->json && c.dev.tl)
		tl_human(c.dev.tl, stdout);
	if (err == -EINTR || g_stop)
		pr_err("interrupted");
	else if (err)
		pr_err("the test failed: %s", strerror(-err));
	else if (c.failed)
		pr_err("errors: see the counts above");
	tl_free(c.dev.tl);
	c.dev.tl = NULL;
	dev_close(&c.dev);
	free(c.rows);
	close(c.fd);
	return err || c.failed || g_stop ? 1 : 0;
}

/* --- the server ---------------------------------------------------------------- */

struct perf_server {
	int fd;
	struct perf_dev dev;
	struct sc_params params;
};

static int server_check_params(const struct sc_params *p)
{
	if (p->magic != PERF_MAGIC || p->version != PERF_PROTO_VERSION) {
		pr_err("the client speaks another protocol (version %" PRIu64
		       ")",
		       p->version);
		return -EPROTO;
	}
	if (p->test > TEST_LAT || !p->transport || p->transport > 3 ||
	    !p->qps || p->qps > PERF_MAX_QPS || !p->depth ||
	    p->depth > PERF_MAX_DEPTH || !p->sge || p->sge > PERF_MAX_SGE ||
	    !p->rq_depth || p->rq_depth > PERF_CQ_MAX ||
	    p->slice_bytes * p->qps > 2 * PERF_MAX_SIZE_BYTES ||
	    p->idle_us > 1000000) {
		pr_err("the client sent parameters out of range");
		return -EINVAL;
	}
	return 0;
}

/* Waits for DONE from the client; true when it came (or the link died). */
static bool server_done_pending(struct perf_server *s, unsigned int *spins)
{
	if ((++*spins & 1023) == 0)
		return sc_pending(s->fd);
	return false;
}

/* Polls the receive CQ until DONE arrives, then for the last few. */
static int server_poll_recvs(struct perf_server *s, uint64_t deadline,
			     struct sc_done *done, uint64_t *t_last)
{
	struct perf_dev *d = &s->dev;
	uint64_t grace;
	unsigned int spins = 0, empty = 0;
	int n, err;

	while (!server_done_pending(s, &spins)) {
		n = poll_recv(d, NULL);
		if (n < 0)
			return n;
		if (n)
			*t_last = now_ns();
		else
			idle(d, &empty);
		if ((spins & 1023) == 0 && (g_stop || now_ns() > deadline))
			return g_stop ? -EINTR : -ETIMEDOUT;
	}
	err = sc_recv(s->fd, SC_DONE, done, sizeof(*done), PERF_IO_TIMEOUT_MS);
	if (err)
		return err;
	grace = now_ns() + PERF_RECV_GRACE_MS * 1000000ull;
	while (recv_total(d) + d->recv_errors < done->msgs && !g_stop &&
	       now_ns() < grace) {
		n = poll_recv(d, NULL);
		if (n < 0)
			return n;
		if (n)
			*t_last = now_ns();
		else
			idle(d, &empty);
	}
	return 0;
}

/* Answers every WRITE_IMM that arrives with one of its own. */
static int server_pong(struct perf_server *s, const struct perf_row *r,
		       uint64_t deadline, struct sc_done *done)
{
	struct perf_dev *d = &s->dev;
	struct ibv_wc wc[PERF_POLL_BATCH];
	unsigned int spins = 0, empty = 0;
	int n, i, err;

	row_reset_qps(d, d->depth);
	while (!server_done_pending(s, &spins)) {
		n = poll_recv(d, wc);
		if (n < 0)
			return n;
		for (i = 0; i < n; i++) {
			struct perf_qp *q = &d->qps[wc[i].wr_id];

			if (wc[i].status != IBV_WC_SUCCESS)
				continue;
			err = wait_room(d, q, deadline);
			if (!err)
				err = qp_post_writes(d, q, r, 1,
						     be32toh(wc[i].imm_data),
						     false);
			if (err)
				return err;
		}
		if (!n && (spins & 63) == 0 && poll_send(d) < 0)
			return -EIO;
		if (!n)
			idle(d, &empty);
		if ((spins & 1023) == 0 && (g_stop || now_ns() > deadline))
			return g_stop ? -EINTR : -ETIMEDOUT;
	}
	return sc_recv(s->fd, SC_DONE, done, sizeof(*done), PERF_IO_TIMEOUT_MS);
}

static int server_echo_tcp(struct perf_server *s, const struct sc_start *st,
			   uint64_t deadline, struct sc_done *done)
{
	uint64_t i;
	uint8_t *buf;
	int err = 0;

	buf = malloc(st->size_bytes);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < st->iters && !err; i++) {
		err = read_full_mode(s->fd, buf, st->size_bytes, deadline,
				     !s->dev.idle_us);
		if (!err)
			err = write_full(s->fd, buf, st->size_bytes, deadline);
	}
	free(buf);
	if (err && err != -ECONNRESET)
		return err;
	return sc_recv(s->fd, SC_DONE, done, sizeof(*done), PERF_IO_TIMEOUT_MS);
}

static void server_verify(struct perf_server *s, const struct sc_start *st,
			  struct sc_result *res)
{
	struct perf_dev *d = &s->dev;
	uint64_t used = st->slots * st->size_bytes;
	unsigned int i;

	for (i = 0; i < d->nqps; i++) {
		res->bad_bytes += pattern_bad_bytes(d->buf, d->qps[i].slice_off,
						    used, st->pass);
		res->checked_bytes += used;
	}
}

static int server_row(struct perf_server *s, const struct sc_start *st)
{
	uint64_t deadline = now_ns() + s->params.limit_ms * 1000000ull +
			    PERF_IO_TIMEOUT_MS * 1000000ull;
	struct perf_row r = { .size_bytes = st->size_bytes,
			      .slots = st->slots,
			      .pass = st->pass,
			      .imm = true };
	struct sc_result res = { 0 };
	struct sc_done done = { 0 };
	struct perf_dev *d = &s->dev;
	uint64_t cpu0, t0, t_last;
	int err;

	if (st->transport == XPORT_MRC) {
		row_reset_qps(d, d->depth);
		d->send_errors = d->recv_errors = d->rq_underflows = 0;
	}
	cpu0 = cpu_ns();
	t0 = t_last = now_ns();
	err = sc_send(s->fd, SC_GO, NULL, 0);
	if (err)
		return err;
	if (st->transport == XPORT_TCP)
		err = server_echo_tcp(s, st, deadline, &done);
	else if (s->params.test == TEST_LAT)
		err = server_pong(s, &r, deadline, &done);
	else if (s->params.imm)
		err = server_poll_recvs(s, deadline, &done, &t_last);
	else
		err = sc_recv(s->fd, SC_DONE, &done, sizeof(done),
			      s->params.limit_ms + PERF_IO_TIMEOUT_MS);
	if (err)
		return err;
	res.cpu_ns = cpu_ns() - cpu0;
	res.elapsed_ns = t_last - t0;
	if (st->transport == XPORT_MRC) {
		res.recv_msgs = recv_total(d);
		res.recv_errors = d->recv_errors;
		res.recv_first_status = d->recv_first_status;
		res.send_errors = d->send_errors;
		res.send_first_status = d->send_first_status;
		res.rq_underflows = d->rq_underflows;
		if (s->params.verify && !done.aborted)
			server_verify(s, st, &res);
	}
	return sc_send(s->fd, SC_RESULT, &res, sizeof(res));
}

static int server_rows(struct perf_server *s)
{
	struct sc_start st;
	enum sc_type type;
	size_t len;
	int err;

	for (;;) {
		len = sizeof(st);
		err = sc_recv_any(s->fd, &type, &st, &len,
				  PERF_IDLE_TIMEOUT_MS);
		if (err)
			return err;
		if (type == SC_BYE)
			return 0;
		if (type != SC_START || len != sizeof(st) || !st.size_bytes ||
		    st.size_bytes > s->params.slice_bytes || !st.slots ||
		    st.slots * st.size_bytes > s->params.slice_bytes ||
		    !(st.transport & s->params.transport))
			return -EPROTO;
		err = server_row(s, &st);
		if (err)
			return err;
	}
}

static int server_session(struct perf_server *s)
{
	struct sc_ready ready = { 0 };
	int err;

	err = sc_recv(s->fd, SC_HELLO, &s->params, sizeof(s->params),
		      PERF_IO_TIMEOUT_MS);
	if (err) {
		pr_err("no valid hello from the client: %s", strerror(-err));
		return err;
	}
	err = server_check_params(&s->params);
	if (err)
		return err;
	if (s->params.transport & XPORT_MRC) {
		err = dev_setup(&s->dev, &s->params);
		if (!err)
			err = sc_send_qps(s->fd, &s->dev);
		if (!err)
			err = sc_recv_qps(s->fd, &s->dev);
		if (!err)
			err = dev_connect_qps(&s->dev, &s->params);
		if (err)
			return err;
		ready.mem_per_qp_bytes = s->dev.mem_per_qp_bytes;
		err = sc_send(s->fd, SC_READY, &ready, sizeof(ready));
		if (err)
			return err;
	}
	return server_rows(s);
}

static int server_main(const struct perf_opts *o)
{
	struct perf_server s = { .fd = -1 };
	int lfd, err;

	s.dev.ev_profile = o->ev_profile;
	s.dev.cc_profile = o->cc_profile;

	lfd = sock_listen(o->host, o->port);
	if (lfd < 0)
		return 1;
	if (!o->json)
		fprintf(stderr, "mrc-perf: waiting for a client on port %s\n",
			o->port);
	s.fd = sock_accept(lfd, (uint64_t)(o->wait_s * 1000));
	close(lfd);
	if (s.fd < 0) {
		pr_err("no client came: %s", strerror(-s.fd));
		return 1;
	}
	err = server_session(&s);
	if (err && err != -ECONNABORTED)
		sc_send(s.fd, SC_ABORT, NULL, 0);
	if (err == -EINTR)
		pr_err("interrupted");
	else if (err == -ECONNABORTED)
		pr_err("the client gave up");
	else if (err)
		pr_err("session failed: %s", strerror(-err));
	dev_close(&s.dev);
	close(s.fd);
	return err ? 1 : 0;
}

/* --- options ------------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: mrc-perf server [ADDR] [-p PORT] [--wait S]\n"
		"       mrc-perf client HOST [OPTIONS]\n"
		"\n"
		"Options (client; the server learns them from the client):\n"
		"  -t, --test bw|rate|lat   RDMA WRITE goodput (default), WRITE_IMM\n"
		"                           message rate, or WRITE_IMM ping-pong latency\n"
		"  -s, --size BYTES         message size (bw 1M, rate 64, lat 8);\n"
		"                           suffixes K, M, G\n"
		"      --sweep MIN-MAX      one row per size, doubling from MIN to MAX\n"
		"  -d, --depth N            WRs in flight per QP, 1-%u (default %u)\n"
		"  -D, --seconds S          duration of a bw/rate row (default %.0f)\n"
		"                           or the time limit with --iters\n"
		"  -n, --iters N            WRs (bw, rate) or round trips (lat,\n"
		"                           default %u, first %u are warm-up)\n"
		"  -q, --qps N              QP pairs, 1-%u (default 1)\n"
		"      --verify             check every byte at the server\n"
		"      --imm                bw with WRITE_IMM\n"
		"      --transport T        mrc (default), tcp or both (lat only)\n"
		"      --mpr N              PSNs in flight, units of 128 (default:\n"
		"                           the device's largest)\n"
		"      --timeout N          ACK timeout 1.024 us x 2^N (default 14)\n"
		"      --ev-profile N       this side's QPs name EV profile N (default 0,\n"
		"                           the device's own; see mrcctl ev-profile)\n"
		"      --cc-profile N       ...and CC profile N (default 0: none)\n"
		"      --timeline FILE      bw: a CSV of goodput, retransmissions and EVs\n"
		"                           in use each ms, FILE.events.csv, and a PNG\n"
		"                           (gnuplot); with --at, a failover summary\n"
		"      --at MS:CMD          bw: run sh -c CMD MS ms into the run (up to\n"
		"                           6; the first is the fault, the next its heal)\n"
		"      --retry L,E          linear, exponential retries (default 7,7;\n"
		"                           E=25: forever)\n"
		"      --mtu BYTES          path MTU 256-4096 (default: the port's)\n"
		"      --sge N              scatter entries per WRITE, 1-%u\n"
		"      --idle-us N          both sides: after %u empty polls yield,\n"
		"                           64x as many: sleep N us (default %u,\n"
		"                           --test lat: 0; 0: spin, and TCP\n"
		"                           ping-pong spins on its socket)\n"
		"  -p, --port PORT          side channel TCP port (default %s)\n"
		"      --wait S             server: wait S for a client (default\n"
		"                           120); client: retry connecting (10)\n"
		"  -j, --json               one JSON object instead of a table\n"
		"  -h, --help               this text\n",
		PERF_MAX_DEPTH, PERF_MAX_DEPTH, PERF_SECONDS_DEFAULT,
		PERF_LAT_ITERS_DEFAULT, PERF_WARMUP_ITERS, PERF_MAX_QPS,
		PERF_MAX_SGE, PERF_IDLE_POLLS, PERF_IDLE_US_DEFAULT,
		PERF_PORT_DEFAULT);
}

static int bad_value(const char *opt, const char *val, const char *want)
{
	pr_err("bad value for %s: '%s' (%s)", opt, val, want);
	return -EINVAL;
}

static int parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max,
		     bool suffix, uint64_t *out)
{
	unsigned long long v;
	char *end;
	char want[96];

	snprintf(want, sizeof(want), "expected %" PRIu64 " to %" PRIu64 "%s",
		 min, max, suffix ? ", suffixes K M G" : "");
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return bad_value(opt, s, want);
	if (suffix && *end) {
		unsigned int shift = *end == 'K' || *end == 'k' ? 10 :
				     *end == 'M' || *end == 'm' ? 20 :
				     *end == 'G' || *end == 'g' ? 30 :
								  64;

		if (shift == 64 || end[1] || v > (ULLONG_MAX >> shift))
			return bad_value(opt, s, want);
		v <<= shift;
		end++;
	}
	if (*end || v < min || v > max)
		return bad_value(opt, s, want);
	*out = v;
	return 0;
}

static int parse_uint(const char *opt, const char *s, unsigned int min,
		      unsigned int max, unsigned int *out)
{
	uint64_t v;
	int err = parse_u64(opt, s, min, max, false, &v);

	if (!err)
		*out = (unsigned int)v;
	return err;
}

static int parse_seconds(const char *opt, const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || !(*out > 0) || *out > 86400)
		return bad_value(opt, s, "seconds, more than 0, at most 86400");
	return 0;
}

static int parse_sweep(const char *s, struct perf_opts *o)
{
	char min[32], *dash = strchr(s, '-');
	int err;

	if (!dash || (size_t)(dash - s) >= sizeof(min))
		return bad_value("--sweep", s, "expected MIN-MAX");
	memcpy(min, s, (size_t)(dash - s));
	min[dash - s] = '\0';
	err = parse_u64("--sweep", min, 1, PERF_MAX_SIZE_BYTES, true,
			&o->sweep_min_bytes);
	if (!err)
		err = parse_u64("--sweep", dash + 1, o->sweep_min_bytes,
				PERF_MAX_SIZE_BYTES, true, &o->sweep_max_bytes);
	o->sweep = true;
	return err;
}

static int parse_retry(const char *s, struct perf_opts *o)
{
	unsigned int l, e;
	int n = -1;

	if (sscanf(s, "%u,%u%n", &l, &e, &n) != 2 || n < 0 || s[n] || l > 7 ||
	    e > 25)
		return bad_value("--retry", s, "expected L,E with L<=7, E<=25");
	o->retry_linear = l;
	o->retry_exp = e;
	return 0;
}

static int parse_choice(const char *opt, const char *s,
			const char *const *names, unsigned int n,
			unsigned int *out)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(s, names[i])) {
			*out = i;
			return 0;
		}
	return bad_value(opt, s, "see --help");
}

enum {
	OPT_SWEEP = 256,
	OPT_VERIFY,
	OPT_IMM,
	OPT_TRANSPORT,
	OPT_MPR,
	OPT_TIMEOUT,
	OPT_RETRY,
	OPT_TIMELINE,
	OPT_AT,
	OPT_MTU,
	OPT_SGE,
	OPT_WAIT,
	OPT_IDLE,
	OPT_EV_PROFILE,
	OPT_CC_PROFILE,
};

static const struct option long_opts[] = {
	{ "test", required_argument, NULL, 't' },
	{ "size", required_argument, NULL, 's' },
	{ "sweep", required_argument, NULL, OPT_SWEEP },
	{ "depth", required_argument, NULL, 'd' },
	{ "seconds", required_argument, NULL, 'D' },
	{ "iters", required_argument, NULL, 'n' },
	{ "qps", required_argument, NULL, 'q' },
	{ "verify", no_argument, NULL, OPT_VERIFY },
	{ "imm", no_argument, NULL, OPT_IMM },
	{ "transport", required_argument, NULL, OPT_TRANSPORT },
	{ "mpr", required_argument, NULL, OPT_MPR },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "retry", required_argument, NULL, OPT_RETRY },
	{ "timeline", required_argument, NULL, OPT_TIMELINE },
	{ "at", required_argument, NULL, OPT_AT },
	{ "mtu", required_argument, NULL, OPT_MTU },
	{ "sge", required_argument, NULL, OPT_SGE },
	{ "port", required_argument, NULL, 'p' },
	{ "wait", required_argument, NULL, OPT_WAIT },
	{ "idle-us", required_argument, NULL, OPT_IDLE },
	{ "ev-profile", required_argument, NULL, OPT_EV_PROFILE },
	{ "cc-profile", required_argument, NULL, OPT_CC_PROFILE },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int parse_opt(int c, const char *arg, struct perf_opts *o)
{
	static const char *const xports[] = { "", "mrc", "tcp", "both" };
	unsigned int v;
	int err = 0;

	switch (c) {
	case 't':
		err = parse_choice("--test", arg, test_names, 3, &v);
		o->test = (enum perf_test)v;
		break;
	case 's':
		o->size_set = true;
		return parse_u64("--size", arg, 1, PERF_MAX_SIZE_BYTES, true,
				 &o->size_bytes);
	case OPT_SWEEP:
		return parse_sweep(arg, o);
	case 'd':
		return parse_uint("--depth", arg, 1, PERF_MAX_DEPTH, &o->depth);
	case 'D':
		o->seconds_set = true;
		return parse_seconds("--seconds", arg, &o->seconds);
	case 'n':
		return parse_u64("--iters", arg, 1, 1ull << 40, false,
				 &o->iters);
	case 'q':
		return parse_uint("--qps", arg, 1, PERF_MAX_QPS, &o->qps);
	case OPT_VERIFY:
		o->verify = true;
		break;
	case OPT_IMM:
		o->imm = true;
		break;
	case OPT_TRANSPORT:
		err = parse_choice("--transport", arg, xports, 4, &v);
		o->transport = v;
		break;
	case OPT_MPR:
		return parse_uint("--mpr", arg, 1, 255, &o->mpr);
	case OPT_TIMEOUT:
		return parse_uint("--timeout", arg, 0, 24, &o->timeout);
	case OPT_TIMELINE:
		o->timeline = arg;
		return 0;
	case OPT_AT:
		if (o->nat == TL_MAX_AT) {
			pr_err("--at: at most %d", TL_MAX_AT);
			return -EINVAL;
		}
		o->at[o->nat++] = arg;
		return 0;
	case OPT_RETRY:
		return parse_retry(arg, o);
	case OPT_MTU:
		err = parse_uint("--mtu", arg, 256, 4096, &o->mtu_bytes);
		if (!err && (o->mtu_bytes & (o->mtu_bytes - 1)))
			err = bad_value("--mtu", arg, "a power of 2");
		break;
	case OPT_EV_PROFILE:
		return parse_uint("--ev-profile", arg, 0, 63, &o->ev_profile);
	case OPT_CC_PROFILE:
		return parse_uint("--cc-profile", arg, 0, 15, &o->cc_profile);
	case OPT_SGE:
		return parse_uint("--sge", arg, 1, PERF_MAX_SGE, &o->sge);
	case 'p':
		o->port = arg;
		break;
	case OPT_WAIT:
		return parse_seconds("--wait", arg, &o->wait_s);
	case OPT_IDLE:
		o->idle_set = true;
		return parse_uint("--idle-us", arg, 0, 100000, &o->idle_us);
	case 'j':
		o->json = true;
		break;
	default:
		return -EINVAL;
	}
	return err;
}

/* Options that make no sense together, and defaults that depend on --test. */
static int check_opts(struct perf_opts *o)
{
	if (!o->size_set)
		o->size_bytes = o->test == TEST_BW   ? 1 << 20 :
				o->test == TEST_RATE ? 64 :
						       8;
	/* Latency is measured spinning, as on a hardware NIC (and TCP's
	 * ping-pong spins on its socket too): a sleep is a timer's latency. */
	if (!o->idle_set && o->test == TEST_LAT)
		o->idle_us = 0;
	if ((o->timeline || o->nat) &&
	    (o->test != TEST_BW || o->sweep || o->server)) {
		pr_err("--timeline and --at are for one --test bw row (no --sweep)");
		return -EINVAL;
	}
	if (o->transport & XPORT_TCP && o->test != TEST_LAT) {
		pr_err("--transport tcp is only for --test lat");
		return -EINVAL;
	}
	if (o->verify && o->test == TEST_LAT) {
		pr_err("--verify works with --test bw and rate, not lat");
		return -EINVAL;
	}
	if (o->imm && o->test != TEST_BW) {
		pr_err("--imm is for --test bw (rate and lat always use it)");
		return -EINVAL;
	}
	if (o->sweep && o->sweep_max_bytes / o->sweep_min_bytes > (1ull << 40))
		return -EINVAL;
	if ((o->sweep ? o->sweep_min_bytes : o->size_bytes) < o->sge) {
		pr_err("--sge %u needs messages of at least %u bytes", o->sge,
		       o->sge);
		return -EINVAL;
	}
	if (o->test == TEST_LAT &&
	    (o->sweep ? o->sweep_max_bytes : o->size_bytes) > (64u << 20)) {
		pr_err("--size is at most 64M for --test lat");
		return -EINVAL;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct perf_opts *o)
{
	int c, err;

	*o = (struct perf_opts){
		.port = PERF_PORT_DEFAULT,
		.transport = XPORT_MRC,
		.depth = PERF_MAX_DEPTH,
		.seconds = PERF_SECONDS_DEFAULT,
		.qps = 1,
		.timeout = 14,
		.retry_linear = 7,
		.retry_exp = 7,
		.sge = 1,
		.idle_us = PERF_IDLE_US_DEFAULT,
	};
	while ((c = getopt_long(argc, argv, "t:s:d:D:n:q:p:jh", long_opts,
				NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			exit(0);
		}
		if (c == '?') {
			fprintf(stderr, "Try 'mrc-perf --help'.\n");
			return -EINVAL;
		}
		err = parse_opt(c, optarg, o);
		if (err)
			return err;
	}
	if (optind >= argc) {
		pr_err("say 'server' or 'client HOST' (see --help)");
		return -EINVAL;
	}
	if (!strcmp(argv[optind], "server")) {
		o->server = true;
		o->host = optind + 1 < argc ? argv[optind + 1] : NULL;
		if (!o->wait_s)
			o->wait_s = 120;
		return optind + 2 < argc ? bad_value("server", argv[optind + 2],
						     "one listen address") :
					   0;
	}
	if (strcmp(argv[optind], "client")) {
		pr_err("unknown mode '%s': say 'server' or 'client HOST'",
		       argv[optind]);
		return -EINVAL;
	}
	if (optind + 2 != argc) {
		pr_err("client needs exactly one HOST");
		return -EINVAL;
	}
	o->host = argv[optind + 1];
	if (!o->wait_s)
		o->wait_s = 10;
	return check_opts(o);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct perf_opts o;

	if (parse_args(argc, argv, &o))
		return 2;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* Idle sleeps of a few microseconds, not the default 50 us slack. */
	prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
	setvbuf(stdout, NULL, _IOLBF, 0);
	return o.server ? server_main(&o) : client_main(&o);
}
