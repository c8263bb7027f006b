// SPDX-License-Identifier: GPL-2.0
/*
 * fabgen: measure the test fabric's forwarding rate. Generates UDP frames
 * on one host's port with BPF_PROG_TEST_RUN live frames (no skb, no socket:
 * the generator is not the bottleneck) and counts what reaches another
 * host's port with an XDP sink.
 *
 *   fabgen --src-netns NS --src-dev DEV --src-mac MAC --src-ip IP
 *          --dst-netns NS --dst-dev DEV --dst-mac MAC --dst-ip IP
 *          --anchor-dev DEV [--flows N] [--size BYTES] [--ms N]
 *
 * --dst-mac is the next hop's MAC (the leaf, or the peer in direct mode).
 * --anchor-dev is an idle interface in the source namespace the generator
 * is also attached to: live-frame runs of more than one frame are about
 * 1000 times slower while the program is attached nowhere (DESIGN.md).
 * Prints one JSON object with packets sent and received and the rates.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "csum.h"
#include "fabric_abi.h"
#include "fabgen.skel.h"

#define HDR_LEN 42

struct opts {
	const char *src_ns, *src_dev, *src_mac, *src_ip;
	const char *dst_ns, *dst_dev, *dst_mac, *dst_ip;
	const char *anchor;
	unsigned long flows, size, ms;
};

static int enter(const char *ns)
{
	char path[PATH_MAX];
	int fd, err = 0;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET))
		err = -errno;
	if (fd >= 0)
		close(fd);
	if (err)
		fprintf(stderr, "fabgen: entering netns %s: %s\n", ns,
			strerror(-err));
	return err;
}

static int ifindex(const char *dev)
{
	int idx = (int)if_nametoindex(dev);

	if (!idx)
		fprintf(stderr, "fabgen: no interface %s: %s\n", dev,
			strerror(errno));
	return idx ? idx : -ENODEV;
}

static int parse_mac(const char *s, uint8_t *mac)
{
	unsigned int b[6];
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4],
		   &b[5]) != 6)
		return -EINVAL;
	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

/* Ethernet + IPv4 + UDP header template for a frame of o->size bytes. */
static int build_hdr(const struct opts *o, uint8_t *h)
{
	uint16_t ip_len = o->size - 14;

	memset(h, 0, HDR_LEN);
	if (parse_mac(o->dst_mac, h) || parse_mac(o->src_mac, h + 6)) {
		fprintf(stderr, "fabgen: bad MAC address\n");
		return -EINVAL;
	}
	put16(h + 12, 0x0800);
	h[14] = 0x45;
	h[14 + 1] = 0x02; /* ECT(0) */
	put16(h + 14 + 2, ip_len);
	put16(h + 14 + 6, 0x4000);
	h[14 + 8] = 64;
	h[14 + 9] = 17;
	if (inet_pton(AF_INET, o->src_ip, h + 14 + 12) != 1 ||
	    inet_pton(AF_INET, o->dst_ip, h + 14 + 16) != 1) {
		fprintf(stderr, "fabgen: bad IPv4 address\n");
		return -EINVAL;
	}
	put16(h + 14 + 10, mrc_csum(h + 14, 20));
	put16(h + 34 + 2, 9000);
	put16(h + 34 + 4, ip_len - 20);
	return 0; /* UDP checksum 0: none */
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int usage(void)
{
	fprintf(stderr,
		"Usage: fabgen --src-netns NS --src-dev DEV --src-mac MAC --src-ip IP\n"
		"              --dst-netns NS --dst-dev DEV --dst-mac MAC --dst-ip IP\n"
		"              --anchor-dev DEV [--flows N] [--size BYTES] [--ms N]\n");
	return 2;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "src-netns", 1, 0, 1 },
		{ "src-dev", 1, 0, 2 },
		{ "src-mac", 1, 0, 3 },
		{ "src-ip", 1, 0, 4 },
		{ "dst-netns", 1, 0, 5 },
		{ "dst-dev", 1, 0, 6 },
		{ "dst-mac", 1, 0, 7 },
		{ "dst-ip", 1, 0, 8 },
		{ "anchor-dev", 1, 0, 9 },
		{ "flows", 1, 0, 10 },
		{ "size", 1, 0, 11 },
		{ "ms", 1, 0, 12 },
		{ 0, 0, 0, 0 },
	};
	const char **strs[] = { &o->src_ns,  &o->src_dev, &o->src_mac,
				&o->src_ip,  &o->dst_ns,  &o->dst_dev,
				&o->dst_mac, &o->dst_ip,  &o->anchor };
	unsigned long *nums[] = { &o->flows, &o->size, &o->ms };
	const unsigned long lim[][2] = { { 1, 65536 },
					 { 60, 1500 },
					 { 10, 60000 } };
	char *end;
	int c;

	o->flows = 64;
	o->size = 64;
	o->ms = 2000;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		if (c >= 1 && c <= 9) {
			*strs[c - 1] = optarg;
		} else if (c >= 10 && c <= 12) {
			*nums[c - 10] = strtoul(optarg, &end, 10);
			if (*end || *nums[c - 10] < lim[c - 10][0] ||
			    *nums[c - 10] > lim[c - 10][1]) {
				fprintf(stderr,
					"fabgen: --%s %s: want %lu..%lu\n",
					lo[c - 1].name, optarg, lim[c - 10][0],
					lim[c - 10][1]);
				return -EINVAL;
			}
		} else {
			return -EINVAL;
		}
	}
	for (c = 0; c < 9; c++) {
		if (!*strs[c]) {
			fprintf(stderr, "fabgen: --%s is required\n",
				lo[c].name);
			return -EINVAL;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	int ncpu = libbpf_num_possible_cpus(), src_if, dst_if = -1,
	    anchor_if = -1;
	struct fab_sink_counts *per_cpu = NULL;
	uint8_t frame[1501 + 1];
	struct fabgen *skel;
	__u64 sent = 0, rx_pkts = 0;
	double t0, t1;
	struct opts o = {};
	__u32 zero = 0;
	int err, i;

	if (parse_opts(argc, argv, &o))
		return usage();
	skel = fabgen__open();
	if (!skel)
		return 1;
	err = build_hdr(&o, (uint8_t *)skel->rodata->gen_hdr);
	skel->rodata->gen_flows = o.flows;
	if (err || (err = fabgen__load(skel))) {
		fprintf(stderr, "fabgen: load: %s\n", strerror(-err));
		goto out;
	}
	/* The sink first, so nothing sent is missed. */
	err = enter(o.dst_ns);
	if (err || (err = dst_if = ifindex(o.dst_dev)) < 0)
		goto out;
	err = bpf_xdp_attach(dst_if, bpf_program__fd(skel->progs.mrc_fab_sink),
			     XDP_FLAGS_DRV_MODE, NULL);
	if (err) {
		fprintf(stderr, "fabgen: sink on %s: %s\n", o.dst_dev,
			strerror(-err));
		dst_if = -1;
		goto out;
	}
	err = enter(o.src_ns);
	if (err || (err = src_if = ifindex(o.src_dev)) < 0 ||
	    (err = anchor_if = ifindex(o.anchor)) < 0)
		goto out;
	err = bpf_xdp_attach(anchor_if,
			     bpf_program__fd(skel->progs.mrc_fab_gen),
			     XDP_FLAGS_DRV_MODE, NULL);
	if (err) {
		fprintf(stderr, "fabgen: anchor %s: %s\n", o.anchor,
			strerror(-err));
		anchor_if = -1;
		goto out;
	}

	memset(frame, 0, sizeof(frame));
	t0 = now_s();
	do {
		struct xdp_md ctx = { .data_end = o.size + 1,
				      .ingress_ifindex = src_if };

		LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = frame,
			    .data_size_in = o.size + 1, .ctx_in = &ctx,
			    .ctx_size_in = sizeof(ctx), .repeat = 1 << 16,
			    .flags = BPF_F_TEST_XDP_LIVE_FRAMES);
		err = bpf_prog_test_run_opts(
			bpf_program__fd(skel->progs.mrc_fab_gen), &run);
		if (err) {
			fprintf(stderr, "fabgen: live frames: %s%s\n",
				strerror(-err),
				err == -EPERM ? " (this kernel refuses them)" :
						"");
			goto out;
		}
		sent += 1 << 16;
		t1 = now_s();
	} while (t1 - t0 < o.ms / 1000.0);
	usleep(200 * 1000); /* let the fabric drain */

	per_cpu = calloc(ncpu, sizeof(*per_cpu));
	if (!per_cpu ||
	    bpf_map__lookup_elem(skel->maps.mrc_fab_sink_c, &zero, sizeof(zero),
				 per_cpu, sizeof(*per_cpu) * ncpu, 0)) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < ncpu; i++)
		rx_pkts += per_cpu[i].packets;
	printf("{\"frame_bytes\":%lu,\"flows\":%lu,\"seconds\":%.3f,"
	       "\"sent_packets\":%llu,\"received_packets\":%llu,"
	       "\"tx_mpps\":%.3f,\"rx_mpps\":%.3f,\"delivered_ratio\":%.4f}\n",
	       o.size, o.flows, t1 - t0, (unsigned long long)sent,
	       (unsigned long long)rx_pkts, sent / (t1 - t0) / 1e6,
	       rx_pkts / (t1 - t0) / 1e6, sent ? (double)rx_pkts / sent : 0);
out:
	free(per_cpu);
	if (anchor_if > 0)
		bpf_xdp_detach(anchor_if, XDP_FLAGS_DRV_MODE, NULL);
	if (dst_if > 0 && !enter(o.dst_ns))
		bpf_xdp_detach(dst_if, XDP_FLAGS_DRV_MODE, NULL);
	fabgen__destroy(skel);
	/* 77: nothing to measure here (a kernel without live frames). */
	return err == -EPERM ? 77 : err ? 1 : 0;
}
