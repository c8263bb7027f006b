/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains EV field expansion and validation (OCP MRC 1.0
 * controller API, EV profiles): how a compact EV becomes the value written
 * into packets, which field sets a format and a profile accept, and the
 * EVs a generated profile enumerates. Pure functions, shared by mrcd
 * (which applies them), libmrc and mrcctl (ev expand).
 */
#ifndef MRC_EV_FIELDS_H
#define MRC_EV_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "mrc_ctl.h"

#define MRC_EV_FMT_MAX_FIELDS 8 /* fields in one EV format profile */
#define MRC_EV_MAX_FIELDS 8 /* fields in one EV profile */

/*
 * An SRv6 EV (mode SRV6) is MRC_CTL_EV_MAX_BYTES bytes, network order:
 * bytes 0..15 the outer IPv6 destination address (a uSID container),
 * bytes 16..31 a single SRH segment, all zero for none (no SRH).
 */
#define MRC_EV_SRV6_BITS (MRC_CTL_EV_MAX_BYTES * 8)
#define MRC_EV_SRV6_ADDR_BYTES 16 /* the destination, and the segment */
#define MRC_EV_SRV6_BLOCK_BYTES 4 /* F3216 (RFC 9800): a 32-bit block */
/* 16-bit uSIDs in one container after the block */
#define MRC_EV_SRV6_USIDS \
	((MRC_EV_SRV6_ADDR_BYTES - MRC_EV_SRV6_BLOCK_BYTES) / 2)
/* Room for ev_srv6_str() and ev_srv6_usid_str() text, NUL included. */
#define MRC_EV_SRV6_STR_LEN 128

/*
 * Bits an EV format mode carries in a packet: UDP 16 (the source port),
 * STEV 32 (source port and 16 bits of the IPv6 flow label), SRV6 256 (the
 * outer destination address and one SRH segment). 0 for anything else.
 */
unsigned int ev_fmt_mode_bits(enum mrc_ctl_ev_fmt_mode mode);

/*
 * A format's fields: 0; -EINVAL (unknown mode, no field, a zero width);
 * -E2BIG (more than MRC_EV_FMT_MAX_FIELDS, or wider than the mode carries).
 */
int ev_fmt_check(enum mrc_ctl_ev_fmt_mode mode,
		 const struct mrc_ctl_ev_fmt_field *ff, int nff);

/* Total width of a format, in bits. */
unsigned int ev_fmt_width(const struct mrc_ctl_ev_fmt_field *ff, int nff);

/*
 * A profile's fields against its (valid) format: 0; -EINVAL (no field, a
 * width of 0 or over 32, a field wider than its format field, init_val or
 * mask outside width, max_val wider than mask's bit count (so 0 without
 * mask bits), min_val > max_val); -E2BIG (more fields than the format, or
 * than MRC_EV_MAX_FIELDS; more than 32 mask bits in all, which only an
 * SRv6 format leaves room for). A profile may have fewer fields than its
 * format: the format fields it leaves out stay zero.
 */
int ev_fields_check(const struct mrc_ctl_ev_field *f, int nf,
		    const struct mrc_ctl_ev_fmt_field *ff, int nff);

/* Bits of a compact EV under these fields: the mask bits, added up. */
unsigned int ev_compact_bits(const struct mrc_ctl_ev_field *f, int nf);

/*
 * The expanded EV of a compact one (fields and a STEV or UDP format
 * already checked; under an SRV6 format, which may be wider than 32 bits,
 * it is the low 32 bits of the value laid out as below, and the EV itself
 * is ev_expand_srv6()'s), the steps of struct mrc_ctl_ev_field in
 * mrc_ctl.h:
 *  - the compact EV is a number right-aligned to C = ev_compact_bits()
 *    bits; bits from C up are ignored. "The next most significant bit" is
 *    read from bit C-1 down: field 0 takes the top popcount(mask 0) bits,
 *    field 1 the next, and so on. (The OCP example, ev_expansion.c, reads
 *    a byte string from the top bit of byte 0; the order is the same.)
 *  - within a field those bits fill the mask's set bits from the highest
 *    down, over init_val; so the field's compact value v, read as a
 *    number, lands with its lowest bit in the mask's lowest bit.
 *  - field i is right-aligned in format field i (the spare high bits
 *    zero), format field 0 the most significant, and the whole value
 *    right-aligned to ev_fmt_width(): a format of 8+4+4 bits gives a
 *    16-bit value with field 0 in bits 15..8. Format fields past nf are 0.
 * The OCP examples keep an expanded EV as a bit string from the top bit of
 * byte 0, so a 16-bit one fills bytes 0 and 1 (and mrc_ctl_gen_ev.md finds
 * its 8-bit field 0 in val & 0xff of a little-endian load); here it is a
 * number, right-aligned, in host order (mrc_ctl.h), field 0 in bits 15..8.
 */
uint32_t ev_expand(const struct mrc_ctl_ev_field *f, int nf,
		   const struct mrc_ctl_ev_fmt_field *ff, int nff,
		   uint32_t compact);

/*
 * How many EVs generation makes: the product of (max - min + 1) over the
 * fields that have mask bits (1 when none has: the one fixed EV), at most
 * UINT64_MAX (it saturates); 0 if a field with mask bits has min > max.
 */
uint64_t ev_gen_count(const struct mrc_ctl_ev_field *f, int nf);

/*
 * Generated EVs, expanded, the first max of them into out. Each field with
 * mask bits takes every compact value min_val..max_val (the value that
 * fills its mask bits, as in ev_expand()); fields without keep init_val.
 * The order is the OCP API's silence filled in: field 0 most significant,
 * the last field with mask bits counting fastest, so with every min_val 0
 * the n-th EV is ev_expand() of compact n. Returns how many it wrote
 * (min(max, ev_gen_count()), 0 when max < 1).
 */
int ev_generate(const struct mrc_ctl_ev_field *f, int nf,
		const struct mrc_ctl_ev_fmt_field *ff, int nff, uint32_t *out,
		int max);

/*
 * The SRv6 EV of a compact one under fields f and an SRV6 format ff:
 * the same fields as ev_expand() (compact bits into mask bits, over
 * init_val), but the format's fields are placed from the top: format
 * field 0 starts at the most significant bit of out[0] (bit 127 of the
 * destination address), field 1 right after it, and so on, each profile
 * field right-aligned within its format field (spare high bits zero), and
 * every bit after the format's total width zero. A format wider than 128
 * bits reaches into the SRH segment (bytes 16..31). So widths 32,16,4,12
 * with fields { width 32 init 0xfdbbbb00 }, { width 16 init 0x0200 mask
 * 0x00ff }, { width 4 mask 0xf }, { width 12 init 0x102 } turn compact
 * 0x12 into fdbb:bb00:0201:2102::.
 * 0, out written; -EINVAL or -E2BIG as ev_fmt_check(SRV6, ...) and
 * ev_fields_check() say (out zeroed).
 */
int ev_expand_srv6(const struct mrc_ctl_ev_field *f, int nf,
		   const struct mrc_ctl_ev_fmt_field *ff, int nff,
		   uint32_t compact, uint8_t out[MRC_CTL_EV_MAX_BYTES]);

/*
 * ev_generate() for an SRV6 format: the same EVs in the same order,
 * each as ev_expand_srv6() lays it out. How many it wrote (as
 * ev_generate), or -EINVAL, -E2BIG as ev_expand_srv6().
 */
int ev_generate_srv6(const struct mrc_ctl_ev_field *f, int nf,
		     const struct mrc_ctl_ev_fmt_field *ff, int nff,
		     uint8_t (*out)[MRC_CTL_EV_MAX_BYTES], int max);

/* Whether an SRv6 EV has an SRH segment (bytes 16..31 not all zero). */
int ev_srv6_has_srh(const uint8_t v[MRC_CTL_EV_MAX_BYTES]);

/*
 * The uSIDs of a uSID container (16 bytes, network order) after its
 * 32-bit block (F3216), up to the first zero one (End of Carrier), into
 * usid; how many (0..MRC_EV_SRV6_USIDS).
 */
int ev_srv6_usids(const uint8_t addr[MRC_EV_SRV6_ADDR_BYTES],
		  uint16_t usid[MRC_EV_SRV6_USIDS]);

/*
 * An SRv6 EV as text, for people: the destination in inet_ntop form
 * ("fdbb:bb00:200:1102::"), then " srh " and the segment when there is
 * one. 0, or -ENOSPC when buf (len bytes) is too short for it (buf then
 * holds as much as fits); MRC_EV_SRV6_STR_LEN is always enough.
 */
int ev_srv6_str(const uint8_t v[MRC_CTL_EV_MAX_BYTES], char *buf, size_t len);

/*
 * The path an SRv6 EV names, as its uSIDs after the 32-bit blocks:
 * "uSIDs 0200 1102", and " | " and the segment's when there is an SRH
 * ("uSIDs 0200 1102 | 0203 2105"); "uSIDs -" when the destination has
 * none. 0 or -ENOSPC, as ev_srv6_str().
 */
int ev_srv6_usid_str(const uint8_t v[MRC_CTL_EV_MAX_BYTES], char *buf,
		     size_t len);

#endif /* MRC_EV_FIELDS_H */
