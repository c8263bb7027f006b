// SPDX-License-Identifier: GPL-2.0
/*
 * Fixture tests of the test fabric's SRv6 uSID mode (tests/fabric/
 * fabric.bpf.c loaded with fab_srv6_block = fdbb:bb00::/32, F3216;
 * docs/testbed.md) through BPF_PROG_TEST_RUN.
 *
 * The test runs in a network namespace of its own:
 *
 *     lo (ifindex 1)    fx0 02:00:00:00:00:0a ==veth== fx1 (neighbour
 *     packets "arrive"                                     02:00:00:00:00:0b)
 *     here, or on fx0   fx2 02:00:00:00:00:1a ==veth== fx3 (neighbour
 *                                                          02:00:00:00:00:1b)
 *
 * and the node under test is, by the case's setup, one of two from the
 * testbed's uSID plan of plane 0 (docs/testbed.md):
 *
 *   spine p0s2 (uSID 0202):  0202 me (no host)
 *                            0101 next fx0 -> :0b   (leaf of h1)
 *                            0102 next fx2 -> :1b   (leaf of h2)
 *   leaf p0l2  (uSID 0102):  0102 me, host port fx2 -> :1b (h2)
 *                            0200, 0202 next fx0 -> :0b   (spines)
 *
 * Every packet is an outer IPv6 header (fd00:1:0:1::2 to the uSID
 * container), an optional SRH, an inner IPv6 header (h1 to h2) and UDP.
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
#include <unistd.h>
#include <cmocka.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fabric_abi.h"
#include "fabric.skel.h"
#include "fixture.h"

#define LO 1
static __u32 fx0, fx2;
static struct mrc_fab *skel;

static const uint8_t MAC_FX0[6] = { 2, 0, 0, 0, 0, 0x0a };
static const uint8_t MAC_NB0[6] = { 2, 0, 0, 0, 0, 0x0b };
static const uint8_t MAC_FX2[6] = { 2, 0, 0, 0, 0, 0x1a };
static const uint8_t MAC_NB2[6] = { 2, 0, 0, 0, 0, 0x1b };
static const uint8_t MAC_IN[6] = { 2, 0, 0, 0, 0, 0x99 };

#define BLOCK "fdbb:bb00"
#define OUTER_SRC "fd00:1:0:1::2"
#define INNER_SRC "fd00:1:0:1::2"
#define INNER_DST "fd00:1:0:2::2"
#define PAYLOAD 200
#define ECT0 0x02

/* --- frames ---------------------------------------------------------------- */

/* What a frame is made of; zero fields take the defaults. */
struct sr {
	const char *da;
	uint8_t hlim; /* 0: 64 */
	int srh; /* 1: an SRH of nseg segments */
	uint8_t type; /* 0: 4 */
	uint8_t sl, last; /* segments left, last entry */
	int hdrlen; /* 0: 2 * nseg; < 0: 0 */
	int nseg;
	const char *seg[4];
	size_t cut; /* cut the frame to this many bytes */
	uint8_t tclass;
	size_t payload; /* 0: PAYLOAD; (size_t)-1: none */
	int no_inner; /* UDP right after the outer header or SRH */
	int v4; /* an IPv4 packet instead */
	const uint8_t *dmac, *smac;
};

static void put16(uint8_t *at, uint16_t v)
{
	at[0] = v >> 8;
	at[1] = v & 0xff;
}

static uint16_t udp6_csum(const uint8_t *ip6, const uint8_t *udp, size_t len)
{
	uint32_t sum = 17 + len;
	size_t i;

	for (i = 8; i < 40; i += 2)
		sum += ip6[i] << 8 | ip6[i + 1];
	for (i = 0; i + 1 < len; i += 2)
		sum += udp[i] << 8 | udp[i + 1];
	if (len & 1)
		sum += udp[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	return sum ? sum : 0xffff;
}

static void ip6hdr(uint8_t *h, uint8_t tclass, uint16_t plen, uint8_t nh,
		   uint8_t hlim, const char *src, const char *dst)
{
	h[0] = 0x60 | tclass >> 4;
	h[1] = tclass << 4;
	put16(h + 4, plen);
	h[6] = nh;
	h[7] = hlim;
	assert_int_equal(inet_pton(AF_INET6, src, h + 8), 1);
	assert_int_equal(inet_pton(AF_INET6, dst, h + 24), 1);
}

static void build(struct pkt *p, const struct sr *s)
{
	size_t payload = s->payload == (size_t)-1 ? 0 :
			 s->payload		  ? s->payload :
						    PAYLOAD;
	size_t srh_len = 0, inner = s->no_inner ? 0 : 40, udp_off, i;
	uint8_t *d = p->data, *outer, *udp;
	int hdrlen = s->hdrlen < 0 ? 0 : s->hdrlen ? s->hdrlen : 2 * s->nseg;

	pkt_init(p);
	memcpy(d, s->dmac ? s->dmac : MAC_FX0, 6);
	memcpy(d + 6, s->smac ? s->smac : MAC_IN, 6);
	if (s->v4) {
		pkt_eth(p, s->dmac ? s->dmac : MAC_FX0, MAC_IN);
		pkt_ipv4(p, "198.18.1.2", "198.18.2.2", 0);
		pkt_udp(p, 20000, 4791);
		pkt_pattern(p, payload, 3);
		pkt_finish(p);
		return;
	}
	put16(d + 12, 0x86dd);
	outer = d + 14;
	if (s->srh)
		srh_len = 8 + 8 * hdrlen;
	udp_off = 14 + 40 + srh_len + inner;
	ip6hdr(outer, s->tclass, srh_len + inner + 8 + payload,
	       s->srh	   ? 43 :
	       s->no_inner ? 17 :
			     41,
	       s->hlim ? s->hlim : 64, OUTER_SRC, s->da);
	if (s->srh) {
		uint8_t *srh = outer + 40;

		srh[0] = s->no_inner ? 17 : 41;
		srh[1] = hdrlen;
		srh[2] = s->type ? s->type : 4;
		srh[3] = s->sl;
		srh[4] = s->last;
		for (i = 0; i < (size_t)s->nseg; i++)
			assert_int_equal(inet_pton(AF_INET6, s->seg[i],
						   srh + 8 + 16 * i),
					 1);
	}
	if (inner)
		ip6hdr(outer + 40 + srh_len, 0, 8 + payload, 17, 64, INNER_SRC,
		       INNER_DST);
	udp = d + udp_off;
	put16(udp, 20000);
	put16(udp + 2, 4791);
	put16(udp + 4, 8 + payload);
	for (i = 0; i < payload; i++)
		udp[8 + i] = (3 + i * 7) & 0xff;
	put16(udp + 6, udp6_csum(inner ? udp - 40 : outer, udp, 8 + payload));
	p->len = udp_off + 8 + payload;
	p->payload_off = udp_off + 8;
	if (s->cut)
		p->len = s->cut;
}

/* The spine's table at work: 0202 (me) shifted, 0102 next, out of fx2. */
#define SHIFT_IN .da = BLOCK ":202:102::"
#define SHIFT_OUT \
	.da = BLOCK ":102::", .hlim = 63, .dmac = MAC_NB2, .smac = MAC_FX2

static void shift_in(struct pkt *p)
{
	build(p, &(struct sr){ SHIFT_IN });
}

static void shift_out(struct pkt *p)
{
	build(p, &(struct sr){ SHIFT_OUT });
}

/* Three uSIDs: only the first is shifted out; the rest move up. */
static void shift3_in(struct pkt *p)
{
	build(p, &(struct sr){ .da = BLOCK ":202:102:7:8:9:a" });
}

static void shift3_out(struct pkt *p)
{
	build(p, &(struct sr){ .da = BLOCK ":102:7:8:9:a:0",
			       .hlim = 63,
			       .dmac = MAC_NB2,
			       .smac = MAC_FX2 });
}

/* An adjacency uSID that is not the node's: forwarded, no shift. */
static void transit_in(struct pkt *p)
{
	build(p, &(struct sr){ .da = BLOCK ":101:202::" });
}

static void transit_out(struct pkt *p)
{
	build(p, &(struct sr){ .da = BLOCK ":101:202::",
			       .hlim = 63,
			       .dmac = MAC_NB0,
			       .smac = MAC_FX0 });
}

/* Container used up at the spine: segment 0 of the SRH is next. */
#define SEGS                            \
	.srh = 1, .nseg = 2, .last = 1, \
	.seg = { BLOCK ":102::", BLOCK ":202::" }

static void seg_in(struct pkt *p)
{
	build(p, &(struct sr){ .da = BLOCK ":202::", SEGS, .sl = 1 });
}

static void seg_out(struct pkt *p)
{
	build(p, &(struct sr){ .da = BLOCK ":102::",
			       SEGS,
			       .sl = 0,
			       .hlim = 63,
			       .dmac = MAC_NB2,
			       .smac = MAC_FX2 });
}

/* At the leaf: its own uSID last, no SRH: delivered to h2 as it is. */
static void end_in(struct pkt *p)
{
	build(p, &(struct sr){ .da = BLOCK ":102::", .dmac = MAC_FX0 });
}

static void end_out(struct pkt *p)
{
	build(p, &(struct sr){ .da = BLOCK "::",
			       .hlim = 63,
			       .dmac = MAC_NB2,
			       .smac = MAC_FX2 });
}

/* ...and with an SRH whose segments are all used (segments left 0). */
static void end_srh_in(struct pkt *p)
{
	build(p, &(struct sr){ .da = BLOCK ":102::", SEGS, .sl = 0 });
}

static void end_srh_out(struct pkt *p)
{
	build(p, &(struct sr){ .da = BLOCK "::",
			       SEGS,
			       .sl = 0,
			       .hlim = 63,
			       .dmac = MAC_NB2,
			       .smac = MAC_FX2 });
}

/*
 * UDP right after the outer header (no encapsulation): the fabric leaves
 * its checksum alone (its pseudo-header names the final destination, RFC
 * 8200 8.1, which the sender computed), only the uSIDs, hop limit, MACs.
 */
static void bare_in(struct pkt *p)
{
	build(p, &(struct sr){ SHIFT_IN, .no_inner = 1 });
}

static void bare_out(struct pkt *p)
{
	bare_in(p);
	assert_int_equal(inet_pton(AF_INET6, BLOCK ":102::", p->data + 14 + 24),
			 1);
	p->data[14 + 7] = 63;
	memcpy(p->data, MAC_NB2, 6);
	memcpy(p->data + 6, MAC_FX2, 6);
}

static void unknown_in(struct pkt *p)
{
	build(p, &(struct sr){ .da = BLOCK ":999:102::" });
}

static void unknown_after_shift_in(struct pkt *p)
{
	build(p, &(struct sr){ .da = BLOCK ":202:777::" });
}

static void end_spine_in(struct pkt *p)
{
	build(p, &(struct sr){ .da = BLOCK ":202::" });
}

static void usid0_in(struct pkt *p)
{
	build(p, &(struct sr){ .da = BLOCK "::" });
}

static void sl_beyond_in(struct pkt *p)
{
	build(p, &(struct sr){ .da = BLOCK ":202::", SEGS, .sl = 2 });
}

/* The SRH says two segments (32 bytes); the frame ends after one. */
static void srh_cut_in(struct pkt *p)
{
	build(p, &(struct sr){ .da = BLOCK ":202::",
			       SEGS,
			       .sl = 1,
			       .cut = 14 + 40 + 8 + 16 });
}

/* Not even the SRH's fixed 8 bytes. */
static void srh_cut8_in(struct pkt *p)
{
	build(p, &(struct sr){ .da = BLOCK ":202::",
			       SEGS,
			       .sl = 1,
			       .cut = 14 + 40 + 4 });
}

static void srh_type3_in(struct pkt *p)
{
	build(p,
	      &(struct sr){ .da = BLOCK ":202::", SEGS, .sl = 1, .type = 3 });
}

/* last_entry 3 (four segments) in a header that holds two. */
static void srh_last_beyond_in(struct pkt *p)
{
	build(p, &(struct sr){ .da = BLOCK ":202::",
			       .srh = 1,
			       .nseg = 2,
			       .seg = { BLOCK ":102::", BLOCK ":202::" },
			       .sl = 1,
			       .last = 3 });
}

/* The next segment is outside the block: not an SRv6 route of ours. */
static void seg_foreign_in(struct pkt *p)
{
	build(p, &(struct sr){ .da = BLOCK ":202::",
			       .srh = 1,
			       .nseg = 2,
			       .last = 1,
			       .sl = 1,
			       .seg = { "fd00:99::2", BLOCK ":202::" } });
}

static void hlim1_in(struct pkt *p)
{
	build(p, &(struct sr){ SHIFT_IN, .hlim = 1 });
}

static void hlim2_in(struct pkt *p)
{
	build(p, &(struct sr){ SHIFT_IN, .hlim = 2 });
}

static void hlim2_out(struct pkt *p)
{
	build(p, &(struct sr){ .da = BLOCK ":102::",
			       .hlim = 1,
			       .dmac = MAC_NB2,
			       .smac = MAC_FX2 });
}

/* The spine named twice in a row. */
static void loop_twice_in(struct pkt *p)
{
	build(p, &(struct sr){ .da = BLOCK ":202:202:102::" });
}

/* From leaf 1 (arriving on fx0), sent back to leaf 1: a u-turn. */
static void loop_uturn_in(struct pkt *p)
{
	build(p, &(struct sr){ .da = BLOCK ":202:101::" });
}

static void plain6_in(struct pkt *p)
{
	build(p, &(struct sr){ .da = "fd00:1:0:2::2" });
}

static void plain4_in(struct pkt *p)
{
	build(p, &(struct sr){ .v4 = 1 });
}

static void linklocal_in(struct pkt *p)
{
	build(p, &(struct sr){ .da = "fe80::1" });
}

/* The inner IPv6 header announced but cut short. */
static void inner_cut_in(struct pkt *p)
{
	build(p, &(struct sr){ SHIFT_IN, .cut = 14 + 40 + 20 });
}

static void ect_in(struct pkt *p)
{
	build(p, &(struct sr){ SHIFT_IN, .tclass = ECT0 });
}

static void ce_out(struct pkt *p)
{
	build(p, &(struct sr){ SHIFT_OUT, .tclass = 0x03 });
}

/* Trimmed to 64 bytes of UDP payload, DSCP 9: outer, SRH, inner lengths. */
static void trim_in(struct pkt *p)
{
	build(p, &(struct sr){
			 .da = BLOCK ":202::", SEGS, .sl = 1, .tclass = ECT0 });
}

static void trim_out(struct pkt *p)
{
	build(p, &(struct sr){ .da = BLOCK ":102::",
			       SEGS,
			       .sl = 0,
			       .hlim = 63,
			       .dmac = MAC_NB2,
			       .smac = MAC_FX2,
			       .tclass = 9 << 2 | ECT0,
			       .payload = 64 });
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

static struct fab_sid_key key_of(uint16_t usid)
{
	struct fab_sid_key k = { .block = htonl(0xfdbbbb00),
				 .usid = htons(usid) };

	return k;
}

static int sid_set(uint16_t usid, __u32 kind, __u32 ifindex,
		   const uint8_t *dmac, const uint8_t *smac)
{
	struct fab_sid_key k = key_of(usid);
	struct fab_sid v = { .kind = kind, .ifindex = ifindex };

	if (dmac)
		memcpy(v.dmac, dmac, 6);
	if (smac)
		memcpy(v.smac, smac, 6);
	return bpf_map_update_elem(bpf_map__fd(skel->maps.mrc_fab_sid), &k, &v,
				   BPF_ANY);
}

static __u64 sid_packets(uint16_t usid)
{
	struct fab_sid_key k = key_of(usid);
	struct fab_sid v;

	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.mrc_fab_sid), &k, &v))
		return ~0ull;
	return v.packets;
}

static int reset(void)
{
	int ncpu = libbpf_num_possible_cpus(), fd, err = 0, i;
	struct fab_stats zero[ncpu];
	__u32 ifs[3] = { LO, fx0, fx2 }, key;
	struct fab_sid_key k;

	memset(zero, 0, sizeof(zero));
	fd = bpf_map__fd(skel->maps.mrc_fab_fault);
	while (!bpf_map_get_next_key(fd, NULL, &key))
		bpf_map_delete_elem(fd, &key);
	fd = bpf_map__fd(skel->maps.mrc_fab_sid);
	while (!bpf_map_get_next_key(fd, NULL, &k))
		bpf_map_delete_elem(fd, &k);
	fd = bpf_map__fd(skel->maps.mrc_fab_stats);
	for (i = 0; i < 3; i++)
		err = err ?: bpf_map_update_elem(fd, &ifs[i], zero, BPF_ANY);
	/* A case may have taken fx2 down. */
	return err ?: system("ip link set fx2 up") ? -EIO : 0;
}

static int spine(void)
{
	return sid_set(0x0202, FAB_SID_ME, 0, NULL, NULL)		    ?:
		       sid_set(0x0101, FAB_SID_NEXT, fx0, MAC_NB0, MAC_FX0) ?:
		       sid_set(0x0102, FAB_SID_NEXT, fx2, MAC_NB2, MAC_FX2);
}

/* The spine, its adjacencies naming their neighbours' addresses. */
static int spine_nh(void)
{
	struct fab_sid_key k = key_of(0x0102);
	struct fab_sid v = { .kind = FAB_SID_NEXT, .ifindex = fx2 };

	memcpy(v.dmac, MAC_NB2, 6);
	memcpy(v.smac, MAC_FX2, 6);
	if (inet_pton(AF_INET6, "fd00:99::2", v.nh6) != 1 || spine())
		return -1;
	return bpf_map_update_elem(bpf_map__fd(skel->maps.mrc_fab_sid), &k, &v,
				   BPF_ANY);
}

static int spine_nh_fx2_down(void)
{
	return spine_nh() ?: system("ip link set fx2 down") ? -EIO : 0;
}

static int leaf(void)
{
	return sid_set(0x0102, FAB_SID_ME, fx2, MAC_NB2, MAC_FX2)	    ?:
		       sid_set(0x0200, FAB_SID_NEXT, fx0, MAC_NB0, MAC_FX0) ?:
		       sid_set(0x0202, FAB_SID_NEXT, fx0, MAC_NB0, MAC_FX0);
}

static int set_fault(__u32 ifindex, const struct fab_fault *f)
{
	return bpf_map_update_elem(bpf_map__fd(skel->maps.mrc_fab_fault),
				   &ifindex, f, BPF_ANY);
}

static int spine_blackhole_in(void)
{
	struct fab_fault f = { .flags = FAB_F_BLACKHOLE,
			       .dir_mask = FAB_DIR_IN };

	return spine() ?: set_fault(LO, &f);
}

static int spine_blackhole_out_fx2(void)
{
	struct fab_fault f = { .flags = FAB_F_BLACKHOLE,
			       .dir_mask = FAB_DIR_OUT };

	return spine() ?: set_fault(fx2, &f);
}

static int spine_blackhole_out_fx0(void)
{
	struct fab_fault f = { .flags = FAB_F_BLACKHOLE,
			       .dir_mask = FAB_DIR_OUT };

	return spine() ?: set_fault(fx0, &f);
}

static int spine_drop_all(void)
{
	struct fab_fault f = { .dir_mask = FAB_DIR_IN,
			       .drop_prob = FAB_PROB_ALWAYS };

	return spine() ?: set_fault(LO, &f);
}

static int spine_ecn_out(void)
{
	struct fab_fault f = { .dir_mask = FAB_DIR_OUT,
			       .ecn_prob = FAB_PROB_ALWAYS };

	return spine() ?: set_fault(fx2, &f);
}

static int spine_trim_in(void)
{
	struct fab_fault f = { .dir_mask = FAB_DIR_IN,
			       .trim_prob = FAB_PROB_ALWAYS,
			       .trim_keep_bytes = 64,
			       .trim_dscp = 9 };

	return spine() ?: set_fault(LO, &f);
}

/* --- checks ---------------------------------------------------------------- */

/* No SRv6 drop counted anywhere but `but` on the arrival interface. */
static int only_drop(__u32 in_if, enum fab_counter but)
{
	static const enum fab_counter drops[] = {
#define X(name, str) FAB_CNT_##name,
		FAB_SRV6_DROPS(X)
#undef X
	};
	__u32 ifs[3] = { LO, fx0, fx2 };
	size_t i, j;

	for (i = 0; i < 3; i++)
		for (j = 0; j < sizeof(drops) / sizeof(drops[0]); j++)
			EXPECT(stat(ifs[i], drops[j]) ==
			       (ifs[i] == in_if && drops[j] == but));
	EXPECT(stat(fx0, FAB_CNT_TX_PACKETS) == 0);
	EXPECT(stat(fx2, FAB_CNT_TX_PACKETS) == 0);
	return 0;
}

/* No drop of any kind counted anywhere. */
static int no_drops(void)
{
	__u32 ifs[3] = { LO, fx0, fx2 };
	int i, c;

	for (i = 0; i < 3; i++)
		for (c = FAB_CNT_DROP_RANDOM; c < FAB_CNT_MAX; c++)
			if (c >= FAB_CNT_DROP_SRV6_NOT_SID ||
			    c <= FAB_CNT_DROP_TRIM_FAILED)
				EXPECT(stat(ifs[i], c) == 0);
	return 0;
}

#define DROP_CHECK(fn, in_if, c)                                \
	static int fn(const struct fixture_out *o)              \
	{                                                       \
		(void)o;                                        \
		return only_drop(in_if, FAB_CNT_DROP_SRV6_##c); \
	}
DROP_CHECK(dropped_unknown, LO, UNKNOWN)
DROP_CHECK(dropped_sl, LO, SL)
DROP_CHECK(dropped_trunc, LO, SRH_TRUNC)
DROP_CHECK(dropped_srh_bad, LO, SRH_BAD)
DROP_CHECK(dropped_hlim, LO, HLIM)
DROP_CHECK(dropped_loop, LO, LOOP)
DROP_CHECK(dropped_loop_fx0, fx0, LOOP)
DROP_CHECK(dropped_not_sid, LO, NOT_SID)
DROP_CHECK(dropped_end, LO, END)
DROP_CHECK(dropped_malformed, LO, MALFORMED)
DROP_CHECK(dropped_link_down, LO, LINK_DOWN)

/* Forwarded once out of out_if, shifted `shifts` times, nothing dropped. */
static int forwarded(__u32 out_if, enum fab_counter how, __u64 shifts,
		     __u64 next_segs, const struct fixture_out *o)
{
	__u32 other = out_if == fx0 ? fx2 : fx0;

	EXPECT(no_drops() == 0);
	EXPECT(stat(out_if, FAB_CNT_TX_PACKETS) == 1);
	EXPECT(stat(out_if, FAB_CNT_TX_BYTES) == o->len);
	EXPECT(stat(out_if, how) == 1);
	EXPECT(stat(other, FAB_CNT_TX_PACKETS) == 0);
	EXPECT(stat(LO, FAB_CNT_SRV6_SHIFTED) +
		       stat(fx0, FAB_CNT_SRV6_SHIFTED) ==
	       shifts);
	EXPECT(stat(LO, FAB_CNT_SRV6_NEXT_SEG) +
		       stat(fx0, FAB_CNT_SRV6_NEXT_SEG) ==
	       next_segs);
	return 0;
}

static int fwd_fx2_shift1(const struct fixture_out *o)
{
	EXPECT(sid_packets(0x0202) == 1);
	EXPECT(sid_packets(0x0102) == 1);
	EXPECT(sid_packets(0x0101) == 0);
	return forwarded(fx2, FAB_CNT_SRV6_FORWARDED, 1, 0, o);
}

static int fwd_fx0_transit(const struct fixture_out *o)
{
	EXPECT(sid_packets(0x0202) == 0);
	EXPECT(sid_packets(0x0101) == 1);
	return forwarded(fx0, FAB_CNT_SRV6_FORWARDED, 0, 0, o);
}

static int fwd_fx2_next_seg(const struct fixture_out *o)
{
	return forwarded(fx2, FAB_CNT_SRV6_FORWARDED, 1, 1, o);
}

static int delivered_fx2(const struct fixture_out *o)
{
	EXPECT(sid_packets(0x0102) == 1);
	EXPECT(stat(fx2, FAB_CNT_SRV6_FORWARDED) == 0);
	return forwarded(fx2, FAB_CNT_SRV6_DELIVERED, 1, 0, o);
}

static int ce_marked(const struct fixture_out *o)
{
	EXPECT(stat(fx2, FAB_CNT_ECN_MARKED) == 1);
	return fwd_fx2_shift1(o);
}

static int trimmed(const struct fixture_out *o)
{
	EXPECT(stat(LO, FAB_CNT_TRIMMED) == 1);
	return fwd_fx2_next_seg(o);
}

static int counted_blackhole(__u32 where, __u64 shifts)
{
	EXPECT(stat(where, FAB_CNT_DROP_BLACKHOLE) == 1);
	EXPECT(stat(LO, FAB_CNT_SRV6_SHIFTED) == shifts);
	return only_drop(0, FAB_CNT_MAX);
}

static int blackholed_lo(const struct fixture_out *o)
{
	(void)o;
	return counted_blackhole(LO, 0);
}

static int blackholed_fx2(const struct fixture_out *o)
{
	(void)o;
	return counted_blackhole(fx2, 1);
}

static int dropped_random(const struct fixture_out *o)
{
	(void)o;
	EXPECT(stat(LO, FAB_CNT_DROP_RANDOM) == 1);
	return only_drop(0, FAB_CNT_MAX);
}

static int passed_link_local(const struct fixture_out *o)
{
	(void)o;
	EXPECT(stat(LO, FAB_CNT_PASS_LOCAL) == 1);
	return only_drop(0, FAB_CNT_MAX);
}

/* --- the table ------------------------------------------------------------- */

#define FX(d, s, i, v, o, c)                                            \
	{                                                               \
		.desc = d, .setup = s, .in = i, .verdict = v, .out = o, \
		.check = c                                              \
	}
#define FX_ON(d, s, i, v, o, c, ifx)                                    \
	{                                                               \
		.desc = d, .setup = s, .in = i, .verdict = v, .out = o, \
		.check = c, .ingress_ifindex = ifx                      \
	}

static struct fixture cases[] = {
	FX("spine: own uSID shifted out, next uSID's neighbour (fx2)", spine,
	   shift_in, XDP_REDIRECT, shift_out, fwd_fx2_shift1),
	FX("spine: a full container moves up 16 bits, zero-filled", spine,
	   shift3_in, XDP_REDIRECT, shift3_out, fwd_fx2_shift1),
	FX("spine: another node's uSID active: forwarded unshifted", spine,
	   transit_in, XDP_REDIRECT, transit_out, fwd_fx0_transit),
	FX("spine: container used up: SRH segment 0 next, segments left 0",
	   spine, seg_in, XDP_REDIRECT, seg_out, fwd_fx2_next_seg),
	FX("spine: UDP right after the outer header: shifted the same", spine,
	   bare_in, XDP_REDIRECT, bare_out, fwd_fx2_shift1),
	FX("leaf: own uSID last: delivered to the host, not decapsulated", leaf,
	   end_in, XDP_REDIRECT, end_out, delivered_fx2),
	FX("leaf: own uSID last, SRH used up: delivered", leaf, end_srh_in,
	   XDP_REDIRECT, end_srh_out, delivered_fx2),
	FX("spine: its uSID last, no SRH, no host here: dropped", spine,
	   end_spine_in, XDP_DROP, NULL, dropped_end),
	FX("no uSID at all (block only): dropped as unknown", spine, usid0_in,
	   XDP_DROP, NULL, dropped_unknown),
	FX("unknown active uSID: dropped", spine, unknown_in, XDP_DROP, NULL,
	   dropped_unknown),
	FX("unknown uSID after the shift: dropped", spine,
	   unknown_after_shift_in, XDP_DROP, NULL, dropped_unknown),
	FX("SRH segments left beyond last entry: dropped", spine, sl_beyond_in,
	   XDP_DROP, NULL, dropped_sl),
	FX("SRH cut inside its segment list: dropped", spine, srh_cut_in,
	   XDP_DROP, NULL, dropped_trunc),
	FX("SRH cut inside its fixed header: dropped", spine, srh_cut8_in,
	   XDP_DROP, NULL, dropped_trunc),
	FX("routing header type 3, not SRH: dropped", spine, srh_type3_in,
	   XDP_DROP, NULL, dropped_srh_bad),
	FX("SRH last entry beyond its length: dropped", spine,
	   srh_last_beyond_in, XDP_DROP, NULL, dropped_srh_bad),
	FX("next SRH segment outside the block: dropped", spine, seg_foreign_in,
	   XDP_DROP, NULL, dropped_not_sid),
	FX("hop limit 1: dropped", spine, hlim1_in, XDP_DROP, NULL,
	   dropped_hlim),
	FX("hop limit 2: forwarded with 1", spine, hlim2_in, XDP_REDIRECT,
	   hlim2_out, fwd_fx2_shift1),
	FX("loop: the node's uSID twice in a row: dropped", spine,
	   loop_twice_in, XDP_DROP, NULL, dropped_loop),
	FX_ON("loop: back out of the interface it came in by: dropped", spine,
	      loop_uturn_in, XDP_DROP, NULL, dropped_loop_fx0, 0),
	FX("plain IPv6 (not in the block) in SRv6 mode: dropped", spine,
	   plain6_in, XDP_DROP, NULL, dropped_not_sid),
	FX("IPv4 in SRv6 mode: dropped", spine, plain4_in, XDP_DROP, NULL,
	   dropped_not_sid),
	FX("link-local IPv6: passed to the kernel", spine, linklocal_in,
	   XDP_PASS, linklocal_in, passed_link_local),
	FX("inner IPv6 header cut short: dropped as malformed", spine,
	   inner_cut_in, XDP_DROP, NULL, dropped_malformed),
	FX("next hop's link up (its address checked): forwarded", spine_nh,
	   shift_in, XDP_REDIRECT, shift_out, fwd_fx2_shift1),
	FX("next hop's link down: dropped as link_down, not redirected",
	   spine_nh_fx2_down, shift_in, XDP_DROP, NULL, dropped_link_down),
	FX("blackhole in: dropped before the uSID is read", spine_blackhole_in,
	   shift_in, XDP_DROP, NULL, blackholed_lo),
	FX("blackhole out on the next hop's port: dropped after the shift",
	   spine_blackhole_out_fx2, shift_in, XDP_DROP, NULL, blackholed_fx2),
	FX("blackhole out on another port: forwarded", spine_blackhole_out_fx0,
	   shift_in, XDP_REDIRECT, shift_out, fwd_fx2_shift1),
	FX("drop probability 1 in: dropped", spine_drop_all, shift_in, XDP_DROP,
	   NULL, dropped_random),
	FX("ecn out: CE on the outer header", spine_ecn_out, ect_in,
	   XDP_REDIRECT, ce_out, ce_marked),
	FX("trim in: inner UDP cut, UDP, inner, outer lengths, mark",
	   spine_trim_in, trim_in, XDP_REDIRECT, trim_out, trimmed),
};

/* --- mutated frames --------------------------------------------------------- */

static uint64_t rng = 0x5eed5eedULL;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

/* Drops, passes and departures counted on any interface, summed. */
static void tally(__u64 *drops, __u64 *passes, __u64 *tx)
{
	__u32 ifs[3] = { LO, fx0, fx2 };
	int i, c;

	*drops = *passes = *tx = 0;
	for (i = 0; i < 3; i++) {
		for (c = 0; c < FAB_CNT_MAX; c++) {
			__u64 v = stat(ifs[i], c);

			if ((c >= FAB_CNT_DROP_RANDOM &&
			     c <= FAB_CNT_DROP_TRIM_FAILED) ||
			    c >= FAB_CNT_DROP_SRV6_NOT_SID)
				*drops += v;
			else if (c == FAB_CNT_PASS_NOT_IP ||
				 c == FAB_CNT_PASS_MULTICAST ||
				 c == FAB_CNT_PASS_LOCAL)
				*passes += v;
			else if (c == FAB_CNT_TX_PACKETS)
				*tx += v;
		}
	}
}

/*
 * Valid frames with a few header bytes changed or the frame cut, through
 * the spine's table: every frame is accounted for exactly once (one drop
 * with its reason, one pass, or one departure), and whatever leaves is
 * addressed to the block with an active uSID the spine has a neighbour
 * for: nothing is forwarded by accident.
 */
static void mutated(void **state)
{
	static void (*const seeds[])(struct pkt *) = {
		shift_in, shift3_in,	transit_in,    seg_in,	  bare_in,
		trim_in,  sl_beyond_in, loop_twice_in, plain6_in, srh_type3_in,
	};
	static uint8_t out[PKT_MAX + 256];
	const int runs = 20000;
	__u64 d0, p0, t0, d1, p1, t1;
	struct pkt in;
	int r, k;

	(void)state;
	assert_int_equal(reset(), 0);
	assert_int_equal(spine(), 0);
	for (r = 0; r < runs; r++) {
		LIBBPF_OPTS(bpf_test_run_opts, opts);
		struct xdp_md ctx = {};
		int n = 1 + rnd() % 4;

		seeds[rnd() % (sizeof(seeds) / sizeof(seeds[0]))](&in);
		for (k = 0; k < n; k++) {
			/* Mostly in the headers: the first 140 bytes. */
			size_t at = 14 + rnd() % 126;

			if (at < in.len)
				in.data[at] = rnd() & 1 ? rnd() :
							  in.data[at] ^ 1;
		}
		if (rnd() % 8 == 0)
			in.len = 14 + rnd() % (in.len - 14);
		tally(&d0, &p0, &t0);
		ctx.data_end = in.len;
		ctx.ingress_ifindex = LO;
		opts.data_in = in.data;
		opts.data_size_in = in.len;
		opts.data_out = out;
		opts.data_size_out = sizeof(out);
		opts.ctx_in = &ctx;
		opts.ctx_size_in = sizeof(ctx);
		assert_int_equal(
			bpf_prog_test_run_opts(
				bpf_program__fd(skel->progs.mrc_fab_xdp),
				&opts),
			0);
		tally(&d1, &p1, &t1);
		if (opts.retval == XDP_REDIRECT) {
			uint16_t active = out[14 + 24 + 4] << 8 |
					  out[14 + 24 + 5];

			if (t1 - t0 != 1 || d1 != d0 || p1 != p0 ||
			    memcmp(out + 14 + 24, "\xfd\xbb\xbb\x00", 4) ||
			    (active != 0x0101 && active != 0x0102))
				fail_msg(
					"run %d: forwarded (tx +%llu, drops +%llu"
					", active %04x)",
					r, (unsigned long long)(t1 - t0),
					(unsigned long long)(d1 - d0), active);
		} else if (opts.retval == XDP_DROP) {
			if (d1 - d0 != 1 || t1 != t0 || p1 != p0)
				fail_msg("run %d: dropped, drops +%llu", r,
					 (unsigned long long)(d1 - d0));
		} else if (opts.retval == XDP_PASS) {
			if (p1 - p0 != 1 || t1 != t0 || d1 != d0)
				fail_msg("run %d: passed, passes +%llu", r,
					 (unsigned long long)(p1 - p0));
		} else {
			fail_msg("run %d: verdict %u", r, opts.retval);
		}
	}
}

static int setup_netns(void)
{
	static const char *const cmds[] = {
		"ip link set lo up",
		"ip link add fx0 address 02:00:00:00:00:0a type veth peer name fx1 address 02:00:00:00:00:0b",
		"ip link add fx2 address 02:00:00:00:00:1a type veth peer name fx3 address 02:00:00:00:00:1b",
		"ip link set fx1 up",
		"ip link set fx0 up",
		"ip link set fx3 up",
		"ip link set fx2 up",
		/* As on the testbed's routers. */
		"sysctl -qw net.ipv6.conf.all.forwarding=1",
		"sysctl -qw net.ipv6.conf.all.keep_addr_on_down=1",
		"sysctl -qw net.ipv6.conf.all.ignore_routes_with_linkdown=1",
		"ip -6 addr add fd00:98::1/64 dev fx0 nodad",
		"ip -6 addr add fd00:99::1/64 dev fx2 nodad",
		"ip -6 neigh add fd00:98::2 lladdr 02:00:00:00:00:0b dev fx0 nud permanent",
		"ip -6 neigh add fd00:99::2 lladdr 02:00:00:00:00:1b dev fx2 nud permanent",
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
	fx2 = if_nametoindex("fx2");
	return fx0 && fx2 ? 0 : -1;
}

int main(void)
{
	size_t i, n = sizeof(cases) / sizeof(cases[0]);
	__u32 key;
	int failed, err;

	if (geteuid() != 0) {
		printf("SKIP: test_fabric_srv6 needs root (BPF, netns)\n");
		return 77;
	}
	if (setup_netns())
		return 1;
	/* The u-turn case arrives on fx0, known only now. */
	for (i = 0; i < n; i++)
		if (cases[i].check == dropped_loop_fx0)
			cases[i].ingress_ifindex = fx0;
	skel = mrc_fab__open();
	if (!skel)
		return 1;
	skel->rodata->fab_srv6_block = htonl(0xfdbbbb00);
	err = mrc_fab__load(skel);
	if (err) {
		fprintf(stderr, "loading the fabric program: %s\n",
			strerror(-err));
		return 1;
	}
	for (i = 0; i < 2; i++) {
		key = i ? fx2 : fx0;
		if (bpf_map_update_elem(bpf_map__fd(skel->maps.mrc_fab_tx),
					&key, &key, BPF_ANY)) {
			fprintf(stderr, "devmap: %s\n", strerror(errno));
			return 1;
		}
	}
	failed = fixture_run_xdp("fabric SRv6 uSID fixtures", cases, n,
				 bpf_program__fd(skel->progs.mrc_fab_xdp),
				 reset);
	{
		const struct CMUnitTest more[] = {
			cmocka_unit_test(mutated),
		};

		failed += cmocka_run_group_tests_name(
			"fabric SRv6 mutated frames", more, NULL, NULL);
	}
	mrc_fab__destroy(skel);
	return failed ? 1 : 0;
}
