// SPDX-License-Identifier: GPL-2.0
/*
 * The device's bulk transmit path: each run builds one packet of the QP in
 * tx_qpn (bpf/lib/tx.h: pick, build, account) and redirects it to the
 * port its EV belongs to through mrc_tx_port.
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

/* The QP this run serves; the caller sets it before each batch. */
__u32 tx_qpn;
/*
 * Runs left in the batch, this one included; the caller sets it with
 * tx_qpn (one caller at a time: mrcd's pump). The batch's last packet
 * asks for its ACK (coalesced ACKs, docs/wire.md).
 */
__u32 tx_left;

SEC("xdp")
int mrc_xdp_tx(struct xdp_md *ctx)
{
	__u32 port = 0, left = tx_left;

	tx_left = left ? left - 1 : 0;
	if (tx_one(ctx, tx_qpn, left <= 1, &port) != TX_SENT)
		return XDP_DROP;
	return bpf_redirect_map(&mrc_tx_port, port, 0);
}

char LICENSE[] SEC("license") = "GPL";
