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
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "mrc/abi.h"
#include "lib/health.h"
#include "lib/maps.h"

static __always_inline int ctl_apply(struct mrc_qp_tx *qp, __u32 op, __u32 i,
				     __u8 *old, __u8 *new, int *kept)
{
	__u64 bit = 1ull << (i & 63);
	int changed = 0;

	*kept = 0;
	bpf_spin_lock(&qp->lock);
	*old = qp->ev_state[i & 63];
	switch (op) {
	case MRC_DP_EV_GOOD:
		if (*old == MRC_EV_ASSUMED_BAD) {
			qp->ev_state[i & 63] = MRC_EV_GOOD;
			qp->ev_use |= bit;
			qp->ev_silent_ns[i & 63] = 0; /* a fresh start */
			changed = 1;
		}
		break;
	case MRC_DP_EV_BAD:
		changed = health_mark_bad(qp, i, kept);
		break;
	case MRC_DP_EV_DENY:
		if (*old != MRC_EV_DENIED) {
			qp->ev_state[i & 63] = MRC_EV_DENIED;
			qp->ev_use &= ~bit;
			qp->ev_denied |= bit;
			changed = 1;
		}
		break;
	case MRC_DP_EV_ALLOW:
		if (*old == MRC_EV_DENIED) {
			qp->ev_state[i & 63] = MRC_EV_ASSUMED_BAD;
			qp->ev_denied &= ~bit;
			changed = 1;
		}
		break;
	}
	*new = qp->ev_state[i & 63];
	bpf_spin_unlock(&qp->lock);
	return changed;
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
	    c->op > MRC_DP_EV_ALLOW) {
		c->result = 22; /* EINVAL */
		return XDP_PASS;
	}
	qpn = c->qpn;
	i = c->ev_idx;
	qp = qpn < MRC_MAX_QP ? bpf_map_lookup_elem(&mrc_qp_tx, &qpn) : NULL;
	if (!qp || qp->state == MRC_QPS_RESET) {
		c->result = 2; /* ENOENT */
		return XDP_PASS;
	}
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
