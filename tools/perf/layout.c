// SPDX-License-Identifier: GPL-2.0
/*
 * The client's region layout (client.h): the slots each QP writes per
 * row, the rows' sizes, each QP's slice and its receive depth.
 */
#define _GNU_SOURCE
#include "client.h"
#include "perf.h"

/*
 * Each QP writes round-robin over "slots" message-sized places in its own
 * slice of the peer's region, as many as the depth keeps in flight but no
 * more than the region cap allows, so 4096 QPs or 1 GiB messages still fit.
 */
uint64_t row_slots(const struct perf_opts *o, uint64_t size)
{
	uint64_t slots = PERF_REGION_CAP_BYTES / ((uint64_t)o->qps * size);

	if (o->test == TEST_LAT)
		return 1;
	if (slots > o->depth)
		slots = o->depth;
	return slots ? slots : 1;
}

unsigned int row_sizes(const struct perf_opts *o, uint64_t *sizes,
		       unsigned int max)
{
	unsigned int n = 0;
	uint64_t s;

	if (!o->sweep) {
		sizes[0] = o->size_bytes;
		return 1;
	}
	for (s = o->sweep_min_bytes; s <= o->sweep_max_bytes && n < max; s *= 2)
		sizes[n++] = s;
	return n;
}

uint64_t slice_bytes_for(const struct perf_opts *o)
{
	uint64_t sizes[64], slice = 64, s;
	unsigned int i, n = row_sizes(o, sizes, 64);

	for (i = 0; i < n; i++) {
		s = sizes[i] * row_slots(o, sizes[i]);
		if (s > slice)
			slice = s;
	}
	return (slice + 63) & ~63ull;
}

unsigned int rq_depth_for(const struct perf_opts *o)
{
	unsigned int rq = 2 * o->depth, cap = PERF_CQ_MAX / o->qps;

	if (rq > cap)
		rq = cap;
	return rq < 2 ? 2 : rq;
}
