/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the version numbering of the MRC application API
 * (OCP MRC 1.0): major, minor and sub-minor packed into 32 bits, and the
 * value an application passes to mean "the version this header describes".
 */
#ifndef MRC_API_VER_H
#define MRC_API_VER_H

#define MRC_API_VER_MAJOR_OFFSET 24
#define MRC_API_VER_MINOR_OFFSET 16

#define MRC_API_VER(_major, _minor, _sub_minor)                 \
	(((unsigned int)(_major) << MRC_API_VER_MAJOR_OFFSET) | \
	 ((unsigned int)(_minor) << MRC_API_VER_MINOR_OFFSET) | \
	 (unsigned int)(_sub_minor))

/* "Whatever this header is": the library treats it as its own version. */
#define MRC_API_VER_LATEST MRC_API_VER(0xFF, 0xFF, 0xFFFF)

/* The version this library implements. */
#define MRC_API_CURRENT_VERSION MRC_API_VER(1, 0, 0)

#endif /* MRC_API_VER_H */
