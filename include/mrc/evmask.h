/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the set of a QP's EVs as a bit mask (struct
 * mrc_evmask, bit i for ev[i]) and what the data path and userspace do
 * with one: test, set, count, and find the next one in turn. It compiles
 * into BPF and into userspace, so mrcd, the tests and the data path use
 * the same code.
 *
 * A QP has up to MRC_QP_EVS (256) EVs, four 64-bit words. Every operation
 * is a fixed number of word operations, with no loop over EVs: the
 * sprayer runs one per packet, under the QP's lock.
 */
#ifndef MRC_EVMASK_H
#define MRC_EVMASK_H

#include <linux/types.h>

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#define MRC_QP_EVS 256 /* EVs one QP sprays over, all ports together */
#define MRC_EV_WORDS (MRC_QP_EVS / 64)
_Static_assert(MRC_QP_EVS % 64 == 0 && MRC_QP_EVS <= 256,
	       "ev_idx is a __u8 on the wire of events and records");

struct mrc_evmask {
	__u64 w[MRC_EV_WORDS];
};

static __always_inline __u32 evm_popcount64(__u64 x)
{
	x = x - ((x >> 1) & 0x5555555555555555ull);
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (__u32)((x * 0x0101010101010101ull) >> 56);
}

/* Index of the lowest set bit of x != 0 (de Bruijn multiplication). */
static const __u8 evm_debruijn[64] = {
	0,  1,	2,  53, 3,  7,	54, 27, 4,  38, 41, 8,	34, 55, 48, 28,
	62, 5,	39, 46, 44, 42, 22, 9,	24, 35, 59, 56, 49, 18, 29, 11,
	63, 52, 6,  26, 37, 40, 33, 47, 61, 45, 43, 21, 23, 58, 17, 10,
	51, 25, 36, 32, 60, 20, 57, 16, 50, 31, 19, 15, 30, 14, 13, 12,
};

static __always_inline __u32 evm_ctz64(__u64 x)
{
	return evm_debruijn[(((x & (0 - x)) * 0x022fdd63cc95386dull) >> 58) &
			    63];
}

/*
 * Keeps clang from turning arithmetic back into branches: the
 * verifier walks every branch of the sprayer once per path into it.
 */
#define evm_opaque(x) asm volatile("" : "+r"(x))

static __always_inline int evm_has(const struct mrc_evmask *m, __u32 i)
{
	return (int)(m->w[(i >> 6) & (MRC_EV_WORDS - 1)] >> (i & 63) & 1);
}

static __always_inline void evm_set(struct mrc_evmask *m, __u32 i)
{
	m->w[(i >> 6) & (MRC_EV_WORDS - 1)] |= 1ull << (i & 63);
}

static __always_inline void evm_clear(struct mrc_evmask *m, __u32 i)
{
	m->w[(i >> 6) & (MRC_EV_WORDS - 1)] &= ~(1ull << (i & 63));
}

static __always_inline void evm_zero(struct mrc_evmask *m)
{
	__u32 k;

	for (k = 0; k < MRC_EV_WORDS; k++)
		m->w[k] = 0;
}

/*
 * m := the first n EVs (n >= MRC_QP_EVS: all). Without a branch: n is
 * the QP's, unknown to the verifier, and a branch per word would split
 * every path after it by where n falls.
 */
static __always_inline void evm_first(struct mrc_evmask *m, __u32 n)
{
	__u64 s, neg, big;
	__u32 k;

	for (k = 0; k < MRC_EV_WORDS; k++) {
		s = (__u64)n - 64 * k; /* the bits of word k, if below 0 */
		neg = s >> 63;
		evm_opaque(neg);
		s &= neg - 1; /* ...no bits */
		big = (63 - s) >> 63; /* at least 64 of them: all */
		evm_opaque(big);
		m->w[k] = ((1ull << (s & 63)) - 1) | (0 - big);
	}
}

static __always_inline int evm_any(const struct mrc_evmask *m)
{
	__u64 x = 0;
	__u32 k;

	for (k = 0; k < MRC_EV_WORDS; k++)
		x |= m->w[k];
	return x != 0;
}

static __always_inline __u32 evm_count(const struct mrc_evmask *m)
{
	__u32 k, n = 0;

	for (k = 0; k < MRC_EV_WORDS; k++)
		n += evm_popcount64(m->w[k]);
	return n;
}

/* d := a & ~b (d may be a or b). */
static __always_inline void evm_andnot(struct mrc_evmask *d,
				       const struct mrc_evmask *a,
				       const struct mrc_evmask *b)
{
	__u32 k;

	for (k = 0; k < MRC_EV_WORDS; k++)
		d->w[k] = a->w[k] & ~b->w[k];
}

/* d := a & b (d may be a or b). */
static __always_inline void evm_and(struct mrc_evmask *d,
				    const struct mrc_evmask *a,
				    const struct mrc_evmask *b)
{
	__u32 k;

	for (k = 0; k < MRC_EV_WORDS; k++)
		d->w[k] = a->w[k] & b->w[k];
}

/*
 * The first EV of m at or after the cursor c, wrapping round; MRC_QP_EVS
 * if m is empty. The candidates, first to last: word c / 64 from bit c,
 * the words after it, word c / 64 again below bit c. They are taken last
 * to first, each non-empty one replacing the answer, without a branch.
 */
static __always_inline __u32 evm_in_turn(const struct mrc_evmask *m, __u32 c)
{
	__u32 wc = (c >> 6) & (MRC_EV_WORDS - 1), k, j;
	__u64 lo = ~0ull << (c & 63), x, sel, res = MRC_QP_EVS;

	for (k = MRC_EV_WORDS + 1; k-- > 0;) {
		j = (wc + k) & (MRC_EV_WORDS - 1);
		x = m->w[j];
		if (k == 0)
			x &= lo;
		else if (k == MRC_EV_WORDS)
			x &= ~lo;
		sel = 0 - ((x | (0 - x)) >> 63); /* all ones: x != 0 */
		evm_opaque(sel);
		res = (res & ~sel) | ((__u64)(j * 64 + evm_ctz64(x)) & sel);
	}
	return (__u32)res;
}

#endif /* MRC_EVMASK_H */
