// SPDX-License-Identifier: GPL-2.0
/*
 * libmrc's logging (log.h).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

static const char *const names[] = { "error", "warning", "info", "debug" };
static enum mrc_log_level level_in_force = MRC_LOG_WARNING;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void read_level(void)
{
	const char *v = getenv(MRC_LOG_ENV);
	unsigned int i;

	if (!v || !*v)
		return;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(v, names[i])) {
			level_in_force = (enum mrc_log_level)i;
			return;
		}
	fprintf(stderr,
		"libmrc[%d]: %s=%s: not a level (error, warning, info, debug); warning in force\n",
		(int)getpid(), MRC_LOG_ENV, v);
}

int mrc_log_on(enum mrc_log_level l)
{
	pthread_once(&once, read_level);
	return l <= level_in_force;
}

void mrc_log(enum mrc_log_level l, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n;

	if (!mrc_log_on(l))
		return;
	/* One write per line: lines of threads do not interleave. */
	n = snprintf(line, sizeof(line), "libmrc[%d]: ", (int)getpid());
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(line))
		vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	va_end(ap);
	fputs(line, stderr);
}
