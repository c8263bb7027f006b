// SPDX-License-Identifier: GPL-2.0
/*
 * mrc-perf's failover timeline (tools/perf/timeline.c) off the poller's
 * thread: the health samples are taken by a thread of their own, so a
 * poller that never calls tl_tick still gets them; an --at command runs
 * from its own thread, and tl_finish waits for it and keeps its status.
 * mrcx_query_qp_health is this file's stand-in for mrcd.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../tools/perf/timeline.h"
#include "mrc_ext.h"

static int asked; /* atomic: health requests so far */

int mrcx_query_qp_health(struct mrc_qp *qp, uint32_t after,
			 struct mrcd_qp_health *h)
{
	(void)qp;
	(void)after;
	memset(h, 0, sizeof(*h));
	h->nev = 4;
	h->ev_use[0] = 0xf;
	__atomic_add_fetch(&asked, 1, __ATOMIC_RELAXED);
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* What tl_json prints, as a string. */
static char *json_of(const struct tl *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	tl_json(t, f);
	fclose(f);
	return buf;
}

/* Samples come while the poller does nothing but sleep. */
static void test_samples_without_the_poller(void **state)
{
	struct tl *t = tl_new(NULL, NULL, 0);
	int i;

	(void)state;
	assert_non_null(t);
	__atomic_store_n(&asked, 0, __ATOMIC_RELAXED);
	tl_start(t, mono_ns(), (struct mrc_qp *)&asked);
	/* A sample a millisecond: three within 10 s on any machine. */
	for (i = 0; i < 10000 && __atomic_load_n(&asked, __ATOMIC_RELAXED) < 3;
	     i++)
		usleep(1000);
	assert_true(__atomic_load_n(&asked, __ATOMIC_RELAXED) >= 3);
	tl_completion(t, mono_ns(), 0, 65536);
	tl_finish(t, mono_ns());
	tl_free(t);
}

/*
 * The command waits for a file the test makes after tl_tick returned,
 * and exits 0 if it came, 1 after 10 s without it: tl_finish must wait
 * for it and report its status.
 */
static void test_command_beside_the_poller(void **state)
{
	char dir[] = "/tmp/mrc-tl-XXXXXX", flag[64], at[256];
	const char *ats[1] = { at };
	struct tl *t;
	uint64_t now;
	char *json;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(flag, sizeof(flag), "%s/go", dir);
	snprintf(at, sizeof(at),
		 "0:for i in $(seq 1000); do [ -e %s ] && exit 0; "
		 "sleep 0.01; done; exit 1",
		 flag);
	t = tl_new(NULL, ats, 1);
	assert_non_null(t);
	now = mono_ns();
	tl_start(t, now, NULL);
	tl_tick(t, now);
	f = fopen(flag, "w");
	assert_non_null(f);
	fclose(f);
	tl_finish(t, mono_ns());
	json = json_of(t);
	assert_non_null(strstr(json, "\"status\":0"));
	free(json);
	tl_free(t);
	unlink(flag);
	rmdir(dir);
}

/* A figure of tl_json's, or -1 if it is missing. */
static double json_num(const char *json, const char *key)
{
	char k[128];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(json, k);
	return p ? strtod(p + strlen(k), NULL) : -1;
}

/*
 * The longest gap is measured twice: by when the application polled
 * (a poller off its CPU for 5 s) and by the data path's completion
 * timestamps (never more than 1 ms apart, two of them polled out of
 * order). All completions come 2 s after the fault command started, so
 * the stretch from its return to the first is the same for both, and
 * under 4 s.
 */
static void test_gap_by_completion_timestamps(void **state)
{
	const char *ats[1] = { "0:true" };
	struct tl *t = tl_new(NULL, ats, 1);
	static const struct {
		uint64_t poll_ms, done_ms;
	} c[] = { { 0, 0 }, { 1, 2 }, { 2, 1 }, { 5002, 3 }, { 5003, 4 } };
	uint64_t now = mono_ns(), base = now + 2000000000ull;
	double dp;
	char *json;
	size_t i;

	(void)state;
	assert_non_null(t);
	tl_start(t, now, NULL);
	tl_tick(t, now);
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		tl_completion(t, base + c[i].poll_ms * 1000000ull,
			      base + c[i].done_ms * 1000000ull, 4096);
	tl_finish(t, base + 5003000000ull);
	json = json_of(t);
	assert_float_equal(json_num(json, "longest_gap_ms"), 5000.0, 1e-9);
	dp = json_num(json, "longest_gap_by_completion_ts_ms");
	assert_true(dp > 0 && dp < 4000.0);
	free(json);
	tl_free(t);
}

/* A timeline freed without tl_finish ends its threads first. */
static void test_free_before_finish(void **state)
{
	const char *ats[1] = { "0:true" };
	struct tl *t = tl_new(NULL, ats, 1);
	uint64_t now = mono_ns();

	(void)state;
	assert_non_null(t);
	tl_start(t, now, (struct mrc_qp *)&asked);
	tl_tick(t, now);
	tl_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_samples_without_the_poller),
		cmocka_unit_test(test_command_beside_the_poller),
		cmocka_unit_test(test_gap_by_completion_timestamps),
		cmocka_unit_test(test_free_before_finish),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
