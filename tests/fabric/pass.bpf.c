// SPDX-License-Identifier: GPL-2.0
/*
 * The test fabric's router end of a host link when the routers forward in
 * the kernel (testbed up --kernel): every frame goes to the kernel stack.
 * It is there only so that the veth accepts frames a host's XDP program
 * sends towards it (XDP_TX, XDP_REDIRECT): on this kernel a veth whose
 * only NAPI comes from GRO drops them (counted in its rx_dropped), so
 * ACKs and probe answers that mrc_xdp_rx turns around were lost.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int mrc_fab_pass(struct xdp_md *ctx)
{
	(void)ctx;
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
