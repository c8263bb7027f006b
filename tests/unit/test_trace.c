// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of mrcctl ev trace's pieces that need no device
 * (tools/mrcctl/trace_args.c over args.c): its words and each bad one
 * named, the hops an SRv6 EV's route names, the probe payload and its
 * token read back from a quote, and the rule that ends an ECMP trace at
 * the peer (two silent hops in a row: the first is the peer).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "mrcctl.h"
#include "mrcctl_stubs.h"
#include "trace.h"

/* parse "WORDS" (split at spaces) into o; the exit code */
static int parse(const char *words, struct trace_opts *o)
{
	struct args a;

	stub_args(&a, "ev trace", words);
	return trace_parse(&a, o);
}

static void words(void **state)
{
	struct trace_opts o;

	(void)state;
	assert_int_equal(parse("qp 7", &o), 0);
	assert_int_equal(o.qpn, 7);
	assert_int_equal(o.one, 0);
	assert_int_equal(o.max_hops, TRACE_HOPS_DEFAULT);
	assert_int_equal(o.probes, TRACE_PROBES_DEFAULT);
	assert_int_equal(o.timeout_ms, TRACE_TIMEOUT_DEFAULT);
	assert_int_equal(
		parse("qp 0x10 ev 63 max-hops 4 probes 1 timeout 250", &o), 0);
	assert_int_equal(o.qpn, 16);
	assert_int_equal(o.one, 1);
	assert_int_equal(o.idx, 63);
	assert_int_equal(o.max_hops, 4);
	assert_int_equal(o.probes, 1);
	assert_int_equal(o.timeout_ms, 250);
	/* Any order, prefixes. */
	assert_int_equal(parse("t 5 e 2 q 3 m 8 p 2", &o), 0);
	assert_int_equal(o.qpn, 3);
	assert_int_equal(o.idx, 2);
	assert_int_equal(o.max_hops, 8);
}

static void bad_words(void **state)
{
	static const struct {
		const char *words, *named;
	} cases[] = {
		{ "", "'ev trace' needs 'qp QPN'" },
		{ "ev 1", "'ev trace' needs 'qp QPN'" },
		{ "qp", "missing value for 'qp'" },
		{ "qp x1", "'x1'" },
		{ "qp 1 ev 256", "'256'" },
		{ "qp 1 max-hops 0", "'0'" },
		{ "qp 1 max-hops 65", "'65'" },
		{ "qp 1 probes 11", "'11'" },
		{ "qp 1 timeout 10001", "'10001'" },
		{ "qp 1 qp 2", "'qp' given twice" },
		{ "qp 1 hops 3", "unknown keyword 'hops'" },
	};
	struct trace_opts o;
	unsigned int i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(parse(cases[i].words, &o), MRCCTL_EXIT_USAGE);
		if (!strstr(last_err, cases[i].named))
			fail_msg("'%s': error '%s' does not name '%s'",
				 cases[i].words, last_err, cases[i].named);
	}
}

static void addr(const char *s, uint8_t *a)
{
	assert_int_equal(inet_pton(AF_INET6, s, a), 1);
}

static void srv6_hops(void **state)
{
	uint8_t v[MRC_CTL_EV_MAX_BYTES] = { 0 }, want[16];
	struct trace_hop h[8];
	int n;

	(void)state;
	/* Spine 2, then h2's leaf on plane 1: next hop, 0202, 1102. */
	addr("fdbb:bb00:202:1102::", v);
	n = trace_srv6_hops(v, h, 8);
	assert_int_equal(n, 3);
	assert_int_equal(h[0].hop, 1);
	assert_int_equal(h[0].what, TRACE_NEXT_HOP);
	assert_false(h[0].have_addr);
	assert_int_equal(h[1].hop, 2);
	assert_true(h[1].have_usid);
	assert_int_equal(h[1].usid, 0x0202);
	addr("fdbb:bb00:202::", want);
	assert_memory_equal(h[1].addr, want, 16);
	assert_int_equal(h[2].hop, 3);
	assert_int_equal(h[2].usid, 0x1102);
	addr("fdbb:bb00:1102::", want);
	assert_memory_equal(h[2].addr, want, 16);
	assert_string_equal(trace_what_name(h[2].what), "router");

	/* An SRH segment in another block: its uSIDs follow, its block. */
	addr("fdbb:bb00:203::", v + MRC_EV_SRV6_ADDR_BYTES);
	n = trace_srv6_hops(v, h, 8);
	assert_int_equal(n, 4);
	assert_int_equal(h[3].usid, 0x0203);
	addr("fdbb:bb00:203::", want);
	assert_memory_equal(h[3].addr, want, 16);
	/* Room for two: the next hop and the first uSID. */
	assert_int_equal(trace_srv6_hops(v, h, 2), 2);
	assert_int_equal(trace_srv6_hops(v, h, 0), 0);
}

static void payload(void **state)
{
	uint8_t buf[TRACE_PAYLOAD_LEN];
	uint32_t token = 0;

	(void)state;
	trace_payload(buf, TRACE_TOKEN(5, 2));
	/* A BTH no receiver takes: not WRITE, ACK, probe or control. */
	assert_int_equal(buf[0], TRACE_OPCODE);
	assert_int_equal(trace_payload_token(buf, sizeof(buf), &token), 0);
	assert_int_equal(TRACE_TOKEN_HOP(token), 5);
	assert_int_equal(TRACE_TOKEN_PROBE(token), 2);
	/* A router that quoted less, or something not ours. */
	assert_int_equal(trace_payload_token(buf, 8, &token), -1);
	buf[5] ^= 1;
	assert_int_equal(trace_payload_token(buf, sizeof(buf), &token), -1);
}

static int settle(struct trace_hop *h, int n, const enum trace_what *w,
		  uint32_t max, int *done)
{
	int i;

	for (i = 0; i < n; i++) {
		memset(&h[i], 0, sizeof(h[i]));
		h[i].hop = (uint32_t)i + 1;
		h[i].what = w[i];
	}
	return trace_settle(h, n, max, done);
}

static void settle_rule(void **state)
{
	static const enum trace_what routers[] = { TRACE_ROUTER, TRACE_ROUTER,
						   TRACE_SILENT };
	static const enum trace_what peer[] = { TRACE_ROUTER, TRACE_SILENT,
						TRACE_SILENT };
	static const enum trace_what hole[] = { TRACE_SILENT, TRACE_ROUTER };
	static const enum trace_what unreach[] = { TRACE_ROUTER,
						   TRACE_UNREACH };
	struct trace_hop h[4];
	int done, n;

	(void)state;
	/* One silent hop: maybe a router that sends no ICMP; go on. */
	n = settle(h, 3, routers, 16, &done);
	assert_int_equal(n, 3);
	assert_false(done);
	/* Two: the first is the peer, the second goes. */
	n = settle(h, 3, peer, 16, &done);
	assert_int_equal(n, 2);
	assert_true(done);
	assert_int_equal(h[1].what, TRACE_PEER);
	/* A silent router, then an answer: the trace goes on past it. */
	n = settle(h, 2, hole, 16, &done);
	assert_int_equal(n, 2);
	assert_false(done);
	assert_int_equal(h[0].what, TRACE_SILENT);
	n = settle(h, 2, unreach, 16, &done);
	assert_true(done);
	/* max-hops ends it whatever the last hop said. */
	n = settle(h, 3, routers, 3, &done);
	assert_int_equal(n, 3);
	assert_true(done);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(words),       cmocka_unit_test(bad_words),
		cmocka_unit_test(srv6_hops),   cmocka_unit_test(payload),
		cmocka_unit_test(settle_rule),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
