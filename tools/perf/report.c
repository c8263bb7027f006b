// SPDX-License-Identifier: GPL-2.0
/*
 * The client's report (report.h).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "perf.h"
#include "report.h"
#include "timeline.h"

static double ns_to_s(uint64_t ns)
{
	return (double)ns / 1e9;
}

static double gbit_per_s(const struct row_result *r)
{
	return r->elapsed_ns ? (double)r->msgs * (double)r->size_bytes * 8 /
				       (double)r->elapsed_ns :
			       0;
}

static double msg_per_s(uint64_t msgs, uint64_t ns)
{
	return ns ? (double)msgs * 1e9 / (double)ns : 0;
}

static const char *xport_name(unsigned int t)
{
	return t == XPORT_TCP ? "tcp" : "mrc";
}

static void json_row_writes(const struct perf_opts *o,
			    const struct row_result *r)
{
	printf("{\"size_bytes\":%" PRIu64 ",\"msgs\":%" PRIu64
	       ",\"seconds\":%.6f,\"gbit_per_s\":%.3f,\"msg_per_s\":%.1f",
	       r->size_bytes, r->msgs, ns_to_s(r->elapsed_ns), gbit_per_s(r),
	       msg_per_s(r->msgs, r->elapsed_ns));
	if (o->test == TEST_RATE || o->imm)
		printf(",\"msgs_received\":%" PRIu64
		       ",\"server_msg_per_s\":%.1f,\"count_ok\":%s",
		       r->srv.recv_msgs,
		       msg_per_s(r->srv.recv_msgs, r->srv.elapsed_ns),
		       r->srv.recv_msgs == r->msgs ? "true" : "false");
	printf(",\"server_cpu_s\":%.6f,\"client_cpu_s\":%.6f",
	       ns_to_s(r->srv.cpu_ns), ns_to_s(r->client_cpu_ns));
	if (o->verify)
		printf(",\"bad_bytes\":%" PRIu64 ",\"checked_bytes\":%" PRIu64,
		       r->srv.bad_bytes, r->srv.checked_bytes);
	printf(",\"send_errors\":%" PRIu64 ",\"recv_errors\":%" PRIu64
	       ",\"rq_underflows\":%" PRIu64 ",\"time_limited\":%s}",
	       r->srv.send_errors, r->srv.recv_errors, r->srv.rq_underflows,
	       r->stopped ? "true" : "false");
}

static void json_row_lat(const struct row_result *r)
{
	printf("{\"transport\":\"%s\",\"size_bytes\":%" PRIu64
	       ",\"iters\":%" PRIu64 ",\"samples\":%" PRIu64,
	       xport_name(r->transport), r->size_bytes, r->posted, r->samples);
	printf(",\"rtt_us_min\":%.3f,\"rtt_us_p50\":%.3f,\"rtt_us_p99\":%.3f"
	       ",\"rtt_us_max\":%.3f",
	       r->rtt_ns_min / 1e3, r->rtt_ns_p50 / 1e3, r->rtt_ns_p99 / 1e3,
	       r->rtt_ns_max / 1e3);
	printf(",\"one_way_us_min\":%.3f,\"one_way_us_p50\":%.3f"
	       ",\"one_way_us_p99\":%.3f,\"one_way_us_max\":%.3f",
	       r->rtt_ns_min / 2e3, r->rtt_ns_p50 / 2e3, r->rtt_ns_p99 / 2e3,
	       r->rtt_ns_max / 2e3);
	printf(",\"server_cpu_s\":%.6f,\"client_cpu_s\":%.6f}",
	       ns_to_s(r->srv.cpu_ns), ns_to_s(r->client_cpu_ns));
}

void print_json(const struct perf_client *c, int err)
{
	const struct perf_opts *o = c->o;
	unsigned int i;

	printf("{\"test\":\"%s\",\"qps\":%u,\"depth\":%u,\"sge\":%u,"
	       "\"imm\":%s,\"verify\":%s",
	       test_names[o->test], o->qps, o->depth, o->sge,
	       c->params.imm ? "true" : "false", o->verify ? "true" : "false");
	if (c->dev.vctx)
		printf(",\"mpr\":%" PRIu64 ",\"path_mtu_bytes\":%u"
		       ",\"mem_per_qp_bytes\":%" PRIu64
		       ",\"server_mem_per_qp_bytes\":%" PRIu64,
		       c->params.mpr, c->dev.path_mtu_bytes,
		       c->dev.mem_per_qp_bytes, c->server_mem_per_qp_bytes);
	printf(",\"results\":[");
	for (i = 0; i < c->nrows; i++) {
		if (i)
			putchar(',');
		if (o->test == TEST_LAT)
			json_row_lat(&c->rows[i]);
		else
			json_row_writes(o, &c->rows[i]);
	}
	printf("]");
	printf(",\"client_send_errors\":%" PRIu64
	       ",\"client_recv_errors\":%" PRIu64,
	       c->dev.send_errors, c->dev.recv_errors);
	if (c->dev.send_errors)
		printf(",\"client_first_send_error\":{\"status\":%u,"
		       "\"status_name\":\"%s\",\"qp_state\":\"%s\","
		       "\"ms_after_last_ok\":%.3f}",
		       c->dev.send_first_status,
		       wc_status_name(c->dev.send_first_status),
		       qp_state_name(c->dev.send_first_error_qp_state),
		       c->dev.send_last_ok_ns ?
			       (double)(c->dev.send_first_error_ns -
					c->dev.send_last_ok_ns) /
				       1e6 :
			       -1.0);
	if (c->dev.tl)
		tl_json(c->dev.tl, stdout);
	if (err)
		printf(",\"error\":\"%s\"", strerror(-err));
	printf(",\"ok\":%s}\n", err || c->failed ? "false" : "true");
}

static void human_size(uint64_t b, char *out, size_t len)
{
	if (b >= (1u << 20) && !(b % (1u << 20)))
		snprintf(out, len, "%" PRIu64 "M", b >> 20);
	else if (b >= 1024 && !(b % 1024))
		snprintf(out, len, "%" PRIu64 "K", b >> 10);
	else
		snprintf(out, len, "%" PRIu64, b);
}

static void human_writes(const struct perf_client *c)
{
	const struct perf_opts *o = c->o;
	bool imm = o->test == TEST_RATE || o->imm;
	unsigned int i;
	char sz[32];

	printf("%8s %10s %8s %9s %12s", "size", "msgs", "seconds", "Gbit/s",
	       "msg/s");
	if (imm)
		printf(" %12s %10s", "rx msg/s", "rx count");
	printf(" %9s %9s", "srv CPU s", "cli CPU s");
	if (o->verify)
		printf(" %10s", "bad bytes");
	printf("\n");
	for (i = 0; i < c->nrows; i++) {
		const struct row_result *r = &c->rows[i];

		human_size(r->size_bytes, sz, sizeof(sz));
		printf("%8s %10" PRIu64 " %8.3f %9.3f %12.0f", sz, r->msgs,
		       ns_to_s(r->elapsed_ns), gbit_per_s(r),
		       msg_per_s(r->msgs, r->elapsed_ns));
		if (imm)
			printf(" %12.0f %10s",
			       msg_per_s(r->srv.recv_msgs, r->srv.elapsed_ns),
			       r->srv.recv_msgs == r->msgs ? "ok" : "MISMATCH");
		printf(" %9.3f %9.3f", ns_to_s(r->srv.cpu_ns),
		       ns_to_s(r->client_cpu_ns));
		if (o->verify)
			printf(" %10" PRIu64, r->srv.bad_bytes);
		printf("\n");
	}
}

static void human_lat(const struct perf_client *c)
{
	unsigned int i;

	printf("%-9s %6s %7s  %9s %9s %9s %9s  %9s %9s\n", "transport", "size",
	       "samples", "RTT min", "RTT p50", "RTT p99", "RTT max",
	       "1-way p50", "1-way p99");
	for (i = 0; i < c->nrows; i++) {
		const struct row_result *r = &c->rows[i];

		printf("%-9s %6" PRIu64 " %7" PRIu64
		       "  %9.2f %9.2f %9.2f %9.2f  %9.2f %9.2f\n",
		       xport_name(r->transport), r->size_bytes, r->samples,
		       r->rtt_ns_min / 1e3, r->rtt_ns_p50 / 1e3,
		       r->rtt_ns_p99 / 1e3, r->rtt_ns_max / 1e3,
		       r->rtt_ns_p50 / 2e3, r->rtt_ns_p99 / 2e3);
	}
	printf("(microseconds; first %u round trips are warm-up)\n",
	       PERF_WARMUP_ITERS);
}

void print_human(const struct perf_client *c)
{
	const struct perf_opts *o = c->o;
	unsigned int i;

	printf("test %s, %u QP%s, depth %u%s%s", test_names[o->test], o->qps,
	       o->qps > 1 ? "s" : "", o->depth,
	       c->params.imm && o->test == TEST_BW ? ", WRITE_IMM" : "",
	       o->verify ? ", verify" : "");
	if (c->dev.vctx)
		printf(", mpr %" PRIu64 ", %u-byte packets"
		       "\nmemory per QP: client %" PRIu64
		       " bytes, server %" PRIu64 " bytes",
		       c->params.mpr, c->dev.path_mtu_bytes,
		       c->dev.mem_per_qp_bytes, c->server_mem_per_qp_bytes);
	printf("\n");
	if (o->test == TEST_LAT)
		human_lat(c);
	else
		human_writes(c);
	for (i = 0; i < c->nrows; i++) {
		const struct row_result *r = &c->rows[i];

		if (r->stopped)
			printf("note: row %u stopped before its iterations\n",
			       i + 1);
		if (r->srv.rq_underflows)
			printf("note: row %u: %" PRIu64 " WRITE_IMMs found no "
			       "receive WR posted at the server\n",
			       i + 1, r->srv.rq_underflows);
		if (r->srv.send_errors || r->srv.recv_errors)
			printf("note: row %u: server saw %" PRIu64
			       " send, %" PRIu64
			       " receive errors (first: %s)\n",
			       i + 1, r->srv.send_errors, r->srv.recv_errors,
			       wc_status_name((
				       unsigned int)(r->srv.recv_errors ?
							     r->srv.recv_first_status :
							     r->srv.send_first_status)));
	}
}
