// SPDX-License-Identifier: GPL-2.0
/*
 * The client's latency row over MRC (client.h): one WRITE_IMM at a time,
 * timed until the server's answer completes.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "client.h"
#include "perf.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void lat_stats(uint64_t *rtt_ns, uint64_t n, struct row_result *res)
{
	res->samples = n;
	if (!n)
		return;
	qsort(rtt_ns, n, sizeof(*rtt_ns), cmp_u64);
	res->rtt_ns_min = rtt_ns[0];
	res->rtt_ns_p50 = rtt_ns[n / 2];
	res->rtt_ns_p99 = rtt_ns[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1];
	res->rtt_ns_max = rtt_ns[n - 1];
}

uint64_t lat_warmup(uint64_t iters)
{
	return iters > PERF_WARMUP_ITERS ? PERF_WARMUP_ITERS : 0;
}

/*
 * Ping-pong of WRITE_IMMs; the server answers each one with its own. The
 * row's time limit (-D) ends it between round trips, as time-limited; a
 * round trip still unanswered PERF_ABORT_RESULT_MS after it is an error.
 */
int client_lat_mrc(struct perf_client *c, const struct perf_row *r,
		   uint64_t iters, struct row_result *res)
{
	uint64_t end = now_ns() + c->params.limit_ms * 1000000ull;
	uint64_t deadline = end + PERF_ABORT_RESULT_MS * 1000000ull;
	uint64_t i, k = 0, warm = lat_warmup(iters), *rtt;
	struct perf_dev *d = &c->dev;
	struct ibv_wc wc[PERF_POLL_BATCH];
	int err = 0, n;

	rtt = calloc(iters, sizeof(*rtt));
	if (!rtt)
		return -ENOMEM;
	row_reset_qps(d, d->depth);
	for (i = 0; i < iters; i++) {
		struct perf_qp *q = &d->qps[i % d->nqps];
		uint64_t t0, t1;

		if (g_stop || now_ns() >= end)
			break;
		err = wait_room(d, q, deadline);
		if (err)
			break;
		t0 = now_ns();
		err = qp_post_writes(d, q, r, 1, (uint32_t)i | 1u << 31, false);
		if (err)
			break;
		n = wait_recv(d, wc, deadline);
		t1 = now_ns();
		if (n < 0) {
			err = n;
			break;
		}
		if (n != 1 || wc[0].status != IBV_WC_SUCCESS ||
		    be32toh(wc[0].imm_data) != ((uint32_t)i | 1u << 31)) {
			pr_err("round trip %" PRIu64 ": unexpected answer", i);
			err = -EPROTO;
			break;
		}
		res->msgs++;
		if (i >= warm)
			rtt[k++] = t1 - t0;
	}
	res->posted = i;
	res->stopped = i < iters;
	lat_stats(rtt, k, res);
	free(rtt);
	return err;
}
