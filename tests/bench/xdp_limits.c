// SPDX-License-Identifier: GPL-2.0
/*
 * xdp_limits OUT PEER FRAMES: the machine's limits for the data path's
 * building blocks (xdp_limits.bpf.c says what each stage is), run in a
 * namespace where OUT and PEER are the two ends of a veth pair
 * (tests/bench/limits.sh makes it). One JSON object a line:
 *
 *   {"stage": "...", "frame_bytes": N, "frames": N, "delivered": N,
 *    "seconds": S, "mpps": R, "gbit_per_s": G, "cpu_s": C,
 *    "cpu_ns_per_frame": P}
 *
 * cpu_s is the whole machine's busy time (user, system, softirq, irq, from
 * /proc/stat) over the run, since the softirqs a stage causes run on
 * whichever CPU; cpu_ns_per_frame divides it by the frames delivered.
 * Needs root.
 */
#include <errno.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "xdp_limits.skel.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The machine's busy time so far, in ns (USER_HZ ticks from /proc/stat). */
static uint64_t busy_ns(void)
{
	unsigned long long v[8] = { 0 };
	FILE *f = fopen("/proc/stat", "r");
	long hz = sysconf(_SC_CLK_TCK);
	uint64_t busy;

	if (!f)
		return 0;
	/* cpu user nice system idle iowait irq softirq steal */
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8)
		v[0] = v[1] = v[2] = v[5] = v[6] = 0;
	fclose(f);
	busy = v[0] + v[1] + v[2] + v[5] + v[6];
	return busy * (1000000000ull / (uint64_t)(hz > 0 ? hz : 100));
}

/* Frames counted at lim_cnt[k] (0: the far end, 1: back at the sender). */
static uint64_t counted(struct xdp_limits *skel, uint32_t k)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t v[ncpu > 0 ? ncpu : 1], sum = 0;
	int i;

	if (ncpu <= 0 ||
	    bpf_map_lookup_elem(bpf_map__fd(skel->maps.lim_cnt), &k, v))
		return 0;
	for (i = 0; i < ncpu; i++)
		sum += v[i];
	return sum;
}

/* lo has no native XDP; the generic hook is enough to keep it attached. */
static int lo_index;

static int attach(int ifindex, struct bpf_program *p)
{
	int err = bpf_xdp_attach(ifindex, p ? bpf_program__fd(p) : -1,
				 ifindex == lo_index ? XDP_FLAGS_SKB_MODE :
						       XDP_FLAGS_DRV_MODE,
				 NULL);

	if (err && p)
		fprintf(stderr, "xdp_limits: attaching %s to ifindex %d: %s\n",
			bpf_program__name(p), ifindex, strerror(-err));
	return err;
}

/*
 * Run gen's live frames, FRAMES of frame_bytes, and print the stage's line.
 * at: the lim_cnt slot that counts arrivals, or -1 (nothing leaves).
 */
static int run(struct xdp_limits *skel, const char *stage,
	       struct bpf_program *gen, uint32_t frame_bytes, uint32_t frames,
	       int at)
{
	static uint8_t frame[4096];
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame,
		    .data_size_in = frame_bytes, .repeat = frames,
		    .flags = BPF_F_TEST_XDP_LIVE_FRAMES);
	uint64_t c0, t0, b0, t, b, got;
	uint32_t i;
	int err;

	/* Ethernet to a locally administered address, IPv4, then bytes. */
	memset(frame, 0, sizeof(frame));
	memcpy(frame,
	       "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01\x08\x00", 14);
	for (i = 14; i < sizeof(frame); i++)
		frame[i] = (uint8_t)(i * 131 + 7);
	c0 = at < 0 ? 0 : counted(skel, (uint32_t)at);
	b0 = busy_ns();
	t0 = now_ns();
	err = bpf_prog_test_run_opts(bpf_program__fd(gen), &o);
	t = now_ns() - t0;
	/* What is still in a veth ring arrives within a NAPI poll. */
	usleep(20000);
	b = busy_ns() - b0;
	if (err) {
		fprintf(stderr, "xdp_limits: %s: test run: %s%s\n", stage,
			strerror(errno),
			errno == EPERM ? " (this kernel refuses live frames)" :
					 "");
		return errno == EPERM ? -EPERM : -1;
	}
	got = at < 0 ? frames : counted(skel, (uint32_t)at) - c0;
	printf("{\"stage\": \"%s\", \"frame_bytes\": %u, \"frames\": %u, "
	       "\"delivered\": %llu, \"seconds\": %.6f, \"mpps\": %.4f, "
	       "\"gbit_per_s\": %.3f, \"cpu_s\": %.6f, "
	       "\"cpu_ns_per_frame\": %.1f}\n",
	       stage, frame_bytes, frames, (unsigned long long)got, t / 1e9,
	       got * 1e3 / (double)t, got * frame_bytes * 8.0 / (double)t,
	       b / 1e9, got ? (double)b / (double)got : 0.0);
	fflush(stdout);
	return 0;
}

/*
 * One bpf_ktime_get_ns(): lim_clock (16 reads) against lim_gen (none) in
 * plain test runs of a 64-byte frame, ns per run from the kernel's own
 * duration, the least of 5 tries each.
 */
static void clock_cost(struct xdp_limits *skel, uint32_t frames)
{
	static uint8_t frame[64];
	struct bpf_program *p[2] = { skel->progs.lim_gen,
				     skel->progs.lim_clock };
	uint32_t best[2] = { UINT32_MAX, UINT32_MAX };
	int k, t;

	for (k = 0; k < 2; k++)
		for (t = 0; t < 5; t++) {
			LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame,
				    .data_size_in = sizeof(frame),
				    .repeat = frames / 10 ? frames / 10 : 1);

			if (bpf_prog_test_run_opts(bpf_program__fd(p[k]), &o))
				return;
			if (o.duration < best[k])
				best[k] = o.duration;
		}
	printf("{\"stage\": \"ktime_get_ns\", \"ns_per_read\": %.1f, "
	       "\"run_ns_without\": %u, \"run_ns_with_16\": %u}\n",
	       best[1] > best[0] ? (best[1] - best[0]) / 16.0 : 0.0, best[0],
	       best[1]);
	fflush(stdout);
}

/* memcpy bandwidth: a hot 2 KiB chunk (a packet's copy) and 64 MiB. */
static void copy_limits(void)
{
	static const size_t sizes[] = { 2048, 64u << 20 };
	size_t k;

	for (k = 0; k < 2; k++) {
		size_t n = sizes[k], reps = (8ull << 30) / n, r;
		char *src = malloc(n), *dst = malloc(n);
		uint64_t t0, b0, t, b;

		if (!src || !dst) {
			free(src);
			free(dst);
			return;
		}
		memset(src, 1, n);
		memset(dst, 2, n);
		b0 = busy_ns();
		t0 = now_ns();
		for (r = 0; r < reps; r++) {
			src[r % n] = (char)r;
			memcpy(dst, src, n);
			__asm__ volatile("" : : "r"(dst) : "memory");
		}
		t = now_ns() - t0;
		b = busy_ns() - b0;
		printf("{\"stage\": \"memcpy\", \"copy_bytes\": %zu, "
		       "\"gbyte_per_s\": %.2f, \"seconds\": %.6f, "
		       "\"cpu_s\": %.6f}\n",
		       n, (double)n * (double)reps / (double)t, t / 1e9,
		       b / 1e9);
		free(src);
		free(dst);
	}
}

int main(int argc, char **argv)
{
	static const uint32_t sizes[] = { 64, 1514, 3014 };
	struct xdp_limits *skel;
	int out, peer, lo, rc = 1;
	uint32_t frames, i;

	if (argc != 4) {
		fprintf(stderr, "usage: xdp_limits OUT PEER FRAMES\n");
		return 2;
	}
	out = (int)if_nametoindex(argv[1]);
	peer = (int)if_nametoindex(argv[2]);
	lo = (int)if_nametoindex("lo");
	lo_index = lo;
	frames = (uint32_t)strtoul(argv[3], NULL, 0);
	if (!out || !peer || !lo || !frames) {
		fprintf(stderr,
			"xdp_limits: no interface %s or %s, or no frames\n",
			argv[1], argv[2]);
		return 2;
	}
	libbpf_set_print(NULL);
	skel = xdp_limits__open();
	if (!skel)
		return 1;
	skel->rodata->out_ifindex = (uint32_t)out;
	if (xdp_limits__load(skel)) {
		fprintf(stderr, "xdp_limits: load failed\n");
		goto destroy;
	}
	copy_limits();
	/* Attached, or each test run pays a grace period (DESIGN.md). */
	if (!attach(lo, skel->progs.lim_clock))
		clock_cost(skel, frames);
	for (i = 0; i < 3; i++) {
		uint32_t sz = sizes[i];

		/*
		 * Each generator is also attached to lo (DESIGN.md field
		 * notes: a live-frame run of a program attached nowhere
		 * pays 16-24 ms a call), swapped before each stage.
		 */
		if (attach(lo, skel->progs.lim_gen))
			goto detach;
		/* 77: nothing to measure (a kernel without live frames). */
		rc = run(skel, "live_frame", skel->progs.lim_gen, sz, frames,
			 -1);
		if (rc) {
			rc = rc == -EPERM ? 77 : 1;
			goto detach;
		}
		rc = 1;
		if (attach(lo, skel->progs.lim_out) ||
		    attach(peer, skel->progs.lim_drop) ||
		    attach(out, skel->progs.lim_back) ||
		    run(skel, "redirect_drop", skel->progs.lim_out, sz, frames,
			0))
			goto detach;
		if (attach(peer, skel->progs.lim_tx) ||
		    run(skel, "redirect_tx_back", skel->progs.lim_out, sz,
			frames, 1))
			goto detach;
		if (sz > 64) {
			skel->bss->copy_bytes = sz - 64;
			if (attach(lo, skel->progs.lim_copy) ||
			    attach(peer, skel->progs.lim_drop) ||
			    run(skel, "copy_redirect_drop",
				skel->progs.lim_copy, sz, frames, 0))
				goto detach;
		}
	}
	rc = 0;
detach:
	attach(lo, NULL);
	attach(out, NULL);
	attach(peer, NULL);
destroy:
	xdp_limits__destroy(skel);
	return rc;
}
