// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl capture's programs. mrc_cap_xdp stands in front of mrc_xdp_rx on
 * one port while a capture of what arrives runs ('dir in'): it copies each
 * frame that passes the filter into a perf event array
 * (bpf_perf_event_output with the frame as context data) and tail-calls
 * the receive program, which then does exactly what it does without a
 * capture. mrc_cap_out is the egress program of the port's entry in
 * mrc_tx_port while a capture of what leaves runs ('dir out'): the kernel
 * runs it on each frame the transmit program redirects to the port, just
 * before the frame is sent; it copies the same way and lets the frame go.
 * Frames mrc_xdp_rx turns around with XDP_TX (ACKs, NACKs, probe answers)
 * never pass the devmap: for those mrc_xdp_rx tail-calls mrc_turn_hook,
 * which holds mrc_cap_turn while 'dir out' runs. Skbs (probes from mrcd's
 * socket, the low-latency path's packets) pass none of these hooks:
 * mrcctl takes them with a packet socket, as tcpdump does.
 *
 * Why not fentry/fexit on mrc_xdp_rx and mrc_xdp_tx, which would see all
 * of it without a hook in the data path: the kernel this project runs on
 * refuses every fentry and fexit program at load (EPERM, with an empty
 * verifier log, even on a kernel function). docs/mrcd.md ("Capturing a
 * port") has the details.
 *
 * Nothing here is part of the device: mrcctl loads this object, swaps it
 * in for mrc_xdp_rx on the port (XDP_FLAGS_REPLACE), sets it in the
 * port's devmap entry, and undoes both when the capture ends. Its maps are
 * its own, so they are declared here and not in bpf/lib/maps.h.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <stddef.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "lib/capture_class.h"

/* The filter, set by mrcctl before load. */
const volatile __u32 cap_classes = MRC_CAP_ALL;
const volatile __u32 cap_qpn_on; /* 1: only BTH destination QP cap_qpn */
const volatile __u32 cap_qpn;
const volatile __u32 cap_snaplen = 65535;
const volatile __u32 cap_ifindex; /* the port: mrc_cap_turn's filter */

/* The frames, to mrcctl (one ring per CPU). */
struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} mrc_cap_ring SEC(".maps");

/* Entry 0: the port's receive program, which every frame goes on to. */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} mrc_cap_next SEC(".maps");

/* Per CPU counters, enum mrc_cap_stat, read by mrcctl at the end. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MRC_CAP_NSTATS);
	__type(key, __u32);
	__type(value, __u64);
} mrc_cap_stats SEC(".maps");

static __always_inline void count(__u32 what)
{
	__u64 *v = bpf_map_lookup_elem(&mrc_cap_stats, &what);

	if (v)
		*v += 1;
}

/*
 * Copy one frame to the ring if it passes the filter; via is
 * MRC_CAP_VIA_*, base the first of that hook's three counters.
 */
static __always_inline void capture(struct xdp_md *ctx, __u32 via, __u32 base)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct mrc_cap_rec r = {};
	__u8 h[MRC_CAP_HDR + 1] = {};
	__u32 n;

	count(base);
	r.dir = via == MRC_CAP_VIA_RX ? MRC_CAP_DIR_IN : MRC_CAP_DIR_OUT;
	r.via = (__u8)via;
	r.pkt_len = (__u32)(end - data);
	n = r.pkt_len;
	/*
	 * The verifier wants the length of bpf_xdp_load_bytes bounded from
	 * both sides, and the header reads in classify() within h.
	 */
	if (n > MRC_CAP_HDR)
		n = MRC_CAP_HDR;
	n &= MRC_CAP_HDR;
	if (n < 1 || bpf_xdp_load_bytes(ctx, 0, h, n) < 0)
		n = 0;
	r.cls = (__u8)mrc_cap_classify(h, n, &r.qpn);
	if (!(r.cls & cap_classes) || (cap_qpn_on && r.qpn != cap_qpn))
		return;
	count(base + 1);
	r.ts_ns = bpf_ktime_get_ns();
	r.cap_len = r.pkt_len < cap_snaplen ? r.pkt_len : cap_snaplen;
	if (bpf_perf_event_output(ctx, &mrc_cap_ring,
				  BPF_F_CURRENT_CPU | (__u64)r.cap_len << 32,
				  &r, sizeof(r)) < 0)
		count(base + 2);
}

SEC("xdp")
int mrc_cap_xdp(struct xdp_md *ctx)
{
	capture(ctx, MRC_CAP_VIA_RX, MRC_CAP_SEEN);
	bpf_tail_call(ctx, &mrc_cap_next, 0);
	/*
	 * mrc_cap_next is empty: the kernel clears a program array when the
	 * last file descriptor of it closes, so this happens only when every
	 * mrcctl process of the capture died without putting mrc_xdp_rx back
	 * (docs/mrcd.md). Nobody can place or answer the frame; the kernel
	 * stack keeps the port's other traffic (ARP, ND, TCP) alive until
	 * the next capture on the port or mrcd repairs it.
	 */
	count(MRC_CAP_TAIL_FAILED);
	return XDP_PASS;
}

/*
 * A devmap program must be loaded for BPF_XDP_DEVMAP ("xdp/devmap") and,
 * like every program in a devmap, match the frags flag of the programs
 * that redirect through it (mrc_xdp_tx: plain "xdp"). It runs after the
 * transmit program built the frame, so it sees the final bytes. Whatever
 * it finds, the frame goes: XDP_PASS. When mrcctl and its guard died
 * without taking it out, the perf ring has no reader left (the kernel
 * drops the entries with the file that made them), the output fails and
 * is counted, and the frame still goes: a stale one costs a header copy
 * per frame and nothing else, until the next capture or mrcd replaces it.
 */
SEC("xdp/devmap")
int mrc_cap_out(struct xdp_md *ctx)
{
	capture(ctx, MRC_CAP_VIA_TX_PORT, MRC_CAP_OUT_SEEN);
	return XDP_PASS;
}

/*
 * mrc_turn_hook's program (bpf/lib/maps.h) while a capture takes what
 * leaves: mrc_xdp_rx tail-calls it with each frame it has just turned
 * into an ACK, NACK or probe answer, on any port of the device (one
 * receive program serves them all), instead of returning XDP_TX; so it
 * must return XDP_TX itself, whatever it finds. A program array holds
 * only programs of the receive program's type and frags flag: plain
 * "xdp", as mrc_xdp_rx is.
 */
SEC("xdp")
int mrc_cap_turn(struct xdp_md *ctx)
{
	if (ctx->ingress_ifindex == cap_ifindex)
		capture(ctx, MRC_CAP_VIA_XDP_TX, MRC_CAP_TURN_SEEN);
	else
		count(MRC_CAP_TURN_OTHER_PORT);
	return XDP_TX;
}

char LICENSE[] SEC("license") = "GPL";
