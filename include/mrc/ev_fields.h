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

#include <stdint.h>

#include "mrc_ctl.h"

#define MRC_EV_FMT_MAX_FIELDS 8 /* fields in one EV format profile */
#define MRC_EV_MAX_FIELDS 8 /* fields in one EV profile */

/*
 * Bits an EV format mode carries in a packet: UDP 16 (the source port),
 * STEV 32 (source port and 16 bits of the IPv6 flow label), SRV6 128
 * (configuration only). 0 for anything else.
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
 * A profile's fields against its (valid) format: 0; -EINVAL (a zero
 * width, init_val or mask outside width, max_val wider than mask's bit
 * count, min_val > max_val, a field wider than its format field); -E2BIG
 * (more fields than the format, or than MRC_EV_MAX_FIELDS).
 */
int ev_fields_check(const struct mrc_ctl_ev_field *f, int nf,
		    const struct mrc_ctl_ev_fmt_field *ff, int nff);

/* Bits of a compact EV under these fields: the mask bits, added up. */
unsigned int ev_compact_bits(const struct mrc_ctl_ev_field *f, int nf);

/*
 * The expanded EV of a compact one (fields and format already checked):
 * see struct mrc_ctl_ev_field in mrc_ctl.h for the steps. Compact bits
 * beyond ev_compact_bits() are ignored.
 */
uint32_t ev_expand(const struct mrc_ctl_ev_field *f, int nf,
		   const struct mrc_ctl_ev_fmt_field *ff, int nff,
		   uint32_t compact);

/* How many EVs generation makes: the product of (max - min + 1) over the
 * fields that have mask bits (1 when none has). */
uint64_t ev_gen_count(const struct mrc_ctl_ev_field *f, int nf);

/*
 * Generated EVs, expanded, in order (the first field most significant, the
 * last one counting fastest), the first max of them into out. Returns how
 * many it wrote.
 */
int ev_generate(const struct mrc_ctl_ev_field *f, int nf,
		const struct mrc_ctl_ev_fmt_field *ff, int nff, uint32_t *out,
		int max);

#endif /* MRC_EV_FIELDS_H */
