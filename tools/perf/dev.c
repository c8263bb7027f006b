// SPDX-License-Identifier: GPL-2.0
/*
 * The MRC device either side opens (dev.h): found, queried, its region
 * registered, its CQs created; and closed again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dev.h"
#include "perf.h"

unsigned int mtu_enum_to_bytes(enum ibv_mtu mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128u << mtu : 0;
}

enum ibv_mtu mtu_bytes_to_enum(unsigned int bytes)
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
	err = ibv_query_gid(d->vctx, 1, 3, &d->gid); /* RoCE v2, the address */
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
	/*
	 * An application that is not spinning (idle_us) waits for its
	 * completions on a channel, as perftest's -e does: on the soft device
	 * the CPUs it would poll on are the NIC's (post.c, idle()).
	 */
	if (d->idle_us && mrc_create_comp_channel(d->mctx, &d->ch)) {
		pr_err("cannot create a completion channel: %s",
		       strerror(errno));
		return -errno;
	}
	d->scq = mrc_create_cq(d->mctx, (int)sends, NULL, d->ch, 0);
	if (!d->scq) {
		pr_err("cannot create the send CQ: %s", strerror(errno));
		return -errno;
	}
	d->rcq = mrc_create_cq(d->mctx, (int)recvs, NULL, d->ch, 0);
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

void dev_close(struct perf_dev *d)
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
	if (d->ch)
		mrc_destroy_comp_channel(d->ch);
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

/* Device setup shared by both sides, from the parameters both agree on. */
int dev_setup(struct perf_dev *d, struct sc_params *p)
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
	d->offer_mtu_bytes = p->mtu_bytes ? (unsigned int)p->mtu_bytes :
					    d->port_mtu_bytes;
	if (!p->mpr)
		p->mpr = d->attr.mpr_attr.max_mpr ? d->attr.mpr_attr.max_mpr :
						    2;
	return dev_create_qps(d);
}
