// SPDX-License-Identifier: GPL-2.0
/*
 * mrcd's clients (daemon/clients.c) on a real unix socket in a scratch
 * directory and a real event loop, no root: a connection gets a slot with
 * its peer's pid and uid and a session, its requests reach on_request, a
 * request refused or a hang-up ends it through on_gone, max-clients is
 * held, and an orphan's slot is resumed only by the same process or let
 * go when that process ends.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "clients.h"
#include "loop.h"
#include "mrc/msg.h"
#include "mrc/mrcd_proto.h"

static struct clients cl;
static struct loop loop;
static char dir[64], path[96];
static int requests, gone, changes, refuse;
static struct client *last_req, *last_gone;
static pid_t child = -1; /* killed in teardown whatever happens */

static int on_request(void *ctx, struct client *c, const struct mrcd_req *req,
		      size_t len)
{
	(void)ctx;
	(void)req;
	assert_int_equal(len, sizeof(*req));
	requests++;
	last_req = c;
	return refuse ? -1 : 0;
}

static void on_gone(void *ctx, struct client *c)
{
	(void)ctx;
	gone++;
	last_gone = c;
}

static void on_change(void *ctx, const struct client *c)
{
	(void)ctx;
	(void)c;
	changes++;
}

static int setup(void **state)
{
	(void)state;
	requests = gone = changes = refuse = 0;
	snprintf(dir, sizeof(dir), "/tmp/mrc-clients.XXXXXX");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sock", dir);
	assert_int_equal(loop_init(&loop), 0);
	clients_init(&cl, &loop);
	cl.on_request = on_request;
	cl.on_gone = on_gone;
	cl.on_change = on_change;
	assert_int_equal(clients_listen(&cl, path), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		child = -1;
	}
	clients_close(&cl, 1);
	loop_close(&loop);
	assert_int_not_equal(access(path, F_OK), 0); /* the socket is gone */
	rmdir(dir);
	return 0;
}

/* A connection, accepted by the loop; the application's end. */
static int dial(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	while (loop_once(&loop, 100000000ull) > 0)
		;
	return fd;
}

static struct client *slot_of_pid(uint32_t pid)
{
	int i;

	for (i = 0; i < MRCD_MAX_CLIENTS; i++)
		if (cl.client[i].conn.fd >= 0 && cl.client[i].pid == pid)
			return &cl.client[i];
	return NULL;
}

static void ask(int fd)
{
	static struct mrcd_req req = { .op = MRCD_HELLO,
				       .version = MRCD_PROTO_VERSION };

	assert_int_equal(mrc_msg_send(fd, &req, sizeof(req), NULL, 0), 0);
	while (loop_once(&loop, 0) > 0)
		;
}

static void connection_gets_a_slot(void **state)
{
	struct client *c;
	int fd;

	(void)state;
	fd = dial();
	c = slot_of_pid((uint32_t)getpid());
	assert_non_null(c);
	assert_int_equal(c->uid, getuid());
	assert_true(c->session & 1); /* never 0 */
	assert_true(c->start_ticks > 0); /* from /proc/PID/stat */
	assert_int_equal(c->start_ticks, clients_proc_start(c->pid));
	assert_int_equal(changes, 1); /* booked */
	ask(fd);
	ask(fd);
	assert_int_equal(requests, 2);
	assert_ptr_equal(last_req, c);
	/* The application hangs up: on_gone, the slot is free. */
	close(fd);
	while (loop_once(&loop, 100000000ull) > 0)
		;
	assert_int_equal(gone, 1);
	assert_ptr_equal(last_gone, c);
	assert_int_equal(c->conn.fd, -1);
}

static void refused_request_ends_connection(void **state)
{
	char b;
	int fd;

	(void)state;
	fd = dial();
	refuse = 1;
	ask(fd);
	assert_int_equal(gone, 1);
	/* mrcd closed its end. */
	assert_int_equal(recv(fd, &b, 1, 0), 0);
	close(fd);
}

static void max_clients_held(void **state)
{
	int fd[3], i;
	char b;

	(void)state;
	cl.max_clients = 2;
	for (i = 0; i < 3; i++)
		fd[i] = dial();
	assert_int_equal(changes, 2);
	/* The third was closed at once. */
	assert_int_equal(recv(fd[2], &b, 1, MSG_DONTWAIT), 0);
	for (i = 0; i < 3; i++)
		close(fd[i]);
	while (loop_once(&loop, 100000000ull) > 0)
		;
	assert_int_equal(gone, 2);
}

/* Orphans are watched with pidfds: without pidfd_open (valgrind has
 * none) there is nothing to test. */
static void need_pidfd(void)
{
	int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);

	if (fd < 0 && errno == ENOSYS) {
		print_message("pidfd_open: ENOSYS here (valgrind?): skipped\n");
		skip();
	}
	close(fd);
}

static void resume_by_the_same_process_only(void **state)
{
	struct client *o = &cl.client[7], *c;
	int fd;

	(void)state;
	need_pidfd();
	/* A predecessor's client of this process. */
	o->orphan = 1;
	o->pid = (uint32_t)getpid();
	o->uid = getuid();
	o->session = 0x55;
	o->start_ticks = clients_proc_start(o->pid);
	clients_watch_orphans(&cl);
	assert_int_equal(cl.norphans, 1);
	assert_true(o->pidfd.fd >= 0);
	fd = dial();
	c = slot_of_pid((uint32_t)getpid());
	assert_non_null(c);
	assert_ptr_not_equal(c, o);
	/* Another session number: no. */
	assert_null(clients_resume(&cl, c, 0x56));
	/* The same process started later (a reused pid): no. */
	o->start_ticks++;
	assert_null(clients_resume(&cl, c, 0x55));
	o->start_ticks--;
	assert_ptr_equal(clients_resume(&cl, c, 0x55), o);
	assert_int_equal(cl.norphans, 0);
	assert_false(o->orphan);
	assert_int_equal(c->conn.fd, -1);
	assert_true(o->conn.fd >= 0);
	assert_int_equal(o->pidfd.fd, -1);
	/* Requests on the connection now come from o. */
	ask(fd);
	assert_ptr_equal(last_req, o);
	close(fd);
	while (loop_once(&loop, 100000000ull) > 0)
		;
	assert_ptr_equal(last_gone, o);
}

static void orphan_let_go_when_its_process_ends(void **state)
{
	struct client *o = &cl.client[3];
	int status;

	(void)state;
	need_pidfd();
	child = fork();
	assert_true(child >= 0);
	if (!child) {
		pause();
		_exit(0);
	}
	o->orphan = 1;
	o->pid = (uint32_t)child;
	o->uid = getuid();
	o->session = 0x77;
	o->start_ticks = clients_proc_start(o->pid);
	/* And one whose process is gone already. */
	cl.client[4].orphan = 1;
	cl.client[4].pid = (uint32_t)child;
	cl.client[4].start_ticks = 1; /* not that process's */
	clients_watch_orphans(&cl);
	assert_int_equal(gone, 1); /* slot 4 at once */
	assert_int_equal(cl.norphans, 1);
	kill(child, SIGKILL);
	assert_int_equal(waitpid(child, &status, 0), child);
	child = -1;
	while (loop_once(&loop, 100000000ull) > 0)
		;
	assert_int_equal(gone, 2);
	assert_ptr_equal(last_gone, o);
	assert_int_equal(cl.norphans, 0);
	assert_false(o->orphan);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(connection_gets_a_slot, setup,
						teardown),
		cmocka_unit_test_setup_teardown(refused_request_ends_connection,
						setup, teardown),
		cmocka_unit_test_setup_teardown(max_clients_held, setup,
						teardown),
		cmocka_unit_test_setup_teardown(resume_by_the_same_process_only,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			orphan_let_go_when_its_process_ends, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
