// SPDX-License-Identifier: GPL-2.0
/*
 * The test fabric's router data path: forward IPv4/IPv6 with bpf_fib_lookup
 * (which honours ECMP and the L4 multipath hash) and bpf_redirect_map, and
 * inject faults per interface on the way in and on the way out: random drop,
 * drop by UDP source port, blackhole, one corrupted byte, duplication, trim
 * (with lengths and checksums fixed and a DSCP mark) and ECN CE marking.
 * Everything it does is counted per interface in mrc_fab_stats.
 *
 * Loaded with fab_srv6_block set, it is an SRv6 uSID router instead
 * (fabric_abi.h, docs/testbed.md): it forwards only by its own static uSID
 * table, with the same faults on the way in and out.
 *
 * Whatever it cannot handle (ARP, ND, ICMP errors, TTL expiry, no neighbour)
 * it passes to the kernel, which forwards it the slow way; in SRv6 mode
 * only ARP, ND and link-local traffic, the rest is dropped and counted.
 *
 * This is test equipment: it lives in tests/ and never ships.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <linux/udp.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "../../bpf/lib/csum.h"
#include "fabric_abi.h"
#include "queue.h"

#ifndef AF_INET
#define AF_INET 2
#endif
#ifndef AF_INET6
#define AF_INET6 10
#endif

#define IPV6_FLOWINFO_MASK bpf_htonl(0x0fffffff)
#define CONTINUE -1
#ifndef IPPROTO_ROUTING
#define IPPROTO_ROUTING 43
#endif

/*
 * The uSID block this node routes (network order), or 0: ECMP mode. Set
 * before load (fabricctl attach --srv6), so in ECMP mode the verifier
 * removes the SRv6 code: ECMP mode runs what it always did (and clears
 * struct pkt's three new fields).
 */
const volatile __u32 fab_srv6_block = 0;

/* Fault configuration per interface; written by fabricctl. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FAB_MAX_IFACES);
	__type(key, __u32);
	__type(value, struct fab_fault);
} mrc_fab_fault SEC(".maps");

/* UDP source ports dropped per interface (FAB_F_SPORT_DROP); fabricctl. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, struct fab_sport_key);
	__type(value, __u8);
} mrc_fab_sport SEC(".maps");

/* Counters per interface; written here, read by fabricctl. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, FAB_MAX_IFACES);
	__type(key, __u32);
	__type(value, struct fab_stats);
} mrc_fab_stats SEC(".maps");

/* Interfaces this node forwards to, by ifindex; filled by fabricctl. */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP_HASH);
	__uint(max_entries, FAB_MAX_IFACES);
	__type(key, __u32);
	__type(value, __u32);
} mrc_fab_tx SEC(".maps");

/* SRv6 mode: this node's uSID table, block+uSID -> me / adjacency; fabricctl. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FAB_MAX_SIDS);
	__type(key, struct fab_sid_key);
	__type(value, struct fab_sid);
} mrc_fab_sid SEC(".maps");

/* Congestion points per interface (testbed shape); fabricctl writes cfg. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FAB_MAX_IFACES);
	__type(key, __u32);
	__type(value, struct fab_queue);
} mrc_fab_queue SEC(".maps");

/* What each source queued at each congestion point; fabricctl reads. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FAB_QSRC_MAX);
	__type(key, struct fab_qsrc_key);
	__type(value, struct fab_qsrc);
} mrc_fab_qsrc SEC(".maps");

struct pkt {
	struct ethhdr *eth;
	struct iphdr *ip4; /* exactly one of ip4 and ip6 is set */
	struct ipv6hdr *ip6;
	/* SRv6 mode only: the SRH after ip6, an IPv6 header inside. */
	struct fab_srh *srh;
	struct ipv6hdr *in6;
	__u8 srh_cut; /* an SRH is announced but not all there */
	struct udphdr *udp; /* set for UDP only */
	__u16 sport; /* network byte order, TCP or UDP; 0 otherwise */
	__u16 dport;
	__u8 l4proto;
};

/*
 * fabricctl creates the counters of every interface it attaches to, so
 * the per-packet path only looks them up.
 */
static __always_inline struct fab_stats *stats_of(__u32 ifindex)
{
	return bpf_map_lookup_elem(&mrc_fab_stats, &ifindex);
}

static __always_inline void count(struct fab_stats *st, enum fab_counter c,
				  __u64 n)
{
	if (st && c < FAB_CNT_MAX)
		st->cnt[c] += n;
}

static __always_inline int chance(__u32 prob)
{
	if (prob == FAB_PROB_NEVER)
		return 0;
	if (prob == FAB_PROB_ALWAYS)
		return 1;
	return bpf_get_prandom_u32() < prob;
}

/*
 * Returns 0 and fills p for unicast IPv4/IPv6, 1 for other ethertypes, 2
 * for multicast or broadcast, -1 for a header cut short. data and end
 * bound the frame (an XDP frame's, or an skb's linear part).
 */
static __always_inline int parse_at(void *data, void *end, struct pkt *p)
{
	struct ethhdr *eth = data;
	void *l4;

	__builtin_memset(p, 0, sizeof(*p));
	if ((void *)(eth + 1) > end)
		return -1;
	p->eth = eth;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip4 = (void *)(eth + 1);

		if ((void *)(ip4 + 1) > end || ip4->ihl < 5 ||
		    ip4->version != 4)
			return -1;
		p->ip4 = ip4;
		p->l4proto = ip4->protocol;
		/* Multicast and broadcast stay on the link: not ours to route. */
		if ((ip4->daddr & bpf_htonl(0xf0000000)) ==
			    bpf_htonl(0xe0000000) ||
		    ip4->daddr == 0xffffffff)
			return 2;
		/* Fragments carry no ports: hash and fault on L3 only. */
		if (ip4->frag_off & bpf_htons(0x3fff))
			return 0;
		l4 = (void *)ip4 + ip4->ihl * 4;
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);

		if ((void *)(ip6 + 1) > end || ip6->version != 6)
			return -1;
		p->ip6 = ip6;
		p->l4proto = ip6->nexthdr;
		if (ip6->daddr.s6_addr[0] == 0xff)
			return 2;
		l4 = ip6 + 1;
		/*
		 * SRv6 mode: see through the SRH and an IPv6 header inside,
		 * so faults find the UDP an encapsulated packet carries. A
		 * cut SRH is for the SRv6 code to drop, not "malformed".
		 */
		if (fab_srv6_block && p->l4proto == IPPROTO_ROUTING) {
			struct fab_srh *srh = l4;

			if ((void *)(srh + 1) > end) {
				p->srh_cut = 1;
				return 0;
			}
			l4 = (void *)srh + (((__u32)srh->hdrlen + 1) << 3);
			if (l4 > end) {
				p->srh_cut = 1;
				return 0;
			}
			p->srh = srh;
			p->l4proto = srh->nexthdr;
		}
		if (fab_srv6_block && p->l4proto == IPPROTO_IPV6) {
			struct ipv6hdr *in6 = l4;

			if ((void *)(in6 + 1) > end || in6->version != 6)
				return -1;
			p->in6 = in6;
			p->l4proto = in6->nexthdr;
			l4 = in6 + 1;
		}
	} else {
		return 1;
	}
	if (p->l4proto == IPPROTO_UDP || p->l4proto == IPPROTO_TCP) {
		__u16 *ports = l4;

		if ((void *)(ports + 2) > end)
			return -1;
		p->sport = ports[0];
		p->dport = ports[1];
	}
	if (p->l4proto == IPPROTO_UDP) {
		struct udphdr *udp = l4;

		if ((void *)(udp + 1) > end)
			return -1;
		p->udp = udp;
	}
	return 0;
}

static __always_inline int parse(struct xdp_md *ctx, struct pkt *p)
{
	return parse_at((void *)(long)ctx->data, (void *)(long)ctx->data_end,
			p);
}

/* UDP payload length from the UDP header, bounded by the frame's end. */
static __always_inline __u32 udp_payload_len(void *end, struct pkt *p)
{
	void *payload = p->udp + 1;
	__u64 len = bpf_ntohs(p->udp->len);
	__u64 avail = end - payload; /* 64-bit: no 32-bit pointer arithmetic */

	if (len < sizeof(struct udphdr))
		return 0;
	len -= sizeof(struct udphdr);
	return len < avail ? len : avail;
}

/*
 * Set the DSCP and/or ECN bits of the traffic class. dscp < 0 keeps the
 * DSCP; ecn < 0 keeps the ECN field.
 */
static __always_inline void set_tclass(struct pkt *p, int dscp, int ecn)
{
	if (p->ip4) {
		__u16 *word = (__u16 *)p->ip4; /* version/ihl, tos */
		__u16 old = *word;
		__u8 tos = p->ip4->tos;

		if (dscp >= 0)
			tos = (tos & 0x03) | (dscp << 2);
		if (ecn >= 0)
			tos = (tos & 0xfc) | ecn;
		p->ip4->tos = tos;
		csum_replace2(&p->ip4->check, old, *word);
	} else if (p->ip6) {
		__u8 *b = (__u8 *)p->ip6;
		__u8 tc = (b[0] << 4) | (b[1] >> 4);

		if (dscp >= 0)
			tc = (tc & 0x03) | (dscp << 2);
		if (ecn >= 0)
			tc = (tc & 0xfc) | ecn;
		b[0] = (b[0] & 0xf0) | (tc >> 4);
		b[1] = (b[1] & 0x0f) | (tc << 4);
	}
}

static __always_inline __u8 get_ecn(struct pkt *p)
{
	if (p->ip4)
		return p->ip4->tos & 0x03;
	if (p->ip6)
		return (((__u8 *)p->ip6)[1] >> 4) & 0x03;
	return 0;
}

/*
 * Recompute the UDP checksum of a trimmed packet over the pseudo-header,
 * the UDP header and at most FAB_TRIM_KEEP_MAX payload bytes.
 */
static __always_inline void udp_csum_full(void *end, struct pkt *p)
{
	__u16 *w = (__u16 *)p->udp;
	__u32 sum = 0;
	int i;

	if (p->ip4) {
		/* RFC 768: a zero checksum means "none"; keep it that way. */
		if (!p->udp->check)
			return;
		sum += p->ip4->saddr & 0xffff;
		sum += p->ip4->saddr >> 16;
		sum += p->ip4->daddr & 0xffff;
		sum += p->ip4->daddr >> 16;
	} else if (p->ip6) {
		/* The header the UDP is in: an encapsulated one's own. */
		__u16 *a = (__u16 *)&(p->in6 ? p->in6 : p->ip6)->saddr;

		for (i = 0; i < 16; i++)
			sum += a[i]; /* saddr and daddr are adjacent */
	}
	sum += bpf_htons(IPPROTO_UDP);
	sum += p->udp->len;
	p->udp->check = 0;
	for (i = 0; i < (int)(sizeof(struct udphdr) + FAB_TRIM_KEEP_MAX) / 2;
	     i++) {
		if ((void *)(w + 1) > end)
			break;
		sum += *w++;
	}
	if ((void *)w + 1 <= end) {
		__u8 *last = (__u8 *)w;

		if ((void *)(last + 1) <= end)
			sum += bpf_htons(*last << 8);
	}
	p->udp->check = csum_fold32(sum) ?: 0xffff;
}

/*
 * The headers of a packet just cut to keep UDP payload bytes: UDP and IP
 * lengths, the IPv4 header checksum, the trim DSCP.
 */
static __always_inline void trimmed_lengths(struct pkt *p, __u32 keep,
					    __u8 dscp)
{
	__u16 old, len = sizeof(struct udphdr) + keep;

	p->udp->len = bpf_htons(len);
	if (p->ip4) {
		old = p->ip4->tot_len;
		p->ip4->tot_len =
			bpf_htons((void *)p->udp - (void *)p->ip4 + len);
		csum_replace2(&p->ip4->check, old, p->ip4->tot_len);
	} else if (p->ip6) {
		/* SRH and inner header, if any, sit between ip6 and UDP. */
		__u32 before = 0;

		if (p->in6) {
			p->in6->payload_len = bpf_htons(len);
			before += sizeof(struct ipv6hdr);
		}
		if (p->srh)
			before += ((__u32)p->srh->hdrlen + 1) << 3;
		p->ip6->payload_len = bpf_htons(before + len);
	}
	set_tclass(p, dscp, -1);
}

/*
 * Cut the UDP payload to trim_keep_bytes, fix lengths and checksums and
 * write the trim DSCP, as a trimming switch does. Returns 0 when trimmed,
 * 1 when the payload was already short enough, -1 when the packet is lost.
 */
static __always_inline int trim(struct xdp_md *ctx, struct pkt *p,
				const struct fab_fault *f)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u32 keep = f->trim_keep_bytes;
	__u64 new_len, old_len;

	if (keep > FAB_TRIM_KEEP_MAX)
		keep = FAB_TRIM_KEEP_MAX;
	if (udp_payload_len(end, p) <= keep)
		return 1;
	new_len = (void *)(p->udp + 1) - data + keep;
	old_len = end - data;
	if (bpf_xdp_adjust_tail(ctx, (int)(new_len - old_len)))
		return -1;
	if (parse(ctx, p) || !p->udp)
		return -1; /* cannot happen: the headers were there before */
	trimmed_lengths(p, keep, f->trim_dscp);
	udp_csum_full((void *)(long)ctx->data_end, p);
	return 0;
}

/* Flip one byte of the UDP payload: 1, or 0 when it has none. */
static __always_inline int corrupt(struct xdp_md *ctx, struct pkt *p,
				   const struct fab_fault *f)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u64 plen = udp_payload_len(end, p), off = f->corrupt_offset_bytes;
	__u8 byte;

	if (!plen)
		return 0;
	if (off >= plen)
		off = plen - 1;
	/* Through the helpers: the verifier need not follow a variable offset. */
	off += (void *)(p->udp + 1) - data;
	if (bpf_xdp_load_bytes(ctx, off, &byte, 1))
		return 0;
	byte ^= 0xff;
	return !bpf_xdp_store_bytes(ctx, off, &byte, 1);
}

/*
 * Apply the faults configured on ifindex for direction dir. Returns
 * XDP_DROP, or CONTINUE; sets *dup when the packet is to be duplicated.
 */
static __always_inline int apply_faults(struct xdp_md *ctx, struct pkt *p,
					__u32 ifindex, __u32 dir, int *dup)
{
	struct fab_fault *f = bpf_map_lookup_elem(&mrc_fab_fault, &ifindex);
	struct fab_stats *st;

	if (!f || !(f->dir_mask & dir))
		return CONTINUE;
	st = stats_of(ifindex);
	if (f->flags & FAB_F_BLACKHOLE) {
		count(st, FAB_CNT_DROP_BLACKHOLE, 1);
		return XDP_DROP;
	}
	if ((f->flags & FAB_F_SPORT_DROP) && p->udp) {
		struct fab_sport_key k = { .ifindex = ifindex,
					   .sport = bpf_ntohs(p->sport) };

		if (bpf_map_lookup_elem(&mrc_fab_sport, &k)) {
			count(st, FAB_CNT_DROP_SPORT, 1);
			return XDP_DROP;
		}
	}
	if (chance(f->drop_prob)) {
		count(st, FAB_CNT_DROP_RANDOM, 1);
		return XDP_DROP;
	}
	if (chance(f->ecn_prob)) {
		if (get_ecn(p)) {
			set_tclass(p, -1, 3);
			count(st, FAB_CNT_ECN_MARKED, 1);
		} else {
			count(st, FAB_CNT_ECN_NOT_ECT, 1);
		}
	}
	if (p->udp && chance(f->corrupt_prob) && corrupt(ctx, p, f))
		count(st, FAB_CNT_CORRUPTED, 1);
	if (p->udp && chance(f->trim_prob)) {
		int rc = trim(ctx, p, f);

		if (rc < 0) {
			count(st, FAB_CNT_DROP_TRIM_FAILED, 1);
			return XDP_DROP;
		}
		if (rc == 0)
			count(st, FAB_CNT_TRIMMED, 1);
	}
	if (chance(f->dup_prob))
		*dup = 1;
	return CONTINUE;
}

static __always_inline int fib_lookup(struct xdp_md *ctx, struct pkt *p,
				      struct bpf_fib_lookup *fib)
{
	__builtin_memset(fib, 0, sizeof(*fib));
	fib->ifindex = ctx->ingress_ifindex;
	fib->l4_protocol = p->l4proto;
	fib->sport = p->sport;
	fib->dport = p->dport;
	if (p->ip4) {
		fib->family = AF_INET;
		fib->tos = p->ip4->tos;
		fib->tot_len = bpf_ntohs(p->ip4->tot_len);
		fib->ipv4_src = p->ip4->saddr;
		fib->ipv4_dst = p->ip4->daddr;
	} else if (p->ip6) {
		struct in6_addr *src = (struct in6_addr *)fib->ipv6_src;
		struct in6_addr *dst = (struct in6_addr *)fib->ipv6_dst;
		__u32 l3;

		fib->family = AF_INET6;
		fib->flowinfo = *(__be32 *)p->ip6 & IPV6_FLOWINFO_MASK;
		/* L3 length, as for IPv4: the fixed header counts (and the
		 * 16-bit field holds no more than 65535). */
		l3 = bpf_ntohs(p->ip6->payload_len) + sizeof(struct ipv6hdr);
		fib->tot_len = l3 > 0xffff ? 0xffff : l3;
		*src = p->ip6->saddr;
		*dst = p->ip6->daddr;
	}
	return bpf_fib_lookup(ctx, fib, sizeof(*fib), 0);
}

static __always_inline void decrement_ttl(struct pkt *p)
{
	if (p->ip4) {
		__u16 *word = (__u16 *)&p->ip4->ttl; /* ttl, protocol */
		__u16 old = *word;

		p->ip4->ttl--;
		csum_replace2(&p->ip4->check, old, *word);
	} else if (p->ip6) {
		p->ip6->hop_limit--;
	}
}

/* The uSID after the block of an address, as on the wire. */
static __always_inline __be16 active_usid(const struct in6_addr *a)
{
	return a->in6_u.u6_addr16[2];
}

/*
 * The SRH's own checks (RFC 8754 4.3.1 and ours): routing type 4, a
 * segment list that fits the header, segments_left within it. Returns 0
 * or the drop counter.
 */
static __always_inline int srh_check(struct pkt *p)
{
	struct fab_srh *srh = p->srh;

	if (p->srh_cut)
		return FAB_CNT_DROP_SRV6_SRH_TRUNC;
	if (!srh)
		return 0;
	if (srh->type != FAB_SRH_TYPE)
		return FAB_CNT_DROP_SRV6_SRH_BAD;
	if (((__u32)srh->last_entry + 1) * 16 > (__u32)srh->hdrlen * 8)
		return FAB_CNT_DROP_SRV6_SRH_BAD;
	if (srh->segments_left > srh->last_entry)
		return FAB_CNT_DROP_SRV6_SL;
	return 0;
}

/*
 * One node's uSID processing of a checked packet (srv6_xdp): find where
 * it goes next. Returns the table entry to send it by (a NEXT entry, or
 * the ME entry whose host port it is delivered to; *deliver set), or
 * NULL with *why the drop counter.
 */
static __always_inline struct fab_sid *
srv6_next(struct xdp_md *ctx, struct pkt *p, int *deliver, int *why)
{
	struct in6_addr *da = &p->ip6->daddr;
	void *end = (void *)(long)ctx->data_end;
	struct fab_sid_key k = { .block = fab_srv6_block };
	struct fab_stats *st = stats_of(ctx->ingress_ifindex);
	struct fab_sid *v;
	int i, j;

	/*
	 * At most two lookups: this node's own uSID, then the one after it.
	 * Naming this node twice in a row is a loop (it would process the
	 * packet again and again), dropped as such.
	 */
	for (i = 0; i < 2; i++) {
		k.usid = active_usid(da);
		v = k.usid ? bpf_map_lookup_elem(&mrc_fab_sid, &k) : NULL;
		if (!v) {
			*why = FAB_CNT_DROP_SRV6_UNKNOWN;
			return NULL;
		}
		__sync_fetch_and_add(&v->packets, 1);
		if (v->kind == FAB_SID_NEXT)
			return v;
		if (v->kind != FAB_SID_ME || i) {
			*why = v->kind == FAB_SID_ME ?
				       FAB_CNT_DROP_SRV6_LOOP :
				       FAB_CNT_DROP_SRV6_UNKNOWN;
			return NULL;
		}
		/* Shift and forward: the uSIDs after this one move up. */
		for (j = 2; j < 7; j++)
			da->in6_u.u6_addr16[j] = da->in6_u.u6_addr16[j + 1];
		da->in6_u.u6_addr16[7] = 0;
		count(st, FAB_CNT_SRV6_SHIFTED, 1);
		if (active_usid(da))
			continue;
		/* End of carrier: the next container, or the end. */
		if (p->srh && p->srh->segments_left) {
			struct fab_srh *srh = p->srh;
			struct in6_addr *seg;
			__u32 sl = srh->segments_left - 1;

			seg = (void *)(srh + 1) + (sl & 0xff) * 16;
			if ((void *)(seg + 1) > end) {
				*why = FAB_CNT_DROP_SRV6_SRH_TRUNC;
				return NULL;
			}
			srh->segments_left = sl;
			*da = *seg;
			count(st, FAB_CNT_SRV6_NEXT_SEG, 1);
			if (da->in6_u.u6_addr32[0] != fab_srv6_block) {
				*why = FAB_CNT_DROP_SRV6_NOT_SID;
				return NULL;
			}
			continue;
		}
		if (!v->ifindex) {
			*why = FAB_CNT_DROP_SRV6_END;
			return NULL;
		}
		*deliver = 1;
		return v;
	}
	*why = FAB_CNT_DROP_SRV6_UNKNOWN; /* not reached */
	return NULL;
}

/*
 * Is the link to the entry's neighbour usable? The kernel's FIB, asked
 * from the egress side for the neighbour's address, still routes it out
 * of that interface: with the link down (admin or carrier, the routers
 * ignore routes with linkdown) it does not. An entry without an address
 * is not checked.
 */
static __always_inline int link_up(struct xdp_md *ctx, const struct fab_sid *v)
{
	struct bpf_fib_lookup fib;
	int rc;

	if (!v->nh6[0])
		return 1;
	__builtin_memset(&fib, 0, sizeof(fib));
	fib.family = AF_INET6;
	fib.ifindex = v->ifindex;
	__builtin_memcpy(fib.ipv6_dst, v->nh6, 16);
	rc = bpf_fib_lookup(ctx, &fib, sizeof(fib),
			    BPF_FIB_LOOKUP_OUTPUT | BPF_FIB_LOOKUP_SKIP_NEIGH);
	return rc == BPF_FIB_LKUP_RET_SUCCESS && fib.ifindex == v->ifindex;
}

/*
 * The rest of mrc_fab_xdp in SRv6 mode, after the faults of the arrival
 * interface: check, process the uSIDs, the departure interface's faults,
 * hop limit and MACs, redirect. Everything not forwarded is dropped and
 * counted by reason, but link-local traffic (to the kernel: ND).
 */
/*
 * The last step of forwarding: count what leaves out_if, and send it
 * (twice when the dup fault asked: XDP cannot clone a frame, so the frame
 * goes to the stack behind a struct fab_dup_hdr naming out_if, and
 * mrc_fab_tc_dup, on this interface's tc ingress, sends it out twice).
 * miss: the verdict when out_if is not in mrc_fab_tx.
 */
static __always_inline int transmit(struct xdp_md *ctx,
				    struct fab_stats *out_st, __u32 out_if,
				    int dup, int miss)
{
	__u64 len = (void *)(long)ctx->data_end - (void *)(long)ctx->data;
	__u64 copies = dup ? 2 : 1;
	__u32 magic = FAB_DUP_MAGIC;
	struct fab_dup_hdr *h;

	count(out_st, FAB_CNT_TX_PACKETS, copies);
	count(out_st, FAB_CNT_TX_BYTES, len * copies);
	if (!dup)
		return bpf_redirect_map(&mrc_fab_tx, out_if, miss);
	count(out_st, FAB_CNT_DUPLICATED, 1);
	if (bpf_xdp_adjust_head(ctx, -(int)sizeof(*h)))
		return XDP_PASS;
	h = (void *)(long)ctx->data;
	if ((void *)(h + 1) + ETH_HLEN > (void *)(long)ctx->data_end)
		return XDP_DROP; /* cannot happen: the frame was parsed */
	__builtin_memcpy(h->eth, h + 1, ETH_HLEN);
	__builtin_memcpy(h->magic, &magic, sizeof(magic));
	__builtin_memcpy(h->egress_ifindex, &out_if, sizeof(out_if));
	return XDP_PASS;
}

static __always_inline int srv6_xdp(struct xdp_md *ctx, struct pkt *p,
				    struct fab_stats *in_st, int dup)
{
	__u32 in_if = ctx->ingress_ifindex, out_if;
	struct fab_stats *out_st;
	struct fab_sid *v;
	int why = 0, deliver = 0;

	if (!p->ip6 || p->ip6->daddr.in6_u.u6_addr32[0] != fab_srv6_block) {
		if (p->ip6 && (p->ip6->daddr.in6_u.u6_addr16[0] &
			       bpf_htons(0xffc0)) == bpf_htons(0xfe80)) {
			count(in_st, FAB_CNT_PASS_LOCAL, 1);
			return XDP_PASS;
		}
		count(in_st, FAB_CNT_DROP_SRV6_NOT_SID, 1);
		return XDP_DROP;
	}
	why = srh_check(p);
	if (!why && p->ip6->hop_limit <= 1)
		why = FAB_CNT_DROP_SRV6_HLIM;
	if (!why) {
		v = srv6_next(ctx, p, &deliver, &why);
		if (v && v->ifindex == in_if)
			why = FAB_CNT_DROP_SRV6_LOOP; /* back where it came from */
		else if (v && !link_up(ctx, v))
			why = FAB_CNT_DROP_SRV6_LINK_DOWN;
	}
	if (why) {
		count(in_st, why, 1);
		return XDP_DROP;
	}
	if (!v)
		return XDP_DROP; /* cannot happen: why is set */
	out_if = v->ifindex;
	out_st = stats_of(out_if);
	if (apply_faults(ctx, p, out_if, FAB_DIR_OUT, &dup) == XDP_DROP)
		return XDP_DROP;
	/* Faults may have moved the packet (trim): the headers again. */
	if (parse(ctx, p) || !p->ip6)
		return XDP_DROP; /* cannot happen: it was parsed before */
	p->ip6->hop_limit--;
	__builtin_memcpy(p->eth->h_dest, v->dmac, ETH_ALEN);
	__builtin_memcpy(p->eth->h_source, v->smac, ETH_ALEN);
	count(out_st, deliver ? FAB_CNT_SRV6_DELIVERED : FAB_CNT_SRV6_FORWARDED,
	      1);
	return transmit(ctx, out_st, out_if, dup, XDP_DROP);
}

SEC("xdp")
int mrc_fab_xdp(struct xdp_md *ctx)
{
	__u32 in_if = ctx->ingress_ifindex, out_if;
	struct fab_stats *in_st, *out_st;
	struct bpf_fib_lookup fib;
	struct fab_fault *out_fault;
	struct pkt p;
	int rc, dup = 0;
	__u8 ttl;

	in_st = stats_of(in_if);
	rc = parse(ctx, &p);
	if (fab_srv6_block && rc == -1) {
		/* No kernel to fall back on in SRv6 mode: dropped. */
		count(in_st, FAB_CNT_DROP_SRV6_MALFORMED, 1);
		return XDP_DROP;
	}
	if (rc) {
		count(in_st,
		      rc == 1 ? FAB_CNT_PASS_NOT_IP :
		      rc == 2 ? FAB_CNT_PASS_MULTICAST :
				FAB_CNT_PASS_MALFORMED,
		      1);
		return XDP_PASS;
	}
	count(in_st, FAB_CNT_RX_PACKETS, 1);
	count(in_st, FAB_CNT_RX_BYTES,
	      (void *)(long)ctx->data_end - (void *)(long)ctx->data);

	if (apply_faults(ctx, &p, in_if, FAB_DIR_IN, &dup) == XDP_DROP)
		return XDP_DROP;
	if (fab_srv6_block) {
		/* Faults may have moved the packet (trim): the headers again. */
		if (parse(ctx, &p))
			return XDP_DROP; /* cannot happen: parsed before */
		return srv6_xdp(ctx, &p, in_st, dup);
	}

	ttl = p.ip4 ? p.ip4->ttl : p.ip6 ? p.ip6->hop_limit : 0;
	if (ttl <= 1) {
		count(in_st, FAB_CNT_PASS_TTL, 1);
		return XDP_PASS; /* the kernel sends the ICMP error */
	}
	if (fib_lookup(ctx, &p, &fib) != BPF_FIB_LKUP_RET_SUCCESS) {
		count(in_st, FAB_CNT_PASS_LOCAL, 1);
		return XDP_PASS;
	}
	out_if = fib.ifindex;
	out_st = stats_of(out_if);
	if (apply_faults(ctx, &p, out_if, FAB_DIR_OUT, &dup) == XDP_DROP)
		return XDP_DROP;
	out_fault = bpf_map_lookup_elem(&mrc_fab_fault, &out_if);
	if (out_fault && (out_fault->flags & FAB_F_VIA_STACK)) {
		/* The kernel forwards it, through the qdisc (tbf) of out_if. */
		count(out_st, FAB_CNT_PASS_STACK, 1);
		return XDP_PASS;
	}

	decrement_ttl(&p);
	__builtin_memcpy(p.eth->h_dest, fib.dmac, ETH_ALEN);
	__builtin_memcpy(p.eth->h_source, fib.smac, ETH_ALEN);
	return transmit(ctx, out_st, out_if, dup, XDP_PASS);
}

/* Whether the first ETH_HLEN bytes at a and b are the same. */
static __always_inline int eth_same(const __u8 *a, const __u8 *b)
{
	int i;

#pragma unroll
	for (i = 0; i < ETH_HLEN; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

/*
 * A frame mrc_fab_xdp asked to be sent twice (struct fab_dup_hdr in
 * front): the request and the frame's original Ethernet header taken out,
 * sent out of the interface it names, twice. Anything else goes on.
 */
SEC("tc")
int mrc_fab_tc_dup(struct __sk_buff *skb)
{
	void *end = (void *)(long)skb->data_end;
	struct fab_dup_hdr *h = (void *)(long)skb->data;
	__u32 magic, out_if;

	if ((void *)(h + 1) + ETH_HLEN > end)
		return TC_ACT_OK;
	__builtin_memcpy(&magic, h->magic, sizeof(magic));
	if (magic != FAB_DUP_MAGIC || !eth_same(h->eth, (void *)(h + 1)))
		return TC_ACT_OK;
	__builtin_memcpy(&out_if, h->egress_ifindex, sizeof(out_if));
	if (bpf_skb_adjust_room(skb, -(int)sizeof(*h), BPF_ADJ_ROOM_MAC, 0)) {
		count(stats_of(out_if), FAB_CNT_DROP_DUP_FAILED, 1);
		return TC_ACT_SHOT;
	}
	bpf_clone_redirect(skb, out_if, 0);
	return bpf_redirect(out_if, 0);
}

/*
 * The kernel's own view of an skb's queue, read through BTF (CO-RE): the
 * root qdisc of the device it leaves by, and the bytes that qdisc holds.
 * Only the fields read here; the names match the kernel's.
 */
struct gnet_stats_queue___fab {
	__u32 qlen;
	__u32 backlog;
} __attribute__((preserve_access_index));
struct Qdisc___fab {
	struct gnet_stats_queue___fab qstats;
} __attribute__((preserve_access_index));
struct net_device___fab {
	struct Qdisc___fab *qdisc;
} __attribute__((preserve_access_index));
struct sk_buff___fab {
	struct net_device___fab *dev;
	__u8 pp_recycle : 1;
	unsigned int tail;
	unsigned int end;
} __attribute__((preserve_access_index));

extern void *bpf_cast_to_kern_ctx(void *) __ksym;

/* Bytes queued in the root qdisc of the skb's device, or -1. */
static __always_inline __s64 qdisc_backlog(struct __sk_buff *skb)
{
	struct sk_buff___fab *kskb = bpf_cast_to_kern_ctx(skb);
	struct net_device___fab *dev = BPF_CORE_READ(kskb, dev);
	struct Qdisc___fab *q = dev ? BPF_CORE_READ(dev, qdisc) : NULL;
	__u32 backlog;

	if (!q || bpf_core_read(&backlog, sizeof(backlog), &q->qstats.backlog))
		return -1;
	return backlog;
}

/*
 * Give a packet that joins the queue memory of its own, as a switch
 * stores a packet in its buffer. An skb built from an XDP frame (the
 * sender's live-frame run, forwarded via the stack to reach this qdisc)
 * keeps the page it was built on, and with it the sending run's whole
 * page pool, for as long as it waits here. The kernel frees a page pool
 * whose pages are out only on a retry once a second, and every pool
 * teardown walks all the pools not yet freed under one mutex: a queue of
 * such pages made each of the senders' transmit calls slower the more
 * calls there had been. Growing the skb past its tailroom makes the
 * kernel copy it into a head of its own (pskb_expand_head) and return
 * the page at once; shrinking it back leaves the bytes as they were.
 */
static __always_inline int own_buffer(struct __sk_buff *skb)
{
	struct sk_buff___fab *kskb = bpf_cast_to_kern_ctx(skb);
	__u32 len = skb->len, room;

	if (!BPF_CORE_READ_BITFIELD_PROBED(kskb, pp_recycle))
		return 0;
	room = BPF_CORE_READ(kskb, end) - BPF_CORE_READ(kskb, tail);
	if (room > 65536)
		return -1;
	if (bpf_skb_change_tail(skb, len + room + 1, 0) ||
	    bpf_skb_change_tail(skb, len, 0))
		return -1;
	return 1;
}

/* Ethernet, the longest IPv4 header, UDP: all a rewrite here touches. */
#define FAB_PULL_BYTES (14 + 60 + 8)

/* Cut an skb to new_len (UDP payload keep), as trim() does an XDP frame. */
static __always_inline int trim_skb(struct __sk_buff *skb, __u32 new_len,
				    __u32 keep, __u8 dscp)
{
	void *data, *end;
	struct pkt p;

	if (bpf_skb_change_tail(skb, new_len, 0) ||
	    bpf_skb_pull_data(skb, new_len))
		return -1;
	data = (void *)(long)skb->data;
	end = (void *)(long)skb->data_end;
	if (parse_at(data, end, &p) || !p.udp)
		return -1;
	trimmed_lengths(&p, keep, dscp);
	udp_csum_full(end, &p);
	return 0;
}

/* The key of p's source at ifindex; 0, or -1 if p is not IP. Taken before
 * anything may move the packet's data. */
static __always_inline int qsrc_key(struct fab_qsrc_key *k, __u32 ifindex,
				    const struct pkt *p)
{
	__builtin_memset(k, 0, sizeof(*k));
	k->ifindex = ifindex;
	if (p->ip4) {
		k->addr[10] = 0xff;
		k->addr[11] = 0xff;
		__builtin_memcpy(&k->addr[12], &p->ip4->saddr, 4);
		return 0;
	}
	if (p->ip6) {
		__builtin_memcpy(k->addr, &p->ip6->saddr, 16);
		return 0;
	}
	return -1;
}

/* A whole packet of len bytes queued: its source's counters. */
static __always_inline void qsrc_count(struct fab_stats *st,
				       const struct fab_qsrc_key *k, __u32 len)
{
	struct fab_qsrc *v = bpf_map_lookup_elem(&mrc_fab_qsrc, k), zero = {};

	if (!v) {
		/* Two CPUs may add the same source: either insert stands. */
		bpf_map_update_elem(&mrc_fab_qsrc, k, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&mrc_fab_qsrc, k);
		if (!v) {
			count(st, FAB_CNT_Q_SRC_FULL, 1);
			return;
		}
	}
	__sync_fetch_and_add(&v->packets, 1);
	__sync_fetch_and_add(&v->bytes, len);
}

/*
 * The congestion point on an interface's egress, before its qdisc: the
 * verdict of fab_q_decide (queue.h) for this packet, carried out. The
 * qdisc (htb, set up by the testbed at the same rate) makes it wait.
 */
SEC("tc")
int mrc_fab_tc_queue(struct __sk_buff *skb)
{
	__u32 ifindex = skb->ifindex, len = skb->len, trim_len = 0, keep;
	struct fab_queue *q = bpf_map_lookup_elem(&mrc_fab_queue, &ifindex);
	enum fab_q_verdict v;
	struct fab_stats *st;
	void *data, *end;
	__s64 real = -1;
	__u32 rnd, cls;
	int ip, ect, own, src;
	struct fab_qsrc_key k;
	struct pkt p;
	__u64 now;
	__u8 dscp;

	if (!q)
		return TC_ACT_OK;
	cls = q->cfg.trim_class;
	/* A header trimmed on its first pass, back for the qdisc. */
	if (cls && skb->priority == cls)
		return TC_ACT_OK;
	st = stats_of(ifindex);
	keep = q->cfg.trim_keep_bytes;
	if (keep > FAB_TRIM_KEEP_MAX)
		keep = FAB_TRIM_KEEP_MAX;
	dscp = q->cfg.trim_dscp;
	/* The headers linear and writable, for parse and rewrite. */
	bpf_skb_pull_data(skb, len < FAB_PULL_BYTES ? len : FAB_PULL_BYTES);
	data = (void *)(long)skb->data;
	end = (void *)(long)skb->data_end;
	ip = !parse_at(data, end, &p);
	/*
	 * A GSO packet is many on the wire: never trimmed whole. Nor is one
	 * with an SRH or inner header (SRv6 mode): the length below would
	 * be wrong; it is dropped when the queue is full.
	 */
	if (ip && p.udp && !skb->gso_size && !p.srh && !p.in6 &&
	    bpf_ntohs(p.udp->len) > sizeof(struct udphdr) + keep)
		/* From the headers, not pointers: no pointer arithmetic. */
		trim_len = sizeof(struct ethhdr) +
			   (p.ip4 ? p.ip4->ihl * 4 : sizeof(struct ipv6hdr)) +
			   sizeof(struct udphdr) + keep;
	ect = ip && get_ecn(&p);
	src = ip ? qsrc_key(&k, ifindex, &p) : -1;
	rnd = bpf_get_prandom_u32();
	if (q->cfg.backlog_from == FAB_Q_FROM_QDISC) {
		real = qdisc_backlog(skb);
		if (real < 0)
			__sync_fetch_and_add(&q->st.qdisc_reads_failed, 1);
	}
	now = bpf_ktime_get_ns();
	bpf_spin_lock(&q->lock);
	v = fab_q_decide(&q->cfg, &q->st, now, real, len, trim_len, ect, rnd);
	bpf_spin_unlock(&q->lock);
	switch (v) {
	case FAB_Q_DROP:
		count(st, FAB_CNT_Q_DROPPED, 1);
		return TC_ACT_SHOT;
	case FAB_Q_TRIM:
		if (trim_skb(skb, trim_len, keep, dscp)) {
			count(st, FAB_CNT_DROP_TRIM_FAILED, 1);
			return TC_ACT_SHOT;
		}
		/* Sent as it is if it cannot be copied: it is short. */
		own = own_buffer(skb);
		if (own)
			count(st,
			      own < 0 ? FAB_CNT_Q_COPY_FAILED :
					FAB_CNT_Q_COPIED,
			      1);
		skb->priority = cls;
		count(st, FAB_CNT_Q_TRIMMED, 1);
		count(st, FAB_CNT_Q_PACKETS, 1);
		count(st, FAB_CNT_Q_BYTES, trim_len);
		/*
		 * The qdisc would charge the length the packet had before this
		 * program (the kernel records it first): send the header out
		 * of this interface again, so it is measured as it now is.
		 */
		return bpf_redirect(ifindex, 0);
	case FAB_Q_MARK:
		set_tclass(&p, -1, 3);
		count(st, FAB_CNT_Q_ECN_MARKED, 1);
		break;
	case FAB_Q_NOT_ECT:
		count(st, FAB_CNT_Q_ECN_NOT_ECT, 1);
		break;
	default:
		break;
	}
	own = own_buffer(skb);
	if (own < 0) {
		count(st, FAB_CNT_Q_COPY_FAILED, 1);
		return TC_ACT_SHOT;
	}
	if (own)
		count(st, FAB_CNT_Q_COPIED, 1);
	count(st, FAB_CNT_Q_PACKETS, 1);
	count(st, FAB_CNT_Q_BYTES, len);
	if (!src)
		qsrc_count(st, &k, len);
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
