// SPDX-License-Identifier: GPL-2.0
/*
 * The device's control path: state changes that must happen under a QP's
 * send lock, which userspace cannot take. mrcd runs this program through
 * BPF_PROG_TEST_RUN with a struct mrc_dp_cmd as the packet, on the
 * device's own maps (shared like the transmit program's), and reads the
 * result back from the output packet.
 *
 *   GOOD   ASSUMED_BAD -> GOOD, back in use (mrcd: probes answered)
 *   BAD    GOOD -> ASSUMED_BAD (mrcd: its port went down)
 *   DENY   any -> DENIED, out of use whatever ev_min_active says
 *   ALLOW  DENIED -> ASSUMED_BAD: probed before it carries traffic
 *
 * Each change is an EV event, as if the data path had made it.
 *
 *   QP_READ   the QP's struct mrc_qp_view, copied under its send lock into
 *             the packet after the command: the one way mrcd reads a QP's
 *             send state
 *   QP_STATE  both halves' state, each under its own lock
 *
 *   EMIT      a frame mrcd built whole (a probe), run with live frames: out
 *             of its port like the data. Not through a packet socket:
 *             closing one waits out an RCU grace period (13-16 ms here),
 *             which every ending mrcd, a restart's handover, paid
 *             (docs/mrcd.md).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "mrc/abi.h"
#include "lib/health.h"
#include "lib/maps.h"

static __always_inline int ctl_apply(struct mrc_qp_tx *qp, __u32 op, __u32 i,
				     __u8 *old, __u8 *new, int *kept)
{
	__u32 e = i & (MRC_QP_EVS - 1);
	int changed = 0;

	*kept = 0;
	bpf_spin_lock(&qp->lock);
	*old = qp->ev_state[e];
	switch (op) {
	case MRC_DP_EV_GOOD:
		if (*old == MRC_EV_ASSUMED_BAD) {
			qp->ev_state[e] = MRC_EV_GOOD;
			evm_set(&qp->ev_use, e);
			qp->ev_silent_ns[e] = 0; /* a fresh start */
			qp->ev_silent_n[e] = 0;
			evm_clear(&qp->ev_cool_silent, e);
			changed = 1;
		}
		break;
	case MRC_DP_EV_BAD:
		changed = health_mark_bad(qp, i, kept);
		break;
	case MRC_DP_EV_DENY:
		if (*old != MRC_EV_DENIED) {
			qp->ev_state[e] = MRC_EV_DENIED;
			evm_clear(&qp->ev_use, e);
			evm_set(&qp->ev_denied, e);
			changed = 1;
		}
		break;
	case MRC_DP_EV_ALLOW:
		if (*old == MRC_EV_DENIED) {
			qp->ev_state[e] = MRC_EV_ASSUMED_BAD;
			evm_clear(&qp->ev_denied, e);
			changed = 1;
		}
		break;
	}
	*new = qp->ev_state[e];
	bpf_spin_unlock(&qp->lock);
	return changed;
}

/* Under the send lock: a consistent view, written straight to the packet
 * (it is larger than the stack). */
static __always_inline void qp_read(struct mrc_qp_tx *qp, struct mrc_qp_view *v)
{
	__u32 i;

	bpf_spin_lock(&qp->lock);
	v->state = qp->state;
	v->peer_qpn = qp->peer_qpn;
	v->window = qp->window;
	v->mtu = qp->mtu;
	v->nev = qp->nev;
	v->next_psn = qp->next_psn;
	v->una_psn = qp->una_psn;
	v->sq_head = qp->sq_head;
	v->sq_done = qp->sq_done;
	v->pad0 = 0;
	v->timeout_ns = qp->timeout_ns;
	v->ev_use = qp->ev_use;
	v->ev_denied = qp->ev_denied;
	__builtin_memcpy(v->ev, qp->ev, sizeof(v->ev));
	__builtin_memcpy(v->ev_fl, qp->ev_fl, sizeof(v->ev_fl));
	__builtin_memcpy(v->ev_port, qp->ev_port, sizeof(v->ev_port));
	__builtin_memcpy(v->ev_state, qp->ev_state, sizeof(v->ev_state));
	__builtin_memcpy(v->peer_addr, qp->peer_addr, sizeof(v->peer_addr));
	v->cc_slot = qp->cc_slot;
	v->cwnd_bytes = qp->cc_slot ? qp->cc.cwnd_bytes : 0;
	v->inflight_bytes = qp->cc_slot ? qp->cc.inflight_bytes : 0;
	v->cc_base_rtt_ns = qp->cc_slot ? qp->cc.base_rtt_ns : 0;
	v->cc_avg_delay_ns = qp->cc_slot ? qp->cc.avg_delay_ns : 0;
	v->srtt_ns = qp->srtt_ns;
	v->rtt_hi_ns = qp->rtt_hi_ns;
	v->pad1 = 0;
	/* A cooled EV whose time has passed is warm, cleared or not yet. */
	evm_zero(&v->ev_cool);
	for (i = 0; i < MRC_QP_EVS; i++)
		if (evm_has(&qp->ev_cool, i) &&
		    qp->ev_cool_ns[i] > qp->acked_tx_ns)
			evm_set(&v->ev_cool, i);
	bpf_spin_unlock(&qp->lock);
}

/* QP_STATE: the send half, then the receive half. */
static __always_inline int qp_state(struct mrc_qp_tx *qp, __u32 qpn,
				    __u32 state)
{
	struct mrc_qp_rx *qr = bpf_map_lookup_elem(&mrc_qp, &qpn);

	if (!qr)
		return 2; /* ENOENT */
	bpf_spin_lock(&qp->lock);
	qp->state = state;
	bpf_spin_unlock(&qp->lock);
	bpf_spin_lock(&qr->lock);
	qr->state = state;
	bpf_spin_unlock(&qr->lock);
	return 0;
}

/* The commands on a QP as a whole; c->result is set. */
static __always_inline int qp_cmd(struct xdp_md *ctx, struct mrc_dp_cmd *c,
				  struct mrc_qp_tx *qp)
{
	void *end = (void *)(long)ctx->data_end;
	struct mrc_qp_view *v = (void *)(c + 1);

	if (c->op == MRC_DP_QP_STATE) {
		c->result = c->value > MRC_QPS_ERR ?
				    22 :
				    qp_state(qp, c->qpn, c->value);
		return XDP_PASS;
	}
	if (c->op == MRC_DP_QP_RX_WINDOW) {
		struct mrc_qp_rx *qr = bpf_map_lookup_elem(&mrc_qp, &c->qpn);

		if (!qr || !c->value || c->value > MRC_RX_WINDOW_MAX) {
			c->result = qr ? 22 : 2;
			return XDP_PASS;
		}
		bpf_spin_lock(&qr->lock);
		qr->window = c->value;
		bpf_spin_unlock(&qr->lock);
		c->result = 0;
		return XDP_PASS;
	}
	if (c->op == MRC_DP_QP_WINDOW) {
		if (!c->value || c->value > MRC_RX_WINDOW_MAX) {
			c->result = 22;
			return XDP_PASS;
		}
		bpf_spin_lock(&qp->lock);
		qp->window = c->value;
		bpf_spin_unlock(&qp->lock);
		c->result = 0;
		return XDP_PASS;
	}
	if ((void *)(v + 1) > end) {
		c->result = 90; /* EMSGSIZE: no room for the view */
		return XDP_PASS;
	}
	qp_read(qp, v);
	c->result = 0;
	return XDP_PASS;
}

/* EMIT: the frame after the command out of port, or dropped, counted. */
static __always_inline int ctl_emit(struct xdp_md *ctx, __u32 port)
{
	void *data, *end;

	if (port >= MRC_MAX_PORTS ||
	    bpf_xdp_adjust_head(ctx, sizeof(struct mrc_dp_cmd)))
		goto fail;
	data = (void *)(long)ctx->data;
	end = (void *)(long)ctx->data_end;
	if (data + 14 > end) /* an Ethernet header at least */
		goto fail;
	if (bpf_redirect_map(&mrc_tx_port, port, 0) != XDP_REDIRECT)
		goto fail;
	mrc_count_tx(MRC_TX_MRCD_FRAMES, 1);
	return XDP_REDIRECT;
fail:
	mrc_count_tx(MRC_TX_MRCD_FRAMES_FAILED, 1);
	return XDP_DROP;
}

SEC("xdp")
int mrc_xdp_ctl(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct mrc_dp_cmd *c = data;
	struct mrc_qp_tx *qp;
	__u8 old, new;
	__u32 qpn, i;
	int kept;

	if ((void *)(c + 1) > end)
		return XDP_DROP;
	if (c->magic != MRC_DP_MAGIC || c->op < MRC_DP_EV_GOOD ||
	    c->op > MRC_DP_EMIT) {
		c->result = 22; /* EINVAL */
		return XDP_PASS;
	}
	if (c->op == MRC_DP_EMIT)
		return ctl_emit(ctx, c->value);
	qpn = c->qpn;
	i = c->ev_idx;
	qp = qpn < MRC_MAX_QP ? bpf_map_lookup_elem(&mrc_qp_tx, &qpn) : NULL;
	if (!qp || (qp->state == MRC_QPS_RESET && c->op < MRC_DP_QP_READ)) {
		c->result = 2; /* ENOENT */
		return XDP_PASS;
	}
	if (c->op >= MRC_DP_QP_READ)
		return qp_cmd(ctx, c, qp);
	if (i >= qp->nev || i >= MRC_QP_EVS) {
		c->result = 22;
		return XDP_PASS;
	}
	c->result = 0;
	if (ctl_apply(qp, c->op, i, &old, &new, &kept)) {
		if (new == MRC_EV_ASSUMED_BAD && old == MRC_EV_GOOD)
			mrc_count_tx(MRC_TX_EV_BAD, 1);
		health_event(qpn, qp, i, MRC_EVT_STATE, new, old,
			     kept ? MRC_EV_R_MIN_ACTIVE : (__u8)c->reason);
	}
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
