// SPDX-License-Identifier: GPL-2.0
/*
 * The machine's own limits for the data path's building blocks
 * (tests/bench/limits.sh, docs/perf.md): what the kernel can do with no
 * MRC logic at all, so each mrc figure can be stated as a fraction of it.
 *
 *   lim_gen    a live frame that goes nowhere (XDP_DROP in the test run):
 *              the cost of BPF_PROG_TEST_RUN's live-frame loop itself
 *   lim_out    a live frame redirected to the veth in out_ifindex: what
 *              mrc_xdp_tx's bpf_redirect_map costs, without building
 *   lim_copy   lim_out, after copying the frame's payload from a map value
 *              with bpf_xdp_store_bytes, as mrc_xdp_tx does from a region
 *   lim_drop   the receiving end: count and XDP_DROP
 *   lim_tx     the receiving end: count and XDP_TX (the ACK's way back)
 *   lim_back   the sending end: count what lim_tx turned back, XDP_DROP
 *   lim_clock  16 reads of bpf_ktime_get_ns(), then XDP_DROP: against
 *              lim_gen in a plain test run, the cost of one clock read
 *              (the data path reads it about four times a packet)
 *
 * Counters are per-CPU: lim_cnt[0] counts the frames lim_drop and lim_tx
 * saw, lim_cnt[1] those lim_back saw.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

/* Where lim_out and lim_copy send their frames. */
const volatile __u32 out_ifindex;
/* Payload bytes lim_copy writes after a 64-byte header; set per stage. */
__u32 copy_bytes;

#define LIM_COPY_MAX 4096

struct lim_region {
	__u8 b[LIM_COPY_MAX];
};

/* The source of lim_copy's payload: one page-sized chunk, as a region. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lim_region);
} lim_src SEC(".maps");

/* Frames seen by lim_drop and lim_tx, per CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, __u64);
} lim_cnt SEC(".maps");

static __always_inline void count(__u32 k)
{
	__u64 *c = bpf_map_lookup_elem(&lim_cnt, &k);

	if (c)
		(*c)++;
}

SEC("xdp")
int lim_gen(struct xdp_md *ctx)
{
	(void)ctx;
	return XDP_DROP;
}

SEC("xdp")
int lim_out(struct xdp_md *ctx)
{
	(void)ctx;
	return bpf_redirect(out_ifindex, 0);
}

SEC("xdp")
int lim_copy(struct xdp_md *ctx)
{
	__u32 k = 0, n = copy_bytes;
	struct lim_region *r = bpf_map_lookup_elem(&lim_src, &k);

	if (!r)
		return XDP_ABORTED;
	/* The verifier wants the length bounded where the helper sees it. */
	if (n < 1 || n > LIM_COPY_MAX)
		return XDP_ABORTED;
	if (bpf_xdp_store_bytes(ctx, 64, r->b, n))
		return XDP_ABORTED;
	return bpf_redirect(out_ifindex, 0);
}

SEC("xdp")
int lim_drop(struct xdp_md *ctx)
{
	(void)ctx;
	count(0);
	return XDP_DROP;
}

SEC("xdp")
int lim_tx(struct xdp_md *ctx)
{
	(void)ctx;
	count(0);
	return XDP_TX;
}

/* Where lim_clock's reads go, so none is optimized away. */
__u64 clock_sink;

SEC("xdp")
int lim_clock(struct xdp_md *ctx)
{
	__u64 t = 0;
	int i;

	(void)ctx;
	for (i = 0; i < 16; i++)
		t += bpf_ktime_get_ns();
	clock_sink = t;
	return XDP_DROP;
}

SEC("xdp")
int lim_back(struct xdp_md *ctx)
{
	(void)ctx;
	count(1);
	return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
