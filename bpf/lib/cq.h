/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Completion rings (struct mrc_cqe records, a BPF ring buffer per CQ in
 * mrc_cq) and their notify words (mrc_cq_notify; MRC_CQ_POLLED and
 * MRC_CQ_ARMED in abi.h): who is woken when a completion is committed.
 */
#ifndef MRC_BPF_CQ_H
#define MRC_BPF_CQ_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "mrc/abi.h"
#include "maps.h"

/* The CQ's notify word, or NULL for a CQ that has none (mrcd's own). */
static __always_inline __u32 *cq_notify_word(__u32 cq)
{
	__u32 zero = 0;
	void *m = bpf_map_lookup_elem(&mrc_cq_notify, &cq);

	return m ? bpf_map_lookup_elem(m, &zero) : NULL;
}

/*
 * Flags to commit a completion with: a CQ with a notify word wakes no
 * one here (cq_notify wakes an armed one once, after); one without is
 * woken as the ring buffer decides (when its consumer had caught up).
 */
static __always_inline __u64 cq_submit_flags(const __u32 *word)
{
	return word ? BPF_RB_NO_WAKEUP : 0;
}

/*
 * After completions were committed to ring: an armed CQ goes back to
 * polled, and its waiters are woken once, by a discarded 8-byte record
 * (consumers skip those). The word is read after the commit, and the
 * application arms before it looks at the ring (epoll looks when a CQ is
 * armed): whichever comes second sees the other's, so no completion
 * goes unannounced to an armed CQ. A full ring needs no wakeup: its
 * records are there to be seen.
 */
static __always_inline void cq_notify(__u32 *word, void *ring)
{
	void *rec;

	if (!word || *word != MRC_CQ_ARMED ||
	    __sync_val_compare_and_swap(word, MRC_CQ_ARMED, MRC_CQ_POLLED) !=
		    MRC_CQ_ARMED)
		return;
	rec = bpf_ringbuf_reserve(ring, 8, 0);
	if (rec)
		bpf_ringbuf_discard(rec, BPF_RB_FORCE_WAKEUP);
}

#endif
