// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl capture's egress program against the device's real maps: the
 * kernel takes mrc_cap_out into an entry of mrc_tx_port (a devmap whose
 * programs must match mrc_xdp_tx, which redirects through it: program
 * type, frags flag), refuses a plain XDP program there, and an entry
 * written the way mrcd writes it (bpf_prog.fd 0) has no program again.
 *
 * That the program then runs on what mrc_xdp_tx sends cannot be shown
 * here: the kernel refuses BPF_PROG_TEST_RUN of a devmap program
 * (EINVAL), and a redirect through the devmap needs a device that takes
 * XDP frames, so tests/system/085-capture.sh shows it on a testbed.
 *
 * The turnaround hook can be run here: mrc_xdp_rx tail-calls whatever
 * mrc_turn_hook holds with each frame it turns around, and
 * BPF_PROG_TEST_RUN runs mrc_xdp_rx (on lo, ifindex 1).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "fixture.h"
#include "pkt.h"
#include "mrc/abi.h"
#include "mrc/capture.h"
#include "mrc_xdp_rx.skel.h"
#include "mrc_xdp_tx.skel.h"
#include "mrc_capture.skel.h"

static struct mrc_xdp_rx *rx;
static struct mrc_xdp_tx *tx;
static struct mrc_capture *cap; /* of ifindex 0: no port's */
static struct mrc_capture *cap_lo; /* of lo, where BPF_PROG_TEST_RUN runs */

static uint32_t id_of(int fd)
{
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info);

	return bpf_obj_get_info_by_fd(fd, &info, &len) ? 0 : info.id;
}

static int setup(void **state)
{
	(void)state;
	rx = mrc_xdp_rx__open_and_load();
	tx = mrc_xdp_tx__open();
	if (!rx || !tx || fixture_share_maps(tx->obj, rx->obj) ||
	    mrc_xdp_tx__load(tx))
		return -1;
	cap = mrc_capture__open_and_load();
	cap_lo = mrc_capture__open();
	if (!cap || !cap_lo)
		return -1;
	cap_lo->rodata->cap_ifindex = 1;
	cap_lo->rodata->cap_classes = MRC_CAP_PROBE;
	return mrc_capture__load(cap_lo);
}

static int teardown(void **state)
{
	(void)state;
	mrc_capture__destroy(cap_lo);
	mrc_capture__destroy(cap);
	mrc_xdp_tx__destroy(tx);
	mrc_xdp_rx__destroy(rx);
	return 0;
}

static void egress_entry(void **state)
{
	int map = bpf_map__fd(rx->maps.mrc_tx_port);
	int out = bpf_program__fd(cap->progs.mrc_cap_out);
	struct bpf_devmap_val v = { .ifindex = 1 }, got;
	uint32_t key = 2;

	(void)state;
	assert_int_equal(bpf_map__value_size(rx->maps.mrc_tx_port),
			 sizeof(struct bpf_devmap_val));
	/* mrcd's entry: the port, no program. */
	assert_int_equal(bpf_map_update_elem(map, &key, &v, BPF_ANY), 0);
	memset(&got, 0xff, sizeof(got));
	assert_int_equal(bpf_map_lookup_elem(map, &key, &got), 0);
	assert_int_equal(got.ifindex, 1);
	assert_int_equal(got.bpf_prog.id, 0);
	/* A capture's: the kernel takes the devmap program... */
	v.bpf_prog.fd = out;
	assert_int_equal(bpf_map_update_elem(map, &key, &v, BPF_EXIST), 0);
	assert_int_equal(bpf_map_lookup_elem(map, &key, &got), 0);
	assert_int_equal(got.ifindex, 1);
	assert_int_equal(got.bpf_prog.id, id_of(out));
	assert_int_not_equal(got.bpf_prog.id, 0);
	/* ...but not a program of another attach type (mrc_cap_xdp). */
	v.bpf_prog.fd = bpf_program__fd(cap->progs.mrc_cap_xdp);
	assert_int_equal(bpf_map_update_elem(map, &key, &v, BPF_EXIST),
			 -EINVAL);
	assert_int_equal(bpf_map_lookup_elem(map, &key, &got), 0);
	assert_int_equal(got.bpf_prog.id, id_of(out)); /* unchanged */
	/* Back the way mrcd and mrcctl write it: no program. */
	v.bpf_prog.fd = 0;
	assert_int_equal(bpf_map_update_elem(map, &key, &v, BPF_EXIST), 0);
	assert_int_equal(bpf_map_lookup_elem(map, &key, &got), 0);
	assert_int_equal(got.bpf_prog.id, 0);
}

/* Why this file cannot run the program itself (the header comment). */
static void no_test_run(void **state)
{
	LIBBPF_OPTS(bpf_test_run_opts, run);
	uint8_t frame[64] = { 0 };

	(void)state;
	run.data_in = frame;
	run.data_size_in = sizeof(frame);
	assert_int_equal(bpf_prog_test_run_opts(
				 bpf_program__fd(cap->progs.mrc_cap_out), &run),
			 -EINVAL);
	/* The receive side's program runs (its tail call finds nothing). */
	assert_int_equal(bpf_prog_test_run_opts(
				 bpf_program__fd(cap->progs.mrc_cap_xdp), &run),
			 0);
	assert_int_equal(run.retval, XDP_PASS);
}

/* A device probe (no QP needed), which mrc_xdp_rx answers with XDP_TX. */
static void device_probe(struct pkt *p)
{
	static const uint8_t a[6] = { 2, 0, 0, 0, 0, 1 },
			     b[6] = { 2, 0, 0, 0, 0, 2 };

	pkt_init(p);
	pkt_eth(p, b, a);
	pkt_ipv4(p, "198.18.1.2", "198.18.2.2", 0);
	pkt_udp(p, 50001, MRC_UDP_PORT);
	pkt_bth(p, MRC_OP_PROBE, MRC_PROBE_QPN, 0, 0);
	pkt_pext(p, 50001, 1, 7, 0x123456789ull, 0);
	p->udp_csum = 1;
	pkt_finish(p);
}

/* mrc_xdp_rx on p: its verdict, the frame it leaves in out. */
static int rx_run(const struct pkt *p, uint8_t *out, uint32_t *out_len)
{
	LIBBPF_OPTS(bpf_test_run_opts, run, .data_in = p->data,
		    .data_size_in = (uint32_t)p->len, .data_out = out,
		    .data_size_out = *out_len);

	assert_int_equal(bpf_prog_test_run_opts(
				 bpf_program__fd(rx->progs.mrc_xdp_rx), &run),
			 0);
	*out_len = run.data_size_out;
	return (int)run.retval;
}

static uint64_t cap_stat(const struct mrc_capture *c, uint32_t key)
{
	return fixture_percpu_sum(bpf_map__fd(c->maps.mrc_cap_stats), key);
}

/*
 * The turnaround hook: empty, the probe's answer goes back (XDP_TX);
 * holding the capture of lo, the same answer byte for byte, also taken
 * (seen, kept by the filter; the ring has no reader here, so its output
 * fails and is counted); holding a capture of another port, the same
 * answer, counted as another port's and not taken. The kernel refuses a
 * program of another type in the hook (it must return XDP_TX for rx).
 */
static void turn_hook(void **state)
{
	int hook = bpf_map__fd(rx->maps.mrc_turn_hook);
	int lo = bpf_program__fd(cap_lo->progs.mrc_cap_turn);
	int other = bpf_program__fd(cap->progs.mrc_cap_turn);
	uint8_t plain[256], hooked[256];
	uint32_t key = 0, id, plain_len = sizeof(plain), len;
	struct pkt p;

	(void)state;
	device_probe(&p);
	assert_int_equal(rx_run(&p, plain, &plain_len), XDP_TX);
	assert_int_equal(plain[14 + 20 + 8], MRC_OP_PROBE_ANSWER);

	assert_int_equal(bpf_map_update_elem(hook, &key, &lo, BPF_ANY), 0);
	assert_int_equal(bpf_map_lookup_elem(hook, &key, &id), 0);
	assert_int_equal(id, id_of(lo));
	len = sizeof(hooked);
	assert_int_equal(rx_run(&p, hooked, &len), XDP_TX);
	assert_int_equal(len, plain_len);
	/*
	 * The same answer up to the UDP checksum and in its BTH (its
	 * service time, and so its checksum, differ from run to run).
	 */
	assert_memory_equal(hooked, plain, 14 + 20 + 6);
	assert_memory_equal(hooked + 14 + 20 + 8, plain + 14 + 20 + 8,
			    sizeof(struct mrc_bth));
	assert_int_equal(cap_stat(cap_lo, MRC_CAP_TURN_SEEN), 1);
	assert_int_equal(cap_stat(cap_lo, MRC_CAP_TURN_MATCHED), 1);
	assert_int_equal(cap_stat(cap_lo, MRC_CAP_TURN_OUTPUT_FAILED), 1);
	assert_int_equal(cap_stat(cap_lo, MRC_CAP_TURN_OTHER_PORT), 0);

	assert_int_equal(bpf_map_update_elem(hook, &key, &other, BPF_ANY), 0);
	len = sizeof(hooked);
	assert_int_equal(rx_run(&p, hooked, &len), XDP_TX);
	assert_int_equal(len, plain_len);
	assert_int_equal(cap_stat(cap, MRC_CAP_TURN_OTHER_PORT), 1);
	assert_int_equal(cap_stat(cap, MRC_CAP_TURN_SEEN), 0);
	assert_int_equal(cap_stat(cap_lo, MRC_CAP_TURN_SEEN), 1);

	/* Not a devmap program, and never a second program type. */
	other = bpf_program__fd(cap->progs.mrc_cap_out);
	assert_int_not_equal(bpf_map_update_elem(hook, &key, &other, BPF_ANY),
			     0);
	assert_int_equal(bpf_map_delete_elem(hook, &key), 0);
	len = sizeof(hooked);
	assert_int_equal(rx_run(&p, hooked, &len), XDP_TX);
	assert_int_equal(cap_stat(cap_lo, MRC_CAP_TURN_SEEN), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(egress_entry),
		cmocka_unit_test(no_test_run),
		cmocka_unit_test(turn_hook),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
