// SPDX-License-Identifier: GPL-2.0
/*
 * The device's bulk transmit path: each run builds one packet of the QP its
 * caller names in this CPU's tx_call slot (bpf/lib/tx.h: pick, build,
 * account) and redirects it to the port its EV belongs to through
 * mrc_tx_port.
 *
 * mrcd runs it through BPF_PROG_TEST_RUN with live frames, one frame per
 * packet it wants sent. Live frames recycle pages with stale bytes and
 * stale lengths (DESIGN.md field notes), so every header byte is written
 * and the frame is cut from the caller's maximum-size buffer to the
 * packet's length (ctx_resize).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "lib/maps.h"
#include "lib/tx.h"

/* The calls in progress, by CPU (struct mrc_tx_call). */
struct mrc_tx_call tx_call[MRC_TX_CALL_CPUS];

SEC("xdp")
int mrc_xdp_tx(struct xdp_md *ctx)
{
	__u32 cpu = bpf_get_smp_processor_id(), port = 0, left;
	struct mrc_tx_call *c;

	if (cpu >= MRC_TX_CALL_CPUS)
		goto not_caller;
	c = &tx_call[cpu];
	if (c->tid != (__u32)bpf_get_current_pid_tgid())
		goto not_caller;
	left = c->left;
	c->left = left ? left - 1 : 0;
	if (tx_one(ctx, c->qpn, left <= 1, c->lane, c->lanes, &port) != TX_SENT)
		return XDP_DROP;
	c->sent++;
	return bpf_redirect_map(&mrc_tx_port, port, 0);
not_caller:
	mrc_count_tx(MRC_TX_NOT_CALLER, 1);
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
