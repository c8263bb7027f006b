// SPDX-License-Identifier: GPL-2.0
/*
 * Path health in the data path (docs/health.md), through BPF_PROG_TEST_RUN:
 * probes answered by the receive program and their answers turned into
 * EV events; the control program's GOOD / BAD / DENY / ALLOW and
 * ev_min_active; the transmit program spraying only over EVs in use; and
 * a loss on one EV, told by a later packet on the same EV, marking exactly
 * that EV ASSUMED_BAD.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/bpf.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fixture.h"
#include "pkt.h"
#include "mrc/abi.h"
#include "mrc/drop.h"
#include "mrc/wire.h"
#include "mrc_xdp_ctl.skel.h"
#include "mrc_xdp_rx.skel.h"
#include "mrc_xdp_tx.skel.h"
#include "tx_call.h"

#define S_QPN 5 /* the prober / sender */
#define R_QPN 77 /* its peer */
#define NEV 16
#define EV0 49152
#define SEQ 9

static const uint8_t MAC_A[6] = { 2, 0, 0, 0, 0, 0xa };
static const uint8_t MAC_B[6] = { 2, 0, 0, 0, 0, 0xb };

static struct mrc_xdp_rx *rx;
static struct mrc_xdp_tx *tx;
static struct mrc_xdp_ctl *ctl;
static struct ring_buffer *events;
static struct mrc_ev_event ev[64];
static int nev_seen;
static struct mrc_sq *sq;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int on_event(void *ctx, void *d, size_t len)
{
	(void)ctx;
	if (len != sizeof(struct mrc_ev_event) || nev_seen == 64)
		return -EINVAL;
	memcpy(&ev[nev_seen++], d, len);
	return 0;
}

static int drain_events(void)
{
	nev_seen = 0;
	return ring_buffer__consume(events) < 0 ? -1 : nev_seen;
}

static int share_maps(struct bpf_object *obj)
{
	struct bpf_map *m, *same;

	bpf_object__for_each_map(m, obj)
	{
		if (bpf_map__is_internal(m))
			continue;
		same = bpf_object__find_map_by_name(rx->obj, bpf_map__name(m));
		if (!same || bpf_map__reuse_fd(m, bpf_map__fd(same)))
			return -1;
	}
	return 0;
}

/* The receive side of R_QPN (answers probes) and the send side of S_QPN. */
static uint32_t reorder_ns = 1000000000; /* by default: no time rule */

static int set_qps(uint32_t nev, uint32_t min_active)
{
	static struct mrc_qp_tx qt;
	struct mrc_qp_rx qr = { .state = MRC_QPS_RTS,
				.peer_qpn = S_QPN,
				.window = MRC_RX_WINDOW_MAX };
	uint32_t key = R_QPN, i;

	memset(&qt, 0, sizeof(qt));
	qt.state = MRC_QPS_RTS;
	qt.peer_qpn = R_QPN;
	qt.window = MRC_RX_WINDOW_MAX;
	qt.mtu = 1024;
	qt.nev = nev;
	qt.timeout_ns = 1000000000ull;
	qt.retry_linear = 7;
	qt.retry_exp = 7;
	qt.ev_min_active = min_active;
	qt.reorder_ns = reorder_ns;
	for (i = 0; i < nev; i++) {
		qt.ev[i] = (uint16_t)(EV0 + i);
		qt.ev_port[i] = (uint8_t)(i % 4);
		evm_set(&qt.port_evs[i % 4], i);
		qt.ev_state[i] = MRC_EV_GOOD;
		inet_pton(AF_INET, "198.18.2.2", qt.peer_addr[i % 4]);
	}
	evm_first(&qt.ev_use, nev);
	if (bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_qp), &key, &qr,
				BPF_ANY))
		return -1;
	key = S_QPN;
	memset(sq, 0, sizeof(*sq));
	return bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_qp_tx), &key, &qt,
				   BPF_ANY);
}

static struct mrc_qp_tx *get_qp_tx(void)
{
	static struct mrc_qp_tx qt;
	uint32_t key = S_QPN;

	if (bpf_map_lookup_elem(bpf_map__fd(rx->maps.mrc_qp_tx), &key, &qt))
		return NULL;
	return &qt;
}

/* Write QP S_QPN's send half back, as a test changed it. */
static void put_qp_tx(const struct mrc_qp_tx *qt)
{
	uint32_t key = S_QPN;

	assert_int_equal(bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_qp_tx),
					     &key, qt, BPF_ANY),
			 0);
}

static uint64_t percpu(struct bpf_map *m, uint32_t key)
{
	return fixture_percpu_sum(bpf_map__fd(m), key);
}

static int zero_percpu(struct bpf_map *m, uint32_t n)
{
	int ncpu = libbpf_num_possible_cpus();
	uint64_t zero[ncpu];
	uint32_t k;

	memset(zero, 0, sizeof(zero));
	for (k = 0; k < n; k++)
		if (bpf_map_update_elem(bpf_map__fd(m), &k, zero, BPF_ANY))
			return -1;
	return 0;
}

static int reset(void)
{
	struct mrc_ev_stats st = {};
	uint32_t e, key;

	/* The QP's EV counters, which mrcd zeroes when it makes a QP. */
	for (e = 0; e < MRC_QP_EVS; e++) {
		key = S_QPN * MRC_QP_EVS + e;
		if (bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_ev_stats),
					&key, &st, BPF_ANY))
			return -1;
	}
	if (zero_percpu(rx->maps.mrc_drop, MRC_DROP_MAX) ||
	    zero_percpu(rx->maps.mrc_rx_stats, MRC_RX_MAX) ||
	    zero_percpu(rx->maps.mrc_tx_stats, MRC_TX_MAX))
		return -1;
	drain_events();
	return set_qps(NEV, 1);
}

static int xdp_run(int prog_fd, const void *in, uint32_t len, struct pkt *out)
{
	struct xdp_md ctx = { .data_end = len, .ingress_ifindex = 1 };

	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in, .data_size_in = len,
		    .ctx_in = &ctx, .ctx_size_in = sizeof(ctx));
	if (out) {
		pkt_init(out);
		o.data_out = out->data;
		o.data_size_out = sizeof(out->data);
	}
	if (bpf_prog_test_run_opts(prog_fd, &o))
		return -1;
	if (out)
		out->len = o.data_size_out;
	return (int)o.retval;
}

/* The receive program takes p (an ACK, a probe answer): it ends there. */
static void rx_takes(const struct pkt *p)
{
	assert_int_equal(xdp_run(bpf_program__fd(rx->progs.mrc_xdp_rx), p->data,
				 (uint32_t)p->len, NULL),
			 XDP_DROP);
}

/* A command through mrc_xdp_ctl; returns its result (0 or an errno). */
static int cmd(uint32_t op, uint32_t qpn, uint32_t idx, uint32_t reason)
{
	struct mrc_dp_cmd c = { .magic = MRC_DP_MAGIC,
				.op = op,
				.qpn = qpn,
				.ev_idx = idx,
				.reason = reason };
	struct pkt out;

	/* XDP wants a frame of at least an Ethernet header: pad it. */
	uint8_t buf[64] = {};

	memcpy(buf, &c, sizeof(c));
	if (xdp_run(bpf_program__fd(ctl->progs.mrc_xdp_ctl), buf, sizeof(buf),
		    &out) != XDP_PASS)
		return -1;
	memcpy(&c, out.data, sizeof(c));
	return (int)c.result;
}

/*
 * MRC_DP_EMIT: a frame mrcd built, after the command, goes out of its
 * port's mrc_tx_port entry (ports 0-3 lead to lo here), the command cut
 * off; no entry, a port past MRC_MAX_PORTS or less than an Ethernet
 * header: dropped and counted, nothing sent.
 */
static void emit_frames(void **state)
{
	struct mrc_dp_cmd c = { .magic = MRC_DP_MAGIC, .op = MRC_DP_EMIT };
	uint8_t buf[sizeof(c) + 60];
	struct pkt out;
	uint32_t i, port[] = { 3, 4, MRC_MAX_PORTS, 99 };
	int want[] = { XDP_REDIRECT, XDP_DROP, XDP_DROP, XDP_DROP };

	(void)state;
	assert_int_equal(reset(), 0);
	for (i = 0; i < 60; i++)
		buf[sizeof(c) + i] = (uint8_t)(0xa0 + i);
	for (i = 0; i < 4; i++) {
		c.value = port[i];
		memcpy(buf, &c, sizeof(c));
		assert_int_equal(
			xdp_run(bpf_program__fd(ctl->progs.mrc_xdp_ctl), buf,
				sizeof(buf), &out),
			want[i]);
		if (want[i] == XDP_REDIRECT) {
			assert_int_equal(out.len, 60);
			assert_memory_equal(out.data, buf + sizeof(c), 60);
		}
	}
	/* The command and 13 bytes: no Ethernet header. */
	c.value = 0;
	memcpy(buf, &c, sizeof(c));
	assert_int_equal(xdp_run(bpf_program__fd(ctl->progs.mrc_xdp_ctl), buf,
				 sizeof(c) + 13, NULL),
			 XDP_DROP);
	assert_int_equal(percpu(rx->maps.mrc_tx_stats, MRC_TX_MRCD_FRAMES), 1);
	assert_int_equal(
		percpu(rx->maps.mrc_tx_stats, MRC_TX_MRCD_FRAMES_FAILED), 4);
}

/* A probe from A (198.18.1.2) to B's QP qpn, or its answer coming back. */
static void probe(struct pkt *p, uint8_t op, uint32_t qpn, uint8_t idx,
		  uint64_t ts, uint32_t svc)
{
	pkt_init(p);
	if (op == MRC_OP_PROBE) {
		pkt_eth(p, MAC_B, MAC_A);
		pkt_ipv4(p, "198.18.1.2", "198.18.2.2", 0);
	} else {
		pkt_eth(p, MAC_A, MAC_B);
		pkt_ipv4(p, "198.18.2.2", "198.18.1.2", 0);
	}
	pkt_udp(p, (uint16_t)(EV0 + idx), MRC_UDP_PORT);
	pkt_bth(p, op, qpn, 0, 0);
	pkt_pext(p, (uint16_t)(EV0 + idx), idx, SEQ, ts, svc);
	p->udp_csum = 1;
	pkt_finish(p);
}

static void probe_answered(void **state)
{
	struct pkt in, out;
	const struct udphdr *udp;
	const struct mrc_bth *bth;
	const struct mrc_pext *px;
	const struct iphdr *ip;

	(void)state;
	assert_int_equal(reset(), 0);
	probe(&in, MRC_OP_PROBE, R_QPN, 3, 0x123456789ull, 0);
	assert_int_equal(xdp_run(bpf_program__fd(rx->progs.mrc_xdp_rx), in.data,
				 (uint32_t)in.len, &out),
			 XDP_TX);
	assert_int_equal(out.len, in.len);
	assert_int_equal(pkt_verify_csums(out.data, out.len), 0);
	assert_memory_equal(out.data, MAC_A, 6); /* back to the prober */
	ip = (const void *)(out.data + 14);
	assert_int_equal(ip->saddr, inet_addr("198.18.2.2"));
	assert_int_equal(ip->daddr, inet_addr("198.18.1.2"));
	udp = (const void *)(ip + 1);
	assert_int_equal(ntohs(udp->source), EV0 + 3); /* same EV */
	assert_int_equal(ntohs(udp->dest), MRC_UDP_PORT);
	bth = (const void *)(udp + 1);
	assert_int_equal(bth->opcode, MRC_OP_PROBE_ANSWER);
	assert_int_equal(ntohl(bth->dqpn), S_QPN);
	px = (const void *)(bth + 1);
	assert_int_equal(px->ev_idx, 3);
	assert_int_equal(ntohl(px->seq), SEQ);
	assert_int_equal(ntohl(px->tx_ts_hi), 0x1);
	assert_int_equal(ntohl(px->tx_ts_lo), 0x23456789);
	assert_true(ntohl(px->svc_ns) < 10000000);
	assert_int_equal(percpu(rx->maps.mrc_rx_stats, MRC_RX_PROBES_ANSWERED),
			 1);
}

static void probe_refused(void **state)
{
	struct pkt in;

	(void)state;
	/* A QP we do not have: no answer, counted. */
	assert_int_equal(reset(), 0);
	probe(&in, MRC_OP_PROBE, 999, 3, 1, 0);
	rx_takes(&in);
	assert_int_equal(percpu(rx->maps.mrc_drop, MRC_DROP_UNKNOWN_QP), 1);
	/* A bad checksum. */
	probe(&in, MRC_OP_PROBE, R_QPN, 3, 1, 0);
	in.data[in.len - 1] ^= 0x40;
	rx_takes(&in);
	assert_int_equal(percpu(rx->maps.mrc_drop, MRC_DROP_CHECKSUM), 1);
	/* A byte short: truncated. */
	probe(&in, MRC_OP_PROBE, R_QPN, 3, 1, 0);
	assert_int_equal(xdp_run(bpf_program__fd(rx->progs.mrc_xdp_rx), in.data,
				 (uint32_t)in.len - 1, NULL),
			 XDP_DROP);
	assert_int_equal(percpu(rx->maps.mrc_drop, MRC_DROP_TRUNCATED), 1);
	assert_int_equal(percpu(rx->maps.mrc_rx_stats, MRC_RX_PROBES_ANSWERED),
			 0);
}

static void probe_answer_is_an_event(void **state)
{
	uint64_t sent = mono_ns() - 5000;
	struct pkt in;

	(void)state;
	assert_int_equal(reset(), 0);
	probe(&in, MRC_OP_PROBE_ANSWER, S_QPN, 6, sent, 700);
	rx_takes(&in);
	assert_int_equal(drain_events(), 1);
	assert_int_equal(ev[0].type, MRC_EVT_PROBE);
	assert_int_equal(ev[0].qpn, S_QPN);
	assert_int_equal(ev[0].ev_idx, 6);
	assert_int_equal(ev[0].ev, EV0 + 6);
	assert_int_equal(ev[0].port, 6 % 4);
	assert_int_equal(ev[0].seq, SEQ);
	assert_int_equal(ev[0].svc_ns, 700);
	/* At least the 5 us it was sent before, less the service time. */
	assert_true(ev[0].rtt_ns >= 4300 && ev[0].rtt_ns < 1000000000);
}

/* Bytes after the probe's datagram (padding) do not go back with the
 * answer: it is exactly as long as the probe. */
static void probe_answer_cut_to_length(void **state)
{
	struct pkt in, out;
	size_t len;

	(void)state;
	assert_int_equal(reset(), 0);
	probe(&in, MRC_OP_PROBE, R_QPN, 3, 0x123456789ull, 0);
	len = in.len;
	memset(in.data + in.len, 0x5a, 100);
	in.len += 100;
	assert_int_equal(xdp_run(bpf_program__fd(rx->progs.mrc_xdp_rx), in.data,
				 (uint32_t)in.len, &out),
			 XDP_TX);
	assert_int_equal(out.len, len);
	assert_int_equal(pkt_verify_csums(out.data, out.len), 0);
}

/* An answer naming an EV index no QP has is dropped, and counted so. */
static void probe_answer_bad_ev_counted(void **state)
{
	struct pkt in;

	(void)state;
	assert_int_equal(reset(), 0);
	/* An EV index past the QP's last (any is fine for device probes). */
	probe(&in, MRC_OP_PROBE_ANSWER, S_QPN, NEV, mono_ns(), 700);
	rx_takes(&in);
	assert_int_equal(drain_events(), 0);
	assert_int_equal(percpu(rx->maps.mrc_drop, MRC_DROP_PROBE_EV), 1);
}

/*
 * A device probe (the controller's EV probe, dqpn MRC_PROBE_QPN) needs no
 * QP: the peer answers it to MRC_PROBE_QPN, and the answer becomes an
 * event with the sequence number and the interface it came in on.
 */
static void device_probe(void **state)
{
	uint64_t sent = mono_ns() - 5000;
	struct pkt in, out;
	const struct mrc_bth *bth;

	(void)state;
	assert_int_equal(reset(), 0);
	probe(&in, MRC_OP_PROBE, MRC_PROBE_QPN, 9, sent, 0);
	assert_int_equal(xdp_run(bpf_program__fd(rx->progs.mrc_xdp_rx), in.data,
				 (uint32_t)in.len, &out),
			 XDP_TX);
	assert_int_equal(pkt_verify_csums(out.data, out.len), 0);
	bth = (const void *)(out.data + 14 + 20 + 8);
	assert_int_equal(bth->opcode, MRC_OP_PROBE_ANSWER);
	assert_int_equal(ntohl(bth->dqpn), MRC_PROBE_QPN);
	assert_int_equal(percpu(rx->maps.mrc_rx_stats, MRC_RX_PROBES_ANSWERED),
			 1);
	/* Its answer, at the prober: dropped unless mrcd waits for it. */
	probe(&in, MRC_OP_PROBE_ANSWER, MRC_PROBE_QPN, 9, sent, 300);
	rx_takes(&in);
	assert_int_equal(drain_events(), 0);
	assert_int_equal(percpu(rx->maps.mrc_drop, MRC_DROP_STRAY_PROBE_ANSWER),
			 1);
	{
		struct mrc_probe_arm arm = { .seq_lo = SEQ, .seq_hi = SEQ + 1 };
		uint32_t zero = 0;

		assert_int_equal(
			bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_probe_arm),
					    &zero, &arm, BPF_ANY),
			0);
	}
	rx_takes(&in);
	assert_int_equal(drain_events(), 1);
	assert_int_equal(ev[0].type, MRC_EVT_PROBE);
	assert_int_equal(ev[0].qpn, MRC_PROBE_QPN);
	assert_int_equal(ev[0].ev_idx, 9);
	assert_int_equal(ev[0].seq, SEQ);
	assert_int_equal(ev[0].svc_ns, 300);
	assert_int_equal(ev[0].ifindex, 1); /* test runs come in on lo */
	assert_true(ev[0].rtt_ns >= 4700 && ev[0].rtt_ns < 1000000000);
	assert_int_equal(percpu(rx->maps.mrc_drop, MRC_DROP_UNKNOWN_QP), 0);
}

static void control_states(void **state)
{
	struct mrc_qp_tx *qt;

	(void)state;
	assert_int_equal(reset(), 0);
	assert_int_equal(set_qps(NEV, 14), 0);
	/* 16 in use, at least 14 must stay. */
	assert_int_equal(cmd(MRC_DP_EV_BAD, S_QPN, 0, MRC_EV_R_PORT_DOWN), 0);
	assert_int_equal(cmd(MRC_DP_EV_BAD, S_QPN, 1, MRC_EV_R_PORT_DOWN), 0);
	assert_int_equal(cmd(MRC_DP_EV_BAD, S_QPN, 2, MRC_EV_R_PORT_DOWN), 0);
	qt = get_qp_tx();
	assert_non_null(qt);
	assert_int_equal(qt->ev_use.w[0], 0xfffc); /* EV 2 kept */
	assert_int_equal(qt->ev_state[2], MRC_EV_ASSUMED_BAD);
	assert_int_equal(drain_events(), 3);
	assert_int_equal(ev[0].reason, MRC_EV_R_PORT_DOWN);
	assert_int_equal(ev[0].state, MRC_EV_ASSUMED_BAD);
	assert_int_equal(ev[0].old_state, MRC_EV_GOOD);
	assert_int_equal(ev[2].reason, MRC_EV_R_MIN_ACTIVE);
	/* Marking a bad EV again changes nothing and says nothing. */
	assert_int_equal(cmd(MRC_DP_EV_BAD, S_QPN, 0, MRC_EV_R_PORT_DOWN), 0);
	assert_int_equal(drain_events(), 0);
	/* Probes answered: back in use. */
	assert_int_equal(cmd(MRC_DP_EV_GOOD, S_QPN, 0, MRC_EV_R_PROBES), 0);
	qt = get_qp_tx();
	assert_int_equal(qt->ev_use.w[0], 0xfffd);
	assert_int_equal(drain_events(), 1);
	assert_int_equal(ev[0].state, MRC_EV_GOOD);
	assert_int_equal(ev[0].reason, MRC_EV_R_PROBES);
	/* Denied: out of use, whatever ev_min_active says; allowed: still
	 * out until probed. */
	assert_int_equal(cmd(MRC_DP_EV_DENY, S_QPN, 5, MRC_EV_R_DENY), 0);
	qt = get_qp_tx();
	assert_int_equal(qt->ev_use.w[0], 0xffdd);
	assert_int_equal(qt->ev_denied.w[0], 0x20);
	assert_int_equal(cmd(MRC_DP_EV_GOOD, S_QPN, 5, MRC_EV_R_PROBES), 0);
	assert_int_equal(get_qp_tx()->ev_state[5], MRC_EV_DENIED);
	assert_int_equal(cmd(MRC_DP_EV_ALLOW, S_QPN, 5, MRC_EV_R_ALLOW), 0);
	qt = get_qp_tx();
	assert_int_equal(qt->ev_state[5], MRC_EV_ASSUMED_BAD);
	assert_int_equal(qt->ev_use.w[0], 0xffdd);
	assert_int_equal(qt->ev_denied.w[0], 0);
	/* Bad commands. */
	assert_int_equal(cmd(MRC_DP_EV_GOOD, S_QPN, NEV, 0), EINVAL);
	assert_int_equal(cmd(MRC_DP_EV_GOOD, 999, 0, 0), ENOENT);
	assert_int_equal(cmd(99, S_QPN, 0, 0), EINVAL);
}

/* QP_READ of qpn into v, through a packet of len bytes; its result. */
static int read_view(uint32_t qpn, uint32_t len, struct mrc_qp_view *v)
{
	struct {
		struct mrc_dp_cmd c;
		struct mrc_qp_view v;
	} in = {
		.c = { .magic = MRC_DP_MAGIC, .op = MRC_DP_QP_READ, .qpn = qpn }
	};
	static struct pkt out;

	memset(&in.v, 0xa5, sizeof(in.v)); /* every byte must be written */
	if (xdp_run(bpf_program__fd(ctl->progs.mrc_xdp_ctl), &in, len, &out) !=
	    XDP_PASS)
		return -1;
	memcpy(&in, out.data, len);
	*v = in.v;
	return (int)in.c.result;
}

/*
 * mrcd reads a QP's send state only through the control program: the
 * fields of its view, copied under the send lock (not the 23 KB value),
 * and sets the state of both halves under their locks.
 */
static void qp_view_and_state(void **state)
{
	struct mrc_dp_cmd c = { .magic = MRC_DP_MAGIC,
				.op = MRC_DP_QP_STATE,
				.qpn = S_QPN,
				.value = MRC_QPS_ERR };
	struct mrc_qp_tx *qt;
	struct mrc_qp_view v;
	struct mrc_qp_rx qr;
	uint32_t key = S_QPN, i;
	uint8_t buf[64] = {};
	struct pkt out;

	(void)state;
	assert_int_equal(reset(), 0);
	assert_int_equal(cmd(MRC_DP_EV_DENY, S_QPN, 3, MRC_EV_R_DENY), 0);
	assert_int_equal(cmd(MRC_DP_EV_BAD, S_QPN, 1, MRC_EV_R_PORT_DOWN), 0);
	qt = get_qp_tx();
	qt->next_psn = 1234;
	qt->una_psn = 1200;
	qt->sq_head = 7;
	qt->sq_done = 5;
	qt->ev_fl[2] = 0xbeef;
	assert_int_equal(bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_qp_tx),
					     &key, qt, BPF_ANY),
			 0);
	assert_int_equal(read_view(S_QPN, sizeof(c) + sizeof(v), &v), 0);
	assert_int_equal(v.state, MRC_QPS_RTS);
	assert_int_equal(v.peer_qpn, R_QPN);
	assert_int_equal(v.window, MRC_RX_WINDOW_MAX);
	assert_int_equal(v.mtu, 1024);
	assert_int_equal(v.nev, NEV);
	assert_int_equal(v.next_psn, 1234);
	assert_int_equal(v.una_psn, 1200);
	assert_int_equal(v.sq_head, 7);
	assert_int_equal(v.sq_done, 5);
	assert_int_equal(v.pad0, 0);
	assert_int_equal(v.timeout_ns, 1000000000ull);
	assert_int_equal(v.ev_use.w[0], qt->ev_use.w[0]);
	assert_int_equal(v.ev_denied.w[0], 1u << 3);
	assert_memory_equal(v.ev, qt->ev, sizeof(v.ev));
	assert_memory_equal(v.ev_fl, qt->ev_fl, sizeof(v.ev_fl));
	assert_memory_equal(v.ev_port, qt->ev_port, sizeof(v.ev_port));
	assert_memory_equal(v.ev_state, qt->ev_state, sizeof(v.ev_state));
	assert_memory_equal(v.peer_addr, qt->peer_addr, sizeof(v.peer_addr));
	for (i = 0; i < NEV; i++)
		assert_int_equal(v.ev_state[i], i == 3 ? MRC_EV_DENIED :
						i == 1 ? MRC_EV_ASSUMED_BAD :
							 MRC_EV_GOOD);
	/* No room for the view; a QP number out of range. */
	assert_int_equal(read_view(S_QPN, 64, &v), EMSGSIZE);
	assert_int_equal(read_view(MRC_MAX_QP, sizeof(c) + sizeof(v), &v),
			 ENOENT);
	assert_int_equal(drain_events(), 2); /* reads say nothing */

	/* The state of both halves, the rest as it was. */
	memcpy(buf, &c, sizeof(c));
	assert_int_equal(xdp_run(bpf_program__fd(ctl->progs.mrc_xdp_ctl), buf,
				 sizeof(buf), &out),
			 XDP_PASS);
	memcpy(&c, out.data, sizeof(c));
	assert_int_equal(c.result, 0);
	qt = get_qp_tx();
	assert_int_equal(qt->state, MRC_QPS_ERR);
	assert_int_equal(qt->next_psn, 1234);
	assert_int_equal(qt->ev_denied.w[0], 1u << 3);
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(rx->maps.mrc_qp), &key,
					     &qr),
			 0);
	assert_int_equal(qr.state, MRC_QPS_ERR);
	/* Not a state. */
	c.value = 42;
	memcpy(buf, &c, sizeof(c));
	assert_int_equal(xdp_run(bpf_program__fd(ctl->progs.mrc_xdp_ctl), buf,
				 sizeof(buf), &out),
			 XDP_PASS);
	memcpy(&c, out.data, sizeof(c));
	assert_int_equal(c.result, EINVAL);
	assert_int_equal(get_qp_tx()->state, MRC_QPS_ERR);
}

/* Runs the transmit program once; the UDP source port (the EV) it chose,
 * 0 when it sent nothing. */
static unsigned int tx_once(void)
{
	static uint8_t frame[1600];
	struct pkt out;
	int v;

	v = xdp_run(bpf_program__fd(tx->progs.mrc_xdp_tx), frame, sizeof(frame),
		    &out);
	if (v != XDP_REDIRECT)
		return 0;
	return ntohs(((const struct udphdr *)(out.data + 14 + 20))->source);
}

/* n zero-length WRITEs in the send queue (one packet each). */
static void post_empty(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct mrc_wqe *w = &sq->wqe[(sq->tail + i) % MRC_SQ_DEPTH];

		memset(w, 0, sizeof(*w));
		w->opcode = MRC_WR_RDMA_WRITE;
		w->wr_id = i;
	}
	sq->tail += n;
}

/* The transmit program's next n EVs, which must be want[]. */
static void sends_on(const unsigned int *want, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		assert_int_equal(tx_once(), EV0 + want[i]);
}

static void spray_skips_unused(void **state)
{
	unsigned int i, seen[NEV] = {}, port;

	(void)state;
	assert_int_equal(reset(), 0);
	assert_int_equal(cmd(MRC_DP_EV_BAD, S_QPN, 3, MRC_EV_R_LOSS), 0);
	assert_int_equal(cmd(MRC_DP_EV_DENY, S_QPN, 7, MRC_EV_R_DENY), 0);
	post_empty(64);
	for (i = 0; i < 64; i++) {
		port = tx_once();
		assert_true(port >= EV0 && port < EV0 + NEV);
		seen[port - EV0]++;
	}
	for (i = 0; i < NEV; i++) {
		if (i == 3 || i == 7)
			assert_int_equal(seen[i], 0);
		else
			assert_true(seen[i] >= 4 && seen[i] <= 5);
	}
	/* Every EV denied: nothing leaves. */
	for (i = 0; i < NEV; i++)
		assert_int_equal(cmd(MRC_DP_EV_DENY, S_QPN, i, MRC_EV_R_DENY),
				 0);
	post_empty(1);
	assert_int_equal(tx_once(), 0);
}

/*
 * Transmit lanes: a call on lane 1 of 2 sprays over the odd EVs only, in
 * turn, passing by an ASSUMED_BAD one; lane 2 of 4 over EVs 2, 6, 10 and
 * 14; a lane whose EVs are all DENIED sends nothing and takes nothing
 * from the QP (its PSN goes out next, on another lane), never another
 * lane's EV; lanes 1 is every EV again.
 */
static void lanes_spray_their_own_evs(void **state)
{
	static const unsigned int odd[] = { 1, 3, 7, 9, 11, 13, 15, 1 };
	static const unsigned int fourth[] = { 2, 6, 10, 14, 2 };
	unsigned int i, port;

	(void)state;
	assert_int_equal(reset(), 0);
	assert_int_equal(cmd(MRC_DP_EV_BAD, S_QPN, 5, MRC_EV_R_LOSS), 0);
	tx_call_lane(tx->bss->tx_list, 1, 2);
	post_empty(8);
	sends_on(odd, 8);
	tx_call_lane(tx->bss->tx_list, 2, 4);
	post_empty(5);
	sends_on(fourth, 5);
	/* Lane 3 of 4 (3, 7, 11, 15) all denied: the others carry it. */
	for (i = 3; i < NEV; i += 4)
		assert_int_equal(cmd(MRC_DP_EV_DENY, S_QPN, i, MRC_EV_R_DENY),
				 0);
	tx_call_lane(tx->bss->tx_list, 3, 4);
	post_empty(8);
	for (i = 0; i < 3; i++)
		assert_int_equal(tx_once(), 0);
	tx_call_lane(tx->bss->tx_list, 1, 4);
	for (i = 0; i < 8; i++) {
		port = tx_once();
		assert_true(port >= EV0 && port < EV0 + NEV);
		assert_int_equal((port - EV0) % 4, 1);
		assert_int_not_equal(port - EV0, 5);
	}
	tx_call_lane(tx->bss->tx_list, 0, 1);
	post_empty(3);
	for (i = 0; i < 3; i++)
		assert_int_not_equal(tx_once(), 0);
}

/*
 * A QP with all MRC_QP_EVS EVs: one round of the sprayer takes each EV in
 * use once, in order, across the four 64-bit words of its masks, passing
 * by one ASSUMED_BAD and two DENIED in the upper words; each packet is
 * counted on its EV (QP x MRC_QP_EVS + index).
 */
static void spray_all_256_evs(void **state)
{
	unsigned int i, n = 0, port, want = 0;
	uint32_t key = S_QPN * MRC_QP_EVS + 254;
	struct mrc_ev_stats st;

	(void)state;
	assert_int_equal(reset(), 0);
	assert_int_equal(set_qps(MRC_QP_EVS, 1), 0);
	assert_int_equal(cmd(MRC_DP_EV_BAD, S_QPN, 70, MRC_EV_R_LOSS), 0);
	assert_int_equal(cmd(MRC_DP_EV_DENY, S_QPN, 200, MRC_EV_R_DENY), 0);
	assert_int_equal(cmd(MRC_DP_EV_DENY, S_QPN, 255, MRC_EV_R_DENY), 0);
	assert_int_equal(cmd(MRC_DP_EV_GOOD, S_QPN, MRC_QP_EVS, 0), EINVAL);
	/* 253 packets, within the window (256) and the SQ (128 at once). */
	while (n < MRC_QP_EVS - 3) {
		unsigned int k = MRC_QP_EVS - 3 - n < 128 ? MRC_QP_EVS - 3 - n :
							    128;

		post_empty(k);
		for (i = 0; i < k; i++, n++) {
			while (want == 70 || want == 200 || want == 255)
				want++;
			port = tx_once();
			if (port != EV0 + want)
				fail_msg("packet %u left on EV %d, not EV %u",
					 n, (int)port - EV0, want);
			want++;
		}
	}
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(rx->maps.mrc_ev_stats),
					     &key, &st),
			 0);
	assert_int_equal(st.sent, 1);
	/* The round starts again at the first. */
	post_empty(1);
	assert_int_equal(tx_once(), EV0);
}

/*
 * The ACK the peer sends for psn, with cum and SACK bits for sacked[];
 * flags MRC_AF_ECN_CE when the packet arrived CE-marked.
 */
static void ack_flags(struct pkt *p, uint16_t evport, uint32_t psn,
		      uint32_t cum, const uint32_t *sacked, int n,
		      uint8_t flags)
{
	uint32_t sack[8] = {};
	int i;

	for (i = 0; i < n; i++) {
		uint32_t k = sacked[i] - cum - 1;

		sack[k / 32] |= 1u << (31 - k % 32);
	}
	pkt_init(p);
	pkt_eth(p, MAC_A, MAC_B);
	pkt_ipv4(p, "198.18.2.2", "198.18.1.2", 0x02);
	pkt_udp(p, evport, MRC_UDP_PORT);
	pkt_bth(p, MRC_OP_ACK, S_QPN, psn, 0);
	pkt_aeth(p, MRC_AETH_ACK, 0);
	pkt_aext(p, flags, evport, 0, cum, psn, mrc_echo(0, psn), sack);
	p->udp_csum = 1;
	pkt_finish(p);
}

static void ack(struct pkt *p, uint16_t evport, uint32_t psn, uint32_t cum,
		const uint32_t *sacked, int n)
{
	ack_flags(p, evport, psn, cum, sacked, n, 0);
}

/*
 * QP S_QPN afresh, 4 EVs, PSNs 0..7 sent 200 us apart, EV i % 4 each (the
 * ports in port[]): within 1 ms is reordering across EVs, and 125 us
 * (reorder_ns / 8) within one EV.
 */
static void eight_spaced(unsigned int *port)
{
	unsigned int i;

	assert_int_equal(reset(), 0);
	reorder_ns = 1000000;
	assert_int_equal(set_qps(4, 1), 0); /* EVs 0..3, PSNs 0.. */
	reorder_ns = 1000000000;
	post_empty(8);
	for (i = 0; i < 8; i++) {
		port[i] = tx_once();
		assert_int_equal(port[i], EV0 + i % 4);
		usleep(200);
	}
}

static void loss_on_one_ev(void **state)
{
	unsigned int i, port[8];
	uint32_t sacked[4];
	struct mrc_qp_tx *qt;
	struct pkt a;

	(void)state;
	eight_spaced(port);
	/* PSN 1 (EV 1) arrives, 0 missing: reordering, nothing lost. */
	sacked[0] = 1;
	ack(&a, (uint16_t)port[1], 1, 0, sacked, 1);
	rx_takes(&a);
	assert_int_equal(drain_events(), 0);
	/* PSN 4, sent on EV 0 after PSN 0, arrives: PSN 0 was lost on EV 0,
	 * and only EV 0 is to blame (2 and 3 are missing too, but nothing
	 * sent after them on their EVs got through). */
	sacked[1] = 4;
	ack(&a, (uint16_t)port[4], 4, 0, sacked, 2);
	rx_takes(&a);
	assert_int_equal(drain_events(), 1);
	assert_int_equal(ev[0].type, MRC_EVT_STATE);
	assert_int_equal(ev[0].ev_idx, 0);
	assert_int_equal(ev[0].state, MRC_EV_ASSUMED_BAD);
	assert_int_equal(ev[0].reason, MRC_EV_R_LOSS);
	qt = get_qp_tx();
	assert_int_equal(qt->ev_use.w[0], 0xe);
	assert_int_equal(qt->retx_tail - qt->retx_head, 1);
	assert_int_equal(qt->retx[qt->retx_head % MRC_RETX_Q], 0);
	assert_int_equal(percpu(rx->maps.mrc_tx_stats, MRC_TX_EV_BAD), 1);
	/* The resend leaves by another port than EV 0's (EV i leaves by
	 * port i % 4): the port it was lost on may be dead. EV 0 stays out
	 * of use. */
	i = tx_once();
	assert_true(i >= EV0 && (i - EV0) % 4 != 0);
	for (i = 0; i < 2; i++)
		assert_int_not_equal(tx_once(), EV0);
}

/*
 * The same loss, but PSN 4 left from another CPU than PSN 0: each CPU's
 * frames take that CPU's queues, so PSN 4 may have overtaken PSN 0 on a
 * healthy path. Nothing is blamed; PSN 0 is resent all the same, as one
 * sent more than the reordering span (an eighth of reorder_ns, 125 us
 * here) before a delivered one. From the same CPU, the loss is proven
 * (loss_on_one_ev).
 */
static void loss_from_another_cpu_blames_nothing(void **state)
{
	unsigned int port[8];
	uint32_t sacked[4];
	struct mrc_qp_tx *qt;
	struct pkt a;

	(void)state;
	eight_spaced(port);
	qt = get_qp_tx();
	assert_int_equal(qt->rec[4].cpu, qt->rec[0].cpu);
	qt->rec[4].cpu ^= 1;
	put_qp_tx(qt);
	sacked[0] = 1;
	sacked[1] = 4;
	ack(&a, (uint16_t)port[4], 4, 0, sacked, 2);
	rx_takes(&a);
	assert_int_equal(drain_events(), 0);
	qt = get_qp_tx();
	assert_int_equal(qt->ev_use.w[0], 0xf);
	assert_int_equal(qt->ev_acked_cpu[0], qt->rec[4].cpu);
	assert_int_equal(qt->retx_tail - qt->retx_head, 1);
	assert_int_equal(qt->retx[qt->retx_head % MRC_RETX_Q], 0);
	assert_int_equal(percpu(rx->maps.mrc_tx_stats, MRC_TX_EV_BAD), 0);
}

/*
 * The same loss, while the QP's ACKs echo ECN CE: a full queue drops
 * packets too, so the loss is resent (on another EV) and blames nobody.
 */
static void loss_under_ecn_blames_nothing(void **state)
{
	unsigned int port[8];
	uint32_t sacked[4];
	struct mrc_qp_tx *qt;
	struct pkt a;

	(void)state;
	eight_spaced(port);
	sacked[0] = 1;
	ack_flags(&a, (uint16_t)port[1], 1, 0, sacked, 1, MRC_AF_ECN_CE);
	rx_takes(&a);
	sacked[1] = 4;
	ack(&a, (uint16_t)port[4], 4, 0, sacked, 2);
	rx_takes(&a);
	assert_int_equal(drain_events(), 0);
	qt = get_qp_tx();
	assert_int_equal(qt->ev_use.w[0], 0xf);
	assert_int_equal(qt->retx_tail - qt->retx_head, 1);
	assert_int_equal(qt->retx[qt->retx_head % MRC_RETX_Q], 0);
	assert_true(qt->cong_slots != 0);
	assert_int_equal(percpu(rx->maps.mrc_tx_stats, MRC_TX_EV_BAD), 0);
}

/*
 * A dead path delivers nothing later on its own EV to prove a loss by: the
 * transmit side finds it silent for 2 x reorder_ns while packets sent
 * later on other EVs got through, and skips it from then on.
 */
/*
 * mrcd waits for room in the window (mrc_wake): an ACK that moves the
 * cumulative point wakes it once (MRC_EVT_WAKE) and disarms; one that
 * only SACKs does not. The flag is set and read the way mrcd does it
 * (daemon/pump.c), through the map mmapped as an array of mrc_wake_t:
 * with 4-byte values mrcd's store for QP 2 landed in entry 1, and the
 * lookups a test by key makes could not see that.
 */
static mrc_wake_t *wake_map(void)
{
	static mrc_wake_t *w;

	if (!w) {
		w = mmap(NULL, MRC_WAKE_MAP_BYTES, PROT_READ | PROT_WRITE,
			 MAP_SHARED, bpf_map__fd(rx->maps.mrc_wake), 0);
		assert_true(w != MAP_FAILED);
	}
	return w;
}

static void set_wake(mrc_wake_t v)
{
	__atomic_store_n(&wake_map()[S_QPN], v, __ATOMIC_SEQ_CST);
}

static mrc_wake_t get_wake(void)
{
	uint32_t qpn = S_QPN;
	mrc_wake_t v = 99;

	/* The key and the mmapped index name the same entry. */
	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(rx->maps.mrc_wake),
					     &qpn, &v),
			 0);
	assert_int_equal(v,
			 __atomic_load_n(&wake_map()[S_QPN], __ATOMIC_SEQ_CST));
	return v;
}

static void wake_on_window(void **state)
{
	uint32_t sacked[1] = { 2 };
	unsigned int i, port[4];
	struct pkt a;

	(void)state;
	assert_int_equal(reset(), 0);
	assert_int_equal(set_qps(4, 1), 0);
	post_empty(4);
	for (i = 0; i < 4; i++)
		port[i] = tx_once();
	set_wake(1);
	/* PSN 2 SACKed, the cumulative point still at 0: no wakeup. */
	ack(&a, (uint16_t)port[2], 2, 0, sacked, 1);
	rx_takes(&a);
	assert_int_equal(drain_events(), 0);
	assert_int_equal(get_wake(), 1);
	/* PSNs 0 and 1 in order: the window moved. One wakeup. */
	ack(&a, (uint16_t)port[0], 0, 2, sacked, 0);
	rx_takes(&a);
	assert_int_equal(drain_events(), 1);
	assert_int_equal(ev[0].type, MRC_EVT_WAKE);
	assert_int_equal(ev[0].qpn, S_QPN);
	assert_int_equal(get_wake(), 0);
	/* Disarmed: the next ACK wakes nobody. */
	ack(&a, (uint16_t)port[3], 3, 4, sacked, 0);
	rx_takes(&a);
	assert_int_equal(drain_events(), 0);
}

/*
 * As if a packet sent now on another EV had been delivered (acked_tx_ns),
 * with no SACK to judge holes by: what an ACK timeout needs to name a path.
 */
static void delivered_later(void)
{
	static struct mrc_qp_tx qt;

	qt = *get_qp_tx();
	qt.acked_tx_ns = mono_ns();
	put_qp_tx(&qt);
}

/*
 * Take the round trip out of the silence margin (rtt_hi_ns 0), so that how
 * long this process took between a send and its ACK cannot decide the
 * case; silence_margin_follows_rtt tests that part.
 */
static void no_rtt_margin(void)
{
	static struct mrc_qp_tx qt;

	qt = *get_qp_tx();
	qt.rtt_hi_ns = 0;
	qt.srtt_ns = 0; /* and every packet a strike (health_silent_sent) */
	put_qp_tx(&qt);
}

/*
 * The start of a silence: a QP of 4 EVs with reorder_ns 100 us (silent
 * after 200 us), rtt_hi_ns and a congestion episode for all time if asked,
 * nsend packets 100 us apart (PSN i on EV i % 4), then one ACK from EV 3
 * for PSN last SACKing sacked[n].
 */
static void silence_start(uint32_t rtt_hi_ns, int congested, unsigned int nsend,
			  const uint32_t *sacked, unsigned int n, uint32_t last)
{
	static struct mrc_qp_tx qt;
	unsigned int i;
	struct pkt a;

	assert_int_equal(reset(), 0);
	reorder_ns = 100000;
	assert_int_equal(set_qps(4, 1), 0);
	reorder_ns = 1000000000;
	qt = *get_qp_tx();
	qt.rtt_hi_ns = rtt_hi_ns;
	if (congested) {
		/* Full queues from 130 ms ago to 130 ms ahead. */
		qt.cong_slots = ~0ull;
		qt.cong_slot_hi = (mono_ns() >> MRC_CONG_SLOT_SHIFT) + 31;
	}
	put_qp_tx(&qt);
	post_empty(12);
	for (i = 0; i < nsend; i++) {
		assert_int_equal(tx_once(), EV0 + i % 4);
		usleep(100);
	}
	ack(&a, (uint16_t)(EV0 + 3), last, 0, sacked, n);
	rx_takes(&a);
	drain_events();
}

/*
 * Every EV but keep has answered since it last sent: however long the test
 * took (its packets are not backdated), only keep's silence is left for
 * the silence rule to judge, so a verdict is the rule under test's.
 */
static void only_silent(unsigned int keep)
{
	static struct mrc_qp_tx qt;
	unsigned int e;

	qt = *get_qp_tx();
	for (e = 0; e < MRC_QP_EVS; e++) {
		if (e == keep)
			continue;
		qt.ev_silent_ns[e] = 0;
		qt.ev_silent_n[e] = 0;
	}
	put_qp_tx(&qt);
}

/*
 * EV 0's turn, the first of the next: silent, so passed by (its packets may
 * be held up, not lost): the packet goes on another, and no verdict yet.
 */
static void ev0_passed_by(void)
{
	static struct mrc_qp_tx qt;

	assert_int_not_equal(tx_once(), EV0);
	assert_int_equal(drain_events(), 0);
	qt = *get_qp_tx();
	assert_true(evm_has(&qt.ev_cool_silent, 0));
	assert_true(evm_has(&qt.ev_cool, 0));
	assert_int_equal(qt.ev_state[0], MRC_EV_GOOD);
	assert_int_equal(qt.ev_use.w[0], 0xf);
	assert_int_equal(percpu(rx->maps.mrc_tx_stats, MRC_TX_SILENT_PASSED),
			 1);
}

/*
 * Whole turns over the 4 EVs, each followed by packets sent later
 * delivered on the others, until a turn raises an event; returns how many
 * packets EV 0 carried before. The event must be EV 0's silence, and the
 * packet of that turn goes on another EV.
 */
static unsigned int turns_until_silent(void)
{
	unsigned int turn, k, on0 = 0;
	int n = 0;

	post_empty(32);
	for (turn = 0; turn < 8 && !n; turn++) {
		for (k = 0; k < 4 && !n; k++) {
			unsigned int port = tx_once();

			assert_true(port >= EV0 && port < EV0 + 4);
			n = drain_events();
			if (n)
				assert_int_not_equal(port, EV0);
			else if (port == EV0)
				on0++;
		}
		if (n)
			break;
		usleep(300); /* past the silence margin */
		only_silent(0);
		delivered_later();
	}
	assert_int_equal(n, 1);
	assert_int_equal(ev[0].ev_idx, 0);
	assert_int_equal(ev[0].state, MRC_EV_ASSUMED_BAD);
	assert_int_equal(ev[0].reason, MRC_EV_R_SILENT);
	return on0;
}

/*
 * After ev0_passed_by: health_silence_pass_ns later (the ACK timeout, 1 s
 * here: its cooling dated back, as if a packet sent that much later had
 * been delivered) its turn gives it a packet again. That one silent too,
 * with nothing of EV 0's delivered since, a turn of EV 0's blames it.
 */
static void ev0_found_silent_again(void)
{
	static struct mrc_qp_tx qt;

	qt = *get_qp_tx();
	qt.ev_cool_ns[0] = qt.acked_tx_ns;
	put_qp_tx(&qt);
	assert_true(turns_until_silent() >= 1);
	assert_false(evm_has(&get_qp_tx()->ev_cool_silent, 0));
}

/* EV 0's turn, the first of the next: passed by; then found silent again. */
static void ev0_found_silent(void)
{
	ev0_passed_by();
	ev0_found_silent_again();
}

static void silent_ev(void **state)
{
	static const uint32_t sacked[] = { 1, 2, 3, 5, 6, 7 };
	unsigned int i, port;

	(void)state;
	/* Everything but EV 0's two packets: 7, sent 700 us after 0. */
	silence_start(0, 0, 8, sacked, 6, 7);
	assert_int_equal(get_qp_tx()->ev_use.w[0],
			 0xf); /* nothing proven yet */
	/* The RTT of the one packet timed (PSN 7): the QP's high round trip. */
	assert_true(get_qp_tx()->rtt_hi_ns > 0);
	no_rtt_margin();
	/* The resends of 0 and 4 (on other EVs), then EV 0's turn comes:
	 * silent, so passed by, and the packet goes on another. */
	for (i = 0; i < 3; i++) {
		port = tx_once();
		assert_true(port != EV0 && port >= EV0 && port < EV0 + 4);
	}
	ev0_passed_by();
	/* Passed by for health_silence_pass_ns, then given a packet, silent
	 * again: ASSUMED_BAD, with the evidence in the event. */
	ev0_found_silent_again();
	assert_true(ev[0].lead_ns > ev[0].margin_ns);
	assert_true(ev[0].silent_ns >= ev[0].lead_ns);
	assert_int_equal(get_qp_tx()->ev_use.w[0], 0xe);
	/* Probes answered: GOOD, and its silence forgotten. */
	assert_int_equal(cmd(MRC_DP_EV_GOOD, S_QPN, 0, MRC_EV_R_PROBES), 0);
	assert_int_equal(get_qp_tx()->ev_silent_ns[0], 0);
}

/* The PSN in flight that EV 0 carried last, as its first transmission. */
static uint32_t ev0_newest_psn(void)
{
	const struct mrc_qp_tx *qt = get_qp_tx();
	uint64_t newest = 0;
	uint32_t psn, found = ~0u;

	for (psn = qt->una_psn; psn != qt->next_psn; psn++) {
		const struct mrc_tx_rec *r = &qt->rec[psn % MRC_TX_RING];

		if ((r->flags & MRC_REC_INFLIGHT) && r->ev_idx == 0 &&
		    r->tries == 1 && r->tx_ns > newest) {
			newest = r->tx_ns;
			found = psn;
		}
	}
	assert_int_not_equal(found, ~0u);
	return found;
}

/*
 * A path that holds packets up is not dead (the testbed's routers, their
 * softirq deferred, hold them for milliseconds): EV 0 silent is passed by;
 * health_silence_pass_ns later it carries a packet again, and that one is
 * delivered. Its silence and its passing-by are over, counted, and it is
 * used from then on; nobody is blamed.
 */
static void silent_ev_held_up(void **state)
{
	static const uint32_t sacked[] = { 1, 2, 3, 5, 6, 7 };
	static struct mrc_qp_tx qt;
	unsigned int i, on0 = 0;
	struct pkt a;

	(void)state;
	silence_start(0, 0, 8, sacked, 6, 7);
	no_rtt_margin();
	for (i = 0; i < 3; i++)
		assert_int_not_equal(tx_once(), EV0);
	ev0_passed_by();
	qt = *get_qp_tx();
	qt.ev_cool_ns[0] = qt.acked_tx_ns;
	put_qp_tx(&qt);
	post_empty(16);
	for (i = 0; i < 4; i++)
		on0 += tx_once() == EV0;
	assert_int_equal(on0, 1);
	/* Its answer, by EV 0. */
	ack(&a, (uint16_t)EV0, ev0_newest_psn(), 0, NULL, 0);
	rx_takes(&a);
	assert_int_equal(drain_events(), 0);
	qt = *get_qp_tx();
	assert_false(evm_has(&qt.ev_cool_silent, 0));
	assert_int_equal(qt.ev_silent_ns[0], 0);
	assert_int_equal(percpu(rx->maps.mrc_tx_stats, MRC_TX_SILENT_DELIVERED),
			 1);
	/* Turns on (the others' packets not at issue: their silence
	 * forgotten): EV 0 carries its share, nobody is blamed. */
	only_silent(MRC_QP_EVS);
	for (i = 0, on0 = 0; i < 8; i++)
		on0 += tx_once() == EV0;
	assert_int_equal(on0, 2);
	assert_int_equal(drain_events(), 0);
	assert_int_equal(qt.ev_state[0], MRC_EV_GOOD);
}

/*
 * The same silence, on a QP whose round trips have been long (a deep
 * queue, rtt_hi_ns 10 ms): EV 0's 700 us behind the others is within the
 * margin (2 x reorder_ns + rtt_hi_ns), not a dead path.
 */
static void silence_margin_follows_rtt(void **state)
{
	static const uint32_t sacked[] = { 1, 2, 3, 5, 6, 7 };
	unsigned int i, port;

	(void)state;
	silence_start(10000000, 0, 8, sacked, 6, 7);
	/* The resends and EV 0's turn: it is used, nobody is blamed. */
	for (i = 0; i < 4; i++) {
		port = tx_once();
		assert_true(port >= EV0 && port < EV0 + 4);
	}
	assert_int_equal(drain_events(), 0);
	assert_int_equal(get_qp_tx()->ev_use.w[0], 0xf);
}

/* The QP's loss rate as health_strikes reads it: retx resends of sent. */
static void loss_rate(uint32_t sent, uint32_t retx)
{
	static struct mrc_qp_tx qt;

	qt = *get_qp_tx();
	qt.sent_n = sent;
	qt.sent_retx_n = retx;
	put_qp_tx(&qt);
}

/*
 * One turn of the 4 EVs from PSN psn (EV 0's), then 300 us later, past
 * the silence margin, EVs 1..3's. If answer, they are delivered as far as
 * the silence rule sees it (ev_delivered): their silence ends and PSN
 * psn + 3 is the newest delivered send, which proves EV 0's packets of
 * this turn and before lost. (A SACK would do the same and also resend
 * EV 0's as holes, on other EVs, out of turn.)
 */
static void silent_turn(uint32_t psn, int answer)
{
	static struct mrc_qp_tx qt;
	unsigned int i;

	assert_int_equal(tx_once(), EV0);
	usleep(300);
	for (i = 1; i < 4; i++)
		assert_int_equal(tx_once(), EV0 + i);
	if (!answer)
		return;
	only_silent(0);
	qt = *get_qp_tx();
	qt.acked_tx_ns = qt.rec[(psn + 3) % MRC_TX_RING].tx_ns;
	put_qp_tx(&qt);
}

/*
 * silence_start's QP under a full queue for all time, with no round trip
 * margin, a loss rate of retx resends in sent, and npost WQEs posted:
 * EV 0's first packet lost, the others' delivered.
 */
static void silence_full_queue(uint32_t sent, uint32_t retx, unsigned int npost)
{
	static const uint32_t sacked[] = { 1, 2, 3 };

	silence_start(0, 1, 4, sacked, 3, 3);
	no_rtt_margin();
	loss_rate(sent, retx);
	post_empty(npost);
}

/* A silent_turn from psn, answered, that leaves EV 0 in use with strikes
 * counted. */
static void turn_unblamed(uint32_t psn, unsigned int strikes)
{
	silent_turn(psn, 1);
	assert_int_equal(drain_events(), 0);
	assert_int_equal(get_qp_tx()->ev_silent_n[0], strikes);
}

/*
 * Under a full queue (a congestion episode covering every send time) the
 * silence rule wants more strikes: EV 0 with one or two packets proven
 * lost while later ones got through is not blamed; once a third packet
 * on it is proven lost too, it is.
 */
static void silence_under_congestion_three_strikes(void **state)
{
	unsigned int turn;

	(void)state;
	/* Everything but EV 0's one packet: 3, sent 300 us after 0. No
	 * loss in a window's worth (MRC_SENT_SPAN): a rate taken as 1 in
	 * 4097 at most, 2^-12: two losses in a row by chance are below
	 * 2^-20, so the third packet proven lost makes EV 0 silent. */
	silence_full_queue(MRC_SENT_SPAN, 0, 12);
	/* EV 0's turns: silent by the clock, too few strikes: used. */
	for (turn = 1; turn <= 2; turn++)
		turn_unblamed(4 * turn, turn + 1);
	/* Its next turn: three proven lost, silent still: ASSUMED_BAD. */
	ev0_found_silent();
}

/*
 * Strikes are packets proven lost, not packets sent: a deep queue holds
 * EV 0's newer packets for milliseconds, and had they counted, a single
 * loss and two packets still queued would blame a live path. The same
 * full queue; EV 0's second and third packets go out with nothing sent
 * after them delivered: at its next turn three are unanswered and only
 * one is proven lost, so it is used. Once later packets are delivered,
 * its next turn finds it silent.
 */
static void silence_strikes_in_flight_prove_nothing(void **state)
{
	unsigned int turn;

	(void)state;
	silence_full_queue(MRC_SENT_SPAN, 0, 12);
	for (turn = 1; turn <= 2; turn++)
		silent_turn(4 * turn, 0);
	assert_int_equal(drain_events(), 0);
	assert_int_equal(get_qp_tx()->ev_silent_n[0], 3);
	/* Three unanswered, one proven: used, nobody blamed. */
	silent_turn(12, 1);
	assert_int_equal(drain_events(), 0);
	assert_int_equal(get_qp_tx()->ev_use.w[0], 0xf);
	/* Now PSNs 13..15 are delivered, sent 300 us after 12. */
	ev0_found_silent();
}

/*
 * The same at a loss rate of 1 in 200 (sent_retx_n / sent_n; 2^-7 at
 * most): 3 losses in a row by chance are below 2^-20, so the fourth
 * packet proven lost makes EV 0 silent, not the second.
 */
static void silence_strikes_follow_the_loss_rate(void **state)
{
	unsigned int turn;

	(void)state;
	silence_full_queue(2000, 10, 16);
	for (turn = 1; turn <= 3; turn++)
		turn_unblamed(4 * turn, turn + 1);
	ev0_found_silent();
}

/* --- steering (health.md): congestion moves traffic, never blames ------- */

/*
 * The peer's answer for psn (cumulative cum, no SACK), with flags
 * (MRC_AF_ECN_CE) or as a NACK for reason; runs the receive program.
 */
static void answer(uint16_t evport, uint32_t psn, uint32_t cum, uint8_t flags,
		   uint8_t reason)
{
	static const uint32_t none[8];
	struct pkt p;

	pkt_init(&p);
	pkt_eth(&p, MAC_A, MAC_B);
	pkt_ipv4(&p, "198.18.2.2", "198.18.1.2", 0x02);
	pkt_udp(&p, evport, MRC_UDP_PORT);
	pkt_bth(&p, MRC_OP_ACK, S_QPN, psn, 0);
	pkt_aeth(&p, reason ? MRC_AETH_NAK | reason : MRC_AETH_ACK, 0);
	pkt_aext(&p, (uint8_t)(flags | (reason ? MRC_AF_NACK : 0)), evport,
		 reason, cum, psn, mrc_echo(0, psn), none);
	p.udp_csum = 1;
	pkt_finish(&p);
	rx_takes(&p);
}

/* The QP's smoothed round trip set to srtt_ns: 1 s takes the slow rule
 * (twice it and 1 ms more) out of cases about marks, whatever the load. */
static void set_srtt(uint32_t srtt_ns)
{
	static struct mrc_qp_tx qt;

	qt = *get_qp_tx();
	qt.srtt_ns = srtt_ns;
	put_qp_tx(&qt);
}

/*
 * A full queue takes whatever reaches it until its senders can react, a
 * round trip later, so a burst it drops is one loss: EV 0's packets sent
 * within a smoothed round trip of the last one counted are no strikes.
 * With srtt_ns 1 s, three more of its packets proven lost leave it at one
 * strike and in use (the rule above blames at three). With a round trip
 * shorter than its turns, each counts again, and the third strike blames.
 */
static void silence_strikes_one_a_round_trip(void **state)
{
	unsigned int turn;

	(void)state;
	silence_full_queue(MRC_SENT_SPAN, 0, 16);
	set_srtt(1000000000);
	for (turn = 1; turn <= 3; turn++)
		turn_unblamed(4 * turn, 1);
	set_srtt(100000); /* 100 us: EV 0's turns are 300 us apart */
	for (turn = 4; turn <= 5; turn++)
		turn_unblamed(4 * turn, turn - 2);
	ev0_found_silent();
}

/* PSN psn (in flight, una) dated back past its ACK timeout. */
static void expire(uint32_t psn)
{
	static struct mrc_qp_tx qt;

	qt = *get_qp_tx();
	assert_true(mono_ns() > qt.timeout_ns + 1);
	qt.rec[psn % MRC_TX_RING].tx_ns = mono_ns() - qt.timeout_ns - 1;
	put_qp_tx(&qt);
}

/*
 * An ACK timeout blames its EV only if the EV has delivered nothing sent
 * after it: PSN 0 times out while PSN 4, sent later on the same EV, was
 * delivered (a drop, not a dead path: resent, no verdict); PSN 1 times out
 * with nothing of EV 1 delivered since, and packets sent after it
 * delivered on other EVs: EV 1 is blamed.
 */
static void timeout_blames_only_a_silent_ev(void **state)
{
	static const unsigned int first[] = { 0, 1, 2, 3, 0, 1, 2, 3 };
	struct mrc_qp_tx *qt;
	unsigned int e;

	(void)state;
	assert_int_equal(reset(), 0);
	assert_int_equal(set_qps(4, 1), 0);
	post_empty(8);
	sends_on(first, 8); /* PSN i on EV i % 4 */
	answer(EV0 + 0, 4, 0, 0, 0); /* PSN 4 delivered, 0 not yet */
	assert_int_equal(drain_events(), 0);
	expire(0);
	e = tx_once(); /* the timeout's resend */
	assert_true(e > EV0 && e < EV0 + 4);
	qt = get_qp_tx();
	assert_int_equal(qt->rec[0].tries, 2);
	assert_int_equal(qt->ev_state[0], MRC_EV_GOOD);
	assert_int_equal(qt->ev_use.w[0], 0xf);
	assert_int_equal(drain_events(), 0);
	answer((uint16_t)e, 0, 1, 0, 0); /* the resend is through: una 1 */
	assert_int_equal(get_qp_tx()->una_psn, 1);
	/* A silence margin (2 x reorder_ns + rtt_hi_ns) well within the
	 * timeout, now that no hole is left to judge by it. */
	qt = get_qp_tx();
	qt->reorder_ns = 100000;
	qt->rtt_hi_ns = 0;
	put_qp_tx(qt);
	expire(1);
	only_silent(1);
	delivered_later();
	assert_int_not_equal(tx_once(), 0);
	qt = get_qp_tx();
	assert_int_equal(qt->ev_state[1], MRC_EV_ASSUMED_BAD);
	assert_int_equal(qt->ev_use.w[0], 0xd);
	assert_int_equal(drain_events(), 1);
	assert_int_equal(ev[0].ev_idx, 1);
	assert_int_equal(ev[0].reason, MRC_EV_R_TIMEOUT);
	assert_int_equal(percpu(rx->maps.mrc_tx_stats, MRC_TX_EV_BAD), 1);
}

/* PSN psn (in flight) dated back by ns. */
static void backdate(uint32_t psn, uint64_t ns)
{
	static struct mrc_qp_tx qt;

	qt = *get_qp_tx();
	qt.rec[psn % MRC_TX_RING].tx_ns -= ns;
	put_qp_tx(&qt);
}

/*
 * QP S_QPN afresh, 4 EVs, reorder_ns 100 us, an ACK timeout of 20 ms;
 * npost WQEs posted and PSNs 0..3 sent on EVs 0..3.
 */
static void four_sent(unsigned int npost)
{
	static const unsigned int first[] = { 0, 1, 2, 3 };
	static struct mrc_qp_tx qt;

	assert_int_equal(reset(), 0);
	reorder_ns = 100000;
	assert_int_equal(set_qps(4, 1), 0);
	reorder_ns = 1000000000;
	post_empty(npost);
	sends_on(first, 4);
	qt = *get_qp_tx();
	qt.timeout_ns = 20000000;
	put_qp_tx(&qt);
}

/*
 * Nothing new to send, and una's answer overdue (health_pto: here an
 * eighth of a 20 ms ACK timeout, 2.5 ms): resent early, on another EV,
 * as lost, with no verdict and no retry spent; twice at most, then only
 * its timeout resends it.
 */
static void overdue_una_resent_early(void **state)
{
	static struct mrc_qp_tx qt;
	unsigned int e;

	(void)state;
	four_sent(4);
	assert_int_equal(tx_once(), 0); /* not overdue yet */
	backdate(0, 3000000);
	e = tx_once();
	assert_true(e > EV0 && e < EV0 + 4);
	qt = *get_qp_tx();
	assert_int_equal(qt.rec[0].tries, 2);
	assert_int_equal(qt.rec[0].timeouts, 0);
	assert_int_equal(qt.ev_use.w[0], 0xf);
	assert_int_equal(percpu(rx->maps.mrc_tx_stats, MRC_TX_OVERDUE), 1);
	assert_int_equal(percpu(rx->maps.mrc_tx_stats, MRC_TX_TIMEOUTS), 0);
	assert_int_equal(tx_once(), 0); /* overdue again only 2.5 ms on */
	backdate(0, 3000000);
	assert_int_not_equal(tx_once(), 0);
	assert_int_equal(get_qp_tx()->rec[0].tries, 3);
	backdate(0, 3000000);
	assert_int_equal(tx_once(), 0); /* twice is enough */
	assert_int_equal(percpu(rx->maps.mrc_tx_stats, MRC_TX_OVERDUE), 2);
	assert_int_equal(percpu(rx->maps.mrc_tx_stats, MRC_TX_EV_BAD), 0);
	assert_int_equal(drain_events(), 0);
	/* Its timeout, judged as ever: the last try's EV delivered nothing
	 * since, others did, and no queue was full. */
	e = get_qp_tx()->rec[0].ev_idx;
	backdate(0, 20000000);
	only_silent(e);
	delivered_later();
	assert_int_not_equal(tx_once(), 0);
	qt = *get_qp_tx();
	assert_int_equal(qt.rec[0].timeouts, 1);
	assert_int_equal(qt.ev_state[e], MRC_EV_ASSUMED_BAD);
	assert_int_equal(percpu(rx->maps.mrc_tx_stats, MRC_TX_TIMEOUTS), 1);
	assert_int_equal(drain_events(), 1);
	assert_int_equal(ev[0].reason, MRC_EV_R_TIMEOUT);
}

/*
 * A whole window times out with nothing delivered at all (the peer gone, a
 * full queue that took every packet, or this sender held off the CPU past
 * its timeouts): the loss names no path. Resent, a retry spent, no EV
 * blamed.
 */
static void timeout_with_nothing_delivered_blames_nothing(void **state)
{
	unsigned int e;

	(void)state;
	four_sent(4);
	backdate(0, 20000000);
	e = tx_once();
	assert_true(e > EV0 && e < EV0 + 4);
	assert_int_equal(get_qp_tx()->rec[0].timeouts, 1);
	assert_int_equal(get_qp_tx()->ev_use.w[0], 0xf);
	assert_int_equal(percpu(rx->maps.mrc_tx_stats, MRC_TX_TIMEOUTS), 1);
	assert_int_equal(percpu(rx->maps.mrc_tx_stats, MRC_TX_EV_BAD), 0);
	assert_int_equal(drain_events(), 0);
}

/* The same while new data may still go: the overdue una goes first. */
static void overdue_una_before_new_data(void **state)
{
	static struct mrc_qp_tx qt;

	(void)state;
	four_sent(8);
	backdate(0, 3000000);
	assert_int_not_equal(tx_once(), EV0);
	qt = *get_qp_tx();
	assert_int_equal(qt.rec[0].tries, 2);
	assert_int_equal(qt.next_psn, 4); /* nothing new yet */
	assert_int_equal(percpu(rx->maps.mrc_tx_stats, MRC_TX_OVERDUE), 1);
	assert_int_not_equal(tx_once(), 0); /* then PSN 4 */
	assert_int_equal(get_qp_tx()->next_psn, 5);
}

/*
 * PSN 1 (EV 1, nothing of EV 1 delivered since) times out 20 ms after it
 * left. The QP remembers full queues in two episodes (cong_slots): one
 * now, and, if old, one around when PSN 1 left. Returns EV 1's state
 * after the timeout's resend.
 */
static uint8_t timeout_in_episodes(int old)
{
	static const unsigned int first[] = { 0, 1, 2, 3, 0, 1, 2, 3 };
	static struct mrc_qp_tx qt;
	uint64_t t1;

	assert_int_equal(reset(), 0);
	reorder_ns = 100000;
	assert_int_equal(set_qps(4, 1), 0);
	reorder_ns = 1000000000;
	post_empty(8);
	sends_on(first, 8);
	answer(EV0 + 0, 0, 1, 0, 0); /* una 1 */
	qt = *get_qp_tx();
	qt.timeout_ns = 20000000;
	qt.rtt_hi_ns = 0; /* a span of 2 x reorder_ns: 200 us */
	qt.cong_slot_hi = mono_ns() >> MRC_CONG_SLOT_SHIFT;
	qt.cong_slots = 1;
	/* The slots a span around when PSN 1 will have left (expire). */
	t1 = (mono_ns() - qt.timeout_ns) >> MRC_CONG_SLOT_SHIFT;
	assert_true(qt.cong_slot_hi - t1 >= 3);
	if (old)
		qt.cong_slots |= 7ull << (qt.cong_slot_hi - t1 - 1);
	put_qp_tx(&qt);
	expire(1);
	assert_int_not_equal(tx_once(), 0);
	assert_int_equal(get_qp_tx()->rec[1].tries, 2);
	return get_qp_tx()->ev_state[1];
}

/* EV e's ev_stats: lost, and of them *queue sent while a queue was full. */
static uint64_t ev_lost(uint32_t e, uint64_t *queue)
{
	struct mrc_ev_stats st;
	uint32_t key = S_QPN * MRC_QP_EVS + e;

	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(rx->maps.mrc_ev_stats),
					     &key, &st),
			 0);
	*queue = st.lost_queue;
	return st.lost;
}

/*
 * A timeout is judged long after its packet left, when newer full queues
 * have come and gone: the queue it met is remembered by its send time,
 * not replaced by the newest episode.
 */
static void timeout_in_an_older_episode_blames_nothing(void **state)
{
	uint64_t queue;

	(void)state;
	assert_int_equal(timeout_in_episodes(1), MRC_EV_GOOD);
	assert_int_equal(drain_events(), 0);
	/* Lost on EV 1, to a full queue: not held against it as lossy. */
	assert_int_equal(ev_lost(1, &queue), 1);
	assert_int_equal(queue, 1);
	assert_int_equal(percpu(rx->maps.mrc_tx_stats, MRC_TX_EV_BAD), 0);
	assert_int_equal(percpu(rx->maps.mrc_tx_stats, MRC_TX_TIMEOUTS), 1);
	/* Only the newest episode: PSN 1 met no full queue we know of. */
	assert_int_equal(timeout_in_episodes(0), MRC_EV_ASSUMED_BAD);
	assert_int_equal(drain_events(), 1);
	assert_int_equal(ev_lost(1, &queue), 1);
	assert_int_equal(queue, 0);
	assert_int_equal(ev[0].reason, MRC_EV_R_TIMEOUT);
}

/*
 * A CE-marked ACK for a packet sent on EV 1: EV 1 is passed by (still
 * GOOD, in use, nothing told to mrcd); the time passing does not bring it
 * back, news does: once a packet sent after its time is delivered, it is
 * back at its next turn.
 */
static void ce_mark_steers_away_then_back(void **state)
{
	static const unsigned int first[] = { 0, 1, 2, 3 },
				  away[] = { 0, 2, 3, 0, 2, 3 },
				  still[] = { 0, 2, 3 },
				  back[] = { 0, 1, 2, 3 };
	struct mrc_qp_tx *qt;
	struct mrc_qp_view v;
	uint64_t until, t0;

	(void)state;
	assert_int_equal(reset(), 0);
	assert_int_equal(set_qps(4, 1), 0);
	post_empty(40);
	sends_on(first, 4); /* PSNs 0..3 */
	set_srtt(1000000000);
	answer(EV0 + 1, 1, 2, MRC_AF_ECN_CE, 0);
	qt = get_qp_tx();
	assert_int_equal(qt->ev_cool.w[0], 1ull << 1);
	assert_int_equal(qt->ev_state[1], MRC_EV_GOOD);
	assert_int_equal(qt->ev_use.w[0], 0xf);
	until = qt->ev_cool_ns[1];
	assert_true(until > qt->rec[1].tx_ns);
	assert_int_equal(drain_events(), 0);
	/* mrcd sees it cooled, with the QP's round trips. */
	assert_int_equal(
		read_view(S_QPN, sizeof(struct mrc_dp_cmd) + sizeof(v), &v), 0);
	assert_int_equal(v.ev_cool.w[0], 1ull << 1);
	assert_int_equal(v.srtt_ns, qt->srtt_ns);
	assert_int_equal(v.rtt_hi_ns, qt->rtt_hi_ns);
	sends_on(away, 6); /* PSNs 4..9 */
	/* Past its time, with nothing newer delivered: still passed by. */
	t0 = mono_ns();
	while (mono_ns() <= until && mono_ns() - t0 < 1000000000ull)
		usleep(100);
	assert_true(mono_ns() > until);
	sends_on(still, 3); /* PSNs 10..12 */
	assert_int_equal(get_qp_tx()->ev_cool.w[0], 1ull << 1);
	/* PSN 10 (sent after its time) delivered: back in turn. */
	answer(EV0 + 0, 10, 11, 0, 0);
	/* Its bit is cleared at its next turn, but it is warm already. */
	assert_int_equal(get_qp_tx()->ev_cool.w[0], 1ull << 1);
	assert_int_equal(
		read_view(S_QPN, sizeof(struct mrc_dp_cmd) + sizeof(v), &v), 0);
	assert_int_equal(v.ev_cool.w[0], 0);
	sends_on(back, 4);
	assert_int_equal(get_qp_tx()->ev_cool.w[0], 0);
	assert_int_equal(drain_events(), 0);
	assert_int_equal(percpu(rx->maps.mrc_tx_stats, MRC_TX_EV_BAD), 0);
}

/*
 * A TRIMMED NACK for a packet sent on EV 2: resent at once on another EV,
 * EV 2 passed by for a while, nobody blamed.
 */
static void trim_steers_and_resends(void **state)
{
	static const unsigned int first[] = { 0, 1, 2, 3 },
				  after[] = { 1, 3, 0, 1, 3 };
	struct mrc_qp_tx *qt;
	unsigned int port;

	(void)state;
	assert_int_equal(reset(), 0);
	assert_int_equal(set_qps(4, 1), 0);
	post_empty(20);
	sends_on(first, 4);
	set_srtt(1000000000);
	answer(EV0 + 2, 2, 0, 0, MRC_NACK_TRIMMED);
	qt = get_qp_tx();
	assert_int_equal(qt->ev_cool.w[0], 1ull << 2);
	assert_int_equal(qt->ev_use.w[0], 0xf);
	assert_int_equal(qt->retx_tail - qt->retx_head, 1);
	assert_int_equal(qt->retx[qt->retx_head % MRC_RETX_Q], 2);
	port = tx_once(); /* the resend */
	assert_int_equal(port, EV0 + 0);
	qt = get_qp_tx();
	assert_int_equal(qt->retx_tail, qt->retx_head);
	assert_int_equal(qt->rec[2].ev_idx, 0);
	assert_int_equal(qt->rec[2].tries, 2);
	sends_on(after, 5);
	assert_int_equal(drain_events(), 0);
	assert_int_equal(percpu(rx->maps.mrc_tx_stats, MRC_TX_EV_BAD), 0);
}

/*
 * An answer far slower than the QP's round trip (more than twice srtt_ns
 * and 1 ms: here 2 ms against 10 us) steers traffic off its EV for as long
 * as that round trip; one within it does not.
 */
static void slow_answer_steers(void **state)
{
	static const unsigned int first[] = { 0, 1, 2, 3 },
				  away[] = { 0, 1, 2, 0 };
	struct mrc_qp_tx *qt;
	uint64_t t0;

	(void)state;
	assert_int_equal(reset(), 0);
	assert_int_equal(set_qps(4, 1), 0);
	post_empty(20);
	sends_on(first, 4);
	set_srtt(10000);
	t0 = mono_ns();
	usleep(2000);
	answer(EV0 + 3, 3, 4, 0, 0);
	qt = get_qp_tx();
	assert_int_equal(qt->ev_cool.w[0], 1ull << 3);
	/* until: the clock at the answer, plus its round trip (>= 2 ms) */
	assert_true(qt->ev_cool_ns[3] >= t0 + 2 * 2000000ull);
	assert_int_equal(qt->ev_state[3], MRC_EV_GOOD);
	sends_on(away, 4); /* PSNs 4..7 */
	/* A round trip within twice srtt_ns and 1 ms: nothing more. */
	set_srtt(1000000000);
	answer(EV0 + 0, 4, 5, 0, 0);
	assert_int_equal(get_qp_tx()->ev_cool.w[0], 1ull << 3);
	assert_int_equal(drain_events(), 0);
}

/*
 * Incast marks every path: the sprayer passes cooled EVs by only while a
 * quarter of those in use (and ev_min_active) are left; with fewer, it
 * sprays over all of them as before.
 */
/* A QP of 4 EVs (ev_min_active min) whose EVs 1, 2 and 3 answered CE. */
static void three_marked(uint32_t min, unsigned int npost)
{
	static const unsigned int first[] = { 0, 1, 2, 3 };
	unsigned int i;

	assert_int_equal(reset(), 0);
	assert_int_equal(set_qps(4, min), 0);
	post_empty(npost);
	sends_on(first, 4);
	set_srtt(1000000000);
	for (i = 1; i < 4; i++)
		answer((uint16_t)(EV0 + i), i, 0, MRC_AF_ECN_CE, 0);
	assert_int_equal(get_qp_tx()->ev_cool.w[0], 0xe);
}

static void steering_keeps_enough(void **state)
{
	static const unsigned int first[] = { 0, 1, 2, 3 },
				  one[] = { 0, 0, 0, 0 },
				  all[] = { 1, 2, 3, 0, 1, 2, 3, 0 };

	(void)state;
	/* EVs 1, 2 and 3 marked: a quarter (1) left, EV 0 carries all. */
	three_marked(1, 40);
	sends_on(one, 4); /* PSNs 4..7 */
	/* EV 0 marked too: none left, so none passed by. */
	answer(EV0 + 0, 4, 0, MRC_AF_ECN_CE, 0);
	assert_int_equal(get_qp_tx()->ev_cool.w[0], 0xf);
	sends_on(all, 8);
	/* ev_min_active 2: EV 0 alone is too few; all four carry. */
	three_marked(2, 20);
	sends_on(first, 4);
	assert_int_equal(drain_events(), 0);
}

static int count_event(void *ctx, void *d, size_t len)
{
	const struct mrc_ev_event *e = d;
	unsigned int *n = ctx;

	/* In order: BAD and GOOD alternate, whatever was dropped between
	 * is counted, not reordered. */
	if (len != sizeof(*e) || e->type != MRC_EVT_STATE)
		return -EINVAL;
	n[0]++;
	if (n[1] && e->state == n[1] && e->old_state == n[1])
		n[2]++; /* a record that repeats a state: out of order */
	n[1] = e->state;
	return 0;
}

/*
 * More events than the ring holds, none read meanwhile: those that fit
 * arrive in order, and every one that did not is counted. Received plus
 * dropped is exactly what was raised.
 */
static void event_ring_overflow(void **state)
{
	const unsigned int total = 8000; /* the ring holds about 5400 */
	unsigned int i, got[3] = {};
	struct ring_buffer *rb;
	uint64_t dropped;

	(void)state;
	assert_int_equal(reset(), 0);
	for (i = 0; i < total; i++)
		assert_int_equal(cmd(i % 2 ? MRC_DP_EV_GOOD : MRC_DP_EV_BAD,
				     S_QPN, 0, MRC_EV_R_PORT_DOWN),
				 0);
	dropped = percpu(rx->maps.mrc_tx_stats, MRC_TX_EV_EVENTS_DROPPED);
	rb = ring_buffer__new(bpf_map__fd(rx->maps.mrc_ev_events), count_event,
			      got, NULL);
	assert_non_null(rb);
	assert_true(ring_buffer__consume(rb) >= 0);
	ring_buffer__free(rb);
	assert_true(dropped > 0);
	assert_int_equal(got[0] + dropped, total);
	/* All of them state changes: mrcd's count of those says the same. */
	assert_int_equal(percpu(rx->maps.mrc_tx_stats, MRC_TX_EV_STATE_DROPPED),
			 dropped);
	assert_int_equal(got[2], 0);
}

static int setup(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, mm, .map_flags = BPF_F_MMAPABLE);
	struct mrc_port port = { .ifindex = 1,
				 .smac = { 2, 0, 0, 0, 0, 0xa },
				 .dmac = { 2, 0, 0, 0, 0, 0xb } };
	uint32_t p, key = S_QPN;
	int sq_fd;

	rx = mrc_xdp_rx__open_and_load();
	if (!rx)
		return -1;
	tx = mrc_xdp_tx__open();
	ctl = mrc_xdp_ctl__open();
	if (!tx || !ctl || share_maps(tx->obj) || share_maps(ctl->obj) ||
	    mrc_xdp_tx__load(tx) || mrc_xdp_ctl__load(ctl))
		return -1;
	tx_call_set(tx->bss->tx_call, tx->bss->tx_list, S_QPN, 0);
	inet_pton(AF_INET, "198.18.1.2", port.saddr);
	for (p = 0; p < 4; p++) {
		/* lo, with no egress program */
		struct bpf_devmap_val lo = { .ifindex = 1 };

		if (bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_port), &p,
					&port, BPF_ANY) ||
		    bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_tx_port), &p,
					&lo, BPF_ANY))
			return -1;
	}
	sq_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "mrc_sq", 4,
			       sizeof(struct mrc_sq), 1, &mm);
	if (sq_fd < 0 || bpf_map_update_elem(bpf_map__fd(rx->maps.mrc_sq), &key,
					     &sq_fd, BPF_ANY))
		return -1;
	sq = mmap(NULL, sizeof(*sq), PROT_READ | PROT_WRITE, MAP_SHARED, sq_fd,
		  0);
	close(sq_fd);
	events = ring_buffer__new(bpf_map__fd(rx->maps.mrc_ev_events), on_event,
				  NULL, NULL);
	return sq == MAP_FAILED || !events ? -1 : 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(probe_answered),
		cmocka_unit_test(probe_answer_cut_to_length),
		cmocka_unit_test(probe_refused),
		cmocka_unit_test(probe_answer_is_an_event),
		cmocka_unit_test(probe_answer_bad_ev_counted),
		cmocka_unit_test(emit_frames),
		cmocka_unit_test(device_probe),
		cmocka_unit_test(control_states),
		cmocka_unit_test(qp_view_and_state),
		cmocka_unit_test(spray_skips_unused),
		cmocka_unit_test(lanes_spray_their_own_evs),
		cmocka_unit_test(spray_all_256_evs),
		cmocka_unit_test(loss_on_one_ev),
		cmocka_unit_test(loss_from_another_cpu_blames_nothing),
		cmocka_unit_test(wake_on_window),
		cmocka_unit_test(silent_ev),
		cmocka_unit_test(silent_ev_held_up),
		cmocka_unit_test(loss_under_ecn_blames_nothing),
		cmocka_unit_test(silence_margin_follows_rtt),
		cmocka_unit_test(silence_under_congestion_three_strikes),
		cmocka_unit_test(silence_strikes_in_flight_prove_nothing),
		cmocka_unit_test(timeout_with_nothing_delivered_blames_nothing),
		cmocka_unit_test(silence_strikes_follow_the_loss_rate),
		cmocka_unit_test(silence_strikes_one_a_round_trip),
		cmocka_unit_test(timeout_blames_only_a_silent_ev),
		cmocka_unit_test(timeout_in_an_older_episode_blames_nothing),
		cmocka_unit_test(overdue_una_resent_early),
		cmocka_unit_test(overdue_una_before_new_data),
		cmocka_unit_test(ce_mark_steers_away_then_back),
		cmocka_unit_test(trim_steers_and_resends),
		cmocka_unit_test(slow_answer_steers),
		cmocka_unit_test(steering_keeps_enough),
		cmocka_unit_test(event_ring_overflow),
	};

	if (geteuid()) {
		printf("SKIP: test_health needs root (BPF_PROG_TEST_RUN)\n");
		return 77;
	}
	if (setup()) {
		fprintf(stderr, "setup: %s\n", strerror(errno));
		return 1;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
