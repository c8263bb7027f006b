// SPDX-License-Identifier: GPL-2.0
/*
 * Gray-failure detection (gray.h): the median RTT and loss rate of a QP's
 * judged EVs, and the EVs far above them. Pure arithmetic, so unit tests
 * drive it.
 */
#include <stdlib.h>

#include "gray.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The median of v[0..n), sorting v; 0 below GRAY_MIN_PEERS values. */
static uint32_t median_of(uint32_t *v, unsigned int n)
{
	if (n < GRAY_MIN_PEERS)
		return 0;
	qsort(v, n, sizeof(v[0]), cmp_u32);
	return v[n / 2];
}

unsigned int gray_find(const struct gray_ev *ev, unsigned int nev,
		       unsigned int factor, uint32_t *median_ns,
		       struct mrc_evmask *gray)
{
	uint32_t rtt[MRC_QP_EVS], med;
	unsigned int i, n = 0, found = 0;

	*median_ns = 0;
	evm_zero(gray);
	if (nev > MRC_QP_EVS)
		nev = MRC_QP_EVS;
	for (i = 0; i < nev; i++)
		if (ev[i].in_use && ev[i].samples >= GRAY_MIN_SAMPLES &&
		    ev[i].srtt_ns)
			rtt[n++] = ev[i].srtt_ns;
	med = median_of(rtt, n);
	*median_ns = med;
	if (!med)
		return 0;
	for (i = 0; i < nev; i++) {
		uint64_t r = ev[i].srtt_ns;

		if (!ev[i].in_use || ev[i].samples < GRAY_MIN_SAMPLES)
			continue;
		if (r > (uint64_t)med * factor &&
		    r > (uint64_t)med + GRAY_MIN_NS) {
			evm_set(gray, i);
			found++;
		}
	}
	return found;
}

static uint32_t permille(const struct gray_ev *e)
{
	return (uint32_t)((uint64_t)e->lost * 1000 / e->sent);
}

unsigned int lossy_find(const struct gray_ev *ev, unsigned int nev,
			uint32_t *median_permille, struct mrc_evmask *lossy)
{
	uint32_t rate[MRC_QP_EVS], med;
	unsigned int i, n = 0, found = 0;

	*median_permille = 0;
	evm_zero(lossy);
	if (nev > MRC_QP_EVS)
		nev = MRC_QP_EVS;
	for (i = 0; i < nev; i++)
		if (ev[i].in_use && ev[i].sent >= LOSSY_MIN_SENT)
			rate[n++] = permille(&ev[i]);
	if (n < GRAY_MIN_PEERS)
		return 0;
	med = median_of(rate, n);
	*median_permille = med;
	for (i = 0; i < nev; i++) {
		uint32_t r;

		if (!ev[i].in_use || ev[i].sent < LOSSY_MIN_SENT ||
		    ev[i].lost < LOSSY_MIN_LOST)
			continue;
		r = permille(&ev[i]);
		if (r >= LOSSY_MIN_PERMILLE && r >= med * LOSSY_FACTOR) {
			evm_set(lossy, i);
			found++;
		}
	}
	return found;
}
