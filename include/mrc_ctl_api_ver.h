/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the version numbering of the MRC controller API
 * (mrc_ctl.h), which moves independently of the application API: major,
 * minor and sub-minor packed into 32 bits as MRC_API_VER does.
 */
#ifndef MRC_CTL_API_VER_H
#define MRC_CTL_API_VER_H

#define MRC_CTL_API_VER_MAJOR_OFFSET 24
#define MRC_CTL_API_VER_MINOR_OFFSET 16
#define MRC_CTL_API_VER_SUBMINOR_OFFSET 0

/* Usable in #if: no casts, unsigned arithmetic through the 0u. */
#define MRC_CTL_API_VER(_major, _minor, _sub_minor)        \
	((0u + (_major)) << MRC_CTL_API_VER_MAJOR_OFFSET | \
	 (0u + (_minor)) << MRC_CTL_API_VER_MINOR_OFFSET | \
	 (0u + (_sub_minor)) << MRC_CTL_API_VER_SUBMINOR_OFFSET)

/* "Whatever this header is": taken as MRC_CTL_API_CURRENT_VERSION. */
#define MRC_CTL_API_VER_LATEST MRC_CTL_API_VER(0xFF, 0xFF, 0xFFFF)

/* What this library implements, and the oldest it still serves. */
#define MRC_CTL_API_CURRENT_VERSION MRC_CTL_API_VER(1, 0, 1)
#define MRC_CTL_API_LAST_SUPPORTED_VERSION MRC_CTL_API_VER(1, 0, 0)

/* The vendor part (vendor_cfg): nothing is defined there yet. */
#define MRC_CTL_VENDOR_API_CURRENT_VERSION MRC_CTL_API_VER(1, 0, 0)
#define MRC_CTL_VENDOR_API_LAST_SUPPORTED_VERSION MRC_CTL_API_VER(1, 0, 0)

/* A program may pin the version it was written for before the include. */
#ifndef MRC_CTL_API_VER_USED
#define MRC_CTL_API_VER_USED MRC_CTL_API_CURRENT_VERSION
#elif MRC_CTL_API_VER_USED == MRC_CTL_API_VER_LATEST
#undef MRC_CTL_API_VER_USED
#define MRC_CTL_API_VER_USED MRC_CTL_API_CURRENT_VERSION
#endif

#if MRC_CTL_API_VER_USED > MRC_CTL_API_CURRENT_VERSION
#error "MRC_CTL_API_VER_USED is newer than this library's controller API"
#elif MRC_CTL_API_VER_USED < MRC_CTL_API_LAST_SUPPORTED_VERSION
#error "MRC_CTL_API_VER_USED is older than this library still supports"
#endif

#endif /* MRC_CTL_API_VER_H */
