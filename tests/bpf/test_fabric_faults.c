// SPDX-License-Identifier: GPL-2.0
/*
 * Fixture tests of the test fabric's forwarding and fault program
 * (tests/fabric/fabric.bpf.c) through BPF_PROG_TEST_RUN.
 *
 * The test runs in a network namespace of its own:
 *
 *     lo (ingress, ifindex 1)          fx0 02:00:00:00:00:0a ==veth== fx1
 *       packets "arrive" here          198.18.200.1/24, fd00:99::1/64
 *                                      neighbours .2 / ::2 = 02:..:0b
 *
 * so a packet to 198.18.200.2 or fd00:99::2 is forwarded out of fx0 and
 * anything else has no route. Faults are set on lo (direction in) or fx0
 * (direction out), as fabricctl sets them on a router's interfaces.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fabric_abi.h"
#include "fabric.skel.h"
#include "fixture.h"

#define LO 1
static __u32 fx0;
static struct mrc_fab *skel;

/* --- frames ---------------------------------------------------------------- */

#define SRC4 "198.18.100.2"
#define DST4 "198.18.200.2"
#define SRC6 "fd00:98::2"
#define DST6 "fd00:99::2"
#define ECT0 0x02
#define ECT1 0x01
#define PAYLOAD 200

static void udp4_common(struct pkt *p, const char *dst, uint8_t tos,
			uint16_t sport, int csum)
{
	pkt_eth(p, PKT_MAC_B, PKT_MAC_A);
	pkt_ipv4(p, SRC4, dst, tos);
	pkt_udp(p, sport, 4791);
	pkt_pattern(p, PAYLOAD, 1);
	p->udp_csum = csum;
	pkt_finish(p);
}

/* What fx0 sends: next-hop MAC (the neighbour), fx0's MAC, TTL one less. */
static void forwarded(struct pkt *p)
{
	memcpy(p->data, PKT_MAC_B, 6);
	memcpy(p->data + 6, PKT_MAC_A, 6);
	pkt_set_ttl(p, 63);
	pkt_finish(p);
}

static void udp4(struct pkt *p)
{
	udp4_common(p, DST4, ECT0, 20000, 1);
}

static void udp4_fwd(struct pkt *p)
{
	udp4(p);
	forwarded(p);
}

static void udp4_sport20001(struct pkt *p)
{
	udp4_common(p, DST4, ECT0, 20001, 1);
}

static void udp4_sport20001_fwd(struct pkt *p)
{
	udp4_sport20001(p);
	forwarded(p);
}

static void udp4_noroute(struct pkt *p)
{
	udp4_common(p, "198.18.201.2", ECT0, 20000, 1);
}

static void udp4_ttl1(struct pkt *p)
{
	udp4(p);
	pkt_set_ttl(p, 1);
	pkt_finish(p);
}

static void udp4_notect(struct pkt *p)
{
	udp4_common(p, DST4, 0, 20000, 1);
}

static void udp4_notect_fwd(struct pkt *p)
{
	udp4_notect(p);
	forwarded(p);
}

static void udp4_nocsum(struct pkt *p)
{
	udp4_common(p, DST4, ECT0, 20000, 0);
}

static void udp6_common(struct pkt *p, uint8_t tclass, size_t len)
{
	pkt_eth(p, PKT_MAC_B, PKT_MAC_A);
	pkt_ipv6(p, SRC6, DST6, tclass);
	pkt_udp(p, 20000, 4791);
	pkt_pattern(p, len, 1);
	pkt_finish(p);
}

static void udp6(struct pkt *p)
{
	udp6_common(p, ECT1, PAYLOAD);
}

static void udp6_fwd(struct pkt *p)
{
	udp6(p);
	forwarded(p);
}

/* 1500 bytes of IPv6 (header 40 + UDP 8 + payload), and one more. */
static void udp6_mtu(struct pkt *p)
{
	udp6_common(p, ECT1, 1500 - 40 - 8);
}

static void udp6_mtu_fwd(struct pkt *p)
{
	udp6_mtu(p);
	forwarded(p);
}

static void udp6_past_mtu(struct pkt *p)
{
	udp6_common(p, ECT1, 1500 - 40 - 8 + 1);
}

/* A UDP datagram with no payload: nothing to corrupt. */
static void udp4_empty(struct pkt *p)
{
	pkt_eth(p, PKT_MAC_B, PKT_MAC_A);
	pkt_ipv4(p, SRC4, DST4, ECT0);
	pkt_udp(p, 20000, 4791);
	pkt_finish(p);
}

static void udp4_empty_fwd(struct pkt *p)
{
	udp4_empty(p);
	forwarded(p);
}

static void arp(struct pkt *p)
{
	static const uint8_t body[28] = { 0, 1, 8, 0, 6, 4, 0, 1 };

	pkt_eth(p, PKT_MAC_B, PKT_MAC_A);
	p->data[12] = 0x08;
	p->data[13] = 0x06;
	pkt_bytes(p, body, sizeof(body));
}

static void udp6_multicast(struct pkt *p)
{
	pkt_eth(p, PKT_MAC_B, PKT_MAC_A);
	pkt_ipv6(p, SRC6, "ff02::16", 0);
	pkt_udp(p, 20000, 4791);
	pkt_pattern(p, 20, 1);
	pkt_finish(p);
}

static void ipv4_cut(struct pkt *p)
{
	static const uint8_t half_header[10] = { 0x45, 0, 0, 40 };

	pkt_eth(p, PKT_MAC_B, PKT_MAC_A);
	p->data[12] = 0x08;
	pkt_bytes(p, half_header, sizeof(half_header));
}

static void flip(struct pkt *p, size_t payload_byte)
{
	p->data[p->payload_off + payload_byte] ^= 0xff;
}

static void udp4_corrupt5_fwd(struct pkt *p)
{
	udp4_fwd(p);
	flip(p, 5); /* after the checksum: the receiver must notice */
}

static void udp4_corrupt_last_fwd(struct pkt *p)
{
	udp4_fwd(p);
	flip(p, PAYLOAD - 1);
}

/* A trimmed packet is the same packet built with the kept payload only. */
static void udp4_trim64_fwd(struct pkt *p)
{
	udp4_common(p, DST4, 9 << 2 | ECT0, 20000, 1);
	p->len = p->payload_off + 64;
	forwarded(p);
}

static void udp4_nocsum_trim64_fwd(struct pkt *p)
{
	udp4_common(p, DST4, 9 << 2 | ECT0, 20000, 0);
	p->len = p->payload_off + 64;
	forwarded(p);
}

static void udp6_trim32_fwd(struct pkt *p)
{
	udp6_common(p, 46 << 2 | ECT1, 32);
	forwarded(p);
}

static void udp4_ce_fwd(struct pkt *p)
{
	udp4_common(p, DST4, 0x03, 20000, 1);
	forwarded(p);
}

static void udp6_ce_fwd(struct pkt *p)
{
	udp6_common(p, 0x03, PAYLOAD);
	forwarded(p);
}

/* --- map state ------------------------------------------------------------- */

static __u64 stat(__u32 ifindex, enum fab_counter c)
{
	int ncpu = libbpf_num_possible_cpus(), i;
	struct fab_stats per_cpu[ncpu];
	__u64 sum = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.mrc_fab_stats), &ifindex,
				per_cpu))
		return ~0ull;
	for (i = 0; i < ncpu; i++)
		sum += per_cpu[i].cnt[c];
	return sum;
}

static int set_fault(__u32 ifindex, const struct fab_fault *f)
{
	return bpf_map_update_elem(bpf_map__fd(skel->maps.mrc_fab_fault),
				   &ifindex, f, BPF_ANY);
}

static int reset(void)
{
	int ncpu = libbpf_num_possible_cpus(), fd, err = 0;
	struct fab_stats zero[ncpu];
	__u32 ifs[2] = { LO, fx0 };
	struct fab_sport_key sk;
	struct fab_qsrc_key qk;
	__u32 key;
	int i;

	memset(zero, 0, sizeof(zero));
	fd = bpf_map__fd(skel->maps.mrc_fab_qsrc);
	while (!bpf_map_get_next_key(fd, NULL, &qk))
		bpf_map_delete_elem(fd, &qk);
	fd = bpf_map__fd(skel->maps.mrc_fab_fault);
	while (!bpf_map_get_next_key(fd, NULL, &key))
		bpf_map_delete_elem(fd, &key);
	fd = bpf_map__fd(skel->maps.mrc_fab_sport);
	while (!bpf_map_get_next_key(fd, NULL, &sk))
		bpf_map_delete_elem(fd, &sk);
	fd = bpf_map__fd(skel->maps.mrc_fab_stats);
	for (i = 0; i < 2; i++)
		err = err ?: bpf_map_update_elem(fd, &ifs[i], zero, BPF_ANY);
	return err;
}

#define IN (FAB_DIR_IN)
#define OUT (FAB_DIR_OUT)
#define ALWAYS FAB_PROB_ALWAYS

static int blackhole_in(void)
{
	struct fab_fault f = { .flags = FAB_F_BLACKHOLE, .dir_mask = IN };

	return set_fault(LO, &f);
}

static int blackhole_out_fx0(void)
{
	struct fab_fault f = { .flags = FAB_F_BLACKHOLE, .dir_mask = OUT };

	return set_fault(fx0, &f);
}

static int blackhole_out_on_lo(void)
{
	struct fab_fault f = { .flags = FAB_F_BLACKHOLE, .dir_mask = OUT };

	return set_fault(LO, &f);
}

static int drop_always(void)
{
	struct fab_fault f = { .dir_mask = IN, .drop_prob = ALWAYS };

	return set_fault(LO, &f);
}

static int drop_never(void)
{
	struct fab_fault f = { .dir_mask = IN | OUT };

	return set_fault(LO, &f) ?: set_fault(fx0, &f);
}

static int sport_drop_20000(void)
{
	struct fab_fault f = { .flags = FAB_F_SPORT_DROP, .dir_mask = IN };
	struct fab_sport_key k = { .ifindex = LO, .sport = 20000 };
	__u8 one = 1;

	return bpf_map_update_elem(bpf_map__fd(skel->maps.mrc_fab_sport), &k, &one, BPF_ANY) ?:
		       set_fault(LO, &f);
}

static int corrupt_at_5(void)
{
	struct fab_fault f = { .dir_mask = OUT,
			       .corrupt_prob = ALWAYS,
			       .corrupt_offset_bytes = 5 };

	return set_fault(fx0, &f);
}

static int corrupt_past_end(void)
{
	struct fab_fault f = { .dir_mask = IN,
			       .corrupt_prob = ALWAYS,
			       .corrupt_offset_bytes = 60000 };

	return set_fault(LO, &f);
}

static int trim_64_dscp_9(void)
{
	struct fab_fault f = { .dir_mask = IN,
			       .trim_prob = ALWAYS,
			       .trim_keep_bytes = 64,
			       .trim_dscp = 9 };

	return set_fault(LO, &f);
}

static int trim_32_dscp_46_out(void)
{
	struct fab_fault f = { .dir_mask = OUT,
			       .trim_prob = ALWAYS,
			       .trim_keep_bytes = 32,
			       .trim_dscp = 46 };

	return set_fault(fx0, &f);
}

static int trim_keep_max(void)
{
	struct fab_fault f = { .dir_mask = IN,
			       .trim_prob = ALWAYS,
			       .trim_keep_bytes = FAB_TRIM_KEEP_MAX,
			       .trim_dscp = 9 };

	return set_fault(LO, &f);
}

static int ecn_always(void)
{
	struct fab_fault f = { .dir_mask = IN, .ecn_prob = ALWAYS };

	return set_fault(LO, &f);
}

static int dup_always(void)
{
	struct fab_fault f = { .dir_mask = OUT, .dup_prob = ALWAYS };

	return set_fault(fx0, &f);
}

static int via_stack_fx0(void)
{
	struct fab_fault f = { .flags = FAB_F_VIA_STACK, .dir_mask = OUT };

	return set_fault(fx0, &f);
}

/* --- checks ---------------------------------------------------------------- */

static int counted_forward(const struct fixture_out *o)
{
	EXPECT(stat(LO, FAB_CNT_RX_PACKETS) == 1);
	EXPECT(stat(fx0, FAB_CNT_TX_PACKETS) == 1);
	EXPECT(stat(fx0, FAB_CNT_TX_BYTES) == o->len);
	EXPECT(pkt_verify_csums(o->frame, o->len) == 0);
	return 0;
}

static int counted_no_fib(const struct fixture_out *o)
{
	(void)o;
	EXPECT(stat(LO, FAB_CNT_PASS_LOCAL) == 1);
	return 0;
}

static int counted_ttl(const struct fixture_out *o)
{
	(void)o;
	EXPECT(stat(LO, FAB_CNT_PASS_TTL) == 1);
	EXPECT(stat(fx0, FAB_CNT_TX_PACKETS) == 0);
	return 0;
}

static int counted_not_ip(const struct fixture_out *o)
{
	(void)o;
	EXPECT(stat(LO, FAB_CNT_PASS_NOT_IP) == 1);
	EXPECT(stat(LO, FAB_CNT_RX_PACKETS) == 0);
	return 0;
}

static int counted_multicast(const struct fixture_out *o)
{
	(void)o;
	EXPECT(stat(LO, FAB_CNT_PASS_MULTICAST) == 1);
	EXPECT(stat(LO, FAB_CNT_RX_PACKETS) == 0);
	return 0;
}

static int counted_malformed(const struct fixture_out *o)
{
	(void)o;
	EXPECT(stat(LO, FAB_CNT_PASS_MALFORMED) == 1);
	return 0;
}

static int counted_blackhole_lo(const struct fixture_out *o)
{
	(void)o;
	EXPECT(stat(LO, FAB_CNT_DROP_BLACKHOLE) == 1);
	EXPECT(stat(fx0, FAB_CNT_TX_PACKETS) == 0);
	return 0;
}

static int counted_blackhole_fx0(const struct fixture_out *o)
{
	(void)o;
	EXPECT(stat(fx0, FAB_CNT_DROP_BLACKHOLE) == 1);
	EXPECT(stat(LO, FAB_CNT_DROP_BLACKHOLE) == 0);
	EXPECT(stat(fx0, FAB_CNT_TX_PACKETS) == 0);
	return 0;
}

static int counted_drop_random(const struct fixture_out *o)
{
	(void)o;
	EXPECT(stat(LO, FAB_CNT_DROP_RANDOM) == 1);
	return 0;
}

static int counted_drop_sport(const struct fixture_out *o)
{
	(void)o;
	EXPECT(stat(LO, FAB_CNT_DROP_SPORT) == 1);
	return 0;
}

static int counted_corrupt_fx0(const struct fixture_out *o)
{
	EXPECT(stat(fx0, FAB_CNT_CORRUPTED) == 1);
	EXPECT(pkt_verify_csums(o->frame, o->len) != 0);
	return 0;
}

static int counted_corrupt_lo(const struct fixture_out *o)
{
	(void)o;
	EXPECT(stat(LO, FAB_CNT_CORRUPTED) == 1);
	return 0;
}

static int not_corrupted(const struct fixture_out *o)
{
	EXPECT(stat(LO, FAB_CNT_CORRUPTED) == 0);
	return counted_forward(o);
}

static int counted_trim_lo(const struct fixture_out *o)
{
	EXPECT(stat(LO, FAB_CNT_TRIMMED) == 1);
	EXPECT(pkt_verify_csums(o->frame, o->len) == 0);
	EXPECT(stat(fx0, FAB_CNT_TX_BYTES) == o->len);
	return 0;
}

static int counted_trim_fx0(const struct fixture_out *o)
{
	EXPECT(stat(fx0, FAB_CNT_TRIMMED) == 1);
	EXPECT(pkt_verify_csums(o->frame, o->len) == 0);
	return 0;
}

static int not_trimmed(const struct fixture_out *o)
{
	EXPECT(stat(LO, FAB_CNT_TRIMMED) == 0);
	return counted_forward(o);
}

static int counted_ce(const struct fixture_out *o)
{
	EXPECT(stat(LO, FAB_CNT_ECN_MARKED) == 1);
	EXPECT(pkt_verify_csums(o->frame, o->len) == 0);
	return 0;
}

static int counted_not_ect(const struct fixture_out *o)
{
	(void)o;
	EXPECT(stat(LO, FAB_CNT_ECN_NOT_ECT) == 1);
	EXPECT(stat(LO, FAB_CNT_ECN_MARKED) == 0);
	return 0;
}

/*
 * The dup fault: the forwarded frame behind a struct fab_dup_hdr naming
 * fx0, two copies counted; and mrc_fab_tc_dup, run on what the stack would
 * give it, takes the request out and redirects the forwarded frame to fx0.
 */
static int dup_request(const struct fixture_out *o)
{
	static uint8_t back[PKT_MAX];
	static struct pkt want;
	struct fab_dup_hdr d;
	__u32 magic, egress;

	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = o->frame,
		    .data_size_in = o->len, .data_out = back,
		    .data_size_out = sizeof(back));

	pkt_init(&want);
	udp4_fwd(&want);
	EXPECT(o->meta_len == 0);
	EXPECT(o->len == sizeof(d) + want.len);
	memcpy(&d, o->frame, sizeof(d));
	memcpy(&magic, d.magic, sizeof(magic));
	memcpy(&egress, d.egress_ifindex, sizeof(egress));
	EXPECT(magic == FAB_DUP_MAGIC);
	EXPECT(egress == fx0);
	EXPECT(memcmp(d.eth, want.data, sizeof(d.eth)) == 0);
	EXPECT(memcmp(o->frame + sizeof(d), want.data, want.len) == 0);
	EXPECT(stat(fx0, FAB_CNT_DUPLICATED) == 1);
	EXPECT(stat(fx0, FAB_CNT_TX_PACKETS) == 2);

	EXPECT(bpf_prog_test_run_opts(
		       bpf_program__fd(skel->progs.mrc_fab_tc_dup), &opts) ==
	       0);
	EXPECT(opts.retval == TC_ACT_REDIRECT);
	EXPECT(opts.data_size_out == want.len);
	EXPECT(memcmp(back, want.data, want.len) == 0);
	EXPECT(stat(fx0, FAB_CNT_DROP_DUP_FAILED) == 0);
	return 0;
}

/* mrc_fab_tc_dup lets a frame without a request through unchanged. */
static void tc_dup_passes_others(void **state)
{
	static uint8_t back[PKT_MAX];
	static struct pkt in;
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_out = back,
		    .data_size_out = sizeof(back));

	(void)state;
	pkt_init(&in);
	udp4_fwd(&in);
	opts.data_in = in.data;
	opts.data_size_in = in.len;
	assert_int_equal(bpf_prog_test_run_opts(
				 bpf_program__fd(skel->progs.mrc_fab_tc_dup),
				 &opts),
			 0);
	assert_int_equal(opts.retval, TC_ACT_OK);
	assert_int_equal(opts.data_size_out, in.len);
	assert_memory_equal(back, in.data, in.len);
}

static int counted_via_stack(const struct fixture_out *o)
{
	EXPECT(o->meta_len == 0);
	EXPECT(stat(fx0, FAB_CNT_PASS_STACK) == 1);
	EXPECT(stat(fx0, FAB_CNT_TX_PACKETS) == 0);
	return 0;
}

/* --- the table ------------------------------------------------------------- */

/* One case: description, setup, input, verdict, expected frame, check. */
#define FX(d, s, i, v, o, c)                                            \
	{                                                               \
		.desc = d, .setup = s, .in = i, .verdict = v, .out = o, \
		.check = c                                              \
	}

static const struct fixture cases[] = {
	FX("IPv4 UDP forwarded: TTL-1, next-hop MACs, counted", NULL, udp4,
	   XDP_REDIRECT, udp4_fwd, counted_forward),
	FX("IPv6 UDP forwarded: hop limit-1, next-hop MACs", NULL, udp6,
	   XDP_REDIRECT, udp6_fwd, counted_forward),
	FX("IPv6 of 1500 bytes on a 1500-byte link: forwarded", NULL, udp6_mtu,
	   XDP_REDIRECT, udp6_mtu_fwd, counted_forward),
	FX("IPv6 of 1501 bytes: passed, the kernel sends Packet Too Big", NULL,
	   udp6_past_mtu, XDP_PASS, udp6_past_mtu, counted_no_fib),
	FX("no route: passed to the kernel unchanged", NULL, udp4_noroute,
	   XDP_PASS, NULL, counted_no_fib),
	FX("TTL 1: passed so the kernel sends time-exceeded", NULL, udp4_ttl1,
	   XDP_PASS, udp4_ttl1, counted_ttl),
	FX("ARP: passed, not counted as IP", NULL, arp, XDP_PASS, arp,
	   counted_not_ip),
	FX("IPv6 multicast: passed, stays on the link", NULL, udp6_multicast,
	   XDP_PASS, udp6_multicast, counted_multicast),
	FX("truncated IPv4 header: passed as malformed", NULL, ipv4_cut,
	   XDP_PASS, ipv4_cut, counted_malformed),
	FX("blackhole in: dropped on arrival", blackhole_in, udp4, XDP_DROP,
	   NULL, counted_blackhole_lo),
	FX("blackhole out on fx0: dropped after the lookup", blackhole_out_fx0,
	   udp4, XDP_DROP, NULL, counted_blackhole_fx0),
	FX("blackhole dir out on the ingress: arrivals pass",
	   blackhole_out_on_lo, udp4, XDP_REDIRECT, udp4_fwd, counted_forward),
	FX("drop probability 1: dropped", drop_always, udp4, XDP_DROP, NULL,
	   counted_drop_random),
	FX("drop probability 0: forwarded", drop_never, udp4, XDP_REDIRECT,
	   udp4_fwd, counted_forward),
	FX("sport-drop 20000: source port 20000 dropped", sport_drop_20000,
	   udp4, XDP_DROP, NULL, counted_drop_sport),
	FX("sport-drop 20000: source port 20001 forwarded", sport_drop_20000,
	   udp4_sport20001, XDP_REDIRECT, udp4_sport20001_fwd, NULL),
	FX("corrupt offset 5: one byte flipped, checksum left stale",
	   corrupt_at_5, udp4, XDP_REDIRECT, udp4_corrupt5_fwd,
	   counted_corrupt_fx0),
	FX("corrupt offset past the end: last byte flipped", corrupt_past_end,
	   udp4, XDP_REDIRECT, udp4_corrupt_last_fwd, counted_corrupt_lo),
	FX("corrupt with no payload: unchanged, not counted", corrupt_past_end,
	   udp4_empty, XDP_REDIRECT, udp4_empty_fwd, not_corrupted),
	FX("trim keep 64 dscp 9 (IPv4): lengths, checksums, mark",
	   trim_64_dscp_9, udp4, XDP_REDIRECT, udp4_trim64_fwd,
	   counted_trim_lo),
	FX("trim without UDP checksum (IPv4): checksum stays zero",
	   trim_64_dscp_9, udp4_nocsum, XDP_REDIRECT, udp4_nocsum_trim64_fwd,
	   counted_trim_lo),
	FX("trim keep 32 dscp 46 out (IPv6): lengths, checksum, mark",
	   trim_32_dscp_46_out, udp6, XDP_REDIRECT, udp6_trim32_fwd,
	   counted_trim_fx0),
	FX("trim of a short payload: unchanged, not counted", trim_keep_max,
	   udp4, XDP_REDIRECT, udp4_fwd, not_trimmed),
	FX("ecn on ECT(0) IPv4: CE set, header checksum fixed", ecn_always,
	   udp4, XDP_REDIRECT, udp4_ce_fwd, counted_ce),
	FX("ecn on ECT(1) IPv6: CE set", ecn_always, udp6, XDP_REDIRECT,
	   udp6_ce_fwd, counted_ce),
	FX("ecn on Not-ECT: unchanged, counted", ecn_always, udp4_notect,
	   XDP_REDIRECT, udp4_notect_fwd, counted_not_ect),
	FX("dup: passed behind a request to the tc program, two copies counted",
	   dup_always, udp4, XDP_PASS, NULL, dup_request),
	FX("via-stack on fx0: passed unchanged to the kernel", via_stack_fx0,
	   udp4, XDP_PASS, udp4, counted_via_stack),
};

/*
 * Random actions: 20000 runs at probability p, counted by the program. The
 * bound is 6 standard deviations, so a correct program fails it about once
 * in 10^9 runs, while a wrong scaling (p * 2^16, say) fails at once.
 */
static void random_rates(void **state)
{
	const struct {
		const char *what;
		double p;
		__u32 *field;
		enum fab_counter c;
	} rates[] = {
		{ "drop", 0.25, NULL, FAB_CNT_DROP_RANDOM },
		{ "ecn", 0.5, NULL, FAB_CNT_ECN_MARKED },
		{ "dup", 0.1, NULL, FAB_CNT_DUPLICATED },
	};
	const int runs = 20000;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
		struct fab_fault f = { .dir_mask = IN | OUT };
		__u32 p32 = (__u32)(rates[i].p * 4294967296.0);
		struct pkt in;
		double n, sd;
		__u32 where = LO;
		int r;

		assert_int_equal(reset(), 0);
		if (rates[i].c == FAB_CNT_DROP_RANDOM)
			f.drop_prob = p32;
		else if (rates[i].c == FAB_CNT_ECN_MARKED)
			f.ecn_prob = p32;
		else {
			f.dup_prob = p32;
			where = fx0; /* counted on the egress */
		}
		assert_int_equal(set_fault(LO, &f), 0);
		pkt_init(&in);
		udp4(&in);
		/*
		 * One run per call: repeated runs of one call share the frame,
		 * which the program changes (TTL, metadata).
		 */
		for (r = 0; r < runs; r++) {
			LIBBPF_OPTS(bpf_test_run_opts, opts);
			struct xdp_md ctx = {};

			ctx.data_end = in.len;
			ctx.ingress_ifindex = LO;
			opts.data_in = in.data;
			opts.data_size_in = in.len;
			opts.ctx_in = &ctx;
			opts.ctx_size_in = sizeof(ctx);
			assert_int_equal(
				bpf_prog_test_run_opts(
					bpf_program__fd(skel->progs.mrc_fab_xdp),
					&opts),
				0);
		}
		n = (double)stat(where, rates[i].c);
		sd = 6 * __builtin_sqrt(runs * rates[i].p * (1 - rates[i].p));
		if (n < runs * rates[i].p - sd || n > runs * rates[i].p + sd)
			fail_msg("%s at p=%.2f: %.0f of %d", rates[i].what,
				 rates[i].p, n, runs);
	}
}

/* --- the congestion point (tc egress, testbed shape) ----------------------- */

#define TRIM_CLASS 0x10010u

/* What the queue on fx0 holds before the case's packet arrives. */
struct qcase {
	const char *desc;
	struct fab_queue_cfg cfg;
	__u64 backlog_bytes;
	void (*in)(struct pkt *p);
	int verdict;
	void (*out)(struct pkt *p); /* NULL: the input unchanged */
	enum fab_counter counted; /* ...as this, once */
	__u32 priority; /* skb->priority it leaves with */
	__u64 backlog_after; /* 0: backlog_bytes plus the packet's length */
	__u32 in_priority; /* skb->priority it arrives with */
};

/*
 * The model, not fx0's (empty) qdisc, at 1 byte per second: it drains
 * nothing while a case runs.
 */
#define SLOW .rate_bytes_per_s = 1, .backlog_from = FAB_Q_FROM_MODEL
#define BIG .buffer_bytes = 1u << 20

static void udp4_ce(struct pkt *p)
{
	udp4_common(p, DST4, 0x03, 20000, 1);
}

static void udp6_ce(struct pkt *p)
{
	udp6_common(p, 0x03, PAYLOAD);
}

static void udp4_trim64(struct pkt *p)
{
	udp4_common(p, DST4, 9 << 2 | ECT0, 20000, 1);
	p->len = p->payload_off + 64;
	pkt_finish(p);
}

static void udp6_trim32(struct pkt *p)
{
	udp6_common(p, 46 << 2 | ECT1, 32);
}

#define STEP1000 \
	.ecn_min_bytes = 1000, .ecn_max_bytes = 1000, .ecn_max_prob = ALWAYS
#define TRIMMING(keep, dscp)                            \
	.buffer_bytes = 10000, .full = FAB_Q_FULL_TRIM, \
	.trim_keep_bytes = keep, .trim_dscp = dscp, .trim_class = TRIM_CLASS

static const struct qcase qcases[] = {
	{ .desc = "below the buffer, no ECN: queued unchanged",
	  .cfg = { SLOW, BIG },
	  .backlog_bytes = 1000,
	  .in = udp4,
	  .verdict = TC_ACT_OK,
	  .counted = FAB_CNT_Q_PACKETS },
	{ .desc = "ECT(0) IPv4 above the ECN step: CE set, header checksum fixed",
	  .cfg = { SLOW, BIG, STEP1000 },
	  .backlog_bytes = 1001,
	  .in = udp4,
	  .verdict = TC_ACT_OK,
	  .out = udp4_ce,
	  .counted = FAB_CNT_Q_ECN_MARKED },
	{ .desc = "ECT(1) IPv6 above the ECN step: CE set",
	  .cfg = { SLOW, BIG, STEP1000 },
	  .backlog_bytes = 5000,
	  .in = udp6,
	  .verdict = TC_ACT_OK,
	  .out = udp6_ce,
	  .counted = FAB_CNT_Q_ECN_MARKED },
	{ .desc = "ECT at the ECN step, not above: unchanged",
	  .cfg = { SLOW, BIG, STEP1000 },
	  .backlog_bytes = 1000,
	  .in = udp4,
	  .verdict = TC_ACT_OK,
	  .counted = FAB_CNT_Q_PACKETS },
	{ .desc = "Not-ECT above the ECN step: queued unmarked, counted",
	  .cfg = { SLOW, BIG, STEP1000 },
	  .backlog_bytes = 5000,
	  .in = udp4_notect,
	  .verdict = TC_ACT_OK,
	  .counted = FAB_CNT_Q_ECN_NOT_ECT },
	/* fx0 has no queue: its qdisc holds 0 bytes, whatever the model says. */
	{ .desc = "backlog from the qdisc (empty), not the model (full): queued",
	  .cfg = { .rate_bytes_per_s = 1,
		   .buffer_bytes = 10000,
		   .backlog_from = FAB_Q_FROM_QDISC },
	  .backlog_bytes = 9900,
	  .in = udp4,
	  .verdict = TC_ACT_OK,
	  .counted = FAB_CNT_Q_PACKETS,
	  .backlog_after = 14 + 20 + 8 + PAYLOAD },
	{ .desc = "full, drop-tail: dropped, backlog unchanged",
	  .cfg = { SLOW, .buffer_bytes = 10000 },
	  .backlog_bytes = 9900,
	  .in = udp4,
	  .verdict = TC_ACT_SHOT,
	  .counted = FAB_CNT_Q_DROPPED,
	  .backlog_after = 9900 },
	/* Sent out again, so the qdisc charges the trimmed length. */
	{ .desc = "full, trim keep 64 dscp 9 (IPv4): cut, marked, sent again",
	  .cfg = { SLOW, TRIMMING(64, 9) },
	  .backlog_bytes = 9900,
	  .in = udp4,
	  .verdict = TC_ACT_REDIRECT,
	  .out = udp4_trim64,
	  .counted = FAB_CNT_Q_TRIMMED,
	  .priority = TRIM_CLASS,
	  .backlog_after = 9900 + 14 + 20 + 8 + 64 },
	{ .desc = "full, trim keep 32 dscp 46 (IPv6): cut, marked, sent again",
	  .cfg = { SLOW, TRIMMING(32, 46) },
	  .backlog_bytes = 9900,
	  .in = udp6,
	  .verdict = TC_ACT_REDIRECT,
	  .out = udp6_trim32,
	  .counted = FAB_CNT_Q_TRIMMED,
	  .priority = TRIM_CLASS,
	  .backlog_after = 9900 + 14 + 40 + 8 + 32 },
	{ .desc = "a trimmed header on its second pass: queued, not counted",
	  .cfg = { SLOW, TRIMMING(64, 9) },
	  .backlog_bytes = 9990,
	  .in = udp4_trim64,
	  .verdict = TC_ACT_OK,
	  .counted = FAB_CNT_MAX,
	  .priority = TRIM_CLASS,
	  .backlog_after = 9990,
	  .in_priority = TRIM_CLASS },
	{ .desc = "full, trimming, payload already short: dropped",
	  .cfg = { SLOW, TRIMMING(PAYLOAD, 0) },
	  .backlog_bytes = 9900,
	  .in = udp4,
	  .verdict = TC_ACT_SHOT,
	  .counted = FAB_CNT_Q_DROPPED,
	  .backlog_after = 9900 },
	{ .desc = "full, trimming, not IP (ARP): dropped",
	  .cfg = { SLOW, TRIMMING(64, 0) },
	  .backlog_bytes = 9990,
	  .in = arp,
	  .verdict = TC_ACT_SHOT,
	  .counted = FAB_CNT_Q_DROPPED,
	  .backlog_after = 9990 },
};

static __u64 mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * mrc_fab_tc_queue on in, as fx0's egress would run it: the frame it
 * leaves in res (PKT_MAX bytes), its length in *len, ctx as it leaves it.
 * Returns the verdict.
 */
static int run_queue(const struct pkt *in, struct __sk_buff *ctx, uint8_t *res,
		     __u32 *len)
{
	LIBBPF_OPTS(bpf_test_run_opts, opts, .data_in = in->data,
		    .data_size_in = in->len, .data_out = res,
		    .data_size_out = PKT_MAX, .ctx_in = ctx,
		    .ctx_size_in = sizeof(*ctx), .ctx_out = ctx,
		    .ctx_size_out = sizeof(*ctx));

	assert_int_equal(bpf_prog_test_run_opts(
				 bpf_program__fd(skel->progs.mrc_fab_tc_queue),
				 &opts),
			 0);
	*len = opts.data_size_out;
	return (int)opts.retval;
}

/*
 * The per-source counters after one packet: only a whole packet queued
 * counts, once, with its length, under fx0 and its IP source; a drop, a
 * trim (its header comes back for a second pass) or a second pass counts
 * nothing.
 */
static void qsrc_check(const struct pkt *in, int queued)
{
	int fd = bpf_map__fd(skel->maps.mrc_fab_qsrc), n = 0;
	struct fab_qsrc_key k = { .ifindex = fx0 }, next;
	struct fab_qsrc v;
	void *prev = NULL;

	if (in->data[12] == 0x08 && in->data[13] == 0x00) {
		k.addr[10] = k.addr[11] = 0xff;
		assert_int_equal(inet_pton(AF_INET, SRC4, &k.addr[12]), 1);
	} else {
		assert_int_equal(inet_pton(AF_INET6, SRC6, k.addr), 1);
	}
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		prev = &next;
		n++;
	}
	assert_int_equal(n, queued);
	if (!queued)
		return;
	assert_int_equal(bpf_map_lookup_elem(fd, &k, &v), 0);
	assert_int_equal(v.packets, 1);
	assert_int_equal(v.bytes, in->len);
}

static void queue_case(void **state)
{
	const struct qcase *c = *state;
	int qfd = bpf_map__fd(skel->maps.mrc_fab_queue);
	struct fab_queue q = { .cfg = c->cfg };
	struct __sk_buff ctx = { .ifindex = fx0, .priority = c->in_priority };
	static uint8_t res[PKT_MAX];
	struct pkt in, want;
	__u32 key = fx0, len;
	__u64 after;
	int k;

	assert_int_equal(reset(), 0);
	pkt_init(&in);
	c->in(&in);
	pkt_init(&want);
	(c->out ? c->out : c->in)(&want);
	q.st.backlog_bytes = c->backlog_bytes;
	q.st.last_ns = mono_ns();
	assert_int_equal(bpf_map_update_elem(qfd, &key, &q, BPF_F_LOCK), 0);
	assert_int_equal(run_queue(&in, &ctx, res, &len), c->verdict);
	if (c->verdict != TC_ACT_SHOT) {
		if (len != want.len || memcmp(res, want.data, want.len)) {
			fixture_diff(want.data, want.len, res, len);
			fail_msg("frame differs");
		}
		assert_int_equal(ctx.priority, c->priority);
	}
	for (k = FAB_CNT_Q_ECN_MARKED; k <= FAB_CNT_Q_DROPPED; k++)
		assert_int_equal(stat(fx0, k), k == (int)c->counted);
	assert_int_equal(stat(fx0, FAB_CNT_Q_PACKETS),
			 c->verdict != TC_ACT_SHOT && !c->in_priority);
	assert_int_equal(bpf_map_lookup_elem_flags(qfd, &key, &q, BPF_F_LOCK),
			 0);
	assert_int_equal(q.st.qdisc_reads_failed, 0);
	after = c->backlog_after ? c->backlog_after : c->backlog_bytes + in.len;
	assert_int_equal(q.st.backlog_bytes, after);
	assert_int_equal(bpf_map_delete_elem(qfd, &key), 0);
	qsrc_check(&in, c->verdict == TC_ACT_OK && !c->in_priority);
}

/* No queue configured: every packet passes untouched and uncounted. */
static void no_queue(void **state)
{
	struct __sk_buff ctx = { .ifindex = fx0 };
	static uint8_t res[PKT_MAX];
	struct pkt in;
	__u32 len;

	(void)state;
	assert_int_equal(reset(), 0);
	pkt_init(&in);
	udp4(&in);
	assert_int_equal(run_queue(&in, &ctx, res, &len), TC_ACT_OK);
	assert_int_equal(len, in.len);
	assert_memory_equal(res, in.data, in.len);
	assert_int_equal(stat(fx0, FAB_CNT_Q_PACKETS), 0);
}

static int run_queue_cases(void)
{
	size_t n = sizeof(qcases) / sizeof(qcases[0]), i;
	struct CMUnitTest tests[sizeof(qcases) / sizeof(qcases[0]) + 1];

	tests[0] = (struct CMUnitTest)cmocka_unit_test(no_queue);
	tests[0].name = "no queue configured: unchanged, uncounted";
	for (i = 0; i < n; i++) {
		tests[i + 1] = (struct CMUnitTest){
			.name = qcases[i].desc,
			.test_func = queue_case,
			.initial_state = (void *)&qcases[i],
		};
	}
	return _cmocka_run_group_tests("fabric congestion point", tests, n + 1,
				       NULL, NULL);
}

static int setup_netns(void)
{
	static const char *const cmds[] = {
		"ip link set lo up",
		"ip link add fx0 address 02:00:00:00:00:0a type veth peer name fx1",
		"ip link set fx1 up",
		"ip link set fx0 up",
		"ip addr add 198.18.200.1/24 dev fx0",
		"ip -6 addr add fd00:99::1/64 dev fx0 nodad",
		"ip neigh add 198.18.200.2 lladdr 02:00:00:00:00:0b dev fx0 nud permanent",
		"ip -6 neigh add fd00:99::2 lladdr 02:00:00:00:00:0b dev fx0 nud permanent",
		"sysctl -qw net.ipv4.conf.all.forwarding=1",
		"sysctl -qw net.ipv6.conf.all.forwarding=1",
	};
	unsigned int i;

	if (unshare(CLONE_NEWNET)) {
		fprintf(stderr, "unshare(CLONE_NEWNET): %s\n", strerror(errno));
		return -1;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (system(cmds[i])) {
			fprintf(stderr, "setup failed: %s\n", cmds[i]);
			return -1;
		}
	}
	fx0 = if_nametoindex("fx0");
	return fx0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest stats_tests[] = {
		cmocka_unit_test(random_rates),
		cmocka_unit_test(tc_dup_passes_others),
	};
	__u32 key;
	int failed;

	if (geteuid() != 0) {
		printf("SKIP: test_fabric_faults needs root (BPF, netns)\n");
		return 77;
	}
	if (setup_netns())
		return 1;
	skel = mrc_fab__open_and_load();
	if (!skel) {
		fprintf(stderr, "loading the fabric program: %s\n",
			strerror(errno));
		return 1;
	}
	key = fx0;
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.mrc_fab_tx), &key, &key,
				BPF_ANY)) {
		fprintf(stderr, "devmap: %s\n", strerror(errno));
		return 1;
	}
	failed = fixture_run_xdp("fabric fault fixtures", cases,
				 sizeof(cases) / sizeof(cases[0]),
				 bpf_program__fd(skel->progs.mrc_fab_xdp),
				 reset);
	failed += cmocka_run_group_tests_name("fabric fault rates, tc dup",
					      stats_tests, NULL, NULL);
	failed += run_queue_cases();
	mrc_fab__destroy(skel);
	return failed ? 1 : 0;
}
