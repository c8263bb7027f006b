/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains mrcctl capture's options and their parser, apart
 * from the command so that the unit tests reach them.
 */
#ifndef MRCCTL_CAPTURE_H
#define MRCCTL_CAPTURE_H

#include <net/if.h>
#include <stdint.h>

#define CAP_SNAPLEN_MIN 14 /* an Ethernet header */
#define CAP_SNAPLEN_MAX 16384
#define CAP_SNAPLEN_MAX_STR "16384"
#define CAP_COUNT_DEFAULT 1000
#define CAP_COUNT_DEFAULT_STR "1000"
#define CAP_COUNT_MAX 10000000
#define CAP_SECONDS_DEFAULT 10
#define CAP_SECONDS_DEFAULT_STR "10"
#define CAP_SECONDS_MAX 86400

/* Directions (cap_opts.dir bits). */
#define CAP_DIR_IN 1u /* what arrives: in front of mrc_xdp_rx */
#define CAP_DIR_OUT 2u /* what the transmit program sends out of it */

struct cap_opts {
	char dev[IF_NAMESIZE];
	uint32_t dir; /* CAP_DIR_* bits, never 0 */
	uint32_t classes; /* MRC_CAP_* bits */
	int qpn_on;
	uint32_t qpn;
	uint32_t snaplen; /* bytes */
	uint32_t count; /* packets */
	uint32_t seconds;
	const char *file; /* "-": stdout */
};

struct args;
/* The words after "capture"; 0 or the exit code already reported. */
int cap_parse(struct args *a, struct cap_opts *o);

#endif /* MRCCTL_CAPTURE_H */
