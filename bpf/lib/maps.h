/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains every map of the data path, one comment each saying
 * what it maps and who writes it. Layouts are in include/mrc/abi.h.
 */
#ifndef MRC_BPF_MAPS_H
#define MRC_BPF_MAPS_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "mrc/abi.h"
#include "mrc/drop.h"
#include "mrc/wire.h"

/* QP number -> QP; mrcd sets it up, the receive program owns rx state. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MRC_MAX_QP);
	__type(key, __u32);
	__type(value, struct mrc_qp_rx);
} mrc_qp SEC(".maps");

/* rkey index -> memory region description; mrcd writes it. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MRC_MAX_MR);
	__type(key, __u32);
	__type(value, struct mrc_mr_info);
} mrc_mr_info SEC(".maps");

/* One chunk of a memory region and its pad (abi.h explains the pad). */
struct mrc_mr_elem {
	__u8 bytes[MRC_MR_ELEM];
};

/*
 * rkey index -> the region's memory: an mmapable array of chunks, which
 * the application maps over its buffer. mrcd inserts one per region.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, MRC_MAX_MR);
	__type(key, __u32);
	__array(
		values, struct {
			__uint(type, BPF_MAP_TYPE_ARRAY);
			__uint(map_flags, BPF_F_MMAPABLE | BPF_F_INNER_MAP);
			__uint(max_entries, 1);
			__uint(key_size, sizeof(__u32));
			/* A size, not a type: clang emits only a forward
		 * declaration for a struct named nowhere else. */
			__uint(value_size, sizeof(struct mrc_mr_elem));
		});
} mrc_mr SEC(".maps");

/* CQ index -> its completion ring (struct mrc_cqe records); mrcd. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, MRC_MAX_CQ);
	__type(key, __u32);
	__array(
		values, struct {
			__uint(type, BPF_MAP_TYPE_RINGBUF);
			__uint(max_entries, MRC_CQ_RING_BYTES);
		});
} mrc_cq SEC(".maps");

/* CQ index -> its notify word (MRC_CQ_POLLED, MRC_CQ_ARMED: abi.h);
 * mrcd inserts one with each ring, the CQ's owner maps it. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, MRC_MAX_CQ);
	__type(key, __u32);
	__array(
		values, struct {
			__uint(type, BPF_MAP_TYPE_ARRAY);
			__uint(map_flags, BPF_F_MMAPABLE);
			__uint(max_entries, 1);
			__uint(key_size, sizeof(__u32));
			__uint(value_size, sizeof(__u32));
		});
} mrc_cq_notify SEC(".maps");

/* QP number -> its send side; mrcd configures, the data path owns state. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MRC_MAX_QP);
	__type(key, __u32);
	__type(value, struct mrc_qp_tx);
} mrc_qp_tx SEC(".maps");

/* QP number -> its SRv6 routes (abi.h); nroute 0: not an SRv6 QP. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MRC_MAX_QP);
	__type(key, __u32);
	__type(value, struct mrc_qp_srv6);
} mrc_qp_srv6 SEC(".maps");

/*
 * The SRv6 blocks (an address's first MRC_SRV6_BLOCK_BYTES, as on the
 * wire) of the routes mrcd installed: an IPv6-in-IPv6 packet to one of
 * them is an SRv6 packet at its end (the receive program's srv6_strip).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16);
	__type(key, __u32);
	__type(value, __u32);
} mrc_srv6_block SEC(".maps");

/*
 * CC profile id -> its NSCC parameters (include/mrc/nscc.h), as mrcd
 * converted them when the profile went ONLINE or changed while ONLINE;
 * a QP's cc_slot names its profile. Slot 0 is "no congestion control".
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MRC_CC_SLOTS);
	__type(key, __u32);
	__type(value, struct mrc_nscc_params);
} mrc_cc SEC(".maps");

/*
 * QP number -> its send queue, an mmapable one-element array the poster
 * (libmrc, through mrcd) writes WQEs into; mrcd inserts one per QP.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, MRC_MAX_QP);
	__type(key, __u32);
	__array(
		values, struct {
			__uint(type, BPF_MAP_TYPE_ARRAY);
			__uint(map_flags, BPF_F_MMAPABLE);
			__uint(max_entries, 1);
			__uint(key_size, sizeof(__u32));
			__uint(value_size, sizeof(struct mrc_sq));
		});
} mrc_sq SEC(".maps");

/*
 * QP x MRC_QP_EVS + EV index -> that EV's counters; the data path counts,
 * mrcd and mrcctl read them through the mapping.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, MRC_MAX_QP *MRC_QP_EVS);
	__type(key, __u32);
	__type(value, struct mrc_ev_stats);
} mrc_ev_stats SEC(".maps");

static __always_inline struct mrc_ev_stats *mrc_ev_of(__u32 qpn, __u32 idx)
{
	__u32 key = qpn * MRC_QP_EVS + (idx & (MRC_QP_EVS - 1));

	return bpf_map_lookup_elem(&mrc_ev_stats, &key);
}

/* Port index -> this host's end of that plane; mrcd writes it. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MRC_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct mrc_port);
} mrc_port SEC(".maps");

/*
 * Port index -> interface the transmit program redirects to; mrcd writes
 * the ifindex with no program. The value is the kernel's bpf_devmap_val
 * so that mrcctl capture can set an egress program (bpf_prog.fd, run on
 * each frame just before it leaves) for the length of a capture.
 */
struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, MRC_MAX_PORTS);
	__type(key, __u32);
	__type(value, struct bpf_devmap_val);
} mrc_tx_port SEC(".maps");

/*
 * Entry 0: the program the receive program tail-calls with every frame it
 * turns around (the ACKs, NACKs and probe answers it rewrites in place
 * and sends back with XDP_TX), just before it returns XDP_TX. Empty, so
 * the tail call falls through, except while mrcctl capture takes what
 * leaves a port: then it holds the capture's mrc_cap_turn, which copies
 * the frame and returns XDP_TX itself. mrcd never sets it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} mrc_turn_hook SEC(".maps");

/*
 * Entry 0: the ACK-clocked transmit program (bpf/mrc_xdp_ack_tx.bpf.c),
 * which the receive program tail-calls with an ACK's frame when the ACK
 * made room in a QP's congestion window (mrc_scratch.clock_qpn names the
 * QP). mrcd sets it as it loads the data path, unless mrcd.conf says
 * "ack-clock no"; empty, the tail call falls through and mrcd is woken to
 * send instead.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} mrc_ack_clock SEC(".maps");

/* Send counter -> value (per CPU); transmit and ACK processing count. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MRC_TX_MAX);
	__type(key, __u32);
	__type(value, __u64);
} mrc_tx_stats SEC(".maps");

/* Drop reason -> packets (per CPU); the data path counts, mrcctl reads. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MRC_DROP_MAX);
	__type(key, __u32);
	__type(value, __u64);
} mrc_drop SEC(".maps");

/* Receive counter -> value (per CPU); the receive program counts. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MRC_RX_MAX);
	__type(key, __u32);
	__type(value, __u64);
} mrc_rx_stats SEC(".maps");

/*
 * Queueing delay bucket -> NSCC's RTT samples in it (per CPU; mrc/nscc.h,
 * MRC_CC_DELAY_BUCKET_NS wide): the receive program counts each sample
 * a QP with a CC profile takes.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, MRC_CC_DELAY_BUCKETS);
	__type(key, __u32);
	__type(value, __u64);
} mrc_cc_delay SEC(".maps");

/* EV state changes and probe answers, for mrcd (struct mrc_ev_event). */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, MRC_EV_RING_BYTES);
} mrc_ev_events SEC(".maps");

/* Who pumps the device, and whether it is gone (abi.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mrc_pump);
} mrc_pump SEC(".maps");

/* mrcd's wakeup requests, one per QP (abi.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, MRC_MAX_QP);
	__type(key, __u32);
	__type(value, mrc_wake_t);
} mrc_wake SEC(".maps");

/* The device probes mrcd waits for (abi.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mrc_probe_arm);
} mrc_probe_arm SEC(".maps");

/* Per-CPU scratch space, larger than the 512-byte BPF stack. */
struct mrc_scratch {
	__u8 buf[516]; /* a checksum chunk and its zero pad */
	__u32 ncqe; /* cqe[] slots claimed */
	__u32 ndue; /* of them completions (an opcode): what a CQ must take */
	__u32 ack_drop; /* why take_ack ignored the ACK (MRC_DROP_*), or 0 */
	__u32 scq_full; /* the send CQ has no room for what an ACK completes */
	/*
	 * Values the ACK loops carry from one iteration to the next live
	 * here, not in registers: in a register each distinct value would be
	 * a verifier state of its own.
	 */
	__u32 sack_high;
	__u32 lost; /* PSNs this ACK queued for resending as lost */
	__u32 retx_full; /* a NACKed PSN found the resend queue full */
	__u32 una_moved; /* the cumulative ACK advanced */
	__u32 ack_ev; /* EV index of the acknowledged packet */
	__u32 ack_rtt_ns; /* its RTT, 0 when ambiguous (retransmitted) */
	__u32 acked_bytes; /* payload this ACK newly delivered (NSCC) */
	__u32 lost_bytes; /* ...and found lost (never UNSENT ones) */
	__u32 trim_bytes; /* the packet a TRIMMED NACK names, in flight */
	__u32 silent_delivered; /* EVs passed by for silence that delivered */
	/* ...and holes sent before reo_before_ns may be resent for
	 * reordering (health_reorder_before). */
	__u64 reo_before_ns;
	/*
	 * Packets of each EV this ACK delivered, and which EVs those are:
	 * only those are read and zeroed again after the lock, so an ACK
	 * costs its EVs, not MRC_QP_EVS.
	 */
	__u16 acked_n[MRC_QP_EVS];
	struct mrc_evmask acked_evs;
	__u32 nbad; /* EVs this ACK moved to ASSUMED_BAD or kept (first 8) */
	__u8 bad_ev[8];
	__u8 bad_kept[8]; /* 1: kept in use by ev_min_active */
	__u64 now_ns; /* when the ACK is handled */
	/* The QP whose ACK the receive program hands to mrc_ack_clock, for
	 * this CPU's tail call only: MRC_MAX_QP (or 0) otherwise. Between
	 * handle_ack and after_ack it may carry MRC_CLOCK_NO_MRCD: only if
	 * no mrcd pumps (mrc_pump). */
	__u32 clock_qpn;
	__u32 wake_qpn; /* ...and the QP whose ACK made room: MRC_MAX_QP */
	struct mrc_cqe cqe[MRC_RX_WINDOW_MAX + 1]; /* completions claimed */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mrc_scratch);
} mrc_scratch SEC(".maps");
#define MRC_CLOCK_NO_MRCD (1u << 31)

static __always_inline void mrc_count_drops(enum mrc_drop_reason r, __u64 n)
{
	__u32 key = r;
	__u64 *c = bpf_map_lookup_elem(&mrc_drop, &key);

	if (c)
		*c += n;
}

static __always_inline void mrc_count_drop(enum mrc_drop_reason r)
{
	mrc_count_drops(r, 1);
}

static __always_inline void mrc_count_tx(enum mrc_tx_counter k, __u64 n)
{
	__u32 key = k;
	__u64 *c = bpf_map_lookup_elem(&mrc_tx_stats, &key);

	if (c)
		*c += n;
}

/* One of NSCC's RTT samples: its queueing delay into mrc_cc_delay. */
static __always_inline void mrc_count_cc_delay(__u64 delay_ns)
{
	__u32 key = mrc_cc_delay_bucket(delay_ns);
	__u64 *c = bpf_map_lookup_elem(&mrc_cc_delay, &key);

	if (c)
		*c += 1;
}

static __always_inline void mrc_count_rx(enum mrc_rx_counter k, __u64 n)
{
	__u32 key = k;
	__u64 *c = bpf_map_lookup_elem(&mrc_rx_stats, &key);

	if (c)
		*c += n;
}

/*
 * The QP's send CQ ring has less room than a send queue of completions on
 * each of two CPUs (a CQ with no ring loses its completions anyway).
 */
/*
 * A QP's NSCC parameters, or NULL for no congestion control: cc_slot 0,
 * or a slot mrcd has not filled. Looked up before the QP's lock is taken
 * (no helper calls under it).
 */
static __always_inline const struct mrc_nscc_params *
mrc_cc_of(const struct mrc_qp_tx *qp)
{
	__u32 slot = qp->cc_slot;
	const struct mrc_nscc_params *p;

	if (!slot || slot >= MRC_CC_SLOTS)
		return NULL;
	p = bpf_map_lookup_elem(&mrc_cc, &slot);
	return p && p->mtu_bytes ? p : NULL;
}

static __always_inline int send_cq_full(const struct mrc_qp_tx *qp)
{
	__u32 cq = qp->send_cq;
	void *ring = bpf_map_lookup_elem(&mrc_cq, &cq);

	return ring && bpf_ringbuf_query(ring, BPF_RB_RING_SIZE) <
			       bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA) +
				       MRC_SCQ_ROOM_BYTES;
}

/*
 * Under the send lock: psn is in flight, sent and not yet cumulatively
 * acknowledged, so its ring slot holds its own record. Any other PSN's
 * slot belongs to a PSN 512 away (or to nothing): a stale or forged ACK,
 * or a resend queued for a PSN delivered meanwhile, must not touch it.
 */
static __always_inline int psn_in_flight(const struct mrc_qp_tx *qp, __u32 psn)
{
	return mrc_psn_diff(psn, qp->una_psn) >= 0 &&
	       mrc_psn_diff(psn, qp->next_psn) < 0;
}

/*
 * Under the send lock: queue psn (whose record is rec) for resending.
 * Returns 0, changing nothing, when the queue has no room.
 */
static __always_inline int retx_push(struct mrc_qp_tx *qp,
				     struct mrc_tx_rec *rec, __u32 psn)
{
	if (qp->retx_tail - qp->retx_head >= MRC_RETX_Q)
		return 0;
	rec->flags |= MRC_REC_RETX_Q;
	rec->flags &= ~MRC_REC_NACKED;
	qp->retx[qp->retx_tail++ % MRC_RETX_Q] = psn;
	return 1;
}

#endif /* MRC_BPF_MAPS_H */
