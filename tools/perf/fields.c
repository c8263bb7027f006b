// SPDX-License-Identifier: GPL-2.0
/*
 * The fields of the client's results (fields.h), in the order both
 * outputs print them.
 */
#include "fields.h"

#define OFF(m) offsetof(struct row_result, m)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A count: JSON integer, table %*PRIu64. */
#define U64(k, c, w, m, ...)                                          \
	{                                                             \
		.key = k, .col = c, .type = FIELD_U64, .off = OFF(m), \
		.width = w, __VA_ARGS__                               \
	}
/* Bytes, in the table as 1M or 64K when they are whole MiB or KiB. */
#define SIZE(k, c, w, m)                                               \
	{                                                              \
		.key = k, .col = c, .type = FIELD_SIZE, .off = OFF(m), \
		.width = w                                             \
	}
/* Nanoseconds at m, printed divided by d: JSON %.jp f, table %w.p f. */
#define NS(k, c, m, d, jp, w, p, ...)                                          \
	{                                                                      \
		.key = k, .col = c, .type = FIELD_NS, .off = OFF(m), .div = d, \
		.json_prec = jp, .width = w, .prec = p, __VA_ARGS__            \
	}
/* A figure computed from the row. */
#define NUM(k, c, fn, jp, w, p, ...)                                \
	{                                                           \
		.key = k, .col = c, .type = FIELD_NUM, .num = fn,   \
		.json_prec = jp, .width = w, .prec = p, __VA_ARGS__ \
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

static double client_msg_per_s(const struct row_result *r)
{
	return msg_per_s(r->msgs, r->elapsed_ns);
}

static double server_msg_per_s(const struct row_result *r)
{
	return msg_per_s(r->srv.recv_msgs, r->srv.elapsed_ns);
}

/* The server received every WRITE_IMM the client saw complete. */
static bool count_ok(const struct row_result *r)
{
	return r->srv.recv_msgs == r->msgs;
}

static const char *transport(const struct row_result *r)
{
	return r->transport == XPORT_TCP ? "tcp" : "mrc";
}

static const char *const ok_words[] = { "MISMATCH", "ok" };

static const struct field write_list[] = {
	SIZE("size_bytes", "size", 8, size_bytes),
	U64("msgs", "msgs", 10, msgs),
	NS("seconds", "seconds", elapsed_ns, 1e9, 6, 8, 3),
	NUM("gbit_per_s", "Gbit/s", gbit_per_s, 3, 9, 3),
	NUM("msg_per_s", "msg/s", client_msg_per_s, 1, 12, 0),
	U64("msgs_received", NULL, 0, srv.recv_msgs, .when = FIELD_IMM),
	NUM("server_msg_per_s", "rx msg/s", server_msg_per_s, 1, 12, 0,
	    .when = FIELD_IMM),
	{ .key = "count_ok",
	  .col = "rx count",
	  .type = FIELD_BOOL,
	  .yes = count_ok,
	  .width = 10,
	  .words = ok_words,
	  .when = FIELD_IMM },
	NS("server_cpu_s", "srv CPU s", srv.cpu_ns, 1e9, 6, 9, 3),
	NS("client_cpu_s", "cli CPU s", client_cpu_ns, 1e9, 6, 9, 3),
	U64("bad_bytes", "bad bytes", 10, srv.bad_bytes, .when = FIELD_VERIFY),
	U64("checked_bytes", NULL, 0, srv.checked_bytes, .when = FIELD_VERIFY),
	U64("send_errors", NULL, 0, srv.send_errors),
	U64("recv_errors", NULL, 0, srv.recv_errors),
	U64("rq_underflows", NULL, 0, srv.rq_underflows),
	{ .key = "time_limited", .type = FIELD_BOOL, .off = OFF(stopped) },
};

/* Round trips in us, and half of them: the one-way latency. */
static const struct field lat_list[] = {
	{ .key = "transport",
	  .col = "transport",
	  .type = FIELD_STR,
	  .str = transport,
	  .width = -9 },
	U64("size_bytes", "size", 6, size_bytes),
	U64("iters", NULL, 0, posted),
	U64("samples", "samples", 7, samples),
	NS("rtt_us_min", "RTT min", rtt_ns_min, 1e3, 3, 9, 2, .sep = "  "),
	NS("rtt_us_p50", "RTT p50", rtt_ns_p50, 1e3, 3, 9, 2),
	NS("rtt_us_p99", "RTT p99", rtt_ns_p99, 1e3, 3, 9, 2),
	NS("rtt_us_max", "RTT max", rtt_ns_max, 1e3, 3, 9, 2),
	NS("one_way_us_min", NULL, rtt_ns_min, 2e3, 3, 0, 0),
	NS("one_way_us_p50", "1-way p50", rtt_ns_p50, 2e3, 3, 9, 2,
	   .sep = "  "),
	NS("one_way_us_p99", "1-way p99", rtt_ns_p99, 2e3, 3, 9, 2),
	NS("one_way_us_max", NULL, rtt_ns_max, 2e3, 3, 0, 0),
	NS("server_cpu_s", NULL, srv.cpu_ns, 1e9, 6, 0, 0),
	NS("client_cpu_s", NULL, client_cpu_ns, 1e9, 6, 0, 0),
	{ .key = "time_limited", .type = FIELD_BOOL, .off = OFF(stopped) },
};

const struct fields write_fields = { write_list, ARRAY_SIZE(write_list) };
const struct fields lat_fields = { lat_list, ARRAY_SIZE(lat_list) };
