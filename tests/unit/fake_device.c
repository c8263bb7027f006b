// SPDX-License-Identifier: GPL-2.0
/*
 * The fake device for mrcd's module tests (fake_device.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clock.h"
#include "dev.h"
#include "fake_device.h"
#include "pin.h"
#include "probe.h"

struct fake_device fake;

void fake_reset(int nports)
{
	int i;

	for (i = 0; i < 8; i++)
		if (fake.map_fd[i] > 0)
			close(fake.map_fd[i]);
	for (i = 0; i < MRC_MAX_QP; i++)
		if (fake.sq[i])
			munmap(fake.sq[i], sizeof(struct mrc_sq));
	for (i = 0; i < MRC_MAX_CQ; i++)
		if (fake.cq[i] > 0)
			close(fake.cq[i]);
	memset(&fake, 0, sizeof(fake));
	for (i = 0; i < 8; i++)
		fake.map_fd[i] = -1;
	fake.now_ns = 1000000000ull;
	fake.next_nonce = 0x1000;
	fake.nports = nports;
	for (i = 0; i < nports; i++) {
		fake.port[i].saddr[0] = 198;
		fake.port[i].saddr[1] = 18;
		fake.port[i].saddr[2] = (uint8_t)(16 * i);
		fake.port[i].saddr[3] = 1;
		fake.port[i].smac[5] = (uint8_t)(i + 1);
		fake.port[i].dmac[5] = (uint8_t)(0x80 + i);
	}
}

void fake_qp_rts(uint32_t qpn, uint32_t nev)
{
	struct mrc_qp_view *v = &fake.view[qpn];
	uint32_t i;

	memset(v, 0, sizeof(*v));
	fake.qp_exists[qpn] = 1;
	v->state = MRC_QPS_RTS;
	v->nev = nev;
	v->peer_qpn = qpn + 100;
	v->window = 64;
	v->timeout_ns = 1000000000ull;
	for (i = 0; i < nev && i < MRC_QP_EVS; i++) {
		v->ev[i] = (uint16_t)(49152 + i);
		v->ev_port[i] = (uint8_t)(i % (uint32_t)fake.nports);
		v->ev_state[i] = MRC_EV_GOOD;
		evm_set(&v->ev_use, i);
	}
	for (i = 0; i < (uint32_t)fake.nports; i++) {
		v->peer_addr[i][0] = 198;
		v->peer_addr[i][1] = 18;
		v->peer_addr[i][2] = (uint8_t)(16 * i);
		v->peer_addr[i][3] = 2;
	}
}

void fake_deliver(void (*fn)(void *ctx, const struct mrc_ev_event *v),
		  void *ctx)
{
	struct mrc_ev_event ev[FAKE_MAX];
	int i, n = fake.nev;

	/* What fn makes the device queue comes in the next call. */
	memcpy(ev, fake.ev, (size_t)n * sizeof(ev[0]));
	fake.nev = 0;
	for (i = 0; i < n; i++)
		fn(ctx, &ev[i]);
}

int fake_cmds(uint32_t op, uint32_t qpn, int ev_idx)
{
	int i, n = 0;

	for (i = 0; i < fake.ncmd; i++)
		n += fake.cmd[i].op == op && fake.cmd[i].qpn == qpn &&
		     (ev_idx < 0 || fake.cmd[i].ev_idx == (uint32_t)ev_idx);
	return n;
}

uint64_t now_ns(void)
{
	return fake.now_ns;
}

/* ---- dev.h ----------------------------------------------------------- */

static int memfd_of(size_t len)
{
	int fd = memfd_create("fake-map", MFD_CLOEXEC);

	if (fd >= 0 && ftruncate(fd, (off_t)len)) {
		close(fd);
		return -1;
	}
	return fd;
}

int dev_map_fd(const struct dev *d, enum dev_map which)
{
	size_t len;

	(void)d;
	switch (which) {
	case DEV_MAP_WAKE:
		len = MRC_MAX_QP * sizeof(uint32_t);
		break;
	case DEV_MAP_EV_STATS:
		len = (size_t)MRC_MAX_QP * MRC_QP_EVS *
		      sizeof(struct mrc_ev_stats);
		break;
	case DEV_MAP_PROBE_ARM:
		len = 4096;
		break;
	default:
		return -1; /* not mmapable: the modules under test skip it */
	}
	if (fake.map_fd[which] < 0)
		fake.map_fd[which] = memfd_of(len);
	return fake.map_fd[which];
}

int dev_port_get(const struct dev *d, uint32_t p, struct mrc_port *port)
{
	(void)d;
	if (p >= (uint32_t)fake.nports)
		return -ENOENT;
	*port = fake.port[p];
	return 0;
}

int dev_mr_info(const struct dev *d, uint32_t idx, struct mrc_mr_info *info)
{
	(void)d;
	if (idx >= MRC_MAX_MR || !fake.mr_len[idx])
		return -ENOENT;
	memset(info, 0, sizeof(*info));
	info->len = fake.mr_len[idx];
	return 0;
}

/* The control program's EV commands (ctl_apply). */
int dev_ev_cmd(struct dev *d, uint32_t op, uint32_t qpn, uint32_t ev_idx,
	       uint32_t reason)
{
	struct mrc_qp_view *v = &fake.view[qpn];
	struct fake_cmd *c = &fake.cmd[fake.ncmd < FAKE_MAX ? fake.ncmd++ : 0];
	uint8_t old, now;
	int changed = 0;

	(void)d;
	*c = (struct fake_cmd){ op, qpn, ev_idx, reason, 0 };
	if (qpn >= MRC_MAX_QP || !fake.qp_exists[qpn])
		return c->result = -ENOENT;
	if (ev_idx >= v->nev)
		return c->result = -EINVAL;
	old = v->ev_state[ev_idx];
	switch (op) {
	case MRC_DP_EV_GOOD:
		if (old == MRC_EV_ASSUMED_BAD) {
			v->ev_state[ev_idx] = MRC_EV_GOOD;
			evm_set(&v->ev_use, ev_idx);
			changed = 1;
		}
		break;
	case MRC_DP_EV_BAD:
		if (old == MRC_EV_GOOD) {
			v->ev_state[ev_idx] = MRC_EV_ASSUMED_BAD;
			evm_clear(&v->ev_use, ev_idx);
			changed = 1;
		}
		break;
	case MRC_DP_EV_DENY:
		if (old != MRC_EV_DENIED) {
			v->ev_state[ev_idx] = MRC_EV_DENIED;
			evm_clear(&v->ev_use, ev_idx);
			evm_set(&v->ev_denied, ev_idx);
			changed = 1;
		}
		break;
	case MRC_DP_EV_ALLOW:
		if (old == MRC_EV_DENIED) {
			v->ev_state[ev_idx] = MRC_EV_ASSUMED_BAD;
			evm_clear(&v->ev_denied, ev_idx);
			changed = 1;
		}
		break;
	default:
		return c->result = -EINVAL;
	}
	now = v->ev_state[ev_idx];
	if (changed && fake.nev < FAKE_MAX)
		fake.ev[fake.nev++] = (struct mrc_ev_event){
			.ts_ns = fake.now_ns,
			.qpn = qpn,
			.ev = v->ev[ev_idx],
			.ev_idx = (uint8_t)ev_idx,
			.port = v->ev_port[ev_idx],
			.type = MRC_EVT_STATE,
			.state = now,
			.old_state = old,
			.reason = (uint8_t)reason,
		};
	return 0;
}

int dev_qp_view(struct dev *d, uint32_t qpn, struct mrc_qp_view *v)
{
	(void)d;
	if (qpn >= MRC_MAX_QP || !fake.qp_exists[qpn])
		return -ENOENT;
	*v = fake.view[qpn];
	return 0;
}

int dev_link_state(const char *ifname, uint32_t *mtu, int *up)
{
	(void)ifname;
	*mtu = 1500;
	*up = 1;
	return 0;
}

int dev_mr_create(struct dev *d, uint32_t idx, uint64_t len, uint32_t pd,
		  uint64_t va, uint32_t head, struct dev_mr *mr)
{
	(void)d;
	(void)pd;
	(void)va;
	(void)head;
	memset(mr, 0, sizeof(*mr));
	mr->fd = memfd_of(len);
	if (mr->fd < 0)
		return -errno;
	mr->map_len = len;
	mr->map =
		mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, mr->fd, 0);
	if (mr->map == MAP_FAILED) {
		close(mr->fd);
		return -ENOMEM;
	}
	mr->key = 0x100 + idx;
	fake.mr_len[idx] = len;
	return 0;
}

void dev_mr_remove(struct dev *d, uint32_t idx)
{
	(void)d;
	fake.mr_len[idx] = 0;
}

int dev_cq_map(struct dev *d, uint32_t idx, int *notify_fd)
{
	(void)d;
	if (fake.cq[idx] <= 0)
		fake.cq[idx] = memfd_of(4096);
	if (notify_fd)
		*notify_fd = memfd_of(4096);
	return dup(fake.cq[idx]);
}

void dev_cq_remove(struct dev *d, uint32_t idx)
{
	(void)d;
	if (fake.cq[idx] > 0)
		close(fake.cq[idx]);
	fake.cq[idx] = 0;
}

int dev_sq_create(struct dev *d, uint32_t qpn, struct mrc_sq **sq, int *fd)
{
	int mfd = memfd_of(sizeof(struct mrc_sq));
	void *p;

	(void)d;
	if (mfd < 0)
		return -errno;
	p = mmap(NULL, sizeof(struct mrc_sq), PROT_READ | PROT_WRITE,
		 MAP_SHARED, mfd, 0);
	if (p == MAP_FAILED) {
		close(mfd);
		return -ENOMEM;
	}
	*sq = p;
	fake.sq[qpn] = p;
	if (fd)
		*fd = mfd;
	else
		close(mfd);
	fake.qp_exists[qpn] = 1;
	memset(&fake.view[qpn], 0, sizeof(fake.view[qpn]));
	return 0;
}

int dev_qp_config(struct dev *d, const struct dev_qp_attr *a, uint32_t state,
		  int halves)
{
	struct mrc_qp_view *v = &fake.view[a->qpn];
	uint32_t i;

	(void)d;
	if (!fake.qp_exists[a->qpn])
		return -ENOENT;
	v->state = state;
	if (!(halves & DEV_QP_TX))
		return 0;
	fake_qp_rts(a->qpn, a->nev);
	v->peer_qpn = a->peer_qpn;
	v->timeout_ns = a->timeout_ns;
	v->cc_slot = a->cc_slot;
	v->cwnd_bytes = a->cc_slot ? a->cc.max_cwnd_bytes : 0;
	for (i = 0; a->evs_given && i < a->nev && i < MRC_QP_EVS; i++) {
		v->ev[i] = a->ev[i];
		v->ev_fl[i] = a->ev_fl[i];
		v->ev_port[i] = a->ev_port[i];
	}
	memcpy(v->peer_addr, a->peer_addr, sizeof(v->peer_addr));
	return 0;
}

int dev_cc_set(struct dev *d, uint32_t slot, const struct mrc_nscc_params *p)
{
	(void)d;
	if (!slot || slot >= MRC_CC_SLOTS)
		return -EINVAL;
	memset(&fake.cc[slot], 0, sizeof(fake.cc[slot]));
	if (p)
		fake.cc[slot] = *p;
	fake.cc_set[slot] = p ? 1 : 2;
	return 0;
}

/* The fake device has no SRv6 QPs. */
int dev_qp_route(struct dev *d, uint32_t qpn, int idx, uint32_t p,
		 struct mrc_srv6_route *r)
{
	(void)d;
	(void)qpn;
	(void)idx;
	(void)p;
	(void)r;
	return -ENOENT;
}

int dev_qp_set_state(struct dev *d, uint32_t qpn, uint32_t state)
{
	(void)d;
	if (!fake.qp_exists[qpn])
		return -ENOENT;
	fake.view[qpn].state = state;
	return 0;
}

int dev_qp_set_window(struct dev *d, uint32_t qpn, uint32_t psns)
{
	(void)d;
	if (qpn >= MRC_MAX_QP || !fake.qp_exists[qpn])
		return -ENOENT;
	if (!psns || psns > MRC_RX_WINDOW_MAX)
		return -EINVAL;
	fake.view[qpn].window = psns;
	return 0;
}

int dev_qp_set_rx_window(struct dev *d, uint32_t qpn, uint32_t psns)
{
	(void)d;
	if (qpn >= MRC_MAX_QP || !fake.qp_exists[qpn])
		return -ENOENT;
	if (!psns || psns > MRC_RX_WINDOW_MAX)
		return -EINVAL;
	fake.rx_window[qpn] = psns;
	return 0;
}

void dev_qp_clear(struct dev *d, uint32_t qpn)
{
	(void)d;
	memset(&fake.view[qpn], 0, sizeof(fake.view[qpn]));
}

void dev_sq_adopt(struct dev *d, uint32_t qpn)
{
	(void)d;
	(void)qpn;
}

void dev_qp_db_token(struct dev *d, uint32_t qpn, uint64_t token)
{
	if (qpn < MRC_MAX_QP)
		d->db_token[qpn] = token;
}

void dev_qp_destroy(struct dev *d, uint32_t qpn, struct mrc_sq *sq)
{
	(void)d;
	if (sq)
		munmap(sq, sizeof(*sq));
	if (fake.sq[qpn] == sq)
		fake.sq[qpn] = NULL;
	fake.qp_exists[qpn] = 0;
	memset(&fake.view[qpn], 0, sizeof(fake.view[qpn]));
}

int dev_qp_tx_state(struct dev *d, uint32_t qpn, uint32_t *state, uint32_t *una,
		    uint32_t *next)
{
	(void)d;
	if (!fake.qp_exists[qpn])
		return -ENOENT;
	*state = fake.view[qpn].state;
	*una = fake.view[qpn].una_psn;
	*next = fake.view[qpn].next_psn;
	return 0;
}

/* One QP's part of a list: what the old per-QP call did. */
static int tx_one_qp(uint32_t qpn, uint32_t n, uint32_t lane, uint32_t lanes)
{
	uint32_t tid = (uint32_t)gettid(), have, sent;

	/* Two lanes of one QP may call at once: the budget is shared. */
	have = __atomic_load_n(&fake.tx_budget[qpn], __ATOMIC_RELAXED);
	do
		sent = n < have ? n : have;
	while (!__atomic_compare_exchange_n(&fake.tx_budget[qpn], &have,
					    have - sent, 0, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED));
	__atomic_store_n(&fake.tx_tid[qpn], tid, __ATOMIC_RELAXED);
	__atomic_add_fetch(&fake.tx_calls, 1, __ATOMIC_RELAXED);
	if (lanes > 1 && lane < 8) {
		__atomic_store_n(&fake.tx_lane_tid[lane], tid,
				 __ATOMIC_RELAXED);
		__atomic_add_fetch(&fake.tx_lane_calls[lane], 1,
				   __ATOMIC_RELAXED);
		__atomic_store_n(&fake.tx_lanes, lanes, __ATOMIC_RELAXED);
	}
	__atomic_add_fetch(&fake.tx_frames, sent, __ATOMIC_RELAXED);
	return (int)sent;
}

int dev_tx_list(struct dev *d, uint32_t k, struct mrc_tx_entry *e, uint32_t n)
{
	uint32_t i;

	(void)d;
	if (k >= MRC_TX_LISTS || !n || n > MRC_TX_LIST_MAX)
		return -EINVAL;
	__atomic_add_fetch(&fake.tx_lists, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&fake.tx_list_max,
			 n > fake.tx_list_max ? n : fake.tx_list_max,
			 __ATOMIC_RELAXED);
	for (i = 0; i < n; i++)
		e[i].sent = (uint16_t)tx_one_qp(e[i].qpn, e[i].left, e[i].lane,
						e[i].lanes);
	return 1;
}

int dev_tx_burst(struct dev *d, uint32_t qpn, uint32_t n, uint32_t lane,
		 uint32_t lanes)
{
	(void)d;
	__atomic_add_fetch(&fake.tx_bursts, 1, __ATOMIC_RELAXED);
	return qpn < MRC_MAX_QP ? tx_one_qp(qpn, n, lane, lanes) : -EINVAL;
}

/* ---- pin.h: no bpffs here ------------------------------------------- */

int dev_pin_sq(const char *dir, uint32_t qpn, int fd)
{
	(void)dir;
	(void)qpn;
	(void)fd;
	return -ENOSYS;
}

int dev_pin_sq_get(const char *dir, uint32_t qpn)
{
	(void)dir;
	(void)qpn;
	return -ENOSYS;
}

/* ---- probe.h ----------------------------------------------------------- */

int probe_frame(struct probe *pr, uint32_t p, const uint8_t addr[16],
		uint16_t sport, uint16_t fl, uint32_t dqpn, uint8_t ev_idx,
		uint32_t seq, uint8_t tos, const struct mrc_srv6_route *rt)
{
	struct fake_probe *f;

	(void)pr;
	(void)rt;
	if (fake.probe_err)
		return fake.probe_err;
	if (p >= (uint32_t)fake.nports)
		return -ENODEV;
	if (fake.nprobe == FAKE_MAX)
		return -ENOBUFS;
	f = &fake.probe[fake.nprobe++];
	*f = (struct fake_probe){ .port = p,
				  .dqpn = dqpn,
				  .seq = seq,
				  .sport = sport,
				  .fl = fl,
				  .ev_idx = ev_idx,
				  .tos = tos };
	memcpy(f->addr, addr, 16);
	return 0;
}

int probe_ctl_frame(struct probe *pr, uint32_t p, const uint8_t addr[16],
		    uint16_t sport, uint16_t fl, uint32_t dqpn,
		    const struct mrc_cext *cx, uint8_t tos,
		    const struct mrc_srv6_route *rt)
{
	struct fake_ctl *f;

	(void)pr;
	(void)rt;
	(void)fl;
	(void)tos;
	if (p >= (uint32_t)fake.nports)
		return -ENODEV;
	f = &fake.ctl[fake.nctl++ % 64];
	*f = (struct fake_ctl){ .port = p, .dqpn = dqpn, .sport = sport };
	memcpy(f->addr, addr, 16);
	f->cx = *cx;
	return 0;
}

uint32_t probe_nonce(void)
{
	return fake.next_nonce++;
}
