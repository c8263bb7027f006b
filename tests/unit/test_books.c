// SPDX-License-Identifier: GPL-2.0
/*
 * mrcd's books (daemon/books.c) on memory of their layout, no BPF map: a
 * controller's modify books the profile it changed and nothing else, a
 * takeover reads the books back into fresh modules (profiles, port states,
 * clients as orphans, QPs), and what the takeover writes back is what it
 * changed: a QP booked for a client with no session loses its entry, an
 * entry of no QP is not written.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "books.h"
#include "clients.h"
#include "links.h"
#include "objects.h"
#include "profiles.h"

static struct books *b;
static struct clients cl;
static struct objects obj;
static struct profiles prof;
static struct links links;
static struct books_ctx bk;

static void modules_fresh(void)
{
	uint32_t i;

	memset(&cl, 0, sizeof(cl));
	memset(&obj, 0, sizeof(obj));
	memset(&prof, 0, sizeof(prof));
	memset(&links, 0, sizeof(links));
	for (i = 0; i < MRCD_MAX_CLIENTS; i++) {
		cl.client[i].idx = i;
		cl.client[i].conn.fd = -1;
		cl.client[i].pidfd.fd = -1;
	}
	for (i = 0; i < MRC_MAX_QP; i++)
		obj.qp[i].db_fd = -1;
	links.nports = 4;
	for (i = 0; i < 4; i++)
		links.admin[i] = MRC_CTL_PORT_ADMIN_ENABLED;
}

static int setup(void **state)
{
	(void)state;
	b = calloc(1, sizeof(*b));
	assert_non_null(b);
	b->magic = BOOKS_MAGIC;
	b->version = BOOKS_VERSION;
	b->size = sizeof(*b);
	b->generation = 1;
	modules_fresh();
	bk = (struct books_ctx){ .cl = &cl,
				 .obj = &obj,
				 .prof = &prof,
				 .links = &links,
				 .b = b,
				 .fd = -1 };
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(b);
	return 0;
}

static void profiles_booked_in_part(void **state)
{
	(void)state;
	prof.ev[5].state = MRC_CTL_PROFILE_OFFLINE;
	prof.ev[5].count = 7;
	prof.ev[5].users = 9; /* booked, and not trusted back */
	prof.cc[2].state = MRC_CTL_PROFILE_ONLINE;
	links.admin[1] = MRC_CTL_PORT_ADMIN_DISABLED;
	/* Changed, and not (yet) booked. */
	prof.ev[6].state = MRC_CTL_PROFILE_OFFLINE;
	books_prof(&bk, 5);
	assert_int_equal(b->prof.ev[5].state, MRC_CTL_PROFILE_OFFLINE);
	assert_int_equal(b->prof.ev[5].count, 7);
	assert_int_equal(b->prof.ev[6].state, MRC_CTL_PROFILE_INIT);
	assert_int_equal(b->prof.cc[2].state, MRC_CTL_PROFILE_ONLINE);
	assert_int_equal(b->port_admin[1], MRC_CTL_PORT_ADMIN_DISABLED);
	/* A port or CC modify: no EV profile. */
	books_prof(&bk, -1);
	assert_int_equal(b->prof.ev[6].state, MRC_CTL_PROFILE_INIT);

	/* The next mrcd: as booked. */
	modules_fresh();
	assert_int_equal(books_adopt(&bk), 0);
	assert_int_equal(prof.ev[5].state, MRC_CTL_PROFILE_OFFLINE);
	assert_int_equal(prof.ev[5].count, 7);
	assert_int_equal(prof.ev[5].users, 0); /* no QP holds it */
	assert_int_equal(prof.ev[6].state, MRC_CTL_PROFILE_INIT);
	assert_int_equal(prof.cc[2].state, MRC_CTL_PROFILE_ONLINE);
	assert_int_equal(links.admin[1], MRC_CTL_PORT_ADMIN_DISABLED);
	assert_int_equal(links.admin[0], MRC_CTL_PORT_ADMIN_ENABLED);
	assert_int_equal(b->generation, 2);
}

static void takeover_books_what_it_changed(void **state)
{
	struct client *c = &cl.client[0];

	(void)state;
	/* Client 0 (session 0x77) owns QP 3 and CQ 1. */
	c->conn.fd = 9; /* connected, as far as the books care */
	c->session = 0x77;
	c->pid = 1234;
	books_client(&bk, c);
	obj.qp[3].owner = c;
	obj.qp[3].state = MRC_QPS_RTS;
	obj.qp[3].peer_qpn = 33;
	obj.qp[3].prof_held = 1;
	obj.qp[3].ev_prof = 5;
	obj.qp[3].cc_prof = 2;
	books_qp(&bk, 3);
	prof.ev[5].state = MRC_CTL_PROFILE_ONLINE;
	books_prof(&bk, 5);
	obj.cq_owner[1] = c;
	books_objs(&bk);
	/* QP 4 booked for slot 1, whose entry a SIGKILL left without a
	 * session; entry 200 of no QP holds leftovers. */
	b->qp[4].owner = 2;
	b->qp[4].state = MRC_QPS_INIT;
	b->qp[200].state = 0x55;

	modules_fresh();
	assert_int_equal(books_adopt(&bk), 0);
	assert_ptr_equal(obj.qp[3].owner, &cl.client[0]);
	assert_int_equal(obj.qp[3].peer_qpn, 33);
	assert_null(obj.qp[4].owner);
	assert_int_equal(prof.ev[5].users, 1); /* QP 3's */
	assert_int_equal(prof.cc[2].users, 1);
	assert_ptr_equal(obj.cq_owner[1], &cl.client[0]);
	assert_true(cl.client[0].orphan);
	assert_int_equal(cl.client[0].session, 0x77);
	assert_int_equal(cl.client[0].pid, 1234);

	books_adopted(&bk);
	assert_int_equal(b->qp[3].owner, 1);
	assert_int_equal(b->qp[3].state, MRC_QPS_RTS);
	assert_int_equal(b->qp[4].owner, 0); /* no owner now: gone */
	assert_int_equal(b->qp[200].state, 0x55); /* not written */
	assert_int_equal(b->client[0].session, 0x77);
	assert_int_equal(b->cq_owner[1], 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(profiles_booked_in_part, setup,
						teardown),
		cmocka_unit_test_setup_teardown(takeover_books_what_it_changed,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
