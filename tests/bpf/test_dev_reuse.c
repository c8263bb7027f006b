// SPDX-License-Identifier: GPL-2.0
/*
 * Fixture tests of a takeover's programs (daemon/dev.c, dev_open_pinned):
 * a device pinned by an mrcd of this build is taken over with its running
 * programs (the same program ids, nothing loaded), and the transmit
 * program's .bss mrcd writes is the running one's; a device of another
 * build identity (MRCD_TEST_BUILD_ID), a pin that is not the program
 * recorded, a record of another layout or a missing .bss pin: the
 * programs are loaded afresh, over the same maps; the takeover's sweep
 * of leftovers (dev_has_all) finds what dev_has finds; the pump's watch
 * (dev_pump_watch) is reused on the same terms. Pins go to a scratch
 * directory of the host's bpffs; nothing is attached. The time a reusing
 * takeover takes is printed, not asserted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dev.h"
#include "pin.h"
#include "mrc/abi.h"
#include "mrc_xdp_rx.skel.h"
#include "mrc_xdp_tx.skel.h"
#include "mrc_tc_tx.skel.h"

static char dir[64];

static uint32_t prog_id(int fd)
{
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info);

	assert_true(fd >= 0);
	assert_int_equal(bpf_obj_get_info_by_fd(fd, &info, &len), 0);
	return info.id;
}

/* The tc program loaded on d's maps, as dev_lowlat loads it. */
static struct mrc_tc_tx *tc_load(struct dev *d)
{
	struct mrc_tc_tx *tc = mrc_tc_tx__open();
	struct bpf_map *m;

	assert_non_null(tc);
	bpf_object__for_each_map(m, tc->obj)
	{
		if (strchr(bpf_map__name(m), '.'))
			continue;
		assert_int_equal(
			bpf_map__reuse_fd(
				m, bpf_map__fd(bpf_object__find_map_by_name(
					   d->rx->obj, bpf_map__name(m)))),
			0);
	}
	assert_int_equal(mrc_tc_tx__load(tc), 0);
	return tc;
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

struct ids {
	uint32_t prog[DEV_NPROGS];
};

/* A takeover of the device in dir: d's program ids, tc's included. */
static struct ids take_over(struct dev *d)
{
	struct ids ids = {};
	int p, tc;

	assert_int_equal(dev_open_pinned(d, dir), 0);
	for (p = 0; p < DEV_PROG_TC; p++)
		ids.prog[p] = prog_id(d->prog_fd[p]);
	tc = dev_take_tc(d);
	if (tc >= 0) {
		ids.prog[DEV_PROG_TC] = prog_id(tc);
		assert_int_equal(dev_pin(d, dir, tc, 0), 0);
		close(tc);
	}
	return ids;
}

/* A takeover that loads: its own tc program too, as dev_lowlat would. */
static struct ids take_over_pin(struct dev *d)
{
	struct ids ids = take_over(d);
	struct mrc_tc_tx *tc;

	if (!ids.prog[DEV_PROG_TC]) {
		tc = tc_load(d);
		ids.prog[DEV_PROG_TC] =
			prog_id(bpf_program__fd(tc->progs.mrc_tc_tx));
		assert_int_equal(dev_pin(d, dir,
					 bpf_program__fd(tc->progs.mrc_tc_tx),
					 0),
				 0);
		mrc_tc_tx__destroy(tc);
	}
	return ids;
}

static int setup(void **state)
{
	struct mrc_tc_tx *tc;
	struct dev d;

	(void)state;
	unsetenv("MRCD_TEST_BUILD_ID");
	if (dev_open(&d))
		return -1;
	if (dev_pin_claim(dir)) {
		dev_release(&d);
		return -1;
	}
	tc = tc_load(&d);
	if (dev_pin(&d, dir, bpf_program__fd(tc->progs.mrc_tc_tx), 1)) {
		mrc_tc_tx__destroy(tc);
		dev_release(&d);
		return -1;
	}
	mrc_tc_tx__destroy(tc);
	dev_release(&d); /* the pins hold the programs and maps */
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unsetenv("MRCD_TEST_BUILD_ID");
	dev_unpin(dir);
	return 0;
}

static void same_build_reuses(void **state)
{
	struct ids a, b;
	struct dev d;
	uint32_t key = 0;
	struct mrc_xdp_tx__bss bss;
	int fd, p;
	double t;

	(void)state;
	t = now_ms();
	a = take_over_pin(&d);
	printf("dev_open_pinned reusing the programs, and dev_pin: %.1f ms\n",
	       now_ms() - t);
	assert_int_equal(d.reused, 1);
	/* The transmit program's .bss is the running one's. */
	d.tx->bss->tx_list[1].e[0].qpn = 4242;
	fd = dev_pin_get(dir, "maps", "mrcd_tx_bss");
	assert_true(fd >= 0);
	assert_int_equal(bpf_map_lookup_elem(fd, &key, &bss), 0);
	assert_int_equal(bss.tx_list[1].e[0].qpn, 4242);
	close(fd);
	/* The control program runs (reused fd): an unknown QP's view. */
	{
		struct mrc_qp_view v;

		assert_int_not_equal(dev_qp_view(&d, 3, &v), -EBADF);
	}
	dev_release(&d);
	b = take_over_pin(&d);
	assert_int_equal(d.reused, 1);
	for (p = 0; p < DEV_NPROGS; p++)
		assert_int_equal(a.prog[p], b.prog[p]);
	dev_release(&d);
}

static void other_build_loads(void **state)
{
	struct ids a, b, c, e;
	struct dev d;
	int p;

	(void)state;
	a = take_over_pin(&d);
	assert_int_equal(d.reused, 1);
	dev_release(&d);
	setenv("MRCD_TEST_BUILD_ID", "other", 1);
	assert_non_null(strstr(dev_build_id(), ":other"));
	b = take_over_pin(&d);
	assert_int_equal(d.reused, 0);
	for (p = 0; p < DEV_NPROGS; p++)
		assert_int_not_equal(a.prog[p], b.prog[p]);
	dev_release(&d);
	/* The other build's, recorded: reused by that build only. */
	c = take_over_pin(&d);
	assert_int_equal(d.reused, 1);
	assert_int_equal(c.prog[DEV_PROG_RX], b.prog[DEV_PROG_RX]);
	dev_release(&d);
	unsetenv("MRCD_TEST_BUILD_ID");
	e = take_over_pin(&d);
	assert_int_equal(d.reused, 0);
	assert_int_not_equal(e.prog[DEV_PROG_RX], b.prog[DEV_PROG_RX]);
	dev_release(&d);
}

/* progs/mrc_xdp_ctl replaced by another program: loaded afresh. */
static void pin_not_recorded_loads(void **state)
{
	struct dev d;
	int fd;

	(void)state;
	fd = dev_pin_get(dir, "progs", "mrc_xdp_tx");
	assert_true(fd >= 0);
	assert_int_equal(dev_pin_prog(fd, dir, "mrc_xdp_ctl"), 0);
	close(fd);
	take_over_pin(&d);
	assert_int_equal(d.reused, 0);
	dev_release(&d);
	take_over_pin(&d);
	assert_int_equal(d.reused, 1); /* the fresh ones, recorded */
	dev_release(&d);
}

/* A record of another layout, or no .bss pin: loaded afresh. */
static void bad_record_loads(void **state)
{
	struct dev d;
	int fd;

	(void)state;
	dev_pin_del(dir, "maps", "mrcd_build");
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "mrcd_build", 4, 8, 1, NULL);
	assert_true(fd >= 0);
	assert_int_equal(dev_pin_obj(fd, dir, "maps", "mrcd_build"), 0);
	close(fd);
	take_over_pin(&d);
	assert_int_equal(d.reused, 0);
	dev_release(&d);
	dev_pin_del(dir, "maps", "mrcd_tx_bss");
	take_over_pin(&d);
	assert_int_equal(d.reused, 0);
	dev_release(&d);
	take_over_pin(&d);
	assert_int_equal(d.reused, 1);
	dev_release(&d);
}

/* The data path's pump record (mrc_pump): gone, and whose. */
static struct mrc_pump pump_of(struct dev *d)
{
	struct mrc_pump pump;
	uint32_t key = 0;

	assert_int_equal(bpf_map_lookup_elem(bpf_map__fd(d->rx->maps.mrc_pump),
					     &key, &pump),
			 0);
	return pump;
}

/*
 * The pump's watch: the first takeover loads it (claim and leave pinned,
 * the links pinned, all recorded); the next of this build runs the same
 * programs, its claim names this process the pump and its leave says it
 * is gone; a link that runs another program, no record, or a watch of
 * another build under this build's data path: loaded afresh.
 */
static void pump_watch_reused(void **state)
{
	uint32_t claim;
	struct dev d;
	int fd;

	(void)state;
	take_over_pin(&d);
	assert_int_equal(dev_pump_watch(&d, dir), 0);
	assert_int_equal(d.pump_reused, 0);
	assert_true(d.pump_claimed);
	claim = prog_id(d.pump_claim_fd);
	dev_release(&d);

	take_over_pin(&d);
	assert_int_equal(dev_pump_watch(&d, dir), 0);
	assert_int_equal(d.pump_reused, 1);
	assert_int_equal(prog_id(d.pump_claim_fd), claim);
	assert_true(d.pump_claimed);
	assert_int_equal(pump_of(&d).tgid, (uint32_t)getpid());
	assert_int_equal(pump_of(&d).gone, 0);
	assert_int_equal(dev_pump_gone(&d), 0);
	assert_int_equal(pump_of(&d).gone, 1);
	dev_release(&d);

	/* progs/mrc_pump_kill: a link to the exit program. */
	fd = dev_pin_get(dir, "progs", "mrc_pump_exit");
	assert_true(fd >= 0);
	assert_int_equal(dev_pin_prog(fd, dir, "mrc_pump_kill"), 0);
	close(fd);
	take_over_pin(&d);
	assert_int_equal(dev_pump_watch(&d, dir), 0);
	assert_int_equal(d.pump_reused, 0);
	assert_int_not_equal(prog_id(d.pump_claim_fd), claim);
	claim = prog_id(d.pump_claim_fd);
	dev_release(&d);

	dev_pin_del(dir, "maps", "mrcd_pump_rec");
	take_over_pin(&d);
	assert_int_equal(dev_pump_watch(&d, dir), 0);
	assert_int_equal(d.pump_reused, 0);
	dev_release(&d);
	take_over_pin(&d);
	assert_int_equal(dev_pump_watch(&d, dir), 0);
	assert_int_equal(d.pump_reused, 1); /* the fresh one, recorded */
	claim = prog_id(d.pump_claim_fd);
	dev_release(&d);

	/* Another build takes over and is killed before its watch: the
	 * next of that build runs its own data path, and the watch left
	 * running, recorded and linked, is this build's: loaded afresh. */
	setenv("MRCD_TEST_BUILD_ID", "other", 1);
	take_over_pin(&d);
	assert_int_equal(d.reused, 0);
	dev_release(&d);
	take_over_pin(&d);
	assert_int_equal(d.reused, 1);
	assert_int_equal(dev_pump_watch(&d, dir), 0);
	assert_int_equal(d.pump_reused, 0);
	assert_int_not_equal(prog_id(d.pump_claim_fd), claim);
	dev_release(&d);
}

/* The takeover's sweep: dev_has_all finds what dev_has finds. */
static void has_all_is_has(void **state)
{
	static uint8_t has[MRC_MAX_QP];
	const uint32_t n[] = {
		[DEV_SQ] = MRC_MAX_QP, [DEV_MR] = MRC_MAX_MR, [DEV_CQ] = MRC_MAX_CQ
	};
	struct mrc_sq *sq;
	struct dev_mr mr;
	struct dev d;
	uint32_t i, found;
	int k, cq, word;

	(void)state;
	take_over(&d);
	assert_int_equal(dev_sq_create(&d, 9, &sq, NULL), 0);
	assert_int_equal(dev_mr_create(&d, 7, 4096, 1, 0, 0, &mr), 0);
	cq = dev_cq_map(&d, MRC_MAX_CQ - 1, &word);
	assert_true(cq >= 0 && word >= 0); /* a word the template admits */
	for (k = DEV_SQ; k <= DEV_CQ; k++) {
		assert_int_equal(dev_has_all(&d, k, has, n[k]), 0);
		for (found = 0, i = 0; i < n[k]; i++) {
			assert_int_equal(has[i], dev_has(&d, k, i));
			found += has[i];
		}
		assert_true(found >= 1);
	}
	dev_qp_destroy(&d, 9, sq);
	dev_mr_remove(&d, 7);
	dev_mr_destroy(&mr);
	dev_cq_remove(&d, MRC_MAX_CQ - 1);
	close(cq);
	close(word);
	dev_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(same_build_reuses, setup,
						teardown),
		cmocka_unit_test_setup_teardown(other_build_loads, setup,
						teardown),
		cmocka_unit_test_setup_teardown(pin_not_recorded_loads, setup,
						teardown),
		cmocka_unit_test_setup_teardown(bad_record_loads, setup,
						teardown),
		cmocka_unit_test_setup_teardown(pump_watch_reused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(has_all_is_has, setup,
						teardown),
	};
	struct statfs fs;

	if (geteuid() != 0) {
		printf("SKIP: test_dev_reuse needs root (BPF)\n");
		return 77;
	}
	if (statfs("/sys/fs/bpf", &fs) || fs.f_type != BPF_FS_MAGIC) {
		printf("SKIP: test_dev_reuse needs bpffs on /sys/fs/bpf\n");
		return 77;
	}
	snprintf(dir, sizeof(dir), "/sys/fs/bpf/mrct-reuse-%d", (int)getpid());
	return cmocka_run_group_tests(tests, NULL, NULL);
}
