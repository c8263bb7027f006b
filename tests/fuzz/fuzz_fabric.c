// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzzer of the test fabric's router (tests/fabric/fabric.bpf.c, program
 * mrc_fab_xdp), through BPF_PROG_TEST_RUN, against a model written here
 * from what docs/testbed.md, tests/fabric/fabric_abi.h and the program's
 * comments say it does: parse, the faults of the arrival interface
 * (direction in), bpf_fib_lookup, the faults of the departure interface
 * (direction out), MACs and TTL rewritten, bpf_redirect_map; whatever it
 * cannot route goes to the kernel (XDP_PASS).
 *
 * It runs in a network namespace of its own, as test_fabric_faults does:
 *
 *     lo (ingress, ifindex 1)          fx0 02:00:00:00:00:0a ==veth== fx1
 *       counters, faults               198.18.200.1/24, fd00:99::1/64
 *                                      neighbours .2 / ::2 = 02:..:0b
 *                                      counters, faults, in the devmap
 *
 * so 198.18.200.2 and fd00:99::2 are forwarded out of fx0 (MTU 1500) and
  * anything else has no route, no neighbour or is the router's own. Frames
 * arrive on lo, on fx0 (to leave by the interface they came in by: both
 * directions' faults of one interface) or on fx1, which has no counters
 * (fabricctl never attached to it) and must get none.
 *
 * Frames come in four classes, drawn from a seeded generator:
 *   valid    IPv4 and IPv6 unicast UDP, TCP and other protocols of many
 *            sizes (up to and past the MTU), with and without ECT, IPv4
 *            options and fragments, TTL 2..255, mostly to the next hop
 *   hostile  a valid frame with one thing wrong: IHL < 5 or past the
 *            frame, the IP version or ethertype, cut at every length into
 *            the headers, multicast and broadcast, UDP and IP lengths that
 *            lie, IPv6 extension headers, VLAN tags and other ethertypes,
  *            ARP, TTL 0 and 1, checksums, destinations not routed and
 *            sources not forwarded from
 *   mutated  a valid frame with a few bytes changed, cut or added
 *   random   random bytes, half of them behind a valid Ethernet/IP header
 *
 * Every batch sets a fault configuration drawn from the whole repertoire on
 * lo, fx0 and fx1 (blackhole, sport-drop with its entries, via-stack, the
 * five probabilities, corrupt offset, trim keep and DSCP, dir), or none.
 * Probabilities are mostly FAB_PROB_NEVER or FAB_PROB_ALWAYS; up to three
 * in a batch are in between, and then the model works out every outcome
 * the draws allow and takes the ones that match what the program did.
 *
 * After every frame: the verdict, the request a duplicate carries in front, and
 * the frame that leaves, byte for byte, but for an IPv4 header checksum
 * the program updated, which must check exactly as the input's did (valid
 * stays valid, a broken one stays broken by the same amount: RFC 1624). A
 * trimmed UDP checksum is computed by the model (model.h) and compared.
 * After every batch: every counter of lo and fx0 in mrc_fab_stats against
 * the model's sums (or the range of sums the random draws allow), and no
 * counters for fx1. A counter that differs has the batch run again frame
 * by frame to find the frames that count wrong. Each failure prints the
 * seed, the batch, the fault configuration, the frame in hex and a
 * command line that replays the run up to that batch.
 *
 * Where the documents leave a choice, the model takes this reading:
 *  - the order within a direction is blackhole, sport-drop, random drop,
 *    ECN, corrupt, trim, dup: the first drop that applies is counted;
 *  - the router checks what it reads and nothing else: the Ethernet
 *    header, the fixed IP header (IPv4 version and IHL >= 5), and the L4
 *    ports it needs (UDP's 8 bytes, TCP's first 4); IP total and payload
 *    lengths and checksums are not checked; multicast is decided before
 *    the L4 header is looked for; fragments (first ones too) and IPv6 with
 *    an extension header are faulted on L3 only;
 *  - blackhole drops the IP packets it would route, not those it passes
 *    as multicast or malformed;
 *  - the UDP payload is the UDP length less 8, bounded by the frame;
 *    corrupt flips all bits of the byte at the offset clamped to its end,
 *    and counts only when there was a byte to flip (an empty payload is
 *    left alone, as trim leaves a short one);
 *  - ECN takes any non-zero ECN field as ECN-capable: a packet already
 *    CE stays CE and counts as ecn_ce_marked; Not-ECT counts as
 *    ecn_not_ect;
 *  - dup is counted on the departure interface, whichever direction's
 *    configuration asked for it (as test_fabric_faults expects);
 *  - via-stack is a property of the departure interface, whatever its
 *    dir; a packet passed via the stack is not duplicated;
 *  - an egress missing from mrc_fab_tx falls back to XDP_PASS, forwarded
 *    frame and counters unchanged;
  *  - bpf_fib_lookup's MTU check takes tot_len as linux/bpf.h defines it,
 *    "L3 length from network hdr": the IPv4 total length, the IPv6 payload
 *    length plus the 40-byte header; and the kernel forwards nothing from
 *    an IPv6 source that is multicast, link-local or loopback.
 *
 *   fuzz_fabric [-n FRAMES] [-s SEED] [-b BATCH] [-q]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fabric_abi.h"
#include "fabric.skel.h"
#include "model.h"

#define FRAME_MAX 3400 /* below what a test run holds linearly */
#define MTU 1500 /* fx0's */
#define MAX_RANDOM 3 /* probabilities in between, per batch */
#define MAX_CAND (1 << (2 * MAX_RANDOM)) /* outcomes a frame may have */

/* --- the node ------------------------------------------------------------------ */

enum { IF_LO, IF_FX0, IF_FX1, NIF };
static const char *const if_name[NIF] = { "lo", "fx0", "fx1" };
static uint32_t ifidx[NIF] = { 1 };
/* fabricctl made counters for lo and fx0 only. */
static const int has_stats[NIF] = { 1, 1, 0 };

static const uint8_t mac_fx0[6] = { 2, 0, 0, 0, 0, 0x0a };
static const uint8_t mac_next_hop[6] = { 2, 0, 0, 0, 0, 0x0b };
static const uint8_t mac_sender[6] = { 2, 0, 0, 0, 0, 0x0c };
static const uint8_t next_hop4[4] = { 198, 18, 200, 2 };
static const uint8_t next_hop6[16] = { 0xfd, 0, 0, 0x99, [15] = 2 };

static struct mrc_fab *skel;
static int prog_fd;

/* One batch's fault configuration, as written to the maps. */
#define SPORT_MAX 12
static struct {
	int present[NIF]; /* an mrc_fab_fault entry */
	struct fab_fault f[NIF];
	struct fab_sport_key sport[SPORT_MAX]; /* entries of mrc_fab_sport */
	int nsport;
	int devmap_fx0; /* fx0 in mrc_fab_tx */
} cfg;

static const uint16_t sport_pool[] = { 20000, 20001, 20002, 20003,
				       4791,  1,     65535, 49152 };
#define NPOOL (sizeof(sport_pool) / sizeof(sport_pool[0]))

/* --- frames ---------------------------------------------------------------------- */

struct frame {
	uint8_t b[FRAME_MAX + 64];
	uint32_t len;
	uint8_t cls;
	uint8_t in; /* IF_*: where it arrives */
};

enum { C_VALID, C_HOSTILE, C_MUTATED, C_RANDOM, C_MAX };
static const char *const cls_name[C_MAX] = { "valid", "hostile", "mutated",
					     "random" };

/* What a frame says, before it is laid out. */
struct spec {
	int v6;
	uint8_t proto; /* 17, 6, or anything else */
	uint8_t ext; /* IPv6: an extension header before the L4 one, or 0 */
	uint8_t tos, ttl, ihl;
	uint16_t frag; /* IPv4 flags and fragment offset */
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	uint32_t paylen;
	int no_udp_csum; /* IPv4: a zero UDP checksum */
	int udp_len_delta, ip_len_delta; /* added to the lengths: lies */
	uint32_t trail; /* bytes after the IP packet (link padding) */
};

/* Own RFC 1071 helpers for what model.h has no call for. */
static void put_ip_csum(uint8_t *f, uint32_t hl)
{
	f[24] = f[25] = 0;
	put16(f + 24, (uint16_t)~fold(sum16(f + 14, hl, 0)));
}

static void put_l4_csum(uint8_t *f, int v6, uint32_t l4, uint32_t len,
			uint8_t proto, uint32_t at)
{
	uint32_t s = 0;

	f[l4 + at] = f[l4 + at + 1] = 0;
	if (v6)
		s = sum16(f + 22, 32, 0);
	else if (proto != 1) /* ICMP has no pseudo-header */
		s = sum16(f + 26, 8, 0);
	if (v6 || proto != 1)
		s += proto + len;
	put16(f + l4 + at, (uint16_t)~fold(sum16(f + l4, len, s)));
}

/* The 16-bit ones' complement sum of the fixed IPv4 header, folded. */
static uint16_t ip_residual(const uint8_t *f)
{
	return fold(sum16(f + 14, 20, 0));
}

/* The bytes of the IP and L4 headers a spec lays out. */
static uint32_t hdr_len(const struct spec *s)
{
	uint32_t n = s->v6 ? 40 + (s->ext ? 8 : 0) : s->ihl * 4u;

	return n + (s->proto == 6 ? 20 : 8);
}

/* The most payload a frame of spec s holds. */
static uint32_t room(const struct spec *s)
{
	return FRAME_MAX - 14 - hdr_len(s) - s->trail;
}

static void lay(struct frame *fr, const struct spec *s)
{
	uint8_t *f = fr->b;
	uint32_t l4, l4len, hl, i, flow = (uint32_t)rnd() & 0xfffff;

	memcpy(f, mac_fx0, 6);
	memcpy(f + 6, mac_sender, 6);
	if (s->v6) {
		put16(f + 12, 0x86dd);
		f[14] = (uint8_t)(0x60 | s->tos >> 4);
		f[15] = (uint8_t)(s->tos << 4 | flow >> 16);
		put16(f + 16, (uint16_t)flow);
		f[20] = s->ext ? s->ext : s->proto;
		f[21] = s->ttl;
		memcpy(f + 22, s->src, 16);
		memcpy(f + 38, s->dst, 16);
		l4 = 54;
		if (s->ext) {
			f[54] = s->proto;
			f[55] = 0; /* 8 bytes */
			for (i = 2; i < 8; i++)
				f[54 + i] = (uint8_t)rnd();
			l4 = 62;
		}
	} else {
		hl = s->ihl * 4u;
		put16(f + 12, 0x0800);
		f[14] = (uint8_t)(0x40 | s->ihl);
		f[15] = s->tos;
		put16(f + 18, (uint16_t)rnd());
		put16(f + 20, s->frag);
		f[22] = s->ttl;
		f[23] = s->proto;
		memcpy(f + 26, s->src, 4);
		memcpy(f + 30, s->dst, 4);
		for (i = 20; i < hl; i++)
			f[14 + i] = 1; /* NOP options */
		l4 = 14 + hl;
	}
	if (s->proto == 17) {
		put16(f + l4, s->sport);
		put16(f + l4 + 2, s->dport);
		l4len = 8 + s->paylen;
	} else if (s->proto == 6) {
		put16(f + l4, s->sport);
		put16(f + l4 + 2, s->dport);
		put32(f + l4 + 4, (uint32_t)rnd());
		put32(f + l4 + 8, (uint32_t)rnd());
		f[l4 + 12] = 5 << 4;
		f[l4 + 13] = 0x18; /* PSH, ACK */
		put16(f + l4 + 14, 0xffff);
		put16(f + l4 + 18, 0);
		l4len = 20 + s->paylen;
	} else {
		f[l4] = 8; /* an echo request, whatever the protocol */
		f[l4 + 1] = 0;
		put32(f + l4 + 4, (uint32_t)rnd());
		l4len = 8 + s->paylen;
	}
	for (i = l4len - s->paylen; i < l4len; i++)
		f[l4 + i] = (uint8_t)rnd();
	if (s->v6)
		put16(f + 18, (uint16_t)(l4 - 54 + l4len + s->ip_len_delta));
	else
		put16(f + 16, (uint16_t)(l4 - 14 + l4len + s->ip_len_delta));
	if (s->proto == 17) {
		put16(f + l4 + 4, (uint16_t)l4len);
		if (s->v6 || !s->no_udp_csum)
			set_udp_csum(f, 14, s->v6, l4, l4len);
		else
			put16(f + l4 + 6, 0);
		put16(f + l4 + 4, (uint16_t)(l4len + s->udp_len_delta));
	} else if (s->proto == 6) {
		put_l4_csum(f, s->v6, l4, l4len, 6, 16);
	} else {
		put_l4_csum(f, s->v6, l4, l4len, s->proto, 2);
	}
	if (!s->v6)
		put_ip_csum(f, s->ihl * 4u);
	for (i = 0; i < s->trail; i++)
		f[l4 + l4len + i] = (uint8_t)rnd();
	fr->len = l4 + l4len + s->trail;
}

/* Mostly the next hop; else no neighbour, the router, broadcast, no route. */
static void pick_dst(struct spec *s)
{
	unsigned int r = below(100);

	memset(s->dst, 0, 16);
	if (!s->v6) {
		memcpy(s->dst, next_hop4, 4);
		if (r < 75)
			return;
		if (r < 83)
			s->dst[3] = (uint8_t)(3 + below(252));
		else if (r < 87)
			s->dst[3] = 1;
		else if (r < 90)
			s->dst[3] = chance(50) ? 255 : 0;
		else if (r < 95)
			s->dst[2] = 201;
		else if (r < 97)
			memcpy(s->dst, (uint8_t[4]){ 127, 0, 0, 1 }, 4);
		else
			put32(s->dst, (uint32_t)rnd());
		return;
	}
	memcpy(s->dst, next_hop6, 16);
	if (r < 75)
		return;
	if (r < 83)
		s->dst[15] = (uint8_t)(3 + below(252));
	else if (r < 87)
		s->dst[15] = 1;
	else if (r < 92)
		s->dst[3] = 0x98;
	else if (r < 95)
		memcpy(s->dst, (uint8_t[16]){ [15] = 1 }, 16);
	else
		for (r = 0; r < 16; r++)
			s->dst[r] = (uint8_t)(r ? rnd() : below(255));
}

/* Payload sizes: tiny, about a trim's keep, about the MTU, and past it. */
static uint32_t pick_paylen(const struct spec *s)
{
	uint32_t max = room(s), hl = hdr_len(s), n;

	switch (below(8)) {
	case 0:
		n = below(17);
		break;
	case 1:
		n = below(600);
		break;
	case 2: /* the IP packet within a few bytes of the MTU */
		n = MTU - hl - 4 + below(9);
		break;
	case 3:
		n = below(max + 1);
		break;
	default:
		n = below(MTU - hl + 1);
	}
	return n < max ? n : max;
}

static struct spec valid_spec(void)
{
	struct spec s = { .v6 = chance(40), .ihl = 5, .ttl = 64 };
	unsigned int r = below(100);

	s.proto = r < 75 ? 17 : r < 90 ? 6 : s.v6 ? 58 : 1;
	if (chance(3))
		s.proto = (uint8_t)rnd();
	r = below(10);
	/* DSCP anything, ECN: mostly ECT(0) or ECT(1), some Not-ECT and CE */
	s.tos = (uint8_t)(below(64) << 2 | (r < 4 ? 2 :
					    r < 6 ? 1 :
					    r < 9 ? 0 :
						    3));
	if (chance(10))
		s.ttl = chance(50) ? 2 : 255;
	s.sport = chance(50) ? sport_pool[below(NPOOL)] :
			       (uint16_t)(1024 + below(64512));
	s.dport = chance(50) ? 4791 : (uint16_t)rnd();
	if (!s.v6) {
		if (chance(10))
			s.ihl = (uint8_t)(6 + below(10));
		s.frag = chance(80) ? 0x4000 : 0;
		if (chance(10)) /* a fragment: first, middle or last */
			s.frag = (uint16_t)(below(3) == 0 ?
						    0x2000 :
					    below(2) ?
						    0x2000 | (1 + below(8191)) :
						    1 + below(8191));
		s.no_udp_csum = chance(10);
		memcpy(s.src, (uint8_t[4]){ 198, 18, 100, 2 }, 4);
		if (chance(10))
			put32(s.src, (uint32_t)rnd());
	} else {
		memcpy(s.src, (uint8_t[16]){ 0xfd, 0, 0, 0x98, [15] = 2 }, 16);
	}
	pick_dst(&s);
	if (chance(5))
		s.trail = below(40);
	s.paylen = pick_paylen(&s);
	return s;
}

/* A valid frame with one thing wrong, in the spec or in its bytes. */
static void lay_hostile(struct frame *fr)
{
	struct spec s = valid_spec();
	uint8_t *f = fr->b;
	uint32_t l4, i, n;

	if (chance(80))
		s.proto = chance(80) ? 17 : 6;
	s.frag &= 0x4000;
	if (s.paylen > room(&s))
		s.paylen = room(&s);
	switch (below(22)) {
	case 0:
		lay(fr, &s);
		f[14] = (uint8_t)((f[14] & 0xf0) | below(5)); /* IHL < 5 */
		return;
	case 1: /* IHL past what is there */
		if (!s.v6) {
			lay(fr, &s);
			f[14] = (uint8_t)(0x40 | (6 + below(10)));
			if (chance(50))
				fr->len = 34 + below(30);
			return;
		}
		s.v6 = 0; /* an IPv4 frame then, of that kind */
		memcpy(s.src, (uint8_t[4]){ 198, 18, 100, 2 }, 4);
		pick_dst(&s);
		if (s.paylen > room(&s))
			s.paylen = room(&s);
		lay(fr, &s);
		f[14] = (uint8_t)(0x40 | (6 + below(10)));
		return;
	case 2: /* the version */
		lay(fr, &s);
		do
			n = below(16);
		while (n == (s.v6 ? 6u : 4u));
		f[14] = (uint8_t)(n << 4 | (f[14] & 0x0f));
		return;
	case 3: /* the ethertype of the other IP version */
		lay(fr, &s);
		put16(f + 12, s.v6 ? 0x0800 : 0x86dd);
		return;
	case 4: /* cut at any length into (or just past) the headers */
		lay(fr, &s);
		l4 = s.v6 ? 54 + (s.ext ? 8 : 0) : 14 + s.ihl * 4u;
		n = l4 + 24 < fr->len ? l4 + 24 : fr->len;
		fr->len = 14 + below(n - 14 + 1);
		return;
	case 5: /* multicast, broadcast */
		if (s.v6) {
			s.dst[0] = 0xff;
			s.dst[1] = (uint8_t)rnd();
		} else if (chance(30)) {
			put32(s.dst, 0xffffffff);
		} else {
			put32(s.dst, 0xe0000000u | ((uint32_t)rnd() >> 4));
		}
		if (chance(20)) {
			lay(fr, &s);
			fr->len = (s.v6 ? 54 : 34) + below(8); /* and cut */
			return;
		}
		break;
	case 6: /* UDP length past the frame */
		s.proto = 17;
		s.udp_len_delta = (int)(1 + below(chance(50) ? 8 : 3000));
		break;
	case 7: /* UDP length short of the datagram, but at least 8 */
		s.proto = 17;
		if (s.paylen == 0)
			s.paylen = 1 + below(64);
		s.udp_len_delta = -(int)(1 + below(s.paylen));
		break;
	case 8: /* UDP length below its own header */
		s.proto = 17;
		s.udp_len_delta = -(int)(8 + s.paylen - below(8));
		break;
	case 9: /* IP length too long: sometimes past the MTU */
		s.ip_len_delta = (int)(1 + below(chance(50) ? 64 : 3000));
		break;
	case 10: /* IP length too short: sometimes below the headers */
		s.ip_len_delta = -(int)below(s.paylen + 8 + 1);
		lay(fr, &s);
		if (chance(30))
			put16(f + (s.v6 ? 18 : 16), (uint16_t)below(20));
		if (!s.v6)
			put_ip_csum(f, s.ihl * 4u);
		return;
	case 11: { /* IPv6 extension headers */
		static const uint8_t ext[] = { 0, 43, 44, 60, 51, 135 };

		s.v6 = 1;
		memcpy(s.src, (uint8_t[16]){ 0xfd, 0, 0, 0x98, [15] = 2 }, 16);
		pick_dst(&s);
		s.ext = ext[below(sizeof(ext))];
		if (chance(20))
			s.ext = 59; /* no next header */
		if (s.paylen > room(&s))
			s.paylen = room(&s);
		break;
	}
	case 12: /* a VLAN tag or another ethertype in front of IP */
		lay(fr, &s);
		if (chance(50) && fr->len + 4 <= FRAME_MAX) {
			memmove(f + 16, f + 12, fr->len - 12);
			put16(f + 12, chance(50) ? 0x8100 : 0x88a8);
			put16(f + 14, (uint16_t)below(4096));
			fr->len += 4;
		} else {
			do
				n = (uint16_t)rnd();
			while (n == 0x0800 || n == 0x86dd);
			put16(f + 12, (uint16_t)n);
		}
		return;
	case 13: /* ARP */
		memcpy(f, "\xff\xff\xff\xff\xff\xff", 6);
		memcpy(f + 6, mac_sender, 6);
		put16(f + 12, 0x0806);
		for (i = 0; i < 28; i++)
			f[14 + i] = (uint8_t)rnd();
		put32(f + 14, 0x00010800);
		put16(f + 18, 0x0604);
		put16(f + 20, (uint16_t)(1 + below(2)));
		fr->len = 42 + (chance(50) ? 18 : 0);
		return;
	case 14:
		s.ttl = (uint8_t)below(2);
		break;
	case 15: /* a broken IPv4 header checksum */
		if (s.v6)
			break;
		lay(fr, &s);
		f[24 + below(2)] ^= (uint8_t)(1 + below(255));
		return;
	case 16: /* a broken or absent UDP checksum */
		s.proto = 17;
		lay(fr, &s);
		l4 = s.v6 ? 54 : 14 + s.ihl * 4u;
		if (chance(50))
			put16(f + l4 + 6, 0);
		else
			f[l4 + 6 + below(2)] ^= (uint8_t)(1 + below(255));
		return;
	case 17: /* a fragment, any offset */
		if (!s.v6)
			s.frag = (uint16_t)rnd() & 0x3fff;
		if (!s.frag)
			s.frag = 1;
		break;
	case 18: /* a lot of link padding after the datagram */
		s.trail = 40 + below(200);
		if (s.paylen > room(&s))
			s.paylen = room(&s);
		break;
	case 19: /* an odd UDP payload about the largest trim */
		s.proto = 17;
		s.paylen = 500 + below(30);
		break;
	case 20: /* a source no router should forward from */
		if (s.v6) {
			static const uint8_t src6[3][16] = {
				{ 0xff, 0x02, [15] = 1 },
				{ 0xfe, 0x80, [15] = 1 },
				{ [15] = 1 },
			};

			memcpy(s.src, src6[below(3)], 16);
		} else {
			static const uint32_t src4[] = { 0xe0000001, 0x7f000001,
							 0, 0xffffffff,
							 0xc612c801 };

			put32(s.src, src4[below(5)]);
		}
		break;
	default: /* the first IP header bytes of another frame */
		lay(fr, &s);
		put32(f + 14 + 4 * below(5), (uint32_t)rnd());
		return;
	}
	if (s.v6 && s.ihl != 5)
		s.ihl = 5;
	if (s.paylen > room(&s))
		s.paylen = room(&s);
	lay(fr, &s);
}

static void mutate(struct frame *fr)
{
	int n = 1 + (int)below(4);
	uint32_t at, k, i;

	while (n--) {
		at = below(fr->len);
		switch (below(6)) {
		case 0:
			fr->b[at] ^= (uint8_t)(1u << below(8));
			break;
		case 1:
			fr->b[at] = (uint8_t)rnd();
			break;
		case 2: /* cut, to no less than an Ethernet header (a test
			 * run refuses shorter frames) */
			fr->len = at > 14 ? at : 14;
			break;
		case 3: /* grow */
			if (fr->len < FRAME_MAX - 64) {
				k = 1 + below(64);
				for (i = 0; i < k; i++)
					fr->b[fr->len + i] = (uint8_t)rnd();
				fr->len += k;
			}
			break;
		case 4: /* a byte into the headers */
			fr->b[12 + below(52)] = (uint8_t)rnd();
			break;
		default: /* a field's worth */
			put32(fr->b + 12 + below(52), (uint32_t)rnd());
		}
	}
}

static void make_frame(struct frame *fr, int cls)
{
	struct spec s;
	uint32_t i, hdr;
	unsigned int r = below(100);

	fr->cls = (uint8_t)cls;
	fr->in = r < 75 ? IF_LO : r < 90 ? IF_FX0 : IF_FX1;
	switch (cls) {
	case C_VALID:
		s = valid_spec();
		lay(fr, &s);
		return;
	case C_HOSTILE:
		lay_hostile(fr);
		return;
	case C_MUTATED:
		s = valid_spec();
		lay(fr, &s);
		mutate(fr);
		return;
	default:
		fr->len = 14 + below(chance(90) ? 300 : FRAME_MAX - 14);
		for (i = 0; i < fr->len; i++)
			fr->b[i] = (uint8_t)rnd();
		if (chance(50)) {
			s = valid_spec();
			s.paylen = 0;
			lay(fr, &s);
			hdr = s.v6 ? 54 : 14 + s.ihl * 4u;
			fr->len = hdr + below(400);
			for (i = hdr; i < fr->len; i++)
				fr->b[i] = (uint8_t)rnd();
		}
	}
}

/* --- fault configurations -------------------------------------------------------- */

static uint32_t pick_prob(int *nrand, unsigned int never, unsigned int always)
{
	unsigned int r = below(100);

	if (r < never)
		return FAB_PROB_NEVER;
	if (r < never + always)
		return FAB_PROB_ALWAYS;
	if (*nrand >= MAX_RANDOM)
		return chance(50) ? FAB_PROB_NEVER : FAB_PROB_ALWAYS;
	(*nrand)++;
	switch (below(4)) {
	case 0:
		return 1;
	case 1:
		return FAB_PROB_ALWAYS - 1;
	default:
		return 1 + below(FAB_PROB_ALWAYS - 1);
	}
}

static void pick_cfg(void)
{
	static const uint32_t dirs[] = { 0, FAB_DIR_IN, FAB_DIR_OUT,
					 FAB_DIR_IN | FAB_DIR_OUT };
	int nrand = 0, i, k;

	memset(&cfg, 0, sizeof(cfg));
	for (i = 0; i < NIF; i++) {
		struct fab_fault *f = &cfg.f[i];

		cfg.present[i] = chance(i == IF_FX1 ? 50 : 85);
		if (!cfg.present[i])
			continue;
		f->flags = (chance(5) ? FAB_F_BLACKHOLE : 0) |
			   (chance(40) ? FAB_F_SPORT_DROP : 0) |
			   (chance(10) ? FAB_F_VIA_STACK : 0);
		f->dir_mask = dirs[below(4)];
		if (chance(5))
			f->dir_mask |= (uint32_t)rnd() & ~3u;
		f->drop_prob = pick_prob(&nrand, 80, 8);
		f->ecn_prob = pick_prob(&nrand, 40, 45);
		f->corrupt_prob = pick_prob(&nrand, 50, 35);
		f->trim_prob = pick_prob(&nrand, 50, 35);
		f->dup_prob = pick_prob(&nrand, 55, 30);
		switch (below(5)) {
		case 0:
			f->corrupt_offset_bytes = 0;
			break;
		case 1:
			f->corrupt_offset_bytes = (uint16_t)below(16);
			break;
		case 2:
			f->corrupt_offset_bytes = 0xffff;
			break;
		default:
			f->corrupt_offset_bytes = (uint16_t)below(1600);
		}
		switch (below(6)) {
		case 0:
			f->trim_keep_bytes = 0;
			break;
		case 1:
			f->trim_keep_bytes = FAB_TRIM_KEEP_MAX;
			break;
		case 2: /* more than a trim keeps: clamped */
			f->trim_keep_bytes = (uint16_t)(FAB_TRIM_KEEP_MAX + 1 +
							below(65535 - 512));
			break;
		case 3:
			f->trim_keep_bytes = (uint16_t)below(64);
			break;
		default:
			f->trim_keep_bytes = (uint16_t)below(FAB_TRIM_KEEP_MAX);
		}
		f->trim_dscp = (uint8_t)below(64); /* fabricctl's 0..63 */
		if (chance(10))
			for (k = 0; k < 3; k++)
				f->pad[k] = (uint8_t)rnd();
	}
	/* Source ports to drop, per interface, and some of nobody's. */
	for (k = (int)below(SPORT_MAX + 1); k > 0; k--) {
		struct fab_sport_key *sk = &cfg.sport[cfg.nsport];
		unsigned int w = below(10);
		int j;

		sk->ifindex = w < 4 ? ifidx[IF_LO] :
			      w < 7 ? ifidx[IF_FX0] :
			      w < 8 ? ifidx[IF_FX1] :
				      77;
		sk->sport = chance(80) ? sport_pool[below(NPOOL)] :
					 (uint16_t)rnd();
		for (j = 0; j < cfg.nsport; j++)
			if (cfg.sport[j].ifindex == sk->ifindex &&
			    cfg.sport[j].sport == sk->sport)
				break;
		if (j == cfg.nsport)
			cfg.nsport++;
	}
	cfg.devmap_fx0 = !chance(3);
}

static int write_cfg(void)
{
	static struct fab_sport_key old[SPORT_MAX];
	static int nold;
	int ffd = bpf_map__fd(skel->maps.mrc_fab_fault);
	int sfd = bpf_map__fd(skel->maps.mrc_fab_sport);
	int tfd = bpf_map__fd(skel->maps.mrc_fab_tx);
	uint8_t val;
	int i;

	for (i = 0; i < nold; i++)
		bpf_map_delete_elem(sfd, &old[i]);
	for (i = 0; i < NIF; i++) {
		if (cfg.present[i]) {
			if (bpf_map_update_elem(ffd, &ifidx[i], &cfg.f[i],
						BPF_ANY))
				return -errno;
		} else if (bpf_map_delete_elem(ffd, &ifidx[i]) &&
			   errno != ENOENT) {
			return -errno;
		}
	}
	for (i = 0; i < cfg.nsport; i++) {
		val = (uint8_t)below(2); /* any entry drops, even a 0 */
		if (bpf_map_update_elem(sfd, &cfg.sport[i], &val, BPF_ANY))
			return -errno;
	}
	memcpy(old, cfg.sport, sizeof(old));
	nold = cfg.nsport;
	if (cfg.devmap_fx0) {
		if (bpf_map_update_elem(tfd, &ifidx[IF_FX0], &ifidx[IF_FX0],
					BPF_ANY))
			return -errno;
	} else if (bpf_map_delete_elem(tfd, &ifidx[IF_FX0]) &&
		   errno != ENOENT) {
		return -errno;
	}
	return 0;
}

static const char *prob_str(uint32_t p, char *buf)
{
	if (p == FAB_PROB_NEVER)
		return "0";
	if (p == FAB_PROB_ALWAYS)
		return "1";
	sprintf(buf, "%#x", p);
	return buf;
}

static void print_cfg(FILE *o)
{
	char b[5][16];
	int i, k;

	for (i = 0; i < NIF; i++) {
		const struct fab_fault *f = &cfg.f[i];

		if (!cfg.present[i]) {
			fprintf(o, "    %-3s no fault entry\n", if_name[i]);
			continue;
		}
		fprintf(o,
			"    %-3s flags%s%s%s dir %#x drop %s ecn %s corrupt %s offset %u trim %s keep %u dscp %u dup %s\n",
			if_name[i],
			f->flags & FAB_F_BLACKHOLE ? " blackhole" : "",
			f->flags & FAB_F_SPORT_DROP ? " sport-drop" : "",
			f->flags & FAB_F_VIA_STACK ? " via-stack" : "",
			f->dir_mask, prob_str(f->drop_prob, b[0]),
			prob_str(f->ecn_prob, b[1]),
			prob_str(f->corrupt_prob, b[2]),
			f->corrupt_offset_bytes, prob_str(f->trim_prob, b[3]),
			f->trim_keep_bytes, f->trim_dscp,
			prob_str(f->dup_prob, b[4]));
	}
	fprintf(o, "    mrc_fab_sport:");
	for (k = 0; k < cfg.nsport; k++)
		fprintf(o, " %u/%u", cfg.sport[k].ifindex, cfg.sport[k].sport);
	fprintf(o, "\n    fx0 (ifindex %u) %s mrc_fab_tx\n", ifidx[IF_FX0],
		cfg.devmap_fx0 ? "in" : "not in");
}

/* --- the model ------------------------------------------------------------------- */

/* The random draws of one direction, as bits of a frame's outcome. */
enum { EV_DROP, EV_ECN, EV_CORRUPT, EV_TRIM, EV_DUP, EV_MAX };

struct outcome {
	int action; /* XDP_* */
	int dup; /* a struct fab_dup_hdr in front of the frame */
	int ip_sum; /* the IPv4 header was rewritten: check its sum */
	uint32_t len;
	uint64_t cnt[NIF][FAB_CNT_MAX];
	uint8_t b[FRAME_MAX + 64];
};

/* What the router reads of a frame. */
struct hdr {
	int v6, udp;
	uint32_t l4; /* the UDP header, when udp */
};

enum { R_IP, R_NOT_IP, R_MCAST, R_MALFORMED };

/*
 * How the router takes a frame, in the words of its parse(): R_IP for
 * unicast IPv4 and IPv6, R_NOT_IP for other ethertypes, R_MCAST for
 * multicast or broadcast, R_MALFORMED for a header cut short (or an IPv4
 * header that is not one).
 */
static int classify(const uint8_t *f, uint32_t n, struct hdr *h)
{
	uint32_t l4;
	uint8_t proto;

	memset(h, 0, sizeof(*h));
	if (get16(f + 12) == 0x0800) {
		if (n < 34 || f[14] >> 4 != 4 || (f[14] & 0x0f) < 5)
			return R_MALFORMED;
		if (f[30] >> 4 == 0xe || get32(f + 30) == 0xffffffff)
			return R_MCAST;
		if (get16(f + 20) & 0x3fff)
			return R_IP; /* a fragment: L3 only */
		proto = f[23];
		l4 = 14 + (f[14] & 0x0fu) * 4;
	} else if (get16(f + 12) == 0x86dd) {
		h->v6 = 1;
		if (n < 54 || f[14] >> 4 != 6)
			return R_MALFORMED;
		if (f[38] == 0xff)
			return R_MCAST;
		proto = f[20];
		l4 = 54;
	} else {
		return R_NOT_IP;
	}
	if (proto == 17 || proto == 6) {
		if (n < l4 + (proto == 17 ? 8 : 4))
			return R_MALFORMED;
		h->udp = proto == 17;
		h->l4 = l4;
	}
	return R_IP;
}

static int happens(uint32_t prob, uint32_t bits, int ev)
{
	if (prob == FAB_PROB_NEVER)
		return 0;
	if (prob == FAB_PROB_ALWAYS)
		return 1;
	return bits >> ev & 1;
}

static void count(struct outcome *o, int i, int c, uint64_t n)
{
	if (has_stats[i])
		o->cnt[i][c] += n;
}

static int sport_listed(int i, uint16_t port)
{
	int k;

	for (k = 0; k < cfg.nsport; k++)
		if (cfg.sport[k].ifindex == ifidx[i] &&
		    cfg.sport[k].sport == port)
			return 1;
	return 0;
}

static uint32_t udp_payload(const struct outcome *o, const struct hdr *h)
{
	uint32_t ulen = get16(o->b + h->l4 + 4), avail = o->len - (h->l4 + 8);

	if (ulen < 8)
		return 0;
	return ulen - 8 < avail ? ulen - 8 : avail;
}

static uint8_t get_tclass(const struct outcome *o, const struct hdr *h)
{
	if (h->v6)
		return (uint8_t)((o->b[14] & 0x0f) << 4 | o->b[15] >> 4);
	return o->b[15];
}

static void put_tclass(struct outcome *o, const struct hdr *h, uint8_t tc)
{
	if (h->v6) {
		o->b[14] = (uint8_t)((o->b[14] & 0xf0) | tc >> 4);
		o->b[15] = (uint8_t)((o->b[15] & 0x0f) | tc << 4);
	} else {
		o->b[15] = tc;
		o->ip_sum = 1;
	}
}

/* Cut the UDP payload to keep bytes: lengths, DSCP mark, UDP checksum. */
static void trim_to(struct outcome *o, const struct hdr *h, uint32_t keep,
		    uint8_t dscp)
{
	o->len = h->l4 + 8 + keep;
	put16(o->b + h->l4 + 4, (uint16_t)(8 + keep));
	if (h->v6) {
		put16(o->b + 18, (uint16_t)(8 + keep));
	} else {
		put16(o->b + 16, (uint16_t)(h->l4 - 14 + 8 + keep));
		o->ip_sum = 1;
	}
	put_tclass(o, h, (uint8_t)(dscp << 2 | (get_tclass(o, h) & 3)));
	/* RFC 768: a zero IPv4 UDP checksum is none, and stays none. */
	if (h->v6 || get16(o->b + h->l4 + 6))
		set_udp_csum(o->b, 14, h->v6, h->l4, 8 + keep);
}

/* The faults of interface i for direction dir: 1 when they drop. */
static int faults(struct outcome *o, const struct hdr *h, int i, uint32_t dir,
		  uint32_t bits, int *dup)
{
	const struct fab_fault *f = &cfg.f[i];
	uint32_t plen, keep, off;

	if (!cfg.present[i] || !(f->dir_mask & dir))
		return 0;
	if (f->flags & FAB_F_BLACKHOLE) {
		count(o, i, FAB_CNT_DROP_BLACKHOLE, 1);
		return 1;
	}
	if ((f->flags & FAB_F_SPORT_DROP) && h->udp &&
	    sport_listed(i, get16(o->b + h->l4))) {
		count(o, i, FAB_CNT_DROP_SPORT, 1);
		return 1;
	}
	if (happens(f->drop_prob, bits, EV_DROP)) {
		count(o, i, FAB_CNT_DROP_RANDOM, 1);
		return 1;
	}
	if (happens(f->ecn_prob, bits, EV_ECN)) {
		if (get_tclass(o, h) & 3) {
			put_tclass(o, h, get_tclass(o, h) | 3);
			count(o, i, FAB_CNT_ECN_MARKED, 1);
		} else {
			count(o, i, FAB_CNT_ECN_NOT_ECT, 1);
		}
	}
	if (h->udp && happens(f->corrupt_prob, bits, EV_CORRUPT)) {
		plen = udp_payload(o, h);
		if (plen) {
			off = f->corrupt_offset_bytes < plen ?
				      f->corrupt_offset_bytes :
				      plen - 1;
			o->b[h->l4 + 8 + off] ^= 0xff;
			count(o, i, FAB_CNT_CORRUPTED, 1);
		}
	}
	if (h->udp && happens(f->trim_prob, bits, EV_TRIM)) {
		keep = f->trim_keep_bytes < FAB_TRIM_KEEP_MAX ?
			       f->trim_keep_bytes :
			       FAB_TRIM_KEEP_MAX;
		if (udp_payload(o, h) > keep) {
			trim_to(o, h, keep, f->trim_dscp & 0x3f);
			count(o, i, FAB_CNT_TRIMMED, 1);
		}
	}
	if (happens(f->dup_prob, bits, EV_DUP))
		*dup = 1;
	return 0;
}

/*
 * Does bpf_fib_lookup forward it (out of fx0)? The next hop's address, no
 * more than the MTU; and for IPv6 a source that is not multicast,
 * link-local or loopback, which the kernel never forwards.
 */
static int routed(const struct outcome *o, const struct hdr *h)
{
	static const uint8_t loopback6[16] = { [15] = 1 };
	const uint8_t *src = o->b + 22;

	if (h->v6)
		return !memcmp(o->b + 38, next_hop6, 16) &&
		       get16(o->b + 18) + 40u <= MTU && src[0] != 0xff &&
		       !(src[0] == 0xfe && (src[1] & 0xc0) == 0x80) &&
		       memcmp(src, loopback6, 16);
	return !memcmp(o->b + 30, next_hop4, 4) && get16(o->b + 16) <= MTU;
}

/*
 * What the router does with frame in, when the random draws come out as
 * bits says (bit EV_x: direction in; EV_MAX + EV_x: direction out).
 */
static void model(const struct frame *in, uint32_t bits, struct outcome *o)
{
	int i = in->in, eg = IF_FX0, dup = 0, r;
	uint64_t copies;
	struct hdr h;

	memcpy(o->b, in->b, in->len);
	o->len = in->len;
	o->action = XDP_PASS;
	o->dup = o->ip_sum = 0;
	memset(o->cnt, 0, sizeof(o->cnt));
	r = classify(o->b, o->len, &h);
	if (r != R_IP) {
		count(o, i,
		      r == R_NOT_IP ? FAB_CNT_PASS_NOT_IP :
		      r == R_MCAST  ? FAB_CNT_PASS_MULTICAST :
				      FAB_CNT_PASS_MALFORMED,
		      1);
		return;
	}
	count(o, i, FAB_CNT_RX_PACKETS, 1);
	count(o, i, FAB_CNT_RX_BYTES, o->len);
	if (faults(o, &h, i, FAB_DIR_IN, bits, &dup)) {
		o->action = XDP_DROP;
		return;
	}
	if (o->b[h.v6 ? 21 : 22] <= 1) {
		count(o, i, FAB_CNT_PASS_TTL, 1);
		return;
	}
	if (!routed(o, &h)) {
		count(o, i, FAB_CNT_PASS_LOCAL, 1);
		return;
	}
	if (faults(o, &h, eg, FAB_DIR_OUT, bits >> EV_MAX, &dup)) {
		o->action = XDP_DROP;
		return;
	}
	if (cfg.present[eg] && (cfg.f[eg].flags & FAB_F_VIA_STACK)) {
		count(o, eg, FAB_CNT_PASS_STACK, 1);
		return;
	}
	if (h.v6) {
		o->b[21]--;
	} else {
		o->b[22]--;
		o->ip_sum = 1;
	}
	memcpy(o->b, mac_next_hop, 6);
	memcpy(o->b + 6, mac_fx0, 6);
	copies = dup ? 2 : 1;
	count(o, eg, FAB_CNT_TX_PACKETS, copies);
	count(o, eg, FAB_CNT_TX_BYTES, o->len * copies);
	if (dup) {
		count(o, eg, FAB_CNT_DUPLICATED, 1);
		o->dup = 1;
		return;
	}
	o->action = cfg.devmap_fx0 ? XDP_REDIRECT : XDP_PASS;
}

/* The draws that are random for frame in: bits of the outcome to try. */
static uint32_t random_bits(const struct frame *in)
{
	const struct fab_fault *f;
	uint32_t mask = 0, p[EV_MAX];
	int d, e;

	for (d = 0; d < 2; d++) {
		int i = d ? IF_FX0 : in->in;

		f = &cfg.f[i];
		if (!cfg.present[i] ||
		    !(f->dir_mask & (d ? FAB_DIR_OUT : FAB_DIR_IN)))
			continue;
		p[EV_DROP] = f->drop_prob;
		p[EV_ECN] = f->ecn_prob;
		p[EV_CORRUPT] = f->corrupt_prob;
		p[EV_TRIM] = f->trim_prob;
		p[EV_DUP] = f->dup_prob;
		for (e = 0; e < EV_MAX; e++)
			if (p[e] != FAB_PROB_NEVER && p[e] != FAB_PROB_ALWAYS)
				mask |= 1u << (d * EV_MAX + e);
	}
	return mask;
}

/* --- the device under test ----------------------------------------------------- */

struct got {
	int rc;
	uint32_t meta_len, len;
	uint8_t b[FRAME_MAX + 128]; /* metadata, then the frame */
};

static int run(const struct frame *in, struct got *g)
{
	struct xdp_md ctx_in = { .data_end = in->len,
				 .ingress_ifindex = ifidx[in->in] },
		      ctx_out = { 0 };

	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in->b,
		    .data_size_in = in->len, .data_out = g->b,
		    .data_size_out = sizeof(g->b), .ctx_in = &ctx_in,
		    .ctx_size_in = sizeof(ctx_in), .ctx_out = &ctx_out,
		    .ctx_size_out = sizeof(ctx_out));
	if (bpf_prog_test_run_opts(prog_fd, &o))
		return -errno;
	if (ctx_out.data > o.data_size_out)
		return -EPROTO;
	g->rc = (int)o.retval;
	g->meta_len = ctx_out.data;
	g->len = o.data_size_out - ctx_out.data;
	return 0;
}

/* Sum over CPUs of interface i's counters; -errno when it has none. */
static int read_stats(int i, uint64_t *out)
{
	int ncpu = libbpf_num_possible_cpus(), k, c;
	struct fab_stats v[ncpu];

	if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.mrc_fab_stats),
				&ifidx[i], v))
		return -errno;
	for (c = 0; c < FAB_CNT_MAX; c++) {
		out[c] = 0;
		for (k = 0; k < ncpu; k++)
			out[c] += v[k].cnt[c];
	}
	return 0;
}

static const char *const cnt_name[FAB_CNT_MAX] = {
#define X(name, str) [FAB_CNT_##name] = str,
	FAB_COUNTERS(X)
#undef X
};

static const char *const act_name[5] = { "aborted", "drop", "pass", "tx",
					 "redirect" };

static const char *act(int rc)
{
	return rc >= 0 && rc < 5 ? act_name[rc] : "?";
}

/* --- the run ---------------------------------------------------------------------- */

static struct {
	uint64_t frames[C_MAX], verdict[C_MAX][5], random_frames, outcomes;
	uint64_t violations, rerun;
} st;

/* Violations by kind, so that one bug does not hide the others. */
#define KINDS 48
static struct {
	char what[64];
	uint64_t n;
	long batch;
} kinds[KINDS];
static int nkinds;

static uint64_t seed;
static long batch_no;
static int nb = 256, quiet, cfg_shown = -1;
static int told_frames; /* in this batch, that did not do as modelled */

/* The range of counts the model allows, summed over the batch. */
static uint64_t m_lo[NIF][FAB_CNT_MAX], m_hi[NIF][FAB_CNT_MAX];

static void hex(FILE *o, const uint8_t *b, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		fprintf(o, "%02x", b[i]);
	fputc('\n', o);
}

/*
 * Count a violation of kind what; print the first two of each kind (and
 * no more than 30 in all) with the batch's configuration and the frame.
 */
static int violation(const char *kind, const struct frame *f, int k,
		     const char *what)
{
	static int printed;
	int i;

	st.violations++;
	for (i = 0; i < nkinds; i++)
		if (!strcmp(kinds[i].what, kind))
			break;
	if (i == nkinds && nkinds < KINDS) {
		snprintf(kinds[i].what, sizeof(kinds[i].what), "%s", kind);
		kinds[i].batch = batch_no;
		nkinds++;
	}
	if (i < KINDS && ++kinds[i].n > 2)
		return 0;
	if (++printed > 30)
		return 0;
	fprintf(stderr, "VIOLATION seed %llu batch %ld",
		(unsigned long long)seed, batch_no);
	if (f)
		fprintf(stderr, " frame %d (%s, in on %s)", k, cls_name[f->cls],
			if_name[f->in]);
	fprintf(stderr, ": %s\n", what);
	if (cfg_shown != batch_no) {
		fprintf(stderr, "  the batch's faults:\n");
		print_cfg(stderr);
		fprintf(stderr, "  replay: fuzz_fabric -s %llu -b %d -n %ld\n",
			(unsigned long long)seed, nb, (batch_no + 1) * nb);
		cfg_shown = (int)batch_no;
	}
	if (f) {
		fprintf(stderr, "  frame: ");
		hex(stderr, f->b, f->len);
	}
	return 1;
}

/*
 * MATCH when what the program did is outcome o; else how far it agrees
 * (0: not the verdict, 1: the verdict, 2: and the duplicate's request,
 * 3: and the length), and why not.
 */
#define MATCH 4
static int matches(const struct frame *in, const struct outcome *o,
		   const struct got *g, char *why, size_t n, char *kind)
{
	const uint8_t *out = g->b + g->meta_len;
	uint32_t k, len = g->len, magic, egress;
	struct fab_dup_hdr d;

	if (g->rc != o->action) {
		snprintf(why, n, "verdict %s, the model's %s", act(g->rc),
			 act(o->action));
		snprintf(kind, 64, "verdict %s for %s", act(g->rc),
			 act(o->action));
		return 0;
	}
	if (o->action == XDP_DROP)
		return MATCH;
	strcpy(kind, "frame");
	if (g->meta_len) {
		snprintf(why, n, "%u bytes of metadata, the model's none",
			 g->meta_len);
		strcpy(kind, "metadata");
		return 1;
	}
	if (o->dup) {
		if (len < sizeof(d) + 14) {
			snprintf(why, n, "%u bytes, too short for a duplicate",
				 len);
			strcpy(kind, "duplicate's request");
			return 1;
		}
		memcpy(&d, out, sizeof(d));
		memcpy(&magic, d.magic, sizeof(magic));
		memcpy(&egress, d.egress_ifindex, sizeof(egress));
		if (magic != FAB_DUP_MAGIC || egress != ifidx[IF_FX0] ||
		    memcmp(d.eth, out + sizeof(d), sizeof(d.eth))) {
			snprintf(
				why, n,
				"duplicate's magic %#x egress %u%s, the model's %#x %u",
				magic, egress,
				memcmp(d.eth, out + sizeof(d), sizeof(d.eth)) ?
					" Ethernet copy differs" :
					"",
				FAB_DUP_MAGIC, ifidx[IF_FX0]);
			strcpy(kind, "duplicate's request");
			return 1;
		}
		out += sizeof(d);
		len -= sizeof(d);
	}
	if (len != o->len) {
		snprintf(why, n, "length %u, the model's %u", len, o->len);
		strcpy(kind, "frame length");
		return 2;
	}
	for (k = 0; k < o->len; k++) {
		if (o->ip_sum && (k == 24 || k == 25))
			continue;
		if (out[k] != o->b[k]) {
			snprintf(why, n, "byte %u is %02x, the model's %02x", k,
				 out[k], o->b[k]);
			strcpy(kind, k < 12 ? "frame: MACs" :
				     k < 14 ? "frame: ethertype" :
				     k < (in->b[12] == 0x86 ? 54u : 34u) ?
					      "frame: IP header" :
					      "frame: past the IP header");
			return 3;
		}
	}
	if (o->ip_sum && ip_residual(out) != ip_residual(in->b)) {
		snprintf(why, n,
			 "IPv4 header sums to %#06x, the input's to %#06x",
			 ip_residual(out), ip_residual(in->b));
		strcpy(kind, "IPv4 header checksum");
		return 3;
	}
	return MATCH;
}

/* Every outcome the random draws allow for frame in; how many. */
static int outcomes(const struct frame *in, struct outcome *cand)
{
	uint32_t mask = random_bits(in), s = mask;
	int nc = 0;

	for (;;) {
		model(in, s, &cand[nc++]);
		if (!s)
			break;
		s = (s - 1) & mask;
	}
	return nc;
}

static void widen(uint64_t lo[][FAB_CNT_MAX], uint64_t hi[][FAB_CNT_MAX],
		  const struct outcome *o)
{
	int i, c;

	for (i = 0; i < NIF; i++)
		for (c = 0; c < FAB_CNT_MAX; c++) {
			if (o->cnt[i][c] < lo[i][c])
				lo[i][c] = o->cnt[i][c];
			if (o->cnt[i][c] > hi[i][c])
				hi[i][c] = o->cnt[i][c];
		}
}

/*
 * Which outcome (of nc) the program's result matches, or -1 - j with why
 * the closest one, j (the one that agrees the furthest), does not.
 */
static int match(const struct frame *in, const struct outcome *cand, int nc,
		 const struct got *g, char *why, size_t n, char *kind)
{
	char w[160], kd[64];
	int j, best = -1, how, best_how = -1;

	for (j = 0; j < nc; j++) {
		how = matches(in, &cand[j], g, w, sizeof(w), kd);
		if (how == MATCH)
			return j;
		if (how > best_how) {
			best = j;
			best_how = how;
			snprintf(why, n, "%s", w);
			strcpy(kind, kd);
		}
	}
	if (nc > 1) {
		snprintf(w, sizeof(w),
			 " (none of the %d outcomes the draws allow)", nc);
		strncat(why, w, n - strlen(why) - 1);
	}
	return -1 - best;
}

/* One frame: through the model and the program, compared. */
static void one(struct frame *in, int k)
{
	static struct outcome cand[MAX_CAND];
	static struct got g;
	uint64_t lo[NIF][FAB_CNT_MAX], hi[NIF][FAB_CNT_MAX];
	int nc, i, c, j, rc;
	char why[200], kind[64];

	nc = outcomes(in, cand);
	if (nc > 1)
		st.random_frames++;
	st.outcomes += (uint64_t)nc;
	memset(lo, 0xff, sizeof(lo));
	memset(hi, 0, sizeof(hi));
	rc = run(in, &g);
	st.frames[in->cls]++;
	if (rc) {
		snprintf(why, sizeof(why), "the test run failed: %s",
			 strerror(-rc));
		violation("test run failed", in, k, why);
		for (j = 0; j < nc; j++)
			widen(lo, hi, &cand[j]);
		goto sum;
	}
	st.verdict[in->cls][g.rc >= 0 && g.rc < 5 ? g.rc : 0]++;
	j = match(in, cand, nc, &g, why, sizeof(why), kind);
	if (j >= 0) {
		/* Counters: what every matching outcome allows. */
		for (; j < nc; j++)
			if (matches(in, &cand[j], &g, why, sizeof(why), kind) ==
			    MATCH)
				widen(lo, hi, &cand[j]);
		goto sum;
	}
	/* Counters: whatever any outcome allows, not to tell this twice. */
	for (i = 0; i < nc; i++)
		widen(lo, hi, &cand[i]);
	told_frames++;
	j = -1 - j;
	if (violation(kind, in, k, why) && g.rc == cand[j].action &&
	    g.rc != XDP_DROP) {
		if (g.meta_len) {
			fprintf(stderr, "  meta:  ");
			hex(stderr, g.b, g.meta_len);
		}
		fprintf(stderr, "  got:   ");
		hex(stderr, g.b + g.meta_len, g.len);
		fprintf(stderr, "  model: ");
		hex(stderr, cand[j].b, cand[j].len);
	}
sum:
	for (i = 0; i < NIF; i++)
		for (c = 0; c < FAB_CNT_MAX; c++) {
			m_lo[i][c] += lo[i][c];
			m_hi[i][c] += hi[i][c];
		}
}

/*
 * A counter is off: run the batch again frame by frame, each frame's
 * counts against those of the outcomes that match what it did. Writes
  * what the first few that count wrong did to out, and the counters they
 * count wrong to off; returns how many do, and in *told how many frames
 * did not do as the model says at all (and were told of already).
 */
static int rerun(struct frame *batch, int n, char *out, size_t len, int *told,
		 int off[][FAB_CNT_MAX])
{
	static struct outcome cand[MAX_CAND];
	static struct got g;
	uint64_t before[NIF][FAB_CNT_MAX], after[NIF][FAB_CNT_MAX], d;
	int k, i, c, j, nc, wrong = 0, nbad, least, oj, oi, oc;
	size_t at = 0;
	char why[200], kind[64];
	uint32_t b;

	st.rerun++;
	*told = 0;
	out[0] = 0;
	for (k = 0; k < n; k++) {
		nc = outcomes(&batch[k], cand);
		for (i = 0; i < NIF; i++)
			if (has_stats[i] && read_stats(i, before[i]))
				return wrong;
		if (run(&batch[k], &g))
			return wrong;
		for (i = 0; i < NIF; i++)
			if (has_stats[i] && read_stats(i, after[i]))
				return wrong;
		if (match(&batch[k], cand, nc, &g, why, sizeof(why), kind) <
		    0) {
			(*told)++;
			continue;
		}
		/* The matching outcome that counts the fewest wrong. */
		for (j = 0, least = -1, oj = -1; j < nc && least; j++) {
			if (matches(&batch[k], &cand[j], &g, why, sizeof(why),
				    kind) != MATCH)
				continue;
			for (i = 0, nbad = 0; i < NIF; i++)
				for (c = 0; c < FAB_CNT_MAX; c++)
					nbad += has_stats[i] &&
						after[i][c] - before[i][c] !=
							cand[j].cnt[i][c];
			if (least < 0 || nbad < least) {
				least = nbad;
				oj = j;
			}
		}
		if (least <= 0 || oj < 0)
			continue;
		for (i = NIF - 1, oi = oc = 0; i >= 0; i--)
			for (c = FAB_CNT_MAX - 1; c >= 0; c--)
				if (has_stats[i] &&
				    after[i][c] - before[i][c] !=
					    cand[oj].cnt[i][c]) {
					off[i][c] = 1;
					oi = i; /* the first, in the end */
					oc = c;
				}
		if (wrong++ >= 3 || at + 200 >= len)
			continue;
		d = after[oi][oc] - before[oi][oc];
		at += (size_t)snprintf(
			out + at, len - at,
			"  frame %d (%s, in on %s, verdict %s) counts %s on %s +%llu, the model +%llu\n  frame: ",
			k, cls_name[batch[k].cls], if_name[batch[k].in],
			act(g.rc), cnt_name[oc], if_name[oi],
			(unsigned long long)d,
			(unsigned long long)cand[oj].cnt[oi][oc]);
		for (b = 0; b < batch[k].len && at + 4 < len; b++)
			at += (size_t)snprintf(out + at, len - at, "%02x",
					       batch[k].b[b]);
		at += (size_t)snprintf(out + at, len - at, "\n");
	}
	return wrong;
}

/*
 * After a batch: every counter against the model's sums. A difference the
 * frames told of already (a wrong verdict counts wrong too) is not told
 * again.
 */
static void check_batch(struct frame *batch, int n)
{
	static char frames[4 * (2 * FRAME_MAX + 300)];
	uint64_t got[NIF][FAB_CNT_MAX];
	int i, c, bad = 0, wrong = 0, told = 0, shown = 0;
	int off[NIF][FAB_CNT_MAX];
	char kind[64], why[200];

	for (i = 0; i < NIF; i++) {
		if (!has_stats[i]) {
			if (!read_stats(i, got[i]))
				violation(
					"counters created", NULL, 0,
					"counters for an interface without them (fx1)");
			continue;
		}
		if (read_stats(i, got[i])) {
			violation("counters gone", NULL, 0,
				  "the counters of an interface are gone");
			continue;
		}
		for (c = 0; c < FAB_CNT_MAX; c++)
			if (got[i][c] < m_lo[i][c] || got[i][c] > m_hi[i][c])
				bad = 1;
	}
	memset(off, 0, sizeof(off));
	if (bad)
		wrong = rerun(batch, n, frames, sizeof(frames), &told, off);
	/*
	 * Under random draws a frame told of may do as modelled when run
	 * again: what the frames told of did is not known, then.
	 */
	told += told_frames;
	told_frames = 0;
	for (i = 0; i < NIF && bad && (wrong || !told); i++) {
		for (c = 0; has_stats[i] && c < FAB_CNT_MAX; c++) {
			if (got[i][c] >= m_lo[i][c] && got[i][c] <= m_hi[i][c])
				continue;
			if (wrong && !off[i][c])
				continue; /* the frames told of account for it */
			snprintf(kind, sizeof(kind), "counter %s on %s",
				 cnt_name[c], if_name[i]);
			if (m_lo[i][c] == m_hi[i][c])
				snprintf(why, sizeof(why),
					 "%s on %s counts %llu, the model %llu",
					 cnt_name[c], if_name[i],
					 (unsigned long long)got[i][c],
					 (unsigned long long)m_lo[i][c]);
			else
				snprintf(
					why, sizeof(why),
					"%s on %s counts %llu, the model %llu..%llu",
					cnt_name[c], if_name[i],
					(unsigned long long)got[i][c],
					(unsigned long long)m_lo[i][c],
					(unsigned long long)m_hi[i][c]);
			shown |= violation(kind, NULL, 0, why);
		}
	}
	if (shown && wrong)
		fprintf(stderr, "%s%s", frames,
			wrong > 3 ? "  (and more frames)\n" : "");
	else if (shown)
		fprintf(stderr,
			"  (run again frame by frame, each frame counts as the model says)\n");
	/* From what the maps say now, so that one error is told once. */
	for (i = 0; i < NIF; i++)
		if (has_stats[i] && !read_stats(i, got[i]))
			for (c = 0; c < FAB_CNT_MAX; c++)
				m_lo[i][c] = m_hi[i][c] = got[i][c];
}

/* --- the node: a network namespace of our own ---------------------------------- */

static int sh(const char *cmd)
{
	char line[300];

	snprintf(line, sizeof(line), "%s >/dev/null 2>&1", cmd);
	return system(line);
}

/* 0, or 77 with the reason when the environment lacks something. */
static int setup(void)
{
	static const char *const cmds[] = {
		"ip link set lo up",
		"ip link add fx0 address 02:00:00:00:00:0a mtu 1500 type veth peer name fx1",
		"ip link set fx1 up",
		"ip link set fx0 up",
		"ip addr add 198.18.200.1/24 dev fx0",
		"ip -6 addr add fd00:99::1/64 dev fx0 nodad",
		"ip neigh add 198.18.200.2 lladdr 02:00:00:00:00:0b dev fx0 nud permanent",
		"ip -6 neigh add fd00:99::2 lladdr 02:00:00:00:00:0b dev fx0 nud permanent",
		"sysctl -qw net.ipv4.conf.all.forwarding=1",
		"sysctl -qw net.ipv6.conf.all.forwarding=1",
	};
	int ncpu = libbpf_num_possible_cpus(), fd, err;
	struct fab_stats zero[ncpu > 0 ? ncpu : 1];
	struct frame probe = { .len = 60 };
	struct got g;
	unsigned int i;

	if (unshare(CLONE_NEWNET)) {
		printf("SKIP: fuzz_fabric: no network namespace of its own: %s\n",
		       strerror(errno));
		return 77;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (sh(cmds[i])) {
			printf("SKIP: fuzz_fabric: setting up the node failed: %s\n",
			       cmds[i]);
			return 77;
		}
	ifidx[IF_FX0] = if_nametoindex("fx0");
	ifidx[IF_FX1] = if_nametoindex("fx1");
	if (!ifidx[IF_FX0] || !ifidx[IF_FX1]) {
		printf("SKIP: fuzz_fabric: no fx0/fx1\n");
		return 77;
	}
	skel = mrc_fab__open_and_load();
	if (!skel) {
		if (errno == EPERM || errno == ENOSYS || errno == EOPNOTSUPP) {
			printf("SKIP: fuzz_fabric: no BPF: %s\n",
			       strerror(errno));
			return 77;
		}
		fprintf(stderr, "fuzz_fabric: loading the fabric program: %s\n",
			strerror(errno));
		return 1;
	}
	prog_fd = bpf_program__fd(skel->progs.mrc_fab_xdp);
	/* An ARP frame: is there a test run for XDP at all? */
	put16(probe.b + 12, 0x0806);
	err = run(&probe, &g);
	if (err) {
		printf("SKIP: fuzz_fabric: no BPF_PROG_TEST_RUN for XDP: %s\n",
		       strerror(-err));
		return 77;
	}
	/* Zeroed counters, as fabricctl makes for the interfaces it serves. */
	memset(zero, 0, sizeof(zero));
	fd = bpf_map__fd(skel->maps.mrc_fab_stats);
	if (bpf_map_update_elem(fd, &ifidx[IF_LO], zero, BPF_ANY) ||
	    bpf_map_update_elem(fd, &ifidx[IF_FX0], zero, BPF_ANY)) {
		fprintf(stderr, "fuzz_fabric: counters: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

static void report(double secs, double cpu)
{
	uint64_t total = 0, got[FAB_CNT_MAX];
	int c, a, i, n;

	for (c = 0; c < C_MAX; c++)
		total += st.frames[c];
	printf("fuzz_fabric: %llu frames in %.1f s (%.0f frames/s, %.1f s CPU), seed %llu, batch %d\n",
	       (unsigned long long)total, secs, (double)total / secs, cpu,
	       (unsigned long long)seed, nb);
	for (c = 0; c < C_MAX; c++) {
		printf("  %-8s %10llu:", cls_name[c],
		       (unsigned long long)st.frames[c]);
		for (a = 1; a < 5; a++)
			if (a != XDP_TX || st.verdict[c][a])
				printf(" %s %llu", act_name[a],
				       (unsigned long long)st.verdict[c][a]);
		printf("\n");
	}
	printf("  %llu frames under random draws, %llu outcomes modelled\n",
	       (unsigned long long)st.random_frames,
	       (unsigned long long)st.outcomes);
	if (!quiet) {
		for (i = 0; i < NIF; i++) {
			if (!has_stats[i] || read_stats(i, got))
				continue;
			printf("  %s:", if_name[i]);
			for (c = 0, n = 0; c < FAB_CNT_MAX; c++) {
				if (!got[c] || c == FAB_CNT_RX_BYTES ||
				    c == FAB_CNT_TX_BYTES)
					continue;
				printf("%s%s %llu", n++ % 5 ? ", " : "\n    ",
				       cnt_name[c], (unsigned long long)got[c]);
			}
			printf("\n");
		}
		if (st.rerun)
			printf("  (counters include %llu batches run again)\n",
			       (unsigned long long)st.rerun);
	}
	printf("  violations: %llu\n", (unsigned long long)st.violations);
	for (i = 0; i < nkinds; i++)
		printf("    %-40s %8llu, first in batch %ld\n", kinds[i].what,
		       (unsigned long long)kinds[i].n, kinds[i].batch);
}

int main(int argc, char **argv)
{
	static struct frame batch[4096];
	long frames = 1000000, done = 0;
	struct rusage ru;
	int opt, k, rc;
	double t0;

	seed = (uint64_t)time(NULL);
	while ((opt = getopt(argc, argv, "n:s:b:q")) != -1) {
		switch (opt) {
		case 'n':
			frames = strtol(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'b':
			nb = atoi(optarg);
			break;
		case 'q':
			quiet = 1;
			break;
		default:
			fprintf(stderr,
				"usage: fuzz_fabric [-n FRAMES] [-s SEED] [-b BATCH] [-q]\n");
			return 2;
		}
	}
	if (frames < 1 || nb < 1 || nb > 4096) {
		fprintf(stderr, "fuzz_fabric: -n must be >= 1, -b 1..4096\n");
		return 2;
	}
	if (geteuid() != 0) {
		printf("SKIP: fuzz_fabric needs root (BPF, a network namespace)\n");
		return 77;
	}
	rc = setup();
	if (rc)
		return rc;
	rng_state = seed * 0x9e3779b97f4a7c15ull | 1;
	t0 = now_s();
	while (done < frames) {
		int n = frames - done < nb ? (int)(frames - done) : nb;

		pick_cfg();
		rc = write_cfg();
		if (rc) {
			fprintf(stderr, "fuzz_fabric: writing the faults: %s\n",
				strerror(-rc));
			return 1;
		}
		for (k = 0; k < n; k++) {
			unsigned int r = below(100);
			int cls = r < 35 ? C_VALID :
				  r < 65 ? C_HOSTILE :
				  r < 90 ? C_MUTATED :
					   C_RANDOM;

			make_frame(&batch[k], cls);
			one(&batch[k], k);
		}
		check_batch(batch, n);
		done += n;
		batch_no++;
	}
	getrusage(RUSAGE_SELF, &ru);
	report(now_s() - t0,
	       (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	mrc_fab__destroy(skel);
	return st.violations ? 1 : 0;
}
