// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of daemon/qpset.h: the set of QP numbers mrcd's ticks walk.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "qpset.h"

/* The members in order, at the word edges and the last QP number. */
static void walks_members_in_order(void **state)
{
	static const uint32_t want[] = { 0, 63, 64, 127, 1000, MRC_MAX_QP - 1 };
	struct qpset s = {};
	uint32_t qpn, n = 0, i;

	(void)state;
	assert_int_equal(qpset_next(&s, 0), MRC_MAX_QP);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		qpset_add(&s, want[sizeof(want) / sizeof(want[0]) - 1 - i]);
	qpset_add(&s, MRC_MAX_QP); /* out of range: no member */
	qpset_each(&s, qpn)
	{
		assert_true(n < sizeof(want) / sizeof(want[0]));
		assert_int_equal(qpn, want[n]);
		n++;
	}
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	assert_int_equal(qpset_next(&s, 65), 127);
	assert_int_equal(qpset_next(&s, MRC_MAX_QP), MRC_MAX_QP);
	assert_true(qpset_has(&s, 64));
	assert_false(qpset_has(&s, 65));
	assert_false(qpset_has(&s, MRC_MAX_QP));
}

/* Removing the current member inside the walk skips nothing. */
static void removal_while_walking(void **state)
{
	struct qpset s = {};
	uint32_t qpn, n = 0;

	(void)state;
	for (qpn = 0; qpn < MRC_MAX_QP; qpn += 3)
		qpset_add(&s, qpn);
	qpset_each(&s, qpn)
	{
		assert_int_equal(qpn % 3, 0);
		qpset_del(&s, qpn);
		n++;
	}
	assert_int_equal(n, (MRC_MAX_QP + 2) / 3);
	assert_int_equal(qpset_next(&s, 0), MRC_MAX_QP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(walks_members_in_order),
		cmocka_unit_test(removal_while_walking),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
