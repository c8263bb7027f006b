/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the map layouts of the test fabric's forwarding and
 * fault-injection program (tests/fabric/fabric.bpf.c), shared with its
 * control tool (tests/fabric/fabricctl.c). It is part of the test fabric,
 * not of the product.
 */
#ifndef MRC_FABRIC_ABI_H
#define MRC_FABRIC_ABI_H

#include <linux/bpf.h>
#include <linux/types.h>

/* Probability fields: an event happens when a random u32 < prob. */
#define FAB_PROB_NEVER 0u
#define FAB_PROB_ALWAYS 0xffffffffu /* special-cased: always, not 1 - 2^-32 */

/* Where on a node's interface a fault applies. */
#define FAB_DIR_IN 1u /* packets arriving on this interface */
#define FAB_DIR_OUT 2u /* packets this node forwards out of this interface */

/* struct fab_fault.flags */
#define FAB_F_BLACKHOLE (1u << 0) /* drop every IP packet */
#define FAB_F_SPORT_DROP (1u << 1) /* drop UDP source ports in mrc_fab_sport */
#define FAB_F_VIA_STACK (1u << 2) /* forward through the kernel (qdisc, tbf) */

/* Largest UDP payload a trimmed packet keeps (bounds the checksum loop). */
#define FAB_TRIM_KEEP_MAX 512

/* Magic in struct fab_dup_hdr: the tc program is asked to duplicate. */
#define FAB_DUP_MAGIC 0x4d524344u /* "MRCD" */

/* Value of mrc_fab_fault, keyed by ifindex in the node's network namespace. */
struct fab_fault {
	__u32 flags; /* FAB_F_* */
	__u32 dir_mask; /* FAB_DIR_*: where the actions apply */
	__u32 drop_prob; /* random drop */
	__u32 corrupt_prob; /* flip one payload byte (checksums left as is) */
	__u32 dup_prob; /* send the packet twice */
	__u32 trim_prob; /* cut the UDP payload to trim_keep_bytes */
	__u32 ecn_prob; /* set CE on ECN-capable packets */
	__u16 corrupt_offset_bytes; /* into the UDP payload, clamped to its end */
	__u16 trim_keep_bytes; /* UDP payload bytes a trimmed packet keeps */
	__u8 trim_dscp; /* DSCP written into trimmed packets (the mark) */
	__u8 pad[3];
};
_Static_assert(sizeof(struct fab_fault) == 36, "fab_fault layout");

/* Key of mrc_fab_sport: one UDP source port dropped on one interface. */
struct fab_sport_key {
	__u32 ifindex;
	__u16 sport; /* host byte order */
	__u16 pad;
};
_Static_assert(sizeof(struct fab_sport_key) == 8, "fab_sport_key layout");

/*
 * What the XDP program puts in front of a frame it asks to be sent twice
 * (the dup fault). XDP cannot clone a frame: it passes the frame to the
 * stack, and mrc_fab_tc_dup, on the same interface's tc ingress, sends it
 * out twice. The request rides in the frame's headroom, not in XDP
 * metadata: some kernels (6.18.44-fc here) refuse bpf_xdp_adjust_meta to
 * XDP programs. It starts with a copy of the frame's Ethernet header, the
 * one the kernel parses (so the skb's protocol is the frame's), then the
 * request; the frame follows whole. mrc_fab_tc_dup takes out the request
 * and the original Ethernet header (bpf_skb_adjust_room at the MAC layer).
 */
struct fab_dup_hdr {
	__u8 eth[14]; /* a copy of the frame's Ethernet header */
	__u8 magic[4]; /* FAB_DUP_MAGIC, host byte order */
	__u8 egress_ifindex[4]; /* host byte order */
};
_Static_assert(sizeof(struct fab_dup_hdr) == 22, "fab_dup_hdr layout");

/*
 * A congestion point: one interface's egress made to behave like a switch
 * queue (testbed shape; docs/testbed.md). The packets really wait, in the
 * interface's htb qdisc at rate_bytes_per_s; the tc egress program decides
 * before each enqueue, from the backlog of that qdisc (or, with
 * FAB_Q_FROM_MODEL, of a model of it drained at the same rate: the fixture
 * tests, which have no real queue), whether the packet is CE-marked,
 * trimmed or dropped.
 *
 * ECN: above ecn_min_bytes of backlog (what the packet finds on arrival)
 * an ECT packet is marked with a probability rising linearly to
 * ecn_max_prob at ecn_max_bytes, and always from there on (DCTCP/RED's
 * ramp; min == max is a step). ecn_max_bytes 0: no marking.
 * Full (backlog + the packet > buffer_bytes): drop it, or, with
 * FAB_Q_FULL_TRIM, cut its UDP payload to trim_keep_bytes, write
 * trim_dscp, and queue it ahead of the data (skb->priority trim_class,
 * the htb class of higher priority). A packet that cannot be trimmed (not
 * UDP, or already that short) is dropped.
 */
#define FAB_Q_FULL_DROP 0u
#define FAB_Q_FULL_TRIM 1u

#define FAB_Q_FROM_QDISC 0u /* the backlog the interface's root qdisc holds */
#define FAB_Q_FROM_MODEL 1u /* the model's alone */

struct fab_queue_cfg {
	__u64 rate_bytes_per_s; /* the qdisc's rate: the model drains at it */
	__u32 buffer_bytes;
	__u32 ecn_min_bytes;
	__u32 ecn_max_bytes; /* 0: no ECN marking */
	__u32 ecn_max_prob; /* FAB_PROB_* scale, at ecn_max_bytes */
	__u32 trim_class; /* skb->priority of trimmed packets (htb classid) */
	__u16 trim_keep_bytes; /* UDP payload bytes a trimmed packet keeps */
	__u8 full; /* FAB_Q_FULL_* */
	__u8 trim_dscp;
	__u8 backlog_from; /* FAB_Q_FROM_* */
	__u8 pad[7];
};
_Static_assert(sizeof(struct fab_queue_cfg) == 40, "fab_queue_cfg layout");

/*
 * The wait each queued data packet found on arrival (its backlog at the
 * queue's rate), as a switch's latency histogram: bucket i counts waits
 * in [i, i + 1) x FAB_Q_WAIT_BUCKET_NS; the last also counts all longer.
 * Trimmed headers overtake the queue and are not counted.
 */
#define FAB_Q_WAIT_BUCKETS 256
#define FAB_Q_WAIT_BUCKET_NS 10000ull
_Static_assert((FAB_Q_WAIT_BUCKETS & (FAB_Q_WAIT_BUCKETS - 1)) == 0,
	       "FAB_Q_WAIT_BUCKETS is a power of two");

/* The model's state; under the lock of struct fab_queue. */
struct fab_queue_state {
	__u64 backlog_bytes; /* after the last packet queued */
	__u64 last_ns; /* when backlog_bytes was last drained */
	__u64 hwm_bytes; /* the highest backlog_bytes since configured */
	__u64 qdisc_reads_failed; /* FAB_Q_FROM_QDISC fell back on the model */
	__u64 wait_hist[FAB_Q_WAIT_BUCKETS]; /* packets, by wait found */
};

/* Value of mrc_fab_queue, keyed by ifindex; fabricctl writes cfg. */
struct fab_queue {
	struct bpf_spin_lock lock;
	__u32 pad;
	struct fab_queue_cfg cfg;
	struct fab_queue_state st;
};

/*
 * What each source put through a congestion point: the whole packets it
 * queued (not the ones dropped, nor trimmed headers), as a switch's
 * per-flow counters. Key of mrc_fab_qsrc: the interface and the packet's
 * IP source (IPv4 as ::ffff:a.b.c.d). Read by fabricctl queue-watch, from
 * which the incast bench computes its fairness over short windows.
 */
#define FAB_QSRC_MAX 1024

struct fab_qsrc_key {
	__u32 ifindex;
	__u8 addr[16];
};
_Static_assert(sizeof(struct fab_qsrc_key) == 20, "fab_qsrc_key layout");

struct fab_qsrc {
	__u64 packets;
	__u64 bytes; /* as queued: the frame's length */
};

/*
 * Counters of mrc_fab_stats (per-CPU, keyed by ifindex). rx_* and the fault
 * counters of direction "in" belong to the interface a packet arrived on;
 * tx_* and the fault counters of direction "out" to the one it left by.
 */
#define FAB_COUNTERS(X)                         \
	X(RX_PACKETS, "rx_packets")             \
	X(RX_BYTES, "rx_bytes")                 \
	X(TX_PACKETS, "tx_packets")             \
	X(TX_BYTES, "tx_bytes")                 \
	X(PASS_NOT_IP, "pass_not_ip")           \
	X(PASS_MULTICAST, "pass_multicast")     \
	X(PASS_MALFORMED, "pass_malformed")     \
	X(PASS_LOCAL, "pass_no_fib")            \
	X(PASS_TTL, "pass_ttl")                 \
	X(PASS_STACK, "pass_via_stack")         \
	X(DROP_RANDOM, "drop_random")           \
	X(DROP_SPORT, "drop_sport")             \
	X(DROP_BLACKHOLE, "drop_blackhole")     \
	X(DROP_TRIM_FAILED, "drop_trim_failed") \
	X(DROP_DUP_FAILED, "drop_dup_failed")   \
	X(CORRUPTED, "corrupted")               \
	X(DUPLICATED, "duplicated")             \
	X(TRIMMED, "trimmed")                   \
	X(ECN_MARKED, "ecn_ce_marked")          \
	X(ECN_NOT_ECT, "ecn_not_ect")           \
	X(Q_PACKETS, "queue_packets")           \
	X(Q_BYTES, "queue_bytes")               \
	X(Q_ECN_MARKED, "queue_ecn_marked")     \
	X(Q_ECN_NOT_ECT, "queue_ecn_not_ect")   \
	X(Q_TRIMMED, "queue_trimmed")           \
	X(Q_DROPPED, "queue_dropped")           \
	X(Q_COPIED, "queue_copied")             \
	X(Q_COPY_FAILED, "queue_copy_failed")   \
	X(Q_SRC_FULL, "queue_sources_full")     \
	X(SRV6_SHIFTED, "srv6_shifted")         \
	X(SRV6_NEXT_SEG, "srv6_next_segment")   \
	X(SRV6_FORWARDED, "srv6_forwarded")     \
	X(SRV6_DELIVERED, "srv6_delivered")     \
	FAB_SRV6_DROPS(X)

/*
 * Why the SRv6 mode dropped a packet, one counter each (of the interface
 * it arrived on); docs/testbed.md (SRv6 uSID mode) explains each.
 */
#define FAB_SRV6_DROPS(X)                             \
	X(DROP_SRV6_NOT_SID, "drop_srv6_not_sid")     \
	X(DROP_SRV6_MALFORMED, "drop_srv6_malformed") \
	X(DROP_SRV6_UNKNOWN, "drop_srv6_unknown")     \
	X(DROP_SRV6_SRH_TRUNC, "drop_srv6_srh_trunc") \
	X(DROP_SRV6_SRH_BAD, "drop_srv6_srh_bad")     \
	X(DROP_SRV6_SL, "drop_srv6_sl_beyond")        \
	X(DROP_SRV6_HLIM, "drop_srv6_hop_limit")      \
	X(DROP_SRV6_LOOP, "drop_srv6_loop")           \
	X(DROP_SRV6_LINK_DOWN, "drop_srv6_link_down") \
	X(DROP_SRV6_END, "drop_srv6_end_no_host")

#define FAB_X_ENUM(name, str) FAB_CNT_##name,
enum fab_counter { FAB_COUNTERS(FAB_X_ENUM) FAB_CNT_MAX };
#undef FAB_X_ENUM

struct fab_stats {
	__u64 cnt[FAB_CNT_MAX];
};

#define FAB_MAX_IFACES 256

/*
 * SRv6 uSID mode (docs/testbed.md, RFC 9800 NEXT-C-SID, F3216): the
 * outer IPv6 destination is a 32-bit block followed by up to six 16-bit
 * uSIDs; the first is the active one. A node in this mode forwards only
 * by its table mrc_fab_sid, keyed by block and uSID:
 *  - FAB_SID_ME, the node's own uN: shift the uSIDs after the block left
 *    by 16 bits, zero-filling; if none is left (end of carrier) take the
 *    next segment from the SRH (segments_left--), or, with none left
 *    either, deliver the packet, as it is (not decapsulated), out of
 *    ifindex to dmac (the leaf's host port; 0: no host here, dropped);
 *  - FAB_SID_NEXT, an adjacency: send it out of ifindex to dmac, the
 *    neighbour that owns the uSID, unchanged but for MACs and hop limit.
 * The mode is chosen when the program is loaded (fabricctl attach
 * --srv6 BLOCK: rodata fab_srv6_block, network order; 0 = ECMP mode).
 */
#define FAB_SRV6_USIDS 6 /* uSIDs in one container after a 32-bit block */
#define FAB_SID_NEXT 1u
#define FAB_SID_ME 2u

/* Key of mrc_fab_sid. */
struct fab_sid_key {
	__be32 block; /* the first 32 bits of the address */
	__be16 usid; /* the active uSID, as on the wire */
	__u16 pad;
};
_Static_assert(sizeof(struct fab_sid_key) == 8, "fab_sid_key layout");

/* Value of mrc_fab_sid; fabricctl sid writes it. */
struct fab_sid {
	__u32 kind; /* FAB_SID_* */
	__u32 ifindex; /* NEXT: egress; ME: host port at the end, 0: none */
	__u8 dmac[6]; /* the neighbour's (or host's) MAC */
	__u8 smac[6]; /* ifindex's own MAC */
	__u64 packets; /* matched by this entry; the program adds */
	/*
	 * The neighbour's IPv6 address on that link, or all zero. When set,
	 * the kernel's FIB must still route it out of ifindex (a link down
	 * takes its connected route with it), or the packet is dropped as
	 * link_down rather than lost in a redirect into a dead link.
	 */
	__u8 nh6[16];
};
_Static_assert(sizeof(struct fab_sid) == 48, "fab_sid layout");

/* The SRv6 routing header (RFC 8754), routing type 4. */
#define FAB_SRH_TYPE 4
struct fab_srh {
	__u8 nexthdr;
	__u8 hdrlen; /* in 8-byte units, not counting the first 8 */
	__u8 type; /* FAB_SRH_TYPE */
	__u8 segments_left;
	__u8 last_entry;
	__u8 flags;
	__be16 tag;
	/* then last_entry + 1 segments of 16 bytes, TLVs after them */
};
_Static_assert(sizeof(struct fab_srh) == 8, "fab_srh layout");

#define FAB_MAX_SIDS 1024

/* Value of mrc_fab_sink_c (tests/fabric/fabgen.bpf.c), per CPU. */
struct fab_sink_counts {
	__u64 packets;
	__u64 bytes;
};

#endif /* MRC_FABRIC_ABI_H */
