/* SPDX-License-Identifier: GPL-2.0 */
/*
 * This file contains the decisions that let programs written for other
 * MRC libraries, or the RC way, run here unchanged: which API versions a
 * context accepts, and how a QP transition's attributes are completed
 * (verbs attributes MRC does not use, MRC attributes not given) or, in
 * strict mode (MRC_STRICT=1), refused. They are pure functions of their
 * arguments, so the unit tests reach them without mrcd.
 */
#ifndef MRC_LIB_COMPAT_H
#define MRC_LIB_COMPAT_H

#include <stdbool.h>
#include <stdint.h>

#include <mrc.h>

#define COMPAT_STRICT_ENV "MRC_STRICT"

/* The device's default CC profile (mrcd offers it ONLINE at start). */
#define COMPAT_CC_PROFILE_DEFAULT 15
/* ACK timeout and retries when neither verbs nor MRC attributes say. */
#define COMPAT_TIMEOUT_DEFAULT 14 /* 1.024 us x 2^14: about 16.8 ms */
#define COMPAT_RETRY_LINEAR_DEFAULT 7
#define COMPAT_RETRY_EXP_DEFAULT 7

/*
 * The version a context runs with for what the program passed: 0 and the
 * version, or -EPROTONOSUPPORT for one newer than this library's (other
 * than MRC_API_VER_LATEST, which is the current version).
 */
int compat_api_version(uint32_t asked, uint32_t *in_force);

/* Is MRC_STRICT set to 1 in this environment value (NULL: unset)? */
bool compat_strict_value(const char *value);

/* What one mrc_modify_qp call asks, as it came. */
struct compat_qp_in {
	enum ibv_qp_state from, to;
	int vmask;
	const struct ibv_qp_attr *vattr;
	int mmask;
	const struct mrc_qp_attr *mattr; /* NULL when mmask is 0 */
	const struct mrc_device_attr *dev; /* the device's limits */
	bool strict;
};

/* What mrc_modify_qp does with it. */
struct compat_qp_out {
	int vmask; /* what is left for MRC to take */
	int mmask;
	struct mrc_qp_attr mattr; /* given, mapped or defaulted */
};

/*
 * Called once per non-portable use: what (an attribute's name) and why
 * ("not supported by the OCP MRC API", "required by ..."). refused: the
 * call fails because of it (strict mode).
 */
typedef void (*compat_say_fn)(void *arg, const char *what, const char *why,
			      bool refused);

/*
 * Completes one transition's attributes. Returns 0, or -EINVAL when strict
 * mode refuses it; say() has then named every reason, one call each.
 */
int compat_qp_attrs(const struct compat_qp_in *in, struct compat_qp_out *out,
		    compat_say_fn say, void *arg);

/*
 * The libmrc side of say(): one line per use on the library's log, as
 * "QP 7 RESET->INIT: IBV_QP_PORT: <why>", an error when it refuses the
 * call, at info level when it is only taken or ignored. arg: this.
 */
struct compat_say_ctx {
	uint32_t qpn;
	enum ibv_qp_state from, to;
};
void compat_say_log(void *arg, const char *what, const char *why, bool refused);

/* The libmrc side: MRC_STRICT from the environment. */
bool compat_strict(void);

#endif /* MRC_LIB_COMPAT_H */
