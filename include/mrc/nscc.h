/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the layouts of UET 1.0 NSCC (docs/congestion.md) that
 * the data path and userspace share: the parameters of a CC profile in
 * fixed point, as mrcd converts them once when the profile goes ONLINE
 * (daemon/nscc_params.c), and the per-QP congestion state that
 * bpf/lib/nscc.h updates.
 *
 * BPF has no floating point, so every fraction is fixed point:
 *
 *   Q16  a fraction times 65536 (gamma, max_md_jump, fi_scale)
 *   Q8   a byte count times 256, for the byte quantities that are often
 *        below a few bytes on slow links (fi, eta, alpha x target_delay)
 *
 * Times are nanoseconds, sizes bytes. The limits below keep every product
 * bpf/lib/nscc.h forms below 2^64 (its comments show each bound); mrcd
 * refuses a profile outside them. Fixed-width types, no pointers, no
 * floats and explicit padding only: struct mrc_nscc lives inside the
 * map value struct mrc_qp_tx, under that QP's bpf_spin_lock.
 */
#ifndef MRC_NSCC_H
#define MRC_NSCC_H

#include <linux/types.h>

#define MRC_NSCC_Q16 65536u /* 1.0 in Q16 */
#define MRC_NSCC_Q8 256u /* one byte in Q8 */

/* Limits of the parameters (inclusive). */
#define MRC_NSCC_MTU_MIN 64u /* bytes */
#define MRC_NSCC_MTU_MAX 65536u
#define MRC_NSCC_CWND_MAX (1u << 28) /* bytes: max_cwnd, adjust_bytes */
#define MRC_NSCC_TIME_MAX_NS (1u << 30) /* about 1.07 s */
/* fi, eta and alpha x target_delay: below 2^24 bytes, so Q8 fits __u32. */
#define MRC_NSCC_INC_MAX_Q8 0xffffffffu
#define MRC_NSCC_FI_SCALE_MAX_Q16 (256u * MRC_NSCC_Q16) /* fi_scale <= 256 */
#define MRC_NSCC_QA_GATE_MAX 31u
/* qa_threshold_ns: no delay is ever above it (the default with trimming). */
#define MRC_NSCC_QA_NEVER (~0ull)
/*
 * A delay below this is "near zero" for fast increase. UET does not
 * quantify it; 1 us is what the UET models use.
 */
#define MRC_NSCC_NEAR_ZERO_NS 1000u

/*
 * One CC profile's NSCC parameters (struct mrc_ctl_cc_nscc_cfg, converted
 * by nscc_params_from_cfg()). Read only by the data path.
 */
struct mrc_nscc_params {
	/*
	 * Bytes one full packet counts for, in the unit the caller counts
	 * in cwnd and inflight (the data path: payload, mrc_qp_tx.mtu).
	 * Also the largest floor of a window: a QP's window stops at one of
	 * its own packets (mrc_nscc.min_wnd_bytes), at most this.
	 */
	__u32 mtu_bytes;
	__u32 max_cwnd_bytes; /* MaxWnd: initial and largest window */
	__u32 base_rtt_ns; /* config_base_rtt: the longest unloaded path */
	__u32 target_delay_ns; /* target queueing delay, on rtt - base_rtt */
	__u32 adjust_period_ns; /* adjust_period_threshold */
	__u32 adjust_bytes; /* adjust_bytes_threshold */
	__u32 eta_q8_bytes; /* added to cwnd once per adjust period */
	__u32 fi_q8_bytes; /* fair increase: about fi bytes per RTT */
	/*
	 * alpha x target_delay: the proportional increase per RTT at zero
	 * delay, which falls linearly to 0 at target_delay. UET has
	 * alpha = 4 x scaling_a x scaling_b x MTU / target_delay.
	 */
	__u32 alpha_target_q8_bytes;
	__u32 fi_scale_q16; /* fast increase: cwnd += acked x fi_scale */
	__u32 gamma_q16; /* MD: cwnd x (1 - gamma (avg - target) / avg) */
	__u32 max_md_jump_q16; /* ...but never below cwnd x max_md_jump */
	__u32 near_zero_ns; /* MRC_NSCC_NEAR_ZERO_NS */
	__u32 pad0;
	/* Quick adapt on a delay above this; MRC_NSCC_QA_NEVER: never. */
	__u64 qa_threshold_ns;
	__u8 disable_qa; /* non-zero: no quick adapt, no ignore phase */
	/* Quick adapt only while achieved < max_wnd >> qa_gate. */
	__u8 qa_gate;
	__u8 pad1[6];
};
_Static_assert(sizeof(struct mrc_nscc_params) == 72, "nscc params layout");

/*
 * A QP's NSCC state (UET 1.0's source state for one CCC). Zeroed, then
 * nscc_init(). Owned by the data path; written only under the QP's lock.
 *
 * inflight_bytes counts the bytes of distinct PSNs sent and not yet
 * acknowledged: a resend adds nothing, and the first ACK or SACK of a PSN
 * subtracts its length once (UET instead subtracts a lost packet and adds
 * its resend; the sum is the same once the resend is acknowledged).
 */
struct mrc_nscc {
	__u32 cwnd_bytes; /* always in [min_wnd_bytes, max_wnd_bytes] */
	__u32 inflight_bytes;
	/*
	 * The largest window: max_cwnd_bytes scaled by base_rtt_ns /
	 * params.base_rtt_ns (1.5 BDP of the path the RTTs measure).
	 */
	__u32 max_wnd_bytes;
	__u32 base_rtt_ns; /* learned: the smallest RTT seen, only falls */
	/* Queueing delay averaged over about one base RTT (nscc.h). */
	__u32 avg_delay_ns;
	/* Quick adapt: the inflight_bytes of when it fired ... */
	__u32 bytes_to_ignore;
	__u8 increase_mode; /* fast increase is on */
	__u8 trigger_qa; /* a trim asked for quick adapt at the period end */
	__u8 pad[2];
	/*
	 * The smallest window: one of this QP's packets (its payload per
	 * packet), or the profile's mtu_bytes if that is smaller. UET's
	 * floor is one MTU; a profile serves QPs of any path MTU.
	 */
	__u32 min_wnd_bytes;
	/*
	 * Increase accumulated since the last adjustment, in Q8 bytes x
	 * bytes (fi x acked, alpha x (target - delay) x acked); fulfilling
	 * divides it by cwnd_bytes.
	 */
	__u64 inc_bytes2_q8;
	__u64 achieved_bytes; /* acknowledged in this quick-adapt period */
	__u64 received_bytes; /* acknowledged since the last adjustment */
	__u64 fi_count_bytes; /* acknowledged at near-zero delay in a row */
	/* ... and what was acknowledged, trimmed or lost since. */
	__u64 bytes_ignored;
	__u64 qa_endtime_ns; /* end of this quick-adapt period; 0: none yet */
	__u64 last_adjust_ns; /* last adjustment by period */
	__u64 last_dec_ns; /* last multiplicative decrease */
	__u64 last_delay_ns; /* last avg_delay_ns update */
};
_Static_assert(sizeof(struct mrc_nscc) == 104, "nscc state layout");
_Static_assert(sizeof(struct mrc_nscc) % 8 == 0, "nscc state alignment");

/* What one call did, for counters and tests. */
enum mrc_nscc_verdict {
	MRC_NSCC_NONE, /* bookkeeping only: no RTT sample (Karn) */
	MRC_NSCC_QA, /* quick adapt: cwnd set to the bytes achieved */
	MRC_NSCC_IGNORED, /* in the ignore phase after a quick adapt */
	MRC_NSCC_FAIR, /* fair increase (delay at or above target) */
	MRC_NSCC_PROP, /* proportional increase (delay below target) */
	MRC_NSCC_FAST, /* fast increase (near-zero delay for a window) */
	MRC_NSCC_MD, /* multiplicative decrease */
	/* MD was due but not taken: one came within a base RTT, or the
	 * average delay is not above target */
	MRC_NSCC_MD_HELD,
	MRC_NSCC_ECN_LOW, /* ECN at low delay: no change */
	MRC_NSCC_CUT, /* trim or loss: cwnd less one packet */
};

/*
 * The queueing delay NSCC measured (each RTT sample less the QP's base
 * RTT, the responder's service time taken out), over every QP of the
 * device that has a CC profile: mrc_cc_delay, a per-CPU array of
 * MRC_CC_DELAY_BUCKETS sample counts. Bucket i counts delays in
 * [i x MRC_CC_DELAY_BUCKET_NS, (i + 1) x MRC_CC_DELAY_BUCKET_NS); the
 * last, every delay from its start on (2.55 ms and longer).
 */
#define MRC_CC_DELAY_BUCKET_NS 10000u
#define MRC_CC_DELAY_BUCKETS 256u

static inline __u32 mrc_cc_delay_bucket(__u64 delay_ns)
{
	__u64 i = delay_ns / MRC_CC_DELAY_BUCKET_NS;

	return i < MRC_CC_DELAY_BUCKETS - 1 ? (__u32)i :
					      MRC_CC_DELAY_BUCKETS - 1;
}

#endif /* MRC_NSCC_H */
