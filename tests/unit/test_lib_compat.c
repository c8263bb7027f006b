// SPDX-License-Identifier: GPL-2.0
/*
 * libmrc's drop-in decisions (lib/compat.c, lib/gid.c), without mrcd: the
 * API versions a context accepts, how RC-style QP setup maps onto MRC
 * attributes and defaults, what MRC_STRICT=1 refuses and the lines it
 * writes, and the RoCE-style GID table behind ibv_query_gid_ex and
 * ibv_query_gid_table (over a soft context filled in by hand).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "compat.h"
#include "gid.h"
#include "internal.h"

/* --- versions -------------------------------------------------------------- */

static void versions(void **state)
{
	uint32_t v = 0;

	(void)state;
	assert_int_equal(compat_api_version(MRC_API_VER_LATEST, &v), 0);
	assert_int_equal(v, MRC_API_CURRENT_VERSION);
	assert_int_equal(MRC_API_CURRENT_VERSION, 0x01000001);
	assert_int_equal(MRC_API_LAST_SUPPORTED_VERSION, 0);
	/* Everything from 0.0.0 to the current version, as it came. */
	assert_int_equal(compat_api_version(0, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(compat_api_version(1, &v), 0); /* a small constant */
	assert_int_equal(v, 1);
	assert_int_equal(compat_api_version(MRC_API_VER(1, 0, 0), &v), 0);
	assert_int_equal(v, MRC_API_VER(1, 0, 0));
	assert_int_equal(compat_api_version(MRC_API_VER(1, 0, 1), &v), 0);
	/* Newer than this library: refused. */
	assert_int_equal(compat_api_version(MRC_API_VER(1, 0, 2), &v),
			 -EPROTONOSUPPORT);
	assert_int_equal(compat_api_version(MRC_API_VER(1, 1, 0), &v),
			 -EPROTONOSUPPORT);
	assert_int_equal(compat_api_version(MRC_API_VER(2, 0, 0), &v),
			 -EPROTONOSUPPORT);
	assert_int_equal(compat_api_version(MRC_API_VER(0xFF, 0, 0), &v),
			 -EPROTONOSUPPORT);
	/* This build chose the 1.0.1 declarations by default. */
	assert_int_equal(MRC_API_VER_USED, MRC_API_CURRENT_VERSION);
}

static void strict_values(void **state)
{
	(void)state;
	assert_true(compat_strict_value("1"));
	assert_false(compat_strict_value(NULL));
	assert_false(compat_strict_value(""));
	assert_false(compat_strict_value("0"));
	assert_false(compat_strict_value("yes"));
	assert_false(compat_strict_value("10"));
}

/* --- QP attributes ---------------------------------------------------------- */

static const struct mrc_device_attr dev = {
	.wimm_attr = { .max_wimm = 1000, .max_wimm_dest = 2000 },
	.mpr_attr = { .max_mpr = 2, .mpr_resolution = 1 },
};

#define MAX_SAID 16

struct said {
	int n;
	char what[MAX_SAID][40];
	char why[MAX_SAID][100];
	bool refused[MAX_SAID];
};

static void record(void *arg, const char *what, const char *why, bool refused)
{
	struct said *s = arg;

	assert_true(s->n < MAX_SAID);
	snprintf(s->what[s->n], sizeof(s->what[0]), "%s", what);
	snprintf(s->why[s->n], sizeof(s->why[0]), "%s", why);
	s->refused[s->n++] = refused;
}

/* Was `what` named, refused or not? */
static bool named(const struct said *s, const char *what, bool refused)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->what[i], what) && s->refused[i] == refused)
			return true;
	return false;
}

static int run(enum ibv_qp_state from, enum ibv_qp_state to, int vmask,
	       const struct ibv_qp_attr *v, int mmask,
	       const struct mrc_qp_attr *m, bool strict,
	       struct compat_qp_out *out, struct said *s)
{
	struct compat_qp_in in = { .from = from,
				   .to = to,
				   .vmask = vmask,
				   .vattr = v,
				   .mmask = mmask,
				   .mattr = m,
				   .dev = &dev,
				   .strict = strict };

	memset(s, 0, sizeof(*s));
	return compat_qp_attrs(&in, out, record, s);
}

#define INIT_MRC (MRC_QP_HINT | MRC_EV_PROFILE_ID | MRC_CC_PROFILE_ID)
#define RTR_MRC \
	(MRC_QP_MAX_WIMM_DEST | MRC_QP_MPR_DEST | MRC_QP_DYNAMIC_MPR_DEST)
#define RTS_MRC \
	(MRC_QP_MAX_WIMM | MRC_QP_MPR | MRC_QP_RETRY_CNT | MRC_QP_TIMEOUT)
#define RC_INIT \
	(IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)
#define RC_RTR                                                        \
	(IBV_QP_STATE | IBV_QP_AV | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | \
	 IBV_QP_PATH_MTU)
#define RC_RTS                                                                \
	(IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | \
	 IBV_QP_TIMEOUT | IBV_QP_MIN_RNR_TIMER)

static void rc_init_defaults(void **state)
{
	struct ibv_qp_attr v = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct compat_qp_out o;
	struct said s;

	(void)state;
	assert_int_equal(run(IBV_QPS_RESET, IBV_QPS_INIT, RC_INIT, &v, 0, NULL,
			     false, &o, &s),
			 0);
	assert_int_equal(o.vmask, RC_INIT & ~IBV_QP_PORT);
	assert_int_equal(o.mmask, INIT_MRC);
	assert_null(o.mattr.qp_hint);
	assert_int_equal(o.mattr.profile.ev_profile_id, 0);
	assert_int_equal(o.mattr.profile.cc_profile_id,
			 COMPAT_CC_PROFILE_DEFAULT);
	/* Named for the curious (info level), refusing nothing. */
	assert_int_equal(s.n, 4);
	assert_true(named(&s, "IBV_QP_PORT", false));
	assert_true(named(&s, "MRC_QP_HINT", false));
	assert_true(named(&s, "MRC_EV_PROFILE_ID", false));
	assert_true(named(&s, "MRC_CC_PROFILE_ID", false));
}

static void rc_rtr_defaults(void **state)
{
	struct ibv_qp_attr v = { .qp_state = IBV_QPS_RTR };
	struct compat_qp_out o;
	struct said s;

	(void)state;
	assert_int_equal(run(IBV_QPS_INIT, IBV_QPS_RTR, RC_RTR, &v, 0, NULL,
			     false, &o, &s),
			 0);
	assert_int_equal(o.vmask, RC_RTR);
	assert_int_equal(o.mmask, RTR_MRC);
	assert_int_equal(o.mattr.wimm.max_wimm_dest, 2000);
	assert_int_equal(o.mattr.mpr.mpr_dest, 2);
	assert_int_equal(o.mattr.mpr.dynamic_mpr_dest, 0);
	assert_int_equal(s.n, 3);
}

static void rc_rts_maps_timeout_and_retries(void **state)
{
	struct ibv_qp_attr v = { .qp_state = IBV_QPS_RTS,
				 .timeout = 7,
				 .retry_cnt = 14,
				 .rnr_retry = 7,
				 .min_rnr_timer = 12 };
	struct compat_qp_out o;
	struct said s;

	(void)state;
	assert_int_equal(run(IBV_QPS_RTR, IBV_QPS_RTS, RC_RTS, &v, 0, NULL,
			     false, &o, &s),
			 0);
	assert_int_equal(o.vmask, IBV_QP_STATE | IBV_QP_SQ_PSN);
	assert_int_equal(o.mmask, RTS_MRC);
	assert_int_equal(o.mattr.timeout, 7);
	assert_int_equal(o.mattr.retry.linear_cnt, 7); /* 14 is past IB's 7 */
	assert_int_equal(o.mattr.retry.exp_cnt, 0);
	assert_int_equal(o.mattr.wimm.max_wimm, 1000);
	assert_int_equal(o.mattr.mpr.mpr, 2);
	/* 4 verbs attributes, the 2 MRC ones they do not stand for. */
	assert_int_equal(s.n, 6);
	assert_false(named(&s, "MRC_QP_TIMEOUT", false));
	assert_false(named(&s, "MRC_QP_RETRY_CNT", false));
	assert_true(named(&s, "MRC_QP_MPR", false));
	/* IB's "forever" (0) and values past MRC's 24 become 24. */
	v.timeout = 0;
	v.retry_cnt = 3;
	assert_int_equal(run(IBV_QPS_RTR, IBV_QPS_RTS, RC_RTS, &v, 0, NULL,
			     false, &o, &s),
			 0);
	assert_int_equal(o.mattr.timeout, 24);
	assert_int_equal(o.mattr.retry.linear_cnt, 3);
	v.timeout = 31;
	assert_int_equal(run(IBV_QPS_RTR, IBV_QPS_RTS, RC_RTS, &v, 0, NULL,
			     false, &o, &s),
			 0);
	assert_int_equal(o.mattr.timeout, 24);
}

static void rts_defaults_without_verbs(void **state)
{
	struct ibv_qp_attr v = { .qp_state = IBV_QPS_RTS };
	struct compat_qp_out o;
	struct said s;

	(void)state;
	assert_int_equal(run(IBV_QPS_RTR, IBV_QPS_RTS,
			     IBV_QP_STATE | IBV_QP_SQ_PSN, &v, 0, NULL, false,
			     &o, &s),
			 0);
	assert_int_equal(o.mattr.timeout, COMPAT_TIMEOUT_DEFAULT);
	assert_int_equal(o.mattr.retry.linear_cnt, COMPAT_RETRY_LINEAR_DEFAULT);
	assert_int_equal(o.mattr.retry.exp_cnt, COMPAT_RETRY_EXP_DEFAULT);
}

static void mrc_attribute_wins(void **state)
{
	struct ibv_qp_attr v = { .qp_state = IBV_QPS_RTS,
				 .timeout = 20,
				 .retry_cnt = 2 };
	struct mrc_qp_attr m = { .timeout = 10,
				 .retry = { .linear_cnt = 5, .exp_cnt = 4 },
				 .mpr = { .mpr = 1 } };
	struct compat_qp_out o;
	struct said s;

	(void)state;
	assert_int_equal(run(IBV_QPS_RTR, IBV_QPS_RTS, RC_RTS, &v,
			     MRC_QP_TIMEOUT | MRC_QP_RETRY_CNT | MRC_QP_MPR, &m,
			     false, &o, &s),
			 0);
	assert_int_equal(o.mattr.timeout, 10);
	assert_int_equal(o.mattr.retry.linear_cnt, 5);
	assert_int_equal(o.mattr.retry.exp_cnt, 4);
	assert_int_equal(o.mattr.mpr.mpr, 1); /* given: not defaulted */
	assert_int_equal(o.mattr.wimm.max_wimm, 1000);
}

static void not_a_forward_step(void **state)
{
	struct ibv_qp_attr v = { .qp_state = IBV_QPS_ERR };
	struct compat_qp_out o;
	struct said s;

	(void)state;
	/* To ERR (or INIT again) nothing is required: nothing defaulted. */
	assert_int_equal(run(IBV_QPS_RTS, IBV_QPS_ERR, IBV_QP_STATE, &v, 0,
			     NULL, true, &o, &s),
			 0);
	assert_int_equal(o.mmask, 0);
	assert_int_equal(s.n, 0);
}

static void alt_path_always_refused(void **state)
{
	struct ibv_qp_attr v = { .qp_state = IBV_QPS_RTS };
	struct compat_qp_out o;
	struct said s;

	(void)state;
	assert_int_equal(run(IBV_QPS_RTS, IBV_QPS_RTS,
			     IBV_QP_STATE | IBV_QP_ALT_PATH |
				     IBV_QP_PATH_MIG_STATE,
			     &v, 0, NULL, false, &o, &s),
			 -EINVAL);
	assert_true(named(&s, "IBV_QP_ALT_PATH", true));
	assert_true(named(&s, "IBV_QP_PATH_MIG_STATE", true));
}

static void strict_refuses_and_names_each(void **state)
{
	struct ibv_qp_attr v = { .qp_state = IBV_QPS_INIT };
	struct mrc_qp_attr m = {};
	struct compat_qp_out o;
	struct said s;
	int i;

	(void)state;
	assert_int_equal(run(IBV_QPS_RESET, IBV_QPS_INIT, RC_INIT, &v, 0, NULL,
			     true, &o, &s),
			 -EINVAL);
	assert_int_equal(s.n, 4);
	assert_true(named(&s, "IBV_QP_PORT", true));
	assert_true(named(&s, "MRC_QP_HINT", true));
	assert_true(named(&s, "MRC_EV_PROFILE_ID", true));
	assert_true(named(&s, "MRC_CC_PROFILE_ID", true));
	for (i = 0; i < s.n; i++)
		assert_non_null(strstr(s.why[i], "MRC_STRICT=1"));
	/* RTS the RC way: 4 verbs attributes and all 4 MRC ones. */
	assert_int_equal(run(IBV_QPS_RTR, IBV_QPS_RTS, RC_RTS, &v, 0, NULL,
			     true, &o, &s),
			 -EINVAL);
	assert_int_equal(s.n, 8);
	assert_true(named(&s, "IBV_QP_TIMEOUT", true));
	assert_true(named(&s, "IBV_QP_RETRY_CNT", true));
	assert_true(named(&s, "IBV_QP_RNR_RETRY", true));
	assert_true(named(&s, "IBV_QP_MIN_RNR_TIMER", true));
	assert_true(named(&s, "MRC_QP_TIMEOUT", true));
	assert_true(named(&s, "MRC_QP_RETRY_CNT", true));
	/* Written as OCP says: taken, nothing said. */
	assert_int_equal(run(IBV_QPS_RESET, IBV_QPS_INIT,
			     IBV_QP_STATE | IBV_QP_PKEY_INDEX |
				     IBV_QP_ACCESS_FLAGS,
			     &v, INIT_MRC, &m, true, &o, &s),
			 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(o.mmask, INIT_MRC);
}

/* What a child writes on stderr when compat_say_log says one thing. */
static void log_of(const char *level, bool refused, char *out, size_t len)
{
	struct compat_say_ctx c = { .qpn = 7,
				    .from = IBV_QPS_RESET,
				    .to = IBV_QPS_INIT };
	int p[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		if (level)
			setenv("MRC_LOG_LEVEL", level, 1);
		else
			unsetenv("MRC_LOG_LEVEL");
		compat_say_log(&c, "IBV_QP_PORT", "why", refused);
		_exit(0);
	}
	close(p[1]);
	while ((n = read(p[0], out + got, len - 1 - (size_t)got)) > 0)
		got += n;
	out[got] = 0;
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void strict_lines(void **state)
{
	char out[512];

	(void)state;
	/* A refusal is an error: on stderr at the default level. */
	log_of(NULL, true, out, sizeof(out));
	assert_non_null(strstr(out, "]: QP 7 RESET->INIT: IBV_QP_PORT: why\n"));
	assert_int_equal(strncmp(out, "libmrc[", 7), 0);
	/* Taken or ignored: info only. */
	log_of(NULL, false, out, sizeof(out));
	assert_string_equal(out, "");
	log_of("info", false, out, sizeof(out));
	assert_non_null(strstr(out, "IBV_QP_PORT: why"));
}

/* --- GID table --------------------------------------------------------------- */

static const uint8_t mac[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
static const uint8_t addr[16] = {
	[10] = 0xff, [11] = 0xff, [12] = 198, [13] = 18, [14] = 0, [15] = 1
};

static void gid_layout(void **state)
{
	static const uint8_t ll[16] = { 0xfe, 0x80, 0,	  0,	0,    0,
					0,    0,    0x00, 0x11, 0x22, 0xff,
					0xfe, 0x33, 0x44, 0x55 };
	union ibv_gid g;
	uint32_t type;

	(void)state;
	assert_int_equal(gid_entry(addr, mac, 0, &g, &type), 0);
	assert_memory_equal(g.raw, ll, 16);
	assert_int_equal(type, IBV_GID_TYPE_ROCE_V1);
	assert_int_equal(gid_entry(addr, mac, 1, &g, &type), 0);
	assert_memory_equal(g.raw, ll, 16);
	assert_int_equal(type, IBV_GID_TYPE_ROCE_V2);
	assert_int_equal(gid_entry(addr, mac, 2, &g, &type), 0);
	assert_memory_equal(g.raw, addr, 16);
	assert_int_equal(type, IBV_GID_TYPE_ROCE_V1);
	assert_int_equal(gid_entry(addr, mac, 3, &g, &type), 0);
	assert_memory_equal(g.raw, addr, 16);
	assert_int_equal(type, IBV_GID_TYPE_ROCE_V2);
	assert_int_equal(gid_entry(addr, mac, 4, &g, &type), -EINVAL);
}

/* A soft context as ibv_open_device leaves it, two ports, no mrcd. */
static struct soft_ctx fake;
static struct ibv_device fake_dev;

int soft_is_ours(struct ibv_context *ctx)
{
	return ctx == &fake.ibv;
}

/* No real libibverbs here: a real device's call fails with ENODEV. */
void *bind_real(const char *name)
{
	(void)name;
	return NULL;
}

static void fake_open(void)
{
	memset(&fake, 0, sizeof(fake));
	fake.ibv.device = &fake_dev;
	fake.info.nports = 2;
	memcpy(fake.info.gid[0], addr, 16);
	memcpy(fake.info.gid[1], addr, 16);
	fake.info.gid[1][13] = 19; /* 198.19.0.1 on plane 2 */
	memcpy(fake.info.mac[0], mac, 6);
	memcpy(fake.info.mac[1], mac, 6);
}

static void gid_verbs(void **state)
{
	struct ibv_gid_entry e, t[8];
	struct {
		struct ibv_gid_entry e;
		uint32_t newer_field;
	} big[8];
	struct ibv_context *c = &fake.ibv;
	union ibv_gid g;
	int type = -1, i;

	(void)state;
	fake_open();
	assert_int_equal(ibv_query_gid_ex(c, 2, 3, &e, 0), 0);
	assert_int_equal(e.gid_type, IBV_GID_TYPE_ROCE_V2);
	assert_int_equal(e.port_num, 2);
	assert_int_equal(e.gid_index, 3);
	assert_int_equal(e.gid.raw[13], 19);
	assert_int_equal(ibv_query_gid_ex(c, 1, 4, &e, 0), EINVAL);
	assert_int_equal(ibv_query_gid_ex(c, 3, 0, &e, 0), EINVAL);
	assert_int_equal(ibv_query_gid_ex(c, 1, 0, &e, 1), EINVAL);
	assert_int_equal(gid_query(c, 1, 3, &g), 0);
	assert_memory_equal(g.raw, addr, 16);
	assert_int_equal(gid_query(c, 1, -1, &g), -EINVAL);
	assert_int_equal(ibv_query_gid_type(c, 1, 3, &type), 0);
	assert_int_equal(type, GID_SYSFS_ROCE_V2);
	assert_int_equal(ibv_query_gid_type(c, 1, 2, &type), 0);
	assert_int_equal(type, GID_SYSFS_ROCE_V1);
	assert_int_equal(ibv_query_gid_type(c, 1, 9, &type), EINVAL);
	/* The table: every port's four entries, in order. */
	assert_int_equal(ibv_query_gid_table(c, t, 8, 0), 8);
	for (i = 0; i < 8; i++) {
		assert_int_equal(t[i].port_num, 1 + i / 4);
		assert_int_equal(t[i].gid_index, i % 4);
		assert_int_equal(t[i].gid_type, i % 2 ? IBV_GID_TYPE_ROCE_V2 :
							IBV_GID_TYPE_ROCE_V1);
	}
	assert_int_equal(ibv_query_gid_table(c, t, 7, 0), -EINVAL);
	/* A caller's larger entries: the same, at its stride. */
	memset(big, 0xaa, sizeof(big));
	assert_int_equal(
		_ibv_query_gid_table(c, &big[0].e, 8, 0, sizeof(big[0])), 8);
	assert_int_equal(big[7].e.port_num, 2);
	assert_int_equal(big[7].e.gid.raw[13], 19);
	assert_int_equal(big[7].newer_field, 0);
	/* Not ours: the real libibverbs' (none here: ENODEV). */
	assert_int_equal(ibv_query_gid_ex((struct ibv_context *)&fake_dev, 1, 0,
					  &e, 0),
			 ENODEV);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(versions),
		cmocka_unit_test(strict_values),
		cmocka_unit_test(rc_init_defaults),
		cmocka_unit_test(rc_rtr_defaults),
		cmocka_unit_test(rc_rts_maps_timeout_and_retries),
		cmocka_unit_test(rts_defaults_without_verbs),
		cmocka_unit_test(mrc_attribute_wins),
		cmocka_unit_test(not_a_forward_step),
		cmocka_unit_test(alt_path_always_refused),
		cmocka_unit_test(strict_refuses_and_names_each),
		cmocka_unit_test(strict_lines),
		cmocka_unit_test(gid_layout),
		cmocka_unit_test(gid_verbs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
