/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the device's controller profiles: EV format
 * profiles, EV profiles and CC profiles, each with the OCP state machine
 * INIT -> OFFLINE -> ONLINE -> OFFLINE -> INIT, the attributes every step
 * needs and the errors the controller API documents. Pure bookkeeping:
 * mrcd's ctl.c serves it and applies its results to the data path.
 */
#ifndef MRCD_PROFILES_H
#define MRCD_PROFILES_H

#include <stdint.h>

#include "mrc/abi.h"
#include "mrc/ev_fields.h"
#include "mrc_ctl.h"

/* Device limits, as mrc_ctl_query_device reports them. */
#define PROF_MAX_FMT 16 /* EV format profiles: ids 0..15 */
#define PROF_MAX_EV 64 /* EV profiles: ids 0..63; 0 is the AUTO one */
#define PROF_MAX_CC 16 /* CC profiles: ids 0..15; 0 is "none", ONLINE */
/* The NSCC profile the device offers (prof_cc_offer_default). */
#define PROF_CC_DEFAULT (PROF_MAX_CC - 1)
#define PROF_EV_MAX_COUNT MRC_QP_EVS /* EVs in one profile */
#define PROF_EV_TOTAL (PROF_MAX_EV * PROF_EV_MAX_COUNT)
#define PROF_OP_MAX_ENTRIES PROF_EV_MAX_COUNT /* entries per EV_OP call */

/* Which attributes a profile has been given (PROF_HAVE_*). */
#define PROF_HAVE_MODE (1u << 0)
#define PROF_HAVE_FMT_ID (1u << 1)
#define PROF_HAVE_COUNT (1u << 2)
#define PROF_HAVE_FIELDS (1u << 3)
#define PROF_HAVE_MIN_ACTIVE (1u << 4)
#define PROF_HAVE_EVENT_MASK (1u << 5)
#define PROF_HAVE_ALGORITHM (1u << 6)
#define PROF_HAVE_CONFIG (1u << 7)

struct prof_fmt {
	uint32_t state; /* enum mrc_ctl_profile_state */
	uint32_t have;
	uint32_t mode; /* enum mrc_ctl_ev_fmt_mode */
	int nfields;
	struct mrc_ctl_ev_fmt_field fields[MRC_EV_FMT_MAX_FIELDS];
};

/* One entry of an EV profile's array. */
struct prof_ev_ent {
	uint32_t cval; /* compact: what the controller wrote (or generation
			* counted); the API shows this one */
	uint32_t val; /* expanded by the profile's fields: what goes out
		       * (UDP, STEV; an SRV6 format's low 32 bits, unused) */
	uint8_t port; /* 1-based; 0 with cval 0: unpopulated */
	uint8_t denied; /* the controller denied it */
	uint8_t pad0[2];
	/*
	 * An SRV6 format's EV, expanded (ev_expand_srv6): bytes 0..15 the
	 * outer IPv6 destination, 16..31 the SRH segment (zero: none).
	 * All zero under UDP and STEV formats.
	 */
	uint8_t sval[MRC_CTL_EV_MAX_BYTES];
};

struct prof_ev {
	uint32_t state; /* enum mrc_ctl_profile_state */
	uint32_t have;
	uint32_t mode; /* enum mrc_ctl_ev_mode */
	uint64_t fmt_id;
	uint32_t count, min_active;
	int event_mask;
	int nfields;
	struct mrc_ctl_ev_field fields[MRC_EV_MAX_FIELDS];
	struct prof_ev_ent ev[PROF_EV_MAX_COUNT];
	uint32_t users; /* QPs that name it and are past INIT */
};

#define PROF_CC_NONE 0 /* no congestion control */
#define PROF_CC_NSCC 1 /* "uet-1.0-nscc" */

/*
 * The packet size a CC profile's window counts in (nscc_params.h): the
 * largest payload, or max_cwnd if that is lower. A QP's smallest window
 * is one of its own packets, at most that (mrc_nscc.min_wnd_bytes).
 */
#define PROF_CC_MTU_BYTES MRC_MAX_PAYLOAD

struct prof_cc {
	uint32_t state;
	uint32_t have;
	uint32_t algo; /* PROF_CC_* */
	struct mrc_ctl_cc_nscc_cfg nscc;
	/* nscc in the data path's fixed point: checked and converted as
	 * the configuration is given, so going ONLINE cannot fail on it. */
	struct mrc_nscc_params params;
	uint32_t users;
};

struct profiles {
	uint32_t port_mask; /* bit N: port N exists (1-based) */
	struct prof_fmt fmt[PROF_MAX_FMT];
	struct prof_ev ev[PROF_MAX_EV];
	struct prof_cc cc[PROF_MAX_CC];
	/*
	 * The run-time state of entry idx of EV profile id over the QPs
	 * using it (GOOD or ASSUMED_BAD); NULL: GOOD. DENIED is the
	 * profile's own.
	 */
	uint32_t (*ev_runtime_state)(void *ctx, uint64_t id, int idx);
	void *ctx;
};

/*
 * Every profile INIT, except EV profile 0 (AUTO, ONLINE, nports x 16
 * EVs chosen per QP by mrcd) and CC profile 0 (no CC, ONLINE). On zeroed
 * storage: the 64 EV profiles' 720 KB are not written (INIT is 0).
 */
void prof_init(struct profiles *p, uint32_t port_mask);

/*
 * CC profile PROF_CC_DEFAULT: uet-1.0-nscc with mrc's parameters for a
 * software device (include/mrc/cc_default.h), ONLINE, as if a controller
 * had set it; a controller may take it offline and change it. 0 or
 * -errno.
 */
int prof_cc_offer_default(struct profiles *p);

/* The names the CC algorithms go by, NULL-terminated. */
extern const char *const prof_cc_algorithms[];

/*
 * The controller API's modify and query calls, with its semantics and
 * errors as negative errno values: attr and its arrays are the caller's
 * (mrcd's copy of the request). On a query, arrays too short give -E2BIG
 * with the needed length written back into the count field.
 */
int prof_fmt_modify(struct profiles *p, uint64_t id,
		    const struct mrc_ctl_ev_fmt_profile_attr *attr, int mask);
int prof_fmt_query(struct profiles *p, uint64_t id,
		   struct mrc_ctl_ev_fmt_profile_attr *attr, int mask);
int prof_ev_modify(struct profiles *p, uint64_t id,
		   struct mrc_ctl_ev_profile_attr *attr, int mask);
int prof_ev_query(struct profiles *p, uint64_t id,
		  struct mrc_ctl_ev_profile_attr *attr, int mask);
int prof_cc_modify(struct profiles *p, uint64_t id,
		   const struct mrc_ctl_cc_profile_attr *attr, int mask);
int prof_cc_query(struct profiles *p, uint64_t id,
		  struct mrc_ctl_cc_profile_attr *attr, int mask);

/*
 * A QP moving to INIT names these profiles: 0 and a hold on both (their
 * users count, which makes taking them offline EBUSY), or -ENOENT (no such
 * id), -EINVAL (not ONLINE). Whether the device carries an SRV6 profile's
 * EVs is the caller's to check. prof_qp_release drops the hold.
 */
int prof_qp_use(struct profiles *p, uint64_t ev_id, uint64_t cc_id);
void prof_qp_release(struct profiles *p, uint64_t ev_id, uint64_t cc_id);

/* EVs given out over all profiles (ev_max_count less ev_free_count). */
uint32_t prof_ev_used(const struct profiles *p);

#endif /* MRCD_PROFILES_H */
