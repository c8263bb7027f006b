// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_rc: a transfer written as programs for vendor MRC libraries are,
 * the RC way, for tests/system/140-drop-in.sh. It uses only the public
 * headers and builds against either API version (-DMRC_API_VER_USED=...):
 *
 *   mrc_rc -d DEV [-i PORT] [-g GID_INDEX] [-p TCP_PORT] [-s BYTES] [-e]
 *   mrc_rc -d DEV ... SERVER_ADDRESS
 *
 * What makes it "the RC way": the API version is a small constant
 * (MRC_PROTOCOL_VERSION_1), the GID is picked by index (3, as perftest
 * does), INIT passes PKEY_INDEX | PORT | ACCESS_FLAGS and no MRC
 * attribute, RTR only the AV, destination QPN, RQ PSN and path MTU, RTS
 * SQ_PSN | RETRY_CNT | RNR_RETRY | TIMEOUT | MIN_RNR_TIMER. The client
 * WRITEs a pattern into the server's buffer, the last piece with an
 * immediate; the server checks every byte once the immediate arrives and
 * answers Y or N over the TCP connection both used to exchange QPs. Exit
 * 0 only for a byte-exact transfer. With -e both wait for completions the
 * event-driven way: a completion channel, mrc_req_notify_cq, and a
 * blocking mrc_get_cq_event (no timeout: a lost event hangs it).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <mrc.h>

#define IMM 0x600dda7au

struct wire {
	uint8_t gid[16];
	uint32_t qpn, psn, rkey, len;
	uint64_t addr;
};

struct opts {
	const char *dev, *server;
	int port, gid_index;
	unsigned int tcp_port;
	uint32_t len;
	int events; /* -e */
};

static unsigned int nevents; /* waits a completion event ended */

static int die(const char *what, int err)
{
	fprintf(stderr, "mrc_rc: %s: %s\n", what, strerror(err));
	exit(1);
}

static uint8_t pattern(uint32_t i)
{
	return (uint8_t)(i * 7 + (i >> 12));
}

/* Both ends' QP details over TCP; returns the connected socket. */
static int exchange(const struct opts *o, const struct wire *me,
		    struct wire *peer)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	char port[16];
	int fd, one = 1;

	snprintf(port, sizeof(port), "%u", o->tcp_port);
	if (o->server) {
		if (getaddrinfo(o->server, port, &hints, &ai))
			die("getaddrinfo", EINVAL);
		fd = socket(ai->ai_family, SOCK_STREAM, 0);
		for (int i = 0; i < 100; i++) {
			if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
				break;
			usleep(100000);
			if (i == 99)
				die("connect", errno);
		}
		freeaddrinfo(ai);
	} else {
		struct sockaddr_in6 sa = { .sin6_family = AF_INET6,
					   .sin6_port = htons(o->tcp_port) };
		int l = socket(AF_INET6, SOCK_STREAM, 0);

		setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(l, (struct sockaddr *)&sa, sizeof(sa)) || listen(l, 1))
			die("listen", errno);
		fd = accept(l, NULL, NULL);
		if (fd < 0)
			die("accept", errno);
		close(l);
	}
	if (write(fd, me, sizeof(*me)) != sizeof(*me) ||
	    recv(fd, peer, sizeof(*peer), MSG_WAITALL) != sizeof(*peer))
		die("exchange", EPROTO);
	return fd;
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int n, i;

	list = ibv_get_device_list(&n);
	if (!list)
		die("ibv_get_device_list", errno);
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!ctx)
		die(name, ENODEV);
	return ctx;
}

static void modify(struct mrc_qp *qp, struct ibv_qp_attr *v, int mask,
		   const char *step)
{
	/* No MRC attributes: what they are not given, the library fills. */
	int err = mrc_modify_qp(qp, v, mask, NULL, 0);

	if (err)
		die(step, err);
}

/*
 * The next completion of cq. With a channel, the event-driven way: poll;
 * none, arm, poll again (what completed before the arm); none, sleep
 * until the channel's event. Returns mrc_poll_cq's count (1), or < 0.
 */
static int next_wc(struct mrc_comp_channel *ch, struct mrc_cq *cq,
		   struct ibv_wc *wc)
{
	for (;;) {
		struct mrc_cq *ev_cq;
		void *ctx;
		int n = mrc_poll_cq(cq, 1, wc);

		if (n || !ch)
			return n;
		if (mrc_req_notify_cq(cq, 0))
			die("mrc_req_notify_cq", errno);
		n = mrc_poll_cq(cq, 1, wc);
		if (n)
			return n;
		if (mrc_get_cq_event(ch, &ev_cq, &ctx))
			die("mrc_get_cq_event", errno);
		mrc_ack_cq_events(ev_cq, 1);
		nevents++;
	}
}

static void run(const struct opts *o)
{
	struct mrc_context_attr ca = { .mrc_api_version_used =
					       MRC_PROTOCOL_VERSION_1 };
	struct mrc_qp_init_attr qa = { .cap = { .max_send_wr = 16,
						.max_recv_wr = 4,
						.max_send_sge = 1,
						.max_recv_sge = 1 } };
	struct ibv_context *vctx = open_dev(o->dev);
	struct wire me = { .psn = (uint32_t)getpid() & 0xffffff,
			   .len = o->len },
		    peer;
	struct ibv_qp_attr v;
	struct mrc_comp_channel *ch = NULL;
	struct mrc_context *mctx;
	struct ibv_mr *mr;
	struct mrc_qp *qp;
	struct ibv_wc wc;
	union ibv_gid gid;
	uint8_t *buf;
	int supported = 0, fd, n;
	char verdict = 'N';

#if MRC_API_VER_USED >= MRC_API_VER(1, 0, 1)
	struct mrc_device_attr da;
	uint32_t cur = 0, last = 0;

	mrc_query_version(&cur, &last, NULL, NULL);
	mctx = mrc_create_context(vctx, &ca);
	if (!mctx)
		die("mrc_create_context", errno);
	/* 1.0.1: the device is named by its MRC context. */
	if (mrc_query_device(mctx, &da, &supported) || !supported)
		die("mrc_query_device", ENOTSUP);
	printf("api 1.0.1 (library %#x, oldest %#x)", cur, last);
#else
	/* 1.0.0, and an earlier draft's name for the attributes. */
	struct mrc_attr da;

	if (mrc_query_device(vctx, &da, &supported) || !supported)
		die("mrc_query_device", ENOTSUP);
	mctx = mrc_create_context(vctx, &ca);
	if (!mctx)
		die("mrc_create_context", errno);
	printf("api 1.0.0");
#endif
	printf(", max_mpr %u, gid index %d", da.mpr_attr.max_mpr, o->gid_index);
	if (ibv_query_gid(vctx, (uint8_t)o->port, o->gid_index, &gid))
		die("ibv_query_gid", errno);
#if MRC_API_VER_USED >= MRC_API_VER(1, 0, 1)
	{
		struct ibv_gid_entry e;

		/* What a RoCE program checks before it trusts the index. */
		if (ibv_query_gid_ex(vctx, (uint32_t)o->port,
				     (uint32_t)o->gid_index, &e, 0))
			die("ibv_query_gid_ex", EINVAL);
		printf(", %s", e.gid_type == IBV_GID_TYPE_ROCE_V2 ? "RoCE v2" :
								    "RoCE v1");
	}
#endif
	printf("\n");
	memcpy(me.gid, gid.raw, 16);
	qa.pd = ibv_alloc_pd(vctx);
	if (o->events && mrc_create_comp_channel(mctx, &ch))
		die("mrc_create_comp_channel", errno);
	qa.send_cq = mrc_create_cq(mctx, 16, NULL, ch, 0);
	qa.recv_cq = mrc_create_cq(mctx, 16, NULL, ch, 0);
	if (!qa.pd || !qa.send_cq || !qa.recv_cq)
		die("PD and CQs", errno);
	qa.sq_sig_all = 1;
	qp = mrc_create_qp(mctx, &qa);
	if (!qp || mrc_get_qpn(qp, &me.qpn))
		die("mrc_create_qp", errno);
	buf = mmap(NULL, o->len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		die("mmap", errno);
	for (uint32_t i = 0; o->server && i < o->len; i++)
		buf[i] = pattern(i);
	mr = ibv_reg_mr(qa.pd, buf, o->len,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!mr)
		die("ibv_reg_mr", errno);
	me.rkey = mr->rkey;
	me.addr = (uintptr_t)buf;

	v = (struct ibv_qp_attr){ .qp_state = IBV_QPS_INIT,
				  .pkey_index = 0,
				  .port_num = (uint8_t)o->port,
				  .qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
						     IBV_ACCESS_REMOTE_WRITE };
	modify(qp, &v,
	       IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		       IBV_QP_ACCESS_FLAGS,
	       "INIT");
	if (!o->server) {
		struct ibv_recv_wr rwr = { .wr_id = 1 }, *bad;

		if (mrc_post_recv(qp, &rwr, &bad))
			die("mrc_post_recv", errno);
	}
	fd = exchange(o, &me, &peer);

	v = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTR,
				  .path_mtu = IBV_MTU_4096,
				  .dest_qp_num = peer.qpn,
				  .rq_psn = peer.psn };
	v.ah_attr.is_global = 1;
	v.ah_attr.port_num = (uint8_t)o->port;
	v.ah_attr.grh.sgid_index = (uint8_t)o->gid_index;
	v.ah_attr.grh.hop_limit = 64;
	memcpy(v.ah_attr.grh.dgid.raw, peer.gid, 16);
	modify(qp, &v,
	       IBV_QP_STATE | IBV_QP_AV | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		       IBV_QP_PATH_MTU,
	       "RTR");
	v = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTS,
				  .sq_psn = me.psn,
				  .timeout = 14,
				  .retry_cnt = 7,
				  .rnr_retry = 7,
				  .min_rnr_timer = 12 };
	modify(qp, &v,
	       IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_RETRY_CNT |
		       IBV_QP_RNR_RETRY | IBV_QP_TIMEOUT | IBV_QP_MIN_RNR_TIMER,
	       "RTS");

	if (o->server) {
		/* The body, then its last 4 KiB with the immediate. */
		uint32_t tail = o->len > 4096 ? 4096 : o->len;
		struct ibv_sge s[2] = {
			{ (uintptr_t)buf, o->len - tail, mr->lkey },
			{ (uintptr_t)buf + o->len - tail, tail, mr->lkey },
		};
		struct ibv_send_wr w[2] = {
			{ .wr_id = 1,
			  .next = &w[1],
			  .sg_list = &s[0],
			  .num_sge = 1,
			  .opcode = IBV_WR_RDMA_WRITE },
			{ .wr_id = 2,
			  .sg_list = &s[1],
			  .num_sge = 1,
			  .opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
			  .imm_data = htonl(IMM) },
		}, *bad;

		if (peer.len < o->len)
			die("the server's buffer is smaller", EMSGSIZE);
		w[0].wr.rdma.remote_addr = peer.addr;
		w[0].wr.rdma.rkey = peer.rkey;
		w[1].wr.rdma.remote_addr = peer.addr + o->len - tail;
		w[1].wr.rdma.rkey = peer.rkey;
		if (mrc_post_send(qp, &w[0], &bad))
			die("mrc_post_send", errno);
		for (int got = 0; got < 2;) {
			n = next_wc(ch, qa.send_cq, &wc);
			if (n < 0)
				die("mrc_poll_cq", errno);
			if (n && wc.status != IBV_WC_SUCCESS) {
				fprintf(stderr, "mrc_rc: WR %llu: status %d\n",
					(unsigned long long)wc.wr_id,
					wc.status);
				exit(1);
			}
			got += n;
		}
		if (recv(fd, &verdict, 1, MSG_WAITALL) != 1)
			die("verdict", EPROTO);
		printf("wrote %u bytes: server says %c", o->len, verdict);
		if (ch)
			printf(" (%u completion events)", nevents);
		printf("\n");
	} else {
		uint32_t bad = 0, first = 0;

		do
			n = next_wc(ch, qa.recv_cq, &wc);
		while (!n);
		if (n < 0 || wc.status != IBV_WC_SUCCESS ||
		    wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM ||
		    ntohl(wc.imm_data) != IMM)
			die("the WRITE_IMM's completion", EIO);
		for (uint32_t i = o->len; i--;)
			if (buf[i] != pattern(i)) {
				bad++;
				first = i;
			}
		verdict = bad ? 'N' : 'Y';
		printf("received %u bytes: %u wrong%s", o->len, bad,
		       bad ? "" : ", byte-exact");
		if (bad)
			printf(" (first at %u)", first);
		if (ch)
			printf(" (%u completion events)", nevents);
		printf("\n");
		if (write(fd, &verdict, 1) != 1)
			die("verdict", EPIPE);
	}
	close(fd);
	mrc_destroy_qp(qp);
	ibv_dereg_mr(mr);
	mrc_destroy_cq(qa.send_cq);
	mrc_destroy_cq(qa.recv_cq);
	if (ch)
		mrc_destroy_comp_channel(ch);
	ibv_dealloc_pd(qa.pd);
	mrc_destroy_context(mctx);
	ibv_close_device(vctx);
	exit(verdict == 'Y' ? 0 : 1);
}

int main(int argc, char **argv)
{
	struct opts o = {
		.port = 1, .gid_index = 3, .tcp_port = 18515, .len = 1 << 20
	};
	int c;

	while ((c = getopt(argc, argv, "d:i:g:p:s:e")) != -1) {
		switch (c) {
		case 'e':
			o.events = 1;
			break;
		case 'd':
			o.dev = optarg;
			break;
		case 'i':
			o.port = atoi(optarg);
			break;
		case 'g':
			o.gid_index = atoi(optarg);
			break;
		case 'p':
			o.tcp_port = (unsigned int)atoi(optarg);
			break;
		case 's':
			o.len = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		default:
			return 2;
		}
	}
	if (optind < argc)
		o.server = argv[optind];
	if (!o.dev || !o.len) {
		fprintf(stderr,
			"usage: mrc_rc -d DEV [-i PORT] [-g GID] [-p TCP] [-s BYTES] [-e] [SERVER]\n");
		return 2;
	}
	run(&o);
	return 0;
}
