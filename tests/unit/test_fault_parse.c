// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the fault argument parsers (tests/fabric/fault_parse.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fabric_abi.h"
#include "fault_parse.h"

static void probabilities(void **state)
{
	uint32_t p;

	(void)state;
	assert_int_equal(fault_parse_prob("0", &p), 0);
	assert_int_equal(p, FAB_PROB_NEVER);
	assert_int_equal(fault_parse_prob("1", &p), 0);
	assert_int_equal(p, FAB_PROB_ALWAYS);
	assert_int_equal(fault_parse_prob("100%", &p), 0);
	assert_int_equal(p, FAB_PROB_ALWAYS);
	assert_int_equal(fault_parse_prob("0.5", &p), 0);
	assert_int_equal(p, 0x80000000u);
	assert_int_equal(fault_parse_prob("25%", &p), 0);
	assert_int_equal(p, 0x40000000u);
	assert_int_equal(fault_parse_prob("2%", &p), 0);
	assert_true(fault_prob_value(p) > 0.0199 &&
		    fault_prob_value(p) < 0.0201);
}

static void bad_probabilities(void **state)
{
	const char *bad[] = { "",     "x", "-0.1", "1.5", "101%",
			      "0.5x", "%", "nan",  "2%%" };
	uint32_t p = 7;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(fault_parse_prob(bad[i], &p), -EINVAL);
	assert_int_equal(fault_parse_prob(NULL, &p), -EINVAL);
	assert_int_equal(p, 7); /* untouched on error */
}

struct collect {
	uint16_t ports[16];
	int n;
};

static int collect(uint16_t port, void *arg)
{
	struct collect *c = arg;

	if (c->n == 16)
		return -E2BIG;
	c->ports[c->n++] = port;
	return 0;
}

static void port_lists(void **state)
{
	struct collect c = {};

	(void)state;
	assert_int_equal(fault_parse_ports("20000-20002,30000,1", collect, &c),
			 0);
	assert_int_equal(c.n, 5);
	assert_int_equal(c.ports[0], 20000);
	assert_int_equal(c.ports[2], 20002);
	assert_int_equal(c.ports[3], 30000);
	assert_int_equal(c.ports[4], 1);
	memset(&c, 0, sizeof(c));
	assert_int_equal(fault_parse_ports("65535", collect, &c), 0);
	assert_int_equal(c.ports[0], 65535);
}

static void bad_port_lists(void **state)
{
	const char *bad[] = { "",   "0", "65536", "1-",	 "-5",
			      "5,", "a", "1,,2",  "1 2", "99-100x" };
	struct collect c = {};
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(fault_parse_ports(bad[i], collect, &c),
				 -EINVAL);
	assert_int_equal(fault_parse_ports("200-100", collect, &c), -ERANGE);
	/* The callback's error stops the walk and comes back. */
	c.n = 0;
	assert_int_equal(fault_parse_ports("1-100", collect, &c), -E2BIG);
	assert_int_equal(c.n, 16);
}

static void rates(void **state)
{
	uint64_t r;

	(void)state;
	assert_int_equal(fault_parse_rate("200mbit", &r), 0);
	assert_int_equal(r, 25000000);
	assert_int_equal(fault_parse_rate("1gbit", &r), 0);
	assert_int_equal(r, 125000000);
	assert_int_equal(fault_parse_rate("1.5Mbit", &r), 0);
	assert_int_equal(r, 187500);
	assert_int_equal(fault_parse_rate("800kbit", &r), 0);
	assert_int_equal(r, 100000);
	assert_int_equal(fault_parse_rate("8bit", &r), 0);
	assert_int_equal(r, 1);
	assert_int_equal(fault_parse_rate("10mbps", &r), 0);
	assert_int_equal(r, 10000000);
}

static void bad_rates(void **state)
{
	const char *bad[] = { "",     "200",	"mbit",	 "-1mbit", "1mbitx",
			      "4bit", "nanbit", "2tbps", "101gbit" };
	uint64_t r = 7;
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(fault_parse_rate(bad[i], &r), -EINVAL);
	assert_int_equal(fault_parse_rate(NULL, &r), -EINVAL);
	assert_int_equal(r, 7); /* untouched on error */
}

static void sizes(void **state)
{
	uint32_t b = 0;

	(void)state;
	assert_int_equal(fault_parse_bytes("65536", 1u << 30, &b), 0);
	assert_int_equal(b, 65536);
	assert_int_equal(fault_parse_bytes("64k", 1u << 30, &b), 0);
	assert_int_equal(b, 65536);
	assert_int_equal(fault_parse_bytes("64kb", 1u << 30, &b), 0);
	assert_int_equal(b, 65536);
	assert_int_equal(fault_parse_bytes("2M", 1u << 30, &b), 0);
	assert_int_equal(b, 2u << 20);
	assert_int_equal(fault_parse_bytes("0", 1u << 30, &b), 0);
	assert_int_equal(b, 0);
	b = 7;
	assert_int_equal(fault_parse_bytes("", 100, &b), -EINVAL);
	assert_int_equal(fault_parse_bytes("-1", 100, &b), -EINVAL);
	assert_int_equal(fault_parse_bytes("12x", 100, &b), -EINVAL);
	assert_int_equal(fault_parse_bytes("1kk", 1u << 30, &b), -EINVAL);
	assert_int_equal(fault_parse_bytes("101", 100, &b), -ERANGE);
	assert_int_equal(fault_parse_bytes("1k", 1000, &b), -ERANGE);
	assert_int_equal(fault_parse_bytes("99999999999999999999", ~0ull, &b),
			 -ERANGE);
	assert_int_equal(b, 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(probabilities),
		cmocka_unit_test(bad_probabilities),
		cmocka_unit_test(port_lists),
		cmocka_unit_test(bad_port_lists),
		cmocka_unit_test(rates),
		cmocka_unit_test(bad_rates),
		cmocka_unit_test(sizes),
	};

	return cmocka_run_group_tests_name("fault_parse", tests, NULL, NULL);
}
