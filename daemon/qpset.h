/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains a set of QP numbers as a bitmap, for the loops that
 * look at only some QPs every tick (hellos waiting, QPs in RTS): walking
 * all MRC_MAX_QP of them every millisecond cost a few percent of the
 * machine in every mrcd (docs/perf.md).
 */
#ifndef MRCD_QPSET_H
#define MRCD_QPSET_H

#include <stdint.h>

#include "mrc/abi.h"

#define QPSET_WORDS ((MRC_MAX_QP + 63) / 64)

struct qpset {
	uint64_t w[QPSET_WORDS];
};

static inline void qpset_add(struct qpset *s, uint32_t qpn)
{
	if (qpn < MRC_MAX_QP)
		s->w[qpn / 64] |= 1ull << (qpn % 64);
}

static inline void qpset_del(struct qpset *s, uint32_t qpn)
{
	if (qpn < MRC_MAX_QP)
		s->w[qpn / 64] &= ~(1ull << (qpn % 64));
}

static inline int qpset_has(const struct qpset *s, uint32_t qpn)
{
	return qpn < MRC_MAX_QP && (s->w[qpn / 64] >> (qpn % 64) & 1);
}

/* The smallest member at or above from, or MRC_MAX_QP when none. */
static inline uint32_t qpset_next(const struct qpset *s, uint32_t from)
{
	uint32_t i = from / 64;
	uint64_t bits;

	if (from >= MRC_MAX_QP)
		return MRC_MAX_QP;
	bits = s->w[i] & (~0ull << (from % 64));
	for (;;) {
		if (bits)
			return i * 64 + (uint32_t)__builtin_ctzll(bits);
		if (++i >= QPSET_WORDS)
			return MRC_MAX_QP;
		bits = s->w[i];
	}
}

static inline int qpset_empty(const struct qpset *s)
{
	uint64_t any = 0;
	uint32_t i;

	for (i = 0; i < QPSET_WORDS; i++)
		any |= s->w[i];
	return !any;
}

/* Every member, in order; the body may remove the current one. */
#define qpset_each(s, qpn)                                   \
	for ((qpn) = qpset_next((s), 0); (qpn) < MRC_MAX_QP; \
	     (qpn) = qpset_next((s), (qpn) + 1))

#endif /* MRCD_QPSET_H */
