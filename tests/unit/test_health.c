// SPDX-License-Identifier: GPL-2.0
/*
 * mrcd's path health (daemon/health.c) over the fake device: an EV the
 * data path blames is probed with backoff, comes back after probe-answers
 * answers in a row and only for answers to its own probes, flaps are held
 * out, a dead or disabled port's EVs leave use and are probed at once when
 * it is back, gray and lossy EVs are blamed from the data path's counters,
 * and MRCD_QP_HEALTH reports the events.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "config.h"
#include "fake_device.h"
#include "health.h"
#include "links.h"
#include "probe.h"
#include "mrc_ctl.h"

#define QPN 5u
#define NEV 16u
#define MS 1000000ull

static struct health h;
static struct links links;
static struct probe probe;
static struct mrcd_config cfg;
static struct dev dev;

static void to_health(void *ctx, const struct mrc_ev_event *v)
{
	(void)ctx;
	health_on_state(&h, v);
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
	}
	memset(&h, 0, sizeof(h)); /* health_init takes zeroed storage */
	assert_int_equal(health_init(&h, &dev, &probe, &links, &cfg), 0);
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

/* The data path blames EV i (as its loss detection would). */
static void blame(uint32_t i, uint32_t reason)
{
	assert_int_equal(dev_ev_cmd(&dev, MRC_DP_EV_BAD, QPN, i, reason), 0);
	fake_deliver(to_health, NULL);
}

/* The newest probe sent for EV i, or NULL. */
static const struct fake_probe *last_probe(uint32_t i)
{
	int k;

	for (k = fake.nprobe - 1; k >= 0; k--)
		if (fake.probe[k].ev_idx == i)
			return &fake.probe[k];
	return NULL;
}

/* The peer answers probe p after rtt_ns. */
static void answer(const struct fake_probe *p, uint32_t rtt_ns, uint32_t seq)
{
	struct mrc_ev_event v = {
		.ts_ns = fake.now_ns,
		.qpn = QPN,
		.ev = p->sport,
		.ev_idx = p->ev_idx,
		.port = (uint8_t)p->port,
		.type = MRC_EVT_PROBE,
		.seq = seq,
		.rtt_ns = rtt_ns,
	};

	health_on_probe(&h, &v);
}

/* Ticks of 1 ms until a probe for EV i goes out; the ms waited. */
static int wait_probe(uint32_t i, int max_ms)
{
	int n0 = fake.nprobe, ms;

	for (ms = 1; ms <= max_ms; ms++) {
		fake.now_ns += MS;
		health_tick(&h);
		if (fake.nprobe > n0) {
			assert_non_null(last_probe(i));
			return ms;
		}
	}
	return -1;
}

static void blamed_ev_probed_and_back(void **state)
{
	const struct fake_probe *p;
	int k, ms;

	(void)state;
	blame(3, MRC_EV_R_TIMEOUT);
	assert_int_equal(health_ev_state(&h, QPN, 3), MRC_EV_ASSUMED_BAD);
	/* The first probe after probe-backoff-min-ms, +-25 %. */
	ms = wait_probe(3, 10);
	assert_in_range(ms, 1, 2);
	p = last_probe(3);
	/* Addressed like EV 3's data: its port, source port, the peer. */
	assert_int_equal(p->port, 3);
	assert_int_equal(p->sport, 49155);
	assert_int_equal(p->dqpn, QPN + 100);
	assert_int_equal(p->addr[2], 48);
	assert_int_not_equal(p->seq, 0);
	/* Each answer sends the next probe at once; the third is enough. */
	for (k = 0; k < (int)cfg.probe_answers; k++) {
		p = last_probe(3);
		assert_int_equal(fake_cmds(MRC_DP_EV_GOOD, QPN, 3), 0);
		answer(p, 50000, p->seq);
	}
	assert_int_equal(fake.nprobe, (int)cfg.probe_answers);
	assert_int_equal(fake_cmds(MRC_DP_EV_GOOD, QPN, 3), 1);
	assert_int_equal(fake.cmd[fake.ncmd - 1].reason, MRC_EV_R_PROBES);
	fake_deliver(to_health, NULL);
	assert_int_equal(health_ev_state(&h, QPN, 3), MRC_EV_GOOD);
	assert_int_equal(fake.view[QPN].ev_state[3], MRC_EV_GOOD);
	assert_true(evm_has(&fake.view[QPN].ev_use, 3));
	/* Probing stops. */
	assert_int_equal(wait_probe(3, 200), -1);
}

static void answers_to_other_probes_not_believed(void **state)
{
	const struct fake_probe *p;
	int k;

	(void)state;
	blame(7, MRC_EV_R_TIMEOUT);
	assert_in_range(wait_probe(7, 10), 1, 2);
	p = last_probe(7);
	/* A forger who never saw the probe: any other number. */
	for (k = 0; k < 100; k++)
		answer(p, 50000, p->seq + 1 + (uint32_t)k);
	answer(p, 50000, 0);
	assert_int_equal(fake_cmds(MRC_DP_EV_GOOD, QPN, 7), 0);
	assert_int_equal(fake.nprobe, 1); /* no next probe either */
	/* The same answer twice counts once. */
	answer(p, 50000, p->seq);
	answer(p, 50000, p->seq);
	assert_int_equal(fake.nprobe, 2);
	assert_int_equal(health_ev_state(&h, QPN, 7), MRC_EV_ASSUMED_BAD);
}

static void lost_probes_back_off(void **state)
{
	uint64_t last = 0, gap, prev_gap = 0;
	int k, grew = 0;

	(void)state;
	blame(2, MRC_EV_R_TIMEOUT);
	/* Never answered: the gaps between probes double (with jitter)
	 * up to probe-backoff-max-ms. */
	for (k = 0; k < 12; k++) {
		int ms = wait_probe(2, 200);

		assert_true(ms > 0);
		gap = fake.now_ns - last;
		last = fake.now_ns;
		if (k >= 2 && gap > prev_gap)
			grew++;
		if (k >= 1)
			assert_true(gap <=
				    cfg.probe_backoff_max_ms * MS * 5 / 4 +
					    cfg.probe_timeout_ms * MS + 2 * MS);
		prev_gap = gap;
	}
	assert_true(grew >= 4);
	assert_true(prev_gap >= cfg.probe_backoff_max_ms * MS * 3 / 4);
	assert_true(h.probes_lost >= 11);
	assert_int_equal(fake_cmds(MRC_DP_EV_GOOD, QPN, 2), 0);
}

/* Answers EV i's probes until it is GOOD again. */
static void bring_back(uint32_t i)
{
	int before = fake_cmds(MRC_DP_EV_GOOD, QPN, (int)i);
	const struct fake_probe *p;
	int k;

	assert_true(wait_probe(i, 200) > 0);
	for (k = 0; k < 50 && fake_cmds(MRC_DP_EV_GOOD, QPN, (int)i) == before;
	     k++) {
		p = last_probe(i);
		answer(p, 50000, p->seq);
		if (fake_cmds(MRC_DP_EV_GOOD, QPN, (int)i) == before &&
		    last_probe(i) == p) {
			fake.now_ns += MS; /* held: the next one later */
			health_tick(&h);
		}
	}
	fake_deliver(to_health, NULL);
	assert_int_equal(health_ev_state(&h, QPN, i), MRC_EV_GOOD);
}

static void flapping_ev_held_out(void **state)
{
	uint64_t t0;
	int before;

	(void)state;
	blame(4, MRC_EV_R_TIMEOUT);
	bring_back(4);
	assert_int_equal(h.flaps, 0);
	/* Blamed again within a second of coming back: a flap. */
	fake.now_ns += 100 * MS;
	blame(4, MRC_EV_R_TIMEOUT);
	assert_int_equal(h.flaps, 1);
	t0 = fake.now_ns;
	before = fake_cmds(MRC_DP_EV_GOOD, QPN, 4);
	bring_back(4);
	assert_int_equal(fake_cmds(MRC_DP_EV_GOOD, QPN, 4), before + 1);
	/* Its answers had to span the hold (flap-hold-min-ms) first. */
	assert_true(fake.now_ns - t0 >= cfg.flap_hold_min_ms * MS);
}

static void port_down_and_back(void **state)
{
	uint32_t i;
	int n = 0;

	(void)state;
	/* Port 1 dies: its EVs (1, 5, 9, 13) leave use at once. */
	links.up[1] = 0;
	health_port_live(&h, 1, 0);
	for (i = 0; i < NEV; i++) {
		n += fake_cmds(MRC_DP_EV_BAD, QPN, (int)i);
		assert_int_equal(fake_cmds(MRC_DP_EV_BAD, QPN, (int)i),
				 i % 4 == 1);
	}
	assert_int_equal(n, 4);
	assert_int_equal(fake.cmd[0].reason, MRC_EV_R_PORT_DOWN);
	fake_deliver(to_health, NULL);
	/* Their probes go out unanswered; the backoff runs up, and one is
	 * in flight when the port comes back. */
	for (i = 0; i < 2000; i++) {
		fake.now_ns += MS;
		health_tick(&h);
	}
	assert_true(h.probes_lost >= 4 * 5);
	fake.nprobe = 0;
	while (fake.nprobe < 4) {
		fake.now_ns += MS;
		health_tick(&h);
	}
	fake.nprobe = 0;
	/* Back: probed on the next tick, not after the backoff. */
	links.up[1] = 1;
	health_port_live(&h, 1, 1);
	fake.now_ns += MS;
	health_tick(&h);
	assert_int_equal(fake.nprobe, 4);
	for (i = 1; i < NEV; i += 4)
		assert_non_null(last_probe(i));
}

static void disabled_port_answers_ignored(void **state)
{
	const struct fake_probe *p;
	int k;

	(void)state;
	blame(6, MRC_EV_R_TIMEOUT);
	assert_true(wait_probe(6, 10) > 0);
	/* The controller disables port 2 (EV 6's) while it is probed. */
	links.admin[2] = MRC_CTL_PORT_ADMIN_DISABLED;
	for (k = 0; k < 10; k++) {
		p = last_probe(6);
		answer(p, 50000, p->seq);
		assert_true(wait_probe(6, 100) > 0);
	}
	assert_int_equal(fake_cmds(MRC_DP_EV_GOOD, QPN, 6), 0);
	links.admin[2] = MRC_CTL_PORT_ADMIN_ENABLED;
	bring_back(6);
}

/* The data path's counters, writable (health maps them read only). */
static struct mrc_ev_stats *stats(void)
{
	void *p = mmap(NULL,
		       (size_t)MRC_MAX_QP * MRC_QP_EVS *
			       sizeof(struct mrc_ev_stats),
		       PROT_READ | PROT_WRITE, MAP_SHARED,
		       dev_map_fd(&dev, DEV_MAP_EV_STATS), 0);

	assert_true(p != MAP_FAILED);
	return (struct mrc_ev_stats *)p + QPN * MRC_QP_EVS;
}

/* One gray-interval of traffic: every EV 100 packets, 10 RTT samples of
 * 50 us, EV slow's at rtt_slow_ns, EV lossy losing lost of its 100. */
static void traffic(struct mrc_ev_stats *s, int slow, uint32_t rtt_slow_ns,
		    int lossy, uint32_t lost)
{
	uint32_t i;

	for (i = 0; i < NEV; i++) {
		s[i].sent += 100;
		s[i].rtt_samples += 10;
		s[i].rtt_srtt_ns = (int)i == slow ? rtt_slow_ns : 50000;
		if ((int)i == lossy)
			s[i].lost += lost;
	}
}

static void gray_ev_blamed_after_two_looks(void **state)
{
	struct mrc_ev_stats *s = stats();
	const uint32_t slow = 60 * MS / 10; /* 6 ms: > 8 x 50 us + 1 ms */

	(void)state;
	traffic(s, -1, 0, -1, 0);
	health_gray(&h); /* the first look only takes the counters */
	traffic(s, 9, slow, -1, 0);
	health_gray(&h);
	assert_int_equal(fake_cmds(MRC_DP_EV_BAD, QPN, -1), 0);
	traffic(s, 9, slow, -1, 0);
	health_gray(&h);
	assert_int_equal(fake_cmds(MRC_DP_EV_BAD, QPN, -1), 1);
	assert_int_equal(fake_cmds(MRC_DP_EV_BAD, QPN, 9), 1);
	assert_int_equal(fake.cmd[0].reason, MRC_EV_R_GRAY);
	/* A healthy QP blames nothing, however often it is looked at. */
	fake_deliver(to_health, NULL);
	fake.ncmd = 0;
	traffic(s, -1, 0, -1, 0);
	health_gray(&h);
	traffic(s, -1, 0, -1, 0);
	health_gray(&h);
	assert_int_equal(fake.ncmd, 0);
	munmap(s - QPN * MRC_QP_EVS,
	       (size_t)MRC_MAX_QP * MRC_QP_EVS * sizeof(struct mrc_ev_stats));
}

static void lossy_ev_blamed_at_once(void **state)
{
	struct mrc_ev_stats *s = stats();

	(void)state;
	traffic(s, -1, 0, -1, 0);
	health_gray(&h);
	traffic(s, -1, 0, 11, 30);
	health_gray(&h);
	assert_int_equal(fake_cmds(MRC_DP_EV_BAD, QPN, -1), 1);
	assert_int_equal(fake_cmds(MRC_DP_EV_BAD, QPN, 11), 1);
	assert_int_equal(fake.cmd[0].reason, MRC_EV_R_LOSSY);
	munmap(s - QPN * MRC_QP_EVS,
	       (size_t)MRC_MAX_QP * MRC_QP_EVS * sizeof(struct mrc_ev_stats));
}

/* An EV's share is of the packets between the last two looks only. */
static void share_of_the_last_look(void **state)
{
	struct mrc_ev_stats *s = stats();
	uint32_t i, sum = 0;

	(void)state;
	assert_int_equal(health_ev_share_pm(&h, QPN, 0), 0);
	traffic(s, -1, 0, -1, 0);
	s[3].sent += 1000000; /* long ago: the first look only takes it */
	health_gray(&h);
	traffic(s, -1, 0, -1, 0); /* 100 each, 1600 in all */
	s[3].sent += 1600 - 100; /* EV 3: 1600 of 3100 */
	health_gray(&h);
	assert_int_equal(health_ev_share_pm(&h, QPN, 3), 1600 * 1000 / 3100);
	assert_int_equal(health_ev_share_pm(&h, QPN, 0), 100 * 1000 / 3100);
	for (i = 0; i < NEV; i++)
		sum += health_ev_share_pm(&h, QPN, i);
	assert_in_range(sum, 1000 - NEV, 1000);
	/* A look with nothing sent: no share, not the old one. */
	health_gray(&h);
	assert_int_equal(health_ev_share_pm(&h, QPN, 3), 0);
	assert_int_equal(health_ev_share_pm(&h, QPN, MRC_QP_EVS), 0);
	assert_int_equal(health_ev_share_pm(&h, MRC_MAX_QP, 0), 0);
	munmap(s - QPN * MRC_QP_EVS,
	       (size_t)MRC_MAX_QP * MRC_QP_EVS * sizeof(struct mrc_ev_stats));
}

static void query_reports_events(void **state)
{
	struct mrcd_qp_health q;

	(void)state;
	blame(1, MRC_EV_R_TIMEOUT);
	health_on_dropped(&h, 3);
	blame(8, MRC_EV_R_SILENT);
	assert_int_equal(health_query(&h, QPN, 0, &q), 0);
	assert_int_equal(q.nev, NEV);
	assert_int_equal(q.nevents, 2);
	assert_int_equal(q.last_no, 2);
	assert_int_equal(q.events[0].ev_idx, 1);
	assert_int_equal(q.events[0].dropped, 0);
	assert_int_equal(q.events[1].ev_idx, 8);
	assert_int_equal(q.events[1].reason, MRC_EV_R_SILENT);
	assert_int_equal(q.events[1].dropped, 3); /* told with the next */
	assert_int_equal(q.state[8], MRC_EV_ASSUMED_BAD);
	assert_false(q.ev_use[0] >> 8 & 1);
	/* Only what came after. */
	assert_int_equal(health_query(&h, QPN, 1, &q), 0);
	assert_int_equal(q.nevents, 1);
	assert_int_equal(q.events[0].no, 2);
}

static void closed_qp_forgotten(void **state)
{
	(void)state;
	blame(0, MRC_EV_R_TIMEOUT);
	health_qp_close(&h, QPN);
	assert_int_equal(h.nprobing, 0);
	assert_int_equal(wait_probe(0, 100), -1);
	/* Events for a QP health does not know change nothing. */
	fake_qp_rts(QPN, NEV);
	blame(5, MRC_EV_R_TIMEOUT);
	assert_int_equal(health_ev_state(&h, QPN, 5), MRC_EV_GOOD);
	assert_int_equal(h.nprobing, 0);
}

static void back_to_rts_starts_over(void **state)
{
	(void)state;
	blame(10, MRC_EV_R_TIMEOUT);
	assert_int_equal(h.nprobing, 1);
	health_qp_state(&h, QPN, MRC_QPS_RESET, 0);
	assert_int_equal(h.nprobing, 0);
	assert_int_equal(health_ev_state(&h, QPN, 10), MRC_EV_GOOD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(blamed_ev_probed_and_back,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			answers_to_other_probes_not_believed, setup, teardown),
		cmocka_unit_test_setup_teardown(lost_probes_back_off, setup,
						teardown),
		cmocka_unit_test_setup_teardown(flapping_ev_held_out, setup,
						teardown),
		cmocka_unit_test_setup_teardown(port_down_and_back, setup,
						teardown),
		cmocka_unit_test_setup_teardown(disabled_port_answers_ignored,
						setup, teardown),
		cmocka_unit_test_setup_teardown(gray_ev_blamed_after_two_looks,
						setup, teardown),
		cmocka_unit_test_setup_teardown(lossy_ev_blamed_at_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(share_of_the_last_look, setup,
						teardown),
		cmocka_unit_test_setup_teardown(query_reports_events, setup,
						teardown),
		cmocka_unit_test_setup_teardown(closed_qp_forgotten, setup,
						teardown),
		cmocka_unit_test_setup_teardown(back_to_rts_starts_over, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
