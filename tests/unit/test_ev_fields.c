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
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
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
	assert_int_equal(ev_fmt_mode_bits(SRV6), 256);
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

	/* Total width: STEV 32, UDP 16, SRV6 256. */
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
	ff[7].width = 17; /* 129: into the SRH segment */
	assert_int_equal(ev_fmt_check(SRV6, ff, 8), 0);
	for (i = 0; i < 8; i++)
		ff[i].width = 32;
	assert_int_equal(ev_fmt_check(SRV6, ff, 8), 0); /* 256 */
	ff[7].width = 33;
	assert_int_equal(ev_fmt_check(SRV6, ff, 8), -E2BIG);
	ff[0].width = 255;
	assert_int_equal(ev_fmt_check(SRV6, ff, 1), 0);
	ff[1].width = 2;
	assert_int_equal(ev_fmt_check(SRV6, ff, 2), -E2BIG); /* 257 */
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

/* ---- SRv6 ---------------------------------------------------------------- */

/* The 32 bytes of an SRv6 EV from its text: dst, and srh (or NULL). */
static void srv6_val(const char *dst, const char *srh,
		     uint8_t v[MRC_CTL_EV_MAX_BYTES])
{
	memset(v, 0, MRC_CTL_EV_MAX_BYTES);
	assert_int_equal(inet_pton(AF_INET6, dst, v), 1);
	if (srh)
		assert_int_equal(inet_pton(AF_INET6, srh, v + 16), 1);
}

static void assert_srv6(const uint8_t *got, const char *dst, const char *srh)
{
	uint8_t want[MRC_CTL_EV_MAX_BYTES];
	char s[MRC_EV_SRV6_STR_LEN];

	srv6_val(dst, srh, want);
	if (memcmp(got, want, sizeof(want))) {
		ev_srv6_str(got, s, sizeof(s));
		fail_msg("SRv6 EV %s, want %s%s%s", s, dst, srh ? " srh " : "",
			 srh ? srh : "");
	}
}

/*
 * The testbed's uSID plan (mrcctl ev-profile usid): F3216, block
 * fdbb:bb00, then the spine's uSID 0x02SS and the leaf's 0xP1HH. Format
 * 32+16+4+12, the rest of the address zero; spine 0..3 (mask 0xff), plane
 * 0..3 (mask 0xf), host 02's leaf digits 0x102. Compact: spine in bits
 * 11..4, plane in 3..0. Generated: plane fastest.
 */
static const struct mrc_ctl_ev_fmt_field usid_ff[] = { W(32), W(16), W(4),
						       W(12) };
static const struct mrc_ctl_ev_field usid_f[] = { F(32, 0xfdbbbb00, 0, 0, 0),
						  F(16, 0x0200, 0, 3, 0x00ff),
						  F(4, 0, 0, 3, 0xf),
						  F(12, 0x102, 0, 0, 0) };

static void srv6_usid_plan(void **state)
{
	uint8_t v[MRC_CTL_EV_MAX_BYTES], out[17][MRC_CTL_EV_MAX_BYTES];
	char want[64];
	int i;

	(void)state;
	assert_int_equal(ev_fmt_check(SRV6, usid_ff, 4), 0);
	assert_int_equal(ev_fields_check(usid_f, 4, usid_ff, 4), 0);
	assert_int_equal(ev_compact_bits(usid_f, 4), 12);
	assert_true(ev_gen_count(usid_f, 4) == 16);

	assert_int_equal(ev_expand_srv6(usid_f, 4, usid_ff, 4, 0x00, v), 0);
	assert_srv6(v, "fdbb:bb00:0200:0102::", NULL);
	assert_int_equal(ev_expand_srv6(usid_f, 4, usid_ff, 4, 0x01, v), 0);
	assert_srv6(v, "fdbb:bb00:0200:1102::", NULL);
	assert_int_equal(ev_expand_srv6(usid_f, 4, usid_ff, 4, 0x12, v), 0);
	assert_srv6(v, "fdbb:bb00:0201:2102::", NULL);
	assert_int_equal(ev_expand_srv6(usid_f, 4, usid_ff, 4, 0x33, v), 0);
	assert_srv6(v, "fdbb:bb00:0203:3102::", NULL);
	/* Bits above the 12 compact ones are ignored. */
	assert_int_equal(ev_expand_srv6(usid_f, 4, usid_ff, 4, 0xf033, v), 0);
	assert_srv6(v, "fdbb:bb00:0203:3102::", NULL);

	/* Generation: EV i is spine i / 4, plane i % 4. */
	memset(out, 0xee, sizeof(out));
	assert_int_equal(ev_generate_srv6(usid_f, 4, usid_ff, 4, out, 17), 16);
	for (i = 0; i < 16; i++) {
		snprintf(want, sizeof(want),
			 "fdbb:bb00:02%02x:%x102::", (unsigned int)i / 4,
			 (unsigned int)i % 4);
		assert_srv6(out[i], want, NULL);
		/* the expansion of its compact EV */
		assert_int_equal(ev_expand_srv6(usid_f, 4, usid_ff, 4,
						(uint32_t)(i / 4 << 4 | i % 4),
						v),
				 0);
		assert_memory_equal(v, out[i], sizeof(v));
	}
	assert_int_equal(out[16][0], 0xee); /* not written */
	assert_int_equal(ev_generate_srv6(usid_f, 4, usid_ff, 4, out, 3), 3);
	assert_int_equal(ev_generate_srv6(usid_f, 4, usid_ff, 4, out, 0), 0);

	/* The low 32 bits of the same fields, right-aligned: ev_expand
	 * stays defined for an SRV6 format (no shift reaches 64). */
	assert_int_equal(ev_expand(usid_f, 4, usid_ff, 4, 0x12), 0x02012102);
}

/*
 * A field that is the whole 32-bit block, every bit from the compact EV;
 * then 20 bits right-aligned in a 48-bit format field (bits 32..79): they
 * end at bit 79, so 0xabcde is the low nibble of group 3 and group 4.
 */
static void srv6_full_block(void **state)
{
	const struct mrc_ctl_ev_fmt_field ff[] = { W(32), W(48) };
	const struct mrc_ctl_ev_field f[] = {
		F(32, 0, 0, 0xffffffff, 0xffffffff), F(20, 0xabcde, 0, 0, 0)
	};
	uint8_t v[MRC_CTL_EV_MAX_BYTES];

	(void)state;
	assert_int_equal(ev_fields_check(f, 2, ff, 2), 0);
	assert_int_equal(ev_expand_srv6(f, 2, ff, 2, 0x20010db8, v), 0);
	assert_srv6(v, "2001:db8:0:a:bcde::", NULL);
	assert_int_equal(ev_expand_srv6(f, 2, ff, 2, 0xffffffff, v), 0);
	assert_srv6(v, "ffff:ffff:0:a:bcde::", NULL);
	assert_int_equal(ev_expand_srv6(f, 1, ff, 2, 0xfdbbbb00, v), 0);
	assert_srv6(v, "fdbb:bb00::", NULL);
}

/* A format of more than 128 bits: the rest lands in the SRH segment. */
static void srv6_srh_segment(void **state)
{
	/* dst fdbb:bb00:0200:1102:: then, from bit 128, segment
	 * fdbb:bb00:0203:2105:: : the path via spine 3 to leaf 2105. */
	const struct mrc_ctl_ev_fmt_field ff[] = { W(32), W(32), W(64),
						   W(32), W(16), W(16) };
	const struct mrc_ctl_ev_field f[] = {
		F(32, 0xfdbbbb00, 0, 0, 0), F(32, 0x02001102, 0, 0, 0),
		F(32, 0, 0, 0, 0),	    F(32, 0xfdbbbb00, 0, 0, 0),
		F(16, 0x0200, 0, 7, 0x7),   F(16, 0x2105, 0, 0, 0)
	};
	uint8_t v[MRC_CTL_EV_MAX_BYTES];
	char s[MRC_EV_SRV6_STR_LEN];

	(void)state;
	assert_int_equal(ev_fmt_width(ff, N(ff)), 192);
	assert_int_equal(ev_fmt_check(SRV6, ff, N(ff)), 0);
	assert_int_equal(ev_expand_srv6(f, N(f), ff, N(ff), 3, v), 0);
	assert_srv6(v, "fdbb:bb00:0200:1102::", "fdbb:bb00:0203:2105::");
	assert_true(ev_srv6_has_srh(v));
	assert_int_equal(ev_srv6_str(v, s, sizeof(s)), 0);
	assert_string_equal(s, "fdbb:bb00:200:1102:: srh fdbb:bb00:203:2105::");
	assert_int_equal(ev_srv6_usid_str(v, s, sizeof(s)), 0);
	assert_string_equal(s, "uSIDs 0200 1102 | 0203 2105");
	/* The full 256 bits: the last bit is byte 31's lowest. */
	{
		const struct mrc_ctl_ev_fmt_field ff8[] = { W(32), W(32), W(32),
							    W(32), W(32), W(32),
							    W(32), W(32) };
		const struct mrc_ctl_ev_field f8[] = {
			F(1, 1, 0, 0, 0), F(1, 0, 0, 0, 0), F(1, 0, 0, 0, 0),
			F(1, 0, 0, 0, 0), F(1, 0, 0, 0, 0), F(1, 0, 0, 0, 0),
			F(1, 0, 0, 0, 0), F(1, 0, 0, 1, 1)
		};

		assert_int_equal(ev_expand_srv6(f8, 8, ff8, 8, 1, v), 0);
		assert_int_equal(v[3], 1);
		assert_int_equal(v[31], 1);
		v[3] = v[31] = 0;
		assert_srv6(v, "::", NULL);
		assert_false(ev_srv6_has_srh(v));
	}
}

/* Widths that do not fill the address: the rest stays zero. */
static void srv6_short_format(void **state)
{
	const struct mrc_ctl_ev_fmt_field ff[] = { W(8), W(8) };
	const struct mrc_ctl_ev_field f[] = { F(8, 0xfd, 0, 0, 0),
					      F(4, 0x0, 0, 15, 0xf) };
	uint8_t v[MRC_CTL_EV_MAX_BYTES];
	char s[MRC_EV_SRV6_STR_LEN];

	(void)state;
	memset(v, 0xff, sizeof(v));
	assert_int_equal(ev_expand_srv6(f, 2, ff, 2, 0xa, v), 0);
	assert_srv6(v, "fd0a::", NULL);
	assert_int_equal(ev_expand_srv6(f, 1, ff, 2, 0xa, v), 0);
	assert_srv6(v, "fd00::", NULL);
	assert_int_equal(ev_srv6_str(v, s, sizeof(s)), 0);
	assert_string_equal(s, "fd00::");
	/* fd00:: : the uSID after its "block" is zero, the path empty. */
	assert_int_equal(ev_srv6_usid_str(v, s, sizeof(s)), 0);
	assert_string_equal(s, "uSIDs -");
}

static void srv6_errors(void **state)
{
	const struct mrc_ctl_ev_fmt_field wide[] = { W(255), W(2) };
	const struct mrc_ctl_ev_fmt_field ff[] = { W(16) };
	const struct mrc_ctl_ev_field f1[] = { F(16, 0, 0, 0, 0) };
	const struct mrc_ctl_ev_field f2[] = { F(16, 0, 0, 0, 0),
					       F(2, 0, 0, 0, 0) };
	const struct mrc_ctl_ev_field bad[] = { F(16, 0, 0, 0, 0x10000) };
	/* 33 mask bits: the compact EV is 32 bits at most. */
	const struct mrc_ctl_ev_fmt_field ff2[] = { W(32), W(32) };
	const struct mrc_ctl_ev_field many[] = { F(32, 0, 0, 0, 0xffffffff),
						 F(1, 0, 0, 0, 1) };
	uint8_t v[MRC_CTL_EV_MAX_BYTES], out[2][MRC_CTL_EV_MAX_BYTES];

	(void)state;
	/* Too wide: 257 bits. */
	memset(v, 0xff, sizeof(v));
	assert_int_equal(ev_expand_srv6(f2, 2, wide, 2, 0, v), -E2BIG);
	assert_int_equal(v[0], 0); /* zeroed */
	assert_int_equal(ev_generate_srv6(f2, 2, wide, 2, out, 2), -E2BIG);
	assert_int_equal(ev_expand_srv6(many, 2, ff2, 2, 0, v), -E2BIG);
	/* More fields than the format. */
	assert_int_equal(ev_expand_srv6(f2, 2, ff, 1, 0, v), -E2BIG);
	assert_int_equal(ev_expand_srv6(bad, 1, ff, 1, 0, v), -EINVAL);
	assert_int_equal(ev_expand_srv6(f1, 0, ff, 1, 0, v), -EINVAL);
	assert_int_equal(ev_expand_srv6(f1, 1, ff, 0, 0, v), -EINVAL);
	assert_int_equal(ev_expand_srv6(f1, 1, ff, 1, 0, v), 0);
}

static void srv6_text(void **state)
{
	uint8_t v[MRC_CTL_EV_MAX_BYTES];
	uint16_t usid[MRC_EV_SRV6_USIDS];
	char s[MRC_EV_SRV6_STR_LEN], tiny[8];

	(void)state;
	srv6_val("fdbb:bb00:0200:1102::", NULL, v);
	assert_false(ev_srv6_has_srh(v));
	assert_int_equal(ev_srv6_str(v, s, sizeof(s)), 0);
	assert_string_equal(s, "fdbb:bb00:200:1102::");
	assert_int_equal(ev_srv6_usid_str(v, s, sizeof(s)), 0);
	assert_string_equal(s, "uSIDs 0200 1102");
	assert_int_equal(ev_srv6_usids(v, usid), 2);
	assert_int_equal(usid[0], 0x0200);
	assert_int_equal(usid[1], 0x1102);

	/* Six uSIDs fill the container; the list stops at a zero one. */
	srv6_val("fdbb:bb00:1:2:3:4:5:6", NULL, v);
	assert_int_equal(ev_srv6_usids(v, usid), 6);
	assert_int_equal(usid[5], 6);
	assert_int_equal(ev_srv6_usid_str(v, s, sizeof(s)), 0);
	assert_string_equal(s, "uSIDs 0001 0002 0003 0004 0005 0006");
	srv6_val("fdbb:bb00:1:0:3::", NULL, v);
	assert_int_equal(ev_srv6_usids(v, usid), 1);

	/* An SRH segment with no uSIDs is still there. */
	srv6_val("fdbb:bb00:0200:1102::", "fdbb:bb00::", v);
	assert_int_equal(ev_srv6_str(v, s, sizeof(s)), 0);
	assert_string_equal(s, "fdbb:bb00:200:1102:: srh fdbb:bb00::");
	assert_int_equal(ev_srv6_usid_str(v, s, sizeof(s)), 0);
	assert_string_equal(s, "uSIDs 0200 1102 | -");

	/* The longest of both fits MRC_EV_SRV6_STR_LEN. */
	memset(v, 0xff, sizeof(v));
	assert_int_equal(ev_srv6_str(v, s, sizeof(s)), 0);
	assert_int_equal(ev_srv6_usid_str(v, s, sizeof(s)), 0);
	srv6_val("1111:2222:3333:4444:5555:6666:7777:8888",
		 "1111:2222:3333:4444:5555:6666:7777:8888", v);
	assert_int_equal(ev_srv6_str(v, s, sizeof(s)), 0);

	/* Too short: -ENOSPC, what fits, NUL-terminated. */
	assert_int_equal(ev_srv6_str(v, tiny, sizeof(tiny)), -ENOSPC);
	assert_string_equal(tiny, "1111:22");
	assert_int_equal(ev_srv6_usid_str(v, tiny, sizeof(tiny)), -ENOSPC);
	assert_string_equal(tiny, "uSIDs 3");
	assert_int_equal(ev_srv6_str(v, tiny, 0), -ENOSPC);
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
		cmocka_unit_test(srv6_usid_plan),
		cmocka_unit_test(srv6_full_block),
		cmocka_unit_test(srv6_srh_segment),
		cmocka_unit_test(srv6_short_format),
		cmocka_unit_test(srv6_errors),
		cmocka_unit_test(srv6_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
