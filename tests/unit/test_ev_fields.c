// SPDX-License-Identifier: GPL-2.0
/*
 * EV field expansion (lib/common/ev_fields.c) against vectors worked by
 * hand in the comments. Profiles named after an OCP example take its
 * configuration from the public OCP-Multipath-Reliable-Connection
 * repository: examples/ev_expansion/ev_expansion.c (which picks its EVs at
 * random, so the compact EVs here are ours) and examples/mrc_ctl_gen_ev.md.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "mrc/ev_fields.h"

#define STEV MRC_CTL_EV_FMT_MODE_STEV
#define SRV6 MRC_CTL_EV_FMT_MODE_SRV6
#define UDP MRC_CTL_EV_FMT_MODE_UDP

/* One profile field: width, init_val, min_val, max_val, mask. */
#define F(w, i, lo, hi, m)                                      \
	{                                                       \
		.width = (w), .init_val = (i), .min_val = (lo), \
		.max_val = (hi), .mask = (m)                    \
	}
#define W(w)                 \
	{                    \
		.width = (w) \
	}
#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static void mode_bits(void **state)
{
	(void)state;
	assert_int_equal(ev_fmt_mode_bits(UDP), 16);
	assert_int_equal(ev_fmt_mode_bits(STEV), 32);
	assert_int_equal(ev_fmt_mode_bits(SRV6), 128);
	assert_int_equal(ev_fmt_mode_bits(0), 0);
	assert_int_equal(ev_fmt_mode_bits(STEV | SRV6), 0);
	assert_int_equal(ev_fmt_mode_bits(1 << 3), 0);
}

/* ev_expansion.c stev_exp: two whole 16-bit fields, STEV 16+16. */
static void stev_16_16(void **state)
{
	const struct mrc_ctl_ev_fmt_field ff[] = { W(16), W(16) };
	const struct mrc_ctl_ev_field f[] = { F(16, 0, 0, 0, 0xffff),
					      F(16, 0, 0, 0, 0xffff) };

	(void)state;
	assert_int_equal(ev_fmt_check(STEV, ff, N(ff)), 0);
	assert_int_equal(ev_fields_check(f, N(f), ff, N(ff)), 0);
	assert_int_equal(ev_compact_bits(f, N(f)), 32);
	/* Field 0 takes the top 16 compact bits 0x1234 and goes to bits
	 * 31..16; field 1 takes 0xabcd: the EV comes out unchanged. */
	assert_int_equal(ev_expand(f, N(f), ff, N(ff), 0x1234abcd), 0x1234abcd);
}

/* ev_expansion.c stev_gen_with_fixed: init (i + 1) << 8, mask 0xf. */
static void fixed_high_bits(void **state)
{
	const struct mrc_ctl_ev_fmt_field ff[] = { W(16), W(16) };
	const struct mrc_ctl_ev_field f[] = { F(16, 0x0100, 1, 0xf, 0x000f),
					      F(16, 0x0200, 1, 0xf, 0x000f) };

	(void)state;
	assert_int_equal(ev_fields_check(f, N(f), ff, N(ff)), 0);
	assert_int_equal(ev_compact_bits(f, N(f)), 8);
	/* Compact 0x3a (8 bits): field 0 gets 0x3 -> 0x0103, field 1 gets
	 * 0xa -> 0x020a; 0x0103 << 16 | 0x020a. */
	assert_int_equal(ev_expand(f, N(f), ff, N(ff), 0x3a), 0x0103020a);
	/* Bits from 8 up are not part of the compact EV. */
	assert_int_equal(ev_expand(f, N(f), ff, N(ff), 0xffffff3a), 0x0103020a);
}

/* ev_expansion.c stev_gen_with_fixed_weird_mask: mask 0x0f0f. */
static void noncontiguous_mask(void **state)
{
	const struct mrc_ctl_ev_fmt_field ff[] = { W(16), W(16) };
	const struct mrc_ctl_ev_field f[] = { F(16, 0x1000, 1, 0xff, 0x0f0f),
					      F(16, 0x2000, 1, 0xff, 0x0f0f) };

	(void)state;
	assert_int_equal(ev_fields_check(f, N(f), ff, N(ff)), 0);
	assert_int_equal(ev_compact_bits(f, N(f)), 16);
	/* Compact 0xa53c: field 0 gets 0xa5 = 1010 0101, its first four
	 * bits into mask bits 11..8, the last four into 3..0: 0x1000 |
	 * 0x0a00 | 0x0005 = 0x1a05. Field 1 gets 0x3c: 0x2000 | 0x0300 |
	 * 0x000c = 0x230c. */
	assert_int_equal(ev_expand(f, N(f), ff, N(ff), 0xa53c), 0x1a05230c);
}

/* UDP, one 16-bit field, mask bits 15, 10, 5, 0 over init 0xffff. */
static void udp_sparse_mask(void **state)
{
	const struct mrc_ctl_ev_fmt_field ff[] = { W(16) };
	const struct mrc_ctl_ev_field f[] = { F(16, 0xffff, 0, 0xf, 0x8421) };

	(void)state;
	assert_int_equal(ev_fmt_check(UDP, ff, N(ff)), 0);
	assert_int_equal(ev_fields_check(f, N(f), ff, N(ff)), 0);
	/* Compact 1100: bit 15 <- 1, bit 10 <- 1, bit 5 <- 0, bit 0 <- 0.
	 * 0xffff & ~0x8421 = 0x7bde; | 0x8000 | 0x0400 = 0xffde. (Filling
	 * the mask from its lowest bit up would give 0x7bff.) */
	assert_int_equal(ev_expand(f, N(f), ff, N(ff), 0xc), 0xffde);
	/* Compact 0110: bits 10 and 5: 0x7bde | 0x0420 = 0x7ffe. */
	assert_int_equal(ev_expand(f, N(f), ff, N(ff), 0x6), 0x7ffe);
	assert_int_equal(ev_expand(f, N(f), ff, N(ff), 0x0), 0x7bde);
}

/*
 * Profile fields narrower than their format fields (ev_expansion.c
 * srv6_gen does this with 4-bit fields in 16-bit uSIDs): right-aligned,
 * the spare high bits zero.
 */
static void narrow_fields_zero_filled(void **state)
{
	const struct mrc_ctl_ev_fmt_field ff[] = { W(16), W(16) };
	const struct mrc_ctl_ev_field f[] = { F(4, 0, 1, 0xf, 0xf),
					      F(12, 0xabc, 0, 0, 0) };

	(void)state;
	assert_int_equal(ev_fields_check(f, N(f), ff, N(ff)), 0);
	/* Compact 0x5 (4 bits): field 0 = 0x0005 in bits 31..16, field 1
	 * the fixed 0x0abc in bits 15..0. */
	assert_int_equal(ev_expand(f, N(f), ff, N(ff), 0x5), 0x00050abc);
}

/*
 * Fewer profile fields than format fields (ev_expansion.c
 * srv6_exp_subset: 3 of 5): the format fields left out stay zero, and
 * the others keep their place.
 */
static void fewer_fields_than_format(void **state)
{
	const struct mrc_ctl_ev_fmt_field ff[] = { W(8), W(8), W(16) };
	const struct mrc_ctl_ev_field f[] = { F(8, 0, 0, 0xff, 0xff),
					      F(8, 0x42, 0, 0, 0) };

	(void)state;
	assert_int_equal(ev_fmt_check(STEV, ff, N(ff)), 0);
	assert_int_equal(ev_fields_check(f, N(f), ff, N(ff)), 0);
	/* 0x9d in bits 31..24, 0x42 in 23..16, format field 2 zero. */
	assert_int_equal(ev_expand(f, N(f), ff, N(ff), 0x9d), 0x9d420000);
}

/* A fixed field between two generated ones, STEV 4+12+16. */
static void fixed_field_between(void **state)
{
	const struct mrc_ctl_ev_fmt_field ff[] = { W(4), W(12), W(16) };
	const struct mrc_ctl_ev_field f[] = { F(4, 0x8, 0, 3, 0x3),
					      F(12, 0x123, 0, 0, 0),
					      F(16, 0, 0, 0xff, 0x00ff) };

	(void)state;
	assert_int_equal(ev_fields_check(f, N(f), ff, N(ff)), 0);
	assert_int_equal(ev_compact_bits(f, N(f)), 10);
	/* Compact 0x2c5 = 10 1100 0101: field 0 gets 10 -> 0x8 | 0x2 = 0xa
	 * (bits 31..28), field 1 is 0x123 (27..16), field 2 gets 0xc5. */
	assert_int_equal(ev_expand(f, N(f), ff, N(ff), 0x2c5), 0xa12300c5);
}

/* ev_expansion.c stev_gen_2: one 32-bit field, and a partial 32-bit mask. */
static void width_32(void **state)
{
	const struct mrc_ctl_ev_fmt_field ff[] = { W(32) };
	const struct mrc_ctl_ev_field all[] = { F(32, 0, 0, 0, 0xffffffff) };
	const struct mrc_ctl_ev_field mid[] = { F(32, 0x80000001, 0, 0x3fffffff,
						  0x7ffffffe) };

	(void)state;
	assert_int_equal(ev_fields_check(all, 1, ff, 1), 0);
	assert_int_equal(ev_compact_bits(all, 1), 32);
	assert_int_equal(ev_expand(all, 1, ff, 1, 0xdeadbeef), 0xdeadbeef);
	assert_int_equal(ev_expand(all, 1, ff, 1, 0), 0);
	/* 30 mask bits, 30..1: compact 0x2aaaaaaa lands as 0x55555554,
	 * over init's bits 31 and 0: 0xd5555555. */
	assert_int_equal(ev_fields_check(mid, 1, ff, 1), 0);
	assert_int_equal(ev_expand(mid, 1, ff, 1, 0x2aaaaaaa), 0xd5555555);
}

/*
 * mrc_ctl_gen_ev.md's STEV profile: format 8+4+4, every bit generated,
 * 256 * 16 * 16 = 65536 EVs. Here in a UDP format (16 bits) too. With
 * every min_val 0, EV n is compact n: T0 in bits 15..8, T1 7..4, T2 3..0.
 */
static void gen_ev_md_profile(void **state)
{
	const struct mrc_ctl_ev_fmt_field ff[] = { W(8), W(4), W(4) };
	const struct mrc_ctl_ev_field f[] = { F(8, 0, 0, 255, 0xff),
					      F(4, 0, 0, 15, 0x0f),
					      F(4, 0, 0, 15, 0x0f) };
	static uint32_t out[65536 + 1];
	unsigned int i;

	(void)state;
	assert_int_equal(ev_fmt_check(STEV, ff, N(ff)), 0);
	assert_int_equal(ev_fmt_check(UDP, ff, N(ff)), 0);
	assert_int_equal(ev_fields_check(f, N(f), ff, N(ff)), 0);
	assert_true(ev_gen_count(f, N(f)) == 65536);
	/* T0 = 0xb4 = 180, T1 = 0x7, T2 = 0x1. */
	assert_int_equal(ev_expand(f, N(f), ff, N(ff), 0xb471), 0xb471);
	out[65536] = 0x5a5a5a5a;
	assert_int_equal(ev_generate(f, N(f), ff, N(ff), out, 65536 + 1),
			 65536);
	assert_int_equal(out[0], 0x0000);
	assert_int_equal(out[1], 0x0001); /* T2 counts fastest */
	assert_int_equal(out[16], 0x0010); /* T2 wrapped, T1 = 1 */
	assert_int_equal(out[256], 0x0100); /* T1 wrapped, T0 = 1 */
	assert_int_equal(out[46193], 0xb471); /* 180 * 256 + 7 * 16 + 1 */
	assert_int_equal(out[65535], 0xffff);
	for (i = 0; i < 65536; i++)
		if (out[i] != i)
			fail_msg("EV %u is 0x%x", i, out[i]);
	assert_int_equal(out[65536], 0x5a5a5a5a); /* not written */
}

/*
 * Generation with min_val > 0 and a fixed field, STEV 8+8+8 (24 bits):
 * field 0 init 0x10, mask 0x03, 1..2; field 1 fixed 0x5a; field 2 mask
 * 0x0c (bits 3..2), 1..3. 2 * 3 = 6 EVs, field 2 fastest:
 * (1,1) 0x11 5a 04, (1,2) 0x11 5a 08, (1,3) 0x11 5a 0c,
 * (2,1) 0x12 5a 04, (2,2) 0x12 5a 08, (2,3) 0x12 5a 0c.
 */
static void generate_min_above_zero(void **state)
{
	const struct mrc_ctl_ev_fmt_field ff[] = { W(8), W(8), W(8) };
	const struct mrc_ctl_ev_field f[] = { F(8, 0x10, 1, 2, 0x03),
					      F(8, 0x5a, 0, 0, 0),
					      F(8, 0, 1, 3, 0x0c) };
	const uint32_t want[] = { 0x115a04, 0x115a08, 0x115a0c,
				  0x125a04, 0x125a08, 0x125a0c };
	uint32_t out[8];
	int i;

	(void)state;
	assert_int_equal(ev_fields_check(f, N(f), ff, N(ff)), 0);
	assert_true(ev_gen_count(f, N(f)) == 6);
	for (i = 0; i < N(out); i++)
		out[i] = 0xeeeeeeee;
	assert_int_equal(ev_generate(f, N(f), ff, N(ff), out, N(out)), 6);
	for (i = 0; i < 6; i++)
		assert_int_equal(out[i], want[i]);
	assert_int_equal(out[6], 0xeeeeeeee);
	/* The generated EV is the expansion of its compact EV: (1,1) is
	 * compact 01 01 = 0x5, (2,3) is 10 11 = 0xb. */
	assert_int_equal(ev_expand(f, N(f), ff, N(ff), 0x5), want[0]);
	assert_int_equal(ev_expand(f, N(f), ff, N(ff), 0xb), want[5]);

	/* Only the first max are written. */
	for (i = 0; i < N(out); i++)
		out[i] = 0xeeeeeeee;
	assert_int_equal(ev_generate(f, N(f), ff, N(ff), out, 4), 4);
	for (i = 0; i < 4; i++)
		assert_int_equal(out[i], want[i]);
	assert_int_equal(out[4], 0xeeeeeeee);
	assert_int_equal(ev_generate(f, N(f), ff, N(ff), out, 1), 1);
	assert_int_equal(out[0], 0x115a04);
	assert_int_equal(ev_generate(f, N(f), ff, N(ff), out, 0), 0);
	assert_int_equal(ev_generate(f, N(f), ff, N(ff), out, -1), 0);
}

/* No mask bits anywhere: one EV, the fixed value. */
static void generate_all_fixed(void **state)
{
	const struct mrc_ctl_ev_fmt_field ff[] = { W(16) };
	const struct mrc_ctl_ev_field f[] = { F(16, 0xbeef, 0, 0, 0) };
	uint32_t out[3] = { 0, 0, 0 };

	(void)state;
	assert_int_equal(ev_fields_check(f, 1, ff, 1), 0);
	assert_int_equal(ev_compact_bits(f, 1), 0);
	assert_true(ev_gen_count(f, 1) == 1);
	assert_int_equal(ev_generate(f, 1, ff, 1, out, 3), 1);
	assert_int_equal(out[0], 0xbeef);
	assert_int_equal(out[1], 0);
	assert_int_equal(ev_expand(f, 1, ff, 1, 0xffffffff), 0xbeef);
}

static void gen_count(void **state)
{
	/* mrc_ctl_gen_ev.md's SRv6 profile: a fixed 32-bit locator and
	 * four uSIDs with 8 generated bits each: 256^4 = 2^32 (the
	 * example's comment says 65536, counting 16 values per uSID). */
	const struct mrc_ctl_ev_field srv6[] = { F(32, 0xdeadcafe, 0, 0, 0),
						 F(16, 0x100, 0, 255, 0xff),
						 F(16, 0x200, 0, 255, 0xff),
						 F(16, 0x300, 0, 255, 0xff),
						 F(16, 0x400, 0, 255, 0xff) };
	/* 2^32 values twice: 2^64 does not fit. */
	const struct mrc_ctl_ev_field over[] = {
		F(32, 0, 0, 0xffffffff, 0xffffffff),
		F(32, 0, 0, 0xffffffff, 0xffffffff),
		F(32, 0, 0, 0xffffffff, 0xffffffff)
	};
	/* 2^32 * (2^32 - 1) = 2^64 - 2^32 still does. */
	const struct mrc_ctl_ev_field under[] = {
		F(32, 0, 0, 0xffffffff, 0xffffffff),
		F(32, 0, 1, 0xffffffff, 0xffffffff)
	};
	/* min 3..7: 5; a field without mask bits counts once, whatever its
	 * (invalid) max_val. */
	const struct mrc_ctl_ev_field ranged[] = { F(8, 0, 3, 7, 0x7),
						   F(8, 0, 0, 9, 0) };

	(void)state;
	assert_true(ev_gen_count(srv6, N(srv6)) == UINT64_C(4294967296));
	assert_true(ev_gen_count(under, 2) == UINT64_C(0xffffffff00000000));
	assert_true(ev_gen_count(over, 2) == UINT64_MAX);
	assert_true(ev_gen_count(over, 3) == UINT64_MAX); /* stays there */
	assert_true(ev_gen_count(over, 1) == UINT64_C(4294967296));
	assert_true(ev_gen_count(ranged, 2) == 5);
	assert_true(ev_gen_count(ranged, 0) == 1);
}

static void compact_bits(void **state)
{
	const struct mrc_ctl_ev_field f[] = { F(16, 0, 0, 0, 0x0f0f),
					      F(16, 0, 0, 0, 0x8421),
					      F(16, 0, 0, 0, 0),
					      F(32, 0, 0, 0, 0xffffffff) };

	(void)state;
	/* 8 + 4 + 0 + 32 (more than a compact EV holds: not capped). */
	assert_int_equal(ev_compact_bits(f, 4), 44);
	assert_int_equal(ev_compact_bits(f, 0), 0);
}

static void fmt_width(void **state)
{
	const struct mrc_ctl_ev_fmt_field ff[] = { W(8), W(4), W(4) };
	const struct mrc_ctl_ev_fmt_field big[] = { W(255), W(255), W(255),
						    W(255), W(255), W(255),
						    W(255), W(255) };

	(void)state;
	assert_int_equal(ev_fmt_width(ff, 3), 16);
	assert_int_equal(ev_fmt_width(big, 8), 2040); /* not 8-bit */
	assert_int_equal(ev_fmt_width(ff, 0), 0);
}

static void fmt_check_errors(void **state)
{
	const struct mrc_ctl_ev_fmt_field ok[] = { W(8), W(4), W(4) };
	struct mrc_ctl_ev_fmt_field ff[9];
	int i;

	(void)state;
	/* Mode. */
	assert_int_equal(ev_fmt_check(0, ok, 3), -EINVAL);
	assert_int_equal(ev_fmt_check(STEV | UDP, ok, 3), -EINVAL);
	assert_int_equal(ev_fmt_check(1 << 3, ok, 3), -EINVAL);

	/* Field count: 1..8. */
	assert_int_equal(ev_fmt_check(STEV, ok, 0), -EINVAL);
	assert_int_equal(ev_fmt_check(STEV, ok, -1), -EINVAL);
	assert_int_equal(ev_fmt_check(STEV, ok, 1), 0);
	for (i = 0; i < 9; i++)
		ff[i] = (struct mrc_ctl_ev_fmt_field)W(4);
	assert_int_equal(ev_fmt_check(STEV, ff, 8), 0); /* 32 bits */
	for (i = 0; i < 9; i++)
		ff[i] = (struct mrc_ctl_ev_fmt_field)W(1);
	assert_int_equal(ev_fmt_check(STEV, ff, 9), -E2BIG);

	/* A zero width, anywhere. */
	ff[3].width = 0;
	assert_int_equal(ev_fmt_check(STEV, ff, 8), -EINVAL);
	ff[3].width = 1;
	assert_int_equal(ev_fmt_check(STEV, ff, 8), 0);

	/* Total width: STEV 32, UDP 16, SRV6 128. */
	ff[0].width = 16;
	ff[1].width = 16;
	assert_int_equal(ev_fmt_check(STEV, ff, 2), 0);
	ff[1].width = 17;
	assert_int_equal(ev_fmt_check(STEV, ff, 2), -E2BIG);
	ff[0].width = 8;
	ff[1].width = 8;
	assert_int_equal(ev_fmt_check(UDP, ff, 2), 0);
	ff[1].width = 9;
	assert_int_equal(ev_fmt_check(UDP, ff, 2), -E2BIG);
	for (i = 0; i < 8; i++)
		ff[i].width = 16;
	assert_int_equal(ev_fmt_check(SRV6, ff, 8), 0); /* 128 */
	ff[7].width = 17;
	assert_int_equal(ev_fmt_check(SRV6, ff, 8), -E2BIG);
	ff[0].width = 255;
	assert_int_equal(ev_fmt_check(SRV6, ff, 1), -E2BIG);
	ff[0].width = 128;
	assert_int_equal(ev_fmt_check(SRV6, ff, 1), 0);
	for (i = 0; i < 8; i++)
		ff[i].width = 255; /* 2040 bits: must not wrap to 248 */
	assert_int_equal(ev_fmt_check(SRV6, ff, 8), -E2BIG);
}

static void fields_check_errors(void **state)
{
	const struct mrc_ctl_ev_fmt_field ff2[] = { W(16), W(16) };
	const struct mrc_ctl_ev_fmt_field ff32[] = { W(32) };
	const struct mrc_ctl_ev_fmt_field ff40[] = { W(40) };
	const struct mrc_ctl_ev_fmt_field ff48[] = { W(16), W(16), W(16) };
	struct mrc_ctl_ev_fmt_field ff9[9];
	struct mrc_ctl_ev_field f[9];
	int i;

	(void)state;
	for (i = 0; i < 9; i++) {
		ff9[i] = (struct mrc_ctl_ev_fmt_field)W(1);
		f[i] = (struct mrc_ctl_ev_field)F(1, 0, 0, 1, 1);
	}
	/* Field count: 1..min(nff, 8). */
	assert_int_equal(ev_fields_check(f, 0, ff9, 8), -EINVAL);
	assert_int_equal(ev_fields_check(f, -1, ff9, 8), -EINVAL);
	assert_int_equal(ev_fields_check(f, 8, ff9, 8), 0);
	assert_int_equal(ev_fields_check(f, 3, ff9, 2), -E2BIG);
	assert_int_equal(ev_fields_check(f, 2, ff9, 2), 0);
	assert_int_equal(ev_fields_check(f, 9, ff9, 9), -E2BIG);

	/* Width: 1..32 and within the format field. */
	f[0] = (struct mrc_ctl_ev_field)F(0, 0, 0, 0, 0);
	assert_int_equal(ev_fields_check(f, 1, ff2, 2), -EINVAL);
	f[0].width = 1;
	assert_int_equal(ev_fields_check(f, 1, ff2, 2), 0);
	f[0].width = 16;
	assert_int_equal(ev_fields_check(f, 1, ff2, 2), 0);
	f[0].width = 17;
	assert_int_equal(ev_fields_check(f, 1, ff2, 2), -EINVAL);
	f[0].width = 32;
	assert_int_equal(ev_fields_check(f, 1, ff32, 1), 0);
	assert_int_equal(ev_fields_check(f, 1, ff40, 1), 0);
	f[0].width = 33; /* the format field allows it, a uint32_t not */
	assert_int_equal(ev_fields_check(f, 1, ff40, 1), -EINVAL);
	/* The second field is checked against the second format field. */
	f[0] = (struct mrc_ctl_ev_field)F(16, 0, 0, 0, 0);
	f[1] = (struct mrc_ctl_ev_field)F(17, 0, 0, 0, 0);
	assert_int_equal(ev_fields_check(f, 2, ff2, 2), -EINVAL);

	/* init_val fits in width. */
	f[0] = (struct mrc_ctl_ev_field)F(8, 0xff, 0, 0, 0);
	assert_int_equal(ev_fields_check(f, 1, ff2, 2), 0);
	f[0].init_val = 0x100;
	assert_int_equal(ev_fields_check(f, 1, ff2, 2), -EINVAL);
	f[0] = (struct mrc_ctl_ev_field)F(32, 0xffffffff, 0, 0, 0);
	assert_int_equal(ev_fields_check(f, 1, ff32, 1), 0);

	/* mask within width; sparse masks are fine. */
	f[0] = (struct mrc_ctl_ev_field)F(8, 0, 0, 0, 0xff);
	assert_int_equal(ev_fields_check(f, 1, ff2, 2), 0);
	f[0].mask = 0x81;
	assert_int_equal(ev_fields_check(f, 1, ff2, 2), 0);
	f[0].mask = 0x100;
	assert_int_equal(ev_fields_check(f, 1, ff2, 2), -EINVAL);
	f[0].mask = 0x1ff;
	assert_int_equal(ev_fields_check(f, 1, ff2, 2), -EINVAL);

	/* max_val < 2^popcount(mask): mask 0x0f0f has 8 bits. */
	f[0] = (struct mrc_ctl_ev_field)F(16, 0, 0, 0xff, 0x0f0f);
	assert_int_equal(ev_fields_check(f, 1, ff2, 2), 0);
	f[0].max_val = 0x100;
	assert_int_equal(ev_fields_check(f, 1, ff2, 2), -EINVAL);
	f[0] = (struct mrc_ctl_ev_field)F(32, 0, 0, 0xffffffff, 0xffffffff);
	assert_int_equal(ev_fields_check(f, 1, ff32, 1), 0);
	/* Without mask bits: min and max both 0. */
	f[0] = (struct mrc_ctl_ev_field)F(16, 0x1234, 0, 0, 0);
	assert_int_equal(ev_fields_check(f, 1, ff2, 2), 0);
	f[0].max_val = 1;
	assert_int_equal(ev_fields_check(f, 1, ff2, 2), -EINVAL);
	f[0].min_val = 1;
	assert_int_equal(ev_fields_check(f, 1, ff2, 2), -EINVAL);
	f[0].max_val = 0;
	assert_int_equal(ev_fields_check(f, 1, ff2, 2), -EINVAL);

	/* min_val <= max_val. */
	f[0] = (struct mrc_ctl_ev_field)F(8, 0, 5, 5, 0x0f);
	assert_int_equal(ev_fields_check(f, 1, ff2, 2), 0);
	f[0].min_val = 6;
	assert_int_equal(ev_fields_check(f, 1, ff2, 2), -EINVAL);

	/* At most 32 compact bits; an SRv6 format has room for more. */
	f[0] = (struct mrc_ctl_ev_field)F(16, 0, 0, 0, 0xffff);
	f[1] = (struct mrc_ctl_ev_field)F(16, 0, 0, 0, 0xffff);
	f[2] = (struct mrc_ctl_ev_field)F(16, 0, 0, 0, 0);
	assert_int_equal(ev_fmt_check(SRV6, ff48, 3), 0);
	assert_int_equal(ev_fields_check(f, 3, ff48, 3), 0);
	f[2].mask = 0x8000;
	assert_int_equal(ev_fields_check(f, 3, ff48, 3), -E2BIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mode_bits),
		cmocka_unit_test(stev_16_16),
		cmocka_unit_test(fixed_high_bits),
		cmocka_unit_test(noncontiguous_mask),
		cmocka_unit_test(udp_sparse_mask),
		cmocka_unit_test(narrow_fields_zero_filled),
		cmocka_unit_test(fewer_fields_than_format),
		cmocka_unit_test(fixed_field_between),
		cmocka_unit_test(width_32),
		cmocka_unit_test(gen_ev_md_profile),
		cmocka_unit_test(generate_min_above_zero),
		cmocka_unit_test(generate_all_fixed),
		cmocka_unit_test(gen_count),
		cmocka_unit_test(compact_bits),
		cmocka_unit_test(fmt_width),
		cmocka_unit_test(fmt_check_errors),
		cmocka_unit_test(fields_check_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
