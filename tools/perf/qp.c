// SPDX-License-Identifier: GPL-2.0
/*
 * The QPs of either side (dev.h): created, taken to INIT with this side's
 * profiles, exchanged with the peer and connected.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dev.h"
#include "perf.h"

int qp_post_recvs(struct perf_dev *d, struct perf_qp *q, unsigned int n)
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
	unsigned int mtu = d->offer_mtu_bytes;
	struct ibv_qp_attr va = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = mtu_bytes_to_enum(mtu),
		.dest_qp_num = (uint32_t)q->peer.qpn,
		.rq_psn = (uint32_t)q->peer.psn,
		.ah_attr = { .is_global = 1, .port_num = 1 },
	};
	struct mrc_qp_attr ma = {
		.mpr = { .mpr = (uint8_t)p->mpr,
			 .mpr_dest =
				 (uint8_t)(d->mpr_dest ? d->mpr_dest : p->mpr),
			 .dynamic_mpr_dest = (uint8_t) !!d->dyn_mpr },
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
		.mtu_bytes = d->offer_mtu_bytes,
	};
	memcpy(out->gid, d->gid.raw, 16);
}

/* Creates every QP and takes it to INIT, measuring the memory they cost. */
int dev_create_qps(struct perf_dev *d)
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

int sc_send_qps(int fd, const struct perf_dev *d)
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

int sc_recv_qps(int fd, struct perf_dev *d)
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

int dev_connect_qps(struct perf_dev *d, const struct sc_params *p)
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
