/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains gray-failure detection: an EV that still delivers,
 * but with a round trip far above its siblings' of the same QP (a slow or
 * congested path), found by comparing each EV with the QP's others.
 */
#ifndef MRC_DAEMON_GRAY_H
#define MRC_DAEMON_GRAY_H

#include <stdint.h>

#include "mrc/evmask.h"

/*
 * An EV is gray when its smoothed RTT is over GRAY_FACTOR times the median
 * of the QP's EVs in use and GRAY_MIN_NS above it (mrcd blames it after
 * two such looks in a row). Loose on purpose: on a busy 2-core test
 * machine some paths queue for a while; 4x and 200 us blamed good EVs.
 */
#define GRAY_FACTOR 8 /* the default of mrcd.conf's gray-factor */
#define GRAY_MIN_NS 1000000u
#define GRAY_MIN_SAMPLES 4 /* RTT samples in the interval to judge an EV */
#define GRAY_MIN_PEERS 8 /* judged EVs needed to have a median at all */

struct gray_ev {
	uint32_t srtt_ns; /* smoothed RTT (first transmissions only) */
	uint32_t samples; /* RTT samples since the last look */
	uint32_t sent; /* packets sent on it since the last look */
	uint32_t lost; /* of them resent as lost (SACK hole, timeout) */
	uint8_t in_use; /* GOOD and carrying traffic */
};

/*
 * An EV is lossy when, since the last look, at least LOSSY_MIN_SENT of
 * its packets went out, at least LOSSY_MIN_LOST of them were resent as
 * lost, and its loss rate is at least LOSSY_MIN_PERMILLE and LOSSY_FACTOR
 * times the median of the QP's judged EVs. A lossy path still delivers
 * most packets, so the rule that proves a loss by a later packet on the
 * same EV seldom fires: the resend on another EV (after MRC_REORDER_PKTS
 * later PSNs) comes first. Reordering resends fall on every EV alike and
 * raise the median, not one EV.
 */
#define LOSSY_MIN_SENT 64
#define LOSSY_MIN_LOST 8
#define LOSSY_MIN_PERMILLE 50
#define LOSSY_FACTOR 3

/*
 * The EVs that are gray among nev (<= MRC_QP_EVS) into *gray, and how
 * many. *median_ns gets the median used (0: too few EVs to judge, and
 * nothing is gray).
 */
unsigned int gray_find(const struct gray_ev *ev, unsigned int nev,
		       unsigned int factor, uint32_t *median_ns,
		       struct mrc_evmask *gray);

/*
 * The EVs that are lossy among nev (<= MRC_QP_EVS) into *lossy, and how
 * many; *median_permille gets the median loss rate of the judged EVs (0
 * too when there are fewer than GRAY_MIN_PEERS of them, and nothing is
 * lossy).
 */
unsigned int lossy_find(const struct gray_ev *ev, unsigned int nev,
			uint32_t *median_permille, struct mrc_evmask *lossy);

#endif /* MRC_DAEMON_GRAY_H */
