// SPDX-License-Identifier: GPL-2.0
/*
 * Fixture tests of the send queue slots of mrcd's device layer
 * (daemon/dev.c, dev_sq_create / dev_qp_destroy) on the real maps of a
 * loaded receive program: a QP number used again gets a map no one has
 * seen, never the one a past application may still have mapped; a slot
 * in use is never replaced; fresh maps go in a batch at a time. Every
 * update of a map of maps from userspace waits out an RCU grace period,
 * so a QP's life cost two of them before (about 16 ms each on a busy
 * 2-core machine); the time per create and destroy is printed, not
 * asserted.
 */
#define _GNU_SOURCE
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
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "dev.h"
#include "mrc/abi.h"
#include "mrc_xdp_rx.skel.h"

static struct dev d;

static int setup(void **state)
{
	(void)state;
	memset(&d, 0, sizeof(d));
	d.rx = mrc_xdp_rx__open_and_load();
	return d.rx ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	dev_release(&d);
	return 0;
}

/* The id of the map in mrc_sq[qpn]; 0: none. */
static uint32_t slot_id(uint32_t qpn)
{
	uint32_t id = 0;

	if (bpf_map_lookup_elem(bpf_map__fd(d.rx->maps.mrc_sq), &qpn, &id))
		return 0;
	return id;
}

static uint32_t fd_id(int fd)
{
	struct bpf_map_info info = {};
	uint32_t len = sizeof(info);

	assert_int_equal(bpf_obj_get_info_by_fd(fd, &info, &len), 0);
	return info.id;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/*
 * QP 2 destroyed while its application still has the queue mapped (and
 * writes into it): QP 2 created again has a zeroed queue of another map,
 * and that map is what the data path finds.
 */
static void number_used_again_gets_a_new_queue(void **state)
{
	struct mrc_sq *sq, *again;
	uint32_t old_id;
	int fd, fd2;

	(void)state;
	assert_int_equal(dev_sq_create(&d, 2, &sq, &fd), 0);
	old_id = fd_id(fd);
	assert_int_equal(slot_id(2), old_id);
	sq->tail = 77;
	/* The application's own mapping stays; mrcd's goes. */
	dev_qp_destroy(&d, 2, NULL);
	sq->tail = 78;
	assert_int_equal(dev_sq_create(&d, 2, &again, &fd2), 0);
	assert_int_not_equal(fd_id(fd2), old_id);
	assert_int_equal(slot_id(2), fd_id(fd2));
	assert_int_equal(again->tail, 0);
	assert_int_equal(sq->tail, 78);
	assert_true((void *)again != (void *)sq);
	munmap(sq, sizeof(*sq));
	close(fd);
	dev_qp_destroy(&d, 2, again);
	close(fd2);
}

/*
 * Fresh maps come in batches: the first create fills the slots after it
 * too, and the next creates take them without touching mrc_sq. A slot in
 * use is never replaced by a later batch, and cannot be created twice.
 */
static void batches_spare_slots_in_use(void **state)
{
	static struct mrc_sq *sq[MRC_MAX_QP];
	uint32_t id10, qpn, n = 200;
	double t0, t1, t2;

	(void)state;
	t0 = now_s();
	for (qpn = 2; qpn < 2 + n; qpn++)
		assert_int_equal(dev_sq_create(&d, qpn, &sq[qpn], NULL), 0);
	t1 = now_s();
	id10 = slot_id(10);
	assert_int_not_equal(id10, 0);
	for (qpn = 2; qpn < 2 + n; qpn++)
		assert_int_equal(d.sq_slot[qpn], DEV_SQ_USED);
	/* Spare fresh ones were put in after the last, in its batch. */
	assert_int_equal(d.sq_slot[2 + n], DEV_SQ_FRESH);
	assert_int_equal(dev_sq_create(&d, 10, &sq[0], NULL), -EBUSY);
	/* Every other one freed and taken again: 10 is spared. */
	for (qpn = 3; qpn < 2 + n; qpn += 2)
		dev_qp_destroy(&d, qpn, sq[qpn]);
	for (qpn = 3; qpn < 2 + n; qpn += 2)
		assert_int_equal(dev_sq_create(&d, qpn, &sq[qpn], NULL), 0);
	assert_int_equal(slot_id(10), id10);
	assert_int_equal(sq[10]->tail, 0);
	/* One number used over and over keeps no more than a batch of
	 * fresh maps waiting. */
	for (qpn = 0; qpn < 300; qpn++) {
		dev_qp_destroy(&d, 5, sq[5]);
		assert_int_equal(dev_sq_create(&d, 5, &sq[5], NULL), 0);
		assert_true(d.sq_nfresh <= 64);
	}
	for (qpn = 2; qpn < 2 + n; qpn++)
		dev_qp_destroy(&d, qpn, sq[qpn]);
	t2 = now_s();
	printf("  %u send queues created in %.1f ms (%.3f ms each); "
	       "%u destroyed, created again and all destroyed in %.1f ms\n",
	       n, (t1 - t0) * 1e3, (t1 - t0) * 1e3 / n, n / 2, (t2 - t1) * 1e3);
}

/*
 * After a restart every slot is stale to the new mrcd; a predecessor's
 * QP taken over (dev_sq_adopt) is in use: the batch that fills the slots
 * around it leaves its queue where it is.
 */
static void adopted_slot_kept(void **state)
{
	struct mrc_sq *sq, *other;
	uint32_t id;

	(void)state;
	assert_int_equal(dev_sq_create(&d, 40, &sq, NULL), 0);
	id = slot_id(40);
	/* A new mrcd on the same maps knows nothing of the slots. */
	memset(d.sq_slot, 0, sizeof(d.sq_slot));
	d.sq_nfresh = 0;
	dev_sq_adopt(&d, 40);
	assert_int_equal(dev_sq_create(&d, 39, &other, NULL), 0);
	assert_int_equal(d.sq_slot[41], DEV_SQ_FRESH);
	assert_int_equal(d.sq_slot[40], DEV_SQ_USED);
	assert_int_equal(slot_id(40), id);
	assert_int_equal(dev_sq_create(&d, 40, &other, NULL), -EBUSY);
	dev_qp_destroy(&d, 39, other);
	dev_qp_destroy(&d, 40, sq);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			number_used_again_gets_a_new_queue, setup, teardown),
		cmocka_unit_test_setup_teardown(batches_spare_slots_in_use,
						setup, teardown),
		cmocka_unit_test_setup_teardown(adopted_slot_kept, setup,
						teardown),
	};

	if (geteuid() != 0) {
		printf("SKIP: test_dev_sq needs root (BPF)\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
