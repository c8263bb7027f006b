/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the version numbering of the MRC application API
 * (OCP MRC 1.0): major, minor and sub-minor packed into 32 bits, the
 * versions this library implements, and MRC_API_VER_USED, the version a
 * program is written for. A program may define MRC_API_VER_USED before it
 * includes mrc.h (for instance -DMRC_API_VER_USED='MRC_API_VER(1, 0, 0)')
 * to get the declarations of that version; by default it gets the current
 * one. The names and values are OCP's; the text is this project's own.
 */
#ifndef MRC_API_VER_H
#define MRC_API_VER_H

#define MRC_API_VER_MAJOR_OFFSET 24
#define MRC_API_VER_MINOR_OFFSET 16
#define MRC_API_VER_SUBMINOR_OFFSET 0

/* Usable in #if: no casts, unsigned arithmetic through the 0u. */
#define MRC_API_VER(_major, _minor, _sub_minor)        \
	((0u + (_major)) << MRC_API_VER_MAJOR_OFFSET | \
	 (0u + (_minor)) << MRC_API_VER_MINOR_OFFSET | \
	 (0u + (_sub_minor)) << MRC_API_VER_SUBMINOR_OFFSET)

/* "Whatever this header is": taken as MRC_API_CURRENT_VERSION. */
#define MRC_API_VER_LATEST MRC_API_VER(0xFF, 0xFF, 0xFFFF)

/*
 * What this library implements, and the oldest version a context still
 * accepts. OCP sets the oldest to 0.0.0, so any value up to the current
 * version is accepted (programs written for vendor libraries pass small
 * constants such as 1, or 0 when they set nothing).
 */
#define MRC_API_CURRENT_VERSION MRC_API_VER(1, 0, 1)
#define MRC_API_LAST_SUPPORTED_VERSION MRC_API_VER(0, 0, 0)

/* The vendor part (vendor_cfg): nothing is defined there yet. */
#define MRC_VENDOR_API_CURRENT_VERSION MRC_API_VER(1, 0, 0)
#define MRC_VENDOR_API_LAST_SUPPORTED_VERSION MRC_API_VER(0, 0, 0)

#ifndef MRC_API_VER_USED
#define MRC_API_VER_USED MRC_API_CURRENT_VERSION
#elif MRC_API_VER_USED == MRC_API_VER_LATEST
#undef MRC_API_VER_USED
#define MRC_API_VER_USED MRC_API_CURRENT_VERSION
#endif

#if MRC_API_VER_USED > MRC_API_CURRENT_VERSION
#error "MRC_API_VER_USED is newer than this library's MRC API"
#endif

#ifndef MRC_VENDOR_API_VER_USED
#define MRC_VENDOR_API_VER_USED MRC_VENDOR_API_CURRENT_VERSION
#elif MRC_VENDOR_API_VER_USED == MRC_API_VER_LATEST
#undef MRC_VENDOR_API_VER_USED
#define MRC_VENDOR_API_VER_USED MRC_VENDOR_API_CURRENT_VERSION
#endif

#if MRC_VENDOR_API_VER_USED > MRC_VENDOR_API_CURRENT_VERSION
#error "MRC_VENDOR_API_VER_USED is newer than this library's vendor API"
#endif

#endif /* MRC_API_VER_H */
