// SPDX-License-Identifier: GPL-2.0
/*
 * The device's bulk transmit path: each run builds one packet of a QP of
 * its caller's list (the list named in this CPU's tx_call slot; bpf/lib/
 * tx.h: pick, build, account) and redirects it to the port its EV belongs
 * to through mrc_tx_port.
 *
 * mrcd runs it through BPF_PROG_TEST_RUN with live frames, one frame per
 * run, each call serving the QPs one of its threads has work for (struct
 * mrc_tx_list). Live frames recycle pages with stale bytes and stale
 * lengths (DESIGN.md field notes), so every header byte is written and the
 * frame is cut from the caller's maximum-size buffer to the packet's
 * length (ctx_resize).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "lib/maps.h"
#include "lib/tx.h"

/* The calls in progress, by CPU, and the callers' lists (abi.h). */
struct mrc_tx_call tx_call[MRC_TX_CALL_CPUS] __attribute__((aligned(64)));
struct mrc_tx_list tx_list[MRC_TX_LISTS] __attribute__((aligned(64)));

SEC("xdp")
int mrc_xdp_tx(struct xdp_md *ctx)
{
	__u32 cpu = bpf_get_smp_processor_id(), port = 0, k, i, left;
	struct mrc_tx_entry *e;
	struct mrc_tx_list *l;
	struct mrc_tx_call *c;

	if (cpu >= MRC_TX_CALL_CPUS)
		goto not_caller;
	c = &tx_call[cpu];
	if (c->tid != (__u32)bpf_get_current_pid_tgid())
		goto not_caller;
	k = c->list;
	if (k >= MRC_TX_LISTS)
		goto not_caller;
	l = &tx_list[k];
	l->runs++;
	i = l->next;
	if (i >= l->n || i >= MRC_TX_LIST_MAX) {
		mrc_count_tx(MRC_TX_SPARE, 1);
		return XDP_DROP;
	}
	e = &l->e[i];
	left = e->left;
	if (left)
		e->left = (__u16)(left - 1);
	/* Its budget used, or nothing to send and another QP waiting. */
	l->next_idle = left == 1 || i + 1 < l->n ? i + 1 : i;
	if (left == 1)
		l->next = i + 1;
	if (tx_one(ctx, e->qpn, left <= 1, e->lane, e->lanes, &port) !=
	    TX_SENT) {
		l->next = l->next_idle;
		return XDP_DROP;
	}
	e->sent++;
	return bpf_redirect_map(&mrc_tx_port, port, 0);
not_caller:
	mrc_count_tx(MRC_TX_NOT_CALLER, 1);
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
