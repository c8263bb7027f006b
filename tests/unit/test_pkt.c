// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the test packet builder (tests/lib/pkt.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pkt.h"

static void ipv4_udp_layout(void **state)
{
	static struct pkt p;

	(void)state;
	pkt_init(&p);
	pkt_eth(&p, PKT_MAC_B, PKT_MAC_A);
	pkt_ipv4(&p, "198.18.0.2", "198.18.1.2", 0x02);
	pkt_udp(&p, 20000, 4791);
	pkt_pattern(&p, 10, 3);
	p.udp_csum = 1;
	pkt_finish(&p);
	assert_int_equal(p.len, 14 + 20 + 8 + 10);
	assert_int_equal(p.data[12], 0x08);
	assert_int_equal(p.data[14 + 2] << 8 | p.data[14 + 3],
			 38); /* tot_len */
	assert_int_equal(p.data[34 + 4] << 8 | p.data[34 + 5],
			 18); /* udp len */
	assert_int_equal(p.data[34] << 8 | p.data[35], 20000);
	assert_int_equal(p.payload_off, 42);
	assert_int_equal(p.data[42 + 1], 10); /* 3 + 1 * 7 */
	assert_int_equal(pkt_tclass(p.data), 0x02);
	assert_int_equal(pkt_ttl(p.data), 64);
	assert_int_equal(pkt_verify_csums(p.data, p.len), 0);
	p.data[45] ^= 1;
	assert_int_not_equal(pkt_verify_csums(p.data, p.len), 0);
}

static void ipv6_udp_layout(void **state)
{
	static struct pkt p;

	(void)state;
	pkt_init(&p);
	pkt_eth(&p, PKT_MAC_B, PKT_MAC_A);
	pkt_ipv6(&p, "fd00::1", "fd00::2", 0xb9);
	pkt_udp(&p, 1, 2);
	pkt_pattern(&p, 33, 0);
	pkt_finish(&p);
	assert_int_equal(p.len, 14 + 40 + 8 + 33);
	assert_int_equal(p.data[12] << 8 | p.data[13], 0x86dd);
	assert_int_equal(p.data[14 + 4] << 8 | p.data[14 + 5], 41);
	assert_int_equal(pkt_tclass(p.data), 0xb9);
	assert_int_equal(p.data[14] >> 4, 6);
	/* IPv6 always carries a UDP checksum, and it must verify. */
	assert_true(p.data[54 + 6] || p.data[54 + 7]);
	assert_int_equal(pkt_verify_csums(p.data, p.len), 0);
	pkt_set_ttl(&p, 9);
	assert_int_equal(pkt_ttl(p.data), 9);
}

/* The BTH lands at the UDP payload, big endian, as IBTA lays it out. */
static void bth_layout(void **state)
{
	static struct pkt p;
	const uint8_t *b;

	(void)state;
	pkt_init(&p);
	pkt_eth(&p, PKT_MAC_B, PKT_MAC_A);
	pkt_ipv4(&p, "198.18.0.2", "198.18.1.2", 0);
	pkt_udp(&p, 49152, 4791);
	pkt_bth(&p, 0x0a, 0x123456, 0xabcdef, 1);
	pkt_finish(&p);
	b = p.data + 42;
	assert_int_equal(p.len, 42 + 12);
	assert_int_equal(b[0], 0x0a);
	assert_int_equal(b[2] << 8 | b[3], 0xffff);
	assert_int_equal(b[4], 0);
	assert_int_equal(b[5] << 16 | b[6] << 8 | b[7], 0x123456);
	assert_int_equal(b[8], 0x80);
	assert_int_equal(b[9] << 16 | b[10] << 8 | b[11], 0xabcdef);
	/* Values wider than 24 bits are cut, not spilled into neighbours. */
	pkt_init(&p);
	pkt_bth(&p, 0, 0xff000001, 0x7f000002, 0);
	assert_int_equal(p.data[4], 0);
	assert_int_equal(p.data[7], 1);
	assert_int_equal(p.data[8], 0);
	assert_int_equal(p.data[11], 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ipv4_udp_layout),
		cmocka_unit_test(ipv6_udp_layout),
		cmocka_unit_test(bth_layout),
	};

	return cmocka_run_group_tests_name("pkt", tests, NULL, NULL);
}
