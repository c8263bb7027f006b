// SPDX-License-Identifier: GPL-2.0
/*
 * libmrc's logging (lib/log.c): MRC_LOG_LEVEL picks what is written,
 * warning when unset, a bad value is said once and changes nothing, and
 * every line starts with libmrc[PID]. Each case runs in a child process
 * (the level is read once per process) with stderr into a pipe.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "log.h"

/* What a process with MRC_LOG_LEVEL=value (NULL: unset) writes when it
 * logs one line at each level. */
static void run(const char *value, char *out, size_t len)
{
	int p[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		if (value)
			setenv(MRC_LOG_ENV, value, 1);
		else
			unsetenv(MRC_LOG_ENV);
		lib_err("QP %u: e\n", 1u);
		lib_warn("QP %u: w\n", 2u);
		lib_info("QP %u: i\n", 3u);
		lib_debug("QP %u: d\n", 4u);
		_exit(0);
	}
	close(p[1]);
	while ((n = read(p[0], out + got, len - 1 - (size_t)got)) > 0)
		got += n;
	out[got] = 0;
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void levels(void **state)
{
	char out[1024];

	(void)state;
	run("debug", out, sizeof(out));
	assert_int_equal(lines(out), 4);
	assert_non_null(strstr(out, "QP 4: d"));
	run("info", out, sizeof(out));
	assert_int_equal(lines(out), 3);
	assert_null(strstr(out, ": d"));
	run("warning", out, sizeof(out));
	assert_int_equal(lines(out), 2);
	run("error", out, sizeof(out));
	assert_int_equal(lines(out), 1);
	assert_non_null(strstr(out, "QP 1: e"));
}

static void default_and_bad_value(void **state)
{
	char out[1024];

	(void)state;
	run(NULL, out, sizeof(out));
	assert_int_equal(lines(out), 2); /* error and warning */
	assert_true(!strncmp(out, "libmrc[", 7));
	run("loud", out, sizeof(out));
	/* Said once, then the default. */
	assert_int_equal(lines(out), 3);
	assert_non_null(strstr(out, "MRC_LOG_LEVEL=loud: not a level"));
	assert_non_null(strstr(out, "QP 2: w"));
	assert_null(strstr(out, "QP 3: i"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(levels),
		cmocka_unit_test(default_and_bad_value),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
