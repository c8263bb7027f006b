// SPDX-License-Identifier: GPL-2.0
/*
 * ctl_e2e: a small controller written against the OCP controller API
 * (mrc_ctl.h) alone, for the end-to-end test (tests/system/100): it
 * configures profiles, denies and allows EVs, disables ports, probes, and
 * prints EV events. One command per run; mrcd from MRC_SOCKET.
 *
 *   ctl_e2e explicit PROFILE FMT PORT:EV...   UDP format FMT, EXP profile
 *   ctl_e2e generated PROFILE FMT BASE BITS   2^BITS EVs from BASE
 *   ctl_e2e deny|allow PROFILE PORT:EV
 *   ctl_e2e array PROFILE                     PORT:EV STATE per entry
 *   ctl_e2e port PORT enable|disable|state    state: ibv_query_port's
 *   ctl_e2e events SECONDS [CQE [DELAY_MS]]   one line per event (the
 *                                             first read DELAY_MS late)
 *   ctl_e2e probe DGID PORT:EV...             one line per answer
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mrc_ctl.h"
#include "mrc_ext.h"
#include "mrc/ev_names.h"

static struct mrc_context *ctx;

#define die(...)                                          \
	do {                                              \
		fprintf(stderr, "ctl_e2e: " __VA_ARGS__); \
		exit(1);                                  \
	} while (0)

static void check(int rc, const char *what)
{
	if (rc)
		die("%s: %s\n", what, strerror(errno));
}

static uint32_t num(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (!*s || *end || v > UINT32_MAX)
		die("not a number: '%s'\n", s);
	return (uint32_t)v;
}

static struct mrc_ctl_ev ev_of(const char *s)
{
	struct mrc_ctl_ev e = { .port = 0 };
	char *end;
	unsigned long p = strtoul(s, &end, 0), v;

	if (*end != ':')
		die("not PORT:EV: '%s'\n", s);
	v = strtoul(end + 1, &end, 0);
	if (*end || !p || p > 255 || v > UINT32_MAX)
		die("not PORT:EV: '%s'\n", s);
	e.port = (uint8_t)p;
	memcpy(e.val, &(uint32_t){ (uint32_t)v }, 4);
	return e;
}

static uint32_t val_of(const struct mrc_ctl_ev *e)
{
	uint32_t v;

	memcpy(&v, e->val, 4);
	return v;
}

/* A UDP-source-port format: one 16-bit field. */
static void fmt_udp16(uint64_t id)
{
	struct mrc_ctl_ev_fmt_field f = { .width = 16 };
	struct mrc_ctl_ev_fmt_profile_attr a = {
		.profile_state = MRC_CTL_PROFILE_OFFLINE,
		.ev_fmt_mode = MRC_CTL_EV_FMT_MODE_UDP,
		.ev_fmt_op = { MRC_CTL_EV_FMT_OP_MODIFY_FIELDS, &f, 1 },
	};

	check(mrc_ctl_modify_ev_fmt_profile(ctx, id, &a,
					    MRC_CTL_EV_FMT_PROFILE_STATE |
						    MRC_CTL_EV_FMT_PROFILE_MODE |
						    MRC_CTL_EV_FMT_PROFILE_OP),
	      "format to OFFLINE");
	a = (struct mrc_ctl_ev_fmt_profile_attr){
		.profile_state = MRC_CTL_PROFILE_ONLINE
	};
	check(mrc_ctl_modify_ev_fmt_profile(ctx, id, &a,
					    MRC_CTL_EV_FMT_PROFILE_STATE),
	      "format to ONLINE");
}

static void profile(uint64_t id, uint64_t fmt, enum mrc_ctl_ev_mode mode,
		    uint32_t count, struct mrc_ctl_ev_field *f)
{
	struct mrc_ctl_ev_profile_attr a = {
		.profile_state = MRC_CTL_PROFILE_OFFLINE,
		.ev_mode = mode,
		.ev_fmt_profile_id = fmt,
		.ev_count = count,
		.ev_min_active = 1,
		.ev_event_mask = MRC_CTL_EV_GOOD | MRC_CTL_EV_ASSUMED_BAD,
		.ev_fields_op = { MRC_CTL_EV_FIELDS_OP_MODIFY_FIELDS, f, 1 },
	};

	fmt_udp16(fmt);
	check(mrc_ctl_modify_ev_profile(
		      ctx, id, &a,
		      MRC_CTL_EV_PROFILE_STATE | MRC_CTL_EV_PROFILE_MODE |
			      MRC_CTL_EV_PROFILE_FMT_ID |
			      MRC_CTL_EV_PROFILE_COUNT |
			      MRC_CTL_EV_PROFILE_MIN_ACTIVE |
			      MRC_CTL_EV_PROFILE_EVENT_MASK |
			      MRC_CTL_EV_PROFILE_EV_FIELDS_OP),
	      "EV profile to OFFLINE");
}

static void online(uint64_t id)
{
	struct mrc_ctl_ev_profile_attr a = {
		.profile_state = MRC_CTL_PROFILE_ONLINE,
	};

	check(mrc_ctl_modify_ev_profile(ctx, id, &a, MRC_CTL_EV_PROFILE_STATE),
	      "EV profile to ONLINE");
}

static void cmd_explicit(int argc, char **argv)
{
	struct mrc_ctl_ev_field f = { .width = 16,
				      .max_val = 0xffff,
				      .mask = 0xffff };
	struct mrc_ctl_ev_op_entry e[64];
	struct mrc_ctl_ev_profile_attr a = { .ev_op.op =
						     MRC_CTL_EV_OP_REPLACE_EV };
	int i, n = argc - 2;

	if (n < 1 || n > 64)
		die("explicit PROFILE FMT PORT:EV... (1 to 64 EVs)\n");
	profile(num(argv[0]), num(argv[1]), MRC_CTL_EV_MODE_EXP, (uint32_t)n,
		&f);
	/* Every entry starts unpopulated: replace one copy each time. */
	for (i = 0; i < n; i++)
		e[i] = (struct mrc_ctl_ev_op_entry){
			.ev = MRC_CTL_EV_UNPOPULATED,
			.ev_new = ev_of(argv[2 + i]),
			.state = MRC_CTL_EV_GOOD,
		};
	a.ev_op.entries = e;
	a.ev_op.entry_count = n;
	check(mrc_ctl_modify_ev_profile(ctx, num(argv[0]), &a,
					MRC_CTL_EV_PROFILE_EV_OP),
	      "REPLACE_EV");
	online(num(argv[0]));
}

static void cmd_generated(int argc, char **argv)
{
	struct mrc_ctl_ev_field f = { .width = 16 };
	uint32_t bits;

	if (argc != 4)
		die("generated PROFILE FMT BASE BITS\n");
	bits = num(argv[3]);
	if (!bits || bits > 6)
		die("BITS: 1 to 6\n");
	f.init_val = num(argv[2]);
	f.mask = (1u << bits) - 1;
	f.max_val = f.mask;
	profile(num(argv[0]), num(argv[1]), MRC_CTL_EV_MODE_GEN, 1u << bits,
		&f);
	online(num(argv[0]));
}

static void cmd_state(int argc, char **argv, enum mrc_ctl_ev_state s)
{
	struct mrc_ctl_ev_op_entry e = { .state = s };
	struct mrc_ctl_ev_profile_attr a = {
		.ev_op = { MRC_CTL_EV_OP_MODIFY_EV_STATE, &e, 1 },
	};

	if (argc != 2)
		die("deny|allow PROFILE PORT:EV\n");
	e.ev = ev_of(argv[1]);
	check(mrc_ctl_modify_ev_profile(ctx, num(argv[0]), &a,
					MRC_CTL_EV_PROFILE_EV_OP),
	      "MODIFY_EV_STATE");
}

static void cmd_array(int argc, char **argv)
{
	struct mrc_ctl_ev_op_entry e[64];
	struct mrc_ctl_ev_profile_attr a = {
		.ev_op = { MRC_CTL_EV_OP_QUERY_EV_ARRAY, e, 64 },
	};
	int i;

	if (argc != 1)
		die("array PROFILE\n");
	check(mrc_ctl_query_ev_profile(ctx, num(argv[0]), &a,
				       MRC_CTL_EV_PROFILE_EV_OP |
					       MRC_CTL_EV_PROFILE_COUNT),
	      "QUERY_EV_ARRAY");
	for (i = 0; i < (int)a.ev_count; i++)
		printf("%u:%u %s\n", e[i].ev.port, val_of(&e[i].ev),
		       mrc_ev_state_name(e[i].state));
}

static void cmd_port(struct ibv_context *dev, int argc, char **argv)
{
	struct mrc_ctl_port_attr a;

	if (argc == 2 && !strcmp(argv[1], "state")) {
		struct ibv_port_attr pa;

		check(ibv_query_port(dev, (uint8_t)num(argv[0]), &pa),
		      "ibv_query_port");
		check(mrc_ctl_query_port(ctx, (uint8_t)num(argv[0]), &a,
					 MRC_CTL_PORT_ADMIN_STATE),
		      "query_port");
		printf("%s %s\n",
		       pa.state == IBV_PORT_ACTIVE ? "ACTIVE" : "DOWN",
		       a.port_admin_state == MRC_CTL_PORT_ADMIN_ENABLED ?
			       "enabled" :
			       "disabled");
		return;
	}
	if (argc != 2 ||
	    (strcmp(argv[1], "enable") && strcmp(argv[1], "disable")))
		die("port PORT enable|disable\n");
	a.port_admin_state = strcmp(argv[1], "enable") ?
				     MRC_CTL_PORT_ADMIN_DISABLED :
				     MRC_CTL_PORT_ADMIN_ENABLED;
	check(mrc_ctl_modify_port(ctx, (uint8_t)num(argv[0]), &a,
				  MRC_CTL_PORT_ADMIN_STATE),
	      "modify_port");
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void cmd_events(int argc, char **argv)
{
	struct mrcx_ev_event ev[64];
	struct mrc_cq *cq;
	double end;
	int n, i;

	if (argc < 1 || argc > 3)
		die("events SECONDS [CQE [DELAY_MS]]\n");
	cq = mrc_ctl_create_ev_event_cq(
		ctx, argc > 1 ? (int)num(argv[1]) : 1024, NULL, NULL, 0);
	if (!cq)
		die("create_ev_event_cq: %s\n", strerror(errno));
	printf("subscribed\n");
	fflush(stdout);
	end = now_s() + num(argv[0]);
	if (argc > 2)
		usleep(num(argv[2]) * 1000); /* let the queue overflow */
	while (now_s() < end) {
		n = mrcx_ctl_poll_ev_event(cq, 64, ev);
		if (n < 0)
			die("poll_ev_event: %s\n", strerror(-n));
		for (i = 0; i < n; i++)
			printf("profile %llu qp %u idx %u ev %u port %u %s -> %s (%s) drop %u\n",
			       (unsigned long long)ev[i].base.profile_id,
			       ev[i].qpn, ev[i].ev_idx, val_of(&ev[i].base.ev),
			       ev[i].base.ev.port,
			       mrc_ev_state_name(ev[i].old_state),
			       mrc_ev_state_name(ev[i].base.state),
			       mrc_ev_reason_name(ev[i].reason),
			       ev[i].base.drop_count);
		fflush(stdout);
		if (!n)
			usleep(2000);
	}
	check(mrc_destroy_cq(cq), "destroy the event queue");
}

static void gid_of(const char *s, union ibv_gid *g)
{
	struct in_addr a4;

	memset(g, 0, sizeof(*g));
	if (inet_pton(AF_INET, s, &a4) == 1) {
		g->raw[10] = g->raw[11] = 0xff;
		memcpy(&g->raw[12], &a4, 4);
	} else if (inet_pton(AF_INET6, s, g->raw) != 1) {
		die("not an address: '%s'\n", s);
	}
}

static void cmd_probe(int argc, char **argv)
{
	struct mrc_ctl_ep_req r[64];
	struct mrc_ctl_ep_rsp rsp[64];
	int n = argc - 1, i, got = 0, rc;

	if (n < 1 || n > 64)
		die("probe DGID PORT:EV...\n");
	for (i = 0; i < n; i++) {
		r[i] = (struct mrc_ctl_ep_req){
			.req_id = (uint16_t)(i + 1),
			.ev_fmt_mode = MRC_CTL_EV_FMT_MODE_UDP,
			.req_ev = ev_of(argv[1 + i]),
		};
		gid_of(argv[0], &r[i].dgid);
	}
	rc = mrc_ctl_ep_batch_send_wait(ctx, 0, MRC_CTL_EP_OP_EV_PROBE, r, n,
					200000000, rsp, &got);
	for (i = 0; i < got; i++)
		printf("req %u port %u rtt_ns %u adjusted %u\n", rsp[i].req_id,
		       rsp[i].port, rsp[i].rtt, rsp[i].adj_svc_time);
	if (rc)
		die("ep_batch_send_wait: %s (%d of %d answered)\n",
		    strerror(errno), got, n);
}

int main(int argc, char **argv)
{
	struct ibv_device **list;
	struct ibv_context *dev;
	int n = 0;

	if (argc < 2)
		die("usage: see the top of tests/tools/ctl_e2e.c\n");
	list = ibv_get_device_list(&n);
	if (!list || n < 1)
		die("no MRC device (is mrcd running? MRC_SOCKET)\n");
	dev = ibv_open_device(list[0]);
	if (!dev)
		die("open: %s\n", strerror(errno));
	ctx = mrc_create_context(dev, NULL);
	if (!ctx)
		die("context: %s\n", strerror(errno));
	if (!strcmp(argv[1], "explicit"))
		cmd_explicit(argc - 2, argv + 2);
	else if (!strcmp(argv[1], "generated"))
		cmd_generated(argc - 2, argv + 2);
	else if (!strcmp(argv[1], "deny"))
		cmd_state(argc - 2, argv + 2, MRC_CTL_EV_DENIED);
	else if (!strcmp(argv[1], "allow"))
		cmd_state(argc - 2, argv + 2, MRC_CTL_EV_GOOD);
	else if (!strcmp(argv[1], "array"))
		cmd_array(argc - 2, argv + 2);
	else if (!strcmp(argv[1], "port"))
		cmd_port(dev, argc - 2, argv + 2);
	else if (!strcmp(argv[1], "events"))
		cmd_events(argc - 2, argv + 2);
	else if (!strcmp(argv[1], "probe"))
		cmd_probe(argc - 2, argv + 2);
	else
		die("unknown command '%s'\n", argv[1]);
	mrc_destroy_context(ctx);
	ibv_close_device(dev);
	ibv_free_device_list(list);
	return 0;
}
