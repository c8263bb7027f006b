// SPDX-License-Identifier: GPL-2.0
/*
 * The controller's profiles (daemon/profiles.c): every transition of the
 * three kinds, allowed and refused, every documented error with the
 * smallest case that triggers it, the EV operations, a generated array
 * worked out by hand, and that a failed modify changes nothing.
 *
 * The device in every test has ports 1 and 2 (port_mask 0x6) and three
 * formats the helpers bring ONLINE on demand:
 *   FMT_UDP16  UDP, one 16-bit field (explicit profiles)
 *   FMT_UDP88  UDP, two 8-bit fields (the generated profile)
 *   FMT_SRV6   SRV6, one 16-bit field
 * and the SRv6 tests a fourth, FMT_USID: SRV6, the testbed's uSID plan
 * (32+16+4+12 bits from the top of the address).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "mrc/cc_default.h"
#include "profiles.h"

#define FMT_UDP16 1
#define FMT_UDP88 2
#define FMT_SRV6 3
#define FMT_USID 4

#define ONLINE_MASK                                                 \
	(MRC_CTL_EV_PROFILE_STATE | MRC_CTL_EV_PROFILE_MIN_ACTIVE | \
	 MRC_CTL_EV_PROFILE_EVENT_MASK)

static struct profiles P;

/*
 * Explicit profiles: one 16-bit field, fixed 0x80 in the high byte, the
 * low byte from the compact EV (8 compact bits): compact 0x12 -> 0x8012.
 */
static struct mrc_ctl_ev_field exp_f[] = {
	{ .width = 16, .init_val = 0x8000, .mask = 0x00ff },
};

/*
 * The generated profile over FMT_UDP88:
 *   field 0: 4 bits, init 0x8, mask 0x3 (2 compact bits), counts 0..1
 *   field 1: 8 bits, init 0x01, mask 0xf0 (4 compact bits), counts 2..4
 * 2 x 3 = 6 EVs; compact = field0 << 4 | field1.
 */
static struct mrc_ctl_ev_field gen_f[] = {
	{ .width = 4, .init_val = 0x8, .mask = 0x3, .min_val = 0, .max_val = 1 },
	{ .width = 8,
	  .init_val = 0x01,
	  .mask = 0xf0,
	  .min_val = 2,
	  .max_val = 4 },
};

static int setup(void **state)
{
	(void)state;
	memset(&P, 0, sizeof(P)); /* prof_init takes zeroed storage */
	prof_init(&P, 0x6);
	P.ev_runtime_state = NULL;
	P.ctx = NULL;
	return 0;
}

/* ---- helpers ---------------------------------------------------------- */

static int fmt_mod(uint64_t id, int mask, uint32_t to, uint32_t mode,
		   struct mrc_ctl_ev_fmt_field *ff, int n)
{
	struct mrc_ctl_ev_fmt_profile_attr a = { 0 };

	a.profile_state = to;
	a.ev_fmt_mode = mode;
	a.ev_fmt_op.op = MRC_CTL_EV_FMT_OP_MODIFY_FIELDS;
	a.ev_fmt_op.fmt_fields = ff;
	a.ev_fmt_op.fmt_field_count = n;
	return prof_fmt_modify(&P, id, &a, mask);
}

static int fmt_state(uint64_t id, uint32_t to)
{
	return fmt_mod(id, MRC_CTL_EV_FMT_PROFILE_STATE, to, 0, NULL, 0);
}

/* A format straight to ONLINE: OFFLINE with mode and fields, then up. */
static void fmt_online(uint64_t id, uint32_t mode,
		       struct mrc_ctl_ev_fmt_field *ff, int n)
{
	assert_int_equal(fmt_mod(id,
				 MRC_CTL_EV_FMT_PROFILE_STATE |
					 MRC_CTL_EV_FMT_PROFILE_MODE |
					 MRC_CTL_EV_FMT_PROFILE_OP,
				 MRC_CTL_PROFILE_OFFLINE, mode, ff, n),
			 0);
	assert_int_equal(fmt_state(id, MRC_CTL_PROFILE_ONLINE), 0);
}

static void formats_online(void)
{
	static struct mrc_ctl_ev_fmt_field w16[] = { { 16 } };
	static struct mrc_ctl_ev_fmt_field w88[] = { { 8 }, { 8 } };

	fmt_online(FMT_UDP16, MRC_CTL_EV_FMT_MODE_UDP, w16, 1);
	fmt_online(FMT_UDP88, MRC_CTL_EV_FMT_MODE_UDP, w88, 2);
	fmt_online(FMT_SRV6, MRC_CTL_EV_FMT_MODE_SRV6, w16, 1);
}

/* What INIT -> OFFLINE needs, all of it. */
static struct mrc_ctl_ev_profile_attr ev_attr(uint32_t mode, uint64_t fmt,
					      uint32_t count,
					      struct mrc_ctl_ev_field *f,
					      int nf)
{
	struct mrc_ctl_ev_profile_attr a = { 0 };

	a.profile_state = MRC_CTL_PROFILE_OFFLINE;
	a.ev_mode = mode;
	a.ev_fmt_profile_id = fmt;
	a.ev_count = count;
	a.ev_min_active = 1;
	a.ev_event_mask = MRC_CTL_EV_GOOD | MRC_CTL_EV_ASSUMED_BAD;
	a.ev_fields_op.op = MRC_CTL_EV_FIELDS_OP_MODIFY_FIELDS;
	a.ev_fields_op.fields = f;
	a.ev_fields_op.field_count = nf;
	return a;
}

#define OFFLINE_MASK                                            \
	(MRC_CTL_EV_PROFILE_STATE | MRC_CTL_EV_PROFILE_MODE |   \
	 MRC_CTL_EV_PROFILE_FMT_ID | MRC_CTL_EV_PROFILE_COUNT | \
	 MRC_CTL_EV_PROFILE_EV_FIELDS_OP)

static void exp_offline(uint64_t id, uint32_t count)
{
	struct mrc_ctl_ev_profile_attr a =
		ev_attr(MRC_CTL_EV_MODE_EXP, FMT_UDP16, count, exp_f, 1);

	assert_int_equal(prof_ev_modify(&P, id, &a, OFFLINE_MASK), 0);
}

static int ev_state(uint64_t id, uint32_t to)
{
	struct mrc_ctl_ev_profile_attr a = { 0 };

	a.profile_state = to;
	a.ev_min_active = 1;
	a.ev_event_mask = MRC_CTL_EV_GOOD;
	return prof_ev_modify(&P, id, &a,
			      to == MRC_CTL_PROFILE_ONLINE ?
				      ONLINE_MASK :
				      MRC_CTL_EV_PROFILE_STATE);
}

static struct mrc_ctl_ev ev_of(uint32_t cval, uint8_t port)
{
	struct mrc_ctl_ev ev = { .port = port };

	memcpy(ev.val, &cval, sizeof(cval));
	return ev;
}

static uint32_t cval_of(const struct mrc_ctl_ev *ev)
{
	uint32_t v;

	memcpy(&v, ev->val, sizeof(v));
	return v;
}

/* One EV_OP entry in a modify call. */
static int ev_op1(uint64_t id, enum mrc_ctl_ev_op op,
		  struct mrc_ctl_ev_op_entry *e)
{
	struct mrc_ctl_ev_profile_attr a = { 0 };

	a.ev_op.op = op;
	a.ev_op.entries = e;
	a.ev_op.entry_count = 1;
	return prof_ev_modify(&P, id, &a, MRC_CTL_EV_PROFILE_EV_OP);
}

static int replace(uint64_t id, uint32_t from, uint8_t from_port, uint32_t to,
		   uint8_t to_port, uint32_t flags)
{
	struct mrc_ctl_ev_op_entry e = { .ev = ev_of(from, from_port),
					 .ev_new = ev_of(to, to_port),
					 .state = MRC_CTL_EV_GOOD,
					 .flags = flags };

	return ev_op1(id, MRC_CTL_EV_OP_REPLACE_EV, &e);
}

static int set_state(uint64_t id, uint32_t cval, uint8_t port,
		     enum mrc_ctl_ev_state st)
{
	struct mrc_ctl_ev_op_entry e = { .ev = ev_of(cval, port), .state = st };

	return ev_op1(id, MRC_CTL_EV_OP_MODIFY_EV_STATE, &e);
}

static int query_state(uint64_t id, uint32_t cval, uint8_t port,
		       enum mrc_ctl_ev_state *st)
{
	struct mrc_ctl_ev_op_entry e = { .ev = ev_of(cval, port) };
	struct mrc_ctl_ev_profile_attr a = { 0 };
	int err;

	a.ev_op.op = MRC_CTL_EV_OP_QUERY_EV_STATE;
	a.ev_op.entries = &e;
	a.ev_op.entry_count = 1;
	err = prof_ev_query(&P, id, &a, MRC_CTL_EV_PROFILE_EV_OP);
	*st = e.state;
	return err;
}

/* The array of profile id into e (64 entries); returns the count. */
static int query_array(uint64_t id, struct mrc_ctl_ev_op_entry *e)
{
	struct mrc_ctl_ev_profile_attr a = { 0 };

	memset(e, 0xa5, PROF_EV_MAX_COUNT * sizeof(*e));
	a.ev_op.op = MRC_CTL_EV_OP_QUERY_EV_ARRAY;
	a.ev_op.entries = e;
	a.ev_op.entry_count = PROF_EV_MAX_COUNT;
	assert_int_equal(prof_ev_query(&P, id, &a, MRC_CTL_EV_PROFILE_EV_OP),
			 0);
	return a.ev_op.entry_count;
}

/* An explicit profile ONLINE: entry i is compact i + 1 on port 1. */
static void exp_online(uint64_t id, uint32_t count)
{
	uint32_t i;

	exp_offline(id, count);
	for (i = 0; i < count; i++)
		assert_int_equal(replace(id, 0, 0, i + 1, 1, 0), 0);
	assert_int_equal(ev_state(id, MRC_CTL_PROFILE_ONLINE), 0);
}

static uint32_t ev_cur_state(uint64_t id)
{
	struct mrc_ctl_ev_profile_attr a = { 0 };

	assert_int_equal(
		prof_ev_query(&P, id, &a, MRC_CTL_EV_PROFILE_CUR_STATE), 0);
	return a.cur_profile_state;
}

static const struct mrc_ctl_cc_nscc_cfg nscc_ok = {
	.adjust_bytes_threshold = 32768,
	.adjust_period_threshold = 10000,
	.base_rtt = 10000,
	.target_delay = 20000,
	.max_cwnd = 1 << 20,
	.eta = 600.0f,
	.fi = 20000.0f,
	.fi_scale = 0.25f,
	.gamma = 0.8f,
	.max_md_jump = 0.5f,
	.qa_gate = 3,
	.qa_threshold = 80000,
};

static int cc_mod(uint64_t id, int mask, uint32_t to, const char *algo,
		  const void *cfg)
{
	struct mrc_ctl_cc_profile_attr a = { 0 };

	a.profile_state = to;
	a.algorithm = algo;
	a.cc_config = cfg;
	return prof_cc_modify(&P, id, &a, mask);
}

static void nscc_online(uint64_t id)
{
	assert_int_equal(cc_mod(id,
				MRC_CTL_CC_PROFILE_STATE |
					MRC_CTL_CC_PROFILE_ALGORITHM,
				MRC_CTL_PROFILE_OFFLINE, "uet-1.0-nscc", NULL),
			 0);
	assert_int_equal(
		cc_mod(id, MRC_CTL_CC_PROFILE_STATE | MRC_CTL_CC_PROFILE_CONFIG,
		       MRC_CTL_PROFILE_ONLINE, NULL, &nscc_ok),
		0);
}

/* ---- start state, ids, masks ----------------------------------------- */

static void start_state(void **state)
{
	struct mrc_ctl_ev_profile_attr ea = { 0 };
	struct mrc_ctl_cc_profile_attr ca = { 0 };
	struct mrc_ctl_ev_fmt_profile_attr fa = { 0 };
	int i;

	(void)state;
	assert_int_equal(P.port_mask, 0x6);
	assert_int_equal(prof_ev_query(&P, 0, &ea,
				       MRC_CTL_EV_PROFILE_STATE |
					       MRC_CTL_EV_PROFILE_CUR_STATE |
					       MRC_CTL_EV_PROFILE_MODE |
					       MRC_CTL_EV_PROFILE_COUNT |
					       MRC_CTL_EV_PROFILE_EVENT_MASK),
			 0);
	assert_int_equal(ea.profile_state, MRC_CTL_PROFILE_ONLINE);
	assert_int_equal(ea.cur_profile_state, MRC_CTL_PROFILE_ONLINE);
	assert_int_equal(ea.ev_mode, MRC_CTL_EV_MODE_AUTO);
	assert_int_equal(ea.ev_count, 0); /* mrcd chooses per QP */
	assert_int_equal(ea.ev_event_mask,
			 MRC_CTL_EV_GOOD | MRC_CTL_EV_ASSUMED_BAD);
	assert_int_equal(P.ev[0].have, PROF_HAVE_MODE | PROF_HAVE_MIN_ACTIVE |
					       PROF_HAVE_EVENT_MASK);

	ca.algorithm = "junk";
	ca.cc_config = &ca;
	assert_int_equal(prof_cc_query(&P, 0, &ca,
				       MRC_CTL_CC_PROFILE_STATE |
					       MRC_CTL_CC_PROFILE_CUR_STATE |
					       MRC_CTL_CC_PROFILE_ALGORITHM |
					       MRC_CTL_CC_PROFILE_CONFIG),
			 0);
	assert_int_equal(ca.profile_state, MRC_CTL_PROFILE_ONLINE);
	assert_int_equal(ca.cur_profile_state, MRC_CTL_PROFILE_ONLINE);
	assert_null(ca.algorithm);
	assert_null(ca.cc_config);

	for (i = 1; i < PROF_MAX_EV; i++)
		assert_int_equal(P.ev[i].state, MRC_CTL_PROFILE_INIT);
	for (i = 1; i < PROF_MAX_CC; i++)
		assert_int_equal(P.cc[i].state, MRC_CTL_PROFILE_INIT);
	for (i = 0; i < PROF_MAX_FMT; i++) {
		fa.cur_profile_state = MRC_CTL_PROFILE_ONLINE;
		assert_int_equal(
			prof_fmt_query(&P, (uint64_t)i, &fa,
				       MRC_CTL_EV_FMT_PROFILE_CUR_STATE),
			0);
		assert_int_equal(fa.cur_profile_state, MRC_CTL_PROFILE_INIT);
	}
	assert_int_equal(prof_ev_used(&P), 0);
	assert_string_equal(prof_cc_algorithms[0], "uet-1.0-nscc");
	assert_null(prof_cc_algorithms[1]);
}

static void ids_out_of_range(void **state)
{
	struct mrc_ctl_ev_fmt_profile_attr fa = { 0 };
	struct mrc_ctl_ev_profile_attr ea = { 0 };
	struct mrc_ctl_cc_profile_attr ca = { 0 };
	int m = MRC_CTL_EV_PROFILE_STATE; /* bit 0 in all three kinds */

	(void)state;
	assert_int_equal(prof_fmt_modify(&P, PROF_MAX_FMT, &fa, m), -EINVAL);
	assert_int_equal(prof_fmt_query(&P, PROF_MAX_FMT, &fa, m), -EINVAL);
	assert_int_equal(prof_ev_modify(&P, PROF_MAX_EV, &ea, m), -EINVAL);
	assert_int_equal(prof_ev_query(&P, PROF_MAX_EV, &ea, m), -EINVAL);
	assert_int_equal(prof_cc_modify(&P, PROF_MAX_CC, &ca, m), -EINVAL);
	assert_int_equal(prof_cc_query(&P, PROF_MAX_CC, &ca, m), -EINVAL);
	assert_int_equal(prof_ev_modify(&P, UINT64_MAX, &ea, m), -EINVAL);
	/* The last id of each kind exists. */
	assert_int_equal(prof_fmt_query(&P, PROF_MAX_FMT - 1, &fa, m), 0);
	assert_int_equal(prof_ev_query(&P, PROF_MAX_EV - 1, &ea, m), 0);
	assert_int_equal(prof_cc_query(&P, PROF_MAX_CC - 1, &ca, m), 0);
}

static void masks_and_vendor_cfg(void **state)
{
	struct mrc_ctl_ev_fmt_profile_attr fa = { 0 };
	struct mrc_ctl_ev_profile_attr ea = { 0 };
	struct mrc_ctl_cc_profile_attr ca = { 0 };

	(void)state;
	/* Unknown bits, in modify and query. */
	assert_int_equal(prof_fmt_modify(&P, 1, &fa, 1 << 4), -EINVAL);
	assert_int_equal(prof_fmt_query(&P, 1, &fa, 1 << 4), -EINVAL);
	assert_int_equal(prof_ev_modify(&P, 1, &ea, 1 << 9), -EINVAL);
	assert_int_equal(prof_ev_query(&P, 1, &ea, 1 << 9), -EINVAL);
	assert_int_equal(prof_cc_modify(&P, 1, &ca, 1 << 4), -EINVAL);
	assert_int_equal(prof_cc_query(&P, 1, &ca, 1 << 4), -EINVAL);

	/* CUR_STATE is query only. */
	assert_int_equal(prof_fmt_modify(&P, 1, &fa,
					 MRC_CTL_EV_FMT_PROFILE_CUR_STATE),
			 -EINVAL);
	assert_int_equal(prof_ev_modify(&P, 1, &ea,
					MRC_CTL_EV_PROFILE_CUR_STATE),
			 -EINVAL);
	assert_int_equal(prof_cc_modify(&P, 1, &ca,
					MRC_CTL_CC_PROFILE_CUR_STATE),
			 -EINVAL);

	/* Vendor configuration: zero is fine, anything else is not. */
	assert_int_equal(prof_fmt_modify(&P, 1, &fa, MRC_CTL_EV_FMT_VENDOR_CFG),
			 0);
	assert_int_equal(
		prof_ev_modify(&P, 1, &ea, MRC_CTL_EV_PROFILE_VENDOR_CFG), 0);
	assert_int_equal(
		prof_cc_modify(&P, 1, &ca, MRC_CTL_CC_PROFILE_VENDOR_CFG), 0);
	fa.vendor_cfg[MRC_CTL_MAX_VENDOR_CFG_SIZE - 1] = 1;
	ea.vendor_cfg[0] = 1;
	ca.vendor_cfg[7] = 1;
	assert_int_equal(prof_fmt_modify(&P, 1, &fa, MRC_CTL_EV_FMT_VENDOR_CFG),
			 -EINVAL);
	assert_int_equal(prof_fmt_query(&P, 1, &fa, MRC_CTL_EV_FMT_VENDOR_CFG),
			 -EINVAL);
	assert_int_equal(prof_ev_modify(&P, 1, &ea,
					MRC_CTL_EV_PROFILE_VENDOR_CFG),
			 -EINVAL);
	assert_int_equal(prof_ev_query(&P, 1, &ea,
				       MRC_CTL_EV_PROFILE_VENDOR_CFG),
			 -EINVAL);
	assert_int_equal(prof_cc_modify(&P, 1, &ca,
					MRC_CTL_CC_PROFILE_VENDOR_CFG),
			 -EINVAL);
	assert_int_equal(prof_cc_query(&P, 1, &ca,
				       MRC_CTL_CC_PROFILE_VENDOR_CFG),
			 -EINVAL);
	/* Not in the mask: not looked at. */
	assert_int_equal(prof_ev_modify(&P, 1, &ea, 0), 0);
}

static void profile0_untouchable(void **state)
{
	struct prof_ev ev0 = P.ev[0];
	struct prof_cc cc0 = P.cc[0];
	struct mrc_ctl_ev_profile_attr ea = { 0 };
	struct mrc_ctl_cc_profile_attr ca = { 0 };

	(void)state;
	ea.ev_event_mask = MRC_CTL_EV_GOOD;
	ea.profile_state = MRC_CTL_PROFILE_OFFLINE;
	assert_int_equal(prof_ev_modify(&P, 0, &ea,
					MRC_CTL_EV_PROFILE_EVENT_MASK),
			 -EINVAL);
	assert_int_equal(prof_ev_modify(&P, 0, &ea, MRC_CTL_EV_PROFILE_STATE),
			 -EINVAL);
	assert_int_equal(prof_ev_modify(&P, 0, &ea, 0), -EINVAL);
	ca.profile_state = MRC_CTL_PROFILE_OFFLINE;
	assert_int_equal(prof_cc_modify(&P, 0, &ca, MRC_CTL_CC_PROFILE_STATE),
			 -EINVAL);
	assert_int_equal(prof_cc_modify(&P, 0, &ca, 0), -EINVAL);
	assert_memory_equal(&P.ev[0], &ev0, sizeof(ev0));
	assert_memory_equal(&P.cc[0], &cc0, sizeof(cc0));
	/* ...and QPs may name them at once. */
	assert_int_equal(prof_qp_use(&P, 0, 0), 0);
	assert_int_equal(P.ev[0].users, 1);
	assert_int_equal(P.cc[0].users, 1);
}

/* ---- EV format profiles ----------------------------------------------- */

static void fmt_transitions(void **state)
{
	struct mrc_ctl_ev_fmt_field w16[] = { { 16 } };
	struct prof_fmt zero = { 0 };
	int mm = MRC_CTL_EV_FMT_PROFILE_STATE | MRC_CTL_EV_FMT_PROFILE_MODE;

	(void)state;
	/* INIT -> INIT: a no-op. INIT -> ONLINE: skips a step. */
	assert_int_equal(fmt_state(1, MRC_CTL_PROFILE_INIT), 0);
	assert_int_equal(fmt_state(1, MRC_CTL_PROFILE_ONLINE), -EINVAL);
	/* Not a state at all. */
	assert_int_equal(fmt_state(1, 3), -EINVAL);
	/* To OFFLINE needs MODE, a valid one. */
	assert_int_equal(fmt_state(1, MRC_CTL_PROFILE_OFFLINE), -EINVAL);
	assert_int_equal(fmt_mod(1, mm, MRC_CTL_PROFILE_OFFLINE, 0, NULL, 0),
			 -EINVAL);
	assert_int_equal(fmt_mod(1, mm, MRC_CTL_PROFILE_OFFLINE,
				 MRC_CTL_EV_FMT_MODE_UDP |
					 MRC_CTL_EV_FMT_MODE_STEV,
				 NULL, 0),
			 -EINVAL);
	assert_int_equal(P.fmt[1].state, MRC_CTL_PROFILE_INIT);
	/* Attributes given in INIT are remembered. */
	assert_int_equal(fmt_mod(1, MRC_CTL_EV_FMT_PROFILE_MODE, 0,
				 MRC_CTL_EV_FMT_MODE_UDP, NULL, 0),
			 0);
	assert_int_equal(P.fmt[1].state, MRC_CTL_PROFILE_INIT);
	assert_int_equal(fmt_state(1, MRC_CTL_PROFILE_OFFLINE), 0);
	assert_int_equal(P.fmt[1].mode, MRC_CTL_EV_FMT_MODE_UDP);
	/* To ONLINE needs fields. */
	assert_int_equal(fmt_state(1, MRC_CTL_PROFILE_ONLINE), -EINVAL);
	assert_int_equal(fmt_mod(1,
				 MRC_CTL_EV_FMT_PROFILE_STATE |
					 MRC_CTL_EV_FMT_PROFILE_OP,
				 MRC_CTL_PROFILE_ONLINE, 0, w16, 1),
			 0);
	assert_int_equal(P.fmt[1].state, MRC_CTL_PROFILE_ONLINE);
	assert_int_equal(P.fmt[1].nfields, 1);
	assert_int_equal(P.fmt[1].fields[0].width, 16);
	/* ONLINE: no MODE, no MODIFY_FIELDS; QUERY_FIELDS does nothing. */
	assert_int_equal(fmt_mod(1, MRC_CTL_EV_FMT_PROFILE_MODE, 0,
				 MRC_CTL_EV_FMT_MODE_STEV, NULL, 0),
			 -EINVAL);
	assert_int_equal(fmt_mod(1, MRC_CTL_EV_FMT_PROFILE_OP, 0, 0, w16, 1),
			 -EINVAL);
	{
		struct mrc_ctl_ev_fmt_profile_attr a = { 0 };

		a.ev_fmt_op.op = MRC_CTL_EV_FMT_OP_QUERY_FIELDS;
		assert_int_equal(prof_fmt_modify(&P, 1, &a,
						 MRC_CTL_EV_FMT_PROFILE_OP),
				 0);
		a.ev_fmt_op.op = 7;
		assert_int_equal(prof_fmt_modify(&P, 1, &a,
						 MRC_CTL_EV_FMT_PROFILE_OP),
				 -EINVAL);
	}
	/* ONLINE -> ONLINE no-op; ONLINE -> INIT skips a step. */
	assert_int_equal(fmt_state(1, MRC_CTL_PROFILE_ONLINE), 0);
	assert_int_equal(fmt_state(1, MRC_CTL_PROFILE_INIT), -EINVAL);
	/* ONLINE -> OFFLINE -> ONLINE -> OFFLINE -> INIT (cleared). */
	assert_int_equal(fmt_state(1, MRC_CTL_PROFILE_OFFLINE), 0);
	assert_int_equal(fmt_state(1, MRC_CTL_PROFILE_OFFLINE), 0);
	assert_int_equal(fmt_state(1, MRC_CTL_PROFILE_ONLINE), 0);
	assert_int_equal(fmt_state(1, MRC_CTL_PROFILE_OFFLINE), 0);
	assert_int_equal(fmt_state(1, MRC_CTL_PROFILE_INIT), 0);
	assert_memory_equal(&P.fmt[1], &zero, sizeof(zero));
	/* Cleared means cleared: OFFLINE needs MODE again. */
	assert_int_equal(fmt_state(1, MRC_CTL_PROFILE_OFFLINE), -EINVAL);
}

static void fmt_field_errors(void **state)
{
	struct mrc_ctl_ev_fmt_field w[9] = { { 2 }, { 2 }, { 2 }, { 2 }, { 2 },
					     { 2 }, { 2 }, { 2 }, { 2 } };
	struct mrc_ctl_ev_fmt_field w17[] = { { 17 } }, w0[] = { { 0 } };
	struct mrc_ctl_ev_fmt_field w32[] = { { 16 }, { 16 } };
	int op = MRC_CTL_EV_FMT_PROFILE_OP;

	(void)state;
	/* Fields without a mode to check them against. */
	assert_int_equal(fmt_mod(1, op, 0, 0, w, 1), -EINVAL);
	assert_int_equal(fmt_mod(1,
				 MRC_CTL_EV_FMT_PROFILE_STATE |
					 MRC_CTL_EV_FMT_PROFILE_MODE,
				 MRC_CTL_PROFILE_OFFLINE,
				 MRC_CTL_EV_FMT_MODE_UDP, NULL, 0),
			 0);
	assert_int_equal(fmt_mod(1, op, 0, 0, NULL, 1), -EINVAL);
	assert_int_equal(fmt_mod(1, op, 0, 0, w, 0), -EINVAL);
	assert_int_equal(fmt_mod(1, op, 0, 0, w0, 1), -EINVAL);
	assert_int_equal(fmt_mod(1, op, 0, 0, w, 9), -E2BIG); /* > 8 fields */
	assert_int_equal(fmt_mod(1, op, 0, 0, w17, 1), -E2BIG); /* UDP: 16 */
	assert_int_equal(P.fmt[1].have, PROF_HAVE_MODE);
	/* STEV carries 32 bits; back to UDP with them no longer fits. */
	assert_int_equal(fmt_mod(1, op | MRC_CTL_EV_FMT_PROFILE_MODE, 0,
				 MRC_CTL_EV_FMT_MODE_STEV, w32, 2),
			 0);
	assert_int_equal(fmt_mod(1, MRC_CTL_EV_FMT_PROFILE_MODE, 0,
				 MRC_CTL_EV_FMT_MODE_UDP, NULL, 0),
			 -E2BIG);
	assert_int_equal(P.fmt[1].mode, MRC_CTL_EV_FMT_MODE_STEV);
	/* ...unless new fields come in the same call. */
	assert_int_equal(fmt_mod(1, op | MRC_CTL_EV_FMT_PROFILE_MODE, 0,
				 MRC_CTL_EV_FMT_MODE_UDP, w, 8),
			 0);
	assert_int_equal(P.fmt[1].nfields, 8);
}

static void fmt_query(void **state)
{
	struct mrc_ctl_ev_fmt_field w[] = { { 4 }, { 8 }, { 4 } }, out[3];
	struct mrc_ctl_ev_fmt_profile_attr a = { 0 };
	int op = MRC_CTL_EV_FMT_PROFILE_OP;

	(void)state;
	fmt_online(5, MRC_CTL_EV_FMT_MODE_STEV, w, 3);

	/* Too short: E2BIG and the count needed. */
	a.ev_fmt_op.op = MRC_CTL_EV_FMT_OP_QUERY_FIELDS;
	a.ev_fmt_op.fmt_fields = out;
	a.ev_fmt_op.fmt_field_count = 2;
	assert_int_equal(prof_fmt_query(&P, 5, &a, op), -E2BIG);
	assert_int_equal(a.ev_fmt_op.fmt_field_count, 3);
	/* NULL with room for none: just the count. */
	a.ev_fmt_op.fmt_fields = NULL;
	a.ev_fmt_op.fmt_field_count = 0;
	assert_int_equal(prof_fmt_query(&P, 5, &a, op), -E2BIG);
	assert_int_equal(a.ev_fmt_op.fmt_field_count, 3);
	/* NULL with a count: EINVAL. */
	a.ev_fmt_op.fmt_field_count = 3;
	assert_int_equal(prof_fmt_query(&P, 5, &a, op), -EINVAL);
	/* MODIFY_FIELDS in a query: EINVAL. */
	a.ev_fmt_op.fmt_fields = out;
	a.ev_fmt_op.op = MRC_CTL_EV_FMT_OP_MODIFY_FIELDS;
	assert_int_equal(prof_fmt_query(&P, 5, &a, op), -EINVAL);
	/* The real thing, with the plain attributes. */
	memset(out, 0, sizeof(out));
	a.ev_fmt_op.op = MRC_CTL_EV_FMT_OP_QUERY_FIELDS;
	assert_int_equal(
		prof_fmt_query(&P, 5, &a,
			       op | MRC_CTL_EV_FMT_PROFILE_STATE |
				       MRC_CTL_EV_FMT_PROFILE_CUR_STATE |
				       MRC_CTL_EV_FMT_PROFILE_MODE),
		0);
	assert_int_equal(a.ev_fmt_op.fmt_field_count, 3);
	assert_int_equal(out[0].width, 4);
	assert_int_equal(out[1].width, 8);
	assert_int_equal(out[2].width, 4);
	assert_int_equal(a.profile_state, MRC_CTL_PROFILE_ONLINE);
	assert_int_equal(a.cur_profile_state, MRC_CTL_PROFILE_ONLINE);
	assert_int_equal(a.ev_fmt_mode, MRC_CTL_EV_FMT_MODE_STEV);
	/* A profile with no fields: zero of them, nothing needed. */
	a.ev_fmt_op.fmt_field_count = 0;
	a.ev_fmt_op.fmt_fields = NULL;
	assert_int_equal(prof_fmt_query(&P, 6, &a, op), 0);
	assert_int_equal(a.ev_fmt_op.fmt_field_count, 0);
}

static void fmt_busy_under_online_ev(void **state)
{
	(void)state;
	formats_online();
	exp_online(1, 2);
	/* An ONLINE EV profile sprays over FMT_UDP16. */
	assert_int_equal(fmt_state(FMT_UDP16, MRC_CTL_PROFILE_OFFLINE), -EBUSY);
	assert_int_equal(P.fmt[FMT_UDP16].state, MRC_CTL_PROFILE_ONLINE);
	/* Another format is free to go. */
	assert_int_equal(fmt_state(FMT_UDP88, MRC_CTL_PROFILE_OFFLINE), 0);
	/* An OFFLINE EV profile does not hold it. */
	assert_int_equal(ev_state(1, MRC_CTL_PROFILE_OFFLINE), 0);
	assert_int_equal(fmt_state(FMT_UDP16, MRC_CTL_PROFILE_OFFLINE), 0);
	/* ...but cannot go ONLINE without it. */
	assert_int_equal(ev_state(1, MRC_CTL_PROFILE_ONLINE), -EINVAL);
	assert_int_equal(fmt_state(FMT_UDP16, MRC_CTL_PROFILE_ONLINE), 0);
	assert_int_equal(ev_state(1, MRC_CTL_PROFILE_ONLINE), 0);
}

/* ---- EV profiles ------------------------------------------------------- */

static void ev_to_offline(void **state)
{
	struct mrc_ctl_ev_field bad[] = { { .width = 16,
					    .init_val = 0x10000 } };
	struct mrc_ctl_ev_field nine[9];
	struct mrc_ctl_ev_profile_attr a;
	int i;

	(void)state;
	for (i = 0; i < 9; i++)
		nine[i] = exp_f[0];
	/* The format is not ONLINE yet. */
	a = ev_attr(MRC_CTL_EV_MODE_EXP, FMT_UDP16, 4, exp_f, 1);
	assert_int_equal(prof_ev_modify(&P, 1, &a, OFFLINE_MASK), -EINVAL);
	formats_online();
	/* INIT -> ONLINE skips a step; a state that is none. */
	assert_int_equal(ev_state(1, MRC_CTL_PROFILE_ONLINE), -EINVAL);
	assert_int_equal(ev_state(1, 3), -EINVAL);
	/* Each requirement missing in turn. */
	assert_int_equal(prof_ev_modify(&P, 1, &a,
					OFFLINE_MASK &
						~MRC_CTL_EV_PROFILE_MODE),
			 -EINVAL);
	assert_int_equal(prof_ev_modify(&P, 1, &a,
					OFFLINE_MASK &
						~MRC_CTL_EV_PROFILE_FMT_ID),
			 -EINVAL);
	assert_int_equal(prof_ev_modify(&P, 1, &a,
					OFFLINE_MASK &
						~MRC_CTL_EV_PROFILE_COUNT),
			 -EINVAL);
	assert_int_equal(
		prof_ev_modify(&P, 1, &a,
			       OFFLINE_MASK & ~MRC_CTL_EV_PROFILE_EV_FIELDS_OP),
		-EINVAL);
	/* AUTO is profile 0's; an unknown mode. */
	a.ev_mode = MRC_CTL_EV_MODE_AUTO;
	assert_int_equal(prof_ev_modify(&P, 1, &a, OFFLINE_MASK), -EINVAL);
	a.ev_mode = 1 << 5;
	assert_int_equal(prof_ev_modify(&P, 1, &a, OFFLINE_MASK), -EINVAL);
	a.ev_mode = MRC_CTL_EV_MODE_EXP;
	/* A format that is no format, or INIT. */
	a.ev_fmt_profile_id = PROF_MAX_FMT;
	assert_int_equal(prof_ev_modify(&P, 1, &a, OFFLINE_MASK), -EINVAL);
	a.ev_fmt_profile_id = 9;
	assert_int_equal(prof_ev_modify(&P, 1, &a, OFFLINE_MASK), -EINVAL);
	a.ev_fmt_profile_id = FMT_UDP16;
	/* Count 0, count over the device's. */
	a.ev_count = 0;
	assert_int_equal(prof_ev_modify(&P, 1, &a, OFFLINE_MASK), -EINVAL);
	a.ev_count = PROF_EV_MAX_COUNT + 1;
	assert_int_equal(prof_ev_modify(&P, 1, &a, OFFLINE_MASK), -E2BIG);
	a.ev_count = 4;
	/* Fields: NULL, none, bad (init_val outside width), too many,
	 * more than the format has. */
	a.ev_fields_op.fields = NULL;
	assert_int_equal(prof_ev_modify(&P, 1, &a, OFFLINE_MASK), -EINVAL);
	a.ev_fields_op.fields = exp_f;
	a.ev_fields_op.field_count = 0;
	assert_int_equal(prof_ev_modify(&P, 1, &a, OFFLINE_MASK), -EINVAL);
	a.ev_fields_op.fields = bad;
	a.ev_fields_op.field_count = 1;
	assert_int_equal(prof_ev_modify(&P, 1, &a, OFFLINE_MASK), -EINVAL);
	a.ev_fields_op.fields = nine;
	a.ev_fields_op.field_count = 9;
	assert_int_equal(prof_ev_modify(&P, 1, &a, OFFLINE_MASK), -E2BIG);
	a.ev_fields_op.field_count = 2; /* FMT_UDP16 has one field */
	assert_int_equal(prof_ev_modify(&P, 1, &a, OFFLINE_MASK), -E2BIG);
	a.ev_fields_op.op = 9;
	assert_int_equal(prof_ev_modify(&P, 1, &a, OFFLINE_MASK), -EINVAL);
	assert_int_equal(P.ev[1].state, MRC_CTL_PROFILE_INIT);
	assert_int_equal(P.ev[1].have, 0);

	/* Given in INIT, remembered; then the state alone moves it. */
	a = ev_attr(MRC_CTL_EV_MODE_EXP, FMT_UDP16, 4, exp_f, 1);
	assert_int_equal(prof_ev_modify(&P, 1, &a,
					OFFLINE_MASK &
						~MRC_CTL_EV_PROFILE_STATE),
			 0);
	assert_int_equal(P.ev[1].state, MRC_CTL_PROFILE_INIT);
	assert_int_equal(ev_state(1, MRC_CTL_PROFILE_INIT), 0);
	assert_int_equal(ev_state(1, MRC_CTL_PROFILE_OFFLINE), 0);
	assert_int_equal(ev_cur_state(1), MRC_CTL_PROFILE_OFFLINE);
	/* An explicit array starts unpopulated. */
	for (i = 0; i < 4; i++) {
		assert_int_equal(P.ev[1].ev[i].cval, 0);
		assert_int_equal(P.ev[1].ev[i].val, 0);
		assert_int_equal(P.ev[1].ev[i].port, 0);
	}
	assert_int_equal(prof_ev_used(&P), 4);
	/* OFFLINE -> INIT clears. */
	assert_int_equal(ev_state(1, MRC_CTL_PROFILE_INIT), 0);
	assert_int_equal(P.ev[1].have, 0);
	assert_int_equal(P.ev[1].count, 0);
	assert_int_equal(prof_ev_used(&P), 0);
}

static void ev_to_online_and_back(void **state)
{
	struct mrc_ctl_ev_profile_attr a = { 0 };
	struct mrc_ctl_ev_field f2[] = { exp_f[0] };

	(void)state;
	formats_online();
	exp_offline(1, 2);
	assert_int_equal(replace(1, 0, 0, 0x10, 1, 0), 0);
	/* Needs MIN_ACTIVE, EVENT_MASK; min_active <= count. */
	a.profile_state = MRC_CTL_PROFILE_ONLINE;
	a.ev_min_active = 1;
	a.ev_event_mask = MRC_CTL_EV_GOOD;
	assert_int_equal(prof_ev_modify(&P, 1, &a,
					ONLINE_MASK &
						~MRC_CTL_EV_PROFILE_MIN_ACTIVE),
			 -EINVAL);
	assert_int_equal(prof_ev_modify(&P, 1, &a,
					ONLINE_MASK &
						~MRC_CTL_EV_PROFILE_EVENT_MASK),
			 -EINVAL);
	a.ev_min_active = 3;
	assert_int_equal(prof_ev_modify(&P, 1, &a, ONLINE_MASK), -EINVAL);
	a.ev_min_active = 2;
	/* Only GOOD and ASSUMED_BAD events. */
	a.ev_event_mask = MRC_CTL_EV_DENIED;
	assert_int_equal(prof_ev_modify(&P, 1, &a, ONLINE_MASK), -EINVAL);
	a.ev_event_mask = MRC_CTL_EV_GOOD | MRC_CTL_EV_ASSUMED_BAD;
	/* Entry 1 is still unpopulated. */
	assert_int_equal(prof_ev_modify(&P, 1, &a, ONLINE_MASK), -EINVAL);
	assert_int_equal(P.ev[1].state, MRC_CTL_PROFILE_OFFLINE);
	/* Replacing the last one in the same call is enough. */
	{
		struct mrc_ctl_ev_op_entry e = { .ev = ev_of(0, 0),
						 .ev_new = ev_of(0x11, 2) };

		a.ev_op.op = MRC_CTL_EV_OP_REPLACE_EV;
		a.ev_op.entries = &e;
		a.ev_op.entry_count = 1;
		assert_int_equal(
			prof_ev_modify(&P, 1, &a,
				       ONLINE_MASK | MRC_CTL_EV_PROFILE_EV_OP),
			0);
	}
	assert_int_equal(ev_cur_state(1), MRC_CTL_PROFILE_ONLINE);
	assert_int_equal(P.ev[1].min_active, 2);

	/* ONLINE: nothing that lays the array out anew. */
	a = ev_attr(MRC_CTL_EV_MODE_GEN, FMT_UDP16, 2, f2, 1);
	assert_int_equal(prof_ev_modify(&P, 1, &a, MRC_CTL_EV_PROFILE_MODE),
			 -EINVAL);
	assert_int_equal(prof_ev_modify(&P, 1, &a, MRC_CTL_EV_PROFILE_FMT_ID),
			 -EINVAL);
	assert_int_equal(prof_ev_modify(&P, 1, &a, MRC_CTL_EV_PROFILE_COUNT),
			 -EINVAL);
	assert_int_equal(prof_ev_modify(&P, 1, &a,
					MRC_CTL_EV_PROFILE_MIN_ACTIVE),
			 -EINVAL);
	assert_int_equal(prof_ev_modify(&P, 1, &a,
					MRC_CTL_EV_PROFILE_EV_FIELDS_OP),
			 -EINVAL);
	/* ...nor with the way out in the same call. */
	assert_int_equal(prof_ev_modify(&P, 1, &a,
					MRC_CTL_EV_PROFILE_STATE |
						MRC_CTL_EV_PROFILE_COUNT),
			 -EINVAL);
	assert_int_equal(ev_cur_state(1), MRC_CTL_PROFILE_ONLINE);
	/* EVENT_MASK and QUERY_FIELDS are fine (MODIFY_ONLINE). */
	a.ev_event_mask = MRC_CTL_EV_ASSUMED_BAD;
	a.ev_fields_op.op = MRC_CTL_EV_FIELDS_OP_QUERY_FIELDS;
	assert_int_equal(
		prof_ev_modify(&P, 1, &a,
			       MRC_CTL_EV_PROFILE_EVENT_MASK |
				       MRC_CTL_EV_PROFILE_EV_FIELDS_OP),
		0);
	assert_int_equal(P.ev[1].event_mask, MRC_CTL_EV_ASSUMED_BAD);
	/* ONLINE -> ONLINE no-op (STATE alone: MIN_ACTIVE is refused
	 * ONLINE), ONLINE -> INIT skips a step. */
	a.profile_state = MRC_CTL_PROFILE_ONLINE;
	assert_int_equal(prof_ev_modify(&P, 1, &a, MRC_CTL_EV_PROFILE_STATE),
			 0);
	assert_int_equal(ev_state(1, MRC_CTL_PROFILE_ONLINE), -EINVAL);
	assert_int_equal(ev_state(1, MRC_CTL_PROFILE_INIT), -EINVAL);

	/* EBUSY while a QP holds it; free once released. */
	assert_int_equal(prof_qp_use(&P, 1, 0), 0);
	assert_int_equal(ev_state(1, MRC_CTL_PROFILE_OFFLINE), -EBUSY);
	assert_int_equal(ev_cur_state(1), MRC_CTL_PROFILE_ONLINE);
	prof_qp_release(&P, 1, 0);
	assert_int_equal(ev_state(1, MRC_CTL_PROFILE_OFFLINE), 0);
	/* The array survives ONLINE -> OFFLINE. */
	assert_int_equal(P.ev[1].ev[0].cval, 0x10);
	assert_int_equal(P.ev[1].ev[1].cval, 0x11);
	assert_int_equal(ev_state(1, MRC_CTL_PROFILE_ONLINE), 0);
	assert_int_equal(ev_state(1, MRC_CTL_PROFILE_OFFLINE), 0);
	assert_int_equal(ev_state(1, MRC_CTL_PROFILE_INIT), 0);
	assert_int_equal(ev_cur_state(1), MRC_CTL_PROFILE_INIT);
}

static void ev_offline_changes(void **state)
{
	struct mrc_ctl_ev_profile_attr a;

	(void)state;
	formats_online();
	exp_offline(1, 3);
	assert_int_equal(replace(1, 0, 0, 0x21, 1, 0), 0);
	assert_int_equal(replace(1, 0, 0, 0x22, 2, 0), 0);
	/* A smaller count keeps the entries that remain... */
	a = ev_attr(MRC_CTL_EV_MODE_EXP, FMT_UDP16, 1, exp_f, 1);
	assert_int_equal(prof_ev_modify(&P, 1, &a, MRC_CTL_EV_PROFILE_COUNT),
			 0);
	assert_int_equal(P.ev[1].ev[0].cval, 0x21);
	assert_int_equal(P.ev[1].ev[1].port, 0);
	/* ...and a larger one adds unpopulated ones. */
	a.ev_count = 3;
	assert_int_equal(prof_ev_modify(&P, 1, &a, MRC_CTL_EV_PROFILE_COUNT),
			 0);
	assert_int_equal(P.ev[1].ev[0].cval, 0x21);
	assert_int_equal(P.ev[1].ev[1].port, 0);
	assert_int_equal(P.ev[1].ev[2].port, 0);
	assert_int_equal(prof_ev_used(&P), 3);
	/* New fields lay the array out anew: all unpopulated. */
	assert_int_equal(
		prof_ev_modify(&P, 1, &a, MRC_CTL_EV_PROFILE_EV_FIELDS_OP), 0);
	assert_int_equal(P.ev[1].ev[0].port, 0);
	/* Going generated fills it. */
	a = ev_attr(MRC_CTL_EV_MODE_GEN, FMT_UDP88, 3, gen_f, 2);
	assert_int_equal(prof_ev_modify(&P, 1, &a, OFFLINE_MASK), 0);
	assert_int_equal(P.ev[1].mode, MRC_CTL_EV_MODE_GEN);
	assert_int_equal(P.ev[1].ev[2].val, 0x0841);
}

/*
 * gen_f over FMT_UDP88, 5 EVs over ports 1 and 2. The last field counts
 * fastest; compact = f0 << 4 | f1; expanded = (0x8 | f0) << 8 |
 * (f1 << 4 | 0x1); ports alternate 1, 2, 1, ...
 *   i  f0 f1  cval  val     port
 *   0  0  2   0x02  0x0821  1
 *   1  0  3   0x03  0x0831  2
 *   2  0  4   0x04  0x0841  1
 *   3  1  2   0x12  0x0921  2
 *   4  1  3   0x13  0x0931  1
 *  (5  1  4   0x14  0x0941     only with count 6)
 */
static void gen_two_ports(void **state)
{
	static const uint32_t cval[] = { 0x02, 0x03, 0x04, 0x12, 0x13 };
	static const uint32_t val[] = { 0x0821, 0x0831, 0x0841, 0x0921,
					0x0931 };
	struct mrc_ctl_ev_op_entry e[PROF_EV_MAX_COUNT];
	struct mrc_ctl_ev_profile_attr a;
	int i;

	(void)state;
	formats_online();
	/* Six EVs exist: seven cannot be generated. */
	a = ev_attr(MRC_CTL_EV_MODE_GEN, FMT_UDP88, 7, gen_f, 2);
	assert_int_equal(prof_ev_modify(&P, 2, &a, OFFLINE_MASK), -EINVAL);
	a.ev_count = 6;
	assert_int_equal(prof_ev_modify(&P, 2, &a, OFFLINE_MASK), 0);
	assert_int_equal(P.ev[2].ev[5].cval, 0x14);
	assert_int_equal(P.ev[2].ev[5].val, 0x0941);
	assert_int_equal(P.ev[2].ev[5].port, 2);
	assert_int_equal(ev_state(2, MRC_CTL_PROFILE_INIT), 0);

	a.ev_count = 5;
	assert_int_equal(prof_ev_modify(&P, 2, &a, OFFLINE_MASK), 0);
	for (i = 0; i < 5; i++) {
		assert_int_equal(P.ev[2].ev[i].cval, cval[i]);
		assert_int_equal(P.ev[2].ev[i].val, val[i]);
		assert_int_equal(P.ev[2].ev[i].port, i % 2 ? 2 : 1);
		assert_int_equal(P.ev[2].ev[i].denied, 0);
	}
	assert_int_equal(P.ev[2].ev[5].port, 0); /* past count: zero */
	/* Generated: ONLINE without any REPLACE; REPLACE is refused. */
	assert_int_equal(replace(2, 0x02, 1, 0x05, 1, 0), -EINVAL);
	assert_int_equal(ev_state(2, MRC_CTL_PROFILE_ONLINE), 0);
	/* The API shows the compact values. */
	assert_int_equal(query_array(2, e), 5);
	for (i = 0; i < 5; i++) {
		/* ONLINE expands afresh from the compact values: same. */
		assert_int_equal(P.ev[2].ev[i].val, val[i]);
		assert_int_equal(cval_of(&e[i].ev), cval[i]);
		assert_int_equal(e[i].ev.port, i % 2 ? 2 : 1);
		assert_int_equal(e[i].state, MRC_CTL_EV_GOOD);
	}
	/* A port mask with one port: every EV on it. */
	assert_int_equal(ev_state(2, MRC_CTL_PROFILE_OFFLINE), 0);
	assert_int_equal(ev_state(2, MRC_CTL_PROFILE_INIT), 0);
	P.port_mask = 1u << 2;
	assert_int_equal(prof_ev_modify(&P, 2, &a, OFFLINE_MASK), 0);
	for (i = 0; i < 5; i++)
		assert_int_equal(P.ev[2].ev[i].port, 2);
	/* No port at all: nothing to put them on. */
	assert_int_equal(ev_state(2, MRC_CTL_PROFILE_INIT), 0);
	P.port_mask = 0;
	assert_int_equal(prof_ev_modify(&P, 2, &a, OFFLINE_MASK), -EINVAL);
}

static void ev_op_errors(void **state)
{
	struct mrc_ctl_ev_op_entry e[PROF_EV_MAX_COUNT + 1] = { 0 };
	struct mrc_ctl_ev_profile_attr a = { 0 };
	int m = MRC_CTL_EV_PROFILE_EV_OP;

	(void)state;
	formats_online();
	a.ev_op.op = MRC_CTL_EV_OP_MODIFY_EV_STATE;
	a.ev_op.entries = e;
	a.ev_op.entry_count = 1;
	/* INIT: no array yet. */
	assert_int_equal(prof_ev_modify(&P, 1, &a, m), -EINVAL);
	assert_int_equal(prof_ev_query(&P, 1, &a, m), -EINVAL);
	exp_offline(1, 4);
	/* With EV_FIELDS_OP: EINVAL, in a modify and in a query. */
	assert_int_equal(prof_ev_modify(&P, 1, &a,
					m | MRC_CTL_EV_PROFILE_EV_FIELDS_OP),
			 -EINVAL);
	assert_int_equal(prof_ev_query(&P, 1, &a,
				       m | MRC_CTL_EV_PROFILE_EV_FIELDS_OP),
			 -EINVAL);
	/* entry_count: 0, NULL entries, over the device's. */
	a.ev_op.entry_count = 0;
	assert_int_equal(prof_ev_modify(&P, 1, &a, m), -EINVAL);
	a.ev_op.entry_count = 1;
	a.ev_op.entries = NULL;
	assert_int_equal(prof_ev_modify(&P, 1, &a, m), -EINVAL);
	a.ev_op.entries = e;
	a.ev_op.entry_count = PROF_OP_MAX_ENTRIES + 1;
	assert_int_equal(prof_ev_modify(&P, 1, &a, m), -E2BIG);
	assert_int_equal(a.ev_op.entry_count, PROF_OP_MAX_ENTRIES + 1);
	/* An op that is none. */
	a.ev_op.entry_count = 1;
	a.ev_op.op = 17;
	assert_int_equal(prof_ev_modify(&P, 1, &a, m), -EINVAL);
	/* REPLACE_EV's new EV: port not ours (3), port 0, too many compact
	 * bits (exp_f has 8); flags unknown. */
	assert_int_equal(replace(1, 0, 0, 0x10, 3, 0), -EINVAL);
	assert_int_equal(replace(1, 0, 0, 0x10, 0, 0), -EINVAL);
	assert_int_equal(replace(1, 0, 0, 0x100, 1, 0), -EINVAL);
	assert_int_equal(replace(1, 0, 0, 0x10, 1, 1u << 4), -EINVAL);
	/* No such EV. */
	assert_int_equal(replace(1, 0x10, 1, 0x11, 1, 0), -ENOENT);
	assert_int_equal(replace(1, 0, 0, 0xff, 1, 0), 0);
	assert_int_equal(P.ev[1].ev[0].val, 0x80ff);
	assert_int_equal(replace(1, 0xff, 2, 0x11, 1, 0), -ENOENT);
	/* MODIFY_EV_STATE: ASSUMED_BAD is the data path's; no such EV. */
	assert_int_equal(set_state(1, 0xff, 1, MRC_CTL_EV_ASSUMED_BAD),
			 -EINVAL);
	assert_int_equal(set_state(1, 0xff, 1, MRC_CTL_EV_UNKNOWN), -EINVAL);
	assert_int_equal(set_state(1, 0xfe, 1, MRC_CTL_EV_DENIED), -ENOENT);
	/* An unpopulated entry is no EV. */
	assert_int_equal(set_state(1, 0, 0, MRC_CTL_EV_DENIED), -ENOENT);
}

static void ev_op_stops_at_first_failure(void **state)
{
	struct mrc_ctl_ev_op_entry e[3] = {
		{ .ev = ev_of(0, 0), .ev_new = ev_of(0x05, 1) },
		{ .ev = ev_of(0x99, 1), .ev_new = ev_of(0x06, 1) },
		{ .ev = ev_of(0, 0), .ev_new = ev_of(0x07, 1) },
	};
	struct mrc_ctl_ev_profile_attr a = { 0 };

	(void)state;
	formats_online();
	exp_offline(1, 3);
	a.ev_op.op = MRC_CTL_EV_OP_REPLACE_EV;
	a.ev_op.entries = e;
	a.ev_op.entry_count = 3;
	a.ev_event_mask = MRC_CTL_EV_GOOD;
	/* Entry 1 fails: entry 0 stays, entry 2 never runs, and the
	 * other attribute of the call is not applied. */
	assert_int_equal(prof_ev_modify(&P, 1, &a,
					MRC_CTL_EV_PROFILE_EV_OP |
						MRC_CTL_EV_PROFILE_EVENT_MASK),
			 -ENOENT);
	assert_int_equal(a.ev_op.entry_count, 3);
	assert_int_equal(P.ev[1].ev[0].cval, 0x05);
	assert_int_equal(P.ev[1].ev[0].port, 1);
	assert_int_equal(P.ev[1].ev[1].port, 0);
	assert_int_equal(P.ev[1].ev[2].port, 0);
	assert_false(P.ev[1].have & PROF_HAVE_EVENT_MASK);
}

/* ONLINE, REPLACE_EV is allowed until a QP holds the profile: EBUSY. */
static void replace_busy_under_qps(void **state)
{
	(void)state;
	formats_online();
	exp_online(1, 2);
	assert_int_equal(replace(1, 1, 1, 0x40, 1, 0), 0); /* nobody uses it */
	assert_int_equal(prof_qp_use(&P, 1, 0), 0);
	assert_int_equal(replace(1, 0x40, 1, 0x41, 1, 0), -EBUSY);
	prof_qp_release(&P, 1, 0);
	assert_int_equal(replace(1, 0x40, 1, 0x41, 1, 0), 0);
}

static void replace_one_vs_all(void **state)
{
	struct mrc_ctl_ev_op_entry e[PROF_EV_MAX_COUNT];
	int i;

	(void)state;
	formats_online();
	exp_offline(1, 4);
	/* One copy: the first unpopulated entry only. */
	assert_int_equal(replace(1, 0, 0, 0x30, 1, 0), 0);
	assert_int_equal(query_array(1, e), 4);
	assert_int_equal(cval_of(&e[0].ev), 0x30);
	assert_int_equal(e[0].ev.port, 1);
	assert_int_equal(e[0].state, MRC_CTL_EV_GOOD);
	for (i = 1; i < 4; i++) {
		assert_int_equal(e[i].ev.port, 0);
		assert_int_equal(e[i].state, MRC_CTL_EV_UNKNOWN);
	}
	/* All copies: the three left. */
	assert_int_equal(replace(1, 0, 0, 0x31, 2, MRC_CTL_EV_OP_F_ALL_COPIES),
			 0);
	assert_int_equal(query_array(1, e), 4);
	assert_int_equal(cval_of(&e[0].ev), 0x30);
	for (i = 1; i < 4; i++) {
		assert_int_equal(cval_of(&e[i].ev), 0x31);
		assert_int_equal(e[i].ev.port, 2);
		assert_int_equal(P.ev[1].ev[i].val, 0x8031);
	}
	/* The same value on another port is another EV. */
	assert_int_equal(replace(1, 0x31, 1, 0x32, 1, 0), -ENOENT);
	/* 0x31 on port 2: one copy, then all the others. */
	assert_int_equal(replace(1, 0x31, 2, 0x32, 1, 0), 0);
	assert_int_equal(P.ev[1].ev[1].cval, 0x32);
	assert_int_equal(P.ev[1].ev[2].cval, 0x31);
	assert_int_equal(
		replace(1, 0x31, 2, 0x33, 2, MRC_CTL_EV_OP_F_ALL_COPIES), 0);
	assert_int_equal(P.ev[1].ev[2].cval, 0x33);
	assert_int_equal(P.ev[1].ev[3].cval, 0x33);
	assert_int_equal(P.ev[1].ev[3].val, 0x8033);
	assert_int_equal(P.ev[1].ev[1].cval, 0x32);
	/* ONLINE (MODIFY_ONLINE): REPLACE still allowed, re-expanded. */
	assert_int_equal(ev_state(1, MRC_CTL_PROFILE_ONLINE), 0);
	assert_int_equal(replace(1, 0x30, 1, 0x3f, 2, 0), 0);
	assert_int_equal(P.ev[1].ev[0].val, 0x803f);
	assert_int_equal(P.ev[1].ev[0].port, 2);
}

static uint32_t runtime_calls;

/* Entry 1 is ASSUMED_BAD in some QP, the rest GOOD. */
static uint32_t runtime_state(void *ctx, uint64_t id, int idx)
{
	assert_ptr_equal(ctx, &runtime_calls);
	assert_int_equal(id, 1);
	runtime_calls++;
	return idx == 1 ? MRC_CTL_EV_ASSUMED_BAD : MRC_CTL_EV_GOOD;
}

static void deny_then_good(void **state)
{
	struct mrc_ctl_ev_op_entry e[PROF_EV_MAX_COUNT];
	enum mrc_ctl_ev_state st;

	(void)state;
	formats_online();
	exp_online(1, 3); /* compact 1, 2, 3 on port 1 */
	assert_int_equal(query_state(1, 2, 1, &st), 0);
	assert_int_equal(st, MRC_CTL_EV_GOOD); /* no hook: GOOD */
	assert_int_equal(set_state(1, 2, 1, MRC_CTL_EV_DENIED), 0);
	assert_int_equal(query_state(1, 2, 1, &st), 0);
	assert_int_equal(st, MRC_CTL_EV_DENIED);
	assert_int_equal(P.ev[1].ev[1].denied, 1);
	/* With the hook: DENIED is still the profile's own. */
	P.ev_runtime_state = runtime_state;
	P.ctx = &runtime_calls;
	assert_int_equal(query_state(1, 2, 1, &st), 0);
	assert_int_equal(st, MRC_CTL_EV_DENIED);
	assert_int_equal(runtime_calls, 0);
	/* Allowed again: the data path's view decides. */
	assert_int_equal(set_state(1, 2, 1, MRC_CTL_EV_GOOD), 0);
	assert_int_equal(P.ev[1].ev[1].denied, 0);
	assert_int_equal(query_state(1, 2, 1, &st), 0);
	assert_int_equal(st, MRC_CTL_EV_ASSUMED_BAD);
	assert_int_equal(query_state(1, 3, 1, &st), 0);
	assert_int_equal(st, MRC_CTL_EV_GOOD);
	assert_int_equal(runtime_calls, 2);
	/* Not in the array. */
	assert_int_equal(query_state(1, 3, 2, &st), -ENOENT);
	/* The array query uses the same rule. */
	assert_int_equal(set_state(1, 1, 1, MRC_CTL_EV_DENIED), 0);
	assert_int_equal(query_array(1, e), 3);
	assert_int_equal(e[0].state, MRC_CTL_EV_DENIED);
	assert_int_equal(e[1].state, MRC_CTL_EV_ASSUMED_BAD);
	assert_int_equal(e[2].state, MRC_CTL_EV_GOOD);
	/* REPLACE_EV with DENIED sets it; with anything else clears it. */
	assert_int_equal(ev_state(1, MRC_CTL_PROFILE_OFFLINE), 0);
	{
		struct mrc_ctl_ev_op_entry r = { .ev = ev_of(3, 1),
						 .ev_new = ev_of(4, 2),
						 .state = MRC_CTL_EV_DENIED };

		assert_int_equal(ev_op1(1, MRC_CTL_EV_OP_REPLACE_EV, &r), 0);
		assert_int_equal(P.ev[1].ev[2].denied, 1);
		r.ev = ev_of(1, 1);
		r.ev_new = ev_of(1, 1);
		r.state = MRC_CTL_EV_ASSUMED_BAD;
		assert_int_equal(ev_op1(1, MRC_CTL_EV_OP_REPLACE_EV, &r), 0);
		assert_int_equal(P.ev[1].ev[0].denied, 0);
	}
}

static void ev_query(void **state)
{
	struct mrc_ctl_ev_op_entry e[PROF_EV_MAX_COUNT];
	struct mrc_ctl_ev_field f[2];
	struct mrc_ctl_ev_profile_attr a = { 0 };
	int m;

	(void)state;
	formats_online();
	exp_online(1, 3);

	/* Plain attributes. */
	m = MRC_CTL_EV_PROFILE_STATE | MRC_CTL_EV_PROFILE_CUR_STATE |
	    MRC_CTL_EV_PROFILE_MODE | MRC_CTL_EV_PROFILE_FMT_ID |
	    MRC_CTL_EV_PROFILE_COUNT | MRC_CTL_EV_PROFILE_MIN_ACTIVE |
	    MRC_CTL_EV_PROFILE_EVENT_MASK;
	assert_int_equal(prof_ev_query(&P, 1, &a, m), 0);
	assert_int_equal(a.profile_state, MRC_CTL_PROFILE_ONLINE);
	assert_int_equal(a.cur_profile_state, MRC_CTL_PROFILE_ONLINE);
	assert_int_equal(a.ev_mode, MRC_CTL_EV_MODE_EXP);
	assert_int_equal(a.ev_fmt_profile_id, FMT_UDP16);
	assert_int_equal(a.ev_count, 3);
	assert_int_equal(a.ev_min_active, 1);
	assert_int_equal(a.ev_event_mask, MRC_CTL_EV_GOOD);

	/* The array, too short: E2BIG and the count needed. */
	a.ev_op.op = MRC_CTL_EV_OP_QUERY_EV_ARRAY;
	a.ev_op.entries = e;
	a.ev_op.entry_count = 2;
	assert_int_equal(prof_ev_query(&P, 1, &a, MRC_CTL_EV_PROFILE_EV_OP),
			 -E2BIG);
	assert_int_equal(a.ev_op.entry_count, 3);
	a.ev_op.entry_count = 3;
	assert_int_equal(prof_ev_query(&P, 1, &a, MRC_CTL_EV_PROFILE_EV_OP), 0);
	assert_int_equal(cval_of(&e[2].ev), 3);
	/* Modifying ops in a query. */
	a.ev_op.op = MRC_CTL_EV_OP_REPLACE_EV;
	assert_int_equal(prof_ev_query(&P, 1, &a, MRC_CTL_EV_PROFILE_EV_OP),
			 -EINVAL);
	a.ev_op.op = MRC_CTL_EV_OP_MODIFY_EV_STATE;
	assert_int_equal(prof_ev_query(&P, 1, &a, MRC_CTL_EV_PROFILE_EV_OP),
			 -EINVAL);
	/* QUERY_EV_STATE stops at the first EV it cannot find. */
	a.ev_op.op = MRC_CTL_EV_OP_QUERY_EV_STATE;
	e[0].ev = ev_of(1, 1);
	e[1].ev = ev_of(7, 1);
	e[0].state = e[1].state = 0;
	a.ev_op.entry_count = 2;
	assert_int_equal(prof_ev_query(&P, 1, &a, MRC_CTL_EV_PROFILE_EV_OP),
			 -ENOENT);
	assert_int_equal(e[0].state, MRC_CTL_EV_GOOD);
	/* Query ops in a modify: accepted, nothing written. */
	e[1].ev = ev_of(2, 1);
	e[1].state = 0;
	assert_int_equal(prof_ev_modify(&P, 1, &a, MRC_CTL_EV_PROFILE_EV_OP),
			 0);
	assert_int_equal(e[1].state, 0);

	/* Fields: too short, E2BIG and the count; NULL with a count;
	 * MODIFY_FIELDS in a query; then the copy. */
	a.ev_fields_op.op = MRC_CTL_EV_FIELDS_OP_QUERY_FIELDS;
	a.ev_fields_op.fields = f;
	a.ev_fields_op.field_count = 0;
	assert_int_equal(prof_ev_query(&P, 1, &a,
				       MRC_CTL_EV_PROFILE_EV_FIELDS_OP),
			 -E2BIG);
	assert_int_equal(a.ev_fields_op.field_count, 1);
	a.ev_fields_op.fields = NULL;
	assert_int_equal(prof_ev_query(&P, 1, &a,
				       MRC_CTL_EV_PROFILE_EV_FIELDS_OP),
			 -EINVAL);
	a.ev_fields_op.fields = f;
	a.ev_fields_op.op = MRC_CTL_EV_FIELDS_OP_MODIFY_FIELDS;
	assert_int_equal(prof_ev_query(&P, 1, &a,
				       MRC_CTL_EV_PROFILE_EV_FIELDS_OP),
			 -EINVAL);
	a.ev_fields_op.op = MRC_CTL_EV_FIELDS_OP_QUERY_FIELDS;
	a.ev_fields_op.field_count = 2;
	memset(f, 0, sizeof(f));
	assert_int_equal(
		prof_ev_query(&P, 1, &a, MRC_CTL_EV_PROFILE_EV_FIELDS_OP), 0);
	assert_int_equal(a.ev_fields_op.field_count, 1);
	assert_memory_equal(&f[0], &exp_f[0], sizeof(f[0]));

	/* Profile 0's array is empty; an INIT profile has none. */
	a.ev_op.op = MRC_CTL_EV_OP_QUERY_EV_ARRAY;
	a.ev_op.entries = e;
	a.ev_op.entry_count = 1;
	assert_int_equal(prof_ev_query(&P, 0, &a, MRC_CTL_EV_PROFILE_EV_OP), 0);
	assert_int_equal(a.ev_op.entry_count, 0);
	a.ev_op.entry_count = 1;
	assert_int_equal(prof_ev_query(&P, 5, &a, MRC_CTL_EV_PROFILE_EV_OP),
			 -EINVAL);
}

/* ---- CC profiles -------------------------------------------------------- */

/*
 * The default the device offers: ONLINE uet-1.0-nscc with mrc's
 * parameters, usable by a QP at once, and a controller's like any other
 * (offline, changed, back online) once no QP holds it.
 */
static void cc_default_offered(void **state)
{
	struct mrc_ctl_cc_profile_attr a = { 0 };
	const struct mrc_ctl_cc_nscc_cfg *c;

	(void)state;
	assert_int_equal(prof_cc_offer_default(&P), 0);
	assert_int_equal(prof_cc_query(&P, PROF_CC_DEFAULT, &a,
				       MRC_CTL_CC_PROFILE_STATE |
					       MRC_CTL_CC_PROFILE_ALGORITHM |
					       MRC_CTL_CC_PROFILE_CONFIG),
			 0);
	assert_int_equal(a.profile_state, MRC_CTL_PROFILE_ONLINE);
	assert_string_equal(a.algorithm, "uet-1.0-nscc");
	c = a.cc_config;
	assert_non_null(c);
	assert_memory_equal(c, &mrc_cc_soft_nscc, sizeof(*c));
	assert_int_equal(P.cc[PROF_CC_DEFAULT].params.target_delay_ns,
			 mrc_cc_soft_nscc.target_delay);
	assert_int_equal(prof_qp_use(&P, 0, PROF_CC_DEFAULT), 0);
	assert_int_equal(cc_mod(PROF_CC_DEFAULT, MRC_CTL_CC_PROFILE_STATE,
				MRC_CTL_PROFILE_OFFLINE, NULL, NULL),
			 -EBUSY);
	prof_qp_release(&P, 0, PROF_CC_DEFAULT);
	assert_int_equal(cc_mod(PROF_CC_DEFAULT, MRC_CTL_CC_PROFILE_STATE,
				MRC_CTL_PROFILE_OFFLINE, NULL, NULL),
			 0);
	assert_int_equal(cc_mod(PROF_CC_DEFAULT,
				MRC_CTL_CC_PROFILE_STATE |
					MRC_CTL_CC_PROFILE_CONFIG,
				MRC_CTL_PROFILE_ONLINE, NULL, &nscc_ok),
			 0);
	/* The others are untouched. */
	assert_int_equal(P.cc[1].state, MRC_CTL_PROFILE_INIT);
}

static void cc_transitions(void **state)
{
	struct mrc_ctl_cc_profile_attr a = { 0 };
	struct prof_cc zero = { 0 };
	int st = MRC_CTL_CC_PROFILE_STATE, al = MRC_CTL_CC_PROFILE_ALGORITHM,
	    cf = MRC_CTL_CC_PROFILE_CONFIG;

	(void)state;
	/* INIT -> ONLINE skips a step; OFFLINE needs ALGORITHM. */
	assert_int_equal(cc_mod(1, st, MRC_CTL_PROFILE_ONLINE, NULL, NULL),
			 -EINVAL);
	assert_int_equal(cc_mod(1, st, MRC_CTL_PROFILE_OFFLINE, NULL, NULL),
			 -EINVAL);
	assert_int_equal(cc_mod(1, st, 3, NULL, NULL), -EINVAL);
	/* Unknown algorithm; CONFIG with no algorithm to read it as. */
	assert_int_equal(cc_mod(1, st | al, MRC_CTL_PROFILE_OFFLINE, "dctcp",
				NULL),
			 -EINVAL);
	assert_int_equal(cc_mod(1, cf, 0, NULL, &nscc_ok), -EINVAL);
	assert_int_equal(cc_mod(1, st | al, MRC_CTL_PROFILE_OFFLINE,
				"uet-1.0-nscc", NULL),
			 0);
	/* ONLINE needs CONFIG; NSCC's must be there and sane. */
	assert_int_equal(cc_mod(1, st, MRC_CTL_PROFILE_ONLINE, NULL, NULL),
			 -EINVAL);
	assert_int_equal(cc_mod(1, st | cf, MRC_CTL_PROFILE_ONLINE, NULL, NULL),
			 -EINVAL);
	{
		struct mrc_ctl_cc_nscc_cfg bad = nscc_ok;

		bad.base_rtt = 0;
		assert_int_equal(cc_mod(1, cf, 0, NULL, &bad), -EINVAL);
		bad = nscc_ok;
		bad.target_delay = 0;
		assert_int_equal(cc_mod(1, cf, 0, NULL, &bad), -EINVAL);
		bad = nscc_ok;
		bad.max_cwnd = 0;
		assert_int_equal(cc_mod(1, cf, 0, NULL, &bad), -EINVAL);
		bad = nscc_ok;
		bad.eta = NAN;
		assert_int_equal(cc_mod(1, cf, 0, NULL, &bad), -EINVAL);
		bad = nscc_ok;
		bad.fi = INFINITY;
		assert_int_equal(cc_mod(1, cf, 0, NULL, &bad), -EINVAL);
		bad = nscc_ok;
		bad.gamma = -0.1f;
		assert_int_equal(cc_mod(1, cf, 0, NULL, &bad), -EINVAL);
		bad = nscc_ok;
		bad.max_md_jump = -1.0f;
		assert_int_equal(cc_mod(1, cf, 0, NULL, &bad), -EINVAL);
		/* What the data path's fixed point cannot hold, too. */
		bad = nscc_ok;
		bad.gamma = 1.5f;
		assert_int_equal(cc_mod(1, cf, 0, NULL, &bad), -EINVAL);
		bad = nscc_ok;
		bad.qa_gate = 40;
		assert_int_equal(cc_mod(1, cf, 0, NULL, &bad), -EINVAL);
		bad = nscc_ok;
		bad.adjust_period_threshold = 0;
		assert_int_equal(cc_mod(1, cf, 0, NULL, &bad), -EINVAL);
	}
	assert_int_equal(
		cc_mod(1, st | cf, MRC_CTL_PROFILE_ONLINE, NULL, &nscc_ok), 0);
	/* Converted once, for the data path. */
	assert_int_equal(P.cc[1].params.mtu_bytes, PROF_CC_MTU_BYTES);
	assert_int_equal(P.cc[1].params.max_cwnd_bytes, 1 << 20);
	assert_int_equal(P.cc[1].params.target_delay_ns, 20000);
	assert_int_equal(P.cc[1].params.gamma_q16, 52429); /* 0.8, rounded */
	/* The query: the library's string and the stored config. */
	assert_int_equal(prof_cc_query(&P, 1, &a,
				       st | al | cf |
					       MRC_CTL_CC_PROFILE_CUR_STATE),
			 0);
	assert_ptr_equal(a.algorithm, prof_cc_algorithms[0]);
	assert_ptr_equal(a.cc_config, &P.cc[1].nscc);
	assert_memory_equal(a.cc_config, &nscc_ok, sizeof(nscc_ok));
	assert_int_equal(a.profile_state, MRC_CTL_PROFILE_ONLINE);
	assert_int_equal(a.cur_profile_state, MRC_CTL_PROFILE_ONLINE);
	/* ONLINE: no CONFIG (no CC_PROFILE_MODIFY_ONLINE), no ALGORITHM. */
	assert_int_equal(cc_mod(1, cf, 0, NULL, &nscc_ok), -EINVAL);
	assert_int_equal(cc_mod(1, al, 0, NULL, NULL), -EINVAL);
	assert_int_equal(cc_mod(1, st, MRC_CTL_PROFILE_INIT, NULL, NULL),
			 -EINVAL);
	assert_int_equal(cc_mod(1, st, MRC_CTL_PROFILE_ONLINE, NULL, NULL), 0);
	/* EBUSY with a QP on it. */
	assert_int_equal(prof_qp_use(&P, 0, 1), 0);
	assert_int_equal(cc_mod(1, st, MRC_CTL_PROFILE_OFFLINE, NULL, NULL),
			 -EBUSY);
	prof_qp_release(&P, 0, 1);
	assert_int_equal(cc_mod(1, st, MRC_CTL_PROFILE_OFFLINE, NULL, NULL), 0);
	/* A new algorithm needs its own CONFIG again. */
	assert_int_equal(cc_mod(1, al, 0, NULL, NULL), 0);
	assert_int_equal(cc_mod(1, st, MRC_CTL_PROFILE_ONLINE, NULL, NULL),
			 -EINVAL);
	/* None: CONFIG ignored, but needed once. */
	assert_int_equal(cc_mod(1, st | cf, MRC_CTL_PROFILE_ONLINE, NULL, NULL),
			 0);
	assert_int_equal(prof_cc_query(&P, 1, &a, al | cf), 0);
	assert_null(a.algorithm);
	assert_null(a.cc_config);
	assert_int_equal(cc_mod(1, st, MRC_CTL_PROFILE_OFFLINE, NULL, NULL), 0);
	assert_int_equal(cc_mod(1, st, MRC_CTL_PROFILE_INIT, NULL, NULL), 0);
	assert_memory_equal(&P.cc[1], &zero, sizeof(zero));
}

/* ---- QPs ----------------------------------------------------------------- */

static void qp_use(void **state)
{
	/* Four EVs: compact 0..3 in the low bits. */
	struct mrc_ctl_ev_field srv6_f[] = {
		{ .width = 16, .mask = 0x3, .max_val = 3 },
	};
	struct mrc_ctl_ev_profile_attr a;

	(void)state;
	assert_int_equal(prof_qp_use(&P, PROF_MAX_EV, 0), -ENOENT);
	assert_int_equal(prof_qp_use(&P, 0, PROF_MAX_CC), -ENOENT);
	/* Not ONLINE, either one. */
	assert_int_equal(prof_qp_use(&P, 1, 0), -EINVAL);
	assert_int_equal(prof_qp_use(&P, 0, 1), -EINVAL);
	assert_int_equal(P.ev[0].users, 0);
	assert_int_equal(P.cc[0].users, 0);
	formats_online();
	exp_online(1, 2);
	nscc_online(2);
	assert_int_equal(prof_qp_use(&P, 1, 2), 0);
	assert_int_equal(prof_qp_use(&P, 1, 2), 0);
	assert_int_equal(P.ev[1].users, 2);
	assert_int_equal(P.cc[2].users, 2);
	prof_qp_release(&P, 1, 2);
	prof_qp_release(&P, 1, 2);
	prof_qp_release(&P, 1, 2); /* one too many: stays 0 */
	assert_int_equal(P.ev[1].users, 0);
	assert_int_equal(P.cc[2].users, 0);
	prof_qp_release(&P, PROF_MAX_EV, PROF_MAX_CC); /* ignored */

	/* SRV6: held like any other (mrcd's ctl checks the device). */
	a = ev_attr(MRC_CTL_EV_MODE_GEN, FMT_SRV6, 4, srv6_f, 1);
	assert_int_equal(prof_ev_modify(&P, 3, &a, OFFLINE_MASK), 0);
	assert_int_equal(ev_state(3, MRC_CTL_PROFILE_ONLINE), 0);
	assert_int_equal(prof_qp_use(&P, 3, 0), 0);
	assert_int_equal(P.ev[3].users, 1);
	assert_int_equal(P.cc[0].users, 1);
	assert_int_equal(ev_state(3, MRC_CTL_PROFILE_OFFLINE), -EBUSY);
	prof_qp_release(&P, 3, 0);
	assert_int_equal(P.ev[3].users, 0);
	assert_int_equal(P.cc[0].users, 0);
	assert_int_equal(prof_ev_used(&P), 2 + 4);
}

/* ---- SRv6 ---------------------------------------------------------------- */

/*
 * The testbed's uSID plan (mrcctl ev-profile usid) for host 2 over 2
 * spines and 2 planes: block fdbb:bb00, spine uSID 0x02SS, leaf 0xP1HH.
 * Compact: spine in bits 11..4, plane in 3..0; generated: plane fastest.
 */
static struct mrc_ctl_ev_fmt_field usid_ff[] = { { 32 }, { 16 }, { 4 }, { 12 } };
static struct mrc_ctl_ev_field usid_f[] = {
	{ .width = 32, .init_val = 0xfdbbbb00 },
	{ .width = 16, .init_val = 0x0200, .mask = 0x00ff, .max_val = 1 },
	{ .width = 4, .mask = 0xf, .max_val = 1 },
	{ .width = 12, .init_val = 0x102 },
};

static void assert_sval(const struct prof_ev_ent *e, const char *dst)
{
	uint8_t want[MRC_CTL_EV_MAX_BYTES] = { 0 };
	char got[MRC_EV_SRV6_STR_LEN];

	assert_int_equal(inet_pton(AF_INET6, dst, want), 1);
	if (memcmp(e->sval, want, sizeof(want))) {
		ev_srv6_str(e->sval, got, sizeof(got));
		fail_msg("sval %s, want %s", got, dst);
	}
}

static int sval_zero(const struct prof_ev_ent *e)
{
	static const uint8_t zero[MRC_CTL_EV_MAX_BYTES];

	return !memcmp(e->sval, zero, sizeof(zero));
}

/* A generated SRV6 profile: each entry's address, entry i on port
 * (i mod 2) + 1, so plane p (i mod 2) leaves by port p + 1. */
static void srv6_generated(void **state)
{
	static const char *const dst[] = {
		"fdbb:bb00:200:102::",
		"fdbb:bb00:200:1102::",
		"fdbb:bb00:201:102::",
		"fdbb:bb00:201:1102::",
	};
	static const uint32_t cval[] = { 0x00, 0x01, 0x10, 0x11 };
	struct mrc_ctl_ev_op_entry e[PROF_EV_MAX_COUNT];
	struct mrc_ctl_ev_profile_attr a;
	struct mrc_ctl_ev_field f[4];
	int i;

	(void)state;
	formats_online();
	fmt_online(FMT_USID, MRC_CTL_EV_FMT_MODE_SRV6, usid_ff, 4);
	a = ev_attr(MRC_CTL_EV_MODE_GEN, FMT_USID, 4, usid_f, 4);
	assert_int_equal(prof_ev_modify(&P, 5, &a, OFFLINE_MASK), 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(P.ev[5].ev[i].cval, cval[i]);
		assert_sval(&P.ev[5].ev[i], dst[i]);
		assert_int_equal(P.ev[5].ev[i].port, i % 2 + 1);
	}
	assert_true(sval_zero(&P.ev[5].ev[4])); /* past count */
	assert_int_equal(ev_state(5, MRC_CTL_PROFILE_ONLINE), 0);
	/* ONLINE expands afresh: the same; the API shows compact values. */
	assert_int_equal(query_array(5, e), 4);
	for (i = 0; i < 4; i++) {
		assert_sval(&P.ev[5].ev[i], dst[i]);
		assert_int_equal(cval_of(&e[i].ev), cval[i]);
		assert_int_equal(e[i].ev.port, i % 2 + 1);
	}

	/* New fields (host 3's leaf, spines 2..3): generated again. */
	assert_int_equal(ev_state(5, MRC_CTL_PROFILE_OFFLINE), 0);
	memcpy(f, usid_f, sizeof(f));
	f[1].min_val = 2;
	f[1].max_val = 3;
	f[3].init_val = 0x103;
	a = ev_attr(MRC_CTL_EV_MODE_GEN, FMT_USID, 4, f, 4);
	assert_int_equal(
		prof_ev_modify(&P, 5, &a, MRC_CTL_EV_PROFILE_EV_FIELDS_OP), 0);
	assert_int_equal(P.ev[5].ev[0].cval, 0x20);
	assert_sval(&P.ev[5].ev[0], "fdbb:bb00:202:103::");
	assert_sval(&P.ev[5].ev[3], "fdbb:bb00:203:1103::");
	assert_int_equal(P.ev[5].ev[3].port, 2);

	/* A UDP profile's entries have no SRv6 value. */
	a = ev_attr(MRC_CTL_EV_MODE_GEN, FMT_UDP88, 6, gen_f, 2);
	assert_int_equal(prof_ev_modify(&P, 2, &a, OFFLINE_MASK), 0);
	for (i = 0; i < 6; i++)
		assert_true(sval_zero(&P.ev[2].ev[i]));
}

/* An explicit SRV6 profile: REPLACE_EV writes a compact value, the
 * entry gets its address; ONLINE keeps it. */
static void srv6_explicit(void **state)
{
	struct mrc_ctl_ev_profile_attr a;

	(void)state;
	formats_online();
	fmt_online(FMT_USID, MRC_CTL_EV_FMT_MODE_SRV6, usid_ff, 4);
	a = ev_attr(MRC_CTL_EV_MODE_EXP, FMT_USID, 2, usid_f, 4);
	assert_int_equal(prof_ev_modify(&P, 6, &a, OFFLINE_MASK), 0);
	assert_true(sval_zero(&P.ev[6].ev[0])); /* unpopulated */
	/* spine 1 plane 1 on port 2, spine 0 plane 0 on port 1 */
	assert_int_equal(replace(6, 0, 0, 0x11, 2, 0), 0);
	assert_int_equal(replace(6, 0, 0, 0x00, 1, 0), 0);
	assert_int_equal(P.ev[6].ev[0].cval, 0x11);
	assert_int_equal(P.ev[6].ev[0].port, 2);
	assert_sval(&P.ev[6].ev[0], "fdbb:bb00:201:1102::");
	assert_sval(&P.ev[6].ev[1], "fdbb:bb00:200:102::");
	/* 12 compact bits: wider is refused. */
	assert_int_equal(replace(6, 0x11, 2, 0x1000, 2, 0), -EINVAL);
	/* Replaced again: the new address. */
	assert_int_equal(replace(6, 0x11, 2, 0x31, 2, 0), 0);
	assert_sval(&P.ev[6].ev[0], "fdbb:bb00:203:1102::");
	assert_int_equal(ev_state(6, MRC_CTL_PROFILE_ONLINE), 0);
	assert_sval(&P.ev[6].ev[0], "fdbb:bb00:203:1102::");
	assert_sval(&P.ev[6].ev[1], "fdbb:bb00:200:102::");
	assert_int_equal(prof_qp_use(&P, 6, 0), 0);
	prof_qp_release(&P, 6, 0);

	/* Only the count changes: the entries it keeps keep their values. */
	assert_int_equal(ev_state(6, MRC_CTL_PROFILE_OFFLINE), 0);
	a.ev_count = 1;
	assert_int_equal(prof_ev_modify(&P, 6, &a, MRC_CTL_EV_PROFILE_COUNT),
			 0);
	assert_sval(&P.ev[6].ev[0], "fdbb:bb00:203:1102::");
	assert_true(sval_zero(&P.ev[6].ev[1]));
}

/* ---- all or nothing ------------------------------------------------------ */

static void failed_modify_changes_nothing(void **state)
{
	struct mrc_ctl_ev_fmt_field w8[] = { { 8 } }, w17[] = { { 17 } };
	struct mrc_ctl_ev_profile_attr a;
	struct prof_fmt fmt_before;
	struct prof_ev ev_before;
	struct prof_cc cc_before;

	(void)state;
	formats_online();

	/* EV: a good event mask and count, then a min_active over the new
	 * count going ONLINE. */
	exp_offline(1, 2);
	assert_int_equal(replace(1, 0, 0, 1, 1, MRC_CTL_EV_OP_F_ALL_COPIES), 0);
	ev_before = P.ev[1];
	a = ev_attr(MRC_CTL_EV_MODE_EXP, FMT_UDP16, 1, exp_f, 1);
	a.profile_state = MRC_CTL_PROFILE_ONLINE;
	a.ev_event_mask = MRC_CTL_EV_ASSUMED_BAD;
	a.ev_min_active = 2;
	assert_int_equal(prof_ev_modify(&P, 1, &a,
					ONLINE_MASK | MRC_CTL_EV_PROFILE_COUNT),
			 -EINVAL);
	assert_memory_equal(&P.ev[1], &ev_before, sizeof(ev_before));

	/* Format: a good mode, then fields too wide. */
	assert_int_equal(fmt_state(FMT_UDP16, MRC_CTL_PROFILE_OFFLINE), 0);
	fmt_before = P.fmt[FMT_UDP16];
	assert_int_equal(fmt_mod(FMT_UDP16,
				 MRC_CTL_EV_FMT_PROFILE_MODE |
					 MRC_CTL_EV_FMT_PROFILE_OP,
				 0, MRC_CTL_EV_FMT_MODE_STEV, w17, 0),
			 -EINVAL);
	assert_int_equal(fmt_mod(FMT_UDP16,
				 MRC_CTL_EV_FMT_PROFILE_STATE |
					 MRC_CTL_EV_FMT_PROFILE_MODE |
					 MRC_CTL_EV_FMT_PROFILE_OP,
				 MRC_CTL_PROFILE_ONLINE,
				 MRC_CTL_EV_FMT_MODE_UDP, w17, 1),
			 -E2BIG);
	assert_memory_equal(&P.fmt[FMT_UDP16], &fmt_before, sizeof(fmt_before));
	/* The OFFLINE EV profile does not stop the format changing. */
	assert_int_equal(
		fmt_mod(FMT_UDP16, MRC_CTL_EV_FMT_PROFILE_OP, 0, 0, w8, 1), 0);
	assert_int_equal(fmt_state(FMT_UDP16, MRC_CTL_PROFILE_ONLINE), 0);

	/* EV: exp_f is 16 bits wide; FMT_UDP16 is now one 8-bit field. A
	 * new count re-lays the array and refuses... */
	a.ev_min_active = 1;
	assert_int_equal(prof_ev_modify(&P, 1, &a,
					MRC_CTL_EV_PROFILE_COUNT |
						MRC_CTL_EV_PROFILE_EVENT_MASK),
			 -EINVAL);
	assert_memory_equal(&P.ev[1], &ev_before, sizeof(ev_before));
	/* ...and so does ONLINE, which checks the fields again. */
	assert_int_equal(ev_state(1, MRC_CTL_PROFILE_ONLINE), -EINVAL);
	assert_memory_equal(&P.ev[1], &ev_before, sizeof(ev_before));

	/* CC: a good algorithm, then an insane config going ONLINE. */
	assert_int_equal(cc_mod(2,
				MRC_CTL_CC_PROFILE_STATE |
					MRC_CTL_CC_PROFILE_ALGORITHM,
				MRC_CTL_PROFILE_OFFLINE, NULL, NULL),
			 0);
	cc_before = P.cc[2];
	{
		struct mrc_ctl_cc_nscc_cfg bad = nscc_ok;

		bad.base_rtt = 0;
		assert_int_equal(cc_mod(2,
					MRC_CTL_CC_PROFILE_STATE |
						MRC_CTL_CC_PROFILE_ALGORITHM |
						MRC_CTL_CC_PROFILE_CONFIG,
					MRC_CTL_PROFILE_ONLINE, "uet-1.0-nscc",
					&bad),
				 -EINVAL);
	}
	assert_memory_equal(&P.cc[2], &cc_before, sizeof(cc_before));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(start_state, setup),
		cmocka_unit_test_setup(ids_out_of_range, setup),
		cmocka_unit_test_setup(masks_and_vendor_cfg, setup),
		cmocka_unit_test_setup(profile0_untouchable, setup),
		cmocka_unit_test_setup(fmt_transitions, setup),
		cmocka_unit_test_setup(fmt_field_errors, setup),
		cmocka_unit_test_setup(fmt_query, setup),
		cmocka_unit_test_setup(fmt_busy_under_online_ev, setup),
		cmocka_unit_test_setup(ev_to_offline, setup),
		cmocka_unit_test_setup(ev_to_online_and_back, setup),
		cmocka_unit_test_setup(ev_offline_changes, setup),
		cmocka_unit_test_setup(gen_two_ports, setup),
		cmocka_unit_test_setup(ev_op_errors, setup),
		cmocka_unit_test_setup(ev_op_stops_at_first_failure, setup),
		cmocka_unit_test_setup(replace_busy_under_qps, setup),
		cmocka_unit_test_setup(replace_one_vs_all, setup),
		cmocka_unit_test_setup(deny_then_good, setup),
		cmocka_unit_test_setup(ev_query, setup),
		cmocka_unit_test_setup(cc_default_offered, setup),
		cmocka_unit_test_setup(cc_transitions, setup),
		cmocka_unit_test_setup(qp_use, setup),
		cmocka_unit_test_setup(srv6_generated, setup),
		cmocka_unit_test_setup(srv6_explicit, setup),
		cmocka_unit_test_setup(failed_modify_changes_nothing, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
