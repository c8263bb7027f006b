// SPDX-License-Identifier: GPL-2.0
/*
 * EV field expansion (OCP MRC 1.0 controller API, EV profiles). A compact
 * EV is read from its most significant used bit down: field 0 takes the
 * first popcount(mask 0) bits, field 1 the next, and so on. Inside a field
 * the bits land in the mask's bits from the highest one down. The fields
 * then sit side by side at the format's widths, field 0 highest.
 *
 * Values of up to 32 bits are shifted in 64-bit variables throughout: a
 * 32-bit field or a 32-bit compact EV would otherwise need a shift by 32,
 * which C leaves undefined.
 */
#include <errno.h>
#include <stdint.h>

#include "mrc/ev_fields.h"

/* The n low bits set, for n in 0..32. */
static uint32_t low_bits(unsigned int n)
{
	return (uint32_t)((UINT64_C(1) << n) - 1);
}

unsigned int ev_fmt_mode_bits(enum mrc_ctl_ev_fmt_mode mode)
{
	switch (mode) {
	case MRC_CTL_EV_FMT_MODE_UDP:
		return 16;
	case MRC_CTL_EV_FMT_MODE_STEV:
		return 32;
	case MRC_CTL_EV_FMT_MODE_SRV6:
		return 128;
	}
	return 0;
}

int ev_fmt_check(enum mrc_ctl_ev_fmt_mode mode,
		 const struct mrc_ctl_ev_fmt_field *ff, int nff)
{
	unsigned int bits = ev_fmt_mode_bits(mode);
	int i;

	if (!bits)
		return -EINVAL;
	if (nff > MRC_EV_FMT_MAX_FIELDS)
		return -E2BIG;
	if (nff < 1 || !ff)
		return -EINVAL;
	for (i = 0; i < nff; i++)
		if (!ff[i].width)
			return -EINVAL;
	if (ev_fmt_width(ff, nff) > bits)
		return -E2BIG;
	return 0;
}

unsigned int ev_fmt_width(const struct mrc_ctl_ev_fmt_field *ff, int nff)
{
	unsigned int w = 0;
	int i;

	/* At most 8 fields of 255 bits: no overflow. */
	for (i = 0; i < nff; i++)
		w += ff[i].width;
	return w;
}

static int field_check(const struct mrc_ctl_ev_field *f,
		       const struct mrc_ctl_ev_fmt_field *ff)
{
	uint32_t in_width;

	if (f->width < 1 || f->width > 32 || f->width > ff->width)
		return -EINVAL;
	in_width = low_bits(f->width);
	if (f->init_val & ~in_width || f->mask & ~in_width)
		return -EINVAL;
	/* With no mask bits this allows 0 only: a fixed field. */
	if (f->max_val > low_bits(__builtin_popcount(f->mask)))
		return -EINVAL;
	if (f->min_val > f->max_val)
		return -EINVAL;
	return 0;
}

int ev_fields_check(const struct mrc_ctl_ev_field *f, int nf,
		    const struct mrc_ctl_ev_fmt_field *ff, int nff)
{
	int i, err;

	if (nf > nff || nf > MRC_EV_MAX_FIELDS)
		return -E2BIG;
	if (nf < 1 || !f || !ff)
		return -EINVAL;
	for (i = 0; i < nf; i++) {
		err = field_check(&f[i], &ff[i]);
		if (err)
			return err;
	}
	/* The compact EV is a uint32_t (SRv6 formats can ask for more). */
	if (ev_compact_bits(f, nf) > 32)
		return -E2BIG;
	return 0;
}

unsigned int ev_compact_bits(const struct mrc_ctl_ev_field *f, int nf)
{
	unsigned int n = 0;
	int i;

	for (i = 0; i < nf; i++)
		n += __builtin_popcount(f[i].mask);
	return n;
}

/*
 * v's bits into mask's bits, v's lowest into mask's lowest set bit; so
 * v's highest used bit lands in mask's highest bit. The rest of the field
 * keeps init_val.
 */
static uint32_t deposit(uint32_t init_val, uint32_t mask, uint32_t v)
{
	uint32_t out = init_val & ~mask;
	uint32_t m;

	for (m = mask; m; m &= m - 1) {
		if (v & 1)
			out |= m & -m; /* the lowest bit left in m */
		v >>= 1;
	}
	return out;
}

/* The expanded EV when field i's compact value is v[i]. */
static uint32_t place(const struct mrc_ctl_ev_field *f, int nf,
		      const struct mrc_ctl_ev_fmt_field *ff, int nff,
		      const uint32_t *v)
{
	unsigned int pos = ev_fmt_width(ff, nff);
	uint64_t out = 0;
	int i;

	for (i = 0; i < nf && i < nff; i++) {
		pos -= ff[i].width;
		/* Right-aligned in its format field: spare high bits zero. */
		out |= (uint64_t)deposit(f[i].init_val, f[i].mask, v[i]) << pos;
	}
	return (uint32_t)out;
}

uint32_t ev_expand(const struct mrc_ctl_ev_field *f, int nf,
		   const struct mrc_ctl_ev_fmt_field *ff, int nff,
		   uint32_t compact)
{
	uint32_t v[MRC_EV_MAX_FIELDS] = { 0 };
	unsigned int left = ev_compact_bits(f, nf), n;
	int i;

	for (i = 0; i < nf && i < MRC_EV_MAX_FIELDS; i++) {
		n = __builtin_popcount(f[i].mask);
		left -= n;
		v[i] = (uint32_t)((uint64_t)compact >> left) & low_bits(n);
	}
	return place(f, nf, ff, nff, v);
}

uint64_t ev_gen_count(const struct mrc_ctl_ev_field *f, int nf)
{
	uint64_t count = 1, n;
	int i;

	for (i = 0; i < nf; i++) {
		if (!f[i].mask)
			continue;
		if (f[i].max_val < f[i].min_val)
			return 0;
		n = (uint64_t)f[i].max_val - f[i].min_val + 1;
		if (count > UINT64_MAX / n)
			count = UINT64_MAX;
		else
			count *= n;
	}
	return count;
}

int ev_generate(const struct mrc_ctl_ev_field *f, int nf,
		const struct mrc_ctl_ev_fmt_field *ff, int nff, uint32_t *out,
		int max)
{
	uint32_t v[MRC_EV_MAX_FIELDS];
	int n = 0, i;

	if (nf > MRC_EV_MAX_FIELDS)
		nf = MRC_EV_MAX_FIELDS;
	if (max < 1 || ev_gen_count(f, nf) == 0)
		return 0;
	for (i = 0; i < nf; i++)
		v[i] = f[i].mask ? f[i].min_val : 0;
	for (;;) {
		out[n++] = place(f, nf, ff, nff, v);
		if (n == max)
			return n;
		/* Next: the last field with mask bits counts fastest. */
		for (i = nf - 1; i >= 0; i--) {
			if (!f[i].mask)
				continue;
			if (v[i] < f[i].max_val) {
				v[i]++;
				break;
			}
			v[i] = f[i].min_val;
		}
		if (i < 0)
			return n; /* every field wrapped: all made */
	}
}
