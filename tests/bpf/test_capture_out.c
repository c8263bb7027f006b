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
#include "mrc/abi.h"
#include "mrc_xdp_rx.skel.h"
#include "mrc_xdp_tx.skel.h"
#include "mrc_capture.skel.h"

static struct mrc_xdp_rx *rx;
static struct mrc_xdp_tx *tx;
static struct mrc_capture *cap;

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
	return cap ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(egress_entry),
		cmocka_unit_test(no_test_run),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
