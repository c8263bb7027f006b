// SPDX-License-Identifier: GPL-2.0
/*
 * mrcd's messages to its QPs' peers (daemon/peer.c) over the fake device
 * and the real health module: the hello exchange that gives each side the
 * other's token and dynamic MPR bit (believed only from an answer to our
 * own hello), dynamic MPR in effect only when both enabled it (and then
 * a responder's new MPR followed by the requester), port
 * status updates that take the EVs leading to the peer's down ports out
 * of use and bring them back, and every malformed or forged message
 * dropped and counted by its reason, changing nothing.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"
#include "fake_device.h"
#include "health.h"
#include "links.h"
#include "peer.h"
#include "plane.h"
#include "probe.h"
#include "mrc_ctl.h"

#define QPN 5u
#define PEER_QPN 105u /* fake_qp_rts's peer */
#define NEV 16u
#define MS 1000000ull

static struct health h;
static struct links links;
static struct probe probe;
static struct mrcd_config cfg;
static struct dev dev;
static struct peer pe;
static struct port_spec ports[4];
static const uint8_t peer_gid[16] = { [10] = 0xff, [11] = 0xff, 198, 18, 0, 2 };
static int answers;
static uint32_t answered_seq;

static void to_health(void *ctx, const struct mrc_ev_event *v)
{
	(void)ctx;
	health_on_state(&h, v);
}

static int on_answer(void *arg, uint32_t seq, int port)
{
	(void)arg;
	(void)port;
	if (seq != 77)
		return -1;
	answers++;
	answered_seq = seq;
	return 0;
}

static int setup(void **state)
{
	int p;

	(void)state;
	fake_reset(4);
	config_defaults(&cfg);
	memset(&links, 0, sizeof(links));
	links.nports = 4;
	for (p = 0; p < 4; p++) {
		links.up[p] = 1;
		links.admin[p] = MRC_CTL_PORT_ADMIN_ENABLED;
		memset(&ports[p], 0, sizeof(ports[p]));
		ports[p].prefix[0] = 198;
		ports[p].prefix[1] = 18;
		ports[p].prefix[2] = (uint8_t)(16 * p);
		ports[p].prefix_len = 20;
	}
	memset(&h, 0, sizeof(h)); /* health_init takes zeroed storage */
	assert_int_equal(health_init(&h, &dev, &probe, &links, &cfg), 0);
	memset(&pe, 0, sizeof(pe));
	pe.dev = &dev;
	pe.probe = &probe;
	pe.health = &h;
	pe.links = &links;
	pe.port = ports;
	pe.nports = 4;
	pe.lfd.fd = -1;
	pe.on_psu_answer = on_answer;
	answers = 0;
	fake_qp_rts(QPN, NEV);
	health_qp_open(&h, QPN);
	health_qp_state(&h, QPN, MRC_QPS_RTS, NEV);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	health_close(&h);
	fake_reset(0);
	return 0;
}

static const struct fake_ctl *last_ctl(void)
{
	assert_true(fake.nctl > 0);
	return &fake.ctl[(fake.nctl - 1) % 64];
}

/* A message as the peer's mrcd would send it, on plane p from src. */
static void msg(uint8_t type, uint32_t dqpn, uint32_t sqpn, uint32_t seq,
		uint32_t token, uint32_t value, uint8_t flags, int p,
		uint8_t src_host)
{
	uint8_t b[MRC_CTL_LEN] = {};
	struct mrc_bth *bth = (void *)b;
	struct mrc_cext *cx = (void *)(bth + 1);
	uint8_t src[16] = { 198, 18, (uint8_t)(16 * p), src_host };

	bth->opcode = MRC_OP_CTL;
	bth->dqpn = htonl(dqpn);
	cx->version = MRC_WIRE_VERSION;
	cx->type = type;
	cx->flags = flags;
	cx->sqpn = htonl(sqpn);
	cx->seq = htonl(seq);
	cx->token = htonl(token);
	cx->value = htonl(value);
	peer_input(&pe, p, src, b, sizeof(b));
}

/* QP QPN in RTS (dyn: its dynamic MPR bit), hello answered by a peer
 * whose bit is peer_dyn and whose window is peer_window. */
static uint32_t connect_qp(int dyn, int peer_dyn, uint32_t peer_window)
{
	const struct fake_ctl *c;
	uint32_t hello_seq;

	peer_qp_state(&pe, QPN, MRC_QPS_RTS, PEER_QPN, peer_gid, dyn, 256, 256);
	c = last_ctl();
	assert_int_equal(c->cx.type, MRC_CTL_HELLO);
	assert_int_equal(c->dqpn, PEER_QPN);
	assert_int_equal(ntohl(c->cx.sqpn), QPN);
	assert_int_equal(c->addr[3], 2); /* to the peer's address */
	assert_int_equal(!!(c->cx.flags & MRC_CTLF_DYN_MPR), !!dyn);
	hello_seq = ntohl(c->cx.seq);
	msg(MRC_CTL_HELLO_ANSWER, QPN, PEER_QPN, hello_seq, 0xabcd0001,
	    peer_window, peer_dyn ? MRC_CTLF_DYN_MPR : 0, 0, 2);
	return ntohl(c->cx.token); /* ours, which the peer now has */
}

/*
 * Hello at RTR, again at RTS: both carry one number, so the answer to the
 * first is believed, not dropped as a stray.
 */
static void hello_again_keeps_its_number(void **state)
{
	uint32_t seq;

	(void)state;
	peer_qp_state(&pe, QPN, MRC_QPS_RTR, PEER_QPN, peer_gid, 1, 256, 256);
	seq = ntohl(last_ctl()->cx.seq);
	peer_qp_state(&pe, QPN, MRC_QPS_RTS, PEER_QPN, peer_gid, 1, 256, 256);
	assert_int_equal(last_ctl()->cx.type, MRC_CTL_HELLO);
	assert_int_equal(ntohl(last_ctl()->cx.seq), seq);
	msg(MRC_CTL_HELLO_ANSWER, QPN, PEER_QPN, seq, 0xabcd0001, 128,
	    MRC_CTLF_DYN_MPR, 0, 2);
	assert_int_equal(pe.st.drop[PEER_DROP_STRAY_ANSWER], 0);
	/* Learnt: the peer's dynamic MPR bit. */
	assert_int_equal(peer_qp_dyn(&pe, QPN), 3);
}

static void hello_answer_believed_only_for_our_hello(void **state)
{
	const struct fake_ctl *c;
	uint32_t seq;

	(void)state;
	peer_qp_state(&pe, QPN, MRC_QPS_RTS, PEER_QPN, peer_gid, 1, 256, 256);
	seq = ntohl(last_ctl()->cx.seq);
	/* Another number: stray, nothing learnt. */
	msg(MRC_CTL_HELLO_ANSWER, QPN, PEER_QPN, seq + 1, 1, 128,
	    MRC_CTLF_DYN_MPR, 0, 2);
	assert_int_equal(pe.st.drop[PEER_DROP_STRAY_ANSWER], 1);
	assert_int_equal(peer_qp_dyn(&pe, QPN), 1);
	/* A hello is answered but believed in nothing (ours, still on its
	 * way, asks the peer). */
	msg(MRC_CTL_HELLO, QPN, PEER_QPN, 99, 0x1234, 128, MRC_CTLF_DYN_MPR, 1,
	    2);
	c = last_ctl();
	assert_int_equal(c->cx.type, MRC_CTL_HELLO_ANSWER);
	assert_int_equal(ntohl(c->cx.seq), 99);
	assert_int_equal(c->port, 1); /* back where it came from */
	assert_int_equal(peer_qp_dyn(&pe, QPN), 1);
	assert_int_equal(fake.view[QPN].window, 64); /* untouched */
	/* Past the retry interval, a hello makes us ask again. */
	fake.now_ns += PEER_HELLO_RETRY_NS;
	msg(MRC_CTL_HELLO, QPN, PEER_QPN, 100, 0x1234, 128, MRC_CTLF_DYN_MPR, 1,
	    2);
	c = last_ctl();
	assert_int_equal(c->cx.type, MRC_CTL_HELLO);
	assert_int_not_equal(ntohl(c->cx.seq), seq);
	/* The answer to our own hello is believed; the old one's is not. */
	msg(MRC_CTL_HELLO_ANSWER, QPN, PEER_QPN, seq, 0x1234, 128,
	    MRC_CTLF_DYN_MPR, 0, 2);
	assert_int_equal(peer_qp_dyn(&pe, QPN), 1);
	msg(MRC_CTL_HELLO_ANSWER, QPN, PEER_QPN, ntohl(c->cx.seq), 0x1234, 128,
	    MRC_CTLF_DYN_MPR, 0, 2);
	assert_int_equal(peer_qp_dyn(&pe, QPN), 3);
}

static void dynamic_mpr_needs_both(void **state)
{
	(void)state;
	/* on/on: the peer's smaller receive window is honoured. */
	connect_qp(1, 1, 128);
	assert_int_equal(peer_qp_dyn(&pe, QPN), 3);
	assert_int_equal(fake.view[QPN].window, 128);
	/* on/off: our own MPR stands. */
	peer_qp_state(&pe, QPN, MRC_QPS_RESET, 0, NULL, 0, 0, 0);
	fake_qp_rts(QPN, NEV);
	fake.view[QPN].window = 256;
	connect_qp(1, 0, 128);
	assert_int_equal(peer_qp_dyn(&pe, QPN), 1);
	assert_int_equal(fake.view[QPN].window, 256);
	/* off/on: the same. */
	peer_qp_state(&pe, QPN, MRC_QPS_RESET, 0, NULL, 0, 0, 0);
	fake.view[QPN].window = 256;
	connect_qp(0, 1, 128);
	assert_int_equal(peer_qp_dyn(&pe, QPN), 2);
	assert_int_equal(fake.view[QPN].window, 256);
}

static void responder_varies_its_mpr(void **state)
{
	uint32_t token;

	(void)state;
	/* Not in effect: refused, nothing said. */
	connect_qp(1, 0, 256);
	assert_int_equal(peer_qp_mpr(&pe, QPN, 128), -EINVAL);
	assert_int_equal(fake.rx_window[QPN], 0);
	peer_qp_state(&pe, QPN, MRC_QPS_RESET, 0, NULL, 0, 0, 0);
	fake.view[QPN].window = 256;
	token = connect_qp(1, 1, 256);
	/* As responder: ours first, then the peer is told. */
	assert_int_equal(peer_qp_mpr(&pe, QPN, 0), -EINVAL);
	assert_int_equal(peer_qp_mpr(&pe, QPN, 257), -EINVAL);
	assert_int_equal(peer_qp_mpr(&pe, QPN, 128), 0);
	assert_int_equal(fake.rx_window[QPN], 128);
	assert_int_equal(last_ctl()->cx.type, MRC_CTL_MPR);
	assert_int_equal(ntohl(last_ctl()->cx.value), 128);
	assert_int_equal(ntohl(last_ctl()->cx.token), 0xabcd0001);
	/* As requester: the peer's new window, smaller and larger again,
	 * never above our own MPR. */
	msg(MRC_CTL_MPR, QPN, PEER_QPN, 1, token, 64, 0, 0, 2);
	assert_int_equal(fake.view[QPN].window, 64);
	msg(MRC_CTL_MPR, QPN, PEER_QPN, 2, token, 256, 0, 2, 2);
	assert_int_equal(fake.view[QPN].window, 256);
	msg(MRC_CTL_MPR, QPN, PEER_QPN, 3, token, 300, 0, 0, 2);
	assert_int_equal(pe.st.drop[PEER_DROP_BAD_VALUE], 1);
	msg(MRC_CTL_MPR, QPN, PEER_QPN, 3, token ^ 4, 32, 0, 0, 2);
	assert_int_equal(pe.st.drop[PEER_DROP_BAD_TOKEN], 1);
	assert_int_equal(fake.view[QPN].window, 256);
	/* Off at our end: a peer's MPR message is not taken. */
	peer_qp_state(&pe, QPN, MRC_QPS_RESET, 0, NULL, 0, 0, 0);
	token = connect_qp(0, 1, 256);
	msg(MRC_CTL_MPR, QPN, PEER_QPN, 4, token, 32, 0, 0, 2);
	assert_int_equal(pe.st.drop[PEER_DROP_NOT_NEGOTIATED], 1);
	assert_int_equal(fake.view[QPN].window, 256);
}

static void psu_moves_the_peer_ports_evs(void **state)
{
	uint32_t token, i;

	(void)state;
	token = connect_qp(0, 0, 256);
	/* The peer's port 2 (plane 1) is down: bit 1 clear. */
	msg(MRC_CTL_PSU, QPN, PEER_QPN, 7, token, 0xd, 0, 0, 2);
	fake_deliver(to_health, NULL);
	for (i = 0; i < NEV; i++)
		assert_int_equal(fake.view[QPN].ev_state[i],
				 i % 4 == 1 ? MRC_EV_ASSUMED_BAD : MRC_EV_GOOD);
	assert_int_equal(fake_cmds(MRC_DP_EV_BAD, QPN, -1), NEV / 4);
	assert_int_equal(fake.cmd[fake.ncmd - 1].reason,
			 MRC_EV_R_PEER_PORT_DOWN);
	assert_true(health_peer_down(&h, QPN, 1));
	assert_false(health_peer_down(&h, QPN, 0));
	assert_int_equal(last_ctl()->cx.type, MRC_CTL_PSU_ANSWER);
	assert_int_equal(ntohl(last_ctl()->cx.seq), 7);
	assert_int_equal(ntohl(last_ctl()->cx.token), 0xabcd0001);
	/* Their probes are answered: still out while the peer says so. */
	fake.now_ns += 10 * MS;
	health_tick(&h);
	{
		struct mrc_ev_event v = {
			.qpn = QPN,
			.ev_idx = 1,
			.port = 1,
			.type = MRC_EVT_PROBE,
			.seq = fake.probe[fake.nprobe - 1].seq
		};
		int k;

		for (k = fake.nprobe - 1; k >= 0; k--)
			if (fake.probe[k].ev_idx == 1) {
				v.seq = fake.probe[k].seq;
				break;
			}
		assert_true(k >= 0);
		health_on_probe(&h, &v);
	}
	assert_int_equal(fake_cmds(MRC_DP_EV_GOOD, QPN, 1), 0);
	/* Up again: probed at once, and probes bring them back. */
	fake.nprobe = 0;
	msg(MRC_CTL_PSU, QPN, PEER_QPN, 8, token, 0xf, 0, 0, 2);
	assert_false(health_peer_down(&h, QPN, 1));
	health_tick(&h);
	assert_int_equal(fake.nprobe, (int)NEV / 4);
	assert_int_equal(pe.st.psu_applied, 2);
}

static void psu_hold_expires(void **state)
{
	uint32_t token;

	(void)state;
	token = connect_qp(0, 0, 256);
	msg(MRC_CTL_PSU, QPN, PEER_QPN, 7, token, 0x7, 0, 0, 2);
	assert_true(health_peer_down(&h, QPN, 3));
	fake.now_ns += PEER_PSU_HOLD_NS + 1;
	assert_false(health_peer_down(&h, QPN, 3));
	/* A new connection starts with nothing said. */
	msg(MRC_CTL_PSU, QPN, PEER_QPN, 8, token, 0x7, 0, 0, 2);
	assert_true(health_peer_down(&h, QPN, 3));
	health_qp_state(&h, QPN, MRC_QPS_RESET, 0);
	assert_false(health_peer_down(&h, QPN, 3));
}

static void forged_and_malformed_dropped(void **state)
{
	uint8_t b[MRC_CTL_LEN + 1] = { MRC_OP_CTL };
	uint8_t src[16] = { 198, 18, 0, 2 };
	uint32_t token;
	int ncmd;

	(void)state;
	token = connect_qp(0, 0, 256);
	ncmd = fake.ncmd;
	peer_input(&pe, 0, src, b, 5);
	peer_input(&pe, 0, src, b, sizeof(b));
	assert_int_equal(pe.st.drop[PEER_DROP_TRUNCATED], 2);
	b[0] = MRC_OP_PROBE;
	peer_input(&pe, 0, src, b, MRC_CTL_LEN);
	assert_int_equal(pe.st.drop[PEER_DROP_BAD_OPCODE], 1);
	b[0] = MRC_OP_CTL;
	b[12] = 9; /* CEXT version */
	peer_input(&pe, 0, src, b, MRC_CTL_LEN);
	assert_int_equal(pe.st.drop[PEER_DROP_BAD_VERSION], 1);
	msg(9, QPN, PEER_QPN, 7, token, 0, 0, 0, 2);
	assert_int_equal(pe.st.drop[PEER_DROP_BAD_TYPE], 1);
	msg(MRC_CTL_PSU, QPN, PEER_QPN, 7, token, 0, 0, -1, 2);
	assert_int_equal(pe.st.drop[PEER_DROP_NO_PORT], 1);
	msg(MRC_CTL_PSU, QPN + 1, PEER_QPN, 7, token, 0, 0, 0, 2);
	msg(MRC_CTL_PSU, 0xffffff, PEER_QPN, 7, token, 0, 0, 0, 2);
	assert_int_equal(pe.st.drop[PEER_DROP_UNKNOWN_QP], 2);
	/* Another QP of the peer's host, another host, or the peer's
	 * address on another plane than the one it came in on. */
	msg(MRC_CTL_PSU, QPN, PEER_QPN + 1, 7, token, 0, 0, 0, 2);
	msg(MRC_CTL_PSU, QPN, PEER_QPN, 7, token, 0, 0, 0, 3);
	{
		uint8_t b2[MRC_CTL_LEN] = {};
		struct mrc_bth *bth = (void *)b2;
		struct mrc_cext *cx = (void *)(bth + 1);

		bth->opcode = MRC_OP_CTL;
		bth->dqpn = htonl(QPN);
		cx->version = MRC_WIRE_VERSION;
		cx->type = MRC_CTL_PSU;
		cx->sqpn = htonl(PEER_QPN);
		cx->token = htonl(token);
		peer_input(&pe, 1, src, b2, sizeof(b2)); /* plane 0's addr */
	}
	assert_int_equal(pe.st.drop[PEER_DROP_NOT_PEER], 3);
	/* The right peer, the wrong token: a blind forger's guess. */
	msg(MRC_CTL_PSU, QPN, PEER_QPN, 7, token ^ 1, 0, 0, 0, 2);
	assert_int_equal(pe.st.drop[PEER_DROP_BAD_TOKEN], 1);
	assert_int_equal(pe.st.port_drop[0][PEER_DROP_BAD_TOKEN], 1);
	assert_int_equal(pe.st.port_drop[1][PEER_DROP_NOT_PEER], 1);
	/* An answer nobody waits for; a hello with no window. */
	msg(MRC_CTL_PSU_ANSWER, QPN, PEER_QPN, 5, token, 0xf, 0, 0, 2);
	assert_int_equal(pe.st.drop[PEER_DROP_STRAY_ANSWER], 1);
	msg(MRC_CTL_HELLO, QPN, PEER_QPN, 5, 1, 0, 0, 0, 2);
	assert_int_equal(pe.st.drop[PEER_DROP_BAD_VALUE], 1);
	/* None of it touched an EV. */
	assert_int_equal(fake.ncmd, ncmd);
	assert_false(health_peer_down(&h, QPN, 0));
	/* The answer we wait for is taken. */
	msg(MRC_CTL_PSU_ANSWER, QPN, PEER_QPN, 77, token, 0xf, 0, 0, 2);
	assert_int_equal(answers, 1);
}

static void psu_send_needs_a_known_peer(void **state)
{
	uint8_t addr[16] = { 198, 18, 32, 2 };

	(void)state;
	assert_int_equal(peer_psu_send(&pe, 2, addr, 1000, 0, 0xb, 3, 0),
			 -ENOTCONN);
	peer_qp_state(&pe, QPN, MRC_QPS_RTS, PEER_QPN, peer_gid, 0, 256, 256);
	assert_int_equal(peer_psu_send(&pe, 2, addr, 1000, 0, 0xb, 3, 0),
			 -ENOTCONN); /* no answer to our hello yet */
	connect_qp(0, 0, 256);
	assert_int_equal(peer_psu_send(&pe, 2, addr, 1000, 0, 0xb, 3, 0), 0);
	assert_int_equal(last_ctl()->cx.type, MRC_CTL_PSU);
	assert_int_equal(last_ctl()->port, 2);
	assert_int_equal(last_ctl()->sport, 1000);
	assert_int_equal(ntohl(last_ctl()->cx.token), 0xabcd0001);
	assert_int_equal(ntohl(last_ctl()->cx.value), 0xb);
	addr[3] = 3; /* another host */
	assert_int_equal(peer_psu_send(&pe, 2, addr, 1000, 0, 0xb, 3, 0),
			 -ENOTCONN);
}

static void hello_retried_until_answered(void **state)
{
	int n, k;

	(void)state;
	peer_qp_state(&pe, QPN, MRC_QPS_RTR, PEER_QPN, peer_gid, 1, 256, 256);
	n = fake.nctl;
	for (k = 0; k < 100; k++) {
		fake.now_ns += PEER_HELLO_RETRY_NS;
		peer_tick(&pe);
	}
	assert_int_equal(fake.nctl - n, PEER_HELLO_TRIES - 1);
	assert_int_equal(last_ctl()->cx.type, MRC_CTL_HELLO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(hello_again_keeps_its_number,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			hello_answer_believed_only_for_our_hello, setup,
			teardown),
		cmocka_unit_test_setup_teardown(dynamic_mpr_needs_both, setup,
						teardown),
		cmocka_unit_test_setup_teardown(responder_varies_its_mpr, setup,
						teardown),
		cmocka_unit_test_setup_teardown(psu_moves_the_peer_ports_evs,
						setup, teardown),
		cmocka_unit_test_setup_teardown(psu_hold_expires, setup,
						teardown),
		cmocka_unit_test_setup_teardown(forged_and_malformed_dropped,
						setup, teardown),
		cmocka_unit_test_setup_teardown(psu_send_needs_a_known_peer,
						setup, teardown),
		cmocka_unit_test_setup_teardown(hello_retried_until_answered,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
