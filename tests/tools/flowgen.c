// SPDX-License-Identifier: GPL-2.0
/*
 * flowgen - multi-flow UDP traffic generator and sink for the netns test
 * fabric.
 *
 * "send" opens one connected UDP socket per flow. Flows differ only in their
 * source port, so they exercise per-flow hashing (ECMP, RSS, flow tables)
 * along the path. "recv" counts what arrives per source port, checks every
 * payload byte, detects duplicates, trimmed (truncated) packets and ECN CE
 * marks, and prints one JSON object for the shell tests to inspect with jq.
 *
 * Payload: a 16 byte header { magic "FLOW", flow index, sequence, size },
 * all in network order, then a byte pattern derived from (flow, seq, offset).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FLOW_MAGIC 0x464c4f57u /* "FLOW" */
#define HDR_LEN 16
#define MAX_PAYLOAD 8972 /* 9000 byte MTU - IPv4 - UDP headers */
#define SEQ_BITS_MAX (1u << 24) /* dedup bitmap cap per flow */
#define SEND_RETRIES 1000
#define RETRY_SLEEP_US 50
#define DRAIN_BATCH 256 /* recheck the clock this often */
#define NO_TOS ULONG_MAX /* --tos not given */

struct opt {
	const char *name;
	unsigned long min;
	unsigned long max;
	unsigned long *num; /* numeric option ... */
	const char **str; /* ... or string option */
};

#define NUM_OPT(n, lo, hi, p)                             \
	{                                                 \
		.name = n, .min = lo, .max = hi, .num = p \
	}
#define STR_OPT(n, p)               \
	{                           \
		.name = n, .str = p \
	}

struct port_stat {
	uint64_t unique;
	uint8_t *seen; /* bitmap of seen sequence numbers */
	uint32_t seen_bits; /* bitmap size, grown on demand */
};

/* receiver counters; ports[] is indexed by UDP source port */
static struct port_stat ports[65536];
static uint64_t n_recv, n_unique, n_dup, n_corrupt, n_trunc, n_ce;

enum { PKT_OK, PKT_CORRUPT, PKT_TRUNCATED };

static const char usage_text[] =
	"usage: flowgen send --dst ADDR [options]\n"
	"       flowgen recv [options]\n"
	"\n"
	"send options:\n"
	"  --dst ADDR        destination IPv4 or IPv6 address (required)\n"
	"  --port N          destination UDP port (default 9000)\n"
	"  --sport-base N    source port of flow 0; flow i uses base + i\n"
	"                    (default 20000)\n"
	"  --flows N         number of flows, 1..4096 (default 64)\n"
	"  --packets N       packets per flow, 1..10000000 (default 100)\n"
	"  --size N          UDP payload bytes, 16..8972 (default 64)\n"
	"  --interval-us N   sleep between rounds (default 0)\n"
	"  --src ADDR        local address to bind (default any)\n"
	"  --tos N           IP TOS / IPv6 traffic class, 0..255 (default unset)\n"
	"  --timeout-ms N    stop sending after this long (default 10000)\n"
	"\n"
	"recv options:\n"
	"  --port N          UDP port to listen on (default 9000)\n"
	"  --bind ADDR       local address (default any, IPv4 and IPv6)\n"
	"  --timeout-ms N    total run time bound (default 5000)\n"
	"  --idle-ms N       stop when idle this long after the first packet,\n"
	"                    0 disables (default 1000)\n"
	"  --expect N        stop after N valid packets, 0 = never (default 0)\n"
	"  --rcvbuf BYTES    socket receive buffer (default 8388608)\n"
	"\n"
	"Both commands print one JSON object with their counters on stdout.\n";

static volatile sig_atomic_t stop;

static void __attribute__((noreturn, format(printf, 1, 2)))
usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("flowgen: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\ntry 'flowgen --help'\n", stderr);
	exit(2);
}

/* Print "flowgen: <what>: <strerror>" and return -err. */
static int __attribute__((format(printf, 2, 3)))
fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("flowgen: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
	return -err;
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void parse_opts(int argc, char **argv, const struct opt *opts)
{
	for (int i = 0; i < argc; i += 2) {
		const struct opt *o;
		const char *val;
		unsigned long v;
		char *end;

		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			exit(0);
		}
		for (o = opts; o->name; o++)
			if (!strcmp(argv[i], o->name))
				break;
		if (!o->name)
			usage_error("unknown option '%s'", argv[i]);
		if (i + 1 >= argc)
			usage_error("option '%s' needs a value", argv[i]);
		val = argv[i + 1];
		if (o->str) {
			*o->str = val;
			continue;
		}
		errno = 0;
		v = strtoul(val, &end, 10);
		/* strtoul() takes "-1" and " 1" too: insist on plain digits */
		if (val[0] < '0' || val[0] > '9' || *end)
			usage_error("%s: '%s' is not a number", o->name, val);
		if (errno == ERANGE || v < o->min || v > o->max)
			usage_error("%s: %s out of range %lu..%lu", o->name,
				    val, o->min, o->max);
		*o->num = v;
	}
}

/* UDP port field (network order) of an AF_INET or AF_INET6 address */
static in_port_t *port_of(struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return &((struct sockaddr_in *)ss)->sin_port;
	return &((struct sockaddr_in6 *)ss)->sin6_port;
}

/* A bad address is a usage error, so this exits instead of returning. */
static void resolve(const char *opt, const char *host, int family,
		    struct sockaddr_storage *ss, socklen_t *len)
{
	struct addrinfo hints = {
		.ai_family = family,
		.ai_socktype = SOCK_DGRAM,
		/* numeric only: no DNS lookups from inside test namespaces */
		.ai_flags = AI_NUMERICHOST,
	};
	struct addrinfo *ai;
	int ret;

	ret = getaddrinfo(host, NULL, &hints, &ai);
	if (ret)
		usage_error("%s: bad address '%s': %s", opt, host,
			    gai_strerror(ret));
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
}

static uint8_t pat_byte(uint32_t flow, uint32_t seq, uint32_t off)
{
	return (flow * 131 + seq * 7 + off) & 0xff;
}

static void build_payload(uint8_t *buf, uint32_t flow, uint32_t seq,
			  uint32_t size)
{
	uint32_t hdr[4] = { htonl(FLOW_MAGIC), htonl(flow), htonl(seq),
			    htonl(size) };

	memcpy(buf, hdr, HDR_LEN);
	for (uint32_t off = HDR_LEN; off < size; off++)
		buf[off] = pat_byte(flow, seq, off);
}

/* Returns a socket bound to local:sport and connected to dst, or -errno. */
static int open_flow(struct sockaddr_storage *local, socklen_t llen,
		     const struct sockaddr_storage *dst, socklen_t dlen,
		     uint16_t sport, unsigned long tos)
{
	bool v4 = dst->ss_family == AF_INET;
	int fd, ret, val = (int)tos;
	const char *what;

	fd = socket(dst->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(errno, "socket");
	*port_of(local) = htons(sport);
	if (tos != NO_TOS &&
	    setsockopt(fd, v4 ? IPPROTO_IP : IPPROTO_IPV6,
		       v4 ? IP_TOS : IPV6_TCLASS, &val, sizeof(val)))
		what = v4 ? "setsockopt IP_TOS" : "setsockopt IPV6_TCLASS";
	else if (bind(fd, (struct sockaddr *)local, llen))
		what = "bind";
	else if (connect(fd, (const struct sockaddr *)dst, dlen))
		what = "connect";
	else
		return fd;
	ret = fail(errno, "%s (source port %u)", what, (unsigned int)sport);
	close(fd);
	return ret;
}

/* Returns 0 once sent, -errno when giving up. */
static int send_retry(int fd, const void *buf, size_t len, uint64_t deadline)
{
	for (int tries = 0;; tries++) {
		ssize_t n = send(fd, buf, len, MSG_DONTWAIT);
		int err = n < 0 ? errno : EMSGSIZE;

		if (n == (ssize_t)len)
			return 0;
		/*
		 * Transient: socket or qdisc buffers full, or ECONNREFUSED
		 * reporting an ICMP error for an earlier packet (this one was
		 * not sent). MSG_DONTWAIT keeps the deadline enforceable.
		 */
		if (err != ENOBUFS && err != EAGAIN && err != ECONNREFUSED &&
		    err != EINTR)
			return -err;
		if (tries >= SEND_RETRIES || now_us() >= deadline)
			return -err;
		usleep(RETRY_SLEEP_US);
	}
}

static int cmd_send(int argc, char **argv)
{
	unsigned long port = 9000, sport_base = 20000, flows = 64;
	unsigned long packets = 100, size = 64, interval_us = 0;
	unsigned long tos = NO_TOS, timeout_ms = 10000;
	const char *dst = NULL, *src = NULL;
	const struct opt opts[] = {
		STR_OPT("--dst", &dst),
		STR_OPT("--src", &src),
		NUM_OPT("--port", 1, 65535, &port),
		NUM_OPT("--sport-base", 1, 65535, &sport_base),
		NUM_OPT("--flows", 1, 4096, &flows),
		NUM_OPT("--packets", 1, 10000000, &packets),
		NUM_OPT("--size", HDR_LEN, MAX_PAYLOAD, &size),
		NUM_OPT("--interval-us", 0, 10000000, &interval_us),
		NUM_OPT("--tos", 0, 255, &tos),
		NUM_OPT("--timeout-ms", 1, 86400000, &timeout_ms),
		{ .name = NULL },
	};
	static uint8_t buf[MAX_PAYLOAD];
	struct sockaddr_storage remote, local;
	uint64_t sent = 0, errors = 0, start, deadline;
	socklen_t rlen, llen;
	bool timed_out = false;
	int *fds, ret = 0;
	uint32_t i, r;

	parse_opts(argc, argv, opts);
	if (!dst)
		usage_error("send: --dst is required");
	if (sport_base + flows - 1 > 65535)
		usage_error("--sport-base: %lu + %lu flows exceeds port 65535",
			    sport_base, flows);
	resolve("--dst", dst, AF_UNSPEC, &remote, &rlen);
	*port_of(&remote) = htons(port);
	if (src) {
		resolve("--src", src, remote.ss_family, &local, &llen);
	} else {
		memset(&local, 0, sizeof(local));
		local.ss_family = remote.ss_family;
		llen = remote.ss_family == AF_INET ?
			       sizeof(struct sockaddr_in) :
			       sizeof(struct sockaddr_in6);
	}

	fds = malloc(flows * sizeof(*fds));
	if (!fds)
		return fail(ENOMEM, "malloc");
	for (i = 0; i < flows; i++)
		fds[i] = -1;
	for (i = 0; i < flows; i++) {
		fds[i] = open_flow(&local, llen, &remote, rlen, sport_base + i,
				   tos);
		if (fds[i] < 0) {
			ret = fds[i];
			goto out;
		}
	}

	start = now_us();
	deadline = start + timeout_ms * 1000;
	/* Round-robin: round r sends sequence r once on every flow. */
	for (r = 0; r < packets && !timed_out; r++) {
		for (i = 0; i < flows; i++) {
			if (now_us() >= deadline) {
				timed_out = true;
				break;
			}
			build_payload(buf, i, r, size);
			ret = send_retry(fds[i], buf, size, deadline);
			if (!ret) {
				sent++;
				continue;
			}
			/* report only the first error to keep stderr short */
			if (!errors++)
				fail(-ret, "send flow %u seq %u", i, r);
		}
		if (interval_us && r + 1 < packets && !timed_out) {
			uint64_t now = now_us();

			if (now < deadline)
				usleep(deadline - now < interval_us ?
					       deadline - now :
					       interval_us);
		}
	}
	ret = 0;
	if (timed_out)
		fprintf(stderr, "flowgen: send: timeout after %lu ms\n",
			timeout_ms);
	printf("{\"sent_packets\": %" PRIu64 ", \"send_errors\": %" PRIu64
	       ", \"flows\": %lu, \"duration_us\": %" PRIu64 "}\n",
	       sent, errors, flows, now_us() - start);
out:
	for (i = 0; i < flows; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
	return ret;
}

static int open_sink(const char *bind_addr, unsigned long port,
		     unsigned long rcvbuf)
{
	/* zeroed AF_INET6 storage is in6addr_any */
	struct sockaddr_storage ss = { .ss_family = AF_INET6 };
	socklen_t len = sizeof(struct sockaddr_in6);
	int fd, ret, one = 1, zero = 0, val = (int)rcvbuf;
	const char *what;

	if (bind_addr)
		resolve("--bind", bind_addr, AF_UNSPEC, &ss, &len);
	*port_of(&ss) = htons(port);

	fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fail(errno, "socket");
	/*
	 * One wildcard socket serves IPv4 (v4-mapped) and IPv6.
	 * SO_RCVBUFFORCE needs CAP_NET_ADMIN; SO_RCVBUF is capped by rmem_max.
	 * IP_RECVTOS also covers v4-mapped traffic on an AF_INET6 socket.
	 */
	if (!bind_addr &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)))
		what = "setsockopt IPV6_V6ONLY";
	else if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &val,
			    sizeof(val)) &&
		 setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &val, sizeof(val)))
		what = "setsockopt SO_RCVBUF";
	else if (setsockopt(fd, IPPROTO_IP, IP_RECVTOS, &one, sizeof(one)))
		what = "setsockopt IP_RECVTOS";
	else if (ss.ss_family == AF_INET6 &&
		 setsockopt(fd, IPPROTO_IPV6, IPV6_RECVTCLASS, &one,
			    sizeof(one)))
		what = "setsockopt IPV6_RECVTCLASS";
	else if (bind(fd, (struct sockaddr *)&ss, len))
		what = "bind";
	else
		return fd;
	ret = fail(errno, "%s (port %lu)", what, port);
	close(fd);
	return ret;
}

static int check_packet(const uint8_t *buf, size_t len, uint32_t *seq)
{
	uint32_t hdr[4], flow, size;

	if (len < HDR_LEN)
		return PKT_CORRUPT;
	memcpy(hdr, buf, HDR_LEN);
	flow = ntohl(hdr[1]);
	*seq = ntohl(hdr[2]);
	size = ntohl(hdr[3]);
	if (ntohl(hdr[0]) != FLOW_MAGIC || size < HDR_LEN || size > MAX_PAYLOAD)
		return PKT_CORRUPT;
	/* the fabric may trim payloads: short but sane is not corrupt */
	if (len < size)
		return PKT_TRUNCATED;
	if (len > size)
		return PKT_CORRUPT;
	for (uint32_t off = HDR_LEN; off < size; off++)
		if (buf[off] != pat_byte(flow, *seq, off))
			return PKT_CORRUPT;
	return PKT_OK;
}

/* Returns 1 if seq is new for this flow, 0 if a duplicate, or -ENOMEM. */
static int mark_seen(struct port_stat *ps, uint32_t seq)
{
	if (seq >= SEQ_BITS_MAX)
		return 1; /* beyond the cap: counted, not dedup-checked */
	if (seq >= ps->seen_bits) {
		uint32_t bits = ps->seen_bits ? ps->seen_bits : 4096;
		uint8_t *p;

		while (bits <= seq)
			bits *= 2;
		p = realloc(ps->seen, bits / 8);
		if (!p)
			return -ENOMEM;
		memset(p + ps->seen_bits / 8, 0, (bits - ps->seen_bits) / 8);
		ps->seen = p;
		ps->seen_bits = bits;
	}
	if (ps->seen[seq / 8] & (1u << (seq % 8)))
		return 0;
	ps->seen[seq / 8] |= 1u << (seq % 8);
	return 1;
}

/* TOS / traffic class from the control message, or -1 if none. */
static int get_tos(struct msghdr *msg)
{
	struct cmsghdr *cm;
	int tclass;

	for (cm = CMSG_FIRSTHDR(msg); cm; cm = CMSG_NXTHDR(msg, cm)) {
		if (cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_TOS)
			return *CMSG_DATA(cm);
		if (cm->cmsg_level == IPPROTO_IPV6 &&
		    cm->cmsg_type == IPV6_TCLASS) {
			memcpy(&tclass, CMSG_DATA(cm), sizeof(tclass));
			return tclass & 0xff;
		}
	}
	return -1;
}

/* Read one datagram; returns 1 if one was handled, 0 if none, or -errno. */
static int recv_one(int fd)
{
	static uint8_t buf[65536]; /* any UDP datagram fits */
	union {
		char buf[2 * CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctrl;
	struct sockaddr_storage from;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr msg = {
		.msg_name = &from,
		.msg_namelen = sizeof(from),
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctrl.buf,
		.msg_controllen = sizeof(ctrl.buf),
	};
	struct port_stat *ps;
	uint32_t seq = 0;
	ssize_t n;
	int ret;

	n = recvmsg(fd, &msg, MSG_DONTWAIT);
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return 0;
		return fail(errno, "recvmsg");
	}
	/* CE is counted over every datagram, whatever its payload */
	ret = get_tos(&msg);
	if (ret >= 0 && (ret & 3) == 3)
		n_ce++;

	switch (check_packet(buf, n, &seq)) {
	case PKT_CORRUPT:
		n_corrupt++;
		return 1;
	case PKT_TRUNCATED:
		n_trunc++;
		return 1;
	}
	n_recv++;
	ps = &ports[ntohs(*port_of(&from))];
	ret = mark_seen(ps, seq);
	if (ret < 0)
		return fail(-ret, "bitmap");
	if (ret) {
		ps->unique++;
		n_unique++;
	} else {
		n_dup++;
	}
	return 1;
}

static void print_recv(uint64_t duration)
{
	const char *sep = "";

	printf("{\"received_packets\": %" PRIu64
	       ", \"unique_packets\": %" PRIu64
	       ", \"duplicate_packets\": %" PRIu64
	       ", \"corrupt_packets\": %" PRIu64
	       ", \"truncated_packets\": %" PRIu64
	       ", \"ecn_ce_packets\": %" PRIu64 ", \"duration_us\": %" PRIu64
	       ", \"flows\": {",
	       n_recv, n_unique, n_dup, n_corrupt, n_trunc, n_ce, duration);
	for (unsigned int port = 0; port < 65536; port++) {
		if (!ports[port].unique)
			continue;
		printf("%s\"%u\": %" PRIu64, sep, port, ports[port].unique);
		sep = ", ";
	}
	printf("}}\n");
}

static int cmd_recv(int argc, char **argv)
{
	unsigned long port = 9000, timeout_ms = 5000, idle_ms = 1000;
	unsigned long expect = 0, rcvbuf = 8 << 20;
	const char *bind_addr = NULL;
	const struct opt opts[] = {
		STR_OPT("--bind", &bind_addr),
		NUM_OPT("--port", 1, 65535, &port),
		NUM_OPT("--timeout-ms", 1, 86400000, &timeout_ms),
		NUM_OPT("--idle-ms", 0, 86400000, &idle_ms),
		NUM_OPT("--expect", 0, ULONG_MAX, &expect),
		NUM_OPT("--rcvbuf", 4096, 1 << 30, &rcvbuf),
		{ .name = NULL },
	};
	struct sigaction sa = { .sa_handler = on_signal };
	uint64_t start, deadline, last = 0, now, wait;
	int fd, ret;

	parse_opts(argc, argv, opts);
	fd = open_sink(bind_addr, port, rcvbuf);
	if (fd < 0)
		return fd;
	/* no SA_RESTART: a signal ends poll() and we still print results */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	start = now_us();
	deadline = start + timeout_ms * 1000;
	while (!stop && !(expect && n_recv >= expect)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };

		now = now_us();
		if (now >= deadline)
			break;
		wait = deadline - now;
		if (last && idle_ms) {
			if (now >= last + idle_ms * 1000)
				break;
			if (last + idle_ms * 1000 - now < wait)
				wait = last + idle_ms * 1000 - now;
		}
		ret = poll(&pfd, 1, (int)((wait + 999) / 1000));
		if (ret < 0 && errno != EINTR) {
			ret = fail(errno, "poll");
			goto out;
		}
		if (ret <= 0)
			continue;
		/* drain in bounded batches so a flood can't starve the clock */
		for (int i = 0; i < DRAIN_BATCH; i++) {
			ret = recv_one(fd);
			if (ret < 0)
				goto out;
			if (!ret)
				break;
			last = now_us();
			if (expect && n_recv >= expect)
				break;
		}
	}
	ret = 0;
	print_recv(now_us() - start);
out:
	/* the seq bitmaps stay reachable from ports[] and die with us */
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	int ret;

	if (argc < 2) {
		fputs(usage_text, stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "send"))
		ret = cmd_send(argc - 2, argv + 2);
	else if (!strcmp(argv[1], "recv"))
		ret = cmd_recv(argc - 2, argv + 2);
	else
		usage_error("unknown command '%s'", argv[1]);
	return ret ? 1 : 0;
}
