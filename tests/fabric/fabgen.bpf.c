// SPDX-License-Identifier: GPL-2.0
/*
 * Packet generator and sink for measuring the test fabric's forwarding
 * rate. mrc_fab_gen runs under BPF_PROG_TEST_RUN with live frames: it writes
 * a UDP frame from a template, varying the source port over a number of
 * flows, and transmits it out of the host's port with XDP_TX. mrc_fab_sink,
 * on the receiving host's port, counts and drops.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "fabric_abi.h"

#define GEN_HDR_LEN \
	(sizeof(struct ethhdr) + sizeof(struct iphdr) + sizeof(struct udphdr))

/* Set by fabgen before load. */
const volatile __u8 gen_hdr[GEN_HDR_LEN];
const volatile __u32 gen_flows = 1;
const volatile __u16 gen_sport_base = 20000;

__u64 gen_seq;

/* Packets the sink saw; per CPU, read by fabgen. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct fab_sink_counts);
} mrc_fab_sink_c SEC(".maps");

SEC("xdp")
int mrc_fab_gen(struct xdp_md *ctx)
{
	void *data, *end;
	struct udphdr *udp;
	__u64 seq;
	int i;

	/*
	 * Live frames recycle pages with whatever the last user left in them,
	 * the length included: shrink the one-byte-longer input explicitly
	 * and rewrite every header byte.
	 */
	if (bpf_xdp_adjust_tail(ctx, -1))
		return XDP_ABORTED;
	data = (void *)(long)ctx->data;
	end = (void *)(long)ctx->data_end;
	if (data + GEN_HDR_LEN > end)
		return XDP_ABORTED;
	for (i = 0; i < (int)GEN_HDR_LEN; i++)
		((__u8 *)data)[i] = gen_hdr[i];
	seq = __sync_fetch_and_add(&gen_seq, 1);
	udp = data + sizeof(struct ethhdr) + sizeof(struct iphdr);
	udp->source = bpf_htons(gen_sport_base + seq % gen_flows);
	return XDP_TX;
}

SEC("xdp")
int mrc_fab_sink(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data,
	     *end = (void *)(long)ctx->data_end;
	struct fab_sink_counts *c;
	__u8 *hdr = data;
	__u32 zero = 0;

	/* Count only what the generator sends: IPv4, UDP, port 9000. */
	if (data + GEN_HDR_LEN > end || hdr[12] != 0x08 || hdr[13] != 0x00 ||
	    hdr[23] != 17 || hdr[36] != 9000 >> 8 || hdr[37] != (9000 & 0xff))
		return XDP_PASS;
	c = bpf_map_lookup_elem(&mrc_fab_sink_c, &zero);
	if (c) {
		c->packets++;
		c->bytes +=
			(void *)(long)ctx->data_end - (void *)(long)ctx->data;
	}
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
