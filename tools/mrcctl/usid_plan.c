// SPDX-License-Identifier: GPL-2.0
/*
 * The testbed's SRv6 uSID plan (docs/testbed.md) as an EV format and an
 * EV profile, for mrcctl ev-profile usid: parsing its words and making
 * its fields. No device here (ev_profile_usid.c talks to mrcd), so the
 * unit tests run it as it is.
 *
 * F3216: a 32-bit block, then 16-bit uSIDs. The route to host H over
 * spine S on plane P is block:02SS:P1HH:: (spine first, then the
 * destination's leaf), so the format is 32+16+4+12 bits from the top of
 * the address: the block; the spine's uSID, 0x0200 with SS from the
 * compact EV; the plane nibble from the compact EV; the leaf's other 12
 * bits, 0x1HH. Generated, the plane counts fastest: EV i names plane
 * i mod planes, which is what lets it leave by port (i mod ports) + 1.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "mrcctl.h"

enum { U_FMT, U_BLOCK, U_SPINES, U_PLANES, U_HOST };
static const char *const usid_kws[] = { "fmt", "block", "spines", "planes",
					"host" };

/*
 * PREFIX: the block as an IPv6 prefix of 32 bits: "fdbb:bb00",
 * "fdbb:bb00::" or "fdbb:bb00::/32"; nothing set past bit 31, not zero.
 */
static int arg_block(struct args *a, uint32_t *block)
{
	static const char want[] = "want a 32-bit uSID block, e.g. fdbb:bb00"
				   " or fdbb:bb00::/32";
	uint8_t addr[16];
	char buf[64], *slash;
	const char *w;
	int i;

	if (!args_left(a))
		return err_usage("missing value for 'block' (%s)", want);
	w = a->argv[a->i++];
	if (strlen(w) >= sizeof(buf) - 2)
		return err_usage("bad value '%s' for 'block' (%s)", w, want);
	strcpy(buf, w);
	slash = strchr(buf, '/');
	if (slash) {
		if (strcmp(slash, "/32"))
			return err_usage("bad value '%s' for 'block' (%s: the"
					 " block is 32 bits)",
					 w, want);
		*slash = '\0';
	}
	/* Fewer than 8 groups and no "::": the rest is zero. */
	if (!strstr(buf, "::"))
		strcat(buf, "::");
	if (inet_pton(AF_INET6, buf, addr) != 1)
		return err_usage("bad value '%s' for 'block' (%s)", w, want);
	for (i = MRC_EV_SRV6_BLOCK_BYTES; i < 16; i++)
		if (addr[i])
			return err_usage("bad value '%s' for 'block' (%s: bits"
					 " past the first 32 are set)",
					 w, want);
	*block = (uint32_t)addr[0] << 24 | (uint32_t)addr[1] << 16 |
		 (uint32_t)addr[2] << 8 | addr[3];
	if (!*block)
		return err_usage("bad value '%s' for 'block' (%s, not zero)", w,
				 want);
	return 0;
}

int usid_parse(struct args *a, struct usid_plan *u)
{
	unsigned int seen = 0;
	int rc, kw;

	memset(u, 0, sizeof(*u));
	/* EV profile 0 is the device's own (AUTO). */
	rc = arg_u64(a, "ID", 1, UINT64_MAX, &u->id);
	while (!rc && args_left(a)) {
		rc = arg_keyword(a, usid_kws, ARRAY_SIZE(usid_kws), &kw);
		if (!rc)
			rc = arg_once(&seen, kw, usid_kws);
		if (rc)
			break;
		switch (kw) {
		case U_FMT:
			rc = arg_u64(a, "fmt", 0, UINT64_MAX, &u->fmt_id);
			break;
		case U_BLOCK:
			rc = arg_block(a, &u->block);
			break;
		case U_SPINES:
			rc = arg_u32(a, "spines", 1, USID_MAX_SPINES,
				     &u->spines);
			break;
		case U_PLANES:
			rc = arg_u32(a, "planes", 1, USID_MAX_PLANES,
				     &u->planes);
			break;
		case U_HOST:
			rc = arg_u32(a, "host", 0, USID_MAX_HOST, &u->host);
			break;
		}
	}
	if (!rc && !(seen & 1u << U_FMT))
		rc = arg_required(a, "fmt ID");
	if (!rc && !(seen & 1u << U_BLOCK))
		rc = arg_required(a, "block PREFIX");
	if (!rc && !(seen & 1u << U_SPINES))
		rc = arg_required(a, "spines N");
	if (!rc && !(seen & 1u << U_PLANES))
		rc = arg_required(a, "planes N");
	if (!rc && !(seen & 1u << U_HOST))
		rc = arg_required(a, "host H");
	return rc;
}

void usid_fields(const struct usid_plan *u,
		 struct mrc_ctl_ev_fmt_field ff[USID_FIELDS],
		 struct mrc_ctl_ev_field f[USID_FIELDS])
{
	static const uint8_t widths[USID_FIELDS] = { 32, 16, 4, 12 };
	int i;

	for (i = 0; i < USID_FIELDS; i++)
		ff[i].width = widths[i];
	memset(f, 0, USID_FIELDS * sizeof(*f));
	/* The block, fixed. */
	f[0].width = 32;
	f[0].init_val = u->block;
	/* The spine's uSID 0x02SS: SS counts 0..spines-1. */
	f[1].width = 16;
	f[1].init_val = 0x0200;
	f[1].mask = 0x00ff;
	f[1].max_val = u->spines - 1;
	/* The leaf's plane nibble P, counting fastest: 0..planes-1. */
	f[2].width = 4;
	f[2].mask = 0xf;
	f[2].max_val = u->planes - 1;
	/* The rest of the leaf's uSID, 0x1HH, fixed. */
	f[3].width = 12;
	f[3].init_val = 0x100 | u->host;
}
