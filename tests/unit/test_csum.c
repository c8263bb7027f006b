// SPDX-License-Identifier: GPL-2.0
/* Unit tests of lib/common/csum.c against worked examples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "csum.h"

/* RFC 1071 section 3: words 0001 f203 f4f5 f6f7 sum to 2ddf0 -> ddf2. */
static void rfc1071_example(void **state)
{
	const uint8_t b[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };

	(void)state;
	assert_int_equal(mrc_csum_fold(mrc_csum_add(0, b, sizeof(b))),
			 (uint16_t)~0xddf2);
}

/* A textbook IPv4 header whose checksum is b861. */
static void ipv4_header(void **state)
{
	uint8_t h[] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40,
			0x00, 0x40, 0x11, 0x00, 0x00, 0xc0, 0xa8,
			0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7 };

	(void)state;
	assert_int_equal(mrc_csum(h, sizeof(h)), 0xb861);
	h[10] = 0xb8;
	h[11] = 0x61;
	assert_int_equal(mrc_csum(h, sizeof(h)), 0);
}

/* An odd tail is padded with zero; pieces of even length chain. */
static void odd_and_chained(void **state)
{
	const uint8_t b[] = { 0x12, 0x34, 0x56, 0x78, 0x9a };
	uint64_t s;

	(void)state;
	assert_int_equal(mrc_csum(b, 5),
			 (uint16_t) ~(0x1234 + 0x5678 + 0x9a00 - 0xffff));
	s = mrc_csum_add(0, b, 2);
	s = mrc_csum_add(s, b + 2, 3);
	assert_int_equal(mrc_csum_fold(s), mrc_csum(b, 5));
}

/* Carries beyond 32 bits fold correctly: 100000 words of ffff. */
static void many_carries(void **state)
{
	static uint8_t b[200000];

	(void)state;
	memset(b, 0xff, sizeof(b));
	assert_int_equal(mrc_csum(b, sizeof(b)), 0);
	assert_int_equal(mrc_csum(b, 0), 0xffff);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfc1071_example),
		cmocka_unit_test(ipv4_header),
		cmocka_unit_test(odd_and_chained),
		cmocka_unit_test(many_carries),
	};

	return cmocka_run_group_tests_name("csum", tests, NULL, NULL);
}
