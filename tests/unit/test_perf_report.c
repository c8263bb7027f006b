// SPDX-License-Identifier: GPL-2.0
/*
 * mrc-perf's report (tools/perf/report.c): fixed, hand-made results of
 * every kind printed as JSON and as the table, compared byte for byte with
 * tests/unit/perf_report.expected. That file is what the printers of
 * fc75a00 (tools/mrc-perf.c, before the split and before the report was
 * driven by one table of fields) printed for the same results, with a
 * "## case N" line before each case; tests/system and tests/bench parse
 * this output, so it must not change by accident.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../tools/perf/report.h"
#include "../../tools/perf/timeline.h"
#include "mrc_ext.h"

/* The timeline samples a QP's health; with no QP it never asks. */
int mrcx_query_qp_health(struct mrc_qp *qp, uint32_t after,
			 struct mrcd_qp_health *h)
{
	(void)qp;
	(void)after;
	(void)h;
	errno = ENOSYS;
	return -1;
}

/*
 * Fixed, hand-made results for mrc-perf's printers: every kind of row
 * (bw, bw with WRITE_IMM and --verify, rate, lat over MRC, the TCP
 * baseline), the server's counts and errors in them, the client's first
 * send error, a failed run with no rows, and a timeline with no fault.
 */
static struct perf_opts case_opts[7];
static struct row_result case_rows[7][4];

static const struct row_result bw_rows[] = {
	{ .transport = XPORT_MRC,
	  .size_bytes = 1 << 20,
	  .posted = 4800,
	  .msgs = 4771,
	  .elapsed_ns = 5000123456ull,
	  .client_cpu_ns = 4987654321ull,
	  .srv = { .cpu_ns = 12345678ull, .elapsed_ns = 0 } },
	{ .transport = XPORT_MRC,
	  .size_bytes = 64 << 10,
	  .posted = 70000,
	  .msgs = 69999,
	  .elapsed_ns = 5000000001ull,
	  .client_cpu_ns = 5001000000ull,
	  .stopped = true,
	  .srv = { .cpu_ns = 1ull, .rq_underflows = 0 } },
	{ .transport = XPORT_MRC,
	  .size_bytes = 1000,
	  .posted = 0,
	  .msgs = 0,
	  .elapsed_ns = 0,
	  .client_cpu_ns = 0 },
	{ .transport = XPORT_MRC,
	  .size_bytes = 3ull << 30,
	  .posted = 3,
	  .msgs = 3,
	  .elapsed_ns = 7654321ull,
	  .client_cpu_ns = 7000000ull,
	  .srv = { .cpu_ns = 999999999ull } },
};

static const struct row_result imm_rows[] = {
	{ .transport = XPORT_MRC,
	  .size_bytes = 4096,
	  .posted = 100000,
	  .msgs = 99998,
	  .elapsed_ns = 2500000000ull,
	  .client_cpu_ns = 2400000000ull,
	  .srv = { .recv_msgs = 99998,
		   .cpu_ns = 2300000000ull,
		   .elapsed_ns = 2499999999ull,
		   .bad_bytes = 0,
		   .checked_bytes = 524288 } },
	{ .transport = XPORT_MRC,
	  .size_bytes = 1536,
	  .posted = 5000,
	  .msgs = 4990,
	  .elapsed_ns = 1234567890ull,
	  .client_cpu_ns = 1200000000ull,
	  .stopped = true,
	  .srv = { .recv_msgs = 4980,
		   .recv_errors = 2,
		   .recv_first_status = IBV_WC_WR_FLUSH_ERR,
		   .send_errors = 1,
		   .send_first_status = IBV_WC_RETRY_EXC_ERR,
		   .bad_bytes = 77,
		   .checked_bytes = 196608,
		   .cpu_ns = 1100000000ull,
		   .elapsed_ns = 1234000000ull,
		   .rq_underflows = 12 } },
	{ .transport = XPORT_MRC,
	  .size_bytes = 8192,
	  .posted = 10,
	  .msgs = 10,
	  .elapsed_ns = 1000,
	  .client_cpu_ns = 900,
	  .srv = { .recv_msgs = 10,
		   .send_errors = 3,
		   .send_first_status = 99,
		   .elapsed_ns = 1000,
		   .cpu_ns = 800 } },
};

static const struct row_result rate_rows[] = {
	{ .transport = XPORT_MRC,
	  .size_bytes = 64,
	  .posted = 12000000,
	  .msgs = 11999999,
	  .elapsed_ns = 5000000000ull,
	  .client_cpu_ns = 4999999999ull,
	  .srv = { .recv_msgs = 11999999,
		   .cpu_ns = 4000000000ull,
		   .elapsed_ns = 4999000000ull } },
};

static const struct row_result lat_rows[] = {
	{ .transport = XPORT_MRC,
	  .size_bytes = 8,
	  .posted = 10000,
	  .msgs = 10000,
	  .client_cpu_ns = 150000000ull,
	  .samples = 9900,
	  .rtt_ns_min = 10123,
	  .rtt_ns_p50 = 12345,
	  .rtt_ns_p99 = 45678,
	  .rtt_ns_max = 1234567,
	  .srv = { .cpu_ns = 140000000ull, .recv_msgs = 10000 } },
	{ .transport = XPORT_TCP,
	  .size_bytes = 8,
	  .posted = 10000,
	  .msgs = 10000,
	  .client_cpu_ns = 160000000ull,
	  .samples = 9900,
	  .rtt_ns_min = 20001,
	  .rtt_ns_p50 = 25555,
	  .rtt_ns_p99 = 99999,
	  .rtt_ns_max = 3000000,
	  .srv = { .cpu_ns = 170000000ull } },
	{ .transport = XPORT_MRC,
	  .size_bytes = 65536,
	  .posted = 150,
	  .msgs = 150,
	  .client_cpu_ns = 1,
	  .samples = 50,
	  .rtt_ns_min = 1,
	  .rtt_ns_p50 = 2,
	  .rtt_ns_p99 = 3,
	  .rtt_ns_max = 5,
	  .stopped = true,
	  .srv = { .recv_errors = 1,
		   .recv_first_status = IBV_WC_REM_ACCESS_ERR,
		   .rq_underflows = 1 } },
};

static const struct row_result tcp_rows[] = {
	{ .transport = XPORT_TCP,
	  .size_bytes = 1048576,
	  .posted = 7,
	  .msgs = 7,
	  .client_cpu_ns = 2000000,
	  .samples = 0 },
};

/* Case k: the client as the printers see it; *err the run's result. */
static void case_client(int k, struct perf_client *c, int *err)
{
	struct perf_opts *o = &case_opts[k];
	const struct row_result *rows = NULL;
	unsigned int n = 0;

	memset(c, 0, sizeof(*c));
	*o = (struct perf_opts){
		.test = TEST_BW, .qps = 1, .depth = 128, .sge = 1
	};
	c->o = o;
	c->fd = -1;
	*err = 0;
	switch (k) {
	case 0: /* bw, a sweep of sizes; the device opened */
		rows = bw_rows, n = 4;
		c->params.mpr = 2;
		c->dev.vctx = (struct ibv_context *)1;
		c->dev.path_mtu_bytes = 4096;
		c->dev.mem_per_qp_bytes = 135168;
		c->server_mem_per_qp_bytes = 139264;
		break;
	case 1: /* bw --imm --verify, 4 QPs: server errors, a send error */
		rows = imm_rows, n = 3;
		o->imm = o->verify = true;
		o->qps = 4, o->depth = 16, o->sge = 2;
		c->params.imm = 1;
		c->params.mpr = 255;
		c->dev.vctx = (struct ibv_context *)1;
		c->dev.path_mtu_bytes = 1024;
		c->dev.mem_per_qp_bytes = 0;
		c->server_mem_per_qp_bytes = 18446744073709551615ull;
		c->dev.send_errors = 2;
		c->dev.recv_errors = 5;
		c->dev.send_first_status = IBV_WC_RETRY_EXC_ERR;
		c->dev.send_first_error_qp_state = IBV_QPS_ERR;
		c->dev.send_last_ok_ns = 1000000000ull;
		c->dev.send_first_error_ns = 1012345678ull;
		c->failed = 1;
		*err = -ETIMEDOUT;
		break;
	case 2: /* rate, --verify */
		rows = rate_rows, n = 1;
		o->test = TEST_RATE;
		o->verify = true;
		c->params.imm = 1;
		c->params.mpr = 16;
		c->dev.vctx = (struct ibv_context *)1;
		c->dev.path_mtu_bytes = 2048;
		c->dev.mem_per_qp_bytes = 4096;
		c->server_mem_per_qp_bytes = 8192;
		break;
	case 3: /* lat over MRC and TCP */
		rows = lat_rows, n = 3;
		o->test = TEST_LAT;
		o->transport = XPORT_MRC | XPORT_TCP;
		o->qps = 2;
		c->params.imm = 1;
		c->params.mpr = 1;
		c->dev.vctx = (struct ibv_context *)1;
		c->dev.path_mtu_bytes = 256;
		c->dev.mem_per_qp_bytes = 1;
		c->server_mem_per_qp_bytes = 2;
		c->failed = 1;
		break;
	case 4: /* the TCP baseline alone: no device; a send error with no
		 * good completion before it, in an unknown QP state */
		rows = tcp_rows, n = 1;
		o->test = TEST_LAT;
		o->transport = XPORT_TCP;
		c->params.imm = 1;
		c->dev.send_errors = 1;
		c->dev.send_first_status = 1000;
		c->dev.send_first_error_qp_state = -1;
		break;
	case 5: /* nothing ran: the server was not there */
		o->verify = true;
		*err = -ECONNREFUSED;
		break;
	case 6: /* bw with a timeline and no fault */
		rows = bw_rows, n = 1;
		c->params.mpr = 2;
		c->dev.vctx = (struct ibv_context *)1;
		c->dev.path_mtu_bytes = 4096;
		c->dev.tl = tl_new(NULL, NULL, 0);
		break;
	}
	if (n)
		memcpy(case_rows[k], rows, n * sizeof(*rows));
	c->rows = case_rows[k];
	c->nrows = n;
}

#define NCASES 7

static const char *const case_names[NCASES] = {
	"bw, a sweep of sizes",
	"bw --imm --verify, server errors, a client send error, a failed run",
	"rate --verify",
	"lat over MRC and TCP",
	"the TCP baseline alone, no device, a send error",
	"nothing ran: the server was not there",
	"bw with a timeline and no fault",
};

/* What mrc-perf client prints for case k: JSON, then the table. */
static void case_print(int k)
{
	struct perf_client c;
	int err;

	case_client(k, &c, &err);
	print_json(&c, err);
	if (c.nrows)
		print_human(&c);
	if (c.dev.tl)
		tl_human(c.dev.tl, stdout);
	tl_free(c.dev.tl);
}

/* What case_print(k) writes on stdout. */
static char *captured(int k)
{
	FILE *tmp = tmpfile();
	char *text;
	long len;
	int saved;

	assert_non_null(tmp);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(fileno(tmp), STDOUT_FILENO) >= 0);
	case_print(k);
	fflush(stdout);
	assert_true(dup2(saved, STDOUT_FILENO) >= 0);
	close(saved);
	len = ftell(tmp);
	assert_true(len >= 0);
	text = calloc(1, (size_t)len + 1);
	assert_non_null(text);
	rewind(tmp);
	assert_int_equal(fread(text, 1, (size_t)len, tmp), (size_t)len);
	fclose(tmp);
	return text;
}

/* Case k's text in perf_report.expected, from its "## case" line on. */
static char *expected(int k)
{
	char path[4096], head[64], *all, *from, *to, *text;
	const char *slash = strrchr(__FILE__, '/');
	FILE *f;
	long len;

	snprintf(path, sizeof(path), "%.*s/perf_report.expected",
		 slash ? (int)(slash - __FILE__) : 1, slash ? __FILE__ : ".");
	f = fopen(path, "r");
	if (!f) {
		fail_msg("%s: %s", path, strerror(errno));
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	all = calloc(1, (size_t)len + 1);
	assert_non_null(all);
	assert_int_equal(fread(all, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	snprintf(head, sizeof(head), "## case %d: ", k);
	from = strstr(all, head);
	assert_non_null(from);
	from = strchr(from, '\n') + 1;
	to = strstr(from, "## case ");
	text = strndup(from, to ? (size_t)(to - from) : strlen(from));
	free(all);
	return text;
}

static void report_case(void **state)
{
	int k = (int)(intptr_t)*state;
	char *want = expected(k), *got = captured(k);

	if (strcmp(got, want))
		fail_msg("case %d (%s) prints\n%s\ninstead of\n%s", k,
			 case_names[k], got, want);
	free(want);
	free(got);
}

int main(void)
{
	struct CMUnitTest tests[NCASES];
	int k;

	for (k = 0; k < NCASES; k++)
		tests[k] = (struct CMUnitTest){
			.name = case_names[k],
			.test_func = report_case,
			.initial_state = (void *)(intptr_t)k,
		};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
