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
 * never pass the devmap, and neither do skbs (probes from mrcd's socket,
 * the low-latency path's packets): 'dir out' does not see them.
 *
 * Why not fentry/fexit on mrc_xdp_rx and mrc_xdp_tx, which would see all
 * of it: the kernel this project runs on refuses every fentry and fexit
 * program at load (EPERM, with an empty verifier log, even on a kernel
 * function). docs/mrcd.md ("Capturing a port") has the details.
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

#include "mrc/capture.h"
#include "mrc/wire.h"

/* The filter, set by mrcctl before load. */
const volatile __u32 cap_classes = MRC_CAP_ALL;
const volatile __u32 cap_qpn_on; /* 1: only BTH destination QP cap_qpn */
const volatile __u32 cap_qpn;
const volatile __u32 cap_snaplen = 65535;

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
 * Enough of a frame for its headers: Ethernet, one VLAN tag, IPv6 with one
 * routing header (SRv6) or IPv4 with options, UDP, BTH and AETH.
 */
#define CAP_HDR 255 /* a mask, for the verifier */
/* UDP, BTH and the AETH's first byte. */
#define CAP_L4 (8 + sizeof(struct mrc_bth) + 1)

/* The frame's class and BTH destination QP (~0 when it has none). */
static __always_inline __u32 classify(const __u8 *h, __u32 n, __u32 *qpn)
{
	__u32 off = ETH_HLEN, proto;
	__u8 l4;

	*qpn = ~0u;
	if (n < ETH_HLEN)
		return MRC_CAP_OTHER;
	proto = (__u32)h[12] << 8 | h[13];
	if (proto == ETH_P_8021Q || proto == ETH_P_8021AD) {
		proto = (__u32)h[16] << 8 | h[17];
		off += 4;
	}
	if (proto == ETH_P_IP) {
		if (off + 20 > n)
			return MRC_CAP_OTHER;
		l4 = h[off + 9];
		off += (h[off] & 0xf) * 4;
	} else if (proto == ETH_P_IPV6) {
		if (off + 40 > n)
			return MRC_CAP_OTHER;
		l4 = h[off + 6];
		off += 40;
		if (l4 == 43) { /* routing header: SRv6 */
			if (off > CAP_HDR - 2 || off + 2 > n)
				return MRC_CAP_OTHER;
			l4 = h[off];
			off += (h[off + 1] + 1) * 8;
		}
	} else {
		return MRC_CAP_OTHER;
	}
	/* off against a constant first: the verifier bounds it from that. */
	if (l4 != IPPROTO_UDP || off > CAP_HDR - CAP_L4 || off + CAP_L4 > n)
		return MRC_CAP_OTHER;
	if (((__u32)h[off + 2] << 8 | h[off + 3]) != MRC_UDP_PORT)
		return MRC_CAP_OTHER;
	off += 8;
	/*
	 * Byte by byte: the headers sit at any offset in h, and the verifier
	 * refuses a misaligned stack read.
	 */
	*qpn = (__u32)h[off + offsetof(struct mrc_bth, dqpn) + 1] << 16 |
	       (__u32)h[off + offsetof(struct mrc_bth, dqpn) + 2] << 8 |
	       h[off + offsetof(struct mrc_bth, dqpn) + 3];
	switch (h[off + offsetof(struct mrc_bth, opcode)]) {
	case MRC_OP_WRITE_ONLY:
	case MRC_OP_WRITE_ONLY_IMM:
		return MRC_CAP_DATA;
	case MRC_OP_ACK:
		/* The AETH's syndrome: its first byte (n checked above). */
		return (h[off + sizeof(struct mrc_bth)] & 0xe0) ==
				       MRC_AETH_NAK ?
			       MRC_CAP_NACK :
			       MRC_CAP_ACK;
	case MRC_OP_PROBE:
	case MRC_OP_PROBE_ANSWER:
		return MRC_CAP_PROBE;
	}
	return MRC_CAP_OTHER;
}

static __always_inline void capture(struct xdp_md *ctx, __u32 dir)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct mrc_cap_rec r = {};
	__u8 h[CAP_HDR + 1] = {};
	__u32 n;

	/* The out counters follow the in ones in the same order. */
	const __u32 base = dir == MRC_CAP_DIR_OUT ? MRC_CAP_OUT_SEEN : 0;

	count(base + MRC_CAP_SEEN);
	r.dir = (__u8)dir;
	r.pkt_len = (__u32)(end - data);
	n = r.pkt_len;
	/*
	 * The verifier wants the length of bpf_xdp_load_bytes bounded from
	 * both sides, and the header reads in classify() within h.
	 */
	if (n > CAP_HDR)
		n = CAP_HDR;
	n &= CAP_HDR;
	if (n < 1 || bpf_xdp_load_bytes(ctx, 0, h, n) < 0)
		n = 0;
	r.cls = (__u8)classify(h, n, &r.qpn);
	if (!(r.cls & cap_classes) || (cap_qpn_on && r.qpn != cap_qpn))
		return;
	count(base + MRC_CAP_MATCHED);
	r.ts_ns = bpf_ktime_get_ns();
	r.cap_len = r.pkt_len < cap_snaplen ? r.pkt_len : cap_snaplen;
	if (bpf_perf_event_output(ctx, &mrc_cap_ring,
				  BPF_F_CURRENT_CPU | (__u64)r.cap_len << 32,
				  &r, sizeof(r)) < 0)
		count(base + MRC_CAP_OUTPUT_FAILED);
}

SEC("xdp")
int mrc_cap_xdp(struct xdp_md *ctx)
{
	capture(ctx, MRC_CAP_DIR_IN);
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
	capture(ctx, MRC_CAP_DIR_OUT);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
