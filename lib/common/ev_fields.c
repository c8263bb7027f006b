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
 *
 * An SRv6 EV is up to 256 bits, an IPv6 address and one SRH segment: its
 * fields are laid into a byte string from the top bit of byte 0, the way
 * an SRv6 format describes an address (block first).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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
		return MRC_EV_SRV6_BITS;
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
		/*
		 * Only the low 32 bits are kept: a field that starts above
		 * them (an SRV6 format's) adds nothing, and is skipped so
		 * that a shift never reaches 64.
		 */
		if (pos >= 32)
			continue;
		/* Right-aligned in its format field: spare high bits zero. */
		out |= (uint64_t)deposit(f[i].init_val, f[i].mask, v[i]) << pos;
	}
	return (uint32_t)out;
}

/* Each field's compact value, v[i], of compact EV c. */
static void split(const struct mrc_ctl_ev_field *f, int nf, uint32_t c,
		  uint32_t v[MRC_EV_MAX_FIELDS])
{
	unsigned int left = ev_compact_bits(f, nf), n;
	int i;

	for (i = 0; i < nf && i < MRC_EV_MAX_FIELDS; i++) {
		n = __builtin_popcount(f[i].mask);
		left -= n;
		v[i] = (uint32_t)((uint64_t)c >> left) & low_bits(n);
	}
}

uint32_t ev_expand(const struct mrc_ctl_ev_field *f, int nf,
		   const struct mrc_ctl_ev_fmt_field *ff, int nff,
		   uint32_t compact)
{
	uint32_t v[MRC_EV_MAX_FIELDS] = { 0 };

	split(f, nf, compact, v);
	return place(f, nf, ff, nff, v);
}

/* The w low bits of v into out at bit off from the top of out[0]. */
static void put_bits(uint8_t *out, unsigned int off, unsigned int w, uint32_t v)
{
	unsigned int k, bit;

	for (k = 0; k < w; k++) {
		bit = off + k;
		if ((v >> (w - 1 - k)) & 1)
			out[bit / 8] |= (uint8_t)(0x80u >> (bit % 8));
	}
}

/* place() for SRv6: from the top bit of out[0] (checked fields). */
static void place_srv6(const struct mrc_ctl_ev_field *f, int nf,
		       const struct mrc_ctl_ev_fmt_field *ff, const uint32_t *v,
		       uint8_t out[MRC_CTL_EV_MAX_BYTES])
{
	unsigned int pos = 0;
	int i;

	memset(out, 0, MRC_CTL_EV_MAX_BYTES);
	for (i = 0; i < nf; i++) {
		/* Right-aligned in its format field: spare high bits zero. */
		put_bits(out, pos + ff[i].width - f[i].width, f[i].width,
			 deposit(f[i].init_val, f[i].mask, v[i]));
		pos += ff[i].width;
	}
}

/* What ev_expand_srv6() and ev_generate_srv6() accept. */
static int srv6_check(const struct mrc_ctl_ev_field *f, int nf,
		      const struct mrc_ctl_ev_fmt_field *ff, int nff)
{
	int err = ev_fmt_check(MRC_CTL_EV_FMT_MODE_SRV6, ff, nff);

	return err ? err : ev_fields_check(f, nf, ff, nff);
}

int ev_expand_srv6(const struct mrc_ctl_ev_field *f, int nf,
		   const struct mrc_ctl_ev_fmt_field *ff, int nff,
		   uint32_t compact, uint8_t out[MRC_CTL_EV_MAX_BYTES])
{
	uint32_t v[MRC_EV_MAX_FIELDS] = { 0 };
	int err = srv6_check(f, nf, ff, nff);

	if (err) {
		memset(out, 0, MRC_CTL_EV_MAX_BYTES);
		return err;
	}
	split(f, nf, compact, v);
	place_srv6(f, nf, ff, v, out);
	return 0;
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

/*
 * The fields' next values in generation order, the last field with mask
 * bits counting fastest; 0 once every field has wrapped (all made).
 */
static int gen_next(const struct mrc_ctl_ev_field *f, int nf, uint32_t *v)
{
	int i;

	for (i = nf - 1; i >= 0; i--) {
		if (!f[i].mask)
			continue;
		if (v[i] < f[i].max_val) {
			v[i]++;
			return 1;
		}
		v[i] = f[i].min_val;
	}
	return 0;
}

/* The first values generation gives the fields; 0 when it makes none. */
static int gen_first(const struct mrc_ctl_ev_field *f, int nf, uint32_t *v,
		     int max)
{
	int i;

	if (max < 1 || ev_gen_count(f, nf) == 0)
		return 0;
	for (i = 0; i < nf; i++)
		v[i] = f[i].mask ? f[i].min_val : 0;
	return 1;
}

int ev_generate(const struct mrc_ctl_ev_field *f, int nf,
		const struct mrc_ctl_ev_fmt_field *ff, int nff, uint32_t *out,
		int max)
{
	uint32_t v[MRC_EV_MAX_FIELDS];
	int n = 0;

	if (nf > MRC_EV_MAX_FIELDS)
		nf = MRC_EV_MAX_FIELDS;
	if (!gen_first(f, nf, v, max))
		return 0;
	do
		out[n++] = place(f, nf, ff, nff, v);
	while (n < max && gen_next(f, nf, v));
	return n;
}

int ev_generate_srv6(const struct mrc_ctl_ev_field *f, int nf,
		     const struct mrc_ctl_ev_fmt_field *ff, int nff,
		     uint8_t (*out)[MRC_CTL_EV_MAX_BYTES], int max)
{
	uint32_t v[MRC_EV_MAX_FIELDS];
	int n = 0, err = srv6_check(f, nf, ff, nff);

	if (err)
		return err;
	if (!gen_first(f, nf, v, max))
		return 0;
	do
		place_srv6(f, nf, ff, v, out[n++]);
	while (n < max && gen_next(f, nf, v));
	return n;
}

/* ---- SRv6 EVs as text ---------------------------------------------------- */

int ev_srv6_has_srh(const uint8_t v[MRC_CTL_EV_MAX_BYTES])
{
	int i;

	for (i = MRC_EV_SRV6_ADDR_BYTES; i < MRC_CTL_EV_MAX_BYTES; i++)
		if (v[i])
			return 1;
	return 0;
}

int ev_srv6_usids(const uint8_t addr[MRC_EV_SRV6_ADDR_BYTES],
		  uint16_t usid[MRC_EV_SRV6_USIDS])
{
	const uint8_t *p = addr + MRC_EV_SRV6_BLOCK_BYTES;
	int n;

	for (n = 0; n < MRC_EV_SRV6_USIDS; n++, p += 2) {
		usid[n] = (uint16_t)(p[0] << 8 | p[1]);
		if (!usid[n])
			break; /* End of Carrier: the rest is not path */
	}
	return n;
}

/* s appended to buf at *at; -ENOSPC once it no longer fits. */
static int put(char *buf, size_t len, size_t *at, const char *s)
{
	int n = snprintf(buf + *at, len - *at, "%s", s);

	if (n < 0 || (size_t)n >= len - *at) {
		*at = len ? len - 1 : 0;
		return -ENOSPC;
	}
	*at += (size_t)n;
	return 0;
}

int ev_srv6_str(const uint8_t v[MRC_CTL_EV_MAX_BYTES], char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];
	size_t at = 0;
	int err;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	inet_ntop(AF_INET6, v, a, sizeof(a));
	err = put(buf, len, &at, a);
	if (err || !ev_srv6_has_srh(v))
		return err;
	inet_ntop(AF_INET6, v + MRC_EV_SRV6_ADDR_BYTES, a, sizeof(a));
	err = put(buf, len, &at, " srh ");
	return err ? err : put(buf, len, &at, a);
}

/* " 0200 1102" (or " -" for none): the uSIDs of container addr. */
static int put_usids(char *buf, size_t len, size_t *at, const uint8_t *addr)
{
	uint16_t usid[MRC_EV_SRV6_USIDS];
	int i, n = ev_srv6_usids(addr, usid), err = 0;
	char s[8];

	if (!n)
		return put(buf, len, at, " -");
	for (i = 0; !err && i < n; i++) {
		snprintf(s, sizeof(s), " %04x", usid[i]);
		err = put(buf, len, at, s);
	}
	return err;
}

int ev_srv6_usid_str(const uint8_t v[MRC_CTL_EV_MAX_BYTES], char *buf,
		     size_t len)
{
	size_t at = 0;
	int err;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	err = put(buf, len, &at, "uSIDs");
	if (!err)
		err = put_usids(buf, len, &at, v);
	if (err || !ev_srv6_has_srh(v))
		return err;
	err = put(buf, len, &at, " |");
	return err ? err : put_usids(buf, len, &at, v + MRC_EV_SRV6_ADDR_BYTES);
}
