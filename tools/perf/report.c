// SPDX-License-Identifier: GPL-2.0
/*
 * The client's report (report.h): the run, then each row's fields as
 * fields.h describes them, as one JSON object or as a table for people.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fields.h"
#include "perf.h"
#include "report.h"
#include "timeline.h"

/* The rows' fields, and which of the optional ones they have. */
static const struct fields *row_fields(const struct perf_opts *o,
				       unsigned int *when)
{
	*when = (o->test == TEST_RATE || o->imm ? FIELD_IMM : 0) |
		(o->verify ? FIELD_VERIFY : 0);
	return o->test == TEST_LAT ? &lat_fields : &write_fields;
}

static bool shown(const struct field *f, unsigned int when)
{
	return (f->when & when) == f->when;
}

static uint64_t u64_at(const struct field *f, const struct row_result *r)
{
	uint64_t v;

	memcpy(&v, (const char *)r + f->off, sizeof(v));
	return v;
}

static double num_of(const struct field *f, const struct row_result *r)
{
	return f->type == FIELD_NS ? (double)u64_at(f, r) / f->div : f->num(r);
}

static bool bool_of(const struct field *f, const struct row_result *r)
{
	bool v;

	if (f->yes)
		return f->yes(r);
	memcpy(&v, (const char *)r + f->off, sizeof(v));
	return v;
}

static void json_value(const struct field *f, const struct row_result *r)
{
	switch (f->type) {
	case FIELD_U64:
	case FIELD_SIZE:
		printf("%" PRIu64, u64_at(f, r));
		break;
	case FIELD_NS:
	case FIELD_NUM:
		printf("%.*f", f->json_prec, num_of(f, r));
		break;
	case FIELD_BOOL:
		printf("%s", bool_of(f, r) ? "true" : "false");
		break;
	case FIELD_STR:
		printf("\"%s\"", f->str(r));
		break;
	}
}

static void json_row(const struct fields *fs, unsigned int when,
		     const struct row_result *r)
{
	const char *comma = "";
	size_t i;

	putchar('{');
	for (i = 0; i < fs->n; i++) {
		const struct field *f = &fs->f[i];

		if (!f->key || !shown(f, when))
			continue;
		printf("%s\"%s\":", comma, f->key);
		json_value(f, r);
		comma = ",";
	}
	putchar('}');
}

void print_json(const struct perf_client *c, int err)
{
	const struct perf_opts *o = c->o;
	const struct fields *fs;
	unsigned int i, when;

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
	fs = row_fields(o, &when);
	for (i = 0; i < c->nrows; i++) {
		if (i)
			putchar(',');
		json_row(fs, when, &c->rows[i]);
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

/* One cell of the table: r's value, or the header when r is NULL. */
static void table_cell(const struct field *f, const struct row_result *r)
{
	char sz[32];

	if (!r) {
		printf("%*s", f->width, f->col);
		return;
	}
	switch (f->type) {
	case FIELD_U64:
		printf("%*" PRIu64, f->width, u64_at(f, r));
		break;
	case FIELD_SIZE:
		human_size(u64_at(f, r), sz, sizeof(sz));
		printf("%*s", f->width, sz);
		break;
	case FIELD_NS:
	case FIELD_NUM:
		printf("%*.*f", f->width, f->prec, num_of(f, r));
		break;
	case FIELD_BOOL:
		printf("%*s", f->width, f->words[bool_of(f, r)]);
		break;
	case FIELD_STR:
		printf("%*s", f->width, f->str(r));
		break;
	}
}

/* One line of the table: r's, or the header when r is NULL. */
static void table_line(const struct fields *fs, unsigned int when,
		       const struct row_result *r)
{
	bool first = true;
	size_t i;

	for (i = 0; i < fs->n; i++) {
		const struct field *f = &fs->f[i];

		if (!f->col || !shown(f, when))
			continue;
		if (!first)
			fputs(f->sep ? f->sep : " ", stdout);
		table_cell(f, r);
		first = false;
	}
	putchar('\n');
}

void print_human(const struct perf_client *c)
{
	const struct perf_opts *o = c->o;
	const struct fields *fs;
	unsigned int i, when;

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
	fs = row_fields(o, &when);
	table_line(fs, when, NULL);
	for (i = 0; i < c->nrows; i++)
		table_line(fs, when, &c->rows[i]);
	if (o->test == TEST_LAT)
		printf("(microseconds; first %u round trips are warm-up)\n",
		       PERF_WARMUP_ITERS);
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
