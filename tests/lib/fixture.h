/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the BPF fixture-test harness: a table of cases, each an
 * input frame, the verdict the program must return and the frame it must
 * leave behind, run through BPF_PROG_TEST_RUN as one cmocka test per case.
 * Adding a case is adding one entry:
 *
 *	{ .desc = "blackhole drops", .setup = set_blackhole,
 *	  .in = udp4_frame, .verdict = XDP_DROP },
 */
#ifndef MRC_TEST_FIXTURE_H
#define MRC_TEST_FIXTURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pkt.h"

struct fixture_out {
	const uint8_t *meta; /* XDP metadata in front of the frame */
	size_t meta_len;
	const uint8_t *frame;
	size_t len;
};

struct fixture {
	const char *desc;
	/* Put the maps into the state the case needs; 0 or -errno. */
	int (*setup)(void);
	void (*in)(struct pkt *p);
	int verdict;
	/*
	 * The exact frame expected back. NULL: the input, unchanged, unless
	 * check is given.
	 */
	void (*out)(struct pkt *p);
	/* Further conditions (counters, metadata): 0 when they hold. */
	int (*check)(const struct fixture_out *out);
	uint32_t ingress_ifindex; /* 0: loopback */
};

/*
 * Run every case against the XDP program prog_fd, each as one cmocka test
 * named after its desc. reset() runs before each case (clear the maps).
 * Returns the number of failed cases, as cmocka_run_group_tests does.
 */
int fixture_run_xdp(const char *group, const struct fixture *cases, size_t n,
		    int prog_fd, int (*reset)(void));

/* In a check function: fail the check, saying which condition broke. */
#define EXPECT(cond)                                                \
	do {                                                        \
		if (!(cond)) {                                      \
			fprintf(stderr, "  expected: %s\n", #cond); \
			return -1;                                  \
		}                                                   \
	} while (0)

/* Sum over CPUs of a per-CPU array's u64 at key; ~0 if the lookup fails. */
uint64_t fixture_percpu_sum(int map_fd, uint32_t key);

/* Zero keys 0 .. n-1 of a per-CPU array of u64; 0 or -1. */
int fixture_zero_percpu(int map_fd, uint32_t n);

struct bpf_object;
/*
 * Before obj is loaded: every map of obj that from has too (by name) is
 * from's, so two programs share their state; 0 or -1.
 */
int fixture_share_maps(struct bpf_object *obj, struct bpf_object *from);

/* Print a hex dump of the first difference between two frames to stderr. */
void fixture_diff(const uint8_t *want, size_t want_len, const uint8_t *got,
		  size_t got_len);

#endif /* MRC_TEST_FIXTURE_H */
