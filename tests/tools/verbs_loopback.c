// SPDX-License-Identifier: GPL-2.0
/*
 * A plain RC QP on the mrc device the way an NCCL net plugin opens one
 * beside its MRC QPs: ibv_create_cq, ibv_create_qp, ibv_modify_qp to a
 * peer on the same device (another QP, then the QP itself), then RDMA
 * WRITE and RDMA READ of the host's own registered memory, every byte
 * checked and every completion polled. Built `-libverbs -lmrc`, in that
 * order, so the verbs calls reach libmrc only through its rebinding.
 *
 *   verbs_loopback [-d DEV] [-s BYTES]
 *
 * Prints one line per transfer; exit 0 only when all were byte-exact.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mrc.h>

static void die(const char *what, int err)
{
	fprintf(stderr, "verbs_loopback: %s: %s\n", what, strerror(err));
	exit(1);
}

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	int n = 0, i;

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

static void connect_to(struct ibv_qp *qp, uint32_t dest, union ibv_gid *gid)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_WRITE,
	};
	int err;

	err = ibv_modify_qp(qp, &a,
			    IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				    IBV_QP_ACCESS_FLAGS);
	if (err)
		die("INIT", err);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = dest;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = 3;
	a.ah_attr.grh.hop_limit = 1;
	a.ah_attr.port_num = 1;
	err = ibv_modify_qp(qp, &a,
			    IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
				    IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				    IBV_QP_MAX_DEST_RD_ATOMIC |
				    IBV_QP_MIN_RNR_TIMER);
	if (err)
		die("RTR", err);
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	err = ibv_modify_qp(qp, &a,
			    IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
				    IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
				    IBV_QP_MAX_QP_RD_ATOMIC);
	if (err)
		die("RTS", err);
}

/* One signaled WR from qp, and its completion: the status. */
static int transfer(struct ibv_qp *qp, struct ibv_cq *cq, enum ibv_wr_opcode op,
		    struct ibv_mr *l, struct ibv_mr *r, size_t len)
{
	struct ibv_sge s = { .addr = (uintptr_t)l->addr,
			     .length = (uint32_t)len,
			     .lkey = l->lkey };
	struct ibv_send_wr wr = { .wr_id = op,
				  .sg_list = &s,
				  .num_sge = 1,
				  .opcode = op,
				  .send_flags = IBV_SEND_SIGNALED },
			   *bad;
	struct ibv_wc wc;
	int err, n, tries = 0;

	wr.wr.rdma.remote_addr = (uintptr_t)r->addr;
	wr.wr.rdma.rkey = r->rkey;
	err = ibv_post_send(qp, &wr, &bad);
	if (err)
		die("ibv_post_send", err);
	while (!(n = ibv_poll_cq(cq, 1, &wc)) && ++tries < 1000000)
		;
	if (n != 1)
		die("ibv_poll_cq", n < 0 ? EIO : ETIMEDOUT);
	if (wc.status != IBV_WC_SUCCESS || wc.wr_id != (uint64_t)op) {
		fprintf(stderr, "verbs_loopback: completion: %s\n",
			ibv_wc_status_str(wc.status));
		exit(1);
	}
	return 0;
}

static uint8_t *buffer(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, len))
		die("posix_memalign", ENOMEM);
	return p;
}

static int check(const char *what, const uint8_t *got, const uint8_t *want,
		 size_t len)
{
	size_t i, wrong = 0;

	for (i = 0; i < len; i++)
		wrong += got[i] != want[i];
	printf("%s %zu bytes: %zu wrong%s\n", what, len, wrong,
	       wrong ? "" : ", byte-exact");
	return wrong != 0;
}

int main(int argc, char **argv)
{
	const char *dev = "mrc0";
	size_t len = 1 << 20, i;
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 8,
						.max_recv_wr = 1,
						.max_send_sge = 1,
						.max_recv_sge = 1 } };
	struct ibv_mr *msrc, *mdst, *mback;
	struct mrc_device_attr mattr;
	uint8_t *src, *dst, *back;
	struct ibv_context *ctx;
	struct ibv_qp *a, *b, *self;
	union ibv_gid gid;
	struct ibv_cq *cq;
	struct ibv_pd *pd;
	int c, supported = 0, bad = 0;
	unsigned int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			      IBV_ACCESS_REMOTE_WRITE;

	while ((c = getopt(argc, argv, "d:s:")) != -1) {
		if (c == 'd')
			dev = optarg;
		else if (c == 's')
			len = strtoul(optarg, NULL, 0);
		else
			return 2;
	}
	ctx = open_dev(dev);
	if (mrc_query_device(ctx, &mattr, &supported) || !supported)
		die("mrc_query_device: no MRC device", ENODEV);
	if (ibv_fork_init())
		die("ibv_fork_init", errno);
	if (ibv_query_gid(ctx, 1, 3, &gid))
		die("ibv_query_gid", errno);
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		die("ibv_alloc_pd", errno);
	src = buffer(len);
	dst = buffer(len);
	back = buffer(len);
	for (i = 0; i < len; i++)
		src[i] = (uint8_t)(i * 131 + (i >> 12));
	memset(dst, 0, len);
	memset(back, 0, len);
	msrc = ibv_reg_mr(pd, src, len, access);
	mdst = ibv_reg_mr(pd, dst, len, access);
	mback = ibv_reg_mr(pd, back, len, access);
	if (!msrc || !mdst || !mback)
		die("ibv_reg_mr", errno);
	cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	if (!cq)
		die("ibv_create_cq", errno);
	qa.send_cq = qa.recv_cq = cq;
	a = ibv_create_qp(pd, &qa);
	b = ibv_create_qp(pd, &qa);
	self = ibv_create_qp(pd, &qa);
	if (!a || !b || !self)
		die("ibv_create_qp", errno);
	connect_to(a, b->qp_num, &gid);
	connect_to(b, a->qp_num, &gid);
	connect_to(self, self->qp_num, &gid);

	transfer(a, cq, IBV_WR_RDMA_WRITE, msrc, mdst, len);
	bad |= check("WRITE qp->peer", dst, src, len);
	transfer(a, cq, IBV_WR_RDMA_READ, mback, mdst, len);
	bad |= check("READ qp<-peer", back, src, len);
	memset(back, 0, len);
	transfer(self, cq, IBV_WR_RDMA_READ, mback, msrc, len);
	bad |= check("READ qp<-itself", back, src, len);
	{
		struct ibv_qp_attr q;
		struct ibv_qp_init_attr qi;

		if (ibv_query_qp(self, &q, IBV_QP_STATE, &qi) ||
		    q.qp_state != IBV_QPS_RTS)
			die("ibv_query_qp", EINVAL);
	}
	if (ibv_reg_dmabuf_mr(pd, 0, 4096, 0, 0, 0) || errno != EOPNOTSUPP)
		die("ibv_reg_dmabuf_mr: not EOPNOTSUPP", errno);
	if (ibv_destroy_qp(a) || ibv_destroy_qp(b) || ibv_destroy_qp(self) ||
	    ibv_destroy_cq(cq))
		die("destroy", errno);
	if (ibv_dereg_mr(msrc) || ibv_dereg_mr(mdst) || ibv_dereg_mr(mback) ||
	    ibv_dealloc_pd(pd) || ibv_close_device(ctx))
		die("close", errno);
	return bad;
}
